//! A form's fields.

use crate::RecordError;
use lore_domain::form::{FieldKey, FieldType, FormField};
use serde::{Deserialize, Serialize};

/// One field of a form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormFieldRecord {
    pub key: String,
    #[serde(default)]
    pub label: String,
    #[serde(rename = "type")]
    pub field_type: String,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub max: Option<u64>,
}

impl FormFieldRecord {
    pub fn of(f: &FormField) -> Self {
        Self {
            key: f.key.as_str().to_owned(),
            label: f.label.clone(),
            field_type: f.field_type.as_str().to_owned(),
            required: f.required,
            options: f.options.clone(),
            max: f.max.map(u64::from),
        }
    }

    pub fn list(fields: &[FormField]) -> Vec<Self> {
        fields.iter().map(Self::of).collect()
    }

    pub fn into_field(self) -> Result<FormField, RecordError> {
        Ok(FormField {
            field_type: FieldType::parse(&self.field_type).ok_or_else(|| RecordError::of("field type"))?,
            key: FieldKey::from_stored(self.key),
            label: self.label,
            required: self.required,
            options: self.options,
            max: self.max.map(|m| m.min(u64::from(u8::MAX)) as u8),
        })
    }

    pub fn into_fields(list: Vec<Self>) -> Result<Vec<FormField>, RecordError> {
        list.into_iter().map(Self::into_field).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_json, to_json};

    #[test]
    fn fields_read_back_as_written_and_as_stored_before() {
        let old = r#"[{"key":"email","label":"E-mail","type":"email","required":true,"options":[],"max":null},
                      {"key":"stars","label":"Stars","type":"rating","required":false,"options":[],"max":5}]"#;
        let records: Vec<FormFieldRecord> = from_json(old, "form fields").unwrap();
        let fields = FormFieldRecord::into_fields(records).unwrap();
        assert_eq!(fields[0].key.as_str(), "email");
        assert!(fields[0].required);
        assert_eq!(fields[1].max, Some(5));
        let again: Vec<FormFieldRecord> = from_json(&to_json(&FormFieldRecord::list(&fields)), "form fields").unwrap();
        assert_eq!(FormFieldRecord::into_fields(again).unwrap(), fields);
    }

    #[test]
    fn an_unknown_field_type_is_malformed() {
        let raw = r#"[{"key":"k","type":"hologram"}]"#;
        let records: Vec<FormFieldRecord> = from_json(raw, "form fields").unwrap();
        assert_eq!(FormFieldRecord::into_fields(records).unwrap_err().to_string(), "malformed stored field type");
    }
}
