//! Valid verdicts on any input size: exact and Monte Carlo p-values where the chi-square rule
//! fails, the `insufficient` verdict, and the repeat test with its negative controls.

use fairdeal_core::{IndexSampler, Lemire, SeedableRng, Shuffler};
use fairdeal_fairness::{
    AdjacencyTally, BatteryReport, Equivalence, JudgeConfig, PASS_THRESHOLD, PValueMethod,
    PermutationTally, PositionTally, RepeatTally, SerialTally, Tally, TestName, Verdict,
    repeat_test,
};
use fairdeal_inplace::Inplace;
use fairdeal_naive::Biased;
use rand_pcg::Pcg64;

const REJECT: f64 = 1e-9;

/// Feeds `lines` into fresh audit-style tallies and judges them as `fairdeal audit` does.
fn audit(n: usize, lines: &[Vec<usize>]) -> BatteryReport {
    let mut tallies: Vec<(TestName, Box<dyn Tally>)> = Vec::new();
    if n <= 8 {
        tallies.push((
            TestName::Permutation,
            Box::new(PermutationTally::new(n).unwrap()),
        ));
    }
    tallies.push((TestName::Position, Box::new(PositionTally::new(n).unwrap())));
    tallies.push((TestName::Serial, Box::new(SerialTally::new(n).unwrap())));
    if n >= 3 {
        tallies.push((
            TestName::Adjacency,
            Box::new(AdjacencyTally::new(n).unwrap()),
        ));
    }
    if n > 8 {
        tallies.push((
            TestName::RepeatedOrders,
            Box::new(RepeatTally::new(n, n).unwrap()),
        ));
    }
    for line in lines {
        for (_, tally) in &mut tallies {
            tally.add(line).unwrap();
        }
    }
    let reports = tallies
        .iter()
        .filter(|(_, t)| t.trials() > 0)
        .map(|(name, t)| (*name, t.report().unwrap()))
        .collect();
    BatteryReport::judged(
        reports,
        PASS_THRESHOLD,
        &JudgeConfig::default(),
        &Equivalence::default(),
    )
}

fn fair_lines(n: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    let mut rng = Pcg64::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut deck: Vec<usize> = (0..n).collect();
            Inplace::new().shuffle(&mut deck, &mut rng);
            deck
        })
        .collect()
}

#[test]
fn two_balanced_lines_are_insufficient_not_unfair() {
    let battery = audit(2, &[vec![0, 1], vec![1, 0]]);
    assert_eq!(battery.verdict, Verdict::Insufficient, "{battery:?}");
    let battery = audit(5, &[vec![0, 3, 2, 1, 4], vec![0, 3, 2, 1, 4]]);
    assert_eq!(battery.verdict, Verdict::Insufficient, "{battery:?}");
    assert!(battery.samples_needed.is_some());
}

#[test]
fn an_exactly_balanced_count_of_two_items_is_fair() {
    // 500 of each order of 2 items, in random order: about 2.5 % of fair files look like this.
    let mut balanced: Vec<Vec<usize>> = (0..1000)
        .map(|i| if i < 500 { vec![0, 1] } else { vec![1, 0] })
        .collect();
    Inplace::new().shuffle(&mut balanced, &mut Pcg64::seed_from_u64(3));
    let battery = audit(2, &balanced);
    let permutation = battery.test(TestName::Permutation).unwrap();
    assert_eq!(permutation.judgement.method, PValueMethod::ExactBinomial);
    assert!(permutation.p_value > 0.04, "{}", permutation.p_value);
    // 1,000 lines bound both orders within 30 %, not each position within 5 %.
    assert_eq!(permutation.verdict(), Verdict::Fair, "{battery:?}");
    assert_eq!(battery.verdict, Verdict::Insufficient, "{battery:?}");
    // Negative control: 1000 lines all alike.
    let battery = audit(2, &vec![vec![0, 1]; 1000]);
    assert_eq!(battery.verdict, Verdict::Unfair);
}

#[test]
fn one_repeated_line_in_a_sparse_table_is_not_unfair() {
    let mut lines = fair_lines(8, 29, 1);
    lines.push(lines[0].clone());
    let battery = audit(8, &lines);
    assert_ne!(battery.verdict, Verdict::Unfair, "{battery:?}");
    let permutation = battery.test(TestName::Permutation).unwrap();
    assert_eq!(permutation.judgement.method, PValueMethod::MonteCarlo);
}

