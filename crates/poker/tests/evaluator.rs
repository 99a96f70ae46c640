//! The evaluator against the published category counts and poker's ordering rules.
//!
//! The expected counts are the standard combinatorial facts (e.g. Wikipedia, "Poker
//! probability"): they appear only here, never in library code.

use std::collections::BTreeSet;

use fairdeal_cards::{Card, parse_cards};
use fairdeal_poker::{
    Category, HandValue, PokerError, evaluate, evaluate_set, exhaustive_5, exhaustive_7,
};
use rand::{Rng, SeedableRng, seq::SliceRandom};

fn counts_best_first(t: &fairdeal_poker::CategoryCounts) -> Vec<u64> {
    t.iter_best_first().map(|(_, n)| n).collect()
}

#[test]
fn five_card_counts_match_the_published_table() {
    let t = exhaustive_5();
    assert_eq!(t.total(), 2_598_960);
    assert_eq!(
        counts_best_first(&t),
        [
            40, 624, 3_744, 5_108, 10_200, 54_912, 123_552, 1_098_240, 1_302_540
        ]
    );
}

#[test]
fn seven_card_counts_match_the_published_table() {
    let t = exhaustive_7();
    assert_eq!(t.total(), 133_784_560);
    assert_eq!(
        counts_best_first(&t),
        [
            41_584, 224_848, 3_473_184, 4_047_644, 6_180_020, 6_461_620, 31_433_400, 58_627_800,
            23_294_460
        ]
    );
}

#[test]
fn exactly_7462_distinct_five_card_classes() {
    let deck = fairdeal_cards::standard_deck();
    let mut seen = BTreeSet::new();
    for a in 0..52 {
        for b in a + 1..52 {
            for c in b + 1..52 {
                for d in c + 1..52 {
                    for e in d + 1..52 {
                        let hand = [deck[a], deck[b], deck[c], deck[d], deck[e]];
                        seen.insert(evaluate(&hand).unwrap());
                    }
                }
            }
        }
    }
    assert_eq!(seen.len(), 7_462);
    // Classes per category (weakest category first), and positions are dense 0..n.
    let expected = [1_277, 2_860, 858, 858, 10, 1_277, 156, 156, 10];
    for (category, n) in Category::ALL.into_iter().zip(expected) {
        let positions: Vec<u16> = seen
            .iter()
            .filter(|v| v.category() == category)
            .map(|v| v.position())
            .collect();
        assert_eq!(positions, (0..n).collect::<Vec<u16>>(), "{category}");
    }
}

fn v(text: &str) -> HandValue {
    evaluate(&parse_cards(text).unwrap()).unwrap()
}

#[test]
fn ordering_spot_checks() {
    // Straights: the wheel is the lowest, the six-high beats it, broadway is the highest.
    assert_eq!(v("As 2d 3c 4h 5s").category(), Category::Straight);
    assert!(v("As 2d 3c 4h 5s") < v("2d 3c 4h 5s 6s"));
    assert!(v("Ts Jd Qc Kh As") > v("9s Td Jc Qh Ks"));
    assert!(v("As 2s 3s 4s 5s") < v("2s 3s 4s 5s 6s"));
    assert_eq!(v("Ts Js Qs Ks As").category(), Category::StraightFlush);
    assert_eq!(v("Ts Js Qs Ks As").position(), 9);
    // No wrap-around straight.
    assert_eq!(v("Qs Kd Ac 2h 3s").category(), Category::HighCard);
    // Kicker ties and kicker decisions.
    assert_eq!(v("As Ad Kc Qd Jh"), v("Ah Ac Ks Qh Jd"));
    assert!(v("As Ad Kc Qd Jh") > v("Ah Ac Ks Qh Td"));
    assert!(v("Ks Kd 2c 2d Ah") > v("Kh Kc 2h 2s Qh"));
    assert!(v("Ks Kd 3c 3d 2h") > v("Kh Kc 2h 2s Ah"));
    // Category order.
    let ladder = [
        "2s 4d 6c 8h Ts",
        "2s 2d 6c 8h Ts",
        "2s 2d 6c 6h Ts",
        "2s 2d 2c 8h Ts",
        "2s 3d 4c 5h 6s",
        "2s 4s 6s 8s Ts",
        "2s 2d 2c 8h 8s",
        "2s 2d 2c 2h Ts",
        "2s 3s 4s 5s 6s",
    ];
    for (i, pair) in ladder.windows(2).enumerate() {
        assert!(v(pair[0]) < v(pair[1]), "{} !< {}", pair[0], pair[1]);
        assert_eq!(v(pair[0]).category().index(), i);
    }
    // Seven cards: the third pair's rank can be the kicker; two trips make a full house;
    // the best five ignore the rest.
    assert_eq!(v("Ks Kd 7c 7d 5h 5s 2c"), v("Ks Kd 7c 7d 5h 3s 2c"));
    assert_eq!(v("Ks Kd Kc 7d 7h 7s 2c").category(), Category::FullHouse);
    assert!(v("Ks Kd Kc 7d 7h 7s 2c") > v("Ks Kd Kc 2d 2h 7s 3c"));
    assert_eq!(v("9h 8h 7h 6h 5h 4h 3h"), v("9h 8h 7h 6h 5h"));
    assert_eq!(v("Ah Kh Qh Jh 9h 8h 2c"), v("Ah Kh Qh Jh 9h"));
}

