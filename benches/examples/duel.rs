//! Duels: our shuffle against a peer, interleaved round by round, so that both sides see the
//! same machine load.
//!
//! A duel runs `rounds` short rounds. In each round both sides shuffle the *same buffer* with
//! their own generator of the *same type* (except that rand's shuffle runs on rand's own
//! `ChaCha12Rng` where the backend is chacha12: ours has the same stream from a faster block
//! function, and a user of rand has rand's), `iters` calls each, one side after the other (the
//! order alternates from round to round, so neither side always runs on the caches the other
//! just warmed). Each half is timed in the thread's CPU time, so a preemption by another
//! process does not count against the side it interrupts. The round's ratio is
//! `peer time / our time`; the duel reports the median of
//! those ratios and their spread (quartiles, min, max), plus the median time per call of each
//! side. A load spike hits both halves of the same round, so the ratio holds still while the
//! absolute times move.
//!
//! `cargo xtask bench --duel` builds and runs this program and reads its `--json` output (one
//! JSON object per line); it can also be run directly:
//!
//! ```text
//! cargo run --release -p fairdeal-benches --example duel -- [--quick] [--json] [--filter TEXT]
//! ```
//!
//! `--quick` runs fewer, shorter rounds; `--filter TEXT` keeps the duels whose id
//! (`case/backend/ours/peer/n`) contains `TEXT`.

use std::hint::black_box;
use std::time::Duration;

use fairdeal_benches::SEED;
use fairdeal_benches::rounds::{self, Half, Round};
use fairdeal_core::{Lemire, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_partial::Partial;
use fairdeal_rng::{Backend, BackendVisitor};
use rand::Rng as _;
use rand::seq::SliceRandom;

/// The backends the speed targets are stated for: fastrand's generator, a fast
/// non-cryptographic one, and the default CSPRNG.
const BACKENDS: [&str; 3] = ["wyrand", "pcg64", "chacha12"];
/// The `u32` sizes of the targets (the 52-card deck is its own `u8` case).
const SIZES: [usize; 3] = [1_000, 10_000, 1 << 20];
const DECK: usize = 52;
const HAND: usize = 7;
/// The bytes of the generator-only duel (`words_4k`): two of the wide engine's buffers.
const WORDS: usize = 4096;

/// How long the duels run.
#[derive(Debug, Clone, Copy)]
struct Plan {
    rounds: usize,
    /// Target time of one side's half of a round (`iters` is calibrated to it).
    round: Duration,
    warm_up_rounds: usize,
}

/// The outcome of one duel.
#[derive(Debug, serde::Serialize)]
struct Outcome {
    case: &'static str,
    backend: &'static str,
    n: usize,
    ours: &'static str,
    peer: &'static str,
    rounds: usize,
    iters: u64,
    /// Median over rounds of our time per call, ns.
    ours_ns: f64,
    /// Median over rounds of the peer's time per call, ns.
    peer_ns: f64,
    /// Median over rounds of `peer time / our time`.
    ratio: f64,
    ratio_q1: f64,
    ratio_q3: f64,
    ratio_min: f64,
    ratio_max: f64,
    /// Median of the per-round ratios over the rounds where ours ran first, and over those
    /// where the peer ran first: a gap between the two is an order effect (the side that runs
    /// second finds the caches and predictors the first one left), which the overall median
    /// averages out and a best-of does not.
    ratio_ours_first: f64,
    ratio_peer_first: f64,
    /// The interleaved wall-clock best-of of the same rounds: the peer's fastest half over
    /// ours' fastest half, each in wall-clock time (`Instant`). This is what an independent
    /// best-of bench reports; it keeps each side's luckiest round, where the median ratio keeps
    /// the typical one.
    wall_best_ratio: f64,
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    quantile(&v, 0.5)
}

/// This thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_ns() -> f64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as f64 * 1e9 + t.tv_nsec as f64
}

