//! Named temporary files removed on SIGINT, SIGTERM, SIGHUP and SIGPIPE, not only on success
//! and error.
//!
//! Spill files and the staged output are anonymous (`fairdeal_external::anonymous_file`,
//! `O_TMPFILE`), so no signal, not even SIGKILL, can leave them behind. The one name that
//! exists for a moment is the hidden name `-o` links the complete output under before renaming
//! it over the target: it is registered here, and a thread waiting for those signals removes
//! what is registered and dies by the signal, as without the handler (a shell reports
//! `128 + signal`).
//!
//! SIGPIPE is also what the kernel sends this process when it writes to a pipe whose reader
//! has gone (`| head`): that write also fails with `EPIPE`, and the command ends quietly with
//! status 0 (`common::exit_status`). So a SIGPIPE while standard output's reader is still
//! there (one sent by `kill`) is not taken for a closed reader: it ends the run like the other
//! signals, status 141.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Context as _;
use signal_hook::consts::{SIGHUP, SIGINT, SIGPIPE, SIGTERM, SIGXFSZ};

/// The paths to remove on a signal.
static PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Whether the handler is installed (once per process).
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();

/// Starts the signal thread (once). Also makes a file-size limit (`ulimit -f`) an error
/// (`File too large`) instead of a silent kill by SIGXFSZ, so the temporary files are removed.
pub(super) fn install() -> anyhow::Result<()> {
    INSTALLED
        .get_or_init(|| {
            signal_hook::flag::register(SIGXFSZ, Arc::new(AtomicBool::new(false)))
                .map_err(|e| e.to_string())?;
            let mut signals =
                signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP, SIGPIPE])
                    .map_err(|e| e.to_string())?;
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
                .map_err(|e| e.to_string())?;
            Ok(())
        })
        .clone()
        .map_err(anyhow::Error::msg)
        .context("cannot install the signal handler that removes temporary files")
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

/// Removes every registered path (only files are registered: `-o`'s hidden name).
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

/// Registers `path` for removal on a signal.
pub(super) fn register(path: &Path) -> Registered {
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
