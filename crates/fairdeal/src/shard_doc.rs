//! A shard's `--json` document as `fairdeal merge` reads it (feature `serde`): its `shard`
//! object ([`ShardHeader::from_document`]), its `seconds` ([`shard_seconds`]), and the
//! field-by-field comparison with the document its command renders again from the shard's own
//! tallies ([`check_rendered`]) or with the first shard's parameters ([`check_same_run`]).
//!
//! Comparing whole documents, rather than a list of the fields a tally decides, is what lets a
//! merge refuse an edited field or a field the command never writes without naming any engine's
//! fields here.

extern crate alloc;

use alloc::borrow::ToOwned;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use crate::{Shard, ShardError, ShardHeader, ShardedCommand};

/// Why a document has no usable `shard` object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardDocError {
    /// The document has no `shard` field: the output of a whole run.
    #[error("it has no \"shard\" field")]
    NoShard,
    /// `shard` lacks `command`, `index`, `count`, `chunks` (two integers) or `total`.
    #[error("its \"shard\" field is malformed")]
    Malformed,
    /// `shard.command` names no sharded command.
    #[error("unknown command \"{0}\"")]
    UnknownCommand(String),
    /// `shard.index`/`shard.count` is no shard.
    #[error(transparent)]
    Shard(#[from] ShardError),
}

impl ShardHeader {
    /// The header a shard's document records in its `shard` object (`command`, `index`,
    /// `count`, `chunks` as `[start, end]`, `total`). Whether the chunks are those of the index
    /// is [`check_shard_set`](crate::check_shard_set)'s question.
    ///
    /// ```
    /// use fairdeal::{ShardDocError, ShardHeader, ShardedCommand};
    /// let doc = serde_json::json!({"shard": {"command": "fairness", "index": 2, "count": 3,
    ///     "chunks": [4, 8], "total": 1000000}});
    /// let header = ShardHeader::from_document(doc.as_object().unwrap())?;
    /// assert_eq!((header.command, header.shard.index(), header.chunks), (ShardedCommand::Fairness, 2, 4..8));
    /// assert_eq!(ShardHeader::from_document(&Default::default()), Err(ShardDocError::NoShard));
    /// # Ok::<(), ShardDocError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ShardDocError`] says what is missing or wrong.
    pub fn from_document(doc: &Map<String, Value>) -> Result<ShardHeader, ShardDocError> {
        let info = doc.get("shard").ok_or(ShardDocError::NoShard)?;
        let field = |key: &str| info.get(key).and_then(Value::as_u64);
        let chunks =
            info.get("chunks")
                .and_then(Value::as_array)
                .and_then(|c| match c.as_slice() {
                    [a, b] => Some(a.as_u64()?..b.as_u64()?),
                    _ => None,
                });
        let (Some(command), Some(index), Some(count), Some(chunks), Some(total)) = (
            info.get("command").and_then(Value::as_str),
            field("index"),
            field("count"),
            chunks,
            field("total"),
        ) else {
            return Err(ShardDocError::Malformed);
        };
        let command = ShardedCommand::from_name(command)
            .ok_or_else(|| ShardDocError::UnknownCommand(command.to_owned()))?;
        Ok(ShardHeader {
            command,
            shard: Shard::new(index, count)?,
            chunks,
            total,
        })
    }
}

/// A document's `seconds` that is no time.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("\"seconds\" is {0}, not a finite, non-negative time")]
pub struct BadSeconds(pub Value);

/// A shard document's `seconds` (`None` when it has none): finite and not negative.
///
/// # Errors
///
/// [`BadSeconds`] when it is not such a number.
pub fn shard_seconds(doc: &Map<String, Value>) -> Result<Option<f64>, BadSeconds> {
    doc.get("seconds")
        .map(|value| {
            value
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| BadSeconds(value.clone()))
        })
        .transpose()
}

/// The first place where two JSON values differ: a path (`"counts"."wins"`, `"players"[1]`)
/// and the value on each side (`None`: absent there).
#[derive(Debug, Clone, PartialEq)]
pub struct JsonDifference {
    /// Where, as keys and indices from the top; empty when the values themselves differ.
    pub path: String,
    /// The first value's part there.
    pub left: Option<Value>,
    /// The second value's part there.
    pub right: Option<Value>,
}

