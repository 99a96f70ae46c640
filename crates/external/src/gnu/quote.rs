//! GNU's quoting of names and values in messages, in the C locale (gnulib's `quotearg`),
//! strerror's words for an I/O error, and coreutils' reading of counts and ranges
//! (`xstrtoumax`): what a caller needs to word [`GnuRunError`](super::GnuRunError)s and
//! command-line errors as coreutils' `shuf` does, byte for byte.

use std::io;
use std::path::Path;

/// GNU's `quote` in the C locale (gnulib's `locale_quoting_style`): `'text'`, with `\'`,
/// `\\`, C escapes for control characters and octal (`\377`) for every other byte that is
/// not printable ASCII.
pub fn quote(text: &[u8]) -> String {
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
pub fn quotef(name: &Path) -> String {
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
pub fn strerror(err: &io::Error) -> String {
    without_os_error(&err.to_string()).to_owned()
}

/// `message` without the " (os error N)" Rust ends an I/O error's text with: strerror's words.
pub fn without_os_error(message: &str) -> &str {
    match (message.find(" (os error "), message.ends_with(')')) {
        (Some(cut), true) => &message[..cut],
        _ => message,
    }
}

/// A number as GNU's `xstrtoumax` reads it ([`parse_count`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Count {
    /// The number.
    Value(u64),
    /// Digits too many for a `u64` (GNU reads a count so large as "no limit").
    Overflow,
    /// Not a number.
    Invalid,
}

/// Reads an unsigned decimal as coreutils does: leading white space and one `+` allowed, a
/// minus sign refused, nothing after the digits.
pub fn parse_count(text: &str) -> Count {
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\x0B', '\x0C', '\r']);
    let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Count::Invalid;
    }
    digits.parse().map_or(Count::Overflow, Count::Value)
}

/// `-i LO-HI` as GNU reads it: split at the first `-`, each side a number as [`parse_count`]
/// reads it, and `LO <= HI + 1` with at most `2^64 - 1` numbers.
///
/// # Errors
///
/// GNU's message, naming the part that is wrong (`invalid input range: '5-3'`).
pub fn parse_range(text: &[u8]) -> Result<(u64, u64), String> {
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

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

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
    }

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
        assert_eq!(parse_range(b" 1-+3"), Ok((1, 3)));
        assert_eq!(parse_range(b"3-2"), Ok((3, 2)));
        let max = u64::MAX;
        assert_eq!(
            parse_range(format!("{max}-{max}").as_bytes()),
            Ok((max, max))
        );
        assert_eq!(parse_range(format!("1-{max}").as_bytes()), Ok((1, max)));
        let cases = [
            ("1", "invalid input range: '1'"),
            ("1 -3", "invalid input range: '1 '"),
            ("-1-3", "invalid input range: ''"),
            ("1--3", "invalid input range: '-3'"),
            ("5-3", "invalid input range: '5-3'"),
        ];
        for (text, message) in cases {
            assert_eq!(parse_range(text.as_bytes()).unwrap_err(), message, "{text}");
        }
        assert!(parse_range(format!("0-{max}").as_bytes()).is_err());
        // Probe row P7: a byte that is not printable ASCII, quoted as GNU quotes it.
        assert_eq!(
            parse_range(b"\xff-3").unwrap_err(),
            r"invalid input range: '\377'"
        );
        assert!(
            parse_range(b"5-18446744073709551616")
                .unwrap_err()
                .ends_with("'18446744073709551616': Value too large for defined data type")
        );
    }
}
