//! GNU's quoting of names and values in messages, in the C locale (gnulib's `quotearg`), and
//! strerror's words for an I/O error: the `shuf` personality's messages are coreutils' byte for
//! byte.

use std::io;
use std::path::Path;

/// GNU's `quote` in the C locale (gnulib's `locale_quoting_style`): `'text'`, with `\'`,
/// `\\`, C escapes for control characters and octal (`\377`) for every other byte that is
/// not printable ASCII.
pub(super) fn quote(text: &[u8]) -> String {
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
pub(super) fn quotef(name: &Path) -> String {
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
pub(super) fn strerror(err: &io::Error) -> String {
    without_os_error(&err.to_string()).to_owned()
}

/// `message` without the " (os error N)" Rust ends an I/O error's text with: strerror's words.
pub(super) fn without_os_error(message: &str) -> &str {
    match (message.find(" (os error "), message.ends_with(')')) {
        (Some(cut), true) => &message[..cut],
        _ => message,
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
}
