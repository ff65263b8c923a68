//! API keys: `lore_sk_` + 43 URL-safe characters (32 random bytes), shown once and stored only
//! as their SHA-256 hash (docs/api.md §1).

use crate::error::DomainError;
use crate::id::{ApiKeyId, WorkspaceId};
use crate::scope::ScopeSet;
use crate::time::Timestamp;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use std::fmt;

pub const KEY_PREFIX: &str = "lore_sk_";
const MIN_SECRET_BODY: usize = 32;
const MAX_SECRET_LEN: usize = 256;

/// The plaintext key. Its `Debug` never prints the secret, so it cannot leak through logs.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeySecret(String);

impl ApiKeySecret {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        crate::text::random_bytes(&mut bytes);
        Self(format!("{KEY_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
    }

    /// Accepts anything of the key's shape; whether it exists is the store's question.
    pub fn parse(s: &str) -> Option<Self> {
        let body = s.strip_prefix(KEY_PREFIX)?;
        let ok = s.len() <= MAX_SECRET_LEN
            && body.len() >= MIN_SECRET_BODY
            && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        ok.then(|| Self(s.to_owned()))
    }

    pub fn hash(&self) -> KeyHash {
        KeyHash(crate::text::hex(&Sha256::digest(self.0.as_bytes())))
    }

    /// The only way to read the secret: to show it once to whoever created it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKeySecret(<redacted>)")
    }
}

/// Lower-case hex SHA-256 of a key: what is stored and looked up.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyHash(String);

impl KeyHash {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyName(String);

impl KeyName {
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        crate::text::bounded("name", s, 100).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    pub id: ApiKeyId,
    pub workspace_id: WorkspaceId,
    pub name: KeyName,
    pub scopes: ScopeSet,
    pub hash: KeyHash,
    pub created_at: Timestamp,
    pub revoked_at: Option<Timestamp>,
}

impl ApiKey {
    /// A new key of `workspace_id` and its secret, which exists only in the caller's hands from
    /// here on (the key keeps its hash). Unnamed keys are named after their creation time.
    pub fn issue(workspace_id: WorkspaceId, name: Option<KeyName>, scopes: ScopeSet) -> (Self, ApiKeySecret) {
        let secret = ApiKeySecret::generate();
        let now = Timestamp::now();
        let key = Self {
            id: ApiKeyId::generate(),
            workspace_id,
            name: name.unwrap_or_else(|| KeyName::from_stored(format!("key {now}"))),
            scopes,
            hash: secret.hash(),
            created_at: now,
            revoked_at: None,
        };
        (key, secret)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_keys_have_the_contract_shape_and_stable_hashes() {
        let k = ApiKeySecret::generate();
        assert!(k.expose().starts_with("lore_sk_") && k.expose().len() == 8 + 43);
        assert_eq!(ApiKeySecret::parse(k.expose()).unwrap().hash(), k.hash());
        assert_eq!(k.hash().as_str().len(), 64);
        assert!(!format!("{k:?}").contains(&k.expose()[8..]));
        assert_ne!(ApiKeySecret::generate().hash(), k.hash());
    }

    #[test]
    fn malformed_keys_are_refused() {
        assert!(ApiKeySecret::parse("lore_sk_short").is_none());
        assert!(ApiKeySecret::parse("sk_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").is_none());
        assert!(ApiKeySecret::parse(&format!("lore_sk_{}", "a b".repeat(20))).is_none());
        assert!(ApiKeySecret::parse(&format!("lore_sk_{}", "a".repeat(300))).is_none());
    }
}
