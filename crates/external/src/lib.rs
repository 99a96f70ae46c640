//! An exactly uniform shuffle of records (lines, or NUL-terminated records) for inputs larger
//! than memory, in bounded memory and with a bounded number of open files.
//!
//! The method is Sanders' scatter shuffle (P. Sanders, *Random permutations on distributed,
//! external and hierarchical memory*, IPL 1998), done on disk:
//!
//! 1. **Scatter.** Each record gets an independent, uniformly random label in `0..32`
//!    ([`FAN_OUT`]; five bits of a random word, so exactly uniform) and is appended to that
//!    label's *bucket*: a segment of a temporary file. Records are streamed: a record is
//!    never held whole, so records longer than the budget work too.
//! 2. **Gather.** Buckets are visited in label order. One that fits the [`MemoryBudget`] is read
//!    back, its records shuffled in memory (the parallel scatter shuffle of
//!    `fairdeal-parallel`, on the caller's rayon pool) and appended to the output; one that does
//!    not is scattered again, recursively, with its own generator.
//!
//! [`ExternalShuffle::shuffle_spilling`] runs the same scatter with the buckets kept in memory
//! (blocks of whole records) for as long as the input fits the budget, and spills them to files
//! the moment it does not: the same output, no temporary files for input that fits, and writes
//! that stay within one bucket at a time instead of gathering from the whole input.
//!
//! Why this is exactly uniform is proved in `docs/algorithms.md` ("Files larger than memory").
//! The output depends only on the records, the generator's seed and the budget: not on how the
//! input was read (a pipe or a file, in what chunks) nor on the number of threads.
//!
//! Resources: one temporary file per level of the scatter in use (the 32 buckets of a level
//! are segments of one spill file; see [`MAX_OPEN_FILES`]), memory within the budget plus
//! [`BUFFER_BYTES`] of buffers, and temporary disk space about the input's size (the file is
//! emptied as soon as its buckets have been written; where its disk could not also hold an
//! output as large, each bucket read back whole is discarded from it at once, so the two
//! together need about the input's size, not twice it). Spill files are private (0600),
//! anonymous (`O_TMPFILE`, or unlinked as soon as created: nothing is left behind however the
//! process ends, SIGKILL included) and every bucket's length and checksum are checked when it
//! is read back ([`ExternalError::TempDamaged`]).
//!
//! ```
//! use std::io::Read as _;
//! use fairdeal_external::{ExternalShuffle, Loaded, MemoryBudget};
//! use rand_pcg::Pcg64;
//! use fairdeal_core::SeedableRng;
//!
//! let input: Vec<u8> = (0..1000).flat_map(|i| format!("line {i}\n").into_bytes()).collect();
//! let shuffle = ExternalShuffle::new(MemoryBudget::new(1024)?, b'\n');
//! // 8,890 bytes do not fit in 1 KiB: the records go through temporary files.
//! let Loaded::TooLarge(prefix, rest) = shuffle.load(&input[..], None)? else { unreachable!() };
//! let mut output = Vec::new();
//! let mut rng = Pcg64::seed_from_u64(7);
//! let summary = shuffle.shuffle(prefix.chain(rest), &mut output, &std::env::temp_dir(), &mut rng, &mut ())?;
//! assert_eq!(summary.records, 1000);
//! let (mut a, mut b) = (output.split(|&c| c == b'\n').collect::<Vec<_>>(), input.split(|&c| c == b'\n').collect::<Vec<_>>());
//! a.sort();
//! b.sort();
//! assert_eq!(a, b);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod budget;
pub mod cleanup;
mod ends;
mod error;
pub mod exec;
pub mod gnu;
mod pages;
pub mod plan;
pub mod publish;
pub mod shard;
mod spill;
mod spillfile;
mod threads;

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use fairdeal_core::{Batched, IndexSampler, Rng, SeedableRng, Shuffler};

use crate::ends::{Pieces, record_spans};
use crate::pages::PageBuf;
use crate::threads::Helpers;

pub use budget::{
    ARENA_RESERVATION, BudgetError, DEFAULT_FRACTION, FALLBACK_BUDGET, INDEX_BYTES_PER_RECORD,
    MIN_BUDGET, MemoryBudget, MemoryLimitSource, NoRoomForWork, PER_WORKER, WORK_RESERVE,
    WORKER_STACK, address_space_left, fitting_threads, memory_limit, memory_limit_source,
    physical_memory,
};
pub use error::ExternalError;
pub(crate) use spillfile::{Sealed, Segment, SpillFile};
pub use spillfile::{anonymous_file, temp_parent};

/// Buckets per level of the scatter: 32, so a label is five random bits, twelve labels per
/// 64-bit word. One level handles inputs up to about 32 budgets, two up to about 1,024.
pub const FAN_OUT: usize = 32;

/// Bits per label (`FAN_OUT == 1 << LABEL_BITS`).
const LABEL_BITS: u32 = 5;

/// Labels taken from one 64-bit word.
const LABELS_PER_WORD: u32 = u64::BITS / LABEL_BITS;

/// The most temporary files open at once, per level of the scatter: one. All the buckets of
/// a level are segments of one spill file, so a shuffle holds one descriptor per level in
/// use (2 for an input of up to about 1,024 budgets) however small `RLIMIT_NOFILE` is. The
/// caller adds its own (standard streams, input, output).
pub const MAX_OPEN_FILES: usize = 1;

/// The deepest recursion allowed. Each level divides a bucket's expected size by 32, so with a
/// working generator 16 levels are never needed; reaching it means the labels are not random.
pub const MAX_DEPTH: u32 = 16;

/// Buffer of each bucket file being written.
const BUCKET_BUFFER: usize = 64 << 10;

/// Buffer for reading the input and for writing the output. A read-ahead
/// ([`stream_chunks`]) splits its read buffer in two halves.
const STREAM_BUFFER: usize = 256 << 10;

/// Memory used beside the budget: the bucket buffers, those the writer thread holds (three
/// batches), the read buffer (or the read-ahead's two halves of it) and the output buffer
/// (4 MiB).
pub const BUFFER_BYTES: usize =
    FAN_OUT * BUCKET_BUFFER + 3 * WRITE_BATCH * BUCKET_BUFFER + 2 * STREAM_BUFFER;

