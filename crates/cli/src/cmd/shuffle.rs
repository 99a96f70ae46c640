//! `fairdeal shuffle`: GNU `shuf`'s interface, with a choice of algorithm and generator, for
//! inputs of any size.
//!
//! Records are lines (or NUL-terminated with `-z`) of raw bytes, and every output record ends
//! with the separator, even when the input's last one had none, as with `shuf`.
//!
//! **Which path runs** is decided once, by `fairdeal_external::plan` (see `docs/algorithms.md`,
//! "Which path `fairdeal shuffle` takes"), from the source, `--memory`, `--algo`, whether the
//! sampler is language-exact, `-n`, `-r` and `--threads`; this module opens the inputs, builds
//! the request, prints the plan with `-vv` and executes it, one [`Executor`] method per step:
//! - records that fit the plan's load limit (bytes plus 16 per record; the budget, or 16 MiB
//!   for a whole parallel shuffle) are shuffled in memory: the parallel scatter, a sequential
//!   algorithm (its prefix with `-n`), or picks with `-r`;
//! - records beyond it are scattered into 32 buckets as they are read
//!   (`ExternalShuffle::shuffle_spilling`, in memory while they fit the budget, then through
//!   temporary files under `-T DIR`, removed on success, on error and on SIGINT/SIGTERM
//!   ([`cleanup`])), reservoir-sampled for `-n K`, spooled for `-r`, or refused when the plan
//!   cannot honour `--algo` or a language-exact order there;
//! - ranges are held and shuffled, sampled sparsely (`fairdeal::partial::sample_range`), or
//!   picked from with `-r`, each within the memory the plan estimated.
//!
//! `-o FILE` is written to a temporary file beside FILE and renamed over it once complete, so
//! FILE may be an input and a failure leaves FILE as it was.
//!
//! `--algo parallel` names the scatter explicitly: the same output as the default whole shuffle
//! (with any sampler, at any size), on all cores or `--threads N`. The scatter has no prefix
//! form, so `--threads` excludes `-n` and any `--algo` but `parallel`.

mod cleanup;
pub(crate) mod output;

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::rng::Backend;
use fairdeal::{AnySampler, DEFAULT_ALGORITHM, IndexSampler, Rng as _, Shuffler};
use fairdeal_cli::args::{InputRange, parse_head_count, parse_range};
use fairdeal_external::plan::{
    self, Beyond, InMemory, Plan, RangePlan, Request, Source, reservoir_fits,
};
use fairdeal_external::{ExternalShuffle, Loaded, MemoryBudget};

use crate::common::{
    RandomArgs, Resolved, SamplerArg, Selection, ThreadsArg, WithResolved, is_stdin, progress_bar,
    usage, with_selection,
};
use output::Output;

/// Input larger than this (bytes) shows a progress bar on a terminal.
const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// `n` bytes as the help states them: whole MiB, or MiB to one decimal.
fn mib(n: u64) -> String {
    if n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{:.1} MiB", n as f64 / f64::from(1u32 << 20))
    }
}

/// `--algo`'s help, formatted from the thresholds the plan applies.
fn algo_help() -> String {
    let leaf = fairdeal::parallel::DEFAULT_LEAF_BYTES;
    let scatter = mib(plan::SCATTER_ABOVE);
    format!(
        "Shuffling algorithm (see `fairdeal algorithms`) [default: {DEFAULT_ALGORITHM}, run as the \
         parallel scatter shuffle once the elements fill more than {}, i.e. {} numbers or {} \
         lines (identical below that, unless the lines exceed {scatter}), and above {scatter} of \
         lines as the external shuffle's buckets kept in memory; {} with -n: O(k) \
         for a sample of k]. Input beyond --memory takes the external shuffle, which only the \
         default (or --algo parallel) runs: another --algo is refused there.",
        mib(leaf as u64),
        leaf / size_of::<u64>(),
        leaf / size_of::<&[u8]>(),
        plan::PREFIX_ALGORITHM,
    )
}

