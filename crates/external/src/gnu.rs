//! GNU shuf's run: coreutils' `shuf` plan and draws, byte for byte.
//!
//! [`execute`] runs one [`GnuJob`] (what the `shuf` personality's command line asks for, or
//! `fairdeal shuffle --random-source` once [`plan`](crate::plan::plan) returns
//! [`Plan::Gnu`](crate::plan::Plan::Gnu)): the random bytes come from the job's random source,
//! consumed exactly as coreutils consumes them ([`GnuRandom`]), so the same file gives GNU's
//! output; without one, from fairdeal's default generator seeded by the operating system. As in
//! coreutils ([`GnuSampler::plan`]), `-n K` on input of unknown size (a pipe, or more than
//! 8 MiB) keeps a reservoir of K records; otherwise the input is read whole and the first K
//! positions of a random permutation are written; `-r` draws each output record independently.
//! `-n 0` opens neither the input nor the random source. The output is opened once all input is
//! read and every draw but `-r`'s is made, as GNU opens `-o FILE` (so `-o` may name an input).
//!
//! Records are held in one buffer with an index of their ends (4 bytes a record below 4 GiB;
//! GNU keeps an 8-byte pointer per line), every allocation fallible: running out of memory is
//! [`GnuRunError::MemoryExhausted`] (GNU's "memory exhausted"), not an abort. Errors are
//! [`GnuRunError`] values naming what failed; the caller words them (the `shuf` personality
//! words them as GNU does).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use fairdeal_core::Rng as _;
use fairdeal_rng::{
    Backend, DefaultBackend, GnuError, GnuInput as InputKind, GnuRandom, GnuSampler, RngError,
    gnu_opens_source, gnu_randperm_bytes,
};

use crate::MemoryBudget;
use crate::ends::Ends as RecordEnds;
use crate::plan::{self, PlanError};

mod quote;
pub use quote::{Count, parse_count, parse_range, quote, quotef, strerror, without_os_error};

/// What a GNU shuf run reads: argument records, a range, or one input (several files are read
/// one after the other as one stream).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GnuInput {
    /// `-e`: each argument is one record.
    Echo(Vec<OsString>),
    /// `-i LO-HI`, a valid range (possibly empty: `LO = HI + 1`; at most `2^64 - 1` numbers).
    Range {
        /// The first number.
        lo: u64,
        /// The last number.
        hi: u64,
    },
    /// Input files; none, or `-`, is standard input.
    Files(Vec<OsString>),
}

impl GnuInput {
    /// What the planner knows of this input ([`gnu_load_limit`](crate::plan::gnu_load_limit)):
    /// a range's numbers, or records with their total size when every one of the files is a
    /// regular file (not standard input, not argument records).
    pub fn source(&self) -> plan::Source {
        match self {
            Self::Range { lo, hi } => plan::Source::Range {
                lo: *lo,
                len: u128::from(*hi) + 1 - u128::from(*lo),
            },
            Self::Echo(_) => plan::Source::Records { size_hint: None },
            Self::Files(files) => plan::Source::Records {
                size_hint: files_size(files),
            },
        }
    }
}

/// The total size of `files` when every one is a regular file (not standard input).
fn files_size(files: &[OsString]) -> Option<u64> {
    if files.is_empty() {
        return None;
    }
    files.iter().try_fold(0u64, |total, file| {
        let path = Path::new(file);
        let meta = std::fs::metadata(path)
            .ok()
            .filter(|_| !crate::exec::is_stdin(path))?;
        meta.is_file().then(|| total.saturating_add(meta.len()))
    })
}

/// One run of GNU shuf's algorithm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GnuJob {
    /// What is read.
    pub input: GnuInput,
    /// `-n K`; `None` is no limit.
    pub head: Option<u64>,
    /// `-r`: each output record drawn independently.
    pub repeat: bool,
    /// The record separator (`b'\n'`, or `b'\0'` for `-z`).
    pub separator: u8,
    /// `--random-source FILE`; `None` draws from the default generator seeded by the
    /// operating system.
    pub random_source: Option<PathBuf>,
    /// `-o FILE`, handed to the output opener; `None` is standard output.
    pub output: Option<PathBuf>,
    /// The most bytes of input held ([`Plan::Gnu`](crate::plan::Plan::Gnu)'s load limit);
    /// `None` for no limit (GNU's own).
    pub load_limit: Option<MemoryBudget>,
}

