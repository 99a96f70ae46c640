//! Texas Hold'em equity: exact enumeration of every deal, or Monte Carlo.

use core::fmt;
use core::str::FromStr;

use fairdeal_cards::{Card, CardError, CardSet, parse_cards};
use fairdeal_core::{Chunk, ChunkPlan, ChunkWork, Rng, Shard, Shuffler, run_parallel};
use rayon::prelude::*;

use crate::eval::{Acc, Tables, tables};
use crate::{PokerError, Progress};

/// Largest number of deals [`equity_exact`] agrees to enumerate.
pub const EXACT_LIMIT: u128 = 200_000_000;

/// [`equity`] enumerates exactly when a spot has at most this many deals (heads-up preflop
/// has 1,712,304) and runs Monte Carlo otherwise.
pub const AUTO_EXACT_LIMIT: u128 = 5_000_000;

/// Trials per Monte Carlo chunk; chunk `c` uses `rng_factory(stream_seed(seed, c))`.
pub const EQUITY_CHUNK: u64 = 1 << 14;

/// Tie shares are counted in units of 1/2520 of a pot (2520 = lcm(1..=9)), so split pots
/// among up to nine players add up exactly in integers.
pub const SHARE_UNIT: u64 = 2520;

/// The most trials [`equity_monte_carlo`] accepts: a player's pot shares (at most
/// `SHARE_UNIT` per trial) then always fit the `u64` tally. Far beyond any run that ends.
pub const MAX_EQUITY_TRIALS: u64 = u64::MAX / SHARE_UNIT;

/// A player's hole cards: known, or dealt at random from the remaining deck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Seat {
    /// Two known hole cards.
    Known([Card; 2]),
    /// Two unknown cards, dealt from what is left.
    Random,
}

impl FromStr for Seat {
    type Err = PokerError;

    /// `"AsAh"` (any notation `parse_cards` accepts, exactly two cards) or `"random"` /
    /// `"?"` / `"??"` (case-insensitive) for an unknown hand.
    fn from_str(s: &str) -> Result<Seat, PokerError> {
        let text = s.trim();
        if text.eq_ignore_ascii_case("random") || text == "?" || text == "??" {
            return Ok(Seat::Random);
        }
        match parse_cards(text)?.as_slice() {
            &[a, b] => Ok(Seat::Known([a, b])),
            other => Err(PokerError::HoleCards {
                player: 0,
                len: other.len(),
            }),
        }
    }
}

impl fmt::Display for Seat {
    /// `"AsAh"` or `"random"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seat::Known([a, b]) => write!(f, "{a}{b}"),
            Seat::Random => f.write_str("random"),
        }
    }
}

/// A Hold'em situation: 2 to 9 seats, a board of 0, 3, 4 or 5 cards, and dead cards (known to
/// be out of the deck), all distinct. Built only through validation, so every `Spot` can be
/// dealt.
///
/// ```
/// use fairdeal_poker::Spot;
/// let spot = Spot::parse(&["AsAh", "KsKd"], "", "")?;
/// assert_eq!(spot.exact_outcomes(), 1_712_304); // C(48, 5) boards
/// assert!(Spot::parse(&["AsAh"], "", "").is_err());               // one player
/// assert!(Spot::parse(&["AsAh", "KsKd"], "2c3c", "").is_err());   // board of 2
/// # Ok::<(), fairdeal_poker::PokerError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    seats: Vec<Seat>,
    board: Vec<Card>,
    dead: Vec<Card>,
    remaining: CardSet,
}

