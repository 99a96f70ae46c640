/*!
ChaCha random number generators with the same streams as `rand`'s `ChaCha8Rng`, `ChaCha12Rng`
(= `StdRng`) and `ChaCha20Rng`, bit for bit, and faster where the CPU has AVX-512.

Where the CPU (and the OS) support AVX-512F, checked once per process at run time, a generator
computes **16 blocks at a time**, one block per 32-bit lane of a 512-bit register: every step of
a round is one instruction on all sixteen, and rotations are single instructions. On an Intel
Xeon with AVX-512 this fills ChaCha12 words about 3× faster than the `chacha20` crate's AVX2
code (`docs/benchmarks.md`, "ChaCha12 with AVX-512"). Everywhere else the generator *is* the
`chacha20` crate's, the code `rand` uses.

Either way the output is the same: the same seed, stream and word position give the same words,
and `next_u32`, `next_u64` and `fill_bytes` consume them exactly as `rand`'s generators do
(`tests/streams.rs` compares both paths with `rand`'s over every way of reading them).

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
* **The buffer is 16 blocks on the wide path** (1 KiB, 4 blocks on the portable path). Words are
  read in keystream order whatever the buffer size, so only when blocks are computed changes: a
  generator seeded and then read for a few words computes 16 blocks instead of 4.
* **Detection once, a type that proves it.** The wide state can only be built after detection
  succeeded, so the `unsafe` call into AVX-512 code has one argument for its safety, in one
  place (`src/wide.rs`).
* **Security** is the ChaCha cipher's: these are cryptographically secure generators (as
  `rand`'s), with 2^64 streams of 2^64 blocks per 256-bit seed.

`#![no_std]`; x86-64 only has the wide path.
*/
#![no_std]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(target_arch = "x86_64")]
mod wide;

use core::fmt;

use rand_core::{Infallible, SeedableRng, TryCryptoRng, TryRng};

/// The operations the portable generators (the `chacha20` crate's) offer, by name.
trait Portable: SeedableRng<Seed = [u8; 32]> + rand_core::Rng {
    fn get_seed(&self) -> [u8; 32];
    fn get_stream(&self) -> u64;
    fn set_stream(&mut self, stream: u64);
    fn get_word_pos(&self) -> u128;
    fn set_word_pos(&mut self, word_pos: u128);
}

macro_rules! portable {
    ($($rng:ty),*) => {$(
        impl Portable for $rng {
            fn get_seed(&self) -> [u8; 32] {
                <$rng>::get_seed(self)
            }
            fn get_stream(&self) -> u64 {
                <$rng>::get_stream(self)
            }
            fn set_stream(&mut self, stream: u64) {
                <$rng>::set_stream(self, stream);
            }
            fn get_word_pos(&self) -> u128 {
                <$rng>::get_word_pos(self)
            }
            fn set_word_pos(&mut self, word_pos: u128) {
                <$rng>::set_word_pos(self, word_pos);
            }
        }
    )*};
}
portable!(
    chacha20::ChaCha8Rng,
    chacha20::ChaCha12Rng,
    chacha20::ChaCha20Rng
);

/// How a generator computes its blocks: chosen once, when it is made.
///
/// The wide variant is larger (its buffer is 1 KiB against 256 bytes): boxing it would need
/// `alloc` and put a pointer chase on every draw.
#[allow(clippy::large_enum_variant)]
enum Engine<P, const DOUBLE_ROUNDS: usize> {
    /// 16 blocks at a time with AVX-512F.
    #[cfg(target_arch = "x86_64")]
    Wide(wide::Wide<DOUBLE_ROUNDS>),
    /// The `chacha20` crate's generator (AVX2, SSE2, NEON or plain code).
    Portable(P),
}

