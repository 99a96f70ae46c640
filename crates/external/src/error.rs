//! The one error type of the external shuffle.

use std::io;
use std::path::PathBuf;

/// Why an external shuffle or sample failed. Every variant leaves the temporary files to the
/// caller's scratch directory, which [`ExternalShuffle::shuffle`](crate::ExternalShuffle::shuffle)
/// removes (and a caller of `shuffle_in` removes with its own `TempDir`).
#[derive(Debug, thiserror::Error)]
pub enum ExternalError {
    /// Reading the input failed.
    #[error("cannot read input")]
    Input(#[source] io::Error),
    /// Writing the output failed (a full disk, a closed pipe, a file-size limit …).
    #[error("cannot write output")]
    Output(#[source] io::Error),
    /// A temporary file could not be created.
    #[error("cannot create a temporary file in '{}'", dir.display())]
    TempCreate {
        /// The scratch directory.
        dir: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// Writing a temporary file failed (typically a full disk: temporary files take about the
    /// input's size).
    #[error("cannot write temporary file '{}'", path.display())]
    TempWrite {
        /// The temporary file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// Reading back a temporary file failed.
    #[error("cannot read temporary file '{}'", path.display())]
    TempRead {
        /// The temporary file.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// A temporary file no longer holds what was written to it (it was truncated or changed
    /// by another process, or the disk returned different bytes): its length or checksum
    /// differs on read-back.
    #[error("temporary data in '{}' was damaged while the shuffle ran: {what}", dir.display())]
    TempDamaged {
        /// The directory of the temporary file.
        dir: PathBuf,
        /// What differs.
        what: String,
    },
    /// An allocation within the budget failed (the process has less memory than the budget,
    /// e.g. under `ulimit -v`).
    #[error("memory exhausted: cannot allocate {bytes} bytes (lower the memory budget)")]
    OutOfMemory {
        /// The size of the failed allocation.
        bytes: u64,
    },
    /// A sample of `k` records (reservoir sampling) needs more memory than the budget.
    #[error(
        "a sample of {k} records needs more than the memory budget of {budget} bytes (raise the budget or lower the count)"
    )]
    SampleTooLarge {
        /// The requested sample size.
        k: u64,
        /// The budget in bytes.
        budget: u64,
    },
    /// A bucket was still too large after [`MAX_DEPTH`](crate::MAX_DEPTH) levels of splitting.
    /// With a working generator this has probability far below 2^-60; it means the random
    /// labels are not random.
    #[error(
        "a bucket of {records} records was still larger than the memory budget after {depth} levels of splitting: the random generator is broken"
    )]
    TooDeep {
        /// Records in the bucket.
        records: u64,
        /// Levels of splitting done.
        depth: u32,
    },
}

impl ExternalError {
    /// The underlying I/O error, if this is one.
    pub fn io_error(&self) -> Option<&io::Error> {
        match self {
            Self::Input(e) | Self::Output(e) => Some(e),
            Self::TempCreate { source, .. }
            | Self::TempWrite { source, .. }
            | Self::TempRead { source, .. } => Some(source),
            _ => None,
        }
    }
}
