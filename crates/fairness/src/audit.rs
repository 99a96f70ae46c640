//! The audit of permutations written by any program: one report, whoever reads it.
//!
//! [`LineAudit`] takes lines of text (one permutation per line, items any tokens, the first
//! line fixing the items: [`PermutationParser`]) and streams them through the battery's tallies
//! for lines ([`line_tallies`]), so memory is O(n²) for the counts, never O(lines) (the repeat
//! tests, above 8 items, remember up to [`MAX_REPEAT_LINES`](crate::MAX_REPEAT_LINES) lines).
//! [`LineAudit::report`] judges them ([`judge_tallies`], Holm's correction, the equivalence
//! bounds of [`Equivalence`]) and returns an [`AuditReport`]: the verdict, the statement of what
//! it certifies, every test with its own verdict, certified bound, tolerance and lines needed,
//! the most over- and under-represented cells, and the power estimate.
//!
//! The report is the one value both front ends print: `fairdeal audit --json` serializes it
//! (its field names and order are the JSON document, an interface), `fairdeal audit`'s text
//! printer reads it, and the Python module's `fairdeal.audit(...).to_dict()` is its JSON. So the
//! CLI's text, its JSON and Python cannot disagree.
//!
//! ```
//! use fairdeal_fairness::Verdict;
//! use fairdeal_fairness::audit::{AuditOptions, LineAudit};
//!
//! let mut audit = LineAudit::new();
//! for line in ["a b c", "c b a", "", "b a c"] {
//!     audit.add_line(line.as_bytes())?;
//! }
//! assert_eq!(audit.lines(), 3); // the blank line counts for nothing
//! let report = audit.report(&AuditOptions::default())?;
//! assert_eq!(report.items, ["a", "b", "c"]);
//! // Three lines rule nothing out: not fair, and nothing rejects either.
//! assert_eq!(report.verdict, Verdict::Insufficient);
//! assert!(report.lines_needed.unwrap() > 1_000);
//! let json = serde_json::to_value(&report).unwrap();
//! assert_eq!(json["verdict"], "insufficient");
//! assert_eq!(json["tests"][0]["name"], "permutation");
//! # Ok::<(), fairdeal_fairness::audit::AuditError>(())
//! ```

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::statement::battery_sentence;
use crate::{
    BatteryReport, Equivalence, FairnessError, JudgeConfig, LineError, NamedTally, PASS_THRESHOLD,
    PValueMethod, PermutationParser, TestName, Verdict, judge_tallies, line_tallies,
    position_trials_needed, show_item,
};

/// How many over- and under-represented cells a report lists.
pub const EXTREMES: usize = 5;

/// The smallest bias the "lines needed" estimate is sized for: a 0.01 % excess needs about
/// 10^12 lines, beyond any file.
pub const MIN_BIAS: f64 = 1e-4;

/// The largest bias the estimate is sized for: ten times the fair rate.
pub const MAX_BIAS: f64 = 10.0;

/// The bias the estimate is sized for by default: one item at one position 5 % more often
/// than fair.
pub const DEFAULT_BIAS: f64 = 0.05;

/// The detection power the "lines needed" estimate aims for.
pub const POWER: f64 = 0.9;

/// The smallest tolerance a judge accepts.
pub const MIN_TOLERANCE: f64 = 1e-4;

/// The largest tolerance a judge accepts (ten times the fair rate).
pub const MAX_TOLERANCE: f64 = 10.0;

/// What can go wrong in an audit: a bad option, a line that is not a permutation of the first
/// line's items, or no permutations at all. The messages are the CLI's (which prefixes the
/// options' names with `--`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The bias is not a finite fraction from [`MIN_BIAS`] to [`MAX_BIAS`].
    #[error("bias must be a fraction from {min} to {max} (got {0:.3e})", min = MIN_BIAS, max = MAX_BIAS)]
    Bias(f64),
    /// The tolerance is not a finite fraction from [`MIN_TOLERANCE`] to [`MAX_TOLERANCE`].
    #[error(
        "tolerance must be a fraction from {min} to {max} (got {0})",
        min = MIN_TOLERANCE,
        max = MAX_TOLERANCE
    )]
    Tolerance(f64),
    /// The confidence is not at least 0.5 and below 1.
    #[error("confidence must be at least 0.5 and below 1 (got {0})")]
    Confidence(f64),
    /// A line is not a permutation of the first line's items (the error names the line).
    #[error(transparent)]
    Line(#[from] LineError),
    /// The battery refused the data.
    #[error(transparent)]
    Fairness(#[from] FairnessError),
    /// No line held a permutation.
    #[error("the input holds no permutations")]
    Empty,
}

/// What an audit asks: the bias its power estimate is sized for, and the tolerance and
/// confidence of its equivalence verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AuditOptions {
    /// The bias the "lines needed" estimate is sized for: one item landing at one position
    /// this fraction more often than fair (`0.05` = 5 % more).
    pub bias: f64,
    /// The tolerance (or the per-family defaults) and confidence of the verdict.
    pub equivalence: Equivalence,
}

