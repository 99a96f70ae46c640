//! How an algorithm describes itself.

use core::fmt;

/// The asymptotic cost of shuffling N elements, as the algorithm claims it.
///
/// The benchmark report checks this claim: it fits `log(cost) = a + b·log(N)` and compares the
/// slope `b` with [`Complexity::exponent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Complexity {
    /// O(N): a constant amount of work per element.
    Linear,
    /// O(N log N): comparison sorting.
    Linearithmic,
    /// O(N²): quadratic, e.g. removing from the middle of a list N times.
    Quadratic,
}

impl Complexity {
    /// The notation used in docs and reports: `"O(N)"`, `"O(N log N)"` or `"O(N²)"`.
    ///
    /// ```
    /// assert_eq!(fairdeal_core::Complexity::Quadratic.notation(), "O(N²)");
    /// ```
    pub const fn notation(self) -> &'static str {
        match self {
            Self::Linear => "O(N)",
            Self::Linearithmic => "O(N log N)",
            Self::Quadratic => "O(N²)",
        }
    }

    /// The slope of `log(cost)` against `log(N)` this class predicts for large N.
    ///
    /// `N log N` has no single exponent; over a power-of-two sweep ending at `2^k` its local
    /// slope is `1 + 1/ln(N)`, so it is reported as `1` with the report allowing the excess.
    pub const fn exponent(self) -> f64 {
        match self {
            Self::Linear | Self::Linearithmic => 1.0,
            Self::Quadratic => 2.0,
        }
    }
}

impl fmt::Display for Complexity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.notation())
    }
}

/// An algorithm's self-description: the single source of truth for its name, cost and
/// fairness, used by the CLI (`fairdeal algorithms`) and by the benchmark verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AlgorithmInfo {
    /// Stable, lower-case name used on the command line and in reports (`"inplace"`).
    pub name: &'static str,
    /// The cost of a whole shuffle of N elements.
    pub complexity: Complexity,
    /// Whether every permutation is produced with probability exactly 1/N! given a perfect RNG.
    pub fair: bool,
    /// One sentence for people: what the algorithm does.
    pub summary: &'static str,
}
