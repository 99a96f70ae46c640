//! Wall-clock benchmarks (criterion): every algorithm × every backend × a size sweep, with the
//! peers a Rust user would otherwise pick in the same groups (same RNG, size and element type).
//!
//! Benchmark ids are `<case>/<backend>/<subject>/<n>` with cases `shuffle_u32` (a `Vec<u32>` of
//! n elements), `deck52` (a `[u8; 52]` deck), `deal7_of_52` (7 cards from a reused deck, by the
//! O(k) partial shuffle and the peers) and, in full mode only, `huge_u32` (a `Vec<u32>` of 10^8
//! elements on [`huge_backends`]: `inplace`, `parallel-seq` (the scatter shuffle on one thread),
//! `parallel` and the peers, parallel subjects on a 2-thread pool); `cargo xtask bench`
//! parses them back from criterion's JSON.
//!
//! Besides our algorithms, `inplace-lemire` is the in-place shuffle with one Lemire draw per step
//! (the reference path); the peers run at the sizes the report compares
//! ([`target_peer_sizes`], [`rip_sizes`]).

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use fairdeal_benches::{
    AlgorithmVisitor, Compat06, HUGE_N, INPLACE_LEMIRE, SEED, criterion_config, for_each_algorithm,
    huge_backends, measuring, quick, rip_sizes, sampling, sizes, target_peer_sizes,
};
use fairdeal_core::{AlgorithmInfo, Lemire, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_parallel::Parallel;
use fairdeal_rng::{Backend, BackendVisitor};
use rand::seq::SliceRandom;
use rip_shuffle::{RipShuffleParallel, RipShuffleSequential};

/// The backend whose generator is fastrand's own (wyrand), the fair pairing for
/// `fastrand::Rng::shuffle`.
const FASTRAND_PAIR: &str = "wyrand";

fn for_each_backend(mut f: impl FnMut(&'static str)) {
    for b in fairdeal_rng::backends() {
        f(b.name);
    }
}

// ---------------------------------------------------------------------------------------------
// shuffle_u32: the size sweep.

struct ShuffleU32<'a>(&'a mut Criterion);

impl BackendVisitor for ShuffleU32<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let mut group = self
            .0
            .benchmark_group(format!("shuffle_u32/{}", B::INFO.name));
        group.sampling_mode(sampling());
        struct Ours<'g, 'c, B: Backend>(
            &'g mut BenchmarkGroup<'c, WallTime>,
            std::marker::PhantomData<B>,
        );
        impl<B: Backend> AlgorithmVisitor for Ours<'_, '_, B> {
            fn visit<A: Shuffler + Copy + 'static>(&mut self, alg: A, info: AlgorithmInfo) {
                for n in sizes(info.complexity) {
                    let mut data: Vec<u32> = (0..n as u32).collect();
                    let mut rng = B::seeded(SEED);
                    self.0.throughput(Throughput::Elements(n as u64));
                    self.0
                        .bench_with_input(BenchmarkId::new(info.name, n), &n, |b, _| {
                            b.iter(|| alg.shuffle(black_box(data.as_mut_slice()), &mut rng));
                        });
                }
            }
        }
        for_each_algorithm::<B::Sampler, _>(&mut Ours::<B>(&mut group, std::marker::PhantomData));

        // The reference path (one Lemire draw per step) and the peers of the speed targets
        // beside our default at the target sizes; rip_shuffle at the comparison sizes only.
        for n in target_peer_sizes() {
            let mut data: Vec<u32> = (0..n as u32).collect();
            group.throughput(Throughput::Elements(n as u64));
            let reference = Inplace::with_sampler(Lemire);
            let mut rng = B::seeded(SEED);
            group.bench_with_input(BenchmarkId::new(INPLACE_LEMIRE, n), &n, |b, _| {
                b.iter(|| reference.shuffle(black_box(data.as_mut_slice()), &mut rng));
            });
            let mut rng = B::seeded(SEED);
            group.bench_with_input(BenchmarkId::new("rand-shuffle", n), &n, |b, _| {
                b.iter(|| black_box(data.as_mut_slice()).shuffle(&mut rng));
            });
            if B::INFO.name == FASTRAND_PAIR {
                let mut rng = fastrand::Rng::with_seed(SEED);
                group.bench_with_input(BenchmarkId::new("fastrand-shuffle", n), &n, |b, _| {
                    b.iter(|| rng.shuffle(black_box(data.as_mut_slice())));
                });
            }
        }
        for n in rip_sizes() {
            let mut data: Vec<u32> = (0..n as u32).collect();
            group.throughput(Throughput::Elements(n as u64));
            let mut rng = Compat06::<B>::seeded(SEED);
            group.bench_with_input(BenchmarkId::new("rip-seq-shuffle", n), &n, |b, _| {
                b.iter(|| black_box(data.as_mut_slice()).seq_shuffle(&mut rng));
            });
            let mut rng = Compat06::<B>::seeded(SEED);
            group.bench_with_input(BenchmarkId::new("rip-par-shuffle", n), &n, |b, _| {
                b.iter(|| black_box(data.as_mut_slice()).par_shuffle(&mut rng));
            });
        }
        group.finish();
    }
}

