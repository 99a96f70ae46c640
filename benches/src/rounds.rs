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

/// Readings per size in [`calibrate`]: the fastest of them decides.
pub const CALIBRATION_READINGS: usize = 3;

/// How many calls per half make the slower side's half last about `target_ns`:
/// `time_both(iters)` times `iters` calls of each side and returns the slower side's
/// nanoseconds. From one call, the count doubles until the fastest of
/// [`CALIBRATION_READINGS`] readings reaches a quarter of the target, then scales to the target.
/// A clock that never advances stops the doubling at 2^30 calls, unscaled (there is no time to
/// scale by; the round loop then reports the stopped clock).
///
/// The fastest reading, not one: on a virtual machine a single reading of thread CPU time can
/// carry 0.1–0.4 ms that an interrupt or the host charged to the thread (an Intel KVM guest,
/// 2026-12-06). Read once, such a reading of one call stopped the doubling at one call per half,
/// whose two clock reads (a system call each, ≈ 0.3 µs) then sat in every half: the chacha12
/// deck against rand read 1.36× where the same rounds' wall-clock best-of read 2.55×.
pub fn calibrate(target_ns: f64, mut time_both: impl FnMut(u64) -> f64) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = (0..CALIBRATION_READINGS)
            .map(|_| time_both(iters))
            .fold(f64::INFINITY, f64::min);
        if t >= target_ns / 4.0 || iters >= 1 << 30 {
            let scale = if t > 0.0 {
                (target_ns / t).max(1.0)
            } else {
                1.0
            };
            return ((iters as f64 * scale) as u64).max(1);
        }
        iters *= 2;
    }
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

    #[test]
    fn calibration_is_not_stopped_by_one_slow_reading() {
        // 100 ns per call, and one reading in every three carries 200 µs charged by the host:
        // the fastest reading decides, so a 300 µs half gets 3,000 calls (the doubling stops at
        // 1,024, whose 102.4 µs pass a quarter of the target, and scales by 300 / 102.4).
        let mut readings = 0;
        let iters = calibrate(300e3, |iters| {
            readings += 1;
            let hiccup = if readings % 3 == 1 { 200e3 } else { 0.0 };
            iters as f64 * 100.0 + hiccup
        });
        assert_eq!(iters, 3_000, "{readings} readings");
        assert_eq!(readings, 11 * CALIBRATION_READINGS);
        // Control: with every reading slow (a slow call, 80 µs), one call per half is right.
        assert_eq!(calibrate(300e3, |iters| iters as f64 * 80e3), 3);
        // A clock that never advances stops at 2^30 calls, not scaled up from 0 ns.
        assert_eq!(calibrate(300e3, |_| 0.0), 1u64 << 30);
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
