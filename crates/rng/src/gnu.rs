//! GNU coreutils' random numbers from a byte stream (`shuf --random-source=FILE`), byte for byte.
//!
//! GNU `shuf`, `sort -R` and `shred` do not seed a generator from `--random-source`: they read
//! the file as a stream of random bytes and turn the bytes into bounded integers with gnulib's
//! `randint`, keeping unused randomness between draws. [`GnuRandom`] does the same, so the same
//! file gives the same draws, and hence `shuf`'s output, as coreutils.
//!
//! The algorithm, written from its description:
//!
//! * A draw in `0..=genmax` keeps a running value `randnum`, uniform in `0..=randmax`. While
//!   `randmax < genmax` it appends whole bytes: `randnum = randnum·256 + byte`,
//!   `randmax = randmax·256 + 255` (in 64 bits, so high bytes fall off the top; all the bytes
//!   needed are read at once). If `randmax == genmax`, `randnum` is the draw and nothing is
//!   kept. Otherwise, with `choices = genmax + 1`, the largest multiple of `choices` that fits
//!   in `0..=randmax` is usable: a `randnum` inside it gives `randnum mod choices`, and the
//!   quotient `randnum / choices`, uniform in `0..=(randmax - genmax) / choices`, is kept for
//!   the next draw. A `randnum` beyond it is rejected, but not wasted: `randnum mod choices` is
//!   uniform over the rejected remainder, which becomes the new running value, and more bytes
//!   are appended to it.
//! * [`randperm`](GnuRandom::randperm) is the forward Fisher-Yates that stops after `h`
//!   positions: position `i` swaps with `i + choose(n - i)`. For large `n` and small `h`
//!   coreutils keeps only the touched positions in a hash map; the permutation is the same, and
//!   so is this port's (it switches at the same point, to bound memory the same way).
//! * [`reservoir_sample`](GnuRandom::reservoir_sample) is `shuf -n K` on input whose size is not
//!   known (a pipe, or a file above 8 MiB): the first `K` records fill the reservoir, then
//!   *before* each further read a slot is drawn with `choose(seen + 1)`; the next record
//!   replaces that slot if it is below `K`. The draw made before the read that finds the end
//!   counts too (it consumes bytes, and can hit the end of the random file).
//! * `shuf -r` makes one `choose(n)` per output record.

use std::collections::HashMap;
use std::io::{self, Read};

/// What can go wrong while drawing from a [`GnuRandom`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GnuError {
    /// The random bytes ran out before the draw was complete (coreutils: "end of file").
    #[error("end of file")]
    EndOfFile,
    /// Reading the random bytes failed.
    #[error("read error: {0}")]
    Read(#[source] io::Error),
    /// A permutation of this many elements does not fit in memory (coreutils: "memory
    /// exhausted").
    #[error("memory exhausted")]
    MemoryExhausted,
}

/// `randperm` keeps a sparse map instead of the whole `0..n` once `n` reaches this ...
const SPARSE_MIN_N: u64 = 128 * 1024;
/// ... and `h` is at most `n / SPARSE_RATIO`.
const SPARSE_RATIO: u64 = 64;

/// The input size (bytes) above which `shuf -n K` samples a reservoir instead of reading the
/// whole input: coreutils' threshold, which decides whether a regular file is read whole. A
/// pipe's size is unknown, so `-n K` on a pipe always samples a reservoir.
pub const GNU_RESERVOIR_MIN_INPUT: u64 = 8 * 1024 * 1024;

