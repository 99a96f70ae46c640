//! Files published complete or not at all: `fairdeal shuffle -o FILE` ([`OutputFile`]) and the
//! sharded shuffle's manifests, spills and parts (`write_private`) are staged in an anonymous
//! file (mode 0600) beside their name and only then given it, linked in as a new name or
//! renamed over the old one through a hidden name; no name is left behind while staged.
//!
//! [`OutputFile::create`] writes FILE as GNU `shuf -o` and `sort -o` write it, and safely: it
//! follows symbolic links to their target, and the output replaces the target's content only
//! once it is complete (so FILE may also be an input, and a failure leaves it untouched). It is
//! staged in an anonymous file (`O_TMPFILE`, mode 0600) beside the target, which nothing can
//! leave behind (not even SIGKILL), then:
//! - a new target: the staged file is linked in under its name (`linkat` through
//!   `/proc/self/fd`), mode 0666 less the umask, as `File::create` makes it;
//! - an existing target with one link, owned by us: linked in under a random hidden name and
//!   renamed over it, with the target's mode, owner and group;
//! - an existing target with more links, or an owner we cannot give the new file, or where
//!   the staged file cannot be linked (no `O_TMPFILE` or `/proc`): copied into the target in
//!   place, which keeps its inode, so its links, owner and mode;
//! - when no file can be created beside the target (a read-only directory holding a
//!   writable file), the target is written in place directly, opened (and truncated) at the
//!   first write, which comes after all input has been read.
//!
//! Before anything is staged, an existing target (or one a dangling link points at) is opened
//! for writing through FILE, so the kernel refuses what it would refuse GNU's `open` (a
//! write-protected file, a link `fs.protected_symlinks` forbids to follow). The target's path
//! is then read from that descriptor (`/proc/self/fd/N`) and checked by device and inode,
//! never worked out by following the links again; without `/proc` it is written in place.
//! A non-regular FILE (`/dev/null`, a FIFO) is written directly.
//!
//! The one name that exists for a moment, the hidden name renamed over the target, is
//! registered with [`crate::cleanup`] and removed if a signal ends the process in that window.
//! Errors ([`PublishError`]) name FILE as the caller gave it, never a staging file.

use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Seek as _, Write};
use std::num::NonZeroU64;
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use crate::cleanup;

/// Buffer between the writer and the file.
const CAPACITY: usize = 64 * 1024;

/// Bytes written to a staged file between two requests to start writing them to disk
/// ([`Writeback`]).
const WRITEBACK_STEP: u64 = 16 << 20;

/// Prefix of the hidden name a complete file is linked under before it is renamed over its
/// target.
pub const HIDDEN_PREFIX: &str = ".fairdeal-output-";

