//! The binary called `shuf` against the real GNU `shuf` (`/usr/bin/shuf`): the behaviours GNU
//! coreutils' `tests/shuf` and uutils' `tests/by-util/test_shuf.rs` check, with the same exit
//! status, the same stdout and (for failures, in the C locale) the same stderr; and
//! `--random-source=FILE` output byte for byte, for `-e`, `-i`, files, standard input (a file
//! and a pipe), `-n` and `-r`, from random files of several sizes, both as `shuf` and as
//! `fairdeal shuffle --random-source`.
//!
//! Skipped, with a note on stderr, when `shuf` is not installed, unless
//! `FAIRDEAL_REQUIRE_REFERENCES=1` (as `.ci/run` sets), which makes a missing `shuf` a failure.

mod common;

use fairdeal_testkit::splitmix64_bytes;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Scratch, fresh_dir};

/// Standard input of a run.
#[derive(Clone, Copy)]
enum Stdin<'a> {
    Empty,
    /// Through a pipe (size unknown: `-n` samples a reservoir).
    Pipe(&'a [u8]),
    /// Redirected from a file (`< FILE`: size known).
    File(&'a Path),
}

#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn run(program: &Path, args: &[&str], stdin: Stdin<'_>, cwd: &Path) -> Outcome {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(cwd)
        .env("LC_ALL", "C")
        .env_remove("POSIXLY_CORRECT")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Stdin::Empty => command.stdin(Stdio::null()),
        Stdin::Pipe(_) => command.stdin(Stdio::piped()),
        Stdin::File(path) => command.stdin(std::fs::File::open(path).unwrap()),
    };
    let child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", program.display()));
    let output = common::output_with_deadline_feeding(
        child,
        match stdin {
            Stdin::Pipe(bytes) => bytes,
            Stdin::Empty | Stdin::File(_) => b"",
        },
    );
    // Both tools name themselves as invoked (argv[0], here a full path): compare as `shuf`.
    let stderr =
        String::from_utf8_lossy(&output.stderr).replace(&program.display().to_string(), "shuf");
    Outcome {
        status: output.status.code(),
        stdout: output.stdout,
        stderr,
    }
}

/// The reference `shuf`, or `None` (skip) when it is missing and not required.
fn reference() -> Option<PathBuf> {
    let required = std::env::var("FAIRDEAL_REQUIRE_REFERENCES").is_ok_and(|v| v != "0");
    let path = PathBuf::from("/usr/bin/shuf");
    if path.exists() {
        return Some(path);
    }
    assert!(
        !required,
        "/usr/bin/shuf is missing and FAIRDEAL_REQUIRE_REFERENCES is set"
    );
    eprintln!(
        "skipping: /usr/bin/shuf is not installed (set FAIRDEAL_REQUIRE_REFERENCES=1 to fail instead)"
    );
    None
}

/// A directory holding `shuf`, a symlink to the built `fairdeal`, and the test's files.
fn workspace(name: &str) -> (Scratch, PathBuf) {
    let dir = fresh_dir(name);
    let link = dir.join("shuf");
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_fairdeal"), &link).unwrap();
    #[cfg(not(unix))]
    std::fs::copy(env!("CARGO_BIN_EXE_fairdeal"), &link).unwrap();
    (dir, link)
}

fn sorted_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    lines.sort_unstable();
    lines
}

/// How two runs without a random source must agree.
#[derive(Debug, Clone, Copy)]
enum Agree {
    /// The same bytes (deterministic output: errors, empty, one line, --random-source).
    Exact,
    /// The same lines in any order.
    Lines,
    /// The same number of lines.
    Count,
    /// Only the exit status (`--help`, `--version`: our own text).
    Status,
}

