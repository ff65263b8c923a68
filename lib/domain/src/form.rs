//! Forms and their responses (docs/api.md §11, §16.18–19).
//!
//! A form is a name and an ordered list of typed fields. A submission is checked field by field
//! against its type; every offending field is reported at once, keyed `values.<key>`.

use crate::error::{DomainError, Validator};
use crate::event::{Event, EventType};
use crate::id::{EventId, FormId, ResponseId, WorkspaceId};
use crate::text;
use crate::time::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, HashSet};

/// The `formId` that stands for every form: the first entry of the forms dropdown, accepted by
/// subscribe and sample (docs/api.md §12: Zapier refuses a dropdown entry without an id).
pub const ALL_FORMS_ID: &str = "all";

pub const MAX_FORM_NAME: usize = 200;
pub const MAX_FIELDS: usize = 100;
pub const MAX_KEY: usize = 64;
pub const MAX_LABEL: usize = 200;
pub const MAX_OPTIONS: usize = 100;
pub const MAX_OPTION: usize = 200;
pub const MAX_SHORT_TEXT: usize = 1_000;
pub const MAX_LONG_TEXT: usize = 10_000;
pub const MAX_URL: usize = 2_048;
/// Stars of a rating field without `max`.
pub const DEFAULT_RATING_MAX: u8 = 5;
pub const MAX_RATING_MAX: u8 = 10;

/// The interface's field types. `System` marks the fields the service adds to every event
/// (`_formId`, `_responseId`); a form cannot declare one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldType {
    ShortText,
    LongText,
    Email,
    Phone,
    Number,
    Date,
    Dropdown,
    MultipleChoice,
    Checkboxes,
    File,
    Signature,
    Rating,
    System,
}

