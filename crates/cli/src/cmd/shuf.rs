//! The `shuf` personality: the binary invoked as `shuf` (a symlink or a copy named so) is GNU
//! coreutils' `shuf`. This file parses GNU's command line and words GNU's messages; the run
//! itself, GNU's plan and draws, and coreutils' quoting and number reading are
//! `fairdeal_external::gnu` ([`run_gnu`] is the thin call that `fairdeal shuffle
//! --random-source` shares).
//!
//! **Options**: only GNU's (`-e -i -n -o -r -z --random-source --help --version` and their long
//! names), parsed as `getopt_long` does: options and operands in any order (unless
//! `POSIXLY_CORRECT` is set), `--` ends the options, long names may be abbreviated to a unique
//! prefix, `-n` given twice keeps the smaller count, a repeated flag is accepted, a second `-i`
//! or a different second `-o` / `--random-source` is refused. Errors are one `shuf: ...` line
//! (plus `Try 'shuf --help' ...` for usage errors), and every failure exits 1, as GNU's do.
//!
//! **Where it differs from GNU**, on purpose: a reader that closes the pipe (`shuf -r | head`)
//! ends the run with status 0 instead of death by SIGPIPE (fairdeal's convention, and no
//! `unsafe` signal handling); `--version` names fairdeal; `--help` is our own text; messages are
//! always in the C locale's quotes ('x'). `-o FILE` is opened as GNU opens it, once all input
//! is read (`O_WRONLY|O_CREAT|O_TRUNC`, in place), so the file's permissions and the kernel's
//! link protections apply; `fairdeal shuffle -o` stages its output instead
//! (`fairdeal_external::publish`).

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use fairdeal::rng::GnuError;
use fairdeal_external::gnu::{
    self, Count, GnuRunError, parse_count, quote, quotef, strerror, without_os_error,
};
use fairdeal_external::gnu::{GnuInput, GnuJob};

use super::shuffle::output::Output;

/// Whether argv[0] names this binary `shuf`: then it is GNU shuf.
pub(crate) fn is_shuf(argv0: &OsStr) -> bool {
    Path::new(argv0)
        .file_name()
        .is_some_and(|name| name == "shuf" || name == "shuf.exe")
}

/// The personality's entry point: `args` is the whole command line, argv[0] included.
pub(crate) fn main(args: Vec<OsString>) -> ExitCode {
    // Messages name the program as it was invoked (`shuf`, `/usr/local/bin/shuf`), as GNU's do.
    let program = args
        .first()
        .map_or_else(|| "shuf".to_owned(), |a| a.to_string_lossy().into_owned());
    let job = match parse(args.into_iter().skip(1)) {
        Ok(Parsed::Run(job)) => job,
        Ok(Parsed::Help) => return print(&help(&program), &program),
        Ok(Parsed::Version) => {
            return print(
                &format!(
                    "shuf (fairdeal) {}\nGNU shuf's interface and --random-source output, drawn by fairdeal.\n",
                    env!("CARGO_PKG_VERSION")
                ),
                &program,
            );
        }
        Err(ParseError { message, usage }) => {
            eprintln!("{program}: {message}");
            if usage {
                eprintln!("Try '{program} --help' for more information.");
            }
            return ExitCode::FAILURE;
        }
    };
    match run_gnu(job) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if crate::common::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("{program}: {}", without_os_error(&format!("{err:#}")));
            ExitCode::FAILURE
        }
    }
}

fn print(text: &str, program: &str) -> ExitCode {
    let mut out = crate::closed_stdio::stdout();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: write error: {}", strerror(&e));
            ExitCode::FAILURE
        }
    }
}