#[test]
fn monte_carlo_p_values_are_deterministic_for_a_seed() {
    let lines = fair_lines(8, 200, 2);
    let mut tally = PermutationTally::new(8).unwrap();
    for line in &lines {
        tally.add(line).unwrap();
    }
    let report = tally.report().unwrap();
    let config = JudgeConfig {
        replicates: 199,
        seed: 7,
    };
    let first = report.judge(&config);
    assert_eq!(first, report.judge(&config));
    assert_eq!(first.replicates, Some(199));
    // Negative control: 200 copies of one order are far outside every simulated table.
    let mut tally = PermutationTally::new(8).unwrap();
    for _ in 0..200 {
        tally.add(&lines[0]).unwrap();
    }
    let judged = tally.report().unwrap().judge(&config);
    assert_eq!(judged.upper_p, 1.0 / 200.0);
}

#[test]
fn the_repeat_test_catches_500_repeats_in_10000_deals() {
    let mut lines = fair_lines(52, 9_500, 5);
    let repeats: Vec<Vec<usize>> = lines[..500].to_vec();
    lines.extend(repeats);
    let battery = audit(52, &lines);
    assert_eq!(battery.verdict, Verdict::Unfair);
    assert_eq!(battery.decided_by, Some(TestName::RepeatedOrders));
    let repeated = battery.test(TestName::RepeatedOrders).unwrap();
    assert_eq!(repeated.report.counts, [500]);
    assert!(repeated.p_value < REJECT);
}

/// The repeat test is fair only where it could have rejected: one line cannot repeat anything,
/// so it is insufficient there (as the other tests are), not fair. From three lines of ten
/// items it can (three alike: p = (10!)^-2), so three different lines pass it as fair and
/// three alike fail it.
#[test]
fn a_repeat_test_that_could_not_reject_is_insufficient() {
    let lines = fair_lines(10, 3, 3);
    let one = audit(10, &lines[..1]);
    let repeated = one.test(TestName::RepeatedOrders).unwrap();
    assert!(!repeated.has_power, "{repeated:?}");
    assert_eq!(repeated.verdict(), Verdict::Insufficient);
    assert_eq!(one.verdict, Verdict::Insufficient);
    let three = audit(10, &lines);
    let repeated = three.test(TestName::RepeatedOrders).unwrap();
    assert!(repeated.has_power, "{repeated:?}");
    assert_eq!(repeated.verdict(), Verdict::Fair);
    let alike = audit(10, &[lines[0].clone(), lines[0].clone(), lines[0].clone()]);
    let repeated = alike.test(TestName::RepeatedOrders).unwrap();
    assert_eq!(repeated.verdict(), Verdict::Unfair, "{repeated:?}");
}

#[test]
fn the_repeat_test_passes_fair_decks_and_hands() {
    let mut rng = Pcg64::seed_from_u64(6);
    for k in [52, 7, 5] {
        let report = repeat_test(&Inplace::new(), 52, k, 20_000, &mut rng).unwrap();
        assert!(report.p_value > PASS_THRESHOLD, "k = {k}: {report:?}");
    }
}

/// A dealer that seeds a good generator from a 16-bit value per deal: at most 65,536 decks.
#[test]
fn a_dealer_seeding_from_16_bits_fails_the_repeat_test() {
    let mut seeds = Pcg64::seed_from_u64(8);
    for (k, deals) in [(52, 2_000), (5, 2_000)] {
        let mut tally = RepeatTally::new(52, k).unwrap();
        for _ in 0..deals {
            let seed = Lemire.index_below(&mut seeds, 1 << 16) as u64;
            let mut deck: Vec<usize> = (0..52).collect();
            Inplace::new().shuffle(&mut deck, &mut Pcg64::seed_from_u64(seed));
            tally.add(&deck).unwrap();
        }
        let report = tally.report().unwrap();
        assert!(report.counts[0] > 10, "k = {k}: {report:?}");
        assert!(report.p_value < REJECT, "k = {k}: {report:?}");
    }
}

/// The wrong-range swap on 6 items: 6^6 paths onto 720 orders, so some orders come up more
/// often and repeat more than chance allows.
#[test]
fn the_biased_swap_on_small_decks_fails_the_repeat_test() {
    let mut rng = Pcg64::seed_from_u64(9);
    let biased = repeat_test(&Biased::new(), 8, 8, 20_000, &mut rng).unwrap();
    assert!(biased.p_value < REJECT, "{biased:?}");
    let fair = repeat_test(&Inplace::new(), 8, 8, 20_000, &mut rng).unwrap();
    assert!(fair.p_value > PASS_THRESHOLD, "{fair:?}");
}

