/*!
`cargo xtask`: the project's automation, run through the alias in `.cargo/config.toml`
(`xtask = "run --package xtask --"`), in the style of rust-analyzer's xtask.

Two commands:

* `cargo xtask bench` runs the criterion (wall clock) and iai-callgrind (instruction count)
  benchmarks of `benches/`, fits `log(cost)` against `log(N)` for every algorithm × backend ×
  metric, checks each slope against the complexity the algorithm declares in its
  `AlgorithmInfo`, runs the duels (ours and each peer alternated round by round in one
  process) for the speed-targets table, and writes `target/bench-report/{summary.json,
  report.md, *.svg}`. Every table it prints or writes carries the machine's record (CPU model,
  family and model numbers, cache sizes, ISA extensions, core count, rustc: `machine.rs`),
  because the same code ranks differently against its peers on different CPUs. It exits
  non-zero when an instruction-count slope disagrees with the claim (instruction counts are
  deterministic, so this is a CI gate that cannot flake); wall-clock slopes and speed targets
  are informational. `--duel` runs only the duels and the targets table.
* `cargo xtask calibrate` measures the fairness judges: the false-alarm rate of every
  `fairdeal audit` test on fair data of many shapes next to alpha, and the power on known-bad
  sources; it exits non-zero when a test is miscalibrated or a bad source is missed.

Design choices: cargo is invoked through the `CARGO` variable (the toolchain that runs the
xtask also builds the benches); the target directory comes from `cargo metadata`, so
`CARGO_TARGET_DIR` and config are honoured; the benchmarks' own output files are the interface
(criterion's `estimates.json`, iai-callgrind's `summary.json`), not their console text, which is
only used for progress.
*/
#![forbid(unsafe_code)]

mod baseline;
mod bench;
mod calibrate;
mod catalogue;
mod criterion;
mod duel;
mod figures;
mod fit;
mod format;
mod iai;
mod machine;
mod model;
mod plot;
mod process;
mod quality;
mod report;
mod targets;
#[cfg(test)]
mod tidy;
mod tools;
mod verdict;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// fairdeal's development tasks.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run the benchmarks and check every algorithm's declared complexity (O(N), O(N log N),
    /// O(N²)) on every RNG backend.
    ///
    /// Phases: build; criterion wall-clock sweep (all algorithms, backends and peers: rand,
    /// fastrand, rip_shuffle); iai-callgrind instruction counts (needs valgrind; installs the
    /// matching iai-callgrind-runner with `cargo install` when missing); slope fits and
    /// verdicts; the speed targets as ratios (met/missed, informational); report in
    /// `<target>/bench-report/`. Exits 1 if an instruction-count slope is outside its band
    /// (O(N): 1.00 ± 0.10, O(N²): 2.00 ± 0.15, O(N log N): 1 + 1/(2 ln N) to 1 + 1/ln N + 0.10),
    /// if an algorithm's least-growing series shows another class than it declares (see
    /// docs/benchmarks.md), or if an algorithm × backend has no instruction count.
    Bench(bench::BenchArgs),
    /// Calibrate the fairness judges: false-alarm rate of every `fairdeal audit` test on fair
    /// data of many shapes (2–52 items × 2–100,000 lines) next to alpha, and power on known-bad
    /// sources. Exits 1 if a test exceeds its alpha beyond sampling error or a bad source is
    /// missed. Build optimised for the full table: `cargo xtask calibrate` takes minutes.
    Calibrate(calibrate::CalibrateArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Task::Bench(args) => bench::run(&args),
        Task::Calibrate(args) => calibrate::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
