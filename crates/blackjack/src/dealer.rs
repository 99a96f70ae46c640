//! Exact probabilities of the dealer's final hand.
//!
//! One recursion serves both cases: the dealer draws until the hand stands, and each branch is
//! weighted by the chance of the card drawn. For an *infinite deck* that chance never changes
//! (1/13 per rank, 4/13 for ten-valued cards); for a *finite shoe* the card is removed for the
//! rest of the branch and put back afterwards, which makes the result exact for that
//! composition (a full enumeration of dealer hands, a few hundred thousand branches at most).

use fairdeal_cards::Card;

/// Final outcomes, in the order of [`DealerOutcomes::as_array`]: 17, 18, 19, 20, 21,
/// blackjack, bust.
pub const OUTCOME_NAMES: [&str; 7] = ["17", "18", "19", "20", "21", "blackjack", "bust"];

/// The probabilities of the dealer's final hand for one upcard.
///
/// Unless made with [`DealerOutcomes::given_no_blackjack`], these are *before the peek*: a
/// two-card 21 is counted as `blackjack`, not as `21`, and the seven numbers sum to 1.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DealerOutcomes {
    /// P(final total = 17 + i) for i in 0..5.
    pub totals: [f64; 5],
    /// P(dealer blackjack).
    pub blackjack: f64,
    /// P(dealer busts).
    pub bust: f64,
}

impl DealerOutcomes {
    /// P(final total = `total`) for `total` in 17..=21, otherwise 0.
    pub fn total(&self, total: u8) -> f64 {
        match total {
            17..=21 => self.totals[usize::from(total - 17)],
            _ => 0.0,
        }
    }

    /// The seven probabilities in the order of [`OUTCOME_NAMES`].
    pub fn as_array(&self) -> [f64; 7] {
        let t = self.totals;
        [t[0], t[1], t[2], t[3], t[4], self.blackjack, self.bust]
    }

    /// The distribution *after the peek*: conditioned on the dealer not holding a blackjack
    /// (`blackjack` becomes 0 and the rest is rescaled). Returns `self` when there is no
    /// blackjack chance, and all zeros if the dealer is certain to hold one.
    pub fn given_no_blackjack(&self) -> DealerOutcomes {
        let keep = 1.0 - self.blackjack;
        if self.blackjack == 0.0 {
            return *self;
        }
        if keep <= 0.0 {
            return DealerOutcomes::default();
        }
        DealerOutcomes {
            totals: self.totals.map(|p| p / keep),
            blackjack: 0.0,
            bust: self.bust / keep,
        }
    }
}

/// Card counts by blackjack value: index 0 holds aces, 1 twos, …, 9 the ten-valued cards.
///
/// ```
/// use fairdeal_blackjack::Composition;
/// let six = Composition::decks(6);
/// assert_eq!(six.total(), 312);
/// assert_eq!(six.count(10), 96);
/// let shoe = fairdeal_cards::shoe(1).unwrap();
/// assert_eq!(Composition::from_cards(&shoe), Composition::decks(1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Composition {
    counts: [u32; 10],
}

impl Composition {
    /// `decks` full 52-card decks.
    pub const fn decks(decks: u32) -> Composition {
        let d = decks;
        Composition {
            counts: [
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                4 * d,
                16 * d,
            ],
        }
    }

    /// Counts by value (`counts[v - 1]` cards of value `v`).
    pub const fn from_counts(counts: [u32; 10]) -> Composition {
        Composition { counts }
    }

    /// The composition of a pile of cards.
    pub fn from_cards(cards: &[Card]) -> Composition {
        let mut counts = [0u32; 10];
        for card in cards {
            counts[usize::from(card.rank().blackjack_value() - 1)] += 1;
        }
        Composition { counts }
    }

    /// Cards of blackjack value `value` (1 = ace … 10); 0 for other values.
    pub fn count(&self, value: u8) -> u32 {
        match value {
            1..=10 => self.counts[usize::from(value - 1)],
            _ => 0,
        }
    }

    /// All counts, aces first.
    pub const fn counts(&self) -> [u32; 10] {
        self.counts
    }

