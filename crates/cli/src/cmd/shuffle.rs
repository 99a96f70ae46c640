//! `fairdeal shuffle`: GNU `shuf`'s interface, with a choice of algorithm and generator, for
//! inputs of any size.
//!
//! Records are lines (or NUL-terminated with `-z`) of raw bytes, and every output record ends
//! with the separator, even when the input's last one had none, as with `shuf`.
//!
//! **Which path runs.** The input is read until it ends or no longer fits the memory budget
//! (`--memory`; bytes plus 16 per record, `fairdeal_external::MemoryBudget`). That decision
//! depends only on the input's bytes, never on whether it came from a pipe or a file.
//! - *In memory* (the input fits): all input is read and checked before anything is written.
//!   With `-n K` only a prefix is shuffled: `shuffle_prefix`, O(k) for the `partial` algorithm,
//!   the default with `-n` (`fairdeal::DEFAULT_ALGORITHM`, `inplace`, without); an explicit
//!   `--algo` is always honoured. A whole shuffle without `--algo` runs
//!   `fairdeal::Parallel` (Sanders' scatter shuffle) on all cores or `--threads N`;
//!   up to one leaf (1 MiB of elements) it *is* the `inplace` loop draw for draw, and above it
//!   its output for a `--seed` is the same on any number of threads. A language-exact sampler
//!   (`--backend java`/`python` with their own sampler) stays `inplace` at every size and with
//!   any `--threads`, because reproducing `Collections.shuffle` / `random.shuffle` is its point.
//!   Lines of more than 16 MiB (bytes plus 16 per line, [`SCATTER_ABOVE`]) in such a whole
//!   parallel shuffle are not read into one array: they are scattered into 32 in-memory buckets
//!   as they are read, and shuffled and written bucket by bucket
//!   (`ExternalShuffle::shuffle_spilling`, the external path's first level kept in memory,
//!   spilling to files if the input outgrows the budget): memory about the input's size, and
//!   cache-friendly writes. Its output is the external path's (see `docs/algorithms.md`).
//! - *External* (it does not fit): `fairdeal_external` scatters the records into temporary
//!   bucket files by iid uniform labels and shuffles each bucket in memory, recursively; `-n K`
//!   is a reservoir sample in O(K) memory. Temporary files live in one directory under
//!   `-T DIR`, removed on success, on error and on SIGINT/SIGTERM ([`cleanup`]).
//!
//! Ranges (`-i LO-HI`) are shuffled in memory as today: with `partial` and `-n K` a range is
//! sampled without materialising it (`fairdeal::partial::sample_range`, the same output as
//! `partial` on the materialised range) when it is too large to hold or K is small next to it.
//!
//! `-o FILE` is written to a temporary file beside FILE and renamed over it once complete, so
//! FILE may be an input and a failure leaves FILE as it was.
//!
//! `--algo parallel` names the scatter explicitly: the same output as the default whole shuffle
//! (with any sampler, at any size), on all cores or `--threads N`. The scatter has no prefix
//! form, so `--threads` excludes `-n` and any `--algo` but `parallel`.

mod cleanup;
mod output;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::rng::{Backend, DEFAULT_BACKEND};
use fairdeal::{AnySampler, DEFAULT_ALGORITHM, IndexSampler, Rng as _, SeedableRng, Shuffler};
use fairdeal_cli::args::{InputRange, parse_head_count, parse_range};
use fairdeal_external::{ExternalShuffle, Loaded, MemoryBudget};

use crate::common::{
    Resolved, SAMPLER_HELP, Selection, WithResolved, is_stdin, progress_bar, usage, with_selection,
};
use output::Output;

/// The most numbers a range may hold to be shuffled whole (without `-n`): 10^8 numbers take
/// 800 MB as `u64`, already a lot on a shared machine. Larger ranges need `-n K`.
pub(crate) const MAX_RANGE_IN_MEMORY: u64 = 100_000_000;

/// The default algorithm with `-n K`: the partial shuffle, k draws and k swaps.
const PREFIX_ALGORITHM: &str = fairdeal::partial::INFO.name;

/// With `partial` and `-n K`, the sparse path is taken when `K * SPARSE_RATIO <= N`; above that
/// materialising the range is cheaper than the sparse map. Both give the same output.
const SPARSE_RATIO: u64 = 16;

/// Bytes the sparse range sampler needs per sampled number, at most: the output `u64` and one
/// `BTreeMap<u64, u64>` entry with its share of a node. Checked before sampling starts.
const SPARSE_BYTES_PER_SAMPLE: u64 = 8 + 64;

/// Input larger than this (bytes) shows a progress bar on a terminal.
const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// A whole parallel shuffle of more than this (input bytes plus 16 per line) scatters the
/// lines into 32 buckets as they are read and shuffles bucket by bucket
/// (`ExternalShuffle::shuffle_spilling`), which keeps the random accesses of each bucket
/// within 1/32 of the input; below it the lines are shuffled as one array. About a last-level
/// cache: measured on a 16 MB file (250,000 lines), the buckets took half the time of the one
/// array; at 4–8 MB the two were within the noise.
const SCATTER_ABOVE: u64 = 16 << 20;

