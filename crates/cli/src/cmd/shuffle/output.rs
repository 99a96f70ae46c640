//! Where `fairdeal shuffle` writes: standard output, or `-o FILE` written as GNU `shuf -o`
//! and `sort -o` write it, and safely.
//!
//! `-o FILE` follows symbolic links to their target, and the output replaces the target's
//! content only once it is complete (so FILE may also be an input, and a failure leaves it
//! untouched). It is staged in an anonymous file (`O_TMPFILE`) beside the target, which
//! nothing can leave behind (not even SIGKILL), then:
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
//!
//! A non-regular FILE (`/dev/null`, a FIFO) is written directly. Messages name FILE as the
//! user wrote it, never a staging file.

use std::fs::{File, Metadata};
use std::io::{self, BufWriter, Seek as _, Write};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::cleanup;

/// Buffer between the shuffle and the output.
const CAPACITY: usize = 64 * 1024;

/// The output of one run. Nothing written to `-o FILE` counts until [`Output::commit`].
pub(crate) enum Output {
    Stdout(BufWriter<crate::closed_stdio::StdoutLock>),
    Direct(BufWriter<File>),
    /// An anonymous file beside the target.
    Staged {
        file: BufWriter<File>,
        target: Target,
    },
    /// The target itself, opened at the first write.
    InPlace {
        file: Option<BufWriter<File>>,
        target: Target,
    },
}

/// The file `-o` names.
pub(crate) struct Target {
    /// As the user wrote it, for messages.
    shown: PathBuf,
    /// Where the kernel opened it (its links followed), or FILE when new.
    real: PathBuf,
    existing: Option<Metadata>,
}

impl Target {
    fn cannot(&self, what: &str) -> String {
        format!("cannot {what} output file '{}'", self.shown.display())
    }

    fn dir(&self) -> &Path {
        match self.real.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        }
    }

    /// Opens the target for writing, truncated, as `File::create` (mode 0666 less the umask
    /// when new).
    fn open_truncated(&self) -> io::Result<File> {
        File::create(&self.real)
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

impl Output {
    /// Standard output, or `path` opened now as GNU `shuf -o` opens it (the caller has read
    /// all input): `O_WRONLY|O_CREAT|O_TRUNC`, mode 0666 less the umask when new, written in
    /// place (same inode). The file's permissions and the kernel's link protections
    /// (`fs.protected_symlinks`) apply, as to GNU's `open`.
    pub(crate) fn gnu(path: Option<&Path>) -> io::Result<Self> {
        match path {
            None => Ok(Self::Stdout(BufWriter::with_capacity(
                CAPACITY,
                crate::closed_stdio::stdout(),
            ))),
            Some(path) => File::create(path)
                .map(|file| Self::Direct(BufWriter::with_capacity(CAPACITY, file))),
        }
    }

    /// Standard output, or a writer for `path`.
    pub(crate) fn create(path: Option<&Path>) -> anyhow::Result<Self> {
        let Some(path) = path else {
            return Ok(Self::Stdout(BufWriter::with_capacity(
                CAPACITY,
                crate::closed_stdio::stdout(),
            )));
        };
        let cannot = || format!("cannot create output file '{}'", path.display());
        // The kernel opens an existing target (or creates the one a dangling link points at)
        // first, as GNU's `open` does: the file's permissions and the kernel's link
        // protections (`fs.protected_symlinks`) apply, which a staged file renamed over the
        // target would bypass. Where it opened is then read from the descriptor, never by
        // following the links again.
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        let existing = std::fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = File::create(path).with_context(cannot)?;
            return Ok(Self::Direct(BufWriter::with_capacity(CAPACITY, file)));
        }
        let (real, existing) = if existing.is_some() || link {
            let file = File::options()
                .write(true)
                .create(existing.is_none())
                .open(path)
                .with_context(cannot)?;
            let meta = file.metadata().with_context(cannot)?;
            if !meta.is_file() {
                return Ok(Self::Direct(BufWriter::with_capacity(CAPACITY, file)));
            }
            match opened_path(&file).with_context(cannot)? {
                Some(real) => (real, Some(meta)),
                None => {
                    let target = Target {
                        shown: path.to_path_buf(),
                        real: path.to_path_buf(),
                        existing: Some(meta),
                    };
                    return Ok(Self::InPlace { file: None, target });
                }
            }
        } else {
            (path.to_path_buf(), None)
        };
        cleanup::install()?;
        let target = Target {
            shown: path.to_path_buf(),
            real,
            existing,
        };
        match fairdeal_external::anonymous_file(target.dir()) {
            Ok(file) => Ok(Self::Staged {
                file: BufWriter::with_capacity(CAPACITY, file),
                target,
            }),
            // No file can be made beside it: write it in place, if it can be written.
            Err(staging) => match &target.existing {
                Some(_) if File::options().write(true).open(&target.real).is_ok() => {
                    Ok(Self::InPlace { file: None, target })
                }
                _ => Err(anyhow::Error::new(
                    staging
                        .io_error()
                        .map_or_else(|| io::Error::other(staging.to_string()), clone_io),
                ))
                .with_context(cannot),
            },
        }
    }

    /// Flushes, and for `-o FILE` puts the complete output in place.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        match self {
            Self::Stdout(mut out) => out.flush().context("cannot write output"),
            Self::Direct(mut out) => out.flush().context("cannot write output"),
            Self::InPlace { file, target } => {
                let mut file = match file {
                    Some(file) => file,
                    None => BufWriter::new(
                        target
                            .open_truncated()
                            .with_context(|| target.cannot("write"))?,
                    ),
                };
                file.flush().with_context(|| target.cannot("write"))
            }
            Self::Staged { file, target } => {
                let file = file
                    .into_inner()
                    .map_err(|e| anyhow::Error::new(e.into_error()))
                    .context("cannot write output")?;
                file.sync_all().context("cannot write output")?;
                publish(file, &target)
            }
        }
    }
}

