//! The speed targets of issue 6 as a table: measured ratio, goal, met or missed.
//!
//! Every ratio is `peer time / our time` for one call, from the same criterion run, the same
//! backend, the same N and the same element type (`u32`), so the machine's state is shared by
//! both sides as far as a sequential run allows. The targets are wall clock on a shared machine:
//! informational, never a reason to fail the run.
//!
//! Rows are produced for [`target_backends`] only (the fast generator that `fastrand` pairs
//! with, and the default CSPRNG); the per-backend comparison tables of the report hold the
//! same ratios for every backend. Rows with no goal are informational (what batched dice buy
//! over the one-draw-per-step reference path).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::model::{CASE_DEAL, CASE_DECK, CASE_HUGE, CASE_SHUFFLE, Metric, Sample};

/// The backend whose generator is fastrand's own (wyrand): fastrand's shuffle is measured only
/// in its groups.
pub(crate) const FASTRAND_PAIR: &str = "wyrand";

/// Subject names of the benches that the targets refer to.
pub(crate) mod subject {
    /// Our default fast path: in-place Fisher-Yates with the backend's default sampler.
    pub(crate) const INPLACE: &str = "inplace";
    /// The one-draw-per-step reference path (`Inplace::with_sampler(Lemire)`).
    pub(crate) const INPLACE_LEMIRE: &str = "inplace-lemire";
    /// The O(k) partial shuffle (dealing).
    pub(crate) const PARTIAL: &str = "partial";
    /// `fairdeal_parallel::Parallel` on two threads.
    pub(crate) const PARALLEL: &str = "parallel";
    /// `fairdeal_parallel::Parallel::shuffle_sequential`: the scatter shuffle on one thread.
    pub(crate) const PARALLEL_SEQ: &str = "parallel-seq";
    /// `rand`'s `SliceRandom::shuffle`.
    pub(crate) const RAND: &str = "rand-shuffle";
    /// `fastrand::Rng::shuffle`.
    pub(crate) const FASTRAND: &str = "fastrand-shuffle";
    /// `rip_shuffle`'s `seq_shuffle`.
    pub(crate) const RIP_SEQ: &str = "rip-seq-shuffle";
    /// `rip_shuffle`'s `par_shuffle`.
    pub(crate) const RIP_PAR: &str = "rip-par-shuffle";
}

/// Which sizes of a case a target is read at.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Sizes {
    /// Every size measured on both sides up to this N.
    AtMost(u64),
    /// The measured size nearest to this N on a log scale, if within a factor of 2.
    Near(u64),
    /// The single size of a fixed-size case (deck, deal, the huge case); the two sides may be
    /// different cases (a deal of 7 against a full deck shuffle).
    Fixed,
}

/// One target of issue 6 (or an informational comparison when `goal` is `None`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Goal {
    /// Short description for the table.
    pub(crate) label: &'static str,
    /// Our side: (case, subject).
    pub(crate) ours: (&'static str, &'static str),
    /// The other side: (case, subject).
    pub(crate) peer: (&'static str, &'static str),
    /// Where to read it.
    pub(crate) sizes: Sizes,
    /// Required `peer / ours` ratio; `None`: shown for information.
    pub(crate) goal: Option<f64>,
}