/// Arguments of `fairdeal shuffle`.
#[derive(Debug, clap::Args)]
#[command(
    infer_long_args = true,
    after_help = "Examples:\n  \
    fairdeal shuffle names.txt\n  \
    seq 10 | fairdeal shuffle -n 3\n  \
    fairdeal shuffle -e alice bob carol\n  \
    fairdeal shuffle -i 1-1000000000000 -n 5\n  \
    fairdeal shuffle --memory 2G -T /scratch huge.jsonl -o shuffled.jsonl\n  \
    fairdeal shuffle --algo inplace --backend java --seed 42 -i 0-51"
)]
pub(crate) struct Args {
    /// Files whose lines are shuffled together; `-` or nothing reads standard input. With -e,
    /// the arguments are themselves the lines.
    #[arg(value_name = "FILE", conflicts_with = "input_range")]
    files: Vec<OsString>,

    /// Treat each argument as an input line (GNU shuf's -e).
    #[arg(short = 'e', long = "echo", conflicts_with = "input_range")]
    echo: bool,

    /// Shuffle the integers LO..=HI (one per line) instead of input lines; LO-(LO-1) is empty.
    /// Without -n the range may hold at most 100000000 numbers; with -n any u64 range works.
    #[arg(
        short = 'i',
        long = "input-range",
        visible_alias = "range",
        value_name = "LO-HI",
        allow_hyphen_values = true,
        value_parser = parse_range
    )]
    input_range: Option<InputRange>,

    /// Output at most K lines (a uniformly random ordered sample). Given more than once, the
    /// smallest K counts, as with shuf.
    #[arg(
        short = 'n',
        long = "head-count",
        value_name = "K",
        allow_hyphen_values = true,
        action = clap::ArgAction::Append,
        value_parser = parse_head_count
    )]
    head_count: Vec<usize>,

    /// Output lines chosen with replacement (each independently uniform), K of them with -n,
    /// else without end until the reader closes the pipe. Input beyond --memory is copied to
    /// a temporary file and read back record by record.
    #[arg(short = 'r', long = "repeat")]
    repeat: bool,

    /// Records end with NUL instead of newline, in input and output.
    #[arg(short = 'z', long = "zero-terminated")]
    zero_terminated: bool,

    /// Shuffling algorithm (see `fairdeal algorithms`) [default: inplace, run as the parallel
    /// scatter shuffle once the elements fill more than 1 MiB, i.e. 131,072 numbers or 65,536
    /// lines (identical below that, unless the lines exceed 16 MiB), and above 16 MiB of lines
    /// as the external shuffle's buckets kept in memory; partial with -n: O(k) for a sample of
    /// k]. Applies to input that fits the memory budget.
    #[arg(long, value_name = "NAME")]
    algo: Option<String>,

    /// Random number generator (see `fairdeal backends`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_BACKEND)]
    backend: String,

    #[arg(long, value_name = "NAME", default_value = "backend", help = SAMPLER_HELP)]
    sampler: String,

    /// Seed for a reproducible shuffle; without it the generator is seeded from the OS. With
    /// `--backend java` it is Java's `new Random(S)` (S read as a two's-complement `long`), with
    /// `--backend python` it is `random.seed(S)`. The same seed and the same --memory give the
    /// same output, from a pipe or a file alike.
    #[arg(long, value_name = "S", conflicts_with = "random_source")]
    seed: Option<u64>,

    /// Seed the generator with the first bytes of FILE (as many as the backend's seed holds,
    /// e.g. 32 for chacha12): the same FILE gives the same output. GNU shuf reads its random
    /// bytes from FILE throughout, so the two tools' outputs differ.
    #[arg(long, value_name = "FILE")]
    random_source: Option<PathBuf>,

    /// Write to FILE instead of standard output: a temporary file beside FILE, renamed over it
    /// when complete, so FILE may be an input and a failure leaves it untouched.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,

    /// Memory budget (e.g. 512M, 4G; K, M, G, T are powers of 1024). Input that fits (its
    /// bytes plus 16 per line) is shuffled in memory, and the budget does not change its
    /// output; larger input is shuffled through temporary files, and its output for a --seed
    /// depends on the budget [default: a quarter of physical memory]. Memory use stays within
    /// the budget plus about 3 MiB of buffers.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<MemoryBudget>,

    /// Directory for temporary files [default: $TMPDIR, else /tmp]. They take about the
    /// input's size and are removed on success, on error and on Ctrl-C/SIGTERM.
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR")]
    temporary_directory: Option<PathBuf>,

    /// Threads for the parallel scatter shuffle (fairdeal-parallel), which a whole shuffle
    /// without --algo or with --algo parallel uses, in memory and for each bucket of an
    /// external shuffle [default: all cores]. The output for a given --seed is the same for
    /// every N. Not with -n or another --algo.
    #[arg(
        long,
        value_name = "N",
        value_parser = crate::common::parse_threads,
        conflicts_with = "head_count"
    )]
    threads: Option<NonZeroUsize>,

    /// The size above which a whole shuffle scatters the lines into buckets as they are read
    /// (for tests, to reach that path with small inputs; it changes the output for a --seed).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory, hide = true)]
    scatter_above: Option<MemoryBudget>,

    /// Notes on stderr: which path ran and, without --seed or --random-source, the seed (then
    /// drawn from the OS as one 64-bit number so that `--seed S` repeats the run; without
    /// --verbose the generator's whole state is drawn from the OS and there is no seed to
    /// print).
    #[arg(short = 'v', long)]
    verbose: bool,
}

/// Parses `--memory`: a size no larger than the machine's physical memory.
pub(crate) fn parse_memory(text: &str) -> Result<MemoryBudget, String> {
    let limit = fairdeal_external::physical_memory().unwrap_or(u64::MAX);
    MemoryBudget::parse_at_most(text, limit).map_err(|e| match e {
        fairdeal_external::BudgetError::TooLarge { limit, .. } if limit != u64::MAX => {
            format!("size '{text}' is more than this machine's {limit} bytes of memory")
        }
        other => other.to_string(),
    })
}