/// Why a file could not be published. `path` is the name as the caller gave it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PublishError {
    /// The target could not be opened, or no file could be made beside it.
    #[error("cannot create {}", path.display())]
    Create {
        /// The target.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// The target could not be written (in place) or given the new file's mode.
    #[error("cannot write {}", path.display())]
    Write {
        /// The target.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// The complete file could not be renamed over the target.
    #[error("cannot replace {}", path.display())]
    Replace {
        /// The target.
        path: PathBuf,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// Writing the staged (or direct) output failed, a full disk say.
    #[error("cannot write the output")]
    Stage(#[source] io::Error),
    /// The signal handler that removes the hidden name could not be installed.
    #[error("cannot install the signal handler that removes temporary files")]
    SignalHandler(#[source] io::Error),
}

/// A file being written; nothing written counts until [`OutputFile::commit`].
#[derive(Debug)]
pub struct OutputFile(Inner);

#[derive(Debug)]
enum Inner {
    Direct(BufWriter<File>),
    /// An anonymous file beside the target.
    Staged {
        file: BufWriter<Writeback<File>>,
        target: Target,
    },
    /// The target itself, opened at the first write.
    InPlace {
        file: Option<BufWriter<File>>,
        target: Target,
    },
}

/// The file a caller names.
#[derive(Debug)]
struct Target {
    /// As the caller gave it, for errors.
    shown: PathBuf,
    /// Where the kernel opened it (its links followed), or the name when new.
    real: PathBuf,
    existing: Option<Metadata>,
}

impl Target {
    fn error(
        &self,
        kind: fn(PathBuf, io::Error) -> PublishError,
    ) -> impl FnOnce(io::Error) -> PublishError + '_ {
        move |source| kind(self.shown.clone(), source)
    }

    fn dir(&self) -> &Path {
        parent(&self.real)
    }

    /// Opens the target for writing, truncated, as `File::create` (mode 0666 less the umask
    /// when new).
    fn open_truncated(&self) -> io::Result<File> {
        File::create(&self.real)
    }
}

fn create(path: PathBuf, source: io::Error) -> PublishError {
    PublishError::Create { path, source }
}

fn write(path: PathBuf, source: io::Error) -> PublishError {
    PublishError::Write { path, source }
}

/// The directory `path` is in (`.` for a bare name).
fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// The path at which the kernel opened `file` (`/proc/self/fd/N`: every link resolved by the
/// kernel's own walk, with its protections), checked to still name that file (device and
/// inode), so a link swapped or a file renamed after the open is refused, not followed.
fn opened_path(file: &File) -> io::Result<Option<PathBuf>> {
    use std::os::fd::AsRawFd as _;
    let Ok(path) = std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) else {
        // No /proc: the caller writes through the name, in place.
        return Ok(None);
    };
    let opened = file.metadata()?;
    let same = std::fs::symlink_metadata(&path)
        .is_ok_and(|named| (named.dev(), named.ino()) == (opened.dev(), opened.ino()));
    if !same {
        return Err(io::Error::other(
            "it was moved or replaced while it was opened",
        ));
    }
    Ok(Some(path))
}

impl OutputFile {
    /// `path` opened now as GNU `shuf -o` opens it (the caller has read all input):
    /// `O_WRONLY|O_CREAT|O_TRUNC`, mode 0666 less the umask when new, written in place (same
    /// inode). The file's permissions and the kernel's link protections
    /// (`fs.protected_symlinks`) apply, as to GNU's `open`.
    ///
    /// # Errors
    ///
    /// The `open`'s error.
    pub fn direct(path: &Path) -> io::Result<Self> {
        File::create(path).map(|file| Self(Inner::Direct(BufWriter::with_capacity(CAPACITY, file))))
    }

    /// A writer for `path` that replaces its content only once complete (see the module docs).
    /// Staging starts the process's signal thread ([`cleanup::install`]), which takes over
    /// SIGINT, SIGTERM, SIGHUP and SIGPIPE for the rest of the process (each still ends it, as
    /// by default, but for a SIGPIPE from a closed standard output).
    ///
    /// # Errors
    ///
    /// [`PublishError::Create`] when the target cannot be opened for writing or nothing can be
    /// written beside it; [`PublishError::SignalHandler`].
    pub fn create(path: &Path) -> Result<Self, PublishError> {
        let cannot = |source| create(path.to_path_buf(), source);
        let direct = |file| {
            Ok(Self(Inner::Direct(BufWriter::with_capacity(
                CAPACITY, file,
            ))))
        };
        // The kernel opens an existing target (or creates the one a dangling link points at)
        // first, as GNU's `open` does: the file's permissions and the kernel's link
        // protections (`fs.protected_symlinks`) apply, which a staged file renamed over the
        // target would bypass. Where it opened is then read from the descriptor, never by
        // following the links again.
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let existing = std::fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            return direct(File::create(path).map_err(cannot)?);
        }
        let mut target = Target {
            shown: path.to_path_buf(),
            real: path.to_path_buf(),
            existing: None,
        };
        if existing.is_some() || link {
            let file = File::options()
                .write(true)
                .create(existing.is_none())
                .open(path)
                .map_err(cannot)?;
            let meta = file.metadata().map_err(cannot)?;
            if !meta.is_file() {
                return direct(file);
            }
            target.existing = Some(meta);
            match opened_path(&file).map_err(cannot)? {
                Some(real) => target.real = real,
                None => return Ok(Self(Inner::InPlace { file: None, target })),
            }
        }
        cleanup::install().map_err(PublishError::SignalHandler)?;
        match crate::anonymous_file(target.dir()) {
            Ok(file) => Ok(Self(Inner::Staged {
                file: BufWriter::with_capacity(CAPACITY, Writeback::new(file)),
                target,
            })),
            // No file can be made beside it: write it in place, if it can be written.
            Err(staging) => match &target.existing {
                Some(_) if File::options().write(true).open(&target.real).is_ok() => {
                    Ok(Self(Inner::InPlace { file: None, target }))
                }
                _ => Err(cannot(match staging {
                    crate::ExternalError::TempCreate { source, .. } => source,
                    other => io::Error::other(other.to_string()),
                })),
            },
        }
    }

    /// Flushes, and puts the complete output in place.
    ///
    /// # Errors
    ///
    /// [`PublishError::Stage`] when the output could not be written; [`PublishError::Write`]
    /// or [`PublishError::Replace`] when it could not be put in place (the target is then as
    /// it was, unless it is written in place).
    pub fn commit(self) -> Result<(), PublishError> {
        match self.0 {
            Inner::Direct(mut out) => out.flush().map_err(PublishError::Stage),
            Inner::InPlace { file, target } => {
                let mut file = match file {
                    Some(file) => file,
                    None => BufWriter::new(target.open_truncated().map_err(target.error(write))?),
                };
                file.flush().map_err(target.error(write))
            }
            Inner::Staged { file, target } => {
                let file = file
                    .into_inner()
                    .map_err(|e| PublishError::Stage(e.into_error()))?
                    .file;
                file.sync_all().map_err(PublishError::Stage)?;
                publish(file, &target)
            }
        }
    }

    /// The in-place target, opened (and truncated) at the first write.
    fn in_place<'f>(
        file: &'f mut Option<BufWriter<File>>,
        target: &Target,
    ) -> io::Result<&'f mut BufWriter<File>> {
        if file.is_none() {
            *file = Some(BufWriter::with_capacity(CAPACITY, target.open_truncated()?));
        }
        Ok(file.as_mut().expect("just opened"))
    }
}

