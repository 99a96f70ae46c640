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

#[cfg(test)]
mod tests {
    use super::*;

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
