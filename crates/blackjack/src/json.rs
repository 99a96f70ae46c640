//! The JSON form of the engine's reports (feature `serde`): the rules, the betting and a
//! simulation's tallies, written by `fairdeal blackjack simulate --json` and read back by
//! `fairdeal merge`, which adds shards' tallies up to the whole run's.
//!
//! Reading is as strict as writing: rules are validated, and a document's tallies must have
//! exactly the fields written, each of its type, and be tallies that the document's chunks can
//! produce ([`SimResult::from_tallies`]).

use core::ops::Range;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::{
    BetRamp, Betting, Counts, DoubleRule, HoleCard, Payout, Penetration, Rules, SimConfig,
    SimError, SimResult, SimSums, Surrender,
};

/// The rules as JSON: every field by name, the dealer rule as `H17`/`S17`, the enumerations
/// by their [`name`](DoubleRule::name)s and penetration as a fraction or `"continuous"`.
#[derive(Serialize, Deserialize)]
struct RulesDoc {
    decks: u8,
    dealer: String,
    double: String,
    double_after_split: bool,
    max_split_hands: u8,
    resplit_aces: bool,
    hit_split_aces: bool,
    surrender: String,
    payout: String,
    hole_card: String,
    penetration: PenetrationDoc,
    seats: u8,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum PenetrationDoc {
    CutCard(f64),
    Named(String),
}

const CONTINUOUS: &str = "continuous";

impl RulesDoc {
    fn new(rules: &Rules) -> RulesDoc {
        RulesDoc {
            decks: rules.decks,
            dealer: String::from(if rules.hits_soft_17 { "H17" } else { "S17" }),
            double: rules.double.name().into(),
            double_after_split: rules.double_after_split,
            max_split_hands: rules.max_split_hands,
            resplit_aces: rules.resplit_aces,
            hit_split_aces: rules.hit_split_aces,
            surrender: rules.surrender.name().into(),
            payout: rules.payout.name().into(),
            hole_card: rules.hole_card.name().into(),
            penetration: match rules.penetration {
                Penetration::CutCard(f) => PenetrationDoc::CutCard(f),
                Penetration::Continuous => PenetrationDoc::Named(CONTINUOUS.into()),
            },
            seats: rules.seats,
        }
    }

    /// The rules, or why the document names none.
    fn rules(&self) -> Result<Rules, String> {
        fn parse<T: core::str::FromStr>(field: &str, text: &str) -> Result<T, String> {
            text.parse()
                .map_err(|_| format!("\"{field}\" is not a rule: '{text}'"))
        }
        let rules = Rules {
            decks: self.decks,
            hits_soft_17: match self.dealer.as_str() {
                "H17" => true,
                "S17" => false,
                other => return Err(format!("\"dealer\" is not H17 or S17: '{other}'")),
            },
            double: parse::<DoubleRule>("double", &self.double)?,
            double_after_split: self.double_after_split,
            max_split_hands: self.max_split_hands,
            resplit_aces: self.resplit_aces,
            hit_split_aces: self.hit_split_aces,
            surrender: parse::<Surrender>("surrender", &self.surrender)?,
            payout: parse::<Payout>("payout", &self.payout)?,
            hole_card: parse::<HoleCard>("hole_card", &self.hole_card)?,
            penetration: match &self.penetration {
                PenetrationDoc::CutCard(f) => Penetration::CutCard(*f),
                PenetrationDoc::Named(name) if name == CONTINUOUS => Penetration::Continuous,
                PenetrationDoc::Named(other) => {
                    return Err(format!("\"penetration\" is not a fraction: '{other}'"));
                }
            },
            seats: self.seats,
        };
        rules.validate().map_err(|e| e.to_string())?;
        Ok(rules)
    }
}

/// ```
/// use fairdeal_blackjack::Rules;
/// let rules = Rules::default();
/// let json = serde_json::to_value(rules)?;
/// assert_eq!(json["dealer"], "S17");
/// assert_eq!(serde_json::from_value::<Rules>(json)?, rules);
/// # Ok::<(), serde_json::Error>(())
/// ```
impl Serialize for Rules {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        RulesDoc::new(self).serialize(serializer)
    }
}

/// Reads what [`Serialize`] writes, and only valid rules ([`Rules::validate`]); fields it does
/// not write are ignored.
impl<'de> Deserialize<'de> for Rules {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Rules, D::Error> {
        RulesDoc::deserialize(deserializer)?
            .rules()
            .map_err(D::Error::custom)
    }
}