/// Runs `fairdeal shuffle`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let head_count = args.head_count.iter().copied().min();
    if args.echo && args.input_range.is_some() {
        return Err(usage("cannot combine -e and -i options"));
    }
    if args.files.len() > 1 && !args.echo && args.files.iter().any(|f| is_stdin(Path::new(f))) {
        return Err(usage(
            "'-' (standard input) cannot be combined with other files",
        ));
    }
    let named_parallel = args.algo.as_deref() == Some(fairdeal::parallel::INFO.name);
    if let (Some(_), Some(algo)) = (args.threads, &args.algo)
        && !named_parallel
    {
        return Err(usage(format!(
            "--threads applies to the parallel shuffle only (no --algo, or --algo {}), not to \
             --algo {algo}",
            fairdeal::parallel::INFO.name
        )));
    }
    let algorithm = args.algo.clone().unwrap_or_else(|| {
        if head_count.is_some() {
            PREFIX_ALGORITHM.to_owned()
        } else {
            DEFAULT_ALGORITHM.to_owned()
        }
    });
    let parallel = match (args.threads, &args.algo, head_count) {
        (threads, Some(_), None) if named_parallel => Parallelism::All(threads),
        (Some(n), _, _) => Parallelism::Threads(n),
        (None, None, None) => Parallelism::Auto,
        _ => Parallelism::Off,
    };
    let separator = if args.zero_terminated { b'\0' } else { b'\n' };
    let budget = args
        .memory
        .unwrap_or_else(|| MemoryBudget::default_for(fairdeal_external::physical_memory()));
    let mut seed = args.seed;
    if seed.is_none() && args.random_source.is_none() && args.verbose {
        let mut os = fairdeal::rng::DefaultBackend::from_os()
            .context("cannot seed the generator from the operating system")?;
        let drawn = os.next_u64();
        eprintln!(
            "fairdeal: note: seed {drawn} (drawn from the OS; --seed {drawn} repeats this run)"
        );
        seed = Some(drawn);
    }
    let selection = Selection {
        algorithm,
        backend: args.backend,
        sampler: args.sampler,
        seed,
    };
    let input = match args.input_range {
        Some(range) => {
            check_range(range, head_count, &selection.algorithm, budget)?;
            Input::Range(range)
        }
        None if args.echo => {
            let mut bytes = Vec::new();
            for arg in &args.files {
                bytes.extend_from_slice(arg.as_encoded_bytes());
                bytes.push(separator);
            }
            Input::Lines(bytes)
        }
        None => {
            let sources = Sources::open(&args.files, separator)?;
            let size_hint = sources.size_hint;
            // A whole parallel shuffle stops loading at the scatter threshold; whether the
            // shuffle really is parallel (not with a language-exact sampler) is known only
            // once the backend is resolved, and `Job::run` loads the rest then if not.
            let scatter_above = args
                .scatter_above
                .unwrap_or_else(|| MemoryBudget::new(SCATTER_ABOVE).expect("above the minimum"));
            let may_scatter = parallel != Parallelism::Off && !args.repeat;
            let limit = if may_scatter && scatter_above.bytes() < budget.bytes() {
                scatter_above
            } else {
                budget
            };
            match ExternalShuffle::new(limit, separator).load(sources, size_hint)? {
                Loaded::InMemory(bytes) => Input::Lines(bytes),
                Loaded::TooLarge(prefix, rest) => Input::TooLarge {
                    prefix: prefix.into_inner(),
                    reader: Box::new(rest),
                    size_hint,
                    beyond_budget: limit == budget,
                },
            }
        }
    };
    let job = Job {
        input,
        head_count,
        repeat: args.repeat,
        separator,
        budget,
        temp_parent: args.temporary_directory.unwrap_or_else(std::env::temp_dir),
        random_source: args.random_source,
        sparse_allowed: selection.algorithm == PREFIX_ALGORITHM,
        output: args.output,
        parallel,
        verbose: args.verbose,
    };
    with_selection(&selection, job)
}

/// Refuses ranges that cannot be shuffled in memory, before any allocation.
fn check_range(
    range: InputRange,
    head_count: Option<usize>,
    algorithm: &str,
    budget: MemoryBudget,
) -> anyhow::Result<()> {
    let describe = || {
        if range.len == 0 {
            "the empty range".to_owned()
        } else {
            format!(
                "range {}-{} holds {} numbers",
                range.lo,
                range.hi(),
                range.len
            )
        }
    };
    let fits =
        range.len <= u128::from(MAX_RANGE_IN_MEMORY) && range.len * 8 <= u128::from(budget.bytes());
    match head_count {
        None if !fits => Err(usage(format!(
            "{}, more than can be shuffled in memory (at most {MAX_RANGE_IN_MEMORY}, 8 bytes \
             each within --memory {budget}); use -n K to sample from it",
            describe()
        ))),
        // Only the partial shuffle has a sparse form; running another algorithm's sample
        // through it would silently answer a different question.
        Some(_) if !fits && algorithm != PREFIX_ALGORITHM => Err(usage(format!(
            "{}, more than can be held in memory, and only --algo {PREFIX_ALGORITHM} can \
             sample from a range without holding it",
            describe()
        ))),
        Some(k) => {
            let k = u128::try_from(k).unwrap_or(u128::MAX).min(range.len);
            let needed = k.saturating_mul(u128::from(SPARSE_BYTES_PER_SAMPLE));
            if needed > u128::from(budget.bytes()) {
                return Err(usage(format!(
                    "a sample of {k} numbers needs about {needed} bytes, more than --memory \
                     {budget}"
                )));
            }
            Ok(())
        }
        None => Ok(()),
    }
}

