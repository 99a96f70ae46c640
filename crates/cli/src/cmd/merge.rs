//! `fairdeal merge`: adds up the `--json` outputs of the shards of one Monte Carlo run
//! (`blackjack simulate`, `poker table --hands`, `poker equity` Monte Carlo, `fairness`, each
//! with `--shard I/N`) into exactly the whole run's report.
//!
//! Every one of those engines is chunk-seeded (chunk `c` draws from `stream_seed(seed, c)`)
//! and `fairdeal_core::Shard` decides which contiguous chunks shard `I/N` runs, so a shard's
//! tallies are those of its chunks in the whole run, whichever machine ran it. Each shard's
//! document carries its exact integer tallies and a `shard` object (`command`, `index`,
//! `count`, `chunks`, `total`); this module checks that the files are the complete set of
//! shards of one run (same command, shard count, total, and every other field that describes
//! the run: seed, rules, algorithm, backend …), sums the tallies and hands them to the
//! command's own report code, which recomputes every derived statistic (edge, standard error,
//! p-values, verdict) exactly as the unsharded run does. Only `seconds` (the shards' sum)
//! describes how the run went rather than what it found.
//!
//! A shard is also checked against what a shard of that run can hold, so a corrupt or edited
//! file is refused rather than summed into a wrong answer: its tallies against its chunk range
//! and their own identities (`SimRun::result`, `EquityTally::check`, `counts_from_keyed`), every
//! sum checked (`SimResult::merge`, `checked_merge`, `RunTally::add`), `seconds` a time. Every
//! shard is rendered again from its tallies by the command's own JSON code and must equal its
//! file field for field, and rendered with the *first* shard's parameters it must equal it too
//! (the facade's `check_rendered` and `check_same_run`): so no list of recomputed fields is
//! kept anywhere, and an unknown field is refused. This module reads files, calls those
//! functions and words their errors with the files' names.

use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::blackjack::SimResult;
use fairdeal::blackjack::report::SimRun;
use fairdeal::fairness::{
    Equivalence, FairnessReport, RunFieldError, RunParams, RunTally, report_from_counts,
};
use fairdeal::poker::document::{CountsError, McRun, table_counts};
use fairdeal::poker::{self as poker, CategoryCounts};
use fairdeal::{
    Mismatch, Shard, ShardHeader, ShardSetError, ShardedCommand, check_rendered, check_same_run,
    check_shard_set, shard_seconds, show_json,
};
use serde::Deserialize as _;
use serde_json::{Map, Value};

use crate::cmd::{blackjack, fairness, poker as poker_cmd};
use crate::common::{Selection, print_json, stdout, usage};

/// The largest shard report `merge` reads: a `fairness --n 1024` report lists 1,048,576
/// counts, about 30 MB of pretty JSON.
const MAX_FILE_BYTES: u64 = 256 << 20;