/// Puts the complete staged output in place of `target` (see the module docs).
fn publish(staged: File, target: &Target) -> Result<(), PublishError> {
    let in_place = |mut staged: File| -> Result<(), PublishError> {
        staged
            .seek(io::SeekFrom::Start(0))
            .map_err(PublishError::Stage)?;
        let mut out = target.open_truncated().map_err(target.error(write))?;
        io::copy(&mut staged, &mut out).map_err(target.error(write))?;
        out.sync_all().map_err(target.error(write))
    };
    let Some(existing) = &target.existing else {
        staged
            .set_permissions(std::fs::Permissions::from_mode(0o666 & !umask()))
            .map_err(target.error(create))?;
        return match link(&staged, &target.real) {
            Ok(()) => Ok(()),
            // Made meanwhile by someone else, or no way to link: write it in place.
            Err(_) => in_place(staged),
        };
    };
    if existing.nlink() > 1 || !same_owner(&staged, existing) {
        return in_place(staged);
    }
    staged
        .set_permissions(existing.permissions())
        .map_err(target.error(write))?;
    match replace(&staged, &target.real) {
        Ok(()) => Ok(()),
        Err(Replaced::NotLinked(_)) => in_place(staged),
        Err(Replaced::NotRenamed(source)) => Err(PublishError::Replace {
            path: target.shown.clone(),
            source,
        }),
    }
}

/// Why [`replace`] failed: before the hidden name existed, or at the rename.
enum Replaced {
    NotLinked(io::Error),
    NotRenamed(io::Error),
}

