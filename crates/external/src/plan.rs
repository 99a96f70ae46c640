//! The one decision of a shuffle job: which path runs it.
//!
//! [`plan`] turns a [`Request`] (what is shuffled, the budget, the algorithm asked for, whether
//! the sampler must reproduce another language's order, `-n`, `-r`, the threads) into a
//! [`Plan`], a plain value with no I/O, or refuses it with a [`PlanError`] that says what would
//! work. The caller executes the plan; nothing downstream decides a path again.
//!
//! Records (lines) are planned before their size is known (a pipe has none), so a
//! [`Plan::Records`] states both branches up front: what runs on the records when they all fit
//! in memory (`fits`) and what runs when the input turns out larger
//! ([`Beyond`]). When the size is known (a regular file larger than the budget), a refusal
//! comes before any input is read.
//!
//! ```
//! use fairdeal_external::plan::{Beyond, InMemory, Plan, Request, Source, plan};
//! use fairdeal_external::MemoryBudget;
//!
//! let budget = MemoryBudget::new(1 << 30)?;
//! // A whole shuffle of lines: the parallel scatter in memory, the external shuffle beyond.
//! let request = Request::new(Source::Records { size_hint: None }, budget);
//! let Plan::Records { fits, beyond, .. } = plan(&request)? else { unreachable!() };
//! assert_eq!(fits, InMemory::Scatter { threads: None });
//! assert_eq!(beyond, Beyond::Spilling { head_count: None, on_disk: false });
//! // Java's exact order cannot be kept through temporary files: refused, before any work.
//! let java = Request { exact_order: Some("java"), ..Request::new(Source::Records { size_hint: Some(2 << 30) }, budget) };
//! assert!(plan(&java).unwrap_err().to_string().contains("larger than the memory budget 1G"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use std::num::NonZeroUsize;

use crate::MemoryBudget;

/// The most numbers a range may hold to be shuffled whole (without `-n`): 10^8 numbers take
/// 800 MB as `u64`, already a lot on a shared machine. Larger ranges need `-n K`.
pub const MAX_RANGE_IN_MEMORY: u64 = 100_000_000;

/// Bytes per number of a range held in memory (a `u64`).
pub const RANGE_BYTES_PER_NUMBER: u64 = 8;

/// Bytes the sparse range sampler takes per sampled number: the output `u64` and the
/// `BTreeMap<u64, u64>` entry of the slot it displaced, with its share of a node. Measured:
/// 37 bytes per number (the maximum RSS of 1,000,000 and 4,000,000 samples from
/// `-i 1-10000000000`, see `docs/algorithms.md`).
pub const SPARSE_BYTES_PER_SAMPLE: u64 = 40;

/// With the partial shuffle and `-n K`, a range is sampled sparsely when `K * SPARSE_RATIO <= N`
/// (or when it cannot be held); above that, materialising it is cheaper than the sparse map.
/// Both give the same output.
pub const SPARSE_RATIO: u64 = 16;

/// The default size above which a whole parallel shuffle of lines scatters them into buckets
/// as they are read ([`Beyond::Spilling`]) rather than shuffling one array: 16 MiB (bytes plus
/// 16 per line), about a last-level cache. Measured on a 16 MB file (250,000 lines), the
/// buckets took half the time of the one array; at 4–8 MB the two were within the noise.
pub const SCATTER_ABOVE: u64 = 16 << 20;

/// The algorithm with `-n K` when none is named: the partial shuffle, O(k).
pub const PREFIX_ALGORITHM: &str = "partial";

/// The algorithm of a whole shuffle when none is named (run as the parallel scatter, which is
/// its loop draw for draw up to its whole size, 8 MiB).
pub const WHOLE_ALGORITHM: &str = fairdeal_inplace::INFO.name;

/// The name of the parallel scatter shuffle (`--algo parallel`).
pub const PARALLEL_ALGORITHM: &str = fairdeal_parallel::INFO.name;

/// What is shuffled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Records (lines, or NUL-terminated) read from the input; `size_hint` is their total size
    /// when known (regular files), used only to refuse early.
    Records {
        /// The input's size in bytes, when known before reading.
        size_hint: Option<u64>,
    },
    /// The integers `lo .. lo + len` (`len` up to 2^64).
    Range {
        /// The first number.
        lo: u64,
        /// How many numbers (0 for the empty range).
        len: u128,
    },
}

/// Everything the path depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request<'a> {
    /// What is shuffled.
    pub source: Source,
    /// The memory budget (`--memory`).
    pub budget: MemoryBudget,
    /// The algorithm named by the user (`--algo`), or `None` for the default.
    pub algorithm: Option<&'a str>,
    /// `Some(backend)` when the sampler reproduces another language's draws (Java's
    /// `nextInt`, CPython's `_randbelow`; `BackendInfo::language_exact` with the backend's own
    /// sampler): a whole shuffle then must be the in-memory `inplace` loop, the language's own
    /// shuffle, at every size and thread count.
    pub exact_order: Option<&'a str>,
    /// `-n K`: output at most K records.
    pub head_count: Option<usize>,
    /// `-r`: pick with replacement.
    pub repeat: bool,
    /// `--threads N` (for the parallel scatter only).
    pub threads: Option<NonZeroUsize>,
    /// The size above which a whole parallel shuffle of records scatters them as they are
    /// read ([`SCATTER_ABOVE`] unless a test lowers it).
    pub scatter_above: u64,
    /// `--random-source`: the draws are GNU shuf's from a byte stream, which give `shuf
    /// --random-source`'s output only on GNU's own plan ([`Plan::Gnu`]).
    pub gnu: bool,
}

