//! docs/ARCHITECTURE.md states the workspace's dependency edges; this test reads every member's
//! `Cargo.toml` and fails when the two disagree, printing the table to paste (as rust-analyzer's
//! tidy tests do). An edge added or removed in a manifest must be added or removed in the map.
//!
//! Inside a crate, no two files of `src/` may import each other in a loop (`crate::` and
//! `super::` paths): the layers point one way, as the crates do.
//!
//! The CLI does not call the executor's parts: from `crates/cli/src` only the planner
//! (`fairdeal_external::plan`) and the executor's entry points (`fairdeal_external::exec`'s
//! `Job`, its input, draws, observer and errors) are named, never the external shuffle, its
//! loads or spill files, which only the executor runs.

use std::collections::{BTreeMap, BTreeSet};
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

/// The module path of a file of `src/` (`cmd/merge.rs` → `["cmd", "merge"]`; `mod.rs`,
/// `lib.rs` and `main.rs` name their directory's module).
fn module_of(file: &str) -> Vec<String> {
    let mut path: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// The paths a file names after `prefix` (`crate::` or `super::`): `crate::a::b::C` gives
/// `a::b::C`, and `crate::a::{b, c::D}` gives `a::b` and `a::c::D`. Its `#[cfg(test)] mod
/// tests` is left out: a test module may reach anywhere.
fn paths_after(text: &str, prefix: &str) -> Vec<Vec<String>> {
    let text = text
        .find("#[cfg(test)]\nmod tests {")
        .map_or(text, |at| &text[..at]);
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(prefix) {
        let preceded = rest[..at].chars().next_back().is_some_and(ident);
        rest = &rest[at + prefix.len()..];
        if preceded {
            continue;
        }
        let mut base = Vec::new();
        let mut tail = rest;
        loop {
            if let Some(group) = tail.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                for item in inner.split(',') {
                    let mut path = base.clone();
                    path.extend(
                        item.split_whitespace()
                            .next()
                            .unwrap_or_default()
                            .split("::")
                            .filter(|s| !s.is_empty() && s.chars().all(ident))
                            .map(str::to_owned),
                    );
                    found.push(path);
                }
                base.clear();
                break;
            }
            let len = tail.find(|c: char| !ident(c)).unwrap_or(tail.len());
            if len == 0 {
                break;
            }
            base.push(tail[..len].to_owned());
            tail = &tail[len..];
            match tail.strip_prefix("::") {
                Some(more) => tail = more,
                None => break,
            }
        }
        if !base.is_empty() {
            found.push(base);
        }
    }
    found
}

