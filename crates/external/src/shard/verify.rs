//! `verify`: the parts against the inputs, the last net of a run.

use std::fs::{self, File};
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::PathBuf;

use serde::Serialize;

use super::manifest::{PartManifest, RunDir, bucket_of, is_part_name, read_json};
use super::{ShardError, Tally, hex, io_error, part_name, unhex};

/// The comparison of an output directory with its inputs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// Part files read.
    pub parts: u64,
    /// Lines of the inputs.
    pub input_lines: u64,
    /// Lines of the parts.
    pub output_lines: u64,
    /// Bytes of the inputs (a last line without separator counted with one).
    pub input_bytes: u64,
    /// Bytes of the parts.
    pub output_bytes: u64,
    /// The inputs' checksum (hex).
    pub input_checksum: String,
    /// The parts' checksum (hex).
    pub output_checksum: String,
    /// Whether the parts hold exactly the inputs' lines: same count, bytes and checksum, every
    /// part of the run present and matching its manifest.
    pub ok: bool,
    /// Why not, when not.
    pub problems: Vec<String>,
}

/// Checks that the parts in `dir` hold the same multiset of lines as `inputs`: the line count,
/// byte count and order-independent checksum of every `part-NNNNN` against the inputs', that
/// every part ends with `separator` (else `cat DIR/part-*` joins two records), and, when the
/// run manifest is there, that every bucket's part exists and matches its manifest and that no
/// other `part-*` file is there.
///
/// # Errors
///
/// [`ShardError::Io`] when a file cannot be read. A mismatch is not an error: see
/// [`Verification::ok`].
pub fn verify(dir: &RunDir, inputs: &[PathBuf], separator: u8) -> Result<Verification, ShardError> {
    let mut input = Tally::default();
    for path in inputs {
        let file = File::open(path).map_err(io_error("cannot read input", path))?;
        input.merge(
            &Tally::of_reader(file, separator).map_err(io_error("cannot read input", path))?,
        );
    }
    let mut names: Vec<String> = Vec::new();
    for entry in fs::read_dir(dir.root()).map_err(io_error("cannot list", dir.root()))? {
        let entry = entry.map_err(io_error("cannot list", dir.root()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_part_name(&name) {
            names.push(name);
        }
    }
    names.sort();
    let mut problems = Vec::new();
    let mut output = Tally::default();
    let mut parts = Vec::new();
    for name in &names {
        let path = dir.root().join(name);
        let mut file = File::open(&path).map_err(io_error("cannot read", &path))?;
        // A part must end with its separator: `cat DIR/part-*` would join its last record to
        // the next part's first (the tally counts a last record without one as if it had it).
        let mut last = [separator];
        if file
            .seek(SeekFrom::End(0))
            .map_err(io_error("cannot read", &path))?
            > 0
        {
            file.seek(SeekFrom::End(-1))
                .and_then(|_| file.read_exact(&mut last))
                .map_err(io_error("cannot read", &path))?;
        }
        if last[0] != separator {
            problems.push(format!(
                "{name} does not end with its separator (`cat` would join its last record to the next part's first)"
            ));
        }
        file.seek(SeekFrom::Start(0))
            .map_err(io_error("cannot read", &path))?;
        let tally = Tally::of_reader(file, separator).map_err(io_error("cannot read", &path))?;
        output.merge(&tally);
        parts.push((name.clone(), tally));
    }
    match dir.load() {
        Ok(run) => {
            if run.separator != separator {
                problems.push("the run used another record separator".to_string());
            }
            // Parts are paired with their manifests by name: a stray file is named alone.
            for (name, tally) in &parts {
                let Some(bucket) = bucket_of(name, run.buckets) else {
                    problems.push(format!(
                        "{name} is not one of the run's {} parts (part-00000 to {}): remove it",
                        run.buckets,
                        part_name(run.buckets - 1)
                    ));
                    continue;
                };
                let Ok(m) = read_json::<PartManifest>(&dir.part_manifest(bucket), "") else {
                    problems.push(format!("{name} has no readable manifest"));
                    continue;
                };
                if m.lines != tally.lines
                    || m.bytes != tally.bytes
                    || unhex(&m.sum) != Some(tally.sum)
                {
                    problems.push(format!("{name} does not match its manifest"));
                }
            }
            for bucket in 0..run.buckets {
                let name = part_name(bucket);
                if names.binary_search(&name).is_err() {
                    problems.push(format!("{name} is missing (a gather task has not run)"));
                }
            }
        }
        Err(ShardError::MissingManifest { .. }) => {}
        Err(e) => problems.push(format!("the run's manifests cannot be used: {e}")),
    }
    if input.lines != output.lines {
        problems.push(format!(
            "the inputs have {} lines, the parts {}",
            input.lines, output.lines
        ));
    } else if input != output {
        problems.push("the parts do not hold the same lines as the inputs".to_string());
    }
    Ok(Verification {
        parts: names.len() as u64,
        input_lines: input.lines,
        output_lines: output.lines,
        input_bytes: input.bytes,
        output_bytes: output.bytes,
        input_checksum: hex(input.sum),
        output_checksum: hex(output.sum),
        ok: problems.is_empty(),
        problems,
    })
}
