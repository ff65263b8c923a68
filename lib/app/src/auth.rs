//! Authentication and authorisation: a bearer key resolves to its workspace and scopes; each
//! route names the scope it needs; each key has a request budget.

use crate::ports::{Credential, KeyCount, KeyWindows, RateBucket, RateDecision, RateWindow};
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, ApiKeySecret, KeyHash};
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::{Scope, ScopeSet};
use lore_domain::workspace::Workspace;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Who is calling: a live key and its workspace. The workspace's record is not part of it: a
/// request reads it only when it needs it (limits, name), so that a request on a store where keys
/// hold their windows needs no workspace read (docs/rate-limiting.md).
#[derive(Debug, Clone)]
pub struct Principal {
    pub key_id: ApiKeyId,
    pub key_name: String,
    pub scopes: ScopeSet,
    pub workspace_id: WorkspaceId,
}

impl Principal {
    pub fn workspace_id(&self) -> &WorkspaceId {
        &self.workspace_id
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

    /// Forgets a key, so that this process refuses it at once once it is revoked (other
    /// processes within the time to live).
    pub(crate) fn forget(&self, hash: &KeyHash) {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).remove(hash);
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

/// The caller a key names; a revoked key (perhaps revoked since it was cached) is refused.
fn principal(key: ApiKey) -> Result<Principal, AppError> {
    if key.revoked_at.is_some() {
        return Err(AppError::Unauthorized("revoked key"));
    }
    Ok(Principal {
        key_id: key.id,
        key_name: key.name.as_str().to_owned(),
        scopes: key.scopes,
        workspace_id: key.workspace_id,
    })
}

fn workspace_gone() -> AppError {
    AppError::Unauthorized("the key's workspace is gone")
}

/// How many times a request counts again when other requests keep opening its key's window.
const OPEN_ATTEMPTS: usize = 5;

impl App {
    /// Resolves an `Authorization` header value and counts the request in its key's budget, what
    /// every keyed route does. Every failure to authenticate is the same 401 to the caller (the
    /// reason is only for logs) and spends no live key's budget; a refused scope does.
    pub async fn authenticate_and_admit(&self, authorization: Option<&str>) -> Result<Principal, AppError> {
        let hash = key_hash(authorization)?;
        let now = Timestamp::now();
        let (key, window, limit) = match &self.ports.storage.key_windows {
            Some(windows) => self.count_on_key(windows.as_ref(), &hash, now).await?,
            None => self.count_cached(hash, now).await?,
        };
        let p = principal(key)?;
        match window.decide(limit, now) {
            RateDecision::Allowed => Ok(p),
            RateDecision::Limited { retry_after_secs } => Err(AppError::RateLimited { retry_after_secs }),
        }
    }

    /// Keys that hold their windows: one store operation finds the key and counts the request.
    /// When the key's window has closed, the workspace's current limit opens the next one, so a
    /// changed limit applies from each key's next window.
    async fn count_on_key(
        &self,
        windows: &dyn KeyWindows,
        hash: &KeyHash,
        now: Timestamp,
    ) -> Result<(ApiKey, RateWindow, u32), AppError> {
        // Read once, however many rounds a contended opening takes.
        let mut workspace_limit = None;
        for _ in 0..OPEN_ATTEMPTS {
            let key = match windows.count_request(hash, now).await? {
                KeyCount::Unknown => return Err(AppError::Unauthorized("unknown key")),
                KeyCount::Counted { key, window, limit_per_minute } => return Ok((key, window, limit_per_minute)),
                KeyCount::Closed { key } => key,
            };
            if key.revoked_at.is_some() {
                return Err(AppError::Unauthorized("revoked key"));
            }
            let limit = match workspace_limit {
                Some(l) => l,
                None => *workspace_limit.insert(self.workspace(&key.workspace_id).await?.limits.rate_limit_per_minute),
            };
            if windows.open_window(hash, now, limit).await? {
                return Ok((key, RateWindow { start: now, count: 1 }, limit));
            }
        }
        Err(AppError::Storage("a key's request window kept changing under concurrent requests".into()))
    }

    /// Keys cached in memory, windows counted by the rate limiter: for a key that is not cached,
    /// its workspace (which holds the limit) is read while the request is counted in the key's
    /// window, one round trip instead of two after the key's own.
    async fn count_cached(&self, hash: KeyHash, now: Timestamp) -> Result<(ApiKey, RateWindow, u32), AppError> {
        let (cred, window) = match self.key_cache.get(&hash) {
            // A cached key revoked since is refused by `principal`, before its window matters;
            // counting it first costs nothing the caller can see.
            Some(c) => {
                let window = self.ports.storage.rate_limiter.count(&RateBucket::Key(c.key.id.clone()), now).await?;
                (c, window)
            }
            None => {
                let key = self.find_live_key(&hash).await?;
                let bucket = RateBucket::Key(key.id.clone());
                let (workspace, window) = futures::try_join!(
                    self.ports.storage.workspaces.get_workspace(&key.workspace_id),
                    self.ports.storage.rate_limiter.count(&bucket, now)
                )?;
                (self.cache_credential(hash, key, workspace)?, window)
            }
        };
        let limit = cred.workspace.limits.rate_limit_per_minute;
        Ok((cred.key, window, limit))
    }

    /// A key's workspace as stored now; a key whose workspace is gone authenticates nothing.
    pub(crate) async fn workspace(&self, id: &WorkspaceId) -> Result<Workspace, AppError> {
        self.ports.storage.workspaces.get_workspace(id).await?.ok_or_else(workspace_gone)
    }

    /// The key of `hash`, unless it is unknown or revoked (then nothing is counted for it).
    async fn find_live_key(&self, hash: &KeyHash) -> Result<ApiKey, AppError> {
        let key = self.ports.storage.keys.find_key(hash).await?.ok_or(AppError::Unauthorized("unknown key"))?;
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
        let workspace = workspace.ok_or_else(workspace_gone)?;
        let cred = Credential { key, workspace };
        self.key_cache.put(hash, cred.clone());
        Ok(cred)
    }
}
