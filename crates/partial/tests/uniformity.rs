//! Sampled uniformity with fixed seeds (the exact proofs are in tests/exact.rs): whole shuffles
//! over all `n!` orders (fairdeal-testkit's `assert_shuffler_uniform`), dealt
//! hands over all ordered pairs (fresh and reused decks, and the sparse range sampler), each
//! with a negative control the same test must reject.

use fairdeal_core::{IndexSampler, Lemire, Shuffler};
use fairdeal_partial::{Dealer, Partial, sample_range};
use fairdeal_testkit::{
    Stuck, assert_blocks_uniform_across_batch_limits, assert_shuffler_uniform, chi_square_uniform,
    permutation_p_value,
};
use rand::SeedableRng;
use rand_pcg::Pcg64;

const DECK: usize = 5;
const HANDS: usize = 100_000;

/// Index of the ordered pair `(a, b)`, `a != b`, among the 20 ordered pairs from 5 cards.
fn pair_index(a: usize, b: usize) -> usize {
    assert_ne!(a, b);
    a * (DECK - 1) + if b > a { b - 1 } else { b }
}

/// Chi-square p-value of "all 20 ordered pairs equally likely" over `HANDS` hands.
fn pair_p_value(mut hand: impl FnMut() -> (usize, usize)) -> (f64, Vec<u64>) {
    let mut counts = vec![0u64; DECK * (DECK - 1)];
    for _ in 0..HANDS {
        let (a, b) = hand();
        counts[pair_index(a, b)] += 1;
    }
    (chi_square_uniform(&counts).1, counts)
}

#[test]
fn pair_index_is_a_bijection() {
    let mut seen = [false; 20];
    for a in 0..DECK {
        for b in (0..DECK).filter(|&b| b != a) {
            assert!(!std::mem::replace(&mut seen[pair_index(a, b)], true));
        }
    }
    assert!(seen.iter().all(|&s| s));
}

#[test]
fn all_orders_of_3_and_4_are_equally_likely() {
    assert_shuffler_uniform(&Partial::new(), &mut Pcg64::seed_from_u64(0x30_0003));
    assert_shuffler_uniform(
        &Partial::with_sampler(Lemire),
        &mut Pcg64::seed_from_u64(0x30_0004),
    );
}

#[test]
fn fresh_deck_prefix_gives_all_ordered_pairs_equally_often() {
    let mut rng = Pcg64::seed_from_u64(0x40_0001);
    let (p, counts) = pair_p_value(|| {
        let mut deck: Vec<usize> = (0..DECK).collect();
        Partial::new()
            .shuffle_prefix(&mut deck, 2, &mut rng)
            .unwrap();
        (deck[0], deck[1])
    });
    assert!(p > 1e-6, "p = {p}, counts = {counts:?}");
}

#[test]
fn reused_deck_hands_stay_uniform() {
    let mut rng = Pcg64::seed_from_u64(0x40_0002);
    let mut dealer = Dealer::new((0..DECK).collect::<Vec<usize>>());
    let (p, counts) = pair_p_value(|| {
        let hand = dealer.deal(2, &mut rng).unwrap();
        (hand[0], hand[1])
    });
    assert!(p > 1e-6, "p = {p}, counts = {counts:?}");

    // Also with a generator from another family.
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x40_0003);
    let mut dealer = Dealer::new((0..DECK).collect::<Vec<usize>>());
    let (p, counts) = pair_p_value(|| {
        let hand = dealer.deal(2, &mut rng).unwrap();
        (hand[0], hand[1])
    });
    assert!(p > 1e-6, "StdRng: p = {p}, counts = {counts:?}");
}

#[test]
fn the_same_test_rejects_a_dealer_that_does_not_shuffle() {
    // Deals the top two cards of the reused deck without any shuffling.
    let deck: Vec<usize> = (0..DECK).collect();
    let (p, _) = pair_p_value(|| (deck[0], deck[1]));
    assert!(p < 1e-9, "non-shuffling dealer not rejected: p = {p}");
}

#[test]
fn the_same_test_rejects_a_dealer_with_a_broken_rng() {
    // Not 0: Lemire rejects a zero word for bound 5 and would wait forever.
    let mut rng = Stuck(0x0123_4567_89AB_CDEF);
    let mut dealer = Dealer::new((0..DECK).collect::<Vec<usize>>());
    let (p, _) = pair_p_value(|| {
        let hand = dealer.deal(2, &mut rng).unwrap();
        (hand[0], hand[1])
    });
    assert!(p < 1e-9, "stuck RNG not rejected: p = {p}");
}

#[test]
fn the_same_test_rejects_a_dealer_that_reuses_a_weak_draw() {
    // A subtler broken dealer: the first card is drawn fairly but the second is always the card
    // that follows it in the reused deck. Every card still appears equally often as the first
    // card, yet only 5 of the 20 ordered pairs can occur.
    let mut rng = Pcg64::seed_from_u64(0x40_0004);
    let mut deck: Vec<usize> = (0..DECK).collect();
    let (p, _) = pair_p_value(|| {
        let j = Lemire.index_below(&mut rng, DECK);
        deck.swap(0, j);
        (deck[0], (deck[0] + 1) % DECK)
    });
    assert!(p < 1e-9, "weak dealer not rejected: p = {p}");
}

#[test]
fn sparse_range_pairs_are_uniform() {
    let mut rng = Pcg64::seed_from_u64(0x40_0005);
    let (p, counts) = pair_p_value(|| {
        let picks = sample_range(10, 14, 2, &mut rng, &Lemire).unwrap();
        ((picks[0] - 10) as usize, (picks[1] - 10) as usize)
    });
    assert!(p > 1e-6, "p = {p}, counts = {counts:?}");
}

#[test]
fn sparse_full_range_permutations_are_uniform() {
    let mut rng = Pcg64::seed_from_u64(0x40_0006);
    let p = permutation_p_value(4, 120_000, |v| {
        let picks = sample_range(0, 3, 4, &mut rng, &Lemire).unwrap();
        for (slot, x) in v.iter_mut().zip(picks) {
            *slot = x as usize;
        }
    });
    assert!(p > 1e-6, "p = {p}");
}

/// Element blocks against position blocks at a size that crosses every batch-size limit of
/// the default sampler, for the batched default and the one-draw-per-step reference; the
/// wrong-range swap is rejected by the same test.
#[test]
fn coarse_positions_are_uniform_across_every_batch_limit() {
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0001), |v, rng| {
        Partial::new().shuffle(v, rng);
    });
    assert_blocks_uniform_across_batch_limits(&mut Pcg64::seed_from_u64(0xB10C_0002), |v, rng| {
        Partial::with_sampler(Lemire).shuffle(v, rng);
    });
}
