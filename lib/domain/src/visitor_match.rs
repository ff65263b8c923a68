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
}
