//! Helpers shared by the subcommands: error classification, output, progress bars, JSON and
//! the runtime selection of an algorithm and a backend.

use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::Path;

use anyhow::Context as _;
use fairdeal::rng::{Backend, BackendVisitor};
use fairdeal::{AnySampler, AnyShuffler, algorithm_by_name, sampler_by_name};
use indicatif::{ProgressBar, ProgressStyle};

/// The help text of every `--sampler` option.
pub(crate) const SAMPLER_HELP: &str = "How random words become indices: `backend` (the \
    backend's own: batched dice for the rand-family generators, Java's nextInt or Python's \
    _randbelow for java and python, which bit-exactness needs), `batched` (up to six indices per \
    64-bit word) or `lemire` (one word per index, the reference path). All are exactly unbiased";

/// An error caused by how the command was called (unknown name, malformed range …) rather
/// than by the environment (unreadable file, full disk). `main` exits with status 2 for these,
/// like clap does for its own usage errors, and 1 for everything else.
#[derive(Debug)]
pub(crate) struct UsageError(pub(crate) String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Wraps a message as a [`UsageError`] inside an `anyhow::Error`.
pub(crate) fn usage(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(message.into()))
}

/// The exit status for an error returned by a subcommand: 0 for a closed pipe (`| head` is not
/// an error), 2 for a usage error, 1 for the rest.
pub(crate) fn exit_status(err: &anyhow::Error) -> u8 {
    if is_broken_pipe(err) {
        0
    } else if err.chain().any(|cause| cause.is::<UsageError>()) {
        2
    } else {
        1
    }
}

/// Whether the error (or any cause) is a write to a pipe whose reader has gone away.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Renders an error and its causes on one line (`outer: inner: root`) for
/// `fairdeal: error: ...`. Embedded newlines would break the one-line promise, so they become
/// spaces.
pub(crate) fn one_line(err: &anyhow::Error) -> String {
    let text = format!("{err:#}");
    let mut out = String::with_capacity(text.len());
    for (i, part) in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Where a command's main output goes: stdout, or a file created only once the output is ready
/// to be written (so `-o` may name the input file, as with `shuf`).
pub(crate) fn open_output(path: Option<&Path>) -> anyhow::Result<Box<dyn Write>> {
    const CAPACITY: usize = 64 * 1024;
    Ok(match path {
        None => Box::new(BufWriter::with_capacity(CAPACITY, io::stdout().lock())),
        Some(path) => {
            let file = File::create(path)
                .with_context(|| format!("cannot create output file '{}'", path.display()))?;
            Box::new(BufWriter::with_capacity(CAPACITY, file))
        }
    })
}

/// Prints a value as pretty JSON followed by a newline on stdout.
pub(crate) fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value).context("cannot write JSON")?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A progress bar over `len` steps on stderr, or a hidden one when stderr is not a terminal
/// (pipes, CI, tests) or when `show` is false.
pub(crate) fn progress_bar(len: u64, show: bool, message: &str) -> ProgressBar {
    if !show || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template("{msg} [{bar:40}] {human_pos}/{human_len} ({eta})")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(message.to_owned());
    bar
}

/// The algorithm and seed choices every randomised subcommand shares.
#[derive(Debug, Clone)]
pub(crate) struct Selection {
    /// The algorithm's stable name (`inplace`, `partial`, …).
    pub(crate) algorithm: String,
    /// The backend's stable name (`chacha12`, `java`, …).
    pub(crate) backend: String,
    /// How indices are drawn: `backend` (the backend's own sampler), `batched` or `lemire`.
    pub(crate) sampler: String,
    /// A fixed seed, or `None` to seed from the operating system.
    pub(crate) seed: Option<u64>,
}

/// What a [`Selection`] resolves to for one backend `B`: a seeded generator and an algorithm
/// using that backend's index sampler.
pub(crate) struct Resolved<B: Backend> {
    /// The generator, seeded from `--seed` or from the OS.
    pub(crate) rng: B::Rng,
    /// The chosen algorithm, drawing indices with the chosen sampler (by default the
    /// backend's own).
    pub(crate) shuffler: AnyShuffler<AnySampler<B::Sampler>>,
    /// The chosen sampler itself, for code that draws indices without the algorithm.
    pub(crate) sampler: AnySampler<B::Sampler>,
}

/// Code that runs once the backend's static type is known. The CLI's counterpart of
/// [`BackendVisitor`], with the algorithm and generator already set up.
pub(crate) trait WithResolved {
    /// What the code returns.
    type Output;
    /// Runs with the resolved generator and algorithm.
    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<Self::Output>;
}

