/*!
Do the judges' verdicts mean what they say? The statistics behind `cargo xtask calibrate`.

Three measurements, each on the tests `fairdeal audit` runs ([`line_tallies`] judged by
[`judge_tallies`]), each seeded so that the same call gives the same numbers:

* [`false_alarms`]: the share of fair data sets each test rejects at level `alpha`, next to the
  most rejections a level-`alpha` test gives with probability 0.999 ([`binomial_bound`]). A
  count above it is a calibration failure, not bad luck.
* [`bad_source_power`]: how often known-bad sources ([`CoinFlipSort`], [`ConsecutiveSeeds`],
  [`RepeatedDeals`], [`SeedBits`], a wrong-range [`Shuffled`]) are called UNFAIR.
* [`power_table`]: the smallest bias each test detects with a target power (99 %) at a given
  number of lines. The bias is dialled with a [`Mixture`]: each line comes from a bad source
  with probability `weight`, else from a fair one, so every cell's probability moves from `p`
  to `(1 - weight)·p + weight·q` and the largest relative cell deviation is `weight · D`, where
  `D = max |q/p - 1|` is the bad source's own (its [`DialSource::deviation`], exact where it is
  known in closed form or by enumeration). Power is estimated by replicates with fixed seeds
  (the same seeds at every weight, so the estimates are monotone in practice), with its
  Clopper–Pearson 95 % interval. Beside it, the lines a fair source needs to certify the test's
  default tolerance ([`crate::FairnessReport::samples_to_certify`]).

The sources are generic: the caller passes the shufflers and generators (this crate names no
concrete algorithm or RNG); [`LineSource`] is what every source implements.
*/

use fairdeal_chacha::ChaCha12Rng;
use fairdeal_core::{IndexSampler, Lemire, Rng, SeedableRng, Shuffler, stream_seed};
use serde::Serialize;

use crate::equivalence::clopper_pearson;
use crate::{
    BatteryReport, Equivalence, FairnessError, JudgeConfig, NamedTally, TestName, Verdict,
    judge_tallies, line_tallies,
};

