//! The run and its files: the run manifest, the paths of a run directory, atomic private
//! writes, and [`plan`].

use std::fs::{self, File, Metadata};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    FORMAT, MAX_BUCKETS, MIN_CHUNK_BYTES, ShardError, WORK_DIR, default_buckets, io_error,
    part_name,
};

/// Bytes hashed at each end of an input for its [`InputIdentity::sample`].
pub const SAMPLE_END_BYTES: u64 = 64 << 10;

/// Bytes hashed around each chunk edge of an input (half before the edge, half after) for its
/// [`InputIdentity::sample`]: where a record moved across a chunk edge changes the chunks.
pub const SAMPLE_EDGE_BYTES: u64 = 4 << 10;

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
    /// What it was when planned, checked by every scatter and gather task.
    pub identity: InputIdentity,
}

/// What identifies an input's bytes without reading them all: the file (device and inode),
/// its modification time, and a hash of sampled blocks. A scatter or gather task refuses an
/// input whose identity differs from the plan's ([`ShardError::InputModified`]): chunks cut
/// from other bytes than the plan's would lose or duplicate the records at their edges.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputIdentity {
    /// The device holding it (0 where the platform has none).
    pub device: u64,
    /// Its inode (0 where the platform has none).
    pub inode: u64,
    /// Its modification time: seconds since the epoch.
    pub mtime_sec: i64,
    /// Its modification time: nanoseconds within the second.
    pub mtime_nsec: i64,
    /// The xxh3-64 (16 hex digits) of its first and last [`SAMPLE_END_BYTES`] and of
    /// [`SAMPLE_EDGE_BYTES`] around each chunk edge, each block preceded by its offset.
    pub sample: String,
}

impl InputIdentity {
    /// The identity of an open input of `bytes` bytes cut into chunks of `chunk_bytes`.
    ///
    /// # Errors
    ///
    /// The read error.
    pub fn of(file: &File, meta: &Metadata, bytes: u64, chunk_bytes: u64) -> io::Result<Self> {
        #[cfg(unix)]
        let (device, inode, mtime_sec, mtime_nsec) = {
            use std::os::unix::fs::MetadataExt as _;
            (meta.dev(), meta.ino(), meta.mtime(), meta.mtime_nsec())
        };
        #[cfg(not(unix))]
        let (device, inode, mtime_sec, mtime_nsec) = {
            let since = meta
                .modified()?
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            (
                0,
                0,
                since.as_secs() as i64,
                i64::from(since.subsec_nanos()),
            )
        };
        Ok(Self {
            device,
            inode,
            mtime_sec,
            mtime_nsec,
            sample: format!("{:016x}", sample_hash(file, bytes, chunk_bytes)?),
        })
    }

    /// What differs between the planned identity (`self`) and `now`, if anything.
    fn difference(&self, now: &Self) -> Option<&'static str> {
        if (self.device, self.inode) != (now.device, now.inode) {
            Some("another file: its device or inode differs")
        } else if (self.mtime_sec, self.mtime_nsec) != (now.mtime_sec, now.mtime_nsec) {
            Some("its modification time differs")
        } else if self.sample != now.sample {
            Some("its bytes differ, sampled at its ends and chunk edges")
        } else {
            None
        }
    }
}

/// The xxh3-64 of the sampled blocks of a file of `bytes` bytes: see [`InputIdentity::sample`].
fn sample_hash(file: &File, bytes: u64, chunk_bytes: u64) -> io::Result<u64> {
    let mut blocks = Vec::with_capacity(2);
    blocks.push(0..bytes.min(SAMPLE_END_BYTES));
    let half = SAMPLE_EDGE_BYTES / 2;
    let mut edge = chunk_bytes;
    while edge < bytes {
        blocks.push(edge.saturating_sub(half)..(edge + half).min(bytes));
        edge += chunk_bytes;
    }
    blocks.push(bytes.saturating_sub(SAMPLE_END_BYTES)..bytes);
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; SAMPLE_END_BYTES as usize];
    let mut reader = file;
    for block in blocks {
        let piece = &mut buffer[..(block.end - block.start) as usize];
        reader.seek(SeekFrom::Start(block.start))?;
        reader.read_exact(piece)?;
        hasher.update(&block.start.to_le_bytes());
        hasher.update(piece);
    }
    Ok(hasher.digest())
}

