//! Unit tests: a local fair Durstenfeld must pass, and the classic mistakes (wrong-range swap,
//! Sattolo's cyclic shuffle, a broken RNG) must be rejected by the same tests.

use core::convert::Infallible;

use fairdeal_core::rand_core::TryRng;
use fairdeal_core::{AlgorithmInfo, Complexity, IndexSampler, Lemire, Rng, SeedableRng, Shuffler};
use fairdeal_testkit::HalfRange;
use rand_pcg::Pcg64;

use crate::*;

const REJECT: f64 = 1e-9;

fn info(name: &'static str, fair: bool) -> AlgorithmInfo {
    AlgorithmInfo {
        name,
        complexity: Complexity::Linear,
        fair,
        summary: "test shuffler",
    }
}

/// The reference algorithm, kept local so this crate depends on no algorithm crate.
struct Durstenfeld;

impl Shuffler for Durstenfeld {
    fn info(&self) -> AlgorithmInfo {
        info("durstenfeld", true)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        for i in (1..data.len()).rev() {
            data.swap(i, Lemire.index_below(rng, i + 1));
        }
    }
}

/// A correct O(k) partial shuffle, to exercise `shuffle_prefix` with k < n.
struct Partial;

impl Shuffler for Partial {
    fn info(&self) -> AlgorithmInfo {
        info("partial", true)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        let n = data.len();
        let _ = self.shuffle_prefix(data, n, rng);
    }
    fn shuffle_prefix<T, R: Rng + ?Sized>(
        &self,
        data: &mut [T],
        k: usize,
        rng: &mut R,
    ) -> Result<(), fairdeal_core::ShuffleError> {
        fairdeal_core::check_prefix(k, data.len())?;
        let n = data.len();
        for i in 0..k {
            data.swap(i, i + Lemire.index_below(rng, n - i));
        }
        Ok(())
    }
}

/// The wrong-range swap: `n^n` paths onto `n!` orders.
struct Biased;

impl Shuffler for Biased {
    fn info(&self) -> AlgorithmInfo {
        info("biased", false)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        for i in 0..data.len() {
            data.swap(i, Lemire.index_below(rng, data.len()));
        }
    }
}

/// Sattolo's algorithm (the off-by-one `index in [0, i)`): only the `(n-1)!` cyclic orders, so
/// no element ever stays in place.
struct Sattolo;

impl Shuffler for Sattolo {
    fn info(&self) -> AlgorithmInfo {
        info("sattolo", false)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], rng: &mut R) {
        for i in (1..data.len()).rev() {
            data.swap(i, Lemire.index_below(rng, i));
        }
    }
}

/// Leaves the slice alone: every trial is the identity.
struct Identity;

impl Shuffler for Identity {
    fn info(&self) -> AlgorithmInfo {
        info("identity", false)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, _: &mut [T], _: &mut R) {}
}

/// Reverses the slice: every trial is the last order.
struct Reverse;

impl Shuffler for Reverse {
    fn info(&self) -> AlgorithmInfo {
        info("reverse", false)
    }
    fn shuffle<T, R: Rng + ?Sized>(&self, data: &mut [T], _: &mut R) {
        data.reverse();
    }
}

/// A broken generator with period 2. (A constant-zero generator would make Lemire's rejection
/// loop spin forever for most bounds, which proves nothing; period 2 is just as broken.)
struct PeriodTwo(bool);

impl TryRng for PeriodTwo {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.0 = !self.0;
        Ok(if self.0 { 0x9E37_79B9 } else { 0x7F4A_7C15 })
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(u64::from(self.try_next_u32()?) << 32 | u64::from(self.try_next_u32()?))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        for b in dst {
            *b = self.try_next_u32()? as u8;
        }
        Ok(())
    }
}

fn rng(seed: u64) -> Pcg64 {
    Pcg64::seed_from_u64(seed)
}

#[test]
fn durstenfeld_passes_the_permutation_test_for_every_n() {
    for (n, trials) in [
        (2, 20_000),
        (3, 60_000),
        (4, 60_000),
        (5, 60_000),
        (6, 60_000),
        (7, 100_000),
        (8, 250_000),
    ] {
        let report = permutation_test(&Durstenfeld, n, trials, &mut rng(n as u64)).unwrap();
        assert_eq!(report.test, TestKind::Permutation);
        assert_eq!(report.counts.len() as u64, factorial(n).unwrap());
        assert_eq!(report.counts.iter().sum::<u64>(), trials);
        assert_eq!(report.df, factorial(n).unwrap() - 1);
        assert!(report.expected_count() >= MIN_EXPECTED_COUNT, "n = {n}");
        assert!(report.is_fair(PASS_THRESHOLD), "n = {n}: {report:?}");
    }
}