/// Arguments of `fairdeal merge`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    for i in 1 2 3; do fairdeal blackjack simulate --rounds 30000000 --seed 7 --shard $i/3 --json > bj-$i.json; done\n  \
    fairdeal merge bj-*.json            # the report of --rounds 30000000 --seed 7, exactly\n  \
    parallel fairdeal fairness --n 5 --trials 10000000 --seed 1 --shard {}/8 --json '>' f-{}.json ::: $(seq 8)\n  \
    fairdeal merge --json f-*.json\n\n\
    Exit status: 0 merged (for a judge's shards, `fairness` or `poker table`: merged and \
    fair); 3 / 4 the merged judge's verdict is unfair / insufficient, as the unsharded run \
    exits; 1 a file cannot be read or the output cannot be written; 2 the files are not the \
    complete set of shards of one run (a file that is not a shard's --json output, shards of \
    different runs, a shard missing or given twice).")]
pub(crate) struct Args {
    /// The `--json` outputs of shards 1/N … N/N of one run, in any order.
    #[arg(value_name = "FILE", required = true, num_args = 1..)]
    files: Vec<PathBuf>,

    /// Print the merged report as JSON: the document the unsharded run prints, field for
    /// field (`seconds` is the shards' sum).
    #[arg(long)]
    json: bool,
}

/// One shard's document, read and checked for its `shard` object.
struct ShardDoc {
    path: PathBuf,
    header: ShardHeader,
    /// The work items (rounds, hands, trials, shuffles) of its chunks, once checked.
    items: u64,
    /// Its `seconds`, when it has that field: finite and not negative.
    seconds: Option<f64>,
    doc: Map<String, Value>,
}

impl ShardDoc {
    fn name(&self) -> String {
        format!("'{}'", self.path.display())
    }

    fn malformed(&self, key: &str) -> anyhow::Error {
        usage(format!(
            "{}: field \"{key}\" is missing or malformed: not a {} --json output",
            self.name(),
            self.header.command.name()
        ))
    }

    /// A refusal of this file: `why` is what is wrong with it.
    fn refuse(&self, why: impl std::fmt::Display) -> anyhow::Error {
        usage(format!("{}: {why}", self.name()))
    }

    /// Its `shard` object, as a rendering of it carries it.
    fn shard(&self) -> Option<Value> {
        self.doc.get("shard").cloned()
    }

    /// Checks that `own`, the document this shard's command prints for the tallies and
    /// parameters read from it, is this file, and then that `theirs` (its tallies rendered
    /// with `first`'s parameters) is too, else the two are shards of different runs.
    fn check(
        &self,
        own: &Value,
        first: &ShardDoc,
        theirs: impl FnOnce() -> anyhow::Result<Value>,
    ) -> anyhow::Result<()> {
        check_rendered(&self.doc, own).map_err(|e| match e {
            Mismatch::Unknown { path, found } => self.refuse(format!(
                "{path} ({found}) is not a field of a {} --json output",
                self.header.command.name()
            )),
            other => self.refuse(other),
        })?;
        check_same_run(&self.doc, &theirs()?).map_err(|d| {
            usage(format!(
                "{} and {} are shards of different runs: {} differs ({} vs {})",
                first.name(),
                self.name(),
                d.path,
                show_json(d.left.as_ref()),
                show_json(d.right.as_ref())
            ))
        })
    }
}

/// Reads one file: bounded, JSON, with a well-formed `shard` object.
fn read(path: &Path) -> anyhow::Result<ShardDoc> {
    let name = path.display();
    let file = crate::closed_stdio::open(path).with_context(|| format!("cannot read '{name}'"))?;
    let mut text = String::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read '{name}'"))?;
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(usage(format!(
            "'{name}' is larger than {} MiB: not a shard's --json output",
            MAX_FILE_BYTES >> 20
        )));
    }
    let not_shard = |why: String| {
        usage(format!(
            "'{name}' is not the --json output of a --shard run: {why}"
        ))
    };
    let doc: Value = serde_json::from_str(&text).map_err(|e| not_shard(format!("{e}")))?;
    let Value::Object(doc) = doc else {
        return Err(not_shard("not a JSON object".into()));
    };
    let header = ShardHeader::from_document(&doc).map_err(|e| not_shard(e.to_string()))?;
    let seconds = shard_seconds(&doc).map_err(|e| usage(format!("'{name}': {e}")))?;
    Ok(ShardDoc {
        path: path.to_owned(),
        header,
        items: 0,
        seconds,
        doc,
    })
}

/// Checks that `docs` are the complete set of shards of one run (`check_shard_set`) and
/// returns them in shard order, each with the work items of its chunks.
fn check_set(docs: Vec<ShardDoc>) -> anyhow::Result<Vec<ShardDoc>> {
    let headers: Vec<ShardHeader> = docs.iter().map(|d| d.header.clone()).collect();
    let checked = check_shard_set(&headers).map_err(|e| match e {
        ShardSetError::DifferentRuns {
            first,
            other,
            difference,
        } => usage(format!(
            "{} and {} are shards of different runs: {difference}",
            docs[first].name(),
            docs[other].name()
        )),
        ShardSetError::Duplicate {
            shard,
            first,
            second,
        } => usage(format!(
            "shard {shard} is given twice: {} and {}",
            docs[first].name(),
            docs[second].name()
        )),
        ShardSetError::WrongChunks { position } => {
            let (doc, header) = (&docs[position], &docs[position].header);
            usage(format!(
                "{}: chunks {}..{} are not those of shard {} of a run of {} {}",
                doc.name(),
                header.chunks.start,
                header.chunks.end,
                header.shard,
                header.total,
                header.command.name()
            ))
        }
        other => usage(other.to_string()),
    })?;
    let mut docs: Vec<Option<ShardDoc>> = docs.into_iter().map(Some).collect();
    Ok(checked
        .into_iter()
        .filter_map(|c| {
            let mut doc = docs[c.position].take()?;
            doc.items = c.items;
            Some(doc)
        })
        .collect())
}

/// Runs `fairdeal merge`.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if args.files.len() as u64 > Shard::MAX_COUNT {
        return Err(usage(format!(
            "{} files: a run has at most {} shards",
            args.files.len(),
            Shard::MAX_COUNT
        )));
    }
    let docs = args
        .files
        .iter()
        .map(|path| read(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let docs = check_set(docs)?;
    match docs[0].header.command {
        ShardedCommand::BlackjackSimulate => merge_simulate(&docs, args.json),
        ShardedCommand::PokerTable => merge_table(&docs, args.json),
        ShardedCommand::PokerEquity => merge_equity(&docs, args.json),
        ShardedCommand::Fairness => merge_fairness(&docs, args.json),
    }
}

/// The engine's reading of a `simulate --json` document's run, worded as a refusal of it.
fn simulate_run(doc: &ShardDoc) -> anyhow::Result<SimRun> {
    SimRun::from_document(&doc.doc).map_err(|e| doc.malformed(e.0))
}

/// The document a shard with `result` and `doc`'s `shard` and `seconds` prints under `run`.
fn simulate_document(run: &SimRun, result: &SimResult, doc: &ShardDoc) -> anyhow::Result<Value> {
    let seconds = doc.seconds.ok_or_else(|| doc.malformed("seconds"))?;
    let mut rendered = run.report(result.clone(), seconds).json();
    rendered.insert("shard".into(), doc.shard().unwrap_or_default());
    Ok(Value::Object(rendered))
}

fn merge_simulate(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = simulate_run(first)?;
    let mut merged: Option<SimResult> = None;
    let mut seconds = 0.0;
    for doc in docs {
        let own = simulate_run(doc)?;
        let (total, chunks) = (doc.header.total, doc.header.chunks.clone());
        let part = own
            .result(&doc.doc, total, chunks)
            .map_err(|e| doc.refuse(e))?;
        let theirs = || simulate_document(&run, &part, doc);
        doc.check(&simulate_document(&own, &part, doc)?, first, theirs)?;
        seconds += doc.seconds.unwrap_or_default();
        match &mut merged {
            None => merged = Some(part),
            Some(m) => m.merge(&part).map_err(|e| doc.refuse(e))?,
        }
    }
    if !f64::is_finite(seconds) {
        return Err(usage(
            "the shards' \"seconds\" add up past the largest time",
        ));
    }
    let result = merged.ok_or_else(|| usage(ShardSetError::Empty.to_string()))?;
    let report = run.report(result, seconds);
    if json {
        return print_json(&Value::Object(report.json()));
    }
    let mut out = stdout();
    blackjack::write_simulate_text(&report, &mut out)?;
    out.flush()?;
    Ok(())
}

/// A judged document's checked tolerance and confidence, worded as a refusal of it.
fn equivalence(doc: &ShardDoc) -> anyhow::Result<Equivalence> {
    Equivalence::from_document(&doc.doc).map_err(|e| run_field(doc, e))
}

/// A fairness-crate refusal of `doc`'s fields, worded as the command line words them.
fn run_field(doc: &ShardDoc, e: RunFieldError) -> anyhow::Error {
    match e {
        RunFieldError::Field(key) => doc.malformed(key),
        RunFieldError::Equivalence(e) => doc.refuse(format!("--{e}")),
    }
}

/// What a `poker table --hands --json` document says about its run, besides its counts.
struct TableRun {
    run: McRun,
    equivalence: Equivalence,
}

impl TableRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<TableRun> {
        Ok(TableRun {
            run: McRun::table(&doc.doc).map_err(|e| doc.malformed(e.0))?,
            equivalence: equivalence(doc)?,
        })
    }

    /// The document a shard with `report` and the `shard` object `shard` prints.
    fn document(&self, report: &poker::McReport, shard: Option<Value>) -> anyhow::Result<Value> {
        let mc = (report, &self.run);
        poker_cmd::table_document(&report.counts, mc, shard, &self.equivalence)
    }
}

