//! The x86-64 block functions: many ChaCha blocks at once, one block per 32-bit lane.
//!
//! Register `x[i]` holds word `i` of every block, so every step of a quarter round is one
//! instruction on all of them, and no words move between lanes until the end. Then a transpose
//! puts each block's words in order, and the buffer holds the blocks one after the other: the
//! keystream in the order the portable code writes it. With AVX-512F: 32 blocks per call, two
//! sets of 16 whose rounds interleave, and rotations are single instructions (`vprold`). With
//! AVX2: 8 blocks per call (four per refill), rotations by 16 and 8 are byte shuffles and by 12
//! and 7 two shifts and an `or`.
//!
//! The crate's scoped exceptions to `unsafe_code = "deny"` are here: calling a function compiled
//! for AVX-512F or AVX2, which only an [`Avx512`] or an [`Avx2`] (made by a successful
//! detection) can do, and the unaligned stores of a register into the buffer.

use core::arch::x86_64::{
    __m256i, __m512i, _mm256_add_epi32, _mm256_cmpgt_epi32, _mm256_or_si256,
    _mm256_permute2x128_si256, _mm256_set1_epi32, _mm256_setr_epi8, _mm256_setr_epi32,
    _mm256_shuffle_epi8, _mm256_slli_epi32, _mm256_srli_epi32, _mm256_storeu_si256,
    _mm256_sub_epi32, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_add_epi32, _mm512_cmplt_epu32_mask,
    _mm512_mask_add_epi32, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_setr_epi32,
    _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64,
    _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

use crate::block::{STATE_WORDS, WORDS, counter};

cpufeatures::new!(avx512f, "avx512f");
cpufeatures::new!(avx2, "avx2");

/// One double round of `$quarter_round` on each register array `$x`: the four columns, then the
/// four diagonals, each quarter round on every array before the next (so the arrays' chains sit
/// side by side in the code as in the core). A macro rather than a loop over an index table, so
/// every index is a constant and the registers stay registers in both kernels.
macro_rules! double_round {
    ($quarter_round:ident, $($x:expr),+) => {
        $($quarter_round($x, 0, 4, 8, 12);)+
        $($quarter_round($x, 1, 5, 9, 13);)+
        $($quarter_round($x, 2, 6, 10, 14);)+
        $($quarter_round($x, 3, 7, 11, 15);)+
        $($quarter_round($x, 0, 5, 10, 15);)+
        $($quarter_round($x, 1, 6, 11, 12);)+
        $($quarter_round($x, 2, 7, 8, 13);)+
        $($quarter_round($x, 3, 4, 9, 14);)+
    };
}

/// Proof that this CPU and its OS run AVX2 code: [`Avx2::detect`] is the only way to make one.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(avx2::InitToken);

impl Avx2 {
    /// `Some` where CPUID reports AVX2 and the OS saves the ymm registers; detected once per
    /// process.
    pub(crate) fn detect() -> Option<Self> {
        let (token, present) = avx2::init_get();
        present.then_some(Self(token))
    }

    /// Blocks `counter .. counter + 32` of `state` into `out`, in order: four calls of 8.
    #[inline]
    pub(crate) fn blocks<const DOUBLE_ROUNDS: usize>(
        self,
        state: &[u32; STATE_WORDS],
        out: &mut [u32; WORDS],
    ) {
        let counter = counter(state);
        for (offset, quarter) in (0..).step_by(8).zip(out.chunks_exact_mut(8 * STATE_WORDS)) {
            let quarter: &mut [u32; 8 * STATE_WORDS] =
                quarter.try_into().expect("a quarter of the buffer");
            // SAFETY: `blocks8` needs AVX2, and `self` exists only where `detect` found it.
            #[allow(unsafe_code)]
            unsafe {
                blocks8::<DOUBLE_ROUNDS>(state, counter.wrapping_add(offset), quarter);
            }
        }
    }
}

/// Proof that this CPU and its OS run AVX-512F code: [`Avx512::detect`] is the only way to
/// make one.
#[derive(Clone, Copy)]
pub(crate) struct Avx512(avx512f::InitToken);

impl Avx512 {
    /// `Some` where CPUID reports AVX-512F and the OS saves the zmm registers (XCR0); detected
    /// once per process, then read from a static.
    pub(crate) fn detect() -> Option<Self> {
        let (token, present) = avx512f::init_get();
        present.then_some(Self(token))
    }

    /// Blocks `counter .. counter + 32` of `state` into `out`, in order.
    #[inline]
    pub(crate) fn blocks<const DOUBLE_ROUNDS: usize>(
        self,
        state: &[u32; STATE_WORDS],
        out: &mut [u32; WORDS],
    ) {
        // SAFETY: `blocks` needs AVX-512F, and `self` exists only where `detect` found it.
        #[allow(unsafe_code)]
        unsafe {
            blocks::<DOUBLE_ROUNDS>(state, out);
        }
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

/// Blocks `counter .. counter + 32` of `state` (the counter is 64 bits, words 12–13, and
/// carries from word 12 into word 13), written to `out` in order: two sets of 16 blocks, one
/// per 32-bit lane, whose rounds interleave.
///
/// Two sets because a quarter round is a chain of 12 dependent instructions, and a round has
/// only four quarter rounds to run side by side: on a core whose vector `add` takes 2 cycles
/// (Zen 5), one set leaves half its issue slots empty. The two sets' 32 registers are exactly
/// the 32 the rounds need (each step overwrites one of its inputs), so nothing spills. On the
/// Zen 5 the `words_4k` duel (these words against `rand`'s) read 4.5–5.6× against 3.7–4.0×
/// with one set per call, the two builds alternated (`docs/notes/2026-12-08-zen5.md`).
#[target_feature(enable = "avx512f")]
fn blocks<const DOUBLE_ROUNDS: usize>(state: &[u32; STATE_WORDS], out: &mut [u32; WORDS]) {
    let (mut x, x_low, x_high) = set_start(state, 0);
    let (mut y, y_low, y_high) = set_start(state, 16);
    for _ in 0..DOUBLE_ROUNDS {
        double_round!(quarter_round, &mut x, &mut y);
    }
    let (first, second) = out.split_at_mut(WORDS / 2);
    set_finish(
        state,
        x,
        x_low,
        x_high,
        first.try_into().expect("half the buffer"),
    );
    set_finish(
        state,
        y,
        y_low,
        y_high,
        second.try_into().expect("half the buffer"),
    );
}

/// The registers of one set of 16 blocks, `counter + offset ..`, before the rounds: lane `j`
/// holds block `counter + offset + j`. Also returns words 12 and 13, which differ per lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn set_start(
    state: &[u32; STATE_WORDS],
    offset: i32,
) -> ([__m512i; STATE_WORDS], __m512i, __m512i) {
    let mut x: [__m512i; STATE_WORDS] =
        core::array::from_fn(|i| _mm512_set1_epi32(state[i] as i32));
    let lanes = _mm512_add_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(offset),
    );
    // A carry out of the low word (the sum below the lane's offset, unsigned) adds one to the
    // high word.
    let low = _mm512_add_epi32(x[12], lanes);
    let carried = _mm512_cmplt_epu32_mask(low, lanes);
    let high = _mm512_mask_add_epi32(x[13], carried, x[13], _mm512_set1_epi32(1));
    x[12] = low;
    x[13] = high;
    (x, low, high)
}

/// One set of 16 blocks after the rounds, written to `out` (16 blocks) in order.
#[target_feature(enable = "avx512f")]
#[inline]
fn set_finish(
    state: &[u32; STATE_WORDS],
    mut x: [__m512i; STATE_WORDS],
    low: __m512i,
    high: __m512i,
    out: &mut [u32; WORDS / 2],
) {
    let word = |i: usize| _mm512_set1_epi32(state[i] as i32);
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
            }
        }
    }
}

