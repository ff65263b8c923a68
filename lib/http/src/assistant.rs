//! The settings a chatbot and a Mind share ([`lore_domain::assistant`]) as the API shows and
//! takes them: one view flattened into `ChatbotView` and `MindDetailView`, one update flattened
//! into `UpdateChatbot` and `UpdateMind`. A setting added here appears on both kinds, in their
//! answers, their bodies and the OpenAPI document.

use crate::search::SearchFilter;
use lore_domain::assistant::{AssistantSettings, RawAssistantPatch};
use lore_domain::metadata::Filter;
use lore_domain::mind::{Field, Theme};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

/// The shared settings as shown. Not a schema of the document: its properties are documented
/// as those of the views it is flattened into.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssistantView {
    /// The first message of every conversation.
    pub welcome_message: Option<String>,
    pub suggested_questions: Vec<String>,
    /// Visitors see the passages answers cite.
    pub show_sources: bool,
    /// Visitors give their e-mail address before chatting (`chatbot.lead.captured`,
    /// `mind.lead.captured`).
    pub collect_email_before_chat: bool,
    pub theme: Option<ThemeView>,
    /// Origins whose pages may embed the public page and call its visitor routes (docs/api.md §18).
    #[schema(example = json!(["https://www.example.com"]))]
    pub allowed_origins: Vec<String>,
    /// Visitors must carry a user id signed with the identity secret.
    pub identity_verification: bool,
    /// A question at least this similar to a corrected one is answered with the correction.
    #[schema(example = 0.9)]
    pub correction_threshold: f64,
    /// The page shows a "talk to a person" control.
    pub handoff_enabled: bool,
    /// The metadata filter every answer's search applies (docs/api.md §7); null: all sources.
    #[schema(value_type = Option<SearchFilter>)]
    pub knowledge_filter: Option<Filter>,
    /// `"auto"` (answers in each visitor's language, the page in the browser's) or the code of
    /// one supported language (`GET /api/v1/languages`).
    #[schema(example = "auto")]
    pub language: String,
    /// Conversations are deleted this many days after their last message; null: kept
    /// (docs/api.md §22).
    #[schema(example = 90)]
    pub retention_days: Option<u16>,
    /// E-mail addresses, card numbers, IBANs and phone numbers in messages are replaced by
    /// `[email]`, `[card]`, `[iban]`, `[phone]` before they are stored or sent anywhere.
    pub redact_personal_data: bool,
    /// Every answer test runs after the sources change (a source becomes ready, is refreshed or
    /// deleted), at most once per 5 minutes (docs/api.md §21).
    pub run_tests_on_change: bool,
}

impl AssistantView {
    pub(crate) fn of(s: &AssistantSettings) -> Self {
        Self {
            welcome_message: s.welcome_message.as_ref().map(|w| w.as_str().to_owned()),
            suggested_questions: s.suggested_questions.as_slice().to_vec(),
            show_sources: s.show_sources,
            collect_email_before_chat: s.collect_email_before_chat,
            theme: theme_view(&s.theme),
            allowed_origins: s.embed.allowed_origins.as_slice().iter().map(|o| o.as_str().to_owned()).collect(),
            identity_verification: s.embed.identity_verification,
            correction_threshold: s.reply.correction_threshold.value(),
            handoff_enabled: s.reply.handoff_enabled,
            knowledge_filter: s.reply.knowledge_filter.clone(),
            language: s.reply.language.as_str().to_owned(),
            retention_days: s.retention.map(|d| d.days()),
            redact_personal_data: s.redact_personal_data,
            run_tests_on_change: s.run_tests_on_change,
        }
    }
}

/// The page's look; only the keys that are set are present.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThemeView {
    /// `#rgb` or `#rrggbb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "#4f46e5")]
    pub primary_color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "#ffffff")]
    pub background_color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "Inter, sans-serif")]
    pub font_family: Option<String>,
    /// `light`, `dark` or `auto`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

fn theme_view(t: &Theme) -> Option<ThemeView> {
    (!t.is_empty()).then(|| ThemeView {
        primary_color: t.primary_color.as_ref().map(|c| c.as_str().to_owned()),
        background_color: t.background_color.as_ref().map(|c| c.as_str().to_owned()),
        font_family: t.font_family.as_ref().map(|f| f.as_str().to_owned()),
        mode: t.mode.map(|m| m.as_str().to_owned()),
    })
}