/// The targets, in the order the table shows them.
pub(crate) const GOALS: [Goal; 11] = {
    use subject::*;
    const S: &str = CASE_SHUFFLE;
    [
        Goal {
            label: "N ≤ 10^4: inplace vs rand shuffle",
            ours: (S, INPLACE),
            peer: (S, RAND),
            sizes: Sizes::AtMost(10_000),
            goal: Some(2.5),
        },
        Goal {
            label: "N ≤ 10^4: inplace vs fastrand shuffle",
            ours: (S, INPLACE),
            peer: (S, FASTRAND),
            sizes: Sizes::AtMost(10_000),
            goal: Some(1.4),
        },
        Goal {
            label: "N ≈ 10^6: inplace vs rand shuffle",
            ours: (S, INPLACE),
            peer: (S, RAND),
            sizes: Sizes::Near(1_000_000),
            goal: Some(2.0),
        },
        Goal {
            label: "N ≈ 10^6: inplace vs fastrand shuffle",
            ours: (S, INPLACE),
            peer: (S, FASTRAND),
            sizes: Sizes::Near(1_000_000),
            goal: Some(1.3),
        },
        Goal {
            label: "deal 7 of 52 (partial) vs full deck52 shuffle (inplace)",
            ours: (CASE_DEAL, PARTIAL),
            peer: (CASE_DECK, INPLACE),
            sizes: Sizes::Fixed,
            goal: Some(5.0),
        },
        // Our one-thread huge-N path is the scatter shuffle (what `fairdeal shuffle` runs for a
        // whole shuffle); plain `Inplace` is shown beside it for information.
        Goal {
            label: "N = 10^8, 1 thread: parallel-seq vs rip seq_shuffle",
            ours: (CASE_HUGE, PARALLEL_SEQ),
            peer: (CASE_HUGE, RIP_SEQ),
            sizes: Sizes::Fixed,
            goal: Some(1.5),
        },
        Goal {
            label: "N = 10^8, 1 thread: inplace vs rip seq_shuffle (info)",
            ours: (CASE_HUGE, INPLACE),
            peer: (CASE_HUGE, RIP_SEQ),
            sizes: Sizes::Fixed,
            goal: None,
        },
        Goal {
            label: "N = 10^8, 2 threads: parallel vs rip par_shuffle",
            ours: (CASE_HUGE, PARALLEL),
            peer: (CASE_HUGE, RIP_PAR),
            sizes: Sizes::Fixed,
            goal: Some(1.3),
        },
        Goal {
            label: "batching: inplace vs inplace-lemire (info)",
            ours: (S, INPLACE),
            peer: (S, INPLACE_LEMIRE),
            sizes: Sizes::AtMost(10_000),
            goal: None,
        },
        Goal {
            label: "batching: inplace vs inplace-lemire (info)",
            ours: (S, INPLACE),
            peer: (S, INPLACE_LEMIRE),
            sizes: Sizes::Near(1_000_000),
            goal: None,
        },
        Goal {
            label: "batching: inplace vs inplace-lemire (info)",
            ours: (CASE_DECK, INPLACE),
            peer: (CASE_DECK, INPLACE_LEMIRE),
            sizes: Sizes::Fixed,
            goal: None,
        },
    ]
};

/// The backends the targets table covers: fastrand's generator and the default backend.
pub(crate) fn target_backends() -> [&'static str; 2] {
    [FASTRAND_PAIR, crate::catalogue::default_backend()]
}

/// One row: a goal read at one backend and size.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TargetRow {
    pub(crate) goal: Goal,
    pub(crate) backend: String,
    /// The size of our side (for the deal: the 52-card deck it deals from).
    pub(crate) n: u64,
    /// Median time of one call of our side, if measured.
    pub(crate) ours_ns: Option<f64>,
    /// Median time of one call of the other side, if measured.
    pub(crate) peer_ns: Option<f64>,
}

impl TargetRow {
    /// `peer / ours` (above 1: ours faster), when both sides were measured.
    pub(crate) fn ratio(&self) -> Option<f64> {
        Some(self.peer_ns? / self.ours_ns?)
    }

    /// Whether the goal is met; `None` for informational rows and unmeasured sides.
    pub(crate) fn met(&self) -> Option<bool> {
        Some(self.ratio()? >= self.goal.goal?)
    }

    /// `met`, `MISSED`, `info` or `not measured`.
    pub(crate) fn status(&self) -> &'static str {
        match (self.ratio(), self.met()) {
            (None, _) => "not measured",
            (Some(_), None) => "info",
            (Some(_), Some(true)) => "met",
            (Some(_), Some(false)) => "MISSED",
        }
    }
}

