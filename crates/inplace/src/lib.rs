/*!
Durstenfeld's in-place Fisher-Yates shuffle: the reference algorithm of fairdeal.

Swap each position `i` (from 1 to `n - 1`) with a position `j` uniform in `[0, i]`, once each.
That is `n - 1` random draws and at most `n - 1` swaps: O(N) time, O(1) extra space, and
every one of the `n!` orders has probability exactly `1/n!` when the draws are uniform (the
draws range over `2 · 3 · … · n = n!` equally likely tuples, and each tuple gives a different
permutation). The positions are visited in the [`Order`] the sampler names: front to back
(`i = 1, 2, …`) for slices of up to 16,384 elements and from the end (`i = n - 1, n - 2, …`,
Durstenfeld's original) for longer ones, which is the faster order at each length; always from
the end with the Java and Python samplers, whose languages shuffle that way.

# Quick start

```
use fairdeal_inplace::{Inplace, Shuffler}; // one crate: the trait comes with it
use rand::SeedableRng;

let mut rng = rand::rngs::StdRng::seed_from_u64(42);
let mut deck: Vec<u32> = (0..52).collect();
Inplace::new().shuffle(&mut deck, &mut rng);

let mut sorted = deck.clone();
sorted.sort();
assert_eq!(sorted, (0..52).collect::<Vec<u32>>()); // a permutation of the input
```

# Design choices

* **The order is the sampler's, and by default the faster one.** Both orders are the same
  algorithm and equally fair; for the same draws they give different permutations. Going from
  the end, each step reads a position that an earlier swap may have just written through an
  index the CPU has not yet computed, and the core (most likely: at 1,000 elements the forward
  order was faster even while it ran 9 % more instructions) replays the read when its guess was
  wrong; going front to back, the position read has never been written. On short slices that
  makes the front-to-back order 1.1–2.5× faster (52 to 1,000 elements); on long ones (65,536
  on) the two are within 5 % ([`Order::fastest`], `docs/benchmarks.md`). The switch is a
  constant, so a seeded shuffle is the same permutation on every machine.
* **Draw for draw like Java and Python.** From the end the sampler is asked for an index below
  `n, n - 1, …, 2`, in that order: exactly the calls of Java's `Collections.shuffle`
  (`rnd.nextInt(i)` for `i = size` down to `2`) and CPython's `random.shuffle` (`_randbelow(i +
  1)` for `i` from `n - 1` down to `1`). The samplers of `fairdeal-rng` that reproduce
  `nextInt` and `_randbelow` always name that order, so with them this crate reproduces those
  languages' shuffles element for element at every length. The trivial draw below 1 is never
  made.
* **Sampler as a type parameter.** [`Inplace<S>`] hands its run of bounds (`2` up to `n`, or
  `n` down to 2) to an [`IndexSampler`], which decides how random bits become indices; the
  algorithm never changes. The default, [`Batched`], rolls up to 18 indices from one 64-bit word (batched
  dice, exactly unbiased), so a 52-card deck costs 4 random words instead of 51 (the
  information-theoretic minimum is log₂ 52! / 64 ≈ 3.52).
  `Inplace::with_sampler(Lemire)` is the one-draw-per-step reference path, and the Java and
  Python samplers of `fairdeal-rng` make exactly the calls those languages make.
* **Prefetching on huge slices.** From 16 MiB on, beyond the cache, each swap is carried out
  64 draws after a hint (`prefetch_read`, the crate's one `unsafe` call) asked for its target's
  cache line: the same swaps in the same order, 1.6–2.5× faster from 16 MiB to 256 MiB of `u32`
  on the Zen 5. [`fairdeal-parallel`](https://docs.rs/fairdeal-parallel) is faster still there
  and uses every core.
* **No element bounds.** Elements are only swapped, so `T` needs no `Clone`, `Copy` or
  `Default`.
* **Prefix and iterator operations use the trait defaults.** [`Shuffler::shuffle_prefix`]
  shuffles the whole slice (use `fairdeal-partial` for an O(k) prefix) and
  [`Shuffler::shuffled`] collects then shuffles.

`#![no_std]`; the crate needs `alloc` only through `fairdeal-core`.
*/
#![no_std]
// One scoped exception, `prefetch.rs` (a cache hint; see the crate's Cargo.toml).
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The crate every algorithm shares, re-exported (as `rand_pcg` re-exports `rand_core`) so that
/// depending on this crate alone is enough; its main items are also at the top level.
pub use fairdeal_core;
/// The trait, the index samplers and the error this crate's users need, from `fairdeal-core`.
pub use fairdeal_core::{Batched, IndexSampler, Lemire, Order, Rng, ShuffleError, Shuffler};

