/*!
The random number generators fairdeal shuffles with, by stable name.

A shuffle is only as good as its random numbers. This crate is the catalogue fairdeal's CLI,
benchmarks and engines choose from: ten generators, each behind the ecosystem's own trait
([`rand_core::Rng`]), each describing itself ([`BackendInfo`]: state size, whether it is
cryptographically secure, how many elements it can shuffle into *every* order), each paired
with the bounded-index sampler it shuffles with.

# Quick start

```
use fairdeal_inplace::{Inplace, Shuffler};
use fairdeal_rng::{Backend, DefaultBackend, JavaSampler, backend::Java};

// Real use: the default CSPRNG (ChaCha12), seeded from the operating system.
let mut rng = DefaultBackend::from_os()?;
let mut deck: Vec<u8> = (0..52).collect();
Inplace::new().shuffle(&mut deck, &mut rng);

// Reproducible: the same seed gives the same order, on every platform.
let mut a: Vec<u8> = (0..52).collect();
let mut b = a.clone();
Inplace::new().shuffle(&mut a, &mut DefaultBackend::seeded(7));
Inplace::new().shuffle(&mut b, &mut DefaultBackend::seeded(7));
assert_eq!(a, b);

// Bit-exact with Java: Collections.shuffle(List.of(0, 1, 2, 3, 4), new Random(0)) gives
// [4, 2, 1, 3, 0].
let java = Inplace::with_sampler(JavaSampler); // Java's nextInt(bound), draw for draw
let mut five = [0, 1, 2, 3, 4];
java.shuffle(&mut five, &mut Java::seeded(0));
assert_eq!(five, [4, 2, 1, 3, 0]);
# Ok::<(), fairdeal_rng::RngError>(())
```

Picking a backend by name at run time (what `fairdeal --backend NAME` does) goes through
[`with_backend`] and a [`BackendVisitor`]: generic code written once for `B: Backend`, compiled
once per backend, no boxing and no dynamic dispatch in the shuffle loop.

# The backends

| name | generator | crypto | state bits | every order up to n = |
|------|-----------|--------|-----------:|----------------------:|
| `chacha8` | ChaCha, 8 rounds (`rand`) | yes | 256 | 57 |
| `chacha12` | ChaCha, 12 rounds = `rand`'s `StdRng` (**default**) | yes | 256 | 57 |
| `chacha20` | ChaCha, 20 rounds (`rand`) | yes | 256 | 57 |
| `xoshiro256pp` | xoshiro256++ = `rand`'s `SmallRng` on 64-bit | no | 256 | 57 |
| `pcg32` | PCG XSH RR 64/32 (`rand_pcg`) | no | 127 | 33 |
| `pcg64` | PCG XSL RR 128/64 (`rand_pcg`) | no | 255 | 57 |
| `pcg64mcg` | PCG XSL RR 128/64 MCG (`rand_pcg`) | no | 127 | 33 |
| `wyrand` | wyrand (`fastrand`, via [`WyRand`]) | no | 64 | 20 |
| `java` | `java.util.Random` ([`JavaRandom`]) + `nextInt(bound)` | no | 48 | 16 |
| `python` | CPython MT19937 ([`PythonRandom`]) + `_randbelow` | no | 19937 | 2080 |

The numbers come from [`backends()`], which `fairdeal backends` prints; the last column is
computed from the state size by [`max_full_permutation_n`], never typed in (a test checks this
table against it).

Design choices:

* **One stream per algorithm.** The ChaCha generators are `fairdeal-chacha`'s: the streams of
  `rand`'s ChaCha generators (the `chacha20` crate `StdRng` itself uses), read by the same code,
  with blocks computed 16 or 8 at a time where the CPU has AVX-512 or AVX2.
  `chacha12`'s stream is `StdRng`'s, but its type is not `StdRng` because `rand` may change
  what `StdRng` is; tests check they agree today.
* **Seeds mean what the source language means.** [`Backend::seeded`] is
  `SeedableRng::seed_from_u64`; `java` and `python` override it so that `seeded(s)` is
  `new Random(s)` and `random.seed(s)`, and `wyrand` so that it is
  `fastrand::Rng::with_seed(s)`. [`Backend::from_os`] fills the whole seed from `getrandom`.
* **Bit-exactness is a sampler, not a special algorithm.** Java's `nextInt(bound)` and
  CPython's `_randbelow` are [`IndexSampler`](fairdeal_core::IndexSampler)s
  ([`JavaSampler`], [`PythonSampler`]); fairdeal's ordinary in-place Fisher-Yates, given one,
  makes exactly the draws `Collections.shuffle` and `random.shuffle` make. The committed
  fixtures in `fixtures/` come from the real `java` and `python3` (see `fixtures/README.md`).
* **GNU's `--random-source` is a byte stream, not a seed.** [`GnuRandom`] draws bounded
  integers from any [`Read`](std::io::Read) exactly as GNU coreutils' `shuf` does (gnulib's
  `randint` and `randperm`, shuf's reservoir for `-n` and its draws for `-r`), so the same file
  gives `shuf --random-source=FILE`'s output; it is not in the table above because it has no
  state to seed. Its fixtures come from the real `shuf`.

# Security: can it even reach every deck order?

A generator is a deterministic function of its state, so a freshly seeded one can produce at
most `2^state_bits` different shuffles. There are 52! ≈ 2^225.6 orders of a deck: a generator
needs at least 226 bits of state for every order to be *possible*.
[`BackendInfo::max_full_permutation_n`] is the largest `n` with `n! <= 2^state_bits`.
`java` (48 bits) covers every order only up to 16 elements and can deal at most one in
2^177 of all deck orders; `wyrand` (64 bits) stops at 20, `pcg32` and `pcg64mcg` (127 bits) at
33. Reaching every order is necessary, not sufficient: the fairness tests check uniformity.

The state only counts when it is filled with that many random bits. [`Backend::from_os`] fills
the whole seed; [`Backend::seeded`] starts from a `u64`, so a seeded run of *any* backend can
produce at most 2^64 different shuffles. Seeds are for reproducing results, not for dealing.

Separately, only the ChaCha backends are **cryptographically secure**: for every other backend
an observer who sees some outputs (dealt cards) can compute the rest, so they must never deal
real-money games. Their summaries say "NOT cryptographic". Real dealing should use the default,
seeded from the OS.
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod backend;
mod gnu;
mod info;
mod java;
mod python;
mod wyrand;

pub use backend::{
    Backend, BackendVisitor, DEFAULT_BACKEND, DefaultBackend, UnknownBackend, backend_info,
    backends, with_backend,
};
pub use gnu::{
    GNU_RESERVOIR_MIN_INPUT, GnuError, GnuInput, GnuRandom, GnuSampler, gnu_opens_source,
    gnu_randperm_bytes,
};
pub use info::{BackendInfo, max_full_permutation_n};
pub use java::{JavaRandom, JavaSampler};
pub use python::{PythonRandom, PythonSampler};
pub use wyrand::WyRand;

/// Seeding from the operating system failed.
///
/// ```
/// use fairdeal_rng::{Backend, backend::ChaCha20};
/// let rng = ChaCha20::from_os(); // Result<ChaCha20Rng, RngError>
/// assert!(rng.is_ok());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RngError {
    /// `getrandom` could not read the operating system's entropy source.
    #[error("cannot seed from the operating system's random source: {0}")]
    Os(#[source] rand::rngs::SysError),
}
