//! Chunk-seeded runs of the shuffling tests: the same counts on one process or many.

use fairdeal_core::{Chunk, ChunkPlan, ChunkWork, Progress, Rng, Shard, Shuffler, run_serial};

use crate::permutation::{
    MAX_PERMUTATION_N, MIN_PERMUTATION_N, PermutationTally, permutation_report,
};
use crate::position::{MAX_POSITION_N, MIN_POSITION_N, PositionTally, position_report};
use crate::rank::factorial;
use crate::stats::check_trials;
use crate::tally::{Tally, tally_shuffles};
use crate::{FairnessError, FairnessReport, TestKind};

/// Shuffles per chunk of a [`chunk_seeded_test`]: chunk `c` shuffles with
/// `make_rng(stream_seed(seed, c))`, so a run's counts depend on the seed and the trial count
/// only, and chunk ranges run as separate processes ([`ChunkedRun::shard`]) add up to them.
pub const CHUNK_TRIALS: u64 = 1 << 16;

/// What a [`chunk_seeded_test`] runs: named fields, so the trial count and the seed cannot be
/// swapped silently.
///
/// ```
/// use fairdeal_fairness::{CHUNK_TRIALS, ChunkedRun, TestKind};
/// let run = ChunkedRun { test: TestKind::Permutation, n: 3, trials: 100_000, seed: 1, shard: None };
/// assert_eq!(run.chunks(), 100_000u64.div_ceil(CHUNK_TRIALS));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkedRun {
    /// [`TestKind::Permutation`] (`2 <= n <= 8`) or [`TestKind::Position`] (`2 <= n <= 1024`).
    pub test: TestKind,
    /// Elements shuffled.
    pub n: usize,
    /// Shuffles in the whole run (all shards together).
    pub trials: u64,
    /// The run's seed: chunk `c` uses `stream_seed(seed, c)`.
    pub seed: u64,
    /// Run only this shard's chunks ([`Shard::chunk_range`]); `None` runs them all.
    pub shard: Option<Shard>,
}

impl ChunkedRun {
    /// The test a run of `n` elements makes: every order ([`TestKind::Permutation`]) up to
    /// [`MAX_PERMUTATION_N`] elements, else where each lands
    /// ([`TestKind::Position`]).
    ///
    /// ```
    /// use fairdeal_fairness::{ChunkedRun, MAX_PERMUTATION_N, TestKind};
    /// assert_eq!(ChunkedRun::test_for(MAX_PERMUTATION_N), TestKind::Permutation);
    /// assert_eq!(ChunkedRun::test_for(MAX_PERMUTATION_N + 1), TestKind::Position);
    /// ```
    pub fn test_for(n: usize) -> TestKind {
        if n <= crate::MAX_PERMUTATION_N {
            TestKind::Permutation
        } else {
            TestKind::Position
        }
    }

    /// Chunks in the whole run.
    pub fn chunks(&self) -> u64 {
        self.plan().chunks()
    }

    /// The run's layout for the chunk driver: `trials` in chunks of [`CHUNK_TRIALS`], chunk
    /// `c` seeded with `stream_seed(seed, c)`.
    pub fn plan(&self) -> ChunkPlan {
        ChunkPlan::new(self.trials, CHUNK_TRIALS, self.seed)
    }
}

/// Checks `test` and `n` and returns the number of count cells.
fn cells(test: TestKind, n: usize) -> Result<usize, FairnessError> {
    let (min, max) = match test {
        TestKind::Permutation => (MIN_PERMUTATION_N, MAX_PERMUTATION_N),
        TestKind::Position => (MIN_POSITION_N, MAX_POSITION_N),
        test => return Err(FairnessError::NotChunked { test }),
    };
    if !(min..=max).contains(&n) {
        return Err(FairnessError::SizeOutOfRange { test, n, min, max });
    }
    Ok(match test {
        // n <= 8: n! <= 40,320.
        TestKind::Permutation => factorial(n).unwrap_or(1) as usize,
        _ => n * n,
    })
}

