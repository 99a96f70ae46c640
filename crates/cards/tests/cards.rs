//! Behaviour of cards, sets, decks and the notation.

use fairdeal_cards::{
    Card, CardError, CardSet, MAX_SHOE_DECKS, Rank, Suit, parse_card_set, parse_cards, shoe,
    standard_deck,
};
use proptest::prelude::*;

#[test]
fn indices_are_rank_major() {
    for (i, card) in standard_deck().into_iter().enumerate() {
        assert_eq!(usize::from(card.index()), i);
        assert_eq!(usize::from(card.rank().index()), i / 4);
        assert_eq!(usize::from(card.suit().index()), i % 4);
        assert_eq!(Card::new(card.rank(), card.suit()), card);
    }
    assert_eq!(Card::new(Rank::Two, Suit::Clubs).index(), 0);
    assert_eq!(Card::new(Rank::Ace, Suit::Spades).index(), 51);
    assert!(Card::from_index(52).is_err());
}

#[test]
fn rank_values() {
    let poker: Vec<u8> = Rank::ALL.iter().map(|r| r.value()).collect();
    assert_eq!(poker, (2..=14).collect::<Vec<u8>>());
    let bj: Vec<u8> = Rank::ALL.iter().map(|r| r.blackjack_value()).collect();
    assert_eq!(bj, [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1]);
}

#[test]
fn parses_the_usual_notation() {
    let cards = parse_cards("AsKd 7h").unwrap();
    assert_eq!(
        cards,
        vec![
            Card::new(Rank::Ace, Suit::Spades),
            Card::new(Rank::King, Suit::Diamonds),
            Card::new(Rank::Seven, Suit::Hearts)
        ]
    );
    assert_eq!(parse_cards("asKD7H").unwrap(), cards);
    assert_eq!(parse_cards("  As, Kd,7h  ").unwrap(), cards);
    assert_eq!(
        "10d".parse::<Card>().unwrap(),
        "Td".parse::<Card>().unwrap()
    );
    assert_eq!("tD".parse::<Card>().unwrap().to_string(), "Td");
    assert_eq!(" 2c ".parse::<Card>().unwrap().index(), 0);
    assert_eq!("A♠".parse::<Card>().unwrap().to_string(), "As");
    assert_eq!(parse_cards("10c10d").unwrap().len(), 2);
    assert!(parse_cards(" ").unwrap().is_empty());
}

#[test]
fn rejects_malformed_text() {
    assert_eq!("".parse::<Card>(), Err(CardError::Empty));
    assert!(matches!(
        "Xs".parse::<Card>(),
        Err(CardError::InvalidRank { found: 'X', .. })
    ));
    assert!(matches!(
        "1s".parse::<Card>(),
        Err(CardError::InvalidRank { found: '1', .. })
    ));
    assert!(matches!(
        "As x".parse::<Card>(),
        Err(CardError::TrailingText { .. })
    ));
    assert!(matches!(
        "AsKd".parse::<Card>(),
        Err(CardError::TrailingText { .. })
    ));
    assert!(matches!(
        "A".parse::<Card>(),
        Err(CardError::MissingSuit { .. })
    ));
    assert!(matches!(
        "Az".parse::<Card>(),
        Err(CardError::InvalidSuit { found: 'z', .. })
    ));
    assert!(matches!(
        parse_cards("As K"),
        Err(CardError::MissingSuit { .. })
    ));
    assert!(matches!(
        parse_cards("As Kd 11h"),
        Err(CardError::InvalidRank { .. })
    ));
    let dup = parse_cards("As Kd as").unwrap_err();
    assert_eq!(
        dup,
        CardError::Duplicate {
            card: "As".parse().unwrap()
        }
    );
    assert_eq!(dup.to_string(), "card As appears more than once");
    assert!(parse_card_set("2c 2c").is_err());
}

