//! Private, verified spill files: the only way this crate puts data on disk.
//!
//! - **Private.** A [`SpillFile`] is created with mode 0600 whatever the umask (the umask can
//!   only remove bits), and by default it is *anonymous*: opened with `O_TMPFILE` where the
//!   file system supports it, else created under a random name and unlinked at once. No other
//!   user can open it, and no signal (not even SIGKILL or the OOM killer) can leave it behind:
//!   the kernel frees it when the last descriptor closes.
//! - **Verified.** Data goes in as [`Segment`]s: runs of appended bytes (possibly interleaved
//!   with other segments of the same file) whose length and xxh3-64 checksum are counted as
//!   they are written. A sealed segment ([`Sealed`]) is read back only whole, and a short read
//!   or a different checksum is [`ExternalError::TempDamaged`], never wrong data.
//! - **Few descriptors.** One file holds any number of segments, so a scatter into 32
//!   buckets needs one descriptor, not 32.
//!
//! The crate's own executors use it (the external shuffle, the spool of picks with
//! replacement); it is not public. `tests::segments_interleave_in_one_file` shows its use.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use xxhash_rust::xxh3::Xxh3;

use crate::ExternalError;
use crate::pages::PageBuf;

/// The parent directory for temporary files: `explicit` (`-T DIR`), else `$TMPDIR` when set
/// and not empty, else `/tmp` (an empty `TMPDIR` does not mean the current directory).
pub fn temp_parent(explicit: Option<&Path>) -> PathBuf {
    if let Some(dir) = explicit {
        return dir.to_path_buf();
    }
    match std::env::var_os("TMPDIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ if cfg!(unix) => PathBuf::from("/tmp"),
        _ => std::env::temp_dir(),
    }
}

/// `tempfile` appends " at path …" to its errors, naming a file that never existed.
fn strip_path(error: io::Error) -> io::Error {
    if error.raw_os_error().is_some() {
        return error;
    }
    let text = error.to_string();
    match text.split_once(" at path ") {
        Some((reason, _)) => io::Error::new(error.kind(), reason.to_owned()),
        None => error,
    }
}

/// A new anonymous file in `dir`, readable and writable, mode 0600, as the crate's spill files
/// are made: for a caller that needs the plain file (random access to records, say) and does
/// its own checks.
///
/// # Errors
///
/// [`ExternalError::TempCreate`] naming `dir`.
pub fn anonymous_file(dir: &Path) -> Result<File, ExternalError> {
    let cannot = |source| ExternalError::TempCreate {
        dir: dir.to_path_buf(),
        source,
    };
    match open_tmpfile(dir) {
        Ok(file) => Ok(file),
        Err(e) if tmpfile_unsupported(&e) => {
            let mut builder = tempfile::Builder::new();
            builder.prefix(".fairdeal-spill-");
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                builder.permissions(std::fs::Permissions::from_mode(0o600));
            }
            let named = builder
                .tempfile_in(dir)
                .map_err(|e| cannot(strip_path(e)))?;
            // Dropping the path unlinks it; the descriptor stays valid.
            let (file, path) = named.into_parts();
            path.close().map_err(|e| cannot(strip_path(e)))?;
            Ok(file)
        }
        Err(e) => Err(cannot(e)),
    }
}

/// A temporary file of [`Segment`]s, private to this process (see the module docs).
#[derive(Debug)]
pub(crate) struct SpillFile {
    file: File,
    /// Its directory, for messages (an anonymous file has no name).
    dir: PathBuf,
    /// Bytes appended so far: where the next append goes.
    len: u64,
    /// Whether [`SpillFile::discard`] gives segments back ([`SpillFile::plan_discards`]).
    discards: bool,
}

/// Bytes of one contiguous run of a segment: `(offset, length)`.
type Extent = (u64, u64);

impl SpillFile {
    /// A new anonymous spill file in `dir`, mode 0600: `O_TMPFILE` on Linux, else (or where
    /// the file system lacks it) a random name unlinked as soon as it is open. Nothing is left
    /// in `dir` however the process ends.
    ///
    /// # Errors
    ///
    /// [`ExternalError::TempCreate`] naming `dir`.
    pub(crate) fn anonymous_in(dir: &Path) -> Result<Self, ExternalError> {
        Ok(Self {
            file: anonymous_file(dir)?,
            dir: dir.to_path_buf(),
            len: 0,
            discards: false,
        })
    }

