//! The one trait every algorithm implements.

use alloc::vec::Vec;
use rand_core::Rng;

use crate::{AlgorithmInfo, ShuffleError};

/// A shuffling algorithm.
///
/// Implemented by every algorithm crate (`fairdeal-inplace`, `fairdeal-inside-out`,
/// `fairdeal-partial`, `fairdeal-naive`); the poker and blackjack engines, the CLI and the
/// benchmarks are generic over it. The RNG is any [`rand_core::Rng`], sized or not, so
/// `&mut dyn Rng`-style and concrete generators both work.
///
/// Only [`info`](Shuffler::info) and [`shuffle`](Shuffler::shuffle) are required. The two other
/// operations have correct defaults that algorithms override when they can do better:
/// `fairdeal-partial` shuffles a prefix in O(k), `fairdeal-inside-out` builds a `Vec` from an
/// iterator in one pass.
///
/// # Example
///
/// A minimal implementation (the classic Durstenfeld loop; the real one is
/// `fairdeal_inplace::Inplace`):
///
/// ```
/// use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, Shuffler};
///
/// struct Durstenfeld;
///
/// impl Shuffler for Durstenfeld {
///     fn info(&self) -> AlgorithmInfo {
///         AlgorithmInfo {
///             name: "durstenfeld",
///             complexity: Complexity::Linear,
///             fair: true,
///             summary: "swap each position from the end with a random earlier one",
///         }
///     }
///     fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
///         for i in (1..data.len()).rev() {
///             data.swap(i, Lemire.index_below(rng, i + 1));
///         }
///     }
/// }
///
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::StdRng::seed_from_u64(3);
/// let mut hand = [1, 2, 3, 4, 5];
/// Durstenfeld.shuffle_prefix(&mut hand, 2, &mut rng)?;      // the default: a whole shuffle
/// assert!(Durstenfeld.shuffle_prefix(&mut hand, 6, &mut rng).is_err()); // 6 > 5
/// let v = Durstenfeld.shuffled(0..10, &mut rng);
/// assert_eq!(v.len(), 10);
/// # Ok::<(), fairdeal_core::ShuffleError>(())
/// ```
pub trait Shuffler {
    /// The algorithm's self-description (name, complexity, fairness).
    fn info(&self) -> AlgorithmInfo;

    /// Reorders the whole slice. For a fair algorithm every permutation is equally likely.
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R);

    /// Makes `data[..k]` a uniformly random *ordered* sample of `k` distinct elements of `data`
    /// (the rest of the slice holds the other elements in some order).
    ///
    /// A slice left behind by a fair prefix shuffle is itself in a fair random order relative to
    /// any fixed starting order, so a dealer may call this again and again on the same deck
    /// without restoring it.
    ///
    /// The default shuffles the whole slice (O(N)); `fairdeal-partial` does k swaps (O(k)).
    ///
    /// # Errors
    ///
    /// [`ShuffleError::SampleTooLarge`] when `k > data.len()`; `data` is then left untouched.
    fn shuffle_prefix<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        k: usize,
        rng: &mut R,
    ) -> Result<(), ShuffleError> {
        check_prefix(k, data.len())?;
        self.shuffle(data, rng);
        Ok(())
    }

    /// Builds a shuffled `Vec` from any iterator, including one of unknown length.
    ///
    /// The default collects and then calls [`shuffle`](Shuffler::shuffle);
    /// `fairdeal-inside-out` places each element as it arrives.
    fn shuffled<T, I, R>(&self, items: I, rng: &mut R) -> Vec<T>
    where
        I: IntoIterator<Item = T>,
        R: Rng + ?Sized,
    {
        let mut out: Vec<T> = items.into_iter().collect();
        self.shuffle(&mut out, rng);
        out
    }
}

/// The shared argument check behind [`Shuffler::shuffle_prefix`]: `Ok` when `k <= len`.
///
/// ```
/// assert!(fairdeal_core::check_prefix(7, 52).is_ok());
/// assert!(fairdeal_core::check_prefix(53, 52).is_err());
/// ```
#[inline]
pub fn check_prefix(k: usize, len: usize) -> Result<(), ShuffleError> {
    if k > len {
        Err(ShuffleError::SampleTooLarge {
            requested: k,
            available: len,
        })
    } else {
        Ok(())
    }
}