impl Default for AuditOptions {
    fn default() -> Self {
        Self {
            bias: DEFAULT_BIAS,
            equivalence: Equivalence::default(),
        }
    }
}

impl AuditOptions {
    /// Checked options: `tolerance` (`None` for the per-family defaults) from
    /// [`MIN_TOLERANCE`] to [`MAX_TOLERANCE`], `confidence` in `[0.5, 1)`, `bias` from
    /// [`MIN_BIAS`] to [`MAX_BIAS`], checked in that order.
    ///
    /// # Errors
    ///
    /// [`AuditError::Tolerance`], [`AuditError::Confidence`] or [`AuditError::Bias`] naming the
    /// first bad value.
    ///
    /// ```
    /// use fairdeal_fairness::audit::{AuditError, AuditOptions};
    /// assert!(AuditOptions::new(0.05, Some(0.1), 0.99).is_ok());
    /// let err = AuditOptions::new(0.05, None, 1.0).unwrap_err();
    /// assert_eq!(err, AuditError::Confidence(1.0));
    /// assert_eq!(err.to_string(), "confidence must be at least 0.5 and below 1 (got 1)");
    /// ```
    pub fn new(bias: f64, tolerance: Option<f64>, confidence: f64) -> Result<Self, AuditError> {
        let equivalence = Equivalence::checked(tolerance, confidence)?;
        if !(bias.is_finite() && (MIN_BIAS..=MAX_BIAS).contains(&bias)) {
            return Err(AuditError::Bias(bias));
        }
        Ok(Self { bias, equivalence })
    }
}

impl Equivalence {
    /// The equivalence of a tolerance (`None`: each family's default) and a confidence, both
    /// checked: every judge's options (`fairdeal fairness`, `poker table`, `audit`, and the
    /// values `fairdeal merge` reads from a shard) go through this one check.
    ///
    /// ```
    /// use fairdeal_fairness::{Equivalence, audit::AuditError};
    /// assert!(Equivalence::checked(Some(0.1), 0.99).is_ok());
    /// assert_eq!(Equivalence::checked(Some(0.0), 0.99), Err(AuditError::Tolerance(0.0)));
    /// assert_eq!(Equivalence::checked(None, f64::NAN).unwrap_err().to_string(),
    ///            "confidence must be at least 0.5 and below 1 (got NaN)");
    /// ```
    ///
    /// # Errors
    ///
    /// [`AuditError::Tolerance`] (not a finite fraction from [`MIN_TOLERANCE`] to
    /// [`MAX_TOLERANCE`]) or [`AuditError::Confidence`] (not at least 0.5 and below 1).
    pub fn checked(tolerance: Option<f64>, confidence: f64) -> Result<Equivalence, AuditError> {
        if let Some(t) = tolerance
            && !(t.is_finite() && (MIN_TOLERANCE..=MAX_TOLERANCE).contains(&t))
        {
            return Err(AuditError::Tolerance(t));
        }
        if !(confidence.is_finite() && (0.5..1.0).contains(&confidence)) {
            return Err(AuditError::Confidence(confidence));
        }
        Ok(Equivalence {
            tolerance,
            confidence,
        })
    }
}

/// Permutations fed as lines of text, tallied as they come: the first line fixes the items
/// (and reads as the identity), every later one must order the same items, blank lines count
/// for nothing.
pub struct LineAudit {
    parser: PermutationParser,
    tallies: Option<Vec<NamedTally>>,
    lines: u64,
}

impl fmt::Debug for LineAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineAudit")
            .field("items", &self.parser.items().len())
            .field("lines", &self.lines)
            .finish_non_exhaustive()
    }
}

impl Default for LineAudit {
    fn default() -> Self {
        Self::new()
    }
}

