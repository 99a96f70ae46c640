//! The external shuffle cut into independent tasks, for a cluster: a *plan*, *scatter* tasks
//! and *gather* tasks that any engine able to run N copies of a command with an index (Slurm
//! job arrays, GNU parallel, a plain loop) can run, on any number of machines sharing a
//! filesystem.
//!
//! - [`plan`] fixes the run: the input files and their sizes, the chunks (fixed-size,
//!   line-aligned pieces of the inputs), the bucket count and the seed, in `DIR/shard/run.json`.
//! - [`scatter()`] task `i` of `p` takes a contiguous range of chunks. For each chunk it labels
//!   every record with an iid uniform bucket in `0..buckets`, drawn from a generator seeded by
//!   `(seed, chunk index)`, and writes the chunk's records grouped by bucket (in input order
//!   within a bucket) to one spill file, with a manifest of each bucket's range, line count,
//!   byte count and checksum.
//! - [`gather()`] task `j` of `p` takes a contiguous range of buckets. For each bucket it reads
//!   the bucket's range of every chunk's spill file in chunk order, checks it against the
//!   manifests, shuffles the records in memory with a generator seeded by `(seed, bucket
//!   index)` and writes `DIR/part-NNNNN`.
//!
//! The concatenation of the parts in name order is the shuffled input. No random draw depends
//! on a task index or on the order tasks run, so the bytes depend only on the seed, the input
//! bytes, the chunk size and the bucket count (both in the run manifest, both defaulted from
//! constants and the input size alone). Why the result is exactly uniform is in
//! `docs/algorithms.md` ("Sharded shuffle").
//!
//! Every file appears atomically (written under a temporary name, synced, renamed), with mode
//! 0600; a task run twice writes the same bytes. A checksum is the wrapping sum of the 128-bit
//! xxh3 of every line (without its separator): independent of the order of the lines, so a
//! part's checksum is the sum of its bucket's checksums in the chunks' manifests, and the sum
//! of the parts' is the input's.
//!
//! The code is in layers, one module each: `manifest` (the run directory, the manifests, atomic
//! private writes and [`plan`]), `scatter`, `gather` and `verify`, each a step of the CLI.

use std::io::{self, BufReader, Read};
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Serialize;

mod gather;
mod manifest;
mod scatter;
mod verify;

pub use gather::gather;
pub use manifest::{
    InputFile, InputIdentity, PlanConfig, RunDir, RunManifest, SAMPLE_EDGE_BYTES, SAMPLE_END_BYTES,
    plan,
};
pub use scatter::scatter;
pub use verify::{Verification, verify};

/// The format version written to every manifest (3: the inputs' identities, the gather's task
/// count).
pub const FORMAT: u32 = 3;

/// The default chunk size: 64 MiB of input per chunk (a scatter task holds one chunk in
/// memory).
pub const DEFAULT_CHUNK_BYTES: u64 = 64 << 20;

/// The smallest chunk size accepted (4 KiB).
pub const MIN_CHUNK_BYTES: u64 = 4 << 10;

/// The default bucket count is the input size divided by this (1 GiB), rounded up: a gather
/// task holds one bucket in memory.
pub const DEFAULT_BUCKET_BYTES: u64 = 1 << 30;

/// The most buckets (part files are named with five digits).
pub const MAX_BUCKETS: u32 = 100_000;

/// The most tasks of one phase.
pub const MAX_TASKS: u64 = 1_000_000;

/// Bytes counted per record when a chunk or a bucket is held in memory: the slice that
/// indexes it and, in a scatter, its label.
pub const SHARD_INDEX_BYTES: u64 = 24;

/// Domain of the label generators' seeds (`stream_seed(stream_seed(seed, LABELS), chunk)`).
const LABELS: u64 = 0x6c61_6265_6c73;
/// Domain of the bucket shuffles' seeds (`stream_seed(stream_seed(seed, BUCKETS), bucket)`).
const BUCKETS: u64 = 0x0062_7563_6b65_7473;

/// Bytes a scatter stages before writing them to a spill file (and hashing them).
const STAGING_BYTES: usize = 256 << 10;

/// The sub-directory of the run directory holding manifests and spill files.
pub const WORK_DIR: &str = "shard";

