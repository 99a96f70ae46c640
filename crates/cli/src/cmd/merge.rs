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
//! (exactly the rounds, hands, trials or shuffles those chunks deal) and against their own
//! identities (the engines' `SimResult::from_tallies` and `EquityTally::check`), every sum with
//! checked arithmetic, `seconds` finite and not negative. Every shard is rendered again from
//! its tallies by the command's own JSON code and must equal its file field for field, and
//! rendered with the *first* shard's parameters it must equal it too (else the two are shards
//! of different runs): so no list of recomputed fields is kept here, and an unknown field
//! anywhere is refused.

use std::fs::File;
use std::io::{Read as _, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::blackjack::report::SimReport;
use fairdeal::blackjack::{Betting, ExactStrategy, Rules, SimConfig, SimResult, Strategy};
use fairdeal::fairness::{Equivalence, FairnessReport, TestKind, report_from_counts};
use fairdeal::poker::{self as poker, Category, CategoryCounts};
use fairdeal::{Shard, ShardHeader, ShardSetError, ShardedCommand, check_shard_set};
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
    Exit status: 0 merged; 1 a file cannot be read or the output cannot be written; 2 the \
    files are not the complete set of shards of one run (a file that is not a shard's --json \
    output, shards of different runs, a shard missing or given twice).")]
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
    command: ShardedCommand,
    shard: Shard,
    chunks: Range<u64>,
    total: u64,
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

    fn u64(&self, key: &str) -> anyhow::Result<u64> {
        self.doc
            .get(key)
            .and_then(Value::as_u64)
            .ok_or_else(|| self.malformed(key))
    }

    fn str(&self, key: &str) -> anyhow::Result<&str> {
        self.doc
            .get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| self.malformed(key))
    }

    fn malformed(&self, key: &str) -> anyhow::Error {
        usage(format!(
            "{}: field \"{key}\" is missing or malformed: not a {} --json output",
            self.name(),
            self.command.name()
        ))
    }

    /// A refusal of this file: `why` is what is wrong with it.
    fn refuse(&self, why: impl std::fmt::Display) -> anyhow::Error {
        usage(format!("{}: {why}", self.name()))
    }

    /// Checks that `rendered`, the document this shard's command prints for the tallies and
    /// parameters read from it, is this file (`seconds` aside when `rendered` has none): a
    /// field the tallies decide that does not match them, or a field the command never
    /// writes, is refused.
    fn matches(&self, rendered: &Value) -> anyhow::Result<()> {
        let (file, rendered) = self.comparable(rendered)?;
        match first_difference(&file, &rendered) {
            None => Ok(()),
            Some((path, Some(found), None)) => Err(self.refuse(format!(
                "{path} ({found}) is not a field of a {} --json output",
                self.command.name()
            ))),
            Some((path, found, expected)) => Err(self.refuse(format!(
                "{path} is {} where the shard's own tallies and parameters give {}",
                show(found),
                show(expected)
            ))),
        }
    }

    /// This file and `rendered` as they can be compared: the rendering's floats go through
    /// JSON text once, as the file's did (so each computed value reads back as the file's
    /// does), and `seconds`, which is read from the file rather than computed (and checked
    /// by [`read`]), is left out of both.
    fn comparable(&self, rendered: &Value) -> anyhow::Result<(Value, Value)> {
        let mut rendered: Value = serde_json::from_str(&rendered.to_string())?;
        let mut file = self.doc.clone();
        file.remove("seconds");
        if let Value::Object(map) = &mut rendered {
            map.remove("seconds");
        }
        Ok((Value::Object(file), rendered))
    }

    /// Checks that `rendered`, this shard's tallies printed with the *first* shard's
    /// parameters, is this file: otherwise the two are shards of different runs.
    fn same_run_as(&self, first: &ShardDoc, rendered: &Value) -> anyhow::Result<()> {
        let (file, rendered) = self.comparable(rendered)?;
        match first_difference(&rendered, &file) {
            None => Ok(()),
            Some((path, a, b)) => Err(usage(format!(
                "{} and {} are shards of different runs: {path} differs ({} vs {})",
                first.name(),
                self.name(),
                show(a),
                show(b)
            ))),
        }
    }
}

/// A JSON value in a message, or "absent".
fn show(value: Option<&Value>) -> String {
    value.map_or_else(|| "absent".to_owned(), Value::to_string)
}

