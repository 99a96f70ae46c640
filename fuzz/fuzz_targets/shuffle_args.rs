//! `fairdeal shuffle -i LO-HI` and `-n K` (`fairdeal_cli::args`): never panic; a range that
//! parses holds exactly the integers of the text it came from (`LO` first, `HI` last, the
//! count between them), and prints back (`LO-HI`) to the same range; a count that parses is
//! the text's number, saturated at `usize::MAX`.
#![no_main]

use fairdeal_cli::args::{parse_head_count, parse_range};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(range) = parse_range(text) {
        let (lo, hi) = text.split_once('-').expect("a parsed range has a '-'");
        assert_eq!(range.lo, lo.parse::<u64>().unwrap(), "{text:?}");
        let hi: u128 = hi.parse().unwrap();
        assert_eq!(u128::from(range.lo) + range.len, hi + 1, "{text:?}");
        let printed = format!("{}-{}", range.lo, hi);
        assert_eq!(parse_range(&printed), Ok(range), "{text:?} printed as {printed:?}");
    }
    if let Ok(k) = parse_head_count(text) {
        let exact = text.parse::<u128>().unwrap_or(u128::MAX);
        assert_eq!(k as u128, exact.min(usize::MAX as u128), "{text:?}");
    }
});