/// The input files (or standard input), read one after another, each as if it ended with the
/// separator.
struct Sources {
    readers: std::vec::IntoIter<(Box<dyn Read>, String)>,
    current: Option<(Box<dyn Read>, String)>,
    separator: u8,
    /// The last byte of the current source, to add a missing final separator.
    last: Option<u8>,
    /// The total size when every source is a regular file.
    size_hint: Option<u64>,
}

impl Sources {
    /// Opens every source now, so that a missing file is reported before any work.
    fn open(files: &[OsString], separator: u8) -> anyhow::Result<Self> {
        let mut readers: Vec<(Box<dyn Read>, String)> = Vec::new();
        let mut size_hint = Some(0u64);
        let stdin_only = [OsString::from("-")];
        let files = if files.is_empty() {
            &stdin_only[..]
        } else {
            files
        };
        for file in files {
            let path = Path::new(file);
            if is_stdin(path) {
                readers.push((Box::new(io::stdin()), "standard input".to_owned()));
                size_hint = None;
                continue;
            }
            let name = format!("'{}'", path.display());
            let opened = File::open(path).with_context(|| format!("cannot read {name}"))?;
            let metadata = opened
                .metadata()
                .with_context(|| format!("cannot read {name}"))?;
            if metadata.is_dir() {
                return Err(anyhow::anyhow!("cannot read {name}: Is a directory"));
            }
            size_hint = size_hint
                .zip(metadata.is_file().then_some(metadata.len()))
                .map(|(a, b)| a.saturating_add(b));
            readers.push((Box::new(opened), name));
        }
        Ok(Self {
            readers: readers.into_iter(),
            current: None,
            separator,
            last: None,
            size_hint,
        })
    }
}

/// A read error that names its source; `fairdeal_external` wraps it as "cannot read input".
#[derive(Debug)]
struct SourceError {
    name: String,
    source: io::Error,
}

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.name, self.source)
    }
}

impl std::error::Error for SourceError {}

impl Read for Sources {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.current.is_none() {
                self.current = self.readers.next();
                self.last = None;
            }
            let Some((reader, name)) = self.current.as_mut() else {
                return Ok(0);
            };
            let n = match reader.read(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(source) => {
                    let kind = source.kind();
                    let name = name.clone();
                    return Err(io::Error::new(kind, SourceError { name, source }));
                }
            };
            if n > 0 {
                self.last = Some(buf[n - 1]);
                return Ok(n);
            }
            let unterminated = self.last.is_some_and(|b| b != self.separator);
            self.current = None;
            if unterminated {
                buf[0] = self.separator;
                return Ok(1);
            }
        }
    }
}

/// Splits input into records without their separator. A final record without separator is
/// still a record; a final separator does not start an empty one. Empty input has none.
pub(crate) fn split_records(buffer: &[u8], separator: u8) -> anyhow::Result<Vec<&[u8]>> {
    if buffer.is_empty() {
        return Ok(Vec::new());
    }
    let body = buffer.strip_suffix(&[separator]).unwrap_or(buffer);
    let count = memchr_count(separator, body) + 1;
    let mut records = Vec::new();
    records
        .try_reserve_exact(count)
        .map_err(|_| out_of_memory(count.saturating_mul(16)))?;
    records.extend(body.split(|&b| b == separator));
    Ok(records)
}

fn memchr_count(separator: u8, bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == separator).count()
}

/// The error for an allocation that failed (e.g. under `ulimit -v`).
fn out_of_memory(bytes: usize) -> anyhow::Error {
    anyhow::anyhow!("memory exhausted: cannot allocate {bytes} bytes")
}

enum Input {
    Lines(Vec<u8>),
    Range(InputRange),
    /// Input larger than the budget, or than the scatter threshold: what was read and the rest.
    TooLarge {
        prefix: Vec<u8>,
        reader: Box<dyn Read>,
        size_hint: Option<u64>,
        /// Whether the input is known not to fit the budget (else only the threshold).
        beyond_budget: bool,
    },
}

/// The mean record length (with separator) of `bytes`.
fn mean_record(bytes: &[u8], separator: u8) -> u64 {
    let records = memchr_count(separator, bytes);
    bytes.len() as u64 / records.max(1) as u64
}

struct Job {
    input: Input,
    head_count: Option<usize>,
    repeat: bool,
    separator: u8,
    budget: MemoryBudget,
    temp_parent: PathBuf,
    random_source: Option<PathBuf>,
    /// Whether the sparse range sampler may be used for a range that fits in memory (only when
    /// it gives the same output as the chosen algorithm, i.e. for `partial`).
    sparse_allowed: bool,
    output: Option<PathBuf>,
    /// Whether a whole shuffle runs `fairdeal::Parallel`.
    parallel: Parallelism,
    verbose: bool,
}

/// When `fairdeal shuffle` runs the parallel scatter shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parallelism {
    /// An explicit `--algo` or `-n`: never.
    Off,
    /// The default: on all cores, unless the sampler is language-exact.
    Auto,
    /// `--algo parallel`: on all cores or N threads, whatever the sampler.
    All(Option<NonZeroUsize>),
    /// `--threads N` without `--algo`: on N threads, unless the sampler is language-exact.
    Threads(NonZeroUsize),
}

/// Whether `sampler` reproduces another language's draws (Java's `nextInt`, Python's
/// `_randbelow`): then the output must be `inplace`'s at every size and thread count.
fn language_exact<B: Backend>(sampler: &AnySampler<B::Sampler>) -> bool {
    matches!(sampler, AnySampler::Backend(_)) && B::INFO.language_exact()
}