/// A calibration call's error: bad arguments, or a test's own error.
#[derive(Debug, thiserror::Error)]
pub enum CalibrationError {
    /// An argument outside its range (named in the message).
    #[error("{0}")]
    Invalid(&'static str),
    /// A test could not run.
    #[error(transparent)]
    Fairness(#[from] FairnessError),
}

/// A source of permutation lines: each call leaves one permutation of the deck's items (the
/// deck holds `0, 1, …, n - 1` in order when called).
pub trait LineSource {
    /// Overwrites `deck` (in order on entry) with the next line.
    fn line(&mut self, deck: &mut [usize]);
}

/// A caller-made source for a seed: the same seed, the same lines.
pub type MakeSource<'a> = &'a dyn Fn(u64) -> Box<dyn LineSource>;

/// Lines from one shuffler on one generator: fair for a fair shuffler, the wrong-range swap
/// for `Biased`.
#[derive(Debug, Clone)]
pub struct Shuffled<S, R> {
    /// The shuffler.
    pub shuffler: S,
    /// Its generator.
    pub rng: R,
}

impl<S: Shuffler, R: Rng> LineSource for Shuffled<S, R> {
    fn line(&mut self, deck: &mut [usize]) {
        self.shuffler.shuffle(deck, &mut self.rng);
    }
}

/// The deck as it came: a dealer who forgot to shuffle.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unshuffled;

impl LineSource for Unshuffled {
    fn line(&mut self, _deck: &mut [usize]) {}
}

/// Insertion sort whose comparator flips a coin (a "random comparator" sort).
#[derive(Debug, Clone)]
pub struct CoinFlipSort<R>(pub R);

impl<R: Rng> LineSource for CoinFlipSort<R> {
    fn line(&mut self, deck: &mut [usize]) {
        for i in 1..deck.len() {
            let mut j = i;
            while j > 0 && self.0.next_u32() & 1 == 0 {
                deck.swap(j - 1, j);
                j -= 1;
            }
        }
    }
}

/// One shuffle from each of the seeds `first, first + 1, …` ("one seed per game").
#[derive(Debug, Clone)]
pub struct ConsecutiveSeeds<S, F> {
    /// The shuffler.
    pub shuffler: S,
    /// The generator for a seed.
    pub make_rng: F,
    /// The next line's seed.
    pub next_seed: u64,
}

impl<S: Shuffler, R: Rng, F: FnMut(u64) -> R> LineSource for ConsecutiveSeeds<S, F> {
    fn line(&mut self, deck: &mut [usize]) {
        let mut rng = (self.make_rng)(self.next_seed);
        self.shuffler.shuffle(deck, &mut rng);
        self.next_seed = self.next_seed.wrapping_add(1);
    }
}

/// A fair dealer whose every `every`-th deal repeats an earlier one (seed reuse).
#[derive(Debug, Clone)]
pub struct RepeatedDeals<S, R> {
    /// The shuffler.
    pub shuffler: S,
    /// Its generator, which also picks the deal repeated.
    pub rng: R,
    /// One deal in this many repeats an earlier one (at least 2).
    pub every: usize,
    /// The deals so far.
    pub dealt: Vec<Vec<usize>>,
}

impl<S: Shuffler, R: Rng> LineSource for RepeatedDeals<S, R> {
    fn line(&mut self, deck: &mut [usize]) {
        if self.every >= 2 && self.dealt.len() % self.every == self.every - 1 {
            let earlier = Lemire.index_below(&mut self.rng, self.dealt.len());
            deck.copy_from_slice(&self.dealt[earlier]);
        } else {
            self.shuffler.shuffle(deck, &mut self.rng);
        }
        self.dealt.push(deck.to_vec());
    }
}

/// A dealer that seeds a good generator from a `bits`-bit value for every deal.
#[derive(Debug, Clone)]
pub struct SeedBits<S, R, F> {
    /// The shuffler.
    pub shuffler: S,
    /// Draws each deal's seed.
    pub rng: R,
    /// The seed's width (1 to 32).
    pub bits: u32,
    /// The generator for a seed.
    pub make_rng: F,
}

impl<S: Shuffler, R: Rng, G: Rng, F: FnMut(u64) -> G> LineSource for SeedBits<S, R, F> {
    fn line(&mut self, deck: &mut [usize]) {
        let seed = Lemire.index_below(&mut self.rng, 1usize << self.bits.clamp(1, 32)) as u64;
        let mut rng = (self.make_rng)(seed);
        self.shuffler.shuffle(deck, &mut rng);
    }
}

/// With probability `weight` a line from `bad`, else one from `good`; `coin` (ChaCha12, the
/// crate's own simulation generator) decides.
pub struct Mixture {
    /// The bad source.
    pub bad: Box<dyn LineSource>,
    /// The fair source.
    pub good: Box<dyn LineSource>,
    /// Decides which source gives each line.
    pub coin: ChaCha12Rng,
    /// The probability of a bad line, in `[0, 1]`.
    pub weight: f64,
}

impl LineSource for Mixture {
    fn line(&mut self, deck: &mut [usize]) {
        // A 53-bit uniform in [0, 1): below `weight` with probability `weight`.
        let u = (self.coin.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        if u < self.weight {
            self.bad.line(deck);
        } else {
            self.good.line(deck);
        }
    }
}

/// Runs `lines` lines of `n` items from `source` through `tallies` and judges them at `alpha`
/// with the default tolerances.
fn judge_lines(
    mut tallies: Vec<NamedTally>,
    n: usize,
    lines: u64,
    source: &mut dyn LineSource,
    alpha: f64,
    config: &JudgeConfig,
) -> Result<BatteryReport, FairnessError> {
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
    judge_tallies(&tallies, alpha, config, &Equivalence::default())
}

/// Runs `lines` lines of `n` items from `source` through the tests `fairdeal audit` runs
/// ([`line_tallies`]) and judges them at level `alpha` with the default tolerances.
///
/// # Errors
///
/// A [`FairnessError`] for a size the tests do not take.
pub fn audit_lines(
    n: usize,
    lines: u64,
    source: &mut dyn LineSource,
    alpha: f64,
    config: &JudgeConfig,
) -> Result<BatteryReport, FairnessError> {
    judge_lines(line_tallies(n)?, n, lines, source, alpha, config)
}

/// `P(X >= k)` for `X ~ Binomial(n, p)`, by summing the pmf (for the small `n` of a replicate
/// count).
///
/// ```
/// assert!((fairdeal_fairness::calibration::binomial_upper(3, 0.5, 2) - 0.5).abs() < 1e-12);
/// ```
pub fn binomial_upper(n: u64, p: f64, k: u64) -> f64 {
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

/// The smallest `k` with `P(X > k) <= 0.001` for `X ~ Binomial(n, p)`: more rejections than
/// this in `n` fair runs of a level-`p` test are a calibration failure, not bad luck.
///
/// ```
/// // Bin(200, 0.01): mean 2; P(X > 8) is about 2.4e-4, P(X > 7) about 1.1e-3.
/// assert_eq!(fairdeal_fairness::calibration::binomial_bound(200, 0.01), 8);
/// ```
pub fn binomial_bound(n: u64, p: f64) -> u64 {
    (0..=n)
        .find(|&k| binomial_upper(n, p, k + 1) <= 1e-3)
        .unwrap_or(n)
}

/// The fair shapes of the false-alarm table: items × lines, the sparse and tiny ones included.
pub const FALSE_ALARM_SHAPES: &[(usize, u64)] = &[
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

/// The sizes of [`false_alarms`].
#[derive(Debug, Clone, PartialEq)]
pub struct FalseAlarmConfig {
    /// Fair data sets per shape (fewer for the largest shapes, see `work_per_shape`).
    pub runs: u64,
    /// The significance level each test is compared with.
    pub alpha: f64,
    /// Monte Carlo replicates of the sparse tests.
    pub replicates: u64,
    /// Placements (items × lines × runs) one shape may cost: the big shapes get fewer runs.
    pub work_per_shape: u64,
    /// The fewest runs of any shape.
    pub min_runs: u64,
}

impl Default for FalseAlarmConfig {
    fn default() -> Self {
        Self {
            runs: 200,
            alpha: 0.01,
            replicates: 199,
            work_per_shape: 40_000_000,
            min_runs: 10,
        }
    }
}

/// One test's row of the false-alarm table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FalseAlarmRow {
    /// Items per line.
    pub n: usize,
    /// Lines per data set.
    pub lines: u64,
    /// Fair data sets.
    pub runs: u64,
    /// The test's name, or `"battery (Holm)"` for the audit's verdict.
    pub test: String,
    /// Data sets the test rejected at `alpha` (the battery: called UNFAIR).
    pub rejections: u64,
    /// `rejections / runs`.
    pub rate: f64,
    /// The level.
    pub alpha: f64,
    /// The most rejections a test at level alpha gives with probability 0.999.
    pub bound: u64,
    /// `rejections <= bound`.
    pub within: bool,
}

fn check_alpha(alpha: f64) -> Result<(), CalibrationError> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(CalibrationError::Invalid("alpha must be in (0, 1)"))
    }
}

/// The false-alarm table: for each of `shapes`, fair data sets from `make_fair(seed)` (seed
/// `stream_seed(shape index, run)`) through the audit's tests; `progress` is called once per
/// data set.
///
/// # Errors
///
/// [`CalibrationError::Invalid`] for an alpha outside `(0, 1)` or no runs; a test's error.
pub fn false_alarms(
    config: &FalseAlarmConfig,
    shapes: &[(usize, u64)],
    make_fair: MakeSource<'_>,
    progress: &mut dyn FnMut(),
) -> Result<Vec<FalseAlarmRow>, CalibrationError> {
    check_alpha(config.alpha)?;
    if config.runs == 0 {
        return Err(CalibrationError::Invalid("at least one run per shape"));
    }
    let mut rows = Vec::new();
    for (shape, &(n, lines)) in shapes.iter().enumerate() {
        let runs = false_alarm_runs(config, n, lines);
        let mut names: Vec<TestName> = Vec::new();
        let mut rejections: Vec<u64> = Vec::new();
        let mut battery_unfair = 0;
        for run in 0..runs {
            let seed = stream_seed(shape as u64, run);
            let judge = JudgeConfig {
                replicates: config.replicates,
                seed,
            };
            let battery = audit_lines(n, lines, make_fair(seed).as_mut(), config.alpha, &judge)?;
            for test in &battery.tests {
                let index = match names.iter().position(|&name| name == test.name) {
                    Some(index) => index,
                    None => {
                        names.push(test.name);
                        rejections.push(0);
                        names.len() - 1
                    }
                };
                if test.p_value <= config.alpha {
                    rejections[index] += 1;
                }
            }
            if battery.verdict == Verdict::Unfair {
                battery_unfair += 1;
            }
            progress();
        }
        let bound = binomial_bound(runs, config.alpha);
        let mut push = |test: String, count: u64| {
            rows.push(FalseAlarmRow {
                n,
                lines,
                runs,
                test,
                rejections: count,
                rate: count as f64 / runs as f64,
                alpha: config.alpha,
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

/// The fair data sets [`false_alarms`] runs for a shape: `runs`, fewer when the shape is big.
pub fn false_alarm_runs(config: &FalseAlarmConfig, n: usize, lines: u64) -> u64 {
    config
        .runs
        .min((config.work_per_shape / (n as u64 * lines).max(1)).max(config.min_runs.max(1)))
}

/// A known-bad source at the shape where a user would meet it.
pub struct BadSource<'a> {
    /// Its name in the table.
    pub name: &'static str,
    /// Items per line.
    pub n: usize,
    /// Lines per data set.
    pub lines: u64,
    /// The source for a seed.
    pub make: MakeSource<'a>,
}

/// One bad source's row: how often the audit calls it UNFAIR.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BadRow {
    /// The source.
    pub source: &'static str,
    /// Items per line.
    pub n: usize,
    /// Lines per data set.
    pub lines: u64,
    /// Data sets.
    pub runs: u64,
    /// Data sets called UNFAIR.
    pub unfair: u64,
    /// `unfair / runs`.
    pub power: f64,
    /// The tests that decided the UNFAIR verdicts.
    pub decided_by: Vec<String>,
}

/// How often the audit (at level `alpha`) calls each bad source UNFAIR over `runs` data sets,
/// seeded `stream_seed(1_000 + source index, run)`; `progress` is called once per data set.
///
/// # Errors
///
/// [`CalibrationError::Invalid`] for an alpha outside `(0, 1)` or no runs; a test's error.
pub fn bad_source_power(
    sources: &[BadSource<'_>],
    runs: u64,
    alpha: f64,
    replicates: u64,
    progress: &mut dyn FnMut(),
) -> Result<Vec<BadRow>, CalibrationError> {
    check_alpha(alpha)?;
    if runs == 0 {
        return Err(CalibrationError::Invalid("at least one run per bad source"));
    }
    let mut rows = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let mut unfair = 0;
        let mut decided_by = Vec::new();
        for run in 0..runs {
            let seed = stream_seed(1_000 + index as u64, run);
            let judge = JudgeConfig { replicates, seed };
            let battery = audit_lines(
                source.n,
                source.lines,
                (source.make)(seed).as_mut(),
                alpha,
                &judge,
            )?;
            if battery.verdict == Verdict::Unfair {
                unfair += 1;
                if let Some(name) = battery.decided_by {
                    let name = name.name().to_owned();
                    if !decided_by.contains(&name) {
                        decided_by.push(name);
                    }
                }
            }
            progress();
        }
        rows.push(BadRow {
            source: source.name,
            n: source.n,
            lines: source.lines,
            runs,
            unfair,
            power: unfair as f64 / runs as f64,
            decided_by,
        });
    }
    Ok(rows)
}

/// A shape of the power table: a deck size, a line count and the tests judged together (Holm
/// over these, as the command that runs them does).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerShape {
    /// What runs these tests on this shape, e.g. `"audit, 5 items"`.
    pub name: &'static str,
    /// Items per line.
    pub n: usize,
    /// Lines per data set.
    pub lines: u64,
    /// The tests, a subset of [`line_tallies`]`(n)`; empty for all of them.
    pub tests: Vec<TestName>,
}

/// The largest relative cell deviation `D = max |q/p - 1|` a bad source causes in a test's
/// table of `n` items, when known (`None`: the table reports the mixture weight only).
pub type Deviation = fn(TestName, usize) -> Option<f64>;

/// A bad source whose bias is dialled by a [`Mixture`] weight.
pub struct DialSource<'a> {
    /// Its name in the table.
    pub name: &'static str,
    /// The bad source (weight 1) for a seed.
    pub bad: MakeSource<'a>,
    /// The fair source for a seed.
    pub fair: MakeSource<'a>,
    /// Its largest relative cell deviation at weight 1, per test.
    pub deviation: Deviation,
}

/// The sizes of [`power_table`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerConfig {
    /// Replicates (data sets) per mixture weight.
    pub replicates: u64,
    /// The level each test's Holm-adjusted p-value is compared with (the CLI's
    /// [`PASS_THRESHOLD`](crate::PASS_THRESHOLD)).
    pub alpha: f64,
    /// The power a bias must be detected with (0.99).
    pub target: f64,
    /// The largest weight tried (1: the bad source alone); each next weight is this one over
    /// `step`.
    pub max_weight: f64,
    /// The ratio of consecutive weights (`sqrt(2)`).
    pub step: f64,
    /// The smallest weight tried.
    pub min_weight: f64,
    /// Monte Carlo replicates of the sparse tests.
    pub judge_replicates: u64,
}

impl Default for PowerConfig {
    fn default() -> Self {
        Self {
            replicates: 100,
            alpha: crate::PASS_THRESHOLD,
            target: 0.99,
            max_weight: 1.0,
            step: std::f64::consts::SQRT_2,
            min_weight: 1.0 / 4096.0,
            judge_replicates: 199,
        }
    }
}

/// One test's row of the power table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PowerRow {
    /// The shape's name.
    pub shape: &'static str,
    /// Items per line.
    pub n: usize,
    /// Lines per data set.
    pub lines: u64,
    /// The bad source.
    pub source: &'static str,
    /// The test.
    pub test: &'static str,
    /// The smallest mixture weight on the grid at which this test, and at every larger weight,
    /// rejected in at least `target` of the replicates; `None` when even the largest did not.
    pub weight: Option<f64>,
    /// That weight (or, when not detected, the largest weight tried) as the largest relative
    /// cell deviation it causes ([`mixture_deviation`]), when the source's `D` is known for
    /// this test.
    pub bias: Option<f64>,
    /// Replicates at that weight (or at the largest weight when none detected).
    pub replicates: u64,
    /// Replicates in which the test rejected.
    pub detected: u64,
    /// `detected / replicates`.
    pub power: f64,
    /// The Clopper–Pearson 95 % interval of the power.
    pub power_interval: (f64, f64),
    /// The test's default tolerance (relative cell deviation a FAIR verdict rules out).
    pub tolerance: Option<f64>,
    /// About how many lines a fair source needs to certify that tolerance.
    pub lines_to_certify: Option<u64>,
}

/// One test's rejections at one weight, with its tolerance and the lines to certify it.
struct TestCount {
    name: TestName,
    detected: u64,
    tolerance: Option<f64>,
    lines_to_certify: Option<u64>,
}

/// Per test of one shape and source, the rejection counts at one weight.
fn power_at(
    shape: &PowerShape,
    source: &DialSource<'_>,
    weight: f64,
    config: &PowerConfig,
    seed: u64,
    progress: &mut dyn FnMut(),
) -> Result<Vec<TestCount>, CalibrationError> {
    let mut counts: Vec<TestCount> = Vec::new();
    for replicate in 0..config.replicates {
        let seed = stream_seed(seed, replicate);
        let mut mixture = Mixture {
            bad: (source.bad)(stream_seed(seed, 1)),
            good: (source.fair)(stream_seed(seed, 2)),
            coin: ChaCha12Rng::seed_from_u64(stream_seed(seed, 3)),
            weight,
        };
        let tallies: Vec<NamedTally> = line_tallies(shape.n)?
            .into_iter()
            .filter(|(name, _)| shape.tests.is_empty() || shape.tests.contains(name))
            .collect();
        let judge = JudgeConfig {
            replicates: config.judge_replicates,
            seed,
        };
        let battery = judge_lines(
            tallies,
            shape.n,
            shape.lines,
            &mut mixture,
            config.alpha,
            &judge,
        )?;
        for test in &battery.tests {
            let index = match counts.iter().position(|c| c.name == test.name) {
                Some(index) => index,
                None => {
                    let certified = test.certified;
                    let needed = certified
                        .tolerance
                        .and_then(|t| test.report.samples_to_certify(t, certified.confidence));
                    counts.push(TestCount {
                        name: test.name,
                        detected: 0,
                        tolerance: certified.tolerance,
                        lines_to_certify: needed,
                    });
                    counts.len() - 1
                }
            };
            if test.adjusted_p <= config.alpha {
                counts[index].detected += 1;
            }
        }
        progress();
    }
    Ok(counts)
}

/// The power table: for each shape and dial-able source, the smallest bias each test detects
/// with `config.target` power, searched down the weight grid `max_weight, max_weight / step, …`
/// until no test reaches the target (power grows with the weight) or `min_weight`. Replicate
/// `r` at every weight uses the seeds `stream_seed(stream_seed(base, r), 1..=3)` with `base`
/// fixed per shape and source. `progress` is called once per data set.
///
/// # Errors
///
/// [`CalibrationError::Invalid`] for sizes outside their ranges; a test's error.
pub fn power_table(
    shapes: &[PowerShape],
    sources: &[DialSource<'_>],
    config: &PowerConfig,
    progress: &mut dyn FnMut(),
) -> Result<Vec<PowerRow>, CalibrationError> {
    check_alpha(config.alpha)?;
    let valid = config.replicates > 0
        && config.target > 0.0
        && config.target <= 1.0
        && config.step > 1.0
        && config.max_weight > 0.0
        && config.max_weight <= 1.0
        && config.min_weight > 0.0;
    if !valid {
        return Err(CalibrationError::Invalid(
            "power: replicates >= 1, target in (0, 1], step > 1, 0 < min weight, max weight <= 1",
        ));
    }
    let needed = (config.target * config.replicates as f64).ceil() as u64;
    let mut rows = Vec::new();
    for (shape_index, shape) in shapes.iter().enumerate() {
        for (source_index, source) in sources.iter().enumerate() {
            let base = stream_seed(2_000 + shape_index as u64, source_index as u64);
            // Per test: the last weight at which it reached the target, with its counts.
            // (the test at the largest weight, the last weight and count reaching the target)
            let mut found: Vec<(TestCount, Option<(f64, u64)>)> = Vec::new();
            let mut still: Vec<TestName> = Vec::new();
            let mut first = true;
            for k in 0.. {
                let weight = config.max_weight / config.step.powi(k);
                if weight < config.min_weight * (1.0 - 1e-9) {
                    break;
                }
                let counts = power_at(shape, source, weight, config, base, progress)?;
                let mut any = false;
                for count in counts {
                    let (name, detected) = (count.name, count.detected);
                    if first {
                        found.push((count, None));
                        if detected >= needed {
                            still.push(name);
                        }
                    }
                    if still.contains(&name) {
                        if detected >= needed {
                            any = true;
                            if let Some(entry) = found.iter_mut().find(|f| f.0.name == name) {
                                entry.1 = Some((weight, detected));
                            }
                        } else {
                            still.retain(|&s| s != name);
                        }
                    }
                }
                first = false;
                if !any {
                    break;
                }
            }
            for (count, at) in found {
                let TestCount {
                    name,
                    tolerance,
                    lines_to_certify,
                    ..
                } = count;
                let (weight, detected) = match at {
                    Some((weight, detected)) => (Some(weight), detected),
                    None => (None, count.detected),
                };
                rows.push(PowerRow {
                    shape: shape.name,
                    n: shape.n,
                    lines: shape.lines,
                    source: source.name,
                    test: name.name(),
                    weight,
                    bias: (source.deviation)(name, shape.n)
                        .map(|d| mixture_deviation(name, weight.unwrap_or(config.max_weight), d)),
                    replicates: config.replicates,
                    detected,
                    power: detected as f64 / config.replicates as f64,
                    power_interval: clopper_pearson(detected, config.replicates, 0.05),
                    tolerance,
                    lines_to_certify,
                });
            }
        }
    }
    Ok(rows)
}

/// The largest relative cell deviation of an order table with one distinguished order: a
/// source that always gives that one order (an unshuffled deck), for the permutation (`n!`
/// orders), position and adjacency tables (`D = n! - 1`, `n - 1`, `n - 1`). `None` for the
/// other tests, and for `n!` beyond `u64`. The serial test sees the identity as the relative
/// order of two unshuffled lines: `D = n! - 1` up to 8 items, `n - 1` above.
///
/// ```
/// use fairdeal_fairness::{TestName, calibration::unshuffled_deviation};
/// assert_eq!(unshuffled_deviation(TestName::Permutation, 3), Some(5.0));
/// assert_eq!(unshuffled_deviation(TestName::Position, 52), Some(51.0));
/// ```
pub fn unshuffled_deviation(test: TestName, n: usize) -> Option<f64> {
    match test {
        TestName::Permutation => crate::factorial(n).map(|f| f as f64 - 1.0),
        // The unshuffled deck puts item e at position e every time (fair: 1 in n), and item
        // e + 1 right after item e on every line (fair: (n - 1) adjacent pairs over n (n - 1)
        // cells, 1/n per line).
        TestName::Position | TestName::Adjacency => Some(n as f64 - 1.0),
        // Two unshuffled lines in a row: the relative order is the identity every time.
        TestName::Serial if n <= crate::MAX_PERMUTATION_N => {
            crate::factorial(n).map(|f| f as f64 - 1.0)
        }
        TestName::Serial => Some(n as f64 - 1.0),
        _ => None,
    }
}

/// The wrong-range swap's exact order probabilities for `n` items (`swap(i, j)` with `j`
/// uniform in `[0, n)` for every `i`), by enumerating its `n^n` equally likely paths, indexed
/// by lexicographic rank. `None` for `n` outside `1..=8`.
///
/// ```
/// let p = fairdeal_fairness::calibration::wrong_range_orders(3).unwrap();
/// // 27 paths onto 6 orders: [0,2,1], [1,0,2] and [1,2,0] get 5 each, the others 4.
/// assert_eq!(p.iter().map(|q| (q * 27.0).round() as u32).collect::<Vec<_>>(), [4, 5, 5, 5, 4, 4]);
/// ```
pub fn wrong_range_orders(n: usize) -> Option<Vec<f64>> {
    if !(1..=8).contains(&n) {
        return None;
    }
    let orders = crate::factorial(n)? as usize;
    let paths = (n as u64).checked_pow(n as u32)?;
    let mut counts = vec![0u64; orders];
    let mut deck = vec![0usize; n];
    for path in 0..paths {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        let mut rest = path;
        for i in 0..n {
            let j = (rest % n as u64) as usize;
            rest /= n as u64;
            deck.swap(i, j);
        }
        let rank = crate::rank_permutation(&deck).ok()? as usize;
        counts[rank] += 1;
    }
    Some(counts.iter().map(|&c| c as f64 / paths as f64).collect())
}

/// The wrong-range swap's exact element × position probabilities for `n` items (row `e`,
/// column `p`: the probability that item `e` ends at position `p`), by following each item's
/// position through the `n` swaps. `None` for `n = 0`.
///
/// ```
/// let m = fairdeal_fairness::calibration::wrong_range_positions(3).unwrap();
/// // Item 0 ends anywhere on 9 of the 27 paths each; item 1 at position 0 on 10, at 1 on 8.
/// assert!((m[0] * 27.0 - 9.0).abs() < 1e-9 && (m[3] * 27.0 - 10.0).abs() < 1e-9);
/// assert!((m[4] * 27.0 - 8.0).abs() < 1e-9);
/// ```
pub fn wrong_range_positions(n: usize) -> Option<Vec<f64>> {
    if n == 0 {
        return None;
    }
    let share = 1.0 / n as f64;
    let mut matrix = vec![0.0; n * n];
    for item in 0..n {
        let mut at = vec![0.0; n];
        at[item] = 1.0;
        for i in 0..n {
            // Swap(i, j), j uniform: the item at i goes anywhere; an item at j != i comes to i
            // with probability 1/n.
            let from_i = at[i];
            let mut next = vec![0.0; n];
            for (position, &p) in at.iter().enumerate() {
                if position != i {
                    next[position] += p * (1.0 - share);
                    next[i] += p * share;
                }
            }
            for slot in next.iter_mut() {
                *slot += from_i * share;
            }
            at = next;
        }
        matrix[item * n..(item + 1) * n].copy_from_slice(&at);
    }
    Some(matrix)
}

/// The largest `|q/p - 1|` over a table of probabilities `q` whose fair value is `p` each.
pub fn max_relative_deviation(table: &[f64], p: f64) -> f64 {
    table
        .iter()
        .map(|&q| (q / p - 1.0).abs())
        .fold(0.0, f64::max)
}

/// The wrong-range swap's exact neighbour probabilities for `n` items (row `a`, column `b`:
/// the probability that `b` comes right after `a`, cyclically, as the adjacency test counts;
/// the diagonal is 0). Computed backwards over the `n` swaps on the `n²` pairs of positions
/// (`O(n⁴)`: a fraction of a second at 52): `f(x, y)` is the probability that items now at
/// positions `x` and `y` end adjacent, and a swap `(i, j)` with `j` uniform averages it over
/// the `n` transpositions. `None` outside `2..=256`.
///
/// ```
/// let m = fairdeal_fairness::calibration::wrong_range_neighbours(3).unwrap();
/// // 3 items: 27 paths onto the two cycles; 0 → 1 → 2 on 13 of them, 0 → 2 → 1 on 14.
/// assert!((m[1] * 27.0 - 13.0).abs() < 1e-9 && (m[2] * 27.0 - 14.0).abs() < 1e-9);
/// ```
pub fn wrong_range_neighbours(n: usize) -> Option<Vec<f64>> {
    if !(2..=256).contains(&n) {
        return None;
    }
    let mut f: Vec<f64> = (0..n * n)
        .map(|c| f64::from(u8::from((c / n + 1) % n == c % n)))
        .collect();
    let share = 1.0 / n as f64;
    let mut next = vec![0.0; n * n];
    for i in (0..n).rev() {
        for x in 0..n {
            for y in 0..n {
                if x == y {
                    next[x * n + y] = 0.0;
                    continue;
                }
                let transposed = |z: usize, j: usize| match z {
                    z if z == i => j,
                    z if z == j => i,
                    z => z,
                };
                let sum: f64 = (0..n)
                    .map(|j| f[transposed(x, j) * n + transposed(y, j)])
                    .sum();
                next[x * n + y] = sum * share;
            }
        }
        core::mem::swap(&mut f, &mut next);
    }
    Some(f)
}

/// The serial test's cell probabilities for a source drawing each line independently with the
/// order probabilities `orders` (indexed by lexicographic rank): the distribution of the
/// relative order of one line to the previous one ([`SerialTally`](crate::SerialTally)), by
/// summing over all pairs of orders. `None` unless `orders` has `n!` entries with
/// `2 <= n <= 6` (beyond, `n!²` pairs cost too much).
pub fn serial_orders(n: usize, orders: &[f64]) -> Option<Vec<f64>> {
    let count = crate::factorial(n)? as usize;
    if !(2..=6).contains(&n) || orders.len() != count {
        return None;
    }
    let perms: Vec<Vec<usize>> = (0..count as u64)
        .map(|r| crate::unrank_permutation(n, r).ok())
        .collect::<Option<_>>()?;
    let mut relative = vec![0.0; count];
    let (mut position, mut line) = (vec![0usize; n], vec![0usize; n]);
    for (previous, &q_previous) in perms.iter().zip(orders) {
        for (at, &element) in previous.iter().enumerate() {
            position[element] = at;
        }
        for (perm, &q) in perms.iter().zip(orders) {
            for (slot, &element) in line.iter_mut().zip(perm) {
                *slot = position[element];
            }
            relative[crate::rank_permutation(&line).ok()? as usize] += q_previous * q;
        }
    }
    Some(relative)
}

/// The serial test's element × position probabilities above 8 items (where it counts
/// positions) for a source drawing each line independently with element × position
/// probabilities `matrix` (row `e`, column `p`): the relative order's value `k` at position
/// `i` has probability `sum_e m[e][i] · m[e][k]`.
pub fn serial_positions(n: usize, matrix: &[f64]) -> Option<Vec<f64>> {
    if n == 0 || matrix.len() != n * n {
        return None;
    }
    let mut cells = vec![0.0; n * n];
    for k in 0..n {
        for i in 0..n {
            cells[k * n + i] = (0..n).map(|e| matrix[e * n + i] * matrix[e * n + k]).sum();
        }
    }
    Some(cells)
}

/// The wrong-range swap's `D` for the permutation (exact for `n <= 8`), position and
/// adjacency tables (exact for `n <= 256`) and the serial test (exact for `n <= 6` and for
/// `n > 8`, where it counts positions); `None` for the others.
///
/// ```
/// use fairdeal_fairness::{TestName, calibration::wrong_range_deviation};
/// // 5 items: the most likely order is 1.80× uniform, the least 0.61×.
/// let d = wrong_range_deviation(TestName::Permutation, 5).unwrap();
/// assert!((d - 0.80).abs() < 0.01, "{d}");
/// // Consecutive lines of the swap are independent: their relative order is nearly uniform.
/// let serial = wrong_range_deviation(TestName::Serial, 5).unwrap();
/// assert!(serial > 0.0 && serial < 0.2, "{serial}");
/// ```
pub fn wrong_range_deviation(test: TestName, n: usize) -> Option<f64> {
    match test {
        TestName::Permutation => {
            let orders = wrong_range_orders(n)?;
            Some(max_relative_deviation(&orders, 1.0 / orders.len() as f64))
        }
        TestName::Position => Some(max_relative_deviation(
            &wrong_range_positions(n)?,
            1.0 / n as f64,
        )),
        TestName::Adjacency => {
            let neighbours = wrong_range_neighbours(n)?;
            let off_diagonal: Vec<f64> = (0..n * n)
                .filter(|c| c / n != c % n)
                .map(|c| neighbours[c])
                .collect();
            Some(max_relative_deviation(&off_diagonal, 1.0 / (n - 1) as f64))
        }
        TestName::Serial if n <= crate::MAX_PERMUTATION_N => {
            let serial = serial_orders(n, &wrong_range_orders(n)?)?;
            Some(max_relative_deviation(&serial, 1.0 / serial.len() as f64))
        }
        TestName::Serial => Some(max_relative_deviation(
            &serial_positions(n, &wrong_range_positions(n)?)?,
            1.0 / n as f64,
        )),
        _ => None,
    }
}

/// The largest relative cell deviation a mixture of weight `weight` causes in `test`'s table,
/// from the bad source's `D` at weight 1: `weight · D` for the tests of one line, and
/// `weight² · D` for the serial test, which compares consecutive lines (their relative order
/// is uniform unless both came from the bad source, when the bad source's lines are
/// independent of each other).
pub fn mixture_deviation(test: TestName, weight: f64, deviation: f64) -> f64 {
    if test == TestName::Serial {
        weight * weight * deviation
    } else {
        weight * deviation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_inplace::Inplace;
    use fairdeal_naive::Biased;

    fn fair(seed: u64) -> Box<dyn LineSource> {
        Box::new(Shuffled {
            shuffler: Inplace::new(),
            rng: ChaCha12Rng::seed_from_u64(seed),
        })
    }

    fn wrong(seed: u64) -> Box<dyn LineSource> {
        Box::new(Shuffled {
            shuffler: Biased::new(),
            rng: ChaCha12Rng::seed_from_u64(seed),
        })
    }

    fn three_orders(lines: u64) -> PowerShape {
        PowerShape {
            name: "fairness, 3 items",
            n: 3,
            lines,
            tests: vec![TestName::Permutation],
        }
    }

    #[test]
    fn the_binomial_bound_is_a_tail_quantile() {
        assert_eq!(binomial_bound(200, 0.01), 8);
        assert!((binomial_upper(3, 0.5, 2) - 0.5).abs() < 1e-12);
        assert!(binomial_upper(200, 0.01, 9) <= 1e-3);
        assert!(binomial_upper(200, 0.01, 8) > 1e-3);
    }

    /// No bias: the permutation test rejects at about its level. 400 replicates at alpha 0.05
    /// expect 20 rejections; the seeds are fixed, and the band (6..=40) holds the binomial's
    /// 0.999 interval with room to spare.
    #[test]
    fn an_unbiased_source_has_power_near_alpha() {
        let sources = [DialSource {
            name: "fair",
            bad: &fair,
            fair: &fair,
            deviation: |_, _| Some(0.0),
        }];
        let config = PowerConfig {
            replicates: 400,
            alpha: 0.05,
            max_weight: 1.0,
            min_weight: 1.0,
            ..PowerConfig::default()
        };
        let rows = power_table(&[three_orders(300)], &sources, &config, &mut || ()).unwrap();
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert!((6..=40).contains(&row.detected), "{row:?}");
        assert_eq!(row.weight, None, "{row:?}");
        let (low, high) = row.power_interval;
        assert!(low < 0.05 && 0.05 < high, "{row:?}");
    }

    /// The wrong-range swap alone at 20,000 lines of 3 items (orders 4/27 and 5/27 against 1/6)
    /// is rejected in every replicate at the CLI's level; its smallest detected weight is below
    /// 1, and the bias is stated through the exact D = 1/9 (5/27 and 4/27 against 4.5/27).
    #[test]
    fn the_wrong_range_swap_with_enough_lines_has_power_one() {
        let sources = [DialSource {
            name: "wrong-range swap",
            bad: &wrong,
            fair: &fair,
            deviation: wrong_range_deviation,
        }];
        let config = PowerConfig {
            replicates: 20,
            ..PowerConfig::default()
        };
        let rows = power_table(&[three_orders(20_000)], &sources, &config, &mut || ()).unwrap();
        let row = &rows[0];
        let weight = row.weight.expect("detected");
        assert!(weight < 1.0, "{row:?}");
        assert_eq!(row.detected, 20, "{row:?}");
        let bias = row.bias.unwrap();
        assert!((bias / weight - 1.0 / 9.0).abs() < 1e-9, "{row:?}");
        // The same call gives the same table.
        let again = power_table(&[three_orders(20_000)], &sources, &config, &mut || ()).unwrap();
        assert_eq!(rows, again);
        // Certifying the 30 % default tolerance on 6 orders takes a few hundred lines.
        let lines = row.lines_to_certify.unwrap();
        assert!(lines > 100 && lines < 5_000, "{row:?}");
    }

    #[test]
    fn the_exact_tables_match_a_simulation() {
        let exact = wrong_range_positions(5).unwrap();
        let mut counts = [0u64; 25];
        let mut source = wrong(7);
        let lines: u64 = 200_000;
        for _ in 0..lines {
            let mut deck = [0, 1, 2, 3, 4];
            source.line(&mut deck);
            for (position, &item) in deck.iter().enumerate() {
                counts[item * 5 + position] += 1;
            }
        }
        for (cell, &count) in counts.iter().enumerate() {
            let expected = exact[cell] * lines as f64;
            // 6 standard deviations (sd <= 200 here): a real mismatch is thousands off.
            assert!(
                (count as f64 - expected).abs() < 1_200.0,
                "{cell} {count} {expected}"
            );
        }
        // Each row and column of a position matrix sums to 1.
        for e in 0..5 {
            let row: f64 = exact[e * 5..e * 5 + 5].iter().sum();
            assert!((row - 1.0).abs() < 1e-12);
        }
        let orders = wrong_range_orders(5).unwrap();
        assert!((orders.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bad_arguments_are_errors_not_panics() {
        let config = PowerConfig {
            replicates: 0,
            ..PowerConfig::default()
        };
        assert!(matches!(
            power_table(&[three_orders(10)], &[], &config, &mut || ()),
            Err(CalibrationError::Invalid(_))
        ));
        let config = FalseAlarmConfig {
            alpha: 1.5,
            ..FalseAlarmConfig::default()
        };
        assert!(false_alarms(&config, &[(3, 10)], &fair, &mut || ()).is_err());
        assert!(wrong_range_orders(9).is_none());
    }

    /// A fair source at a small shape stays within the binomial bound; an unshuffled deck is
    /// called UNFAIR every time.
    #[test]
    fn false_alarms_and_bad_sources_are_counted() {
        let config = FalseAlarmConfig {
            runs: 50,
            replicates: 49,
            ..FalseAlarmConfig::default()
        };
        let rows = false_alarms(&config, &[(3, 300)], &fair, &mut || ()).unwrap();
        assert!(
            rows.iter().all(|row| row.within && row.runs == 50),
            "{rows:?}"
        );
        assert_eq!(rows.last().unwrap().test, "battery (Holm)");
        let unshuffled = |_seed: u64| Box::new(Unshuffled) as Box<dyn LineSource>;
        let bad = [BadSource {
            name: "unshuffled",
            n: 5,
            lines: 200,
            make: &unshuffled,
        }];
        let rows = bad_source_power(&bad, 3, crate::PASS_THRESHOLD, 49, &mut || ()).unwrap();
        assert_eq!(rows[0].unfair, 3, "{rows:?}");
    }

    /// The orders' probabilities folded onto a table: `cell(order)` gives each order's cells.
    fn fold(n: usize, orders: &[f64], cells: impl Fn(&[usize]) -> Vec<usize>) -> Vec<f64> {
        let mut table = vec![0.0; n * n];
        for (rank, &q) in orders.iter().enumerate() {
            let perm = crate::unrank_permutation(n, rank as u64).unwrap();
            for cell in cells(&perm) {
                table[cell] += q;
            }
        }
        table
    }

    #[test]
    fn the_backward_neighbour_recursion_matches_the_enumerated_orders() {
        for n in 3..=6 {
            let orders = wrong_range_orders(n).unwrap();
            let enumerated = fold(n, &orders, |perm| {
                (0..n).map(|i| perm[i] * n + perm[(i + 1) % n]).collect()
            });
            let recursed = wrong_range_neighbours(n).unwrap();
            for (cell, (a, b)) in enumerated.iter().zip(&recursed).enumerate() {
                assert!((a - b).abs() < 1e-12, "n = {n}, cell {cell}: {a} vs {b}");
            }
            // Negative control: the swap's neighbours are not the fair 1/(n - 1).
            let d = wrong_range_deviation(TestName::Adjacency, n).unwrap();
            assert!(d > 0.01, "n = {n}: {d}");
        }
    }

    #[test]
    fn the_serial_tables_agree_and_see_an_unshuffled_deck() {
        for n in 3..=5 {
            let orders = wrong_range_orders(n).unwrap();
            let serial = serial_orders(n, &orders).unwrap();
            assert!((serial.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            // The relative orders' positions, folded from the orders, match the closed form.
            let folded = fold(n, &serial, |perm| (0..n).map(|i| perm[i] * n + i).collect());
            let direct = serial_positions(n, &wrong_range_positions(n).unwrap()).unwrap();
            for (a, b) in folded.iter().zip(&direct) {
                assert!((a - b).abs() < 1e-12, "n = {n}: {a} vs {b}");
            }
            // An unshuffled deck: every relative order is the identity (rank 0).
            let mut identity = vec![0.0; orders.len()];
            identity[0] = 1.0;
            let serial = serial_orders(n, &identity).unwrap();
            let d = max_relative_deviation(&serial, 1.0 / serial.len() as f64);
            assert_eq!(Some(d), unshuffled_deviation(TestName::Serial, n));
            // A fair source's relative orders are uniform.
            let fair = vec![1.0 / orders.len() as f64; orders.len()];
            let serial = serial_orders(n, &fair).unwrap();
            assert!(max_relative_deviation(&serial, 1.0 / serial.len() as f64) < 1e-9);
        }
        assert_eq!(mixture_deviation(TestName::Serial, 0.5, 1.0), 0.25);
        assert_eq!(mixture_deviation(TestName::Position, 0.5, 1.0), 0.5);
    }
}
