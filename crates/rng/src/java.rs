//! A port of `java.util.Random` and of its bounded draws, bit for bit.

use core::convert::Infallible;

use fairdeal_core::{IndexSampler, Order, lemire_index_below};
use rand_core::{Rng, SeedableRng, TryRng};

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

/// `java.util.Random`: the 48-bit linear congruential generator of every JDK since 1.0.
///
/// State `s` (48 bits) advances as `s = (s · 0x5DEECE66D + 0xB) mod 2^48`; `next(bits)` returns
/// the top `bits` of the new state. A seed is scrambled first, `(seed ^ 0x5DEECE66D) mod 2^48`,
/// exactly like `new Random(seed)`.
///
/// The [`Rng`] methods are Java's own: [`next_u32`](Rng::next_u32) is `nextInt()` (= `next(32)`)
/// as unsigned bits, [`next_u64`](Rng::next_u64) is `nextLong()`, and
/// [`fill_bytes`](Rng::fill_bytes) is `nextBytes(byte[])`. Pair it with [`JavaSampler`] to get
/// `nextInt(bound)`, and hence `Collections.shuffle`, draw for draw.
///
/// **Not cryptographic, and small**: 48 bits of state reach at most 2^48 of the 52! ≈ 2^225.6
/// deck orders, and the low bits of the LCG are weak (which `next(bits)` hides by keeping the
/// top bits). Use it to reproduce Java, not to deal real games.
///
/// ```
/// use fairdeal_rng::{JavaRandom, JavaSampler};
/// use fairdeal_core::{IndexSampler, Rng};
///
/// // new Random(0).nextInt() == -1155484576
/// let mut rng = JavaRandom::new(0);
/// assert_eq!(rng.next_u32() as i32, -1155484576);
///
/// // new Random(42).nextInt(10) == 0, then 3
/// let mut rng = JavaRandom::new(42);
/// assert_eq!(JavaSampler.index_below(&mut rng, 10), 0);
/// assert_eq!(JavaSampler.index_below(&mut rng, 10), 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct JavaRandom {
    state: u64,
}

impl JavaRandom {
    /// `new Random(seed)`.
    pub const fn new(seed: i64) -> Self {
        Self {
            state: scramble(seed),
        }
    }

    /// `setSeed(seed)`: restarts the sequence as if freshly built with `seed`.
    pub fn set_seed(&mut self, seed: i64) {
        self.state = scramble(seed);
    }

    /// Java's protected `next(bits)` for `bits` in `0..=32`: advances the state and returns
    /// its top `bits`, in the low bits of the result. Larger `bits` are treated as 32.
    #[inline]
    pub fn next_bits(&mut self, bits: u32) -> u32 {
        let bits = bits.min(32);
        self.state = self.state.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND) & MASK;
        (self.state >> (48 - bits)) as u32
    }

    /// `nextInt()`: 32 random bits as Java's signed `int`.
    #[inline]
    pub fn next_int(&mut self) -> i32 {
        self.next_bits(32) as i32
    }

    /// `nextLong()`: `((long) next(32) << 32) + next(32)`, with the second half sign-extended
    /// as Java does (so it is *added*, not or-ed).
    #[inline]
    pub fn next_long(&mut self) -> i64 {
        let high = i64::from(self.next_int());
        let low = i64::from(self.next_int());
        (high << 32).wrapping_add(low)
    }
}

const fn scramble(seed: i64) -> u64 {
    (seed as u64 ^ MULTIPLIER) & MASK
}

impl TryRng for JavaRandom {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.next_bits(32))
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.next_long() as u64)
    }

    /// `nextBytes`: each `nextInt()` supplies four bytes, lowest first; a final partial group
    /// uses the low bytes of one more `nextInt()`.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let word = self.next_bits(32).to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for JavaRandom {
    /// A Java `long`, little-endian.
    type Seed = [u8; 8];

    fn from_seed(seed: [u8; 8]) -> Self {
        Self::new(i64::from_le_bytes(seed))
    }

    /// `new Random(state as long)`: the u64's bits are the Java `long` seed, so seeds up to
    /// `i64::MAX` read the same in both languages and larger ones are Java's negative seeds.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state as i64)
    }
}

/// Java's bounded draws as an [`IndexSampler`]: `index_below(rng, bound)` is
/// `rng.nextInt(bound)` for every bound Java's `int` can hold.
///
/// It reads the RNG only through [`Rng::next_u32`], taking Java's `next(31)` as
/// `next_u32() >> 1`, so with [`JavaRandom`] it consumes exactly the values Java consumes, and
/// any algorithm built on `IndexSampler` (fairdeal's in-place Fisher-Yates) reproduces
/// `Collections.shuffle(list, new Random(seed))`. With any other RNG it is still exactly
/// unbiased, just slower than [`Lemire`](fairdeal_core::Lemire).
///
/// `nextInt(bound)` (JDK 1.2 to today):
///
/// * a power-of-two bound takes the top bits: `(bound · next(31)) >> 31`;
/// * any other bound takes `r = u % bound` and rejects `u` when the block it falls in is
///   incomplete, detected by Java's overflow test `u - r + (bound - 1) < 0` in 32-bit signed
///   arithmetic (reproduced here with wrapping `i32` operations).
///
/// Bounds Java's `int` cannot hold, which no Java collection can have, are handled without
/// panicking: up to `i64::MAX` the sampler does what `Random.nextLong(bound)` does on JDK 17+
/// (inherited from `RandomGenerator`: `nextLong()`, mask for powers of two, otherwise
/// `(nextLong() >>> 1) % bound` with the same overflow rejection in 64 bits); above `i64::MAX`
/// (which Java cannot express at all) it falls back to [`lemire_index_below`]. A bound of 0,
/// outside the [`IndexSampler`] contract, returns 0 without drawing.
///
/// ```
/// use fairdeal_rng::{JavaRandom, JavaSampler};
/// use fairdeal_core::IndexSampler;
/// let mut rng = JavaRandom::new(1);
/// // new Random(1).nextInt(52) == 17
/// assert_eq!(JavaSampler.index_below(&mut rng, 52), 17);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct JavaSampler;

