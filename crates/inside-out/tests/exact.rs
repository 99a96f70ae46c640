//! Proofs by enumeration (fairdeal-testkit's `enumerate`): for every n <= 6, the inside-out
//! shuffle — on a slice and built from an iterator of unknown length — gives every order of
//! `[0, n)` exactly the same number of equally likely draw paths.

use fairdeal_core::Shuffler;
use fairdeal_inside_out::InsideOut;
use fairdeal_testkit::enumerate::{Scripted, assert_every_order_equally_likely};

#[test]
fn slice_shuffle_has_the_same_number_of_paths_per_order() {
    for n in 0..=6 {
        let proof = assert_every_order_equally_likely(n, |v, rng| {
            InsideOut::with_sampler(Scripted).shuffle(v, rng);
        });
        assert!(
            proof.paths_per_outcome().values().all(|&c| c == 1),
            "n = {n}"
        );
    }
}

#[test]
fn one_pass_build_has_the_same_number_of_paths_per_order() {
    for n in 0..=6 {
        assert_every_order_equally_likely(n, |v, rng| {
            // Filtered so that the length is unknown to the shuffle.
            let built =
                InsideOut::with_sampler(Scripted).shuffled(v.iter().copied().filter(|_| true), rng);
            v.copy_from_slice(&built);
        });
    }
}
