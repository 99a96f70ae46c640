//! How many random words the default sampler spends per shuffle, counted, next to the
//! information-theoretic minimum `log2(N!) / 64`.
//!
//! The runs of bounds are exactly those of the shuffles: `n, n - 1, …, 2` for the in-place and
//! partial shuffles (descending), `2, 3, …, n` for the inside-out shuffle (ascending), and
//! `52, 51, …, 46` for a 7-card deal. The generator is ChaCha12 (the default backend) behind a
//! counter; a 64-bit word counts 1, a 32-bit one ½. Seeds are fixed, so the counts are exact
//! numbers, not samples that could flake; rejections (a batch redrawn) are included.
//!
//! Bounds (the speed targets): at most 5 words per 52-card shuffle, at most 1.3 × the minimum at
//! N = 1000 and 10⁴, one word per 7-card deal. The one-word-per-index reference sampler
//! (`Lemire`) is run through the same counter as the negative control: it must fail them.

use core::convert::Infallible;

use fairdeal_core::{Batched, IndexSampler, Lemire};
use rand::SeedableRng;
use rand::rngs::ChaCha12Rng;
use rand_core::{Rng, TryRng};

/// A generator that counts the words it hands out.
struct Counting<R> {
    inner: R,
    /// 64-bit words handed out, plus half of each 32-bit one.
    halves: u64,
}

impl<R: Rng> TryRng for Counting<R> {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.halves += 1;
        Ok(self.inner.next_u32())
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.halves += 2;
        Ok(self.inner.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.halves += (dst.len() as u64).div_ceil(4);
        self.inner.fill_bytes(dst);
        Ok(())
    }
}

/// log2(n!) / 64: the fewest 64-bit words that can pick one of n! orders.
fn minimum_words(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).log2()).sum::<f64>() / 64.0
}

#[derive(Clone, Copy, Debug)]
enum Run {
    /// In-place / partial: bounds n down to `low`, swapping like Durstenfeld.
    Down { low: usize },
    /// Inside-out: bounds 2 up to n.
    Up,
}

/// Mean words per run over `runs` runs of `sampler` on `n` elements.
fn mean_words<S: IndexSampler>(sampler: &S, n: usize, run: Run, runs: u64, seed: u64) -> f64 {
    let mut rng = Counting {
        inner: ChaCha12Rng::seed_from_u64(seed),
        halves: 0,
    };
    let mut data: Vec<u32> = (0..n as u32).collect();
    for _ in 0..runs {
        match run {
            Run::Down { low } => {
                sampler.for_each_index_descending(&mut rng, n, low, |bound, j| {
                    data.swap(bound - 1, j);
                });
            }
            Run::Up => sampler.for_each_index_ascending(&mut rng, 2, n, |bound, j| {
                data.swap(bound - 1, j);
            }),
        }
    }
    rng.halves as f64 / 2.0 / runs as f64
}

/// (n, runs, largest allowed mean words per shuffle)
fn shuffle_bounds() -> [(usize, u64, f64); 3] {
    [
        (52, 20_000, 5.0),
        (1_000, 500, 1.3 * minimum_words(1_000)),
        (10_000, 50, 1.3 * minimum_words(10_000)),
    ]
}

#[test]
fn batched_shuffles_stay_within_the_word_bounds() {
    println!("words per shuffle (ChaCha12, mean over fixed-seed runs):");
    println!(
        "  {:>6} {:>10} {:>10} {:>10} {:>8} {:>8}",
        "N", "minimum", "desc", "asc", "ratio", "bound"
    );
    for (i, (n, runs, bound)) in shuffle_bounds().into_iter().enumerate() {
        let down = mean_words(&Batched, n, Run::Down { low: 2 }, runs, 12 + i as u64);
        let up = mean_words(&Batched, n, Run::Up, runs, 120 + i as u64);
        let min = minimum_words(n as u64);
        println!(
            "  {n:>6} {min:>10.2} {down:>10.3} {up:>10.3} {:>7.3}× {bound:>8.2}",
            down.max(up) / min
        );
        assert!(
            down <= bound,
            "N = {n}: {down} words per in-place shuffle > {bound}"
        );
        assert!(
            up <= bound,
            "N = {n}: {up} words per inside-out shuffle > {bound}"
        );
        assert!(
            down >= min && up >= min,
            "fewer words than information allows?"
        );
    }
}

#[test]
fn a_deal_of_7_from_52_is_one_word() {
    let deals = 100_000;
    let mean = mean_words(&Batched, 52, Run::Down { low: 46 }, deals, 7);
    println!("words per 7-card deal from 52: {mean} (minimum {:.3})", {
        (46..=52).map(|i| f64::from(i).log2()).sum::<f64>() / 64.0
    });
    // 52·51·…·46 ≈ 2^39.6: a redraw is due about once in 2^24 deals.
    assert_eq!(mean, 1.0);
}

