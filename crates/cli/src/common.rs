//! Helpers shared by the subcommands: error classification, output, progress bars, JSON and
//! the runtime selection of an algorithm and a backend.

use std::fmt;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::Path;

use anyhow::Context as _;
use fairdeal::rng::Backend;
use indicatif::{ProgressBar, ProgressStyle};

// Every flag group and value parser lives in `args.rs` (`fairdeal_cli::args`); `shuffle`
// imports its groups from here.
// The thread budget's arithmetic lives with the memory budget in `fairdeal-external`;
// `shuffle` sizes its work with `PER_WORKER`.
pub(crate) use fairdeal_cli::args::{RandomArgs, SamplerArg, ThreadsArg, UsageError, usage};
pub(crate) use fairdeal_external::PER_WORKER;
use fairdeal_external::{ARENA_RESERVATION, WORKER_STACK, fitting_threads};

/// The exit status for an error returned by a subcommand: 0 for a closed pipe (`| head` is not
/// an error), a verdict's own status ([`crate::verdict`]), 2 for a usage error, 1 for the rest.
pub(crate) fn exit_status(err: &anyhow::Error) -> u8 {
    if let Some(verdict) = crate::verdict::of(err) {
        verdict.code()
    } else if is_broken_pipe(err) {
        0
    } else if err.chain().any(|cause| cause.is::<UsageError>()) {
        2
    } else {
        1
    }
}

/// A judge's result once its report is written: `status` (the verdict's, from
/// [`crate::verdict::finish`]) also when the reader of stdout went away mid-report, so a closed
/// pipe never turns an UNFAIR or INSUFFICIENT verdict into exit 0; any other write error as
/// itself.
pub(crate) fn status_after_write(
    status: anyhow::Result<()>,
    written: anyhow::Result<()>,
) -> anyhow::Result<()> {
    match written {
        Err(err) if !is_broken_pipe(&err) => Err(err),
        _ => status,
    }
}

/// Whether the error (or any cause) is a write to a pipe whose reader has gone away, including
/// one that `serde_json` wrapped while writing a document.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let io_kind = cause
            .downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| {
                cause
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        io_kind == Some(io::ErrorKind::BrokenPipe)
    })
}

/// Renders an error and its causes on one line (`outer: inner: root`) for
/// `fairdeal: error: ...`.
///
/// A cause whose text the previous message already contains is left out: some errors (rayon's
/// `ThreadPoolBuildError`, `io::Error` wrappers) print their source *and* return it from
/// `source()`, which would otherwise show the operating system's message twice. An `io::Error`
/// loses its ` (os error N)` suffix. Embedded newlines would break the one-line promise, so
/// they become spaces.
pub(crate) fn one_line(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        // An operating-system error reads as its message alone, whichever command wrapped it.
        let text = match cause.downcast_ref::<io::Error>() {
            Some(io_error) => os_message(io_error),
            None => cause.to_string(),
        };
        let repeated = parts.last().is_some_and(|last| last.contains(text.trim()));
        if !repeated && !text.trim().is_empty() {
            parts.push(text);
        }
    }
    let text = shorten_long_words(&parts.join(": "));
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

/// The longest word (a run of characters without a space) an error line shows whole.
const LONGEST_WORD: usize = 200;

/// `text` with every word longer than [`LONGEST_WORD`] characters (a pasted 128 KiB
/// argument, echoed by a parser's message) cut to its first 40 and last 20 characters around
/// its length, so an error stays a readable line.
pub(crate) fn shorten_long_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4096));
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let chars = word.chars().count();
        if chars > LONGEST_WORD {
            out.extend(word.chars().take(40));
            out.push('…');
            out.extend(word.chars().skip(chars - 20));
            out.push_str(&format!(" ({chars} characters)"));
        } else {
            out.push_str(word);
        }
    }
    out
}

/// An operating-system error's message without the ` (os error N)` suffix `io::Error` adds.
fn os_message(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

/// The error a failed write becomes: `cannot write output: No space left on device`. It keeps
/// the original error's kind, so a broken pipe is still recognised as one ([`exit_status`]).
#[derive(Debug)]
struct WriteError {
    target: String,
    message: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write {}: {}", self.target, self.message)
    }
}

impl std::error::Error for WriteError {}

/// A writer that names what it writes to in its errors (`cannot write output: …`), so every
/// command reports a full disk or a closed descriptor the same way. Wrap the buffered writer,
/// not the raw one, so the final flush is covered too.
pub(crate) struct Output<W> {
    inner: W,
    target: &'static str,
}

impl<W: Write> Output<W> {
    fn wrap(&self, err: io::Error) -> io::Error {
        if err.get_ref().is_some_and(|e| e.is::<WriteError>()) {
            return err;
        }
        let kind = err.kind();
        io::Error::new(
            kind,
            WriteError {
                target: self.target.to_owned(),
                message: os_message(&err),
            },
        )
    }
}

