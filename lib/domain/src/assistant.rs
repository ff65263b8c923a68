//! The assistant a chatbot (docs/api.md §5) and a Mind (§8) both are: the settings visitors
//! meet — the welcome message, suggested questions, sources shown, the e-mail gate, the page's
//! look, where it may be embedded (§18), corrections and hand-off (§19), the answer language
//! (§20) — under one set of names and rules. [`crate::chatbot::Chatbot`] and
//! [`crate::mind::Mind`] each hold one [`AssistantSettings`]; a setting added here reaches both
//! kinds, their stored shape and their HTTP views at once.

use crate::correction::{RawReply, ReplyPatch, ReplySettings};
use crate::embed::{EmbedPatch, EmbedSettings};
use crate::error::{DomainError, Validator};
use crate::mind::{Field, ObjectChange, SuggestedQuestions, Theme, ThemePatch, WelcomeMessage};
use std::collections::BTreeMap;

/// The settings every assistant has, whatever its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssistantSettings {
    /// The first message of every conversation.
    pub welcome_message: Option<WelcomeMessage>,
    pub suggested_questions: SuggestedQuestions,
    /// Visitors see the passages answers cite.
    pub show_sources: bool,
    /// Visitors give their e-mail address before chatting.
    pub collect_email_before_chat: bool,
    pub theme: Theme,
    /// Where the page may be embedded and whether visitors' identities are verified (§18).
    pub embed: EmbedSettings,
    /// Corrections' threshold, the hand-off control, the knowledge filter, the language (§19–20).
    pub reply: ReplySettings,
    /// How long a conversation is kept after its last message; `None`: kept (§22).
    pub retention: Option<RetentionDays>,
    /// E-mail addresses, card numbers, IBANs and phone numbers in messages are replaced before
    /// anything keeps or sends them (§22, [`crate::privacy::redact`]).
    pub redact_personal_data: bool,
    /// Every answer test runs after the owner's sources change, at most once per 5 minutes (§21).
    pub run_tests_on_change: bool,
}

/// A new assistant's: sources shown, no e-mail gate, no welcome message, no allowed origin.
impl Default for AssistantSettings {
    fn default() -> Self {
        Self {
            welcome_message: None,
            suggested_questions: SuggestedQuestions::default(),
            show_sources: true,
            collect_email_before_chat: false,
            theme: Theme::default(),
            embed: EmbedSettings::default(),
            reply: ReplySettings::default(),
            retention: None,
            redact_personal_data: false,
            run_tests_on_change: false,
        }
    }
}

/// `retentionDays`: a whole number of days from 1 to 3,650.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RetentionDays(u16);

impl RetentionDays {
    pub const FIELD: &'static str = "retentionDays";
    pub const MAX: u16 = 3_650;

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        if v.fract() == 0.0 && (1.0..=f64::from(Self::MAX)).contains(&v) {
            Ok(Self(v as u16))
        } else {
            Err(DomainError::field(Self::FIELD, format!("must be a whole number of days from 1 to {}", Self::MAX)))
        }
    }

    /// A stored value; anything out of bounds reads as "kept" rather than deleting early.
    pub fn from_stored(v: u64) -> Option<Self> {
        u16::try_from(v).ok().filter(|d| (1..=Self::MAX).contains(d)).map(Self)
    }

    pub fn days(self) -> u16 {
        self.0
    }

    /// The oldest last-message time a conversation may have at `now` and still be kept.
    pub fn cutoff(self, now: crate::Timestamp) -> crate::Timestamp {
        crate::Timestamp::from_millis(now.millis() - i64::from(self.0) * 86_400_000)
    }
}

/// The shared settings of a PATCH body as the client sent it, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawAssistantPatch {
    pub welcome_message: Field<String>,
    pub suggested_questions: Field<Vec<String>>,
    pub show_sources: Field<bool>,
    pub collect_email_before_chat: Field<bool>,
    pub theme: Field<BTreeMap<String, Option<String>>>,
    pub allowed_origins: Field<Vec<String>>,
    pub identity_verification: Field<bool>,
    pub correction_threshold: Field<f64>,
    pub handoff_enabled: Field<bool>,
    pub language: Field<String>,
    pub knowledge_filter: Field<serde_json::Value>,
    pub retention_days: Field<f64>,
    pub redact_personal_data: Field<bool>,
    pub run_tests_on_change: Field<bool>,
}

/// A change to [`AssistantSettings`]: `None` keeps the current value; `Some(None)` clears the
/// welcome message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssistantPatch {
    pub welcome_message: Option<Option<WelcomeMessage>>,
    pub suggested_questions: Option<SuggestedQuestions>,
    pub show_sources: Option<bool>,
    pub collect_email_before_chat: Option<bool>,
    pub theme: Option<ObjectChange<ThemePatch>>,
    pub embed: EmbedPatch,
    pub reply: ReplyPatch,
    /// `Some(None)`: keep conversations.
    pub retention: Option<Option<RetentionDays>>,
    pub redact_personal_data: Option<bool>,
    pub run_tests_on_change: Option<bool>,
}

/// A yes/no setting: `null` is refused, naming the field.
pub(crate) fn flag(v: &mut Validator, field: &str, f: &Field<bool>) -> Option<bool> {
    match f {
        Field::Absent => None,
        Field::Null => v.check(Err(DomainError::field(field, "must be true or false"))),
        Field::Value(b) => Some(*b),
    }
}

