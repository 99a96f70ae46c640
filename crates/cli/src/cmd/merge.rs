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

use std::fs::File;
use std::io::{Read as _, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::Shard;
use fairdeal::blackjack::{CHUNK_ROUNDS, ExactStrategy};
use fairdeal::fairness::{CHUNK_TRIALS, TestKind, report_from_counts};
use fairdeal::poker::{self as poker, CHUNK_HANDS, Category, CategoryCounts, EQUITY_CHUNK};
use serde_json::{Map, Value, json};

use crate::cmd::{blackjack, fairness, poker as poker_cmd};
use crate::common::{Selection, print_json, stdout, usage};

/// `shard.command` of `blackjack simulate`.
pub(crate) const BLACKJACK_SIMULATE: &str = "blackjack simulate";
/// `shard.command` of `poker table --hands`.
pub(crate) const POKER_TABLE: &str = "poker table";
/// `shard.command` of `poker equity` (Monte Carlo).
pub(crate) const POKER_EQUITY: &str = "poker equity";
/// `shard.command` of `fairness`.
pub(crate) const FAIRNESS: &str = "fairness";

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

/// `--shard I/N`'s parser: clap reports the library's message as a usage error.
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    text.parse()
        .map_err(|e: fairdeal::ShardError| e.to_string())
}

/// The `shard` object a shard's `--json` document carries: what merging needs beyond the
/// tallies (the run's other parameters are the document's own fields).
pub(crate) fn shard_json(command: &str, shard: Shard, chunks: Range<u64>, total: u64) -> Value {
    json!({
        "command": command,
        "index": shard.index(),
        "count": shard.count(),
        "chunks": [chunks.start, chunks.end],
        "total": total,
    })
}

/// The line a shard's text output ends with.
pub(crate) fn write_shard_note(
    out: &mut impl Write,
    shard: Shard,
    total: u64,
    noun: &str,
) -> anyhow::Result<()> {
    writeln!(
        out,
        "shard {shard} of a run of {total} {noun}: `fairdeal merge` adds the shards' --json \
         outputs up to the whole run"
    )?;
    Ok(())
}

/// One shard's document, read and checked for its `shard` object.
struct ShardDoc {
    path: PathBuf,
    command: String,
    shard: Shard,
    chunks: Range<u64>,
    total: u64,
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
            self.command
        ))
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
    if ![BLACKJACK_SIMULATE, POKER_TABLE, POKER_EQUITY, FAIRNESS].contains(&command) {
        return Err(not_shard(format!("unknown command \"{command}\"")));
    }
    let shard = Shard::new(index, count).map_err(|e| not_shard(e.to_string()))?;
    Ok(ShardDoc {
        path: path.to_owned(),
        command: command.to_owned(),
        shard,
        chunks,
        total,
        doc,
    })
}

/// Work items per chunk of each command: how its chunks are cut.
fn chunk_size(command: &str) -> u64 {
    match command {
        BLACKJACK_SIMULATE => CHUNK_ROUNDS,
        POKER_TABLE => CHUNK_HANDS,
        POKER_EQUITY => EQUITY_CHUNK,
        _ => CHUNK_TRIALS,
    }
}

/// A document without the fields a shard's tallies decide (and without `shard` and
/// `seconds`): what every shard of one run has in common.
fn identity(command: &str, doc: &Map<String, Value>) -> Map<String, Value> {
    let mut doc = doc.clone();
    let drop: &[&str] = match command {
        BLACKJACK_SIMULATE => &[
            "rounds",
            "house_edge_percent",
            "std_error_percent",
            "sd_per_round",
            "counts",
            "initial_wagers",
            "sums",
        ],
        POKER_TABLE => &["total", "counts", "p_value"],
        POKER_EQUITY => &["trials"],
        _ => &[
            "trials",
            "counts",
            "expected",
            "chi2",
            "df",
            "p_value",
            "chi2_upper_tail_p_value",
            "p_value_method",
            "replicates",
            "two_sided",
            "fair",
            "verdict",
            "samples_needed",
        ],
    };
    for key in drop.iter().chain(&["shard", "seconds"]) {
        doc.remove(*key);
    }
    if let Some(Value::Object(mc)) = doc.get_mut("monte_carlo") {
        for key in ["z_scores", "category_p_values", "most_deviant"] {
            mc.remove(key);
        }
    }
    if let Some(Value::Array(players)) = doc.get_mut("players") {
        for player in players.iter_mut().filter_map(Value::as_object_mut) {
            player.retain(|key, _| key == "hand");
        }
    }
    doc
}