#[test]
fn category_names() {
    assert_eq!(Category::StraightFlush.key(), "straight_flush");
    assert_eq!(Category::OnePair.to_string(), "One pair");
    // The weakest two pair (3-3-2-2 with a 4) is position 0 of its category.
    assert_eq!(v("3s 3d 2c 2h 4s").to_string(), "Two pair #0");
}

fn best_subset(cards: &[Card]) -> HandValue {
    let n = cards.len();
    let mut best = HandValue::default();
    for mask in 0u32..1 << n {
        if mask.count_ones() == 5 {
            let five: Vec<Card> = (0..n)
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| cards[i])
                .collect();
            best = best.max(evaluate(&five).unwrap());
        }
    }
    best
}

#[test]
fn six_and_seven_cards_are_the_best_five_card_subset() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut deck = fairdeal_cards::standard_deck();
    for i in 0..20_000 {
        deck.shuffle(&mut rng);
        let n = if i % 2 == 0 { 7 } else { 6 };
        let hand = &deck[..n];
        assert_eq!(evaluate(hand).unwrap(), best_subset(hand), "{hand:?}");
    }
    // Flush-rich hands (all cards from two suits) exercise the flush table harder.
    let two_suits: Vec<Card> = deck.iter().copied().filter(|c| c.index() % 4 < 2).collect();
    let mut pool = two_suits;
    for _ in 0..5_000 {
        pool.shuffle(&mut rng);
        let n = 5 + (rng.next_u32() % 3) as usize;
        assert_eq!(evaluate(&pool[..n]).unwrap(), best_subset(&pool[..n]));
    }
}

#[test]
fn set_and_slice_agree() {
    let cards = parse_cards("Ah Kh Qh Jh 9h 8h 2c").unwrap();
    let set = fairdeal_cards::CardSet::try_from_cards(cards.clone()).unwrap();
    assert_eq!(evaluate_set(set).unwrap(), evaluate(&cards).unwrap());
}

#[test]
fn errors_instead_of_panics() {
    let four = parse_cards("As Kd Qh Jc").unwrap();
    assert_eq!(evaluate(&four), Err(PokerError::HandSize { len: 4 }));
    assert_eq!(evaluate(&[]), Err(PokerError::HandSize { len: 0 }));
    let mut eight = parse_cards("As Kd Qh Jc Ts 9s 8s").unwrap();
    eight.push("2c".parse().unwrap());
    assert_eq!(evaluate(&eight), Err(PokerError::HandSize { len: 8 }));
    let mut dup = parse_cards("As Kd Qh Jc").unwrap();
    dup.push(dup[1]);
    assert_eq!(
        evaluate(&dup),
        Err(PokerError::DuplicateCard { card: dup[1] })
    );
    assert!(evaluate_set(fairdeal_cards::CardSet::FULL).is_err());
}

/// Every way a 5-, 6- or 7-card hand can repeat a card is refused, naming a repeated card:
/// each card of the deck repeated 2 to 7 times among distinct others, at every position, in
/// hands drawn from a fixed seed (the check compares the sum and the union of the card bits;
/// a carry of two equal bits into a bit the hand also holds must not hide the repeat).
#[test]
fn every_repeated_card_is_refused() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(33);
    let deck = fairdeal_cards::standard_deck();
    let mut checked = 0;
    for &twice in &deck {
        for copies in 2..=7usize {
            for len in copies.max(5)..=7 {
                for _ in 0..8 {
                    let mut others: Vec<Card> =
                        deck.iter().copied().filter(|&c| c != twice).collect();
                    others.shuffle(&mut rng);
                    // Half the hands also hold the card one rank up in the same suit: the
                    // sum's carry lands on its bit.
                    let up = Card::from_index(twice.index() + 4)
                        .ok()
                        .filter(|_| rng.next_u32() & 1 == 1);
                    let mut hand: Vec<Card> = vec![twice; copies];
                    if let Some(up) = up.filter(|_| hand.len() < len) {
                        hand.push(up);
                    }
                    hand.extend(others.into_iter().filter(|&c| Some(c) != up));
                    hand.truncate(len);
                    hand.shuffle(&mut rng);
                    match evaluate(&hand) {
                        Err(PokerError::DuplicateCard { card }) => assert_eq!(card, twice),
                        other => panic!("{hand:?}: {other:?}"),
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 52 * 6 * 8, "{checked}");
}
