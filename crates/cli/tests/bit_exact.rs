//! `fairdeal shuffle --algo inplace --backend java|python --seed S -i 0-(N-1)` prints exactly
//! the order Java's `Collections.shuffle(list, new Random(S))` and CPython's
//! `random.seed(S); random.shuffle(x)` give.
//!
//! The expected orders are the committed fixtures of `fairdeal-rng`
//! (`crates/rng/fixtures/{java,python}_shuffle.txt`), produced by the real `java` and `python3`
//! with the programs in `crates/rng/fixtures/gen/`. Each line is `SEED N` followed by the N
//! shuffled values of `0..N`.

mod common;

use common::inplace_order;

struct Case {
    seed: String,
    n: usize,
    order: Vec<u64>,
}

fn cases(text: &str) -> Vec<Case> {
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split_ascii_whitespace();
            let seed = fields.next().expect("seed").to_owned();
            let n: usize = fields.next().expect("n").parse().expect("n is a number");
            let order: Vec<u64> = fields.map(|v| v.parse().expect("a value")).collect();
            assert_eq!(order.len(), n, "fixture line for seed {seed}, n {n}");
            Case { seed, n, order }
        })
        .collect()
}

fn check(backend: &str, fixture: &str) {
    let cases = cases(fixture);
    assert!(
        cases.len() >= 50,
        "too few {backend} fixture lines: {}",
        cases.len()
    );
    assert!(cases.iter().any(|c| c.n == 1) && cases.iter().any(|c| c.n >= 1000));
    for case in cases {
        assert_eq!(
            inplace_order(backend, &case.seed, case.n),
            case.order,
            "{backend}: seed {} n {} differs from the fixture",
            case.seed,
            case.n
        );
    }
}

#[test]
fn java_collections_shuffle_orders_are_reproduced() {
    check("java", include_str!("../../rng/fixtures/java_shuffle.txt"));
}

#[test]
fn python_random_shuffle_orders_are_reproduced() {
    check(
        "python",
        include_str!("../../rng/fixtures/python_shuffle.txt"),
    );
}
