//! A chunk-seeded run's report judged and written down: the verdict of `fairdeal fairness`
//! ([`judge_run`]) and its `--json` document ([`RunDocument`]), which `fairdeal merge` also
//! renders from each shard's counts and compares with the shard's file, then adds up
//! ([`RunTally`]).

use serde::{Deserialize as _, Serialize};
use serde_json::{Map, Value};

use crate::audit::AuditError;
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

/// The tallies a run's document records, shuffles and counts per cell: what the shards of one
/// run add up to the whole run's (`fairdeal merge`), before
/// [`report_from_counts`](crate::report_from_counts) derives every statistic again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunTally {
    /// Shuffles.
    pub trials: u64,
    /// Counts per cell (empty before the first shard is added).
    pub counts: Vec<u64>,
}

/// Why two run tallies cannot be added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TallyError {
    /// A count passes 2^64 − 1.
    #[error("the counts add up past 2^64 − 1")]
    Counts,
    /// The shuffles pass 2^64 − 1.
    #[error("the shuffles add up past 2^64 − 1")]
    Trials,
    /// Tallies of tables of different sizes.
    #[error("{0} cells cannot be added to {1}")]
    Cells(usize, usize),
}

impl RunTally {
    /// Adds `other` to this tally, checked: on an error this tally is unchanged.
    ///
    /// ```
    /// use fairdeal_fairness::{RunTally, TallyError};
    /// let mut sum = RunTally::default();
    /// sum.add(&RunTally { trials: 3, counts: vec![1, 2] })?;
    /// sum.add(&RunTally { trials: 2, counts: vec![0, 2] })?;
    /// assert_eq!(sum, RunTally { trials: 5, counts: vec![1, 4] });
    /// assert_eq!(sum.add(&RunTally { trials: 1, counts: vec![1] }), Err(TallyError::Cells(1, 2)));
    /// # Ok::<(), TallyError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`TallyError`]: an overflowing count or total, or a table of another size.
    pub fn add(&mut self, other: &RunTally) -> Result<(), TallyError> {
        if self.counts.is_empty() && self.trials == 0 {
            self.counts = vec![0; other.counts.len()];
        }
        if self.counts.len() != other.counts.len() {
            return Err(TallyError::Cells(other.counts.len(), self.counts.len()));
        }
        let counts = self
            .counts
            .iter()
            .zip(&other.counts)
            .map(|(a, b)| a.checked_add(*b))
            .collect::<Option<Vec<u64>>>()
            .ok_or(TallyError::Counts)?;
        self.trials = self
            .trials
            .checked_add(other.trials)
            .ok_or(TallyError::Trials)?;
        self.counts = counts;
        Ok(())
    }
}

/// Why a run's document cannot be read back.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunFieldError {
    /// A field that is missing or malformed.
    #[error("field \"{0}\" is missing or malformed")]
    Field(&'static str),
    /// A tolerance or confidence no command line accepts.
    #[error(transparent)]
    Equivalence(#[from] AuditError),
}

/// What a run's [`RunDocument`] says about the run besides its tallies: read back by
/// `fairdeal merge`, which renders every shard again with it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunParams {
    /// Elements shuffled.
    pub n: usize,
    /// The test.
    pub test: TestKind,
    /// The shuffling algorithm's name.
    pub algorithm: String,
    /// The backend's name.
    pub backend: String,
    /// The sampler's name (`backend` when the document names none).
    pub sampler: String,
    /// The run's seed.
    pub seed: u64,
    /// Whether the seed was drawn from the OS.
    pub seed_from_os: bool,
    /// The tolerance and confidence it was judged with, checked ([`Equivalence::checked`]).
    pub equivalence: Equivalence,
}

impl RunParams {
    /// The parameters a [`RunDocument`] records.
    ///
    /// # Errors
    ///
    /// [`RunFieldError`]: the first field missing or malformed, or an equivalence no command
    /// line accepts.
    pub fn from_document(doc: &Map<String, Value>) -> Result<RunParams, RunFieldError> {
        use RunFieldError::Field;
        let text = |key: &'static str| doc.get(key).and_then(Value::as_str).ok_or(Field(key));
        let n = doc.get("n").and_then(Value::as_u64);
        let n = n.and_then(|n| usize::try_from(n).ok()).ok_or(Field("n"))?;
        let test = doc.get("test").ok_or(Field("test"))?;
        let test = TestKind::deserialize(test).map_err(|_| Field("test"))?;
        let algorithm = text("algorithm")?.to_owned();
        let backend = text("backend")?.to_owned();
        let seed = doc
            .get("seed")
            .and_then(Value::as_u64)
            .ok_or(Field("seed"))?;
        let sampler = match doc.get("sampler") {
            Some(_) => text("sampler")?.to_owned(),
            None => String::from("backend"),
        };
        let seed_from_os = doc.get("seed_from_os").and_then(Value::as_bool);
        let seed_from_os = seed_from_os.ok_or(Field("seed_from_os"))?;
        Ok(RunParams {
            n,
            test,
            algorithm,
            backend,
            sampler,
            seed,
            seed_from_os,
            equivalence: Equivalence::from_document(doc)?,
        })
    }