impl<W: Write> Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.wrap(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| self.wrap(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.wrap(e))
    }
}

/// Buffered standard output whose errors read `cannot write output: …`. Every command writes
/// its report through this (and [`print_json`]); call `flush` at the end and propagate its error.
pub(crate) fn stdout() -> Output<BufWriter<crate::closed_stdio::StdoutLock>> {
    Output {
        inner: BufWriter::with_capacity(OUTPUT_BUFFER, crate::closed_stdio::stdout()),
        target: "output",
    }
}

const OUTPUT_BUFFER: usize = 64 * 1024;

/// Prints a value as pretty JSON followed by a newline on stdout.
///
/// A write error comes back as the `io::Error` itself (not inside a `serde_json::Error`), so
/// `| head` is recognised as a closed pipe and a full disk reads `cannot write output: …`.
pub(crate) fn print_json<T: serde::Serialize + ?Sized>(value: &T) -> anyhow::Result<()> {
    let mut out = stdout();
    serde_json::to_writer_pretty(&mut out, value).map_err(|err| {
        if err.is_io() {
            anyhow::Error::new(io::Error::from(err))
        } else {
            anyhow::Error::new(err).context("cannot serialise the JSON report")
        }
    })?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// A p-value as people read it, for every judge's text report: `0.3002`, `1.0000`,
/// `5.148e-84` once it is below 1e-3, and `0 (below f64 range)` when the tail underflowed to
/// zero (no `f64` holds it; a bare "0" would claim an impossibility).
pub(crate) fn format_p(p: f64) -> String {
    if p == 0.0 {
        "0 (below f64 range)".to_owned()
    } else if p >= 1e-3 {
        format!("{p:.4}")
    } else {
        format!("{p:.3e}")
    }
}

/// `"1 deal"`, `"2 deals"`: a count with its noun, singular for exactly one.
pub(crate) fn plural(count: u64, singular: &str, plural: &str) -> String {
    if count == 1 {
        format!("1 {singular}")
    } else {
        format!("{count} {plural}")
    }
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

pub(crate) use fairdeal::{Resolved, Selection};

/// Code that runs once the backend's static type is known, and may fail: the CLI's
/// counterpart of [`fairdeal::WithResolved`], whose output is an `anyhow::Result`.
pub(crate) trait WithResolved {
    /// What the code returns.
    type Output;
    /// Runs with the resolved generator and algorithm.
    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<Self::Output>;
}

/// A [`WithResolved`] as the facade's [`fairdeal::WithResolved`].
struct Fallible<W>(W);

impl<W: WithResolved> fairdeal::WithResolved for Fallible<W> {
    type Output = anyhow::Result<W::Output>;

    fn run<B: Backend>(self, resolved: Resolved<B>) -> Self::Output {
        self.0.run(resolved)
    }
}

/// Resolves the selection's names ([`fairdeal::with_selection`]: an unknown name is a usage
/// error listing the valid ones) and runs `work` with them.
pub(crate) fn with_selection<W: WithResolved>(
    selection: &Selection,
    work: W,
) -> anyhow::Result<W::Output> {
    fairdeal::with_selection(selection, Fallible(work)).map_err(|err| {
        if err.is_unknown_name() {
            usage(err.to_string())
        } else {
            anyhow::Error::new(err).context("cannot seed the generator from the operating system")
        }
    })?
}

/// Warns on stderr when the named algorithm is not fair (the `biased` negative control), so
/// nobody mistakes its output for a fair shuffle. Call it once, after the arguments are
/// validated and before the work starts. Unknown names are left to [`with_selection`].
pub(crate) fn warn_if_unfair(algorithm: &str) {
    if let Some(info) = fairdeal::ALGORITHMS
        .iter()
        .find(|info| info.name == algorithm && !info.fair)
    {
        eprintln!(
            "fairdeal: warning: '{}' is NOT a fair shuffle (a deliberately biased negative \
             control): its results are biased",
            info.name
        );
    }
}

/// A rayon pool of `threads` threads, or of one thread per core when `None`: the one place
/// every command's threads start ([`thread_pool_for`] with no work beyond the reserve).
pub(crate) fn thread_pool(threads: Option<NonZeroUsize>) -> anyhow::Result<rayon::ThreadPool> {
    thread_pool_for(threads, 0)
}

/// A rayon pool for work that maps `work` bytes beyond [`fairdeal_external::WORK_RESERVE`] (`shuffle`'s memory
/// budget), sized before any thread starts: the calling thread is worker 0 (rayon's
/// `use_current_thread`), so one worker always runs, and the others are as many as the
/// address space left under `ulimit -v` holds at [`PER_WORKER`] each. Fewer threads than asked
/// give a note on stderr (results do not depend on the count); a start-up failure is one line
/// (`cannot start the worker threads: …`, exit 1), never an abort.
pub(crate) fn thread_pool_for(
    threads: Option<NonZeroUsize>,
    work: u64,
) -> anyhow::Result<rayon::ThreadPool> {
    let cores = || std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let asked = threads.map_or_else(cores, NonZeroUsize::get);
    let left = fairdeal_external::address_space_left();
    let fit = fitting_threads(asked, left, work).context("cannot start the worker threads")?;
    if fit < asked {
        eprintln!(
            "fairdeal: note: running on {} instead of {asked}: the address-space limit \
             (ulimit -v) leaves {} MiB free, and each further thread takes {} MiB (its {} MiB \
             stack and the {} MiB glibc's malloc reserves for its arena); the results are the \
             same",
            plural(fit as u64, "thread", "threads"),
            left.unwrap_or(0) >> 20,
            PER_WORKER.div_ceil(1 << 20),
            WORKER_STACK >> 20,
            ARENA_RESERVATION >> 20,
        );
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(fit)
        .stack_size(WORKER_STACK as usize)
        .use_current_thread()
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

    /// An error that prints its source in its own message and also returns it from `source()`,
    /// as rayon's `ThreadPoolBuildError` does with the operating system's error.
    #[derive(Debug)]
    struct RepeatsItsSource(io::Error);

    impl fmt::Display for RepeatsItsSource {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            fmt::Display::fmt(&self.0, f)
        }
    }

    impl std::error::Error for RepeatsItsSource {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_is_reported_once() {
        // Probe row 12: a thread spawn failure printed the OS message twice.
        let os = io::Error::from(io::ErrorKind::WouldBlock);
        let text = os.to_string();
        let err =
            anyhow::Error::new(RepeatsItsSource(os)).context("cannot start the worker threads");
        assert_eq!(
            one_line(&err),
            format!("cannot start the worker threads: {text}")
        );
        let err = anyhow::anyhow!("root")
            .context("middle\nline")
            .context("top");
        assert_eq!(one_line(&err), "top: middle line: root");
    }

    #[test]
    fn huge_words_in_errors_are_cut_to_their_ends_and_length() {
        let huge = format!("'1-{}'", "9".repeat(131_000));
        let line = shorten_long_words(&format!("invalid value {huge} for '-i'"));
        assert_eq!(
            line,
            format!(
                "invalid value '1-{}…{}' (131004 characters) for '-i'",
                "9".repeat(37),
                "9".repeat(19)
            )
        );
        let path = format!("cannot read '/{}'", "a/".repeat(98));
        assert_eq!(shorten_long_words(&path), path, "199 characters stay whole");
    }

    #[test]
    fn an_os_error_reads_as_its_message_alone() {
        // Probe row 13: `shuffle > /dev/full` printed "... device (os error 28)".
        let err =
            anyhow::Error::new(io::Error::from_raw_os_error(28)).context("cannot write output");
        assert_eq!(
            one_line(&err),
            "cannot write output: No space left on device"
        );
    }

    /// A writer that always fails with `kind`.
    struct Failing(io::ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(match self.0 {
                io::ErrorKind::BrokenPipe => 32,
                _ => 28,
            }))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_errors_name_the_output_and_keep_their_kind() {
        let mut full = Output {
            inner: Failing(io::ErrorKind::StorageFull),
            target: "output",
        };
        let err = anyhow::Error::new(writeln!(full, "x").unwrap_err());
        assert_eq!(
            one_line(&err),
            "cannot write output: No space left on device"
        );
        assert_eq!(exit_status(&err), 1);

        let mut pipe = Output {
            inner: Failing(io::ErrorKind::BrokenPipe),
            target: "output",
        };
        let err = writeln!(pipe, "x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(exit_status(&anyhow::Error::new(err)), 0);
        // Probe row 3: serde_json wraps the io::Error; a closed pipe must still be one.
        let json = serde_json::to_writer(&mut pipe, &[1, 2, 3]).unwrap_err();
        assert_eq!(exit_status(&anyhow::Error::new(json)), 0);
    }

    #[test]
    fn p_values_read_as_numbers() {
        assert_eq!(format_p(1.0), "1.0000");
        assert_eq!(format_p(0.5), "0.5000");
        assert_eq!(format_p(0.30024), "0.3002");
        assert_eq!(format_p(0.001), "0.0010");
        assert_eq!(format_p(5.1483e-84), "5.148e-84");
        assert_eq!(format_p(1e-300), "1.000e-300");
        assert_eq!(format_p(0.0), "0 (below f64 range)");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "deal", "deals"), "1 deal");
        assert_eq!(plural(0, "deal", "deals"), "0 deals");
        assert_eq!(plural(2, "hand", "hands"), "2 hands");
    }
}