impl Spot {
    /// Validates and builds a spot.
    ///
    /// # Errors
    ///
    /// [`PokerError::Players`] unless there are 2 to 9 seats, [`PokerError::BoardSize`]
    /// unless the board has 0, 3, 4 or 5 cards, [`PokerError::DuplicateCard`] when a card
    /// appears twice anywhere, [`PokerError::NotEnoughCards`] when the deck cannot deal the
    /// random hands and the rest of the board.
    pub fn new(seats: Vec<Seat>, board: Vec<Card>, dead: Vec<Card>) -> Result<Spot, PokerError> {
        if !(2..=9).contains(&seats.len()) {
            return Err(PokerError::Players {
                players: seats.len(),
            });
        }
        if !matches!(board.len(), 0 | 3 | 4 | 5) {
            return Err(PokerError::BoardSize { len: board.len() });
        }
        let mut used = CardSet::new();
        let known = seats
            .iter()
            .flat_map(|s| match s {
                Seat::Known(cards) => cards.to_vec(),
                Seat::Random => Vec::new(),
            })
            .chain(board.iter().copied())
            .chain(dead.iter().copied());
        for card in known {
            if !used.insert(card) {
                return Err(PokerError::DuplicateCard { card });
            }
        }
        let remaining = used.complement();
        let spot = Spot {
            seats,
            board,
            dead,
            remaining,
        };
        if spot.to_deal() > remaining.len() {
            return Err(PokerError::NotEnoughCards {
                needed: spot.to_deal(),
                available: remaining.len(),
            });
        }
        Ok(spot)
    }

    /// Parses hands (`"AsAh"` or `"random"`), a board (`"2c7d9h"`, may be empty) and dead cards,
    /// then validates as [`Spot::new`].
    ///
    /// # Errors
    ///
    /// [`PokerError::CardText`] for malformed text (naming the input), [`PokerError::HoleCards`]
    /// for a hand that is not two cards, and everything [`Spot::new`] reports.
    pub fn parse(hands: &[&str], board: &str, dead: &str) -> Result<Spot, PokerError> {
        let seats = hands
            .iter()
            .enumerate()
            .map(|(i, h)| match h.parse::<Seat>() {
                Err(PokerError::HoleCards { len, .. }) => {
                    Err(PokerError::HoleCards { player: i + 1, len })
                }
                Err(PokerError::Card(error)) => Err(card_text(format!("hand {}", i + 1), h, error)),
                other => other,
            })
            .collect::<Result<Vec<Seat>, PokerError>>()?;
        let board = parse_cards(board).map_err(|e| card_text("board".into(), board, e))?;
        let dead = parse_cards(dead).map_err(|e| card_text("dead cards".into(), dead, e))?;
        Spot::new(seats, board, dead)
    }

    /// The seats.
    pub fn seats(&self) -> &[Seat] {
        &self.seats
    }

    /// The known board cards.
    pub fn board(&self) -> &[Card] {
        &self.board
    }

    /// The dead cards.
    pub fn dead(&self) -> &[Card] {
        &self.dead
    }

    /// The cards that can still be dealt.
    pub fn remaining(&self) -> CardSet {
        self.remaining
    }

    fn random_seats(&self) -> usize {
        self.seats.iter().filter(|s| **s == Seat::Random).count()
    }

    /// Cards still to deal: the rest of the board plus two per random seat.
    pub fn to_deal(&self) -> usize {
        5 - self.board.len() + 2 * self.random_seats()
    }

    /// The number of equally likely deals an exact enumeration visits: board completions
    /// times the hole cards of each random seat, `C(r, 5 − b) · C(r − 5 + b, 2) · …`.
    pub fn exact_outcomes(&self) -> u128 {
        let mut r = self.remaining.len() as u128;
        let need = 5 - self.board.len() as u128;
        let mut total = binomial(r, need);
        r -= need;
        for _ in 0..self.random_seats() {
            total *= binomial(r, 2);
            r -= 2;
        }
        total
    }
}

/// A card error in one named input: a repeated card is reported as such, anything else with
/// the input it came from.
fn card_text(what: String, text: &str, error: CardError) -> PokerError {
    match error {
        CardError::Duplicate { card } => PokerError::DuplicateCard { card },
        error => PokerError::CardText {
            what,
            text: text.to_owned(),
            error,
        },
    }
}

fn binomial(n: u128, k: u128) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// One player's result, as fractions of all deals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerEquity {
    /// The player's hand.
    pub seat: Seat,
    /// Fraction of deals the player wins alone.
    pub win: f64,
    /// Fraction of deals the player ties for the best hand (splits the pot).
    pub tie: f64,
    /// The player's expected share of the pot: `win` plus each tie's share (1/m of the pot
    /// when m players tie). The equities of all players sum to 1.
    pub equity: f64,
}

