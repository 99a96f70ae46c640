//! The exact expected return of one round dealt off the top of a full shoe: a combinatorial
//! analyser that enumerates the remaining shoe composition (no sampling).
//!
//! # What is computed
//!
//! One player (one seat) plays one round from a freshly shuffled shoe of 1–8 decks. Every card
//! the player or the dealer may draw is weighted by its exact probability given the cards
//! already out (integer counts per rank, drawn without replacement), and the player's value
//! for every hand is memoised on the remaining shoe composition.
//!
//! # Strategies
//!
//! * [`ExactStrategy::Composition`]: every decision is the best one for the exact cards seen.
//!   For a hand that was not split these are the player's cards and the upcard, which is the
//!   whole information available, so the play is exactly optimal.
//! * [`ExactStrategy::Basic`]: the engine's total-dependent chart ([`Strategy::basic`]), played
//!   against the exact shoe.
//!
//! # The split model (stated precisely)
//!
//! Exact play of split hands would condition on every card of every earlier split hand, which
//! is what makes resplitting expensive. As in the published tables this analyser is checked
//! against (Wizard of Odds, Blackjack Appendix 9: "for splitting values the program only
//! considered how many hands the player had already split, but not the other cards drawn in
//! those hands"), a split hand is valued and played with the shoe
//!
//! > full shoe − upcard − *n* cards of the pair rank − the cards of this hand after its first,
//!
//! where *n* is the number of hands the pair has been split into so far (each holds one pair
//! card). Cards drawn to the *other* split hands are not removed. The number of hands evolves
//! as a small Markov chain: the next hand waiting for its second card draws from the shoe with
//! *n* pair cards out; a pair card may be resplit while fewer than the allowed hands exist
//! (aces only with resplit aces); otherwise the two-card hand is played (double only with DAS,
//! one card only to split aces unless they may be hit). In composition play the resplit
//! decision is also the better of the two values of this chain (it depends on *n* and on how
//! many hands still wait for their second card). A one-split game (two hands) is, in this
//! model, the classic approximation that both hands see the shoe without the two pair cards.
//!
//! # Frames
//!
//! With the American peek the values of the player's actions are computed as
//! `E[result × 1{dealer has no blackjack}]` (the hole card is an unseen card like any other, so
//! drawing it after the player's cards gives the same joint distribution); comparing actions at
//! one decision point in this frame is the same as comparing them given no dealer blackjack.
//! With no hole card the dealer's blackjack is an ordinary outcome that takes doubles and split
//! hands too. [`HandValues`] reports values *given no dealer blackjack* under the peek, as the
//! published appendices do.

use core::fmt;
use core::str::FromStr;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::rules::{HoleCard, Penetration, Rules, RulesError, Surrender};
use crate::strategy::{Action, Hand, Strategy, add_card, two_card_total};

/// How the player plays in the exact analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ExactStrategy {
    /// The best decision for the exact cards seen (see the module docs for splits).
    #[default]
    Composition,
    /// The engine's infinite-deck, total-dependent chart ([`Strategy::basic`]).
    Basic,
}

impl ExactStrategy {
    /// The name used on the command line and in reports: `composition` or `basic`.
    pub const fn name(self) -> &'static str {
        match self {
            ExactStrategy::Composition => "composition",
            ExactStrategy::Basic => "basic",
        }
    }
}

impl fmt::Display for ExactStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown strategy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown strategy '{0}' (expected composition or basic)")]
pub struct ParseExactStrategyError(String);

impl FromStr for ExactStrategy {
    type Err = ParseExactStrategyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "composition" | "cd" => Ok(ExactStrategy::Composition),
            "basic" | "chart" => Ok(ExactStrategy::Basic),
            _ => Err(ParseExactStrategyError(s.to_owned())),
        }
    }
}

/// Why an exact analysis cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ExactError {
    /// The rules are invalid.
    #[error(transparent)]
    Rules(#[from] RulesError),
    /// The analyser covers one seat only: other seats' cards would be seen cards too.
    #[error("the exact analysis plays one seat; {0} seats are not supported")]
    Seats(u8),
}

/// Values of one initial two-card hand against one upcard.
///
/// Under the peek these are *given no dealer blackjack* (the published frame); with no hole
/// card they include the dealer's blackjack. A natural has only `stand` (its payout given no
/// dealer blackjack, or net of the push with no hole card).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HandValues {
    /// The dealer's upcard, 1 (ace) to 10.
    pub upcard: u8,
    /// The player's lower card, 1 to 10.
    pub first: u8,
    /// The player's higher card, 1 to 10.
    pub second: u8,
    /// Probability of this upcard and this (unordered) pair of cards off the top.
    pub probability: f64,
    /// Probability of a dealer blackjack given these three cards.
    pub dealer_blackjack: f64,
    /// Stand.
    pub stand: f64,
    /// Hit, then play on with the analysed strategy (`None` for a natural).
    pub hit: Option<f64>,
    /// Double, when the rules allow it.
    pub double: Option<f64>,
    /// Split, when the hand is a pair and splitting is allowed.
    pub split: Option<f64>,
    /// Surrender, when allowed (early surrender converted into this frame).
    pub surrender: Option<f64>,
    /// The action the analysed strategy takes.
    pub action: Action,
    /// The value of that action (for [`ExactStrategy::Composition`], the largest one).
    pub value: f64,
    /// This hand's contribution to the expected return, per unit of its probability: the
    /// value in the unconditional frame (dealer blackjacks and early surrender included).
    pub round_value: f64,
}

