//! Batched dice: several bounded indices from one 64-bit random word.

use rand_core::Rng;

use crate::{IndexSampler, lemire_index_below};

/// Several exactly uniform indices from one 64-bit random word, after Brackett-Rozinsky and
/// Lemire, *Batched Ranged Random Integer Generation* (Software: Practice and Experience, 2024).
///
/// To roll dice with bounds `b₁, …, b_k` whose product `P` fits in 64 bits, take one random
/// word `x` and for each die multiply: the high half of `x · bᵢ` is the die, the low half is
/// the new `x`. That is `k` multiplications and one RNG call instead of `k` calls. A single
/// rejection check at the end makes the result exact: when the final low half is below
/// `2⁶⁴ mod P` the whole batch is redrawn, so every tuple of dice has exactly `⌊2⁶⁴ / P⌋`
/// words mapping to it (the test suite checks that claim exhaustively with 16-bit words). The
/// slow path costs one division and is taken with probability below `P / 2⁶⁴`.
///
/// # As a sampler
///
/// `Batched` is the default [`IndexSampler`] of the in-place, partial and inside-out shuffles.
/// Its [`for_each_index_descending`](IndexSampler::for_each_index_descending) and
/// [`for_each_index_ascending`](IndexSampler::for_each_index_ascending) choose the batch size
/// from the current bound: `k` dice while the bound `b` satisfies `b^k <= 2⁶⁰`, so that
/// rejections stay rare, and at most six, because each die's multiplication waits for the
/// previous one and longer chains were measured to be latency-bound. That is one die per word
/// above 2³⁰, two up to 2³⁰, three up to 2²⁰, four up to 2¹⁵, five up to 2¹² and six up to 2¹⁰.
/// A whole run of at most twelve bounds whose product fits is one batch: dealing 7 cards from
/// 52 takes one random word, shuffling the deck 9 instead of 51. A single [`index_below`](IndexSampler::index_below) is plain
/// [`Lemire`](crate::Lemire).
///
/// Batching changes which random words become which indices, so a shuffle with `Batched` is a
/// different (equally fair) permutation from the one [`Lemire`](crate::Lemire) gives for the
/// same seed. `Lemire` is the one-draw-per-step reference path; Java's and Python's samplers in
/// `fairdeal-rng` keep one draw per step because bit-exactness needs it.
///
/// # As a bounded-index API
///
/// [`Batched::indices_below`] rolls a fixed set of dice directly:
///
/// ```
/// use fairdeal_core::Batched;
/// use rand::SeedableRng;
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(11);
/// // Two dice and a coin from one random word.
/// let [d1, d2, coin] = Batched.indices_below(&mut rng, [6, 6, 2])?;
/// assert!(d1 < 6 && d2 < 6 && coin < 2);
///
/// assert!(Batched.indices_below(&mut rng, [1 << 40, 1 << 40]).is_err()); // 2^80 > 2^64
/// # Ok::<(), fairdeal_core::BatchError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Batched;

/// Why [`Batched::indices_below`] refused a set of bounds.
///
/// ```
/// use fairdeal_core::{BatchError, Batched};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
/// assert_eq!(
///     Batched.indices_below(&mut rng, [4, 0]),
///     Err(BatchError::ZeroBound { position: 1 })
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A bound is 0: there is no index below 0.
    #[error("bound number {position} is 0: there is no index below 0")]
    ZeroBound {
        /// Where the zero is in the bounds (0-based).
        position: usize,
    },
    /// The bounds multiply to more than `u64::MAX`, so one 64-bit word cannot hold the batch.
    #[error("the bounds multiply to more than 2^64 - 1; split them into smaller batches")]
    ProductTooLarge,
}

impl Batched {
    /// Rolls one exactly uniform, independent index below each of `bounds` from (usually) a
    /// single 64-bit random word.
    ///
    /// # Errors
    ///
    /// [`BatchError::ZeroBound`] if a bound is 0, [`BatchError::ProductTooLarge`] if the bounds
    /// multiply to more than `u64::MAX`. No random words are drawn then.
    pub fn indices_below<R: Rng + ?Sized, const K: usize>(
        &self,
        rng: &mut R,
        bounds: [usize; K],
    ) -> Result<[usize; K], BatchError> {
        let mut wide = [0u64; K];
        let mut product = 1u64;
        for (position, (&bound, slot)) in bounds.iter().zip(&mut wide).enumerate() {
            if bound == 0 {
                return Err(BatchError::ZeroBound { position });
            }
            *slot = bound as u64;
            product = product
                .checked_mul(bound as u64)
                .ok_or(BatchError::ProductTooLarge)?;
        }
        Ok(roll(|| rng.next_u64(), wide, product).map(|die| die as usize))
    }
}

