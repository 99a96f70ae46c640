//! `fairdeal poker` from the outside: the exact tables, Monte Carlo verdicts, equity, errors.

mod common;

use common::fairdeal;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let run = fairdeal(args).ok();
    serde_json::from_slice(&run.stdout).expect("valid JSON")
}

#[test]
fn exhaustive_five_card_table() {
    let v = json(&["poker", "table", "--exhaustive", "--cards", "5", "--json"]);
    assert_eq!(v["cards"], 5);
    assert_eq!(v["total"], 2_598_960);
    assert_eq!(v["counts"]["straight_flush"], 40);
    assert_eq!(v["counts"]["four_of_a_kind"], 624);
    assert_eq!(v["counts"]["full_house"], 3_744);
    assert_eq!(v["counts"]["high_card"], 1_302_540);
    let sum: f64 = v["exact"]
        .as_object()
        .unwrap()
        .values()
        .map(|p| p.as_f64().unwrap())
        .sum();
    assert!((sum - 1.0).abs() < 1e-12);
    assert!(v.get("p_value").is_none());
}

#[test]
fn monte_carlo_table_is_reproducible_and_judged() {
    let args = |threads: &'static str| {
        [
            "poker",
            "table",
            "--hands",
            "200000",
            "--seed",
            "5",
            "--threads",
            threads,
            "--json",
        ]
    };
    let one = json(&args("1"));
    assert_eq!(one, json(&args("2")));
    assert_eq!(one["total"], 200_000);
    assert_eq!(one["monte_carlo"]["algorithm"], "partial");
    assert!(one["p_value"].as_f64().unwrap() > 1e-6);

    let biased = json(&[
        "poker",
        "table",
        "--hands",
        "200000",
        "--algo",
        "biased",
        "--fresh-deck",
        "--seed",
        "5",
        "--json",
    ]);
    assert!(biased["p_value"].as_f64().unwrap() < 1e-9);

    let text = fairdeal(&["poker", "table", "--hands", "100000", "--seed", "3"])
        .ok()
        .text();
    assert!(text.contains("consistent with the exact table"), "{text}");
    assert!(text.contains("Straight flush"));
}

#[test]
fn equity_exact_and_monte_carlo() {
    let v = json(&["poker", "equity", "AsAh", "KsKd", "--json"]);
    assert_eq!(v["exact"], true);
    assert_eq!(v["trials"], 1_712_304);
    assert_eq!(v["players"][0]["hand"], "AsAh");
    let aa = v["players"][0]["equity"].as_f64().unwrap();
    assert!((aa - 0.8195).abs() < 0.0001, "{aa}");

    let v = json(&[
        "poker", "equity", "AhKh", "qsqd", "--board", "2h 7h 9c", "--json",
    ]);
    assert_eq!(v["trials"], 990);

    let args = |threads: &'static str| {
        [
            "poker",
            "equity",
            "AsKs",
            "random",
            "--trials",
            "50000",
            "--seed",
            "9",
            "--threads",
            threads,
            "--json",
        ]
    };
    let mc = json(&args("1"));
    assert_eq!(mc["exact"], false);
    assert_eq!(mc["seed"], 9);
    assert_eq!(mc, json(&args("2")));
    let text = fairdeal(&["poker", "equity", "9s9d", "AsAh", "--board", "2c7d9h"])
        .ok()
        .text();
    assert!(text.contains("exact, 990 deals"), "{text}");
}

#[test]
fn bad_input_is_a_one_line_error() {
    for (args, needle) in [
        (
            &["poker", "equity", "AsAh", "AsKd"][..],
            "used more than once",
        ),
        (
            &["poker", "equity", "AsAh", "KsKd", "--board", "2c3c"],
            "board",
        ),
        (
            &["poker", "equity", "AsAh", "KsKd", "--dead", "Kd"],
            "used more than once",
        ),
        (&["poker", "equity", "AsAh"], "2 to 9 players"),
        (&["poker", "equity", "AsXh", "KsKd"], "invalid rank"),
        (&["poker", "equity", "AsAx", "KsKd"], "invalid suit"),
        (&["poker", "equity", "AsAhKd", "KsKd"], "exactly 2"),
        (
            &["poker", "equity", "random", "random", "random", "--exact"],
            "Monte Carlo",
        ),
        (
            &["poker", "equity", "AsAh", "KsKd", "--trials", "0"],
            "at least 1",
        ),
        (
            &["poker", "table", "--exhaustive", "--cards", "6"],
            "5 or 7",
        ),
        (&["poker", "table", "--hands", "0"], "at least 1"),
        (
            &["poker", "table", "--hands", "10", "--algo", "nope"],
            "nope",
        ),
        (&["poker", "table"], "required"),
    ] {
        let line = fairdeal(args).error();
        assert!(line.contains(needle), "{args:?}: {line}");
    }
}
