//! One generator for every path: `rand_core`'s `BlockRng` over a 32-block buffer (so every
//! read is the same code as in `rand`'s generators), refilled by the AVX-512 or AVX2 block
//! function of `wide.rs` or by the `chacha20` crate's block function (its AVX2, SSE2, NEON or
//! plain code), each writing straight into the buffer. The choice is made once, when the generator is made; only a
//! refill looks at it.

use rand_core::block::{BlockRng, Generator};
use rand_core::{Rng, SeedableRng};

#[cfg(target_arch = "x86_64")]
use crate::wide::{Avx2, Avx512};

use crate::block::{STATE_WORDS, WORDS, counter, set_counter};

/// Blocks per refill.
const BLOCKS: u64 = (WORDS / STATE_WORDS) as u64;
/// Every word position is below 2^68 (2^64 blocks of 16 words); positions wrap there, as in
/// `chacha20`.
const WORD_POS_MASK: u128 = (1 << 68) - 1;

/// The `chacha20` crate's generators and block functions, as far as a refill and a seek need
/// them.
pub(crate) trait Portable: SeedableRng<Seed = [u8; 32]> + Rng {
    /// The block function (4 blocks per call) for stream 0, whose counter can be set.
    type Blocks: Generator<Output = [u32; 64]> + SeedableRng<Seed = [u8; 32]>;
    fn set_block_pos(blocks: &mut Self::Blocks, block: u64);
    fn set_stream(&mut self, stream: u64);
    fn set_word_pos(&mut self, word_pos: u128);
}

macro_rules! portable {
    ($($rng:ty: $rounds:ty),*) => {$(
        impl Portable for $rng {
            type Blocks = chacha20::ChaChaCore<$rounds, chacha20::variants::Legacy>;
            fn set_block_pos(blocks: &mut Self::Blocks, block: u64) {
                blocks.set_block_pos(block);
            }
            fn set_stream(&mut self, stream: u64) {
                <$rng>::set_stream(self, stream);
            }
            fn set_word_pos(&mut self, word_pos: u128) {
                <$rng>::set_word_pos(self, word_pos);
            }
        }
    )*};
}
portable!(
    chacha20::ChaCha8Rng: chacha20::R8,
    chacha20::ChaCha12Rng: chacha20::R12,
    chacha20::ChaCha20Rng: chacha20::R20
);

/// What computes the blocks.
enum Blocks<P: Portable> {
    /// The AVX-512 block function, 32 blocks per call (two sets of 16).
    #[cfg(target_arch = "x86_64")]
    Avx512(Avx512),
    /// The AVX2 block function, 8 blocks per call (four calls per refill).
    #[cfg(target_arch = "x86_64")]
    Avx2(Avx2),
    /// The `chacha20` crate's block function on stream 0 (every generator until
    /// `set_stream`), eight calls per refill, its counter set from ours before each refill.
    Portable(P::Blocks),
    /// Another stream: the `chacha20` crate's generator for it (its block function has no
    /// public way to take a stream), kept at the first word of the next refill and read a
    /// whole refill at a time.
    Stream(P),
}

/// A ChaCha state and what computes its blocks.
struct Core<P: Portable, const DOUBLE_ROUNDS: usize> {
    /// Constants, key, block counter (words 12–13: the first block of the next refill), stream.
    state: [u32; STATE_WORDS],
    blocks: Blocks<P>,
}

impl<P: Portable, const DOUBLE_ROUNDS: usize> Generator for Core<P, DOUBLE_ROUNDS> {
    type Output = [u32; WORDS];

    // Out of line, as the `chacha20` crate's is: with the refill inlined into `BlockRng`'s
    // reads, rand's shuffle on this generator ran 1.2× slower at 1,000 elements (duel builds
    // alternated on the Intel Xeon).
    #[inline(never)]
    fn generate(&mut self, output: &mut [u32; WORDS]) {
        match &mut self.blocks {
            #[cfg(target_arch = "x86_64")]
            Blocks::Avx512(avx512) => avx512.blocks::<DOUBLE_ROUNDS>(&self.state, output),
            #[cfg(target_arch = "x86_64")]
            Blocks::Avx2(avx2) => avx2.blocks::<DOUBLE_ROUNDS>(&self.state, output),
            Blocks::Portable(blocks) => {
                P::set_block_pos(blocks, counter(&self.state));
                for chunk in output.chunks_exact_mut(64) {
                    blocks.generate(chunk.try_into().expect("chunks of 64 words"));
                }
            }
            Blocks::Stream(rng) => {
                rng.fill_bytes(bytemuck::cast_slice_mut(output));
                for word in output.iter_mut() {
                    *word = u32::from_le(*word);
                }
            }
        }
        let next = counter(&self.state).wrapping_add(BLOCKS);
        set_counter(&mut self.state, next);
    }
}

/// A ChaCha generator with `DOUBLE_ROUNDS` double rounds whose portable path is `P`.
pub(crate) struct Engine<P: Portable, const DOUBLE_ROUNDS: usize>(BlockRng<Core<P, DOUBLE_ROUNDS>>);

