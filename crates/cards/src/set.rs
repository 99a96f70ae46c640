//! Sets of distinct cards as a 64-bit mask.

use core::fmt;
use core::iter::FusedIterator;

use crate::{Card, CardError};

/// A set of distinct cards: bit `i` is set when the card with index `i` is present.
///
/// Every operation is a handful of bit instructions; iteration yields cards in index order
/// (rank-major, lowest first).
///
/// ```
/// use fairdeal_cards::{CardSet, parse_cards};
/// let mut hand = CardSet::try_from_cards(parse_cards("As Kd")?)?;
/// assert!(hand.insert("7h".parse()?));
/// assert!(!hand.insert("7h".parse()?)); // already there
/// assert_eq!(hand.len(), 3);
/// assert_eq!(hand.to_string(), "7hKdAs");
/// let deck = CardSet::FULL;
/// assert_eq!(deck.difference(hand).len(), 49);
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CardSet(u64);

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);
    /// All 52 cards.
    pub const FULL: CardSet = CardSet((1u64 << 52) - 1);

    /// The empty set.
    #[inline]
    pub const fn new() -> CardSet {
        CardSet(0)
    }

    /// The set whose bit mask is `bits`.
    ///
    /// # Errors
    ///
    /// [`CardError::IndexOutOfRange`] when a bit at position 52 or above is set.
    pub const fn from_bits(bits: u64) -> Result<CardSet, CardError> {
        let extra = bits & !CardSet::FULL.0;
        if extra == 0 {
            Ok(CardSet(bits))
        } else {
            Err(CardError::IndexOutOfRange {
                index: extra.trailing_zeros() as u8,
            })
        }
    }

    /// The set of `cards`, rejecting a card listed twice.
    ///
    /// # Errors
    ///
    /// [`CardError::Duplicate`] naming the first repeated card.
    pub fn try_from_cards<I: IntoIterator<Item = Card>>(cards: I) -> Result<CardSet, CardError> {
        let mut set = CardSet::new();
        for card in cards {
            if !set.insert(card) {
                return Err(CardError::Duplicate { card });
            }
        }
        Ok(set)
    }

    /// The bit mask (bit `i` = card with index `i`).
    #[inline]
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Adds `card`; returns `false` if it was already present.
    #[inline]
    pub fn insert(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 |= card.bit();
        !had
    }

    /// Removes `card`; returns `true` if it was present.
    #[inline]
    pub fn remove(&mut self, card: Card) -> bool {
        let had = self.contains(card);
        self.0 &= !card.bit();
        had
    }

    /// Whether `card` is in the set.
    #[inline]
    pub const fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }

    /// The number of cards in the set.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Cards in either set.
    #[inline]
    #[must_use]
    pub const fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }

    /// Cards in both sets.
    #[inline]
    #[must_use]
    pub const fn intersection(self, other: CardSet) -> CardSet {
        CardSet(self.0 & other.0)
    }

    /// Cards in `self` but not in `other`.
    #[inline]
    #[must_use]
    pub const fn difference(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }

    /// The cards of the 52-card deck not in `self`.
    #[inline]
    #[must_use]
    pub const fn complement(self) -> CardSet {
        CardSet(!self.0 & CardSet::FULL.0)
    }

    /// Whether the two sets share no card.
    #[inline]
    pub const fn is_disjoint(self, other: CardSet) -> bool {
        self.0 & other.0 == 0
    }

    /// The cards in index order.
    #[inline]
    pub const fn iter(self) -> CardSetIter {
        CardSetIter(self.0)
    }
}

/// Iterator over a [`CardSet`] in index order, from [`CardSet::iter`].
#[derive(Debug, Clone)]
pub struct CardSetIter(u64);

impl Iterator for CardSetIter {
    type Item = Card;

    #[inline]
    fn next(&mut self) -> Option<Card> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        // Only bits below 52 are ever set in a CardSet.
        Card::from_index(index).ok()
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for CardSetIter {}
impl FusedIterator for CardSetIter {}

impl IntoIterator for CardSet {
    type Item = Card;
    type IntoIter = CardSetIter;

    fn into_iter(self) -> CardSetIter {
        self.iter()
    }
}

impl FromIterator<Card> for CardSet {
    /// Collects cards into a set; repeats are merged (use [`CardSet::try_from_cards`] to reject
    /// them).
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::new();
        for card in iter {
            set.insert(card);
        }
        set
    }
}

impl Extend<Card> for CardSet {
    fn extend<I: IntoIterator<Item = Card>>(&mut self, iter: I) {
        for card in iter {
            self.insert(card);
        }
    }
}

impl fmt::Display for CardSet {
    /// The cards in index order, back to back (`"7hKdAs"`), which
    /// [`parse_card_set`](crate::parse_card_set) reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for card in *self {
            fmt::Display::fmt(&card, f)?;
        }
        Ok(())
    }
}
