//! `--baseline <summary.json>`: instruction counts of this run against an earlier run's.
//!
//! Instruction counts are exactly repeatable for a given build, so a change in them is a change
//! in the code (or the toolchain), not noise. `summary.json` carries every measured point in its
//! `samples` array; this module matches the instruction counts of two runs by (case, subject,
//! backend, N) and reports the percentage change of each. Points present in only one run are
//! listed as such, never silently dropped.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::model::{Metric, Sample};

/// One instruction count matched between the baseline and this run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub(crate) case: String,
    pub(crate) subject: String,
    pub(crate) backend: String,
    pub(crate) n: u64,
    pub(crate) before: f64,
    pub(crate) after: f64,
}

impl Change {
    /// `(after − before) / before` in percent: negative means fewer instructions now.
    pub(crate) fn percent(&self) -> f64 {
        (self.after - self.before) / self.before * 100.0
    }
}

/// The comparison of two runs' instruction counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct BaselineDiff {
    /// Where the baseline came from (shown in the report).
    pub(crate) source: String,
    /// Points measured in both runs, sorted by case, subject, backend, N.
    pub(crate) changes: Vec<Change>,
    /// Points (`case/backend/subject/n`) only in the baseline.
    pub(crate) only_before: Vec<String>,
    /// Points only in this run.
    pub(crate) only_after: Vec<String>,
}

type Key = (String, String, String, u64);

fn key(s: &Sample) -> Key {
    (s.case.clone(), s.subject.clone(), s.backend.clone(), s.n)
}

fn id((case, subject, backend, n): &Key) -> String {
    format!("{case}/{backend}/{subject}/{n}")
}

/// The instruction-count samples of a `summary.json` document (its `samples` array).
pub(crate) fn instruction_samples(summary: &Value) -> Result<Vec<Sample>> {
    let Some(samples) = summary.get("samples").and_then(Value::as_array) else {
        bail!(
            "it has no `samples` array (summary.json files written before the xtask recorded \
             every measured point cannot serve as a baseline)"
        );
    };
    let mut out = Vec::new();
    for s in samples {
        if s.get("metric").and_then(Value::as_str) != Some(Metric::Instructions.name()) {
            continue;
        }
        let field = |k: &str| {
            s.get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .with_context(|| format!("sample without `{k}`: {s}"))
        };
        out.push(Sample {
            case: field("case")?,
            subject: field("subject")?,
            backend: field("backend")?,
            n: s.get("n")
                .and_then(Value::as_u64)
                .with_context(|| format!("sample without `n`: {s}"))?,
            metric: Metric::Instructions,
            value: s
                .get("value")
                .and_then(Value::as_f64)
                .with_context(|| format!("sample without `value`: {s}"))?,
        });
    }
    Ok(out)
}

/// Reads a baseline `summary.json` from disk.
pub(crate) fn read(path: &Path) -> Result<Vec<Sample>> {
    let json: Value = crate::criterion::read_json(path)?;
    let samples = instruction_samples(&json)
        .with_context(|| format!("{} cannot be used as a baseline", path.display()))?;
    if samples.is_empty() {
        bail!(
            "{} has no instruction counts (was it written by a --wall-only run?)",
            path.display()
        );
    }
    Ok(samples)
}

/// Matches the instruction counts of `before` and `after` point by point.
pub(crate) fn diff(source: &str, before: &[Sample], after: &[Sample]) -> BaselineDiff {
    let pick = |v: &[Sample]| -> BTreeMap<Key, f64> {
        v.iter()
            .filter(|s| s.metric == Metric::Instructions)
            .map(|s| (key(s), s.value))
            .collect()
    };
    let (b, a) = (pick(before), pick(after));
    let mut out = BaselineDiff {
        source: source.to_owned(),
        ..BaselineDiff::default()
    };
    for (k, &before) in &b {
        match a.get(k) {
            Some(&after) => out.changes.push(Change {
                case: k.0.clone(),
                subject: k.1.clone(),
                backend: k.2.clone(),
                n: k.3,
                before,
                after,
            }),
            None => out.only_before.push(id(k)),
        }
    }
    out.only_after = a.keys().filter(|k| !b.contains_key(*k)).map(id).collect();
    out
}

impl BaselineDiff {
    /// Per (subject, backend): the change at the largest N measured in both runs, in the
    /// order of the verdict table. This is what the console shows; the report lists every N.
    pub(crate) fn at_largest_n(&self) -> Vec<&Change> {
        let mut best: BTreeMap<(&str, &str, &str), &Change> = BTreeMap::new();
        for c in &self.changes {
            let k = (c.subject.as_str(), c.backend.as_str(), c.case.as_str());
            if best.get(&k).is_none_or(|b| c.n > b.n) {
                best.insert(k, c);
            }
        }
        best.into_values().collect()
    }

