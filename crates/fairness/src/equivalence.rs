//! Equivalence verdicts: what a FAIR verdict rules out.
//!
//! A p-value above alpha is absence of evidence, not evidence of fairness. A test here is FAIR
//! only when its data *bound* the bias: at the stated confidence, no cell of its table (an
//! order, an item at a position, a pair of neighbours, a poker category) is more than the
//! tolerance more or less likely than under a fair shuffle. The bound is simultaneous over the
//! cells: each cell's count is binomial whatever the dependence between cells, so an exact
//! two-sided Clopper–Pearson interval at level `(1 - confidence) / cells` per cell, with the
//! union bound over the cells, covers every cell's true probability at once with probability at
//! least `confidence`. The certified bound is the largest relative distance from the fair
//! probability that those intervals leave open. When it is above the tolerance the verdict is
//! [`Verdict::Insufficient`], with the lines a fair source needs to certify it.

use serde::{Deserialize, Serialize};
use statrs::distribution::{Beta, ContinuousCDF, Normal};

use crate::rank::factorial;
use crate::{FairnessReport, PASS_THRESHOLD, TestKind, Verdict, outputs_lower_bound};

/// The default confidence of a certified bound: `1 - PASS_THRESHOLD` (99.9999 %), the same
/// level at which a test calls a shuffle unfair.
pub const DEFAULT_CONFIDENCE: f64 = 1.0 - PASS_THRESHOLD;

/// The default tolerance of the tests that count whole orders (permutation, serial and
/// seed-sequence tests for `n <= 8`): no order more than 30 % more or less likely than fair.
///
/// Chosen so that a fair file of 5 items certifies it from about 100,000 to 150,000 lines (200,000 do with
/// room to spare) while the wrong-range swap, whose most likely order of 5 is 1.80 times
/// uniform and least likely 0.61 times, can never be certified.
pub const ORDER_TOLERANCE: f64 = 0.30;

/// The default tolerance of the position tests (and of the serial and seed-sequence tests above
/// 8 items, which count positions) and of the adjacency test: no item more than 5 % more or less
/// likely at any position (or right after any other item) than fair.
pub const CELL_TOLERANCE: f64 = 0.05;

/// The default tolerance of `poker table`'s comparison with the exact table: no category more
/// than 15 % more or less frequent than exact. The rarest category (straight flush, 0.031 % of
/// 7-card hands) decides how many hands that takes: about 5 million.
pub const CATEGORY_TOLERANCE: f64 = 0.15;

/// The tolerance a test of kind `test` is judged with by default: [`ORDER_TOLERANCE`] for the
/// permutation layout, [`CELL_TOLERANCE`] for the position, prefix and adjacency layouts, none
/// for the repeat test (it detects repeats; it bounds no cell).
pub const fn default_tolerance(test: TestKind) -> Option<f64> {
    match test {
        TestKind::Permutation => Some(ORDER_TOLERANCE),
        TestKind::Position | TestKind::Prefix | TestKind::Adjacency => Some(CELL_TOLERANCE),
        TestKind::Repeat => None,
    }
}

/// What the judge asks of the data: a tolerance (or the per-family defaults) and a confidence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Equivalence {
    /// One tolerance for every test, or `None` for [`default_tolerance`] per test family.
    pub tolerance: Option<f64>,
    /// The confidence of the certified bounds (e.g. [`DEFAULT_CONFIDENCE`]).
    pub confidence: f64,
}

impl Default for Equivalence {
    fn default() -> Self {
        Self {
            tolerance: None,
            confidence: DEFAULT_CONFIDENCE,
        }
    }
}

impl Equivalence {
    /// The tolerance a test of kind `test` is judged with.
    pub fn tolerance_for(&self, test: TestKind) -> Option<f64> {
        match test {
            TestKind::Repeat => None,
            _ => self.tolerance.or(default_tolerance(test)),
        }
    }
}

