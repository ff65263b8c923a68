//! The workspace's audit log (docs/api.md §22, "Audit log"; issue 60): one entry per change of
//! the workspace's keys, assistants, sources, identity secrets and webhooks, per erasure and per
//! conversations export — who made it (the key), what, on which resource, when.
//!
//! An entry never holds a secret: its `details` are names and the names of changed fields, made
//! here from values that are not secrets ([`AuditDetails`]), never from a key's, webhook's or
//! identity secret or a header's value. Entries are kept [`AUDIT_RETENTION_DAYS`] days.

use crate::Timestamp;
use crate::id::{ApiKeyId, AuditId, WorkspaceId};
use serde_json::{Map, Value};

/// How long an entry is kept.
pub const AUDIT_RETENTION_DAYS: i64 = 365;

const DAY_MS: i64 = 86_400_000;

/// What an entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AuditAction {
    KeyCreated,
    KeyRevoked,
    ChatbotCreated,
    ChatbotUpdated,
    ChatbotDeleted,
    ChatbotPublished,
    MindCreated,
    MindUpdated,
    MindDeleted,
    MindPublished,
    SourceDeleted,
    IdentitySecretCreated,
    WebhookSubscribed,
    WebhookUnsubscribed,
    WebhookSecretRotated,
    PrivacyErased,
    ConversationExported,
}

impl AuditAction {
    pub const ALL: [AuditAction; 17] = [
        Self::KeyCreated,
        Self::KeyRevoked,
        Self::ChatbotCreated,
        Self::ChatbotUpdated,
        Self::ChatbotDeleted,
        Self::ChatbotPublished,
        Self::MindCreated,
        Self::MindUpdated,
        Self::MindDeleted,
        Self::MindPublished,
        Self::SourceDeleted,
        Self::IdentitySecretCreated,
        Self::WebhookSubscribed,
        Self::WebhookUnsubscribed,
        Self::WebhookSecretRotated,
        Self::PrivacyErased,
        Self::ConversationExported,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::KeyCreated => "key.created",
            Self::KeyRevoked => "key.revoked",
            Self::ChatbotCreated => "chatbot.created",
            Self::ChatbotUpdated => "chatbot.updated",
            Self::ChatbotDeleted => "chatbot.deleted",
            Self::ChatbotPublished => "chatbot.published",
            Self::MindCreated => "mind.created",
            Self::MindUpdated => "mind.updated",
            Self::MindDeleted => "mind.deleted",
            Self::MindPublished => "mind.published",
            Self::SourceDeleted => "source.deleted",
            Self::IdentitySecretCreated => "identity_secret.created",
            Self::WebhookSubscribed => "webhook.subscribed",
            Self::WebhookUnsubscribed => "webhook.unsubscribed",
            Self::WebhookSecretRotated => "webhook.secret_rotated",
            Self::PrivacyErased => "privacy.erased",
            Self::ConversationExported => "conversation.exported",
        }
    }

    /// The action of its stored or requested name; `None` for any other text.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

impl std::fmt::Display for AuditAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An entry's `details`: a small JSON object of names, counts and flags. Built only through its
/// methods, which take what may be shown (a name, field names, a count), so no secret value
/// can be put in one by accident.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuditDetails(Map<String, Value>);

impl AuditDetails {
    pub fn new() -> Self {
        Self::default()
    }

    /// A name or another short text that is not a secret (a chatbot's name, a webhook's URL
    /// without its query, an event type). Cut to 200 characters.
    pub fn text(mut self, key: &str, value: &str) -> Self {
        self.0.insert(key.to_owned(), Value::String(value.chars().take(200).collect()));
        self
    }

    pub fn count(mut self, key: &str, value: u64) -> Self {
        self.0.insert(key.to_owned(), Value::from(value));
        self
    }

    pub fn flag(mut self, key: &str, value: bool) -> Self {
        self.0.insert(key.to_owned(), Value::Bool(value));
        self
    }

    /// Names (of changed fields, of scopes, of event types), never values.
    pub fn names<'a>(mut self, key: &str, names: impl IntoIterator<Item = &'a str>) -> Self {
        let list = names.into_iter().map(|n| Value::String(n.to_owned())).collect();
        self.0.insert(key.to_owned(), Value::Array(list));
        self
    }

    pub fn as_map(&self) -> &Map<String, Value> {
        &self.0
    }

    pub fn into_value(self) -> Value {
        Value::Object(self.0)
    }

    /// What a store kept (`to_json`); anything but an object reads as empty details.
    pub fn from_stored(json: &str) -> Self {
        match serde_json::from_str(json) {
            Ok(Value::Object(map)) => Self(map),
            _ => Self::default(),
        }
    }

    pub fn to_json(&self) -> String {
        Value::Object(self.0.clone()).to_string()
    }
}

/// One entry of the audit log.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry {
    pub id: AuditId,
    pub workspace_id: WorkspaceId,
    pub at: Timestamp,
    /// The API key that made the change; `None` when the `lore` CLI or Lore itself did.
    pub key_id: Option<ApiKeyId>,
    pub action: AuditAction,
    /// The id of what changed (a key, a chatbot, a webhook…); for an erasure or a visitor's
    /// export, the workspace.
    pub target_id: String,
    pub details: AuditDetails,
}

impl AuditEntry {
    pub fn new(
        workspace_id: WorkspaceId,
        key_id: Option<ApiKeyId>,
        action: AuditAction,
        target_id: impl Into<String>,
        details: AuditDetails,
    ) -> Self {
        Self {
            id: AuditId::generate(),
            workspace_id,
            at: Timestamp::now(),
            key_id,
            action,
            target_id: target_id.into(),
            details,
        }
    }

    /// When the entry is deleted: [`AUDIT_RETENTION_DAYS`] after it was written.
    pub fn expires_at(&self) -> Timestamp {
        Timestamp::from_millis(self.at.millis() + AUDIT_RETENTION_DAYS * DAY_MS)
    }

    /// Entries written before this are past their retention at `now`.
    pub fn cutoff(now: Timestamp) -> Timestamp {
        Timestamp::from_millis(now.millis() - AUDIT_RETENTION_DAYS * DAY_MS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_parses_from_its_name() {
        for a in AuditAction::ALL {
            assert_eq!(AuditAction::parse(a.as_str()), Some(a));
        }
        assert_eq!(AuditAction::parse("key.deleted"), None);
        assert_eq!(AuditAction::parse(""), None);
    }

    #[test]
    fn details_round_trip_and_cut_long_text() {
        let d = AuditDetails::new().text("name", &"x".repeat(300)).names("fields", ["name", "slug"]).count("n", 2);
        let back = AuditDetails::from_stored(&d.to_json());
        assert_eq!(back, d);
        assert_eq!(back.as_map()["name"].as_str().unwrap().len(), 200);
        assert_eq!(AuditDetails::from_stored("[1]"), AuditDetails::new());
    }

    #[test]
    fn entries_expire_after_a_year() {
        let mut e =
            AuditEntry::new(WorkspaceId::generate(), None, AuditAction::KeyCreated, "key_x", AuditDetails::new());
        e.at = Timestamp::from_millis(1_000);
        assert_eq!(e.expires_at().millis(), 1_000 + 365 * DAY_MS);
        assert!(AuditEntry::cutoff(e.expires_at()).millis() == e.at.millis());
    }
}
