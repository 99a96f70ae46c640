//! Where the records end: every position of the separator byte in a buffer, found 64 bytes at
//! a time.
//!
//! `memchr` finds one separator per call, and each call has a fixed cost (about 75
//! instructions on x86-64 by callgrind, dispatch and set-up) that for short records is most of
//! the scan: a 1 GB input of 64-byte lines paid it twice per record, once when scattering and
//! once when indexing a bucket read back. [`Ends`] compares 64 bytes at a time, four 16-byte
//! vector compares (`wide`: SSE2 on x86-64, NEON on aarch64, plain code elsewhere) folded into
//! one 64-bit mask, and hands out its set bits: the same positions, about 35–50 instructions
//! per 64-byte record against `memchr`'s 75 per call (callgrind of `examples/shuffle_file.rs`).

use wide::u8x16;

/// Bytes compared per step: one bit each in a `u64`.
const BLOCK: usize = 64;
/// Bytes per vector compare.
const LANES: usize = 16;

/// The positions of one byte in a buffer, in increasing order: the same positions as
/// `memchr::memchr_iter(separator, data)`.
#[derive(Debug, Clone)]
pub(crate) struct Ends<'a> {
    data: &'a [u8],
    separator: u8,
    /// The start of the block that `mask` describes.
    base: usize,
    /// The separators of that block not handed out yet: bit `i` for `data[base + i]`.
    mask: u64,
}

impl<'a> Ends<'a> {
    /// The positions of `separator` in `data`.
    pub(crate) fn new(separator: u8, data: &'a [u8]) -> Self {
        Self {
            data,
            separator,
            base: 0,
            mask: block_mask(data, separator),
        }
    }
}

/// The separators among the first [`BLOCK`] bytes of `data` (all of them if fewer), bit `i`
/// for `data[i]`.
#[inline]
fn block_mask(data: &[u8], separator: u8) -> u64 {
    match data.get(..BLOCK) {
        Some(block) => {
            let wanted = u8x16::splat(separator);
            block
                .chunks_exact(LANES)
                .enumerate()
                .fold(0, |mask, (i, lanes)| {
                    let lanes: [u8; LANES] = lanes.try_into().expect("chunks of LANES bytes");
                    let equal = u8x16::new(lanes).simd_eq(wanted).to_bitmask();
                    mask | u64::from(equal) << (LANES * i)
                })
        }
        None => data.iter().enumerate().fold(0, |mask, (i, &byte)| {
            mask | u64::from(byte == separator) << i
        }),
    }
}

impl Iterator for Ends<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let next = self.base + BLOCK;
            if next >= self.data.len() {
                return None;
            }
            self.base = next;
            self.mask = block_mask(&self.data[next..], self.separator);
        }
        let at = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }
}

/// The byte range `(start, end)` of each record of `data` that ends with `separator` (the
/// separator included, at `end - 1`), in order, for indexing a bucket whose records all end
/// with one: bytes after the last separator are no record here.
pub(crate) fn record_spans(separator: u8, data: &[u8]) -> impl Iterator<Item = (usize, usize)> {
    let mut start = 0;
    Ends::new(separator, data).map(move |end| {
        let span = (start, end + 1);
        start = end + 1;
        span
    })
}

/// `data` cut after each separator, for the scatters: `(piece, true)` for each piece up to and
/// including a separator, then `(rest, false)` for the bytes after the last one, if any (a
/// record that goes on in the next buffer).
#[derive(Debug, Clone)]
pub(crate) struct Pieces<'a> {
    data: &'a [u8],
    ends: Ends<'a>,
    /// Where the next piece starts.
    start: usize,
}

