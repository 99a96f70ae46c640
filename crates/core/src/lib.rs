/*!
The small core every fairdeal crate builds on.

It holds three ideas and nothing else:

* [`Shuffler`]: the one trait every shuffling algorithm implements (in-place Fisher-Yates,
  inside-out, partial, the naive O(N²) shuffle, the biased negative control, sort-by-key) and
  every engine is generic over. Algorithms describe themselves with [`AlgorithmInfo`] so the
  CLI and the benchmark report never hard-code a name, complexity or fairness claim.
* [`IndexSampler`]: how an algorithm turns random bits into "an index in `[0, n)`", one at a
  time or a whole run of them. Both samplers here are *exactly* unbiased: [`Batched`] (the
  default of the fast algorithms) rolls up to 18 indices from one 64-bit word with one
  rejection check per batch (a 52-card deck in 4 words); [`Lemire`] (multiply-shift with rejection) draws one word per index
  and is the reference path. A backend that must reproduce another language bit for bit (Java's
  `nextInt`, Python's `_randbelow`) supplies its own one-at-a-time sampler; the algorithm is
  unchanged.
* [`ShuffleError`] and [`BatchError`]: the errors a caller can provoke with bad values (asking
  for more elements than exist, a batch of dice that does not fit in a word).

Two small helpers let parallel engines agree on how a run is cut: [`stream_seed`] (the seed of
chunk `c`) and [`Shard`] (which contiguous chunks one of `N` separate processes runs).

The RNG trait is the ecosystem's: [`rand_core::Rng`] (re-exported as [`Rng`]), so any
generator from `rand`, `rand_pcg`, `rand_chacha` … plugs in unchanged.

# Quick start

```
use fairdeal_core::{Lemire, IndexSampler, Rng};

// A toy Fisher-Yates written against the core pieces (the real one is `fairdeal-inplace`).
fn shuffle<T, R: Rng + ?Sized>(data: &mut [T], rng: &mut R) {
    for i in (1..data.len()).rev() {
        let j = Lemire.index_below(rng, i + 1);
        data.swap(i, j);
    }
}

use rand::SeedableRng;
let mut rng = rand::rngs::StdRng::seed_from_u64(7);
let mut deck: Vec<u32> = (0..52).collect();
shuffle(&mut deck, &mut rng);
let mut sorted = deck.clone();
sorted.sort();
assert_eq!(sorted, (0..52).collect::<Vec<u32>>());
```

# `no_std`

The crate is `#![no_std]` and needs only `alloc` (for [`Shuffler::shuffled`]'s `Vec`). Its one
feature, `rayon`, adds `run_parallel`, the chunk-seeded driver on a rayon pool (rayon needs
std); without it the serial driver [`run_serial`] is there.
*/
#![no_std]
#![deny(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

extern crate alloc;

mod batched;
mod chunks;
mod error;
mod info;
mod sample;
mod shard;
mod shuffler;
mod stream;

pub use batched::{BatchError, Batched};
#[cfg(feature = "rayon")]
pub use chunks::run_parallel;
pub use chunks::{Chunk, ChunkPlan, ChunkWork, Progress, run_serial};
pub use error::ShuffleError;
pub use info::{AlgorithmInfo, Complexity};
pub use rand_core::{self, Rng, SeedableRng};
pub use sample::{IndexSampler, Lemire, Order, lemire_index_below};
pub use shard::{Shard, ShardError};
pub use shuffler::{Shuffler, check_prefix};
pub use stream::stream_seed;