fn value(samples: &[Sample], case: &str, backend: &str, subject: &str, n: u64) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.metric == Metric::WallNs
                && s.case == case
                && s.backend == backend
                && s.subject == subject
                && s.n == n
        })
        .map(|s| s.value)
}

fn sizes_of(samples: &[Sample], case: &str, backend: &str, subject: &str) -> BTreeSet<u64> {
    samples
        .iter()
        .filter(|s| {
            s.metric == Metric::WallNs
                && s.case == case
                && s.backend == backend
                && s.subject == subject
        })
        .map(|s| s.n)
        .collect()
}

/// Reads every goal at every target backend from the wall-clock samples. A goal gets rows for a
/// backend when its other side was measured there; a row whose own side is missing at that size
/// (say `parallel`, or a size only one side ran) shows as not measured.
pub(crate) fn rows(samples: &[Sample], backends: &[&str]) -> Vec<TargetRow> {
    let mut out = Vec::new();
    for goal in GOALS {
        for &backend in backends {
            let ours = sizes_of(samples, goal.ours.0, backend, goal.ours.1);
            let peer = sizes_of(samples, goal.peer.0, backend, goal.peer.1);
            if peer.is_empty() {
                // The other side does not exist for this backend (fastrand outside wyrand) or
                // was not run (filtered out, quick mode).
                continue;
            }
            let pairs: Vec<(u64, u64)> = match goal.sizes {
                Sizes::AtMost(max) => ours
                    .union(&peer)
                    .copied()
                    .filter(|&n| n <= max)
                    .map(|n| (n, n))
                    .collect(),
                Sizes::Near(target) => {
                    let all: BTreeSet<u64> = ours.union(&peer).copied().collect();
                    crate::report::nearest(&all, target)
                        .filter(|&n| (n as f64 / target as f64).ln().abs() <= 2f64.ln())
                        .map(|n| vec![(n, n)])
                        .unwrap_or_default()
                }
                Sizes::Fixed => {
                    let o = ours.iter().next().copied();
                    let p = peer.iter().next().copied();
                    match (o, p) {
                        (None, None) => vec![],
                        (o, p) => {
                            let n = o.or(p).unwrap_or_default();
                            vec![(n, p.or(o).unwrap_or_default())]
                        }
                    }
                }
            };
            for (n_ours, n_peer) in pairs {
                out.push(TargetRow {
                    goal,
                    backend: backend.to_owned(),
                    n: n_ours,
                    ours_ns: value(samples, goal.ours.0, backend, goal.ours.1, n_ours),
                    peer_ns: value(samples, goal.peer.0, backend, goal.peer.1, n_peer),
                });
            }
        }
    }
    out
}

/// Goals with a target for which no row could be produced in this run (not run in this mode,
/// filtered out, or the subject does not exist yet).
pub(crate) fn unmeasured_goals(rows: &[TargetRow]) -> Vec<Goal> {
    let mut seen = Vec::new();
    for g in GOALS.iter().filter(|g| g.goal.is_some()) {
        if !rows.iter().any(|r| r.goal == *g && r.ratio().is_some()) && !seen.contains(g) {
            seen.push(*g);
        }
    }
    seen
}

fn side(case_subject: (&str, &str)) -> String {
    format!("{}/{}", case_subject.0, case_subject.1)
}

/// The likely reason a goal has no ratio: the huge case only runs in full mode; every other
/// case runs in both modes, so only `--filter` (or a missing subject) leaves it out.
fn why_unmeasured(g: &Goal) -> &'static str {
    if g.ours.0 == CASE_HUGE || g.peer.0 == CASE_HUGE {
        "huge_u32 runs in full mode only, and only what --filter matches"
    } else {
        "not matched by --filter"
    }
}

fn goal_text(g: &Goal) -> String {
    g.goal.map_or_else(|| "–".to_owned(), |x| format!("≥ {x}×"))
}

