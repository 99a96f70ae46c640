//! A standard input or output closed by the caller (`<&-`, `>&-`) stays unusable, as in GNU
//! tools: reading it fails with "Bad file descriptor", and so does writing to it.
//!
//! Rust's runtime reopens a closed descriptor 0, 1 or 2 on `/dev/null` before `main`, after
//! which a closed stdin reads as empty input and a closed stdout swallows the output with exit 0
//! (a cron job or a service with a closed stdout "succeeded" having written nothing). A closed
//! descriptor is not an open `/dev/null` (Python's `subprocess.DEVNULL`, Node's `'ignore'`):
//! `fcntl(fd, F_GETFD)` fails with `EBADF` on the first only. So a constructor run by the
//! dynamic loader, before the runtime's start-up, checks descriptors 0 and 1, and where one is
//! closed records that and puts an `O_PATH` descriptor of `/` in its place.
//!
//! Rust's `Stdin` and `Stdout` treat `EBADF` as end of input and as a successful write, so the
//! program reads and writes the standard streams through [`stdin`] and [`stdout`], which fail
//! with "Bad file descriptor" for a stream that was closed. The placeholder is for everything
//! else: the runtime polls it as invalid and opens its `/dev/null` on a higher descriptor,
//! which nothing uses, and reopening the stream by name (`-o /dev/stdout`) fails instead of
//! writing to `/dev/null`: [`refuse_closed_stream`] words that "Bad file descriptor" before
//! the open would say "Is a directory" (`/`). Descriptor 2 is left
//! to the runtime: with no stderr there is nowhere to say anything.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, AsRawFd as _, BorrowedFd, IntoRawFd as _};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{Mode, OFlags};

/// Run by the loader from `.init_array`, before Rust's runtime reopens closed standard
/// descriptors (the runtime does that in its start-up, which the loader calls after every
/// constructor of the executable has run).
// SAFETY: `link_section` is `unsafe` because code placed in `.init_array` runs before `main`,
// where Rust's runtime is not set up. `keep_closed_streams_closed` needs none of it: it makes
// system calls (`fcntl`, `open`) through rustix, whose errors it ignores (it cannot panic), and
// `std::io::stdin()` / `stdout()` only build their lazily made buffers (with `malloc`, which
// glibc sets up before any constructor runs) and give their fixed descriptor numbers
// (`as_fd`). It runs once, on the only thread there is. Its type, `extern "C" fn()`, is how
// glibc calls an `.init_array` entry (the arguments glibc passes are ignored, as the C ABI
// allows).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
#[used]
#[unsafe(link_section = ".init_array")]
static KEEP_CLOSED_STREAMS_CLOSED: extern "C" fn() = keep_closed_streams_closed;

#[cfg(target_os = "linux")]
extern "C" fn keep_closed_streams_closed() {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    // In this order: `open` returns the lowest free descriptor, so a closed 0 is filled before
    // a closed 1 is looked at, and each `open` lands on the descriptor that was found closed.
    for (fd, closed) in [
        (stdin.as_fd(), &STDIN_CLOSED),
        (stdout.as_fd(), &STDOUT_CLOSED),
    ] {
        if fill_if_closed(fd) {
            closed.store(true, Ordering::Relaxed);
        }
    }
}

/// Whether `fd` is closed (`EBADF`); if so, puts an `O_PATH` descriptor of `/` in its place.
#[cfg(target_os = "linux")]
fn fill_if_closed(fd: BorrowedFd<'_>) -> bool {
    if rustix::io::fcntl_getfd(fd) != Err(rustix::io::Errno::BADF) {
        return false;
    }
    let Ok(placeholder) = rustix::fs::open(
        "/",
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return true;
    };
    if placeholder.as_raw_fd() == fd.as_raw_fd() {
        // Kept open for the whole run: it is the closed stream's stand-in.
        let _ = placeholder.into_raw_fd();
    }
    // Otherwise a lower descriptor was free too (only 0 can be, and it was checked first):
    // dropping the placeholder closes it, and the runtime's `/dev/null` is what is left.
    true
}

