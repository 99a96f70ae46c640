//! `cargo xtask calibrate`: do the judges' verdicts mean what they say?
//!
//! A driver: the statistics live in `fairdeal_fairness::calibration` (false alarms on fair data
//! of every shape, known-bad sources, the power table); this file picks the generators and
//! shufflers the sources run on, parses the flags, shows progress, prints the tables and
//! writes the Markdown one. Everything is seeded: the same command prints the same tables.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use fairdeal::fairness::calibration::{
    self, BadRow, BadSource, CoinFlipSort, ConsecutiveSeeds, DialSource, FALSE_ALARM_SHAPES,
    FalseAlarmConfig, FalseAlarmRow, LineSource, PowerConfig, PowerRow, PowerShape, RepeatedDeals,
    SeedBits, Shuffled, Unshuffled,
};
use fairdeal::fairness::{PASS_THRESHOLD, TestName};
use fairdeal::rng::Backend;
use fairdeal::rng::backend::{ChaCha12, Java};
use fairdeal::{Biased, Inplace};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use crate::machine::Machine;

/// Which tables to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Only {
    /// The false-alarm and bad-source tables and the power table.
    All,
    /// The false-alarm and bad-source tables.
    Calibration,
    /// The power table.
    Power,
}

/// Arguments of `cargo xtask calibrate`.
#[derive(Debug, clap::Args)]
pub(crate) struct CalibrateArgs {
    /// Fair data sets per shape (fewer for the largest shapes, so the run stays minutes).
    #[arg(long, default_value_t = 200)]
    runs: u64,
    /// Significance level of the false-alarm table.
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// Data sets per known-bad source.
    #[arg(long, default_value_t = 10)]
    bad_runs: u64,
    /// Monte Carlo replicates of the sparse tests.
    #[arg(long, default_value_t = 199)]
    replicates: u64,
    /// Power table: data sets per mixture weight (the power's resolution: 99 % power means at
    /// most 1 miss in 100).
    #[arg(long, default_value_t = 100)]
    power_replicates: u64,
    /// Power table: lines per data set, every shape (comma-separated: each is a row group).
    #[arg(
        long,
        value_name = "N,…",
        value_delimiter = ',',
        default_value = "1000,10000,100000"
    )]
    power_lines: Vec<u64>,
    /// Power table: the smallest mixture weight tried (weights go down from 1 by sqrt(2)).
    #[arg(long, default_value_t = 1.0 / 4096.0)]
    power_min_weight: f64,
    /// Which tables to compute.
    #[arg(long, value_enum, default_value_t = Only::All)]
    only: Only,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
    /// Write the power table as Markdown (with the command, machine and run time) into this
    /// file: between `<!-- power-table:begin -->` and `<!-- power-table:end -->` when the file
    /// has those lines (docs/quality.md), else the whole file.
    #[arg(long, value_name = "PATH")]
    markdown: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Report {
    alpha: f64,
    replicates: u64,
    fair: Vec<FalseAlarmRow>,
    bad_alpha: f64,
    bad: Vec<BadRow>,
    power_config: PowerConfig,
    power: Vec<PowerRow>,
    seconds: f64,
}

type Chacha = <ChaCha12 as Backend>::Rng;

fn fair(seed: u64) -> Box<dyn LineSource> {
    Box::new(Shuffled {
        shuffler: Inplace::new(),
        rng: ChaCha12::seeded(seed),
    })
}

fn wrong_range(seed: u64) -> Box<dyn LineSource> {
    Box::new(Shuffled {
        shuffler: Biased::new(),
        rng: ChaCha12::seeded(seed),
    })
}

fn coin_flip_sort(seed: u64) -> Box<dyn LineSource> {
    Box::new(CoinFlipSort(ChaCha12::seeded(seed)))
}

fn consecutive_java(seed: u64) -> Box<dyn LineSource> {
    Box::new(ConsecutiveSeeds {
        shuffler: Inplace::with_sampler(<Java as Backend>::Sampler::default()),
        make_rng: Java::seeded,
        next_seed: seed % 1_000_000,
    })
}