/// The console table (also the "verdict lines" of the targets).
pub(crate) fn text(rows: &[TargetRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "targets of issue 6 (wall clock, ratio = peer / ours per call; informational, never fails the run):"
    );
    let _ = writeln!(
        s,
        "  {:<57} {:<9} {:>9} {:>10} {:>10} {:>8} {:>6}  status",
        "target", "backend", "N", "ours", "peer", "ratio", "goal"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "  {:<57} {:<9} {:>9} {:>10} {:>10} {:>8} {:>6}  {}",
            r.goal.label,
            r.backend,
            r.n,
            r.ours_ns
                .map_or_else(|| "–".to_owned(), crate::report::human_ns),
            r.peer_ns
                .map_or_else(|| "–".to_owned(), crate::report::human_ns),
            r.ratio()
                .map_or_else(|| "–".to_owned(), |x| format!("{x:.2}×")),
            r.goal
                .goal
                .map_or_else(|| "–".to_owned(), |x| format!("{x}×")),
            r.status()
        );
    }
    let counted: Vec<&TargetRow> = rows.iter().filter(|r| r.met().is_some()).collect();
    let _ = writeln!(
        s,
        "  {} of {} measured target rows met",
        counted.iter().filter(|r| r.met() == Some(true)).count(),
        counted.len()
    );
    for g in unmeasured_goals(rows) {
        let _ = writeln!(
            s,
            "  not measured in this run: {} ({} vs {}: {})",
            g.label,
            side(g.ours),
            side(g.peer),
            why_unmeasured(&g)
        );
    }
    s
}

/// The `report.md` section.
pub(crate) fn markdown(rows: &[TargetRow]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Targets (issue 6)\n");
    let _ = writeln!(
        s,
        "Ratio = median time per call of the other side / ours (above 1: ours faster), same run, \
         same backend, same N, `u32` elements (the deal row: 7 cards dealt with `partial` against \
         one full shuffle of the 52-card deck with `inplace`). Backends: `{}` (fastrand's own \
         generator) and `{}` (the default); the comparison tables below hold the same ratios for \
         every backend. `inplace` is our default fast path (the backend's default sampler); \
         `inplace-lemire` is the same shuffle with one Lemire draw per step, so its row shows \
         what batched dice buy. Wall clock on a shared machine: informational, never a failing \
         gate.\n",
        target_backends()[0],
        target_backends()[1]
    );
    let _ = writeln!(
        s,
        "| target | backend | N | ours | other | ratio | goal | status |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.goal.label,
            r.backend,
            r.n,
            r.ours_ns
                .map_or_else(|| "–".to_owned(), crate::report::human_ns),
            r.peer_ns
                .map_or_else(|| "–".to_owned(), crate::report::human_ns),
            r.ratio()
                .map_or_else(|| "–".to_owned(), |x| format!("{x:.2}×")),
            goal_text(&r.goal),
            r.status()
        );
    }
    for g in unmeasured_goals(rows) {
        let _ = writeln!(
            s,
            "\nNot measured in this run: {} (`{}` vs `{}`: {}).",
            g.label,
            side(g.ours),
            side(g.peer),
            why_unmeasured(&g)
        );
    }
    let _ = writeln!(s);
    s
}

