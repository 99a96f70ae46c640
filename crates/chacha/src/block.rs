//! What every block function and the buffer share: sizes and the block counter (a leaf: it
//! imports nothing).

/// Words in a ChaCha state and in a block.
pub(crate) const STATE_WORDS: usize = 16;
/// Words per refill: the buffer, 32 blocks (what one call of the AVX-512 block function makes).
pub(crate) const WORDS: usize = 512;

/// The block counter of a state (words 12 and 13).
pub(crate) fn counter(state: &[u32; STATE_WORDS]) -> u64 {
    (u64::from(state[13]) << 32) | u64::from(state[12])
}

/// Sets the block counter of a state.
pub(crate) fn set_counter(state: &mut [u32; STATE_WORDS], counter: u64) {
    state[12] = counter as u32;
    state[13] = (counter >> 32) as u32;
}
