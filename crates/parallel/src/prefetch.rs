//! The scatter's cache hint: `fairdeal-inplace`'s [`prefetch_read`], which test builds also
//! note down.
//!
//! The scatter writes to up to 1,024 bucket heads at random; each head advances sequentially,
//! but the hardware prefetchers track only a few dozen streams, so without a hint every new
//! cache line of a head is a demand miss that stalls the loop (measured in
//! `docs/algorithms.md`, "Huge N": the hint makes the scatter about twice as fast).

use fairdeal_inplace::prefetch_read;

/// Asks the CPU to bring the cache line holding `data[index]` into L1, if `index` is in
/// bounds; does nothing otherwise, and nothing at all off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(data: &[T], index: usize) {
    #[cfg(test)]
    hints::note(data, index);
    prefetch_read(data, index);
}

/// Test builds only: the hints asked for, so that tests can check where the scatter aims them.
/// A hint aimed at the wrong line changes no value, only the time, so nothing else can see it.
#[cfg(test)]
pub(crate) mod hints {
    use std::cell::RefCell;

    std::thread_local! {
        static TARGETS: RefCell<Option<Vec<usize>>> = const { RefCell::new(None) };
    }

    /// Runs `work` and returns, in order, the address of every hint it asked for on this
    /// thread, in bounds or not: `data.as_ptr() + index * size_of::<T>()`, wrapping.
    pub(crate) fn during(work: impl FnOnce()) -> Vec<usize> {
        TARGETS.with(|targets| *targets.borrow_mut() = Some(Vec::new()));
        work();
        TARGETS.with(|targets| targets.borrow_mut().take().unwrap_or_default())
    }

    pub(super) fn note<T>(data: &[T], index: usize) {
        TARGETS.with(|targets| {
            if let Some(targets) = targets.borrow_mut().as_mut() {
                let base = data.as_ptr() as usize;
                targets.push(base.wrapping_add(index.wrapping_mul(core::mem::size_of::<T>())));
            }
        });
    }
}
