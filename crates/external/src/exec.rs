//! The executor of a shuffle job: a [`Plan`] run on its input.
//!
//! [`Job::plan`] plans a [`Request`] for an [`Input`] once (the request's source is the
//! input's), and [`Job::execute`] runs that plan once, with the generator, sampler and
//! algorithm the caller resolved ([`Draws`]), writing to any [`Write`]:
//! - records that fit the plan's load limit (bytes plus 16 per record) are shuffled in
//!   memory: the parallel scatter, a sequential algorithm (its prefix with `-n`), or picks with
//!   replacement;
//! - records beyond it are scattered into 32 buckets as they are read
//!   ([`ExternalShuffle::shuffle_spilling`], in memory while they fit the budget, then through
//!   anonymous temporary files), reservoir-sampled, spooled for picks with replacement (a
//!   checksummed spool), or refused when the plan cannot honour the algorithm or a
//!   language-exact order there ([`ExecError::Refused`]);
//! - ranges are held and shuffled, sampled sparsely (`fairdeal_partial::sample_range`), or
//!   picked from with replacement, each within the memory the plan estimated.
//!
//! Every output record ends with the separator, even when the input's last one had none. The
//! executor prints nothing: it tells an [`Observer`] which step it takes (and reports progress
//! through [`Progress`]), and fails with an [`ExecError`] that names no command-line flag.
//!
//! ```
//! use fairdeal_external::exec::{Draws, Input, Job};
//! use fairdeal_external::plan::{Request, Source};
//! use fairdeal_external::MemoryBudget;
//! use fairdeal_core::SeedableRng;
//!
//! let budget = MemoryBudget::new(1 << 20)?;
//! let request = Request::new(Source::Range { lo: 1, len: 10 }, budget);
//! let job = Job::plan(&request, Input::Range { lo: 1, len: 10 }, b'\n', "/tmp".into())?;
//! let draws = Draws {
//!     rng: rand_pcg::Pcg64::seed_from_u64(7),
//!     sampler: fairdeal_core::Lemire,
//!     shuffler: fairdeal_inplace::Inplace::<fairdeal_core::Lemire>::default(),
//! };
//! let mut out = Vec::new();
//! job.execute(draws, &mut out, &mut ())?;
//! let mut numbers: Vec<u64> = String::from_utf8(out)?.lines().map(|l| l.parse().unwrap()).collect();
//! numbers.sort();
//! assert_eq!(numbers, (1..=10).collect::<Vec<_>>());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod sources;
mod spool;

use std::io::{self, Read, Write};
use std::path::PathBuf;

use fairdeal_core::{IndexSampler, Rng, SeedableRng, ShuffleError, Shuffler};

use crate::ends::Ends;
use crate::plan::{self, Beyond, InMemory, Plan, PlanError, RangePlan, Request, Source};
use crate::{ExternalError, ExternalShuffle, Loaded, MemoryBudget, Progress};

pub use sources::{OpenError, SourceError, Sources, is_stdin};
pub use spool::{SPOOL_BLOCK, SPOOL_BYTES_PER_BLOCK, SPOOL_BYTES_PER_RECORD};

/// What a job runs on.
#[derive(Debug)]
pub enum Input {
    /// Records read from the input files or standard input.
    Sources(Sources),
    /// Records already in memory, each one record even if it holds the separator (`shuf
    /// -e`'s arguments): only the plan's in-memory step runs on them, whatever the budget.
    Echo(Vec<Vec<u8>>),
    /// The integers `lo .. lo + len` (`len` up to 2^64).
    Range {
        /// The first number.
        lo: u64,
        /// How many numbers (0 for the empty range).
        len: u128,
    },
}

impl Input {
    /// What the planner is told about this input.
    pub const fn source(&self) -> Source {
        match self {
            Self::Sources(sources) => Source::Records {
                size_hint: sources.size_hint(),
            },
            Self::Echo(_) => Source::Records { size_hint: None },
            Self::Range { lo, len } => Source::Range { lo: *lo, len: *len },
        }
    }
}

