//! The shuffle-quality battery: every good backend passes it, and every one of its tests has a
//! negative control it rejects at p < 1e-9 — the biased swap, a random cut, a sort with a
//! coin-flip comparator, and the weak generators of `fairdeal-testkit` (a 16-bit LCG, RANDU, a
//! clock-seeded replay) plus `java.util.Random` seeded 0, 1, 2, ….
//!
//! Every run is seeded, so the outcomes are the same on every run.

use std::collections::BTreeMap;

use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, SeedableRng, Shuffler};
use fairdeal_fairness::{
    AdjacencyTally, BatteryConfig, BatteryReport, FairnessError, OrderTally, PASS_THRESHOLD,
    PermutationTally, PositionTally, SeedPattern, SerialTally, TestKind, TestName, Verdict,
    adjacency_test, holm_adjusted, permutation_test, run_battery, seed_sequence_test, serial_test,
};
use fairdeal_inplace::Inplace;
use fairdeal_naive::Biased;
use fairdeal_rng::{Backend, BackendVisitor, backend::Java, backends, with_backend};
use fairdeal_testkit::{Lcg16, Randu, Replay};
use rand_pcg::Pcg64;

const REJECT: f64 = 1e-9;

fn info(name: &'static str) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        complexity: Complexity::Linear,
        fair: false,
        summary: "negative control",
    }
}

/// Cuts the deck once at a uniformly random place: every element lands at every position
/// equally often, yet every deal keeps the deck's neighbours together.
struct Cut;

impl Shuffler for Cut {
    fn info(&self) -> AlgorithmInfo {
        info("cut")
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        if !data.is_empty() {
            let at = Lemire.index_below(rng, data.len());
            data.rotate_left(at);
        }
    }
}

/// `array.sort(() => Math.random() - 0.5)` as V8 runs it on short arrays: a binary insertion
/// sort whose every comparison is a coin flip.
struct CoinFlipSort;

impl Shuffler for CoinFlipSort {
    fn info(&self) -> AlgorithmInfo {
        info("coin-flip-sort")
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        for i in 1..data.len() {
            let (mut low, mut high) = (0, i);
            while low < high {
                let mid = low + (high - low) / 2;
                if rng.next_u64() >> 63 == 0 {
                    high = mid;
                } else {
                    low = mid + 1;
                }
            }
            data[low..=i].rotate_right(1);
        }
    }
}

fn config() -> BatteryConfig {
    BatteryConfig::default()
}

fn adjusted(battery: &BatteryReport, name: TestName) -> f64 {
    battery.test(name).expect("test ran").adjusted_p
}