/// One quarter round on eight blocks at once.
#[target_feature(enable = "avx2")]
#[inline]
fn quarter_round8(x: &mut [__m256i; STATE_WORDS], a: usize, b: usize, c: usize, d: usize) {
    // Rotations by 16 and 8 bits move whole bytes: one shuffle within each 128-bit lane.
    let rotate16 = _mm256_setr_epi8(
        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9,
        14, 15, 12, 13,
    );
    let rotate8 = _mm256_setr_epi8(
        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10,
        15, 12, 13, 14,
    );
    x[a] = _mm256_add_epi32(x[a], x[b]);
    x[d] = _mm256_shuffle_epi8(_mm256_xor_si256(x[d], x[a]), rotate16);
    x[c] = _mm256_add_epi32(x[c], x[d]);
    let t = _mm256_xor_si256(x[b], x[c]);
    x[b] = _mm256_or_si256(_mm256_slli_epi32::<12>(t), _mm256_srli_epi32::<20>(t));
    x[a] = _mm256_add_epi32(x[a], x[b]);
    x[d] = _mm256_shuffle_epi8(_mm256_xor_si256(x[d], x[a]), rotate8);
    x[c] = _mm256_add_epi32(x[c], x[d]);
    let t = _mm256_xor_si256(x[b], x[c]);
    x[b] = _mm256_or_si256(_mm256_slli_epi32::<7>(t), _mm256_srli_epi32::<25>(t));
}

