//! `fairdeal blackjack`: the house edge of a rule set by simulation and exactly (finite shoe,
//! composition-dependent play), the exact dealer table, and the basic strategy chart.
//!
//! `simulate` deals from a real shoe with any algorithm and backend (partial by default: one
//! swap per card dealt) and reports the house edge with its standard error; a seeded run gives
//! the same numbers on any thread count. `dealer` prints the exact probabilities of the
//! dealer's final hand (infinite deck, or a full shoe of `--decks` decks). `strategy` prints
//! the chart computed from the rules. `exact` enumerates the shoe for one round off the top
//! (`--table` for every initial hand). All engines, and the parsing of rule names, are
//! `fairdeal-blackjack`'s; this module bounds the inputs, runs and prints.

use std::io::Write;
use std::time::Instant;

use clap::builder::RangedI64ValueParser;
use fairdeal::Rng;
use fairdeal::blackjack::report::{
    Play, PlayError, SimReport, SimRun, UPCARDS, card_label, dealer_document, exact_document,
    game_rules_text, hand_label, strategy_document, values_frame,
};
use fairdeal::blackjack::{
    BetRamp, Betting, Composition, DealerTable, ExactStrategy, OUTCOME_NAMES, Rules, SimConfig,
    SimError, SimResult, Strategy, analyse_with_progress,
};
use fairdeal::rng::Backend;
use serde_json::Value;

use fairdeal_cli::args::{
    DealerRuleArgs, DeckArgs, GameRuleArgs, NotForTheChart, RandomArgs, TableArgs, ThreadsArg,
};

use crate::common::{
    Resolved, WithResolved, plural, print_json, progress_bar, stdout, usage, warn_if_unfair,
    with_selection,
};
use crate::shard_arg::{ShardArg, ShardedCommand};

/// Simulations with more rounds than this show a progress bar (on a terminal).
const PROGRESS_THRESHOLD: u64 = 20_000_000;

/// The algorithm that shuffles the shoe by default: the partial shuffle.
const SIMULATE_ALGORITHM: &str = fairdeal::partial::INFO.name;

/// Arguments of `fairdeal blackjack`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: BlackjackCommand,
}

#[derive(Debug, clap::Subcommand)]
enum BlackjackCommand {
    /// Simulate rounds from a real shoe and report the house edge ± standard error.
    Simulate(SimulateArgs),
    /// The exact probabilities of the dealer's final hand for each upcard.
    Dealer(DealerArgs),
    /// The basic strategy chart computed from the rules (exact infinite-deck expected values).
    Strategy(StrategyArgs),
    /// The exact expected return of one round off the top of a full shoe (no sampling).
    Exact(ExactArgs),
}

/// The most rounds one `simulate` may deal: about a day of one core at 10 M rounds/s.
const MAX_ROUNDS: i64 = 1_000_000_000_000;

/// A card counting system `simulate --counting` sizes bets by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Counting {
    /// Hi-Lo: 2–6 count +1, 7–9 count 0, tens and aces count −1; bets follow the true count.
    #[value(alias = "hi-lo")]
    Hilo,
}

/// Arguments of `fairdeal blackjack simulate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    fairdeal blackjack simulate --rounds 10000000 --seed 1\n  \
    fairdeal blackjack simulate --h17 --surrender late --decks 8 --rounds 100000000 --json\n  \
    fairdeal blackjack simulate --decks 1 --shuffle-every-round --rounds 50000000 --seed 7\n  \
    fairdeal blackjack simulate --counting hilo --spread 1-12 --penetration 0.8 --seed 3",
    mut_arg("algo", |a| a.help(format!(
        "Shuffling algorithm (see `fairdeal algorithms`) [default: {SIMULATE_ALGORITHM}]"
    ))))]
struct SimulateArgs {
    #[command(flatten)]
    decks: DeckArgs,

    #[command(flatten)]
    rules: GameRuleArgs,

    #[command(flatten)]
    table: TableArgs,

    /// How the player plays: basic (the infinite-deck chart, any table) or composition (the
    /// exact analyser's best decision for the round's cards; needs --shuffle-every-round and
    /// one seat, since it is computed for a round off the top of a full shoe).
    #[arg(long, value_name = "NAME", default_value = "basic")]
    strategy: ExactStrategy,

    /// Card counting system for bet sizing (play stays basic strategy).
    #[arg(long, value_name = "SYSTEM", value_enum, ignore_case = true)]
    counting: Option<Counting>,

