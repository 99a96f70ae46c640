//! The SVG figures of a bench run (`<target>/bench-report/*.svg`): which series each figure
//! shows; `plot.rs` draws them.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::Result;
use fairdeal::AlgorithmInfo;

use crate::model::{CASE_DEAL, CASE_DECK, CASE_SHUFFLE, Metric, Sample};
use crate::report::Comparison;
use crate::{catalogue, plot};

/// Writes this run's SVG figures into `dir` (removing earlier ones) and returns each file's
/// name and title.
pub(crate) fn write_plots(
    dir: &Path,
    samples: &[Sample],
    comparisons: &[Comparison],
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

    // ns/element per backend and subject at the comparison sizes.
    let mut points: BTreeSet<(String, u64)> = BTreeSet::new();
    for c in comparisons {
        points.insert((c.case.clone(), c.n));
    }
    for (case, n) in points {
        if case == CASE_DEAL {
            continue; // per-card cost of a deal is in the report table
        }
        let here: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.metric == Metric::WallNs && s.case == case && s.n == n)
            .collect();
        let backends: Vec<String> = here
            .iter()
            .map(|s| s.backend.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let subjects: BTreeSet<&str> = here.iter().map(|s| s.subject.as_str()).collect();
        let series: Vec<(String, Vec<(usize, f64)>)> = subjects
            .iter()
            .map(|subj| {
                let pts = here
                    .iter()
                    .filter(|s| s.subject == *subj)
                    .filter_map(|s| {
                        backends
                            .iter()
                            .position(|b| *b == s.backend)
                            .map(|i| (i, s.value / n as f64))
                    })
                    .collect();
                ((*subj).to_owned(), pts)
            })
            .collect();
        let file = format!("ns-per-element-{case}-{n}.svg");
        let what = if case == CASE_DECK {
            "52-card deck ([u8; 52])".to_owned()
        } else {
            format!("Vec<u32>, N = {n}")
        };
        let title = format!("ns per element, {what}: each backend, ours and peers");
        if plot::dots(
            &dir.join(&file),
            &title,
            "ns / element (median)",
            &backends,
            &series,
        )? {
            made.push((file, title));
        }
    }
    Ok(made)
}
