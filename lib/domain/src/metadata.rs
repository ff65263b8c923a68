//! Metadata an owner attaches to a knowledge source (`{"product": "cloud", "year": 2024}`), and
//! the filters a search narrows sources by, in the shape of OpenAI's vector-store search filters:
//! a comparison `{type: eq|ne|gt|gte|lt|lte|in|nin, key, value}` or a compound
//! `{type: and|or, filters: [...]}` (docs/api.md §6 "Metadata", §7).

use crate::error::DomainError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Keys a source's metadata may have.
pub const MAX_METADATA_KEYS: usize = 16;
/// Characters of a metadata key.
pub const MAX_METADATA_KEY_CHARS: usize = 64;
/// Characters of a string value.
pub const MAX_METADATA_VALUE_CHARS: usize = 512;
/// Comparisons a filter may hold, all levels counted.
pub const MAX_FILTER_COMPARISONS: usize = 32;
/// Levels of compound filters inside one another.
pub const MAX_FILTER_DEPTH: usize = 4;
/// Values of an `in` / `nin` list.
pub const MAX_FILTER_LIST: usize = 100;

/// One metadata value: a string, a number or a boolean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MetaValue {
    Bool(bool),
    /// Kept as given, so `2024` reads back as `2024`, not `2024.0`.
    Number(serde_json::Number),
    Text(String),
}

impl MetaValue {
    /// A scalar JSON value, or `None` for null, arrays, objects and non-finite numbers.
    fn from_json(v: &Value) -> Option<Self> {
        match v {
            Value::Bool(b) => Some(Self::Bool(*b)),
            Value::Number(n) => Some(Self::Number(n.clone())),
            Value::String(s) => Some(Self::Text(s.clone())),
            _ => None,
        }
    }

    /// How two values order: numbers with numbers, strings with strings (by code point, so ISO
    /// dates order by time), booleans with booleans; values of different kinds do not compare.
    fn compare(&self, other: &Self) -> Option<Ordering> {
        match (self, other) {
            (Self::Number(a), Self::Number(b)) => a.as_f64()?.partial_cmp(&b.as_f64()?),
            (Self::Text(a), Self::Text(b)) => Some(a.cmp(b)),
            (Self::Bool(a), Self::Bool(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }
}

/// A source's metadata: at most 16 keys of 1 to 64 characters, each a string (at most 512
/// characters), a number or a boolean. Empty by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Metadata(BTreeMap<String, MetaValue>);

impl Metadata {
    /// Reads the `metadata` member of a request: absent or `null` is empty, anything but an
    /// object of scalar values within the bounds is a `validation_error` naming `metadata`.
    pub fn parse(v: Option<&Value>) -> Result<Self, DomainError> {
        let bad = |reason: String| DomainError::field("metadata", reason);
        let map = match v {
            None | Some(Value::Null) => return Ok(Self::default()),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(bad("must be an object of string, number or boolean values".into())),
        };
        if map.len() > MAX_METADATA_KEYS {
            return Err(bad(format!("has {} keys; at most {MAX_METADATA_KEYS} are allowed", map.len())));
        }
        let mut out = BTreeMap::new();
        for (key, value) in map {
            let chars = key.chars().count();
            if chars == 0 || chars > MAX_METADATA_KEY_CHARS || key.chars().any(char::is_control) {
                return Err(bad(format!("keys must be 1 to {MAX_METADATA_KEY_CHARS} printable characters")));
            }
            let value = MetaValue::from_json(value)
                .ok_or_else(|| bad(format!("`{key}` must be a string, a number or a boolean")))?;
            if let MetaValue::Text(s) = &value
                && s.chars().count() > MAX_METADATA_VALUE_CHARS
            {
                return Err(bad(format!("`{key}` must be at most {MAX_METADATA_VALUE_CHARS} characters")));
            }
            out.insert(key.clone(), value);
        }
        Ok(Self(out))
    }

    pub fn get(&self, key: &str) -> Option<&MetaValue> {
        self.0.get(key)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &MetaValue)> {
        self.0.iter()
    }
}

/// The operator of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Comparison {
    Eq,
    Ne,
    Gt,
    Gte,
    Lt,
    Lte,
    In,
    Nin,
}

impl Comparison {
    const ALL: [Comparison; 8] = [
        Comparison::Eq,
        Comparison::Ne,
        Comparison::Gt,
        Comparison::Gte,
        Comparison::Lt,
        Comparison::Lte,
        Comparison::In,
        Comparison::Nin,
    ];

    fn name(self) -> &'static str {
        match self {
            Comparison::Eq => "eq",
            Comparison::Ne => "ne",
            Comparison::Gt => "gt",
            Comparison::Gte => "gte",
            Comparison::Lt => "lt",
            Comparison::Lte => "lte",
            Comparison::In => "in",
            Comparison::Nin => "nin",
        }
    }

    fn is_list(self) -> bool {
        matches!(self, Comparison::In | Comparison::Nin)
    }
}

/// How a compound filter joins its filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Junction {
    And,
    Or,
}