/// Random integers from a stream of bytes, as GNU coreutils draws them (gnulib's `randint`).
///
/// ```
/// use fairdeal_rng::GnuRandom;
///
/// // The same bytes coreutils would read from `shuf --random-source=FILE -i 0-9`:
/// let mut gnu = GnuRandom::new(&[200u8, 3, 77][..]);
/// // 200 falls in 0..=249, the largest multiple of 10 that fits in 0..=255: 200 % 10.
/// assert_eq!(gnu.choose(10)?, 0);
/// // 200 / 10 = 20, uniform in 0..=24, is kept: the next draw below 5 needs no new byte.
/// assert_eq!(gnu.choose(5)?, 0);
/// // 20 / 5 = 4 is left, uniform in 0..=4; a draw below 2 can use only 0..=3 of it, and 4 is
/// // beyond that, so 4 % 2 = 0 (uniform in 0..=0) is kept and the byte 3 appended: 3 % 2.
/// assert_eq!(gnu.choose(2)?, 1);
/// # Ok::<(), fairdeal_rng::GnuError>(())
/// ```
#[derive(Debug)]
pub struct GnuRandom<R> {
    source: R,
    /// The randomness left from earlier draws: uniform in `0..=randmax`.
    randnum: u64,
    randmax: u64,
    /// Bytes consumed so far.
    consumed: u64,
}

impl<R: Read> GnuRandom<R> {
    /// Draws from the bytes of `source`, from its current position. Wrap a file in a
    /// [`BufReader`](std::io::BufReader): draws read a few bytes at a time.
    pub const fn new(source: R) -> Self {
        Self {
            source,
            randnum: 0,
            randmax: 0,
            consumed: 0,
        }
    }

    /// How many bytes the draws have consumed so far.
    pub const fn bytes_consumed(&self) -> u64 {
        self.consumed
    }

    /// The source, with whatever the draws have not read.
    pub fn into_inner(self) -> R {
        self.source
    }

    /// A uniform integer in `0..=genmax` (gnulib's `randint_genmax`).
    ///
    /// # Errors
    /// [`GnuError::EndOfFile`] when the source ends first, [`GnuError::Read`] when it fails.
    pub fn genmax(&mut self, genmax: u64) -> Result<u64, GnuError> {
        let mut randnum = self.randnum;
        let mut randmax = self.randmax;
        let choices = genmax.wrapping_add(1);
        loop {
            if randmax < genmax {
                let mut needed = 0;
                let mut grown = randmax;
                while grown < genmax {
                    grown = (grown << 8) | 0xFF;
                    needed += 1;
                }
                let mut bytes = [0u8; 8];
                self.read(&mut bytes[..needed])?;
                for &byte in &bytes[..needed] {
                    randnum = (randnum << 8) | u64::from(byte);
                    randmax = (randmax << 8) | 0xFF;
                }
            }
            if randmax == genmax {
                self.randnum = 0;
                self.randmax = 0;
                return Ok(randnum);
            }
            // genmax < randmax, so genmax < u64::MAX and `choices` did not wrap to 0.
            let excess = randmax - genmax;
            let unusable = excess % choices;
            let last_usable = randmax - unusable;
            let reduced = randnum % choices;
            if randnum <= last_usable {
                self.randnum = randnum / choices;
                self.randmax = excess / choices;
                return Ok(reduced);
            }
            // Rejected: the remainder is uniform in 0..unusable; keep it and append bytes.
            randnum = reduced;
            randmax = unusable - 1;
        }
    }

    /// A uniform integer in `0..n` (gnulib's `randint_choose`). `n = 0` draws a whole `u64`,
    /// as coreutils' arithmetic does.
    ///
    /// # Errors
    /// As [`genmax`](Self::genmax).
    pub fn choose(&mut self, n: u64) -> Result<u64, GnuError> {
        self.genmax(n.wrapping_sub(1))
    }

