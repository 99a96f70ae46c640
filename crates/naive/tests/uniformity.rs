//! Chi-square over all `n!` orders for small `n`, with fixed seeds: the fair algorithms pass
//! (p > 1e-6) and the same test rejects `Biased` and a broken RNG (p < 1e-9).

use fairdeal_core::Shuffler;
use fairdeal_naive::{Biased, Naive, SortKey};
use fairdeal_testkit::{Stuck, permutation_p_value};
use rand::SeedableRng;
use rand_pcg::Pcg64;

/// (n, trials, seed): 10k expected per order for n = 3, 5k for n = 4.
const CASES: [(usize, u64, u64); 2] = [(3, 60_000, 0x50_0003), (4, 120_000, 0x50_0004)];

fn p_value<A: Shuffler>(algo: &A, n: usize, trials: u64, seed: u64) -> f64 {
    let mut rng = Pcg64::seed_from_u64(seed);
    permutation_p_value(n, trials, |v| algo.shuffle(v, &mut rng))
}

#[test]
fn naive_gives_all_orders_of_3_and_4_equally_often() {
    for (n, trials, seed) in CASES {
        let p = p_value(&Naive::new(), n, trials, seed);
        assert!(p > 1e-6, "n = {n}: p = {p}");
    }
    let mut rng = Pcg64::seed_from_u64(0x50_0005);
    let p = permutation_p_value(4, 120_000, |v| {
        let built = Naive::new().shuffled(v.iter().copied(), &mut rng);
        v.copy_from_slice(&built);
    });
    assert!(p > 1e-6, "shuffled, n = 4: p = {p}");
}

#[test]
fn sort_key_gives_all_orders_of_3_and_4_equally_often() {
    for (n, trials, seed) in CASES {
        let p = p_value(&SortKey::new(), n, trials, seed);
        assert!(p > 1e-6, "n = {n}: p = {p}");
    }
}

#[test]
fn the_same_test_rejects_biased() {
    for (n, trials, seed) in CASES {
        let p = p_value(&Biased::new(), n, trials, seed);
        assert!(p < 1e-9, "biased not rejected at n = {n}: p = {p}");
    }
}

#[test]
fn the_same_test_rejects_a_broken_rng() {
    let mut rng = Stuck(0x0F1E_2D3C_4B5A_6978);
    let p = permutation_p_value(3, 60_000, |v| Naive::new().shuffle(v, &mut rng));
    assert!(p < 1e-9, "naive with stuck RNG not rejected: p = {p}");
    // Constant keys tie everywhere: sort-key degenerates to the identity.
    let p = permutation_p_value(3, 60_000, |v| SortKey::new().shuffle(v, &mut rng));
    assert!(p < 1e-9, "sort-key with stuck RNG not rejected: p = {p}");
}
