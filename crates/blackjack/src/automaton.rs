//! The one-seat round as table automata: the common round of chart play with a peek, played
//! from a look at the next cards of the shoe with one table load per card and almost no
//! data-dependent branches.
//!
//! A round's branches (the first decision, every hit-or-stand, every dealer draw, the
//! settlement) depend on random cards, so a branch predictor misses several of them per
//! round. Here the player's and the dealer's hands are small automata whose states already
//! hold the decision: a player state is "a card is still to come" (to hit, or the one card of
//! a double) or "final" (stood on a total, or bust), and a transition adds a card and applies
//! the chart to the new hand. Final states are absorbing, so a fixed number of steps over the
//! next cards gives the final hand, and the number of steps taken while a card was still due
//! is the number of cards dealt. The round is computed from a copy of the next
//! [`WINDOW`] cards, and only dealt (the shoe's position moved) when every card it used was
//! already randomised; any other round (a split, more than [`PLAYER_STEPS`] player or
//! [`DEALER_STEPS`] dealer cards, the end of the randomised part of the shoe) returns `None`
//! having changed nothing, and the caller plays it card by card. Both ways deal the same cards
//! in the same order and count the same outcomes, so seeded results do not depend on which
//! way a round went (tested round by round against the general round).

use crate::rules::{HoleCard, Rules, Surrender};
use crate::strategy::{Action, Strategy, add_card, two_card_total};
use crate::tally::{CardSource, Counts};

/// Cards looked at per round: the first four and up to [`PLAYER_STEPS`] + [`DEALER_STEPS`]
/// more, rounded up to a power of two so that an index into the window can be masked.
pub(crate) const WINDOW: usize = 16;
/// Player cards after the first two that the automaton plays (a longer hand is played card by
/// card). Each step is a load that depends on the one before, and the next round's position
/// waits for the whole chain: 3 player and 3 dealer steps ran 5–9 % faster than 4 and 5 (and
/// than 2 and 4), though more rounds go card by card (docs/blackjack.md, "Speed").
const PLAYER_STEPS: usize = 3;
/// Dealer cards after the hole card that the automaton plays.
const DEALER_STEPS: usize = 3;
const _: () = assert!(4 + PLAYER_STEPS + DEALER_STEPS <= WINDOW);

/// Player states below this one still take a card: `0..32` to hit ([`hand_id`]), `32..64`
/// the one card of a double.
const P_FINAL: u8 = 64;
/// `P_DOUBLE + hand_id`: doubled, one card to come.
const P_DOUBLE: u8 = 32;
/// `P_FINAL + 22`: busted (`P_FINAL + t` is a hand that stood on `t`).
const P_BUST: u8 = P_FINAL + 22;
/// First-decision markers: a natural, a split, a (late) surrender.
const P_NATURAL: u8 = 100;
const P_SPLIT: u8 = 101;
const P_SURRENDER: u8 = 102;
/// Dealer states below this one draw; `D_FINAL + t` stands on `t` (17..=21), `D_FINAL + 22`
/// busted.
const D_FINAL: u8 = 32;

/// A hand's total and softness as a state number below 32: hard `t` is `t`, soft `t` (12..=21)
/// is `22 + t - 12`.
const fn hand_id(total: u8, soft: bool) -> u8 {
    if soft { 22 + total - 12 } else { total }
}

/// Every `(total, soft)` a state number of [`hand_id`] stands for.
fn hands() -> impl Iterator<Item = (u8, bool)> {
    (0..=21u8)
        .map(|t| (t, false))
        .chain((12..=21u8).map(|t| (t, true)))
}

/// One row of transitions per state, indexed by card value (1..=10; the other entries keep the
/// state). Rows of 16 so that a masked index needs no bounds check.
type Rows<const N: usize> = [[u8; 16]; N];

