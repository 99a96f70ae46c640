//! Quick single-run timings of the evaluator, the exhaustive tables and Monte Carlo dealing.
//! For figures worth quoting use the criterion benches (`benches/benches/poker.rs`); this is a
//! smoke check: `RAYON_NUM_THREADS=1 cargo run --release -p fairdeal-poker --example speed`.

use std::hint::black_box;
use std::time::Instant;

use fairdeal_cards::{Card, standard_deck};
use fairdeal_core::Shuffler;
use fairdeal_poker::{Deal, McConfig, evaluate, monte_carlo};
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

fn main() {
    // Monte Carlo compares with the cached exact table: fill the cache outside the timings.
    fairdeal_poker::exact_counts(7).unwrap();

    let start = Instant::now();
    let t = fairdeal_poker::exhaustive_7();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "7-card exhaustive: {} hands in {secs:.3} s ({:.1} M hands/s)",
        t.total(),
        t.total() as f64 / secs / 1e6
    );

    // Random-order evaluation through the public, checked API.
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    let partial = fairdeal_partial::Partial::new();
    let mut deck = standard_deck();
    let hands: Vec<[Card; 7]> = (0..1_000_000)
        .map(|_| {
            partial.shuffle_prefix(&mut deck, 7, &mut rng).unwrap();
            deck[..7].try_into().unwrap()
        })
        .collect();
    let start = Instant::now();
    let mut sum = 0u64;
    for _ in 0..10 {
        for h in &hands {
            sum += u64::from(evaluate(black_box(h)).unwrap().get());
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "evaluate 7 random cards: {:.2} ns/hand (checksum {sum})",
        secs * 1e9 / 1e7
    );

    for (name, deal) in [("reuse", Deal::Reuse), ("fresh", Deal::Fresh)] {
        let n = 20_000_000;
        let start = Instant::now();
        let r = monte_carlo(&partial, Pcg64Mcg::seed_from_u64, &run(n, deal)).unwrap();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "monte carlo partial/pcg64mcg/{name}: {:.1} M hands/s (p = {:.3})",
            n as f64 / secs / 1e6,
            r.p_value
        );
    }
    let n = 2_000_000;
    let start = Instant::now();
    monte_carlo(
        &fairdeal_inplace::Inplace::new(),
        Pcg64Mcg::seed_from_u64,
        &run(n, Deal::Reuse),
    )
    .unwrap();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "monte carlo inplace (full shuffle per hand): {:.1} M hands/s",
        n as f64 / secs / 1e6
    );
}

/// `hands` hands with seed 7.
fn run(hands: u64, deal: Deal) -> McConfig<'static> {
    McConfig {
        hands,
        seed: 7,
        deal,
        progress: None,
        shard: None,
    }
}
