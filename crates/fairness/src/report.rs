//! What a test returns: the counts, the statistic and the verdict.

use core::fmt;

use serde::{Deserialize, Serialize};

use crate::rank::factorial;

/// The p-value below which fairdeal calls a shuffle unfair: `1e-6`.
///
/// A fair shuffle's p-value is uniform on `[0, 1]`, so one fair run fails with probability
/// `1e-6`: the 400 or so fixed-seed fair cases in the workspace's tests had about a 1 in 2,500
/// chance of containing a false alarm *when their seeds were chosen*, and since seeds are fixed
/// the outcome is then the same on every run. An unfair shuffle tested with enough trials lands
/// far below: the workspace's negative controls (the biased swap, broken RNGs) must reach
/// `p < 1e-9`.
pub const PASS_THRESHOLD: f64 = 1e-6;

/// The smallest expected count per cell for which the chi-square approximation is trusted
/// (the textbook rule of thumb). See [`FairnessReport::expected_count`].
pub const MIN_EXPECTED_COUNT: f64 = 5.0;

/// Which test produced a [`FairnessReport`], i.e. how its `counts` are laid out. Serialized as
/// `"permutation"`, `"position"`, `"prefix"` or `"adjacency"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TestKind {
    /// [`permutation_test`](crate::permutation_test): one count per order of `[0, n)`.
    Permutation,
    /// [`position_test`](crate::position_test): one count per (element, position) pair.
    Position,
    /// [`prefix_position_test`](crate::prefix_position_test): one count per (element, position)
    /// pair over the first `k` positions.
    Prefix,
    /// [`adjacency_test`](crate::adjacency_test): one count per (element, next element) pair,
    /// reading each permutation as a cycle.
    Adjacency,
    /// [`repeat_test`](crate::repeat_test): one count, the lines that repeat an earlier one
    /// (`df` holds the hand length `k`).
    Repeat,
}

impl TestKind {
    /// The lower-case name used in JSON and messages.
    ///
    /// ```
    /// assert_eq!(fairdeal_fairness::TestKind::Position.name(), "position");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Self::Permutation => "permutation",
            Self::Position => "position",
            Self::Prefix => "prefix",
            Self::Adjacency => "adjacency",
            Self::Repeat => "repeat",
        }
    }
}

impl fmt::Display for TestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of a fairness test: what was counted, Pearson's chi-square statistic against the
/// uniform expectation, its degrees of freedom and the p-value.
///
/// The p-value is the probability that a perfectly fair shuffle gives a statistic at least this
/// large; a tiny one means the counts are too uneven to be chance. Serializes to JSON with the
/// field names below (`test` as `"permutation"`, `"position"` or `"prefix"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FairnessReport {
    /// Which test this is.
    pub test: TestKind,
    /// How many elements each trial shuffled (`[0, n)`).
    pub n: usize,
    /// How many shuffles were counted.
    pub trials: u64,
    /// The counts. Permutation test: `n!` counts, index = the order's lexicographic rank
    /// ([`rank_permutation`](crate::rank_permutation)), so `counts[0]` is the identity.
    /// Position and prefix tests: an `n × k` matrix flattened row-major, row = element,
    /// column = position (`k = n` for the position test); see [`matrix`](Self::matrix).
    /// Adjacency test: an `n × n` matrix, row = element, column = the element after it.
    pub counts: Vec<u64>,
    /// Pearson's chi-square statistic (for the position tests, scaled to follow the chi-square
    /// distribution: see the crate docs).
    pub chi2: f64,
    /// Degrees of freedom of the reference chi-square distribution.
    pub df: u64,
    /// `P(X >= chi2)` for `X ~ χ²(df)`.
    pub p_value: f64,
}

impl FairnessReport {
    /// `true` when the counts are consistent with a fair shuffle at significance `alpha`, i.e.
    /// `p_value > alpha`. Use [`PASS_THRESHOLD`] unless you have a reason not to. A NaN p-value
    /// is never fair.
    pub fn is_fair(&self, alpha: f64) -> bool {
        self.p_value > alpha
    }

    /// The p-value the battery judges with: [`judge`](Self::judge)'s with the default
    /// [`JudgeConfig`](crate::JudgeConfig). Where valid it is two-sided,
    /// `min(1, 2·min(P(X >= chi2), P(X <= chi2)))`: small both when the counts are too uneven
    /// (bias) and when they are too even to be chance — the mark of a generator with a short
    /// period that cycles through its states. [`p_value`](Self::p_value) is the chi-square
    /// upper tail.
    ///
    /// ```
    /// use fairdeal_fairness::{FairnessReport, TestKind};
    /// let even = FairnessReport {
    ///     test: TestKind::Position, n: 6, trials: 600, counts: vec![100; 36], chi2: 0.0, df: 25,
    ///     p_value: 1.0,
    /// };
    /// assert_eq!(even.two_sided_p_value(), 0.0);
    /// ```
    pub fn two_sided_p_value(&self) -> f64 {
        self.judge(&crate::JudgeConfig::default()).p_value
    }

    /// How many times a fair shuffle is expected to hit each cell: `trials / n!` for the
    /// permutation test, `trials / n` for the position tests, `trials / (n - 1)` off the
    /// diagonal for the adjacency test. Below [`MIN_EXPECTED_COUNT`] the
    /// chi-square approximation is unreliable: run more trials.
    pub fn expected_count(&self) -> f64 {
        let cells = match self.test {
            TestKind::Permutation => factorial(self.n).map_or(f64::INFINITY, |f| f as f64),
            TestKind::Position | TestKind::Prefix => self.n as f64,
            TestKind::Adjacency => self.n.saturating_sub(1).max(1) as f64,
            TestKind::Repeat => return f64::INFINITY,
        };
        self.trials as f64 / cells
    }

    /// The rows of the position (or adjacency) matrix: row `e` holds how often element `e`
    /// landed at each examined position (or was followed by each element). `None` for the permutation test (or a report whose `counts` length is
    /// not a multiple of `n`).
    ///
    /// ```
    /// use fairdeal_fairness::FairnessReport;
    /// # use fairdeal_fairness::TestKind;
    /// let report = FairnessReport {
    ///     test: TestKind::Position, n: 2, trials: 10,
    ///     counts: vec![6, 4, 4, 6], chi2: 0.8, df: 1, p_value: 0.37,
    /// };
    /// let rows: Vec<&[u64]> = report.matrix().unwrap().collect();
    /// assert_eq!(rows, [[6, 4], [4, 6]]);
    /// ```
    pub fn matrix(&self) -> Option<core::slice::Chunks<'_, u64>> {
        if matches!(self.test, TestKind::Permutation | TestKind::Repeat)
            || self.n == 0
            || !self.counts.len().is_multiple_of(self.n)
        {
            return None;
        }
        let columns = self.counts.len() / self.n;
        (columns > 0).then(|| self.counts.chunks(columns))
    }
}