fn shuffle_u32(c: &mut Criterion) {
    for_each_backend(|name| {
        fairdeal_rng::with_backend(name, ShuffleU32(c)).expect("listed backend");
    });
}

// ---------------------------------------------------------------------------------------------
// deck52 and deal7_of_52: the card-sized cases.

const DECK: usize = 52;
const HAND: usize = 7;

fn new_deck() -> [u8; DECK] {
    std::array::from_fn(|i| i as u8)
}

/// Which card case a [`Cards`] visitor measures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CardCase {
    /// Shuffle the whole 52-card deck.
    Deck,
    /// Deal 7 cards: a prefix shuffle of the same deck, never restored between deals.
    Deal,
}

struct Cards<'a>(&'a mut Criterion, CardCase);

impl BackendVisitor for Cards<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let case = self.1;
        let (name, elements) = match case {
            CardCase::Deck => ("deck52", DECK),
            CardCase::Deal => ("deal7_of_52", HAND),
        };
        let mut group = self.0.benchmark_group(format!("{name}/{}", B::INFO.name));
        group.throughput(Throughput::Elements(elements as u64));
        group.sampling_mode(sampling());

        struct Ours<'g, 'c, B: Backend>(
            &'g mut BenchmarkGroup<'c, WallTime>,
            CardCase,
            std::marker::PhantomData<B>,
        );
        impl<B: Backend> AlgorithmVisitor for Ours<'_, '_, B> {
            fn visit<A: Shuffler + Copy + 'static>(&mut self, alg: A, info: AlgorithmInfo) {
                self.bench(alg, info.name);
            }
        }
        impl<B: Backend> Ours<'_, '_, B> {
            fn bench<A: Shuffler + Copy>(&mut self, alg: A, name: &str) {
                let mut deck = new_deck();
                let mut rng = B::seeded(SEED);
                let case = self.1;
                self.0
                    .bench_with_input(BenchmarkId::new(name, DECK), &DECK, |b, _| match case {
                        CardCase::Deck => {
                            b.iter(|| alg.shuffle(black_box(&mut deck[..]), &mut rng));
                        }
                        CardCase::Deal => b.iter(|| {
                            alg.shuffle_prefix(black_box(&mut deck[..]), HAND, &mut rng)
                                .expect("7 <= 52");
                            black_box(&deck[..HAND]);
                        }),
                    });
            }
        }
        let mut ours = Ours::<B>(&mut group, case, std::marker::PhantomData);
        match case {
            // Every algorithm shuffles the deck; the reference path shows what batching buys.
            CardCase::Deck => {
                for_each_algorithm::<B::Sampler, _>(&mut ours);
                let reference = Inplace::with_sampler(Lemire);
                ours.bench(reference, INPLACE_LEMIRE);
            }
            // Only the partial shuffle deals in O(k); the others' `shuffle_prefix` shuffles the
            // whole deck, which `deck52` already measures (and `rand-shuffle` below shows).
            CardCase::Deal => {
                let partial = fairdeal_partial::Partial::with_sampler(B::Sampler::default());
                ours.bench(partial, fairdeal_partial::INFO.name);
            }
        }

        let mut deck = new_deck();
        let mut rng = B::seeded(SEED);
        match case {
            CardCase::Deck => {
                group.bench_with_input(BenchmarkId::new("rand-shuffle", DECK), &DECK, |b, _| {
                    b.iter(|| black_box(&mut deck[..]).shuffle(&mut rng));
                });
                if B::INFO.name == FASTRAND_PAIR {
                    let mut rng = fastrand::Rng::with_seed(SEED);
                    group.bench_with_input(
                        BenchmarkId::new("fastrand-shuffle", DECK),
                        &DECK,
                        |b, _| {
                            b.iter(|| rng.shuffle(black_box(&mut deck[..])));
                        },
                    );
                }
                let mut rng = Compat06::<B>::seeded(SEED);
                group.bench_with_input(BenchmarkId::new("rip-seq-shuffle", DECK), &DECK, |b, _| {
                    b.iter(|| black_box(&mut deck[..]).seq_shuffle(&mut rng));
                });
            }
            CardCase::Deal => {
                group.bench_with_input(
                    BenchmarkId::new("rand-partial-shuffle", DECK),
                    &DECK,
                    |b, _| {
                        b.iter(|| {
                            let (hand, _) =
                                black_box(&mut deck[..]).partial_shuffle(&mut rng, HAND);
                            black_box(hand);
                        });
                    },
                );
                let mut rng = B::seeded(SEED);
                group.bench_with_input(BenchmarkId::new("rand-shuffle", DECK), &DECK, |b, _| {
                    b.iter(|| {
                        black_box(&mut deck[..]).shuffle(&mut rng);
                        black_box(&deck[..HAND]);
                    });
                });
            }
        }
        group.finish();
    }
}

