//! The table rules, validated as a whole.

use core::fmt;
use core::str::FromStr;

/// A rule name that [`FromStr`] does not know; the message lists the accepted names.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {rule} '{given}' (expected {expected})")]
pub struct ParseRuleError {
    rule: &'static str,
    given: String,
    expected: &'static str,
}

impl ParseRuleError {
    fn new(rule: &'static str, given: &str, expected: &'static str) -> ParseRuleError {
        ParseRuleError {
            rule,
            given: given.to_owned(),
            expected,
        }
    }
}

/// Which two-card hands the player may double down on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DoubleRule {
    /// Any first two cards, hard or soft (the usual American rule).
    #[default]
    AnyTwo,
    /// Hard 9, 10 and 11 only (soft hands never; a common European rule).
    NineToEleven,
    /// Hard 10 and 11 only.
    TenToEleven,
}

impl DoubleRule {
    /// Whether a two-card hand with this total may be doubled.
    ///
    /// ```
    /// use fairdeal_blackjack::DoubleRule;
    /// assert!(DoubleRule::AnyTwo.allows(18, true));
    /// assert!(DoubleRule::NineToEleven.allows(9, false));
    /// assert!(!DoubleRule::NineToEleven.allows(19, true));
    /// assert!(!DoubleRule::TenToEleven.allows(9, false));
    /// ```
    #[inline]
    pub const fn allows(self, total: u8, soft: bool) -> bool {
        match self {
            DoubleRule::AnyTwo => true,
            DoubleRule::NineToEleven => !soft && total >= 9 && total <= 11,
            DoubleRule::TenToEleven => !soft && total >= 10 && total <= 11,
        }
    }
}

impl DoubleRule {
    /// The name used on the command line and in reports: `any`, `9-11` or `10-11`.
    pub const fn name(self) -> &'static str {
        match self {
            DoubleRule::AnyTwo => "any",
            DoubleRule::NineToEleven => "9-11",
            DoubleRule::TenToEleven => "10-11",
        }
    }
}

impl fmt::Display for DoubleRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses [`DoubleRule::name`] (also `any2`), ignoring case.
///
/// ```
/// use fairdeal_blackjack::DoubleRule;
/// assert_eq!("9-11".parse(), Ok(DoubleRule::NineToEleven));
/// assert_eq!(DoubleRule::TenToEleven.to_string().parse(), Ok(DoubleRule::TenToEleven));
/// assert!("soft".parse::<DoubleRule>().is_err());
/// ```
impl FromStr for DoubleRule {
    type Err = ParseRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "any" | "any2" => Ok(DoubleRule::AnyTwo),
            "9-11" => Ok(DoubleRule::NineToEleven),
            "10-11" => Ok(DoubleRule::TenToEleven),
            _ => Err(ParseRuleError::new("double rule", s, "any, 9-11 or 10-11")),
        }
    }
}

/// When, if ever, the player may give up half the bet instead of playing the hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Surrender {
    /// No surrender.
    #[default]
    None,
    /// After the dealer has peeked and found no blackjack (needs [`HoleCard::Peek`]).
    Late,
    /// Before the dealer checks for blackjack: half the bet is kept even when the dealer turns
    /// out to hold a blackjack.
    Early,
}

impl Surrender {
    /// The name used on the command line and in reports: `none`, `late` or `early`.
    pub const fn name(self) -> &'static str {
        match self {
            Surrender::None => "none",
            Surrender::Late => "late",
            Surrender::Early => "early",
        }
    }
}

impl fmt::Display for Surrender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses [`Surrender::name`] (also `no`), ignoring case.
///
/// ```
/// use fairdeal_blackjack::Surrender;
/// assert_eq!("Late".parse(), Ok(Surrender::Late));
/// assert!("sometimes".parse::<Surrender>().is_err());
/// ```
impl FromStr for Surrender {
    type Err = ParseRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "none" | "no" => Ok(Surrender::None),
            "late" => Ok(Surrender::Late),
            "early" => Ok(Surrender::Early),
            _ => Err(ParseRuleError::new("surrender", s, "none, late or early")),
        }
    }
}

