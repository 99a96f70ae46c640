//! The `--json` documents of `fairdeal poker` (feature `serde`): a category table
//! ([`TableDoc`]) and an equity run ([`EquityRunDoc`]), written by the commands and rendered
//! again from each shard's tallies by `fairdeal merge`, which compares them with the files.
//! A table's verdict (`J`) and a shard's `shard` object (`X`) are the caller's values.
//! Read back: a Monte Carlo run's names ([`McRun`]) and a table's counts ([`table_counts`]).

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

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

/// A document field that is missing or malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field \"{0}\" is missing or malformed")]
pub struct FieldError(pub &'static str);

/// What a Monte Carlo document names its run with: a table's `monte_carlo` object
/// ([`McRun::table`]) or an equity run's top-level fields ([`McRun::equity`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McRun {
    /// The shuffling algorithm that dealt.
    pub algorithm: String,
    /// The backend.
    pub backend: String,
    /// The run's seed.
    pub seed: u64,
    /// Whether every hand came from a fresh sorted deck (a table's `fresh_deck`; `false` for
    /// equity).
    pub fresh_deck: bool,
}

impl McRun {
    /// The run of a Monte Carlo [`TableDoc`] (its `monte_carlo` object).
    ///
    /// # Errors
    ///
    /// `FieldError("monte_carlo")` when it or one of its fields is missing or malformed.
    pub fn table(doc: &Map<String, Value>) -> Result<McRun, FieldError> {
        let bad = || FieldError("monte_carlo");
        let mc = doc.get("monte_carlo").ok_or_else(bad)?;
        let text = |key: &str| mc.get(key).and_then(Value::as_str).ok_or_else(bad);
        Ok(McRun {
            algorithm: text("algorithm")?.to_owned(),
            backend: text("backend")?.to_owned(),
            fresh_deck: mc
                .get("fresh_deck")
                .and_then(Value::as_bool)
                .ok_or_else(bad)?,
            seed: mc.get("seed").and_then(Value::as_u64).ok_or_else(bad)?,
        })
    }

    /// The run of a Monte Carlo [`EquityRunDoc`] (its `seed`, `algorithm` and `backend`).
    ///
    /// # Errors
    ///
    /// [`FieldError`] names the first field that is missing or malformed.
    pub fn equity(doc: &Map<String, Value>) -> Result<McRun, FieldError> {
        let text = |key: &'static str| doc.get(key).and_then(Value::as_str).ok_or(FieldError(key));
        Ok(McRun {
            seed: doc
                .get("seed")
                .and_then(Value::as_u64)
                .ok_or(FieldError("seed"))?,
            algorithm: text("algorithm")?.to_owned(),
            backend: text("backend")?.to_owned(),
            fresh_deck: false,
        })
    }

    /// The names a document gives this run.
    pub fn names(&self) -> RunNames<'_> {
        RunNames {
            algorithm: &self.algorithm,
            backend: &self.backend,
            seed: self.seed,
        }
    }
}

/// The counts of a [`TableDoc`] that should hold `hands` hands: its `counts` read by
/// [`counts_from_keyed`], adding up to `hands` and to its `total`.
///
/// # Errors
///
/// [`CountsError`]: what is wrong with the counts, or that they do not add up.
pub fn table_counts(doc: &Map<String, Value>, hands: u64) -> Result<CategoryCounts, CountsError> {
    let counts = doc
        .get("counts")
        .and_then(Value::as_object)
        .ok_or(CountsError::NotAnObject)?;
    let counts = counts_from_keyed(counts.iter().map(|(k, v)| (k.as_str(), v.as_u64())))?;
    let total = doc.get("total");
    if counts.total() != hands {
        return Err(CountsError::Hands {
            counted: counts.total(),
            total: total.map_or_else(String::new, Value::to_string),
        });
    }
    match total.and_then(Value::as_u64) {
        None => Err(CountsError::Total),
        Some(t) if t != hands => Err(CountsError::Hands {
            counted: counts.total(),
            total: t.to_string(),
        }),
        Some(_) => Ok(counts),
    }
}

/// Why a table document's `counts` object is not a table's counts.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CountsError {
    /// A key that names no category.
    #[error("\"counts\" has an unknown field \"{0}\"")]
    UnknownCategory(String),
    /// A category whose count is absent or not an integer in `0..2^64`.
    #[error("\"counts\" has no count of {0}")]
    Missing(&'static str),
    /// The counts add up past 2^64 − 1.
    #[error("its \"counts\" add up past 2^64 − 1")]
    Overflow,
    /// `counts` is missing or not an object.
    #[error("\"counts\" is missing or not an object")]
    NotAnObject,
    /// `total` is missing or not an integer.
    #[error("\"total\" is missing or malformed")]
    Total,
    /// The counts add up to another number of hands than expected, or than `total` says.
    #[error("its \"counts\" add up to {counted} hands (\"total\" {total})")]
    Hands {
        /// What the counts add up to.
        counted: u64,
        /// The document's `total` as written (empty when absent).
        total: String,
    },
}