/// Why a GNU shuf run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GnuRunError {
    /// An input file could not be opened.
    #[error("cannot open {}", path.display())]
    OpenInput {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Reading the input failed.
    #[error("read error")]
    ReadInput(#[source] io::Error),
    /// The records, their index or the permutation do not fit in memory (GNU's "memory
    /// exhausted").
    #[error("memory exhausted")]
    MemoryExhausted,
    /// The input is larger than the job's load limit ([`PlanError::GnuBeyondBudget`]).
    #[error(transparent)]
    BeyondBudget(PlanError),
    /// The random source could not be opened.
    #[error("cannot open random source {}", path.display())]
    OpenRandomSource {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Without a random source, seeding the default generator from the operating system
    /// failed.
    #[error("cannot seed the generator from the operating system")]
    Seed(#[source] RngError),
    /// A draw failed: the random source ran out, or reading it failed.
    #[error("random source {}", path.as_deref().map_or_else(|| "(operating system)".into(), Path::to_string_lossy))]
    Random {
        /// The random source; `None` is the operating system's generator.
        path: Option<PathBuf>,
        /// What happened ([`GnuError::EndOfFile`] or [`GnuError::Read`]).
        source: GnuError,
    },
    /// The output could not be opened.
    #[error("cannot open output {}", path.as_deref().map_or_else(|| "-".into(), Path::to_string_lossy))]
    OpenOutput {
        /// `-o FILE`; `None` is standard output.
        path: Option<PathBuf>,
        /// Why.
        source: io::Error,
    },
    /// Writing the output failed (a reader that closed the pipe is
    /// [`io::ErrorKind::BrokenPipe`] here).
    #[error("write error")]
    Write(#[source] io::Error),
    /// `-r` on empty input (GNU's "no lines to repeat").
    #[error("no lines to repeat")]
    NoLinesToRepeat,
}

/// Runs GNU shuf's algorithm on `job`: the same draws, in the same order, from the same bytes,
/// with the same failures, as coreutils' `shuf`.
///
/// `stdin` is read when the input is standard input (its size, when descriptor 0 is a regular
/// file, decides GNU's plan for `-n`). `open_output` is called with `job.output` once the input
/// is read (not at all when opening or reading the input fails); what it returns is written and
/// then flushed. What was written before a failure (`-r` running out of random bytes) is
/// flushed too, as with GNU.
///
/// ```
/// use std::io::Write as _;
/// use fairdeal_external::gnu::{GnuInput, GnuJob, execute};
///
/// let dir = tempfile::tempdir()?;
/// let source = dir.path().join("random");
/// std::fs::write(&source, "fairdeal gnu test bytes 0123456789abcdef")?;
/// let job = GnuJob {
///     input: GnuInput::Echo(["a", "b", "c", "d", "e", "f", "g"].map(Into::into).to_vec()),
///     head: None,
///     repeat: false,
///     separator: b'\n',
///     random_source: Some(source),
///     output: None,
///     load_limit: None,
/// };
/// let mut out = Vec::new();
/// execute(job, std::io::empty(), |_| Ok(&mut out))?;
/// // `shuf --random-source=random -e a b c d e f g` (coreutils 9.1) writes the same.
/// assert_eq!(out, b"e\nd\na\nc\nb\nf\ng\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn execute<R, W, O>(job: GnuJob, stdin: R, open_output: O) -> Result<(), GnuRunError>
where
    R: Read,
    W: Write,
    O: FnOnce(Option<&Path>) -> io::Result<W>,
{
    let head = job.head.unwrap_or(u64::MAX);
    let separator = job.separator;
    let mut lines = Lines::default();
    let mut range = None;
    let mut reservoir_input = None;
    // GNU reopens a single input FILE as its standard input (`freopen`), so a random source
    // named `/dev/stdin` then reads FILE, from its start.
    let mut stdin_file = None;
    let n: u64 = if head == 0 {
        0
    } else {
        match job.input {
            GnuInput::Echo(args) => {
                for arg in args {
                    lines.push(arg.as_encoded_bytes(), separator)?;
                }
                lines.len() as u64
            }
            GnuInput::Range { lo, hi } => {
                range = Some(lo);
                // A valid range holds at most 2^64 - 1 numbers.
                hi.wrapping_sub(lo).wrapping_add(1)
            }
            GnuInput::Files(files) => {
                if let [file] = files.as_slice()
                    && file != "-"
                {
                    stdin_file = Some(PathBuf::from(file));
                }
                let mut stream = open_stream(&files, separator, stdin)?;
                let kind = InputKind::Stream { bytes: stream.size };
                if GnuSampler::plan(job.head, job.repeat, kind) != GnuSampler::Reservoir {
                    if let Some(size) = stream.size {
                        lines.reserve_bytes(size)?;
                    }
                    let limit = job.load_limit.map(MemoryBudget::bytes);
                    if !lines.read_all(&mut *stream.reader, separator, limit)? {
                        return Err(GnuRunError::BeyondBudget(PlanError::GnuBeyondBudget {
                            budget: job.load_limit.expect("a limit was exceeded"),
                            size: stream.size,
                        }));
                    }
                    lines.len() as u64
                } else {
                    reservoir_input = Some(stream.reader);
                    u64::MAX
                }
            }
        }
    };
    let mut ahead = if job.repeat || head < n { head } else { n };
    let opens = reservoir_input.is_some() || job.repeat || gnu_opens_source(ahead, n);
    let mut source = if opens {
        Some(Source::open(
            job.random_source.as_deref(),
            stdin_file.as_deref(),
        )?)
    } else {
        None
    };
    let mut n = n;
    if let (Some(mut reader), Some(source)) = (reservoir_input, source.as_mut()) {
        let k = usize::try_from(head).unwrap_or(usize::MAX);
        let sampled: Result<Vec<Vec<u8>>, SampleError> = source.gnu.reservoir_sample(k, || {
            next_record(&mut *reader, separator).map_err(SampleError::Input)
        });
        let sampled = sampled.map_err(|e| match e {
            SampleError::Input(e) => e,
            SampleError::Random(e) => source.error(e),
        })?;
        for record in sampled {
            // Each record already ends with its separator.
            lines.push_record(&record)?;
        }
        n = lines.len() as u64;
        ahead = n;
    }
    let permutation = if job.repeat {
        Vec::new()
    } else {
        if gnu_randperm_bytes(ahead, n) > memory_limit() {
            return Err(GnuRunError::MemoryExhausted);
        }
        match source.as_mut() {
            Some(source) => source.gnu.randperm(ahead, n).map_err(|e| source.error(e))?,
            None => Vec::new(),
        }
    };
    let mut out = open_output(job.output.as_deref()).map_err(|source| GnuRunError::OpenOutput {
        path: job.output.clone(),
        source,
    })?;
    let written = write_output(
        &mut out,
        job.repeat,
        head,
        n,
        range,
        &lines,
        &permutation,
        source.as_mut(),
        separator,
    );
    // Whatever was written before a failure (e.g. -r running out of random bytes) reaches
    // the output, as with GNU.
    if written.is_err() {
        let _ = out.flush();
    }
    written?;
    out.flush().map_err(GnuRunError::Write)
}

/// Writes the output: `ahead`-prefix of the permutation, or `-r`'s independent draws.
#[allow(clippy::too_many_arguments)]
fn write_output(
    out: &mut dyn Write,
    repeat: bool,
    head: u64,
    n: u64,
    range: Option<u64>,
    lines: &Lines,
    permutation: &[u64],
    source: Option<&mut Source>,
    separator: u8,
) -> Result<(), GnuRunError> {
    let mut number = Vec::new();
    let mut emit = |out: &mut dyn Write, index: u64| -> Result<(), GnuRunError> {
        match range {
            Some(lo) => {
                number.clear();
                write!(number, "{}", lo + index).expect("writing to a Vec");
                number.push(separator);
                out.write_all(&number)
            }
            None => {
                out.write_all(lines.get(usize::try_from(index).expect("an index of a held line")))
            }
        }
        .map_err(GnuRunError::Write)
    };
    if repeat {
        if head == 0 {
            return Ok(());
        }
        if n == 0 {
            return Err(GnuRunError::NoLinesToRepeat);
        }
        let source = source.expect("-r opens the random source");
        for _ in 0..head {
            let index = source.choose(n)?;
            emit(out, index)?;
        }
        return Ok(());
    }
    for &index in permutation {
        emit(out, index)?;
    }
    Ok(())
}

/// The held lines, each with its separator, one after the other in one buffer, and where each
/// ends: 4 bytes per line beside its bytes for input under 4 GiB (8 above), where GNU keeps an
/// 8-byte pointer per line and a `Vec` per line cost 24 bytes and the allocator's overhead on
/// top (2.6 times GNU's memory on 20 M short lines). Every allocation is fallible: running out
/// of memory is GNU's `memory exhausted`, not an abort.
#[derive(Default)]
struct Lines {
    bytes: Vec<u8>,
    ends: Ends,
}

/// Where each held line ends in [`Lines::bytes`].
#[derive(Debug, PartialEq, Eq)]
enum Ends {
    /// Every end below 2^32.
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl Default for Ends {
    fn default() -> Self {
        Self::Narrow(Vec::new())
    }
}

impl Ends {
    fn len(&self) -> usize {
        match self {
            Self::Narrow(ends) => ends.len(),
            Self::Wide(ends) => ends.len(),
        }
    }

    fn get(&self, index: usize) -> usize {
        match self {
            Self::Narrow(ends) => ends[index] as usize,
            Self::Wide(ends) => ends[index],
        }
    }

    /// Room for `more` ends up to `last`, exactly.
    fn reserve_exact(&mut self, more: usize, last: usize) -> Result<(), GnuRunError> {
        if u32::try_from(last).is_err() {
            self.widen()?;
        }
        match self {
            Self::Narrow(ends) => ends.try_reserve_exact(more),
            Self::Wide(ends) => ends.try_reserve_exact(more),
        }
        .map_err(memory_exhausted)
    }

    fn push(&mut self, end: usize) -> Result<(), GnuRunError> {
        if u32::try_from(end).is_err() {
            self.widen()?;
        }
        match self {
            Self::Narrow(ends) => {
                ends.try_reserve(1).map_err(memory_exhausted)?;
                ends.push(u32::try_from(end).expect("narrow ends are below 2^32"));
            }
            Self::Wide(ends) => {
                ends.try_reserve(1).map_err(memory_exhausted)?;
                ends.push(end);
            }
        }
        Ok(())
    }

    fn widen(&mut self) -> Result<(), GnuRunError> {
        if let Self::Narrow(narrow) = self {
            let mut wide = Vec::new();
            wide.try_reserve_exact(narrow.len() + 1)
                .map_err(memory_exhausted)?;
            wide.extend(narrow.iter().map(|&end| end as usize));
            *self = Self::Wide(wide);
        }
        Ok(())
    }
}

fn memory_exhausted(_: std::collections::TryReserveError) -> GnuRunError {
    GnuRunError::MemoryExhausted
}

impl Lines {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Line `index`, with its separator.
    fn get(&self, index: usize) -> &[u8] {
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.ends.get(before));
        &self.bytes[start..self.ends.get(index)]
    }

    /// Room for `size` more bytes of lines (the input's size, when known), so the buffer is
    /// allocated once instead of grown.
    fn reserve_bytes(&mut self, size: u64) -> Result<(), GnuRunError> {
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        self.bytes
            .try_reserve_exact(size.saturating_add(1))
            .map_err(memory_exhausted)
    }

    /// Adds `line` and then `separator`.
    fn push(&mut self, line: &[u8], separator: u8) -> Result<(), GnuRunError> {
        self.bytes
            .try_reserve(line.len() + 1)
            .map_err(memory_exhausted)?;
        self.bytes.extend_from_slice(line);
        self.bytes.push(separator);
        self.end_line()
    }

    /// Adds a record that already ends with its separator.
    fn push_record(&mut self, record: &[u8]) -> Result<(), GnuRunError> {
        self.bytes
            .try_reserve(record.len())
            .map_err(memory_exhausted)?;
        self.bytes.extend_from_slice(record);
        self.end_line()
    }

    fn end_line(&mut self) -> Result<(), GnuRunError> {
        self.ends.push(self.bytes.len())
    }

    /// Reads all of `reader` (a separator added after an unterminated last record), then
    /// indexes its lines, the index allocated once at its exact size (GNU reads its input
    /// whole and then counts its lines too). `false`, with nothing indexed, when the bytes
    /// held exceed `limit`.
    fn read_all(
        &mut self,
        reader: &mut dyn BufRead,
        separator: u8,
        limit: Option<u64>,
    ) -> Result<bool, GnuRunError> {
        let start = self.bytes.len();
        let over = |held: usize| limit.is_some_and(|limit| held as u64 > limit);
        loop {
            let available = match reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(GnuRunError::ReadInput(e)),
            };
            if available.is_empty() {
                break;
            }
            let take = available.len();
            self.bytes.try_reserve(take).map_err(memory_exhausted)?;
            self.bytes.extend_from_slice(available);
            reader.consume(take);
            if over(self.bytes.len()) {
                return Ok(false);
            }
        }
        if self.bytes.len() > start && self.bytes.last() != Some(&separator) {
            self.bytes.try_reserve(1).map_err(memory_exhausted)?;
            self.bytes.push(separator);
            if over(self.bytes.len()) {
                return Ok(false);
            }
        }
        let read = &self.bytes[start..];
        let count = memchr::memchr_iter(separator, read).count();
        self.ends.reserve_exact(count, self.bytes.len())?;
        for at in RecordEnds::new(separator, read) {
            self.ends.push(start + at + 1)?;
        }
        Ok(true)
    }
}

/// Random bytes for [`GnuRandom`] when there is no random source: fairdeal's default
/// generator, seeded by the operating system.
struct GeneratorBytes(<DefaultBackend as Backend>::Rng);

impl Read for GeneratorBytes {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.fill_bytes(buf);
        Ok(buf.len())
    }
}

/// Where the random bytes come from, with the name errors mention.
struct Source {
    gnu: GnuRandom<Box<dyn Read>>,
    name: Option<PathBuf>,
}

impl Source {
    /// `stdin_file`: the single input FILE GNU would have reopened as standard input, which
    /// a source named `/dev/stdin` (`/dev/fd/0`, `/proc/self/fd/0`) then means.
    fn open(path: Option<&Path>, stdin_file: Option<&Path>) -> Result<Self, GnuRunError> {
        let reader: Box<dyn Read> = match path {
            Some(path) => {
                let names_stdin = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]
                    .iter()
                    .any(|name| path == Path::new(name));
                let opened = match stdin_file {
                    Some(file) if names_stdin => File::open(file),
                    _ => File::open(path),
                };
                let file = opened.map_err(|source| GnuRunError::OpenRandomSource {
                    path: path.to_path_buf(),
                    source,
                })?;
                Box::new(BufReader::new(file))
            }
            None => Box::new(GeneratorBytes(
                DefaultBackend::from_os().map_err(GnuRunError::Seed)?,
            )),
        };
        Ok(Self {
            gnu: GnuRandom::new(reader),
            name: path.map(Path::to_path_buf),
        })
    }

    /// A failed draw, naming the source.
    fn error(&self, err: GnuError) -> GnuRunError {
        match err {
            GnuError::MemoryExhausted => GnuRunError::MemoryExhausted,
            source => GnuRunError::Random {
                path: self.name.clone(),
                source,
            },
        }
    }

    fn choose(&mut self, n: u64) -> Result<u64, GnuRunError> {
        self.gnu.choose(n).map_err(|e| self.error(e))
    }
}

/// The input stream: the files one after the other (or standard input), and its size when
/// known (all regular files).
struct Stream<'a> {
    reader: Box<dyn BufRead + 'a>,
    size: Option<u64>,
}

