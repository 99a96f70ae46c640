//! `fairdeal shard`: the external shuffle as independent tasks for a cluster (Slurm job arrays,
//! GNU parallel, a plain loop) over a shared filesystem. `plan` fixes the run, `scatter` and
//! `gather` tasks run in any number and any order within their phase, `verify` checks the
//! output against the input. The library side is `fairdeal_external::shard`; the recipes are
//! `cluster/*.sh`; the design and its guarantees are in `docs/distributed.md`.

use std::io::Write as _;
use std::num::NonZeroUsize;
use std::path::PathBuf;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use fairdeal::Rng as _;
use fairdeal::rng::Backend as _;
use fairdeal_cli::args::{RandomArgs, count_parser, parse_memory, parse_threads};
use fairdeal_external::MemoryBudget;
use fairdeal_external::shard::{
    self, DEFAULT_CHUNK_BYTES, MAX_BUCKETS, MAX_TASKS, PlanConfig, RunDir, ShardError,
};

use crate::common::{plural, print_json, stdout, thread_pool_for, usage};

/// The generator of every sharded run: the default backend's, named in the run manifest.
type ShardRng = <fairdeal::rng::DefaultBackend as fairdeal::rng::Backend>::Rng;

const AFTER_HELP: &str = "A run lives in one directory DIR: the parts DIR/part-00000, \
DIR/part-00001, … (their concatenation in name order is the shuffled input) and the manifests \
and spill files in DIR/shard/ (remove it when done). The output depends only on the seed, the \
input bytes, the chunk size and the bucket count (both recorded by `plan`), never on the number \
of tasks, the engine that runs them or their order; a task run twice writes the same bytes. \
Every step checks what it is given and refuses, in one line with exit 1, an input changed since \
the plan, a second plan in the same DIR, part files of another run, a gather task count other \
than the first gather task's, and a DIR/shard that is another user's or writable by others.\n\n\
Examples:\n  \
fairdeal shard plan --seed 42 --out run big-*.jsonl\n  \
for i in 0 1 2 3; do fairdeal shard scatter --out run --task $i --tasks 4; done\n  \
for j in 0 1 2 3; do fairdeal shard gather --out run --task $j --tasks 4; done\n  \
fairdeal shard verify run big-*.jsonl\n\n\
cluster/parallel-shuffle.sh and cluster/slurm-shuffle.sh run these steps with GNU parallel \
and Slurm job arrays.";

/// Arguments of `fairdeal shard`.
#[derive(Debug, Parser)]
#[command(after_help = AFTER_HELP)]
pub(crate) struct Args {
    #[command(subcommand)]
    command: Step,
}

#[derive(Debug, Subcommand)]
enum Step {
    /// Record the inputs, chunks, bucket count and seed of a run in DIR/shard/run.json.
    Plan(PlanArgs),
    /// Run scatter task I of P: label its share of the chunks and spill them by bucket.
    Scatter(TaskArgs),
    /// Run gather task J of P: shuffle its share of the buckets into DIR/part-NNNNN.
    Gather(TaskArgs),
    /// Check that DIR's parts hold exactly the lines of FILE...: nothing lost or duplicated
    /// (exit 1 otherwise).
    Verify(VerifyArgs),
}

#[derive(Debug, clap::Args)]
#[command(mut_arg("seed", |a| a.help(
    "Seed of the run; without it one is drawn from the OS and recorded in the manifest"
)))]
#[command(mut_arg("algo", |a| a.hide(true)), mut_arg("backend", |a| a.hide(true)))]
struct PlanArgs {
    /// The run directory (created): parts, manifests and spill files go here.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// `--seed` (`--algo` and `--backend` are refused: the labels are always drawn by the
    /// default backend through the `Lemire` sampler).
    #[command(flatten)]
    random: RandomArgs,
    /// Buckets, hence part files; a gather task holds one bucket in memory [default: one per
    /// GiB of input, computed from the input size alone].
    #[arg(long, value_name = "N", value_parser = count_parser(1, u64::from(MAX_BUCKETS)))]
    buckets: Option<u64>,
    /// Input bytes per chunk, the unit of a scatter task's work and memory (it changes the
    /// output for a --seed) [default: 64M].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    chunk_size: Option<MemoryBudget>,
    /// Records end with NUL, not newline.
    #[arg(short = 'z', long)]
    zero_terminated: bool,
    /// Print the run manifest as JSON.
    #[arg(long)]
    json: bool,
    /// Input files (regular files: they are read at known offsets).
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct TaskArgs {
    /// The run directory given to `plan`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// This task's index, from 0 (e.g. $SLURM_ARRAY_TASK_ID, or {} in GNU parallel).
    #[arg(long, value_name = "I", value_parser = count_parser(0, MAX_TASKS - 1))]
    task: u64,
    /// The number of tasks of this phase.
    #[arg(long, value_name = "P", value_parser = count_parser(1, MAX_TASKS))]
    tasks: u64,
    /// Memory for one chunk (scatter) or one bucket (gather): bytes plus 24 per line
    /// (scatter) or 16 (gather) [default: a quarter of physical memory, or of the cgroup's
    /// memory limit or `ulimit -v`/`-d` when lower].
    #[arg(long, value_name = "SIZE", value_parser = parse_memory)]
    memory: Option<MemoryBudget>,
    /// Worker threads of the in-memory shuffle of a bucket [default: all cores]; the output is
    /// the same for any number.
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    threads: Option<NonZeroUsize>,
    /// Print what the task did as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
struct VerifyArgs {
    /// The run directory.
    #[arg(value_name = "DIR")]
    dir: PathBuf,
    /// The inputs of the run.
    #[arg(value_name = "FILE", required = true)]
    files: Vec<PathBuf>,
    /// Records end with NUL, not newline.
    #[arg(short = 'z', long)]
    zero_terminated: bool,
    /// Print the comparison as JSON.
    #[arg(long)]
    json: bool,
}

/// A library error as the CLI reports it: parameters out of range are usage errors (exit 2).
fn cli_error(err: ShardError) -> anyhow::Error {
    match err {
        ShardError::Invalid(message) => usage(message),
        other => other.into(),
    }
}

/// Runs `fairdeal shard`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        Step::Plan(args) => plan(&args),
        Step::Scatter(args) => task(&args, "scatter"),
        Step::Gather(args) => task(&args, "gather"),
        Step::Verify(args) => verify(&args),
    }
}

