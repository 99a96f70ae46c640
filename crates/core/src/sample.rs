//! Drawing "an index in `[0, n)`" from raw random bits.

use rand_core::Rng;

/// How an algorithm turns an RNG's raw output into a uniformly distributed index.
///
/// Every fair algorithm needs exactly one primitive: an index in `[0, bound)` with every value
/// equally likely. Taking it from a trait instead of hard-coding it lets a backend reproduce
/// another language draw for draw: `java.util.Random::nextInt(bound)` and CPython's
/// `_randbelow(n)` consume bits in their own way, and an algorithm parameterised with their
/// sampler makes exactly the calls those languages make.
///
/// Only [`index_below`](IndexSampler::index_below) must be written; the run methods default to
/// one `index_below` call per bound. The algorithms' default sampler is [`Batched`](crate::Batched)
/// (several indices per random word); [`Lemire`] is the one-draw-per-index reference.
///
/// # Contract
///
/// `index_below(rng, bound)` is only called with `bound >= 1` and must return a value in
/// `[0, bound)`. A fair sampler returns each value with probability exactly `1 / bound` when the
/// RNG's bits are uniform.
pub trait IndexSampler {
    /// Returns an index in `[0, bound)`. `bound` is at least 1.
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize;

    /// Which way a Fisher-Yates shuffle of `len` elements runs with this sampler: the order in
    /// which [`fairdeal-inplace`](https://docs.rs/fairdeal-inplace) asks for its indices.
    ///
    /// The default is [`Order::fastest`]: front to back up to [`Order::FORWARD_MAX`] elements,
    /// back to front above. A sampler that reproduces another language's shuffle draw for draw
    /// returns that language's order for every length (Java's `Collections.shuffle` and
    /// CPython's `random.shuffle` both run [`Order::Backward`]).
    ///
    /// ```
    /// use fairdeal_core::{IndexSampler, Lemire, Order};
    /// assert_eq!(Lemire.shuffle_order(52), Order::Forward);
    /// assert_eq!(Lemire.shuffle_order(1 << 20), Order::Backward);
    /// ```
    #[inline]
    fn shuffle_order(&self, len: usize) -> Order {
        Order::fastest(len)
    }

    /// Draws one index below each bound of the run `high, high - 1, …, low` (in that order) and
    /// calls `f(bound, index)` for each. Nothing happens when `high < low`; a `low` of 0 is
    /// treated as 1.
    ///
    /// This is the loop of every Fisher-Yates variant, handed to the sampler so that it can
    /// draw several indices at once ([`Batched`](crate::Batched)). The default makes one
    /// [`index_below`](IndexSampler::index_below) call per bound, in order, which is what a
    /// sampler reproducing another language draw for draw needs.
    ///
    /// ```
    /// use fairdeal_core::{IndexSampler, Lemire};
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    /// let mut deck = [0u8, 1, 2, 3, 4, 5];
    /// // Durstenfeld's shuffle: swap position bound - 1 with an index below bound.
    /// Lemire.for_each_index_descending(&mut rng, deck.len(), 2, |bound, j| deck.swap(bound - 1, j));
    /// ```
    #[inline]
    fn for_each_index_descending<R, F>(&self, rng: &mut R, high: usize, low: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        // An exclusive range shifted by one: `RangeInclusive` costs an extra flag check per
        // step, and `high + 1` could overflow.
        for below in (low.max(1) - 1..high).rev() {
            let bound = below + 1;
            f(bound, self.index_below(rng, bound));
        }
    }

    /// Draws one index below each bound of the run `low, low + 1, …, high` (in that order) and
    /// calls `f(bound, index)` for each: the loop of the inside-out shuffle. Nothing happens
    /// when `high < low`; a `low` of 0 is treated as 1. The default makes one
    /// [`index_below`](IndexSampler::index_below) call per bound.
    #[inline]
    fn for_each_index_ascending<R, F>(&self, rng: &mut R, low: usize, high: usize, mut f: F)
    where
        R: Rng + ?Sized,
        F: FnMut(usize, usize),
    {
        for below in low.max(1) - 1..high {
            let bound = below + 1;
            f(bound, self.index_below(rng, bound));
        }
    }

