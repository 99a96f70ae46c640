//! Permutations written as text by any program: one per line, items separated by whitespace
//! or commas, items any tokens. This is the input of `fairdeal audit`, parsed here (not in the
//! CLI) so that it is a library API with a typed error, property-tested and fuzzable.

use std::collections::HashMap;

use crate::MAX_POSITION_N;

/// The longest line [`PermutationParser::parse_line`] accepts, not counting its line ending:
/// far more than [`MAX_POSITION_N`] items need, small enough that a file without newlines
/// cannot exhaust memory (a reader should read at most `MAX_LINE_BYTES + 2` bytes per line).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most characters of an item an error message quotes.
const SHOWN_CHARS: usize = 40;

/// Why a line is not a permutation of the first line's items. Every variant names the line
/// (counted from 1, blank lines included), so the message points at the problem.
///
/// ```
/// use fairdeal_fairness::PermutationParser;
/// let mut parser = PermutationParser::new();
/// parser.parse_line(b"a b c").unwrap();
/// let err = parser.parse_line(b"c a").unwrap_err();
/// assert_eq!(err.to_string(), "line 2: 2 items, but line 1 has 3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line is longer than [`MAX_LINE_BYTES`].
    #[error("line {line} is longer than {max} bytes", max = MAX_LINE_BYTES)]
    TooLong {
        /// The line's number.
        line: u64,
    },
    /// The first line has fewer than 2 distinct items: nothing to shuffle.
    #[error("line {line} has {items} item(s): a permutation needs at least 2")]
    TooFewItems {
        /// The line's number.
        line: u64,
        /// How many items it has.
        items: usize,
    },
    /// The first line has more items than the position test counts.
    #[error("line {line} has {items} items: at most {max} are supported", max = MAX_POSITION_N)]
    TooManyItems {
        /// The line's number.
        line: u64,
        /// How many items it has.
        items: usize,
    },
    /// An item appears twice on one line.
    #[error("line {line}: item '{item}' appears twice")]
    Repeated {
        /// The line's number.
        line: u64,
        /// The item (its first 40 characters).
        item: String,
    },
    /// A later line has an item the first line does not.
    #[error("line {line}: item '{item}' is not on line {first}")]
    Unknown {
        /// The line's number.
        line: u64,
        /// The item (its first 40 characters).
        item: String,
        /// The number of the first (defining) line.
        first: u64,
    },
    /// A later line has fewer items than the first.
    #[error("line {line}: {found} items, but line {first} has {expected}")]
    WrongLength {
        /// The line's number.
        line: u64,
        /// How many items it has.
        found: usize,
        /// How many the first line has.
        expected: usize,
        /// The number of the first (defining) line.
        first: u64,
    },
}

/// Splits a line into its items: the runs of bytes other than ASCII whitespace and commas.
///
/// A line written as a Python list or a JSON array — `[0, 1, 2]`, `['As', 'Kd']`,
/// `["As","Kd"]` — reads as its elements: one pair of brackets around the whole line is
/// dropped, and so is one pair of matching quotes around an item.
///
/// ```
/// let items: Vec<&[u8]> = fairdeal_fairness::split_items(b" As,Kd\t10c ,, x\r\n").collect();
/// assert_eq!(items, [&b"As"[..], b"Kd", b"10c", b"x"]);
/// let items: Vec<&[u8]> = fairdeal_fairness::split_items(b"['As', \"Kd\", 3]").collect();
/// assert_eq!(items, [&b"As"[..], b"Kd", b"3"]);
/// ```
pub fn split_items(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    let trimmed = line.trim_ascii();
    let inner = trimmed
        .strip_prefix(b"[")
        .and_then(|rest| rest.strip_suffix(b"]"))
        .unwrap_or(trimmed);
    inner
        .split(|&b| b.is_ascii_whitespace() || b == b',')
        .map(unquote)
        .filter(|item| !item.is_empty())
}

/// An item without one pair of matching surrounding quotes (`'As'`, `"As"`).
fn unquote(item: &[u8]) -> &[u8] {
    match item {
        [open @ (b'"' | b'\''), middle @ .., close] if open == close => middle,
        _ => item,
    }
}

/// An item as an error message or a report shows it: lossy UTF-8, at most 40 characters.
pub fn show_item(item: &[u8]) -> String {
    let text = String::from_utf8_lossy(item);
    if text.chars().count() > SHOWN_CHARS {
        format!("{}…", text.chars().take(SHOWN_CHARS).collect::<String>())
    } else {
        text.into_owned()
    }
}

