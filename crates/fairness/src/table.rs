//! The verdict on a sampled table of categories (a Monte Carlo poker table) against its exact
//! fractions: what `fairdeal poker table --hands` prints and `fairdeal merge` recomputes.

use serde::Serialize;

use crate::{
    CATEGORY_TOLERANCE, Certified, Equivalence, PASS_THRESHOLD, Verdict, statement, table_bound,
    table_samples_to_certify,
};

/// A sampled table's verdict against the exact table, decided once for text and JSON.
///
/// ```
/// use fairdeal_fairness::{Equivalence, TableVerdict, Verdict};
/// let exact = [0.5, 0.5];
/// let judged = TableVerdict::judge(&[500_000, 500_000], &exact, 1.0, "heads", &Equivalence::default());
/// assert_eq!(judged.status, Verdict::Fair);
/// assert!(judged.statement.starts_with("FAIR: no category"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableVerdict {
    /// Unfair (a category's exact test rejects), fair (the certified bound is within the
    /// tolerance) or insufficient.
    pub verdict: &'static str,
    /// What the verdict certifies, as the text prints it.
    pub statement: String,
    /// At `confidence`, no category is more than this fraction more or less frequent than exact.
    pub certified_bound: f64,
    /// The tolerance judged against ([`CATEGORY_TOLERANCE`] unless one was given).
    pub tolerance: f64,
    /// The confidence of the bound.
    pub confidence: f64,
    /// When insufficient: about how many hands a fair dealer needs to certify the tolerance.
    pub hands_needed: Option<u64>,
    /// The verdict as a value.
    #[serde(skip)]
    pub status: Verdict,
}

impl TableVerdict {
    /// Judges `counts` against the `exact` fractions: unfair when the smallest corrected
    /// category p-value (`p_value`, the Bonferroni-corrected exact binomial tests) is at most
    /// [`PASS_THRESHOLD`] (`most_deviant` names the category that deviates most), fair when
    /// the simultaneous Clopper–Pearson bound is within the tolerance, else insufficient.
    pub fn judge(
        counts: &[u64],
        exact: &[f64],
        p_value: f64,
        most_deviant: &str,
        equivalence: &Equivalence,
    ) -> Self {
        let tolerance = equivalence.tolerance.unwrap_or(CATEGORY_TOLERANCE);
        let confidence = equivalence.confidence;
        let bound = table_bound(counts, exact, confidence);
        let status = if p_value <= PASS_THRESHOLD || p_value.is_nan() {
            Verdict::Unfair
        } else if bound <= tolerance {
            Verdict::Fair
        } else {
            Verdict::Insufficient
        };
        let hands_needed = (status == Verdict::Insufficient)
            .then(|| table_samples_to_certify(exact, tolerance, confidence))
            .flatten();
        let certified = Certified {
            verdict: status,
            bound: Some(bound),
            tolerance: Some(tolerance),
            confidence,
            samples_needed: hands_needed,
            outputs_at_least: None,
        };
        let clause = statement::bound_clause(&certified);
        let statement = match status {
            Verdict::Fair => format!(
                "FAIR: no category {clause}; no category's exact test rejects (Bonferroni, \
                 alpha = 1e-6)"
            ),
            Verdict::Unfair => format!(
                "UNFAIR: the table is NOT consistent with the exact one (largest deviation: \
                 {most_deviant}, Bonferroni p <= 1e-6)"
            ),
            Verdict::Insufficient => format!(
                "INSUFFICIENT: no category's exact test rejects, but the hands certify only that \
                 no category is {clause}; about {} hands needed",
                hands_needed.map_or_else(|| "more".to_owned(), |h| h.to_string())
            ),
        };
        Self {
            verdict: status.name(),
            statement,
            certified_bound: bound,
            tolerance,
            confidence,
            hands_needed,
            status,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejecting_test_is_unfair_and_few_hands_are_insufficient() {
        let exact = [0.25, 0.75];
        let equivalence = Equivalence::default();
        let unfair = TableVerdict::judge(&[500, 500], &exact, 1e-9, "pair", &equivalence);
        assert_eq!(unfair.status, Verdict::Unfair);
        assert!(unfair.statement.contains("largest deviation: pair"));
        let few = TableVerdict::judge(&[25, 75], &exact, 0.9, "pair", &equivalence);
        assert_eq!(few.status, Verdict::Insufficient);
        assert!(few.hands_needed.is_some_and(|h| h > 100));
        assert_eq!(few.tolerance, CATEGORY_TOLERANCE);
    }
}
