//! Basic strategy computed from the rules by an exact expected-value calculation.
//!
//! The calculation is the classic *infinite-deck, total-dependent* one: every card drawn by
//! the player or the dealer is a 1/13 chance per rank (4/13 for ten-valued cards), so the
//! value of a hand depends only on its total, whether it is soft, and the dealer's upcard.
//! For each such situation the expected value (EV) of standing, hitting, doubling, splitting
//! and surrendering is computed exactly and the strategy is the argmax. Finite shoes change a
//! handful of marginal cells (documented in the crate docs and the chart tests); the
//! simulation measures the edge of *this* strategy on a real shoe.
//!
//! # Frames
//!
//! With the American peek, a player only acts when the dealer has no blackjack, so the EVs
//! are computed against the dealer's distribution *given no blackjack* (and early surrender,
//! which happens before the peek, is converted into that frame). With no hole card (ENHC) the
//! player acts before the dealer's second card; the dealer's blackjack is then an outcome that
//! beats every non-blackjack hand and takes doubled and split bets as well, which the EVs
//! include by using the distribution *before* the peek.

use core::fmt;

use crate::dealer::{DealerOutcomes, DealerTable, Infinite};
use crate::rules::{HoleCard, Rules, RulesError, Surrender};

/// A player decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Take no more cards.
    Stand,
    /// Take one card.
    Hit,
    /// Double the bet, take exactly one card.
    Double,
    /// Split a pair into two hands.
    Split,
    /// Give up half the bet.
    Surrender,
}

impl Action {
    /// One-letter chart code: `S`, `H`, `D`, `P`, `R`.
    pub const fn code(self) -> char {
        match self {
            Action::Stand => 'S',
            Action::Hit => 'H',
            Action::Double => 'D',
            Action::Split => 'P',
            Action::Surrender => 'R',
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Action::Stand => "stand",
            Action::Hit => "hit",
            Action::Double => "double",
            Action::Split => "split",
            Action::Surrender => "surrender",
        })
    }
}

/// A player's first two cards, as the strategy sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hand {
    /// A hard total (no ace counted as 11), 4..=21.
    Hard(u8),
    /// A soft total (an ace counted as 11), 12..=21.
    Soft(u8),
    /// A pair of cards of this blackjack value (1 = aces … 10).
    Pair(u8),
}

/// Expected values (in units of the original bet) of each legal action for a first two-card
/// hand against one upcard, in the frame described in the module docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionValues {
    /// Stand.
    pub stand: f64,
    /// Hit, then play on optimally (hit or stand).
    pub hit: f64,
    /// Double, if the rules allow it for this hand.
    pub double: Option<f64>,
    /// Split, if this is a pair and splitting is allowed.
    pub split: Option<f64>,
    /// Surrender, if allowed (already converted into the frame for early surrender).
    pub surrender: Option<f64>,
}

impl ActionValues {
    /// The best action and its EV (ties go to the first in the order stand, hit, double,
    /// split, surrender).
    pub fn best(&self) -> (Action, f64) {
        let mut best = (Action::Stand, self.stand);
        let candidates = [
            (Action::Hit, Some(self.hit)),
            (Action::Double, self.double),
            (Action::Split, self.split),
            (Action::Surrender, self.surrender),
        ];
        for (action, ev) in candidates {
            if let Some(ev) = ev
                && ev > best.1
            {
                best = (action, ev);
            }
        }
        best
    }
}

const UP: usize = 10;

/// Per-upcard EV tables in the decision frame.
#[derive(Clone)]
struct UpcardEvs {
    /// Stand EV by final total 0..=21 (anything below 17 counts as 16).
    stand: [f64; 22],
    /// Optimal hit/stand EV and hit EV, by (total, soft).
    best_hs: [[f64; 2]; 22],
    hit: [[f64; 2]; 22],
    double: [[f64; 2]; 22],
    /// P(dealer blackjack | upcard), before the peek.
    p_blackjack: f64,
}

