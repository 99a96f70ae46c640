//! A partial shuffle of a virtual range that is never allocated.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use fairdeal_core::{IndexSampler, Rng};

/// Why [`sample_range`] could not produce a sample.
///
/// ```
/// use fairdeal_partial::{SampleRangeError, sample_range};
/// use fairdeal_core::Lemire;
/// use rand::SeedableRng;
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let err = sample_range(9, 3, 1, &mut rng, &Lemire).unwrap_err();
/// assert_eq!(err, SampleRangeError::Reversed { lo: 9, hi: 3 });
/// assert_eq!(err.to_string(), "reversed range 9-3: the low end exceeds the high end");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum SampleRangeError {
    /// `hi < lo`.
    #[error("reversed range {lo}-{hi}: the low end exceeds the high end")]
    Reversed {
        /// The given low end.
        lo: u64,
        /// The given high end.
        hi: u64,
    },
    /// More numbers were requested than the range holds.
    #[error("cannot take {requested} numbers from a range of {available}")]
    SampleTooLarge {
        /// How many numbers were asked for (k).
        requested: usize,
        /// How many the range holds, `hi - lo + 1` (up to `2^64`, hence `u128`).
        available: u128,
    },
    /// The output vector of `requested` numbers could not be allocated.
    #[error("cannot allocate room for {requested} numbers")]
    OutOfMemory {
        /// How many numbers were asked for (k).
        requested: usize,
    },
}

/// `k` distinct numbers from `lo..=hi`, uniformly at random and in random order, without
/// allocating the range.
///
/// This is a sparse (virtual) partial Fisher-Yates shuffle: the range is treated as an array
/// `a[p] = lo + p`, and only the slots moved by a swap are stored in a `BTreeMap`. The sequence
/// of draws is the one [`Partial`](crate::Partial) makes (bounds `N, N-1, …` with
/// `N = hi - lo + 1`), so the result is *exactly* what `Partial::shuffle_prefix` leaves in the
/// first `k` slots of the materialized vector `lo..=hi` given the same RNG state and sampler.
/// Costs O(k log k) time and O(k) memory, whatever the size of the range; `0..=u64::MAX`
/// (2^64 numbers) works.
///
/// Bounds that do not fit in `usize` (only a range of exactly `2^64` numbers on 64-bit
/// targets, whose first bound is `2^64`) are drawn directly from the RNG's 64-bit output,
/// which is exactly uniform over `[0, 2^64)`; on 32-bit targets bounds above `2^32` use a
/// 64-bit Lemire draw.
///
/// # Errors
///
/// * [`SampleRangeError::Reversed`] if `hi < lo`;
/// * [`SampleRangeError::SampleTooLarge`] if `k > hi - lo + 1`;
/// * [`SampleRangeError::OutOfMemory`] if the output of `k` numbers cannot be allocated.
///
/// ```
/// use fairdeal_core::{Batched, Shuffler};
/// use fairdeal_partial::{Partial, sample_range};
/// use rand::SeedableRng;
///
/// // On a small range, the sparse result equals the materialized partial shuffle with the same
/// // sampler (`Partial::new()` uses `Batched`).
/// let sparse = sample_range(10, 29, 4, &mut rand_pcg::Pcg64::seed_from_u64(5), &Batched)?;
/// let mut dense: Vec<u64> = (10..=29).collect();
/// Partial::new().shuffle_prefix(&mut dense, 4, &mut rand_pcg::Pcg64::seed_from_u64(5))?;
/// assert_eq!(sparse, dense[..4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sample_range<R, S>(
    lo: u64,
    hi: u64,
    k: usize,
    rng: &mut R,
    sampler: &S,
) -> Result<Vec<u64>, SampleRangeError>
where
    R: Rng + ?Sized,
    S: IndexSampler + ?Sized,
{
    if hi < lo {
        return Err(SampleRangeError::Reversed { lo, hi });
    }
    // Up to 2^64 numbers: one more than u64 can count.
    let n = u128::from(hi - lo) + 1;
    if k as u128 > n {
        return Err(SampleRangeError::SampleTooLarge {
            requested: k,
            available: n,
        });
    }
    let mut out = Vec::new();
    out.try_reserve_exact(k)
        .map_err(|_| SampleRangeError::OutOfMemory { requested: k })?;

    let mut deck = VirtualDeck {
        displaced: BTreeMap::new(),
        next: 0,
        lo,
        out,
    };
    // The bounds are n, n - 1, …, n - k + 1, as in `Partial`. A bound that does not fit in
    // `usize` (only 2^64, the first bound of the full u64 range, on 64-bit targets) is drawn on
    // its own; the rest go through the sampler's run, batched or not, exactly as `Partial`
    // hands them over.
    while deck.out.len() < k {
        let left = n - u128::from(deck.next);
        if usize::try_from(left).is_ok() {
            break;
        }
        let j = draw_wide(rng, left);
        deck.deal(j);
    }
    if deck.out.len() < k {
        // Fits: `left <= usize::MAX` was just checked, and k <= n.
        let high = (n - u128::from(deck.next)) as usize;
        let lowest = (n - k as u128 + 1).max(2) as usize;
        sampler.for_each_index_descending(rng, high, lowest, |_, j| deck.deal(j as u64));
        // The same rule as `Partial`: no draw when only the last slot itself is left.
        if deck.out.len() < k {
            deck.deal(0);
        }
    }
    Ok(deck.out)
}

