/*!
The inside-out Fisher-Yates shuffle: build a shuffled `Vec` from any iterator in one pass.

Each arriving item `i` (counting from 0) is pushed to the end of the output, then swapped with
the element at a uniformly chosen position `j` in `[0, i]`. After item `i` the output is a
uniformly random order of the first `i + 1` items, whatever came before, so the iterator's
length never needs to be known: a stream, a file read line by line or a `filter` all work, and
no element is moved more than twice per step.

# Quick start

```
use fairdeal_inside_out::{InsideOut, Shuffler}; // one crate: the trait comes with it
use rand::SeedableRng;

let mut rng = rand::rngs::StdRng::seed_from_u64(42);
// An iterator whose length is unknown until it ends.
let odd_squares = (1..100u32).map(|x| x * x).filter(|x| x % 2 == 1);
let shuffled = InsideOut::new().shuffled(odd_squares, &mut rng);

let mut sorted = shuffled.clone();
sorted.sort();
assert_eq!(sorted, (1..100u32).map(|x| x * x).filter(|x| x % 2 == 1).collect::<Vec<_>>());
```

# Design choices

* **Native [`Shuffler::shuffled`].** The trait's default collects and then shuffles; here each
  item is placed as it arrives, in a single pass, with one index per item after the first
  (whose only possible index is 0, so none is drawn). Items are taken 1024 at a time so that
  the sampler can roll their indices in batches; placing a chunk's items before their swaps
  gives the same result as one at a time, because the swap for position `i` only touches
  positions up to `i`. The output is reserved from the iterator's lower size hint and
  otherwise grows as `Vec` does.
* **The same walk on slices.** [`Shuffler::shuffle`] runs the same loop over a slice: for `i`
  from 1 up, swap `data[i]` with `data[j]`, `j` uniform in `[0, i]`, in the same chunks. This is
  exactly what `shuffled` does with the slice's elements as the input, so for a given RNG state
  `shuffled(v)` equals `shuffle(&mut v)`. The bounds requested are `2, 3, …, n`, the order
  `fairdeal-inplace` uses up to 16,384 elements (it then makes the same swaps as this walk for
  one chunk, up to 1,024 elements, and different batches beyond), and just as fair (`2 · 3 · … · n = n!` equally likely draw tuples, each
  giving a different permutation).
* **Sampler as a type parameter**, defaulting to [`Batched`] (batched dice: up to 18 exactly
  unbiased indices per random word, 4 words for a 52-card deck); `InsideOut::with_sampler(Lemire)` is the
  one-draw-per-step reference path.
* [`Shuffler::shuffle_prefix`] keeps the trait default (a whole shuffle); use
  `fairdeal-partial` for an O(k) prefix.

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

use alloc::vec::Vec;

/// The crate every algorithm shares, re-exported (as `rand_pcg` re-exports `rand_core`) so that
/// depending on this crate alone is enough; its main items are also at the top level.
pub use fairdeal_core;
/// The trait, the index samplers and the error this crate's users need, from `fairdeal-core`.
pub use fairdeal_core::{Batched, IndexSampler, Lemire, Rng, ShuffleError, Shuffler};

use fairdeal_core::{AlgorithmInfo, Complexity, Order};

/// The self-description of [`InsideOut`]: name `"inside-out"`, O(N), fair.
///
/// ```
/// assert_eq!(fairdeal_inside_out::INFO.name, "inside-out");
/// assert!(fairdeal_inside_out::INFO.fair);
/// ```
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "inside-out",
    complexity: Complexity::Linear,
    fair: true,
    summary: "inside-out Fisher-Yates: push each arriving item, then swap it with a uniformly \
              chosen position at or before it (one pass, any iterator)",
};

/// How many items [`InsideOut::shuffled`] takes from its iterator before drawing their indices.
const CHUNK: usize = 1024;

/// The inside-out Fisher-Yates shuffle, drawing indices through the sampler `S`.
///
/// ```
/// use fairdeal_core::Shuffler;
/// use fairdeal_inside_out::InsideOut;
/// use rand::SeedableRng;
///
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let lines = "ace\nking\nqueen\njack".lines();
/// let order = InsideOut::new().shuffled(lines, &mut rng);
/// assert_eq!(order.len(), 4);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct InsideOut<S = Batched> {
    sampler: S,
}

impl InsideOut {
    /// The shuffle with the default sampler, [`Batched`]: exactly unbiased, up to 18 indices
    /// per random word (4 words for a 52-card deck).
    pub const fn new() -> Self {
        Self { sampler: Batched }
    }
}

impl<S> InsideOut<S> {
    /// The shuffle drawing its indices through `sampler`.
    pub const fn with_sampler(sampler: S) -> Self {
        Self { sampler }
    }

    /// The sampler this shuffle draws indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }
}

impl<S: IndexSampler> InsideOut<S> {
    /// Places the items `data[start..]`, whose predecessors are already shuffled: item `i`
    /// swaps with an index below `i + 1` (bounds `start + 1, …, len`; item 0 draws nothing).
    ///
    /// That is the forward Fisher-Yates run from `start + 1`, so it goes through the sampler's
    /// [`swap_run`](IndexSampler::swap_run): the same draws and swaps as the checked loop, and
    /// with [`Batched`] its swaps without bounds checks (10.7 k instead of 15.3 k instructions for
    /// 1,000 `u32`, wyrand: `sampler_lab count wyrand io_1000 ours` against `checked` under
    /// callgrind, as in `docs/benchmarks.md`, "Instructions per call").
    #[inline]
    fn place<T, R: Rng + ?Sized>(&self, data: &mut [T], start: usize, rng: &mut R) {
        self.sampler
            .swap_run(rng, data, (start + 1).max(2), Order::Forward);
    }
}

impl<S: IndexSampler> Shuffler for InsideOut<S> {
    fn info(&self) -> AlgorithmInfo {
        INFO
    }

    #[inline]
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        // The same chunks as `shuffled`, so both give the same order for the same RNG state.
        let mut start = 0;
        while start < data.len() {
            let end = (start + CHUNK).min(data.len());
            self.place(&mut data[..end], start, rng);
            start = end;
        }
    }

    fn shuffled<T, I, R>(&self, items: I, rng: &mut R) -> Vec<T>
    where
        I: IntoIterator<Item = T>,
        R: Rng + ?Sized,
    {
        let mut items = items.into_iter();
        let mut out = Vec::with_capacity(items.size_hint().0);
        // Items arrive in chunks so that the sampler sees runs of bounds it can batch. Pushing a
        // whole chunk before its swaps changes nothing: the swap for position i only touches
        // positions up to i, which all hold the items they would hold one item at a time.
        loop {
            let start = out.len();
            out.extend(items.by_ref().take(CHUNK));
            let end = out.len();
            if end == start {
                return out;
            }
            self.place(&mut out, start, rng);
        }
    }
}
