//! `cargo xtask bench`: run the benchmarks, judge the slopes, write the report.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use regex::Regex;

use crate::duel;
use crate::figures::{write_duel_plots, write_plots};
use crate::machine::Machine;
use crate::model::{GenericWall, Metric, Sample};
use crate::process::{output_text, phase, run_plain, run_streaming};
use crate::report::{self, Comparison, ReportContext};
use crate::tools::{check_valgrind, ensure_runner};
use crate::verdict::{self, Verdict};
use crate::{catalogue, criterion, iai, targets};

/// Options of `cargo xtask bench` (see `cargo xtask bench --help`).
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct BenchArgs {
    /// Few sizes and short measurements (~5 minutes after the build on 2 cores); the
    /// instruction-count matrix is still complete, so every verdict is still produced.
    #[arg(long)]
    pub(crate) quick: bool,
    /// Only run/report benchmarks whose id matches this regex. Ids look like
    /// `shuffle_u32/pcg64/inplace/1024`, `deck52/wyrand/fastrand-shuffle/52`,
    /// `deal7_of_52/chacha12/partial/52`. Criterion skips the others; the instruction-count
    /// benchmarks always run in full and are filtered when reported.
    #[arg(long, value_name = "REGEX")]
    pub(crate) filter: Option<String>,
    /// Only the criterion wall-clock benchmarks (no valgrind needed; no failing verdicts).
    #[arg(long, conflicts_with = "instructions_only")]
    pub(crate) wall_only: bool,
    /// Only the iai-callgrind instruction counts (the CI gate); fails if valgrind or the
    /// runner is unavailable.
    #[arg(long)]
    pub(crate) instructions_only: bool,
    /// Never run `cargo install iai-callgrind-runner`; without a matching runner, instruction
    /// counts are skipped (or, with --instructions-only, the command fails).
    #[arg(long)]
    pub(crate) no_install: bool,
    /// Compare this run's instruction counts with those of an earlier run's `summary.json`
    /// (copy `<target>/bench-report/summary.json` away first): prints the change per algorithm
    /// × backend at the largest N and lists every point in report.md. Informational.
    #[arg(long, value_name = "SUMMARY_JSON")]
    pub(crate) baseline: Option<PathBuf>,
    /// Only the duels (about 1.5 min; 30 s with --quick): ours against rand's and fastrand's
    /// shuffles, and the 7-card deal against a full deck shuffle, alternated round by round in
    /// one process on the same buffer with the same generator type (rand's own for chacha12).
    /// Prints the duels and the
    /// targets table read from them, and writes `<target>/bench-report/duels.{json,md}`. No
    /// criterion, no valgrind. (A wall-clock run also runs the duels for its targets table.)
    #[arg(long, conflicts_with_all = ["wall_only", "instructions_only", "baseline"])]
    pub(crate) duel: bool,
    /// With --duel: run the duels this many times and read each at the host's fastest state,
    /// for a shared machine whose slower states read our lead too high: of the runs within 10 %
    /// of the duel's fastest (ours + peer time per call), the one with the median ratio.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "duel",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub(crate) runs: u32,
}

struct Env {
    cargo: OsString,
    root: PathBuf,
    target: PathBuf,
    bench_targets: Vec<String>,
}

