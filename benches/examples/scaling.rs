//! How the parallel shuffle scales with threads: ours (`fairdeal_parallel::Parallel::shuffle`)
//! and rip_shuffle's `par_shuffle` side by side, plus a phase profile and an Amdahl projection.
//!
//! ```text
//! cargo run --release -p fairdeal-benches --example scaling -- \
//!     [--n 100000000] [--threads 1,2,4,8,16] [--rounds 5] [--backend pcg64] [--json]
//! ```
//!
//! For every round, for every thread count, both subjects shuffle the same 10^8-element
//! `Vec<u32>` once on a rayon pool of that many threads, the order of the two alternating from
//! round to round, so that load from other processes hits both alike ("a duel"). Reported: ns
//! per element, best and median over the rounds, and rip / ours (> 1: ours is faster).
//!
//! Then the same duel on the calling thread with no pool: our `Parallel::shuffle_sequential`
//! against rip_shuffle's `seq_shuffle` (its sequential shuffle), `--rounds` rounds, timed in the
//! thread's CPU time (a preemption by another process does not count).
//!
//! Every round also times two memory streams over the same N `u32`s on each pool, each thread
//! taking an equal share: a read (a sum) and a copy into a second buffer (a rotate per element,
//! so plain stores rather than `memcpy`'s). What they gain from more threads is what the
//! memory system gives work that only streams: a shuffle that gains less is held back by
//! memory bandwidth; one that gains more is not bandwidth-bound.
//!
//! Then the phase profile (`Parallel::shuffle_profiled`, one call per thread count, after the
//! rounds): wall time per phase, and busy time per phase summed over the threads, with the
//! total busy time over the one-thread call's (the work that running side by side adds, which
//! bounds the speed-up at threads / that ratio). The serial
//! fraction is the one-thread time of the phases that run on one thread whatever the pool
//! (`draw`, `plan`) over the one-thread total; the projection for p threads is Amdahl's,
//! `T1 / (serial + (T1 − serial) / p)`. It assumes the parallel phases scale perfectly, which
//! memory bandwidth will not allow on most machines: an upper bound, not a prediction. An N of
//! at most `DEFAULT_WHOLE_BYTES` (2^21 `u32`) is shuffled whole, by Fisher-Yates: no phases,
//! and the tables stop after the streams (`"shuffled_whole": true` in the JSON).
//!
//! Defaults: N = 10^8, threads 1, 2, 4, … up to the core count, 5 rounds, generator `pcg64`
//! (rand_pcg on our side, the same generator through `Compat06` on rip_shuffle's).

use std::hint::black_box;
use std::time::{Duration, Instant};

use fairdeal_benches::{Compat06, SEED, rounds};
use fairdeal_parallel::{DEFAULT_WHOLE_BYTES, Parallel, Phase, Profile, Step};
use fairdeal_rng::{Backend, BackendVisitor};
use rayon::prelude::*;
use rip_shuffle::{RipShuffleParallel, RipShuffleSequential};

/// The thread counts of the Amdahl projection.
const PROJECTED: [usize; 4] = [4, 16, 64, 128];

struct Options {
    n: usize,
    threads: Vec<usize>,
    rounds: usize,
    backend: String,
    json: bool,
}

const DEFAULT_N: usize = 100_000_000;
/// `--n` at most this: the elements are `u32`s numbered from 0.
const MAX_N: usize = u32::MAX as usize;
const MAX_THREADS: usize = 1024;
const DEFAULT_ROUNDS: usize = 5;
const MAX_ROUNDS: usize = 1000;
const DEFAULT_BACKEND: &str = "pcg64";

