/*!
Partial Fisher-Yates: deal `k` of `N` elements with `k` random draws and `k` swaps.

For `i` in `0..k`, swap `data[i]` with `data[j]` where `j` is uniform in `[i, N)`. Afterwards
`data[..k]` is a uniformly random *ordered* sample of `k` distinct elements: position 0 got
each element with probability `1/N`, position 1 each remaining one with probability `1/(N-1)`,
and so on. The work is O(k), independent of `N`: dealing 7 cards from 52 costs 7 draws, not 51.

Three tools are built on that loop:

* [`Partial`]: a [`Shuffler`] whose [`shuffle_prefix`](Shuffler::shuffle_prefix) is O(k) (a
  whole [`shuffle`](Shuffler::shuffle) is the same loop with `k = N`).
* [`Dealer`]: owns a deck and deals hand after hand from it *without restoring it* between
  hands. That is fair: a fair prefix shuffle draws uniformly from whatever order the deck is in,
  so each hand is uniform and independent of the previous ones (see `docs/algorithms.md`).
* [`sample_range`]: the same loop over a *virtual* array `lo..=hi` that is never allocated. Only
  the displaced slots are remembered (a `BTreeMap`), so `k` numbers from `1..=10^12` cost O(k log k)
  time and O(k) memory, and the result is exactly what [`Partial`] would leave in the first `k`
  slots of the materialized range with the same RNG and sampler.

# Quick start

```
use fairdeal_partial::{Dealer, Lemire, Partial, Shuffler, sample_range}; // one crate is enough
use rand::SeedableRng;

let mut rng = rand::rngs::StdRng::seed_from_u64(42);

// Seven cards from a deck: seven draws, seven swaps.
let mut deck: Vec<u8> = (0..52).collect();
Partial::new().shuffle_prefix(&mut deck, 7, &mut rng)?;
let hand = &deck[..7];
assert_eq!(hand.len(), 7);

// Hand after hand from one deck, never restored.
let mut dealer = Dealer::new((0..52u8).collect());
for _ in 0..1000 {
    let hand = dealer.deal(7, &mut rng)?;
    assert_eq!(hand.len(), 7);
}

// Five distinct numbers from 1..=10^12 without allocating the range.
let picks = sample_range(1, 1_000_000_000_000, 5, &mut rng, &Lemire)?;
assert_eq!(picks.len(), 5);
assert!(picks.iter().all(|&x| (1..=1_000_000_000_000).contains(&x)));
# Ok::<(), Box<dyn std::error::Error>>(())
```

# Design choices

* **Forward loop, `j` in `[i, N)`.** Unlike Durstenfeld's loop from the end, the sample forms
  at the *front* of the slice, which is where callers look for "the hand". The bounds requested
  are `N, N-1, …, N-k+1`; the trivial draw below 1 (only when `k = N`) is skipped, so a whole
  shuffle makes `N - 1` draws like the other fair algorithms.
* **Errors, not panics.** `k > N` returns [`ShuffleError::SampleTooLarge`] and leaves the data
  untouched; [`sample_range`] reports a reversed range, a `k` larger than the range, or a `k`
  whose output cannot be allocated as a [`SampleRangeError`]. Ranges of up to `2^64` numbers
  (`0..=u64::MAX`) are handled: sizes are computed in `u128`.
* **Sampler as a type parameter**, defaulting to [`Batched`] (batched dice: up to 18 exactly
  unbiased indices per random word, so a hand of 7 from 52 costs one word). The loop hands its
  run of bounds to the sampler; `Partial::with_sampler(Lemire)` is the one-draw-per-step
  reference path.

`#![no_std]` with `alloc`.
*/
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

extern crate alloc;

mod dealer;
mod range;

pub use dealer::Dealer;
pub use range::{SampleRangeError, sample_range};

/// The crate every algorithm shares, re-exported (as `rand_pcg` re-exports `rand_core`) so that
/// depending on this crate alone is enough; its main items are also at the top level.
pub use fairdeal_core;
/// The trait, the index samplers and the error this crate's users need, from `fairdeal-core`.
pub use fairdeal_core::{Batched, IndexSampler, Lemire, Rng, ShuffleError, Shuffler};

use fairdeal_core::{AlgorithmInfo, Complexity, check_prefix};

/// The self-description of [`Partial`]: name `"partial"`, O(N) for a whole shuffle, fair.
///
/// ```
/// assert_eq!(fairdeal_partial::INFO.name, "partial");
/// assert!(fairdeal_partial::INFO.fair);
/// ```
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "partial",
    complexity: Complexity::Linear,
    fair: true,
    summary: "partial Fisher-Yates: swap position i with a uniformly chosen position in [i, N) \
              for the first k positions only (O(k) to deal k of N)",
};

