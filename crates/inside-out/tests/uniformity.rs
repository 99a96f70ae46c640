//! Exact-uniformity sanity checks over all `n!` orders for small `n`, with fixed seeds and a
//! negative control the same test must reject.

use fairdeal_core::{Lemire, Shuffler};
use fairdeal_inside_out::InsideOut;
use fairdeal_testkit::{
    Stuck, assert_blocks_uniform_across_batch_limits, chi_square_uniform, factorial, lehmer_rank,
    permutation_p_value,
};
use rand::SeedableRng;
use rand_pcg::Pcg64;

#[test]
fn slice_shuffle_gives_all_orders_of_3_and_4_equally_often() {
    for (n, trials, seed) in [(3, 60_000, 0x10_0003), (4, 120_000, 0x10_0004)] {
        let mut rng = Pcg64::seed_from_u64(seed);
        let p = permutation_p_value(n, trials, |v| InsideOut::new().shuffle(v, &mut rng));
        assert!(p > 1e-6, "n = {n}: p = {p}");
    }
}

#[test]
fn one_pass_build_gives_all_orders_of_3_and_4_equally_often() {
    for (n, trials, seed) in [(3u64, 60_000, 0x20_0003), (4, 120_000, 0x20_0004)] {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut counts = vec![0u64; factorial(n as usize)];
        for _ in 0..trials {
            // Filtered so that the length is unknown to the shuffle.
            let order = InsideOut::new().shuffled((0..n as usize).filter(|_| true), &mut rng);
            counts[lehmer_rank(&order)] += 1;
        }
        let (chi2, p) = chi_square_uniform(&counts);
        assert!(
            p > 1e-6,
            "n = {n}: chi2 = {chi2}, p = {p}, counts = {counts:?}"
        );
    }
}

#[test]
fn the_same_test_rejects_a_broken_rng() {
    let mut rng = Stuck(0xDEAD_BEEF_0BAD_F00D);
    let p = permutation_p_value(3, 60_000, |v| InsideOut::new().shuffle(v, &mut rng));
    assert!(p < 1e-9, "stuck RNG not rejected: p = {p}");
}

/// Element blocks against position blocks at a size that crosses every batch-size limit of
/// the default sampler, for the batched default and the one-draw-per-step reference; the
/// wrong-range swap is rejected by the same test.
#[test]
fn coarse_positions_are_uniform_across_every_batch_limit() {
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0001), |v, rng| {
        InsideOut::new().shuffle(v, rng);
    });
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0002), |v, rng| {
        InsideOut::with_sampler(Lemire).shuffle(v, rng);
    });
}