#[test]
fn sparse_fairness_runs_are_insufficient_not_unfair() {
    // `fairdeal fairness --n 8 --trials 100`: 100 orders among 40,320.
    for seed in [39, 42, 344] {
        let lines = fair_lines(8, 100, seed);
        let mut tally = PermutationTally::new(8).unwrap();
        for line in &lines {
            tally.add(line).unwrap();
        }
        let battery = BatteryReport::from_reports(
            vec![(TestName::Permutation, tally.report().unwrap())],
            PASS_THRESHOLD,
        );
        assert_eq!(battery.verdict, Verdict::Insufficient, "seed {seed}");
        // What certifies 30 % per order of 8 items: tens of millions of lines.
        assert!(battery.samples_needed.unwrap() > 10_000_000, "seed {seed}");
    }
}

/// Tallies `count` orders of `n` items shuffled by `shuffler` from a PCG seeded with `seed`.
fn permutation_tally<S: Shuffler>(
    shuffler: &S,
    n: usize,
    count: usize,
    seed: u64,
) -> PermutationTally {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut tally = PermutationTally::new(n).unwrap();
    let mut deck: Vec<usize> = (0..n).collect();
    for _ in 0..count {
        deck.iter_mut().zip(0..).for_each(|(slot, i)| *slot = i);
        shuffler.shuffle(&mut deck, &mut rng);
        tally.add(&deck).unwrap();
    }
    tally
}

#[test]
fn a_sparse_table_of_the_wrong_range_swap_is_unfair_below_the_simulation_floor() {
    // `fairdeal fairness --n 8 --algo biased --trials 200000`: 4.96 expected per order, so the
    // p-value is simulated; 999 replicates alone cannot go below 0.002, far above 1e-6. The
    // cells' exact binomial tails can: the swap's likeliest orders come up 20 to 30 times.
    let report = permutation_tally(&Biased::new(), 8, 200_000, 5)
        .report()
        .unwrap();
    let judged = report.judge(&JudgeConfig::default());
    assert_eq!(judged.method, PValueMethod::MonteCarlo);
    let simulated = (2.0 * judged.upper_p.min(judged.lower_p.unwrap())).min(1.0);
    assert!(simulated >= 0.002, "{judged:?}");
    assert!(judged.cell_p.unwrap() < REJECT, "{judged:?}");
    assert!(judged.p_value < REJECT, "{judged:?}");
    let battery =
        BatteryReport::from_reports(vec![(TestName::Permutation, report)], PASS_THRESHOLD);
    assert_eq!(battery.verdict, Verdict::Unfair, "{battery:?}");
    // Negative control: a fair shuffle of the same size is not rejected by either part.
    for seed in [5, 6, 7] {
        let report = permutation_tally(&Inplace::new(), 8, 200_000, seed)
            .report()
            .unwrap();
        let judged = report.judge(&JudgeConfig::default());
        assert!(judged.cell_p.unwrap() > 1e-3, "seed {seed}: {judged:?}");
        assert!(judged.p_value > PASS_THRESHOLD, "seed {seed}: {judged:?}");
    }
}

#[test]
fn the_cell_tails_of_a_sparse_position_table_catch_an_item_stuck_in_place() {
    // 30 lines of 8 items (3.75 expected per cell, so simulated): item 0 always first.
    let mut rng = Pcg64::seed_from_u64(11);
    let mut tally = PositionTally::new(8).unwrap();
    for _ in 0..30 {
        let mut deck: Vec<usize> = (1..8).collect();
        Inplace::new().shuffle(&mut deck, &mut rng);
        deck.insert(0, 0);
        tally.add(&deck).unwrap();
    }
    let judged = tally.report().unwrap().judge(&JudgeConfig::default());
    assert_eq!(judged.method, PValueMethod::MonteCarlo);
    // P(30 of 30 | p = 1/8) · 2 · 64 cells: about 1e-25.
    assert!(judged.p_value < REJECT, "{judged:?}");
    // Negative control: 30 fair lines.
    let mut tally = PositionTally::new(8).unwrap();
    for line in fair_lines(8, 30, 11) {
        tally.add(&line).unwrap();
    }
    let judged = tally.report().unwrap().judge(&JudgeConfig::default());
    assert!(judged.p_value > PASS_THRESHOLD, "{judged:?}");
}