    /// Fisher-Yates on `data`: for each bound `b` of the run from `low` up to `data.len()`
    /// (ascending for [`Order::Forward`], descending for [`Order::Backward`]), swaps
    /// `data[b - 1]` with `data[j]`, `j` this sampler's index below `b`. Nothing happens when
    /// `data.len() < low`; a `low` of 0 is treated as 1.
    ///
    /// The default runs [`for_each_index_ascending`](IndexSampler::for_each_index_ascending) or
    /// [`for_each_index_descending`](IndexSampler::for_each_index_descending) with checked
    /// swaps, which is exactly what any override must do. [`Batched`](crate::Batched) overrides
    /// it with swaps that skip the bounds checks its own drivers make redundant.
    ///
    /// ```
    /// use fairdeal_core::{IndexSampler, Lemire, Order};
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    /// let mut deck = [0u8, 1, 2, 3, 4, 5];
    /// Lemire.swap_run(&mut rng, &mut deck, 2, Order::Backward); // Durstenfeld's shuffle
    /// deck.sort();
    /// assert_eq!(deck, [0, 1, 2, 3, 4, 5]);
    /// ```
    #[inline]
    fn swap_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize, order: Order) {
        let n = data.len();
        match order {
            Order::Forward => {
                self.for_each_index_ascending(rng, low, n, |bound, j| data.swap(bound - 1, j));
            }
            Order::Backward => {
                self.for_each_index_descending(rng, n, low, |bound, j| data.swap(bound - 1, j));
            }
        }
    }

    /// The partial Fisher-Yates that deals from the front: for each bound `b` from
    /// `data.len()` down to `low`, swaps `data[n - b]` with `data[n - b + j]`, `j` this
    /// sampler's index below `b`, so each position from the front receives a uniform pick of
    /// the elements not yet dealt ([`fairdeal-partial`](https://docs.rs/fairdeal-partial)'s
    /// loop; `low = n - k + 1` deals `k`). Nothing happens when `data.len() < low`; a `low` of
    /// 0 is treated as 1.
    ///
    /// The default runs
    /// [`for_each_index_descending`](IndexSampler::for_each_index_descending) with checked
    /// swaps, which is exactly what any override must do. [`Batched`](crate::Batched)
    /// overrides it with swaps that skip the bounds checks its own driver makes redundant.
    ///
    /// ```
    /// use fairdeal_core::{IndexSampler, Lemire};
    /// use rand::SeedableRng;
    /// let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    /// let mut deck = [0u8, 1, 2, 3, 4, 5];
    /// Lemire.deal_run(&mut rng, &mut deck, 5); // deal two: bounds 6 and 5
    /// deck.sort();
    /// assert_eq!(deck, [0, 1, 2, 3, 4, 5]);
    /// ```
    #[inline]
    fn deal_run<T, R: Rng + ?Sized>(&self, rng: &mut R, data: &mut [T], low: usize) {
        let n = data.len();
        self.for_each_index_descending(rng, n, low, |bound, j| {
            let i = n - bound;
            data.swap(i, i + j);
        });
    }
}

