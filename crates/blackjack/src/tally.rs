//! What a round reads and what it counts: the [`CardSource`] the engines deal from and the
//! [`Counts`] they add outcomes to. A leaf, so that the general round (`game.rs`) and the
//! one-seat table automata (`automaton.rs`) share them without importing each other.

/// Where the engine gets its cards: blackjack values 1 (ace) to 10.
pub(crate) trait CardSource {
    fn next_value(&mut self) -> u8;

    /// The next `N` values, in order: `N` calls of [`next_value`](CardSource::next_value),
    /// which a source may serve at once (a round's first cards).
    #[inline]
    fn next_values<const N: usize>(&mut self) -> [u8; N] {
        core::array::from_fn(|_| self.next_value())
    }

    /// The next `N` values without dealing them, and how many of them are dealt as they are
    /// (the rest would change before being dealt, e.g. a shoe not randomised that far); `None`
    /// when the source cannot look ahead.
    #[inline]
    fn peek<const N: usize>(&self) -> Option<([u8; N], usize)> {
        None
    }

    /// Deals `n` values at once: what `n` calls of [`next_value`](CardSource::next_value)
    /// would deal, for `n` at most the count [`peek`](CardSource::peek) returned.
    #[inline]
    fn skip(&mut self, n: usize) {
        for _ in 0..n {
            self.next_value();
        }
    }
}

/// Outcome counts of a simulation.
///
/// Every final player hand (after splits) ends as exactly one of `wins`, `losses`, `pushes`
/// or `surrenders`; `blackjacks` (player naturals) and `busts` are subsets of those.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Rounds dealt.
    pub rounds: u64,
    /// Final player hands (one per seat and round, plus one per split).
    pub hands: u64,
    /// Hands won (naturals included).
    pub wins: u64,
    /// Hands lost (busts and dealer blackjacks included).
    pub losses: u64,
    /// Hands pushed.
    pub pushes: u64,
    /// Player naturals (two-card 21 on the initial hand).
    pub blackjacks: u64,
    /// Dealer naturals.
    pub dealer_blackjacks: u64,
    /// Player hands that went over 21.
    pub busts: u64,
    /// Doubles (initial and after split).
    pub doubles: u64,
    /// Split actions (a pair split into two hands counts one).
    pub splits: u64,
    /// Surrendered hands (early or late).
    pub surrenders: u64,
}

impl Counts {
    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &Counts) {
        self.rounds += other.rounds;
        self.hands += other.hands;
        self.wins += other.wins;
        self.losses += other.losses;
        self.pushes += other.pushes;
        self.blackjacks += other.blackjacks;
        self.dealer_blackjacks += other.dealer_blackjacks;
        self.busts += other.busts;
        self.doubles += other.doubles;
        self.splits += other.splits;
        self.surrenders += other.surrenders;
    }

    /// `self + other`, or `None` when a count would overflow (tallies read back from files
    /// are added with this).
    pub fn checked_merge(&self, other: &Counts) -> Option<Counts> {
        Some(Counts {
            rounds: self.rounds.checked_add(other.rounds)?,
            hands: self.hands.checked_add(other.hands)?,
            wins: self.wins.checked_add(other.wins)?,
            losses: self.losses.checked_add(other.losses)?,
            pushes: self.pushes.checked_add(other.pushes)?,
            blackjacks: self.blackjacks.checked_add(other.blackjacks)?,
            dealer_blackjacks: self
                .dealer_blackjacks
                .checked_add(other.dealer_blackjacks)?,
            busts: self.busts.checked_add(other.busts)?,
            doubles: self.doubles.checked_add(other.doubles)?,
            splits: self.splits.checked_add(other.splits)?,
            surrenders: self.surrenders.checked_add(other.surrenders)?,
        })
    }

    /// `(name, value)` pairs in a fixed order, for reports.
    pub fn fields(&self) -> [(&'static str, u64); 11] {
        [
            ("rounds", self.rounds),
            ("hands", self.hands),
            ("wins", self.wins),
            ("losses", self.losses),
            ("pushes", self.pushes),
            ("blackjacks", self.blackjacks),
            ("dealer_blackjacks", self.dealer_blackjacks),
            ("busts", self.busts),
            ("doubles", self.doubles),
            ("splits", self.splits),
            ("surrenders", self.surrenders),
        ]
    }
}
