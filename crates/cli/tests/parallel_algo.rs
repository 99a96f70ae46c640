//! `parallel` is an algorithm like the others: listed by `fairdeal algorithms`, accepted by
//! `--algo`, and the same scatter shuffle the default runs for a whole shuffle, on any number
//! of threads.

mod common;

use common::fairdeal;

/// 1,100,000 `u64` is past the default whole size (8 MiB), so the top-level scatter runs.
const BIG: &str = "0-1099999";

#[test]
fn algorithms_lists_parallel_with_its_self_description() {
    let run = fairdeal(&["algorithms", "--json"]).ok();
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let rows = json.as_array().expect("an array of algorithms");
    let parallel = rows
        .iter()
        .find(|r| r["name"] == fairdeal::parallel::INFO.name)
        .unwrap_or_else(|| panic!("no parallel in {json}"));
    assert_eq!(parallel["summary"], fairdeal::parallel::INFO.summary);
    let text = fairdeal(&["algorithms"]).ok().text();
    assert!(text.contains("parallel"), "{text}");
}

#[test]
fn algo_parallel_is_the_default_whole_shuffle_on_any_thread_count() {
    let default = fairdeal(&["shuffle", "--seed", "9", "-i", BIG]).ok();
    let mut numbers = default.numbers();
    numbers.sort_unstable();
    assert_eq!(numbers, (0..1_100_000).collect::<Vec<u64>>());
    let named = fairdeal(&["shuffle", "--seed", "9", "-i", BIG, "--algo", "parallel"]).ok();
    assert_eq!(default.stdout, named.stdout);
    for threads in ["1", "2", "3", "7"] {
        let run = fairdeal(&[
            "shuffle",
            "--seed",
            "9",
            "-i",
            BIG,
            "--algo",
            "parallel",
            "--threads",
            threads,
        ])
        .ok();
        assert_eq!(default.stdout, run.stdout, "--threads {threads}");
    }
}

#[test]
fn algo_parallel_runs_the_scatter_even_with_a_language_exact_sampler() {
    // Without --algo, Java's own sampler keeps inplace's exact output; naming the algorithm
    // asks for the scatter, which differs from it above the whole size.
    let args = |algo: &'static str| {
        vec![
            "shuffle",
            "--seed",
            "3",
            "-i",
            BIG,
            "--backend",
            "java",
            "--algo",
            algo,
        ]
    };
    let parallel = fairdeal(&args("parallel")).ok();
    let inplace = fairdeal(&args("inplace")).ok();
    assert_ne!(parallel.stdout, inplace.stdout);
    let mut numbers = parallel.numbers();
    numbers.sort_unstable();
    assert_eq!(numbers, (0..1_100_000).collect::<Vec<u64>>());
}

#[test]
fn threads_with_another_algorithm_is_a_usage_error() {
    let run = fairdeal(&[
        "shuffle",
        "-i",
        "1-10",
        "--threads",
        "2",
        "--algo",
        "partial",
    ]);
    assert_eq!(run.status, Some(2));
    let line = run.error();
    assert!(line.contains("--algo parallel"), "{line}");
}
