//! `fairdeal shuffle`: GNU `shuf` with a choice of algorithm and generator.
//!
//! Lines are raw bytes (no UTF-8 requirement) and every output line ends with `\n`, even when
//! the input's last line had none, as with `shuf`. All input is read and checked before
//! anything is written, so an error never leaves a partial result behind.
//!
//! With `-n K` only a prefix is shuffled: `shuffle_prefix`, which is O(k) for the `partial`
//! algorithm, so `partial` is the default algorithm with `-n` (`fairdeal::DEFAULT_ALGORITHM`,
//! `inplace`, without); an explicit `--algo` is always honoured. With `partial`, a range is
//! sampled without materialising it (a sparse virtual partial shuffle,
//! `fairdeal::partial::sample_range`) when it is too large to hold or K is small next to it:
//! that function returns exactly what `partial` returns on the materialised range, so the
//! output does not depend on which path ran. Other algorithms have no sparse form, so a range
//! too large to hold is an error for them rather than a silent switch of algorithm.
//!
//! A whole shuffle without `--algo` runs `fairdeal::Parallel` (Sanders' scatter
//! shuffle, the fast one for huge inputs) on all cores, or on N threads with `--threads N`. Up
//! to one leaf (1 MiB of elements: 8 bytes per number, 16 per line) it *is* the `inplace` loop,
//! draw for draw, so small inputs
//! get exactly `inplace`'s output; above it the scatter runs, and its output for a `--seed` is
//! the same on any number of threads. The exception is a language-exact sampler (`--backend
//! java` or `python` with their own sampler): those stay `inplace` at every size, because
//! reproducing `Collections.shuffle` / `random.shuffle` is their point. `--algo parallel`
//! names the scatter explicitly: the same output as the default (with any sampler, at any
//! size), on all cores or `--threads N`. The scatter has no prefix form, so `--threads` excludes
//! `-n` and any other `--algo`.

use std::io::{self, Read as _, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use fairdeal::rng::{Backend, DEFAULT_BACKEND};
use fairdeal::{AnySampler, DEFAULT_ALGORITHM, IndexSampler, Shuffler};

use crate::common::{
    Resolved, SAMPLER_HELP, Selection, WithResolved, is_stdin, open_output, usage, with_selection,
};

/// The most numbers a range may hold to be shuffled whole (without `-n`): 10^8 numbers take
/// 800 MB as `u64`, already a lot on a shared machine. Larger ranges need `-n K`.
pub(crate) const MAX_RANGE_IN_MEMORY: u64 = 100_000_000;

/// The default algorithm with `-n K`: the partial shuffle, k draws and k swaps.
const PREFIX_ALGORITHM: &str = fairdeal::partial::INFO.name;

/// With `partial` and `-n K`, the sparse path is taken when `K * SPARSE_RATIO <= N`; above that
/// materialising the range is cheaper than the sparse map. Both give the same output.
const SPARSE_RATIO: u64 = 16;

/// Arguments of `fairdeal shuffle`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:\n  \
    fairdeal shuffle names.txt\n  \
    seq 10 | fairdeal shuffle -n 3\n  \
    fairdeal shuffle -i 1-1000000000000 -n 5\n  \
    fairdeal shuffle --algo inplace --backend java --seed 42 -i 0-51")]
pub(crate) struct Args {
    /// File whose lines are shuffled; `-` or nothing reads standard input.
    #[arg(value_name = "FILE", conflicts_with = "input_range")]
    file: Option<PathBuf>,

    /// Shuffle the integers LO..=HI (one per line) instead of input lines. Without -n the
    /// range may hold at most 100000000 numbers; with -n any u64 range works.
    #[arg(
        short = 'i',
        long = "input-range",
        visible_alias = "range",
        value_name = "LO-HI",
        allow_hyphen_values = true,
        value_parser = parse_range
    )]
    input_range: Option<InputRange>,

    /// Output at most K lines (a uniformly random ordered sample).
    #[arg(
        short = 'n',
        long = "head-count",
        value_name = "K",
        allow_hyphen_values = true,
        value_parser = parse_head_count
    )]
    head_count: Option<usize>,

    /// Shuffling algorithm (see `fairdeal algorithms`) [default: inplace, run as the parallel
    /// scatter shuffle once the elements fill more than 1 MiB, i.e. 131,072 numbers or 65,536
    /// lines (identical below that); partial with -n: O(k) for a sample of k]
    #[arg(long, value_name = "NAME")]
    algo: Option<String>,

    /// Random number generator (see `fairdeal backends`).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_BACKEND)]
    backend: String,

    #[arg(long, value_name = "NAME", default_value = "backend", help = SAMPLER_HELP)]
    sampler: String,

    /// Seed for a reproducible shuffle; without it the generator is seeded from the OS. With
    /// `--backend java` it is Java's `new Random(S)` (S read as a two's-complement `long`), with
    /// `--backend python` it is `random.seed(S)`.
    #[arg(long, value_name = "S")]
    seed: Option<u64>,

    /// Write to FILE instead of standard output (created after all input is read, so it may
    /// be the input file).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,

    /// Threads for the parallel scatter shuffle (fairdeal-parallel), which a whole shuffle
    /// without --algo or with --algo parallel uses [default: all cores]. The output for a given
    /// --seed is the same for every N. Not with -n or another --algo.
    #[arg(
        long,
        value_name = "N",
        value_parser = crate::common::parse_threads,
        conflicts_with = "head_count"
    )]
    threads: Option<NonZeroUsize>,
}