/// A side of a [`JsonDifference`] in a message: its JSON, or `absent`.
pub fn show_json(value: Option<&Value>) -> String {
    value.map_or_else(|| "absent".to_owned(), Value::to_string)
}

/// The first place where `a` and `b` differ, keys in sorted order; `None` when equal.
///
/// ```
/// use fairdeal::first_difference;
/// use serde_json::json;
/// let d = first_difference(&json!({"a": [1, {"b": 2}]}), &json!({"a": [1, {"b": 3}]})).unwrap();
/// assert_eq!((d.path.as_str(), d.left, d.right), ("\"a\"[1].\"b\"", Some(json!(2)), Some(json!(3))));
/// assert_eq!(first_difference(&json!([1]), &json!([1])), None);
/// ```
pub fn first_difference(a: &Value, b: &Value) -> Option<JsonDifference> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|key| {
                let at = format!("\"{key}\"");
                match (x.get(key), y.get(key)) {
                    (Some(u), Some(v)) => first_difference(u, v).map(|d| d.under(&at)),
                    (u, v) => Some(JsonDifference {
                        path: at,
                        left: u.cloned(),
                        right: v.cloned(),
                    }),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (u, v))| first_difference(u, v).map(|d| d.under(&format!("[{i}]")))),
        _ if a == b => None,
        _ => Some(JsonDifference {
            path: String::new(),
            left: Some(a.clone()),
            right: Some(b.clone()),
        }),
    }
}

impl JsonDifference {
    /// This difference inside `head` (a key or an index).
    fn under(mut self, head: &str) -> JsonDifference {
        self.path = if self.path.is_empty() || self.path.starts_with('[') {
            format!("{head}{}", self.path)
        } else {
            format!("{head}.{}", self.path)
        };
        self
    }
}

/// How a shard's file differs from the document its command renders from the file's own
/// tallies and parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// The file has a field the command never writes.
    #[error("{path} ({found}) is not a field of the command's document")]
    Unknown {
        /// Where.
        path: String,
        /// The file's value there.
        found: Value,
    },
    /// A field differs from (or lacks) what the tallies and parameters give.
    #[error(
        "{path} is {} where the shard's own tallies and parameters give {}",
        show_json(found.as_ref()),
        show_json(expected.as_ref())
    )]
    Differs {
        /// Where.
        path: String,
        /// The file's value (`None`: absent).
        found: Option<Value>,
        /// The rendered value (`None`: absent).
        expected: Option<Value>,
    },
}

/// `file` and `rendered` as they can be compared: the rendering's floats go through JSON text
/// once, as the file's did (so each computed value reads back as the file's does), and
/// `seconds`, which describes how the run went rather than what it found, is left out of both.
fn comparable(file: &Map<String, Value>, rendered: &Value) -> (Value, Value) {
    // The text of a `Value` is always JSON that reads back.
    let mut rendered: Value =
        serde_json::from_str(&rendered.to_string()).unwrap_or_else(|_| rendered.clone());
    let mut file = file.clone();
    file.remove("seconds");
    if let Value::Object(map) = &mut rendered {
        map.remove("seconds");
    }
    (Value::Object(file), rendered)
}

/// Checks that `file`, a shard's document, is `rendered`, the document its command prints for
/// the tallies and parameters read from it (`seconds` aside).
///
/// ```
/// use fairdeal::{Mismatch, check_rendered};
/// use serde_json::json;
/// let file = json!({"wins": 3, "rate": 0.5, "seconds": 1.5, "note": "hi"});
/// let rendered = json!({"wins": 3, "rate": 0.75});
/// let err = check_rendered(file.as_object().unwrap(), &rendered).unwrap_err();
/// assert!(matches!(err, Mismatch::Unknown { ref path, .. } if path == "\"note\""));
/// let file = json!({"wins": 3, "rate": 0.5});
/// let err = check_rendered(file.as_object().unwrap(), &rendered).unwrap_err();
/// assert_eq!(err.to_string(), "\"rate\" is 0.5 where the shard's own tallies and parameters give 0.75");
/// ```
///
/// # Errors
///
/// [`Mismatch`]: the first field that differs, or that the command never writes.
pub fn check_rendered(file: &Map<String, Value>, rendered: &Value) -> Result<(), Mismatch> {
    let (file, rendered) = comparable(file, rendered);
    match first_difference(&file, &rendered) {
        None => Ok(()),
        Some(JsonDifference {
            path,
            left: Some(found),
            right: None,
        }) => Err(Mismatch::Unknown { path, found }),
        Some(d) => Err(Mismatch::Differs {
            path: d.path,
            found: d.left,
            expected: d.right,
        }),
    }
}