    /// Bet ramp for --counting, MIN-MAX units: MIN at true count <= 1, one more unit per
    /// true-count point, at most MAX.
    #[arg(
        long,
        value_name = "MIN-MAX",
        default_value = "1-8",
        allow_hyphen_values = true,
        requires = "counting"
    )]
    spread: String,

    /// Rounds to deal (1 to 10^12).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000_000,
        allow_negative_numbers = true,
        value_parser = RangedI64ValueParser::<u64>::new().range(1..=MAX_ROUNDS)
    )]
    rounds: u64,

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

/// Arguments of `fairdeal blackjack dealer`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    fairdeal blackjack dealer                 # infinite deck, S17\n  \
    fairdeal blackjack dealer --h17 --decks 6 --json")]
struct DealerArgs {
    #[command(flatten)]
    dealer: DealerRuleArgs,

    /// Decks in a full shoe (upcard removed), 1 to 8; 0 for an infinite deck.
    #[arg(
        long,
        value_name = "D",
        default_value_t = 0,
        allow_negative_numbers = true,
        value_parser = RangedI64ValueParser::<u8>::new().range(0..=8)
    )]
    decks: u8,

    /// Print the table as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fairdeal blackjack exact`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    fairdeal blackjack exact --decks 1                 # composition-dependent play\n  \
    fairdeal blackjack exact --decks 1 --strategy basic --json\n  \
    fairdeal blackjack exact --decks 2 --h17 --table",
    mut_arg("threads", |a| a.help(
        "Worker threads (default: all cores; the ten upcards run in parallel)"
    )))]
struct ExactArgs {
    #[command(flatten)]
    decks: DeckArgs,

    #[command(flatten)]
    rules: GameRuleArgs,

    /// composition: the best decision for the exact cards seen; basic: the engine's
    /// infinite-deck chart played against the exact shoe.
    #[arg(long, value_name = "NAME", default_value = "composition")]
    strategy: ExactStrategy,

    /// Also print the value of every initial two-card hand against every upcard (stand, hit,
    /// double, split, surrender and the action taken).
    #[arg(long)]
    table: bool,

