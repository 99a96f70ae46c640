//! Exact-uniformity sanity checks over all `n!` orders for small `n`, with fixed seeds and a
//! negative control the same test must reject.

use fairdeal_core::{IndexSampler, Lemire, Shuffler};
use fairdeal_inplace::Inplace;
use fairdeal_testkit::{Stuck, assert_blocks_uniform_across_batch_limits, permutation_p_value};
use rand::SeedableRng;
use rand_pcg::Pcg64;

#[test]
fn all_orders_of_3_and_4_are_equally_likely() {
    for (n, trials, seed) in [(3, 60_000, 0x5EED_0003), (4, 120_000, 0x5EED_0004)] {
        let mut rng = Pcg64::seed_from_u64(seed);
        let p = permutation_p_value(n, trials, |v| Inplace::new().shuffle(v, &mut rng));
        assert!(p > 1e-6, "n = {n}: p = {p}");
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EED_0005);
    let p = permutation_p_value(4, 120_000, |v| Inplace::new().shuffle(v, &mut rng));
    assert!(p > 1e-6, "StdRng, n = 4: p = {p}");
}

#[test]
fn the_same_test_rejects_the_wrong_range() {
    // The classic mistake: the same loop with bound n instead of i + 1 (n^n paths onto n!).
    for (n, seed) in [(3, 0x5EED_0003), (4, 0x5EED_0004)] {
        let mut rng = Pcg64::seed_from_u64(seed);
        let p = permutation_p_value(n, 120_000, |v| {
            for i in 0..v.len() {
                let j = Lemire.index_below(&mut rng, v.len());
                v.swap(i, j);
            }
        });
        assert!(
            p < 1e-9,
            "wrong-range shuffle not rejected at n = {n}: p = {p}"
        );
    }
}

#[test]
fn the_same_test_rejects_a_broken_rng() {
    let mut rng = Stuck(0x1234_5678_9ABC_DEF0);
    let p = permutation_p_value(3, 60_000, |v| Inplace::new().shuffle(v, &mut rng));
    assert!(p < 1e-9, "stuck RNG not rejected: p = {p}");
}

/// Element blocks against position blocks at a size that crosses every batch-size limit of
/// the default sampler, for the batched default and the one-draw-per-step reference; the
/// wrong-range swap is rejected by the same test.
#[test]
fn coarse_positions_are_uniform_across_every_batch_limit() {
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0001), |v, rng| {
        Inplace::new().shuffle(v, rng);
    });
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0002), |v, rng| {
        Inplace::with_sampler(Lemire).shuffle(v, rng);
    });
}