#[test]
fn the_biased_swap_is_rejected_with_the_textbook_shape() {
    let report = permutation_test(&Biased, 3, 270_000, &mut rng(3)).unwrap();
    assert!(report.p_value < REJECT, "{report:?}");
    // 27 equally likely paths: [0,2,1], [1,0,2], [1,2,0] get 5 of them, the others 4.
    for (rank, paths) in [4u64, 5, 5, 5, 4, 4].into_iter().enumerate() {
        let expected = paths * 10_000;
        let got = report.counts[rank];
        assert!(
            got.abs_diff(expected) < 1_000,
            "rank {rank}: {got} vs {expected}"
        );
    }
    for n in 4..=6 {
        let report = permutation_test(&Biased, n, 60_000, &mut rng(n as u64)).unwrap();
        assert!(report.p_value < REJECT, "n = {n}: p = {}", report.p_value);
    }
}

#[test]
fn sattolo_is_rejected() {
    let report = permutation_test(&Sattolo, 4, 10_000, &mut rng(1)).unwrap();
    assert!(report.p_value < REJECT);
    // Only the 3! = 6 cyclic orders of 4 elements ever appear.
    assert_eq!(report.counts.iter().filter(|&&c| c > 0).count(), 6);
    let report = position_test(&Sattolo, 52, 2_000, &mut rng(2)).unwrap();
    assert!(report.p_value < REJECT);
    let rows: Vec<&[u64]> = report.matrix().unwrap().collect();
    assert!(
        (0..52).all(|e| rows[e][e] == 0),
        "no element stays in place"
    );
}

#[test]
fn counts_are_indexed_by_lexicographic_rank() {
    let report = permutation_test(&Identity, 4, 100, &mut rng(0)).unwrap();
    assert_eq!(report.counts[0], 100);
    assert!(report.p_value < REJECT);
    let report = permutation_test(&Reverse, 4, 100, &mut rng(0)).unwrap();
    assert_eq!(report.counts[23], 100);
    assert_eq!(unrank_permutation(4, 23).unwrap(), [3, 2, 1, 0]);
}

#[test]
fn broken_rngs_are_rejected() {
    for n in [3, 4, 6] {
        let p = permutation_test(&Durstenfeld, n, 60_000, &mut PeriodTwo(false))
            .unwrap()
            .p_value;
        assert!(p < REJECT, "period two, n = {n}: p = {p}");
        let p = permutation_test(&Durstenfeld, n, 60_000, &mut HalfRange(rng(9)))
            .unwrap()
            .p_value;
        assert!(p < REJECT, "stuck bit, n = {n}: p = {p}");
    }
    let p = position_test(&Durstenfeld, 52, 2_000, &mut PeriodTwo(true))
        .unwrap()
        .p_value;
    assert!(p < REJECT, "period two, position: p = {p}");
    let p = position_test(&Durstenfeld, 52, 2_000, &mut HalfRange(rng(9)))
        .unwrap()
        .p_value;
    assert!(p < REJECT, "stuck bit, position: p = {p}");
}

#[test]
fn position_test_accepts_fair_and_rejects_biased() {
    let report = position_test(&Durstenfeld, 52, 20_000, &mut rng(52)).unwrap();
    assert_eq!(report.test, TestKind::Position);
    assert_eq!(report.df, 51 * 51);
    assert!(report.expected_count() >= MIN_EXPECTED_COUNT);
    assert!(report.is_fair(PASS_THRESHOLD), "p = {}", report.p_value);
    // Every row (element) and every column (position) sums to the number of trials.
    let rows: Vec<&[u64]> = report.matrix().unwrap().collect();
    assert_eq!(rows.len(), 52);
    assert!(rows.iter().all(|row| row.iter().sum::<u64>() == 20_000));
    assert!((0..52).all(|p| rows.iter().map(|row| row[p]).sum::<u64>() == 20_000));

    let biased = position_test(&Biased, 52, 20_000, &mut rng(52)).unwrap();
    assert!(biased.p_value < REJECT, "p = {}", biased.p_value);
    for n in [2, 3, 10, 100] {
        let report = position_test(&Durstenfeld, n, 5_000, &mut rng(n as u64)).unwrap();
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "n = {n}: p = {}",
            report.p_value
        );
    }
}

#[test]
fn prefix_test_accepts_a_fair_deal_and_rejects_a_bad_one() {
    for k in [1, 2, 7, 51, 52] {
        let report = prefix_position_test(&Partial, 52, k, 20_000, &mut rng(k as u64)).unwrap();
        assert_eq!(report.test, TestKind::Prefix);
        assert_eq!(report.counts.len(), 52 * k);
        let df = if k == 52 { 51 * 51 } else { 51 * k as u64 };
        assert_eq!(report.df, df);
        assert!(
            report.is_fair(PASS_THRESHOLD),
            "k = {k}: p = {}",
            report.p_value
        );
    }
    // Whole shuffles via the default `shuffle_prefix` pass too.
    let report = prefix_position_test(&Durstenfeld, 52, 7, 20_000, &mut rng(7)).unwrap();
    assert!(report.is_fair(PASS_THRESHOLD));
    // The wrong-range swap's first seven seats are already visibly biased.
    let report = prefix_position_test(&Biased, 52, 7, 20_000, &mut rng(7)).unwrap();
    assert!(report.p_value < REJECT, "p = {}", report.p_value);
}