impl IndexSampler for JavaSampler {
    /// Always [`Order::Backward`]: Java's `Collections.shuffle` draws its bounds from the top down, and a shuffle
    /// with this sampler reproduces it element for element.
    #[inline]
    fn shuffle_order(&self, _len: usize) -> Order {
        Order::Backward
    }

    // `always`: LLVM otherwise keeps this a call inside the default run-of-bounds loop of
    // `IndexSampler`; `cargo xtask bench --quick --instructions-only --baseline
    // benches/baselines/instructions-a5b489a.json` showed java inplace at +11.9 % instructions
    // per element without it, and -19 % with it (docs/benchmarks.md).
    #[inline(always)]
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        if bound == 0 {
            return 0;
        }
        if let Ok(bound) = i32::try_from(bound) {
            next_int_bounded(rng, bound) as usize
        } else if let Ok(bound) = i64::try_from(bound) {
            next_long_bounded(rng, bound) as usize
        } else {
            lemire_index_below(rng, bound)
        }
    }
}

/// Java's `next(31)` from a source whose `next_u32` is `next(32)`.
#[inline]
fn next31<R: Rng + ?Sized>(rng: &mut R) -> i32 {
    (rng.next_u32() >> 1) as i32
}

/// `Random.nextInt(int bound)` for `bound >= 1`.
#[inline]
fn next_int_bounded<R: Rng + ?Sized>(rng: &mut R, bound: i32) -> i32 {
    let mut r = next31(rng);
    let m = bound - 1;
    if bound & m == 0 {
        // Power of two: the high bits of the LCG are the good ones.
        return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
    }
    let mut u = r;
    loop {
        r = u % bound;
        // Java: `u - r + m < 0` overflows exactly when u lies in the final, incomplete block.
        if u.wrapping_sub(r).wrapping_add(m) >= 0 {
            return r;
        }
        u = next31(rng);
    }
}

/// `RandomGenerator.nextLong(long bound)` as `java.util.Random` inherits it (JDK 17+), for
/// `bound >= 1`: `RandomSupport.boundedNextLong`.
fn next_long_bounded<R: Rng + ?Sized>(rng: &mut R, bound: i64) -> i64 {
    let m = bound - 1;
    let mut r = next_long(rng);
    if bound & m == 0 {
        return r & m;
    }
    let mut u = ((r as u64) >> 1) as i64;
    loop {
        r = u % bound;
        // Java: `u + m - r < 0`; the same wrap-around test in 64 bits.
        if u.wrapping_add(m).wrapping_sub(r) >= 0 {
            return r;
        }
        u = ((next_long(rng) as u64) >> 1) as i64;
    }
}

/// Java's `nextLong()` from a source whose `next_u32` is `next(32)`.
#[inline]
fn next_long<R: Rng + ?Sized>(rng: &mut R) -> i64 {
    let high = i64::from(rng.next_u32() as i32);
    let low = i64::from(rng.next_u32() as i32);
    (high << 32).wrapping_add(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next31_is_java_next_31() {
        let mut a = JavaRandom::new(99);
        let mut b = JavaRandom::new(99);
        for _ in 0..100 {
            assert_eq!(next31(&mut a) as u32, b.next_bits(31));
        }
    }

    #[test]
    fn set_seed_restarts_and_next_long_matches_the_generic_path() {
        let mut a = JavaRandom::new(5);
        let first = a.next_long();
        a.set_seed(5);
        assert_eq!(a.next_long(), first);
        let mut b = JavaRandom::new(5);
        assert_eq!(next_long(&mut b), first);
        assert_eq!(JavaRandom::seed_from_u64(5), JavaRandom::new(5));
        assert_eq!(
            JavaRandom::from_seed(5i64.to_le_bytes()),
            JavaRandom::new(5)
        );
        assert_eq!(JavaRandom::seed_from_u64(u64::MAX), JavaRandom::new(-1));
    }

    /// `nextInt(1)` is a power of two: it consumes one `next(31)` and returns 0, as in Java.
    #[test]
    fn bound_one_draws_once_like_java() {
        let mut rng = JavaRandom::new(8);
        assert_eq!(JavaSampler.index_below(&mut rng, 1), 0);
        let mut reference = JavaRandom::new(8);
        reference.next_bits(31);
        assert_eq!(rng, reference);
    }

    #[test]
    fn huge_bounds_do_not_panic_and_stay_in_range() {
        let mut rng = JavaRandom::new(3);
        assert_eq!(JavaSampler.index_below(&mut rng, 0), 0);
        for bound in [usize::MAX, usize::MAX / 2 + 2, (i64::MAX as usize) + 1] {
            for _ in 0..100 {
                assert!(JavaSampler.index_below(&mut rng, bound) < bound);
            }
        }
    }
}
