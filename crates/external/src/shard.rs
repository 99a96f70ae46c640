//! The external shuffle cut into independent tasks, for a cluster: a *plan*, *scatter* tasks
//! and *gather* tasks that any engine able to run N copies of a command with an index (Slurm
//! job arrays, GNU parallel, a plain loop) can run, on any number of machines sharing a
//! filesystem.
//!
//! - [`plan`] fixes the run: the input files and their sizes, the chunks (fixed-size,
//!   line-aligned pieces of the inputs), the bucket count and the seed, in `DIR/shard/run.json`.
//! - [`scatter`] task `i` of `p` takes a contiguous range of chunks. For each chunk it labels
//!   every record with an iid uniform bucket in `0..buckets`, drawn from a generator seeded by
//!   `(seed, chunk index)`, and writes the chunk's records grouped by bucket (in input order
//!   within a bucket) to one spill file, with a manifest of each bucket's range, line count,
//!   byte count and checksum.
//! - [`gather`] task `j` of `p` takes a contiguous range of buckets. For each bucket it reads
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

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use fairdeal_core::{Batched, Rng, SeedableRng, lemire_index_below, stream_seed};
use serde::{Deserialize, Serialize};

use crate::MemoryBudget;

/// The format version written to every manifest.
pub const FORMAT: u32 = 2;

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

/// One input file of a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputFile {
    /// Its absolute path.
    pub path: PathBuf,
    /// Its size in bytes when the run was planned.
    pub bytes: u64,
    /// The global index of its first chunk.
    pub first_chunk: u64,
    /// Its chunks: `ceil(bytes / chunk_bytes)`.
    pub chunks: u64,
}

/// The run manifest, `DIR/shard/run.json`: everything the output depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunManifest {
    /// [`FORMAT`].
    pub format: u32,
    /// The seed.
    pub seed: u64,
    /// The generator's name (its seeds come from [`stream_seed`]).
    pub generator: String,
    /// The record separator (10 for lines, 0 for NUL-terminated records).
    pub separator: u8,
    /// Nominal bytes per chunk.
    pub chunk_bytes: u64,
    /// Buckets, hence part files.
    pub buckets: u32,
    /// Total input bytes.
    pub total_bytes: u64,
    /// Chunks over all inputs.
    pub chunks: u64,
    /// The inputs, in order.
    pub inputs: Vec<InputFile>,
}

/// What a plan needs besides the inputs.
#[derive(Debug, Clone)]
pub struct PlanConfig {
    /// The seed.
    pub seed: u64,
    /// The generator's name, recorded in the manifest.
    pub generator: String,
    /// The record separator.
    pub separator: u8,
    /// Bytes per chunk ([`DEFAULT_CHUNK_BYTES`] unless set).
    pub chunk_bytes: u64,
    /// The bucket count; `None` for [`default_buckets`] of the input size.
    pub buckets: Option<u32>,
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

/// The paths of a run directory.
#[derive(Debug, Clone)]
pub struct RunDir {
    root: PathBuf,
}

impl RunDir {
    /// The run in directory `root` (the output directory of the parts).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }
    /// The output directory.
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `DIR/shard`.
    pub fn work(&self) -> PathBuf {
        self.root.join(WORK_DIR)
    }
    /// The run manifest.
    pub fn run_manifest(&self) -> PathBuf {
        self.work().join("run.json")
    }
    fn spill_dir(&self) -> PathBuf {
        self.work().join("spill")
    }
    fn gather_dir(&self) -> PathBuf {
        self.work().join("gather")
    }
    /// Chunk `c`'s spill file.
    pub fn spill(&self, chunk: u64) -> PathBuf {
        self.spill_dir().join(format!("chunk-{chunk:09}"))
    }
    /// Chunk `c`'s manifest.
    pub fn spill_manifest(&self, chunk: u64) -> PathBuf {
        self.spill_dir().join(format!("chunk-{chunk:09}.json"))
    }
    /// Bucket `b`'s part file.
    pub fn part(&self, bucket: u32) -> PathBuf {
        self.root.join(part_name(bucket))
    }
    /// Bucket `b`'s part manifest.
    pub fn part_manifest(&self, bucket: u32) -> PathBuf {
        self.gather_dir()
            .join(format!("{}.json", part_name(bucket)))
    }

