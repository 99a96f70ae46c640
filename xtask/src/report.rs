//! Turns samples and verdicts into `summary.json`, `report.md` and the printed table.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use fairdeal::{AlgorithmInfo, Complexity};
use serde_json::{Value, json};

use crate::format::{human_ns, round};
use crate::model::{CASE_DEAL, CASE_DECK, CASE_HUGE, CASE_SHUFFLE, GenericWall, Metric, Sample};
use crate::verdict::{LINEAR_TOLERANCE, LOG_POWER_THRESHOLD, QUADRATIC_TOLERANCE, Verdict};

/// Sizes the comparisons are reported at for the `shuffle_u32` sweep (the nearest measured size
/// is used: the sweep is in powers of two).
pub(crate) const COMPARISON_SIZES: [u64; 2] = [1_000, 1_000_000];

/// One "ours vs peer" ratio, same case, backend, size and element type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Comparison {
    pub(crate) case: String,
    pub(crate) n: u64,
    pub(crate) backend: String,
    pub(crate) ours: String,
    pub(crate) peer: String,
    pub(crate) ours_value: f64,
    pub(crate) peer_value: f64,
}

impl Comparison {
    /// `peer / ours`: above 1 means ours is faster.
    pub(crate) fn speedup(&self) -> f64 {
        self.peer_value / self.ours_value
    }
}

/// The measured size closest to `target` on a log scale.
pub(crate) fn nearest(sizes: &BTreeSet<u64>, target: u64) -> Option<u64> {
    sizes.iter().copied().min_by(|a, b| {
        let da = ((*a as f64).ln() - (target as f64).ln()).abs();
        let db = ((*b as f64).ln() - (target as f64).ln()).abs();
        da.total_cmp(&db)
    })
}

/// Wall-clock comparisons of each fair O(N) algorithm of ours with every peer measured in the
/// same group: `shuffle_u32` near 1 000 and 1 000 000, `deck52`, `deal7_of_52` and `huge_u32`
/// (one size each). Any subject that is not one of our algorithms is a peer, including
/// `inplace-lemire` (our reference path), so `inplace` vs `inplace-lemire` is what batching buys.
pub(crate) fn comparisons(samples: &[Sample], algorithms: &[AlgorithmInfo]) -> Vec<Comparison> {
    let ours_names: BTreeSet<&str> = algorithms
        .iter()
        .filter(|a| a.fair && a.complexity == Complexity::Linear)
        .map(|a| a.name)
        .collect();
    let all_ours: BTreeSet<&str> = algorithms.iter().map(|a| a.name).collect();
    let wall: Vec<&Sample> = samples
        .iter()
        .filter(|s| s.metric == Metric::WallNs)
        .collect();
    let mut out = Vec::new();
    let mut targets: Vec<(&str, Option<u64>)> = COMPARISON_SIZES
        .iter()
        .map(|&n| (CASE_SHUFFLE, Some(n)))
        .collect();
    targets.push((CASE_DECK, None));
    targets.push((CASE_DEAL, None));
    targets.push((CASE_HUGE, None));
    let backends: BTreeSet<&str> = wall.iter().map(|s| s.backend.as_str()).collect();
    for (case, target) in targets {
        for &backend in &backends {
            let here: Vec<&&Sample> = wall
                .iter()
                .filter(|s| s.case == case && s.backend == backend)
                .collect();
            let sizes: BTreeSet<u64> = here.iter().map(|s| s.n).collect();
            let n = match target {
                Some(t) => match nearest(&sizes, t) {
                    Some(n) => n,
                    None => continue,
                },
                None => match sizes.iter().next() {
                    Some(&n) => n,
                    None => continue,
                },
            };
            let at: Vec<&&&Sample> = here.iter().filter(|s| s.n == n).collect();
            for o in at
                .iter()
                .filter(|s| ours_names.contains(s.subject.as_str()))
            {
                for p in at.iter().filter(|s| !all_ours.contains(s.subject.as_str())) {
                    out.push(Comparison {
                        case: case.to_owned(),
                        n,
                        backend: backend.to_owned(),
                        ours: o.subject.clone(),
                        peer: p.subject.clone(),
                        ours_value: o.value,
                        peer_value: p.value,
                    });
                }
            }
        }
    }
    out
}

