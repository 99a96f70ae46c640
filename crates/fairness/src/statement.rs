//! The sentences a judge states: what a FAIR verdict certifies, what an INSUFFICIENT one lacks,
//! which test decided an UNFAIR one. Every judge's report (the CLI's text and JSON, the Python
//! module's report) takes its `statement` from here, so the wording is decided once.

use crate::{BatteryReport, BatteryTest, Certified, TestKind, TestName, Verdict};

/// A fraction as a percentage for people: `3.1 %`, `0.42 %`, `20 %`, and `1000+ %` beyond
/// ten times (or for a non-finite value).
///
/// ```
/// use fairdeal_fairness::statement::percent;
/// assert_eq!(percent(0.031), "3.1 %");
/// assert_eq!(percent(0.0042), "0.42 %");
/// assert_eq!(percent(f64::INFINITY), "1000+ %");
/// ```
pub fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    if !p.is_finite() || p > 1000.0 {
        "1000+ %".to_owned()
    } else if p >= 10.0 || p.fract() == 0.0 {
        format!("{p:.0} %")
    } else if p >= 1.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.2} %")
    }
}

/// A confidence for people, with as many digits as its nines: `99.9999 %`, `99 %`.
///
/// ```
/// use fairdeal_fairness::{DEFAULT_CONFIDENCE, statement::confidence};
/// assert_eq!(confidence(DEFAULT_CONFIDENCE), "99.9999 %");
/// assert_eq!(confidence(0.99), "99 %");
/// ```
pub fn confidence(c: f64) -> String {
    let digits = (-(1.0 - c).log10()).ceil().clamp(0.0, 12.0) as usize;
    format!("{:.*} %", digits.saturating_sub(2), c * 100.0)
}

/// What a certified verdict says, after "no {cell} is": `"more than 3.1 % more or less likely
/// than fair (99.9999 % confidence; tolerance 5 %)"`, or the bound's absence (the repeat tests
/// bound no cell).
pub fn bound_clause(certified: &Certified) -> String {
    match (certified.bound, certified.tolerance) {
        (Some(bound), Some(tolerance)) => format!(
            "more than {} more or less likely than fair ({} confidence; tolerance {})",
            percent(bound),
            confidence(certified.confidence),
            percent(tolerance)
        ),
        _ => "bounded (this test detects repeats only)".to_owned(),
    }
}

/// What one cell of a test's table is, for "no {cell} is more than …": `kind` is the table the
/// test counted (whole orders, or items at positions).
pub fn cell_noun(name: TestName, kind: TestKind) -> &'static str {
    let orders = kind == TestKind::Permutation;
    match name {
        TestName::Permutation => "order",
        TestName::Position => "item at a position",
        TestName::Serial if orders => "order of one line relative to the line before",
        TestName::Serial => "move of an item from one line's position to the next line's",
        TestName::SeedsConsecutive | TestName::SeedsOneBitApart if orders => {
            "first order of a seed"
        }
        TestName::SeedsConsecutive | TestName::SeedsOneBitApart => {
            "item at a position in a seed's first shuffle"
        }
        TestName::Adjacency => "item right after another",
        TestName::RepeatedOrders | TestName::RepeatedHands5 | TestName::RepeatedHands7 => "repeat",
    }
}

/// What a repeat test certifies: `"no repeat among 10000 lines: at 99.9999 % confidence the
/// source has at least 3.62e6 equally likely orders (2^21.8)"`, from the one
/// [`Certified::outputs_at_least`] value the JSON carries too; `None` for the other tests.
pub fn outputs_clause(test: &BatteryTest, samples: &str) -> Option<String> {
    let outputs = test.certified.outputs_at_least?;
    let repeats = test.report.counts.first().copied().unwrap_or_default();
    let what = match test.name {
        TestName::RepeatedHands5 => "5-item hands",
        TestName::RepeatedHands7 => "7-item hands",
        _ => "orders",
    };
    let seen = match repeats {
        0 => "no repeat".to_owned(),
        1 => "1 repeat".to_owned(),
        r => format!("{r} repeats"),
    };
    Some(format!(
        "{seen} among {} {samples}: at {} confidence the source has at least {outputs:.3e} \
         equally likely {what} (2^{:.1})",
        test.report.trials,
        confidence(test.certified.confidence),
        outputs.log2()
    ))
}