/// The result of [`analyse`].
#[derive(Debug, Clone)]
pub struct ExactAnalysis {
    rules: Rules,
    strategy: ExactStrategy,
    expected_return: f64,
    hands: Vec<HandValues>,
    elapsed: Duration,
    states: usize,
}

impl ExactAnalysis {
    /// The rules analysed.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The strategy analysed.
    pub fn strategy(&self) -> ExactStrategy {
        self.strategy
    }

    /// Expected return per initial unit bet, from the player's side (negative: the house wins).
    pub fn expected_return(&self) -> f64 {
        self.expected_return
    }

    /// The house edge in percent: `−100 × expected_return`.
    pub fn house_edge_percent(&self) -> f64 {
        -100.0 * self.expected_return
    }

    /// Every initial hand (unordered pair of card values) against every upcard, upcards 1…10
    /// then first ≤ second.
    pub fn hands(&self) -> &[HandValues] {
        &self.hands
    }

    /// The values of one initial hand against one upcard (`None` for values outside 1..=10).
    pub fn hand(&self, first: u8, second: u8, upcard: u8) -> Option<&HandValues> {
        let (a, b) = (first.min(second), first.max(second));
        self.hands
            .iter()
            .find(|h| h.first == a && h.second == b && h.upcard == upcard)
    }

    /// Wall-clock time the analysis took.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// Distinct (shoe composition, hand) states evaluated: a measure of the work done.
    pub fn states(&self) -> usize {
        self.states
    }
}

/// Counts per rank: index 0 = aces … 9 = ten-valued cards.
type Shoe = [u8; 10];

/// The dealer's final hand: 17, 18, 19, 20, 21, bust, blackjack.
type DealerDist = [f64; 7];
const BUST: usize = 5;
/// Slots of the falling-factorial table (10 ranks × at most 22 cards of one rank, rounded up).
const FALLING_SLOTS: usize = 256;
const BLACKJACK: usize = 6;

/// Packs a shoe into 62 bits (6 bits for ranks A–9, which hold at most 32 cards; 8 for tens).
#[inline]
fn pack(shoe: &Shoe) -> u64 {
    let mut key = 0u64;
    for &c in &shoe[..9] {
        key = (key << 6) | u64::from(c);
    }
    (key << 8) | u64::from(shoe[9])
}

#[inline]
fn cards_in(shoe: &Shoe) -> u32 {
    shoe.iter().map(|&c| u32::from(c)).sum()
}

#[inline]
fn is_natural(a: u8, b: u8) -> bool {
    (a == 1 && b == 10) || (a == 10 && b == 1)
}

/// Everything for one upcard: the rules, the strategy, and the memo tables.
struct UpcardSolver<'a> {
    up: u8,
    rules: Rules,
    chart: Option<&'a Strategy>,
    enhc: bool,
    /// The dealer's possible hands for this upcard.
    paths: DealerPaths,
    dealer: HashMap<u64, DealerDist>,
    /// (shoe, total | soft << 5) → (stand, hit, value played on).
    play: HashMap<(u64, u8), (f64, f64, f64)>,
    /// Composition play of a split hand's first decision: (pair, hands, second card) → action.
    split_actions: HashMap<(u8, u8, u8), Action>,
    /// Composition resplit decisions: (pair, hands, hands waiting for a second card) → split.
    resplits: HashMap<(u8, u8, u8), bool>,
}

