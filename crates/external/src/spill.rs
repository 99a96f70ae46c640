//! The scatter done in memory while the input fits the budget, spilled to bucket files the
//! moment it does not: [`ExternalShuffle::shuffle_spilling`].
//!
//! Shuffling a large input in memory as one array of record slices gathers every record from
//! a random place in the whole input when the output is written: a cache and TLB miss per
//! record. Scattering the records into [`FAN_OUT`] buckets as they are read (sequential
//! appends to 32 places) and then shuffling and writing one bucket at a time keeps each
//! bucket's random accesses within 1/32 of the input. The labels and the generators are drawn
//! exactly as [`ExternalShuffle::shuffle_in`] draws them, so the output is the same whether the
//! buckets stayed in memory or went to disk.

use std::io::{Read, Write};
use std::path::PathBuf;

use fairdeal_core::{IndexSampler, Rng, SeedableRng};

use crate::ends::{Pieces, record_spans};
use crate::pages::PageBuf;
use crate::threads::Helpers;
use crate::{
    Bucket, BucketWriter, ExternalError, ExternalShuffle, FAN_OUT, INDEX_BYTES_PER_RECORD, Labels,
    Progress, Run, Summary, stream_chunks, write_gathered,
};

/// Bytes of the first block of an in-memory bucket; each further block is twice the one
/// before, up to a [huge page](crate::pages::HUGE_PAGE) ([`MemoryBucket::next_block`]).
pub(crate) const BLOCK_BYTES: usize = 256 << 10;

/// A bucket held in memory: blocks of whole records. A record never spans two blocks, so each
/// block is indexed on its own and no bucket is ever copied into one piece.
#[derive(Default)]
struct MemoryBucket {
    blocks: Vec<PageBuf>,
}

impl MemoryBucket {
    /// The size of this bucket's next block: [`BLOCK_BYTES`], then doubling up to a
    /// [huge page](crate::pages::HUGE_PAGE) from the fourth block on. A bucket that stays small (an input just past
    /// the scatter's threshold spreads over 32) takes little more memory than its records; a
    /// large one has most of its records in huge pages.
    fn next_block(&self) -> usize {
        BLOCK_BYTES << self.blocks.len().min(3)
    }

    /// The capacity (bytes) that appending `piece` to the record being built, of which `open`
    /// bytes are already in the last block, would allocate: whole huge pages from one on
    /// ([`PageBuf::whole_huge_pages`]; `usize::MAX` if that overflows: no budget holds it).
    fn extra_capacity(&self, piece: usize, open: usize) -> usize {
        let rounded = |bytes: usize| PageBuf::whole_huge_pages(bytes).unwrap_or(usize::MAX);
        match self.blocks.last() {
            Some(last) if last.capacity() - last.len() >= piece => 0,
            // A record longer than a block grows its own block by doubling.
            Some(last) if open > 0 && last.len() == open => {
                rounded((last.len() + piece).max(2 * last.capacity())) - last.capacity()
            }
            _ => rounded(self.next_block().max(open + piece)),
        }
    }

    /// Appends `piece` as [`MemoryBucket::extra_capacity`] describes; returns the capacity
    /// added, which is that.
    fn append(&mut self, piece: &[u8], open: usize) -> Result<usize, ExternalError> {
        let extra = self.extra_capacity(piece.len(), open);
        match self.blocks.last_mut() {
            Some(last) if extra == 0 => {
                last.extend_from_slice(piece);
                return Ok(0);
            }
            Some(last) if open > 0 && last.len() == open => {
                // The record fills its block: a larger one takes its bytes and its place.
                let before = last.capacity();
                let mut grown = PageBuf::with_capacity(before + extra)?;
                grown.extend_from_slice(last);
                grown.extend_from_slice(piece);
                let added = grown.capacity() - before;
                *last = grown;
                return Ok(added);
            }
            _ => {}
        }
        let mut fresh = PageBuf::with_capacity(extra)?;
        if let Some(last) = self.blocks.last_mut() {
            // Move the record's start along so that it stays in one block.
            let start = last.len() - open;
            fresh.extend_from_slice(&last[start..]);
            last.truncate(start);
        }
        fresh.extend_from_slice(piece);
        let added = fresh.capacity();
        self.blocks.push(fresh);
        Ok(added)
    }
}

