//! The judges' exit statuses, decided here once: `audit`, `fairness`, `compare` and
//! `poker table` end with 0 for a fair verdict, [`EXIT_UNFAIR`] for an unfair one and
//! [`EXIT_INSUFFICIENT`] when the input is too small to judge — all different from a usage
//! error (2) and any other error (1), so `fairdeal audit deals.txt && deploy` gates a release.

use std::fmt;

use fairdeal::fairness::{
    BatteryReport, BatteryTest, Certified, DEFAULT_CONFIDENCE, TestKind, TestName, Verdict,
};

/// The exit status of an UNFAIR verdict.
pub(crate) const EXIT_UNFAIR: u8 = 3;

/// The exit status of an `insufficient` verdict (too few samples for any test to have power).
pub(crate) const EXIT_INSUFFICIENT: u8 = 4;

/// The `Exit status:` paragraph of each judging command's `--help`, as a literal so that
/// `after_help` attributes can `concat!` it. The architecture of the numbers is the constants
/// above; a unit test keeps the two in step.
macro_rules! exit_status_help {
    () => {
        "Exit status: 0 fair; 3 unfair; 4 insufficient; 2 usage error; 1 any other error. \
         FAIR: at the stated confidence the data bound every cell's deviation from fair within \
         the tolerance (the report states the bound); UNFAIR: a test rejects; INSUFFICIENT: \
         nothing rejects, but the data cannot bound the bias within the tolerance (the report \
         says about how many samples would)."
    };
}
pub(crate) use exit_status_help;

/// `--tolerance` and `--confidence`, shared by the judging commands.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct EquivalenceArgs {
    /// The largest bias a FAIR verdict allows: no cell (an order, an item at a position, a pair
    /// of neighbours, a poker category) more than this fraction more or less likely than fair
    /// (0.05 = 5 %). Default per test: 0.30 for whole orders, 0.05 for positions and
    /// neighbours, 0.15 for poker categories.
    #[arg(long, value_name = "FRACTION")]
    pub(crate) tolerance: Option<f64>,

    /// The confidence of the certified bound (simultaneous Clopper–Pearson intervals over the
    /// cells, union bound).
    #[arg(long, value_name = "FRACTION", default_value_t = DEFAULT_CONFIDENCE)]
    pub(crate) confidence: f64,
}

/// A fraction as a percentage for people: `3.1 %`, `0.42 %`, `> 1000 %`.
pub(crate) fn percent(fraction: f64) -> String {
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

/// A confidence for people: `99.9999 %`.
pub(crate) fn confidence(c: f64) -> String {
    let digits = (-(1.0 - c).log10()).ceil().clamp(0.0, 12.0) as usize;
    format!("{:.*} %", digits.saturating_sub(2), c * 100.0)
}

/// What a certified verdict says, after "no {cell} is": `"more than 3.1 % more or less likely
/// than fair (99.9999 % confidence; tolerance 5 %)"`, or the bound's absence.
pub(crate) fn bound_clause(certified: &Certified) -> String {
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
pub(crate) fn cell_noun(name: TestName, kind: TestKind) -> &'static str {
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
/// [`Certified::outputs_at_least`] value the JSON carries too.
pub(crate) fn outputs_clause(test: &BatteryTest, samples: &str) -> Option<String> {
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

/// The sentence a battery's verdict states: what FAIR certifies, what INSUFFICIENT lacks, which
/// test rejected. `samples` names what the battery counted ("lines", "shuffles"); the deck
/// size `_n` is unused (each test's own report says what its table counts).
pub(crate) fn battery_sentence(battery: &BatteryReport, _n: usize, samples: &str) -> String {
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

/// A verdict other than fair, carried as an error so `main` exits with its status. The verdict
/// has already been printed: `main` prints nothing more for it.
#[derive(Debug)]
pub(crate) struct VerdictStatus(pub(crate) Verdict);

impl fmt::Display for VerdictStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict: {}", self.0)
    }
}

impl std::error::Error for VerdictStatus {}

impl VerdictStatus {
    /// The exit status of this verdict.
    pub(crate) fn code(&self) -> u8 {
        status(self.0)
    }
}

/// The exit status of `verdict`.
pub(crate) const fn status(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Fair => 0,
        Verdict::Unfair => EXIT_UNFAIR,
        Verdict::Insufficient => EXIT_INSUFFICIENT,
    }
}

/// `Ok(())` for a fair verdict, else the [`VerdictStatus`] error `main` turns into the status.
pub(crate) fn finish(verdict: Verdict) -> anyhow::Result<()> {
    match verdict {
        Verdict::Fair => Ok(()),
        other => Err(anyhow::Error::new(VerdictStatus(other))),
    }
}

/// The worst of several verdicts (unfair, then insufficient, then fair): a comparison of
/// several generators fails when any of them does.
pub(crate) fn worst(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let rank = |v: &Verdict| match v {
        Verdict::Fair => 0,
        Verdict::Insufficient => 1,
        Verdict::Unfair => 2,
    };
    verdicts
        .into_iter()
        .max_by_key(rank)
        .unwrap_or(Verdict::Fair)
}

/// The verdict an error carries, if it is one.
pub(crate) fn of(err: &anyhow::Error) -> Option<&VerdictStatus> {
    err.chain()
        .find_map(|cause| cause.downcast_ref::<VerdictStatus>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal::fairness::{CATEGORY_TOLERANCE, CELL_TOLERANCE, ORDER_TOLERANCE};

    #[test]
    fn the_help_text_states_the_constants() {
        let help = exit_status_help!();
        assert!(help.contains(&format!("{EXIT_UNFAIR} unfair")));
        assert!(help.contains(&format!("{EXIT_INSUFFICIENT} insufficient")));
        assert_eq!(status(Verdict::Fair), 0);
        let err = finish(Verdict::Unfair).unwrap_err();
        assert_eq!(of(&err).map(VerdictStatus::code), Some(EXIT_UNFAIR));
        assert_eq!(crate::common::exit_status(&err), EXIT_UNFAIR);
    }

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
            [ORDER_TOLERANCE, CELL_TOLERANCE, CATEGORY_TOLERANCE],
            [0.3, 0.05, 0.15]
        );
    }
}
