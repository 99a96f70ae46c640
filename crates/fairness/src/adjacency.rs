//! The adjacency test: which element comes right after which?

use fairdeal_core::{Rng, Shuffler};

use crate::position::MAX_POSITION_N;
use crate::stats::chi_square_p_value;
use crate::tally::{check_permutation, check_size, impl_tally, tally_shuffles};
use crate::{FairnessError, FairnessReport, TestKind};

/// Shuffles `[0, n)` `trials` times and tests how often each element `b` comes right after
/// each element `a`, against a uniform shuffle.
///
/// Each shuffle is read as a cycle — the last element is followed by the first — so that
/// every element has exactly one successor and one predecessor. A uniform permutation read
/// this way is a uniform random `n`-cycle (each cycle comes from exactly `n` rotations), in
/// which `b` follows `a` with probability `1/(n - 1)` for every `b ≠ a`. `counts[a * n + b]`
/// holds the `n × n` successor matrix (zero diagonal).
///
/// # The statistic
///
/// Row and column totals are fixed (every element has one successor and one predecessor per
/// shuffle), so the deviations `D = O - trials/(n - 1)` live in a space of dimension
/// `n² - 3n + 1`, which splits in two parts that a uniform cycle treats differently:
///
/// * the symmetric part `S_ab = D_ab + D_ba` ("are `a` and `b` neighbours?"), dimension
///   `n(n - 3)/2`, per-shuffle variance `2/(n - 1)` per dimension;
/// * the antisymmetric part `A_ab = D_ab - D_ba` ("does `a` come before `b` more often than
///   after?"), dimension `(n - 1)(n - 2)/2`, per-shuffle variance `2n/((n - 1)(n - 2))`.
///
/// Each part is a single irreducible representation of the symmetric group, so within it the
/// covariance is a multiple of the identity (Schur's lemma) and the variances above follow from
/// `E[Σ S²]` and `E[Σ A²]` of one cycle. The statistic
/// `chi2 = (n - 1)/(2·trials) Σ_{a<b} S_ab² + (n - 1)(n - 2)/(2n·trials) Σ_{a<b} A_ab²`
/// then follows `χ²(n² - 3n + 1)` in the limit; the crate's calibration test checks its mean.
///
/// This sees what the position test cannot: a shuffle that keeps neighbours together (too few
/// passes of a riffle, a sort with an inconsistent comparator) or that reverses runs. Keep
/// `trials >= 5(n - 1)` so each cell expects at least 5.
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `3 <= n <= 1024`, [`FairnessError::ZeroTrials`],
/// [`FairnessError::TooManyTrials`] when `trials * n` overflows a `u64`.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{adjacency_test, PASS_THRESHOLD};
/// use fairdeal_inplace::Inplace;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
/// let report = adjacency_test(&Inplace::new(), 52, 5_000, &mut rng)?;
/// assert_eq!(report.df, 52 * 52 - 3 * 52 + 1);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn adjacency_test<S, R>(
    shuffler: &S,
    n: usize,
    trials: u64,
    rng: &mut R,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng + ?Sized,
{
    let mut tally = AdjacencyTally::new(n)?;
    tally_shuffles(&mut tally, n, trials, |deck| {
        shuffler.shuffle(deck, rng);
        Ok(())
    })?;
    tally.report()
}

/// The adjacency statistic of an `n × n` cyclic successor matrix from `trials` permutations
/// (`n >= 3`, `trials >= 1`, `counts.len() == n²`: the caller checks).
pub(crate) fn adjacency_report(n: usize, trials: u64, counts: Vec<u64>) -> FairnessReport {
    let t = trials as f64;
    let nf = n as f64;
    let expected = t / (nf - 1.0);
    let mut symmetric = 0.0;
    let mut antisymmetric = 0.0;
    for a in 0..n {
        for b in a + 1..n {
            let ab = counts[a * n + b] as f64;
            let ba = counts[b * n + a] as f64;
            let s = ab + ba - 2.0 * expected;
            let d = ab - ba;
            symmetric += s * s;
            antisymmetric += d * d;
        }
    }
    let chi2 = (nf - 1.0) / (2.0 * t) * symmetric
        + (nf - 1.0) * (nf - 2.0) / (2.0 * nf * t) * antisymmetric;
    let df = (n * n - 3 * n + 1) as u64;
    FairnessReport {
        test: TestKind::Adjacency,
        n,
        trials,
        counts,
        chi2,
        df,
        p_value: chi_square_p_value(chi2, df),
    }
}

/// Counts which element follows which, reading each permutation as a cycle (the last element
/// is followed by the first), for the adjacency test (`3 <= n <= 1024`).
///
/// `counts[a * n + b]` is how often `b` came right after `a`; the diagonal stays 0. See
/// [`adjacency_test`] for the statistic.
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

impl_tally!(AdjacencyTally);
