//! Where `fairdeal shuffle` writes: standard output, or `-o FILE` written safely.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::cleanup;

/// Buffer between the shuffle and the output.
const CAPACITY: usize = 64 * 1024;

/// The output of one run. Nothing written counts until [`Output::commit`]: for `-o FILE` the
/// bytes go to a temporary file beside FILE that `commit` renames over it (so FILE may be an
/// input, and a failure leaves it untouched); a non-regular FILE (`/dev/null`, a FIFO) is
/// written directly, since renaming over a device would replace it.
pub(crate) enum Output {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    Direct(BufWriter<File>),
    Replace {
        temp: BufWriter<tempfile::NamedTempFile>,
        target: PathBuf,
        /// The permissions FILE had, kept across the rename.
        permissions: Option<std::fs::Permissions>,
        _registered: cleanup::Registered,
    },
}

impl Output {
    /// Standard output, or a writer for `path`.
    pub(crate) fn create(path: Option<&Path>) -> anyhow::Result<Self> {
        let Some(path) = path else {
            return Ok(Self::Stdout(BufWriter::with_capacity(
                CAPACITY,
                io::stdout().lock(),
            )));
        };
        let cannot = || format!("cannot create output file '{}'", path.display());
        let existing = std::fs::metadata(path).ok();
        if existing.as_ref().is_some_and(|m| !m.is_file()) {
            let file = File::create(path).with_context(cannot)?;
            return Ok(Self::Direct(BufWriter::with_capacity(CAPACITY, file)));
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".fairdeal-output-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // Like File::create: 0666 less the umask (tempfile's default is 0600).
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        cleanup::install()?;
        let temp = builder.tempfile_in(dir).with_context(cannot)?;
        let registered = cleanup::register(temp.path());
        Ok(Self::Replace {
            temp: BufWriter::with_capacity(CAPACITY, temp),
            target: path.to_path_buf(),
            permissions: existing.map(|m| m.permissions()),
            _registered: registered,
        })
    }

    /// Flushes, and for `-o FILE` renames the complete output over FILE.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        match self {
            Self::Stdout(mut out) => out.flush().context("cannot write output"),
            Self::Direct(mut out) => out.flush().context("cannot write output"),
            Self::Replace {
                temp,
                target,
                permissions,
                _registered,
            } => {
                let temp = temp
                    .into_inner()
                    .map_err(|e| anyhow::Error::new(e.into_error()))
                    .context("cannot write output")?;
                temp.as_file().sync_all().context("cannot write output")?;
                if let Some(permissions) = permissions {
                    std::fs::set_permissions(temp.path(), permissions)
                        .with_context(|| format!("cannot write '{}'", target.display()))?;
                }
                temp.persist(&target)
                    .map_err(|e| anyhow::Error::new(e.error))
                    .with_context(|| format!("cannot replace '{}'", target.display()))?;
                Ok(())
            }
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Self::Stdout(out) => out.write(buf),
            Self::Direct(out) => out.write(buf),
            Self::Replace { temp, .. } => temp.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Self::Stdout(out) => out.write_all(buf),
            Self::Direct(out) => out.write_all(buf),
            Self::Replace { temp, .. } => temp.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Stdout(out) => out.flush(),
            Self::Direct(out) => out.flush(),
            Self::Replace { temp, .. } => temp.flush(),
        }
    }
}