fn summary(battery: &BatteryReport) -> String {
    battery
        .tests
        .iter()
        .map(|t| {
            format!(
                "{} p = {:.3e} (chi2 {:.1})",
                t.name, t.p_value, t.report.chi2
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[test]
fn every_backend_but_java_passes_the_whole_battery() {
    struct Battery;
    impl BackendVisitor for Battery {
        type Output = BatteryReport;
        fn visit<B: Backend>(self) -> BatteryReport {
            let shuffler = Inplace::with_sampler(B::Sampler::default());
            run_battery(&shuffler, B::seeded, 20_261_123, &config()).unwrap()
        }
    }
    let mut verdicts = BTreeMap::new();
    for backend in backends() {
        let battery = with_backend(backend.name, Battery).unwrap();
        assert_eq!(battery.tests.len(), 8);
        verdicts.insert(backend.name, battery.verdict);
        if backend.name == "java" {
            assert!(
                adjusted(&battery, TestName::SeedsConsecutive) < REJECT,
                "{}",
                summary(&battery)
            );
        } else {
            assert_ne!(
                battery.verdict,
                Verdict::Unfair,
                "{}: {}",
                backend.name,
                summary(&battery)
            );
        }
    }
    assert_eq!(verdicts.len(), backends().len());
}

#[test]
fn java_with_consecutive_seeds_fails_the_seed_tests_only() {
    // Collections.shuffle(list, new Random(seed)) for seeds 0, 1, 2, …: the example,
    // chi2 ≈ 3,300 on 23 degrees of freedom over 3,000 seeds.
    let shuffler = Inplace::with_sampler(<Java as Backend>::Sampler::default());
    let report = seed_sequence_test(
        &shuffler,
        4,
        3_000,
        0,
        SeedPattern::Consecutive,
        Java::seeded,
    )
    .unwrap();
    assert_eq!(report.df, 23);
    assert!(
        (2_500.0..4_500.0).contains(&report.chi2),
        "chi2 = {}",
        report.chi2
    );
    assert!(report.p_value < REJECT);

    let battery = run_battery(&shuffler, Java::seeded, 1, &config()).unwrap();
    assert_eq!(battery.verdict, Verdict::Unfair);
    assert!(adjusted(&battery, TestName::SeedsConsecutive) < REJECT);
    assert!(adjusted(&battery, TestName::SeedsOneBitApart) < REJECT);
    // One Java stream on its own is fine: the single-stream tests pass.
    for name in [
        TestName::Permutation,
        TestName::Position,
        TestName::Serial,
        TestName::Adjacency,
    ] {
        assert!(
            adjusted(&battery, name) > PASS_THRESHOLD,
            "{name}: {}",
            summary(&battery)
        );
    }
    assert!(matches!(
        battery.decided_by,
        Some(TestName::SeedsConsecutive | TestName::SeedsOneBitApart)
    ));
}

#[test]
fn the_biased_swap_fails_the_permutation_and_position_tests() {
    let battery = run_battery(
        &Biased::with_sampler(Lemire),
        Pcg64::seed_from_u64,
        2,
        &config(),
    )
    .unwrap();
    assert_eq!(battery.verdict, Verdict::Unfair);
    for name in [
        TestName::Permutation,
        TestName::Position,
        TestName::SeedsConsecutive,
        TestName::SeedsOneBitApart,
    ] {
        assert!(
            adjusted(&battery, name) < REJECT,
            "{name}: {}",
            summary(&battery)
        );
    }
    assert_eq!(battery.decided_by, Some(TestName::Permutation));
}

#[test]
fn a_random_cut_passes_the_position_test_and_fails_the_adjacency_test() {
    let mut rng = Pcg64::seed_from_u64(3);
    let position = fairdeal_fairness::position_test(&Cut, 52, 10_000, &mut rng).unwrap();
    assert!(position.p_value > PASS_THRESHOLD, "{}", position.p_value);
    let adjacency = adjacency_test(&Cut, 52, 10_000, &mut rng).unwrap();
    assert_eq!(adjacency.test, TestKind::Adjacency);
    assert!(adjacency.p_value < REJECT, "{}", adjacency.p_value);
}

#[test]
fn a_sort_with_a_coin_flip_comparator_fails_the_battery() {
    let battery = run_battery(&CoinFlipSort, Pcg64::seed_from_u64, 4, &config()).unwrap();
    assert_eq!(battery.verdict, Verdict::Unfair);
    for name in [TestName::Permutation, TestName::Position] {
        assert!(
            adjusted(&battery, name) < REJECT,
            "{name}: {}",
            summary(&battery)
        );
    }
}

#[test]
fn a_clock_seeded_replay_fails_only_the_serial_test() {
    // Three words per shuffle of 4 (bounds 4, 3, 2 with Lemire): every other shuffle repeats
    // the one before, as if two games had been seeded from the same clock tick.
    let shuffler = Inplace::with_sampler(Lemire);
    let mut rng = Replay::new(Pcg64::seed_from_u64(5), 3);
    let serial = serial_test(&shuffler, 4, 120_000, &mut rng).unwrap();
    assert!(serial.p_value < REJECT, "{}", serial.p_value);
    // Every shuffle alone is drawn from good words: the permutation test cannot tell.
    let mut rng = Replay::new(Pcg64::seed_from_u64(5), 3);
    let alone = permutation_test(&shuffler, 4, 120_000, &mut rng).unwrap();
    assert!(
        alone.two_sided_p_value() > PASS_THRESHOLD,
        "{}",
        alone.p_value
    );
}

#[test]
fn a_16_bit_lcg_is_too_even_to_be_chance() {
    // Its 65,536 states are visited in turn, so the counts are far more even than a random
    // sample's: the two-sided p-value catches it where the upper tail says "fine".
    let battery = run_battery(
        &Inplace::with_sampler(Lemire),
        Lcg16::seed_from_u64,
        6,
        &config(),
    )
    .unwrap();
    assert_eq!(battery.verdict, Verdict::Unfair, "{}", summary(&battery));
    let seeds = battery.test(TestName::SeedsConsecutive).unwrap();
    assert!(
        seeds.report.p_value > 0.5,
        "upper tail {}",
        seeds.report.p_value
    );
    assert!(seeds.adjusted_p < REJECT, "{}", summary(&battery));
}

#[test]
fn randu_seeded_in_sequence_fails_the_seed_tests() {
    let battery = run_battery(
        &Inplace::with_sampler(Lemire),
        Randu::seed_from_u64,
        7,
        &config(),
    )
    .unwrap();
    assert!(adjusted(&battery, TestName::SeedsConsecutive) < REJECT);
    assert!(adjusted(&battery, TestName::SeedsOneBitApart) < REJECT);
}

#[test]
fn the_adjacency_statistic_has_the_chi_square_mean_and_variance() {
    // Over 400 independent fair runs the statistic's mean must be df (its standard error is
    // sqrt(2 df / 400)) and its variance about 2 df.
    for n in [3usize, 4, 5, 9] {
        let mut rng = Pcg64::seed_from_u64(8 + n as u64);
        let runs = 400;
        let stats: Vec<f64> = (0..runs)
            .map(|_| {
                adjacency_test(&Inplace::new(), n, 2_000, &mut rng)
                    .unwrap()
                    .chi2
            })
            .collect();
        let df = (n * n - 3 * n + 1) as f64;
        let mean = stats.iter().sum::<f64>() / f64::from(runs);
        let variance = stats.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / f64::from(runs - 1);
        let standard_error = (2.0 * df / f64::from(runs)).sqrt();
        assert!(
            (mean - df).abs() < 5.0 * standard_error,
            "n = {n}: mean {mean} vs df {df}"
        );
        // χ²(1) is too skewed for 400 runs to pin its variance.
        assert!(
            n == 3 || (variance / (2.0 * df) - 1.0).abs() < 0.4,
            "n = {n}: variance {variance} vs {}",
            2.0 * df
        );
    }
}

#[test]
fn holm_never_rejects_less_than_bonferroni_and_keeps_the_order() {
    assert_eq!(holm_adjusted(&[]), Vec::<f64>::new());
    assert_eq!(holm_adjusted(&[0.2]), [0.2]);
    let p = [0.001, 0.5, 0.02, 0.0001];
    let adjusted = holm_adjusted(&p);
    assert_eq!(adjusted, [0.003, 0.5, 0.04, 0.0004]);
    for (raw, adj) in p.iter().zip(&adjusted) {
        assert!(adj >= raw && *adj <= (raw * 4.0).min(1.0));
    }
    assert_eq!(holm_adjusted(&[f64::NAN, 0.9]), [0.0, 0.9]);
}

#[test]
fn tallies_reject_what_is_not_a_permutation_and_count_nothing() {
    let bad: [&[usize]; 4] = [&[0, 1], &[0, 1, 1], &[0, 1, 3], &[0, 1, 2, 3]];
    let mut permutation = PermutationTally::new(3).unwrap();
    let mut position = PositionTally::new(3).unwrap();
    let mut adjacency = AdjacencyTally::new(3).unwrap();
    let mut serial = SerialTally::new(3).unwrap();
    let mut order = OrderTally::new(3).unwrap();
    for perm in bad {
        let not = Err(FairnessError::NotAPermutation { n: 3 });
        assert_eq!(permutation.add(perm), not);
        assert_eq!(position.add(perm), not);
        assert_eq!(adjacency.add(perm), not);
        assert_eq!(serial.add(perm), not);
        assert_eq!(order.add(perm), not);
    }
    assert_eq!(permutation.report(), Err(FairnessError::ZeroTrials));
    assert_eq!(position.report(), Err(FairnessError::ZeroTrials));
    assert_eq!(adjacency.report(), Err(FairnessError::ZeroTrials));
    serial.add(&[0, 1, 2]).unwrap();
    assert_eq!(serial.report(), Err(FairnessError::ZeroTrials));
    assert!(matches!(
        AdjacencyTally::new(2),
        Err(FairnessError::SizeOutOfRange { .. })
    ));
    assert!(matches!(
        PositionTally::new(1025),
        Err(FairnessError::SizeOutOfRange { .. })
    ));
    assert!(matches!(
        OrderTally::new(9).unwrap(),
        OrderTally::Position(_)
    ));
}

#[test]
fn the_tallies_count_what_the_shuffling_tests_count() {
    let mut rng = Pcg64::seed_from_u64(9);
    let direct = permutation_test(&Inplace::new(), 4, 2_000, &mut rng).unwrap();
    let mut rng = Pcg64::seed_from_u64(9);
    let mut tally = PermutationTally::new(4).unwrap();
    let mut deck = [0usize; 4];
    for _ in 0..2_000 {
        deck = [0, 1, 2, 3];
        Inplace::new().shuffle(&mut deck, &mut rng);
        tally.add(&deck).unwrap();
    }
    assert_eq!(deck.len(), 4);
    assert_eq!(tally.report().unwrap(), direct);
}