#[test]
fn card_set_operations() {
    let a = parse_card_set("As Kd 7h").unwrap();
    let b = parse_card_set("7h 2c").unwrap();
    assert_eq!(a.len(), 3);
    assert_eq!(a.union(b).len(), 4);
    assert_eq!(a.intersection(b), parse_card_set("7h").unwrap());
    assert_eq!(a.difference(b), parse_card_set("AsKd").unwrap());
    assert!(!a.is_disjoint(b));
    assert_eq!(a.complement().len(), 49);
    assert_eq!(CardSet::FULL.len(), 52);
    assert!(CardSet::EMPTY.is_empty());
    let mut s = CardSet::new();
    let ace = Card::new(Rank::Ace, Suit::Spades);
    assert!(s.insert(ace));
    assert!(!s.insert(ace));
    assert!(s.contains(ace));
    assert!(s.remove(ace));
    assert!(!s.remove(ace));
    assert!(CardSet::from_bits(1 << 52).is_err());
    assert_eq!(CardSet::from_bits(0b101).unwrap().len(), 2);
    let collected: CardSet = standard_deck().into_iter().collect();
    assert_eq!(collected, CardSet::FULL);
    assert_eq!(CardSet::FULL.iter().len(), 52);
    assert!(matches!(
        CardSet::try_from_cards([ace, ace]),
        Err(CardError::Duplicate { .. })
    ));
}

#[test]
fn shoes() {
    assert_eq!(shoe(1).unwrap(), standard_deck());
    let six = shoe(6).unwrap();
    assert_eq!(six.len(), 312);
    for card in standard_deck() {
        assert_eq!(six.iter().filter(|&&c| c == card).count(), 6);
    }
    assert!(matches!(
        shoe(0),
        Err(CardError::InvalidDeckCount { decks: 0, .. })
    ));
    assert!(shoe(MAX_SHOE_DECKS).is_ok());
    assert!(shoe(MAX_SHOE_DECKS + 1).is_err());
}

fn random_case(text: &str, mask: u8) -> String {
    text.chars()
        .enumerate()
        .map(|(i, c)| {
            if mask >> (i % 8) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect()
}

proptest! {
    #[test]
    fn display_from_str_round_trip(index in 0u8..52, mask in any::<u8>()) {
        let card = Card::from_index(index).unwrap();
        let text = card.to_string();
        prop_assert_eq!(text.len(), 2);
        prop_assert_eq!(text.parse::<Card>().unwrap(), card);
        prop_assert_eq!(random_case(&text, mask).parse::<Card>().unwrap(), card);
    }

    #[test]
    fn card_set_round_trips_through_text(bits in any::<u64>(), sep in prop::sample::select(vec!["", " ", ", ", "\t"])) {
        let set = CardSet::from_bits(bits & CardSet::FULL.bits()).unwrap();
        prop_assert_eq!(parse_card_set(&set.to_string()).unwrap(), set);
        let joined: Vec<String> = set.iter().map(|c| c.to_string()).collect();
        prop_assert_eq!(parse_card_set(&joined.join(sep)).unwrap(), set);
        prop_assert_eq!(set.iter().count(), set.len());
    }
}

#[test]
fn emoji_suits_and_errors_that_name_the_card() {
    // "A♠️" is 'A', '♠' and U+FE0F (the emoji variation selector), as phones write it.
    let emoji = parse_cards("A\u{2660}\u{FE0F}A\u{2665}\u{FE0F} K\u{2666}\u{FE0E}").unwrap();
    assert_eq!(emoji, parse_cards("As Ah Kd").unwrap());
    assert_eq!(
        "10\u{2663}\u{FE0F}".parse::<Card>().unwrap(),
        "Tc".parse::<Card>().unwrap()
    );
    // A selector on its own is not a card.
    assert!(parse_cards("\u{FE0F}").is_err());
    for (text, card) in [
        ("XxAh", "Xx"),
        ("AsAx", "Ax"),
        ("10x", "10x"),
        ("As 1h", "1h"),
    ] {
        let err = parse_cards(text).unwrap_err();
        assert!(
            err.to_string().contains(&format!("in \"{card}\"")),
            "{text}: {err}"
        );
    }
}