/// Links the anonymous `staged` under a random hidden name beside `path` and renames it over
/// `path`: the name `path` then holds the complete file, atomically. The hidden name exists
/// only until the rename, microseconds; a signal then removes it ([`crate::cleanup`]).
fn replace(staged: &File, path: &Path) -> Result<(), Replaced> {
    let mut builder = tempfile::Builder::new();
    builder.prefix(HIDDEN_PREFIX);
    let named = builder
        .make_in(parent(path), |hidden| link(staged, hidden))
        .map_err(Replaced::NotLinked)?;
    let _registered = cleanup::register(named.path());
    named
        .persist(path)
        .map(drop)
        .map_err(|e| Replaced::NotRenamed(e.error))
}

/// Why [`write_private`] failed, by phase (the shard words each).
#[derive(Debug)]
pub(crate) enum PrivateError {
    /// No file could be made beside the name.
    Stage(io::Error),
    /// Filling or syncing the staged file failed.
    Fill(io::Error),
    /// The complete file could not be given its name.
    Publish(io::Error),
}

/// Writes `path` complete or not at all, and private: `fill` writes an anonymous file (mode
/// 0600) beside it, which is synced and then given the name: linked in when `exclusive` (only
/// if `path` is absent; returns whether this call created it, so of two writers racing for it
/// exactly one does), else renamed over `path` through a hidden name, as [`OutputFile`]
/// replaces a target. A reader sees the old file or the whole new one.
///
/// Where the staged file cannot be linked (no `O_TMPFILE` or `/proc`, as on NFS), it is copied
/// into a named temporary file (`.fairdeal-output-*`, 0600) that is renamed (or linked) in: a
/// SIGKILL can leave that name behind, and nothing reads it.
///
/// The rules differ from [`OutputFile`]'s on purpose: the file stays 0600 (the sharded run's
/// files hold input lines and belong to the run's private directory, so there is no target
/// whose mode, owner or links to keep, and no link to follow), and a manifest is created only
/// if absent.
pub(crate) fn write_private(
    path: &Path,
    fill: impl FnOnce(&mut Staging<'_>) -> io::Result<()>,
    exclusive: bool,
) -> Result<bool, PrivateError> {
    let staged = crate::anonymous_file(parent(path)).map_err(|e| match e {
        crate::ExternalError::TempCreate { source, .. } => PrivateError::Stage(source),
        other => PrivateError::Stage(io::Error::other(other.to_string())),
    })?;
    {
        let mut writer = BufWriter::with_capacity(256 << 10, Writeback::new(&staged));
        fill(&mut writer).map_err(PrivateError::Fill)?;
        writer.flush().map_err(PrivateError::Fill)?;
    }
    staged.sync_all().map_err(PrivateError::Fill)?;
    let linked = if exclusive {
        match link(&staged, path) {
            Ok(()) => return Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
            Err(e) => e,
        }
    } else {
        match replace(&staged, path) {
            Ok(()) => return Ok(true),
            Err(Replaced::NotRenamed(e)) => return Err(PrivateError::Publish(e)),
            Err(Replaced::NotLinked(e)) => e,
        }
    };
    write_named(staged, path, exclusive).map_err(|e| match e {
        // Neither way could make a name in the directory: report the first reason.
        PrivateError::Stage(_) => PrivateError::Stage(linked),
        other => other,
    })
}

/// [`write_private`]'s fallback: `staged` copied into a named temporary file, then renamed
/// (or, `exclusive`, linked) to `path`.
fn write_named(mut staged: File, path: &Path, exclusive: bool) -> Result<bool, PrivateError> {
    let mut named = tempfile::Builder::new()
        .prefix(HIDDEN_PREFIX)
        .permissions(std::fs::Permissions::from_mode(0o600))
        .tempfile_in(parent(path))
        .map_err(PrivateError::Stage)?;
    staged
        .seek(io::SeekFrom::Start(0))
        .and_then(|_| io::copy(&mut staged, &mut named))
        .and_then(|_| named.as_file().sync_all())
        .map_err(PrivateError::Fill)?;
    let _registered = cleanup::register(named.path());
    if exclusive {
        return match named.persist_noclobber(path) {
            Ok(_) => Ok(true),
            Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(PrivateError::Publish(e.error)),
        };
    }
    named
        .persist(path)
        .map(|_| true)
        .map_err(|e| PrivateError::Publish(e.error))
}

/// Gives an anonymous file the name `path` (`linkat` of `/proc/self/fd/N`); fails with
/// `AlreadyExists` when `path` exists.
fn link(file: &File, path: &Path) -> io::Result<()> {
    use std::os::fd::AsRawFd as _;
    let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
    rustix::fs::linkat(
        rustix::fs::CWD,
        proc_path.as_str(),
        rustix::fs::CWD,
        path,
        rustix::fs::AtFlags::SYMLINK_FOLLOW,
    )?;
    Ok(())
}

/// Whether the staged file has (or can be given) the existing file's owner and group.
fn same_owner(staged: &File, existing: &Metadata) -> bool {
    let Ok(mine) = staged.metadata() else {
        return false;
    };
    (mine.uid() == existing.uid() && mine.gid() == existing.gid())
        || std::os::unix::fs::fchown(staged, Some(existing.uid()), Some(existing.gid())).is_ok()
}

/// The process's umask, from `/proc/self/status` (reading it with `umask(2)` would change
/// it); 022 when unknown.
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("Umask:"))?;
            u32::from_str_radix(line["Umask:".len()..].trim(), 8).ok()
        })
        .unwrap_or(0o022)
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Inner::Direct(out) => out.write(buf),
            Inner::Staged { file, .. } => file.write(buf),
            Inner::InPlace { file, target } => Self::in_place(file, target)?.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.0 {
            Inner::Direct(out) => out.write_all(buf),
            Inner::Staged { file, .. } => file.write_all(buf),
            Inner::InPlace { file, target } => Self::in_place(file, target)?.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Inner::Direct(out) => out.flush(),
            Inner::Staged { file, .. } => file.flush(),
            Inner::InPlace { file, .. } => file.as_mut().map_or(Ok(()), Write::flush),
        }
    }
}

