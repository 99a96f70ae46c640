//! Ranks, suits and cards.

use core::fmt;
use core::str::FromStr;

use crate::CardError;
use crate::parse::parse_one;

/// A card's rank, from [`Rank::Two`] (index 0) to [`Rank::Ace`] (index 12).
///
/// The derived order is the poker order with the ace high.
///
/// ```
/// use fairdeal_cards::Rank;
/// assert!(Rank::Ace > Rank::King);
/// assert_eq!(Rank::Ten.value(), 10);
/// assert_eq!(Rank::Ace.value(), 14);
/// assert_eq!(Rank::King.blackjack_value(), 10);
/// assert_eq!(Rank::Ace.blackjack_value(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Rank {
    /// 2
    Two = 0,
    /// 3
    Three,
    /// 4
    Four,
    /// 5
    Five,
    /// 6
    Six,
    /// 7
    Seven,
    /// 8
    Eight,
    /// 9
    Nine,
    /// 10, written `T` (or `10` when parsing)
    Ten,
    /// Jack
    Jack,
    /// Queen
    Queen,
    /// King
    King,
    /// Ace (high in poker; counts 1 in [`Rank::blackjack_value`])
    Ace,
}

impl Rank {
    /// All thirteen ranks, lowest first.
    pub const ALL: [Rank; 13] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The rank's index, `0` for [`Rank::Two`] to `12` for [`Rank::Ace`].
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The rank with index `index` (`0..13`), or `None`.
    #[inline]
    pub const fn from_index(index: u8) -> Option<Rank> {
        if index < 13 {
            Some(Rank::ALL[index as usize])
        } else {
            None
        }
    }

    /// The poker value: 2 to 10 for the number cards, 11 (J), 12 (Q), 13 (K) and 14 (A).
    #[inline]
    pub const fn value(self) -> u8 {
        self as u8 + 2
    }

    /// The blackjack value: 2 to 9 for the number cards, 10 for ten and the faces, **1** for the
    /// ace. A hand holding an ace whose total is 11 or less counts it as 11 ("soft"); that is
    /// the engine's rule, not the card's.
    #[inline]
    pub const fn blackjack_value(self) -> u8 {
        match self {
            Rank::Ace => 1,
            Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 10,
            other => other as u8 + 2,
        }
    }

    /// The character used in the usual notation: `'2'`…`'9'`, `'T'`, `'J'`, `'Q'`, `'K'`, `'A'`.
    #[inline]
    pub const fn to_char(self) -> char {
        b"23456789TJQKA"[self as usize] as char
    }

    /// Parses one rank character (case-insensitive). `"10"` is handled by the card parser.
    pub const fn from_char(c: char) -> Option<Rank> {
        Some(match c {
            '2' => Rank::Two,
            '3' => Rank::Three,
            '4' => Rank::Four,
            '5' => Rank::Five,
            '6' => Rank::Six,
            '7' => Rank::Seven,
            '8' => Rank::Eight,
            '9' => Rank::Nine,
            'T' | 't' => Rank::Ten,
            'J' | 'j' => Rank::Jack,
            'Q' | 'q' => Rank::Queen,
            'K' | 'k' => Rank::King,
            'A' | 'a' => Rank::Ace,
            _ => return None,
        })
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_char(f, self.to_char())
    }
}

/// A card's suit. The order (clubs, diamonds, hearts, spades, i.e. alphabetical) only fixes the
/// card indices; poker never ranks suits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Suit {
    /// ♣, written `c`
    Clubs = 0,
    /// ♦, written `d`
    Diamonds,
    /// ♥, written `h`
    Hearts,
    /// ♠, written `s`
    Spades,
}

impl Suit {
    /// All four suits in index order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// The suit's index, `0` (clubs) to `3` (spades).
    #[inline]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The suit with index `index` (`0..4`), or `None`.
    #[inline]
    pub const fn from_index(index: u8) -> Option<Suit> {
        if index < 4 {
            Some(Suit::ALL[index as usize])
        } else {
            None
        }
    }

