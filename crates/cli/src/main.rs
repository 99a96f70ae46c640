//! `fairdeal`: shuffle lines or ranges like `shuf`, test shufflers for fairness, and list the
//! algorithms and random number generators the library offers.
//!
//! Each subcommand lives in `cmd/<name>.rs` as an `Args` struct (clap) and a `run` function;
//! this file declares the subcommands, hands the whole command line to `cmd/shuf.rs` when
//! argv[0] is `shuf`, and turns errors into one line on stderr and an exit status (a judge's
//! verdict its own, 3 for UNFAIR and 4 for INSUFFICIENT; 2 for usage errors, 1 for the rest, 0
//! when stdout was closed early, e.g. by `| head`).
//!
//! A standard input or output closed by the caller (`<&-`, `>&-`) fails as in GNU tools:
//! reading or writing it is "Bad file descriptor", exit 1 (`closed_stdio.rs`). An open
//! `/dev/null` (Python's `subprocess.DEVNULL`, Node's `stdio: 'ignore'`) is not closed and
//! behaves as `/dev/null`.

#![deny(unsafe_code)]

mod closed_stdio;
mod cmd;
mod common;
mod shard_arg;
mod verdict;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Fair shuffles, fairness tests and the algorithms behind them.
#[derive(Debug, Parser)]
#[command(name = "fairdeal", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Shuffle lines of a file or standard input, or a range of integers (like `shuf`).
    Shuffle(cmd::shuffle::Args),
    /// Shuffle [0..n) many times and test that every order is equally likely (chi-square).
    Fairness(cmd::fairness::Args),
    /// List the shuffling algorithms: complexity, fairness, summary.
    Algorithms(cmd::listing::AlgorithmsArgs),
    /// List the random number generator backends: state size, security, reach.
    Backends(cmd::listing::BackendsArgs),
    /// Poker: exact and Monte Carlo hand tables, Hold'em equity.
    Poker(cmd::poker::Args),
    /// Blackjack: house edge by simulation, exact dealer table, basic strategy chart.
    Blackjack(cmd::blackjack::Args),
    /// Judge permutations written by any program, one per line: fair or not, and where.
    Audit(cmd::audit::Args),
    /// Compare the RNG backends: speed, state, reach, and the shuffle-quality battery.
    Compare(cmd::compare::Args),
    /// Add up the --json outputs of a Monte Carlo run's shards (--shard I/N) into the whole run.
    Merge(cmd::merge::Args),
    /// Shuffle files on a cluster: plan, scatter and gather tasks (Slurm, GNU parallel), verify.
    Shard(cmd::shard::Args),
}

fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Shuffle(args) => cmd::shuffle::run(args),
        Command::Fairness(args) => cmd::fairness::run(args),
        Command::Algorithms(args) => cmd::listing::run_algorithms(&args),
        Command::Backends(args) => cmd::listing::run_backends(&args),
        Command::Poker(args) => cmd::poker::run(args),
        Command::Blackjack(args) => cmd::blackjack::run(args),
        Command::Audit(args) => cmd::audit::run(args),
        Command::Compare(args) => cmd::compare::run(args),
        Command::Merge(args) => cmd::merge::run(&args),
        Command::Shard(args) => cmd::shard::run(args),
    }
}

fn main() -> ExitCode {
    // Called `shuf` (a symlink or a copy), the binary is GNU shuf: its options, its messages.
    if std::env::args_os()
        .next()
        .is_some_and(|argv0| cmd::shuf::is_shuf(&argv0))
    {
        return cmd::shuf::main(std::env::args_os().collect());
    }
    let matches = match command().try_get_matches() {
        Ok(matches) => matches,
        Err(err) => return report_clap_error(&err),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(err) => return report_clap_error(&err),
    };
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => report(&err),
    }
}

/// Prints an error as one `fairdeal: error: ...` line (nothing for a closed pipe) and returns
/// its exit status.
fn report(err: &anyhow::Error) -> ExitCode {
    let status = common::exit_status(err);
    if status != 0 && verdict::of(err).is_none() {
        eprintln!("fairdeal: error: {}", common::one_line(err));
    }
    ExitCode::from(status)
}