/// Reports of how far a shuffle has got, for a progress bar. Both methods default to nothing.
pub trait Progress {
    /// `bytes` more bytes of input have been read.
    fn read(&mut self, bytes: u64) {
        let _ = bytes;
    }
    /// `bytes` more bytes of output have been written.
    fn written(&mut self, bytes: u64) {
        let _ = bytes;
    }
}

/// No progress reports.
impl Progress for () {}

/// The result of [`ExternalShuffle::load`].
#[derive(Debug)]
pub enum Loaded<R> {
    /// The whole input fits the budget: here it is, to be shuffled in memory.
    InMemory(Vec<u8>),
    /// It does not: the bytes read so far (within the budget) and the unread rest. Shuffle
    /// `prefix.chain(rest)` (see [`Loaded::TooLarge`]'s fields) externally.
    TooLarge(io::Cursor<Vec<u8>>, R),
}

/// What a finished external shuffle did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Records written.
    pub records: u64,
    /// Bytes written (every record ends with the separator).
    pub bytes: u64,
    /// Buckets written to temporary files, over all levels (segments of one spill file per
    /// level).
    pub bucket_files: u64,
    /// Levels of scatter (1 without recursion).
    pub depth: u32,
}

/// The external shuffle: a memory budget, a record separator and an index sampler (for the
/// in-memory shuffles of the buckets and for reservoir sampling).
#[derive(Debug, Clone, Copy)]
pub struct ExternalShuffle<S = Batched> {
    budget: MemoryBudget,
    separator: u8,
    sampler: S,
    spill_at_once: bool,
}

impl ExternalShuffle {
    /// An external shuffle of records ending in `separator` (`b'\n'` for lines, `0` for
    /// `-z`) within `budget`, drawing indices with [`Batched`].
    pub const fn new(budget: MemoryBudget, separator: u8) -> Self {
        Self::with_sampler(budget, separator, Batched)
    }
}

/// The size of one bucket of a scatter.
#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    bytes: u64,
    records: u64,
}

/// A scatter's buckets on disk: one spill file holding a segment per bucket.
struct Level {
    /// `None` when every bucket is empty.
    file: Option<SpillFile>,
    buckets: Vec<(Bucket, Sealed)>,
}

/// Where a scatter's bytes come from, for error messages.
#[derive(Clone, Copy)]
enum Source<'a> {
    Input,
    Temp(&'a Path),
}

impl Source<'_> {
    fn error(&self, source: io::Error) -> ExternalError {
        match self {
            Self::Input => ExternalError::Input(source),
            Self::Temp(dir) => spillfile::read_error(source, dir),
        }
    }
}

/// Uniform labels in `0..FAN_OUT`, five bits at a time from 64-bit words.
#[derive(Default)]
struct Labels {
    word: u64,
    left: u32,
}

impl Labels {
    fn next<R: Rng + ?Sized>(&mut self, rng: &mut R) -> usize {
        if self.left == 0 {
            self.word = rng.next_u64();
            self.left = LABELS_PER_WORD;
        }
        let label = (self.word & (FAN_OUT as u64 - 1)) as usize;
        self.word >>= LABEL_BITS;
        self.left -= 1;
        label
    }
}

/// Records looked ahead while a bucket is written in shuffled order: each record comes from a
/// random place in its bucket (tens of MiB, past the caches), so without a hint every one is
/// a demand miss that stalls the copy into the output buffer; with it, the misses of the next
/// records overlap the copy of this one (`docs/benchmarks.md`, "Against the I/O floor").
const WRITE_AHEAD: usize = 16;

/// Writes `count` records, `record(i)` for `i` in `0..count`, to `output`, asking the CPU for
/// the cache lines of record `i + WRITE_AHEAD` (its first and last byte) while record `i` is
/// copied. The hints change no byte written.
fn write_gathered<'d>(
    count: usize,
    record: impl Fn(usize) -> &'d [u8],
    output: &mut impl Write,
) -> io::Result<()> {
    for i in 0..count {
        if i + WRITE_AHEAD < count {
            let ahead = record(i + WRITE_AHEAD);
            fairdeal_parallel::prefetch_read(ahead, 0);
            fairdeal_parallel::prefetch_read(ahead, ahead.len().saturating_sub(1));
        }
        output.write_all(record(i))?;
    }
    Ok(())
}

