//! [`GnuRandom`] against GNU coreutils' `shuf --random-source=FILE`: the committed fixture
//! `fixtures/gnu_shuf.txt` (made by `fixtures/gen/gen_gnu.py` from the real `shuf`), and, when
//! `shuf` is installed, the live program on sources the fixture does not contain.

use fairdeal_testkit::process::output_with_deadline_feeding;
use fairdeal_testkit::scratch::Scratch;
use fairdeal_testkit::splitmix64_bytes;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use fairdeal_rng::{GnuError, GnuRandom};

const FIXTURE: &str = include_str!("../fixtures/gnu_shuf.txt");

/// What `shuf` prints for one case (the numbers, also those printed before an error) and its
/// exit status (1 when the source ran out).
fn port(mode: &str, bytes: &[u8], n: u64, k: u64) -> (Vec<u64>, i32) {
    let mut gnu = GnuRandom::new(bytes);
    let mut out = Vec::new();
    let result: Result<(), GnuError> = (|| {
        match mode {
            "perm" => out = gnu.randperm(k, n)?,
            "repeat" => {
                for _ in 0..k {
                    out.push(gnu.choose(n)?);
                }
            }
            "reservoir" => {
                let mut records = 0..n;
                let kept =
                    gnu.reservoir_sample(k as usize, || Ok::<_, GnuError>(records.next()))?;
                let order = gnu.randperm(kept.len() as u64, kept.len() as u64)?;
                out = order.into_iter().map(|i| kept[i as usize]).collect();
            }
            other => panic!("unknown mode {other}"),
        }
        Ok(())
    })();
    match result {
        Ok(()) => (out, 0),
        Err(GnuError::EndOfFile) => {
            // shuf prints nothing of a permutation it could not finish; -r prints each draw.
            if mode != "repeat" {
                out.clear();
            }
            (out, 1)
        }
        Err(other) => panic!("unexpected error {other}"),
    }
}

#[test]
fn matches_the_gnu_shuf_fixture() {
    let mut cases = 0;
    let mut ran_out = 0;
    for line in FIXTURE.lines() {
        let mut fields = line.split_ascii_whitespace();
        let mode = fields.next().unwrap();
        let mut number = || fields.next().unwrap().parse::<u64>().unwrap();
        let (seed, length, n, k, status) = (number(), number(), number(), number(), number());
        let expected: Vec<u64> = fields.map(|v| v.parse().unwrap()).collect();
        let bytes = splitmix64_bytes(seed, length as usize);
        let (got, got_status) = port(mode, &bytes, n, k);
        assert_eq!(
            (got, i64::from(got_status)),
            (expected, status as i64),
            "{line:.80}"
        );
        cases += 1;
        ran_out += usize::from(status == 1);
    }
    assert!(cases >= 500, "fixture looks truncated: {cases} cases");
    // Both outcomes are pinned: complete outputs, and the end of the source mid-way.
    assert!(
        ran_out >= 50 && cases - ran_out >= 400,
        "{ran_out} of {cases} ran out"
    );
}

#[test]
fn the_fixture_test_can_fail() {
    // Negative control: one flipped byte of the source changes the output of a case the
    // fixture pins, so the comparison above is not vacuous.
    let line = FIXTURE
        .lines()
        .find(|l| l.starts_with("perm 1 4096 1000 1000 0"))
        .unwrap();
    let expected: Vec<u64> = line
        .split_ascii_whitespace()
        .skip(6)
        .map(|v| v.parse().unwrap())
        .collect();
    let mut bytes = splitmix64_bytes(1, 4096);
    assert_eq!(port("perm", &bytes, 1000, 1000).0, expected);
    bytes[0] ^= 1;
    assert_ne!(port("perm", &bytes, 1000, 1000).0, expected);
}

/// Runs `shuf` with `args` on the source `bytes` (and `stdin`), or `None` when `shuf` is not
/// installed and `FAIRDEAL_REQUIRE_REFERENCES` is unset (or `0`).
fn live_shuf(bytes: &[u8], args: &[String], stdin: Option<&[u8]>) -> Option<(Vec<u64>, i32)> {
    let required = std::env::var("FAIRDEAL_REQUIRE_REFERENCES").is_ok_and(|v| v != "0");
    // One file per call (tests run in parallel), removed when the call returns.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join("fairdeal-rng-gnu");
    let source = Scratch::path(&root, &format!("source-{}", CALLS.fetch_add(1, Relaxed)));
    std::fs::write(&source, bytes).unwrap();
    let mut command = Command::new("shuf");
    command
        .args(args)
        .arg(format!("--random-source={}", source.display()))
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn();
    match child {
        Ok(child) => {
            // Killed (and the test failed) if it outlives the deadline.
            let output = output_with_deadline_feeding(child, stdin.unwrap_or_default());
            let text = String::from_utf8(output.stdout).unwrap();
            let status = output.status.code().expect("exited");
            assert!(
                status == 0 || String::from_utf8_lossy(&output.stderr).contains("end of file"),
                "shuf failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            Some((text.lines().map(|l| l.parse().unwrap()).collect(), status))
        }
        Err(error) if !required && error.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "skipping: shuf is not installed (set FAIRDEAL_REQUIRE_REFERENCES=1 to fail instead)"
            );
            None
        }
        Err(error) => {
            panic!("shuf could not run: {error} (FAIRDEAL_REQUIRE_REFERENCES is {required})")
        }
    }
}

#[test]
fn matches_the_live_gnu_shuf_on_new_sources() {
    // Seeds and lengths absent from the fixture (which uses seeds 1..=3).
    for (seed, length) in [(77u64, 5usize), (1234, 100), (99_999, 3000), (2026, 20_000)] {
        let bytes = splitmix64_bytes(seed, length);
        for (n, k) in [(7u64, 7u64), (300, 300), (4000, 4000), (1 << 20, 9)] {
            let args = vec![format!("-i0-{}", n - 1), format!("-n{k}")];
            let Some(reference) = live_shuf(&bytes, &args, None) else {
                return;
            };
            assert_eq!(
                port("perm", &bytes, n, k),
                reference,
                "perm seed {seed} len {length} n {n} k {k}"
            );
        }
        for (n, k) in [(13u64, 4u64), (2000, 17)] {
            let stdin: String = (0..n).map(|i| format!("{i}\n")).collect();
            let args = vec![format!("-n{k}")];
            let reference = live_shuf(&bytes, &args, Some(stdin.as_bytes())).unwrap();
            assert_eq!(
                port("reservoir", &bytes, n, k),
                reference,
                "reservoir seed {seed} len {length} n {n} k {k}"
            );
        }
        let args = vec!["-r".to_owned(), "-i0-999999".to_owned(), "-n40".to_owned()];
        let reference = live_shuf(&bytes, &args, None).unwrap();
        assert_eq!(
            port("repeat", &bytes, 1_000_000, 40),
            reference,
            "repeat seed {seed} len {length}"
        );
    }
}