/// The sentence a battery's verdict states: what FAIR certifies, what INSUFFICIENT lacks (and
/// about how many samples would do), which test rejected. `samples` names what the battery
/// counted (`"lines"`, `"shuffles"`); each test's own report says which table it counted.
///
/// ```
/// use fairdeal_fairness::{BatteryReport, FairnessReport, TestKind, TestName, statement};
/// let report = FairnessReport {
///     test: TestKind::Position, n: 2, trials: 10, counts: vec![5; 4], chi2: 0.0, df: 1,
///     p_value: 1.0,
/// };
/// let battery = BatteryReport::from_reports(vec![(TestName::Position, report)], 1e-6);
/// let sentence = statement::battery_sentence(&battery, "lines");
/// assert!(sentence.starts_with("INSUFFICIENT: no test rejects"), "{sentence}");
/// assert!(sentence.ends_with("lines needed"), "{sentence}");
/// ```
pub fn battery_sentence(battery: &BatteryReport, samples: &str) -> String {
    let claims = |tests: &mut dyn Iterator<Item = &BatteryTest>| -> String {
        tests
            .filter_map(|t| match t.certified.bound {
                Some(_) => Some(format!(
                    "no {} {} [{}]",
                    cell_noun(t.name, t.report.test),
                    bound_clause(&t.certified),
                    t.name
                )),
                None => outputs_clause(t, samples).map(|c| format!("{c} [{}]", t.name)),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    match battery.verdict {
        Verdict::Fair => format!(
            "FAIR: {}; no test rejects at p <= {:e} after Holm's correction",
            claims(&mut battery.tests.iter()),
            battery.alpha
        ),
        Verdict::Unfair => {
            let test = battery
                .decided_by
                .map_or_else(|| "a".to_owned(), |t| format!("the {t}"));
            format!(
                "UNFAIR: decided by {test} test (Holm-adjusted p <= {:e})",
                battery.alpha
            )
        }
        Verdict::Insufficient => {
            let short: Vec<&BatteryTest> = battery
                .tests
                .iter()
                // The tests short of their tolerance, and what the repeat tests certify.
                .filter(|t| {
                    t.verdict() == Verdict::Insufficient || t.certified.outputs_at_least.is_some()
                })
                .collect();
            format!(
                "INSUFFICIENT: no test rejects, but the data cannot rule out a bias beyond the \
                 tolerance — they certify only: {}; about {} {samples} needed",
                claims(&mut short.into_iter()),
                battery
                    .samples_needed
                    .map_or_else(|| "more".to_owned(), |s| s.to_string())
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CATEGORY_TOLERANCE, CELL_TOLERANCE, DEFAULT_CONFIDENCE, ORDER_TOLERANCE};

    #[test]
    fn percentages_and_confidences_read_well() {
        assert_eq!(percent(0.031), "3.1 %");
        assert_eq!(percent(0.2), "20 %");
        assert_eq!(percent(0.0042), "0.42 %");
        assert_eq!(percent(f64::INFINITY), "1000+ %");
        assert_eq!(percent(0.05), "5 %");
        assert_eq!(confidence(DEFAULT_CONFIDENCE), "99.9999 %");
        assert_eq!(confidence(0.99), "99 %");
        assert_eq!(
            [ORDER_TOLERANCE, CELL_TOLERANCE, CATEGORY_TOLERANCE]
                .map(percent)
                .join(" "),
            "30 % 5 % 15 %"
        );
    }

    #[test]
    fn cells_are_named_by_the_table_the_test_counted() {
        assert_eq!(
            cell_noun(TestName::Serial, TestKind::Permutation),
            "order of one line relative to the line before"
        );
        assert_eq!(
            cell_noun(TestName::Serial, TestKind::Position),
            "move of an item from one line's position to the next line's"
        );
        assert_eq!(
            cell_noun(TestName::Position, TestKind::Position),
            "item at a position"
        );
    }
}
