//! `fairdeal poker`: the exact and Monte Carlo 5/7-card category tables, and Hold'em equity.
//!
//! `table --exhaustive` enumerates every hand (C(52,7) = 133,784,560 for seven cards) with the
//! incremental evaluator; `table --hands N` deals N random 7-card hands with any algorithm and
//! backend (partial by default: 7 draws and 7 swaps per hand on a reused deck) and tests them
//! against the exact table. `equity` enumerates every deal when that is small enough
//! (heads-up preflop is 1,712,304 boards) and runs Monte Carlo otherwise. All engines are
//! `fairdeal-poker`'s; this module parses, runs on the chosen number of threads and prints.

use std::io::Write;
use std::num::NonZeroUsize;

use fairdeal::Rng;
use fairdeal::Shard;
use fairdeal::fairness::TableVerdict;
use fairdeal::poker::document::{EquityRunDoc, McRun, TableDoc};
use fairdeal::poker::{
    self as poker, Category, CategoryCounts, Deal, EquityConfig, EquityReport, McConfig, McReport,
    PokerError, Spot,
};
use fairdeal::rng::Backend;
use serde_json::Value;

use fairdeal_cli::args::{RandomArgs, ThreadsArg, count_parser};

use crate::common::{
    Resolved, Selection, Table, WithResolved, format_p, plural, print_json, progress_bar,
    status_after_write, stdout, usage, warn_if_unfair, with_selection,
};
use crate::shard_arg::{ShardArg, ShardedCommand};

/// The default algorithm for dealing: the partial shuffle, O(k) per hand.
const DEAL_ALGORITHM: &str = fairdeal::partial::INFO.name;

/// Monte Carlo runs with more hands than this show a progress bar (on a terminal).
const PROGRESS_THRESHOLD: u64 = 20_000_000;

/// Monte Carlo equity runs with more trials than this show a progress bar (each trial
/// evaluates every player's hand, so this is fewer than for tables).
const EQUITY_PROGRESS_THRESHOLD: u64 = 5_000_000;

/// Monte Carlo equity trials when neither `--exact` nor `--trials` is given and the spot is
/// too large to enumerate.
const DEFAULT_TRIALS: u64 = 1_000_000;

/// The most hands `table --hands` deals: 10^12, far beyond any test a person waits for, and
/// small enough that no count can overflow. Refused before any work starts.
const MAX_HANDS: u64 = 1_000_000_000_000;

/// The most deals `equity --trials` simulates (each evaluates every player's hand: fewer
/// than [`MAX_HANDS`]). Refused before any work starts.
const MAX_TRIALS: u64 = 100_000_000_000;

// The CLI's bound lies inside the library's, so the library never refuses what clap accepted.
const _: () = assert!(MAX_TRIALS <= poker::MAX_EQUITY_TRIALS);

/// Arguments of `fairdeal poker`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: PokerCommand,
}

#[derive(Debug, clap::Subcommand)]
enum PokerCommand {
    /// Count hand categories: every 5- or 7-card hand (--exhaustive) or N random 7-card deals
    /// (--hands N) tested against the exact table.
    Table(TableArgs),
    /// Texas Hold'em equity of 2 to 9 hands (known or `random`), exact or Monte Carlo.
    Equity(EquityArgs),
}

/// Arguments of `fairdeal poker table`.
#[derive(Debug, clap::Args)]
#[command(
    group(clap::ArgGroup::new("mode").required(true).args(["exhaustive", "hands"])),
    mut_arg("algo", |a| a.help(algo_help())),
    after_help = concat!("Examples:\n  \
    fairdeal poker table --exhaustive                 # all 133,784,560 7-card hands\n  \
    fairdeal poker table --exhaustive --cards 5 --json\n  \
    fairdeal poker table --hands 10000000 --seed 1    # partial shuffle, 7 swaps per hand\n  \
    fairdeal poker table --hands 1000000 --algo biased --fresh-deck --seed 1   # rejected\n\n",
    "A Monte Carlo table is judged against the exact one: FAIR when, at the stated confidence, \
    no category is more than the tolerance more or less frequent than exact (simultaneous \
    Clopper–Pearson bounds); UNFAIR when a category's exact binomial test rejects \
    (Bonferroni, alpha 1e-6); else INSUFFICIENT, with the hands needed. ",
    crate::verdict::exit_status_help!())
)]
struct TableArgs {
    /// Enumerate every hand (no randomness: --algo, --backend, --seed and --fresh-deck do
    /// not apply).
    #[arg(long, conflicts_with_all = ["algo", "backend", "seed", "fresh_deck", "shard", "tolerance"])]
    exhaustive: bool,

