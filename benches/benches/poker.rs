//! Poker benchmarks (criterion): the evaluator in random and sequential order next to
//! rs_poker 5.0.0 on the very same hands, the incremental exhaustive 5-card table, and Monte
//! Carlo hands per second for each (algorithm, backend) on one thread.
//!
//! Benchmark ids:
//! * `poker_eval/<order>/<subject>` with order `random` (independent random 7-card hands) or
//!   `sequential` (consecutive hands of the colex enumeration, each still evaluated from
//!   scratch) and subject `fairdeal` or `rs_poker`; throughput in hands.
//! * `poker_exhaustive/5-card/fairdeal`: all 2,598,960 hands with the incremental loops.
//! * `poker_mc/<backend>/<algorithm>`: one chunk of [`CHUNK_HANDS`] Monte Carlo hands (deal 7
//!   with `shuffle_prefix` on a reused deck, evaluate, count), and
//!   `poker_mc/<backend>/partial+rs_poker`: the same deals ranked by rs_poker.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fairdeal_benches::{SEED, criterion_config, quick};
use fairdeal_cards::{Card, standard_deck};
use fairdeal_core::{Shuffler, stream_seed};
use fairdeal_partial::Partial;
use fairdeal_poker::{CHUNK_HANDS, Deal, McConfig, evaluate, monte_carlo};
use fairdeal_rng::{Backend, BackendVisitor};
use rs_poker::core::{Card as RsCard, Rankable, Suit as RsSuit, Value as RsValue};

/// Hands per evaluator batch: large enough that the table lookups see a realistic cache.
const BATCH: usize = 1 << 16;

fn to_rs(card: Card) -> RsCard {
    // rs_poker numbers values 0 (two) .. 12 (ace) and suits spade, club, heart, diamond; the
    // mapping of suits does not matter for hand strength, only that it is a bijection.
    RsCard::new(
        RsValue::from_u8(card.rank().index()),
        RsSuit::from_u8(card.suit().index()),
    )
}

fn random_hands() -> Vec<[Card; 7]> {
    let mut rng = <fairdeal_rng::backend::Pcg64Mcg as Backend>::seeded(SEED);
    let mut deck = standard_deck();
    (0..BATCH)
        .map(|_| {
            Partial::new()
                .shuffle_prefix(&mut deck, 7, &mut rng)
                .expect("7 <= 52");
            deck[..7].try_into().expect("7 cards")
        })
        .collect()
}

fn sequential_hands() -> Vec<[Card; 7]> {
    let deck = standard_deck();
    let mut out = Vec::with_capacity(BATCH);
    let mut idx = [0usize, 1, 2, 3, 4, 5, 6];
    while out.len() < BATCH {
        out.push(idx.map(|i| deck[i]));
        // Next 7-combination in colex order.
        let mut i = 0;
        while i < 6 && idx[i] + 1 == idx[i + 1] {
            idx[i] = i;
            i += 1;
        }
        idx[i] += 1;
    }
    out
}

fn bench_eval(c: &mut Criterion) {
    for (order, hands) in [
        ("random", random_hands()),
        ("sequential", sequential_hands()),
    ] {
        let rs_hands: Vec<[RsCard; 7]> = hands.iter().map(|h| h.map(to_rs)).collect();
        let mut group = c.benchmark_group(format!("poker_eval/{order}"));
        group.throughput(Throughput::Elements(BATCH as u64));
        group.bench_function("fairdeal", |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for h in &hands {
                    sum += u64::from(evaluate(black_box(h)).map_or(0, |v| v.get()));
                }
                sum
            });
        });
        group.bench_function("rs_poker", |b| {
            b.iter(|| {
                let mut sum = 0u64;
                for h in &rs_hands {
                    let rank = black_box(&h[..]).rank();
                    sum += u64::from(rank.category() as u8);
                }
                sum
            });
        });
        group.finish();
    }
}

fn bench_exhaustive(c: &mut Criterion) {
    let mut group = c.benchmark_group("poker_exhaustive");
    group.sample_size(10);
    group.throughput(Throughput::Elements(2_598_960));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("thread pool");
    group.bench_function("5-card/fairdeal", |b| {
        b.iter(|| pool.install(fairdeal_poker::exhaustive_5));
    });
    group.finish();
}

struct Mc<'a>(&'a mut Criterion);

/// One chunk of hands from a reused deck: what every Monte Carlo bench deals.
const MC_RUN: McConfig<'static> = McConfig {
    hands: CHUNK_HANDS,
    seed: SEED,
    deal: Deal::Reuse,
    progress: None,
    shard: None,
};

impl BackendVisitor for Mc<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("thread pool");
        let mut group = self.0.benchmark_group(format!("poker_mc/{}", B::INFO.name));
        group.throughput(Throughput::Elements(CHUNK_HANDS));
        let sampler = B::Sampler::default();
        let partial = Partial::with_sampler(sampler);
        group.bench_function("partial", |b| {
            b.iter(|| pool.install(|| monte_carlo(&partial, B::seeded, &MC_RUN)));
        });
        if !quick() {
            let inplace = fairdeal_inplace::Inplace::with_sampler(sampler);
            group.bench_function("inplace", |b| {
                b.iter(|| pool.install(|| monte_carlo(&inplace, B::seeded, &MC_RUN)));
            });
            let naive = fairdeal_naive::Naive::with_sampler(sampler);
            group.bench_function("naive", |b| {
                b.iter(|| pool.install(|| monte_carlo(&naive, B::seeded, &MC_RUN)));
            });
        }
        // The same deals (partial shuffle, same stream) ranked by rs_poker.
        group.bench_function("partial+rs_poker", |b| {
            let deck: Vec<RsCard> = standard_deck().into_iter().map(to_rs).collect();
            b.iter(|| {
                let mut rng = B::seeded(stream_seed(SEED, 0));
                let mut deck = deck.clone();
                let mut counts = [0u64; 9];
                for _ in 0..CHUNK_HANDS {
                    partial
                        .shuffle_prefix(&mut deck, 7, &mut rng)
                        .expect("7 <= 52");
                    counts[deck[..7].rank().category() as usize] += 1;
                }
                counts
            });
        });
        group.finish();
    }
}

fn bench_mc(c: &mut Criterion) {
    // Fill the exact-table cache outside the measurement.
    let _ = fairdeal_poker::exact_probabilities(7);
    let names: Vec<&'static str> = if quick() {
        vec!["chacha12", "xoshiro256pp"]
    } else {
        fairdeal_rng::backends().iter().map(|b| b.name).collect()
    };
    for name in names {
        fairdeal_rng::with_backend(name, Mc(c)).expect("listed backend");
    }
}

criterion_group! {
    name = poker;
    config = criterion_config();
    targets = bench_eval, bench_exhaustive, bench_mc
}
criterion_main!(poker);
