//! `fairdeal`: shuffle lines or ranges like `shuf`, test shufflers for fairness, and list the
//! algorithms and random number generators the library offers.
//!
//! The binary is thin: each subcommand lives in `cmd/<name>.rs` as an `Args` struct (clap) and
//! a `run` function; this file only declares the subcommands and turns errors into one line on
//! stderr and an exit status (2 for usage errors, 1 for the rest, 0 when stdout was closed
//! early, e.g. by `| head`).

#![forbid(unsafe_code)]

mod cmd;
mod common;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

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
}

fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Shuffle(args) => cmd::shuffle::run(args),
        Command::Fairness(args) => cmd::fairness::run(args),
        Command::Algorithms(args) => cmd::listing::run_algorithms(&args),
        Command::Backends(args) => cmd::listing::run_backends(&args),
        Command::Poker(args) => cmd::poker::run(args),
        Command::Blackjack(args) => cmd::blackjack::run(args),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return report_clap_error(&err),
    };
    match dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            let status = common::exit_status(&err);
            if status != 0 {
                eprintln!("fairdeal: error: {}", common::one_line(&err));
            }
            ExitCode::from(status)
        }
    }
}

/// `--help` and `--version` print as clap formats them; a usage error becomes the same single
/// `fairdeal: error: ...` line as every other error (clap's own text spans several lines).
fn report_clap_error(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        // Help and version go to stdout; a closed stdout is nothing to complain about.
        let _ = err.print();
        return if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let rendered = err.to_string();
    let first = rendered
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("invalid arguments");
    let message = first.strip_prefix("error: ").unwrap_or(first);
    eprintln!("fairdeal: error: {message} (see 'fairdeal --help')");
    ExitCode::from(2)
}