/// Reads until `buf` is full, the input ends or `stop` is set, retrying on `Interrupted`: a
/// read-ahead hands over full buffers, not each short read a pipe returns (every hand-over may
/// wake the other thread, which costs more than a short read's bytes are worth).
fn read_full(input: &mut impl Read, buf: &mut [u8], stop: &AtomicBool) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() && !stop.load(Ordering::Relaxed) {
        match read_some(input, &mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Reads into `buf`, retrying on `Interrupted`.
fn read_some(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    loop {
        match input.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

/// Hands `prefix`, then every byte of `input`, to `consume` in order, in chunks of at most
/// [`STREAM_BUFFER`] (`consume`'s flag says whether the chunk is the prefix, which is dropped
/// as soon as it has been consumed). The chunks' bytes are the same whatever the chunking, so
/// whoever consumes them by content does the same with or without the read-ahead.
///
/// With `read_ahead`, a second thread reads `input` into two buffers of half that size
/// (`BUFFER_BYTES` is unchanged), each filled before it is handed over (or the input ended),
/// while this one consumes: the input's reads, from the prefix's first byte on, overlap the
/// work on the chunk before. After an error the reader stops once its read in flight returns
/// (a pipe whose writer is idle delays it until then).
/// Without it, or when no second thread can be had, one buffer on the calling thread.
///
/// # Errors
///
/// [`ExternalError::Input`] for a read error, and whatever `consume` returns (it is not called
/// again).
fn stream_chunks<R: Read + Send>(
    prefix: Vec<u8>,
    mut input: R,
    read_ahead: Option<Helpers>,
    mut consume: impl FnMut(&[u8], bool) -> Result<(), ExternalError>,
) -> Result<(), ExternalError> {
    let mut prefix = Some(prefix);
    if let Some(helpers) = read_ahead
        && let Some(streamed) = stream_read_ahead(helpers, &mut prefix, &mut input, &mut consume)
    {
        return streamed;
    }
    if let Some(prefix) = prefix {
        consume(&prefix, true)?;
    }
    let mut buf = try_buffer(STREAM_BUFFER)?;
    loop {
        let n = read_some(&mut input, &mut buf).map_err(ExternalError::Input)?;
        if n == 0 {
            return Ok(());
        }
        consume(&buf[..n], false)?;
    }
}

/// [`stream_chunks`] with the read-ahead thread; `None` when that thread cannot be had, and
/// then nothing has been read or consumed (`prefix` is still there).
fn stream_read_ahead<R: Read + Send>(
    helpers: Helpers,
    prefix: &mut Option<Vec<u8>>,
    input: &mut R,
    consume: &mut impl FnMut(&[u8], bool) -> Result<(), ExternalError>,
) -> Option<Result<(), ExternalError>> {
    let halves = match (try_buffer(STREAM_BUFFER / 2), try_buffer(STREAM_BUFFER / 2)) {
        (Ok(first), Ok(second)) => [first, second],
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    // Set once this thread stops consuming, so that the reader does not go on filling a buffer.
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Full buffers to this thread (one waiting at most), empty ones back to the reader.
        let (full, filled) = std::sync::mpsc::sync_channel::<io::Result<(Vec<u8>, usize)>>(1);
        let (empty, emptied) = std::sync::mpsc::sync_channel::<Vec<u8>>(halves.len());
        for half in halves {
            empty.send(half).expect("the channel holds both halves");
        }
        let stop = &stop;
        let reader = helpers.spawn_scoped(scope, "read-ahead", move || {
            // Ends when this thread drops `empty` (done, or failed) or stops receiving.
            for mut buf in emptied {
                let read = read_full(input, &mut buf, stop);
                let last = !matches!(read, Ok(n) if n > 0);
                if full.send(read.map(|n| (buf, n))).is_err() || last {
                    return;
                }
            }
        });
        if reader.is_err() {
            return None;
        }
        let consumed = (|| {
            if let Some(prefix) = prefix.take() {
                consume(&prefix, true)?;
            }
            for read in &filled {
                let (buf, n) = read.map_err(ExternalError::Input)?;
                if n == 0 {
                    break;
                }
                consume(&buf[..n], false)?;
                // The reader may have stopped (end of input): then the buffer is dropped.
                let _ = empty.send(buf);
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        Some(consumed)
    })
}

impl From<pages::OutOfPages> for ExternalError {
    fn from(e: pages::OutOfPages) -> Self {
        Self::OutOfMemory {
            bytes: e.bytes as u64,
        }
    }
}

/// A zeroed buffer of `len` bytes, or [`ExternalError::OutOfMemory`].
fn try_buffer(len: usize) -> Result<Vec<u8>, ExternalError> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|_| ExternalError::OutOfMemory { bytes: len as u64 })?;
    buf.resize(len, 0);
    Ok(buf)
}

impl<S: IndexSampler + Copy + Send + Sync> ExternalShuffle<S> {
    /// An external shuffle drawing in-memory indices with `sampler`.
    pub const fn with_sampler(budget: MemoryBudget, separator: u8, sampler: S) -> Self {
        Self {
            budget,
            separator,
            sampler,
            spill_at_once: false,
        }
    }

    /// With `true`, [`shuffle_spilling`](Self::shuffle_spilling) writes its buckets to
    /// temporary files from the first record, instead of holding them in memory until they
    /// outgrow the budget. For an input known to be larger than the budget (a regular file's
    /// length: [`Beyond::Spilling`](plan::Beyond::Spilling)'s `on_disk`), whose buckets would
    /// be written out anyway, this saves filling a budget's worth of fresh memory first. The
    /// output is the same either way.
    #[must_use]
    pub const fn spill_at_once(mut self, yes: bool) -> Self {
        self.spill_at_once = yes;
        self
    }

    /// The memory budget.
    pub const fn budget(&self) -> MemoryBudget {
        self.budget
    }

    /// Reads `input` until it is exhausted or no longer fits the budget (bytes plus
    /// [`INDEX_BYTES_PER_RECORD`] per record, a final record without separator counting as
    /// one). `size_hint` (a file's length) only sizes the first allocation. The answer depends
    /// only on the input's bytes, so a pipe and a file with the same content take the same
    /// path.
    ///
    /// # Errors
    ///
    /// [`ExternalError::Input`] on a read error, [`ExternalError::OutOfMemory`] when a buffer
    /// within the budget cannot be allocated.
    pub fn load<R: Read>(
        &self,
        input: R,
        size_hint: Option<u64>,
    ) -> Result<Loaded<R>, ExternalError> {
        // One byte past the budget shows that the input does not fit.
        let limit = usize::try_from(self.budget.bytes().saturating_add(1)).unwrap_or(usize::MAX);
        let first = size_hint.map_or(STREAM_BUFFER as u64, |h| h.saturating_add(1));
        let buf = try_buffer(usize::try_from(first).unwrap_or(limit).clamp(1, limit))?;
        self.fill(buf, 0, 0, input)
    }

    /// Goes on with a load that stopped early, typically at a smaller budget: `prefix` (the
    /// bytes it read) then the rest of `input`, as [`ExternalShuffle::load`] would have read
    /// them from the start.
    ///
    /// # Errors
    ///
    /// As [`ExternalShuffle::load`].
    pub fn load_after<R: Read>(
        &self,
        prefix: Vec<u8>,
        input: R,
    ) -> Result<Loaded<R>, ExternalError> {
        let filled = prefix.len();
        let records = memchr::memchr_iter(self.separator, &prefix).count() as u64;
        if !self.budget.holds(filled as u64, records) {
            return Ok(Loaded::TooLarge(io::Cursor::new(prefix), input));
        }
        let mut buf = prefix;
        buf.resize(buf.capacity(), 0);
        self.fill(buf, filled, records, input)
    }

    /// Reads into `buf[filled..]`, growing it up to one byte past the budget.
    fn fill<R: Read>(
        &self,
        mut buf: Vec<u8>,
        mut filled: usize,
        mut records: u64,
        mut input: R,
    ) -> Result<Loaded<R>, ExternalError> {
        let limit = usize::try_from(self.budget.bytes().saturating_add(1)).unwrap_or(usize::MAX);
        loop {
            if filled == buf.len() {
                if buf.len() >= limit {
                    buf.truncate(filled);
                    return Ok(Loaded::TooLarge(io::Cursor::new(buf), input));
                }
                let grown = buf.len().saturating_mul(2).min(limit);
                buf.try_reserve_exact(grown - buf.len()).map_err(|_| {
                    ExternalError::OutOfMemory {
                        bytes: grown as u64,
                    }
                })?;
                buf.resize(grown, 0);
            }
            let n = read_some(&mut input, &mut buf[filled..]).map_err(ExternalError::Input)?;
            if n == 0 {
                buf.truncate(filled);
                if buf.last().is_some_and(|&b| b != self.separator) {
                    records += 1;
                }
                return Ok(if self.budget.holds(filled as u64, records) {
                    Loaded::InMemory(buf)
                } else {
                    Loaded::TooLarge(io::Cursor::new(buf), input)
                });
            }
            records += memchr::memchr_iter(self.separator, &buf[filled..filled + n]).count() as u64;
            filled += n;
            if !self.budget.holds(filled as u64, records) {
                buf.truncate(filled);
                return Ok(Loaded::TooLarge(io::Cursor::new(buf), input));
            }
        }
    }

    /// Shuffles the records of `input` into `output` through anonymous temporary files in
    /// `temp_parent` (see [`ExternalShuffle::shuffle_in`]).
    ///
    /// # Errors
    ///
    /// See [`ExternalShuffle::shuffle_in`].
    pub fn shuffle<G>(
        &self,
        input: impl Read,
        output: impl Write,
        temp_parent: &Path,
        rng: &mut G,
        progress: &mut dyn Progress,
    ) -> Result<Summary, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        self.shuffle_in(input, output, temp_parent, rng, progress)
    }

    /// Shuffles the records of `input` into `output`, whatever their size, with temporary
    /// files in the directory `scratch`. They are spill files: private, anonymous (nothing
    /// is ever visible in `scratch`, and nothing is left there however the process ends) and
    /// verified on read-back. Every record is written with a separator, including a last one
    /// that had none.
    ///
    /// # Errors
    ///
    /// [`ExternalError::Input`], [`ExternalError::Output`], the `Temp*` variants for the
    /// temporary files ([`ExternalError::TempDamaged`] when one no longer holds what was
    /// written), [`ExternalError::OutOfMemory`], [`ExternalError::TooDeep`] for a broken
    /// generator. Output written before an error is not taken back.
    pub fn shuffle_in<G>(
        &self,
        input: impl Read,
        output: impl Write,
        scratch: &Path,
        rng: &mut G,
        progress: &mut dyn Progress,
    ) -> Result<Summary, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let helpers = Helpers::for_budget(self.budget);
        let mut run = Run::new(scratch.to_path_buf(), output, progress, helpers);
        let level = self.scatter(input, Source::Input, &mut run, rng)?;
        run.summary.depth = 1;
        self.gather(level, 1, &mut run, rng)?;
        run.output.flush().map_err(ExternalError::Output)?;
        Ok(run.summary)
    }

    /// Streams the records of `input` into [`FAN_OUT`] new buckets on disk by iid uniform
    /// labels.
    fn scatter<G: Rng>(
        &self,
        mut input: impl Read,
        source: Source<'_>,
        run: &mut Run<'_, impl Write>,
        rng: &mut G,
    ) -> Result<Level, ExternalError> {
        let mut writer = BucketWriter::new();
        let mut buf = try_buffer(STREAM_BUFFER)?;
        let mut labels = Labels::default();
        // The bucket of a record whose separator has not been read yet.
        let mut open_record: Option<usize> = None;
        loop {
            let n = read_some(&mut input, &mut buf).map_err(|e| source.error(e))?;
            if n == 0 {
                break;
            }
            if matches!(source, Source::Input) {
                run.progress.read(n as u64);
            }
            for (piece, done) in Pieces::new(self.separator, &buf[..n]) {
                let bucket = match open_record {
                    Some(bucket) => bucket,
                    None => {
                        let bucket = labels.next(rng);
                        writer.buckets[bucket].records += 1;
                        bucket
                    }
                };
                writer.append(bucket, piece, run)?;
                open_record = (!done).then_some(bucket);
            }
        }
        if let Some(bucket) = open_record {
            writer.append(bucket, &[self.separator], run)?;
        }
        drop(input);
        writer.finish(run)
    }

    /// Writes the buckets in label order, each shuffled in memory or scattered again, then
    /// gives the level's file back for reuse.
    fn gather<G>(
        &self,
        level: Level,
        depth: u32,
        run: &mut Run<'_, impl Write>,
        rng: &mut G,
    ) -> Result<(), ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        // One generator per bucket, drawn in label order before any bucket is visited.
        let mut children: Vec<G> = level.buckets.iter().map(|_| G::from_rng(rng)).collect();
        let Some(file) = level.file else {
            return Ok(());
        };
        if let Some(largest) = self.pipelines(&level.buckets)
            && self.gather_pipelined(&file, &level.buckets, largest, &mut children, run)?
        {
            run.release(file);
            return Ok(());
        }
        // One bucket at a time (also when no second thread could be had for the pipeline).
        for ((bucket, sealed), child) in level.buckets.iter().zip(&mut children) {
            if bucket.records == 0 {
                continue;
            }
            if bucket.records == 1 && !self.budget.holds(bucket.bytes, 1) {
                // One record larger than the budget: nothing to shuffle, stream it through.
                let mut reader = file.segment_reader(sealed);
                let mut buf = try_buffer(STREAM_BUFFER)?;
                loop {
                    let n = read_some(&mut reader, &mut buf)
                        .map_err(|e| spillfile::read_error(e, file.dir()))?;
                    if n == 0 {
                        break;
                    }
                    run.output
                        .write_all(&buf[..n])
                        .map_err(ExternalError::Output)?;
                }
                run.wrote(1, bucket.bytes);
            } else if self.budget.holds(bucket.bytes, bucket.records) {
                self.shuffle_bucket(&file, bucket, sealed, run, child)?;
            } else {
                if depth >= MAX_DEPTH {
                    return Err(ExternalError::TooDeep {
                        records: bucket.records,
                        depth,
                    });
                }
                let reader = file.segment_reader(sealed);
                let grandchildren = self.scatter(reader, Source::Temp(file.dir()), run, child)?;
                run.summary.depth = run.summary.depth.max(depth + 1);
                self.gather(grandchildren, depth + 1, run, child)?;
            }
        }
        run.release(file);
        Ok(())
    }

    /// The size of both buffers when a level's buckets can be gathered two at a time (the
    /// most bytes and the most records of any bucket, which two of them fit the budget
    /// together); `None` when they cannot.
    fn pipelines(&self, buckets: &[(Bucket, Sealed)]) -> Option<Bucket> {
        let largest = Bucket {
            bytes: buckets.iter().map(|(b, _)| b.bytes).max().unwrap_or(0),
            records: buckets.iter().map(|(b, _)| b.records).max().unwrap_or(0),
        };
        let two = |n: u64| n.saturating_mul(2);
        self.budget
            .holds(two(largest.bytes), two(largest.records))
            .then_some(largest)
    }

    /// [`ExternalShuffle::gather`] for a level whose buckets all fit, two at a time: a second
    /// thread reads, checks, indexes and shuffles bucket *i + 1* while this one writes bucket
    /// *i* (the overlap `gather_memory` makes for buckets in memory). The same generators in the
    /// same order, so the same output. The two buffers, each the size of the level's `largest`
    /// bucket, are handed back and forth, so they are allocated (and their pages faulted in)
    /// once, not once per bucket or whenever a bucket is larger than the ones before.
    ///
    /// Returns `false` when no second thread can be had; then nothing has been read, drawn or
    /// written, and the caller gathers one bucket at a time.
    fn gather_pipelined<G>(
        &self,
        file: &SpillFile,
        buckets: &[(Bucket, Sealed)],
        largest: Bucket,
        children: &mut [G],
        run: &mut Run<'_, impl Write>,
    ) -> Result<bool, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let helpers = run.helpers;
        std::thread::scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::sync_channel(0);
            let (recycle, recycled) = std::sync::mpsc::channel::<Prepared>();
            let preparer = helpers.spawn_scoped(scope, "gather", move || {
                for ((bucket, sealed), child) in buckets.iter().zip(children) {
                    if bucket.records == 0 {
                        continue;
                    }
                    let spare = recycled.try_recv().unwrap_or_default();
                    let prepared = self.prepare_bucket(file, bucket, sealed, spare, largest, child);
                    let failed = prepared.is_err();
                    // The writer stops receiving after an error.
                    if sender.send(prepared).is_err() || failed {
                        return;
                    }
                }
            });
            if preparer.is_err() {
                return Ok(false);
            }
            for prepared in receiver {
                let prepared = prepared?;
                let (data, records) = (&prepared.data, &prepared.records);
                write_gathered(
                    records.len(),
                    |i| &data[records[i].0..records[i].1],
                    &mut run.output,
                )
                .map_err(ExternalError::Output)?;
                run.wrote(prepared.records.len() as u64, prepared.data.len() as u64);
                // The reader may be done: then the buffers are simply dropped.
                let _ = recycle.send(prepared);
            }
            Ok(true)
        })
    }

    /// Reads a bucket into `spare`'s buffers (sized for the level's `largest` bucket the first
    /// time, never zeroed beyond what the mapping gave), checks it, and shuffles the ranges of
    /// its records.
    fn prepare_bucket<G>(
        &self,
        file: &SpillFile,
        bucket: &Bucket,
        sealed: &Sealed,
        mut spare: Prepared,
        largest: Bucket,
        rng: &mut G,
    ) -> Result<Prepared, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let too_large = |bytes: u64| ExternalError::OutOfMemory { bytes };
        let len = usize::try_from(bucket.bytes).map_err(|_| too_large(bucket.bytes))?;
        if spare.data.capacity() < len {
            let capacity = usize::try_from(largest.bytes).map_err(|_| too_large(largest.bytes))?;
            // Freed before the larger one is mapped: never both at once.
            spare.data = PageBuf::default();
            spare.data = PageBuf::with_capacity(capacity.max(len))?;
        }
        spare.data.set_len(len);
        file.read_segment_into(sealed, &mut spare.data)?;
        file.discard(sealed);
        spare.records.clear();
        spare
            .records
            .try_reserve_exact(largest.records.max(bucket.records) as usize)
            .map_err(|_| too_large(largest.records * INDEX_BYTES_PER_RECORD))?;
        spare
            .records
            .extend(record_spans(self.separator, &spare.data));
        // Ranges are the size of the `&[u8]` slices `shuffle_bucket` shuffles, and the
        // permutation depends only on the length and the generator: the same order.
        fairdeal_parallel::Parallel::with_sampler(self.sampler).shuffle(&mut spare.records, rng);
        Ok(spare)
    }

    /// Reads a bucket that fits the budget, shuffles its records and appends them.
    fn shuffle_bucket<G>(
        &self,
        file: &SpillFile,
        bucket: &Bucket,
        sealed: &Sealed,
        run: &mut Run<'_, impl Write>,
        rng: &mut G,
    ) -> Result<(), ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let data = file.read_segment(sealed)?;
        file.discard(sealed);
        let mut records: Vec<&[u8]> = Vec::new();
        records
            .try_reserve_exact(bucket.records as usize)
            .map_err(|_| ExternalError::OutOfMemory {
                bytes: bucket.records * INDEX_BYTES_PER_RECORD,
            })?;
        records.extend(record_spans(self.separator, &data).map(|(start, end)| &data[start..end]));
        fairdeal_parallel::Parallel::with_sampler(self.sampler).shuffle(&mut records, rng);
        write_gathered(records.len(), |i| records[i], &mut run.output)
            .map_err(ExternalError::Output)?;
        run.wrote(records.len() as u64, data.len() as u64);
        Ok(())
    }

    /// A uniformly random sample of `min(k, records)` records of `input`, in uniformly random
    /// order, in one pass and `O(k)` memory (reservoir sampling, Algorithm R, then a shuffle of
    /// the reservoir). Each record keeps (or gains) its separator.
    ///
    /// # Errors
    ///
    /// [`ExternalError::Input`], [`ExternalError::SampleTooLarge`] when the sample's records
    /// (plus [`INDEX_BYTES_PER_RECORD`] each) exceed the budget, and
    /// [`ExternalError::OutOfMemory`].
    pub fn sample<G: Rng>(
        &self,
        mut input: impl Read,
        k: usize,
        rng: &mut G,
    ) -> Result<Vec<Vec<u8>>, ExternalError> {
        let mut reservoir: Vec<Vec<u8>> = Vec::new();
        if k == 0 {
            return Ok(reservoir);
        }
        let too_large = || ExternalError::SampleTooLarge {
            k: k as u64,
            budget: self.budget.bytes(),
        };
        let mut held_bytes = 0u64;
        let mut seen = 0usize;
        // `Some(Some(slot))`: inside a record going to `slot`; `Some(None)`: inside a record
        // that is skipped; `None`: between records.
        let mut open_record: Option<Option<usize>> = None;
        let mut buf = try_buffer(STREAM_BUFFER)?;
        loop {
            let n = read_some(&mut input, &mut buf).map_err(ExternalError::Input)?;
            if n == 0 {
                break;
            }
            let mut chunk = &buf[..n];
            while !chunk.is_empty() {
                let slot = match open_record {
                    Some(slot) => slot,
                    None => {
                        let slot = if seen < k {
                            reservoir.try_reserve(1).map_err(|_| too_large())?;
                            reservoir.push(Vec::new());
                            Some(seen)
                        } else {
                            let bound = seen.checked_add(1).ok_or_else(too_large)?;
                            let j = self.sampler.index_below(rng, bound);
                            (j < k).then(|| {
                                held_bytes -= reservoir[j].len() as u64;
                                reservoir[j] = Vec::new();
                                j
                            })
                        };
                        seen += 1;
                        slot
                    }
                };
                let (part, rest, done) = match memchr::memchr(self.separator, chunk) {
                    Some(end) => (&chunk[..=end], &chunk[end + 1..], true),
                    None => (chunk, &[][..], false),
                };
                if let Some(slot) = slot {
                    held_bytes += part.len() as u64;
                    if !self.budget.holds(held_bytes, reservoir.len() as u64) {
                        return Err(too_large());
                    }
                    reservoir[slot].try_reserve(part.len()).map_err(|_| {
                        ExternalError::OutOfMemory {
                            bytes: part.len() as u64,
                        }
                    })?;
                    reservoir[slot].extend_from_slice(part);
                }
                open_record = if done { None } else { Some(slot) };
                chunk = rest;
            }
        }
        if let Some(Some(slot)) = open_record {
            reservoir[slot].push(self.separator);
        }
        // Algorithm R leaves a uniform *set*; shuffling it makes the order uniform too.
        fairdeal_inplace::Inplace::with_sampler(self.sampler).shuffle(&mut reservoir, rng);
        Ok(reservoir)
    }
}

