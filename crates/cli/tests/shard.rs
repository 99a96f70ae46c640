//! `fairdeal shard` and the recipes in `cluster/`: the same bytes for any task count and any
//! engine (a plain loop, GNU parallel, Slurm), a permutation of the input, uniform over the
//! orders, safe to retry, and loud about damaged or missing manifests.
//!
//! The GNU parallel and Slurm comparisons skip, with a note, when `parallel` is missing or no
//! Slurm answers (`cluster/slurm-local.sh up` starts one); `.ci/run` installs and starts both
//! and sets `FAIRDEAL_REQUIRE_CLUSTER=1`, which turns a skip into a failure.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, fairdeal, fresh_dir};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../cluster")
        .join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 test path")
}

/// 300,000 numbered lines (about 3.5 MB).
fn big_input(dir: &Path) -> PathBuf {
    let input = dir.join("in.txt");
    let text: String = (0..300_000).map(|i| format!("line {i}\n")).collect();
    fs::write(&input, text).unwrap();
    input
}

/// Options that cut the 3.5 MB input into 54 chunks and 16 buckets, so that every task count
/// below splits both phases.
const PLAN: [&str; 4] = ["--buckets", "16", "--chunk-size", "64K"];

/// The plain-loop runner: plan, every scatter task, every gather task, in the given task
/// orders. Returns the concatenated parts.
fn plain_loop(
    dir: &Path,
    seed: &str,
    tasks: u64,
    reverse: bool,
    plan: &[&str],
    inputs: &[&Path],
) -> Vec<u8> {
    let mut args = vec!["shard", "plan", "--seed", seed, "--out", path(dir)];
    args.extend_from_slice(plan);
    args.push("--");
    args.extend(inputs.iter().map(|p| path(p)));
    fairdeal(&args).ok();
    let order: Vec<u64> = if reverse {
        (0..tasks).rev().collect()
    } else {
        (0..tasks).collect()
    };
    for phase in ["scatter", "gather"] {
        for &t in &order {
            let (t, n) = (t.to_string(), tasks.to_string());
            fairdeal(&[
                "shard",
                phase,
                "--out",
                path(dir),
                "--task",
                &t,
                "--tasks",
                &n,
            ])
            .ok();
        }
    }
    parts(dir)
}

/// The part files of a run, concatenated in name order (after checking that nothing else
/// named `part-*` is there).
fn parts(dir: &Path) -> Vec<u8> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("part-"))
        .collect();
    names.sort();
    for (i, name) in names.iter().enumerate() {
        assert_eq!(name, &format!("part-{i:05}"));
    }
    names
        .iter()
        .flat_map(|n| fs::read(dir.join(n)).unwrap())
        .collect()
}

fn sorted_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    lines.sort_unstable();
    lines
}

/// Whether a cluster tool must be present (CI) rather than skipped when missing.
fn required() -> bool {
    std::env::var_os("FAIRDEAL_REQUIRE_CLUSTER").is_some_and(|v| v == "1")
}

fn skip_or_fail(what: &str) -> bool {
    assert!(
        !required(),
        "{what}, and FAIRDEAL_REQUIRE_CLUSTER=1 requires it"
    );
    eprintln!(
        "note: skipped: {what} (cluster/slurm-local.sh up starts a Slurm; apt-get install parallel)"
    );
    true
}

