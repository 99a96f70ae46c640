//! Every `--threads` is bounded before any thread starts: an absurd count is a one-line usage
//! error, never thousands of threads.

mod common;

use common::fairdeal;

/// A command of each kind that takes `--threads`, with the arguments it needs to run.
const COMMANDS: &[&[&str]] = &[
    &["shuffle", "-i", "1-10", "--seed", "1"],
    &["poker", "table", "--hands", "1000", "--seed", "1"],
    &[
        "poker", "equity", "AsAh", "KsKd", "--trials", "1000", "--seed", "1",
    ],
    &["blackjack", "simulate", "--rounds", "1000", "--seed", "1"],
];

fn with_threads(command: &[&'static str], threads: &'static str) -> Vec<&'static str> {
    let mut args = command.to_vec();
    args.extend(["--threads", threads]);
    args
}

#[test]
fn absurd_thread_counts_are_refused_before_work_starts() {
    for command in COMMANDS {
        for threads in ["1000000", "18446744073709551615", "1025"] {
            let run = fairdeal(&with_threads(command, threads));
            assert_eq!(run.status, Some(2), "{command:?} --threads {threads}");
            let line = run.error();
            assert!(line.contains("more than the 1024 allowed"), "{line}");
        }
        let line = fairdeal(&with_threads(command, "0")).error();
        assert!(line.contains("must be at least 1"), "{command:?}: {line}");
    }
}

#[test]
fn a_few_more_threads_than_cores_are_allowed() {
    for command in COMMANDS {
        // 1,000 hands cannot certify the poker table's tolerance: insufficient (exit 4).
        let status = if command.starts_with(&["poker", "table"]) {
            4
        } else {
            0
        };
        fairdeal(&with_threads(command, "3")).verdict(status);
    }
}
