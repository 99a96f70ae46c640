//! Tests across shuffles: the first shuffle of many seeds, and consecutive shuffles of one
//! stream.

use fairdeal_core::{Rng, Shuffler};
use serde::{Deserialize, Serialize};

use crate::stats::check_trials;
use crate::tally::{OrderTally, SerialTally};
use crate::{FairnessError, FairnessReport};

/// Which seeds the [`seed_sequence_test`] draws its first shuffles from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedPattern {
    /// `first, first + 1, first + 2, …`: "one seed per game, per user, per test case".
    Consecutive,
    /// `first ^ gray(0), first ^ gray(1), …` with `gray(i) = i ^ (i >> 1)`: all distinct, and
    /// each differs from the previous one in exactly one bit.
    OneBitApart,
}

impl SeedPattern {
    /// The `index`-th seed of the pattern starting at `first`.
    ///
    /// ```
    /// use fairdeal_fairness::SeedPattern;
    /// assert_eq!(SeedPattern::Consecutive.seed(10, 3), 13);
    /// let seeds: Vec<u64> = (0..4).map(|i| SeedPattern::OneBitApart.seed(0, i)).collect();
    /// assert_eq!(seeds, [0, 1, 3, 2]);
    /// ```
    pub const fn seed(self, first: u64, index: u64) -> u64 {
        match self {
            Self::Consecutive => first.wrapping_add(index),
            Self::OneBitApart => first ^ index ^ (index >> 1),
        }
    }

    /// The lower-case name used in reports: `"consecutive"` or `"one-bit-apart"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Consecutive => "consecutive",
            Self::OneBitApart => "one-bit-apart",
        }
    }
}

/// Seeds a fresh generator from each of `seeds` seeds of `pattern` (starting at `first_seed`),
/// shuffles `[0, n)` once with each, and tests those first shuffles as one sample: every order
/// counted for `n <= 8` ([`TestKind::Permutation`](crate::TestKind::Permutation) layout),
/// element × position above ([`TestKind::Position`](crate::TestKind::Position) layout).
///
/// This is how seeds are used in practice — one seed per game, per user, per test case — and
/// it tests the generator's seeding, which single-stream tests never exercise. A generator
/// whose first outputs depend too simply on the seed fails: `java.util.Random` seeded
/// `0, 1, 2, …` gives a first shuffle of 4 elements that is far from uniform, because its
/// first output's top bits hardly change between neighbouring seeds.
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`, [`FairnessError::ZeroTrials`]
/// for zero seeds, [`FairnessError::TooManyTrials`] when `seeds * n` overflows a `u64`.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{seed_sequence_test, SeedPattern, PASS_THRESHOLD};
/// use fairdeal_inplace::Inplace;
///
/// let report = seed_sequence_test(&Inplace::new(), 4, 5_000, 0, SeedPattern::Consecutive,
///     rand_pcg::Pcg64::seed_from_u64)?;
/// assert_eq!(report.trials, 5_000);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn seed_sequence_test<S, R, F>(
    shuffler: &S,
    n: usize,
    seeds: u64,
    first_seed: u64,
    pattern: SeedPattern,
    mut make_rng: F,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: FnMut(u64) -> R,
{
    let mut tally = OrderTally::new(n)?;
    check_trials(seeds, n)?;
    let mut deck: Vec<usize> = (0..n).collect();
    for index in 0..seeds {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        let mut rng = make_rng(pattern.seed(first_seed, index));
        shuffler.shuffle(&mut deck, &mut rng);
        tally.add(&deck)?;
    }
    tally.report()
}

/// Shuffles `[0, n)` `trials` times from one stream and tests the relative order of each
/// shuffle to the next ([`SerialTally`]): independent uniform shuffles give independent uniform
/// relative orders, so the permutation test (`n <= 8`) or position test applies to the
/// `trials - 1` of them.
///
/// This sees dependence between consecutive shuffles — a generator with a short period, or
/// whose next output is nearly determined by the last — even when each shuffle on its own
/// looks fair.
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`, [`FairnessError::ZeroTrials`]
/// for fewer than 2 trials, [`FairnessError::TooManyTrials`] when `trials * n` overflows.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{serial_test, PASS_THRESHOLD};
/// use fairdeal_inplace::Inplace;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(4);
/// let report = serial_test(&Inplace::new(), 4, 20_001, &mut rng)?;
/// assert_eq!(report.trials, 20_000); // consecutive pairs
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn serial_test<S, R>(
    shuffler: &S,
    n: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = SerialTally::new(n)?;
    check_trials(trials, n)?;
    let mut deck: Vec<usize> = (0..n).collect();
    for _ in 0..trials {
        for (slot, value) in deck.iter_mut().zip(0..) {
            *slot = value;
        }
        shuffler.shuffle(&mut deck, rng);
        tally.add(&deck)?;
    }
    tally.report()
}
