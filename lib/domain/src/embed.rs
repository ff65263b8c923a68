//! Chat on other sites (docs/api.md §18): which web origins may frame a published Mind's or
//! chatbot's page and call its visitor routes, and the optional check that a visitor is the
//! host site's signed-in user.
//!
//! Minds and chatbots carry the same [`EmbedSettings`]; [`Published`] is either of them as its
//! visitors see it, so the public page and the visitor routes are written once for both.

use crate::assistant::AssistantSettings;
use crate::chatbot::Chatbot;
use crate::error::{DomainError, Validator};
use crate::id::WorkspaceId;
use crate::mind::{Field, Mind};
use crate::slug::Slug;
use crate::source::SourceOwner;
use crate::text;
use std::fmt;

/// At most this many allowed origins (docs/api.md §18).
pub const MAX_ALLOWED_ORIGINS: usize = 20;
/// Longest origin accepted (scheme, host and port).
pub const MAX_ORIGIN_LEN: usize = 300;
/// `visitor.userId`: 1..200 characters.
pub const MAX_USER_ID: usize = 200;
const IDENTITY_SECRET_PREFIX: &str = "lore_ids_";

/// A web origin `scheme://host[:port]`, lowercase: `https` for any host, `http` only for
/// `localhost` and `127.0.0.1` (a page under development).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin(String);

impl Origin {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let refuse = |why: &str| Err(DomainError::field(field, format!("{why} (got {:?})", truncate(s))));
        if s.len() > MAX_ORIGIN_LEN {
            return refuse("is too long");
        }
        let lower = s.trim().to_ascii_lowercase();
        let (scheme, rest) = match lower.split_once("://") {
            Some(x) => x,
            None => return refuse("must be scheme://host[:port]"),
        };
        let shape = "must be scheme://host[:port], without a path, query or credentials";
        if rest.contains(['/', '?', '#', '@', '\\', ' ']) {
            return refuse(shape);
        }
        // An IPv6 literal's colons are inside its brackets; anywhere else a colon starts the port.
        let (host, port) = if rest.starts_with('[') {
            match rest.find(']') {
                Some(end) => match &rest[end + 1..] {
                    "" => (&rest[..=end], None),
                    p => match p.strip_prefix(':') {
                        Some(p) => (&rest[..=end], Some(p)),
                        None => return refuse(shape),
                    },
                },
                None => return refuse(shape),
            }
        } else {
            match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            }
        };
        let literal = host.starts_with('[');
        let host_ok = if literal {
            host.len() > 2 && host[1..host.len() - 1].bytes().all(|b| b.is_ascii_hexdigit() || matches!(b, b':' | b'.'))
        } else {
            !host.is_empty()
                && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
                && !host.starts_with('.')
                && !host.ends_with('.')
                && !host.contains("..")
        };
        if !host_ok {
            return refuse(shape);
        }
        let port = match port {
            None => None,
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 && !p.starts_with('0') => Some(n),
                _ => return refuse("has an invalid port"),
            },
        };
        match scheme {
            "https" => {}
            "http" if host == "localhost" || host == "127.0.0.1" => {}
            "http" => return refuse("must use https (http only for localhost and 127.0.0.1)"),
            _ => return refuse("must be an https origin"),
        }
        // Browsers leave a scheme's default port out of `Origin`: stored the same way, so that
        // the CORS comparison and the CSP agree.
        let port = port.filter(|&p| !matches!((scheme, p), ("https", 443) | ("http", 80)));
        Ok(Self(match port {
            Some(p) => format!("{scheme}://{host}:{p}"),
            None => format!("{scheme}://{host}"),
        }))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

fn truncate(s: &str) -> String {
    s.chars().take(60).collect()
}

/// The origins that may embed the page and call the visitor routes; empty: none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins(Vec<Origin>);

impl AllowedOrigins {
    pub const FIELD: &'static str = "allowedOrigins";

    /// Each origin valid, at most [`MAX_ALLOWED_ORIGINS`]; duplicates (after lowercasing) are
    /// kept once, in the order first given.
    pub fn parse(list: &[String]) -> Result<Self, DomainError> {
        if list.len() > MAX_ALLOWED_ORIGINS {
            return Err(DomainError::field(Self::FIELD, format!("must hold at most {MAX_ALLOWED_ORIGINS} origins")));
        }
        let mut out: Vec<Origin> = Vec::with_capacity(list.len());
        for s in list {
            let o = Origin::parse(Self::FIELD, s)?;
            if !out.contains(&o) {
                out.push(o);
            }
        }
        Ok(Self(out))
    }

    pub fn from_stored(list: Vec<String>) -> Self {
        Self(list.into_iter().map(Origin).collect())
    }

    pub fn as_slice(&self) -> &[Origin] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `Origin` header's value, when it is one of these (compared as browsers send it:
    /// lowercase scheme and host).
    pub fn allows(&self, origin: &str) -> bool {
        self.0.iter().any(|o| o.0.eq_ignore_ascii_case(origin.trim()))
    }

