//! Properties of the poker inputs a user types (`fairdeal poker equity HAND... --board --dead`):
//! every valid spot written out parses back to itself, and no text, however broken, makes
//! `Seat`, `Spot::parse` or `evaluate` panic; whatever they accept satisfies the spot's rules,
//! and whatever they refuse is refused with one line that names the input.

use fairdeal_cards::{Card, CardSet, parse_cards, standard_deck};
use fairdeal_poker::{EXACT_LIMIT, PokerError, Seat, Spot, evaluate};
use proptest::prelude::*;

/// A valid spot as the CLI receives it: a shuffled deck hands out 2 to 9 seats (each known or
/// `random`), a board of 0, 3, 4 or 5 cards and a few dead cards, never more than the deck
/// holds.
fn valid_spot() -> impl Strategy<Value = (Vec<Seat>, Vec<Card>, Vec<Card>)> {
    (
        Just(standard_deck()).prop_shuffle(),
        prop::collection::vec(any::<bool>(), 2..=9),
        prop::sample::select(vec![0usize, 3, 4, 5]),
        0usize..=8,
    )
        .prop_map(|(deck, known, board_len, dead_len)| {
            let mut cards = deck.into_iter();
            let mut take = |n: usize| -> Vec<Card> { cards.by_ref().take(n).collect() };
            let seats = known
                .iter()
                .map(|&known| {
                    if known {
                        let hole = take(2);
                        Seat::Known([hole[0], hole[1]])
                    } else {
                        Seat::Random
                    }
                })
                .collect();
            (seats, take(board_len), take(dead_len))
        })
}

fn joined(cards: &[Card], separator: &str) -> String {
    let texts: Vec<String> = cards.iter().map(ToString::to_string).collect();
    texts.join(separator)
}

/// Text made of the notation's characters plus `random`/`?`: near-misses of every input.
fn soup() -> impl Strategy<Value = String> {
    let pieces = vec![
        "A", "K", "Q", "J", "T", "10", "9", "2", "1", "X", "s", "h", "d", "c", "x", "S", "H",
        "\u{2660}", "\u{2665}", "\u{FE0F}", " ", ",", "random", "?", "RANDOM", "\t",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..14).prop_map(|p| p.concat())
}

/// The rules every accepted spot keeps.
fn check_spot(spot: &Spot) -> Result<(), TestCaseError> {
    prop_assert!((2..=9).contains(&spot.seats().len()));
    prop_assert!(matches!(spot.board().len(), 0 | 3 | 4 | 5));
    let mut used = CardSet::new();
    let known = spot
        .seats()
        .iter()
        .flat_map(|seat| match seat {
            Seat::Known(cards) => cards.to_vec(),
            Seat::Random => Vec::new(),
        })
        .chain(spot.board().iter().copied())
        .chain(spot.dead().iter().copied());
    for card in known {
        prop_assert!(used.insert(card), "{} twice in {:?}", card, spot);
    }
    prop_assert_eq!(spot.remaining(), used.complement());
    prop_assert!(spot.to_deal() <= spot.remaining().len());
    // Deciding between exact and Monte Carlo never overflows.
    let _ = spot.exact_outcomes() <= EXACT_LIMIT;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn seats_round_trip(deck in Just(standard_deck()).prop_shuffle(), random in any::<bool>()) {
        let seat = if random { Seat::Random } else { Seat::Known([deck[0], deck[1]]) };
        prop_assert_eq!(seat.to_string().parse::<Seat>().unwrap(), seat);
        if let Seat::Known([a, b]) = seat {
            // Any separator and case the card parser accepts.
            let spaced = format!("{} , {}", a.to_string().to_lowercase(), b);
            prop_assert_eq!(spaced.parse::<Seat>().unwrap(), seat);
        }
    }

    #[test]
    fn valid_spots_round_trip_through_text((seats, board, dead) in valid_spot(), separator in prop::sample::select(vec!["", " ", ", "])) {
        let hands: Vec<String> = seats.iter().map(ToString::to_string).collect();
        let hands: Vec<&str> = hands.iter().map(String::as_str).collect();
        let spot = Spot::parse(&hands, &joined(&board, separator), &joined(&dead, separator)).unwrap();
        prop_assert_eq!(spot.seats(), seats.as_slice());
        prop_assert_eq!(spot.board(), board.as_slice());
        prop_assert_eq!(spot.dead(), dead.as_slice());
        check_spot(&spot)?;
        prop_assert_eq!(&Spot::new(seats, board, dead).unwrap(), &spot);
    }

    #[test]
    fn a_card_used_twice_anywhere_is_refused((seats, board, dead) in valid_spot(), pick in any::<prop::sample::Index>()) {
        let known: Vec<Card> = seats
            .iter()
            .flat_map(|seat| match seat {
                Seat::Known(cards) => cards.to_vec(),
                Seat::Random => Vec::new(),
            })
            .chain(board.iter().copied())
            .chain(dead.iter().copied())
            .collect();
        prop_assume!(!known.is_empty());
        let again = known[pick.index(known.len())];
        let mut dead = dead;
        dead.push(again);
        let hands: Vec<String> = seats.iter().map(ToString::to_string).collect();
        let hands: Vec<&str> = hands.iter().map(String::as_str).collect();
        let err = Spot::parse(&hands, &joined(&board, " "), &joined(&dead, " ")).unwrap_err();
        let named = matches!(err, PokerError::DuplicateCard { card } if card == again);
        prop_assert!(named, "{:?}", err);
    }

    #[test]
    fn broken_input_never_panics(hands in prop::collection::vec(soup(), 0..11), board in soup(), dead in soup()) {
        let hands: Vec<&str> = hands.iter().map(String::as_str).collect();
        match Spot::parse(&hands, &board, &dead) {
            Ok(spot) => check_spot(&spot)?,
            Err(err) => {
                let message = err.to_string();
                prop_assert!(!message.is_empty() && !message.contains('\n'), "{}", message);
                if let PokerError::CardText { what, text, .. } = &err {
                    let named = match what.as_str() {
                        "board" => text == &board,
                        "dead cards" => text == &dead,
                        hand => hand
                            .strip_prefix("hand ")
                            .and_then(|n| n.parse::<usize>().ok())
                            .and_then(|n| hands.get(n.wrapping_sub(1)))
                            .is_some_and(|h| h == text),
                    };
                    prop_assert!(named, "{} does not name its input", message);
                }
            }
        }
    }

    #[test]
    fn evaluating_parsed_text_never_panics(text in soup()) {
        if let Ok(cards) = parse_cards(&text) {
            match evaluate(&cards) {
                Ok(value) => prop_assert!((5..=7).contains(&cards.len()), "{:?}", value),
                Err(err) => {
                    let size_refused = matches!(err, PokerError::HandSize { len } if len == cards.len());
                    prop_assert!(size_refused, "{:?}", err);
                }
            }
        }
    }
}
