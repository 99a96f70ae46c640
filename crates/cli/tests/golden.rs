//! Golden outputs of the command line: what a seed makes `fairdeal` print, per backend
//! and per command.
//!
//! Seeded output is part of the API. The library's own golden vectors
//! (`crates/core/tests/golden.rs`, `crates/fairdeal/tests/golden.rs`) pin the algorithms; these
//! pin what a user sees, so a change in argument handling, seeding, the external path or a
//! report's JSON that moves a seeded result fails here too. Such a change must be deliberate
//! and listed in CHANGELOG.md under "Changed (seeded output)".
//!
//! The expected lines are in `golden/cli_outputs.txt`. After a deliberate change, rewrite it
//! from the current binary and review the diff:
//!
//! ```sh
//! FAIRDEAL_BLESS=1 cargo test -p fairdeal-cli --test golden
//! ```
//!
//! Without `FAIRDEAL_BLESS=1` the test only compares: a missing or empty fixture fails, and a
//! difference fails with the differing lines.

mod common;

use std::path::{Path, PathBuf};

use common::{Run, fairdeal, fairdeal_with_input, scratch};
use serde_json::Value;

/// The fixture, relative to this crate.
const FIXTURE: &str = "tests/golden/cli_outputs.txt";

/// Set to `1` to rewrite the fixture from the current binary instead of comparing.
const BLESS: &str = "FAIRDEAL_BLESS";

/// The seed of every shuffle case.
const SEED: &str = "42";

/// Lines `1..=EXTERNAL_LINES` are the external path's input: about 9 KB of text, nine times
/// the smallest budget.
const EXTERNAL_LINES: u32 = 2000;

/// The smallest `--memory` (`fairdeal_external::MIN_BUDGET`), so that the input above goes
/// through temporary files.
const EXTERNAL_BUDGET: &str = "1K";

/// FNV-1a of the bytes: one number that changes if any byte of a long output does.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// stdout's lines joined by spaces (for short outputs: the whole output on one golden line).
fn one_line(run: &Run) -> String {
    run.text().lines().collect::<Vec<_>>().join(" ")
}

/// Runs `fairdeal ARGS`, requires a clean success and returns its stdout as JSON.
fn json(args: &[&str]) -> Value {
    let run = fairdeal(args);
    // A judge exits with its verdict's status (0 fair, 3 unfair, 4 insufficient).
    assert!(
        matches!(run.status, Some(0 | 3 | 4)),
        "`fairdeal {}` failed: {}",
        args.join(" "),
        run.stderr
    );
    serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("`fairdeal {}` printed invalid JSON: {e}", args.join(" ")))
}

/// `value[key]`, which must exist.
#[track_caller]
fn field<'a>(value: &'a Value, key: &str) -> &'a Value {
    value
        .get(key)
        .unwrap_or_else(|| panic!("no field {key:?} in {value}"))
}

