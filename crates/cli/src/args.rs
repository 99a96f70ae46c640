//! Every flag group and value parser of the `fairdeal` command line, in one place: the
//! subcommands flatten the groups (`#[command(flatten)]`) and adjust a flag's help or
//! requirements with `mut_arg`, never redeclaring it, so the same mistake gives the same
//! error everywhere. A library module so that fuzz targets (`fuzz/fuzz_targets/shuffle_args.rs`)
//! and tests can call the parsers directly.

use std::fmt;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, RangedI64ValueParser};
use fairdeal::Selection;
use fairdeal::blackjack::{DoubleRule, HoleCard, Payout, Penetration, Rules, Surrender};
use fairdeal::fairness::{DEFAULT_CONFIDENCE, Equivalence};
use fairdeal::rng::DEFAULT_BACKEND;

/// The integers `lo ..= lo + len - 1` of `shuffle -i LO-HI`; `len` may be 0 (`LO = HI + 1`,
/// an empty range, as `shuf` allows) or 2^64 (`0-18446744073709551615`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRange {
    /// The first number.
    pub lo: u64,
    /// How many integers the range holds (up to 2^64, hence `u128`).
    pub len: u128,
}

impl InputRange {
    /// The last number of a non-empty range (for an empty one, `lo - 1` wrapped).
    pub fn hi(self) -> u64 {
        (u128::from(self.lo) + self.len).wrapping_sub(1) as u64
    }
}

/// Parses `LO-HI`: unsigned decimal integers with `LO <= HI + 1`. The error is the message
/// clap prints after `invalid value … for '-i'`.
///
/// ```
/// use fairdeal_cli::args::{InputRange, parse_range};
/// assert_eq!(parse_range("3-7"), Ok(InputRange { lo: 3, len: 5 }));
/// assert_eq!(parse_range("8-7").map(|r| r.len), Ok(0));
/// assert!(parse_range("7-5").unwrap_err().contains("reversed range"));
/// assert!(parse_range("-5").is_err());
/// ```
pub fn parse_range(text: &str) -> Result<InputRange, String> {
    let malformed =
        || format!("expected LO-HI with unsigned integers LO <= HI (e.g. 1-100), got '{text}'");
    let (lo, hi) = text.split_once('-').ok_or_else(malformed)?;
    let number = |s: &str| -> Result<u64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        s.parse::<u64>()
            .map_err(|_| format!("'{s}' in range '{text}' is larger than {}", u64::MAX))
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    let len = (u128::from(hi) + 1)
        .checked_sub(u128::from(lo))
        .ok_or_else(|| {
            format!("reversed range '{text}': LO ({lo}) is greater than HI ({hi}) + 1")
        })?;
    Ok(InputRange { lo, len })
}

/// Parses `-n K`: a non-negative decimal integer. Values past `usize::MAX` saturate (a K
/// larger than the input prints all of it anyway).
///
/// ```
/// use fairdeal_cli::args::parse_head_count;
/// assert_eq!(parse_head_count("10"), Ok(10));
/// assert_eq!(parse_head_count("99999999999999999999999"), Ok(usize::MAX));
/// assert!(parse_head_count("-1").is_err());
/// ```
pub fn parse_head_count(text: &str) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("K must be a non-negative integer, got '{text}'"));
    }
    Ok(text.parse::<usize>().unwrap_or(usize::MAX))
}

/// The help text of every `--sampler` option.
pub const SAMPLER_HELP: &str = "How random words become indices: `backend` (the \
    backend's own: batched dice for the rand-family generators, Java's nextInt or Python's \
    _randbelow for java and python, which bit-exactness needs), `batched` (several indices per \
    64-bit word) or `lemire` (one word per index, the reference path). All are exactly unbiased";

/// An error caused by how the command was called (unknown name, malformed range …) rather
/// than by the environment (unreadable file, full disk). `main` exits with status 2 for these,
/// like clap does for its own usage errors, and 1 for everything else.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Wraps a message as a [`UsageError`] inside an `anyhow::Error`.
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// `--algo`, `--backend` and `--seed`: the randomness of a run, one declaration and one parser
/// for every randomised subcommand (`#[command(flatten)]`), so the same mistake gives the same
/// error everywhere. No flag has a default value here: a subcommand names its own default
/// algorithm ([`RandomArgs::algorithm`]), and a refusal can tell a flag given from one left
/// out ([`RandomArgs::given`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RandomArgs {
    /// Shuffling algorithm (see `fairdeal algorithms`).
    #[arg(long, value_name = "NAME", value_parser = algorithm_parser())]
    pub algo: Option<String>,

    /// Random number generator (see `fairdeal backends`).
    #[arg(long, value_name = "NAME", value_parser = backend_parser(), help = backend_help())]
    pub backend: Option<String>,

    /// Seed for a reproducible run (the same result on any thread count); without it the
    /// generator is seeded from the OS.
    #[arg(
        long,
        value_name = "S",
        allow_negative_numbers = true,
        value_parser = parse_seed
    )]
    pub seed: Option<u64>,
}