/// What a player blackjack pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Payout {
    /// 3 to 2 (1.5 units per unit bet): the traditional payout.
    #[default]
    ThreeToTwo,
    /// 6 to 5 (1.2 units): the short payout of many modern single-deck games.
    SixToFive,
    /// 1 to 1 (even money).
    EvenMoney,
}

impl Payout {
    /// The win per unit bet, in tenths of a unit (exact: 15, 12 or 10).
    #[inline]
    pub const fn tenths(self) -> i64 {
        match self {
            Payout::ThreeToTwo => 15,
            Payout::SixToFive => 12,
            Payout::EvenMoney => 10,
        }
    }

    /// The win per unit bet (1.5, 1.2 or 1.0).
    #[inline]
    pub fn ratio(self) -> f64 {
        self.tenths() as f64 / 10.0
    }

    /// The conventional name: `"3:2"`, `"6:5"` or `"1:1"`.
    pub const fn name(self) -> &'static str {
        match self {
            Payout::ThreeToTwo => "3:2",
            Payout::SixToFive => "6:5",
            Payout::EvenMoney => "1:1",
        }
    }
}

impl fmt::Display for Payout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses [`Payout::name`] (also `3/2`, `1.5`, `6/5`, `1.2`, `1/1`, `1`).
///
/// ```
/// use fairdeal_blackjack::Payout;
/// assert_eq!("6:5".parse(), Ok(Payout::SixToFive));
/// assert!("2:1".parse::<Payout>().is_err());
/// ```
impl FromStr for Payout {
    type Err = ParseRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "3:2" | "3/2" | "1.5" => Ok(Payout::ThreeToTwo),
            "6:5" | "6/5" | "1.2" => Ok(Payout::SixToFive),
            "1:1" | "1/1" | "1" => Ok(Payout::EvenMoney),
            _ => Err(ParseRuleError::new("payout", s, "3:2, 6:5 or 1:1")),
        }
    }
}

/// Whether the dealer checks the hole card for blackjack before the players act.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HoleCard {
    /// American: with an ace or ten up the dealer peeks; a dealer blackjack ends the round at
    /// once and the players lose only their original bets.
    #[default]
    Peek,
    /// European "no hole card" (ENHC): the dealer's second card is drawn after the players
    /// act, and a dealer blackjack takes **every** bet on the table, doubles and splits
    /// included.
    NoHoleCard,
}

impl HoleCard {
    /// The name used in reports: `peek` or `none` (no hole card).
    pub const fn name(self) -> &'static str {
        match self {
            HoleCard::Peek => "peek",
            HoleCard::NoHoleCard => "none",
        }
    }
}

impl fmt::Display for HoleCard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Parses [`HoleCard::name`] (also `american`, `enhc`, `european`, `no-hole-card`).
///
/// ```
/// use fairdeal_blackjack::HoleCard;
/// assert_eq!("enhc".parse(), Ok(HoleCard::NoHoleCard));
/// assert_eq!(HoleCard::Peek.to_string().parse(), Ok(HoleCard::Peek));
/// ```
impl FromStr for HoleCard {
    type Err = ParseRuleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "peek" | "american" => Ok(HoleCard::Peek),
            "none" | "enhc" | "european" | "no-hole-card" => Ok(HoleCard::NoHoleCard),
            _ => Err(ParseRuleError::new("hole-card rule", s, "peek or none")),
        }
    }
}

/// When the shoe is reshuffled.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Penetration {
    /// A cut card placed after this fraction of the shoe (strictly between 0 and 1): when it
    /// comes out, the current round is finished and the shoe is reshuffled before the next.
    CutCard(f64),
    /// A continuous shuffler: all cards go back and the shoe is reshuffled before every round.
    #[default]
    Continuous,
}

