//! The `shuf` personality: the binary invoked as `shuf` (a symlink or a copy named so) is GNU
//! coreutils' `shuf`, and [`run_gnu`], GNU's way of drawing, which `fairdeal shuffle
//! --random-source` shares.
//!
//! **Options**: only GNU's (`-e -i -n -o -r -z --random-source --help --version` and their long
//! names), parsed as `getopt_long` does: options and operands in any order (unless
//! `POSIXLY_CORRECT` is set), `--` ends the options, long names may be abbreviated to a unique
//! prefix, `-n` given twice keeps the smaller count, a repeated flag is accepted, a second `-i`
//! or a different second `-o` / `--random-source` is refused. Errors are one `shuf: ...` line
//! (plus `Try 'shuf --help' ...` for usage errors), and every failure exits 1, as GNU's do.
//!
//! **Drawing** ([`run_gnu`]): the random bytes come from `--random-source FILE`, consumed
//! exactly as coreutils does ([`GnuRandom`]), so the same FILE gives GNU's output byte for
//! byte; without it, from fairdeal's default generator seeded by the operating system. As in
//! coreutils ([`GnuSampler::plan`]), `-n K` on input of unknown size (a pipe, or more than
//! 8 MiB) keeps a reservoir of K lines; otherwise the input is read
//! whole and the first K positions of a random permutation are written; `-r` draws each output
//! line independently. `-n 0` opens neither the input nor the random source.
//!
//! **Where it differs from GNU**, on purpose: a reader that closes the pipe (`shuf -r | head`)
//! ends the run with status 0 instead of death by SIGPIPE (fairdeal's convention, and no
//! `unsafe` signal handling); `--version` names fairdeal; `--help` is our own text; messages are
//! always in the C locale's quotes ('x'). `-o FILE` is opened as GNU opens it, once all input
//! is read (`O_WRONLY|O_CREAT|O_TRUNC`, in place), so the file's permissions and the kernel's
//! link protections apply; `fairdeal shuffle -o` stages its output instead
//! (`shuffle/output.rs`).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::anyhow;
use fairdeal::rng::{
    Backend, DefaultBackend, GnuError, GnuInput as GnuInputKind, GnuRandom, GnuSampler,
    gnu_opens_source, gnu_randperm_bytes,
};

use super::shuffle::output::Output;

/// What the shuf personality reads: argument lines, a range, or one input (fairdeal shuffle
/// may pass several files, read one after the other as one stream).
#[derive(Debug)]
pub(crate) enum GnuInput {
    /// `-e`: each argument is one line.
    Echo(Vec<OsString>),
    /// `-i LO-HI`, a valid range (possibly empty: `LO = HI + 1`).
    Range { lo: u64, hi: u64 },
    /// Input files; none, or `-`, is standard input.
    Files(Vec<OsString>),
}

/// One run of GNU shuf's algorithm.
#[derive(Debug)]
pub(crate) struct GnuJob {
    pub(crate) input: GnuInput,
    /// `-n K`; `None` is no limit.
    pub(crate) head: Option<u64>,
    pub(crate) repeat: bool,
    pub(crate) separator: u8,
    pub(crate) random_source: Option<PathBuf>,
    pub(crate) output: Option<PathBuf>,
    /// The most bytes of input held (`fairdeal shuffle`'s plan: its memory budget); `None`
    /// for no limit (GNU's own, the personality).
    pub(crate) load_limit: Option<fairdeal_external::MemoryBudget>,
}

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
            // strerror's words without Rust's " (os error N)".
            let message = format!("{err:#}");
            let message = match (message.find(" (os error "), message.ends_with(')')) {
                (Some(cut), true) => &message[..cut],
                _ => &message,
            };
            eprintln!("{program}: {message}");
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
                self.range = Some(parse_gnu_range(value.as_encoded_bytes()).map_err(fail)?);
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

/// A number as GNU's `xstrtoumax` reads it.
#[derive(Debug, PartialEq, Eq)]
enum Count {
    Value(u64),
    Overflow,
    Invalid,
}

/// Reads an unsigned decimal as coreutils does: leading white space and one `+` allowed, a
/// minus sign refused, nothing after the digits.
fn parse_count(text: &str) -> Count {
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\x0B', '\x0C', '\r']);
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Count::Invalid;
    }
    digits.parse().map_or(Count::Overflow, Count::Value)
}