impl AssistantPatch {
    /// Validates every member that was sent, reporting refusals in `v` (the owner kind's own
    /// settings are checked in the same pass, so a client sees every refused field at once).
    pub fn parse(v: &mut Validator, raw: &RawAssistantPatch) -> Self {
        let welcome_message = match &raw.welcome_message {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(s) => v.check(WelcomeMessage::parse_optional(s)),
        };
        let suggested_questions = match &raw.suggested_questions {
            Field::Absent => None,
            Field::Null => v.check(Err(DomainError::field(SuggestedQuestions::FIELD, "must not be null"))),
            Field::Value(q) => v.check(SuggestedQuestions::parse(q)),
        };
        let theme = match &raw.theme {
            Field::Absent => None,
            Field::Null => Some(ObjectChange::Clear),
            Field::Value(map) => v.check(ThemePatch::parse(map)).map(ObjectChange::Merge),
        };
        let retention = match &raw.retention_days {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(d) => v.check(RetentionDays::parse(*d)).map(Some),
        };
        Self {
            retention,
            redact_personal_data: flag(v, "redactPersonalData", &raw.redact_personal_data),
            run_tests_on_change: flag(v, "runTestsOnChange", &raw.run_tests_on_change),
            welcome_message,
            suggested_questions,
            show_sources: flag(v, "showSources", &raw.show_sources),
            collect_email_before_chat: flag(v, "collectEmailBeforeChat", &raw.collect_email_before_chat),
            theme,
            embed: EmbedPatch::parse(v, &raw.allowed_origins, &raw.identity_verification),
            reply: ReplyPatch::parse(
                v,
                RawReply {
                    correction_threshold: &raw.correction_threshold,
                    handoff_enabled: &raw.handoff_enabled,
                    language: &raw.language,
                    knowledge_filter: &raw.knowledge_filter,
                },
            ),
        }
    }

    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    pub fn apply(&self, s: &mut AssistantSettings) {
        if let Some(w) = &self.welcome_message {
            s.welcome_message = w.clone();
        }
        if let Some(q) = &self.suggested_questions {
            s.suggested_questions = q.clone();
        }
        if let Some(b) = self.show_sources {
            s.show_sources = b;
        }
        if let Some(b) = self.collect_email_before_chat {
            s.collect_email_before_chat = b;
        }
        match &self.theme {
            None => {}
            Some(ObjectChange::Clear) => s.theme = Theme::default(),
            Some(ObjectChange::Merge(p)) => s.theme.apply(p),
        }
        self.embed.apply(&mut s.embed);
        self.reply.apply(&mut s.reply);
        if let Some(r) = self.retention {
            s.retention = r;
        }
        if let Some(b) = self.redact_personal_data {
            s.redact_personal_data = b;
        }
        if let Some(b) = self.run_tests_on_change {
            s.run_tests_on_change = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(f: impl FnOnce(&mut RawAssistantPatch)) -> Result<AssistantPatch, DomainError> {
        let mut raw = RawAssistantPatch::default();
        f(&mut raw);
        let mut v = Validator::new();
        let p = AssistantPatch::parse(&mut v, &raw);
        v.finish().map(|()| p)
    }

    #[test]
    fn every_refused_setting_is_named_at_once() {
        let e = parse(|r| {
            r.suggested_questions = Field::Value(vec!["q".into(); 5]);
            r.theme = Field::Value([("primaryColor".to_owned(), Some("red".to_owned()))].into_iter().collect());
            r.allowed_origins = Field::Value(vec!["http://example.com".into()]);
            r.show_sources = Field::Null;
            r.correction_threshold = Field::Value(0.2);
            r.retention_days = Field::Value(0.5);
        })
        .unwrap_err();
        let fields: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(
            fields,
            [
                "allowedOrigins",
                "correctionThreshold",
                "retentionDays",
                "showSources",
                "suggestedQuestions",
                "theme.primaryColor"
            ]
        );
    }

    #[test]
    fn a_patch_changes_what_it_names_and_keeps_the_rest() {
        let mut s = AssistantSettings::default();
        assert!(s.show_sources && !s.collect_email_before_chat && s.welcome_message.is_none());
        let p = parse(|r| {
            r.welcome_message = Field::Value("Hello".into());
            r.collect_email_before_chat = Field::Value(true);
            r.allowed_origins = Field::Value(vec!["https://shop.example".into()]);
            r.identity_verification = Field::Value(true);
            r.language = Field::Value("fr".into());
        })
        .unwrap();
        p.apply(&mut s);
        assert_eq!(s.welcome_message.as_ref().map(|w| w.as_str()), Some("Hello"));
        assert!(s.collect_email_before_chat && s.show_sources && s.embed.identity_verification);
        assert!(s.embed.allowed_origins.allows("https://shop.example"));
        assert_eq!(s.reply.language.as_str(), "fr");
        parse(|r| r.welcome_message = Field::Null).unwrap().apply(&mut s);
        assert_eq!(s.welcome_message, None);
        assert!(parse(|_| {}).unwrap().is_empty());
    }

    #[test]
    fn retention_is_whole_days_within_ten_years_and_null_keeps() {
        for ok in [1.0, 30.0, 3650.0] {
            assert_eq!(RetentionDays::parse(ok).unwrap().days() as f64, ok);
        }
        for bad in [0.0, -1.0, 1.5, 3651.0, f64::NAN, f64::INFINITY] {
            assert!(RetentionDays::parse(bad).is_err(), "{bad}");
        }
        let mut s = AssistantSettings::default();
        parse(|r| r.retention_days = Field::Value(7.0)).unwrap().apply(&mut s);
        let week = s.retention.unwrap();
        let now = crate::Timestamp::from_millis(10 * 86_400_000);
        assert_eq!(week.cutoff(now).millis(), 3 * 86_400_000);
        parse(|r| r.retention_days = Field::Null).unwrap().apply(&mut s);
        assert_eq!(s.retention, None);
        assert_eq!(RetentionDays::from_stored(0), None);
        assert_eq!(RetentionDays::from_stored(99_999), None);
    }
}
