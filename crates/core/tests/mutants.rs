//! Tests written to kill mutants that cargo-mutants found surviving in `src/sample.rs`,
//! `src/batched.rs` and `src/stream.rs` (see docs/testing.md, "Mutation testing"): known
//! answers of Lemire's method on scripted words (rejections included), and `Batched`'s single
//! draw.

use core::convert::Infallible;

use fairdeal_core::rand_core::TryRng;
use fairdeal_core::{Batched, IndexSampler, Lemire, lemire_index_below};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// Hands out the given words in order and panics when they run out, so a test also pins how
/// many words a draw consumed. `next_u32` refuses a word that does not fit in 32 bits.
struct Words<'a>(core::iter::Copied<core::slice::Iter<'a, u64>>);

impl<'a> Words<'a> {
    fn new(words: &'a [u64]) -> Self {
        Self(words.iter().copied())
    }
    fn next(&mut self) -> u64 {
        self.0
            .next()
            .expect("the draw took more words than expected")
    }
}

impl TryRng for Words<'_> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(u32::try_from(self.next()).expect("a 64-bit word where a u32 was drawn"))
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.next())
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Infallible> {
        unreachable!("Lemire draws whole words")
    }
}

/// `lemire_index_below(words, bound)` and how many words were left unused.
fn lemire(words: &[u64], bound: usize) -> (usize, usize) {
    let mut rng = Words::new(words);
    let index = lemire_index_below(&mut rng, bound);
    (index, rng.0.len())
}

/// Bounds up to 2^32 take 32-bit words. For bound 3, `2^32 mod 3 = 1`: the index is the high
/// half of `word · 3`, and only a word whose low half is 0 is rejected.
/// `0xAAAA_AAAB · 3 = 2^33 + 1` sits exactly on the threshold and must be kept.
#[test]
fn lemire_32_bit_known_answers() {
    assert_eq!(lemire(&[0xFFFF_FFFF], 3), (2, 0));
    assert_eq!(lemire(&[1 << 31], 3), (1, 0));
    assert_eq!(lemire(&[0x5555_5555], 3), (0, 0));
    // Low half 0 < threshold 1: redrawn.
    assert_eq!(lemire(&[0, 0xFFFF_FFFF], 3), (2, 0));
    // Low half 1 = threshold: kept, the next word is untouched.
    assert_eq!(lemire(&[0xAAAA_AAAB, 0], 3), (2, 1));
    // Bound 2^31 + 1: 2^32 mod it is 2^31 - 1. Word 2 leaves a low half of 2 (redrawn); the
    // all-ones word leaves exactly 2^31 - 1 (kept).
    let bound = (1 << 31) + 1;
    assert_eq!(lemire(&[2, 5], bound), (2, 0));
    assert_eq!(lemire(&[0xFFFF_FFFF, 0], bound), (bound - 1, 1));
    // Bounds 0 and 1 have nothing to draw.
    assert_eq!(lemire(&[], 1), (0, 0));
    assert_eq!(lemire(&[], 0), (0, 0));
}

/// Bounds above 2^32 take 64-bit words: the same checks one size up. For `2^63 + 1`,
/// `2^64 mod bound = 2^63 - 1`.
#[cfg(target_pointer_width = "64")]
#[test]
fn lemire_64_bit_known_answers() {
    let bound = (1usize << 63) + 1;
    assert_eq!(lemire(&[u64::MAX, 0], bound), (bound - 1, 1));
    // Word 2^63: low half 2^63, below the bound but not below the threshold: kept.
    assert_eq!(lemire(&[1 << 63], bound), (1 << 62, 0));
    // Word 2: high half 1, low half 2 < 2^63 - 1: redrawn; word 5 gives 2.
    assert_eq!(lemire(&[2, 5], bound), (2, 0));
    // For 3 · 2^32, 2^64 mod bound = 2^32: the word 1 (low half 3 · 2^32 >= 2^32) is kept and
    // gives 0; the word 0 is redrawn.
    let bound = 3usize << 32;
    assert_eq!(lemire(&[1, 0], bound), (0, 1));
    assert_eq!(lemire(&[0, u64::MAX], bound), (bound - 1, 0));
}

/// `Batched`'s single draw is plain Lemire, word for word.
#[test]
fn batched_single_draws_are_lemire_draws() {
    let mut a = Pcg64::seed_from_u64(17);
    let mut b = a.clone();
    for bound in [1usize, 2, 3, 6, 52, 1000, 1 << 20, u32::MAX as usize] {
        for _ in 0..50 {
            assert_eq!(
                Batched.index_below(&mut a, bound),
                Lemire.index_below(&mut b, bound),
                "bound {bound}"
            );
        }
    }
}

/// The trait's default run loops (what `Lemire` and every one-draw-per-step sampler use) call
/// `f` once per bound, in order, with a low end of 0 treated as 1, and draw exactly the indices
/// that one `index_below` call per bound would.
#[test]
fn default_loops_draw_one_index_per_bound_in_order() {
    let runs = [
        (0, 0),
        (1, 0),
        (1, 1),
        (2, 1),
        (5, 0),
        (5, 2),
        (5, 5),
        (5, 6),
        (52, 2),
        (usize::MAX, usize::MAX - 2),
    ];
    for (high, low) in runs {
        let mut rng = Pcg64::seed_from_u64(high as u64 ^ low as u64);
        let mut reference = rng.clone();
        let mut seen = Vec::new();
        Lemire.for_each_index_descending(&mut rng, high, low, |bound, j| seen.push((bound, j)));
        let want: Vec<(usize, usize)> = (low.max(1)..=high)
            .rev()
            .map(|bound| (bound, lemire_index_below(&mut reference, bound)))
            .collect();
        assert_eq!(seen, want, "descending {high}..={low}");

        let mut seen = Vec::new();
        Lemire.for_each_index_ascending(&mut rng, low, high, |bound, j| seen.push((bound, j)));
        let want: Vec<(usize, usize)> = (low.max(1)..=high)
            .map(|bound| (bound, lemire_index_below(&mut reference, bound)))
            .collect();
        assert_eq!(seen, want, "ascending {low}..={high}");
    }
}
