//! Chatbots (docs/api.md §5): name ≤ 100, slug unique per workspace, free-text descriptor.

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
    pub slug: Slug,
    /// Empty when the caller gave none; the interface types it as a string, never null.
    pub descriptor: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub source_count: u64,
    pub conversation_count: u64,
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

/// A partial update; `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatbotPatch {
    pub name: Option<ChatbotName>,
    pub slug: Option<Slug>,
    pub descriptor: Option<String>,
}

impl ChatbotPatch {
    pub fn parse(name: Option<&str>, slug: Option<&str>, descriptor: Option<&str>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = name.and_then(|n| v.check(ChatbotName::parse(n)));
        let slug = slug.and_then(|s| v.check(Slug::parse("slug", s)));
        let descriptor = descriptor.and_then(|d| v.check(parse_descriptor(d)));
        v.finish()?;
        Ok(Self { name, slug, descriptor })
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.slug.is_none() && self.descriptor.is_none()
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
}
