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