/// A bucket read back and shuffled, as the ranges of its records in its bytes.
#[derive(Default)]
struct Prepared {
    data: PageBuf,
    records: Vec<(usize, usize)>,
}

/// The state one external shuffle threads through its levels.
struct Run<'a, W: Write> {
    /// The directory of the spill files (empty while an in-memory scatter has not spilled).
    scratch: PathBuf,
    output: BufWriter<W>,
    progress: &'a mut dyn Progress,
    summary: Summary,
    /// Spill files of finished levels, emptied, for the next scatter: one file per level
    /// in use, however many buckets are split.
    free: Vec<SpillFile>,
    /// How the run's helper threads start.
    helpers: Helpers,
}

impl<'a, W: Write> Run<'a, W> {
    fn new(scratch: PathBuf, output: W, progress: &'a mut dyn Progress, helpers: Helpers) -> Self {
        Run {
            scratch,
            output: BufWriter::with_capacity(STREAM_BUFFER, output),
            progress,
            summary: Summary::default(),
            free: Vec::new(),
            helpers,
        }
    }

    fn wrote(&mut self, records: u64, bytes: u64) {
        self.summary.records += records;
        self.summary.bytes += bytes;
        self.progress.written(bytes);
    }

    /// An empty spill file: a released one, or a new one in the scratch directory.
    fn spill_file(&mut self) -> Result<SpillFile, ExternalError> {
        match self.free.pop() {
            Some(file) => Ok(file),
            None => SpillFile::anonymous_in(&self.scratch),
        }
    }

