//! Playing one round: dealing, the peek, early/late surrender, splits, doubles, the dealer's
//! hand and the settlement. Money is counted in exact integer *tenths* of a unit, so 3:2
//! (+15), 6:5 (+12) and surrender (−5) add up without rounding and sums are associative
//! (which is what makes parallel results independent of the thread count).

use crate::automaton::OneSeatTables;
use crate::exact::{CompositionStrategy, card_key};
use crate::rules::{HoleCard, Rules, Surrender};
use crate::strategy::{Action, Strategy, add_card, two_card_total};
use crate::tally::{CardSource, Counts};

const LIVE: u8 = 0;
const BUST: u8 = 1;
const SURRENDERED: u8 = 2;

#[derive(Clone, Copy, Default)]
struct PlayerHand {
    total: u8,
    soft: bool,
    cards: u8,
    first: u8,
    second: u8,
    doubled: bool,
    from_split: bool,
    state: u8,
    /// The hand's cards, packed as in the exact analyser (composition play looks its
    /// decisions up by the shoe without them).
    seen: u64,
    /// For a split hand: how many hands existed when it received its second card.
    split_hands: u8,
}

impl PlayerHand {
    #[inline]
    fn one(value: u8, from_split: bool) -> PlayerHand {
        PlayerHand {
            total: if value == 1 { 11 } else { value },
            soft: value == 1,
            cards: 1,
            first: value,
            from_split,
            seen: card_key(value),
            ..PlayerHand::default()
        }
    }

    /// Adds a card; returns false on a bust.
    #[inline]
    fn add(&mut self, value: u8) -> bool {
        if self.cards == 1 {
            self.second = value;
        }
        self.cards += 1;
        self.seen += card_key(value);
        match add_card(self.total, self.soft, value) {
            Some((t, s)) => {
                self.total = t;
                self.soft = s;
                true
            }
            None => {
                self.total = 22;
                self.state = BUST;
                false
            }
        }
    }

    #[inline]
    fn is_pair(&self) -> bool {
        self.cards == 2 && self.first == self.second
    }

    #[inline]
    fn units(&self) -> i64 {
        if self.doubled { 20 } else { 10 }
    }
}

/// Plays rounds of one rule set with one strategy.
pub(crate) struct Engine<'a> {
    strategy: &'a Strategy,
    /// Composition-dependent decisions instead of the chart's, when set.
    composition: Option<&'a CompositionStrategy>,
    rules: Rules,
    payout: i64,
    /// The one-seat round as table automata, for the rules it plays.
    one_seat: Option<OneSeatTables>,
}

const MAX_SEATS: usize = 7;
const MAX_HANDS: usize = 8;

/// Reusable per-thread storage for the hands of a round (so a round does not have to clear
/// 56 hands it will mostly not use; only hands `..n` of each seat are ever read).
pub(crate) struct Scratch {
    hands: [[PlayerHand; MAX_HANDS]; MAX_SEATS],
}

impl Scratch {
    pub(crate) fn new() -> Scratch {
        Scratch {
            hands: [[PlayerHand::default(); MAX_HANDS]; MAX_SEATS],
        }
    }
}

