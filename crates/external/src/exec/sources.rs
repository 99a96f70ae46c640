//! The input files (or standard input) of a job, read one after another.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The input files (or standard input), read one after another, each as if it ended with the
/// separator.
pub struct Sources {
    readers: std::vec::IntoIter<(Box<dyn Read + Send>, String)>,
    current: Option<(Box<dyn Read + Send>, String)>,
    separator: u8,
    /// The last byte of the current source, to add a missing final separator.
    last: Option<u8>,
    /// The total size when every source is a regular file.
    size_hint: Option<u64>,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sources")
            .field("separator", &self.separator)
            .field("size_hint", &self.size_hint)
            .finish_non_exhaustive()
    }
}

/// An input that cannot be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The operating system refused to open or examine it.
    #[error("cannot read {name}")]
    Io {
        /// The file, quoted (`'name'`).
        name: String,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
    /// It is a directory.
    #[error("cannot read {name}: Is a directory")]
    Directory {
        /// The directory, quoted.
        name: String,
    },
}

impl OpenError {
    /// The error for `path` that the operating system refused to open or examine, with the
    /// file named as [`Sources::open`] names it (`'name'`), for a caller that refuses a path
    /// before handing it on.
    pub fn io(path: &Path, source: io::Error) -> Self {
        Self::Io {
            name: quoted(path),
            source,
        }
    }
}

/// A file's name in messages: `'name'`.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// Whether `path` names standard input (`-`).
pub fn is_stdin(path: &Path) -> bool {
    path == Path::new("-")
}

impl Sources {
    /// Opens every source now, so that a missing file is reported before any work: `files`
    /// in order (`-`, or no file at all, is standard input, which `stdin` gives).
    ///
    /// # Errors
    ///
    /// [`OpenError`] naming the first file that cannot be opened, or is a directory.
    pub fn open(
        files: &[OsString],
        separator: u8,
        stdin: impl Fn() -> Box<dyn Read + Send>,
    ) -> Result<Self, OpenError> {
        let mut readers: Vec<(Box<dyn Read + Send>, String)> = Vec::new();
        let mut size_hint = Some(0u64);
        let stdin_only = [OsString::from("-")];
        let files = if files.is_empty() {
            &stdin_only[..]
        } else {
            files
        };
        for file in files {
            let path = Path::new(file);
            if is_stdin(path) {
                readers.push((stdin(), "standard input".to_owned()));
                size_hint = None;
                continue;
            }
            let cannot = |source| OpenError::io(path, source);
            let opened = File::open(path).map_err(cannot)?;
            let metadata = opened.metadata().map_err(cannot)?;
            let name = quoted(path);
            if metadata.is_dir() {
                return Err(OpenError::Directory { name });
            }
            size_hint = size_hint
                .zip(metadata.is_file().then_some(metadata.len()))
                .map(|(a, b)| a.saturating_add(b));
            readers.push((Box::new(opened), name));
        }
        Ok(Self {
            readers: readers.into_iter(),
            current: None,
            separator,
            last: None,
            size_hint,
        })
    }

    /// The total size of the sources when every one is a regular file.
    pub const fn size_hint(&self) -> Option<u64> {
        self.size_hint
    }
}

/// A read error that names its source; the executor wraps it as "cannot read input".
#[derive(Debug, thiserror::Error)]
#[error("{name}: {error}")]
pub struct SourceError {
    name: String,
    error: io::Error,
}

impl Read for Sources {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.current.is_none() {
                self.current = self.readers.next();
                self.last = None;
            }
            let Some((reader, name)) = self.current.as_mut() else {
                return Ok(0);
            };
            let n = match reader.read(buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => {
                    let kind = error.kind();
                    let name = name.clone();
                    return Err(io::Error::new(kind, SourceError { name, error }));
                }
            };
            if n > 0 {
                self.last = Some(buf[n - 1]);
                return Ok(n);
            }
            let unterminated = self.last.is_some_and(|b| b != self.separator);
            self.current = None;
            if unterminated {
                buf[0] = self.separator;
                return Ok(1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_stdin() -> Box<dyn Read + Send> {
        Box::new(io::empty())
    }

    #[test]
    fn sources_add_a_missing_final_separator_to_each_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::write(&a, b"1\n2").unwrap();
        std::fs::write(&b, b"3\n").unwrap();
        let mut sources = Sources::open(&[a.into(), b.into()], b'\n', no_stdin).unwrap();
        assert_eq!(sources.size_hint(), Some(5));
        let mut all = Vec::new();
        sources.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"1\n2\n3\n");
    }

    #[test]
    fn a_directory_or_a_missing_file_is_refused_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let err = Sources::open(&[dir.path().into()], b'\n', no_stdin).unwrap_err();
        assert!(matches!(err, OpenError::Directory { .. }), "{err}");
        assert!(err.to_string().ends_with(": Is a directory"), "{err}");
        let missing = dir.path().join("missing");
        let err = Sources::open(&[missing.into()], b'\n', no_stdin).unwrap_err();
        assert!(matches!(err, OpenError::Io { .. }), "{err}");
        // Standard input has no size.
        let sources = Sources::open(&[], b'\n', no_stdin).unwrap();
        assert_eq!(sources.size_hint(), None);
    }
}