/// `MAX_BOUND[k]` is the largest top bound at which a batch of `k` dice is used (`k` = 2..=12):
/// the largest `b` with `b^k <= 2^60`, so that the product of a batch stays at or below 2^60
/// and the division on the slow path is taken at most once in 16 batches (far less often for
/// most bounds). A single die (and the empty batch) fits any bound.
const MAX_BOUND: [u64; 13] = {
    let mut table = [u64::MAX; 13];
    let mut k = 2;
    while k < table.len() {
        table[k] = largest_kth_root_of_2_pow_60(k as u32);
        k += 1;
    }
    table
};

/// The largest `b` with `b^k <= 2^60` (`k >= 2`), found by bisection at compile time.
const fn largest_kth_root_of_2_pow_60(k: u32) -> u64 {
    const LIMIT: u128 = 1 << 60;
    // Invariant: lo^k <= 2^60 and (hi + 1)^k > 2^60; 2^30 is the answer for k = 2.
    let (mut lo, mut hi) = (1u128, 1u128 << 30);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        match mid.checked_pow(k) {
            Some(power) if power <= LIMIT => lo = mid,
            _ => hi = mid - 1,
        }
    }
    lo as u64
}

// `usize` bounds are handled as `u64`; no Rust target has a wider `usize`.
const _: () = assert!(usize::BITS <= u64::BITS);

impl IndexSampler for Batched {
    #[inline]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }

    /// Batches of up to six dice, the batch size growing as the bounds shrink, or one batch of
    /// up to twelve for a short run (see the type's docs). The calls to `f` are in the same order, with the same bounds, as the
    /// default's.
    #[inline]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let low = low.max(1) as u64;
        let mut top = high as u64;
        if top < low {
            return;
        }
        // A short run that fits in one word (a hand of cards) is one batch.
        let count = remaining(top, low);
        if count <= 12 && top <= MAX_BOUND[count as usize] {
            tail_down(rng, top, count, &mut f);
            return;
        }
        // Phase k rolls k dice per word while the top bound is above the next phase's limit;
        // the run starts in the phase its first bound allows, so a short run (a hand of cards)
        // does not walk through the phases for larger bounds.
        let first = dice_for(top);
        macro_rules! phases {
            ($($k:literal => $floor:expr),*) => {$(
                if first <= $k {
                    descend::<R, F, $k>(rng, &mut top, low, $floor, &mut f);
                }
            )*};
        }
        phases!(
            1 => MAX_BOUND[2], 2 => MAX_BOUND[3], 3 => MAX_BOUND[4], 4 => MAX_BOUND[5],
            5 => MAX_BOUND[6], 6 => 0
        );
        // Fewer bounds are left than the phase that stopped wanted: one last, smaller batch.
        // (Its product is below that phase's, so it fits.)
        tail_down(rng, top, remaining(top, low), &mut f);
    }

    /// The ascending counterpart: six dice per word while the bounds are at most 2¹⁰, then
    /// fewer as they grow.
    #[inline]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        let mut next = low.max(1) as u64;
        let high = high as u64;
        macro_rules! phases {
            ($($k:literal),*) => {$(
                if next > high {
                    return;
                }
                ascend::<R, F, $k>(rng, &mut next, high.min(MAX_BOUND[$k]), &mut f);
            )*};
        }
        phases!(6, 5, 4, 3, 2);
        ascend::<R, F, 1>(rng, &mut next, high, &mut f);
    }
}

/// Rolls the last `count` (at most 12) bounds of a descending run, `top` down to
/// `top - count + 1`, as one batch. The caller has checked that their product fits.
#[inline(always)]
fn tail_down<R, F>(rng: &mut R, top: u64, count: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    match count {
        1 => batch_down::<R, F, 1>(rng, top, f),
        2 => batch_down::<R, F, 2>(rng, top, f),
        3 => batch_down::<R, F, 3>(rng, top, f),
        4 => batch_down::<R, F, 4>(rng, top, f),
        5 => batch_down::<R, F, 5>(rng, top, f),
        6 => batch_down::<R, F, 6>(rng, top, f),
        7 => batch_down::<R, F, 7>(rng, top, f),
        8 => batch_down::<R, F, 8>(rng, top, f),
        9 => batch_down::<R, F, 9>(rng, top, f),
        10 => batch_down::<R, F, 10>(rng, top, f),
        11 => batch_down::<R, F, 11>(rng, top, f),
        12 => batch_down::<R, F, 12>(rng, top, f),
        // 0: nothing left.
        _ => {}
    }
}

