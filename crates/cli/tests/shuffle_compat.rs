//! `fairdeal shuffle` next to GNU `shuf` (every flag, in memory and through temporary files),
//! the external path's resource bounds and clean-up, and the shuffle rows of
//! `../shared/probes/cli-hostile-inputs.md` (rows 1, 6, 9, 13, 16, 23; row 8 is main.rs's).

mod common;

use common::Deadline as _;

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Run, Scratch, fairdeal, fairdeal_with_input, fresh_dir, is_empty_dir};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// Records of `bytes` ending in `separator` (a last one without separator counts).
fn records(bytes: &[u8], separator: u8) -> Vec<Vec<u8>> {
    let body = bytes.strip_suffix(&[separator]).unwrap_or(bytes);
    if bytes.is_empty() {
        return Vec::new();
    }
    body.split(|&b| b == separator)
        .map(<[u8]>::to_vec)
        .collect()
}

fn sorted(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort();
    v
}

/// Runs a shell script with `$F` set to the binary.
fn sh(script: &str) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("F", BIN)
        .stdin(Stdio::null())
        .output_deadline()
        .expect("run sh");
    Run {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    }
}

/// Runs a program with `stdin` and returns (status, stdout, stderr).
fn run_program(program: &str, args: &[&str], stdin: &[u8]) -> Run {
    let child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program} (GNU coreutils is required): {e}"));
    let out = common::output_with_deadline_feeding(child, stdin);
    Run {
        status: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The shared inputs: 3,000 lines (about 35 KB, so `--memory 1K` takes the external path)
/// with duplicates, an empty line and no final newline; the same as NUL-terminated records.
struct Inputs {
    dir: Scratch,
    lines: PathBuf,
    zero: PathBuf,
    random: PathBuf,
    empty: PathBuf,
}

fn inputs(name: &str) -> Inputs {
    let dir = fresh_dir(name);
    let mut text = String::new();
    for i in 0..3000 {
        match i % 10 {
            0 => text.push_str("same line\n"),
            5 => text.push('\n'),
            _ => text.push_str(&format!("line {i}\n")),
        }
    }
    text.push_str("last, without newline");
    let lines = dir.join("lines.txt");
    std::fs::write(&lines, &text).unwrap();
    let zero = dir.join("zero.bin");
    std::fs::write(&zero, text.replace('\n', "\0")).unwrap();
    let random = dir.join("random.bin");
    let bytes: Vec<u8> = (0..1u32 << 20)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&random, bytes).unwrap();
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, b"").unwrap();
    Inputs {
        dir,
        lines,
        zero,
        random,
        empty,
    }
}

/// What must agree between the two tools' successful runs.
#[derive(Clone, Copy, Debug)]
enum Agree {
    /// The same multiset of records.
    Multiset,
    /// The same number of records, each one of the input's, none used more often than the
    /// input has it (a sample without replacement).
    Sample,
    /// The same number of records, each one of the input's (with replacement).
    Repeat,
}

