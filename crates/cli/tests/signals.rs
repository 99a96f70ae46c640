//! SIGPIPE means success only when a reader really closed: `fairdeal shuffle | head` ends
//! quietly with status 0 (documented in `main.rs`), while a SIGPIPE sent by `kill` during the
//! run is a signal like SIGTERM: the run cleans up and dies by it (status 141 in a shell).

#![cfg(target_os = "linux")]

mod common;

use common::Deadline as _;

use std::io::{Read as _, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{fresh_dir, is_empty_dir};

const BIN: &str = env!("CARGO_BIN_EXE_fairdeal");
const SIGPIPE: i32 = 13;

/// Whether process `pid` handles `signal` (its bit in `SigCgt` of `/proc/PID/status`).
fn catches(pid: u32, signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// Starts `fairdeal shuffle ARGS` reading a pipe this test holds open, and waits until its
/// signal handler is installed (it is installed before any input is read).
fn start(args: &[&str], temp: &Path) -> (Child, std::process::ChildStdin) {
    let mut child = Command::new(BIN)
        .arg("shuffle")
        .args(args)
        .arg("-T")
        .arg(temp)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fairdeal");
    let mut input = child.stdin.take().expect("stdin");
    let lines: String = (0..200_000).map(|i| format!("line {i}\n")).collect();
    input.write_all(lines.as_bytes()).expect("write input");
    let start = Instant::now();
    while !catches(child.id(), SIGPIPE) {
        assert!(start.elapsed() < Duration::from_secs(60), "no handler");
        std::thread::sleep(Duration::from_millis(10));
    }
    (child, input)
}

fn kill(signal: &str, pid: u32) {
    let status = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status_deadline()
        .expect("run kill");
    assert!(status.success());
}

#[test]
fn a_sigpipe_sent_by_kill_while_reading_kills_the_run() {
    let temp = fresh_dir("sigpipe-kill-temp");
    // Standard output stays open (this test holds its reader): no reader closed.
    let (child, input) = start(&["--memory", "64K", "--seed", "1"], &temp);
    kill("-PIPE", child.id());
    // Waited for with the input still open: closed first, the run could read the end of its
    // input and exit 0 before the signal thread acts. The deadline ends a run that survived.
    let output = common::output_with_deadline_keeping_stdin(child);
    drop(input);
    assert_eq!(output.status.signal(), Some(SIGPIPE), "{:?}", output.status);
    assert!(output.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert!(is_empty_dir(&temp));
}

#[test]
fn a_sigpipe_sent_by_kill_leaves_the_output_file_as_it_was() {
    let temp = fresh_dir("sigpipe-kill-o-temp");
    let out_dir = fresh_dir("sigpipe-kill-o-out");
    let out = out_dir.join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    let (child, input) = start(
        &[
            "--memory",
            "64K",
            "--seed",
            "1",
            "-o",
            out.to_str().unwrap(),
        ],
        &temp,
    );
    kill("-PIPE", child.id());
    // Waited for with the input still open: closed first, the run could read the end of its
    // input and exit 0 before the signal thread acts. The deadline ends a run that survived.
    let output = common::output_with_deadline_keeping_stdin(child);
    drop(input);
    assert_eq!(output.status.signal(), Some(SIGPIPE), "{:?}", output.status);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old\n");
    let names: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.txt"]);
    assert!(is_empty_dir(&temp));
}

#[test]
fn a_reader_that_closes_mid_output_is_a_quiet_success() {
    // The real SIGPIPE: the kernel sends it on every write to the closed pipe (the handler is
    // installed, so the writes fail with EPIPE too), through the external path's many writes.
    let dir = fresh_dir("sigpipe-reader");
    let input = dir.join("in.txt");
    let text: String = (0..300_000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&input, text).unwrap();
    for args in [
        &["--memory", "64K", "--seed", "1"][..],
        &["--seed", "1"],
        &["-i", "1-3000000"],
    ] {
        let mut command = Command::new(BIN);
        command.arg("shuffle").args(args);
        if args[0] != "-i" {
            command.arg(&input).arg("-T").arg(&dir);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run fairdeal");
        common::read_stdout_with_deadline(&mut child, |mut stdout| {
            let mut first = [0u8; 16];
            stdout.read_exact(&mut first).expect("some output");
        });
        let output = common::output_with_deadline(child);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {:?}",
            output.status
        );
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
    }
}