impl FieldType {
    pub const ALL: [FieldType; 13] = [
        FieldType::ShortText,
        FieldType::LongText,
        FieldType::Email,
        FieldType::Phone,
        FieldType::Number,
        FieldType::Date,
        FieldType::Dropdown,
        FieldType::MultipleChoice,
        FieldType::Checkboxes,
        FieldType::File,
        FieldType::Signature,
        FieldType::Rating,
        FieldType::System,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::ShortText => "short_text",
            FieldType::LongText => "long_text",
            FieldType::Email => "email",
            FieldType::Phone => "phone",
            FieldType::Number => "number",
            FieldType::Date => "date",
            FieldType::Dropdown => "dropdown",
            FieldType::MultipleChoice => "multiple_choice",
            FieldType::Checkboxes => "checkboxes",
            FieldType::File => "file",
            FieldType::Signature => "signature",
            FieldType::Rating => "rating",
            FieldType::System => "system",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The types whose answers must be among the field's `options`.
    pub fn has_options(self) -> bool {
        matches!(self, FieldType::Dropdown | FieldType::MultipleChoice | FieldType::Checkboxes)
    }

    fn declarable_list() -> String {
        Self::ALL.iter().filter(|t| **t != FieldType::System).map(|t| t.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// A field's key: what answers are keyed by. ASCII letters, digits, `_` and `-`, 1–64
/// characters, starting with a letter or digit (a leading `_` is reserved for system fields).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldKey(String);

impl FieldKey {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let ok = !s.is_empty()
            && s.len() <= MAX_KEY
            && s.as_bytes()[0].is_ascii_alphanumeric()
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(DomainError::field(
                field,
                format!("must be 1-{MAX_KEY} ASCII letters, digits, '_' or '-', starting with a letter or digit"),
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormField {
    pub key: FieldKey,
    pub label: String,
    pub field_type: FieldType,
    pub required: bool,
    /// Choices of `dropdown`, `multiple_choice` and `checkboxes`; empty for other types.
    pub options: Vec<String>,
    /// Highest star of a `rating` field (default 5); `None` for other types.
    pub max: Option<u8>,
}

/// A field as a client sent it, before validation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawField {
    pub key: Option<String>,
    pub label: Option<String>,
    pub field_type: Option<String>,
    pub required: Option<bool>,
    pub options: Option<Vec<String>>,
    pub max: Option<i64>,
}

impl FormField {
    /// Validates field number `i`; errors are keyed `fields[i].<member>`.
    fn parse(i: usize, raw: &RawField) -> Result<Self, DomainError> {
        let at = |member: &str| format!("fields[{i}].{member}");
        let mut v = Validator::new();
        let key = match raw.key.as_deref() {
            Some(k) => v.check(FieldKey::parse(&at("key"), k)),
            None => v.check(Err(DomainError::field(at("key"), "is required"))),
        };
        let label = match raw.label.as_deref() {
            Some(l) => v.check(text::bounded(&at("label"), l, MAX_LABEL)),
            None => v.check(Err(DomainError::field(at("label"), "is required"))),
        };
        let field_type = match raw.field_type.as_deref().map(|t| (t, FieldType::parse(t))) {
            Some((_, Some(FieldType::System))) => v.check(Err(DomainError::field(
                at("type"),
                "`system` is reserved for the fields the service adds (_formId, _responseId)",
            ))),
            Some((_, Some(t))) => Some(t),
            Some((t, None)) => v.check(Err(DomainError::field(
                at("type"),
                format!("unknown type '{t}'; one of {}", FieldType::declarable_list()),
            ))),
            None => v.check(Err(DomainError::field(at("type"), "is required"))),
        };
        let options = match (field_type, raw.options.as_ref()) {
            (Some(t), Some(opts)) if t.has_options() => v.check(parse_options(&at("options"), opts)),
            (Some(t), None) if t.has_options() => {
                v.check(Err(DomainError::field(at("options"), format!("is required for {} fields", t.as_str()))))
            }
            (Some(_), Some(_)) => v.check(Err(DomainError::field(
                at("options"),
                "only dropdown, multiple_choice and checkboxes fields have options",
            ))),
            _ => Some(Vec::new()),
        };
        let max = match (field_type, raw.max) {
            (Some(FieldType::Rating), None) => Some(Some(DEFAULT_RATING_MAX)),
            (Some(FieldType::Rating), Some(m)) if (1..=i64::from(MAX_RATING_MAX)).contains(&m) => Some(Some(m as u8)),
            (Some(FieldType::Rating), Some(_)) => {
                v.check(Err(DomainError::field(at("max"), format!("must be an integer from 1 to {MAX_RATING_MAX}"))))
            }
            (Some(_), Some(_)) => v.check(Err(DomainError::field(at("max"), "only rating fields have a max"))),
            _ => Some(None),
        };
        v.finish()?;
        let (Some(key), Some(label), Some(field_type), Some(options), Some(max)) =
            (key, label, field_type, options, max)
        else {
            unreachable!("validator finished without errors")
        };
        Ok(Self { key, label, field_type, required: raw.required.unwrap_or(false), options, max })
    }
}

fn parse_options(field: &str, raw: &[String]) -> Result<Vec<String>, DomainError> {
    if raw.is_empty() || raw.len() > MAX_OPTIONS {
        return Err(DomainError::field(field, format!("must list 1 to {MAX_OPTIONS} choices")));
    }
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(raw.len());
    for o in raw {
        let o = text::bounded(field, o, MAX_OPTION)
            .map_err(|_| DomainError::field(field, format!("each choice must be 1-{MAX_OPTION} characters")))?;
        if !seen.insert(o.clone()) {
            return Err(DomainError::field(field, format!("the choice '{o}' is listed twice")));
        }
        out.push(o);
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Form {
    pub id: FormId,
    pub workspace_id: WorkspaceId,
    pub name: String,
    /// In the order the client gave them (echoed in that order, docs/api.md §16.2).
    pub fields: Vec<FormField>,
    pub created_at: Timestamp,
}

/// A validated create request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewForm {
    pub name: String,
    pub fields: Vec<FormField>,
}

impl NewForm {
    pub fn parse(name: Option<&str>, fields: Option<&[RawField]>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = match name {
            Some(n) => v.check(text::bounded("name", n, MAX_FORM_NAME)),
            None => v.check(Err(DomainError::field("name", "is required"))),
        };
        let mut parsed = Vec::new();
        match fields {
            None => {
                v.check::<()>(Err(DomainError::field("fields", "is required")));
            }
            Some(raw) if raw.is_empty() || raw.len() > MAX_FIELDS => {
                v.check::<()>(Err(DomainError::field("fields", format!("must list 1 to {MAX_FIELDS} fields"))));
            }
            Some(raw) => {
                let mut keys = HashSet::new();
                for (i, f) in raw.iter().enumerate() {
                    let field = v.check(FormField::parse(i, f));
                    // Keys are compared as given, so a duplicate is reported even when the
                    // earlier field had other faults.
                    if let Some(k) = f.key.as_deref()
                        && !keys.insert(k)
                    {
                        v.check::<()>(Err(DomainError::field(
                            format!("fields[{i}].key"),
                            format!("the key '{k}' is used by an earlier field"),
                        )));
                    }
                    parsed.extend(field);
                }
            }
        }
        v.finish()?;
        Ok(Self { name: name.unwrap_or_default(), fields: parsed })
    }
}

/// Where a submission came from (`metadata.source`); `direct` when not said (docs/api.md §16.18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ResponseSource {
    #[default]
    Direct,
    Embed,
    Chatbot,
}

impl ResponseSource {
    pub const ALL: [ResponseSource; 3] = [ResponseSource::Direct, ResponseSource::Embed, ResponseSource::Chatbot];

    pub fn as_str(self) -> &'static str {
        match self {
            ResponseSource::Direct => "direct",
            ResponseSource::Embed => "embed",
            ResponseSource::Chatbot => "chatbot",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The `source` member of a submission: absent or null is `direct`.
    pub fn parse_field(s: Option<&str>) -> Result<Self, DomainError> {
        match s {
            None => Ok(Self::Direct),
            Some(s) => {
                Self::parse(s).ok_or_else(|| DomainError::field("source", "must be one of direct, embed, chatbot"))
            }
        }
    }
}

/// A stored submission: the answered fields only, normalised (strings trimmed).
#[derive(Debug, Clone, PartialEq)]
pub struct FormResponse {
    pub id: ResponseId,
    pub workspace_id: WorkspaceId,
    pub form_id: FormId,
    /// The id of the `form_response` event this submission emitted.
    pub event_id: EventId,
    pub source: ResponseSource,
    pub values: BTreeMap<String, Value>,
    pub created_at: Timestamp,
}

impl Form {
    /// Checks a submission's `values` against the fields: required fields present, every
    /// answer of its field's type, no key the form does not have. Absent, `null`, `""` and `[]`
    /// all mean "not answered". Errors are keyed `values.<key>`.
    pub fn validate_values(&self, values: &Map<String, Value>) -> Result<BTreeMap<String, Value>, DomainError> {
        let mut v = Validator::new();
        let mut answers = BTreeMap::new();
        for field in &self.fields {
            let name = format!("values.{}", field.key.as_str());
            match values.get(field.key.as_str()).filter(|x| !is_blank(x)) {
                None if field.required => {
                    v.check::<()>(Err(DomainError::field(name, "is required")));
                }
                None => {}
                Some(value) => {
                    if let Some(ok) = v.check(check_value(field, value).map_err(|why| DomainError::field(&name, why))) {
                        answers.insert(field.key.as_str().to_owned(), ok);
                    }
                }
            }
        }
        for key in values.keys() {
            if !self.fields.iter().any(|f| f.key.as_str() == key) {
                v.check::<()>(Err(DomainError::field(format!("values.{key}"), "is not a field of this form")));
            }
        }
        v.finish()?;
        Ok(answers)
    }

    /// The `form_response` event of a stored submission (the OpenAPI schema of "Form-response event
    /// payload"): every field of the form in order, `null` when unanswered, then the system
    /// fields `_formId` and `_responseId`.
    pub fn response_event(&self, response: &FormResponse) -> Event {
        let mut fields: Vec<Value> = self
            .fields
            .iter()
            .map(|f| {
                json!({
                    "key": f.key.as_str(),
                    "label": f.label,
                    "type": f.field_type.as_str(),
                    "value": response.values.get(f.key.as_str()).cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        fields.push(json!({"key": "_formId", "label": "Form ID", "type": "system", "value": self.id}));
        fields.push(json!({"key": "_responseId", "label": "Response ID", "type": "system", "value": response.id}));
        Event {
            id: response.event_id.clone(),
            event_type: EventType::FormResponse,
            workspace_id: self.workspace_id.clone(),
            created_at: response.created_at,
            data: json!({
                "formId": self.id,
                "formName": self.name,
                "responseId": response.id,
                "fields": fields,
            }),
            metadata: json!({ "source": response.source.as_str() }),
        }
    }

    /// A submission made up from the fields, for samples when the form has no response yet
    /// (docs/api.md §16.19): every field answered with a plausible value of its type.
    pub fn sample_response(&self, at: Timestamp) -> FormResponse {
        let values = self.fields.iter().map(|f| (f.key.as_str().to_owned(), sample_value(f))).collect();
        FormResponse {
            id: ResponseId::generate(),
            workspace_id: self.workspace_id.clone(),
            form_id: self.id.clone(),
            event_id: EventId::generate(),
            source: ResponseSource::Direct,
            values,
            created_at: at,
        }
    }

    /// A form of one field of each declarable type: what a sample shows when a workspace has
    /// no form at all.
    pub fn example(workspace_id: &WorkspaceId, at: Timestamp) -> Self {
        let choices = || vec!["Option A".to_owned(), "Option B".to_owned()];
        let fields = FieldType::ALL
            .into_iter()
            .filter(|t| *t != FieldType::System)
            .map(|t| FormField {
                key: FieldKey(t.as_str().to_owned()),
                label: t.as_str().replace('_', " "),
                field_type: t,
                required: false,
                options: if t.has_options() { choices() } else { Vec::new() },
                max: (t == FieldType::Rating).then_some(DEFAULT_RATING_MAX),
            })
            .collect();
        Self {
            id: FormId::generate(),
            workspace_id: workspace_id.clone(),
            name: "Example form".into(),
            fields,
            created_at: at,
        }
    }
}

fn sample_value(f: &FormField) -> Value {
    let first = || f.options.first().cloned().unwrap_or_default();
    match f.field_type {
        FieldType::ShortText => json!("Sample answer"),
        FieldType::LongText => json!("A longer sample answer.\nIt can span several lines."),
        FieldType::Email => json!("jane.doe@example.com"),
        FieldType::Phone => json!("+1 555 010 0199"),
        FieldType::Number => json!(42),
        FieldType::Date => json!("2026-05-01"),
        FieldType::Dropdown | FieldType::MultipleChoice => json!(first()),
        FieldType::Checkboxes => json!([first()]),
        FieldType::File => json!("https://example.com/files/sample.pdf"),
        FieldType::Signature => json!("https://example.com/files/signature.png"),
        FieldType::Rating => json!(f.max.unwrap_or(DEFAULT_RATING_MAX)),
        FieldType::System => Value::Null,
    }
}

fn is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// One answer against its field; the normalised value, or why it is refused.
fn check_value(field: &FormField, value: &Value) -> Result<Value, String> {
    let string = || value.as_str().map(str::trim).ok_or_else(|| "must be a string".to_owned());
    match field.field_type {
        FieldType::ShortText => {
            let s = string()?;
            if s.contains(['\n', '\r']) {
                return Err("must be a single line".into());
            }
            bounded_text(s, MAX_SHORT_TEXT)
        }
        FieldType::LongText => bounded_text(string()?, MAX_LONG_TEXT),
        FieldType::Email => {
            let s = string()?;
            if is_email(s) { Ok(json!(s)) } else { Err("must be an e-mail address (name@example.com)".into()) }
        }
        FieldType::Phone => {
            let s = string()?;
            if is_phone(s) {
                Ok(json!(s))
            } else {
                Err("must be a phone number: 7 to 15 digits, optionally with a leading '+', spaces, '-', '.', '(' and ')'"
                    .into())
            }
        }
        FieldType::Number => match value {
            Value::Number(_) => Ok(value.clone()),
            _ => Err("must be a JSON number".into()),
        },
        FieldType::Date => {
            let s = string()?;
            if is_date(s) { Ok(json!(s)) } else { Err("must be a calendar date written YYYY-MM-DD".into()) }
        }
        FieldType::Dropdown | FieldType::MultipleChoice => {
            let s = string()?;
            if field.options.iter().any(|o| o == s) {
                Ok(json!(s))
            } else {
                Err(format!("must be one of the field's options: {}", field.options.join(", ")))
            }
        }
        FieldType::Checkboxes => {
            let items = value.as_array().ok_or("must be an array of the field's options")?;
            let mut chosen: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                let s = item.as_str().map(str::trim).ok_or("must be an array of strings")?;
                if !field.options.iter().any(|o| o == s) {
                    return Err(format!("'{s}' is not one of the field's options: {}", field.options.join(", ")));
                }
                if chosen.iter().any(|c| c == s) {
                    return Err(format!("'{s}' is chosen twice"));
                }
                chosen.push(s.to_owned());
            }
            Ok(json!(chosen))
        }
        FieldType::File | FieldType::Signature => {
            let s = string()?;
            if is_http_url(s) { Ok(json!(s)) } else { Err("must be an http(s) URL".into()) }
        }
        FieldType::Rating => {
            let max = field.max.unwrap_or(DEFAULT_RATING_MAX);
            match value.as_i64() {
                Some(n) if (1..=i64::from(max)).contains(&n) => Ok(json!(n)),
                _ => Err(format!("must be an integer from 1 to {max}")),
            }
        }
        FieldType::System => Err("cannot be submitted".into()),
    }
}

fn bounded_text(s: &str, max: usize) -> Result<Value, String> {
    if s.chars().count() > max { Err(format!("must be at most {max} characters")) } else { Ok(json!(s)) }
}

/// A pragmatic address check: `local@domain` in ASCII, local part of the RFC 5322 "atext"
/// characters and dots, a domain of at least two DNS labels. Deliverability is the sender's
/// business, not ours.
pub fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else { return false };
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+/=?^_`{|}~.-".contains(&b));
    let labels: Vec<&str> = domain.split('.').collect();
    let domain_ok = domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
        && labels.last().is_some_and(|tld| tld.bytes().any(|b| b.is_ascii_alphabetic()));
    s.len() <= 254 && local_ok && domain_ok
}

/// 7 to 15 digits (E.164's longest), with the separators people type; `+` only first.
pub fn is_phone(s: &str) -> bool {
    let digits = s.bytes().filter(u8::is_ascii_digit).count();
    let body = s.strip_prefix('+').unwrap_or(s);
    (7..=15).contains(&digits) && body.bytes().all(|b| b.is_ascii_digit() || b" -.()".contains(&b))
}

/// `YYYY-MM-DD`, a real calendar day.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
}

/// An absolute `http` or `https` URL with a host and no whitespace.
pub fn is_http_url(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &s[8..]
    } else if lower.starts_with("http://") {
        &s[7..]
    } else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    s.len() <= MAX_URL
        && !host.is_empty()
        && !host.starts_with(':')
        && !s.chars().any(|c| c.is_whitespace() || c.is_control())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn raw(key: &str, t: &str) -> RawField {
        RawField { key: Some(key.into()), label: Some(key.into()), field_type: Some(t.into()), ..Default::default() }
    }

    fn form(fields: Vec<RawField>) -> Form {
        let new = NewForm::parse(Some("F"), Some(&fields)).unwrap();
        Form {
            id: FormId::generate(),
            workspace_id: WorkspaceId::generate(),
            name: new.name,
            fields: new.fields,
            created_at: Timestamp::from_millis(0),
        }
    }

    #[test]
    fn every_type_but_system_can_be_declared() {
        for t in FieldType::ALL {
            let mut f = raw("k", t.as_str());
            if t.has_options() {
                f.options = Some(vec!["a".into()]);
            }
            let r = NewForm::parse(Some("F"), Some(&[f]));
            assert_eq!(r.is_ok(), t != FieldType::System, "{t:?}: {r:?}");
        }
    }

    #[test]
    fn form_errors_name_each_field_member() {
        let mut bad_opts = raw("c", "dropdown");
        bad_opts.options = Some(vec!["x".into(), "x".into()]);
        let mut stray_max = raw("t", "short_text");
        stray_max.max = Some(3);
        let e = NewForm::parse(
            None,
            Some(&[raw("_x", "short_text"), raw("ok", "colour"), bad_opts, stray_max, raw("ok", "number")]),
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        let keys: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["fields[0].key", "fields[1].type", "fields[2].options", "fields[3].max", "fields[4].key", "name"]
        );
        assert!(NewForm::parse(Some("F"), Some(&[])).unwrap_err().fields.contains_key("fields"));
        assert!(NewForm::parse(Some("F"), None).unwrap_err().fields.contains_key("fields"));
        let mut rating = raw("r", "rating");
        rating.max = Some(11);
        assert!(NewForm::parse(Some("F"), Some(&[rating])).unwrap_err().fields.contains_key("fields[0].max"));
    }

    #[test]
    fn values_are_checked_by_type() {
        let mut choice = raw("plan", "dropdown");
        choice.options = Some(vec!["basic".into(), "pro".into()]);
        let mut boxes = raw("tags", "checkboxes");
        boxes.options = Some(vec!["a".into(), "b".into()]);
        let mut email = raw("email", "email");
        email.required = Some(true);
        let f = form(vec![
            email,
            raw("phone", "phone"),
            raw("n", "number"),
            raw("d", "date"),
            choice,
            boxes,
            raw("file", "file"),
            raw("stars", "rating"),
        ]);
        let ok = json!({"email": " a.b@example.co.uk ", "phone": "+44 (20) 7946-0958", "n": 1.5, "d": "2024-02-29",
                        "plan": "pro", "tags": ["b", "a"], "file": "https://cdn.example.com/x.pdf", "stars": 5});
        let answers = f.validate_values(ok.as_object().unwrap()).unwrap();
        assert_eq!(answers["email"], "a.b@example.co.uk", "trimmed");
        assert_eq!(answers["tags"], json!(["b", "a"]));

        let bad = json!({"phone": "12", "n": "3", "d": "2023-02-29", "plan": "gold", "tags": ["a", "a"],
                         "file": "ftp://x/y", "stars": 6, "extra": 1});
        let e = f.validate_values(bad.as_object().unwrap()).unwrap_err();
        let keys: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "values.d",
                "values.email",
                "values.extra",
                "values.file",
                "values.n",
                "values.phone",
                "values.plan",
                "values.stars",
                "values.tags"
            ]
        );
        assert_eq!(e.fields["values.email"], "is required");
        let blank = json!({"email": "x@y.io", "phone": "", "tags": [], "n": null});
        let answers = f.validate_values(blank.as_object().unwrap()).unwrap();
        assert_eq!(answers.len(), 1, "blank optional answers are unanswered: {answers:?}");
    }

    #[test]
    fn value_checkers() {
        for good in ["a@b.co", "first.last+tag@sub.example.org", "x@localhost.dev"] {
            assert!(is_email(good), "{good}");
        }
        for bad in ["", "a", "a@b", "@b.co", "a@.co", "a..b@c.co", "a b@c.co", "a@b_c.co", "a@b.123", "a@-b.co"] {
            assert!(!is_email(bad), "{bad}");
        }
        assert!(is_phone("+15550100199") && is_phone("555 0100") && !is_phone("555-01") && !is_phone("12+3456789"));
        assert!(!is_phone("phone 5550100199"));
        assert!(is_date("2026-05-01") && !is_date("2026-5-1") && !is_date("2026-13-01") && !is_date("01/05/2026"));
        assert!(is_http_url("http://x.io") && is_http_url("HTTPS://x.io/a?b#c"));
        assert!(!is_http_url("https://") && !is_http_url("javascript:alert(1)") && !is_http_url("https://a b.io"));
    }

    #[test]
    fn events_list_every_field_then_the_system_fields() {
        let f = form(vec![raw("name", "short_text"), raw("age", "number")]);
        let mut values = BTreeMap::new();
        values.insert("name".to_owned(), json!("Ada"));
        let r = FormResponse {
            id: ResponseId::generate(),
            workspace_id: f.workspace_id.clone(),
            form_id: f.id.clone(),
            event_id: EventId::generate(),
            source: ResponseSource::Embed,
            values,
            created_at: Timestamp::from_millis(1_777_636_800_123),
        };
        let env = f.response_event(&r).envelope();
        assert_eq!(env["eventType"], "form_response");
        assert_eq!(env["eventId"], r.event_id.as_str());
        assert_eq!(env["createdAt"], "2026-05-01T12:00:00.123Z");
        assert_eq!(env["metadata"], json!({"source": "embed"}));
        let fields = env["data"]["fields"].as_array().unwrap();
        assert_eq!(fields[0], json!({"key": "name", "label": "name", "type": "short_text", "value": "Ada"}));
        assert_eq!(fields[1]["value"], Value::Null);
        assert_eq!(fields[2], json!({"key": "_formId", "label": "Form ID", "type": "system", "value": f.id}));
        assert_eq!(fields[3]["key"], "_responseId");
    }

    #[test]
    fn samples_answer_every_field_validly() {
        let ex = Form::example(&WorkspaceId::generate(), Timestamp::now());
        assert_eq!(ex.fields.len(), 12);
        let sample = ex.sample_response(Timestamp::now());
        let values: Map<String, Value> = sample.values.clone().into_iter().collect();
        assert_eq!(ex.validate_values(&values).unwrap().len(), 12, "a sample passes its own form's checks");
    }
}
