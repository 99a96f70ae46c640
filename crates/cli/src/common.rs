//! Helpers shared by the subcommands: error classification, output, progress bars, JSON and
//! the runtime selection of an algorithm and a backend.

use std::fmt;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::num::NonZeroUsize;
use std::path::Path;

use anyhow::Context as _;
use clap::builder::{PossibleValue, PossibleValuesParser};
use fairdeal::fairness::Equivalence;
use fairdeal::rng::{Backend, BackendVisitor, DEFAULT_BACKEND};
use fairdeal::{AnySampler, AnyShuffler, algorithm_by_name, sampler_by_name};
use indicatif::{ProgressBar, ProgressStyle};

/// The help text of every `--sampler` option.
pub(crate) const SAMPLER_HELP: &str = "How random words become indices: `backend` (the \
    backend's own: batched dice for the rand-family generators, Java's nextInt or Python's \
    _randbelow for java and python, which bit-exactness needs), `batched` (several indices per \
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

/// `--algo`, `--backend` and `--seed`: the randomness of a run, one declaration and one parser
/// for every randomised subcommand (`#[command(flatten)]`), so the same mistake gives the same
/// error everywhere. No flag has a default value here: a subcommand names its own default
/// algorithm ([`RandomArgs::algorithm`]), and a refusal can tell a flag given from one left
/// out ([`RandomArgs::given`]).
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RandomArgs {
    /// Shuffling algorithm (see `fairdeal algorithms`).
    #[arg(long, value_name = "NAME", value_parser = algorithm_parser())]
    pub(crate) algo: Option<String>,

    #[arg(long, value_name = "NAME", value_parser = backend_parser(), help = backend_help())]
    pub(crate) backend: Option<String>,

    /// Seed for a reproducible run (the same result on any thread count); without it the
    /// generator is seeded from the OS.
    #[arg(
        long,
        value_name = "S",
        allow_negative_numbers = true,
        value_parser = parse_seed
    )]
    pub(crate) seed: Option<u64>,
}

impl RandomArgs {
    /// The algorithm given, or the subcommand's `default`.
    pub(crate) fn algorithm<'a>(&'a self, default: &'a str) -> &'a str {
        self.algo.as_deref().unwrap_or(default)
    }

    /// The backend given, or [`DEFAULT_BACKEND`].
    pub(crate) fn backend(&self) -> &str {
        self.backend.as_deref().unwrap_or(DEFAULT_BACKEND)
    }

    /// The flags given on the command line, for a path that does not use them to refuse.
    pub(crate) fn given(&self) -> Vec<&'static str> {
        [
            (self.algo.is_some(), "--algo"),
            (self.backend.is_some(), "--backend"),
            (self.seed.is_some(), "--seed"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
    }

    /// The selection these flags make, with `default_algorithm` and `sampler`.
    pub(crate) fn into_selection(self, default_algorithm: &str, sampler: &str) -> Selection {
        Selection {
            algorithm: self.algo.unwrap_or_else(|| default_algorithm.to_owned()),
            backend: self.backend.unwrap_or_else(|| DEFAULT_BACKEND.to_owned()),
            sampler: sampler.to_owned(),
            seed: self.seed,
        }
    }

    /// The selection these flags make, with `default_algorithm` and `sampler`.
    pub(crate) fn selection(&self, default_algorithm: &str, sampler: &str) -> Selection {
        Selection {
            algorithm: self.algorithm(default_algorithm).to_owned(),
            backend: self.backend().to_owned(),
            sampler: sampler.to_owned(),
            seed: self.seed,
        }
    }
}

/// The help of `--backend`, naming its default.
fn backend_help() -> String {
    format!("Random number generator (see `fairdeal backends`) [default: {DEFAULT_BACKEND}]")
}

/// `--sampler`, for the subcommands whose results it can change (`shuffle`, `fairness`).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct SamplerArg {
    // Checked by `with_selection` (`fairdeal::sampler_by_name`), whose error names the
    // valid samplers.
    #[arg(long, value_name = "NAME", default_value = "backend", help = SAMPLER_HELP)]
    pub(crate) sampler: String,
}