/// Runs the permutation or position test chunk-seeded: chunk `c` of [`CHUNK_TRIALS`] shuffles
/// uses `make_rng(stream_seed(seed, c))`, every chunk of the run (or of `run.shard`) in
/// order on the calling thread, and the report is [`report_from_counts`] of the counts, so a
/// shard's report is that of its own shuffles and the shards' summed counts give the whole
/// run's report exactly.
///
/// ```
/// use fairdeal_fairness::{ChunkedRun, PASS_THRESHOLD, TestKind, chunk_seeded_test};
/// use fairdeal_inplace::Inplace;
/// use fairdeal_core::SeedableRng;
/// let run = ChunkedRun { test: TestKind::Permutation, n: 3, trials: 60_000, seed: 1, shard: None };
/// let report = chunk_seeded_test(&Inplace::new(), &run, rand_pcg::Pcg64::seed_from_u64)?;
/// assert_eq!(report.trials, 60_000);
/// assert!(report.is_fair(PASS_THRESHOLD));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
///
/// # Errors
///
/// [`FairnessError::NotChunked`] for a test other than the two, [`FairnessError::SizeOutOfRange`],
/// [`FairnessError::ZeroTrials`], [`FairnessError::TooManyTrials`], and
/// [`FairnessError::TooManyShards`] when the shard count exceeds the chunk count.
pub fn chunk_seeded_test<S, R, F>(
    shuffler: &S,
    run: &ChunkedRun,
    make_rng: F,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: Fn(u64) -> R,
{
    chunk_seeded_test_with_progress(shuffler, run, make_rng, None)
}

/// [`chunk_seeded_test`], calling `progress` after each chunk with the shuffles it made (a
/// progress bar; it never changes the counts).
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use fairdeal_fairness::{ChunkedRun, TestKind, chunk_seeded_test_with_progress};
/// use fairdeal_core::SeedableRng;
/// let run = ChunkedRun { test: TestKind::Position, n: 4, trials: 100_000, seed: 1, shard: None };
/// let done = AtomicU64::new(0);
/// let progress = |n: u64| {
///     done.fetch_add(n, Ordering::Relaxed);
/// };
/// let report = chunk_seeded_test_with_progress(
///     &fairdeal_inplace::Inplace::new(),
///     &run,
///     rand_pcg::Pcg64::seed_from_u64,
///     Some(&progress),
/// )?;
/// assert_eq!(done.load(Ordering::Relaxed), report.trials);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
///
/// # Errors
///
/// As [`chunk_seeded_test`].
pub fn chunk_seeded_test_with_progress<S, R, F>(
    shuffler: &S,
    run: &ChunkedRun,
    make_rng: F,
    progress: Option<Progress<'_>>,
) -> Result<FairnessReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: Fn(u64) -> R,
{
    let cells = cells(run.test, run.n)?;
    check_trials(run.trials, run.n)?;
    let plan = run.plan();
    let range = match run.shard {
        Some(shard) => plan
            .shard_range(Some(shard))
            .map_err(|_| FairnessError::TooManyShards {
                shards: shard.count(),
                chunks: plan.chunks(),
            })?,
        None => 0..plan.chunks(),
    };
    let done = plan.units_in(&range);
    // One tally over every chunk of the range, each chunk on its own seeded stream.
    let counts = match run.test {
        TestKind::Permutation => {
            let work = ShuffleChunks::new(shuffler, make_rng, run.n, PermutationTally::new(run.n)?);
            run_serial(&work, &plan, range, progress)?.report()?.counts
        }
        _ => {
            let work = ShuffleChunks::new(shuffler, make_rng, run.n, PositionTally::new(run.n)?);
            run_serial(&work, &plan, range, progress)?.report()?.counts
        }
    };
    debug_assert_eq!(counts.len(), cells);
    report_from_counts(run.test, run.n, done, counts)
}

/// A whole-permutation tally the chunk driver can merge: the permutation and the position
/// test's.
trait ChunkTally: Tally + Clone {
    /// Adds `later`'s counts.
    fn merge(&mut self, later: &Self);
}

impl ChunkTally for PermutationTally {
    fn merge(&mut self, later: &Self) {
        PermutationTally::merge(self, later);
    }
}

impl ChunkTally for PositionTally {
    fn merge(&mut self, later: &Self) {
        PositionTally::merge(self, later);
    }
}

/// One chunk of [`chunk_seeded_test`]: its shuffles of `[0, n)`, each counted into a `T`.
struct ShuffleChunks<'a, S: ?Sized, F, T> {
    shuffler: &'a S,
    make_rng: F,
    n: usize,
    /// An empty tally of the test's shape.
    empty: T,
}

