//! The AVX-512 block function: sixteen ChaCha blocks at once, one block per 32-bit lane.
//!
//! Register `x[i]` holds word `i` of the sixteen blocks, so every step of a quarter round is one
//! instruction on all sixteen (rotations are `vprold`), and no words move between lanes until
//! the end. Then a 16 × 16 transpose (64 shuffles) puts each block's words in order, and the
//! buffer holds blocks `counter .. counter + 16` one after the other: the keystream in the
//! order the portable code writes it.
//!
//! The crate's two scoped exceptions to `unsafe_code = "deny"` are here: calling the function
//! compiled for AVX-512F, which [`Core::new`] only allows on a CPU (and OS) that has it, and
//! the unaligned stores of a register into 16 words of the buffer.

use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_cmplt_epu32_mask, _mm512_mask_add_epi32, _mm512_rol_epi32,
    _mm512_set1_epi32, _mm512_setr_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512,
    _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64,
    _mm512_xor_si512,
};

use rand_core::block::{BlockRng, Generator};

cpufeatures::new!(avx512f, "avx512f");

/// Words in a ChaCha state and in a block.
const STATE_WORDS: usize = 16;
/// Blocks per call of the block function.
const BLOCKS: u64 = 16;
/// Words per call: the buffer of a wide generator.
const WORDS: usize = 256;
/// Every word position is below 2^68 (2^64 blocks of 16 words); positions wrap there, as in
/// `chacha20`.
const WORD_POS_MASK: u128 = (1 << 68) - 1;

/// A generator whose blocks come from [`blocks`]: `rand_core`'s buffer (which reads words in
/// keystream order, as `chacha20`'s generators do) around a [`Core`].
pub(crate) struct Wide<const DOUBLE_ROUNDS: usize>(BlockRng<Core<DOUBLE_ROUNDS>>);

impl<const DOUBLE_ROUNDS: usize> Wide<DOUBLE_ROUNDS> {
    /// The generator for `seed` (stream 0, word 0), or `None` without AVX-512F.
    pub(crate) fn from_seed(seed: [u8; 32]) -> Option<Self> {
        // The constants ("expand 32-byte k"), the key, block 0, stream 0.
        let mut state = [0; STATE_WORDS];
        state[..4].copy_from_slice(&[0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574]);
        for (word, bytes) in state[4..12].iter_mut().zip(seed.chunks_exact(4)) {
            *word = u32::from_le_bytes(bytes.try_into().expect("chunks of 4 bytes"));
        }
        Core::new(state).map(|core| Self(BlockRng::new(core)))
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
        (u64::from(self.0.core.state[15]) << 32) | u64::from(self.0.core.state[14])
    }

    pub(crate) fn set_stream(&mut self, stream: u64) {
        self.0.core.state[14] = stream as u32;
        self.0.core.state[15] = (stream >> 32) as u32;
        set_counter(&mut self.0.core.state, 0);
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
        set_counter(
            &mut self.0.core.state,
            (word_pos / STATE_WORDS as u128) as u64,
        );
        self.0
            .reset_and_skip((word_pos % STATE_WORDS as u128) as usize);
    }
}

/// The block counter of a state (words 12 and 13).
fn counter(state: &[u32; STATE_WORDS]) -> u64 {
    (u64::from(state[13]) << 32) | u64::from(state[12])
}

/// Sets the block counter of a state.
fn set_counter(state: &mut [u32; STATE_WORDS], counter: u64) {
    state[12] = counter as u32;
    state[13] = (counter >> 32) as u32;
}

/// A ChaCha state that computes its blocks with AVX-512F, `DOUBLE_ROUNDS` double rounds each.
///
/// Holding one proves the CPU has AVX-512F: [`Core::new`] is the only constructor.
struct Core<const DOUBLE_ROUNDS: usize> {
    /// Constants, key, block counter (words 12–13, the next block to compute), stream.
    state: [u32; STATE_WORDS],
    /// The detection that allowed this core.
    _avx512f: avx512f::InitToken,
}

impl<const DOUBLE_ROUNDS: usize> Core<DOUBLE_ROUNDS> {
    /// A core for `state`, or `None` where the CPU or the OS lacks AVX-512F (detected once per
    /// process, then read from a static).
    fn new(state: [u32; STATE_WORDS]) -> Option<Self> {
        let (token, present) = avx512f::init_get();
        present.then_some(Self {
            state,
            _avx512f: token,
        })
    }
}

impl<const DOUBLE_ROUNDS: usize> Generator for Core<DOUBLE_ROUNDS> {
    type Output = [u32; WORDS];

    fn generate(&mut self, output: &mut [u32; WORDS]) {
        // SAFETY: `blocks` needs AVX-512F, and a `Core` exists only where `Core::new` detected
        // it (CPUID and the OS's XCR0 saving the zmm registers).
        #[allow(unsafe_code)]
        unsafe {
            blocks::<DOUBLE_ROUNDS>(&self.state, output);
        };
        let next = counter(&self.state).wrapping_add(BLOCKS);
        set_counter(&mut self.state, next);
    }
}

