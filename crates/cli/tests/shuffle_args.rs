//! The `fairdeal shuffle` command's parsers (`fairdeal_cli::args`: `-i LO-HI`, `-n K`,
//! `--memory`), its help, and the planner's agreement with the facade on the algorithms and
//! thresholds it names.

mod common;

use common::fairdeal;
use fairdeal::DEFAULT_ALGORITHM;
use fairdeal_cli::args::{InputRange, parse_head_count, parse_memory, parse_range};
use fairdeal_external::plan;

#[test]
fn help_states_the_caps_and_the_budget_dependence() {
    // Words, whatever the width the help is wrapped to.
    let help = fairdeal(&["shuffle", "--help"]).ok().text();
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(&plan::MAX_RANGE_IN_MEMORY.to_string()),
        "{help}"
    );
    let defaults = format!("default: {DEFAULT_ALGORITHM}, run as the parallel");
    assert!(help.contains(&defaults), "{help}");
    assert!(
        help.contains(&format!("{} with -n", plan::PREFIX_ALGORITHM)),
        "{help}"
    );
    assert!(help.contains("depends on the budget"), "{help}");
    assert!(help.contains("a quarter of physical memory"), "{help}");
    assert!(
        help.contains("more than 1 MiB, i.e. 131072 numbers or 65536 lines"),
        "{help}"
    );
    assert!(help.contains("budget plus 4 MiB of buffers"), "{help}");
    assert_eq!(
        fairdeal_external::DEFAULT_FRACTION,
        4,
        "the help says 'a quarter'"
    );
}

#[test]
fn the_planner_names_the_facade_algorithms() {
    assert_eq!(plan::PREFIX_ALGORITHM, fairdeal::partial::INFO.name);
    assert_eq!(plan::WHOLE_ALGORITHM, DEFAULT_ALGORITHM);
    assert_eq!(plan::PARALLEL_ALGORITHM, fairdeal::parallel::INFO.name);
    for name in [
        plan::PREFIX_ALGORITHM,
        plan::WHOLE_ALGORITHM,
        plan::PARALLEL_ALGORITHM,
    ] {
        assert!(
            fairdeal::algorithm_by_name(name, fairdeal::Lemire).is_ok(),
            "{name}"
        );
    }
}

#[test]
fn ranges_parse_and_reject() {
    assert_eq!(parse_range("1-10"), Ok(InputRange { lo: 1, len: 10 }));
    assert_eq!(parse_range("7-7"), Ok(InputRange { lo: 7, len: 1 }));
    // GNU shuf: LO-(LO-1) is the empty range.
    assert_eq!(parse_range("1-0"), Ok(InputRange { lo: 1, len: 0 }));
    assert_eq!(parse_range("8-7"), Ok(InputRange { lo: 8, len: 0 }));
    let full = parse_range("0-18446744073709551615").unwrap();
    assert_eq!(full.len, 1u128 << 64);
    assert_eq!(full.hi(), u64::MAX);
    for bad in [
        "",
        "5",
        "-",
        "1-",
        "-5",
        "a-b",
        "1-2-3",
        "-1-5",
        "+1-5",
        "1 -5",
        "1-99999999999999999999",
    ] {
        assert!(parse_range(bad).is_err(), "{bad:?} accepted");
    }
    assert!(parse_range("5-3").unwrap_err().contains("reversed"));
    assert!(parse_range("2-0").unwrap_err().contains("reversed"));
}

#[test]
fn head_counts_parse_and_reject() {
    assert_eq!(parse_head_count("0"), Ok(0));
    assert_eq!(parse_head_count("12"), Ok(12));
    assert_eq!(parse_head_count("99999999999999999999999"), Ok(usize::MAX));
    for bad in ["", "-1", "-0", "1.5", "x", " 1"] {
        assert!(parse_head_count(bad).is_err(), "{bad:?} accepted");
    }
}

#[test]
fn the_planner_knows_when_gnu_reads_a_file_whole() {
    // Probe row P9: the plan of `--random-source -n K` holds a file GNU reads whole; the
    // draw loop decides the same from the same threshold.
    assert_eq!(
        plan::GNU_READS_WHOLE,
        fairdeal::rng::GNU_RESERVOIR_MIN_INPUT
    );
}

#[test]
fn memory_sizes_are_bounded_by_the_machine() {
    assert_eq!(parse_memory("1K").unwrap().bytes(), 1024);
    assert!(parse_memory("512").unwrap_err().contains("minimum"));
    assert!(parse_memory("12X").unwrap_err().contains("invalid size"));
    if fairdeal_external::physical_memory().is_some() {
        let err = parse_memory("1000000T").unwrap_err();
        assert!(err.contains("this machine's"), "{err}");
    }
}
