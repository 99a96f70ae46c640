//! Shuffles the lines of a file larger than memory with the library alone: what `fairdeal
//! shuffle --seed SEED --memory BUDGET -T DIR INPUT -o OUTPUT` does, without the command line.
//! The records stay in memory while they fit the budget and spill to private temporary files
//! in `DIR` once they do not; on a rayon pool of two or more threads the input is read ahead.
//!
//! ```text
//! cargo run --release -p fairdeal-external --example shuffle_file -- INPUT OUTPUT DIR BUDGET [SEED]
//! ```
//!
//! `BUDGET` as `--memory` takes it (`256M`, `4G`); the generator is ChaCha12 seeded with
//! `SEED` (default 1). The summary goes to stderr. `docs/benchmarks.md` times this program
//! and counts its instructions, apart from the CLI's own work.

use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;

use fairdeal_external::{ExternalShuffle, MemoryBudget};
use fairdeal_rng::Backend as _;
use fairdeal_rng::backend::ChaCha12;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, dir, budget, rest @ ..] = args.as_slice() else {
        return Err("usage: shuffle_file INPUT OUTPUT DIR BUDGET [SEED]".into());
    };
    let budget: MemoryBudget = budget.parse()?;
    let seed: u64 = rest.first().map_or(Ok(1), |s| s.parse())?;
    let mut rng = ChaCha12::seeded(seed);
    let dir = PathBuf::from(dir);
    let mut scratch = || Ok(dir.clone());
    let summary = ExternalShuffle::new(budget, b'\n').shuffle_spilling(
        Vec::new(),
        File::open(input)?,
        BufWriter::new(File::create(output)?),
        &mut scratch,
        &mut rng,
        &mut (),
    )?;
    eprintln!("{summary:?}");
    Ok(())
}
