//! The shoe deals every card once per shuffle, in a uniformly random order, with any shuffler.
#![allow(missing_docs)]

use fairdeal_blackjack::{Penetration, Rules, Shoe};
use fairdeal_cards::Card;
use fairdeal_core::{Rng, Shuffler};
use rand::SeedableRng;
use statrs::distribution::{ChiSquared, ContinuousCDF};

fn one_deck(penetration: Penetration) -> Rules {
    Rules {
        decks: 1,
        penetration,
        ..Rules::default()
    }
}

#[test]
fn a_shoe_is_a_permutation_of_its_decks_even_past_the_cut_card() {
    for shuffler_is_partial in [true, false] {
        let rules = Rules {
            decks: 2,
            penetration: Penetration::CutCard(0.6),
            ..Rules::default()
        };
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut dealt: Vec<Card> = if shuffler_is_partial {
            let mut shoe = Shoe::new(&rules, fairdeal_partial::Partial::new()).unwrap();
            shoe.start_round(&mut rng);
            (0..104).map(|_| shoe.draw(&mut rng)).collect()
        } else {
            let mut shoe = Shoe::new(&rules, fairdeal_inplace::Inplace::new()).unwrap();
            shoe.start_round(&mut rng);
            (0..104).map(|_| shoe.draw(&mut rng)).collect()
        };
        let mut expected = fairdeal_cards::shoe(2).unwrap();
        dealt.sort();
        expected.sort();
        assert_eq!(dealt, expected);
    }
}

#[test]
fn the_cut_card_triggers_a_reshuffle_at_the_next_round_only() {
    let rules = one_deck(Penetration::CutCard(0.5)); // cut after 26 cards
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
    let mut shoe = Shoe::new(&rules, fairdeal_partial::Partial::new()).unwrap();
    assert!(shoe.start_round(&mut rng));
    for _ in 0..25 {
        shoe.draw(&mut rng);
    }
    assert!(!shoe.start_round(&mut rng)); // 25 < 26: same shoe
    shoe.draw(&mut rng);
    shoe.draw(&mut rng); // the cut card came out during this round; finish from this shoe
    assert_eq!(shoe.remaining(), 25);
    assert!(shoe.start_round(&mut rng));
    assert_eq!(shoe.remaining(), 52);
    // A continuous shuffler reshuffles every round.
    let mut csm = Shoe::new(
        &one_deck(Penetration::Continuous),
        fairdeal_partial::Partial::new(),
    )
    .unwrap();
    for _ in 0..3 {
        assert!(csm.start_round(&mut rng));
        csm.draw(&mut rng);
    }
    assert_eq!(csm.shuffles(), 3);
    // Drawing past the end never panics (validated rules never get there).
    for _ in 0..200 {
        csm.draw(&mut rng);
    }
}

/// Chi-square over the rank (13 bins) of the card dealt at each of several positions of a
/// one-deck shoe whose cut card sits at 39: positions before the cut come from the first
/// prefix shuffle, later ones from the refill blocks.
/// With `fresh`, every sample comes from a new shoe in factory order (so a biased shuffle
/// shows); otherwise one shoe is reshuffled again and again without being restored.
fn rank_p_values<S: Shuffler + Clone, R: Rng>(
    shuffler: &S,
    rng: &mut R,
    penetration: Penetration,
    fresh: bool,
) -> Vec<f64> {
    const SHOES: usize = 13_000;
    const POSITIONS: [usize; 5] = [0, 20, 38, 45, 51];
    let mut counts = [[0u32; 13]; POSITIONS.len()];
    let mut shoe = Shoe::new(&one_deck(penetration), shuffler.clone()).unwrap();
    for _ in 0..SHOES {
        if fresh {
            shoe = Shoe::new(&one_deck(penetration), shuffler.clone()).unwrap();
        }
        // Force a fresh shuffle: deal past the cut card (or use the continuous shuffler).
        while !shoe.start_round(rng) {
            for _ in 0..40 {
                shoe.draw(rng);
            }
        }
        let cards: Vec<Card> = (0..52).map(|_| shoe.draw(rng)).collect();
        for (k, &pos) in POSITIONS.iter().enumerate() {
            counts[k][usize::from(cards[pos].index() >> 2)] += 1;
        }
    }
    let expected = SHOES as f64 / 13.0;
    let dist = ChiSquared::new(12.0).unwrap();
    counts
        .iter()
        .map(|row| {
            let chi2: f64 = row
                .iter()
                .map(|&c| (f64::from(c) - expected).powi(2) / expected)
                .sum();
            1.0 - dist.cdf(chi2)
        })
        .collect()
}

#[test]
fn every_position_is_uniform_with_any_shuffler_and_a_stuck_rng_is_caught() {
    for pen in [Penetration::CutCard(0.75), Penetration::Continuous] {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for fresh in [false, true] {
            for p in rank_p_values(&fairdeal_partial::Partial::new(), &mut rng, pen, fresh) {
                assert!(p > 1e-6, "partial, {pen:?}, fresh {fresh}: p = {p}");
            }
            for p in rank_p_values(&fairdeal_inplace::Inplace::new(), &mut rng, pen, fresh) {
                assert!(p > 1e-6, "inplace, {pen:?}, fresh {fresh}: p = {p}");
            }
        }
        // Negative controls: the same test rejects a generator with its top bit stuck at 0
        // (through the one-word-per-index sampler, every index falls in the lower half of its
        // range; batched dice would dilute that to the first die of each word), and one stuck
        // at all ones.
        let mut half = fairdeal_testkit::HalfRange(rand_pcg::Pcg64Mcg::seed_from_u64(12));
        let reference = fairdeal_partial::Partial::with_sampler(fairdeal_core::Lemire);
        for p in rank_p_values(&reference, &mut half, pen, true) {
            assert!(p < 1e-9, "half-range RNG not detected, {pen:?}: p = {p}");
        }
        for p in rank_p_values(
            &fairdeal_partial::Partial::new(),
            &mut fairdeal_testkit::Stuck(u64::MAX),
            pen,
            true,
        ) {
            assert!(p < 1e-9, "stuck RNG not detected, {pen:?}: p = {p}");
        }
    }
}