fn usage_text() -> String {
    format!(
        "usage: scaling [--n N] [--threads 1,2,4] [--rounds R] [--backend NAME] [--json]
  --n N            elements (u32) to shuffle, 1..={MAX_N} (default {DEFAULT_N}); memory: twice N u32
                   (the data, and the copy stream's second buffer)
  --threads LIST   thread counts, each 1..={MAX_THREADS} (default 1, 2, 4, ... up to the core count)
  --rounds R       interleaved rounds, 1..={MAX_ROUNDS} (default {DEFAULT_ROUNDS})
  --backend NAME   generator (default {DEFAULT_BACKEND})
  --json           one JSON object instead of the tables"
    )
}

fn usage(message: &str) -> ! {
    eprintln!("scaling: error: {message}");
    eprintln!("{}", usage_text());
    std::process::exit(2);
}

fn parse_options() -> Options {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let mut default_threads: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t < cores)
        .collect();
    default_threads.push(cores);
    let mut o = Options {
        n: DEFAULT_N,
        threads: default_threads,
        rounds: DEFAULT_ROUNDS,
        backend: DEFAULT_BACKEND.to_owned(),
        json: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{arg} needs a value")))
        };
        match arg.as_str() {
            "--n" => {
                o.n = value()
                    .replace('_', "")
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_N).contains(n))
                    .unwrap_or_else(|| usage(&format!("--n must be in 1..={MAX_N}")));
            }
            "--threads" => {
                o.threads = value()
                    .split(',')
                    .map(|t| {
                        t.trim()
                            .parse()
                            .ok()
                            .filter(|t| (1..=MAX_THREADS).contains(t))
                    })
                    .collect::<Option<Vec<usize>>>()
                    .unwrap_or_else(|| {
                        usage(&format!(
                            "--threads takes a list of counts in 1..={MAX_THREADS}"
                        ))
                    });
            }
            "--rounds" => {
                o.rounds = value()
                    .parse()
                    .ok()
                    .filter(|r| (1..=MAX_ROUNDS).contains(r))
                    .unwrap_or_else(|| usage(&format!("--rounds must be in 1..={MAX_ROUNDS}")));
            }
            "--backend" => o.backend = value(),
            "--json" => o.json = true,
            "-h" | "--help" => {
                println!("{}", usage_text());
                std::process::exit(0);
            }
            "--bench" => {} // passed by `cargo bench --examples`; nothing to do
            other => usage(&format!("unknown argument {other}")),
        }
    }
    o
}

/// Nanoseconds per element of each round, for one subject and thread count.
#[derive(Default)]
struct Series(Vec<f64>);

impl Series {
    fn best(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }
    fn worst(&self) -> f64 {
        self.0.iter().copied().fold(0.0, f64::max)
    }
    fn median(&self) -> f64 {
        median(&self.0)
    }
    /// The spread of the rounds: (worst − best) / median.
    fn spread(&self) -> f64 {
        (self.worst() - self.best()) / self.median()
    }
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// How the exchange steps are named in the output.
fn step_name(step: Step) -> &'static str {
    match step {
        Step::Partition => "partition",
        Step::BucketSwaps => "bucket swaps",
        Step::GroupSwaps => "group swaps",
    }
}

/// rip / ours of each round (the two calls of a round ran back to back): the duel's paired
/// ratios, whose median and range are the comparison's result and spread.
fn round_ratios(ours: &Series, rip: &Series) -> Vec<f64> {
    ours.0.iter().zip(&rip.0).map(|(o, r)| r / o).collect()
}

/// The rounds run in the host's fastest state ([`rounds::fastest_rounds`]: within 10 % of the
/// fastest round's ours + rip time), as `cargo xtask bench --duel --runs N` reads its duels.
#[derive(Debug, Clone, PartialEq)]
struct Fastest {
    /// The indices of those rounds, in round order.
    rounds: Vec<usize>,
    /// The median of their rip / ours ratios, and the lowest and highest.
    ratio: f64,
    low: f64,
    high: f64,
    /// The median of our ns per element over those rounds.
    ours: f64,
}

fn fastest(ours: &Series, rip: &Series) -> Fastest {
    let rounds = rounds::fastest_rounds(&ours.0, &rip.0);
    let ratios: Vec<f64> = rounds.iter().map(|&i| rip.0[i] / ours.0[i]).collect();
    let ours_kept: Vec<f64> = rounds.iter().map(|&i| ours.0[i]).collect();
    Fastest {
        ratio: median(&ratios),
        low: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        high: ratios.iter().copied().fold(0.0, f64::max),
        ours: median(&ours_kept),
        rounds,
    }
}

