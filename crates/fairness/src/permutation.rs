//! The exhaustive test for small n: count every one of the `n!` orders.

use fairdeal_core::{Rng, Shuffler};

use crate::rank::{factorial, lehmer_rank};
use crate::stats::chi_square_p_value;
use crate::tally::{check_size, impl_tally, tally_shuffles};
use crate::{FairnessError, FairnessReport, TestKind};

/// The smallest `n` the permutation test accepts (`1!` has a single order: nothing to test).
pub const MIN_PERMUTATION_N: usize = 2;

/// The largest `n` the permutation test accepts: `8! = 40,320` orders. At 9 (362,880 orders)
/// the test would need millions of trials to keep [`MIN_EXPECTED_COUNT`](crate::MIN_EXPECTED_COUNT)
/// per cell; use [`position_test`](crate::position_test) instead.
pub const MAX_PERMUTATION_N: usize = 8;

/// Shuffles `[0, n)` `trials` times, counts each of the `n!` resulting orders and tests the counts
/// against the uniform distribution.
///
/// Every trial starts again from the identity `[0, 1, …, n-1]` and calls
/// [`Shuffler::shuffle`] once. `counts[r]` is how often the order with lexicographic rank `r`
/// ([`rank_permutation`](crate::rank_permutation)) came out, so `counts[0]` is the identity.
/// The statistic is Pearson's `Σ (observed - expected)² / expected` with `expected = trials / n!`,
/// which for a fair shuffle follows a chi-square distribution with `n! - 1` degrees of freedom
/// (the counts are one multinomial sample; their total is fixed).
///
/// This is the strongest test there is for a given n: it sees every joint dependence, not just
/// where single elements land. Keep `trials >= 5 · n!` (see
/// [`FairnessReport::expected_count`]).
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 8`, [`FairnessError::ZeroTrials`],
/// [`FairnessError::TooManyTrials`] when `trials * n` overflows a `u64`.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_inplace::Inplace;
/// use fairdeal_fairness::{permutation_test, PASS_THRESHOLD};
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let report = permutation_test(&Inplace::new(), 3, 60_000, &mut rng)?;
/// assert_eq!(report.counts.len(), 6);
/// assert_eq!(report.df, 5);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn permutation_test<S, R>(
    shuffler: &S,
    n: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = PermutationTally::new(n)?;
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler.shuffle(deck, rng);
        Ok(())
    })?;
    tally.report()
}

/// The chi-square report of `n!` order counts (index = lexicographic rank) from `trials`
/// shuffles. The caller guarantees `counts.len() == n!` and `trials >= 1`.
pub(crate) fn permutation_report(n: usize, trials: u64, counts: Vec<u64>) -> FairnessReport {
    let orders = counts.len();
    let expected = trials as f64 / orders as f64;
    let chi2 = counts
        .iter()
        .map(|&observed| {
            let diff = observed as f64 - expected;
            diff * diff / expected
        })
        .sum();
    let df = orders as u64 - 1;
    FairnessReport {
        test: TestKind::Permutation,
        n,
        trials,
        counts,
        chi2,
        df,
        p_value: chi_square_p_value(chi2, df),
    }
}

/// Counts whole orders of `[0, n)` (`2 <= n <= 8`) for the permutation test.
///
/// ```
/// use fairdeal_fairness::PermutationTally;
/// let mut tally = PermutationTally::new(3)?;
/// for perm in [[0, 1, 2], [2, 1, 0], [1, 0, 2], [0, 2, 1], [1, 2, 0], [2, 0, 1]] {
///     tally.add(&perm)?;
/// }
/// let report = tally.report()?;
/// assert_eq!(report.chi2, 0.0); // every order exactly once
/// assert!(tally.add(&[0, 0, 1]).is_err());
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
#[derive(Debug, Clone)]
pub struct PermutationTally {
    n: usize,
    trials: u64,
    counts: Vec<u64>,
}

impl PermutationTally {
    /// An empty tally for orders of `[0, n)`.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 8`.
    pub fn new(n: usize) -> Result<Self, FairnessError> {
        check_size(
            TestKind::Permutation,
            n,
            MIN_PERMUTATION_N,
            MAX_PERMUTATION_N,
        )?;
        let orders = factorial(n).unwrap_or(1) as usize;
        Ok(Self {
            n,
            trials: 0,
            counts: vec![0; orders],
        })
    }

    /// Counts one order.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`; nothing is
    /// counted then.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        let n = self.n;
        let rank = (perm.len() == n)
            .then(|| lehmer_rank(perm))
            .flatten()
            .ok_or(FairnessError::NotAPermutation { n })?;
        let cell = self
            .counts
            .get_mut(rank as usize)
            .ok_or(FairnessError::NotAPermutation { n })?;
        *cell += 1;
        self.trials += 1;
        Ok(())
    }

    /// How many orders were counted.
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

    /// The permutation test's report over the orders counted so far.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        if self.trials == 0 {
            return Err(FairnessError::ZeroTrials);
        }
        Ok(permutation_report(self.n, self.trials, self.counts.clone()))
    }
}

impl_tally!(PermutationTally);
