//! How many shuffles a test needs to see a bias of a given size.

use statrs::distribution::{ChiSquared, ContinuousCDF, Normal};

/// About how many shuffles the position test needs to reject, with probability `power`, a
/// shuffle in which one element lands at one position `bias` times more often than fair
/// (`bias = 0.05`: 5% more), the excess taken evenly from the rest of its row and column —
/// when the test rejects at upper-tail p-values `<= alpha`.
///
/// Such a bias adds a noncentrality of `trials · bias² / (n - 1)` to the position statistic
/// (the Pearson sum's `Σ Δ²/p` is `bias²/n · (n/(n - 1))²` per shuffle, scaled by
/// `(n - 1)/n`). The noncentral chi-square is approximated by a normal with mean `df + λ` and
/// variance `2(df + 2λ)`, which is close for the large `df` of a deck; treat the answer as an
/// estimate to a few percent. `None` for arguments outside `n >= 2`, `bias > 0`,
/// `0 < alpha < 1`, `0 < power < 1`.
///
/// ```
/// use fairdeal_fairness::position_trials_needed;
/// let five_percent = position_trials_needed(52, 0.05, 1e-6, 0.9).unwrap();
/// let one_percent = position_trials_needed(52, 0.01, 1e-6, 0.9).unwrap();
/// assert!((one_percent / five_percent - 25.0).abs() < 1e-9); // 5 times smaller: 25 times more
/// assert!(five_percent > 1e6 && five_percent < 1e8);
/// ```
pub fn position_trials_needed(n: usize, bias: f64, alpha: f64, power: f64) -> Option<f64> {
    let valid = n >= 2
        && bias > 0.0
        && bias.is_finite()
        && alpha > 0.0
        && alpha < 1.0
        && power > 0.0
        && power < 1.0;
    if !valid {
        return None;
    }
    let df = ((n - 1) * (n - 1)) as f64;
    let chi = ChiSquared::new(df).ok()?;
    // The critical value, sf(c) = alpha, by bisection on the precise upper tail, from a bracket
    // doubled until it holds (sf falls to 0, and alpha > 0, so it does).
    let (mut low, mut high) = (0.0, df);
    while chi.sf(high) > alpha {
        low = high;
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if chi.sf(mid) > alpha {
            low = mid;
        } else {
            high = mid;
        }
    }
    let critical = high;
    let z = Normal::new(0.0, 1.0).ok()?.inverse_cdf(power);
    let detects = |lambda: f64| df + lambda - z * (2.0 * (df + 2.0 * lambda)).sqrt() >= critical;
    let (mut low, mut high) = (0.0, 1.0);
    // For a finite z (0 < power < 1) the left side grows like lambda, so this ends; the check
    // only guards against a NaN or infinite quantile.
    while !detects(high) {
        high *= 2.0;
        if !high.is_finite() {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if detects(mid) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high * (n as f64 - 1.0) / (bias * bias))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_arguments_give_none() {
        assert!(position_trials_needed(1, 0.1, 1e-6, 0.9).is_none());
        assert!(position_trials_needed(52, 0.0, 1e-6, 0.9).is_none());
        assert!(position_trials_needed(52, f64::NAN, 1e-6, 0.9).is_none());
        assert!(position_trials_needed(52, 0.1, 0.0, 0.9).is_none());
        assert!(position_trials_needed(52, 0.1, 1e-6, 1.0).is_none());
    }
}
