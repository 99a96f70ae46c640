//! Golden vectors: what a seed produces, for every algorithm of the registry on every RNG
//! backend with the backend's default sampler (issues 12 and 15).
//!
//! Seeded output is part of the API: a change here must be deliberate and listed in
//! CHANGELOG.md under "Changed (seeded output)". Each line pins one seeded shuffle of `0..n`
//! (n = 52, 1000, 10,000 and 20,000, seeds 0 and 42; `inplace` runs the first three front to
//! back, the last from the end): its first ten elements and an FNV-1a hash of the whole
//! result, plus one 7-card deal from a 52-card deck with `shuffle_prefix`. The expected lines are
//! in `golden/seeded_outputs.txt`; when this test fails it prints the lines it got, so a
//! deliberate change is pasted there in one step (and shows up in review as a diff).

#![cfg(all(
    feature = "inplace",
    feature = "inside-out",
    feature = "partial",
    feature = "naive",
    feature = "rng"
))]

use fairdeal::rng::{Backend, BackendVisitor, backends, with_backend};
use fairdeal::{ALGORITHMS, Shuffler, algorithm_by_name};

const EXPECTED: &str = include_str!("golden/seeded_outputs.txt");

/// FNV-1a over the elements' little-endian bytes: one number that changes if any element does.
fn fnv1a(values: &[u32]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in values.iter().flat_map(|v| v.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// The golden lines of one backend.
struct Lines;

impl BackendVisitor for Lines {
    type Output = Vec<String>;

    fn visit<B: Backend>(self) -> Vec<String> {
        let backend = B::INFO.name;
        let mut lines = Vec::new();
        for info in ALGORITHMS {
            let shuffler = algorithm_by_name(info.name, B::Sampler::default())
                .expect("every registry name resolves");
            for seed in [0, 42] {
                for n in [52u32, 1000, 10_000, 20_000] {
                    let mut rng = B::seeded(seed);
                    let mut v: Vec<u32> = (0..n).collect();
                    shuffler.shuffle(&mut v, &mut rng);
                    lines.push(format!(
                        "{backend} {} seed={seed} n={n}: {:?} fnv={:016x}",
                        info.name,
                        &v[..10],
                        fnv1a(&v)
                    ));
                }
            }
            let mut rng = B::seeded(7);
            let mut deck: Vec<u32> = (0..52).collect();
            shuffler
                .shuffle_prefix(&mut deck, 7, &mut rng)
                .expect("7 <= 52");
            lines.push(format!(
                "{backend} {} seed=7 deal 7 of 52: {:?}",
                info.name,
                &deck[..7]
            ));
        }
        lines
    }
}

#[test]
fn seeded_outputs_match_the_golden_vectors() {
    let got: Vec<String> = backends()
        .iter()
        .flat_map(|b| with_backend(b.name, Lines).expect("a catalogue backend"))
        .collect();
    let expected: Vec<&str> = EXPECTED.lines().collect();
    let differing: Vec<String> = got
        .iter()
        .zip(&expected)
        .filter(|(g, e)| g != *e)
        .map(|(g, e)| format!("  expected {e}\n  got      {g}"))
        .collect();
    assert!(
        differing.is_empty() && got.len() == expected.len(),
        "seeded output changed ({} of {} lines differ, {} lines expected, {} got). If the change \
         is deliberate, list it in CHANGELOG.md under \"Changed (seeded output)\" and replace \
         tests/golden/seeded_outputs.txt with:\n{}\n\nThe differences:\n{}",
        differing.len(),
        got.len().max(expected.len()),
        expected.len(),
        got.len(),
        got.join("\n"),
        differing.join("\n")
    );
}

/// The negative control: a seeded output that differs in one element fails the comparison.
#[test]
fn a_changed_output_is_caught() {
    let mut a: Vec<u32> = (0..1000).collect();
    let b = a.clone();
    a.swap(500, 501);
    assert_ne!(fnv1a(&a), fnv1a(&b), "the hash sees a single swap");
    assert!(
        EXPECTED.lines().count() >= ALGORITHMS.len() * backends().len() * 5,
        "every algorithm and backend is pinned"
    );
}
