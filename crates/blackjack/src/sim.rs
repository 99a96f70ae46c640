//! Monte Carlo simulation: many rounds from a real shoe, in reproducible parallel chunks.

use core::ops::Range;

use fairdeal_core::{Chunk, ChunkPlan, ChunkWork, Rng, Shard, ShardError, Shuffler, run_parallel};

use crate::count::{Betting, hi_lo_tag, true_count_floor};
use crate::exact::CompositionStrategy;
use crate::game::{Engine, Scratch};
use crate::shoe::ValueShoe;
use crate::strategy::Strategy;
use crate::tally::{CardSource, Counts};

/// Rounds per chunk. Chunk `c` is played from a fresh shoe with an RNG made from
/// `stream_seed(seed, c)`, so the result of a run depends on the seed and the round count only
/// — never on the thread count, and chunk ranges may be run on different machines and merged.
///
/// Each chunk stops after this many rounds, usually mid-shoe; the effect on the cut-card
/// statistics is one truncated shoe in about nine thousand (6 decks), far below the noise.
pub const CHUNK_ROUNDS: u64 = 1 << 16;

/// What a progress callback receives: the number of rounds a chunk just finished. It is called
/// from any worker thread, once per chunk, and never changes a result (the chunk driver's,
/// [`fairdeal_core::Progress`], as in `fairdeal-poker`).
pub use fairdeal_core::Progress;

/// What to simulate: the named arguments of [`simulate`] and [`simulate_chunks`] (so the round
/// count and the seed cannot be swapped silently).
///
/// There is no thread count: a run uses the caller's rayon pool (wrap the call in
/// `ThreadPool::install` to choose one), and its result does not depend on it.
///
/// ```
/// use fairdeal_blackjack::{Betting, SimConfig};
/// let config = SimConfig { rounds: 100_000, seed: 7, ..SimConfig::default() };
/// assert_eq!(config.betting, Betting::Flat);
/// assert!(config.progress.is_none());
/// ```
#[derive(Clone, Copy)]
pub struct SimConfig<'a> {
    /// Rounds to deal (each round plays every seat).
    pub rounds: u64,
    /// Master seed; chunk `c` uses `stream_seed(seed, c)`.
    pub seed: u64,
    /// Flat betting or a Hi-Lo bet ramp.
    pub betting: Betting,
    /// Called after each chunk with the rounds it dealt (e.g. to advance a progress bar).
    pub progress: Option<Progress<'a>>,
}

impl Default for SimConfig<'_> {
    fn default() -> Self {
        SimConfig {
            rounds: 1_000_000,
            seed: 0,
            betting: Betting::Flat,
            progress: None,
        }
    }
}

impl core::fmt::Debug for SimConfig<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SimConfig")
            .field("rounds", &self.rounds)
            .field("seed", &self.seed)
            .field("betting", &self.betting)
            .field("progress", &self.progress.map(|_| "Fn(u64)"))
            .finish()
    }
}

impl SimConfig<'_> {
    /// Number of chunks the run is split into.
    pub fn chunks(&self) -> u64 {
        self.plan().chunks()
    }

    /// The run's layout for the chunk driver: `rounds` in chunks of [`CHUNK_ROUNDS`], chunk
    /// `c` seeded with `stream_seed(seed, c)`.
    pub fn plan(&self) -> ChunkPlan {
        ChunkPlan::new(self.rounds, CHUNK_ROUNDS, self.seed)
    }

    /// The chunks `shard` runs ([`Shard::chunk_range`] of [`chunks`](SimConfig::chunks)), to
    /// pass to [`simulate_chunks`]; the shards' results [`merge`](SimResult::merge) into the
    /// whole run's.
    ///
    /// ```
    /// use fairdeal_blackjack::{CHUNK_ROUNDS, SimConfig};
    /// use fairdeal_core::Shard;
    /// let config = SimConfig { rounds: 10 * CHUNK_ROUNDS, ..SimConfig::default() };
    /// assert_eq!(config.shard_chunks(Shard::new(1, 3)?)?, 0..3);
    /// assert_eq!(config.shard_chunks(Shard::new(3, 3)?)?, 6..10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SimError::Shard`] when there are more shards than chunks.
    pub fn shard_chunks(&self, shard: Shard) -> Result<Range<u64>, SimError> {
        Ok(shard.chunk_range(self.chunks())?)
    }
}

