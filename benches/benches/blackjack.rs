//! Blackjack benchmarks (criterion): rounds per second for one seat, 6 decks, basic strategy,
//! on one thread.
//!
//! Benchmark ids:
//! * `blackjack_rounds/<backend>/<algorithm>/<shoe>`: one chunk of
//!   [`CHUNK_ROUNDS`](fairdeal_blackjack::CHUNK_ROUNDS) rounds (65,536) through
//!   `simulate_chunks` (one chunk: one rayon task on one thread), with shoe `cut75` (cut card at 75 %) or `csm`
//!   (continuous shuffler: every round from a full shoe). Throughput in rounds.
//!
//! The partial shuffle randomises one card per card dealt; `inplace` shuffles the whole shoe
//! (every round with a continuous shuffler), which is what the comparison shows. The issue's
//! target is 10 M rounds/s per core for `partial`, 6 decks, one seat.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fairdeal_benches::{SEED, criterion_config, quick, sampling};
use fairdeal_blackjack::{
    CHUNK_ROUNDS, Penetration, Rules, Shuffler, SimConfig, Strategy, simulate_chunks,
};
use fairdeal_rng::{Backend, BackendVisitor};

struct Rounds<'a>(&'a mut Criterion);

fn run<S, B>(strategy: &Strategy, shuffler: &S) -> u64
where
    S: Shuffler + Clone + Sync,
    B: Backend,
{
    let config = SimConfig {
        rounds: CHUNK_ROUNDS,
        seed: SEED,
        ..SimConfig::default()
    };
    // One chunk is one rayon task: it runs on one thread of whatever pool is current.
    let result =
        simulate_chunks(strategy, &config, shuffler, B::seeded, 0..1).expect("valid simulation");
    result.counts.hands
}

impl BackendVisitor for Rounds<'_> {
    type Output = ();
    fn visit<B: Backend>(self) {
        let mut group = self
            .0
            .benchmark_group(format!("blackjack_rounds/{}", B::INFO.name));
        group.sampling_mode(sampling());
        group.throughput(Throughput::Elements(CHUNK_ROUNDS));
        let sampler = B::Sampler::default();
        for (shoe, penetration) in [
            ("cut75", Penetration::CutCard(0.75)),
            ("csm", Penetration::Continuous),
        ] {
            let rules = Rules {
                penetration,
                ..Rules::default()
            };
            let strategy = Strategy::basic(&rules).expect("standard rules");
            let partial = fairdeal_partial::Partial::with_sampler(sampler);
            group.bench_function(format!("partial/{shoe}"), |b| {
                b.iter(|| run::<_, B>(&strategy, &partial));
            });
            if !quick() {
                let inplace = fairdeal_inplace::Inplace::with_sampler(sampler);
                group.bench_function(format!("inplace/{shoe}"), |b| {
                    b.iter(|| run::<_, B>(&strategy, &inplace));
                });
            }
        }
        group.finish();
    }
}

fn bench_rounds(c: &mut Criterion) {
    let names: Vec<&'static str> = if quick() {
        vec!["chacha12", "xoshiro256pp"]
    } else {
        fairdeal_rng::backends().iter().map(|b| b.name).collect()
    };
    for name in names {
        fairdeal_rng::with_backend(name, Rounds(c)).expect("listed backend");
    }
}

criterion_group! {
    name = blackjack;
    config = criterion_config();
    targets = bench_rounds
}
criterion_main!(blackjack);