fn merge_table(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = TableRun::read(first)?;
    let mut sum = CategoryCounts::default();
    for doc in docs {
        let own = TableRun::read(doc)?;
        let counts = table_counts(&doc.doc, doc.items).map_err(|e| match e {
            _ if e.malformed_field().is_some() => doc.malformed(e.malformed_field().unwrap_or("")),
            CountsError::Hands { .. } => doc.refuse(format!(
                "{e} where chunks {}..{} deal {}",
                doc.header.chunks.start, doc.header.chunks.end, doc.items
            )),
            other => doc.refuse(other),
        })?;
        let part = poker::McReport::from_counts(counts).map_err(|e| doc.refuse(e))?;
        let theirs = || run.document(&part, doc.shard());
        doc.check(&own.document(&part, doc.shard())?, first, theirs)?;
        sum = sum
            .checked_merge(&counts)
            .ok_or_else(|| doc.refuse(CountsError::Overflow))?;
    }
    let report = poker::McReport::from_counts(sum).map_err(|e| usage(e.to_string()))?;
    let mc = (&report, &run.run);
    poker_cmd::print_table(
        7,
        &report.counts,
        &report.exact,
        Some(mc),
        json,
        None,
        &run.equivalence,
    )
}

/// What a `poker equity --json` document says about its run, besides its tallies.
struct EquityRun {
    spot: poker::Spot,
    run: McRun,
}