/// The value a comparison compares with: one value, or the list of `in` / `nin`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum FilterValue {
    One(MetaValue),
    List(Vec<MetaValue>),
}

/// A validated search filter. Its JSON is the request's shape, so a stored default filter
/// reads back as it was given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Filter {
    Compare {
        #[serde(rename = "type")]
        op: Comparison,
        key: String,
        value: FilterValue,
    },
    Compound {
        #[serde(rename = "type")]
        junction: Junction,
        filters: Vec<Filter>,
    },
}

impl Filter {
    /// Reads a request's filter (the member `field`); `None` or `null` is no filter.
    pub fn parse(field: &str, v: Option<&Value>) -> Result<Option<Self>, DomainError> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                let mut comparisons = 0;
                Self::parse_node(v, 1, &mut comparisons).map(Some).map_err(|reason| DomainError::field(field, reason))
            }
        }
    }

    fn parse_node(v: &Value, depth: usize, comparisons: &mut usize) -> Result<Self, String> {
        let Value::Object(obj) = v else {
            return Err("a filter must be an object with a `type`".into());
        };
        let kind = obj.get("type").and_then(Value::as_str).unwrap_or("");
        if let Some(junction) = match kind {
            "and" => Some(Junction::And),
            "or" => Some(Junction::Or),
            _ => None,
        } {
            if depth > MAX_FILTER_DEPTH {
                return Err(format!("filters may be nested at most {MAX_FILTER_DEPTH} levels deep"));
            }
            let Some(Value::Array(list)) = obj.get("filters") else {
                return Err(format!("an `{kind}` filter needs `filters`, a non-empty array"));
            };
            if list.is_empty() {
                return Err(format!("an `{kind}` filter needs `filters`, a non-empty array"));
            }
            let filters =
                list.iter().map(|f| Self::parse_node(f, depth + 1, comparisons)).collect::<Result<Vec<_>, _>>()?;
            return Ok(Filter::Compound { junction, filters });
        }
        let op = Comparison::ALL.into_iter().find(|c| c.name() == kind).ok_or_else(|| {
            "`type` must be one of eq, ne, gt, gte, lt, lte, in, nin (a comparison) or and, or (a compound)".to_owned()
        })?;
        *comparisons += 1;
        if *comparisons > MAX_FILTER_COMPARISONS {
            return Err(format!("a filter may hold at most {MAX_FILTER_COMPARISONS} comparisons"));
        }
        let key = match obj.get("key").and_then(Value::as_str) {
            Some(k) if !k.is_empty() && k.chars().count() <= MAX_METADATA_KEY_CHARS => k.to_owned(),
            _ => return Err(format!("a comparison needs `key`, 1 to {MAX_METADATA_KEY_CHARS} characters")),
        };
        let value = match (op.is_list(), obj.get("value")) {
            (true, Some(Value::Array(list))) if !list.is_empty() && list.len() <= MAX_FILTER_LIST => {
                let values = list
                    .iter()
                    .map(MetaValue::from_json)
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| format!("`{}` takes a list of strings, numbers or booleans", op.name()))?;
                FilterValue::List(values)
            }
            (true, _) => {
                return Err(format!("`{}` takes `value`, a list of 1 to {MAX_FILTER_LIST} values", op.name()));
            }
            (false, Some(v)) => FilterValue::One(
                MetaValue::from_json(v)
                    .ok_or_else(|| format!("`{}` takes `value`, a string, number or boolean", op.name()))?,
            ),
            (false, None) => return Err(format!("`{}` takes `value`, a string, number or boolean", op.name())),
        };
        Ok(Filter::Compare { op, key, value })
    }

    /// Whether a source with `metadata` passes. A comparison with a key the source does not have
    /// is false, except `ne` and `nin`, which hold (the source does not have that value); order
    /// comparisons of values of different kinds are false.
    pub fn matches(&self, metadata: &Metadata) -> bool {
        match self {
            Filter::Compound { junction: Junction::And, filters } => filters.iter().all(|f| f.matches(metadata)),
            Filter::Compound { junction: Junction::Or, filters } => filters.iter().any(|f| f.matches(metadata)),
            Filter::Compare { op, key, value } => {
                let have = metadata.get(key);
                let equal = |v: &MetaValue| have.is_some_and(|h| h.compare(v) == Some(Ordering::Equal));
                match (op, value) {
                    (Comparison::Eq, FilterValue::One(v)) => equal(v),
                    (Comparison::Ne, FilterValue::One(v)) => !equal(v),
                    (Comparison::In, FilterValue::List(vs)) => vs.iter().any(equal),
                    (Comparison::Nin, FilterValue::List(vs)) => !vs.iter().any(equal),
                    (Comparison::Gt | Comparison::Gte | Comparison::Lt | Comparison::Lte, FilterValue::One(v)) => {
                        match have.and_then(|h| h.compare(v)) {
                            Some(o) => match op {
                                Comparison::Gt => o == Ordering::Greater,
                                Comparison::Gte => o != Ordering::Less,
                                Comparison::Lt => o == Ordering::Less,
                                _ => o != Ordering::Greater,
                            },
                            None => false,
                        }
                    }
                    // Parsing pairs each operator with its kind of value.
                    _ => false,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(v: Value) -> Metadata {
        Metadata::parse(Some(&v)).unwrap()
    }

    fn filter(v: Value) -> Filter {
        Filter::parse("filter", Some(&v)).unwrap().unwrap()
    }

    fn refused(v: Value) -> String {
        Filter::parse("filter", Some(&v)).unwrap_err().fields["filter"].clone()
    }

    #[test]
    fn metadata_bounds() {
        assert!(Metadata::parse(None).unwrap().is_empty());
        assert!(Metadata::parse(Some(&Value::Null)).unwrap().is_empty());
        let m = meta(json!({"product": "cloud", "year": 2024, "public": true}));
        assert_eq!(m.get("year"), Some(&MetaValue::Number(2024.into())));
        let sixteen: serde_json::Map<String, Value> = (0..16).map(|i| (format!("k{i}"), json!(i))).collect();
        assert!(Metadata::parse(Some(&Value::Object(sixteen.clone()))).is_ok());
        let mut seventeen = sixteen;
        seventeen.insert("k16".into(), json!(16));
        let e = Metadata::parse(Some(&Value::Object(seventeen))).unwrap_err();
        assert!(e.fields["metadata"].contains("17 keys"), "{e:?}");
        for bad in [
            json!({"nested": {"a": 1}}),
            json!({"list": [1]}),
            json!({"none": null}),
            json!({"": "x"}),
            json!({"k": "x".repeat(513)}),
            json!(["a"]),
            json!("text"),
        ] {
            assert_eq!(Metadata::parse(Some(&bad)).unwrap_err().fields.keys().next().unwrap(), "metadata", "{bad}");
        }
        assert!(Metadata::parse(Some(&json!({"k": "é".repeat(512)}))).is_ok());
    }

    #[test]
    fn metadata_stores_as_its_json() {
        let m = meta(json!({"b": true, "n": 1.5, "i": 2024, "s": "x"}));
        let raw = serde_json::to_string(&m).unwrap();
        assert_eq!(raw, r#"{"b":true,"i":2024,"n":1.5,"s":"x"}"#);
        assert_eq!(serde_json::from_str::<Metadata>(&raw).unwrap(), m);
    }

    #[test]
    fn comparisons() {
        let m = meta(json!({"product": "cloud", "year": 2024, "public": true, "date": "2024-05-01"}));
        let yes = |f: Value| filter(f).matches(&m);
        assert!(yes(json!({"type": "eq", "key": "product", "value": "cloud"})));
        assert!(!yes(json!({"type": "eq", "key": "product", "value": "Cloud"})));
        assert!(yes(json!({"type": "eq", "key": "year", "value": 2024.0})));
        assert!(!yes(json!({"type": "eq", "key": "year", "value": "2024"})));
        assert!(yes(json!({"type": "ne", "key": "product", "value": "onprem"})));
        assert!(yes(json!({"type": "ne", "key": "missing", "value": "x"})));
        assert!(!yes(json!({"type": "eq", "key": "missing", "value": "x"})));
        assert!(yes(json!({"type": "gt", "key": "year", "value": 2023})));
        assert!(!yes(json!({"type": "gt", "key": "year", "value": 2024})));
        assert!(yes(json!({"type": "gte", "key": "year", "value": 2024})));
        assert!(yes(json!({"type": "lt", "key": "date", "value": "2024-06-01"})));
        assert!(yes(json!({"type": "lte", "key": "date", "value": "2024-05-01"})));
        assert!(!yes(json!({"type": "lt", "key": "year", "value": "3000"})), "kinds do not compare");
        assert!(!yes(json!({"type": "gt", "key": "missing", "value": 1})));
        assert!(yes(json!({"type": "in", "key": "product", "value": ["onprem", "cloud"]})));
        assert!(!yes(json!({"type": "nin", "key": "product", "value": ["onprem", "cloud"]})));
        assert!(yes(json!({"type": "nin", "key": "missing", "value": ["x"]})));
        assert!(yes(json!({"type": "eq", "key": "public", "value": true})));
    }

    #[test]
    fn compounds() {
        let m = meta(json!({"product": "cloud", "year": 2024}));
        let f = filter(json!({"type": "and", "filters": [
            {"type": "eq", "key": "product", "value": "cloud"},
            {"type": "or", "filters": [
                {"type": "lt", "key": "year", "value": 2000},
                {"type": "gte", "key": "year", "value": 2024}
            ]}
        ]}));
        assert!(f.matches(&m));
        let f = filter(json!({"type": "or", "filters": [{"type": "eq", "key": "product", "value": "x"}]}));
        assert!(!f.matches(&m));
        // A stored filter reads back as given.
        let raw = serde_json::to_value(&f).unwrap();
        assert_eq!(raw, json!({"type": "or", "filters": [{"type": "eq", "key": "product", "value": "x"}]}));
        assert_eq!(serde_json::from_value::<Filter>(raw).unwrap(), f);
    }

    #[test]
    fn malformed_filters_name_the_field() {
        assert!(Filter::parse("filter", None).unwrap().is_none());
        assert!(refused(json!({"type": "like", "key": "a", "value": "b"})).contains("`type`"));
        assert!(refused(json!({"type": "eq", "value": "b"})).contains("`key`"));
        assert!(refused(json!({"type": "eq", "key": "a"})).contains("`value`"));
        assert!(refused(json!({"type": "eq", "key": "a", "value": {"x": 1}})).contains("`value`"));
        assert!(refused(json!({"type": "in", "key": "a", "value": "b"})).contains("list"));
        assert!(refused(json!({"type": "in", "key": "a", "value": []})).contains("list"));
        assert!(refused(json!({"type": "and", "filters": []})).contains("non-empty"));
        assert!(refused(json!("eq")).contains("object"));
        let mut deep = json!({"type": "eq", "key": "a", "value": 1});
        for _ in 0..MAX_FILTER_DEPTH {
            deep = json!({"type": "and", "filters": [deep]});
        }
        assert!(Filter::parse("filter", Some(&deep)).is_ok());
        let deeper = json!({"type": "and", "filters": [deep]});
        assert!(refused(deeper).contains("nested"));
        let many: Vec<Value> =
            (0..=MAX_FILTER_COMPARISONS).map(|i| json!({"type": "eq", "key": "a", "value": i})).collect();
        assert!(refused(json!({"type": "or", "filters": many})).contains("comparisons"));
    }
}
