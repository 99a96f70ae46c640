//! Valid p-values on any input size: the chi-square approximation only where its rule holds,
//! the exact binomial for two-outcome tables, elsewhere a Monte Carlo p-value combined with the
//! cells' exact binomial tails (so that a sparse table can still reach a small level).

use fairdeal_chacha::ChaCha12Rng;
use fairdeal_core::{IndexSampler, Lemire, SeedableRng};
use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};

use crate::adjacency::adjacency_report;
use crate::equivalence::uniform_cells;
use crate::permutation::permutation_report;
use crate::position::position_report;
use crate::rank::factorial;
use crate::repeat::ln_outcomes;
use crate::stats::chi_square_lower_p_value;
use crate::{FairnessReport, MIN_EXPECTED_COUNT, TestKind};

/// The fewest degrees of freedom at which the chi-square *lower* tail ("too even to be
/// chance") is used. Below, a statistic with few cells takes few values — 2 items × 1,000
/// lines give exactly 0 about 2.5 % of the time, where the continuous lower tail says 0 — so
/// chi-square tests there are one-sided (upper tail only).
pub const TWO_SIDED_MIN_DF: u64 = 20;

/// The default number of Monte Carlo replicates: 999, so `(k + 1)/(R + 1)` is a multiple of
/// 1/1000.
pub const DEFAULT_REPLICATES: u64 = 999;

/// The most work one Monte Carlo p-value may do, in simulated placements (`replicates ×
/// trials × cost per permutation`); fewer replicates run when a table is large (never fewer
/// than [`MIN_REPLICATES`]), and the report states how many.
pub const MONTE_CARLO_BUDGET: u64 = 300_000_000;

/// The fewest Monte Carlo replicates a p-value uses.
pub const MIN_REPLICATES: u64 = 19;

/// How a p-value is computed; reports and JSON name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PValueMethod {
    /// The chi-square approximation: every cell expects at least [`MIN_EXPECTED_COUNT`].
    ChiSquare,
    /// Two outcomes (one degree of freedom): the exact binomial distribution.
    ExactBinomial,
    /// The statistic simulated under the fair null (uniform permutations from ChaCha12 with a
    /// fixed seed): `(k + 1)/(R + 1)` over `R` replicates, ties counted against fairness;
    /// combined with the cells' exact binomial tails ([`Judgement::cell_p`]) as
    /// `min(1, 2·min(simulated, cells))`, so that it is not floored at `2/(R + 1)`.
    MonteCarlo,
    /// The exact distribution of the number of repeated lines ([`crate::RepeatTally`]).
    ExactRepeats,
}

impl PValueMethod {
    /// The kebab-case name (`"monte-carlo"`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::ChiSquare => "chi-square",
            Self::ExactBinomial => "exact-binomial",
            Self::MonteCarlo => "monte-carlo",
            Self::ExactRepeats => "exact-repeats",
        }
    }
}

/// How p-values are computed where the chi-square rule fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgeConfig {
    /// Monte Carlo replicates (at most; see [`MONTE_CARLO_BUDGET`]).
    pub replicates: u64,
    /// Seed of the ChaCha12 stream that simulates the null: the same seed, the same p-value.
    pub seed: u64,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        Self {
            replicates: DEFAULT_REPLICATES,
            seed: 0,
        }
    }
}

/// A report's valid p-value and how it was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// How the p-value was computed.
    pub method: PValueMethod,
    /// Monte Carlo replicates used (`None` for the other methods).
    pub replicates: Option<u64>,
    /// `P(statistic >= observed)` under the fair null.
    pub upper_p: f64,
    /// `P(statistic <= observed)` under the fair null, when the test is two-sided.
    pub lower_p: Option<f64>,
    /// The p-value the verdict uses: `min(1, 2·min(upper, lower))` when two-sided, else the
    /// upper tail.
    pub p_value: f64,
    /// The smallest p-value this test can give at this size: when it is above the level a
    /// verdict needs, the test has no power and cannot reject anything.
    pub min_p_value: f64,
    /// About how many samples make the test trustworthy at full power (the chi-square rule's
    /// `5` per cell); `None` when it is already there.
    pub samples_needed: Option<u64>,
    /// For [`PValueMethod::MonteCarlo`]: the Bonferroni union of the cells' exact two-sided
    /// binomial tails ([`cell_tail_p_value`]), which the p-value is combined with; `None` for
    /// the other methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_p: Option<f64>,
}

impl Judgement {
    /// Whether the test is two-sided (flags counts too even to be chance as well).
    pub fn two_sided(&self) -> bool {
        self.lower_p.is_some()
    }
}

