//! Hi-Lo card counting and a bet ramp by true count.
//!
//! Hi-Lo tags 2–6 as +1, 7–9 as 0 and tens and aces as −1; the *running count* is the sum of
//! the tags of every card dealt since the shuffle and the *true count* is the running count
//! divided by the number of decks **remaining** in the shoe (cards not yet dealt / 52). The
//! simulator bets by the true count at the start of each round; play stays basic strategy
//! (no index plays), so the count only changes the bet size.

use core::fmt;

/// The Hi-Lo tag of a card of blackjack value `value` (1 = ace … 10).
///
/// ```
/// use fairdeal_blackjack::hi_lo_tag;
/// assert_eq!(hi_lo_tag(5), 1);
/// assert_eq!(hi_lo_tag(8), 0);
/// assert_eq!(hi_lo_tag(1), -1);
/// assert_eq!(hi_lo_tag(10), -1);
/// ```
#[inline]
pub const fn hi_lo_tag(value: u8) -> i32 {
    // A table indexed by value keeps the per-card cost to one load in the simulator.
    const TAGS: [i8; 16] = [-1, -1, 1, 1, 1, 1, 1, 0, 0, 0, -1, -1, -1, -1, -1, -1];
    TAGS[(value & 15) as usize] as i32
}

/// ⌊running count ÷ remaining decks⌋, computed exactly in integers as
/// `⌊running · 52 / remaining_cards⌋` (so results never depend on floating-point rounding).
/// With no cards remaining it returns the running count.
///
/// ```
/// use fairdeal_blackjack::true_count_floor;
/// assert_eq!(true_count_floor(6, 156), 2);   // +6 with 3 decks left
/// assert_eq!(true_count_floor(-1, 156), -1); // floor, not truncation
/// ```
#[inline]
pub fn true_count_floor(running: i32, remaining_cards: usize) -> i32 {
    if remaining_cards == 0 {
        return running;
    }
    let remaining = i64::try_from(remaining_cards).unwrap_or(i64::MAX);
    let tc = (i64::from(running) * 52).div_euclid(remaining);
    tc.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// An invalid bet ramp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BetRampError {
    /// The smallest bet is zero.
    #[error("the minimum bet must be at least 1 unit")]
    ZeroMinimum,
    /// The largest bet is below the smallest.
    #[error("the maximum bet {max} is below the minimum {min}")]
    MaxBelowMin {
        /// Minimum.
        min: u32,
        /// Maximum.
        max: u32,
    },
    /// More than 1000 units: results are counted in 64-bit tenths and must not overflow.
    #[error("the maximum bet {0} exceeds 1000 units")]
    TooLarge(u32),
    /// Text that is not `MIN-MAX` in whole units.
    #[error("expected MIN-MAX in whole units, e.g. 1-8")]
    Malformed,
}

/// A linear bet ramp: `min` units at a true count of 1 or less, one more unit per true-count
/// point above 1, capped at `max` (a "1–8 spread" is `BetRamp { min: 1, max: 8 }`).
///
/// ```
/// use fairdeal_blackjack::BetRamp;
/// let ramp = BetRamp { min: 1, max: 8 };
/// assert_eq!(ramp.units(-3), 1);
/// assert_eq!(ramp.units(1), 1);
/// assert_eq!(ramp.units(4), 4);
/// assert_eq!(ramp.units(20), 8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BetRamp {
    /// Bet at true count ≤ 1, in units.
    pub min: u32,
    /// Largest bet, in units.
    pub max: u32,
}

/// Parses `MIN-MAX` (as printed by [`Display`](fmt::Display), e.g. `1-8`) and validates it.
///
/// ```
/// use fairdeal_blackjack::{BetRamp, BetRampError};
/// assert_eq!("1-12".parse(), Ok(BetRamp { min: 1, max: 12 }));
/// assert_eq!("8-2".parse::<BetRamp>(), Err(BetRampError::MaxBelowMin { min: 8, max: 2 }));
/// assert_eq!("-1-8".parse::<BetRamp>(), Err(BetRampError::Malformed));
/// ```
impl core::str::FromStr for BetRamp {
    type Err = BetRampError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (min, max) = s.split_once('-').ok_or(BetRampError::Malformed)?;
        let units = |t: &str| t.trim().parse::<u32>().map_err(|_| BetRampError::Malformed);
        let ramp = BetRamp {
            min: units(min)?,
            max: units(max)?,
        };
        ramp.validate()?;
        Ok(ramp)
    }
}

impl fmt::Display for BetRamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

impl BetRamp {
    /// Checks `1 <= min <= max <= 1000`.
    ///
    /// # Errors
    ///
    /// The matching [`BetRampError`].
    pub fn validate(&self) -> Result<(), BetRampError> {
        if self.min == 0 {
            return Err(BetRampError::ZeroMinimum);
        }
        if self.max < self.min {
            return Err(BetRampError::MaxBelowMin {
                min: self.min,
                max: self.max,
            });
        }
        if self.max > 1000 {
            return Err(BetRampError::TooLarge(self.max));
        }
        Ok(())
    }

    /// The bet, in units, at true count `true_count` (already floored).
    #[inline]
    pub fn units(&self, true_count: i32) -> u32 {
        let extra = u32::try_from(true_count.saturating_sub(1)).unwrap_or(0);
        self.min.saturating_add(extra).min(self.max).max(self.min)
    }
}

/// How the simulated player bets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Betting {
    /// One unit per seat every round.
    #[default]
    Flat,
    /// Hi-Lo count with this bet ramp (every seat bets the same).
    HiLo(BetRamp),
}