impl UpcardSolver<'_> {
    /// P(dealer blackjack) with the hole card drawn from `shoe`.
    fn p_blackjack(&self, shoe: &Shoe, n: u32) -> f64 {
        if n == 0 {
            return 0.0;
        }
        match self.up {
            1 => f64::from(shoe[9]) / f64::from(n),
            10 => f64::from(shoe[0]) / f64::from(n),
            _ => 0.0,
        }
    }

    fn dealer(&mut self, shoe: &Shoe) -> DealerDist {
        let key = pack(shoe);
        if let Some(d) = self.dealer.get(&key) {
            return *d;
        }
        let out = self.paths.distribution(shoe);
        self.dealer.insert(key, out);
        out
    }

    /// Value of standing on `total` (at most 21) with `shoe` unseen, in the decision frame.
    fn stand(&mut self, shoe: &Shoe, total: u8) -> f64 {
        let d = self.dealer(shoe);
        let mut ev = d[BUST];
        for (i, &p) in d[..5].iter().enumerate() {
            let dealer_total = 17 + i as u8;
            match total.cmp(&dealer_total) {
                core::cmp::Ordering::Greater => ev += p,
                core::cmp::Ordering::Less => ev -= p,
                core::cmp::Ordering::Equal => {}
            }
        }
        if self.enhc {
            ev -= d[BLACKJACK];
        }
        ev
    }

    /// Value of a busted hand (one unit lost, only in the no-blackjack world under the peek).
    fn bust(&self, shoe: &Shoe, n: u32) -> f64 {
        if self.enhc {
            -1.0
        } else {
            -(1.0 - self.p_blackjack(shoe, n))
        }
    }

    /// Stand, hit, and the value of playing on (best of the two, or the chart's choice) for a
    /// hand of `total`/`soft` that may only hit or stand (three or more cards, or a split hand
    /// past its decision). Memoised on the shoe.
    fn hit_stand(&mut self, shoe: &mut Shoe, total: u8, soft: bool) -> (f64, f64, f64) {
        let key = (pack(shoe), total | (u8::from(soft) << 5));
        if let Some(v) = self.play.get(&key) {
            return *v;
        }
        let stand = self.stand(shoe, total);
        let (hit, value) = if total >= 21 {
            (f64::NEG_INFINITY, stand)
        } else {
            let hit = self.hit(shoe, total, soft);
            let value = match self.chart {
                None => stand.max(hit),
                Some(chart) => match chart.multi_card_action(total, soft, self.up) {
                    Action::Hit => hit,
                    _ => stand,
                },
            };
            (hit, value)
        };
        let out = (stand, hit, value);
        self.play.insert(key, out);
        out
    }

    /// Value of taking one card and playing on.
    fn hit(&mut self, shoe: &mut Shoe, total: u8, soft: bool) -> f64 {
        let n = cards_in(shoe);
        let mut ev = 0.0;
        for c in 1..=10u8 {
            let k = shoe[usize::from(c - 1)];
            if k == 0 {
                continue;
            }
            let p = f64::from(k) / f64::from(n);
            shoe[usize::from(c - 1)] -= 1;
            ev += p * match add_card(total, soft, c) {
                None => self.bust(shoe, n - 1),
                Some((t, s)) => self.hit_stand(shoe, t, s).2,
            };
            shoe[usize::from(c - 1)] += 1;
        }
        ev
    }

    /// Value of doubling: one card, twice the stake.
    fn double(&mut self, shoe: &mut Shoe, total: u8, soft: bool) -> f64 {
        let n = cards_in(shoe);
        let mut ev = 0.0;
        for c in 1..=10u8 {
            let k = shoe[usize::from(c - 1)];
            if k == 0 {
                continue;
            }
            let p = f64::from(k) / f64::from(n);
            shoe[usize::from(c - 1)] -= 1;
            ev += p * match add_card(total, soft, c) {
                None => self.bust(shoe, n - 1),
                Some((t, _)) => self.stand(shoe, t),
            };
            shoe[usize::from(c - 1)] += 1;
        }
        2.0 * ev
    }

    /// The value of a two-card hand made by splitting (`pair` then `second`), with `shoe`
    /// holding everything unseen in the split model (the hand's second card already removed).
    fn split_hand(&mut self, shoe: &mut Shoe, pair: u8, hands: u8, second: u8) -> f64 {
        let (total, soft) = two_card_total(pair, second);
        let stand = self.stand(shoe, total);
        if (pair == 1 && !self.rules.hit_split_aces) || total >= 21 {
            self.split_actions
                .insert((pair, hands, second), Action::Stand);
            return stand;
        }
        let hit = self.hit(shoe, total, soft);
        let double = (self.rules.double_after_split && self.rules.double.allows(total, soft))
            .then(|| self.double(shoe, total, soft));
        let (action, value) = match self.chart {
            None => {
                let mut best = (Action::Stand, stand);
                if hit > best.1 {
                    best = (Action::Hit, hit);
                }
                if let Some(d) = double
                    && d > best.1
                {
                    best = (Action::Double, d);
                }
                best
            }
            Some(chart) => match chart.after_split_action(total, soft, self.up) {
                Action::Hit => (Action::Hit, hit),
                Action::Double => (Action::Double, double.unwrap_or(stand)),
                _ => (Action::Stand, stand),
            },
        };
        self.split_actions.insert((pair, hands, second), action);
        value
    }

    /// The value of splitting a pair of `pair` with `base` = the shoe without the upcard.
    fn split(&mut self, base: &Shoe, pair: u8) -> f64 {
        let max = usize::from(self.rules.max_split_hands);
        let resplit = max > 2 && (pair != 1 || self.rules.resplit_aces);
        let max = if resplit { max } else { 2 };
        let i = usize::from(pair - 1);
        // For n = 2..=max hands: the shoe with n pair cards out, the probability of drawing
        // each rank from it, and the value of the two-card hand (pair, c).
        let mut draws = vec![[0.0f64; 10]; max + 1];
        let mut hand = vec![[0.0f64; 10]; max + 1];
        for n in 2..=max {
            let mut shoe = *base;
            if usize::from(shoe[i]) < n {
                // Not enough pair cards for this many hands: never reached.
                continue;
            }
            shoe[i] -= n as u8;
            let total = cards_in(&shoe);
            for c in 1..=10u8 {
                let k = shoe[usize::from(c - 1)];
                if k == 0 {
                    continue;
                }
                draws[n][usize::from(c - 1)] = f64::from(k) / f64::from(total);
                shoe[usize::from(c - 1)] -= 1;
                hand[n][usize::from(c - 1)] = self.split_hand(&mut shoe, pair, n as u8, c);
                shoe[usize::from(c - 1)] += 1;
            }
        }
        let mut chain = SplitChain {
            max,
            pair_index: i,
            draws,
            hand,
            chart_resplits: self.chart.map(|c| c.resplit(pair, self.up)),
            memo: vec![vec![f64::NAN; max + 2]; max + 1],
            resplits: Vec::new(),
        };
        let value = chain.value(2, 2);
        for (n, m, again) in chain.resplits {
            self.resplits.insert((pair, n as u8, m as u8), again);
        }
        value
    }
}

