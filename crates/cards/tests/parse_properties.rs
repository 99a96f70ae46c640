//! Properties of the card notation parser, the one parser every poker and blackjack input goes
//! through: every spelling of a card list a person may type parses back to the same cards, and
//! no text at all (random bytes, near-misses built from the notation's own characters) can make
//! it panic; an error names text that is really in the input.

use fairdeal_cards::{Card, CardError, CardSet, parse_card_set, parse_cards, standard_deck};
use proptest::prelude::*;

/// One way of writing `card`: rank as `T`/`10`, either case, suit as a letter in either case or
/// as a symbol with or without a variation selector (U+FE0F emoji, U+FE0E text form).
fn spell(card: Card, ten_as_digits: bool, upper: bool, suit_style: u8) -> String {
    let mut text = String::new();
    let rank = card.rank().to_char();
    if rank == 'T' && ten_as_digits {
        text.push_str("10");
    } else if upper {
        text.push(rank.to_ascii_uppercase());
    } else {
        text.push(rank.to_ascii_lowercase());
    }
    let suit = card.suit();
    match suit_style % 5 {
        0 => text.push(suit.to_char().to_ascii_lowercase()),
        1 => text.push(suit.to_char().to_ascii_uppercase()),
        2 => text.push(suit.symbol()),
        3 => {
            text.push(suit.symbol());
            text.push('\u{FE0F}');
        }
        _ => {
            text.push(suit.symbol());
            text.push('\u{FE0E}');
        }
    }
    text
}

/// Distinct cards in a random order, each with a random spelling and a random separator after
/// it (nothing, spaces, tabs, commas, a newline).
fn spelled_cards() -> impl Strategy<Value = (Vec<Card>, String)> {
    (
        Just(standard_deck()).prop_shuffle(),
        0usize..=52,
        prop::collection::vec(
            (
                any::<bool>(),
                any::<bool>(),
                any::<u8>(),
                prop::sample::select(vec!["", " ", "  ", ",", ", ", "\t", "\n", " ,\t"]),
            ),
            52,
        ),
        prop::sample::select(vec!["", " ", ",", "\n "]),
    )
        .prop_map(|(deck, len, styles, lead)| {
            let cards = deck[..len].to_vec();
            let mut text = String::from(lead);
            for (&card, &(ten, upper, suit, sep)) in cards.iter().zip(&styles) {
                text.push_str(&spell(card, ten, upper, suit));
                text.push_str(sep);
            }
            (cards, text)
        })
}

/// Text made of the notation's own characters (ranks, suits, symbols, selectors, separators)
/// in any order: near-misses that reach every branch of the parser.
fn notation_soup() -> impl Strategy<Value = String> {
    let alphabet: Vec<char> = "23456789TJQKAtjqka10XxcdhsCDHSz\u{2660}\u{2665}\u{2666}\u{2663}\
                               \u{2664}\u{FE0F}\u{FE0E} ,\t\n\u{00A0}é"
        .chars()
        .collect();
    prop::collection::vec(prop::sample::select(alphabet), 0..24)
        .prop_map(|chars| chars.into_iter().collect())
}

/// The checks every outcome of parsing `text` must pass.
fn check_outcome(text: &str) -> Result<(), TestCaseError> {
    match parse_cards(text) {
        Ok(cards) => {
            // Distinct cards, and the canonical spelling parses back to them.
            let set = CardSet::try_from_cards(cards.iter().copied()).unwrap();
            prop_assert_eq!(set.len(), cards.len());
            let canonical: Vec<String> = cards.iter().map(ToString::to_string).collect();
            prop_assert_eq!(parse_cards(&canonical.join(" ")).unwrap(), cards.clone());
            prop_assert_eq!(parse_card_set(text).unwrap(), set);
            // `Card::from_str` reads at most one card (and no commas): never a different one.
            match (cards.as_slice(), text.parse::<Card>()) {
                ([card], Ok(parsed)) => prop_assert_eq!(parsed, *card),
                (_, Ok(parsed)) => prop_assert!(false, "{:?} read {} alone", text, parsed),
                (_, Err(_)) => {}
            }
        }
        Err(err) => {
            let message = err.to_string();
            prop_assert!(!message.is_empty());
            // One line whatever the input holds (the CLI prints it after `fairdeal: error:`).
            prop_assert!(
                !message.contains('\n') && !message.contains('\r'),
                "{}",
                message
            );
            match &err {
                CardError::InvalidRank { text: token, found }
                | CardError::InvalidSuit { text: token, found } => {
                    prop_assert!(
                        text.contains(token.as_str()),
                        "{:?} not in {:?}",
                        token,
                        text
                    );
                    prop_assert!(token.contains(*found), "{:?} not in {:?}", found, token);
                }
                CardError::MissingSuit { text: token } => {
                    prop_assert!(
                        text.contains(token.as_str()),
                        "{:?} not in {:?}",
                        token,
                        text
                    );
                }
                CardError::Duplicate { card } => {
                    prop_assert!(message.contains(&card.to_string()), "{}", message);
                }
                other => prop_assert!(false, "unexpected error {:?} for {:?}", other, text),
            }
            prop_assert!(parse_card_set(text).is_err());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn every_spelling_round_trips((cards, text) in spelled_cards()) {
        prop_assert_eq!(parse_cards(&text).unwrap(), cards.clone());
        let set = CardSet::try_from_cards(cards.iter().copied()).unwrap();
        prop_assert_eq!(parse_card_set(&text).unwrap(), set);
        // And the canonical form of the set reads back as the set.
        prop_assert_eq!(parse_card_set(&set.to_string()).unwrap(), set);
    }

    #[test]
    fn a_repeated_card_is_refused_by_name((cards, text) in spelled_cards(), pick in any::<prop::sample::Index>()) {
        prop_assume!(!cards.is_empty());
        let again = cards[pick.index(cards.len())];
        let text = format!("{text} {again}");
        prop_assert_eq!(parse_cards(&text), Err(CardError::Duplicate { card: again }));
    }

    #[test]
    fn near_misses_never_panic(text in notation_soup()) {
        check_outcome(&text)?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check_outcome(&text)?;
    }
}

#[test]
fn a_rank_before_a_separator_lacks_its_suit() {
    // Found by `arbitrary_text_never_panics`: "J Kd" read as the invalid suit ' ' in "J".
    for (text, token) in [("J Kd", "J"), ("J", "J"), ("As 10, Kd", "10"), ("q\t", "q")] {
        assert_eq!(
            parse_cards(text),
            Err(CardError::MissingSuit { text: token.into() }),
            "{text:?}"
        );
    }
    // Found by `near_misses_never_panic`: the card was quoted as "" for a leading comma.
    assert_eq!(
        ",As".parse::<Card>(),
        Err(CardError::InvalidRank {
            text: ",A".into(),
            found: ','
        })
    );
    assert_eq!(
        parse_cards("J Kd").unwrap_err().to_string(),
        "missing suit after the rank in \"J\""
    );
}