impl EquityRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<EquityRun> {
        let report = Self::report(doc)?;
        let spot = report.spot().map_err(|e| doc.refuse(e))?;
        let run = McRun::equity(&doc.doc).map_err(|e| doc.malformed(e.0))?;
        Ok(EquityRun { spot, run })
    }

    /// The engine's part of `doc`: the spot and the tallies.
    fn report(doc: &ShardDoc) -> anyhow::Result<poker::EquityDoc> {
        poker::EquityDoc::deserialize(&Value::Object(doc.doc.clone()))
            .map_err(|e| doc.refuse(format!("not a poker equity --json output: {e}")))
    }

    /// The tallies of `doc`, checked against its chunks.
    fn tally(&self, doc: &ShardDoc) -> anyhow::Result<poker::EquityTally> {
        let tally = Self::report(doc)?.tally();
        tally
            .check(doc.items, self.spot.seats().len())
            .map_err(|e| doc.refuse(e))?;
        Ok(tally)
    }

    /// The document a shard with `tally` and `doc`'s `shard` prints.
    fn document(&self, tally: &poker::EquityTally, shard: Option<Value>) -> anyhow::Result<Value> {
        let report = tally.report(&self.spot, false);
        let mc = Some(&self.run);
        Ok(poker_cmd::equity_document(&report, &self.spot, mc, shard)?)
    }
}

fn merge_equity(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = EquityRun::read(first)?;
    let mut sum = poker::EquityTally::default();
    for doc in docs {
        let own = EquityRun::read(doc)?;
        let part = own.tally(doc)?;
        let theirs = || run.document(&part, doc.shard());
        doc.check(&own.document(&part, doc.shard())?, first, theirs)?;
        sum = sum
            .checked_merge(part)
            .ok_or_else(|| doc.refuse("the tallies add up past 2^64 − 1"))?;
    }
    let report = sum.report(&run.spot, false);
    poker_cmd::print_equity(&report, &run.spot, Some(&run.run), json, None)
}

/// What a `fairness --json` document says about its run, besides its counts.
struct FairnessRun {
    params: RunParams,
    selection: Selection,
}

impl FairnessRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<FairnessRun> {
        let params = RunParams::from_document(&doc.doc).map_err(|e| run_field(doc, e))?;
        let selection = Selection {
            algorithm: params.algorithm.clone(),
            backend: params.backend.clone(),
            sampler: params.sampler.clone(),
            seed: Some(params.seed),
        };
        Ok(FairnessRun { params, selection })
    }

    /// The report of `tally` under this run's test and size.
    fn report(&self, tally: &RunTally) -> anyhow::Result<FairnessReport> {
        let (test, n) = (self.params.test, self.params.n);
        report_from_counts(test, n, tally.trials, tally.counts.clone())
            .map_err(|e| usage(e.to_string()))
    }

    /// The document a shard with `report` and the `shard` object `shard` prints.
    fn document(&self, report: &FairnessReport, shard: Option<Value>) -> anyhow::Result<Value> {
        let p = &self.params;
        fairness::document(
            report,
            &self.selection,
            p.seed,
            p.seed_from_os,
            shard,
            &p.equivalence,
        )
    }
}

fn merge_fairness(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = FairnessRun::read(first)?;
    let mut sum = RunTally::default();
    for doc in docs {
        let own = FairnessRun::read(doc)?;
        let part = RunTally::from_document(&doc.doc).map_err(|e| run_field(doc, e))?;
        if part.trials != doc.items {
            return Err(doc.refuse(format!(
                "\"trials\" is {} where chunks {}..{} shuffle {}",
                part.trials, doc.header.chunks.start, doc.header.chunks.end, doc.items
            )));
        }
        let report = own.report(&part).map_err(|e| doc.refuse(e))?;
        // Rendered with the first shard's test and size, or refused as another run's.
        let theirs = || {
            let theirs = run.report(&part).map_err(|_| {
                usage(format!(
                    "{} and {} are shards of different runs: \"n\" or \"test\" differs",
                    first.name(),
                    doc.name()
                ))
            })?;
            run.document(&theirs, doc.shard())
        };
        doc.check(&own.document(&report, doc.shard())?, first, theirs)?;
        sum.add(&part).map_err(|e| doc.refuse(e))?;
    }
    let report = run.report(&sum)?;
    let p = &run.params;
    fairness::print_report(
        &report,
        &run.selection,
        p.seed,
        p.seed_from_os,
        json,
        None,
        &p.equivalence,
    )
}