    /// Keeps a level's file for reuse once emptied (its disk space is freed now); one that
    /// cannot be emptied is dropped, which frees it too.
    fn release(&mut self, mut file: SpillFile) {
        if file.clear().is_ok() {
            self.free.push(file);
        }
    }
}

/// The level's spill file, taken from `run` at the first flush.
fn level_file<'f>(
    file: &'f mut Option<SpillFile>,
    run: &mut Run<'_, impl Write>,
) -> Result<&'f mut SpillFile, ExternalError> {
    if file.is_none() {
        *file = Some(run.spill_file()?);
    }
    Ok(file.as_mut().expect("just created"))
}

/// Full bucket buffers handed to the writer thread at a time: a hand-over may wake that thread
/// (a system call, and in a virtual machine an interrupt to another core), so not one per
/// [`BUCKET_BUFFER`].
const WRITE_BATCH: usize = 8;

/// A level's spill writes on a second thread ("write-behind"): full bucket buffers go to it in
/// batches of [`WRITE_BATCH`], are appended in the order they were handed over (so every
/// segment's extents and checksum are those of writing them here) and come back empty. At most
/// two batches wait or are being written while a third fills.
struct Behind {
    batch: Batch,
    jobs: Option<std::sync::mpsc::SyncSender<Batch>>,
    spares: std::sync::mpsc::Receiver<Vec<u8>>,
    thread: Option<std::thread::JoinHandle<Written>>,
}