impl Fastest {
    /// As a table cell: `1.41 [1.38–1.45] (3 of 7)`.
    fn cell(&self, of: usize) -> String {
        format!(
            "{:.2} [{:.2}–{:.2}] ({} of {of})",
            self.ratio,
            self.low,
            self.high,
            self.rounds.len()
        )
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "rounds": self.rounds,
            "rip_over_ours_median": self.ratio,
            "rip_over_ours_min": self.low,
            "rip_over_ours_max": self.high,
            "ours_ns_per_element_median": self.ours,
        })
    }
}

/// One row of the scaling table: both sides' best / median (spread), the median of the
/// per-round ratios with their range, the same over the rounds in the host's fastest state
/// ([`fastest`]), and `last` in the last column.
fn print_row(label: &str, ours: &Series, rip: &Series, last: &str) {
    let ratios = round_ratios(ours, rip);
    let (lo, hi) = ratios
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
    println!(
        "| {label} | {:.2} / {:.2} ({:.0} %) | {:.2} / {:.2} ({:.0} %) | {:.2} [{lo:.2}–{hi:.2}] | {} | {last} |",
        ours.best(),
        ours.median(),
        ours.spread() * 100.0,
        rip.best(),
        rip.median(),
        rip.spread() * 100.0,
        median(&ratios),
        fastest(ours, rip).cell(ours.0.len()),
    );
}

struct Measured {
    ours: Vec<Series>,
    rip: Vec<Series>,
    /// One thread, no pool: `shuffle_sequential` and rip_shuffle's `seq_shuffle`.
    seq: (Series, Series),
    profiles: Vec<Profile>,
    /// Per thread count, ns per element of each round's read and copy streams ([`streams`]).
    reads: Vec<Series>,
    copies: Vec<Series>,
}

/// Bytes moved per element by the read stream (a `u32` read) and the copy (read and written).
const READ_BYTES: f64 = 4.0;
const COPY_BYTES: f64 = 8.0;

/// One read and one copy of `data` on `pool`, each thread taking an equal share: their wall
/// times. The copy writes `copy` (as long as `data`).
fn streams(pool: &rayon::ThreadPool, data: &[u32], copy: &mut [u32]) -> (Duration, Duration) {
    let share = data.len().div_ceil(pool.current_num_threads()).max(1);
    let start = Instant::now();
    let sum = pool.install(|| {
        data.par_chunks(share)
            .map(|part| part.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
            .reduce(|| 0, u32::wrapping_add)
    });
    black_box(sum);
    let read = start.elapsed();
    let start = Instant::now();
    pool.install(|| {
        copy.par_chunks_mut(share)
            .zip(data.par_chunks(share))
            .for_each(|(to, from)| {
                for (t, f) in to.iter_mut().zip(from) {
                    *t = f.rotate_left(1);
                }
            });
    });
    black_box(&copy);
    (read, start.elapsed())
}

struct Run<'a>(&'a Options);