    /// Reads the run manifest.
    ///
    /// # Errors
    ///
    /// [`ShardError::MissingManifest`], [`ShardError::CorruptManifest`], [`ShardError::Io`].
    pub fn load(&self) -> Result<RunManifest, ShardError> {
        let path = self.run_manifest();
        let run: RunManifest = read_json(&path, "run `fairdeal shard plan` first")?;
        let bad = |reason: &str| ShardError::CorruptManifest {
            path: path.clone(),
            reason: reason.to_string(),
        };
        if run.format != FORMAT {
            return Err(bad("unknown format version"));
        }
        if run.buckets == 0 || run.buckets > MAX_BUCKETS || run.chunk_bytes < MIN_CHUNK_BYTES {
            return Err(bad("bucket count or chunk size out of range"));
        }
        let mut next = 0u64;
        let mut total = 0u64;
        for input in &run.inputs {
            if input.first_chunk != next || input.chunks != input.bytes.div_ceil(run.chunk_bytes) {
                return Err(bad("the chunk list does not match the input sizes"));
            }
            next += input.chunks;
            total += input.bytes;
        }
        if next != run.chunks || total != run.total_bytes {
            return Err(bad("the totals do not match the inputs"));
        }
        Ok(run)
    }
}

/// The name of bucket `b`'s part file: `part-NNNNN`.
pub fn part_name(bucket: u32) -> String {
    format!("part-{bucket:05}")
}

fn read_json<T: for<'de> Deserialize<'de>>(
    path: &Path,
    hint: &'static str,
) -> Result<T, ShardError> {
    let text = match fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ShardError::MissingManifest {
                path: path.to_path_buf(),
                hint,
            });
        }
        Err(e) => return Err(io_error("cannot read", path)(e)),
    };
    serde_json::from_slice(&text).map_err(|e| ShardError::CorruptManifest {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Writes a file atomically and privately: a temporary file (mode 0600) in the same directory,
/// filled by `fill`, synced and renamed to `path`. A reader sees the old file, or the whole new
/// one, never part of it; a killed writer leaves at most a `.tmp` file that nothing reads.
fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
) -> Result<(), ShardError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let temp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map_err(io_error("cannot create a file in", dir))?;
    {
        let mut writer = BufWriter::with_capacity(256 << 10, temp.as_file());
        fill(&mut writer).map_err(io_error("cannot write", temp.path()))?;
        writer
            .flush()
            .map_err(io_error("cannot write", temp.path()))?;
    }
    temp.as_file()
        .sync_all()
        .map_err(io_error("cannot write", temp.path()))?;
    temp.persist(path)
        .map_err(|e| io_error("cannot rename a temporary file to", path)(e.error))?;
    Ok(())
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), ShardError> {
    write_atomic(path, |w| {
        serde_json::to_writer_pretty(&mut *w, value)?;
        w.write_all(b"\n")
    })
}

/// Creates a directory of the run (and its parents), private (0700) where the platform has
/// modes: spill files hold the input's lines.
fn create_dir(dir: &Path) -> Result<(), ShardError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(io_error("cannot create directory", dir))
}

/// Plans a run: records the inputs (absolute paths, sizes, chunks), the chunk size, the bucket
/// count and the seed in `DIR/shard/run.json`. Planning the same run again is harmless; a
/// different one in the same directory is refused.
///
/// # Errors
///
/// [`ShardError::Io`] for an unreadable input or directory, [`ShardError::Invalid`] for a
/// parameter out of range, [`ShardError::OtherRun`].
pub fn plan(
    dir: &RunDir,
    inputs: &[PathBuf],
    config: &PlanConfig,
) -> Result<RunManifest, ShardError> {
    if inputs.is_empty() {
        return Err(ShardError::Invalid("give at least one input file".into()));
    }
    if config.chunk_bytes < MIN_CHUNK_BYTES {
        return Err(ShardError::Invalid(format!(
            "--chunk-size must be at least {MIN_CHUNK_BYTES} bytes"
        )));
    }
    if let Some(b) = config.buckets
        && (b == 0 || b > MAX_BUCKETS)
    {
        return Err(ShardError::Invalid(format!(
            "--buckets must be between 1 and {MAX_BUCKETS}, got {b}"
        )));
    }
    let mut files = Vec::with_capacity(inputs.len());
    let (mut chunks, mut total) = (0u64, 0u64);
    for input in inputs {
        let path = fs::canonicalize(input).map_err(io_error("cannot read input", input))?;
        let meta = fs::metadata(&path).map_err(io_error("cannot read input", input))?;
        if !meta.is_file() {
            return Err(ShardError::Invalid(format!(
                "input '{}' is not a regular file (a sharded shuffle reads its inputs at known offsets)",
                input.display()
            )));
        }
        let n = meta.len().div_ceil(config.chunk_bytes);
        files.push(InputFile {
            path,
            bytes: meta.len(),
            first_chunk: chunks,
            chunks: n,
        });
        chunks += n;
        total += meta.len();
    }
    let run = RunManifest {
        format: FORMAT,
        seed: config.seed,
        generator: config.generator.clone(),
        separator: config.separator,
        chunk_bytes: config.chunk_bytes,
        buckets: config.buckets.unwrap_or_else(|| default_buckets(total)),
        total_bytes: total,
        chunks,
        inputs: files,
    };
    create_dir(&dir.spill_dir())?;
    create_dir(&dir.gather_dir())?;
    match dir.load() {
        Ok(existing) if existing == run => return Ok(run),
        Ok(_) => {
            return Err(ShardError::OtherRun {
                path: dir.run_manifest(),
            });
        }
        Err(ShardError::MissingManifest { .. }) => {}
        Err(e) => return Err(e),
    }
    write_json(&dir.run_manifest(), &run)?;
    Ok(run)
}

