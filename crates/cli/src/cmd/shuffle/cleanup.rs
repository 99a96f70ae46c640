//! Named temporary files removed on SIGINT, SIGTERM and SIGHUP, not only on success and error.
//!
//! Spill files and the staged output are anonymous (`fairdeal_external::SpillFile`,
//! `O_TMPFILE`), so no signal, not even SIGKILL, can leave them behind. The one name that
//! exists for a moment is the hidden name `-o` links the complete output under before renaming
//! it over the target: it is registered here, and a thread waiting for those signals removes
//! what is registered and exits with `128 + signal`, as a shell reports a process killed by
//! it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Context as _;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGXFSZ};

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
            let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
                .map_err(|e| e.to_string())?;
            std::thread::Builder::new()
                .name("cleanup".to_owned())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
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
