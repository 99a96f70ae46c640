//! Seeds for independent, reproducible streams (one per chunk of a parallel run).

/// The seed of stream number `stream` derived from a user's `seed`.
///
/// Parallel simulations split their work into fixed-size chunks and seed chunk `c` with
/// `stream_seed(seed, c)`. Which thread runs which chunk then cannot change the result, so a run
/// gives the same answer on 1 or 64 threads, and chunk ranges can even be run on different
/// machines and merged.
///
/// The mapping is SplitMix64's finaliser applied to `seed` and to `stream` in turn: distinct
/// `(seed, stream)` pairs give well-mixed, distinct-looking seeds. It is deterministic forever
/// (changing it would change every published result), so it is tested against fixed values.
///
/// ```
/// use fairdeal_core::stream_seed;
/// assert_ne!(stream_seed(42, 0), stream_seed(42, 1));
/// assert_eq!(stream_seed(42, 3), stream_seed(42, 3));
/// ```
pub const fn stream_seed(seed: u64, stream: u64) -> u64 {
    splitmix64(splitmix64(seed) ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // Vigna's splitmix64.c seeded with 0 yields 0xE220A8397B1DCDAF first.
        assert_eq!(splitmix64(0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn streams_are_distinct() {
        let mut seen = alloc::collections::BTreeSet::new();
        for seed in 0..50 {
            for stream in 0..50 {
                assert!(seen.insert(stream_seed(seed, stream)));
            }
        }
    }
}