/// The rows for `summary.json`.
pub(crate) fn json(rows: &[TargetRow]) -> Vec<Value> {
    let round = |x: f64, d: i32| {
        let f = 10f64.powi(d);
        (x * f).round() / f
    };
    rows.iter()
        .map(|r| {
            json!({
                "target": r.goal.label,
                "backend": r.backend,
                "n": r.n,
                "ours": side(r.goal.ours),
                "peer": side(r.goal.peer),
                "metric": Metric::WallNs.name(),
                "ours_value": r.ours_ns.map(|x| round(x, 3)),
                "peer_value": r.peer_ns.map(|x| round(x, 3)),
                "ratio": r.ratio().map(|x| round(x, 4)),
                "goal": r.goal.goal,
                "met": r.met(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall(case: &str, backend: &str, subject: &str, n: u64, value: f64) -> Sample {
        Sample {
            case: case.into(),
            subject: subject.into(),
            backend: backend.into(),
            n,
            metric: Metric::WallNs,
            value,
        }
    }

    fn find<'a>(rows: &'a [TargetRow], label_part: &str, backend: &str, n: u64) -> &'a TargetRow {
        rows.iter()
            .find(|r| r.goal.label.contains(label_part) && r.backend == backend && r.n == n)
            .unwrap_or_else(|| panic!("no row {label_part} {backend} {n} in {rows:#?}"))
    }

    fn sample_run() -> Vec<Sample> {
        let s = CASE_SHUFFLE;
        vec![
            // wyrand: 3× rand and 1.5× fastrand at 16; 1.2× fastrand at 2^20 (missed).
            wall(s, "wyrand", "inplace", 16, 10.0),
            wall(s, "wyrand", "rand-shuffle", 16, 30.0),
            wall(s, "wyrand", "fastrand-shuffle", 16, 15.0),
            wall(s, "wyrand", "inplace-lemire", 16, 20.0),
            wall(s, "wyrand", "inplace", 1024, 1000.0),
            wall(s, "wyrand", "rand-shuffle", 1024, 2000.0),
            wall(s, "wyrand", "inplace", 16384, 1.0), // above 10^4: not an N ≤ 10^4 row
            wall(s, "wyrand", "rand-shuffle", 16384, 9.0),
            wall(s, "wyrand", "inplace", 1 << 20, 1000.0),
            wall(s, "wyrand", "rand-shuffle", 1 << 20, 2500.0),
            wall(s, "wyrand", "fastrand-shuffle", 1 << 20, 1200.0),
            // The deal: 100 ns per deal against 600 ns per full deck shuffle.
            wall(CASE_DEAL, "wyrand", "partial", 52, 100.0),
            wall(CASE_DECK, "wyrand", "inplace", 52, 600.0),
            // The huge case: one N only; the two-thread subject is missing.
            wall(CASE_HUGE, "wyrand", "inplace", 100_000_000, 4e9),
            wall(CASE_HUGE, "wyrand", "parallel-seq", 100_000_000, 2e9),
            wall(CASE_HUGE, "wyrand", "rip-seq-shuffle", 100_000_000, 2.6e9),
            wall(CASE_HUGE, "wyrand", "rip-par-shuffle", 100_000_000, 1.1e9),
            // A backend outside the table is ignored.
            wall(s, "pcg64", "inplace", 16, 1.0),
            wall(s, "pcg64", "rand-shuffle", 16, 100.0),
        ]
    }

    #[test]
    fn ratios_goals_and_status() {
        let rows = rows(&sample_run(), &["wyrand", "chacha12"]);
        assert!(rows.iter().all(|r| r.backend == "wyrand"));

        let r = find(&rows, "N ≤ 10^4: inplace vs rand", "wyrand", 16);
        assert_eq!(r.ratio(), Some(3.0));
        assert_eq!((r.met(), r.status()), (Some(true), "met"));
        let r = find(&rows, "N ≤ 10^4: inplace vs rand", "wyrand", 1024);
        assert_eq!((r.ratio(), r.status()), (Some(2.0), "MISSED"));
        assert!(
            !rows
                .iter()
                .any(|r| r.goal.sizes == Sizes::AtMost(10_000) && r.n == 16384),
            "sizes above 10^4 are not N ≤ 10^4 rows"
        );
        // fastrand measured at 16 but not at 1024: that row shows a missing side.
        let r = find(&rows, "N ≤ 10^4: inplace vs fastrand", "wyrand", 1024);
        assert_eq!((r.ratio(), r.status()), (None, "not measured"));
        let r = find(&rows, "N ≤ 10^4: inplace vs fastrand", "wyrand", 16);
        assert_eq!((r.ratio(), r.status()), (Some(1.5), "met"));

        let r = find(&rows, "N ≈ 10^6: inplace vs fastrand", "wyrand", 1 << 20);
        assert_eq!((r.ratio(), r.status()), (Some(1.2), "MISSED"));
        let r = find(&rows, "N ≈ 10^6: inplace vs rand", "wyrand", 1 << 20);
        assert_eq!((r.ratio(), r.status()), (Some(2.5), "met"));

        let r = find(&rows, "deal 7 of 52", "wyrand", 52);
        assert_eq!((r.ratio(), r.status()), (Some(6.0), "met"));

        let r = find(&rows, "1 thread: parallel-seq", "wyrand", 100_000_000);
        assert!((r.ratio().unwrap() - 1.3).abs() < 1e-12);
        assert_eq!(r.status(), "MISSED");
        let r = find(&rows, "1 thread: inplace", "wyrand", 100_000_000);
        assert_eq!((r.ratio(), r.status()), (Some(0.65), "info"));
        // rip's parallel shuffle was measured, ours was not: the row says so.
        let r = find(&rows, "2 threads", "wyrand", 100_000_000);
        assert_eq!((r.ours_ns, r.status()), (None, "not measured"));

        let r = find(&rows, "batching", "wyrand", 16);
        assert_eq!((r.ratio(), r.met(), r.status()), (Some(2.0), None, "info"));
    }

    #[test]
    fn near_a_million_needs_a_size_within_a_factor_of_two() {
        let s = vec![
            wall(CASE_SHUFFLE, "wyrand", "inplace", 1 << 15, 1.0),
            wall(CASE_SHUFFLE, "wyrand", "rand-shuffle", 1 << 15, 3.0),
        ];
        let rows = rows(&s, &["wyrand"]);
        assert!(rows.iter().all(|r| r.goal.sizes != Sizes::Near(1_000_000)));
    }

    #[test]
    fn unmeasured_goals_are_listed_not_hidden() {
        // A quick run: no huge case at all, no deal.
        let s = vec![
            wall(CASE_SHUFFLE, "chacha12", "inplace", 1024, 1.0),
            wall(CASE_SHUFFLE, "chacha12", "rand-shuffle", 1024, 3.0),
        ];
        let rows = rows(&s, &["wyrand", "chacha12"]);
        assert_eq!(rows.len(), 1);
        let missing: Vec<&str> = unmeasured_goals(&rows).iter().map(|g| g.label).collect();
        assert!(missing.iter().any(|l| l.contains("10^8, 1 thread")));
        assert!(missing.iter().any(|l| l.contains("10^8, 2 threads")));
        assert!(missing.iter().any(|l| l.contains("deal 7")));
        assert!(!missing.iter().any(|l| l.contains("batching")));
        let t = text(&rows);
        assert!(t.contains("1 of 1 measured target rows met"), "{t}");
        assert!(
            t.contains("not measured in this run: N = 10^8, 2 threads"),
            "{t}"
        );
        assert!(
            markdown(&rows).contains("| N ≤ 10^4: inplace vs rand shuffle | chacha12 | 1024 |")
        );
    }

    #[test]
    fn json_rows_carry_ratio_goal_and_met() {
        let rows = rows(&sample_run(), &["wyrand"]);
        let j = json(&rows);
        let deal = j
            .iter()
            .find(|v| v["target"].as_str().unwrap().contains("deal"))
            .unwrap();
        assert_eq!(deal["ours"], "deal7_of_52/partial");
        assert_eq!(deal["peer"], "deck52/inplace");
        assert_eq!(deal["ratio"], 6.0);
        assert_eq!(deal["goal"], 5.0);
        assert_eq!(deal["met"], true);
        let par = j
            .iter()
            .find(|v| v["target"].as_str().unwrap().contains("2 threads"))
            .unwrap();
        assert!(par["ratio"].is_null() && par["met"].is_null());
    }
}