    /// The CSP `frame-ancestors` source list: these origins, or `'none'`.
    pub fn frame_ancestors(&self) -> String {
        if self.0.is_empty() {
            "'none'".to_owned()
        } else {
            self.0.iter().map(Origin::as_str).collect::<Vec<_>>().join(" ")
        }
    }
}

/// The secret the host site signs its user ids with (HMAC-SHA256). Stored as given out: it
/// must be read to verify a signature, unlike an API key, which is only compared by hash. Its
/// `Debug` never prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct IdentitySecret(String);

impl IdentitySecret {
    /// 32 random bytes, hex, after a recognisable prefix.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        text::random_bytes(&mut bytes);
        Self(format!("{IDENTITY_SECRET_PREFIX}{}", text::hex(&bytes)))
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    /// For the one answer that shows it, and the stores.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `hash` is the lowercase hex HMAC-SHA256 of `user_id` keyed with this secret's
    /// UTF-8 bytes (compared in constant time).
    pub fn verifies(&self, user_id: &UserId, hash: &str) -> bool {
        let expected = text::hmac_sha256_hex(self.0.as_bytes(), &[user_id.as_str().as_bytes()]);
        text::constant_time_eq(expected.as_bytes(), hash.as_bytes())
    }
}

impl fmt::Debug for IdentitySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("IdentitySecret(…)")
    }
}

/// The host site's id of its signed-in user, 1..200 characters, kept on the conversation once
/// its signature was verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserId(String);

impl UserId {
    pub fn parse(s: &str) -> Option<Self> {
        let n = s.chars().count();
        (1..=MAX_USER_ID).contains(&n).then(|| Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

/// How a published Mind or chatbot may be reached from other sites.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedSettings {
    pub allowed_origins: AllowedOrigins,
    /// Visitors must carry a user id signed with [`Self::identity_secret`].
    pub identity_verification: bool,
    /// Given out once by `POST …/identity-secret`; a new one replaces it.
    pub identity_secret: Option<IdentitySecret>,
}

/// A change to [`EmbedSettings`] by PATCH; `None` keeps the current value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbedPatch {
    pub allowed_origins: Option<AllowedOrigins>,
    pub identity_verification: Option<bool>,
}

impl EmbedPatch {
    /// Reads `allowedOrigins` and `identityVerification`, reporting refusals in `v`.
    pub fn parse(v: &mut Validator, origins: &Field<Vec<String>>, identity: &Field<bool>) -> Self {
        let allowed_origins = match origins {
            Field::Absent => None,
            // `null` empties the list: nothing may embed.
            Field::Null => Some(AllowedOrigins::default()),
            Field::Value(list) => v.check(AllowedOrigins::parse(list)),
        };
        let identity_verification = match identity {
            Field::Absent => None,
            Field::Null => v.check(Err(DomainError::field("identityVerification", "must be true or false"))),
            Field::Value(b) => Some(*b),
        };
        Self { allowed_origins, identity_verification }
    }

    pub fn is_empty(&self) -> bool {
        self.allowed_origins.is_none() && self.identity_verification.is_none()
    }

    pub fn apply(&self, e: &mut EmbedSettings) {
        if let Some(o) = &self.allowed_origins {
            e.allowed_origins = o.clone();
        }
        if let Some(b) = self.identity_verification {
            e.identity_verification = b;
        }
    }
}

/// Which kind of owner a public address names: `/m/{slug}` a Mind, `/c/{slug}` a chatbot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PublicKind {
    Mind,
    Chatbot,
}

impl PublicKind {
    /// The first path segment of its public addresses.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Mind => "m",
            Self::Chatbot => "c",
        }
    }

    /// The word for it in messages (`not_found` names it).
    pub fn noun(self) -> &'static str {
        match self {
            Self::Mind => "mind",
            Self::Chatbot => "chatbot",
        }
    }
}

/// A published Mind or chatbot, as its visitors see it.
#[derive(Debug, Clone, PartialEq)]
pub enum Published {
    Mind(Box<Mind>),
    Chatbot(Box<Chatbot>),
}

impl Published {
    pub fn kind(&self) -> PublicKind {
        match self {
            Self::Mind(_) => PublicKind::Mind,
            Self::Chatbot(_) => PublicKind::Chatbot,
        }
    }

    pub fn owner(&self) -> SourceOwner {
        match self {
            Self::Mind(m) => SourceOwner::Mind(m.id.clone()),
            Self::Chatbot(c) => SourceOwner::Chatbot(c.id.clone()),
        }
    }

    pub fn workspace_id(&self) -> &WorkspaceId {
        match self {
            Self::Mind(m) => &m.workspace_id,
            Self::Chatbot(c) => &c.workspace_id,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Self::Mind(m) => m.name.as_str(),
            Self::Chatbot(c) => c.name.as_str(),
        }
    }

    pub fn slug(&self) -> &Slug {
        match self {
            Self::Mind(m) => &m.slug,
            Self::Chatbot(c) => &c.slug,
        }
    }

    /// What visitors meet, the same for both kinds.
    pub fn settings(&self) -> &AssistantSettings {
        match self {
            Self::Mind(m) => &m.settings,
            Self::Chatbot(c) => &c.settings,
        }
    }