fn cards(c: &mut Criterion) {
    for case in [CardCase::Deck, CardCase::Deal] {
        for_each_backend(|name| {
            fairdeal_rng::with_backend(name, Cards(c, case)).expect("listed backend");
        });
    }
}

// ---------------------------------------------------------------------------------------------
// huge_u32: N = 10^8, full mode only.

/// Subject name of `Parallel::shuffle_sequential` (the scatter shuffle on one thread).
const PARALLEL_SEQ: &str = "parallel-seq";

/// Threads of the parallel subjects in `huge_u32` (the "two threads" target), fixed so
/// the result does not depend on the machine's core count.
const HUGE_THREADS: usize = 2;

struct Huge<'a>(&'a mut Criterion, &'a rayon::ThreadPool);

impl BackendVisitor for Huge<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let Huge(c, pool) = self;
        let mut group = c.benchmark_group(format!("huge_u32/{}", B::INFO.name));
        // One call takes 1 to 5 s: criterion's minimum of 10 samples, one call each, after a
        // single warm-up call. (Criterion warns that 10 samples cannot finish in the 1 s
        // target; that is expected.)
        group
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .warm_up_time(Duration::from_millis(1))
            .measurement_time(Duration::from_secs(1))
            .throughput(Throughput::Elements(HUGE_N as u64));
        // 400 MB, allocated on the first benchmark that runs (none when filtered out) and
        // reused by every subject: a shuffled permutation costs the same to shuffle again.
        let mut data: Option<Vec<u32>> = None;
        let mut bench = |name: &str, f: &mut dyn FnMut(&mut [u32])| {
            group.bench_function(BenchmarkId::new(name, HUGE_N), |b| {
                let data = data.get_or_insert_with(|| (0..HUGE_N as u32).collect());
                b.iter(|| f(black_box(data.as_mut_slice())));
            });
        };

        // Ours on one thread: the default in-place shuffle with the backend's sampler.
        let inplace = Inplace::with_sampler(B::Sampler::default());
        let mut rng = B::seeded(SEED);
        bench(fairdeal_inplace::INFO.name, &mut |d| {
            inplace.shuffle(d, &mut rng);
        });
        // The same scatter shuffle on the calling thread only: a one-thread candidate beside
        // `inplace` (the targets table shows both against rip_shuffle's sequential shuffle).
        let parallel = Parallel::with_sampler(B::Sampler::default());
        let mut rng = B::seeded(SEED);
        bench(PARALLEL_SEQ, &mut |d| {
            parallel.shuffle_sequential(d, &mut rng);
        });
        // Ours on HUGE_THREADS threads: the scatter shuffle, buckets in parallel on the pool.
        let parallel = Parallel::with_sampler(B::Sampler::default());
        let mut rng = B::seeded(SEED);
        bench(fairdeal_parallel::INFO.name, &mut |d| {
            pool.install(|| parallel.shuffle(d, &mut rng));
        });
        let mut rng = B::seeded(SEED);
        bench("rand-shuffle", &mut |d| d.shuffle(&mut rng));
        if B::INFO.name == FASTRAND_PAIR {
            let mut rng = fastrand::Rng::with_seed(SEED);
            bench("fastrand-shuffle", &mut |d| rng.shuffle(d));
        }
        let mut rng = Compat06::<B>::seeded(SEED);
        bench("rip-seq-shuffle", &mut |d| d.seq_shuffle(&mut rng));
        let mut rng = Compat06::<B>::seeded(SEED);
        bench("rip-par-shuffle", &mut |d| {
            pool.install(|| d.par_shuffle(&mut rng));
        });
        group.finish();
    }
}

fn huge(c: &mut Criterion) {
    if quick() || !measuring() {
        return;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(HUGE_THREADS)
        .build()
        .expect("thread pool");
    for name in huge_backends() {
        fairdeal_rng::with_backend(name, Huge(c, &pool)).expect("listed backend");
    }
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = shuffle_u32, cards, huge
}
criterion_main!(benches);
