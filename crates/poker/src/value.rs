//! Hand categories and totally ordered hand values.

use core::fmt;

/// The nine poker hand categories, weakest first (the derived order is poker's order).
///
/// A royal flush is the ace-high [`Category::StraightFlush`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Category {
    /// No pair, no straight, no flush.
    HighCard = 0,
    /// Two cards of one rank.
    OnePair,
    /// Two pairs.
    TwoPair,
    /// Three cards of one rank.
    ThreeOfAKind,
    /// Five consecutive ranks (A-2-3-4-5, the wheel, is the lowest; T-J-Q-K-A the highest).
    Straight,
    /// Five cards of one suit.
    Flush,
    /// Three of a kind plus a pair.
    FullHouse,
    /// Four cards of one rank.
    FourOfAKind,
    /// A straight in one suit (the ace-high one is the royal flush).
    StraightFlush,
}

impl Category {
    /// All categories, weakest first; `ALL[c as usize] == c`.
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::OnePair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];

    /// The category's index `0..9` (high card 0 … straight flush 8).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The category with index `index`, or `None` when `index >= 9`.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Category> {
        if index < 9 {
            Some(Category::ALL[index])
        } else {
            None
        }
    }

    /// The snake_case name used as a JSON key: `"straight_flush"`, `"four_of_a_kind"`,
    /// `"full_house"`, `"flush"`, `"straight"`, `"three_of_a_kind"`, `"two_pair"`,
    /// `"one_pair"`, `"high_card"`.
    pub const fn key(self) -> &'static str {
        match self {
            Category::HighCard => "high_card",
            Category::OnePair => "one_pair",
            Category::TwoPair => "two_pair",
            Category::ThreeOfAKind => "three_of_a_kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full_house",
            Category::FourOfAKind => "four_of_a_kind",
            Category::StraightFlush => "straight_flush",
        }
    }

    /// The name for people: `"Straight flush"`, `"Full house"`, …
    pub const fn name(self) -> &'static str {
        match self {
            Category::HighCard => "High card",
            Category::OnePair => "One pair",
            Category::TwoPair => "Two pair",
            Category::ThreeOfAKind => "Three of a kind",
            Category::Straight => "Straight",
            Category::Flush => "Flush",
            Category::FullHouse => "Full house",
            Category::FourOfAKind => "Four of a kind",
            Category::StraightFlush => "Straight flush",
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The strength of a poker hand (the best five cards of five, six or seven): compare two values
/// to know which hand wins; equal values split the pot.
///
/// The value packs the [`Category`] in the top four bits and the hand's position within its
/// category (0 = weakest) in the low twelve, so the derived integer order is the poker order.
/// Over all 5-card hands exactly 7,462 distinct values occur (the 7,462 equivalence classes
/// of poker), and the positions within each category are dense: the weakest one pair (`2 2 3 4 5`)
/// is position 0, the strongest high card (`A K Q J 9`) is position 1,276.
///
/// ```
/// use fairdeal_cards::parse_cards;
/// use fairdeal_poker::{Category, evaluate};
/// let boat = evaluate(&parse_cards("Kh Kd Ks 2c 2d 7h 9s")?)?;
/// let flush = evaluate(&parse_cards("Ah Jh 8h 4h 2h Kd Ks")?)?;
/// assert_eq!(boat.category(), Category::FullHouse);
/// assert!(boat > flush);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct HandValue(u16);

impl HandValue {
    /// The value packed as [`HandValue::get`] returns it (the evaluator's tables store these).
    #[inline(always)]
    pub(crate) const fn from_raw(packed: u16) -> HandValue {
        HandValue(packed)
    }

    /// The hand's category.
    #[inline]
    pub const fn category(self) -> Category {
        // The top four bits are always a category index written by the table generator.
        match Category::from_index((self.0 >> 12) as usize) {
            Some(c) => c,
            None => Category::StraightFlush,
        }
    }

    /// [`HandValue::category`]'s index without the conversion, for counting loops.
    #[inline(always)]
    pub(crate) const fn category_index(self) -> usize {
        (self.0 >> 12) as usize
    }

    /// The position within the category, 0 for the weakest hand of that category.
    #[inline]
    pub const fn position(self) -> u16 {
        self.0 & 0x0fff
    }

    /// The packed value (`category << 12 | position`), ordered like the hands.
    #[inline]
    pub const fn get(self) -> u16 {
        self.0
    }
}

impl fmt::Display for HandValue {
    /// `"Full house #155"`: the category and the position within it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} #{}", self.category(), self.position())
    }
}
