//! `fairdeal audit`: judge permutations written by any program.
//!
//! One permutation per line, items separated by whitespace or commas, items any tokens. The
//! first line fixes the items and numbers them in its order (so the first line reads as the
//! identity); every later line must order exactly the same items. The lines stream through
//! `fairdeal-fairness`'s tallies — memory is O(n²) for the counts, never O(lines) — and the
//! battery's tests that apply to such data run at the end: the permutation test (n ≤ 8), the
//! position test, the serial test (consecutive lines), the adjacency test (n ≥ 3) and, above 8
//! items, the repeat tests (repeated whole orders and leading 5- and 7-item hands, which
//! remember up to `MAX_REPEAT_LINES` lines), combined with Holm's correction. The verdict and
//! its exit status are `crate::verdict`'s.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use fairdeal::fairness::{
    BatteryReport, Equivalence, FairnessReport, JudgeConfig, MAX_LINE_BYTES, PASS_THRESHOLD,
    PValueMethod, PermutationParser, Tally, TestName, judge_tallies, line_tallies,
    position_trials_needed, show_item,
};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::cmd::heatmap::{self, Heatmap};
use fairdeal_cli::args::PlotArg;

use crate::common::{Table, format_p, is_stdin, plural, print_json, stdout, usage};
use crate::verdict::{EquivalenceArgs, battery_sentence, percent};

/// Lines between progress-bar updates.
const PROGRESS_EVERY: u64 = 16_384;

/// How many over- and under-represented cells the report lists.
const EXTREMES: usize = 5;

/// The smallest `--bias`: a 0.01 % excess needs about 10^12 lines, beyond any file.
const MIN_BIAS: f64 = 1e-4;

/// The largest `--bias`: ten times the fair rate.
const MAX_BIAS: f64 = 10.0;

/// The detection power the "lines needed" estimate aims for.
const POWER: f64 = 0.9;

/// Arguments of `fairdeal audit`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = concat!("Input: one permutation per line, items separated by spaces, tabs or \
    commas; items may be numbers, card names or any words, and a line may be a Python list or \
    JSON array (`[0, 1, 2]`, `[\"As\", \"Kd\"]`). Every line must hold the same items as the \
    first.\n\nVerdict: FAIR when, at the stated confidence, the lines bound every order, item at \
    a position and pair of neighbours within the tolerance of a fair shuffle (the report states \
    the bound); UNFAIR when a test rejects; INSUFFICIENT when neither (the report says about \
    how many lines would certify the tolerance).\n",
    crate::verdict::exit_status_help!(), "\n\nExamples:\n  \
    python3 -c 'import random\nfor _ in range(100000):\n    l = list(range(10)); random.shuffle(l); print(*l)' | fairdeal audit\n  \
    fairdeal audit deals.txt --json\n  \
    fairdeal audit deals.csv --plot bias.svg --bias 0.02"),
    mut_arg("plot", |a| a.help(
        "Also write an SVG heatmap of item × position, coloured by deviation from fair"
    ))
)]
pub(crate) struct Args {
    /// The file of permutations, or `-` (the default) for standard input.
    #[arg(value_name = "FILE|-", default_value = "-")]
    input: PathBuf,

    /// Print the report as JSON.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    plot: PlotArg,

    /// The bias to size the "lines needed" estimate for: one item landing at one position this
    /// fraction more often than a fair shuffle would (0.05 = 5% more).
    #[arg(long, value_name = "FRACTION", default_value_t = 0.05)]
    bias: f64,

    #[command(flatten)]
    equivalence: EquivalenceArgs,
}

/// The first line's items and the tallies every line feeds.
struct Audit {
    items: Vec<Vec<u8>>,
    lines: u64,
    tallies: Vec<(TestName, Box<dyn Tally>)>,
}