/// Why a simulation could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimError {
    /// Zero rounds requested.
    #[error("the number of rounds must be at least 1")]
    NoRounds,
    /// A chunk range outside `0..config.chunks()` or empty.
    #[error("chunk range {start}..{end} is not inside 0..{chunks}")]
    BadChunkRange {
        /// Requested start.
        start: u64,
        /// Requested end.
        end: u64,
        /// Chunks in the run.
        chunks: u64,
    },
    /// The rules were rejected (the strategy's rules are always valid, so only a bad bet ramp).
    #[error(transparent)]
    Rules(#[from] crate::RulesError),
    /// An invalid bet ramp.
    #[error(transparent)]
    Betting(#[from] crate::count::BetRampError),
    /// Two results that cannot be merged (different runs or overlapping chunks).
    #[error("cannot merge results: {0}")]
    Merge(&'static str),
    /// A shard with no chunks of this run.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Tallies read back (e.g. from a shard's report) that no run of these chunks, rules and
    /// betting can produce.
    #[error("impossible tallies for chunks {start}..{end}: {why}")]
    Tallies {
        /// First chunk of the part.
        start: u64,
        /// One past its last chunk.
        end: u64,
        /// The identity or bound the tallies break.
        why: String,
    },
}

/// Exact sums over rounds, the sufficient statistics of [`SimResult`]'s edge and standard
/// error: money in tenths of a unit (every payout is a multiple of 0.1 unit), so they add up
/// exactly in any order and across separately run shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SimSums {
    /// Σ initial wager of a round (units).
    pub wager: u64,
    /// Σ net result of a round (tenths of a unit).
    pub net: i128,
    /// Σ net² (tenths²).
    pub net2: u128,
    /// Σ wager² (units²).
    pub wager2: u128,
    /// Σ net·wager (tenths·units).
    pub net_wager: i128,
}

type Sums = SimSums;

impl Sums {
    #[inline]
    fn add(&mut self, net: i64, wager: u64) {
        self.wager += wager;
        self.net += i128::from(net);
        self.net2 += u128::from(net.unsigned_abs()) * u128::from(net.unsigned_abs());
        self.wager2 += u128::from(wager) * u128::from(wager);
        self.net_wager += i128::from(net) * i128::from(wager);
    }

    fn merge(&mut self, o: &Sums) {
        self.wager += o.wager;
        self.net += o.net;
        self.net2 += o.net2;
        self.wager2 += o.wager2;
        self.net_wager += o.net_wager;
    }

    fn checked_merge(&self, o: &Sums) -> Option<Sums> {
        Some(Sums {
            wager: self.wager.checked_add(o.wager)?,
            net: self.net.checked_add(o.net)?,
            net2: self.net2.checked_add(o.net2)?,
            wager2: self.wager2.checked_add(o.wager2)?,
            net_wager: self.net_wager.checked_add(o.net_wager)?,
        })
    }
}

/// The most a hand can win or lose, in tenths of its bet: a double (a natural pays at most
/// 3:2, 15 tenths).
const MAX_TENTHS_PER_HAND: u128 = 20;

/// Why tallies with `counts` and `sums` cannot come from `rounds` rounds of `rules` with
/// `betting`, or `None` when every identity and bound holds. Each check is exact integer
/// arithmetic in 128 bits (a product that overflows even that is itself impossible).
fn impossible_tallies(
    counts: &Counts,
    sums: &Sums,
    rounds: u64,
    rules: &crate::Rules,
    betting: &Betting,
) -> Option<String> {
    let wide = u128::from;
    let (r, h) = (wide(counts.rounds), wide(counts.hands));
    let seats = wide(u64::from(rules.seats));
    let (bet_min, bet_max) = match betting {
        Betting::Flat => (1, 1),
        Betting::HiLo(ramp) => (wide(u64::from(ramp.min)), wide(u64::from(ramp.max))),
    };
    let seat_rounds = r * seats;
    let max_hands = seat_rounds * wide(u64::from(rules.max_split_hands));
    if counts.rounds != rounds {
        return Some(format!(
            "{} rounds where these chunks deal {rounds}",
            counts.rounds
        ));
    }
    // Every seat starts a round with one hand and each split adds one.
    if wide(counts.splits) > max_hands - seat_rounds || h != seat_rounds + wide(counts.splits) {
        return Some(format!(
            "{} hands and {} splits from {} rounds of {} seats (one hand per seat and round \
             plus one per split, at most {} per seat)",
            counts.hands, counts.splits, counts.rounds, rules.seats, rules.max_split_hands
        ));
    }
    let settled =
        wide(counts.wins) + wide(counts.losses) + wide(counts.pushes) + wide(counts.surrenders);
    if settled != h {
        return Some(format!(
            "wins + losses + pushes + surrenders = {settled}, not the {} hands",
            counts.hands
        ));
    }
    for (name, count, most) in [
        ("blackjacks", counts.blackjacks, seat_rounds),
        ("surrenders", counts.surrenders, seat_rounds),
        ("dealer_blackjacks", counts.dealer_blackjacks, r),
        ("busts", counts.busts, wide(counts.losses)),
        ("doubles", counts.doubles, h),
    ] {
        if wide(count) > most {
            return Some(format!("{count} {name}, more than the {most} possible"));
        }
    }
    let wager = wide(sums.wager);
    if wager < seat_rounds * bet_min || wager > seat_rounds * bet_max {
        return Some(format!(
            "initial wagers of {wager} units for {seat_rounds} bets of {bet_min} to {bet_max}              units"
        ));
    }
    // Σ w² lies between (Σ w)² / r (Cauchy–Schwarz) and r · (seats · max bet)².
    let wager2_max = r * (seats * bet_max) * (seats * bet_max);
    let wager2_fits = wager
        .checked_mul(wager)
        .is_some_and(|w2| w2 <= r.saturating_mul(sums.wager2));
    if !wager2_fits || sums.wager2 > wager2_max {
        return Some(format!(
            "a sum of squared wagers of {} for wagers of {wager} over {r} rounds",
            sums.wager2
        ));
    }
    // |Σ net| ≤ 20 tenths per hand at the largest bet, (Σ net)² ≤ r · Σ net², and no round
    // nets more than every hand of every seat doubled at the largest bet.
    let net = sums.net.unsigned_abs();
    let round_max = MAX_TENTHS_PER_HAND * bet_max * seats * wide(u64::from(rules.max_split_hands));
    let net2_fits = net
        .checked_mul(net)
        .is_some_and(|n2| n2 <= r.saturating_mul(sums.net2));
    if net > MAX_TENTHS_PER_HAND * bet_max * h
        || !net2_fits
        || sums.net2 > r * round_max * round_max
    {
        return Some(format!(
            "a net of {} tenths with a sum of squares of {} over {r} rounds",
            sums.net, sums.net2
        ));
    }
    // With flat bets Σ net·w is Σ net · seats exactly; otherwise |Σ net·w| ≤ √(Σ net²) ·
    // √(Σ w²) (Cauchy–Schwarz).
    let cross_ok = match betting {
        Betting::Flat => {
            i128::try_from(seats)
                .ok()
                .and_then(|s| sums.net.checked_mul(s))
                == Some(sums.net_wager)
        }
        Betting::HiLo(_) => {
            sums.net_wager.unsigned_abs()
                <= (sums.net2.isqrt() + 1).saturating_mul(sums.wager2.isqrt() + 1)
        }
    };
    if !cross_ok {
        return Some(format!(
            "a sum of net × wager of {} for a net of {} tenths",
            sums.net_wager, sums.net
        ));
    }
    None
}

/// The result of a simulation (or of a range of its chunks).
///
/// A *round* is one deal of the table; its result is the sum over all seats, so with several
/// seats (which share the dealer's hand and are correlated) the standard error is still
/// computed from independent observations. All sums are exact integers, so merging is
/// associative and a result never depends on the thread count.
#[derive(Debug, Clone, PartialEq)]
pub struct SimResult {
    /// The seed of the run.
    pub seed: u64,
    /// Rounds the whole run was configured for (fixes the chunk layout).
    pub configured_rounds: u64,
    /// The chunks included.
    pub chunks: Range<u64>,
    /// Outcome counts.
    pub counts: Counts,
    sums: Sums,
}

impl SimResult {
    /// Rounds included.
    pub fn rounds(&self) -> u64 {
        self.counts.rounds
    }

    /// Total initial wagers, in units (each seat's bet at the start of each round).
    pub fn initial_wagers(&self) -> u64 {
        self.sums.wager
    }

    /// Players' net result in units (positive = players won).
    pub fn net_units(&self) -> f64 {
        self.sums.net as f64 / 10.0
    }

    /// House edge in percent of initial wagers: `-100 × net / wagers` (positive = the house
    /// wins).
    pub fn house_edge_percent(&self) -> f64 {
        if self.sums.wager == 0 {
            return 0.0;
        }
        -100.0 * (self.sums.net as f64 / 10.0) / self.sums.wager as f64
    }

    /// Standard deviation of one round's net result, in units; NaN (undefined) with fewer
    /// than two rounds.
    pub fn sd_per_round(&self) -> f64 {
        let n = self.counts.rounds as f64;
        if n < 2.0 {
            return f64::NAN;
        }
        let mean = self.sums.net as f64 / 10.0 / n;
        let mean2 = self.sums.net2 as f64 / 100.0 / n;
        ((mean2 - mean * mean) * n / (n - 1.0)).max(0.0).sqrt()
    }

    /// Standard error of [`house_edge_percent`](SimResult::house_edge_percent), in percent.
    ///
    /// The edge is a ratio of two means (net over wager); its delta-method variance is
    /// `Var(x − r·w) / (n · w̄²)` with `r` the ratio. With flat one-unit bets this is the
    /// familiar `sd / √n`. NaN (undefined) with fewer than two rounds: one round says
    /// nothing about the spread.
    pub fn std_error_percent(&self) -> f64 {
        let n = self.counts.rounds as f64;
        if n < 2.0 || self.sums.wager == 0 {
            return f64::NAN;
        }
        let w_mean = self.sums.wager as f64 / n;
        let r = self.sums.net as f64 / 10.0 / self.sums.wager as f64;
        let exx = self.sums.net2 as f64 / 100.0 / n;
        let exw = self.sums.net_wager as f64 / 10.0 / n;
        let eww = self.sums.wager2 as f64 / n;
        let var = (exx - 2.0 * r * exw + r * r * eww).max(0.0) * n / (n - 1.0);
        100.0 * (var / n).sqrt() / w_mean
    }

    /// The exact sums the derived statistics are computed from.
    pub fn sums(&self) -> SimSums {
        self.sums
    }

    /// The result of chunks `chunks` of the run `config` describes, played under `rules`,
    /// from its tallies: e.g. a shard run as a separate process and read back from its
    /// report. Its derived statistics are computed by the same methods as a whole run's.
    ///
    /// The tallies are checked against what those chunks can produce: the exact number of
    /// rounds, hands between one and `max_split_hands` per seat and round, wins + losses +
    /// pushes + surrenders = hands, the other counts within theirs, wagers within the bet
    /// ramp, and the sums within their possible range (Cauchy–Schwarz between each sum and
    /// its sum of squares).
    ///
    /// ```
    /// use fairdeal_blackjack::{Rules, SimConfig, SimResult, Strategy, simulate};
    /// use rand::SeedableRng;
    /// let rules = Rules::default();
    /// let config = SimConfig { rounds: 5_000, seed: 3, ..SimConfig::default() };
    /// let run = simulate(&Strategy::basic(&rules)?, &config, &fairdeal_partial::Partial::new(),
    ///     rand::rngs::StdRng::seed_from_u64)?;
    /// let back = SimResult::from_tallies(&config, &rules, run.chunks.clone(), run.counts, run.sums())?;
    /// assert_eq!(back, run);
    /// let mut more = run.counts;
    /// more.wins += 1;
    /// assert!(SimResult::from_tallies(&config, &rules, run.chunks.clone(), more, run.sums()).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SimError::BadChunkRange`] when `chunks` is not a non-empty range of the run's chunks,
    /// [`SimError::Tallies`] when the tallies break an identity or bound.
    pub fn from_tallies(
        config: &SimConfig<'_>,
        rules: &crate::Rules,
        chunks: Range<u64>,
        counts: Counts,
        sums: SimSums,
    ) -> Result<SimResult, SimError> {
        let plan = config.plan();
        if !plan.holds(&chunks) {
            return Err(SimError::BadChunkRange {
                start: chunks.start,
                end: chunks.end,
                chunks: plan.chunks(),
            });
        }
        let rounds = plan.units_in(&chunks);
        if let Some(why) = impossible_tallies(&counts, &sums, rounds, rules, &config.betting) {
            return Err(SimError::Tallies {
                start: chunks.start,
                end: chunks.end,
                why,
            });
        }
        Ok(SimResult {
            seed: config.seed,
            configured_rounds: config.rounds,
            chunks,
            counts,
            sums,
        })
    }

    /// Adds another part of the same run (same seed and configured rounds, adjacent chunks).
    ///
    /// # Errors
    ///
    /// [`SimError::Merge`] if the parts belong to different runs, are not adjacent, or their
    /// tallies would overflow (parts read back from files may be anything).
    pub fn merge(&mut self, other: &SimResult) -> Result<(), SimError> {
        if self.seed != other.seed || self.configured_rounds != other.configured_rounds {
            return Err(SimError::Merge("different seed or round count"));
        }
        let chunks = if other.chunks.start == self.chunks.end {
            self.chunks.start..other.chunks.end
        } else if other.chunks.end == self.chunks.start {
            other.chunks.start..self.chunks.end
        } else {
            return Err(SimError::Merge("chunk ranges are not adjacent"));
        };
        let counts = self.counts.checked_merge(&other.counts);
        let sums = self.sums.checked_merge(&other.sums);
        let (Some(counts), Some(sums)) = (counts, sums) else {
            return Err(SimError::Merge("the tallies overflow"));
        };
        *self = SimResult {
            chunks,
            counts,
            sums,
            ..self.clone()
        };
        Ok(())
    }
}

/// A shoe plus an RNG plus (when `COUNT`) a Hi-Lo running count, as the engine's card source.
struct ShoeSource<'a, S, R: ?Sized, const COUNT: bool> {
    shoe: &'a mut ValueShoe<S>,
    rng: &'a mut R,
    running: i32,
}