impl<P: Portable, const DOUBLE_ROUNDS: usize> Engine<P, DOUBLE_ROUNDS> {
    /// The generator for `seed` (stream 0, word 0) with the widest block function this CPU
    /// runs, up to the cap the build sets (`--cfg fairdeal_chacha_widest="avx2"` or
    /// `="portable"`: the crate doc).
    pub(crate) fn from_seed(seed: [u8; 32]) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            // `cfg!`, not `#[cfg]`: a capped build still compiles (and uses) every path.
            let cap_avx2 = cfg!(fairdeal_chacha_widest = "avx2");
            let cap_portable = cfg!(fairdeal_chacha_widest = "portable");
            if !cap_avx2
                && !cap_portable
                && let Some(avx512) = Avx512::detect()
            {
                return Self::with(seed, Blocks::Avx512(avx512));
            }
            if !cap_portable && let Some(avx2) = Avx2::detect() {
                return Self::with(seed, Blocks::Avx2(avx2));
            }
        }
        Self::portable(seed)
    }

    /// The generator for `seed` with each block function this CPU runs, the portable one
    /// last (for tests that compare them).
    #[cfg(test)]
    pub(crate) fn every_path(seed: [u8; 32]) -> [Option<Self>; 3] {
        #[cfg(target_arch = "x86_64")]
        let wide = [
            Avx512::detect().map(|avx512| Self::with(seed, Blocks::Avx512(avx512))),
            Avx2::detect().map(|avx2| Self::with(seed, Blocks::Avx2(avx2))),
        ];
        #[cfg(not(target_arch = "x86_64"))]
        let wide = [None, None];
        let [avx512, avx2] = wide;
        [avx512, avx2, Some(Self::portable(seed))]
    }

    /// The generator for `seed` on the portable path, whatever the CPU.
    fn portable(seed: [u8; 32]) -> Self {
        Self::with(seed, Blocks::Portable(P::Blocks::from_seed(seed)))
    }

    fn with(seed: [u8; 32], blocks: Blocks<P>) -> Self {
        // The constants ("expand 32-byte k"), the key, block 0, stream 0.
        let mut state = [0; STATE_WORDS];
        state[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        for (word, bytes) in state[4..12].iter_mut().zip(seed.chunks_exact(4)) {
            *word = u32::from_le_bytes(bytes.try_into().expect("chunks of 4 bytes"));
        }
        Self(BlockRng::new(Core { state, blocks }))
    }

    /// `"avx512"`, `"avx2"` or `"portable"`: see `ChaCha12Rng::block_function`.
    pub(crate) fn block_function(&self) -> &'static str {
        match self.0.core.blocks {
            #[cfg(target_arch = "x86_64")]
            Blocks::Avx512(_) => "avx512",
            #[cfg(target_arch = "x86_64")]
            Blocks::Avx2(_) => "avx2",
            Blocks::Portable(_) | Blocks::Stream(_) => "portable",
        }
    }

    #[inline]
    pub(crate) fn next_u32(&mut self) -> u32 {
        self.0.next_word()
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0.next_u64_from_u32()
    }

    #[inline]
    pub(crate) fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest);
    }

    pub(crate) fn get_seed(&self) -> [u8; 32] {
        let mut seed = [0; 32];
        for (bytes, word) in seed.chunks_exact_mut(4).zip(&self.0.core.state[4..12]) {
            bytes.copy_from_slice(&word.to_le_bytes());
        }
        seed
    }

    pub(crate) fn get_stream(&self) -> u64 {
        let state = &self.0.core.state;
        (u64::from(state[15]) << 32) | u64::from(state[14])
    }

    pub(crate) fn set_stream(&mut self, stream: u64) {
        let seed = self.get_seed();
        let core = &mut self.0.core;
        core.state[14] = stream as u32;
        core.state[15] = (stream >> 32) as u32;
        set_counter(&mut core.state, 0);
        match &mut core.blocks {
            #[cfg(target_arch = "x86_64")]
            Blocks::Avx512(_) | Blocks::Avx2(_) => {}
            Blocks::Portable(_) | Blocks::Stream(_) if stream == 0 => {
                core.blocks = Blocks::Portable(P::Blocks::from_seed(seed));
            }
            Blocks::Portable(_) | Blocks::Stream(_) => {
                let mut rng = P::from_seed(seed);
                rng.set_stream(stream);
                core.blocks = Blocks::Stream(rng);
            }
        }
        self.0.reset_and_skip(0);
    }

    pub(crate) fn get_word_pos(&self) -> u128 {
        // The counter names the block after the buffer's; while the buffer has words left,
        // the position is inside the buffer's blocks.
        let mut block = counter(&self.0.core.state);
        let offset = self.0.word_offset();
        if offset != 0 {
            block = block.wrapping_sub(BLOCKS);
        }
        (u128::from(block) * STATE_WORDS as u128 + offset as u128) & WORD_POS_MASK
    }

    pub(crate) fn set_word_pos(&mut self, word_pos: u128) {
        let word_pos = word_pos & WORD_POS_MASK;
        let block = (word_pos / STATE_WORDS as u128) as u64;
        let core = &mut self.0.core;
        set_counter(&mut core.state, block);
        if let Blocks::Stream(rng) = &mut core.blocks {
            rng.set_word_pos(u128::from(block) * STATE_WORDS as u128);
        }
        self.0
            .reset_and_skip((word_pos % STATE_WORDS as u128) as usize);
    }
}
