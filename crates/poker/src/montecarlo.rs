//! Monte Carlo draws of 7-card hands with any shuffler and RNG, checked against the exact table.

use fairdeal_cards::standard_deck;
use fairdeal_core::{Rng, Shuffler, stream_seed};
use rayon::prelude::*;
use statrs::distribution::{ChiSquared, ContinuousCDF};

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

/// The result of [`monte_carlo`]: observed counts next to the exact expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct McReport {
    /// Hands dealt.
    pub hands: u64,
    /// Observed categories.
    pub counts: CategoryCounts,
    /// Exact probability of each category (index = [`Category::index`]).
    pub exact: [f64; 9],
    /// `(observed − expected) / sqrt(N p (1 − p))` per category.
    pub z_scores: [f64; 9],
    /// Pearson's chi-square statistic over the nine categories.
    pub chi2: f64,
    /// Degrees of freedom (8).
    pub df: u32,
    /// The chi-square upper-tail probability: small values mean the draws do not follow the
    /// exact distribution.
    pub p_value: f64,
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
        let mut chi2 = 0.0;
        for c in 0..9 {
            let expected = n * exact[c];
            let observed = counts.counts[c] as f64;
            z_scores[c] = (observed - expected) / (expected * (1.0 - exact[c])).sqrt();
            chi2 += (observed - expected).powi(2) / expected;
        }
        let df = 8;
        let p_value = ChiSquared::new(f64::from(df)).map_or(f64::NAN, |d| d.sf(chi2));
        Ok(McReport {
            hands,
            counts,
            exact,
            z_scores,
            chi2,
            df,
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

/// Deals `hands` random 7-card hands with `shuffler` and counts their categories, then compares
/// them with the exact table ([`McReport`]).
///
/// The work is cut into chunks of [`CHUNK_HANDS`]; chunk `c` draws from
/// `rng_factory(stream_seed(seed, c))` and starts from a sorted deck, so the result depends only
/// on `(shuffler, rng_factory, hands, seed, deal)`, not on the number of rayon threads.
///
/// The first call in a process also computes the exact 7-card table it compares with
/// ([`exact_counts`](crate::exact_counts), cached): a fraction of a second on a few cores.
///
/// ```
/// use fairdeal_poker::{Deal, monte_carlo};
/// use rand::{SeedableRng, rngs::StdRng};
/// let report = monte_carlo(
///     &fairdeal_partial::Partial::new(),
///     StdRng::seed_from_u64,
///     100_000,
///     42,
///     Deal::Reuse,
/// )?;
/// assert_eq!(report.hands, 100_000);
/// assert!(report.agrees(1e-6));
/// # Ok::<(), fairdeal_poker::PokerError>(())
/// ```
///
/// # Errors
///
/// [`PokerError::NoTrials`] when `hands == 0`.
pub fn monte_carlo<S, R, F>(
    shuffler: &S,
    rng_factory: F,
    hands: u64,
    seed: u64,
    deal: Deal,
) -> Result<McReport, PokerError>
where
    S: Shuffler + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
{
    monte_carlo_with_progress(shuffler, rng_factory, hands, seed, deal, |_| {})
}

/// [`monte_carlo`] calling `progress(hands_done_in_chunk)` after each chunk (from any thread),
/// e.g. to advance a progress bar.
///
/// # Errors
///
/// [`PokerError::NoTrials`] when `hands == 0`.
pub fn monte_carlo_with_progress<S, R, F, P>(
    shuffler: &S,
    rng_factory: F,
    hands: u64,
    seed: u64,
    deal: Deal,
    progress: P,
) -> Result<McReport, PokerError>
where
    S: Shuffler + Sync,
    R: Rng,
    F: Fn(u64) -> R + Sync,
    P: Fn(u64) + Sync,
{
    if hands == 0 {
        return Err(PokerError::NoTrials);
    }
    let chunks = hands.div_ceil(CHUNK_HANDS);
    let counts = (0..chunks)
        .into_par_iter()
        .map(|chunk| {
            let n = CHUNK_HANDS.min(hands - chunk * CHUNK_HANDS);
            let mut rng = rng_factory(stream_seed(seed, chunk));
            let counts = deal_chunk(shuffler, &mut rng, n, deal);
            progress(n);
            counts
        })
        .try_reduce(CategoryCounts::default, |mut a, b| {
            a.merge(&b);
            Ok(a)
        })?;
    McReport::from_counts(counts)
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