    /// Only Minds speak.
    pub fn voice_enabled(&self) -> bool {
        matches!(self, Self::Mind(m) if m.voice_enabled)
    }

    /// The Mind, for what only a Mind has (its profile, its voice).
    pub fn mind(&self) -> Option<&Mind> {
        match self {
            Self::Mind(m) => Some(m),
            Self::Chatbot(_) => None,
        }
    }
}

/// What a visitor's create claims about the host site's user: checked against the owner's
/// [`EmbedSettings`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdentityClaim {
    pub user_id: Option<String>,
    pub user_hash: Option<String>,
}

impl IdentityClaim {
    /// The verified user id: `Ok(None)` when the owner does not verify identities (a claim is
    /// then ignored), `Err(())` when it does and the claim is missing, out of bounds or
    /// wrongly signed (or no secret was ever made).
    #[allow(clippy::result_unit_err)]
    pub fn verify(&self, embed: &EmbedSettings) -> Result<Option<UserId>, ()> {
        if !embed.identity_verification {
            return Ok(None);
        }
        let secret = embed.identity_secret.as_ref().ok_or(())?;
        let user = self.user_id.as_deref().and_then(UserId::parse).ok_or(())?;
        let hash = self.user_hash.as_deref().ok_or(())?;
        if secret.verifies(&user, hash) { Ok(Some(user)) } else { Err(()) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_accepted_and_refused() {
        for (ok, stored) in [
            ("https://example.com", "https://example.com"),
            ("HTTPS://Shop.Example.com:8443", "https://shop.example.com:8443"),
            ("http://localhost:3000", "http://localhost:3000"),
            ("http://127.0.0.1", "http://127.0.0.1"),
            ("https://[::1]:8443", "https://[::1]:8443"),
            ("https://shop.example:443", "https://shop.example"),
            ("http://localhost:80", "http://localhost"),
        ] {
            assert_eq!(Origin::parse("o", ok).unwrap().as_str(), stored, "{ok}");
        }
        for bad in [
            "http://example.com",
            "ftp://example.com",
            "*",
            "https://a.com/",
            "https://a.com/path",
            "https://a.com?x",
            "https://a.com#f",
            "https://user@a.com",
            "https://",
            "https://a.com:0",
            "https://a.com:99999",
            "https://a.com:08",
            "example.com",
            "https://a..com",
            "https://a com",
            "javascript://x",
            "http://localhost.evil.com",
            "https://a:b:443",
            "https://[x",
            "https://[]",
            "https://[::1]x",
            "https://a.com:",
        ] {
            assert!(Origin::parse("o", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn lists_are_bounded_and_deduplicated() {
        let list: Vec<String> = (0..20).map(|i| format!("https://s{i}.example")).collect();
        assert_eq!(AllowedOrigins::parse(&list).unwrap().as_slice().len(), 20);
        let mut over = list.clone();
        over.push("https://one-more.example".into());
        assert!(AllowedOrigins::parse(&over).unwrap_err().fields.contains_key("allowedOrigins"));
        let dup = AllowedOrigins::parse(&["https://a.example".into(), "HTTPS://A.example".into()]).unwrap();
        assert_eq!(dup.as_slice().len(), 1);
        assert!(dup.allows("https://a.example") && !dup.allows("https://b.example"));
        assert_eq!(dup.frame_ancestors(), "https://a.example");
        assert_eq!(AllowedOrigins::default().frame_ancestors(), "'none'");
    }

    #[test]
    fn identity_claims_are_verified_with_the_secret() {
        use hmac::{Hmac, Mac};
        let secret = IdentitySecret::generate();
        let sign = |user: &str| {
            let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(secret.expose().as_bytes()).unwrap();
            mac.update(user.as_bytes());
            text::hex(&mac.finalize().into_bytes())
        };
        let embed =
            EmbedSettings { identity_verification: true, identity_secret: Some(secret.clone()), ..Default::default() };
        let claim = |u: &str, h: &str| IdentityClaim { user_id: Some(u.into()), user_hash: Some(h.into()) };
        assert_eq!(claim("u-42", &sign("u-42")).verify(&embed).unwrap().unwrap().as_str(), "u-42");
        assert!(claim("u-42", &sign("u-43")).verify(&embed).is_err(), "another user's hash");
        assert!(claim("u-42", &sign("u-42").to_uppercase()).verify(&embed).is_err(), "lowercase hex only");
        assert!(claim("", &sign("")).verify(&embed).is_err(), "empty id");
        let long = "x".repeat(201);
        assert!(claim(&long, &sign(&long)).verify(&embed).is_err(), "201 characters");
        assert!(IdentityClaim::default().verify(&embed).is_err(), "missing");
        let off = EmbedSettings::default();
        assert_eq!(claim("u-42", "whatever").verify(&off), Ok(None), "ignored when not verifying");
        let no_secret = EmbedSettings { identity_verification: true, ..Default::default() };
        assert!(claim("u-42", &sign("u-42")).verify(&no_secret).is_err());
        assert!(!format!("{secret:?}").contains(secret.expose()));
    }
}
