//! Card strings (`fairdeal poker ... --board "As Kd 10h"`): `Card::from_str`, `parse_cards` and
//! `parse_card_set` never panic, and whatever they accept prints back to text that parses to
//! the same cards.
#![no_main]

use fairdeal_cards::{Card, parse_card_set, parse_cards};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(card) = text.parse::<Card>() {
        assert_eq!(card.to_string().parse::<Card>(), Ok(card));
    }
    let cards = parse_cards(text);
    if let Ok(cards) = &cards {
        let printed: Vec<String> = cards.iter().map(Card::to_string).collect();
        assert_eq!(parse_cards(&printed.join(" ")).as_ref(), Ok(cards));
    }
    let set = parse_card_set(text);
    assert_eq!(set.is_ok(), cards.is_ok(), "{text:?}: {set:?} vs {cards:?}");
    if let Ok(set) = set {
        assert_eq!(parse_card_set(&set.to_string()), Ok(set));
    }
});
