//! `fairdeal shuffle`: GNU `shuf`'s interface, with a choice of algorithm and generator, for
//! inputs of any size.
//!
//! One descent: the arguments become a [`Request`] and an [`Input`]; `fairdeal_external`
//! plans the job once ([`Job::plan`], see `docs/algorithms.md`, "Which path `fairdeal
//! shuffle` takes") and executes it once ([`Job::execute`]) on the generator, sampler and
//! algorithm the facade resolves, inside the thread pool the plan asks for, writing to
//! [`Output`]; this module prints the plan with `-vv`, the notes with `-v`, the progress bar,
//! and words the library's errors as flags. `--random-source` plans GNU shuf's job instead
//! and runs it in [`super::shuf::run_gnu`] ([`fairdeal_external::gnu`]).
//!
//! `-o FILE` is written to a temporary file beside FILE and renamed over it once complete, so
//! FILE may be an input and a failure leaves FILE as it was
//! ([`fairdeal_external::publish`]); temporary files are anonymous, and the one name that
//! exists for a moment is removed on a signal ([`fairdeal_external::cleanup`]).
//!
//! `--algo parallel` names the scatter explicitly: the same output as the default whole shuffle
//! (with any sampler, at any size), on all cores or `--threads N`. The scatter has no prefix
//! form, so `--threads` excludes `-n` and any `--algo` but `parallel`.

pub(crate) mod output;
pub(crate) mod words;

use std::ffi::OsString;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::rng::Backend;
use fairdeal::{DEFAULT_ALGORITHM, Rng as _};
use fairdeal_cli::args::parse_memory;
use fairdeal_cli::args::{InputRange, at_least_minimum, parse_head_count, parse_range};
use fairdeal_external::exec::{Draws, Input, Job, Observer, OpenError, Sources, Step};
use fairdeal_external::gnu::{GnuInput, GnuJob};
use fairdeal_external::plan::{self, Plan, Request};
use fairdeal_external::{MemoryBudget, Progress};

use crate::common::{
    RandomArgs, Resolved, SamplerArg, Selection, ThreadsArg, WithResolved, is_stdin, progress_bar,
    usage, with_selection,
};
use output::Output;
use words::{exec_error, plan_error};

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

/// Runs `fairdeal shuffle`: checks the arguments, plans the job once ([`Job::plan`]), then
/// executes it ([`Job::execute`]) on the caller's thread pool (`common::thread_pool_for`:
/// `--threads N` or all cores when the plan runs the parallel scatter, one thread otherwise).
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
    let refused = |e: plan::PlanError| plan_error(&e, budget, args.memory.is_some());
    if let Some(source) = &args.random_source {
        // GNU's draws, on GNU's plan: decided by the planner like every other path.
        let input = match args.input_range {
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
            None if args.echo => GnuInput::Echo(args.files),
            None => GnuInput::Files(args.files),
        };
        let request = Request {
            head_count,
            repeat: args.repeat,
            gnu: true,
            ..Request::new(input.source(), budget)
        };
        let load_limit = plan::gnu_load_limit(&request).map_err(refused)?;
        if args.verbose > 1 {
            eprintln!("fairdeal: note: plan: {}", Plan::Gnu { load_limit });
        }
        return super::shuf::run_gnu(GnuJob {
            input,
            head: head_count.map(|k| u64::try_from(k).unwrap_or(u64::MAX)),
            repeat: args.repeat,
            separator,
            random_source: Some(source.clone()),
            output: args.output,
            load_limit,
        });
    }
    if head_count == Some(0) {
        // As GNU: nothing to write, so the input is not even opened.
        return Output::create(args.output.as_deref())?.commit();
    }
    let backend = args.random.backend();
    let exact_order = (args.sampler.sampler == "backend"
        && fairdeal::rng::backend_info(backend).is_ok_and(|info| info.language_exact()))
    .then_some(backend);
    let input = match args.input_range {
        Some(range) => Input::Range {
            lo: range.lo,
            len: range.len,
        },
        // Each argument is one record, even if it holds the separator (as GNU's -e).
        None if args.echo => Input::Echo(
            args.files
                .iter()
                .map(|arg| arg.as_encoded_bytes().to_vec())
                .collect(),
        ),
        None => {
            for path in args.files.iter().filter(|f| *f != "-").map(Path::new) {
                crate::closed_stdio::refuse_closed_stream(path)
                    .map_err(|source| OpenError::io(path, source))?;
            }
            Input::Sources(Sources::open(&args.files, separator, || {
                Box::new(crate::closed_stdio::stdin())
            })?)
        }
    };
    let size_hint = match &input {
        Input::Sources(sources) => sources.size_hint(),
        _ => None,
    };
    let request = Request {
        algorithm: args.random.algo.as_deref(),
        exact_order,
        head_count,
        repeat: args.repeat,
        threads: args.threads.threads,
        scatter_above: args
            .scatter_above
            .map_or(plan::SCATTER_ABOVE, MemoryBudget::bytes),
        ..Request::new(input.source(), budget)
    };
    let temp_parent = fairdeal_external::temp_parent(args.temporary_directory.as_deref());
    let job = Job::plan(&request, input, separator, temp_parent).map_err(refused)?;
    let plan = job.plan_of();
    let mut seed = args.random.seed;
    if seed.is_none() && args.verbose > 0 {
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
        algorithm: plan.algorithm().to_owned(),
        backend: backend.to_owned(),
        sampler: args.sampler.sampler.clone(),
        seed,
    };
    let threads = plan.scatter_threads().unwrap_or(Some(NonZeroUsize::MIN));
    // The workers share the address space with what the job holds and with the signal thread.
    let work = job.holds().saturating_add(crate::common::PER_WORKER);
    let run = Run {
        job,
        output: args.output,
        notes: Notes {
            verbose: args.verbose > 0,
            budget,
            size_hint,
            bar: None,
            writing: false,
            read: 0,
        },
    };
    crate::common::thread_pool_for(threads, work)?.install(|| with_selection(&selection, run))
}

