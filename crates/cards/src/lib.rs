/*!
Playing cards for the fairdeal engines: [`Card`], [`Rank`], [`Suit`], [`CardSet`], the
52-card deck and multi-deck shoes, and the usual text notation (`As`, `Td`, `2c`).

# Quick start

```
use fairdeal_cards::{parse_cards, Card, CardSet, Rank, Suit};

let hand = parse_cards("As Kd 10h")?;          // whitespace optional, "10" accepted
assert_eq!(hand[2], Card::new(Rank::Ten, Suit::Hearts));
assert_eq!(hand[2].to_string(), "Th");         // printed in the canonical form

let used = CardSet::try_from_cards(hand)?;     // rejects duplicates
let rest: Vec<Card> = used.complement().iter().collect();
assert_eq!(rest.len(), 49);

let shoe = fairdeal_cards::shoe(6)?;           // 312 cards for blackjack
assert_eq!(shoe.iter().filter(|c| c.rank().blackjack_value() == 10).count(), 96);
# Ok::<(), fairdeal_cards::CardError>(())
```

# Design

* A [`Card`] is one byte, its index `0..52`, laid out **rank-major**
  (`index = 4 · rank + suit`, 2♣ = 0 … A♠ = 51). Rank and suit are a shift and a mask away, and
  sorting cards sorts by rank, which is what a hand evaluator wants.
* A [`CardSet`] is a `u64` bit mask (bit `i` = card `i`), so membership, union and duplicate
  detection cost one or two instructions; the poker engine uses it for dead cards and boards.
* Parsing is case-insensitive and accepts `10` for ten and the suit symbols `♣♦♥♠`; printing
  is canonical (`Td`), so `Display` and `FromStr` round-trip. Every malformed input gives a
  [`CardError`] naming the offending text; nothing panics.
* Decks are plain `Vec<Card>` ([`standard_deck`], [`shoe`]): shuffling belongs to the
  `fairdeal-core` `Shuffler` the caller picks, not to this crate.

# `no_std`

The crate is `#![no_std]` and needs only `alloc` (for the `Vec` of a deck and the text in
errors).
*/
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

extern crate alloc;

mod card;
mod deck;
mod error;
mod parse;
mod set;

pub use card::{Card, Rank, Suit};
pub use deck::{Deck, MAX_SHOE_DECKS, shoe, standard_deck};
pub use error::CardError;
pub use parse::{parse_card_set, parse_cards};
pub use set::{CardSet, CardSetIter};