    #[command(flatten)]
    threads: ThreadsArg,

    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fairdeal blackjack strategy`.
#[derive(Debug, clap::Args)]
struct StrategyArgs {
    #[command(flatten)]
    rules: GameRuleArgs,

    /// Options that do not change an infinite-deck chart, accepted only to be refused with
    /// the reason (a chart that silently ignored them would mislead).
    #[command(flatten)]
    ignored: NotForTheChart,

    /// Print the chart and the exact infinite-deck return as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `fairdeal blackjack`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        BlackjackCommand::Simulate(a) => run_simulate(&a),
        BlackjackCommand::Dealer(a) => run_dealer(&a),
        BlackjackCommand::Strategy(a) => run_strategy(&a),
        BlackjackCommand::Exact(a) => run_exact(&a),
    }
}

fn parse_spread(text: &str) -> anyhow::Result<BetRamp> {
    text.parse()
        .map_err(|e| usage(format!("invalid --spread '{text}': {e}")))
}

struct SimulateWork<'a> {
    args: &'a SimulateArgs,
    play: Play,
    betting: Betting,
}

impl WithResolved for SimulateWork<'_> {
    type Output = (SimResult, u64, f64);

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<Self::Output> {
        let Resolved {
            mut rng, shuffler, ..
        } = resolved;
        // With --seed the run is reproducible; without it one master seed is drawn from the
        // OS-seeded generator and reported.
        let seed = self.args.random.seed.unwrap_or_else(|| rng.next_u64());
        let (rounds, shard) = (self.args.rounds, self.args.shard.shard);
        let bar = progress_bar(rounds, rounds > PROGRESS_THRESHOLD, "rounds");
        let config = SimConfig {
            rounds,
            seed,
            betting: self.betting,
            progress: Some(&|n| bar.inc(n)),
        };
        let started = Instant::now();
        let result = self
            .play
            .simulate(&config, &shuffler, |s| B::seeded(s), shard)
            .map_err(|e| match (e, shard) {
                (e @ SimError::Shard(_), Some(shard)) => usage(format!("--shard {shard}: {e}")),
                (e, _) => e.into(),
            })?;
        let seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        Ok((result, seed, seconds))
    }
}

fn run_simulate(args: &SimulateArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules(args.decks.decks, Some(&args.table))?;
    let play = Play::new(&rules, args.strategy).map_err(|e| match e {
        PlayError::NotOffTheTop => usage(
            "--strategy composition is computed for one seat and a round off the top of a full \
             shoe: add --shuffle-every-round and use one seat",
        ),
        e => usage(format!("invalid rules: {e}")),
    })?;
    let betting = match args.counting {
        None => Betting::Flat,
        Some(Counting::Hilo) => Betting::HiLo(parse_spread(&args.spread)?),
    };
    warn_if_unfair(args.random.algorithm(SIMULATE_ALGORITHM));
    let exact_infinite = SimReport::infinite_deck_edge(play.chart());
    let selection = args.random.selection(SIMULATE_ALGORITHM, "backend");
    // The engine runs on the caller's pool: --threads is bounded by `parse_threads` and the
    // pool is built once, here (docs/ARCHITECTURE.md, the engines' threading policy).
    let work = SimulateWork {
        args,
        play,
        betting,
    };
    let (result, seed, seconds) = crate::common::thread_pool(args.threads.threads)?
        .install(|| with_selection(&selection, work))?;

    let run = SimRun {
        rules,
        betting,
        strategy: args.strategy,
        algorithm: args.random.algorithm(SIMULATE_ALGORITHM).to_owned(),
        backend: args.random.backend().to_owned(),
        seed,
        exact_infinite,
    };
    let report = run.report(result, seconds);
    if args.json {
        let mut doc = report.json();
        if let Some(shard) = args
            .shard
            .json(ShardedCommand::BlackjackSimulate, args.rounds)
        {
            doc.insert("shard".into(), shard);
        }
        return print_json(&Value::Object(doc));
    }
    let mut out = stdout();
    write_simulate_text(&report, &mut out)?;
    args.shard
        .write_note(&mut out, ShardedCommand::BlackjackSimulate, args.rounds)?;
    out.flush()?;
    Ok(())
}

/// `simulate`'s text report (`fairdeal merge` prints merged shards with it too).
pub(crate) fn write_simulate_text(report: &SimReport, out: &mut impl Write) -> anyhow::Result<()> {
    let (run, result, seconds) = (&report.run, &report.result, report.seconds);
    let seed = run.seed;
    writeln!(out, "rules: {}", run.rules)?;
    if let Betting::HiLo(r) = run.betting {
        writeln!(out, "betting: Hi-Lo, {r} units by true count")?;
    }
    writeln!(
        out,
        "dealt {} with {} / {} (seed {seed}) in {seconds:.2} s ({:.2} M rounds/s), {} strategy",
        plural(result.rounds(), "round", "rounds"),
        run.algorithm,
        run.backend,
        result.rounds() as f64 / seconds.max(1e-9) / 1e6,
        run.strategy,
    )?;
    let se = result.std_error_percent();
    if se.is_finite() {
        writeln!(
            out,
            "house edge: {:.4}% ± {se:.4}% (1 SE; positive = the house wins)",
            result.house_edge_percent(),
        )?;
        writeln!(out, "sd per round: {:.4} units", result.sd_per_round())?;
    } else {
        writeln!(
            out,
            "house edge: {:.4}% (standard error undefined: one round; positive = the house wins)",
            result.house_edge_percent(),
        )?;
    }
    writeln!(
        out,
        "strategy's exact infinite-deck edge: {:.4}% (for comparison)",
        run.exact_infinite
    )?;
    for (name, value) in result.counts.fields() {
        writeln!(out, "  {name:<18} {value}")?;
    }
    Ok(())
}

fn run_dealer(args: &DealerArgs) -> anyhow::Result<()> {
    let table = match args.decks {
        0 => DealerTable::infinite(args.dealer.h17),
        1..=8 => DealerTable::for_shoe(&Composition::decks(u32::from(args.decks)), args.dealer.h17)
            .map_err(|e| usage(e.to_string()))?,
        d => {
            return Err(usage(format!(
                "--decks {d}: use 1 to 8, or 0 for an infinite deck"
            )));
        }
    };
    if args.json {
        return print_json(&dealer_document(&table, args.decks, args.dealer.h17));
    }
    let mut out = stdout();
    writeln!(
        out,
        "dealer final hand, {}, {}, before the peek",
        if args.decks == 0 {
            "infinite deck".to_owned()
        } else {
            format!("{} deck(s) minus the upcard", args.decks)
        },
        if args.dealer.h17 { "H17" } else { "S17" }
    )?;
    write!(out, "{:<3}", "up")?;
    for name in OUTCOME_NAMES {
        write!(out, " {name:>9}")?;
    }
    writeln!(out)?;
    for (value, label) in UPCARDS {
        write!(out, "{label:<3}")?;
        if let Some(outcomes) = table.get(value) {
            for p in outcomes.as_array() {
                write!(out, " {p:>9.6}")?;
            }
        }
        writeln!(out)?;
    }
    out.flush()?;
    Ok(())
}

fn run_strategy(args: &StrategyArgs) -> anyhow::Result<()> {
    // The chart is an infinite-deck one: the deck count, cut card and seats do not change it,
    // so the command does not take them (`exact --strategy composition` plays a finite shoe).
    if let Some(option) = args.ignored.given() {
        return Err(usage(format!(
            "{option} does not change the basic-strategy chart (an infinite-deck, \
             total-dependent one); for play in a finite shoe see `fairdeal blackjack exact \
             --decks D --table`"
        )));
    }
    let rules = args.rules.rules(Rules::default().decks, None)?;
    let strategy = Strategy::basic(&rules).map_err(|e| usage(format!("invalid rules: {e}")))?;
    let edge = SimReport::infinite_deck_edge(&strategy);
    if args.json {
        return print_json(&strategy_document(&rules, &strategy));
    }
    let mut out = stdout();
    writeln!(
        out,
        "basic strategy (infinite deck) for {}",
        game_rules_text(&rules)
    )?;
    writeln!(
        out,
        "(infinite-deck, total-dependent; S stand, H hit, D double, P split, R surrender)"
    )?;
    write!(out, "{}", strategy.chart())?;
    writeln!(out, "exact infinite-deck house edge: {edge:.4}%")?;
    out.flush()?;
    Ok(())
}

fn run_exact(args: &ExactArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules(args.decks.decks, None)?;
    let pool = crate::common::thread_pool(args.threads.threads)?;
    // A few seconds at most (8 decks, 8 split hands): a bar over the ten upcards.
    let bar = progress_bar(10, true, "upcards");
    let exact = pool
        .install(|| analyse_with_progress(&rules, args.strategy, &|_| bar.inc(1)))
        .map_err(|e| usage(e.to_string()))?;
    bar.finish_and_clear();
    let seconds = exact.elapsed().as_secs_f64();
    if args.json {
        return print_json(&exact_document(
            &exact,
            &rules,
            args.strategy,
            seconds,
            args.table,
        ));
    }
    let mut out = stdout();
    writeln!(
        out,
        "exact analysis, one round off the top of {}: {}",
        plural(u64::from(rules.decks), "deck", "decks"),
        game_rules_text(&rules)
    )?;
    writeln!(
        out,
        "strategy: {}",
        match args.strategy {
            ExactStrategy::Composition =>
                "composition-dependent (best play for the exact cards seen)",
            ExactStrategy::Basic => "basic (the infinite-deck chart)",
        }
    )?;
    writeln!(
        out,
        "expected return: {:+.7} per unit bet (house edge {:.5}%)",
        exact.expected_return(),
        exact.house_edge_percent()
    )?;
    writeln!(
        out,
        "computed in {seconds:.2} s ({} states)",
        exact.states()
    )?;
    if args.table {
        let frame = values_frame(&rules);
        writeln!(
            out,
            "values per initial hand and upcard, {frame} (- = not allowed):"
        )?;
        writeln!(
            out,
            "{:<3} {:<4} {:>10} {:>10} {:>10} {:>10} {:>10}  {:<9} {:>10}",
            "up", "hand", "stand", "hit", "double", "split", "surrender", "action", "value"
        )?;
        let cell = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.6}"));
        for (up, _) in UPCARDS {
            for h in exact.hands().iter().filter(|h| h.upcard == up) {
                let action = if h.hit.is_none() {
                    "natural".to_owned()
                } else {
                    h.action.to_string()
                };
                writeln!(
                    out,
                    "{:<3} {:<4} {:>10} {:>10} {:>10} {:>10} {:>10}  {:<9} {:>10.6}",
                    card_label(h.upcard),
                    hand_label(h.first, h.second),
                    format!("{:.6}", h.stand),
                    cell(h.hit),
                    cell(h.double),
                    cell(h.split),
                    cell(h.surrender),
                    action,
                    h.value
                )?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_parse_and_bad_ones_are_usage_errors() {
        assert_eq!(parse_spread("1-12").unwrap(), BetRamp { min: 1, max: 12 });
        for bad in ["", "8", "a-b", "0-4", "5-2"] {
            let err = parse_spread(bad).unwrap_err();
            assert_eq!(crate::common::exit_status(&err), 2, "{bad}");
        }
    }
}
