//! The measurements every parser produces and the report consumes.

use std::fmt;

/// What a number measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Metric {
    /// Criterion's median wall-clock time of one iteration, in nanoseconds.
    WallNs,
    /// Callgrind's instruction count (`Ir`) for one call: deterministic.
    Instructions,
    /// iai-callgrind's estimated cycles from callgrind's cache simulation
    /// (`L1 hits + 5·LL hits + 35·RAM hits`, over instruction fetches and data accesses):
    /// deterministic, but a model of a cache, not of this machine.
    EstimatedCycles,
}

impl Metric {
    /// The name used in `summary.json` and the tables.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::WallNs => "wall_ns",
            Self::Instructions => "instructions",
            Self::EstimatedCycles => "estimated_cycles",
        }
    }

    /// Whether a failed slope verdict on this metric fails the run. Only instruction counts
    /// do: they are exactly repeatable, while wall-clock slopes bend at cache boundaries and
    /// estimated cycles inherit that from the cache model.
    pub(crate) const fn gating(self) -> bool {
        matches!(self, Self::Instructions)
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One measured point: `subject` (one of our algorithms or a peer) shuffling `n` elements in
/// `case` with the `backend` RNG cost `value` in `metric`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sample {
    /// The benchmark case: `shuffle_u32`, `deck52`, `deal7_of_52` or `huge_u32`.
    pub(crate) case: String,
    /// Algorithm name (`inplace`) or peer name (`rand-shuffle`).
    pub(crate) subject: String,
    /// Backend name (`pcg64`).
    pub(crate) backend: String,
    /// Number of elements.
    pub(crate) n: u64,
    /// What `value` measures.
    pub(crate) metric: Metric,
    /// The cost of one call.
    pub(crate) value: f64,
}

/// A criterion benchmark outside our own matrix (poker, blackjack …), reported as is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GenericWall {
    /// Criterion's full id (`group/function/value`).
    pub(crate) id: String,
    /// Median time of one iteration in nanoseconds.
    pub(crate) median_ns: f64,
    /// Declared throughput per iteration, if any: (amount, unit).
    pub(crate) throughput: Option<(u64, String)>,
}

/// Case name: shuffling a `Vec<u32>` of N elements (the sweep the verdicts use).
pub(crate) const CASE_SHUFFLE: &str = "shuffle_u32";
/// Case name: shuffling a 52-card deck (`[u8; 52]`).
pub(crate) const CASE_DECK: &str = "deck52";
/// Case name: dealing 7 cards from a reused 52-card deck.
pub(crate) const CASE_DEAL: &str = "deal7_of_52";
/// Case name: shuffling a `Vec<u32>` of 10^8 elements (400 MB, far beyond the caches), measured
/// at that single size in full mode only; no slope is fitted on it.
pub(crate) const CASE_HUGE: &str = "huge_u32";
/// The cases of our own matrix; any other criterion group is reported generically.
pub(crate) const CASES: [&str; 4] = [CASE_SHUFFLE, CASE_DECK, CASE_DEAL, CASE_HUGE];
