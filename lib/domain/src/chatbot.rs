//! Chatbots (docs/api.md §5): name ≤ 100, slug unique per workspace, free-text descriptor; and
//! (§18) the public settings they share with Minds, under the same names and rules.

use crate::assistant::{AssistantPatch, AssistantSettings, RawAssistantPatch};
use crate::error::{DomainError, Validator};
use crate::id::{ChatbotId, WorkspaceId};
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
    /// What visitors meet, as a Mind has it (§18–20).
    pub settings: AssistantSettings,
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
            settings: AssistantSettings::default(),
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
    pub settings: RawAssistantPatch,
}

/// A partial update; `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatbotPatch {
    pub name: Option<ChatbotName>,
    pub slug: Option<Slug>,
    pub descriptor: Option<String>,
    pub settings: AssistantPatch,
}

impl ChatbotPatch {
    /// Validates every member that was sent, reporting every refused field at once.
    pub fn parse(raw: &RawChatbotPatch) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = raw.name.as_deref().and_then(|n| v.check(ChatbotName::parse(n)));
        let slug = raw.slug.as_deref().and_then(|s| v.check(Slug::parse("slug", s)));
        let descriptor = raw.descriptor.as_deref().and_then(|d| v.check(parse_descriptor(d)));
        let settings = AssistantPatch::parse(&mut v, &raw.settings);
        v.finish()?;
        Ok(Self { name, slug, descriptor, settings })
    }

    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// Applies the change; identity, timestamps and counts are untouched.
    pub fn apply(&self, c: &mut Chatbot) {
        if let Some(n) = &self.name {
            c.name = n.clone();
        }
        if let Some(s) = &self.slug {
            c.slug = s.clone();
        }
        if let Some(d) = &self.descriptor {
            c.descriptor = d.clone();
        }
        self.settings.apply(&mut c.settings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::mind::Field;

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
    fn a_patch_reads_the_shared_settings_with_its_own() {
        let mut raw = RawChatbotPatch { name: Some(String::new()), ..Default::default() };
        raw.settings.allowed_origins = Field::Value(vec!["http://example.com".into()]);
        let e = ChatbotPatch::parse(&raw).unwrap_err();
        assert!(e.fields.contains_key("name") && e.fields.contains_key("allowedOrigins"));
        let new = NewChatbot::parse(Some("Bot"), None, None).unwrap();
        let mut c = Chatbot::create(WorkspaceId::generate(), new, Slug::parse("s", "bot").unwrap(), Timestamp::now());
        assert!(c.settings.show_sources && !c.is_published && c.settings.embed.allowed_origins.is_empty());
        let mut raw = RawChatbotPatch { descriptor: Some(" Answers billing questions ".into()), ..Default::default() };
        raw.settings.collect_email_before_chat = Field::Value(true);
        ChatbotPatch::parse(&raw).unwrap().apply(&mut c);
        assert_eq!(c.descriptor, "Answers billing questions");
        assert!(c.settings.collect_email_before_chat && c.name.as_str() == "Bot");
    }
}