/// The most dice a batch of a long run holds. Each die's multiplication waits for the previous
/// one's low half, so a batch is a chain of dependent multiplications. With chains of up to 12,
/// the 64-element wyrand shuffle of the criterion benches ran slower than with Lemire (see
/// docs/algorithms.md, "Batched dice"); a single short run still gains from one word.
const LONG_RUN_DICE: usize = 6;

/// How many dice a batch of a long run whose largest bound is `bound` may hold: the largest
/// `k <= LONG_RUN_DICE` with `bound <= MAX_BOUND[k]`, or 1. (No division: a `div` here cost a
/// measurable share of a 64-element shuffle.)
#[inline(always)]
fn dice_for(bound: u64) -> usize {
    let mut k = 1;
    while k < LONG_RUN_DICE && bound <= MAX_BOUND[k + 1] {
        k += 1;
    }
    k
}

/// How many bounds of a descending run are left: `top - low + 1`, where `top >= low - 1` and
/// `low >= 1` (so the count fits even for `top = u64::MAX`).
#[inline(always)]
fn remaining(top: u64, low: u64) -> u64 {
    top.wrapping_sub(low).wrapping_add(1)
}

/// Rolls batches of `K` dice for the bounds `top, top - 1, …` while `top > floor` and at least
/// `K` bounds down to `low` remain; `top` ends one below the last bound rolled.
#[inline(always)]
fn descend<R, F, const K: usize>(rng: &mut R, top: &mut u64, low: u64, floor: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    while *top > floor && remaining(*top, low) >= K as u64 {
        batch_down::<R, F, K>(rng, *top, f);
        *top -= K as u64;
    }
}

/// Rolls one batch of `K` dice for the bounds `top, top - 1, …, top - K + 1` and hands them to
/// `f` in that order.
#[inline(always)]
fn batch_down<R, F, const K: usize>(rng: &mut R, top: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    batch(
        rng,
        core::array::from_fn::<u64, K, _>(|i| top - i as u64),
        f,
    );
}

/// Rolls one batch of dice for `bounds` (whose product fits in a word) and hands
/// `(bound, die)` to `f` in order.
#[inline(always)]
fn batch<R, F, const K: usize>(rng: &mut R, bounds: [u64; K], f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    let product = bounds.iter().product();
    let dice = roll(|| rng.next_u64(), bounds, product);
    for (bound, die) in bounds.into_iter().zip(dice) {
        f(bound as usize, die as usize);
    }
}

/// Rolls batches of `K` dice for the bounds `next, next + 1, …` while the batch's largest bound
/// is at most `last`; `next` ends one above the last bound rolled.
#[inline(always)]
fn ascend<R, F, const K: usize>(rng: &mut R, next: &mut u64, last: u64, f: &mut F)
where
    R: Rng + ?Sized,
    F: FnMut(usize, usize),
{
    while *next <= last && last - *next >= K as u64 - 1 {
        let first = *next;
        batch(
            rng,
            core::array::from_fn::<u64, K, _>(|i| first + i as u64),
            f,
        );
        // Overflow means the bound u64::MAX itself was just rolled: the run is complete.
        match first.checked_add(K as u64) {
            Some(n) => *next = n,
            None => return,
        }
    }
}

/// An unsigned machine word and the two operations batched dice need. Implemented for `u64`
/// (the production word) and, in tests, for `u16`, where every word can be enumerated.
trait Word: Copy + Ord {
    const ZERO: Self;
    /// The full product `self · other`, as (high half, low half).
    fn widening_mul(self, other: Self) -> (Self, Self);
    /// `2^BITS mod self`, for `self >= 1`.
    fn wrap_rem(self) -> Self;
}