/// `-i LO-HI` as GNU reads it: split at the first `-`, each side a number as [`parse_count`]
/// reads it, and `LO <= HI + 1` with at most `2^64 - 1` numbers. The message names the part
/// that is wrong, as GNU's does.
pub(crate) fn parse_gnu_range(text: &[u8]) -> Result<(u64, u64), String> {
    let invalid = |part: &[u8]| format!("invalid input range: {}", quote(part));
    let Some(dash) = text.iter().position(|&b| b == b'-') else {
        return Err(invalid(text));
    };
    let (lo, hi) = (&text[..dash], &text[dash + 1..]);
    // A part that is not UTF-8 is not a number either.
    let number = |part: &[u8]| match std::str::from_utf8(part).map_or(Count::Invalid, parse_count) {
        Count::Value(v) => Ok(v),
        Count::Overflow => Err(format!(
            "{}: Value too large for defined data type",
            invalid(part)
        )),
        Count::Invalid => Err(invalid(part)),
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    let valid = (lo <= hi && hi - lo < u64::MAX) || hi.checked_add(1) == Some(lo);
    if valid {
        Ok((lo, hi))
    } else {
        Err(invalid(text))
    }
}

/// GNU's `quote` in the C locale (gnulib's `locale_quoting_style`): `'text'`, with `\'`,
/// `\\`, C escapes for control characters and octal (`\377`) for every other byte that is
/// not printable ASCII.
fn quote(text: &[u8]) -> String {
    let mut out = String::from("'");
    for (i, &c) in text.iter().enumerate() {
        match c {
            0 if text.get(i + 1).is_some_and(u8::is_ascii_digit) => out.push_str("\\000"),
            0 => out.push_str("\\0"),
            b'\'' | b'\\' => {
                out.push('\\');
                out.push(char::from(c));
            }
            _ => push_c_byte(&mut out, c),
        }
    }
    out.push('\'');
    out
}

/// One byte as C escapes it: `\n` and the other letter escapes, printable ASCII as itself,
/// anything else in octal.
fn push_c_byte(out: &mut String, c: u8) {
    let letter = match c {
        7 => 'a',
        8 => 'b',
        b'\t' => 't',
        b'\n' => 'n',
        11 => 'v',
        12 => 'f',
        b'\r' => 'r',
        b' '..=b'~' => {
            out.push(char::from(c));
            return;
        }
        _ => {
            out.push_str(&format!("\\{c:03o}"));
            return;
        }
    };
    out.push('\\');
    out.push(letter);
}

/// GNU's `quotef` for file names in the C locale (gnulib's `shell_escape_quoting_style`, with
/// `:` quoted): bare when a shell reads it as is, else in single quotes, with `'\''` for a
/// quote and `'$'\377''` for a byte that is not printable ASCII; a name whose only trouble is a
/// `'` is double-quoted (`"a'b"`). Each case is checked against coreutils 9.1.
fn quotef(name: &Path) -> String {
    let bytes = name.as_os_str().as_encoded_bytes();
    let len = bytes.len();
    // Printable ASCII that needs no quotes where it stands.
    let bare = |i: usize, c: u8| match c {
        b'{' | b'}' => len != 1,
        b'#' | b'~' => i != 0,
        b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b']' | b'_' | b'@' => true,
        _ => c.is_ascii_alphanumeric(),
    };
    if len > 0 && bytes.iter().enumerate().all(|(i, &c)| bare(i, c)) {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    // Double quotes read the same to a shell and to C when every byte is printable ASCII and
    // none is special inside them.
    let c_and_shell = |i: usize, c: u8| match c {
        b'{' | b'}' => len == 1,
        b'#' | b'~' => i == 0,
        b' ' | b'\'' => true,
        _ => (b' '..=b'~').contains(&c) && !b"!\"$&()*;<=>?[\\^`|".contains(&c),
    };
    if bytes.contains(&b'\'') && bytes.iter().enumerate().all(|(i, &c)| c_and_shell(i, c)) {
        return format!("\"{}\"", String::from_utf8_lossy(bytes));
    }
    let mut out = String::from("'");
    // Inside `$'...'` (after a byte that needed an escape).
    let mut escaping = false;
    for &c in bytes {
        let escaped = !(b' '..=b'~').contains(&c);
        if escaped && !escaping {
            out.push_str("'$'");
            escaping = true;
        } else if !escaped && escaping && c != b'\'' {
            out.push_str("''");
            escaping = false;
        }
        match c {
            b'\'' => {
                out.push_str("'\\''");
                escaping = false;
            }
            0 => out.push_str("\\0"),
            _ if escaped => push_c_byte(&mut out, c),
            _ => out.push(char::from(c)),
        }
    }
    out.push('\'');
    out
}

/// An I/O error's text as `strerror` gives it ("No such file or directory").
fn strerror(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// Random bytes for [`GnuRandom`] when there is no `--random-source`: fairdeal's default
/// generator, seeded by the operating system.
struct GeneratorBytes(<DefaultBackend as Backend>::Rng);

impl Read for GeneratorBytes {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use fairdeal::Rng as _;
        self.0.fill_bytes(buf);
        Ok(buf.len())
    }
}

/// Where the random bytes come from, with the name errors mention.
struct Source {
    gnu: GnuRandom<Box<dyn Read>>,
    name: Option<PathBuf>,
}

impl Source {
    /// `stdin_file`: the single input FILE GNU would have reopened as standard input, which
    /// a source named `/dev/stdin` (`/dev/fd/0`, `/proc/self/fd/0`) then means.
    fn open(path: Option<&Path>, stdin_file: Option<&Path>) -> anyhow::Result<Self> {
        let reader: Box<dyn Read> = match path {
            Some(path) => {
                let names_stdin = ["/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]
                    .iter()
                    .any(|name| path == Path::new(name));
                let opened = match stdin_file {
                    Some(file) if names_stdin => File::open(file),
                    _ => File::open(path),
                };
                Box::new(BufReader::new(
                    opened.map_err(|e| anyhow!("{}: {}", quotef(path), strerror(&e)))?,
                ))
            }
            None => Box::new(GeneratorBytes(
                DefaultBackend::from_os().map_err(|e| anyhow!("getrandom: {e}"))?,
            )),
        };
        Ok(Self {
            gnu: GnuRandom::new(reader),
            name: path.map(Path::to_path_buf),
        })
    }

    /// GNU's message for a failed draw.
    fn error(&self, err: GnuError) -> anyhow::Error {
        let name = self.name.as_ref().map_or_else(
            || "getrandom".to_owned(),
            |p| quote(p.as_os_str().as_encoded_bytes()),
        );
        match err {
            GnuError::EndOfFile => anyhow!("{name}: end of file"),
            GnuError::Read(e) => anyhow!("{name}: read error: {}", strerror(&e)),
            GnuError::MemoryExhausted => anyhow!("memory exhausted"),
            other => anyhow!("{name}: {other}"),
        }
    }

    fn choose(&mut self, n: u64) -> anyhow::Result<u64> {
        self.gnu.choose(n).map_err(|e| self.error(e))
    }
}

/// The input stream: the files one after the other (or standard input), and its size when
/// known (all regular files).
struct Stream {
    reader: Box<dyn BufRead>,
    size: Option<u64>,
}

fn open_stream(files: &[OsString], separator: u8) -> anyhow::Result<Stream> {
    let stdin_only = files.is_empty() || (files.len() == 1 && files[0] == "-");
    if stdin_only {
        return Ok(Stream {
            size: stdin_size(),
            reader: Box::new(BufReader::new(crate::closed_stdio::stdin())),
        });
    }
    let mut chain: Box<dyn Read> = Box::new(io::empty());
    let mut size = Some(0u64);
    for name in files {
        let path = Path::new(name);
        let file = File::open(path).map_err(|e| anyhow!("{}: {}", quotef(path), strerror(&e)))?;
        let known = file
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map(|m| m.len());
        // The files' own sizes, as GNU's plan reads them (the separator `Terminated` may add
        // is not counted).
        size = size.zip(known).map(|(a, b)| a + b);
        chain = Box::new(chain.chain(Terminated::new(file, separator)));
    }
    Ok(Stream {
        reader: Box::new(BufReader::new(chain)),
        size,
    })
}

/// A reader that ends with `separator`: when its input's last byte is another one, it adds
/// one, so files read one after the other keep their records apart (`printf 'a\nb\nc'`
/// followed by `d\n` is four records, `c` and `d`, as every other mode of `fairdeal shuffle`
/// reads them, not `cd`).
struct Terminated<R> {
    inner: R,
    separator: u8,
    /// The last byte read, `None` before the first.
    last: Option<u8>,
    /// Whether the added separator was given (or none was needed).
    finished: bool,
}

impl<R: Read> Terminated<R> {
    fn new(inner: R, separator: u8) -> Self {
        Self {
            inner,
            separator,
            last: None,
            finished: false,
        }
    }
}

impl<R: Read> Read for Terminated<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.finished || buf.is_empty() {
            return Ok(0);
        }
        let read = self.inner.read(buf)?;
        if read > 0 {
            self.last = Some(buf[read - 1]);
            return Ok(read);
        }
        self.finished = true;
        match self.last {
            Some(last) if last != self.separator => {
                buf[0] = self.separator;
                Ok(1)
            }
            _ => Ok(0),
        }
    }
}

/// The bytes left in standard input when it is a regular file; `None` for a pipe or terminal.
fn stdin_size() -> Option<u64> {
    #[cfg(unix)]
    {
        use std::io::Seek as _;
        use std::os::fd::AsFd as _;
        let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
        let mut file = File::from(fd);
        let meta = file.metadata().ok().filter(std::fs::Metadata::is_file)?;
        let position = file.stream_position().ok()?;
        Some(meta.len().saturating_sub(position))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The next record, with its separator (added when the input's last record lacks one).
fn next_record(reader: &mut dyn BufRead, separator: u8) -> anyhow::Result<Option<Vec<u8>>> {
    let mut record = Vec::new();
    let read = reader
        .read_until(separator, &mut record)
        .map_err(|e| anyhow!("read error: {}", strerror(&e)))?;
    if read == 0 {
        return Ok(None);
    }
    if record.last() != Some(&separator) {
        record.push(separator);
    }
    Ok(Some(record))
}

/// Runs GNU shuf's algorithm on `job`: the same draws, in the same order, from the same bytes,
/// with the same errors, as coreutils' `shuf`.
pub(crate) fn run_gnu(job: GnuJob) -> anyhow::Result<()> {
    let head = job.head.unwrap_or(u64::MAX);
    let separator = job.separator;
    let mut lines = Lines::default();
    let mut range = None;
    let mut reservoir_input = None;
    // GNU reopens a single input FILE as its standard input (`freopen`), so a random source
    // named `/dev/stdin` then reads FILE, from its start.
    let mut stdin_file = None;
    let n: u64 = if head == 0 {
        0
    } else {
        match job.input {
            GnuInput::Echo(args) => {
                for arg in args {
                    lines.push(arg.as_encoded_bytes(), separator)?;
                }
                lines.len() as u64
            }
            GnuInput::Range { lo, hi } => {
                range = Some(lo);
                // A valid range holds at most 2^64 - 1 numbers.
                hi.wrapping_sub(lo).wrapping_add(1)
            }
            GnuInput::Files(files) => {
                if let [file] = files.as_slice()
                    && file != "-"
                {
                    stdin_file = Some(PathBuf::from(file));
                }
                let mut stream = open_stream(&files, separator)?;
                let kind = GnuInputKind::Stream { bytes: stream.size };
                if GnuSampler::plan(job.head, job.repeat, kind) != GnuSampler::Reservoir {
                    if let Some(size) = stream.size {
                        lines.reserve_bytes(size)?;
                    }
                    let limit = job.load_limit.map(fairdeal_external::MemoryBudget::bytes);
                    if !lines.read_all(&mut *stream.reader, separator, limit)? {
                        let refused = fairdeal_external::plan::PlanError::GnuBeyondBudget {
                            budget: job.load_limit.expect("a limit was exceeded"),
                            size: stream.size,
                        };
                        return Err(crate::common::usage(refused.to_string()));
                    }
                    lines.len() as u64
                } else {
                    reservoir_input = Some(stream.reader);
                    u64::MAX
                }
            }
        }
    };
    let mut ahead = if job.repeat || head < n { head } else { n };
    let opens = reservoir_input.is_some() || job.repeat || gnu_opens_source(ahead, n);
    let mut source = if opens {
        Some(Source::open(
            job.random_source.as_deref(),
            stdin_file.as_deref(),
        )?)
    } else {
        None
    };
    let mut n = n;
    if let (Some(mut reader), Some(source)) = (reservoir_input, source.as_mut()) {
        let k = usize::try_from(head).unwrap_or(usize::MAX);
        let gnu = &mut source.gnu;
        let sampled: Result<Vec<Vec<u8>>, SampleError> = gnu.reservoir_sample(k, || {
            next_record(&mut *reader, separator).map_err(SampleError::Input)
        });
        let sampled = sampled.map_err(|e| match e {
            SampleError::Input(e) => e,
            SampleError::Random(e) => source.error(e),
        })?;
        for record in sampled {
            // Each record already ends with its separator.
            lines.push_record(&record)?;
        }
        n = lines.len() as u64;
        ahead = n;
    }
    let permutation = if job.repeat {
        Vec::new()
    } else {
        if gnu_randperm_bytes(ahead, n) > memory_limit() {
            return Err(anyhow!("memory exhausted"));
        }
        match source.as_mut() {
            Some(source) => source.gnu.randperm(ahead, n).map_err(|e| source.error(e))?,
            None => Vec::new(),
        }
    };
    let mut out = Output::gnu(job.output.as_deref()).map_err(|e| {
        let path = job.output.as_deref().unwrap_or(Path::new("-"));
        anyhow!("{}: {}", quotef(path), strerror(&e))
    })?;
    let written = write_output(
        &mut out,
        job.repeat,
        head,
        n,
        range,
        &lines,
        &permutation,
        source.as_mut(),
        separator,
    );
    // Whatever was written before a failure (e.g. -r running out of random bytes) reaches
    // the output, as with GNU.
    if written.is_err() {
        let _ = out.flush();
    }
    written?;
    out.commit().map_err(|e| {
        if crate::common::is_broken_pipe(&e) {
            e
        } else {
            anyhow!("write error: {}", e.root_cause())
        }
    })
}

/// Writes the output: `ahead`-prefix of the permutation, or `-r`'s independent draws.
#[allow(clippy::too_many_arguments)]
fn write_output(
    out: &mut Output,
    repeat: bool,
    head: u64,
    n: u64,
    range: Option<u64>,
    lines: &Lines,
    permutation: &[u64],
    source: Option<&mut Source>,
    separator: u8,
) -> anyhow::Result<()> {
    let write_error = |e: io::Error| anyhow::Error::new(e).context("write error");
    let mut number = Vec::new();
    let mut emit = |out: &mut Output, index: u64| -> anyhow::Result<()> {
        match range {
            Some(lo) => {
                number.clear();
                write!(number, "{}", lo + index).expect("writing to a Vec");
                number.push(separator);
                out.write_all(&number).map_err(write_error)
            }
            None => out
                .write_all(lines.get(usize::try_from(index).expect("an index of a held line")))
                .map_err(write_error),
        }
    };
    if repeat {
        if head == 0 {
            return Ok(());
        }
        if n == 0 {
            return Err(anyhow!("no lines to repeat"));
        }
        let source = source.expect("-r opens the random source");
        for _ in 0..head {
            let index = source.choose(n)?;
            emit(out, index)?;
        }
        return Ok(());
    }
    for &index in permutation {
        emit(out, index)?;
    }
    Ok(())
}

/// The held lines, each with its separator, one after the other in one buffer, and where each
/// ends: 4 bytes per line beside its bytes for input under 4 GiB (8 above), where GNU keeps an
/// 8-byte pointer per line and a `Vec` per line cost 24 bytes and the allocator's overhead on
/// top (2.6 times GNU's memory on 20 M short lines). Every allocation is fallible: running out
/// of memory is GNU's `memory exhausted`, exit 1, not an abort.
#[derive(Default)]
struct Lines {
    bytes: Vec<u8>,
    ends: Ends,
}

/// Where each held line ends in [`Lines::bytes`].
enum Ends {
    /// Every end below 2^32.
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl Default for Ends {
    fn default() -> Self {
        Self::Narrow(Vec::new())
    }
}

impl Ends {
    fn len(&self) -> usize {
        match self {
            Self::Narrow(ends) => ends.len(),
            Self::Wide(ends) => ends.len(),
        }
    }

    fn get(&self, index: usize) -> usize {
        match self {
            Self::Narrow(ends) => ends[index] as usize,
            Self::Wide(ends) => ends[index],
        }
    }

    /// Room for `more` ends up to `last`, exactly.
    fn reserve_exact(&mut self, more: usize, last: usize) -> anyhow::Result<()> {
        if u32::try_from(last).is_err() {
            self.widen()?;
        }
        match self {
            Self::Narrow(ends) => ends.try_reserve_exact(more),
            Self::Wide(ends) => ends.try_reserve_exact(more),
        }
        .map_err(memory_exhausted)
    }

    fn push(&mut self, end: usize) -> anyhow::Result<()> {
        if u32::try_from(end).is_err() {
            self.widen()?;
        }
        match self {
            Self::Narrow(ends) => {
                ends.try_reserve(1).map_err(memory_exhausted)?;
                ends.push(u32::try_from(end).expect("narrow ends are below 2^32"));
            }
            Self::Wide(ends) => {
                ends.try_reserve(1).map_err(memory_exhausted)?;
                ends.push(end);
            }
        }
        Ok(())
    }

    fn widen(&mut self) -> anyhow::Result<()> {
        if let Self::Narrow(narrow) = self {
            let mut wide = Vec::new();
            wide.try_reserve_exact(narrow.len() + 1)
                .map_err(memory_exhausted)?;
            wide.extend(narrow.iter().map(|&end| end as usize));
            *self = Self::Wide(wide);
        }
        Ok(())
    }
}

fn memory_exhausted(_: std::collections::TryReserveError) -> anyhow::Error {
    anyhow!("memory exhausted")
}

impl Lines {
    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Line `index`, with its separator.
    fn get(&self, index: usize) -> &[u8] {
        let start = index
            .checked_sub(1)
            .map_or(0, |before| self.ends.get(before));
        &self.bytes[start..self.ends.get(index)]
    }

    /// Room for `size` more bytes of lines (the input's size, when known), so the buffer is
    /// allocated once instead of grown.
    fn reserve_bytes(&mut self, size: u64) -> anyhow::Result<()> {
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        self.bytes
            .try_reserve_exact(size.saturating_add(1))
            .map_err(memory_exhausted)
    }

    /// Adds `line` and then `separator`.
    fn push(&mut self, line: &[u8], separator: u8) -> anyhow::Result<()> {
        self.bytes
            .try_reserve(line.len() + 1)
            .map_err(memory_exhausted)?;
        self.bytes.extend_from_slice(line);
        self.bytes.push(separator);
        self.end_line()
    }

    /// Adds a record that already ends with its separator.
    fn push_record(&mut self, record: &[u8]) -> anyhow::Result<()> {
        self.bytes
            .try_reserve(record.len())
            .map_err(memory_exhausted)?;
        self.bytes.extend_from_slice(record);
        self.end_line()
    }

    fn end_line(&mut self) -> anyhow::Result<()> {
        self.ends.push(self.bytes.len())
    }

    /// Reads all of `reader` (a separator added after an unterminated last record), then
    /// indexes its lines, the index allocated once at its exact size (GNU reads its input
    /// whole and then counts its lines too). `false`, with nothing indexed, when the bytes
    /// held exceed `limit`.
    fn read_all(
        &mut self,
        reader: &mut dyn BufRead,
        separator: u8,
        limit: Option<u64>,
    ) -> anyhow::Result<bool> {
        let start = self.bytes.len();
        let over = |held: usize| limit.is_some_and(|limit| held as u64 > limit);
        loop {
            let available = match reader.fill_buf() {
                Ok(available) => available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(anyhow!("read error: {}", strerror(&e))),
            };
            if available.is_empty() {
                break;
            }
            let take = available.len();
            self.bytes.try_reserve(take).map_err(memory_exhausted)?;
            self.bytes.extend_from_slice(available);
            reader.consume(take);
            if over(self.bytes.len()) {
                return Ok(false);
            }
        }
        if self.bytes.len() > start && self.bytes.last() != Some(&separator) {
            self.bytes.try_reserve(1).map_err(memory_exhausted)?;
            self.bytes.push(separator);
            if over(self.bytes.len()) {
                return Ok(false);
            }
        }
        let read = &self.bytes[start..];
        let count = memchr::memchr_iter(separator, read).count();
        self.ends.reserve_exact(count, self.bytes.len())?;
        for at in memchr::memchr_iter(separator, read) {
            self.ends.push(start + at + 1)?;
        }
        Ok(true)
    }
}

/// What [`GnuRandom::reservoir_sample`] can fail with here.
enum SampleError {
    Input(anyhow::Error),
    Random(GnuError),
}

impl From<GnuError> for SampleError {
    fn from(e: GnuError) -> Self {
        Self::Random(e)
    }
}

/// The most bytes a permutation may take before it is "memory exhausted": the machine's
/// physical memory (unknown: no limit).
fn memory_limit() -> u64 {
    fairdeal_external::physical_memory().unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_read_as_coreutils_reads_them() {
        assert_eq!(parse_count(" +3"), Count::Value(3));
        assert_eq!(parse_count("03"), Count::Value(3));
        assert_eq!(parse_count("18446744073709551616"), Count::Overflow);
        for bad in ["", "3 ", "-1", " -0", "0x3", "3k", "+"] {
            assert_eq!(parse_count(bad), Count::Invalid, "{bad:?}");
        }
    }

    #[test]
    fn ranges_read_as_coreutils_reads_them() {
        assert_eq!(parse_gnu_range(b" 1-+3"), Ok((1, 3)));
        assert_eq!(parse_gnu_range(b"3-2"), Ok((3, 2)));
        let max = u64::MAX;
        assert_eq!(
            parse_gnu_range(format!("{max}-{max}").as_bytes()),
            Ok((max, max))
        );
        assert_eq!(parse_gnu_range(format!("1-{max}").as_bytes()), Ok((1, max)));
        let cases = [
            ("1", "invalid input range: '1'"),
            ("1 -3", "invalid input range: '1 '"),
            ("-1-3", "invalid input range: ''"),
            ("1--3", "invalid input range: '-3'"),
            ("5-3", "invalid input range: '5-3'"),
        ];
        for (text, message) in cases {
            assert_eq!(
                parse_gnu_range(text.as_bytes()).unwrap_err(),
                message,
                "{text}"
            );
        }
        assert!(parse_gnu_range(format!("0-{max}").as_bytes()).is_err());
        assert!(
            parse_gnu_range(b"5-18446744073709551616")
                .unwrap_err()
                .ends_with("'18446744073709551616': Value too large for defined data type")
        );
    }

    /// Probe row P7: names and values that are not printable ASCII are quoted as coreutils
    /// 9.1 quotes them in the C locale (each expected text is GNU's own output), not
    /// replaced by U+FFFD.
    #[test]
    fn quoting_is_gnus() {
        let cases: [(&[u8], &str); 19] = [
            (b"\xff.txt", r"''$'\377''.txt'"),
            (b"a\tb", r"'a'$'\t''b'"),
            (b"a'b", r#""a'b""#),
            (b"a b", "'a b'"),
            (b"\x01x", r"''$'\001''x'"),
            (b"a\nb", r"'a'$'\n''b'"),
            ("\u{e9}.txt".as_bytes(), r"''$'\303\251''.txt'"),
            (b"~x", "'~x'"),
            (b"a~", "a~"),
            (b"a!", "'a!'"),
            (b"{a", "{a"),
            (b"{", "'{'"),
            (b"\xff'", r"''$'\377'\'''"),
            (b"a:b", "'a:b'"),
            (b"a=b", "'a=b'"),
            (b"a^b", "'a^b'"),
            (b"", "''"),
            (b"a\\b", r"'a\b'"),
            (b"o\xff/x", r"'o'$'\377''/x'"),
        ];
        for (name, gnu) in cases {
            use std::os::unix::ffi::OsStrExt as _;
            assert_eq!(quotef(Path::new(OsStr::from_bytes(name))), gnu, "{name:?}");
        }
        assert_eq!(quote(b"e\xff:"), r"'e\377:'");
        assert_eq!(quote(b"e'x"), r"'e\'x'");
        assert_eq!(
            parse_gnu_range(b"\xff-3").unwrap_err(),
            r"invalid input range: '\377'"
        );
    }

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
