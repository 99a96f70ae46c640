//! The shuffle-quality battery: several tests of one shuffler + generator pair, and one verdict
//! that stays honest about running several tests (Holm's correction).

use core::fmt;

use fairdeal_core::{Rng, Shuffler, stream_seed};
use serde::{Deserialize, Serialize};

use crate::{
    Certified, Equivalence, FairnessError, FairnessReport, JudgeConfig, Judgement, PASS_THRESHOLD,
    SeedPattern, Tally, TestKind, adjacency_test, permutation_test, position_test,
    seed_sequence_test, serial_test,
};

/// A battery's verdict. Serialized as `"fair"`, `"unfair"` or `"insufficient"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No test rejects, and the data bound every cell's deviation from fair within the
    /// tolerance at the stated confidence ([`Certified`]).
    Fair,
    /// Some test rejects at the family-wise level.
    Unfair,
    /// No test rejects, but the data do not bound the bias within the tolerance: too few
    /// samples to call the shuffle fair (a p-value above alpha is absence of evidence).
    Insufficient,
}

impl Verdict {
    /// `"fair"`, `"unfair"` or `"insufficient"`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fair => "fair",
            Self::Unfair => "unfair",
            Self::Insufficient => "insufficient",
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The tests of the battery, in the order they run and are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestName {
    /// Every order of a small deck from one stream ([`permutation_test`]).
    Permutation,
    /// Element × position of a 52-card deck from one stream ([`position_test`]).
    Position,
    /// The first shuffle of each of many consecutive seeds ([`seed_sequence_test`],
    /// [`SeedPattern::Consecutive`]).
    SeedsConsecutive,
    /// The first shuffle of each of many seeds one bit apart ([`seed_sequence_test`],
    /// [`SeedPattern::OneBitApart`]).
    SeedsOneBitApart,
    /// Relative order of consecutive shuffles of one stream ([`serial_test`]).
    Serial,
    /// Which element follows which ([`adjacency_test`]).
    Adjacency,
    /// Whole orders that repeat an earlier one ([`repeat_test`](crate::repeat_test), `k = n`).
    RepeatedOrders,
    /// Leading 5-item hands that repeat an earlier one ([`repeat_test`](crate::repeat_test), `k = 5`).
    RepeatedHands5,
    /// Leading 7-item hands that repeat an earlier one ([`repeat_test`](crate::repeat_test), `k = 7`).
    RepeatedHands7,
}

impl TestName {
    /// The kebab-case name used in tables and JSON (`"seeds-consecutive"`).
    ///
    /// ```
    /// assert_eq!(fairdeal_fairness::TestName::SeedsOneBitApart.name(), "seeds-one-bit-apart");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Self::Permutation => "permutation",
            Self::Position => "position",
            Self::SeedsConsecutive => "seeds-consecutive",
            Self::SeedsOneBitApart => "seeds-one-bit-apart",
            Self::Serial => "serial",
            Self::Adjacency => "adjacency",
            Self::RepeatedOrders => "repeated-orders",
            Self::RepeatedHands5 => "repeated-5-hands",
            Self::RepeatedHands7 => "repeated-7-hands",
        }
    }
}

impl fmt::Display for TestName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Holm's step-down correction: the adjusted p-values of `p_values`, in the same order.
///
/// Sort the `m` p-values ascending; the `i`-th smallest (from 1) is multiplied by `m - i + 1`,
/// capped at 1, and made non-decreasing along the sorted order. Rejecting every test whose
/// adjusted p-value is at most `alpha` keeps the chance of *any* false alarm among the `m`
/// tests at most `alpha`, whatever the dependence between them — and it never rejects less
/// than Bonferroni. A NaN p-value counts as 0 (never fair).
///
/// ```
/// let adjusted = fairdeal_fairness::holm_adjusted(&[0.01, 0.04, 0.03]);
/// assert_eq!(adjusted, [0.03, 0.06, 0.06]);
/// ```
pub fn holm_adjusted(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let clean = |p: f64| if p.is_nan() { 0.0 } else { p };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| clean(p_values[a]).total_cmp(&clean(p_values[b])));
    let mut adjusted = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &index) in order.iter().enumerate() {
        let scaled = (clean(p_values[index]) * (m - rank) as f64).min(1.0);
        running = running.max(scaled);
        adjusted[index] = running;
    }
    adjusted
}

