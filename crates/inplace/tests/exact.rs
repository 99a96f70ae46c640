//! Proofs by enumeration (fairdeal-testkit's `enumerate`): for every n <= 6, Durstenfeld's
//! shuffle gives every order of `[0, n)` exactly the same number of equally likely draw paths.
//! The algorithm is run with the scripted one-draw-per-bound sampler, which is also the loop
//! the bit-exact Java and Python samplers use (they keep the trait's default loops); the
//! batching default sampler hands out the same run of bounds (checked in fairdeal-testkit's
//! tests/batched.rs).

use fairdeal_core::Shuffler;
use fairdeal_inplace::Inplace;
use fairdeal_testkit::enumerate::{Scripted, assert_every_order_equally_likely};

#[test]
fn every_order_has_the_same_number_of_draw_paths() {
    for n in 0..=6 {
        let proof = assert_every_order_equally_likely(n, |v, rng| {
            Inplace::with_sampler(Scripted).shuffle(v, rng);
        });
        // n - 1 draws with bounds n, …, 2: exactly one path per order.
        assert!(
            proof.paths_per_outcome().values().all(|&c| c == 1),
            "n = {n}"
        );
    }
}

#[test]
fn prefix_and_shuffled_entry_points_are_exact_too() {
    for n in 0..=6 {
        assert_every_order_equally_likely(n, |v, rng| {
            Inplace::with_sampler(Scripted)
                .shuffle_prefix(v, v.len(), rng)
                .unwrap();
        });
        assert_every_order_equally_likely(n, |v, rng| {
            let built = Inplace::with_sampler(Scripted).shuffled(v.iter().copied(), rng);
            v.copy_from_slice(&built);
        });
    }
}