impl Request<'_> {
    /// A whole shuffle of `source` within `budget` with every option at its default.
    pub const fn new(source: Source, budget: MemoryBudget) -> Self {
        Self {
            source,
            budget,
            algorithm: None,
            exact_order: None,
            head_count: None,
            repeat: false,
            threads: None,
            scatter_above: SCATTER_ABOVE,
            gnu: false,
        }
    }
}

/// What runs on records or numbers held in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InMemory {
    /// The parallel scatter shuffle (`fairdeal-parallel`), whole, on `threads` threads (all
    /// cores when `None`).
    Scatter {
        /// `--threads N`.
        threads: Option<NonZeroUsize>,
    },
    /// A sequential algorithm by name: a whole shuffle, or its prefix of `head_count`.
    Sequential {
        /// The algorithm's registry name.
        algorithm: String,
        /// `-n K`: only a prefix of K is shuffled and written.
        head_count: Option<usize>,
    },
    /// `-r`: independent uniform picks, `head_count` of them or without end.
    Repeat {
        /// `-n K`.
        head_count: Option<usize>,
    },
}

/// What runs when the records do not fit the load limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Beyond {
    /// The scatter into 32 buckets as the records are read
    /// ([`ExternalShuffle::shuffle_spilling`](crate::ExternalShuffle::shuffle_spilling)): kept
    /// in memory while they fit the budget, spilled to temporary files once they do not; with
    /// `-n K`, the first K records of that exactly uniform permutation.
    Spilling {
        /// `-n K`.
        head_count: Option<usize>,
        /// The input is known to be larger than the budget (the files' sizes add up to more):
        /// the buckets go to temporary files from the first record
        /// ([`ExternalShuffle::spill_at_once`](crate::ExternalShuffle::spill_at_once)), not
        /// into memory first. The same output.
        on_disk: bool,
    },
    /// `-n K` beyond the budget: a reservoir sample when K records fit
    /// ([`reservoir_fits`]), else the first K records of [`Beyond::Spilling`].
    Sample {
        /// K.
        k: usize,
        /// As [`Beyond::Spilling`]'s, for the scatter when the reservoir does not fit.
        on_disk: bool,
    },
    /// `-r` beyond the budget: the input copied to a temporary file, with 8 bytes per record
    /// in memory, and read back record by record.
    Spool {
        /// `-n K`.
        head_count: Option<usize>,
    },
    /// The input larger than the budget cannot honour an option: refused, before any output.
    Refuse(PlanError),
}

/// How a range is shuffled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RangePlan {
    /// The numbers held as `u64`s and shuffled in memory.
    Materialise(InMemory),
    /// `-n K` with the partial shuffle: the sparse virtual partial shuffle
    /// (`fairdeal::partial::sample_range`), the same output as [`RangePlan::Materialise`]
    /// with the partial shuffle would give.
    Sparse {
        /// K (at most the range's length).
        k: usize,
    },
    /// `-r`: independent uniform numbers of the range, never materialised.
    Repeat {
        /// `-n K`.
        head_count: Option<usize>,
    },
}

/// The path of one shuffle job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Records: read until the input ends or exceeds `load_limit` (bytes plus 16 per record),
    /// then `fits` on what was read, or `beyond` on it and the rest.
    Records {
        /// Where loading stops: the budget, or the scatter threshold when below it.
        load_limit: MemoryBudget,
        /// What runs when the whole input fits `load_limit`.
        fits: InMemory,
        /// What runs when it does not.
        beyond: Beyond,
    },
    /// A range of integers.
    Range {
        /// How.
        how: RangePlan,
        /// The memory the plan takes, estimated within 1.5× of the maximum RSS (bytes).
        estimate: u64,
    },
    /// `--random-source FILE`: GNU shuf's own plan over its draws from FILE's bytes
    /// (`fairdeal_rng::GnuSampler`: every record in memory, a reservoir sample for `-n K` on a
    /// stream or a file above 8 MiB, picks for `-r`), the only one that reproduces `shuf --random-source`. GNU has
    /// no external path, so neither has this plan.
    Gnu {
        /// The most bytes of records read into memory (the budget) when GNU's plan holds
        /// them all (`-e`'s arguments too, and `-n K` from a file of at most 8 MiB, which GNU
        /// reads whole); `None` for a range and for `-n K`'s reservoir of at most K records.
        load_limit: Option<MemoryBudget>,
    },
}

impl Plan {
    /// Whether the plan may run the parallel scatter shuffle, on how many threads (`None`: all
    /// cores). A plan that never does runs on one thread.
    pub fn scatter_threads(&self) -> Option<Option<NonZeroUsize>> {
        let in_memory = |m: &InMemory| match m {
            InMemory::Scatter { threads } => Some(*threads),
            _ => None,
        };
        match self {
            Self::Records { fits, beyond, .. } => in_memory(fits).or(match beyond {
                // The buckets are shuffled with the parallel scatter too.
                Beyond::Spilling { .. } | Beyond::Sample { .. } => Some(None),
                Beyond::Spool { .. } | Beyond::Refuse(_) => None,
            }),
            Self::Range {
                how: RangePlan::Materialise(m),
                ..
            } => in_memory(m),
            Self::Range { .. } | Self::Gnu { .. } => None,
        }
    }
}

