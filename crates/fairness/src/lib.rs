/*!
Chi-square tests that a [`Shuffler`](fairdeal_core::Shuffler) is fair.

A fair shuffle makes every one of the `n!` orders equally likely. This crate checks that claim
statistically, three ways, and returns the evidence — counts, statistic, degrees of freedom,
p-value — as a [`FairnessReport`] (serializable, so the CLI prints it as JSON):

* [`permutation_test`] (`2 <= n <= 8`): shuffle `[0, n)` many times and count every one of the
  `n!` orders, indexed by lexicographic rank ([`rank_permutation`], [`unrank_permutation`]).
  Pearson's chi-square against the uniform expectation, `n! - 1` degrees of freedom. This is the
  seeds' experiment (100,000 shuffles of `[1, 2, 3]`, about 16,667 per order) and sees any bias
  at all.
* [`position_test`] (`2 <= n <= 1024`, e.g. a 52-card deck): the `n × n` matrix of how often
  element `e` lands at position `p`, `(n - 1)²` degrees of freedom.
* [`prefix_position_test`]: the same over the first `k` positions after
  [`Shuffler::shuffle_prefix`](fairdeal_core::Shuffler::shuffle_prefix), for dealing `k` of `n`.

Beyond one stream of shuffles, the **shuffle-quality battery** ([`run_battery`]) asks how a
generator behaves the way people use it:

* [`seed_sequence_test`]: the first shuffle from each of many consecutive seeds, or seeds one
  bit apart ([`SeedPattern`]), as one sample — "one seed per game". `java.util.Random` seeded
  `0, 1, 2, …` fails it while passing every single-stream test.
* [`serial_test`]: the relative order of consecutive shuffles of one stream, which is uniform
  and independent exactly when the shuffles are.
* [`adjacency_test`]: which element comes right after which (a random cut of the deck passes
  the position test and fails this one).

[`run_battery`] runs them with the permutation and position tests and combines the verdicts
with Holm's correction ([`holm_adjusted`]), on two-sided p-values
([`FairnessReport::two_sided_p_value`]) so that counts too even to be chance (a short-period
generator stepping through its states) are flagged as well. The streaming tallies
([`PermutationTally`], [`PositionTally`], [`AdjacencyTally`], [`SerialTally`]) take permutations
from anywhere, one at a time: `fairdeal audit` feeds them another program's output, read line by
line with [`PermutationParser`] (items any tokens; a bad line is a [`LineError`] naming it).

[`FairnessReport::is_fair`] with [`PASS_THRESHOLD`] (`p > 1e-6`) is the verdict the workspace's
tests and the `fairdeal fairness` command use. This crate's own
`tests/every_algorithm_every_backend.rs` is the workspace's fairness evidence: every fair
algorithm on every backend of `fairdeal-rng` passes, and the biased swap and a broken generator
are rejected with `p < 1e-9`.

The crate has no opinion on algorithms or generators: it takes any
[`Shuffler`](fairdeal_core::Shuffler) and any [`Rng`](fairdeal_core::Rng), and depends only on
`fairdeal-core` (plus `statrs` for the chi-square tail).

# Quick start

```
use fairdeal_core::SeedableRng;
use fairdeal_fairness::{permutation_test, position_test, unrank_permutation, PASS_THRESHOLD};
use fairdeal_inplace::Inplace;
use fairdeal_naive::Biased;

let mut rng = rand_pcg::Pcg64::seed_from_u64(42);

// The seeds' experiment: 100,000 shuffles of three elements, about 16,667 per order.
let report = permutation_test(&Inplace::new(), 3, 100_000, &mut rng)?;
for (rank, count) in report.counts.iter().enumerate() {
    println!("{:?} {count}", unrank_permutation(3, rank as u64)?); // lexicographic: [0, 1, 2] first
}
assert_eq!(report.df, 5);
assert!(report.is_fair(PASS_THRESHOLD));

// A 52-card deck is too big to count orders (52! of them): count where each card lands.
let deck = position_test(&Inplace::new(), 52, 5_000, &mut rng)?;
assert_eq!(deck.df, 51 * 51);
assert!(deck.is_fair(PASS_THRESHOLD));

// The wrong-range swap, `swap(i, random index in [0, n))` for every i: n^n equally likely
// paths cannot spread evenly over n! orders (27 paths onto 6 orders for n = 3).
let report = permutation_test(&Biased::new(), 3, 100_000, &mut rng)?;
// [0,2,1], [1,0,2] and [1,2,0] get 5 of the 27 paths each, the other orders 4.
assert!(report.counts[1] > report.counts[0]);
assert!(report.p_value < 1e-9);
assert!(!report.is_fair(PASS_THRESHOLD));
# Ok::<(), fairdeal_fairness::FairnessError>(())
```

# The position statistic

For one fair shuffle let `P` be the `n × n` permutation matrix (`P[e][p] = 1` when element `e`
lands at position `p`). Each entry has mean `1/n`; entries in one row or one column are
negatively correlated (`-1/n²`), entries in different rows and columns slightly positively
(`1/(n²(n - 1))`). Put together, the covariance of `P` is `1/(n - 1)` times the orthogonal
projection onto the matrices whose rows and columns all sum to zero, a space of dimension
`(n - 1)²`. That is the "contingency table" structure: row and column totals are fixed (at
`trials`) and `(n - 1)²` cells are free, so the statistic has `(n - 1)²` degrees of freedom.

The scale is not the contingency table's, though: summing `trials` such matrices, the plain
Pearson sum `Σ (O - E)² / E` with `E = trials / n` converges to `n / (n - 1)` times a
`χ²((n - 1)²)` variable (mean `n(n - 1)`, not `(n - 1)²`). Reported with `(n - 1)²` degrees of
freedom it would make fair shuffles look worse the smaller `n` is (at n = 52 the mean sits about
0.7 standard deviations high). So [`position_test`] reports `chi2 = (n - 1)/n · Σ (O - E)² / E`
which follows `χ²((n - 1)²)` exactly in the limit; the crate's calibration tests check that its
mean over many fair runs is `(n - 1)²`.

For the first `k < n` positions the covariance is `1/(n - 1) · (I - J/n) ⊗ (I - J/n)` on the
`n × k` block: eigenvalue `1/(n - 1)` on the `(n - 1)(k - 1)` directions that do not change how
often an element reaches the prefix, and `(1 - k/n)/(n - 1)` on the `n - 1` directions that do.
[`prefix_position_test`] weights the two parts accordingly:
`chi2 = (n - 1)/trials · [Σ (O[e][p] - Ō[e])² + Σ (R[e] - k·trials/n)² / (k(1 - k/n))]`, where
`Ō[e]` and `R[e]` are row `e`'s mean and total, giving `(n - 1)·k` degrees of freedom.

# Choosing trials

Keep at least [`MIN_EXPECTED_COUNT`] (5) expected hits per cell: `trials >= 5·n!` for the
permutation test, `trials >= 5·n` for the position tests ([`FairnessReport::expected_count`]).
More trials detect smaller biases: the biased swap at n = 3 is caught with a few thousand, a
subtle RNG defect may need millions.
*/
#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![doc(test(attr(deny(warnings))))]