pub(crate) fn run(args: &BenchArgs) -> Result<ExitCode> {
    let started_wall = chrono_like_now();
    let t0 = Instant::now();
    let filter = args
        .filter
        .as_deref()
        .map(|f| Regex::new(f).with_context(|| format!("--filter {f:?} is not a valid regex")))
        .transpose()?;
    // Read the baseline first: a bad path should not cost a benchmark run.
    let baseline = args
        .baseline
        .as_deref()
        .map(|p| crate::baseline::read(p).map(|samples| (p.display().to_string(), samples)))
        .transpose()?;
    let env = discover()?;
    if args.duel {
        phase("duels only: ours and each peer alternated round by round");
        return duels_only(&env, args, filter.as_ref());
    }
    let mut notes = Vec::new();
    let mut want_instructions = !args.wall_only;
    let want_wall = !args.instructions_only;

    // --- instruction counts need valgrind and a runner matching the library -------------------
    let mut runner = None;
    if want_instructions {
        match check_valgrind() {
            Ok(v) => eprintln!("xtask: found {v}"),
            Err(e) => {
                let msg = format!(
                    "valgrind is not available ({e:#}); instruction counts need it. Install it with \
                     your package manager, e.g. `sudo apt-get install valgrind` (Debian/Ubuntu), \
                     `sudo dnf install valgrind` (Fedora) or `brew install valgrind` (Linux only)."
                );
                if args.instructions_only {
                    bail!("{msg}");
                }
                eprintln!("xtask: warning: {msg}\nxtask: continuing with wall clock only.");
                notes.push(
                    "valgrind missing: no instruction counts, no verdicts that can fail".to_owned(),
                );
                want_instructions = false;
            }
        }
    }
    if want_instructions {
        match ensure_runner(&env.cargo, &env.root, args.no_install) {
            Ok(path) => runner = Some(path),
            Err(e) if !args.instructions_only => {
                eprintln!("xtask: warning: {e:#}\nxtask: continuing with wall clock only.");
                notes.push(format!("no instruction counts: {e:#}"));
                want_instructions = false;
            }
            Err(e) => return Err(e),
        }
    }

    // --- build first, so the timed phases below are pure measurement ------------------------
    phase("building the benchmarks (cargo bench --no-run)");
    let mut build = cargo(&env);
    build.args(["bench", "-p", "fairdeal-benches", "--no-run"]);
    if want_instructions {
        build.args(["--features", "iai", "--bench", "iai"]);
    }
    if want_wall {
        for t in env.bench_targets.iter().filter(|t| *t != "iai") {
            build.args(["--bench", t.as_str()]);
        }
    }
    run_plain(build).context("building the benchmarks failed")?;

    let since = SystemTime::now()
        .checked_sub(Duration::from_secs(1))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    let report_dir = env.target.join("bench-report");
    std::fs::create_dir_all(&report_dir)
        .with_context(|| format!("creating {}", report_dir.display()))?;

    // --- wall clock ------------------------------------------------------------------------
    let mut samples: Vec<Sample> = Vec::new();
    let mut generic: Vec<GenericWall> = Vec::new();
    let mut duels: Vec<duel::Duel> = Vec::new();
    if want_wall {
        let wall_targets: Vec<&String> = env.bench_targets.iter().filter(|t| *t != "iai").collect();
        let mut list = cargo(&env);
        list.args(["bench", "-p", "fairdeal-benches"]);
        if want_instructions {
            list.args(["--features", "iai"]);
        }
        for t in &wall_targets {
            list.args(["--bench", t.as_str()]);
        }
        let mut runcmd = Command::new(list.get_program());
        runcmd.current_dir(&env.root).args(list.get_args());
        list.args(["--", "--list"]);
        runcmd.arg("--");
        if let Some(f) = &args.filter {
            list.arg(f);
            runcmd.arg(f);
        }
        if args.quick {
            list.env(fairdeal_benches_quick_env(), "1");
            runcmd.env(fairdeal_benches_quick_env(), "1");
        }
        let listed = output_text(list).context("listing the criterion benchmarks")?;
        let total = listed
            .lines()
            .filter(|l| l.ends_with(": benchmark"))
            .count() as u64;
        phase(&format!(
            "wall clock: {total} criterion benchmarks{} (log: {})",
            if args.quick { " in quick mode" } else { "" },
            report_dir.join("criterion.log").display()
        ));
        let done = Regex::new(CRITERION_DONE).expect("valid regex");
        run_streaming(
            runcmd,
            &report_dir.join("criterion.log"),
            "wall clock",
            Some(total),
            &|l| done.is_match(l),
        )
        .context("the criterion benchmarks failed")?;
        for p in criterion::collect(&env.target.join("criterion"), Some(since))? {
            match p {
                criterion::Parsed::Matrix(s) => samples.push(s),
                criterion::Parsed::Other(g) => generic.push(g),
            }
        }
        phase("duels: ours and each peer alternated round by round (the targets table)");
        duels = duel::run(&env.cargo, &env.root, args.quick).context("the duels failed")?;
    }

    // --- instruction counts ------------------------------------------------------------------
    if want_instructions {
        let mut cmd = cargo(&env);
        cmd.args([
            "bench",
            "-p",
            "fairdeal-benches",
            "--features",
            "iai",
            "--bench",
            "iai",
            "--",
            "--save-summary=json",
        ]);
        if let Some(r) = &runner {
            cmd.env("IAI_CALLGRIND_RUNNER", r);
        }
        // benches/iai.rs measures 3 sizes per algorithm × backend, plus the reference path
        // `inplace-lemire`.
        let expected =
            ((catalogue::algorithms().len() + 1) * catalogue::backends().len() * 3) as u64;
        phase(&format!(
            "instruction counts: {expected} callgrind runs expected, one process each (log: {})",
            report_dir.join("iai.log").display()
        ));
        let done = Regex::new(r"^\s*Instructions:").expect("valid regex");
        run_streaming(
            cmd,
            &report_dir.join("iai.log"),
            "instructions",
            Some(expected),
            &|l| done.is_match(l),
        )
        .context("the iai-callgrind benchmarks failed")?;
        samples.extend(iai::collect(&env.target.join("iai"), Some(since))?);
    }

    // --- analysis ----------------------------------------------------------------------------
    if let Some(re) = &filter {
        samples.retain(|s| re.is_match(&format!("{}/{}/{}/{}", s.case, s.backend, s.subject, s.n)));
        generic.retain(|g| re.is_match(&g.id));
        duels.retain(|d| re.is_match(&d.id()));
    }
    let algorithms = catalogue::algorithms();
    let claims: Vec<(&str, fairdeal::Complexity)> =
        algorithms.iter().map(|a| (a.name, a.complexity)).collect();
    let verdicts = verdict::all_verdicts(&samples, &claims);
    let comparisons = report::comparisons(&samples, algorithms);
    let target_rows = targets::rows(&samples, &duels);
    let baseline_diff = baseline
        .as_ref()
        .map(|(source, before)| crate::baseline::diff(source, before, &samples));

    let mut missing = Vec::new();
    if want_instructions && filter.is_none() {
        for a in algorithms {
            for b in catalogue::backends() {
                if !verdicts.iter().any(|v| {
                    v.metric == Metric::Instructions && v.algorithm == a.name && v.backend == b
                }) {
                    missing.push(format!("{}/{}", a.name, b));
                }
            }
        }
    }
    let instruction_verdicts = verdicts
        .iter()
        .filter(|v| v.metric == Metric::Instructions)
        .count();
    if want_instructions && instruction_verdicts == 0 {
        missing.push("every algorithm (no instruction counts were parsed)".to_owned());
    }

    let plots = write_plots(&report_dir, &samples, &duels, algorithms)?;
    let command = command_line(args);
    let machine = Machine::detect();
    let machine_line = machine.line();
    let ctx = ReportContext {
        command: &command,
        machine: &machine_line,
        started: &started_wall,
        elapsed_secs: t0.elapsed().as_secs_f64(),
        plots: &plots,
        notes: &notes,
        targets: &target_rows,
        baseline: baseline_diff.as_ref(),
    };
    let mut md = report::markdown(&ctx, &verdicts, &comparisons, &samples, &generic);
    let battery = crate::quality::config(args.quick);
    md.push_str(&crate::quality::markdown(
        &battery,
        &crate::quality::run(&battery)?,
    ));
    std::fs::write(report_dir.join("report.md"), md)?;
    let mut summary = report::summary_json(&verdicts, &comparisons, &target_rows, &samples);
    summary["command"] = command.clone().into();
    summary["started"] = started_wall.clone().into();
    summary["machine"] = machine.json();
    std::fs::write(
        report_dir.join("summary.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;

    println!("\nmachine: {machine_line}");
    println!("{}", report::verdict_table_text(&verdicts));
    print_comparison_digest(&comparisons);
    if !target_rows.is_empty() {
        println!("{}", targets::text(&target_rows));
    }
    if let Some(d) = &baseline_diff {
        println!("{}", d.text());
    }
    println!(
        "report: {}\n        {}\n        {} plots in {}",
        report_dir.join("report.md").display(),
        report_dir.join("summary.json").display(),
        plots.len(),
        report_dir.display()
    );
    println!("took {:.0} s", t0.elapsed().as_secs_f64());

    let failed: Vec<&Verdict> = verdicts.iter().filter(|v| v.fails_run()).collect();
    if !missing.is_empty() {
        eprintln!(
            "xtask: error: no instruction-count verdict for: {}",
            missing.join(", ")
        );
    }
    for v in &failed {
        eprintln!("xtask: error: {}", v.explain());
    }
    if failed.is_empty() && missing.is_empty() {
        if want_instructions {
            println!("all {instruction_verdicts} instruction verdicts pass");
        } else {
            println!("no instruction counts measured: wall-clock slopes are informational only");
        }
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::FAILURE)
    }
}

/// Criterion prints one `time: [low median high]` line per finished benchmark; the
/// `time: [-1.2% …]` line of a comparison with the previous run carries percentages and is not
/// counted.
const CRITERION_DONE: &str = r"^\s*time:\s+\[[^%]*\]\s*$";

/// The variable that puts the benches in quick mode: `fairdeal_benches::QUICK_ENV` (the xtask
/// does not link the bench crate; the tidy test `quick_mode_variable_is_the_bench_crates` keeps
/// the two equal).
pub(crate) fn fairdeal_benches_quick_env() -> &'static str {
    "FAIRDEAL_BENCH_QUICK"
}