impl Plan {
    /// The algorithm the plan's in-memory step runs by name: its sequential algorithm, else
    /// [`WHOLE_ALGORITHM`] (the parallel scatter and picks run none by name).
    pub fn algorithm(&self) -> &str {
        let in_memory = match self {
            Self::Records { fits, .. }
            | Self::Range {
                how: RangePlan::Materialise(fits),
                ..
            } => Some(fits),
            Self::Range { .. } | Self::Gnu { .. } => None,
        };
        match in_memory {
            Some(InMemory::Sequential { algorithm, .. }) => algorithm,
            _ => WHOLE_ALGORITHM,
        }
    }
}

impl fmt::Display for InMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Scatter { threads: None } => write!(f, "parallel scatter shuffle, all cores"),
            Self::Scatter { threads: Some(n) } => {
                write!(f, "parallel scatter shuffle, {n} threads")
            }
            Self::Sequential {
                algorithm,
                head_count: None,
            } => write!(f, "{algorithm}"),
            Self::Sequential {
                algorithm,
                head_count: Some(k),
            } => write!(f, "{algorithm}, first {k}"),
            Self::Repeat { head_count: None } => write!(f, "picks with replacement"),
            Self::Repeat {
                head_count: Some(k),
            } => write!(f, "{k} picks with replacement"),
        }
    }
}

impl fmt::Display for Plan {
    /// One line, as `fairdeal shuffle -v` prints it before the work starts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Records {
                load_limit,
                fits,
                beyond,
            } => {
                write!(f, "records up to {load_limit}: {fits}; beyond: ")?;
                match beyond {
                    Beyond::Spilling {
                        head_count,
                        on_disk,
                    } => {
                        write!(f, "scatter into {} buckets", crate::FAN_OUT)?;
                        if *on_disk {
                            write!(f, " on disk")?;
                        }
                        match head_count {
                            Some(k) => write!(f, ", first {k}"),
                            None => Ok(()),
                        }
                    }
                    Beyond::Sample { k, .. } => write!(f, "reservoir sample of {k}"),
                    Beyond::Spool { .. } => write!(f, "spooled to a temporary file"),
                    Beyond::Refuse(_) => write!(f, "refused"),
                }
            }
            Self::Range { how, estimate } => {
                match how {
                    RangePlan::Materialise(m) => write!(f, "range in memory: {m}")?,
                    RangePlan::Sparse { k } => write!(f, "range sampled sparsely, {k} numbers")?,
                    RangePlan::Repeat { .. } => write!(f, "range picks with replacement")?,
                }
                write!(f, " (about {} memory)", human(*estimate))
            }
            Self::Gnu {
                load_limit: Some(limit),
            } => write!(
                f,
                "GNU shuf's plan on draws from a byte stream, records in memory up to {limit}"
            ),
            Self::Gnu { load_limit: None } => write!(
                f,
                "GNU shuf's plan on draws from a byte stream (at most K records, or none, held)"
            ),
        }
    }
}

/// A request that no plan can honour, or a path that cannot honour one of its options. The
/// messages name no command-line flag: a command words them in its own terms (`fairdeal
/// shuffle` names `--memory`, `-n` and `--algo`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// `--threads` names a thread count for the parallel scatter, and another algorithm was
    /// asked for.
    #[error(
        "a thread count applies to the parallel shuffle only (the default, or {PARALLEL_ALGORITHM}), not to {algorithm}"
    )]
    ThreadsWithoutScatter {
        /// The algorithm asked for.
        algorithm: String,
    },
    /// A language-exact order (Java's `Collections.shuffle`, CPython's `random.shuffle`)
    /// needs every record in memory.
    #[error(
        "the {backend} backend reproduces its language's shuffle only in memory, and the input is larger than the memory budget {budget}{}",
        size_note(*size)
    )]
    ExactOrderBeyondBudget {
        /// The backend.
        backend: String,
        /// The budget.
        budget: MemoryBudget,
        /// The input's size, when known.
        size: Option<u64>,
    },
    /// GNU shuf's plan (`--random-source`) holds every record in memory, and the input is
    /// larger than the budget.
    #[error(
        "GNU shuf's draws reproduce its output only with the whole input in memory, as GNU holds it, and the input{} is larger than the memory budget {budget}",
        size_note(*size)
    )]
    GnuBeyondBudget {
        /// The budget.
        budget: MemoryBudget,
        /// The input's size, when known.
        size: Option<u64>,
    },
    /// A named algorithm needs every record in memory; the external shuffle is another
    /// algorithm.
    #[error(
        "{algorithm} needs the whole input in memory, and it is larger than the memory budget {budget}{}",
        size_note(*size)
    )]
    AlgorithmBeyondBudget {
        /// The algorithm asked for.
        algorithm: String,
        /// The budget.
        budget: MemoryBudget,
        /// The input's size, when known.
        size: Option<u64>,
        /// Whether `-n` was given (then the alternative is a reservoir sample).
        sample: bool,
    },
    /// A whole range larger than [`MAX_RANGE_IN_MEMORY`] numbers.
    #[error(
        "range {lo}-{hi} holds {len} numbers, more than the {MAX_RANGE_IN_MEMORY} a whole shuffle of a range may hold"
    )]
    RangeAboveCap {
        /// First number.
        lo: u64,
        /// Last number.
        hi: u64,
        /// How many.
        len: u128,
    },
    /// A range whose numbers (8 bytes each) do not fit the budget.
    #[error(
        "range {lo}-{hi} holds {len} numbers, {} in memory (8 bytes each), more than the memory budget {budget}, which would need to be at least {}",
        human(range_bytes(*len)),
        human_ceiling(range_bytes(*len))
    )]
    RangeBeyondBudget {
        /// First number.
        lo: u64,
        /// Last number.
        hi: u64,
        /// How many.
        len: u128,
        /// The budget.
        budget: MemoryBudget,
        /// Whether `-n` was given already (then the advice to use it is left out).
        sample_possible: bool,
    },
    /// `-n` from a range too large to hold, with an algorithm that has no sparse form.
    #[error(
        "range {lo}-{hi} holds {len} numbers, more than can be held in memory (at most {MAX_RANGE_IN_MEMORY} numbers, 8 bytes each within the memory budget {budget}), and only {PREFIX_ALGORITHM} can sample from a range without holding it"
    )]
    RangeNeedsPartial {
        /// First number.
        lo: u64,
        /// Last number.
        hi: u64,
        /// How many.
        len: u128,
        /// The budget.
        budget: MemoryBudget,
    },
    /// A sparse sample whose map does not fit the budget.
    #[error(
        "a sample of {k} numbers needs about {} ({SPARSE_BYTES_PER_SAMPLE} bytes each), more than the memory budget {budget}, which would need to be at least {}",
        human(*needed),
        human_ceiling(*needed)
    )]
    SampleBeyondBudget {
        /// K.
        k: u128,
        /// Bytes needed.
        needed: u64,
        /// The budget.
        budget: MemoryBudget,
    },
}