fn open_stream<'a, R: Read + 'a>(
    files: &[OsString],
    separator: u8,
    stdin: R,
) -> Result<Stream<'a>, GnuRunError> {
    let stdin_only = files.is_empty() || (files.len() == 1 && files[0] == "-");
    if stdin_only {
        return Ok(Stream {
            size: stdin_size(),
            reader: Box::new(BufReader::new(stdin)),
        });
    }
    let mut chain: Box<dyn Read> = Box::new(io::empty());
    let mut size = Some(0u64);
    for name in files {
        let path = Path::new(name);
        let file = File::open(path).map_err(|source| GnuRunError::OpenInput {
            path: path.to_path_buf(),
            source,
        })?;
        let known = file
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len());
        // The files' own sizes, as GNU's plan reads them (the separator `Terminated` may add
        // is not counted).
        size = size.zip(known).map(|(a, b)| a + b);
        chain = Box::new(chain.chain(Terminated::new(file, separator)));
    }
    Ok(Stream {
        reader: Box::new(BufReader::new(chain)),
        size,
    })
}

/// A reader that ends with `separator`: when its input's last byte is another one, it adds
/// one, so files read one after the other keep their records apart (`printf 'a\nb\nc'`
/// followed by `d\n` is four records, `c` and `d`, as every other mode of `fairdeal shuffle`
/// reads them, not `cd`).
struct Terminated<R> {
    inner: R,
    separator: u8,
    /// The last byte read, `None` before the first.
    last: Option<u8>,
    /// Whether the added separator was given (or none was needed).
    finished: bool,
}