/// Times `iters` calls of `side` on `buf`: nanoseconds of this thread's CPU time, and of wall
/// clock (`Instant`, read inside the CPU-time interval) for the best-of comparison. Wall-clock
/// time would also count the slices the scheduler gives other processes: on 2 cores at load
/// 6, nearly every millisecond-long half-round (a shuffle of 2^20 elements is one call) was
/// preempted, and the duels at 2^20 had quartiles like 0.3–2.9×.
///
/// Every side is a closure marked `#[inline(always)]`, so its body runs inside this loop as it
/// would in a user's loop (the library's entry points are `#[inline]`). Called instead, each
/// shuffle paid a call and reloaded its captured generator: 1.3 ns on the Zen 5, a fifth of a
/// 7-card deal (6.6 instead of 5.1 ns), which also lowered the deal's ratio to a full shuffle.
fn time<T>(buf: &mut [T], iters: u64, side: &mut impl FnMut(&mut [T])) -> Half {
    let start = thread_cpu_ns();
    let wall = std::time::Instant::now();
    for _ in 0..iters {
        side(black_box(&mut *buf));
    }
    black_box(&*buf);
    let wall_ns = wall.elapsed().as_secs_f64() * 1e9;
    Half {
        cpu_ns: thread_cpu_ns() - start,
        wall_ns,
    }
}

/// Runs one duel of `ours` against `peer` on `buf` (see the module docs).
#[allow(clippy::too_many_arguments)]
fn duel<T>(
    plan: Plan,
    (case, backend, n): (&'static str, &'static str, usize),
    (ours_name, peer_name): (&'static str, &'static str),
    buf: &mut [T],
    mut ours: impl FnMut(&mut [T]),
    mut peer: impl FnMut(&mut [T]),
) -> Outcome {
    // Calibrate: the slower side's half of a round takes about `plan.round`.
    let iters = rounds::calibrate(plan.round.as_secs_f64() * 1e9, |iters| {
        let ours = time(buf, iters, &mut ours).cpu_ns;
        ours.max(time(buf, iters, &mut peer).cpu_ns)
    });
    // A half whose thread CPU clock did not advance (seen once on a KVM guest: a 74 µs half
    // read 0 ns) has no ratio; `alternate` runs that round again, so every ratio is finite.
    let timed = rounds::alternate(plan.warm_up_rounds, plan.rounds, |ours_first| {
        if ours_first {
            let a = time(buf, iters, &mut ours);
            (a, time(buf, iters, &mut peer))
        } else {
            let b = time(buf, iters, &mut peer);
            (time(buf, iters, &mut ours), b)
        }
    })
    .unwrap_or_else(|e| panic!("{case}/{backend}/{n}: {e}"));
    if timed.rerun > 0 {
        eprintln!(
            "duel {case}/{backend}/{n}: {} rounds run again (a half read 0 ns of thread CPU time)",
            timed.rerun
        );
    }
    let ratio = |r: &Round| r.peer.cpu_ns / r.ours.cpu_ns;
    let ratios_where = |ours_first: bool| -> Vec<f64> {
        let rounds = timed.counted.iter().filter(|r| r.ours_first == ours_first);
        rounds.map(ratio).collect()
    };
    let each = |side: fn(&Round) -> f64| timed.counted.iter().map(side);
    let best = |side: fn(&Round) -> f64| each(side).fold(f64::INFINITY, f64::min);
    let mut ratios: Vec<f64> = each(ratio).collect();
    ratios.sort_by(f64::total_cmp);
    Outcome {
        case,
        backend,
        n,
        ours: ours_name,
        peer: peer_name,
        rounds: plan.rounds,
        iters,
        ours_ns: median(each(|r| r.ours.cpu_ns).collect()) / iters as f64,
        peer_ns: median(each(|r| r.peer.cpu_ns).collect()) / iters as f64,
        ratio: quantile(&ratios, 0.5),
        ratio_q1: quantile(&ratios, 0.25),
        ratio_q3: quantile(&ratios, 0.75),
        ratio_min: ratios[0],
        ratio_max: ratios[ratios.len() - 1],
        ratio_ours_first: median(ratios_where(true)),
        ratio_peer_first: median(ratios_where(false)),
        wall_best_ratio: best(|r| r.peer.wall_ns) / best(|r| r.ours.wall_ns),
    }
}

