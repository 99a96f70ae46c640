//! `fairdeal_external::shard` on awkward inputs: records crossing chunk boundaries, a record
//! longer than a chunk, files without a final separator, empty files, NUL-terminated records.
//! Every run must hold exactly the input's records, and give the same bytes for any number of
//! tasks in either phase.

use std::fs;
use std::path::{Path, PathBuf};

use fairdeal_external::MemoryBudget;
use fairdeal_external::shard::{self, PlanConfig, RunDir, ShardError};
use fairdeal_testkit::scratch::Scratch;
use rand_pcg::Pcg64;

/// An empty directory for one test, removed when dropped.
fn fresh(name: &str) -> Scratch {
    Scratch::dir(
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("shard-lib"),
        name,
    )
}

fn config(seed: u64, separator: u8, buckets: u32) -> PlanConfig {
    PlanConfig {
        seed,
        generator: "pcg64".into(),
        separator,
        chunk_bytes: 4096,
        buckets: Some(buckets),
    }
}

/// Plans, scatters with `p` tasks and gathers with `q`; returns the concatenated parts.
fn run(dir: &Path, inputs: &[PathBuf], config: &PlanConfig, p: u64, q: u64) -> Vec<u8> {
    let run = RunDir::new(dir);
    shard::plan(&run, inputs, config).unwrap();
    let budget = MemoryBudget::new(1 << 20).unwrap();
    for i in 0..p {
        shard::scatter::<Pcg64>(&run, i, p, budget).unwrap();
    }
    for j in 0..q {
        shard::gather::<Pcg64>(&run, j, q, budget).unwrap();
    }
    let buckets = run.load().unwrap().buckets;
    (0..buckets)
        .flat_map(|b| fs::read(run.part(b)).unwrap())
        .collect()
}

fn records(bytes: &[u8], sep: u8) -> Vec<Vec<u8>> {
    let mut r: Vec<Vec<u8>> = bytes
        .split_inclusive(|&b| b == sep)
        .map(<[u8]>::to_vec)
        .collect();
    r.sort();
    r
}

#[test]
fn awkward_inputs_keep_every_record_for_any_task_counts() {
    let dir = fresh("awkward");
    let mut expected = Vec::new();
    let mut inputs = Vec::new();
    // Lines of growing length (some cross the 4 KiB chunk boundaries), one of 10,000 bytes
    // (longer than two chunks), a file without a final newline, an empty file, duplicates.
    let mut a = Vec::new();
    for i in 0..2000 {
        a.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, i % 37));
        a.extend(format!(" {i}\n").bytes());
        if i == 500 {
            a.extend(std::iter::repeat_n(b'x', 10_000));
            a.push(b'\n');
        }
    }
    let b = b"dup\ndup\ndup\nlast without newline".to_vec();
    for (name, data) in [("a", &a), ("empty", &Vec::new()), ("b", &b)] {
        let path = dir.join(name);
        fs::write(&path, data).unwrap();
        inputs.push(path);
        expected.extend_from_slice(data);
        if !data.is_empty() && data.last() != Some(&b'\n') {
            expected.push(b'\n');
        }
    }
    let reference = run(&dir.join("r1"), &inputs, &config(9, b'\n', 7), 1, 1);
    assert_eq!(records(&reference, b'\n'), records(&expected, b'\n'));
    assert_ne!(reference, expected);
    for (p, q) in [(2, 3), (5, 7), (40, 2)] {
        let out = run(
            &dir.join(format!("r{p}-{q}")),
            &inputs,
            &config(9, b'\n', 7),
            p,
            q,
        );
        assert!(out == reference, "{p} scatter and {q} gather tasks differ");
    }
    let verdict = shard::verify(&RunDir::new(dir.join("r5-7")), &inputs, b'\n').unwrap();
    assert!(verdict.ok, "{verdict:?}");
    assert_eq!(verdict.input_lines, 2000 + 1 + 4);
}

#[test]
fn nul_terminated_records_and_one_bucket() {
    let dir = fresh("nul");
    let data: Vec<u8> = (0..3000)
        .flat_map(|i| format!("rec\n{i}\0").into_bytes())
        .collect();
    let input = dir.join("in");
    fs::write(&input, &data).unwrap();
    let inputs = vec![input];
    let one = run(&dir.join("one"), &inputs, &config(1, 0, 1), 3, 1);
    assert_eq!(records(&one, 0), records(&data, 0));
    assert_ne!(one, data);
    let many = run(&dir.join("many"), &inputs, &config(1, 0, 5), 3, 2);
    assert_eq!(records(&many, 0), records(&data, 0));
    assert_ne!(
        many, one,
        "the bucket count is part of what the output depends on"
    );
}

#[test]
fn an_input_that_changed_since_the_plan_is_refused() {
    let dir = fresh("changed");
    let input = dir.join("in");
    fs::write(&input, "a\nb\nc\n").unwrap();
    let run_dir = RunDir::new(dir.join("run"));
    shard::plan(&run_dir, std::slice::from_ref(&input), &config(1, b'\n', 2)).unwrap();
    fs::write(&input, "a\nb\nc\nd\n").unwrap();
    let budget = MemoryBudget::new(1 << 20).unwrap();
    let err = shard::scatter::<Pcg64>(&run_dir, 0, 1, budget).unwrap_err();
    assert!(
        matches!(
            err,
            ShardError::InputChanged {
                planned: 6,
                now: 8,
                ..
            }
        ),
        "{err}"
    );
}
