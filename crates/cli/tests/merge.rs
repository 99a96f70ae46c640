//! `--shard I/N` and `fairdeal merge`: shards 1/3, 2/3 and 3/3 of a run, merged, print the
//! document the unsharded run prints (JSON equal field for field once `seconds` is dropped,
//! text equal but for the timing), for each of the four Monte Carlo commands; files that are
//! not the complete set of shards of one run are refused with one line and exit status 2.

mod common;

use std::path::PathBuf;

use common::{Scratch, fairdeal, fresh_dir};
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

/// The exit status of a judged document's `verdict` (0 fair, 3 unfair, 4 insufficient), or
/// `None` for a document without one.
fn verdict_status(doc: &Value) -> Option<i32> {
    doc.get("verdict").map(|v| match v.as_str() {
        Some("fair") => 0,
        Some("unfair") => 3,
        Some("insufficient") => 4,
        _ => panic!("not a verdict: {v}"),
    })
}

/// Runs `ARGS --shard i/N --json` for every i, each into a file of `dir`. A shard of a judge
/// exits with the status of its own verdict (a part of a fair run may be too small to certify
/// the tolerance: insufficient); any other shard with `status`.
fn shards(dir: &str, args: &[&str], count: u64, status: i32) -> Shards {
    let dir = fresh_dir(dir);
    let files = (1..=count)
        .map(|i| {
            let shard = format!("{i}/{count}");
            let mut full = args.to_vec();
            full.extend(["--shard", &shard, "--json"]);
            let run = fairdeal(&full);
            let doc: Value = serde_json::from_slice(&run.stdout)
                .unwrap_or_else(|e| panic!("{full:?}: {e}: {}", run.stderr));
            let run = run.verdict(verdict_status(&doc).unwrap_or(status));
            let path = dir.join(format!("shard-{i}.json"));
            std::fs::write(&path, &run.stdout).unwrap();
            path
        })
        .collect();
    Shards { _dir: dir, files }
}

/// The shard files of one run, in a directory removed when this is dropped.
struct Shards {
    _dir: Scratch,
    files: Vec<PathBuf>,
}

impl std::ops::Deref for Shards {
    type Target = Vec<PathBuf>;
    fn deref(&self) -> &Vec<PathBuf> {
        &self.files
    }
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
    for file in files.iter() {
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
        // 140,000 fair hands bound the rarest category only loosely: insufficient.
        4,
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
        4,
    );
    let (seed, rules, rounds, two, poker) = (
        paths(&seed),
        paths(&rules),
        paths(&rounds),
        paths(&two),
        paths(&poker),
    );