/// Where the top-level buckets are: in memory, or (after a spill) in files.
enum Store {
    Memory(Vec<MemoryBucket>),
    Files(BucketWriter),
}

/// The top-level scatter: the buckets' sizes and where their bytes are.
struct TopLevel<'s> {
    buckets: Vec<Bucket>,
    store: Store,
    /// Memory held: the capacity of the blocks and of the caller's prefix.
    held: u64,
    records: u64,
    /// The directory for the spill files, asked for at the first spill.
    scratch: &'s mut dyn FnMut() -> Result<PathBuf, ExternalError>,
}

impl<S: IndexSampler + Copy + Send + Sync> ExternalShuffle<S> {
    /// Shuffles the records of `prefix` followed by those of `rest` into `output`, with exactly
    /// the output of [`ExternalShuffle::shuffle_in`] on the same bytes and generator, but
    /// without temporary files while the input fits the budget.
    ///
    /// The records are scattered by iid uniform labels into [`FAN_OUT`] buckets held in memory
    /// (blocks of whole records), then each bucket is shuffled (`fairdeal-parallel`, on the
    /// caller's rayon pool) and written, in label order. The moment the memory held (the
    /// blocks, the `prefix` until it has been scattered, and [`INDEX_BYTES_PER_RECORD`] per
    /// record) would exceed the budget, the buckets are written to files in the directory
    /// `scratch()` returns (called at most once, and only then) and the scatter goes on on
    /// disk, recursing like `shuffle_in` for buckets larger than the budget.
    ///
    /// `prefix` is typically what [`ExternalShuffle::load`] read before the input outgrew a
    /// limit; its capacity counts against the budget until it has been scattered. Memory
    /// stays within the budget plus [`BUFFER_BYTES`](crate::BUFFER_BYTES).
    ///
    /// On a rayon pool of two or more threads, `rest` is read ahead by a second thread (with
    /// two half-size read buffers, so the same [`BUFFER_BYTES`](crate::BUFFER_BYTES)) while
    /// the records already read are labelled and appended; on one thread, or when no second
    /// thread can be had (a process or memory limit), it is read on the calling thread. The
    /// output is the same either way.
    ///
    /// [`Summary::bucket_files`] is 0 when nothing was spilled. After
    /// [`spill_at_once(true)`](ExternalShuffle::spill_at_once) the buckets go to files from the
    /// first record (`scratch()` is called before any input is read).
    ///
    /// # Errors
    ///
    /// As [`ExternalShuffle::shuffle_in`], and whatever `scratch` returns.
    pub fn shuffle_spilling<G>(
        &self,
        prefix: Vec<u8>,
        rest: impl Read + Send,
        output: impl Write,
        scratch: &mut dyn FnMut() -> Result<PathBuf, ExternalError>,
        rng: &mut G,
        progress: &mut dyn Progress,
    ) -> Result<Summary, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let mut run = Run::new(
            PathBuf::new(),
            output,
            progress,
            Helpers::for_budget(self.budget),
        );
        let mut top = TopLevel {
            buckets: vec![Bucket::default(); FAN_OUT],
            store: Store::Memory((0..FAN_OUT).map(|_| MemoryBucket::default()).collect()),
            held: prefix.capacity() as u64,
            records: 0,
            scratch,
        };
        if self.spill_at_once {
            top.spill(&mut run)?;
        }
        let mut labels = Labels::default();
        // The bucket of a record whose separator has not been read yet, and its bytes so far.
        let mut open_record: Option<(usize, usize)> = None;
        let prefix_capacity = prefix.capacity() as u64;
        // On a pool of two or more threads the input is read ahead on a second thread while
        // the records are labelled and appended: the same chunks' bytes, so the same output.
        let read_ahead = rayon::current_num_threads() >= 2;
        let read_ahead = read_ahead.then_some(run.helpers);
        stream_chunks(prefix, rest, read_ahead, |chunk, is_prefix| {
            run.progress.read(chunk.len() as u64);
            self.scatter_chunk(
                chunk,
                &mut top,
                &mut open_record,
                &mut labels,
                &mut run,
                rng,
            )?;
            if is_prefix {
                // Dropped as soon as this returns.
                top.held = top.held.saturating_sub(prefix_capacity);
            }
            Ok(())
        })?;
        if let Some((bucket, open)) = open_record {
            top.put(bucket, &[self.separator], open, self.budget, &mut run)?;
        }
        run.summary.depth = 1;
        match top.store {
            Store::Memory(memory) => self.gather_memory(&top.buckets, &memory, &mut run, rng)?,
            Store::Files(mut writer) => {
                writer.buckets = top.buckets;
                let level = writer.finish(&mut run)?;
                self.gather(level, 1, &mut run, rng)?;
            }
        }
        run.output.flush().map_err(ExternalError::Output)?;
        Ok(run.summary)
    }

    /// Labels the records starting in `chunk` and appends every byte to its record's bucket.
    fn scatter_chunk<G: Rng>(
        &self,
        chunk: &[u8],
        top: &mut TopLevel<'_>,
        open_record: &mut Option<(usize, usize)>,
        labels: &mut Labels,
        run: &mut Run<'_, impl Write>,
        rng: &mut G,
    ) -> Result<(), ExternalError> {
        for (piece, done) in Pieces::new(self.separator, chunk) {
            let (bucket, open) = match *open_record {
                Some(open) => open,
                None => {
                    let bucket = labels.next(rng);
                    top.buckets[bucket].records += 1;
                    top.records += 1;
                    (bucket, 0)
                }
            };
            top.put(bucket, piece, open, self.budget, run)?;
            *open_record = (!done).then_some((bucket, open + piece.len()));
        }
        Ok(())
    }

    /// Shuffles and writes the in-memory buckets in label order, each with its own generator
    /// drawn as [`ExternalShuffle::gather`] draws them. On a pool of two or more threads, one
    /// worker indexes and shuffles the next bucket while this one writes the current one
    /// (measured in `docs/notes/2026-11-26-benchmarks-moved.md`: it pays on two cores); that worker is a task of the
    /// caller's pool (`rayon::in_place_scope`), so the bucket shuffles stay on the threads the
    /// caller sized and no other thread starts. On one thread, each bucket is shuffled, then
    /// written.
    fn gather_memory<G>(
        &self,
        buckets: &[Bucket],
        memory: &[MemoryBucket],
        run: &mut Run<'_, impl Write>,
        rng: &mut G,
    ) -> Result<(), ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let children: Vec<G> = buckets.iter().map(|_| G::from_rng(rng)).collect();
        let work = buckets.iter().zip(memory).zip(children);
        if rayon::current_num_threads() < 2 {
            for ((bucket, stored), mut child) in work {
                if bucket.records > 0 {
                    let shuffled = self.shuffled_bucket(bucket, stored, &mut child)?;
                    write_records(&shuffled, bucket, run)?;
                }
            }
            return Ok(());
        }
        rayon::in_place_scope(|scope| {
            let (sender, receiver) = std::sync::mpsc::sync_channel(1);
            scope.spawn(move |_| {
                for ((bucket, stored), mut child) in work {
                    if bucket.records == 0 {
                        continue;
                    }
                    let shuffled = self.shuffled_bucket(bucket, stored, &mut child);
                    // The writer stops receiving after an error.
                    if sender.send((bucket, shuffled)).is_err() {
                        return;
                    }
                }
            });
            for (bucket, shuffled) in receiver {
                write_records(&shuffled?, bucket, run)?;
            }
            Ok(())
        })
    }

    /// The records of an in-memory bucket, indexed block by block and shuffled.
    fn shuffled_bucket<'m, G>(
        &self,
        bucket: &Bucket,
        stored: &'m MemoryBucket,
        child: &mut G,
    ) -> Result<Vec<&'m [u8]>, ExternalError>
    where
        G: Rng + SeedableRng + Send,
    {
        let mut records: Vec<&[u8]> = Vec::new();
        records
            .try_reserve_exact(bucket.records as usize)
            .map_err(|_| ExternalError::OutOfMemory {
                bytes: bucket.records * INDEX_BYTES_PER_RECORD,
            })?;
        for block in &stored.blocks {
            records
                .extend(record_spans(self.separator, block).map(|(start, end)| &block[start..end]));
        }
        debug_assert_eq!(records.len() as u64, bucket.records);
        fairdeal_parallel::Parallel::with_sampler(self.sampler).shuffle(&mut records, child);
        Ok(records)
    }
}