/// The `summary.json` document: `verdicts` and `comparisons` (a fixed shape),
/// `targets` and `samples`, every measured point (what `--baseline` reads back).
pub(crate) fn summary_json(
    verdicts: &[Verdict],
    comparisons: &[Comparison],
    targets: &[crate::targets::TargetRow],
    samples: &[Sample],
) -> Value {
    let verdicts: Vec<Value> = verdicts
        .iter()
        .map(|v| {
            json!({
                "algorithm": v.algorithm,
                "backend": v.backend,
                "metric": v.metric.name(),
                "slope": round(v.fit.slope, 4),
                "expected": v.expected.notation(),
                "pass": v.pass,
                "n_min": v.fit.n_min,
                "n_max": v.fit.n_max,
            })
        })
        .collect();
    let comparisons: Vec<Value> = comparisons
        .iter()
        .map(|c| {
            json!({
                "case": c.case,
                "n": c.n,
                "ours": format!("{}/{}", c.ours, c.backend),
                "peer": format!("{}/{}", c.peer, c.backend),
                "metric": Metric::WallNs.name(),
                "ours_value": round(c.ours_value, 3),
                "peer_value": round(c.peer_value, 3),
                "speedup": round(c.speedup(), 4),
            })
        })
        .collect();
    let mut sorted: Vec<&Sample> = samples.iter().collect();
    sorted.sort_by(|a, b| {
        (a.metric, &a.case, &a.subject, &a.backend, a.n)
            .cmp(&(b.metric, &b.case, &b.subject, &b.backend, b.n))
    });
    let samples: Vec<Value> = sorted
        .into_iter()
        .map(|s| {
            json!({
                "case": s.case,
                "subject": s.subject,
                "backend": s.backend,
                "n": s.n,
                "metric": s.metric.name(),
                "value": round(s.value, 3),
            })
        })
        .collect();
    json!({
        "verdicts": verdicts,
        "comparisons": comparisons,
        "targets": crate::targets::json(targets),
        "samples": samples,
    })
}

fn verdict_cell(v: Option<&Verdict>) -> String {
    match v {
        None => "–".to_owned(),
        Some(v) => {
            let mark = if v.pass {
                "ok"
            } else if v.metric.gating() {
                "FAIL"
            } else {
                "outside"
            };
            format!("{:.3} {mark}", v.fit.slope)
        }
    }
}

/// The verdict table as plain text (one line per algorithm × backend).
pub(crate) fn verdict_table_text(verdicts: &[Verdict]) -> String {
    let rows = rows(verdicts);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<11} {:<13} {:<11} {:<18} {:<18} {:<18} N range (instr.)",
        "algorithm", "backend", "claim", "instructions", "est. cycles", "wall clock"
    );
    for ((alg, backend), by_metric) in &rows {
        let any = by_metric.values().next().expect("non-empty row");
        let range = by_metric
            .get(&Metric::Instructions)
            .map(|v| format!("{}..{}", v.fit.n_min, v.fit.n_max))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "{:<11} {:<13} {:<11} {:<18} {:<18} {:<18} {}",
            alg,
            backend,
            any.expected.notation(),
            verdict_cell(by_metric.get(&Metric::Instructions).copied()),
            verdict_cell(by_metric.get(&Metric::EstimatedCycles).copied()),
            verdict_cell(by_metric.get(&Metric::WallNs).copied()),
            range
        );
    }
    s
}

type Rows<'a> = BTreeMap<(&'a str, &'a str), BTreeMap<Metric, &'a Verdict>>;

fn rows(verdicts: &[Verdict]) -> Rows<'_> {
    let mut rows: Rows<'_> = BTreeMap::new();
    for v in verdicts {
        rows.entry((v.algorithm.as_str(), v.backend.as_str()))
            .or_default()
            .insert(v.metric, v);
    }
    rows
}

/// Everything `report.md` needs besides the data.
pub(crate) struct ReportContext<'a> {
    pub(crate) command: &'a str,
    pub(crate) machine: &'a str,
    pub(crate) started: &'a str,
    pub(crate) elapsed_secs: f64,
    pub(crate) plots: &'a [(String, String)],
    pub(crate) notes: &'a [String],
    /// The speed targets table (empty: no section).
    pub(crate) targets: &'a [crate::targets::TargetRow],
    /// Instruction counts against `--baseline`, if given.
    pub(crate) baseline: Option<&'a crate::baseline::BaselineDiff>,
}