/// Equity of every player in a [`Spot`].
#[derive(Debug, Clone, PartialEq)]
pub struct EquityReport {
    /// Whether every deal was enumerated (otherwise Monte Carlo).
    pub exact: bool,
    /// Deals enumerated or simulated.
    pub trials: u64,
    /// One entry per seat, in the spot's order.
    pub players: Vec<PlayerEquity>,
    /// The integer tallies the fractions are computed from.
    pub tally: EquityTally,
}

/// Integer tallies over deals, index = seat; merging is exact and order-independent, so the
/// tallies of shards run separately add up to exactly the whole run's
/// ([`EquityTally::report`] then gives the same report).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EquityTally {
    /// Deals scored.
    pub deals: u64,
    /// Deals each seat won alone.
    pub wins: [u64; 9],
    /// Deals each seat tied for the best hand.
    pub ties: [u64; 9],
    /// Each seat's pot shares from ties, in units of 1/[`SHARE_UNIT`] of a pot.
    pub shares: [u64; 9],
}

type Tally = EquityTally;

/// Why an [`EquityTally`] read back (e.g. from a shard's report) cannot come from any run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("impossible equity tally: {0}")]
pub struct TallyError(String);

impl EquityTally {
    /// `self + other`, or `None` when a tally would overflow (tallies read back from files
    /// are added with this).
    pub fn checked_merge(self, other: EquityTally) -> Option<EquityTally> {
        let mut sum = EquityTally {
            deals: self.deals.checked_add(other.deals)?,
            ..EquityTally::default()
        };
        for i in 0..9 {
            sum.wins[i] = self.wins[i].checked_add(other.wins[i])?;
            sum.ties[i] = self.ties[i].checked_add(other.ties[i])?;
            sum.shares[i] = self.shares[i].checked_add(other.shares[i])?;
        }
        Some(sum)
    }

    /// Checks that these tallies can come from `deals` scored deals among `players` seats:
    /// every deal has one winner or a tie whose shares add up to one pot, so Σ (wins ·
    /// [`SHARE_UNIT`] + shares) = deals · `SHARE_UNIT`; no seat wins or ties more than every
    /// deal; a tie's share lies between 1/`players` and 1/2 of a pot; seats past `players`
    /// have nothing.
    ///
    /// ```
    /// use fairdeal_poker::{EquityTally, SHARE_UNIT};
    /// let mut t = EquityTally { deals: 3, ..EquityTally::default() };
    /// t.wins[0] = 2;
    /// t.ties[0] = 1;
    /// t.ties[1] = 1;
    /// t.shares[0] = SHARE_UNIT / 2;
    /// t.shares[1] = SHARE_UNIT / 2;
    /// assert!(t.check(3, 2).is_ok());
    /// t.wins[0] += 1;
    /// assert!(t.check(3, 2).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// [`TallyError`] naming the first identity or bound that fails.
    pub fn check(&self, deals: u64, players: usize) -> Result<(), TallyError> {
        let fail = |why: String| Err(TallyError(why));
        if !(2..=9).contains(&players) {
            return fail(format!("{players} players (2 to 9 play)"));
        }
        if self.deals != deals {
            return fail(format!("{} deals where {deals} were dealt", self.deals));
        }
        let unit = u128::from(SHARE_UNIT);
        let mut pots = 0u128;
        for i in 0..9 {
            let (wins, ties, shares) = (
                u128::from(self.wins[i]),
                u128::from(self.ties[i]),
                u128::from(self.shares[i]),
            );
            if i >= players && wins + ties + shares > 0 {
                return fail(format!("tallies for seat {} of {players}", i + 1));
            }
            if wins + ties > u128::from(deals) {
                return fail(format!(
                    "seat {} wins {wins} and ties {ties} of {deals} deals",
                    i + 1
                ));
            }
            let players = players as u128;
            if shares * 2 > ties * unit || shares * players < ties * unit {
                return fail(format!(
                    "seat {} has {shares} pot shares from {ties} ties",
                    i + 1
                ));
            }
            pots += wins * unit + shares;
        }
        if pots != u128::from(deals) * unit {
            return fail(format!(
                "the seats share {pots}/{SHARE_UNIT} pots of {deals} deals"
            ));
        }
        // The deals nobody won alone were ties of two to `players` seats each.
        let tied_deals = u128::from(deals) - self.wins.iter().map(|&w| u128::from(w)).sum::<u128>();
        let ties: u128 = self.ties.iter().map(|&t| u128::from(t)).sum();
        if ties < 2 * tied_deals || ties > players as u128 * tied_deals {
            return fail(format!("{ties} tied seats in {tied_deals} tied deals"));
        }
        Ok(())
    }