/// Absorbing rows: every card keeps the state.
fn absorbing<const N: usize>() -> Box<Rows<N>> {
    let mut rows = Box::new([[0u8; 16]; N]);
    for (s, row) in rows.iter_mut().enumerate() {
        *row = [s as u8; 16];
    }
    rows
}

/// The tables of one rule set and chart.
pub(crate) struct OneSeatTables {
    /// `first[u][c1][c2]`: the state after the first two cards and the chart's first decision
    /// against upcard `u + 1` (or a marker).
    first: Box<[Rows<16>; 10]>,
    /// `player[u][state][card]`.
    player: Box<[Rows<128>; 10]>,
    /// `dealer_first[up][hole]`: the dealer's state after two cards.
    dealer_first: Box<Rows<16>>,
    /// `dealer[state][card]`.
    dealer: Box<Rows<64>>,
    /// Tenths of a unit a natural wins.
    payout: i64,
}

impl OneSeatTables {
    /// The tables for `strategy`'s rules and chart, or `None` for rules the automaton does not
    /// play (no hole card, early surrender, more than one seat): their rounds are played card
    /// by card.
    pub(crate) fn new(strategy: &Strategy) -> Option<OneSeatTables> {
        let rules: &Rules = strategy.rules();
        if rules.hole_card != HoleCard::Peek
            || rules.surrender == Surrender::Early
            || rules.seats != 1
        {
            return None;
        }
        // The dealer: draws below 17, and on soft 17 under H17.
        let dealer_state = |t: u8, soft: bool| {
            if t < 17 || (t == 17 && soft && rules.hits_soft_17) {
                hand_id(t, soft)
            } else {
                D_FINAL + t
            }
        };
        let mut dealer = absorbing::<64>();
        for (t, soft) in hands() {
            let row = &mut dealer[usize::from(hand_id(t, soft))];
            for c in 1..=10u8 {
                row[usize::from(c)] = match add_card(t, soft, c) {
                    Some((t, soft)) => dealer_state(t, soft),
                    None => D_FINAL + 22,
                };
            }
        }
        let mut dealer_first = absorbing::<16>();
        for up in 1..=10u8 {
            for hole in 1..=10u8 {
                let (t, soft) = two_card_total(up, hole);
                dealer_first[usize::from(up)][usize::from(hole)] = dealer_state(t, soft);
            }
        }

        let mut first = Box::new([[[0u8; 16]; 16]; 10]);
        let mut player = Box::new([[[0u8; 16]; 128]; 10]);
        for u in 0..10usize {
            // After a hit: stand on 21 or when the chart says so (after the first decision it
            // only hits or stands).
            let resolve = |t: u8, soft: bool| {
                if t >= 21 || strategy.multi_raw(t, soft, u) != Action::Hit {
                    P_FINAL + t
                } else {
                    hand_id(t, soft)
                }
            };
            let rows = &mut player[u];
            *rows = *absorbing::<128>();
            for (t, soft) in hands() {
                let id = usize::from(hand_id(t, soft));
                for c in 1..=10u8 {
                    let next = add_card(t, soft, c);
                    rows[id][usize::from(c)] = match next {
                        Some((t, soft)) => resolve(t, soft),
                        None => P_BUST,
                    };
                    rows[id + usize::from(P_DOUBLE)][usize::from(c)] = match next {
                        Some((t, _)) => P_FINAL + t,
                        None => P_BUST,
                    };
                }
            }
            for c1 in 1..=10u8 {
                for c2 in 1..=10u8 {
                    let (t, soft) = two_card_total(c1, c2);
                    let action = if c1 == c2 && rules.max_split_hands >= 2 {
                        strategy.pair_raw(c1, u)
                    } else {
                        strategy.first_raw(t, soft, u)
                    };
                    first[u][usize::from(c1)][usize::from(c2)] = if t == 21 {
                        P_NATURAL
                    } else {
                        match action {
                            Action::Stand => P_FINAL + t,
                            Action::Hit => hand_id(t, soft),
                            Action::Double => P_DOUBLE + hand_id(t, soft),
                            Action::Split => P_SPLIT,
                            Action::Surrender => P_SURRENDER,
                        }
                    };
                }
            }
        }
        Some(OneSeatTables {
            first,
            player,
            dealer_first,
            dealer,
            payout: rules.payout.tenths(),
        })
    }