/// `--threads`, for the subcommands that run on a thread pool.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct ThreadsArg {
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(
        long,
        value_name = "T",
        allow_negative_numbers = true,
        value_parser = parse_threads
    )]
    pub(crate) threads: Option<NonZeroUsize>,
}

/// A seed: a whole number from 0 to 2^64 − 1 (clap's own message for `-1` would be "invalid
/// digit").
pub(crate) fn parse_seed(text: &str) -> Result<u64, String> {
    let digits = text.trim();
    digits.parse().map_err(|_| {
        let reason = if digits.starts_with('-') {
            "must be non-negative"
        } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            "out of range (too large)"
        } else {
            "not a whole number"
        };
        format!(
            "'{text}' is not a seed ({reason}): use a whole number from 0 to {}",
            u64::MAX
        )
    })
}

/// The clap value parser of every `--algo`: the names in the facade's registry
/// ([`fairdeal::ALGORITHMS`]), each with its summary, so `--help` lists them and clap refuses
/// any other name with the valid list. Use as `#[arg(long, value_parser = algorithm_parser())]`
/// on a `String` field.
pub(crate) fn algorithm_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        fairdeal::ALGORITHMS
            .iter()
            .map(|info| PossibleValue::new(info.name).help(info.summary)),
    )
}

/// The clap value parser of every `--backend`: the names of [`fairdeal::rng::backends`].
pub(crate) fn backend_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        fairdeal::rng::backends()
            .iter()
            .map(|info| PossibleValue::new(info.name).help(info.summary)),
    )
}

/// The clap value parser of every `--sampler`: [`fairdeal::SAMPLERS`].
// `SamplerArg` keeps the facade's own message ("unknown sampler 'X'"), which the tests pin.
#[allow(dead_code)]
pub(crate) fn sampler_parser() -> PossibleValuesParser {
    PossibleValuesParser::new(
        fairdeal::SAMPLERS
            .iter()
            .map(|&name| PossibleValue::new(name)),
    )
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

/// A clap value parser for a count from `min` to `max`, checked before any work starts:
/// `"-5"` is refused as "must be non-negative" (not as an unknown option), `"0"` below a
/// minimum of 1 as "must be at least 1", an absurd count as "more than the … allowed".
///
/// Use as `#[arg(long, value_parser = count_parser(1, MAX_HANDS))]` on a `u64` field.
pub(crate) fn count_parser(
    min: u64,
    max: u64,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text| parse_count(text, min, max)
}

fn parse_count(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let trimmed = text.trim();
    let digits = trimmed.replace('_', "");
    if let Some(rest) = digits.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Err("must be non-negative".to_owned());
    }
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{text}' is not a whole number"));
    }
    // Digits only: a parse failure can only be an overflow, which is above any maximum.
    match digits.parse::<u64>() {
        Ok(value) if value < min => Err(format!("must be at least {min}")),
        Ok(value) if value <= max => Ok(value),
        _ => Err(format!("{trimmed} is more than the {max} allowed")),
    }
}

/// The most worker threads any `--threads` accepts, whatever the machine: far above any core
/// count a user runs on (oversubscribing a few times is allowed), far below what exhausts the
/// operating system's thread limits.
pub(crate) const MAX_THREADS: usize = 1024;

/// The clap value parser of every `--threads`: a whole number from 1 to [`MAX_THREADS`],
/// checked before any thread is started.
pub(crate) fn parse_threads(text: &str) -> Result<NonZeroUsize, String> {
    let trimmed = text.trim();
    if let Some(digits) = trimmed.strip_prefix('-')
        && !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(format!(
            "must be a positive number of threads, not {trimmed}"
        ));
    }
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

