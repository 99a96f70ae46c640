//! `cluster/slurm-simulate.sh` on a real Slurm: the merged report of a blackjack simulation run
//! as a job array of shards equals the unsharded run's `--json` field for field (all but
//! `seconds`), and a failed shard makes the script exit 1 with no merged report and the
//! failure's message in that shard's log.
//!
//! Skips, with a note, when no Slurm answers (`cluster/slurm-local.sh up` starts a one-node
//! one); `.ci/run` starts it and sets `FAIRDEAL_REQUIRE_CLUSTER=1`, which turns a skip into a
//! failure.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{Deadline as _, fairdeal, fresh_dir};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// 140,000 rounds are 3 chunks of 65,536: 3 shards, each with work of its own.
const RUN: [&str; 4] = ["--seed", "11", "--rounds", "140000"];
/// Options passed through to every shard (after `--`) and to the unsharded run.
const RULES: [&str; 7] = [
    "--h17",
    "--seats",
    "2",
    "--counting",
    "hilo",
    "--spread",
    "1-6",
];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cluster/slurm-simulate.sh")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 test path")
}

/// Whether Slurm answers; when it does not, a skip with a note, or a failure under
/// `FAIRDEAL_REQUIRE_CLUSTER=1`.
fn slurm_up() -> bool {
    let up = common::slurm_answers();
    if !up {
        assert!(
            std::env::var_os("FAIRDEAL_REQUIRE_CLUSTER").is_none_or(|v| v != "1"),
            "no Slurm answers (sinfo), and FAIRDEAL_REQUIRE_CLUSTER=1 requires it"
        );
        eprintln!("note: skipped: no Slurm answers (sinfo) (cluster/slurm-local.sh up starts one)");
    }
    up
}

/// `cluster/slurm-simulate.sh --seed 11 --rounds 140000 --shards 3 --out OUT -- RULES` with
/// `fairdeal` as the binary the tasks run.
fn simulate(out: &Path, fairdeal: &str) -> Output {
    let mut args = RUN.to_vec();
    args.extend(["--shards", "3", "--out", path(out), "--"]);
    args.extend(RULES);
    Command::new(script())
        .args(&args)
        .env("FAIRDEAL", fairdeal)
        .output_deadline()
        .expect("run cluster/slurm-simulate.sh")
}

fn report(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A document without `seconds`, the one field that describes how a run went.
fn without_timing(mut doc: Value) -> Value {
    doc.as_object_mut()
        .expect("a JSON object")
        .remove("seconds")
        .expect("a `seconds` field");
    doc
}

fn read_json(file: &Path) -> Value {
    serde_json::from_slice(&fs::read(file).unwrap()).unwrap_or_else(|e| panic!("{file:?}: {e}"))
}

#[test]
fn slurm_simulate_merges_into_the_unsharded_run() {
    if !slurm_up() {
        return;
    }
    let dir = fresh_dir("cluster-simulate");
    let out = dir.join("run");
    let run = simulate(&out, BIN);
    assert!(run.status.success(), "{}", report(&run));

    let mut whole_args = vec!["blackjack", "simulate"];
    whole_args.extend(RUN);
    whole_args.extend(RULES);
    whole_args.push("--json");
    let whole: Value = serde_json::from_slice(&fairdeal(&whole_args).ok().stdout).unwrap();
    let whole = without_timing(whole);

    // Three shard reports, each a part of the run, not the whole.
    for i in 1..=3 {
        let shard = without_timing(read_json(&out.join(format!("shard-{i}.json"))));
        assert_ne!(shard, whole, "shard {i} is the whole run");
    }
    // The merge job's report, and the script's own merge of the shards, are the whole run.
    assert_eq!(
        without_timing(read_json(&out.join("merged.json"))),
        whole,
        "the merge job's report"
    );
    let shards: Vec<PathBuf> = (1..=3)
        .map(|i| out.join(format!("shard-{i}.json")))
        .collect();
    let mut merge = vec!["merge", "--json"];
    merge.extend(shards.iter().map(|p| path(p)));
    let merged: Value = serde_json::from_slice(&fairdeal(&merge).ok().stdout).unwrap();
    assert_eq!(
        without_timing(merged),
        whole,
        "fairdeal merge of the shards"
    );
    assert!(
        !out.join("logs").read_dir().unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("failed-")),
        "a failure marker after a successful run"
    );
}

/// Negative control: the same run where shard 2's task fails (a wrapper around `fairdeal`
/// that exits 1 for `--shard 2/3`, running the real binary otherwise).
#[test]
fn a_failed_shard_makes_slurm_simulate_fail_without_a_merged_report() {
    if !slurm_up() {
        return;
    }
    let dir = fresh_dir("cluster-simulate-fail");
    let wrapper = dir.join("fairdeal-failing-shard-2");
    fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do\n  if [ \"$a\" = 2/3 ]; then echo 'shard 2 fails on purpose' >&2; exit 1; fi\ndone\nexec '{BIN}' \"$@\"\n"
        ),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.join("run");
    let run = simulate(&out, path(&wrapper));
    assert_eq!(run.status.code(), Some(1), "{}", report(&run));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("tasks failed: failed-shard-2 "),
        "{}",
        report(&run)
    );
    let logs = out.join("logs");
    assert!(logs.join("failed-shard-2").exists());
    assert!(!logs.join("failed-shard-1").exists() && !logs.join("failed-shard-3").exists());
    let log = fs::read_to_string(logs.join("shard-2.log")).unwrap();
    assert!(
        log.contains("shard 2 fails on purpose"),
        "shard-2.log: {log}"
    );
    // The other shards finished; the merge job never ran, and nothing half-written is left.
    assert!(out.join("shard-1.json").exists() && out.join("shard-3.json").exists());
    assert!(!out.join("shard-2.json").exists());
    assert!(!out.join("merged.json").exists());
    let leftovers: Vec<_> = out
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}