/// The two orders of Fisher-Yates. Both draw one index below each of the bounds `2, 3, …, n`
/// (in opposite orders), and both give each of the `n!` orders probability exactly `1/n!`; for
/// the same draws they give different permutations.
///
/// * [`Forward`](Order::Forward): for `i` from 1 up, swap `data[i]` with `data[j]`, `j` uniform
///   in `[0, i]` (bounds ascending; fastrand's `shuffle`, and the inside-out walk).
/// * [`Backward`](Order::Backward): for `i` from `n - 1` down, the same swap (bounds
///   descending; Durstenfeld's original, Java's `Collections.shuffle`, CPython's
///   `random.shuffle`, rand's `shuffle`).
///
/// Which is faster depends on the length, and [`Order::fastest`] is the crate's one rule for it.
/// The forward order is faster on short slices, and was before it ran fewer instructions (9 % more
/// at 1,000 elements, `Batched` on wyrand, before its acceptance thresholds were tabled); what
/// differs, most likely (the host measured exposes no hardware counters to confirm it), is memory
/// ordering. Going backward, the load of `data[i]` reads a position an earlier swap may have just
/// written through an index the CPU has not computed yet; the core runs that load early anyway and
/// must replay it when the guess was wrong. Going forward, `data[i]` has never been written, so
/// nothing is replayed. In a short slice that collision is frequent, and the forward order is
/// 1.1–2.5× faster from 52 to 1,000 elements; in a long one it is rare, and from 65,536 elements on
/// the two orders are within 5 % (`u32` elements, `Batched` on wyrand, pcg64 and chacha12, Zen 5:
/// `docs/benchmarks.md`, "Which way Fisher-Yates runs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Bounds `2, 3, …, n`: position `bound - 1` swaps with an index below `bound`.
    Forward,
    /// Bounds `n, n - 1, …, 2`: position `bound - 1` swaps with an index below `bound`.
    Backward,
}

impl Order {
    /// The largest length [`Order::fastest`] shuffles forward: 16,384 (2¹⁴). Up to it the
    /// forward order is 14–16 % faster with wyrand and pcg64 and 2–4 % slower with chacha12
    /// from 8,192 (`Batched`, Zen 5; with the bounds-checked swaps of the release before it
    /// was even or ahead with all three); from 65,536 on, the two are within 5 %. It is a
    /// constant, not a measurement made at run time, because a seeded shuffle must give the
    /// same permutation on every machine.
    pub const FORWARD_MAX: usize = 1 << 14;

    /// [`Forward`](Order::Forward) up to [`FORWARD_MAX`](Order::FORWARD_MAX) elements,
    /// [`Backward`](Order::Backward) above: the default of
    /// [`IndexSampler::shuffle_order`].
    #[inline]
    pub const fn fastest(len: usize) -> Self {
        if len <= Self::FORWARD_MAX {
            Self::Forward
        } else {
            Self::Backward
        }
    }
}

/// Lemire's nearly-divisionless bounded sampling: multiply, keep the high half, and reject the
/// few low halves that would make some values more likely than others.
///
/// Exactly unbiased. A division happens only when the low half falls in the small rejection
/// zone, so almost every draw costs one RNG call and one multiplication. Bounds up to `2^32`
/// use one `u32` per draw (so results do not depend on the platform's pointer width); larger
/// bounds use `u64` and a 128-bit product.
///
/// Reference: D. Lemire, *Fast Random Integer Generation in an Interval*, ACM TOMACS 2019.
///
/// ```
/// use fairdeal_core::{IndexSampler, Lemire};
/// use rand::SeedableRng;
/// let mut rng = rand::rngs::StdRng::seed_from_u64(1);
/// let i = Lemire.index_below(&mut rng, 52);
/// assert!(i < 52);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Lemire;

impl IndexSampler for Lemire {
    #[inline]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        lemire_index_below(rng, bound)
    }
}

/// [`Lemire`]'s algorithm as a free function: an exactly uniform index in `[0, bound)`.
///
/// `bound` must be at least 1; with `bound == 0` it returns 0 (never panics), which callers
/// avoid by construction.
#[inline]
pub fn lemire_index_below<R: Rng + ?Sized>(rng: &mut R, bound: usize) -> usize {
    match u32::try_from(bound) {
        Ok(small) => lemire_u32(rng, small) as usize,
        Err(_) => lemire_u64(rng, bound as u64) as usize,
    }
}

