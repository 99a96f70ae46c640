/*!
Children under a deadline, for every test that spawns a program: a test that waits on a child
forever turns a bug into a hung CI job, so each wait here kills the child after [`DEADLINE`] and
fails the test naming it. Standard input is dropped (or fed by a thread) before the wait, and
stdout and stderr are read on threads, so a full pipe cannot block either side.

```
use std::process::Command;
use fairdeal_testkit::process::Deadline;

let output = Command::new("true").output_deadline().unwrap();
assert!(output.status.success());
```
*/

use std::io::{Read as _, Write};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// How long any child a test spawns may run before the test kills it and fails: far above the
/// slowest run (a few seconds), so it never decides a result; it only turns a hang into a
/// failure that names the child.
pub const DEADLINE: Duration = Duration::from_secs(600);

/// Waits for `child` with [`DEADLINE`]: kills it and panics if it is still running then.
/// The caller has taken (or never piped) the child's stdin and stdout/stderr.
#[track_caller]
pub fn wait_with_deadline(child: &mut Child) -> ExitStatus {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait().expect("wait for the child") {
            return status;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "child {} still running after {DEADLINE:?}: killed",
                child.id()
            );
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// `child.wait_with_output()` with a deadline: drops the child's stdin first (a child reading
/// it sees the end of its input instead of waiting for this test), reads stdout and stderr on
/// threads, and kills the child after [`DEADLINE`] (the test then fails).
#[track_caller]
pub fn output_with_deadline(mut child: Child) -> Output {
    drop(child.stdin.take());
    output_with_deadline_keeping_stdin(child)
}

/// [`output_with_deadline`] for a child whose stdin the caller took and holds (to close it
/// after the child ended, e.g. after a signal the child must die of before it reads the end
/// of its input).
#[track_caller]
pub fn output_with_deadline_keeping_stdin(mut child: Child) -> Output {
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        pipe.map(|mut pipe| {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = pipe.read_to_end(&mut bytes);
                bytes
            })
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = wait_with_deadline(&mut child);
    let collect = |reader: Option<std::thread::JoinHandle<Vec<u8>>>| {
        reader.map_or_else(Vec::new, |r| r.join().expect("pipe reader"))
    };
    Output {
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
    }
}

/// `Command::output` and `Command::status` under [`DEADLINE`], for tests that build their own
/// command line.
pub trait Deadline {
    /// Like `output()`: standard input is `/dev/null`, stdout and stderr are captured (set
    /// here, replacing any the caller set: for other streams, `spawn` and
    /// [`output_with_deadline`]). The child is killed (and the test fails) after [`DEADLINE`].
    fn output_deadline(&mut self) -> std::io::Result<Output>;
    /// Like `status()` (the standard streams inherited), killed after [`DEADLINE`].
    fn status_deadline(&mut self) -> std::io::Result<ExitStatus>;
}

impl Deadline for Command {
    fn output_deadline(&mut self) -> std::io::Result<Output> {
        let child = self
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        Ok(output_with_deadline(child))
    }

    fn status_deadline(&mut self) -> std::io::Result<ExitStatus> {
        let mut child = self.spawn()?;
        Ok(wait_with_deadline(&mut child))
    }
}

/// [`output_with_deadline`] for a child whose stdin is a pipe: a thread writes `stdin` to it
/// (the child may exit before reading it all), then closes it.
#[track_caller]
pub fn output_with_deadline_feeding(mut child: Child, stdin: &[u8]) -> Output {
    let writer = child.stdin.take().map(|mut input| {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            // The program may exit before reading everything (e.g. on a usage error).
            let _ = input.write_all(&data);
        })
    });
    let output = output_with_deadline(child);
    if let Some(writer) = writer {
        writer.join().expect("stdin writer");
    }
    output
}

/// Runs `read` on `child`'s stdout on a thread and returns what it returns; the stdout is
/// dropped (closed, as `| head` closes it) when `read` ends. If `read` has not ended after
/// [`DEADLINE`] (the child never wrote), the child is killed and the test fails. The child's
/// stdout must be piped.
#[track_caller]
pub fn read_stdout_with_deadline<T, F>(child: &mut Child, read: F) -> T
where
    T: Send + 'static,
    F: FnOnce(std::process::ChildStdout) -> T + Send + 'static,
{
    let stdout = child.stdout.take().expect("the child's stdout is piped");
    let (done, result) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(read(stdout));
    });
    let outcome = result.recv_timeout(DEADLINE);
    if outcome.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    match outcome {
        Ok(value) => value,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!(
            "child {} wrote nothing readable within {DEADLINE:?}: killed",
            child.id()
        ),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            panic!(
                "reading child {}'s stdout failed (see above): killed",
                child.id()
            )
        }
    }
}
