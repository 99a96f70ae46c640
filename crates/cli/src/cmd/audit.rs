//! `fairdeal audit`: judge permutations written by any program.
//!
//! One permutation per line, items separated by whitespace or commas, items any tokens. The
//! first line fixes the items and numbers them in its order (so the first line reads as the
//! identity); every later line must order exactly the same items. The lines stream through
//! `fairdeal-fairness`'s tallies — memory is O(n²) for the counts, never O(lines) — and the
//! battery's tests that apply to such data run at the end: the permutation test (n ≤ 8), the
//! position test, the serial test (consecutive lines), the adjacency test (n ≥ 3) and, above 8
//! items, the repeat tests (repeated whole orders and leading 5- and 7-item hands, which
//! remember up to `MAX_REPEAT_LINES` lines), combined with Holm's correction. The lines and the
//! report are `fairdeal_fairness::audit`'s (`LineAudit`, `AuditReport`): `--json` prints that
//! value and the text below reads it, as the Python module does; this file reads the input,
//! shows progress, draws the plot and prints. The exit status is `crate::verdict`'s.

use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::path::PathBuf;

use anyhow::Context as _;
use fairdeal::fairness::audit::{
    AuditCell, AuditError, AuditOptions, AuditReport, DEFAULT_BIAS, LineAudit, display_order,
};
use fairdeal::fairness::{MAX_LINE_BYTES, TestName, show_item, statement};
use indicatif::{ProgressBar, ProgressStyle};

use crate::cmd::heatmap::{self, Heatmap};
use fairdeal_cli::args::PlotArg;

use crate::common::{
    Table, format_p, is_stdin, plural, print_json, status_after_write, stdout, usage,
};
use crate::verdict::EquivalenceArgs;

/// Lines between progress-bar updates.
const PROGRESS_EVERY: u64 = 16_384;

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
    #[arg(long, value_name = "FRACTION", default_value_t = DEFAULT_BIAS)]
    bias: f64,

    #[command(flatten)]
    equivalence: EquivalenceArgs,
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
fn read_all(reader: &mut impl BufRead, bar: &ProgressBar) -> anyhow::Result<LineAudit> {
    let mut line = Vec::with_capacity(4096);
    let mut audit = LineAudit::new();
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
        if audit.lines_read().is_multiple_of(PROGRESS_EVERY) {
            bar.set_message(format!("{} lines", audit.lines_read()));
        }
        audit.add_line(&line)?;
    }
    if audit.lines() == 0 {
        return Err(AuditError::Empty.into());
    }
    Ok(audit)
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
    let options = AuditOptions::new(bias, equivalence.tolerance, equivalence.confidence)
        .map_err(|e| usage(format!("--{e}")))?;
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
        let file = crate::closed_stdio::open(&input)
            .with_context(|| format!("cannot open '{}'", input.display()))?;
        let len = file.metadata().ok().map(|m| m.len());
        let bar = progress(len);
        let audit = read_all(&mut BufReader::with_capacity(1 << 16, file), &bar);
        bar.finish_and_clear();
        audit.with_context(|| format!("'{}'", input.display()))?
    };
    let battery = audit.battery(&options.equivalence)?;
    let report = AuditReport::new(&audit, &battery, options.bias)?;

    if let Some(path) = &plot {
        let position = battery
            .test(TestName::Position)
            .context("the position test always runs")?;
        let n = report.n;
        let items = audit.items();
        // Rows in the items' natural order, so that 0, 1, 2, … run down the side and a bias
        // towards staying put is a diagonal, whatever order the first line happened to have.
        let order = display_order(items);
        let labels: Vec<String> = order.iter().map(|&i| show_item(&items[i])).collect();
        let counts: Vec<u64> = order
            .iter()
            .flat_map(|&i| &position.report.counts[i * n..(i + 1) * n])
            .copied()
            .collect();
        heatmap::write(
            &Heatmap {
                title: format!(
                    "audit of {}: {} lines of {n} items, verdict {}",
                    if is_stdin(&input) {
                        "standard input".to_owned()
                    } else {
                        input.display().to_string()
                    },
                    report.lines,
                    report.verdict.name().to_uppercase()
                ),
                n,
                counts: &counts,
                expected: position.report.trials as f64 / n as f64,
                skip_diagonal: false,
                row_axis: "item",
                column_axis: "position",
                labels: Some(&labels),
                columns_are_elements: false,
            },
            path,
        )?;
    }

    let written = if json {
        print_json(&report)
    } else {
        let mut out = stdout();
        write_text(&mut out, &report)
            .and_then(|()| out.flush())
            .map_err(anyhow::Error::from)
    };
    status_after_write(crate::verdict::finish(report.verdict), written)
}

/// The report for people: the same value `--json` prints.
fn write_text(out: &mut impl Write, report: &AuditReport) -> io::Result<()> {
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
                    t.name.clone(),
                    format!("{:.1}", t.statistic),
                    t.df.to_string(),
                    format_p(t.p_value),
                    format!(
                        "{}{}, {}",
                        t.p_value_method,
                        t.replicates
                            .map_or_else(String::new, |r| format!(" ({r}, exact cell tails)")),
                        if t.two_sided {
                            "two-sided"
                        } else {
                            "one-sided"
                        }
                    ),
                    format_p(t.holm_adjusted_p_value),
                    t.certified_bound
                        .map_or_else(|| "-".to_owned(), statement::percent),
                    t.tolerance
                        .map_or_else(|| "-".to_owned(), statement::percent),
                    t.verdict.name().to_owned(),
                ]
            })
            .collect(),
    }
    .write(out)?;
    writeln!(out)?;
    let cell_rows = |cells: &[AuditCell]| -> Vec<Vec<String>> {
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
        statement::confidence(report.confidence)
    )?;
    writeln!(out, "verdict: {}", report.statement)
}