/// One test's outcome inside a [`BatteryReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatteryTest {
    /// Which test.
    pub name: TestName,
    /// Its counts, statistic, degrees of freedom and upper-tail p-value.
    pub report: FairnessReport,
    /// How its p-value was computed ([`FairnessReport::judge`]).
    pub judgement: Judgement,
    /// The valid p-value ([`Judgement::p_value`]): two-sided where that is valid, so the
    /// battery flags counts that are too even as well as too uneven.
    pub p_value: f64,
    /// Whether this test could reject at all at this size (its smallest possible p-value,
    /// times the number of tests, is at most `alpha`).
    pub has_power: bool,
    /// The p-value after Holm's correction over all the battery's tests.
    pub adjusted_p: f64,
    /// This test's verdict (unfair when `adjusted_p <= alpha`) and the bound it certifies.
    pub certified: Certified,
}

impl BatteryTest {
    /// This test's verdict: [`Certified::verdict`].
    pub fn verdict(&self) -> Verdict {
        self.certified.verdict
    }
}

/// The battery's outcome: every test, and one verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatteryReport {
    /// The tests, in the order they ran.
    pub tests: Vec<BatteryTest>,
    /// The family-wise significance level (the adjusted p-values are compared with it).
    pub alpha: f64,
    /// The tolerance and confidence the tests' bounds were judged with.
    pub equivalence: Equivalence,
    /// Unfair when any test rejects; fair when every test is fair (each bounds its cells within
    /// its tolerance); else insufficient.
    pub verdict: Verdict,
    /// When insufficient: about how many samples the insufficient tests need to certify their
    /// tolerance (the largest of their estimates).
    pub samples_needed: Option<u64>,
    /// The test with the smallest adjusted p-value: the one that decided an unfair verdict
    /// (or came closest to it).
    pub decided_by: Option<TestName>,
}

impl BatteryReport {
    /// Combines test reports into one verdict with [`holm_adjusted`] two-sided p-values at level
    /// `alpha`.
    ///
    /// ```
    /// use fairdeal_fairness::{BatteryReport, FairnessReport, TestKind, TestName, Verdict};
    /// // Each report's p-value is recomputed from its counts (here exact binomials, 2 items).
    /// let report = |trials, counts| FairnessReport {
    ///     test: TestKind::Position, n: 2, trials, counts, chi2: 0.0, df: 1, p_value: 1.0,
    /// };
    /// let battery = BatteryReport::from_reports(
    ///     vec![
    ///         (TestName::Position, report(10, vec![5; 4])),
    ///         // Element 0 first in all 40 shuffles: p = 2 · 2^-40.
    ///         (TestName::Serial, report(40, vec![40, 0, 0, 40])),
    ///     ],
    ///     1e-6,
    /// );
    /// assert_eq!(battery.verdict, Verdict::Unfair);
    /// assert_eq!(battery.decided_by, Some(TestName::Serial));
    /// // Ten shuffles do not reject, and bound nothing: insufficient, not fair.
    /// assert_eq!(battery.tests[0].verdict(), Verdict::Insufficient);
    /// ```
    pub fn from_reports(reports: Vec<(TestName, FairnessReport)>, alpha: f64) -> Self {
        Self::judged(
            reports,
            alpha,
            &JudgeConfig::default(),
            &Equivalence::default(),
        )
    }

