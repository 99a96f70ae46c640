//! `cargo xtask calibrate`: do the judges' verdicts mean what they say?
//!
//! Runs the tests `fairdeal audit` runs ([`line_tallies`] + [`judge_tallies`]) on many fair
//! data sets of every shape — 2 to 52 items × 2 to 100,000 lines, the sparse and tiny shapes
//! included — and prints how often each test rejects at level `alpha` (its false-alarm rate,
//! which must not exceed `alpha` beyond sampling error), then runs known-bad sources at the
//! CLI's level ([`PASS_THRESHOLD`]) and prints how often the verdict is UNFAIR (the power).
//! Everything is seeded: the same command prints the same table.

use std::fmt::Write as _;

use anyhow::{Result, bail};
use fairdeal::fairness::{
    JudgeConfig, PASS_THRESHOLD, TestName, Verdict, judge_tallies, line_tallies,
};
use fairdeal::rng::Backend;
use fairdeal::rng::backend::{ChaCha12, Java};
use fairdeal::{Biased, IndexSampler, Inplace, Lemire, Rng, Shuffler, stream_seed};
use serde::Serialize;

/// Arguments of `cargo xtask calibrate`.
#[derive(Debug, clap::Args)]
pub(crate) struct CalibrateArgs {
    /// Fair data sets per shape (fewer for the largest shapes, so the run stays minutes).
    #[arg(long, default_value_t = 200)]
    runs: u64,
    /// Significance level of the false-alarm table.
    #[arg(long, default_value_t = 0.01)]
    alpha: f64,
    /// Data sets per known-bad source.
    #[arg(long, default_value_t = 10)]
    bad_runs: u64,
    /// Monte Carlo replicates of the sparse tests.
    #[arg(long, default_value_t = 199)]
    replicates: u64,
    /// Print JSON instead of tables.
    #[arg(long)]
    json: bool,
}

/// The fair shapes: items × lines.
const SHAPES: &[(usize, u64)] = &[
    (2, 2),
    (2, 30),
    (2, 1_000),
    (3, 2),
    (3, 30),
    (3, 3_000),
    (5, 2),
    (5, 30),
    (5, 1_000),
    (8, 30),
    (8, 1_000),
    (8, 100_000),
    (13, 30),
    (13, 10_000),
    (52, 2),
    (52, 100),
    (52, 10_000),
    (52, 100_000),
];

/// Placements (items × lines × runs) one shape may cost: the big shapes get fewer runs.
const WORK_PER_SHAPE: u64 = 40_000_000;

/// The fewest fair runs of any shape.
const MIN_RUNS: u64 = 10;

/// One test's row of the false-alarm table.
#[derive(Debug, Serialize)]
struct FairRow {
    n: usize,
    lines: u64,
    runs: u64,
    test: String,
    rejections: u64,
    rate: f64,
    alpha: f64,
    /// The most rejections a test at level alpha gives with probability 0.999.
    bound: u64,
    within: bool,
}

/// One bad source's power.
#[derive(Debug, Serialize)]
struct BadRow {
    source: &'static str,
    n: usize,
    lines: u64,
    runs: u64,
    unfair: u64,
    power: f64,
    decided_by: Vec<String>,
}

#[derive(Debug, Serialize)]
struct Report {
    alpha: f64,
    replicates: u64,
    fair: Vec<FairRow>,
    bad_alpha: f64,
    bad: Vec<BadRow>,
}