    /// Adds two tallies.
    pub fn merge(mut self, other: EquityTally) -> EquityTally {
        self.deals += other.deals;
        for i in 0..9 {
            self.wins[i] += other.wins[i];
            self.ties[i] += other.ties[i];
            self.shares[i] += other.shares[i];
        }
        self
    }

    /// Scores one complete deal: `board` holds five cards, `holes[..n]` two each.
    #[inline]
    fn showdown(&mut self, t: &Tables, board: Acc, holes: &[Acc]) {
        let mut values = [crate::HandValue::default(); 9];
        let mut best = crate::HandValue::default();
        for (v, &h) in values.iter_mut().zip(holes) {
            *v = t.value7(board.join(h));
            best = best.max(*v);
        }
        let winners = values[..holes.len()].iter().filter(|&&v| v == best).count() as u64;
        self.deals += 1;
        for (i, &v) in values[..holes.len()].iter().enumerate() {
            if v == best {
                if winners == 1 {
                    self.wins[i] += 1;
                } else {
                    self.ties[i] += 1;
                    self.shares[i] += SHARE_UNIT / winners;
                }
            }
        }
    }

    /// The report of these tallies for `spot`'s seats (`exact`: whether every deal was
    /// visited): the one function every equity report comes from.
    pub fn report(&self, spot: &Spot, exact: bool) -> EquityReport {
        let n = self.deals.max(1) as f64;
        let players = spot
            .seats
            .iter()
            .enumerate()
            .map(|(i, &seat)| PlayerEquity {
                seat,
                win: self.wins[i] as f64 / n,
                tie: self.ties[i] as f64 / n,
                equity: (self.wins[i] * SHARE_UNIT + self.shares[i]) as f64
                    / (SHARE_UNIT as f64 * n),
            })
            .collect();
        EquityReport {
            exact,
            trials: self.deals,
            players,
            tally: *self,
        }
    }
}

/// The fixed part of an enumeration: cards left, which seats are random.
struct Layout<'a> {
    t: &'a Tables,
    cards: Vec<Card>,
    holes: [Acc; 9],
    players: usize,
    random: Vec<usize>,
}

impl Layout<'_> {
    /// Chooses the rest of the board (combinations in index order from `start`), then the
    /// random seats' hands.
    fn board(&self, start: usize, need: usize, board: Acc, used: CardSet, tally: &mut Tally) {
        if need == 0 {
            let mut holes = self.holes;
            self.seat(0, board, used, &mut holes, tally);
            return;
        }
        for i in start..=self.cards.len() - need {
            let card = self.cards[i];
            let mut used2 = used;
            used2.insert(card);
            self.board(i + 1, need - 1, board.add(card), used2, tally);
        }
    }

    /// Gives random seat number `r` every pair of unused cards, in turn.
    fn seat(&self, r: usize, board: Acc, used: CardSet, holes: &mut [Acc; 9], tally: &mut Tally) {
        if r == self.random.len() {
            tally.showdown(self.t, board, &holes[..self.players]);
            return;
        }
        let free: Vec<Card> = self
            .cards
            .iter()
            .copied()
            .filter(|&c| !used.contains(c))
            .collect();
        for (i, &a) in free.iter().enumerate() {
            for &b in &free[i + 1..] {
                let mut used2 = used;
                used2.insert(a);
                used2.insert(b);
                holes[self.random[r]] = Acc::EMPTY.add(a).add(b);
                self.seat(r + 1, board, used2, holes, tally);
            }
        }
    }
}

