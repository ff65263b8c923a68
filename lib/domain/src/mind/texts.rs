//! The text settings: bounded texts (name, headline, bio, prompt, welcome message), the short
//! text lists (suggested questions, expertise areas) and web URLs.

use super::*;

macro_rules! bounded_text {
    ($($(#[$doc:meta])* $name:ident = $field:literal, $max:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(String);

        impl $name {
            /// The JSON field a refusal names.
            pub const FIELD: &'static str = $field;

            /// Trimmed, then 1 to the maximum characters (Unicode scalar values).
            pub fn parse(s: &str) -> Result<Self, DomainError> {
                text::bounded($field, s, $max).map(Self)
            }

            /// Like `parse`, but blank means "no value".
            pub fn parse_optional(s: &str) -> Result<Option<Self>, DomainError> {
                text::optional_bounded($field, s, $max).map(|o| o.map(Self))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Rebuilds a value read back from storage, where it was validated when written.
            pub fn from_stored(s: String) -> Self {
                Self(s)
            }
        }
    )*};
}

bounded_text! {
    /// The Mind's display name: 1–100 characters.
    MindName = "name", MAX_NAME;
    /// One line under the name: at most 200 characters.
    Headline = "headline", MAX_HEADLINE;
    /// About the persona: at most 5,000 characters.
    Bio = "bio", MAX_BIO;
    /// Instructions for the model: at most 20,000 characters.
    SystemPrompt = "systemPrompt", MAX_SYSTEM_PROMPT;
    /// The first message shown to visitors: at most 2,000 characters.
    WelcomeMessage = "welcomeMessage", MAX_WELCOME_MESSAGE;
}

/// Checks a list of short texts: at most `max_items`, each trimmed to 1..=`max_len` characters.
pub(super) fn short_texts(
    field: &str,
    items: &[String],
    max_items: usize,
    max_len: usize,
) -> Result<Vec<String>, DomainError> {
    if items.len() > max_items {
        return Err(DomainError::field(field, format!("must have at most {max_items} items, not {}", items.len())));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let t = s.trim();
            if t.is_empty() {
                Err(DomainError::field(field, format!("item {} must not be empty", i + 1)))
            } else if t.chars().count() > max_len {
                Err(DomainError::field(field, format!("item {} must be at most {max_len} characters", i + 1)))
            } else {
                Ok(t.to_owned())
            }
        })
        .collect()
}

/// Up to 4 questions a visitor can start with, each 1–300 characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuggestedQuestions(Vec<String>);

impl SuggestedQuestions {
    pub const FIELD: &'static str = "suggestedQuestions";

    pub fn parse(items: &[String]) -> Result<Self, DomainError> {
        short_texts(Self::FIELD, items, MAX_SUGGESTED_QUESTIONS, MAX_QUESTION_LEN).map(Self)
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    pub fn from_stored(items: Vec<String>) -> Self {
        Self(items)
    }
}

/// Up to 10 topics the persona knows about, each 1–100 characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpertiseAreas(Vec<String>);

impl ExpertiseAreas {
    pub const FIELD: &'static str = "expertiseAreas";

    pub fn parse(items: &[String]) -> Result<Self, DomainError> {
        short_texts(Self::FIELD, items, MAX_EXPERTISE_AREAS, MAX_AREA_LEN).map(Self)
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    pub fn from_stored(items: Vec<String>) -> Self {
        Self(items)
    }
}

/// An absolute `http` or `https` URL with a host, in printable ASCII (other characters
/// percent-encoded), without credentials, at most 2,048 characters. Safe to place in an HTML
/// attribute once escaped, and never a `javascript:` or `data:` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebUrl(String);

impl WebUrl {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        let refuse = |why: &str| Err(DomainError::field(field, why.to_owned()));
        if s.len() > MAX_URL_LEN {
            return refuse("must be at most 2048 characters");
        }
        let lower = s.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")) else {
            return refuse("must be an absolute http or https URL");
        };
        // Printable ASCII without the characters RFC 3986 never allows unencoded.
        if !s.bytes().all(|b| (0x21..=0x7e).contains(&b) && !b"\"<>\\^`{|}".contains(&b)) {
            return refuse("must contain only URL characters (percent-encode spaces and non-ASCII characters)");
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return refuse("must not contain credentials");
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            match v6.split_once(']') {
                Some((h, after))
                    if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') =>
                {
                    (h, after.strip_prefix(':'))
                }
                _ => return refuse("has a malformed IPv6 host"),
            }
        } else {
            match authority.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let host_ok = !host.is_empty()
            && (authority.starts_with('[')
                || host.split('.').all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')));
        if !host_ok {
            return refuse("must have a valid host");
        }
        if let Some(p) = port
            && (p.is_empty()
                || p.len() > 5
                || !p.bytes().all(|b| b.is_ascii_digit())
                || p.parse::<u32>().unwrap_or(0) > 65_535)
        {
            return refuse("has an invalid port");
        }
        // Lower-case the scheme only; the rest may be case-sensitive.
        let scheme_len = if lower.starts_with("https") { 5 } else { 4 };
        Ok(Self(format!("{}{}", &lower[..scheme_len], &s[scheme_len..])))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
