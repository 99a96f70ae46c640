//! `--shard I/N` and `fairdeal merge`: shards 1/3, 2/3 and 3/3 of a run, merged, print the
//! document the unsharded run prints (JSON equal field for field once `seconds` is dropped,
//! text equal but for the timing), for each of the four Monte Carlo commands; files that are
//! not the complete set of shards of one run are refused with one line and exit status 2.

mod common;

use std::path::PathBuf;

use common::{fairdeal, fresh_dir};
use serde_json::Value;

/// Runs `fairdeal ARGS`, which must exit with the verdict status `status` (0 but for a judge's
/// verdict: 3 unfair), and parses its stdout as JSON.
fn json(args: &[&str], status: i32) -> Value {
    let run = fairdeal(args).verdict(status);
    serde_json::from_slice(&run.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// A document without `seconds`, the one field that describes how a run went.
fn without_timing(mut doc: Value) -> Value {
    doc.as_object_mut()
        .expect("a JSON object")
        .remove("seconds");
    doc
}

/// Runs `ARGS --shard i/N --json` for every i, each into a file of `dir`.
fn shards(dir: &str, args: &[&str], count: u64, status: i32) -> Vec<PathBuf> {
    let dir = fresh_dir(dir);
    (1..=count)
        .map(|i| {
            let shard = format!("{i}/{count}");
            let mut full = args.to_vec();
            full.extend(["--shard", &shard, "--json"]);
            let run = fairdeal(&full).verdict(status);
            let path = dir.join(format!("shard-{i}.json"));
            std::fs::write(&path, &run.stdout).unwrap();
            path
        })
        .collect()
}

fn paths(files: &[PathBuf]) -> Vec<&str> {
    files.iter().map(|p| p.to_str().unwrap()).collect()
}

/// Shards 1/3..3/3 of `args`, merged, equal the unsharded run: JSON without `seconds`, and the
/// text output line for line except the lines that mention the time. Every run exits with
/// `status`: a judged run's verdict (0 fair, 3 unfair) is the same whole, in shards and merged.
fn merged_equals_whole(name: &str, args: &[&str], status: i32) {
    let files = shards(name, args, 3, status);
    let mut whole_args = args.to_vec();
    whole_args.push("--json");
    let whole = without_timing(json(&whole_args, status));
    // Each shard is a part, not the whole: its tallies are smaller.
    for file in &files {
        let part: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        assert_ne!(
            without_timing(part),
            whole,
            "{name}: a shard is the whole run"
        );
    }
    // In any order.
    let mut merge = vec!["merge", "--json"];
    merge.extend(paths(&files).iter().rev());
    assert_eq!(without_timing(json(&merge, status)), whole, "{name}");

    let mut merge_text = vec!["merge"];
    merge_text.extend(paths(&files));
    let untimed = |text: String| -> Vec<String> {
        text.lines()
            .filter(|l| !l.contains(" s ("))
            .map(str::to_owned)
            .collect()
    };
    let merged = untimed(fairdeal(&merge_text).verdict(status).text());
    let direct = untimed(fairdeal(args).verdict(status).text());
    assert_eq!(merged, direct, "{name}: text");
}

#[test]
fn blackjack_simulate_shards_merge_into_the_whole_run() {
    merged_equals_whole(
        "bj",
        &[
            "blackjack",
            "simulate",
            "--rounds",
            "140000",
            "--seed",
            "11",
            "--h17",
            "--seats",
            "2",
            "--counting",
            "hilo",
            "--spread",
            "1-6",
        ],
        0,
    );
}

#[test]
fn poker_table_shards_merge_into_the_whole_run() {
    merged_equals_whole(
        "table",
        &[
            "poker",
            "table",
            "--hands",
            "140000",
            "--seed",
            "12",
            "--fresh-deck",
        ],
        0,
    );
}

#[test]
fn poker_equity_shards_merge_into_the_whole_run() {
    merged_equals_whole(
        "equity",
        &[
            "poker", "equity", "AsKs", "random", "QhQd", "--board", "2c7d9h", "--dead", "Jc",
            "--trials", "40000", "--seed", "13",
        ],
        0,
    );
}

#[test]
fn fairness_shards_merge_into_the_whole_run() {
    // The permutation test (n <= 8) and the position test.
    merged_equals_whole(
        "perm",
        &["fairness", "--n", "4", "--trials", "140000", "--seed", "14"],
        0,
    );
    merged_equals_whole(
        "pos",
        &[
            "fairness", "--n", "10", "--trials", "140000", "--seed", "15", "--algo", "biased",
        ],
        3,
    );
}

/// `fairdeal merge FILES` fails with exit status 2 and one line containing `expected`.
fn refused(files: &[&str], expected: &str) {
    let mut args = vec!["merge"];
    args.extend(files);
    let run = fairdeal(&args);
    let status = run.status;
    let message = run.error();
    assert_eq!(status, Some(2), "{message}");
    assert!(message.contains(expected), "{message:?} lacks {expected:?}");
}

#[test]
fn files_that_are_not_one_complete_run_are_refused() {
    let base = [
        "blackjack",
        "simulate",
        "--rounds",
        "140000",
        "--seed",
        "21",
    ];
    let run = shards("refuse-base", &base, 3, 0);
    let run = paths(&run);
    let seed = shards(
        "refuse-seed",
        &[
            "blackjack",
            "simulate",
            "--rounds",
            "140000",
            "--seed",
            "22",
        ],
        3,
        0,
    );
    let rules = shards(
        "refuse-rules",
        &[
            "blackjack",
            "simulate",
            "--rounds",
            "140000",
            "--seed",
            "21",
            "--h17",
        ],
        3,
        0,
    );
    let rounds = shards(
        "refuse-rounds",
        &[
            "blackjack",
            "simulate",
            "--rounds",
            "150000",
            "--seed",
            "21",
        ],
        3,
        0,
    );
    let two = shards("refuse-two", &base, 2, 0);
    let poker = shards(
        "refuse-poker",
        &["poker", "table", "--hands", "140000", "--seed", "21"],
        3,
        0,
    );
    let (seed, rules, rounds, two, poker) = (
        paths(&seed),
        paths(&rules),
        paths(&rounds),
        paths(&two),
        paths(&poker),
    );

    refused(&[run[0], run[1], seed[2]], "\"seed\" differs (21 vs 22)");
    refused(&[run[0], rules[1], run[2]], "\"rules\" differs");
    refused(&[run[0], run[1], rounds[2]], "a total of 140000 vs 150000");
    refused(&[run[0], two[1]], "3 vs 2 shards");
    refused(&[run[0], run[1], poker[2]], "different runs");
    refused(&[run[0], run[1], run[1]], "shard 2/3 is given twice");
    refused(&[run[0], run[2]], "shard 2/3 is missing");
    refused(&[run[0]], "shard 2/3, 3/3 are missing");

    let dir = fresh_dir("refuse-garbage");
    let garbage = dir.join("garbage.json");
    std::fs::write(&garbage, b"\x00\x01 not json").unwrap();
    let garbage = garbage.to_str().unwrap();
    refused(
        &[run[0], garbage, run[2]],
        "is not the --json output of a --shard run",
    );
    let whole = dir.join("whole.json");
    std::fs::write(
        &whole,
        fairdeal(&[&base[..], &["--json"]].concat()).ok().stdout,
    )
    .unwrap();
    refused(&[whole.to_str().unwrap()], "it has no \"shard\" field");
    let object = dir.join("array.json");
    std::fs::write(&object, b"[1, 2]").unwrap();
    refused(&[object.to_str().unwrap()], "not a JSON object");
    // A shard whose tallies were tampered with so they no longer parse.
    let mut doc: Value = serde_json::from_slice(&std::fs::read(run[1]).unwrap()).unwrap();
    doc["sums"]["net_tenths"] = Value::from("twelve");
    let tampered = dir.join("tampered.json");
    std::fs::write(&tampered, doc.to_string()).unwrap();
    refused(
        &[run[0], tampered.to_str().unwrap(), run[2]],
        "its tallies (\"counts\", \"initial_wagers\", \"sums\") are missing or malformed",
    );

    // A file that cannot be read is an environment error: exit 1.
    let missing = dir.join("no-such-file.json");
    let read = fairdeal(&["merge", missing.to_str().unwrap()]);
    let status = read.status;
    assert!(read.error().contains("cannot read"));
    assert_eq!(status, Some(1));
}

#[test]
fn bad_shards_are_usage_errors() {
    for (args, expected) in [
        (
            vec![
                "fairness", "--trials", "1000", "--seed", "1", "--shard", "0/3",
            ],
            "does not exist",
        ),
        (
            vec![
                "fairness", "--trials", "1000", "--seed", "1", "--shard", "two",
            ],
            "not a shard",
        ),
        // Without a seed each shard would draw its own: a different run.
        (
            vec![
                "blackjack",
                "simulate",
                "--rounds",
                "1000",
                "--shard",
                "1/2",
            ],
            "--seed",
        ),
        // More shards than chunks: some would be empty.
        (
            vec![
                "blackjack",
                "simulate",
                "--rounds",
                "1000",
                "--seed",
                "1",
                "--shard",
                "2/2",
            ],
            "would leave some empty",
        ),
        (
            vec![
                "poker", "table", "--hands", "1000", "--seed", "1", "--shard", "2/2",
            ],
            "would leave some empty",
        ),
        (
            vec![
                "fairness", "--trials", "1000", "--seed", "1", "--shard", "2/2",
            ],
            "would leave some empty",
        ),
        // Exact enumeration has no chunks to share out.
        (
            vec![
                "poker", "equity", "AsAh", "KsKd", "--seed", "1", "--shard", "1/2",
            ],
            "--trials",
        ),
        (
            vec!["poker", "table", "--exhaustive", "--shard", "1/2"],
            "cannot be used with",
        ),
    ] {
        let run = fairdeal(&args);
        let status = run.status;
        let message = run.error();
        assert_eq!(status, Some(2), "{args:?}: {message}");
        assert!(
            message.contains(expected),
            "{args:?}: {message:?} lacks {expected:?}"
        );
    }
}
