/*!
Fair shuffles and card dealing, in one crate.

`fairdeal` is a facade: it re-exports the workspace's small crates behind features, so a user
adds one dependency and gets the [`Shuffler`] trait, the algorithms, the RNG backends and (on
request) the fairness tests; it adds one thing of its own, run-time registries of the
algorithms by name ([`algorithm_by_name`], [`AnyShuffler`], [`ALGORITHMS`]) and of the index
samplers ([`sampler_by_name`], [`AnySampler`], [`SAMPLERS`]).

# Quick start

Shuffle a deck with the default generator — ChaCha12, a CSPRNG — seeded from the operating
system, and with the default algorithm, in-place Fisher-Yates:

```
use fairdeal::rng::{Backend, DefaultBackend};
use fairdeal::{Inplace, Shuffler};

let mut rng = DefaultBackend::from_os()?;
let mut deck: Vec<u8> = (0..52).collect();
Inplace::new().shuffle(&mut deck, &mut rng);

let mut sorted = deck.clone();
sorted.sort();
assert_eq!(sorted, (0..52).collect::<Vec<u8>>()); // every card still there, once
# Ok::<(), Box<dyn std::error::Error>>(())
```

A seed makes the order reproducible, on every platform and every run:

```
use fairdeal::rng::{Backend, backend::ChaCha12};
use fairdeal::{Inplace, Shuffler};

let deal = |seed| {
    let mut rng = ChaCha12::seeded(seed);
    let mut deck: Vec<u8> = (0..52).collect();
    Inplace::new().shuffle(&mut deck, &mut rng);
    deck
};
assert_eq!(deal(42), deal(42));
assert_ne!(deal(42), deal(43));
```

Deal 7-card hands from one deck without restoring it between hands: a partial shuffle draws
only 7 random indices per hand, and a deck left in a fair random order by one hand is a fine
starting point for the next (see `fairdeal::partial`):

```
use fairdeal::partial::Dealer;
use fairdeal::rng::{Backend, DefaultBackend};

let mut rng = DefaultBackend::from_os()?;
let mut dealer = Dealer::new((0..52u8).collect());
for _ in 0..1000 {
    let hand = dealer.deal(7, &mut rng)?;
    assert_eq!(hand.len(), 7);
}
# Ok::<(), Box<dyn std::error::Error>>(())
```

Pick the algorithm and generator by name at run time, as the `fairdeal` command line does:

```
use fairdeal::rng::{Backend, JavaSampler, backend::Java};
use fairdeal::{algorithm_by_name, Shuffler};

// Bit for bit what Java's Collections.shuffle(list, new Random(42)) does:
let algo = algorithm_by_name("inplace", JavaSampler)?; // Java's nextInt(bound)
let mut rng = Java::seeded(42);
let mut v: Vec<u32> = (0..10).collect();
algo.shuffle(&mut v, &mut rng);
# Ok::<(), fairdeal::UnknownAlgorithm>(())
```

# Design choices

* **One crate per algorithm, one facade.** Like `rand` over `rand_core`/`rand_chacha`, the
  algorithms live in their own small `no_std` crates sharing the `fairdeal-core` trait; this
  crate only gathers them. Everything is re-exported under the crate's short name
  (`fairdeal::partial`, `fairdeal::rng` …) and the main types at the top level.
* **Static first, dynamic on request.** Library code should name a type (`Inplace<S>`) and get
  a fully monomorphised loop. [`AnyShuffler`] exists for callers that only learn the algorithm
  at run time; it matches once per call, not once per swap, and forwards prefix and iterator
  operations so `partial` stays O(k) and `inside-out` stays one-pass.
* **No retyped metadata.** [`ALGORITHMS`] is made of the algorithm crates' own `INFO`
  constants; the CLI and the benchmark report read names, complexity and fairness from there.
* **The default is fair and fast.** [`DEFAULT_ALGORITHM`] is `inplace`; the biased shuffle can
  only be had by asking for it by name.

# Features

| feature      | default | gives                                                             |
|--------------|---------|-------------------------------------------------------------------|
| `inplace`    | yes     | [`inplace`]: Durstenfeld's Fisher-Yates, [`Inplace`]              |
| `inside-out` | yes     | [`inside_out`]: [`InsideOut`], a shuffled `Vec` from an iterator  |
| `partial`    | yes     | [`partial`]: [`Partial`], `Dealer`, `sample_range`                |
| `naive`      | yes     | [`naive`]: [`Naive`] (O(N²)), [`Biased`] (unfair), [`SortKey`]    |
| `parallel`   | yes     | [`parallel`]: [`Parallel`], the scatter shuffle for huge N (rayon) |
| `rng`        | yes     | [`rng`]: the backend catalogue, `java` and `python` ports         |
| `fairness`   | no      | `fairness`: chi-square permutation and position tests             |
| `cards`      | no      | `cards`: `Card`, `Rank`, `Suit`, decks, shoes, "As Kd" parsing     |
| `poker`      | no      | `poker`: hand evaluation, exhaustive tables, equity               |
| `blackjack`  | no      | `blackjack`: rules, basic strategy, shoe, simulation              |

With all five algorithm features on (the default), the registry is available. With only the
`no_std` algorithm features (all but `parallel`) and `cards` the crate is `no_std` (it needs
`alloc`).
*/
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use fairdeal_core::{
    AlgorithmInfo, BatchError, Batched, Complexity, IndexSampler, Lemire, Order, Rng, SeedableRng,
    Shard, ShardError, ShuffleError, Shuffler, check_prefix, lemire_index_below, rand_core,
    stream_seed,
};

