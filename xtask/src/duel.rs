//! Duels: ours against a peer, interleaved round by round in one process, so that both sides
//! share the machine's load (`benches/examples/duel.rs` does the measuring).
//!
//! On a shared machine, two criterion runs minutes apart move by ±30 %, and a ratio of two
//! medians taken at different moments moves with them. A duel alternates the two sides in short
//! rounds on the same buffer with the same generator type (rand's side on rand's own
//! `ChaCha12Rng` where the backend is chacha12) and takes the ratio *per round*: a
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
    /// Set when the duel was read at the host's fastest state over several runs
    /// ([`fastest_state`]); absent from the duel program's own output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) state: Option<FastestState>,
}

/// How a duel read at the host's fastest state was chosen (see [`fastest_state`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FastestState {
    /// The runs of the duel program.
    pub(crate) runs: usize,
    /// Those within [`FASTEST_STATE_SLACK`] of the duel's fastest run.
    pub(crate) kept: usize,
    /// The lowest and highest median ratio among the runs kept.
    pub(crate) ratio_low: f64,
    pub(crate) ratio_high: f64,
}

/// A run is in the fastest state when its time per call (ours + peer) is at most this factor
/// above the duel's fastest run. The `scaling` example keeps its rounds with the same slack
/// (`fairdeal_benches::rounds::FASTEST_STATE_SLACK`; the xtask does not depend on that crate).
pub(crate) const FASTEST_STATE_SLACK: f64 = 1.1;

/// Each duel read at the host's fastest state over several runs of the duel program (`runs`,
/// one list per run, in the program's order).
///
/// On a shared virtual machine the host moves between states lasting a tenth of a second or
/// more; in a slower one both sides run slower and the side executing more instructions (the
/// peer) slows more, so a run spent there reads our lead up to 1.35× high
/// (`docs/notes/2026-11-27-zen3.md`, "The host's states"). Of the runs whose ours + peer time
/// per call is within [`FASTEST_STATE_SLACK`] of the duel's fastest, this keeps the one with
/// the median ratio (the lower middle of an even count): a whole run's record, quartiles and
/// all, with [`Duel::state`] saying how many runs were kept and the range of their ratios.
pub(crate) fn fastest_state(runs: &[Vec<Duel>]) -> Vec<Duel> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|d| {
            let id = d.id();
            let mut same: Vec<&Duel> = runs.iter().flatten().filter(|e| e.id() == id).collect();
            let time = |e: &Duel| e.ours_ns + e.peer_ns;
            let fastest = same.iter().map(|e| time(e)).fold(f64::INFINITY, f64::min);
            let total = same.len();
            same.retain(|e| time(e) <= FASTEST_STATE_SLACK * fastest);
            same.sort_by(|a, b| a.ratio.total_cmp(&b.ratio));
            let mut chosen = same[(same.len() - 1) / 2].clone();
            chosen.state = Some(FastestState {
                runs: total,
                kept: same.len(),
                ratio_low: same[0].ratio,
                ratio_high: same[same.len() - 1].ratio,
            });
            chosen
        })
        .collect()
}

impl Duel {
    /// A duel for tests: `ns` is (ours, peer) per call, the ratio their quotient, the
    /// quartiles 1 % either side of it, and nothing optional set.
    #[cfg(test)]
    pub(crate) fn sample(
        (case, backend, ours, peer): (&str, &str, &str, &str),
        n: u64,
        ns: (f64, f64),
    ) -> Self {
        let ratio = ns.1 / ns.0;
        Self {
            case: case.into(),
            backend: backend.into(),
            n,
            ours: ours.into(),
            peer: peer.into(),
            rounds: 21,
            iters: 100,
            ours_ns: ns.0,
            peer_ns: ns.1,
            ratio,
            ratio_q1: ratio * 0.99,
            ratio_q3: ratio * 1.01,
            ratio_min: ratio * 0.9,
            ratio_max: ratio * 1.1,
            ratio_ours_first: None,
            ratio_peer_first: None,
            wall_best_ratio: None,
            state: None,
        }
    }

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
        let state = d.state.as_ref().map_or_else(String::new, |f| {
            format!(
                "; {} of {} runs at the fastest state, {:.2}–{:.2}×",
                f.kept, f.runs, f.ratio_low, f.ratio_high
            )
        });
        let _ = writeln!(
            s,
            "  {:<12} {:<9} {:>8} {:<8} vs {:<17} ours {:>10} peer {:>10}  {:>5.2}× [{:.2}–{:.2}] ({} rounds × {}; ours first {}, peer first {}; wall best-of {}{state})",
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

    /// A duel of `case` whose run took `ours_ns` and `peer_ns` per call.
    fn run_of(case: &str, ours_ns: f64, peer_ns: f64) -> Duel {
        let id = (case, "wyrand", "inplace", "fastrand-shuffle");
        Duel::sample(id, 52, (ours_ns, peer_ns))
    }

    /// Of several runs, each duel is read from the runs within 10 % of its fastest (a slower
    /// state, whose ratio reads high, is left out), at their median ratio, and says so.
    #[test]
    fn each_duel_is_read_at_its_fastest_state() {
        let runs = vec![
            // A slower state: both sides slower, the peer more, so the ratio reads high.
            vec![
                run_of("deck52", 68.0, 125.0),
                run_of("deal7_of_52", 9.0, 50.0),
            ],
            vec![
                run_of("deck52", 48.0, 67.0),
                run_of("deal7_of_52", 8.0, 42.0),
            ],
            vec![
                run_of("deck52", 47.0, 66.5),
                run_of("deal7_of_52", 8.4, 40.0),
            ],
            vec![
                run_of("deck52", 48.5, 68.5),
                run_of("deal7_of_52", 8.2, 44.0),
            ],
        ];
        let read = fastest_state(&runs);
        assert_eq!(read.len(), 2);
        // deck52: the three fast runs (115, 113.5 and 117 ns per call, within 10 % of 113.5),
        // ratios 1.396, 1.415 and 1.412: the middle one is the run of 48.5 ns.
        assert_eq!(read[0].case, "deck52");
        assert_eq!(read[0].ours_ns, 48.5);
        let state = read[0].state.as_ref().unwrap();
        assert_eq!((state.runs, state.kept), (4, 3));
        assert_eq!(state.ratio_low, 67.0 / 48.0);
        assert_eq!(state.ratio_high, 66.5 / 47.0);
        assert_eq!(
            read[0].ratio_q1,
            read[0].ratio * 0.99,
            "the chosen run's own quartiles"
        );
        // deal7: fastest 48.4 ns per call; the run of 59 ns is out, those of 50 and 52.2 are in
        // (ratios 5.25 and 5.37, the fastest's 4.76): the median is the run of 50 ns.
        let state = read[1].state.as_ref().unwrap();
        assert_eq!((state.runs, state.kept), (4, 3));
        assert_eq!(read[1].ratio, 42.0 / 8.0);
        // With an even count kept, the lower middle: drop the run of 50 ns.
        let even: Vec<Vec<Duel>> = runs
            .iter()
            .filter(|r| r[1].ours_ns != 8.0)
            .cloned()
            .collect();
        assert_eq!(fastest_state(&even)[1].ratio, 40.0 / 8.4);
        assert!(text(&read).contains("3 of 4 runs at the fastest state, 1.40–1.41×"));
        assert!(fastest_state(&[]).is_empty());
    }
}
