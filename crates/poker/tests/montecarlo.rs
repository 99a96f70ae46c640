//! Monte Carlo 7-card tables against the exact table: fair shuffles agree, a biased shuffle
//! and a broken RNG do not, and the thread count never changes a seeded result.

use fairdeal_core::Shuffler;
use fairdeal_inplace::Inplace;
use fairdeal_naive::{Biased, Naive};
use fairdeal_partial::Partial;
use fairdeal_poker::{Category, Deal, McReport, PokerError, monte_carlo};
use fairdeal_testkit::HalfRange;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn run<S: Shuffler + Sync>(s: &S, hands: u64, seed: u64, deal: Deal) -> McReport {
    monte_carlo(s, Pcg64::seed_from_u64, hands, seed, deal).unwrap()
}

const HANDS: u64 = 300_000;

#[test]
fn fair_shuffles_agree_with_the_exact_table() {
    for (seed, deal) in [(11, Deal::Reuse), (12, Deal::Fresh)] {
        let reports = [
            ("inplace", run(&Inplace::new(), HANDS, seed, deal)),
            ("partial", run(&Partial::new(), HANDS, seed, deal)),
            ("naive", run(&Naive::new(), HANDS, seed, deal)),
        ];
        for (name, r) in reports {
            assert_eq!(r.hands, HANDS);
            assert_eq!(r.df, 8);
            assert!(r.p_value > 1e-6, "{name} {deal:?}: p = {:e}", r.p_value);
            assert!(
                r.z_scores.iter().all(|z| z.abs() < 6.0),
                "{name}: {:?}",
                r.z_scores
            );
        }
    }
}

#[test]
fn the_biased_shuffle_is_rejected() {
    // `fairdeal_naive::Biased` swaps each position with *any* position: n^n equally likely
    // paths for n! orders, so some orders are favoured. With a fresh sorted deck per hand the
    // preference shows in the categories (same-rank cards start next to each other).
    let r = run(&Biased::new(), 200_000, 13, Deal::Fresh);
    assert!(
        r.p_value < 1e-9,
        "biased shuffle not detected: p = {:e}",
        r.p_value
    );
    // The same test with a fair shuffle passes (the control is the shuffle, not the test).
    let fair = run(&Inplace::new(), 200_000, 13, Deal::Fresh);
    assert!(fair.p_value > 1e-6);
}

#[test]
fn a_broken_rng_is_rejected() {
    // A good generator with its top output bit stuck at zero: with the default batched dice,
    // the first index rolled from each word falls in the lower half of its range.
    let factory = |s: u64| HalfRange(Pcg64::seed_from_u64(s));
    let r = monte_carlo(&Inplace::new(), factory, 200_000, 14, Deal::Fresh).unwrap();
    assert!(
        r.p_value < 1e-9,
        "stuck bit not detected: p = {:e}",
        r.p_value
    );
}

#[test]
fn same_result_on_any_thread_count() {
    // Not a multiple of the chunk size, so the short last chunk is covered too.
    let hands = 3 * fairdeal_poker::CHUNK_HANDS + 12_345;
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&Partial::new(), hands, 99, Deal::Reuse))
    };
    let one = on(1);
    assert_eq!(one.hands, hands);
    assert_eq!(one, on(4));
    assert_ne!(
        one.counts,
        run(&Inplace::new(), hands, 100, Deal::Reuse).counts
    );
}

#[test]
fn report_fields_and_errors() {
    let r = run(&Inplace::new(), 50_000, 5, Deal::Reuse);
    let exact: f64 = r.exact.iter().sum();
    assert!((exact - 1.0).abs() < 1e-12);
    assert_eq!(r.counts.total(), 50_000);
    assert!(r.z(Category::OnePair).is_finite());
    assert!(matches!(
        monte_carlo(&Inplace::new(), Pcg64::seed_from_u64, 0, 1, Deal::Reuse),
        Err(PokerError::NoTrials)
    ));
}