#[inline]
fn lemire_u32<R: Rng + ?Sized>(rng: &mut R, bound: u32) -> u32 {
    if bound <= 1 {
        return 0;
    }
    let mut product = u64::from(rng.next_u32()) * u64::from(bound);
    let mut low = product as u32;
    if low < bound {
        // Values of `low` below 2^32 mod bound belong to an incomplete final block: reject them.
        let threshold = bound.wrapping_neg() % bound;
        while low < threshold {
            product = u64::from(rng.next_u32()) * u64::from(bound);
            low = product as u32;
        }
    }
    (product >> 32) as u32
}

#[inline]
fn lemire_u64<R: Rng + ?Sized>(rng: &mut R, bound: u64) -> u64 {
    let mut product = u128::from(rng.next_u64()) * u128::from(bound);
    let mut low = product as u64;
    if low < bound {
        let threshold = bound.wrapping_neg() % bound;
        while low < threshold {
            product = u128::from(rng.next_u64()) * u128::from(bound);
            low = product as u64;
        }
    }
    (product >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::convert::Infallible;
    use rand_core::TryRng;

    /// Counts every 8-bit output of a "u32" whose value is `counter << 24`, so each of 256
    /// consecutive calls covers one equal slice of the 32-bit range. Lemire over such a source
    /// must hit every residue exactly as often as exact arithmetic says.
    struct Sweep {
        next: u64,
        step: u64,
    }

    impl TryRng for Sweep {
        type Error = Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Infallible> {
            let value = self.next as u32;
            self.next = self.next.wrapping_add(self.step);
            Ok(value)
        }
        fn try_next_u64(&mut self) -> Result<u64, Infallible> {
            let hi = u64::from(self.try_next_u32()?);
            Ok(hi << 32 | u64::from(self.try_next_u32()?))
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
            for b in dst {
                *b = self.try_next_u32()? as u8;
            }
            Ok(())
        }
    }

    #[test]
    fn stays_in_range_for_edge_bounds() {
        let mut rng = Sweep {
            next: 0,
            step: 0x9E37_79B9,
        };
        for bound in [
            1usize,
            2,
            3,
            7,
            52,
            1000,
            u32::MAX as usize,
            1 << 32,
            (1 << 32) + 1,
        ] {
            for _ in 0..1000 {
                assert!(lemire_index_below(&mut rng, bound) < bound, "bound {bound}");
            }
        }
        assert_eq!(lemire_index_below(&mut rng, 0), 0);
    }

    /// Chi-square over which third of `[0, 3·2^30)` the index lands in. `2^32 mod 3·2^30 = 2^30`,
    /// so plain `next_u32() % bound` puts the first third at twice the odds of the others: the
    /// same test must reject that (negative control) and accept Lemire.
    fn thirds_p_value(mut draw: impl FnMut() -> u64, bound: u64) -> f64 {
        use statrs::distribution::{ChiSquared, ContinuousCDF};
        const DRAWS: u32 = 30_000;
        let mut counts = [0u32; 3];
        for _ in 0..DRAWS {
            let v = draw();
            assert!(v < bound);
            counts[(v / (bound / 3)) as usize] += 1;
        }
        let expected = f64::from(DRAWS) / 3.0;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (f64::from(c) - expected).powi(2) / expected)
            .sum();
        1.0 - ChiSquared::new(2.0).unwrap().cdf(chi2)
    }

    #[test]
    fn lemire_is_uniform_where_modulo_is_not() {
        use rand::SeedableRng;
        const BOUND: u64 = 3 << 30;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2024);
        let p_lemire = thirds_p_value(
            || lemire_index_below(&mut rng, BOUND as usize) as u64,
            BOUND,
        );
        assert!(p_lemire > 1e-6, "Lemire rejected: p = {p_lemire}");
        let mut rng = rand_pcg::Pcg64::seed_from_u64(2024);
        let p_modulo = thirds_p_value(|| u64::from(rng.next_u32()) % BOUND, BOUND);
        assert!(p_modulo < 1e-9, "modulo bias not detected: p = {p_modulo}");
    }
}
