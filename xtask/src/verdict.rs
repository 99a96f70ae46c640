//! Does a fitted slope agree with the complexity an algorithm declares?

use fairdeal::Complexity;

use crate::fit::{PowerFit, fit_largest};
use crate::model::{Metric, Sample};

/// Half-width of the accepted band around 1 for O(N) (and the lower side of O(N log N)).
pub(crate) const LINEAR_TOLERANCE: f64 = 0.10;
/// Half-width of the accepted band around 2 for O(N²).
pub(crate) const QUADRATIC_TOLERANCE: f64 = 0.15;
/// How many of the largest sizes enter a fit.
pub(crate) const FIT_POINTS: usize = 4;

/// The accepted slope interval `[lo, hi]` for a claim fitted over `[n_min, n_max]`.
///
/// * O(N): `1 ± 0.10`.
/// * O(N²): `2 ± 0.15`.
/// * O(N log N): from `1 − 0.10` to `1 + excess + 0.10`, where `excess` is the secant slope of
///   `ln N` itself over the fitted range, `ln(ln n_max / ln n_min) / ln(n_max / n_min)`
///   (about `1/ln N`): the part of the slope the log factor legitimately adds.
pub(crate) fn accepted_range(complexity: Complexity, n_min: u64, n_max: u64) -> (f64, f64) {
    match complexity {
        Complexity::Linear => (1.0 - LINEAR_TOLERANCE, 1.0 + LINEAR_TOLERANCE),
        Complexity::Quadratic => (2.0 - QUADRATIC_TOLERANCE, 2.0 + QUADRATIC_TOLERANCE),
        Complexity::Linearithmic => {
            let excess = log_factor_excess(n_min, n_max);
            (1.0 - LINEAR_TOLERANCE, 1.0 + excess + LINEAR_TOLERANCE)
        }
    }
}

/// The secant slope of `ln N` in log-log space over `[n_min, n_max]`.
pub(crate) fn log_factor_excess(n_min: u64, n_max: u64) -> f64 {
    let (a, b) = (n_min.max(2) as f64, n_max.max(3) as f64);
    if b <= a {
        return 1.0 / b.ln();
    }
    (b.ln() / a.ln()).ln() / (b / a).ln()
}

/// One line of the verdict table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Verdict {
    /// Algorithm name.
    pub(crate) algorithm: String,
    /// Backend name.
    pub(crate) backend: String,
    /// The metric the slope was fitted on.
    pub(crate) metric: Metric,
    /// The declared complexity.
    pub(crate) expected: Complexity,
    /// The fit.
    pub(crate) fit: PowerFit,
    /// Accepted interval.
    pub(crate) range: (f64, f64),
    /// Whether the slope lies in the interval.
    pub(crate) pass: bool,
}

impl Verdict {
    /// A failed verdict that fails the run (instruction counts only).
    pub(crate) fn fails_run(&self) -> bool {
        !self.pass && self.metric.gating()
    }
}

/// Judges one series of `(n, cost)` points against a declared complexity.
pub(crate) fn judge(
    algorithm: &str,
    backend: &str,
    metric: Metric,
    expected: Complexity,
    points: &[(u64, f64)],
) -> Option<Verdict> {
    let fit = fit_largest(points, FIT_POINTS)?;
    let range = accepted_range(expected, fit.n_min, fit.n_max);
    let pass = fit.slope >= range.0 && fit.slope <= range.1;
    Some(Verdict {
        algorithm: algorithm.to_owned(),
        backend: backend.to_owned(),
        metric,
        expected,
        fit,
        range,
        pass,
    })
}