    /// As [`from_reports`](Self::from_reports), with the Monte Carlo replicates and seed of
    /// `config` for the tests whose tables are too sparse for the chi-square rule, and the
    /// tolerance and confidence of `equivalence`.
    pub fn judged(
        reports: Vec<(TestName, FairnessReport)>,
        alpha: f64,
        config: &JudgeConfig,
        equivalence: &Equivalence,
    ) -> Self {
        let judgements: Vec<Judgement> = reports.iter().map(|(_, r)| r.judge(config)).collect();
        let p_values: Vec<f64> = judgements.iter().map(|j| j.p_value).collect();
        let adjusted = holm_adjusted(&p_values);
        let m = reports.len().max(1) as f64;
        let tests: Vec<BatteryTest> = reports
            .into_iter()
            .zip(judgements.into_iter().zip(adjusted))
            .map(|((name, report), (judgement, adjusted_p))| {
                let has_power = judgement.min_p_value * m <= alpha;
                BatteryTest {
                    name,
                    p_value: judgement.p_value,
                    has_power,
                    judgement,
                    adjusted_p,
                    certified: report.certify(adjusted_p <= alpha, has_power, equivalence),
                    report,
                }
            })
            .collect();
        let decided_by = tests
            .iter()
            .min_by(|a, b| a.adjusted_p.total_cmp(&b.adjusted_p))
            .map(|t| t.name);
        let verdict = if tests.iter().any(|t| t.verdict() == Verdict::Unfair) {
            Verdict::Unfair
        } else if tests.iter().all(|t| t.verdict() == Verdict::Fair) {
            Verdict::Fair
        } else {
            Verdict::Insufficient
        };
        let samples_needed = (verdict == Verdict::Insufficient)
            .then(|| {
                tests
                    .iter()
                    .filter(|t| t.verdict() == Verdict::Insufficient)
                    .filter_map(|t| t.certified.samples_needed)
                    .max()
            })
            .flatten();
        Self {
            equivalence: *equivalence,
            verdict,
            samples_needed,
            tests,
            alpha,
            decided_by,
        }
    }

    /// The named test's entry, if it ran.
    pub fn test(&self, name: TestName) -> Option<&BatteryTest> {
        self.tests.iter().find(|t| t.name == name)
    }
}

/// Decks above this many items get the repeat tests in [`line_tallies`] (smaller ones have the
/// permutation test, which sees every order).
pub const REPEAT_MIN_N: usize = crate::MAX_PERMUTATION_N + 1;

/// A test's name and the tally that feeds it, as [`line_tallies`] returns them.
pub type NamedTally = (TestName, Box<dyn Tally>);

/// The tests that apply to permutations of `n` items read from anywhere, one tally each, in
/// report order: the permutation test (`n <= 8`), the position test, the serial test
/// (consecutive lines), the adjacency test (`n >= 3`) and, from [`REPEAT_MIN_N`] items, the
/// repeat tests (whole orders, leading 5- and 7-item hands). `fairdeal audit` feeds these its
/// lines; `cargo xtask calibrate` feeds them fair and broken sources. Judge them with
/// [`judge_tallies`].
///
/// # Errors
///
/// [`FairnessError::SizeOutOfRange`] unless `2 <= n <= 1024`.
///
/// ```
/// use fairdeal_fairness::{line_tallies, TestName};
/// let names: Vec<TestName> = line_tallies(52)?.iter().map(|(name, _)| *name).collect();
/// assert_eq!(names[0], TestName::Position);
/// assert!(names.contains(&TestName::RepeatedHands5));
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn line_tallies(n: usize) -> Result<Vec<NamedTally>, FairnessError> {
    let mut tallies: Vec<NamedTally> = Vec::new();
    if n <= crate::MAX_PERMUTATION_N {
        tallies.push((
            TestName::Permutation,
            Box::new(crate::PermutationTally::new(n)?),
        ));
    }
    tallies.push((TestName::Position, Box::new(crate::PositionTally::new(n)?)));
    tallies.push((TestName::Serial, Box::new(crate::SerialTally::new(n)?)));
    if n >= crate::MIN_ADJACENCY_N {
        tallies.push((
            TestName::Adjacency,
            Box::new(crate::AdjacencyTally::new(n)?),
        ));
    }
    if n >= REPEAT_MIN_N {
        for (name, k) in [
            (TestName::RepeatedOrders, n),
            (TestName::RepeatedHands5, 5),
            (TestName::RepeatedHands7, 7),
        ] {
            tallies.push((name, Box::new(crate::RepeatTally::new(n, k)?)));
        }
    }
    Ok(tallies)
}

