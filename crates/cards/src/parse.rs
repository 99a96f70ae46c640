//! Parsing the usual card notation.

use alloc::string::String;
use alloc::vec::Vec;

use crate::{Card, CardError, CardSet, Rank, Suit};

/// The variation selectors that may follow a suit symbol: U+FE0F asks for the emoji form
/// (`"A♠️"`, as phones and chat programs write it), U+FE0E for the text form. Neither changes
/// the card, so the parser skips them after a suit.
const VARIATION_SELECTORS: [char; 2] = ['\u{FE0F}', '\u{FE0E}'];

/// Parses one card at the start of `text` (which must not start with whitespace) and returns
/// it with the unparsed rest.
pub(crate) fn parse_one(text: &str) -> Result<(Card, &str), CardError> {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return Err(CardError::Empty);
    };
    let rank = if first == '1' {
        // "10" is the only rank written with two characters.
        let rest = chars.as_str();
        if let Some(after) = rest.strip_prefix('0') {
            chars = after.chars();
            Rank::Ten
        } else {
            return Err(CardError::InvalidRank {
                text: card_token(text),
                found: first,
            });
        }
    } else {
        Rank::from_char(first).ok_or_else(|| CardError::InvalidRank {
            text: card_token(text),
            found: first,
        })?
    };
    // A rank at the end of the text or followed by a separator (`"J"`, `"J Kd"`) lacks its
    // suit; anything else in the suit's place is a wrong suit.
    let suit_char =
        chars
            .next()
            .filter(|&c| !is_separator(c))
            .ok_or_else(|| CardError::MissingSuit {
                text: card_token(text),
            })?;
    let suit = Suit::from_char(suit_char).ok_or_else(|| CardError::InvalidSuit {
        text: card_token(text),
        found: suit_char,
    })?;
    let rest = chars.as_str().trim_start_matches(VARIATION_SELECTORS);
    Ok((Card::new(rank, suit), rest))
}

/// The card as written at the start of `text`, for error messages: the rank (two characters
/// for `10`) and the character in the suit's place, e.g. `"Xx"` in `"XxAh"`.
fn card_token(text: &str) -> String {
    let len = if text.starts_with("10") { 3 } else { 2 };
    let mut chars = text.chars();
    // The first character is always part of it (`",A"` for `",As".parse::<Card>()`).
    chars
        .next()
        .into_iter()
        .chain(chars.take_while(|&c| !is_separator(c)))
        .take(len)
        .collect()
}

/// Whitespace and commas separate cards in a list.
fn is_separator(c: char) -> bool {
    c.is_whitespace() || c == ','
}

/// Parses a list of cards written back to back or separated by whitespace and/or commas, e.g.
/// `"AsKd 7h"`, `"AsKd7h"`, `"as, kd, 10h"`, `"A♠️K♦️"` (suit symbols, with or without the
/// emoji variation selector). Rejects a card given twice.
///
/// ```
/// use fairdeal_cards::{parse_cards, CardError};
/// let cards = parse_cards("AsKd 7h")?;
/// assert_eq!(cards.len(), 3);
/// assert_eq!(cards[2].to_string(), "7h");
/// assert!(matches!(parse_cards("AsAs"), Err(CardError::Duplicate { .. })));
/// assert!(matches!(parse_cards("Ax"), Err(CardError::InvalidSuit { .. })));
/// assert_eq!(parse_cards("A♠️ A♥️")?, parse_cards("As Ah")?);
/// // An error names the card as written, not a slice of its neighbours.
/// let err = parse_cards("XxAh").unwrap_err();
/// assert_eq!(err.to_string(), "invalid rank 'X' in \"Xx\": expected 2-9, T (or 10), J, Q, K or A");
/// assert_eq!(parse_cards("")?, vec![]);
/// # Ok::<(), CardError>(())
/// ```
///
/// # Errors
///
/// [`CardError::InvalidRank`], [`CardError::InvalidSuit`], [`CardError::MissingSuit`] for
/// malformed text and [`CardError::Duplicate`] for a repeated card.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardError> {
    let mut cards = Vec::new();
    let mut seen = CardSet::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(is_separator);
        if rest.is_empty() {
            return Ok(cards);
        }
        let (card, after) = parse_one(rest)?;
        if !seen.insert(card) {
            return Err(CardError::Duplicate { card });
        }
        cards.push(card);
        rest = after;
    }
}

/// Like [`parse_cards`], but returns the cards as a [`CardSet`].
///
/// ```
/// let set = fairdeal_cards::parse_card_set("2c 3c")?;
/// assert_eq!(set.len(), 2);
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
///
/// # Errors
///
/// As [`parse_cards`].
pub fn parse_card_set(text: &str) -> Result<CardSet, CardError> {
    CardSet::try_from_cards(parse_cards(text)?)
}
