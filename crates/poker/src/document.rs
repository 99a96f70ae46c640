//! The `--json` documents of `fairdeal poker` (feature `serde`): a category table
//! ([`TableDoc`]) and an equity run ([`EquityRunDoc`]), written by the commands and rendered
//! again from each shard's tallies by `fairdeal merge`, which compares them with the files.
//! A table's verdict (`J`) and a shard's `shard` object (`X`) are the caller's values.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::{Category, CategoryCounts, EquityDoc, EquityReport, McReport, Spot};

/// Nine values keyed by category name, best category first (`straight_flush` … `high_card`),
/// as the text table prints them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ByCategory<T>(pub [T; 9]);

impl<T: Serialize> Serialize for ByCategory<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(9))?;
        for &category in Category::ALL.iter().rev() {
            map.serialize_entry(category.key(), &self.0[category.index()])?;
        }
        map.end()
    }
}

/// What a sampled run was made with, as its document names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunNames<'a> {
    /// The shuffling algorithm that dealt.
    pub algorithm: &'a str,
    /// The backend.
    pub backend: &'a str,
    /// The run's seed.
    pub seed: u64,
}

/// The `poker table --json` document: the counts and exact fractions, and for a Monte Carlo
/// table its statistics, its verdict `J` (flattened) and a shard's `shard` object `X`.
#[derive(Debug, Serialize)]
pub struct TableDoc<J, X> {
    /// Cards per hand.
    pub cards: usize,
    /// Hands counted.
    pub total: u64,
    /// Hands per category.
    pub counts: ByCategory<u64>,
    /// The exact fractions.
    pub exact: ByCategory<f64>,
    /// A Monte Carlo table's statistics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monte_carlo: Option<McDoc>,
    /// The smallest corrected category p-value of a Monte Carlo table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    /// A Monte Carlo table's verdict (an exact table has none: it is the reference).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub judgement: Option<J>,
    /// A shard's `shard` object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<X>,
}

/// A Monte Carlo table's statistics in its [`TableDoc`].
#[derive(Debug, Serialize)]
pub struct McDoc {
    /// The shuffling algorithm that dealt.
    pub algorithm: String,
    /// The backend.
    pub backend: String,
    /// The run's seed.
    pub seed: u64,
    /// Whether every hand came from a fresh sorted deck.
    pub fresh_deck: bool,
    /// Each category's z-score.
    pub z_scores: ByCategory<f64>,
    /// Each category's exact two-sided binomial p-value.
    pub category_p_values: ByCategory<f64>,
    /// The category that deviates most.
    pub most_deviant: &'static str,
}

impl<J, X> TableDoc<J, X> {
    /// The document of `counts` of `cards`-card hands against `exact`; `mc` is a Monte Carlo
    /// table's report, run and whether it dealt from a fresh deck.
    pub fn new(
        cards: usize,
        counts: &CategoryCounts,
        exact: &[f64; 9],
        mc: Option<(&McReport, RunNames<'_>, bool)>,
        judgement: Option<J>,
        shard: Option<X>,
    ) -> Self {
        TableDoc {
            cards,
            total: counts.total(),
            counts: ByCategory(counts.counts),
            exact: ByCategory(*exact),
            monte_carlo: mc.map(|(r, names, fresh)| McDoc {
                algorithm: names.algorithm.to_owned(),
                backend: names.backend.to_owned(),
                seed: names.seed,
                fresh_deck: fresh,
                z_scores: ByCategory(r.z_scores),
                category_p_values: ByCategory(r.category_p_values),
                most_deviant: r.most_deviant.key(),
            }),
            p_value: mc.map(|(r, ..)| r.p_value),
            judgement,
            shard,
        }
    }
}

/// The `poker equity --json` document: the report (the spot, each seat's fractions and
/// integer tallies) and, for a Monte Carlo run, its seed, algorithm, backend and a shard's
/// `shard` object `X`.
#[derive(Debug, Serialize)]
pub struct EquityRunDoc<X> {
    /// The report.
    #[serde(flatten)]
    pub report: EquityDoc,
    /// A Monte Carlo run's seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// A Monte Carlo run's algorithm.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<String>,
    /// A Monte Carlo run's backend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// A shard's `shard` object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<X>,
}

impl<X> EquityRunDoc<X> {
    /// The document of `report` on `spot`; `mc` names a Monte Carlo run.
    pub fn new(
        report: &EquityReport,
        spot: &Spot,
        mc: Option<RunNames<'_>>,
        shard: Option<X>,
    ) -> Self {
        EquityRunDoc {
            report: EquityDoc::new(report, spot),
            seed: mc.map(|names| names.seed),
            algorithm: mc.map(|names| names.algorithm.to_owned()),
            backend: mc.map(|names| names.backend.to_owned()),
            shard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories_are_keyed_best_first() {
        let mut counts = [0u64; 9];
        counts[Category::ALL[8].index()] = 7;
        let text = serde_json::to_string(&ByCategory(counts)).unwrap();
        let best = Category::ALL[8].key();
        assert!(text.starts_with(&format!("{{\"{best}\":7,")), "{text}");
        let exact = crate::exact_counts(5).unwrap();
        let doc: TableDoc<(), ()> = TableDoc::new(5, &exact, &exact.fractions(), None, None, None);
        let value = serde_json::to_value(&doc).unwrap();
        assert_eq!(value["total"], 2_598_960);
        assert!(value.get("monte_carlo").is_none() && value.get("shard").is_none());
    }
}
