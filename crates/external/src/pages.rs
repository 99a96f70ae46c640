//! [`PageBuf`]: the byte buffers that hold records in memory, each in an anonymous mapping of
//! its own that asks the kernel for transparent huge pages.
//!
//! An external shuffle fills its whole memory budget with records it has just read: the
//! in-memory buckets of the first pass, then each bucket read back from its spill file. Every
//! 4 KiB page touched for the first time is a page fault, 83,000 of them for 1 GB at
//! `--memory 256M`, and a fault is expensive in a virtual machine. With 2 MiB pages the same
//! bytes take a 512th of the faults, and the gather's random reads of records within a bucket
//! miss the TLB less. The buffers that are at least [`HUGE_PAGE`] long are advised
//! (`madvise(MADV_HUGEPAGE)`), which is what a system whose `transparent_hugepage` setting is
//! `madvise` (Debian's and most distributions' default) waits for; elsewhere the advice is
//! ignored and the buffers work as before. The bytes written and read are the same either way.

use std::ops::{Deref, DerefMut};

use memmap2::MmapMut;

/// The size of a transparent huge page on x86-64 and of the usual one on AArch64: buffers this
/// long or longer are advised to use huge pages.
pub(crate) const HUGE_PAGE: usize = 2 << 20;

/// A [`PageBuf`] of `bytes` bytes could not be mapped (the crate's error type reports it as
/// out of memory).
#[derive(Debug)]
pub(crate) struct OutOfPages {
    /// The capacity asked for.
    pub(crate) bytes: usize,
}

/// A byte vector of fixed capacity in an anonymous, private memory mapping: [`len`](Self::len)
/// bytes are in use, and it grows only by being replaced (the in-memory buckets and the
/// gather size theirs before they fill them). Its memory is zeroed when mapped and never
/// shared, like a `Vec`'s.
#[derive(Default)]
pub(crate) struct PageBuf {
    /// `None` for capacity 0 (an empty mapping is an error on most systems).
    map: Option<MmapMut>,
    len: usize,
}

impl PageBuf {
    /// An empty buffer with room for exactly `capacity` bytes, advised to use huge pages from
    /// [`HUGE_PAGE`] on (a length that is not a multiple of it has its tail in small pages;
    /// [`whole_huge_pages`](Self::whole_huge_pages) rounds a size up).
    ///
    /// # Errors
    ///
    /// [`OutOfPages`] when the mapping cannot be made.
    pub(crate) fn with_capacity(capacity: usize) -> Result<Self, OutOfPages> {
        if capacity == 0 {
            return Ok(Self::default());
        }
        let map = MmapMut::map_anon(capacity).map_err(|_| OutOfPages { bytes: capacity })?;
        #[cfg(target_os = "linux")]
        if capacity >= HUGE_PAGE {
            // Advice only: a kernel without transparent huge pages refuses it, and the
            // mapping works with small pages.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Self {
            map: Some(map),
            len: 0,
        })
    }

    /// `bytes` rounded up to whole huge pages from [`HUGE_PAGE`] on, unchanged below it
    /// (`None` if that overflows): a size that wastes no part of a huge page.
    pub(crate) const fn whole_huge_pages(bytes: usize) -> Option<usize> {
        if bytes >= HUGE_PAGE {
            bytes.checked_next_multiple_of(HUGE_PAGE)
        } else {
            Some(bytes)
        }
    }

    /// A buffer of `len` bytes (zero) with room for exactly that.
    ///
    /// # Errors
    ///
    /// As [`with_capacity`](Self::with_capacity).
    pub(crate) fn zeroed(len: usize) -> Result<Self, OutOfPages> {
        let mut buf = Self::with_capacity(len)?;
        buf.len = len;
        Ok(buf)
    }

    /// The bytes this buffer can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.map.as_ref().map_or(0, |map| map.len())
    }

    /// Appends `bytes`, which must fit: `len() + bytes.len() <= capacity()`.
    ///
    /// # Panics
    ///
    /// When they do not fit (the callers size the buffer first).
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        assert!(end <= self.capacity(), "PageBuf overflow");
        if let Some(map) = &mut self.map {
            map[self.len..end].copy_from_slice(bytes);
        }
        self.len = end;
    }

    /// Keeps the first `len` bytes (no change if there are fewer).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Sets the length to `len`, which must be at most the capacity. The bytes past the old
    /// length are whatever the buffer last held there (zero if never written): callers
    /// overwrite them.
    ///
    /// # Panics
    ///
    /// When `len > capacity()`.
    pub(crate) fn set_len(&mut self, len: usize) {
        assert!(len <= self.capacity(), "PageBuf overflow");
        self.len = len;
    }
}

impl std::fmt::Debug for PageBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageBuf")
            .field("len", &self.len)
            .field("capacity", &self.capacity())
            .finish()
    }
}

impl Deref for PageBuf {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_ref().map_or(&[][..], |map| &map[..self.len])
    }
}

impl DerefMut for PageBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        self.map.as_mut().map_or(&mut [][..], |map| &mut map[..len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_has_the_capacity_asked_and_whole_huge_pages_round_up_from_one() {
        for bytes in [0, 1000, HUGE_PAGE, HUGE_PAGE + 1] {
            assert_eq!(PageBuf::with_capacity(bytes).unwrap().capacity(), bytes);
        }
        assert_eq!(PageBuf::whole_huge_pages(1000), Some(1000));
        assert_eq!(PageBuf::whole_huge_pages(HUGE_PAGE), Some(HUGE_PAGE));
        assert_eq!(
            PageBuf::whole_huge_pages(HUGE_PAGE + 1),
            Some(2 * HUGE_PAGE)
        );
        assert_eq!(PageBuf::whole_huge_pages(usize::MAX), None);
    }

    #[test]
    fn bytes_appended_are_the_bytes_read_back() {
        let mut buf = PageBuf::with_capacity(10).unwrap();
        assert!(buf.is_empty());
        buf.extend_from_slice(b"one\n");
        buf.extend_from_slice(b"two\n");
        assert_eq!(&*buf, b"one\ntwo\n");
        buf.truncate(4);
        assert_eq!(&*buf, b"one\n");
        buf.truncate(9);
        assert_eq!(buf.len(), 4);
        buf.set_len(10);
        assert_eq!(&buf[..], b"one\ntwo\n\0\0");
        buf[9] = b'!';
        assert_eq!(buf[9], b'!');
        let empty = PageBuf::default();
        assert_eq!(&*empty, b"");
    }

    #[test]
    fn a_fresh_buffer_is_zeroed() {
        let buf = PageBuf::zeroed(HUGE_PAGE + 3).unwrap();
        assert_eq!(buf.len(), HUGE_PAGE + 3);
        assert!(buf.iter().all(|&b| b == 0));
    }

    #[test]
    #[should_panic(expected = "PageBuf overflow")]
    fn appending_past_the_capacity_panics() {
        let mut buf = PageBuf::with_capacity(3).unwrap();
        buf.extend_from_slice(b"four");
    }

    #[test]
    fn an_impossible_size_is_out_of_memory_not_a_panic() {
        for bytes in [usize::MAX, usize::MAX / 2] {
            assert_eq!(PageBuf::with_capacity(bytes).unwrap_err().bytes, bytes);
        }
    }
}