/// Why a sharded-shuffle step failed.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// A file of the run or an input could not be read, written or listed.
    #[error("{action} '{}'", path.display())]
    Io {
        /// What was being done ("cannot read input", …).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// A manifest is missing.
    #[error("missing manifest '{}': {hint}", path.display())]
    MissingManifest {
        /// The manifest.
        path: PathBuf,
        /// Which step writes it.
        hint: &'static str,
    },
    /// A manifest could not be parsed or does not belong to this run.
    #[error("corrupt manifest '{}': {reason}", path.display())]
    CorruptManifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A spill file does not match its manifest (a truncated or altered file).
    #[error("spill file '{}' does not match its manifest: {reason}", path.display())]
    Mismatch {
        /// The spill file.
        path: PathBuf,
        /// What differs.
        reason: String,
    },
    /// An input file changed size since the plan.
    #[error("input '{}' has {now} bytes, the plan recorded {planned}: the input changed since `shard plan`", path.display())]
    InputChanged {
        /// The input.
        path: PathBuf,
        /// Its size in the run manifest.
        planned: u64,
        /// Its size now.
        now: u64,
    },
    /// An input is another file, or has other bytes, than when the run was planned (same size).
    #[error("input '{}' changed since `shard plan` ({what}): plan the run again in a new directory", path.display())]
    InputModified {
        /// The input.
        path: PathBuf,
        /// What differs.
        what: &'static str,
    },
    /// A directory or file of the run is another user's, or writable by others.
    #[error("'{}' {reason}: refusing to use it (a run's directory and files must be this user's own; use a new directory)", path.display())]
    NotOurs {
        /// The directory or file.
        path: PathBuf,
        /// Why it is refused.
        reason: String,
    },
    /// A file named like a part file is not one of this run's parts.
    #[error("'{}' looks like a part file but {hint}", path.display())]
    StrayPart {
        /// The file.
        path: PathBuf,
        /// Why it is refused and what to do.
        hint: &'static str,
    },
    /// A gather task was given another task count than the run's first gather task.
    #[error("this run's gather tasks use --tasks {recorded} (recorded in '{}'), not {given}: with another count some buckets would be left out; delete that file to gather the whole run again with another count", path.display())]
    GatherTasks {
        /// Where the first gather task recorded its count.
        path: PathBuf,
        /// That count.
        recorded: u64,
        /// This task's.
        given: u64,
    },
    /// The run directory already holds a different plan.
    #[error("'{}' already holds a different run (seed, inputs, chunk size or buckets differ): use a new directory", path.display())]
    OtherRun {
        /// The existing run manifest.
        path: PathBuf,
    },
    /// A chunk does not fit the memory budget.
    #[error(
        "chunk {chunk} holds {bytes} bytes in {records} records, more than the memory budget of {budget} bytes: raise --memory or plan with a smaller --chunk-size"
    )]
    ChunkTooLarge {
        /// The chunk.
        chunk: u64,
        /// Its bytes (including a record running past its end).
        bytes: u64,
        /// Its records.
        records: u64,
        /// The budget.
        budget: u64,
    },
    /// A bucket does not fit the memory budget.
    #[error(
        "bucket {bucket} holds {bytes} bytes in {records} lines, more than the memory budget of {budget} bytes: raise --memory or plan the run again with --buckets {suggested} or more"
    )]
    BucketTooLarge {
        /// The bucket.
        bucket: u32,
        /// Its bytes.
        bytes: u64,
        /// Its lines.
        records: u64,
        /// The budget.
        budget: u64,
        /// A bucket count whose buckets would fit, on average with room to spare.
        suggested: u64,
    },
    /// A parameter is out of range.
    #[error("{0}")]
    Invalid(String),
    /// An allocation within the budget failed.
    #[error("memory exhausted: cannot allocate {bytes} bytes (lower --memory)")]
    OutOfMemory {
        /// The size of the failed allocation.
        bytes: u64,
    },
}

fn io_error<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(io::Error) -> ShardError + 'p {
    move |source| ShardError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// The order-independent summary of a multiset of lines: count, bytes (with separators) and
/// the wrapping sum of the xxh3-128 of every line without its separator.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Lines.
    pub lines: u64,
    /// Bytes, each line counted with its separator.
    pub bytes: u64,
    /// Wrapping sum of the lines' xxh3-128.
    pub sum: u128,
}

impl Tally {
    /// Adds one line (`record`, with or without its separator `sep`).
    pub fn add(&mut self, record: &[u8], sep: u8) {
        let body = record.strip_suffix(&[sep]).unwrap_or(record);
        self.lines += 1;
        self.bytes += body.len() as u64 + 1;
        self.sum = self.sum.wrapping_add(xxhash_rust::xxh3::xxh3_128(body));
    }