impl<'a, S, R: ?Sized> ShoeSource<'a, S, R, false> {
    /// A source that deals from `shoe` without keeping a running count.
    fn uncounted(shoe: &'a mut ValueShoe<S>, rng: &'a mut R) -> Self {
        ShoeSource {
            shoe,
            rng,
            running: 0,
        }
    }
}

impl<S: Shuffler, R: Rng + ?Sized, const COUNT: bool> CardSource for ShoeSource<'_, S, R, COUNT> {
    #[inline]
    fn next_value(&mut self) -> u8 {
        let v = self.shoe.draw(self.rng);
        if COUNT {
            self.running += hi_lo_tag(v);
        }
        v
    }

    #[inline]
    fn next_values<const N: usize>(&mut self) -> [u8; N] {
        let values = self.shoe.draw_array(self.rng);
        if COUNT {
            for &v in &values {
                self.running += hi_lo_tag(v);
            }
        }
        values
    }

    #[inline]
    fn peek<const N: usize>(&self) -> Option<([u8; N], usize)> {
        self.shoe.peek()
    }

    #[inline]
    fn skip(&mut self, n: usize) {
        let dealt = self.shoe.skip(n);
        if COUNT {
            for &v in dealt {
                self.running += hi_lo_tag(v);
            }
        }
    }
}