/// The generator, index sampler and algorithm a job draws with, resolved by the caller (the
/// facade's registries turn names into these).
#[derive(Debug)]
pub struct Draws<R, S, A> {
    /// The generator.
    pub rng: R,
    /// The sampler of the parallel scatter, the reservoir, picks and sparse samples.
    pub sampler: S,
    /// The algorithm of a [`InMemory::Sequential`] step.
    pub shuffler: A,
}

/// A step of a job as it runs, for the caller's notes and warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// About to run an algorithm whose orders are not equally likely (the biased negative
    /// control), by its name.
    Unfair(&'static str),
    /// The records fit the load limit and are shuffled (or picked from) in memory.
    InMemory,
    /// The records are beyond the budget and were spooled to a temporary file for picks with
    /// replacement.
    Spooled,
    /// The records are beyond the budget and a reservoir sample is taken.
    Reservoir,
    /// The records were shuffled by the external shuffle (beyond the budget or spilled to
    /// temporary files); `sample` when only the first K records were written.
    External {
        /// Whether the output is the first K records of the permutation.
        sample: bool,
    },
    /// The records were scattered into [`FAN_OUT`](crate::FAN_OUT) buckets kept in memory.
    Buckets,
}

/// What a job tells its caller as it runs: its steps, and the progress of the scatter.
pub trait Observer: Progress {
    /// The job takes `step` (called when the step is decided, or for
    /// [`Step::External`] and [`Step::Buckets`] when the scatter has ended).
    fn step(&mut self, step: Step) {
        let _ = step;
    }
}

/// No notes.
impl Observer for () {}

