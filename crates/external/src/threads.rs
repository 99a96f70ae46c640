//! The external path's helper threads (the read-ahead, the spill writer, the gather's second
//! bucket), started by name. A thread that cannot be had is an `Err`, never a panic, and every
//! caller then does that work on its own thread: the same bytes, without the overlap. It
//! cannot be had when the system refuses it (a process limit), and when under `ulimit -v` it
//! would leave less address space than the run still needs: a helper is an option, so it never
//! takes what the work needs.

use std::io;
use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};

use crate::budget::{MemoryBudget, address_space_left, fitting_threads};

/// Starts a run's helper threads, each only if the address space left under `ulimit -v` holds
/// the thread ([`PER_WORKER`](crate::budget::PER_WORKER): its stack and the arena glibc's
/// malloc reserves for it) beside what the run keeps for its work:
/// [`WORK_RESERVE`](crate::budget::WORK_RESERVE) and the memory budget. That is the rule the
/// thread pools are sized by ([`fitting_threads`]), for one thread more: helpers come on top
/// of a pool's workers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Helpers {
    /// The run's memory budget in bytes: the work beyond
    /// [`WORK_RESERVE`](crate::budget::WORK_RESERVE).
    work: u64,
}

impl Helpers {
    /// Helpers for a run within `budget`.
    pub(crate) const fn for_budget(budget: MemoryBudget) -> Self {
        Self {
            work: budget.bytes(),
        }
    }

    /// Starts `work` on a new thread called `name`.
    pub(crate) fn spawn<F, T>(self, name: &str, work: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.room(address_space_left())?;
        Builder::new().name(name.to_owned()).spawn(work)
    }

    /// Starts `work` on a new thread called `name` in `scope`.
    pub(crate) fn spawn_scoped<'scope, F, T>(
        self,
        scope: &'scope Scope<'scope, '_>,
        name: &str,
        work: F,
    ) -> io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        self.room(address_space_left())?;
        Builder::new()
            .name(name.to_owned())
            .spawn_scoped(scope, work)
    }

    /// `Ok` when one more thread fits `left` bytes of address space (`None`: no limit).
    fn room(self, left: Option<u64>) -> io::Result<()> {
        refusal::check()?;
        // The calling thread and one more.
        match fitting_threads(2, left, self.work) {
            Ok(2) => Ok(()),
            _ => Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "the address space left (ulimit -v) holds no helper thread beside the work",
            )),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::{PER_WORKER, WORK_RESERVE};

    #[test]
    fn a_helper_starts_only_beside_the_work_and_the_budget() {
        let budget = MemoryBudget::new(64 << 20).unwrap();
        let helpers = Helpers::for_budget(budget);
        let needed = PER_WORKER + WORK_RESERVE + (64 << 20);
        assert!(helpers.room(None).is_ok(), "no limit");
        assert!(helpers.room(Some(needed)).is_ok());
        let short = helpers.room(Some(needed - 1)).unwrap_err();
        assert_eq!(short.kind(), io::ErrorKind::OutOfMemory);
        // A larger budget keeps more.
        let larger = Helpers::for_budget(MemoryBudget::new(128 << 20).unwrap());
        assert!(larger.room(Some(needed)).is_err());
    }
}