/// The shared settings of an update; members not sent keep their value. Not a schema of the
/// document: its properties are documented as those of the bodies it is read with.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssistantUpdate {
    /// The first message shown to visitors; `null` or blank: none.
    #[schema(value_type = Option<String>, nullable, max_length = 2000)]
    #[serde(default)]
    pub welcome_message: Field<String>,
    /// Up to 4 questions, each 1–300 characters.
    #[schema(value_type = Option<Vec<String>>, max_items = 4)]
    #[serde(default)]
    pub suggested_questions: Field<Vec<String>>,
    /// Show the passages answers cite.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub show_sources: Field<bool>,
    /// Ask visitors for their e-mail address before they chat.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub collect_email_before_chat: Field<bool>,
    #[schema(value_type = Option<ThemeInput>, nullable)]
    #[serde(default)]
    pub theme: Field<BTreeMap<String, Option<String>>>,
    /// Up to 20 origins `scheme://host[:port]` (https; http only for localhost and 127.0.0.1)
    /// that may embed the page and call the visitor routes; `[]` or `null`: none.
    #[schema(value_type = Option<Vec<String>>, max_items = 20, nullable, example = json!(["https://www.example.com"]))]
    #[serde(default)]
    pub allowed_origins: Field<Vec<String>>,
    /// Require visitors to carry `visitor.userId` signed with the identity secret.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub identity_verification: Field<bool>,
    /// How similar a question must be to a corrected one (cosine of the embeddings, 0.5-1) to be
    /// answered with the correction (docs/api.md §19).
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1.0, example = 0.9)]
    #[serde(default)]
    pub correction_threshold: Field<f64>,
    /// Show a "talk to a person" control on the page (the hand-off route works either way).
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub handoff_enabled: Field<bool>,
    /// Answer only from sources whose metadata passes this filter (docs/api.md §7); `null`
    /// removes it.
    #[schema(value_type = Option<SearchFilter>, nullable)]
    #[serde(default)]
    pub knowledge_filter: Field<serde_json::Value>,
    /// `"auto"` or a supported language code (`GET /api/v1/languages`).
    #[schema(value_type = Option<String>, example = "fr")]
    #[serde(default)]
    pub language: Field<String>,
    /// Delete conversations this many days (1-3,650) after their last message, with their
    /// messages, ratings and visitor data; `null`: keep them (docs/api.md §22).
    #[schema(value_type = Option<u16>, nullable, minimum = 1, maximum = 3650, example = 90)]
    #[serde(default)]
    pub retention_days: Field<f64>,
    /// Replace e-mail addresses, card numbers, IBANs and phone numbers in messages before they are
    /// stored, searched or sent to a model (the e-mail gate's address is kept).
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub redact_personal_data: Field<bool>,
    /// Run every answer test after the sources change, at most once per 5 minutes (§21).
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub run_tests_on_change: Field<bool>,
}

impl AssistantUpdate {
    pub fn into_raw(self) -> RawAssistantPatch {
        RawAssistantPatch {
            welcome_message: self.welcome_message,
            suggested_questions: self.suggested_questions,
            show_sources: self.show_sources,
            collect_email_before_chat: self.collect_email_before_chat,
            theme: self.theme,
            allowed_origins: self.allowed_origins,
            identity_verification: self.identity_verification,
            correction_threshold: self.correction_threshold,
            handoff_enabled: self.handoff_enabled,
            knowledge_filter: self.knowledge_filter,
            language: self.language,
            retention_days: self.retention_days,
            redact_personal_data: self.redact_personal_data,
            run_tests_on_change: self.run_tests_on_change,
        }
    }
}

/// Theme keys (update only). JSON merge-patch: a key set to `null` is removed, keys not sent
/// keep their value; `theme: null` removes them all. Unknown keys are refused.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Documentation only: the body reads the keys as a map.
pub struct ThemeInput {
    /// Hex colour, `#rgb` or `#rrggbb`.
    #[schema(example = "#4f46e5", nullable)]
    primary_color: Option<String>,
    /// Hex colour, `#rgb` or `#rrggbb`: the public page's background.
    #[schema(example = "#ffffff", nullable)]
    background_color: Option<String>,
    /// Font family names of letters, digits, spaces, `-`, `_`, separated by commas (≤ 200 characters).
    #[schema(example = "Inter, sans-serif", nullable, max_length = 200)]
    font_family: Option<String>,
    /// `light`, `dark` or `auto`.
    #[schema(example = "light", nullable)]
    mode: Option<String>,
}