/// Every hand the dealer can finish with from one upcard, as multisets of drawn cards.
///
/// The probability of one *ordered* sequence of draws from a shoe depends only on the multiset
/// of cards drawn (`Π falling(count_r, d_r) / falling(n, len)`), and which multisets the dealer
/// stops on depends only on the rules. So the ordered sequences are enumerated once per
/// upcard, grouped by multiset with their number of orderings, and the distribution for any
/// shoe is a sum of products over this list: several times faster than re-enumerating the
/// sequences for every shoe (the dealer's recursion was 90 % of the time).
struct DealerPaths {
    up: u8,
    /// Per final hand: the cards drawn after the upcard (hole card included), per rank.
    drawn: Vec<Shoe>,
    /// Per final hand, `width` indices into the flattened falling-factorial table (rank ×
    /// (max_rank_count + 1) + count), padded with the index of a constant 1: a sparse form of
    /// `drawn`, since a dealer's hand holds few distinct ranks.
    factors: Vec<u16>,
    width: usize,
    /// Per final hand: its number of orderings.
    orderings: Vec<f64>,
    /// Per final hand: cards drawn.
    lengths: Vec<u8>,
    /// Per final hand: the outcome index (17–21 → 0–4, bust → 5).
    outcomes: Vec<u8>,
    /// Per outcome (17–21, bust), the range of final hands with that outcome.
    ranges: [core::ops::Range<usize>; 6],
    /// The most cards of one rank in any final hand, and the most cards drawn.
    max_rank_count: usize,
    max_len: usize,
}

impl DealerPaths {
    /// Enumerates the dealer's sequences from `up` with at most the cards of `full` (minus
    /// the upcard) available.
    fn new(up: u8, h17: bool, full: &Shoe) -> DealerPaths {
        let mut limit = *full;
        limit[usize::from(up - 1)] -= 1;
        let mut groups: HashMap<u64, (Shoe, u64, u8)> = HashMap::new();
        let (t, soft) = if up == 1 { (11, true) } else { (up, false) };
        let mut drawn = [0u8; 10];
        for c in 1..=10u8 {
            if is_natural(up, c) || limit[usize::from(c - 1)] == 0 {
                continue;
            }
            drawn[usize::from(c - 1)] += 1;
            if let Some((t2, s2)) = add_card(t, soft, c) {
                Self::enumerate(&mut drawn, &limit, t2, s2, h17, &mut groups);
            }
            drawn[usize::from(c - 1)] -= 1;
        }
        let mut entries: Vec<(u64, (Shoe, u64, u8))> = groups.into_iter().collect();
        // Grouped by outcome (each outcome is then one contiguous run to sum), in a fixed
        // order so sums are reproducible run to run.
        entries.sort_unstable_by_key(|e| (e.1.2, e.0));
        let mut paths = DealerPaths {
            up,
            drawn: Vec::with_capacity(entries.len()),
            factors: Vec::new(),
            width: 0,
            ranges: Default::default(),
            orderings: Vec::with_capacity(entries.len()),
            lengths: Vec::with_capacity(entries.len()),
            outcomes: Vec::with_capacity(entries.len()),
            max_rank_count: 0,
            max_len: 0,
        };
        for (_, (d, count, outcome)) in entries {
            let len: u8 = d.iter().sum();
            paths.max_rank_count = paths
                .max_rank_count
                .max(usize::from(*d.iter().max().unwrap_or(&0)));
            paths.max_len = paths.max_len.max(usize::from(len));
            paths.drawn.push(d);
            paths.orderings.push(count as f64);
            paths.lengths.push(len);
            paths.outcomes.push(outcome);
        }
        for (o, range) in paths.ranges.iter_mut().enumerate() {
            let start = paths.outcomes.partition_point(|&x| usize::from(x) < o);
            let end = paths.outcomes.partition_point(|&x| usize::from(x) <= o);
            *range = start..end;
        }
        paths.width = paths
            .drawn
            .iter()
            .map(|d| d.iter().filter(|&&c| c > 0).count())
            .max()
            .unwrap_or(0);
        let stride = paths.max_rank_count + 1;
        // Index `r * stride` (count 0 of rank r) holds 1: the padding.
        for d in &paths.drawn {
            let mut row: Vec<u16> = (0..10)
                .filter(|&r| d[r] > 0)
                .map(|r| (r * stride + usize::from(d[r])) as u16)
                .collect();
            row.resize(paths.width, 0);
            paths.factors.extend(row);
        }
        paths
    }

    fn enumerate(
        drawn: &mut Shoe,
        limit: &Shoe,
        total: u8,
        soft: bool,
        h17: bool,
        groups: &mut HashMap<u64, (Shoe, u64, u8)>,
    ) {
        if total > 17 || (total == 17 && !(soft && h17)) {
            let e = groups.entry(pack(drawn)).or_insert((*drawn, 0, total - 17));
            e.1 += 1;
            return;
        }
        for c in 1..=10u8 {
            let i = usize::from(c - 1);
            if drawn[i] >= limit[i] {
                continue;
            }
            drawn[i] += 1;
            match add_card(total, soft, c) {
                None => {
                    let e = groups.entry(pack(drawn)).or_insert((*drawn, 0, BUST as u8));
                    e.1 += 1;
                }
                Some((t, s)) => Self::enumerate(drawn, limit, t, s, h17, groups),
            }
            drawn[i] -= 1;
        }
    }