/// Blocks `counter .. counter + 8` of `state`'s key and stream, written to `out` in order.
#[target_feature(enable = "avx2")]
fn blocks8<const DOUBLE_ROUNDS: usize>(
    state: &[u32; STATE_WORDS],
    counter: u64,
    out: &mut [u32; 8 * STATE_WORDS],
) {
    let word = |i: usize| _mm256_set1_epi32(state[i] as i32);
    let mut x: [__m256i; STATE_WORDS] = core::array::from_fn(word);
    // Lane j computes block counter + j; a carry out of the low word (low < j, unsigned:
    // compared with the sign bits flipped) adds one to the high word.
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let low = _mm256_add_epi32(_mm256_set1_epi32(counter as u32 as i32), lanes);
    let flip = _mm256_set1_epi32(i32::MIN);
    let carried = _mm256_cmpgt_epi32(_mm256_xor_si256(lanes, flip), _mm256_xor_si256(low, flip));
    let high = _mm256_sub_epi32(_mm256_set1_epi32((counter >> 32) as u32 as i32), carried);
    x[12] = low;
    x[13] = high;
    for _ in 0..DOUBLE_ROUNDS {
        double_round!(quarter_round8, &mut x);
    }
    for (i, x) in x.iter_mut().enumerate() {
        let input = match i {
            12 => low,
            13 => high,
            _ => word(i),
        };
        *x = _mm256_add_epi32(*x, input);
    }
    // The transpose, per half of the words (h: words 8h..8h+8). Within each 128-bit lane a
    // 4 × 4 transpose leaves `quarters[m]` (words 8h..8h+4) and `quarters[m + 4]` (words
    // 8h+4..8h+8), whose lane l holds those words of block 4l + m; then the lanes are paired.
    for h in 0..2 {
        let r = &x[8 * h..8 * h + 8];
        let mut quarters = [r[0]; 8];
        for g in 0..2 {
            let [w0, w1, w2, w3] = [r[4 * g], r[4 * g + 1], r[4 * g + 2], r[4 * g + 3]];
            let (a, b) = (_mm256_unpacklo_epi32(w0, w1), _mm256_unpackhi_epi32(w0, w1));
            let (c, d) = (_mm256_unpacklo_epi32(w2, w3), _mm256_unpackhi_epi32(w2, w3));
            quarters[4 * g] = _mm256_unpacklo_epi64(a, c);
            quarters[4 * g + 1] = _mm256_unpackhi_epi64(a, c);
            quarters[4 * g + 2] = _mm256_unpacklo_epi64(b, d);
            quarters[4 * g + 3] = _mm256_unpackhi_epi64(b, d);
        }
        for m in 0..4 {
            let (front, back) = (quarters[m], quarters[m + 4]);
            let halves = [
                (m, _mm256_permute2x128_si256::<0x20>(front, back)),
                (m + 4, _mm256_permute2x128_si256::<0x31>(front, back)),
            ];
            for (block, words) in halves {
                let start = 16 * block + 8 * h;
                let dst: &mut [u32; 8] = (&mut out[start..start + 8])
                    .try_into()
                    .expect("half a block is 8 words");
                // SAFETY: `dst` is 8 writable `u32`s, the 32 bytes one register holds, and
                // the unaligned store has no alignment requirement.
                #[allow(unsafe_code)]
                unsafe {
                    _mm256_storeu_si256(dst.as_mut_ptr().cast(), words);
                }
            }
        }
    }
}
