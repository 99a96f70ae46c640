//! The `--json` documents of the blackjack commands (feature `serde`), assembled here from the
//! engine's values so that every caller (`fairdeal blackjack …`, `fairdeal merge`, which
//! renders each shard's tallies again and compares) writes the same fields: a simulation's
//! [`SimReport`] (and [`SimRun`], its parameters read back from a document; [`Play`], how the
//! simulation plays), the exact dealer table ([`dealer_document`]), the basic-strategy chart
//! ([`strategy_document`]) and the exact analysis ([`exact_document`]).

use std::ops::Range;

use serde::Deserialize as _;
use serde_json::{Map, Value, json};

use fairdeal_core::{Rng, Shuffler};

use crate::{
    Betting, CompositionStrategy, DealerTable, ExactAnalysis, ExactError, ExactStrategy,
    OUTCOME_NAMES, Penetration, Rules, SimConfig, SimDocError, SimError, SimResult, Strategy,
    simulate_chunks, simulate_composition_chunks,
};

/// Upcards in table order (2 … 10, then the ace), with their labels.
pub const UPCARDS: [(u8, &str); 10] = [
    (2, "2"),
    (3, "3"),
    (4, "4"),
    (5, "5"),
    (6, "6"),
    (7, "7"),
    (8, "8"),
    (9, "9"),
    (10, "T"),
    (1, "A"),
];

/// The label of a card value: `A` for 1, `T` for 10, else its digit.
///
/// ```
/// use fairdeal_blackjack::report::card_label;
/// assert_eq!((card_label(1), card_label(7), card_label(10)), ('A', '7', 'T'));
/// ```
pub fn card_label(value: u8) -> char {
    match value {
        1 => 'A',
        10 => 'T',
        v => char::from(b'0' + v % 10),
    }
}

/// A two-card hand as the exact table writes it: the second card first (`"T,A"`).
pub fn hand_label(first: u8, second: u8) -> String {
    format!("{},{}", card_label(second), card_label(first))
}

/// The game rules without the shoe and table (`S17 DAS double any split to 4 surrender none
/// pays 3:2 hole card peek`), for the headers of the chart and the exact analysis, where the
/// deck count, penetration and seats do not apply.
pub fn game_rules_text(rules: &Rules) -> String {
    format!(
        "{} {} double {} split to {}{}{} surrender {} pays {} hole card {}",
        if rules.hits_soft_17 { "H17" } else { "S17" },
        if rules.double_after_split {
            "DAS"
        } else {
            "no DAS"
        },
        rules.double,
        rules.max_split_hands,
        if rules.resplit_aces { " RSA" } else { "" },
        if rules.hit_split_aces { " HSA" } else { "" },
        rules.surrender,
        rules.payout,
        rules.hole_card,
    )
}

/// What `blackjack simulate` reports, whether from one run or merged from shards: the run's
/// description, which [`SimRun`] reads back from a shard's document, with its time and tallies.
#[derive(Debug, Clone)]
pub struct SimReport {
    /// What was dealt: rules, betting, play, algorithm, backend, seed.
    pub run: SimRun,
    /// The wall-clock time of the run (the shards' sum once merged).
    pub seconds: f64,
    /// The tallies.
    pub result: SimResult,
}

impl SimReport {
    /// The chart's exact infinite-deck house edge in percent (positive: the house wins), the
    /// value [`SimRun::exact_infinite`] holds.
    pub fn infinite_deck_edge(strategy: &Strategy) -> f64 {
        -100.0 * strategy.infinite_deck_return()
    }

    /// The `--json` document (without the `shard` field a shard adds).
    pub fn json(&self) -> Map<String, Value> {
        let run = &self.run;
        let mut out = self.result.json_fields();
        out.insert("rules".into(), json!(run.rules));
        out.insert("strategy".into(), json!(run.strategy.name()));
        out.insert(
            "strategy_infinite_deck_edge_percent".into(),
            json!(run.exact_infinite),
        );
        out.insert("betting".into(), json!(run.betting));
        out.insert("algorithm".into(), json!(run.algorithm));
        out.insert("backend".into(), json!(run.backend));
        out.insert("seed".into(), json!(run.seed));
        out.insert("seconds".into(), json!(self.seconds));
        out
    }
}

