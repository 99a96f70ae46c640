//! Exact distributions by enumerating every draw path (fairdeal-testkit's `enumerate`): the
//! naive shuffle maps its paths one to one onto the orders, and the wrong-range swap — the
//! negative control — provably does not give every order the same number of paths.

use std::collections::BTreeMap;

use fairdeal_core::Shuffler;
use fairdeal_naive::{Biased, Naive};
use fairdeal_testkit::enumerate::{Enumerator, Scripted, assert_every_order_equally_likely};
use fairdeal_testkit::factorial;

/// The wrong-range swap on `[0, n)`, enumerated.
fn biased_paths(n: usize) -> BTreeMap<Vec<usize>, u64> {
    let proof = Enumerator::indices().enumerate(|rng| {
        let mut v: Vec<usize> = (0..n).collect();
        Biased::with_sampler(Scripted).shuffle(&mut v, rng);
        v
    });
    assert!(
        !proof.is_uniform(factorial(n)),
        "the wrong-range swap passed the exact test at n = {n}"
    );
    proof
        .paths_per_outcome()
        .into_iter()
        .map(|(order, paths)| (order.clone(), paths))
        .collect()
}

#[test]
fn wrong_range_on_three_elements_is_27_paths_onto_6_orders() {
    let counts = biased_paths(3);
    assert_eq!(counts.values().sum::<u64>(), 27);
    // Starting from [1, 2, 3] (here [0, 1, 2]): three orders get 5 paths, three get 4.
    let expected: BTreeMap<Vec<usize>, u64> = [
        (vec![0, 1, 2], 4),
        (vec![0, 2, 1], 5),
        (vec![1, 0, 2], 5),
        (vec![1, 2, 0], 5),
        (vec![2, 0, 1], 4),
        (vec![2, 1, 0], 4),
    ]
    .into_iter()
    .collect();
    assert_eq!(counts, expected);
}

#[test]
fn wrong_range_on_four_elements_is_256_paths_onto_24_orders() {
    let counts = biased_paths(4);
    assert_eq!(counts.values().sum::<u64>(), 256);
    assert_eq!(counts.len(), 24);
    let mut spread: Vec<u64> = counts.values().copied().collect();
    spread.sort_unstable();
    assert_eq!(
        spread,
        [
            8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 11, 11, 14, 14, 14,
            15
        ]
    );
    // The most likely order, 15/256 against a fair 10.67/256: swap the two pairs.
    assert_eq!(counts[&vec![1, 0, 3, 2]], 15);
}

#[test]
fn wrong_range_fails_the_exact_test_up_to_six_elements() {
    for n in 3..=6 {
        let counts = biased_paths(n);
        assert_eq!(counts.values().sum::<u64>(), (n as u64).pow(n as u32));
    }
}

#[test]
fn naive_maps_its_paths_one_to_one_onto_all_orders() {
    for n in 0..=6 {
        let proof = assert_every_order_equally_likely(n, |v, rng| {
            Naive::with_sampler(Scripted).shuffle(v, rng);
        });
        // One path per order: n! paths in all.
        assert!(
            proof.paths_per_outcome().values().all(|&c| c == 1),
            "n = {n}"
        );
    }
}

#[test]
fn naive_shuffled_maps_its_paths_one_to_one_onto_all_orders() {
    for n in 0..=6 {
        assert_every_order_equally_likely(n, |v, rng| {
            let built = Naive::with_sampler(Scripted).shuffled(v.iter().copied(), rng);
            v.copy_from_slice(&built);
        });
    }
}
