//! `fairdeal fairness`: the seeds' experiment. Shuffle `[0, n)` many times with one algorithm
//! and one generator, count the outcomes and let a chi-square test say whether every outcome
//! is equally likely.
//!
//! For `n <= 8` every one of the `n!` orders is counted (the permutation test, the strongest
//! there is); above, the `n × n` matrix of where each element lands (the position test). The
//! statistics are `fairdeal-fairness`'s; this module only runs them, prints them and plots them.

use std::io::Write;
use std::path::Path;

use anyhow::Context as _;
use fairdeal::Shard;
use fairdeal::fairness::{
    BatteryReport, BatteryTest, ChunkedRun, Equivalence, FairnessReport, RunDocument, RunNames,
    TestKind, Verdict, chunk_seeded_test_with_progress, judge_run, unrank_permutation,
};
use fairdeal::rng::Backend;
use fairdeal::{DEFAULT_ALGORITHM, Rng};
use serde_json::Value;

use crate::cmd::heatmap::{self, Heatmap};
use fairdeal_cli::args::{PlotArg, RandomArgs, SamplerArg};

use crate::common::{
    Resolved, Selection, Table, WithResolved, format_p, print_json, progress_bar,
    status_after_write, stdout, usage, with_selection,
};
use crate::shard_arg::{ShardArg, ShardedCommand};
use crate::verdict::{EquivalenceArgs, battery_sentence};

/// Runs with more element-draws than this show a progress bar (on a terminal).
const PROGRESS_THRESHOLD: u64 = 5_000_000;

/// The text output lists every count and every table row up to this many cells; beyond, it
/// shows the extremes and points to `--json` for the rest.
const FULL_LISTING_MAX: usize = 120;

/// Arguments of `fairdeal fairness`.
#[derive(Debug, clap::Args)]
#[command(after_help = concat!("Examples:\n  \
    fairdeal fairness                         # 100,000 shuffles of [1, 2, 3], default algorithm\n  \
    fairdeal fairness --algo biased --seed 1  # the wrong-range swap: rejected\n  \
    fairdeal fairness --n 52 --trials 20000 --json  # position test\n\n",
    crate::verdict::exit_status_help!()))]
#[command(mut_arg("algo", |a| a.help(format!(
    "Shuffling algorithm to test (see `fairdeal algorithms`) [default: {DEFAULT_ALGORITHM}]"
))))]
#[command(mut_arg("plot", |a| a.help(
    "Also write an SVG heatmap of where each element landed, coloured by deviation from a fair \
     shuffle (hover a cell for its counts). Above 64 elements neighbouring rows and columns are \
     drawn as blocks"
)))]
pub(crate) struct Args {
    #[command(flatten)]
    random: RandomArgs,

    #[command(flatten)]
    sampler: SamplerArg,

    /// How many elements to shuffle: up to 8 counts every order, above the element positions.
    #[arg(long = "n", value_name = "N", default_value_t = 3)]
    n: usize,

    /// How many shuffles to count.
    #[arg(long, value_name = "T", default_value_t = 100_000)]
    trials: u64,

    /// Print the report as JSON.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    plot: PlotArg,

    #[command(flatten)]
    shard: ShardArg,

    #[command(flatten)]
    equivalence: EquivalenceArgs,
}

/// The most elements (`trials × n`) one run shuffles: minutes of work, bounded before it starts.
const MAX_ELEMENTS_SHUFFLED: u64 = 10_000_000_000;

/// ", sampler lemire" when a sampler other than the backend's own was chosen, else nothing.
fn sampler_note(sampler: &str) -> String {
    if sampler == fairdeal::BACKEND_SAMPLER {
        String::new()
    } else {
        format!(", sampler {sampler}")
    }
}

/// Runs `fairdeal fairness`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    if args.trials == 0 {
        return Err(usage("--trials must be at least 1"));
    }
    if args.n < 2 {
        return Err(usage(format!(
            "--n must be at least 2 (got {}): one element has one order",
            args.n
        )));
    }
    if args.trials.saturating_mul(args.n as u64) > MAX_ELEMENTS_SHUFFLED {
        return Err(usage(format!(
            "--trials × --n must be at most {MAX_ELEMENTS_SHUFFLED:e} (got {} × {}), so a \
             typo cannot start a run of days",
            args.trials, args.n
        )));
    }
    if let Some(path) = &args.plot.plot {
        heatmap::check_svg_path(path)?;
    }
    let equivalence = args.equivalence.equivalence()?;
    let given_seed = args.random.seed;
    let selection = args
        .random
        .into_selection(DEFAULT_ALGORITHM, &args.sampler.sampler);
    let show_progress = args.trials.saturating_mul(args.n as u64) > PROGRESS_THRESHOLD;
    let (report, seed) = with_selection(
        &selection,
        Experiment {
            seed: given_seed,
            n: args.n,
            trials: args.trials,
            show_progress,
            shard: args.shard.shard,
        },
    )?;
    if let Some(path) = &args.plot.plot {
        plot(&report, &selection, seed, path, &equivalence)
            .with_context(|| format!("cannot write plot '{}'", path.display()))?;
    }
    let shard = args.shard.json(ShardedCommand::Fairness, args.trials);
    // The verdict's exit status comes last, after the shard note.
    let finished = print_report(
        &report,
        &selection,
        seed,
        given_seed.is_none(),
        args.json,
        shard,
        &equivalence,
    );
    let noted = (|| -> anyhow::Result<()> {
        if !args.json {
            let mut out = stdout();
            args.shard
                .write_note(&mut out, ShardedCommand::Fairness, args.trials)?;
            out.flush()?;
        }
        Ok(())
    })();
    status_after_write(finished, noted)
}