    refused(&[run[0], run[1], seed[2]], "\"seed\" differs (21 vs 22)");
    refused(
        &[run[0], rules[1], run[2]],
        "\"rules\".\"dealer\" differs (\"S17\" vs \"H17\")",
    );
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
        "\"sums\".\"net_tenths\" is not an integer in range",
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

/// A copy of `file` in `dir` named `name`, with `edit` applied to its JSON document.
fn tampered(
    file: &str,
    dir: &std::path::Path,
    name: &str,
    edit: impl FnOnce(&mut Value),
) -> String {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
    edit(&mut doc);
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path.to_str().unwrap().to_owned()
}

/// `fairdeal merge` with shard 2 of `run` replaced by `middle`: refused with `expected`.
fn refused_middle(run: &[&str], middle: &str, expected: &str) {
    refused(&[run[0], middle, run[2]], expected);
}

/// P19/P20: a blackjack shard whose tallies no shard of its chunk range can hold is refused,
/// whichever field was edited, as are impossible times and fields the command never writes.
#[test]
fn blackjack_shards_that_no_run_can_produce_are_refused() {
    let files = shards(
        "tamper-bj",
        &[
            "blackjack",
            "simulate",
            "--rounds",
            "140000",
            "--seed",
            "31",
            "--seats",
            "2",
        ],
        3,
        0,
    );
    let run = paths(&files);
    let dir = fresh_dir("tamper-bj-edits");
    let edit = |name: &str, f: &dyn Fn(&mut Value)| tampered(run[1], &dir, name, |d| f(d));
    // Honest shards still merge.
    fairdeal(&["merge", run[0], run[1], run[2]]).ok();
    for (name, change, expected) in [
        (
            // The probe's edit: a 1-round shard where chunks 1..2 deal 65536.
            "p19.json",
            &(|d: &mut Value| {
                d["rounds"] = 1.into();
                d["counts"]["rounds"] = 1.into();
                d["initial_wagers"] = 1.into();
            }) as &dyn Fn(&mut Value),
            "1 rounds where these chunks deal",
        ),
        (
            "wins.json",
            &|d: &mut Value| {
                let wins = d["counts"]["wins"].as_u64().unwrap();
                d["counts"]["wins"] = (wins + 100_000).into();
            },
            "wins + losses + pushes + surrenders",
        ),
        (
            "wins-max.json",
            &|d: &mut Value| d["counts"]["wins"] = u64::MAX.into(),
            "impossible tallies",
        ),
        (
            "net2-max.json",
            &|d: &mut Value| {
                d["sums"]["net_squared_tenths2"] = u128::MAX.to_string().into();
            },
            "sum of squares",
        ),
        (
            "net2-past-max.json",
            &|d: &mut Value| {
                d["sums"]["net_squared_tenths2"] = "340282366920938463463374607431768211456".into();
            },
            "\"sums\".\"net_squared_tenths2\" is not an integer in range",
        ),
        (
            "extra-count.json",
            &|d: &mut Value| d["counts"]["jokers"] = 3.into(),
            "\"counts\" has an unknown field \"jokers\"",
        ),
        (
            "extra-sum.json",
            &|d: &mut Value| d["sums"]["bonus"] = "1".into(),
            "\"sums\" has an unknown field \"bonus\"",
        ),
        (
            "extra-field.json",
            &|d: &mut Value| d["note"] = "hi".into(),
            "\"note\" (\"hi\") is not a field of a blackjack simulate --json output",
        ),
        (
            "rounds-alone.json",
            &|d: &mut Value| d["rounds"] = 1.into(),
            "\"rounds\" is 1 where the shard's own tallies and parameters give",
        ),
        (
            "edge.json",
            &|d: &mut Value| d["house_edge_percent"] = 9.5.into(),
            "\"house_edge_percent\" is 9.5",
        ),
        (
            "seconds-negative.json",
            &|d: &mut Value| d["seconds"] = (-1e308).into(),
            "\"seconds\" is -1e+308, not a finite, non-negative time",
        ),
        (
            "seconds-null.json",
            &|d: &mut Value| d["seconds"] = Value::Null,
            "\"seconds\" is null",
        ),
        (
            "seconds-nan.json",
            &|d: &mut Value| d["seconds"] = "NaN".into(),
            "\"seconds\" is \"NaN\"",
        ),
    ] {
        refused_middle(&run, &edit(name, change), expected);
    }
    // NaN itself is not JSON.
    let nan = dir.join("seconds-nan-literal.json");
    let text = std::fs::read_to_string(run[1]).unwrap();
    let at = text.find("\"seconds\":").unwrap();
    let end = at + text[at..].find([',', '\n', '}']).unwrap();
    std::fs::write(
        &nan,
        format!("{}\"seconds\": NaN{}", &text[..at], &text[end..]),
    )
    .unwrap();
    refused_middle(
        &run,
        nan.to_str().unwrap(),
        "is not the --json output of a --shard run",
    );
}

/// P19/P20 for `poker equity`: tallies that no deals can produce are refused.
#[test]
fn equity_shards_that_no_run_can_produce_are_refused() {
    let files = shards(
        "tamper-equity",
        &[
            "poker", "equity", "AsAh", "random", "--trials", "40000", "--seed", "32",
        ],
        3,
        0,
    );
    let run = paths(&files);
    let dir = fresh_dir("tamper-equity-edits");
    fairdeal(&["merge", run[0], run[1], run[2]]).ok();
    let wins = tampered(run[1], &dir, "wins.json", |d| {
        let wins = d["players"][0]["wins"].as_u64().unwrap();
        d["players"][0]["wins"] = (wins + 100_000).into();
    });
    refused_middle(&run, &wins, "impossible equity tally");
    let max = tampered(run[1], &dir, "max.json", |d| {
        d["players"][1]["shares"] = u64::MAX.into();
    });
    refused_middle(&run, &max, "impossible equity tally");
    let trials = tampered(run[1], &dir, "trials.json", |d| d["trials"] = 1.into());
    refused_middle(&run, &trials, "1 deals where");
    let extra = tampered(run[1], &dir, "extra.json", |d| {
        d["players"][0]["bonus"] = 1.into();
    });
    refused_middle(
        &run,
        &extra,
        "\"players\"[0].\"bonus\" (1) is not a field of a poker equity --json output",
    );
    let win = tampered(run[1], &dir, "win.json", |d| {
        d["players"][0]["win"] = 3.3.into();
    });
    refused_middle(&run, &win, "\"players\"[0].\"win\" is 3.3");
    let seed = tampered(run[1], &dir, "seed.json", |d| d["seed"] = 33.into());
    refused_middle(
        &run,
        &seed,
        "are shards of different runs: \"seed\" differs (32 vs 33)",
    );
}

/// P19/P20 for `poker table` and `fairness`: counts that do not add up to the shard's chunk
/// range, counts past 2^64 − 1 and unknown categories are refused.
#[test]
fn table_and_fairness_shards_that_no_run_can_produce_are_refused() {
    let files = shards(
        "tamper-table",
        &["poker", "table", "--hands", "140000", "--seed", "33"],
        3,
        0,
    );
    let run = paths(&files);
    let dir = fresh_dir("tamper-table-edits");
    let more = tampered(run[1], &dir, "more.json", |d| {
        let n = d["counts"]["high_card"].as_u64().unwrap();
        d["counts"]["high_card"] = (n + 50_000).into();
        let total = d["total"].as_u64().unwrap();
        d["total"] = (total + 50_000).into();
    });
    refused_middle(
        &run,
        &more,
        "add up to 115536 hands (\"total\" 115536) where chunks",
    );
    let max = tampered(run[1], &dir, "max.json", |d| {
        d["counts"]["high_card"] = u64::MAX.into();
    });
    refused_middle(&run, &max, "past 2^64 − 1");
    let extra = tampered(run[1], &dir, "extra.json", |d| {
        d["counts"]["five_of_a_kind"] = 0.into();
    });
    refused_middle(
        &run,
        &extra,
        "\"counts\" has an unknown field \"five_of_a_kind\"",
    );

    let files = shards(
        "tamper-fairness",
        &["fairness", "--n", "4", "--trials", "140000", "--seed", "34"],
        3,
        0,
    );
    let run = paths(&files);
    let trials = tampered(run[1], &dir, "trials.json", |d| d["trials"] = 1.into());
    refused_middle(&run, &trials, "\"trials\" is 1 where chunks");
}

#[test]
fn a_seventeen_digit_penetration_survives_json_and_merge_exactly() {
    // 0.9146155235219107 is an f64 whose shortest decimal a fast, inexact JSON float parser
    // reads one unit in the last place off (serde-rs/json#937): a merge that parsed it so
    // echoed another penetration than the run it merged.
    const PENETRATION: &str = "0.9146155235219107";
    let args = [
        "blackjack",
        "simulate",
        "--rounds",
        "140000",
        "--seed",
        "5",
        "--penetration",
        PENETRATION,
    ];
    let files = shards("penetration", &args, 2, 0);
    let echoed = format!("\"penetration\": {PENETRATION},");
    for file in files.iter() {
        let text = std::fs::read_to_string(file).unwrap();
        assert!(text.contains(&echoed), "{text}");
    }
    let mut merge = vec!["merge", "--json"];
    merge.extend(paths(&files));
    let merged = fairdeal(&merge).ok().text();
    assert!(merged.contains(&echoed), "{merged}");
    let mut whole = args.to_vec();
    whole.push("--json");
    let whole = fairdeal(&whole).ok().text();
    let untimed = |text: &str| -> String {
        text.lines()
            .filter(|l| !l.contains("\"seconds\""))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(untimed(&merged), untimed(&whole));
}

/// Issue 31: every field of a `poker table` or `fairness` shard is checked against the document
/// the command renders from the shard's own counts (no hand list of recomputed fields): a
/// field the counts decide that was edited, or a field the command never writes, is refused,
/// and so is a shard whose parameters (the tolerance) are not the first shard's.
#[test]
fn table_and_fairness_shard_fields_are_rendered_again_and_compared() {
    let files = shards(
        "render-table",
        &["poker", "table", "--hands", "140000", "--seed", "35"],
        3,
        0,
    );
    let run = paths(&files);
    let dir = fresh_dir("render-edits");
    let verdict = tampered(run[1], &dir, "verdict.json", |d| {
        d["verdict"] = "fair".into();
    });
    refused_middle(
        &run,
        &verdict,
        "\"verdict\" is \"fair\" where the shard's own tallies and parameters give \"insufficient\"",
    );
    let z = tampered(run[1], &dir, "z.json", |d| {
        d["monte_carlo"]["z_scores"]["flush"] = 0.0.into();
    });
    refused_middle(
        &run,
        &z,
        "\"monte_carlo\".\"z_scores\".\"flush\" is 0.0 where",
    );
    let extra = tampered(run[1], &dir, "extra.json", |d| {
        d["house_edge"] = 1.into();
    });
    refused_middle(
        &run,
        &extra,
        "\"house_edge\" (1) is not a field of a poker table --json output",
    );
    let other = shards(
        "render-table-tolerance",
        &[
            "poker",
            "table",
            "--hands",
            "140000",
            "--seed",
            "35",
            "--tolerance",
            "0.5",
        ],
        3,
        0,
    );
    refused(
        &[run[0], run[1], paths(&other)[2]],
        "are shards of different runs",
    );

    let files = shards(
        "render-fairness",
        &["fairness", "--n", "4", "--trials", "140000", "--seed", "36"],
        3,
        0,
    );
    let run = paths(&files);
    let bound = tampered(run[1], &dir, "bound.json", |d| {
        d["certified_bound"] = 0.01.into();
    });
    refused_middle(&run, &bound, "\"certified_bound\" is 0.01 where");
    let chi2 = tampered(run[1], &dir, "chi2.json", |d| {
        d["chi2"] = 0.5.into();
    });
    refused_middle(&run, &chi2, "\"chi2\" is 0.5 where");
    let extra = tampered(run[1], &dir, "fair.json", |d| {
        d["fair"] = true.into();
    });
    refused_middle(
        &run,
        &extra,
        "\"fair\" (true) is not a field of a fairness --json output",
    );
    // Unedited, the same files merge.
    let mut merge = vec!["merge", "--json"];
    merge.extend(&run);
    let merged = fairdeal(&merge);
    let doc: Value = serde_json::from_slice(&merged.stdout).unwrap();
    merged.verdict(verdict_status(&doc).unwrap());
}