/// `--memory`'s help, with the buffers beside the budget formatted from their constant.
fn memory_help() -> String {
    format!(
        "Memory budget (e.g. 512M, 4G; K, M, G, T are powers of 1024). Input that fits (its bytes \
         plus 16 per line) is shuffled in memory, and the budget does not change its output; \
         larger input is shuffled through temporary files, and its output for a --seed depends \
         on the budget [default: a quarter of physical memory, or of the cgroup's memory limit or \
         `ulimit -v`/`-d` when lower]. Memory use stays within the budget plus {} of buffers.",
        mib(fairdeal_external::BUFFER_BYTES as u64)
    )
}

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
#[command(
    mut_arg("algo", |a| a.help(algo_help())),
    mut_arg("seed", |a| a.conflicts_with("random_source").help(
        "Seed for a reproducible shuffle; without it the generator is seeded from the OS. With \
         `--backend java` it is Java's `new Random(S)` (S read as a two's-complement `long`), \
         with `--backend python` it is `random.seed(S)`. The same seed and the same --memory \
         give the same output, from a pipe or a file alike."
    )),
    mut_arg("threads", |a| a.value_name("N").conflicts_with("head_count").help(
        "Threads for the parallel scatter shuffle (fairdeal-parallel), which a whole shuffle \
         without --algo or with --algo parallel uses, in memory and for each bucket of an \
         external shuffle [default: all cores]. The output for a given --seed is the same for \
         every N. Not with -n or another --algo."
    ))
)]
pub(crate) struct Args {
    /// Files whose lines are shuffled together; `-` or nothing reads standard input. With -e,
    /// the arguments are themselves the lines.
    #[arg(value_name = "FILE", conflicts_with = "input_range")]
    files: Vec<OsString>,

    /// Treat each argument as an input line (GNU shuf's -e).
    #[arg(
        short = 'e',
        long = "echo",
        conflicts_with = "input_range",
        overrides_with = "echo"
    )]
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
    #[arg(short = 'r', long = "repeat", overrides_with = "repeat")]
    repeat: bool,

    /// Records end with NUL instead of newline, in input and output.
    #[arg(
        short = 'z',
        long = "zero-terminated",
        overrides_with = "zero_terminated"
    )]
    zero_terminated: bool,

    #[command(flatten)]
    random: RandomArgs,

    #[command(flatten)]
    sampler: SamplerArg,

    /// Take the random bytes from FILE and draw from them as GNU shuf does: the same FILE gives
    /// GNU `shuf --random-source=FILE`'s output byte for byte (with one input file), and an
    /// error ("end of file") when FILE runs out. Holds the input in memory, as GNU does, within
    /// --memory (a larger input is refused: GNU has no external shuffle to reproduce).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["algo", "backend", "sampler", "threads", "scatter_above"]
    )]
    random_source: Option<PathBuf>,

    /// Write to FILE instead of standard output: a temporary file beside FILE, renamed over it
    /// when complete, so FILE may be an input and a failure leaves it untouched.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,

    #[arg(long, value_name = "SIZE", value_parser = parse_memory, help = memory_help())]
    memory: Option<MemoryBudget>,

    /// Directory for temporary files [default: $TMPDIR, else /tmp]. They take about the
    /// input's size and are removed on success, on error and on Ctrl-C/SIGTERM.
    #[arg(short = 'T', long = "temporary-directory", value_name = "DIR")]
    temporary_directory: Option<PathBuf>,

    #[command(flatten)]
    threads: ThreadsArg,

    /// Lets --memory go below its minimum (down to 1K), to reach the external path with small
    /// inputs (for tests; such budgets are many times slower).
    #[arg(long, hide = true)]
    small_memory: bool,

    /// The size above which a whole shuffle scatters the lines into buckets as they are read
    /// (for tests, to reach that path with small inputs; it changes the output for a --seed).
    #[arg(long, value_name = "SIZE", value_parser = parse_memory, hide = true)]
    scatter_above: Option<MemoryBudget>,

    /// Notes on stderr: which path ran and, without --seed or --random-source, the seed (then
    /// drawn from the OS as one 64-bit number so that `--seed S` repeats the run; without
    /// --verbose the generator's whole state is drawn from the OS and there is no seed to
    /// print). Given twice (-vv), also the plan, before any input is read.
    #[arg(short = 'v', long, action = clap::ArgAction::Count)]
    verbose: u8,
}

/// The smallest `--memory` honoured: below it the external shuffle makes so many levels and
/// small files that it runs many times slower (`--memory 1K` took 10 to 20 times as long as
/// `1M` on 8 MB), so a smaller budget is raised to it with a note, as GNU sort raises `-S`.
pub(crate) const MIN_MEMORY: u64 = 64 << 10;