fn help(program: &str) -> String {
    format!(
        "Usage: {program} [OPTION]... [FILE]\n  \
     or:  {program} -e [OPTION]... [ARG]...\n  \
     or:  {program} -i LO-HI [OPTION]...\n\
     Write a random permutation of the input lines to standard output.\n\n\
     With no FILE, or when FILE is -, read standard input.\n\n\
     Mandatory arguments to long options are mandatory for short options too.\n  \
     -e, --echo                each ARG is an input line\n  \
     -i, --input-range=LO-HI   each number LO through HI is an input line\n  \
     -n, --head-count=COUNT    output at most COUNT lines\n  \
     -o, --output=FILE         write to FILE instead of standard output\n      \
     --random-source=FILE  take random bytes from FILE, as GNU shuf does: the same FILE\n                            \
     gives GNU shuf's output\n  \
     -r, --repeat              output lines may repeat\n  \
     -z, --zero-terminated     lines end with NUL, not newline\n      \
     --help                display this help and exit\n      \
     --version             output version information and exit\n\n\
     This is fairdeal running as 'shuf' (see 'fairdeal shuffle --help' for its extensions).\n"
    )
}

/// The outcome of parsing the command line.
#[derive(Debug)]
enum Parsed {
    Run(GnuJob),
    Help,
    Version,
}

/// A command-line error: the message, and whether GNU adds its "Try 'shuf --help'" line.
#[derive(Debug)]
struct ParseError {
    message: String,
    usage: bool,
}

fn fail(message: String) -> ParseError {
    ParseError {
        message,
        usage: false,
    }
}

fn usage(message: String) -> ParseError {
    ParseError {
        message,
        usage: true,
    }
}

/// GNU shuf's long options: name, whether it takes an argument, the short option it means.
const LONG: &[(&str, bool, char)] = &[
    ("echo", false, 'e'),
    ("head-count", true, 'n'),
    ("help", false, 'H'),
    ("input-range", true, 'i'),
    ("output", true, 'o'),
    ("random-source", true, 'R'),
    ("repeat", false, 'r'),
    ("version", false, 'V'),
    ("zero-terminated", false, 'z'),
];

/// Short options, and whether each takes an argument.
fn short_takes_arg(c: char) -> Option<bool> {
    match c {
        'e' | 'r' | 'z' => Some(false),
        'i' | 'n' | 'o' => Some(true),
        _ => None,
    }
}

/// Parses shuf's arguments (argv[0] excluded) as `getopt_long` with GNU's rules.
fn parse(args: impl Iterator<Item = OsString>) -> Result<Parsed, ParseError> {
    let args: Vec<OsString> = args.collect();
    let posix = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut state = Options::default();
    let mut operands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let bytes = arg.as_encoded_bytes();
        if bytes == b"--" {
            operands.extend(args[i..].iter().cloned());
            break;
        }
        if bytes.len() < 2 || bytes[0] != b'-' {
            if posix {
                operands.extend(args[i - 1..].iter().cloned());
                break;
            }
            operands.push(arg.clone());
            continue;
        }
        if bytes.starts_with(b"--") {
            let body = &bytes[2..];
            let (name, value) = match body.iter().position(|&b| b == b'=') {
                Some(eq) => (&body[..eq], Some(tail(arg, 2 + eq + 1))),
                None => (body, None),
            };
            let name = String::from_utf8_lossy(name);
            let exact = LONG.iter().find(|(n, ..)| *n == name);
            let matches: Vec<_> = LONG
                .iter()
                .filter(|(n, ..)| n.starts_with(&*name))
                .collect();
            let &(full, takes, key) = match (exact, matches.as_slice()) {
                (Some(option), _) => option,
                (None, [one]) => one,
                (None, []) => {
                    return Err(usage(format!(
                        "unrecognized option '{}'",
                        arg.to_string_lossy()
                    )));
                }
                (None, many) => {
                    let names: Vec<String> =
                        many.iter().map(|(n, ..)| format!("'--{n}'")).collect();
                    // GNU names the argument as given, value included (`--r=FILE`).
                    return Err(usage(format!(
                        "option '{}' is ambiguous; possibilities: {}",
                        arg.to_string_lossy(),
                        names.join(" ")
                    )));
                }
            };
            let value = match (takes, value) {
                (false, Some(_)) => {
                    return Err(usage(format!(
                        "option '--{full}' doesn't allow an argument"
                    )));
                }
                (false, None) => None,
                (true, Some(value)) => Some(value),
                (true, None) => match args.get(i) {
                    Some(next) => {
                        i += 1;
                        Some(next.clone())
                    }
                    None => {
                        return Err(usage(format!("option '--{full}' requires an argument")));
                    }
                },
            };
            if let Some(done) = state.apply(key, value)? {
                return Ok(done);
            }
            continue;
        }
        // A cluster of short options: -rz, -n3, -en 3.
        let mut at = 1;
        while at < bytes.len() {
            let c = char::from(bytes[at]);
            at += 1;
            let Some(takes) = short_takes_arg(c).filter(|_| bytes[at - 1].is_ascii()) else {
                let shown = String::from_utf8_lossy(&bytes[at - 1..at]).into_owned();
                return Err(usage(format!("invalid option -- '{shown}'")));
            };
            let value = if !takes {
                None
            } else if at < bytes.len() {
                let value = tail(arg, at);
                at = bytes.len();
                Some(value)
            } else if let Some(next) = args.get(i) {
                i += 1;
                Some(next.clone())
            } else {
                return Err(usage(format!("option requires an argument -- '{c}'")));
            };
            if let Some(done) = state.apply(c, value)? {
                return Ok(done);
            }
        }
    }
    state.finish(operands).map(Parsed::Run)
}

