/*!
Test doubles for randomness, shared by the workspace's tests (not published).

Every randomness test in fairdeal needs the same few pieces: a chi-square p-value over counts
that should be equal, the lexicographic rank of a permutation, a sampler that records what it
was asked, and generators that are deliberately broken so a test can prove it is able to fail.
They live here once instead of in a `tests/common` copy per crate.

```
use fairdeal_testkit::{lehmer_rank, permutation_p_value};

// A "shuffle" that never moves anything is as unfair as it gets.
let p = permutation_p_value(3, 6_000, |_v| {});
assert!(p < 1e-9);
assert_eq!(lehmer_rank(&[2, 1, 0]), 5);
```
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use core::cell::RefCell;
use core::convert::Infallible;

use fairdeal_core::{IndexSampler, Lemire, Order, Rng, rand_core::TryRng};
use statrs::distribution::{ChiSquared, ContinuousCDF};

pub mod enumerate;
pub mod process;
pub mod scratch;
mod uniform;
mod weak;

/// The next word of Vigna's splitmix64 from `state` (advanced in place): the one copy the
/// tests' deterministic byte streams and word counters use.
pub fn splitmix64_next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `length` deterministic random bytes: splitmix64 from `seed`, each word little-endian, the
/// last one cut (the random sources of the GNU `shuf` fixtures, as `gen_gnu.py` makes them).
///
/// ```
/// let bytes = fairdeal_testkit::splitmix64_bytes(0, 12);
/// assert_eq!(bytes.len(), 12);
/// // Vigna's splitmix64.c seeded with 0 yields 0xE220A8397B1DCDAF first.
/// assert_eq!(bytes[..8], 0xE220_A839_7B1D_CDAFu64.to_le_bytes());
/// ```
pub fn splitmix64_bytes(seed: u64, length: usize) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(length + 8);
    while out.len() < length {
        out.extend_from_slice(&splitmix64_next(&mut state).to_le_bytes());
    }
    out.truncate(length);
    out
}

pub use uniform::assert_shuffler_uniform;
pub use weak::{Lcg16, Randu, Replay};

/// Lexicographic rank (Lehmer code) of a permutation of `0..n`: `[0, 1, 2]` is 0, `[2, 1, 0]`
/// is `n! - 1`.
pub fn lehmer_rank(perm: &[usize]) -> usize {
    let n = perm.len();
    let mut rank = 0;
    for i in 0..n {
        let smaller_later = perm[i + 1..].iter().filter(|&&x| x < perm[i]).count();
        rank = rank * (n - i) + smaller_later;
    }
    rank
}

/// `n!` for the small `n` tests use.
pub fn factorial(n: usize) -> usize {
    (1..=n).product()
}

/// Pearson's chi-square statistic against equal expected counts, and its upper-tail p-value.
pub fn chi_square_uniform(counts: &[u64]) -> (f64, f64) {
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    (chi2, chi_square_p_value(chi2, counts.len() as u64 - 1))
}

/// `P(X >= chi2)` for `X ~ χ²(df)`, computed as the survival function so tiny p-values keep
/// their precision.
pub fn chi_square_p_value(chi2: f64, df: u64) -> f64 {
    ChiSquared::new(df as f64).map_or(f64::NAN, |dist| dist.sf(chi2))
}

/// Runs `shuffle` on `[0, 1, …, n-1]` `trials` times, counts every one of the `n!` orders and
/// returns the chi-square p-value of "all orders equally likely".
pub fn permutation_p_value(n: usize, trials: u64, mut shuffle: impl FnMut(&mut [usize])) -> f64 {
    let mut counts = vec![0u64; factorial(n)];
    let mut v: Vec<usize> = Vec::with_capacity(n);
    for _ in 0..trials {
        v.clear();
        v.extend(0..n);
        shuffle(&mut v);
        counts[lehmer_rank(&v)] += 1;
    }
    chi_square_uniform(&counts).1
}

/// Runs `shuffle` on `[0, 1, …, n-1]` `trials` times and tests the `blocks × blocks` table of
/// which block of elements lands in which block of positions (block of `x` = `x · blocks / n`).
/// Returns the p-value of "a uniform permutation".
///
/// This is the position test for sizes whose `n × n` matrix is too large to count: it sees
/// first-order bias between regions of the slice, such as a batch-size boundary of the sampler
/// that skewed where elements go. For one uniform permutation the table is a random
/// contingency table with fixed margins, whose Pearson statistic has mean
/// `(blocks - 1)² · n / (n - 1)` (Haldane 1940); the sum over independent trials has the same
/// mean, so the statistic is scaled by `(n - 1) / n` and compared with `χ²((blocks - 1)²)`.
pub fn block_position_p_value(
    n: usize,
    blocks: usize,
    trials: u64,
    mut shuffle: impl FnMut(&mut [u32]),
) -> f64 {
    assert!(blocks >= 2 && n >= blocks && u32::try_from(n).is_ok());
    let block_of = |x: usize| x * blocks / n;
    let mut size = vec![0u64; blocks];
    for x in 0..n {
        size[block_of(x)] += 1;
    }
    let mut counts = vec![0u64; blocks * blocks];
    let mut v: Vec<u32> = Vec::with_capacity(n);
    for _ in 0..trials {
        v.clear();
        v.extend(0..n as u32);
        shuffle(&mut v);
        for (position, &element) in v.iter().enumerate() {
            counts[block_of(element as usize) * blocks + block_of(position)] += 1;
        }
    }
    let nf = n as f64;
    let mut chi2 = 0.0;
    for (cell, &observed) in counts.iter().enumerate() {
        let (a, b) = (cell / blocks, cell % blocks);
        let expected = trials as f64 * size[a] as f64 * size[b] as f64 / nf;
        chi2 += (observed as f64 - expected).powi(2) / expected;
    }
    let df = ((blocks - 1) * (blocks - 1)) as u64;
    chi_square_p_value(chi2 * (nf - 1.0) / nf, df)
}

/// A size whose run of bounds (`n, n - 1, …, 2`) crosses every batch-size limit that
/// `fairdeal_core::Batched` uses for long runs up to 2^20 (2^20, 2^15, 2^12 and 2^10) and ends
/// in a tail batch.
pub const ACROSS_BATCH_LIMITS: usize = (1 << 20) + 37;

/// The block-position test ([`block_position_p_value`], 16 × 16 blocks, 48 trials) at
/// [`ACROSS_BATCH_LIMITS`] elements: `shuffle` must pass at p > 1e-6, and the wrong-range swap,
/// run through the same test with the same generator, must be rejected at p < 1e-9.
pub fn assert_blocks_uniform_across_batch_limits<R: Rng>(
    rng: &mut R,
    mut shuffle: impl FnMut(&mut [u32], &mut R),
) {
    const BLOCKS: usize = 16;
    const TRIALS: u64 = 48;
    let p = block_position_p_value(ACROSS_BATCH_LIMITS, BLOCKS, TRIALS, |v| shuffle(v, rng));
    assert!(p > 1e-6, "fair shuffle rejected: p = {p}");
    let p = block_position_p_value(ACROSS_BATCH_LIMITS, BLOCKS, TRIALS, |v| {
        for i in 0..v.len() {
            let j = Lemire.index_below(rng, v.len());
            v.swap(i, j);
        }
    });
    assert!(p < 1e-9, "wrong-range shuffle not rejected: p = {p}");
}

/// A [`Lemire`] sampler that also writes down every bound it is asked for.
///
/// Its Fisher-Yates order is the default ([`Order::fastest`]) unless
/// [`Recording::with_order`] fixes one, as a language-reproducing sampler does.
#[derive(Debug, Default)]
pub struct Recording {
    bounds: RefCell<Vec<usize>>,
    order: Option<Order>,
}

impl Recording {
    /// A recording sampler whose [`shuffle_order`](IndexSampler::shuffle_order) is `order` for
    /// every length.
    pub fn with_order(order: Order) -> Self {
        Self {
            bounds: RefCell::default(),
            order: Some(order),
        }
    }

    /// The bounds requested so far, in order.
    pub fn bounds(&self) -> Vec<usize> {
        self.bounds.borrow().clone()
    }
}

impl IndexSampler for Recording {
    fn index_below<R: Rng + ?Sized>(&self, rng: &mut R, bound: usize) -> usize {
        self.bounds.borrow_mut().push(bound);
        Lemire.index_below(rng, bound)
    }

    fn shuffle_order(&self, len: usize) -> Order {
        self.order.unwrap_or(Order::fastest(len))
    }
}

/// A broken generator that returns the same word forever.
///
/// Pick a word whose products with the bounds in use do not land in Lemire's rejection zone
/// (0 does, for most bounds: the sampler would reject it forever and the test would hang).
/// `u64::MAX` is always safe: every bounded index is then `bound - 1`.
#[derive(Debug, Clone, Copy)]
pub struct Stuck(pub u64);

impl TryRng for Stuck {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0 as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        dst.fill(self.0 as u8);
        Ok(())
    }
}

/// A good generator with its top output bit stuck at zero: every bounded index Lemire draws
/// falls in the lower half of its range. Subtler than [`Stuck`], and still a defect every
/// fairness test must catch.
#[derive(Debug, Clone)]
pub struct HalfRange<R>(pub R);

impl<R: Rng> TryRng for HalfRange<R> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.0.next_u32() >> 1)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.0.next_u64() >> 1)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.0.fill_bytes(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lehmer_rank_is_lexicographic() {
        assert_eq!(lehmer_rank(&[0, 1, 2]), 0);
        assert_eq!(lehmer_rank(&[0, 2, 1]), 1);
        assert_eq!(lehmer_rank(&[1, 0, 2]), 2);
        assert_eq!(lehmer_rank(&[2, 1, 0]), 5);
        assert_eq!(lehmer_rank(&[3, 2, 1, 0]), 23);
    }

    #[test]
    fn chi_square_of_equal_counts_is_zero_with_p_one() {
        let (chi2, p) = chi_square_uniform(&[10, 10, 10]);
        assert_eq!(chi2, 0.0);
        assert!((p - 1.0).abs() < 1e-12);
        let (_, p) = chi_square_uniform(&[1000, 0, 0]);
        assert!(p < 1e-9);
    }
}
