//! Scatter tasks: each labels its share of the chunks and spills them grouped by bucket.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use fairdeal_core::{IndexSampler as _, Lemire, Rng, SeedableRng, stream_seed};

use super::manifest::{RunDir, RunManifest, SpillManifest, open_input, write_atomic, write_json};
use super::{
    FORMAT, LABELS, STAGING_BYTES, ShardError, Tally, TaskSummary, check_task, hex, io_error, share,
};
use crate::MemoryBudget;
use crate::ends::Ends;

/// Scatter task `task` of `tasks`: labels and spills its share of the chunks.
///
/// # Errors
///
/// [`ShardError::InputChanged`] and [`ShardError::InputModified`] for an input that is not
/// the planned one, [`ShardError::ChunkTooLarge`], the manifest and I/O errors.
pub fn scatter<G: Rng + SeedableRng>(
    dir: &RunDir,
    task: u64,
    tasks: u64,
    budget: MemoryBudget,
) -> Result<TaskSummary, ShardError> {
    check_task(task, tasks)?;
    let run = dir.load()?;
    let mut summary = TaskSummary::default();
    let range = share(run.chunks, task, tasks);
    // Reused from chunk to chunk: allocated (and their pages faulted in) once per task.
    let mut data = Vec::new();
    let mut index = ChunkIndex::default();
    for input in &run.inputs {
        let mine =
            range.start.max(input.first_chunk)..range.end.min(input.first_chunk + input.chunks);
        if mine.is_empty() {
            continue;
        }
        let mut file = open_input(input, run.chunk_bytes)?;
        for chunk in mine {
            let local = chunk - input.first_chunk;
            let start = local * run.chunk_bytes;
            let end = (start + run.chunk_bytes).min(input.bytes);
            let first = read_chunk(
                &mut file,
                &input.path,
                start..end,
                &run,
                chunk,
                budget,
                &mut data,
            )?;
            summary.bytes_read += (data.len() - first) as u64;
            spill_chunk::<G>(dir, &run, chunk, &data[first..], &mut index, &mut summary)?;
            summary.units += 1;
        }
    }
    Ok(summary)
}

/// Reads the bytes of the records starting in `[start, end)` of a file into `data` (emptied
/// first) and returns the offset in it where they begin: a record starts at 0 or after a separator; the last one runs to its
/// separator or to the end of the file (and gets one there).
fn read_chunk(
    file: &mut File,
    path: &Path,
    Range { start, end }: Range<u64>,
    run: &RunManifest,
    chunk: u64,
    budget: MemoryBudget,
    data: &mut Vec<u8>,
) -> Result<usize, ShardError> {
    let sep = run.separator;
    let read_error = io_error("cannot read input", path);
    let from = start.saturating_sub(1);
    file.seek(SeekFrom::Start(from)).map_err(read_error)?;
    let want = (end - from) as usize;
    data.clear();
    data.try_reserve_exact(want + 1)
        .map_err(|_| ShardError::OutOfMemory { bytes: want as u64 })?;
    Read::by_ref(file)
        .take(end - from)
        .read_to_end(data)
        .map_err(io_error("cannot read input", path))?;
    if data.len() != want {
        return Err(ShardError::InputChanged {
            path: path.to_path_buf(),
            planned: run
                .inputs
                .iter()
                .find(|i| i.path == path)
                .map_or(0, |i| i.bytes),
            now: from + data.len() as u64,
        });
    }
    // Where the first record starting at or after `start` begins.
    let first = if start == 0 {
        0
    } else {
        match memchr::memchr(sep, data) {
            Some(i) => i + 1,
            None => data.len(),
        }
    };
    // Finish a record that runs past `end`.
    let too_large = |bytes: usize, records: u64| ShardError::ChunkTooLarge {
        chunk,
        bytes: bytes as u64,
        records,
        budget: budget.bytes(),
    };
    let mut records = memchr::memchr_iter(sep, &data[first..]).count() as u64;
    if data.len() > first && data.last() != Some(&sep) {
        records += 1;
        let mut piece = vec![0u8; 64 << 10];
        loop {
            let n = loop {
                match file.read(&mut piece) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    other => break other.map_err(io_error("cannot read input", path))?,
                }
            };
            if n == 0 {
                data.push(sep);
                break;
            }
            let take = memchr::memchr(sep, &piece[..n]).map_or(n, |i| i + 1);
            data.extend_from_slice(&piece[..take]);
            let bytes = data.len() - first;
            if !budget.holds(bytes as u64 + 8 * records, records) {
                return Err(too_large(bytes, records));
            }
            if take < n || data.last() == Some(&sep) {
                break;
            }
        }
    }
    let bytes = data.len() - first;
    if !budget.holds(bytes as u64 + 8 * records, records) {
        return Err(too_large(bytes, records));
    }
    Ok(first)
}

/// The sampler of the bucket labels: changing it changes every run's bytes.
const LABEL_SAMPLER: Lemire = Lemire;