/// Full buffers, each with its bucket, in the order they were filled.
type Batch = Vec<(usize, Vec<u8>)>;

/// What the writer thread hands back: the level's file and its segments, or its first error.
type Written = Result<(SpillFile, Vec<Segment>), ExternalError>;

impl Behind {
    /// Starts the writer thread with `file`; when no thread can be had (a process or memory
    /// limit) the file comes back, for this thread to write to.
    fn start(file: SpillFile, helpers: Helpers) -> Result<Self, SpillFile> {
        let (jobs, queue) = std::sync::mpsc::sync_channel::<Batch>(1);
        let (spare, spares) = std::sync::mpsc::channel();
        // The file goes to the thread once it runs, so a refused thread cannot take it along.
        let (hand_over, handed) = std::sync::mpsc::sync_channel::<SpillFile>(1);
        let spawned = helpers.spawn("spill writer", move || {
            let mut file = handed.recv().expect("the file is handed over first");
            let mut segments: Vec<Segment> = (0..FAN_OUT).map(|_| Segment::new()).collect();
            for batch in queue {
                for (b, mut buffer) in batch {
                    file.append(&mut segments[b], &buffer)?;
                    // A long record's own buffer is not kept as a bucket buffer.
                    if buffer.capacity() <= BUCKET_BUFFER {
                        buffer.clear();
                        let _ = spare.send(buffer);
                    }
                }
            }
            Ok((file, segments))
        });
        let Ok(thread) = spawned else {
            return Err(file);
        };
        // The thread waits on this channel before anything else, so it holds the file.
        hand_over.send(file).expect("the writer waits for its file");
        Ok(Self {
            batch: Vec::with_capacity(WRITE_BATCH),
            jobs: Some(jobs),
            spares,
            thread: Some(thread),
        })
    }

