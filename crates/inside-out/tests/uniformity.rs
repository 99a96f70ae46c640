//! Sampled uniformity with fixed seeds (the exact proofs are in tests/exact.rs): χ² over all
//! orders of 3 and 4 elements through every entry point, with the negative controls the same
//! test must reject (fairdeal-testkit's `assert_shuffler_uniform`), and coarse positions at a
//! size that crosses every batch limit of the default sampler.

use fairdeal_core::{Lemire, Shuffler};
use fairdeal_inside_out::InsideOut;
use fairdeal_testkit::{assert_blocks_uniform_across_batch_limits, assert_shuffler_uniform};
use rand::SeedableRng;
use rand_pcg::Pcg64;

#[test]
fn all_orders_of_3_and_4_are_equally_likely() {
    assert_shuffler_uniform(&InsideOut::new(), &mut Pcg64::seed_from_u64(0x10_0003));
    assert_shuffler_uniform(
        &InsideOut::with_sampler(Lemire),
        &mut Pcg64::seed_from_u64(0x10_0004),
    );
    assert_shuffler_uniform(
        &InsideOut::new(),
        &mut rand::rngs::StdRng::seed_from_u64(0x10_0005),
    );
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