fn run_script(name: &str, args: &[&str]) {
    let out = Command::new(script(name))
        .args(args)
        .env("FAIRDEAL", BIN)
        .output()
        .expect("run the recipe");
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_plain_loop_gives_the_same_permutation_with_any_task_count_and_order() {
    let dir = fresh_dir("shard-loop");
    let input = big_input(&dir);
    let reference = plain_loop(&dir.join("t1"), "7", 1, false, &PLAN, &[&input]);
    let original = fs::read(&input).unwrap();
    assert_eq!(sorted_lines(&reference), sorted_lines(&original));
    assert_ne!(reference, original, "the output is shuffled");
    for (tasks, reverse) in [(3, true), (8, false), (60, true)] {
        let out = plain_loop(
            &dir.join(format!("t{tasks}")),
            "7",
            tasks,
            reverse,
            &PLAN,
            &[&input],
        );
        assert!(out == reference, "{tasks} tasks gave other bytes");
    }
    // Another seed, another order.
    assert_ne!(
        plain_loop(&dir.join("s8"), "8", 2, false, &PLAN, &[&input]),
        reference
    );
    let verdict = fairdeal(&["shard", "verify", path(&dir.join("t8")), path(&input)]).ok();
    assert!(
        verdict
            .text()
            .starts_with("ok: 16 parts hold the 300000 lines"),
        "{}",
        verdict.text()
    );
}

#[test]
fn gnu_parallel_and_slurm_give_the_plain_loops_bytes() {
    let dir = fresh_dir("shard-engines");
    let input = big_input(&dir);
    let reference = plain_loop(&dir.join("loop"), "11", 2, false, &PLAN, &[&input]);
    let mut compared = 0;
    let has_parallel = Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GNU parallel")
        });
    // One recipe run with `tasks` tasks must write the plain loop's bytes.
    let recipe_gives_the_reference = |script: &str, tasks: &str| {
        let out = dir.join(format!("{script}-{tasks}"));
        let mut args = vec!["--seed", "11", "--tasks", tasks, "--out", path(&out)];
        args.extend_from_slice(&PLAN);
        args.push(path(&input));
        run_script(script, &args);
        assert!(
            parts(&out) == reference,
            "{script} with {tasks} tasks gave other bytes"
        );
    };
    if has_parallel {
        for tasks in ["1", "3", "8"] {
            recipe_gives_the_reference("parallel-shuffle.sh", tasks);
            compared += 1;
        }
    } else {
        skip_or_fail("GNU parallel is not installed");
    }
    let slurm_up = Command::new("sinfo")
        .arg("-h")
        .output()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty());
    if slurm_up {
        recipe_gives_the_reference("slurm-shuffle.sh", "4");
        compared += 1;
    } else {
        skip_or_fail("no Slurm answers (sinfo)");
    }
    eprintln!("compared {compared} engine runs with the plain loop");
}

/// The orders of 4 lines over 600 seeds, through the plain-loop runner with 2 input files
/// (2 chunks), 3 buckets and 2 tasks per phase; `unshuffled` replaces the gather by a
/// concatenation of the buckets without their in-memory shuffle (the negative control).
fn order_counts(name: &str, unshuffled: bool) -> Vec<u64> {
    let dir = fresh_dir(name);
    let (a, b) = (dir.join("a.txt"), dir.join("b.txt"));
    fs::write(&a, "0\n1\n").unwrap();
    fs::write(&b, "2\n3\n").unwrap();
    let mut counts = vec![0u64; 24];
    for seed in 0..600u64 {
        let run = dir.join(format!("run{seed}"));
        let seed = seed.to_string();
        let out = if unshuffled {
            let mut args = vec![
                "shard",
                "plan",
                "--seed",
                &seed,
                "--out",
                path(&run),
                "--buckets",
                "3",
            ];
            args.extend([path(&a), path(&b)]);
            fairdeal(&args).ok();
            for t in ["0", "1"] {
                fairdeal(&[
                    "shard",
                    "scatter",
                    "--out",
                    path(&run),
                    "--task",
                    t,
                    "--tasks",
                    "2",
                ])
                .ok();
            }
            buckets_unshuffled(&run, 2, 3)
        } else {
            plain_loop(&run, &seed, 2, false, &["--buckets", "3"], &[&a, &b])
        };
        let perm: Vec<usize> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        counts[fairdeal_testkit::lehmer_rank(&perm)] += 1;
        fs::remove_dir_all(&run).unwrap();
    }
    counts
}

/// Bucket by bucket, each chunk's range of it, without shuffling: what a gather that forgot
/// its shuffle would write.
fn buckets_unshuffled(run: &Path, chunks: u64, buckets: usize) -> Vec<u8> {
    let spill = run.join("shard/spill");
    let mut ranges: BTreeMap<(usize, u64), Vec<u8>> = BTreeMap::new();
    for c in 0..chunks {
        let manifest: serde_json::Value =
            serde_json::from_slice(&fs::read(spill.join(format!("chunk-{c:09}.json"))).unwrap())
                .unwrap();
        let data = fs::read(spill.join(format!("chunk-{c:09}"))).unwrap();
        let mut at = 0;
        for b in 0..buckets {
            let size = manifest["sizes"][b].as_u64().unwrap() as usize;
            ranges.insert((b, c), data[at..at + size].to_vec());
            at += size;
        }
    }
    ranges.into_values().flatten().collect()
}