/// How `blackjack simulate` plays its rounds: the infinite-deck chart, or the exact analyser's
/// composition-dependent decisions (computed for one seat and a round off the top of a full
/// shoe, so only for such a game).
#[derive(Debug)]
pub enum Play {
    /// The basic-strategy chart.
    Chart(Box<Strategy>),
    /// The best decision for the round's cards.
    Composition(Box<CompositionStrategy>),
}

/// Why a game cannot be played as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlayError {
    /// Composition-dependent play asked for a game that is not one seat dealt from a shoe
    /// shuffled every round.
    #[error(
        "composition-dependent play is computed for one seat and a round off the top of a \
         full shoe"
    )]
    NotOffTheTop,
    /// The rules or the exact analysis refused.
    #[error(transparent)]
    Exact(#[from] ExactError),
}

impl Play {
    /// The play `strategy` asks for under `rules` (its chart for [`ExactStrategy::Basic`]).
    ///
    /// ```
    /// use fairdeal_blackjack::report::{Play, PlayError};
    /// use fairdeal_blackjack::{ExactStrategy, Rules};
    /// assert!(matches!(Play::new(&Rules::default(), ExactStrategy::Basic)?, Play::Chart(_)));
    /// let err = Play::new(&Rules::default(), ExactStrategy::Composition).unwrap_err();
    /// assert_eq!(err, PlayError::NotOffTheTop);
    /// # Ok::<(), PlayError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`PlayError::NotOffTheTop`] for composition-dependent play in a game with a cut card or
    /// more than one seat; [`PlayError::Exact`] when the rules or the analysis refuse.
    pub fn new(rules: &Rules, strategy: ExactStrategy) -> Result<Play, PlayError> {
        match strategy {
            ExactStrategy::Basic => Ok(Play::Chart(Box::new(
                Strategy::basic(rules).map_err(ExactError::from)?,
            ))),
            ExactStrategy::Composition => {
                if rules.penetration != Penetration::Continuous || rules.seats != 1 {
                    return Err(PlayError::NotOffTheTop);
                }
                Ok(Play::Composition(Box::new(CompositionStrategy::new(
                    rules,
                )?)))
            }
        }
    }

    /// The basic-strategy chart of the rules (composition-dependent play carries one too):
    /// the chart whose exact infinite-deck edge a report gives for comparison.
    pub fn chart(&self) -> &Strategy {
        match self {
            Play::Chart(chart) => chart,
            Play::Composition(cd) => cd.chart(),
        }
    }

    /// Simulates `config`'s run with this play, all of it or the chunks of `shard`.
    ///
    /// # Errors
    ///
    /// [`SimError`]: a shard the run has no chunks for, or what the simulation refuses.
    pub fn simulate<S, R, F>(
        &self,
        config: &SimConfig<'_>,
        shuffler: &S,
        make_rng: F,
        shard: Option<fairdeal_core::Shard>,
    ) -> Result<SimResult, SimError>
    where
        S: Shuffler + Clone + Sync,
        R: Rng,
        F: Fn(u64) -> R + Sync,
    {
        let chunks = match shard {
            Some(shard) => config.shard_chunks(shard)?,
            None => 0..config.chunks(),
        };
        match self {
            Play::Chart(chart) => simulate_chunks(chart, config, shuffler, make_rng, chunks),
            Play::Composition(cd) => {
                simulate_composition_chunks(cd, config, shuffler, make_rng, chunks)
            }
        }
    }
}

/// What a `simulate --json` document says about its run besides its tallies and time: read
/// back from each shard's document by `fairdeal merge`, which renders the shard again with it
/// ([`SimRun::report`]) and checks its tallies against its chunks ([`SimRun::result`]).
#[derive(Debug, Clone, PartialEq)]
pub struct SimRun {
    /// The rules dealt under.
    pub rules: Rules,
    /// Flat or counted betting.
    pub betting: Betting,
    /// The play.
    pub strategy: ExactStrategy,
    /// The shuffling algorithm's name.
    pub algorithm: String,
    /// The backend's name.
    pub backend: String,
    /// The master seed.
    pub seed: u64,
    /// The chart's exact infinite-deck edge, recomputed from the rules (the document's value is
    /// checked against it, not trusted).
    pub exact_infinite: f64,
}