/// Opens a planned input and checks it against its identity in the plan: its size, its file,
/// its modification time and its sampled bytes. Returns it open, so that the task reads the
/// file it checked.
///
/// # Errors
///
/// [`ShardError::InputChanged`] (its size), [`ShardError::InputModified`], the I/O errors.
pub(super) fn open_input(input: &InputFile, chunk_bytes: u64) -> Result<File, ShardError> {
    let path = &input.path;
    let file = File::open(path).map_err(io_error("cannot read input", path))?;
    let meta = file
        .metadata()
        .map_err(io_error("cannot read input", path))?;
    if meta.len() != input.bytes {
        return Err(ShardError::InputChanged {
            path: path.clone(),
            planned: input.bytes,
            now: meta.len(),
        });
    }
    let now = InputIdentity::of(&file, &meta, input.bytes, chunk_bytes)
        .map_err(io_error("cannot read input", path))?;
    if let Some(what) = input.identity.difference(&now) {
        return Err(ShardError::InputModified {
            path: path.clone(),
            what,
        });
    }
    Ok(file)
}

/// The effective user id of this process (`None` where the platform has no owners).
fn euid() -> Option<u32> {
    #[cfg(unix)]
    return Some(rustix::process::geteuid().as_raw());
    #[cfg(not(unix))]
    return None;
}

/// Refuses a file of the run that another user owns: it could hold anything.
pub(super) fn check_owner(path: &Path, meta: &Metadata) -> Result<(), ShardError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if let Some(me) = euid()
            && meta.uid() != me
        {
            return Err(ShardError::NotOurs {
                path: path.to_path_buf(),
                reason: format!("is owned by user {}, not by this user ({me})", meta.uid()),
            });
        }
    }
    #[cfg(not(unix))]
    let _ = (path, meta);
    Ok(())
}

/// Refuses a directory of the run that is a symbolic link, is another user's or is writable
/// by others: whoever can write in it can replace the spill files and manifests. A missing
/// directory is fine (a step that needs it says what is missing).
fn check_private_dir(path: &Path) -> Result<(), ShardError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_error("cannot read directory", path)(e)),
    };
    if !meta.is_dir() {
        return Err(ShardError::NotOurs {
            path: path.to_path_buf(),
            reason: "is not a directory (a symbolic link?)".into(),
        });
    }
    check_owner(path, &meta)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o022 != 0 {
            return Err(ShardError::NotOurs {
                path: path.to_path_buf(),
                reason: format!("is writable by other users (mode {mode:o}, a run's is 700)"),
            });
        }
    }
    Ok(())
}

/// Whether `name` is a part file's name, `part-` and anything.
pub(super) fn is_part_name(name: &str) -> bool {
    name.starts_with("part-")
}