/// A chunk's records' labels and ends, and the grouped order, kept from chunk to chunk.
#[derive(Default)]
struct ChunkIndex {
    labels: Vec<u32>,
    ends: Vec<usize>,
    order: Vec<usize>,
}

/// The most buckets a scatter writes in input order, through one staging buffer per bucket
/// (64 KiB each, 4 MiB at most); with more, it writes bucket after bucket.
const IN_ORDER_MAX_BUCKETS: usize = 64;

/// Bytes of each bucket's staging buffer when a scatter writes in input order.
const IN_ORDER_STAGING_BYTES: usize = 64 << 10;

/// Labels the records of one chunk and writes them grouped by bucket, then the manifest.
fn spill_chunk<G: Rng + SeedableRng>(
    dir: &RunDir,
    run: &RunManifest,
    chunk: u64,
    data: &[u8],
    index: &mut ChunkIndex,
    summary: &mut TaskSummary,
) -> Result<(), ShardError> {
    let sep = run.separator;
    let buckets = run.buckets as usize;
    let mut rng = G::seed_from_u64(stream_seed(stream_seed(run.seed, LABELS), chunk));
    let ChunkIndex {
        labels,
        ends,
        order,
    } = index;
    labels.clear();
    ends.clear();
    let mut counts = vec![0usize; buckets];
    // The labels go through an `IndexSampler` like every other draw: `Lemire`, one word per
    // label (none for one bucket), the sampler a run's bytes were defined with.
    for end in Ends::new(sep, data) {
        let label = LABEL_SAMPLER.index_below(&mut rng, buckets);
        counts[label] += 1;
        labels.push(label as u32);
        ends.push(end + 1);
    }
    let grouped = if cfg!(unix) && buckets <= IN_ORDER_MAX_BUCKETS {
        Grouped::InOrder
    } else {
        Grouped::ByBucket
    };
    let (tallies, hashes) = write_grouped(
        &dir.spill(chunk),
        data,
        labels,
        ends,
        order,
        &counts,
        grouped,
    )?;
    let manifest = SpillManifest {
        format: FORMAT,
        seed: run.seed,
        chunk,
        buckets: run.buckets,
        bytes: data.len() as u64,
        lines: tallies.iter().map(|t| t.lines).collect(),
        sizes: tallies.iter().map(|t| t.bytes).collect(),
        sums: tallies.iter().map(|t| hex(t.sum)).collect(),
        hashes: hashes.iter().map(|&h| format!("{h:016x}")).collect(),
        offsets: Vec::new(),
        line_sums: Vec::new(),
        range_hashes: Vec::new(),
    };
    write_json(&dir.spill_manifest(chunk), &manifest)?;
    summary.lines += labels.len() as u64;
    summary.bytes_written += data.len() as u64;
    summary.files += 2;
    Ok(())
}

/// How a scatter writes a chunk's records grouped by bucket (the same bytes either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grouped {
    /// Reads the records in input order (sequentially), appending each to its bucket's
    /// staging buffer, written at the bucket's offset in the file when full.
    InOrder,
    /// Sorts the record indices by bucket and writes bucket after bucket.
    ByBucket,
}

