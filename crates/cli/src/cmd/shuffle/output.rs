//! Where `fairdeal shuffle` and the `shuf` personality write: standard output, or `-o FILE`
//! through [`fairdeal_external::publish::OutputFile`] (staged and published complete, or
//! opened as GNU opens it); this module words its errors.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use fairdeal_external::publish::{OutputFile, PublishError};

/// The output of one run. Nothing written to `-o FILE` counts until [`Output::commit`].
pub(crate) enum Output {
    Stdout(BufWriter<crate::closed_stdio::StdoutLock>),
    File(Box<OutputFile>),
}

fn stdout() -> Output {
    Output::Stdout(BufWriter::with_capacity(
        64 * 1024,
        crate::closed_stdio::stdout(),
    ))
}

impl Output {
    /// Standard output, or `path` opened now as GNU `shuf -o` opens it
    /// ([`OutputFile::direct`]; the caller has read all input).
    pub(crate) fn gnu(path: Option<&Path>) -> io::Result<Self> {
        path.map_or_else(
            || Ok(stdout()),
            |path| {
                crate::closed_stdio::refuse_closed_stream(path)?;
                OutputFile::direct(path).map(|f| Self::File(Box::new(f)))
            },
        )
    }

    /// Standard output, or a writer that publishes `path` once complete
    /// ([`OutputFile::create`]).
    pub(crate) fn create(path: Option<&Path>) -> anyhow::Result<Self> {
        match path {
            None => Ok(stdout()),
            Some(path) => crate::closed_stdio::refuse_closed_stream(path)
                .map_err(|source| PublishError::Create {
                    path: path.to_owned(),
                    source,
                })
                .and_then(|()| OutputFile::create(path))
                .map(|f| Self::File(Box::new(f)))
                .map_err(worded),
        }
    }

    /// Flushes, and for `-o FILE` puts the complete output in place.
    pub(crate) fn commit(self) -> anyhow::Result<()> {
        match self {
            Self::Stdout(mut out) => anyhow::Context::context(out.flush(), "cannot write output"),
            Self::File(file) => file.commit().map_err(worded),
        }
    }

    fn writer(&mut self) -> &mut dyn Write {
        match self {
            Self::Stdout(out) => out,
            Self::File(file) => &mut **file,
        }
    }
}

/// A publishing error in the command's words (`cannot create output file 'FILE': …`).
fn worded(err: PublishError) -> anyhow::Error {
    let (what, path, source) = match err {
        PublishError::Create { path, source } => ("create", path, source),
        PublishError::Write { path, source } => ("write", path, source),
        PublishError::Replace { path, source } => ("replace", path, source),
        PublishError::Stage(source) => {
            return anyhow::Error::new(source).context("cannot write output");
        }
        other => return anyhow::Error::new(other),
    };
    anyhow::Error::new(source).context(format!("cannot {what} output file '{}'", path.display()))
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}
