//! Proofs by enumeration (fairdeal-testkit's `enumerate`) for n <= 6: every prefix shuffle
//! deals every ordered hand on the same number of equally likely draw paths; consecutive deals
//! from one reused deck are jointly uniform (each hand independent of the ones before); the
//! sparse range sampler is exact as well.

use fairdeal_core::Shuffler;
use fairdeal_partial::{Dealer, Partial, sample_range};
use fairdeal_testkit::enumerate::{Enumerator, Scripted, ordered_hands};
use fairdeal_testkit::factorial;

#[test]
fn every_prefix_is_a_uniform_ordered_hand() {
    for n in 0..=6 {
        for k in 0..=n {
            let proof = Enumerator::indices().enumerate(|rng| {
                let mut deck: Vec<usize> = (0..n).collect();
                Partial::with_sampler(Scripted)
                    .shuffle_prefix(&mut deck, k, rng)
                    .unwrap();
                let hand = deck[..k].to_vec();
                let mut all = deck;
                all.sort_unstable();
                assert!(all.iter().copied().eq(0..n), "cards lost or duplicated");
                hand
            });
            proof.assert_uniform(ordered_hands(n, k));
            // k draws (bounds n, …, n - k + 1): one path per hand.
            let expected = u128::try_from(ordered_hands(n, k)).unwrap();
            assert!(
                proof.groups().keys().all(|&w| w == expected),
                "n = {n}, k = {k}"
            );
        }
    }
}

#[test]
fn a_full_prefix_is_a_uniform_order() {
    for n in 0..=6 {
        let proof = Enumerator::indices().enumerate(|rng| {
            let mut deck: Vec<usize> = (0..n).collect();
            Partial::with_sampler(Scripted).shuffle(&mut deck, rng);
            deck
        });
        proof.assert_uniform(factorial(n));
    }
}

/// Deals `hands` from one reused deck of `n` and returns them.
fn consecutive_deals(n: usize, hands: &[usize]) -> usize {
    let proof = Enumerator::indices().enumerate(|rng| {
        let mut dealer = Dealer::with_sampler((0..n).collect::<Vec<usize>>(), Scripted);
        hands
            .iter()
            .map(|&k| dealer.deal(k, rng).unwrap().to_vec())
            .collect::<Vec<_>>()
    });
    let joint: usize = hands.iter().map(|&k| ordered_hands(n, k)).product();
    proof.assert_uniform(joint);
    joint
}

#[test]
fn consecutive_deals_from_a_reused_deck_are_jointly_uniform() {
    assert_eq!(consecutive_deals(6, &[2, 2]), 900);
    assert_eq!(consecutive_deals(6, &[3, 1, 2]), 120 * 6 * 30);
    assert_eq!(consecutive_deals(5, &[2, 2, 2]), 20 * 20 * 20);
    assert_eq!(consecutive_deals(4, &[4, 4]), 24 * 24);
}

#[test]
fn the_exact_test_rejects_a_dealer_that_does_not_move_the_deck() {
    // A "dealer" that shuffles a copy and deals from the untouched deck: the second hand
    // always equals the first.
    let proof = Enumerator::indices().enumerate(|rng| {
        let deck: Vec<usize> = (0..5).collect();
        let mut hands: Vec<Vec<usize>> = Vec::new();
        for _ in 0..2 {
            let mut copy = deck.clone();
            Partial::with_sampler(Scripted)
                .shuffle_prefix(&mut copy, 2, rng)
                .unwrap();
            hands.push(if hands.is_empty() {
                copy[..2].to_vec()
            } else {
                hands[0].clone()
            });
        }
        hands
    });
    assert!(!proof.is_uniform(20 * 20));
}

#[test]
fn sparse_range_samples_are_uniform_ordered_hands() {
    for n in 1..=6u64 {
        for k in 0..=n as usize {
            let proof = Enumerator::indices()
                .enumerate(|rng| sample_range(100, 100 + n - 1, k, rng, &Scripted).unwrap());
            proof.assert_uniform(ordered_hands(n as usize, k));
        }
    }
}