/// An inclusive range of integers `LO..=HI` with `LO <= HI`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct InputRange {
    lo: u64,
    hi: u64,
}

impl InputRange {
    /// How many integers the range holds (up to 2^64, hence `u128`).
    fn len(self) -> u128 {
        u128::from(self.hi - self.lo) + 1
    }
}

/// Parses `LO-HI` (unsigned decimal integers, `LO <= HI`).
fn parse_range(text: &str) -> Result<InputRange, String> {
    let malformed =
        || format!("expected LO-HI with unsigned integers LO <= HI (e.g. 1-100), got '{text}'");
    let (lo, hi) = text.split_once('-').ok_or_else(malformed)?;
    let number = |s: &str| -> Result<u64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        s.parse::<u64>()
            .map_err(|_| format!("'{s}' in range '{text}' is larger than {}", u64::MAX))
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo > hi {
        return Err(format!(
            "reversed range '{text}': LO ({lo}) is greater than HI ({hi})"
        ));
    }
    Ok(InputRange { lo, hi })
}

/// Parses K: a non-negative decimal integer. Values past `usize::MAX` saturate (a K larger
/// than the input prints all of it anyway).
fn parse_head_count(text: &str) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("K must be a non-negative integer, got '{text}'"));
    }
    Ok(text.parse::<usize>().unwrap_or(usize::MAX))
}

/// Runs `fairdeal shuffle`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let default = if args.head_count.is_some() {
        PREFIX_ALGORITHM
    } else {
        DEFAULT_ALGORITHM
    };
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
    let parallel = match (args.threads, &args.algo, args.head_count) {
        (Some(n), _, _) => Parallelism::Threads(n),
        (None, None, None) => Parallelism::Auto,
        (None, Some(_), None) if named_parallel => Parallelism::All,
        _ => Parallelism::Off,
    };
    let selection = Selection {
        algorithm: args.algo.unwrap_or_else(|| default.to_owned()),
        backend: args.backend,
        sampler: args.sampler,
        seed: args.seed,
    };
    let input = match args.input_range {
        Some(range) => {
            if range.len() > u128::from(MAX_RANGE_IN_MEMORY) {
                if args.head_count.is_none() {
                    return Err(usage(format!(
                        "range {}-{} holds {} numbers, more than the {MAX_RANGE_IN_MEMORY} that \
                         can be shuffled in memory; use -n K to sample from it",
                        range.lo,
                        range.hi,
                        range.len()
                    )));
                }
                // Only the partial shuffle has a sparse form; running another algorithm's
                // sample through it would silently answer a different question.
                if selection.algorithm != PREFIX_ALGORITHM {
                    return Err(usage(format!(
                        "range {}-{} holds {} numbers, more than the {MAX_RANGE_IN_MEMORY} that \
                         can be held in memory, and only --algo {PREFIX_ALGORITHM} can sample \
                         from a range without holding it",
                        range.lo,
                        range.hi,
                        range.len()
                    )));
                }
            }
            Input::Range(range)
        }
        None => Input::Lines(read_input(args.file.as_deref())?),
    };
    let job = Job {
        input,
        head_count: args.head_count,
        sparse_allowed: selection.algorithm == PREFIX_ALGORITHM,
        output: args.output,
        parallel,
    };
    with_selection(&selection, job)
}

/// Reads the whole input: the named file, or standard input for `-` or no file.
fn read_input(file: Option<&Path>) -> anyhow::Result<Vec<u8>> {
    let mut buffer = Vec::new();
    match file {
        Some(path) if !is_stdin(path) => {
            buffer =
                std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
        }
        _ => {
            io::stdin()
                .lock()
                .read_to_end(&mut buffer)
                .context("cannot read standard input")?;
        }
    }
    Ok(buffer)
}

/// Splits input into lines without their `\n`. A final line without `\n` is still a line; a
/// final `\n` does not start an empty one. Empty input has no lines.
pub(crate) fn split_lines(buffer: &[u8]) -> Vec<&[u8]> {
    if buffer.is_empty() {
        return Vec::new();
    }
    let body = buffer.strip_suffix(b"\n").unwrap_or(buffer);
    body.split(|&b| b == b'\n').collect()
}