impl RandomArgs {
    /// The algorithm given, or the subcommand's `default`.
    pub fn algorithm<'a>(&'a self, default: &'a str) -> &'a str {
        self.algo.as_deref().unwrap_or(default)
    }

    /// The backend given, or [`DEFAULT_BACKEND`].
    pub fn backend(&self) -> &str {
        self.backend.as_deref().unwrap_or(DEFAULT_BACKEND)
    }

    /// The flags given on the command line, for a path that does not use them to refuse.
    pub fn given(&self) -> Vec<&'static str> {
        [
            (self.algo.is_some(), "--algo"),
            (self.backend.is_some(), "--backend"),
            (self.seed.is_some(), "--seed"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }

    /// The selection these flags make, with `default_algorithm` and `sampler`.
    pub fn into_selection(self, default_algorithm: &str, sampler: &str) -> Selection {
        Selection {
            algorithm: self.algo.unwrap_or_else(|| default_algorithm.to_owned()),
            backend: self.backend.unwrap_or_else(|| DEFAULT_BACKEND.to_owned()),
            sampler: sampler.to_owned(),
            seed: self.seed,
        }
    }

    /// The selection these flags make, with `default_algorithm` and `sampler`.
    pub fn selection(&self, default_algorithm: &str, sampler: &str) -> Selection {
        Selection {
            algorithm: self.algorithm(default_algorithm).to_owned(),
            backend: self.backend().to_owned(),
            sampler: sampler.to_owned(),
            seed: self.seed,
        }
    }
}

/// The help of `--backend`, naming its default.
fn backend_help() -> String {
    format!("Random number generator (see `fairdeal backends`) [default: {DEFAULT_BACKEND}]")
}

/// `--sampler`, for the subcommands whose results it can change (`shuffle`, `fairness`).
#[derive(Debug, Clone, clap::Args)]
pub struct SamplerArg {
    // Checked by `with_selection` (`fairdeal::sampler_by_name`), whose error names the
    // valid samplers ("unknown sampler 'X'", which the tests pin): no possible-values parser.
    /// How random words become indices.
    #[arg(long, value_name = "NAME", default_value = "backend", help = SAMPLER_HELP)]
    pub sampler: String,
}

/// `--threads`, for the subcommands that run on a thread pool.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ThreadsArg {
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(
        long,
        value_name = "T",
        allow_negative_numbers = true,
        value_parser = parse_threads
    )]
    pub threads: Option<NonZeroUsize>,
}

/// A seed: a whole number from 0 to 2^64 − 1 (clap's own message for `-1` would be "invalid
/// digit").
pub fn parse_seed(text: &str) -> Result<u64, String> {
    let digits = text.trim();
    digits.parse().map_err(|_| {
        let reason = if digits.starts_with('-') {
            "must be non-negative"
        } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            "out of range (too large)"
        } else {
            "not a whole number"
        };
        format!(
            "'{text}' is not a seed ({reason}): use a whole number from 0 to {}",
            u64::MAX
        )
    })
}

/// The clap value parser of every `--algo`: the names in the facade's registry
/// ([`fairdeal::ALGORITHMS`]), each with its summary, so `--help` lists them and clap refuses
/// any other name with the valid list. Use as `#[arg(long, value_parser = algorithm_parser())]`
/// on a `String` field.
pub fn algorithm_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        fairdeal::ALGORITHMS
            .iter()
            .map(|info| PossibleValue::new(info.name).help(info.summary)),
    )
}

/// The clap value parser of every `--backend`: the names of [`fairdeal::rng::backends`].
pub fn backend_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        fairdeal::rng::backends()
            .iter()
            .map(|info| PossibleValue::new(info.name).help(info.summary)),
    )
}

