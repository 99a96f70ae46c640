//! `fairdeal blackjack` from the outside: the dealer table, reproducible simulations, errors.

mod common;

use common::fairdeal;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let run = fairdeal(args).ok();
    serde_json::from_slice(&run.stdout).expect("valid JSON")
}

#[test]
fn dealer_table_has_the_issue_shape() {
    let v = json(&["blackjack", "dealer", "--json"]);
    let upcards = v["upcards"].as_object().unwrap();
    assert_eq!(upcards.len(), 10);
    for key in ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"] {
        let row = upcards[key].as_object().unwrap();
        let sum: f64 = ["17", "18", "19", "20", "21", "blackjack", "bust"]
            .iter()
            .map(|k| row[*k].as_f64().unwrap())
            .sum();
        assert!((sum - 1.0).abs() < 1e-12, "{key}");
    }
    // Infinite deck, S17: the dealer busts 35.3608 % of the time with a 2 up.
    assert!((v["upcards"]["2"]["bust"].as_f64().unwrap() - 0.353608).abs() < 1e-6);
    assert!((v["upcards"]["A"]["blackjack"].as_f64().unwrap() - 4.0 / 13.0).abs() < 1e-12);
    let h17 = json(&["blackjack", "dealer", "--h17", "--decks", "6", "--json"]);
    assert_eq!(h17["decks"], 6);
    assert!(h17["upcards"]["6"]["bust"].as_f64() > v["upcards"]["6"]["bust"].as_f64());
}

#[test]
fn simulation_is_reproducible_across_thread_counts() {
    let run = |threads: &'static str| {
        json(&[
            "blackjack",
            "simulate",
            "--rounds",
            "150000",
            "--seed",
            "5",
            "--threads",
            threads,
            "--h17",
            "--surrender",
            "late",
            "--json",
        ])
    };
    let (one, two) = (run("1"), run("2"));
    for key in [
        "house_edge_percent",
        "std_error_percent",
        "sd_per_round",
        "counts",
        "rules",
    ] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert_eq!(one["rounds"], 150_000);
    assert_eq!(one["rules"]["dealer"], "H17");
    assert_eq!(one["rules"]["surrender"], "late");
    assert!(one["counts"]["surrenders"].as_u64().unwrap() > 0);
    let se = one["std_error_percent"].as_f64().unwrap();
    assert!(se > 0.2 && se < 0.4, "{se}");
}

#[test]
fn bad_rules_and_values_are_one_line_usage_errors() {
    for args in [
        &["blackjack", "simulate", "--decks", "9"][..],
        &["blackjack", "simulate", "--decks", "1", "--seats", "7"],
        &["blackjack", "simulate", "--penetration", "1.5"],
        &[
            "blackjack",
            "simulate",
            "--no-hole-card",
            "--surrender",
            "late",
        ],
        &["blackjack", "simulate", "--payout", "7:5"],
        &[
            "blackjack",
            "simulate",
            "--counting",
            "hilo",
            "--spread",
            "8-2",
        ],
        &["blackjack", "simulate", "--rounds", "0"],
        &["blackjack", "simulate", "--algo", "bogosort"],
        &["blackjack", "dealer", "--decks", "12"],
    ] {
        let run = fairdeal(args);
        assert_eq!(run.status, Some(2), "{args:?}: {}", run.stderr);
        let line = run.error();
        assert!(line.starts_with("fairdeal: error: "), "{line}");
    }
}

#[test]
fn strategy_chart_prints() {
    let text = fairdeal(&["blackjack", "strategy", "--h17"]).ok().text();
    assert!(text.contains("A,A   P P P P P P P P P P"), "{text}");
    let v = json(&["blackjack", "strategy", "--json"]);
    assert_eq!(v["chart"].as_array().unwrap().len(), 34);
}

/// Wizard of Odds, Blackjack Appendix 9, page `1ds17r4` (1 deck, S17, DAS, resplit to 4 except
/// aces, 3:2, peek): "Expected return of game: 0.001839". The issue's tolerance: 0.00005.
const PUBLISHED_1D_S17_DAS: f64 = 0.001839;