/// `--memory` as given, raised to [`MIN_MEMORY`] (with a note) unless `small` (the hidden
/// `--small-memory` of the tests).
fn at_least_minimum(memory: MemoryBudget, small: bool) -> MemoryBudget {
    if small || memory.bytes() >= MIN_MEMORY {
        return memory;
    }
    let minimum = MemoryBudget::new(MIN_MEMORY).expect("the minimum is a valid budget");
    eprintln!("fairdeal: note: --memory {memory} is below the minimum {minimum}; using {minimum}");
    minimum
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

/// A plan refused, in the user's words. With `--memory` given it is a usage error (exit 2),
/// as worded. With the default budget, a runtime failure (exit 1, as GNU's `memory
/// exhausted`): the budget is a fraction of the memory the process may use, and the message
/// names that limit (`ulimit -v`, the cgroup's, physical memory) instead of a `--memory` the
/// user never passed.
fn plan_error(err: &plan::PlanError, budget: MemoryBudget, memory_given: bool) -> anyhow::Error {
    let text = err.to_string();
    let named = format!("--memory {budget}");
    if memory_given || !text.contains(&named) {
        return usage(text);
    }
    let limit = fairdeal_external::memory_limit_source().map_or_else(
        || "memory".to_owned(),
        |(bytes, source)| format!("{source} ({})", plan::human(bytes)),
    );
    let default = format!(
        "the default budget {budget} (1/{} of {limit})",
        fairdeal_external::DEFAULT_FRACTION
    );
    anyhow::anyhow!("{}", text.replace(&named, &default))
}

/// Runs `fairdeal shuffle`: checks the arguments, plans the path once
/// ([`fairdeal_external::plan`]), then executes the plan on the caller's thread pool
/// (`common::thread_pool`: `--threads N` or all cores when the plan runs the parallel scatter,
/// one thread otherwise).
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
    let separator = if args.zero_terminated { b'\0' } else { b'\n' };
    let memory = args
        .memory
        .map(|memory| at_least_minimum(memory, args.small_memory));
    let budget =
        memory.unwrap_or_else(|| MemoryBudget::default_for(fairdeal_external::memory_limit()));
    if let Some(source) = &args.random_source {
        // GNU's draws, on GNU's plan: decided by the planner like every other path.
        let source_kind = match args.input_range {
            Some(range) => Source::Range {
                lo: range.lo,
                len: range.len,
            },
            None if args.echo => Source::Records { size_hint: None },
            None => Source::Records {
                size_hint: files_size(&args.files),
            },
        };
        let request = Request {
            head_count,
            repeat: args.repeat,
            gnu: true,
            ..Request::new(source_kind, budget)
        };
        let plan =
            plan::plan(&request).map_err(|e| plan_error(&e, budget, args.memory.is_some()))?;
        if args.verbose > 1 {
            eprintln!("fairdeal: note: plan: {plan}");
        }
        let Plan::Gnu { load_limit } = plan else {
            unreachable!("a request for GNU's draws is planned as GNU's plan")
        };
        return super::shuf::run_gnu(gnu_job(
            args.input_range,
            args.echo,
            args.files,
            head_count,
            args.repeat,
            separator,
            source.clone(),
            args.output,
            load_limit,
        )?);
    }
    if head_count == Some(0) {
        // As GNU: nothing to write, so the input is not even opened.
        return Output::create(args.output.as_deref())?.commit();
    }
    let backend = args.random.backend();
    let exact_order = (args.sampler.sampler == "backend"
        && fairdeal::rng::backend_info(backend).is_ok_and(|info| info.language_exact()))
    .then_some(backend);
    let (source, input) = match args.input_range {
        Some(range) => (
            Source::Range {
                lo: range.lo,
                len: range.len,
            },
            Input::Range(range),
        ),
        None if args.echo => {
            // Each argument is one record, even if it holds the separator (as GNU's -e).
            let records = args
                .files
                .iter()
                .map(|arg| arg.as_encoded_bytes().to_vec())
                .collect();
            // Already in memory, whatever the budget: only the plan's `fits` step runs on it.
            (Source::Records { size_hint: None }, Input::Echo(records))
        }
        None => {
            let sources = Sources::open(&args.files, separator)?;
            let size_hint = sources.size_hint;
            (Source::Records { size_hint }, Input::Sources(sources))
        }
    };
    let request = Request {
        source,
        budget,
        algorithm: args.random.algo.as_deref(),
        exact_order,
        head_count,
        repeat: args.repeat,
        threads: args.threads.threads,
        scatter_above: args
            .scatter_above
            .map_or(plan::SCATTER_ABOVE, MemoryBudget::bytes),
        gnu: false,
    };
    let plan = plan::plan(&request).map_err(|e| plan_error(&e, budget, args.memory.is_some()))?;
    let mut seed = args.random.seed;
    if seed.is_none() && args.random_source.is_none() && args.verbose > 0 {
        let mut os = fairdeal::rng::DefaultBackend::from_os()
            .context("cannot seed the generator from the operating system")?;
        let drawn = os.next_u64();
        eprintln!(
            "fairdeal: note: seed {drawn} (drawn from the OS; --seed {drawn} repeats this run)"
        );
        seed = Some(drawn);
    }
    if args.verbose > 1 {
        eprintln!("fairdeal: note: plan: {plan}");
    }
    let selection = Selection {
        algorithm: plan_algorithm(&plan).to_owned(),
        backend: backend.to_owned(),
        sampler: args.sampler.sampler.clone(),
        seed,
    };
    let threads = match plan.scatter_threads() {
        Some(threads) => threads,
        None => Some(NonZeroUsize::MIN),
    };
    // The workers share the address space with what the plan holds (the records up to the
    // budget and the buffers beside it, or the range's numbers) and with the signal thread.
    let holds = match &plan {
        Plan::Records { .. } | Plan::Gnu { .. } => budget
            .bytes()
            .saturating_add(fairdeal_external::BUFFER_BYTES as u64),
        Plan::Range { estimate, .. } => *estimate,
    };
    let work = holds.saturating_add(crate::common::PER_WORKER);
    let job = Job {
        plan,
        input,
        separator,
        budget,
        temp_parent: fairdeal_external::temp_parent(args.temporary_directory.as_deref()),
        output: args.output,
        verbose: args.verbose > 0,
    };
    crate::common::thread_pool_for(threads, work)?.install(|| with_selection(&selection, job))
}

