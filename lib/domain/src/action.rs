//! Actions (docs/api.md §23): HTTP endpoints of the owner's that a language model may call while
//! it answers (look up an order, book a meeting, open a ticket). An action is offered to the
//! model as a tool; the model's arguments are checked against the action's JSON Schema before
//! anything is called.

use crate::error::{DomainError, ErrorCode};
use crate::hook::WebhookSecret;
use crate::id::{ActionId, WorkspaceId};
use crate::mind::Field;
use crate::source::SourceOwner;
use crate::time::Timestamp;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

/// Actions one chatbot or Mind may have.
pub const MAX_ACTIONS_PER_OWNER: u32 = 20;
/// Calls one answer may make; a model that asks for more is told it may not.
pub const MAX_CALLS_PER_TURN: usize = 3;
pub const MAX_NAME_CHARS: usize = 64;
pub const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// The JSON Schema of an action's arguments, serialised, at most.
pub const MAX_PARAMETERS_BYTES: usize = 8 * 1024;
pub const MAX_HEADERS: usize = 10;
pub const MAX_HEADER_VALUE_CHARS: usize = 4_096;
pub const MAX_URL_CHARS: usize = 2_048;
/// The longest a call may take, connection to last byte.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// Bytes of an answer that are read and handed to the model; the rest is dropped unread.
pub const MAX_ANSWER_BYTES: usize = 64 * 1024;
/// The arguments a call record keeps, serialised, at most (a model can write a lot).
pub const MAX_RECORDED_ARGUMENTS_BYTES: usize = 4 * 1024;
/// What a header's value reads as whenever an action is shown: header values are secrets.
pub const HIDDEN_VALUE: &str = "•••";

/// Headers an owner may not set: Lore sets them (the signature, the identity, the body's type)
/// or the HTTP client does.
const RESERVED_HEADERS: [&str; 11] = [
    "content-type",
    "content-length",
    "host",
    "connection",
    "transfer-encoding",
    "user-agent",
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
    "x-lore-user-id",
    "te",
];

/// `^[a-z][a-z0-9_]{0,63}$`: what a model calls the action by, unique per owner.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionName(String);

impl ActionName {
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        let mut chars = s.chars();
        let first_ok = chars.next().is_some_and(|c| c.is_ascii_lowercase());
        let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !first_ok || !rest_ok || s.len() > MAX_NAME_CHARS {
            return Err(DomainError::field(
                "name",
                "must start with a lower-case letter and hold only a-z, 0-9 and _ (at most 64)",
            ));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ActionMethod {
    Get,
    #[default]
    Post,
}

impl ActionMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "GET",
            Self::Post => "POST",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "GET" => Some(Self::Get),
            "POST" => Some(Self::Post),
            _ => None,
        }
    }
}

/// A JSON Schema object describing an action's arguments (`type: "object"`, ≤ 8 KB), known to
/// compile. Checked with a maintained validator (`jsonschema`), never a hand-written subset.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameters(Value);

impl Parameters {
    pub fn parse(value: Value) -> Result<Self, DomainError> {
        const FIELD: &str = "parameters";
        let Value::Object(map) = &value else {
            return Err(DomainError::field(FIELD, "must be a JSON Schema object"));
        };
        if map.get("type").and_then(Value::as_str) != Some("object") {
            return Err(DomainError::field(FIELD, "must have \"type\": \"object\""));
        }
        if serde_json::to_vec(&value).map_or(usize::MAX, |b| b.len()) > MAX_PARAMETERS_BYTES {
            return Err(DomainError::field(FIELD, format!("must be at most {MAX_PARAMETERS_BYTES} bytes")));
        }
        if let Err(e) = jsonschema::meta::validate(&value) {
            return Err(DomainError::field(FIELD, format!("is not a valid JSON Schema: {e}")));
        }
        if let Err(e) = jsonschema::validator_for(&value) {
            return Err(DomainError::field(FIELD, format!("is not a usable JSON Schema: {e}")));
        }
        Ok(Self(value))
    }

    /// A schema stored after [`Parameters::parse`] accepted it.
    pub fn from_stored(value: Value) -> Self {
        Self(value)
    }

    pub fn as_value(&self) -> &Value {
        &self.0
    }

