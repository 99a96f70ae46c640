//! The wrong-range swap shuffle: O(N), plausible-looking, and unfair.

use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, Shuffler};

/// The self-description of [`Biased`]: name `"biased"`, O(N), **not** fair.
///
/// ```
/// assert_eq!(fairdeal_naive::BIASED_INFO.name, "biased");
/// assert!(!fairdeal_naive::BIASED_INFO.fair);
/// ```
pub const BIASED_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "biased",
    complexity: Complexity::Linear,
    fair: false,
    summary: "UNFAIR negative control: swap every position with one drawn from the whole range; \
              n^n paths cannot spread evenly over n! orders",
};

/// The classic mistake, kept as the negative control: `for i in 0..n: swap(i, random in [0, n))`.
///
/// Each of the `n^n` draw sequences is equally likely, but there are `n!` orders and `n!` does
/// not divide `n^n` for `n >= 3` (`n - 1` divides `n!` and shares no factor with `n^n`), so the
/// orders cannot all have the same number of paths. For `[1, 2, 3]`, the orders
/// `[1, 3, 2]`, `[2, 1, 3]` and `[2, 3, 1]` come up with probability 5/27 and the others with
/// 4/27. The fairness tests must reject it; it must never be used to shuffle anything real and
/// never be a default.
///
/// ```
/// use fairdeal_core::Shuffler;
/// use fairdeal_naive::Biased;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let mut v = [1, 2, 3];
/// Biased::new().shuffle(&mut v, &mut rng); // still a permutation, just not a fair one
/// v.sort();
/// assert_eq!(v, [1, 2, 3]);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Biased<S = Lemire> {
    sampler: S,
}

impl Biased {
    /// The biased shuffle with the exactly unbiased [`Lemire`] sampler (the bias is the
    /// algorithm's, not the sampler's).
    pub const fn new() -> Self {
        Self { sampler: Lemire }
    }
}

impl<S> Biased<S> {
    /// The biased shuffle drawing its indices through `sampler`.
    pub const fn with_sampler(sampler: S) -> Self {
        Self { sampler }
    }

    /// The sampler this shuffle draws indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }
}

impl<S: IndexSampler> Shuffler for Biased<S> {
    fn info(&self) -> AlgorithmInfo {
        BIASED_INFO
    }

    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        let n = data.len();
        for i in 0..n {
            // The bug, on purpose: the bound should be n - i (from i) or i + 1 (up to i).
            let j = self.sampler.index_below(rng, n);
            data.swap(i, j);
        }
    }
}