/// The next (total, soft) after drawing `card` to (total, soft), or `None` on a bust.
#[inline]
pub(crate) fn add_card(total: u8, soft: bool, card: u8) -> Option<(u8, bool)> {
    if soft {
        let t = total + card;
        if t > 21 {
            Some((t - 10, false))
        } else {
            Some((t, true))
        }
    } else if card == 1 && total + 11 <= 21 {
        Some((total + 11, true))
    } else {
        let t = total + card;
        if t > 21 { None } else { Some((t, false)) }
    }
}

impl UpcardEvs {
    fn new(full: &DealerOutcomes, hole_card: HoleCard) -> UpcardEvs {
        let frame = match hole_card {
            HoleCard::Peek => full.given_no_blackjack(),
            HoleCard::NoHoleCard => *full,
        };
        let mut stand = [0.0; 22];
        for (t, ev) in stand.iter_mut().enumerate() {
            let mut v = frame.bust - frame.blackjack;
            for d in 17..=21u8 {
                let p = frame.total(d);
                match (t as u8).cmp(&d) {
                    core::cmp::Ordering::Greater => v += p,
                    core::cmp::Ordering::Less => v -= p,
                    core::cmp::Ordering::Equal => {}
                }
            }
            *ev = v;
        }
        let mut evs = UpcardEvs {
            stand,
            best_hs: [[f64::NAN; 2]; 22],
            hit: [[f64::NAN; 2]; 22],
            double: [[f64::NAN; 2]; 22],
            p_blackjack: full.blackjack,
        };
        // Hard totals from 21 down reach only higher hard totals or soft totals >= 12 whose
        // own successors are higher hard totals, so fill soft 21..12 lazily via recursion.
        for t in (4..=21u8).rev() {
            evs.fill(t, false);
        }
        for t in (12..=21u8).rev() {
            evs.fill(t, true);
        }
        evs
    }

    fn fill(&mut self, total: u8, soft: bool) -> f64 {
        let s = usize::from(soft);
        let t = usize::from(total);
        if !self.best_hs[t][s].is_nan() {
            return self.best_hs[t][s];
        }
        let mut hit = 0.0;
        let mut double = 0.0;
        for card in 1..=10u8 {
            let p = Infinite::prob(card);
            match add_card(total, soft, card) {
                None => {
                    hit -= p;
                    double -= 2.0 * p;
                }
                Some((nt, ns)) => {
                    hit += p * self.fill(nt, ns);
                    double += 2.0 * p * self.stand[usize::from(nt)];
                }
            }
        }
        self.hit[t][s] = hit;
        self.double[t][s] = double;
        let best = if total >= 21 {
            self.stand[t]
        } else {
            hit.max(self.stand[t])
        };
        self.best_hs[t][s] = best;
        best
    }
}

/// Basic strategy for a rule set: the decision tables and the EVs behind them.
///
/// ```
/// use fairdeal_blackjack::{Action, Hand, Rules, Strategy};
/// let strategy = Strategy::basic(&Rules::default())?;
/// assert_eq!(strategy.first_action(Hand::Hard(16), 10), Action::Hit);
/// assert_eq!(strategy.first_action(Hand::Hard(11), 6), Action::Double);
/// assert_eq!(strategy.first_action(Hand::Pair(8), 10), Action::Split);
/// assert_eq!(strategy.first_action(Hand::Soft(18), 9), Action::Hit);
/// # Ok::<(), fairdeal_blackjack::RulesError>(())
/// ```
#[derive(Clone)]
pub struct Strategy {
    rules: Rules,
    // The EV tables are boxed (about 43 KB together) so that a `Strategy` is cheap to move: an
    // unoptimized build copies every by-value move into its own stack slot, and a simulation
    // handing strategies through the backend dispatch overflowed a 2 MiB worker stack.
    evs: Box<[UpcardEvs; UP]>,
    /// First decision on two non-pair cards: `[soft][total][upcard - 1]`.
    first: [[[Action; UP]; 22]; 2],
    /// First decision on a pair: `[value][upcard - 1]`.
    pair: [[Action; UP]; 11],
    /// Two-card hand made by splitting (no surrender; double only with DAS).
    after_split: [[[Action; UP]; 22]; 2],
    /// Three or more cards: hit or stand.
    multi: [[[Action; UP]; 22]; 2],
    /// Resplit a pair received on a split hand (when the rules and hand count allow).
    resplit: [[bool; UP]; 11],
    /// EVs of the first decision, for reporting: `[soft][total][upcard - 1]` and pairs.
    first_values: Box<[[[Option<ActionValues>; UP]; 22]; 2]>,
    pair_values: Box<[[Option<ActionValues>; UP]; 11]>,
}