enum Input {
    Lines(Vec<u8>),
    Range(InputRange),
}

struct Job {
    input: Input,
    head_count: Option<usize>,
    /// Whether the sparse range sampler may be used for a range that fits in memory (only when
    /// it gives the same output as the chosen algorithm, i.e. for `partial`).
    sparse_allowed: bool,
    output: Option<PathBuf>,
    /// Whether a whole shuffle runs `fairdeal::Parallel`.
    parallel: Parallelism,
}

/// When `fairdeal shuffle` runs the parallel scatter shuffle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parallelism {
    /// An explicit `--algo` or `-n`: never.
    Off,
    /// The default: on all cores, unless the sampler is language-exact.
    Auto,
    /// `--algo parallel`: on all cores, whatever the sampler.
    All,
    /// `--threads N`: on N threads.
    Threads(NonZeroUsize),
}

/// Whether `sampler` reproduces another language's draws (Java's `nextInt`, Python's
/// `_randbelow`): then the output must be `inplace`'s at every size.
fn language_exact<B: Backend>(sampler: &AnySampler<B::Sampler>) -> bool {
    matches!(sampler, AnySampler::Backend(_)) && B::INFO.language_exact()
}

impl WithResolved for Job {
    type Output = ();

    fn run<B: Backend>(self, resolved: Resolved<B>) -> anyhow::Result<()> {
        let Resolved {
            mut rng,
            shuffler,
            sampler,
        } = resolved;
        let threads = match self.parallel {
            Parallelism::Off => None,
            Parallelism::Auto if language_exact::<B>(&sampler) => None,
            Parallelism::Auto | Parallelism::All => Some(None),
            Parallelism::Threads(n) => Some(Some(n)),
        };
        match self.input {
            Input::Lines(buffer) => {
                let mut lines = split_lines(&buffer);
                let k = match threads {
                    Some(n) => shuffle_parallel(&mut lines, &mut rng, sampler, n)?,
                    None => shuffle_head(&shuffler, &mut lines, self.head_count, &mut rng)?,
                };
                let mut out = open_output(self.output.as_deref())?;
                for line in &lines[..k] {
                    out.write_all(line)?;
                    out.write_all(b"\n")?;
                }
                out.flush()?;
            }
            Input::Range(range) => {
                let len = range.len();
                let sparse_k = self
                    .head_count
                    .map(|k| u128::try_from(k).unwrap_or(u128::MAX).min(len));
                let sparse = match sparse_k {
                    Some(k) => {
                        self.sparse_allowed
                            && (len > u128::from(MAX_RANGE_IN_MEMORY)
                                || k * u128::from(SPARSE_RATIO) <= len)
                    }
                    None => false,
                };
                let values = if let (true, Some(k)) = (sparse, sparse_k) {
                    // `k <= len` and `k <= usize::MAX` by construction.
                    let k = usize::try_from(k).context("sample size does not fit in memory")?;
                    fairdeal::partial::sample_range(range.lo, range.hi, k, &mut rng, &sampler)
                        .context("cannot sample from the range")?
                } else {
                    let mut values: Vec<u64> = (range.lo..=range.hi).collect();
                    let k = match threads {
                        Some(n) => shuffle_parallel(&mut values, &mut rng, sampler, n)?,
                        None => shuffle_head(&shuffler, &mut values, self.head_count, &mut rng)?,
                    };
                    values.truncate(k);
                    values
                };
                let mut out = open_output(self.output.as_deref())?;
                for value in values {
                    writeln!(out, "{value}")?;
                }
                out.flush()?;
            }
        }
        Ok(())
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

    #[test]
    fn lines_split_like_shuf() {
        assert!(split_lines(b"").is_empty());
        assert_eq!(split_lines(b"\n"), vec![&b""[..]]);
        assert_eq!(split_lines(b"a\nb\n"), vec![&b"a"[..], b"b"]);
        assert_eq!(split_lines(b"a\nb"), vec![&b"a"[..], b"b"]);
        assert_eq!(split_lines(b"a\n\nb\n"), vec![&b"a"[..], b"", b"b"]);
        assert_eq!(split_lines(b"\xff\xfe\n"), vec![&b"\xff\xfe"[..]]);
    }

    #[test]
    fn help_states_the_range_cap() {
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
    }

    #[test]
    fn ranges_parse_and_reject() {
        assert_eq!(parse_range("1-10"), Ok(InputRange { lo: 1, hi: 10 }));
        assert_eq!(parse_range("7-7"), Ok(InputRange { lo: 7, hi: 7 }));
        let full = parse_range("0-18446744073709551615").unwrap();
        assert_eq!(full.len(), 1u128 << 64);
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
}