/// The manifest of one chunk's spill file: per bucket, its range of the file and its tally.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SpillManifest {
    format: u32,
    seed: u64,
    chunk: u64,
    buckets: u32,
    /// Bytes of the spill file.
    bytes: u64,
    /// Per bucket: lines.
    lines: Vec<u64>,
    /// Per bucket: bytes (the ranges follow each other from offset 0).
    sizes: Vec<u64>,
    /// Per bucket: checksum ([`hex`]), the order-independent sum of its lines' hashes.
    sums: Vec<String>,
    /// Per bucket: the xxh3-64 of its range's bytes (16 hex digits), which the gather checks
    /// the range against.
    hashes: Vec<String>,
    /// Per bucket: where its range starts (computed when read).
    #[serde(skip)]
    offsets: Vec<u64>,
    /// `sums` parsed (when read).
    #[serde(skip)]
    line_sums: Vec<u128>,
    /// `hashes` parsed (when read).
    #[serde(skip)]
    range_hashes: Vec<u64>,
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

/// Scatter task `task` of `tasks`: labels and spills its share of the chunks.
///
/// # Errors
///
/// [`ShardError::InputChanged`], [`ShardError::ChunkTooLarge`], the manifest and I/O errors.
pub fn scatter<G: Rng + SeedableRng>(
    dir: &RunDir,
    task: u64,
    tasks: u64,
    budget: MemoryBudget,
) -> Result<TaskSummary, ShardError> {
    check_task(task, tasks)?;
    let run = dir.load()?;
    let mut summary = TaskSummary::default();
    let range = share(run.chunks, task, tasks);
    // Reused from chunk to chunk: allocated (and their pages faulted in) once per task.
    let mut data = Vec::new();
    let mut index = ChunkIndex::default();
    for input in &run.inputs {
        let mine =
            range.start.max(input.first_chunk)..range.end.min(input.first_chunk + input.chunks);
        if mine.is_empty() {
            continue;
        }
        let mut file =
            File::open(&input.path).map_err(io_error("cannot read input", &input.path))?;
        let now = file
            .metadata()
            .map_err(io_error("cannot read input", &input.path))?
            .len();
        if now != input.bytes {
            return Err(ShardError::InputChanged {
                path: input.path.clone(),
                planned: input.bytes,
                now,
            });
        }
        for chunk in mine {
            let local = chunk - input.first_chunk;
            let start = local * run.chunk_bytes;
            let end = (start + run.chunk_bytes).min(input.bytes);
            let first = read_chunk(
                &mut file,
                &input.path,
                start..end,
                &run,
                chunk,
                budget,
                &mut data,
            )?;
            summary.bytes_read += (data.len() - first) as u64;
            spill_chunk::<G>(dir, &run, chunk, &data[first..], &mut index, &mut summary)?;
            summary.units += 1;
        }
    }
    Ok(summary)
}