impl PlanError {
    /// The memory budget the refusal is about; `None` for a refusal no budget would lift
    /// ([`PlanError::ThreadsWithoutScatter`], [`PlanError::RangeAboveCap`]).
    pub fn budget(&self) -> Option<MemoryBudget> {
        match self {
            Self::ExactOrderBeyondBudget { budget, .. }
            | Self::GnuBeyondBudget { budget, .. }
            | Self::AlgorithmBeyondBudget { budget, .. }
            | Self::RangeBeyondBudget { budget, .. }
            | Self::RangeNeedsPartial { budget, .. }
            | Self::SampleBeyondBudget { budget, .. } => Some(*budget),
            Self::ThreadsWithoutScatter { .. } | Self::RangeAboveCap { .. } => None,
        }
    }
}

/// The bytes a range of `len` numbers takes in memory (saturated at `u64::MAX`).
pub fn range_bytes(len: u128) -> u64 {
    len.saturating_mul(u128::from(RANGE_BYTES_PER_NUMBER))
        .min(u128::from(u64::MAX)) as u64
}

fn size_note(size: Option<u64>) -> String {
    size.map_or_else(String::new, |s| format!(" ({s} bytes)"))
}

/// `bytes` for people: whole bytes below 1 KiB, else one decimal of the largest binary unit.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["K", "M", "G", "T"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}iB", UNITS[unit])
}

/// The smallest budget in whole units (of K, M, G or T) that is at least `bytes`, as
/// [`MemoryBudget`]'s parser reads it.
pub fn human_ceiling(bytes: u64) -> String {
    let mut unit = 0;
    let names = ["K", "M", "G", "T"];
    let mut size: u64 = 1024;
    // Move up a unit only while the count stays at least 10,240: at most 0.01 % too much.
    while unit + 1 < names.len() && bytes / (size * 1024) >= 10 * 1024 {
        size *= 1024;
        unit += 1;
    }
    format!("{}{}", bytes.div_ceil(size).max(1), names[unit])
}

/// Whether a reservoir of `k` records of about `mean_record` bytes fits `budget` with room
/// to spare (half of it), so that longer records later in the input rarely overflow it. The
/// executor of [`Beyond::Sample`] asks this once, with the mean of the records read up to the
/// budget.
pub fn reservoir_fits(k: usize, mean_record: u64, budget: MemoryBudget) -> bool {
    (k as u64)
        .checked_mul(mean_record.saturating_add(crate::INDEX_BYTES_PER_RECORD))
        .and_then(|bytes| bytes.checked_mul(2))
        .is_some_and(|bytes| bytes <= budget.bytes())
}

/// Plans `request`: the one place that decides the path.
///
/// # Errors
///
/// [`PlanError`] when no path honours the request: `--threads` with a sequential `--algo`; a
/// range that cannot be held or sampled within the budget; input known (from its size) to be
/// larger than the budget when the algorithm or a language-exact order needs it in memory.
pub fn plan(request: &Request<'_>) -> Result<Plan, PlanError> {
    if request.gnu {
        return Ok(Plan::Gnu {
            load_limit: gnu_load_limit(request)?,
        });
    }
    match request.source {
        Source::Records { size_hint } => {
            let (load_limit, fits, beyond) = records_plan(request, size_hint)?;
            Ok(Plan::Records {
                load_limit,
                fits,
                beyond,
            })
        }
        Source::Range { lo, len } => {
            let (how, estimate) = range_plan(request, lo, len)?;
            Ok(Plan::Range { how, estimate })
        }
    }
}

/// What runs in memory, and whether it is the parallel scatter (`request.source` and
/// `request.gnu` are not read).
fn in_memory(request: &Request<'_>) -> Result<(InMemory, bool), PlanError> {
    let named_parallel = request.algorithm == Some(PARALLEL_ALGORITHM);
    if let (Some(_), Some(algorithm)) = (request.threads, request.algorithm)
        && !named_parallel
    {
        return Err(PlanError::ThreadsWithoutScatter {
            algorithm: algorithm.to_owned(),
        });
    }
    // A whole shuffle runs the parallel scatter: when it is named, or by default unless the
    // sampler must keep a language's order (`--threads` then cannot change that order).
    let scatter = !request.repeat
        && request.head_count.is_none()
        && (named_parallel || (request.algorithm.is_none() && request.exact_order.is_none()));
    let sequential = || InMemory::Sequential {
        algorithm: request
            .algorithm
            .unwrap_or(if request.head_count.is_some() {
                PREFIX_ALGORITHM
            } else {
                WHOLE_ALGORITHM
            })
            .to_owned(),
        head_count: request.head_count,
    };
    let fits = if request.repeat {
        InMemory::Repeat {
            head_count: request.head_count,
        }
    } else if scatter {
        InMemory::Scatter {
            threads: request.threads,
        }
    } else {
        sequential()
    };
    Ok((fits, scatter))
}