/// A clap value parser for a count from `min` to `max`, checked before any work starts:
/// `"-5"` is refused as "must be non-negative" (not as an unknown option), `"0"` below a
/// minimum of 1 as "must be at least 1", an absurd count as "more than the … allowed".
///
/// Use as `#[arg(long, value_parser = count_parser(1, MAX_HANDS))]` on a `u64` field.
pub fn count_parser(
    min: u64,
    max: u64,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text| parse_count(text, min, max)
}

fn parse_count(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed.replace('_', "");
    if let Some(rest) = digits.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err("must be non-negative".to_owned());
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{text}' is not a whole number"));
    }
    // Digits only: a parse failure can only be an overflow, which is above any maximum.
    match digits.parse::<u64>() {
        Ok(value) if value < min => Err(format!("must be at least {min}")),
        Ok(value) if value <= max => Ok(value),
        _ => Err(format!("{trimmed} is more than the {max} allowed")),
    }
}

/// The most worker threads any `--threads` accepts, whatever the machine: far above any core
/// count a user runs on (oversubscribing a few times is allowed), far below what exhausts the
/// operating system's thread limits.
pub const MAX_THREADS: usize = 1024;

/// The clap value parser of every `--threads`: a whole number from 1 to [`MAX_THREADS`],
/// checked before any thread is started.
pub fn parse_threads(text: &str) -> Result<NonZeroUsize, String> {
    let trimmed = text.trim();
    if let Some(digits) = trimmed.strip_prefix('-')
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(format!(
            "must be a positive number of threads, not {trimmed}"
        ));
    }
    let threads: u128 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number of threads"))?;
    if threads == 0 {
        return Err("must be at least 1".to_owned());
    }
    usize::try_from(threads)
        .ok()
        .filter(|&threads| threads <= MAX_THREADS)
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
            format!(
                "{threads} threads is more than the {MAX_THREADS} allowed (this machine has \
                 {cores} cores)"
            )
        })
}

/// `--plot`, for the commands that draw an element × position heatmap (`fairness`, `audit`)
/// or a directory of them (`compare`): each sets its help and value name with `mut_arg("plot",
/// …)`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PlotArg {
    /// Also write an SVG heatmap of where each element landed.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

/// `--s17` / `--h17`: whether the dealer hits soft 17, for every blackjack subcommand.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct DealerRuleArgs {
    /// Dealer stands on soft 17 (the default).
    #[arg(long, conflicts_with = "h17")]
    pub s17: bool,

    /// Dealer hits soft 17.
    #[arg(long)]
    pub h17: bool,
}

/// `--tolerance` and `--confidence`, shared by the judging commands.
#[derive(Debug, Clone, clap::Args)]
pub struct EquivalenceArgs {
    /// The largest bias a FAIR verdict allows: no cell (an order, an item at a position, a pair
    /// of neighbours, a poker category) more than this fraction more or less likely than fair
    /// (0.05 = 5 %). Default per test: 0.30 for whole orders, 0.05 for positions and
    /// neighbours, 0.15 for poker categories.
    #[arg(long, value_name = "FRACTION")]
    pub tolerance: Option<f64>,

    /// The confidence of the certified bound (simultaneous Clopper–Pearson intervals over the
    /// cells, union bound).
    #[arg(long, value_name = "FRACTION", default_value_t = DEFAULT_CONFIDENCE)]
    pub confidence: f64,
}

impl EquivalenceArgs {
    /// The checked [`Equivalence`] ([`Equivalence::checked`]), or a usage error naming the
    /// bad flag.
    pub fn equivalence(&self) -> anyhow::Result<Equivalence> {
        // The fairness crate's messages name the options without their `--`.
        Equivalence::checked(self.tolerance, self.confidence).map_err(|e| usage(format!("--{e}")))
    }
}

/// Rules of the game itself, shared by `simulate`, `exact` and `strategy` (the deck count is
/// separate: the basic-strategy chart is an infinite-deck one, so `strategy` does not take it).
#[derive(Debug, clap::Args)]
pub struct GameRuleArgs {
    /// `--s17` / `--h17`.
    #[command(flatten)]
    pub dealer: DealerRuleArgs,

    /// Double after split is allowed (the default).
    #[arg(long, conflicts_with = "no_das")]
    pub das: bool,

    /// Double after split is not allowed.
    #[arg(long)]
    pub no_das: bool,