#[test]
fn every_order_of_four_lines_is_equally_likely_through_the_recipe() {
    let counts = order_counts("shard-chi2", false);
    let (chi2, p) = fairdeal_testkit::chi_square_uniform(&counts);
    assert!(p > 1e-6, "chi2 {chi2}, p {p}, counts {counts:?}");
}

#[test]
fn negative_control_buckets_left_unshuffled_fail_the_same_test() {
    let counts = order_counts("shard-chi2-control", true);
    let (chi2, p) = fairdeal_testkit::chi_square_uniform(&counts);
    assert!(
        p < 1e-9,
        "the control passed: chi2 {chi2}, p {p}, counts {counts:?}"
    );
}

#[test]
fn a_killed_and_rerun_task_changes_nothing() {
    let dir = fresh_dir("shard-kill");
    let input = big_input(&dir);
    let reference = plain_loop(&dir.join("ref"), "5", 2, false, &PLAN, &[&input]);
    let run = dir.join("run");
    let mut args = vec!["shard", "plan", "--seed", "5", "--out", path(&run)];
    args.extend_from_slice(&PLAN);
    args.push(path(&input));
    fairdeal(&args).ok();
    for phase in ["scatter", "gather"] {
        // Kill task 0 at once (SIGKILL: whatever it had written stays as it was), leave a
        // half-written temporary file behind as a kill mid-write would, then run every task,
        // and task 0 twice.
        let mut child = Command::new(BIN)
            .args([
                "shard",
                phase,
                "--out",
                path(&run),
                "--task",
                "0",
                "--tasks",
                "2",
            ])
            .spawn()
            .unwrap();
        child.kill().unwrap();
        child.wait().unwrap();
        let stray = if phase == "scatter" {
            run.join("shard/spill/.tmp-killed")
        } else {
            run.join(".tmp-killed")
        };
        fs::write(&stray, b"half a rec").unwrap();
        for t in ["0", "1", "0"] {
            fairdeal(&[
                "shard",
                phase,
                "--out",
                path(&run),
                "--task",
                t,
                "--tasks",
                "2",
            ])
            .ok();
        }
    }
    assert!(parts(&run) == reference, "a re-run task changed the output");
    fairdeal(&["shard", "verify", path(&run), path(&input)]).ok();
}

/// A planned and scattered run of 300,000 lines for the damage tests.
fn scattered(name: &str) -> (PathBuf, PathBuf) {
    let dir = fresh_dir(name);
    let input = big_input(&dir);
    let run = dir.join("run");
    let mut args = vec!["shard", "plan", "--seed", "3", "--out", path(&run)];
    args.extend_from_slice(&PLAN);
    args.push(path(&input));
    fairdeal(&args).ok();
    one_task("scatter", &run).ok();
    (run, input)
}

/// `fairdeal shard PHASE` of a run, all of it as one task.
fn one_task(phase: &str, run: &Path) -> Run {
    fairdeal(&[
        "shard",
        phase,
        "--out",
        path(run),
        "--task",
        "0",
        "--tasks",
        "1",
    ])
}

fn gather_error(run: &Path) -> String {
    one_task("gather", run).error()
}

#[test]
fn gather_refuses_missing_or_damaged_manifests_and_spill_files_in_one_line() {
    let (run, _) = scattered("shard-damage");
    let spill = run.join("shard/spill");
    let manifest = spill.join("chunk-000000007.json");
    let saved = fs::read(&manifest).unwrap();

    fs::remove_file(&manifest).unwrap();
    let line = gather_error(&run);
    assert!(
        line.contains("missing manifest") && line.contains("chunk-000000007.json"),
        "{line}"
    );

    fs::write(&manifest, &saved[..saved.len() / 2]).unwrap();
    let line = gather_error(&run);
    assert!(line.contains("corrupt manifest"), "{line}");

    let text = String::from_utf8(saved.clone())
        .unwrap()
        .replace("\"seed\": 3", "\"seed\": 4");
    fs::write(&manifest, text).unwrap();
    let line = gather_error(&run);
    assert!(
        line.contains("corrupt manifest") && line.contains("another run"),
        "{line}"
    );
    fs::write(&manifest, &saved).unwrap();

    // One byte changed inside a spill file: same length, other lines.
    let data_path = spill.join("chunk-000000007");
    let data = fs::read(&data_path).unwrap();
    let mut flipped = data.clone();
    let i = flipped.iter().position(|&b| b.is_ascii_digit()).unwrap();
    flipped[i] = if flipped[i] == b'9' {
        b'8'
    } else {
        flipped[i] + 1
    };
    fs::write(&data_path, &flipped).unwrap();
    let line = gather_error(&run);
    assert!(line.contains("does not match its manifest"), "{line}");

    fs::write(&data_path, &data[..data.len() - 3]).unwrap();
    let line = gather_error(&run);
    assert!(
        line.contains("does not match its manifest") && line.contains("bytes"),
        "{line}"
    );
    fs::write(&data_path, &data).unwrap();

    fs::remove_file(run.join("shard/run.json")).unwrap();
    let line = gather_error(&run);
    assert!(
        line.contains("missing manifest") && line.contains("shard plan"),
        "{line}"
    );
}

