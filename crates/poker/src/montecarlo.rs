//! Monte Carlo draws of 7-card hands with any shuffler and RNG, checked against the exact table.

use fairdeal_cards::standard_deck;
use fairdeal_core::{Chunk, ChunkPlan, ChunkWork, Rng, Shard, Shuffler, run_parallel};
use statrs::distribution::{Binomial, DiscreteCDF};

use crate::eval::{Acc, tables};
use crate::{Category, CategoryCounts, PokerError, exact_probabilities};

/// Hands per chunk: chunk `c` of a run uses the RNG `factory(stream_seed(seed, c))`, whatever
/// thread runs it, so results do not depend on the thread count.
pub const CHUNK_HANDS: u64 = 1 << 16;

/// How each hand is dealt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Deal {
    /// One deck per chunk, never restored: each hand is `shuffle_prefix(deck, 7)` and the first
    /// seven cards. With `fairdeal-partial` that is 7 random draws and 7 swaps per hand; an
    /// algorithm without an O(k) prefix shuffle shuffles the whole deck. The default.
    #[default]
    Reuse,
    /// A fresh deck in sorted order (2♣ 2♦ … A♠) before every hand, then `shuffle_prefix(deck, 7)`.
    /// Slower, but any bias of the shuffle with respect to the starting order shows up in the
    /// hands instead of being washed out by the previous deals (the biased-shuffle control
    /// uses it).
    Fresh,
}

/// What a progress callback receives: the number of hands (or trials) a chunk just finished.
/// It is called from any worker thread, once per chunk, and never changes a result (the
/// chunk driver's, [`fairdeal_core::Progress`]).
pub use fairdeal_core::Progress;

/// How a Monte Carlo table run is set up: [`monte_carlo`]'s arguments beyond the shuffler and
/// the RNG factory, named so that the hand count and the seed cannot be swapped silently.
///
/// ```
/// use fairdeal_poker::{Deal, McConfig};
/// let config = McConfig { hands: 100_000, seed: 7, ..McConfig::default() };
/// assert_eq!(config.deal, Deal::Reuse);
/// ```
#[derive(Clone, Copy, Default)]
pub struct McConfig<'a> {
    /// Hands to deal (at least 1).
    pub hands: u64,
    /// The run's seed: chunk `c` draws from `rng_factory(stream_seed(seed, c))`.
    pub seed: u64,
    /// How each hand is dealt.
    pub deal: Deal,
    /// Called after each chunk with the hands it dealt (e.g. to advance a progress bar).
    pub progress: Option<Progress<'a>>,
    /// Run only this shard's chunks ([`Shard::chunk_range`]); `None` runs them all. The
    /// shards' counts add up to exactly the whole run's.
    pub shard: Option<Shard>,
}

impl core::fmt::Debug for McConfig<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("McConfig")
            .field("hands", &self.hands)
            .field("seed", &self.seed)
            .field("deal", &self.deal)
            .field("progress", &self.progress.map(|_| "Fn(u64)"))
            .field("shard", &self.shard)
            .finish()
    }
}

/// The result of [`monte_carlo`]: observed counts next to the exact expectation, and an exact
/// test of the one against the other.
///
/// The test is exact at every sample size: each category's count is binomial under a fair
/// deal, so its two-sided tail probability is computed exactly (`statrs`' binomial, no normal
/// or chi-square approximation), and the smallest of the nine is multiplied by nine
/// (Bonferroni). A fair deal is therefore rejected at level `alpha` with probability at most
/// `alpha`, whether it has ten hands or ten billion. A Pearson chi-square would not be: with
/// expected counts far below 5 its tail is far too light, and one four-of-a-kind among ten
/// hands (probability 0.017) read as p = 1e-10.
#[derive(Debug, Clone, PartialEq)]
pub struct McReport {
    /// Hands dealt.
    pub hands: u64,
    /// Observed categories.
    pub counts: CategoryCounts,
    /// Exact probability of each category (index = [`Category::index`]).
    pub exact: [f64; 9],
    /// `(observed − expected) / sqrt(N p (1 − p))` per category: descriptive, for reading
    /// which way a deviation goes.
    pub z_scores: [f64; 9],
    /// Each category's exact two-sided binomial p-value: twice the smaller tail
    /// (`P(X ≤ observed)` or `P(X ≥ observed)`), at most 1.
    pub category_p_values: [f64; 9],
    /// The category with the smallest p-value: the largest deviation.
    pub most_deviant: Category,
    /// The test's p-value: nine times the smallest category p-value, at most 1. Small values
    /// mean the draws do not follow the exact distribution.
    pub p_value: f64,
}

/// The exact two-sided binomial p-value of `observed` successes in `trials` with success
/// probability `p`: twice the smaller tail, capped at 1.
fn binomial_p_value(trials: u64, observed: u64, p: f64) -> f64 {
    let Ok(distribution) = Binomial::new(p, trials) else {
        return f64::NAN;
    };
    let lower = distribution.cdf(observed);
    let upper = if observed == 0 {
        1.0
    } else {
        distribution.sf(observed - 1)
    };
    (2.0 * lower.min(upper)).min(1.0)
}