impl Word for u64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn widening_mul(self, other: Self) -> (Self, Self) {
        let full = u128::from(self) * u128::from(other);
        ((full >> 64) as u64, full as u64)
    }
    #[inline(always)]
    fn wrap_rem(self) -> Self {
        self.wrapping_neg() % self
    }
}

/// Splits the word `x` into one die per bound: each die is the high half of `x · bound`, and the
/// low half carries on to the next die. Returns the dice and the final low half.
#[inline(always)]
fn split<W: Word, const K: usize>(mut x: W, bounds: [W; K]) -> ([W; K], W) {
    let mut dice = [W::ZERO; K];
    for (die, bound) in dice.iter_mut().zip(bounds) {
        let (high, low) = x.widening_mul(bound);
        *die = high;
        x = low;
    }
    (dice, x)
}

/// Whether a batch whose final low half is `leftover` is kept. `product` is the product of the
/// batch's bounds (at least 1). The words whose leftover is below `2^BITS mod product` are
/// exactly the surplus that would make some tuples more likely; the cheap `leftover >= product`
/// test settles almost every batch without the division.
#[inline(always)]
fn accepted<W: Word>(leftover: W, product: W) -> bool {
    leftover >= product || leftover >= product.wrap_rem()
}

/// Rolls one exactly uniform batch: draws words from `word` until [`accepted`] keeps one.
/// `product` must equal the product of `bounds` (and so fit in a word).
#[inline(always)]
fn roll<W: Word, const K: usize>(
    mut word: impl FnMut() -> W,
    bounds: [W; K],
    product: W,
) -> [W; K] {
    loop {
        let (dice, leftover) = split(word(), bounds);
        if accepted(leftover, product) {
            return dice;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use rand::SeedableRng;
    use statrs::distribution::{ChiSquared, ContinuousCDF};

    impl Word for u16 {
        const ZERO: Self = 0;
        fn widening_mul(self, other: Self) -> (Self, Self) {
            let full = u32::from(self) * u32::from(other);
            ((full >> 16) as u16, full as u16)
        }
        fn wrap_rem(self) -> Self {
            self.wrapping_neg() % self
        }
    }

    /// How often each tuple of dice comes out of the 2^16 possible 16-bit words, with the
    /// rejection rule (`reject = true`) or without it. Tuples are numbered in mixed radix.
    fn tuple_counts<const K: usize>(bounds: [u16; K], reject: bool) -> Vec<u32> {
        let product: u16 = bounds.iter().product();
        let mut counts = vec![0u32; usize::from(product)];
        for word in 0..=u16::MAX {
            let (dice, leftover) = split(word, bounds);
            if reject && !accepted(leftover, product) {
                continue;
            }
            let mut index = 0usize;
            for (die, bound) in dice.iter().zip(bounds) {
                assert!(die < &bound, "die {die} not below {bound}");
                index = index * usize::from(bound) + usize::from(*die);
            }
            counts[index] += 1;
        }
        counts
    }

    fn all_equal(counts: &[u32]) -> bool {
        counts.iter().all(|&c| c == counts[0])
    }

    /// The exactness claim, checked on every 16-bit word: after rejection every tuple of dice is
    /// reached by exactly ⌊2^16 / P⌋ words. Without the rejection step the same check fails,
    /// so the test can tell an exact batch from a biased one.
    #[test]
    fn every_tuple_equally_often_over_all_16_bit_words() {
        fn check<const K: usize>(bounds: [u16; K]) {
            let product = u32::from(bounds.iter().product::<u16>());
            let counts = tuple_counts(bounds, true);
            assert!(all_equal(&counts), "bounds {bounds:?}: {counts:?}");
            assert_eq!(counts[0], (1 << 16) / product, "bounds {bounds:?}");
            if !(1u32 << 16).is_multiple_of(product) {
                assert!(
                    !all_equal(&tuple_counts(bounds, false)),
                    "bounds {bounds:?}: no bias without rejection?"
                );
            }
        }
        check([7]);
        check([65_535]);
        check([52, 51]);
        check([255, 256]);
        check([100, 99]);
        check([3, 5, 7]);
        check([40, 39, 38]);
        check([10, 9, 8, 7]);
        check([6, 5, 4, 3, 2]);
        check([2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]);
        check([1, 1, 1, 1000]);
        // Every pair of bounds with a product below 2^16 in a sweep of sizes.
        for a in (1..=300u16).step_by(7) {
            for b in (1..=200u16).step_by(11) {
                if u32::from(a) * u32::from(b) <= u32::from(u16::MAX) {
                    check([a, b]);
                    check([b, a]);
                }
            }
        }
    }

    #[test]
    fn indices_below_checks_its_bounds() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(3);
        assert_eq!(
            Batched.indices_below(&mut rng, [0]),
            Err(BatchError::ZeroBound { position: 0 })
        );
        assert_eq!(
            Batched.indices_below(&mut rng, [1 << 32, 1 << 32]),
            Err(BatchError::ProductTooLarge)
        );
        assert_eq!(Batched.indices_below(&mut rng, []), Ok([]));
        assert_eq!(Batched.indices_below(&mut rng, [1, 1]), Ok([0, 0]));
        let max = Batched.indices_below(&mut rng, [usize::MAX]).unwrap();
        assert!(max[0] < usize::MAX);
        for _ in 0..1000 {
            let [a, b, c] = Batched.indices_below(&mut rng, [52, 51, 50]).unwrap();
            assert!(a < 52 && b < 51 && c < 50);
        }
    }

    /// The bounds every batch-size limit is crossed at.
    const LIMITS: [u64; 11] = [
        MAX_BOUND[2],
        MAX_BOUND[3],
        MAX_BOUND[4],
        MAX_BOUND[5],
        MAX_BOUND[6],
        MAX_BOUND[7],
        MAX_BOUND[8],
        MAX_BOUND[9],
        MAX_BOUND[10],
        MAX_BOUND[11],
        MAX_BOUND[12],
    ];

    /// `dice_for` agrees with a plain scan of the limits for every bound near a limit or a power
    /// of two.
    #[test]
    fn dice_for_matches_the_limits() {
        let scan = |bound: u64| {
            (2..=LONG_RUN_DICE)
                .rev()
                .find(|&k| bound <= MAX_BOUND[k])
                .unwrap_or(1)
        };
        let mut bounds: Vec<u64> = (1..=2000).collect();
        for shift in 0..64 {
            let p = 1u64 << shift;
            bounds.extend([p - 1, p, p + 1]);
        }
        bounds.push(u64::MAX);
        for bound in bounds {
            assert_eq!(dice_for(bound), scan(bound), "bound {bound}");
        }
    }

    /// Each limit is the largest bound whose k-th power stays at or below 2^60.
    #[test]
    fn limits_are_the_largest_bounds_that_fit() {
        for k in 2..=12u32 {
            let limit = u128::from(MAX_BOUND[k as usize]);
            assert!(limit.pow(k) <= 1 << 60, "k = {k}");
            assert!((limit + 1).pow(k) > 1 << 60, "k = {k}");
        }
    }

    fn runs() -> Vec<(usize, usize)> {
        let mut runs: Vec<(usize, usize)> = LIMITS
            .iter()
            .map(|&l| (l as usize + 13, l as usize - 13))
            .collect();
        runs.push((usize::MAX, usize::MAX - 4));
        for high in 0..=40 {
            for low in 0..=high + 1 {
                runs.push((high, low));
            }
        }
        runs
    }

    /// The batched drivers call `f` for exactly the bounds the one-at-a-time default does, in
    /// the same order, and every index is below its bound: across each batch-size limit, near
    /// `usize::MAX`, and for every short run near the bottom (where the tail batches are).
    #[test]
    fn drivers_visit_every_bound_in_order() {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(9);
        for (high, low) in runs() {
            let mut seen = Vec::new();
            Batched.for_each_index_descending(&mut rng, high, low, |bound, j| {
                assert!(j < bound, "{j} not below {bound}");
                seen.push(bound);
            });
            let want: Vec<usize> = (low.max(1)..=high).rev().collect();
            assert_eq!(seen, want, "descending {high}..={low}");

            let mut seen = Vec::new();
            Batched.for_each_index_ascending(&mut rng, low, high, |bound, j| {
                assert!(j < bound, "{j} not below {bound}");
                seen.push(bound);
            });
            let want: Vec<usize> = (low.max(1)..=high).collect();
            assert_eq!(seen, want, "ascending {low}..={high}");
        }
        // From the top of the range: one die per word, and no overflow.
        let mut seen = Vec::new();
        Batched.for_each_index_ascending(&mut rng, usize::MAX - 2, usize::MAX, |bound, j| {
            assert!(j < bound);
            seen.push(bound);
        });
        assert_eq!(seen, [usize::MAX - 2, usize::MAX - 1, usize::MAX]);
    }

    /// A generator with its top bit stuck at 0: every die's high half is pushed down. The
    /// uniformity test below must reject it.
    struct TopBitStuck(rand_pcg::Pcg64);

    impl rand_core::TryRng for TopBitStuck {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.0.next_u32() >> 1)
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(self.0.next_u64() >> 1)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            self.0.fill_bytes(dst);
            Ok(())
        }
    }

    /// The smallest p-value of a chi-square test over 8 equal-probability bins (by the index's
    /// position in `[0, bound)`) for every bound of the run `high..=low`, and over 4×4 joint
    /// bins for each pair of neighbouring bounds (dice from the same word must be independent).
    fn min_p_value<R: Rng>(rng: &mut R, high: usize, low: usize, runs: usize) -> f64 {
        const BINS: usize = 8;
        const JOINT: usize = 4;
        let width = high - low + 1;
        let mut single = vec![[0u64; BINS]; width];
        let mut joint = vec![[0u64; JOINT * JOINT]; width - 1];
        let mut last = vec![0usize; width];
        for _ in 0..runs {
            Batched.for_each_index_descending(rng, high, low, |bound, j| {
                let slot = high - bound;
                // The bin of j: floor(j * BINS / bound), computed without overflow.
                let bin = ((j as u128 * BINS as u128) / bound as u128) as usize;
                single[slot][bin] += 1;
                last[slot] = ((j as u128 * JOINT as u128) / bound as u128) as usize;
            });
            for (slot, pair) in joint.iter_mut().enumerate() {
                pair[last[slot] * JOINT + last[slot + 1]] += 1;
            }
        }
        // Bin k of [0, bound) holds the j with floor(j·B/bound) = k: its exact probability.
        let probabilities = |bound: usize, bins: usize| -> Vec<f64> {
            (0..bins)
                .map(|k| {
                    let start = (k * bound).div_ceil(bins);
                    let end = ((k + 1) * bound).div_ceil(bins);
                    (end - start) as f64 / bound as f64
                })
                .collect()
        };
        let p_value = |counts: &[u64], probabilities: &[f64]| {
            let total: u64 = counts.iter().sum();
            let chi2: f64 = counts
                .iter()
                .zip(probabilities)
                .map(|(&c, &p)| {
                    let e = p * total as f64;
                    (c as f64 - e).powi(2) / e
                })
                .sum();
            let df = (counts.len() - 1) as f64;
            1.0 - ChiSquared::new(df).unwrap().cdf(chi2)
        };
        let mut min = 1.0f64;
        for (slot, counts) in single.iter().enumerate() {
            min = min.min(p_value(counts, &probabilities(high - slot, BINS)));
        }
        for (slot, counts) in joint.iter().enumerate() {
            let a = probabilities(high - slot, JOINT);
            let b = probabilities(high - slot - 1, JOINT);
            let both: Vec<f64> = a
                .iter()
                .flat_map(|x| b.iter().map(move |y| x * y))
                .collect();
            min = min.min(p_value(counts, &both));
        }
        min
    }

    /// Uniformity and pairwise independence of the dice on both sides of every batch-size limit
    /// and for a deck's bounds (52 down to 2). With ~40 bins tested per run, the threshold is
    /// 1e-7 per bin, so a correct sampler fails with probability below 1e-5 (and the seeds are
    /// fixed). The generator with its top bit stuck must be rejected by the same test.
    #[test]
    fn dice_are_uniform_across_batch_limits() {
        const RUNS: usize = 20_000;
        let mut cases: Vec<(usize, usize)> = LIMITS
            .iter()
            .map(|&l| (l as usize + 6, l as usize - 6))
            .collect();
        cases.push((52, 2));
        for (i, &(high, low)) in cases.iter().enumerate() {
            let mut rng = rand_pcg::Pcg64::seed_from_u64(100 + i as u64);
            let p = min_p_value(&mut rng, high, low, RUNS);
            assert!(p > 1e-7, "run {high}..={low}: p = {p}");

            let mut broken = TopBitStuck(rand_pcg::Pcg64::seed_from_u64(100 + i as u64));
            let p = min_p_value(&mut broken, high, low, RUNS);
            assert!(
                p < 1e-9,
                "stuck top bit not detected on {high}..={low}: p = {p}"
            );
        }
    }
}
