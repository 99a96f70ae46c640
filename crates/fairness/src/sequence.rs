//! Tests across shuffles: the first shuffle of many seeds, and consecutive shuffles of one
//! stream.

use fairdeal_core::{Rng, Shuffler};
use serde::{Deserialize, Serialize};

use crate::permutation::{MAX_PERMUTATION_N, PermutationTally};
use crate::position::PositionTally;
use crate::tally::{check_permutation, impl_tally, tally_shuffles};
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
    let mut seeds_used = 0..seeds;
    tally_shuffles(&mut tally, n, seeds, |deck| {
        let index = seeds_used.next().unwrap_or(seeds);
        shuffler.shuffle(deck, &mut make_rng(pattern.seed(first_seed, index)));
        Ok(())
    })?;
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
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler.shuffle(deck, rng);
        Ok(())
    })?;
    tally.report()
}

/// The permutation tally for `n <= 8`, the position tally above: what the seed-sequence and
/// serial tests count.
#[derive(Debug, Clone)]
pub enum OrderTally {
    /// Every order counted (`n <= 8`).
    Permutation(PermutationTally),
    /// Element × position counted (`8 < n <= 1024`).
    Position(PositionTally),
}

impl OrderTally {
    /// The strongest tally that fits: whole orders up to `n = 8`, positions above.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`.
    pub fn new(n: usize) -> Result<Self, FairnessError> {
        if n <= MAX_PERMUTATION_N {
            PermutationTally::new(n).map(Self::Permutation)
        } else {
            PositionTally::new(n).map(Self::Position)
        }
    }

    /// Counts one permutation.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        match self {
            Self::Permutation(tally) => tally.add(perm),
            Self::Position(tally) => tally.add(perm),
        }
    }

    /// How many permutations were counted.
    pub fn trials(&self) -> u64 {
        match self {
            Self::Permutation(tally) => tally.trials(),
            Self::Position(tally) => tally.trials(),
        }
    }

    /// The report of the tally inside.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        match self {
            Self::Permutation(tally) => tally.report(),
            Self::Position(tally) => tally.report(),
        }
    }
}

/// Counts the *relative* order of consecutive permutations, for the serial test.
///
/// For consecutive permutations `σ_t`, `σ_{t+1}` it counts `π_t = σ_{t+1} ∘ σ_t⁻¹`, read as
/// "the element at position `p` of shuffle `t` is found at position `π_t[p]` of shuffle `t+1`"
/// (written as a permutation: position `q` of `π_t` holds the position in shuffle `t` of the
/// element now at `q`). When the shuffles are independent and uniform, the `π_t` are
/// themselves independent and uniform (the map from `(σ_0, σ_1, …)` to `(σ_0, π_0, π_1, …)` is
/// a bijection), so the ordinary permutation test (`n <= 8`) or position test applies to them
/// with `trials - 1` samples. A generator whose consecutive outputs are related moves elements
/// from one shuffle to the next in a non-uniform way, which this sees even when every single
/// shuffle looks fair.
///
/// ```
/// use fairdeal_fairness::SerialTally;
/// let mut tally = SerialTally::new(3)?;
/// tally.add(&[2, 0, 1])?;
/// tally.add(&[2, 0, 1])?; // the same again: relative order is the identity
/// let report = tally.report()?;
/// assert_eq!(report.trials, 1);
/// assert_eq!(report.counts[0], 1); // rank 0 = identity
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SerialTally {
    n: usize,
    /// `position_in_previous[e]`: where element `e` was in the previous permutation.
    position_in_previous: Vec<usize>,
    has_previous: bool,
    relative: Vec<usize>,
    seen: Vec<bool>,
    inner: OrderTally,
}

impl SerialTally {
    /// An empty serial tally over permutations of `[0, n)`.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`.
    pub fn new(n: usize) -> Result<Self, FairnessError> {
        let inner = OrderTally::new(n)?;
        Ok(Self {
            n,
            position_in_previous: vec![0; n],
            has_previous: false,
            relative: vec![0; n],
            seen: vec![false; n],
            inner,
        })
    }

    /// Counts the relative order of `perm` to the previous permutation added (the first one
    /// only sets the reference).
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        check_permutation(perm, self.n, &mut self.seen)?;
        if self.has_previous {
            for (slot, &element) in self.relative.iter_mut().zip(perm) {
                *slot = self.position_in_previous[element];
            }
            self.inner.add(&self.relative)?;
        }
        for (position, &element) in perm.iter().enumerate() {
            self.position_in_previous[element] = position;
        }
        self.has_previous = true;
        Ok(())
    }

    /// How many consecutive pairs were counted (one less than the permutations added).
    pub fn trials(&self) -> u64 {
        self.inner.trials()
    }

    /// The permutation-test (`n <= 8`) or position-test report over the relative orders.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before two permutations were added.
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        self.inner.report()
    }
}

impl_tally!(OrderTally, SerialTally);
