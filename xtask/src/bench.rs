//! `cargo xtask bench`: run the benchmarks, judge the slopes, write the report.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result, bail};
use fairdeal::AlgorithmInfo;
use regex::Regex;

use crate::model::{CASE_DEAL, CASE_DECK, CASE_SHUFFLE, GenericWall, Metric, Sample};
use crate::report::{self, Comparison, ReportContext};
use crate::verdict::{self, Verdict};
use crate::{catalogue, criterion, iai, plot, targets};

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
        match ensure_runner(&env, args.no_install) {
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
    }
    let algorithms = catalogue::algorithms();
    let claims: Vec<(&str, fairdeal::Complexity)> =
        algorithms.iter().map(|a| (a.name, a.complexity)).collect();
    let verdicts = verdict::all_verdicts(&samples, &claims);
    let comparisons = report::comparisons(&samples, algorithms);
    let target_rows = targets::rows(&samples, &targets::target_backends());
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

    let plots = write_plots(&report_dir, &samples, &comparisons, algorithms)?;
    let command = command_line(args);
    let ctx = ReportContext {
        command: &command,
        machine: &machine(),
        started: &started_wall,
        elapsed_secs: t0.elapsed().as_secs_f64(),
        plots: &plots,
        notes: &notes,
        targets: &target_rows,
        baseline: baseline_diff.as_ref(),
    };
    let md = report::markdown(&ctx, &verdicts, &comparisons, &samples, &generic);
    std::fs::write(report_dir.join("report.md"), md)?;
    let summary = report::summary_json(&verdicts, &comparisons, &target_rows, &samples);
    std::fs::write(
        report_dir.join("summary.json"),
        serde_json::to_string_pretty(&summary)? + "\n",
    )?;

    println!("\n{}", report::verdict_table_text(&verdicts));
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

fn fairdeal_benches_quick_env() -> &'static str {
    // Kept in sync with `fairdeal_benches::QUICK_ENV` (the xtask does not link the bench crate).
    "FAIRDEAL_BENCH_QUICK"
}

fn phase(msg: &str) {
    eprintln!("xtask: == {msg}");
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

fn check_valgrind() -> Result<String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .context("cannot run `valgrind --version`")?;
    if !out.status.success() {
        bail!("`valgrind --version` failed");
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The version of a package recorded in `Cargo.lock`.
pub(crate) fn locked_version(lock: &str, package: &str) -> Option<String> {
    let mut name_matches = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name_matches = false;
        } else if let Some(name) = line.strip_prefix("name = ") {
            name_matches = name.trim_matches('"') == package;
        } else if let Some(v) = line.strip_prefix("version = ")
            && name_matches
        {
            return Some(v.trim_matches('"').to_owned());
        }
    }
    None
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// The version of an `iai-callgrind-runner` binary.
///
/// The runner has no `--version` flag (0.16 exits 1 without output); run without arguments it
/// fails with a message naming its version, which [`parse_runner_version`] reads.
fn runner_version(path: &Path) -> Option<String> {
    let out = Command::new(path).output().ok()?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_runner_version(&text)
}

/// Finds `iai-callgrind-runner … X.Y.Z` (e.g. "Detected version of iai-callgrind-runner is
/// 0.16.1", "iai-callgrind-runner (0.16.1)") in the runner's output.
pub(crate) fn parse_runner_version(text: &str) -> Option<String> {
    let re = Regex::new(r"iai-callgrind-runner\D{0,8}?(\d+\.\d+\.\d+)").expect("valid regex");
    re.captures(text).map(|c| c[1].to_owned())
}

/// Finds `iai-callgrind-runner` at the version of the `iai-callgrind` library in `Cargo.lock`,
/// installing it with `cargo install --locked` when missing or mismatched (unless `no_install`).
fn ensure_runner(env: &Env, no_install: bool) -> Result<PathBuf> {
    let lock_path = env.root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .with_context(|| format!("reading {}", lock_path.display()))?;
    let want = locked_version(&lock, "iai-callgrind").context(
        "Cargo.lock has no iai-callgrind package (is fairdeal-benches in the workspace?)",
    )?;
    let exe = format!("iai-callgrind-runner{}", std::env::consts::EXE_SUFFIX);
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("IAI_CALLGRIND_RUNNER") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join(&exe)));
    }
    let installed = cargo_home().join("bin").join(&exe);
    candidates.push(installed.clone());
    let mut seen = Vec::new();
    for c in candidates.iter().filter(|c| c.is_file()) {
        match runner_version(c) {
            Some(v) if v == want => {
                eprintln!("xtask: using {} {v}", c.display());
                return Ok(c.clone());
            }
            Some(v) => seen.push(format!("{} is version {v}", c.display())),
            None => seen.push(format!("{} does not report a version", c.display())),
        }
    }
    let why = if seen.is_empty() {
        "is not installed".to_owned()
    } else {
        format!("does not match ({})", seen.join("; "))
    };
    if no_install {
        bail!(
            "iai-callgrind-runner {want} (the version of the iai-callgrind library in Cargo.lock) {why}, \
             and --no-install was given; install it with `cargo install iai-callgrind-runner --version {want} --locked`"
        );
    }
    phase(&format!(
        "iai-callgrind-runner {want} {why}: installing it with `cargo install iai-callgrind-runner \
         --version {want} --locked` into {}. It is the program that runs each instruction-count \
         benchmark under valgrind and must match the library version exactly. Compiling it takes a \
         few minutes (once).",
        installed.parent().unwrap_or(Path::new(".")).display()
    ));
    let mut install = Command::new(&env.cargo);
    install.current_dir(&env.root).args([
        "install",
        "iai-callgrind-runner",
        "--version",
        &want,
        "--locked",
    ]);
    run_plain(install).context("cargo install iai-callgrind-runner failed")?;
    match runner_version(&installed) {
        Some(v) if v == want => Ok(installed),
        other => bail!(
            "after installing, {} reports version {:?}, expected {want}",
            installed.display(),
            other
        ),
    }
}