    /// The first `h` elements of a random permutation of `0..n` (gnulib's `randperm`): for `i`
    /// in `0..h`, position `i` swaps with `i + choose(n - i)`. `h` larger than `n` is `n`.
    ///
    /// # Errors
    /// As [`genmax`](Self::genmax), and [`GnuError::MemoryExhausted`] when `0..n` has to be
    /// held whole (coreutils holds it unless `n >= 131072` and `h <= n / 64`) and does not fit.
    pub fn randperm(&mut self, h: u64, n: u64) -> Result<Vec<u64>, GnuError> {
        let h = h.min(n);
        let h_len = usize::try_from(h).map_err(|_| GnuError::MemoryExhausted)?;
        if is_sparse(h, n) {
            let mut out = Vec::new();
            out.try_reserve_exact(h_len)
                .map_err(|_| GnuError::MemoryExhausted)?;
            // Only the touched positions: an absent key holds its own index.
            let mut moved: HashMap<u64, u64> = HashMap::new();
            moved
                .try_reserve(h_len.saturating_mul(2))
                .map_err(|_| GnuError::MemoryExhausted)?;
            for i in 0..h {
                let j = i + self.choose(n - i)?;
                let at_j = moved.get(&j).copied().unwrap_or(j);
                let at_i = moved.get(&i).copied().unwrap_or(i);
                moved.insert(j, at_i);
                // Position i is never read again.
                moved.remove(&i);
                out.push(at_j);
            }
            return Ok(out);
        }
        let n_len = usize::try_from(n).map_err(|_| GnuError::MemoryExhausted)?;
        let mut all: Vec<u64> = Vec::new();
        all.try_reserve_exact(n_len)
            .map_err(|_| GnuError::MemoryExhausted)?;
        all.extend(0..n);
        for i in 0..h_len {
            let j = i + self.choose((n_len - i) as u64)? as usize;
            all.swap(i, j);
        }
        all.truncate(h_len);
        Ok(all)
    }

    /// `shuf -n k`'s reservoir over records of unknown number: `next` yields the records in
    /// order, `Ok(None)` at the end. Returns at most `k` records, in reservoir order (coreutils
    /// then outputs them in the order of [`randperm`](Self::randperm)`(m, m)`, `m` their
    /// number). With `k = 0` nothing is read and nothing drawn.
    ///
    /// ```
    /// use fairdeal_rng::{GnuError, GnuRandom};
    ///
    /// let mut lines = ["a", "b", "c"].into_iter();
    /// // "a" and "b" fill the reservoir. Before reading "c", choose(3): the byte 0 gives 0, so
    /// // "c" replaces slot 0, and 0 / 3 (uniform in 0..=84) is kept. Before finding the end,
    /// // choose(4) from what was kept, without a new byte.
    /// let mut gnu = GnuRandom::new(&[0u8][..]);
    /// let kept = gnu.reservoir_sample(2, || Ok::<_, GnuError>(lines.next()))?;
    /// assert_eq!(kept, ["c", "b"]);
    /// assert_eq!(gnu.bytes_consumed(), 1);
    /// # Ok::<(), GnuError>(())
    /// ```
    ///
    /// # Errors
    /// The first error of `next`, or of a draw (converted into `E`).
    pub fn reservoir_sample<T, E, F>(&mut self, k: usize, mut next: F) -> Result<Vec<T>, E>
    where
        F: FnMut() -> Result<Option<T>, E>,
        E: From<GnuError>,
    {
        let mut reservoir = Vec::new();
        if k == 0 {
            return Ok(reservoir);
        }
        while reservoir.len() < k {
            match next()? {
                Some(record) => reservoir.push(record),
                None => return Ok(reservoir),
            }
        }
        let mut seen = k as u64;
        loop {
            let slot = self.choose(seen + 1)?;
            let Some(record) = next()? else {
                return Ok(reservoir);
            };
            if let Ok(slot) = usize::try_from(slot)
                && slot < k
            {
                reservoir[slot] = record;
            }
            seen += 1;
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<(), GnuError> {
        self.source.read_exact(buf).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => GnuError::EndOfFile,
            _ => GnuError::Read(e),
        })?;
        self.consumed += buf.len() as u64;
        Ok(())
    }
}

