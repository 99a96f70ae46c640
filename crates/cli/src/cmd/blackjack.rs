//! `fairdeal blackjack`: the house edge of a rule set by simulation, the exact dealer table,
//! and the basic strategy chart.
//!
//! `simulate` deals from a real shoe with any algorithm and backend (partial by default: one
//! swap per card dealt) and reports the house edge with its standard error; a seeded run gives
//! the same numbers on any thread count. `dealer` prints the exact probabilities of the
//! dealer's final hand (infinite deck, or a full shoe of `--decks` decks). `strategy` prints
//! the chart computed from the rules. All engines are `fairdeal-blackjack`'s; this module
//! parses, runs and prints.

use std::io::{self, Write};
use std::num::NonZeroUsize;
use std::time::Instant;

use anyhow::Context as _;
use fairdeal::Rng;
use fairdeal::blackjack::{
    BetRamp, Betting, Composition, DealerTable, DoubleRule, HoleCard, OUTCOME_NAMES, Payout,
    Penetration, Rules, SimConfig, SimResult, Strategy, Surrender, simulate_chunks,
};
use fairdeal::rng::{Backend, DEFAULT_BACKEND};
use serde_json::{Map, Value, json};

use crate::common::{
    Resolved, Selection, WithResolved, print_json, progress_bar, usage, with_selection,
};

/// Simulations with more rounds than this show a progress bar (on a terminal).
const PROGRESS_THRESHOLD: u64 = 20_000_000;

/// Upcards in table order, with their labels.
const UPCARDS: [(u8, &str); 10] = [
    (2, "2"),
    (3, "3"),
    (4, "4"),
    (5, "5"),
    (6, "6"),
    (7, "7"),
    (8, "8"),
    (9, "9"),
    (10, "T"),
    (1, "A"),
];

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
    /// The basic strategy chart computed from the rules (exact expected values).
    Strategy(StrategyArgs),
}

/// Table rules shared by `simulate` and `strategy`.
#[derive(Debug, clap::Args)]
struct RuleArgs {
    /// Decks in the shoe (1 to 8).
    #[arg(long, value_name = "D", default_value_t = 6)]
    decks: u8,

    /// Dealer stands on soft 17 (the default).
    #[arg(long, conflicts_with = "h17")]
    s17: bool,

    /// Dealer hits soft 17.
    #[arg(long)]
    h17: bool,

    /// Double after split is allowed (the default).
    #[arg(long, conflicts_with = "no_das")]
    das: bool,

    /// Double after split is not allowed.
    #[arg(long)]
    no_das: bool,

    /// Which first two cards may be doubled: any, 9-11 or 10-11 (hard totals).
    #[arg(long, value_name = "RULE", default_value = "any")]
    double: String,

    /// Most hands a seat may hold after splitting (1 = no splitting).
    #[arg(long, value_name = "N", default_value_t = 4)]
    split_hands: u8,

    /// Aces may be resplit.
    #[arg(long)]
    resplit_aces: bool,

    /// Split aces may be hit.
    #[arg(long)]
    hit_split_aces: bool,

    /// Surrender: none, late or early.
    #[arg(long, value_name = "WHEN", default_value = "none")]
    surrender: String,

    /// Blackjack payout: 3:2, 6:5 or 1:1.
    #[arg(long, value_name = "RATIO", default_value = "3:2")]
    payout: String,

    /// European no-hole-card game: a dealer blackjack takes doubles and splits too.
    #[arg(long)]
    no_hole_card: bool,

    /// Cut card position as a fraction of the shoe (strictly between 0 and 1).
    #[arg(
        long,
        value_name = "F",
        default_value_t = 0.75,
        conflicts_with = "shuffle_every_round"
    )]
    penetration: f64,

    /// Continuous shuffler: reshuffle before every round.
    #[arg(long)]
    shuffle_every_round: bool,

    /// Player seats (1 to 7), all playing basic strategy.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seats: u8,
}