fn cargo(env: &Env) -> Command {
    let mut c = Command::new(&env.cargo);
    c.current_dir(&env.root);
    c
}

/// Finds cargo (the `CARGO` variable cargo sets for `cargo run`), the workspace root, the target
/// directory (honouring `CARGO_TARGET_DIR` and config, through `cargo metadata`) and the bench
/// targets of `fairdeal-benches`.
fn discover() -> Result<Env> {
    let cargo_bin = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask has no parent directory")?
        .to_path_buf();
    let mut meta = Command::new(&cargo_bin);
    meta.current_dir(&root)
        .args(["metadata", "--format-version", "1", "--no-deps"]);
    let text = output_text(meta).context("running cargo metadata")?;
    let json: serde_json::Value = serde_json::from_str(&text).context("parsing cargo metadata")?;
    let target = PathBuf::from(
        json["target_directory"]
            .as_str()
            .context("cargo metadata has no target_directory")?,
    );
    let benches = json["packages"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == "fairdeal-benches"))
        .context("the workspace has no fairdeal-benches package")?;
    let bench_targets = benches["targets"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .filter(|t| {
                    t["kind"]
                        .as_array()
                        .is_some_and(|k| k.iter().any(|k| k == "bench"))
                })
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Ok(Env {
        cargo: cargo_bin,
        root,
        target,
        bench_targets,
    })
}