impl<'a> Pieces<'a> {
    /// The pieces of `data` cut after each `separator`.
    pub(crate) fn new(separator: u8, data: &'a [u8]) -> Self {
        Self {
            data,
            ends: Ends::new(separator, data),
            start: 0,
        }
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = (&'a [u8], bool);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.start >= self.data.len() {
            return None;
        }
        let (end, ends_a_record) = match self.ends.next() {
            Some(end) => (end + 1, true),
            None => (self.data.len(), false),
        };
        let piece = &self.data[self.start..end];
        self.start = end;
        Some((piece, ends_a_record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(separator: u8, data: &[u8]) -> (Vec<usize>, Vec<usize>) {
        (
            Ends::new(separator, data).collect(),
            memchr::memchr_iter(separator, data).collect(),
        )
    }

    #[test]
    fn the_same_positions_as_memchr_at_every_length_and_block_edge() {
        // Every length up to three blocks and a half, the separator at every position of one
        // buffer, on block edges, at both ends, everywhere and nowhere.
        for len in 0..=3 * BLOCK + BLOCK / 2 {
            let mut data: Vec<u8> = (0..len).map(|i| b'a' + (i % 23) as u8).collect();
            let (ours, theirs) = both(b'\n', &data);
            assert_eq!(ours, theirs, "no separator, len {len}");
            for at in 0..len {
                data[at] = b'\n';
                let (ours, theirs) = both(b'\n', &data);
                assert_eq!(ours, theirs, "len {len}, up to {at}");
            }
            let (ours, theirs) = both(b'\n', &data);
            assert_eq!(ours.len(), len, "all separators, len {len}");
            assert_eq!(ours, theirs);
        }
    }

    #[test]
    fn any_byte_can_be_the_separator_and_others_never_match() {
        // Bytes whose high bit is set (a vector compare of signed lanes must not confuse them),
        // zero, and 0xff, in a buffer holding every byte value.
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 256) as u8).collect();
        for separator in [0u8, 1, b'\n', 0x7f, 0x80, 0xfe, 0xff] {
            let (ours, theirs) = both(separator, &data);
            assert!(!ours.is_empty());
            assert_eq!(ours, theirs, "separator {separator:#04x}");
        }
    }

    #[test]
    fn pieces_cut_after_each_separator_and_keep_the_rest() {
        let pieces = |data: &'static [u8]| Pieces::new(b'\n', data).collect::<Vec<_>>();
        assert_eq!(pieces(b""), []);
        assert_eq!(pieces(b"\n"), [(&b"\n"[..], true)]);
        assert_eq!(
            pieces(b"a\n\nbc"),
            [(&b"a\n"[..], true), (b"\n", true), (b"bc", false)]
        );
        assert_eq!(pieces(b"abc"), [(&b"abc"[..], false)]);
        // Across blocks: the pieces put back together are the input, each ends a record
        // exactly when it ends with the one separator it holds.
        let data = separated(500, |i| i % 37 == 5 || i % 11 == 0);
        let all: Vec<(&[u8], bool)> = Pieces::new(b'\n', &data).collect();
        let joined: Vec<u8> = all
            .iter()
            .flat_map(|(piece, _)| piece.iter().copied())
            .collect();
        assert_eq!(joined, data);
        for &(piece, done) in &all {
            let separators = piece.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(separators, usize::from(done));
            assert_eq!(done, piece.ends_with(b"\n"));
        }
        assert!(!all.last().unwrap().1, "the input ends in an open record");
    }

    /// `len` bytes, a newline at each `i` where `newline(i)`, else `x`.
    fn separated(len: u32, newline: impl Fn(u32) -> bool) -> Vec<u8> {
        (0..len)
            .map(|i| if newline(i) { b'\n' } else { b'x' })
            .collect()
    }

    #[test]
    fn record_spans_are_the_terminated_pieces() {
        let spans = |data: &'static [u8]| record_spans(b'\n', data).collect::<Vec<_>>();
        assert_eq!(spans(b""), []);
        assert_eq!(spans(b"abc"), [], "no separator, no record");
        assert_eq!(spans(b"a\n\nbc\nd"), [(0, 2), (2, 3), (3, 6)]);
        // Across blocks, with and without an open tail: the ranges of the pieces that end a
        // record, in order.
        let data = separated(700, |i| i % 41 == 3 || i % 13 == 0);
        for len in [data.len(), 660, 651] {
            let data = &data[..len];
            let mut expected = Vec::new();
            let mut start = 0;
            for (piece, done) in Pieces::new(b'\n', data) {
                if done {
                    expected.push((start, start + piece.len()));
                }
                start += piece.len();
            }
            assert!(expected.len() > 50);
            assert_eq!(
                record_spans(b'\n', data).collect::<Vec<_>>(),
                expected,
                "{len}"
            );
        }
    }

    #[test]
    fn it_ends_and_stays_ended() {
        let mut ends = Ends::new(b';', b"a;b;");
        assert_eq!(ends.by_ref().collect::<Vec<_>>(), [1, 3]);
        assert_eq!(ends.next(), None);
        assert_eq!(ends.next(), None);
        assert_eq!(Ends::new(b';', b"").next(), None);
    }
}
