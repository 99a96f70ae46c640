//! The SVG figures of a bench run (`<target>/bench-report/*.svg`): which series each figure
//! shows; `plot.rs` draws them.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;
use fairdeal::AlgorithmInfo;

use crate::duel::Duel;
use crate::model::{CASE_DEAL, CASE_DECK, CASE_SHUFFLE, Metric, Sample};
use crate::targets::{Check, GOALS, Source};
use crate::{catalogue, plot};

/// Writes this run's SVG figures into `dir` (removing earlier ones) and returns each file's
/// name and title: cost against N per algorithm and backend, every algorithm at the default
/// backend, and the duels' ratios ([`write_duel_plots`]).
pub(crate) fn write_plots(
    dir: &Path,
    samples: &[Sample],
    duels: &[Duel],
    algorithms: &[AlgorithmInfo],
) -> Result<Vec<(String, String)>> {
    // Remove plots of earlier runs so the directory only holds this run's figures.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "svg") {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    let mut made = Vec::new();
    let series_of = |metric: Metric,
                     pick: &dyn Fn(&Sample) -> Option<String>,
                     scale: f64|
     -> Vec<plot::Series> {
        let mut map: std::collections::BTreeMap<String, Vec<(f64, f64)>> = Default::default();
        for s in samples
            .iter()
            .filter(|s| s.metric == metric && s.case == CASE_SHUFFLE)
        {
            if let Some(key) = pick(s) {
                map.entry(key)
                    .or_default()
                    .push((s.n as f64, s.value * scale));
            }
        }
        map.into_iter().collect()
    };
    for a in algorithms {
        for (metric, unit, scale) in [
            (Metric::Instructions, "instructions per shuffle", 1.0),
            (Metric::WallNs, "median time per shuffle (ns)", 1.0),
        ] {
            let s = series_of(
                metric,
                &|s: &Sample| (s.subject == a.name).then(|| s.backend.clone()),
                scale,
            );
            let file = format!("cost-{}-{}.svg", a.name, metric.name());
            let title = format!(
                "{} ({}): {} vs N, one line per backend",
                a.name,
                a.complexity.notation(),
                metric.name()
            );
            if plot::loglog(&dir.join(&file), &title, unit, &s)? {
                made.push((file, title));
            }
        }
    }
    let default = catalogue::default_backend();
    let ours: BTreeSet<&str> = algorithms.iter().map(|a| a.name).collect();
    let s = series_of(
        Metric::WallNs,
        &|s: &Sample| {
            (s.backend == default && ours.contains(s.subject.as_str())).then(|| s.subject.clone())
        },
        1000.0 / 1e6,
    );
    let title = format!(
        "Time taken for 1000 shuffles ({default}): naive O(N²) vs Fisher-Yates and the others"
    );
    if plot::loglog(
        &dir.join("time-1000-shuffles.svg"),
        &title,
        "ms for 1000 shuffles",
        &s,
    )? {
        made.push(("time-1000-shuffles.svg".to_owned(), title));
    }
    let s = series_of(
        Metric::Instructions,
        &|s: &Sample| {
            (s.backend == default && ours.contains(s.subject.as_str())).then(|| s.subject.clone())
        },
        1.0,
    );
    let title = format!("Instructions per shuffle ({default}), every algorithm");
    if plot::loglog(
        &dir.join("instructions-by-algorithm.svg"),
        &title,
        "instructions per shuffle",
        &s,
    )? {
        made.push(("instructions-by-algorithm.svg".to_owned(), title));
    }

    made.extend(write_duel_plots(dir, duels)?);
    Ok(made)
}

/// The goal a duel is read against in the targets table, if it has one.
fn duel_goal(d: &Duel) -> Option<f64> {
    GOALS.iter().find_map(|g| match (g.source, g.check) {
        (Source::Duel(sizes), Check::RatioAtLeast(x))
            if g.ours == (d.case.as_str(), d.ours.as_str())
                && g.peer.1 == d.peer
                && sizes.contains(&d.n)
                && g.backends.contains(&d.backend.as_str()) =>
        {
            Some(x)
        }
        _ => None,
    })
}

/// How a duel's case and size read on an axis.
fn duel_category(d: &Duel) -> String {
    match d.case.as_str() {
        CASE_DECK => "deck of 52 (u8)".to_owned(),
        CASE_DEAL => "deal 7 of 52".to_owned(),
        _ => match (4..=12).find(|&k| 10u64.pow(k) == d.n) {
            Some(k) => format!("N = 10^{k}"),
            None if d.n.is_power_of_two() && d.n > 1 << 10 => {
                format!("N = 2^{}", d.n.trailing_zeros())
            }
            None => format!("N = {}", d.n),
        },
    }
}