    /// Plays one round with bet `b` from a look at the source's next cards and deals the
    /// cards it used; `None` (nothing dealt, nothing counted) when the round needs the card by
    /// card path. `counts.rounds` is the caller's.
    #[inline(always)]
    pub(crate) fn play<C: CardSource>(
        &self,
        src: &mut C,
        b: i64,
        counts: &mut Counts,
    ) -> Option<i64> {
        let (w, ready) = src.peek::<WINDOW>()?;
        let [c1, up, c2, hole] = [w[0], w[1], w[2], w[3]];
        let u = usize::from(up.wrapping_sub(1));
        let first = *self
            .first
            .get(u)?
            .get(usize::from(c1))?
            .get(usize::from(c2))?;
        if first >= P_NATURAL || (up == 1 && hole == 10) || (up == 10 && hole == 1) {
            return self.play_marked(src, first, up, hole, ready, b, counts);
        }
        let doubled = (P_DOUBLE..P_FINAL).contains(&first);
        let rows = self.player.get(u)?;
        let mut s = first;
        let mut kp = 0;
        for &c in &w[4..4 + PLAYER_STEPS] {
            kp += usize::from(s < P_FINAL);
            s = rows[usize::from(s & 127)][usize::from(c & 15)];
        }
        let mut d = self.dealer_first[usize::from(up & 15)][usize::from(hole & 15)];
        let mut kd = 0;
        for j in 0..DEALER_STEPS {
            kd += usize::from(d < D_FINAL);
            let c = w[(4 + kp + j) & (WINDOW - 1)];
            d = self.dealer[usize::from(d & 63)][usize::from(c & 15)];
        }
        let bust = s == P_BUST;
        // A hand longer than the steps, or cards the shoe has not randomised yet.
        let n = 4 + kp + if bust { 0 } else { kd };
        if s < P_FINAL || (d < D_FINAL && !bust) || n > ready {
            return None;
        }
        src.skip(n);
        let (pt, dt) = (s - P_FINAL, d.wrapping_sub(D_FINAL));
        let win = !bust & ((dt > 21) | (pt > dt));
        let push = !bust & (pt == dt);
        let lose = !win & !push;
        counts.hands += 1;
        counts.wins += u64::from(win);
        counts.losses += u64::from(lose);
        counts.pushes += u64::from(push);
        counts.busts += u64::from(bust);
        counts.doubles += u64::from(doubled);
        let units = if doubled { 20 } else { 10 };
        Some((i64::from(win) - i64::from(lose)) * units * b)
    }

    /// The rounds decided by the first four cards: naturals, the dealer's blackjack, a late
    /// surrender; a split is left to the card by card path.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn play_marked<C: CardSource>(
        &self,
        src: &mut C,
        first: u8,
        up: u8,
        hole: u8,
        ready: usize,
        b: i64,
        counts: &mut Counts,
    ) -> Option<i64> {
        let dealer_natural = (up == 1 && hole == 10) || (up == 10 && hole == 1);
        if ready < 4 || (first == P_SPLIT && !dealer_natural) {
            return None;
        }
        src.skip(4);
        counts.hands += 1;
        if first == P_NATURAL {
            counts.blackjacks += 1;
            if dealer_natural {
                counts.dealer_blackjacks += 1;
                counts.pushes += 1;
                return Some(0);
            }
            counts.wins += 1;
            return Some(self.payout * b);
        }
        if dealer_natural {
            counts.dealer_blackjacks += 1;
            counts.losses += 1;
            return Some(-10 * b);
        }
        // A late surrender (the only marker left).
        counts.surrenders += 1;
        Some(-5 * b)
    }
}