/// `--random-source FILE`: GNU shuf's draws from FILE's bytes ([`super::shuf::run_gnu`]).
#[allow(clippy::too_many_arguments)]
fn gnu_job(
    range: Option<InputRange>,
    echo: bool,
    files: Vec<OsString>,
    head_count: Option<usize>,
    repeat: bool,
    separator: u8,
    random_source: PathBuf,
    output: Option<PathBuf>,
    load_limit: Option<MemoryBudget>,
) -> anyhow::Result<super::shuf::GnuJob> {
    use super::shuf::GnuInput;
    let input = match range {
        Some(range) if range.len > u128::from(u64::MAX) => {
            return Err(usage(format!(
                "range {}-{} holds 2^64 numbers; with --random-source (GNU's draws) at most \
                 2^64 - 1",
                range.lo,
                range.hi()
            )));
        }
        Some(range) => GnuInput::Range {
            lo: range.lo,
            hi: range.hi(),
        },
        None if echo => GnuInput::Echo(files),
        None => GnuInput::Files(files),
    };
    Ok(super::shuf::GnuJob {
        input,
        head: head_count.map(|k| u64::try_from(k).unwrap_or(u64::MAX)),
        repeat,
        separator,
        random_source: Some(random_source),
        output,
        load_limit,
    })
}

/// The total size of `files` when every one is a regular file (not standard input).
fn files_size(files: &[OsString]) -> Option<u64> {
    if files.is_empty() {
        return None;
    }
    files.iter().try_fold(0u64, |total, file| {
        let path = Path::new(file);
        let meta = std::fs::metadata(path).ok().filter(|_| !is_stdin(path))?;
        meta.is_file().then(|| total.saturating_add(meta.len()))
    })
}

/// The algorithm the plan's in-memory step runs (the default when it runs none by name).
fn plan_algorithm(plan: &Plan) -> &str {
    let in_memory = match plan {
        Plan::Records { fits, .. } => Some(fits),
        Plan::Range {
            how: RangePlan::Materialise(fits),
            ..
        } => Some(fits),
        Plan::Range { .. } | Plan::Gnu { .. } => None,
    };
    match in_memory {
        Some(InMemory::Sequential { algorithm, .. }) => algorithm,
        _ => DEFAULT_ALGORITHM,
    }
}

/// The input files (or standard input), read one after another, each as if it ended with the
/// separator.
struct Sources {
    readers: std::vec::IntoIter<(Box<dyn Read + Send>, String)>,
    current: Option<(Box<dyn Read + Send>, String)>,
    separator: u8,
    /// The last byte of the current source, to add a missing final separator.
    last: Option<u8>,
    /// The total size when every source is a regular file.
    size_hint: Option<u64>,
}