impl fmt::Debug for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Strategy")
            .field("rules", &self.rules)
            .finish_non_exhaustive()
    }
}

/// Expected number of final split hands that are (not a pair, a pair that could not be split
/// again), starting from a split into two hands.
fn split_hand_counts(q: f64, max_hands: u8) -> (f64, f64) {
    fn rec(hands: u8, pending: u8, prob: f64, q: f64, max: u8, acc: &mut (f64, f64)) {
        if pending == 0 || prob < 1e-300 {
            return;
        }
        // The next pending hand draws its second card.
        if hands < max {
            rec(hands + 1, pending + 1, prob * q, q, max, acc);
        } else {
            acc.1 += prob * q;
            rec(hands, pending - 1, prob * q, q, max, acc);
        }
        acc.0 += prob * (1.0 - q);
        rec(hands, pending - 1, prob * (1.0 - q), q, max, acc);
    }
    let mut acc = (0.0, 0.0);
    rec(2, 2, 1.0, q, max_hands, &mut acc);
    acc
}

impl Strategy {
    /// Computes basic strategy for `rules`.
    ///
    /// # Errors
    ///
    /// The rules' [`RulesError`] if they are invalid.
    pub fn basic(rules: &Rules) -> Result<Strategy, RulesError> {
        rules.validate()?;
        let table = DealerTable::infinite(rules.hits_soft_17);
        let evs: [UpcardEvs; UP] = core::array::from_fn(|i| {
            let full = table.upcards[i].unwrap_or_default();
            UpcardEvs::new(&full, rules.hole_card)
        });
        let mut s = Strategy {
            rules: *rules,
            evs: Box::new(evs),
            first: [[[Action::Stand; UP]; 22]; 2],
            pair: [[Action::Stand; UP]; 11],
            after_split: [[[Action::Stand; UP]; 22]; 2],
            multi: [[[Action::Stand; UP]; 22]; 2],
            resplit: [[false; UP]; 11],
            first_values: Box::new([[[None; UP]; 22]; 2]),
            pair_values: Box::new([[None; UP]; 11]),
        };
        for u in 0..UP {
            for soft in [false, true] {
                let si = usize::from(soft);
                let lo = if soft { 12 } else { 4 };
                for total in lo..=21u8 {
                    let t = usize::from(total);
                    let e = &s.evs[u];
                    s.multi[si][t][u] = if total < 21 && e.hit[t][si] > e.stand[t] {
                        Action::Hit
                    } else {
                        Action::Stand
                    };
                    s.after_split[si][t][u] = s.after_split_values(total, soft, u).best().0;
                    let values = s.two_card_values(total, soft, u, true);
                    s.first[si][t][u] = values.best().0;
                    s.first_values[si][t][u] = Some(values);
                }
            }
            for value in 1..=10u8 {
                let (total, soft) = if value == 1 {
                    (12, true)
                } else {
                    (2 * value, false)
                };
                let mut values = s.two_card_values(total, soft, u, true);
                if rules.max_split_hands >= 2 {
                    let (with, without) = s.split_evs(value, u);
                    values.split = Some(with.max(without));
                    s.resplit[usize::from(value)][u] = with > without;
                }
                s.pair[usize::from(value)][u] = values.best().0;
                s.pair_values[usize::from(value)][u] = Some(values);
            }
        }
        Ok(s)
    }