/// Every flag of GNU shuf, side by side: the same multiset of records (or a valid sample of
/// the same size), in memory and, for file input, through temporary files (`--memory 1K`).
#[test]
fn every_shuf_flag_agrees_with_gnu_shuf() {
    let inp = inputs("shuf-flags");
    let lines = inp.lines.to_str().unwrap();
    let zero = inp.zero.to_str().unwrap();
    let random = inp.random.to_str().unwrap();
    let text = std::fs::read(&inp.lines).unwrap();
    let tdir = fresh_dir("shuf-flags-T");
    let t = tdir.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &[u8], Agree, bool)> = vec![
        // (args, stdin, what agrees, may take the external path)
        (vec![lines], b"", Agree::Multiset, true),
        (vec![], &text, Agree::Multiset, true),
        (vec!["-"], &text, Agree::Multiset, true),
        (
            vec!["-e", "a", "b", "b", "c d", ""],
            b"",
            Agree::Multiset,
            false,
        ),
        (vec!["--echo", "-z", "x", "y"], b"", Agree::Multiset, false),
        (vec!["-i", "5-25"], b"", Agree::Multiset, false),
        (vec!["--input-range=7-7"], b"", Agree::Multiset, false),
        (vec!["-i", "1-0"], b"", Agree::Multiset, false),
        (vec!["-z", zero], b"", Agree::Multiset, true),
        (
            vec!["--zero-terminated", "-n", "9", zero],
            b"",
            Agree::Sample,
            true,
        ),
        (vec!["-n", "7", lines], b"", Agree::Sample, true),
        (vec!["-n", "7"], &text, Agree::Sample, true),
        (vec!["-n", "0", lines], b"", Agree::Sample, true),
        (vec!["-n", "5", "-n", "2", lines], b"", Agree::Sample, true),
        (vec!["--head", "3", lines], b"", Agree::Sample, true),
        (
            vec!["--head-count=100000", lines],
            b"",
            Agree::Multiset,
            true,
        ),
        (
            vec!["-n", "4", "-i", "1-1000000"],
            b"",
            Agree::Sample,
            false,
        ),
        (vec!["-r", "-n", "50", lines], b"", Agree::Repeat, true),
        (vec!["-r", "-n", "50", "-"], &text, Agree::Repeat, true),
        (
            vec!["--repeat", "-n", "20", "-i", "1-3"],
            b"",
            Agree::Repeat,
            false,
        ),
        (
            vec!["-r", "-n", "5", "-e", "x", "y"],
            b"",
            Agree::Repeat,
            false,
        ),
        // GNU's draws hold the input in memory: no --memory variant.
        (
            vec!["--random-source", random, lines],
            b"",
            Agree::Multiset,
            false,
        ),
        (
            vec!["--random-source", random, "-i", "1-100"],
            b"",
            Agree::Multiset,
            false,
        ),
        (
            vec![&inp.empty.to_str().unwrap()],
            b"",
            Agree::Multiset,
            true,
        ),
    ];
    for (args, stdin, agree, external) in cases {
        let theirs = run_program("shuf", &args, stdin);
        assert_eq!(theirs.status, Some(0), "shuf {args:?}: {}", theirs.stderr);
        let zero_terminated = args.iter().any(|a| *a == "-z" || *a == "--zero-terminated");
        let separator = if zero_terminated { 0 } else { b'\n' };
        let expected = records(&theirs.stdout, separator);
        let mut variants = vec![vec!["shuffle"]];
        if external {
            // -r beyond the budget keeps 8 bytes per line: 3,000 lines need 24K, and the
            // 35 KB input (plus 16 bytes per line) still exceeds 32K.
            let memory = if args.contains(&"-r") { "32K" } else { "1K" };
            variants.push(vec![
                "shuffle",
                "--small-memory",
                "--memory",
                memory,
                "-T",
                t,
            ]);
        }
        for prefix in variants {
            let all = [&prefix[..], &args[..]].concat();
            let ours = run_program(BIN, &all, stdin);
            assert_eq!(ours.status, Some(0), "{all:?}: {}", ours.stderr);
            assert!(ours.stderr.is_empty(), "{all:?}: {}", ours.stderr);
            // Every record ends with the separator, as with shuf.
            assert!(
                ours.stdout.is_empty() || ours.stdout.ends_with(&[separator]),
                "{all:?}"
            );
            let got = records(&ours.stdout, separator);
            match agree {
                Agree::Multiset => assert_eq!(sorted(got), sorted(expected.clone()), "{all:?}"),
                Agree::Sample | Agree::Repeat => {
                    assert_eq!(got.len(), expected.len(), "{all:?}");
                    let pool = if args.contains(&"-i") || args.contains(&"--repeat") {
                        None
                    } else if args.contains(&"-e") {
                        Some(vec![b"x".to_vec(), b"y".to_vec()])
                    } else {
                        let file = std::fs::read(if zero_terminated {
                            &inp.zero
                        } else {
                            &inp.lines
                        })
                        .unwrap();
                        Some(records(&file, separator))
                    };
                    if let Some(pool) = pool {
                        for record in &got {
                            let available = pool.iter().filter(|r| *r == record).count();
                            assert!(available > 0, "{all:?}: {record:?} is not an input record");
                            if matches!(agree, Agree::Sample) {
                                let used = got.iter().filter(|r| *r == record).count();
                                assert!(used <= available, "{all:?}: {record:?} duplicated");
                            }
                        }
                    }
                }
            }
            assert!(is_empty_dir(&tdir), "{all:?} left temporary files");
        }
    }
}