/// The largest input GNU shuf reads whole even for `-n K` (coreutils' `RESERVOIR_MIN_INPUT`,
/// `fairdeal_rng::GNU_RESERVOIR_MIN_INPUT`): `-n K` from a larger file, or from a stream of
/// unknown size, samples a reservoir of at most K records instead.
pub const GNU_READS_WHOLE: u64 = 8 * 1024 * 1024;

/// GNU shuf's plan: every record held (within the budget), except for ranges and for `-n K`
/// when GNU samples a reservoir (input of unknown size or above [`GNU_READS_WHOLE`]); refused
/// before reading when the files alone are larger than the budget.
///
/// # Errors
///
/// [`PlanError::GnuBeyondBudget`] for files known to be larger than the budget where GNU holds
/// every record.
pub fn gnu_load_limit(request: &Request<'_>) -> Result<Option<MemoryBudget>, PlanError> {
    let budget = request.budget;
    // GNU reads every record unless it samples a reservoir: `-n K` (without `-r`) from a
    // stream of unknown size or larger than `GNU_READS_WHOLE`.
    let reservoir = request.head_count.is_some()
        && !request.repeat
        && !matches!(request.source, Source::Records { size_hint: Some(size) } if size <= GNU_READS_WHOLE);
    let holds_all = matches!(request.source, Source::Records { .. }) && !reservoir;
    if !holds_all {
        return Ok(None);
    }
    if let Source::Records {
        size_hint: Some(size),
    } = request.source
        && size > budget.bytes()
    {
        return Err(PlanError::GnuBeyondBudget {
            budget,
            size: Some(size),
        });
    }
    Ok(Some(budget))
}

/// The branches of a [`Plan::Records`] for records of `size_hint` bytes when known: its load
/// limit, what runs when they fit and what runs beyond.
pub(crate) fn records_plan(
    request: &Request<'_>,
    size_hint: Option<u64>,
) -> Result<(MemoryBudget, InMemory, Beyond), PlanError> {
    let (fits, scatter) = in_memory(request)?;
    let budget = request.budget;
    let refusal = |size| {
        if let Some(algorithm) = request.algorithm.filter(|&a| a != PARALLEL_ALGORITHM) {
            Some(PlanError::AlgorithmBeyondBudget {
                algorithm: algorithm.to_owned(),
                budget,
                size,
                sample: request.head_count.is_some(),
            })
        } else if let (Some(backend), None, None) =
            (request.exact_order, request.algorithm, request.head_count)
        {
            Some(PlanError::ExactOrderBeyondBudget {
                backend: backend.to_owned(),
                budget,
                size,
            })
        } else {
            None
        }
    };
    let beyond = if request.repeat {
        // Picks with replacement are the same picks from memory or from a spool.
        Beyond::Spool {
            head_count: request.head_count,
        }
    } else if let Some(refused) = refusal(None) {
        // Known before reading when the file alone is larger than the budget.
        if let Some(size) = size_hint.filter(|&s| s > budget.bytes()) {
            return Err(refusal(Some(size)).unwrap_or(refused));
        }
        Beyond::Refuse(refused)
    } else {
        // A file larger than the budget spills for sure: its buckets go to disk at once.
        let on_disk = size_hint.is_some_and(|size| size > budget.bytes());
        match request.head_count {
            Some(k) => Beyond::Sample { k, on_disk },
            None => Beyond::Spilling {
                head_count: None,
                on_disk,
            },
        }
    };
    // A whole scatter stops loading at its threshold: above it the records are scattered as
    // they are read, in memory while they fit the budget.
    let load_limit = if scatter && request.scatter_above < budget.bytes() {
        MemoryBudget::new(request.scatter_above.max(crate::MIN_BUDGET)).unwrap_or(budget)
    } else {
        budget
    };
    Ok((load_limit, fits, beyond))
}