/// Checks that `file`, a shard's document, is `rendered`, its tallies printed with the *first*
/// shard's parameters (`seconds` aside): otherwise the two are shards of different runs.
///
/// # Errors
///
/// The first [`JsonDifference`], the rendering on the left and the file on the right.
pub fn check_same_run(file: &Map<String, Value>, rendered: &Value) -> Result<(), JsonDifference> {
    let (file, rendered) = comparable(file, rendered);
    first_difference(&rendered, &file).map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!("an object"),
        }
    }

    #[test]
    fn a_shard_object_is_read_or_refused_for_what_is_wrong() {
        let shard = |s: Value| map(json!({ "shard": s }));
        let good =
            json!({"command": "poker table", "index": 1, "count": 2, "chunks": [0, 3], "total": 9});
        let header = ShardHeader::from_document(&shard(good)).unwrap();
        assert_eq!(header.command, ShardedCommand::PokerTable);
        assert_eq!(
            (header.shard.count(), header.chunks, header.total),
            (2, 0..3, 9)
        );
        for (bad, why) in [
            (
                json!({"command": "poker table", "index": 1, "count": 2, "chunks": [0], "total": 9}),
                "malformed",
            ),
            (
                json!({"command": "poker table", "index": 1, "count": 2, "chunks": [0, 3]}),
                "malformed",
            ),
            (
                json!({"command": "poker", "index": 1, "count": 2, "chunks": [0, 3], "total": 9}),
                "unknown command \"poker\"",
            ),
            (
                json!({"command": "poker table", "index": 3, "count": 2, "chunks": [0, 3], "total": 9}),
                "does not exist",
            ),
        ] {
            let err = ShardHeader::from_document(&shard(bad))
                .unwrap_err()
                .to_string();
            assert!(err.contains(why), "{err} lacks {why}");
        }
    }

    #[test]
    fn seconds_must_be_a_time() {
        assert_eq!(shard_seconds(&map(json!({}))), Ok(None));
        assert_eq!(shard_seconds(&map(json!({"seconds": 2.5}))), Ok(Some(2.5)));
        for bad in [json!(-1.0), json!(null), json!("NaN")] {
            let doc = map(json!({ "seconds": bad.clone() }));
            assert_eq!(shard_seconds(&doc), Err(BadSeconds(bad)));
        }
    }

    #[test]
    fn the_first_difference_is_found_in_key_order_with_its_path() {
        let a = json!({"b": {"x": [1, 2]}, "a": 1, "c": 5});
        let b = json!({"b": {"x": [1, 3]}, "a": 1});
        let d = first_difference(&a, &b).unwrap();
        assert_eq!(
            (d.path.as_str(), d.left, d.right),
            ("\"b\".\"x\"[1]", Some(json!(2)), Some(json!(3)))
        );
        let d = first_difference(&json!({"a": 1}), &json!({"a": 1, "z": 0})).unwrap();
        assert_eq!(
            (d.path.as_str(), d.left, d.right),
            ("\"z\"", None, Some(json!(0)))
        );
        assert_eq!(show_json(None), "absent");
        // Arrays of different lengths differ as wholes.
        let d = first_difference(&json!([1]), &json!([1, 2])).unwrap();
        assert_eq!(d.path, "");
    }

    #[test]
    fn seconds_are_not_compared_and_the_other_run_is_named_left() {
        let file = map(json!({"n": 4, "seconds": 9.0}));
        assert_eq!(
            check_rendered(&file, &json!({"n": 4, "seconds": 1.0})),
            Ok(())
        );
        let d = check_same_run(&file, &json!({"n": 5})).unwrap_err();
        assert_eq!((d.left, d.right), (Some(json!(5)), Some(json!(4))));
        let err = check_rendered(&file, &json!({"n": 4, "m": 1})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "\"m\" is absent where the shard's own tallies and parameters give 1"
        );
    }
}