    /// The names its document gives the run.
    pub fn names(&self) -> RunNames<'_> {
        RunNames {
            algorithm: &self.algorithm,
            backend: &self.backend,
            sampler: &self.sampler,
        }
    }
}

impl Equivalence {
    /// The equivalence a judged document records in its `tolerance` (absent or `null`: the
    /// families' defaults) and `confidence`, checked ([`Equivalence::checked`]).
    ///
    /// # Errors
    ///
    /// [`RunFieldError`]: `confidence` or `tolerance` missing or not a number (in that
    /// order), or values no command line accepts.
    pub fn from_document(doc: &Map<String, Value>) -> Result<Equivalence, RunFieldError> {
        let confidence = doc.get("confidence").and_then(Value::as_f64);
        let confidence = confidence.ok_or(RunFieldError::Field("confidence"))?;
        let tolerance = match doc.get("tolerance") {
            None | Some(Value::Null) => None,
            Some(value) => Some(value.as_f64().ok_or(RunFieldError::Field("tolerance"))?),
        };
        Ok(Equivalence::checked(tolerance, confidence)?)
    }
}

impl RunTally {
    /// The tally a [`RunDocument`] records: its `trials` and `counts`.
    ///
    /// # Errors
    ///
    /// [`RunFieldError::Field`] naming `counts` or `trials` when missing or malformed.
    pub fn from_document(doc: &Map<String, Value>) -> Result<RunTally, RunFieldError> {
        let counts = doc
            .get("counts")
            .and_then(Value::as_array)
            .and_then(|c| c.iter().map(Value::as_u64).collect::<Option<Vec<u64>>>())
            .ok_or(RunFieldError::Field("counts"))?;
        let trials = doc.get("trials").and_then(Value::as_u64);
        Ok(RunTally {
            trials: trials.ok_or(RunFieldError::Field("trials"))?,
            counts,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_add_up_checked_and_stay_unchanged_on_an_error() {
        let mut sum = RunTally::default();
        sum.add(&RunTally {
            trials: 4,
            counts: vec![4, 0, 0],
        })
        .unwrap();
        let before = sum.clone();
        assert_eq!(
            sum.add(&RunTally {
                trials: 1,
                counts: vec![u64::MAX, 0, 0]
            }),
            Err(TallyError::Counts)
        );
        assert_eq!(
            sum.add(&RunTally {
                trials: u64::MAX,
                counts: vec![0, 0, 0]
            }),
            Err(TallyError::Trials)
        );
        assert_eq!(sum, before);
        sum.add(&RunTally {
            trials: 2,
            counts: vec![0, 1, 1],
        })
        .unwrap();
        assert_eq!(
            sum,
            RunTally {
                trials: 6,
                counts: vec![4, 1, 1]
            }
        );
    }

    #[test]
    fn a_run_document_reads_back_its_parameters_and_tally() {
        let report = crate::report_from_counts(TestKind::Position, 2, 4, vec![2, 2, 2, 2]).unwrap();
        let equivalence = Equivalence {
            tolerance: Some(0.5),
            confidence: 0.9,
        };
        let judged = judge_run(&report, &equivalence);
        let names = RunNames {
            algorithm: "inplace",
            backend: "pcg64",
            sampler: "lemire",
        };
        let doc = RunDocument::<()>::new(&report, names, 7, false, None, &judged);
        let Value::Object(mut map) = serde_json::to_value(&doc).unwrap() else {
            unreachable!("an object")
        };
        let params = RunParams::from_document(&map).unwrap();
        assert_eq!(
            (params.n, params.test, params.seed),
            (2, TestKind::Position, 7)
        );
        assert_eq!((params.names(), params.equivalence), (names, equivalence));
        let tally = RunTally::from_document(&map).unwrap();
        assert_eq!(
            tally,
            RunTally {
                trials: 4,
                counts: vec![2, 2, 2, 2]
            }
        );

        map.remove("sampler");
        assert_eq!(RunParams::from_document(&map).unwrap().sampler, "backend");
        map.insert("confidence".into(), 1.0.into());
        assert_eq!(
            RunParams::from_document(&map),
            Err(RunFieldError::Equivalence(AuditError::Confidence(1.0)))
        );
        map.insert("test".into(), "shuffle".into());
        assert_eq!(
            RunParams::from_document(&map),
            Err(RunFieldError::Field("test"))
        );
        map.insert("counts".into(), serde_json::json!([1, -1]));
        assert_eq!(
            RunTally::from_document(&map),
            Err(RunFieldError::Field("counts"))
        );
    }
}