/// Partial (forward) Fisher-Yates, drawing indices through the sampler `S`.
///
/// ```
/// use fairdeal_core::Shuffler;
/// use fairdeal_partial::Partial;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
/// let mut numbers: Vec<u32> = (1..=49).collect();
/// Partial::new().shuffle_prefix(&mut numbers, 6, &mut rng)?; // a lottery draw: 6 draws
/// let mut ticket = numbers[..6].to_vec();
/// ticket.sort();
/// ticket.dedup();
/// assert_eq!(ticket.len(), 6);
///
/// assert!(Partial::new().shuffle_prefix(&mut numbers, 50, &mut rng).is_err());
/// # Ok::<(), fairdeal_core::ShuffleError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Partial<S = Batched> {
    sampler: S,
}

impl Partial {
    /// The shuffle with the default sampler, [`Batched`]: exactly unbiased, up to 18 indices
    /// per random word (a hand of 7 from 52 costs one random word).
    pub const fn new() -> Self {
        Self { sampler: Batched }
    }
}

impl<S> Partial<S> {
    /// The shuffle drawing its indices through `sampler`.
    pub const fn with_sampler(sampler: S) -> Self {
        Self { sampler }
    }

    /// The sampler this shuffle draws indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }
}

impl<S: IndexSampler> Partial<S> {
    /// [`sample_range`] with this shuffle's sampler: `k` distinct numbers from `lo..=hi`, in the
    /// order [`Partial`] would deal them from the materialized range.
    ///
    /// # Errors
    ///
    /// See [`sample_range`].
    ///
    /// ```
    /// use fairdeal_partial::Partial;
    /// use rand::SeedableRng;
    /// let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
    /// let all = Partial::new().sample_range(0, u64::MAX, 3, &mut rng)?;
    /// assert_eq!(all.len(), 3);
    /// # Ok::<(), fairdeal_partial::SampleRangeError>(())
    /// ```
    pub fn sample_range<R: Rng + ?Sized>(
        &self,
        lo: u64,
        hi: u64,
        k: usize,
        rng: &mut R,
    ) -> Result<alloc::vec::Vec<u64>, SampleRangeError> {
        range::sample_range(lo, hi, k, rng, &self.sampler)
    }

    /// The loop itself: fixes `data[..k]`, with `k <= data.len()` already checked.
    ///
    /// Forced inline, like [`shuffle_prefix`](Shuffler::shuffle_prefix): with `Batched`'s whole
    /// descending driver inside, the compiler kept `shuffle_prefix` out of line, and a 7-of-52
    /// deal paid a call, a 456-byte stack frame and six saved registers for 7 swaps. Inlined
    /// into the caller's loop it ran 130 instead of 154 instructions and was 1.2× faster
    /// (wyrand, before the deck's own path and the unchecked swaps, which took it to 74); the
    /// poker Monte Carlo dealt 1.1–1.2× more hands per second.
    #[inline(always)]
    fn prefix_unchecked<T, R: Rng + ?Sized>(&self, data: &mut [T], k: usize, rng: &mut R) {
        if data.len() == DECK {
            self.prefix_of_length(data, DECK, k, rng);
        } else {
            self.prefix_of_length(data, data.len(), k, rng);
        }
    }

    /// [`prefix_unchecked`](Self::prefix_unchecked) for `n == data.len()`.
    #[inline(always)]
    fn prefix_of_length<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        n: usize,
        k: usize,
        rng: &mut R,
    ) {
        // Position i draws below n - i, so the bounds run n, n - 1, …, n - k + 1. Position n - 1
        // has only itself to swap with: the bound 1 is never drawn.
        let lowest = (n - k + 1).max(2);
        // `..n` is all of `data`, with the length a constant on the deck's path. `Batched`'s
        // `deal_run` swaps without bounds checks: 7 of 51 cards take 112 instead of 135
        // instructions and run 1.11-1.18× faster than the checked loop (wyrand, pcg64;
        // 1.06-1.09× with chacha12; `sampler_lab race B deal7_51 31 ours checked`, Zen 3).
        self.sampler.deal_run(rng, &mut data[..n], lowest);
    }
}

/// The length that gets a path of its own: a standard deck of cards.
///
/// On that path the deck's length is a compile-time constant, so (with the deal's size a
/// constant at the call, as in every hand dealt) the bounds, their product and the batch's
/// acceptance threshold are constants: a 7-of-52 deal from a slice runs 74 instructions
/// against 112 for 7 of 51 cards, the general path (wyrand; ChaCha12 96.5 against 129.6;
/// `sampler_lab count B deal7|deal7_51 ours`). The same dice, so the same cards.
const DECK: usize = 52;

impl<S: IndexSampler> Shuffler for Partial<S> {
    fn info(&self) -> AlgorithmInfo {
        INFO
    }

    #[inline]
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        self.prefix_unchecked(data, data.len(), rng);
    }

    /// O(k): `min(k, N - 1)` draws and as many swaps; the rest of the slice is only touched by
    /// the swaps. Forced inline (see `prefix_unchecked`).
    #[inline(always)]
    fn shuffle_prefix<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        k: usize,
        rng: &mut R,
    ) -> Result<(), ShuffleError> {
        check_prefix(k, data.len())?;
        self.prefix_unchecked(data, k, rng);
        Ok(())
    }
}