/// The table rules.
///
/// Build one from [`Rules::default`] (6 decks, S17, double any two, DAS, split to 4 hands,
/// no resplit or hitting of split aces, no surrender, 3:2, peek, cut card at 75 %, one seat)
/// and change fields, then call [`Rules::validate`]; every engine entry point validates again,
/// so a bad combination is always an error, never a panic.
///
/// ```
/// use fairdeal_blackjack::{Rules, Surrender, HoleCard, RulesError};
/// let mut rules = Rules { hits_soft_17: true, surrender: Surrender::Late, ..Rules::default() };
/// rules.validate()?;
/// rules.hole_card = HoleCard::NoHoleCard;
/// assert_eq!(rules.validate(), Err(RulesError::LateSurrenderWithoutHoleCard));
/// # Ok::<(), RulesError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    /// Number of 52-card decks in the shoe, 1 to 8.
    pub decks: u8,
    /// The dealer hits soft 17 (H17) instead of standing (S17).
    pub hits_soft_17: bool,
    /// Which first two cards may be doubled.
    pub double: DoubleRule,
    /// Doubling is allowed on a two-card hand formed by splitting (DAS).
    pub double_after_split: bool,
    /// The most hands one seat may hold after splitting, 1 (no splitting) to 8.
    pub max_split_hands: u8,
    /// Aces may be split again when a split ace receives another ace.
    pub resplit_aces: bool,
    /// Split aces may be played on (hit, double per the other rules); otherwise each split
    /// ace receives exactly one card.
    pub hit_split_aces: bool,
    /// Surrender option.
    pub surrender: Surrender,
    /// What a player blackjack pays.
    pub payout: Payout,
    /// American peek or European no-hole-card.
    pub hole_card: HoleCard,
    /// Cut card or continuous shuffling.
    pub penetration: Penetration,
    /// Number of player seats, 1 to 7 (each plays the same strategy with its own bet).
    pub seats: u8,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            decks: 6,
            hits_soft_17: false,
            double: DoubleRule::AnyTwo,
            double_after_split: true,
            max_split_hands: 4,
            resplit_aces: false,
            hit_split_aces: false,
            surrender: Surrender::None,
            payout: Payout::ThreeToTwo,
            hole_card: HoleCard::Peek,
            penetration: Penetration::CutCard(0.75),
            seats: 1,
        }
    }
}

/// An impossible or unsupported rule set.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RulesError {
    /// Decks outside 1..=8.
    #[error("{0} decks: a shoe holds 1 to 8 decks")]
    Decks(u8),
    /// Seats outside 1..=7.
    #[error("{0} seats: a table has 1 to 7 seats")]
    Seats(u8),
    /// Split hands outside 1..=8.
    #[error("{0} split hands: allow 1 (no splitting) to 8 hands")]
    MaxSplitHands(u8),
    /// Cut card not strictly inside the shoe.
    #[error("penetration {0:?}: the cut card must lie strictly between 0 and 1 of the shoe")]
    Penetration(f64),
    /// A cut card so close to either end that it sits before the first or after the last card.
    #[error("penetration {fraction:?} of {cards} cards leaves no card on one side of the cut card")]
    CutCardOutsideShoe {
        /// The requested fraction.
        fraction: f64,
        /// Cards in the shoe.
        cards: u32,
    },
    /// Late surrender is defined relative to the peek, which a no-hole-card game lacks.
    #[error("late surrender needs a hole-card peek; with no hole card use early surrender")]
    LateSurrenderWithoutHoleCard,
    /// So many hands per round that one round could need more cards than the shoe holds.
    #[error(
        "{seats} seats with up to {max_split_hands} hands each could need {worst_case} cards in one round, more than the {cards} in {decks} deck(s)"
    )]
    TooManyHandsForShoe {
        /// Seats.
        seats: u8,
        /// Hands per seat.
        max_split_hands: u8,
        /// Decks.
        decks: u8,
        /// Cards in the shoe.
        cards: u32,
        /// Proven upper bound on the cards one round can use.
        worst_case: u32,
    },
}

impl Rules {
    /// Cards in the shoe (`52 × decks`).
    #[inline]
    pub const fn cards(&self) -> u32 {
        52 * self.decks as u32
    }

    /// The cut card position as a number of cards dealt, or `None` for a continuous shuffler.
    ///
    /// ```
    /// let rules = fairdeal_blackjack::Rules::default(); // 6 decks, 75 %
    /// assert_eq!(rules.cut_card(), Some(234));
    /// ```
    pub fn cut_card(&self) -> Option<u32> {
        match self.penetration {
            Penetration::CutCard(f) => Some((f * f64::from(self.cards())).round() as u32),
            Penetration::Continuous => None,
        }
    }