/// Renders `report.md`.
pub(crate) fn markdown(
    ctx: &ReportContext<'_>,
    verdicts: &[Verdict],
    comparisons: &[Comparison],
    samples: &[Sample],
    generic: &[GenericWall],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# fairdeal benchmark report\n");
    let _ = writeln!(s, "- command: `{}`", ctx.command);
    let _ = writeln!(
        s,
        "- started: {} (took {:.0} s)",
        ctx.started, ctx.elapsed_secs
    );
    let _ = writeln!(s, "- machine: {}", ctx.machine);
    for n in ctx.notes {
        let _ = writeln!(s, "- note: {n}");
    }
    let _ = writeln!(s, "\n## Verdicts\n");
    let _ = writeln!(
        s,
        "Method: for every (algorithm, backend, metric) fit `ln(cost) = a + b·ln(N)` by least squares \
         over the {} largest sizes measured and compare the slope `b` with the algorithm's declared \
         complexity (`AlgorithmInfo::complexity`). Accepted slope per series: O(N) `1.00 ± {LINEAR_TOLERANCE:.2}`; \
         O(N²) `2.00 ± {QUADRATIC_TOLERANCE:.2}`; O(N log N) from `1 + excess/2` to \
         `1 + excess + {LINEAR_TOLERANCE:.2}` where `excess = ln(ln N_max / ln N_min) / ln(N_max / N_min)` \
         (≈ 1/ln N, what the log factor adds). And per algorithm, its least-growing series (the \
         backend whose cost per draw varies least with N; batched dice creep upwards) must show the \
         declared class: read as `cost ≈ N·(ln N)^p`, `p < {LOG_POWER_THRESHOLD}` is O(N) and more is \
         O(N log N), so each class passes only for itself. Only **instruction** verdicts can fail the run: \
         callgrind's counts are exactly repeatable. Estimated cycles (callgrind's cache model) and \
         wall-clock slopes are reported for information: they bend upwards where N leaves a cache \
         level (a 2^20-element `u32` array is 4 MiB), so `outside` there is a fact about the memory \
         hierarchy, not about the algorithm.\n",
        crate::verdict::FIT_POINTS
    );
    let rows = rows(verdicts);
    let _ = writeln!(
        s,
        "| algorithm | backend | claim | instructions | est. cycles | wall clock | N (instr.) |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for ((alg, backend), by_metric) in &rows {
        let any = by_metric.values().next().expect("non-empty row");
        let range = by_metric
            .get(&Metric::Instructions)
            .map(|v| format!("{}…{}", v.fit.n_min, v.fit.n_max))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "| {alg} | {backend} | {} | {} | {} | {} | {range} |",
            any.expected.notation(),
            verdict_cell(by_metric.get(&Metric::Instructions).copied()),
            verdict_cell(by_metric.get(&Metric::EstimatedCycles).copied()),
            verdict_cell(by_metric.get(&Metric::WallNs).copied()),
        );
    }
    let gating: Vec<&Verdict> = verdicts.iter().filter(|v| v.metric.gating()).collect();
    let _ = writeln!(
        s,
        "\n{} of {} instruction verdicts pass.\n",
        gating.iter().filter(|v| v.pass).count(),
        gating.len()
    );

    if !ctx.targets.is_empty() {
        s.push_str(&crate::targets::markdown(ctx.targets));
    }
    if let Some(b) = ctx.baseline {
        s.push_str(&b.markdown());
    }

    if !comparisons.is_empty() {
        let _ = writeln!(
            s,
            "## Ours vs peers (wall clock, same run, same RNG, same N, same element type)\n"
        );
        let _ = writeln!(
            s,
            "Median time per call divided by N (ns/element; for `deal7_of_52`, per dealt card). \
             Speedup = peer / ours: above 1 means ours is faster. rip_shuffle is driven by the same \
             backend through a `rand_core` 0.6 adapter; fastrand only appears with `wyrand`, its own \
             generator. `inplace-lemire` is our in-place shuffle with one Lemire draw per step \
             (the reference path) instead of the backend's default sampler, so `inplace vs \
             inplace-lemire` is what batched dice buy. `huge_u32` (N = 10^8, full mode only) runs \
             the parallel subjects on a 2-thread pool.\n"
        );
        let mut cases: BTreeMap<(usize, u64), Vec<&Comparison>> = BTreeMap::new();
        let order = |c: &str| {
            [CASE_DECK, CASE_DEAL, CASE_SHUFFLE]
                .iter()
                .position(|x| *x == c)
                .unwrap_or(9)
        };
        for c in comparisons {
            cases.entry((order(&c.case), c.n)).or_default().push(c);
        }
        for ((_, n), list) in cases {
            let case = &list[0].case;
            let per = if case == CASE_DEAL { 7.0 } else { n as f64 };
            let subjects: BTreeSet<&str> = list
                .iter()
                .flat_map(|c| [c.ours.as_str(), c.peer.as_str()])
                .collect();
            let peers: BTreeSet<&str> = list.iter().map(|c| c.peer.as_str()).collect();
            let _ = writeln!(s, "### {case}, N = {n}\n");
            let mut header = String::from("| backend |");
            let mut rule = String::from("|---|");
            for subj in &subjects {
                let _ = write!(header, " {subj} |");
                rule.push_str("---|");
            }
            let lead = crate::catalogue::headline(case);
            for p in &peers {
                let _ = write!(header, " {lead} vs {p} |");
                rule.push_str("---|");
            }
            let _ = writeln!(s, "{header}\n{rule}");
            let backends: BTreeSet<&str> = list.iter().map(|c| c.backend.as_str()).collect();
            for b in backends {
                let mut line = format!("| {b} |");
                for subj in &subjects {
                    let v = list.iter().find_map(|c| {
                        (c.backend == b).then_some(()).and_then(|()| {
                            if c.ours == *subj {
                                Some(c.ours_value)
                            } else if c.peer == *subj {
                                Some(c.peer_value)
                            } else {
                                None
                            }
                        })
                    });
                    match v {
                        Some(v) => {
                            let _ = write!(line, " {:.2} |", v / per);
                        }
                        None => line.push_str(" – |"),
                    }
                }
                for p in &peers {
                    match list
                        .iter()
                        .find(|c| c.backend == b && c.ours == lead && c.peer == *p)
                    {
                        Some(c) => {
                            let _ = write!(line, " {:.2}× |", c.speedup());
                        }
                        None => line.push_str(" – |"),
                    }
                }
                let _ = writeln!(s, "{line}");
            }
            let _ = writeln!(s);
        }
    }

    let wall_sizes: BTreeSet<u64> = samples
        .iter()
        .filter(|x| x.metric == Metric::WallNs && x.case == CASE_SHUFFLE)
        .map(|x| x.n)
        .collect();
    if !wall_sizes.is_empty() {
        let _ = writeln!(s, "Wall-clock sizes measured: {:?}.\n", wall_sizes);
    }

    if !ctx.plots.is_empty() {
        let _ = writeln!(s, "## Plots\n");
        for (file, caption) in ctx.plots {
            let _ = writeln!(s, "- [{caption}]({file})");
        }
        let _ = writeln!(s);
    }

    if !generic.is_empty() {
        let _ = writeln!(s, "## Other criterion benchmarks\n");
        let _ = writeln!(s, "| benchmark | median | throughput |");
        let _ = writeln!(s, "|---|---|---|");
        let mut sorted: Vec<&GenericWall> = generic.iter().collect();
        sorted.sort_by(|a, b| a.id.cmp(&b.id));
        for g in sorted {
            let tp = g
                .throughput
                .as_ref()
                .map(|(amount, unit)| {
                    format!("{:.3e} {unit}/s", *amount as f64 / (g.median_ns * 1e-9))
                })
                .unwrap_or_else(|| "–".to_owned());
            let _ = writeln!(s, "| {} | {} | {tp} |", g.id, human_ns(g.median_ns));
        }
        let _ = writeln!(s);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &'static str, complexity: Complexity, fair: bool) -> AlgorithmInfo {
        AlgorithmInfo {
            name,
            complexity,
            fair,
            summary: "",
        }
    }

    fn wall(case: &str, subject: &str, n: u64, value: f64) -> Sample {
        Sample {
            case: case.into(),
            subject: subject.into(),
            backend: "pcg64".into(),
            n,
            metric: Metric::WallNs,
            value,
        }
    }

    #[test]
    fn nearest_is_on_a_log_scale() {
        let sizes: BTreeSet<u64> = [64, 1024, 65536, 1 << 20].into_iter().collect();
        assert_eq!(nearest(&sizes, 1000), Some(1024));
        assert_eq!(nearest(&sizes, 1_000_000), Some(1 << 20));
        assert_eq!(nearest(&sizes, 52), Some(64));
    }

    #[test]
    fn comparisons_pair_ours_with_peers_and_compute_speedup() {
        let algs = [
            info("inplace", Complexity::Linear, true),
            info("naive", Complexity::Quadratic, true),
            info("biased", Complexity::Linear, false),
        ];
        let samples = vec![
            wall("shuffle_u32", "inplace", 1024, 2000.0),
            wall("shuffle_u32", "rand-shuffle", 1024, 3000.0),
            wall("shuffle_u32", "naive", 1024, 9000.0),
            wall("shuffle_u32", "biased", 1024, 1000.0),
            wall("deck52", "inplace", 52, 100.0),
            wall("deck52", "rand-shuffle", 52, 50.0),
        ];
        let c = comparisons(&samples, &algs);
        // 1 000 and 1 000 000 both map to the only size measured (1024), plus the deck.
        assert_eq!(c.len(), 3);
        assert!(
            c.iter()
                .all(|c| c.ours == "inplace" && c.peer == "rand-shuffle")
        );
        assert!((c[0].speedup() - 1.5).abs() < 1e-12);
        let deck = c.iter().find(|c| c.case == "deck52").unwrap();
        assert!((deck.speedup() - 0.5).abs() < 1e-12, "slower shows as < 1");
        let json = summary_json(&[], &c, &[], &[]);
        assert_eq!(json["comparisons"][0]["ours"], "inplace/pcg64");
        assert_eq!(json["comparisons"][0]["peer"], "rand-shuffle/pcg64");
        assert_eq!(json["comparisons"][0]["metric"], "wall_ns");
        assert_eq!(json["verdicts"].as_array().unwrap().len(), 0);
    }

    #[test]
    fn a_single_size_huge_case_is_compared_but_never_fitted() {
        let algs = [info("inplace", Complexity::Linear, true)];
        let huge = |subject: &str, value: f64| Sample {
            case: CASE_HUGE.into(),
            subject: subject.into(),
            backend: "wyrand".into(),
            n: 100_000_000,
            metric: Metric::WallNs,
            value,
        };
        let samples = vec![
            huge("inplace", 2e9),
            huge("rip-seq-shuffle", 3e9),
            huge("parallel", 1e9),
        ];
        let c = comparisons(&samples, &algs);
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(c.iter().all(|c| c.case == CASE_HUGE && c.n == 100_000_000));
        let rip = c.iter().find(|c| c.peer == "rip-seq-shuffle").unwrap();
        assert!((rip.speedup() - 1.5).abs() < 1e-12);
        // One size: no slope, and no panic on the way.
        let v = crate::verdict::all_verdicts(&samples, &[("inplace", Complexity::Linear)]);
        assert!(v.is_empty());
        let instr: Vec<Sample> = samples
            .iter()
            .map(|s| Sample {
                case: CASE_SHUFFLE.into(),
                metric: Metric::Instructions,
                ..s.clone()
            })
            .collect();
        assert!(
            crate::verdict::all_verdicts(&instr, &[("inplace", Complexity::Linear)]).is_empty(),
            "a single N in the sweep case has no fit either"
        );
        let md = markdown(
            &ReportContext {
                command: "x",
                machine: "m",
                started: "s",
                elapsed_secs: 1.0,
                plots: &[],
                notes: &[],
                targets: &[],
                baseline: None,
            },
            &[],
            &c,
            &samples,
            &[],
        );
        assert!(md.contains("### huge_u32, N = 100000000"), "{md}");
    }

    #[test]
    fn summary_verdicts_have_the_issue_shape() {
        let pts: Vec<(u64, f64)> = [1024u64, 4096, 16384, 65536]
            .iter()
            .map(|&n| (n, 30.0 * n as f64))
            .collect();
        let v = crate::verdict::judge(
            "inplace",
            "pcg64",
            Metric::Instructions,
            Complexity::Linear,
            &pts,
        )
        .unwrap();
        let json = summary_json(&[v], &[], &[], &[]);
        let obj = json["verdicts"][0].as_object().unwrap();
        let keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        let mut expected = vec![
            "algorithm",
            "backend",
            "metric",
            "slope",
            "expected",
            "pass",
            "n_min",
            "n_max",
        ];
        expected.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, expected);
        assert_eq!(obj["expected"], "O(N)");
        assert_eq!(obj["pass"], true);
        assert_eq!(obj["n_min"], 1024);
    }
}