/// Plays `rounds` rounds from a fresh shoe with `rng`; the building block of every run.
fn play_chunk<S, R>(
    engine: &Engine<'_>,
    shoe: &mut ValueShoe<S>,
    rng: &mut R,
    rounds: u64,
    betting: &Betting,
    seats: u64,
) -> (Counts, Sums)
where
    S: Shuffler,
    R: Rng + ?Sized,
{
    let mut counts = Counts::default();
    let mut sums = Sums::default();
    let mut running = 0i32;
    let mut scratch = Scratch::new();
    if let Betting::Flat = betting {
        // Flat bets: every round wagers `seats` units, so the per-round sums need only Σ net
        // and Σ net², which fit in 64 bits for a chunk (|net| ≤ 7 seats × 8 hands × 20 tenths
        // per round, so Σ net² ≤ 1120² × 2¹⁶ < 2⁴¹); the wager terms follow exactly at the end.
        debug_assert!(rounds <= CHUNK_ROUNDS);
        let (mut net_sum, mut net2_sum) = (0i64, 0u64);
        for _ in 0..rounds {
            shoe.start_round(rng);
            let mut src = ShoeSource::uncounted(shoe, rng);
            let net = engine.play_round(&mut src, 1, &mut counts, &mut scratch);
            net_sum += net;
            net2_sum += net.unsigned_abs() * net.unsigned_abs();
        }
        let wager = u128::from(seats);
        sums.wager = rounds * seats;
        sums.net = i128::from(net_sum);
        sums.net2 = u128::from(net2_sum);
        sums.wager2 = u128::from(rounds) * wager * wager;
        sums.net_wager = i128::from(net_sum) * i128::from(seats);
        return (counts, sums);
    }
    for _ in 0..rounds {
        if shoe.start_round(rng) {
            running = 0;
        }
        let (net, bet) = match betting {
            Betting::Flat => {
                let mut src = ShoeSource::uncounted(shoe, rng);
                (engine.play_round(&mut src, 1, &mut counts, &mut scratch), 1)
            }
            Betting::HiLo(ramp) => {
                let bet = ramp.units(true_count_floor(running, shoe.remaining()));
                let mut src = ShoeSource::<S, R, true> { shoe, rng, running };
                let net = engine.play_round(&mut src, bet, &mut counts, &mut scratch);
                running = src.running;
                (net, bet)
            }
        };
        sums.add(net, u64::from(bet) * seats);
    }
    (counts, sums)
}