impl Sources {
    /// Opens every source now, so that a missing file is reported before any work.
    fn open(files: &[OsString], separator: u8) -> anyhow::Result<Self> {
        let mut readers: Vec<(Box<dyn Read + Send>, String)> = Vec::new();
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
                readers.push((
                    Box::new(crate::closed_stdio::stdin()),
                    "standard input".to_owned(),
                ));
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

/// What the plan runs on.
enum Input {
    /// Standard input or the files.
    Sources(Sources),
    /// `-e`: the arguments, already in memory, each one record.
    Echo(Vec<Vec<u8>>),
    /// `-i LO-HI`.
    Range(InputRange),
}

/// A planned run, waiting for the backend's static type.
struct Job {
    plan: Plan,
    input: Input,
    separator: u8,
    budget: MemoryBudget,
    temp_parent: PathBuf,
    output: Option<PathBuf>,
    verbose: bool,
}

/// The mean record length (with separator) of `bytes`.
fn mean_record(bytes: &[u8], separator: u8) -> u64 {
    let records = memchr_count(separator, bytes);
    bytes.len() as u64 / records.max(1) as u64
}

impl WithResolved for Job {
    type Output = ();

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<()> {
        let Resolved {
            rng,
            shuffler,
            sampler,
        } = resolved;
        cleanup::install()?;
        let mut exec = Executor::<B> {
            rng,
            shuffler,
            sampler,
            separator: self.separator,
            budget: self.budget,
            temp_parent: self.temp_parent,
            output: self.output,
            verbose: self.verbose,
        };
        match (self.plan, self.input) {
            (Plan::Range { how, .. }, Input::Range(range)) => exec.range(&how, range),
            (Plan::Gnu { .. }, _) => unreachable!("GNU's plan runs in `run`"),
            (Plan::Records { fits, .. }, Input::Echo(args)) => {
                exec.records_apart(&fits, args.iter().map(Vec::as_slice).collect())
            }
            (
                Plan::Records {
                    load_limit,
                    fits,
                    beyond,
                },
                Input::Sources(sources),
            ) => {
                let size_hint = sources.size_hint;
                match ExternalShuffle::new(load_limit, self.separator).load(sources, size_hint)? {
                    Loaded::InMemory(bytes) => exec.records(&fits, &bytes),
                    Loaded::TooLarge(prefix, rest) => {
                        let beyond_budget = load_limit == self.budget;
                        exec.beyond(&beyond, prefix.into_inner(), rest, size_hint, beyond_budget)
                    }
                }
            }
            _ => unreachable!("a range is planned as a range, records as records"),
        }
    }
}

/// One small executor per step of a [`Plan`], with the resolved generator and algorithm.
struct Executor<B: Backend> {
    rng: B::Rng,
    shuffler: fairdeal::AnyShuffler<AnySampler<B::Sampler>>,
    sampler: AnySampler<B::Sampler>,
    separator: u8,
    budget: MemoryBudget,
    temp_parent: PathBuf,
    output: Option<PathBuf>,
    verbose: bool,
}

impl<B: Backend> Executor<B> {
    fn note(&self, path: &str) {
        if self.verbose {
            eprintln!("fairdeal: note: {path}");
        }
    }

    /// Warns about the biased negative control, after every check of the arguments (so that
    /// an error stays one line) and only when it really runs.
    fn warn_if_unfair(&self) {
        let info = self.shuffler.info();
        if !info.fair {
            eprintln!(
                "fairdeal: warning: --algo {} is a deliberately biased negative control: its \
                 orders are NOT equally likely",
                info.name
            );
        }
    }

    /// Shuffles `items` as `step` says; returns how many of them to write.
    fn shuffle_in_memory<T: Send>(
        &mut self,
        step: &InMemory,
        items: &mut [T],
    ) -> anyhow::Result<usize> {
        match step {
            InMemory::Scatter { .. } => {
                // On the caller's pool, which `run` sized to the plan's threads.
                fairdeal::Parallel::with_sampler(self.sampler).shuffle(items, &mut self.rng);
                Ok(items.len())
            }
            InMemory::Sequential { head_count, .. } => {
                shuffle_head(&self.shuffler, items, *head_count, &mut self.rng)
            }
            InMemory::Repeat { .. } => unreachable!("picks with replacement shuffle nothing"),
        }
    }

    /// Records that fit in memory.
    fn records(&mut self, step: &InMemory, buffer: &[u8]) -> anyhow::Result<()> {
        let records = split_records(buffer, self.separator)?;
        self.records_apart(step, records)
    }

    /// [`Self::records`] on records already apart (`-e`'s arguments, which may hold the
    /// separator).
    fn records_apart(&mut self, step: &InMemory, mut records: Vec<&[u8]>) -> anyhow::Result<()> {
        if matches!(step, InMemory::Sequential { .. }) {
            self.warn_if_unfair();
        }
        self.note("in memory");
        let separator = self.separator;
        if let InMemory::Repeat { head_count } = step {
            let (sampler, rng) = (&self.sampler, &mut self.rng);
            return repeat(
                &records,
                *head_count,
                self.output.as_deref(),
                separator,
                |len| sampler.index_below(rng, len),
            );
        }
        let k = self.shuffle_in_memory(step, &mut records)?;
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

    /// Records beyond the load limit: `prefix` was read, `reader` holds the rest.
    fn beyond(
        &mut self,
        step: &Beyond,
        prefix: Vec<u8>,
        reader: Sources,
        size_hint: Option<u64>,
        beyond_budget: bool,
    ) -> anyhow::Result<()> {
        let (separator, budget) = (self.separator, self.budget);
        match step {
            Beyond::Refuse(refused) => Err(usage(refused.to_string())),
            Beyond::Spool { head_count } => {
                self.note(&format!("input larger than --memory {budget}: spooled"));
                let reader = io::Cursor::new(prefix).chain(reader);
                let spooled = Spooled::write(reader, separator, &self.temp_parent, budget)?;
                let records = spooled.offsets.len() - 1;
                let (sampler, rng) = (&self.sampler, &mut self.rng);
                repeat_spooled(&spooled, *head_count, self.output.as_deref(), |_| {
                    sampler.index_below(rng, records)
                })
            }
            &Beyond::Sample { k } if reservoir_fits(k, mean_record(&prefix, separator), budget) => {
                self.note(&format!(
                    "input larger than --memory {budget}: reservoir sample"
                ));
                let external = ExternalShuffle::with_sampler(budget, separator, self.sampler);
                let reader = io::Cursor::new(prefix).chain(reader);
                let sample = external.sample(reader, k, &mut self.rng)?;
                let mut out = Output::create(self.output.as_deref())?;
                sample
                    .iter()
                    .try_for_each(|record| out.write_all(record))
                    .context("cannot write output")?;
                out.commit()
            }
            // With -n K too large for a reservoir, the first K records of an exactly uniform
            // permutation are an exactly uniform ordered sample.
            &Beyond::Sample { k } => self.spilling(prefix, reader, Some(k), size_hint, true),
            &Beyond::Spilling { head_count } => {
                self.spilling(prefix, reader, head_count, size_hint, beyond_budget)
            }
        }
    }

    /// The scatter into buckets as the records are read, in memory while they fit the budget.
    fn spilling(
        &mut self,
        prefix: Vec<u8>,
        reader: Sources,
        head_count: Option<usize>,
        size_hint: Option<u64>,
        beyond_budget: bool,
    ) -> anyhow::Result<()> {
        let (separator, budget) = (self.separator, self.budget);
        let external = ExternalShuffle::with_sampler(budget, separator, self.sampler);
        let mut out = Output::create(self.output.as_deref())?;
        let show = size_hint.is_none_or(|size| size > PROGRESS_THRESHOLD);
        let mut progress = Bytes::new(size_hint, show);
        let mut head = Head {
            inner: &mut out,
            left: head_count,
            separator,
        };
        // The scatter starts in memory; spill files (anonymous, private: see
        // `fairdeal_external::SpillFile`) are made only if it spills.
        let mut make_scratch = || Ok(self.temp_parent.clone());
        let summary = external.shuffle_spilling(
            prefix,
            reader,
            &mut head,
            &mut make_scratch,
            &mut self.rng,
            &mut progress,
        )?;
        progress.bar.finish_and_clear();
        self.note(&if summary.bucket_files > 0 || beyond_budget {
            format!(
                "input larger than --memory {budget}: external shuffle{}",
                if head_count.is_some() {
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

    /// A range: picks with replacement, a sparse sample, or the numbers held and shuffled.
    fn range(&mut self, how: &RangePlan, range: InputRange) -> anyhow::Result<()> {
        let separator = self.separator;
        let values = match how {
            RangePlan::Repeat { head_count } => {
                return repeat_range(
                    range,
                    *head_count,
                    self.output.as_deref(),
                    separator,
                    &mut self.rng,
                    &self.sampler,
                );
            }
            &RangePlan::Sparse { k } => {
                // Probe that the sampler's memory can be had (e.g. under `ulimit -v`) before
                // it starts: it would abort on a failed allocation.
                let needed = k.saturating_mul(plan::SPARSE_BYTES_PER_SAMPLE as usize);
                Vec::<u8>::new()
                    .try_reserve_exact(needed)
                    .map_err(|_| out_of_memory(needed))?;
                fairdeal::partial::sample_range(
                    range.lo,
                    range.hi(),
                    k,
                    &mut self.rng,
                    &self.sampler,
                )
                .context("cannot sample from the range")?
            }
            RangePlan::Materialise(step) => {
                if matches!(step, InMemory::Sequential { .. }) {
                    self.warn_if_unfair();
                }
                // The plan bounded the length by MAX_RANGE_IN_MEMORY.
                let len =
                    usize::try_from(range.len).context("range too large for this platform")?;
                let mut values: Vec<u64> = Vec::new();
                values
                    .try_reserve_exact(len)
                    .map_err(|_| out_of_memory(len.saturating_mul(8)))?;
                if len > 0 {
                    values.extend(range.lo..=range.hi());
                }
                let k = self.shuffle_in_memory(step, &mut values)?;
                values.truncate(k);
                values
            }
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

/// The spool's blocks: runs of whole records of at least this many bytes, each a checksummed
/// segment of the spill file, read back whole (and verified) for every pick of one of its
/// records. One page: a pick reads and hashes about 4 KiB, and a block's bookkeeping
/// ([`SPOOL_BYTES_PER_BLOCK`]) is about 2 % of the spooled bytes.
const SPOOL_BLOCK: u64 = 4 << 10;

/// Memory per block: its start, its sealed segment and the segment's one extent on the heap.
const SPOOL_BYTES_PER_BLOCK: u64 = 96;

/// A block up to this size is read into memory and verified before its record is written; a
/// longer one (a record longer than this) is streamed, and verified at its end.
const SPOOL_READ_WHOLE: u64 = 1 << 20;

/// Input beyond the budget, copied to a private spill file for `-r`
/// ([`fairdeal_external::SpillFile`]) as checksummed blocks of whole records, with the offset of
/// every record (8 bytes each: the records, not their bytes, must fit the budget).
struct Spooled {
    file: fairdeal_external::SpillFile,
    /// Where each record starts in the file, then the end of the last one.
    offsets: Vec<u64>,
    /// Where each block starts, and the block: its length and checksum.
    blocks: Vec<(u64, fairdeal_external::Sealed)>,
}

impl Spooled {
    fn write(
        mut reader: impl Read,
        separator: u8,
        scratch: &Path,
        budget: MemoryBudget,
    ) -> anyhow::Result<Self> {
        let mut file = fairdeal_external::SpillFile::anonymous_in(scratch)?;
        let mut offsets = vec![0u64];
        let mut blocks = Vec::new();
        // The block being written: where it starts, its segment, and its bytes not yet
        // appended (one append per block, or per 256 KiB of a long record).
        let mut block = (0u64, fairdeal_external::Segment::new());
        let mut pending: Vec<u8> = Vec::with_capacity(SPOOL_BLOCK as usize * 2);
        let mut buf = vec![0u8; 256 << 10];
        let mut last = separator;
        let seal = |file: &mut fairdeal_external::SpillFile,
                    block: &mut (u64, fairdeal_external::Segment),
                    pending: &mut Vec<u8>,
                    blocks: &mut Vec<(u64, fairdeal_external::Sealed)>|
         -> anyhow::Result<()> {
            file.append(&mut block.1, pending)?;
            pending.clear();
            let full = std::mem::replace(block, (file.len(), Default::default()));
            if full.1.bytes() > 0 {
                blocks.push((full.0, full.1.seal()));
            }
            Ok(())
        };
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(anyhow::Error::new(e).context("cannot read input")),
            };
            let mut rest = &buf[..n];
            while !rest.is_empty() {
                let Some(end) = memchr_position(separator, rest) else {
                    pending.extend_from_slice(rest);
                    if pending.len() >= 256 << 10 {
                        file.append(&mut block.1, &pending)?;
                        pending.clear();
                    }
                    break;
                };
                let (record, tail) = rest.split_at(end + 1);
                pending.extend_from_slice(record);
                rest = tail;
                let held = (offsets.len() as u64)
                    .saturating_mul(8)
                    .saturating_add((blocks.len() as u64).saturating_mul(SPOOL_BYTES_PER_BLOCK));
                if held > budget.bytes() {
                    return Err(anyhow::anyhow!(
                        "--repeat on input beyond --memory {budget} keeps 8 bytes per line and \
                         {SPOOL_BYTES_PER_BLOCK} per {} KiB in memory, and the input has more \
                         than {} lines (raise --memory)",
                        SPOOL_BLOCK >> 10,
                        offsets.len() - 1
                    ));
                }
                offsets
                    .try_reserve(1)
                    .map_err(|_| out_of_memory(offsets.len() * 16))?;
                offsets.push(file.len() + pending.len() as u64);
                if block.1.bytes() + pending.len() as u64 >= SPOOL_BLOCK {
                    seal(&mut file, &mut block, &mut pending, &mut blocks)?;
                }
            }
            last = buf[n - 1];
        }
        if last != separator {
            pending.push(separator);
            offsets.push(file.len() + pending.len() as u64);
        }
        seal(&mut file, &mut block, &mut pending, &mut blocks)?;
        Ok(Self {
            file,
            offsets,
            blocks,
        })
    }

    /// Writes record `i` to `out`, from its block read back and verified.
    fn write_record(
        &self,
        i: usize,
        buf: &mut Vec<u8>,
        out: &mut impl Write,
    ) -> anyhow::Result<()> {
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        // The block holding the record: the last one starting at or before it.
        let b = self.blocks.partition_point(|(at, _)| *at <= start) - 1;
        let (at, block) = &self.blocks[b];
        let (from, to) = ((start - at) as usize, (end - at) as usize);
        if block.bytes() <= SPOOL_READ_WHOLE {
            buf.resize(block.bytes() as usize, 0);
            self.file.read_segment_into(block, buf)?;
            return out.write_all(&buf[from..to]).context("cannot write output");
        }
        // A long record: streamed, the block's checksum checked at its end (before `-o` is
        // put in place).
        let mut reader = self.file.segment_reader(block);
        let mut skip = from as u64;
        let mut copy = (to - from) as u64;
        buf.resize(64 << 10, 0);
        loop {
            let n = match reader.read(buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // The damage the reader found, else the read error.
                Err(e) => {
                    let dir = self.file.dir().display().to_string();
                    let cannot = || format!("cannot read a temporary file in '{dir}'");
                    if !e
                        .get_ref()
                        .is_some_and(|inner| inner.is::<fairdeal_external::ExternalError>())
                    {
                        return Err(anyhow::Error::new(e).context(cannot()));
                    }
                    let damage = e.into_inner().and_then(|inner| {
                        inner.downcast::<fairdeal_external::ExternalError>().ok()
                    });
                    return Err(damage.map_or_else(
                        || anyhow::anyhow!(cannot()),
                        |damage| anyhow::Error::new(*damage),
                    ));
                }
            };
            let skipped = skip.min(n as u64) as usize;
            skip -= skipped as u64;
            let copied = copy.min((n - skipped) as u64) as usize;
            copy -= copied as u64;
            out.write_all(&buf[skipped..skipped + copied])
                .context("cannot write output")?;
        }
    }
}

/// The position of the first `separator` in `bytes`.
fn memchr_position(separator: u8, bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == separator)
}

/// `-r` on spooled records: `k` independent uniform picks (or endless), each read back from
/// its verified block of the spill file.
fn repeat_spooled(
    spooled: &Spooled,
    head_count: Option<usize>,
    output: Option<&Path>,
    mut pick: impl FnMut(usize) -> usize,
) -> anyhow::Result<()> {
    let records = spooled.offsets.len() - 1;
    if records == 0 {
        return Err(anyhow::anyhow!("no lines to repeat"));
    }
    let mut out = Output::create(output)?;
    let mut buf = Vec::new();
    let mut left = head_count;
    while left != Some(0) {
        spooled.write_record(pick(records), &mut buf, &mut out)?;
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
        assert!(
            help.contains(&plan::MAX_RANGE_IN_MEMORY.to_string()),
            "{help}"
        );
        let defaults = format!("default: {DEFAULT_ALGORITHM}, run as the parallel");
        assert!(help.contains(&defaults), "{help}");
        assert!(
            help.contains(&format!("{} with -n", plan::PREFIX_ALGORITHM)),
            "{help}"
        );
        assert!(help.contains("depends on the budget"), "{help}");
        assert!(help.contains("a quarter of physical memory"), "{help}");
        assert!(
            help.contains("more than 1 MiB, i.e. 131072 numbers or 65536 lines"),
            "{help}"
        );
        assert!(help.contains("budget plus 2.5 MiB of buffers"), "{help}");
        assert_eq!(
            fairdeal_external::DEFAULT_FRACTION,
            4,
            "the help says 'a quarter'"
        );
    }

    #[test]
    fn the_planner_names_the_facade_algorithms() {
        assert_eq!(plan::PREFIX_ALGORITHM, fairdeal::partial::INFO.name);
        assert_eq!(plan::WHOLE_ALGORITHM, DEFAULT_ALGORITHM);
        assert_eq!(plan::PARALLEL_ALGORITHM, fairdeal::parallel::INFO.name);
        for name in [
            plan::PREFIX_ALGORITHM,
            plan::WHOLE_ALGORITHM,
            plan::PARALLEL_ALGORITHM,
        ] {
            assert!(
                fairdeal::algorithm_by_name(name, fairdeal::Lemire).is_ok(),
                "{name}"
            );
        }
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
    fn the_planner_knows_when_gnu_reads_a_file_whole() {
        // Probe row P9: the plan of `--random-source -n K` holds a file GNU reads whole; the
        // draw loop decides the same from the same threshold.
        assert_eq!(
            plan::GNU_READS_WHOLE,
            fairdeal::rng::GNU_RESERVOIR_MIN_INPUT
        );
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
