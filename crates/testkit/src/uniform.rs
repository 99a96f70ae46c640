//! The sampled uniformity test every shuffler runs: χ² over all orders of small slices, with
//! the negative controls that prove the same test can fail.

use fairdeal_core::{IndexSampler, Lemire, Rng, Shuffler};

use crate::{Stuck, permutation_p_value};

/// `(n, trials)`: 10 000 expected per order for `n = 3`, 5 000 for `n = 4`.
const CASES: [(usize, u64); 2] = [(3, 60_000), (4, 120_000)];

/// Checks by χ² (fixed seeds from `rng`) that `algo` gives every order of 3 and 4 elements
/// equally often through each of its entry points (`shuffle`, a full `shuffle_prefix`, and
/// `shuffled` from an iterator whose length it cannot see), at p > 1e-6; and that the same test
/// rejects, at p < 1e-9, the wrong-range swap driven by the same generator and `algo` driven by
/// a stuck generator.
///
/// The exact proofs are in [`enumerate`](crate::enumerate); this sample checks the algorithm
/// with its real sampler and a real generator.
///
/// # Panics
///
/// When a check fails.
#[track_caller]
pub fn assert_shuffler_uniform<A: Shuffler, R: Rng>(algo: &A, rng: &mut R) {
    let name = algo.info().name;
    for (n, trials) in CASES {
        let p = permutation_p_value(n, trials, |v| algo.shuffle(v, rng));
        assert!(p > 1e-6, "{name} shuffle, n = {n}: p = {p}");
        let p = permutation_p_value(n, trials, |v| {
            algo.shuffle_prefix(v, v.len(), rng)
                .expect("a full prefix fits");
        });
        assert!(p > 1e-6, "{name} shuffle_prefix(n), n = {n}: p = {p}");
        let p = permutation_p_value(n, trials, |v| {
            // Filtered so that the length is unknown to the shuffle.
            let built = algo.shuffled(v.iter().copied().filter(|_| true), rng);
            v.copy_from_slice(&built);
        });
        assert!(p > 1e-6, "{name} shuffled, n = {n}: p = {p}");

        // The classic mistake: the same loop with bound n instead of i + 1 (n^n paths onto n!).
        let p = permutation_p_value(n, trials, |v| {
            for i in 0..v.len() {
                let j = Lemire.index_below(rng, v.len());
                v.swap(i, j);
            }
        });
        assert!(
            p < 1e-9,
            "wrong-range swap not rejected at n = {n}: p = {p}"
        );
    }
    // `u64::MAX` never lands in a rejection zone, so a stuck generator cannot hang the sampler.
    let p = permutation_p_value(3, 60_000, |v| algo.shuffle(v, &mut Stuck(u64::MAX)));
    assert!(
        p < 1e-9,
        "{name} with a stuck generator not rejected: p = {p}"
    );
}