/// One verdict and what it certifies: the value every judge returns and both the text and the
/// JSON printers read, so that they cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Certified {
    /// Fair (the bound is within the tolerance and nothing rejects), unfair (a test rejects at
    /// alpha) or insufficient (nothing rejects, but the data do not bound the bias within the
    /// tolerance).
    pub verdict: Verdict,
    /// The certified bound: at `confidence`, no cell is more than this fraction more or less
    /// likely than fair (`0.031` = 3.1 %). `None` for a test that bounds no cell (the repeat
    /// tests).
    pub bound: Option<f64>,
    /// The tolerance the bound was compared with.
    pub tolerance: Option<f64>,
    /// The confidence of the bound.
    pub confidence: f64,
    /// When insufficient: about how many samples a fair source needs for its bound to reach
    /// the tolerance.
    pub samples_needed: Option<u64>,
    /// The repeat tests' bound: at `confidence`, a source drawing each line from equally
    /// likely outputs has at least this many of them ([`outputs_lower_bound`]); `None` for the
    /// tests that bound cells, and when too many repeats make it costly to compute.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs_at_least: Option<f64>,
}

/// The cells of a report's table that the bound covers, and each one's fair probability:
/// `(cells, p)` when every cell has the same probability `p`.
pub(crate) fn uniform_cells(report: &FairnessReport) -> Option<(u64, f64)> {
    let n = report.n as u64;
    match report.test {
        TestKind::Permutation => {
            let orders = factorial(report.n)?;
            Some((orders, 1.0 / orders as f64))
        }
        TestKind::Position | TestKind::Prefix => {
            let columns = report.counts.len() as u64 / n.max(1);
            Some((n * columns, 1.0 / n as f64))
        }
        TestKind::Adjacency => Some((n * (n - 1), 1.0 / (n - 1) as f64)),
        TestKind::Repeat => None,
    }
}

/// The two-sided Clopper–Pearson interval of a binomial proportion, `count` of `trials`, each
/// side at level `alpha / 2`.
///
/// ```
/// let (low, high) = fairdeal_fairness::clopper_pearson(50, 100, 0.05);
/// assert!((low - 0.3983).abs() < 1e-4 && (high - 0.6017).abs() < 1e-4);
/// ```
pub fn clopper_pearson(count: u64, trials: u64, alpha: f64) -> (f64, f64) {
    let (k, t) = (count as f64, trials as f64);
    let low = if count == 0 {
        0.0
    } else {
        Beta::new(k, t - k + 1.0).map_or(0.0, |b| b.inverse_cdf(alpha / 2.0))
    };
    let high = if count >= trials {
        1.0
    } else {
        Beta::new(k + 1.0, t - k).map_or(1.0, |b| b.inverse_cdf(1.0 - alpha / 2.0))
    };
    (low, high)
}

/// The certified relative bound over `cells` cells of fair probability `p`, given the smallest
/// and the largest count among them: `max(p_high / p - 1, 1 - p_low / p)` with the
/// Clopper–Pearson interval at `(1 - confidence) / cells` per cell. Because the bound grows
/// with a count's distance from `p · trials` on either side, the extreme counts decide it.
///
/// ```
/// use fairdeal_fairness::relative_bound;
/// // 120 orders of 5 items, 200,000 lines, every order near its 1,667 expected:
/// let bound = relative_bound(200_000, 120, 1.0 / 120.0, 1_560, 1_780, 0.999_999);
/// assert!(bound > 0.15 && bound < 0.3, "{bound}");
/// ```
pub fn relative_bound(
    trials: u64,
    cells: u64,
    p: f64,
    min_count: u64,
    max_count: u64,
    confidence: f64,
) -> f64 {
    let alpha = (1.0 - confidence) / cells.max(1) as f64;
    let (_, high) = clopper_pearson(max_count, trials, alpha);
    let (low, _) = clopper_pearson(min_count, trials, alpha);
    (high / p - 1.0).max(1.0 - low / p)
}

