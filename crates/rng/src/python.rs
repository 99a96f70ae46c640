//! CPython's `random` module: MT19937 seeded like `random.seed(int)`, and `_randbelow`.

use core::convert::Infallible;

use fairdeal_core::{IndexSampler, Order};
use rand_core::{Rng, SeedableRng, TryRng};
use rand_mt::Mt;

/// Words CPython takes from the OS when seeding without an argument (`N` of MT19937).
const OS_SEED_WORDS: usize = 624;

/// CPython's `random.Random`: the Mersenne Twister MT19937 (from `rand_mt`) seeded exactly
/// like `random.seed(n)` for a non-negative integer `n`.
///
/// CPython seeds with `init_by_array` over the 32-bit words of `abs(n)`, least significant
/// first, with the key `[0]` for `n = 0`; [`PythonRandom::new`] does the same.
///
/// The [`Rng`] methods follow Python too: [`next_u32`](Rng::next_u32) is one MT19937 output
/// (`getrandbits(32)`), [`next_u64`](Rng::next_u64) is `getrandbits(64)` (low word drawn first,
/// unlike `rand_mt`'s own `next_u64`), and [`fill_bytes`](Rng::fill_bytes) is
/// `random.randbytes(len)`. Pair it with [`PythonSampler`] to get `_randbelow`, and hence
/// `random.shuffle`, draw for draw.
///
/// **Not cryptographic**: 624 consecutive outputs reveal the whole state. Its 19,937 bits of
/// state are plenty for a deck (52! ≈ 2^225.6), and its period is 2^19937 − 1.
///
/// ```
/// use fairdeal_rng::PythonRandom;
/// use fairdeal_core::Rng;
/// // random.seed(42); random.getrandbits(32) == 2746317213
/// let mut rng = PythonRandom::new(42);
/// assert_eq!(rng.next_u32(), 2746317213);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonRandom {
    mt: Mt,
}

impl PythonRandom {
    /// `random.seed(seed)` for an integer seed.
    pub fn new(seed: u64) -> Self {
        let low = seed as u32;
        let high = (seed >> 32) as u32;
        if high == 0 {
            Self::from_key(&[low])
        } else {
            Self::from_key(&[low, high])
        }
    }

    /// `init_by_array(key)`: the seeding CPython uses for integers (the key is the integer's
    /// 32-bit words, least significant first) and, with 624 words of OS entropy, for
    /// `random.seed()` without an argument.
    fn from_key(key: &[u32]) -> Self {
        Self {
            mt: Mt::new_with_key(key.iter().copied()),
        }
    }

    /// `random.getrandbits(k)` for `k` in `1..=64`: `k <= 32` takes the top `k` bits of one
    /// output; larger `k` assembles 32-bit words least significant first, the last one
    /// shifted down to the bits still needed, as CPython's `_random_Random_getrandbits_impl`.
    #[inline]
    pub(crate) fn getrandbits<R: Rng + ?Sized>(rng: &mut R, k: u32) -> u64 {
        debug_assert!((1..=64).contains(&k));
        if k <= 32 {
            u64::from(rng.next_u32() >> (32 - k))
        } else {
            let low = rng.next_u32();
            let high = rng.next_u32() >> (64 - k);
            u64::from(high) << 32 | u64::from(low)
        }
    }
}

impl TryRng for PythonRandom {
    type Error = Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.mt.next_u32())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(Self::getrandbits(self, 64))
    }

    /// `random.randbytes(len)` = `getrandbits(8 · len).to_bytes(len, "little")`: one output per
    /// four bytes, least significant first; a final partial group takes the *top* bytes of
    /// one more output (the `>> (32 - k)` of `getrandbits`).
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for chunk in dst.chunks_mut(4) {
            let bits = 8 * chunk.len() as u32;
            let word = (self.mt.next_u32() >> (32 - bits)).to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}

