//! Parsers of `fairdeal shuffle`'s numeric arguments, with GNU `shuf`'s syntax.

/// The integers `lo ..= lo + len - 1` of `shuffle -i LO-HI`; `len` may be 0 (`LO = HI + 1`,
/// an empty range, as `shuf` allows) or 2^64 (`0-18446744073709551615`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputRange {
    /// The first number.
    pub lo: u64,
    /// How many integers the range holds (up to 2^64, hence `u128`).
    pub len: u128,
}

impl InputRange {
    /// The last number of a non-empty range (for an empty one, `lo - 1` wrapped).
    pub fn hi(self) -> u64 {
        (u128::from(self.lo) + self.len).wrapping_sub(1) as u64
    }
}

/// Parses `LO-HI`: unsigned decimal integers with `LO <= HI + 1`. The error is the message
/// clap prints after `invalid value … for '-i'`.
///
/// ```
/// use fairdeal_cli::args::{InputRange, parse_range};
/// assert_eq!(parse_range("3-7"), Ok(InputRange { lo: 3, len: 5 }));
/// assert_eq!(parse_range("8-7").map(|r| r.len), Ok(0));
/// assert!(parse_range("7-5").unwrap_err().contains("reversed range"));
/// assert!(parse_range("-5").is_err());
/// ```
pub fn parse_range(text: &str) -> Result<InputRange, String> {
    let malformed =
        || format!("expected LO-HI with unsigned integers LO <= HI (e.g. 1-100), got '{text}'");
    let (lo, hi) = text.split_once('-').ok_or_else(malformed)?;
    let number = |s: &str| -> Result<u64, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        s.parse::<u64>()
            .map_err(|_| format!("'{s}' in range '{text}' is larger than {}", u64::MAX))
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    let len = (u128::from(hi) + 1)
        .checked_sub(u128::from(lo))
        .ok_or_else(|| {
            format!("reversed range '{text}': LO ({lo}) is greater than HI ({hi}) + 1")
        })?;
    Ok(InputRange { lo, len })
}

/// Parses `-n K`: a non-negative decimal integer. Values past `usize::MAX` saturate (a K
/// larger than the input prints all of it anyway).
///
/// ```
/// use fairdeal_cli::args::parse_head_count;
/// assert_eq!(parse_head_count("10"), Ok(10));
/// assert_eq!(parse_head_count("99999999999999999999999"), Ok(usize::MAX));
/// assert!(parse_head_count("-1").is_err());
/// ```
pub fn parse_head_count(text: &str) -> Result<usize, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("K must be a non-negative integer, got '{text}'"));
    }
    Ok(text.parse::<usize>().unwrap_or(usize::MAX))
}