impl RuleArgs {
    fn rules(&self) -> anyhow::Result<Rules> {
        let double = match self.double.to_ascii_lowercase().as_str() {
            "any" | "any2" => DoubleRule::AnyTwo,
            "9-11" => DoubleRule::NineToEleven,
            "10-11" => DoubleRule::TenToEleven,
            other => {
                return Err(usage(format!(
                    "unknown --double '{other}' (expected any, 9-11 or 10-11)"
                )));
            }
        };
        let surrender = match self.surrender.to_ascii_lowercase().as_str() {
            "none" | "no" => Surrender::None,
            "late" => Surrender::Late,
            "early" => Surrender::Early,
            other => {
                return Err(usage(format!(
                    "unknown --surrender '{other}' (expected none, late or early)"
                )));
            }
        };
        let payout = match self.payout.as_str() {
            "3:2" | "3/2" | "1.5" => Payout::ThreeToTwo,
            "6:5" | "6/5" | "1.2" => Payout::SixToFive,
            "1:1" | "1/1" | "1" => Payout::EvenMoney,
            other => {
                return Err(usage(format!(
                    "unknown --payout '{other}' (expected 3:2, 6:5 or 1:1)"
                )));
            }
        };
        let rules = Rules {
            decks: self.decks,
            hits_soft_17: self.h17,
            double,
            double_after_split: !self.no_das,
            max_split_hands: self.split_hands,
            resplit_aces: self.resplit_aces,
            hit_split_aces: self.hit_split_aces,
            surrender,
            payout,
            hole_card: if self.no_hole_card {
                HoleCard::NoHoleCard
            } else {
                HoleCard::Peek
            },
            penetration: if self.shuffle_every_round {
                Penetration::Continuous
            } else {
                Penetration::CutCard(self.penetration)
            },
            seats: self.seats,
        };
        rules
            .validate()
            .map_err(|e| usage(format!("invalid rules: {e}")))?;
        Ok(rules)
    }
}

/// Arguments of `fairdeal blackjack simulate`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    fairdeal blackjack simulate --rounds 10000000 --seed 1\n  \
    fairdeal blackjack simulate --h17 --surrender late --decks 8 --rounds 100000000 --json\n  \
    fairdeal blackjack simulate --decks 1 --shuffle-every-round --rounds 50000000 --seed 7\n  \
    fairdeal blackjack simulate --counting hilo --spread 1-12 --penetration 0.8 --seed 3")]
struct SimulateArgs {
    #[command(flatten)]
    rules: RuleArgs,

    /// Card counting system for bet sizing: hilo (play stays basic strategy).
    #[arg(long, value_name = "SYSTEM")]
    counting: Option<String>,

    /// Bet ramp for --counting, MIN-MAX units: MIN at true count <= 1, one more unit per
    /// true-count point, at most MAX.
    #[arg(
        long,
        value_name = "MIN-MAX",
        default_value = "1-8",
        requires = "counting"
    )]
    spread: String,

    /// Rounds to deal.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    rounds: u64,

    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long, value_name = "T", value_parser = crate::common::parse_threads)]
    threads: Option<NonZeroUsize>,

    /// Shuffling algorithm (see `fairdeal algorithms`).
    #[arg(long, value_name = "NAME", default_value = fairdeal::partial::INFO.name)]
    algo: String,

    /// Random number generator (see `fairdeal backends`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_BACKEND)]
    backend: String,

    /// Seed for a reproducible run (the same result on any thread count); without it a seed
    /// is drawn from the OS and reported.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,

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
    /// Dealer stands on soft 17 (the default).
    #[arg(long, conflicts_with = "h17")]
    s17: bool,

    /// Dealer hits soft 17.
    #[arg(long)]
    h17: bool,

    /// Decks in a full shoe (upcard removed), 1 to 8; 0 for an infinite deck.
    #[arg(long, value_name = "D", default_value_t = 0)]
    decks: u8,

    /// Print the table as JSON.
    #[arg(long)]
    json: bool,
}

/// Arguments of `fairdeal blackjack strategy`.
#[derive(Debug, clap::Args)]
struct StrategyArgs {
    #[command(flatten)]
    rules: RuleArgs,

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
    }
}

