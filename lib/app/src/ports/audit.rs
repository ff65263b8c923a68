//! The workspace's audit log (docs/api.md §22, "Audit log").

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::audit::{AuditAction, AuditEntry};
use lore_domain::id::WorkspaceId;
use lore_domain::pagination::{Page, PageRequest};

#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Stores one entry (SQLite: a row; DynamoDB: an item with the TTL attribute at
    /// `entry.expires_at()`).
    async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()>;
    /// The workspace's entries, of one action or all, newest first (`at` desc, id desc), with the
    /// exact total.
    async fn list_audit(
        &self,
        ws: &WorkspaceId,
        action: Option<AuditAction>,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>>;
    /// Deletes the entries written before `cutoff`, of every workspace; how many. A store whose
    /// entries expire by themselves (DynamoDB's TTL) may delete none.
    async fn expire_audit(&self, cutoff: Timestamp) -> StoreResult<u64>;
}