/// Runs `$body` with `$rng` bound to rand's side's generator for `$backend`, seeded with
/// `SEED + 1`: rand's own `ChaCha12Rng` for chacha12, else the backend's generator (`B`, in
/// scope), so the peer runs as a user of rand would run it.
macro_rules! with_rands_generator {
    ($backend:expr, $rng:ident, $body:block) => {
        if $backend == "chacha12" {
            let mut $rng = <rand::rngs::ChaCha12Rng as rand::SeedableRng>::seed_from_u64(SEED + 1);
            $body
        } else {
            let mut $rng = B::seeded(SEED + 1);
            $body
        }
    };
}

/// Runs every duel of one backend, handing each outcome to `out` (if its id passes `keep`).
struct Duels<'a> {
    plan: Plan,
    keep: &'a dyn Fn(&str) -> bool,
    out: &'a mut dyn FnMut(Outcome),
}

impl BackendVisitor for Duels<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let Duels { plan, keep, out } = self;
        let backend = B::INFO.name;
        let wanted = |case: &str, ours: &str, peer: &str, n: usize| {
            keep(&format!("{case}/{backend}/{ours}/{peer}/{n}"))
        };
        let inplace = Inplace::with_sampler(B::Sampler::default());
        let partial = Partial::with_sampler(B::Sampler::default());
        let lemire = Inplace::with_sampler(Lemire);

        // The 52-card deck (`u8`): against rand, fastrand (on its own generator), and our
        // one-draw-per-step reference path.
        let mut deck: [u8; DECK] = std::array::from_fn(|i| i as u8);
        let id = ("deck52", backend, DECK);
        if wanted("deck52", "inplace", "rand-shuffle", DECK) {
            let mut ours_rng = B::seeded(SEED);
            with_rands_generator!(backend, peer_rng, {
                out(duel(
                    plan,
                    id,
                    ("inplace", "rand-shuffle"),
                    &mut deck,
                    #[inline(always)]
                    |d| inplace.shuffle(d, &mut ours_rng),
                    #[inline(always)]
                    |d| d.shuffle(&mut peer_rng),
                ));
            });
        }
        if backend == "wyrand" && wanted("deck52", "inplace", "fastrand-shuffle", DECK) {
            let (mut ours_rng, mut peer_rng) = (B::seeded(SEED), fastrand::Rng::with_seed(SEED));
            out(duel(
                plan,
                id,
                ("inplace", "fastrand-shuffle"),
                &mut deck,
                #[inline(always)]
                |d| inplace.shuffle(d, &mut ours_rng),
                #[inline(always)]
                |d| peer_rng.shuffle(d),
            ));
        }
        if wanted("deck52", "inplace", "inplace-lemire", DECK) {
            let (mut ours_rng, mut peer_rng) = (B::seeded(SEED), B::seeded(SEED + 1));
            out(duel(
                plan,
                id,
                ("inplace", "inplace-lemire"),
                &mut deck,
                #[inline(always)]
                |d| inplace.shuffle(d, &mut ours_rng),
                #[inline(always)]
                |d| lemire.shuffle(d, &mut peer_rng),
            ));
        }
        // Dealing 7 of 52 from a deck that is never put back, against one full shuffle of it.
        if wanted("deal7_of_52", "partial", "inplace", DECK) {
            let (mut ours_rng, mut peer_rng) = (B::seeded(SEED), B::seeded(SEED + 1));
            out(duel(
                plan,
                ("deal7_of_52", backend, DECK),
                ("partial", "inplace"),
                &mut deck,
                #[inline(always)]
                |d| {
                    partial
                        .shuffle_prefix(d, HAND, &mut ours_rng)
                        .expect("7 <= 52");
                },
                #[inline(always)]
                |d| inplace.shuffle(d, &mut peer_rng),
            ));
        }

        // The generator alone: 4 KiB of ChaCha12 words from the backend's generator
        // (fairdeal-chacha: 32 blocks at a time where the CPU has AVX-512) against rand's
        // `ChaCha12Rng`, the same stream.
        if backend == "chacha12" && wanted("words_4k", "fairdeal-chacha", "rand-chacha", WORDS) {
            let mut ours_rng = B::seeded(SEED);
            let mut peer_rng = <rand::rngs::ChaCha12Rng as rand::SeedableRng>::seed_from_u64(SEED);
            let mut bytes = [0u8; WORDS];
            out(duel(
                plan,
                ("words_4k", backend, WORDS),
                ("fairdeal-chacha", "rand-chacha"),
                &mut bytes,
                #[inline(always)]
                |b| ours_rng.fill_bytes(b),
                #[inline(always)]
                |b| peer_rng.fill_bytes(b),
            ));
        }

        for n in SIZES {
            let mut data: Vec<u32> = (0..n as u32).collect();
            let id = ("shuffle_u32", backend, n);
            if wanted("shuffle_u32", "inplace", "rand-shuffle", n) {
                let mut ours_rng = B::seeded(SEED);
                with_rands_generator!(backend, peer_rng, {
                    out(duel(
                        plan,
                        id,
                        ("inplace", "rand-shuffle"),
                        &mut data,
                        #[inline(always)]
                        |d| inplace.shuffle(d, &mut ours_rng),
                        #[inline(always)]
                        |d| d.shuffle(&mut peer_rng),
                    ));
                });
            }
            if backend == "wyrand" && wanted("shuffle_u32", "inplace", "fastrand-shuffle", n) {
                let (mut ours_rng, mut peer_rng) =
                    (B::seeded(SEED), fastrand::Rng::with_seed(SEED));
                out(duel(
                    plan,
                    id,
                    ("inplace", "fastrand-shuffle"),
                    &mut data,
                    #[inline(always)]
                    |d| inplace.shuffle(d, &mut ours_rng),
                    #[inline(always)]
                    |d| peer_rng.shuffle(d),
                ));
            }
            if n == 1_000 && wanted("shuffle_u32", "inplace", "inplace-lemire", n) {
                let (mut ours_rng, mut peer_rng) = (B::seeded(SEED), B::seeded(SEED + 1));
                out(duel(
                    plan,
                    id,
                    ("inplace", "inplace-lemire"),
                    &mut data,
                    #[inline(always)]
                    |d| inplace.shuffle(d, &mut ours_rng),
                    #[inline(always)]
                    |d| lemire.shuffle(d, &mut peer_rng),
                ));
            }
        }
    }
}