/// The first place where `a` and `b` differ, as a path (`"counts"."wins"`, `"players"[1]`)
/// with the two values there (`None`: absent on that side); keys in sorted order.
fn first_difference<'v>(
    a: &'v Value,
    b: &'v Value,
) -> Option<(String, Option<&'v Value>, Option<&'v Value>)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|key| {
                let at = format!("\"{key}\"");
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => {
                        first_difference(u, v).map(|(path, p, q)| (join(&at, &path), p, q))
                    }
                    (u, v) => Some((at, u, v)),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| {
                first_difference(u, v).map(|(path, p, q)| (join(&format!("[{i}]"), &path), p, q))
            })
        }
        _ if a == b => None,
        _ => Some((String::new(), Some(a), Some(b))),
    }
}

fn join(head: &str, tail: &str) -> String {
    if tail.is_empty() || tail.starts_with('[') {
        format!("{head}{tail}")
    } else {
        format!("{head}.{tail}")
    }
}

/// Reads one file: bounded, JSON, with a well-formed `shard` object.
fn read(path: &Path) -> anyhow::Result<ShardDoc> {
    let name = path.display();
    let file = File::open(path).with_context(|| format!("cannot read '{name}'"))?;
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
    let info = doc
        .get("shard")
        .ok_or_else(|| not_shard("it has no \"shard\" field".into()))?;
    let field = |key: &str| info.get(key).and_then(Value::as_u64);
    let chunks = info
        .get("chunks")
        .and_then(Value::as_array)
        .and_then(|c| match c.as_slice() {
            [a, b] => Some(a.as_u64()?..b.as_u64()?),
            _ => None,
        });
    let (Some(command), Some(index), Some(count), Some(chunks), Some(total)) = (
        info.get("command").and_then(Value::as_str),
        field("index"),
        field("count"),
        chunks,
        field("total"),
    ) else {
        return Err(not_shard("its \"shard\" field is malformed".into()));
    };
    let command = ShardedCommand::from_name(command)
        .ok_or_else(|| not_shard(format!("unknown command \"{command}\"")))?;
    let shard = Shard::new(index, count).map_err(|e| not_shard(e.to_string()))?;
    let seconds = match doc.get("seconds") {
        None => None,
        Some(value) => Some(
            value
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| {
                    usage(format!(
                        "'{name}': \"seconds\" is {value}, not a finite, non-negative time"
                    ))
                })?,
        ),
    };
    Ok(ShardDoc {
        path: path.to_owned(),
        command,
        shard,
        chunks,
        total,
        items: 0,
        seconds,
        doc,
    })
}