    /// The dealer's final-hand distribution with the hole card and draws from `shoe`.
    fn distribution(&self, shoe: &Shoe) -> DealerDist {
        let n = cards_in(shoe);
        let mut out = [0.0; 7];
        if n == 0 {
            return out;
        }
        // falling[r * stride + k] = shoe[r] (shoe[r] − 1) … (shoe[r] − k + 1). A fixed
        // power-of-two table indexed through a mask needs no bounds checks in the hot loop
        // (indices are below 10 × 22 by construction).
        let stride = self.max_rank_count + 1;
        let mut falling = [1.0f64; FALLING_SLOTS];
        for r in 0..10 {
            for k in 1..stride {
                let left = (f64::from(shoe[r]) - (k as f64 - 1.0)).max(0.0);
                falling[(r * stride + k) & (FALLING_SLOTS - 1)] =
                    falling[(r * stride + k - 1) & (FALLING_SLOTS - 1)] * left;
            }
        }
        // inverse_total[len] = 1 / (n (n − 1) … (n − len + 1)).
        let mut inverse_total = vec![1.0f64; self.max_len + 1];
        for len in 1..=self.max_len {
            let left = f64::from(n) - (len as f64 - 1.0);
            inverse_total[len] = if left > 0.0 {
                inverse_total[len - 1] / left
            } else {
                0.0
            };
        }
        let width = self.width.max(1);
        for (o, range) in self.ranges.iter().enumerate() {
            // Each final hand's probability is independent of the others: summing one
            // outcome in a register lets the products overlap.
            let mut sum = 0.0;
            let rows = self.factors[range.start * width..range.end * width].chunks_exact(width);
            for (i, row) in range.clone().zip(rows) {
                let mut p = self.orderings[i] * inverse_total[usize::from(self.lengths[i])];
                for &f in row {
                    p *= falling[usize::from(f) & (FALLING_SLOTS - 1)];
                }
                sum += p;
            }
            out[o] = sum;
        }
        out[BLACKJACK] = match self.up {
            1 => f64::from(shoe[9]) / f64::from(n),
            10 => f64::from(shoe[0]) / f64::from(n),
            _ => 0.0,
        };
        out
    }
}

/// The dealer draws to `total`/`soft` from `shoe` (`n` cards) and adds the final-hand
/// probabilities, times `p`, into `out`: the direct recursion, the reference the unit tests
/// hold [`DealerPaths`] to.
#[cfg(test)]
fn dealer_draws(
    shoe: &mut Shoe,
    n: u32,
    total: u8,
    soft: bool,
    h17: bool,
    p: f64,
    out: &mut DealerDist,
) {
    if total > 17 || (total == 17 && !(soft && h17)) {
        out[usize::from(total - 17)] += p;
        return;
    }
    for c in 1..=10u8 {
        let k = shoe[usize::from(c - 1)];
        if k == 0 {
            continue;
        }
        let q = p * f64::from(k) / f64::from(n);
        match add_card(total, soft, c) {
            None => out[BUST] += q,
            Some((t, s)) => {
                shoe[usize::from(c - 1)] -= 1;
                dealer_draws(shoe, n - 1, t, s, h17, q, out);
                shoe[usize::from(c - 1)] += 1;
            }
        }
    }
}

/// The Markov chain of the split model.
struct SplitChain {
    max: usize,
    pair_index: usize,
    /// `draws[n][c]`: P(next card is rank c) with n pair cards out.
    draws: Vec<[f64; 10]>,
    /// `hand[n][c]`: value of the two-card split hand (pair, c) with n hands.
    hand: Vec<[f64; 10]>,
    /// The chart's resplit decision, or `None` for composition play (the better value).
    chart_resplits: Option<bool>,
    memo: Vec<Vec<f64>>,
    /// Resplit decisions taken: (hands, hands waiting, resplit?).
    resplits: Vec<(usize, usize, bool)>,
}

impl SplitChain {
    /// The expected total value of `m` hands still waiting for their second card when `n`
    /// hands exist.
    fn value(&mut self, n: usize, m: usize) -> f64 {
        if m == 0 {
            return 0.0;
        }
        if !self.memo[n][m].is_nan() {
            return self.memo[n][m];
        }
        let rest = self.value(n, m - 1);
        let mut ev = 0.0;
        for c in 0..10 {
            let p = self.draws[n][c];
            if p == 0.0 {
                continue;
            }
            let play = self.hand[n][c] + rest;
            let v = if c == self.pair_index && n < self.max {
                let again = self.value(n + 1, m + 1);
                let resplit = self.chart_resplits.unwrap_or(again > play);
                self.resplits.push((n, m, resplit));
                if resplit { again } else { play }
            } else {
                play
            };
            ev += p * v;
        }
        self.memo[n][m] = ev;
        ev
    }
}

/// Exactly analyses one round off the top of a full shoe under `rules`, played with
/// `strategy`. Runs the ten upcards in parallel on the current rayon pool.
///
/// The cut card and the continuous shuffler do not matter for one round off the top and are
/// ignored; the rules must have one seat.
///
/// # Errors
///
/// [`ExactError::Rules`] for invalid rules, [`ExactError::Seats`] for more than one seat.
///
/// ```
/// use fairdeal_blackjack::{ExactStrategy, Rules, analyse};
/// let rules = Rules { decks: 1, ..Rules::default() };
/// let exact = analyse(&rules, ExactStrategy::Composition)?;
/// assert!(exact.house_edge_percent() < 0.0); // 1 deck, S17, DAS, 3:2: the player's game
/// # Ok::<(), fairdeal_blackjack::ExactError>(())
/// ```
pub fn analyse(rules: &Rules, strategy: ExactStrategy) -> Result<ExactAnalysis, ExactError> {
    analyse_with_progress(rules, strategy, &|_| {})
}

/// [`analyse`], calling `progress(upcard)` as each of the ten upcards is finished (from
/// worker threads, in any order). Like [`simulate_chunks`](crate::simulate_chunks), it runs on
/// the caller's rayon pool.
///
/// # Errors
///
/// As [`analyse`].
pub fn analyse_with_progress(
    rules: &Rules,
    strategy: ExactStrategy,
    progress: &(dyn Fn(u8) + Sync),
) -> Result<ExactAnalysis, ExactError> {
    run(rules, strategy, progress).map(|(analysis, _)| analysis)
}