/// Puts the complete staged output in place of `target` (see the module docs).
fn publish(staged: File, target: &Target) -> anyhow::Result<()> {
    let in_place = |mut staged: File| -> anyhow::Result<()> {
        staged
            .seek(io::SeekFrom::Start(0))
            .context("cannot write output")?;
        let mut out = target
            .open_truncated()
            .with_context(|| target.cannot("write"))?;
        io::copy(&mut staged, &mut out).with_context(|| target.cannot("write"))?;
        out.sync_all().with_context(|| target.cannot("write"))
    };
    let Some(existing) = &target.existing else {
        staged
            .set_permissions(std::fs::Permissions::from_mode(0o666 & !umask()))
            .with_context(|| target.cannot("create"))?;
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
        .with_context(|| target.cannot("write"))?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".fairdeal-output-");
    let named = match builder.make_in(target.dir(), |path| link(&staged, path)) {
        Ok(named) => named,
        Err(_) => return in_place(staged),
    };
    // The hidden name exists only until the rename, microseconds; a signal then removes it.
    let _registered = cleanup::register(named.path());
    named
        .persist(&target.real)
        .map_err(|e| anyhow::Error::new(e.error))
        .with_context(|| target.cannot("replace"))?;
    Ok(())
}

/// Gives an anonymous file the name `path` (`linkat` of `/proc/self/fd/N`).
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

/// An `io::Error` with the same OS code or kind and message.
fn clone_io(error: &io::Error) -> io::Error {
    match error.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(error.kind(), error.to_string()),
    }
}

impl Output {
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

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Stdout(out) => out.write(buf),
            Self::Direct(out) => out.write(buf),
            Self::Staged { file, .. } => file.write(buf),
            Self::InPlace { file, target } => Self::in_place(file, target)?.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Self::Stdout(out) => out.write_all(buf),
            Self::Direct(out) => out.write_all(buf),
            Self::Staged { file, .. } => file.write_all(buf),
            Self::InPlace { file, target } => Self::in_place(file, target)?.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Stdout(out) => out.flush(),
            Self::Direct(out) => out.flush(),
            Self::Staged { file, .. } => file.flush(),
            Self::InPlace { file, .. } => file.as_mut().map_or(Ok(()), Write::flush),
        }
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
}