    /// A spill file over `file` (which the tests make unwritable).
    #[cfg(test)]
    pub(crate) fn over(file: File, dir: &Path) -> Self {
        Self {
            file,
            dir: dir.to_path_buf(),
            len: 0,
            discards: false,
        }
    }

    /// The directory the file is in.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes appended so far (all segments).
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Empties the file (freeing its disk space) for reuse; segments written before must not
    /// be read after this.
    ///
    /// # Errors
    ///
    /// [`ExternalError::TempWrite`].
    pub(crate) fn clear(&mut self) -> Result<(), ExternalError> {
        self.file
            .set_len(0)
            .map_err(|source| ExternalError::TempWrite {
                path: self.dir.clone(),
                source,
            })?;
        self.len = 0;
        Ok(())
    }

    /// Appends `bytes` to `segment`, at the end of the file.
    ///
    /// # Errors
    ///
    /// [`ExternalError::TempWrite`] (typically a full disk). The segment is then unusable.
    pub(crate) fn append(
        &mut self,
        segment: &mut Segment,
        bytes: &[u8],
    ) -> Result<(), ExternalError> {
        if bytes.is_empty() {
            return Ok(());
        }
        write_all_at(&self.file, bytes, self.len).map_err(|source| ExternalError::TempWrite {
            path: self.dir.clone(),
            source,
        })?;
        let n = bytes.len() as u64;
        match segment.extents.last_mut() {
            Some((start, len)) if *start + *len == self.len => *len += n,
            _ => segment.extents.push((self.len, n)),
        }
        self.len += n;
        segment.bytes += n;
        segment.hasher.update(bytes);
        Ok(())
    }

    /// Reads a sealed segment back whole into a new buffer.
    ///
    /// # Errors
    ///
    /// [`ExternalError::OutOfMemory`], [`ExternalError::TempRead`], and
    /// [`ExternalError::TempDamaged`] when the file no longer holds what was written.
    pub(crate) fn read_segment(&self, segment: &Sealed) -> Result<PageBuf, ExternalError> {
        let len = usize::try_from(segment.bytes).map_err(|_| ExternalError::OutOfMemory {
            bytes: segment.bytes,
        })?;
        let mut data = PageBuf::zeroed(len)?;
        self.read_segment_into(segment, &mut data)?;
        Ok(data)
    }

    /// Reads a sealed segment back into `out`, which must be exactly its length.
    ///
    /// # Errors
    ///
    /// As [`SpillFile::read_segment`].
    ///
    /// # Panics
    ///
    /// When `out.len()` is not the segment's length.
    pub(crate) fn read_segment_into(
        &self,
        segment: &Sealed,
        out: &mut [u8],
    ) -> Result<(), ExternalError> {
        assert_eq!(
            out.len() as u64,
            segment.bytes,
            "buffer of the wrong length"
        );
        let mut at = 0;
        for &(start, len) in &segment.extents {
            let len = len as usize;
            self.read_extent(segment, start, &mut out[at..at + len])?;
            at += len;
        }
        segment.verify(xxhash_rust::xxh3::xxh3_64(out), &self.dir)
    }

    /// Decides, once the file is complete, whether [`SpillFile::discard`] gives segments back:
    /// when its file system has less space free than the file's size ([`discard_pays`]), or
    /// that space is unknown. Each discard costs a system call per extent (about 12,900 per
    /// GB of 64 KiB bucket buffers: 1.09× the CPU time of the library on the Zen 3, 1.13× of
    /// the CLI), so the file keeps its segments when an output as large fits beside it.
    pub(crate) fn plan_discards(&mut self) {
        #[cfg(target_os = "linux")]
        let free = rustix::fs::fstatvfs(&self.file)
            .ok()
            .map(|fs| fs.f_bavail.saturating_mul(fs.f_frsize));
        #[cfg(not(target_os = "linux"))]
        let free = None;
        self.discards = discard_pays(free, self.len);
        #[cfg(test)]
        if tests::ALWAYS_DISCARD.get() {
            self.discards = true;
        }
    }