/// The negative control: one word per index spends far more than the bounds allow, and the
/// test's counter sees it.
#[test]
fn one_word_per_index_breaks_the_bounds() {
    for (n, runs, bound) in shuffle_bounds() {
        let runs = runs.min(100);
        let down = mean_words(&Lemire, n, Run::Down { low: 2 }, runs, 5);
        assert!(down > bound, "N = {n}: Lemire spent only {down} words");
        // Bounds below 2^32 take one 32-bit word each: (n - 1) halves, plus rare rejections.
        assert!(down >= (n - 1) as f64 / 2.0);
    }
    assert!(mean_words(&Lemire, 52, Run::Down { low: 46 }, 1000, 5) > 1.0);
}

/// Hands out the words `2^64 - 1` and `1` in turn. Both are kept for any product of bounds
/// (`x · P mod 2^64` is `2^64 - P`, resp. `P`, never below `2^64 mod P`); every die rolled
/// from the first is its bound minus one, every die from the second is 0. So consecutive
/// batches alternate between the two, and the dice show where each batch begins, however far
/// ahead of its batches the sampler draws its words.
struct Alternating {
    high: bool,
}

impl TryRng for Alternating {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        unreachable!("batches draw 64-bit words")
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.high = !self.high;
        Ok(if self.high { u64::MAX } else { 1 })
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Infallible> {
        unreachable!("batches draw 64-bit words")
    }
}

/// The batches (lists of bounds) of one descending run `n, n - 1, …, 2` of `Batched`: a batch
/// starts where the dice switch between highest and 0 (see [`Alternating`]).
fn batches_of(n: usize) -> Vec<Vec<u64>> {
    let mut out: Vec<Vec<u64>> = Vec::new();
    let mut last_high = None;
    Batched.for_each_index_descending(&mut Alternating { high: false }, n, 2, |bound, die| {
        let high = die == bound - 1;
        assert!(high || die == 0, "bound {bound}, die {die}");
        if last_high != Some(high) {
            out.push(Vec::new());
            last_high = Some(high);
        }
        out.last_mut().expect("pushed").push(bound as u64);
    });
    out
}

/// Expected words of a batch of `words` 64-bit words whose bounds multiply to `product`:
/// one try takes `words` words and is kept with probability 1 − (2^(64·words) mod P) / 2^(64·words).
fn expected_words(product: u128, words: u32) -> f64 {
    let bits = 64 * words;
    let (rem, scale) = if bits == 64 {
        let p = product as u64;
        ((p.wrapping_neg() % p) as f64, 2f64.powi(64))
    } else {
        // 2^128 mod P for P < 2^128.
        (
            (((u128::MAX % product) + 1) % product) as f64,
            2f64.powi(128),
        )
    };
    f64::from(words) / (1.0 - rem / scale)
}

/// The word counts above are what the batching predicts: the exact expectation of each
/// batch (one word, redrawn with probability (2^64 mod P) / 2^64) summed over the batches of
/// the run agrees with the counted mean within 1 %. It also prints the two limits that
/// decide how close to log2(N!)/64 a batched sampler can get (docs/benchmarks.md):
///
/// * every exact sampler that keeps no state between shuffles reads whole words, and a path
///   of w words can give one of N! orders its probability 1/N! only if 2^(64·w) >= N!; so
///   every shuffle reads at least ⌈log2(N!)/64⌉ words: 4 for 52 cards, 1.135× the minimum;
/// * at N = 10^4 a bound holds about 13.3 bits, so four dice fill 53 of a word's 64 bits
///   (five would need 66): one-word batches stay near 1.2× there, while batches of two
///   words (products up to 2^124, 128-bit arithmetic per die) would reach below 1.1×.
#[test]
fn counted_words_match_the_batch_model() {
    println!(
        "  {:>6} {:>9} {:>9} {:>9} {:>9}",
        "N", "counted", "model", "floor", "2-word"
    );
    for (i, (n, runs, _)) in shuffle_bounds().into_iter().enumerate() {
        let min = minimum_words(n as u64);
        let counted = mean_words(&Batched, n, Run::Down { low: 2 }, runs, 12 + i as u64);
        let batches = batches_of(n);
        let model: f64 = batches
            .iter()
            .map(|b| expected_words(b.iter().map(|&x| u128::from(x)).product(), 1))
            .sum();
        assert!(
            (counted / model - 1.0).abs() < 0.01,
            "N = {n}: counted {counted}, model {model}"
        );
        // Greedy batches of two words: as many bounds as fit a product of 2^124.
        let mut two_word = 0.0;
        let mut product = 1u128;
        for bound in (2..=n as u128).rev() {
            if product.checked_mul(bound).is_none_or(|p| p > 1 << 124) {
                two_word += expected_words(product, 2);
                product = 1;
            }
            product *= bound;
        }
        two_word += expected_words(product, 2);
        println!(
            "  {n:>6} {:>8.4}× {:>8.4}× {:>8.4}× {:>8.4}×",
            counted / min,
            model / min,
            min.ceil() / min,
            two_word / min
        );
    }
}
