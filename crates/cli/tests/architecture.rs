//! docs/ARCHITECTURE.md states the workspace's dependency edges; this test reads every member's
//! `Cargo.toml` and fails when the two disagree, printing the table to paste (as rust-analyzer's
//! tidy tests do). An edge added or removed in a manifest must be added or removed in the map.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- dependency-edges:begin (checked by crates/cli/tests/architecture.rs) -->";
const END: &str = "<!-- dependency-edges:end -->";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// One workspace member: its package name and the workspace crates it names as normal and as
/// dev-dependencies.
#[derive(Default)]
struct Edges {
    normal: Vec<String>,
    dev: Vec<String>,
}

/// Reads the members' manifests (`crates/*`, `benches`, `xtask`: the root manifest's members).
/// Only the simple line-oriented subset of TOML the manifests use is understood: a section
/// header per line and one dependency per line, named first.
fn manifest_edges(root: &Path) -> BTreeMap<String, Edges> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("entry").path())
        .filter(|dir| dir.join("Cargo.toml").is_file())
        .collect();
    dirs.extend(["benches", "xtask"].map(|dir| root.join(dir)));
    let mut members = BTreeMap::new();
    for dir in dirs {
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
        let mut name = None;
        let mut edges = Edges::default();
        let mut section = String::new();
        for line in manifest.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_owned();
                continue;
            }
            if section == "[package]"
                && let Some(value) = line.strip_prefix("name = ")
            {
                name = Some(value.trim_matches('"').to_owned());
            }
            let key: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if !(key == "fairdeal" || key.starts_with("fairdeal-")) {
                continue;
            }
            if section == "[dependencies]" || section.ends_with(".dependencies]") {
                edges.normal.push(key);
            } else if section == "[dev-dependencies]" || section.ends_with(".dev-dependencies]") {
                edges.dev.push(key);
            }
        }
        edges.normal.sort();
        edges.dev.sort();
        members.insert(name.expect("[package] name"), edges);
    }
    members
}

fn render(members: &BTreeMap<String, Edges>) -> String {
    let list = |names: &[String]| {
        if names.is_empty() {
            "—".to_owned()
        } else {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let mut table = String::from(
        "| crate | depends on (workspace crates) | dev-dependencies (tests, benches) |\n\
         |---|---|---|\n",
    );
    for (name, edges) in members {
        writeln!(
            table,
            "| `{name}` | {} | {} |",
            list(&edges.normal),
            list(&edges.dev)
        )
        .unwrap();
    }
    table
}

#[test]
fn the_architecture_map_lists_the_real_dependency_edges() {
    let root = workspace_root();
    let expected = render(&manifest_edges(&root));
    let doc = fs::read_to_string(root.join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = doc.find(BEGIN).map(|at| at + BEGIN.len());
    let end = doc.find(END);
    let (Some(start), Some(end)) = (start, end) else {
        panic!("docs/ARCHITECTURE.md lacks the markers; add:\n{BEGIN}\n{expected}{END}");
    };
    assert_eq!(
        doc[start..end].trim(),
        expected.trim(),
        "docs/ARCHITECTURE.md's dependency table is stale; replace it with:\n{expected}"
    );
}

#[test]
fn the_manifest_reader_sees_known_edges() {
    // The reader itself: edges that exist today must be found, or the check above proves
    // nothing (an empty table would match an empty table).
    let members = manifest_edges(&workspace_root());
    let cli = &members["fairdeal-cli"];
    assert_eq!(cli.normal, ["fairdeal", "fairdeal-external"]);
    let poker = &members["fairdeal-poker"];
    assert!(poker.normal.contains(&"fairdeal-cards".to_owned()));
    assert!(poker.dev.contains(&"fairdeal-inplace".to_owned()));
    assert!(members["fairdeal-core"].normal.is_empty());
    assert!(members.len() >= 15, "{}", members.len());
}
