//! `--shard I/N`, the flag group every chunk-seeded Monte Carlo command flattens, and what a
//! shard adds to its output: the `shard` object of its `--json` document and the note that
//! ends its text report.
//!
//! A leaf: it names the commands and their chunk sizes but imports no command module, so the
//! commands (which write shards) and `cmd/merge.rs` (which reads them and calls the commands'
//! report code) both point here and never at each other.

use std::io::Write;
use std::ops::Range;

use fairdeal::Shard;
use serde_json::{Value, json};

/// The commands that run a shard of a chunk-seeded run, as `shard.command` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShardedCommand {
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
    pub(crate) const ALL: [ShardedCommand; 4] = [
        Self::BlackjackSimulate,
        Self::PokerTable,
        Self::PokerEquity,
        Self::Fairness,
    ];

    /// `shard.command` of this command's documents.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::BlackjackSimulate => "blackjack simulate",
            Self::PokerTable => "poker table",
            Self::PokerEquity => "poker equity",
            Self::Fairness => "fairness",
        }
    }

    /// The command a `shard.command` names.
    pub(crate) fn from_name(name: &str) -> Option<ShardedCommand> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Work items (rounds, hands, trials, shuffles) per chunk: how the engine cuts the run.
    pub(crate) fn chunk_size(self) -> u64 {
        match self {
            Self::BlackjackSimulate => fairdeal::blackjack::CHUNK_ROUNDS,
            Self::PokerTable => fairdeal::poker::CHUNK_HANDS,
            Self::PokerEquity => fairdeal::poker::EQUITY_CHUNK,
            Self::Fairness => fairdeal::fairness::CHUNK_TRIALS,
        }
    }

    /// What the work items are called in the text note.
    fn noun(self) -> &'static str {
        match self {
            Self::BlackjackSimulate => "rounds",
            Self::PokerTable => "hands",
            Self::PokerEquity => "trials",
            Self::Fairness => "shuffles",
        }
    }

    /// The chunks of a run of `total` items.
    pub(crate) fn chunks(self, total: u64) -> u64 {
        total.div_ceil(self.chunk_size())
    }

    /// How many work items chunks `chunks` of a run of `total` hold (the last chunk may be
    /// short), or `None` when the range is not inside the run.
    pub(crate) fn items_in(self, chunks: &Range<u64>, total: u64) -> Option<u64> {
        let size = self.chunk_size();
        if chunks.start > chunks.end || chunks.end > self.chunks(total) {
            return None;
        }
        let end = chunks.end.checked_mul(size)?.min(total);
        let start = chunks.start.checked_mul(size)?.min(total);
        Some(end - start)
    }
}

/// `--shard I/N`: flatten it (`#[command(flatten)]`) into a chunk-seeded command; adjust its
/// help or requirements with `mut_arg("shard", …)`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub(crate) struct ShardArg {
    /// Run only shard I of N of the run (contiguous chunks; needs --seed); `fairdeal merge`
    /// adds the shards' --json outputs up to exactly the whole run's.
    #[arg(long, value_name = "I/N", requires = "seed", value_parser = parse_shard)]
    pub(crate) shard: Option<Shard>,
}

impl ShardArg {
    /// The `shard` object of a shard's `--json` document (`None` for a whole run): what
    /// merging needs beyond the tallies (the run's other parameters are the document's own
    /// fields).
    pub(crate) fn json(&self, command: ShardedCommand, total: u64) -> Option<Value> {
        let shard = self.shard?;
        let chunks = shard.chunk_range(command.chunks(total)).unwrap_or_default();
        Some(json!({
            "command": command.name(),
            "index": shard.index(),
            "count": shard.count(),
            "chunks": [chunks.start, chunks.end],
            "total": total,
        }))
    }

    /// After a shard's text report, the line that says it is one (nothing for a whole run).
    pub(crate) fn write_note(
        &self,
        out: &mut impl Write,
        command: ShardedCommand,
        total: u64,
    ) -> std::io::Result<()> {
        if let Some(shard) = self.shard {
            writeln!(
                out,
                "shard {shard} of a run of {total} {}: `fairdeal merge` adds the shards' --json \
                 outputs up to the whole run",
                command.noun()
            )?;
        }
        Ok(())
    }
}

/// `--shard I/N`'s parser: clap reports the library's message as a usage error.
pub(crate) fn parse_shard(text: &str) -> Result<Shard, String> {
    text.parse()
        .map_err(|e: fairdeal::ShardError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