/// The stack of every worker thread the pools start, set explicitly (Rust's default, which
/// `RUST_MIN_STACK` could change) so that a thread's cost is known before it starts.
pub(crate) const WORKER_STACK: u64 = 2 << 20;

/// The address space glibc's malloc reserves for the arena of each thread that allocates
/// (`HEAP_MAX_SIZE`, 64 MiB on 64-bit targets): a thread's allocations are served from it, but
/// the whole reservation counts against `ulimit -v` (`RLIMIT_AS`).
pub(crate) const ARENA_RESERVATION: u64 = 64 << 20;

/// The address space each worker thread beyond the calling one takes: its stack, the stack's
/// guard page, and its malloc arena.
pub(crate) const PER_WORKER: u64 = WORKER_STACK + 4096 + ARENA_RESERVATION;

/// The address space kept free for the work itself, whatever else a command states: the
/// tables and buffers the engines map apart from any arena, and the calling thread's heap.
/// As much as one more worker: the largest engine table (the poker evaluator's) takes far
/// less (measured in `crates/cli/tests/limits.rs`).
pub(crate) const WORK_RESERVE: u64 = PER_WORKER;

/// How many threads a pool runs on when `left` bytes of address space are free (`None`: no
/// limit) and the work needs `work` bytes beyond [`WORK_RESERVE`]: the calling thread, which
/// costs nothing new, plus as many of the other `asked − 1` workers as fit at [`PER_WORKER`]
/// each. Refused when even the work reserve does not fit: then no thread count helps.
fn fitting_threads(asked: usize, left: Option<u64>, work: u64) -> Result<usize, String> {
    let Some(left) = left else {
        return Ok(asked);
    };
    if left < WORK_RESERVE {
        return Err(format!(
            "the address-space limit (ulimit -v) leaves {} MiB free, less than the {} MiB kept \
             for the work; raise ulimit -v by at least {} MiB",
            left >> 20,
            WORK_RESERVE >> 20,
            (WORK_RESERVE - left).div_ceil(1 << 20)
        ));
    }
    let room = left - WORK_RESERVE - work.min(left - WORK_RESERVE);
    let extra = usize::try_from(room / PER_WORKER).unwrap_or(usize::MAX);
    Ok(asked.min(extra.saturating_add(1)))
}

/// A rayon pool of `threads` threads, or of one thread per core when `None`: the one place
/// every command's threads start ([`thread_pool_for`] with no work beyond the reserve).
pub(crate) fn thread_pool(threads: Option<NonZeroUsize>) -> anyhow::Result<rayon::ThreadPool> {
    thread_pool_for(threads, 0)
}

/// A rayon pool for work that maps `work` bytes beyond [`WORK_RESERVE`] (`shuffle`'s memory
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
    let fit = fitting_threads(asked, left, work)
        .map_err(anyhow::Error::msg)
        .context("cannot start the worker threads")?;
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

// `--tolerance` and `--confidence` are checked here rather than in `verdict.rs`, so that
// `verdict.rs` (whose exit statuses this file maps) imports nothing from this file.

/// The smallest `--tolerance`.
const MIN_TOLERANCE: f64 = 1e-4;
/// The largest `--tolerance`.
const MAX_TOLERANCE: f64 = 10.0;

impl crate::verdict::EquivalenceArgs {
    /// The checked [`Equivalence`], or a usage error naming the bad flag.
    pub(crate) fn equivalence(&self) -> anyhow::Result<Equivalence> {
        checked_equivalence(self.tolerance, self.confidence)
    }
}

