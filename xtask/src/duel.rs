//! Duels: ours against a peer, interleaved round by round in one process, so that both sides
//! share the machine's load (`benches/examples/duel.rs` does the measuring).
//!
//! On a shared machine, two criterion runs minutes apart move by ±30 %, and a ratio of two
//! medians taken at different moments moves with them. A duel alternates the two sides in short
//! rounds on the same buffer with the same generator type and takes the ratio *per round*: a
//! load spike slows both halves of the round it hits. The median of the per-round ratios, with
//! its quartiles, is what the targets table reports.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// One duel's outcome, as the duel program prints it (one JSON object per line).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Duel {
    /// `deck52` (a `[u8; 52]`), `deal7_of_52` or `shuffle_u32` (a `Vec<u32>`).
    pub(crate) case: String,
    pub(crate) backend: String,
    pub(crate) n: u64,
    /// Our side's subject (`inplace`, `partial`).
    pub(crate) ours: String,
    /// The other side's subject (`rand-shuffle`, `fastrand-shuffle`, `inplace`, …).
    pub(crate) peer: String,
    pub(crate) rounds: u64,
    /// Calls per side per round.
    pub(crate) iters: u64,
    /// Median over rounds of our time per call, ns.
    pub(crate) ours_ns: f64,
    /// Median over rounds of the peer's time per call, ns.
    pub(crate) peer_ns: f64,
    /// Median over rounds of `peer time / our time` (above 1: ours faster).
    pub(crate) ratio: f64,
    /// Lower quartile of the per-round ratios.
    pub(crate) ratio_q1: f64,
    /// Upper quartile of the per-round ratios.
    pub(crate) ratio_q3: f64,
    pub(crate) ratio_min: f64,
    pub(crate) ratio_max: f64,
    /// Median ratio over the rounds where ours ran first, and where the peer did (an order
    /// effect shows as a gap). Absent from duel output older than these fields.
    #[serde(default)]
    pub(crate) ratio_ours_first: Option<f64>,
    #[serde(default)]
    pub(crate) ratio_peer_first: Option<f64>,
    /// The same rounds read as an interleaved wall-clock best-of: the peer's fastest half over
    /// ours' fastest, in wall-clock time.
    #[serde(default)]
    pub(crate) wall_best_ratio: Option<f64>,
}

impl Duel {
    /// `case/backend/ours/peer/n`, what `--filter` matches.
    pub(crate) fn id(&self) -> String {
        format!(
            "{}/{}/{}/{}/{}",
            self.case, self.backend, self.ours, self.peer, self.n
        )
    }
}

/// Reads the duel program's output: one JSON object per line; other lines are ignored.
pub(crate) fn parse(text: &str) -> Result<Vec<Duel>> {
    text.lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str(l).with_context(|| format!("reading duel line {l:?}")))
        .collect()
}

/// The command that builds and runs the duels (release profile, JSON lines on stdout).
pub(crate) fn command(cargo: &std::ffi::OsStr, root: &Path, quick: bool) -> Command {
    let mut c = Command::new(cargo);
    c.current_dir(root).args([
        "run",
        "--release",
        "-p",
        "fairdeal-benches",
        "--example",
        "duel",
        "--",
        "--json",
    ]);
    if quick {
        c.arg("--quick");
    }
    c
}

/// Builds and runs the duels, echoing each as it finishes, and returns them.
pub(crate) fn run(cargo: &std::ffi::OsStr, root: &Path, quick: bool) -> Result<Vec<Duel>> {
    use std::io::{BufRead, BufReader};
    let mut cmd = command(cargo, root, quick);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot start cargo for the duels")?;
    let stdout = child.stdout.take().expect("piped");
    let mut text = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.context("reading the duel output")?;
        if let Ok(d) = serde_json::from_str::<Duel>(&line) {
            eprintln!("xtask: duel {}: {:.2}×", d.id(), d.ratio);
        }
        text.push_str(&line);
        text.push('\n');
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("the duel program exited with {status}");
    }
    parse(&text)
}

/// The duels as a console table.
pub(crate) fn text(duels: &[Duel]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "duels (ratio = peer time / ours per round, median over rounds [quartiles]):"
    );
    for d in duels {
        let x = |v: Option<f64>| v.map_or_else(|| "–".to_owned(), |v| format!("{v:.2}×"));
        let _ = writeln!(
            s,
            "  {:<12} {:<9} {:>8} {:<8} vs {:<17} ours {:>10} peer {:>10}  {:>5.2}× [{:.2}–{:.2}] ({} rounds × {}; ours first {}, peer first {}; wall best-of {})",
            d.case,
            d.backend,
            d.n,
            d.ours,
            d.peer,
            crate::format::human_ns(d.ours_ns),
            crate::format::human_ns(d.peer_ns),
            d.ratio,
            d.ratio_q1,
            d.ratio_q3,
            d.rounds,
            d.iters,
            x(d.ratio_ours_first),
            x(d.ratio_peer_first),
            x(d.wall_best_ratio)
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_programs_json_lines_and_skips_the_rest() {
        let out = "   Compiling fairdeal-benches\n\
            {\"case\":\"deck52\",\"backend\":\"wyrand\",\"n\":52,\"ours\":\"inplace\",\"peer\":\"rand-shuffle\",\"rounds\":21,\"iters\":900,\"ours_ns\":61.5,\"peer_ns\":170.0,\"ratio\":2.75,\"ratio_q1\":2.7,\"ratio_q3\":2.8,\"ratio_min\":2.1,\"ratio_max\":3.0}\n";
        let d = parse(out).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].id(), "deck52/wyrand/inplace/rand-shuffle/52");
        assert_eq!(d[0].ratio, 2.75);
        assert!(
            parse("{\"case\": 1}\n").is_err(),
            "a broken line is an error"
        );
        assert!(text(&d).contains("2.75×"));
        // Output without the order and best-of fields (older runs) still reads, with `–`.
        assert_eq!(d[0].wall_best_ratio, None);
        assert!(text(&d).contains("wall best-of –"), "{}", text(&d));
        let with = out.replace(
            "\"ratio_max\":3.0}",
            "\"ratio_max\":3.0,\"ratio_ours_first\":2.6,\"ratio_peer_first\":2.9,\"wall_best_ratio\":3.1}",
        );
        let d = parse(&with).unwrap();
        assert_eq!(d[0].wall_best_ratio, Some(3.1));
        assert!(text(&d).contains("ours first 2.60×, peer first 2.90×; wall best-of 3.10×"));
    }
}