/// The README's quick start, compiled and run by `cargo test --doc` so that it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

mod adjacency;
pub mod audit;
mod battery;
pub mod calibration;
mod chunked;
pub mod comparison;
mod equivalence;
mod error;
#[cfg(feature = "plot")]
pub mod heatmap;
mod judge;
mod lines;
mod permutation;
mod position;
mod power;
mod rank;
mod repeat;
mod report;
mod run;
mod sequence;
pub mod statement;
mod stats;
mod table;
mod tally;

pub use adjacency::{AdjacencyTally, MIN_ADJACENCY_N, adjacency_test};
pub use battery::{
    BatteryConfig, BatteryReport, BatteryTest, NamedTally, REPEAT_MIN_N, TestName, Verdict,
    holm_adjusted, judge_tallies, line_tallies, run_battery, run_battery_judged,
};
pub use chunked::{
    CHUNK_TRIALS, ChunkedRun, chunk_seeded_test, chunk_seeded_test_with_progress,
    report_from_counts,
};
pub use equivalence::{
    CATEGORY_TOLERANCE, CELL_TOLERANCE, Certified, DEFAULT_CONFIDENCE, Equivalence,
    ORDER_TOLERANCE, clopper_pearson, default_tolerance, relative_bound, samples_to_certify,
    table_bound, table_samples_to_certify,
};
pub use error::FairnessError;
pub use judge::{
    DEFAULT_REPLICATES, JudgeConfig, Judgement, MIN_REPLICATES, MONTE_CARLO_BUDGET, PValueMethod,
    TWO_SIDED_MIN_DF, cell_tail_p_value,
};
pub use lines::{LineError, MAX_LINE_BYTES, PermutationParser, show_item, split_items};
pub use permutation::{MAX_PERMUTATION_N, MIN_PERMUTATION_N, PermutationTally, permutation_test};
pub use position::{
    MAX_POSITION_N, MIN_POSITION_N, PositionTally, position_test, prefix_position_test,
};
pub use power::position_trials_needed;
pub use rank::{MAX_RANK_N, factorial, rank_permutation, unrank_permutation};
pub use repeat::{MAX_REPEAT_LINES, RepeatTally, outputs_lower_bound, repeat_test};
pub use report::{FairnessReport, MIN_EXPECTED_COUNT, PASS_THRESHOLD, TestKind};
pub use run::{RunDocument, RunFieldError, RunNames, RunParams, RunTally, TallyError, judge_run};
pub use sequence::{OrderTally, SeedPattern, SerialTally, seed_sequence_test, serial_test};
pub use table::TableVerdict;
pub use tally::Tally;

#[cfg(test)]
mod tests;