/// Why a job failed. No message names a command-line flag: a caller words
/// [`ExecError::Refused`] and [`ExecError::SpoolBeyondBudget`] in its own terms.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExecError {
    /// The external shuffle, the reservoir or the spool's temporary file failed.
    #[error(transparent)]
    External(#[from] ExternalError),
    /// The input is larger than the budget, and the plan cannot honour an option beyond it.
    #[error(transparent)]
    Refused(PlanError),
    /// Writing the output failed.
    #[error("cannot write output")]
    Write(#[source] io::Error),
    /// Reading the input failed.
    #[error("cannot read input")]
    Read(#[source] io::Error),
    /// Picks with replacement from no records.
    #[error("no lines to repeat")]
    NothingToRepeat,
    /// An allocation failed (e.g. under `ulimit -v`).
    #[error("memory exhausted: cannot allocate {bytes} bytes")]
    OutOfMemory {
        /// The size of the failed allocation.
        bytes: usize,
    },
    /// Picks with replacement beyond the budget keep [`SPOOL_BYTES_PER_RECORD`] bytes per
    /// record and [`SPOOL_BYTES_PER_BLOCK`] per [`SPOOL_BLOCK`] bytes in memory, and the input
    /// has more records than the budget holds.
    #[error(
        "picks with replacement beyond the memory budget {budget} keep {SPOOL_BYTES_PER_RECORD} bytes per record and {SPOOL_BYTES_PER_BLOCK} per {} KiB in memory, and the input has more than {records} records",
        SPOOL_BLOCK >> 10
    )]
    SpoolBeyondBudget {
        /// The budget.
        budget: MemoryBudget,
        /// The records spooled when it ran out.
        records: usize,
    },
    /// Reading the spool back failed.
    #[error("cannot read a temporary file in '{}'", dir.display())]
    SpoolRead {
        /// The spool's directory.
        dir: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// A range longer than `usize` on this platform.
    #[error("range too large for this platform")]
    RangeTooLarge,
    /// The sparse range sampler refused its arguments.
    #[error("cannot sample from the range")]
    Sample(#[source] fairdeal_partial::SampleRangeError),
    /// A shuffle refused its arguments.
    #[error(transparent)]
    Shuffle(#[from] ShuffleError),
}

/// What runs, with what it runs on: a plan's branch paired with its input, so that no pair of
/// a plan and an input that do not belong together can be built.
#[derive(Debug)]
enum Work {
    Records {
        load_limit: MemoryBudget,
        fits: InMemory,
        beyond: Beyond,
        input: RecordInput,
    },
    Range {
        how: RangePlan,
        estimate: u64,
        lo: u64,
        len: u128,
    },
}

#[derive(Debug)]
enum RecordInput {
    Sources(Sources),
    Echo(Vec<Vec<u8>>),
}

/// A planned job: the plan and its input, ready to execute once.
#[derive(Debug)]
pub struct Job {
    work: Work,
    separator: u8,
    budget: MemoryBudget,
    temp_parent: PathBuf,
}

impl Job {
    /// Plans `request` for `input` ([`plan::plan`]'s decision; the request's `source` is
    /// taken from the input, and its `gnu` is not read: GNU shuf's plan is
    /// [`plan::gnu_load_limit`]'s). Records end with `separator`; temporary files go to
    /// `temp_parent` ([`crate::temp_parent`]).
    ///
    /// # Errors
    ///
    /// The [`PlanError`] of a request no plan honours.
    pub fn plan(
        request: &Request<'_>,
        input: Input,
        separator: u8,
        temp_parent: PathBuf,
    ) -> Result<Self, PlanError> {
        let request = Request {
            source: input.source(),
            gnu: false,
            ..*request
        };
        let work = match input {
            Input::Range { lo, len } => {
                let (how, estimate) = plan::range_plan(&request, lo, len)?;
                Work::Range {
                    how,
                    estimate,
                    lo,
                    len,
                }
            }
            Input::Sources(sources) => {
                let (load_limit, fits, beyond) = plan::records_plan(&request, sources.size_hint())?;
                Work::Records {
                    load_limit,
                    fits,
                    beyond,
                    input: RecordInput::Sources(sources),
                }
            }
            Input::Echo(records) => {
                let (load_limit, fits, beyond) = plan::records_plan(&request, None)?;
                Work::Records {
                    load_limit,
                    fits,
                    beyond,
                    input: RecordInput::Echo(records),
                }
            }
        };
        Ok(Self {
            work,
            separator,
            budget: request.budget,
            temp_parent,
        })
    }

    /// The plan, as [`plan::plan`] returns it (for display, and for the threads it runs on:
    /// [`Plan::scatter_threads`]).
    pub fn plan_of(&self) -> Plan {
        match &self.work {
            Work::Records {
                load_limit,
                fits,
                beyond,
                ..
            } => Plan::Records {
                load_limit: *load_limit,
                fits: fits.clone(),
                beyond: beyond.clone(),
            },
            Work::Range { how, estimate, .. } => Plan::Range {
                how: how.clone(),
                estimate: *estimate,
            },
        }
    }

    /// The memory the job holds beside its worker threads (bytes): the records up to the
    /// budget and the buffers beside it, or the range's numbers.
    pub fn holds(&self) -> u64 {
        match &self.work {
            Work::Records { .. } => self
                .budget
                .bytes()
                .saturating_add(crate::BUFFER_BYTES as u64),
            Work::Range { estimate, .. } => *estimate,
        }
    }

    /// Runs the plan on the input with `draws`, writing every record (or number) to `output`,
    /// then flushes it. The parallel scatter runs on the caller's rayon pool.
    ///
    /// # Errors
    ///
    /// [`ExecError`]: the input, the output, a temporary file or memory failed, or the input
    /// turned out larger than the budget where the plan refuses it.
    pub fn execute<R, S, A>(
        self,
        draws: Draws<R, S, A>,
        output: &mut dyn Write,
        observer: &mut dyn Observer,
    ) -> Result<(), ExecError>
    where
        R: Rng + SeedableRng + Send,
        S: IndexSampler + Copy + Send + Sync,
        A: Shuffler,
    {
        let mut exec = Executor {
            draws,
            separator: self.separator,
            budget: self.budget,
            temp_parent: self.temp_parent,
            out: output,
            observer,
        };
        match self.work {
            Work::Range { how, lo, len, .. } => exec.range(&how, lo, len)?,
            Work::Records {
                fits,
                input: RecordInput::Echo(records),
                ..
            } => exec.records_apart(&fits, records.iter().map(Vec::as_slice).collect())?,
            Work::Records {
                load_limit,
                fits,
                beyond,
                input: RecordInput::Sources(sources),
            } => {
                let size_hint = sources.size_hint();
                match ExternalShuffle::new(load_limit, self.separator).load(sources, size_hint)? {
                    Loaded::InMemory(bytes) => exec.records(&fits, &bytes)?,
                    Loaded::TooLarge(prefix, rest) => {
                        let beyond_budget = load_limit == self.budget;
                        exec.beyond(&beyond, prefix.into_inner(), rest, beyond_budget)?;
                    }
                }
            }
        }
        exec.out.flush().map_err(ExecError::Write)
    }
}

/// One method per step of a [`Plan`], with the resolved generator and algorithm.
struct Executor<'o, R, S, A> {
    draws: Draws<R, S, A>,
    separator: u8,
    budget: MemoryBudget,
    temp_parent: PathBuf,
    out: &'o mut dyn Write,
    observer: &'o mut dyn Observer,
}

impl<R, S, A> Executor<'_, R, S, A>
where
    R: Rng + SeedableRng + Send,
    S: IndexSampler + Copy + Send + Sync,
    A: Shuffler,
{
    /// `-r` over a range, whichever plan step asked for it: picks with replacement, nothing
    /// held.
    fn repeat_range(
        &mut self,
        lo: u64,
        len: u128,
        head_count: Option<usize>,
    ) -> Result<(), ExecError> {
        repeat_range(
            lo,
            len,
            head_count,
            self.out,
            self.separator,
            &mut self.draws.rng,
            &self.draws.sampler,
        )
    }

    /// Tells the observer about the biased negative control, only when it really runs.
    fn warn_if_unfair(&mut self) {
        let info = self.draws.shuffler.info();
        if !info.fair {
            self.observer.step(Step::Unfair(info.name));
        }
    }

    /// Shuffles `items` with the parallel scatter (`sequential` is `None`), or with the
    /// sequential algorithm, whole or its prefix of `Some(k)`; returns how many of them to
    /// write.
    fn shuffle_held<T: Send>(
        &mut self,
        sequential: Option<Option<usize>>,
        items: &mut [T],
    ) -> Result<usize, ExecError> {
        match sequential {
            None => {
                // On the caller's pool, which the caller sized to the plan's threads.
                fairdeal_parallel::Parallel::with_sampler(self.draws.sampler)
                    .shuffle(items, &mut self.draws.rng);
                Ok(items.len())
            }
            Some(head_count) => {
                shuffle_head(&self.draws.shuffler, items, head_count, &mut self.draws.rng)
            }
        }
    }

    /// Records that fit in memory.
    fn records(&mut self, step: &InMemory, buffer: &[u8]) -> Result<(), ExecError> {
        let records = split_records(buffer, self.separator)?;
        self.records_apart(step, records)
    }

    /// [`Self::records`] on records already apart (`-e`'s arguments, which may hold the
    /// separator).
    fn records_apart(&mut self, step: &InMemory, mut records: Vec<&[u8]>) -> Result<(), ExecError> {
        if matches!(step, InMemory::Sequential { .. }) {
            self.warn_if_unfair();
        }
        self.observer.step(Step::InMemory);
        let separator = self.separator;
        let sequential = match step {
            InMemory::Repeat { head_count } => {
                let (sampler, rng) = (&self.draws.sampler, &mut self.draws.rng);
                return repeat(&records, *head_count, self.out, separator, |len| {
                    sampler.index_below(rng, len)
                });
            }
            InMemory::Scatter { .. } => None,
            InMemory::Sequential { head_count, .. } => Some(*head_count),
        };
        let k = self.shuffle_held(sequential, &mut records)?;
        records[..k]
            .iter()
            .try_for_each(|record| {
                self.out.write_all(record)?;
                self.out.write_all(&[separator])
            })
            .map_err(ExecError::Write)
    }

    /// Records beyond the load limit: `prefix` was read, `reader` holds the rest.
    fn beyond(
        &mut self,
        step: &Beyond,
        prefix: Vec<u8>,
        reader: Sources,
        beyond_budget: bool,
    ) -> Result<(), ExecError> {
        let (separator, budget) = (self.separator, self.budget);
        match step {
            Beyond::Refuse(refused) => Err(ExecError::Refused(refused.clone())),
            Beyond::Spool { head_count } => {
                self.observer.step(Step::Spooled);
                let reader = io::Cursor::new(prefix).chain(reader);
                let spooled = spool::Spooled::write(reader, separator, &self.temp_parent, budget)?;
                let records = spooled.records();
                let (sampler, rng) = (&self.draws.sampler, &mut self.draws.rng);
                repeat_spooled(&spooled, *head_count, self.out, |_| {
                    sampler.index_below(rng, records)
                })
            }
            &Beyond::Sample { k, .. }
                if plan::reservoir_fits(k, mean_record(&prefix, separator), budget) =>
            {
                self.observer.step(Step::Reservoir);
                let external = ExternalShuffle::with_sampler(budget, separator, self.draws.sampler);
                let reader = io::Cursor::new(prefix).chain(reader);
                let sample = external.sample(reader, k, &mut self.draws.rng)?;
                sample
                    .iter()
                    .try_for_each(|record| self.out.write_all(record))
                    .map_err(ExecError::Write)
            }
            // With -n K too large for a reservoir, the first K records of an exactly uniform
            // permutation are an exactly uniform ordered sample.
            &Beyond::Sample { k, on_disk } => self.spilling(prefix, reader, Some(k), true, on_disk),
            &Beyond::Spilling {
                head_count,
                on_disk,
            } => self.spilling(prefix, reader, head_count, beyond_budget, on_disk),
        }
    }

    /// The scatter into buckets as the records are read, in memory while they fit the budget
    /// (on disk from the first record with `on_disk`).
    fn spilling(
        &mut self,
        prefix: Vec<u8>,
        reader: Sources,
        head_count: Option<usize>,
        beyond_budget: bool,
        on_disk: bool,
    ) -> Result<(), ExecError> {
        let external =
            ExternalShuffle::with_sampler(self.budget, self.separator, self.draws.sampler)
                .spill_at_once(on_disk);
        let mut head = Head {
            inner: &mut *self.out,
            left: head_count,
            separator: self.separator,
        };
        // The scatter starts in memory; spill files (anonymous, private: see
        // `crate::SpillFile`) are made only if it spills.
        let temp_parent = self.temp_parent.clone();
        let mut make_scratch = || Ok(temp_parent.clone());
        let summary = external.shuffle_spilling(
            prefix,
            reader,
            &mut head,
            &mut make_scratch,
            &mut self.draws.rng,
            &mut *self.observer,
        )?;
        self.observer
            .step(if summary.bucket_files > 0 || beyond_budget {
                Step::External {
                    sample: head_count.is_some(),
                }
            } else {
                Step::Buckets
            });
        Ok(())
    }

    /// A range: picks with replacement, a sparse sample, or the numbers held and shuffled.
    fn range(&mut self, how: &RangePlan, lo: u64, len: u128) -> Result<(), ExecError> {
        let separator = self.separator;
        let hi = (u128::from(lo) + len).saturating_sub(1) as u64;
        let values = match how {
            RangePlan::Repeat { head_count } => {
                return self.repeat_range(lo, len, *head_count);
            }
            &RangePlan::Sparse { k } => {
                // Probe that the sampler's memory can be had (e.g. under `ulimit -v`) before
                // it starts: it would abort on a failed allocation.
                let needed = k.saturating_mul(plan::SPARSE_BYTES_PER_SAMPLE as usize);
                Vec::<u8>::new()
                    .try_reserve_exact(needed)
                    .map_err(|_| ExecError::OutOfMemory { bytes: needed })?;
                fairdeal_partial::sample_range(lo, hi, k, &mut self.draws.rng, &self.draws.sampler)
                    .map_err(ExecError::Sample)?
            }
            RangePlan::Materialise(step) => {
                let sequential = match step {
                    InMemory::Repeat { head_count } => {
                        return self.repeat_range(lo, len, *head_count);
                    }
                    InMemory::Scatter { .. } => None,
                    InMemory::Sequential { head_count, .. } => {
                        self.warn_if_unfair();
                        Some(*head_count)
                    }
                };
                // The plan bounded the length by MAX_RANGE_IN_MEMORY.
                let len = usize::try_from(len).map_err(|_| ExecError::RangeTooLarge)?;
                let mut values: Vec<u64> = Vec::new();
                values
                    .try_reserve_exact(len)
                    .map_err(|_| ExecError::OutOfMemory {
                        bytes: len.saturating_mul(8),
                    })?;
                if len > 0 {
                    values.extend(lo..=hi);
                }
                let k = self.shuffle_held(sequential, &mut values)?;
                values.truncate(k);
                values
            }
        };
        values
            .iter()
            .try_for_each(|value| {
                write!(self.out, "{value}")?;
                self.out.write_all(&[separator])
            })
            .map_err(ExecError::Write)
    }
}

/// Splits input into records without their separator. A final record without separator is
/// still a record; a final separator does not start an empty one. Empty input has none.
///
/// # Errors
///
/// [`ExecError::OutOfMemory`] when the index of the records cannot be allocated.
pub fn split_records(buffer: &[u8], separator: u8) -> Result<Vec<&[u8]>, ExecError> {
    if buffer.is_empty() {
        return Ok(Vec::new());
    }
    let body = buffer.strip_suffix(&[separator]).unwrap_or(buffer);
    let count = memchr::memchr_iter(separator, body).count() + 1;
    let mut records = Vec::new();
    records
        .try_reserve_exact(count)
        .map_err(|_| ExecError::OutOfMemory {
            bytes: count.saturating_mul(16),
        })?;
    // `Ends` finds the separators 64 bytes at a time; `body.split(|&b| b == separator)` gives
    // the same records but tests one byte per step (`fairdeal shuffle` of 8 MB of 64-byte
    // lines: 81 M instructions with it, 47 M with `Ends`; docs/notes/2026-11-27-zen3.md).
    let mut start = 0;
    for end in Ends::new(separator, body) {
        records.push(&body[start..end]);
        start = end + 1;
    }
    records.push(&body[start..]);
    Ok(records)
}

/// The mean record length (with separator) of `bytes`.
fn mean_record(bytes: &[u8], separator: u8) -> u64 {
    let records = memchr::memchr_iter(separator, bytes).count();
    bytes.len() as u64 / records.max(1) as u64
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

/// Picks with replacement from spooled records: `k` independent uniform picks (or endless),
/// each read back from its verified block of the spill file.
fn repeat_spooled(
    spooled: &spool::Spooled,
    head_count: Option<usize>,
    out: &mut dyn Write,
    mut pick: impl FnMut(usize) -> usize,
) -> Result<(), ExecError> {
    let records = spooled.records();
    if records == 0 {
        return Err(ExecError::NothingToRepeat);
    }
    let mut buf = Vec::new();
    let mut left = head_count;
    while left != Some(0) {
        spooled.write_record(pick(records), &mut buf, out)?;
        left = left.map(|k| k - 1);
    }
    Ok(())
}

/// Picks with replacement from records: `k` independent uniform picks, or endless without a
/// count.
fn repeat(
    records: &[&[u8]],
    head_count: Option<usize>,
    out: &mut dyn Write,
    separator: u8,
    mut pick: impl FnMut(usize) -> usize,
) -> Result<(), ExecError> {
    if records.is_empty() {
        if head_count == Some(0) {
            return Ok(());
        }
        return Err(ExecError::NothingToRepeat);
    }
    let mut left = head_count;
    while left != Some(0) {
        let record = records[pick(records.len())];
        out.write_all(record)
            .and_then(|()| out.write_all(&[separator]))
            .map_err(ExecError::Write)?;
        left = left.map(|k| k - 1);
    }
    Ok(())
}

/// Picks with replacement from the range `lo .. lo + len`: independent uniform numbers,
/// without materialising it.
fn repeat_range<R: Rng, S: IndexSampler>(
    lo: u64,
    len: u128,
    head_count: Option<usize>,
    out: &mut dyn Write,
    separator: u8,
    rng: &mut R,
    sampler: &S,
) -> Result<(), ExecError> {
    if len == 0 {
        if head_count == Some(0) {
            return Ok(());
        }
        return Err(ExecError::NothingToRepeat);
    }
    let mut left = head_count;
    while left != Some(0) {
        // The whole u64 range (2^64 numbers) is one raw word; anything smaller fits `usize`
        // on 64-bit targets (and is refused by `usize::try_from` elsewhere).
        let offset = match usize::try_from(len) {
            Ok(len) => sampler.index_below(rng, len) as u64,
            Err(_) if len == 1 << 64 => rng.next_u64(),
            Err(_) => return Err(ExecError::RangeTooLarge),
        };
        write!(out, "{}", lo + offset)
            .and_then(|()| out.write_all(&[separator]))
            .map_err(ExecError::Write)?;
        left = left.map(|k| k - 1);
    }
    Ok(())
}

/// Shuffles `items` whole, or only a prefix of `min(k, len)` for a count `k`; returns how
/// many items to write.
fn shuffle_head<T, A: Shuffler, R: Rng + ?Sized>(
    shuffler: &A,
    items: &mut [T],
    head_count: Option<usize>,
    rng: &mut R,
) -> Result<usize, ExecError> {
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
    fn records_across_many_blocks_split_as_the_slice_split_would() {
        // Lines of 0 to 149 bytes (so separators fall at every offset of the 64-byte steps),
        // runs of empty lines, with and without a final separator.
        let mut bytes = Vec::new();
        for i in 0..400usize {
            let len = if i % 7 == 3 { 0 } else { (i * 37) % 150 };
            bytes.extend((0..len).map(|j| b'a' + ((i + j) % 26) as u8));
            bytes.push(b'\n');
        }
        for end in [bytes.len(), bytes.len() - 1, bytes.len() - 5] {
            let input = &bytes[..end];
            let body = input.strip_suffix(b"\n").unwrap_or(input);
            let expected: Vec<&[u8]> = body.split(|&b| b == b'\n').collect();
            assert_eq!(split(input, b'\n'), expected, "input of {end} bytes");
        }
    }

    #[test]
    fn head_passes_the_first_records_only() {
        let mut out = Vec::new();
        let mut head = Head {
            inner: &mut out,
            left: Some(2),
            separator: b'\n',
        };
        head.write_all(b"a\nbb").unwrap();
        head.write_all(b"b\nc\nd\n").unwrap();
        assert_eq!(out, b"a\nbbb\n");
    }
}
