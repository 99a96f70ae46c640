//! The audit input format (`fairdeal audit perms.txt`): `PermutationParser::parse_line` never
//! panics on any bytes fed line by line; the first line it accepts reads as the identity, every
//! line it accepts comes back as a permutation of `[0, n)`, and printing that permutation back
//! as the first line's items gives a line that a fresh parser (fed the first line) reads as the
//! same permutation.
#![no_main]

use fairdeal_fairness::PermutationParser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parser = PermutationParser::new();
    let mut defining: Option<&[u8]> = None;
    for line in data.split_inclusive(|&b| b == b'\n') {
        let perm = match parser.parse_line(line) {
            Ok(Some(perm)) => perm.to_vec(),
            Ok(None) | Err(_) => continue,
        };
        let items = parser.items();
        let n = items.len();
        assert!(n >= 2, "accepted a line with {n} item(s)");
        let defining = *defining.get_or_insert(line);
        if defining == line {
            assert!(perm.iter().copied().eq(0..n), "first line read as {perm:?}");
        }
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        assert!(
            sorted.iter().copied().eq(0..n),
            "{perm:?} is not a permutation of 0..{n}"
        );

        let printed = perm
            .iter()
            .map(|&i| items[i].as_slice())
            .collect::<Vec<_>>()
            .join(&b' ');
        let mut fresh = PermutationParser::new();
        assert!(matches!(fresh.parse_line(defining), Ok(Some(_))));
        assert_eq!(
            fresh.parse_line(&printed),
            Ok(Some(&perm[..])),
            "{printed:?} did not re-parse"
        );
    }
});