    /// Whether `arguments` satisfy the schema; else what is wrong, in a sentence a model can
    /// act on (at most three problems).
    pub fn check(&self, arguments: &Value) -> Result<(), String> {
        let validator = jsonschema::validator_for(&self.0).map_err(|e| format!("the schema is unusable: {e}"))?;
        let problems: Vec<String> = validator
            .iter_errors(arguments)
            .take(3)
            .map(|e| {
                let at = e.instance_path().to_string();
                if at.is_empty() { e.to_string() } else { format!("{at}: {e}") }
            })
            .collect();
        if problems.is_empty() { Ok(()) } else { Err(problems.join("; ")) }
    }
}

/// One header the owner's endpoint wants (an API key, say). Its value is a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ActionHeader {
    /// Lower-case.
    pub name: String,
    pub value: String,
}

impl std::fmt::Debug for ActionHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ActionHeader({}: <redacted>)", self.name)
    }
}

/// What an action is and does.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionSpec {
    pub name: ActionName,
    pub description: String,
    /// http(s); checked against the request protection rules when set and again when called.
    pub url: String,
    pub method: ActionMethod,
    pub parameters: Parameters,
    pub headers: Vec<ActionHeader>,
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub id: ActionId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub spec: ActionSpec,
    /// Signs every call (Standard Webhooks), so the endpoint can tell Lore's calls from others.
    pub signing_secret: WebhookSecret,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Action {
    pub fn new(workspace_id: WorkspaceId, owner: SourceOwner, spec: ActionSpec, now: Timestamp) -> Self {
        Self {
            id: ActionId::generate(),
            workspace_id,
            owner,
            spec,
            signing_secret: WebhookSecret::generate(),
            created_at: now,
            updated_at: now,
        }
    }
}

/// The members of a create or PATCH body as the client sent them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawActionSpec {
    pub name: Field<String>,
    pub description: Field<String>,
    pub url: Field<String>,
    pub method: Field<String>,
    pub parameters: Field<Value>,
    pub headers: Field<BTreeMap<String, String>>,
    pub enabled: Field<bool>,
}

/// A validated PATCH: `None` keeps the member.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ActionPatch {
    name: Option<ActionName>,
    description: Option<String>,
    url: Option<String>,
    method: Option<ActionMethod>,
    parameters: Option<Parameters>,
    /// A value of [`HIDDEN_VALUE`] keeps the header's stored value (a client may send back what
    /// it read).
    headers: Option<Vec<ActionHeader>>,
    enabled: Option<bool>,
}

fn required<'a, T>(field: &str, v: &'a Field<T>) -> Result<Option<&'a T>, DomainError> {
    match v {
        Field::Absent => Ok(None),
        Field::Null => Err(DomainError::field(field, "is required")),
        Field::Value(t) => Ok(Some(t)),
    }
}

fn url(v: &Field<String>) -> Result<Option<String>, DomainError> {
    let Some(s) = required("url", v)? else { return Ok(None) };
    let s = s.trim();
    let lower = s.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(DomainError::new(ErrorCode::InvalidUrl, "`url` must be an http(s) URL"));
    }
    if s.chars().count() > MAX_URL_CHARS {
        return Err(DomainError::new(
            ErrorCode::InvalidUrl,
            format!("`url` must be at most {MAX_URL_CHARS} characters"),
        ));
    }
    Ok(Some(s.to_owned()))
}

fn header_name(name: &str) -> Result<String, DomainError> {
    let lower = name.trim().to_ascii_lowercase();
    let token = !lower.is_empty()
        && lower.len() <= 100
        && lower.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token {
        return Err(DomainError::field("headers", format!("{name:?} is not a header name")));
    }
    if RESERVED_HEADERS.contains(&lower.as_str()) {
        return Err(DomainError::field("headers", format!("{lower} is set by Lore and cannot be set here")));
    }
    Ok(lower)
}

