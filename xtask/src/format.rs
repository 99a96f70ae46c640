//! Number formatting shared by the report, the targets table and the duels. It lives apart from
//! all three so that none of them imports another just for a helper (`report.rs` reads
//! `targets.rs`'s rows; `targets.rs` must not reach back into `report.rs`).

/// `1234.5` → `"1.23 µs"`.
pub(crate) fn human_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// `x` rounded to `digits` decimal places, for JSON output that stays readable.
pub(crate) fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_ns_picks_the_unit() {
        assert_eq!(human_ns(61.54), "61.5 ns");
        assert_eq!(human_ns(1234.5), "1.23 µs");
        assert_eq!(human_ns(2.5e6), "2.50 ms");
        assert_eq!(human_ns(3.2e9), "3.20 s");
    }

    #[test]
    fn round_keeps_the_digits_asked_for() {
        assert_eq!(round(1.23456, 3), 1.235);
        assert_eq!(round(2.0 / 3.0, 4), 0.6667);
        assert_eq!(round(1234.5678, 0), 1235.0);
    }
}