impl Audit {
    /// Empty tallies for permutations of `n` items (`2 <= n <= MAX_POSITION_N`, which the
    /// parser guarantees): the library's choice of tests for lines ([`line_tallies`]).
    fn new(n: usize) -> anyhow::Result<Self> {
        Ok(Self {
            items: Vec::new(),
            lines: 0,
            tallies: line_tallies(n)?,
        })
    }

    fn n(&self) -> usize {
        self.items.len()
    }

    /// Counts one permutation of `[0, n)` (the parser's output, which the tallies accept).
    fn count(&mut self, perm: &[usize]) -> anyhow::Result<()> {
        for (_, tally) in &mut self.tallies {
            tally.add(perm)?;
        }
        self.lines += 1;
        Ok(())
    }

    /// Every test that counted something (the serial test needs two lines), judged together.
    fn battery(&self, equivalence: &Equivalence) -> anyhow::Result<BatteryReport> {
        Ok(judge_tallies(
            &self.tallies,
            PASS_THRESHOLD,
            &JudgeConfig::default(),
            equivalence,
        )?)
    }
}

/// A progress display on a terminal: a byte bar for a file, a line counter for a pipe.
fn progress(file_len: Option<u64>) -> ProgressBar {
    if !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    match file_len {
        Some(len) => {
            let bar = ProgressBar::new(len);
            if let Ok(style) = ProgressStyle::with_template(
                "auditing [{bar:40}] {binary_bytes}/{binary_total_bytes} ({eta})",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar
        }
        None => {
            let bar = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("auditing {spinner} {msg}") {
                bar.set_style(style);
            }
            bar
        }
    }
}

/// Reads every line, counting as it goes.
fn read_all(reader: &mut impl BufRead, bar: &ProgressBar) -> anyhow::Result<Audit> {
    let mut line = Vec::with_capacity(4096);
    let mut parser = PermutationParser::new();
    let mut audit: Option<Audit> = None;
    loop {
        line.clear();
        // The parser refuses a line longer than MAX_LINE_BYTES (plus its "\r\n"), so reading
        // one byte more than that is enough to know, and memory stays bounded.
        let read = reader
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 3)
            .read_until(b'\n', &mut line)
            .context("cannot read the input")?;
        if read == 0 {
            break;
        }
        bar.inc(read as u64);
        if parser.lines_read().is_multiple_of(PROGRESS_EVERY) {
            bar.set_message(format!("{} lines", parser.lines_read()));
        }
        let Some(perm) = parser.parse_line(&line)? else {
            continue; // blank lines separate nothing and count for nothing
        };
        let audit = match &mut audit {
            Some(audit) => audit,
            None => audit.insert(Audit::new(perm.len())?),
        };
        audit.count(perm)?;
    }
    let mut audit = audit.context("the input holds no permutations")?;
    audit.items = parser.items().to_vec();
    Ok(audit)
}

/// Lines needed to catch `bias` with probability [`POWER`] when the position test is one of
/// `tests` Holm-corrected two-sided tests at [`PASS_THRESHOLD`] (so its smallest p-value must
/// pass `PASS_THRESHOLD / tests`, half of it per tail).
fn lines_needed(n: usize, bias: f64, tests: usize) -> Option<f64> {
    position_trials_needed(n, bias, PASS_THRESHOLD / tests.max(1) as f64 / 2.0, POWER)
}