    /// The console lines: one per (algorithm, backend) at its largest N, then the unmatched
    /// points.
    pub(crate) fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "instructions vs baseline {} (change = after / before − 1; per element at the largest N):",
            self.source
        );
        let _ = writeln!(
            s,
            "  {:<14} {:<13} {:>9} {:>12} {:>12} {:>9}",
            "algorithm", "backend", "N", "before/elt", "after/elt", "change"
        );
        for c in self.at_largest_n() {
            let _ = writeln!(
                s,
                "  {:<14} {:<13} {:>9} {:>12.2} {:>12.2} {:>+8.2}%",
                c.subject,
                c.backend,
                c.n,
                c.before / c.n as f64,
                c.after / c.n as f64,
                c.percent()
            );
        }
        self.unmatched(&mut s, "  ", 4);
        s
    }

    /// Lists the unmatched points, at most `limit` of each kind (the console) or all.
    fn unmatched(&self, s: &mut String, indent: &str, limit: usize) {
        for (what, list) in [
            ("only in the baseline", &self.only_before),
            ("only in this run", &self.only_after),
        ] {
            if list.is_empty() {
                continue;
            }
            let shown = list.len().min(limit);
            let more = if shown < list.len() {
                format!(", … {} more in report.md", list.len() - shown)
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "{indent}{what} ({}): {}{more}",
                list.len(),
                list[..shown].join(", ")
            );
        }
    }

    /// The `report.md` section: every matched point.
    pub(crate) fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "## Instructions vs baseline\n");
        let _ = writeln!(
            s,
            "Baseline: `{}`. Callgrind instruction counts per call, matched by case, algorithm, \
             backend and N; change = after / before − 1 (negative: fewer instructions now).\n",
            self.source
        );
        let _ = writeln!(
            s,
            "| case | algorithm | backend | N | before | after | change |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|");
        for c in &self.changes {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.0} | {:.0} | {:+.2} % |",
                c.case,
                c.subject,
                c.backend,
                c.n,
                c.before,
                c.after,
                c.percent()
            );
        }
        let _ = writeln!(s);
        self.unmatched(&mut s, "- ", usize::MAX);
        if !self.only_before.is_empty() || !self.only_after.is_empty() {
            let _ = writeln!(s);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instr(subject: &str, backend: &str, n: u64, value: f64) -> Sample {
        Sample {
            case: "shuffle_u32".into(),
            subject: subject.into(),
            backend: backend.into(),
            n,
            metric: Metric::Instructions,
            value,
        }
    }

    #[test]
    fn matches_points_and_computes_percentages() {
        let before = vec![
            instr("inplace", "pcg64", 4096, 1000.0),
            instr("inplace", "pcg64", 65536, 2000.0),
            instr("naive", "pcg64", 8192, 500.0),
        ];
        let mut after = vec![
            instr("inplace", "pcg64", 4096, 900.0),
            instr("inplace", "pcg64", 65536, 1500.0),
            instr("sort-key", "pcg64", 4096, 7.0),
        ];
        // Wall-clock samples never enter an instruction diff.
        after.push(Sample {
            metric: Metric::WallNs,
            ..instr("naive", "pcg64", 8192, 1.0)
        });
        let d = diff("old.json", &before, &after);
        assert_eq!(d.changes.len(), 2);
        assert!((d.changes[0].percent() - -10.0).abs() < 1e-12);
        assert!((d.changes[1].percent() - -25.0).abs() < 1e-12);
        assert_eq!(d.only_before, vec!["shuffle_u32/pcg64/naive/8192"]);
        assert_eq!(d.only_after, vec!["shuffle_u32/pcg64/sort-key/4096"]);
        let largest = d.at_largest_n();
        assert_eq!(largest.len(), 1);
        assert_eq!(largest[0].n, 65536);
        let text = d.text();
        assert!(text.contains("-25.00%"), "{text}");
        assert!(text.contains("only in the baseline (1)"), "{text}");
        assert!(
            d.markdown()
                .contains("| shuffle_u32 | inplace | pcg64 | 4096 | 1000 | 900 | -10.00 % |")
        );
    }

    #[test]
    fn reads_samples_back_from_a_summary() {
        let s = vec![
            instr("inplace", "wyrand", 4096, 123.0),
            Sample {
                metric: Metric::WallNs,
                ..instr("inplace", "wyrand", 4096, 5.0)
            },
        ];
        let json = crate::report::summary_json(&[], &[], &[], &s);
        let back = instruction_samples(&json).unwrap();
        assert_eq!(back, vec![s[0].clone()]);
    }

    #[test]
    fn an_old_summary_without_samples_is_refused_with_a_reason() {
        let old = serde_json::json!({"verdicts": [], "comparisons": []});
        let e = instruction_samples(&old).unwrap_err().to_string();
        assert!(e.contains("samples"), "{e}");
    }
}