/// A document field that is missing or malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field \"{0}\" is missing or malformed")]
pub struct FieldError(pub &'static str);

impl SimRun {
    /// The run a [`SimReport::json`] document describes.
    ///
    /// ```
    /// use fairdeal_blackjack::report::{FieldError, SimRun};
    /// use fairdeal_blackjack::{SimConfig, Strategy, simulate};
    /// use rand::{SeedableRng, rngs::StdRng};
    /// let strategy = Strategy::basic(&Default::default())?;
    /// let config = SimConfig { rounds: 1_000, seed: 3, ..SimConfig::default() };
    /// let result = simulate(&strategy, &config, &fairdeal_inplace::Inplace::new(), StdRng::seed_from_u64)?;
    /// let mut doc = serde_json::json!({
    ///     "rules": strategy.rules(), "betting": config.betting, "strategy": "basic",
    ///     "algorithm": "inplace", "backend": "std", "seed": 3,
    /// });
    /// let run = SimRun::from_document(doc.as_object().unwrap())?;
    /// let report = run.report(result.clone(), 0.5);
    /// assert_eq!(run.result(&report.json(), 1_000, result.chunks.clone())?, result);
    /// doc["seed"] = "three".into();
    /// assert_eq!(SimRun::from_document(doc.as_object().unwrap()), Err(FieldError("seed")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`FieldError`] names the first field (`rules`, `betting`, `strategy`, `algorithm`,
    /// `backend`, `seed`) that is missing or not what the command writes.
    pub fn from_document(doc: &Map<String, Value>) -> Result<SimRun, FieldError> {
        let get = |key: &'static str| doc.get(key).ok_or(FieldError(key));
        let text = |key: &'static str| get(key)?.as_str().ok_or(FieldError(key));
        let rules = Rules::deserialize(get("rules")?).map_err(|_| FieldError("rules"))?;
        let strategy = Strategy::basic(&rules).map_err(|_| FieldError("rules"))?;
        Ok(SimRun {
            rules,
            betting: Betting::deserialize(get("betting")?).map_err(|_| FieldError("betting"))?,
            strategy: text("strategy")?
                .parse::<ExactStrategy>()
                .map_err(|_| FieldError("strategy"))?,
            algorithm: text("algorithm")?.to_owned(),
            backend: text("backend")?.to_owned(),
            seed: get("seed")?.as_u64().ok_or(FieldError("seed"))?,
            exact_infinite: SimReport::infinite_deck_edge(&strategy),
        })
    }

    /// The tallies of `doc`, checked as those of chunks `chunks` of this run over `total`
    /// rounds ([`SimResult::from_json_fields`]).
    ///
    /// # Errors
    ///
    /// [`SimDocError`]: a wrong field or impossible tallies.
    pub fn result(
        &self,
        doc: &Map<String, Value>,
        total: u64,
        chunks: Range<u64>,
    ) -> Result<SimResult, SimDocError> {
        let config = SimConfig {
            rounds: total,
            seed: self.seed,
            betting: self.betting,
            progress: None,
        };
        SimResult::from_json_fields(doc, &config, &self.rules, chunks)
    }

    /// The report of `result` under this run, taking `seconds`.
    pub fn report(&self, result: SimResult, seconds: f64) -> SimReport {
        SimReport {
            run: self.clone(),
            seconds,
            result,
        }
    }
}

/// The `blackjack dealer --json` document: each upcard's outcome probabilities, for a shoe of
/// `decks` decks (0: infinite) and the dealer rule.
pub fn dealer_document(table: &DealerTable, decks: u8, hits_soft_17: bool) -> Value {
    let mut upcards = Map::new();
    for (value, label) in UPCARDS {
        let mut row = Map::new();
        if let Some(outcomes) = table.get(value) {
            for (name, p) in OUTCOME_NAMES.iter().zip(outcomes.as_array()) {
                row.insert((*name).to_owned(), json!(p));
            }
        }
        upcards.insert(label.to_owned(), Value::Object(row));
    }
    json!({
        "decks": decks,
        "dealer": if hits_soft_17 { "H17" } else { "S17" },
        "upcards": upcards,
    })
}

/// The `blackjack strategy --json` document: the chart's rows, the rules (an infinite deck:
/// no penetration, no seats) and the exact infinite-deck house edge.
pub fn strategy_document(rules: &Rules, strategy: &Strategy) -> Value {
    let rows: Vec<Value> = strategy
        .chart()
        .lines()
        .skip(1)
        .map(|line| {
            let mut cells = line.split_whitespace();
            let hand = cells.next().unwrap_or_default().to_owned();
            let actions: Vec<&str> = cells.collect();
            json!({"hand": hand, "actions": actions})
        })
        .collect();
    let mut rules_value = json!(rules);
    if let Some(r) = rules_value.as_object_mut() {
        r.insert("decks".into(), json!("infinite"));
        r.remove("penetration");
        r.remove("seats");
    }
    json!({
        "rules": rules_value,
        "upcards": UPCARDS.iter().map(|(_, l)| *l).collect::<Vec<_>>(),
        "chart": rows,
        "infinite_deck_edge_percent": SimReport::infinite_deck_edge(strategy),
    })
}

/// The frame the exact table's values are stated in, by the hole-card rule.
pub fn values_frame(rules: &Rules) -> &'static str {
    match rules.hole_card {
        crate::HoleCard::Peek => "given no dealer blackjack",
        crate::HoleCard::NoHoleCard => "dealer blackjack included",
    }
}