    /// Queues `buffer` for bucket `b`; returns an empty buffer to fill next if one has come
    /// back.
    fn push(&mut self, b: usize, buffer: Vec<u8>) -> Result<Option<Vec<u8>>, ExternalError> {
        self.batch.push((b, buffer));
        if self.batch.len() >= WRITE_BATCH {
            self.send()?;
        }
        Ok(self.spares.try_recv().ok())
    }

    fn send(&mut self) -> Result<(), ExternalError> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(WRITE_BATCH));
        let jobs = self.jobs.as_ref().expect("sending before the end");
        if jobs.send(batch).is_err() {
            // The writer stops before the end only on an error: that error.
            return Err(match self.join() {
                Err(e) => e,
                Ok(_) => unreachable!("the writer stops early only on an error"),
            });
        }
        Ok(())
    }

    /// Writes what is queued and hands back the file and its segments.
    fn finish(mut self) -> Written {
        if !self.batch.is_empty() {
            self.send()?;
        }
        self.join()
    }

    fn join(&mut self) -> Written {
        // Without a sender the writer ends after the last batch.
        self.jobs = None;
        match self.thread.take().expect("joined once").join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for Behind {
    /// A level given up (an error elsewhere) lets its writer finish what it was handed, so no
    /// thread outlives the shuffle.
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The buckets of one scatter being written: a buffer per bucket, flushed to its segment of
/// the level's one spill file (created at the first flush). On a pool of two or more threads
/// the writes happen on a second thread ([`Behind`]); the file's bytes are the same.
struct BucketWriter {
    file: Option<SpillFile>,
    buffers: Vec<Vec<u8>>,
    segments: Vec<Segment>,
    buckets: Vec<Bucket>,
    /// Whether the writes go to a [`Behind`] (started at the first flush).
    write_behind: bool,
    behind: Option<Behind>,
}

impl BucketWriter {
    fn new() -> Self {
        Self {
            file: None,
            buffers: (0..FAN_OUT).map(|_| Vec::new()).collect(),
            segments: (0..FAN_OUT).map(|_| Segment::new()).collect(),
            buckets: vec![Bucket::default(); FAN_OUT],
            write_behind: rayon::current_num_threads() >= 2,
            behind: None,
        }
    }

    /// The writer thread, started with the level's file at the first flush; `None` when the
    /// writes happen on this thread (one thread, or no second thread to be had: then this one
    /// writes to the same file).
    fn behind(
        &mut self,
        run: &mut Run<'_, impl Write>,
    ) -> Result<Option<&mut Behind>, ExternalError> {
        if self.write_behind && self.behind.is_none() {
            match Behind::start(run.spill_file()?, run.helpers) {
                Ok(behind) => self.behind = Some(behind),
                Err(file) => {
                    self.file = Some(file);
                    self.write_behind = false;
                }
            }
        }
        Ok(self.behind.as_mut())
    }

    /// Appends `bytes` to bucket `b` (the caller counts its records).
    fn append(
        &mut self,
        b: usize,
        bytes: &[u8],
        run: &mut Run<'_, impl Write>,
    ) -> Result<(), ExternalError> {
        self.buckets[b].bytes += bytes.len() as u64;
        if self.buffers[b].len() + bytes.len() > BUCKET_BUFFER {
            self.flush(b, run)?;
            if bytes.len() >= BUCKET_BUFFER {
                return match self.behind(run)? {
                    Some(behind) => behind.push(b, bytes.to_vec()).map(drop),
                    None => level_file(&mut self.file, run)?.append(&mut self.segments[b], bytes),
                };
            }
        }
        let buffer = &mut self.buffers[b];
        if buffer.capacity() == 0 {
            buffer
                .try_reserve_exact(BUCKET_BUFFER)
                .map_err(|_| ExternalError::OutOfMemory {
                    bytes: BUCKET_BUFFER as u64,
                })?;
        }
        buffer.extend_from_slice(bytes);
        Ok(())
    }

    fn flush(&mut self, b: usize, run: &mut Run<'_, impl Write>) -> Result<(), ExternalError> {
        if self.buffers[b].is_empty() {
            return Ok(());
        }
        let mut buffer = std::mem::take(&mut self.buffers[b]);
        let next = match self.behind(run)? {
            Some(behind) => behind.push(b, buffer)?.unwrap_or_default(),
            None => {
                level_file(&mut self.file, run)?.append(&mut self.segments[b], &buffer)?;
                buffer.clear();
                buffer
            }
        };
        self.buffers[b] = next;
        Ok(())
    }

    /// Flushes every buffer and seals the segments.
    fn finish(mut self, run: &mut Run<'_, impl Write>) -> Result<Level, ExternalError> {
        for b in 0..FAN_OUT {
            self.flush(b, run)?;
            self.buffers[b] = Vec::new();
        }
        if let Some(behind) = self.behind.take() {
            let (file, segments) = behind.finish()?;
            self.file = Some(file);
            self.segments = segments;
        }
        run.summary.bucket_files += self.buckets.iter().filter(|b| b.records > 0).count() as u64;
        if let Some(file) = &mut self.file {
            file.plan_discards();
        }
        Ok(Level {
            file: self.file,
            buckets: self
                .buckets
                .into_iter()
                .zip(self.segments)
                .map(|(bucket, segment)| (bucket, segment.seal()))
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A level is gathered two at a time when two buffers of its largest bucket (the most
    /// bytes and the most records of any one bucket) fit the budget together; both buffers are
    /// then allocated at that size.
    #[test]
    fn a_level_pipelines_when_two_of_its_largest_bucket_fit() {
        let shuffle = ExternalShuffle::new(MemoryBudget::new(64 << 20).unwrap(), b'\n');
        let level = |sizes: &[(u64, u64)]| -> Vec<(Bucket, Sealed)> {
            sizes
                .iter()
                .map(|&(bytes, records)| (Bucket { bytes, records }, Segment::new().seal()))
                .collect()
        };
        // 2 × (20 MiB + 16 × 100,000) fits 64 MiB; the maxima come from different buckets.
        let largest = shuffle
            .pipelines(&level(&[(20 << 20, 1_000), (10 << 20, 100_000), (0, 0)]))
            .unwrap();
        assert_eq!((largest.bytes, largest.records), (20 << 20, 100_000));
        // 2 × 31 MiB plus the index does not.
        assert!(
            shuffle
                .pipelines(&level(&[(31 << 20, 100_000), (1 << 20, 10)]))
                .is_none()
        );
        // An empty level pipelines trivially, with empty buffers.
        assert_eq!(shuffle.pipelines(&level(&[])).map(|b| b.bytes), Some(0));
    }

    /// Helpers for a run of 1 MiB.
    fn test_helpers() -> Helpers {
        Helpers::for_budget(MemoryBudget::new(1 << 20).unwrap())
    }

    /// When no helper thread can be had (a process or memory limit), the read-ahead, the spill
    /// writer and the gather's second bucket give way to the calling thread: the same output,
    /// no panic, no file left behind, with the prefix handed over still scattered first.
    #[test]
    fn without_helper_threads_the_output_is_the_same() {
        let input: Vec<u8> = (0..200_000u32)
            .flat_map(|i| format!("record {i} {}\n", "z".repeat(i as usize % 50)).into_bytes())
            .collect();
        let (prefix, rest) = input.split_at(100_000);
        // 7.6 MB through 2 MiB: one level of buckets on disk, each small enough to pipeline.
        let shuffle =
            ExternalShuffle::new(MemoryBudget::new(2 << 20).unwrap(), b'\n').spill_at_once(true);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let run = || {
            let dir = tempfile::tempdir().unwrap();
            let mut output = Vec::new();
            let mut scratch = || Ok(dir.path().to_path_buf());
            let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
            let summary = shuffle
                .shuffle_spilling(
                    prefix.to_vec(),
                    rest,
                    &mut output,
                    &mut scratch,
                    &mut rng,
                    &mut (),
                )
                .unwrap();
            assert_eq!(summary.depth, 1);
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
            assert!(left.is_empty(), "files left behind: {left:?}");
            output
        };
        let threaded = pool.install(run);
        let (alone, asked) = pool.install(|| threads::refusal::during(run));
        assert_eq!(
            asked, 3,
            "the read-ahead, the spill writer, the gather's second bucket"
        );
        assert!(alone == threaded, "the same output without helper threads");
        let sorted = |bytes: &[u8]| {
            let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            lines.sort_unstable();
            lines.into_iter().map(<[u8]>::to_vec).collect::<Vec<_>>()
        };
        assert!(threaded != input && sorted(&threaded) == sorted(&input));
    }

    /// A writer thread that cannot be had hands its file back, with what was written to it,
    /// so the level goes on in the same file on this thread.
    #[test]
    fn a_refused_writer_hands_its_file_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SpillFile::anonymous_in(dir.path()).unwrap();
        let mut segment = Segment::new();
        file.append(&mut segment, b"written before\n").unwrap();
        let (started, asked) = threads::refusal::during(|| Behind::start(file, test_helpers()));
        assert_eq!(asked, 1);
        let file = started.err().expect("no thread to be had");
        assert_eq!(
            *file.read_segment(&segment.seal()).unwrap(),
            b"written before\n"[..]
        );
    }

    /// The writer thread appends in the order it was handed buffers (the segments read back
    /// whole), and a write that fails there comes back as the shuffle's error, at the next
    /// hand-over or at the end.
    #[test]
    fn the_writer_thread_keeps_the_order_and_hands_back_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut behind =
            Behind::start(SpillFile::anonymous_in(dir.path()).unwrap(), test_helpers())
                .ok()
                .unwrap();
        let mut expected: Vec<Vec<u8>> = vec![Vec::new(); FAN_OUT];
        for i in 0..100u32 {
            let b = (i as usize * 7) % 3;
            let buffer = format!("piece {i} of bucket {b}\n").into_bytes();
            expected[b].extend_from_slice(&buffer);
            behind.push(b, buffer).unwrap();
        }
        let (file, segments) = behind.finish().unwrap();
        for (b, segment) in segments.into_iter().enumerate() {
            assert_eq!(
                *file.read_segment(&segment.seal()).unwrap(),
                expected[b][..]
            );
        }

        // A file opened for reading only: every append fails.
        let path = dir.path().join("read-only");
        std::fs::write(&path, b"").unwrap();
        let read_only = std::fs::File::open(&path).unwrap();
        let mut behind = Behind::start(SpillFile::over(read_only, dir.path()), test_helpers())
            .ok()
            .unwrap();
        let mut failed = None;
        for i in 0..10 * WRITE_BATCH {
            if let Err(e) = behind.push(i % FAN_OUT, vec![b'x'; 10]) {
                failed = Some(e);
                break;
            }
        }
        let error = match failed {
            Some(e) => e,
            None => behind.finish().unwrap_err(),
        };
        assert!(
            matches!(error, ExternalError::TempWrite { .. }),
            "{error:?}"
        );
    }
}