/// What [`write_private`]'s `fill` writes to: the staged file, buffered, its bytes sent to
/// disk as they come ([`Writeback`]).
pub(crate) type Staging<'f> = BufWriter<Writeback<&'f File>>;

/// A staged file's writer that asks the kernel to start writing each [`WRITEBACK_STEP`] bytes
/// to disk once they are written, without waiting for it. A staged file is synced before it
/// gets its name; without the requests the kernel would start writing only then (a file of
/// 1 GB is well under the dirty-page thresholds), and the sync would wait for all of it, with
/// the disk idle while the file was being computed.
///
/// The request is `posix_fadvise(POSIX_FADV_DONTNEED)` on the range just written: Linux starts
/// writing its dirty pages back (as `sync_file_range(SYNC_FILE_RANGE_WRITE)` would) and drops
/// those already clean, so pages whose write has finished by then may leave the page cache.
/// It changes no byte, and its failure is ignored: the sync still writes and reports.
#[derive(Debug)]
pub(crate) struct Writeback<F> {
    file: F,
    /// Bytes written through this writer (from offset 0: the file is new).
    written: u64,
    /// The end of the range last requested.
    requested: u64,
    step: u64,
}

impl<F> Writeback<F> {
    fn new(file: F) -> Self {
        Self::with_step(file, WRITEBACK_STEP)
    }

    fn with_step(file: F, step: u64) -> Self {
        Self {
            file,
            written: 0,
            requested: 0,
            step,
        }
    }

    /// The file, for writes of its own (positioned writes, say: they are not counted, and
    /// the sync before publishing writes them).
    pub(crate) fn file(&self) -> &F {
        &self.file
    }

    /// Counts `n` more bytes written; the range to request now, if a step is complete.
    fn due(&mut self, n: usize) -> Option<(u64, NonZeroU64)> {
        self.written += n as u64;
        let len =
            NonZeroU64::new(self.written - self.requested).filter(|len| len.get() >= self.step)?;
        let start = self.requested;
        self.requested = self.written;
        Some((start, len))
    }
}