    /// Deal this many random 7-card hands instead (1 to 10^12).
    #[arg(long, value_name = "N", value_parser = count_parser(1, MAX_HANDS))]
    hands: Option<u64>,

    /// Hand size for --exhaustive: 5 or 7 (Monte Carlo deals 7).
    #[arg(long, value_name = "5|7", default_value_t = 7)]
    cards: usize,

    /// Restore the sorted deck before every hand instead of dealing from the previous order
    /// (slower; exposes shuffles that are biased relative to the starting order).
    #[arg(long)]
    fresh_deck: bool,

    #[command(flatten)]
    threads: ThreadsArg,

    #[command(flatten)]
    random: RandomArgs,

    #[command(flatten)]
    shard: ShardArg,

    /// Print the table as JSON.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    equivalence: crate::verdict::EquivalenceArgs,
}

/// Arguments of `fairdeal poker equity`.
#[derive(Debug, clap::Args)]
#[command(mut_arg("algo", |a| a.help(algo_help())), mut_arg("shard", |a| a.requires("trials").help(
    "Monte Carlo only: run shard I of N of the trials (contiguous chunks; needs --seed and \
     --trials); `fairdeal merge` adds the shards' --json outputs up to the whole run's"
)), after_help = "Examples:\n  \
    fairdeal poker equity AsAh KsKd                   # exact: all 1,712,304 boards\n  \
    fairdeal poker equity AhKh QsQd --board 2h7h9c    # exact on the flop\n  \
    fairdeal poker equity AsKs random random --trials 2000000 --seed 7 --json")]
struct EquityArgs {
    /// 2 to 9 hands, each two cards (`AsAh`, `10d10c`) or `random`.
    #[arg(value_name = "HAND", required = true, num_args = 1..)]
    hands: Vec<String>,

    /// Board cards (0, 3, 4 or 5), e.g. `2c7d9h`.
    #[arg(long, value_name = "CARDS", default_value = "")]
    board: String,

    /// Cards known to be out of the deck.
    #[arg(long, value_name = "CARDS", default_value = "")]
    dead: String,

    /// Enumerate every deal (an error when there are too many; no randomness, so --algo,
    /// --backend and --seed do not apply).
    #[arg(long, conflicts_with_all = ["trials", "algo", "backend", "seed", "shard"])]
    exact: bool,

    /// Monte Carlo with this many deals, 1 to 10^11 (default: exact when at most 5,000,000
    /// deals, else 1,000,000 trials).
    #[arg(long, value_name = "N", value_parser = count_parser(1, MAX_TRIALS))]
    trials: Option<u64>,

    #[command(flatten)]
    threads: ThreadsArg,

    #[command(flatten)]
    random: RandomArgs,

    #[command(flatten)]
    shard: ShardArg,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `fairdeal poker`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        PokerCommand::Table(args) => run_table(&args),
        PokerCommand::Equity(args) => run_equity(&args),
    }
}

/// Runs `work` on a pool of `threads` threads (all cores when `None`).
fn on_threads<T: Send>(
    threads: Option<NonZeroUsize>,
    work: impl FnOnce() -> T + Send,
) -> anyhow::Result<T> {
    Ok(crate::common::thread_pool(threads)?.install(work))
}

/// Every `PokerError` comes from what the user typed (cards, board size, counts): a usage error.
fn poker_error(e: &PokerError) -> anyhow::Error {
    usage(e.to_string())
}

fn selection(random: &RandomArgs) -> Selection {
    random.selection(DEAL_ALGORITHM, "backend")
}