/// The command line as clap sees it, with one change to what the derive produces: every option
/// and positional argument that takes a value accepts a negative number as that value, so
/// `--seed -1` is refused by the option's own parser ("must be non-negative") instead of being
/// mistaken for an unknown option `-1`.
fn command() -> clap::Command {
    fn negative_numbers_are_values(command: clap::Command) -> clap::Command {
        command
            .mut_args(|arg| {
                if arg.get_action().takes_values() {
                    arg.allow_negative_numbers(true)
                } else {
                    arg
                }
            })
            .mut_subcommands(negative_numbers_are_values)
    }
    negative_numbers_are_values(Cli::command())
}

/// `--help` and `--version` print as clap formats them (exit 0, or 1 when stdout cannot take
/// them); a usage error becomes one `fairdeal: error: ...` line with exit status 2. clap's own
/// text spans several lines, so its parts are joined: the message, the missing or valid names
/// it lists, its tips and the subcommand's usage.
fn report_clap_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    match err.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => print_to_stdout(err),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            // The help of a command that needs a subcommand: on stderr, as the usage error it is.
            let _ = err.print();
            ExitCode::from(2)
        }
        _ => {
            let line = common::shorten_long_words(&clap_error_line(err));
            eprintln!("fairdeal: error: {line}");
            ExitCode::from(2)
        }
    }
}

/// Writes `--help` or `--version` to stdout and checks that it arrived: `fairdeal --help >
/// /dev/full` fails (exit 1) instead of pretending, while `| head -1` stays silent (exit 0).
fn print_to_stdout(err: &clap::Error) -> ExitCode {
    use std::io::Write as _;
    let mut out = common::stdout();
    let text = if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        err.render().ansi().to_string()
    } else {
        err.render().to_string()
    };
    let written = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(io_err) => report(&anyhow::Error::new(io_err)),
    }
}

/// clap's multi-line usage error on one line.
fn clap_error_line(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut message = Vec::new();
    let mut usage = None;
    for line in rendered.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(rest) = line.strip_prefix("Usage: ") {
            usage = Some(rest.to_owned());
        } else if line.starts_with("For more information, try") {
            // Replaced by the pointer to the subcommand's own help below.
        } else {
            message.push(line.strip_prefix("error: ").unwrap_or(line).to_owned());
        }
    }
    let mut text = message.join(" ");
    if let Some(reason) = negative_number_reason(err) {
        text = reason;
    }
    match usage {
        Some(usage) => {
            let path: Vec<&str> = usage
                .split_whitespace()
                .take_while(|word| !word.starts_with(['<', '[', '-']))
                .collect();
            format!("{text} (usage: {usage}; see '{} --help')", path.join(" "))
        }
        None => format!("{text} (see '{} --help')", subcommand_path()),
    }
}

/// For a negative number or an overflow where an unsigned count is expected, the message a
/// person understands ("must be non-negative") instead of the parser's ("invalid digit found
/// in string").
fn negative_number_reason(err: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    use std::num::IntErrorKind;
    if err.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) = (
        err.get(ContextKind::InvalidArg),
        err.get(ContextKind::InvalidValue),
    ) else {
        return None;
    };
    let value = value.trim();
    let negative = value
        .strip_prefix('-')
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()));
    let cause = std::error::Error::source(err)?;
    // Only plain integer parsers: clap's ranged ones already name their range ("-1 is not in
    // 0..=8").
    let parse = cause.downcast_ref::<std::num::ParseIntError>()?;
    let reason = match parse.kind() {
        IntErrorKind::InvalidDigit | IntErrorKind::NegOverflow if negative => {
            "must be non-negative"
        }
        IntErrorKind::PosOverflow => "out of range (too large)",
        _ => return None,
    };
    Some(format!("invalid value '{value}' for '{arg}': {reason}"))
}

/// `fairdeal poker table`: the subcommands named on the command line, for pointing at the
/// right `--help` when clap's error does not carry a usage line.
fn subcommand_path() -> String {
    let root = command();
    let mut current = &root;
    let mut path = vec![current.get_name().to_owned()];
    for arg in std::env::args_os().skip(1) {
        let Some(arg) = arg.to_str() else { continue };
        if let Some(sub) = current.find_subcommand(arg) {
            path.push(sub.get_name().to_owned());
            current = sub;
        }
    }
    path.join(" ")
}