/// The sampler coreutils' `shuf` runs on a job: its plan, decided before any random byte is
/// read, from the options and what is known of the input's size.
///
/// ```
/// use fairdeal_rng::{GnuInput, GnuSampler};
///
/// // `seq 100 | shuf -n 3`: a pipe has no size, so a reservoir.
/// let pipe = GnuInput::Stream { bytes: None };
/// assert_eq!(GnuSampler::plan(Some(3), false, pipe), GnuSampler::Reservoir);
/// // The same from a small file: read whole, then the first 3 of a permutation.
/// let file = GnuInput::Stream { bytes: Some(292) };
/// assert_eq!(GnuSampler::plan(Some(3), false, file), GnuSampler::Permutation);
/// assert_eq!(GnuSampler::plan(Some(3), true, pipe), GnuSampler::Repeat);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GnuSampler {
    /// All records are held (read whole, or `-e`'s arguments, or `-i`'s range), then the first
    /// `min(k, n)` positions of [`GnuRandom::randperm`]`(k, n)` are written.
    Permutation,
    /// `-n k` on a stream of unknown size or above [`GNU_RESERVOIR_MIN_INPUT`] bytes:
    /// [`GnuRandom::reservoir_sample`]`(k)`, then the `m` kept records in the order of
    /// `randperm(m, m)`.
    Reservoir,
    /// `-r`: one [`GnuRandom::choose`]`(n)` per output record (all records held).
    Repeat,
}

/// What [`GnuSampler::plan`] knows of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GnuInput {
    /// Records whose number is known without reading (`-e`, `-i`).
    Listed,
    /// Records read from a stream, of `bytes` bytes when known (a regular file).
    Stream {
        /// The bytes left to read, when known.
        bytes: Option<u64>,
    },
}

impl GnuSampler {
    /// coreutils' choice for `-n head` (`None`, or `u64::MAX`, is no limit) and `-r`.
    pub const fn plan(head: Option<u64>, repeat: bool, input: GnuInput) -> Self {
        if repeat {
            return Self::Repeat;
        }
        let limited = matches!(head, Some(k) if k != u64::MAX);
        match input {
            GnuInput::Stream { bytes } if limited => match bytes {
                Some(bytes) if bytes <= GNU_RESERVOIR_MIN_INPUT => Self::Permutation,
                _ => Self::Reservoir,
            },
            _ => Self::Permutation,
        }
    }
}

/// Whether [`GnuRandom::randperm`]`(h, n)` keeps only the touched positions (coreutils' rule:
/// `n >= 131072` and `h <= n / 64`) rather than the whole `0..n`.
const fn is_sparse(h: u64, n: u64) -> bool {
    n >= SPARSE_MIN_N && n / SPARSE_RATIO >= h
}

/// The bytes [`GnuRandom::randperm`]`(h, n)` allocates, about: 8 per element of `0..n`, or
/// for the sparse form 8 per drawn element plus a hash map of `2h` entries. For bounding the
/// memory before drawing.
pub const fn gnu_randperm_bytes(h: u64, n: u64) -> u64 {
    let h = if h < n { h } else { n };
    if is_sparse(h, n) {
        h.saturating_mul(8 + 2 * 24)
    } else {
        n.saturating_mul(8)
    }
}