struct Dispatch<'a, W> {
    selection: &'a Selection,
    work: W,
}

impl<W: WithResolved> BackendVisitor for Dispatch<'_, W> {
    type Output = anyhow::Result<W::Output>;

    fn visit<B: Backend>(self) -> Self::Output {
        let sampler = sampler_by_name(&self.selection.sampler, B::Sampler::default())
            .map_err(|e| usage(e.to_string()))?;
        let shuffler = algorithm_by_name(&self.selection.algorithm, sampler)
            .map_err(|e| usage(e.to_string()))?;
        let rng = match self.selection.seed {
            Some(seed) => B::seeded(seed),
            None => B::from_os().context("cannot seed the generator from the operating system")?,
        };
        self.work.run(Resolved::<B> {
            rng,
            shuffler,
            sampler,
        })
    }
}

/// Resolves the selection's backend and algorithm names (each unknown name is a usage error
/// listing the valid ones) and runs `work` with them.
pub(crate) fn with_selection<W: WithResolved>(
    selection: &Selection,
    work: W,
) -> anyhow::Result<W::Output> {
    // Check the algorithm name first so that a typo in it is reported even when the backend
    // name is fine, and before any seeding from the OS.
    algorithm_by_name(&selection.algorithm, fairdeal::Lemire).map_err(|e| usage(e.to_string()))?;
    sampler_by_name(&selection.sampler, ()).map_err(|e| usage(e.to_string()))?;
    fairdeal::rng::with_backend(&selection.backend, Dispatch { selection, work })
        .map_err(|e| usage(e.to_string()))?
}

/// The most worker threads any `--threads` accepts, whatever the machine: far above any core
/// count a user runs on (oversubscribing a few times is allowed), far below what exhausts the
/// operating system's thread limits.
pub(crate) const MAX_THREADS: usize = 1024;

/// The clap value parser of every `--threads`: a whole number from 1 to [`MAX_THREADS`],
/// checked before any thread is started.
pub(crate) fn parse_threads(text: &str) -> Result<NonZeroUsize, String> {
    let threads: u128 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a whole number of threads"))?;
    if threads == 0 {
        return Err("must be at least 1".to_owned());
    }
    usize::try_from(threads)
        .ok()
        .filter(|&threads| threads <= MAX_THREADS)
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| {
            let cores = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
            format!(
                "{threads} threads is more than the {MAX_THREADS} allowed (this machine has \
                 {cores} cores)"
            )
        })
}

/// A rayon pool of `threads` threads, or of one thread per core when `None`.
pub(crate) fn thread_pool(threads: Option<NonZeroUsize>) -> anyhow::Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.map_or(0, NonZeroUsize::get))
        .build()
        .context("cannot start the worker threads")
}

/// A path argument that may be `-` for standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

/// A plain left-aligned text table; the last column is not padded.
pub(crate) struct Table {
    pub(crate) header: Vec<&'static str>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    pub(crate) fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in &self.rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let header: Vec<String> = self.header.iter().map(|h| (*h).to_owned()).collect();
        let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
        for row in std::iter::once(&header)
            .chain(std::iter::once(&rule))
            .chain(&self.rows)
        {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                if i + 1 < columns {
                    let pad = widths[i].saturating_sub(cell.chars().count());
                    line.push_str(cell);
                    line.push_str(&" ".repeat(pad + 2));
                } else {
                    line.push_str(cell);
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let table = Table {
            header: vec!["a", "bb", "c"],
            rows: vec![vec!["xxx".into(), "y".into(), "z z".into()]],
        };
        let mut out = Vec::new();
        table.write(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "a    bb  c\n---  --  ---\nxxx  y   z z\n");
    }

    #[test]
    fn thread_counts_are_bounded_before_any_thread_starts() {
        assert_eq!(parse_threads("1").unwrap().get(), 1);
        assert_eq!(parse_threads("3").unwrap().get(), 3);
        assert_eq!(parse_threads("1024").unwrap().get(), MAX_THREADS);
        assert_eq!(parse_threads("0").unwrap_err(), "must be at least 1");
        for absurd in [
            "1025",
            "1000000",
            "18446744073709551615",
            "99999999999999999999999",
        ] {
            let err = parse_threads(absurd).unwrap_err();
            assert!(
                err.contains("more than the 1024 allowed"),
                "{absurd}: {err}"
            );
        }
        for bad in ["-1", "two", "", "1.5"] {
            assert!(
                parse_threads(bad)
                    .unwrap_err()
                    .contains("not a whole number"),
                "{bad}"
            );
        }
    }
}