impl SeedableRng for PythonRandom {
    /// A 256-bit non-negative integer, little-endian: `from_seed(b)` is
    /// `random.seed(int.from_bytes(b, "little"))`.
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Self {
        let mut key = [0u32; 8];
        for (word, bytes) in key.iter_mut().zip(seed.chunks_exact(4)) {
            *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        // CPython's key has no leading zero words, and is `[0]` for zero.
        let used = key.iter().rposition(|&w| w != 0).map_or(1, |top| top + 1);
        Self::from_key(&key[..used])
    }

    /// `random.seed(state)`.
    fn seed_from_u64(state: u64) -> Self {
        Self::new(state)
    }

    /// Seeds from 624 words of `rng`, the way CPython's argument-less `random.seed()` uses
    /// 624 words of OS entropy, instead of squeezing the seed through 256 bits.
    fn from_rng<R: Rng + ?Sized>(rng: &mut R) -> Self {
        let mut key = [0u32; OS_SEED_WORDS];
        for word in &mut key {
            *word = rng.next_u32();
        }
        Self::from_key(&key)
    }

    /// Fallible [`from_rng`](SeedableRng::from_rng): 624 words of `rng`.
    fn try_from_rng<R: TryRng + ?Sized>(rng: &mut R) -> Result<Self, R::Error> {
        let mut key = [0u32; OS_SEED_WORDS];
        for word in &mut key {
            *word = rng.try_next_u32()?;
        }
        Ok(Self::from_key(&key))
    }
}

/// CPython's `Random._randbelow_with_getrandbits(n)` as an [`IndexSampler`]: draw
/// `getrandbits(n.bit_length())` until the value is below `n`.
///
/// It reads the RNG only through [`Rng::next_u32`] (one MT19937 output per 32 bits), so with
/// [`PythonRandom`] it consumes exactly what CPython consumes and fairdeal's in-place
/// Fisher-Yates reproduces `random.shuffle`. Note `k = n.bit_length()`, not
/// `(n - 1).bit_length()`: for a power of two about half the draws are rejected, as in Python.
/// `bound = 1` still draws (a 1-bit value, retried until 0), again as Python; a bound of 0,
/// outside the [`IndexSampler`] contract, returns 0 without drawing. Every `usize` bound is
/// supported (Python ints are unbounded; 64-bit bounds take two words, low first).
///
/// Matches CPython 3.11's `Lib/random.py` (the method is the same from 3.2 through 3.13).
///
/// ```
/// use fairdeal_rng::{PythonRandom, PythonSampler};
/// use fairdeal_core::IndexSampler;
/// // random.seed(42); random.randrange(52) == 40
/// let mut rng = PythonRandom::new(42);
/// assert_eq!(PythonSampler.index_below(&mut rng, 52), 40);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PythonSampler;

impl IndexSampler for PythonSampler {
    /// Always [`Order::Backward`]: CPython's `random.shuffle` draws its bounds from the top down, and a shuffle
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
        let n = bound as u64;
        let k = u64::BITS - n.leading_zeros();
        loop {
            let r = PythonRandom::getrandbits(rng, k);
            if r < n {
                return r as usize;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_agree_across_constructors() {
        assert_eq!(PythonRandom::seed_from_u64(7), PythonRandom::new(7));
        for seed in [0u64, 1, 1 << 32, u64::MAX, 0xDEAD_BEEF_0000_0001] {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&seed.to_le_bytes());
            assert_eq!(
                PythonRandom::from_seed(bytes),
                PythonRandom::new(seed),
                "{seed}"
            );
        }
    }

    /// `_randbelow(1)`: `getrandbits(1)` until it is 0, so it consumes one output or more.
    #[test]
    fn bound_one_draws_until_zero_like_cpython() {
        let mut rng = PythonRandom::new(3);
        let mut reference = PythonRandom::new(3);
        for _ in 0..50 {
            assert_eq!(PythonSampler.index_below(&mut rng, 1), 0);
            while reference.next_u32() >> 31 != 0 {}
            assert_eq!(rng, reference);
        }
        assert_eq!(PythonSampler.index_below(&mut rng, 0), 0);
        assert_eq!(rng, reference, "bound 0 must not draw");
    }

    #[test]
    fn every_bound_stays_in_range() {
        let mut rng = PythonRandom::new(11);
        let mut bound = 1usize;
        while bound != 0 {
            for b in [bound, bound + 1, bound.wrapping_mul(3) / 2 + 1] {
                if b > 0 {
                    assert!(PythonSampler.index_below(&mut rng, b) < b, "bound {b}");
                }
            }
            bound = bound.wrapping_mul(2);
        }
        assert!(PythonSampler.index_below(&mut rng, usize::MAX) < usize::MAX);
    }

    #[test]
    fn seeding_from_an_rng_uses_624_words() {
        let mut source = PythonRandom::new(1);
        let a = PythonRandom::from_rng(&mut source);
        let mut source = PythonRandom::new(1);
        let b = PythonRandom::try_from_rng(&mut source).unwrap();
        assert_eq!(a, b);
        let mut source = PythonRandom::new(1);
        for _ in 0..OS_SEED_WORDS {
            source.next_u32();
        }
        let mut copy = PythonRandom::new(1);
        let _ = PythonRandom::from_rng(&mut copy);
        assert_eq!(source, copy);
    }
}

/// `getrandbits(k)` for every width in the CPython fixture (the integration tests cover the
/// public paths: 32, 64, `_randbelow`, `randbytes`).
#[cfg(test)]
mod fixture_tests {
    use super::*;

    #[test]
    fn getrandbits_matches_cpython() {
        let mut lines = 0;
        for line in include_str!("../fixtures/python_stream.txt").lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields[0] != "getrandbits" {
                continue;
            }
            let seed: u64 = fields[1].parse().unwrap();
            let k: u32 = fields[2].parse().unwrap();
            let mut rng = PythonRandom::new(seed);
            for expected in &fields[3..] {
                let got = PythonRandom::getrandbits(&mut rng, k);
                assert_eq!(got.to_string(), *expected, "seed {seed} k {k}");
            }
            lines += 1;
        }
        assert_eq!(lines, 30);
    }
}