    /// Checks every field and every combination.
    ///
    /// Choices made here (documented in the crate docs): late surrender with no hole card is
    /// an error (late means "after the peek"); early surrender with no hole card is allowed and
    /// keeps half the bet whatever the dealer's second card. The shoe must be deep enough that
    /// no round can run out of cards, using the bound of [`Rules::worst_case_cards_per_round`].
    ///
    /// # Errors
    ///
    /// The first [`RulesError`] found.
    pub fn validate(&self) -> Result<(), RulesError> {
        if !(1..=8).contains(&self.decks) {
            return Err(RulesError::Decks(self.decks));
        }
        if !(1..=7).contains(&self.seats) {
            return Err(RulesError::Seats(self.seats));
        }
        if !(1..=8).contains(&self.max_split_hands) {
            return Err(RulesError::MaxSplitHands(self.max_split_hands));
        }
        if let Penetration::CutCard(f) = self.penetration {
            // NaN fails both comparisons.
            if !(f > 0.0 && f < 1.0) {
                return Err(RulesError::Penetration(f));
            }
            let cut = (f * f64::from(self.cards())).round() as u32;
            if cut == 0 || cut >= self.cards() {
                return Err(RulesError::CutCardOutsideShoe {
                    fraction: f,
                    cards: self.cards(),
                });
            }
        }
        if self.hole_card == HoleCard::NoHoleCard && self.surrender == Surrender::Late {
            return Err(RulesError::LateSurrenderWithoutHoleCard);
        }
        let worst_case = self.worst_case_cards_per_round();
        if worst_case > self.cards() {
            return Err(RulesError::TooManyHandsForShoe {
                seats: self.seats,
                max_split_hands: self.max_split_hands,
                decks: self.decks,
                cards: self.cards(),
                worst_case,
            });
        }
        Ok(())
    }

    /// An upper bound on the cards one round can use.
    ///
    /// Every dealt card ends in one final hand (the dealer's or a player's, splits included).
    /// Before a hand's last card its hard total (aces as 1) is at most 21, so all the cards but
    /// the last of every hand have values summing to at most `21 × hands`. At most as many
    /// cards fit in that budget as the smallest cards of the shoe do; add one last card per
    /// hand. Hands = `seats × max_split_hands + 1`.
    ///
    /// ```
    /// use fairdeal_blackjack::Rules;
    /// let one_deck = Rules { decks: 1, seats: 3, ..Rules::default() };
    /// assert!(one_deck.worst_case_cards_per_round() > 52);
    /// assert!(one_deck.validate().is_err());
    /// ```
    pub fn worst_case_cards_per_round(&self) -> u32 {
        let hands = u32::from(self.seats) * u32::from(self.max_split_hands) + 1;
        let mut budget = 21 * hands;
        let mut cards = 0;
        'values: for value in 1..=10u32 {
            let available = if value == 10 { 16 } else { 4 } * u32::from(self.decks);
            for _ in 0..available {
                if value > budget {
                    break 'values;
                }
                budget -= value;
                cards += 1;
            }
        }
        cards + hands
    }
}