impl<'a> Engine<'a> {
    pub(crate) fn new(strategy: &'a Strategy) -> Engine<'a> {
        let rules = *strategy.rules();
        Engine {
            strategy,
            composition: None,
            rules,
            payout: rules.payout.tenths(),
            one_seat: OneSeatTables::new(strategy),
        }
    }

    /// An engine playing composition-dependent decisions (one seat, full shoe every round).
    pub(crate) fn with_composition(composition: &'a CompositionStrategy) -> Engine<'a> {
        Engine {
            composition: Some(composition),
            one_seat: None,
            ..Engine::new(composition.chart())
        }
    }

    #[inline]
    fn resplit(&self, pair: u8, u: usize, hands: usize, waiting: usize) -> bool {
        match self.composition {
            None => self.strategy.resplit_raw(pair, u),
            Some(cd) => cd.resplit(u as u8 + 1, pair, hands as u8, waiting as u8),
        }
    }

    #[inline]
    fn initial_action(&self, c1: u8, c2: u8, u: usize) -> Action {
        if let Some(cd) = self.composition {
            return cd.initial(c1, c2, u as u8 + 1);
        }
        if c1 == c2 && self.rules.max_split_hands >= 2 {
            self.strategy.pair_raw(c1, u)
        } else {
            let (t, soft) = two_card_total(c1, c2);
            self.strategy.first_raw(t, soft, u)
        }
    }

    /// Plays one round with `bet` units on every seat; returns the table's net result in
    /// tenths of a unit (positive = players win) and updates `counts`.
    ///
    /// Dispatches to a copy of the round compiled for the table's number of seats, so the
    /// per-seat loops have constant bounds (the one-seat case has no loops left at all).
    #[inline]
    pub(crate) fn play_round<C: CardSource>(
        &self,
        src: &mut C,
        bet: u32,
        counts: &mut Counts,
        scratch: &mut Scratch,
    ) -> i64 {
        match self.rules.seats {
            1 if self.composition.is_none() => self.play_round_one_seat(src, bet, counts, scratch),
            1 => self.play_round_for::<C, 1>(src, bet, counts, scratch),
            2 => self.play_round_for::<C, 2>(src, bet, counts, scratch),
            3 => self.play_round_for::<C, 3>(src, bet, counts, scratch),
            4 => self.play_round_for::<C, 4>(src, bet, counts, scratch),
            5 => self.play_round_for::<C, 5>(src, bet, counts, scratch),
            6 => self.play_round_for::<C, 6>(src, bet, counts, scratch),
            _ => self.play_round_for::<C, MAX_SEATS>(src, bet, counts, scratch),
        }
    }

    /// The general round for any number of seats and either kind of play (the reference the
    /// one-seat round is tested against).
    #[cfg(test)]
    pub(crate) fn play_round_general<C: CardSource>(
        &self,
        src: &mut C,
        bet: u32,
        counts: &mut Counts,
        scratch: &mut Scratch,
    ) -> i64 {
        match self.rules.seats {
            1 => self.play_round_for::<C, 1>(src, bet, counts, scratch),
            2 => self.play_round_for::<C, 2>(src, bet, counts, scratch),
            3 => self.play_round_for::<C, 3>(src, bet, counts, scratch),
            4 => self.play_round_for::<C, 4>(src, bet, counts, scratch),
            5 => self.play_round_for::<C, 5>(src, bet, counts, scratch),
            6 => self.play_round_for::<C, 6>(src, bet, counts, scratch),
            _ => self.play_round_for::<C, MAX_SEATS>(src, bet, counts, scratch),
        }
    }

    /// The common case, one seat playing the chart, without the per-seat arrays, the hand
    /// records and the split loop: the hand is two registers (total, soft) and a flag.
    /// A round whose first decision is a split hands the seat to [`Engine::play_seat`] and
    /// settles its hands as the general round does. It draws the same cards in the same order
    /// and counts the same outcomes as `play_round_for::<_, 1>` (tested round by round).
    #[inline]
    fn play_round_one_seat<C: CardSource>(
        &self,
        src: &mut C,
        bet: u32,
        counts: &mut Counts,
        scratch: &mut Scratch,
    ) -> i64 {
        let rules = &self.rules;
        let b = i64::from(bet);
        counts.rounds += 1;
        if let Some(tables) = &self.one_seat
            && let Some(net) = tables.play(src, b, counts)
        {
            return net;
        }
        let peek = rules.hole_card == HoleCard::Peek;
        // Player, upcard, player, and under the peek the hole card: the general round's order.
        let [c1, up, c2, mut hole] = if peek {
            src.next_values::<4>()
        } else {
            let [c1, up, c2] = src.next_values::<3>();
            [c1, up, c2, 0]
        };
        let u = usize::from(up - 1);
        let natural = |a: u8, b: u8| (a == 1 && b == 10) || (a == 10 && b == 1);
        let dealer_natural_up = up == 1 || up == 10;

        if natural(c1, c2) {
            counts.blackjacks += 1;
            counts.hands += 1;
            if peek {
                if natural(up, hole) {
                    counts.dealer_blackjacks += 1;
                    counts.pushes += 1;
                    return 0;
                }
            } else if dealer_natural_up {
                hole = src.next_value();
                if natural(up, hole) {
                    counts.dealer_blackjacks += 1;
                    counts.pushes += 1;
                    return 0;
                }
            }
            counts.wins += 1;
            return self.payout * b;
        }

        // The chart's first decision (`initial_action` without the composition branch).
        let first = if c1 == c2 && rules.max_split_hands >= 2 {
            self.strategy.pair_raw(c1, u)
        } else {
            let (t, soft) = two_card_total(c1, c2);
            self.strategy.first_raw(t, soft, u)
        };
        if rules.surrender == Surrender::Early && first == Action::Surrender {
            counts.surrenders += 1;
            counts.hands += 1;
            if peek && natural(up, hole) {
                counts.dealer_blackjacks += 1;
            }
            return -5 * b;
        }
        if peek && natural(up, hole) {
            counts.dealer_blackjacks += 1;
            counts.losses += 1;
            counts.hands += 1;
            return -10 * b;
        }
        let (mut total, mut soft) = two_card_total(c1, c2);
        let mut units = 10i64;
        match first {
            Action::Split => {
                return self.finish_split_seat(src, c1, c2, up, hole, counts, b, scratch);
            }
            // Late surrender (an early one returned above).
            Action::Surrender => {
                counts.hands += 1;
                counts.surrenders += 1;
                return -5 * b;
            }
            Action::Stand => counts.hands += 1,
            Action::Double => {
                counts.hands += 1;
                counts.doubles += 1;
                units = 20;
                match add_card(total, soft, src.next_value()) {
                    Some((t, _)) => total = t,
                    None => {
                        counts.busts += 1;
                        counts.losses += 1;
                        return -20 * b;
                    }
                }
            }
            Action::Hit => {
                counts.hands += 1;
                // After the first card the chart only hits or stands.
                loop {
                    match add_card(total, soft, src.next_value()) {
                        Some((t, s)) => {
                            total = t;
                            soft = s;
                        }
                        None => {
                            counts.busts += 1;
                            counts.losses += 1;
                            return -10 * b;
                        }
                    }
                    if total >= 21 || self.strategy.multi_raw(total, soft, u) != Action::Hit {
                        break;
                    }
                }
            }
        }

        if !peek {
            hole = src.next_value();
            if natural(up, hole) {
                counts.dealer_blackjacks += 1;
                counts.losses += 1;
                return -units * b;
            }
        }
        let dealer = self.dealer_final(src, up, hole);
        if dealer > 21 || total > dealer {
            counts.wins += 1;
            units * b
        } else if total < dealer {
            counts.losses += 1;
            -units * b
        } else {
            counts.pushes += 1;
            0
        }
    }

    /// The rest of a one-seat round whose first decision is a split: the general seat loop,
    /// then the dealer and the settlement of every hand, exactly as in the general round.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn finish_split_seat<C: CardSource>(
        &self,
        src: &mut C,
        c1: u8,
        c2: u8,
        up: u8,
        mut hole: u8,
        counts: &mut Counts,
        b: i64,
        scratch: &mut Scratch,
    ) -> i64 {
        let peek = self.rules.hole_card == HoleCard::Peek;
        let u = usize::from(up - 1);
        let hands = &mut scratch.hands[0];
        let mut net = 0i64;
        let n = self.play_seat(src, c1, c2, u, hands, counts, &mut net, b);
        let hands = &hands[..n];
        if !hands.iter().any(|h| h.state == LIVE) {
            return net;
        }
        if !peek {
            hole = src.next_value();
            if (up == 1 && hole == 10) || (up == 10 && hole == 1) {
                counts.dealer_blackjacks += 1;
                for h in hands.iter().filter(|h| h.state == LIVE) {
                    counts.losses += 1;
                    net -= h.units() * b;
                }
                return net;
            }
        }
        let dealer = self.dealer_final(src, up, hole);
        for h in hands.iter().filter(|h| h.state == LIVE) {
            if dealer > 21 || h.total > dealer {
                counts.wins += 1;
                net += h.units() * b;
            } else if h.total < dealer {
                counts.losses += 1;
                net -= h.units() * b;
            } else {
                counts.pushes += 1;
            }
        }
        net
    }

    /// The dealer's final total from the upcard and the hole card (22 for a bust).
    #[inline]
    fn dealer_final<C: CardSource>(&self, src: &mut C, up: u8, hole: u8) -> u8 {
        let (mut total, mut soft) = two_card_total(up, hole);
        while total < 17 || (total == 17 && soft && self.rules.hits_soft_17) {
            match add_card(total, soft, src.next_value()) {
                Some((t, s)) => {
                    total = t;
                    soft = s;
                }
                None => return 22,
            }
        }
        total
    }

    fn play_round_for<C: CardSource, const SEATS: usize>(
        &self,
        src: &mut C,
        bet: u32,
        counts: &mut Counts,
        scratch: &mut Scratch,
    ) -> i64 {
        let rules = &self.rules;
        let seats = SEATS;
        let b = i64::from(bet);
        counts.rounds += 1;

        let mut c1 = [0u8; MAX_SEATS];
        let mut c2 = [0u8; MAX_SEATS];
        for c in &mut c1[..seats] {
            *c = src.next_value();
        }
        let up = src.next_value();
        for c in &mut c2[..seats] {
            *c = src.next_value();
        }
        let peek = rules.hole_card == HoleCard::Peek;
        let mut hole = if peek { src.next_value() } else { 0 };
        let u = usize::from(up - 1);
        let natural = |a: u8, b: u8| (a == 1 && b == 10) || (a == 10 && b == 1);

        let mut net = 0i64;
        // 0 = playing, 1 = natural, 2 = surrendered early.
        let mut status = [0u8; MAX_SEATS];
        for s in 0..seats {
            if natural(c1[s], c2[s]) {
                status[s] = 1;
                counts.blackjacks += 1;
            } else if rules.surrender == Surrender::Early
                && self.initial_action(c1[s], c2[s], u) == Action::Surrender
            {
                status[s] = 2;
                net -= 5 * b;
                counts.surrenders += 1;
                counts.hands += 1;
            }
        }

        if peek && natural(up, hole) {
            counts.dealer_blackjacks += 1;
            for &st in &status[..seats] {
                match st {
                    1 => {
                        counts.pushes += 1;
                        counts.hands += 1;
                    }
                    0 => {
                        counts.losses += 1;
                        counts.hands += 1;
                        net -= 10 * b;
                    }
                    _ => {}
                }
            }
            return net;
        }

        let hands = &mut scratch.hands;
        let mut n_hands = [0usize; MAX_SEATS];
        let mut any_live = false;
        let mut any_natural = false;
        for s in 0..seats {
            match status[s] {
                0 => {
                    n_hands[s] =
                        self.play_seat(src, c1[s], c2[s], u, &mut hands[s], counts, &mut net, b);
                    any_live |= hands[s][..n_hands[s]].iter().any(|h| h.state == LIVE);
                }
                1 => any_natural = true,
                _ => {}
            }
        }

        if !peek && (any_live || (any_natural && (up == 1 || up == 10))) {
            hole = src.next_value();
        }
        let dealer_natural = hole != 0 && natural(up, hole);
        if dealer_natural {
            // Only reachable without a peek (ENHC): every live bet is lost, doubles and
            // splits included; naturals push.
            counts.dealer_blackjacks += 1;
            for s in 0..seats {
                if status[s] == 1 {
                    counts.pushes += 1;
                    counts.hands += 1;
                }
                for h in &hands[s][..n_hands[s]] {
                    if h.state == LIVE {
                        counts.losses += 1;
                        net -= h.units() * b;
                    }
                }
            }
            return net;
        }
        for &st in &status[..seats] {
            if st == 1 {
                counts.wins += 1;
                counts.hands += 1;
                net += self.payout * b;
            }
        }
        if !any_live {
            return net;
        }

        // The dealer plays.
        let (mut total, mut soft) = two_card_total(up, hole);
        let mut dealer_bust = false;
        while total < 17 || (total == 17 && soft && rules.hits_soft_17) {
            match add_card(total, soft, src.next_value()) {
                Some((t, s)) => {
                    total = t;
                    soft = s;
                }
                None => {
                    dealer_bust = true;
                    break;
                }
            }
        }
        for s in 0..seats {
            for h in &hands[s][..n_hands[s]] {
                if h.state != LIVE {
                    continue;
                }
                if dealer_bust || h.total > total {
                    counts.wins += 1;
                    net += h.units() * b;
                } else if h.total < total {
                    counts.losses += 1;
                    net -= h.units() * b;
                } else {
                    counts.pushes += 1;
                }
            }
        }
        net
    }

    /// Plays one seat's hand (and its splits). Busts and surrenders are settled here; live
    /// hands are left for the dealer. Returns the number of hands.
    #[allow(clippy::too_many_arguments)]
    fn play_seat<C: CardSource>(
        &self,
        src: &mut C,
        c1: u8,
        c2: u8,
        u: usize,
        hands: &mut [PlayerHand; MAX_HANDS],
        counts: &mut Counts,
        net: &mut i64,
        b: i64,
    ) -> usize {
        let rules = &self.rules;
        let max = usize::from(rules.max_split_hands);
        let mut first = PlayerHand::one(c1, false);
        first.add(c2);
        hands[0] = first;
        let mut n = 1;
        let mut i = 0;
        'hands: while i < n {
            if hands[i].cards == 1 {
                let v = src.next_value();
                hands[i].add(v);
                hands[i].split_hands = n as u8;
                if hands[i].first == 1 && !rules.hit_split_aces {
                    // A split ace gets one card, unless it is another ace we may resplit.
                    if v == 1 && rules.resplit_aces && n < max && self.resplit(1, u, n, n - i) {
                        hands[n] = PlayerHand::one(1, true);
                        hands[i] = PlayerHand::one(1, true);
                        n += 1;
                        counts.splits += 1;
                        continue 'hands;
                    }
                    counts.hands += 1;
                    i += 1;
                    continue 'hands;
                }
            }
            loop {
                let h = hands[i];
                if h.total >= 21 {
                    break;
                }
                let action = if h.cards == 2 {
                    if !h.from_split {
                        self.initial_action(h.first, h.second, u)
                    } else if h.is_pair()
                        && n < max
                        && (h.first != 1 || rules.resplit_aces)
                        && self.resplit(h.first, u, n, n - i)
                    {
                        Action::Split
                    } else if let Some(cd) = self.composition {
                        cd.split_hand(u as u8 + 1, h.first, h.split_hands, h.second)
                    } else {
                        self.strategy.after_split_raw(h.total, h.soft, u)
                    }
                } else if let Some(cd) = self.composition {
                    // A split hand's shoe also lacks the other hands' pair cards.
                    let extra = if h.from_split {
                        u64::from(h.split_hands.saturating_sub(1)) * card_key(h.first)
                    } else {
                        0
                    };
                    if cd.hit(u as u8 + 1, h.seen, extra, h.total, h.soft) {
                        Action::Hit
                    } else {
                        Action::Stand
                    }
                } else {
                    self.strategy.multi_raw(h.total, h.soft, u)
                };
                match action {
                    Action::Stand => break,
                    Action::Hit => {
                        if !hands[i].add(src.next_value()) {
                            break;
                        }
                    }
                    Action::Double => {
                        hands[i].doubled = true;
                        counts.doubles += 1;
                        hands[i].add(src.next_value());
                        break;
                    }
                    Action::Split => {
                        counts.splits += 1;
                        hands[n] = PlayerHand::one(h.first, true);
                        hands[i] = PlayerHand::one(h.first, true);
                        n += 1;
                        continue 'hands;
                    }
                    Action::Surrender => {
                        hands[i].state = SURRENDERED;
                        counts.surrenders += 1;
                        *net -= 5 * b;
                        break;
                    }
                }
            }
            counts.hands += 1;
            if hands[i].state == BUST {
                counts.busts += 1;
                counts.losses += 1;
                *net -= hands[i].units() * b;
            }
            i += 1;
        }
        n
    }
}