/// The battery verdict over `tallies` at family-wise level `alpha`, with the tolerance and
/// confidence of `equivalence`: every tally that counted something (the serial test needs two
/// permutations) is reported and judged ([`BatteryReport::judged`]).
///
/// # Errors
///
/// [`FairnessError::ZeroTrials`] when no tally counted anything.
pub fn judge_tallies(
    tallies: &[NamedTally],
    alpha: f64,
    config: &JudgeConfig,
    equivalence: &Equivalence,
) -> Result<BatteryReport, FairnessError> {
    let mut reports = Vec::with_capacity(tallies.len());
    for (name, tally) in tallies {
        if tally.trials() > 0 {
            reports.push((*name, tally.report()?));
        }
    }
    if reports.is_empty() {
        return Err(FairnessError::ZeroTrials);
    }
    Ok(BatteryReport::judged(reports, alpha, config, equivalence))
}

/// How big the battery's samples are. The defaults run in well under a second per generator
/// in an optimised build and still reject the negative controls by a wide margin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatteryConfig {
    /// Deck size of the permutation, seed-sequence and serial tests (at most 8: every order is
    /// counted).
    pub small_n: usize,
    /// Deck size of the position and adjacency tests.
    pub deck_n: usize,
    /// Shuffles of the permutation and serial tests.
    pub small_trials: u64,
    /// Shuffles of the position and adjacency tests.
    pub deck_trials: u64,
    /// Seeds of each seed-sequence test.
    pub seeds: u64,
}

impl Default for BatteryConfig {
    fn default() -> Self {
        Self {
            small_n: 4,
            deck_n: 52,
            small_trials: 120_000,
            deck_trials: 10_000,
            seeds: 12_000,
        }
    }
}

/// Runs the whole battery on one shuffler and one generator family.
///
/// `make_rng(s)` must return the generator seeded with `s` (e.g. `Backend::seeded`). The
/// single-stream tests each get their own stream, `make_rng(stream_seed(seed, k))` for test
/// `k`; the seed-sequence tests seed `seeds` fresh generators starting at `seed` itself, the
/// way a program seeding "one generator per game" would.
///
/// # Errors
///
/// The size and trial errors of the individual tests (see [`BatteryConfig`]).
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{run_battery, BatteryConfig, TestName, Verdict};
/// use fairdeal_inplace::Inplace;
///
/// let config = BatteryConfig { small_trials: 24_000, deck_trials: 2_000, seeds: 2_400,
///     ..BatteryConfig::default() };
/// let battery = run_battery(&Inplace::new(), rand_pcg::Pcg64::seed_from_u64, 7, &config)?;
/// assert_eq!(battery.tests.len(), 8);
/// assert_ne!(battery.verdict, Verdict::Unfair);
/// // 24,000 shuffles of 4 bound every order within 30 %; 2,000 decks bound no position
/// // within 5 %.
/// assert_eq!(battery.test(TestName::Permutation).unwrap().verdict(), Verdict::Fair);
/// assert_eq!(battery.test(TestName::Position).unwrap().verdict(), Verdict::Insufficient);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn run_battery<S, R, F>(
    shuffler: &S,
    make_rng: F,
    seed: u64,
    config: &BatteryConfig,
) -> Result<BatteryReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: FnMut(u64) -> R,
{
    run_battery_judged(shuffler, make_rng, seed, config, &Equivalence::default())
}