/// Whether coreutils' `shuf` opens its random source at all for a shuffle of `h` of `n`
/// records, not repeating and not sampling a reservoir: only when there is something to draw
/// (gnulib's byte bound, `ceil(h·(floor(log2 n) + 1) / 8)`, is not zero). With `-r` or a
/// reservoir it always opens it.
pub const fn gnu_opens_source(h: u64, n: u64) -> bool {
    h > 0 && n > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_is_coreutils_choice() {
        let at = |bytes| GnuInput::Stream { bytes: Some(bytes) };
        let limit = GNU_RESERVOIR_MIN_INPUT;
        assert_eq!(
            GnuSampler::plan(Some(1), false, at(limit)),
            GnuSampler::Permutation
        );
        assert_eq!(
            GnuSampler::plan(Some(1), false, at(limit + 1)),
            GnuSampler::Reservoir
        );
        assert_eq!(
            GnuSampler::plan(None, false, at(limit + 1)),
            GnuSampler::Permutation
        );
        assert_eq!(
            GnuSampler::plan(Some(u64::MAX), false, at(limit + 1)),
            GnuSampler::Permutation
        );
        assert_eq!(
            GnuSampler::plan(Some(0), true, GnuInput::Listed),
            GnuSampler::Repeat
        );
        assert_eq!(
            GnuSampler::plan(Some(2), false, GnuInput::Listed),
            GnuSampler::Permutation
        );
    }

    #[test]
    fn choose_one_consumes_nothing() {
        let mut gnu = GnuRandom::new(&[][..]);
        for _ in 0..5 {
            assert_eq!(gnu.choose(1).unwrap(), 0);
        }
        assert_eq!(gnu.bytes_consumed(), 0);
    }

    #[test]
    fn running_out_is_an_error_not_a_panic() {
        let mut gnu = GnuRandom::new(&[7u8][..]);
        assert!(matches!(gnu.choose(1000), Err(GnuError::EndOfFile)));
        let mut gnu = GnuRandom::new(&[][..]);
        assert!(matches!(gnu.randperm(3, 3), Err(GnuError::EndOfFile)));
    }

    #[test]
    fn a_byte_draw_of_256_uses_the_byte_whole() {
        let mut gnu = GnuRandom::new(&[0xAB, 0x01, 0x02][..]);
        assert_eq!(gnu.choose(256).unwrap(), 0xAB);
        assert_eq!(gnu.choose(65536).unwrap(), 0x0102);
        assert_eq!(gnu.bytes_consumed(), 3);
    }

    #[test]
    fn rejection_keeps_the_remainder() {
        // choose(3) from 255: usable 0..=254 (85·3), 255 is rejected; 255 % 3 = 0, uniform in
        // 0..=0, then one more byte: 0·256 + 10 = 10 in 0..=255 -> 10 % 3 = 1.
        let mut gnu = GnuRandom::new(&[255u8, 10][..]);
        assert_eq!(gnu.choose(3).unwrap(), 1);
        assert_eq!(gnu.bytes_consumed(), 2);
    }

    #[test]
    fn huge_bounds_do_not_overflow() {
        let bytes = [0xFFu8; 32];
        let mut gnu = GnuRandom::new(&bytes[..]);
        assert_eq!(gnu.genmax(u64::MAX).unwrap(), u64::MAX);
        assert_eq!(gnu.choose(0).unwrap(), u64::MAX);
        // 2^64 - 2 choices from all ones: 2^64 - 1 is rejected, its remainder 1 kept, and 8 more
        // bytes of ones give 2^64 - 1 again, until the bytes run out.
        let mut gnu = GnuRandom::new(&bytes[..]);
        assert!(matches!(gnu.genmax(u64::MAX - 2), Err(GnuError::EndOfFile)));
    }

    #[test]
    fn sparse_and_dense_permutations_agree() {
        let bytes: Vec<u8> = (0..20_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let n = SPARSE_MIN_N;
        let h = n / SPARSE_RATIO;
        let sparse = GnuRandom::new(&bytes[..]).randperm(h, n).unwrap();
        // The dense path, forced: the same swaps on the whole array.
        let mut gnu = GnuRandom::new(&bytes[..]);
        let mut all: Vec<u64> = (0..n).collect();
        for i in 0..h as usize {
            let j = i + gnu.choose(n - i as u64).unwrap() as usize;
            all.swap(i, j);
        }
        all.truncate(h as usize);
        assert_eq!(sparse, all);
        let mut sorted = sparse.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), h as usize);
    }

    #[test]
    fn too_large_a_dense_permutation_is_memory_exhausted() {
        let mut gnu = GnuRandom::new(&[][..]);
        assert!(matches!(
            gnu.randperm(u64::MAX, u64::MAX),
            Err(GnuError::MemoryExhausted)
        ));
    }
}
