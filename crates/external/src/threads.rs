//! The external path's helper threads (the read-ahead, the spill writer, the gather's second
//! bucket), started by name. A thread that cannot be had (a process or memory limit) is an
//! `Err`, never a panic, and every caller then does that work on its own thread: the same
//! bytes, without the overlap.

use std::io;
use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};

/// Starts `work` on a new thread called `name`.
pub(crate) fn spawn<F, T>(name: &str, work: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    refusal::check()?;
    Builder::new().name(name.to_owned()).spawn(work)
}

/// Starts `work` on a new thread called `name` in `scope`.
pub(crate) fn spawn_scoped<'scope, F, T>(
    scope: &'scope Scope<'scope, '_>,
    name: &str,
    work: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    refusal::check()?;
    Builder::new()
        .name(name.to_owned())
        .spawn_scoped(scope, work)
}

/// Release builds: the operating system alone refuses threads.
#[cfg(not(test))]
mod refusal {
    #[inline(always)]
    pub(super) fn check() -> std::io::Result<()> {
        Ok(())
    }
}

/// Test builds: a test can have every thread refused, as a process limit would, on the thread
/// that asks for them (root, which CI runs as, is exempt from `RLIMIT_NPROC`).
#[cfg(test)]
pub(crate) mod refusal {
    use std::cell::Cell;

    std::thread_local! {
        /// `Some(count)` while threads are refused on this thread: how many were asked for.
        static REFUSED: Cell<Option<usize>> = const { Cell::new(None) };
    }

    pub(super) fn check() -> std::io::Result<()> {
        match REFUSED.get() {
            Some(count) => {
                REFUSED.set(Some(count + 1));
                Err(std::io::Error::other("no thread for this test"))
            }
            None => Ok(()),
        }
    }

    /// Runs `work` with every helper thread it asks for on this thread refused; returns its
    /// result and how many were asked for.
    pub(crate) fn during<T>(work: impl FnOnce() -> T) -> (T, usize) {
        REFUSED.set(Some(0));
        let out = work();
        let count = REFUSED.take().unwrap_or(0);
        (out, count)
    }
}