fn layout(spot: &Spot) -> (Layout<'static>, Acc) {
    let mut holes = [Acc::EMPTY; 9];
    let mut random = Vec::new();
    for (i, seat) in spot.seats.iter().enumerate() {
        match seat {
            Seat::Known([a, b]) => holes[i] = Acc::EMPTY.add(*a).add(*b),
            Seat::Random => random.push(i),
        }
    }
    let board = spot.board.iter().fold(Acc::EMPTY, |a, &c| a.add(c));
    let layout = Layout {
        t: tables(),
        cards: spot.remaining.iter().collect(),
        holes,
        players: spot.seats.len(),
        random,
    };
    (layout, board)
}

/// Exact equity: visits every completion of the board and every hand of the random seats
/// (all equally likely) and scores each showdown. Parallel over the first card dealt; the
/// tallies are integers, so the result is identical on any thread count.
///
/// ```
/// use fairdeal_poker::{Spot, equity_exact};
/// // Flop 2c 7d 9h: a set of nines against a pair of aces, 990 turn-river pairs.
/// let spot = Spot::parse(&["9s9d", "AsAh"], "2c7d9h", "")?;
/// let r = equity_exact(&spot)?;
/// assert_eq!(r.trials, 990);
/// assert!(r.players[0].equity > 0.9);
/// # Ok::<(), fairdeal_poker::PokerError>(())
/// ```
///
/// # Errors
///
/// [`PokerError::TooManyOutcomes`] when [`Spot::exact_outcomes`] exceeds [`EXACT_LIMIT`].
pub fn equity_exact(spot: &Spot) -> Result<EquityReport, PokerError> {
    let outcomes = spot.exact_outcomes();
    if outcomes > EXACT_LIMIT {
        return Err(PokerError::TooManyOutcomes {
            outcomes,
            limit: EXACT_LIMIT,
        });
    }
    let (lay, board) = layout(spot);
    let need = 5 - spot.board.len();
    let tally = if need > 0 {
        // Split on the first board card.
        (0..=lay.cards.len() - need)
            .into_par_iter()
            .map(|i| {
                let mut tally = Tally::default();
                let card = lay.cards[i];
                let mut used = CardSet::new();
                used.insert(card);
                lay.board(i + 1, need - 1, board.add(card), used, &mut tally);
                tally
            })
            .reduce(Tally::default, Tally::merge)
    } else {
        let mut tally = Tally::default();
        lay.board(0, 0, board, CardSet::new(), &mut tally);
        tally
    };
    Ok(tally.report(spot, true))
}

/// How a Monte Carlo equity run is set up: the trial count, the seed and an optional progress
/// callback, named so that the count and the seed cannot be swapped silently.
///
/// ```
/// let config = fairdeal_poker::EquityConfig { trials: 20_000, seed: 7, ..Default::default() };
/// assert!(config.progress.is_none());
/// ```
#[derive(Clone, Copy, Default)]
pub struct EquityConfig<'a> {
    /// Deals to simulate (Monte Carlo only; an exact enumeration visits every deal).
    pub trials: u64,
    /// The run's seed: chunk `c` draws from `rng_factory(stream_seed(seed, c))`.
    pub seed: u64,
    /// Called after each chunk with the trials it ran (e.g. to advance a progress bar).
    pub progress: Option<Progress<'a>>,
    /// Run only this shard's chunks ([`Shard::chunk_range`]); `None` runs them all. The
    /// shards' tallies add up to exactly the whole run's.
    pub shard: Option<Shard>,
}

impl fmt::Debug for EquityConfig<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EquityConfig")
            .field("trials", &self.trials)
            .field("seed", &self.seed)
            .field("progress", &self.progress.map(|_| "Fn(u64)"))
            .field("shard", &self.shard)
            .finish()
    }
}

