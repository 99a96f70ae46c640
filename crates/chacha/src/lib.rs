/*!
ChaCha random number generators with the same streams as `rand`'s `ChaCha8Rng`, `ChaCha12Rng`
(= `StdRng`) and `ChaCha20Rng`, bit for bit, with faster block functions on x86-64.

On x86-64 a generator computes its blocks **one block per 32-bit lane**: 32 at a time (two
registers' worth) where the CPU (and the OS) support AVX-512F, 8 at a time with AVX2, checked
once per process at run time.
Every step of a round is then one instruction on all the blocks, where the `chacha20` crate's
code (which `rand` uses) keeps a block's words side by side and shuffles them between rounds.
On an Intel Xeon with AVX-512, ChaCha12 words come 3.1–3.2× faster than from `rand`'s generator
(`cargo xtask bench --duel`, the `words_4k` duel; `docs/benchmarks.md`), 1.66× with the AVX2
block function on the same CPU (below, "Measuring a narrower block function"). Elsewhere the
blocks come from the `chacha20` crate's block function.

Whichever computes them, the output is the same: the same seed, stream and word position give
the same words, and `next_u32`, `next_u64` and `fill_bytes` consume them exactly as `rand`'s
generators do, since the reads are `rand_core`'s `BlockRng`, as in `rand`'s generators
(`tests/streams.rs` compares with `rand`'s over every way of reading and seeking, and the unit
tests compare every block function this CPU runs with the portable one).

# Quick start

```
use fairdeal_chacha::ChaCha12Rng;
use rand_core::{Rng, SeedableRng};

let mut ours = ChaCha12Rng::seed_from_u64(7);
let mut rands = rand::rngs::StdRng::seed_from_u64(7);
assert_eq!(ours.next_u64(), rands.next_u64());

let mut a = [0u8; 100];
let mut b = [0u8; 100];
ours.fill_bytes(&mut a);
rands.fill_bytes(&mut b);
assert_eq!(a, b);
```

# Design choices

* **The same stream, not a new generator.** A faster block function changes how the keystream
  is computed, never which words it holds: seeded output across fairdeal stays what it was with
  `rand`'s generators, and the portable path is the `chacha20` crate itself rather than a copy.
* **The buffer is 32 blocks** (2 KiB; `rand`'s holds 4): the AVX-512 block function computes
  two sets of 16 at once, whose rounds fill the issue slots one set leaves empty on a core
  where a vector `add` takes 2 cycles (on the Zen 5 the `words_4k` duel against `rand`'s
  generator read 4.5–5.6×, against 3.7–4.0× with one set per call). Words are read in keystream order whatever the buffer size, so only when blocks are
  computed changes: a generator seeded and then read for a few words computes 32 blocks
  instead of 4.
* **Detection once, a type that proves it.** A block function's token can only be made by a
  successful detection, so each `unsafe` call into AVX-512 or AVX2 code has one argument for
  its safety, in one place (`src/wide.rs`).
* **Security** is the ChaCha cipher's: these are cryptographically secure generators (as
  `rand`'s), with 2^64 streams of 2^64 blocks per 256-bit seed.

# Measuring a narrower block function

A build can cap the choice: `RUSTFLAGS='--cfg fairdeal_chacha_widest="avx2"'` runs the AVX2
block function on a CPU with AVX-512, which is what a CPU without AVX-512 runs;
`="portable"` runs the `chacha20` crate's block function (which picks its own SIMD code:
AVX2 or SSE2 on x86-64, so not what a CPU without AVX2 runs). The stream is the same; only
[`ChaCha12Rng::block_function`] and the speed change. `cargo xtask bench` names the block
function on its machine line, so a report says which one it measured.

`#![no_std]`; only x86-64 has the wide block functions.
*/
#![no_std]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

// The unit tests ask std whether the CPU has AVX2.
#[cfg(test)]
extern crate std;

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod block;
mod engine;
#[cfg(target_arch = "x86_64")]
mod wide;

use core::fmt;

use rand_core::{Infallible, SeedableRng, TryCryptoRng, TryRng};

use crate::engine::Engine;

