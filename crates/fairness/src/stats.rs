//! Shared argument checks and the chi-square tail.

use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::FairnessError;

/// Rejects zero trials and trial counts whose `trials * n` placements would overflow a `u64`.
pub(crate) fn check_trials(trials: u64, n: usize) -> Result<(), FairnessError> {
    if trials == 0 {
        return Err(FairnessError::ZeroTrials);
    }
    match trials.checked_mul(n as u64) {
        Some(_) => Ok(()),
        None => Err(FairnessError::TooManyTrials { trials, n }),
    }
}

/// `P(X >= chi2)` for `X ~ χ²(df)`: the upper tail, computed directly (not `1 - cdf`) so tiny
/// p-values keep their precision.
pub(crate) fn chi_square_p_value(chi2: f64, df: u64) -> f64 {
    // The tests only produce df >= 1, for which `new` cannot fail; NaN is never "fair".
    ChiSquared::new(df as f64).map_or(f64::NAN, |dist| dist.sf(chi2))
}

/// `P(X <= chi2)` for `X ~ χ²(df)`: the lower tail, for counts that are too even to be chance.
pub(crate) fn chi_square_lower_p_value(chi2: f64, df: u64) -> f64 {
    ChiSquared::new(df as f64).map_or(f64::NAN, |dist| dist.cdf(chi2))
}
