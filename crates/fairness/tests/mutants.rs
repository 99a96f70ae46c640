//! Tests written to kill mutants that cargo-mutants found surviving in `fairdeal-fairness`
//! (see docs/testing.md, "Mutation testing").

use fairdeal_fairness::SeedPattern;

/// The names reports print are the documented ones, and the same as the patterns' serialized
/// (kebab-case) names, so a report and its JSON agree.
#[test]
fn seed_patterns_are_named_as_documented() {
    for (pattern, name) in [
        (SeedPattern::Consecutive, "consecutive"),
        (SeedPattern::OneBitApart, "one-bit-apart"),
    ] {
        assert_eq!(pattern.name(), name);
        assert_eq!(
            serde_json::to_string(&pattern).unwrap(),
            format!("\"{}\"", pattern.name())
        );
    }
}

/// Every test prints under its documented name (a report's table and its JSON use it).
#[test]
fn battery_tests_display_their_names() {
    use fairdeal_fairness::TestName;
    for (test, name) in [
        (TestName::Permutation, "permutation"),
        (TestName::Position, "position"),
        (TestName::SeedsConsecutive, "seeds-consecutive"),
        (TestName::SeedsOneBitApart, "seeds-one-bit-apart"),
        (TestName::Serial, "serial"),
        (TestName::Adjacency, "adjacency"),
    ] {
        assert_eq!(test.name(), name);
        assert_eq!(test.to_string(), name);
    }
}

/// An adjusted p-value exactly at `alpha` rejects ("at most alpha", as documented); just
/// above it does not.
#[test]
fn a_battery_rejects_at_alpha_itself() {
    use fairdeal_fairness::{BatteryReport, FairnessReport, TestKind, TestName, Verdict};
    let report = FairnessReport {
        test: TestKind::Position,
        n: 2,
        trials: 10,
        counts: vec![5; 4],
        chi2: 1.0,
        df: 1,
        p_value: 0.25,
    };
    let p = report.two_sided_p_value();
    let at = BatteryReport::from_reports(vec![(TestName::Position, report.clone())], p);
    assert_eq!(at.verdict, Verdict::Unfair, "p = {p} at alpha = {p}");
    assert_eq!(at.tests[0].verdict(), Verdict::Unfair);
    let below = BatteryReport::from_reports(vec![(TestName::Position, report)], p * 0.999);
    // Not rejected, and ten shuffles bound nothing: insufficient.
    assert_eq!(below.verdict, Verdict::Insufficient);
    assert_eq!(below.tests[0].verdict(), Verdict::Insufficient);
}

/// An item of exactly 40 characters is shown whole; one more and it is cut with an ellipsis.
#[test]
fn items_are_cut_after_forty_characters() {
    use fairdeal_fairness::show_item;
    let forty = "é".repeat(40);
    assert_eq!(show_item(forty.as_bytes()), forty);
    let forty_one = format!("{forty}x");
    assert_eq!(show_item(forty_one.as_bytes()), format!("{forty}…"));
}

/// `lines_read` counts every line fed, blank and bad ones included.
#[test]
fn the_parser_counts_every_line_it_is_fed() {
    use fairdeal_fairness::PermutationParser;
    let mut parser = PermutationParser::new();
    assert_eq!(parser.lines_read(), 0);
    for (line, read) in [(&b"b a c\n"[..], 1), (b"\n", 2), (b"c b a", 3), (b"a a", 4)] {
        let _ = parser.parse_line(line);
        assert_eq!(parser.lines_read(), read);
    }
}

