//! Errors a caller can provoke with bad arguments.

use crate::TestKind;

/// What can go wrong when asking for a fairness test or a permutation rank.
///
/// Every check happens before any shuffling, so a bad argument costs nothing and never panics.
///
/// ```
/// use fairdeal_fairness::{FairnessError, TestKind};
/// let err = FairnessError::SizeOutOfRange { test: TestKind::Permutation, n: 9, min: 2, max: 8 };
/// assert_eq!(err.to_string(), "n = 9 is outside 2..=8 for the permutation test");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FairnessError {
    /// The number of elements is too small to test or too large to count.
    #[error("n = {n} is outside {min}..={max} for the {test} test")]
    SizeOutOfRange {
        /// The test that was asked for.
        test: TestKind,
        /// The requested number of elements.
        n: usize,
        /// The smallest supported n.
        min: usize,
        /// The largest supported n.
        max: usize,
    },
    /// The prefix length of a prefix test is 0 or longer than the slice.
    #[error("prefix length k = {k} must be between 1 and n = {n}")]
    PrefixOutOfRange {
        /// The requested prefix length.
        k: usize,
        /// The number of elements shuffled.
        n: usize,
    },
    /// A test with no trials has nothing to count.
    #[error("the number of trials must be at least 1")]
    ZeroTrials,
    /// `trials * n` does not fit in a `u64`, so the counts could overflow.
    #[error("{trials} trials of {n} elements overflow a 64-bit count")]
    TooManyTrials {
        /// The requested number of trials.
        trials: u64,
        /// The number of elements per trial.
        n: usize,
    },
    /// [`rank_permutation`](crate::rank_permutation) got a slice that is not an ordering of
    /// `[0, n)` (a value `>= n` or a repeated value), or the shuffler under test returned one.
    #[error("not a permutation of [0, {n})")]
    NotAPermutation {
        /// The length of the slice.
        n: usize,
    },
    /// [`rank_permutation`](crate::rank_permutation) / [`unrank_permutation`](crate::unrank_permutation)
    /// were asked about more elements than a `u64` rank can index.
    #[error("cannot rank permutations of {n} elements: at most {max}")]
    RankSizeOutOfRange {
        /// The requested number of elements.
        n: usize,
        /// The largest supported n ([`MAX_RANK_N`](crate::MAX_RANK_N)).
        max: usize,
    },
    /// [`chunk_seeded_test`](crate::chunk_seeded_test) and
    /// [`report_from_counts`](crate::report_from_counts) run the permutation and position
    /// tests only.
    #[error("the {test} test does not run chunk-seeded")]
    NotChunked {
        /// The test asked for.
        test: TestKind,
    },
    /// More shards than the run has chunks of [`CHUNK_TRIALS`](crate::CHUNK_TRIALS) shuffles.
    #[error(
        "{shards} shards of a run of {chunks} chunk(s) would leave some empty: use at most \
         {chunks} shards, or more trials"
    )]
    TooManyShards {
        /// The shard count.
        shards: u64,
        /// Chunks in the run.
        chunks: u64,
    },
    /// Counts that are not those of `trials` shuffles of `n` elements for the test.
    #[error("these counts are not those of {trials} shuffles of {n} elements for the {test} test")]
    BadCounts {
        /// The test.
        test: TestKind,
        /// The number of elements.
        n: usize,
        /// The shuffles the counts should add up to.
        trials: u64,
    },
    /// [`unrank_permutation`](crate::unrank_permutation) got a rank `>= n!`.
    #[error("rank {rank} is not below {n}! = {count}")]
    RankOutOfRange {
        /// The requested rank.
        rank: u64,
        /// The number of elements.
        n: usize,
        /// `n!`, the number of orders.
        count: u64,
    },
}