fn parse_spread(text: &str) -> anyhow::Result<BetRamp> {
    let bad = || {
        usage(format!(
            "invalid --spread '{text}' (expected MIN-MAX, e.g. 1-8)"
        ))
    };
    let (lo, hi) = text.split_once('-').ok_or_else(bad)?;
    let ramp = BetRamp {
        min: lo.trim().parse().map_err(|_| bad())?,
        max: hi.trim().parse().map_err(|_| bad())?,
    };
    ramp.validate()
        .map_err(|e| usage(format!("invalid --spread: {e}")))?;
    Ok(ramp)
}

fn rules_json(rules: &Rules) -> Value {
    json!({
        "decks": rules.decks,
        "dealer": if rules.hits_soft_17 { "H17" } else { "S17" },
        "double": match rules.double {
            DoubleRule::AnyTwo => "any",
            DoubleRule::NineToEleven => "9-11",
            DoubleRule::TenToEleven => "10-11",
        },
        "double_after_split": rules.double_after_split,
        "max_split_hands": rules.max_split_hands,
        "resplit_aces": rules.resplit_aces,
        "hit_split_aces": rules.hit_split_aces,
        "surrender": match rules.surrender {
            Surrender::None => "none",
            Surrender::Late => "late",
            Surrender::Early => "early",
        },
        "payout": rules.payout.name(),
        "hole_card": match rules.hole_card {
            HoleCard::Peek => "peek",
            HoleCard::NoHoleCard => "none",
        },
        "penetration": match rules.penetration {
            Penetration::CutCard(f) => json!(f),
            Penetration::Continuous => json!("continuous"),
        },
        "seats": rules.seats,
    })
}

struct SimulateWork<'a> {
    args: &'a SimulateArgs,
    strategy: Strategy,
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
        let seed = self.args.seed.unwrap_or_else(|| rng.next_u64());
        let config = SimConfig {
            rounds: self.args.rounds,
            seed,
            threads: self.args.threads.map_or(0, NonZeroUsize::get),
            betting: self.betting,
        };
        let bar = progress_bar(
            self.args.rounds,
            self.args.rounds > PROGRESS_THRESHOLD,
            "rounds",
        );
        let started = Instant::now();
        let result = simulate_chunks(
            &self.strategy,
            &config,
            &shuffler,
            |s| B::seeded(s),
            0..config.chunks(),
            &|n| bar.inc(n),
        )?;
        let seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        Ok((result, seed, seconds))
    }
}

fn run_simulate(args: &SimulateArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    if args.rounds == 0 {
        return Err(usage("--rounds must be at least 1"));
    }
    let betting = match args.counting.as_deref().map(str::to_ascii_lowercase) {
        None => Betting::Flat,
        Some(system) if system == "hilo" || system == "hi-lo" => {
            Betting::HiLo(parse_spread(&args.spread)?)
        }
        Some(other) => {
            return Err(usage(format!(
                "unknown --counting '{other}' (expected hilo)"
            )));
        }
    };
    let strategy = Strategy::basic(&rules).map_err(|e| usage(format!("invalid rules: {e}")))?;
    let exact_infinite = -100.0 * strategy.infinite_deck_return();
    let selection = Selection {
        algorithm: args.algo.clone(),
        backend: args.backend.clone(),
        sampler: String::from("backend"),
        seed: args.seed,
    };
    let (result, seed, seconds) = with_selection(
        &selection,
        SimulateWork {
            args,
            strategy,
            betting,
        },
    )?;

    let counts: Map<String, Value> = result
        .counts
        .fields()
        .iter()
        .map(|(name, value)| ((*name).to_owned(), json!(value)))
        .collect();
    if args.json {
        let mut out = Map::new();
        out.insert("rounds".into(), json!(result.rounds()));
        out.insert(
            "house_edge_percent".into(),
            json!(result.house_edge_percent()),
        );
        out.insert(
            "std_error_percent".into(),
            json!(result.std_error_percent()),
        );
        out.insert("sd_per_round".into(), json!(result.sd_per_round()));
        out.insert("rules".into(), rules_json(&rules));
        out.insert("counts".into(), Value::Object(counts));
        out.insert("initial_wagers".into(), json!(result.initial_wagers()));
        out.insert(
            "strategy_infinite_deck_edge_percent".into(),
            json!(exact_infinite),
        );
        out.insert(
            "betting".into(),
            match betting {
                Betting::Flat => json!("flat"),
                Betting::HiLo(r) => json!({"system": "hilo", "min": r.min, "max": r.max}),
            },
        );
        out.insert("algorithm".into(), json!(args.algo));
        out.insert("backend".into(), json!(args.backend));
        out.insert("seed".into(), json!(seed));
        out.insert("seconds".into(), json!(seconds));
        return print_json(&Value::Object(out));
    }
    let mut out = io::stdout().lock();
    writeln!(out, "rules: {rules}")?;
    if let Betting::HiLo(r) = betting {
        writeln!(
            out,
            "betting: Hi-Lo, {}-{} units by true count",
            r.min, r.max
        )?;
    }
    writeln!(
        out,
        "dealt {} rounds with {} / {} (seed {seed}) in {seconds:.2} s ({:.2} M rounds/s)",
        result.rounds(),
        args.algo,
        args.backend,
        result.rounds() as f64 / seconds.max(1e-9) / 1e6
    )?;
    writeln!(
        out,
        "house edge: {:.4}% ± {:.4}% (1 SE; positive = the house wins)",
        result.house_edge_percent(),
        result.std_error_percent()
    )?;
    writeln!(out, "sd per round: {:.4} units", result.sd_per_round())?;
    writeln!(
        out,
        "strategy's exact infinite-deck edge: {exact_infinite:.4}% (for comparison)"
    )?;
    for (name, value) in result.counts.fields() {
        writeln!(out, "  {name:<18} {value}")?;
    }
    out.flush().context("cannot write to stdout")?;
    Ok(())
}