/// `position_trials_needed` against the same model computed independently (Python's mpmath at
/// 40 digits: the chi-square critical value by bisection on the regularized upper incomplete
/// gamma function, the normal quantile from `erfinv`, then the noncentrality by bisection).
#[test]
fn trials_needed_match_an_independent_computation() {
    use fairdeal_fairness::position_trials_needed;
    for (n, bias, alpha, power, expected) in [
        (52, 0.05, 1e-6, 0.9, 9_486_927.390_057_67),
        (2, 0.5, 0.01, 0.5, 22.539_586_404_084_9),
        (3, 0.2, 0.05, 0.8, 586.164_751_281_092),
        // A critical value far in the tail (about 916): the bisection's bracket must grow.
        (2, 0.5, 1e-200, 0.5, 3_651.050_803_143_52),
    ] {
        let got = position_trials_needed(n, bias, alpha, power).unwrap();
        assert!(
            (got / expected - 1.0).abs() < 1e-9,
            "n = {n}, bias {bias}, alpha {alpha}, power {power}: {got}, expected {expected}"
        );
    }
    // The arguments' ends are refused: alpha and power must lie strictly inside (0, 1).
    assert!(position_trials_needed(52, 0.1, 1.0, 0.9).is_none());
    assert!(position_trials_needed(52, 0.1, 1e-6, 0.0).is_none());
}

fn report(
    test: fairdeal_fairness::TestKind,
    n: usize,
    counts: Vec<u64>,
) -> fairdeal_fairness::FairnessReport {
    fairdeal_fairness::FairnessReport {
        test,
        n,
        trials: 120,
        counts,
        chi2: 1.0,
        df: 1,
        p_value: 0.5,
    }
}

/// `trials / n!`, `trials / n` and `trials / (n - 1)`, as documented.
#[test]
fn expected_counts_divide_the_trials_by_the_cells() {
    use fairdeal_fairness::TestKind;
    assert_eq!(
        report(TestKind::Permutation, 4, vec![]).expected_count(),
        5.0
    );
    assert_eq!(report(TestKind::Position, 4, vec![]).expected_count(), 30.0);
    assert_eq!(report(TestKind::Prefix, 4, vec![]).expected_count(), 30.0);
    assert_eq!(
        report(TestKind::Adjacency, 4, vec![]).expected_count(),
        40.0
    );
}

/// The permutation test has no matrix, whatever its counts; nor has a report without counts
/// (the rows would be zero wide).
#[test]
fn only_position_and_adjacency_reports_have_a_matrix() {
    use fairdeal_fairness::TestKind;
    assert!(
        report(TestKind::Permutation, 2, vec![60, 60])
            .matrix()
            .is_none()
    );
    assert!(report(TestKind::Position, 2, vec![]).matrix().is_none());
    assert!(report(TestKind::Position, 0, vec![]).matrix().is_none());
    assert!(
        report(TestKind::Position, 2, vec![1, 2, 3])
            .matrix()
            .is_none()
    );
    let adjacency = report(TestKind::Adjacency, 2, vec![0, 5, 5, 0]);
    let rows: Vec<&[u64]> = adjacency.matrix().unwrap().collect();
    assert_eq!(rows, [[0, 5], [5, 0]]);
}

/// Every tally counts the permutations it was fed (the serial tally the consecutive pairs), and
/// its report says so.
#[test]
fn tallies_count_their_trials() {
    use fairdeal_fairness::{
        AdjacencyTally, OrderTally, PermutationTally, PositionTally, SerialTally,
    };
    let perms = |n: usize| [(0..n).collect::<Vec<_>>(), (0..n).rev().collect()];
    let mut permutation = PermutationTally::new(4).unwrap();
    let mut position = PositionTally::new(10).unwrap();
    let mut order = OrderTally::new(10).unwrap();
    let mut adjacency = AdjacencyTally::new(4).unwrap();
    let mut serial = SerialTally::new(4).unwrap();
    for (i, (small, large)) in perms(4).into_iter().zip(perms(10)).enumerate() {
        permutation.add(&small).unwrap();
        position.add(&large).unwrap();
        order.add(&large).unwrap();
        adjacency.add(&small).unwrap();
        serial.add(&small).unwrap();
        let trials = i as u64 + 1;
        assert_eq!(permutation.trials(), trials);
        assert_eq!(position.trials(), trials);
        assert_eq!(order.trials(), trials);
        assert_eq!(adjacency.trials(), trials);
        assert_eq!(serial.trials(), trials - 1);
    }
    assert_eq!(permutation.report().unwrap().trials, 2);
    assert_eq!(position.report().unwrap().trials, 2);
    assert_eq!(order.report().unwrap().trials, 2);
    assert_eq!(adjacency.report().unwrap().trials, 2);
}
