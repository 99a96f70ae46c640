//! Shards: which fixed chunks of a chunk-seeded run one of `N` separate processes runs.

use core::fmt;
use core::ops::Range;
use core::str::FromStr;

/// Shard `index` of `count` (both counted from 1, as in `--shard 2/3`): one of `count`
/// separate processes that together run every chunk of a chunk-seeded run exactly once.
///
/// A chunk-seeded run (chunk `c` seeded with [`stream_seed`](crate::stream_seed)`(seed, c)`)
/// gives the same tallies whichever process runs a chunk, so shard `i` of `n` runs the
/// contiguous chunk range [`chunk_range`](Shard::chunk_range) decided by `(i, n, total
/// chunks)` alone, and the shards' integer tallies add up to exactly the whole run's.
///
/// ```
/// use fairdeal_core::Shard;
/// let shard: Shard = "2/3".parse()?;
/// assert_eq!((shard.index(), shard.count()), (2, 3));
/// assert_eq!(shard.chunk_range(10)?, 3..6);
/// assert_eq!(shard.to_string(), "2/3");
/// assert!("4/3".parse::<Shard>().is_err());
/// assert!(Shard::new(3, 3)?.chunk_range(2).is_err()); // 3 shards of 2 chunks: one is empty
/// # Ok::<(), fairdeal_core::ShardError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// Why a shard is invalid, or has no work in a run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// Not of the form `I/N` with whole numbers.
    #[error("'{0}' is not a shard: use I/N, e.g. 2/8 (shard 2 of 8)")]
    Syntax(alloc::string::String),
    /// The index is 0 or above the count, or the count is 0 or above [`Shard::MAX_COUNT`].
    #[error("shard {index}/{count} does not exist: use I/N with 1 <= I <= N <= {max}")]
    OutOfRange {
        /// The index given.
        index: u64,
        /// The count given.
        count: u64,
        /// [`Shard::MAX_COUNT`].
        max: u64,
    },
    /// More shards than the run has chunks: some shard would have nothing to do.
    #[error(
        "{count} shards of a run of {chunks} chunk(s) would leave some empty: use at most \
         {chunks} shards, or more work"
    )]
    TooFewChunks {
        /// The shard count.
        count: u64,
        /// Chunks in the run.
        chunks: u64,
    },
}

impl Shard {
    /// The most shards a run may be cut into (each is a process and an output file).
    pub const MAX_COUNT: u64 = 1 << 20;

    /// Shard `index` of `count`, both from 1.
    ///
    /// # Errors
    ///
    /// [`ShardError::OutOfRange`] unless `1 <= index <= count <= MAX_COUNT`.
    pub const fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if index == 0 || index > count || count > Self::MAX_COUNT {
            return Err(ShardError::OutOfRange {
                index,
                count,
                max: Self::MAX_COUNT,
            });
        }
        Ok(Shard { index, count })
    }

    /// This shard's number, from 1.
    pub const fn index(&self) -> u64 {
        self.index
    }

    /// How many shards the run is cut into.
    pub const fn count(&self) -> u64 {
        self.count
    }

    /// The chunks this shard runs out of `0..total_chunks`: chunks
    /// `⌊total·(i−1)/n⌋ .. ⌊total·i/n⌋`, so the `n` shards cover every chunk exactly once, in
    /// order, and their sizes differ by at most one.
    ///
    /// # Errors
    ///
    /// [`ShardError::TooFewChunks`] when `n > total_chunks` (a shard would be empty).
    pub fn chunk_range(&self, total_chunks: u64) -> Result<Range<u64>, ShardError> {
        if self.count > total_chunks {
            return Err(ShardError::TooFewChunks {
                count: self.count,
                chunks: total_chunks,
            });
        }
        let cut = |i: u64| {
            // total · i / n ≤ total, so the quotient fits a u64.
            (u128::from(total_chunks) * u128::from(i) / u128::from(self.count)) as u64
        };
        Ok(cut(self.index - 1)..cut(self.index))
    }
}

impl fmt::Display for Shard {
    /// `I/N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    /// `I/N`, e.g. `2/8`; surrounding spaces are ignored.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(alloc::string::String::from(text));
        let (index, count) = text.trim().split_once('/').ok_or_else(syntax)?;
        let number = |s: &str| {
            let s = s.trim();
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            // Too many digits for a u64 is out of range, not a syntax error.
            Ok(s.parse::<u64>().unwrap_or(u64::MAX))
        };
        Shard::new(number(index)?, number(count)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every chunk of every run is covered by exactly one shard, the shards' ranges are
    /// contiguous and in order, none is empty and their sizes differ by at most one.
    #[test]
    fn shards_cover_every_chunk_exactly_once() {
        let totals = (1..=70u64).chain([97, 1000, 65_537, u64::MAX / 3, u64::MAX]);
        for total in totals {
            for count in (1..=40u64).chain([999, 1000]) {
                if count > total {
                    assert!(Shard::new(1, count).unwrap().chunk_range(total).is_err());
                    continue;
                }
                let mut next = 0;
                let (mut smallest, mut largest) = (u64::MAX, 0);
                for index in 1..=count {
                    let range = Shard::new(index, count)
                        .unwrap()
                        .chunk_range(total)
                        .unwrap();
                    assert_eq!(range.start, next, "total {total}, shard {index}/{count}");
                    assert!(
                        range.end > range.start,
                        "empty shard {index}/{count} of {total}"
                    );
                    smallest = smallest.min(range.end - range.start);
                    largest = largest.max(range.end - range.start);
                    next = range.end;
                }
                assert_eq!(next, total, "{count} shards of {total}");
                assert!(largest - smallest <= 1, "{count} shards of {total}");
            }
        }
    }

    #[test]
    fn the_one_shard_is_the_whole_run() {
        assert_eq!(Shard::new(1, 1).unwrap().chunk_range(17).unwrap(), 0..17);
    }

    #[test]
    fn bad_shards_are_refused() {
        for bad in [
            "", "3", "1/", "/3", "a/3", "1/3/4", "-1/3", "1.0/3", "1 /3x",
        ] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::Syntax(_))),
                "{bad:?}"
            );
        }
        for bad in [
            "0/3",
            "4/3",
            "0/0",
            "1/0",
            "1/1048577",
            "99999999999999999999/3",
        ] {
            assert!(
                matches!(bad.parse::<Shard>(), Err(ShardError::OutOfRange { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(
            " 2 / 8 ".parse::<Shard>().unwrap(),
            Shard::new(2, 8).unwrap()
        );
        assert_eq!(
            "1/1048576".parse::<Shard>().unwrap().count(),
            Shard::MAX_COUNT
        );
    }
}
