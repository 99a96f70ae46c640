//! Sampled uniformity with fixed seeds (the naive shuffle's exact proof is in tests/exact.rs):
//! χ² over all orders of 3 and 4 elements through every entry point, with the negative controls
//! the same test must reject (fairdeal-testkit's `assert_shuffler_uniform`); `Biased` is
//! rejected too.

use fairdeal_core::Shuffler;
use fairdeal_naive::{Biased, Naive, SortKey};
use fairdeal_testkit::{assert_shuffler_uniform, permutation_p_value};
use rand::SeedableRng;
use rand_pcg::Pcg64;

#[test]
fn naive_gives_all_orders_of_3_and_4_equally_often() {
    assert_shuffler_uniform(&Naive::new(), &mut Pcg64::seed_from_u64(0x50_0003));
}

#[test]
fn sort_key_gives_all_orders_of_3_and_4_equally_often() {
    assert_shuffler_uniform(&SortKey::new(), &mut Pcg64::seed_from_u64(0x50_0004));
}

#[test]
fn the_same_test_rejects_biased() {
    let mut rng = Pcg64::seed_from_u64(0x50_0005);
    for (n, trials) in [(3, 60_000), (4, 120_000)] {
        let p = permutation_p_value(n, trials, |v| Biased::new().shuffle(v, &mut rng));
        assert!(p < 1e-9, "biased not rejected at n = {n}: p = {p}");
    }
}
