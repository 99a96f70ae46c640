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

/// The facts a comparison row states about a generator (its backend's description).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratorFacts {
    /// The backend's name.
    pub name: &'static str,
    /// Bits of state.
    pub state_bits: u32,
    /// The largest deck every order of which the generator can reach.
    pub reach_n: u32,
    /// Whether it is a cryptographic generator.
    pub crypto: bool,
}

/// One generator's row of `fairdeal compare`: its facts, its live speed and its battery,
/// judged; `fairdeal compare --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct ComparedRow {
    /// The backend's name.
    pub backend: &'static str,
    /// Nanoseconds per word ([`Speed`]).
    pub ns_per_word: f64,
    /// Nanoseconds per 52-card shuffle ([`Speed`]).
    pub ns_per_52_card_shuffle: f64,
    /// Bits of state.
    pub state_bits: u32,
    /// The largest deck every order of which the generator can reach.
    pub reach_n: u32,
    /// Whether it is a cryptographic generator.
    pub crypto: bool,
    /// Fair (every test bounds its cells within its tolerance), unfair or insufficient.
    pub verdict: &'static str,
    /// What the verdict certifies, as the text prints it.
    pub statement: String,
    /// The test that decided an UNFAIR verdict.
    pub decided_by: Option<&'static str>,
    /// Every test, in the battery's order.
    pub tests: Vec<ComparedTest>,
    /// The battery, judged.
    #[serde(skip)]
    pub battery: BatteryReport,
}

impl ComparedRow {
    /// The row of a generator with `facts`, measured at `speed`, its battery `compared`.
    pub fn new(facts: GeneratorFacts, speed: Speed, compared: Compared) -> Self {
        let battery = compared.battery;
        ComparedRow {
            backend: facts.name,
            ns_per_word: speed.ns_per_word,
            ns_per_52_card_shuffle: speed.ns_per_52_card_shuffle,
            state_bits: facts.state_bits,
            reach_n: facts.reach_n,
            crypto: facts.crypto,
            verdict: battery.verdict.name(),
            statement: crate::statement::battery_sentence(&battery, "shuffles"),
            decided_by: compared.decided_by.map(TestName::name),
            tests: compared.tests,
            battery,
        }
    }
}

/// The `fairdeal compare --json` document.
#[derive(Debug, Serialize)]
pub struct ComparisonDocument<'a> {
    /// The shuffling algorithm the batteries ran.
    pub algorithm: &'a str,
    /// The batteries' seed.
    pub seed: u64,
    /// Whether it was drawn from the OS.
    pub seed_from_os: bool,
    /// The rejection threshold.
    pub alpha: f64,
    /// The multiple-test correction (`holm`).
    pub correction: &'static str,
    /// The confidence of the certified bounds.
    pub confidence: f64,
    /// The battery's sizes.
    pub battery: &'a BatteryConfig,
    /// `/proc/loadavg`'s 1-minute load when the speeds were measured, if readable.
    pub load_average: Option<f64>,
    /// One row per generator.
    pub backends: &'a [ComparedRow],
}

/// Timing rounds per speed measurement ([`measure_speed`]); the median is reported.
pub const SPEED_ROUNDS: usize = 7;
/// Words drawn per timing round.
const WORDS_PER_ROUND: u64 = 1 << 17;
/// 52-card shuffles per timing round.
const SHUFFLES_PER_ROUND: u64 = 2_000;

/// A generator's speed, measured live: a quick figure for orientation (the benchmark suite is
/// where speed claims live).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speed {
    /// Nanoseconds per 64-bit word drawn (median of [`SPEED_ROUNDS`] rounds).
    pub ns_per_word: f64,
    /// Nanoseconds per shuffle of a 52-card deck with `shuffler` (median of [`SPEED_ROUNDS`]).
    pub ns_per_52_card_shuffle: f64,
}

/// Measures `rng`'s speed on this machine, now: words drawn, then 52-card shuffles with
/// `shuffler`, each the median of [`SPEED_ROUNDS`] short rounds.
///
/// ```
/// use fairdeal_core::SeedableRng;
/// use fairdeal_fairness::comparison::measure_speed;
/// let mut rng = rand_pcg::Pcg64::seed_from_u64(1);
/// let speed = measure_speed(&fairdeal_inplace::Inplace::new(), &mut rng);
/// assert!(speed.ns_per_word > 0.0 && speed.ns_per_52_card_shuffle > 0.0);
/// ```
pub fn measure_speed<S: Shuffler + ?Sized, R: Rng + ?Sized>(shuffler: &S, rng: &mut R) -> Speed {
    use std::hint::black_box;
    use std::time::Instant;
    let ns_per_word = median(
        (0..SPEED_ROUNDS)
            .map(|_| {
                let start = Instant::now();
                let mut acc = 0u64;
                for _ in 0..WORDS_PER_ROUND {
                    acc = acc.wrapping_add(rng.next_u64());
                }
                black_box(acc);
                start.elapsed().as_nanos() as f64 / WORDS_PER_ROUND as f64
            })
            .collect(),
    );
    let mut deck: [u8; 52] = core::array::from_fn(|i| i as u8);
    let ns_per_52_card_shuffle = median(
        (0..SPEED_ROUNDS)
            .map(|_| {
                let start = Instant::now();
                for _ in 0..SHUFFLES_PER_ROUND {
                    shuffler.shuffle(black_box(&mut deck), rng);
                }
                black_box(&deck);
                start.elapsed().as_nanos() as f64 / SHUFFLES_PER_ROUND as f64
            })
            .collect(),
    );
    Speed {
        ns_per_word,
        ns_per_52_card_shuffle,
    }
}

/// The median of `values` (the upper one of an even count; NaN for none).
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// The 1-minute load average (`/proc/loadavg`), printed beside live speeds; `None` where
/// unreadable.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fairdeal_core::SeedableRng;
    use fairdeal_inplace::Inplace;
    use fairdeal_naive::Biased;

    #[test]
    fn the_median_is_the_middle_value_and_nan_for_none() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 3.0);
        assert!(median(Vec::new()).is_nan());
    }

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
