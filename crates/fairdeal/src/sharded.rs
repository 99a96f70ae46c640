//! The chunk-seeded Monte Carlo runs that can be cut into shards (`--shard I/N`), and the check
//! that a set of shards is one whole run, which `fairdeal merge` makes before it adds the
//! shards' tallies up.
//!
//! Every one of these engines is chunk-seeded (chunk `c` draws from `stream_seed(seed, c)`) and
//! [`Shard::chunk_range`] decides which contiguous chunks shard `I/N` runs, so a shard's
//! tallies are those of its chunks in the whole run. A shard records its [`ShardHeader`]; the
//! headers of a complete run are shards `1/N … N/N` of one command, count and total, each with
//! the chunk range its index gives ([`check_shard_set`]).

extern crate alloc;

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::ops::Range;

use crate::Shard;

/// The commands that run a shard of a chunk-seeded run, as a shard's `shard.command` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShardedCommand {
    /// `blackjack simulate`: chunks of rounds.
    BlackjackSimulate,
    /// `poker table --hands`: chunks of hands.
    PokerTable,
    /// `poker equity` (Monte Carlo): chunks of trials.
    PokerEquity,
    /// `fairness`: chunks of shuffles.
    Fairness,
}

impl ShardedCommand {
    /// Every command, for parsing `shard.command`.
    pub const ALL: [ShardedCommand; 4] = [
        Self::BlackjackSimulate,
        Self::PokerTable,
        Self::PokerEquity,
        Self::Fairness,
    ];

    /// `shard.command` of this command's documents.
    pub fn name(self) -> &'static str {
        match self {
            Self::BlackjackSimulate => "blackjack simulate",
            Self::PokerTable => "poker table",
            Self::PokerEquity => "poker equity",
            Self::Fairness => "fairness",
        }
    }

    /// The command a `shard.command` names.
    ///
    /// ```
    /// use fairdeal::ShardedCommand;
    /// assert_eq!(ShardedCommand::from_name("poker table"), Some(ShardedCommand::PokerTable));
    /// assert_eq!(ShardedCommand::from_name("poker"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<ShardedCommand> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Work items (rounds, hands, trials, shuffles) per chunk: how the engine cuts the run.
    pub fn chunk_size(self) -> u64 {
        match self {
            Self::BlackjackSimulate => crate::blackjack::CHUNK_ROUNDS,
            Self::PokerTable => crate::poker::CHUNK_HANDS,
            Self::PokerEquity => crate::poker::EQUITY_CHUNK,
            Self::Fairness => crate::fairness::CHUNK_TRIALS,
        }
    }

    /// What the work items are called: `rounds`, `hands`, `trials`, `shuffles`.
    pub fn noun(self) -> &'static str {
        match self {
            Self::BlackjackSimulate => "rounds",
            Self::PokerTable => "hands",
            Self::PokerEquity => "trials",
            Self::Fairness => "shuffles",
        }
    }

    /// The chunks of a run of `total` items.
    pub fn chunks(self, total: u64) -> u64 {
        total.div_ceil(self.chunk_size())
    }

    /// How many work items chunks `chunks` of a run of `total` hold (the last chunk may be
    /// short), or `None` when the range is not inside the run.
    pub fn items_in(self, chunks: &Range<u64>, total: u64) -> Option<u64> {
        let size = self.chunk_size();
        if chunks.start > chunks.end || chunks.end > self.chunks(total) {
            return None;
        }
        let end = chunks.end.checked_mul(size)?.min(total);
        let start = chunks.start.checked_mul(size)?.min(total);
        Some(end - start)
    }
}

/// What a shard records about itself: which command, which shard, its chunk range and the
/// whole run's total of work items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardHeader {
    /// The command that ran it.
    pub command: ShardedCommand,
    /// Which shard of how many.
    pub shard: Shard,
    /// The chunks it ran.
    pub chunks: Range<u64>,
    /// The work items of the whole run.
    pub total: u64,
}

impl ShardHeader {
    /// The header of `shard` of a run of `command` over `total` items (an empty chunk range
    /// when the run has fewer chunks than shards, which the engines refuse to run).
    pub fn new(command: ShardedCommand, shard: Shard, total: u64) -> ShardHeader {
        let chunks = shard.chunk_range(command.chunks(total)).unwrap_or_default();
        ShardHeader {
            command,
            shard,
            chunks,
            total,
        }
    }
}