fn run(
    rules: &Rules,
    strategy: ExactStrategy,
    progress: &(dyn Fn(u8) + Sync),
) -> Result<(ExactAnalysis, Vec<UpcardTables>), ExactError> {
    rules.validate()?;
    if rules.seats != 1 {
        return Err(ExactError::Seats(rules.seats));
    }
    let start = Instant::now();
    let rules = Rules {
        penetration: Penetration::Continuous,
        ..*rules
    };
    let chart = match strategy {
        ExactStrategy::Composition => None,
        ExactStrategy::Basic => Some(Strategy::basic(&rules)?),
    };
    let full: Shoe = core::array::from_fn(|i| if i == 9 { 16 } else { 4 } * rules.decks);
    let per_upcard: Vec<UpcardResult> = (1..=10u8)
        .into_par_iter()
        .map(|up| {
            let result = analyse_upcard(&rules, chart.as_ref(), &full, up);
            progress(up);
            result
        })
        .collect();
    let mut hands = Vec::with_capacity(550);
    let mut expected_return = 0.0;
    let mut states = 0;
    let mut tables = Vec::with_capacity(10);
    for r in per_upcard {
        hands.extend(r.hands);
        expected_return += r.expected_return;
        states += r.states;
        tables.push(r.tables);
    }
    let analysis = ExactAnalysis {
        rules,
        strategy,
        expected_return,
        hands,
        elapsed: start.elapsed(),
        states,
    };
    Ok((analysis, tables))
}

fn analyse_upcard(rules: &Rules, chart: Option<&Strategy>, full: &Shoe, up: u8) -> UpcardResult {
    let mut solver = UpcardSolver {
        up,
        rules: *rules,
        chart,
        enhc: rules.hole_card == HoleCard::NoHoleCard,
        paths: DealerPaths::new(up, rules.hits_soft_17, full),
        dealer: HashMap::new(),
        play: HashMap::new(),
        split_actions: HashMap::new(),
        resplits: HashMap::new(),
    };
    let total = f64::from(cards_in(full));
    let mut base = *full;
    let p_up = f64::from(base[usize::from(up - 1)]) / total;
    base[usize::from(up - 1)] -= 1;
    let payout = rules.payout.ratio();
    let mut hands = Vec::with_capacity(55);
    let mut ev_up = 0.0;
    for a in 1..=10u8 {
        for b in a..=10u8 {
            let mut shoe = base;
            let n0 = cards_in(&shoe);
            let ka = shoe[usize::from(a - 1)];
            if ka == 0 {
                continue;
            }
            let pa = f64::from(ka) / f64::from(n0);
            shoe[usize::from(a - 1)] -= 1;
            let kb = shoe[usize::from(b - 1)];
            if kb == 0 {
                continue;
            }
            let pb = f64::from(kb) / f64::from(n0 - 1);
            shoe[usize::from(b - 1)] -= 1;
            let probability = p_up * pa * pb * if a == b { 1.0 } else { 2.0 };
            let n = cards_in(&shoe);
            let pbj = solver.p_blackjack(&shoe, n);
            let values = solver.initial_hand(&mut shoe, &base, a, b, pbj, payout);
            ev_up += probability * values.round_value;
            hands.push(HandValues {
                probability,
                ..values
            });
        }
    }
    let states = solver.play.len() + solver.dealer.len();
    UpcardResult {
        tables: UpcardTables {
            base_key: pack(&base),
            initial: hands
                .iter()
                .map(|h| ((h.first, h.second), h.action))
                .collect(),
            play: solver.play,
            split_actions: solver.split_actions,
            resplits: solver.resplits,
        },
        hands,
        expected_return: ev_up,
        states,
    }
}

/// One upcard's share of an analysis.
struct UpcardResult {
    hands: Vec<HandValues>,
    expected_return: f64,
    states: usize,
    tables: UpcardTables,
}

/// The decisions of composition-dependent play for one upcard.
#[derive(Debug, Clone)]
struct UpcardTables {
    /// The packed shoe without the upcard.
    base_key: u64,
    /// First decision on each initial hand (lower card, higher card).
    initial: HashMap<(u8, u8), Action>,
    /// (shoe, total | soft << 5) → (stand, hit, value).
    play: HashMap<(u64, u8), (f64, f64, f64)>,
    split_actions: HashMap<(u8, u8, u8), Action>,
    resplits: HashMap<(u8, u8, u8), bool>,
}

/// The packed-shoe unit of one card of `value` (1 = ace … 10), so that a hand's cards can be
/// subtracted from a packed shoe (no field ever borrows: a hand holds cards of the shoe).
#[inline]
pub(crate) const fn card_key(value: u8) -> u64 {
    if value >= 10 {
        1
    } else {
        1 << (8 + 6 * (9 - value as u32))
    }
}

/// Composition-dependent play as a decision function, for the simulator: exactly the
/// decisions [`analyse`] values with [`ExactStrategy::Composition`] (see the module docs for
/// what a split hand conditions on).
///
/// It is built for one seat and a round dealt off the top of a full shoe: the "cards seen"
/// are this round's, so the simulator refuses it unless every round starts from a full shoe.
///
/// ```
/// use fairdeal_blackjack::{CompositionStrategy, Rules};
/// let cd = CompositionStrategy::new(&Rules { decks: 2, ..Rules::default() })?;
/// assert!(cd.analysis().expected_return() > -0.01);
/// # Ok::<(), fairdeal_blackjack::ExactError>(())
/// ```
#[derive(Debug)]
pub struct CompositionStrategy {
    analysis: ExactAnalysis,
    chart: Strategy,
    /// Index: upcard − 1.
    tables: Vec<UpcardTables>,
    /// Decisions asked for that the analysis never valued (a proven zero; counted, not
    /// guessed silently).
    misses: core::sync::atomic::AtomicU64,
}