impl LineAudit {
    /// An audit that has seen no lines.
    pub fn new() -> Self {
        Self {
            parser: PermutationParser::new(),
            tallies: None,
            lines: 0,
        }
    }

    /// Counts one line (a trailing `\n` or `\r\n` is allowed); `Ok(false)` for a blank line.
    ///
    /// # Errors
    ///
    /// [`AuditError::Line`] when the line is not a permutation of the first line's items (or
    /// the first line has fewer than 2 or too many items, or a line is longer than
    /// [`MAX_LINE_BYTES`](crate::MAX_LINE_BYTES)).
    pub fn add_line(&mut self, line: &[u8]) -> Result<bool, AuditError> {
        let Some(perm) = self.parser.parse_line(line)? else {
            return Ok(false);
        };
        let tallies = match &mut self.tallies {
            Some(tallies) => tallies,
            None => self.tallies.insert(line_tallies(perm.len())?),
        };
        for (_, tally) in tallies.iter_mut() {
            tally.add(perm)?;
        }
        self.lines += 1;
        Ok(true)
    }

    /// How many permutations were counted.
    pub fn lines(&self) -> u64 {
        self.lines
    }

    /// How many lines were fed, blank ones included.
    pub fn lines_read(&self) -> u64 {
        self.parser.lines_read()
    }

    /// The first line's items, in its order (empty before it).
    pub fn items(&self) -> &[Vec<u8>] {
        self.parser.items()
    }

    /// The battery's verdict on the lines so far, with the tolerance and confidence of
    /// `equivalence` (every test that counted something: the serial test needs two lines).
    ///
    /// # Errors
    ///
    /// [`AuditError::Empty`] before the first permutation.
    pub fn battery(&self, equivalence: &Equivalence) -> Result<BatteryReport, AuditError> {
        let tallies = self.tallies.as_ref().ok_or(AuditError::Empty)?;
        Ok(judge_tallies(
            tallies,
            PASS_THRESHOLD,
            &JudgeConfig::default(),
            equivalence,
        )?)
    }

    /// The report on the lines so far: [`battery`](Self::battery) judged with `options`, read
    /// by [`AuditReport::new`].
    ///
    /// # Errors
    ///
    /// [`AuditError::Empty`] before the first permutation.
    pub fn report(&self, options: &AuditOptions) -> Result<AuditReport, AuditError> {
        let battery = self.battery(&options.equivalence)?;
        AuditReport::new(self, &battery, options.bias)
    }
}

/// The audit's report: what `fairdeal audit --json` prints, field for field and in this order,
/// what its text printer reads, and what the Python module's `AuditReport.to_dict()` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// Fair (every test certifies its tolerance), unfair (a test rejects) or insufficient.
    pub verdict: Verdict,
    /// What the verdict certifies (or lacks, or which test rejected), in words
    /// ([`battery_sentence`]).
    pub statement: String,
    /// About how many lines a fair source needs for every test to certify its tolerance: the
    /// most any insufficient test needs (`None` when no test is insufficient). An unfair
    /// report has it too when some other test is short.
    pub lines_needed: Option<u64>,
    /// The confidence of every certified bound.
    pub confidence: f64,
    /// The permutations counted.
    pub lines: u64,
    /// Items per permutation.
    pub n: usize,
    /// The items, in the first line's order (which numbers them `0..n`), as shown to people
    /// ([`show_item`]).
    pub items: Vec<String>,
    /// The family-wise significance level of an unfair verdict.
    pub alpha: f64,
    /// The multiple-testing correction: `"holm"`.
    pub correction: String,
    /// When unfair: the test with the smallest Holm-adjusted p-value.
    pub decided_by: Option<String>,
    /// Every test that ran, in report order.
    pub tests: Vec<AuditTest>,
    /// The most over-represented item-at-position cells (most first); none that is not over.
    pub over_represented: Vec<AuditCell>,
    /// The most under-represented cells (most first); none that is not under.
    pub under_represented: Vec<AuditCell>,
    /// How many lines would catch the bias the options name.
    pub detection: AuditDetection,
    /// Caveats about the tests' p-values (simulated, or unable to reject at this size).
    pub warnings: Vec<String>,
}