impl<'a, S: ?Sized, F, T> ShuffleChunks<'a, S, F, T> {
    fn new(shuffler: &'a S, make_rng: F, n: usize, empty: T) -> Self {
        ShuffleChunks {
            shuffler,
            make_rng,
            n,
            empty,
        }
    }
}

impl<S, R, F, T> ChunkWork for ShuffleChunks<'_, S, F, T>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: Fn(u64) -> R,
    T: ChunkTally,
{
    type Tally = T;
    type Error = FairnessError;

    fn empty(&self) -> T {
        self.empty.clone()
    }

    fn run(&self, chunk: &Chunk, tally: &mut T) -> Result<(), FairnessError> {
        let mut rng = (self.make_rng)(chunk.seed);
        tally_shuffles(tally, self.n, chunk.units, |deck| {
            self.shuffler.shuffle(deck, &mut rng);
            Ok(())
        })
    }

    fn merge(&self, into: &mut T, later: T) {
        into.merge(&later);
    }
}

/// The report of the permutation test (`counts[rank]`, `n!` cells) or the position test
/// (`counts[e·n + p]`, `n²` cells) from its counts: the one function both a whole run and a
/// merge of separately run shards compute their statistic, p-value and verdict with.
///
/// ```
/// use fairdeal_fairness::{TestKind, report_from_counts};
/// let report = report_from_counts(TestKind::Permutation, 3, 6, vec![1; 6])?;
/// assert_eq!((report.chi2, report.df), (0.0, 5));
/// assert!(report_from_counts(TestKind::Permutation, 3, 7, vec![1; 6]).is_err());
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
///
/// # Errors
///
/// As [`chunk_seeded_test`] for the test and `n`, and [`FairnessError::BadCounts`] when the
/// counts do not have the test's shape or do not add up to `trials` shuffles.
pub fn report_from_counts(
    test: TestKind,
    n: usize,
    trials: u64,
    counts: Vec<u64>,
) -> Result<FairnessReport, FairnessError> {
    let cells = cells(test, n)?;
    check_trials(trials, n)?;
    let consistent = counts.len() == cells
        && match test {
            TestKind::Permutation => {
                counts.iter().try_fold(0u64, |a, &c| a.checked_add(c)) == Some(trials)
            }
            // Every element lands somewhere once per shuffle: each row sums to `trials`.
            _ => counts
                .chunks(n)
                .all(|row| row.iter().try_fold(0u64, |a, &c| a.checked_add(c)) == Some(trials)),
        };
    if !consistent {
        return Err(FairnessError::BadCounts { test, n, trials });
    }
    Ok(match test {
        TestKind::Permutation => permutation_report(n, trials, counts),
        _ => position_report(TestKind::Position, n, n, trials, counts),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::SeedableRng;

    fn run(test: TestKind, n: usize, trials: u64, shard: Option<Shard>) -> FairnessReport {
        let run = ChunkedRun {
            test,
            n,
            trials,
            seed: 7,
            shard,
        };
        chunk_seeded_test(
            &fairdeal_inplace::Inplace::new(),
            &run,
            rand_pcg::Pcg64::seed_from_u64,
        )
        .unwrap()
    }

    /// Shards 1/3..3/3 add up to exactly the whole run's counts and report.
    #[test]
    fn shards_add_up_to_the_whole_run() {
        for (test, n) in [(TestKind::Permutation, 4), (TestKind::Position, 10)] {
            let trials = 3 * CHUNK_TRIALS + 11;
            let whole = run(test, n, trials, None);
            let mut counts = vec![0u64; whole.counts.len()];
            let mut done = 0;
            for index in 1..=3 {
                let part = run(test, n, trials, Some(Shard::new(index, 3).unwrap()));
                for (sum, c) in counts.iter_mut().zip(&part.counts) {
                    *sum += c;
                }
                done += part.trials;
            }
            assert_eq!(report_from_counts(test, n, done, counts).unwrap(), whole);
        }
    }

    /// The driver's merge of two chunk ranges' tallies is the tally of both ranges.
    #[test]
    fn merged_chunk_tallies_are_the_whole_range() {
        let run = ChunkedRun {
            test: TestKind::Position,
            n: 5,
            trials: 3 * CHUNK_TRIALS,
            seed: 3,
            shard: None,
        };
        let plan = run.plan();
        let inplace = fairdeal_inplace::Inplace::new();
        let empty = PermutationTally::new(5).unwrap();
        let work = ShuffleChunks::new(&inplace, rand_pcg::Pcg64::seed_from_u64, 5, empty);
        let whole = run_serial(&work, &plan, 0..3, None).unwrap();
        let mut first = run_serial(&work, &plan, 0..1, None).unwrap();
        work.merge(&mut first, run_serial(&work, &plan, 1..3, None).unwrap());
        assert_eq!(first.report().unwrap(), whole.report().unwrap());
        let empty = PositionTally::new(5).unwrap();
        let work = ShuffleChunks::new(&inplace, rand_pcg::Pcg64::seed_from_u64, 5, empty);
        let whole = run_serial(&work, &plan, 0..3, None).unwrap();
        let mut first = run_serial(&work, &plan, 0..2, None).unwrap();
        work.merge(&mut first, run_serial(&work, &plan, 2..3, None).unwrap());
        assert_eq!(first.report().unwrap(), whole.report().unwrap());
        assert_eq!(whole.trials(), 3 * CHUNK_TRIALS);
    }

    #[test]
    fn bad_requests_are_errors() {
        let base = ChunkedRun {
            test: TestKind::Permutation,
            n: 3,
            trials: 10,
            seed: 1,
            shard: Some(Shard::new(2, 2).unwrap()),
        };
        let go = |run: ChunkedRun| {
            chunk_seeded_test(
                &fairdeal_inplace::Inplace::new(),
                &run,
                rand_pcg::Pcg64::seed_from_u64,
            )
        };
        assert!(matches!(go(base), Err(FairnessError::TooManyShards { .. })));
        let prefix = ChunkedRun {
            test: TestKind::Prefix,
            ..base
        };
        assert!(matches!(go(prefix), Err(FairnessError::NotChunked { .. })));
        let nine = ChunkedRun { n: 9, ..base };
        assert!(matches!(
            go(nine),
            Err(FairnessError::SizeOutOfRange { .. })
        ));
        // Rows of a position matrix must each sum to the trials.
        assert!(report_from_counts(TestKind::Position, 2, 2, vec![2, 0, 2, 0]).is_ok());
        assert!(matches!(
            report_from_counts(TestKind::Position, 2, 2, vec![2, 1, 1, 0]),
            Err(FairnessError::BadCounts { .. })
        ));
        assert!(matches!(
            report_from_counts(TestKind::Permutation, 3, 6, vec![1; 5]),
            Err(FairnessError::BadCounts { .. })
        ));
    }
}