    /// The lower-case letter used in the usual notation: `'c'`, `'d'`, `'h'`, `'s'`.
    #[inline]
    pub const fn to_char(self) -> char {
        b"cdhs"[self as usize] as char
    }

    /// The Unicode suit symbol: `'♣'`, `'♦'`, `'♥'`, `'♠'`.
    #[inline]
    pub const fn symbol(self) -> char {
        ['♣', '♦', '♥', '♠'][self as usize]
    }

    /// Parses a suit letter (case-insensitive) or a Unicode suit symbol (black or white).
    pub const fn from_char(c: char) -> Option<Suit> {
        Some(match c {
            'c' | 'C' | '♣' | '♧' => Suit::Clubs,
            'd' | 'D' | '♦' | '♢' => Suit::Diamonds,
            'h' | 'H' | '♥' | '♡' => Suit::Hearts,
            's' | 'S' | '♠' | '♤' => Suit::Spades,
            _ => return None,
        })
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_char(f, self.to_char())
    }
}

/// One of the 52 cards, stored as its index `0..52`.
///
/// The layout is **rank-major**: `index = 4 · rank + suit`, so the 2♣ is 0, the 2♦ is 1, …,
/// the A♠ is 51. Sorting cards sorts them by rank first, and `index / 4` is the rank, which is
/// what hand evaluators want.
///
/// ```
/// use fairdeal_cards::{Card, Rank, Suit};
/// let card: Card = "As".parse()?;
/// assert_eq!(card, Card::new(Rank::Ace, Suit::Spades));
/// assert_eq!(card.index(), 51);
/// assert_eq!(card.to_string(), "As");
/// assert_eq!("10d".parse::<Card>()?.to_string(), "Td");
/// # Ok::<(), fairdeal_cards::CardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

impl Card {
    /// The card of the given rank and suit.
    #[inline]
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card(rank as u8 * 4 + suit as u8)
    }

    /// The card with index `index`.
    ///
    /// # Errors
    ///
    /// [`CardError::IndexOutOfRange`] when `index >= 52`.
    #[inline]
    pub const fn from_index(index: u8) -> Result<Card, CardError> {
        if index < 52 {
            Ok(Card(index))
        } else {
            Err(CardError::IndexOutOfRange { index })
        }
    }

    /// The card's index, `4 · rank + suit`, in `0..52`.
    #[inline]
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The card's rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank::ALL[(self.0 >> 2) as usize]
    }

    /// The card's suit.
    #[inline]
    pub const fn suit(self) -> Suit {
        Suit::ALL[(self.0 & 3) as usize]
    }

    /// The card's bit in a [`CardSet`](crate::CardSet): `1 << index`.
    #[inline]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }
}

impl fmt::Display for Card {
    /// Writes the usual two-character notation, e.g. `As`, `Td`, `2c`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Write::write_char(f, self.rank().to_char())?;
        fmt::Write::write_char(f, self.suit().to_char())
    }
}

impl FromStr for Card {
    type Err = CardError;

    /// Parses exactly one card: a rank (`2`-`9`, `T`, `10`, `J`, `Q`, `K`, `A`) followed by a
    /// suit (`c`, `d`, `h`, `s` or a suit symbol), case-insensitive, surrounding whitespace
    /// ignored.
    fn from_str(s: &str) -> Result<Card, CardError> {
        let text = s.trim();
        let (card, rest) = parse_one(text)?;
        if rest.is_empty() {
            Ok(card)
        } else {
            Err(CardError::TrailingText {
                text: text.into(),
                rest: rest.into(),
            })
        }
    }
}

impl TryFrom<u8> for Card {
    type Error = CardError;

    fn try_from(index: u8) -> Result<Card, CardError> {
        Card::from_index(index)
    }
}

impl From<Card> for u8 {
    fn from(card: Card) -> u8 {
        card.index()
    }
}