/// The help of `--algo`, naming the algorithm that deals by default.
fn algo_help() -> String {
    format!(
        "Shuffling algorithm that deals (see `fairdeal algorithms`) [default: {DEAL_ALGORITHM}]"
    )
}

fn run_table(args: &TableArgs) -> anyhow::Result<()> {
    if args.cards != 5 && args.cards != 7 {
        return Err(usage(format!("--cards must be 5 or 7, not {}", args.cards)));
    }
    if let Some(hands) = args.hands {
        if args.cards != 7 {
            return Err(usage("Monte Carlo tables deal 7 cards: drop --cards 5"));
        }
        let sel = selection(&args.random);
        args.equivalence.equivalence()?;
        warn_if_unfair(&sel.algorithm);
        let deal = if args.fresh_deck {
            Deal::Fresh
        } else {
            Deal::Reuse
        };
        let (report, seed) = on_threads(args.threads.threads, || {
            // The exact table is the reference; build it before the progress bar starts.
            poker::exact_counts(7).map_err(|e| poker_error(&e))?;
            with_selection(
                &sel,
                McTable {
                    hands,
                    deal,
                    seed: sel.seed,
                    shard: args.shard.shard,
                },
            )
        })??;
        let run = mc_run(&sel, seed, args.fresh_deck);
        let finished = print_table(
            7,
            &report.counts,
            &report.exact,
            Some((&report, &run)),
            args.json,
            args.shard.json(ShardedCommand::PokerTable, hands),
            &args.equivalence.equivalence()?,
        );
        // The verdict's exit status comes last, after the shard note.
        let noted = shard_note(args.shard, args.json, ShardedCommand::PokerTable, hands);
        return status_after_write(finished, noted);
    }
    let counts = on_threads(args.threads.threads, || poker::exact_counts(args.cards))?
        .map_err(|e| poker_error(&e))?;
    print_table(
        args.cards,
        &counts,
        &counts.fractions(),
        None,
        args.json,
        None,
        &fairdeal::fairness::Equivalence::default(),
    )
}

/// The run a Monte Carlo command made with `selection` and `seed`, as its documents name it.
fn mc_run(selection: &Selection, seed: u64, fresh_deck: bool) -> McRun {
    McRun {
        algorithm: selection.algorithm.clone(),
        backend: selection.backend.clone(),
        seed,
        fresh_deck,
    }
}

/// After a shard's text report, the line that says it is one.
fn shard_note(
    shard: ShardArg,
    json: bool,
    command: ShardedCommand,
    total: u64,
) -> anyhow::Result<()> {
    if !json {
        let mut out = stdout();
        shard.write_note(&mut out, command, total)?;
        out.flush()?;
    }
    Ok(())
}

/// Prints a category table (text or JSON) judged with the tolerance and confidence of
/// `equivalence`; `mc` adds the Monte Carlo statistics, `shard` a shard's `shard` object
/// (`fairdeal merge` prints merged shards with this function).
pub(crate) fn print_table(
    cards: usize,
    counts: &CategoryCounts,
    exact: &[f64; 9],
    mc: Option<(&McReport, &McRun)>,
    json: bool,
    shard: Option<Value>,
    equivalence: &fairdeal::fairness::Equivalence,
) -> anyhow::Result<()> {
    // A Monte Carlo table's verdict (`crate::verdict`'s exit status); an exact table is the
    // reference itself.
    let judgement = mc.map(|(r, ..)| table_verdict(r, exact, equivalence));
    let verdict = judgement
        .as_ref()
        .map_or(fairdeal::fairness::Verdict::Fair, |j| j.status);
    if json {
        let written = print_json(&table_json(cards, counts, exact, mc, judgement, shard));
        return status_after_write(crate::verdict::finish(verdict), written);
    }
    let written = write_table_text(cards, counts, exact, mc, judgement.as_ref());
    status_after_write(crate::verdict::finish(verdict), written)
}

