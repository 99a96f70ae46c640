//! The round loop of a duel (`examples/duel.rs`): ours and the peer alternate which runs first,
//! and a round whose clock did not advance is run again instead of giving an infinite ratio.

/// One side's half of a round: nanoseconds of thread CPU time, and of wall clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Half {
    /// Thread CPU time, the duel's measure.
    pub cpu_ns: f64,
    /// Wall clock over the same calls, for the best-of comparison.
    pub wall_ns: f64,
}

/// A round that counts (after the warm-up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    /// Our half.
    pub ours: Half,
    /// The peer's half.
    pub peer: Half,
    /// Whether ours ran first in this round.
    pub ours_first: bool,
}

/// The counted rounds of a duel, and how many rounds were run again.
#[derive(Debug, Clone, PartialEq)]
pub struct Rounds {
    /// `rounds` rounds, in the order they ran; every half's CPU time is above 0.
    pub counted: Vec<Round>,
    /// Rounds (warm-up or counted) run again because a half read 0 ns of CPU time.
    pub rerun: usize,
}

/// More rounds than the duel counts had a half that read 0 ns: the thread CPU clock does not
/// advance, and the duel has no ratio to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{rerun} rounds timed a half at 0 ns of thread CPU time")]
pub struct StoppedClock {
    /// Rounds run again before giving up.
    pub rerun: usize,
}

/// Runs `warm_up + rounds` rounds of `round(ours_first)`, which times both halves in the order
/// given and returns `(ours, peer)`. Ours runs first in even rounds, the peer in odd ones. A
/// round with a half at 0 ns (or NaN) of CPU time is run again, with the same order, and not
/// counted; more than `rounds` such reruns end the duel.
///
/// # Errors
///
/// [`StoppedClock`] after `rounds + 1` reruns.
pub fn alternate(
    warm_up: usize,
    rounds: usize,
    mut round: impl FnMut(bool) -> (Half, Half),
) -> Result<Rounds, StoppedClock> {
    let mut out = Rounds {
        counted: Vec::with_capacity(rounds),
        rerun: 0,
    };
    let mut index = 0;
    while index < warm_up + rounds {
        let ours_first = index % 2 == 0;
        let (ours, peer) = round(ours_first);
        if !(ours.cpu_ns > 0.0 && peer.cpu_ns > 0.0) {
            out.rerun += 1;
            if out.rerun > rounds {
                return Err(StoppedClock { rerun: out.rerun });
            }
            continue;
        }
        if index >= warm_up {
            out.counted.push(Round {
                ours,
                peer,
                ours_first,
            });
        }
        index += 1;
    }
    Ok(out)
}

/// A round is in the host's fastest state when its ours + peer time is at most this factor
/// above the fastest round's: the 10 % with which `cargo xtask bench --duel --runs N` keeps a
/// duel's runs.
pub const FASTEST_STATE_SLACK: f64 = 1.1;

/// The indices, in order, of the rounds run in the host's fastest state: those whose
/// `ours[i] + peer[i]` is at most [`FASTEST_STATE_SLACK`] times the least such sum (none for no
/// rounds; pairs beyond the shorter slice are ignored).
///
/// On a shared virtual machine the host moves between states lasting a tenth of a second or
/// more, and in a slower one the side with more instructions or memory traffic slows more, so a
/// median over every round can read a ratio high (`docs/notes/2026-11-27-zen3.md`, "The host's
/// states"). Long rounds (a shuffle of 10^8 elements each) can be sorted by state one by one.
pub fn fastest_rounds(ours: &[f64], peer: &[f64]) -> Vec<usize> {
    let sums: Vec<f64> = ours.iter().zip(peer).map(|(o, p)| o + p).collect();
    let least = sums.iter().copied().fold(f64::INFINITY, f64::min);
    (0..sums.len())
        .filter(|&i| sums[i] <= FASTEST_STATE_SLACK * least)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_rounds_are_those_within_ten_percent_of_the_fastest() {
        // Rounds 1 and 3 ran in a slow state (sums 30 and 40); round 4's sum, 21.9, is within
        // 10 % of round 0's 20.0, round 2's 22.5 is not.
        let ours = [8.0, 10.0, 9.0, 10.0, 9.9];
        let peer = [12.0, 20.0, 13.5, 30.0, 12.0];
        assert_eq!(fastest_rounds(&ours, &peer), [0, 4]);
        // Equal sums are all kept; no rounds, no indices.
        assert_eq!(fastest_rounds(&[1.0, 2.0], &[2.0, 1.0]), [0, 1]);
        assert!(fastest_rounds(&[], &[]).is_empty());
    }

    fn half(cpu_ns: f64) -> Half {
        Half {
            cpu_ns,
            wall_ns: cpu_ns,
        }
    }

    #[test]
    fn rounds_alternate_and_the_warm_up_is_not_counted() {
        let mut calls = Vec::new();
        let rounds = alternate(3, 4, |ours_first| {
            calls.push(ours_first);
            let n = calls.len() as f64;
            (half(n), half(2.0 * n))
        })
        .unwrap();
        assert_eq!(calls, [true, false, true, false, true, false, true]);
        assert_eq!(rounds.rerun, 0);
        let counted: Vec<(f64, bool)> = rounds
            .counted
            .iter()
            .map(|r| (r.peer.cpu_ns / r.ours.cpu_ns, r.ours_first))
            .collect();
        assert_eq!(
            counted,
            [(2.0, false), (2.0, true), (2.0, false), (2.0, true)]
        );
        assert_eq!(rounds.counted[0].ours, half(4.0));
    }

    #[test]
    fn a_half_at_zero_ns_is_run_again_in_the_same_order() {
        // The KVM guest's reading: one half of one round at 0 ns. Without the rerun the
        // round's ratio would be infinite (or NaN), which JSON cannot carry.
        let mut calls = Vec::new();
        let rounds = alternate(1, 3, |ours_first| {
            calls.push(ours_first);
            match calls.len() {
                3 => (half(0.0), half(5.0)),
                5 => (half(5.0), half(0.0)),
                _ => (half(10.0), half(15.0)),
            }
        })
        .unwrap();
        assert_eq!(calls, [true, false, true, true, false, false]);
        assert_eq!(rounds.rerun, 2);
        assert_eq!(rounds.counted.len(), 3);
        assert!(
            rounds
                .counted
                .iter()
                .all(|r| r.peer.cpu_ns / r.ours.cpu_ns == 1.5)
        );
    }

    #[test]
    fn a_clock_that_never_advances_ends_the_duel() {
        let mut calls = 0;
        let err = alternate(2, 5, |_| {
            calls += 1;
            (half(0.0), half(f64::NAN))
        })
        .unwrap_err();
        assert_eq!(err, StoppedClock { rerun: 6 });
        assert_eq!(calls, 6);
        assert_eq!(
            err.to_string(),
            "6 rounds timed a half at 0 ns of thread CPU time"
        );
    }
}