/// About how many samples a fair source needs for [`relative_bound`] to reach `tolerance`: the
/// normal approximation of the interval, with a fair table's typical extreme count (`sqrt(2 ln
/// cells)` standard deviations from `p·T`) added to the interval's own half-width, so
/// `T = ((z + sqrt(2 ln cells)) / tolerance)² (1 - p) / p` with `z` the normal quantile of
/// `(1 - confidence) / (2 cells)`. An estimate, in closed form so that it costs nothing at any
/// size. `None` for a tolerance of 0 or a `p` outside `(0, 1)`.
///
/// ```
/// use fairdeal_fairness::samples_to_certify;
/// let five = samples_to_certify(120, 1.0 / 120.0, 0.30, 0.999_999).unwrap();
/// assert!(five > 100_000 && five < 160_000, "{five}");
/// ```
pub fn samples_to_certify(cells: u64, p: f64, tolerance: f64, confidence: f64) -> Option<u64> {
    if !(tolerance > 0.0 && tolerance.is_finite() && p > 0.0 && p < 1.0) {
        return None;
    }
    let alpha = (1.0 - confidence) / (2.0 * cells.max(1) as f64);
    let z = Normal::new(0.0, 1.0).ok()?.inverse_cdf(1.0 - alpha);
    let spread = (2.0 * (cells.max(2) as f64).ln()).sqrt();
    let t = ((z + spread) / tolerance).powi(2) * (1.0 - p) / p;
    t.is_finite().then(|| t.ceil() as u64)
}

impl FairnessReport {
    /// The certified bound of this report's cells at `confidence` ([`relative_bound`] over the
    /// cells its test counts); `None` for the repeat test.
    ///
    /// ```
    /// use fairdeal_fairness::{FairnessReport, TestKind};
    /// let report = FairnessReport {
    ///     test: TestKind::Position, n: 2, trials: 10_000, counts: vec![5_000; 4], chi2: 0.0,
    ///     df: 1, p_value: 1.0,
    /// };
    /// let bound = report.certified_bound(0.999_999).unwrap();
    /// assert!(bound > 0.0 && bound < 0.1, "{bound}");
    /// ```
    pub fn certified_bound(&self, confidence: f64) -> Option<f64> {
        let (cells, p) = uniform_cells(self)?;
        let counted = self.counts.iter().enumerate().filter(|&(i, _)| {
            // The adjacency matrix's diagonal (an item after itself) is not a cell.
            self.test != TestKind::Adjacency || i / self.n != i % self.n
        });
        let (min, max) = counted.fold((u64::MAX, 0), |(lo, hi), (_, &c)| (lo.min(c), hi.max(c)));
        (max >= min).then(|| relative_bound(self.trials, cells, p, min, max, confidence))
    }

    /// About how many samples a fair source needs for this report's bound to reach `tolerance`
    /// ([`samples_to_certify`]); `None` for the repeat test.
    pub fn samples_to_certify(&self, tolerance: f64, confidence: f64) -> Option<u64> {
        let (cells, p) = uniform_cells(self)?;
        samples_to_certify(cells, p, tolerance, confidence)
    }

    /// This report's verdict and what it certifies, given whether a valid test rejected it at
    /// alpha, and whether it could have (`could_reject`: its smallest possible p-value clears
    /// the level): unfair when it did; else fair when
    /// [`certified_bound`](Self::certified_bound) is within the tolerance `equivalence` gives
    /// its test; else insufficient, with the samples needed. A repeat test (which bounds no
    /// cell) is fair when it does not reject though it could have, and states instead how many
    /// equally likely outputs the source has at least ([`outputs_lower_bound`]); one that
    /// could not reject (one line, or two of a small deck) is insufficient.
    pub fn certify(
        &self,
        rejected: bool,
        could_reject: bool,
        equivalence: &Equivalence,
    ) -> Certified {
        let tolerance = equivalence.tolerance_for(self.test);
        let confidence = equivalence.confidence;
        let bound = self.certified_bound(confidence);
        let verdict = match (rejected, bound, tolerance) {
            (true, ..) => Verdict::Unfair,
            (false, Some(bound), Some(tolerance)) if bound <= tolerance => Verdict::Fair,
            (false, None, _) if could_reject => Verdict::Fair,
            _ => Verdict::Insufficient,
        };
        let samples_needed = (verdict == Verdict::Insufficient)
            .then(|| tolerance.and_then(|t| self.samples_to_certify(t, confidence)))
            .flatten();
        let outputs_at_least = (self.test == TestKind::Repeat && !rejected)
            .then(|| {
                let repeats = self.counts.first().copied().unwrap_or_default();
                outputs_lower_bound(self.trials, repeats, confidence)
            })
            .flatten();
        Certified {
            verdict,
            bound,
            tolerance,
            confidence,
            samples_needed,
            outputs_at_least,
        }
    }
}

