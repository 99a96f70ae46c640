//! The poker speed targets (docs/poker.md) measured as a duel, in CPU time, on one thread.
//!
//! * `eval`: the same 1,000,000 pre-dealt random 7-card hands evaluated by fairdeal and by
//!   rs_poker 5.0.0, alternated round by round (the order flips every round), the ratio taken
//!   per round; prints the median and the spread (min–max) of the ratio.
//! * `mc`: Monte Carlo deal + evaluate + count (partial shuffle, reused deck) on a one-thread
//!   rayon pool, for the fast backends xoshiro256++ and wyrand; median and spread of M hands
//!   per CPU-second.
//! * `exhaustive`: all 133,784,560 seven-card hands on a one-thread pool; CPU seconds.
//!
//! CPU time is the process's CPU clock (`CLOCK_PROCESS_CPUTIME_ID`: all its threads, to the
//! nanosecond), so time the scheduler gives to other processes on a loaded machine is not
//! counted. Run:
//!
//! ```text
//! cargo run --release -p fairdeal-benches --example poker_duel -- [rounds] [all|eval|mc|exhaustive]
//! ```
//!
//! One part alone under callgrind gives its instruction profile, e.g.
//! `cargo build --profile profiling -p fairdeal-benches --example poker_duel` and
//! `valgrind --tool=callgrind target/profiling/examples/poker_duel 1 mc` (debug info for
//! `callgrind_annotate`; the counts are those of the release build).

use std::hint::black_box;
use std::time::Instant;

use fairdeal_cards::{Card, standard_deck};
use fairdeal_core::Shuffler;
use fairdeal_partial::Partial;
use fairdeal_poker::{Deal, McConfig, monte_carlo};
use fairdeal_rng::Backend;
use fairdeal_rng::backend::{Pcg64Mcg, WyRand, Xoshiro256pp};
use rs_poker::core::{Card as RsCard, Rankable, Suit as RsSuit, Value as RsValue};

const HANDS: usize = 1_000_000;
const MC_HANDS: u64 = 10_000_000;

/// CPU nanoseconds consumed so far by all threads of this process (`CLOCK_PROCESS_CPUTIME_ID`,
/// which the kernel reads to the nanosecond; `/proc/self/task/*/schedstat` advances by whole
/// scheduler ticks on some hosts, 4 ms on the Zen 5 VM, which is most of a round).
fn cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
}

/// `(cpu seconds, wall seconds, result)` of one call.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, f64, T) {
    let (c0, w0) = (cpu_ns(), Instant::now());
    let out = f();
    let wall = w0.elapsed().as_secs_f64();
    ((cpu_ns() - c0) as f64 * 1e-9, wall, out)
}

fn median_min_max(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn eval_duel(rounds: usize) {
    let mut rng = <Pcg64Mcg as Backend>::seeded(fairdeal_benches::SEED);
    let mut deck = standard_deck();
    let hands: Vec<[Card; 7]> = (0..HANDS)
        .map(|_| {
            Partial::new()
                .shuffle_prefix(&mut deck, 7, &mut rng)
                .expect("7 <= 52");
            deck[..7].try_into().expect("7 cards")
        })
        .collect();
    let rs_hands: Vec<[RsCard; 7]> = hands
        .iter()
        .map(|h| {
            h.map(|c| {
                RsCard::new(
                    RsValue::from_u8(c.rank().index()),
                    RsSuit::from_u8(c.suit().index()),
                )
            })
        })
        .collect();
    let ours = || {
        let mut sum = 0u64;
        for h in &hands {
            sum += u64::from(fairdeal_poker::evaluate(black_box(h)).map_or(0, |v| v.get()));
        }
        sum
    };
    let theirs = || {
        let mut sum = 0u64;
        for h in &rs_hands {
            sum += black_box(&h[..]).rank().category() as u64;
        }
        sum
    };
    let (mut ratios, mut ours_rate, mut theirs_rate) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (a, b) = if round % 2 == 0 {
            let a = timed(ours);
            (a, timed(theirs))
        } else {
            let b = timed(theirs);
            (timed(ours), b)
        };
        black_box((a.2, b.2));
        ratios.push(b.0 / a.0);
        ours_rate.push(HANDS as f64 / a.0 * 1e-6);
        theirs_rate.push(HANDS as f64 / b.0 * 1e-6);
    }
    let (r, rlo, rhi) = median_min_max(&mut ratios);
    let (o, olo, ohi) = median_min_max(&mut ours_rate);
    let (t, tlo, thi) = median_min_max(&mut theirs_rate);
    println!(
        "eval random 7-card, {rounds} rounds x {HANDS} hands: fairdeal {o:.1} M/s ({olo:.1}–{ohi:.1}), \
         rs_poker {t:.1} M/s ({tlo:.1}–{thi:.1}), ratio median {r:.2} (min {rlo:.2}, max {rhi:.2})"
    );
}

fn mc<B: Backend>(rounds: usize, pool: &rayon::ThreadPool) {
    let partial = Partial::with_sampler(B::Sampler::default());
    let mut rates = Vec::new();
    for _ in 0..rounds {
        let (cpu, _, report) = timed(|| {
            pool.install(|| {
                monte_carlo(
                    &partial,
                    B::seeded,
                    &McConfig {
                        hands: MC_HANDS,
                        seed: fairdeal_benches::SEED,
                        deal: Deal::Reuse,
                        progress: None,
                        shard: None,
                    },
                )
            })
        });
        black_box(report.expect("hands > 0"));
        rates.push(MC_HANDS as f64 / cpu * 1e-6);
    }
    let (m, lo, hi) = median_min_max(&mut rates);
    println!(
        "monte carlo partial/{}, {rounds} rounds x {MC_HANDS} hands: {m:.1} M hands per CPU-second ({lo:.1}–{hi:.1})",
        B::INFO.name
    );
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("rounds: a positive integer"))
        .unwrap_or(11)
        .max(1);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average at start: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    // Monte Carlo compares with the cached exact table: fill the cache outside the timings.
    let _ = fairdeal_poker::exact_probabilities(7);

    let part = std::env::args().nth(2).unwrap_or_else(|| "all".into());
    if !["all", "eval", "mc", "exhaustive"].contains(&part.as_str()) {
        eprintln!("usage: poker_duel [rounds] [all|eval|mc|exhaustive] (got {part:?})");
        std::process::exit(2);
    }
    if part == "all" || part == "eval" {
        eval_duel(rounds);
    }
    if part == "all" || part == "mc" {
        mc::<Xoshiro256pp>(rounds, &pool);
        mc::<WyRand>(rounds, &pool);
    }
    if part == "all" || part == "exhaustive" {
        exhaustive(rounds, &pool);
    }
    println!(
        "load average at end: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
}

fn exhaustive(rounds: usize, pool: &rayon::ThreadPool) {
    let mut cpu = Vec::new();
    let mut wall = Vec::new();
    for _ in 0..rounds.min(5) {
        let (c, w, t) = timed(|| pool.install(fairdeal_poker::exhaustive_7));
        black_box(t);
        cpu.push(c);
        wall.push(w);
    }
    let (c, clo, chi) = median_min_max(&mut cpu);
    let (w, _, _) = median_min_max(&mut wall);
    println!(
        "exhaustive 7-card table, one thread, {} rounds: {c:.3} CPU-s ({clo:.3}–{chi:.3}), wall median {w:.3} s",
        cpu.len()
    );
}