/// Reads the bytes of the records starting in `[start, end)` of a file into `data` (emptied
/// first) and returns the offset in it where they begin: a record starts at 0 or after a separator; the last one runs to its
/// separator or to the end of the file (and gets one there).
fn read_chunk(
    file: &mut File,
    path: &Path,
    Range { start, end }: Range<u64>,
    run: &RunManifest,
    chunk: u64,
    budget: MemoryBudget,
    data: &mut Vec<u8>,
) -> Result<usize, ShardError> {
    let sep = run.separator;
    let read_error = io_error("cannot read input", path);
    let from = start.saturating_sub(1);
    file.seek(SeekFrom::Start(from)).map_err(read_error)?;
    let want = (end - from) as usize;
    data.clear();
    data.try_reserve_exact(want + 1)
        .map_err(|_| ShardError::OutOfMemory { bytes: want as u64 })?;
    Read::by_ref(file)
        .take(end - from)
        .read_to_end(data)
        .map_err(io_error("cannot read input", path))?;
    if data.len() != want {
        return Err(ShardError::InputChanged {
            path: path.to_path_buf(),
            planned: run
                .inputs
                .iter()
                .find(|i| i.path == path)
                .map_or(0, |i| i.bytes),
            now: from + data.len() as u64,
        });
    }
    // Where the first record starting at or after `start` begins.
    let first = if start == 0 {
        0
    } else {
        match memchr::memchr(sep, data) {
            Some(i) => i + 1,
            None => data.len(),
        }
    };
    // Finish a record that runs past `end`.
    let too_large = |bytes: usize, records: u64| ShardError::ChunkTooLarge {
        chunk,
        bytes: bytes as u64,
        records,
        budget: budget.bytes(),
    };
    let mut records = memchr::memchr_iter(sep, &data[first..]).count() as u64;
    if data.len() > first && data.last() != Some(&sep) {
        records += 1;
        let mut piece = vec![0u8; 64 << 10];
        loop {
            let n = loop {
                match file.read(&mut piece) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other.map_err(io_error("cannot read input", path))?,
                }
            };
            if n == 0 {
                data.push(sep);
                break;
            }
            let take = memchr::memchr(sep, &piece[..n]).map_or(n, |i| i + 1);
            data.extend_from_slice(&piece[..take]);
            let bytes = data.len() - first;
            if !budget.holds(bytes as u64 + 8 * records, records) {
                return Err(too_large(bytes, records));
            }
            if take < n || data.last() == Some(&sep) {
                break;
            }
        }
    }
    let bytes = data.len() - first;
    if !budget.holds(bytes as u64 + 8 * records, records) {
        return Err(too_large(bytes, records));
    }
    Ok(first)
}

/// A chunk's records' labels and ends, and the grouped order, kept from chunk to chunk.
#[derive(Default)]
struct ChunkIndex {
    labels: Vec<u32>,
    ends: Vec<usize>,
    order: Vec<usize>,
}

/// The most buckets a scatter writes in input order, through one staging buffer per bucket
/// (64 KiB each, 4 MiB at most); with more, it writes bucket after bucket.
const IN_ORDER_MAX_BUCKETS: usize = 64;

/// Bytes of each bucket's staging buffer when a scatter writes in input order.
const IN_ORDER_STAGING_BYTES: usize = 64 << 10;

/// Labels the records of one chunk and writes them grouped by bucket, then the manifest.
fn spill_chunk<G: Rng + SeedableRng>(
    dir: &RunDir,
    run: &RunManifest,
    chunk: u64,
    data: &[u8],
    index: &mut ChunkIndex,
    summary: &mut TaskSummary,
) -> Result<(), ShardError> {
    let sep = run.separator;
    let buckets = run.buckets as usize;
    let mut rng = G::seed_from_u64(stream_seed(stream_seed(run.seed, LABELS), chunk));
    let ChunkIndex {
        labels,
        ends,
        order,
    } = index;
    labels.clear();
    ends.clear();
    let mut counts = vec![0usize; buckets];
    for end in memchr::memchr_iter(sep, data) {
        let label = if buckets == 1 {
            0
        } else {
            lemire_index_below(&mut rng, buckets)
        };
        counts[label] += 1;
        labels.push(label as u32);
        ends.push(end + 1);
    }
    let grouped = if cfg!(unix) && buckets <= IN_ORDER_MAX_BUCKETS {
        Grouped::InOrder
    } else {
        Grouped::ByBucket
    };
    let (tallies, hashes) = write_grouped(
        &dir.spill(chunk),
        data,
        labels,
        ends,
        order,
        &counts,
        grouped,
    )?;
    let manifest = SpillManifest {
        format: FORMAT,
        seed: run.seed,
        chunk,
        buckets: run.buckets,
        bytes: data.len() as u64,
        lines: tallies.iter().map(|t| t.lines).collect(),
        sizes: tallies.iter().map(|t| t.bytes).collect(),
        sums: tallies.iter().map(|t| hex(t.sum)).collect(),
        hashes: hashes.iter().map(|&h| format!("{h:016x}")).collect(),
        offsets: Vec::new(),
        line_sums: Vec::new(),
        range_hashes: Vec::new(),
    };
    write_json(&dir.spill_manifest(chunk), &manifest)?;
    summary.lines += labels.len() as u64;
    summary.bytes_written += data.len() as u64;
    summary.files += 2;
    Ok(())
}

