/*!
What `fairdeal compare` computes for one generator, so that the CLI and `cargo xtask`'s report
read the same numbers: the shuffle-quality battery judged with a tolerance ([`compare_battery`]),
each test as one row ([`ComparedTest`]), and the short forms the tables print ([`short_p`],
[`test_mark`]).
*/

use fairdeal_core::{Rng, Shuffler};
use serde::Serialize;

use crate::{
    BatteryConfig, BatteryReport, Equivalence, FairnessError, TestName, Verdict, run_battery_judged,
};

/// One test of a compared generator, as `fairdeal compare --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedTest {
    /// The test's name.
    pub name: &'static str,
    /// Its statistic.
    pub statistic: f64,
    /// Its degrees of freedom.
    pub df: u64,
    /// Its valid p-value (two-sided where valid).
    pub p_value: f64,
    /// Its p-value after Holm's correction over the battery.
    pub holm_adjusted_p_value: f64,
    /// `"fair"`, `"unfair"` or `"insufficient"`.
    pub verdict: &'static str,
    /// At the report's confidence, no cell more than this fraction more or less likely than
    /// fair (`null` for the repeat tests).
    pub certified_bound: Option<f64>,
    /// The tolerance the bound was judged with.
    pub tolerance: Option<f64>,
    /// The repeat tests' bound: at the report's confidence, the source has at least this many
    /// equally likely outputs (absent for the other tests).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs_at_least: Option<f64>,
}

/// One generator's comparison: the battery and its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Compared {
    /// The battery, judged.
    pub battery: BatteryReport,
    /// The test that decided an UNFAIR verdict (`None` unless unfair).
    pub decided_by: Option<TestName>,
    /// Every test, in the battery's order.
    pub tests: Vec<ComparedTest>,
}

/// The battery's sizes `fairdeal compare` runs: enough shuffles for a fair generator's bounds
/// to certify `equivalence`'s tolerances ([`BatteryConfig::certifying`]).
pub fn compare_config(equivalence: &Equivalence) -> BatteryConfig {
    BatteryConfig::certifying(equivalence)
}

/// Runs the battery on `shuffler` with generators from `make_rng`, seed `seed`, sizes
/// `config`, judged with `equivalence` ([`run_battery_judged`]), and lists its tests.
///
/// # Errors
///
/// The battery's [`FairnessError`] for sizes it does not take.
pub fn compare_battery<S, R, F>(
    shuffler: &S,
    make_rng: F,
    seed: u64,
    config: &BatteryConfig,
    equivalence: &Equivalence,
) -> Result<Compared, FairnessError>
where
    S: Shuffler + ?Sized,
    R: Rng,
    F: FnMut(u64) -> R,
{
    let battery = run_battery_judged(shuffler, make_rng, seed, config, equivalence)?;
    let tests = battery
        .tests
        .iter()
        .map(|t| ComparedTest {
            name: t.name.name(),
            statistic: t.report.chi2,
            df: t.report.df,
            p_value: t.p_value,
            holm_adjusted_p_value: t.adjusted_p,
            verdict: t.verdict().name(),
            certified_bound: t.certified.bound,
            tolerance: t.certified.tolerance,
            outputs_at_least: t.certified.outputs_at_least,
        })
        .collect();
    let decided_by = (battery.verdict == Verdict::Unfair)
        .then_some(battery.decided_by)
        .flatten();
    Ok(Compared {
        battery,
        decided_by,
        tests,
    })
}

/// A p-value in a table cell: `0`, two decimals from 0.01, else one significant digit.
///
/// ```
/// use fairdeal_fairness::comparison::short_p;
/// assert_eq!(short_p(0.0), "0");
/// assert_eq!(short_p(0.4567), "0.46");
/// assert_eq!(short_p(0.00032), "3e-4");
/// ```
pub fn short_p(p: f64) -> String {
    if p == 0.0 {
        "0".to_owned()
    } else if p >= 0.01 {
        format!("{p:.2}")
    } else {
        format!("{p:.0e}")
    }
}

/// The mark after a test's p-value: none when fair, ` !` when it rejects, ` ?` when it does
/// not reject and does not bound its cells within its tolerance.
pub const fn test_mark(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Fair => "",
        Verdict::Unfair => " !",
        Verdict::Insufficient => " ?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::SeedableRng;
    use fairdeal_inplace::Inplace;
    use fairdeal_naive::Biased;

    fn small() -> BatteryConfig {
        BatteryConfig {
            small_trials: 20_000,
            deck_trials: 2_000,
            seeds: 2_000,
            ..BatteryConfig::default()
        }
    }

    /// The rows are the battery's tests, and an UNFAIR verdict names the test that decided it
    /// (the wrong-range swap); a fair shuffle decides nothing.
    #[test]
    fn rows_follow_the_battery_and_unfair_names_its_test() {
        let make = rand_pcg::Pcg64::seed_from_u64;
        let biased =
            compare_battery(&Biased::new(), make, 1, &small(), &Equivalence::default()).unwrap();
        assert_eq!(biased.battery.verdict, Verdict::Unfair);
        assert!(biased.decided_by.is_some());
        assert_eq!(biased.tests.len(), biased.battery.tests.len());
        for (row, test) in biased.tests.iter().zip(&biased.battery.tests) {
            assert_eq!(row.name, test.name.name());
            assert_eq!(row.holm_adjusted_p_value, test.adjusted_p);
            assert_eq!(row.verdict, test.verdict().name());
        }
        let fair =
            compare_battery(&Inplace::new(), make, 1, &small(), &Equivalence::default()).unwrap();
        assert_ne!(fair.battery.verdict, Verdict::Unfair);
        assert_eq!(fair.decided_by, None);
        assert_eq!(test_mark(Verdict::Unfair), " !");
    }
}
