//! The chunk-seeded Monte Carlo driver: every engine's simulation runs through it.
//!
//! A run of `units` trials (hands, deals, rounds, shuffles) is cut into fixed chunks of
//! `chunk_units`; chunk `c` draws from a generator seeded with
//! [`stream_seed`]`(seed, c)` and produces a tally, and the tallies of a
//! range of chunks are added up in chunk order. The result therefore depends on the seed and
//! the trial count only — never on the thread count — and a [`Shard`]'s contiguous chunk range
//! run as a separate process adds up with the others to exactly the whole run.
//!
//! The per-chunk work and the tally merge are a [`ChunkWork`]; [`ChunkPlan`] lays the run out
//! and [`run_serial`] runs a range of its chunks on the calling thread, or, with the `rayon`
//! feature, `run_parallel` on the caller's rayon pool.

use core::ops::Range;

use crate::{Shard, ShardError, stream_seed};

/// What a progress callback receives: the units (hands, rounds, trials) a chunk just
/// finished. It is called once per chunk, from whichever thread ran it, and never changes a
/// result.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// The layout of a chunk-seeded run: how many units, how many per chunk, and the seed.
///
/// ```
/// use fairdeal_core::{ChunkPlan, Shard, stream_seed};
/// let plan = ChunkPlan::new(250, 100, 7);
/// assert_eq!(plan.chunks(), 3);
/// assert_eq!([plan.chunk(0).units, plan.chunk(2).units], [100, 50]);
/// assert_eq!(plan.chunk(1).seed, stream_seed(7, 1));
/// assert_eq!(plan.shard_range(Some(Shard::new(3, 3)?))?, 2..3);
/// assert_eq!(plan.shard_range(None)?, 0..3);
/// # Ok::<(), fairdeal_core::ShardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkPlan {
    units: u64,
    chunk_units: u64,
    seed: u64,
}

/// One chunk of a [`ChunkPlan`]: what its [`ChunkWork::run`] needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Chunk {
    /// The chunk's number in the whole run, from 0.
    pub index: u64,
    /// Its generator's seed: `stream_seed(seed, index)`.
    pub seed: u64,
    /// Units it runs: the chunk size, or what is left for the last chunk.
    pub units: u64,
}

impl ChunkPlan {
    /// A run of `units` units in chunks of `chunk_units` (the last one may be shorter), chunk
    /// `c` seeded with `stream_seed(seed, c)`.
    ///
    /// # Panics
    ///
    /// When `chunk_units` is 0: every caller passes its engine's chunk-size constant.
    pub const fn new(units: u64, chunk_units: u64, seed: u64) -> ChunkPlan {
        assert!(chunk_units > 0, "a chunk holds at least one unit");
        ChunkPlan {
            units,
            chunk_units,
            seed,
        }
    }

    /// Units in the whole run.
    pub const fn units(&self) -> u64 {
        self.units
    }

    /// Chunks in the whole run: `⌈units / chunk_units⌉`.
    pub const fn chunks(&self) -> u64 {
        self.units.div_ceil(self.chunk_units)
    }

    /// Chunk `index` of the run: its seed and its units (0 past the last chunk).
    pub const fn chunk(&self, index: u64) -> Chunk {
        let start = index.saturating_mul(self.chunk_units);
        let left = self.units.saturating_sub(start);
        Chunk {
            index,
            seed: stream_seed(self.seed, index),
            units: if left < self.chunk_units {
                left
            } else {
                self.chunk_units
            },
        }
    }

    /// Units in the chunks `range` (each counted as [`chunk`](ChunkPlan::chunk) does).
    pub const fn units_in(&self, range: &Range<u64>) -> u64 {
        let end = self.units_before(range.end);
        end.saturating_sub(self.units_before(range.start))
    }

    const fn units_before(&self, chunk: u64) -> u64 {
        let start = chunk.saturating_mul(self.chunk_units);
        if start < self.units {
            start
        } else {
            self.units
        }
    }