fn headers(v: &Field<BTreeMap<String, String>>) -> Result<Option<Vec<ActionHeader>>, DomainError> {
    let map = match v {
        Field::Absent => return Ok(None),
        Field::Null => return Ok(Some(Vec::new())),
        Field::Value(map) => map,
    };
    if map.len() > MAX_HEADERS {
        return Err(DomainError::field("headers", format!("holds at most {MAX_HEADERS} headers")));
    }
    let mut out: Vec<ActionHeader> = Vec::with_capacity(map.len());
    for (name, value) in map {
        let name = header_name(name)?;
        let bad_value = value.chars().count() > MAX_HEADER_VALUE_CHARS
            || value.chars().any(|c| c.is_control() && c != '\t')
            || !value.is_ascii() && value != HIDDEN_VALUE;
        if bad_value {
            return Err(DomainError::field(
                "headers",
                format!("the value of {name} must be printable ASCII of at most {MAX_HEADER_VALUE_CHARS} characters"),
            ));
        }
        if out.iter().any(|h| h.name == name) {
            return Err(DomainError::field("headers", format!("{name} is given twice")));
        }
        out.push(ActionHeader { name, value: value.trim().to_owned() });
    }
    Ok(Some(out))
}

impl ActionPatch {
    /// Every refused member at once.
    pub fn parse(raw: &RawActionSpec) -> Result<Self, DomainError> {
        let name = required("name", &raw.name).and_then(|n| n.map(|n| ActionName::parse(n.trim())).transpose());
        let description = required("description", &raw.description)
            .and_then(|d| d.map(|d| crate::text::bounded("description", d, MAX_DESCRIPTION_CHARS)).transpose());
        let url = url(&raw.url);
        let method = required("method", &raw.method).and_then(|m| {
            m.map(|m| ActionMethod::parse(m).ok_or_else(|| DomainError::field("method", "must be \"GET\" or \"POST\"")))
                .transpose()
        });
        let parameters =
            required("parameters", &raw.parameters).and_then(|p| p.map(|p| Parameters::parse(p.clone())).transpose());
        let headers = headers(&raw.headers);
        let enabled = required("enabled", &raw.enabled).map(|e| e.copied());
        match (name, description, url, method, parameters, headers, enabled) {
            (Ok(name), Ok(description), Ok(url), Ok(method), Ok(parameters), Ok(headers), Ok(enabled)) => {
                Ok(Self { name, description, url, method, parameters, headers, enabled })
            }
            (a, b, c, d, e, f, g) => Err(DomainError::merge(
                [a.err(), b.err(), c.err(), d.err(), e.err(), f.err(), g.err()].into_iter().flatten(),
            )
            .unwrap_or_else(|| DomainError::field("body", "is not a valid action"))),
        }
    }

    /// The URL the patch sets (the caller checks it against the request protection rules).
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    /// The spec of a new action: name, description, url and parameters are required.
    pub fn into_spec(self) -> Result<ActionSpec, DomainError> {
        let missing: Vec<DomainError> = [
            ("name", self.name.is_none()),
            ("description", self.description.is_none()),
            ("url", self.url.is_none()),
            ("parameters", self.parameters.is_none()),
        ]
        .into_iter()
        .filter(|(_, missing)| *missing)
        .map(|(field, _)| DomainError::field(field, "is required"))
        .collect();
        if let Some(e) = DomainError::merge(missing) {
            return Err(e);
        }
        let (Some(name), Some(description), Some(url), Some(parameters)) =
            (self.name, self.description, self.url, self.parameters)
        else {
            return Err(DomainError::field("body", "is not a valid action"));
        };
        let headers = self.headers.unwrap_or_default();
        if let Some(h) = headers.iter().find(|h| h.value == HIDDEN_VALUE) {
            return Err(DomainError::field("headers", format!("{} needs its value", h.name)));
        }
        Ok(ActionSpec {
            name,
            description,
            url,
            method: self.method.unwrap_or_default(),
            parameters,
            headers,
            enabled: self.enabled.unwrap_or(true),
        })
    }