    /// The rules this strategy was computed for.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    fn surrender_value(&self, u: usize) -> Option<f64> {
        let pbj = self.evs[u].p_blackjack;
        match (self.rules.surrender, self.rules.hole_card) {
            (Surrender::None, _) => None,
            (Surrender::Late, _) | (Surrender::Early, HoleCard::NoHoleCard) => Some(-0.5),
            // Early surrender before the peek keeps -0.5 for sure; the other actions are
            // worth -1 with probability pbj and their frame EV otherwise. Express -0.5 in the
            // no-blackjack frame so the comparison is direct.
            (Surrender::Early, HoleCard::Peek) => Some((pbj - 0.5) / (1.0 - pbj)),
        }
    }

    fn two_card_values(&self, total: u8, soft: bool, u: usize, first: bool) -> ActionValues {
        let e = &self.evs[u];
        let (t, si) = (usize::from(total), usize::from(soft));
        let can_double = self.rules.double.allows(total, soft)
            && (first || self.rules.double_after_split)
            && total < 21;
        ActionValues {
            stand: e.stand[t],
            hit: e.hit[t][si],
            double: can_double.then_some(e.double[t][si]),
            split: None,
            surrender: if first { self.surrender_value(u) } else { None },
        }
    }

    fn after_split_values(&self, total: u8, soft: bool, u: usize) -> ActionValues {
        let mut v = self.two_card_values(total, soft, u, false);
        if total >= 21 {
            v.hit = f64::NEG_INFINITY;
        }
        v
    }

    /// EV of one split hand holding `value` that has drawn `card` and cannot split again.
    fn split_hand_ev(&self, value: u8, card: u8, u: usize) -> f64 {
        let (total, soft) = match add_card(if value == 1 { 11 } else { value }, value == 1, card) {
            Some(x) => x,
            None => return -1.0, // unreachable: two cards never bust
        };
        if value == 1 && !self.rules.hit_split_aces {
            return self.evs[u].stand[usize::from(total)];
        }
        self.after_split_values(total, soft, u).best().1
    }

    /// (EV resplitting whenever allowed, EV never resplitting) for a pair of `value`.
    fn split_evs(&self, value: u8, u: usize) -> (f64, f64) {
        let q = Infinite::prob(value);
        let non_pair: f64 = (1..=10u8)
            .filter(|&c| c != value)
            .map(|c| Infinite::prob(c) * self.split_hand_ev(value, c, u))
            .sum::<f64>()
            / (1.0 - q);
        let pair_final = self.split_hand_ev(value, value, u);
        let can_resplit = value != 1 || self.rules.resplit_aces;
        let max = if can_resplit {
            self.rules.max_split_hands
        } else {
            2
        };
        let (n_non, n_pair) = split_hand_counts(q, max);
        let with = n_non * non_pair + n_pair * pair_final;
        let (n_non2, n_pair2) = split_hand_counts(q, 2);
        let without = n_non2 * non_pair + n_pair2 * pair_final;
        (with, without)
    }

    /// The decision for a first two-card hand (before any split).
    ///
    /// `upcard` is the dealer's card value, 1 (ace) to 10. Out-of-range totals or upcards
    /// fall back to standing.
    pub fn first_action(&self, hand: Hand, upcard: u8) -> Action {
        let u = usize::from(upcard.clamp(1, 10) - 1);
        match hand {
            Hand::Hard(t) if (4..=21).contains(&t) => self.first[0][usize::from(t)][u],
            Hand::Soft(t) if (12..=21).contains(&t) => self.first[1][usize::from(t)][u],
            Hand::Pair(v) if (1..=10).contains(&v) => self.pair[usize::from(v)][u],
            _ => Action::Stand,
        }
    }

    /// The EVs behind [`first_action`](Strategy::first_action), or `None` for an impossible
    /// hand or upcard.
    pub fn values(&self, hand: Hand, upcard: u8) -> Option<ActionValues> {
        if !(1..=10).contains(&upcard) {
            return None;
        }
        let u = usize::from(upcard - 1);
        match hand {
            Hand::Hard(t) if (4..=21).contains(&t) => self.first_values[0][usize::from(t)][u],
            Hand::Soft(t) if (12..=21).contains(&t) => self.first_values[1][usize::from(t)][u],
            Hand::Pair(v) if (1..=10).contains(&v) => self.pair_values[usize::from(v)][u],
            _ => None,
        }
    }

    /// The decision for a two-card hand formed by splitting (no surrender; double only with
    /// DAS). Whether to split a pair again is [`resplit`](Strategy::resplit).
    pub fn after_split_action(&self, total: u8, soft: bool, upcard: u8) -> Action {
        let u = usize::from(upcard.clamp(1, 10) - 1);
        self.after_split[usize::from(soft)][usize::from(total.min(21))][u]
    }

    /// Hit or stand with three or more cards.
    pub fn multi_card_action(&self, total: u8, soft: bool, upcard: u8) -> Action {
        let u = usize::from(upcard.clamp(1, 10) - 1);
        self.multi[usize::from(soft)][usize::from(total.min(21))][u]
    }

    /// Whether to split again a pair of `value` received on a split hand (when allowed).
    pub fn resplit(&self, value: u8, upcard: u8) -> bool {
        let u = usize::from(upcard.clamp(1, 10) - 1);
        self.resplit[usize::from(value.clamp(1, 10))][u]
    }

    // Raw table access for the simulator's hot loop (indices already validated).
    #[inline]
    pub(crate) fn first_raw(&self, total: u8, soft: bool, u: usize) -> Action {
        self.first[usize::from(soft)][usize::from(total)][u]
    }
    #[inline]
    pub(crate) fn pair_raw(&self, value: u8, u: usize) -> Action {
        self.pair[usize::from(value)][u]
    }
    #[inline]
    pub(crate) fn after_split_raw(&self, total: u8, soft: bool, u: usize) -> Action {
        self.after_split[usize::from(soft)][usize::from(total)][u]
    }
    #[inline]
    pub(crate) fn multi_raw(&self, total: u8, soft: bool, u: usize) -> Action {
        self.multi[usize::from(soft)][usize::from(total)][u]
    }
    #[inline]
    pub(crate) fn resplit_raw(&self, value: u8, u: usize) -> bool {
        self.resplit[usize::from(value)][u]
    }

    /// The exact expected return per initial unit bet of this strategy in an infinite deck
    /// (negative: the player loses). `-100 ×` this is the infinite-deck house edge in percent.
    ///
    /// ```
    /// let s = fairdeal_blackjack::Strategy::basic(&fairdeal_blackjack::Rules::default())?;
    /// let edge = -100.0 * s.infinite_deck_return();
    /// assert!(edge > 0.3 && edge < 0.7, "{edge}");
    /// # Ok::<(), fairdeal_blackjack::RulesError>(())
    /// ```
    pub fn infinite_deck_return(&self) -> f64 {
        let payout = self.rules.payout.ratio();
        let mut total = 0.0;
        for up in 1..=10u8 {
            let u = usize::from(up - 1);
            let pbj = self.evs[u].p_blackjack;
            let mut ev_up = 0.0;
            for c1 in 1..=10u8 {
                for c2 in 1..=10u8 {
                    let p = Infinite::prob(c1) * Infinite::prob(c2);
                    if (c1 == 1 && c2 == 10) || (c1 == 10 && c2 == 1) {
                        ev_up += p * (1.0 - pbj) * payout;
                        continue;
                    }
                    let (action, values) = if c1 == c2 {
                        (
                            self.pair[usize::from(c1)][u],
                            self.pair_values[usize::from(c1)][u],
                        )
                    } else {
                        let (t, soft) = two_card_total(c1, c2);
                        (
                            self.first[usize::from(soft)][usize::from(t)][u],
                            self.first_values[usize::from(soft)][usize::from(t)][u],
                        )
                    };
                    let Some(values) = values else { continue };
                    let frame_ev = match action {
                        Action::Stand => values.stand,
                        Action::Hit => values.hit,
                        Action::Double => values.double.unwrap_or(values.stand),
                        Action::Split => values.split.unwrap_or(values.stand),
                        Action::Surrender => -0.5,
                    };
                    let ev = match (self.rules.hole_card, action, self.rules.surrender) {
                        (HoleCard::NoHoleCard, _, _) => frame_ev,
                        (HoleCard::Peek, Action::Surrender, Surrender::Early) => -0.5,
                        (HoleCard::Peek, _, _) => -pbj + (1.0 - pbj) * frame_ev,
                    };
                    ev_up += p * ev;
                }
            }
            total += Infinite::prob(up) * ev_up;
        }
        total
    }

    /// The strategy as a text chart: hard 5–20, soft 13–20 and pairs against upcards
    /// 2–9, T, A, with the codes of [`Action::code`].
    pub fn chart(&self) -> String {
        use core::fmt::Write;
        let order = [2u8, 3, 4, 5, 6, 7, 8, 9, 10, 1];
        let mut out = String::from("      2 3 4 5 6 7 8 9 T A\n");
        let mut row = |label: String, f: &dyn Fn(u8) -> Action| {
            let _ = write!(out, "{label:<5}");
            for up in order {
                let _ = write!(out, " {}", f(up).code());
            }
            out.push('\n');
        };
        for t in 5..=20u8 {
            row(format!("H{t}"), &|up| self.first_action(Hand::Hard(t), up));
        }
        for t in 13..=20u8 {
            row(format!("S{t}"), &|up| self.first_action(Hand::Soft(t), up));
        }
        for v in [2u8, 3, 4, 5, 6, 7, 8, 9, 10, 1] {
            let name = match v {
                1 => "A".to_string(),
                10 => "T".to_string(),
                v => v.to_string(),
            };
            row(format!("{name},{name}"), &|up| {
                self.first_action(Hand::Pair(v), up)
            });
        }
        out
    }
}