fn run_dealer(args: &DealerArgs) -> anyhow::Result<()> {
    let table = match args.decks {
        0 => DealerTable::infinite(args.h17),
        1..=8 => DealerTable::for_shoe(&Composition::decks(u32::from(args.decks)), args.h17)
            .map_err(|e| usage(e.to_string()))?,
        d => {
            return Err(usage(format!(
                "--decks {d}: use 1 to 8, or 0 for an infinite deck"
            )));
        }
    };
    if args.json {
        let mut upcards = Map::new();
        for (value, label) in UPCARDS {
            let mut row = Map::new();
            if let Some(outcomes) = table.get(value) {
                for (name, p) in OUTCOME_NAMES.iter().zip(outcomes.as_array()) {
                    row.insert((*name).to_owned(), json!(p));
                }
            }
            upcards.insert(label.to_owned(), Value::Object(row));
        }
        return print_json(&json!({
            "decks": args.decks,
            "dealer": if args.h17 { "H17" } else { "S17" },
            "upcards": upcards,
        }));
    }
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "dealer final hand, {}, {}, before the peek",
        if args.decks == 0 {
            "infinite deck".to_owned()
        } else {
            format!("{} deck(s) minus the upcard", args.decks)
        },
        if args.h17 { "H17" } else { "S17" }
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
    out.flush().context("cannot write to stdout")?;
    Ok(())
}

fn run_strategy(args: &StrategyArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let strategy = Strategy::basic(&rules).map_err(|e| usage(format!("invalid rules: {e}")))?;
    let edge = -100.0 * strategy.infinite_deck_return();
    if args.json {
        let rows: Vec<Value> = strategy
            .chart()
            .lines()
            .skip(1)
            .map(|line| {
                let mut cells = line.split_whitespace();
                let hand = cells.next().unwrap_or_default().to_owned();
                let actions: Vec<&str> = cells.collect();
                json!({"hand": hand, "actions": actions})
            })
            .collect();
        return print_json(&json!({
            "rules": rules_json(&rules),
            "upcards": UPCARDS.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
            "chart": rows,
            "infinite_deck_edge_percent": edge,
        }));
    }
    let mut out = io::stdout().lock();
    writeln!(out, "basic strategy for {rules}")?;
    writeln!(
        out,
        "(infinite-deck, total-dependent; S stand, H hit, D double, P split, R surrender)"
    )?;
    write!(out, "{}", strategy.chart())?;
    writeln!(out, "exact infinite-deck house edge: {edge:.4}%")?;
    out.flush().context("cannot write to stdout")?;
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
