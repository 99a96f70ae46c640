//! Resource limits shape a run, they never crash it: under `ulimit -v` every command that starts
//! worker threads either runs (on as many threads as the address space left holds, with a note)
//! or fails with one `fairdeal: error:` line and exit status 1, never an abort (status 134,
//! "memory allocation of N bytes failed"). Each thread's glibc malloc arena reserves 64 MiB of
//! address space, which is what used to exhaust the limit.

#![cfg(target_os = "linux")]

mod common;

use common::Deadline as _;

use std::os::unix::process::ExitStatusExt as _;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// Every command that runs on a thread pool, each asking for more threads than the limits
/// below hold, and the commands without one.
const COMMANDS: &[&[&str]] = &[
    &[
        "poker",
        "table",
        "--hands",
        "100000",
        "--seed",
        "1",
        "--threads",
        "8",
    ],
    &["poker", "equity", "AsAh", "KsKd", "--threads", "16"],
    &[
        "poker",
        "equity",
        "AsAh",
        "KsKd",
        "--board",
        "2c3d4h",
        "--threads",
        "16",
    ],
    &["blackjack", "exact", "--decks", "8", "--threads", "16"],
    &[
        "blackjack",
        "simulate",
        "--rounds",
        "20000",
        "--seed",
        "1",
        "--threads",
        "16",
    ],
    &[
        "shuffle",
        "-i",
        "1-1000000",
        "--seed",
        "1",
        "--threads",
        "16",
    ],
    &["shuffle", "--seed", "1", "--threads", "8", "INPUT"],
    &["shuffle", "--seed", "1", "--memory", "1M", "INPUT"],
    &["fairness", "--n", "5", "--trials", "1000", "--seed", "1"],
    &["compare", "--backends", "pcg64", "--seed", "1"],
];

/// Runs `fairdeal ARGS` under `ulimit -v KIB` (the shell `exec`s the binary, so a signal that
/// kills it is the shell's status too).
fn under_ulimit_v(kib: u64, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!(r#"ulimit -v {kib} && exec "$0" "$@""#))
        .arg(BIN)
        .args(args)
        .output_deadline()
        .expect("run sh")
}

/// The contract: exit 0, or exit 1 with exactly one error line, the last; every other stderr
/// line a note. Returns a description of the breach, if any.
fn breach(output: &Output) -> Option<String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("fairdeal: error: "))
        .count();
    let notes = lines
        .iter()
        .filter(|l| l.starts_with("fairdeal: note: "))
        .count();
    let ok = match output.status.code() {
        // A judge's verdict (3 unfair, 4 insufficient) is a result, not an error.
        Some(0 | 3 | 4) => errors == 0 && notes == lines.len(),
        Some(1) => {
            errors == 1
                && notes + 1 == lines.len()
                && lines
                    .last()
                    .is_some_and(|l| l.starts_with("fairdeal: error: "))
        }
        _ => false,
    };
    (!ok).then(|| {
        format!(
            "status {:?} (signal {:?}), stderr {stderr:?}",
            output.status.code(),
            output.status.signal()
        )
    })
}

#[test]
fn the_checker_catches_an_abort_and_a_stray_line() {
    // Negative controls: what the old binary did (abort, status 134) and a second error line.
    let abort = Command::new("sh")
        .args([
            "-c",
            "echo 'memory allocation of 64 bytes failed' >&2; kill -ABRT $$",
        ])
        .output_deadline()
        .unwrap();
    assert!(breach(&abort).is_some());
    let two = Command::new("sh")
        .args([
            "-c",
            "printf 'fairdeal: error: a\\nfairdeal: error: b\\n' >&2; exit 1",
        ])
        .output_deadline()
        .unwrap();
    assert!(breach(&two).is_some());
    let panic = Command::new("sh")
        .args(["-c", "echo 'thread main panicked' >&2; exit 101"])
        .output_deadline()
        .unwrap();
    assert!(breach(&panic).is_some());
}

#[test]
fn every_command_runs_or_fails_in_one_line_under_ulimit_v() {
    let dir = common::fresh_dir("limits");
    // 3,000,000 lines (20 MB): above the size at which a whole shuffle scatters its lines into
    // buckets, and, at --memory 1M, through temporary files.
    let input = dir.join("lines.txt");
    let text: String = (0..3_000_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&input, text).unwrap();
    let input = input.to_str().unwrap();
    let mut breaches = Vec::new();
    let mut ran = 0;
    // KiB: from less than a worker's 66 MiB beside the binary to a few workers.
    for kib in [150_000, 200_000, 300_000, 450_000] {
        for command in COMMANDS {
            let args: Vec<&str> = command
                .iter()
                .map(|&a| if a == "INPUT" { input } else { a })
                .collect();
            // The abort was intermittent (a race between the threads' arenas): a few times.
            for _ in 0..3 {
                let output = under_ulimit_v(kib, &args);
                ran += usize::from(matches!(output.status.code(), Some(0 | 3 | 4)));
                if let Some(breach) = breach(&output) {
                    breaches.push(format!("ulimit -v {kib} {args:?}: {breach}"));
                }
            }
        }
    }
    assert!(breaches.is_empty(), "{breaches:#?}");
    // Most runs succeed on fewer threads: the limit shapes the run.
    assert!(
        ran > COMMANDS.len() * 4 * 3 / 2,
        "only {ran} runs succeeded"
    );
}