    /// Which first two cards may be doubled: any, 9-11 or 10-11 (hard totals).
    #[arg(long, value_name = "RULE", default_value = "any")]
    pub double: DoubleRule,

    /// Most hands a seat may hold after splitting (1 = no splitting, up to 8).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 4,
        allow_negative_numbers = true,
        value_parser = RangedI64ValueParser::<u8>::new().range(1..=8)
    )]
    pub split_hands: u8,

    /// Aces may be resplit.
    #[arg(long)]
    pub resplit_aces: bool,

    /// Split aces may be hit.
    #[arg(long)]
    pub hit_split_aces: bool,

    /// Surrender: none, late or early.
    #[arg(long, value_name = "WHEN", default_value = "none")]
    pub surrender: Surrender,

    /// Blackjack payout: 3:2, 6:5 or 1:1.
    #[arg(long, value_name = "RATIO", default_value = "3:2")]
    pub payout: Payout,

    /// European no-hole-card game: a dealer blackjack takes doubles and splits too.
    #[arg(long)]
    pub no_hole_card: bool,
}

/// The shoe size, for the commands whose result depends on it.
#[derive(Debug, clap::Args)]
pub struct DeckArgs {
    /// Decks in the shoe (1 to 8).
    #[arg(
        long,
        value_name = "D",
        default_value_t = 6,
        allow_negative_numbers = true,
        value_parser = RangedI64ValueParser::<u8>::new().range(1..=8)
    )]
    pub decks: u8,
}

/// How the shoe is dealt and how many play: `simulate` only.
#[derive(Debug, clap::Args)]
pub struct TableArgs {
    /// Cut card position as a fraction of the shoe (strictly between 0 and 1).
    #[arg(
        long,
        value_name = "F",
        default_value_t = 0.75,
        allow_negative_numbers = true,
        conflicts_with = "shuffle_every_round"
    )]
    pub penetration: f64,

    /// Continuous shuffler: reshuffle before every round.
    #[arg(long)]
    pub shuffle_every_round: bool,

    /// Player seats (1 to 7), all playing the same strategy.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        allow_negative_numbers = true,
        value_parser = RangedI64ValueParser::<u8>::new().range(1..=7)
    )]
    pub seats: u8,
}

/// `simulate`'s shoe and table options (`DeckArgs`' `--decks`, [`TableArgs`]'), which `blackjack
/// strategy` takes as text only to refuse them by name with the reason (hidden from its help):
/// an infinite-deck chart does not depend on them.
#[derive(Debug, clap::Args)]
pub struct NotForTheChart {
    #[arg(long, hide = true, allow_hyphen_values = true)]
    decks: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    penetration: Option<String>,
    #[arg(long, hide = true, allow_hyphen_values = true)]
    seats: Option<String>,
    #[arg(long, hide = true)]
    shuffle_every_round: bool,
}

impl NotForTheChart {
    /// The first option given, if any.
    pub fn given(&self) -> Option<&'static str> {
        if self.decks.is_some() {
            Some("--decks")
        } else if self.penetration.is_some() {
            Some("--penetration")
        } else if self.seats.is_some() {
            Some("--seats")
        } else if self.shuffle_every_round {
            Some("--shuffle-every-round")
        } else {
            None
        }
    }
}

impl GameRuleArgs {
    /// The rules with `decks` decks and, if given, the table's dealing; validated.
    pub fn rules(&self, decks: u8, table: Option<&TableArgs>) -> anyhow::Result<Rules> {
        let defaults = Rules::default();
        let rules = Rules {
            decks,
            hits_soft_17: self.dealer.h17,
            double: self.double,
            double_after_split: !self.no_das,
            max_split_hands: self.split_hands,
            resplit_aces: self.resplit_aces,
            hit_split_aces: self.hit_split_aces,
            surrender: self.surrender,
            payout: self.payout,
            hole_card: if self.no_hole_card {
                HoleCard::NoHoleCard
            } else {
                HoleCard::Peek
            },
            penetration: match table {
                Some(t) if t.shuffle_every_round => Penetration::Continuous,
                Some(t) => Penetration::CutCard(t.penetration),
                None => Penetration::Continuous,
            },
            seats: table.map_or(defaults.seats, |t| t.seats),
        };
        rules
            .validate()
            .map_err(|e| usage(format!("invalid rules: {e}")))?;
        Ok(rules)
    }
}

