//! The test for larger n: where does each element land?

use fairdeal_core::{Rng, Shuffler};

use crate::stats::chi_square_p_value;
use crate::tally::{check_permutation, check_size, impl_tally, tally_shuffles};
use crate::{FairnessError, FairnessReport, TestKind};

/// The smallest `n` the position tests accept.
pub const MIN_POSITION_N: usize = 2;

/// The largest `n` the position tests accept: 1,024.
///
/// The count matrix has `n²` cells (8 MiB at 1,024), each trial costs O(n), and a trustworthy
/// statistic needs `trials >= 5n`, so the work grows like `n²`. A shoe of 8 decks (416 cards)
/// fits with room to spare; sizes beyond the cap are refused instead of exhausting memory.
pub const MAX_POSITION_N: usize = 1024;

/// Shuffles `[0, n)` `trials` times and tests the `n × n` matrix of where each element lands
/// against the uniform `trials / n` per cell.
///
/// Every trial starts from the identity and calls [`Shuffler::shuffle`] once. The `counts` are
/// the matrix flattened row-major: `counts[e * n + p]` is how often element `e` ended at position
/// `p` ([`FairnessReport::matrix`] gives the rows).
///
/// Degrees of freedom are `(n - 1)²`: every row and every column of the matrix sums to `trials`
/// exactly, which pins `2n - 1` of the `n²` cells, the same count as a contingency table's
/// `(r - 1)(c - 1)`. Because the `n` cells a trial fills are not independent, the plain Pearson
/// sum is `n / (n - 1)` times too large on average; the reported `chi2` carries the exact
/// correction and follows `χ²((n - 1)²)` for a fair shuffle (derivation in the crate docs).
///
/// This test sees first-order bias (an element preferring a position), which is what the classic
/// broken shuffles produce, but not every joint dependence; for `n <= 8` prefer
/// [`permutation_test`](crate::permutation_test), which sees everything.
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`, [`FairnessError::ZeroTrials`],
/// [`FairnessError::TooManyTrials`] when `trials * n` overflows a `u64`.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_inplace::Inplace;
/// use fairdeal_fairness::{position_test, PASS_THRESHOLD};
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(2);
/// let report = position_test(&Inplace::new(), 52, 5_000, &mut rng)?;
/// assert_eq!(report.counts.len(), 52 * 52);
/// assert_eq!(report.df, 51 * 51);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn position_test<S, R>(
    shuffler: &S,
    n: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = PositionTally::new(n)?;
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler.shuffle(deck, rng);
        Ok(())
    })?;
    tally.report()
}

/// Calls [`Shuffler::shuffle_prefix`] with `k` on `[0, n)` `trials` times and tests the `n × k`
/// matrix of which element lands at each of the first `k` positions.
///
/// `shuffle_prefix` promises only that `data[..k]` is a uniformly random ordered sample, so only
/// those positions are counted: each element should sit at each of them `trials / n` times.
/// `counts[e * k + p]` is how often element `e` ended at position `p < k`. Degrees of freedom are
/// `(n - 1) · k` (each column sums to `trials`; rows are free because an element may miss the
/// prefix), or `(n - 1)²` when `k = n`, where the test is the [`position_test`] of
/// `shuffle_prefix` instead of `shuffle`.
///
/// # Errors
///
/// As [`position_test`], plus [`FairnessError::PrefixOutOfRange`] unless `1 <= k <= n`.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{prefix_position_test, PASS_THRESHOLD};
/// use fairdeal_partial::Partial;
///
/// // Deal 7 cards of 52 with 7 swaps: each card should be equally likely in each of the 7 seats.
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
/// let report = prefix_position_test(&Partial::new(), 52, 7, 5_000, &mut rng)?;
/// assert_eq!(report.counts.len(), 52 * 7);
/// assert_eq!(report.df, 51 * 7);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn prefix_position_test<S, R>(
    shuffler: &S,
    n: usize,
    k: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = PositionTally::prefix(n, k)?;
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler
            .shuffle_prefix(deck, k, rng)
            .map_err(|_| FairnessError::PrefixOutOfRange { k, n })
    })?;
    tally.report()
}

/// The chi-square statistic of an `n × k` element-by-position count matrix (crate docs: "The
/// position statistic").
pub(crate) fn position_report(
    test: TestKind,
    n: usize,
    k: usize,
    trials: u64,
    counts: Vec<u64>,
) -> FairnessReport {
    let t = trials as f64;
    let (nf, kf) = (n as f64, k as f64);
    let mut within_rows = 0.0;
    let mut row_totals = 0.0;
    for row in counts.chunks(k) {
        let total: f64 = row.iter().map(|&c| c as f64).sum();
        let mean = total / kf;
        within_rows += row
            .iter()
            .map(|&c| {
                let diff = c as f64 - mean;
                diff * diff
            })
            .sum::<f64>();
        let excess = total - kf * t / nf;
        row_totals += excess * excess;
    }
    let (chi2, df) = if k == n {
        // Every element lands somewhere: row totals are exactly `trials`, that term is 0/0.
        ((nf - 1.0) / t * within_rows, ((n - 1) * (n - 1)) as u64)
    } else {
        let row_scale = kf * (1.0 - kf / nf);
        (
            (nf - 1.0) / t * (within_rows + row_totals / row_scale),
            ((n - 1) * k) as u64,
        )
    };
    FairnessReport {
        test,
        n,
        trials,
        counts,
        chi2,
        df,
        p_value: chi_square_p_value(chi2, df),
    }
}

/// Counts where each element of `[0, n)` lands (`2 <= n <= 1024`) for the position test.
///
/// ```
/// use fairdeal_fairness::PositionTally;
/// let mut tally = PositionTally::new(2)?;
/// tally.add(&[0, 1])?;
/// tally.add(&[1, 0])?;
/// assert_eq!(tally.report()?.counts, [1, 1, 1, 1]);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PositionTally {
    n: usize,
    /// The positions counted: `n`, or the prefix length of the prefix test.
    k: usize,
    test: TestKind,
    trials: u64,
    counts: Vec<u64>,
    seen: Vec<bool>,
}