/// Whether descriptor 0 was closed when the program started.
static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
/// Whether descriptor 1 was closed when the program started.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// The error a closed descriptor gives: `EBADF`, "Bad file descriptor".
fn bad_descriptor() -> io::Error {
    io::Error::from_raw_os_error(rustix::io::Errno::BADF.raw_os_error())
}

/// Refuses a `path` that names a standard stream the caller closed (`/dev/stdin`,
/// `/dev/fd/1`, `/proc/self/fd/0`) with "Bad file descriptor", as GNU `shuf -o /dev/stdout >&-`
/// does: it would reach the stream's placeholder, and opening that says "Is a directory".
///
/// Such a path is a symbolic link (the `/proc` link of the descriptor, or one leading there)
/// to the placeholder itself. `/` named directly is not refused; any other symbolic link to `/`
/// (`/proc/self/root`) is, while a stream is closed, which changes only the words of a run that
/// fails either way. Costs nothing unless a stream was closed.
pub(crate) fn refuse_closed_stream(path: &std::path::Path) -> io::Result<()> {
    let (stdin, stdout) = (io::stdin(), io::stdout());
    let closed: Vec<BorrowedFd<'_>> = [
        (&STDIN_CLOSED, stdin.as_fd()),
        (&STDOUT_CLOSED, stdout.as_fd()),
    ]
    .into_iter()
    .filter(|(closed, _)| closed.load(Ordering::Relaxed))
    .map(|(_, fd)| fd)
    .collect();
    if closed.is_empty() || !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink()) {
        return Ok(());
    }
    let Ok(target) = rustix::fs::stat(path) else {
        return Ok(());
    };
    let names_placeholder = closed.into_iter().any(|fd| {
        rustix::fs::fstat(fd)
            .is_ok_and(|stat| (stat.st_dev, stat.st_ino) == (target.st_dev, target.st_ino))
    });
    if names_placeholder {
        Err(bad_descriptor())
    } else {
        Ok(())
    }
}

/// Opens `path` for reading, refusing a closed standard stream named as a file as
/// [`refuse_closed_stream`] does.
pub(crate) fn open(path: &std::path::Path) -> io::Result<std::fs::File> {
    refuse_closed_stream(path)?;
    std::fs::File::open(path)
}

/// Standard input, or a reader that fails with "Bad file descriptor" when the caller closed it
/// (Rust's `Stdin` would read the runtime's `/dev/null`, or treat `EBADF` as end of input).
pub(crate) enum Stdin {
    /// Descriptor 0, open.
    Open(io::Stdin),
    /// Descriptor 0 was closed at start: every read fails.
    Closed,
}

/// Standard input as [`Stdin`]: use this, never `std::io::stdin()`, to read it.
pub(crate) fn stdin() -> Stdin {
    if STDIN_CLOSED.load(Ordering::Relaxed) {
        Stdin::Closed
    } else {
        Stdin::Open(io::stdin())
    }
}

impl Read for Stdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Open(stdin) => stdin.read(buf),
            Self::Closed => Err(bad_descriptor()),
        }
    }
}

/// Standard output, locked, or a writer that fails with "Bad file descriptor" on the first
/// byte when the caller closed it. Writing nothing to a closed stdout is not an error, as in
/// GNU's `close_stdout` (`shuf -n 0 >&-` exits 0).
pub(crate) enum StdoutLock {
    /// Descriptor 1, open.
    Open(io::StdoutLock<'static>),
    /// Descriptor 1 was closed at start: every non-empty write fails.
    Closed,
}

/// Standard output as [`StdoutLock`]: use this, never `std::io::stdout()`, to write it.
pub(crate) fn stdout() -> StdoutLock {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        StdoutLock::Closed
    } else {
        StdoutLock::Open(io::stdout().lock())
    }
}

impl Write for StdoutLock {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Open(out) => out.write(buf),
            Self::Closed if buf.is_empty() => Ok(0),
            Self::Closed => Err(bad_descriptor()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Open(out) => out.flush(),
            Self::Closed => Ok(()),
        }
    }
}