    /// The chunks `shard` runs ([`Shard::chunk_range`] of [`chunks`](ChunkPlan::chunks)), or
    /// all of them for `None`.
    ///
    /// # Errors
    ///
    /// [`ShardError::TooFewChunks`] when the shard would have no chunks.
    pub fn shard_range(&self, shard: Option<Shard>) -> Result<Range<u64>, ShardError> {
        match shard {
            Some(shard) => shard.chunk_range(self.chunks()),
            None => Ok(0..self.chunks()),
        }
    }

    /// Whether `range` is a non-empty range of this run's chunks.
    pub const fn holds(&self, range: &Range<u64>) -> bool {
        range.start < range.end && range.end <= self.chunks()
    }
}

/// The work of one chunk-seeded simulation: a chunk's tally from its seed, and the sum of two
/// tallies.
///
/// The merge must be associative and the empty tally its identity; integer counts satisfy
/// both exactly, which is what makes `run_parallel`'s result (feature `rayon`) independent of
/// how rayon splits the range.
pub trait ChunkWork {
    /// What a chunk (and a range of chunks) produces: counts, sums.
    type Tally;
    /// Why a chunk failed (the run stops with the first error met).
    type Error;

    /// The tally of no chunks.
    fn empty(&self) -> Self::Tally;

    /// Runs `chunk` (`chunk.units` units from a generator seeded with `chunk.seed`) and adds
    /// what it found to `tally`.
    ///
    /// # Errors
    ///
    /// The work's own.
    fn run(&self, chunk: &Chunk, tally: &mut Self::Tally) -> Result<(), Self::Error>;

    /// Adds `later`, the tally of the chunks that follow `into`'s, to `into`.
    fn merge(&self, into: &mut Self::Tally, later: Self::Tally);
}

/// Runs the chunks `range` of `plan` with `work` one after another on the calling thread,
/// into one tally, calling `progress` (if any) after each chunk with its units.
///
/// ```
/// use fairdeal_core::{Chunk, ChunkPlan, ChunkWork, run_serial};
/// struct Units;
/// impl ChunkWork for Units {
///     type Tally = u64;
///     type Error = core::convert::Infallible;
///     fn empty(&self) -> u64 { 0 }
///     fn run(&self, chunk: &Chunk, tally: &mut u64) -> Result<(), Self::Error> {
///         *tally += chunk.units;
///         Ok(())
///     }
///     fn merge(&self, into: &mut u64, later: u64) { *into += later }
/// }
/// let plan = ChunkPlan::new(250, 100, 7);
/// assert_eq!(run_serial(&Units, &plan, 1..3, None), Ok(150));
/// ```
///
/// # Errors
///
/// The first chunk's error; later chunks are not run.
pub fn run_serial<W: ChunkWork + ?Sized>(
    work: &W,
    plan: &ChunkPlan,
    range: Range<u64>,
    progress: Option<Progress<'_>>,
) -> Result<W::Tally, W::Error> {
    let mut tally = work.empty();
    for index in range {
        let chunk = plan.chunk(index);
        work.run(&chunk, &mut tally)?;
        if let Some(progress) = progress {
            progress(chunk.units);
        }
    }
    Ok(tally)
}

