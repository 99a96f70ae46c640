//! Running child processes: plainly, capturing their output, or streaming it to a log file
//! with progress (an indicatif bar on a terminal, a line every 10 % otherwise).

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// Announces a phase of the run on stderr.
pub(crate) fn phase(msg: &str) {
    eprintln!("xtask: == {msg}");
}

/// Runs `cmd` (stderr passed through) and returns its standard output.
pub(crate) fn output_text(mut cmd: Command) -> Result<String> {
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .context("cannot start cargo")?;
    if !out.status.success() {
        bail!("{:?} exited with {}", cmd.get_program(), out.status);
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `cmd` with its output passed through; fails unless it exits successfully.
pub(crate) fn run_plain(mut cmd: Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{:?} exited with {status}", cmd.get_program());
    }
    Ok(())
}

/// Runs `cmd`, saving all its output to `log`, and shows progress: an indicatif bar when stderr
/// is a terminal, otherwise a line every 10 % (or every minute). A line for which `done`
/// returns true counts as one finished benchmark. On failure the log's tail is printed.
pub(crate) fn run_streaming(
    mut cmd: Command,
    log: &Path,
    label: &str,
    total: Option<u64>,
    done: &(dyn Fn(&str) -> bool + Sync),
) -> Result<()> {
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let file = Arc::new(Mutex::new(file));
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot start {:?}", cmd.get_program()))?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let count = Arc::new(Mutex::new(0u64));
    let t0 = Instant::now();
    let tty = std::io::stderr().is_terminal();
    let bar = tty.then(|| {
        let bar = match total {
            Some(t) => indicatif::ProgressBar::new(t),
            None => indicatif::ProgressBar::new_spinner(),
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} (eta {eta})",
            )
            .expect("valid template"),
        );
        bar.set_prefix(label.to_owned());
        bar
    });
    let last_report = Arc::new(Mutex::new((Instant::now(), 0u64)));
    let handle_line = |line: &str| {
        if let Ok(mut f) = file.lock() {
            let _ = writeln!(f, "{line}");
        }
        if done(line) {
            let mut c = count.lock().expect("not poisoned");
            *c += 1;
            if let Some(bar) = &bar {
                bar.set_position(*c);
            } else {
                let mut last = last_report.lock().expect("not poisoned");
                let step = total.map_or(25, |t| (t / 10).max(1));
                if *c - last.1 >= step || last.0.elapsed() > Duration::from_secs(60) {
                    let of = total.map(|t| format!("/{t}")).unwrap_or_default();
                    eprintln!(
                        "xtask: {label}: {}{of} done ({:.0} s)",
                        *c,
                        t0.elapsed().as_secs_f64()
                    );
                    *last = (Instant::now(), *c);
                }
            }
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                handle_line(&line);
            }
        });
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            handle_line(&line);
        }
    });
    let status = child.wait()?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let n = *count.lock().expect("not poisoned");
    eprintln!(
        "xtask: {label}: {n} benchmarks in {:.0} s",
        t0.elapsed().as_secs_f64()
    );
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(40).collect();
        for l in tail.into_iter().rev() {
            eprintln!("  | {l}");
        }
        bail!(
            "{:?} exited with {status} (full log: {})",
            cmd.get_program(),
            log.display()
        );
    }
    Ok(())
}