/// `-o FILE` holds the output (in memory and external), and FILE may be the input, as with
/// shuf.
#[test]
fn output_file_may_be_the_input_on_both_paths() {
    let inp = inputs("shuf-output");
    let original = std::fs::read(&inp.lines).unwrap();
    let expected = sorted(records(&original, b'\n'));
    for memory in ["1G", "1K"] {
        let target = inp.dir.join(format!("inout-{memory}.txt"));
        std::fs::copy(&inp.lines, &target).unwrap();
        let t = target.to_str().unwrap();
        let dir = inp.dir.to_str().unwrap();
        fairdeal(&[
            "shuffle",
            "--small-memory",
            "--memory",
            memory,
            "-T",
            dir,
            "-o",
            t,
            t,
        ])
        .ok();
        let written = std::fs::read(&target).unwrap();
        assert_eq!(
            sorted(records(&written, b'\n')),
            expected,
            "--memory {memory}"
        );
        // shuf agrees on the multiset.
        let theirs = run_program("shuf", &[inp.lines.to_str().unwrap()], b"");
        assert_eq!(sorted(records(&theirs.stdout, b'\n')), expected);
    }
    // Nothing but the inputs and the outputs is left in the directory.
    let left: Vec<_> = std::fs::read_dir(&inp.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.') || n.starts_with("fairdeal-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The same bad input fails in both tools (shuf exits 1 for everything; usage errors exit 2
/// here), and ours with one line.
#[test]
fn the_same_bad_input_fails_in_both_tools() {
    let inp = inputs("shuf-errors");
    let lines = inp.lines.to_str().unwrap();
    let empty = inp.empty.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["-i", "3-1"],
        vec!["-i", "a-b"],
        vec!["-i", "1-"],
        vec!["-e", "-i", "1-3", "x"],
        vec!["-n", "-1", lines],
        vec!["-n", "x", lines],
        vec!["/nonexistent/input"],
        vec!["-r", empty],
        vec!["--random-source", "/nonexistent/random", lines],
        vec!["--bogus-flag", lines],
        vec!["-o", "/nonexistent/dir/out", lines],
    ];
    for args in cases {
        let theirs = run_program("shuf", &args, b"");
        assert_ne!(theirs.status, Some(0), "shuf {args:?} succeeded");
        let ours = fairdeal(&[&["shuffle"][..], &args[..]].concat()).error();
        assert!(!ours.is_empty(), "{args:?}");
    }
}

/// Row 16: `-i 1-0` is empty with exit 0; repeated `-n` takes the smallest; `--head` is a
/// prefix of `--head-count`.
#[test]
fn shuf_corner_cases_row_16() {
    let run = fairdeal(&["shuffle", "-i", "1-0"]).ok();
    assert!(run.stdout.is_empty());
    let run = fairdeal(&["shuffle", "-n", "9", "-n", "2", "-n", "4", "-i", "1-100"]).ok();
    assert_eq!(run.numbers().len(), 2);
    let a = fairdeal(&["shuffle", "--head", "3", "--seed", "1", "-i", "1-100"]).ok();
    let b = fairdeal(&["shuffle", "--head-count", "3", "--seed", "1", "-i", "1-100"]).ok();
    assert_eq!(a.stdout, b.stdout);
    let run = fairdeal(&["shuffle", "-r", "-n", "0", "-i", "1-0"]).ok();
    assert!(run.stdout.is_empty());
}

/// `-r` without `-n` runs until the reader closes the pipe, then exits quietly.
#[test]
fn repeat_without_a_count_ends_when_the_reader_closes() {
    let mut child = Command::new(BIN)
        .args(["shuffle", "-r", "-e", "heads", "tails"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let buf = common::read_stdout_with_deadline(&mut child, |mut out| {
        let mut buf = vec![0u8; 1 << 20];
        out.read_exact(&mut buf).unwrap();
        buf
    });
    let status = common::wait_with_deadline(&mut child);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let text = String::from_utf8(buf).unwrap();
    let words: Vec<&str> = text.lines().take(1000).collect();
    assert!(words.contains(&"heads") && words.contains(&"tails"));
    assert!(words.iter().all(|w| *w == "heads" || *w == "tails"));
}

/// `-r` on input beyond the budget: endless until the reader closes, then nothing is left; a
/// budget too small for 8 bytes per line is a one-line error.
#[test]
fn repeat_beyond_the_budget_ends_quietly_and_cleanly() {
    let inp = inputs("repeat-external");
    let t = fresh_dir("repeat-external-T");
    let run = sh(&format!(
        "\"$F\" shuffle -r --small-memory --memory 32K -T '{}' '{}' | head -n 5000 | sort -u | wc -l",
        t.display(),
        inp.lines.display()
    ));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    let distinct: usize = run.text().trim().parse().unwrap();
    assert!(distinct > 1000, "{distinct}");
    assert!(is_empty_dir(&t));
    let t_arg = t.to_str().unwrap();
    let lines = inp.lines.to_str().unwrap();
    let line = fairdeal(&[
        "shuffle",
        "-r",
        "--small-memory",
        "--memory",
        "1K",
        "-T",
        t_arg,
        lines,
    ])
    .error();
    assert!(line.contains("8 bytes per line"), "{line}");
    assert!(is_empty_dir(&t));
}

/// `--random-source FILE`: the same file, the same output (GNU shuf's); a file that runs out
/// is an error.
#[test]
fn random_source_makes_runs_reproducible() {
    let inp = inputs("random-source");
    let random = inp.random.to_str().unwrap();
    let a = fairdeal(&["shuffle", "--random-source", random, "-i", "1-1000"]).ok();
    let b = fairdeal(&["shuffle", "--random-source", random, "-i", "1-1000"]).ok();
    assert_eq!(a.stdout, b.stdout);
    let short = inp.dir.join("short.bin");
    std::fs::write(&short, b"abc").unwrap();
    let short = short.to_str().unwrap();
    // What GNU coreutils 9.1's `shuf --random-source=short.bin -i 1-9` prints: 3 bytes suffice.
    let run = fairdeal(&["shuffle", "--random-source", short, "-i", "1-9"]).ok();
    assert_eq!(run.numbers(), [8, 4, 7, 6, 1, 9, 5, 2, 3]);
    let line = fairdeal(&["shuffle", "--random-source", short, "-i", "1-100"]).error();
    assert!(line.contains("end of file"), "{line}");
}

// ------------------------------------------------------------------ the external path

/// The same seed gives the same output from a pipe and from a file, on the external path too;
/// input that fits gives the same output whatever the budget.
#[test]
fn the_output_depends_on_the_seed_and_budget_not_on_pipe_or_file() {
    let inp = inputs("pipe-or-file");
    let lines = inp.lines.to_str().unwrap();
    let text = std::fs::read(&inp.lines).unwrap();
    for memory in ["1K", "8K", "1G"] {
        let args = [
            "shuffle",
            "--seed",
            "9",
            "--small-memory",
            "--memory",
            memory,
        ];
        let file = fairdeal(&[&args[..], &[lines]].concat()).ok();
        let pipe = fairdeal_with_input(&args, &text).ok();
        assert_eq!(file.stdout, pipe.stdout, "--memory {memory}");
    }
    let small = fairdeal(&[
        "shuffle",
        "--seed",
        "9",
        "--small-memory",
        "--memory",
        "1K",
        "-e",
        "a",
        "b",
        "c",
    ])
    .ok();
    let large = fairdeal(&[
        "shuffle", "--seed", "9", "--memory", "1G", "-e", "a", "b", "c",
    ])
    .ok();
    assert_eq!(small.stdout, large.stdout);
}

/// The fairness target of the external shuffle: many seeds on a small file with `--memory 1K`, so every run
/// scatters (four records of 300 bytes: 1,200 bytes), and every one of the 24 orders comes up
/// equally often. (The negative control for this statistic is in fairdeal-external's tests:
/// labels that are not random are rejected at p < 1e-9.)
#[test]
fn the_external_path_is_uniform_over_seeds() {
    let dir = fresh_dir("uniform-T");
    let input: Vec<u8> = (0..4u8)
        .flat_map(|i| {
            let mut r = vec![b'a' + i; 299];
            r.push(b'\n');
            r
        })
        .collect();
    let path = dir.join("four.txt");
    std::fs::write(&path, &input).unwrap();
    let t = fresh_dir("uniform-T2");
    let mut counts = [0u64; 24];
    for seed in 0..720 {
        let seed = seed.to_string();
        let run = fairdeal(&[
            "shuffle",
            "--small-memory",
            "--memory",
            "1K",
            "-T",
            t.to_str().unwrap(),
            "--seed",
            &seed,
            path.to_str().unwrap(),
        ])
        .ok();
        let order: Vec<usize> = run
            .stdout
            .split(|&b| b == b'\n')
            .filter(|r| !r.is_empty())
            .map(|r| usize::from(r[0] - b'a'))
            .collect();
        counts[fairdeal_testkit::lehmer_rank(&order)] += 1;
    }
    let (_, p) = fairdeal_testkit::chi_square_uniform(&counts);
    assert!(p > 1e-6, "p = {p}, counts {counts:?}");
    assert!(is_empty_dir(&t));
}

/// Bounded open files: under `ulimit -n 64`, a file 64 times the budget (4.7 MB, --memory
/// 64K, two levels of buckets) is shuffled completely; nothing is left in -T.
#[test]
fn a_file_64_times_the_budget_works_under_ulimit_n_64() {
    let dir = fresh_dir("ulimit-n");
    let input: String = (0..700_000).map(|i| format!("{i}\n")).collect();
    assert!(input.len() > 64 * 64 * 1024);
    let path = dir.join("big.txt");
    std::fs::write(&path, &input).unwrap();
    let t = fresh_dir("ulimit-n-T");
    let run = sh(&format!(
        "ulimit -n 64 && exec \"$F\" shuffle --memory 64K -T '{}' --verbose --seed 1 '{}'",
        t.display(),
        path.display()
    ));
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(run.stderr.contains("external shuffle"), "{}", run.stderr);
    assert_eq!(
        sorted(records(&run.stdout, b'\n')),
        sorted(records(input.as_bytes(), b'\n'))
    );
    assert!(is_empty_dir(&t));
}

/// SIGTERM and SIGINT in the middle of an external shuffle: the process dies by the signal
/// (a shell's 128 + signal), and nothing is left in the temporary directory.
#[test]
fn a_signal_removes_the_temporary_files() {
    use std::os::unix::process::ExitStatusExt as _;
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        let t = fresh_dir(&format!("signal-{signal}"));
        let mut child = Command::new(BIN)
            .args([
                "shuffle",
                "--small-memory",
                "--memory",
                "1K",
                "-T",
                t.to_str().unwrap(),
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // More than the budget, and more than the 32 buckets' 64 KiB write buffers, and the
        // pipe stays open: the shuffle is mid-scatter, with data on disk.
        let chunk: String = (0..300_000).map(|i| format!("record {i}\n")).collect();
        stdin.write_all(chunk.as_bytes()).unwrap();
        stdin.flush().unwrap();
        // The spill file is anonymous: it shows as a deleted file under -T among the
        // process's descriptors.
        let deadline = Instant::now() + Duration::from_secs(60);
        let spilling = || {
            std::fs::read_dir(format!("/proc/{}/fd", child.id()))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|fd| std::fs::read_link(fd.path()).ok())
                .any(|target| target.starts_with(&t))
        };
        while !spilling() {
            assert!(Instant::now() < deadline, "no temporary files appeared");
            std::thread::sleep(Duration::from_millis(10));
        }
        if common::skip_ignored_signal(child.id(), signal, number) {
            drop(stdin);
            common::wait_with_deadline(&mut child);
            continue;
        }
        let status = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status_deadline()
            .unwrap();
        assert!(status.success());
        // Waited for with the input still open: closed first, the run could read the end of
        // its input and exit 0 before the signal thread acts. The deadline ends a run that
        // survived the signal.
        let status = common::wait_with_deadline(&mut child);
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
        assert!(is_empty_dir(&t), "SIG{signal} left temporary files");
    }
}

/// Fault injection: an unusable -T, a full device as output, a file-size limit on -o; each a
/// one-line error, exit 1, with no temporary file left and an existing -o FILE untouched.
#[test]
fn faults_are_one_line_errors_that_leave_nothing_behind() {
    let inp = inputs("faults");
    let lines = inp.lines.to_str().unwrap();
    // -T missing, or a file.
    for t in ["/nonexistent/tmp", lines] {
        let line = fairdeal(&[
            "shuffle",
            "--small-memory",
            "--memory",
            "1K",
            "-T",
            t,
            lines,
        ])
        .error();
        assert!(
            line.contains(&format!("cannot create a temporary file in '{t}'")),
            "{line}"
        );
    }
    // /dev/full on both paths (row 13).
    let t = fresh_dir("faults-T");
    for memory in ["1G", "1K"] {
        let run = sh(&format!(
            "exec \"$F\" shuffle --small-memory --memory {memory} -T '{}' '{lines}' > /dev/full",
            t.display()
        ));
        assert_eq!(run.status, Some(1));
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(
            run.stderr
                .starts_with("fairdeal: error: cannot write output: No space left on device"),
            "{}",
            run.stderr
        );
        assert!(is_empty_dir(&t));
    }
    // A file-size limit (ulimit -f, in 512- or 1024-byte blocks: at most 10 KB) on -o: the
    // existing output file keeps its content.
    let out = inp.dir.join("limited.txt");
    for memory in ["1G", "1K"] {
        std::fs::write(&out, b"previous content\n").unwrap();
        let run = sh(&format!(
            "ulimit -f 10 && exec \"$F\" shuffle --small-memory --memory {memory} -T '{}' -o '{}' '{lines}'",
            t.display(),
            out.display()
        ));
        assert_eq!(run.status, Some(1), "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
        assert!(run.stderr.contains("File too large"), "{}", run.stderr);
        assert_eq!(std::fs::read(&out).unwrap(), b"previous content\n");
        assert!(is_empty_dir(&t));
    }
    let stray: Vec<_> = std::fs::read_dir(&inp.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(".fairdeal-output-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// A reader that closes the pipe early on the external path: exit 0, quiet, nothing left.
#[test]
fn a_closed_pipe_on_the_external_path_is_quiet_and_clean() {
    let inp = inputs("closed-pipe");
    let t = fresh_dir("closed-pipe-T");
    let run = sh(&format!(
        "\"$F\" shuffle --small-memory --memory 1K -T '{}' '{}' | head -c 10 >/dev/null; echo \"rc=$?\"",
        t.display(),
        inp.lines.display()
    ));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert!(is_empty_dir(&t));
}

// ------------------------------------------------------------------ hostile-input rows

/// Row 1: `--threads` keeps Java's and CPython's language-exact sampler.
#[test]
fn threads_keep_the_language_exact_sampler_row_1() {
    let input: String = (1..=200_000).map(|i| format!("{i}\n")).collect();
    let plain = fairdeal_with_input(
        &["shuffle", "--backend", "java", "--seed", "0"],
        input.as_bytes(),
    )
    .ok();
    let threaded = fairdeal_with_input(
        &[
            "shuffle",
            "--backend",
            "java",
            "--seed",
            "0",
            "--threads",
            "2",
        ],
        input.as_bytes(),
    )
    .ok();
    assert_eq!(plain.stdout, threaded.stdout);
    let args = [
        "shuffle",
        "-i",
        "1-200000",
        "--backend",
        "python",
        "--seed",
        "42",
    ];
    let plain = fairdeal(&args).ok();
    let threaded = fairdeal(&[&args[..], &["--threads", "1"]].concat()).ok();
    assert_eq!(plain.stdout, threaded.stdout);
    let inplace = fairdeal(&[&args[..], &["--algo", "inplace"]].concat()).ok();
    assert_eq!(plain.stdout, inplace.stdout);
}

/// Row 6: an allocation failure under `ulimit -v` is a one-line error, not an abort.
#[test]
fn allocation_failure_is_an_error_row_6() {
    for cmd in [
        "shuffle -i 1-50000000",
        "shuffle -i 1-1000000000 -n 20000000 --seed 1",
    ] {
        let run = sh(&format!(
            "ulimit -v 300000 && exec \"$F\" {cmd} > /dev/null"
        ));
        // The default budget is a quarter of `ulimit -v`: a range beyond it is refused
        // before any work (a usage error naming --memory, 2); one within it that still
        // cannot be allocated is exit 1.
        assert!(matches!(run.status, Some(1 | 2)), "{cmd}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{cmd}: {}", run.stderr);
        assert!(
            run.stderr.starts_with("fairdeal: error: "),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("memory"), "{}", run.stderr);
    }
}

/// Row 9: `--algo biased` warns on stderr (and still prints its output).
#[test]
fn the_biased_algorithm_warns_row_9() {
    let run = fairdeal(&["shuffle", "--algo", "biased", "-i", "1-5"]);
    assert_eq!(run.status, Some(0));
    assert_eq!(run.numbers().len(), 5);
    assert!(
        run.stderr.starts_with("fairdeal: warning: --algo biased"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("NOT equally likely"));
}

/// Row 23: without --seed, --verbose reports the seed drawn from the OS, and that seed
/// repeats the run.
#[test]
fn the_os_drawn_seed_is_reported_row_23() {
    let run = fairdeal(&["shuffle", "--verbose", "-i", "1-1000"]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    let seed = run
        .stderr
        .split_whitespace()
        .skip_while(|w| *w != "--seed")
        .nth(1)
        .unwrap_or_else(|| panic!("no seed in {:?}", run.stderr))
        .to_owned();
    let again = fairdeal(&["shuffle", "--seed", &seed, "-i", "1-1000"]).ok();
    assert_eq!(run.stdout, again.stdout);
}

/// The memory budget is checked before work: malformed, too small, more than the machine.
#[test]
fn memory_sizes_are_checked_before_work() {
    for bad in ["12Q", "512", "-1", "99999999T"] {
        let run = fairdeal(&["shuffle", "--memory", bad, "-i", "1-3"]);
        assert_eq!(run.status, Some(2), "{bad}");
        run.error();
    }
    let help = fairdeal(&["shuffle", "--help"]).ok().text();
    assert!(help.contains("--memory"), "{help}");
    assert!(help.contains("a quarter of physical memory"), "{help}");
    assert!(help.contains("--temporary-directory"), "{help}");
}