/// One test of an [`AuditReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditTest {
    /// The test's name ([`TestName::name`]).
    pub name: String,
    /// Its statistic (chi-square, or the repeats counted).
    pub statistic: f64,
    /// Its degrees of freedom.
    pub df: u64,
    /// The valid p-value the verdict uses: two-sided where that is valid.
    pub p_value: f64,
    /// The upper-tail p-value.
    pub upper_tail_p_value: f64,
    /// The p-value after Holm's correction over every test.
    pub holm_adjusted_p_value: f64,
    /// The fair expectation per cell of its table.
    pub expected_per_cell: f64,
    /// How the p-value was computed ([`PValueMethod::name`]).
    pub p_value_method: String,
    /// The Monte Carlo replicates, when simulated.
    pub replicates: Option<u64>,
    /// Whether `p_value` is two-sided.
    pub two_sided: bool,
    /// Fair (its bound is within its tolerance), unfair (it rejects) or insufficient.
    pub verdict: Verdict,
    /// At `confidence`, no cell is more than this fraction more or less likely than fair
    /// (`None` for the repeat tests, which bound no cell).
    pub certified_bound: Option<f64>,
    /// The tolerance the bound was judged against.
    pub tolerance: Option<f64>,
    /// When insufficient: about how many lines a fair source needs to certify the tolerance.
    pub lines_needed: Option<u64>,
}

/// One item-at-position cell of the position test's table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditCell {
    /// The item, as shown to people.
    pub item: String,
    /// The position, from 0.
    pub position: usize,
    /// How often the item was there.
    pub observed: u64,
    /// How often a fair shuffle puts it there: `lines / n`.
    pub expected: f64,
    /// `observed / expected - 1`.
    pub deviation: f64,
    /// `(observed - expected) / sqrt(expected)`.
    pub z: f64,
}

/// The power estimate of an [`AuditReport`]: lines needed to catch one item landing at one
/// position `bias` more often than fair, with probability `power`, by the position test at
/// its Holm-corrected level ([`position_trials_needed`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditDetection {
    /// The bias sized for ([`AuditOptions::bias`]).
    pub bias: f64,
    /// The power aimed for ([`POWER`]).
    pub power: f64,
    /// About how many lines catch it.
    pub lines_needed: Option<f64>,
    /// How many more than the report has.
    pub more_lines_needed: Option<f64>,
    /// The bias these lines catch with that power.
    pub detectable_bias_now: Option<f64>,
}

/// Lines needed to catch `bias` with probability [`POWER`] when the position test is one of
/// `tests` Holm-corrected two-sided tests at [`PASS_THRESHOLD`] (so its smallest p-value must
/// pass `PASS_THRESHOLD / tests`, half of it per tail).
///
/// ```
/// use fairdeal_fairness::audit::lines_needed;
/// let small = lines_needed(52, 0.01, 4).unwrap();
/// let large = lines_needed(52, 0.1, 4).unwrap();
/// assert!((small / large - 100.0).abs() < 1e-6); // 10 times the bias: 100 times fewer lines
/// ```
pub fn lines_needed(n: usize, bias: f64, tests: usize) -> Option<f64> {
    position_trials_needed(n, bias, PASS_THRESHOLD / tests.max(1) as f64 / 2.0, POWER)
}

