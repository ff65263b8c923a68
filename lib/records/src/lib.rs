//! The stored shapes of Lore's records: for every document that both backends persist (a
//! source's spec and progress, a form's fields, a delivery's attempts, a Mind's settings), one
//! serde type and one conversion each way between it and the domain type.
//!
//! The backends keep by hand only what a database needs to see: keys, index attributes,
//! counters and the values their conditions test. The rest of a record is one of these
//! documents, written as JSON text (SQLite) or a map attribute (DynamoDB). A new field of such a
//! document is added here once, not in each backend.
//!
//! Field names are those the backends already stored before these types existed; where the two
//! backends spelled a name differently, the embedded backend's data was migrated (SQLite
//! migration 8) to the AWS backend's spelling.

mod action;
mod answer_test;
mod channel;
mod conversation;
mod delivery;
mod embed;
mod form;
mod mind;
mod source;

pub use action::{ActionKeys, ActionRecord, HeaderRecord};
pub use answer_test::{AnswerTestKeys, AnswerTestRecord, TestResultRecord, TestRunKeys, TestRunRecord};
pub use channel::{ChannelKeys, ChannelRecord};
pub use conversation::{
    ActionCallRecord, ChannelLinkRecord, CitationRecord, ConversationKeys, ConversationRecord, CorrectionKeys,
    CorrectionRecord, FeedbackRecord, MessageKeys, MessageRecord, PlatformFailureRecord, VisitorRecord,
};
pub use delivery::AttemptRecord;
pub use embed::{AssistantRecord, EmbedRecord, ReplyRecord};
pub use form::FormFieldRecord;
pub use mind::{MindKeys, MindSettingsRecord};
pub use source::{ProgressRecord, SourceSpecRecord};

/// A stored document that does not read back as its domain type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed stored {0}")]
pub struct RecordError(pub String);

impl RecordError {
    pub(crate) fn of(what: &str) -> Self {
        Self(what.to_owned())
    }
}

/// Reads a document from JSON text (the SQLite columns).
pub fn from_json<T: serde::de::DeserializeOwned>(raw: &str, what: &str) -> Result<T, RecordError> {
    serde_json::from_str(raw).map_err(|e| RecordError(format!("{what}: {e}")))
}

/// Writes a document as JSON text (the SQLite columns).
pub fn to_json<T: serde::Serialize>(record: &T) -> String {
    // These types hold strings, numbers, booleans, lists and string maps only: serialising
    // cannot fail.
    serde_json::to_string(record).unwrap_or_default()
}