/// Checks that `docs` are the complete set of shards of one run (`check_shard_set`) and
/// returns them in shard order, each with the work items of its chunks.
fn check_set(docs: Vec<ShardDoc>) -> anyhow::Result<Vec<ShardDoc>> {
    let headers: Vec<ShardHeader> = docs
        .iter()
        .map(|d| ShardHeader {
            command: d.command,
            shard: d.shard,
            chunks: d.chunks.clone(),
            total: d.total,
        })
        .collect();
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
            let doc = &docs[position];
            usage(format!(
                "{}: chunks {}..{} are not those of shard {} of a run of {} {}",
                doc.name(),
                doc.chunks.start,
                doc.chunks.end,
                doc.shard,
                doc.total,
                doc.command.name()
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
    match docs[0].command {
        ShardedCommand::BlackjackSimulate => merge_simulate(&docs, args.json),
        ShardedCommand::PokerTable => merge_table(&docs, args.json),
        ShardedCommand::PokerEquity => merge_equity(&docs, args.json),
        ShardedCommand::Fairness => merge_fairness(&docs, args.json),
    }
}

/// The selection a shard ran with, as its document names it (`sampler` only for `fairness`).
fn selection(doc: &ShardDoc, algorithm: &str, backend: &str) -> anyhow::Result<(Selection, u64)> {
    let seed = doc.u64("seed")?;
    let sampler = match doc.doc.get("sampler") {
        Some(_) => doc.str("sampler")?.to_owned(),
        None => String::from("backend"),
    };
    Ok((
        Selection {
            algorithm: algorithm.to_owned(),
            backend: backend.to_owned(),
            sampler,
            seed: Some(seed),
        },
        seed,
    ))
}

/// What a `simulate --json` document says about its run, besides its tallies.
struct SimulateRun {
    rules: Rules,
    betting: Betting,
    strategy: ExactStrategy,
    algorithm: String,
    backend: String,
    seed: u64,
    exact_infinite: f64,
}

impl SimulateRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<SimulateRun> {
        let get = |key: &str| doc.doc.get(key).ok_or_else(|| doc.malformed(key));
        let rules = Rules::deserialize(get("rules")?).map_err(|_| doc.malformed("rules"))?;
        let strategy = Strategy::basic(&rules).map_err(|_| doc.malformed("rules"))?;
        Ok(SimulateRun {
            rules,
            betting: Betting::deserialize(get("betting")?).map_err(|_| doc.malformed("betting"))?,
            strategy: doc
                .str("strategy")?
                .parse::<ExactStrategy>()
                .map_err(|_| doc.malformed("strategy"))?,
            algorithm: doc.str("algorithm")?.to_owned(),
            backend: doc.str("backend")?.to_owned(),
            seed: doc.u64("seed")?,
            // Recomputed, as the run computes it: the file's value is checked, not trusted.
            exact_infinite: SimReport::infinite_deck_edge(&strategy),
        })
    }

    /// The tallies of `doc`, checked against its chunks under this run's rules and betting.
    fn result(&self, doc: &ShardDoc) -> anyhow::Result<SimResult> {
        let config = SimConfig {
            rounds: doc.total,
            seed: self.seed,
            betting: self.betting,
            progress: None,
        };
        SimResult::from_json_fields(&doc.doc, &config, &self.rules, doc.chunks.clone())
            .map_err(|why| doc.refuse(why))
    }

    fn report(&self, result: SimResult, seconds: f64) -> SimReport {
        SimReport {
            rules: self.rules,
            betting: self.betting,
            strategy: self.strategy,
            algorithm: self.algorithm.clone(),
            backend: self.backend.clone(),
            seed: self.seed,
            seconds,
            exact_infinite: self.exact_infinite,
            result,
        }
    }

    /// The document a shard with `result` and `doc`'s `shard` and `seconds` prints.
    fn shard_document(&self, result: &SimResult, doc: &ShardDoc) -> anyhow::Result<Value> {
        let seconds = doc.seconds.ok_or_else(|| doc.malformed("seconds"))?;
        let mut rendered = self.report(result.clone(), seconds).json();
        rendered.insert(
            "shard".into(),
            doc.doc.get("shard").cloned().unwrap_or_default(),
        );
        Ok(Value::Object(rendered))
    }
}

fn merge_simulate(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = SimulateRun::read(first)?;
    let mut merged: Option<SimResult> = None;
    let mut seconds = 0.0;
    for doc in docs {
        let own = SimulateRun::read(doc)?;
        let part = own.result(doc)?;
        doc.matches(&own.shard_document(&part, doc)?)?;
        doc.same_run_as(first, &run.shard_document(&part, doc)?)?;
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
    let result = merged.ok_or_else(|| first.malformed("counts"))?;
    let report = run.report(result, seconds);
    if json {
        return print_json(&Value::Object(report.json()));
    }
    let mut out = stdout();
    blackjack::write_simulate_text(&report, &mut out)?;
    out.flush()?;
    Ok(())
}

/// The tolerance and confidence a judged shard was run with (its `tolerance` and `confidence`),
/// checked as the command line checks them.
fn equivalence(doc: &ShardDoc) -> anyhow::Result<Equivalence> {
    let confidence = doc
        .doc
        .get("confidence")
        .and_then(Value::as_f64)
        .ok_or_else(|| doc.malformed("confidence"))?;
    let tolerance = match doc.doc.get("tolerance") {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_f64().ok_or_else(|| doc.malformed("tolerance"))?),
    };
    crate::common::checked_equivalence(tolerance, confidence).map_err(|e| doc.refuse(e))
}

/// What a `poker table --hands --json` document says about its run, besides its counts.
struct TableRun {
    selection: Selection,
    seed: u64,
    fresh: bool,
    equivalence: Equivalence,
}

impl TableRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<TableRun> {
        let mc = doc
            .doc
            .get("monte_carlo")
            .ok_or_else(|| doc.malformed("monte_carlo"))?;
        let text = |key: &str| {
            mc.get(key)
                .and_then(Value::as_str)
                .ok_or_else(|| doc.malformed("monte_carlo"))
        };
        let fresh = mc
            .get("fresh_deck")
            .and_then(Value::as_bool)
            .ok_or_else(|| doc.malformed("monte_carlo"))?;
        let seed = mc
            .get("seed")
            .and_then(Value::as_u64)
            .ok_or_else(|| doc.malformed("monte_carlo"))?;
        Ok(TableRun {
            selection: Selection {
                algorithm: text("algorithm")?.to_owned(),
                backend: text("backend")?.to_owned(),
                sampler: String::from("backend"),
                seed: Some(seed),
            },
            seed,
            fresh,
            equivalence: equivalence(doc)?,
        })
    }

    /// The document a shard with `report` and the `shard` object `shard` prints.
    fn document(&self, report: &poker::McReport, shard: Option<Value>) -> anyhow::Result<Value> {
        poker_cmd::table_document(
            &report.counts,
            (report, &self.selection, self.seed, self.fresh),
            shard,
            &self.equivalence,
        )
    }
}