use fairdeal_core::{AlgorithmInfo, Complexity};

mod prefetch;

pub use prefetch::prefetch_read;

/// The self-description of [`Inplace`]: name `"inplace"`, O(N), fair.
///
/// ```
/// assert_eq!(fairdeal_inplace::INFO.name, "inplace");
/// assert!(fairdeal_inplace::INFO.fair);
/// ```
pub const INFO: AlgorithmInfo = AlgorithmInfo {
    name: "inplace",
    complexity: Complexity::Linear,
    fair: true,
    summary: "Durstenfeld's in-place Fisher-Yates: swap each position with a uniformly chosen \
              position at or before it (front to back up to 16,384 elements, from the end above)",
};

/// Durstenfeld's in-place Fisher-Yates shuffle, drawing indices through the sampler `S`.
///
/// ```
/// use fairdeal_core::{Lemire, Shuffler};
/// use fairdeal_inplace::Inplace;
/// use rand::SeedableRng;
///
/// // Same seed, same order: shuffles are reproducible.
/// let shuffle = |seed| {
///     let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
///     let mut v = ['a', 'b', 'c', 'd'];
///     Inplace::with_sampler(Lemire).shuffle(&mut v, &mut rng);
///     v
/// };
/// assert_eq!(shuffle(9), shuffle(9));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Inplace<S = Batched> {
    sampler: S,
}

impl Inplace {
    /// The shuffle with the default sampler, [`Batched`]: exactly unbiased, up to 18 indices
    /// per random word (4 words for a 52-card deck).
    pub const fn new() -> Self {
        Self { sampler: Batched }
    }
}

impl<S> Inplace<S> {
    /// The shuffle drawing its indices through `sampler` (for example a Java- or
    /// Python-compatible sampler from `fairdeal-rng`).
    pub const fn with_sampler(sampler: S) -> Self {
        Self { sampler }
    }

    /// The sampler this shuffle draws indices with.
    pub const fn sampler(&self) -> &S {
        &self.sampler
    }
}

impl<S: IndexSampler> Shuffler for Inplace<S> {
    fn info(&self) -> AlgorithmInfo {
        INFO
    }

    #[inline]
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        // Either way, position `bound - 1` swaps with an index below `bound`; the sampler says
        // which way (the fastest for this length, or the order of the language it reproduces).
        match self.sampler.shuffle_order(data.len()) {
            Order::Forward => forward(&self.sampler, data, rng),
            Order::Backward => backward(&self.sampler, data, rng),
        }
    }
}

// Each order is its own function, never inlined: inlined together into the caller, the two
// runs made the front-to-back deck 12 % slower than alone (`cargo run --release -p
// fairdeal-benches --example duel -- --filter deck52/wyrand/inplace/fastrand`: 49.5 ns
// against 44 ns), and inlining only the forward one did not recover it.

/// Fisher-Yates front to back: bounds `2, 3, …, n`.
#[inline(never)]
fn forward<S: IndexSampler, T, R: Rng + ?Sized>(sampler: &S, data: &mut [T], rng: &mut R) {
    sampler.swap_run(rng, data, 2, Order::Forward);
}

