//! The exhaustive test for small n: count every one of the `n!` orders.

use fairdeal_core::{Rng, Shuffler};

use crate::rank::{factorial, lehmer_rank};
use crate::stats::{check_trials, chi_square_p_value};
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
    if !(MIN_PERMUTATION_N..=MAX_PERMUTATION_N).contains(&n) {
        return Err(FairnessError::SizeOutOfRange {
            test: TestKind::Permutation,
            n,
            min: MIN_PERMUTATION_N,
            max: MAX_PERMUTATION_N,
        });
    }
    check_trials(trials, n)?;
    // n <= 8, so n! <= 40,320 fits everywhere.
    let orders = factorial(n).unwrap_or(u64::MAX) as usize;
    let mut counts = vec![0u64; orders];
    count_orders(shuffler, n, trials, rng, &mut counts)?;
    Ok(permutation_report(n, trials, counts))
}

/// Shuffles `[0, n)` `trials` times and adds one to `counts[rank]` of each order (`counts`
/// holds `n!` cells, `n <= 8`).
pub(crate) fn count_orders<S, R>(
    shuffler: &S,
    n: usize,
    trials: u64,
    rng: &mut R,
    counts: &mut [u64],
) -> Result<(), FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut deck = [0usize; MAX_PERMUTATION_N];
    let deck = deck
        .get_mut(..n)
        .ok_or(FairnessError::NotAPermutation { n })?;
    for _ in 0..trials {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        shuffler.shuffle(deck, rng);
        let cell = lehmer_rank(deck)
            .and_then(|rank| counts.get_mut(rank as usize))
            .ok_or(FairnessError::NotAPermutation { n })?;
        *cell += 1;
    }
    Ok(())
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