#[test]
fn verify_finds_a_lost_or_duplicated_line() {
    let (run, input) = scattered("shard-verify");
    one_task("gather", &run).ok();
    fairdeal(&["shard", "verify", path(&run), path(&input)]).ok();
    let part = run.join("part-00003");
    let data = fs::read(&part).unwrap();
    let first_end = data.iter().position(|&b| b == b'\n').unwrap() + 1;
    // A line lost.
    fs::write(&part, &data[first_end..]).unwrap();
    let line = fairdeal(&["shard", "verify", path(&run), path(&input)]).error();
    assert!(
        line.contains("does not match its input") && line.contains("299999"),
        "{line}"
    );
    // A line duplicated in place of another: same count, other multiset.
    let second_end = first_end + data[first_end..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let mut dup = data[..first_end].to_vec();
    dup.extend_from_slice(&data[..first_end]);
    dup.extend_from_slice(&data[second_end..]);
    fs::write(&part, &dup).unwrap();
    let line = fairdeal(&["shard", "verify", path(&run), path(&input)]).error();
    assert!(line.contains("does not match"), "{line}");
    let json = fairdeal(&["shard", "verify", "--json", path(&run), path(&input)]);
    assert_eq!(json.status, Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["input_lines"], 300_000);
}

#[test]
fn a_bucket_larger_than_memory_is_refused_with_a_larger_bucket_count() {
    let (run, _) = scattered("shard-memory");
    let line = fairdeal(&[
        "shard",
        "gather",
        "--out",
        path(&run),
        "--task",
        "0",
        "--tasks",
        "1",
        "--memory",
        "64K",
    ])
    .error();
    assert!(
        line.contains("bucket 0 holds") && line.contains("--buckets"),
        "{line}"
    );
    let suggested: u64 = line
        .split("--buckets ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("a bucket count in the message");
    assert!(suggested > 16, "{line}");
    // Nothing was written.
    assert!(parts(&run).is_empty());
}

#[cfg(unix)]
#[test]
fn spill_and_part_files_are_private() {
    use std::os::unix::fs::PermissionsExt as _;
    let (run, _) = scattered("shard-private");
    one_task("gather", &run).ok();
    let mut checked = 0;
    for dir in [
        run.clone(),
        run.join("shard/spill"),
        run.join("shard/gather"),
    ] {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_file() {
                let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o600, "{}", entry.path().display());
                checked += 1;
            }
        }
    }
    assert!(checked > 16 + 54, "{checked}");
    let mode = fs::metadata(run.join("shard"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn task_indices_and_plans_out_of_range_are_usage_errors() {
    let (run, input) = scattered("shard-usage");
    let r = fairdeal(&[
        "shard",
        "scatter",
        "--out",
        path(&run),
        "--task",
        "2",
        "--tasks",
        "2",
    ]);
    assert_eq!(r.status, Some(2));
    assert!(r.error().contains("--task must be below --tasks"));
    let r = fairdeal(&[
        "shard",
        "gather",
        "--out",
        path(&run),
        "--task",
        "0",
        "--tasks",
        "0",
    ]);
    assert_eq!(r.status, Some(2));
    let r = fairdeal(&[
        "shard",
        "plan",
        "--seed",
        "3",
        "--out",
        path(&run),
        "--buckets",
        "0",
        path(&input),
    ]);
    assert_eq!(r.status, Some(2));
    // Another plan in the same directory is refused, the same one accepted.
    let line = fairdeal(&[
        "shard",
        "plan",
        "--seed",
        "4",
        "--out",
        path(&run),
        path(&input),
    ])
    .error();
    assert!(line.contains("already holds a different run"), "{line}");
    let mut same = vec!["shard", "plan", "--seed", "3", "--out", path(&run)];
    same.extend_from_slice(&PLAN);
    same.push(path(&input));
    fairdeal(&same).ok();
}
