//! The stored shape of the settings Minds and chatbots share (docs/api.md §17–20).

use lore_domain::assistant::{AssistantSettings, RetentionDays};
use lore_domain::correction::{CorrectionThreshold, ReplySettings};
use lore_domain::embed::{AllowedOrigins, EmbedSettings, IdentitySecret};
use lore_domain::language::LanguageSetting;
use lore_domain::metadata::Filter;
use lore_domain::mind::{SuggestedQuestions, Theme, WelcomeMessage};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// [`EmbedSettings`]: flattened into the settings document of its owner. A document written
/// before they existed reads as "no origin, no verification". Its `Debug` hides the secret.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbedRecord {
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    #[serde(default)]
    pub identity_verification: bool,
    /// Kept readable: verifying a signature needs the secret itself.
    #[serde(default)]
    pub identity_secret: Option<String>,
}

impl std::fmt::Debug for EmbedRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedRecord")
            .field("allowed_origins", &self.allowed_origins)
            .field("identity_verification", &self.identity_verification)
            .field("identity_secret", &self.identity_secret.as_ref().map(|_| "…"))
            .finish()
    }
}

impl EmbedRecord {
    pub fn of(e: &EmbedSettings) -> Self {
        Self {
            allowed_origins: e.allowed_origins.as_slice().iter().map(|o| o.as_str().to_owned()).collect(),
            identity_verification: e.identity_verification,
            identity_secret: e.identity_secret.as_ref().map(|s| s.expose().to_owned()),
        }
    }

    pub fn into_settings(self) -> EmbedSettings {
        EmbedSettings {
            allowed_origins: AllowedOrigins::from_stored(self.allowed_origins),
            identity_verification: self.identity_verification,
            identity_secret: self.identity_secret.map(IdentitySecret::from_stored),
        }
    }
}

/// [`ReplySettings`] (docs/api.md §19): flattened into the settings document of its owner. A
/// document written before them reads with the defaults (threshold 0.9, no hand-off control).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyRecord {
    #[serde(default = "default_threshold")]
    pub correction_threshold: f64,
    #[serde(default)]
    pub handoff_enabled: bool,
    /// The filter's own JSON (`lore_domain::metadata::Filter`). Written as `null` when none, so
    /// an update that removes it removes the stored one (DynamoDB removes null attributes).
    #[serde(default)]
    pub knowledge_filter: Option<Filter>,
    /// `"auto"` or a language code; a document written before languages reads as `"auto"`.
    #[serde(default = "default_language")]
    pub language: String,
}

impl Default for ReplyRecord {
    fn default() -> Self {
        Self::of(&ReplySettings::default())
    }
}

fn default_language() -> String {
    "auto".to_owned()
}

fn default_threshold() -> f64 {
    lore_domain::correction::DEFAULT_CORRECTION_THRESHOLD
}

impl ReplyRecord {
    pub fn of(r: &ReplySettings) -> Self {
        Self {
            correction_threshold: r.correction_threshold.value(),
            handoff_enabled: r.handoff_enabled,
            knowledge_filter: r.knowledge_filter.clone(),
            language: r.language.as_str().to_owned(),
        }
    }

    pub fn into_settings(self) -> ReplySettings {
        ReplySettings {
            correction_threshold: CorrectionThreshold::from_stored(self.correction_threshold),
            handoff_enabled: self.handoff_enabled,
            knowledge_filter: self.knowledge_filter,
            // A code no longer supported reads as `auto`, never as an error.
            language: LanguageSetting::parse("language", &self.language).unwrap_or_default(),
        }
    }
}

// Never NaN (written from a parsed threshold).
impl Eq for ReplyRecord {}

/// [`AssistantSettings`], the settings a chatbot and a Mind share: flattened into the settings
/// document of either. A chatbot written before chatbots were published reads with the defaults
/// of a new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantRecord {
    #[serde(default)]
    pub welcome_message: Option<String>,
    #[serde(default)]
    pub suggested_questions: Vec<String>,
    #[serde(default = "shown")]
    pub show_sources: bool,
    /// `collectEmailBeforeChat`, stored under its first, shorter name.
    #[serde(default, rename = "collectEmail")]
    pub collect_email_before_chat: bool,
    #[serde(default)]
    pub theme: BTreeMap<String, String>,
    #[serde(flatten)]
    pub embed: EmbedRecord,
    #[serde(flatten)]
    pub reply: ReplyRecord,
    /// `null` when conversations are kept (written as `null` so an update removes it).
    #[serde(default)]
    pub retention_days: Option<u64>,
    #[serde(default)]
    pub redact_personal_data: bool,
    #[serde(default)]
    pub run_tests_on_change: bool,
}

fn shown() -> bool {
    true
}

impl AssistantRecord {
    pub fn of(s: &AssistantSettings) -> Self {
        Self {
            welcome_message: s.welcome_message.as_ref().map(|w| w.as_str().to_owned()),
            suggested_questions: s.suggested_questions.as_slice().to_vec(),
            show_sources: s.show_sources,
            collect_email_before_chat: s.collect_email_before_chat,
            theme: s.theme.entries().into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            embed: EmbedRecord::of(&s.embed),
            reply: ReplyRecord::of(&s.reply),
            retention_days: s.retention.map(|d| u64::from(d.days())),
            redact_personal_data: s.redact_personal_data,
            run_tests_on_change: s.run_tests_on_change,
        }
    }

    pub fn into_settings(self) -> AssistantSettings {
        AssistantSettings {
            welcome_message: self.welcome_message.map(WelcomeMessage::from_stored),
            suggested_questions: SuggestedQuestions::from_stored(self.suggested_questions),
            show_sources: self.show_sources,
            collect_email_before_chat: self.collect_email_before_chat,
            theme: Theme::from_entries(self.theme.iter().map(|(k, v)| (k.as_str(), v.as_str()))),
            embed: self.embed.into_settings(),
            reply: self.reply.into_settings(),
            retention: self.retention_days.and_then(RetentionDays::from_stored),
            redact_personal_data: self.redact_personal_data,
            run_tests_on_change: self.run_tests_on_change,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_json, to_json};

    #[test]
    fn an_old_document_reads_with_the_defaults_and_settings_round_trip() {
        let old: AssistantRecord = from_json("{}", "chatbot").unwrap();
        assert!(old.show_sources && !old.collect_email_before_chat && old.embed == EmbedRecord::default());
        let raw = r##"{"welcomeMessage":"Hi","suggestedQuestions":["Why?"],"showSources":false,"collectEmail":true,
            "theme":{"mode":"dark"},"allowedOrigins":["https://a.example"],"identityVerification":true,
            "identitySecret":"lore_ids_00"}"##;
        let r: AssistantRecord = from_json(raw, "chatbot").unwrap();
        assert_eq!(r.embed.allowed_origins, ["https://a.example"]);
        assert_eq!(from_json::<AssistantRecord>(&to_json(&r), "chatbot").unwrap(), r);
        assert!(!format!("{r:?}").contains("lore_ids_00"), "Debug never shows the secret");
        assert_eq!(r.reply.knowledge_filter, None);
        let filtered = r#"{"knowledgeFilter":{"type":"and","filters":[{"type":"eq","key":"lang","value":"en"}]}}"#;
        let r: AssistantRecord = from_json(filtered, "chatbot").unwrap();
        assert!(r.reply.knowledge_filter.is_some());
        assert_eq!(from_json::<AssistantRecord>(&to_json(&r), "chatbot").unwrap(), r);
        assert!(to_json(&r).contains(r#""knowledgeFilter":{"type":"and""#));
    }
}