/// Checks that `docs` are the complete set of shards of one run and returns them in shard
/// order.
fn check_set(mut docs: Vec<ShardDoc>) -> anyhow::Result<Vec<ShardDoc>> {
    docs.sort_by_key(|d| d.shard.index());
    let first = &docs[0];
    let reference = identity(&first.command, &first.doc);
    for doc in &docs[1..] {
        let different = |what: String| {
            usage(format!(
                "{} and {} are shards of different runs: {what}",
                first.name(),
                doc.name()
            ))
        };
        if doc.command != first.command {
            return Err(different(format!(
                "\"{}\" vs \"{}\"",
                first.command, doc.command
            )));
        }
        if doc.shard.count() != first.shard.count() {
            return Err(different(format!(
                "{} vs {} shards",
                first.shard.count(),
                doc.shard.count()
            )));
        }
        if doc.total != first.total {
            return Err(different(format!(
                "a total of {} vs {}",
                first.total, doc.total
            )));
        }
        let other = identity(&doc.command, &doc.doc);
        if other != reference {
            let key = reference
                .keys()
                .chain(other.keys())
                .find(|k| reference.get(*k) != other.get(*k))
                .cloned()
                .unwrap_or_default();
            let show = |v: Option<&Value>| v.map_or_else(|| "absent".to_owned(), Value::to_string);
            return Err(different(format!(
                "\"{key}\" differs ({} vs {})",
                show(reference.get(&key)),
                show(other.get(&key))
            )));
        }
    }
    for pair in docs.windows(2) {
        if pair[0].shard == pair[1].shard {
            return Err(usage(format!(
                "shard {} is given twice: {} and {}",
                pair[0].shard,
                pair[0].name(),
                pair[1].name()
            )));
        }
    }
    let count = first.shard.count();
    if docs.len() as u64 != count {
        let have: Vec<u64> = docs.iter().map(|d| d.shard.index()).collect();
        let missing: Vec<u64> = (1..=count)
            .filter(|i| have.binary_search(i).is_err())
            .collect();
        let mut list: Vec<String> = missing
            .iter()
            .take(5)
            .map(|i| format!("{i}/{count}"))
            .collect();
        if missing.len() > list.len() {
            list.push("…".into());
        }
        return Err(usage(format!(
            "shard {} missing: a merge needs all {count} shards of the run",
            if missing.len() == 1 {
                format!("{} is", list[0])
            } else {
                format!("{} are", list.join(", "))
            }
        )));
    }
    let chunks = first.total.div_ceil(chunk_size(&first.command));
    for doc in &docs {
        let expected = doc.shard.chunk_range(chunks).ok();
        if expected.as_ref() != Some(&doc.chunks) {
            return Err(usage(format!(
                "{}: chunks {}..{} are not those of shard {} of a run of {} {}",
                doc.name(),
                doc.chunks.start,
                doc.chunks.end,
                doc.shard,
                doc.total,
                doc.command
            )));
        }
    }
    Ok(docs)
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
    let seconds: f64 = docs
        .iter()
        .filter_map(|d| d.doc.get("seconds").and_then(Value::as_f64))
        .sum();
    match docs[0].command.as_str() {
        BLACKJACK_SIMULATE => merge_simulate(&docs, seconds, args.json),
        POKER_TABLE => merge_table(&docs, args.json),
        POKER_EQUITY => merge_equity(&docs, args.json),
        _ => merge_fairness(&docs, args.json),
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

fn merge_simulate(docs: &[ShardDoc], seconds: f64, json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let seed = first.u64("seed")?;
    let mut merged: Option<fairdeal::blackjack::SimResult> = None;
    for doc in docs {
        let part = blackjack::result_from_fields(&doc.doc, seed, doc.total, doc.chunks.clone())
            .ok_or_else(|| {
                usage(format!(
                    "{}: its tallies (\"counts\", \"initial_wagers\", \"sums\") are missing or \
                     malformed",
                    doc.name()
                ))
            })?;
        match &mut merged {
            None => merged = Some(part),
            Some(m) => m.merge(&part).map_err(|e| usage(e.to_string()))?,
        }
    }
    let result = merged.ok_or_else(|| first.malformed("counts"))?;
    if json {
        let mut doc = first.doc.clone();
        doc.remove("shard");
        doc.extend(blackjack::result_fields(&result));
        doc.insert("seconds".into(), json!(seconds));
        return print_json(&Value::Object(doc));
    }
    let get = |key: &str| first.doc.get(key).ok_or_else(|| first.malformed(key));
    let report = blackjack::SimulateReport {
        rules: blackjack::rules_from_json(get("rules")?).ok_or_else(|| first.malformed("rules"))?,
        betting: blackjack::betting_from_json(get("betting")?)
            .ok_or_else(|| first.malformed("betting"))?,
        strategy: first
            .str("strategy")?
            .parse::<ExactStrategy>()
            .map_err(|_| first.malformed("strategy"))?,
        algorithm: first.str("algorithm")?.to_owned(),
        backend: first.str("backend")?.to_owned(),
        seed,
        seconds,
        exact_infinite: get("strategy_infinite_deck_edge_percent")?
            .as_f64()
            .ok_or_else(|| first.malformed("strategy_infinite_deck_edge_percent"))?,
        result,
    };
    let mut out = stdout();
    report.write_text(&mut out)?;
    out.flush()?;
    Ok(())
}

fn merge_table(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let mut sum = CategoryCounts::default();
    for doc in docs {
        let counts = doc
            .doc
            .get("counts")
            .ok_or_else(|| doc.malformed("counts"))?;
        let mut part = CategoryCounts::default();
        for category in Category::ALL {
            part.counts[category.index()] = counts
                .get(category.key())
                .and_then(Value::as_u64)
                .ok_or_else(|| doc.malformed("counts"))?;
        }
        sum.merge(&part);
    }
    let mc = first
        .doc
        .get("monte_carlo")
        .ok_or_else(|| first.malformed("monte_carlo"))?;
    let text = |key: &str| {
        mc.get(key)
            .and_then(Value::as_str)
            .ok_or_else(|| first.malformed("monte_carlo"))
    };
    let fresh = mc
        .get("fresh_deck")
        .and_then(Value::as_bool)
        .ok_or_else(|| first.malformed("monte_carlo"))?;
    let seed = mc
        .get("seed")
        .and_then(Value::as_u64)
        .ok_or_else(|| first.malformed("monte_carlo"))?;
    let sel = Selection {
        algorithm: text("algorithm")?.to_owned(),
        backend: text("backend")?.to_owned(),
        sampler: String::from("backend"),
        seed: Some(seed),
    };
    let report = poker::McReport::from_counts(sum).map_err(|e| usage(e.to_string()))?;
    poker_cmd::print_table(
        7,
        &report.counts,
        &report.exact,
        Some((&report, &sel, seed, fresh)),
        json,
        None,
    )
}

fn merge_equity(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let players = first
        .doc
        .get("players")
        .and_then(Value::as_array)
        .ok_or_else(|| first.malformed("players"))?;
    let hands = players
        .iter()
        .map(|p| p.get("hand").and_then(Value::as_str))
        .collect::<Option<Vec<&str>>>()
        .ok_or_else(|| first.malformed("players"))?;
    let spot = poker::Spot::parse(&hands, first.str("board")?, first.str("dead")?)
        .map_err(|e| usage(format!("{}: {e}", first.name())))?;
    let mut sum = poker::EquityTally::default();
    for doc in docs {
        let players = doc
            .doc
            .get("players")
            .and_then(Value::as_array)
            .ok_or_else(|| doc.malformed("players"))?;
        let mut part = poker::EquityTally {
            deals: doc.u64("trials")?,
            ..poker::EquityTally::default()
        };
        for (i, player) in players.iter().enumerate().take(9) {
            let count = |key: &str| {
                player
                    .get(key)
                    .and_then(Value::as_u64)
                    .ok_or_else(|| doc.malformed("players"))
            };
            part.wins[i] = count("wins")?;
            part.ties[i] = count("ties")?;
            part.shares[i] = count("shares")?;
        }
        sum = sum.merge(part);
    }
    let (sel, seed) = selection(first, first.str("algorithm")?, first.str("backend")?)?;
    let report = sum.report(&spot, false);
    poker_cmd::print_equity(&report, &spot, Some((seed, &sel)), json, None)
}

fn merge_fairness(docs: &[ShardDoc], json: bool) -> anyhow::Result<()> {
    let first = &docs[0];
    let n = usize::try_from(first.u64("n")?).map_err(|_| first.malformed("n"))?;
    let test: TestKind = serde_json::from_value(
        first
            .doc
            .get("test")
            .cloned()
            .ok_or_else(|| first.malformed("test"))?,
    )
    .map_err(|_| first.malformed("test"))?;
    let mut trials = 0u64;
    let mut counts: Vec<u64> = Vec::new();
    for doc in docs {
        let part = doc
            .doc
            .get("counts")
            .and_then(Value::as_array)
            .ok_or_else(|| doc.malformed("counts"))?;
        if counts.is_empty() {
            counts = vec![0; part.len()];
        }
        if part.len() != counts.len() {
            return Err(doc.malformed("counts"));
        }
        for (sum, value) in counts.iter_mut().zip(part) {
            let value = value.as_u64().ok_or_else(|| doc.malformed("counts"))?;
            *sum = sum
                .checked_add(value)
                .ok_or_else(|| doc.malformed("counts"))?;
        }
        trials = trials
            .checked_add(doc.u64("trials")?)
            .ok_or_else(|| doc.malformed("trials"))?;
    }
    let report = report_from_counts(test, n, trials, counts).map_err(|e| usage(format!("{e}")))?;
    let (sel, seed) = selection(first, first.str("algorithm")?, first.str("backend")?)?;
    let seed_from_os = first
        .doc
        .get("seed_from_os")
        .and_then(Value::as_bool)
        .ok_or_else(|| first.malformed("seed_from_os"))?;
    fairness::print_report(&report, &sel, seed, seed_from_os, json, None)
}
