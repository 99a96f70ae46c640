//! `--shard I/N`, the flag group every chunk-seeded Monte Carlo command flattens, and what a
//! shard adds to its output: the `shard` object of its `--json` document and the note that
//! ends its text report.
//!
//! A leaf: it names the commands and their chunk sizes but imports no command module, so the
//! commands (which write shards) and `cmd/merge.rs` (which reads them and calls the commands'
//! report code) both point here and never at each other.

use std::io::Write;

pub(crate) use fairdeal::ShardedCommand;
use fairdeal::{Shard, ShardHeader};
use serde_json::{Value, json};

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
        let ShardHeader {
            shard,
            chunks,
            total,
            ..
        } = ShardHeader::new(command, self.shard?, total);
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
