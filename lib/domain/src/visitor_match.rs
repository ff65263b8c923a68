//! Who an erasure or an export is about (docs/api.md §22): one visitor, named by the e-mail
//! address they gave or by the host site's verified user id.

use crate::conversation::{Email, Visitor};
use crate::embed::{MAX_USER_ID, UserId};
use crate::error::DomainError;

/// One person, by e-mail address (compared without regard to case) or by verified `userId`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VisitorMatch {
    Email(Email),
    UserId(UserId),
}

impl VisitorMatch {
    /// `email` or `userId` of a request: exactly one of them, valid.
    pub fn parse(email: Option<&str>, user_id: Option<&str>) -> Result<Self, DomainError> {
        match (email, user_id) {
            (Some(_), Some(_)) => Err(DomainError::field("userId", "give email or userId, not both")),
            (None, None) => Err(DomainError::field("email", "email or userId is required")),
            (Some(e), None) => Ok(Self::Email(Email::parse("email", e)?)),
            (None, Some(u)) => UserId::parse(u)
                .map(Self::UserId)
                .ok_or_else(|| DomainError::field("userId", format!("must be 1-{MAX_USER_ID} characters"))),
        }
    }

    /// The visitor is this person.
    pub fn matches(&self, visitor: Option<&Visitor>) -> bool {
        let Some(v) = visitor else { return false };
        match self {
            Self::Email(want) => {
                v.email.as_ref().is_some_and(|e| e.as_str().to_lowercase() == want.as_str().to_lowercase())
            }
            Self::UserId(want) => v.user_id.as_ref().is_some_and(|u| u.as_str() == want.as_str()),
        }
    }

    /// The e-mail address, when the person is named by one.
    pub fn email(&self) -> Option<&str> {
        match self {
            Self::Email(e) => Some(e.as_str()),
            Self::UserId(_) => None,
        }
    }

    /// The verified user id, when the person is named by one.
    pub fn user_id(&self) -> Option<&str> {
        match self {
            Self::Email(_) => None,
            Self::UserId(u) => Some(u.as_str()),
        }
    }
}

/// What an erasure looks for in the records kept beside conversations (the event outbox, the
/// webhook delivery log): the person's e-mail addresses (any case), verified user ids, and the
/// ids of their erased conversations (a `message.rated` event names only its conversation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ErasureTrace {
    /// Lower case.
    emails: Vec<String>,
    user_ids: Vec<String>,
    conversations: Vec<String>,
}

/// What an erased event's `data` (and a scrubbed delivery's envelope `data`) becomes.
pub fn erased_data() -> serde_json::Value {
    serde_json::json!({"erased": true})
}

impl ErasureTrace {
    /// The person as the request named them.
    pub fn of(person: &VisitorMatch) -> Self {
        let mut t = Self::default();
        if let Some(e) = person.email() {
            t.add_email(e);
        }
        if let Some(u) = person.user_id() {
            t.add_user_id(u);
        }
        t
    }

    fn add_email(&mut self, e: &str) {
        let e = e.to_lowercase();
        if !self.emails.contains(&e) {
            self.emails.push(e);
        }
    }

    fn add_user_id(&mut self, u: &str) {
        if !self.user_ids.iter().any(|x| x == u) {
            self.user_ids.push(u.to_owned());
        }
    }

    /// Adds an erased conversation: its id, and its visitor's e-mail address and user id (a
    /// person erased by e-mail address may have been verified too, and the other way round).
    pub fn add_conversation(&mut self, c: &crate::conversation::Conversation) {
        self.conversations.push(c.id.as_str().to_owned());
        if let Some(v) = &c.visitor {
            if let Some(e) = &v.email {
                self.add_email(e.as_str());
            }
            if let Some(u) = &v.user_id {
                self.add_user_id(u.as_str());
            }
        }
    }