    /// Adds one line that ends with its separator (one byte, not hashed).
    #[inline]
    fn add_line(&mut self, line: &[u8]) {
        let body = &line[..line.len() - 1];
        self.lines += 1;
        self.bytes += line.len() as u64;
        self.sum = self.sum.wrapping_add(xxhash_rust::xxh3::xxh3_128(body));
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &Self) {
        self.lines += other.lines;
        self.bytes += other.bytes;
        self.sum = self.sum.wrapping_add(other.sum);
    }

    /// The tally of every record of `reader` (a last record without separator counts as one
    /// with it), read in bounded memory.
    ///
    /// # Errors
    ///
    /// The read error.
    pub fn of_reader(reader: impl Read, sep: u8) -> io::Result<Self> {
        let mut reader = BufReader::with_capacity(256 << 10, reader);
        let mut tally = Self::default();
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = io::BufRead::read_until(&mut reader, sep, &mut line)?;
            if n == 0 {
                return Ok(tally);
            }
            tally.add(&line, sep);
        }
    }
}

/// A checksum as written in manifests: 32 hex digits.
fn hex(sum: u128) -> String {
    format!("{sum:032x}")
}

fn unhex(text: &str) -> Option<u128> {
    (text.len() == 32)
        .then(|| u128::from_str_radix(text, 16).ok())
        .flatten()
}

/// The default bucket count for `total_bytes` of input: one per [`DEFAULT_BUCKET_BYTES`],
/// rounded up, at least 1, at most [`MAX_BUCKETS`].
pub fn default_buckets(total_bytes: u64) -> u32 {
    let n = total_bytes.div_ceil(DEFAULT_BUCKET_BYTES).max(1);
    u32::try_from(n).unwrap_or(MAX_BUCKETS).min(MAX_BUCKETS)
}

/// The range `[total·task/tasks, total·(task+1)/tasks)`: task `task`'s share of `total` items.
pub fn share(total: u64, task: u64, tasks: u64) -> Range<u64> {
    let at = |t: u64| (u128::from(total) * u128::from(t) / u128::from(tasks)) as u64;
    at(task)..at(task + 1)
}

/// Checks a task index against a task count.
///
/// # Errors
///
/// [`ShardError::Invalid`] unless `1 <= tasks <= MAX_TASKS` and `task < tasks`.
pub fn check_task(task: u64, tasks: u64) -> Result<(), ShardError> {
    if tasks == 0 || tasks > MAX_TASKS {
        return Err(ShardError::Invalid(format!(
            "--tasks must be between 1 and {MAX_TASKS}, got {tasks}"
        )));
    }
    if task >= tasks {
        return Err(ShardError::Invalid(format!(
            "--task must be below --tasks ({tasks}), got {task}"
        )));
    }
    Ok(())
}

/// The name of bucket `b`'s part file: `part-NNNNN`.
pub fn part_name(bucket: u32) -> String {
    format!("part-{bucket:05}")
}

/// What a scatter or gather task did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TaskSummary {
    /// Chunks (scatter) or buckets (gather) done.
    pub units: u64,
    /// Records written.
    pub lines: u64,
    /// Bytes read from inputs or spill files.
    pub bytes_read: u64,
    /// Bytes written (spill or part files, without manifests).
    pub bytes_written: u64,
    /// Files created, manifests included.
    pub files: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_tile_the_range() {
        for total in [0, 1, 7, 100] {
            for tasks in 1..12 {
                let mut next = 0;
                for t in 0..tasks {
                    let r = share(total, t, tasks);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn default_buckets_follow_the_size() {
        assert_eq!(default_buckets(0), 1);
        assert_eq!(default_buckets(DEFAULT_BUCKET_BYTES), 1);
        assert_eq!(default_buckets(DEFAULT_BUCKET_BYTES + 1), 2);
        assert_eq!(default_buckets(u64::MAX), MAX_BUCKETS);
    }

    #[test]
    fn tally_is_order_independent_and_sensitive() {
        let mut a = Tally::default();
        let mut b = Tally::default();
        for l in ["x\n", "y\n", "z"] {
            a.add(l.as_bytes(), b'\n');
        }
        for l in ["z\n", "x\n", "y\n"] {
            b.add(l.as_bytes(), b'\n');
        }
        assert_eq!(a, b);
        let mut c = Tally::default();
        for l in ["z\n", "x\n", "x\n"] {
            c.add(l.as_bytes(), b'\n');
        }
        assert_ne!(a, c);
        assert_eq!(unhex(&hex(a.sum)), Some(a.sum));
    }
}