/// Over many independent fair runs the statistic must average its degrees of freedom. This is
/// what pins the `(n - 1)/n` correction of the position statistic: without it the mean would be
/// `n(n - 1)` (30 instead of 25 at n = 6), far outside these bounds.
#[test]
fn statistics_are_calibrated_under_the_null() {
    const RUNS: u64 = 400;
    fn assert_mean_is_df(name: &str, rng: &mut Pcg64, run: impl Fn(&mut Pcg64) -> FairnessReport) {
        let reports: Vec<FairnessReport> = (0..RUNS).map(|_| run(rng)).collect();
        let df = reports[0].df as f64;
        let mean = reports.iter().map(|r| r.chi2).sum::<f64>() / RUNS as f64;
        // The mean of RUNS χ²(df) draws has standard deviation sqrt(2·df/RUNS); allow 4 of them.
        let tolerance = 4.0 * (2.0 * df / RUNS as f64).sqrt();
        assert!(
            (mean - df).abs() < tolerance,
            "{name}: mean {mean} vs df {df}"
        );
    }
    let mut rng = rng(2024);
    assert_mean_is_df("permutation n=3", &mut rng, |r| {
        permutation_test(&Durstenfeld, 3, 300, r).unwrap()
    });
    assert_mean_is_df("position n=6", &mut rng, |r| {
        position_test(&Durstenfeld, 6, 600, r).unwrap()
    });
    assert_mean_is_df("prefix n=6 k=3", &mut rng, |r| {
        prefix_position_test(&Partial, 6, 3, 600, r).unwrap()
    });
    assert_mean_is_df("prefix n=6 k=1", &mut rng, |r| {
        prefix_position_test(&Partial, 6, 1, 600, r).unwrap()
    });
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    let mut r = rng(0);
    for n in [0, 1, 9, 100] {
        assert_eq!(
            permutation_test(&Durstenfeld, n, 10, &mut r),
            Err(FairnessError::SizeOutOfRange {
                test: TestKind::Permutation,
                n,
                min: 2,
                max: 8
            })
        );
    }
    for n in [0, 1, MAX_POSITION_N + 1, usize::MAX] {
        assert!(matches!(
            position_test(&Durstenfeld, n, 10, &mut r),
            Err(FairnessError::SizeOutOfRange {
                test: TestKind::Position,
                ..
            })
        ));
    }
    assert_eq!(
        permutation_test(&Durstenfeld, 3, 0, &mut r),
        Err(FairnessError::ZeroTrials)
    );
    assert_eq!(
        position_test(&Durstenfeld, 52, 0, &mut r),
        Err(FairnessError::ZeroTrials)
    );
    assert_eq!(
        permutation_test(&Durstenfeld, 2, u64::MAX, &mut r),
        Err(FairnessError::TooManyTrials {
            trials: u64::MAX,
            n: 2
        })
    );
    assert_eq!(
        position_test(&Durstenfeld, 52, u64::MAX / 2, &mut r),
        Err(FairnessError::TooManyTrials {
            trials: u64::MAX / 2,
            n: 52
        })
    );
    for k in [0, 53] {
        assert_eq!(
            prefix_position_test(&Partial, 52, k, 10, &mut r),
            Err(FairnessError::PrefixOutOfRange { k, n: 52 })
        );
    }
    // The extremes that are allowed work.
    assert!(position_test(&Durstenfeld, MAX_POSITION_N, 1, &mut r).is_ok());
    assert!(prefix_position_test(&Partial, 2, 1, 1, &mut r).is_ok());
}

#[test]
fn reports_serialize_with_the_documented_field_names() {
    let report = permutation_test(&Durstenfeld, 3, 600, &mut rng(1)).unwrap();
    let json: serde_json::Value = serde_json::to_value(&report).unwrap();
    assert_eq!(json["test"], "permutation");
    assert_eq!(json["n"], 3);
    assert_eq!(json["trials"], 600);
    assert_eq!(json["df"], 5);
    assert_eq!(json["counts"].as_array().unwrap().len(), 6);
    assert!(json["chi2"].is_f64() && json["p_value"].is_f64());
    let back: FairnessReport = serde_json::from_value(json).unwrap();
    assert_eq!(back, report);
    let json = serde_json::to_value(position_test(&Durstenfeld, 4, 40, &mut rng(1)).unwrap());
    assert_eq!(json.unwrap()["test"], "position");
    assert_eq!(serde_json::to_value(TestKind::Prefix).unwrap(), "prefix");
}

#[test]
fn is_fair_compares_strictly_and_nan_is_never_fair() {
    let mut report = permutation_test(&Durstenfeld, 2, 100, &mut rng(1)).unwrap();
    report.p_value = PASS_THRESHOLD;
    assert!(!report.is_fair(PASS_THRESHOLD));
    report.p_value = f64::NAN;
    assert!(!report.is_fair(PASS_THRESHOLD));
    assert!(report.matrix().is_none());
}