    /// Gives back the disk space and page cache of a segment read for the last time, if
    /// [`SpillFile::plan_discards`] decided so: its bytes read as zeros from now on (a hole),
    /// and the rest of the file is unchanged. A bucket read back whole is discarded at once,
    /// so the level's file shrinks as the output grows: with both on one disk they need about
    /// the input's size, not twice it, and pages no longer needed are never written to disk.
    /// Where the file system cannot punch holes, nothing happens (the space is freed when the
    /// file is emptied or closed).
    pub(crate) fn discard(&self, segment: &Sealed) {
        if !self.discards {
            return;
        }
        #[cfg(target_os = "linux")]
        for &(start, len) in &segment.extents {
            use rustix::fs::FallocateFlags;
            let punch = FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE;
            if rustix::fs::fallocate(&self.file, punch, start, len).is_err() {
                return;
            }
        }
        #[cfg(test)]
        tests::DISCARDED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        #[cfg(not(target_os = "linux"))]
        let _ = segment;
    }

    /// A reader of a sealed segment that streams it in order and, at its end, fails with
    /// an [`io::ErrorKind::InvalidData`] error (wrapping [`ExternalError::TempDamaged`])
    /// instead of returning end-of-file if the bytes differ from those written.
    pub(crate) fn segment_reader<'a>(&'a self, segment: &'a Sealed) -> SegmentReader<'a> {
        SegmentReader {
            file: self,
            segment,
            extent: 0,
            offset: 0,
            hasher: Xxh3::new(),
            verified: false,
        }
    }

    fn read_extent(
        &self,
        segment: &Sealed,
        start: u64,
        out: &mut [u8],
    ) -> Result<(), ExternalError> {
        read_exact_at(&self.file, out, start).map_err(|source| {
            if source.kind() == io::ErrorKind::UnexpectedEof {
                ExternalError::TempDamaged {
                    dir: self.dir.clone(),
                    what: format!(
                        "a {}-byte segment reads back short (the file was truncated)",
                        segment.bytes
                    ),
                }
            } else {
                ExternalError::TempRead {
                    path: self.dir.clone(),
                    source,
                }
            }
        })
    }
}

/// Whether a spill file of `len` bytes should give its segments back as they are read: when
/// the space `free` on its file system (`None`: unknown) could not also hold an output as
/// large.
fn discard_pays(free: Option<u64>, len: u64) -> bool {
    free.is_none_or(|free| free < len)
}

/// The [`ExternalError`] for an error reading a spill file in `dir` through a
/// [`SegmentReader`]: the damage it found, else [`ExternalError::TempRead`].
pub(crate) fn read_error(error: io::Error, dir: &Path) -> ExternalError {
    let damage = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ExternalError>());
    match damage {
        Some(ExternalError::TempDamaged { dir, what }) => ExternalError::TempDamaged {
            dir: dir.clone(),
            what: what.clone(),
        },
        _ => ExternalError::TempRead {
            path: dir.to_path_buf(),
            source: error,
        },
    }
}

#[cfg(unix)]
fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(unix)]
fn read_exact_at(file: &File, out: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, out, offset)
}

#[cfg(not(unix))]
fn write_all_at(mut file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    use std::io::{Seek as _, Write as _};
    file.seek(io::SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(not(unix))]
fn read_exact_at(mut file: &File, out: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::Seek as _;
    file.seek(io::SeekFrom::Start(offset))?;
    file.read_exact(out)
}

#[cfg(target_os = "linux")]
fn open_tmpfile(dir: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(
        rustix::fs::CWD,
        dir,
        OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )?;
    Ok(File::from(fd))
}

#[cfg(not(target_os = "linux"))]
fn open_tmpfile(_dir: &Path) -> io::Result<File> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Whether `open_tmpfile` failed because the kernel or file system lacks `O_TMPFILE` (as
/// opposed to a reason that creating a named file would hit too).
fn tmpfile_unsupported(error: &io::Error) -> bool {
    const EISDIR: i32 = 21;
    const EINVAL: i32 = 22;
    const EOPNOTSUPP: i32 = 95;
    error.kind() == io::ErrorKind::Unsupported
        || matches!(error.raw_os_error(), Some(EISDIR | EINVAL | EOPNOTSUPP))
}

/// A segment being written: its extents, length and running checksum.
#[derive(Clone)]
pub(crate) struct Segment {
    extents: Vec<Extent>,
    bytes: u64,
    hasher: Xxh3,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Segment")
            .field("extents", &self.extents.len())
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl Default for Segment {
    fn default() -> Self {
        Self::new()
    }
}

impl Segment {
    /// An empty segment.
    pub(crate) fn new() -> Self {
        Self {
            extents: Vec::new(),
            bytes: 0,
            hasher: Xxh3::new(),
        }
    }

    /// Bytes appended so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Ends the segment: its length and checksum are fixed.
    pub(crate) fn seal(self) -> Sealed {
        Sealed {
            checksum: self.hasher.digest(),
            extents: self.extents,
            bytes: self.bytes,
        }
    }
}

/// A finished segment: where its bytes are, how many, and their xxh3-64 checksum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sealed {
    extents: Vec<Extent>,
    bytes: u64,
    checksum: u64,
}

impl Sealed {
    /// Its length in bytes.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    fn verify(&self, checksum: u64, dir: &Path) -> Result<(), ExternalError> {
        if checksum == self.checksum {
            Ok(())
        } else {
            Err(ExternalError::TempDamaged {
                dir: dir.to_path_buf(),
                what: format!(
                    "a {}-byte segment reads back with a different checksum",
                    self.bytes
                ),
            })
        }
    }
}

/// Streams a sealed segment ([`SpillFile::segment_reader`]).
pub(crate) struct SegmentReader<'a> {
    file: &'a SpillFile,
    segment: &'a Sealed,
    /// The extent being read and the offset within it.
    extent: usize,
    offset: u64,
    hasher: Xxh3,
    verified: bool,
}