impl<P: Portable, const DOUBLE_ROUNDS: usize> Engine<P, DOUBLE_ROUNDS> {
    /// The wide engine where the CPU has AVX-512F, else the portable one.
    fn from_seed(seed: [u8; 32]) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = wide::Wide::from_seed(seed) {
            return Self::Wide(wide);
        }
        Self::Portable(P::from_seed(seed))
    }

    /// The portable engine, whatever the CPU (for tests that compare the two).
    #[cfg(test)]
    fn portable(seed: [u8; 32]) -> Self {
        Self::Portable(P::from_seed(seed))
    }

    fn is_wide(&self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(_) => true,
            Self::Portable(_) => false,
        }
    }

    #[inline]
    fn next_u32(&mut self) -> u32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.next_u32(),
            Self::Portable(rng) => rng.next_u32(),
        }
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.next_u64(),
            Self::Portable(rng) => rng.next_u64(),
        }
    }

    #[inline]
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.fill_bytes(dest),
            Self::Portable(rng) => rng.fill_bytes(dest),
        }
    }

    fn get_seed(&self) -> [u8; 32] {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.get_seed(),
            Self::Portable(rng) => rng.get_seed(),
        }
    }

    fn get_stream(&self) -> u64 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.get_stream(),
            Self::Portable(rng) => rng.get_stream(),
        }
    }

    fn set_stream(&mut self, stream: u64) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.set_stream(stream),
            Self::Portable(rng) => rng.set_stream(stream),
        }
    }

    fn get_word_pos(&self) -> u128 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.get_word_pos(),
            Self::Portable(rng) => rng.get_word_pos(),
        }
    }

    fn set_word_pos(&mut self, word_pos: u128) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Self::Wide(rng) => rng.set_word_pos(word_pos),
            Self::Portable(rng) => rng.set_word_pos(word_pos),
        }
    }
}

macro_rules! chacha_rng {
    ($(#[$doc:meta])* $name:ident, $portable:ty, $double_rounds:literal) => {
        $(#[$doc])*
        ///
        /// The seed is the 256-bit key; the stream (nonce) and the block counter are 64 bits
        /// each and start at zero. `seed_from_u64` is `rand_core`'s, as for `rand`'s type.
        pub struct $name(Engine<$portable, $double_rounds>);

        impl $name {
            /// Whether this generator computes its blocks with AVX-512 (16 at a time), as it
            /// does wherever the CPU has AVX-512F. The stream is the same either way.
            #[must_use]
            pub fn uses_avx512(&self) -> bool {
                self.0.is_wide()
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

            /// The portable engine, whatever the CPU: the tests compare it with the wide one.
            #[cfg(test)]
            fn portable(seed: [u8; 32]) -> Self {
                Self(Engine::portable(seed))
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
                    .field("avx512", &self.uses_avx512())
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

    /// The engine `from_seed` picks on this CPU and the portable engine give the same words
    /// and positions through every way of reading, seeking and switching streams (on a CPU
    /// without AVX-512 both are portable, and `tests/streams.rs` still compares with `rand`).
    macro_rules! engines_agree {
        ($test:ident, $rng:ident) => {
            #[test]
            fn $test() {
                let seed = core::array::from_fn(|i| i as u8 * 7 + 1);
                let mut chosen = $rng::from_seed(seed);
                let mut portable = $rng::portable(seed);
                assert!(!portable.uses_avx512());
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
                // Across the carry from word 12 into word 13, and at the end of the stream.
                for position in [(1 << 36) - 40, (1 << 68) - 7, 5] {
                    chosen.set_word_pos(position);
                    portable.set_word_pos(position);
                    for i in 0..200 {
                        step(&mut chosen, &mut portable, i);
                    }
                }
                chosen.set_stream(u64::MAX - 1);
                portable.set_stream(u64::MAX - 1);
                assert_eq!(chosen.get_stream(), u64::MAX - 1);
                for i in 0..600 {
                    step(&mut chosen, &mut portable, i);
                }
                assert_eq!(chosen.get_seed(), seed);
                assert!(chosen == portable);
                portable.next_u32();
                assert!(chosen != portable);
            }
        };
    }

    engines_agree!(chacha8_engines_agree, ChaCha8Rng);
    engines_agree!(chacha12_engines_agree, ChaCha12Rng);
    engines_agree!(chacha20_engines_agree, ChaCha20Rng);
}
