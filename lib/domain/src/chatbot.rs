//! Chatbots (docs/api.md §5): name ≤ 100, slug unique per workspace, free-text descriptor; and
//! (§18) the public settings they share with Minds, under the same names and rules.

use crate::embed::{EmbedPatch, EmbedSettings};
use crate::error::{DomainError, Validator};
use crate::id::{ChatbotId, WorkspaceId};
use crate::mind::{Field, ObjectChange, SuggestedQuestions, Theme, ThemePatch, WelcomeMessage};
use crate::slug::Slug;
use crate::text;
use crate::time::Timestamp;

pub const MAX_NAME: usize = 100;
pub const MAX_DESCRIPTOR: usize = 2_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatbotName(String);

impl ChatbotName {
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        text::bounded("name", s, MAX_NAME).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chatbot {
    pub id: ChatbotId,
    pub workspace_id: WorkspaceId,
    pub name: ChatbotName,
    /// Unique in the workspace; while published, also the public address `/c/{slug}` and then
    /// unique among all published chatbots.
    pub slug: Slug,
    /// Empty when the caller gave none; the interface types it as a string, never null.
    pub descriptor: String,
    pub is_published: bool,
    pub welcome_message: Option<WelcomeMessage>,
    pub suggested_questions: SuggestedQuestions,
    pub show_sources: bool,
    pub collect_email_before_chat: bool,
    pub theme: Theme,
    pub embed: EmbedSettings,
    /// Corrections' threshold and the hand-off control (§19).
    pub reply: crate::correction::ReplySettings,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Bumped by every write of the settings: a write based on an older read is refused, so
    /// two concurrent changes (a PATCH and a new identity secret) never undo each other.
    pub revision: u64,
    pub source_count: u64,
    pub conversation_count: u64,
}

impl Chatbot {
    /// A new, unpublished chatbot with the public settings' defaults (those of a new Mind):
    /// sources shown, no e-mail gate, no welcome message, no allowed origin.
    pub fn create(workspace_id: WorkspaceId, new: NewChatbot, slug: Slug, now: Timestamp) -> Self {
        Self {
            id: ChatbotId::generate(),
            workspace_id,
            name: new.name,
            slug,
            descriptor: new.descriptor,
            is_published: false,
            welcome_message: None,
            suggested_questions: SuggestedQuestions::default(),
            show_sources: true,
            collect_email_before_chat: false,
            theme: Theme::default(),
            embed: EmbedSettings::default(),
            reply: crate::correction::ReplySettings::default(),
            created_at: now,
            updated_at: now,
            revision: 0,
            source_count: 0,
            conversation_count: 0,
        }
    }
}

/// How the slug of a new chatbot is decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlugChoice {
    /// Chosen by the client: a conflict is `slug_taken`.
    Explicit(Slug),
    /// Derived from the name: a conflict tries `-2`, `-3`, …
    Generated(Slug),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewChatbot {
    pub name: ChatbotName,
    pub slug: SlugChoice,
    pub descriptor: String,
}

impl NewChatbot {
    pub fn parse(name: Option<&str>, slug: Option<&str>, descriptor: Option<&str>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = match name {
            Some(n) => v.check(ChatbotName::parse(n)),
            None => v.check(Err(DomainError::field("name", "is required"))),
        };
        let slug = slug.map(|s| v.check(Slug::parse("slug", s)));
        let descriptor = v.check(parse_descriptor(descriptor.unwrap_or("")));
        v.finish()?;
        let (Some(name), Some(descriptor)) = (name, descriptor) else {
            unreachable!("validator finished without errors")
        };
        let slug = match slug {
            Some(Some(s)) => SlugChoice::Explicit(s),
            _ => SlugChoice::Generated(Slug::from_name(name.as_str(), "chatbot")),
        };
        Ok(Self { name, slug, descriptor })
    }
}

fn parse_descriptor(s: &str) -> Result<String, DomainError> {
    if s.chars().count() > MAX_DESCRIPTOR {
        return Err(DomainError::field("descriptor", format!("must be at most {MAX_DESCRIPTOR} characters")));
    }
    Ok(s.trim().to_owned())
}

/// A PATCH body as the client sent it, before validation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawChatbotPatch {
    pub name: Option<String>,
    pub slug: Option<String>,
    pub descriptor: Option<String>,
    pub welcome_message: Field<String>,
    pub suggested_questions: Field<Vec<String>>,
    pub show_sources: Field<bool>,
    pub collect_email_before_chat: Field<bool>,
    pub theme: Field<std::collections::BTreeMap<String, Option<String>>>,
    pub allowed_origins: Field<Vec<String>>,
    pub identity_verification: Field<bool>,
    pub correction_threshold: Field<f64>,
    pub handoff_enabled: Field<bool>,
    pub language: Field<String>,
    pub knowledge_filter: Field<serde_json::Value>,
}

/// A partial update; `None` keeps the current value (`Some(None)` clears the welcome message).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatbotPatch {
    pub name: Option<ChatbotName>,
    pub slug: Option<Slug>,
    pub descriptor: Option<String>,
    pub welcome_message: Option<Option<WelcomeMessage>>,
    pub suggested_questions: Option<SuggestedQuestions>,
    pub show_sources: Option<bool>,
    pub collect_email_before_chat: Option<bool>,
    pub theme: Option<ObjectChange<ThemePatch>>,
    pub embed: EmbedPatch,
    pub reply: crate::correction::ReplyPatch,
}