    /// `value` (an event's `data`, a delivery's envelope) names the person anywhere: a string
    /// that contains one of the e-mail addresses (any case), or that is one of the user ids or
    /// erased conversation ids.
    pub fn names(&self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                let lower = s.to_lowercase();
                self.emails.iter().any(|e| lower.contains(e.as_str()))
                    || self.user_ids.iter().any(|u| u == s)
                    || self.conversations.iter().any(|c| c == s)
            }
            Value::Array(a) => a.iter().any(|v| self.names(v)),
            Value::Object(o) => o.values().any(|v| self.names(v)),
            _ => false,
        }
    }

    /// A stored envelope (a delivery's payload) that names the person, scrubbed: its `data`
    /// becomes [`erased_data`] and its `metadata` empty; `None` when it does not name them (or
    /// is not a JSON object).
    pub fn scrub_envelope(&self, envelope: &str) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(envelope).ok()?;
        if !v.is_object() || !self.names(&v) {
            return None;
        }
        Some(scrubbed_envelope(v))
    }
}

/// `envelope` with its `data` replaced by [`erased_data`] and its `metadata` emptied.
fn scrubbed_envelope(mut v: serde_json::Value) -> String {
    v["data"] = erased_data();
    v["metadata"] = serde_json::json!({});
    v.to_string()
}

/// A stored envelope scrubbed whoever it names (an erasure notice once delivered); `None` when it
/// is not a JSON object or is scrubbed already.
pub fn scrub_any_envelope(envelope: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(envelope).ok()?;
    if !v.is_object() || v["data"] == erased_data() {
        return None;
    }
    Some(scrubbed_envelope(v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exactly_one_valid_member() {
        let field = |e: Option<&str>, u: Option<&str>| {
            VisitorMatch::parse(e, u).unwrap_err().fields.into_keys().collect::<Vec<_>>()
        };
        assert_eq!(field(None, None), ["email"]);
        assert_eq!(field(Some("a@example.com"), Some("u1")), ["userId"]);
        assert_eq!(field(Some("nope"), None), ["email"]);
        assert_eq!(field(None, Some("")), ["userId"]);
        assert_eq!(VisitorMatch::parse(None, Some("u1")).unwrap().user_id(), Some("u1"));
        assert_eq!(VisitorMatch::parse(Some(" Ada@Example.com "), None).unwrap().email(), Some("Ada@Example.com"));
    }

    #[test]
    fn e_mail_addresses_match_without_regard_to_case() {
        let m = VisitorMatch::parse(Some("ADA@example.COM"), None).unwrap();
        let visitor = Visitor::parse(Some("ada@Example.com"), None).unwrap();
        assert!(m.matches(visitor.as_ref()));
        let other = Visitor::parse(Some("bob@example.com"), None).unwrap();
        assert!(!m.matches(other.as_ref()));
        assert!(!m.matches(None));
    }

    #[test]
    fn an_erasure_trace_finds_the_person_in_event_payloads() {
        use serde_json::json;
        let person = VisitorMatch::parse(Some("Ada@Example.com"), None).unwrap();
        let mut t = ErasureTrace::of(&person);
        let visitor = Visitor::parse(Some("ada@example.com"), None).unwrap();
        let visitor = visitor.map(|v| Visitor { user_id: crate::embed::UserId::parse("ada-7"), ..v });
        let c = crate::conversation::Conversation::start(
            crate::id::WorkspaceId::generate(),
            crate::source::SourceOwner::Chatbot(crate::id::ChatbotId::generate()),
            crate::conversation::Channel::Api,
            visitor,
            crate::time::Timestamp::now(),
        );
        t.add_conversation(&c);
        assert!(t.names(&json!({"email": "ADA@example.com", "name": null})));
        assert!(t.names(&json!({"visitor": {"userId": "ada-7"}})), "the conversation's visitor's user id");
        assert!(t.names(&json!({"conversationId": c.id.as_str(), "comment": "meh"})));
        assert!(t.names(&json!({"comment": "write to me at ada@example.com"})));
        assert!(!t.names(&json!({"email": "bob@example.com", "userId": "ada-70"})));
        let envelope =
            json!({"eventType": "mind.lead.captured", "eventId": "evt_1", "data": {"email": "ada@example.com"},
            "metadata": {}})
            .to_string();
        let scrubbed: serde_json::Value = serde_json::from_str(&t.scrub_envelope(&envelope).unwrap()).unwrap();
        assert_eq!(scrubbed["data"], erased_data());
        assert_eq!(scrubbed["eventId"], "evt_1", "the envelope keeps what it was");
        assert_eq!(t.scrub_envelope(&scrubbed.to_string()), None, "scrubbed once");
        assert_eq!(scrub_any_envelope(&scrubbed.to_string()), None);
    }
}