/// The generator seeded from the first bytes of `path` (`--random-source`).
fn seed_from_file<G: SeedableRng>(path: &Path) -> anyhow::Result<G> {
    let mut seed = G::Seed::default();
    let name = path.display();
    let mut file =
        File::open(path).with_context(|| format!("cannot read random source '{name}'"))?;
    file.read_exact(seed.as_mut()).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            anyhow::anyhow!(
                "random source '{name}': end of file (the seed needs {} bytes)",
                seed.as_ref().len()
            )
        } else {
            anyhow::Error::new(e).context(format!("cannot read random source '{name}'"))
        }
    })?;
    Ok(G::from_seed(seed))
}

impl WithResolved for Job {
    type Output = ();

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<()> {
        let Resolved {
            mut rng,
            shuffler,
            sampler,
        } = resolved;
        if let Some(path) = &self.random_source {
            rng = seed_from_file::<B::Rng>(path)?;
        }
        let info = shuffler.info();
        if !info.fair {
            // After every check of the arguments, so that an error stays one line.
            eprintln!(
                "fairdeal: warning: --algo {} is a deliberately biased negative control: its \
                 orders are NOT equally likely",
                info.name
            );
        }
        let exact = language_exact::<B>(&sampler);
        let threads = match self.parallel {
            Parallelism::Off => None,
            Parallelism::Auto | Parallelism::Threads(_) if exact => None,
            Parallelism::Auto => Some(None),
            Parallelism::All(n) => Some(n),
            Parallelism::Threads(n) => Some(Some(n)),
        };
        cleanup::install()?;
        let separator = self.separator;
        let budget = self.budget;
        let input = match self.input {
            // Loading stopped at the scatter threshold, but this shuffle does not scatter:
            // load on up to the budget.
            Input::TooLarge {
                prefix,
                reader,
                size_hint,
                beyond_budget: false,
            } if threads.is_none() => {
                match ExternalShuffle::new(budget, separator).load_after(prefix, reader)? {
                    Loaded::InMemory(bytes) => Input::Lines(bytes),
                    Loaded::TooLarge(prefix, rest) => Input::TooLarge {
                        prefix: prefix.into_inner(),
                        reader: rest,
                        size_hint,
                        beyond_budget: true,
                    },
                }
            }
            input => input,
        };
        let note = |path: &str| {
            if self.verbose {
                eprintln!("fairdeal: note: {path}");
            }
        };
        match input {
            Input::Lines(buffer) => {
                note("in memory");
                let mut records = split_records(&buffer, separator)?;
                if self.repeat {
                    return repeat(
                        &records,
                        self.head_count,
                        self.output.as_deref(),
                        separator,
                        |len| sampler.index_below(&mut rng, len),
                    );
                }
                let k = match threads {
                    Some(n) => shuffle_parallel(&mut records, &mut rng, sampler, n)?,
                    None => shuffle_head(&shuffler, &mut records, self.head_count, &mut rng)?,
                };
                let mut out = Output::create(self.output.as_deref())?;
                records[..k]
                    .iter()
                    .try_for_each(|record| {
                        out.write_all(record)?;
                        out.write_all(&[separator])
                    })
                    .context("cannot write output")?;
                out.commit()
            }
            Input::TooLarge {
                prefix,
                reader,
                size_hint,
                beyond_budget,
            } => {
                if self.repeat {
                    note(&format!("input larger than --memory {budget}: spooled"));
                    let reader = io::Cursor::new(prefix).chain(reader);
                    let scratch = cleanup::scratch_dir(&self.temp_parent)?;
                    let spooled = Spooled::write(reader, separator, scratch.path(), budget)?;
                    let records = spooled.offsets.len() - 1;
                    return repeat_spooled(
                        spooled,
                        self.head_count,
                        self.output.as_deref(),
                        |_| sampler.index_below(&mut rng, records),
                    );
                }
                let external = ExternalShuffle::with_sampler(budget, separator, sampler);
                if let Some(k) = self
                    .head_count
                    .filter(|&k| reservoir_fits(k, mean_record(&prefix, separator), budget))
                {
                    note(&format!(
                        "input larger than --memory {budget}: reservoir sample"
                    ));
                    let reader = io::Cursor::new(prefix).chain(reader);
                    let sample = external.sample(reader, k, &mut rng)?;
                    let mut out = Output::create(self.output.as_deref())?;
                    sample
                        .iter()
                        .try_for_each(|record| out.write_all(record))
                        .context("cannot write output")?;
                    return out.commit();
                }
                let mut out = Output::create(self.output.as_deref())?;
                let show = size_hint.is_none_or(|size| size > PROGRESS_THRESHOLD);
                let mut progress = Bytes::new(size_hint, show);
                if let Some(n) = threads.flatten() {
                    // The buckets are shuffled on rayon's global pool (the reader and the
                    // output stay on this thread); this process runs one shuffle, so the
                    // global pool may be sized here.
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(n.get())
                        .build_global()
                        .context("cannot start the worker threads")?;
                }
                // With -n K too large for a reservoir, the first K records of an exactly
                // uniform permutation are an exactly uniform ordered sample.
                let mut head = Head {
                    inner: &mut out,
                    left: self.head_count,
                    separator,
                };
                // The scatter starts in memory; the scratch directory is made only if it
                // spills (at once when the input is already known not to fit the budget).
                let mut scratch = None;
                let mut make_scratch = || {
                    let dir = cleanup::scratch_dir(&self.temp_parent).map_err(|e| {
                        fairdeal_external::ExternalError::TempCreate {
                            dir: self.temp_parent.clone(),
                            source: io::Error::other(format!("{e:#}")),
                        }
                    })?;
                    let path = dir.path().to_path_buf();
                    scratch = Some(dir);
                    Ok(path)
                };
                let summary = external.shuffle_spilling(
                    prefix,
                    reader,
                    &mut head,
                    &mut make_scratch,
                    &mut rng,
                    &mut progress,
                )?;
                progress.bar.finish_and_clear();
                drop(scratch);
                note(&if summary.bucket_files > 0 || beyond_budget {
                    format!(
                        "input larger than --memory {budget}: external shuffle{}",
                        if self.head_count.is_some() {
                            " (the sample is too: first K records)"
                        } else {
                            ""
                        }
                    )
                } else {
                    format!(
                        "in memory, scattered into {} buckets",
                        fairdeal_external::FAN_OUT
                    )
                });
                out.commit()
            }
            Input::Range(range) => {
                if self.repeat {
                    return repeat_range(
                        range,
                        self.head_count,
                        self.output.as_deref(),
                        separator,
                        &mut rng,
                        &sampler,
                    );
                }
                let len = range.len;
                let sparse_k = self
                    .head_count
                    .map(|k| u128::try_from(k).unwrap_or(u128::MAX).min(len));
                let sparse = match sparse_k {
                    Some(k) => {
                        self.sparse_allowed
                            && len > 0
                            && (len > u128::from(MAX_RANGE_IN_MEMORY)
                                || len * 8 > u128::from(self.budget.bytes())
                                || k * u128::from(SPARSE_RATIO) <= len)
                    }
                    None => false,
                };
                let values = if let (true, Some(k)) = (sparse, sparse_k) {
                    // `k <= len` and `k <= usize::MAX` by construction.
                    let k = usize::try_from(k).context("sample size does not fit in memory")?;
                    // Probe that the sampler's memory can be had (e.g. under `ulimit -v`)
                    // before it starts: it would abort on a failed allocation.
                    let needed = k.saturating_mul(SPARSE_BYTES_PER_SAMPLE as usize);
                    Vec::<u8>::new()
                        .try_reserve_exact(needed)
                        .map_err(|_| out_of_memory(needed))?;
                    fairdeal::partial::sample_range(range.lo, range.hi(), k, &mut rng, &sampler)
                        .context("cannot sample from the range")?
                } else {
                    // `check_range` bounded the length by MAX_RANGE_IN_MEMORY.
                    let len = len as usize;
                    let mut values: Vec<u64> = Vec::new();
                    values
                        .try_reserve_exact(len)
                        .map_err(|_| out_of_memory(len.saturating_mul(8)))?;
                    if len > 0 {
                        values.extend(range.lo..=range.hi());
                    }
                    let k = match threads {
                        Some(n) => shuffle_parallel(&mut values, &mut rng, sampler, n)?,
                        None => shuffle_head(&shuffler, &mut values, self.head_count, &mut rng)?,
                    };
                    values.truncate(k);
                    values
                };
                let mut out = Output::create(self.output.as_deref())?;
                values
                    .iter()
                    .try_for_each(|value| {
                        write!(out, "{value}")?;
                        out.write_all(&[separator])
                    })
                    .context("cannot write output")?;
                out.commit()
            }
        }
    }
}

