//! Properties of the audit input parser (hostile input never panics): any bytes give
//! a permutation, a blank line or a line-numbered error; permutations written with any
//! separators and tokens read back as themselves.

use fairdeal_fairness::{LineError, MAX_POSITION_N, PermutationParser, split_items};
use proptest::prelude::*;

/// Items as people write them: numbers, card names, words, punctuation, non-ASCII.
/// (No quotes: a pair of quotes around an item is syntax, as in Python's list repr, and is
/// removed; `quoted_items_read_as_their_text` covers them.)
fn item() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.:;♠♥♦♣é-]{1,6}"
}

/// Separators: any run of spaces, tabs and commas (at least one byte).
fn separator() -> impl Strategy<Value = String> {
    "[ \t,]{1,3}"
}

/// `n` distinct items and a list of permutations of them.
fn items_and_orders() -> impl Strategy<Value = (Vec<String>, Vec<Vec<usize>>)> {
    prop::collection::hash_set(item(), 2..12).prop_flat_map(|set| {
        let items: Vec<String> = set.into_iter().collect();
        let n = items.len();
        let orders =
            prop::collection::vec(Just((0..n).collect::<Vec<usize>>()).prop_shuffle(), 1..20);
        (Just(items), orders)
    })
}

fn render(items: &[String], order: &[usize], separators: &[String]) -> Vec<u8> {
    let mut line = String::new();
    for (k, &i) in order.iter().enumerate() {
        if k > 0 {
            line.push_str(&separators[k % separators.len()]);
        }
        line.push_str(&items[i]);
    }
    line.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Whatever the bytes, each line is a permutation of the first line's items, blank, or an
    /// error naming that line; never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(
        input in prop::collection::vec(
            prop_oneof![any::<u8>(), prop::sample::select(b"ab c,\n\r".to_vec())],
            0..400,
        )
    ) {
        let mut parser = PermutationParser::new();
        for (k, line) in input.split(|&b| b == b'\n').enumerate() {
            match parser.parse_line(line).map(|perm| perm.map(<[usize]>::to_vec)) {
                Ok(Some(perm)) => {
                    let n = parser.n().unwrap();
                    prop_assert_eq!(perm.len(), n);
                    let mut sorted = perm;
                    sorted.sort_unstable();
                    prop_assert_eq!(sorted, (0..n).collect::<Vec<_>>());
                }
                Ok(None) => prop_assert!(split_items(line).next().is_none()),
                Err(err) => {
                    let prefix = format!("line {}", k + 1);
                    prop_assert!(err.to_string().starts_with(&prefix), "{}", err);
                    break;
                }
            }
        }
    }

    /// Lines made of the first line's items, shuffled, repeated or dropped at random: accepted
    /// exactly when they are permutations.
    #[test]
    fn near_permutations_are_judged_exactly(
        (items, orders) in items_and_orders(),
        edits in prop::collection::vec((0..3u8, any::<prop::sample::Index>()), 1..20),
    ) {
        let mut parser = PermutationParser::new();
        let n = items.len();
        parser.parse_line(render(&items, &(0..n).collect::<Vec<_>>(), &[" ".into()]).as_slice()).unwrap();
        for (order, (edit, at)) in orders.iter().zip(&edits) {
            let mut edited = order.clone();
            match edit {
                0 => {}
                1 => {
                    edited.remove(at.index(n));
                }
                _ => {
                    let repeated = edited[at.index(n)];
                    edited.push(repeated);
                }
            };
            let result = parser.parse_line(&render(&items, &edited, &[",".into()]));
            match edit {
                0 => prop_assert_eq!(result.unwrap(), Some(&order[..])),
                1 => {
                    let is_wrong_length = matches!(
                        result,
                        Err(LineError::WrongLength { found, expected, .. }) if found == n - 1 && expected == n
                    );
                    prop_assert!(is_wrong_length);
                }
                _ => {
                    let is_repeated = matches!(result, Err(LineError::Repeated { .. }));
                    prop_assert!(is_repeated);
                }
            }
        }
    }

    /// Permutations written with any separators, line endings and blank lines read back as the
    /// same permutations, numbered by the first line's order.
    #[test]
    fn written_permutations_round_trip(
        (items, orders) in items_and_orders(),
        separators in prop::collection::vec(separator(), 1..4),
        crlf in any::<bool>(),
        blank_every in 1..5usize,
    ) {
        let ending: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut parser = PermutationParser::new();
        let n = items.len();
        let identity: Vec<usize> = (0..n).collect();
        let mut line = render(&items, &identity, &separators);
        line.extend_from_slice(ending);
        prop_assert_eq!(parser.parse_line(&line).unwrap(), Some(&identity[..]));
        for (k, order) in orders.iter().enumerate() {
            if k % blank_every == 0 {
                prop_assert_eq!(parser.parse_line(b" ,\t\r\n").unwrap(), None);
            }
            let mut line = render(&items, order, &separators);
            line.extend_from_slice(ending);
            prop_assert_eq!(parser.parse_line(&line).unwrap(), Some(&order[..]));
        }
        let read: Vec<&[u8]> = parser.items().iter().map(Vec::as_slice).collect();
        let written: Vec<&[u8]> = items.iter().map(String::as_bytes).collect();
        prop_assert_eq!(read, written);
    }
}

#[test]
fn the_first_line_bounds_the_work() {
    let mut parser = PermutationParser::new();
    let line: String = (0..=MAX_POSITION_N).map(|i| format!("{i} ")).collect();
    let err = parser.parse_line(line.as_bytes()).unwrap_err();
    assert!(err.to_string().contains("at most 1024"), "{err}");
    assert_eq!(parser.n(), None);
}

/// Python's list repr and JSON arrays: brackets around the line and a pair of quotes around
/// an item are syntax, so `['As', 'Kd']`, `["As","Kd"]` and `As Kd` are the same line.
#[test]
fn quoted_items_read_as_their_text() {
    let mut parser = PermutationParser::new();
    assert_eq!(
        parser.parse_line(b"['As', 'Kd', 'Qh']\n").unwrap(),
        Some(&[0, 1, 2][..])
    );
    assert_eq!(
        parser.parse_line(b"[\"Qh\",\"As\",\"Kd\"]\n").unwrap(),
        Some(&[2, 0, 1][..])
    );
    assert_eq!(
        parser.parse_line(b"Kd Qh As\n").unwrap(),
        Some(&[1, 2, 0][..])
    );
    // An unmatched quote is part of the item: `'As` is not `As`.
    assert!(parser.parse_line(b"'As Kd Qh\n").is_err());
}