/// Runs the whole simulation: [`simulate_chunks`] over every chunk.
///
/// `make_rng(seed)` builds the generator of one chunk from its stream seed (for example
/// `|s| rand::rngs::StdRng::seed_from_u64(s)` or a `fairdeal-rng` backend's `seeded`).
///
/// # Errors
///
/// See [`SimError`].
pub fn simulate<S, R, F>(
    strategy: &Strategy,
    config: &SimConfig<'_>,
    shuffler: &S,
    make_rng: F,
) -> Result<SimResult, SimError>
where
    S: Shuffler + Clone + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    simulate_chunks(strategy, config, shuffler, make_rng, 0..config.chunks())
}

/// Runs chunks `chunks` of the simulation described by `config` in parallel on the caller's
/// rayon pool, calling `config.progress` (if any) with the rounds of each finished chunk.
///
/// The rules are the strategy's ([`Strategy::rules`]). Results of disjoint adjacent chunk
/// ranges of the same configuration [`merge`](SimResult::merge) into exactly the result of the
/// whole range.
///
/// # Errors
///
/// See [`SimError`].
pub fn simulate_chunks<S, R, F>(
    strategy: &Strategy,
    config: &SimConfig<'_>,
    shuffler: &S,
    make_rng: F,
    chunks: Range<u64>,
) -> Result<SimResult, SimError>
where
    S: Shuffler + Clone + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    let rules = *strategy.rules();
    run_chunks(
        &Engine::new(strategy),
        rules,
        config,
        shuffler,
        make_rng,
        chunks,
    )
}