#[test]
fn gnu_and_uutils_behaviours_match_gnu_shuf() {
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-behaviours");
    std::fs::write(
        dir.join("in"),
        (1..=100).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    std::fs::write(dir.join("nonl"), b"a\nb\nc").unwrap();
    std::fs::write(dir.join("empty"), b"").unwrap();
    std::fs::write(dir.join("r1k"), splitmix64_bytes(9, 1000)).unwrap();
    std::fs::write(dir.join("r2"), splitmix64_bytes(9, 2)).unwrap();
    let max = u64::MAX.to_string();
    let one_to_max = format!("-i1-{max}");
    let zero_to_max = format!("-i0-{max}");
    let max_max = format!("-i{max}-{max}");
    let big_n = "99999999999999999999999";
    use Agree::{Count, Exact, Lines, Status};
    let cases: Vec<(Vec<&str>, Agree)> = vec![
        // Inputs.
        (vec!["in"], Lines),
        (vec!["-"], Lines),
        (vec!["nonl"], Lines),
        (vec!["empty"], Exact),
        (vec!["-e"], Exact),
        (vec!["-e", "a", "b", "c"], Lines),
        (vec!["-i", "1-0"], Exact),
        (vec!["-i", "0-0"], Exact),
        (vec!["-i", "3-2"], Exact),
        (vec!["-i", "7-9"], Lines),
        (vec!["--input-range=1-50"], Lines),
        (vec![&max_max], Exact),
        // Counts: repeated -n keeps the smallest; overflow is "no limit"; -n 0 opens nothing.
        (vec!["-n", "3", "in"], Count),
        (vec!["-n", "3", "-n", "1", "in"], Count),
        (vec!["-n", "1", "-n", "3", "in"], Count),
        (vec!["--head-count=5", "-i", "1-10"], Count),
        (vec!["--head=5", "-i", "1-10"], Count),
        (vec!["-n", big_n, "-i", "1-10"], Lines),
        (vec!["-n", " +2", "-e", "a", "b", "c"], Count),
        (vec!["-n0", "/nonexistent"], Exact),
        (vec!["-n", "0", "-i", "1-10"], Exact),
        (vec!["-e", "-n2", "a\nb", "c\nd"], Count),
        (vec!["-e", "a\nb"], Exact),
        // Probe row P7: an ambiguous option named with its value; an empty -o name.
        (vec!["--r=r1k", "in"], Exact),
        (vec!["-o", "", "in"], Exact),
        // Repeated flags are accepted.
        (vec!["-z", "-z", "-e", "a"], Exact),
        (vec!["-e", "a", "b", "-e", "c"], Lines),
        (vec!["-r", "-r", "-n", "4", "-e", "a"], Exact),
        (vec!["-o", "out1", "-o", "out1", "-e", "x"], Exact),
        (
            vec!["--random-source=r1k", "--random-source=r1k", "-i1-9"],
            Exact,
        ),
        // Repeat.
        (vec!["-r", "-n", "10", "-i", "0-9"], Count),
        (vec!["-r", "-i", "5-5", "-n", "3"], Exact),
        (vec!["--repeat", "-n", "0", "-i", "0-9"], Exact),
        (vec!["-r", "-n", "0", "-i", "1-0"], Exact),
        (vec!["-r", "empty"], Exact),
        (vec!["-r", "-n", "2", "-e"], Exact),
        (vec!["-r", "-i", "1-0"], Exact),
        // Zero-terminated.
        (vec!["-z", "-e", "a", "b"], Count),
        (vec!["--zero-terminated", "-n", "1", "-e", "a"], Exact),
        // Operands, options anywhere, --.
        (vec!["-e", "a", "-n", "1"], Exact),
        (vec!["-e", "--", "-n"], Exact),
        (vec!["--", "-e"], Exact),
        (vec!["in", "in"], Exact),
        (vec!["-i0-0", "extra"], Exact),
        (vec!["-i0-9", "-e", "A", "B"], Exact),
        (vec!["-e", "-i0-0"], Exact),
        // Ranges and counts that are wrong.
        (vec!["-i1-3", "-i1-3"], Exact),
        (vec!["-i7", "-i1-3"], Exact),
        (vec!["-i1"], Exact),
        (vec!["-iA"], Exact),
        (vec!["-i1-"], Exact),
        (vec!["-i1-A"], Exact),
        (vec!["-i", "5-3"], Exact),
        (vec!["-i", "1--3"], Exact),
        (vec!["-i", "18446744073709551616-1"], Exact),
        (vec![&one_to_max], Exact),
        (vec![&zero_to_max], Exact),
        (vec!["-nA"], Exact),
        (vec!["-n", "-1", "in"], Exact),
        (vec!["-n", "3", "-n", "x", "in"], Exact),
        // Files.
        (vec!["/nonexistent"], Exact),
        (vec!["-o", "out-a", "-o", "out-b", "-e", "x"], Exact),
        (vec!["-o", "/nonexistent/dir/out", "-e", "x"], Exact),
        (
            vec!["--random-source=r1k", "--random-source=r2", "-e", "a"],
            Exact,
        ),
        (vec!["--random-source=/nonexistent", "-i1-5"], Exact),
        (vec!["--random-source=/nonexistent", "-i1-1"], Exact),
        (vec!["--random-source=/nonexistent", "-n0", "-i1-5"], Exact),
        (vec!["--random-source=r2", "-i1-100"], Exact),
        (vec!["--random-source=/dev/null", "-e", "a"], Exact),
        (vec!["--random-source=/dev/null", "-e", "a", "b"], Exact),
        (vec!["--random-source=/dev/null", "-n1", "-"], Exact),
        // getopt's errors.
        (vec!["-x"], Exact),
        (vec!["--bogus"], Exact),
        (vec!["--r", "-e", "a"], Exact),
        (vec!["-n"], Exact),
        (vec!["--head-count"], Exact),
        (vec!["--echo=3"], Exact),
        (vec!["--rand=r1k", "-i1-9"], Exact),
        (vec!["--help"], Status),
        (vec!["--help", "--bogus"], Status),
        (vec!["--bogus", "--help"], Exact),
        (vec!["--version"], Status),
    ];
    let stdin = b"x\ny\nz\n";
    for (args, agree) in cases {
        let theirs = run(&gnu, &args, Stdin::Pipe(stdin), &dir);
        let mine = run(&ours, &args, Stdin::Pipe(stdin), &dir);
        assert_eq!(
            mine.status, theirs.status,
            "shuf {args:?}: ours {mine:?}, GNU {theirs:?}"
        );
        if theirs.status != Some(0) {
            assert_eq!(mine.stderr, theirs.stderr, "shuf {args:?}");
        } else {
            assert!(mine.stderr.is_empty(), "shuf {args:?}: {}", mine.stderr);
        }
        match agree {
            Exact => assert_eq!(mine.stdout, theirs.stdout, "shuf {args:?}"),
            Lines => assert_eq!(
                sorted_lines(&mine.stdout),
                sorted_lines(&theirs.stdout),
                "shuf {args:?}"
            ),
            Count => assert_eq!(
                mine.stdout
                    .iter()
                    .filter(|&&b| b == b'\n' || b == 0)
                    .count(),
                theirs
                    .stdout
                    .iter()
                    .filter(|&&b| b == b'\n' || b == 0)
                    .count(),
                "shuf {args:?}"
            ),
            Status => {}
        }
    }
    // The same -o twice wrote that file.
    assert_eq!(std::fs::read(dir.join("out1")).unwrap(), b"x\n");
}

#[test]
fn the_comparison_can_fail() {
    // Negative control: a different random source gives a different order, so the byte-for-byte
    // comparisons below are not vacuous.
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-negative");
    std::fs::write(dir.join("a"), splitmix64_bytes(1, 4096)).unwrap();
    std::fs::write(dir.join("b"), splitmix64_bytes(2, 4096)).unwrap();
    let mine = run(&ours, &["--random-source=a", "-i1-100"], Stdin::Empty, &dir);
    let theirs = run(&gnu, &["--random-source=b", "-i1-100"], Stdin::Empty, &dir);
    assert_eq!((mine.status, theirs.status), (Some(0), Some(0)));
    assert_ne!(mine.stdout, theirs.stdout);
}

#[test]
fn random_source_output_is_gnu_shuf_byte_for_byte() {
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-random-source");
    let fairdeal = PathBuf::from(env!("CARGO_BIN_EXE_fairdeal"));
    let lines: String = (0..3000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.join("lines"), &lines).unwrap();
    let zero = lines.replace('\n', "\0");
    std::fs::write(dir.join("zero"), &zero).unwrap();
    // Larger than coreutils' 8 MiB: -n samples a reservoir even from a file.
    let big: String = (0..1_300_000).map(|i| format!("{i}\n")).collect();
    assert!(big.len() > 8 << 20);
    std::fs::write(dir.join("big"), &big).unwrap();
    let lines_path = dir.join("lines");
    let mut compared = 0;
    let mut ran_out = 0;
    for (seed, size) in [
        (11u64, 1usize),
        (12, 7),
        (13, 100),
        (14, 3000),
        (15, 70_000),
        (16, 3_000_000),
    ] {
        let name = format!("random-{size}");
        std::fs::write(dir.join(&name), splitmix64_bytes(seed, size)).unwrap();
        let source = format!("--random-source={name}");
        let s = source.as_str();
        let mut cases: Vec<(Vec<&str>, Stdin<'_>)> = vec![
            (vec![s, "-e", "a", "b", "c", "d", "e"], Stdin::Empty),
            (
                vec![s, "-n", "2", "-e", "a", "b", "c", "d", "e"],
                Stdin::Empty,
            ),
            (vec![s, "-i", "1-1000"], Stdin::Empty),
            (vec![s, "-i", "5-20", "-n", "4"], Stdin::Empty),
            (vec![s, "-i", "0-4294967295", "-n", "6"], Stdin::Empty),
            (vec![s, "-i", "10-9999999", "-n", "3"], Stdin::Empty),
            (vec![s, "lines"], Stdin::Empty),
            (vec![s, "-n", "10", "lines"], Stdin::Empty),
            (vec![s, "-z", "-n", "10", "zero"], Stdin::Empty),
            (vec![s], Stdin::File(&lines_path)),
            (vec![s, "-n", "10"], Stdin::File(&lines_path)),
            (vec![s, "-n", "10"], Stdin::Pipe(lines.as_bytes())),
            (vec![s, "-n", "5000"], Stdin::Pipe(lines.as_bytes())),
            (vec![s, "-"], Stdin::Pipe(lines.as_bytes())),
            (vec![s, "-n", "4", "big"], Stdin::Empty),
            (vec![s, "-r", "-n", "20", "-i", "1-6"], Stdin::Empty),
            (vec![s, "-r", "-n", "20", "lines"], Stdin::Empty),
            (vec![s, "-r", "-n", "7"], Stdin::Pipe(lines.as_bytes())),
        ];
        // -r without -n runs until the source ends: about 8 lines per byte.
        if size <= 3000 {
            cases.push((vec![s, "-r", "-e", "heads", "tails"], Stdin::Empty));
        }
        for (args, stdin) in cases {
            let theirs = run(&gnu, &args, stdin, &dir);
            let mine = run(&ours, &args, stdin, &dir);
            assert_eq!(mine, theirs, "shuf {args:?}");
            // fairdeal shuffle --random-source: the same output and status, its own prefix.
            let shuffle_args = [&["shuffle"][..], &args[..]].concat();
            let long = run(&fairdeal, &shuffle_args, stdin, &dir);
            assert_eq!(
                (long.status, &long.stdout),
                (theirs.status, &theirs.stdout),
                "fairdeal {shuffle_args:?}"
            );
            if theirs.status != Some(0) {
                assert!(theirs.stderr.contains("end of file"), "{}", theirs.stderr);
                assert_eq!(
                    long.stderr,
                    theirs.stderr.replacen("shuf: ", "fairdeal: error: ", 1)
                );
                ran_out += 1;
            }
            compared += 1;
        }
    }
    // Both outcomes are covered: complete outputs, and sources that run out mid-way.
    assert!(
        ran_out >= 10 && compared - ran_out >= 40,
        "{ran_out} of {compared} ran out"
    );
}

/// `fairdeal shuffle` keeps its own exit statuses but takes GNU's harmless habits: repeated
/// flags, an `-e` argument holding a newline stays one record, `-n 0` opens nothing.
#[test]
fn fairdeal_shuffle_takes_gnus_harmless_habits() {
    let fairdeal = PathBuf::from(env!("CARGO_BIN_EXE_fairdeal"));
    let dir = fresh_dir("shuffle-habits");
    let ok = |args: &[&str]| {
        let outcome = run(&fairdeal, args, Stdin::Empty, &dir);
        assert_eq!(outcome.status, Some(0), "{args:?}: {}", outcome.stderr);
        assert!(outcome.stderr.is_empty(), "{args:?}: {}", outcome.stderr);
        outcome.stdout
    };
    assert_eq!(ok(&["shuffle", "-z", "-z", "-e", "a"]), b"a\0");
    assert_eq!(
        ok(&["shuffle", "-r", "-r", "-n", "3", "-e", "a"]),
        b"a\na\na\n"
    );
    let mut three = ok(&["shuffle", "-e", "a", "b", "-e", "c"]);
    three.sort_unstable();
    assert_eq!(three, b"\n\n\nabc");
    assert_eq!(ok(&["shuffle", "-n0", "/nonexistent"]), b"");
    assert_eq!(ok(&["shuffle", "-n", "0", "-r", "-i", "1-0"]), b"");
    for seed in ["1", "2", "3", "4"] {
        let out = ok(&["shuffle", "--seed", seed, "-e", "a\nb", "c\nd"]);
        assert!(
            out == b"a\nb\nc\nd\n" || out == b"c\nd\na\nb\n",
            "{:?}",
            String::from_utf8_lossy(&out)
        );
    }
    // Negative control: the -n 0 check would see an opened missing file.
    let missing = run(
        &fairdeal,
        &["shuffle", "-n1", "/nonexistent"],
        Stdin::Empty,
        &dir,
    );
    assert_eq!(missing.status, Some(1), "{}", missing.stderr);
}

#[test]
fn random_source_beyond_the_budget_is_refused_saying_what_would_work() {
    // GNU's plan holds every record (GNU has no external shuffle to reproduce): a file larger
    // than --memory is refused before it is read, a pipe once the budget is full; -n K on a
    // stream (a reservoir) and ranges hold no input and run at any budget.
    let dir = fresh_dir("gnu-budget");
    let source = dir.join("r64k");
    std::fs::write(&source, splitmix64_bytes(9, 1 << 16)).unwrap();
    let input = dir.join("in.txt");
    let text: String = (0..10_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(&input, &text).unwrap();
    let source = source.to_str().unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        [
            "shuffle",
            "--random-source",
            source,
            "--small-memory",
            "--memory",
            "4K",
        ]
        .iter()
        .chain(extra)
        .map(|&a| a.to_owned())
        .collect()
    };
    let refused = |extra: &[&str], stdin: &[u8]| {
        let args = args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let line = common::fairdeal_with_input(&args, stdin).error();
        assert!(
            line.contains(
                "--random-source reproduces GNU shuf's output only with the whole input in memory"
            ),
            "{line}"
        );
        assert!(
            line.contains("raise --memory, or use --seed instead"),
            "{line}"
        );
        line
    };
    let file = refused(&[input.to_str().unwrap()], b"");
    assert!(file.contains("(48890 bytes)"), "{file}");
    refused(&["-r", "-n", "3", input.to_str().unwrap()], b"");
    // Probe row P9: -n K from a file of at most 8 MiB, which GNU reads whole (no reservoir),
    // is held too, so it obeys --memory (on main it ran, holding the file past the budget).
    let sample = refused(&["-n", "3", input.to_str().unwrap()], b"");
    assert!(sample.contains("(48890 bytes)"), "{sample}");
    refused(&[], text.as_bytes());
    // Negative controls: a sample of a stream, a range, and a budget that holds the file.
    for extra in [&["-n", "3"][..], &["-i", "1-100"]] {
        let args = args(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        common::fairdeal_with_input(&args, text.as_bytes()).ok();
    }
    let run = common::fairdeal(&[
        "shuffle",
        "--random-source",
        source,
        "--memory",
        "1M",
        input.to_str().unwrap(),
    ])
    .ok();
    let mut lines: Vec<&str> = std::str::from_utf8(&run.stdout).unwrap().lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<&str> = text.lines().collect();
    expected.sort_unstable();
    assert_eq!(lines, expected);
}

#[test]
fn a_closed_stdin_or_stdout_fails_as_in_gnu_shuf() {
    // The runtime reopens a closed descriptor on /dev/null before `main`; without the
    // constructor in closed_stdio.rs these runs read empty input or wrote nowhere, exit 0.
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-closed");
    std::fs::write(dir.join("in"), "a\nb\n").unwrap();
    let cases: [(u8, &[&str]); 11] = [
        (0, &[]),
        (0, &["-n", "1"]),
        (0, &["-"]),
        (1, &["-i", "1-3"]),
        (1, &["--help"]),
        (1, &["-e", "a"]),
        // Nothing written to a closed stdout is no error (GNU's close_stdout), and a closed
        // stdin that is not read is none either.
        (1, &["-n", "0", "-i", "1-3"]),
        (0, &["-i", "1-3", "-o", "out"]),
        // The closed stream named as a file: "Bad file descriptor", not the placeholder's
        // "Is a directory" (probe row P2).
        (1, &["-i", "1-3", "-o", "/dev/stdout"]),
        (1, &["-e", "a", "-o", "/dev/fd/1"]),
        (0, &["/dev/stdin"]),
    ];
    for (fd, args) in cases {
        let run = |program: &Path| {
            let mut run = common::run_with_closed_in(fd, program, args, &dir);
            run.stderr = run.stderr.replace(&program.display().to_string(), "shuf");
            run
        };
        let (expected, actual) = (run(&gnu), run(&ours));
        assert_eq!(
            (actual.status, &actual.stdout, &actual.stderr),
            (expected.status, &expected.stdout, &expected.stderr),
            "fd {fd} closed, shuf {args:?}"
        );
    }
}

#[test]
fn many_short_lines_fit_where_gnu_shuf_fits() {
    // Probe row P5: a `Vec` per held line took 2.6 times GNU's memory, and under a `ulimit -v`
    // GNU works within, the personality aborted (exit 134). 4 M lines of 8 bytes under 200 MB:
    // GNU holds 32 MB of bytes, 32 MB of pointers and a 32 MB permutation; a `Vec` per line
    // alone was 224 MB. Where memory really runs out, both say `memory exhausted`, exit 1.
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-many-lines");
    let lines: String = (0..4_000_000u64)
        .map(|i| format!("{:07}\n", (i * 7_919) % 10_000_000))
        .collect();
    std::fs::write(dir.join("in"), &lines).unwrap();
    std::fs::write(dir.join("big"), lines.repeat(3)).unwrap();
    std::fs::write(dir.join("random"), splitmix64_bytes(5, 20_000_000)).unwrap();
    let under = |program: &Path, kib: u64, file: &str| {
        let script = format!(r#"ulimit -v {kib} && exec "$0" --random-source=random {file}"#);
        let output = Command::new("sh")
            .args(["-c", &script])
            .arg(program)
            .current_dir(&dir)
            .env("LC_ALL", "C")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map(common::output_with_deadline)
            .unwrap();
        let stderr =
            String::from_utf8_lossy(&output.stderr).replace(&program.display().to_string(), "shuf");
        (output.status.code(), output.stdout, stderr)
    };
    let expected = under(&gnu, 200_000, "in");
    assert_eq!(expected.0, Some(0), "GNU: {}", expected.2);
    assert_eq!(under(&ours, 200_000, "in"), expected);
    let exhausted = under(&gnu, 100_000, "big");
    assert_eq!(
        (exhausted.0, exhausted.2.as_str()),
        (Some(1), "shuf: memory exhausted\n")
    );
    assert_eq!(under(&ours, 100_000, "big"), exhausted);
}

#[test]
fn random_source_dev_stdin_is_the_input_file_as_in_gnu() {
    // Probe row P6: GNU reopens a single FILE as its standard input (`freopen`), so
    // `--random-source=/dev/stdin FILE` takes its random bytes from FILE; ours read the
    // original standard input.
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-dev-stdin");
    std::fs::write(dir.join("five"), "a\nb\nc\nd\ne\n").unwrap();
    let big = dir.join("big");
    std::fs::write(&big, splitmix64_bytes(11, 100_000)).unwrap();
    for args in [
        &["--random-source=/dev/stdin", "five"][..],
        &["--random-source=/dev/stdin", "-n", "2", "five"],
        &["--random-source=/dev/stdin", "-r", "-n", "4", "five"],
    ] {
        let expected = run(&gnu, args, Stdin::File(&big), &dir);
        assert_eq!(expected.status, Some(0), "{args:?}: {}", expected.stderr);
        assert_eq!(
            run(&ours, args, Stdin::File(&big), &dir),
            expected,
            "{args:?}"
        );
    }
}

/// Probe row P7: names and values that are not UTF-8 (or hold shell specials) are quoted in
/// messages as GNU quotes them (`''$'\377''.txt'`), byte for byte; on main they came out
/// as U+FFFD in plain quotes.
#[cfg(unix)]
#[test]
fn messages_quote_names_that_are_not_text_as_gnu_shuf() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let Some(gnu) = reference() else { return };
    let (dir, ours) = workspace("shuf-quoting");
    std::fs::write(dir.join("five.txt"), b"a\nb\nc\nd\ne\n").unwrap();
    std::fs::write(dir.join(OsStr::from_bytes(b"e\xff:")), b"").unwrap();
    let cases: [&[&[u8]]; 8] = [
        &[b"\xff.txt"],
        &[b"--rand=five.txt", b"a'\xff b"],
        &[b"--random-source=e\xff:", b"five.txt"],
        &[b"--random-source=\xffx", b"-n", b"1", b"-e", b"a", b"b"],
        &[b"-n", b"\xff", b"-e", b"a"],
        &[b"-i", b"\xff-3"],
        &[b"-e", b"a", b"-o", b"o\xff/x"],
        &[b"five.txt", b"\xfe\t;"],
    ];
    for args in cases {
        let outcome = |program: &Path| {
            let mut command = Command::new(program);
            command
                .args(args.iter().map(|a| OsStr::from_bytes(a)))
                .current_dir(&dir)
                .env("LC_ALL", "C");
            let output = common::run_with_deadline(&mut command, b"");
            let stderr = String::from_utf8_lossy(&output.stderr)
                .replace(&program.display().to_string(), "shuf");
            (output.status.code(), stderr)
        };
        let (mine, theirs) = (outcome(&ours), outcome(&gnu));
        assert_ne!(theirs.0, Some(0), "{args:?} is an error case");
        assert_eq!(mine, theirs, "shuf {args:?}");
    }
}