/// Verdicts for every (algorithm, backend, metric) series of the `shuffle_u32` case whose
/// subject is one of `algorithms` (name, declared complexity). Sorted by algorithm, backend,
/// metric.
pub(crate) fn all_verdicts(samples: &[Sample], algorithms: &[(&str, Complexity)]) -> Vec<Verdict> {
    use std::collections::BTreeMap;
    type Key<'a> = (&'a str, &'a str, Metric);
    let mut series: BTreeMap<Key<'_>, Vec<(u64, f64)>> = BTreeMap::new();
    for s in samples
        .iter()
        .filter(|s| s.case == crate::model::CASE_SHUFFLE)
    {
        series
            .entry((s.subject.as_str(), s.backend.as_str(), s.metric))
            .or_default()
            .push((s.n, s.value));
    }
    let mut out = Vec::new();
    for ((subject, backend, metric), points) in series {
        let Some(&(_, complexity)) = algorithms.iter().find(|(name, _)| *name == subject) else {
            continue; // a peer: no claim to check
        };
        if let Some(v) = judge(subject, backend, metric, complexity, &points) {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(f64) -> f64) -> Vec<(u64, f64)> {
        (10..=16)
            .step_by(2)
            .map(|e| {
                let n = 1u64 << e;
                (n, f(n as f64))
            })
            .collect()
    }

    #[test]
    fn linear_cost_passes_a_linear_claim() {
        let v = judge(
            "a",
            "b",
            Metric::Instructions,
            Complexity::Linear,
            &series(|n| 40.0 * n + 300.0),
        )
        .unwrap();
        assert!(v.pass, "{v:?}");
        assert!(!v.fails_run());
    }

    #[test]
    fn quadratic_cost_fails_a_linear_claim_and_fails_the_run() {
        let v = judge(
            "a",
            "b",
            Metric::Instructions,
            Complexity::Linear,
            &series(|n| 0.25 * n * n + 40.0 * n),
        )
        .unwrap();
        assert!(!v.pass, "{v:?}");
        assert!(v.fails_run());
    }

    #[test]
    fn linear_cost_fails_a_quadratic_claim() {
        let v = judge(
            "a",
            "b",
            Metric::Instructions,
            Complexity::Quadratic,
            &series(|n| 40.0 * n),
        )
        .unwrap();
        assert!(!v.pass);
    }

    #[test]
    fn quadratic_with_a_linear_term_passes_when_the_square_dominates() {
        let v = judge(
            "a",
            "b",
            Metric::Instructions,
            Complexity::Quadratic,
            &series(|n| n * n / 8.0 + 60.0 * n),
        )
        .unwrap();
        assert!(v.pass, "{v:?}");
    }

    #[test]
    fn n_log_n_passes_its_own_claim_but_not_a_quadratic_one() {
        let nlogn = series(|n| 12.0 * n * n.ln());
        let v = judge(
            "s",
            "b",
            Metric::Instructions,
            Complexity::Linearithmic,
            &nlogn,
        )
        .unwrap();
        assert!(v.pass, "{v:?}");
        assert!(v.fit.slope > 1.05, "the log factor shows: {v:?}");
        assert!(
            !judge(
                "s",
                "b",
                Metric::Instructions,
                Complexity::Quadratic,
                &nlogn
            )
            .unwrap()
            .pass
        );
    }

    #[test]
    fn log_factor_excess_is_about_one_over_ln_n() {
        let e = log_factor_excess(1 << 10, 1 << 16);
        assert!(e > 1.0 / (65536f64).ln() && e < 1.0 / (1024f64).ln(), "{e}");
    }

    #[test]
    fn wall_clock_failures_never_fail_the_run() {
        let v = judge(
            "a",
            "b",
            Metric::WallNs,
            Complexity::Linear,
            &series(|n| n * n),
        )
        .unwrap();
        assert!(!v.pass);
        assert!(!v.fails_run());
    }

    #[test]
    fn all_verdicts_skips_peers_and_other_cases() {
        let mk = |case: &str, subject: &str, n: u64| Sample {
            case: case.into(),
            subject: subject.into(),
            backend: "pcg64".into(),
            n,
            metric: Metric::Instructions,
            value: n as f64 * 10.0,
        };
        let samples: Vec<Sample> = [1024, 4096, 16384]
            .into_iter()
            .flat_map(|n| {
                [
                    mk("shuffle_u32", "inplace", n),
                    mk("shuffle_u32", "rand-shuffle", n),
                    mk("deck52", "inplace", n),
                ]
            })
            .collect();
        let v = all_verdicts(&samples, &[("inplace", Complexity::Linear)]);
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].algorithm.as_str(), v[0].backend.as_str(), v[0].pass),
            ("inplace", "pcg64", true)
        );
        assert_eq!((v[0].fit.n_min, v[0].fit.n_max), (1024, 16384));
    }
}
