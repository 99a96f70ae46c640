//! A cache hint, the one piece of `unsafe` in the crate (and, through [`prefetch_read`], the
//! hint `fairdeal-parallel`'s scatter and `fairdeal-external`'s gather use).

/// Asks the CPU to bring the cache line holding `data[index]` into its L1 cache, ahead of a
/// read: a hint that changes no value, and does nothing when `index` is out of bounds or off
/// x86-64.
///
/// For code that visits a large buffer in an order of its own: [`Inplace`](crate::Inplace)
/// aims it at each swap's target some draws ahead on slices beyond the cache, the parallel
/// scatter at its bucket heads, the external gather at the records it writes next.
///
/// ```
/// let data = vec![0u32; 1 << 20];
/// fairdeal_inplace::prefetch_read(&data, 123_456);
/// fairdeal_inplace::prefetch_read(&data, usize::MAX); // out of bounds: nothing happens
/// ```
#[inline(always)]
pub fn prefetch_read<T>(data: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(element) = data.get(index) {
        let address: *const T = element;
        // SAFETY: `_mm_prefetch` is `unsafe` only because it is a `#[target_feature(enable =
        // "sse")]` function; SSE is part of the x86-64 baseline, so every x86-64 CPU has it. A
        // prefetch never faults and never changes memory, and the address is that of an element
        // of a live slice anyway.
        #[allow(unsafe_code)]
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                address.cast::<i8>(),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (data, index);
}
