//! Authentication and authorisation: a bearer key resolves to its workspace and scopes; each
//! route names the scope it needs; each key has a request budget.

use crate::ports::{Credential, RateBucket, RateDecision};
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyHash};
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::{Scope, ScopeSet};
use lore_domain::workspace::Workspace;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Who is calling: a live key and its workspace.
#[derive(Debug, Clone)]
pub struct Principal {
    pub key_id: ApiKeyId,
    pub key_name: String,
    pub scopes: ScopeSet,
    pub workspace: Workspace,
}

impl Principal {
    pub fn workspace_id(&self) -> &WorkspaceId {
        &self.workspace.id
    }

    pub fn require(&self, scope: Scope) -> Result<(), AppError> {
        if self.scopes.contains(scope) { Ok(()) } else { Err(AppError::InsufficientScope(scope)) }
    }
}

const CACHE_CAPACITY: usize = 10_000;

/// Short-lived memory of resolved keys so that a busy key costs no store read per request.
pub(crate) struct KeyCache {
    ttl: Duration,
    entries: Mutex<HashMap<KeyHash, (Instant, Credential)>>,
}

impl KeyCache {
    pub(crate) fn new(ttl: Duration) -> Self {
        Self { ttl, entries: Mutex::new(HashMap::new()) }
    }

    fn get(&self, hash: &KeyHash) -> Option<Credential> {
        if self.ttl.is_zero() {
            return None;
        }
        let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.get(hash).filter(|(at, _)| at.elapsed() < self.ttl).map(|(_, c)| c.clone())
    }

    fn put(&self, hash: KeyHash, cred: Credential) {
        if self.ttl.is_zero() {
            return;
        }
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= CACHE_CAPACITY {
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| at.elapsed() < ttl);
            if entries.len() >= CACHE_CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (Instant::now(), cred));
    }
}

/// The hash of the bearer key in an `Authorization` header value.
fn key_hash(authorization: Option<&str>) -> Result<KeyHash, AppError> {
    let header = authorization.ok_or(AppError::Unauthorized("missing Authorization header"))?;
    let (scheme, token) = header.trim().split_once(' ').ok_or(AppError::Unauthorized("not a Bearer token"))?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AppError::Unauthorized("not a Bearer token"));
    }
    let secret = ApiKeySecret::parse(token.trim()).ok_or(AppError::Unauthorized("malformed key"))?;
    Ok(secret.hash())
}

/// The caller a credential names; a key revoked since it was cached is refused.
fn principal(cred: Credential) -> Result<Principal, AppError> {
    if cred.key.revoked_at.is_some() {
        return Err(AppError::Unauthorized("revoked key"));
    }
    Ok(Principal {
        key_id: cred.key.id,
        key_name: cred.key.name.as_str().to_owned(),
        scopes: cred.key.scopes,
        workspace: cred.workspace,
    })
}

impl App {
    /// Resolves an `Authorization` header value. Every failure is the same 401 to the caller;
    /// the reason is only for logs.
    pub async fn authenticate(&self, authorization: Option<&str>) -> Result<Principal, AppError> {
        let hash = key_hash(authorization)?;
        let cred = match self.key_cache.get(&hash) {
            Some(c) => c,
            None => {
                let key = self.find_live_key(&hash).await?;
                let workspace = self.ports.workspaces.get_workspace(&key.workspace_id).await?;
                self.cache_credential(hash, key, workspace)?
            }
        };
        principal(cred)
    }

    /// [`App::authenticate`] and one request of the key's budget, what every keyed route does: for a key
    /// that is not cached, its workspace (which holds the limit) is read while the request is
    /// counted in the key's window, one round trip instead of two after the key's own.
    pub async fn authenticate_and_admit(&self, authorization: Option<&str>) -> Result<Principal, AppError> {
        let hash = key_hash(authorization)?;
        let now = Timestamp::now();
        let (cred, window) = match self.key_cache.get(&hash) {
            // A cached key revoked since is refused by `principal` below, before its window
            // matters; counting it first costs nothing the caller can see.
            Some(c) => {
                let window = self.ports.rate_limiter.count(&RateBucket::Key(c.key.id.clone()), now).await?;
                (c, window)
            }
            None => {
                let key = self.find_live_key(&hash).await?;
                let bucket = RateBucket::Key(key.id.clone());
                let (workspace, window) = futures::try_join!(
                    self.ports.workspaces.get_workspace(&key.workspace_id),
                    self.ports.rate_limiter.count(&bucket, now)
                )?;
                (self.cache_credential(hash, key, workspace)?, window)
            }
        };
        let limit = cred.workspace.limits.rate_limit_per_minute;
        let p = principal(cred)?;
        match window.decide(limit, now) {
            RateDecision::Allowed => Ok(p),
            RateDecision::Limited { retry_after_secs } => Err(AppError::RateLimited { retry_after_secs }),
        }
    }

    /// The key of `hash`, unless it is unknown or revoked (then nothing is counted for it).
    async fn find_live_key(&self, hash: &KeyHash) -> Result<ApiKey, AppError> {
        let key = self.ports.keys.find_key(hash).await?.ok_or(AppError::Unauthorized("unknown key"))?;
        if key.revoked_at.is_some() {
            return Err(AppError::Unauthorized("revoked key"));
        }
        Ok(key)
    }

    fn cache_credential(
        &self,
        hash: KeyHash,
        key: ApiKey,
        workspace: Option<Workspace>,
    ) -> Result<Credential, AppError> {
        let workspace = workspace.ok_or(AppError::Unauthorized("the key's workspace is gone"))?;
        let cred = Credential { key, workspace };
        self.key_cache.put(hash, cred.clone());
        Ok(cred)
    }
}