/// The category counts of a `poker table` shard, checked against its chunks.
fn table_counts(doc: &ShardDoc) -> anyhow::Result<CategoryCounts> {
    let counts = doc
        .doc
        .get("counts")
        .and_then(Value::as_object)
        .ok_or_else(|| doc.malformed("counts"))?;
    if let Some(unknown) = counts
        .keys()
        .find(|k| !Category::ALL.iter().any(|c| c.key() == k.as_str()))
    {
        return Err(doc.refuse(format!("\"counts\" has an unknown field \"{unknown}\"")));
    }
    let mut part = CategoryCounts::default();
    let mut hands = 0u64;
    for category in Category::ALL {
        let count = counts
            .get(category.key())
            .and_then(Value::as_u64)
            .ok_or_else(|| doc.malformed("counts"))?;
        part.counts[category.index()] = count;
        hands = hands
            .checked_add(count)
            .ok_or_else(|| doc.refuse("its \"counts\" add up past 2^64 − 1"))?;
    }
    if hands != doc.items || doc.u64("total")? != hands {
        return Err(doc.refuse(format!(
            "its \"counts\" add up to {hands} hands (\"total\" {}) where chunks {}..{} deal {}",
            doc.doc
                .get("total")
                .map_or_else(String::new, Value::to_string),
            doc.chunks.start,
            doc.chunks.end,
            doc.items
        )));
    }
    Ok(part)
}

fn merge_table(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = TableRun::read(first)?;
    let mut sum = CategoryCounts::default();
    for doc in docs {
        let own = TableRun::read(doc)?;
        let counts = table_counts(doc)?;
        let part = poker::McReport::from_counts(counts).map_err(|e| doc.refuse(e))?;
        let shard = doc.doc.get("shard").cloned();
        doc.matches(&own.document(&part, shard.clone())?)?;
        doc.same_run_as(first, &run.document(&part, shard)?)?;
        for (total, count) in sum.counts.iter_mut().zip(counts.counts) {
            *total = total
                .checked_add(count)
                .ok_or_else(|| doc.refuse("its \"counts\" add up past 2^64 − 1"))?;
        }
    }
    let report = poker::McReport::from_counts(sum).map_err(|e| usage(e.to_string()))?;
    poker_cmd::print_table(
        7,
        &report.counts,
        &report.exact,
        Some((&report, &run.selection, run.seed, run.fresh)),
        json,
        None,
        &run.equivalence,
    )
}

/// What a `poker equity --json` document says about its run, besides its tallies.
struct EquityRun {
    spot: poker::Spot,
    selection: Selection,
    seed: u64,
}

impl EquityRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<EquityRun> {
        let report = Self::report(doc)?;
        let spot = report.spot().map_err(|e| doc.refuse(e))?;
        let (selection, seed) = selection(doc, doc.str("algorithm")?, doc.str("backend")?)?;
        Ok(EquityRun {
            spot,
            selection,
            seed,
        })
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
        Ok(poker_cmd::equity_document(
            &report,
            &self.spot,
            Some((self.seed, &self.selection)),
            shard,
        )?)
    }
}