/// `java.util.Collections.shuffle(list, new Random(seed))`, bit for bit: Durstenfeld from the
/// top down with `Random.nextInt(i + 1)`, the port in `fairdeal-rng`. One generator per data
/// set, as a program that seeds once.
fn java_collections_shuffle(seed: u64) -> Box<dyn LineSource> {
    Box::new(Shuffled {
        shuffler: Inplace::with_sampler(<Java as Backend>::Sampler::default()),
        rng: Java::seeded(seed),
    })
}

fn repeated_deals(seed: u64) -> Box<dyn LineSource> {
    Box::new(RepeatedDeals {
        shuffler: Inplace::new(),
        rng: ChaCha12::seeded(seed),
        every: 20,
        dealt: Vec::new(),
    })
}

fn sixteen_bit_seeds(seed: u64) -> Box<dyn LineSource> {
    Box::new(SeedBits {
        shuffler: Inplace::new(),
        rng: ChaCha12::seeded(seed),
        bits: 16,
        make_rng: ChaCha12::seeded as fn(u64) -> Chacha,
    })
}

fn unshuffled(_seed: u64) -> Box<dyn LineSource> {
    Box::new(Unshuffled)
}

/// The known-bad sources, each at a shape where a user would meet it.
fn bad_sources() -> Vec<BadSource<'static>> {
    let source = |name, n, lines, make| BadSource {
        name,
        n,
        lines,
        make,
    };
    vec![
        source("wrong-range swap", 8, 20_000, &wrong_range),
        source("sort, coin-flip comparator", 52, 2_000, &coin_flip_sort),
        source("java, consecutive seeds", 4, 12_000, &consecutive_java),
        source("repeated deals (5 %)", 52, 10_000, &repeated_deals),
        source("16-bit seeds", 52, 2_000, &sixteen_bit_seeds),
    ]
}

/// The shapes the judges use, at each line count: audit's 5 items, `fairdeal fairness --n 3`
/// (the permutation test alone), a 52-card deck as audit judges it.
fn power_shapes(lines: &[u64]) -> Vec<PowerShape> {
    let mut shapes = Vec::new();
    for shape in shape_kinds() {
        for &lines in lines {
            shapes.push(PowerShape {
                lines,
                ..shape.clone()
            });
        }
    }
    shapes
}

fn shape_kinds() -> Vec<PowerShape> {
    let lines = 0;
    vec![
        PowerShape {
            name: "audit, 5 items",
            n: 5,
            lines,
            tests: vec![
                TestName::Permutation,
                TestName::Position,
                TestName::Serial,
                TestName::Adjacency,
            ],
        },
        PowerShape {
            name: "fairness --n 3",
            n: 3,
            lines,
            tests: vec![TestName::Permutation],
        },
        PowerShape {
            name: "audit, 52 cards",
            n: 52,
            lines,
            tests: vec![TestName::Position, TestName::Serial, TestName::Adjacency],
        },
    ]
}

/// The dial-able bad sources: a mixture of each with Durstenfeld on ChaCha12.
fn dial_sources() -> Vec<DialSource<'static>> {
    vec![
        DialSource {
            name: "wrong-range swap",
            bad: &wrong_range,
            fair: &fair,
            deviation: calibration::wrong_range_deviation,
        },
        DialSource {
            name: "unshuffled deck",
            bad: &unshuffled,
            fair: &fair,
            deviation: calibration::unshuffled_deviation,
        },
        DialSource {
            name: "java.util.Random shuffle",
            bad: &java_collections_shuffle,
            fair: &fair,
            deviation: no_known_deviation,
        },
    ]
}

/// `java.util.Random`'s order probabilities have no closed form (a 48-bit LCG's outputs are
/// not independent), so the table gives its weight and power only.
fn no_known_deviation(_: TestName, _: usize) -> Option<f64> {
    None
}

fn progress() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {msg}: {human_pos} data sets ({elapsed})")
    {
        bar.set_style(style);
    }
    bar
}