/// [`simulate_chunks`] with composition-dependent play: every decision is the one the exact
/// analysis found best for the cards of the round (see [`CompositionStrategy`]). Each round
/// is dealt off the top of a freshly shuffled shoe (the strategy's rules have a continuous
/// shuffler and one seat), which is the game the exact analysis values.
///
/// # Errors
///
/// See [`SimError`].
pub fn simulate_composition_chunks<S, R, F>(
    strategy: &CompositionStrategy,
    config: &SimConfig<'_>,
    shuffler: &S,
    make_rng: F,
    chunks: Range<u64>,
) -> Result<SimResult, SimError>
where
    S: Shuffler + Clone + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    run_chunks(
        &Engine::with_composition(strategy),
        *strategy.rules(),
        config,
        shuffler,
        make_rng,
        chunks,
    )
}

/// One chunk of a simulation: its rounds played from a fresh shoe.
struct PlayRounds<'a, S, F> {
    engine: &'a Engine<'a>,
    rules: crate::Rules,
    betting: &'a Betting,
    shuffler: &'a S,
    make_rng: F,
}

impl<S, R, F> ChunkWork for PlayRounds<'_, S, F>
where
    S: Shuffler + Clone,
    R: Rng,
    F: Fn(u64) -> R,
{
    type Tally = (Counts, Sums);
    type Error = SimError;

    fn empty(&self) -> (Counts, Sums) {
        (Counts::default(), Sums::default())
    }

    fn run(&self, chunk: &Chunk, tally: &mut (Counts, Sums)) -> Result<(), SimError> {
        let mut rng = (self.make_rng)(chunk.seed);
        let mut shoe = ValueShoe::values(&self.rules, self.shuffler.clone())?;
        let seats = u64::from(self.rules.seats);
        let (counts, sums) = play_chunk(
            self.engine,
            &mut shoe,
            &mut rng,
            chunk.units,
            self.betting,
            seats,
        );
        self.merge(tally, (counts, sums));
        Ok(())
    }

    fn merge(&self, into: &mut (Counts, Sums), later: (Counts, Sums)) {
        into.0.merge(&later.0);
        into.1.merge(&later.1);
    }
}