/// How many cells a report's table has for the chi-square rule, and the count of one of two
/// outcomes when the table has exactly two (binomial with `p = 1/2`).
fn cells(report: &FairnessReport) -> f64 {
    match report.test {
        TestKind::Permutation => factorial(report.n).map_or(f64::INFINITY, |f| f as f64),
        TestKind::Position | TestKind::Prefix => report.n as f64,
        TestKind::Adjacency => report.n.saturating_sub(1).max(1) as f64,
        TestKind::Repeat => 1.0,
    }
}

/// The count of one outcome when the test has two equally likely outcomes per sample.
fn binomial_count(report: &FairnessReport) -> Option<u64> {
    let two = match report.test {
        TestKind::Permutation | TestKind::Position | TestKind::Prefix => report.n == 2,
        // Three items read as a cycle: 0 → 1 → 2 or 0 → 2 → 1.
        TestKind::Adjacency => report.n == 3,
        TestKind::Repeat => false,
    };
    let index = if report.test == TestKind::Adjacency {
        1
    } else {
        0
    };
    two.then(|| report.counts.get(index).copied()).flatten()
}

impl FairnessReport {
    /// The valid p-value of this report, whatever its size (the rules are in
    /// `docs/quality.md`):
    ///
    /// * two outcomes per sample (2 items; the adjacency test of 3): the exact binomial,
    ///   two-sided (ties count in both tails, so it is valid for a discrete statistic);
    /// * every cell expecting at least [`MIN_EXPECTED_COUNT`]: the chi-square approximation,
    ///   two-sided from [`TWO_SIDED_MIN_DF`] degrees of freedom, upper tail only below;
    /// * otherwise a Monte Carlo p-value, two-sided, from `config.replicates` simulated fair
    ///   tables of the same size (ChaCha12 seeded with `config.seed`), combined with the cells'
    ///   exact binomial tails ([`cell_tail_p_value`]) as `min(1, 2·min(simulated, cells))`: a
    ///   Bonferroni union of two valid p-values, valid at every level, and able to go below the
    ///   simulation's floor `2/(R + 1)` when one cell is far from fair;
    /// * the repeat test: its exact p-value, one-sided (too many repeats).
    ///
    /// ```
    /// use fairdeal_fairness::{JudgeConfig, PValueMethod, PermutationTally};
    /// let mut tally = PermutationTally::new(2)?;
    /// tally.add(&[0, 1])?;
    /// tally.add(&[1, 0])?; // perfectly balanced: common for a fair source
    /// let judged = tally.report()?.judge(&JudgeConfig::default());
    /// assert_eq!(judged.method, PValueMethod::ExactBinomial);
    /// assert!((judged.p_value - 1.0).abs() < 1e-12); // the largest p-value there is
    /// assert!(judged.min_p_value > 0.1); // two lines cannot show anything
    /// # Ok::<(), fairdeal_fairness::FairnessError>(())
    /// ```
    pub fn judge(&self, config: &JudgeConfig) -> Judgement {
        if self.test == TestKind::Repeat {
            return Judgement {
                method: PValueMethod::ExactRepeats,
                replicates: None,
                upper_p: self.p_value,
                lower_p: None,
                p_value: self.p_value,
                min_p_value: repeat_min_p_value(self.n, self.df, self.trials),
                samples_needed: None,
                cell_p: None,
            };
        }
        if let Some(k) = binomial_count(self) {
            return exact_binomial(self.trials, k);
        }
        let cells = cells(self);
        if self.expected_count() >= MIN_EXPECTED_COUNT {
            let lower_p =
                (self.df >= TWO_SIDED_MIN_DF).then(|| chi_square_lower_p_value(self.chi2, self.df));
            let upper_p = self.p_value;
            return Judgement {
                method: PValueMethod::ChiSquare,
                replicates: None,
                upper_p,
                lower_p,
                p_value: two_sided(upper_p, lower_p),
                min_p_value: 0.0,
                samples_needed: None,
                cell_p: None,
            };
        }
        let mut judged = monte_carlo(self, config);
        judged.samples_needed = Some((MIN_EXPECTED_COUNT * cells).ceil() as u64);
        judged
    }
}

/// The smallest p-value the repeat test can give on `trials` lines, keys of `k` of `n` items
/// (`N = n!/(n - k)!` equally likely keys): every line the same key, `R = trials - 1` repeats,
/// with probability `N · N^-trials = N^-(trials - 1)`. 1 for at most one line, which cannot
/// repeat anything.
fn repeat_min_p_value(n: usize, k: u64, trials: u64) -> f64 {
    if trials <= 1 || k > n as u64 {
        return 1.0;
    }
    (-((trials - 1) as f64) * ln_outcomes(n, k as usize)).exp()
}