impl AuditReport {
    /// The report of `audit`'s lines judged as `battery` (from [`LineAudit::battery`]), with
    /// the power estimate sized for `bias`.
    ///
    /// # Errors
    ///
    /// [`AuditError::Empty`] when the battery has no position test (no permutation counted).
    pub fn new(audit: &LineAudit, battery: &BatteryReport, bias: f64) -> Result<Self, AuditError> {
        let position = battery.test(TestName::Position).ok_or(AuditError::Empty)?;
        let items = audit.items();
        let n = items.len();
        let lines = audit.lines();
        let (over_represented, under_represented) =
            extremes(items, &position.report.counts, position.report.trials);
        let needed = lines_needed(n, bias, battery.tests.len());
        let mut warnings = Vec::new();
        for test in &battery.tests {
            if test.judgement.method == PValueMethod::MonteCarlo {
                warnings.push(format!(
                    "{}: only {:.1} expected per cell, too few for the chi-square approximation: \
                     its p-value is simulated ({} replicates) and combined with the cells' exact tails{}",
                    test.name,
                    test.report.expected_count(),
                    test.judgement.replicates.unwrap_or(0),
                    if test.has_power {
                        ""
                    } else {
                        ", and cannot reach the level a rejection needs"
                    }
                ));
            }
        }
        let tests: Vec<AuditTest> = battery
            .tests
            .iter()
            .map(|t| AuditTest {
                name: t.name.name().to_owned(),
                statistic: t.report.chi2,
                df: t.report.df,
                p_value: t.p_value,
                upper_tail_p_value: t.report.p_value,
                holm_adjusted_p_value: t.adjusted_p,
                expected_per_cell: t.report.expected_count(),
                p_value_method: t.judgement.method.name().to_owned(),
                replicates: t.judgement.replicates,
                two_sided: t.judgement.two_sided(),
                verdict: t.verdict(),
                certified_bound: t.certified.bound,
                tolerance: t.certified.tolerance,
                // The serial test counts pairs: one line more than its samples.
                lines_needed: t
                    .certified
                    .samples_needed
                    .map(|s| s + u64::from(t.name == TestName::Serial)),
            })
            .collect();
        Ok(Self {
            verdict: battery.verdict,
            statement: battery_sentence(battery, "lines"),
            lines_needed: tests.iter().filter_map(|t| t.lines_needed).max(),
            confidence: battery.equivalence.confidence,
            lines,
            n,
            items: items.iter().map(|t| show_item(t)).collect(),
            alpha: battery.alpha,
            correction: "holm".to_owned(),
            decided_by: (battery.verdict == Verdict::Unfair)
                .then_some(battery.decided_by)
                .flatten()
                .map(|t| t.name().to_owned()),
            tests,
            over_represented,
            under_represented,
            detection: AuditDetection {
                bias,
                power: POWER,
                lines_needed: needed.map(f64::ceil),
                more_lines_needed: needed.map(|l| (l - lines as f64).max(0.0).ceil()),
                detectable_bias_now: needed.map(|l| bias * (l / lines as f64).sqrt()),
            },
            warnings,
        })
    }

    /// The named test's entry, if it ran.
    pub fn test(&self, name: TestName) -> Option<&AuditTest> {
        self.tests.iter().find(|t| t.name == name.name())
    }
}

/// The cells of the position matrix (`counts[item * n + position]`, of `trials` lines) sorted by z-score, the
/// most over-represented first: up to [`EXTREMES`] of them on each side, a cell only on the
/// side it deviates to.
fn extremes(items: &[Vec<u8>], counts: &[u64], trials: u64) -> (Vec<AuditCell>, Vec<AuditCell>) {
    let n = items.len();
    let expected = trials as f64 / n as f64;
    let mut cells: Vec<AuditCell> = counts
        .iter()
        .enumerate()
        .map(|(i, &observed)| AuditCell {
            item: show_item(&items[i / n]),
            position: i % n,
            observed,
            expected,
            deviation: observed as f64 / expected - 1.0,
            z: (observed as f64 - expected) / expected.sqrt(),
        })
        .collect();
    cells.sort_by(|a, b| b.z.total_cmp(&a.z));
    let over = cells
        .iter()
        .filter(|c| c.deviation > 0.0)
        .take(EXTREMES)
        .cloned()
        .collect();
    let under = cells
        .iter()
        .rev()
        .filter(|c| c.deviation < 0.0)
        .take(EXTREMES)
        .cloned()
        .collect();
    (over, under)
}