fn output_text(mut cmd: Command) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .context("cannot start cargo")?;
    if !out.status.success() {
        bail!("{:?} exited with {}", cmd.get_program(), out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn run_plain(mut cmd: Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{:?} exited with {status}", cmd.get_program());
    }
    Ok(())
}

/// Runs `cmd`, saving all its output to `log`, and shows progress: an indicatif bar when stderr
/// is a terminal, otherwise a line every 10 % (or every minute). A line for which `done`
/// returns true counts as one finished benchmark. On failure the log's tail is printed.
fn run_streaming(
    mut cmd: Command,
    log: &Path,
    label: &str,
    total: Option<u64>,
    done: &(dyn Fn(&str) -> bool + Sync),
) -> Result<()> {
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let file = Arc::new(Mutex::new(file));
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let count = Arc::new(Mutex::new(0u64));
    let t0 = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let bar = tty.then(|| {
        let bar = match total {
            Some(t) => indicatif::ProgressBar::new(t),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} (eta {eta})",
            )
            .expect("valid template"),
        );
        bar.set_prefix(label.to_owned());
        bar
    });
    let last_report = Arc::new(Mutex::new((Instant::now(), 0u64)));
    let handle_line = |line: &str| {
        if let Ok(mut f) = file.lock() {
            let _ = writeln!(f, "{line}");
        }
        if done(line) {
            let mut c = count.lock().expect("not poisoned");
            *c += 1;
            if let Some(bar) = &bar {
                bar.set_position(*c);
            } else {
                let mut last = last_report.lock().expect("not poisoned");
                let step = total.map_or(25, |t| (t / 10).max(1));
                if *c - last.1 >= step || last.0.elapsed() > Duration::from_secs(60) {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    eprintln!(
                        "xtask: {label}: {}{of} done ({:.0} s)",
                        *c,
                        t0.elapsed().as_secs_f64()
                    );
                    *last = (Instant::now(), *c);
                }
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                handle_line(&line);
            }
        });
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            handle_line(&line);
        }
    });
    let status = child.wait()?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let n = *count.lock().expect("not poisoned");
    eprintln!(
        "xtask: {label}: {n} benchmarks in {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        for l in tail.into_iter().rev() {
            eprintln!("  | {l}");
        }
        bail!(
            "{:?} exited with {status} (full log: {})",
            cmd.get_program(),
            log.display()
        );
    }
    Ok(())
}

