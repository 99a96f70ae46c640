//! Reads iai-callgrind's `--save-summary=json` files (`<target>/iai/**/summary.json`).
//!
//! Only a few fields are used: `details` (the setup call with the benchmark's arguments,
//! `input("inplace", "pcg64", 1024)`) and, in the callgrind profile's total, the new values of the
//! `Ir` (instructions) and `EstimatedCycles` metrics. A metric's value is an object such as
//! `{"metrics": {"Left": {"Int": 123}}}` (one run) or `{"metrics": {"Both": [{"Int": 123},
//! {"Int": 120}]}}` (compared with the previous run): the first (new) number is taken.

use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result, bail};
use regex::Regex;
use serde_json::Value;

use crate::model::{CASE_SHUFFLE, Metric, Sample};

/// Extracts the samples (instructions and, when present, estimated cycles) of one summary.
pub(crate) fn parse_summary(json: &Value) -> Result<Vec<Sample>> {
    let details = json
        .get("details")
        .and_then(Value::as_str)
        .context("summary has no `details` (the benchmark arguments)")?;
    let re =
        Regex::new(r#"^\w*\(\s*"([^"]+)"\s*,\s*"([^"]+)"\s*,\s*(\d+)\s*\)$"#).expect("valid regex");
    let caps = re
        .captures(details.trim())
        .with_context(|| format!("unexpected benchmark arguments {details:?}"))?;
    let (algorithm, backend) = (caps[1].to_owned(), caps[2].to_owned());
    let n: u64 = caps[3].parse().context("size")?;
    let profiles = json
        .get("profiles")
        .and_then(Value::as_array)
        .context("summary has no `profiles`")?;
    let callgrind = profiles
        .iter()
        .find(|p| p.get("tool").and_then(Value::as_str) == Some("Callgrind"))
        .context("no callgrind profile in summary")?;
    let total = callgrind
        .pointer("/summaries/total")
        .context("callgrind profile has no total")?;
    let mut out = Vec::new();
    for (key, metric) in [
        ("Ir", Metric::Instructions),
        ("EstimatedCycles", Metric::EstimatedCycles),
    ] {
        if let Some(value) = find_key(total, key).and_then(new_value) {
            out.push(Sample {
                case: CASE_SHUFFLE.to_owned(),
                subject: algorithm.clone(),
                backend: backend.clone(),
                n,
                metric,
                value,
            });
        }
    }
    if !out.iter().any(|s| s.metric == Metric::Instructions) {
        bail!("no instruction count (Ir) in summary for {details}");
    }
    Ok(out)
}

/// Depth-first search for the first object entry called `key`.
fn find_key<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|child| find_key(child, key))),
        Value::Array(items) => items.iter().find_map(|child| find_key(child, key)),
        _ => None,
    }
}

/// The new value of a metric entry: prefers `Left`, then the first element of `Both`, then the
/// first number found.
fn new_value(v: &Value) -> Option<f64> {
    if let Some(left) = find_key(v, "Left") {
        return first_number(left);
    }
    if let Some(both) = find_key(v, "Both") {
        return both
            .as_array()
            .and_then(|a| a.first())
            .and_then(first_number);
    }
    first_number(v)
}

fn first_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Object(map) => map.values().find_map(first_number),
        Value::Array(items) => items.iter().find_map(first_number),
        _ => None,
    }
}

/// Reads every `summary.json` under `iai_dir` written at or after `since`.
pub(crate) fn collect(iai_dir: &Path, since: Option<SystemTime>) -> Result<Vec<Sample>> {
    let mut files = Vec::new();
    crate::criterion::find_files(iai_dir, "summary.json", &mut files);
    let mut out = Vec::new();
    for path in files {
        if let Some(since) = since {
            let fresh = std::fs::metadata(&path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= since);
            if !fresh {
                continue;
            }
        }
        let json: Value = crate::criterion::read_json(&path)?;
        out.extend(parse_summary(&json).with_context(|| format!("in {}", path.display()))?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_real_summary() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/iai-summary.json");
        let json: Value = crate::criterion::read_json(&path).unwrap();
        let samples = parse_summary(&json).unwrap();
        let ir = samples
            .iter()
            .find(|s| s.metric == Metric::Instructions)
            .unwrap();
        assert_eq!(ir.case, "shuffle_u32");
        assert_eq!(ir.subject, "inplace");
        assert_eq!(ir.backend, "pcg64");
        assert_eq!(ir.n, 1024);
        assert!(
            ir.value > 1024.0,
            "at least one instruction per element: {ir:?}"
        );
        let cycles = samples
            .iter()
            .find(|s| s.metric == Metric::EstimatedCycles)
            .unwrap();
        assert!(cycles.value >= ir.value);
    }

    #[test]
    fn rejects_foreign_arguments() {
        let json = serde_json::json!({"details": "(1, 2)", "profiles": []});
        assert!(parse_summary(&json).is_err());
    }

    #[test]
    fn new_value_prefers_the_new_run() {
        let one = serde_json::json!({"metrics": {"Left": {"Int": 7}}});
        let two = serde_json::json!({"metrics": {"Both": [{"Int": 9}, {"Int": 7}]}, "diffs": {"diff_pct": 28.5}});
        assert_eq!(new_value(&one), Some(7.0));
        assert_eq!(new_value(&two), Some(9.0));
    }
}