/// Where two shards of a set disagree about their run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunDifference {
    /// Different commands.
    Command(ShardedCommand, ShardedCommand),
    /// Different shard counts.
    Count(u64, u64),
    /// Different totals of work items.
    Total(u64, u64),
}

impl fmt::Display for RunDifference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Command(a, b) => write!(f, "\"{}\" vs \"{}\"", a.name(), b.name()),
            Self::Count(a, b) => write!(f, "{a} vs {b} shards"),
            Self::Total(a, b) => write!(f, "a total of {a} vs {b}"),
        }
    }
}

/// Why a set of shard headers is not one whole run. Positions index the headers as given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardSetError {
    /// No headers at all.
    #[error("no shards")]
    Empty,
    /// Two shards of different runs (`first` is the lowest-numbered shard).
    #[error("shards at positions {first} and {other} are of different runs: {difference}")]
    DifferentRuns {
        /// The position of the lowest-numbered shard.
        first: usize,
        /// The position of the shard that differs from it.
        other: usize,
        /// What differs.
        difference: RunDifference,
    },
    /// One shard twice.
    #[error("shard {shard} is given twice: at positions {first} and {second}")]
    Duplicate {
        /// The shard.
        shard: Shard,
        /// One position.
        first: usize,
        /// The other.
        second: usize,
    },
    /// Shards missing: the first five of them (more when `more`), and the shard count.
    #[error(
        "shard {} missing: a merge needs all {count} shards of the run",
        missing_list(missing, *more, *count)
    )]
    Missing {
        /// The first missing shard indices (at most five).
        missing: Vec<u64>,
        /// Whether more than those are missing.
        more: bool,
        /// The shard count.
        count: u64,
    },
    /// A shard whose chunk range is not the one its index gives in the run.
    #[error("the shard at position {position} has chunks that are not those of its index")]
    WrongChunks {
        /// Its position.
        position: usize,
    },
}

/// `2/4 is`, `1/4, 3/4 are`, `1/9, 2/9, 3/9, 4/9, 5/9, … are`.
fn missing_list(missing: &[u64], more: bool, count: u64) -> String {
    let mut list: Vec<String> = missing.iter().map(|i| format!("{i}/{count}")).collect();
    if more {
        list.push("…".into());
    }
    if list.len() == 1 {
        format!("{} is", list[0])
    } else {
        format!("{} are", list.join(", "))
    }
}

/// A shard of a checked set: its position among the headers given, and the work items its
/// chunks hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckedShard {
    /// Its position among the headers given.
    pub position: usize,
    /// The work items (rounds, hands, trials, shuffles) of its chunks.
    pub items: u64,
}