/// The certified bound of a table of `counts` against arbitrary fair probabilities `expected`
/// (summing to 1), e.g. poker categories against the exact table: the largest relative distance
/// `|q / p - 1|` the simultaneous Clopper–Pearson intervals at `confidence` leave open over the
/// cells. Cells whose `p` is 0 are skipped.
///
/// ```
/// let bound = fairdeal_fairness::table_bound(&[2_500, 7_500], &[0.25, 0.75], 0.999_999);
/// assert!(bound > 0.05 && bound < 0.15, "{bound}");
/// ```
pub fn table_bound(counts: &[u64], expected: &[f64], confidence: f64) -> f64 {
    let trials: u64 = counts.iter().sum();
    let cells = expected.iter().filter(|&&p| p > 0.0).count() as u64;
    let alpha = (1.0 - confidence) / cells.max(1) as f64;
    counts
        .iter()
        .zip(expected)
        .filter(|&(_, &p)| p > 0.0)
        .map(|(&count, &p)| {
            let (low, high) = clopper_pearson(count, trials, alpha);
            (high / p - 1.0).max(1.0 - low / p)
        })
        .fold(0.0, f64::max)
}

/// About how many samples a fair source needs for [`table_bound`] over `expected` to reach
/// `tolerance` (the rarest cell decides; counts at their expectations). `None` when none does.
pub fn table_samples_to_certify(expected: &[f64], tolerance: f64, confidence: f64) -> Option<u64> {
    let cells = expected.iter().filter(|&&p| p > 0.0).count() as u64;
    expected
        .iter()
        .filter(|&&p| p > 0.0 && p < 1.0)
        .map(|&p| samples_to_certify(cells, p, tolerance, confidence))
        .try_fold(0u64, |most, t| t.map(|t| most.max(t)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use statrs::distribution::{Binomial, DiscreteCDF};

    /// The interval's ends are where the binomial tails reach alpha / 2.
    #[test]
    fn clopper_pearson_ends_are_the_binomial_tails() {
        for (k, t) in [(3u64, 20u64), (1_667, 200_000), (40_000, 200_000), (0, 50)] {
            let alpha = 1e-8;
            let (low, high) = clopper_pearson(k, t, alpha);
            if k > 0 {
                let tail = 1.0 - Binomial::new(low, t).unwrap().cdf(k - 1);
                assert!((tail / (alpha / 2.0) - 1.0).abs() < 1e-3, "{k} {t} {tail}");
            } else {
                assert_eq!(low, 0.0);
            }
            let tail = Binomial::new(high, t).unwrap().cdf(k);
            assert!((tail / (alpha / 2.0) - 1.0).abs() < 1e-3, "{k} {t} {tail}");
        }
    }

    #[test]
    fn more_samples_certify_a_smaller_bound() {
        let p = 1.0 / 120.0;
        let bound = |t: u64| {
            let e = (t as f64 * p) as u64;
            relative_bound(t, 120, p, e, e, DEFAULT_CONFIDENCE)
        };
        assert!(bound(20) > 1.0);
        assert!(bound(2_000) > bound(20_000));
        assert!(bound(200_000) < ORDER_TOLERANCE);
        // The estimate (made at a fair table's typical extreme counts) certifies at the
        // expected counts too, and a quarter of it does not even there.
        let needed = samples_to_certify(120, p, ORDER_TOLERANCE, DEFAULT_CONFIDENCE).unwrap();
        assert!(bound(needed) <= ORDER_TOLERANCE);
        assert!(bound(needed / 4) > ORDER_TOLERANCE);
        // At any size, at once: a deck of 52 to within 0.1 %.
        let deck = samples_to_certify(2704, 1.0 / 52.0, 0.001, DEFAULT_CONFIDENCE).unwrap();
        assert!(deck > 1_000_000_000, "{deck}");
        assert!(samples_to_certify(120, p, 0.0, DEFAULT_CONFIDENCE).is_none());
    }

    #[test]
    fn a_known_bias_is_inside_its_bound() {
        // One cell 1.8 times its fair share: the bound covers it.
        let p = 0.25;
        let t = 100_000;
        let bound = relative_bound(t, 4, p, 20_000, 45_000, DEFAULT_CONFIDENCE);
        assert!((0.8..0.85).contains(&bound), "{bound}");
        let table = table_bound(&[45_000, 55_000], &[0.25, 0.75], DEFAULT_CONFIDENCE);
        assert!(table >= 0.8, "{table}");
    }
}