/// How a scatter writes a chunk's records grouped by bucket (the same bytes either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grouped {
    /// Reads the records in input order (sequentially), appending each to its bucket's
    /// staging buffer, written at the bucket's offset in the file when full.
    InOrder,
    /// Sorts the record indices by bucket and writes bucket after bucket.
    ByBucket,
}

/// Writes `data`'s records (ending at `ends`, labelled by `labels`, `counts` per bucket)
/// grouped by bucket, in input order within a bucket, to `path` atomically; returns each
/// bucket's tally (its lines hashed) and the xxh3-64 of its bytes.
fn write_grouped(
    path: &Path,
    data: &[u8],
    labels: &[u32],
    ends: &[usize],
    order: &mut Vec<usize>,
    counts: &[usize],
    grouped: Grouped,
) -> Result<(Vec<Tally>, Vec<u64>), ShardError> {
    let buckets = counts.len();
    let record = |i: usize| {
        let start = if i == 0 { 0 } else { ends[i - 1] };
        &data[start..ends[i]]
    };
    let mut tallies = vec![Tally::default(); buckets];
    let mut hashes = vec![0u64; buckets];
    // Positioned writes need `FileExt`: elsewhere, bucket after bucket.
    #[cfg(not(unix))]
    let _ = (grouped, IN_ORDER_STAGING_BYTES);
    #[cfg(unix)]
    if grouped == Grouped::InOrder {
        use std::os::unix::fs::FileExt as _;
        write_atomic(path, |w| {
            let file: &File = w.get_ref();
            // Where each bucket's next bytes go: its range starts where the ranges of the
            // buckets before it end.
            let mut at: Vec<u64> = Vec::with_capacity(buckets);
            let mut sizes = vec![0u64; buckets];
            for (i, &label) in labels.iter().enumerate() {
                sizes[label as usize] += record(i).len() as u64;
            }
            let mut offset = 0;
            for size in &sizes {
                at.push(offset);
                offset += size;
            }
            let mut staging: Vec<Vec<u8>> = (0..buckets)
                .map(|_| Vec::with_capacity(IN_ORDER_STAGING_BYTES))
                .collect();
            let mut hashers: Vec<xxhash_rust::xxh3::Xxh3> = (0..buckets)
                .map(|_| xxhash_rust::xxh3::Xxh3::new())
                .collect();
            let mut put = |b: usize, bytes: &[u8], at: &mut u64| -> io::Result<()> {
                hashers[b].update(bytes);
                file.write_all_at(bytes, *at)?;
                *at += bytes.len() as u64;
                Ok(())
            };
            for (i, &label) in labels.iter().enumerate() {
                let b = label as usize;
                let line = record(i);
                tallies[b].add_line(line);
                let stage = &mut staging[b];
                if stage.len() + line.len() > IN_ORDER_STAGING_BYTES {
                    put(b, stage, &mut at[b])?;
                    stage.clear();
                    if line.len() > IN_ORDER_STAGING_BYTES {
                        put(b, line, &mut at[b])?;
                        continue;
                    }
                }
                stage.extend_from_slice(line);
            }
            for b in 0..buckets {
                put(b, &staging[b], &mut at[b])?;
            }
            for (hash, hasher) in hashes.iter_mut().zip(&hashers) {
                *hash = hasher.digest();
            }
            Ok(())
        })?;
        return Ok((tallies, hashes));
    }
    // A counting sort: the record indices grouped by label, input order within a label.
    let mut next: Vec<usize> = counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect();
    order.clear();
    order.resize(labels.len(), 0);
    for (i, &label) in labels.iter().enumerate() {
        order[next[label as usize]] = i;
        next[label as usize] += 1;
    }
    // One pass over the records grouped by bucket: each line's hash for the bucket's
    // order-independent sum, and the bucket's bytes, staged and written in large pieces, each
    // piece also fed to the bucket's range hash (the gather checks a range with one hash of
    // its bytes instead of hashing every line again).
    write_atomic(path, |w| {
        // The staging buffer is the only one: the writer's buffer is bypassed.
        let file = w.get_mut();
        let mut staging: Vec<u8> = Vec::with_capacity(STAGING_BYTES);
        let mut from = 0;
        for (b, &count) in counts.iter().enumerate() {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            let tally = &mut tallies[b];
            for &i in &order[from..from + count] {
                let line = record(i);
                tally.add_line(line);
                if staging.len() + line.len() > STAGING_BYTES {
                    hasher.update(&staging);
                    file.write_all(&staging)?;
                    staging.clear();
                    if line.len() > STAGING_BYTES {
                        hasher.update(line);
                        file.write_all(line)?;
                        continue;
                    }
                }
                staging.extend_from_slice(line);
            }
            hasher.update(&staging);
            file.write_all(&staging)?;
            staging.clear();
            hashes[b] = hasher.digest();
            from += count;
        }
        Ok(())
    })?;
    Ok((tallies, hashes))
}

