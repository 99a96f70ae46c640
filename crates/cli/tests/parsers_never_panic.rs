//! Property tests for the text a user types into the CLI's own parsers: `-i LO-HI` ranges,
//! `-n K`, the blackjack rule names and `--spread`, and card strings. Whatever the text, the
//! binary either succeeds or keeps the error contract (non-zero exit, one line
//! `fairdeal: error: ...`, never a panic); valid text means what it says.
//!
//! Each case starts the binary, so the case counts are small; the library parsers behind card
//! strings have cargo-fuzz targets too (`fuzz/`, docs/testing.md).

mod common;

use common::{Run, fairdeal};
use proptest::prelude::*;

/// Either a clean success or the error contract; returns stdout on success.
fn success_or_clean_error(run: Run) -> Option<String> {
    if run.status == Some(0) {
        Some(run.ok().text())
    } else {
        let _ = run.error();
        None
    }
}

/// Text near the parsers' grammar (digits, dashes, card letters, separators) or anything.
fn hostile_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9 +-]{0,24}",
        "[0-9]{18,22}-[0-9]{18,22}",
        "[0-9AKQJTakqjtshdcx:, -]{0,16}",
        any::<String>().prop_map(|s| s.chars().take(12).collect()),
    ]
    // A leading `-` makes clap read an option: still a clean error, but not the parser's.
    .prop_map(|s| s.trim_start_matches('-').to_owned())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn input_ranges_never_panic(range in hostile_text()) {
        let run = fairdeal(&["shuffle", "-i", &range, "-n", "3", "--seed", "1"]);
        if let Some(out) = success_or_clean_error(run) {
            prop_assert!(out.lines().count() <= 3, "{out}");
        }
    }

    #[test]
    fn a_valid_range_prints_exactly_its_numbers(lo in 0u64..=u64::MAX - 40, len in 1u64..40) {
        let hi = lo + len - 1;
        let out = fairdeal(&["shuffle", "-i", &format!("{lo}-{hi}"), "--seed", "7"]).ok();
        let mut numbers = out.numbers();
        numbers.sort_unstable();
        prop_assert_eq!(numbers, (lo..=hi).collect::<Vec<u64>>());
    }

    #[test]
    fn head_counts_never_panic(k in hostile_text()) {
        let run = fairdeal(&["shuffle", "-i", "1-10", "-n", &k, "--seed", "1"]);
        if let Some(out) = success_or_clean_error(run) {
            prop_assert!(out.lines().count() <= 10, "{out}");
        }
    }

    #[test]
    fn blackjack_rule_names_never_panic(
        double in prop_oneof![Just("any".to_owned()), Just("9-11".to_owned()), hostile_text()],
        surrender in prop_oneof![Just("late".to_owned()), Just("none".to_owned()), hostile_text()],
        payout in prop_oneof![Just("6:5".to_owned()), Just("3:2".to_owned()), hostile_text()],
        decks in prop_oneof![Just("1".to_owned()), Just("8".to_owned()), hostile_text()],
    ) {
        let run = fairdeal(&[
            "blackjack", "simulate", "--rounds", "10", "--seed", "1", "--threads", "1",
            "--double", &double, "--surrender", &surrender, "--payout", &payout,
            "--decks", &decks,
        ]);
        success_or_clean_error(run);
    }

    #[test]
    fn bet_spreads_never_panic(spread in hostile_text()) {
        let run = fairdeal(&[
            "blackjack", "simulate", "--rounds", "10", "--seed", "1", "--threads", "1",
            "--counting", "hilo", "--spread", &spread,
        ]);
        success_or_clean_error(run);
    }

    #[test]
    fn card_strings_never_panic(hand in hostile_text()) {
        // A full board keeps every accepted spot's enumeration tiny.
        let run = fairdeal(&["poker", "equity", &hand, "KdKc", "--board", "2c 7d 9h 4s 3s"]);
        success_or_clean_error(run);
    }
}