/// The text form of [`print_table`]'s table.
fn write_table_text(
    cards: usize,
    counts: &CategoryCounts,
    exact: &[f64; 9],
    mc: Option<(&McReport, &McRun)>,
    judgement: Option<&TableVerdict>,
) -> anyhow::Result<()> {
    let total = counts.total();
    let mut header = vec!["category", "count", "fraction", "exact"];
    if mc.is_some() {
        header.extend(["z", "p (exact)"]);
    }
    let rows = Category::ALL
        .iter()
        .rev()
        .map(|&c| {
            let n = counts.get(c);
            let mut row = vec![
                c.name().to_owned(),
                n.to_string(),
                format!("{:.8}", n as f64 / total as f64),
                format!("{:.8}", exact[c.index()]),
            ];
            if let Some((r, ..)) = mc {
                row.push(format!("{:+.2}", r.z(c)));
                row.push(format_p(r.category_p_values[c.index()]));
            }
            row
        })
        .collect();
    let mut out = stdout();
    match mc {
        None => writeln!(out, "All {total} {cards}-card hands:")?,
        Some((_, run)) => writeln!(
            out,
            "{} (7 cards each), algorithm {}, backend {}, seed {}{}:",
            plural(total, "random hand", "random hands"),
            run.algorithm,
            run.backend,
            run.seed,
            if run.fresh_deck {
                ", fresh sorted deck per hand"
            } else {
                ""
            }
        )?,
    }
    Table { header, rows }.write(&mut out)?;
    if let (Some((r, ..)), Some(judgement)) = (mc, judgement) {
        writeln!(
            out,
            "largest deviation: {} (exact binomial p = {}); p = {} over the 9 categories \
             (Bonferroni, alpha = 1e-6)",
            r.most_deviant.name(),
            format_p(r.category_p_values[r.most_deviant.index()]),
            format_p(r.p_value)
        )?;
        writeln!(out, "verdict: {}", judgement.statement)?;
    }
    out.flush()?;
    Ok(())
}

/// The `--json` document [`print_table`] prints for these arguments, as a value: `fairdeal
/// merge` renders each shard's document again from its counts with this and requires it to be
/// the file, so no list of the fields the counts decide is kept anywhere else.
pub(crate) fn table_document(
    counts: &CategoryCounts,
    mc: (&McReport, &McRun),
    shard: Option<Value>,
    equivalence: &fairdeal::fairness::Equivalence,
) -> anyhow::Result<Value> {
    let judgement = table_verdict(mc.0, &mc.0.exact, equivalence);
    Ok(serde_json::to_value(table_json(
        7,
        counts,
        &mc.0.exact,
        Some(mc),
        Some(judgement),
        shard,
    ))?)
}

/// A Monte Carlo table's verdict against the exact table.
fn table_verdict(
    report: &McReport,
    exact: &[f64; 9],
    equivalence: &fairdeal::fairness::Equivalence,
) -> TableVerdict {
    TableVerdict::judge(
        &report.counts.counts,
        exact,
        report.p_value,
        report.most_deviant.name(),
        equivalence,
    )
}

/// The JSON document of a category table.
fn table_json(
    cards: usize,
    counts: &CategoryCounts,
    exact: &[f64; 9],
    mc: Option<(&McReport, &McRun)>,
    judgement: Option<TableVerdict>,
    shard: Option<Value>,
) -> TableDoc<TableVerdict, Value> {
    let mc = mc.map(|(r, run)| (r, run.names(), run.fresh_deck));
    TableDoc::new(cards, counts, exact, mc, judgement, shard)
}

struct McTable {
    hands: u64,
    deal: Deal,
    seed: Option<u64>,
    shard: Option<Shard>,
}

impl WithResolved for McTable {
    type Output = (McReport, u64);

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<(McReport, u64)> {
        let Resolved {
            mut rng, shuffler, ..
        } = resolved;
        // Chunk c uses B::seeded(stream_seed(seed, c)). Without --seed the OS-seeded generator
        // picks the seed, which is reported so the run can be reproduced.
        let seed = self.seed.unwrap_or_else(|| rng.next_u64());
        let bar = progress_bar(self.hands, self.hands > PROGRESS_THRESHOLD, "dealing");
        let config = McConfig {
            hands: self.hands,
            seed,
            deal: self.deal,
            progress: Some(&|n| bar.inc(n)),
            shard: self.shard,
        };
        let report =
            poker::monte_carlo(&shuffler, B::seeded, &config).map_err(|e| poker_error(&e))?;
        bar.finish_and_clear();
        Ok((report, seed))
    }
}

