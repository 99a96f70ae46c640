//! Tidy tests, as in rust-analyzer's xtask: the places where the repository must repeat
//! something by hand (a manifest cannot inherit part of a table, the xtask does not link the
//! bench crate) are checked against their source here, so they cannot drift apart silently.
//! (The literal algorithm and backend lists of `benches/benches/iai.rs` are checked against the
//! catalogue by the bench crate's own test, `the_iai_matrix_is_the_catalogue`.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The lint tables of a manifest whose headers are `[{prefix}rust]` and `[{prefix}clippy]`, as
/// `("rust" | "clippy", lint) → level` with the level's text as written (comments and blank
/// lines dropped).
fn lint_tables(manifest: &str, prefix: &str) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let mut table: Option<String> = None;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .and_then(|l| l.strip_prefix(prefix))
                .map(str::to_owned);
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let (Some(t), Some((key, value))) = (&table, line.split_once('=')) {
            out.insert((t.clone(), key.trim().to_owned()), value.trim().to_owned());
        }
    }
    out
}

#[test]
fn the_unsafe_crates_copy_the_workspace_lints() {
    // crates/core, crates/inplace, crates/chacha and crates/cli cannot say `lints.workspace = true`: the workspace forbids
    // `unsafe_code`, and `forbid` cannot be lifted for their scoped exceptions. Everything else
    // must match.
    let workspace = lint_tables(&read("Cargo.toml"), "workspace.lints.");
    assert!(
        workspace.len() >= 5,
        "no workspace lints found: {workspace:?}"
    );
    let unsafe_code = ("rust".to_owned(), "unsafe_code".to_owned());
    assert_eq!(
        workspace.get(&unsafe_code).map(String::as_str),
        Some("\"forbid\"")
    );
    for manifest in [
        "crates/core/Cargo.toml",
        "crates/inplace/Cargo.toml",
        "crates/chacha/Cargo.toml",
        "crates/cli/Cargo.toml",
    ] {
        let mut own = lint_tables(&read(manifest), "lints.");
        assert_eq!(
            own.get(&unsafe_code).map(String::as_str),
            Some("\"deny\""),
            "{manifest}"
        );
        own.insert(unsafe_code.clone(), "\"forbid\"".to_owned());
        assert_eq!(
            own, workspace,
            "{manifest}'s [lints] must be the root manifest's [workspace.lints] with \
             unsafe_code = \"deny\""
        );
    }
}

#[test]
fn quick_mode_variable_is_the_bench_crates() {
    let source = read("benches/src/lib.rs");
    let declared = source
        .lines()
        .find_map(|l| l.trim().strip_prefix("pub const QUICK_ENV: &str = "))
        .and_then(|rest| rest.strip_suffix(';'))
        .map(|value| value.trim_matches('"'))
        .expect("benches/src/lib.rs declares `pub const QUICK_ENV: &str = \"…\";`");
    assert_eq!(crate::bench::fairdeal_benches_quick_env(), declared);
}

#[test]
fn the_lint_parser_reads_what_it_compares() {
    let manifest = "[package]\nname = \"x\"\n\n[lints.rust]\n# why\nunsafe_code = \"deny\"\n\n\
                    [lints.clippy]\ntodo = \"warn\"\n[dependencies]\nfoo = \"1\"\n";
    let tables = lint_tables(manifest, "lints.");
    assert_eq!(tables.len(), 2);
    assert_eq!(
        tables[&("clippy".to_owned(), "todo".to_owned())],
        "\"warn\""
    );
}
