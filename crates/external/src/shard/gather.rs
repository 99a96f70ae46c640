//! Gather tasks: each checks the chunks' manifests, then shuffles its share of the buckets
//! into part files.

use std::fs::{self, File};
use std::io::{Read, Seek, SeekFrom, Write};

use fairdeal_core::{Batched, Rng, SeedableRng, stream_seed};

use super::manifest::{
    GatherTasks, PartManifest, RunDir, RunManifest, SpillManifest, check_owner, create_json,
    open_input, read_json, stray_parts, write_atomic, write_json,
};
use super::{
    BUCKETS, FORMAT, MAX_BUCKETS, ShardError, Tally, TaskSummary, check_task, hex, io_error, share,
    unhex,
};
use crate::MemoryBudget;
use crate::ends::record_spans;

/// A chunk's manifest, read and checked against the run and against its spill file's length.
fn load_spill(dir: &RunDir, run: &RunManifest, chunk: u64) -> Result<SpillManifest, ShardError> {
    let path = dir.spill_manifest(chunk);
    let mut m: SpillManifest = read_json(&path, "a scatter task has not finished (run it again)")?;
    let bad = |reason: String| ShardError::CorruptManifest {
        path: path.clone(),
        reason,
    };
    if m.format != FORMAT || m.seed != run.seed || m.chunk != chunk || m.buckets != run.buckets {
        return Err(bad("it belongs to another run".into()));
    }
    let n = run.buckets as usize;
    if m.lines.len() != n || m.sizes.len() != n || m.sums.len() != n || m.hashes.len() != n {
        return Err(bad(format!("it does not list {n} buckets")));
    }
    m.line_sums = m.sums.iter().filter_map(|s| unhex(s)).collect();
    m.range_hashes = m
        .hashes
        .iter()
        .filter_map(|h| {
            (h.len() == 16)
                .then(|| u64::from_str_radix(h, 16).ok())
                .flatten()
        })
        .collect();
    if m.sizes.iter().sum::<u64>() != m.bytes || m.line_sums.len() != n || m.range_hashes.len() != n
    {
        return Err(bad("its sizes or checksums are malformed".into()));
    }
    let spill = dir.spill(chunk);
    let meta = fs::metadata(&spill).map_err(io_error("cannot read spill file", &spill))?;
    check_owner(&spill, &meta)?;
    let len = meta.len();
    if len != m.bytes {
        return Err(ShardError::Mismatch {
            path: spill,
            reason: format!("{len} bytes, the manifest says {}", m.bytes),
        });
    }
    m.offsets = m
        .sizes
        .iter()
        .scan(0u64, |at, &size| {
            let start = *at;
            *at += size;
            Some(start)
        })
        .collect();
    Ok(m)
}

/// Gather task `task` of `tasks`: shuffles and writes its share of the buckets. Every chunk's
/// manifest is checked first (all present, of this run, matching its spill file's length), and
/// each bucket's bytes against their line count, byte count and checksum.
///
/// # Errors
///
/// [`ShardError::MissingManifest`] when a scatter has not finished, [`ShardError::Mismatch`]
/// and [`ShardError::CorruptManifest`] for damaged files, [`ShardError::BucketTooLarge`];
/// [`ShardError::InputChanged`] and [`ShardError::InputModified`] for an input that is not
/// the planned one, [`ShardError::StrayPart`] for a file in the run directory named like a
/// part but not one of the run's, [`ShardError::GatherTasks`] for a task count other than the
/// first gather task's, [`ShardError::NotOurs`] for a spill file or manifest of another user.
pub fn gather<G: Rng + SeedableRng + Send>(
    dir: &RunDir,
    task: u64,
    tasks: u64,
    budget: MemoryBudget,
) -> Result<TaskSummary, ShardError> {
    check_task(task, tasks)?;
    let run = dir.load()?;
    // The inputs are not read, but chunks scattered from other bytes than the plan's would
    // lose or repeat the records at their edges.
    for input in &run.inputs {
        open_input(input, run.chunk_bytes)?;
    }
    // A file in DIR named like a part but not one of this run's would be joined to the
    // output by `cat DIR/part-*`.
    if let Some(name) = stray_parts(dir.root(), Some(run.buckets))?.first() {
        return Err(ShardError::StrayPart {
            path: dir.root().join(name),
            hint: "is not one of this run's parts: remove it (`cat DIR/part-*` would join it to the output)",
        });
    }
    // The first gather task records its count; another count would leave buckets out.
    let count = GatherTasks { tasks };
    let path = dir.gather_tasks();
    if !create_json(&path, &count)? {
        let recorded: GatherTasks = read_json(&path, "")?;
        if recorded.tasks != tasks {
            return Err(ShardError::GatherTasks {
                path,
                recorded: recorded.tasks,
                given: tasks,
            });
        }
    }
    let manifests = (0..run.chunks)
        .map(|c| load_spill(dir, &run, c))
        .collect::<Result<Vec<_>, _>>()?;
    let range = share(u64::from(run.buckets), task, tasks);
    let mut summary = TaskSummary::default();
    // Reused from bucket to bucket: allocated (and their pages faulted in) once per task.
    let mut buffers = (Vec::new(), Vec::new());
    for bucket in range {
        let bucket = bucket as u32;
        gather_bucket::<G>(
            dir,
            &run,
            &manifests,
            bucket,
            budget,
            &mut buffers,
            &mut summary,
        )?;
        summary.units += 1;
    }
    Ok(summary)
}