fn run_equity(args: &EquityArgs) -> anyhow::Result<()> {
    let hands: Vec<&str> = args.hands.iter().map(String::as_str).collect();
    let spot = Spot::parse(&hands, &args.board, &args.dead).map_err(|e| poker_error(&e))?;
    let exact =
        args.exact || (args.trials.is_none() && spot.exact_outcomes() <= poker::AUTO_EXACT_LIMIT);
    if exact {
        // Exact equity draws nothing: options that choose the randomness are refused rather
        // than ignored, whether --exact was given or chosen for a small spot.
        let given = args.random.given();
        if !given.is_empty() {
            return Err(usage(format!(
                "{} only apply to Monte Carlo equity, and this spot is enumerated exactly ({} \
                 deals): add --trials N to sample it, or leave them out",
                given.join(", "),
                spot.exact_outcomes()
            )));
        }
        let report = on_threads(args.threads.threads, || poker::equity_exact(&spot))?
            .map_err(|e| poker_error(&e))?;
        return print_equity(&report, &spot, None, args.json, None);
    }
    let sel = selection(&args.random);
    warn_if_unfair(&sel.algorithm);
    let trials = args.trials.unwrap_or(DEFAULT_TRIALS);
    let (report, seed) = on_threads(args.threads.threads, || {
        with_selection(
            &sel,
            McEquity {
                spot: &spot,
                trials,
                seed: sel.seed,
                shard: args.shard.shard,
            },
        )
    })??;
    let shard = args.shard.json(ShardedCommand::PokerEquity, trials);
    let run = mc_run(&sel, seed, false);
    print_equity(&report, &spot, Some(&run), args.json, shard)?;
    shard_note(args.shard, args.json, ShardedCommand::PokerEquity, trials)
}

/// Prints an equity report (text or JSON); `mc` is the seed and selection of a Monte Carlo
/// run, `shard` a shard's `shard` object (`fairdeal merge` prints merged shards with this
/// function too).
pub(crate) fn print_equity(
    report: &EquityReport,
    spot: &Spot,
    mc: Option<&McRun>,
    json: bool,
    shard: Option<Value>,
) -> anyhow::Result<()> {
    if json {
        return print_json(&equity_json(report, spot, mc, shard));
    }
    write_equity(report, spot, mc.map(|run| run.seed))
}

/// The `--json` document of an equity report (see [`print_equity`]): `fairdeal merge` also
/// renders each shard's tallies through it and compares the result with the shard's file.
pub(crate) fn equity_document(
    report: &EquityReport,
    spot: &Spot,
    mc: Option<&McRun>,
    shard: Option<Value>,
) -> serde_json::Result<Value> {
    serde_json::to_value(equity_json(report, spot, mc, shard))
}

fn equity_json(
    report: &EquityReport,
    spot: &Spot,
    mc: Option<&McRun>,
    shard: Option<Value>,
) -> EquityRunDoc<Value> {
    EquityRunDoc::new(report, spot, mc.map(McRun::names), shard)
}

fn write_equity(report: &EquityReport, spot: &Spot, seed: Option<u64>) -> anyhow::Result<()> {
    let mut out = stdout();
    let board: String = spot.board().iter().map(ToString::to_string).collect();
    let deals = plural(report.trials, "deal", "deals");
    let how = match seed {
        None => format!("exact, {deals}"),
        Some(seed) => format!("Monte Carlo, {deals}, seed {seed}"),
    };
    writeln!(
        out,
        "Board {}: {how}",
        if board.is_empty() { "(none)" } else { &board }
    )?;
    let rows = report
        .players
        .iter()
        .map(|p| {
            vec![
                p.seat.to_string(),
                format!("{:.4}%", 100.0 * p.win),
                format!("{:.4}%", 100.0 * p.tie),
                format!("{:.4}%", 100.0 * p.equity),
            ]
        })
        .collect();
    Table {
        header: vec!["hand", "win", "tie", "equity"],
        rows,
    }
    .write(&mut out)?;
    out.flush()?;
    Ok(())
}