macro_rules! chacha_rng {
    ($(#[$doc:meta])* $name:ident, $portable:ty, $double_rounds:literal) => {
        $(#[$doc])*
        ///
        /// The seed is the 256-bit key; the stream (nonce) and the block counter are 64 bits
        /// each and start at zero. `seed_from_u64` is `rand_core`'s, as for `rand`'s type.
        pub struct $name(Engine<$portable, $double_rounds>);

        impl $name {
            /// Which block function computes this generator's blocks: `"avx512"` (32 at a
            /// time, where the CPU has AVX-512F), `"avx2"` (8 at a time) or `"portable"` (the
            /// `chacha20` crate's). The stream is the same whichever it is.
            #[must_use]
            pub fn block_function(&self) -> &'static str {
                self.0.block_function()
            }

            /// The seed (the key).
            #[must_use]
            pub fn get_seed(&self) -> [u8; 32] {
                self.0.get_seed()
            }

            /// The stream number (the nonce).
            #[must_use]
            pub fn get_stream(&self) -> u64 {
                self.0.get_stream()
            }

            /// Switches to stream `stream` and goes back to word position 0. (Call it before
            /// [`set_word_pos`](Self::set_word_pos), which it resets.)
            pub fn set_stream(&mut self, stream: u64) {
                self.0.set_stream(stream);
            }

            /// The position in the stream, in 32-bit words (a 68-bit number).
            #[must_use]
            pub fn get_word_pos(&self) -> u128 {
                self.0.get_word_pos()
            }

            /// Moves to word `word_pos` of the stream (taken modulo 2^68, the stream's length).
            pub fn set_word_pos(&mut self, word_pos: u128) {
                self.0.set_word_pos(word_pos);
            }

            /// One generator per block function this CPU runs, the portable one last.
            #[cfg(test)]
            fn every_path(seed: [u8; 32]) -> [Option<Self>; 3] {
                Engine::every_path(seed).map(|engine| engine.map(Self))
            }
        }

        impl SeedableRng for $name {
            type Seed = [u8; 32];

            #[inline]
            fn from_seed(seed: [u8; 32]) -> Self {
                Self(Engine::from_seed(seed))
            }
        }

        impl TryRng for $name {
            type Error = Infallible;

            #[inline]
            fn try_next_u32(&mut self) -> Result<u32, Infallible> {
                Ok(self.0.next_u32())
            }

            #[inline]
            fn try_next_u64(&mut self) -> Result<u64, Infallible> {
                Ok(self.0.next_u64())
            }

            #[inline]
            fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), Infallible> {
                self.0.fill_bytes(dest);
                Ok(())
            }
        }

        impl TryCryptoRng for $name {}

        /// Equal when seed, stream and word position are: the two then give the same words,
        /// whichever engine each uses.
        impl PartialEq for $name {
            fn eq(&self, other: &Self) -> bool {
                self.get_seed() == other.get_seed()
                    && self.get_stream() == other.get_stream()
                    && self.get_word_pos() == other.get_word_pos()
            }
        }

        impl Eq for $name {}

        /// Shows the engine, never the key or the buffered words.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("block_function", &self.block_function())
                    .finish_non_exhaustive()
            }
        }
    };
}

chacha_rng!(
    /// ChaCha with 8 rounds: the stream of `rand`'s `ChaCha8Rng`.
    ChaCha8Rng,
    chacha20::ChaCha8Rng,
    4
);
chacha_rng!(
    /// ChaCha with 12 rounds: the stream of `rand`'s `ChaCha12Rng`, which is `StdRng` in
    /// `rand` 0.10.
    ChaCha12Rng,
    chacha20::ChaCha12Rng,
    6
);
chacha_rng!(
    /// ChaCha with 20 rounds (the cipher of RFC 8439): the stream of `rand`'s `ChaCha20Rng`.
    ChaCha20Rng,
    chacha20::ChaCha20Rng,
    10
);

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    /// Every block function this CPU runs gives the same words and positions as the portable
    /// one through every way of reading, seeking and switching streams (`tests/streams.rs`
    /// compares the one `from_seed` picks with `rand`).
    macro_rules! engines_agree {
        ($test:ident, $rng:ident) => {
            #[test]
            fn $test() {
                let seed = core::array::from_fn(|i| i as u8 * 7 + 1);
                let [avx512, avx2, _] = $rng::every_path(seed);
                #[cfg(target_arch = "x86_64")]
                assert_eq!(avx2.is_some(), std::is_x86_feature_detected!("avx2"));
                for mut chosen in [avx512, avx2].into_iter().flatten() {
                    let [_, _, portable] = $rng::every_path(seed);
                    let mut portable = portable.expect("the portable path runs anywhere");
                    assert_eq!(portable.block_function(), "portable");
                    assert_ne!(chosen.block_function(), "portable");
                    let step = |chosen: &mut $rng, portable: &mut $rng, i: usize| {
                        match i % 3 {
                            0 => assert_eq!(chosen.next_u32(), portable.next_u32()),
                            1 => assert_eq!(chosen.next_u64(), portable.next_u64()),
                            _ => {
                                let (mut a, mut b) = ([0; 67], [0; 67]);
                                let len = i % 68;
                                chosen.fill_bytes(&mut a[..len]);
                                portable.fill_bytes(&mut b[..len]);
                                assert_eq!(a, b);
                            }
                        }
                        assert_eq!(chosen.get_word_pos(), portable.get_word_pos(), "step {i}");
                    };
                    for i in 0..2000 {
                        step(&mut chosen, &mut portable, i);
                    }
                    // Across the carry from word 12 into word 13 in the first and in the second
                    // set of 16 blocks of a refill, and at the end of the stream.
                    for position in [(1 << 36) - 40, (1 << 36) - 16 * 20, (1 << 68) - 7, 5] {
                        chosen.set_word_pos(position);
                        portable.set_word_pos(position);
                        for i in 0..200 {
                            step(&mut chosen, &mut portable, i);
                        }
                    }
                    // Another stream (the portable path then reads the chacha20 crate's
                    // generator), seeking in it, and back to stream 0 (its block function).
                    for stream in [u64::MAX - 1, 0] {
                        chosen.set_stream(stream);
                        portable.set_stream(stream);
                        assert_eq!(chosen.get_stream(), stream);
                        for i in 0..600 {
                            step(&mut chosen, &mut portable, i);
                        }
                        for position in [(1 << 36) - 40, 77] {
                            chosen.set_word_pos(position);
                            portable.set_word_pos(position);
                            for i in 0..300 {
                                step(&mut chosen, &mut portable, i);
                            }
                        }
                    }
                    assert_eq!(chosen.get_seed(), seed);
                    assert!(chosen == portable);
                    portable.next_u32();
                    assert!(chosen != portable);
                }
            }
        };
    }

    engines_agree!(chacha8_engines_agree, ChaCha8Rng);
    engines_agree!(chacha12_engines_agree, ChaCha12Rng);
    engines_agree!(chacha20_engines_agree, ChaCha20Rng);
}
