/*!
The shuffles fairdeal compares against: the naive O(N²) shuffle, the biased wrong-range swap and
sort-by-random-key.

| type | name | cost | fair? |
| --- | --- | --- | --- |
| [`Naive`] | `naive` | O(N²) | yes |
| [`Biased`] | `biased` | O(N) | **no**: the negative control |
| [`SortKey`] | `sort-key` | O(N log N) | yes, up to 64-bit key collisions |

* [`Naive`] is the shuffle of a first blackjack program: pick a random card among the ones left,
  take it out of the list (every card after it shifts down one place), put it on the new pile,
  repeat. Every order is equally likely, but each removal shifts O(N) elements, so a shuffle
  costs O(N²) moves.
* [`Biased`] swaps every position with a position drawn from the *whole* range
  (`for i in 0..n: swap(i, random in [0, n))`). It makes `n^n` equally likely draw paths, and
  `n^n` is not a multiple of `n!` for `n >= 3`, so some orders must come up more often than
  others (for `n = 3`: 27 paths onto 6 orders, three orders get 5 paths and three get 4). It is
  kept, marked unfair, as the negative control that every fairness test must reject. It must
  never be a default.
* [`SortKey`] tags every element with a random 64-bit key and sorts by key. All orders are
  equally likely as long as the keys are distinct; two equal keys (probability about
  `N² / 2^65`) leave the two elements in their original relative order, a bias too small to
  measure for card-sized inputs but not zero.

# Quick start

```
use fairdeal_naive::{Biased, Naive, Shuffler, SortKey}; // one crate: the trait comes with it
use rand::SeedableRng;

let mut rng = rand::rngs::StdRng::seed_from_u64(42);
let mut deck: Vec<u32> = (0..52).collect();

Naive::new().shuffle(&mut deck, &mut rng);
SortKey::new().shuffle(&mut deck, &mut rng);
assert!(Naive::new().info().fair && SortKey::new().info().fair);

// The negative control says so about itself.
assert!(!Biased::new().info().fair);

let mut sorted = deck.clone();
sorted.sort();
assert_eq!(sorted, (0..52).collect::<Vec<u32>>());
```

# Design choices

* **Faithful costs.** [`Naive`] really removes from the middle of a `Vec` (`Vec::remove`), so
  the benchmarks measure the quadratic cost a naive program pays. On a slice, whose elements
  cannot be moved out without `Clone` or `unsafe`, it removes *indices* from a `Vec<usize>` of
  the positions left, then moves the elements into the chosen order with swaps along the
  permutation's cycles (O(N)); [`Shuffler::shuffled`] removes the elements themselves. Both
  make the same choices, so for a given RNG state they give the same order.
* **Every index goes through the sampler.** [`Naive<S>`] and [`Biased<S>`] draw through an
  [`IndexSampler`] (default [`Lemire`], exactly unbiased), so the bias of [`Biased`] is the
  algorithm's alone, not the sampler's. [`SortKey`] draws no indices: its keys are raw
  `rng.next_u64()` words, so it has no sampler parameter.
* **No element bounds.** `T` needs no `Clone`, `Default` or `Ord`.

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

mod biased;
mod naive;
mod permute;
mod sort_key;

pub use biased::{BIASED_INFO, Biased};
pub use naive::{NAIVE_INFO, Naive};
pub use sort_key::{SORT_KEY_INFO, SortKey};

/// The crate every algorithm shares, re-exported (as `rand_pcg` re-exports `rand_core`) so that
/// depending on this crate alone is enough; its main items are also at the top level.
pub use fairdeal_core;
/// The trait, the index samplers and the error this crate's users need, from `fairdeal-core`.
pub use fairdeal_core::{Batched, IndexSampler, Lemire, Rng, ShuffleError, Shuffler};