/// The import loops among `files` (path under `src/` → text): each loop's files, sorted.
fn import_cycles(files: &BTreeMap<String, String>) -> Vec<Vec<String>> {
    let modules: BTreeMap<Vec<String>, &String> =
        files.keys().map(|file| (module_of(file), file)).collect();
    // The file of the longest prefix of `path` that is a module.
    let resolve = |path: &[String]| {
        (0..=path.len())
            .rev()
            .find_map(|len| modules.get(&path[..len]).copied())
    };
    let mut edges: BTreeMap<&String, BTreeSet<&String>> = BTreeMap::new();
    for (file, text) in files {
        let module = module_of(file);
        let parent = &module[..module.len().saturating_sub(1)];
        let mut targets: Vec<Vec<String>> = paths_after(text, "crate::");
        if !module.is_empty() {
            targets.extend(
                paths_after(text, "super::")
                    .into_iter()
                    .map(|path| [parent, &path[..]].concat()),
            );
        }
        let out = edges.entry(file).or_default();
        for target in targets.iter().filter_map(|path| resolve(path)) {
            if target != file {
                out.insert(target);
            }
        }
    }
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(file) = stack.pop() {
            for next in edges.get(file).into_iter().flatten() {
                if seen.insert(*next) {
                    stack.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<&String>> =
        files.keys().map(|file| (file, reach(file))).collect();
    let mut cycles: BTreeSet<Vec<String>> = BTreeSet::new();
    for (file, seen) in &reaches {
        if !seen.contains(file) {
            continue;
        }
        let cycle: Vec<String> = seen
            .iter()
            .filter(|other| reaches[**other].contains(file))
            .map(|other| (*other).clone())
            .collect();
        cycles.insert(cycle);
    }
    cycles.into_iter().collect()
}

/// Every `.rs` file under `dir`, keyed by its path relative to `root`, `/`-separated.
fn rust_files(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under root");
            let key = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            out.insert(key, fs::read_to_string(&path).expect("read"));
        }
    }
}

#[test]
fn no_two_files_of_a_crate_import_each_other_in_a_loop() {
    let root = workspace_root();
    let mut checked = 0;
    let mut found = Vec::new();
    // Every crate of the workspace, and the Python module's own workspace.
    let mut packages: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("entry").path())
        .collect();
    packages.extend(["xtask", "benches", "python"].map(|dir| root.join(dir)));
    for package in packages {
        let src = package.join("src");
        if !src.is_dir() {
            continue;
        }
        let mut files = BTreeMap::new();
        rust_files(&src, &src, &mut files);
        checked += files.len();
        for cycle in import_cycles(&files) {
            found.push(format!("{}: {}", src.display(), cycle.join(" <-> ")));
        }
    }
    assert!(checked > 50, "only {checked} files read");
    assert!(
        found.is_empty(),
        "files that import each other in a loop (move what both need into a leaf module \
         that imports neither):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_loop_finder_finds_loops_and_only_loops() {
    let files = |list: &[(&str, &str)]| -> BTreeMap<String, String> {
        list.iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect()
    };
    // Two modules that use each other, one through a `use` group.
    let pair = files(&[
        ("main.rs", "mod a;\nmod b;\nmod leaf;"),
        ("a.rs", "use crate::b::f;\nuse crate::leaf::Z;"),
        ("b.rs", "use crate::{a::g, leaf};"),
        ("leaf.rs", "pub struct Z;"),
    ]);
    assert_eq!(import_cycles(&pair), [vec!["a.rs", "b.rs"]]);
    // A longer loop through `super::`, with the back edge inside an expression.
    let ring = files(&[
        ("lib.rs", "mod cmd;"),
        ("cmd/mod.rs", "pub mod x;\npub mod y;"),
        ("cmd/x.rs", "use super::y::Y;"),
        ("cmd/y.rs", "fn f() { crate::common::g(); }"),
        ("common.rs", "fn g() -> crate::cmd::x::X { todo!() }"),
    ]);
    assert_eq!(
        import_cycles(&ring),
        [vec!["cmd/x.rs", "cmd/y.rs", "common.rs"]]
    );
    // One way only, a test module that reaches back, and a name that merely ends in `crate`:
    // no loop.
    let one_way = files(&[
        ("main.rs", "mod a;\nmod b;"),
        ("a.rs", "use crate::b::f;"),
        (
            "b.rs",
            "fn f() { my_crate::a::g(); }\n#[cfg(test)]\nmod tests {\n    use crate::a::g;\n}",
        ),
    ]);
    assert_eq!(import_cycles(&one_way), Vec::<Vec<String>>::new());
}

/// What `crates/cli/src` may name in `fairdeal_external::exec`: the job's entry points, what
/// they take and what they report.
const EXEC_ENTRY_POINTS: [&str; 11] = [
    "Job",
    "Input",
    "Sources",
    "Draws",
    "Observer",
    "Step",
    "ExecError",
    "OpenError",
    "SPOOL_BLOCK",
    "SPOOL_BYTES_PER_BLOCK",
    "SPOOL_BYTES_PER_RECORD",
];

/// The executor's parts, which only `fairdeal_external::exec` runs.
const EXECUTOR_PARTS: [&str; 5] = [
    "ExternalShuffle",
    "Loaded",
    "Summary",
    "SpillFile",
    "Segment",
];

/// The paths of `files` (path → text) that reach past the executor's entry points: every
/// `fairdeal_external::exec::X` with `X` not an entry point, and every executor part, outside
/// comments.
fn executor_parts_named(files: &BTreeMap<String, String>) -> Vec<String> {
    let mut found = Vec::new();
    for (file, text) in files {
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for path in paths_after(&code, "fairdeal_external::") {
            let bad = match path.as_slice() {
                [module, item, ..] if module == "exec" => {
                    !EXEC_ENTRY_POINTS.contains(&item.as_str())
                }
                [item, ..] => EXECUTOR_PARTS.contains(&item.as_str()),
                [] => false,
            };
            if bad {
                found.push(format!("{file}: fairdeal_external::{}", path.join("::")));
            }
        }
    }
    found
}

#[test]
fn the_cli_does_not_call_the_executors_parts() {
    let root = workspace_root();
    let src = root.join("crates/cli/src");
    let mut files = BTreeMap::new();
    rust_files(&src, &src, &mut files);
    assert!(
        files
            .values()
            .any(|text| text.contains("fairdeal_external::exec::")),
        "the CLI no longer names the executor's entry points: update this test"
    );
    let found = executor_parts_named(&files);
    assert!(
        found.is_empty(),
        "the CLI names parts of the executor (plan, then call `exec::Job::execute`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_executor_check_finds_its_parts_and_only_them() {
    let files = |list: &[(&str, &str)]| -> BTreeMap<String, String> {
        list.iter()
            .map(|(path, text)| ((*path).to_owned(), (*text).to_owned()))
            .collect()
    };
    // A command that loads and shuffles by hand, and one that names a helper of the executor.
    let by_hand = files(&[
        (
            "cmd/a.rs",
            "fn f() { fairdeal_external::ExternalShuffle::new(b, 10).load(r, None); }",
        ),
        (
            "cmd/b.rs",
            "use fairdeal_external::exec::{Job, split_records};\nuse fairdeal_external::{Loaded, MemoryBudget};",
        ),
    ]);
    assert_eq!(
        executor_parts_named(&by_hand),
        [
            "cmd/a.rs: fairdeal_external::ExternalShuffle::new",
            "cmd/b.rs: fairdeal_external::exec::split_records",
            "cmd/b.rs: fairdeal_external::Loaded",
        ]
    );
    // The entry points, the planner, the budget and a comment naming a part: nothing found.
    let entry_points = files(&[(
        "cmd/c.rs",
        "use fairdeal_external::exec::{Draws, Input, Job};\nuse fairdeal_external::plan::{self, Plan};\n\
         use fairdeal_external::MemoryBudget;\n// not fairdeal_external::ExternalShuffle\n",
    )]);
    assert_eq!(executor_parts_named(&entry_points), Vec::<String>::new());
}

/// The string literals of `code` that could be a JSON field's name (`"counts"`, `"seed"`), outside
/// comments and not inside another string (an escaped `\"total\"` in a message is wording); a
/// string spanning lines is read line by line.
fn field_names_in(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        // Walk the line's string literals: text between unescaped quotes.
        let mut literal: Option<String> = None;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (&mut literal, c) {
                (None, '"') => literal = Some(String::new()),
                (None, '/') if chars.peek() == Some(&'/') => break,
                (None, _) => {}
                (Some(text), '\\') => {
                    text.push('\\');
                    text.extend(chars.next());
                }
                (Some(text), '"') => {
                    if !text.is_empty() && text.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    {
                        found.push(text.clone());
                    }
                    literal = None;
                }
                (Some(text), c) => text.push(c),
            }
        }
    }
    found
}

