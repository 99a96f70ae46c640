//! Property tests: the shuffle is a permutation, reproducible for a seed, runs in the order its
//! sampler names, and in the backward order makes exactly the draws Java's
//! `Collections.shuffle` and Python's `random.shuffle` make.

use fairdeal_core::{IndexSampler, Lemire, Order, ShuffleError, Shuffler};
use fairdeal_inplace::{INFO, Inplace};
use fairdeal_testkit::Recording;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn shuffled_copy(v: &[u32], seed: u64) -> Vec<u32> {
    let mut out = v.to_vec();
    Inplace::new().shuffle(&mut out, &mut Pcg64::seed_from_u64(seed));
    out
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

proptest! {
    #[test]
    fn returns_a_permutation(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(sorted(shuffled_copy(&v, seed)), sorted(v));
    }

    #[test]
    fn same_seed_same_order(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        prop_assert_eq!(shuffled_copy(&v, seed), shuffled_copy(&v, seed));
    }

    #[test]
    fn shuffled_matches_shuffle(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        let built = Inplace::new().shuffled(v.iter().copied(), &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(built, shuffled_copy(&v, seed));
    }

    #[test]
    fn prefix_longer_than_input_is_an_error(v in proptest::collection::vec(any::<u32>(), 0..50), extra in 1usize..10, seed: u64) {
        let mut data = v.clone();
        let k = v.len() + extra;
        let err = Inplace::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(err, Err(ShuffleError::SampleTooLarge { requested: k, available: v.len() }));
        prop_assert_eq!(data, v);
    }

    #[test]
    fn draws_bounds_2_up_to_n_on_short_slices(n in 0usize..200, seed: u64) {
        let shuffler = Inplace::with_sampler(Recording::default());
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(seed));
        let expected: Vec<usize> = (2..=n).collect();
        prop_assert_eq!(shuffler.sampler().bounds(), expected);
    }

    #[test]
    fn draws_bounds_n_down_to_2_when_the_sampler_says_backward(n in 0usize..200, seed: u64) {
        let shuffler = Inplace::with_sampler(Recording::with_order(Order::Backward));
        let mut data: Vec<usize> = (0..n).collect();
        shuffler.shuffle(&mut data, &mut Pcg64::seed_from_u64(seed));
        let expected: Vec<usize> = (2..=n).rev().collect();
        prop_assert_eq!(shuffler.sampler().bounds(), expected);
    }
}

#[test]
fn tiny_lengths_are_permutations() {
    for seed in 0..64 {
        assert_eq!(shuffled_copy(&[], seed), Vec::<u32>::new());
        assert_eq!(shuffled_copy(&[7], seed), vec![7]);
        assert_eq!(sorted(shuffled_copy(&[1, 2], seed)), vec![1, 2]);
    }
    // Over 64 seeds a fair shuffle of two elements shows both orders.
    let swapped = (0..64)
        .filter(|&s| shuffled_copy(&[1, 2], s) == [2, 1])
        .count();
    assert!(swapped > 0 && swapped < 64, "{swapped} of 64 swapped");
}

/// `Inplace` with Lemire is exactly the textbook loop in the order `Order::fastest` names:
/// forward up to `Order::FORWARD_MAX` elements, backward above (checked on both sides of the
/// switch), and the two orders give different permutations there.
#[test]
fn the_order_switches_after_forward_max() {
    fn by_hand(n: usize, order: Order, seed: u64) -> Vec<u32> {
        let mut data: Vec<u32> = (0..n as u32).collect();
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut step = |i: usize| {
            let j = Lemire.index_below(&mut rng, i + 1);
            data.swap(i, j);
        };
        match order {
            Order::Forward => (1..n).for_each(&mut step),
            Order::Backward => (1..n).rev().for_each(&mut step),
        }
        data
    }
    let max = Order::FORWARD_MAX;
    for (n, order) in [
        (3, Order::Forward),
        (52, Order::Forward),
        (max, Order::Forward),
        (max + 1, Order::Backward),
        (3 * max, Order::Backward),
        // 16 MiB of `u32`: the backward loop that prefetches its targets.
        (4 << 20, Order::Backward),
    ] {
        assert_eq!(Order::fastest(n), order, "n = {n}");
        let mut ours: Vec<u32> = (0..n as u32).collect();
        Inplace::with_sampler(Lemire).shuffle(&mut ours, &mut Pcg64::seed_from_u64(n as u64));
        assert_eq!(ours, by_hand(n, order, n as u64), "n = {n}");
        let other = match order {
            Order::Forward => Order::Backward,
            Order::Backward => Order::Forward,
        };
        if n > 3 {
            // (Three elements have 6 orders: the two orders may agree by chance.)
            assert_ne!(
                ours,
                by_hand(n, other, n as u64),
                "n = {n}: the orders agree?"
            );
        }
    }
}

#[test]
fn draw_sequence_of_a_deck_is_52_down_to_2_in_the_languages_order() {
    // Java: for (int i = size; i > 1; i--) swap(list, i - 1, rnd.nextInt(i));
    // Python: for i in reversed(range(1, len(x))): j = _randbelow(i + 1)
    let shuffler = Inplace::with_sampler(Recording::with_order(Order::Backward));
    let mut deck: Vec<u8> = (0..52).collect();
    shuffler.shuffle(&mut deck, &mut Pcg64::seed_from_u64(1));
    let bounds = shuffler.sampler().bounds();
    assert_eq!(bounds.len(), 51);
    assert_eq!(bounds.first(), Some(&52));
    assert_eq!(bounds.last(), Some(&2));
    assert!(bounds.windows(2).all(|w| w[0] == w[1] + 1));
}

#[test]
fn elements_need_not_be_clone() {
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Card(u8);
    let mut cards: Vec<Card> = (0..10).map(Card).collect();
    Inplace::new().shuffle(&mut cards, &mut Pcg64::seed_from_u64(5));
    cards.sort();
    assert_eq!(cards, (0..10).map(Card).collect::<Vec<_>>());
}

#[test]
fn prefix_within_bounds_is_a_whole_shuffle() {
    let mut a: Vec<u32> = (0..20).collect();
    let mut b = a.clone();
    Inplace::new()
        .shuffle_prefix(&mut a, 5, &mut Pcg64::seed_from_u64(3))
        .unwrap();
    Inplace::new().shuffle(&mut b, &mut Pcg64::seed_from_u64(3));
    assert_eq!(a, b);
}

#[test]
fn info_describes_a_fair_linear_shuffle() {
    let info = Inplace::new().info();
    assert_eq!(info, INFO);
    assert_eq!(info.name, "inplace");
    assert_eq!(info.complexity, fairdeal_core::Complexity::Linear);
    assert!(info.fair);
}