/// Whether a reservoir of `k` records of about `mean_record` bytes fits the budget with room
/// to spare (half of it), so that longer records later in the input rarely overflow it.
fn reservoir_fits(k: usize, mean_record: u64, budget: MemoryBudget) -> bool {
    (k as u64)
        .checked_mul(mean_record.saturating_add(fairdeal_external::INDEX_BYTES_PER_RECORD))
        .and_then(|bytes| bytes.checked_mul(2))
        .is_some_and(|bytes| bytes <= budget.bytes())
}

/// Passes on the first `left` records (all without a limit) and drops the rest.
struct Head<W> {
    inner: W,
    left: Option<usize>,
    separator: u8,
}

impl<W: Write> Write for Head<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(left) = self.left else {
            return self.inner.write(buf);
        };
        if left == 0 {
            return Ok(buf.len());
        }
        // Up to and including the separator that ends the last wanted record.
        let mut seen = 0;
        let end = buf
            .iter()
            .position(|&b| {
                seen += usize::from(b == self.separator);
                seen == left
            })
            .map_or(buf.len(), |i| i + 1);
        let written = self.inner.write(&buf[..end])?;
        let records = buf[..written]
            .iter()
            .filter(|&&b| b == self.separator)
            .count();
        self.left = Some(left - records);
        Ok(if self.left == Some(0) {
            buf.len()
        } else {
            written
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Input beyond the budget, copied to a temporary file for `-r`, with the offset of every
/// record (8 bytes each: the records, not their bytes, must fit the budget).
struct Spooled {
    file: File,
    /// Where each record starts, then the end of the last one.
    offsets: Vec<u64>,
}

impl Spooled {
    fn write(
        mut reader: impl Read,
        separator: u8,
        scratch: &Path,
        budget: MemoryBudget,
    ) -> anyhow::Result<Self> {
        let path = scratch.join("repeat");
        let cannot = || format!("cannot write temporary file '{}'", path.display());
        let mut file = io::BufWriter::with_capacity(
            256 << 10,
            File::options()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&path)
                .with_context(cannot)?,
        );
        let most_records = budget.bytes() / 8;
        let mut offsets = vec![0u64];
        let mut buf = vec![0u8; 256 << 10];
        let mut position = 0u64;
        let mut last = separator;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(anyhow::Error::new(e).context("cannot read input")),
            };
            for (i, &b) in buf[..n].iter().enumerate() {
                if b == separator {
                    if offsets.len() as u64 > most_records {
                        return Err(anyhow::anyhow!(
                            "--repeat on input beyond --memory {budget} keeps 8 bytes per \
                             line in memory, and the input has more than {most_records} lines \
                             (raise --memory)"
                        ));
                    }
                    offsets
                        .try_reserve(1)
                        .map_err(|_| out_of_memory(offsets.len() * 16))?;
                    offsets.push(position + i as u64 + 1);
                }
            }
            file.write_all(&buf[..n]).with_context(cannot)?;
            position += n as u64;
            last = buf[n - 1];
        }
        if last != separator {
            file.write_all(&[separator]).with_context(cannot)?;
            offsets.push(position + 1);
        }
        let file = file
            .into_inner()
            .map_err(|e| anyhow::Error::new(e.into_error()))
            .with_context(cannot)?;
        Ok(Self { file, offsets })
    }
}

