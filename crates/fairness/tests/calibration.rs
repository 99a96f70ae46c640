//! A small version of `cargo xtask calibrate`: 400 fair data sets across shapes, from the tiny
//! and sparse to the comfortable, judged at alpha = 0.01 by the tests `fairdeal audit` runs.
//! Every test's false-alarm count must stay within a binomial bound of its alpha — and the
//! same counter, fed a biased source, must exceed it (the check can fail).

use std::collections::BTreeMap;

use fairdeal_core::{SeedableRng, Shuffler, stream_seed};
use fairdeal_fairness::calibration::{Shuffled, audit_lines, binomial_upper};
use fairdeal_fairness::{JudgeConfig, Verdict};
use fairdeal_inplace::Inplace;
use fairdeal_naive::Biased;
use rand_pcg::Pcg64;

const ALPHA: f64 = 0.01;
const RUNS: u64 = 400;

/// Items × lines, visited in turn.
const SHAPES: &[(usize, u64)] = &[
    (2, 2),
    (2, 1_000),
    (3, 30),
    (3, 3_000),
    (5, 2),
    (8, 30),
    (8, 300),
    (52, 100),
];

/// The largest count a level-`ALPHA` test reaches in `runs` runs with probability above 1e-6.
fn bound(runs: u64) -> u64 {
    (0..=runs)
        .find(|&k| binomial_upper(runs, ALPHA, k + 1) <= 1e-6)
        .unwrap_or(runs)
}

/// Per test: (runs it took part in, rejections at ALPHA); plus the battery's own count.
fn false_alarms<S: Shuffler + Clone>(shuffler: &S) -> BTreeMap<String, (u64, u64)> {
    let mut counts: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for run in 0..RUNS {
        let (n, lines) = SHAPES[run as usize % SHAPES.len()];
        let seed = stream_seed(23, run);
        let mut source = Shuffled {
            shuffler: shuffler.clone(),
            rng: Pcg64::seed_from_u64(seed),
        };
        let config = JudgeConfig {
            replicates: 99,
            seed,
        };
        let battery = audit_lines(n, lines, &mut source, ALPHA, &config).unwrap();
        for test in &battery.tests {
            let entry = counts.entry(test.name.name().to_owned()).or_default();
            entry.0 += 1;
            entry.1 += u64::from(test.p_value <= ALPHA);
        }
        let entry = counts.entry("battery".to_owned()).or_default();
        entry.0 += 1;
        entry.1 += u64::from(battery.verdict == Verdict::Unfair);
    }
    counts
}

#[test]
fn fair_data_of_every_shape_rejects_at_most_alpha() {
    let counts = false_alarms(&Inplace::new());
    assert!(counts.len() >= 5, "{counts:?}");
    for (test, &(runs, rejections)) in &counts {
        assert!(
            rejections <= bound(runs),
            "{test}: {rejections} of {runs} fair runs rejected at alpha {ALPHA} (bound {})",
            bound(runs)
        );
    }
}

/// The negative control: the wrong-range swap's data trips the same check.
#[test]
fn the_check_fails_on_a_biased_source() {
    let counts = false_alarms(&Biased::new());
    let (runs, rejections) = counts["permutation"];
    assert!(rejections > bound(runs), "{rejections} of {runs}");
}