/// [`run_battery`], judged with the tolerance and confidence of `equivalence`.
///
/// # Errors
///
/// As [`run_battery`].
pub fn run_battery_judged<S, R, F>(
    shuffler: &S,
    mut make_rng: F,
    seed: u64,
    config: &BatteryConfig,
    equivalence: &Equivalence,
) -> Result<BatteryReport, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: FnMut(u64) -> R,
{
    let small = config.small_n;
    let deck = config.deck_n;
    let mut reports = Vec::with_capacity(6);
    reports.push((
        TestName::Permutation,
        permutation_test(
            shuffler,
            small,
            config.small_trials,
            &mut make_rng(stream_seed(seed, 0)),
        )?,
    ));
    reports.push((
        TestName::Position,
        position_test(
            shuffler,
            deck,
            config.deck_trials,
            &mut make_rng(stream_seed(seed, 1)),
        )?,
    ));
    for (name, pattern) in [
        (TestName::SeedsConsecutive, SeedPattern::Consecutive),
        (TestName::SeedsOneBitApart, SeedPattern::OneBitApart),
    ] {
        let report =
            seed_sequence_test(shuffler, small, config.seeds, seed, pattern, &mut make_rng)?;
        reports.push((name, report));
    }
    reports.push((
        TestName::Serial,
        serial_test(
            shuffler,
            small,
            config.small_trials,
            &mut make_rng(stream_seed(seed, 2)),
        )?,
    ));
    reports.push((
        TestName::Adjacency,
        adjacency_test(
            shuffler,
            deck,
            config.deck_trials,
            &mut make_rng(stream_seed(seed, 3)),
        )?,
    ));
    // Repeated deals: the first shuffle of each of `seeds` consecutive seeds (one seed per
    // game, as a dealer reseeding per hand would), whole orders and leading 5-card hands.
    for (name, k) in [
        (TestName::RepeatedOrders, deck),
        (TestName::RepeatedHands5, 5.min(deck)),
    ] {
        let mut tally = crate::RepeatTally::new(deck, k)?;
        let mut index = 0;
        crate::tally::tally_shuffles(&mut tally, deck, config.seeds, |cards| {
            shuffler.shuffle(cards, &mut make_rng(seed.wrapping_add(index)));
            index += 1;
            Ok(())
        })?;
        reports.push((name, tally.report()?));
    }
    Ok(BatteryReport::judged(
        reports,
        PASS_THRESHOLD,
        &JudgeConfig::default(),
        equivalence,
    ))
}

impl BatteryConfig {
    /// The default sizes, each raised (by half again, for margin) to what a fair generator
    /// needs for its bounds to certify `equivalence`'s tolerances, so that a fair generator is
    /// judged FAIR rather than INSUFFICIENT.
    ///
    /// ```
    /// use fairdeal_fairness::{BatteryConfig, Equivalence};
    /// let config = BatteryConfig::certifying(&Equivalence::default());
    /// assert!(config.deck_trials > BatteryConfig::default().deck_trials);
    /// ```
    pub fn certifying(equivalence: &Equivalence) -> Self {
        let base = Self::default();
        let confidence = equivalence.confidence;
        let need = |kind: TestKind, cells: u64, p: f64| {
            equivalence
                .tolerance_for(kind)
                .and_then(|t| crate::samples_to_certify(cells, p, t, confidence))
                .map_or(0, |s| s.saturating_add(s / 2))
        };
        let orders = crate::factorial(base.small_n).unwrap_or(1);
        let small = need(TestKind::Permutation, orders, 1.0 / orders as f64);
        let deck = base.deck_n as u64;
        let positions = need(TestKind::Position, deck * deck, 1.0 / deck as f64);
        let adjacency = need(
            TestKind::Adjacency,
            deck * (deck - 1),
            1.0 / (deck - 1) as f64,
        );
        Self {
            small_trials: base.small_trials.max(small),
            seeds: base.seeds.max(small),
            deck_trials: base.deck_trials.max(positions).max(adjacency),
            ..base
        }
    }
}
