//! Named temporary files removed on SIGINT, SIGTERM, SIGHUP and SIGPIPE, not only on success
//! and error.
//!
//! Spill files and staged outputs are anonymous ([`anonymous_file`](crate::anonymous_file),
//! `O_TMPFILE`), so no signal, not even SIGKILL, can leave them behind. The one name that
//! exists for a moment is the hidden name the publisher (`publish.rs`) links a complete file
//! under before renaming it over its target: it is registered here, and a thread waiting for
//! those signals removes what is registered and dies by the signal, as without the handler (a
//! shell reports `128 + signal`).
//!
//! Why a thread, installed once for the process by [`install`]: removing a file cannot be
//! done inside a signal handler without `unsafe` (signal-hook's safe interfaces are flags and
//! the iterator, and the iterator needs a thread to wait on it), and SIGPIPE needs a decision
//! no flag can make (below). A handler registered only while the hidden name exists would not
//! see a SIGPIPE sent during the rest of the run, which must end it too.
//!
//! SIGPIPE is also what the kernel sends the process when it writes to a pipe whose reader
//! has gone (`| head`): that write also fails with `EPIPE`, and the caller ends quietly. So a
//! SIGPIPE while standard output's reader is still there (one sent by `kill`) is not taken
//! for a closed reader: it ends the process like the other signals, status 141.
//!
//! [`install`] also makes a file-size limit (`ulimit -f`) an error (`File too large`) instead
//! of a silent kill by SIGXFSZ.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM, SIGXFSZ};

/// The paths to remove on a signal.
static PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the handler is installed (once per process), or why it could not be.
static INSTALLED: OnceLock<Result<(), (io::ErrorKind, String)>> = OnceLock::new();

/// Starts the signal thread (once per process; later calls return the first call's result).
///
/// # Errors
///
/// The operating system's refusal to register the handlers or start the thread.
pub fn install() -> io::Result<()> {
    let installed = INSTALLED.get_or_init(|| {
        let keep = |e: io::Error| (e.kind(), e.to_string());
        signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false))).map_err(keep)?;
        let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGPIPE])
            .map_err(keep)?;
        std::thread::Builder::new()
            .name("cleanup".to_owned())
            .spawn(move || {
                // A SIGPIPE from a write to a closed reader: the write fails too, and its
                // error ends the run.
                let ours = |signal: &i32| *signal == SIGPIPE && stdout_reader_closed();
                if let Some(signal) = signals.forever().find(|s| !ours(s)) {
                    remove_all();
                    // Then die by the signal itself, as without the handler (the caller
                    // sees the signal; a shell reports 128 + signal).
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                    std::process::exit(128 + signal);
                }
            })
            .map_err(keep)?;
        Ok(())
    });
    installed
        .clone()
        .map_err(|(kind, message)| io::Error::new(kind, message))
}

/// Whether standard output is a pipe (or socket) whose reader has gone: `poll` reports an
/// error (or hang-up) condition on it. Always false for a file or a terminal.
fn stdout_reader_closed() -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use std::os::fd::AsFd as _;
    let stdout = std::io::stdout();
    let fd = stdout.as_fd();
    let mut fds = [PollFd::new(&fd, PollFlags::OUT)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    poll(&mut fds, Some(&now)).is_ok_and(|ready| ready > 0)
        && fds[0].revents().intersects(PollFlags::ERR | PollFlags::HUP)
}

/// Removes every registered path (only files are registered: the hidden names of
/// `publish.rs`).
fn remove_all() {
    let paths = PATHS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in paths.iter() {
        let _ = std::fs::remove_file(path);
    }
}

/// A path registered for removal on a signal; unregistered when dropped (its owner removes it
/// on the ordinary paths).
#[derive(Debug)]
pub(crate) struct Registered(PathBuf);

/// Registers `path` for removal on a signal (effective once [`install`] has run).
pub(crate) fn register(path: &Path) -> Registered {
    PATHS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .push(path.to_path_buf());
    Registered(path.to_path_buf())
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut paths = PATHS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = paths.iter().position(|p| *p == self.0) {
            paths.swap_remove(i);
        }
    }
}