/// Appends one bucket's shuffled records to the output.
fn write_records(
    records: &[&[u8]],
    bucket: &Bucket,
    run: &mut Run<'_, impl Write>,
) -> Result<(), ExternalError> {
    write_gathered(records.len(), |i| records[i], &mut run.output)
        .map_err(ExternalError::Output)?;
    run.wrote(bucket.records, bucket.bytes);
    Ok(())
}

impl TopLevel<'_> {
    /// Appends `piece` (part of a record of which `open` bytes are already stored) to bucket
    /// `b`: in memory while the budget allows, else in its file, spilling first if needed.
    fn put(
        &mut self,
        b: usize,
        piece: &[u8],
        open: usize,
        budget: crate::MemoryBudget,
        run: &mut Run<'_, impl Write>,
    ) -> Result<(), ExternalError> {
        if let Store::Memory(memory) = &mut self.store {
            let extra = memory[b].extra_capacity(piece.len(), open) as u64;
            if budget.holds(self.held + extra, self.records) {
                self.held += memory[b].append(piece, open)? as u64;
                self.buckets[b].bytes += piece.len() as u64;
                return Ok(());
            }
            self.spill(run)?;
        }
        let Store::Files(writer) = &mut self.store else {
            unreachable!("spill() leaves the buckets in files")
        };
        // The writer counts bytes; the records are counted in `self.buckets`.
        self.buckets[b].bytes += piece.len() as u64;
        writer.append(b, piece, run)
    }

    /// Moves every in-memory bucket to its segment of a spill file in the scratch directory
    /// (asked for now).
    fn spill(&mut self, run: &mut Run<'_, impl Write>) -> Result<(), ExternalError> {
        run.scratch = (self.scratch)()?;
        let Store::Memory(memory) =
            std::mem::replace(&mut self.store, Store::Files(BucketWriter::new()))
        else {
            return Ok(());
        };
        let Store::Files(writer) = &mut self.store else {
            unreachable!()
        };
        for (b, stored) in memory.into_iter().enumerate() {
            for block in stored.blocks {
                writer.append(b, &block, run)?;
            }
        }
        self.held = 0;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::{Arc, Mutex};
    use std::thread::ThreadId;

    use fairdeal_core::SeedableRng as _;
    use rand_pcg::Pcg64;

    use super::*;
    use crate::MemoryBudget;

    /// Every read of a [`Noted`]: its thread and the bytes served before it.
    type Reads = Vec<(ThreadId, usize)>;

    /// Serves `data` in reads of at most 5,000 bytes, noting the thread of every read and the
    /// bytes served before it; once `fail_at` bytes (if set) have been served, a read fails.
    struct Noted<'a> {
        data: &'a [u8],
        served: usize,
        threads: Arc<Mutex<Reads>>,
        fail_at: Option<usize>,
    }

    impl Read for Noted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.threads
                .lock()
                .unwrap()
                .push((std::thread::current().id(), self.served));
            let limit = self.fail_at.unwrap_or(usize::MAX);
            if self.served >= limit {
                return Err(io::Error::other("the disk went away"));
            }
            let left = &self.data[self.served..];
            let n = buf
                .len()
                .min(5_000)
                .min(left.len())
                .min(limit - self.served);
            buf[..n].copy_from_slice(&left[..n]);
            self.served += n;
            Ok(n)
        }
    }

    /// A bucket's blocks double from 256 KiB to a huge page and stay there; a record that
    /// outgrows its block doubles that block; and the capacity `extra_capacity` promises (what
    /// the budget is asked for) is exactly what `append` adds, with whole records per block.
    #[test]
    fn blocks_double_to_a_huge_page_and_the_budget_sees_what_they_take() {
        let mut bucket = MemoryBucket::default();
        let record = [b'r'; 1000];
        let mut held = 0;
        let mut records = 0;
        while bucket.blocks.len() < 6 {
            let extra = bucket.extra_capacity(record.len(), 0);
            assert_eq!(bucket.append(&record, 0).unwrap(), extra);
            held += extra;
            records += 1;
        }
        let capacities: Vec<usize> = bucket.blocks.iter().map(|b| b.capacity()).collect();
        let kib = [256, 512, 1024, 2048, 2048, 2048];
        assert_eq!(capacities, kib.map(|k| k << 10));
        assert_eq!(held, capacities.iter().sum::<usize>());
        // Every block holds whole records only.
        let stored: usize = bucket.blocks.iter().map(|b| b.len()).sum();
        assert_eq!(stored, records * record.len());
        assert!(bucket.blocks.iter().all(|b| b.len() % record.len() == 0));

        // A record longer than a huge page, appended in pieces: its block doubles (rounded to
        // whole huge pages) and keeps the record in one piece.
        let mut long = MemoryBucket::default();
        let piece = vec![b'p'; 700 << 10];
        let mut open = 0;
        for _ in 0..8 {
            let extra = long.extra_capacity(piece.len(), open);
            assert_eq!(long.append(&piece, open).unwrap(), extra);
            open += piece.len();
        }
        assert_eq!(long.blocks.len(), 1);
        assert_eq!(long.blocks[0].len(), 8 * piece.len());
        assert_eq!(long.blocks[0].capacity() % crate::pages::HUGE_PAGE, 0);
    }

    /// The records of `bytes`, sorted.
    fn sorted(bytes: &[u8]) -> Vec<&[u8]> {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        lines.sort_unstable();
        lines
    }

    fn input() -> Vec<u8> {
        (0..60_000u32)
            .flat_map(|i| format!("record {i} {}\n", "x".repeat(i as usize % 23)).into_bytes())
            .collect()
    }

    /// Runs `shuffle_spilling` on a pool of `threads` threads (the first 10,000 bytes as the
    /// prefix), its spill file discarding each bucket read back if `discard`: the output or
    /// error, the thread that ran it and the reads (their thread, the bytes served before).
    fn run(
        threads: usize,
        data: &[u8],
        fail_at: Option<usize>,
        discard: bool,
    ) -> (Result<Vec<u8>, ExternalError>, ThreadId, Reads) {
        let dir = tempfile::tempdir().unwrap();
        let noted = Arc::new(Mutex::new(Vec::new()));
        let reader = Noted {
            data: &data[10_000..],
            served: 0,
            threads: Arc::clone(&noted),
            fail_at,
        };
        let shuffle = ExternalShuffle::new(MemoryBudget::new(256 << 10).unwrap(), b'\n');
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let (result, caller) = pool.install(|| {
            crate::spillfile::tests::ALWAYS_DISCARD.set(discard);
            let mut output = Vec::new();
            let path = dir.path().to_path_buf();
            let result = shuffle
                .shuffle_spilling(
                    data[..10_000].to_vec(),
                    reader,
                    &mut output,
                    &mut || Ok(path.clone()),
                    &mut Pcg64::seed_from_u64(3),
                    &mut (),
                )
                .map(|summary| {
                    assert!(summary.bucket_files > 0, "the input spills");
                    output
                });
            crate::spillfile::tests::ALWAYS_DISCARD.set(false);
            (result, std::thread::current().id())
        });
        let reads = noted.lock().unwrap().clone();
        (result, caller, reads)
    }

    #[test]
    fn the_input_is_read_ahead_on_a_second_thread_only_on_two_or_more_threads() {
        let data = input();
        let (one, caller, reads) = run(1, &data, None, false);
        assert!(
            reads.iter().all(|&(t, _)| t == caller),
            "one thread reads itself"
        );
        let (two, caller, reads) = run(2, &data, None, false);
        assert!(reads.len() > 100, "{} reads", reads.len());
        assert!(
            reads.iter().all(|&(t, _)| t != caller),
            "with two threads every read of the rest is on the read-ahead thread"
        );
        let (one, two) = (one.unwrap(), two.unwrap());
        assert_eq!(one, two, "the same output on any number of threads");
        assert_eq!(sorted(&one), sorted(&data), "a permutation of the input");
    }

    /// Buckets discarded from the spill file as they are read back (as where the disk is
    /// short of space) give the same output: each is read whole before it is discarded.
    #[test]
    fn discarding_the_buckets_read_back_changes_no_byte() {
        use std::sync::atomic::Ordering::Relaxed;
        let data = input();
        for threads in [1, 2] {
            let (kept, ..) = run(threads, &data, None, false);
            let before = crate::spillfile::tests::DISCARDED.load(Relaxed);
            let (discarded, ..) = run(threads, &data, None, true);
            let count = crate::spillfile::tests::DISCARDED.load(Relaxed) - before;
            assert!(count >= 32, "{threads} threads: {count} buckets discarded");
            assert_eq!(kept.unwrap(), discarded.unwrap(), "{threads} threads");
        }
    }

    #[test]
    fn a_read_error_on_the_read_ahead_thread_is_an_input_error() {
        let data = input();
        for threads in [1, 2] {
            let (result, _, reads) = run(threads, &data, Some(400_000), false);
            let error = result.unwrap_err();
            assert!(
                matches!(&error, ExternalError::Input(e) if e.to_string() == "the disk went away"),
                "{threads} threads: {error:?}"
            );
            // The failed read is the last: every read after it would fail too.
            let failed = reads
                .iter()
                .filter(|&&(_, served)| served == 400_000)
                .count();
            assert_eq!(failed, 1, "{threads} threads");
            assert_eq!(reads.last().unwrap().1, 400_000, "{threads} threads");
        }
    }

    /// Endless input (`yes` into a pipe) and a scratch directory that cannot be had: the
    /// scatter fails at its first spill, and the read-ahead thread stops instead of reading
    /// for ever (the test would not end).
    #[test]
    fn a_failed_scatter_stops_the_read_ahead() {
        struct Endless;
        impl Read for Endless {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                for pair in buf.chunks_mut(2) {
                    pair.copy_from_slice(&b"y\n"[..pair.len()]);
                }
                Ok(buf.len())
            }
        }
        fail_at_the_first_spill(Endless, || {});
    }

    /// Runs `shuffle_spilling` of `input` at a 64 KiB budget on two threads (so with the
    /// read-ahead) with a scratch directory that cannot be had: `at_spill` runs when it is
    /// asked for, and the error must be that directory's.
    fn fail_at_the_first_spill(input: impl Read + Send, mut at_spill: impl FnMut() + Send) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let shuffle = ExternalShuffle::new(MemoryBudget::new(64 << 10).unwrap(), b'\n');
        let error = pool
            .install(|| {
                shuffle.shuffle_spilling(
                    Vec::new(),
                    input,
                    io::sink(),
                    &mut || {
                        at_spill();
                        Err(ExternalError::TempCreate {
                            dir: PathBuf::from("/nonexistent"),
                            source: io::Error::from(io::ErrorKind::PermissionDenied),
                        })
                    },
                    &mut Pcg64::seed_from_u64(1),
                    &mut (),
                )
            })
            .unwrap_err();
        assert!(
            matches!(error, ExternalError::TempCreate { .. }),
            "{error:?}"
        );
    }

    /// A slow pipe that hands out one byte per read after its first 128 KiB: once the scatter
    /// has failed, the read-ahead stops between two reads instead of filling its buffer (131,072
    /// more reads, 13 s at 100 µs each).
    #[test]
    fn a_failed_scatter_stops_the_read_ahead_between_short_reads() {
        use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
        struct Slow<'a>(&'a AtomicUsize);
        impl Read for Slow<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let served = self.0.fetch_add(1, SeqCst);
                let n = if served < 4 {
                    buf.len().min(32 << 10)
                } else {
                    std::thread::sleep(std::time::Duration::from_micros(100));
                    1
                };
                for (i, byte) in buf[..n].iter_mut().enumerate() {
                    *byte = if (served + i).is_multiple_of(2) {
                        b'y'
                    } else {
                        b'\n'
                    };
                }
                Ok(n)
            }
        }
        let reads = AtomicUsize::new(0);
        let at_failure = AtomicUsize::new(0);
        fail_at_the_first_spill(Slow(&reads), || {
            at_failure.store(reads.load(SeqCst), SeqCst);
        });
        let after = reads.load(SeqCst) - at_failure.load(SeqCst);
        // A few reads while the error comes back; 10,000 would take a second.
        assert!(after < 10_000, "{after} reads after the scatter failed");
    }
}
