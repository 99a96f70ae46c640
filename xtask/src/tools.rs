//! The tools the instruction counts need: valgrind (reported, never installed: it is a system
//! package) and `iai-callgrind-runner` at exactly the version of the `iai-callgrind` library in
//! `Cargo.lock` (found in `$IAI_CALLGRIND_RUNNER`, `PATH` or `$CARGO_HOME/bin`, installed with
//! `cargo install --locked` when missing or mismatched).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use regex::Regex;

use crate::process::{phase, run_plain};

/// `valgrind --version`, or why it cannot be run.
pub(crate) fn check_valgrind() -> Result<String> {
    let out = Command::new("valgrind")
        .arg("--version")
        .output()
        .context("cannot run `valgrind --version`")?;
    if !out.status.success() {
        bail!("`valgrind --version` failed");
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The version of a package recorded in `Cargo.lock`.
pub(crate) fn locked_version(lock: &str, package: &str) -> Option<String> {
    let mut name_matches = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name_matches = false;
        } else if let Some(name) = line.strip_prefix("name = ") {
            name_matches = name.trim_matches('"') == package;
        } else if let Some(v) = line.strip_prefix("version = ")
            && name_matches
        {
            return Some(v.trim_matches('"').to_owned());
        }
    }
    None
}

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_else(|| PathBuf::from(".cargo"))
}

/// The version of an `iai-callgrind-runner` binary.
///
/// The runner has no `--version` flag (0.16 exits 1 without output); run without arguments it
/// fails with a message naming its version, which [`parse_runner_version`] reads.
fn runner_version(path: &Path) -> Option<String> {
    let out = Command::new(path).output().ok()?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_runner_version(&text)
}

/// Finds `iai-callgrind-runner … X.Y.Z` (e.g. "Detected version of iai-callgrind-runner is
/// 0.16.1", "iai-callgrind-runner (0.16.1)") in the runner's output.
pub(crate) fn parse_runner_version(text: &str) -> Option<String> {
    let re = Regex::new(r"iai-callgrind-runner\D{0,8}?(\d+\.\d+\.\d+)").expect("valid regex");
    re.captures(text).map(|c| c[1].to_owned())
}

/// Finds `iai-callgrind-runner` at the version of the `iai-callgrind` library in `Cargo.lock`,
/// installing it with `cargo install --locked` when missing or mismatched (unless `no_install`).
pub(crate) fn ensure_runner(cargo: &OsStr, root: &Path, no_install: bool) -> Result<PathBuf> {
    let lock_path = root.join("Cargo.lock");
    let lock = std::fs::read_to_string(&lock_path)
        .with_context(|| format!("reading {}", lock_path.display()))?;
    let want = locked_version(&lock, "iai-callgrind").context(
        "Cargo.lock has no iai-callgrind package (is fairdeal-benches in the workspace?)",
    )?;
    let exe = format!("iai-callgrind-runner{}", std::env::consts::EXE_SUFFIX);
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("IAI_CALLGRIND_RUNNER") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join(&exe)));
    }
    let installed = cargo_home().join("bin").join(&exe);
    candidates.push(installed.clone());
    let mut seen = Vec::new();
    for c in candidates.iter().filter(|c| c.is_file()) {
        match runner_version(c) {
            Some(v) if v == want => {
                eprintln!("xtask: using {} {v}", c.display());
                return Ok(c.clone());
            }
            Some(v) => seen.push(format!("{} is version {v}", c.display())),
            None => seen.push(format!("{} does not report a version", c.display())),
        }
    }
    let why = if seen.is_empty() {
        "is not installed".to_owned()
    } else {
        format!("does not match ({})", seen.join("; "))
    };
    if no_install {
        bail!(
            "iai-callgrind-runner {want} (the version of the iai-callgrind library in Cargo.lock) {why}, \
             and --no-install was given; install it with `cargo install iai-callgrind-runner --version {want} --locked`"
        );
    }
    phase(&format!(
        "iai-callgrind-runner {want} {why}: installing it with `cargo install iai-callgrind-runner \
         --version {want} --locked` into {}. It is the program that runs each instruction-count \
         benchmark under valgrind and must match the library version exactly. Compiling it takes a \
         few minutes (once).",
        installed.parent().unwrap_or(Path::new(".")).display()
    ));
    let mut install = Command::new(cargo);
    install.current_dir(root).args([
        "install",
        "iai-callgrind-runner",
        "--version",
        &want,
        "--locked",
    ]);
    run_plain(install).context("cargo install iai-callgrind-runner failed")?;
    match runner_version(&installed) {
        Some(v) if v == want => Ok(installed),
        other => bail!(
            "after installing, {} reports version {:?}, expected {want}",
            installed.display(),
            other
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_locked_version() {
        let lock = "[[package]]\nname = \"iai-callgrind-macros\"\nversion = \"0.6.1\"\n\n[[package]]\nname = \"iai-callgrind\"\nversion = \"0.16.1\"\nsource = \"registry\"\n";
        assert_eq!(
            locked_version(lock, "iai-callgrind").as_deref(),
            Some("0.16.1")
        );
        assert_eq!(
            locked_version(lock, "iai-callgrind-macros").as_deref(),
            Some("0.6.1")
        );
        assert_eq!(locked_version(lock, "criterion"), None);
    }

    #[test]
    fn reads_the_runner_version_from_its_error_message() {
        // What iai-callgrind-runner 0.16.1 prints when run without arguments.
        let msg = "iai_callgrind_runner: Error: Failed to initialize iai-callgrind-runner: \
                   Unexpected number of arguments\n\nDetected version of iai-callgrind-runner is \
                   0.16.1. This error can be caused by a version mismatch";
        assert_eq!(parse_runner_version(msg).as_deref(), Some("0.16.1"));
        let other = "No version information found for iai-callgrind but iai-callgrind-runner \
                     (0.15.2) is >= '0.3.0'";
        assert_eq!(parse_runner_version(other).as_deref(), Some("0.15.2"));
        assert_eq!(parse_runner_version("command not found"), None);
    }
}