/// Flat betting is `"flat"`, a Hi-Lo ramp `{"system": "hilo", "min": 1, "max": 8, "spread":
/// "1-8"}`.
///
/// ```
/// use fairdeal_blackjack::{BetRamp, Betting};
/// let hilo = Betting::HiLo("1-8".parse::<BetRamp>()?);
/// let json = serde_json::to_value(hilo)?;
/// assert_eq!(json, serde_json::json!({"system": "hilo", "min": 1, "max": 8, "spread": "1-8"}));
/// assert_eq!(serde_json::from_value::<Betting>(json)?, hilo);
/// assert_eq!(serde_json::to_value(Betting::Flat)?, "flat");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl Serialize for Betting {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Ramp {
            system: &'static str,
            min: u32,
            max: u32,
            spread: String,
        }
        match self {
            Betting::Flat => serializer.serialize_str("flat"),
            Betting::HiLo(ramp) => Ramp {
                system: "hilo",
                min: ramp.min,
                max: ramp.max,
                spread: ramp.to_string(),
            }
            .serialize(serializer),
        }
    }
}

/// Reads `"flat"`, or a ramp by its `spread` (the other fields are derived from it).
impl<'de> Deserialize<'de> for Betting {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Betting, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Doc {
            Name(String),
            Ramp { spread: String },
        }
        match Doc::deserialize(deserializer)? {
            Doc::Name(name) if name == "flat" => Ok(Betting::Flat),
            Doc::Name(other) => Err(D::Error::custom(format!(
                "betting is \"flat\" or a ramp, not '{other}'"
            ))),
            Doc::Ramp { spread } => spread
                .parse::<BetRamp>()
                .map(Betting::HiLo)
                .map_err(D::Error::custom),
        }
    }
}

/// Why a document's tallies cannot be read ([`SimResult::from_json_fields`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SimDocError {
    /// A tally object is absent, or not an object.
    #[error("\"{key}\" is missing or not an object")]
    NotAnObject {
        /// `counts` or `sums`.
        key: &'static str,
    },
    /// A tally object has a field the report never writes.
    #[error("\"{key}\" has an unknown field \"{field}\"")]
    UnknownField {
        /// `counts` or `sums`.
        key: &'static str,
        /// The field.
        field: String,
    },
    /// A field is absent or of the wrong type.
    #[error("\"{key}\".\"{field}\" is missing or malformed")]
    Malformed {
        /// `counts` or `sums`.
        key: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A sum (a decimal string) is not an integer of its type.
    #[error("\"sums\".\"{field}\" is not an integer in range")]
    NotAnInteger {
        /// The field.
        field: &'static str,
    },
    /// `initial_wagers` is absent or not a count.
    #[error("\"initial_wagers\" is missing or not a count")]
    Wagers,
    /// The tallies are readable but no run of the chunks can produce them.
    #[error(transparent)]
    Sim(#[from] SimError),
}

/// The exact sums' fields, 128-bit integers written as decimal strings.
const SUMS: [&str; 4] = [
    "net_tenths",
    "net_squared_tenths2",
    "wager_squared",
    "net_wager_tenths",
];

impl SimResult {
    /// The fields of a report computed from the tallies: the tallies themselves (counts,
    /// wagers and the exact sums, 128-bit ones as decimal strings) and every statistic derived
    /// from them. A merge of shards replaces these fields of a shard's document with those of
    /// the summed tallies, so a merged document is the whole run's, field for field.
    ///
    /// ```
    /// use fairdeal_blackjack::{SimConfig, SimResult, Strategy, simulate};
    /// use rand::{SeedableRng, rngs::StdRng};
    /// let strategy = Strategy::basic(&Default::default())?;
    /// let config = SimConfig { rounds: 1_000, seed: 1, ..SimConfig::default() };
    /// let run = simulate(&strategy, &config, &fairdeal_inplace::Inplace::new(), StdRng::seed_from_u64)?;
    /// let fields = run.json_fields();
    /// assert_eq!(fields["rounds"], 1_000);
    /// let back = SimResult::from_json_fields(&fields, &config, strategy.rules(), run.chunks.clone())?;
    /// assert_eq!(back, run);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn json_fields(&self) -> Map<String, Value> {
        let sums = self.sums();
        let sums = [
            sums.net.to_string(),
            sums.net2.to_string(),
            sums.wager2.to_string(),
            sums.net_wager.to_string(),
        ];
        let mut out = Map::new();
        out.insert("rounds".into(), self.rounds().into());
        out.insert(
            "house_edge_percent".into(),
            number(self.house_edge_percent()),
        );
        out.insert("std_error_percent".into(), number(self.std_error_percent()));
        out.insert("sd_per_round".into(), number(self.sd_per_round()));
        let counts = self
            .counts
            .fields()
            .map(|(name, v)| (name.into(), v.into()));
        out.insert("counts".into(), Value::Object(counts.into_iter().collect()));
        out.insert("initial_wagers".into(), self.initial_wagers().into());
        let sums = SUMS.iter().zip(sums).map(|(k, v)| ((*k).into(), v.into()));
        out.insert("sums".into(), Value::Object(sums.collect()));
        out
    }

    /// The tallies of a document's [`json_fields`](SimResult::json_fields) (other fields are
    /// ignored), as the result of chunks `chunks` of the run `config` describes under `rules`:
    /// exactly the fields `json_fields` writes in `counts` and `sums`, and tallies those
    /// chunks can produce ([`SimResult::from_tallies`]).
    ///
    /// # Errors
    ///
    /// [`SimDocError`] says which field is wrong, or why the tallies are impossible.
    pub fn from_json_fields(
        doc: &Map<String, Value>,
        config: &SimConfig<'_>,
        rules: &Rules,
        chunks: Range<u64>,
    ) -> Result<SimResult, SimDocError> {
        let names = Counts::default().fields().map(|(name, _)| name);
        let counts = exact_fields(doc, "counts", &names, Value::as_u64)?;
        let count = |name: &str| counts[names.iter().position(|n| *n == name).unwrap_or(0)];
        let counts = Counts {
            rounds: count("rounds"),
            hands: count("hands"),
            wins: count("wins"),
            losses: count("losses"),
            pushes: count("pushes"),
            blackjacks: count("blackjacks"),
            dealer_blackjacks: count("dealer_blackjacks"),
            busts: count("busts"),
            doubles: count("doubles"),
            splits: count("splits"),
            surrenders: count("surrenders"),
        };
        let sums = exact_fields(doc, "sums", &SUMS, |v| v.as_str().map(str::to_owned))?;
        let bad = |field| SimDocError::NotAnInteger { field };
        let sums = SimSums {
            wager: doc
                .get("initial_wagers")
                .and_then(Value::as_u64)
                .ok_or(SimDocError::Wagers)?,
            net: sums[0].parse().map_err(|_| bad(SUMS[0]))?,
            net2: sums[1].parse().map_err(|_| bad(SUMS[1]))?,
            wager2: sums[2].parse().map_err(|_| bad(SUMS[2]))?,
            net_wager: sums[3].parse().map_err(|_| bad(SUMS[3]))?,
        };
        Ok(SimResult::from_tallies(
            config, rules, chunks, counts, sums,
        )?)
    }
}