/// `arg` from byte `from` on (an ASCII boundary, so the rest is still a valid `OsStr`).
fn tail(arg: &OsStr, from: usize) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        OsStr::from_bytes(&arg.as_bytes()[from..]).to_owned()
    }
    #[cfg(not(unix))]
    {
        OsString::from(arg.to_string_lossy()[from..].to_owned())
    }
}

/// The options seen so far.
#[derive(Debug, Default)]
struct Options {
    echo: bool,
    range: Option<(u64, u64)>,
    head: Option<u64>,
    output: Option<OsString>,
    random_source: Option<OsString>,
    repeat: bool,
    zero: bool,
}

impl Options {
    /// Applies one option, in command-line order (so errors come in GNU's order); `--help` and
    /// `--version` end the parse at once.
    fn apply(&mut self, key: char, value: Option<OsString>) -> Result<Option<Parsed>, ParseError> {
        let value = value.unwrap_or_default();
        let text = value.to_string_lossy();
        match key {
            'e' => self.echo = true,
            'r' => self.repeat = true,
            'z' => self.zero = true,
            'H' => return Ok(Some(Parsed::Help)),
            'V' => return Ok(Some(Parsed::Version)),
            'n' => match parse_count(&text) {
                Count::Value(k) => self.head = Some(self.head.map_or(k, |h| h.min(k))),
                // GNU reads a count too large for its integers as "no limit".
                Count::Overflow => {}
                Count::Invalid => {
                    return Err(fail(format!(
                        "invalid line count: {}",
                        quote(value.as_encoded_bytes())
                    )));
                }
            },
            'i' => {
                if self.range.is_some() {
                    return Err(fail("multiple -i options specified".to_owned()));
                }
                self.range = Some(gnu::parse_range(value.as_encoded_bytes()).map_err(fail)?);
            }
            'o' => {
                if self.output.as_ref().is_some_and(|o| *o != value) {
                    return Err(fail("multiple output files specified".to_owned()));
                }
                self.output = Some(value);
            }
            'R' => {
                if self.random_source.as_ref().is_some_and(|r| *r != value) {
                    return Err(fail("multiple random sources specified".to_owned()));
                }
                self.random_source = Some(value);
            }
            other => unreachable!("option {other} is not in the table"),
        }
        Ok(None)
    }

    /// The operand rules, once all options are known.
    fn finish(self, operands: Vec<OsString>) -> Result<GnuJob, ParseError> {
        if self.echo && self.range.is_some() {
            return Err(usage("cannot combine -e and -i options".to_owned()));
        }
        let extra = if self.range.is_some() {
            operands.first()
        } else if !self.echo {
            operands.get(1)
        } else {
            None
        };
        if let Some(extra) = extra {
            return Err(usage(format!(
                "extra operand {}",
                quote(extra.as_encoded_bytes())
            )));
        }
        let input = match self.range {
            Some((lo, hi)) => GnuInput::Range { lo, hi },
            None if self.echo => GnuInput::Echo(operands),
            None => GnuInput::Files(operands),
        };
        Ok(GnuJob {
            input,
            head: self.head,
            repeat: self.repeat,
            separator: if self.zero { b'\0' } else { b'\n' },
            random_source: self.random_source.map(PathBuf::from),
            output: self.output.map(PathBuf::from),
            load_limit: None,
        })
    }
}