impl PositionTally {
    /// An empty `n × n` element-by-position tally.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`.
    pub fn new(n: usize) -> Result<Self, FairnessError> {
        check_size(TestKind::Position, n, MIN_POSITION_N, MAX_POSITION_N)?;
        Ok(Self::with_columns(TestKind::Position, n, n))
    }

    /// An empty `n × k` tally of the first `k` positions, for the prefix test
    /// ([`prefix_position_test`]): each permutation added must still be a whole ordering of
    /// `[0, n)`, only its first `k` positions are counted.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`,
    /// [`FairnessError::PrefixOutOfRange`] unless `1 <= k <= n`.
    pub fn prefix(n: usize, k: usize) -> Result<Self, FairnessError> {
        check_size(TestKind::Prefix, n, MIN_POSITION_N, MAX_POSITION_N)?;
        if !(1..=n).contains(&k) {
            return Err(FairnessError::PrefixOutOfRange { k, n });
        }
        Ok(Self::with_columns(TestKind::Prefix, n, k))
    }

    fn with_columns(test: TestKind, n: usize, k: usize) -> Self {
        Self {
            n,
            k,
            test,
            trials: 0,
            counts: vec![0; n * k],
            seen: vec![false; n],
        }
    }

    /// Counts one permutation: element `perm[p]` landed at position `p`.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`; nothing is
    /// counted then.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        check_permutation(perm, self.n, &mut self.seen)?;
        for (position, &element) in perm[..self.k].iter().enumerate() {
            self.counts[element * self.k + position] += 1;
        }
        self.trials += 1;
        Ok(())
    }

    /// How many permutations were counted.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Adds the counts of `later`, a tally of the same shape (the chunk driver's merge).
    pub(crate) fn merge(&mut self, later: &Self) {
        debug_assert_eq!(self.counts.len(), later.counts.len());
        for (sum, c) in self.counts.iter_mut().zip(&later.counts) {
            *sum += c;
        }
        self.trials += later.trials;
    }

    /// The position test's report (`(n - 1)²` degrees of freedom; `(n - 1)·k` for a prefix).
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        if self.trials == 0 {
            return Err(FairnessError::ZeroTrials);
        }
        Ok(position_report(
            self.test,
            self.n,
            self.k,
            self.trials,
            self.counts.clone(),
        ))
    }
}

impl_tally!(PositionTally);