impl fmt::Display for Rules {
    /// A compact description such as `6D S17 DAS DA2 SP4 NS 3:2 peek pen 0.75 1 seat`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}D {} {} {} SP{}{}{} {} {} {} ",
            self.decks,
            if self.hits_soft_17 { "H17" } else { "S17" },
            if self.double_after_split {
                "DAS"
            } else {
                "NDAS"
            },
            match self.double {
                DoubleRule::AnyTwo => "DA2",
                DoubleRule::NineToEleven => "D9",
                DoubleRule::TenToEleven => "D10",
            },
            self.max_split_hands,
            if self.resplit_aces { " RSA" } else { "" },
            if self.hit_split_aces { " HSA" } else { "" },
            match self.surrender {
                Surrender::None => "NS",
                Surrender::Late => "LS",
                Surrender::Early => "ES",
            },
            self.payout.name(),
            match self.hole_card {
                HoleCard::Peek => "peek",
                HoleCard::NoHoleCard => "ENHC",
            },
        )?;
        match self.penetration {
            Penetration::CutCard(p) => write!(f, "pen {p}")?,
            Penetration::Continuous => f.write_str("CSM")?,
        }
        write!(
            f,
            " {} seat{}",
            self.seats,
            if self.seats == 1 { "" } else { "s" }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid() {
        assert_eq!(Rules::default().validate(), Ok(()));
    }

    #[test]
    fn bad_values_are_errors() {
        let base = Rules::default();
        let cases = [
            Rules { decks: 0, ..base },
            Rules { decks: 9, ..base },
            Rules { seats: 0, ..base },
            Rules { seats: 8, ..base },
            Rules {
                max_split_hands: 0,
                ..base
            },
            Rules {
                max_split_hands: 9,
                ..base
            },
            Rules {
                penetration: Penetration::CutCard(0.0),
                ..base
            },
            Rules {
                penetration: Penetration::CutCard(1.0),
                ..base
            },
            Rules {
                penetration: Penetration::CutCard(f64::NAN),
                ..base
            },
            Rules {
                penetration: Penetration::CutCard(0.001),
                decks: 1,
                ..base
            },
            Rules {
                hole_card: HoleCard::NoHoleCard,
                surrender: Surrender::Late,
                ..base
            },
            Rules {
                decks: 1,
                seats: 7,
                ..base
            },
        ];
        for rules in cases {
            assert!(rules.validate().is_err(), "{rules:?} accepted");
        }
    }

    #[test]
    fn enhc_early_surrender_and_full_tables_are_fine() {
        let ok = Rules {
            hole_card: HoleCard::NoHoleCard,
            surrender: Surrender::Early,
            seats: 7,
            decks: 8,
            max_split_hands: 8,
            ..Rules::default()
        };
        assert_eq!(ok.validate(), Ok(()));
        let one_deck_heads_up = Rules {
            decks: 1,
            ..Rules::default()
        };
        assert_eq!(one_deck_heads_up.validate(), Ok(()));
    }

    #[test]
    fn rule_names_round_trip_and_unknown_names_list_the_choices() {
        for d in [
            DoubleRule::AnyTwo,
            DoubleRule::NineToEleven,
            DoubleRule::TenToEleven,
        ] {
            assert_eq!(d.to_string().parse(), Ok(d));
        }
        for s in [Surrender::None, Surrender::Late, Surrender::Early] {
            assert_eq!(s.to_string().parse(), Ok(s));
        }
        for p in [Payout::ThreeToTwo, Payout::SixToFive, Payout::EvenMoney] {
            assert_eq!(p.to_string().parse(), Ok(p));
        }
        for h in [HoleCard::Peek, HoleCard::NoHoleCard] {
            assert_eq!(h.to_string().parse(), Ok(h));
        }
        let err = "2:1".parse::<Payout>().unwrap_err().to_string();
        assert_eq!(err, "unknown payout '2:1' (expected 3:2, 6:5 or 1:1)");
        assert!("".parse::<DoubleRule>().is_err());
        assert!("lat".parse::<Surrender>().is_err());
        assert!("hole".parse::<HoleCard>().is_err());
    }

    #[test]
    fn tiny_penetrations_print_short() {
        let rules = Rules {
            penetration: Penetration::CutCard(1e-300),
            ..Rules::default()
        };
        let message = rules.validate().unwrap_err().to_string();
        assert!(message.contains("1e-300"), "{message}");
        assert!(message.len() < 100, "{message}");
    }

    #[test]
    fn worst_case_bound_by_hand() {
        // 1 deck, 1 seat, 4 hands: 5 hands, budget 105. Cheapest cards: 4 aces (4), 4 twos (8),
        // 4 threes (12), 4 fours (16), 4 fives (20), 4 sixes (24) = 84 for 24 cards; 3 sevens
        // make 105: 27 cards, plus 5 last cards.
        let rules = Rules {
            decks: 1,
            ..Rules::default()
        };
        assert_eq!(rules.worst_case_cards_per_round(), 32);
    }
}