impl std::fmt::Debug for SegmentReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SegmentReader")
            .field("segment", self.segment)
            .field("extent", &self.extent)
            .field("offset", &self.offset)
            .finish_non_exhaustive()
    }
}

impl Read for SegmentReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let into_io = |e: ExternalError| io::Error::new(io::ErrorKind::InvalidData, e);
        let Some(&(start, len)) = self.segment.extents.get(self.extent) else {
            if !self.verified {
                self.segment
                    .verify(self.hasher.digest(), &self.file.dir)
                    .map_err(into_io)?;
                self.verified = true;
            }
            return Ok(0);
        };
        let n = buf
            .len()
            .min(usize::try_from(len - self.offset).unwrap_or(usize::MAX));
        match self
            .file
            .read_extent(self.segment, start + self.offset, &mut buf[..n])
        {
            Ok(()) => {}
            Err(ExternalError::TempRead { source, .. }) => return Err(source),
            Err(damage) => return Err(into_io(damage)),
        }
        self.hasher.update(&buf[..n]);
        self.offset += n as u64;
        if self.offset == len {
            self.extent += 1;
            self.offset = 0;
        }
        Ok(n)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        /// Every file planned on this thread discards, whatever its disk's free space.
        pub(crate) static ALWAYS_DISCARD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Segments discarded (holes punched) by this process's tests.
    pub(crate) static DISCARDED: std::sync::atomic::AtomicU64 =
        std::sync::atomic::AtomicU64::new(0);

    #[test]
    fn segments_interleave_in_one_file() -> Result<(), ExternalError> {
        let mut file = SpillFile::anonymous_in(&std::env::temp_dir())?;
        let (mut a, mut b) = (Segment::new(), Segment::new());
        file.append(&mut a, b"one\n")?;
        file.append(&mut b, b"two\n")?;
        file.append(&mut a, b"three\n")?;
        let (a, b) = (a.seal(), b.seal());
        assert_eq!(&*file.read_segment(&a)?, b"one\nthree\n");
        assert_eq!(&*file.read_segment(&b)?, b"two\n");
        Ok(())
    }

    /// `records` records (`record {i}\n`) appended one by one to three segments of `file`,
    /// record `i` to segment `segment_of(i)`: the sealed segments and the bytes of each.
    fn interleaved(
        file: &mut SpillFile,
        records: u32,
        segment_of: impl Fn(u32) -> usize,
    ) -> (Vec<Sealed>, Vec<Vec<u8>>) {
        let mut segments: Vec<Segment> = (0..3).map(|_| Segment::new()).collect();
        let mut expected: Vec<Vec<u8>> = vec![Vec::new(); 3];
        for i in 0..records {
            let piece = format!("record {i}\n");
            let s = segment_of(i);
            file.append(&mut segments[s], piece.as_bytes()).unwrap();
            expected[s].extend_from_slice(piece.as_bytes());
        }
        (segments.into_iter().map(Segment::seal).collect(), expected)
    }

    #[test]
    fn interleaved_segments_read_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SpillFile::anonymous_in(dir.path()).unwrap();
        let (sealed, expected) = interleaved(&mut file, 300, |i| (i * 7 % 3) as usize);
        for (s, sealed) in sealed.iter().enumerate() {
            assert_eq!(&*file.read_segment(sealed).unwrap(), expected[s]);
            let mut streamed = Vec::new();
            file.segment_reader(sealed)
                .read_to_end(&mut streamed)
                .unwrap();
            assert_eq!(streamed, expected[s]);
        }
        // Nothing named is ever in the directory.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// A discarded segment is gone (its bytes read as zeros, so it no longer verifies) and
    /// every other segment, interleaved with it at unaligned offsets in the same pages, reads
    /// back whole. The test directory's file system punches holes (ext4, xfs, btrfs, tmpfs).
    #[test]
    #[cfg(target_os = "linux")]
    fn a_discarded_segment_leaves_the_others_whole() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SpillFile::anonymous_in(dir.path()).unwrap();
        let (sealed, expected) = interleaved(&mut file, 40_000, |i| (i % 3) as usize);
        assert_eq!(&*file.read_segment(&sealed[1]).unwrap(), expected[1]);
        // Planned with the free space of this test's disk: the file keeps its segments.
        file.plan_discards();
        assert!(!file.discards, "a 300 KB file fits the test's disk");
        file.discard(&sealed[1]);
        assert_eq!(&*file.read_segment(&sealed[1]).unwrap(), expected[1]);
        file.discards = true;
        file.discard(&sealed[1]);
        assert!(matches!(
            file.read_segment(&sealed[1]),
            Err(ExternalError::TempDamaged { .. })
        ));
        for s in [0, 2] {
            assert_eq!(&*file.read_segment(&sealed[s]).unwrap(), expected[s]);
        }
    }

    #[test]
    fn segments_are_discarded_only_where_an_output_as_large_would_not_fit() {
        assert!(!discard_pays(Some(10 << 30), 1 << 30));
        assert!(!discard_pays(Some(1 << 30), 1 << 30));
        assert!(discard_pays(Some((1 << 30) - 1), 1 << 30));
        assert!(discard_pays(Some(0), 1));
        assert!(!discard_pays(Some(0), 0));
        assert!(discard_pays(None, 0), "unknown space: discard");
    }

    /// Damage done through a second handle to the same (anonymous) file, as a disk error or
    /// another process with access to the descriptor could do.
    fn damaged(damage: impl FnOnce(&File)) -> ExternalError {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SpillFile::anonymous_in(dir.path()).unwrap();
        let mut segment = Segment::new();
        file.append(&mut segment, &[b'x'; 10_000]).unwrap();
        let sealed = segment.seal();
        damage(&file.file.try_clone().unwrap());
        let whole = file.read_segment(&sealed).unwrap_err();
        let mut streamed = Vec::new();
        let io = file
            .segment_reader(&sealed)
            .read_to_end(&mut streamed)
            .unwrap_err();
        assert_eq!(io.kind(), io::ErrorKind::InvalidData);
        assert_eq!(io.to_string(), whole.to_string());
        whole
    }

    #[test]
    fn a_truncated_file_is_an_error() {
        let error = damaged(|f| f.set_len(4_000).unwrap());
        assert!(
            matches!(error, ExternalError::TempDamaged { .. }),
            "{error:?}"
        );
        assert!(error.to_string().contains("short"), "{error}");
    }

    #[test]
    fn a_changed_byte_is_an_error() {
        let error = damaged(|f| write_all_at(f, b"y", 5_000).unwrap());
        assert!(error.to_string().contains("checksum"), "{error}");
    }

    #[test]
    fn an_undamaged_file_passes_the_same_checks() {
        let dir = tempfile::tempdir().unwrap();
        let mut file = SpillFile::anonymous_in(dir.path()).unwrap();
        let mut segment = Segment::new();
        file.append(&mut segment, &[b'x'; 10_000]).unwrap();
        let sealed = segment.seal();
        assert_eq!(&*file.read_segment(&sealed).unwrap(), vec![b'x'; 10_000]);
    }

    #[test]
    fn errors_name_the_directory_once() {
        let error = SpillFile::anonymous_in(Path::new("/nonexistent/dir")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot create a temporary file in '/nonexistent/dir'"
        );
        let source = std::error::Error::source(&error).unwrap().to_string();
        assert!(!source.contains("at path"), "{source}");
    }
}