/// A chunk's manifest, read and checked against the run and against its spill file's length.
fn load_spill(dir: &RunDir, run: &RunManifest, chunk: u64) -> Result<SpillManifest, ShardError> {
    let path = dir.spill_manifest(chunk);
    let mut m: SpillManifest = read_json(&path, "a scatter task has not finished (run it again)")?;
    let bad = |reason: String| ShardError::CorruptManifest {
        path: path.clone(),
        reason,
    };
    if m.format != FORMAT || m.seed != run.seed || m.chunk != chunk || m.buckets != run.buckets {
        return Err(bad("it belongs to another run".into()));
    }
    let n = run.buckets as usize;
    if m.lines.len() != n || m.sizes.len() != n || m.sums.len() != n || m.hashes.len() != n {
        return Err(bad(format!("it does not list {n} buckets")));
    }
    m.line_sums = m.sums.iter().filter_map(|s| unhex(s)).collect();
    m.range_hashes = m
        .hashes
        .iter()
        .filter_map(|h| {
            (h.len() == 16)
                .then(|| u64::from_str_radix(h, 16).ok())
                .flatten()
        })
        .collect();
    if m.sizes.iter().sum::<u64>() != m.bytes || m.line_sums.len() != n || m.range_hashes.len() != n
    {
        return Err(bad("its sizes or checksums are malformed".into()));
    }
    let spill = dir.spill(chunk);
    let len = fs::metadata(&spill)
        .map_err(io_error("cannot read spill file", &spill))?
        .len();
    if len != m.bytes {
        return Err(ShardError::Mismatch {
            path: spill,
            reason: format!("{len} bytes, the manifest says {}", m.bytes),
        });
    }
    m.offsets = m
        .sizes
        .iter()
        .scan(0u64, |at, &size| {
            let start = *at;
            *at += size;
            Some(start)
        })
        .collect();
    Ok(m)
}

/// The manifest of one part file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct PartManifest {
    format: u32,
    seed: u64,
    bucket: u32,
    lines: u64,
    bytes: u64,
    sum: String,
}

/// Gather task `task` of `tasks`: shuffles and writes its share of the buckets. Every chunk's
/// manifest is checked first (all present, of this run, matching its spill file's length), and
/// each bucket's bytes against their line count, byte count and checksum.
///
/// # Errors
///
/// [`ShardError::MissingManifest`] when a scatter has not finished, [`ShardError::Mismatch`]
/// and [`ShardError::CorruptManifest`] for damaged files, [`ShardError::BucketTooLarge`].
pub fn gather<G: Rng + SeedableRng + Send>(
    dir: &RunDir,
    task: u64,
    tasks: u64,
    budget: MemoryBudget,
) -> Result<TaskSummary, ShardError> {
    check_task(task, tasks)?;
    let run = dir.load()?;
    let manifests = (0..run.chunks)
        .map(|c| load_spill(dir, &run, c))
        .collect::<Result<Vec<_>, _>>()?;
    let range = share(u64::from(run.buckets), task, tasks);
    let mut summary = TaskSummary::default();
    // Reused from bucket to bucket: allocated (and their pages faulted in) once per task.
    let mut buffers = (Vec::new(), Vec::new());
    for bucket in range {
        let bucket = bucket as u32;
        gather_bucket::<G>(
            dir,
            &run,
            &manifests,
            bucket,
            budget,
            &mut buffers,
            &mut summary,
        )?;
        summary.units += 1;
    }
    Ok(summary)
}

