//! `fairdeal shuffle`'s scatter path for large inputs that fit in memory: the lines are put into
//! 32 buckets as they are read and shuffled bucket by bucket. The hidden `--scatter-above SIZE`
//! lowers its threshold (16 MiB) so that small inputs take it. Also the progress bar: drawn on
//! a terminal, absent when stderr is a pipe.

mod common;

use common::Deadline as _;

use std::process::{Command, Stdio};

use common::{Run, fairdeal, fairdeal_with_input, fresh_dir, is_empty_dir};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");

/// A run that succeeded, with notes (`-v`) allowed on stderr.
fn noted(run: Run) -> Run {
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    run
}

fn sorted_records(bytes: &[u8], separator: u8) -> Vec<Vec<u8>> {
    let mut records: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == separator)
        .map(<[u8]>::to_vec)
        .collect();
    records.sort_unstable();
    records
}

/// 3,000 lines (about 30 KB, 78 KB with 16 bytes per line counted) with duplicates, an empty
/// line and no final newline.
fn lines() -> Vec<u8> {
    let mut text = Vec::new();
    for i in 0..3000 {
        match i % 10 {
            0 => text.extend_from_slice(b"same line\n"),
            5 => text.push(b'\n'),
            _ => text.extend_from_slice(format!("line {i}\n").as_bytes()),
        }
    }
    text.extend_from_slice(b"last line, no newline");
    text
}

/// The scatter path gives the same output from a file and from a pipe, on any thread count,
/// and it is exactly the external shuffle's output with a budget whose buckets need no second
/// level (`--memory 64K`): the buckets are the same, in memory or in files. Its output holds
/// exactly the input's lines, and it leaves nothing in -T.
#[test]
fn the_scatter_path_is_the_external_shuffle_kept_in_memory() {
    let dir = fresh_dir("scatter-same");
    let t = fresh_dir("scatter-same-T");
    let text = lines();
    let path = dir.join("lines.txt");
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    let tdir = t.to_str().unwrap();
    let scatter = [
        "shuffle",
        "--seed",
        "9",
        "--scatter-above",
        "1K",
        "-T",
        tdir,
    ];
    let from_file = noted(fairdeal(&[&scatter[..], &[file, "-v"]].concat()));
    assert!(
        from_file
            .stderr
            .contains("in memory, scattered into 32 buckets"),
        "{}",
        from_file.stderr
    );
    let from_pipe = fairdeal_with_input(&scatter, &text).ok();
    assert_eq!(from_file.stdout, from_pipe.stdout);
    for threads in ["1", "3"] {
        let run = fairdeal(&[&scatter[..], &[file, "--threads", threads]].concat()).ok();
        assert_eq!(from_file.stdout, run.stdout, "--threads {threads}");
    }
    let external = noted(fairdeal(&[
        "shuffle", "--seed", "9", "--memory", "64K", "-T", tdir, file, "-v",
    ]));
    assert!(
        external.stderr.contains("external shuffle"),
        "{}",
        external.stderr
    );
    assert_eq!(from_file.stdout, external.stdout);

    let mut expected = text.clone();
    expected.push(b'\n');
    assert_eq!(
        sorted_records(&from_file.stdout, b'\n'),
        sorted_records(&expected, b'\n')
    );
    // Below the threshold the lines are shuffled as one array: another order.
    let whole = fairdeal(&["shuffle", "--seed", "9", file]).ok();
    assert_ne!(whole.stdout, from_file.stdout);
    assert!(is_empty_dir(&t));
}