/// `-r` on spooled records: `k` independent uniform picks (or endless), each read back from
/// the temporary file.
fn repeat_spooled(
    mut spooled: Spooled,
    head_count: Option<usize>,
    output: Option<&Path>,
    mut pick: impl FnMut(usize) -> usize,
) -> anyhow::Result<()> {
    use std::io::{Seek as _, SeekFrom};
    let records = spooled.offsets.len() - 1;
    if records == 0 {
        return Err(anyhow::anyhow!("no lines to repeat"));
    }
    let mut out = Output::create(output)?;
    let mut buf = vec![0u8; 64 << 10];
    let mut left = head_count;
    while left != Some(0) {
        let i = pick(records);
        let (start, end) = (spooled.offsets[i], spooled.offsets[i + 1]);
        spooled
            .file
            .seek(SeekFrom::Start(start))
            .context("cannot read temporary file")?;
        let mut remaining = end - start;
        while remaining > 0 {
            let chunk = remaining.min(buf.len() as u64) as usize;
            spooled
                .file
                .read_exact(&mut buf[..chunk])
                .context("cannot read temporary file")?;
            out.write_all(&buf[..chunk])
                .context("cannot write output")?;
            remaining -= chunk as u64;
        }
        left = left.map(|k| k - 1);
    }
    out.commit()
}

/// `-r` on records: `k` independent uniform picks, or endless without `-n`.
fn repeat(
    records: &[&[u8]],
    head_count: Option<usize>,
    output: Option<&Path>,
    separator: u8,
    mut pick: impl FnMut(usize) -> usize,
) -> anyhow::Result<()> {
    if records.is_empty() {
        if head_count == Some(0) {
            return Output::create(output)?.commit();
        }
        return Err(anyhow::anyhow!("no lines to repeat"));
    }
    let mut out = Output::create(output)?;
    let mut left = head_count;
    while left != Some(0) {
        let record = records[pick(records.len())];
        out.write_all(record)
            .and_then(|()| out.write_all(&[separator]))
            .context("cannot write output")?;
        left = left.map(|k| k - 1);
    }
    out.commit()
}

/// `-r -i LO-HI`: independent uniform numbers of the range, without materialising it.
fn repeat_range<R: fairdeal::Rng, S: IndexSampler>(
    range: InputRange,
    head_count: Option<usize>,
    output: Option<&Path>,
    separator: u8,
    rng: &mut R,
    sampler: &S,
) -> anyhow::Result<()> {
    if range.len == 0 {
        if head_count == Some(0) {
            return Output::create(output)?.commit();
        }
        return Err(anyhow::anyhow!("no lines to repeat"));
    }
    let mut out = Output::create(output)?;
    let mut left = head_count;
    while left != Some(0) {
        // The whole u64 range (2^64 numbers) is one raw word; anything smaller fits `usize`
        // on 64-bit targets (and is refused by `usize::try_from` elsewhere).
        let offset = match usize::try_from(range.len) {
            Ok(len) => sampler.index_below(rng, len) as u64,
            Err(_) if range.len == 1 << 64 => rng.next_u64(),
            Err(_) => return Err(anyhow::anyhow!("range too large for this platform")),
        };
        write!(out, "{}", range.lo + offset)
            .and_then(|()| out.write_all(&[separator]))
            .context("cannot write output")?;
        left = left.map(|k| k - 1);
    }
    out.commit()
}

/// Progress in bytes: read during the scatter, then written during the gather.
struct Bytes {
    bar: indicatif::ProgressBar,
    writing: bool,
    read: u64,
}

impl Bytes {
    fn new(size_hint: Option<u64>, show: bool) -> Self {
        let bar = progress_bar(size_hint.unwrap_or(0), show, "reading (bytes)");
        Self {
            bar,
            writing: false,
            read: 0,
        }
    }
}

impl fairdeal_external::Progress for Bytes {
    fn read(&mut self, bytes: u64) {
        self.read += bytes;
        if self.bar.length().is_some_and(|len| len < self.read) {
            self.bar.set_length(self.read);
        }
        self.bar.inc(bytes);
    }