/// Writes `data`'s records (ending at `ends`, labelled by `labels`, `counts` per bucket)
/// grouped by bucket, in input order within a bucket, to `path` atomically; returns each
/// bucket's tally (its lines hashed) and the xxh3-64 of its bytes.
fn write_grouped(
    path: &Path,
    data: &[u8],
    labels: &[u32],
    ends: &[usize],
    order: &mut Vec<usize>,
    counts: &[usize],
    grouped: Grouped,
) -> Result<(Vec<Tally>, Vec<u64>), ShardError> {
    let buckets = counts.len();
    let record = |i: usize| {
        let start = if i == 0 { 0 } else { ends[i - 1] };
        &data[start..ends[i]]
    };
    let mut tallies = vec![Tally::default(); buckets];
    let mut hashes = vec![0u64; buckets];
    // Positioned writes need `FileExt`: elsewhere, bucket after bucket.
    #[cfg(not(unix))]
    let _ = (grouped, IN_ORDER_STAGING_BYTES);
    #[cfg(unix)]
    if grouped == Grouped::InOrder {
        use std::os::unix::fs::FileExt as _;
        write_atomic(path, |w| {
            let file: &File = w.get_ref().file();
            // Where each bucket's next bytes go: its range starts where the ranges of the
            // buckets before it end.
            let mut at: Vec<u64> = Vec::with_capacity(buckets);
            let mut sizes = vec![0u64; buckets];
            for (i, &label) in labels.iter().enumerate() {
                sizes[label as usize] += record(i).len() as u64;
            }
            let mut offset = 0;
            for size in &sizes {
                at.push(offset);
                offset += size;
            }
            let mut staging: Vec<Vec<u8>> = (0..buckets)
                .map(|_| Vec::with_capacity(IN_ORDER_STAGING_BYTES))
                .collect();
            let mut hashers: Vec<xxhash_rust::xxh3::Xxh3> = (0..buckets)
                .map(|_| xxhash_rust::xxh3::Xxh3::new())
                .collect();
            let mut put = |b: usize, bytes: &[u8], at: &mut u64| -> io::Result<()> {
                hashers[b].update(bytes);
                file.write_all_at(bytes, *at)?;
                *at += bytes.len() as u64;
                Ok(())
            };
            for (i, &label) in labels.iter().enumerate() {
                let b = label as usize;
                let line = record(i);
                tallies[b].add_line(line);
                let stage = &mut staging[b];
                if stage.len() + line.len() > IN_ORDER_STAGING_BYTES {
                    put(b, stage, &mut at[b])?;
                    stage.clear();
                    if line.len() > IN_ORDER_STAGING_BYTES {
                        put(b, line, &mut at[b])?;
                        continue;
                    }
                }
                stage.extend_from_slice(line);
            }
            for b in 0..buckets {
                put(b, &staging[b], &mut at[b])?;
            }
            for (hash, hasher) in hashes.iter_mut().zip(&hashers) {
                *hash = hasher.digest();
            }
            Ok(())
        })?;
        return Ok((tallies, hashes));
    }
    // A counting sort: the record indices grouped by label, input order within a label.
    let mut next: Vec<usize> = counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect();
    order.clear();
    order.resize(labels.len(), 0);
    for (i, &label) in labels.iter().enumerate() {
        order[next[label as usize]] = i;
        next[label as usize] += 1;
    }
    // One pass over the records grouped by bucket: each line's hash for the bucket's
    // order-independent sum, and the bucket's bytes, staged and written in large pieces, each
    // piece also fed to the bucket's range hash (the gather checks a range with one hash of
    // its bytes instead of hashing every line again).
    write_atomic(path, |w| {
        // The staging buffer is the only one: the writer's buffer is bypassed.
        let file = w.get_mut();
        let mut staging: Vec<u8> = Vec::with_capacity(STAGING_BYTES);
        let mut from = 0;
        for (b, &count) in counts.iter().enumerate() {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            let tally = &mut tallies[b];
            for &i in &order[from..from + count] {
                let line = record(i);
                tally.add_line(line);
                if staging.len() + line.len() > STAGING_BYTES {
                    hasher.update(&staging);
                    file.write_all(&staging)?;
                    staging.clear();
                    if line.len() > STAGING_BYTES {
                        hasher.update(line);
                        file.write_all(line)?;
                        continue;
                    }
                }
                staging.extend_from_slice(line);
            }
            hasher.update(&staging);
            file.write_all(&staging)?;
            staging.clear();
            hashes[b] = hasher.digest();
            from += count;
        }
        Ok(())
    })?;
    Ok((tallies, hashes))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::fs;

    #[test]
    fn a_chunk_is_written_the_same_in_input_order_and_bucket_by_bucket() {
        let dir = tempfile::tempdir().unwrap();
        // Short records, and long ones past both staging sizes (64 KiB and 256 KiB).
        let data: Vec<u8> = (0..6000usize)
            .flat_map(|i| {
                let pad = match i {
                    100 => 70_000,
                    2000 => 300_000,
                    _ => i % 300,
                };
                format!("record {i} {}\n", "x".repeat(pad)).into_bytes()
            })
            .collect();
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', &data).map(|e| e + 1).collect();
        let buckets = 5;
        let labels: Vec<u32> = (0..ends.len())
            .map(|i| (i * i % 7 % buckets) as u32)
            .collect();
        let mut counts = vec![0usize; buckets];
        for &label in &labels {
            counts[label as usize] += 1;
        }
        let mut expected = Vec::new();
        for b in 0..buckets {
            for (i, _) in labels.iter().enumerate().filter(|&(_, &l)| l as usize == b) {
                let start = if i == 0 { 0 } else { ends[i - 1] };
                expected.extend_from_slice(&data[start..ends[i]]);
            }
        }
        let mut written = Vec::new();
        for (name, grouped) in [
            ("in-order", Grouped::InOrder),
            ("by-bucket", Grouped::ByBucket),
        ] {
            let path = dir.path().join(name);
            let result = write_grouped(
                &path,
                &data,
                &labels,
                &ends,
                &mut Vec::new(),
                &counts,
                grouped,
            )
            .unwrap();
            assert!(fs::read(&path).unwrap() == expected, "{name}");
            written.push(result);
        }
        assert_eq!(written[0], written[1]);
        let mut at = 0;
        for b in 0..buckets {
            let size = written[0].0[b].bytes as usize;
            assert_eq!(
                written[0].1[b],
                xxhash_rust::xxh3::xxh3_64(&expected[at..at + size])
            );
            at += size;
        }
    }
}