/// A planned job and where it writes, waiting for the backend's static type.
struct Run {
    job: Job,
    output: Option<PathBuf>,
    notes: Notes,
}

impl WithResolved for Run {
    type Output = ();

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<()> {
        let Resolved {
            rng,
            shuffler,
            sampler,
        } = resolved;
        fairdeal_external::cleanup::install()
            .context("cannot install the signal handler that removes temporary files")?;
        let mut notes = self.notes;
        let mut out = Output::create(self.output.as_deref())?;
        let draws = Draws {
            rng,
            sampler,
            shuffler,
        };
        self.job
            .execute(draws, &mut out, &mut notes)
            .map_err(exec_error)?;
        out.commit()
    }
}

/// Input larger than this (bytes) shows a progress bar on a terminal.
const PROGRESS_THRESHOLD: u64 = 64 << 20;

/// The job's notes on stderr (`-v`), the biased control's warning, and the progress bar of
/// the scatter: bytes read, then written.
struct Notes {
    verbose: bool,
    budget: MemoryBudget,
    size_hint: Option<u64>,
    bar: Option<indicatif::ProgressBar>,
    writing: bool,
    read: u64,
}

impl Notes {
    fn note(&self, path: &str) {
        if self.verbose {
            eprintln!("fairdeal: note: {path}");
        }
    }

    fn bar(&mut self) -> &indicatif::ProgressBar {
        let (size_hint, show) = (
            self.size_hint,
            self.size_hint.is_none_or(|size| size > PROGRESS_THRESHOLD),
        );
        self.bar
            .get_or_insert_with(|| progress_bar(size_hint.unwrap_or(0), show, "reading (bytes)"))
    }
}

impl Progress for Notes {
    fn read(&mut self, bytes: u64) {
        self.read += bytes;
        let read = self.read;
        let bar = self.bar();
        if bar.length().is_some_and(|len| len < read) {
            bar.set_length(read);
        }
        bar.inc(bytes);
    }

    fn written(&mut self, bytes: u64) {
        let (first, read) = (!self.writing, self.read);
        self.writing = true;
        let bar = self.bar();
        if first {
            bar.set_length(read);
            bar.set_position(0);
            bar.set_message("writing (bytes)");
        }
        bar.inc(bytes);
    }
}

impl Observer for Notes {
    fn step(&mut self, step: Step) {
        let budget = self.budget;
        match step {
            // After every check of the arguments (so that an error stays one line), and only
            // when it really runs.
            Step::Unfair(name) => eprintln!(
                "fairdeal: warning: --algo {name} is a deliberately biased negative control: its \
                 orders are NOT equally likely"
            ),
            Step::InMemory => self.note("in memory"),
            Step::Spooled => self.note(&format!("input larger than --memory {budget}: spooled")),
            Step::Reservoir => {
                self.note(&format!(
                    "input larger than --memory {budget}: reservoir sample"
                ));
            }
            Step::External { sample } => {
                self.finish_bar();
                self.note(&format!(
                    "input larger than --memory {budget}: external shuffle{}",
                    if sample {
                        " (the sample is too: first K records)"
                    } else {
                        ""
                    }
                ));
            }
            Step::Buckets => {
                self.finish_bar();
                self.note(&format!(
                    "in memory, scattered into {} buckets",
                    fairdeal_external::FAN_OUT
                ));
            }
            _ => {}
        }
    }
}

impl Notes {
    fn finish_bar(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
