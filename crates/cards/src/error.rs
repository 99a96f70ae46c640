//! What can go wrong with card text and card values.

use alloc::string::String;

use crate::Card;

/// Errors from parsing card text or building cards, sets and shoes from bad values.
///
/// ```
/// use fairdeal_cards::{Card, CardError};
/// let err = "Xs".parse::<Card>().unwrap_err();
/// assert_eq!(err.to_string(), "invalid rank 'X' in \"Xs\": expected 2-9, T (or 10), J, Q, K or A");
/// let err = "Ax".parse::<Card>().unwrap_err();
/// assert!(matches!(err, CardError::InvalidSuit { found: 'x', .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CardError {
    /// The text held no card.
    #[error("empty card text")]
    Empty,
    /// The rank character is not one of `2`-`9`, `T`, `10`, `J`, `Q`, `K`, `A`.
    #[error("invalid rank {found:?} in {text:?}: expected 2-9, T (or 10), J, Q, K or A")]
    InvalidRank {
        /// The card as written (its rank and the character after it: `"Xx"`).
        text: String,
        /// The character that is not a rank.
        found: char,
    },
    /// The suit character is not one of `c`, `d`, `h`, `s` (or a suit symbol).
    #[error("invalid suit {found:?} in {text:?}: expected c, d, h or s")]
    InvalidSuit {
        /// The card as written (its rank and the character in the suit's place: `"Ax"`).
        text: String,
        /// The character that is not a suit.
        found: char,
    },
    /// A rank with nothing after it.
    #[error("missing suit after the rank in {text:?}")]
    MissingSuit {
        /// The offending text.
        text: String,
    },
    /// More text after a single card (`"AsKd".parse::<Card>()`; use `parse_cards` for lists).
    #[error("unexpected {rest:?} after the card in {text:?}")]
    TrailingText {
        /// The whole text.
        text: String,
        /// What follows the card.
        rest: String,
    },
    /// The same card appears twice where cards must be distinct.
    #[error("card {card} appears more than once")]
    Duplicate {
        /// The repeated card.
        card: Card,
    },
    /// A card index (or set bit) outside `0..52`.
    #[error("card index {index} is out of range (0..52)")]
    IndexOutOfRange {
        /// The bad index.
        index: u8,
    },
    /// A shoe of zero decks or of absurdly many.
    #[error("a shoe needs 1 to {max} decks, not {decks}")]
    InvalidDeckCount {
        /// The requested number of decks.
        decks: usize,
        /// The largest accepted number.
        max: usize,
    },
}