fn gather_bucket<G: Rng + SeedableRng + Send>(
    dir: &RunDir,
    run: &RunManifest,
    manifests: &[SpillManifest],
    bucket: u32,
    budget: MemoryBudget,
    (data, records): &mut (Vec<u8>, Vec<(usize, usize)>),
    summary: &mut TaskSummary,
) -> Result<(), ShardError> {
    let b = bucket as usize;
    let sep = run.separator;
    let (lines, bytes) = manifests
        .iter()
        .fold((0u64, 0u64), |(l, s), m| (l + m.lines[b], s + m.sizes[b]));
    if !budget.holds(bytes, lines) {
        let need = bytes + lines * crate::INDEX_BYTES_PER_RECORD;
        // Buckets of half the budget on average leave room for the random spread.
        let suggested = (u128::from(run.buckets) * u128::from(need) * 2)
            .div_ceil(u128::from(budget.bytes()))
            .min(u128::from(MAX_BUCKETS)) as u64;
        return Err(ShardError::BucketTooLarge {
            bucket,
            bytes,
            records: lines,
            budget: budget.bytes(),
            suggested,
        });
    }
    let len = usize::try_from(bytes).map_err(|_| ShardError::OutOfMemory { bytes })?;
    data.clear();
    data.try_reserve_exact(len)
        .map_err(|_| ShardError::OutOfMemory { bytes })?;
    // Each chunk's range of the bucket, checked against the length and the hash of its bytes
    // in the chunk's manifest; the part's tally is the sum of the ranges' (the manifests' sums
    // of their lines' hashes), so no line is hashed here.
    let mut total = Tally::default();
    for m in manifests {
        let size = m.sizes[b];
        if size == 0 {
            continue;
        }
        let path = dir.spill(m.chunk);
        let mut file = File::open(&path).map_err(io_error("cannot read spill file", &path))?;
        file.seek(SeekFrom::Start(m.offsets[b]))
            .map_err(io_error("cannot read spill file", &path))?;
        let at = data.len();
        // Into the reserved capacity: nothing is zeroed first.
        file.take(size)
            .read_to_end(data)
            .map_err(io_error("cannot read spill file", &path))?;
        let piece = &data[at..];
        if piece.len() as u64 != size {
            return Err(ShardError::Mismatch {
                path,
                reason: format!("bucket {bucket} is cut short"),
            });
        }
        if piece.last() != Some(&sep) || xxhash_rust::xxh3::xxh3_64(piece) != m.range_hashes[b] {
            return Err(ShardError::Mismatch {
                path,
                reason: format!("bucket {bucket}'s bytes differ from their checksum"),
            });
        }
        total.merge(&Tally {
            lines: m.lines[b],
            bytes: size,
            sum: m.line_sums[b],
        });
    }
    summary.bytes_read += data.len() as u64;
    // The records as ranges of `data`: the size of a `&[u8]`, and the shuffle's permutation
    // depends only on the length and the generator.
    records.clear();
    records
        .try_reserve_exact(lines as usize)
        .map_err(|_| ShardError::OutOfMemory {
            bytes: lines * crate::INDEX_BYTES_PER_RECORD,
        })?;
    let mut start = 0;
    for end in memchr::memchr_iter(sep, data) {
        records.push((start, end + 1));
        start = end + 1;
    }
    if records.len() as u64 != lines {
        return Err(ShardError::Mismatch {
            path: dir.spill_dir(),
            reason: format!(
                "bucket {bucket} holds {} lines, its manifests say {lines}",
                records.len()
            ),
        });
    }
    let mut rng = G::seed_from_u64(stream_seed(
        stream_seed(run.seed, BUCKETS),
        u64::from(bucket),
    ));
    fairdeal_parallel::Parallel::with_sampler(Batched).shuffle(records, &mut rng);
    write_atomic(&dir.part(bucket), |w| {
        for &(start, end) in records.iter() {
            w.write_all(&data[start..end])?;
        }
        Ok(())
    })?;
    let manifest = PartManifest {
        format: FORMAT,
        seed: run.seed,
        bucket,
        lines: total.lines,
        bytes: total.bytes,
        sum: hex(total.sum),
    };
    write_json(&dir.part_manifest(bucket), &manifest)?;
    summary.lines += total.lines;
    summary.bytes_written += total.bytes;
    summary.files += 2;
    Ok(())
}

/// The comparison of an output directory with its inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// Part files read.
    pub parts: u64,
    /// Lines of the inputs.
    pub input_lines: u64,
    /// Lines of the parts.
    pub output_lines: u64,
    /// Bytes of the inputs (a last line without separator counted with one).
    pub input_bytes: u64,
    /// Bytes of the parts.
    pub output_bytes: u64,
    /// The inputs' checksum (hex).
    pub input_checksum: String,
    /// The parts' checksum (hex).
    pub output_checksum: String,
    /// Whether the parts hold exactly the inputs' lines: same count, bytes and checksum, every
    /// part of the run present and matching its manifest.
    pub ok: bool,
    /// Why not, when not.
    pub problems: Vec<String>,
}