/// The `blackjack exact --json` document of `exact` (computed under `rules` with `strategy` in
/// `seconds`); `hands` adds the value of every initial hand against every upcard.
pub fn exact_document(
    exact: &ExactAnalysis,
    rules: &Rules,
    strategy: ExactStrategy,
    seconds: f64,
    hands: bool,
) -> Value {
    let mut rules_value = json!(rules);
    if let Some(r) = rules_value.as_object_mut() {
        r.remove("penetration");
        r.remove("seats");
    }
    let mut out = Map::new();
    out.insert("expected_return".into(), json!(exact.expected_return()));
    out.insert(
        "house_edge_percent".into(),
        json!(exact.house_edge_percent()),
    );
    out.insert("strategy".into(), json!(strategy.name()));
    out.insert("rules".into(), rules_value);
    out.insert("seconds".into(), json!(seconds));
    out.insert("states".into(), json!(exact.states()));
    if hands {
        out.insert("values_frame".into(), json!(values_frame(rules)));
        let hands: Vec<Value> = exact
            .hands()
            .iter()
            .map(|h| {
                json!({
                    "upcard": card_label(h.upcard).to_string(),
                    "hand": hand_label(h.first, h.second),
                    "probability": h.probability,
                    "dealer_blackjack": h.dealer_blackjack,
                    "stand": h.stand,
                    "hit": h.hit,
                    "double": h.double,
                    "split": h.split,
                    "surrender": h.surrender,
                    "action": h.action.to_string(),
                    "value": h.value,
                })
            })
            .collect();
        out.insert("hands".into(), Value::Array(hands));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_the_dealer_document_name_every_upcard() {
        assert_eq!(hand_label(1, 10), "T,A");
        assert_eq!(card_label(9), '9');
        let doc = dealer_document(&DealerTable::infinite(false), 0, false);
        assert_eq!(doc["dealer"], "S17");
        assert_eq!(doc["upcards"].as_object().map(Map::len), Some(10));
        assert!(doc["upcards"]["A"]["bust"].as_f64().is_some());
        let rules = game_rules_text(&Rules::default());
        assert!(
            rules.starts_with("S17 ") && rules.contains(" hole card "),
            "{rules}"
        );
    }
}
