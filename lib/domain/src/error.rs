//! The machine codes of the contract (docs/api.md §2) and the error
//! the domain raises when a value or a rule is refused.

use std::collections::BTreeMap;
use std::fmt;

/// Every machine code a client can receive. The HTTP layer maps each to its status once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    Unauthorized,
    InsufficientScope,
    NotFound,
    MethodNotAllowed,
    InvalidJson,
    ValidationError,
    PayloadTooLarge,
    RateLimited,
    InternalError,
    SlugTaken,
    MissingContent,
    ContentTooLarge,
    MissingUrl,
    InvalidUrl,
    UrlBlocked,
    MissingFile,
    UnsupportedFileType,
    FileTooLarge,
    StorageLimit,
    AlreadyProcessing,
    ProcessingInProgress,
    InvalidOperation,
    MindsLimitReached,
    SourcesLimitReached,
    /// The workspace has as many webhook subscriptions as it may (`LORE_MAX_HOOKS_PER_WORKSPACE`).
    WebhooksLimitReached,
    /// The workspace has as many active API keys as it may (`LORE_MAX_KEYS_PER_WORKSPACE`).
    KeysLimitReached,
    /// The client stopped sending the request body (no bytes within the body read timeout).
    RequestTimeout,
    /// The conversation holds its 200 messages (docs/api.md §17).
    ConversationFull,
    /// The language model failed or timed out after its retries; the user's message is kept.
    GenerationFailed,
    /// A published Mind with `collectEmailBeforeChat` was asked without `visitor.email`.
    EmailRequired,
    /// Speech of a Mind whose `voiceEnabled` is false.
    VoiceDisabled,
    /// A visitor of a Mind or chatbot that verifies identities carried no valid signed user id.
    IdentityInvalid,
    /// No speech model is configured, or it failed.
    SpeechUnavailable,
    /// The owner has as many answer tests as it may (500, docs/api.md §21).
    TestsLimitReached,
    /// A test run of the owner is queued or running (docs/api.md §21).
    RunInProgress,
    /// The owner has as many actions as it may (20, docs/api.md §23).
    ActionsLimitReached,
    /// Another action of the owner has that name (docs/api.md §23).
    ActionNameTaken,
    /// The owner has as many channels as it may (10, docs/api.md §24).
    ChannelsLimitReached,
    /// A platform's check of a channel's route with the wrong verify token (docs/api.md §24).
    Forbidden,
}

impl ErrorCode {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Unauthorized => "unauthorized",
            Self::InsufficientScope => "insufficient_scope",
            Self::NotFound => "not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::InvalidJson => "invalid_json",
            Self::ValidationError => "validation_error",
            Self::PayloadTooLarge => "payload_too_large",
            Self::RateLimited => "rate_limited",
            Self::InternalError => "internal_error",
            Self::SlugTaken => "slug_taken",
            Self::MissingContent => "missing_content",
            Self::ContentTooLarge => "content_too_large",
            Self::MissingUrl => "missing_url",
            Self::InvalidUrl => "invalid_url",
            Self::UrlBlocked => "url_blocked",
            Self::MissingFile => "missing_file",
            Self::UnsupportedFileType => "unsupported_file_type",
            Self::FileTooLarge => "file_too_large",
            Self::StorageLimit => "storage_limit",
            Self::AlreadyProcessing => "already_processing",
            Self::ProcessingInProgress => "processing_in_progress",
            Self::InvalidOperation => "invalid_operation",
            Self::MindsLimitReached => "minds_limit_reached",
            Self::SourcesLimitReached => "sources_limit_reached",
            Self::WebhooksLimitReached => "webhooks_limit_reached",
            Self::KeysLimitReached => "keys_limit_reached",
            Self::RequestTimeout => "request_timeout",
            Self::ConversationFull => "conversation_full",
            Self::GenerationFailed => "generation_failed",
            Self::EmailRequired => "email_required",
            Self::VoiceDisabled => "voice_disabled",
            Self::IdentityInvalid => "identity_invalid",
            Self::SpeechUnavailable => "speech_unavailable",
            Self::TestsLimitReached => "tests_limit_reached",
            Self::RunInProgress => "run_in_progress",
            Self::ActionsLimitReached => "actions_limit_reached",
            Self::ActionNameTaken => "action_name_taken",
            Self::ChannelsLimitReached => "channels_limit_reached",
            Self::Forbidden => "forbidden",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal by a domain rule: a code, a sentence for people, and for `validation_error` the
/// offending fields keyed by their JSON name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct DomainError {
    pub code: ErrorCode,
    pub message: String,
    pub fields: BTreeMap<String, String>,
}

impl DomainError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), fields: BTreeMap::new() }
    }

    /// A `validation_error` naming one field.
    pub fn field(field: impl Into<String>, reason: impl Into<String>) -> Self {
        let (field, reason) = (field.into(), reason.into());
        let message = format!("{field}: {reason}");
        let mut fields = BTreeMap::new();
        fields.insert(field, reason);
        Self { code: ErrorCode::ValidationError, message, fields }
    }

    /// Merges the field errors of several validations into one `validation_error`.
    pub fn merge(errors: impl IntoIterator<Item = DomainError>) -> Option<Self> {
        let mut merged: Option<Self> = None;
        for e in errors {
            match merged.as_mut() {
                None => merged = Some(e),
                Some(m) if m.code == ErrorCode::ValidationError && e.code == ErrorCode::ValidationError => {
                    m.fields.extend(e.fields);
                    m.message = m.fields.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("; ");
                }
                // A specific code wins over generic field errors; keep the first specific one.
                Some(m) if m.code == ErrorCode::ValidationError => *m = e,
                Some(_) => {}
            }
        }
        merged
    }
}

/// Collects validation results so that all field errors of a request are reported at once.
#[derive(Default)]
pub struct Validator {
    errors: Vec<DomainError>,
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps the value when valid, remembers the error otherwise.
    pub fn check<T>(&mut self, result: Result<T, DomainError>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    pub fn finish(self) -> Result<(), DomainError> {
        match DomainError::merge(self.errors) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_collects_fields_and_prefers_specific_codes() {
        let merged =
            DomainError::merge([DomainError::field("name", "is required"), DomainError::field("slug", "bad")]).unwrap();
        assert_eq!(merged.code, ErrorCode::ValidationError);
        assert_eq!(merged.fields.len(), 2);
        let specific = DomainError::merge([
            DomainError::field("name", "is required"),
            DomainError::new(ErrorCode::ContentTooLarge, "too large"),
        ])
        .unwrap();
        assert_eq!(specific.code, ErrorCode::ContentTooLarge);
    }
}