fn two_sided(upper: f64, lower: Option<f64>) -> f64 {
    let clean = |p: f64| if p.is_nan() { 0.0 } else { p };
    match lower {
        Some(lower) => (2.0 * clean(upper).min(clean(lower))).min(1.0),
        None => clean(upper),
    }
}

/// Two equally likely outcomes, `k` of one among `trials`: the distance from balance
/// `|2k - trials|` against its exact distribution.
fn exact_binomial(trials: u64, k: u64) -> Judgement {
    let (low, high) = (k.min(trials - k), k.max(trials - k));
    let Ok(dist) = Binomial::new(0.5, trials) else {
        return Judgement {
            method: PValueMethod::ExactBinomial,
            replicates: None,
            upper_p: f64::NAN,
            lower_p: None,
            p_value: 0.0,
            min_p_value: 0.0,
            samples_needed: None,
            cell_p: None,
        };
    };
    // P(|2K - T| >= |2k - T|) = P(K <= low) + P(K >= high); both tails when low < high.
    let upper_p = if low < high {
        (2.0 * dist.cdf(low)).min(1.0)
    } else {
        1.0
    };
    // P(|2K - T| <= |2k - T|) = P(low <= K <= high).
    let lower_p = if low == 0 {
        1.0
    } else {
        (1.0 - 2.0 * dist.cdf(low - 1)).clamp(0.0, 1.0)
    };
    // The most extreme table (every sample the same outcome) and the most balanced one.
    let most_extreme = (2.0 * 0.5f64.powf(trials as f64)).min(1.0);
    let mid = trials / 2;
    let most_balanced = if mid == 0 {
        1.0
    } else {
        (1.0 - 2.0 * dist.cdf(mid - 1)).clamp(0.0, 1.0)
    };
    let min_p_value = (2.0 * most_extreme.min(most_balanced)).min(1.0);
    Judgement {
        method: PValueMethod::ExactBinomial,
        replicates: None,
        upper_p,
        lower_p: Some(lower_p),
        p_value: two_sided(upper_p, Some(lower_p)),
        min_p_value,
        samples_needed: None,
        cell_p: None,
    }
}

/// The statistic of `report`'s test on `trials` uniform permutations drawn from `rng`.
fn simulate(report: &FairnessReport, rng: &mut ChaCha12Rng, deck: &mut [usize]) -> f64 {
    let n = report.n;
    let trials = report.trials;
    match report.test {
        TestKind::Permutation => {
            // A uniform order is a uniform rank: no need to shuffle.
            let orders = report.counts.len();
            let mut counts = vec![0u64; orders];
            for _ in 0..trials {
                counts[Lemire.index_below(rng, orders)] += 1;
            }
            permutation_report(n, trials, counts).chi2
        }
        TestKind::Position | TestKind::Prefix | TestKind::Adjacency => {
            let columns = report.counts.len() / n.max(1);
            let mut counts = vec![0u64; report.counts.len()];
            for _ in 0..trials {
                for (slot, value) in deck.iter_mut().zip(0..) {
                    *slot = value;
                }
                for i in (1..n).rev() {
                    deck.swap(i, Lemire.index_below(rng, i + 1));
                }
                if report.test == TestKind::Adjacency {
                    let mut previous = deck[n - 1];
                    for &next in deck.iter() {
                        counts[previous * n + next] += 1;
                        previous = next;
                    }
                } else {
                    for (position, &element) in deck[..columns].iter().enumerate() {
                        counts[element * columns + position] += 1;
                    }
                }
            }
            if report.test == TestKind::Adjacency {
                adjacency_report(n, trials, counts).chi2
            } else {
                position_report(report.test, n, columns, trials, counts).chi2
            }
        }
        TestKind::Repeat => 0.0,
    }
}