/// A statistic as JSON: a number, or `null` when it is not finite.
fn number(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The values of object `key` of `doc`, which must have exactly the fields `names` (in any
/// order), each read by `read`.
fn exact_fields<T>(
    doc: &Map<String, Value>,
    key: &'static str,
    names: &[&'static str],
    read: impl Fn(&Value) -> Option<T>,
) -> Result<Vec<T>, SimDocError> {
    let object = doc
        .get(key)
        .and_then(Value::as_object)
        .ok_or(SimDocError::NotAnObject { key })?;
    if let Some(unknown) = object.keys().find(|k| !names.contains(&k.as_str())) {
        return Err(SimDocError::UnknownField {
            key,
            field: unknown.clone(),
        });
    }
    names
        .iter()
        .map(|&field| {
            object
                .get(field)
                .and_then(&read)
                .ok_or(SimDocError::Malformed { key, field })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rules' JSON is the one `simulate --json` has always written, and reads back.
    #[test]
    fn rules_round_trip_in_the_documented_shape() {
        let rules = Rules {
            penetration: Penetration::Continuous,
            hits_soft_17: true,
            ..Rules::default()
        };
        let value = serde_json::to_value(rules).unwrap();
        assert_eq!(value["dealer"], "H17");
        assert_eq!(value["penetration"], "continuous");
        assert_eq!(serde_json::from_value::<Rules>(value).unwrap(), rules);
        let cut = serde_json::to_value(Rules::default()).unwrap();
        assert!(cut["penetration"].is_f64());
        assert_eq!(
            serde_json::from_value::<Rules>(cut).unwrap(),
            Rules::default()
        );
    }

    #[test]
    fn bad_rules_and_betting_are_refused() {
        let good = serde_json::to_value(Rules::default()).unwrap();
        for (field, bad) in [
            ("dealer", json!("H18")),
            ("double", json!("never")),
            ("penetration", json!("sometimes")),
            ("decks", json!(300)),
            ("decks", json!(0)),
            ("seats", json!(-1)),
        ] {
            let mut doc = good.clone();
            doc[field] = bad;
            assert!(serde_json::from_value::<Rules>(doc).is_err(), "{field}");
        }
        assert!(serde_json::from_value::<Betting>(json!("martingale")).is_err());
        assert!(serde_json::from_value::<Betting>(json!({"spread": "8-1"})).is_err());
        assert!(serde_json::from_value::<Betting>(json!({"system": "hilo"})).is_err());
    }
}
