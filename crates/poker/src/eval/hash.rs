//! The perfect hash's arithmetic, shared by the table generator (`build.rs`, through
//! `generate.rs`) and the evaluator, so that both place every key in the same slot.
//!
//! "Hash and displace" after Belazzougui, Botelho and Dietzfelbinger's CHD, with an additive
//! displacement: one 32-bit multiplication of the key (a single `imul` with an immediate)
//! gives a bucket (the product's top bits) and a home slot (its low bits, which depend only on
//! the key's low bits: two keys of one bucket that share them make the generator try the next
//! multiplier); every bucket has a displacement `d` that sends all its keys from their home
//! slots `f` to free slots `f + d`. Table sizes are powers of two, so no index needs a bounds
//! check and the bucket needs no mask.

/// The hash of a base-5 rank-count key: the product's high bits depend on every key bit.
#[inline(always)]
pub(crate) const fn hash(mult: u32, key: u32) -> u32 {
    key.wrapping_mul(mult)
}

/// The bucket of hash `h` among `1 << log2_buckets`: its top bits.
#[inline(always)]
pub(crate) const fn bucket(h: u32, log2_buckets: u32) -> usize {
    (h >> (32 - log2_buckets)) as usize
}

/// The slot of hash `h` displaced by `d`, among `1 << log2_slots` slots.
#[inline(always)]
pub(crate) const fn slot(h: u32, d: u16, log2_slots: u32) -> usize {
    (h as usize + d as usize) & ((1 << log2_slots) - 1)
}
