//! Least-squares fit of `log(cost) = a + b·log(N)`.

/// The result of fitting a power law `cost ≈ e^a · N^b` to measured points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PowerFit {
    /// The exponent `b`: 1 for linear cost, 2 for quadratic.
    pub(crate) slope: f64,
    /// The intercept `a` (natural log of the constant factor).
    pub(crate) intercept: f64,
    /// Smallest N used in the fit.
    pub(crate) n_min: u64,
    /// Largest N used in the fit.
    pub(crate) n_max: u64,
    /// How many points were used.
    pub(crate) points: usize,
}

/// Fits `ln(cost) = a + b·ln(n)` by ordinary least squares over the `largest` points with the
/// largest `n` (all of them if there are fewer).
///
/// Returns `None` when fewer than two distinct sizes remain or a cost is not strictly positive
/// (a logarithm would be undefined).
pub(crate) fn fit_largest(points: &[(u64, f64)], largest: usize) -> Option<PowerFit> {
    let mut pts: Vec<(u64, f64)> = points.to_vec();
    pts.sort_by_key(|&(n, _)| n);
    pts.dedup_by_key(|&mut (n, _)| n);
    let start = pts.len().saturating_sub(largest);
    let pts = &pts[start..];
    if pts.len() < 2 || pts.iter().any(|&(n, c)| n == 0 || c.is_nan() || c <= 0.0) {
        return None;
    }
    let xs: Vec<f64> = pts.iter().map(|&(n, _)| (n as f64).ln()).collect();
    let ys: Vec<f64> = pts.iter().map(|&(_, c)| c.ln()).collect();
    let k = xs.len() as f64;
    let mx = xs.iter().sum::<f64>() / k;
    let my = ys.iter().sum::<f64>() / k;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some(PowerFit {
        slope,
        intercept: my - slope * mx,
        n_min: pts[0].0,
        n_max: pts[pts.len() - 1].0,
        points: pts.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(f: impl Fn(f64) -> f64, exps: std::ops::RangeInclusive<u32>) -> Vec<(u64, f64)> {
        exps.map(|e| {
            let n = 1u64 << e;
            (n, f(n as f64))
        })
        .collect()
    }

    #[test]
    fn exact_power_laws_give_their_exponent() {
        let lin = fit_largest(&series(|n| 7.0 * n, 4..=12), 5).unwrap();
        assert!((lin.slope - 1.0).abs() < 1e-12, "{lin:?}");
        assert!((lin.intercept - 7f64.ln()).abs() < 1e-9);
        assert_eq!((lin.n_min, lin.n_max, lin.points), (1 << 8, 1 << 12, 5));
        let quad = fit_largest(&series(|n| 0.25 * n * n, 4..=14), 4).unwrap();
        assert!((quad.slope - 2.0).abs() < 1e-12, "{quad:?}");
    }

    #[test]
    fn only_the_largest_sizes_are_used() {
        // A fixed overhead dominates the small sizes and would pull the slope down.
        let pts = series(|n| 1e6 + 3.0 * n, 2..=24);
        let all = fit_largest(&pts, usize::MAX).unwrap();
        let top = fit_largest(&pts, 3).unwrap();
        assert!(all.slope < 0.8, "{all:?}");
        assert!((top.slope - 1.0).abs() < 0.05, "{top:?}");
    }

    #[test]
    fn unsorted_input_and_duplicates_are_handled() {
        let pts = vec![
            (4096, 4096.0),
            (1024, 1024.0),
            (2048, 2048.0),
            (1024, 1024.0),
        ];
        let f = fit_largest(&pts, 10).unwrap();
        assert_eq!(f.points, 3);
        assert!((f.slope - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_input_has_no_fit() {
        assert!(fit_largest(&[], 4).is_none());
        assert!(fit_largest(&[(16, 3.0)], 4).is_none());
        assert!(fit_largest(&[(16, 3.0), (32, 0.0)], 4).is_none());
        assert!(fit_largest(&[(16, 3.0), (16, 4.0)], 4).is_none());
    }
}