/// Runs `cargo xtask calibrate`; fails when a test's false-alarm count exceeds its bound or a
/// bad source is missed in any run.
pub(crate) fn run(args: &CalibrateArgs) -> Result<std::process::ExitCode> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) || args.runs == 0 || args.bad_runs == 0 {
        bail!("--alpha must be in (0, 1) and --runs, --bad-runs at least 1");
    }
    if args.power_replicates == 0
        || args.power_lines.contains(&0)
        || args.power_lines.is_empty()
        || args.power_min_weight.is_nan()
        || args.power_min_weight <= 0.0
    {
        bail!(
            "--power-replicates and --power-lines must be at least 1, --power-min-weight above 0"
        );
    }
    let start = Instant::now();
    let bar = progress();
    let mut tick = || bar.inc(1);
    let (fair, bad) = if args.only == Only::Power {
        (Vec::new(), Vec::new())
    } else {
        let config = FalseAlarmConfig {
            runs: args.runs,
            alpha: args.alpha,
            replicates: args.replicates,
            ..FalseAlarmConfig::default()
        };
        bar.set_message("false alarms");
        let fair = calibration::false_alarms(&config, FALSE_ALARM_SHAPES, &fair, &mut tick)?;
        bar.set_message("bad sources");
        let bad = calibration::bad_source_power(
            &bad_sources(),
            args.bad_runs,
            PASS_THRESHOLD,
            args.replicates,
            &mut tick,
        )?;
        (fair, bad)
    };
    let power_config = PowerConfig {
        replicates: args.power_replicates,
        min_weight: args.power_min_weight,
        judge_replicates: args.replicates,
        ..PowerConfig::default()
    };
    let power = if args.only == Only::Calibration {
        Vec::new()
    } else {
        bar.set_message("power");
        calibration::power_table(
            &power_shapes(&args.power_lines),
            &dial_sources(),
            &power_config,
            &mut tick,
        )?
    };
    bar.finish_and_clear();
    let report = Report {
        alpha: args.alpha,
        replicates: args.replicates,
        fair,
        bad_alpha: PASS_THRESHOLD,
        bad,
        power_config,
        power,
        seconds: start.elapsed().as_secs_f64(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    if let Some(path) = &args.markdown {
        write_markdown(path, &report)?;
    }
    let calibrated = report.fair.iter().all(|row| row.within);
    let powerful = report.bad.iter().all(|row| row.unfair == row.runs);
    Ok(if calibrated && powerful {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    if !report.fair.is_empty() {
        let _ = writeln!(
            out,
            "False alarms on fair data (ChaCha12 + Durstenfeld), alpha = {}, Monte Carlo with {} \
             replicates; 'bound' is the most rejections a level-alpha test gives with \
             probability 0.999:\n",
            report.alpha, report.replicates
        );
        let _ = writeln!(
            out,
            "| items | lines | runs | test | rejections | rate | bound | within |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---|---:|---:|---:|---|");
        for row in &report.fair {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.3} | {} | {} |",
                row.n,
                row.lines,
                row.runs,
                row.test,
                row.rejections,
                row.rate,
                row.bound,
                if row.within { "yes" } else { "NO" }
            );
        }
    }
    if !report.bad.is_empty() {
        let _ = writeln!(
            out,
            "\nPower on known-bad sources at the CLI's level (alpha = {:e}): runs called \
             UNFAIR\n",
            report.bad_alpha
        );
        let _ = writeln!(
            out,
            "| source | items | lines | runs | UNFAIR | decided by |"
        );
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---|");
        for row in &report.bad {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} |",
                row.source,
                row.n,
                row.lines,
                row.runs,
                row.unfair,
                row.decided_by.join(", ")
            );
        }
    }
    if !report.power.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&power_markdown(report));
    }
    out
}

fn percent(x: f64) -> String {
    if x >= 0.1 {
        format!("{:.0} %", x * 100.0)
    } else if x >= 0.01 {
        format!("{:.1} %", x * 100.0)
    } else {
        format!("{:.2} %", x * 100.0)
    }
}