    /// Applies the patch; a header sent back as [`HIDDEN_VALUE`] keeps its stored value, and one
    /// that has none is refused.
    pub fn apply(self, spec: &mut ActionSpec) -> Result<(), DomainError> {
        if let Some(mut headers) = self.headers {
            for h in &mut headers {
                if h.value == HIDDEN_VALUE {
                    let kept = spec.headers.iter().find(|old| old.name == h.name);
                    let kept =
                        kept.ok_or_else(|| DomainError::field("headers", format!("{} needs its value", h.name)))?;
                    h.value = kept.value.clone();
                }
            }
            spec.headers = headers;
        }
        if let Some(n) = self.name {
            spec.name = n;
        }
        if let Some(d) = self.description {
            spec.description = d;
        }
        if let Some(u) = self.url {
            spec.url = u;
        }
        if let Some(m) = self.method {
            spec.method = m;
        }
        if let Some(p) = self.parameters {
            spec.parameters = p;
        }
        if let Some(e) = self.enabled {
            spec.enabled = e;
        }
        Ok(())
    }
}

// ---- calls -------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    /// The endpoint answered 2xx.
    Ok,
    /// It answered otherwise, or could not be reached (refused by request protection included).
    Error,
    /// The model's arguments did not satisfy the schema (or named no enabled action): nothing
    /// was called.
    Invalid,
    /// No whole answer within [`CALL_TIMEOUT`].
    Timeout,
}

impl CallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Error => "error",
            Self::Invalid => "invalid",
            Self::Timeout => "timeout",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ok" => Some(Self::Ok),
            "error" => Some(Self::Error),
            "invalid" => Some(Self::Invalid),
            "timeout" => Some(Self::Timeout),
            _ => None,
        }
    }
}

/// One call an answer made (or refused to make), as its message records it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionCall {
    /// `None` when the model named no action of the owner's.
    pub action_id: Option<ActionId>,
    pub name: String,
    pub arguments: Value,
    pub status: CallStatus,
    pub http_status: Option<u16>,
    pub took_ms: u64,
}

impl ActionCall {
    /// The model's argument text as a record keeps it: the JSON it is, or the text itself when it
    /// is none; cut to [`MAX_RECORDED_ARGUMENTS_BYTES`].
    pub fn recorded_arguments(text: &str) -> Value {
        match serde_json::from_str::<Value>(text) {
            Ok(v) if serde_json::to_vec(&v).map_or(usize::MAX, |b| b.len()) <= MAX_RECORDED_ARGUMENTS_BYTES => v,
            _ => Value::String(text.chars().take(MAX_RECORDED_ARGUMENTS_BYTES / 4).collect()),
        }
    }
}

