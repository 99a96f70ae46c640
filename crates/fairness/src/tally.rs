//! Streaming counters: feed permutations one at a time, ask for the report at the end.
//!
//! The shuffling tests ([`permutation_test`](crate::permutation_test) and friends) produce their
//! permutations themselves; these counters take permutations from anywhere — a file written by
//! another program (`fairdeal audit`), the first shuffle of each of many seeds, the relative
//! order of consecutive shuffles — in O(n) memory per permutation and O(cells) in total.

use crate::adjacency::adjacency_report;
use crate::permutation::{MAX_PERMUTATION_N, MIN_PERMUTATION_N, permutation_report};
use crate::position::{MAX_POSITION_N, MIN_POSITION_N, position_report};
use crate::rank::{factorial, lehmer_rank};
use crate::{FairnessError, FairnessReport, TestKind};

/// Checks that `perm` is an ordering of `[0, n)`, reusing `seen` (cleared here) as scratch.
fn check_permutation(perm: &[usize], n: usize, seen: &mut [bool]) -> Result<(), FairnessError> {
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

fn check_size(test: TestKind, n: usize, min: usize, max: usize) -> Result<(), FairnessError> {
    if (min..=max).contains(&n) {
        Ok(())
    } else {
        Err(FairnessError::SizeOutOfRange { test, n, min, max })
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
        Ok(Self {
            n,
            trials: 0,
            counts: vec![0; n * n],
            seen: vec![false; n],
        })
    }

    /// Counts one permutation: element `perm[p]` landed at position `p`.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`; nothing is
    /// counted then.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        check_permutation(perm, self.n, &mut self.seen)?;
        for (position, &element) in perm.iter().enumerate() {
            self.counts[element * self.n + position] += 1;
        }
        self.trials += 1;
        Ok(())
    }

    /// How many permutations were counted.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// The position test's report (`(n - 1)²` degrees of freedom).
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        if self.trials == 0 {
            return Err(FairnessError::ZeroTrials);
        }
        Ok(position_report(
            TestKind::Position,
            self.n,
            self.n,
            self.trials,
            self.counts.clone(),
        ))
    }
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

/// Counts which element follows which, reading each permutation as a cycle (the last element
/// is followed by the first), for the adjacency test (`3 <= n <= 1024`).
///
/// `counts[a * n + b]` is how often `b` came right after `a`; the diagonal stays 0. See
/// [`adjacency_test`](crate::adjacency_test) for the statistic.
///
/// ```
/// use fairdeal_fairness::AdjacencyTally;
/// let mut tally = AdjacencyTally::new(3)?;
/// tally.add(&[0, 1, 2])?; // 0→1, 1→2, 2→0
/// assert_eq!(tally.report()?.counts, [0, 1, 0, 0, 0, 1, 1, 0, 0]);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
#[derive(Debug, Clone)]
pub struct AdjacencyTally {
    n: usize,
    trials: u64,
    counts: Vec<u64>,
    seen: Vec<bool>,
}

/// The smallest `n` the adjacency test accepts: below 3 every cycle is the same.
pub const MIN_ADJACENCY_N: usize = 3;

impl AdjacencyTally {
    /// An empty `n × n` successor tally.
    ///
    /// # Errors
    ///
    /// [`FairnessError::SizeOutOfRange`] unless `3 <= n <= 1024`.
    pub fn new(n: usize) -> Result<Self, FairnessError> {
        check_size(TestKind::Adjacency, n, MIN_ADJACENCY_N, MAX_POSITION_N)?;
        Ok(Self {
            n,
            trials: 0,
            counts: vec![0; n * n],
            seen: vec![false; n],
        })
    }

    /// Counts the `n` (cyclic) successions of one permutation.
    ///
    /// # Errors
    ///
    /// [`FairnessError::NotAPermutation`] unless `perm` is an ordering of `[0, n)`.
    pub fn add(&mut self, perm: &[usize]) -> Result<(), FairnessError> {
        check_permutation(perm, self.n, &mut self.seen)?;
        let mut previous = perm[self.n - 1];
        for &next in perm {
            self.counts[previous * self.n + next] += 1;
            previous = next;
        }
        self.trials += 1;
        Ok(())
    }

    /// How many permutations were counted.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// The adjacency test's report.
    ///
    /// # Errors
    ///
    /// [`FairnessError::ZeroTrials`] before the first [`add`](Self::add).
    pub fn report(&self) -> Result<FairnessReport, FairnessError> {
        if self.trials == 0 {
            return Err(FairnessError::ZeroTrials);
        }
        Ok(adjacency_report(self.n, self.trials, self.counts.clone()))
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
