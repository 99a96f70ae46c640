//! The sizes every block function and the buffer share (a leaf: it imports nothing).

/// Words in a ChaCha state and in a block.
pub(crate) const STATE_WORDS: usize = 16;
/// Words per refill: the buffer, 16 blocks.
pub(crate) const WORDS: usize = 256;