#[test]
fn fewer_threads_than_asked_are_noted_and_give_the_same_result() {
    let args = [
        "poker",
        "table",
        "--hands",
        "20000",
        "--seed",
        "7",
        "--threads",
        "16",
        "--json",
    ];
    // 20,000 hands cannot certify the category tolerance: insufficient (exit 4), both ways.
    let free = common::fairdeal(&args).verdict(4);
    let limited = under_ulimit_v(250_000, &args);
    assert_eq!(limited.status.code(), Some(4), "{limited:?}");
    let note = String::from_utf8(limited.stderr).unwrap();
    assert_eq!(note.lines().count(), 1, "{note}");
    assert!(
        note.starts_with("fairdeal: note: running on ") && note.contains("instead of 16"),
        "{note}"
    );
    assert!(note.contains("ulimit -v"), "{note}");
    assert_eq!(limited.stdout, free.stdout);
}

/// The external path's helper threads (its read-ahead, spill writer and second gather thread)
/// start only where the address space left holds them beside the work: each takes a stack and
/// a malloc arena of 64 MiB, and the pool is sized without them. They once took what a
/// bucket's buffer then needed, at limits a few MB wide ("memory exhausted: cannot allocate
/// 1414648 bytes", exit 1). Now every limit around there gives the same bytes as no limit.
#[test]
fn the_external_helpers_never_take_the_works_address_space() {
    let dir = common::fresh_dir("limits-helpers");
    // 44 MB of lines through --memory 4M: 32 buckets on disk, gathered two at a time.
    let input = dir.join("lines.txt");
    let text: String = (0..1_000_000)
        .map(|i| format!("{i:08} {}\n", "x".repeat(20 + (i * 7919) % 30)))
        .collect();
    std::fs::write(&input, text).unwrap();
    let args = [
        "shuffle",
        "--seed",
        "1",
        "--memory",
        "4M",
        input.to_str().unwrap(),
    ];
    let free = common::fairdeal(&args).ok();
    let mut failed = Vec::new();
    // The band was a few MB wide (found 4 MB apart from 200,000 to 440,000: at 300,000 KiB in a
    // release build, 304,000 in this test build); 2 MB apart, 50 MB either side of it.
    for kib in (256_000..=356_000).step_by(2_000) {
        let output = under_ulimit_v(kib, &args);
        if !output.status.success() || output.stdout != free.stdout {
            failed.push(format!(
                "ulimit -v {kib}: status {:?}, {}",
                output.status.code(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn no_room_even_for_the_work_is_refused_before_any_thread_starts() {
    // 68 MiB: the binary and its libraries map a few MiB of it, so less than the 66 MiB kept
    // for the work is left.
    let output = under_ulimit_v(70_000, &["blackjack", "exact", "--decks", "1"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("fairdeal: error: cannot start the worker threads: the address-space limit (ulimit -v) leaves "),
        "{stderr}"
    );
    assert!(stderr.contains("raise ulimit -v by at least"), "{stderr}");
}

#[test]
fn a_thread_that_cannot_start_is_one_line() {
    // `ulimit -u` binds only an unprivileged user (root ignores it): run as nobody.
    let Some(runner) = common::as_nobody() else {
        eprintln!("skipped: neither setpriv nor runuser can run a command as nobody");
        return;
    };
    let mut command = match runner.split_first() {
        Some((first, rest)) => {
            let mut command = Command::new(first);
            command.args(rest).arg("bash");
            command
        }
        None => Command::new("bash"),
    };
    let output = command
        .args(["-c", r#"ulimit -u 4 && exec "$0" "$@""#, BIN])
        .args(["poker", "equity", "AsAh", "KsKd", "--board", "2c3d4h"])
        .args(["--threads", "100"])
        .output_deadline()
        .expect("run as nobody");
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let line = stderr.trim_end();
    let prefix = "fairdeal: error: cannot start the worker threads: ";
    assert!(line.starts_with(prefix), "{line}");
    // The operating system's message once (rayon's error prints its cause and returns it).
    let cause = &line[prefix.len()..];
    assert_eq!(line.matches(cause).count(), 1, "{line}");
}

#[test]
fn a_range_beyond_the_default_budget_names_the_limit_the_user_has() {
    // Under `ulimit -v` the default budget is a fraction of that limit. A range beyond it was a
    // usage error (exit 2) saying "more than --memory 75000K", a flag never passed; it is a
    // runtime failure (exit 1, as GNU's `memory exhausted`) naming `ulimit -v`.
    let output = under_ulimit_v(300_000, &["shuffle", "-i", "1-50000000"]);
    assert_eq!(breach(&output), None);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("more than the default budget 75000K (1/4 of ulimit -v (293.0 MiB));"),
        "{stderr}"
    );
    // Given --memory, the same refusal names it and stays a usage error.
    let output = under_ulimit_v(300_000, &["shuffle", "--memory", "1M", "-i", "1-50000000"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("more than --memory 1M;"), "{stderr}");
}