struct McEquity<'a> {
    spot: &'a Spot,
    trials: u64,
    seed: Option<u64>,
    shard: Option<Shard>,
}

impl WithResolved for McEquity<'_> {
    type Output = (EquityReport, u64);

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<(EquityReport, u64)> {
        let Resolved {
            mut rng, shuffler, ..
        } = resolved;
        let seed = self.seed.unwrap_or_else(|| rng.next_u64());
        let bar = progress_bar(
            self.trials,
            self.trials > EQUITY_PROGRESS_THRESHOLD,
            "dealing",
        );
        let config = EquityConfig {
            trials: self.trials,
            seed,
            progress: Some(&|n| bar.inc(n)),
            shard: self.shard,
        };
        let report = poker::equity_monte_carlo(self.spot, &shuffler, B::seeded, &config)
            .map_err(|e| poker_error(&e))?;
        bar.finish_and_clear();
        Ok((report, seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subcommand of `fairdeal poker` as clap builds it (doc comments become help texts).
    fn poker_command(name: &str) -> clap::Command {
        let mut root = crate::command();
        root.build();
        root.find_subcommand("poker")
            .and_then(|poker| poker.find_subcommand(name))
            .unwrap_or_else(|| panic!("poker {name}"))
            .clone()
    }

    /// Every help text of a subcommand's own arguments, plus its about line, joined.
    fn argument_help(command: &clap::Command) -> String {
        let mut text = command
            .get_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        for arg in command.get_arguments() {
            for help in [arg.get_help(), arg.get_long_help()].into_iter().flatten() {
                text.push('\n');
                text.push_str(&help.to_string());
            }
        }
        text
    }

    fn help_of(command: &clap::Command, id: &str) -> String {
        let arg = command
            .get_arguments()
            .find(|arg| arg.get_id() == id)
            .unwrap_or_else(|| panic!("--{id}"));
        arg.get_help().map(ToString::to_string).unwrap_or_default()
    }

    /// `10^12` for 1,000,000,000,000 (the help texts write bounds as powers of ten).
    fn power_of_ten(value: u64) -> String {
        let exponent = value.ilog10();
        assert_eq!(10u64.pow(exponent), value, "{value} is not a power of ten");
        format!("10^{exponent}")
    }

    /// `5,000,000`: digits grouped by three, as the help texts write them.
    fn grouped(value: u128) -> String {
        let digits = value.to_string();
        let mut out = String::new();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(digit);
        }
        out
    }

    /// The numbers written in `text` (`10^12`, `5,000,000`, `7`), skipping the digits of card
    /// names (`2c`, `10d`).
    fn numbers_in(text: &str) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let mut numbers = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if !chars[i].is_ascii_digit() || (i > 0 && chars[i - 1].is_ascii_alphanumeric()) {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], ',' | '^')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let card = chars.get(i).is_some_and(|c| "cdhs".contains(*c));
            if !card {
                numbers.push(chars[start..i].iter().collect());
            }
        }
        numbers
    }

    /// The player counts and board sizes `Spot::parse` accepts, found by asking it.
    fn accepted_players_and_boards() -> (Vec<usize>, Vec<usize>) {
        let players = (0..=12)
            .filter(|&n| Spot::parse(&vec!["random"; n], "", "").is_ok())
            .collect();
        let board_cards = ["2c", "3c", "4d", "5h", "8s", "9s", "Jd"];
        let boards = (0..=board_cards.len())
            .filter(|&n| Spot::parse(&["random", "random"], &board_cards[..n].concat(), "").is_ok())
            .collect();
        (players, boards)
    }

    /// C(n, k), exactly.
    fn choose(n: u128, k: u128) -> u128 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    #[test]
    fn numbers_in_the_help_texts_are_the_constants_they_describe() {
        let table = poker_command("table");
        let equity = poker_command("equity");
        let (players, boards) = accepted_players_and_boards();
        let (min_players, max_players) = (players[0], players[players.len() - 1]);
        assert_eq!(players, (min_players..=max_players).collect::<Vec<_>>());

        let hands = format!("1 to {}", power_of_ten(MAX_HANDS));
        let trials = format!("1 to {}", power_of_ten(MAX_TRIALS));
        let auto_exact = format!(
            "exact when at most {} deals",
            grouped(poker::AUTO_EXACT_LIMIT)
        );
        let default_trials = format!("else {} trials", grouped(DEFAULT_TRIALS.into()));
        let seats = format!("{min_players} to {max_players} hands");
        let board = match boards.as_slice() {
            [rest @ .., last] => format!(
                "({} or {last})",
                rest.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            [] => unreachable!("an empty board is accepted"),
        };
        for (command, id, quoted) in [
            (&table, "hands", &hands),
            (&equity, "trials", &trials),
            (&equity, "trials", &auto_exact),
            (&equity, "trials", &default_trials),
            (&equity, "hands", &seats),
            (&equity, "board", &board),
        ] {
            let help = help_of(command, id);
            assert!(
                help.contains(quoted.as_str()),
                "--{id}: {help:?} lacks {quoted:?}"
            );
        }
        let about = equity
            .get_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        assert!(about.contains(&seats), "{about}");

        // The examples' claims: every 7-card hand, and every board of a heads-up preflop spot.
        let heads_up = Spot::parse(&["AsAh", "KsKd"], "", "")
            .unwrap()
            .exact_outcomes();
        let all_boards = format!("all {} boards", grouped(heads_up));
        let all_hands = format!("all {} 7-card hands", grouped(choose(52, 7)));
        for (command, quoted) in [(&table, &all_hands), (&equity, &all_boards)] {
            let after = command
                .get_after_help()
                .map(ToString::to_string)
                .unwrap_or_default();
            assert!(
                after.contains(quoted.as_str()),
                "{after:?} lacks {quoted:?}"
            );
        }

        // And nothing else: every number of two or more digits in the options' help is one of
        // the above, so a new number in a help text needs a line here.
        // `--tolerance`'s defaults are the fairness crate's per-family constants.
        use fairdeal::fairness::{CATEGORY_TOLERANCE, CELL_TOLERANCE, ORDER_TOLERANCE};
        let tolerance_help = help_of(&table, "tolerance");
        let tolerances = [
            format!("({CELL_TOLERANCE:.2} = {:.0} %)", CELL_TOLERANCE * 100.0),
            format!("{ORDER_TOLERANCE:.2} for whole orders"),
            format!("{CELL_TOLERANCE:.2} for positions"),
            format!("{CATEGORY_TOLERANCE:.2} for poker categories"),
        ];
        for quoted in &tolerances {
            assert!(
                tolerance_help.contains(quoted.as_str()),
                "--tolerance: {tolerance_help:?} lacks {quoted:?}"
            );
        }
        let checked: Vec<String> = [&hands, &trials, &auto_exact, &default_trials]
            .into_iter()
            .chain(&tolerances)
            .flat_map(|text| numbers_in(text))
            .collect();
        for command in [&table, &equity] {
            for number in numbers_in(&argument_help(command)) {
                assert!(
                    number.len() < 2 || checked.contains(&number),
                    "{number} in 'fairdeal poker {}' help is not checked against a constant",
                    command.get_name()
                );
            }
        }
    }

    #[test]
    fn the_number_finder_finds_numbers() {
        assert_eq!(
            numbers_in("1 to 10^12, at most 5,000,000 deals; AsAh 10d10c 2c7d9h (0, 3, 4 or 5)"),
            ["1", "10^12", "5,000,000", "0", "3", "4", "5"]
        );
        assert_eq!(grouped(133_784_560), "133,784,560");
        assert_eq!(grouped(990), "990");
        assert_eq!(power_of_ten(MAX_HANDS), "10^12");
    }
}