/// The smallest `--memory` honoured: below it the external shuffle makes so many levels and
/// small files that it runs many times slower (`--memory 1K` took 10 to 20 times as long as
/// `1M` on 8 MB), so a smaller budget is raised to it with a note, as GNU sort raises `-S`.
pub const MIN_MEMORY: u64 = 64 << 10;

/// `--memory` as given, raised to [`MIN_MEMORY`] (with a note) unless `small` (the hidden
/// `--small-memory` of the tests).
pub fn at_least_minimum(
    memory: fairdeal_external::MemoryBudget,
    small: bool,
) -> fairdeal_external::MemoryBudget {
    if small || memory.bytes() >= MIN_MEMORY {
        return memory;
    }
    let minimum =
        fairdeal_external::MemoryBudget::new(MIN_MEMORY).expect("the minimum is a valid budget");
    eprintln!("fairdeal: note: --memory {memory} is below the minimum {minimum}; using {minimum}");
    minimum
}

/// Parses `--memory`: a size no larger than the machine's physical memory.
pub fn parse_memory(text: &str) -> Result<fairdeal_external::MemoryBudget, String> {
    let limit = fairdeal_external::physical_memory().unwrap_or(u64::MAX);
    fairdeal_external::MemoryBudget::parse_at_most(text, limit).map_err(|e| match e {
        fairdeal_external::BudgetError::TooLarge { limit, .. } if limit != u64::MAX => {
            format!("size '{text}' is more than this machine's {limit} bytes of memory")
        }
        other => other.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_bounded_before_any_thread_starts() {
        assert_eq!(parse_threads("1").unwrap().get(), 1);
        assert_eq!(parse_threads("3").unwrap().get(), 3);
        assert_eq!(parse_threads("1024").unwrap().get(), MAX_THREADS);
        assert_eq!(parse_threads("0").unwrap_err(), "must be at least 1");
        for absurd in [
            "1025",
            "1000000",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let err = parse_threads(absurd).unwrap_err();
            assert!(
                err.contains("more than the 1024 allowed"),
                "{absurd}: {err}"
            );
        }
        assert_eq!(
            parse_threads("-1").unwrap_err(),
            "must be a positive number of threads, not -1"
        );
        for bad in ["-", "two", "", "1.5"] {
            assert!(
                parse_threads(bad)
                    .unwrap_err()
                    .contains("not a whole number"),
                "{bad}"
            );
        }
    }

    #[test]
    fn counts_are_bounded_and_negative_numbers_named() {
        let parse = count_parser(1, 1000);
        assert_eq!(parse("1"), Ok(1));
        assert_eq!(parse(" 1_000 "), Ok(1000));
        assert_eq!(parse("0").unwrap_err(), "must be at least 1");
        assert_eq!(parse("-5").unwrap_err(), "must be non-negative");
        assert_eq!(
            parse("1001").unwrap_err(),
            "1001 is more than the 1000 allowed"
        );
        assert_eq!(
            parse("99999999999999999999999").unwrap_err(),
            "99999999999999999999999 is more than the 1000 allowed"
        );
        for bad in ["", "-", "1.5", "1e6", "ten", "+-1"] {
            assert!(
                parse(bad).unwrap_err().contains("not a whole number"),
                "{bad}"
            );
        }
    }

    #[test]
    fn registry_parsers_list_every_name() {
        use clap::builder::TypedValueParser as _;
        let names = |parser: PossibleValuesParser| -> Vec<String> {
            parser
                .possible_values()
                .into_iter()
                .flatten()
                .map(|v| v.get_name().to_owned())
                .collect()
        };
        let algorithms: Vec<&str> = fairdeal::ALGORITHMS.iter().map(|a| a.name).collect();
        assert_eq!(names(algorithm_parser()), algorithms);
        let backends: Vec<&str> = fairdeal::rng::backends().iter().map(|b| b.name).collect();
        assert_eq!(names(backend_parser()), backends);
    }

    #[test]
    fn dealer_rules_conflict_and_default_to_s17() {
        use clap::Parser as _;
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            dealer: DealerRuleArgs,
        }
        let parse = |args: &[&str]| Cli::try_parse_from(args).map(|cli| cli.dealer.h17);
        assert!(!parse(&["t"]).unwrap());
        assert!(!parse(&["t", "--s17"]).unwrap());
        assert!(parse(&["t", "--h17"]).unwrap());
        assert!(parse(&["t", "--s17", "--h17"]).is_err());
    }
}
