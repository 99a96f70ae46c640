//! The 52-card deck and multi-deck shoes.

use alloc::vec::Vec;

use crate::{Card, CardError};

/// The largest number of decks [`shoe`] accepts. Casinos use 1 to 8; the limit only stops a
/// typo (`--decks 6000000`) from allocating gigabytes.
pub const MAX_SHOE_DECKS: usize = 64;

/// The 52 cards in index order: 2♣ 2♦ 2♥ 2♠ 3♣ … A♠.
///
/// ```
/// let deck = fairdeal_cards::standard_deck();
/// assert_eq!(deck.len(), 52);
/// assert_eq!(deck[0].to_string(), "2c");
/// assert_eq!(deck[51].to_string(), "As");
/// ```
pub fn standard_deck() -> Vec<Card> {
    (0..52u8).filter_map(|i| Card::from_index(i).ok()).collect()
}

/// `decks` standard decks one after another (each in index order), ready to shuffle.
///
/// ```
/// let shoe = fairdeal_cards::shoe(6)?;
/// assert_eq!(shoe.len(), 312);
/// assert!(fairdeal_cards::shoe(0).is_err());
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
///
/// # Errors
///
/// [`CardError::InvalidDeckCount`] unless `1 <= decks <= MAX_SHOE_DECKS`.
pub fn shoe(decks: usize) -> Result<Vec<Card>, CardError> {
    if decks == 0 || decks > MAX_SHOE_DECKS {
        return Err(CardError::InvalidDeckCount {
            decks,
            max: MAX_SHOE_DECKS,
        });
    }
    let one = standard_deck();
    let mut cards = Vec::with_capacity(52 * decks);
    for _ in 0..decks {
        cards.extend_from_slice(&one);
    }
    Ok(cards)
}

/// Namespace for the deck constructors, for callers who prefer `Deck::standard()`; it holds
/// no state.
///
/// ```
/// use fairdeal_cards::Deck;
/// assert_eq!(Deck::standard().len(), 52);
/// assert_eq!(Deck::shoe(2)?.len(), 104);
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Deck;

impl Deck {
    /// Same as [`standard_deck`].
    pub fn standard() -> Vec<Card> {
        standard_deck()
    }

    /// Same as [`shoe`].
    ///
    /// # Errors
    ///
    /// As [`shoe`].
    pub fn shoe(decks: usize) -> Result<Vec<Card>, CardError> {
        shoe(decks)
    }
}