/// `P(X >= k)` for `X ~ Binomial(n, p)`, by summing the pmf (n is small here).
fn binomial_upper(n: u64, p: f64, k: u64) -> f64 {
    let mut pmf = (1.0 - p).powf(n as f64);
    let mut upper = 0.0;
    for i in 0..=n {
        if i >= k {
            upper += pmf;
        }
        pmf *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    upper.min(1.0)
}

/// The smallest `k` with `P(X > k) <= 0.001`: more rejections than this are a calibration
/// failure, not bad luck.
fn binomial_bound(n: u64, p: f64) -> u64 {
    (0..=n)
        .find(|&k| binomial_upper(n, p, k + 1) <= 1e-3)
        .unwrap_or(n)
}

/// A source of permutation lines.
trait Source {
    fn line(&mut self, deck: &mut [usize]);
}

/// A fair source: Durstenfeld (the `inplace` algorithm) on ChaCha12.
struct Fair(<ChaCha12 as Backend>::Rng);

impl Source for Fair {
    fn line(&mut self, deck: &mut [usize]) {
        Inplace::new().shuffle(deck, &mut self.0);
    }
}

/// Runs `lines` lines of `n` items from `source` through the audit's tests.
fn audit(
    n: usize,
    lines: u64,
    source: &mut dyn Source,
    alpha: f64,
    config: &JudgeConfig,
) -> Result<fairdeal::fairness::BatteryReport> {
    let mut tallies = line_tallies(n)?;
    let mut deck = vec![0usize; n];
    for _ in 0..lines {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        source.line(&mut deck);
        for (_, tally) in &mut tallies {
            tally.add(&deck)?;
        }
    }
    // The false-alarm and power tables count rejections only: the default tolerances leave
    // those unchanged.
    Ok(judge_tallies(
        &tallies,
        alpha,
        config,
        &fairdeal::fairness::Equivalence::default(),
    )?)
}

fn fair_rows(args: &CalibrateArgs) -> Result<Vec<FairRow>> {
    let mut rows = Vec::new();
    for (shape, &(n, lines)) in SHAPES.iter().enumerate() {
        let runs = args
            .runs
            .min((WORK_PER_SHAPE / (n as u64 * lines)).max(MIN_RUNS));
        let mut names: Vec<TestName> = Vec::new();
        let mut rejections: Vec<u64> = Vec::new();
        let mut battery_unfair = 0;
        for run in 0..runs {
            let seed = stream_seed(shape as u64, run);
            let mut source = Fair(ChaCha12::seeded(seed));
            let config = JudgeConfig {
                replicates: args.replicates,
                seed,
            };
            let battery = audit(n, lines, &mut source, args.alpha, &config)?;
            for test in &battery.tests {
                let index = match names.iter().position(|&name| name == test.name) {
                    Some(index) => index,
                    None => {
                        names.push(test.name);
                        rejections.push(0);
                        names.len() - 1
                    }
                };
                if test.p_value <= args.alpha {
                    rejections[index] += 1;
                }
            }
            if battery.verdict == Verdict::Unfair {
                battery_unfair += 1;
            }
        }
        let bound = binomial_bound(runs, args.alpha);
        let mut push = |test: String, count: u64| {
            rows.push(FairRow {
                n,
                lines,
                runs,
                test,
                rejections: count,
                rate: count as f64 / runs as f64,
                alpha: args.alpha,
                bound,
                within: count <= bound,
            });
        };
        for (name, count) in names.iter().zip(&rejections) {
            push(name.name().to_owned(), *count);
        }
        push("battery (Holm)".to_owned(), battery_unfair);
    }
    Ok(rows)
}

/// The wrong-range swap: `swap(i, random index in [0, n))`.
struct WrongRange(<ChaCha12 as Backend>::Rng);

impl Source for WrongRange {
    fn line(&mut self, deck: &mut [usize]) {
        Biased::new().shuffle(deck, &mut self.0);
    }
}

/// Sorting with a comparator that flips a coin.
struct CoinFlipSort(<ChaCha12 as Backend>::Rng);

impl Source for CoinFlipSort {
    fn line(&mut self, deck: &mut [usize]) {
        // Insertion sort whose comparator flips a coin (std's sort rejects such comparators).
        for i in 1..deck.len() {
            let mut j = i;
            while j > 0 && self.0.next_u32() & 1 == 0 {
                deck.swap(j - 1, j);
                j -= 1;
            }
        }
    }
}

/// `Collections.shuffle(list, new Random(seed))` for seeds `first, first + 1, …`.
struct ConsecutiveJava {
    next_seed: u64,
}

impl Source for ConsecutiveJava {
    fn line(&mut self, deck: &mut [usize]) {
        let shuffler = Inplace::with_sampler(<Java as Backend>::Sampler::default());
        shuffler.shuffle(deck, &mut Java::seeded(self.next_seed));
        self.next_seed += 1;
    }
}

/// A fair dealer whose every 20th deal repeats an earlier one (5 % repeats: seed reuse).
struct RepeatedDeals {
    rng: <ChaCha12 as Backend>::Rng,
    dealt: Vec<Vec<usize>>,
}

impl Source for RepeatedDeals {
    fn line(&mut self, deck: &mut [usize]) {
        if self.dealt.len() % 20 == 19 {
            let earlier = Lemire.index_below(&mut self.rng, self.dealt.len());
            deck.copy_from_slice(&self.dealt[earlier]);
        } else {
            Inplace::new().shuffle(deck, &mut self.rng);
        }
        self.dealt.push(deck.to_vec());
    }
}

/// A dealer that seeds a good generator from a 16-bit value for every deal.
struct SixteenBitSeeds(<ChaCha12 as Backend>::Rng);

impl Source for SixteenBitSeeds {
    fn line(&mut self, deck: &mut [usize]) {
        let seed = Lemire.index_below(&mut self.0, 1 << 16) as u64;
        Inplace::new().shuffle(deck, &mut ChaCha12::seeded(seed));
    }
}

type MakeSource = fn(u64) -> Box<dyn Source>;

/// The known-bad sources, each at a shape where a user would meet it.
fn bad_sources() -> Vec<(&'static str, usize, u64, MakeSource)> {
    vec![
        ("wrong-range swap", 8, 20_000, |seed| {
            Box::new(WrongRange(ChaCha12::seeded(seed)))
        }),
        ("sort, coin-flip comparator", 52, 2_000, |seed| {
            Box::new(CoinFlipSort(ChaCha12::seeded(seed)))
        }),
        ("java, consecutive seeds", 4, 12_000, |seed| {
            Box::new(ConsecutiveJava {
                next_seed: seed % 1_000_000,
            })
        }),
        ("repeated deals (5 %)", 52, 10_000, |seed| {
            Box::new(RepeatedDeals {
                rng: ChaCha12::seeded(seed),
                dealt: Vec::new(),
            })
        }),
        ("16-bit seeds", 52, 2_000, |seed| {
            Box::new(SixteenBitSeeds(ChaCha12::seeded(seed)))
        }),
    ]
}

fn bad_rows(args: &CalibrateArgs) -> Result<Vec<BadRow>> {
    let mut rows = Vec::new();
    for (index, (source, n, lines, make)) in bad_sources().into_iter().enumerate() {
        let mut unfair = 0;
        let mut decided_by = Vec::new();
        for run in 0..args.bad_runs {
            let seed = stream_seed(1_000 + index as u64, run);
            let config = JudgeConfig {
                replicates: args.replicates,
                seed,
            };
            let battery = audit(n, lines, make(seed).as_mut(), PASS_THRESHOLD, &config)?;
            if battery.verdict == Verdict::Unfair {
                unfair += 1;
                if let Some(name) = battery.decided_by {
                    let name = name.name().to_owned();
                    if !decided_by.contains(&name) {
                        decided_by.push(name);
                    }
                }
            }
        }
        rows.push(BadRow {
            source,
            n,
            lines,
            runs: args.bad_runs,
            unfair,
            power: unfair as f64 / args.bad_runs as f64,
            decided_by,
        });
    }
    Ok(rows)
}

/// Runs `cargo xtask calibrate`; fails when a test's false-alarm count exceeds its bound or a
/// bad source is missed in any run.
pub(crate) fn run(args: &CalibrateArgs) -> Result<std::process::ExitCode> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) || args.runs == 0 || args.bad_runs == 0 {
        bail!("--alpha must be in (0, 1) and --runs, --bad-runs at least 1");
    }
    let report = Report {
        alpha: args.alpha,
        replicates: args.replicates,
        fair: fair_rows(args)?,
        bad_alpha: PASS_THRESHOLD,
        bad: bad_rows(args)?,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", text(&report));
    }
    let calibrated = report.fair.iter().all(|row| row.within);
    let powerful = report.bad.iter().all(|row| row.unfair == row.runs);
    Ok(if calibrated && powerful {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    })
}