/// Runs GNU shuf's algorithm on `job` ([`fairdeal_external::gnu::execute`]), reading the
/// process's standard input, writing through [`Output::gnu`], and words its failures as GNU's
/// messages.
pub(crate) fn run_gnu(job: GnuJob) -> anyhow::Result<()> {
    let inputs = match &job.input {
        GnuInput::Files(files) => files.iter().filter(|f| *f != "-").collect(),
        _ => Vec::new(),
    };
    for path in inputs
        .into_iter()
        .map(Path::new)
        .chain(job.random_source.as_deref())
    {
        crate::closed_stdio::refuse_closed_stream(path)
            .map_err(|e| anyhow!("{}: {}", quotef(path), strerror(&e)))?;
    }
    gnu::execute(job, crate::closed_stdio::stdin(), Output::gnu).map_err(gnu_message)
}

/// GNU shuf's message for a failed run: names quoted as coreutils quotes them, strerror's words.
fn gnu_message(err: GnuRunError) -> anyhow::Error {
    match err {
        GnuRunError::OpenInput { path, source }
        | GnuRunError::OpenRandomSource { path, source } => {
            anyhow!("{}: {}", quotef(&path), strerror(&source))
        }
        GnuRunError::OpenOutput { path, source } => {
            let path = path.as_deref().unwrap_or(Path::new("-"));
            anyhow!("{}: {}", quotef(path), strerror(&source))
        }
        GnuRunError::ReadInput(e) => anyhow!("read error: {}", strerror(&e)),
        GnuRunError::Seed(e) => anyhow!("getrandom: {e}"),
        GnuRunError::Random { path, source } => {
            let name = path.map_or_else(
                || "getrandom".to_owned(),
                |p| quote(p.as_os_str().as_encoded_bytes()),
            );
            match source {
                GnuError::EndOfFile => anyhow!("{name}: end of file"),
                GnuError::Read(e) => anyhow!("{name}: read error: {}", strerror(&e)),
                other => anyhow!("{name}: {other}"),
            }
        }
        // The error itself, so that a reader that closed the pipe is found in the chain.
        GnuRunError::Write(e) => anyhow::Error::new(e).context("write error"),
        // Only `fairdeal shuffle --random-source` sets a load limit: worded with its flags.
        GnuRunError::BeyondBudget(refused) => super::shuffle::words::refusal(&refused),
        other => anyhow!("{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Parsed, ParseError> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn getopt_rules() {
        let Ok(Parsed::Run(job)) = parse_strs(&["-e", "a", "-n", "3", "b", "-n1", "-z", "-z"])
        else {
            panic!("parsed")
        };
        assert_eq!(job.head, Some(1));
        assert_eq!(job.separator, 0);
        assert!(matches!(job.input, GnuInput::Echo(ref a) if a.len() == 2));
        let err = parse_strs(&["--r", "x"]).unwrap_err();
        assert!(err.message.contains("ambiguous"), "{}", err.message);
        // Probe row P7: the value stays in the name, as GNU prints it.
        let err = parse_strs(&["--r=big.rs", "x"]).unwrap_err();
        assert_eq!(
            err.message,
            "option '--r=big.rs' is ambiguous; possibilities: '--random-source' '--repeat'"
        );
        assert!(matches!(
            parse_strs(&["--rep", "-e"]),
            Ok(Parsed::Run(GnuJob { repeat: true, .. }))
        ));
        assert!(matches!(
            parse_strs(&["--help", "--bogus"]),
            Ok(Parsed::Help)
        ));
        assert!(parse_strs(&["--bogus", "--help"]).unwrap_err().usage);
        assert!(
            matches!(parse_strs(&["-e", "--", "-n"]), Ok(Parsed::Run(GnuJob { input: GnuInput::Echo(ref a), .. })) if a == &["-n"])
        );
    }
}