/// The items' indices in the order to show them (a heatmap's rows): numerically when every
/// item is an integer, else as text, so `0, 1, 2, …` run down the side whatever order the
/// first line had.
///
/// ```
/// use fairdeal_fairness::audit::display_order;
/// let items: Vec<Vec<u8>> = ["10", "9", "-1", "0"].iter().map(|w| w.as_bytes().to_vec()).collect();
/// assert_eq!(display_order(&items), [2, 3, 1, 0]);
/// ```
pub fn display_order(items: &[Vec<u8>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    let numbers: Option<Vec<i128>> = items
        .iter()
        .map(|item| core::str::from_utf8(item).ok()?.parse().ok())
        .collect();
    match numbers {
        Some(numbers) => order.sort_by_key(|&i| numbers[i]),
        None => order.sort_by(|&a, &b| items[a].cmp(&items[b])),
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of `n` items from the wrong-range swap (`swap(i, random index in [0, n))`), driven
    /// by a fixed linear congruential generator.
    fn biased_lines(n: usize, lines: usize) -> Vec<String> {
        let mut state: u64 = 7;
        let mut next = move |bound: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % bound as u64) as usize
        };
        (0..lines)
            .map(|_| {
                let mut a: Vec<usize> = (0..n).collect();
                for i in 0..n {
                    let j = next(n);
                    a.swap(i, j);
                }
                a.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    fn audit_of(lines: &[String]) -> LineAudit {
        let mut audit = LineAudit::new();
        for line in lines {
            assert!(audit.add_line(line.as_bytes()).unwrap());
        }
        audit
    }

    #[test]
    fn the_json_document_has_the_documented_fields_in_order() {
        let report = audit_of(&biased_lines(5, 50))
            .report(&AuditOptions::default())
            .unwrap();
        let text = serde_json::to_string(&report).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        // serde_json's map is sorted unless told otherwise: compare positions in the text.
        let order = [
            "verdict",
            "statement",
            "lines_needed",
            "confidence",
            "lines",
            "n",
            "items",
            "alpha",
            "correction",
            "decided_by",
            "tests",
            "over_represented",
            "under_represented",
            "detection",
            "warnings",
        ];
        assert_eq!(keys.len(), order.len(), "{keys:?}");
        let positions: Vec<usize> = order
            .iter()
            .map(|k| text.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
        let test = &value["tests"][0];
        for key in [
            "verdict",
            "certified_bound",
            "tolerance",
            "lines_needed",
            "holm_adjusted_p_value",
        ] {
            assert!(test.get(key).is_some(), "{key} missing from {test}");
        }
        assert!(test.get("has_power").is_none() && test.get("fair").is_none());
        // The document reads back as a report.
        let back: AuditReport = serde_json::from_str(&text).unwrap();
        assert_eq!(
            (back.verdict, back.lines, back.tests.len()),
            (report.verdict, 50, 4)
        );
    }

    #[test]
    fn the_wrong_range_swap_is_unfair_from_enough_lines_and_never_fair_on_few() {
        let few = audit_of(&biased_lines(5, 200))
            .report(&AuditOptions::default())
            .unwrap();
        assert_ne!(few.verdict, Verdict::Fair);
        let many = audit_of(&biased_lines(5, 5_000))
            .report(&AuditOptions::default())
            .unwrap();
        assert_eq!(many.verdict, Verdict::Unfair, "{}", many.statement);
        assert!(many.statement.starts_with("UNFAIR: decided by the "));
        assert!(many.decided_by.is_some());
        assert!(many.tests.iter().any(|t| t.verdict == Verdict::Unfair));
        // A cell is listed on the side it deviates to, never on the other (P25).
        assert!(many.over_represented.iter().all(|c| c.deviation > 0.0));
        assert!(many.under_represented.iter().all(|c| c.deviation < 0.0));
        assert_eq!(many.over_represented.len(), EXTREMES);
    }

    #[test]
    fn the_options_are_checked_with_the_cli_messages() {
        assert_eq!(
            AuditOptions::new(0.0, None, 0.99).unwrap_err().to_string(),
            "bias must be a fraction from 0.0001 to 10 (got 0.000e0)"
        );
        assert_eq!(
            AuditOptions::new(0.05, Some(f64::NAN), 0.99)
                .unwrap_err()
                .to_string(),
            "tolerance must be a fraction from 0.0001 to 10 (got NaN)"
        );
        let options = AuditOptions::new(0.02, Some(0.3), 0.99).unwrap();
        let report = audit_of(&biased_lines(4, 100)).report(&options).unwrap();
        assert_eq!(report.confidence, 0.99);
        assert_eq!(report.detection.bias, 0.02);
        assert!(report.tests.iter().all(|t| t.tolerance == Some(0.3)));
    }

    #[test]
    fn no_permutation_is_an_error_and_a_bad_line_names_itself() {
        let mut audit = LineAudit::new();
        assert!(!audit.add_line(b"\n").unwrap());
        assert_eq!(
            audit.report(&AuditOptions::default()).unwrap_err(),
            AuditError::Empty
        );
        audit.add_line(b"a b c\n").unwrap();
        let err = audit.add_line(b"a a c\n").unwrap_err();
        assert_eq!(err.to_string(), "line 3: item 'a' appears twice");
    }

    #[test]
    fn items_are_drawn_in_numeric_or_text_order() {
        let items = |words: &[&str]| -> Vec<Vec<u8>> {
            words.iter().map(|w| w.as_bytes().to_vec()).collect()
        };
        assert_eq!(display_order(&items(&["10", "9", "-1", "0"])), [2, 3, 1, 0]);
        assert_eq!(display_order(&items(&["b", "10", "a"])), [1, 2, 0]);
    }
}