    /// Total number of cards.
    pub fn total(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// Removes one card of value `value`.
    ///
    /// # Errors
    ///
    /// [`DealerError::CardNotInShoe`] if there is none (or the value is not 1..=10).
    pub fn remove(&mut self, value: u8) -> Result<(), DealerError> {
        match value {
            1..=10 if self.counts[usize::from(value - 1)] > 0 => {
                self.counts[usize::from(value - 1)] -= 1;
                Ok(())
            }
            _ => Err(DealerError::CardNotInShoe(value)),
        }
    }
}

/// Why a dealer table cannot be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DealerError {
    /// The shoe holds no card of this value (or the value is not 1..=10).
    #[error("no card of value {0} in the shoe")]
    CardNotInShoe(u8),
    /// The shoe could run out before the dealer's hand is finished.
    #[error("the shoe is too small for the dealer to finish every hand")]
    ShoeTooSmall,
}

/// Where the dealer's cards come from: fixed probabilities, or a composition drawn without
/// replacement.
trait Source {
    /// The probability of drawing `value` next (0 if impossible).
    fn prob(&self, value: u8) -> f64;
    /// Takes a card of `value` out (no-op for an infinite deck).
    fn take(&mut self, value: u8);
    /// Puts it back.
    fn put_back(&mut self, value: u8);
    /// Whether nothing is left to draw.
    fn is_empty(&self) -> bool;
}

/// The infinite deck: 1/13 for each value, 4/13 for ten.
#[derive(Clone, Copy)]
pub(crate) struct Infinite;

impl Infinite {
    #[inline]
    pub(crate) fn prob(value: u8) -> f64 {
        if value == 10 { 4.0 / 13.0 } else { 1.0 / 13.0 }
    }
}

impl Source for Infinite {
    fn prob(&self, value: u8) -> f64 {
        Infinite::prob(value)
    }
    fn take(&mut self, _: u8) {}
    fn put_back(&mut self, _: u8) {}
    fn is_empty(&self) -> bool {
        false
    }
}

struct Finite {
    counts: [u32; 10],
    total: u32,
}

impl Source for Finite {
    fn prob(&self, value: u8) -> f64 {
        f64::from(self.counts[usize::from(value - 1)]) / f64::from(self.total)
    }
    fn take(&mut self, value: u8) {
        self.counts[usize::from(value - 1)] -= 1;
        self.total -= 1;
    }
    fn put_back(&mut self, value: u8) {
        self.counts[usize::from(value - 1)] += 1;
        self.total += 1;
    }
    fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// Accumulates `weight` into the outcomes of a dealer hand with hard sum `sum` (aces as 1),
/// `ace` if it holds one, drawing from `src`. Returns the probability mass lost to an empty
/// shoe (0 for a big enough shoe).
fn finish<S: Source>(
    sum: u8,
    ace: bool,
    h17: bool,
    src: &mut S,
    weight: f64,
    out: &mut DealerOutcomes,
) -> f64 {
    let soft = ace && sum + 10 <= 21;
    let best = if soft { sum + 10 } else { sum };
    if best > 21 {
        out.bust += weight;
        return 0.0;
    }
    if best >= 18 || (best == 17 && !(soft && h17)) {
        out.totals[usize::from(best - 17)] += weight;
        return 0.0;
    }
    if src.is_empty() {
        return weight;
    }
    let mut lost = 0.0;
    for value in 1..=10u8 {
        let p = src.prob(value);
        if p == 0.0 {
            continue;
        }
        src.take(value);
        lost += finish(sum + value, ace || value == 1, h17, src, weight * p, out);
        src.put_back(value);
    }
    lost
}

fn outcomes_for_upcard<S: Source>(upcard: u8, h17: bool, src: &mut S) -> (DealerOutcomes, f64) {
    let mut out = DealerOutcomes::default();
    let mut lost = 0.0;
    if src.is_empty() {
        return (out, 1.0);
    }
    for hole in 1..=10u8 {
        let p = src.prob(hole);
        if p == 0.0 {
            continue;
        }
        if (upcard == 1 && hole == 10) || (upcard == 10 && hole == 1) {
            out.blackjack += p;
            continue;
        }
        src.take(hole);
        lost += finish(
            upcard + hole,
            upcard == 1 || hole == 1,
            h17,
            src,
            p,
            &mut out,
        );
        src.put_back(hole);
    }
    (out, lost)
}

/// The dealer's final-hand probabilities for every upcard.
///
/// Index `v - 1` holds upcard value `v` (ace = 1, ten-valued = 10); [`DealerTable::get`] takes
/// the value directly.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DealerTable {
    /// Outcomes by upcard value (index 0 = ace); `None` for an upcard the shoe does not hold.
    pub upcards: [Option<DealerOutcomes>; 10],
}