/// The names in `dir` that look like part files but are not one of a run of `buckets`
/// buckets (all of them for `None`), sorted.
pub(super) fn stray_parts(dir: &Path, buckets: Option<u32>) -> Result<Vec<String>, ShardError> {
    let mut stray = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(stray),
        Err(e) => return Err(io_error("cannot list", dir)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io_error("cannot list", dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_part_name(&name) && buckets.is_none_or(|b| bucket_of(&name, b).is_none()) {
            stray.push(name);
        }
    }
    stray.sort();
    Ok(stray)
}

/// The bucket whose part file is called `name`, in a run of `buckets` buckets.
pub(super) fn bucket_of(name: &str, buckets: u32) -> Option<u32> {
    let digits = name.strip_prefix("part-")?;
    let bucket: u32 = digits.parse().ok()?;
    (bucket < buckets && part_name(bucket) == name).then_some(bucket)
}

/// The run manifest, `DIR/shard/run.json`: everything the output depends on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunManifest {
    /// [`super::FORMAT`].
    pub format: u32,
    /// The seed.
    pub seed: u64,
    /// The generator's name (its seeds come from [`stream_seed`](fairdeal_core::stream_seed)).
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
    /// Bytes per chunk ([`DEFAULT_CHUNK_BYTES`](super::DEFAULT_CHUNK_BYTES) unless set).
    pub chunk_bytes: u64,
    /// The bucket count; `None` for [`default_buckets`] of the input size.
    pub buckets: Option<u32>,
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
    pub(super) fn spill_dir(&self) -> PathBuf {
        self.work().join("spill")
    }
    pub(super) fn gather_dir(&self) -> PathBuf {
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
    /// Where the first gather task records the gather's task count.
    pub fn gather_tasks(&self) -> PathBuf {
        self.gather_dir().join("tasks.json")
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
    /// [`ShardError::MissingManifest`], [`ShardError::CorruptManifest`], [`ShardError::Io`],
    /// and [`ShardError::NotOurs`] for a directory of the run that is another user's or
    /// writable by others, or a run manifest that is another user's.
    pub fn load(&self) -> Result<RunManifest, ShardError> {
        for dir in [self.work(), self.spill_dir(), self.gather_dir()] {
            check_private_dir(&dir)?;
        }
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

pub(super) fn read_json<T: for<'de> Deserialize<'de>>(
    path: &Path,
    hint: &'static str,
) -> Result<T, ShardError> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ShardError::MissingManifest {
                path: path.to_path_buf(),
                hint,
            });
        }
        Err(e) => return Err(io_error("cannot read", path)(e)),
    };
    let meta = file.metadata().map_err(io_error("cannot read", path))?;
    check_owner(path, &meta)?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)
        .map_err(io_error("cannot read", path))?;
    serde_json::from_slice(&text).map_err(|e| ShardError::CorruptManifest {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Writes a file atomically and privately ([`crate::publish`]'s `write_private`, replacing
/// `path`): a reader sees the old file, or the whole new one, never part of it; a killed
/// writer leaves no name behind (bar the fallback's, see there).
pub(super) fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut crate::publish::Staging<'_>) -> io::Result<()>,
) -> Result<(), ShardError> {
    write_staged(path, fill, false).map(|_| ())
}

/// Like [`write_atomic`], but creates `path` only if it is absent (`link()`, not `rename()`):
/// of two writers racing for it exactly one succeeds. Returns whether this call created it.
fn create_atomic(
    path: &Path,
    fill: impl FnOnce(&mut crate::publish::Staging<'_>) -> io::Result<()>,
) -> Result<bool, ShardError> {
    write_staged(path, fill, true)
}

fn write_staged(
    path: &Path,
    fill: impl FnOnce(&mut crate::publish::Staging<'_>) -> io::Result<()>,
    exclusive: bool,
) -> Result<bool, ShardError> {
    use crate::publish::{PrivateError, write_private};
    let dir = path.parent().unwrap_or(Path::new("."));
    write_private(path, fill, exclusive).map_err(|e| match e {
        PrivateError::Stage(e) => io_error("cannot create a file in", dir)(e),
        PrivateError::Fill(e) => io_error("cannot write", path)(e),
        PrivateError::Publish(e) if exclusive => io_error("cannot create", path)(e),
        PrivateError::Publish(e) => io_error("cannot rename a temporary file to", path)(e),
    })
}

pub(super) fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), ShardError> {
    write_atomic(path, json_filler(value))
}

/// Writes `value` as JSON at `path` unless `path` exists; returns whether it did.
pub(super) fn create_json<T: Serialize>(path: &Path, value: &T) -> Result<bool, ShardError> {
    create_atomic(path, json_filler(value))
}

fn json_filler<T: Serialize>(
    value: &T,
) -> impl FnOnce(&mut crate::publish::Staging<'_>) -> io::Result<()> {
    move |w| {
        serde_json::to_writer_pretty(&mut *w, value)?;
        w.write_all(b"\n")
    }
}

/// Creates a directory of the run (and its parents), private (0700) where the platform has
/// modes: spill files hold the input's lines.
pub(super) fn create_dir(dir: &Path) -> Result<(), ShardError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(dir)
        .map_err(io_error("cannot create directory", dir))
}

/// Plans a run: records the inputs (absolute paths, sizes, chunks, identities), the chunk
/// size, the bucket count and the seed in `DIR/shard/run.json`, created only if absent.
/// Planning the same run again is harmless; a different one in the same directory is refused,
/// also when two plans race for it.
///
/// # Errors
///
/// [`ShardError::Io`] for an unreadable input or directory, [`ShardError::Invalid`] for a
/// parameter out of range or a non-regular input, [`ShardError::OtherRun`],
/// [`ShardError::StrayPart`] for a new run in a directory holding `part-*` files,
/// [`ShardError::NotOurs`] for a run directory of another user or writable by others.
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
        // The type first: a pipe's /dev/fd/N has no canonical path, and is no input anyway.
        let not_regular = || {
            ShardError::Invalid(format!(
                "input '{}' is not a regular file (a sharded shuffle reads its inputs at known offsets)",
                input.display()
            ))
        };
        if !fs::metadata(input)
            .map_err(io_error("cannot read input", input))?
            .is_file()
        {
            return Err(not_regular());
        }
        let path = fs::canonicalize(input).map_err(io_error("cannot read input", input))?;
        let file = File::open(&path).map_err(io_error("cannot read input", input))?;
        let meta = file
            .metadata()
            .map_err(io_error("cannot read input", input))?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let n = meta.len().div_ceil(config.chunk_bytes);
        let identity = InputIdentity::of(&file, &meta, meta.len(), config.chunk_bytes)
            .map_err(io_error("cannot read input", input))?;
        files.push(InputFile {
            path,
            bytes: meta.len(),
            first_chunk: chunks,
            chunks: n,
            identity,
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
    let same_or_other = |existing: RunManifest| {
        if existing == run {
            Ok(run.clone())
        } else {
            Err(ShardError::OtherRun {
                path: dir.run_manifest(),
            })
        }
    };
    match dir.load() {
        Ok(existing) => return same_or_other(existing),
        Err(ShardError::MissingManifest { .. }) => {}
        Err(e) => return Err(e),
    }
    // A new run: part files already in DIR are another run's, and `cat DIR/part-*` would
    // join them to this one's.
    if let Some(name) = stray_parts(dir.root(), None)?.first() {
        return Err(ShardError::StrayPart {
            path: dir.root().join(name),
            hint: "it is not from this run: remove the part files or use a new directory",
        });
    }
    // Created only if absent: of two plans racing for the directory one wins, and the other
    // compares its run with the winner's.
    if create_json(&dir.run_manifest(), &run)? {
        Ok(run)
    } else {
        same_or_other(dir.load()?)
    }
}

/// The manifest of one chunk's spill file: per bucket, its range of the file and its tally.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SpillManifest {
    pub(super) format: u32,
    pub(super) seed: u64,
    pub(super) chunk: u64,
    pub(super) buckets: u32,
    /// Bytes of the spill file.
    pub(super) bytes: u64,
    /// Per bucket: lines.
    pub(super) lines: Vec<u64>,
    /// Per bucket: bytes (the ranges follow each other from offset 0).
    pub(super) sizes: Vec<u64>,
    /// Per bucket: checksum ([`hex`](super::hex)), the order-independent sum of its lines' hashes.
    pub(super) sums: Vec<String>,
    /// Per bucket: the xxh3-64 of its range's bytes (16 hex digits), which the gather checks
    /// the range against.
    pub(super) hashes: Vec<String>,
    /// Per bucket: where its range starts (computed when read).
    #[serde(skip)]
    pub(super) offsets: Vec<u64>,
    /// `sums` parsed (when read).
    #[serde(skip)]
    pub(super) line_sums: Vec<u128>,
    /// `hashes` parsed (when read).
    #[serde(skip)]
    pub(super) range_hashes: Vec<u64>,
}

/// The manifest of one part file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct PartManifest {
    pub(super) format: u32,
    pub(super) seed: u64,
    pub(super) bucket: u32,
    pub(super) lines: u64,
    pub(super) bytes: u64,
    pub(super) sum: String,
}

/// The gather's task count, recorded by its first task (`DIR/shard/gather/tasks.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct GatherTasks {
    pub(super) tasks: u64,
}
