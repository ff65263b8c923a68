//! The stored shapes of `lore-records` as DynamoDB attributes: a record's fields become
//! attributes of the item (strings `S`, numbers `N`, booleans `BOOL`, lists `L`, maps `M`), and
//! an item reads back as a record from those attributes, the item's other attributes (keys,
//! counters) ignored. An unset field (`null`) is no attribute at all, so an update removes it.
//! Hence a record's field must not share its name with another attribute of the items it is
//! written to (the source spec's file size is `fileSize` because the item's `sizeBytes` counts
//! the source's bytes).

use super::{Item, malformed};
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::StoreResult;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

/// The record's fields as attributes; `None` for an unset field.
pub(crate) fn fields<T: Serialize>(record: &T) -> Vec<(String, Option<AttributeValue>)> {
    match serde_json::to_value(record) {
        Ok(Value::Object(map)) => map.into_iter().map(|(k, v)| (k, attribute(v))).collect(),
        // Records are structs: always an object.
        _ => Vec::new(),
    }
}

/// The record's set fields, to add to an item being written whole.
pub(crate) fn set_fields<T: Serialize>(record: &T) -> impl Iterator<Item = (String, AttributeValue)> {
    fields(record).into_iter().filter_map(|(k, v)| Some((k, v?)))
}

/// One value as an attribute (`None` for `null`).
pub(crate) fn attribute(v: Value) -> Option<AttributeValue> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => AttributeValue::Bool(b),
        Value::Number(n) => AttributeValue::N(n.to_string()),
        Value::String(s) => AttributeValue::S(s),
        Value::Array(list) => {
            AttributeValue::L(list.into_iter().map(|v| attribute(v).unwrap_or(AttributeValue::Null(true))).collect())
        }
        Value::Object(map) => {
            AttributeValue::M(map.into_iter().filter_map(|(k, v)| Some((k, attribute(v)?))).collect())
        }
    })
}

fn value(a: &AttributeValue) -> Value {
    match a {
        AttributeValue::S(s) => Value::String(s.clone()),
        AttributeValue::N(n) => number(n),
        AttributeValue::Bool(b) => Value::Bool(*b),
        AttributeValue::L(list) => Value::Array(list.iter().map(value).collect()),
        AttributeValue::M(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), value(v))).collect()),
        // Sets, binary and null: no record field has these.
        _ => Value::Null,
    }
}

fn number(n: &str) -> Value {
    if let Ok(i) = n.parse::<i64>() {
        return Value::Number(i.into());
    }
    if let Ok(u) = n.parse::<u64>() {
        return Value::Number(u.into());
    }
    n.parse::<f64>().ok().and_then(Number::from_f64).map_or(Value::Null, Value::Number)
}

/// Reads a record from the attributes of `item`.
pub(crate) fn read<T: DeserializeOwned>(item: &Item, what: &str) -> StoreResult<T> {
    let map: Map<String, Value> = item.iter().map(|(k, v)| (k.clone(), value(v))).collect();
    serde_json::from_value(Value::Object(map)).map_err(|_| malformed(what))
}

/// Reads a record from one map attribute.
pub(crate) fn read_value<T: DeserializeOwned>(a: &AttributeValue, what: &str) -> StoreResult<T> {
    serde_json::from_value(value(a)).map_err(|_| malformed(what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_records::MindSettingsRecord;

    #[test]
    fn a_record_reads_back_from_its_attributes_among_others() {
        let raw = serde_json::json!({"name":"Ada","headline":null,"bio":"b","avatarUrl":null,"systemPrompt":null,
            "welcomeMessage":null,"suggestedQuestions":["q"],"expertiseAreas":[],"showSources":true,
            "collectEmail":false,"temperature":0.7,"theme":{"mode":"dark"},"socialLinks":{},"voiceEnabled":false,
            "voiceId":"alloy","voiceSpeed":1.0});
        let record: MindSettingsRecord = serde_json::from_value(raw).unwrap();
        let f = fields(&record);
        assert!(f.iter().any(|(k, v)| k == "headline" && v.is_none()), "unset is no attribute");
        let mut item: Item = set_fields(&record).collect();
        item.insert("pk".into(), AttributeValue::S("WS#x".into()));
        item.insert("n_ready_file".into(), AttributeValue::N("3".into()));
        assert_eq!(read::<MindSettingsRecord>(&item, "mind").unwrap(), record);
    }
}