/// Total and softness of two cards (values 1..=10).
#[inline]
pub(crate) fn two_card_total(c1: u8, c2: u8) -> (u8, bool) {
    let hard = c1 + c2;
    if (c1 == 1 || c2 == 1) && hard + 10 <= 21 {
        (hard + 10, true)
    } else {
        (hard, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_counts_match_hand_formulas() {
        // No resplitting: exactly two hands, each a pair with probability q.
        let (n, p) = split_hand_counts(0.25, 2);
        assert!((n - 1.5).abs() < 1e-12 && (p - 0.5).abs() < 1e-12);
        // Total expected hands grows with resplitting and stays below max.
        let (n, p) = split_hand_counts(1.0 / 13.0, 4);
        assert!(n + p > 2.0 && n + p < 4.0);
        // With q = 1 every hand pairs: exactly max hands, all final pairs.
        let (n, p) = split_hand_counts(1.0, 4);
        assert!(n.abs() < 1e-12 && (p - 4.0).abs() < 1e-12);
    }

    #[test]
    fn add_card_handles_aces() {
        assert_eq!(add_card(10, false, 1), Some((21, true)));
        assert_eq!(add_card(11, false, 1), Some((12, false)));
        assert_eq!(add_card(16, true, 10), Some((16, false)));
        assert_eq!(add_card(20, false, 2), None);
        assert_eq!(two_card_total(1, 1), (12, true));
        assert_eq!(two_card_total(1, 10), (21, true));
    }
}