fn print_comparison_digest(comparisons: &[Comparison]) {
    let picked: Vec<&Comparison> = comparisons
        .iter()
        .filter(|c| {
            c.ours == catalogue::headline(&c.case) && c.backend == catalogue::default_backend()
        })
        .collect();
    if picked.is_empty() {
        return;
    }
    println!(
        "ours vs peers on {} (speedup = peer / ours, above 1: ours faster):",
        catalogue::default_backend()
    );
    for c in picked {
        println!(
            "  {:<12} n={:<8} {:<8} vs {:<22} {:.2}×",
            c.case,
            c.n,
            c.ours,
            c.peer,
            c.speedup()
        );
    }
    println!();
}

fn command_line(args: &BenchArgs) -> String {
    let mut s = String::from("cargo xtask bench");
    if args.quick {
        s.push_str(" --quick");
    }
    if let Some(f) = &args.filter {
        s.push_str(&format!(" --filter '{f}'"));
    }
    if args.wall_only {
        s.push_str(" --wall-only");
    }
    if args.instructions_only {
        s.push_str(" --instructions-only");
    }
    if args.no_install {
        s.push_str(" --no-install");
    }
    if let Some(b) = &args.baseline {
        s.push_str(&format!(" --baseline {}", b.display()));
    }
    if args.duel {
        s.push_str(" --duel");
    }
    if args.runs > 1 {
        s.push_str(&format!(" --runs {}", args.runs));
    }
    s
}