impl BackendVisitor for Run<'_> {
    type Output = Measured;
    fn visit<B: Backend>(self) -> Measured {
        let o = self.0;
        let pools: Vec<rayon::ThreadPool> = o
            .threads
            .iter()
            .map(|&t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .expect("thread pool")
            })
            .collect();
        let ours_shuffle = Parallel::with_sampler(B::Sampler::default());
        let mut data: Vec<u32> = (0..o.n as u32).collect();
        let mut ours_rng = B::seeded(SEED);
        let mut rip_rng = Compat06::<B>::seeded(SEED);
        let per_element = |d: Duration| d.as_secs_f64() * 1e9 / o.n as f64;
        let mut m = Measured {
            ours: o.threads.iter().map(|_| Series::default()).collect(),
            rip: o.threads.iter().map(|_| Series::default()).collect(),
            seq: (Series::default(), Series::default()),
            profiles: Vec::new(),
            reads: o.threads.iter().map(|_| Series::default()).collect(),
            copies: o.threads.iter().map(|_| Series::default()).collect(),
        };
        let mut copy = vec![0u32; o.n];
        // One warm-up call of each (page faults of the first touch, thread start-up).
        pools[0].install(|| ours_shuffle.shuffle(&mut data, &mut ours_rng));
        pools[0].install(|| data.par_shuffle(&mut rip_rng));
        streams(&pools[0], &data, &mut copy);
        for round in 0..o.rounds {
            for (i, pool) in pools.iter().enumerate() {
                let mut ours = |data: &mut Vec<u32>| {
                    let start = Instant::now();
                    pool.install(|| {
                        ours_shuffle.shuffle(black_box(data.as_mut_slice()), &mut ours_rng);
                    });
                    per_element(start.elapsed())
                };
                let mut rip = |data: &mut Vec<u32>| {
                    let start = Instant::now();
                    pool.install(|| black_box(data.as_mut_slice()).par_shuffle(&mut rip_rng));
                    per_element(start.elapsed())
                };
                let (a, b) = if round % 2 == 0 {
                    let a = ours(&mut data);
                    (a, rip(&mut data))
                } else {
                    let b = rip(&mut data);
                    (ours(&mut data), b)
                };
                m.ours[i].0.push(a);
                m.rip[i].0.push(b);
                let (read, copied) = streams(pool, &data, &mut copy);
                m.reads[i].0.push(per_element(read));
                m.copies[i].0.push(per_element(copied));
                if !o.json {
                    eprintln!(
                        "round {}/{}, {:>3} threads: ours {a:6.2} ns/elem, rip_shuffle {b:6.2} ns/elem",
                        round + 1,
                        o.rounds,
                        o.threads[i]
                    );
                }
            }
        }
        // The sequential duel: the calling thread, no pool on either side.
        let mut seq_rng = Compat06::<B>::seeded(SEED);
        data.seq_shuffle(&mut seq_rng);
        for round in 0..o.rounds {
            // Both sides run on this thread only: timed in its CPU time, which a preemption by
            // another process does not inflate (as in the duels of `cargo xtask bench --duel`).
            let mut ours = |data: &mut Vec<u32>| {
                let start = thread_cpu();
                ours_shuffle.shuffle_sequential(black_box(data.as_mut_slice()), &mut ours_rng);
                per_element(thread_cpu() - start)
            };
            let mut rip = |data: &mut Vec<u32>| {
                let start = thread_cpu();
                black_box(data.as_mut_slice()).seq_shuffle(&mut seq_rng);
                per_element(thread_cpu() - start)
            };
            let (a, b) = if round % 2 == 0 {
                let a = ours(&mut data);
                (a, rip(&mut data))
            } else {
                let b = rip(&mut data);
                (ours(&mut data), b)
            };
            m.seq.0.0.push(a);
            m.seq.1.0.push(b);
            if !o.json {
                eprintln!(
                    "round {}/{}, no pool: ours (shuffle_sequential) {a:6.2} ns/elem, rip_shuffle seq_shuffle {b:6.2} ns/elem",
                    round + 1,
                    o.rounds
                );
            }
        }
        for pool in &pools {
            let profile = pool.install(|| ours_shuffle.shuffle_profiled(&mut data, &mut ours_rng));
            m.profiles.push(profile);
        }
        m
    }
}

/// This thread's CPU time so far (`CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The busy time of every phase, summed over the threads: the work a profiled call did.
fn busy_total(p: &Profile) -> Duration {
    Phase::ALL.iter().flat_map(|&ph| p.busy(ph)).sum()
}

/// A stream's GB/s per round and their median, from ns per element and the bytes each moves.
fn gb_per_s(bytes: f64, s: &Series) -> serde_json::Value {
    serde_json::json!({
        "median": bytes / s.median(),
        "rounds": s.0.iter().map(|ns| bytes / ns).collect::<Vec<_>>(),
    })
}

