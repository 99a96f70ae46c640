//! Input beyond the budget kept for picks with replacement: a checksummed spool.

use std::io::{self, Read, Write};
use std::path::Path;

use super::ExecError;
use crate::MemoryBudget;
use crate::spillfile::{Sealed, Segment, SpillFile};

/// The spool's blocks: runs of whole records of at least this many bytes, each a checksummed
/// segment of the spill file, read back whole (and verified) for every pick of one of its
/// records. One page: a pick reads and hashes about 4 KiB, and a block's bookkeeping
/// ([`SPOOL_BYTES_PER_BLOCK`]) is about 2 % of the spooled bytes.
pub const SPOOL_BLOCK: u64 = 4 << 10;

/// Memory per block: its start, its sealed segment and the segment's one extent on the heap.
pub const SPOOL_BYTES_PER_BLOCK: u64 = 96;

/// Memory per spooled record: its offset in the spool.
pub const SPOOL_BYTES_PER_RECORD: u64 = 8;

/// A block up to this size is read into memory and verified before its record is written; a
/// longer one (a record longer than this) is streamed, and verified at its end.
const SPOOL_READ_WHOLE: u64 = 1 << 20;

/// Input beyond the budget, copied to a private spill file ([`SpillFile`]) as checksummed
/// blocks of whole records, with the offset of every record (8 bytes each: the records, not
/// their bytes, must fit the budget).
pub(super) struct Spooled {
    file: SpillFile,
    /// Where each record starts in the file, then the end of the last one.
    offsets: Vec<u64>,
    /// Where each block starts, and the block: its length and checksum.
    blocks: Vec<(u64, Sealed)>,
}

/// Appends a block's pending bytes and seals it, starting the next at the file's end.
fn seal(
    file: &mut SpillFile,
    block: &mut (u64, Segment),
    pending: &mut Vec<u8>,
    blocks: &mut Vec<(u64, Sealed)>,
) -> Result<(), ExecError> {
    file.append(&mut block.1, pending)?;
    pending.clear();
    let full = std::mem::replace(block, (file.len(), Segment::default()));
    if full.1.bytes() > 0 {
        blocks.push((full.0, full.1.seal()));
    }
    Ok(())
}

impl Spooled {
    /// Copies `reader` into a new spill file in `scratch`.
    pub(super) fn write(
        mut reader: impl Read,
        separator: u8,
        scratch: &Path,
        budget: MemoryBudget,
    ) -> Result<Self, ExecError> {
        let mut file = SpillFile::anonymous_in(scratch)?;
        let mut offsets = vec![0u64];
        let mut blocks = Vec::new();
        // The block being written: where it starts, its segment, and its bytes not yet
        // appended (one append per block, or per 256 KiB of a long record).
        let mut block = (0u64, Segment::new());
        let mut pending: Vec<u8> = Vec::with_capacity(SPOOL_BLOCK as usize * 2);
        let mut buf = vec![0u8; 256 << 10];
        let mut last = separator;
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ExecError::Read(e)),
            };
            let mut rest = &buf[..n];
            while !rest.is_empty() {
                let Some(end) = memchr::memchr(separator, rest) else {
                    pending.extend_from_slice(rest);
                    if pending.len() >= 256 << 10 {
                        file.append(&mut block.1, &pending)?;
                        pending.clear();
                    }
                    break;
                };
                let (record, tail) = rest.split_at(end + 1);
                pending.extend_from_slice(record);
                rest = tail;
                let held = (offsets.len() as u64)
                    .saturating_mul(SPOOL_BYTES_PER_RECORD)
                    .saturating_add((blocks.len() as u64).saturating_mul(SPOOL_BYTES_PER_BLOCK));
                if held > budget.bytes() {
                    return Err(ExecError::SpoolBeyondBudget {
                        budget,
                        records: offsets.len() - 1,
                    });
                }
                offsets.try_reserve(1).map_err(|_| ExecError::OutOfMemory {
                    bytes: offsets.len() * 16,
                })?;
                offsets.push(file.len() + pending.len() as u64);
                if block.1.bytes() + pending.len() as u64 >= SPOOL_BLOCK {
                    seal(&mut file, &mut block, &mut pending, &mut blocks)?;
                }
            }
            last = buf[n - 1];
        }
        if last != separator {
            pending.push(separator);
            offsets.push(file.len() + pending.len() as u64);
        }
        seal(&mut file, &mut block, &mut pending, &mut blocks)?;
        Ok(Self {
            file,
            offsets,
            blocks,
        })
    }

    /// How many records the spool holds.
    pub(super) fn records(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Writes record `i` to `out`, from its block read back and verified.
    pub(super) fn write_record(
        &self,
        i: usize,
        buf: &mut Vec<u8>,
        out: &mut dyn Write,
    ) -> Result<(), ExecError> {
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        // The block holding the record: the last one starting at or before it.
        let b = self.blocks.partition_point(|(at, _)| *at <= start) - 1;
        let (at, block) = &self.blocks[b];
        let (from, to) = ((start - at) as usize, (end - at) as usize);
        if block.bytes() <= SPOOL_READ_WHOLE {
            buf.resize(block.bytes() as usize, 0);
            self.file.read_segment_into(block, buf)?;
            return out.write_all(&buf[from..to]).map_err(ExecError::Write);
        }
        // A long record: streamed, the block's checksum checked at its end (before `-o` is
        // put in place).
        let mut reader = self.file.segment_reader(block);
        let mut skip = from as u64;
        let mut copy = (to - from) as u64;
        buf.resize(64 << 10, 0);
        loop {
            let n = match reader.read(buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // The damage the reader found, else the read error.
                Err(e) => {
                    let dir = self.file.dir().to_path_buf();
                    if !e
                        .get_ref()
                        .is_some_and(|inner| inner.is::<crate::ExternalError>())
                    {
                        return Err(ExecError::SpoolRead { dir, source: e });
                    }
                    let kind = e.kind();
                    let damage = e
                        .into_inner()
                        .map(|inner| inner.downcast::<crate::ExternalError>());
                    return Err(match damage {
                        Some(Ok(damage)) => ExecError::External(*damage),
                        _ => ExecError::SpoolRead {
                            dir,
                            source: io::Error::from(kind),
                        },
                    });
                }
            };
            let skipped = skip.min(n as u64) as usize;
            skip -= skipped as u64;
            let copied = copy.min((n - skipped) as u64) as usize;
            copy -= copied as u64;
            out.write_all(&buf[skipped..skipped + copied])
                .map_err(ExecError::Write)?;
        }
    }
}