fn monte_carlo(report: &FairnessReport, config: &JudgeConfig) -> Judgement {
    let per_replicate = match report.test {
        TestKind::Permutation => report.trials,
        _ => report.trials.saturating_mul(report.n as u64),
    }
    .max(1);
    let replicates = config
        .replicates
        .min(MONTE_CARLO_BUDGET / per_replicate)
        .max(MIN_REPLICATES.min(config.replicates))
        .max(1);
    let mut rng = ChaCha12Rng::seed_from_u64(config.seed);
    let mut deck = vec![0usize; report.n];
    let observed = report.chi2;
    // Floating-point sums of the same table in another order may differ in the last bits.
    let tolerance = 1e-9 * observed.abs().max(1.0);
    let (mut at_least, mut at_most) = (0u64, 0u64);
    for _ in 0..replicates {
        let statistic = simulate(report, &mut rng, &mut deck);
        if statistic >= observed - tolerance {
            at_least += 1;
        }
        if statistic <= observed + tolerance {
            at_most += 1;
        }
    }
    let estimate = |k: u64| (k + 1) as f64 / (replicates + 1) as f64;
    let (upper_p, lower_p) = (estimate(at_least), estimate(at_most));
    let simulated = two_sided(upper_p, Some(lower_p));
    let simulated_floor = (2.0 / (replicates + 1) as f64).min(1.0);
    let (cell_p, cell_floor) = match (cell_tail_p_value(report), cell_tail_floor(report)) {
        (Some(p), Some(floor)) => (Some(p), floor),
        _ => (None, 1.0),
    };
    // Bonferroni over the two p-values: P(2·min(a, b) <= x) <= P(a <= x/2) + P(b <= x/2) <= x.
    let combine = |a: f64, b: Option<f64>| match b {
        Some(b) => (2.0 * a.min(b)).min(1.0),
        None => a,
    };
    Judgement {
        method: PValueMethod::MonteCarlo,
        replicates: Some(replicates),
        upper_p,
        lower_p: Some(lower_p),
        p_value: combine(simulated, cell_p),
        min_p_value: combine(simulated_floor, cell_p.map(|_| cell_floor)),
        samples_needed: None,
        cell_p,
    }
}

/// The smallest and the largest count over a report's cells (the adjacency matrix's diagonal,
/// an item after itself, is not a cell), with the number of cells and each one's fair
/// probability; `None` for the repeat test.
fn cell_extremes(report: &FairnessReport) -> Option<(u64, f64, u64, u64)> {
    let (cells, p) = uniform_cells(report)?;
    let n = report.n.max(1);
    let counted = report
        .counts
        .iter()
        .enumerate()
        .filter(|&(i, _)| report.test != TestKind::Adjacency || i / n != i % n);
    let (min, max) = counted.fold((u64::MAX, 0), |(lo, hi), (_, &c)| (lo.min(c), hi.max(c)));
    (max >= min).then_some((cells, p, min, max))
}

/// The Bonferroni union of the exact binomial tails of a report's cells: every cell's count is
/// `Binomial(trials, p)` under a fair shuffle whatever the dependence between cells (an order,
/// an item at a position or a pair of neighbours occurs at most once per sample), so
/// `min(1, 2 · cells · min(P(X >= largest count), P(X <= smallest count)))` is a valid
/// two-sided p-value at every size and level (the union bound needs no independence). It is
/// conservative, and strong where a few cells are far off (the wrong-range swap's most likely
/// orders), which is where a sparse table's simulated p-value runs out of replicates. Two
/// binomial tails, so it costs `O(cells)` to find the extremes and nothing more. `None` for
/// the repeat test.
///
/// ```
/// use fairdeal_fairness::{FairnessReport, TestKind, cell_tail_p_value};
/// // 8 items, 200 lines: one order seen 6 times where 0.005 is expected.
/// let mut counts = vec![0u64; 40_320];
/// counts[0] = 6;
/// counts[1..195].iter_mut().for_each(|c| *c = 1);
/// let report = FairnessReport {
///     test: TestKind::Permutation, n: 8, trials: 200, counts, chi2: 0.0, df: 40_319,
///     p_value: 1.0,
/// };
/// let p = cell_tail_p_value(&report).unwrap();
/// assert!(p < 1e-6, "{p}");
/// ```
pub fn cell_tail_p_value(report: &FairnessReport) -> Option<f64> {
    let (cells, p, min, max) = cell_extremes(report)?;
    let dist = Binomial::new(p, report.trials).ok()?;
    // P(X >= max) and P(X <= min), each from its own tail for precision.
    let upper = if max == 0 { 1.0 } else { dist.sf(max - 1) };
    let lower = dist.cdf(min);
    let tail = upper.min(lower);
    (!tail.is_nan()).then(|| (2.0 * cells as f64 * tail).min(1.0))
}

/// The smallest value [`cell_tail_p_value`] can take at a report's size: every sample in one
/// cell, `2 · cells · p^trials`.
fn cell_tail_floor(report: &FairnessReport) -> Option<f64> {
    let (cells, p) = uniform_cells(report)?;
    let floor = 2.0 * cells as f64 * p.powf(report.trials as f64);
    floor.is_finite().then(|| floor.min(1.0))
}