/// Prints a report (text or JSON) judged with the tolerance and confidence of `equivalence`,
/// `shard` a shard's `shard` object (`fairdeal merge` prints merged shards with this
/// function): text and JSON both print the one judged value.
pub(crate) fn print_report(
    report: &FairnessReport,
    selection: &Selection,
    seed: u64,
    seed_from_os: bool,
    json: bool,
    shard: Option<Value>,
    equivalence: &Equivalence,
) -> anyhow::Result<()> {
    let judged = judge_run(report, equivalence);
    let written = if json {
        print_json(&json_report(
            report,
            selection,
            seed,
            seed_from_os,
            shard,
            &judged,
        ))
    } else {
        let mut out = stdout();
        write_text(&mut out, report, selection, seed, &judged).and_then(|()| Ok(out.flush()?))
    };
    status_after_write(crate::verdict::finish(judged.verdict), written)
}

/// The `--json` document [`print_report`] prints for these arguments, as a value: `fairdeal
/// merge` renders each shard's document again from its counts with this and requires it to be
/// the file, so no list of the fields the counts decide is kept anywhere else.
pub(crate) fn document(
    report: &FairnessReport,
    selection: &Selection,
    seed: u64,
    seed_from_os: bool,
    shard: Option<Value>,
    equivalence: &Equivalence,
) -> anyhow::Result<Value> {
    let judged = judge_run(report, equivalence);
    Ok(serde_json::to_value(json_report(
        report,
        selection,
        seed,
        seed_from_os,
        shard,
        &judged,
    ))?)
}

/// The `--json` document of `report`, judged as `judged`.
fn json_report<'a>(
    report: &'a FairnessReport,
    selection: &'a Selection,
    seed: u64,
    seed_from_os: bool,
    shard: Option<Value>,
    judged: &BatteryReport,
) -> RunDocument<'a, Value> {
    let names = RunNames {
        algorithm: &selection.algorithm,
        backend: &selection.backend,
        sampler: &selection.sampler,
    };
    RunDocument::new(report, names, seed, seed_from_os, shard, judged)
}

struct Experiment {
    seed: Option<u64>,
    n: usize,
    trials: u64,
    show_progress: bool,
    shard: Option<Shard>,
}

impl WithResolved for Experiment {
    type Output = (FairnessReport, u64);

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<(FairnessReport, u64)> {
        let Resolved {
            rng: mut given,
            shuffler,
            ..
        } = resolved;
        // Without --seed the OS-seeded generator draws the seed, which is reported so that an
        // UNFAIR run can be reproduced (as `poker` and `blackjack` do).
        let seed = self.seed.unwrap_or_else(|| given.next_u64());
        let bar = progress_bar(self.trials, self.show_progress, "shuffling");
        // Chunk c shuffles with B::seeded(stream_seed(seed, c)), so --shard I/N runs a fixed
        // part of the same shuffles.
        let run = ChunkedRun {
            test: ChunkedRun::test_for(self.n),
            n: self.n,
            trials: self.trials,
            seed,
            shard: self.shard,
        };
        let report = chunk_seeded_test_with_progress(
            &shuffler,
            &run,
            B::seeded,
            Some(&|shuffles| bar.inc(shuffles)),
        );
        bar.finish_and_clear();
        Ok((report.map_err(|e| usage(e.to_string()))?, seed))
    }
}

/// The label of count `index`: for the permutation test the order of `[0..n)` with that
/// lexicographic rank (`[0, 2, 1]`), for the position test `e at position p` (both from 0,
/// as the help's `[0..n)` says).
fn cell_label(report: &FairnessReport, index: usize) -> String {
    match report.test {
        TestKind::Permutation => match unrank_permutation(report.n, index as u64) {
            Ok(order) => {
                let items: Vec<String> = order.iter().map(usize::to_string).collect();
                format!("[{}]", items.join(", "))
            }
            Err(_) => format!("#{index}"),
        },
        TestKind::Position | TestKind::Prefix | TestKind::Adjacency | TestKind::Repeat => {
            let columns = (report.counts.len() / report.n.max(1)).max(1);
            format!("{} at position {}", index / columns, index % columns)
        }
    }
}

