//! `fairdeal.audit`: the judge of `fairdeal audit`, fed lines from Python.
//!
//! The lines go through the CLI's parser (`PermutationParser`: the first line fixes the items)
//! and the battery's tallies for lines (`line_tallies`, `judge_tallies`), and the report is the
//! document `fairdeal audit --json` prints, field for field (the CLI keeps its JSON types
//! private, so they are restated here; `python/tests/test_audit.py` compares the two).

use fairdeal::fairness::{
    FairnessReport, JudgeConfig, NamedTally, PASS_THRESHOLD, PValueMethod, PermutationParser,
    TestName, Verdict, judge_tallies, line_tallies, position_trials_needed, show_item,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::{Value, json};

/// How many over- and under-represented cells the report lists (the CLI's `EXTREMES`).
const EXTREMES: usize = 5;
/// The detection power the "lines needed" estimate aims for (the CLI's `POWER`).
const POWER: f64 = 0.9;
/// The range of `bias` (the CLI's `--bias` bounds).
const MIN_BIAS: f64 = 1e-4;
const MAX_BIAS: f64 = 10.0;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Permutations fed as text lines, tallied as they come (O(n²) memory, never O(lines)).
#[pyclass(unsendable, module = "fairdeal._native")]
pub(crate) struct Auditor {
    parser: PermutationParser,
    tallies: Option<Vec<NamedTally>>,
    lines: u64,
}

#[pymethods]
impl Auditor {
    #[new]
    fn new() -> Self {
        Self {
            parser: PermutationParser::new(),
            tallies: None,
            lines: 0,
        }
    }

    /// Counts every line of `text` (lines end with `\n`; blank lines count for nothing).
    fn feed(&mut self, text: &[u8]) -> PyResult<()> {
        for line in text.split_inclusive(|&b| b == b'\n') {
            let Some(perm) = self.parser.parse_line(line).map_err(value_error)? else {
                continue;
            };
            let tallies = match &mut self.tallies {
                Some(t) => t,
                None => self
                    .tallies
                    .insert(line_tallies(perm.len()).map_err(value_error)?),
            };
            for (_, tally) in tallies.iter_mut() {
                tally.add(perm).map_err(value_error)?;
            }
            self.lines += 1;
        }
        Ok(())
    }

    /// The report of `fairdeal audit --json --bias BIAS`, as JSON text.
    fn report(&self, bias: f64) -> PyResult<String> {
        if !(bias.is_finite() && (MIN_BIAS..=MAX_BIAS).contains(&bias)) {
            return Err(PyValueError::new_err(format!(
                "bias must be a fraction from {MIN_BIAS} to {MAX_BIAS} (got {bias:.3e})"
            )));
        }
        let tallies = self
            .tallies
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("the input holds no permutations"))?;
        let battery =
            judge_tallies(tallies, PASS_THRESHOLD, &JudgeConfig::default()).map_err(value_error)?;
        let position = battery
            .test(TestName::Position)
            .ok_or_else(|| PyValueError::new_err("the position test did not run"))?;
        let items = self.parser.items();
        let n = items.len();
        let (over, under) = extremes(items, &position.report);
        let needed = position_trials_needed(
            n,
            bias,
            PASS_THRESHOLD / battery.tests.len().max(1) as f64 / 2.0,
            POWER,
        );
        let detectable_now = needed.map(|lines| bias * (lines / self.lines as f64).sqrt());
        let mut warnings = Vec::new();
        for test in &battery.tests {
            if test.judgement.method == PValueMethod::MonteCarlo {
                warnings.push(format!(
                    "{}: only {:.1} expected per cell, too few for the chi-square \
                     approximation: its p-value is simulated ({} replicates){}",
                    test.name,
                    test.report.expected_count(),
                    test.judgement.replicates.unwrap_or(0),
                    if test.has_power {
                        ""
                    } else {
                        ", and cannot reach the verdict's level"
                    }
                ));
            }
        }
        let tests: Vec<Value> = battery
            .tests
            .iter()
            .map(|t| {
                json!({
                    "name": t.name.name(),
                    "statistic": t.report.chi2,
                    "df": t.report.df,
                    "p_value": t.p_value,
                    "upper_tail_p_value": t.report.p_value,
                    "holm_adjusted_p_value": t.adjusted_p,
                    "expected_per_cell": t.report.expected_count(),
                    "p_value_method": t.judgement.method.name(),
                    "replicates": t.judgement.replicates,
                    "two_sided": t.judgement.two_sided(),
                    "has_power": t.has_power,
                    "verdict": if t.fair { "fair" } else { "unfair" },
                })
            })
            .collect();
        let report = json!({
            "verdict": battery.verdict.name(),
            // The serial test counts pairs: one line more than its samples.
            "lines_needed_to_judge": battery.samples_needed.map(|s| s + 1),
            "lines": self.lines,
            "n": n,
            "items": items.iter().map(|t| show_item(t)).collect::<Vec<_>>(),
            "alpha": battery.alpha,
            "correction": "holm",
            "decided_by": (battery.verdict == Verdict::Unfair)
                .then_some(battery.decided_by)
                .flatten()
                .map(TestName::name),
            "tests": tests,
            "over_represented": over,
            "under_represented": under,
            "detection": {
                "bias": bias,
                "power": POWER,
                "lines_needed": needed.map(f64::ceil),
                "more_lines_needed": needed.map(|l| (l - self.lines as f64).max(0.0).ceil()),
                "detectable_bias_now": detectable_now,
            },
            "warnings": warnings,
        });
        Ok(report.to_string())
    }
}

/// The cells of the position matrix sorted by z-score: the most over-represented first.
fn extremes(items: &[Vec<u8>], report: &FairnessReport) -> (Vec<Value>, Vec<Value>) {
    let n = items.len();
    let expected = report.trials as f64 / n as f64;
    let mut cells: Vec<(f64, Value)> = report
        .counts
        .iter()
        .enumerate()
        .map(|(i, &observed)| {
            let z = (observed as f64 - expected) / expected.sqrt();
            let cell = json!({
                "item": show_item(&items[i / n]),
                "position": i % n,
                "observed": observed,
                "expected": expected,
                "deviation": observed as f64 / expected - 1.0,
                "z": z,
            });
            (z, cell)
        })
        .collect();
    cells.sort_by(|a, b| b.0.total_cmp(&a.0));
    let over = cells.iter().take(EXTREMES).map(|c| c.1.clone()).collect();
    let under = cells
        .iter()
        .rev()
        .take(EXTREMES)
        .map(|c| c.1.clone())
        .collect();
    (over, under)
}

/// Adds the audit class to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Auditor>()
}