#[test]
fn exact_reproduces_the_published_one_deck_return_with_the_issue_fields() {
    let v = json(&["blackjack", "exact", "--decks", "1", "--json"]);
    let er = v["expected_return"].as_f64().unwrap();
    assert!((er - PUBLISHED_1D_S17_DAS).abs() <= 0.00005, "{er}");
    let edge = v["house_edge_percent"].as_f64().unwrap();
    assert!((edge + 100.0 * er).abs() < 1e-12);
    assert_eq!(v["strategy"], "composition");
    assert_eq!(v["rules"]["decks"], 1);
    assert_eq!(v["rules"]["dealer"], "S17");
    assert_eq!(v["rules"]["double_after_split"], true);
    assert!(v["seconds"].as_f64().unwrap() >= 0.0);
    assert!(v.get("hands").is_none(), "the table only with --table");
    // The chart played against the same shoe gives up a measurable amount in one deck.
    let basic = json(&[
        "blackjack",
        "exact",
        "--decks",
        "1",
        "--strategy",
        "basic",
        "--json",
    ]);
    assert_eq!(basic["strategy"], "basic");
    assert!(basic["expected_return"].as_f64().unwrap() < er - 0.0003);
}

#[test]
fn exact_table_has_every_hand_and_the_published_values() {
    let v = json(&[
        "blackjack",
        "exact",
        "--decks",
        "2",
        "--h17",
        "--table",
        "--json",
    ]);
    let hands = v["hands"].as_array().unwrap();
    assert_eq!(hands.len(), 550, "10 upcards × 55 two-card hands");
    // Appendix 9, page 2dh17r4: dealer A, player 6,5: stand −0.587564, hit 0.121079,
    // double 0.166650 (given no dealer blackjack, as the table says).
    let h = hands
        .iter()
        .find(|h| h["upcard"] == "A" && h["hand"] == "6,5")
        .unwrap();
    assert_eq!(v["values_frame"], "given no dealer blackjack");
    for (key, published) in [
        ("stand", -0.587564),
        ("hit", 0.121079),
        ("double", 0.166650),
    ] {
        let got = h[key].as_f64().unwrap();
        assert!((got - published).abs() < 6e-7, "{key}: {got}");
    }
    assert_eq!(h["action"], "double");
    assert!(h["split"].is_null());
    let pair = hands
        .iter()
        .find(|h| h["upcard"] == "6" && h["hand"] == "8,8")
        .unwrap();
    assert_eq!(pair["action"], "split");
    let text = fairdeal(&["blackjack", "exact", "--decks", "1", "--table"])
        .ok()
        .text();
    assert!(text.contains("expected return: +0.00183"), "{text}");
    assert!(text.contains("up  hand"), "{text}");
    // Header plus one row per hand.
    assert_eq!(text.lines().filter(|l| l.starts_with("T ")).count(), 55);
}

#[test]
fn exact_refuses_what_it_cannot_analyse() {
    for args in [
        &["blackjack", "exact", "--decks", "9"][..],
        &["blackjack", "exact", "--decks", "0"],
        &["blackjack", "exact", "--decks", "-1"],
        &["blackjack", "exact", "--seats", "2"],
        &["blackjack", "exact", "--penetration", "0.5"],
        &["blackjack", "exact", "--strategy", "optimal"],
        &["blackjack", "exact", "--split-hands", "0"],
        &[
            "blackjack",
            "exact",
            "--no-hole-card",
            "--surrender",
            "late",
        ],
    ] {
        let run = fairdeal(args);
        assert_eq!(run.status, Some(2), "{args:?}: {}", run.stderr);
        run.error();
    }
}

#[test]
fn simulate_plays_composition_dependent_decisions_off_the_top() {
    let v = json(&[
        "blackjack",
        "simulate",
        "--decks",
        "1",
        "--shuffle-every-round",
        "--strategy",
        "composition",
        "--rounds",
        "20000",
        "--seed",
        "3",
        "--json",
    ]);
    assert_eq!(v["strategy"], "composition");
    assert_eq!(v["rounds"], 20_000);
    // A cut card or several seats change the cards seen: refused, not silently misplayed.
    for args in [
        &["blackjack", "simulate", "--strategy", "composition"][..],
        &[
            "blackjack",
            "simulate",
            "--strategy",
            "composition",
            "--shuffle-every-round",
            "--seats",
            "2",
        ],
    ] {
        let line = fairdeal(args).error();
        assert!(line.contains("--shuffle-every-round"), "{line}");
    }
}

// Rows of the hostile-input probe (shared/probes/cli-hostile-inputs.md).

/// Row 14: a tiny penetration is reported as given, not as a 300-digit decimal.
#[test]
fn hostile_14_tiny_penetration_is_a_short_message() {
    let line = fairdeal(&["blackjack", "simulate", "--penetration", "1e-300"]).error();
    assert!(line.contains("1e-300"), "{line}");
    assert!(line.len() < 160, "{line}");
}

