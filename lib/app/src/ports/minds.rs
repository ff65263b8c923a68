//! The port of the Minds (docs/api.md §8): Mind records, the counts the usage and the detail
//! report, and the public-address rule of published Minds.
//!
//! The Mind knowledge sources (docs/api.md §9) will live behind this port as well: they change the
//! per-Mind counts ([`MindSourceCounts`](lore_domain::mind::MindSourceCounts)) in the same
//! transaction as the source records, and a Mind's delete removes them with it.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::audit::AuditEntry;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::Mind;
use lore_domain::pagination::{Page, PageRequest};

/// What a workspace uses of its Mind limits, counted in one snapshot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MindUsage {
    /// Minds in the workspace.
    pub minds: u64,
    /// Knowledge sources of all the workspace's Minds.
    pub sources: u64,
}

/// The outcome of an insert guarded by the workspace's `mindsLimit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MindInsert {
    Inserted,
    /// The workspace already has `limit` Minds (or more, when the limit was lowered).
    LimitReached {
        used: u64,
    },
}

/// The outcome of a write based on a record (a Mind, a chatbot) read at some revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisedWrite {
    Done,
    NotFound,
    /// Another write came first: read again and re-apply.
    Stale,
}

/// What a deleted Mind owned outside the records store, for the caller to remove.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MindRemoval {
    /// Blob keys of the Mind's uploaded files and file sources.
    pub file_keys: Vec<String>,
}

/// Uniqueness rules the store enforces. `Conflict("slug")`: another Mind of the workspace has
/// the slug. `Conflict("public_slug")`: the Mind is published and another published Mind (of
/// any workspace) has the slug — the public page `/m/{slug}` names one Mind.
#[async_trait]
pub trait MindStore: Send + Sync {
    /// Inserts `mind` (revision 0, no sources) unless its workspace already has `minds_limit`
    /// Minds; the count and the insert are one atomic step, so concurrent creates at the limit
    /// cannot both pass. Fails with `Conflict("slug")` / `Conflict("public_slug")`.
    async fn insert_mind(&self, mind: &Mind, minds_limit: u32) -> StoreResult<MindInsert> {
        self.insert_mind_recorded(mind, minds_limit, None).await
    }
    /// [`MindStore::insert_mind`] that writes `audit` in the same transaction, only when inserted.
    async fn insert_mind_recorded(
        &self,
        mind: &Mind,
        minds_limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<MindInsert>;

    /// The Mind, with its current source counts; `None` when absent or in another workspace.
    async fn get_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<Mind>>;

    /// The published Mind whose public address is `/m/{slug}`, whatever its workspace.
    async fn find_published_mind(&self, slug: &str) -> StoreResult<Option<Mind>>;

    /// Newest first (`createdAt` desc, id desc), with the exact total.
    async fn list_minds(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Mind>>;

    /// The workspace's Minds and Mind sources, exact.
    async fn mind_usage(&self, ws: &WorkspaceId) -> StoreResult<MindUsage>;

    /// Replaces every setting, the slug, `isPublished` and `updatedAt` of the Mind (never its
    /// counts), and stores `mind.revision`, provided the stored revision is
    /// `mind.revision - 1`. Fails with `Conflict("slug")` / `Conflict("public_slug")`.
    async fn update_mind(&self, mind: &Mind) -> StoreResult<RevisedWrite> {
        self.update_mind_recorded(mind, None).await
    }
    /// [`MindStore::update_mind`] that writes `audit` in the same transaction, only when `Done`.
    async fn update_mind_recorded(&self, mind: &Mind, audit: Option<&AuditEntry>) -> StoreResult<RevisedWrite>;

    /// Removes the Mind and every record it owns (its knowledge sources, once they exist) in
    /// one step, and tells what it owned elsewhere. `None` when it did not exist in that
    /// workspace.
    async fn delete_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<MindRemoval>> {
        self.delete_mind_recorded(ws, id, None).await
    }
    /// [`MindStore::delete_mind`] that writes `audit` with the Mind's own delete (on DynamoDB its
    /// sources go in transactions before it), only when this call deleted it.
    async fn delete_mind_recorded(
        &self,
        ws: &WorkspaceId,
        id: &MindId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<MindRemoval>>;
}
