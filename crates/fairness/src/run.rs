//! A chunk-seeded run's report judged and written down: the verdict of `fairdeal fairness`
//! ([`judge_run`]) and its `--json` document ([`RunDocument`]), which `fairdeal merge` also
//! renders from each shard's counts and compares with the shard's file.

use serde::Serialize;

use crate::statement::battery_sentence;
use crate::{
    BatteryReport, Equivalence, FairnessReport, JudgeConfig, PASS_THRESHOLD, TestKind, TestName,
};

/// The verdict on one permutation or position test's report, decided where every judge's is
/// ([`BatteryReport::judged`], a battery of one test with the default Monte Carlo settings).
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::{Equivalence, Verdict, judge_run, position_test};
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let report = position_test(&fairdeal_inplace::Inplace::new(), 4, 1_000_000, &mut rng)?;
/// assert_eq!(judge_run(&report, &Equivalence::default()).verdict, Verdict::Fair);
/// # Ok::<(), fairdeal_fairness::FairnessError>(())
/// ```
pub fn judge_run(report: &FairnessReport, equivalence: &Equivalence) -> BatteryReport {
    let name = match report.test {
        TestKind::Permutation => TestName::Permutation,
        _ => TestName::Position,
    };
    BatteryReport::judged(
        vec![(name, report.clone())],
        PASS_THRESHOLD,
        &JudgeConfig::default(),
        equivalence,
    )
}

/// What a run was made with, as its document names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunNames<'a> {
    /// The shuffling algorithm's name.
    pub algorithm: &'a str,
    /// The backend's name.
    pub backend: &'a str,
    /// The sampler's name (`backend` for the backend's own).
    pub sampler: &'a str,
}

/// The `fairdeal fairness --json` document of a run: its parameters, counts and statistic, the
/// valid p-value and how it was computed, and the verdict with what it certifies. `X` is the
/// shard object a shard adds (absent for a whole run).
#[derive(Debug, Serialize)]
pub struct RunDocument<'a, X> {
    /// The shuffling algorithm.
    pub algorithm: &'a str,
    /// The backend.
    pub backend: &'a str,
    /// The sampler.
    pub sampler: &'a str,
    /// The run's seed.
    pub seed: u64,
    /// Whether the seed was drawn from the OS.
    pub seed_from_os: bool,
    /// Elements shuffled.
    pub n: usize,
    /// Shuffles.
    pub trials: u64,
    /// The test's name.
    pub test: &'static str,
    /// The counts.
    pub counts: &'a [u64],
    /// Expected count per cell.
    pub expected: f64,
    /// Pearson's statistic.
    pub chi2: f64,
    /// Its degrees of freedom.
    pub df: u64,
    /// The valid p-value the verdict uses.
    pub p_value: f64,
    /// The chi-square upper tail (valid only with 5 or more expected per cell).
    pub chi2_upper_tail_p_value: f64,
    /// How `p_value` was computed.
    pub p_value_method: &'static str,
    /// Monte Carlo replicates, when `p_value` is a Monte Carlo one.
    pub replicates: Option<u64>,
    /// Whether `p_value` is two-sided.
    pub two_sided: bool,
    /// The rejection threshold.
    pub alpha: f64,
    /// A shard's `shard` object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<X>,
    /// Fair (the bound is within the tolerance), unfair (the test rejects) or insufficient.
    pub verdict: &'static str,
    /// What the verdict certifies, as the text prints it.
    pub statement: String,
    /// At `confidence`, no cell is more than this fraction more or less likely than fair.
    pub certified_bound: Option<f64>,
    /// The tolerance the bound is judged with.
    pub tolerance: Option<f64>,
    /// The confidence of the bound.
    pub confidence: f64,
    /// When insufficient: about how many shuffles a fair shuffler needs to certify the
    /// tolerance.
    pub samples_needed: Option<u64>,
}

impl<'a, X> RunDocument<'a, X> {
    /// The document of `report` judged as `judged` ([`judge_run`]), made with `names` and
    /// `seed`; `shard` is a shard's `shard` object.
    pub fn new(
        report: &'a FairnessReport,
        names: RunNames<'a>,
        seed: u64,
        seed_from_os: bool,
        shard: Option<X>,
        judged: &BatteryReport,
    ) -> Self {
        let test = &judged.tests[0];
        RunDocument {
            algorithm: names.algorithm,
            backend: names.backend,
            sampler: names.sampler,
            seed,
            seed_from_os,
            n: report.n,
            trials: report.trials,
            test: report.test.name(),
            counts: &report.counts,
            expected: report.expected_count(),
            chi2: report.chi2,
            df: report.df,
            p_value: test.p_value,
            chi2_upper_tail_p_value: report.p_value,
            p_value_method: test.judgement.method.name(),
            replicates: test.judgement.replicates,
            two_sided: test.judgement.two_sided(),
            alpha: PASS_THRESHOLD,
            shard,
            verdict: judged.verdict.name(),
            statement: battery_sentence(judged, "shuffles"),
            certified_bound: test.certified.bound,
            tolerance: test.certified.tolerance,
            confidence: test.certified.confidence,
            samples_needed: judged.samples_needed,
        }
    }
}