fn plan(args: &PlanArgs) -> anyhow::Result<()> {
    let fixed: Vec<&str> = args
        .random
        .given()
        .into_iter()
        .filter(|flag| *flag != "--seed")
        .collect();
    if !fixed.is_empty() {
        return Err(usage(format!(
            "{} do not apply to `shard plan`: its labels are always drawn by {} through the \
             Lemire sampler",
            fixed.join(", "),
            fairdeal::rng::DEFAULT_BACKEND
        )));
    }
    let seed = match args.random.seed {
        Some(seed) => seed,
        None => fairdeal::rng::DefaultBackend::from_os()
            .context("cannot seed the generator from the operating system")?
            .next_u64(),
    };
    let config = PlanConfig {
        seed,
        generator: fairdeal::rng::DEFAULT_BACKEND.to_string(),
        separator: if args.zero_terminated { 0 } else { b'\n' },
        chunk_bytes: args
            .chunk_size
            .map_or(DEFAULT_CHUNK_BYTES, MemoryBudget::bytes),
        buckets: args.buckets.map(|b| b as u32),
    };
    let dir = RunDir::new(&args.out);
    let run = shard::plan(&dir, &args.files, &config).map_err(cli_error)?;
    if args.json {
        return print_json(&run);
    }
    let mut out = stdout();
    writeln!(
        out,
        "planned {} bytes in {} chunks and {} buckets, seed {}: {}",
        run.total_bytes,
        run.chunks,
        run.buckets,
        run.seed,
        dir.run_manifest().display()
    )?;
    out.flush()?;
    Ok(())
}

fn task(args: &TaskArgs, step: &str) -> anyhow::Result<()> {
    if args.task >= args.tasks {
        return Err(usage(format!(
            "--task must be below --tasks ({}), got {}",
            args.tasks, args.task
        )));
    }
    let dir = RunDir::new(&args.out);
    let run = dir.load().map_err(cli_error)?;
    if run.generator != fairdeal::rng::DEFAULT_BACKEND {
        anyhow::bail!(
            "the run was planned with generator '{}', this fairdeal has '{}'",
            run.generator,
            fairdeal::rng::DEFAULT_BACKEND
        );
    }
    let budget = args
        .memory
        .unwrap_or_else(|| MemoryBudget::default_for(fairdeal_external::memory_limit()));
    let summary = if step == "scatter" {
        shard::scatter::<ShardRng>(&dir, args.task, args.tasks, budget)
    } else {
        // The workers share the address space with the buckets the gather holds.
        thread_pool_for(args.threads, budget.bytes())?
            .install(|| shard::gather::<ShardRng>(&dir, args.task, args.tasks, budget))
    }
    .map_err(cli_error)?;
    if args.json {
        return print_json(&summary);
    }
    let mut out = stdout();
    let units = if step == "scatter" {
        plural(summary.units, "chunk", "chunks")
    } else {
        plural(summary.units, "bucket", "buckets")
    };
    writeln!(
        out,
        "{step} task {} of {}: {units}, {} lines, {} bytes read, {} bytes written",
        args.task, args.tasks, summary.lines, summary.bytes_read, summary.bytes_written
    )?;
    out.flush()?;
    Ok(())
}

fn verify(args: &VerifyArgs) -> anyhow::Result<()> {
    let separator = if args.zero_terminated { 0 } else { b'\n' };
    let report =
        shard::verify(&RunDir::new(&args.dir), &args.files, separator).map_err(cli_error)?;
    if args.json {
        print_json(&report)?;
    } else if report.ok {
        let mut out = stdout();
        writeln!(
            out,
            "ok: {} parts hold the {} lines ({} bytes) of the input, checksum {}",
            report.parts, report.input_lines, report.input_bytes, report.output_checksum
        )?;
        out.flush()?;
    }
    if report.ok {
        Ok(())
    } else {
        anyhow::bail!(
            "'{}' does not match its input: {}",
            args.dir.display(),
            report.problems.join("; ")
        )
    }
}