/// Checks that `headers` are the complete set of shards `1/N … N/N` of one run (one command,
/// shard count and total; each shard once, with the chunk range its index gives) and returns
/// them in shard order.
///
/// ```
/// use fairdeal::{Shard, ShardHeader, ShardSetError, ShardedCommand, check_shard_set};
/// let command = ShardedCommand::Fairness;
/// let total = 10 * command.chunk_size();
/// let header = |i| ShardHeader::new(command, Shard::new(i, 2).unwrap(), total);
/// let set = check_shard_set(&[header(2), header(1)])?;
/// assert_eq!(set.iter().map(|s| s.position).collect::<Vec<_>>(), [1, 0]);
/// assert_eq!(set[0].items, total / 2);
/// assert!(matches!(check_shard_set(&[header(2)]), Err(ShardSetError::Missing { .. })));
/// # Ok::<(), ShardSetError>(())
/// ```
///
/// # Errors
///
/// [`ShardSetError`]: the first thing that is wrong, checked in the order of its variants.
pub fn check_shard_set(headers: &[ShardHeader]) -> Result<Vec<CheckedShard>, ShardSetError> {
    let mut order: Vec<usize> = (0..headers.len()).collect();
    order.sort_by_key(|&p| headers[p].shard.index());
    let Some(&first_at) = order.first() else {
        return Err(ShardSetError::Empty);
    };
    let first = &headers[first_at];
    for &other in &order[1..] {
        let doc = &headers[other];
        let difference = if doc.command != first.command {
            Some(RunDifference::Command(first.command, doc.command))
        } else if doc.shard.count() != first.shard.count() {
            Some(RunDifference::Count(first.shard.count(), doc.shard.count()))
        } else if doc.total != first.total {
            Some(RunDifference::Total(first.total, doc.total))
        } else {
            None
        };
        if let Some(difference) = difference {
            return Err(ShardSetError::DifferentRuns {
                first: first_at,
                other,
                difference,
            });
        }
    }
    for pair in order.windows(2) {
        if headers[pair[0]].shard == headers[pair[1]].shard {
            return Err(ShardSetError::Duplicate {
                shard: headers[pair[0]].shard,
                first: pair[0],
                second: pair[1],
            });
        }
    }
    let count = first.shard.count();
    if order.len() as u64 != count {
        let have: Vec<u64> = order.iter().map(|&p| headers[p].shard.index()).collect();
        let missing: Vec<u64> = (1..=count)
            .filter(|i| have.binary_search(i).is_err())
            .collect();
        return Err(ShardSetError::Missing {
            more: missing.len() > 5,
            missing: missing.into_iter().take(5).collect(),
            count,
        });
    }
    let chunks = first.command.chunks(first.total);
    order
        .into_iter()
        .map(|position| {
            let doc = &headers[position];
            let expected = doc.shard.chunk_range(chunks).ok();
            match (expected, doc.command.items_in(&doc.chunks, doc.total)) {
                (Some(expected), Some(items)) if expected == doc.chunks => {
                    Ok(CheckedShard { position, items })
                }
                _ => Err(ShardSetError::WrongChunks { position }),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn names_round_trip_and_chunk_ranges_count_their_items() {
        for command in ShardedCommand::ALL {
            assert_eq!(ShardedCommand::from_name(command.name()), Some(command));
        }
        assert_eq!(ShardedCommand::from_name("poker"), None);
        let c = ShardedCommand::BlackjackSimulate;
        let size = c.chunk_size();
        let total = 3 * size + 5;
        assert_eq!(c.items_in(&(0..1), total), Some(size));
        assert_eq!(c.items_in(&(1..4), total), Some(2 * size + 5));
        assert_eq!(c.items_in(&(0..4), total), Some(total));
        assert_eq!(c.items_in(&(0..5), total), None);
        assert_eq!(c.items_in(&Range { start: 3, end: 2 }, total), None);
    }

    fn header(command: ShardedCommand, index: u64, count: u64, total: u64) -> ShardHeader {
        ShardHeader::new(command, Shard::new(index, count).unwrap(), total)
    }

    #[test]
    fn a_set_is_refused_for_the_first_thing_wrong() {
        let c = ShardedCommand::PokerTable;
        let total = 8 * c.chunk_size();
        let set = [header(c, 1, 2, total), header(c, 2, 2, total)];
        assert_eq!(check_shard_set(&set).unwrap().len(), 2);
        let other = [
            header(c, 1, 2, total),
            header(ShardedCommand::Fairness, 2, 2, total),
        ];
        assert!(matches!(
            check_shard_set(&other),
            Err(ShardSetError::DifferentRuns {
                first: 0,
                other: 1,
                ..
            })
        ));
        let twice = [header(c, 1, 2, total), header(c, 1, 2, total)];
        assert!(matches!(
            check_shard_set(&twice),
            Err(ShardSetError::Duplicate { .. })
        ));
        let few: Vec<ShardHeader> = (1..=2).map(|i| header(c, i, 8, total)).collect();
        let err = check_shard_set(&few).unwrap_err();
        assert_eq!(
            err.to_string(),
            "shard 3/8, 4/8, 5/8, 6/8, 7/8, … are missing: a merge needs all 8 shards of the run"
        );
        let mut moved = set.clone();
        moved[1].chunks = 5..8;
        assert_eq!(
            check_shard_set(&moved),
            Err(ShardSetError::WrongChunks { position: 1 })
        );
        assert_eq!(check_shard_set(&[]), Err(ShardSetError::Empty));
    }
}