/// `cargo xtask bench --duel`: runs the duels only, prints them and the targets read from them
/// under the machine's record, and writes `<target>/bench-report/duels.json` (the duels, the
/// targets, the machine, its load before and after, the command) and `duels.md` (the targets
/// table and the duel plots).
fn duels_only(env: &Env, args: &BenchArgs, filter: Option<&Regex>) -> Result<ExitCode> {
    let command = command_line(args);
    let started = chrono_like_now();
    let machine = Machine::detect();
    let load_text = |l: Option<f64>| l.map_or_else(|| "unknown".to_owned(), |l| format!("{l:.2}"));
    let load_before = fairdeal::fairness::comparison::load_average();
    let mut duels = if args.runs > 1 {
        let mut runs = Vec::new();
        for i in 1..=args.runs {
            eprintln!("xtask: duel run {i} of {}", args.runs);
            runs.push(duel::run(&env.cargo, &env.root, args.quick)?);
        }
        duel::fastest_state(&runs)
    } else {
        duel::run(&env.cargo, &env.root, args.quick)?
    };
    if let Some(re) = filter {
        duels.retain(|d| re.is_match(&d.id()));
    }
    let load_after = fairdeal::fairness::comparison::load_average();
    let rows = targets::rows(&[], &duels);
    let load = format!(
        "load average {} before, {} after",
        load_text(load_before),
        load_text(load_after)
    );
    println!("\nmachine: {}", machine.line());
    println!("{}", duel::text(&duels));
    println!("{}", targets::text(&rows));
    println!("{load}");

    let dir = env.target.join("bench-report");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let summary = serde_json::json!({
        "command": command,
        "started": started,
        "machine": machine.json(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "duels": duels,
        "targets": targets::json(&rows),
    });
    let json_path = dir.join("duels.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&summary)? + "\n")
        .with_context(|| format!("writing {}", json_path.display()))?;
    let plots = write_duel_plots(&dir, &duels)?;
    let mut md = format!(
        "# Duels\n\n`{command}`, started {started}; {load}.\n\nMachine: {}.\n\n{}",
        machine.line(),
        targets::markdown(&rows)
    );
    for (file, title) in &plots {
        md.push_str(&format!("\n![{title}]({file})\n"));
    }
    let md_path = dir.join("duels.md");
    std::fs::write(&md_path, md).with_context(|| format!("writing {}", md_path.display()))?;
    println!(
        "written: {}\n         {}",
        json_path.display(),
        md_path.display()
    );
    for (file, _) in &plots {
        println!("         {}", dir.join(file).display());
    }
    Ok(ExitCode::SUCCESS)
}

/// UTC time as `YYYY-MM-DD HH:MM:SS UTC` without a date crate.
fn chrono_like_now() -> String {
    let secs = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_each_criterion_benchmark_once() {
        let re = Regex::new(CRITERION_DONE).unwrap();
        assert!(re.is_match("                        time:   [4.3732 µs 4.8876 µs 5.4206 µs]"));
        assert!(
            !re.is_match("                        time:   [-3.1% +1.2% +5.0%] (p = 0.62 > 0.05)")
        );
    }

    /// `command_line` is written by hand next to `BenchArgs`: every option, given alone, must
    /// show up in the command line the report records (so a new option cannot be forgotten).
    #[test]
    fn the_recorded_command_line_names_every_option() {
        use clap::{Args as _, FromArgMatches as _};
        let command = BenchArgs::augment_args(clap::Command::new("bench"));
        let mut checked = 0;
        for arg in command.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let flag = format!("--{long}");
            let mut argv = vec!["bench".to_owned(), flag.clone()];
            if arg.get_action().takes_values() {
                // A count is a number, recorded when above its default of 1.
                let value = if long == "runs" { "3" } else { "some-value" };
                argv.push(value.to_owned());
            }
            if long == "runs" {
                // `--runs` requires `--duel`.
                argv.push("--duel".to_owned());
            }
            let matches = command.clone().try_get_matches_from(&argv).unwrap();
            let args = BenchArgs::from_arg_matches(&matches).unwrap();
            let line = command_line(&args);
            assert!(line.contains(&flag), "{flag} is missing from `{line}`");
            checked += 1;
        }
        assert!(checked >= 6, "only {checked} options found");
        let none = BenchArgs::from_arg_matches(&command.try_get_matches_from(["bench"]).unwrap());
        assert_eq!(command_line(&none.unwrap()), "cargo xtask bench");
    }

    #[test]
    fn dates_are_civil() {
        let s = chrono_like_now();
        assert!(s.ends_with(" UTC") && s.len() == 23, "{s}");
    }
}