    fn written(&mut self, bytes: u64) {
        if !self.writing {
            self.writing = true;
            self.bar.set_length(self.read);
            self.bar.set_position(0);
            self.bar.set_message("writing (bytes)");
        }
        self.bar.inc(bytes);
    }
}
/// Shuffles `items` whole with the parallel scatter shuffle on a pool of `threads` threads (or
/// rayon's global pool, one thread per core), drawing leaf indices with `sampler`; returns how
/// many items to print (all).
fn shuffle_parallel<T, R, S>(
    items: &mut [T],
    rng: &mut R,
    sampler: S,
    threads: Option<NonZeroUsize>,
) -> anyhow::Result<usize>
where
    T: Send,
    R: fairdeal::Rng + fairdeal::SeedableRng + Send,
    S: IndexSampler + Copy + Send + Sync,
{
    let parallel = fairdeal::Parallel::with_sampler(sampler);
    match threads {
        Some(threads) => {
            crate::common::thread_pool(Some(threads))?.install(|| parallel.shuffle(items, rng));
        }
        None => parallel.shuffle(items, rng),
    }
    Ok(items.len())
}

/// Shuffles `items` whole, or only a prefix of `min(k, len)` for `-n K`; returns how many
/// items to print.
fn shuffle_head<T, S: IndexSampler + Copy, R: fairdeal::Rng + ?Sized>(
    shuffler: &fairdeal::AnyShuffler<S>,
    items: &mut [T],
    head_count: Option<usize>,
    rng: &mut R,
) -> anyhow::Result<usize> {
    match head_count {
        None => {
            shuffler.shuffle(items, rng);
            Ok(items.len())
        }
        Some(k) => {
            let k = k.min(items.len());
            shuffler.shuffle_prefix(items, k, rng)?;
            Ok(k)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(bytes: &[u8], separator: u8) -> Vec<&[u8]> {
        split_records(bytes, separator).unwrap()
    }

    #[test]
    fn records_split_like_shuf() {
        assert!(split(b"", b'\n').is_empty());
        assert_eq!(split(b"\n", b'\n'), vec![&b""[..]]);
        assert_eq!(split(b"a\nb\n", b'\n'), vec![&b"a"[..], b"b"]);
        assert_eq!(split(b"a\nb", b'\n'), vec![&b"a"[..], b"b"]);
        assert_eq!(split(b"a\n\nb\n", b'\n'), vec![&b"a"[..], b"", b"b"]);
        assert_eq!(split(b"\xff\xfe\n", b'\n'), vec![&b"\xff\xfe"[..]]);
        assert_eq!(split(b"a\nb\0c\0", b'\0'), vec![&b"a\nb"[..], b"c"]);
    }

    #[test]
    fn help_states_the_caps_and_the_budget_dependence() {
        use clap::Args as _;
        let help = Args::augment_args(clap::Command::new("shuffle"))
            .render_long_help()
            .to_string();
        assert!(help.contains(&MAX_RANGE_IN_MEMORY.to_string()), "{help}");
        let defaults = format!("default: {DEFAULT_ALGORITHM}, run as the parallel");
        assert!(help.contains(&defaults), "{help}");
        assert!(
            help.contains(&format!("{PREFIX_ALGORITHM} with -n")),
            "{help}"
        );
        assert!(help.contains("depends on the budget"), "{help}");
        assert!(help.contains("a quarter of physical memory"), "{help}");
        assert_eq!(
            fairdeal_external::DEFAULT_FRACTION,
            4,
            "the help says 'a quarter'"
        );
    }

    #[test]
    fn ranges_parse_and_reject() {
        assert_eq!(parse_range("1-10"), Ok(InputRange { lo: 1, len: 10 }));
        assert_eq!(parse_range("7-7"), Ok(InputRange { lo: 7, len: 1 }));
        // GNU shuf: LO-(LO-1) is the empty range.
        assert_eq!(parse_range("1-0"), Ok(InputRange { lo: 1, len: 0 }));
        assert_eq!(parse_range("8-7"), Ok(InputRange { lo: 8, len: 0 }));
        let full = parse_range("0-18446744073709551615").unwrap();
        assert_eq!(full.len, 1u128 << 64);
        assert_eq!(full.hi(), u64::MAX);
        for bad in [
            "",
            "5",
            "-",
            "1-",
            "-5",
            "a-b",
            "1-2-3",
            "-1-5",
            "+1-5",
            "1 -5",
            "1-99999999999999999999",
        ] {
            assert!(parse_range(bad).is_err(), "{bad:?} accepted");
        }
        assert!(parse_range("5-3").unwrap_err().contains("reversed"));
        assert!(parse_range("2-0").unwrap_err().contains("reversed"));
    }

    #[test]
    fn head_counts_parse_and_reject() {
        assert_eq!(parse_head_count("0"), Ok(0));
        assert_eq!(parse_head_count("12"), Ok(12));
        assert_eq!(parse_head_count("99999999999999999999999"), Ok(usize::MAX));
        for bad in ["", "-1", "-0", "1.5", "x", " 1"] {
            assert!(parse_head_count(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn memory_sizes_are_bounded_by_the_machine() {
        assert_eq!(parse_memory("1K").unwrap().bytes(), 1024);
        assert!(parse_memory("512").unwrap_err().contains("minimum"));
        assert!(parse_memory("12X").unwrap_err().contains("invalid size"));
        if fairdeal_external::physical_memory().is_some() {
            let err = parse_memory("1000000T").unwrap_err();
            assert!(err.contains("this machine's"), "{err}");
        }
    }

    #[test]
    fn sources_add_a_missing_final_separator_to_each_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, b"1\n2").unwrap();
        std::fs::write(&b, b"3\n").unwrap();
        let mut sources = Sources::open(&[a.into(), b.into()], b'\n').unwrap();
        assert_eq!(sources.size_hint, Some(5));
        let mut all = Vec::new();
        sources.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"1\n2\n3\n");
    }
}