fn main() {
    let o = parse_options();
    let m =
        fairdeal_rng::with_backend(&o.backend, Run(&o)).unwrap_or_else(|e| usage(&e.to_string()));
    // The serial fraction from the one-thread profile (the first thread count if 1 is absent).
    let base = o.threads.iter().position(|&t| t == 1).unwrap_or(0);
    let one = &m.profiles[base];
    // A slice of at most the whole size (`DEFAULT_WHOLE_BYTES`) is one Fisher-Yates: no phases,
    // so no serial fraction. The measured shuffle has the default shape, as `Parallel::new()`.
    let whole = Parallel::new().shuffles_whole::<u32>(o.n);
    let serial_fraction = (!whole).then(|| one.serial().as_secs_f64() / one.total().as_secs_f64());
    let projection: Vec<(usize, f64)> = serial_fraction.map_or_else(Vec::new, |serial| {
        PROJECTED
            .iter()
            .map(|&p| (p, 1.0 / (serial + (1.0 - serial) / p as f64)))
            .collect()
    });

    if o.json {
        let rows: Vec<serde_json::Value> = o
            .threads
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let p = &m.profiles[i];
                serde_json::json!({
                    "threads": t,
                    "ours_ns_per_element": {"best": m.ours[i].best(), "median": m.ours[i].median(), "worst": m.ours[i].worst(), "rounds": m.ours[i].0},
                    "rip_ns_per_element": {"best": m.rip[i].best(), "median": m.rip[i].median(), "worst": m.rip[i].worst(), "rounds": m.rip[i].0},
                    "rip_over_ours_per_round": round_ratios(&m.ours[i], &m.rip[i]),
                    "fastest_state": fastest(&m.ours[i], &m.rip[i]).json(),
                    "read_gb_per_s": gb_per_s(READ_BYTES, &m.reads[i]),
                    "copy_gb_per_s": gb_per_s(COPY_BYTES, &m.copies[i]),
                    "busy_total_ms": ms(busy_total(p)),
                    "phases_ms": Phase::ALL.iter().map(|&ph| serde_json::json!({
                        "phase": ph.name(),
                        "serial": ph.is_serial(),
                        "wall": ms(p.wall(ph)),
                        "busy_per_thread": p.busy(ph).iter().map(|&d| ms(d)).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let out = serde_json::json!({
            "n": o.n,
            "backend": o.backend,
            "rounds": o.rounds,
            "rows": rows,
            "sequential": {
                "ours_ns_per_element": {"best": m.seq.0.best(), "median": m.seq.0.median(), "worst": m.seq.0.worst(), "rounds": m.seq.0.0},
                "rip_seq_ns_per_element": {"best": m.seq.1.best(), "median": m.seq.1.median(), "worst": m.seq.1.worst(), "rounds": m.seq.1.0},
                "rip_over_ours_per_round": round_ratios(&m.seq.0, &m.seq.1),
                "fastest_state": fastest(&m.seq.0, &m.seq.1).json(),
            },
            "shuffled_whole": whole,
            "serial_fraction": serial_fraction,
            "out_of_place": Step::ALL.iter().map(|&step| {
                let left = one.remaining(step);
                serde_json::json!({"after": step_name(step), "elements": left.elements, "runs": left.runs})
            }).collect::<Vec<_>>(),
            "amdahl_speedup": projection.iter().map(|&(p, s)| serde_json::json!({"threads": p, "speedup": s})).collect::<Vec<_>>(),
        });
        println!("{out:#}");
        return;
    }

    println!(
        "N = {}, u32, generator {}, {} interleaved rounds (ns per element, best / median)\n",
        o.n, o.backend, o.rounds
    );
    println!(
        "| threads | fairdeal `Parallel::shuffle` best / median (spread) | rip_shuffle `par_shuffle` \
         best / median (spread) | rip / ours, median of rounds [min–max] | rip / ours in the \
         host's fastest rounds [min–max] (kept) | ours: speed-up over 1 thread (medians; fastest \
         rounds) |"
    );
    println!("|---|---|---|---|---|---|");
    let ours1 = m.ours[base].median();
    let fast1 = fastest(&m.ours[base], &m.rip[base]).ours;
    for (i, &t) in o.threads.iter().enumerate() {
        let speedup = format!(
            "{:.2}; {:.2}",
            ours1 / m.ours[i].median(),
            fast1 / fastest(&m.ours[i], &m.rip[i]).ours
        );
        print_row(&t.to_string(), &m.ours[i], &m.rip[i], &speedup);
    }
    let (ours, rip) = &m.seq;
    print_row(
        "1, no pool: `shuffle_sequential` vs `seq_shuffle`",
        ours,
        rip,
        "",
    );
    println!(
        "\n(spread = (worst − best) / median over the rounds; a round runs ours and rip_shuffle \
         back to back, alternating which goes first; the fastest rounds are those whose ours + \
         rip_shuffle time is within 10 % of the fastest round's)"
    );
    println!(
        "\nMemory streams over the same {} u32 in every round (GB/s, median [min–max] of the rounds; \
         a copy counts its bytes read and written):\n",
        o.n
    );
    println!(
        "| threads | read | copy | speed-up over 1 thread (medians): read / copy / our shuffle |"
    );
    println!("|---|---|---|---|");
    let (read1, copy1) = (m.reads[base].median(), m.copies[base].median());
    for (i, &t) in o.threads.iter().enumerate() {
        let cell = |bytes: f64, s: &Series| {
            format!(
                "{:.1} [{:.1}–{:.1}]",
                bytes / s.median(),
                bytes / s.worst(),
                bytes / s.best()
            )
        };
        println!(
            "| {t} | {} | {} | {:.2} / {:.2} / {:.2} |",
            cell(READ_BYTES, &m.reads[i]),
            cell(COPY_BYTES, &m.copies[i]),
            read1 / m.reads[i].median(),
            copy1 / m.copies[i].median(),
            ours1 / m.ours[i].median(),
        );
    }
    let Some(serial_fraction) = serial_fraction else {
        println!(
            "\nNo phase profile: {} u32 are at most the whole size ({} MiB), shuffled whole by \
             Fisher-Yates.",
            o.n,
            DEFAULT_WHOLE_BYTES >> 20
        );
        return;
    };
    println!(
        "\nPhase profile (one profiled call per thread count; ms wall, and busy ms summed over threads):\n"
    );
    print!("| phase | serial? |");
    for t in &o.threads {
        print!(" {t} thr wall / busy |");
    }
    println!();
    print!("|---|---|");
    for _ in &o.threads {
        print!("---|");
    }
    println!();
    for ph in Phase::ALL {
        print!(
            "| {} | {} |",
            ph.name(),
            if ph.is_serial() { "yes" } else { "no" }
        );
        for p in &m.profiles {
            let busy: Duration = p.busy(ph).iter().sum();
            print!(" {:.1} / {:.1} |", ms(p.wall(ph)), ms(busy));
        }
        println!();
    }
    print!("| total | |");
    for p in &m.profiles {
        print!(" {:.1} / {:.1} |", ms(p.total()), ms(busy_total(p)));
    }
    println!();
    print!("| busy over one thread's (speed-up bound: threads / this) | |");
    for (p, &t) in m.profiles.iter().zip(&o.threads) {
        let work = busy_total(p).as_secs_f64() / busy_total(one).as_secs_f64();
        print!(" {work:.2} ({:.2}) |", t as f64 / work);
    }
    println!();
    println!(
        "\nSerial fraction (draw + plan, one thread): {:.3} % of {:.1} ms",
        serial_fraction * 100.0,
        ms(one.total())
    );
    print!(
        "Amdahl projection of the speed-up over one thread (perfectly scaling parallel phases, an upper bound):"
    );
    for (p, s) in &projection {
        print!(" {p} threads {s:.1}×;");
    }
    println!();
    let misplaced = one.remaining(Step::Partition).elements.max(1) as f64;
    println!(
        "\nOut of place during the exchange (the same on every pool; elements, and the runs of one \
         label in one bucket's range they lie in):"
    );
    for step in Step::ALL {
        let left = one.remaining(step);
        println!(
            "  after {:<13} {:>12} elements ({:5.1} % of the misplaced) in {:>9} runs",
            step_name(step),
            left.elements,
            left.elements as f64 * 100.0 / misplaced,
            left.runs
        );
    }
}