impl CountsError {
    /// The field a document lacks or holds malformed (`counts` or `total`); `None` when the
    /// fields are there but their counts are wrong.
    pub fn malformed_field(&self) -> Option<&'static str> {
        match self {
            Self::Missing(_) | Self::NotAnObject => Some("counts"),
            Self::Total => Some("total"),
            _ => None,
        }
    }
}

/// The counts of a table document's `counts` object, given as its `(key, count)` entries
/// (`None`: a value that is not an integer in `0..2^64`), the inverse of [`ByCategory`]: every
/// category exactly once by its key, nothing else, adding up to at most 2^64 − 1.
///
/// ```
/// use fairdeal_poker::{Category, document::{CountsError, counts_from_keyed}};
/// let keyed: Vec<(&str, Option<u64>)> = Category::ALL.iter().map(|c| (c.key(), Some(2))).collect();
/// assert_eq!(counts_from_keyed(keyed.clone()).map(|c| c.total()), Ok(18));
/// let extra = keyed.iter().copied().chain([("jokers", Some(1))]);
/// assert_eq!(counts_from_keyed(extra), Err(CountsError::UnknownCategory("jokers".into())));
/// ```
///
/// # Errors
///
/// [`CountsError`]: an unknown key (checked first), a missing count, or an overflowing sum.
pub fn counts_from_keyed<'a>(
    entries: impl IntoIterator<Item = (&'a str, Option<u64>)>,
) -> Result<CategoryCounts, CountsError> {
    let entries: Vec<(&str, Option<u64>)> = entries.into_iter().collect();
    if let Some((unknown, _)) = entries
        .iter()
        .find(|(k, _)| !Category::ALL.iter().any(|c| c.key() == *k))
    {
        return Err(CountsError::UnknownCategory((*unknown).to_owned()));
    }
    let mut counts = CategoryCounts::default();
    let mut total = 0u64;
    for category in Category::ALL {
        let count = entries
            .iter()
            .find(|(k, _)| *k == category.key())
            .and_then(|(_, v)| *v)
            .ok_or(CountsError::Missing(category.key()))?;
        counts.counts[category.index()] = count;
        total = total.checked_add(count).ok_or(CountsError::Overflow)?;
    }
    Ok(counts)
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

    #[test]
    fn keyed_counts_read_back_what_by_category_writes_and_refuse_the_rest() {
        let exact = crate::exact_counts(5).unwrap();
        let Value::Object(map) = serde_json::to_value(ByCategory(exact.counts)).unwrap() else {
            unreachable!("an object")
        };
        let keyed = || map.iter().map(|(k, v)| (k.as_str(), v.as_u64()));
        assert_eq!(counts_from_keyed(keyed()), Ok(exact));
        let best = Category::ALL[8].key();
        let without_best = keyed().filter(|(k, _)| *k != best);
        assert_eq!(
            counts_from_keyed(without_best),
            Err(CountsError::Missing(best))
        );
        let not_integer = keyed().map(|(k, v)| (k, if k == best { None } else { v }));
        assert_eq!(
            counts_from_keyed(not_integer),
            Err(CountsError::Missing(best))
        );
        let huge = keyed().map(|(k, v)| (k, if k == best { Some(u64::MAX) } else { v }));
        assert_eq!(counts_from_keyed(huge), Err(CountsError::Overflow));
        let unknown = keyed().chain([("five_of_a_kind", Some(0))]);
        assert_eq!(
            counts_from_keyed(unknown).unwrap_err().to_string(),
            "\"counts\" has an unknown field \"five_of_a_kind\""
        );
    }

    #[test]
    fn a_table_document_reads_back_its_run_and_counts() {
        let exact = crate::exact_counts(5).unwrap();
        let report = crate::McReport::from_counts(exact).unwrap();
        let names = RunNames {
            algorithm: "partial",
            backend: "chacha12",
            seed: 9,
        };
        let doc: TableDoc<(), ()> = TableDoc::new(
            7,
            &exact,
            &report.exact,
            Some((&report, names, true)),
            None,
            None,
        );
        let Value::Object(mut map) = serde_json::to_value(&doc).unwrap() else {
            unreachable!("an object")
        };
        let run = McRun::table(&map).unwrap();
        assert_eq!(run.names(), names);
        assert!(run.fresh_deck);
        assert_eq!(table_counts(&map, 2_598_960), Ok(exact));
        assert_eq!(
            table_counts(&map, 5).unwrap_err().to_string(),
            "its \"counts\" add up to 2598960 hands (\"total\" 2598960)"
        );
        map.insert("total".into(), 1.into());
        assert!(matches!(
            table_counts(&map, 2_598_960),
            Err(CountsError::Hands { .. })
        ));
        map.remove("total");
        assert_eq!(table_counts(&map, 2_598_960), Err(CountsError::Total));
        assert_eq!(CountsError::Total.malformed_field(), Some("total"));
        assert_eq!(CountsError::Overflow.malformed_field(), None);
        map["monte_carlo"]["seed"] = "nine".into();
        assert_eq!(McRun::table(&map), Err(FieldError("monte_carlo")));
        let equity = serde_json::json!({"seed": 3, "algorithm": "partial"});
        assert_eq!(
            McRun::equity(equity.as_object().unwrap()),
            Err(FieldError("backend"))
        );
    }
}