/// The branches of a [`Plan::Range`] of `len` numbers from `lo`: how, and its estimate.
pub(crate) fn range_plan(
    request: &Request<'_>,
    lo: u64,
    len: u128,
) -> Result<(RangePlan, u64), PlanError> {
    let (fits, _) = in_memory(request)?;
    let budget = request.budget;
    let hi = (u128::from(lo) + len)
        .saturating_sub(1)
        .min(u128::from(u64::MAX)) as u64;
    let hi = if len == 0 { lo.wrapping_sub(1) } else { hi };
    let bytes = len.saturating_mul(u128::from(RANGE_BYTES_PER_NUMBER));
    let held = len <= u128::from(MAX_RANGE_IN_MEMORY) && bytes <= u128::from(budget.bytes());
    // `held` bounds the length by 10^8, so the byte count fits u64.
    let estimate = bytes.min(u128::from(u64::MAX)) as u64;
    if request.repeat {
        return Ok((
            RangePlan::Repeat {
                head_count: request.head_count,
            },
            0,
        ));
    }
    let Some(k) = request.head_count else {
        return if len > u128::from(MAX_RANGE_IN_MEMORY) {
            Err(PlanError::RangeAboveCap { lo, hi, len })
        } else if !held {
            Err(PlanError::RangeBeyondBudget {
                lo,
                hi,
                len,
                budget,
                sample_possible: false,
            })
        } else {
            Ok((RangePlan::Materialise(fits), estimate))
        };
    };
    let k = u128::try_from(k).unwrap_or(u128::MAX).min(len);
    // Only the partial shuffle has a sparse form; running another algorithm's sample through
    // it would silently answer a different question.
    let partial = request.algorithm.unwrap_or(PREFIX_ALGORITHM) == PREFIX_ALGORITHM;
    if !held && !partial {
        return Err(PlanError::RangeNeedsPartial {
            lo,
            hi,
            len,
            budget,
        });
    }
    let sparse = partial && len > 0 && (!held || k * u128::from(SPARSE_RATIO) <= len);
    if !sparse {
        return Ok((RangePlan::Materialise(fits), estimate));
    }
    let needed = k.saturating_mul(u128::from(SPARSE_BYTES_PER_SAMPLE));
    let needed = needed.min(u128::from(u64::MAX)) as u64;
    if needed > budget.bytes() {
        return Err(PlanError::SampleBeyondBudget { k, needed, budget });
    }
    // `k <= len` and `needed` fits the budget, so `k` fits `usize` on 64-bit targets.
    let Ok(k) = usize::try_from(k) else {
        return Err(PlanError::SampleBeyondBudget { k, needed, budget });
    };
    Ok((RangePlan::Sparse { k }, needed))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;
    const MIB: u64 = 1 << 20;

    fn budget(bytes: u64) -> MemoryBudget {
        MemoryBudget::new(bytes).unwrap()
    }

    fn lines(size_hint: Option<u64>, bytes: u64) -> Request<'static> {
        Request::new(Source::Records { size_hint }, budget(bytes))
    }

    fn range(lo: u64, len: u128, bytes: u64) -> Request<'static> {
        Request::new(Source::Range { lo, len }, budget(bytes))
    }

    fn records(request: &Request<'_>) -> (MemoryBudget, InMemory, Beyond) {
        match plan(request).unwrap() {
            Plan::Records {
                load_limit,
                fits,
                beyond,
            } => (load_limit, fits, beyond),
            other => panic!("not a records plan: {other:?}"),
        }
    }

    fn sequential(algorithm: &str, head_count: Option<usize>) -> InMemory {
        InMemory::Sequential {
            algorithm: algorithm.to_owned(),
            head_count,
        }
    }

    #[test]
    fn whole_shuffles_of_records() {
        let threads = NonZeroUsize::new(3);
        // (request, load limit, in memory, beyond)
        let table: Vec<(Request<'_>, u64, InMemory, Beyond)> = vec![
            // The default: the scatter, loading stops at its threshold.
            (
                lines(None, GIB),
                SCATTER_ABOVE,
                InMemory::Scatter { threads: None },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: false,
                },
            ),
            // A budget below the threshold: loading stops at the budget.
            (
                lines(None, 1 << 20),
                1 << 20,
                InMemory::Scatter { threads: None },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: false,
                },
            ),
            // --threads keeps the scatter and its count.
            (
                Request {
                    threads,
                    ..lines(None, GIB)
                },
                SCATTER_ABOVE,
                InMemory::Scatter { threads },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: false,
                },
            ),
            // --algo parallel: the scatter with any sampler, at any size.
            (
                Request {
                    algorithm: Some("parallel"),
                    exact_order: Some("java"),
                    threads,
                    ..lines(Some(10 * GIB), GIB)
                },
                SCATTER_ABOVE,
                InMemory::Scatter { threads },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: true,
                },
            ),
            // A file of exactly the budget may still fit (it spills only if its records'
            // index outgrows the budget); one byte more spills for sure: on disk at once.
            (
                lines(Some(GIB), GIB),
                SCATTER_ABOVE,
                InMemory::Scatter { threads: None },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: false,
                },
            ),
            (
                lines(Some(GIB + 1), GIB),
                SCATTER_ABOVE,
                InMemory::Scatter { threads: None },
                Beyond::Spilling {
                    head_count: None,
                    on_disk: true,
                },
            ),
            // A language-exact sampler: inplace, the whole input in memory, else refused.
            (
                Request {
                    exact_order: Some("java"),
                    threads,
                    ..lines(None, GIB)
                },
                GIB,
                sequential("inplace", None),
                Beyond::Refuse(PlanError::ExactOrderBeyondBudget {
                    backend: "java".into(),
                    budget: budget(GIB),
                    size: None,
                }),
            ),
            // A named sequential algorithm: in memory, else refused (never the default
            // silently, and never a warning about an algorithm that did not run).
            (
                Request {
                    algorithm: Some("biased"),
                    ..lines(None, GIB)
                },
                GIB,
                sequential("biased", None),
                Beyond::Refuse(PlanError::AlgorithmBeyondBudget {
                    algorithm: "biased".into(),
                    budget: budget(GIB),
                    size: None,
                    sample: false,
                }),
            ),
            // A file that fits: the size changes nothing.
            (
                Request {
                    algorithm: Some("inplace"),
                    ..lines(Some(1000), GIB)
                },
                GIB,
                sequential("inplace", None),
                Beyond::Refuse(PlanError::AlgorithmBeyondBudget {
                    algorithm: "inplace".into(),
                    budget: budget(GIB),
                    size: None,
                    sample: false,
                }),
            ),
        ];
        for (request, limit, fits, beyond) in table {
            assert_eq!(
                records(&request),
                (budget(limit), fits, beyond),
                "{request:?}"
            );
        }
    }

    #[test]
    fn samples_and_repeats_of_records() {
        let table: Vec<(Request<'_>, InMemory, Beyond)> = vec![
            (
                Request {
                    head_count: Some(5),
                    ..lines(None, GIB)
                },
                sequential("partial", Some(5)),
                Beyond::Sample {
                    k: 5,
                    on_disk: false,
                },
            ),
            // -n with a language-exact sampler: no language shuffle to reproduce; a sample.
            (
                Request {
                    head_count: Some(5),
                    exact_order: Some("python"),
                    ..lines(Some(10 * GIB), GIB)
                },
                sequential("partial", Some(5)),
                Beyond::Sample {
                    k: 5,
                    on_disk: true,
                },
            ),
            (
                Request {
                    head_count: Some(5),
                    algorithm: Some("inside-out"),
                    ..lines(None, GIB)
                },
                sequential("inside-out", Some(5)),
                Beyond::Refuse(PlanError::AlgorithmBeyondBudget {
                    algorithm: "inside-out".into(),
                    budget: budget(GIB),
                    size: None,
                    sample: true,
                }),
            ),
            (
                Request {
                    repeat: true,
                    ..lines(None, GIB)
                },
                InMemory::Repeat { head_count: None },
                Beyond::Spool { head_count: None },
            ),
            // -r is the same picks at any size: a named algorithm does not matter.
            (
                Request {
                    repeat: true,
                    head_count: Some(9),
                    exact_order: Some("java"),
                    algorithm: Some("naive"),
                    ..lines(Some(10 * GIB), GIB)
                },
                InMemory::Repeat {
                    head_count: Some(9),
                },
                Beyond::Spool {
                    head_count: Some(9),
                },
            ),
        ];
        for (request, fits, beyond) in table {
            assert_eq!(
                records(&request),
                (request.budget, fits, beyond),
                "{request:?}"
            );
        }
    }

    #[test]
    fn files_known_to_be_too_large_are_refused_before_reading() {
        let java = Request {
            exact_order: Some("java"),
            ..lines(Some(GIB + 1), GIB)
        };
        let err = plan(&java).unwrap_err();
        assert_eq!(
            err,
            PlanError::ExactOrderBeyondBudget {
                backend: "java".into(),
                budget: budget(GIB),
                size: Some(GIB + 1),
            }
        );
        let biased = Request {
            algorithm: Some("biased"),
            ..lines(Some(2 * GIB), GIB)
        };
        assert_eq!(
            plan(&biased),
            Err(PlanError::AlgorithmBeyondBudget {
                algorithm: "biased".into(),
                budget: budget(GIB),
                size: Some(2 * GIB),
                sample: false,
            })
        );
        // Exactly the budget in bytes may still fit, or not: decided on reading.
        let edge = Request {
            algorithm: Some("biased"),
            ..lines(Some(GIB), GIB)
        };
        assert!(plan(&edge).is_ok());
    }

    #[test]
    fn threads_need_the_scatter() {
        let request = Request {
            threads: NonZeroUsize::new(2),
            algorithm: Some("inplace"),
            ..lines(None, GIB)
        };
        assert_eq!(
            plan(&request),
            Err(PlanError::ThreadsWithoutScatter {
                algorithm: "inplace".into()
            })
        );
    }

    #[test]
    fn ranges() {
        let fair = InMemory::Scatter { threads: None };
        let table: Vec<(Request<'_>, RangePlan, u64)> = vec![
            (range(1, 10, GIB), RangePlan::Materialise(fair.clone()), 80),
            (
                Request {
                    exact_order: Some("java"),
                    ..range(0, 52, GIB)
                },
                RangePlan::Materialise(sequential("inplace", None)),
                52 * 8,
            ),
            // The whole range as a sample: materialised, 8 bytes a number (N19).
            (
                Request {
                    head_count: Some(100_000_000),
                    ..range(1, 100_000_000, 6 * GIB)
                },
                RangePlan::Materialise(sequential("partial", Some(100_000_000))),
                800_000_000,
            ),
            // K small next to N: sparse.
            (
                Request {
                    head_count: Some(5),
                    ..range(1, 1_000_000_000_000, GIB)
                },
                RangePlan::Sparse { k: 5 },
                5 * SPARSE_BYTES_PER_SAMPLE,
            ),
            (
                Request {
                    head_count: Some(100),
                    ..range(1, 1600, GIB)
                },
                RangePlan::Sparse { k: 100 },
                100 * SPARSE_BYTES_PER_SAMPLE,
            ),
            (
                Request {
                    head_count: Some(101),
                    ..range(1, 1600, GIB)
                },
                RangePlan::Materialise(sequential("partial", Some(101))),
                1600 * 8,
            ),
            // Another algorithm's sample is never sparse.
            (
                Request {
                    head_count: Some(5),
                    algorithm: Some("inplace"),
                    ..range(1, 1600, GIB)
                },
                RangePlan::Materialise(sequential("inplace", Some(5))),
                1600 * 8,
            ),
            (
                Request {
                    repeat: true,
                    ..range(0, 1 << 64, 1024)
                },
                RangePlan::Repeat { head_count: None },
                0,
            ),
        ];
        for (request, how, estimate) in table {
            assert_eq!(
                plan(&request),
                Ok(Plan::Range { how, estimate }),
                "{request:?}"
            );
        }
    }

    #[test]
    fn ranges_refused_say_the_real_limit() {
        // N18: a million numbers are under the cap; the budget is what is short.
        let err = plan(&range(1, 1_000_000, 1024)).unwrap_err();
        let message = err.to_string();
        assert_eq!(
            message,
            "range 1-1000000 holds 1000000 numbers, 7.6 MiB in memory (8 bytes each), more \
             than the memory budget 1K, which would need to be at least 7813K"
        );
        let message = plan(&range(1, 200_000_000, 100 * GIB))
            .unwrap_err()
            .to_string();
        assert!(message.contains("more than the 100000000"), "{message}");
        let request = Request {
            head_count: Some(5),
            algorithm: Some("inplace"),
            ..range(1, 200_000_000, GIB)
        };
        assert!(matches!(
            plan(&request),
            Err(PlanError::RangeNeedsPartial { .. })
        ));
        let request = Request {
            head_count: Some(1_000_000),
            ..range(1, 1 << 40, 1 << 20)
        };
        let message = plan(&request).unwrap_err().to_string();
        assert!(
            message.starts_with("a sample of 1000000 numbers needs about 38.1 MiB"),
            "{message}"
        );
        assert!(message.contains("at least 39063K"), "{message}");
    }

    #[test]
    fn memory_suggestions_are_accepted_by_the_parser_and_suffice() {
        for bytes in [
            1,
            1023,
            1024,
            1025,
            8_000_000,
            10 << 20,
            7 << 40,
            u64::MAX / 2,
        ] {
            let text = human_ceiling(bytes);
            let parsed: MemoryBudget = text.parse().unwrap();
            assert!(parsed.bytes() >= bytes, "{bytes}: {text}");
            // Not more than 0.01 % above (or 1K).
            assert!(
                parsed.bytes() - bytes <= (bytes / 10_000).max(1024),
                "{bytes}: {text}"
            );
        }
    }

    #[test]
    fn gnu_random_source_is_gnu_plan_within_the_budget() {
        let gnu = |request: Request<'static>| {
            plan(&Request {
                gnu: true,
                ..request
            })
        };
        // Whole shuffles and -r hold every record: up to the budget, refused above it when
        // the size is known, and the refusal says what would work.
        for repeat in [false, true] {
            let request = Request {
                repeat,
                ..lines(None, GIB)
            };
            assert_eq!(
                gnu(request),
                Ok(Plan::Gnu {
                    load_limit: Some(budget(GIB))
                })
            );
            let request = Request {
                repeat,
                head_count: repeat.then_some(3),
                ..lines(Some(GIB + 1), GIB)
            };
            let err = gnu(request).unwrap_err();
            assert_eq!(
                err,
                PlanError::GnuBeyondBudget {
                    budget: budget(GIB),
                    size: Some(GIB + 1),
                }
            );
        }
        // -n K on a stream (a reservoir of K) and ranges hold no input: any size.
        let sample = Request {
            head_count: Some(5),
            ..lines(Some(100 * GIB), GIB)
        };
        assert_eq!(gnu(sample), Ok(Plan::Gnu { load_limit: None }));
        let from_pipe = Request {
            head_count: Some(5),
            ..lines(None, MIB)
        };
        assert_eq!(gnu(from_pipe), Ok(Plan::Gnu { load_limit: None }));
        // Probe row P9: -n K from a file of at most 8 MiB, which GNU reads whole, holds it
        // within the budget, and is refused when the file is larger than the budget (on main
        // it was planned as holding at most K records, and held the whole file past it).
        let small_file = |size, budget| Request {
            head_count: Some(3),
            ..lines(Some(size), budget)
        };
        assert_eq!(
            gnu(small_file(GNU_READS_WHOLE, GNU_READS_WHOLE)),
            Ok(Plan::Gnu {
                load_limit: Some(budget(GNU_READS_WHOLE))
            })
        );
        assert_eq!(
            gnu(small_file(GNU_READS_WHOLE, MIB)),
            Err(PlanError::GnuBeyondBudget {
                budget: budget(MIB),
                size: Some(GNU_READS_WHOLE),
            })
        );
        assert_eq!(
            gnu(small_file(GNU_READS_WHOLE + 1, MIB)),
            Ok(Plan::Gnu { load_limit: None })
        );
        assert_eq!(
            gnu(range(1, 1 << 64, 1024)),
            Ok(Plan::Gnu { load_limit: None })
        );
        // GNU's plan wins over every other option: never the scatter, one thread.
        let whole = gnu(lines(None, GIB)).unwrap();
        assert_eq!(whole.scatter_threads(), None);
        assert_eq!(
            whole.to_string(),
            "GNU shuf's plan on draws from a byte stream, records in memory up to 1G"
        );
    }

    #[test]
    fn the_plan_prints_on_one_line() {
        let shown = plan(&lines(None, GIB)).unwrap().to_string();
        assert_eq!(
            shown,
            "records up to 16M: parallel scatter shuffle, all cores; beyond: scatter into 32 buckets"
        );
        let shown = plan(&lines(Some(2 * GIB), GIB)).unwrap().to_string();
        assert!(
            shown.ends_with("beyond: scatter into 32 buckets on disk"),
            "{shown}"
        );
        let shown = plan(&Request {
            head_count: Some(3),
            ..range(1, 1 << 40, GIB)
        })
        .unwrap()
        .to_string();
        assert_eq!(
            shown,
            "range sampled sparsely, 3 numbers (about 120 bytes memory)"
        );
    }
}