/// Checks that the parts in `dir` hold the same multiset of lines as `inputs`: the line count,
/// byte count and order-independent checksum of every `part-NNNNN` against the inputs', and,
/// when the run manifest is there, that every bucket's part exists and matches its manifest.
///
/// # Errors
///
/// [`ShardError::Io`] when a file cannot be read. A mismatch is not an error: see
/// [`Verification::ok`].
pub fn verify(dir: &RunDir, inputs: &[PathBuf], separator: u8) -> Result<Verification, ShardError> {
    let mut input = Tally::default();
    for path in inputs {
        let file = File::open(path).map_err(io_error("cannot read input", path))?;
        input.merge(
            &Tally::of_reader(file, separator).map_err(io_error("cannot read input", path))?,
        );
    }
    let mut names: Vec<String> = Vec::new();
    for entry in fs::read_dir(dir.root()).map_err(io_error("cannot list", dir.root()))? {
        let entry = entry.map_err(io_error("cannot list", dir.root()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("part-") {
            names.push(name);
        }
    }
    names.sort();
    let mut problems = Vec::new();
    let mut output = Tally::default();
    let mut parts = Vec::new();
    for name in &names {
        let path = dir.root().join(name);
        let file = File::open(&path).map_err(io_error("cannot read", &path))?;
        let tally = Tally::of_reader(file, separator).map_err(io_error("cannot read", &path))?;
        output.merge(&tally);
        parts.push((name.clone(), tally));
    }
    if let Ok(run) = dir.load() {
        if run.separator != separator {
            problems.push("the run used another record separator".to_string());
        }
        let expected: Vec<String> = (0..run.buckets).map(part_name).collect();
        if names != expected {
            problems.push(format!(
                "expected the {} parts part-00000 to {}, found {}",
                run.buckets,
                part_name(run.buckets - 1),
                names.len()
            ));
        }
        for (bucket, (name, tally)) in parts.iter().enumerate() {
            let Ok(bucket) = u32::try_from(bucket) else {
                break;
            };
            let Ok(m) = read_json::<PartManifest>(&dir.part_manifest(bucket), "") else {
                problems.push(format!("{name} has no readable manifest"));
                continue;
            };
            if m.lines != tally.lines || m.bytes != tally.bytes || unhex(&m.sum) != Some(tally.sum)
            {
                problems.push(format!("{name} does not match its manifest"));
            }
        }
    }
    if input.lines != output.lines {
        problems.push(format!(
            "the inputs have {} lines, the parts {}",
            input.lines, output.lines
        ));
    } else if input != output {
        problems.push("the parts do not hold the same lines as the inputs".to_string());
    }
    Ok(Verification {
        parts: names.len() as u64,
        input_lines: input.lines,
        output_lines: output.lines,
        input_bytes: input.bytes,
        output_bytes: output.bytes,
        input_checksum: hex(input.sum),
        output_checksum: hex(output.sum),
        ok: problems.is_empty(),
        problems,
    })
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
    fn a_chunk_is_written_the_same_in_input_order_and_bucket_by_bucket() {
        let dir = tempfile::tempdir().unwrap();
        // Short records, and long ones past both staging sizes (64 KiB and 256 KiB).
        let data: Vec<u8> = (0..6000usize)
            .flat_map(|i| {
                let pad = match i {
                    100 => 70_000,
                    2000 => 300_000,
                    _ => i % 300,
                };
                format!("record {i} {}\n", "x".repeat(pad)).into_bytes()
            })
            .collect();
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', &data).map(|e| e + 1).collect();
        let buckets = 5;
        let labels: Vec<u32> = (0..ends.len())
            .map(|i| (i * i % 7 % buckets) as u32)
            .collect();
        let mut counts = vec![0usize; buckets];
        for &label in &labels {
            counts[label as usize] += 1;
        }
        let mut expected = Vec::new();
        for b in 0..buckets {
            for (i, _) in labels.iter().enumerate().filter(|&(_, &l)| l as usize == b) {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                expected.extend_from_slice(&data[start..ends[i]]);
            }
        }
        let mut written = Vec::new();
        for (name, grouped) in [
            ("in-order", Grouped::InOrder),
            ("by-bucket", Grouped::ByBucket),
        ] {
            let path = dir.path().join(name);
            let result = write_grouped(
                &path,
                &data,
                &labels,
                &ends,
                &mut Vec::new(),
                &counts,
                grouped,
            )
            .unwrap();
            assert!(fs::read(&path).unwrap() == expected, "{name}");
            written.push(result);
        }
        assert_eq!(written[0], written[1]);
        let mut at = 0;
        for b in 0..buckets {
            let size = written[0].0[b].bytes as usize;
            assert_eq!(
                written[0].1[b],
                xxhash_rust::xxh3::xxh3_64(&expected[at..at + size])
            );
            at += size;
        }
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