impl ChatbotPatch {
    /// Validates every member that was sent, reporting every refused field at once. The public
    /// settings follow the rules of the Mind settings of the same names.
    pub fn parse(raw: &RawChatbotPatch) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = raw.name.as_deref().and_then(|n| v.check(ChatbotName::parse(n)));
        let slug = raw.slug.as_deref().and_then(|s| v.check(Slug::parse("slug", s)));
        let descriptor = raw.descriptor.as_deref().and_then(|d| v.check(parse_descriptor(d)));
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
        let flag = |v: &mut Validator, name: &str, f: &Field<bool>| match f {
            Field::Absent => None,
            Field::Null => v.check(Err(DomainError::field(name, "must be true or false"))),
            Field::Value(b) => Some(*b),
        };
        let show_sources = flag(&mut v, "showSources", &raw.show_sources);
        let collect_email_before_chat = flag(&mut v, "collectEmailBeforeChat", &raw.collect_email_before_chat);
        let theme = match &raw.theme {
            Field::Absent => None,
            Field::Null => Some(ObjectChange::Clear),
            Field::Value(map) => v.check(ThemePatch::parse(map)).map(ObjectChange::Merge),
        };
        let embed = EmbedPatch::parse(&mut v, &raw.allowed_origins, &raw.identity_verification);
        let reply = crate::correction::ReplyPatch::parse(
            &mut v,
            crate::correction::RawReply {
                correction_threshold: &raw.correction_threshold,
                handoff_enabled: &raw.handoff_enabled,
                language: &raw.language,
                knowledge_filter: &raw.knowledge_filter,
            },
        );
        v.finish()?;
        Ok(Self {
            name,
            slug,
            descriptor,
            welcome_message,
            suggested_questions,
            show_sources,
            collect_email_before_chat,
            theme,
            embed,
            reply,
        })
    }

    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Applies the change; identity, timestamps and counts are untouched.
    pub fn apply(&self, c: &mut Chatbot) {
        fn set<T: Clone>(slot: &mut T, v: &Option<T>) {
            if let Some(v) = v {
                *slot = v.clone();
            }
        }
        set(&mut c.name, &self.name);
        set(&mut c.slug, &self.slug);
        set(&mut c.descriptor, &self.descriptor);
        set(&mut c.welcome_message, &self.welcome_message);
        set(&mut c.suggested_questions, &self.suggested_questions);
        set(&mut c.show_sources, &self.show_sources);
        set(&mut c.collect_email_before_chat, &self.collect_email_before_chat);
        match &self.theme {
            None => {}
            Some(ObjectChange::Clear) => c.theme = Theme::default(),
            Some(ObjectChange::Merge(p)) => c.theme.apply(p),
        }
        self.embed.apply(&mut c.embed);
        self.reply.apply(&mut c.reply);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn new_chatbot_rules() {
        let c = NewChatbot::parse(Some("Acme Helper"), None, None).unwrap();
        assert_eq!(c.slug, SlugChoice::Generated(Slug::parse("s", "acme-helper").unwrap()));
        assert_eq!(c.descriptor, "");
        let e = NewChatbot::parse(None, Some("Bad Slug"), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        assert!(e.fields.contains_key("name") && e.fields.contains_key("slug"));
        assert!(NewChatbot::parse(Some(&"x".repeat(100)), None, None).is_ok());
        assert!(NewChatbot::parse(Some(&"x".repeat(101)), None, None).is_err());
        assert!(NewChatbot::parse(Some("  "), None, None).is_err());
    }

    #[test]
    fn public_settings_follow_the_mind_rules() {
        let raw = |f: fn(&mut RawChatbotPatch)| {
            let mut r = RawChatbotPatch::default();
            f(&mut r);
            ChatbotPatch::parse(&r)
        };
        let five = raw(|r| r.suggested_questions = Field::Value(vec!["q".into(); 5])).unwrap_err();
        assert!(five.fields.contains_key("suggestedQuestions"));
        let colour = raw(|r| {
            r.theme = Field::Value([("primaryColor".to_owned(), Some("red".to_owned()))].into_iter().collect())
        })
        .unwrap_err();
        assert!(colour.fields.contains_key("theme.primaryColor"));
        let origins = raw(|r| r.allowed_origins = Field::Value(vec!["http://example.com".into()])).unwrap_err();
        assert!(origins.fields.contains_key("allowedOrigins"));
        let new = NewChatbot::parse(Some("Bot"), None, None).unwrap();
        let mut c = Chatbot::create(WorkspaceId::generate(), new, Slug::parse("s", "bot").unwrap(), Timestamp::now());
        assert!(c.show_sources && !c.is_published && c.embed.allowed_origins.is_empty());
        let p = raw(|r| {
            r.welcome_message = Field::Value("Hello".into());
            r.collect_email_before_chat = Field::Value(true);
            r.allowed_origins = Field::Value(vec!["https://shop.example".into()]);
            r.identity_verification = Field::Value(true);
        })
        .unwrap();
        p.apply(&mut c);
        assert_eq!(c.welcome_message.as_ref().map(|w| w.as_str()), Some("Hello"));
        assert!(c.collect_email_before_chat && c.embed.identity_verification);
        assert!(c.embed.allowed_origins.allows("https://shop.example"));
        raw(|r| r.welcome_message = Field::Null).unwrap().apply(&mut c);
        assert_eq!(c.welcome_message, None);
    }
}