fn write_plots(
    dir: &Path,
    samples: &[Sample],
    comparisons: &[Comparison],
    algorithms: &[AlgorithmInfo],
) -> Result<Vec<(String, String)>> {
    // Remove plots of earlier runs so the directory only holds this run's figures.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "svg") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let mut made = Vec::new();
    let series_of = |metric: Metric,
                     pick: &dyn Fn(&Sample) -> Option<String>,
                     scale: f64|
     -> Vec<plot::Series> {
        let mut map: std::collections::BTreeMap<String, Vec<(f64, f64)>> = Default::default();
        for s in samples
            .iter()
            .filter(|s| s.metric == metric && s.case == CASE_SHUFFLE)
        {
            if let Some(key) = pick(s) {
                map.entry(key)
                    .or_default()
                    .push((s.n as f64, s.value * scale));
            }
        }
        map.into_iter().collect()
    };
    for a in algorithms {
        for (metric, unit, scale) in [
            (Metric::Instructions, "instructions per shuffle", 1.0),
            (Metric::WallNs, "median time per shuffle (ns)", 1.0),
        ] {
            let s = series_of(
                metric,
                &|s: &Sample| (s.subject == a.name).then(|| s.backend.clone()),
                scale,
            );
            let file = format!("cost-{}-{}.svg", a.name, metric.name());
            let title = format!(
                "{} ({}): {} vs N, one line per backend",
                a.name,
                a.complexity.notation(),
                metric.name()
            );
            if plot::loglog(&dir.join(&file), &title, unit, &s)? {
                made.push((file, title));
            }
        }
    }
    let default = catalogue::default_backend();
    let ours: BTreeSet<&str> = algorithms.iter().map(|a| a.name).collect();
    let s = series_of(
        Metric::WallNs,
        &|s: &Sample| {
            (s.backend == default && ours.contains(s.subject.as_str())).then(|| s.subject.clone())
        },
        1000.0 / 1e6,
    );
    let title = format!(
        "Time taken for 1000 shuffles ({default}): naive O(N²) vs Fisher-Yates and the others"
    );
    if plot::loglog(
        &dir.join("time-1000-shuffles.svg"),
        &title,
        "ms for 1000 shuffles",
        &s,
    )? {
        made.push(("time-1000-shuffles.svg".to_owned(), title));
    }
    let s = series_of(
        Metric::Instructions,
        &|s: &Sample| {
            (s.backend == default && ours.contains(s.subject.as_str())).then(|| s.subject.clone())
        },
        1.0,
    );
    let title = format!("Instructions per shuffle ({default}), every algorithm");
    if plot::loglog(
        &dir.join("instructions-by-algorithm.svg"),
        &title,
        "instructions per shuffle",
        &s,
    )? {
        made.push(("instructions-by-algorithm.svg".to_owned(), title));
    }

    // ns/element per backend and subject at the comparison sizes.
    let mut points: BTreeSet<(String, u64)> = BTreeSet::new();
    for c in comparisons {
        points.insert((c.case.clone(), c.n));
    }
    for (case, n) in points {
        if case == CASE_DEAL {
            continue; // per-card cost of a deal is in the report table
        }
        let here: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.metric == Metric::WallNs && s.case == case && s.n == n)
            .collect();
        let backends: Vec<String> = here
            .iter()
            .map(|s| s.backend.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let subjects: BTreeSet<&str> = here.iter().map(|s| s.subject.as_str()).collect();
        let series: Vec<(String, Vec<(usize, f64)>)> = subjects
            .iter()
            .map(|subj| {
                let pts = here
                    .iter()
                    .filter(|s| s.subject == *subj)
                    .filter_map(|s| {
                        backends
                            .iter()
                            .position(|b| *b == s.backend)
                            .map(|i| (i, s.value / n as f64))
                    })
                    .collect();
                ((*subj).to_owned(), pts)
            })
            .collect();
        let file = format!("ns-per-element-{case}-{n}.svg");
        let what = if case == CASE_DECK {
            "52-card deck ([u8; 52])".to_owned()
        } else {
            format!("Vec<u32>, N = {n}")
        };
        let title = format!("ns per element, {what}: each backend, ours and peers");
        if plot::dots(
            &dir.join(&file),
            &title,
            "ns / element (median)",
            &backends,
            &series,
        )? {
            made.push((file, title));
        }
    }
    Ok(made)
}

fn print_comparison_digest(comparisons: &[Comparison]) {
    // The headline algorithm per case: partial (O(k)) for dealing, inplace otherwise.
    let lead = |case: &str| {
        if case == CASE_DEAL {
            "partial"
        } else {
            "inplace"
        }
    };
    let picked: Vec<&Comparison> = comparisons
        .iter()
        .filter(|c| c.ours == lead(&c.case) && c.backend == catalogue::default_backend())
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
    s
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let rustc = Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{cpu}, {cores} logical cores available, {rustc}")
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
    fn reads_the_locked_version() {
        let lock = "[[package]]\nname = \"iai-callgrind-macros\"\nversion = \"0.6.1\"\n\n[[package]]\nname = \"iai-callgrind\"\nversion = \"0.16.1\"\nsource = \"registry\"\n";
        assert_eq!(
            locked_version(lock, "iai-callgrind").as_deref(),
            Some("0.16.1")
        );
        assert_eq!(
            locked_version(lock, "iai-callgrind-macros").as_deref(),
            Some("0.6.1")
        );
        assert_eq!(locked_version(lock, "criterion"), None);
    }

    #[test]
    fn reads_the_runner_version_from_its_error_message() {
        // What iai-callgrind-runner 0.16.1 prints when run without arguments.
        let msg = "iai_callgrind_runner: Error: Failed to initialize iai-callgrind-runner: \
                   Unexpected number of arguments\n\nDetected version of iai-callgrind-runner is \
                   0.16.1. This error can be caused by a version mismatch";
        assert_eq!(parse_runner_version(msg).as_deref(), Some("0.16.1"));
        let other = "No version information found for iai-callgrind but iai-callgrind-runner \
                     (0.15.2) is >= '0.3.0'";
        assert_eq!(parse_runner_version(other).as_deref(), Some("0.15.2"));
        assert_eq!(parse_runner_version("command not found"), None);
    }

    #[test]
    fn counts_each_criterion_benchmark_once() {
        let re = Regex::new(CRITERION_DONE).unwrap();
        assert!(re.is_match("                        time:   [4.3732 µs 4.8876 µs 5.4206 µs]"));
        assert!(
            !re.is_match("                        time:   [-3.1% +1.2% +5.0%] (p = 0.62 > 0.05)")
        );
    }

    #[test]
    fn dates_are_civil() {
        let s = chrono_like_now();
        assert!(s.ends_with(" UTC") && s.len() == 23, "{s}");
    }
}