impl McReport {
    /// Compares observed `counts` of 7-card hands with the exact 7-card probabilities.
    ///
    /// # Errors
    ///
    /// [`PokerError::NoTrials`] when `counts` is empty.
    pub fn from_counts(counts: CategoryCounts) -> Result<McReport, PokerError> {
        let hands = counts.total();
        if hands == 0 {
            return Err(PokerError::NoTrials);
        }
        let exact = exact_probabilities(7)?;
        let n = hands as f64;
        let mut z_scores = [0.0; 9];
        let mut category_p_values = [1.0; 9];
        for c in 0..9 {
            let expected = n * exact[c];
            let observed = counts.counts[c];
            z_scores[c] = (observed as f64 - expected) / (expected * (1.0 - exact[c])).sqrt();
            category_p_values[c] = binomial_p_value(hands, observed, exact[c]);
        }
        let most_deviant = Category::ALL
            .iter()
            .copied()
            .min_by(|a, b| category_p_values[a.index()].total_cmp(&category_p_values[b.index()]))
            .unwrap_or(Category::HighCard);
        let p_value = (9.0 * category_p_values[most_deviant.index()]).min(1.0);
        Ok(McReport {
            hands,
            counts,
            exact,
            z_scores,
            category_p_values,
            most_deviant,
            p_value,
        })
    }

    /// Whether the draws are consistent with the exact table at level `alpha`
    /// (`p_value > alpha`).
    pub fn agrees(&self, alpha: f64) -> bool {
        self.p_value > alpha
    }

    /// The z-score of one category.
    pub fn z(&self, category: Category) -> f64 {
        self.z_scores[category as usize]
    }
}

/// Deals `config.hands` random 7-card hands with `shuffler` and counts their categories, then
/// compares them with the exact table ([`McReport`]).
///
/// The work is cut into chunks of [`CHUNK_HANDS`]; chunk `c` draws from
/// `rng_factory(stream_seed(seed, c))` and starts from a sorted deck, so the result depends only
/// on `(shuffler, rng_factory, hands, seed, deal)`, not on the number of threads. Like every
/// engine in the workspace it runs on the caller's rayon pool (`ThreadPool::install` chooses
/// the thread count) and never builds one.
///
/// The first call in a process also computes the exact 7-card table it compares with
/// ([`exact_counts`](crate::exact_counts), cached): a fraction of a second on a few cores.
///
/// ```
/// use fairdeal_poker::{McConfig, monte_carlo};
/// use rand::{SeedableRng, rngs::StdRng};
/// let report = monte_carlo(
///     &fairdeal_partial::Partial::new(),
///     StdRng::seed_from_u64,
///     &McConfig { hands: 100_000, seed: 42, ..McConfig::default() },
/// )?;
/// assert_eq!(report.hands, 100_000);
/// assert!(report.agrees(1e-6));
/// # Ok::<(), fairdeal_poker::PokerError>(())
/// ```
///
/// # Errors
///
/// [`PokerError::NoTrials`] when `hands == 0`, [`PokerError::Shard`] when `config.shard`
/// has no chunks of the run.
pub fn monte_carlo<S, R, F>(
    shuffler: &S,
    rng_factory: F,
    config: &McConfig<'_>,
) -> Result<McReport, PokerError>
where
    S: Shuffler + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    let McConfig {
        hands,
        seed,
        deal,
        progress,
        shard,
    } = *config;
    if hands == 0 {
        return Err(PokerError::NoTrials);
    }
    let plan = ChunkPlan::new(hands, CHUNK_HANDS, seed);
    let range = plan.shard_range(shard)?;
    let work = DealHands {
        shuffler,
        rng_factory,
        deal,
    };
    let counts = run_parallel(&work, &plan, range, progress)?;
    McReport::from_counts(counts)
}

/// One chunk of [`monte_carlo`]: its hands dealt from a fresh deck, their categories counted.
struct DealHands<'a, S, F> {
    shuffler: &'a S,
    rng_factory: F,
    deal: Deal,
}

impl<S, R, F> ChunkWork for DealHands<'_, S, F>
where
    S: Shuffler,
    R: Rng,
    F: Fn(u64) -> R,
{
    type Tally = CategoryCounts;
    type Error = PokerError;

    fn empty(&self) -> CategoryCounts {
        CategoryCounts::default()
    }

    fn run(&self, chunk: &Chunk, tally: &mut CategoryCounts) -> Result<(), PokerError> {
        let mut rng = (self.rng_factory)(chunk.seed);
        tally.merge(&deal_chunk(
            self.shuffler,
            &mut rng,
            chunk.units,
            self.deal,
        )?);
        Ok(())
    }

    fn merge(&self, into: &mut CategoryCounts, later: CategoryCounts) {
        into.merge(&later);
    }
}

/// Deals `n` hands from one fresh deck and counts their categories.
fn deal_chunk<S: Shuffler, R: Rng>(
    shuffler: &S,
    rng: &mut R,
    n: u64,
    deal: Deal,
) -> Result<CategoryCounts, PokerError> {
    let t = tables();
    let sorted = standard_deck();
    let mut deck = sorted.clone();
    let mut counts = [0u64; 9];
    for _ in 0..n {
        if deal == Deal::Fresh {
            deck.copy_from_slice(&sorted);
        }
        shuffler.shuffle_prefix(&mut deck, 7, rng)?;
        let acc = deck[..7].iter().fold(Acc::EMPTY, |a, &c| a.add(c));
        counts[t.value7(acc).category_index()] += 1;
    }
    Ok(CategoryCounts { counts })
}