fn run_chunks<S, R, F>(
    engine: &Engine<'_>,
    rules: crate::Rules,
    config: &SimConfig<'_>,
    shuffler: &S,
    make_rng: F,
    chunks: Range<u64>,
) -> Result<SimResult, SimError>
where
    S: Shuffler + Clone + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    if config.rounds == 0 {
        return Err(SimError::NoRounds);
    }
    let plan = config.plan();
    if !plan.holds(&chunks) {
        return Err(SimError::BadChunkRange {
            start: chunks.start,
            end: chunks.end,
            chunks: plan.chunks(),
        });
    }
    if let Betting::HiLo(ramp) = &config.betting {
        ramp.validate()?;
    }
    rules.validate()?;
    let work = PlayRounds {
        engine,
        rules,
        betting: &config.betting,
        shuffler,
        make_rng,
    };
    // Integer sums: any split of the chunks over any number of threads, reduced in any order,
    // gives the same result.
    let (counts, sums) = run_parallel(&work, &plan, chunks.clone(), config.progress)?;
    Ok(SimResult {
        seed: config.seed,
        configured_rounds: config.rounds,
        chunks,
        counts,
        sums,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{HoleCard, Payout, Rules, Surrender};
    use fairdeal_core::{IndexSampler, Lemire};
    use rand::SeedableRng;

    /// Cards drawn with replacement: the infinite deck the strategy's EVs assume.
    struct InfiniteDeck<R>(R);

    impl<R: Rng> CardSource for InfiniteDeck<R> {
        fn next_value(&mut self) -> u8 {
            (Lemire.index_below(&mut self.0, 13) as u8 + 1).min(10)
        }
    }

    fn infinite_run(rules: &Rules, rounds: u64, seed: u64) -> (f64, f64) {
        let strategy = Strategy::basic(rules).unwrap();
        let engine = Engine::new(&strategy);
        let mut src = InfiniteDeck(rand_pcg::Pcg64Mcg::seed_from_u64(seed));
        let mut counts = Counts::default();
        let mut sums = Sums::default();
        let mut scratch = Scratch::new();
        for _ in 0..rounds {
            let net = engine.play_round(&mut src, 1, &mut counts, &mut scratch);
            sums.add(net, u64::from(rules.seats));
        }
        let result = SimResult {
            seed,
            configured_rounds: rounds,
            chunks: 0..1,
            counts,
            sums,
        };
        (result.house_edge_percent(), result.std_error_percent())
    }

    /// The game engine dealt from an infinite deck must reproduce the exact infinite-deck
    /// return that the strategy computes analytically — across rule families that exercise
    /// every branch (ENHC, early and late surrender, resplit and hit split aces, 6:5).
    #[test]
    fn engine_matches_the_exact_infinite_deck_return() {
        let base = Rules::default();
        let families = [
            base,
            Rules {
                hits_soft_17: true,
                surrender: Surrender::Late,
                resplit_aces: true,
                ..base
            },
            Rules {
                hole_card: HoleCard::NoHoleCard,
                surrender: Surrender::Early,
                double_after_split: false,
                double: crate::DoubleRule::NineToEleven,
                max_split_hands: 3,
                ..base
            },
            Rules {
                surrender: Surrender::Early,
                hit_split_aces: true,
                payout: Payout::SixToFive,
                max_split_hands: 2,
                ..base
            },
        ];
        for (i, rules) in families.iter().enumerate() {
            let exact = -100.0 * Strategy::basic(rules).unwrap().infinite_deck_return();
            let (edge, se) = infinite_run(rules, 2_000_000, 100 + i as u64);
            let z = (edge - exact) / se;
            assert!(
                z.abs() < 4.5,
                "family {i}: simulated {edge:.4} ± {se:.4} vs exact {exact:.4} (z = {z:.2})"
            );
        }
    }

    /// Plays `rounds` rounds of `rules` from two identical seeded shoes, `fast`'s rules through
    /// `Engine::play_round` (the one-seat round) and `general`'s through the general round, and
    /// returns the first round whose net, counts or cards drawn differ, with the fast side's
    /// counts at the end.
    fn first_disagreement(
        fast: &Strategy,
        general: &Strategy,
        rounds: u64,
        seed: u64,
    ) -> (Option<u64>, Counts) {
        let rules = fast.rules();
        let (ea, eb) = (Engine::new(fast), Engine::new(general));
        let mut shoe_a = ValueShoe::values(rules, fairdeal_partial::Partial::new()).unwrap();
        let mut shoe_b = shoe_a.clone();
        let mut rng_a = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        let mut rng_b = rng_a.clone();
        let (mut ca, mut cb) = (Counts::default(), Counts::default());
        let (mut sa, mut sb) = (Scratch::new(), Scratch::new());
        for round in 0..rounds {
            shoe_a.start_round(&mut rng_a);
            shoe_b.start_round(&mut rng_b);
            let bet = 1 + (round % 3) as u32;
            let mut src_a = ShoeSource::uncounted(&mut shoe_a, &mut rng_a);
            let na = ea.play_round(&mut src_a, bet, &mut ca, &mut sa);
            let mut src_b = ShoeSource::uncounted(&mut shoe_b, &mut rng_b);
            let nb = eb.play_round_general(&mut src_b, bet, &mut cb, &mut sb);
            if na != nb || ca != cb || shoe_a.dealt() != shoe_b.dealt() {
                return (Some(round), ca);
            }
        }
        (None, ca)
    }

    /// The one-seat round (chart play, splits handed to the general seat loop) is the general
    /// round, round by round: same net, same counts, same cards drawn, over rule families that
    /// reach every branch (peek and no hole card, early and late surrender, resplit and hit
    /// split aces, no DAS, H17, 6:5, one deck and a continuous shuffler).
    #[test]
    fn one_seat_round_equals_the_general_round() {
        let base = Rules::default();
        let families = [
            base,
            Rules {
                hits_soft_17: true,
                surrender: Surrender::Late,
                resplit_aces: true,
                penetration: crate::Penetration::Continuous,
                ..base
            },
            Rules {
                hole_card: HoleCard::NoHoleCard,
                surrender: Surrender::Early,
                double_after_split: false,
                double: crate::DoubleRule::NineToEleven,
                max_split_hands: 3,
                ..base
            },
            Rules {
                decks: 1,
                surrender: Surrender::Early,
                hit_split_aces: true,
                payout: Payout::SixToFive,
                max_split_hands: 2,
                ..base
            },
            Rules {
                hole_card: HoleCard::NoHoleCard,
                max_split_hands: 8,
                resplit_aces: true,
                ..base
            },
        ];
        for (i, rules) in families.iter().enumerate() {
            let strategy = Strategy::basic(rules).unwrap();
            let (differ, counts) = first_disagreement(&strategy, &strategy, 300_000, 40 + i as u64);
            assert_eq!(differ, None, "family {i}: rounds differ");
            // Every kind of round happened, so every branch was compared.
            assert!(counts.splits > 1000 && counts.doubles > 1000 && counts.busts > 1000);
            assert!(counts.blackjacks > 1000 && counts.dealer_blackjacks > 1000);
            if rules.surrender != Surrender::None {
                assert!(counts.surrenders > 1000, "family {i}: {counts:?}");
            }
        }
    }

    /// The table automata (`automaton.rs`) play almost every round of the rules they take,
    /// and each of those rounds is the general round: same net, counts and cards. The rounds
    /// they leave to the card by card path (`None`) are few, and the comparison above covers
    /// the mix. Without the automata no round is played this way and the share is 0.
    #[test]
    fn the_automata_play_most_rounds_and_each_as_the_general_round() {
        let base = Rules::default();
        let families = [
            (base, 0.95),
            (
                Rules {
                    decks: 1,
                    hits_soft_17: true,
                    surrender: Surrender::Late,
                    payout: Payout::SixToFive,
                    penetration: crate::Penetration::CutCard(0.5),
                    ..base
                },
                // Half of one deck is randomised at a time: about one round in six ends
                // past it.
                0.75,
            ),
        ];
        for (i, (rules, share)) in families.into_iter().enumerate() {
            let strategy = Strategy::basic(&rules).unwrap();
            let tables = crate::automaton::OneSeatTables::new(&strategy).expect("peek, one seat");
            let general = Engine::new(&strategy);
            let mut shoe_a = ValueShoe::values(&rules, fairdeal_partial::Partial::new()).unwrap();
            let mut shoe_b = shoe_a.clone();
            let mut rng_a = rand_pcg::Pcg64Mcg::seed_from_u64(70 + i as u64);
            let mut rng_b = rng_a.clone();
            let (mut ca, mut cb) = (Counts::default(), Counts::default());
            let mut scratch = Scratch::new();
            let (rounds, mut played) = (200_000u64, 0u64);
            for round in 0..rounds {
                shoe_a.start_round(&mut rng_a);
                shoe_b.start_round(&mut rng_b);
                let bet = 1 + (round % 3) as u32;
                let mut src_a = ShoeSource::uncounted(&mut shoe_a, &mut rng_a);
                let before = ca;
                let Some(na) = tables.play(&mut src_a, i64::from(bet), &mut ca) else {
                    assert_eq!(ca, before, "round {round}: a declined round counted");
                    // The card by card path deals it, on both sides.
                    general.play_round(&mut src_a, bet, &mut ca, &mut scratch);
                    let mut src_b = ShoeSource::uncounted(&mut shoe_b, &mut rng_b);
                    general.play_round_general(&mut src_b, bet, &mut cb, &mut scratch);
                    continue;
                };
                played += 1;
                ca.rounds += 1;
                let mut src_b = ShoeSource::uncounted(&mut shoe_b, &mut rng_b);
                let nb = general.play_round_general(&mut src_b, bet, &mut cb, &mut scratch);
                assert_eq!((na, ca), (nb, cb), "family {i}, round {round}");
                assert_eq!(shoe_a.dealt(), shoe_b.dealt(), "family {i}, round {round}");
            }
            assert_eq!(ca, cb);
            assert!(ca.doubles > 1000 && ca.busts > 1000 && ca.dealer_blackjacks > 1000);
            let got = played as f64 / rounds as f64;
            assert!(
                got > share,
                "family {i}: {got} of the rounds by the automata"
            );
        }
    }

    /// Negative control for the test above: the comparison notices a general round that plays
    /// a slightly different game (the dealer hits soft 17), within the first few hundred rounds.
    #[test]
    fn the_round_comparison_detects_a_different_game() {
        let s17 = Strategy::basic(&Rules::default()).unwrap();
        let h17 = Strategy::basic(&Rules {
            hits_soft_17: true,
            ..Rules::default()
        })
        .unwrap();
        let (differ, _) = first_disagreement(&s17, &h17, 10_000, 1);
        assert!(matches!(differ, Some(r) if r < 1_000), "{differ:?}");
    }

    /// Negative control for the test above: the same comparison must reject an engine whose
    /// game differs from the analysed one (a 6:5 table judged against the 3:2 return).
    #[test]
    fn the_comparison_detects_a_different_game() {
        let exact = -100.0
            * Strategy::basic(&Rules::default())
                .unwrap()
                .infinite_deck_return();
        let short = Rules {
            payout: Payout::SixToFive,
            ..Rules::default()
        };
        let (edge, se) = infinite_run(&short, 2_000_000, 7);
        assert!((edge - exact) / se > 6.0, "{edge} ± {se} vs {exact}");
    }
}