impl CompositionStrategy {
    /// Analyses `rules` and keeps the decisions.
    ///
    /// # Errors
    ///
    /// As [`analyse`].
    pub fn new(rules: &Rules) -> Result<CompositionStrategy, ExactError> {
        let (analysis, tables) = run(rules, ExactStrategy::Composition, &|_| {})?;
        Ok(CompositionStrategy {
            chart: Strategy::basic(analysis.rules())?,
            analysis,
            tables,
            misses: core::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The exact analysis behind the decisions.
    pub fn analysis(&self) -> &ExactAnalysis {
        &self.analysis
    }

    /// The rules (penetration set to a continuous shuffler: one round off the top).
    pub fn rules(&self) -> &Rules {
        self.analysis.rules()
    }

    /// The chart of the same rules (the engine needs one for the rules it carries).
    pub(crate) fn chart(&self) -> &Strategy {
        &self.chart
    }

    /// How many decisions were asked for that the analysis had not valued (each played as
    /// a stand). The tests assert this stays 0.
    pub fn misses(&self) -> u64 {
        self.misses.load(core::sync::atomic::Ordering::Relaxed)
    }

    fn miss(&self) {
        self.misses
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }

    /// First decision on an initial two-card hand.
    pub(crate) fn initial(&self, c1: u8, c2: u8, up: u8) -> Action {
        let t = &self.tables[usize::from(up - 1)];
        match t.initial.get(&(c1.min(c2), c1.max(c2))) {
            Some(a) => *a,
            None => {
                self.miss();
                Action::Stand
            }
        }
    }

    /// Hit or stand, for a hand whose cards (packed with [`card_key`]) sum to `seen`, with
    /// `extra` more cards removed from the shoe (the other split hands' pair cards).
    pub(crate) fn hit(&self, up: u8, seen: u64, extra: u64, total: u8, soft: bool) -> bool {
        let t = &self.tables[usize::from(up - 1)];
        let key = (t.base_key - seen - extra, total | (u8::from(soft) << 5));
        match t.play.get(&key) {
            Some(&(stand, hit, _)) => hit > stand,
            None => {
                self.miss();
                false
            }
        }
    }

    /// First decision on a two-card hand made by splitting `pair` into `hands` hands.
    pub(crate) fn split_hand(&self, up: u8, pair: u8, hands: u8, second: u8) -> Action {
        let t = &self.tables[usize::from(up - 1)];
        match t.split_actions.get(&(pair, hands, second)) {
            Some(a) => *a,
            None => {
                self.miss();
                Action::Stand
            }
        }
    }

    /// Whether to split again a pair card received with `hands` hands, `waiting` of them
    /// (this one included) still waiting for their second card.
    pub(crate) fn resplit(&self, up: u8, pair: u8, hands: u8, waiting: u8) -> bool {
        let t = &self.tables[usize::from(up - 1)];
        match t.resplits.get(&(pair, hands, waiting)) {
            Some(r) => *r,
            None => {
                self.miss();
                false
            }
        }
    }
}

impl UpcardSolver<'_> {
    /// All values of the initial hand `a`,`b` (shoe without them and the upcard).
    fn initial_hand(
        &mut self,
        shoe: &mut Shoe,
        base: &Shoe,
        a: u8,
        b: u8,
        pbj: f64,
        payout: f64,
    ) -> HandValues {
        let peek = !self.enhc;
        // Converts a decision-frame value into the reported frame (given no blackjack).
        let report = |v: f64| {
            if peek && pbj < 1.0 {
                v / (1.0 - pbj)
            } else {
                v
            }
        };
        let mut out = HandValues {
            upcard: self.up,
            first: a,
            second: b,
            probability: 0.0,
            dealer_blackjack: pbj,
            stand: 0.0,
            hit: None,
            double: None,
            split: None,
            surrender: None,
            action: Action::Stand,
            value: 0.0,
            round_value: 0.0,
        };
        if is_natural(a, b) {
            out.stand = if peek { payout } else { payout * (1.0 - pbj) };
            out.value = out.stand;
            out.round_value = payout * (1.0 - pbj);
            return out;
        }
        let (total, soft) = two_card_total(a, b);
        let stand = self.stand(shoe, total);
        let hit = self.hit(shoe, total, soft);
        let double = self
            .rules
            .double
            .allows(total, soft)
            .then(|| self.double(shoe, total, soft));
        let split = (a == b && self.rules.max_split_hands >= 2).then(|| self.split(base, a));
        // Surrender in the decision frame.
        let surrender = match (self.rules.surrender, peek) {
            (Surrender::None, _) => None,
            (Surrender::Late, _) => Some(-0.5 * (1.0 - pbj)),
            // Early surrender keeps half the bet in every world; in the peek frame that is
            // −0.5 overall = −pbj + (decision-frame value), so the frame value is pbj − 0.5.
            (Surrender::Early, true) => Some(pbj - 0.5),
            (Surrender::Early, false) => Some(-0.5),
        };
        let candidates = [
            (Action::Stand, Some(stand)),
            (Action::Hit, Some(hit)),
            (Action::Double, double),
            (Action::Split, split),
            (Action::Surrender, surrender),
        ];
        let (action, value) = match self.chart {
            None => {
                let mut best = (Action::Stand, stand);
                for (action, v) in candidates {
                    if let Some(v) = v
                        && v > best.1
                    {
                        best = (action, v);
                    }
                }
                best
            }
            Some(chart) => {
                let hand = if a == b && self.rules.max_split_hands >= 2 {
                    Hand::Pair(a)
                } else if soft {
                    Hand::Soft(total)
                } else {
                    Hand::Hard(total)
                };
                let action = chart.first_action(hand, self.up);
                let value = candidates
                    .iter()
                    .find(|(c, _)| *c == action)
                    .and_then(|(_, v)| *v)
                    .unwrap_or(stand);
                (action, value)
            }
        };
        out.stand = report(stand);
        out.hit = Some(report(hit));
        out.double = double.map(report);
        out.split = split.map(report);
        out.surrender = surrender.map(report);
        out.action = action;
        out.value = report(value);
        out.round_value = if peek { -pbj + value } else { value };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dealer::{Composition, DealerTable, dealer_outcomes_for_shoe};

    fn full(decks: u8) -> Shoe {
        core::array::from_fn(|i| if i == 9 { 16 } else { 4 } * decks)
    }

    /// Direct recursion over the dealer's ordered draws.
    fn reference(up: u8, shoe: &Shoe, h17: bool) -> DealerDist {
        let mut s = *shoe;
        let n = cards_in(&s);
        let mut out = [0.0; 7];
        let (t, soft) = if up == 1 { (11, true) } else { (up, false) };
        for c in 1..=10u8 {
            let k = s[usize::from(c - 1)];
            if k == 0 {
                continue;
            }
            let p = f64::from(k) / f64::from(n);
            if is_natural(up, c) {
                out[BLACKJACK] += p;
                continue;
            }
            s[usize::from(c - 1)] -= 1;
            let (t2, s2) = add_card(t, soft, c).unwrap();
            dealer_draws(&mut s, n - 1, t2, s2, h17, p, &mut out);
            s[usize::from(c - 1)] += 1;
        }
        out
    }

    #[test]
    fn grouped_dealer_paths_equal_the_direct_recursion_and_the_dealer_module() {
        // Full shoes and shoes with a player's hand taken out.
        let removals: [&[u8]; 4] = [&[], &[10, 6], &[1, 1, 2, 3, 5], &[2, 2, 2, 3, 3]];
        for decks in [1u8, 2, 8] {
            for h17 in [false, true] {
                for up in 1..=10u8 {
                    let mut base = full(decks);
                    base[usize::from(up - 1)] -= 1;
                    let paths = DealerPaths::new(up, h17, &full(decks));
                    for removed in removals {
                        let mut shoe = base;
                        for &c in removed {
                            shoe[usize::from(c - 1)] -= 1;
                        }
                        let fast = paths.distribution(&shoe);
                        let slow = reference(up, &shoe, h17);
                        let counts = shoe.map(u32::from);
                        let module =
                            dealer_outcomes_for_shoe(up, &Composition::from_counts(counts), h17)
                                .unwrap();
                        let module = [
                            module.totals[0],
                            module.totals[1],
                            module.totals[2],
                            module.totals[3],
                            module.totals[4],
                            module.bust,
                            module.blackjack,
                        ];
                        for i in 0..7 {
                            assert!((fast[i] - slow[i]).abs() < 1e-13, "{decks}D up {up}");
                            assert!((fast[i] - module[i]).abs() < 1e-13, "{decks}D up {up}");
                        }
                        let sum: f64 = fast.iter().sum();
                        assert!((sum - 1.0).abs() < 1e-12);
                    }
                }
            }
        }
    }

    #[test]
    fn dealer_tends_to_the_infinite_deck_table_as_decks_grow() {
        for h17 in [false, true] {
            let infinite = DealerTable::infinite(h17);
            let mut previous = f64::INFINITY;
            for decks in [1u8, 2, 4, 8] {
                let mut worst: f64 = 0.0;
                for up in 1..=10u8 {
                    let mut shoe = full(decks);
                    shoe[usize::from(up - 1)] -= 1;
                    let d = DealerPaths::new(up, h17, &full(decks)).distribution(&shoe);
                    let inf = infinite.get(up).unwrap();
                    let inf = [
                        inf.totals[0],
                        inf.totals[1],
                        inf.totals[2],
                        inf.totals[3],
                        inf.totals[4],
                        inf.bust,
                        inf.blackjack,
                    ];
                    for i in 0..7 {
                        worst = worst.max((d[i] - inf[i]).abs());
                    }
                }
                // The finite-shoe effect shrinks roughly as 1/decks.
                assert!(
                    worst < previous * 0.75,
                    "{decks} decks: {worst} vs {previous}"
                );
                assert!(worst < 0.03 / f64::from(decks), "{decks} decks: {worst}");
                previous = worst;
            }
        }
    }

    #[test]
    fn basic_strategy_return_tends_to_the_infinite_deck_return() {
        let rules = Rules::default();
        let infinite = Strategy::basic(&rules).unwrap().infinite_deck_return();
        let mut previous = f64::INFINITY;
        for decks in [1u8, 2, 4, 8] {
            let exact = analyse(&Rules { decks, ..rules }, ExactStrategy::Basic).unwrap();
            let gap = (exact.expected_return() - infinite).abs();
            assert!(
                gap < previous * 0.75,
                "{decks} decks: gap {gap} vs {previous}"
            );
            previous = gap;
        }
        assert!(previous < 0.0008, "8 decks: gap {previous}");
    }

    #[test]
    fn strategy_names_round_trip() {
        for s in [ExactStrategy::Composition, ExactStrategy::Basic] {
            assert_eq!(s.to_string().parse::<ExactStrategy>(), Ok(s));
        }
        assert!("optimal".parse::<ExactStrategy>().is_err());
    }
}
