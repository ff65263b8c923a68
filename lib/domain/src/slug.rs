//! Slugs: lower-case ASCII words joined by `-` (docs/api.md §16.15).

use crate::error::DomainError;
use serde::Serialize;
use std::fmt;

pub const MAX_SLUG_LEN: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct Slug(String);

impl Slug {
    /// Validates a slug a client chose.
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let ok = !s.is_empty()
            && s.len() <= MAX_SLUG_LEN
            && s.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
        if ok {
            Ok(Self(s.to_owned()))
        } else {
            Err(DomainError::field(
                field,
                "must be lower-case letters and digits in words joined by '-', at most 100 characters",
            ))
        }
    }

    /// Derives a slug from a display name: ASCII letters and digits kept (lower-cased), accents
    /// folded where trivially possible, everything else separates words. A name without any
    /// usable character gets `item`, so a slug always exists.
    pub fn from_name(name: &str, fallback: &str) -> Self {
        let mut words: Vec<String> = Vec::new();
        let mut cur = String::new();
        for c in name.chars() {
            let c = fold(c);
            if c.is_ascii_alphanumeric() {
                cur.push(c.to_ascii_lowercase());
            } else if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        }
        if !cur.is_empty() {
            words.push(cur);
        }
        let mut slug = String::new();
        for w in words {
            // Leave room for a `-NNN` suffix when the generated slug is taken.
            if slug.len() + w.len() + 1 > MAX_SLUG_LEN - 8 {
                break;
            }
            if !slug.is_empty() {
                slug.push('-');
            }
            slug.push_str(&w);
        }
        if slug.is_empty() {
            slug = fallback.to_owned();
        }
        Self(slug)
    }

    /// The n-th alternative of a generated slug: `base-2`, `base-3`, …
    pub fn with_suffix(&self, n: u32) -> Self {
        if n <= 1 { self.clone() } else { Self(format!("{}-{n}", self.0)) }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Rebuilds a slug read back from storage, where it was validated when written.
    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

fn fold(c: char) -> char {
    match c {
        'à'..='å' | 'À'..='Å' => 'a',
        'ç' | 'Ç' => 'c',
        'è'..='ë' | 'È'..='Ë' => 'e',
        'ì'..='ï' | 'Ì'..='Ï' => 'i',
        'ñ' | 'Ñ' => 'n',
        'ò'..='ö' | 'Ò'..='Ö' | 'ø' | 'Ø' => 'o',
        'ù'..='ü' | 'Ù'..='Ü' => 'u',
        'ý' | 'ÿ' | 'Ý' => 'y',
        other => other,
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_from_names() {
        assert_eq!(Slug::from_name("Acme Helper 1a2b", "x").as_str(), "acme-helper-1a2b");
        assert_eq!(Slug::from_name("  Crème  brûlée!! FAQ ", "x").as_str(), "creme-brulee-faq");
        assert_eq!(Slug::from_name("日本語", "chatbot").as_str(), "chatbot");
        assert_eq!(Slug::from_name("a", "x").with_suffix(3).as_str(), "a-3");
        assert!(Slug::from_name(&"word ".repeat(100), "x").as_str().len() <= MAX_SLUG_LEN - 8);
    }

    #[test]
    fn explicit_slugs_are_validated() {
        assert!(Slug::parse("slug", "acme-helper-2").is_ok());
        for bad in ["", "Acme", "a--b", "-a", "a-", "a b", "ä", &"a".repeat(101)] {
            assert!(Slug::parse("slug", bad).is_err(), "{bad:?} accepted");
        }
    }
}
