//! Running the `fairdeal` binary from integration tests.

#![allow(dead_code, unreachable_pub)] // each test file uses a different subset

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

// The deadline helpers are the workspace's, shared with the other crates' tests (each test
// file uses a different subset).
#[allow(unused_imports)]
pub use fairdeal_testkit::process::{
    DEADLINE, Deadline, output_with_deadline, output_with_deadline_feeding,
    output_with_deadline_keeping_stdin, read_stdout_with_deadline, wait_with_deadline,
};

/// Whether process `pid` ignores `signal` (its bit in `SigIgn` of `/proc/PID/status`): an
/// ignored disposition is inherited, and POSIX has a shell's background job (`cmd &` in a
/// script) start with SIGINT and SIGQUIT ignored. The program keeps an inherited SIG_IGN (as
/// GNU sort does), so a test that sends such a signal skips it, saying so on stderr.
pub fn ignores_signal(pid: u32, signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (signal - 1)) != 0)
}

/// [`ignores_signal`], with the note on stderr when it does: `true` means skip this signal.
pub fn skip_ignored_signal(pid: u32, name: &str, signal: i32) -> bool {
    let ignored = ignores_signal(pid, signal);
    if ignored {
        eprintln!(
            "skipping SIG{name}: inherited as ignored (a background job?), and the program keeps \
             an inherited SIG_IGN"
        );
    }
    ignored
}

/// Runs `command` with `stdin` written to its standard input (a thread writes it; the child
/// may exit before reading it all) and stdout and stderr captured, under [`DEADLINE`].
#[track_caller]
pub fn run_with_deadline(command: &mut Command, stdin: &[u8]) -> Output {
    try_run_with_deadline(command, stdin).unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

/// [`run_with_deadline`], with a program that cannot be started as an error (a tool that may
/// be missing).
#[track_caller]
pub fn try_run_with_deadline(command: &mut Command, stdin: &[u8]) -> std::io::Result<Output> {
    let child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    Ok(output_with_deadline_feeding(child, stdin))
}

/// Runs `program ARGS` with descriptor `fd` (0 for stdin, 1 for stdout) closed, as a shell's
/// `<&-` / `>&-` does (through `sh -c 'exec ...'`, so the program itself starts with it
/// closed), under [`DEADLINE`]. The other standard descriptors are pipes.
#[track_caller]
pub fn run_with_closed(fd: u8, program: &Path, args: &[&str]) -> Run {
    run_with_closed_in(fd, program, args, Path::new("."))
}

/// [`run_with_closed`] in the directory `cwd`.
#[track_caller]
pub fn run_with_closed_in(fd: u8, program: &Path, args: &[&str], cwd: &Path) -> Run {
    assert!(fd <= 1, "only stdin or stdout");
    let script = format!("exec \"$0\" \"$@\" {fd}>&-");
    let output = run_with_deadline(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .arg(program)
            .args(args)
            .current_dir(cwd)
            .env("LC_ALL", "C"),
        b"",
    );
    Run {
        status: output.status.code(),
        stdout: output.stdout,
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

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
    let Output {
        status,
        stdout,
        stderr,
    } = run_with_deadline(
        Command::new(env!("CARGO_BIN_EXE_fairdeal")).args(args),
        stdin,
    );
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

pub use fairdeal_testkit::scratch::Scratch;

/// Where this crate's integration tests put their scratch paths.
fn scratch_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fairdeal-cli-tests")
}

/// A fresh path in cargo's scratch directory for integration tests, removed when dropped.
pub fn scratch(name: &str) -> Scratch {
    Scratch::path(&scratch_root(), name)
}

/// A fresh empty directory under [`scratch`] (for `-T`, inputs and outputs of one test),
/// removed with its contents when dropped.
pub fn fresh_dir(name: &str) -> Scratch {
    Scratch::dir(&scratch_root(), name)
}

/// Whether `dir` holds nothing (no temporary file left behind).
pub fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// A command prefix that runs the rest of a command line as an unprivileged user: nothing when
/// the tests already run as one, else `setpriv` (or `runuser`) as `nobody` (65534), both from
/// util-linux. `None` when running as root without either: the caller skips, saying why.
pub fn as_nobody() -> Option<Vec<&'static str>> {
    let uid = try_run_with_deadline(Command::new("id").arg("-u"), b"").ok()?;
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
        let works =
            try_run_with_deadline(Command::new(prefix[0]).args(&prefix[1..]).arg("true"), b"")
                .is_ok_and(|o| o.status.success());
        works.then(|| prefix.to_vec())
    })
}

/// Whether GNU parallel is installed (`parallel --version` names it), asked under
/// [`DEADLINE`].
pub fn has_gnu_parallel() -> bool {
    Command::new("parallel")
        .arg("--version")
        .output_deadline()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("GNU parallel")
        })
}

/// Whether a Slurm answers (`sinfo -h` lists a partition), asked under [`DEADLINE`].
pub fn slurm_answers() -> bool {
    Command::new("sinfo")
        .arg("-h")
        .output_deadline()
        .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
}