/// The query string of a GET call: each top-level member of the arguments, strings as they are,
/// other values as their JSON text (in the members' order).
pub fn query_pairs(arguments: &Value) -> Vec<(String, String)> {
    let Value::Object(map) = arguments else { return Vec::new() };
    map.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_owned)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(body: Value) -> RawActionSpec {
        let map = body.as_object().unwrap();
        let s = |k: &str| match map.get(k) {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(v) => Field::Value(v.as_str().unwrap().to_owned()),
        };
        RawActionSpec {
            name: s("name"),
            description: s("description"),
            url: s("url"),
            method: s("method"),
            parameters: map.get("parameters").cloned().map_or(Field::Absent, Field::Value),
            headers: map
                .get("headers")
                .map_or(Field::Absent, |h| Field::Value(serde_json::from_value(h.clone()).unwrap())),
            enabled: map.get("enabled").and_then(Value::as_bool).map_or(Field::Absent, Field::Value),
        }
    }

    fn order_schema() -> Value {
        json!({"type": "object", "properties": {"orderId": {"type": "string", "pattern": "^[0-9]{4,}$"}},
            "required": ["orderId"], "additionalProperties": false})
    }

    #[test]
    fn names_follow_the_pattern() {
        for ok in ["a", "lookup_order", "a1_b2", &"x".repeat(64)] {
            assert!(ActionName::parse(ok).is_ok(), "{ok}");
        }
        for bad in ["", "1a", "_a", "Lookup", "look-up", "look up", "é", &"x".repeat(65)] {
            assert!(ActionName::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_create_body_needs_its_members_and_says_every_problem_at_once() {
        let e = ActionPatch::parse(&raw(json!({"name": "Bad", "method": "PUT", "parameters": {"type": "string"}})))
            .unwrap_err();
        for field in ["name", "method", "parameters"] {
            assert!(e.fields.contains_key(field), "{field}: {e:?}");
        }
        let e = ActionPatch::parse(&raw(json!({}))).unwrap().into_spec().unwrap_err();
        for field in ["name", "description", "url", "parameters"] {
            assert!(e.fields.contains_key(field), "{field}: {e:?}");
        }
        let spec = ActionPatch::parse(&raw(json!({"name": "lookup_order", "description": "Finds an order",
            "url": "https://shop.example/orders", "parameters": order_schema()})))
        .unwrap()
        .into_spec()
        .unwrap();
        assert_eq!((spec.method, spec.enabled, spec.headers.len()), (ActionMethod::Post, true, 0));
    }

    #[test]
    fn schemas_are_checked_by_the_validator() {
        assert!(Parameters::parse(json!({"type": "object", "properties": {"n": {"type": "nope"}}})).is_err());
        assert!(Parameters::parse(json!({"type": "object", "properties": {"n": {"minimum": "x"}}})).is_err());
        assert!(Parameters::parse(json!({"properties": {}})).is_err(), "type object is required");
        let big = json!({"type": "object", "description": "x".repeat(MAX_PARAMETERS_BYTES)});
        assert!(Parameters::parse(big).is_err());
        let p = Parameters::parse(order_schema()).unwrap();
        assert!(p.check(&json!({"orderId": "12345"})).is_ok());
        let why = p.check(&json!({"orderId": "12"})).unwrap_err();
        assert!(why.contains("/orderId"), "{why}");
        assert!(p.check(&json!({"orderId": "12345", "x": 1})).is_err());
        assert!(p.check(&json!("12345")).is_err());
    }

    #[test]
    fn headers_are_checked_and_hidden_values_keep_the_stored_ones() {
        let e = ActionPatch::parse(&raw(json!({"headers": {"Webhook-Signature": "x"}}))).unwrap_err();
        assert!(e.message.contains("set by Lore") || e.fields["headers"].contains("set by Lore"), "{e:?}");
        assert!(ActionPatch::parse(&raw(json!({"headers": {"bad name": "x"}}))).is_err());
        assert!(ActionPatch::parse(&raw(json!({"headers": {"x-k": "a\nb"}}))).is_err());
        let mut spec = ActionPatch::parse(&raw(json!({"name": "a", "description": "d", "url": "https://e.example",
            "parameters": order_schema(), "headers": {"Authorization": "Bearer s3cret", "X-Shop": "1"}})))
        .unwrap()
        .into_spec()
        .unwrap();
        assert_eq!(spec.headers[0].name, "authorization", "names are lower-cased");
        let patch =
            ActionPatch::parse(&raw(json!({"headers": {"authorization": HIDDEN_VALUE, "x-new": "2"}}))).unwrap();
        patch.apply(&mut spec).unwrap();
        let got: Vec<(&str, &str)> = spec.headers.iter().map(|h| (h.name.as_str(), h.value.as_str())).collect();
        assert_eq!(got, [("authorization", "Bearer s3cret"), ("x-new", "2")]);
        let unknown = ActionPatch::parse(&raw(json!({"headers": {"x-other": HIDDEN_VALUE}}))).unwrap();
        assert!(unknown.apply(&mut spec).is_err(), "a hidden value with nothing stored is refused");
        assert!(!format!("{:?}", spec.headers).contains("s3cret"), "Debug never shows a value");
    }

    #[test]
    fn urls_must_be_http() {
        for bad in ["ftp://x.example", "javascript:alert(1)", "example.com/path"] {
            let e = ActionPatch::parse(&raw(json!({"url": bad}))).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidUrl, "{bad}");
        }
    }

    #[test]
    fn query_pairs_and_recorded_arguments() {
        let q = query_pairs(&json!({"id": "A1", "n": 2, "ok": true, "skip": null, "tags": ["a"]}));
        let q: Vec<(&str, &str)> = q.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(q, [("id", "A1"), ("n", "2"), ("ok", "true"), ("tags", "[\"a\"]")]);
        assert_eq!(ActionCall::recorded_arguments("{\"a\":1}"), json!({"a": 1}));
        assert_eq!(ActionCall::recorded_arguments("not json"), json!("not json"));
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(10_000));
        assert!(ActionCall::recorded_arguments(&long).as_str().unwrap().chars().count() <= 1_024);
    }
}