/// One quarter round on sixteen blocks at once.
#[target_feature(enable = "avx512f")]
#[inline]
fn quarter_round(x: &mut [__m512i; STATE_WORDS], a: usize, b: usize, c: usize, d: usize) {
    x[a] = _mm512_add_epi32(x[a], x[b]);
    x[d] = _mm512_rol_epi32::<16>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<12>(_mm512_xor_si512(x[b], x[c]));
    x[a] = _mm512_add_epi32(x[a], x[b]);
    x[d] = _mm512_rol_epi32::<8>(_mm512_xor_si512(x[d], x[a]));
    x[c] = _mm512_add_epi32(x[c], x[d]);
    x[b] = _mm512_rol_epi32::<7>(_mm512_xor_si512(x[b], x[c]));
}

/// Blocks `counter .. counter + 16` of `state` (the counter is 64 bits, words 12–13, and
/// carries from word 12 into word 13), written to `out` in order.
#[target_feature(enable = "avx512f")]
fn blocks<const DOUBLE_ROUNDS: usize>(state: &[u32; STATE_WORDS], out: &mut [u32; WORDS]) {
    let word = |i: usize| _mm512_set1_epi32(state[i] as i32);
    let mut x: [__m512i; STATE_WORDS] = core::array::from_fn(word);
    // Lane j computes block counter + j.
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let low = _mm512_add_epi32(x[12], lanes);
    let carried = _mm512_cmplt_epu32_mask(low, lanes);
    let high = _mm512_mask_add_epi32(x[13], carried, x[13], _mm512_set1_epi32(1));
    x[12] = low;
    x[13] = high;
    for _ in 0..DOUBLE_ROUNDS {
        quarter_round(&mut x, 0, 4, 8, 12);
        quarter_round(&mut x, 1, 5, 9, 13);
        quarter_round(&mut x, 2, 6, 10, 14);
        quarter_round(&mut x, 3, 7, 11, 15);
        quarter_round(&mut x, 0, 5, 10, 15);
        quarter_round(&mut x, 1, 6, 11, 12);
        quarter_round(&mut x, 2, 7, 8, 13);
        quarter_round(&mut x, 3, 4, 9, 14);
    }
    // The input added back; words 12 and 13 differ per lane. (Broadcasting again rather than
    // keeping a copy leaves the 32 registers to the rounds.)
    for (i, x) in x.iter_mut().enumerate() {
        let input = match i {
            12 => low,
            13 => high,
            _ => word(i),
        };
        *x = _mm512_add_epi32(*x, input);
    }
    // The transpose. Within each 128-bit lane, a 4 × 4 transpose of words 4g..4g+4 leaves
    // `rows[m][g]`, whose lane l holds words 4g..4g+4 of block 4l + m.
    let mut rows = [[x[0]; 4]; 4];
    for g in 0..4 {
        let [w0, w1, w2, w3] = [x[4 * g], x[4 * g + 1], x[4 * g + 2], x[4 * g + 3]];
        let (a, b) = (_mm512_unpacklo_epi32(w0, w1), _mm512_unpackhi_epi32(w0, w1));
        let (c, d) = (_mm512_unpacklo_epi32(w2, w3), _mm512_unpackhi_epi32(w2, w3));
        rows[0][g] = _mm512_unpacklo_epi64(a, c);
        rows[1][g] = _mm512_unpackhi_epi64(a, c);
        rows[2][g] = _mm512_unpacklo_epi64(b, d);
        rows[3][g] = _mm512_unpackhi_epi64(b, d);
    }
    // Then a 4 × 4 transpose of 128-bit lanes gathers block 4l + m's four quarters.
    for (m, row) in rows.iter().enumerate() {
        let p = _mm512_shuffle_i32x4::<0b01_00_01_00>(row[0], row[1]);
        let q = _mm512_shuffle_i32x4::<0b11_10_11_10>(row[0], row[1]);
        let r = _mm512_shuffle_i32x4::<0b01_00_01_00>(row[2], row[3]);
        let s = _mm512_shuffle_i32x4::<0b11_10_11_10>(row[2], row[3]);
        let blocks = [
            _mm512_shuffle_i32x4::<0b10_00_10_00>(p, r),
            _mm512_shuffle_i32x4::<0b11_01_11_01>(p, r),
            _mm512_shuffle_i32x4::<0b10_00_10_00>(q, s),
            _mm512_shuffle_i32x4::<0b11_01_11_01>(q, s),
        ];
        for (l, block) in blocks.into_iter().enumerate() {
            let start = 16 * (4 * l + m);
            let dst: &mut [u32; 16] = (&mut out[start..start + 16])
                .try_into()
                .expect("a block is 16 words");
            // SAFETY: `dst` is 16 writable `u32`s, the 64 bytes one register holds, and the
            // unaligned store has no alignment requirement.
            #[allow(unsafe_code)]
            unsafe {
                _mm512_storeu_si512(dst.as_mut_ptr().cast(), block);
            };
        }
    }
}