/// One figure per pairing of our subject and a peer (`duel-<ours>-vs-<peer>.svg`): the median
/// per-round ratio of every duel with its quartiles, grouped by case and size, one colour and
/// marker per backend, with each duel's goal from the targets table. This answers "how much
/// faster than rand and fastrand, and how steady" directly, where per-element times of twelve
/// subjects did not.
pub(crate) fn write_duel_plots(dir: &Path, duels: &[Duel]) -> Result<Vec<(String, String)>> {
    let mut made = Vec::new();
    let pairs: BTreeSet<(&str, &str)> = duels
        .iter()
        .map(|d| (d.ours.as_str(), d.peer.as_str()))
        .collect();
    for (ours, peer) in pairs {
        let mine: Vec<&Duel> = duels
            .iter()
            .filter(|d| d.ours == ours && d.peer == peer)
            .collect();
        // Groups in the order deck, deal, then growing N; backends in the targets' order.
        let keys: Vec<(u8, u64, String)> = mine
            .iter()
            .map(|d| {
                let rank = match d.case.as_str() {
                    CASE_DECK => 0,
                    CASE_DEAL => 1,
                    _ => 2,
                };
                (rank, d.n, duel_category(d))
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let categories: Vec<String> = keys.into_iter().map(|k| k.2).collect();
        let mut backends: Vec<String> = crate::targets::DUEL_BACKENDS
            .iter()
            .filter(|b| mine.iter().any(|d| d.backend == **b))
            .map(|b| (*b).to_owned())
            .collect();
        for d in &mine {
            if !backends.contains(&d.backend) {
                backends.push(d.backend.clone());
            }
        }
        let points: Vec<plot::RatioPoint> = mine
            .iter()
            .filter_map(|d| {
                Some(plot::RatioPoint {
                    category: categories.iter().position(|c| *c == duel_category(d))?,
                    series: backends.iter().position(|b| *b == d.backend)?,
                    median: d.ratio,
                    q1: d.ratio_q1,
                    q3: d.ratio_q3,
                    goal: duel_goal(d),
                })
            })
            .collect();
        let file = format!("duel-{ours}-vs-{peer}.svg");
        let title = format!("{ours} vs {peer}: how many times faster, per backend (duels)");
        if plot::ratios(&dir.join(&file), &title, &categories, &backends, &points)? {
            made.push((file, title));
        }
    }
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A duel of `ratio` (ours at 10 ns per call), `ours` as each case names it.
    fn duel(case: &str, backend: &str, n: u64, peer: &str, ratio: f64) -> Duel {
        let ours = if case == CASE_DEAL {
            "partial"
        } else {
            "inplace"
        };
        Duel::sample((case, backend, ours, peer), n, (10.0, 10.0 * ratio))
    }

    /// One figure per (ours, peer) pairing, groups named by case and size, and each duel's
    /// goal taken from the targets table (none for the informational pairing).
    #[test]
    fn duel_figures_group_by_pairing_and_carry_the_goals() {
        let mut duels = Vec::new();
        for (i, backend) in ["wyrand", "pcg64", "chacha12"].into_iter().enumerate() {
            let r = 1.5 + i as f64;
            duels.push(duel(CASE_DECK, backend, 52, "rand-shuffle", r + 1.0));
            for n in [1_000, 10_000, 1 << 20] {
                duels.push(duel(CASE_SHUFFLE, backend, n, "rand-shuffle", r));
                duels.push(duel(CASE_SHUFFLE, backend, n, "inplace-lemire", 1.1));
            }
            duels.push(duel(CASE_DEAL, backend, 52, "inplace", 4.6));
        }
        duels.push(duel(
            CASE_SHUFFLE,
            "wyrand",
            1_000,
            "fastrand-shuffle",
            1.14,
        ));
        let labels: Vec<String> = duels.iter().map(duel_category).collect();
        for want in [
            "deck of 52 (u8)",
            "N = 1000",
            "N = 10^4",
            "N = 2^20",
            "deal 7 of 52",
        ] {
            assert!(
                labels.iter().any(|l| l == want),
                "{want} missing: {labels:?}"
            );
        }
        let goal = |i: usize| duel_goal(&duels[i]);
        assert_eq!(goal(0), Some(2.5)); // deck vs rand
        assert_eq!(goal(1), Some(2.5)); // 10^3 vs rand
        assert_eq!(goal(5), Some(2.0)); // 2^20 vs rand
        assert_eq!(goal(2), None); // inplace-lemire is informational
        assert_eq!(goal(7), Some(5.0)); // deal vs full shuffle
        assert_eq!(goal(duels.len() - 1), Some(1.4)); // fastrand at 10^3, wyrand only

        let dir = std::env::temp_dir().join(format!("xtask-duel-figures-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let made = write_duel_plots(&dir, &duels).unwrap();
        let mut files: Vec<&str> = made.iter().map(|(f, _)| f.as_str()).collect();
        files.sort_unstable();
        assert_eq!(
            files,
            [
                "duel-inplace-vs-fastrand-shuffle.svg",
                "duel-inplace-vs-inplace-lemire.svg",
                "duel-inplace-vs-rand-shuffle.svg",
                "duel-partial-vs-inplace.svg"
            ]
        );
        let rand = std::fs::read_to_string(dir.join("duel-inplace-vs-rand-shuffle.svg")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        for text in ["N = 2^20", "deck of 52", "chacha12", "3.50", "4.50"] {
            assert!(rand.contains(text), "{text} missing from the figure");
        }
        assert!(
            write_duel_plots(&std::env::temp_dir(), &[])
                .unwrap()
                .is_empty()
        );
    }
}