/// The state of a partial shuffle over the virtual array `0..n` of offsets from `lo`.
struct VirtualDeck {
    /// `displaced[p]` = the offset now at slot p, for slots a swap has touched and that may
    /// still be read. Untouched slots hold their own offset.
    displaced: BTreeMap<u64, u64>,
    /// The slot dealt next (the number dealt so far).
    next: u64,
    lo: u64,
    out: Vec<u64>,
}

impl VirtualDeck {
    /// Deals slot `next` after swapping it with slot `next + j`.
    fn deal(&mut self, j: u64) {
        let i = self.next;
        let j = i + j;
        // Slot i is never read again once it is dealt, so its entry can go.
        let at_i = self.displaced.remove(&i).unwrap_or(i);
        let dealt = if j == i {
            at_i
        } else {
            self.displaced.insert(j, at_i).unwrap_or(j)
        };
        // dealt <= hi - lo, so this cannot overflow.
        self.out.push(self.lo + dealt);
        self.next += 1;
    }
}

/// A uniform value in `[0, bound)` for a bound above `usize::MAX` (and at most `2^64`).
fn draw_wide<R: Rng + ?Sized>(rng: &mut R, bound: u128) -> u64 {
    if bound == 1 << 64 {
        rng.next_u64()
    } else {
        // Only reachable where usize is narrower than 64 bits.
        lemire_u64(rng, bound as u64)
    }
}

/// Lemire's multiply-and-reject over 64-bit words: exactly uniform in `[0, bound)`, `bound >= 1`.
fn lemire_u64<R: Rng + ?Sized>(rng: &mut R, bound: u64) -> u64 {
    let mut product = u128::from(rng.next_u64()) * u128::from(bound);
    if (product as u64) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (product as u64) < threshold {
            product = u128::from(rng.next_u64()) * u128::from(bound);
        }
    }
    (product >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn wide_lemire_stays_in_range() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        for bound in [1u64, 2, 3, (1 << 32) + 1, u64::MAX / 3, u64::MAX] {
            for _ in 0..1000 {
                assert!(lemire_u64(&mut rng, bound) < bound);
            }
        }
    }

    /// Hands out the given words in order and panics when they run out, so a test also pins
    /// how many words a draw consumed.
    struct Words<'a>(core::iter::Copied<core::slice::Iter<'a, u64>>);

    impl fairdeal_core::rand_core::TryRng for Words<'_> {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            unreachable!("the wide draw takes 64-bit words")
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(self
                .0
                .next()
                .expect("the draw took more words than expected"))
        }
        fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Self::Error> {
            unreachable!("the wide draw takes 64-bit words")
        }
    }

    fn wide(words: &[u64], bound: u64) -> (u64, usize) {
        let mut rng = Words(words.iter().copied());
        let value = lemire_u64(&mut rng, bound);
        (value, rng.0.len())
    }

    /// Known answers for bound 3, where `2^64 mod 3 = 1`: the high half of `word · 3` is the
    /// value, and only a word whose low half is 0 is rejected. `0xAAAA_AAAA_AAAA_AAAB · 3 =
    /// 2^65 + 1` sits exactly on the threshold and must be kept. (Unreachable through
    /// `sample_range` on 64-bit targets, hence tested here.)
    #[test]
    fn wide_lemire_known_answers() {
        assert_eq!(wide(&[u64::MAX], 3), (2, 0));
        assert_eq!(wide(&[1 << 63], 3), (1, 0));
        assert_eq!(wide(&[u64::MAX / 3], 3), (0, 0));
        // Low half 0 < threshold 1: redrawn.
        assert_eq!(wide(&[0, u64::MAX], 3), (2, 0));
        // Low half 1 = threshold: kept, the next word is not touched.
        assert_eq!(wide(&[0xAAAA_AAAA_AAAA_AAAB, 0], 3), (2, 1));
        // Bound 2^63 + 1: 2^64 mod it is 2^63 - 1. Word 2 leaves a low half of 2 (redrawn);
        // u64::MAX leaves exactly 2^63 - 1 (kept).
        let bound = (1 << 63) + 1;
        assert_eq!(wide(&[2, 5], bound), (2, 0));
        assert_eq!(wide(&[u64::MAX], bound), (bound - 1, 0));
    }

    #[test]
    fn draws_below_two_to_the_64_use_the_full_word() {
        let mut a = rand_pcg::Pcg64::seed_from_u64(9);
        let mut b = a.clone();
        assert_eq!(draw_wide(&mut a, 1 << 64), b.next_u64());
    }
}