/// Fisher-Yates from the end: bounds `n, n - 1, …, 2`; on a slice of at least
/// [`PREFETCH_FROM_BYTES`], with each swap's target prefetched [`LOOKAHEAD`] draws ahead.
#[inline(never)]
fn backward<S: IndexSampler, T, R: Rng + ?Sized>(sampler: &S, data: &mut [T], rng: &mut R) {
    if core::mem::size_of_val(data) >= PREFETCH_FROM_BYTES {
        backward_prefetched::<S, T, R, LOOKAHEAD>(sampler, data, rng);
        return;
    }
    sampler.swap_run(rng, data, 2, Order::Backward);
}

/// From this many bytes on, [`backward`] prefetches: 16 MiB. Beyond the cache, a swap's random
/// target is a miss that out-of-order execution overlaps with too few others; hinting it
/// [`LOOKAHEAD`] draws early made `u32` slices of 16 MiB to 256 MiB 1.6–2.5× faster on the Zen
/// 5 (32 MiB of L3), and slices of 8 MiB 1.5× slower (the ring's bookkeeping, with the targets
/// in L3 anyway): `docs/benchmarks.md`, "Huge slices". The hint changes no value, so the
/// threshold may differ from machine to machine without changing a permutation.
const PREFETCH_FROM_BYTES: usize = 16 << 20;

/// How many draws ahead of its swap a target is prefetched.
const LOOKAHEAD: usize = 64;

/// [`backward`]'s swaps, in the same order with the same draws (so the same permutation), each
/// carried out `D` draws after its target was prefetched: the draws never depend on the data,
/// so delaying the swaps changes nothing but when each line is asked for.
fn backward_prefetched<S: IndexSampler, T, R: Rng + ?Sized, const D: usize>(
    sampler: &S,
    data: &mut [T],
    rng: &mut R,
) {
    let n = data.len();
    // The last `D` draws: `(bound, index)`, draw `t` in slot `t % D`.
    let mut pending = [(0usize, 0usize); D];
    let mut drawn = 0usize;
    sampler.for_each_index_descending(rng, n, 2, |bound, j| {
        prefetch_read(data, j);
        let slot = &mut pending[drawn % D];
        if drawn >= D {
            data.swap(slot.0 - 1, slot.1);
        }
        *slot = (bound, j);
        drawn += 1;
    });
    for t in drawn.saturating_sub(D)..drawn {
        let (bound, j) = pending[t % D];
        data.swap(bound - 1, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::{Batched, Lemire, SeedableRng};
    use rand_pcg::Pcg64;

    extern crate std;
    use std::vec::Vec;

    /// The prefetching loop makes exactly the plain loop's swaps: on lengths around its ring
    /// size (so the ring is empty, part-filled, full and wrapped), with both samplers.
    #[test]
    fn prefetched_swaps_are_the_plain_swaps() {
        fn check<S: IndexSampler, const D: usize>(sampler: &S, n: usize, seed: u64) {
            let mut plain: Vec<u32> = (0..n as u32).collect();
            let mut ours = plain.clone();
            sampler.for_each_index_descending(&mut Pcg64::seed_from_u64(seed), n, 2, |b, j| {
                plain.swap(b - 1, j);
            });
            backward_prefetched::<S, u32, Pcg64, D>(
                sampler,
                &mut ours,
                &mut Pcg64::seed_from_u64(seed),
            );
            assert_eq!(ours, plain, "n = {n}, D = {D}, seed {seed}");
        }
        for n in (0..40).chain([63, 64, 65, 66, 200, 1000]) {
            for seed in 0..3 {
                check::<_, 1>(&Lemire, n, seed);
                check::<_, 4>(&Lemire, n, seed);
                check::<_, 4>(&Batched, n, seed);
                check::<_, LOOKAHEAD>(&Batched, n, seed);
            }
        }
    }
}
