//! `fairdeal algorithms` and `fairdeal backends`: the library's self-descriptions as tables or
//! JSON. Nothing here is typed in: every row comes from an algorithm crate's `INFO` (through
//! `fairdeal::ALGORITHMS`) or from `fairdeal::rng::backends()`.

use std::io::Write;

use fairdeal::rng::{BackendInfo, DEFAULT_BACKEND, backends};
use fairdeal::{ALGORITHMS, AlgorithmInfo, DEFAULT_ALGORITHM};
use serde::Serialize;

use crate::common::{Table, print_json, stdout};

/// How many elements a standard deck has: the reach label says whether a generator can produce
/// all `52!` orders of one.
const DECK: u32 = 52;

/// Arguments of `fairdeal algorithms`.
#[derive(Debug, clap::Args)]
pub(crate) struct AlgorithmsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fairdeal backends`.
#[derive(Debug, clap::Args)]
pub(crate) struct BackendsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct AlgorithmRow {
    name: &'static str,
    complexity: &'static str,
    fair: bool,
    default: bool,
    summary: &'static str,
}

impl From<&AlgorithmInfo> for AlgorithmRow {
    fn from(info: &AlgorithmInfo) -> Self {
        Self {
            name: info.name,
            complexity: info.complexity.notation(),
            fair: info.fair,
            default: info.name == DEFAULT_ALGORITHM,
            summary: info.summary,
        }
    }
}

#[derive(Serialize)]
struct BackendRow {
    name: &'static str,
    state_bits: u32,
    crypto: bool,
    max_full_permutation_n: u32,
    reaches_all_deck_orders: bool,
    sampler: &'static str,
    default: bool,
    summary: &'static str,
}

impl From<&BackendInfo> for BackendRow {
    fn from(info: &BackendInfo) -> Self {
        Self {
            name: info.name,
            state_bits: info.state_bits,
            crypto: info.crypto,
            max_full_permutation_n: info.max_full_permutation_n,
            reaches_all_deck_orders: info.reaches_every_order(DECK),
            sampler: info.sampler,
            default: info.name == DEFAULT_BACKEND,
            summary: info.summary,
        }
    }
}

/// Runs `fairdeal algorithms`.
pub(crate) fn run_algorithms(args: &AlgorithmsArgs) -> anyhow::Result<()> {
    let rows: Vec<AlgorithmRow> = ALGORITHMS.iter().map(AlgorithmRow::from).collect();
    if args.json {
        return print_json(&rows);
    }
    let table = Table {
        header: vec!["name", "complexity", "fair", "summary"],
        rows: rows
            .iter()
            .map(|r| {
                let name = marked_default(r.name, r.default);
                let fair = if r.fair { "yes" } else { "NO (biased)" };
                vec![
                    name,
                    r.complexity.to_owned(),
                    fair.to_owned(),
                    r.summary.to_owned(),
                ]
            })
            .collect(),
    };
    let mut out = stdout();
    table.write(&mut out)?;
    out.flush()?;
    Ok(())
}

/// Runs `fairdeal backends`.
pub(crate) fn run_backends(args: &BackendsArgs) -> anyhow::Result<()> {
    let rows: Vec<BackendRow> = backends().iter().map(BackendRow::from).collect();
    if args.json {
        return print_json(&rows);
    }
    let table = Table {
        header: vec!["name", "state bits", "crypto", "max n", "sampler", "notes"],
        rows: rows
            .iter()
            .map(|r| {
                let name = marked_default(r.name, r.default);
                let crypto = if r.crypto { "yes" } else { "NOT cryptographic" };
                vec![
                    name,
                    r.state_bits.to_string(),
                    crypto.to_owned(),
                    r.max_full_permutation_n.to_string(),
                    r.sampler.to_owned(),
                    notes(r),
                ]
            })
            .collect(),
    };
    let mut out = stdout();
    table.write(&mut out)?;
    writeln!(
        out,
        "\nmax n: the largest n for which every one of the n! orders is reachable from the \
         generator's state (a deck has {DECK}! ≈ 2^225.6 orders)."
    )?;
    out.flush()?;
    Ok(())
}

fn notes(row: &BackendRow) -> String {
    let reach = if row.reaches_all_deck_orders {
        format!("reaches all {DECK}! orders")
    } else {
        format!("cannot reach all {DECK}! orders")
    };
    format!("{reach}; {}", row.summary)
}

/// The name as the tables print it: `chacha12 (default)` for the default, else the bare name.
fn marked_default(name: &str, default: bool) -> String {
    if default {
        format!("{name} (default)")
    } else {
        name.to_owned()
    }
}