/// Monte Carlo equity: `config.trials` deals, each `shuffle_prefix` of the remaining deck
/// (reused, never restored) for the random hands and the rest of the board.
///
/// Chunk `c` of [`EQUITY_CHUNK`] trials draws from `rng_factory(stream_seed(seed, c))`, so the
/// result is the same on any thread count. Runs on the caller's rayon pool.
///
/// # Errors
///
/// [`PokerError::NoTrials`] when `trials == 0`, [`PokerError::TooManyTrials`] above
/// [`MAX_EQUITY_TRIALS`], [`PokerError::Shard`] when `config.shard` has no chunks of the run.
pub fn equity_monte_carlo<S, R, F>(
    spot: &Spot,
    shuffler: &S,
    rng_factory: F,
    config: &EquityConfig<'_>,
) -> Result<EquityReport, PokerError>
where
    S: Shuffler + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    let EquityConfig {
        trials,
        seed,
        progress,
        shard,
    } = *config;
    if trials == 0 {
        return Err(PokerError::NoTrials);
    }
    if trials > MAX_EQUITY_TRIALS {
        return Err(PokerError::TooManyTrials {
            trials,
            max: MAX_EQUITY_TRIALS,
        });
    }
    let (lay, board) = layout(spot);
    let plan = ChunkPlan::new(trials, EQUITY_CHUNK, seed);
    let range = plan.shard_range(shard)?;
    let work = DealSpots {
        lay,
        board,
        need: spot.to_deal(),
        board_need: 5 - spot.board.len(),
        shuffler,
        rng_factory,
    };
    let tally = run_parallel(&work, &plan, range, progress)?;
    Ok(tally.report(spot, false))
}

/// One chunk of [`equity_monte_carlo`]: its deals, each `shuffle_prefix` of the remaining
/// deck (reused within the chunk, never restored), shown down into a tally.
struct DealSpots<'a, S, F> {
    lay: Layout<'static>,
    board: Acc,
    /// Cards each deal draws: the rest of the board, then two per random seat.
    need: usize,
    board_need: usize,
    shuffler: &'a S,
    rng_factory: F,
}

impl<S, R, F> ChunkWork for DealSpots<'_, S, F>
where
    S: Shuffler,
    R: Rng,
    F: Fn(u64) -> R,
{
    type Tally = Tally;
    type Error = PokerError;

    fn empty(&self) -> Tally {
        Tally::default()
    }

    fn run(&self, chunk: &Chunk, tally: &mut Tally) -> Result<(), PokerError> {
        let lay = &self.lay;
        let mut rng = (self.rng_factory)(chunk.seed);
        let mut deck = lay.cards.clone();
        let mut holes = lay.holes;
        for _ in 0..chunk.units {
            self.shuffler
                .shuffle_prefix(&mut deck, self.need, &mut rng)?;
            let full = deck[..self.board_need]
                .iter()
                .fold(self.board, |a, &c| a.add(c));
            for (j, &seat) in lay.random.iter().enumerate() {
                let k = self.board_need + 2 * j;
                holes[seat] = Acc::EMPTY.add(deck[k]).add(deck[k + 1]);
            }
            tally.showdown(lay.t, full, &holes[..lay.players]);
        }
        Ok(())
    }

    fn merge(&self, into: &mut Tally, later: Tally) {
        *into = core::mem::take(into).merge(later);
    }
}

/// Exact equity when the spot has at most [`AUTO_EXACT_LIMIT`] deals, otherwise
/// [`equity_monte_carlo`] with `config.trials` deals.
///
/// ```
/// use fairdeal_poker::{EquityConfig, Spot, equity};
/// use rand::{SeedableRng, rngs::StdRng};
/// let spot = Spot::parse(&["AsKs", "random", "random"], "", "")?;
/// let config = EquityConfig { trials: 20_000, seed: 7, ..EquityConfig::default() };
/// let r = equity(&spot, &fairdeal_partial::Partial::new(), StdRng::seed_from_u64, &config)?;
/// assert!(!r.exact);
/// let total: f64 = r.players.iter().map(|p| p.equity).sum();
/// assert!((total - 1.0).abs() < 1e-9);
/// # Ok::<(), fairdeal_poker::PokerError>(())
/// ```
///
/// # Errors
///
/// As [`equity_monte_carlo`].
pub fn equity<S, R, F>(
    spot: &Spot,
    shuffler: &S,
    rng_factory: F,
    config: &EquityConfig<'_>,
) -> Result<EquityReport, PokerError>
where
    S: Shuffler + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    if spot.exact_outcomes() <= AUTO_EXACT_LIMIT {
        equity_exact(spot)
    } else {
        equity_monte_carlo(spot, shuffler, rng_factory, config)
    }
}