fn write_text(
    out: &mut impl Write,
    report: &FairnessReport,
    selection: &Selection,
    seed: u64,
    judged: &BatteryReport,
) -> anyhow::Result<()> {
    let seed = if selection.seed.is_some() {
        seed.to_string()
    } else {
        format!("{seed}, drawn from the OS")
    };
    let what = match report.test {
        TestKind::Permutation => format!("every order of [0..{})", report.n),
        TestKind::Position | TestKind::Prefix | TestKind::Adjacency | TestKind::Repeat => {
            format!("where each of {} elements lands", report.n)
        }
    };
    writeln!(
        out,
        "{} test: {} with {}{} (seed {seed}), {}, counting {what}",
        report.test,
        selection.algorithm,
        selection.backend,
        sampler_note(&selection.sampler),
        crate::common::plural(report.trials, "shuffle", "shuffles")
    )?;

    let counts = &report.counts;
    if counts.len() <= FULL_LISTING_MAX {
        writeln!(out, "counts: {counts:?}")?;
    } else {
        let head: Vec<String> = counts.iter().take(24).map(u64::to_string).collect();
        writeln!(
            out,
            "counts: [{}, …] ({} counts; --json lists all)",
            head.join(", "),
            counts.len()
        )?;
    }
    writeln!(out)?;

    let expected = report.expected_count();
    let row = |index: usize| -> Vec<String> {
        let count = counts[index];
        let deviation = (count as f64 - expected) / expected * 100.0;
        vec![
            cell_label(report, index),
            count.to_string(),
            format!("{expected:.1}"),
            format!("{deviation:+.2}%"),
        ]
    };
    let first_column = match report.test {
        TestKind::Permutation => "order",
        TestKind::Position | TestKind::Prefix | TestKind::Adjacency | TestKind::Repeat => {
            "element at position"
        }
    };
    let header = vec![first_column, "count", "expected", "deviation"];
    if counts.len() <= FULL_LISTING_MAX {
        Table {
            header,
            rows: (0..counts.len()).map(row).collect(),
        }
        .write(out)?;
    } else {
        let mut order: Vec<usize> = (0..counts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(counts[i]));
        let mut rows: Vec<Vec<String>> = order[..10].iter().map(|&i| row(i)).collect();
        rows.push(vec![
            "…".to_owned(),
            String::new(),
            String::new(),
            String::new(),
        ]);
        rows.extend(order[order.len() - 10..].iter().map(|&i| row(i)));
        writeln!(
            out,
            "the 10 most and 10 least frequent of {} cells:",
            counts.len()
        )?;
        Table { header, rows }.write(out)?;
    }
    writeln!(out)?;

    let test = &judged.tests[0];
    writeln!(
        out,
        "chi2 = {:.3}, df = {}, p-value = {} ({})",
        report.chi2,
        report.df,
        format_p(test.p_value),
        method_note(test)
    )?;
    writeln!(out, "verdict: {}", battery_sentence(judged, "shuffles"))?;
    Ok(())
}

/// How the p-value was computed, for the text output.
fn method_note(test: &BatteryTest) -> String {
    let judgement = &test.judgement;
    let sides = if judgement.two_sided() {
        "two-sided"
    } else {
        "upper tail"
    };
    match judgement.replicates {
        // The simulated p-value is combined with the cells' exact tails, so it can be far below
        // 1/replicates: say both parts.
        Some(r) => format!(
            "{}, {r} replicates and exact cell tails, {sides}",
            judgement.method.name()
        ),
        None => format!("{}, {sides}", judgement.method.name()),
    }
}

/// Writes the element × position heatmap of the run (for the permutation test, the position
/// matrix its order counts imply).
fn plot(
    report: &FairnessReport,
    selection: &Selection,
    seed: u64,
    path: &Path,
    equivalence: &Equivalence,
) -> anyhow::Result<()> {
    let n = report.n;
    let matrix = match report.test {
        TestKind::Permutation => heatmap::positions_from_orders(n, &report.counts),
        _ => report.counts.clone(),
    };
    let verdict = match judge_run(report, equivalence).verdict {
        Verdict::Fair => "fair",
        Verdict::Unfair => "UNFAIR",
        Verdict::Insufficient => "insufficient",
    };
    heatmap::write(
        &Heatmap {
            title: format!(
                "{} + {}, seed {seed}: {} test, n = {n}, {} shuffles, p = {} ({verdict})",
                selection.algorithm,
                selection.backend,
                report.test,
                report.trials,
                format_p(report.p_value)
            ),
            n,
            counts: &matrix,
            expected: report.trials as f64 / n as f64,
            skip_diagonal: false,
            row_axis: "element",
            column_axis: "position",
            labels: None,
            columns_are_elements: false,
        },
        path,
    )
}
