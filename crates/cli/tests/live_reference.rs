//! Bit-exactness against the real `python3` and `java` on this machine, for seeds and sizes the
//! committed fixtures do not contain (the fixture tests in `bit_exact.rs` always run; these
//! complement them when the interpreters are installed and are skipped, with a note on
//! stderr, when they are not).
//!
//! Only a *missing* interpreter skips, and only outside CI: `.ci/run` installs both and sets
//! `FAIRDEAL_REQUIRE_REFERENCES=1`, which turns a missing one into a failure. An interpreter
//! that is present but fails (a compile error, a crash) always fails the test.

mod common;

use common::Deadline as _;

use std::process::Command;

use common::{inplace_order, scratch};

/// `(seed, n)` pairs absent from `crates/rng/fixtures/*_shuffle.txt`.
const CASES: &[(u64, usize)] = &[
    (5, 2),
    (99, 3),
    (2026, 13),
    (31_337, 52),
    (1 << 40, 52),
    (123_456_789, 257),
    ((1 << 63) + 11, 500),
    (18_446_744_073_709_551_000, 999),
];

/// Parses "seed n v0 v1 …" lines into `(seed, n) -> order`.
fn parse(text: &str) -> Vec<((u64, usize), Vec<u64>)> {
    text.lines()
        .map(|line| {
            let mut fields = line
                .split_ascii_whitespace()
                .map(|f| f.parse::<u64>().expect("a number"));
            let seed = fields.next().expect("seed");
            let n = fields.next().expect("n") as usize;
            ((seed, n), fields.collect())
        })
        .collect()
}

fn compare(backend: &str, reference: &str) {
    let rows = parse(reference);
    assert_eq!(rows.len(), CASES.len(), "reference output: {reference}");
    for ((seed, n), order) in rows {
        assert_eq!(order.len(), n);
        assert_eq!(
            inplace_order(backend, &seed.to_string(), n),
            order,
            "{backend}: seed {seed}, n {n}"
        );
    }
}

/// Runs `command` and returns its stdout, or `None` when the program is not installed and
/// `FAIRDEAL_REQUIRE_REFERENCES` is unset (or `0`).
///
/// # Panics
///
/// When the program runs but fails, or is missing while references are required.
fn reference_output(mut command: Command) -> Option<String> {
    let program = command.get_program().to_string_lossy().into_owned();
    let required = std::env::var("FAIRDEAL_REQUIRE_REFERENCES").is_ok_and(|v| v != "0");
    match command.output_deadline() {
        Ok(output) => {
            assert!(
                output.status.success(),
                "{program} failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
            Some(String::from_utf8(output.stdout).expect("UTF-8 output"))
        }
        Err(error) if !required && error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "skipping: {program} is not installed (set FAIRDEAL_REQUIRE_REFERENCES=1 to fail instead)"
            );
            None
        }
        Err(error) => {
            panic!("{program} could not run: {error} (FAIRDEAL_REQUIRE_REFERENCES is {required})")
        }
    }
}

fn cases_arg() -> Vec<String> {
    CASES.iter().map(|(s, n)| format!("{s}:{n}")).collect()
}

#[test]
fn python_random_shuffle_matches_for_new_seeds() {
    const SCRIPT: &str = "import random, sys\n\
        for case in sys.argv[1:]:\n    \
            seed, n = map(int, case.split(':'))\n    \
            random.seed(seed)\n    \
            x = list(range(n))\n    \
            random.shuffle(x)\n    \
            print(seed, n, *x)\n";
    let mut python = Command::new("python3");
    python.arg("-c").arg(SCRIPT).args(cases_arg());
    if let Some(output) = reference_output(python) {
        compare("python", &output);
    }
}

#[test]
fn java_collections_shuffle_matches_for_new_seeds() {
    const SOURCE: &str = "import java.util.*;\n\
        public class LiveShuffle {\n  \
          public static void main(String[] args) {\n    \
            for (String c : args) {\n      \
              String[] p = c.split(\":\");\n      \
              long seed = Long.parseUnsignedLong(p[0]);\n      \
              int n = Integer.parseInt(p[1]);\n      \
              List<Integer> list = new ArrayList<>();\n      \
              for (int i = 0; i < n; i++) list.add(i);\n      \
              Collections.shuffle(list, new Random(seed));\n      \
              StringBuilder sb = new StringBuilder(p[0] + \" \" + n);\n      \
              for (int v : list) sb.append(' ').append(v);\n      \
              System.out.println(sb);\n    \
            }\n  \
          }\n\
        }\n";
    let source = scratch("LiveShuffle.java");
    std::fs::write(&source, SOURCE).unwrap();
    // Java 11+ runs a single source file directly.
    let mut java = Command::new("java");
    java.arg(&source).args(cases_arg());
    let output = reference_output(java);
    let _ = std::fs::remove_file(&source);
    if let Some(output) = output {
        compare("java", &output);
    }
}
