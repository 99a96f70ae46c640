//! Property tests for `Naive`, `Biased` and `SortKey`: permutations, reproducibility, the draws
//! they make, and prefix errors that leave the data untouched.

use fairdeal_core::{Complexity, ShuffleError, Shuffler};
use fairdeal_naive::{BIASED_INFO, Biased, NAIVE_INFO, Naive, SORT_KEY_INFO, SortKey};
use fairdeal_testkit::Recording;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn run<A: Shuffler>(algo: &A, v: &[u32], seed: u64) -> Vec<u32> {
    let mut out = v.to_vec();
    algo.shuffle(&mut out, &mut Pcg64::seed_from_u64(seed));
    out
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

fn each_algorithm(mut check: impl FnMut(&dyn Fn(&[u32], u64) -> Vec<u32>, &str)) {
    check(&|v, s| run(&Naive::new(), v, s), "naive");
    check(&|v, s| run(&Biased::new(), v, s), "biased");
    check(&|v, s| run(&SortKey::new(), v, s), "sort-key");
}

proptest! {
    #[test]
    fn every_algorithm_returns_a_permutation(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        each_algorithm(|shuffle, name| {
            assert_eq!(sorted(shuffle(&v, seed)), sorted(v.clone()), "{name}");
        });
    }

    #[test]
    fn every_algorithm_is_deterministic_for_a_seed(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        each_algorithm(|shuffle, name| assert_eq!(shuffle(&v, seed), shuffle(&v, seed), "{name}"));
    }

    #[test]
    fn naive_shuffled_removes_elements_exactly_as_shuffle_removes_positions(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        let built = Naive::new().shuffled(v.iter().copied(), &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(built, run(&Naive::new(), &v, seed));
    }

    #[test]
    fn prefix_longer_than_input_is_an_error(v in proptest::collection::vec(any::<u32>(), 0..50), extra in 1usize..10, seed: u64) {
        let k = v.len() + extra;
        let expected = Err(ShuffleError::SampleTooLarge { requested: k, available: v.len() });
        let mut data = v.clone();
        prop_assert_eq!(Naive::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed)), expected);
        prop_assert_eq!(Biased::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed)), expected);
        prop_assert_eq!(SortKey::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed)), expected);
        prop_assert_eq!(data, v);
    }

    #[test]
    fn naive_draws_bounds_n_down_to_2(n in 0usize..200, seed: u64) {
        let shuffler = Naive::with_sampler(Recording::default());
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(shuffler.sampler().bounds(), (2..=n).rev().collect::<Vec<_>>());
    }

    #[test]
    fn biased_draws_bound_n_every_time(n in 0usize..200, seed: u64) {
        let shuffler = Biased::with_sampler(Recording::default());
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(shuffler.sampler().bounds(), vec![n; n]);
    }
}

#[test]
fn tiny_lengths_are_permutations() {
    each_algorithm(|shuffle, name| {
        for seed in 0..64 {
            assert_eq!(shuffle(&[], seed), Vec::<u32>::new(), "{name}");
            assert_eq!(shuffle(&[7], seed), vec![7], "{name}");
            assert_eq!(sorted(shuffle(&[1, 2], seed)), vec![1, 2], "{name}");
        }
        let swapped = (0..64).filter(|&s| shuffle(&[1, 2], s) == [2, 1]).count();
        assert!(
            swapped > 0 && swapped < 64,
            "{name}: {swapped} of 64 swapped"
        );
    });
}

#[test]
fn elements_need_not_be_clone() {
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Card(u8);
    let mut rng = Pcg64::seed_from_u64(5);
    let mut cards = Naive::new().shuffled((0..10).map(Card), &mut rng);
    Naive::new().shuffle(&mut cards, &mut rng);
    Biased::new().shuffle(&mut cards, &mut rng);
    SortKey::new().shuffle(&mut cards, &mut rng);
    cards.sort();
    assert_eq!(cards, (0..10).map(Card).collect::<Vec<_>>());
}

#[test]
fn sort_key_draws_one_word_per_element() {
    use fairdeal_core::Rng;
    let mut a = Pcg64::seed_from_u64(8);
    let mut data: Vec<u32> = (0..100).collect();
    SortKey::new().shuffle(&mut data, &mut a);
    let mut b = Pcg64::seed_from_u64(8);
    for _ in 0..100 {
        b.next_u64();
    }
    assert_eq!(a.next_u64(), b.next_u64());
}

#[test]
fn infos_tell_the_truth() {
    let naive = Naive::new().info();
    assert_eq!(naive, NAIVE_INFO);
    assert_eq!(
        (naive.name, naive.complexity, naive.fair),
        ("naive", Complexity::Quadratic, true)
    );
    let biased = Biased::new().info();
    assert_eq!(biased, BIASED_INFO);
    assert_eq!(
        (biased.name, biased.complexity, biased.fair),
        ("biased", Complexity::Linear, false)
    );
    let sort_key = SortKey::new().info();
    assert_eq!(sort_key, SORT_KEY_INFO);
    assert_eq!(
        (sort_key.name, sort_key.complexity, sort_key.fair),
        ("sort-key", Complexity::Linearithmic, true)
    );
}
