//! Running the `fairdeal` binary from integration tests.

#![allow(dead_code, unreachable_pub)] // each test file uses a different subset

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The result of one run of the binary.
pub struct Run {
    pub status: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Run {
    /// stdout as text (the tests only check text output this way).
    pub fn text(&self) -> String {
        String::from_utf8(self.stdout.clone()).expect("stdout is UTF-8")
    }

    /// stdout's lines, parsed as `u64`.
    pub fn numbers(&self) -> Vec<u64> {
        self.text()
            .lines()
            .map(|l| l.parse().expect("a number per line"))
            .collect()
    }

    /// Asserts a clean success: status 0 and nothing on stderr.
    #[track_caller]
    pub fn ok(self) -> Self {
        assert_eq!(self.status, Some(0), "stderr: {}", self.stderr);
        assert!(self.stderr.is_empty(), "unexpected stderr: {}", self.stderr);
        self
    }

    /// Asserts a judge's verdict exit status (0 fair, 3 unfair, 4 insufficient) and nothing on
    /// stderr.
    #[track_caller]
    #[allow(dead_code)] // not every test binary judges
    pub fn verdict(self, status: i32) -> Self {
        assert_eq!(self.status, Some(status), "stderr: {}", self.stderr);
        assert!(self.stderr.is_empty(), "unexpected stderr: {}", self.stderr);
        self
    }

    /// Asserts the error contract: non-zero status, nothing on stdout, and exactly one line on
    /// stderr of the form `fairdeal: error: ...`. Returns that line.
    #[track_caller]
    pub fn error(self) -> String {
        assert_ne!(
            self.status,
            Some(0),
            "expected failure, stdout: {:?}",
            self.text()
        );
        assert!(self.status.is_some(), "killed by a signal");
        assert!(
            self.stdout.is_empty(),
            "stdout not empty: {:?}",
            String::from_utf8_lossy(&self.stdout)
        );
        assert_eq!(
            self.stderr.lines().count(),
            1,
            "stderr is not one line: {:?}",
            self.stderr
        );
        assert!(self.stderr.ends_with('\n'));
        assert!(
            self.stderr.starts_with("fairdeal: error: "),
            "{:?}",
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        self.stderr.trim_end().to_owned()
    }
}

/// Runs `fairdeal ARGS` with `stdin` as standard input.
pub fn fairdeal_with_input(args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fairdeal"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fairdeal");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The program may exit before reading everything (e.g. on a usage error).
        let _ = input.write_all(&data);
    });
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().expect("wait for fairdeal");
    writer.join().expect("stdin writer");
    Run {
        status: status.code(),
        stdout,
        stderr: String::from_utf8(stderr).expect("stderr is UTF-8"),
    }
}

/// Runs `fairdeal ARGS` with empty standard input.
pub fn fairdeal(args: &[&str]) -> Run {
    fairdeal_with_input(args, b"")
}

/// The order `fairdeal shuffle --algo inplace --backend BACKEND --seed SEED -i 0-(N-1)` prints:
/// what the Java and Python bit-exactness tests compare with the real languages.
pub fn inplace_order(backend: &str, seed: &str, n: usize) -> Vec<u64> {
    let range = format!("0-{}", n - 1);
    fairdeal(&[
        "shuffle",
        "--algo",
        "inplace",
        "--backend",
        backend,
        "--seed",
        seed,
        "--input-range",
        &range,
    ])
    .ok()
    .numbers()
}

/// A fresh path in cargo's scratch directory for integration tests.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fairdeal-cli-tests");
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir.join(format!("{}-{name}", std::process::id()))
}

/// A fresh empty directory under [`scratch`] (for `-T`, inputs and outputs of one test).
pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Whether `dir` holds nothing (no temporary file left behind).
pub fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// A command prefix that runs the rest of a command line as an unprivileged user: nothing when
/// the tests already run as one, else `setpriv` (or `runuser`) as `nobody` (65534), both from
/// util-linux. `None` when running as root without either: the caller skips, saying why.
pub fn as_nobody() -> Option<Vec<&'static str>> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        return Some(Vec::new());
    }
    let candidates: [&[&'static str]; 2] = [
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
        ],
        &["runuser", "-u", "nobody", "--"],
    ];
    candidates.into_iter().find_map(|prefix| {
        let works = Command::new(prefix[0])
            .args(&prefix[1..])
            .arg("true")
            .status()
            .is_ok_and(|s| s.success());
        works.then(|| prefix.to_vec())
    })
}