/// Row 17: options that cannot change the infinite-deck chart are refused with the reason.
#[test]
fn hostile_17_strategy_refuses_shoe_options() {
    for args in [
        &["blackjack", "strategy", "--decks", "1"][..],
        &["blackjack", "strategy", "--decks", "8"],
        &["blackjack", "strategy", "--penetration", "0.5"],
        &["blackjack", "strategy", "--seats", "3"],
        &["blackjack", "strategy", "--shuffle-every-round"],
    ] {
        let run = fairdeal(args);
        assert_eq!(run.status, Some(2), "{args:?}");
        let line = run.error();
        assert!(
            line.contains("does not change the basic-strategy chart"),
            "{line}"
        );
        assert!(line.contains(args[2]), "{line}");
    }
}

/// Rows 18 and 19: one round has no standard error, and is "1 round".
#[test]
fn hostile_18_19_one_round() {
    let text = fairdeal(&["blackjack", "simulate", "--rounds", "1", "--seed", "1"])
        .ok()
        .text();
    assert!(text.contains("standard error undefined"), "{text}");
    assert!(!text.contains("± 0.0000%"), "{text}");
    assert!(text.contains("dealt 1 round with"), "{text}");
    let v = json(&[
        "blackjack",
        "simulate",
        "--rounds",
        "1",
        "--seed",
        "1",
        "--json",
    ]);
    assert!(v["std_error_percent"].is_null(), "{v}");
    assert!(v["sd_per_round"].is_null(), "{v}");
    let two = fairdeal(&["blackjack", "simulate", "--rounds", "2", "--seed", "1"])
        .ok()
        .text();
    assert!(two.contains("dealt 2 rounds with"), "{two}");
}

/// Row 9: the biased shuffle runs (it is the negative control) but says so on stderr.
#[test]
fn hostile_9_biased_algorithm_warns() {
    let run = fairdeal(&[
        "blackjack",
        "simulate",
        "--algo",
        "biased",
        "--rounds",
        "1000",
        "--seed",
        "1",
    ]);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.starts_with("fairdeal: warning: "),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("NOT a fair shuffle"), "{}", run.stderr);
    let fair = fairdeal(&["blackjack", "simulate", "--rounds", "1000", "--seed", "1"]);
    assert!(fair.stderr.is_empty(), "{}", fair.stderr);
}

/// Row 11 (blackjack options): negative numbers get a message about the value, not clap's
/// "unexpected argument '-1'"; and every count is bounded before work starts.
#[test]
fn hostile_11_negative_and_out_of_range_values_are_clear() {
    for (args, expect) in [
        (
            &["blackjack", "simulate", "--decks", "-1"][..],
            "not in 1..=8",
        ),
        (
            &["blackjack", "simulate", "--penetration", "-0.5"],
            "strictly between 0 and 1",
        ),
        (&["blackjack", "simulate", "--seed", "-1"], "not a seed"),
        (&["blackjack", "simulate", "--rounds", "-5"], "not in 1..="),
        (&["blackjack", "simulate", "--seats", "-1"], "not in 1..=7"),
        (&["blackjack", "simulate", "--threads", "-1"], "threads"),
        (&["blackjack", "dealer", "--decks", "-1"], "not in 0..=8"),
        (&["blackjack", "exact", "--decks", "-1"], "not in 1..=8"),
        // Bounds.
        (
            &["blackjack", "simulate", "--rounds", "1000000000001"],
            "not in 1..=",
        ),
        (&["blackjack", "simulate", "--rounds", "0"], "not in 1..="),
        (&["blackjack", "simulate", "--seats", "8"], "not in 1..=7"),
        (
            &["blackjack", "simulate", "--split-hands", "9"],
            "not in 1..=8",
        ),
        (
            &["blackjack", "simulate", "--threads", "1000000"],
            "allowed",
        ),
        (
            &[
                "blackjack",
                "simulate",
                "--counting",
                "hilo",
                "--spread",
                "1-1001",
            ],
            "exceeds 1000 units",
        ),
        (
            &[
                "blackjack",
                "simulate",
                "--counting",
                "hilo",
                "--spread",
                "-1-8",
            ],
            "MIN-MAX",
        ),
    ] {
        let run = fairdeal(args);
        assert_eq!(run.status, Some(2), "{args:?}: {}", run.stderr);
        let line = run.error();
        assert!(!line.contains("unexpected argument"), "{args:?}: {line}");
        assert!(line.contains(expect), "{args:?}: {line}");
    }
}
