//! Reads criterion's machine-readable output: `<target>/criterion/**/new/benchmark.json` (the
//! ids) and the `estimates.json` beside it (the statistics, in nanoseconds per iteration).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::model::{CASES, GenericWall, Metric, Sample};

/// The parts of `benchmark.json` we use.
#[derive(Debug, Deserialize)]
pub(crate) struct BenchmarkJson {
    pub(crate) group_id: String,
    pub(crate) function_id: Option<String>,
    pub(crate) value_str: Option<String>,
    pub(crate) full_id: String,
    pub(crate) throughput: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Estimate {
    point_estimate: f64,
}

/// The parts of `estimates.json` we use.
#[derive(Debug, Deserialize)]
pub(crate) struct EstimatesJson {
    median: Estimate,
}

impl EstimatesJson {
    /// Median time of one iteration, in nanoseconds.
    pub(crate) fn median_ns(&self) -> f64 {
        self.median.point_estimate
    }
}

/// Either a point of our matrix or a benchmark reported as is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Parsed {
    /// `group = "<case>/<backend>"`, `function = subject`, `value = n`.
    Matrix(Sample),
    /// Anything else.
    Other(GenericWall),
}

/// Turns one benchmark's pair of files into a measurement.
pub(crate) fn interpret(bench: &BenchmarkJson, est: &EstimatesJson) -> Parsed {
    let median = est.median_ns();
    if let (Some((case, backend)), Some(subject), Some(n)) = (
        bench.group_id.split_once('/'),
        bench.function_id.as_deref(),
        bench
            .value_str
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok()),
    ) && CASES.contains(&case)
        && !backend.contains('/')
    {
        return Parsed::Matrix(Sample {
            case: case.to_owned(),
            subject: subject.to_owned(),
            backend: backend.to_owned(),
            n,
            metric: Metric::WallNs,
            value: median,
        });
    }
    let throughput = bench.throughput.as_ref().and_then(|t| {
        let (unit, v) = t.as_object()?.iter().next()?;
        // `ElementsAndBytes` is an object; the plain kinds are numbers.
        let amount = v.as_u64().or_else(|| v.get("elements")?.as_u64())?;
        Some((amount, unit.to_lowercase()))
    });
    Parsed::Other(GenericWall {
        id: bench.full_id.clone(),
        median_ns: median,
        throughput,
    })
}

/// Reads every benchmark under `criterion_dir` whose `new/estimates.json` was written at or
/// after `since` (older files are leftovers of earlier runs). Unreadable entries are skipped
/// with a warning on stderr.
pub(crate) fn collect(criterion_dir: &Path, since: Option<SystemTime>) -> Result<Vec<Parsed>> {
    let mut found = Vec::new();
    let mut files = Vec::new();
    find_files(criterion_dir, "benchmark.json", &mut files);
    for bench_path in files {
        let Some(dir) = bench_path.parent() else {
            continue;
        };
        if dir.file_name().is_none_or(|n| n != "new") {
            continue;
        }
        let est_path = dir.join("estimates.json");
        if let Some(since) = since {
            let fresh = std::fs::metadata(&est_path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t >= since);
            if !fresh {
                continue;
            }
        }
        match read_pair(&bench_path, &est_path) {
            Ok(p) => found.push(p),
            Err(e) => eprintln!("xtask: warning: skipping {}: {e:#}", dir.display()),
        }
    }
    Ok(found)
}

fn read_pair(bench_path: &Path, est_path: &Path) -> Result<Parsed> {
    let bench: BenchmarkJson = read_json(bench_path)?;
    let est: EstimatesJson = read_json(est_path)?;
    Ok(interpret(&bench, &est))
}

pub(crate) fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

/// Recursively lists files called `name` under `dir` (missing directories yield nothing).
pub(crate) fn find_files(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            find_files(&path, name, out);
        } else if path.file_name().is_some_and(|n| n == name) {
            out.push(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    #[test]
    fn matrix_benchmark_becomes_a_sample() {
        let bench: BenchmarkJson = read_json(&data("criterion-benchmark.json")).unwrap();
        let est: EstimatesJson = read_json(&data("criterion-estimates.json")).unwrap();
        let Parsed::Matrix(s) = interpret(&bench, &est) else {
            panic!("not a matrix point")
        };
        assert_eq!(s.case, "shuffle_u32");
        assert_eq!(s.backend, "pcg64");
        assert_eq!(s.subject, "inplace");
        assert_eq!(s.n, 1024);
        assert_eq!(s.metric, Metric::WallNs);
        assert!((s.value - est.median_ns()).abs() < 1e-9);
    }

    #[test]
    fn huge_case_ids_are_parsed() {
        let bench = BenchmarkJson {
            group_id: "huge_u32/chacha12".into(),
            function_id: Some("rip-par-shuffle".into()),
            value_str: Some("100000000".into()),
            full_id: "huge_u32/chacha12/rip-par-shuffle/100000000".into(),
            throughput: None,
        };
        let est: EstimatesJson = read_json(&data("criterion-estimates.json")).unwrap();
        let Parsed::Matrix(s) = interpret(&bench, &est) else {
            panic!("not a matrix point")
        };
        assert_eq!(
            (s.case.as_str(), s.backend.as_str(), s.subject.as_str(), s.n),
            ("huge_u32", "chacha12", "rip-par-shuffle", 100_000_000)
        );
    }

    #[test]
    fn foreign_group_is_reported_generically() {
        let bench: BenchmarkJson = read_json(&data("criterion-benchmark-other.json")).unwrap();
        let est: EstimatesJson = read_json(&data("criterion-estimates.json")).unwrap();
        let Parsed::Other(g) = interpret(&bench, &est) else {
            panic!("should be generic")
        };
        assert_eq!(g.id, "poker/deal_holdem_9");
        assert_eq!(g.throughput, Some((9, "elements".to_owned())));
    }

    #[test]
    fn collect_walks_a_criterion_tree() {
        let tmp = std::env::temp_dir().join(format!("xtask-crit-{}", std::process::id()));
        let new = tmp.join("shuffle_u32_pcg64/inplace/1024/new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::copy(data("criterion-benchmark.json"), new.join("benchmark.json")).unwrap();
        std::fs::copy(data("criterion-estimates.json"), new.join("estimates.json")).unwrap();
        // A `base` copy must be ignored.
        let base = tmp.join("shuffle_u32_pcg64/inplace/1024/base");
        std::fs::create_dir_all(&base).unwrap();
        std::fs::copy(
            data("criterion-benchmark.json"),
            base.join("benchmark.json"),
        )
        .unwrap();
        let found = collect(&tmp, None).unwrap();
        std::fs::remove_dir_all(&tmp).unwrap();
        assert_eq!(found.len(), 1);
        assert!(matches!(found[0], Parsed::Matrix(_)));
    }
}
