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

use common::{Deadline as _, Run, Scratch, fairdeal, fresh_dir, has_gnu_parallel, slurm_answers};

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
        .output_deadline()
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
    let has_parallel = has_gnu_parallel();
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
    if slurm_answers() {
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
        common::wait_with_deadline(&mut child);
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
fn scattered(name: &str) -> (Scratch, PathBuf, PathBuf) {
    let dir = fresh_dir(name);
    let input = big_input(&dir);
    let run = dir.join("run");
    let mut args = vec!["shard", "plan", "--seed", "3", "--out", path(&run)];
    args.extend_from_slice(&PLAN);
    args.push(path(&input));
    fairdeal(&args).ok();
    one_task("scatter", &run).ok();
    (dir, run, input)
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
    let (_dir, run, _) = scattered("shard-damage");
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
    let (_dir, run, input) = scattered("shard-verify");
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
    let (_dir, run, _) = scattered("shard-memory");
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
    let (_dir, run, _) = scattered("shard-private");
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
    let (_dir, run, input) = scattered("shard-usage");
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

/// FNV-1a 64 of some bytes: enough to pin a seeded output in a test.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The bytes a seed gives are part of the interface (a run can be redone, a retried task must
/// write the same file): pinned here, as fairdeal 0.1.0 writes them (the buckets' own shuffles
/// changed with `Inplace`'s forward order; CHANGELOG.md, "Changed (seeded output)").
#[test]
fn seeded_parts_are_pinned() {
    let dir = fresh_dir("shard-golden");
    let input = dir.join("in.txt");
    let text: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    fs::write(&input, text).unwrap();
    let run = dir.join("run");
    let out = plain_loop(
        &run,
        "7",
        1,
        false,
        &["--buckets", "5", "--chunk-size", "4K"],
        &[&input],
    );
    let sizes: Vec<u64> = (0..5)
        .map(|b| {
            fs::metadata(run.join(format!("part-{b:05}")))
                .unwrap()
                .len()
        })
        .collect();
    assert_eq!(sizes, [5483, 5635, 5985, 6204, 5583]);
    assert!(out.starts_with(b"line 38\nline 419\nline 274\n"));
    assert_eq!(fnv1a(&out), 0x45ea_6161_be7a_e465);
}

/// A planned, scattered and gathered run of 300,000 lines.
fn gathered(name: &str) -> (Scratch, PathBuf, PathBuf) {
    let (dir, run, input) = scattered(name);
    one_task("gather", &run).ok();
    (dir, run, input)
}

fn verify_error(run: &Path, input: &Path) -> String {
    fairdeal(&["shard", "verify", path(run), path(input)]).error()
}

#[test]
fn verify_refuses_a_part_that_does_not_end_with_its_separator() {
    // P14: without its last newline, `cat DIR/part-*` joins two records, and the tallies (which
    // count a last record as terminated) still agree.
    let (_dir, run, input) = gathered("shard-p14");
    let part = run.join("part-00001");
    let data = fs::read(&part).unwrap();
    fs::write(&part, &data[..data.len() - 1]).unwrap();
    let line = verify_error(&run, &input);
    assert!(
        line.contains("part-00001 does not end with its separator"),
        "{line}"
    );
}

#[test]
fn verify_names_the_stray_file_alone() {
    // P18: a stray file is named, the real parts are not blamed.
    let (_dir, run, input) = gathered("shard-p18");
    fs::copy(run.join("part-00001"), run.join("part-00001.bak")).unwrap();
    let line = verify_error(&run, &input);
    assert!(
        line.contains("part-00001.bak is not one of the run's 16 parts"),
        "{line}"
    );
    for blameless in ["part-00002", "part-00003", "manifest"] {
        assert!(!line.contains(blameless), "{line}");
    }
}

/// 20,000 lines of 16 bytes: byte 4095, the last of the first 4 KiB chunk, is a newline.
fn sixteen_byte_lines(dir: &Path) -> PathBuf {
    let input = dir.join("in16.txt");
    let text: String = (0..20_000).map(|i| format!("line {i:010}\n")).collect();
    fs::write(&input, text).unwrap();
    input
}

fn plan_4k(run: &Path, input: &Path) {
    fairdeal(&[
        "shard",
        "plan",
        "--seed",
        "1",
        "--out",
        path(run),
        "--buckets",
        "4",
        "--chunk-size",
        "4K",
        path(input),
    ])
    .ok();
}

fn task(phase: &str, run: &Path, task: &str, tasks: &str) -> Run {
    fairdeal(&[
        "shard",
        phase,
        "--out",
        path(run),
        "--task",
        task,
        "--tasks",
        tasks,
    ])
}

#[test]
fn an_input_changed_at_the_same_size_is_refused_by_scatter_and_gather() {
    // P10: the newline at the first chunk edge moved one byte across it, in place, with the
    // modification time put back: only the sampled bytes tell.
    let dir = fresh_dir("shard-p10");
    let input = sixteen_byte_lines(&dir);
    let run = dir.join("run");
    plan_4k(&run, &input);
    task("scatter", &run, "0", "2").ok();
    let mtime = fs::metadata(&input).unwrap().modified().unwrap();
    let mut data = fs::read(&input).unwrap();
    assert_eq!(data[4095], b'\n');
    data.swap(4095, 4096);
    {
        use std::io::{Seek as _, Write as _};
        let mut file = fs::OpenOptions::new().write(true).open(&input).unwrap();
        file.seek(std::io::SeekFrom::Start(4095)).unwrap();
        file.write_all(&data[4095..4097]).unwrap();
        file.set_modified(mtime).unwrap();
    }
    for (phase, t) in [("scatter", "1"), ("gather", "0")] {
        let r = task(phase, &run, t, "2");
        assert_eq!(r.status, Some(1), "{phase}");
        let line = r.error();
        assert!(
            line.contains("in16.txt' changed since `shard plan` (its bytes differ"),
            "{phase}: {line}"
        );
    }
    // P11: replaced by another file of the same size (as `sed -i` does).
    let run = dir.join("run2");
    plan_4k(&run, &input);
    let other = dir.join("other.txt");
    fs::write(&other, fs::read(&input).unwrap()).unwrap();
    fs::rename(&other, &input).unwrap();
    let line = task("scatter", &run, "0", "1").error();
    assert!(
        line.contains("changed since `shard plan` (another file"),
        "{line}"
    );
}

#[test]
fn plan_and_gather_refuse_part_files_of_another_run() {
    // P12: run 1 left 16 parts; its manifests removed, a new plan in the same directory would
    // let `cat DIR/part-*` join the old parts to the new ones.
    let (_dir, run, input) = gathered("shard-p12");
    fs::remove_dir_all(run.join("shard")).unwrap();
    let r = fairdeal(&[
        "shard",
        "plan",
        "--seed",
        "3",
        "--out",
        path(&run),
        "--buckets",
        "3",
        path(&input),
    ]);
    assert_eq!(r.status, Some(1));
    let line = r.error();
    assert!(
        line.contains("part-00000' looks like a part file but it is not from this run"),
        "{line}"
    );
    // A part file beyond the run's buckets, put there after the plan: the gather names it.
    let (_dir, run, _) = scattered("shard-p12-gather");
    fs::write(run.join("part-00016"), "stale\n").unwrap();
    let line = gather_error(&run);
    assert!(
        line.contains("part-00016' looks like a part file but is not one of this run's parts"),
        "{line}"
    );
}

#[test]
fn of_many_racing_plans_exactly_one_wins() {
    // P13: run.json is created only if absent; the losers compare and refuse.
    let dir = fresh_dir("shard-p13");
    let input = big_input(&dir);
    let run = dir.join("run");
    let children: Vec<_> = (0..12)
        .map(|seed| {
            Command::new(BIN)
                .args(["shard", "plan", "--seed", &seed.to_string(), "--out"])
                .args([&run, &input])
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(common::output_with_deadline)
        .collect();
    let winners = outputs.iter().filter(|o| o.status.success()).count();
    assert_eq!(winners, 1);
    for o in outputs.iter().filter(|o| !o.status.success()) {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("already holds a different run"), "{err}");
    }
}

#[cfg(unix)]
#[test]
fn a_run_directory_or_file_of_another_user_or_open_to_others_is_refused() {
    use std::os::unix::fs::PermissionsExt as _;
    // P15: DIR/shard pre-created writable by everyone (as another user would leave it).
    let dir = fresh_dir("shard-p15");
    let input = big_input(&dir);
    let run = dir.join("run");
    fs::create_dir_all(run.join("shard/spill")).unwrap();
    fs::set_permissions(run.join("shard"), fs::Permissions::from_mode(0o777)).unwrap();
    let r = fairdeal(&[
        "shard",
        "plan",
        "--seed",
        "1",
        "--out",
        path(&run),
        path(&input),
    ]);
    assert_eq!(r.status, Some(1));
    let line = r.error();
    assert!(
        line.contains("shard' is writable by other users (mode 777"),
        "{line}"
    );
    // Files of another user: only root can make them here.
    if common::as_nobody().is_none_or(|runner| runner.is_empty()) {
        eprintln!("note: skipped the other-owner cases: not root, or no setpriv/runuser");
        return;
    }
    let (_dir, run, _) = scattered("shard-p15-owner");
    for name in ["chunk-000000003.json", "chunk-000000003"] {
        let file = run.join("shard/spill").join(name);
        std::os::unix::fs::chown(&file, Some(65534), None).unwrap();
        let line = gather_error(&run);
        assert!(
            line.contains(name) && line.contains("is owned by user 65534"),
            "{line}"
        );
        std::os::unix::fs::chown(&file, Some(0), None).unwrap();
    }
    std::os::unix::fs::chown(run.join("shard"), Some(65534), None).unwrap();
    let line = gather_error(&run);
    assert!(line.contains("is owned by user 65534"), "{line}");
}

#[test]
fn a_gather_with_another_task_count_is_refused() {
    // P17: --tasks 2 then --tasks 3 would leave buckets 11 to 15 unwritten.
    let (_dir, run, input) = scattered("shard-p17");
    task("gather", &run, "0", "2").ok();
    let r = task("gather", &run, "1", "3");
    assert_eq!(r.status, Some(1));
    let line = r.error();
    assert!(
        line.contains("gather tasks use --tasks 2") && line.contains("not 3"),
        "{line}"
    );
    task("gather", &run, "1", "2").ok();
    fairdeal(&["shard", "verify", path(&run), path(&input)]).ok();
}

#[test]
fn a_non_regular_input_is_not_a_regular_file() {
    // P27: a pipe (what `<(cmd)` gives) has no canonical path; say what is wrong with it.
    let dir = fresh_dir("shard-p27");
    let r = common::fairdeal_with_input(
        &[
            "shard",
            "plan",
            "--out",
            path(&dir.join("run")),
            "/dev/stdin",
        ],
        b"a\nb\n",
    );
    let line = r.error();
    assert!(
        line.contains("input '/dev/stdin' is not a regular file"),
        "{line}"
    );
}

/// Runs a recipe in `cwd` with a deadline; returns its output.
fn recipe(name: &str, cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(script(name))
        .args(args)
        .current_dir(cwd)
        .env("FAIRDEAL", BIN)
        .output_deadline()
        .expect("run the recipe")
}

#[test]
fn the_parallel_recipe_passes_hostile_paths_as_paths() {
    // P16: spaces, `;` and `$(...)` in the run directory (and a space in its parent) are
    // only characters of a path: the run works and runs nothing.
    if !has_gnu_parallel() {
        skip_or_fail("GNU parallel is not installed");
        return;
    }
    let dir = fresh_dir("shard-p16");
    let input = sixteen_byte_lines(&dir);
    let out = dir
        .join("parent dir")
        .join("a b;touch PWNED;$(touch PWNED2)");
    let o = recipe(
        "parallel-shuffle.sh",
        &dir,
        &[
            "--seed",
            "3",
            "--tasks",
            "3",
            "--buckets",
            "4",
            "--out",
            path(&out),
            path(&input),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let original = fs::read(&input).unwrap();
    assert_eq!(sorted_lines(&parts(&out)), sorted_lines(&original));
    for name in ["PWNED", "PWNED2"] {
        assert!(!dir.join(name).exists(), "{name} was created");
    }
    // A failed task is the recipe's documented 1 (a bucket larger than --memory).
    let o = recipe(
        "parallel-shuffle.sh",
        &dir,
        &[
            "--seed",
            "3",
            "--tasks",
            "2",
            "--buckets",
            "1",
            "--memory",
            "64K",
            "--out",
            path(&dir.join("small")),
            path(&input),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn the_parallel_recipe_refuses_a_directory_with_another_runs_parts() {
    // P12 through the recipe: a second run with fewer buckets in the same --out.
    if !has_gnu_parallel() {
        skip_or_fail("GNU parallel is not installed");
        return;
    }
    let dir = fresh_dir("shard-p12-recipe");
    let input = sixteen_byte_lines(&dir);
    let out = dir.join("out");
    let run = |buckets: &str| {
        recipe(
            "parallel-shuffle.sh",
            &dir,
            &[
                "--seed",
                "3",
                "--tasks",
                "2",
                "--buckets",
                buckets,
                "--out",
                path(&out),
                path(&input),
            ],
        )
    };
    let o = run("5");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    fs::remove_dir_all(out.join("shard")).unwrap();
    let o = run("2");
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not from this run"), "{err}");
}