fn gather_bucket<G: Rng + SeedableRng + Send>(
    dir: &RunDir,
    run: &RunManifest,
    manifests: &[SpillManifest],
    bucket: u32,
    budget: MemoryBudget,
    (data, records): &mut (Vec<u8>, Vec<(usize, usize)>),
    summary: &mut TaskSummary,
) -> Result<(), ShardError> {
    let b = bucket as usize;
    let sep = run.separator;
    let (lines, bytes) = manifests
        .iter()
        .fold((0u64, 0u64), |(l, s), m| (l + m.lines[b], s + m.sizes[b]));
    if !budget.holds(bytes, lines) {
        let need = bytes + lines * crate::INDEX_BYTES_PER_RECORD;
        // Buckets of half the budget on average leave room for the random spread.
        let suggested = (u128::from(run.buckets) * u128::from(need) * 2)
            .div_ceil(u128::from(budget.bytes()))
            .min(u128::from(MAX_BUCKETS)) as u64;
        return Err(ShardError::BucketTooLarge {
            bucket,
            bytes,
            records: lines,
            budget: budget.bytes(),
            suggested,
        });
    }
    let len = usize::try_from(bytes).map_err(|_| ShardError::OutOfMemory { bytes })?;
    data.clear();
    data.try_reserve_exact(len)
        .map_err(|_| ShardError::OutOfMemory { bytes })?;
    // Each chunk's range of the bucket, checked against the length and the hash of its bytes
    // in the chunk's manifest; the part's tally is the sum of the ranges' (the manifests' sums
    // of their lines' hashes), so no line is hashed here.
    let mut total = Tally::default();
    for m in manifests {
        let size = m.sizes[b];
        if size == 0 {
            continue;
        }
        let path = dir.spill(m.chunk);
        let mut file = File::open(&path).map_err(io_error("cannot read spill file", &path))?;
        file.seek(SeekFrom::Start(m.offsets[b]))
            .map_err(io_error("cannot read spill file", &path))?;
        let at = data.len();
        // Into the reserved capacity: nothing is zeroed first.
        file.take(size)
            .read_to_end(data)
            .map_err(io_error("cannot read spill file", &path))?;
        let piece = &data[at..];
        if piece.len() as u64 != size {
            return Err(ShardError::Mismatch {
                path,
                reason: format!("bucket {bucket} is cut short"),
            });
        }
        if piece.last() != Some(&sep) || xxhash_rust::xxh3::xxh3_64(piece) != m.range_hashes[b] {
            return Err(ShardError::Mismatch {
                path,
                reason: format!("bucket {bucket}'s bytes differ from their checksum"),
            });
        }
        total.merge(&Tally {
            lines: m.lines[b],
            bytes: size,
            sum: m.line_sums[b],
        });
    }
    summary.bytes_read += data.len() as u64;
    // The records as ranges of `data`: the size of a `&[u8]`, and the shuffle's permutation
    // depends only on the length and the generator.
    records.clear();
    records
        .try_reserve_exact(lines as usize)
        .map_err(|_| ShardError::OutOfMemory {
            bytes: lines * crate::INDEX_BYTES_PER_RECORD,
        })?;
    records.extend(record_spans(sep, data));
    if records.len() as u64 != lines {
        return Err(ShardError::Mismatch {
            path: dir.spill_dir(),
            reason: format!(
                "bucket {bucket} holds {} lines, its manifests say {lines}",
                records.len()
            ),
        });
    }
    let mut rng = G::seed_from_u64(stream_seed(
        stream_seed(run.seed, BUCKETS),
        u64::from(bucket),
    ));
    fairdeal_parallel::Parallel::with_sampler(Batched).shuffle(records, &mut rng);
    write_atomic(&dir.part(bucket), |w| {
        for &(start, end) in records.iter() {
            w.write_all(&data[start..end])?;
        }
        Ok(())
    })?;
    let manifest = PartManifest {
        format: FORMAT,
        seed: run.seed,
        bucket,
        lines: total.lines,
        bytes: total.bytes,
        sum: hex(total.sum),
    };
    write_json(&dir.part_manifest(bucket), &manifest)?;
    summary.lines += total.lines;
    summary.bytes_written += total.bytes;
    summary.files += 2;
    Ok(())
}
