//! Shuffling by sorting on random keys.

use alloc::vec::Vec;

use fairdeal_core::{AlgorithmInfo, Complexity, Rng, Shuffler};

use crate::permute::apply_order;

/// The self-description of [`SortKey`]: name `"sort-key"`, O(N log N), fair up to key
/// collisions.
///
/// ```
/// use fairdeal_core::Complexity;
/// assert_eq!(fairdeal_naive::SORT_KEY_INFO.name, "sort-key");
/// assert_eq!(fairdeal_naive::SORT_KEY_INFO.complexity, Complexity::Linearithmic);
/// ```
pub const SORT_KEY_INFO: AlgorithmInfo = AlgorithmInfo {
    name: "sort-key",
    complexity: Complexity::Linearithmic,
    fair: true,
    summary: "tag every element with a random 64-bit key and sort by it: fair unless two keys \
              collide (probability about N^2/2^65)",
};

/// Shuffle by sorting on random 64-bit keys: one `rng.next_u64()` per element, then an
/// O(N log N) sort of `(key, position)` pairs, then the elements are moved into key order.
///
/// **Fairness.** When the `n` keys are distinct, their relative order is a uniformly random
/// permutation (every ordering of `n` i.i.d. continuous-like keys is equally likely), so the
/// shuffle is fair. When two keys collide, the tie is broken by original position, which
/// favours keeping those two elements in their original order. The chance of any collision
/// among `n` keys is at most `n(n-1)/2 / 2^64 ≈ n² / 2^65`: about `7·10⁻¹⁷` for a 52-card deck,
/// `3·10⁻⁸` for a million elements. It is reported as fair, with that caveat. It draws raw
/// words, not indices, so it takes no sampler.
///
/// ```
/// use fairdeal_core::Shuffler;
/// use fairdeal_naive::SortKey;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
/// let mut v: Vec<u16> = (0..1000).collect();
/// SortKey::new().shuffle(&mut v, &mut rng);
/// v.sort();
/// assert_eq!(v, (0..1000).collect::<Vec<u16>>());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SortKey;

impl SortKey {
    /// The sort-by-random-key shuffle.
    pub const fn new() -> Self {
        Self
    }
}

impl Shuffler for SortKey {
    fn info(&self) -> AlgorithmInfo {
        SORT_KEY_INFO
    }

    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        if data.len() < 2 {
            return;
        }
        let mut keyed: Vec<(u64, usize)> = (0..data.len()).map(|i| (rng.next_u64(), i)).collect();
        // Ties (equal keys) fall back to the original position: deterministic, and the only
        // source of bias.
        keyed.sort_unstable();
        let mut order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
        apply_order(data, &mut order);
    }
}