/// `fairdeal merge` reads files, calls the engines and words their errors: the fields of the
/// engines' documents are read by the crates that write them (`SimRun`, `McRun`,
/// `table_counts`, `RunParams`, `RunTally`), so merge names none of them. It handles only the
/// shard document's own `shard` and `seconds` (with the facade's `shard_doc` functions).
#[test]
fn merge_names_no_field_of_the_engines_documents() {
    let merge = workspace_root().join("crates/cli/src/cmd/merge.rs");
    let text = std::fs::read_to_string(&merge).expect("merge.rs");
    let named: Vec<String> = field_names_in(&text)
        .into_iter()
        .filter(|name| !["shard", "seconds"].contains(&name.as_str()))
        .collect();
    assert!(
        named.is_empty(),
        "merge.rs reads fields of the engines' documents by name (move the reading into the \
         crate that writes the document): {named:?}"
    );
}

#[test]
fn the_field_name_finder_finds_names_and_only_names() {
    let code = "let n = doc.u64(\"n\")?; // not \"comment\"\n\
                doc.get(\"seed_from_os\").and(x(\"Error: bad\", \"a \\\"total\\\" b\"));\n\
                // \"ignored\"\n";
    assert_eq!(field_names_in(code), ["n", "seed_from_os"]);
}