impl<F: Write + AsFd> Write for Writeback<F> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        if let Some((start, len)) = self.due(n) {
            // Advice only: the sync before publishing writes (and reports) whatever this
            // did not start.
            let _ = rustix::fs::fadvise(&self.file, start, Some(len), rustix::fs::Advice::DontNeed);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Probe row P4: the target is the file the kernel opened, even when the link is swapped
    /// right after the open, where following the link again by name reaches another file.
    #[test]
    fn the_target_is_the_file_the_kernel_opened() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let (a, b, out) = (dir.join("a"), dir.join("b"), dir.join("out"));
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        std::os::unix::fs::symlink(&a, &out).unwrap();
        let file = File::options().write(true).open(&out).unwrap();
        std::fs::remove_file(&out).unwrap();
        std::os::unix::fs::symlink(&b, &out).unwrap();
        assert_eq!(opened_path(&file).unwrap(), Some(a.clone()));
        // Negative control: following the link by name now reaches the other file.
        assert_eq!(std::fs::canonicalize(&out).unwrap(), b);
        // A file replaced under its name after the open is refused.
        std::fs::remove_file(&a).unwrap();
        std::fs::write(&a, b"new").unwrap();
        assert!(opened_path(&file).is_err());
    }

    /// The ranges requested cover the bytes written, in order, without gaps or overlaps, each
    /// once a step's worth has been written since the last; the rest waits for the sync.
    #[test]
    fn writeback_requests_each_step_once_in_order() {
        let mut writeback = Writeback::with_step((), 10);
        let requested: Vec<Option<(u64, u64)>> = [3, 4, 2, 1, 25, 9, 1, 10, 0, 7]
            .into_iter()
            .map(|n| writeback.due(n).map(|(start, len)| (start, len.get())))
            .collect();
        assert_eq!(
            requested,
            [
                None,
                None,
                None,
                Some((0, 10)),
                Some((10, 25)),
                None,
                Some((35, 10)),
                Some((45, 10)),
                None,
                None,
            ]
        );
        assert_eq!((writeback.written, writeback.requested), (62, 55));
    }

    /// The requests change no byte: a file written through [`Writeback`] with a small step
    /// (a request every few writes) holds exactly what was written.
    #[test]
    fn writeback_keeps_every_byte() {
        let file = tempfile::tempfile().unwrap();
        let data: Vec<u8> = (0..(1u32 << 20) + 123)
            .map(|i| (i * 7 + i / 4099) as u8)
            .collect();
        {
            let mut writer = BufWriter::with_capacity(1000, Writeback::with_step(&file, 4096));
            for piece in data.chunks(777) {
                writer.write_all(piece).unwrap();
            }
            writer.flush().unwrap();
            assert!(writer.get_ref().requested >= data.len() as u64 - 4096);
        }
        let mut back = Vec::new();
        let mut reader = &file;
        reader.seek(io::SeekFrom::Start(0)).unwrap();
        io::Read::read_to_end(&mut reader, &mut back).unwrap();
        assert!(back == data, "the file holds what was written");
    }

    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The shard's files: no name exists while a file is staged (a tempfile-named staging
    /// file would be listed from inside `fill`), the result is private (0600), a failed fill
    /// leaves the old file, and a create-only write does not replace what exists.
    #[test]
    fn private_files_appear_whole_under_their_name_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        let seen = std::cell::RefCell::new(Vec::new());
        let fill = |w: &mut Staging<'_>| {
            seen.replace(names_in(dir.path()));
            w.write_all(b"one\n")
        };
        assert!(write_private(&path, fill, true).unwrap());
        assert_eq!(*seen.borrow(), Vec::<String>::new());
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // Create-only: the second writer loses, and the file is the first one's.
        assert!(!write_private(&path, |w| w.write_all(b"two\n"), true).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        // A fill that fails leaves the old file and no other name.
        let failed = write_private(&path, |_| Err(io::Error::other("disk full")), false);
        assert!(matches!(failed, Err(PrivateError::Fill(_))));
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        // Replacing: the new content under the name, and no hidden name left.
        assert!(write_private(&path, |w| w.write_all(b"three\n"), false).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"three\n");
        assert_eq!(names_in(dir.path()), ["run.json"]);
    }
}
