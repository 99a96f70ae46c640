//! Wall-clock benchmarks (criterion): every algorithm × every backend × a size sweep, with the
//! peers a Rust user would otherwise pick in the same groups (same RNG, size and element type).
//!
//! Benchmark ids are `<case>/<backend>/<subject>/<n>` with cases `shuffle_u32` (a `Vec<u32>` of
//! n elements), `deck52` (a `[u8; 52]` deck) and `deal7_of_52` (7 cards from a reused deck);
//! `cargo xtask bench` parses them back from criterion's JSON.

use std::hint::black_box;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
    measurement::WallTime,
};
use fairdeal_benches::{
    AlgorithmVisitor, Compat06, SEED, criterion_config, for_each_algorithm, sampling, sizes,
};
use fairdeal_core::{AlgorithmInfo, Complexity, Shuffler};
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

        for n in sizes(Complexity::Linear) {
            let mut data: Vec<u32> = (0..n as u32).collect();
            group.throughput(Throughput::Elements(n as u64));
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
                let mut deck = new_deck();
                let mut rng = B::seeded(SEED);
                let case = self.1;
                self.0.bench_with_input(
                    BenchmarkId::new(info.name, DECK),
                    &DECK,
                    |b, _| match case {
                        CardCase::Deck => {
                            b.iter(|| alg.shuffle(black_box(&mut deck[..]), &mut rng));
                        }
                        CardCase::Deal => b.iter(|| {
                            alg.shuffle_prefix(black_box(&mut deck[..]), HAND, &mut rng)
                                .expect("7 <= 52");
                            black_box(&deck[..HAND]);
                        }),
                    },
                );
            }
        }
        for_each_algorithm::<B::Sampler, _>(&mut Ours::<B>(
            &mut group,
            case,
            std::marker::PhantomData,
        ));

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

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = shuffle_u32, cards
}
criterion_main!(benches);
