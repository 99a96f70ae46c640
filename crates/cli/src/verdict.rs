//! The judges' exit statuses, decided here once: `audit`, `fairness`, `compare` and
//! `poker table` end with 0 for a fair verdict, [`EXIT_UNFAIR`] for an unfair one and
//! [`EXIT_INSUFFICIENT`] when the input is too small to judge — all different from a usage
//! error (2) and any other error (1), so `fairdeal audit deals.txt && deploy` gates a release.

use std::fmt;

use fairdeal::fairness::Verdict;
// The verdicts' sentences live in the library, where the Python module reads them too.
pub(crate) use fairdeal::fairness::statement::battery_sentence;

/// The exit status of an UNFAIR verdict.
pub(crate) const EXIT_UNFAIR: u8 = 3;

/// The exit status of an `insufficient` verdict (too few samples for any test to have power).
pub(crate) const EXIT_INSUFFICIENT: u8 = 4;

/// The `Exit status:` paragraph of each judging command's `--help`, as a literal so that
/// `after_help` attributes can `concat!` it. The architecture of the numbers is the constants
/// above; a unit test keeps the two in step.
macro_rules! exit_status_help {
    () => {
        "Exit status: 0 fair; 3 unfair; 4 insufficient; 2 usage error; 1 any other error. \
         FAIR: at the stated confidence the data bound every cell's deviation from fair within \
         the tolerance (the report states the bound); UNFAIR: a test rejects; INSUFFICIENT: \
         nothing rejects, but the data cannot bound the bias within the tolerance (the report \
         says about how many samples would)."
    };
}
pub(crate) use exit_status_help;

// `--tolerance` and `--confidence` are declared with the other flag groups.
pub(crate) use fairdeal_cli::args::EquivalenceArgs;

/// A verdict other than fair, carried as an error so `main` exits with its status. The verdict
/// has already been printed: `main` prints nothing more for it.
#[derive(Debug)]
pub(crate) struct VerdictStatus(pub(crate) Verdict);

impl fmt::Display for VerdictStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "verdict: {}", self.0)
    }
}

impl std::error::Error for VerdictStatus {}

impl VerdictStatus {
    /// The exit status of this verdict.
    pub(crate) fn code(&self) -> u8 {
        status(self.0)
    }
}

/// The exit status of `verdict`.
pub(crate) const fn status(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Fair => 0,
        Verdict::Unfair => EXIT_UNFAIR,
        Verdict::Insufficient => EXIT_INSUFFICIENT,
    }
}

/// `Ok(())` for a fair verdict, else the [`VerdictStatus`] error `main` turns into the status.
pub(crate) fn finish(verdict: Verdict) -> anyhow::Result<()> {
    match verdict {
        Verdict::Fair => Ok(()),
        other => Err(anyhow::Error::new(VerdictStatus(other))),
    }
}

/// The worst of several verdicts (unfair, then insufficient, then fair): a comparison of
/// several generators fails when any of them does.
pub(crate) fn worst(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
    let rank = |v: &Verdict| match v {
        Verdict::Fair => 0,
        Verdict::Insufficient => 1,
        Verdict::Unfair => 2,
    };
    verdicts
        .into_iter()
        .max_by_key(rank)
        .unwrap_or(Verdict::Fair)
}

/// The verdict an error carries, if it is one.
pub(crate) fn of(err: &anyhow::Error) -> Option<&VerdictStatus> {
    err.chain()
        .find_map(|cause| cause.downcast_ref::<VerdictStatus>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_text_states_the_constants() {
        let help = exit_status_help!();
        assert!(help.contains(&format!("{EXIT_UNFAIR} unfair")));
        assert!(help.contains(&format!("{EXIT_INSUFFICIENT} insufficient")));
        assert_eq!(status(Verdict::Fair), 0);
        let err = finish(Verdict::Unfair).unwrap_err();
        assert_eq!(of(&err).map(VerdictStatus::code), Some(EXIT_UNFAIR));
        assert_eq!(crate::common::exit_status(&err), EXIT_UNFAIR);
    }
}
