//! The first-blackjack-program shuffle: remove a random card, append it to a new pile.

use alloc::vec::Vec;

use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, Shuffler};

use crate::permute::apply_order;

/// The self-description of [`Naive`]: name `"naive"`, O(N²), fair.
///
/// ```
/// use fairdeal_core::Complexity;
/// assert_eq!(fairdeal_naive::NAIVE_INFO.name, "naive");
/// assert_eq!(fairdeal_naive::NAIVE_INFO.complexity, Complexity::Quadratic);
/// ```
pub const NAIVE_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "naive",
    complexity: Complexity::Quadratic,
    fair: true,
    summary: "pick a random remaining element, remove it from the list (shifting the rest) and \
              append it to the output: fair but O(N^2)",
};

/// The naive O(N²) shuffle, drawing indices through the sampler `S`.
///
/// While more than one element is left, draw `i` uniform in `[0, left)`, remove element `i`
/// from the list of remaining ones (shifting everything after it) and append it to the output;
/// the last element follows without a draw. The bounds drawn are `n, n-1, …, 2`, each choice is
/// uniform among the elements left, so all `n!` orders have probability `1/n!`.
///
/// ```
/// use fairdeal_core::Shuffler;
/// use fairdeal_naive::Naive;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(21);
/// let hand = Naive::new().shuffled(["2c", "7d", "Qh", "As"], &mut rng);
/// assert_eq!(hand.len(), 4);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Naive<S = Lemire> {
    sampler: S,
}

impl Naive {
    /// The shuffle with the default, exactly unbiased [`Lemire`] sampler.
    pub const fn new() -> Self {
        Self { sampler: Lemire }
    }
}

impl<S> Naive<S> {
    /// The shuffle drawing its indices through `sampler`.
    pub const fn with_sampler(sampler: S) -> Self {
        Self { sampler }
    }

    /// The sampler this shuffle draws indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }
}

impl<S: IndexSampler> Naive<S> {
    /// Empties `left` in random order into `out`: the naive algorithm proper.
    fn drain_randomly<U, R: Rng + ?Sized>(&self, mut left: Vec<U>, out: &mut Vec<U>, rng: &mut R) {
        while left.len() > 1 {
            let pick = self.sampler.index_below(rng, left.len());
            // O(left.len() - pick) moves: the quadratic cost is here, deliberately.
            out.push(left.remove(pick));
        }
        out.extend(left.pop());
    }
}

impl<S: IndexSampler> Shuffler for Naive<S> {
    fn info(&self) -> AlgorithmInfo {
        NAIVE_INFO
    }

    /// Removes random *positions* from the list of positions left, then moves the elements into
    /// that order (the elements of a slice cannot be taken out without `Clone`).
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        if data.len() < 2 {
            return;
        }
        let positions: Vec<usize> = (0..data.len()).collect();
        let mut order = Vec::with_capacity(data.len());
        self.drain_randomly(positions, &mut order, rng);
        apply_order(data, &mut order);
    }

    /// Removes random *elements* from the collected input and appends them to the output: the
    /// literal naive program. Same choices, hence same order, as [`shuffle`](Self::shuffle).
    fn shuffled<T, I, R>(&self, items: I, rng: &mut R) -> Vec<T>
    where
        I: IntoIterator<Item = T>,
        R: Rng + ?Sized,
    {
        let left: Vec<T> = items.into_iter().collect();
        let mut out = Vec::with_capacity(left.len());
        self.drain_randomly(left, &mut out, rng);
        out
    }
}