/// `name=value` for each named field of `object`, in the given order, space-separated.
#[track_caller]
fn fields(object: &Value, keys: &[&str]) -> String {
    keys.iter()
        .map(|key| format!("{key}={}", field(object, key)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `name=value` for every field of a JSON object, in the order printed.
fn all_fields(object: &Value) -> String {
    object
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {object}"))
        .iter()
        .map(|(key, value)| format!("{key}={value}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `fairdeal shuffle -i 1-20 --seed 42` on every backend of the catalogue.
fn shuffle_every_backend(lines: &mut Vec<String>) {
    let names: Vec<&str> = ::fairdeal::rng::backends().iter().map(|b| b.name).collect();
    assert!(names.len() >= 2, "the catalogue lists {names:?}");
    // The CLI offers exactly the library's catalogue, so no backend escapes this test.
    let listed = json(&["backends", "--json"]);
    let listed: Vec<&str> = listed
        .as_array()
        .expect("`backends --json` is an array")
        .iter()
        .map(|b| field(b, "name").as_str().expect("a backend name"))
        .collect();
    assert_eq!(
        listed, names,
        "`fairdeal backends` and fairdeal::rng::backends()"
    );
    for backend in names {
        let args = [
            "shuffle",
            "-i",
            "1-20",
            "--backend",
            backend,
            "--seed",
            SEED,
        ];
        let run = fairdeal(&args).ok();
        lines.push(format!("fairdeal {}: {}", args.join(" "), one_line(&run)));
    }
}

/// `shuffle -n 5`: a sample of a small range, and of a range too large to hold (the sparse
/// path that only `-n` allows).
fn shuffle_head_count(lines: &mut Vec<String>) {
    for range in ["1-20", "1-1000000000000"] {
        let args = ["shuffle", "-i", range, "-n", "5", "--seed", SEED];
        let run = fairdeal(&args).ok();
        lines.push(format!("fairdeal {}: {}", args.join(" "), one_line(&run)));
    }
}

/// The input lines `1..=EXTERNAL_LINES`.
fn external_input() -> Vec<u8> {
    (1..=EXTERNAL_LINES)
        .map(|i| format!("{i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// Runs `fairdeal shuffle ARGS -v --memory 1K -T DIR` on [`external_input`], requires that
/// it took the path whose note is `path` and left no temporary file behind.
fn external_run(args: &[&str], path: &str) -> Run {
    let temporary = scratch(&format!("golden-{}", args.join("_")));
    std::fs::create_dir_all(&temporary).expect("create the temporary directory");
    let temporary_arg = temporary.to_str().expect("a UTF-8 scratch path");
    let mut all_args = vec![
        "shuffle",
        "-v",
        "--small-memory",
        "--memory",
        EXTERNAL_BUDGET,
    ];
    all_args.extend(["-T", temporary_arg]);
    all_args.extend(args);
    let run = fairdeal_with_input(&all_args, &external_input());
    assert_eq!(run.status, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stderr,
        format!("fairdeal: note: input larger than --memory {EXTERNAL_BUDGET}: {path}\n"),
        "the input did not take the {path} path"
    );
    let left: Vec<PathBuf> = std::fs::read_dir(&temporary)
        .expect("read the temporary directory")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    assert!(left.is_empty(), "temporary files left behind: {left:?}");
    std::fs::remove_dir(&temporary).expect("remove the temporary directory");
    run
}

/// The external path: lines beyond `--memory` shuffled through temporary files, and `-n 5` of
/// them as a reservoir sample.
fn shuffle_external(lines: &mut Vec<String>) {
    let input = format!("seq 1 {EXTERNAL_LINES} | fairdeal shuffle --memory {EXTERNAL_BUDGET}");

    let args = ["--seed", SEED];
    let run = external_run(&args, "external shuffle");
    let mut order: Vec<u32> = run
        .numbers()
        .into_iter()
        .map(|n| u32::try_from(n).expect("an input line"))
        .collect();
    let first: Vec<String> = order.iter().take(10).map(u32::to_string).collect();
    lines.push(format!(
        "{input} {}: first {} lines {} fnv={:016x}",
        args.join(" "),
        first.len(),
        first.join(" "),
        fnv1a(&run.stdout)
    ));
    order.sort_unstable();
    assert!(
        order.into_iter().eq(1..=EXTERNAL_LINES),
        "the external shuffle is not a permutation of its input"
    );

    let args = ["-n", "5", "--seed", SEED];
    let run = external_run(&args, "reservoir sample");
    lines.push(format!("{input} {}: {}", args.join(" "), one_line(&run)));
}

/// `poker table --hands 2000 --seed 1 --json`: the category counts.
fn poker_table(lines: &mut Vec<String>) {
    let args = ["poker", "table", "--hands", "2000", "--seed", "1", "--json"];
    let report = json(&args);
    lines.push(format!(
        "fairdeal {}: total={} {}",
        args.join(" "),
        field(&report, "total"),
        all_fields(field(&report, "counts"))
    ));
}

/// `poker equity AsAh KsKd --trials 20000 --seed 1 --json`: each player's win and tie rates.
fn poker_equity(lines: &mut Vec<String>) {
    let args = [
        "poker", "equity", "AsAh", "KsKd", "--trials", "20000", "--seed", "1", "--json",
    ];
    let report = json(&args);
    for player in field(&report, "players")
        .as_array()
        .expect("players is an array")
    {
        lines.push(format!(
            "fairdeal {}: {}",
            args.join(" "),
            fields(player, &["hand", "win", "tie", "equity"])
        ));
    }
}

/// `blackjack simulate --rounds 20000 --seed 1 --json`: the rounds, the money (wagers, the
/// house edge and its standard error) and the outcome counts.
fn blackjack_simulate(lines: &mut Vec<String>) {
    let args = [
        "blackjack",
        "simulate",
        "--rounds",
        "20000",
        "--seed",
        "1",
        "--json",
    ];
    let report = json(&args);
    lines.push(format!(
        "fairdeal {}: {} {}",
        args.join(" "),
        fields(
            &report,
            &[
                "rounds",
                "initial_wagers",
                "house_edge_percent",
                "std_error_percent"
            ]
        ),
        all_fields(field(&report, "counts"))
    ));
}

/// `fairness --seed 1 --json`, small: the counts and the verdict.
fn fairness(lines: &mut Vec<String>) {
    let args = [
        "fairness", "--n", "3", "--trials", "2000", "--seed", "1", "--json",
    ];
    let report = json(&args);
    lines.push(format!(
        "fairdeal {}: {}",
        args.join(" "),
        fields(&report, &["counts", "chi2", "verdict"])
    ));
}

/// Every golden line, in the fixture's order.
fn golden_lines() -> Vec<String> {
    let mut lines = Vec::new();
    shuffle_every_backend(&mut lines);
    shuffle_head_count(&mut lines);
    shuffle_external(&mut lines);
    poker_table(&mut lines);
    poker_equity(&mut lines);
    blackjack_simulate(&mut lines);
    fairness(&mut lines);
    lines
}

/// The differences between `expected` and `got`, line by line, `-` for the fixture and `+` for
/// the binary.
fn diff(expected: &[&str], got: &[String]) -> String {
    let mut out = String::new();
    for i in 0..expected.len().max(got.len()) {
        let (old, new) = (expected.get(i).copied(), got.get(i).map(String::as_str));
        if old != new {
            out.push_str(&format!("line {}:\n", i + 1));
            if let Some(old) = old {
                out.push_str(&format!("  - {old}\n"));
            }
            if let Some(new) = new {
                out.push_str(&format!("  + {new}\n"));
            }
        }
    }
    out
}

#[test]
fn seeded_cli_outputs_match_the_golden_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let got = golden_lines();
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        std::fs::write(&path, got.join("\n") + "\n").expect("write the golden file");
        eprintln!("{BLESS}=1: wrote {} lines to {}", got.len(), path.display());
        return;
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the golden file {}: {e}; create it with {BLESS}=1",
            path.display()
        )
    });
    let expected: Vec<&str> = text.lines().collect();
    assert!(
        !expected.is_empty(),
        "the golden file {} is empty; create it with {BLESS}=1",
        path.display()
    );
    assert!(
        expected == got,
        "seeded CLI output differs from {} (- expected, + got):\n{}\n\
         If the change is deliberate, list it in CHANGELOG.md under \"Changed (seeded output)\" \
         and rewrite the file with `{BLESS}=1 cargo test -p fairdeal-cli --test golden`.",
        path.display(),
        diff(&expected, &got)
    );
}
