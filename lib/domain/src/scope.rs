//! Scopes granted to API keys (docs/api.md §3).

use crate::error::DomainError;
use serde::{Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    ChatbotRead,
    ChatbotWrite,
    KnowledgeRead,
    KnowledgeWrite,
    KnowledgeSearch,
    MindsRead,
    MindsWrite,
    FormsRead,
    FormsWrite,
    WebhooksWrite,
    /// Start conversations, send messages, delete conversations (docs/api.md §17).
    ChatWrite,
    /// List and read conversations: they hold visitors' e-mail addresses, so `minds:read` alone
    /// does not open them.
    ConversationsRead,
    /// Manage the workspace's API keys (list, create, revoke): a key with it can make keys with
    /// any scope, so it is every scope in effect (docs/api.md §3, "Keys").
    WorkspaceAdmin,
}

impl Scope {
    pub const ALL: [Scope; 13] = [
        Scope::ChatbotRead,
        Scope::ChatbotWrite,
        Scope::KnowledgeRead,
        Scope::KnowledgeWrite,
        Scope::KnowledgeSearch,
        Scope::MindsRead,
        Scope::MindsWrite,
        Scope::FormsRead,
        Scope::FormsWrite,
        Scope::WebhooksWrite,
        Scope::ChatWrite,
        Scope::ConversationsRead,
        Scope::WorkspaceAdmin,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::ChatbotRead => "chatbot:read",
            Scope::ChatbotWrite => "chatbot:write",
            Scope::KnowledgeRead => "knowledge:read",
            Scope::KnowledgeWrite => "knowledge:write",
            Scope::KnowledgeSearch => "knowledge:search",
            Scope::MindsRead => "minds:read",
            Scope::MindsWrite => "minds:write",
            Scope::FormsRead => "forms:read",
            Scope::FormsWrite => "forms:write",
            Scope::WebhooksWrite => "webhooks:write",
            Scope::ChatWrite => "chat:write",
            Scope::ConversationsRead => "conversations:read",
            Scope::WorkspaceAdmin => "workspace:admin",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }

    const fn bit(self) -> u16 {
        1 << self as u16
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of scopes. Never empty once parsed: a key that can do nothing is a mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScopeSet(u16);

impl ScopeSet {
    pub fn all() -> Self {
        Self(Scope::ALL.iter().fold(0, |acc, s| acc | s.bit()))
    }

    pub fn contains(self, s: Scope) -> bool {
        self.0 & s.bit() != 0
    }

    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// Parses `a,b,c` or `all` (the CLI's `--scopes`), or stored form.
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("all") {
            return Ok(Self::all());
        }
        let mut set = 0u16;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match Scope::parse(part) {
                Some(sc) => set |= sc.bit(),
                None => {
                    let known: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
                    return Err(DomainError::field(
                        "scopes",
                        format!("unknown scope '{part}'; known scopes: {}, or 'all'", known.join(", ")),
                    ));
                }
            }
        }
        if set == 0 {
            return Err(DomainError::field("scopes", "at least one scope is required"));
        }
        Ok(Self(set))
    }

    /// The comma-separated stored form.
    pub fn to_csv(self) -> String {
        self.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",")
    }
}

impl FromIterator<Scope> for ScopeSet {
    fn from_iter<I: IntoIterator<Item = Scope>>(iter: I) -> Self {
        Self(iter.into_iter().fold(0, |acc, s| acc | s.bit()))
    }
}

impl Serialize for ScopeSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(|x| x.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_all() {
        let s = ScopeSet::parse("chatbot:read, knowledge:write").unwrap();
        assert!(s.contains(Scope::ChatbotRead) && s.contains(Scope::KnowledgeWrite));
        assert!(!s.contains(Scope::ChatbotWrite));
        assert_eq!(ScopeSet::parse(&s.to_csv()).unwrap(), s);
        assert_eq!(ScopeSet::parse("all").unwrap().iter().count(), 13);
        assert!(ScopeSet::parse("chatbot:admin").is_err());
        assert!(ScopeSet::parse(" , ").is_err());
    }
}