impl<R: Read> Terminated<R> {
    fn new(inner: R, separator: u8) -> Self {
        Self {
            inner,
            separator,
            last: None,
            finished: false,
        }
    }
}

impl<R: Read> Read for Terminated<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        let read = self.inner.read(buf)?;
        if read > 0 {
            self.last = Some(buf[read - 1]);
            return Ok(read);
        }
        self.finished = true;
        match self.last {
            Some(last) if last != self.separator => {
                buf[0] = self.separator;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// The bytes left in the process's standard input when it is a regular file; `None` for a
/// pipe or terminal.
fn stdin_size() -> Option<u64> {
    #[cfg(unix)]
    {
        use std::io::Seek as _;
        use std::os::fd::AsFd as _;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let mut file = File::from(fd);
        let meta = file.metadata().ok().filter(std::fs::Metadata::is_file)?;
        let position = file.stream_position().ok()?;
        Some(meta.len().saturating_sub(position))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The next record, with its separator (added when the input's last record lacks one).
fn next_record(reader: &mut dyn BufRead, separator: u8) -> Result<Option<Vec<u8>>, GnuRunError> {
    let mut record = Vec::new();
    let read = reader
        .read_until(separator, &mut record)
        .map_err(GnuRunError::ReadInput)?;
    if read == 0 {
        return Ok(None);
    }
    if record.last() != Some(&separator) {
        record.push(separator);
    }
    Ok(Some(record))
}

/// What [`GnuRandom::reservoir_sample`] can fail with here.
enum SampleError {
    Input(GnuRunError),
    Random(GnuError),
}

impl From<GnuError> for SampleError {
    fn from(e: GnuError) -> Self {
        Self::Random(e)
    }
}

/// The most bytes a permutation may take before it is "memory exhausted": the machine's
/// physical memory (unknown: no limit).
fn memory_limit() -> u64 {
    crate::physical_memory().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The random bytes every case draws from; each expected output is what coreutils 9.1's
    /// `shuf --random-source=FILE` writes from a file holding them.
    const RANDOM: &[u8] = b"fairdeal gnu test bytes 0123456789abcdef";

    fn job(input: GnuInput, random_source: Option<PathBuf>) -> GnuJob {
        GnuJob {
            input,
            head: None,
            repeat: false,
            separator: b'\n',
            random_source,
            output: None,
            load_limit: None,
        }
    }

    fn echo(args: &[&str]) -> GnuInput {
        GnuInput::Echo(args.iter().map(OsString::from).collect())
    }

    /// A directory holding `random` (the bytes above) and `files`.
    fn dir_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let random = dir.path().join("random");
        std::fs::write(&random, RANDOM).unwrap();
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        (dir, random)
    }

    fn run(job: GnuJob) -> Result<Vec<u8>, GnuRunError> {
        let mut out = Vec::new();
        execute(job, io::empty(), |_| Ok(&mut out))?;
        Ok(out)
    }

    #[test]
    fn draws_are_gnu_shufs() {
        let (_dir, random) = dir_with(&[]);
        let letters = ["a", "b", "c", "d", "e", "f", "g"];
        let all = run(job(echo(&letters), Some(random.clone()))).unwrap();
        assert_eq!(all, b"e\nd\na\nc\nb\nf\ng\n");
        let two = run(GnuJob {
            head: Some(2),
            ..job(echo(&letters), Some(random.clone()))
        });
        assert_eq!(two.unwrap(), b"e\nd\n");
        let repeat = run(GnuJob {
            head: Some(6),
            repeat: true,
            ..job(GnuInput::Range { lo: 10, hi: 12 }, Some(random.clone()))
        });
        assert_eq!(repeat.unwrap(), b"10\n11\n12\n10\n11\n11\n");
        // A large range: the sparse permutation.
        let sparse = run(GnuJob {
            head: Some(3),
            ..job(
                GnuInput::Range {
                    lo: 1,
                    hi: 1_000_000,
                },
                Some(random),
            )
        });
        assert_eq!(sparse.unwrap(), b"709610\n422502\n644091\n");
    }

    #[test]
    fn files_read_one_after_the_other_keep_their_records_apart() {
        let (dir, random) = dir_with(&[("one", b"a\nb\nc"), ("two", b"d\n")]);
        let files = ["one", "two"].map(|f| dir.path().join(f).into_os_string());
        let out = run(job(GnuInput::Files(files.to_vec()), Some(random))).unwrap();
        let mut records: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
        records.sort_unstable();
        assert_eq!(records, [&b"a\n"[..], b"b\n", b"c\n", b"d\n"]);
    }

    #[test]
    fn failures_name_what_failed() {
        let big = vec![b'x'; crate::MIN_BUDGET as usize];
        let (dir, random) = dir_with(&[("big", &big)]);
        let missing = dir.path().join("missing");
        let err = run(job(
            GnuInput::Files(vec![missing.clone().into_os_string()]),
            Some(random.clone()),
        ))
        .unwrap_err();
        assert!(
            matches!(&err, GnuRunError::OpenInput { path, source } if *path == missing && source.kind() == io::ErrorKind::NotFound),
            "{err:?}"
        );
        let err = run(job(echo(&["a", "b"]), Some(missing.clone()))).unwrap_err();
        assert!(
            matches!(&err, GnuRunError::OpenRandomSource { path, .. } if *path == missing),
            "{err:?}"
        );
        // Two bytes are not enough for a permutation of 1,000 numbers.
        let short = dir.path().join("short");
        std::fs::write(&short, b"xy").unwrap();
        let err = run(job(
            GnuInput::Range { lo: 1, hi: 1000 },
            Some(short.clone()),
        ))
        .unwrap_err();
        assert!(
            matches!(&err, GnuRunError::Random { path: Some(path), source: GnuError::EndOfFile } if *path == short),
            "{err:?}"
        );
        let err = run(GnuJob {
            repeat: true,
            head: Some(3),
            ..job(echo(&[]), Some(random.clone()))
        })
        .unwrap_err();
        assert!(matches!(err, GnuRunError::NoLinesToRepeat), "{err:?}");
        // The input and the separator added after it are one byte over the budget.
        let big = GnuInput::Files(vec![dir.path().join("big").into_os_string()]);
        let err = run(GnuJob {
            load_limit: Some(MemoryBudget::new(crate::MIN_BUDGET).unwrap()),
            ..job(big, Some(random))
        })
        .unwrap_err();
        assert!(
            matches!(
                err,
                GnuRunError::BeyondBudget(PlanError::GnuBeyondBudget {
                    size: Some(1024),
                    ..
                })
            ),
            "{err:?}"
        );
    }

    /// What the planner is told: a range's count (an empty one too), the files' total size
    /// only when every one is a regular file.
    #[test]
    fn the_planner_sees_the_range_and_the_files_sizes() {
        use crate::plan::Source;
        let range = GnuInput::Range { lo: 5, hi: 9 };
        assert_eq!(range.source(), Source::Range { lo: 5, len: 5 });
        let empty = GnuInput::Range { lo: 5, hi: 4 };
        assert_eq!(empty.source(), Source::Range { lo: 5, len: 0 });
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"1\n2\n").unwrap();
        std::fs::write(&b, b"3\n").unwrap();
        let files = |names: &[&Path]| GnuInput::Files(names.iter().map(|p| p.into()).collect());
        let size = |input: GnuInput| match input.source() {
            Source::Records { size_hint } => size_hint,
            other => panic!("{other:?}"),
        };
        assert_eq!(size(files(&[&a, &b])), Some(6));
        assert_eq!(size(files(&[&a, Path::new("-")])), None);
        assert_eq!(size(files(&[])), None);
        assert_eq!(size(GnuInput::Echo(vec!["x".into()])), None);
    }

    /// As GNU opens `-o FILE`: after the input is read, and not when the input fails.
    #[test]
    fn the_output_is_opened_once_the_input_is_read() {
        let (dir, random) = dir_with(&[("in", b"x\ny\n")]);
        let input = dir.path().join("in");
        let mut opened = None;
        let err = execute(
            GnuJob {
                output: Some(input.clone()),
                ..job(
                    GnuInput::Files(vec![dir.path().join("missing").into_os_string()]),
                    Some(random.clone()),
                )
            },
            io::empty(),
            |path| {
                opened = path.map(Path::to_path_buf);
                File::create(path.expect("-o"))
            },
        )
        .unwrap_err();
        assert!(matches!(err, GnuRunError::OpenInput { .. }), "{err:?}");
        assert_eq!(opened, None);
        // In place: the file is truncated only once it has been read.
        execute(
            GnuJob {
                output: Some(input.clone()),
                ..job(
                    GnuInput::Files(vec![input.clone().into_os_string()]),
                    Some(random),
                )
            },
            io::empty(),
            |path| File::create(path.expect("-o")),
        )
        .unwrap();
        let mut records = std::fs::read(&input).unwrap();
        records.sort_unstable();
        assert_eq!(records, b"\n\nxy");
        let refused = execute(job(echo(&["a"]), None), io::empty(), |_| {
            Err::<Vec<u8>, _>(io::Error::from(io::ErrorKind::PermissionDenied))
        });
        assert!(
            matches!(refused, Err(GnuRunError::OpenOutput { path: None, ref source }) if source.kind() == io::ErrorKind::PermissionDenied),
            "{refused:?}"
        );
    }

    #[test]
    fn nothing_is_opened_for_no_lines() {
        let missing = PathBuf::from("/nonexistent/fairdeal");
        let out = run(GnuJob {
            head: Some(0),
            ..job(
                GnuInput::Files(vec![missing.clone().into_os_string()]),
                Some(missing),
            )
        });
        assert_eq!(out.unwrap(), b"");
    }

    #[test]
    fn standard_input_is_the_given_reader() {
        let (_dir, random) = dir_with(&[]);
        let mut out = Vec::new();
        let stdin: &[u8] = b"b\0a\0c";
        let job = GnuJob {
            separator: 0,
            ..job(GnuInput::Files(vec!["-".into()]), Some(random))
        };
        execute(job, stdin, |_| Ok(&mut out)).unwrap();
        let mut records: Vec<&[u8]> = out.split_inclusive(|&b| b == 0).collect();
        records.sort_unstable();
        assert_eq!(records, [&b"a\0"[..], b"b\0", b"c\0"]);
    }

    #[test]
    fn line_ends_widen_past_four_gib() {
        let mut ends = Ends::default();
        ends.push(3).unwrap();
        ends.push(u32::MAX as usize).unwrap();
        assert!(matches!(ends, Ends::Narrow(_)));
        let far = (1usize << 32) + 5;
        ends.push(far).unwrap();
        assert_eq!(ends, Ends::Wide(vec![3, u32::MAX as usize, far]));
        assert_eq!((ends.len(), ends.get(2)), (3, far));
    }
}
