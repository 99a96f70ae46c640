//! The report's "RNG backends: shuffle quality" section: what `fairdeal compare` computes
//! (`fairdeal_fairness::comparison::compare_battery`, default tolerances) on every backend
//! with its own sampler and the default algorithm, at a fixed seed so the section is the same
//! on every run and machine. This file only picks the sizes and prints.

use std::fmt::Write as _;

use anyhow::Result;
use fairdeal::Inplace;
use fairdeal::fairness::comparison::{Compared, compare_battery, short_p, test_mark};
use fairdeal::fairness::{BatteryConfig, Equivalence, PASS_THRESHOLD, Verdict};
use fairdeal::rng::{Backend, BackendInfo, BackendVisitor, backends, with_backend};

/// The battery's seed: fixed, so the section is deterministic.
pub(crate) const SEED: u64 = 1;

/// Runs the battery with backend `B`.
struct Battery<'a>(&'a BatteryConfig);

impl BackendVisitor for Battery<'_> {
    type Output = Result<Compared>;

    fn visit<B: Backend>(self) -> Self::Output {
        let shuffler = Inplace::with_sampler(B::Sampler::default());
        Ok(compare_battery(
            &shuffler,
            B::seeded,
            SEED,
            self.0,
            &Equivalence::default(),
        )?)
    }
}

/// The battery's sizes: the default (what `fairdeal compare` runs), or a quarter of it for
/// `--quick`, which still flags `java`'s consecutive seeds by a wide margin. xtask runs
/// unoptimised, where the full battery over every backend takes about half a minute.
pub(crate) fn config(quick: bool) -> BatteryConfig {
    let full = BatteryConfig::default();
    if quick {
        BatteryConfig {
            small_trials: full.small_trials / 4,
            deck_trials: full.deck_trials / 4,
            seeds: full.seeds / 4,
            ..full
        }
    } else {
        full
    }
}

/// Every backend's battery, in catalogue order.
pub(crate) fn run(config: &BatteryConfig) -> Result<Vec<(&'static BackendInfo, Compared)>> {
    backends()
        .iter()
        .map(|info| Ok((info, with_backend(info.name, Battery(config))??)))
        .collect()
}

/// The markdown section.
pub(crate) fn markdown(config: &BatteryConfig, rows: &[(&BackendInfo, Compared)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## RNG backends: shuffle quality\n");
    let _ = writeln!(
        s,
        "The shuffle-quality battery of `fairdeal-fairness` (what `fairdeal compare --seed {SEED}` \
         runs; docs/quality.md explains each test) on every backend with its own sampler and the \
         in-place Fisher-Yates, seed {SEED}. Cells are two-sided p-values; `!` marks a test whose \
         Holm-adjusted p-value is at most {PASS_THRESHOLD:e}, `?` one that does not reject but whose \
         certified bound is above its tolerance (these sizes are too small to certify 5 % per \
         card position; `fairdeal compare` runs enough). Permutation and serial: {} cards × \
         {} shuffles; position and adjacency: {} cards × {}; seeds-*: the first shuffle of {} \
         cards from {} seeds each.\n",
        config.small_n,
        config.small_trials,
        config.deck_n,
        config.deck_trials,
        config.small_n,
        config.seeds
    );
    let names: Vec<&str> = rows
        .first()
        .map(|(_, c)| c.tests.iter().map(|t| t.name).collect())
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "| backend | state bits | reach | crypto | {} | verdict |",
        names.join(" | ")
    );
    let _ = writeln!(s, "|---|---|---|---|{}---|", "---|".repeat(names.len()));
    for (info, compared) in rows {
        let cells: Vec<String> = compared
            .battery
            .tests
            .iter()
            .map(|t| format!("{}{}", short_p(t.p_value), test_mark(t.verdict())))
            .collect();
        let verdict = match (compared.battery.verdict, compared.decided_by) {
            (Verdict::Unfair, Some(test)) => format!("**unfair** ({})", test.name()),
            (Verdict::Unfair, None) => "**unfair**".to_owned(),
            (verdict, _) => verdict.name().to_owned(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | n ≤ {} | {} | {} | {verdict} |",
            info.name,
            info.state_bits,
            info.max_full_permutation_n,
            if info.crypto { "yes" } else { "no" },
            cells.join(" | ")
        );
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_section_flags_java_and_rejects_no_other_backend() {
        let config = config(true);
        let rows = run(&config).unwrap();
        let md = markdown(&config, &rows);
        assert!(md.contains("| java | 48 | n ≤ 16 | no |"), "{md}");
        assert_eq!(md.matches("**unfair**").count(), 1, "{md}");
        let java = md.lines().find(|l| l.starts_with("| java |")).unwrap();
        assert!(java.ends_with("| **unfair** (seeds-consecutive) |"), "{md}");
        for info in backends().iter().filter(|b| b.name != "java") {
            let row = md
                .lines()
                .find(|l| l.starts_with(&format!("| {} |", info.name)))
                .unwrap();
            // Not rejected; at the quick sizes the bounds cannot certify 5 % per card
            // position, so the verdict is insufficient, never unfair.
            assert!(row.ends_with("| insufficient |"), "{md}");
        }
    }
}