fn main() {
    let mut quick = false;
    let mut json = false;
    let mut filter: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--json" => json = true,
            "--filter" => filter = args.next(),
            // `cargo bench`/`cargo test` pass these; they change nothing here.
            "--bench" | "--test" => {}
            other => {
                eprintln!("duel: error: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    // Short rounds: on a loaded machine the scheduler preempts a process every few
    // milliseconds, and a half-round that contains a preemption gives a wild ratio. With
    // half-rounds of 200-300 µs few rounds are hit, and the median of many rounds ignores those.
    // (Measured under load 12-15 on 2 cores: 2 ms half-rounds gave quartiles like 3.0-15.0 on
    // the 52-card deck, 0.5 ms ones 2.7-2.8.) A shuffle of 2^20 elements is one call per half.
    let plan = if quick {
        Plan {
            rounds: 61,
            round: Duration::from_micros(200),
            warm_up_rounds: 5,
        }
    } else {
        Plan {
            rounds: 201,
            round: Duration::from_micros(300),
            warm_up_rounds: 10,
        }
    };
    let keep = |id: &str| filter.as_deref().is_none_or(|f| id.contains(f));
    let mut print = |o: Outcome| {
        if json {
            println!(
                "{}",
                serde_json::to_string(&o).expect("plain numbers and names")
            );
        } else {
            println!(
                "{:<12} {:<9} {:>8} {:<8} vs {:<17} ours {:>11.1} ns  peer {:>11.1} ns  ratio {:>5.2}× (quartiles {:.2}–{:.2}, {} rounds; ours first {:.2}×, peer first {:.2}×; wall best-of {:.2}×)",
                o.case,
                o.backend,
                o.n,
                o.ours,
                o.peer,
                o.ours_ns,
                o.peer_ns,
                o.ratio,
                o.ratio_q1,
                o.ratio_q3,
                o.rounds,
                o.ratio_ours_first,
                o.ratio_peer_first,
                o.wall_best_ratio
            );
        }
    };
    for backend in BACKENDS {
        fairdeal_rng::with_backend(
            backend,
            Duels {
                plan,
                keep: &keep,
                out: &mut print,
            },
        )
        .expect("a catalogue backend");
    }
}