fn merge_equity(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = EquityRun::read(first)?;
    let mut sum = poker::EquityTally::default();
    for doc in docs {
        let own = EquityRun::read(doc)?;
        let part = own.tally(doc)?;
        let shard = doc.doc.get("shard").cloned();
        doc.matches(&own.document(&part, shard.clone())?)?;
        doc.same_run_as(first, &run.document(&part, shard)?)?;
        sum = sum
            .checked_merge(part)
            .ok_or_else(|| doc.refuse("the tallies add up past 2^64 − 1"))?;
    }
    let report = sum.report(&run.spot, false);
    poker_cmd::print_equity(
        &report,
        &run.spot,
        Some((run.seed, &run.selection)),
        json,
        None,
    )
}

/// What a `fairness --json` document says about its run, besides its counts.
struct FairnessRun {
    n: usize,
    test: TestKind,
    selection: Selection,
    seed: u64,
    seed_from_os: bool,
    equivalence: Equivalence,
}

impl FairnessRun {
    fn read(doc: &ShardDoc) -> anyhow::Result<FairnessRun> {
        let n = usize::try_from(doc.u64("n")?).map_err(|_| doc.malformed("n"))?;
        let test: TestKind = serde_json::from_value(
            doc.doc
                .get("test")
                .cloned()
                .ok_or_else(|| doc.malformed("test"))?,
        )
        .map_err(|_| doc.malformed("test"))?;
        let (selection, seed) = selection(doc, doc.str("algorithm")?, doc.str("backend")?)?;
        let seed_from_os = doc
            .doc
            .get("seed_from_os")
            .and_then(Value::as_bool)
            .ok_or_else(|| doc.malformed("seed_from_os"))?;
        Ok(FairnessRun {
            n,
            test,
            selection,
            seed,
            seed_from_os,
            equivalence: equivalence(doc)?,
        })
    }

    /// The report of `counts` over `trials` shuffles under this run's test and size.
    fn report(&self, trials: u64, counts: Vec<u64>) -> anyhow::Result<FairnessReport> {
        report_from_counts(self.test, self.n, trials, counts).map_err(|e| usage(e.to_string()))
    }

    /// The document a shard with `report` and the `shard` object `shard` prints.
    fn document(&self, report: &FairnessReport, shard: Option<Value>) -> anyhow::Result<Value> {
        fairness::document(
            report,
            &self.selection,
            self.seed,
            self.seed_from_os,
            shard,
            &self.equivalence,
        )
    }
}

/// The counts and shuffles of a `fairness` shard, checked against its chunks.
fn fairness_counts(doc: &ShardDoc) -> anyhow::Result<(Vec<u64>, u64)> {
    let counts = doc
        .doc
        .get("counts")
        .and_then(Value::as_array)
        .ok_or_else(|| doc.malformed("counts"))?
        .iter()
        .map(Value::as_u64)
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| doc.malformed("counts"))?;
    let shuffles = doc.u64("trials")?;
    if shuffles != doc.items {
        return Err(doc.refuse(format!(
            "\"trials\" is {shuffles} where chunks {}..{} shuffle {}",
            doc.chunks.start, doc.chunks.end, doc.items
        )));
    }
    Ok((counts, shuffles))
}

fn merge_fairness(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let run = FairnessRun::read(first)?;
    let mut trials = 0u64;
    let mut sum: Vec<u64> = Vec::new();
    for doc in docs {
        let own = FairnessRun::read(doc)?;
        let (counts, shuffles) = fairness_counts(doc)?;
        let part = own
            .report(shuffles, counts.clone())
            .map_err(|e| doc.refuse(e))?;
        let shard = doc.doc.get("shard").cloned();
        doc.matches(&own.document(&part, shard.clone())?)?;
        // Rendered with the first shard's test and size, or refused as another run's.
        let theirs = run.report(shuffles, counts.clone()).map_err(|_| {
            usage(format!(
                "{} and {} are shards of different runs: \"n\" or \"test\" differs",
                first.name(),
                doc.name()
            ))
        })?;
        doc.same_run_as(first, &run.document(&theirs, shard)?)?;
        if sum.is_empty() {
            sum = vec![0; counts.len()];
        }
        for (total, count) in sum.iter_mut().zip(counts) {
            *total = total
                .checked_add(count)
                .ok_or_else(|| doc.malformed("counts"))?;
        }
        trials = trials
            .checked_add(shuffles)
            .ok_or_else(|| doc.malformed("trials"))?;
    }
    let report = run.report(trials, sum)?;
    fairness::print_report(
        &report,
        &run.selection,
        run.seed,
        run.seed_from_os,
        json,
        None,
        &run.equivalence,
    )
}