#[cfg(feature = "inplace")]
pub use fairdeal_inplace::{self as inplace, Inplace};

#[cfg(feature = "inside-out")]
pub use fairdeal_inside_out::{self as inside_out, InsideOut};

#[cfg(feature = "partial")]
pub use fairdeal_partial::{self as partial, Partial};

#[cfg(feature = "parallel")]
pub use fairdeal_parallel::{self as parallel, Parallel};

#[cfg(feature = "naive")]
pub use fairdeal_naive::{self as naive, Biased, Naive, SortKey};

#[cfg(feature = "rng")]
pub use fairdeal_rng as rng;

#[cfg(feature = "fairness")]
pub use fairdeal_fairness as fairness;

#[cfg(feature = "cards")]
pub use fairdeal_cards as cards;

#[cfg(feature = "poker")]
pub use fairdeal_poker as poker;

/// The README's code blocks, compiled and run as doc-tests so the front page stays true.
#[cfg(all(
    doctest,
    feature = "rng",
    feature = "inplace",
    feature = "partial",
    feature = "parallel"
))]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// This crate's README (its crates.io page): the quick start, compiled and run as a doc-test.
#[cfg(all(doctest, feature = "rng", feature = "inplace"))]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;

#[cfg(feature = "blackjack")]
pub use fairdeal_blackjack as blackjack;

#[cfg(all(feature = "blackjack", feature = "poker", feature = "fairness"))]
mod sharded;
#[cfg(all(feature = "blackjack", feature = "poker", feature = "fairness"))]
pub use sharded::{
    CheckedShard, RunDifference, ShardHeader, ShardSetError, ShardedCommand, check_shard_set,
};
#[cfg(all(
    feature = "blackjack",
    feature = "poker",
    feature = "fairness",
    feature = "serde"
))]
mod shard_doc;
#[cfg(all(
    feature = "blackjack",
    feature = "poker",
    feature = "fairness",
    feature = "serde"
))]
pub use shard_doc::{
    BadSeconds, JsonDifference, Mismatch, ShardDocError, check_rendered, check_same_run,
    first_difference, shard_seconds, show_json,
};

#[cfg(all(
    feature = "inplace",
    feature = "inside-out",
    feature = "partial",
    feature = "naive",
    feature = "parallel"
))]
mod registry;
mod sampler;

pub use sampler::{AnySampler, BACKEND_SAMPLER, SAMPLERS, UnknownSampler, sampler_by_name};

#[cfg(all(
    feature = "inplace",
    feature = "inside-out",
    feature = "partial",
    feature = "naive",
    feature = "parallel"
))]
pub use registry::{
    ALGORITHMS, AnyShuffler, DEFAULT_ALGORITHM, UnknownAlgorithm, algorithm_by_name,
};

#[cfg(all(
    feature = "inplace",
    feature = "inside-out",
    feature = "partial",
    feature = "naive",
    feature = "parallel",
    feature = "rng"
))]
mod selection;

#[cfg(all(
    feature = "inplace",
    feature = "inside-out",
    feature = "partial",
    feature = "naive",
    feature = "parallel",
    feature = "rng"
))]
pub use selection::{Resolved, Selection, SelectionError, WithResolved, with_selection};
