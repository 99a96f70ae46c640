//! Property tests for `Partial` and `Dealer`: permutations, reproducibility, O(k) draws, and
//! errors that leave the data untouched.

use fairdeal_core::{ShuffleError, Shuffler};
use fairdeal_partial::{Dealer, INFO, Partial};
use fairdeal_testkit::Recording;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn shuffled_copy(v: &[u32], seed: u64) -> Vec<u32> {
    let mut out = v.to_vec();
    Partial::new().shuffle(&mut out, &mut Pcg64::seed_from_u64(seed));
    out
}

fn sorted(mut v: Vec<u32>) -> Vec<u32> {
    v.sort_unstable();
    v
}

/// A vector and a prefix length `k <= len`.
fn vec_and_k() -> impl Strategy<Value = (Vec<u32>, usize)> {
    proptest::collection::vec(any::<u32>(), 0..300).prop_flat_map(|v| {
        let len = v.len();
        (Just(v), 0..=len)
    })
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
    fn prefix_of_n_is_the_full_shuffle(v in proptest::collection::vec(any::<u32>(), 0..300), seed: u64) {
        let mut full = v.clone();
        Partial::new().shuffle_prefix(&mut full, v.len(), &mut Pcg64::seed_from_u64(seed)).unwrap();
        prop_assert_eq!(&full, &shuffled_copy(&v, seed));
        prop_assert_eq!(sorted(full), sorted(v));
    }

    #[test]
    fn prefix_keeps_a_permutation_and_is_deterministic((v, k) in vec_and_k(), seed: u64) {
        let run = || {
            let mut d = v.clone();
            Partial::new().shuffle_prefix(&mut d, k, &mut Pcg64::seed_from_u64(seed)).map(|()| d)
        };
        let once = run().unwrap();
        prop_assert_eq!(&once, &run().unwrap());
        prop_assert_eq!(sorted(once), sorted(v.clone()));
    }

    #[test]
    fn prefix_makes_k_draws_with_bounds_n_down((v, k) in vec_and_k(), seed: u64) {
        let n = v.len();
        let shuffler = Partial::with_sampler(Recording::default());
        let mut d = v.clone();
        shuffler.shuffle_prefix(&mut d, k, &mut Pcg64::seed_from_u64(seed)).unwrap();
        // N, N-1, ..., N-k+1, except that the trivial bound 1 is never drawn.
        let expected: Vec<usize> = (0..k).map(|i| n - i).filter(|&b| b > 1).collect();
        prop_assert_eq!(shuffler.sampler().bounds(), expected);
    }

    #[test]
    fn prefix_longer_than_input_is_an_error(v in proptest::collection::vec(any::<u32>(), 0..50), extra in 1usize..10, seed: u64) {
        let mut data = v.clone();
        let k = v.len() + extra;
        let err = Partial::new().shuffle_prefix(&mut data, k, &mut Pcg64::seed_from_u64(seed));
        prop_assert_eq!(err, Err(ShuffleError::SampleTooLarge { requested: k, available: v.len() }));
        prop_assert_eq!(data, v);
    }

    #[test]
    fn dealer_keeps_the_deck_and_deals_its_prefix((v, k) in vec_and_k(), seed: u64) {
        let mut rng = Pcg64::seed_from_u64(seed);
        let mut dealer = Dealer::new(v.clone());
        for _ in 0..3 {
            let hand = dealer.deal(k, &mut rng).unwrap().to_vec();
            prop_assert_eq!(hand.len(), k);
            prop_assert_eq!(&hand[..], &dealer.deck()[..k]);
        }
        prop_assert_eq!(dealer.len(), v.len());
        prop_assert_eq!(sorted(dealer.into_deck()), sorted(v));
    }

    #[test]
    fn dealer_is_a_partial_shuffle_on_the_reused_deck((v, k) in vec_and_k(), seed: u64) {
        let mut rng_a = Pcg64::seed_from_u64(seed);
        let mut rng_b = Pcg64::seed_from_u64(seed);
        let mut dealer = Dealer::new(v.clone());
        let mut by_hand = v;
        for _ in 0..3 {
            let hand = dealer.deal(k, &mut rng_a).unwrap().to_vec();
            Partial::new().shuffle_prefix(&mut by_hand, k, &mut rng_b).unwrap();
            prop_assert_eq!(&hand[..], &by_hand[..k]);
        }
    }
}

#[test]
fn tiny_lengths_are_permutations() {
    for seed in 0..64 {
        assert_eq!(shuffled_copy(&[], seed), Vec::<u32>::new());
        assert_eq!(shuffled_copy(&[7], seed), vec![7]);
        assert_eq!(sorted(shuffled_copy(&[1, 2], seed)), vec![1, 2]);
    }
    let swapped = (0..64)
        .filter(|&s| shuffled_copy(&[1, 2], s) == [2, 1])
        .count();
    assert!(swapped > 0 && swapped < 64, "{swapped} of 64 swapped");
}

#[test]
fn seven_of_fifty_two_costs_seven_draws() {
    let shuffler = Partial::with_sampler(Recording::default());
    let mut deck: Vec<u8> = (0..52).collect();
    shuffler
        .shuffle_prefix(&mut deck, 7, &mut Pcg64::seed_from_u64(1))
        .unwrap();
    assert_eq!(
        shuffler.sampler().bounds(),
        vec![52, 51, 50, 49, 48, 47, 46]
    );
    // Slots beyond the ones swapped into are untouched.
    let moved = deck
        .iter()
        .enumerate()
        .filter(|&(i, &c)| usize::from(c) != i)
        .count();
    assert!(moved <= 14, "{moved} slots moved by 7 swaps");
}

#[test]
fn dealer_rejects_oversized_hands_without_touching_the_deck() {
    let mut rng = Pcg64::seed_from_u64(2);
    let mut dealer = Dealer::new((0..5u8).collect());
    dealer.deal(3, &mut rng).unwrap();
    let before = dealer.deck().to_vec();
    assert!(!dealer.is_empty());
    assert_eq!(
        dealer.deal(6, &mut rng),
        Err(ShuffleError::SampleTooLarge {
            requested: 6,
            available: 5
        })
    );
    assert_eq!(dealer.deck(), &before[..]);
    let mut empty: Dealer<u8> = Dealer::default();
    assert!(empty.is_empty());
    assert_eq!(empty.deal(0, &mut rng), Ok(&[][..]));
}

#[test]
fn elements_need_not_be_clone() {
    #[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
    struct Card(u8);
    let mut rng = Pcg64::seed_from_u64(5);
    let mut dealer = Dealer::new((0..10).map(Card).collect());
    assert_eq!(dealer.deal(4, &mut rng).unwrap().len(), 4);
    let mut cards = dealer.into_deck();
    Partial::new().shuffle(&mut cards, &mut rng);
    cards.sort();
    assert_eq!(cards, (0..10).map(Card).collect::<Vec<_>>());
}

#[test]
fn info_describes_a_fair_linear_shuffle() {
    let info = Partial::new().info();
    assert_eq!(info, INFO);
    assert_eq!(info.name, "partial");
    assert_eq!(info.complexity, fairdeal_core::Complexity::Linear);
    assert!(info.fair);
}