/// The JSON document `--json` prints.
#[derive(Debug, Serialize)]
struct JsonReport {
    verdict: &'static str,
    /// What the verdict certifies (or lacks, or which test rejected), as the text prints it.
    statement: String,
    /// When insufficient: about how many lines a fair source needs to certify the tolerance.
    lines_needed: Option<u64>,
    /// The confidence of every certified bound.
    confidence: f64,
    lines: u64,
    n: usize,
    items: Vec<String>,
    alpha: f64,
    correction: &'static str,
    decided_by: Option<&'static str>,
    tests: Vec<JsonTest>,
    over_represented: Vec<JsonCell>,
    under_represented: Vec<JsonCell>,
    detection: JsonDetection,
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct JsonTest {
    name: &'static str,
    statistic: f64,
    df: u64,
    /// Two-sided: what the verdict uses.
    p_value: f64,
    upper_tail_p_value: f64,
    holm_adjusted_p_value: f64,
    expected_per_cell: f64,
    p_value_method: &'static str,
    replicates: Option<u64>,
    two_sided: bool,
    /// Fair (its bound is within its tolerance), unfair (it rejects) or insufficient.
    verdict: &'static str,
    /// At `confidence`, no cell is more than this fraction more or less likely than fair
    /// (`null` for the repeat tests, which bound no cell).
    certified_bound: Option<f64>,
    tolerance: Option<f64>,
    /// When insufficient: about how many lines a fair source needs to certify the tolerance.
    lines_needed: Option<u64>,
}

#[derive(Debug, Serialize, Clone)]
struct JsonCell {
    item: String,
    position: usize,
    observed: u64,
    expected: f64,
    deviation: f64,
    z: f64,
}

#[derive(Debug, Serialize)]
struct JsonDetection {
    bias: f64,
    power: f64,
    lines_needed: Option<f64>,
    more_lines_needed: Option<f64>,
    detectable_bias_now: Option<f64>,
}

/// The cells of the position matrix sorted by z-score: the most over-represented first.
fn extremes(audit: &Audit, report: &FairnessReport) -> (Vec<JsonCell>, Vec<JsonCell>) {
    let n = audit.n();
    let expected = report.trials as f64 / n as f64;
    let mut cells: Vec<JsonCell> = report
        .counts
        .iter()
        .enumerate()
        .map(|(i, &observed)| JsonCell {
            item: show_item(&audit.items[i / n]),
            position: i % n,
            observed,
            expected,
            deviation: observed as f64 / expected - 1.0,
            z: (observed as f64 - expected) / expected.sqrt(),
        })
        .collect();
    cells.sort_by(|a, b| b.z.total_cmp(&a.z));
    // A cell is listed on the side it deviates to, never on the other.
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

/// The items' indices sorted for display: numerically when every item is an integer, else
/// as text.
fn display_order(items: &[Vec<u8>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    let numbers: Option<Vec<i128>> = items
        .iter()
        .map(|item| std::str::from_utf8(item).ok()?.parse().ok())
        .collect();
    match numbers {
        Some(numbers) => order.sort_by_key(|&i| numbers[i]),
        None => order.sort_by(|&a, &b| items[a].cmp(&items[b])),
    }
    order
}

/// Runs `fairdeal audit`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let Args {
        input,
        json,
        plot: PlotArg { plot },
        bias,
        equivalence,
    } = args;
    let equivalence = equivalence.equivalence()?;
    if !(bias.is_finite() && (MIN_BIAS..=MAX_BIAS).contains(&bias)) {
        return Err(usage(format!(
            "--bias must be a fraction from {MIN_BIAS} to {MAX_BIAS} (got {bias:.3e})"
        )));
    }
    if let Some(path) = &plot {
        heatmap::check_svg_path(path)?;
        if !is_stdin(&input) {
            heatmap::check_not_input(path, &input)?;
        }
    }
    let audit = if is_stdin(&input) {
        let bar = progress(None);
        let audit = read_all(&mut io::BufReader::new(crate::closed_stdio::stdin()), &bar);
        bar.finish_and_clear();
        audit?
    } else {
        let file =
            File::open(&input).with_context(|| format!("cannot open '{}'", input.display()))?;
        let len = file.metadata().ok().map(|m| m.len());
        let bar = progress(len);
        let audit = read_all(&mut BufReader::with_capacity(1 << 16, file), &bar);
        bar.finish_and_clear();
        audit.with_context(|| format!("'{}'", input.display()))?
    };
    let battery = audit.battery(&equivalence)?;
    let position = battery
        .test(TestName::Position)
        .context("the position test always runs")?;
    let (over, under) = extremes(&audit, &position.report);
    let n = audit.n();
    let needed = lines_needed(n, bias, battery.tests.len());
    let detectable_now = needed.map(|lines| bias * (lines / audit.lines as f64).sqrt());
    let mut warnings = Vec::new();
    for test in &battery.tests {
        if test.judgement.method == PValueMethod::MonteCarlo {
            warnings.push(format!(
                "{}: only {:.1} expected per cell, too few for the chi-square approximation: \
                 its p-value is simulated ({} replicates){}",
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

    if let Some(path) = &plot {
        // Rows in the items' natural order, so that 0, 1, 2, … run down the side and a bias
        // towards staying put is a diagonal, whatever order the first line happened to have.
        let order = display_order(&audit.items);
        let labels: Vec<String> = order.iter().map(|&i| show_item(&audit.items[i])).collect();
        let counts: Vec<u64> = order
            .iter()
            .flat_map(|&i| &position.report.counts[i * n..(i + 1) * n])
            .copied()
            .collect();
        Heatmap {
            title: format!(
                "audit of {}: {} lines of {n} items, verdict {}",
                if is_stdin(&input) {
                    "standard input".to_owned()
                } else {
                    input.display().to_string()
                },
                audit.lines,
                battery.verdict.name().to_uppercase()
            ),
            n,
            counts: &counts,
            expected: position.report.trials as f64 / n as f64,
            skip_diagonal: false,
            row_axis: "item",
            column_axis: "position",
            labels: Some(&labels),
            columns_are_elements: false,
        }
        .write(path)?;
    }

    let json_tests: Vec<JsonTest> = battery
        .tests
        .iter()
        .map(|t| JsonTest {
            name: t.name.name(),
            statistic: t.report.chi2,
            df: t.report.df,
            p_value: t.p_value,
            upper_tail_p_value: t.report.p_value,
            holm_adjusted_p_value: t.adjusted_p,
            expected_per_cell: t.report.expected_count(),
            p_value_method: t.judgement.method.name(),
            replicates: t.judgement.replicates,
            two_sided: t.judgement.two_sided(),
            verdict: t.verdict().name(),
            certified_bound: t.certified.bound,
            tolerance: t.certified.tolerance,
            // The serial test counts pairs: one line more than its samples.
            lines_needed: t
                .certified
                .samples_needed
                .map(|s| s + u64::from(t.name == TestName::Serial)),
        })
        .collect();
    let detection = JsonDetection {
        bias,
        power: POWER,
        lines_needed: needed.map(f64::ceil),
        more_lines_needed: needed.map(|lines| (lines - audit.lines as f64).max(0.0).ceil()),
        detectable_bias_now: detectable_now,
    };
    let report = JsonReport {
        verdict: battery.verdict.name(),
        statement: battery_sentence(&battery, n, "lines"),
        lines_needed: json_tests.iter().filter_map(|t| t.lines_needed).max(),
        confidence: equivalence.confidence,
        lines: audit.lines,
        n,
        items: audit.items.iter().map(|t| show_item(t)).collect(),
        alpha: battery.alpha,
        correction: "holm",
        decided_by: (battery.verdict == fairdeal::fairness::Verdict::Unfair)
            .then_some(battery.decided_by)
            .flatten()
            .map(TestName::name),
        tests: json_tests,
        over_represented: over,
        under_represented: under,
        detection,
        warnings,
    };
    if json {
        print_json(&report)?;
    } else {
        let mut out = stdout();
        write_text(&mut out, &report)?;
        out.flush()?;
    }
    crate::verdict::finish(battery.verdict)
}

fn write_text(out: &mut impl Write, report: &JsonReport) -> io::Result<()> {
    let preview: Vec<&str> = report.items.iter().take(8).map(String::as_str).collect();
    writeln!(
        out,
        "{} of {} items ({}{})",
        plural(report.lines, "permutation", "permutations"),
        report.n,
        preview.join(" "),
        if report.n > 8 { " …" } else { "" }
    )?;
    writeln!(out)?;
    Table {
        header: vec![
            "test",
            "statistic",
            "df",
            "p",
            "method",
            "Holm-adjusted",
            "bound",
            "tolerance",
            "verdict",
        ],
        rows: report
            .tests
            .iter()
            .map(|t| {
                vec![
                    t.name.to_owned(),
                    format!("{:.1}", t.statistic),
                    t.df.to_string(),
                    format_p(t.p_value),
                    format!(
                        "{}{}, {}",
                        t.p_value_method,
                        t.replicates.map_or_else(String::new, |r| format!(" ({r})")),
                        if t.two_sided {
                            "two-sided"
                        } else {
                            "one-sided"
                        }
                    ),
                    format_p(t.holm_adjusted_p_value),
                    t.certified_bound.map_or_else(|| "-".to_owned(), percent),
                    t.tolerance.map_or_else(|| "-".to_owned(), percent),
                    t.verdict.to_owned(),
                ]
            })
            .collect(),
    }
    .write(out)?;
    writeln!(out)?;
    let cell_rows = |cells: &[JsonCell]| -> Vec<Vec<String>> {
        cells
            .iter()
            .map(|c| {
                vec![
                    format!("{} at position {}", c.item, c.position),
                    c.observed.to_string(),
                    format!("{:.1}", c.expected),
                    format!("{:+.2}%", c.deviation * 100.0),
                    format!("{:+.2}", c.z),
                ]
            })
            .collect()
    };
    let header = vec!["item at position", "count", "expected", "deviation", "z"];
    writeln!(out, "most over-represented:")?;
    Table {
        header: header.clone(),
        rows: cell_rows(&report.over_represented),
    }
    .write(out)?;
    writeln!(out, "most under-represented:")?;
    Table {
        header,
        rows: cell_rows(&report.under_represented),
    }
    .write(out)?;
    writeln!(out)?;
    let d = &report.detection;
    if let (Some(needed), Some(more), Some(now)) =
        (d.lines_needed, d.more_lines_needed, d.detectable_bias_now)
    {
        writeln!(
            out,
            "power: to catch one item landing at one position {:.1}% more often than fair \
             ({:.0}% of the time), about {needed:.0} lines are needed ({}); these {} catch \
             about {:.2}% or more",
            d.bias * 100.0,
            d.power * 100.0,
            if more > 0.0 {
                format!("{more:.0} more")
            } else {
                "you have them".to_owned()
            },
            plural(report.lines, "line", "lines"),
            now * 100.0
        )?;
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {warning}")?;
    }
    writeln!(
        out,
        "bound: at {} confidence, no cell of the test is more than this much more or less \
         likely than under a fair shuffle (simultaneous Clopper–Pearson intervals)",
        crate::verdict::confidence(report.confidence)
    )?;
    writeln!(out, "verdict: {}", report.statement)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_drawn_in_numeric_or_text_order() {
        let items = |words: &[&str]| -> Vec<Vec<u8>> {
            words.iter().map(|w| w.as_bytes().to_vec()).collect()
        };
        assert_eq!(display_order(&items(&["10", "9", "-1", "0"])), [2, 3, 1, 0]);
        assert_eq!(display_order(&items(&["b", "10", "a"])), [1, 2, 0]);
    }

    #[test]
    fn more_bias_needs_fewer_lines() {
        let small = lines_needed(52, 0.01, 4).unwrap();
        let large = lines_needed(52, 0.1, 4).unwrap();
        assert!((small / large - 100.0).abs() < 1e-6, "{small} {large}");
        assert!(large > 1_000.0 && large < 1e7, "{large}");
    }
}