impl DealerTable {
    /// The infinite-deck table (S17 or H17), before the peek.
    ///
    /// ```
    /// let table = fairdeal_blackjack::DealerTable::infinite(false);
    /// let six = table.get(6).unwrap();
    /// assert!((six.bust - 0.4232).abs() < 1e-4);
    /// let sum: f64 = six.as_array().iter().sum();
    /// assert!((sum - 1.0).abs() < 1e-12);
    /// ```
    pub fn infinite(hits_soft_17: bool) -> DealerTable {
        let mut table = DealerTable::default();
        for up in 1..=10u8 {
            table.upcards[usize::from(up - 1)] =
                Some(outcomes_for_upcard(up, hits_soft_17, &mut Infinite).0);
        }
        table
    }

    /// The exact table for a finite shoe: for each upcard the upcard is taken out of `shoe`
    /// and the hole card and hits are drawn from what remains, without replacement.
    ///
    /// # Errors
    ///
    /// [`DealerError::ShoeTooSmall`] when the shoe could run dry before the dealer finishes.
    pub fn for_shoe(shoe: &Composition, hits_soft_17: bool) -> Result<DealerTable, DealerError> {
        let mut table = DealerTable::default();
        for up in 1..=10u8 {
            let mut rest = *shoe;
            if rest.remove(up).is_err() {
                continue;
            }
            table.upcards[usize::from(up - 1)] =
                Some(outcomes_with_upcard_removed(up, &rest, hits_soft_17)?);
        }
        Ok(table)
    }

    /// The outcomes for upcard `value` (1 = ace … 10), if computed.
    pub fn get(&self, value: u8) -> Option<DealerOutcomes> {
        match value {
            1..=10 => self.upcards[usize::from(value - 1)],
            _ => None,
        }
    }
}

/// The exact outcomes for `upcard` when the remaining cards (upcard already removed) are `rest`.
///
/// ```
/// use fairdeal_blackjack::{Composition, dealer_outcomes_for_shoe};
/// let mut rest = Composition::decks(1);
/// rest.remove(10)?;
/// let ten = dealer_outcomes_for_shoe(10, &rest, false)?;
/// assert!((ten.blackjack - 4.0 / 51.0).abs() < 1e-12);
/// # Ok::<(), fairdeal_blackjack::DealerError>(())
/// ```
///
/// # Errors
///
/// [`DealerError::CardNotInShoe`] for an upcard outside 1..=10, [`DealerError::ShoeTooSmall`]
/// when the shoe could run dry before the dealer finishes.
pub fn dealer_outcomes_for_shoe(
    upcard: u8,
    rest: &Composition,
    hits_soft_17: bool,
) -> Result<DealerOutcomes, DealerError> {
    if !(1..=10).contains(&upcard) {
        return Err(DealerError::CardNotInShoe(upcard));
    }
    outcomes_with_upcard_removed(upcard, rest, hits_soft_17)
}

fn outcomes_with_upcard_removed(
    upcard: u8,
    rest: &Composition,
    h17: bool,
) -> Result<DealerOutcomes, DealerError> {
    let mut src = Finite {
        counts: rest.counts,
        total: rest.total(),
    };
    let (out, lost) = outcomes_for_upcard(upcard, h17, &mut src);
    if lost > 0.0 {
        return Err(DealerError::ShoeTooSmall);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_sum_to_one() {
        for h17 in [false, true] {
            let table = DealerTable::infinite(h17);
            for up in 1..=10 {
                let s: f64 = table.get(up).unwrap().as_array().iter().sum();
                assert!((s - 1.0).abs() < 1e-12, "upcard {up}: {s}");
            }
        }
    }

    #[test]
    fn a_huge_shoe_approaches_the_infinite_deck() {
        let infinite = DealerTable::infinite(true);
        let big = DealerTable::for_shoe(&Composition::decks(20_000), true).unwrap();
        for up in 1..=10 {
            let (a, b) = (infinite.get(up).unwrap(), big.get(up).unwrap());
            for (x, y) in a.as_array().iter().zip(b.as_array()) {
                assert!((x - y).abs() < 1e-4, "upcard {up}: {x} vs {y}");
            }
        }
    }

    #[test]
    fn tiny_shoes_are_errors_not_panics() {
        let shoe = Composition::from_counts([0, 2, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            DealerTable::for_shoe(&shoe, false),
            Err(DealerError::ShoeTooSmall)
        );
        let empty = Composition::default();
        assert_eq!(
            DealerTable::for_shoe(&empty, false),
            Ok(DealerTable::default())
        );
        assert!(dealer_outcomes_for_shoe(11, &Composition::decks(1), false).is_err());
    }
}