fn text(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "False alarms on fair data (ChaCha12 + Durstenfeld), alpha = {}, Monte Carlo with {} \
         replicates; 'bound' is the most rejections a level-alpha test gives with probability \
         0.999:\n",
        report.alpha, report.replicates
    );
    let _ = writeln!(
        out,
        "| items | lines | runs | test | rejections | rate | bound | within |"
    );
    let _ = writeln!(out, "|---:|---:|---:|---|---:|---:|---:|---|");
    for row in &report.fair {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.3} | {} | {} |",
            row.n,
            row.lines,
            row.runs,
            row.test,
            row.rejections,
            row.rate,
            row.bound,
            if row.within { "yes" } else { "NO" }
        );
    }
    let _ = writeln!(
        out,
        "\nPower on known-bad sources at the CLI's level (alpha = {:e}): runs called UNFAIR\n",
        report.bad_alpha
    );
    let _ = writeln!(
        out,
        "| source | items | lines | runs | UNFAIR | decided by |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---|");
    for row in &report.bad {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            row.source,
            row.n,
            row.lines,
            row.runs,
            row.unfair,
            row.decided_by.join(", ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binomial_bound_is_a_tail_quantile() {
        // Bin(200, 0.01): mean 2; P(X > 8) is about 2.4e-4, P(X > 7) about 1.1e-3.
        assert_eq!(binomial_bound(200, 0.01), 8);
        assert!((binomial_upper(3, 0.5, 2) - 0.5).abs() < 1e-12);
    }
}
