//! Workspaces, their API keys and the per-key rate limiter.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, KeyHash};
use lore_domain::audit::AuditEntry;
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::workspace::Workspace;

#[async_trait]
pub trait WorkspaceStore: Send + Sync {
    /// Fails with `Conflict("name")` when a workspace of that name exists.
    async fn insert_workspace(&self, ws: &Workspace) -> StoreResult<()>;
    async fn get_workspace(&self, id: &WorkspaceId) -> StoreResult<Option<Workspace>>;
    async fn find_workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>>;
    /// Replaces name and limits. Fails with `Conflict("name")` on a taken name.
    async fn update_workspace(&self, ws: &Workspace) -> StoreResult<()>;
    async fn list_workspaces(&self) -> StoreResult<Vec<Workspace>>;
}

/// A key with the workspace it belongs to: what authentication resolves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Credential {
    pub key: ApiKey,
    pub workspace: Workspace,
}

#[async_trait]
pub trait KeyStore: Send + Sync {
    async fn insert_key(&self, key: &ApiKey) -> StoreResult<()> {
        self.insert_key_recorded(key, None).await
    }
    /// Stores the key and, in the same transaction, the audit entry that records it.
    async fn insert_key_recorded(&self, key: &ApiKey, audit: Option<&AuditEntry>) -> StoreResult<()>;
    /// Looks a key up by the hash of its secret, revoked or not.
    async fn find_key(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>>;
    /// All keys, or those of one workspace; newest first.
    async fn list_keys(&self, workspace: Option<&WorkspaceId>) -> StoreResult<Vec<ApiKey>>;
    /// Marks a key revoked. `false` when no such key exists or it was already revoked.
    async fn revoke_key(&self, id: &ApiKeyId, at: Timestamp) -> StoreResult<bool> {
        self.revoke_key_recorded(id, at, None).await
    }
    /// [`KeyStore::revoke_key`] that writes `audit` in the same transaction, and only when the
    /// key is revoked by it (`true`).
    async fn revoke_key_recorded(&self, id: &ApiKeyId, at: Timestamp, audit: Option<&AuditEntry>) -> StoreResult<bool>;
    /// Deletes a revoked key's record. `false` when no such key exists or it is not revoked (a
    /// live key is never deleted: it is revoked first).
    async fn delete_revoked_key(&self, id: &ApiKeyId) -> StoreResult<bool>;
}

/// One request counted on a key by a store that keeps each key's request window on the key
/// itself, so that finding the key and counting the request are one store operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyCount {
    /// No key has this hash; nothing was counted.
    Unknown,
    /// The request, counted in the key's open window, and the limit that window opened with.
    Counted { key: ApiKey, window: RateWindow, limit_per_minute: u32 },
    /// The key (revoked or not) has no open window; nothing was counted. The next one opens with
    /// its workspace's current limit ([`KeyWindows::open_window`]).
    Closed { key: ApiKey },
}

/// Keys that hold their own request windows (DynamoDB: the window's attributes are on the key's
/// item). A request costs one store operation for key and budget together; the workspace, which
/// holds the limit, is read only when a key's window opens, once a minute at most.
#[async_trait]
pub trait KeyWindows: Send + Sync {
    /// Finds the key of `hash` and counts one request in its window if one is open at `now`.
    async fn count_request(&self, hash: &KeyHash, now: Timestamp) -> StoreResult<KeyCount>;

    /// Opens the key's window at `now` with this request as its first and `limit_per_minute` as
    /// its limit. `false` when there is nothing to open: a window opened meanwhile (count again)
    /// or the key is gone.
    async fn open_window(&self, hash: &KeyHash, now: Timestamp, limit_per_minute: u32) -> StoreResult<bool>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateDecision {
    Allowed,
    Limited { retry_after_secs: u64 },
}

/// Whose requests a budget counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RateBucket {
    /// An API key's requests.
    Key(ApiKeyId),
    /// Public chat messages from one client address (docs/api.md §17, "Public chat").
    ChatAddress(std::net::IpAddr),
    /// Public chat messages to one Mind or chatbot, from every address.
    ChatOwner(lore_domain::source::SourceOwner),
    /// Reads of the public pages and the API document from one client address.
    PageAddress(std::net::IpAddr),
}

impl RateBucket {
    /// The bucket's stored name: a key's id as it always was; the others prefixed by kind.
    pub fn name(&self) -> String {
        match self {
            RateBucket::Key(id) => id.to_string(),
            RateBucket::ChatAddress(ip) => format!("chat-ip:{ip}"),
            // A Mind's bucket keeps the name it had before chatbots were public.
            RateBucket::ChatOwner(lore_domain::source::SourceOwner::Mind(id)) => format!("chat-mind:{id}"),
            RateBucket::ChatOwner(lore_domain::source::SourceOwner::Chatbot(id)) => format!("chat-chatbot:{id}"),
            RateBucket::PageAddress(ip) => format!("page-ip:{ip}"),
        }
    }
}

/// A bucket's current one-minute window, with the request just counted in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateWindow {
    pub start: Timestamp,
    /// Requests in the window, this one included.
    pub count: u32,
}

/// Length of a rate-limit window.
pub const RATE_WINDOW_MS: i64 = 60_000;

impl RateWindow {
    /// The window rule of every adapter: the first `limit` requests of a window pass, the rest
    /// wait for its end.
    pub fn decide(&self, limit_per_minute: u32, now: Timestamp) -> RateDecision {
        if self.count <= limit_per_minute {
            RateDecision::Allowed
        } else {
            let remaining_ms = (self.start.millis() + RATE_WINDOW_MS - now.millis()).max(1);
            RateDecision::Limited { retry_after_secs: (remaining_ms as u64).div_ceil(1000) }
        }
    }
}

/// Request budgets: the first `limit` requests of a bucket's one-minute window pass.
#[async_trait]
pub trait RateLimiter: Send + Sync {
    /// Counts one request in the bucket's window (starting a window when none is open). The count
    /// needs no limit, so a caller can count while it still reads the limit.
    async fn count(&self, bucket: &RateBucket, now: Timestamp) -> StoreResult<RateWindow>;

    /// Counts one request and decides it against `limit_per_minute`.
    async fn hit(&self, bucket: &RateBucket, limit_per_minute: u32, now: Timestamp) -> StoreResult<RateDecision> {
        Ok(self.count(bucket, now).await?.decide(limit_per_minute, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_rule() {
        let window = |count| RateWindow { start: Timestamp::from_millis(0), count };
        assert_eq!(window(3).decide(3, Timestamp::from_millis(10)), RateDecision::Allowed);
        assert_eq!(window(4).decide(3, Timestamp::from_millis(500)), RateDecision::Limited { retry_after_secs: 60 });
        assert_eq!(window(4).decide(3, Timestamp::from_millis(59_999)), RateDecision::Limited { retry_after_secs: 1 });
        // A clock past the window's end still asks for a second, never for none.
        assert_eq!(window(4).decide(3, Timestamp::from_millis(61_000)), RateDecision::Limited { retry_after_secs: 1 });
    }
}