/// Turns lines of text into permutations of `[0, n)`, one line at a time.
///
/// The first non-blank line fixes the items and numbers them in its order (so it reads as the
/// identity); every later non-blank line must order exactly the same items, and comes back as
/// the positions of its items in the first line. Memory is the first line's items plus O(n):
/// feed it a file line by line and nothing else is kept.
///
/// ```
/// use fairdeal_fairness::PermutationParser;
/// let mut parser = PermutationParser::new();
/// assert_eq!(parser.parse_line(b"As Kd Qh\n").unwrap(), Some(&[0, 1, 2][..]));
/// assert_eq!(parser.parse_line(b"\n").unwrap(), None); // blank lines count for nothing
/// assert_eq!(parser.parse_line(b"Qh,As,Kd").unwrap(), Some(&[2, 0, 1][..]));
/// assert_eq!(parser.items().len(), 3);
/// assert_eq!(
///     parser.parse_line(b"As As Kd").unwrap_err().to_string(),
///     "line 4: item 'As' appears twice"
/// );
/// ```
#[derive(Debug, Default, Clone)]
pub struct PermutationParser {
    items: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, usize>,
    /// The number of the line that defined the items (0 before one has).
    first_line: u64,
    /// The number of the last line fed.
    line: u64,
    /// The last line's permutation and which items it has seen, reused per line.
    perm: Vec<usize>,
    seen: Vec<bool>,
}

impl PermutationParser {
    /// A parser that has seen no lines.
    pub fn new() -> Self {
        Self::default()
    }

    /// The items of the first line, in its order (empty before it).
    pub fn items(&self) -> &[Vec<u8>] {
        &self.items
    }

    /// The number of items per line, once the first line has been read.
    pub fn n(&self) -> Option<usize> {
        (!self.items.is_empty()).then_some(self.items.len())
    }

    /// How many lines have been fed, blank ones included.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// Parses the next line (a trailing `\n` or `\r\n` is allowed): `Ok(None)` for a blank
    /// line, else the line as a permutation of `[0, n)`. After an error the parser may be fed
    /// on, but the caller usually stops.
    pub fn parse_line(&mut self, line: &[u8]) -> Result<Option<&[usize]>, LineError> {
        self.line += 1;
        let number = self.line;
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body.len() > MAX_LINE_BYTES {
            return Err(LineError::TooLong { line: number });
        }
        if split_items(body).next().is_none() {
            return Ok(None);
        }
        if self.items.is_empty() {
            self.define(number, body)?;
        } else {
            self.reorder(number, body)?;
        }
        Ok(Some(&self.perm))
    }

    /// Reads the first line: its distinct items, in order.
    fn define(&mut self, number: u64, body: &[u8]) -> Result<(), LineError> {
        let mut index = HashMap::new();
        let mut items = Vec::new();
        for item in split_items(body) {
            if items.len() == MAX_POSITION_N {
                return Err(LineError::TooManyItems {
                    line: number,
                    items: split_items(body).count(),
                });
            }
            if index.insert(item.to_vec(), items.len()).is_some() {
                return Err(LineError::Repeated {
                    line: number,
                    item: show_item(item),
                });
            }
            items.push(item.to_vec());
        }
        if items.len() < 2 {
            return Err(LineError::TooFewItems {
                line: number,
                items: items.len(),
            });
        }
        self.perm = (0..items.len()).collect();
        self.seen = vec![false; items.len()];
        self.items = items;
        self.index = index;
        self.first_line = number;
        Ok(())
    }

    /// Reads a later line as positions in the first.
    fn reorder(&mut self, number: u64, body: &[u8]) -> Result<(), LineError> {
        let n = self.items.len();
        self.perm.clear();
        self.seen.fill(false);
        for item in split_items(body) {
            let Some(&index) = self.index.get(item) else {
                return Err(LineError::Unknown {
                    line: number,
                    item: show_item(item),
                    first: self.first_line,
                });
            };
            if std::mem::replace(&mut self.seen[index], true) {
                return Err(LineError::Repeated {
                    line: number,
                    item: show_item(item),
                });
            }
            self.perm.push(index);
        }
        if self.perm.len() != n {
            return Err(LineError::WrongLength {
                line: number,
                found: self.perm.len(),
                expected: n,
                first: self.first_line,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_exactly_the_limit_is_accepted_and_one_more_byte_is_not() {
        let mut parser = PermutationParser::new();
        let mut line = b"a b".to_vec();
        line.resize(MAX_LINE_BYTES, b' ');
        line.extend_from_slice(b"\r\n");
        assert_eq!(parser.parse_line(&line).unwrap(), Some(&[0, 1][..]));
        line.truncate(MAX_LINE_BYTES);
        line.push(b' ');
        assert_eq!(
            parser.parse_line(&line).unwrap_err(),
            LineError::TooLong { line: 2 }
        );
    }

    #[test]
    fn the_item_count_is_bounded() {
        let many: Vec<u8> = (0..=MAX_POSITION_N)
            .flat_map(|i| format!("{i} ").into_bytes())
            .collect();
        let err = PermutationParser::new().parse_line(&many).unwrap_err();
        assert_eq!(
            err,
            LineError::TooManyItems {
                line: 1,
                items: MAX_POSITION_N + 1
            }
        );
        let most: Vec<u8> = (0..MAX_POSITION_N)
            .flat_map(|i| format!("{i},").into_bytes())
            .collect();
        let mut parser = PermutationParser::new();
        assert_eq!(
            parser.parse_line(&most).unwrap().unwrap().len(),
            MAX_POSITION_N
        );
    }

    #[test]
    fn long_items_are_shortened_in_messages() {
        let long = "x".repeat(100);
        assert_eq!(show_item(long.as_bytes()), format!("{}…", "x".repeat(40)));
        assert_eq!(show_item(b"\xff9"), "\u{fffd}9");
    }
}
