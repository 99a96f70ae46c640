//! Streaming counters and the one loop that feeds them.
//!
//! Every test counts permutations through a [`Tally`]: the shuffling tests
//! ([`permutation_test`](crate::permutation_test) and friends) produce their permutations with
//! [`tally_shuffles`], the only reset-shuffle-count loop of the crate; `fairdeal audit` feeds
//! the same tallies another program's output, line by line. A tally holds O(cells) memory and
//! takes O(n) per permutation.

use crate::stats::check_trials;
use crate::{FairnessError, FairnessReport, TestKind};

/// A counter of permutations of `[0, n)`: feed them one at a time with [`add`](Tally::add),
/// ask for the test's report at the end.
///
/// Implemented by [`PermutationTally`](crate::PermutationTally),
/// [`PositionTally`](crate::PositionTally), [`AdjacencyTally`](crate::AdjacencyTally),
/// [`SerialTally`](crate::SerialTally), [`OrderTally`](crate::OrderTally) and
/// [`RepeatTally`](crate::RepeatTally), so code that feeds several of them (the CLI's `audit`)
/// can hold them as `Box<dyn Tally>`.
///
/// ```
/// use fairdeal_fairness::{PositionTally, SerialTally, Tally};
/// let mut tallies: Vec<Box<dyn Tally>> =
///     vec![Box::new(PositionTally::new(3)?), Box::new(SerialTally::new(3)?)];
/// for perm in [[0, 1, 2], [2, 0, 1], [1, 2, 0]] {
///     for tally in &mut tallies {
///         tally.add(&perm)?;
///     }
/// }
/// assert_eq!(tallies[0].trials(), 3);
/// assert_eq!(tallies[1].trials(), 2); // consecutive pairs
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub trait Tally {
    /// Counts one permutation.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`; nothing is
    /// counted then.
    fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError>;

    /// How many samples the report will count (permutations, or consecutive pairs).
    fn trials(&self) -> u64;

    /// The test's report over what was counted so far.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before anything was counted.
    fn report(&self) -> Result<FairnessReport, FairnessError>;
}

/// Implements [`Tally`] by the type's own inherent `add`, `trials` and `report`.
macro_rules! impl_tally {
    ($($ty:ty),*) => {$(
        impl $crate::Tally for $ty {
            fn add(&mut self, perm: &[usize]) -> Result<(), $crate::FairnessError> {
                <$ty>::add(self, perm)
            }
            fn trials(&self) -> u64 {
                <$ty>::trials(self)
            }
            fn report(&self) -> Result<$crate::FairnessReport, $crate::FairnessError> {
                <$ty>::report(self)
            }
        }
    )*};
}
pub(crate) use impl_tally;

/// The crate's one reset-shuffle-count loop: `trials` times, reset a deck to the identity
/// `[0, n)`, let `shuffle` permute it, and count it in `tally`.
///
/// # Errors
///
/// [`FairnessError::ZeroTrials`], [`FairnessError::TooManyTrials`] (checked before any work),
/// then whatever `shuffle` or the tally returns.
pub(crate) fn tally_shuffles<T: Tally + ?Sized>(
    tally: &mut T,
    n: usize,
    trials: u64,
    mut shuffle: impl FnMut(&mut [usize]) -> Result<(), FairnessError>,
) -> Result<(), FairnessError> {
    check_trials(trials, n)?;
    let mut deck = vec![0usize; n];
    for _ in 0..trials {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        shuffle(&mut deck)?;
        tally.add(&deck)?;
    }
    Ok(())
}

/// Checks that `perm` is an ordering of `[0, n)`, reusing `seen` (cleared here) as scratch.
pub(crate) fn check_permutation(
    perm: &[usize],
    n: usize,
    seen: &mut [bool],
) -> Result<(), FairnessError> {
    if perm.len() != n || seen.len() != n {
        return Err(FairnessError::NotAPermutation { n });
    }
    seen.fill(false);
    for &value in perm {
        match seen.get_mut(value) {
            Some(slot) if !*slot => *slot = true,
            _ => return Err(FairnessError::NotAPermutation { n }),
        }
    }
    Ok(())
}

pub(crate) fn check_size(
    test: TestKind,
    n: usize,
    min: usize,
    max: usize,
) -> Result<(), FairnessError> {
    if (min..=max).contains(&n) {
        Ok(())
    } else {
        Err(FairnessError::SizeOutOfRange { test, n, min, max })
    }
}