/// Runs the chunks `range` of `plan` with `work` on the caller's rayon pool (one task per
/// chunk, each into its own empty tally), calls `progress` (if any) after each chunk with its
/// units, and merges the tallies in chunk order. It never builds a pool: wrap the call in
/// `ThreadPool::install` to choose the thread count.
///
/// With an exact merge (integer counts) the tally equals [`run_serial`]'s on any thread count.
///
/// # Errors
///
/// An error of some chunk (not necessarily the first: chunks run concurrently).
#[cfg(feature = "rayon")]
pub fn run_parallel<W>(
    work: &W,
    plan: &ChunkPlan,
    range: Range<u64>,
    progress: Option<Progress<'_>>,
) -> Result<W::Tally, W::Error>
where
    W: ChunkWork + Sync + ?Sized,
    W::Tally: Send,
    W::Error: Send,
{
    use rayon::prelude::*;
    range
        .into_par_iter()
        .map(|index| {
            let chunk = plan.chunk(index);
            let mut tally = work.empty();
            work.run(&chunk, &mut tally)?;
            if let Some(progress) = progress {
                progress(chunk.units);
            }
            Ok(tally)
        })
        .try_reduce(
            || work.empty(),
            |mut a, b| {
                work.merge(&mut a, b);
                Ok(a)
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;
    use core::convert::Infallible;

    /// Records which chunk ran with which seed and units, in merge order.
    struct Log;

    impl ChunkWork for Log {
        type Tally = Vec<Chunk>;
        type Error = Infallible;
        fn empty(&self) -> Vec<Chunk> {
            Vec::new()
        }
        fn run(&self, chunk: &Chunk, tally: &mut Vec<Chunk>) -> Result<(), Infallible> {
            tally.push(*chunk);
            Ok(())
        }
        fn merge(&self, into: &mut Vec<Chunk>, later: Vec<Chunk>) {
            into.extend(later);
        }
    }

    #[test]
    fn chunks_are_seeded_by_index_and_cover_the_units() {
        let plan = ChunkPlan::new(1000, 300, 42);
        let Ok(log) = run_serial(&Log, &plan, 0..plan.chunks(), None);
        let units: Vec<u64> = log.iter().map(|c| c.units).collect();
        assert_eq!(units, [300, 300, 300, 100]);
        for (i, c) in log.iter().enumerate() {
            assert_eq!((c.index, c.seed), (i as u64, stream_seed(42, i as u64)));
        }
        assert_eq!(plan.units_in(&(0..4)), 1000);
        assert_eq!(plan.units_in(&(3..4)), 100);
        assert_eq!(plan.units_in(&(1..3)), 600);
        assert_eq!(plan.chunk(9).units, 0);
        assert!(plan.holds(&(3..4)) && !plan.holds(&(2..2)) && !plan.holds(&(3..5)));
    }

    #[test]
    fn shards_split_the_chunks_in_order() {
        let plan = ChunkPlan::new(10 * 7 + 3, 7, 1);
        let Ok(whole) = run_serial(&Log, &plan, plan.shard_range(None).unwrap(), None);
        let mut parts = Vec::new();
        for i in 1..=4 {
            let range = plan.shard_range(Some(Shard::new(i, 4).unwrap())).unwrap();
            let Ok(part) = run_serial(&Log, &plan, range, None);
            parts.extend(part);
        }
        assert_eq!(parts, whole);
        let too_many = Shard::new(1, 12).unwrap();
        assert!(matches!(
            plan.shard_range(Some(too_many)),
            Err(ShardError::TooFewChunks {
                count: 12,
                chunks: 11
            })
        ));
    }

    #[test]
    fn the_first_error_stops_a_serial_run() {
        struct FailAt(u64);
        impl ChunkWork for FailAt {
            type Tally = u64;
            type Error = u64;
            fn empty(&self) -> u64 {
                0
            }
            fn run(&self, chunk: &Chunk, tally: &mut u64) -> Result<(), u64> {
                if chunk.index == self.0 {
                    return Err(chunk.index);
                }
                *tally += 1;
                Ok(())
            }
            fn merge(&self, into: &mut u64, later: u64) {
                *into += later;
            }
        }
        let plan = ChunkPlan::new(100, 10, 0);
        assert_eq!(run_serial(&FailAt(3), &plan, 0..10, None), Err(3));
        assert_eq!(run_serial(&FailAt(30), &plan, 0..10, None), Ok(10));
    }

    /// The parallel driver merges in chunk order on any thread count, and reports progress
    /// once per chunk with its units.
    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_runs_merge_in_chunk_order() {
        extern crate std;
        use std::sync::atomic::{AtomicU64, Ordering};
        let plan = ChunkPlan::new(1000, 7, 3);
        let Ok(serial) = run_serial(&Log, &plan, 5..140, None);
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let done = AtomicU64::new(0);
            let progress = |n: u64| {
                done.fetch_add(n, Ordering::Relaxed);
            };
            let Ok(parallel) = pool.install(|| run_parallel(&Log, &plan, 5..140, Some(&progress)));
            assert_eq!(parallel, serial);
            assert_eq!(done.into_inner(), plan.units_in(&(5..140)));
        }
    }
}