/// The power table with its legend.
fn power_markdown(report: &Report) -> String {
    let config = &report.power_config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Smallest bias each test detects with {:.0} % power (its Holm-adjusted p-value at most \
         {:e} in at least {:.0} % of {} seeded data sets per weight). The bias is a mixture: \
         each line from the bad source with probability 'weight', else from a fair shuffle \
         (Durstenfeld on ChaCha12); weights go down from {} by a factor sqrt(2) while the test \
         still reaches the power. 'bias' is that weight as the largest relative cell deviation \
         it causes in the test's table (exact: weight × D, weight² × D for the serial test, \
         with the bad source's D by enumeration; blank for java.util.Random, which has none \
         in closed form). 'power' is at that weight, with its Clopper–Pearson 95 % interval; \
         '—' means not detected even at the largest weight (its bias and power there shown). \
         'lines to certify' is about how many \
         lines a fair source needs to certify the test's default tolerance (FAIR) at \
         confidence 1 − 1e-6.\n",
        config.target * 100.0,
        config.alpha,
        config.target * 100.0,
        config.replicates,
        config.max_weight,
    );
    let _ = writeln!(
        out,
        "| judge | lines | bad source | test | weight | bias | power (95 % CI) | tolerance | lines to certify |"
    );
    let _ = writeln!(out, "|---|---:|---|---|---:|---:|---|---:|---:|");
    for row in &report.power {
        let (low, high) = row.power_interval;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.2} ({:.2}–{:.2}) | {} | {} |",
            row.shape,
            row.lines,
            row.source,
            row.test,
            row.weight
                .map_or_else(|| "—".to_owned(), |w| format!("{w:.4}")),
            row.bias.map_or_else(String::new, percent),
            row.power,
            low,
            high,
            row.tolerance.map_or_else(String::new, percent),
            row.lines_to_certify
                .map_or_else(String::new, |l| l.to_string()),
        );
    }
    out
}

const BEGIN: &str = "<!-- power-table:begin -->";
const END: &str = "<!-- power-table:end -->";

fn write_markdown(path: &std::path::Path, report: &Report) -> Result<()> {
    let command: Vec<String> = std::env::args().skip(1).collect();
    let mut table = String::new();
    let _ = writeln!(
        table,
        "Made by `cargo xtask {}` in {:.0} s on {}.\n",
        command.join(" "),
        report.seconds,
        Machine::detect().line()
    );
    table.push_str(&power_markdown(report));
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let text = match (existing.find(BEGIN), existing.find(END)) {
        (Some(begin), Some(end)) if begin < end => {
            format!("{}{BEGIN}\n{table}{}", &existing[..begin], &existing[end..])
        }
        _ => table,
    };
    std::fs::write(path, text).with_context(|| format!("cannot write '{}'", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest power run: the table has a row per shape × source × test, and the
    /// Markdown names every row.
    #[test]
    fn a_tiny_power_table_prints_every_row() {
        let config = PowerConfig {
            replicates: 2,
            min_weight: 0.5,
            ..PowerConfig::default()
        };
        let power =
            calibration::power_table(&power_shapes(&[300]), &dial_sources(), &config, &mut || ())
                .unwrap();
        // 4 + 1 + 3 tests, three sources each (the wrong-range swap, the unshuffled deck,
        // java.util.Random's shuffle).
        assert_eq!(power.len(), 24);
        let report = Report {
            alpha: 0.01,
            replicates: 199,
            fair: Vec::new(),
            bad_alpha: PASS_THRESHOLD,
            bad: Vec::new(),
            power_config: config,
            power,
            seconds: 0.0,
        };
        let md = power_markdown(&report);
        assert_eq!(md.matches("\n| audit, 52 cards |").count(), 9, "{md}");
        // An unshuffled 52-card deck is detected by the position test at weight 1 and 300
        // lines.
        assert!(
            md.contains("| audit, 52 cards | 300 | unshuffled deck | position | 0.")
                || md.contains("| audit, 52 cards | 300 | unshuffled deck | position | 1."),
            "{md}"
        );
    }
}