/// `-z`, and `-o` naming the input itself, on the scatter path.
#[test]
fn zero_terminated_records_and_an_output_over_the_input() {
    let dir = fresh_dir("scatter-zo");
    let text: Vec<u8> = (0..4000)
        .flat_map(|i| format!("record {i}\nwith a newline inside\0").into_bytes())
        .collect();
    let path = dir.join("records");
    std::fs::write(&path, &text).unwrap();
    let file = path.to_str().unwrap();
    let args = [
        "shuffle",
        "-z",
        "--seed",
        "4",
        "--scatter-above",
        "1K",
        "-v",
    ];
    let to_stdout = noted(fairdeal(&[&args[..], &[file]].concat()));
    assert!(
        to_stdout.stderr.contains("scattered"),
        "{}",
        to_stdout.stderr
    );
    noted(fairdeal(&[&args[..], &["-o", file, file]].concat()));
    let rewritten = std::fs::read(&path).unwrap();
    assert_eq!(rewritten, to_stdout.stdout);
    assert_eq!(sorted_records(&rewritten, 0), sorted_records(&text, 0));
    assert_ne!(rewritten, text);
}

/// The scatter path is exactly uniform: many seeds on four lines (each run scatters them into
/// the in-memory buckets), and each of the 24 orders comes up equally often. The negative
/// control for the same statistic on the same code (labels that are not random, rejected at
/// p < 1e-9) is in fairdeal-external's tests/spilling.rs, where a broken generator can be
/// passed in.
#[test]
fn the_scatter_path_is_uniform_over_seeds() {
    let input = b"a\nb\nc\nd\n";
    let mut counts = [0u64; 24];
    for seed in 0..720 {
        let seed = seed.to_string();
        let run = fairdeal_with_input(
            &["shuffle", "--scatter-above", "1K", "--seed", &seed],
            input,
        )
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
}

/// Runs `script` from util-linux: `command` with its standard streams on a pseudo-terminal,
/// whose bytes `script` copies to its own standard output.
fn on_a_terminal(command: &str) -> Vec<u8> {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env("F", BIN)
        .stdin(Stdio::null())
        .output_deadline()
        .expect("`script` (util-linux/bsdutils, installed by .ci/run) runs the command on a pty");
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

/// The bar (bytes read, then written) is drawn on a terminal for input of unknown size (a
/// pipe), and nothing is written to stderr when it is not a terminal.
#[test]
fn the_progress_bar_is_drawn_on_a_terminal_only() {
    let dir = fresh_dir("scatter-progress");
    let path = dir.join("input.txt");
    let text: String = (0..400_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&path, &text).unwrap();
    let out = dir.join("out.txt");
    let command = format!(
        "cat '{}' | \"$F\" shuffle --seed 1 --scatter-above 1K > '{}'",
        path.display(),
        out.display()
    );
    let terminal = String::from_utf8_lossy(&on_a_terminal(&command)).into_owned();
    assert!(
        terminal.contains("(bytes)"),
        "no progress bar: {terminal:?}"
    );
    let shuffled = std::fs::read(&out).unwrap();
    assert_eq!(
        sorted_records(&shuffled, b'\n'),
        sorted_records(text.as_bytes(), b'\n')
    );

    let piped = fairdeal_with_input(
        &["shuffle", "--seed", "1", "--scatter-above", "1K"],
        text.as_bytes(),
    )
    .ok();
    assert_eq!(piped.stdout, shuffled, "the same run, stderr a pipe");
    assert!(piped.stderr.is_empty(), "{:?}", piped.stderr);
}

/// The seeded output of the scatter path, pinned (see CHANGELOG.md, "Changed (seeded output)").
/// It is also the external path's output at `--memory 2K`, where 200 short lines do not fit
/// but every bucket does.
#[test]
fn seeded_output_of_the_scatter_path_is_pinned() {
    let input: String = (1..=200).map(|i| format!("{i}\n")).collect();
    let run = |args: &[&str]| fairdeal_with_input(args, input.as_bytes()).ok().numbers();
    let scatter = run(&["shuffle", "--seed", "42", "--scatter-above", "1K"]);
    assert_eq!(
        scatter[..16],
        [
            134, 184, 65, 155, 63, 99, 22, 33, 117, 79, 120, 141, 53, 1, 164, 5
        ]
    );
    assert_eq!(scatter[196..], [55, 64, 191, 18]);
    assert_eq!(
        scatter,
        run(&[
            "shuffle",
            "--seed",
            "42",
            "--small-memory",
            "--memory",
            "2K"
        ])
    );
}