/// The [`Equivalence`] of a tolerance (`None`: each test family's default) and a confidence,
/// or a usage error naming the bad flag: the command line's check, also applied to the values
/// `fairdeal merge` reads from a shard.
pub(crate) fn checked_equivalence(
    tolerance: Option<f64>,
    confidence: f64,
) -> anyhow::Result<Equivalence> {
    if let Some(t) = tolerance
        && !(t.is_finite() && (MIN_TOLERANCE..=MAX_TOLERANCE).contains(&t))
    {
        return Err(usage(format!(
            "--tolerance must be a fraction from {MIN_TOLERANCE} to {MAX_TOLERANCE} (got {t})"
        )));
    }
    let c = confidence;
    if !(c.is_finite() && (0.5..1.0).contains(&c)) {
        return Err(usage(format!(
            "--confidence must be at least 0.5 and below 1 (got {c})"
        )));
    }
    Ok(Equivalence {
        tolerance,
        confidence,
    })
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
        assert_eq!(
            parse_threads("-1").unwrap_err(),
            "must be a positive number of threads, not -1"
        );
        for bad in ["-", "two", "", "1.5"] {
            assert!(
                parse_threads(bad)
                    .unwrap_err()
                    .contains("not a whole number"),
                "{bad}"
            );
        }
    }

    #[test]
    fn threads_are_sized_to_the_address_space_left() {
        const MIB: u64 = 1 << 20;
        // No limit: as asked.
        assert_eq!(fitting_threads(16, None, u64::MAX), Ok(16));
        // Room for the reserve and three more workers: the caller plus three.
        let left = WORK_RESERVE + 3 * PER_WORKER + MIB;
        assert_eq!(fitting_threads(16, Some(left), 0), Ok(4));
        assert_eq!(fitting_threads(2, Some(left), 0), Ok(2));
        // What the work holds comes first.
        assert_eq!(fitting_threads(16, Some(left), 2 * PER_WORKER), Ok(2));
        assert_eq!(fitting_threads(16, Some(left), u64::MAX), Ok(1));
        // The reserve alone: the calling thread only.
        assert_eq!(fitting_threads(1024, Some(WORK_RESERVE), 0), Ok(1));
        // Not even the reserve: refused, saying what would work.
        let err = fitting_threads(1, Some(WORK_RESERVE - 10 * MIB), 0).unwrap_err();
        assert!(err.contains("ulimit -v"), "{err}");
        assert!(err.contains("raise ulimit -v by at least 10 MiB"), "{err}");
    }

    #[test]
    fn counts_are_bounded_and_negative_numbers_named() {
        let parse = count_parser(1, 1000);
        assert_eq!(parse("1"), Ok(1));
        assert_eq!(parse(" 1_000 "), Ok(1000));
        assert_eq!(parse("0").unwrap_err(), "must be at least 1");
        assert_eq!(parse("-5").unwrap_err(), "must be non-negative");
        assert_eq!(
            parse("1001").unwrap_err(),
            "1001 is more than the 1000 allowed"
        );
        assert_eq!(
            parse("99999999999999999999999").unwrap_err(),
            "99999999999999999999999 is more than the 1000 allowed"
        );
        for bad in ["", "-", "1.5", "1e6", "ten", "+-1"] {
            assert!(
                parse(bad).unwrap_err().contains("not a whole number"),
                "{bad}"
            );
        }
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
    fn plurals() {
        assert_eq!(plural(1, "deal", "deals"), "1 deal");
        assert_eq!(plural(0, "deal", "deals"), "0 deals");
        assert_eq!(plural(2, "hand", "hands"), "2 hands");
    }

    #[test]
    fn registry_parsers_list_every_name() {
        use clap::builder::TypedValueParser as _;
        let names = |parser: PossibleValuesParser| -> Vec<String> {
            parser
                .possible_values()
                .into_iter()
                .flatten()
                .map(|v| v.get_name().to_owned())
                .collect()
        };
        let algorithms: Vec<&str> = fairdeal::ALGORITHMS.iter().map(|a| a.name).collect();
        assert_eq!(names(algorithm_parser()), algorithms);
        let backends: Vec<&str> = fairdeal::rng::backends().iter().map(|b| b.name).collect();
        assert_eq!(names(backend_parser()), backends);
        assert_eq!(names(sampler_parser()), fairdeal::SAMPLERS);
    }
}
