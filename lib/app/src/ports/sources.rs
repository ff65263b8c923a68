//! Source records: a chatbot's or a Mind's knowledge sources, their processing runs and counts.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::metadata::Metadata;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{KnowledgeSource, Progress, SourceOwner, SourceStatus, SourceType};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceFilter {
    pub status: Option<SourceStatus>,
    pub source_type: Option<SourceType>,
}

/// What a search result says of its source: id, name and type, without the source's spec (a text
/// source's spec holds its whole text, which a search must not read for every source it looks at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLabel {
    pub id: SourceId,
    pub name: String,
    pub source_type: SourceType,
    /// What search filters read.
    pub metadata: Metadata,
}

/// The result of a write of an existing source guarded by its current status
/// ([`SourceStore::delete_source`], [`SourceStore::begin_processing`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded<T> {
    Done(T),
    NotFound,
    /// The source is in a status the write does not accept; carries that status.
    WrongStatus(SourceStatus),
}

/// The result of [`SourceStore::update_source`]: a guarded write that may also change the bytes
/// the source counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Updated {
    Done,
    NotFound,
    /// The source is in a status the write does not accept; carries that status.
    WrongStatus(SourceStatus),
    /// The workspace's storage quota would be exceeded; carries the bytes in use.
    OverQuota {
        used: u64,
    },
}

/// The result of [`SourceStore::charge_upload`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Charged {
    Done,
    /// The workspace's storage quota would be exceeded (nothing counted); carries the bytes in use.
    OverQuota {
        used: u64,
    },
}

/// The result of [`SourceStore::insert_source`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inserted {
    Done,
    /// The chatbot or Mind the source is for does not exist (any more).
    OwnerNotFound,
    /// The workspace's storage quota would be exceeded; carries the bytes in use.
    OverQuota {
        used: u64,
    },
    /// A count limit of Mind sources would be exceeded.
    LimitReached(CountLimit),
}

/// Which count limit of Mind sources an insert hit, with what was in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountLimit {
    /// The workspace's `sourcesLimit` (Mind sources of all its Minds).
    Workspace { used: u64, limit: u32 },
    /// The Mind's `sourceLimit` (the workspace's `mindSourceLimit`).
    Mind { used: u64, limit: u32 },
}

/// What an insert must stay within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsertLimits {
    /// The workspace's storage quota, in bytes.
    pub storage_quota: u64,
    /// Mind sources only: the workspace's `sourcesLimit` …
    pub workspace_sources: u32,
    /// … and the per-Mind `sourceLimit`.
    pub mind_sources: u32,
}

/// Who holds a processing run and until when (docs/api.md §6: never stuck forever).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    pub until: Timestamp,
}

/// How a processing run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finish {
    Ready {
        chunk_count: u64,
        /// New size for url sources (extracted bytes); others keep theirs.
        size_bytes: Option<u64>,
        content_hash: String,
        pages_crawled: Option<u32>,
        refreshed_at: Option<Timestamp>,
    },
    Error {
        message: String,
    },
}

/// Exact statistics of one owner's sources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceStats {
    pub total_sources: u64,
    pub total_chunks: u64,
    pub total_size_bytes: u64,
    pub by_status: BTreeMap<&'static str, u64>,
    pub by_type: BTreeMap<&'static str, u64>,
}

/// A processing run the sweeper or a restart must look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleRun {
    pub workspace_id: WorkspaceId,
    pub source_id: SourceId,
    pub generation: u64,
    /// How many times this run has been started.
    pub attempts: u32,
}

#[async_trait]
pub trait SourceStore: Send + Sync {
    /// Inserts a new source, counting it on its owner and its bytes against the workspace's
    /// storage, in one transaction. `OwnerNotFound` when the owner does not exist; `OverQuota`
    /// when the storage quota would be exceeded; for a Mind's source, `LimitReached` when the
    /// Mind or the workspace already has as many Mind sources as its limit allows.
    async fn insert_source(&self, source: &KnowledgeSource, limits: &InsertLimits) -> StoreResult<Inserted>;
    async fn get_source(&self, ws: &WorkspaceId, id: &SourceId) -> StoreResult<Option<KnowledgeSource>>;
    /// Newest first, filtered, with the exact total.
    async fn list_sources(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        filter: SourceFilter,
        page: PageRequest,
    ) -> StoreResult<Page<KnowledgeSource>>;
    /// Replaces name, status, spec, size and `updatedAt` when the stored status is one of
    /// `allowed`, re-checking the storage quota for the size change.
    async fn update_source(
        &self,
        source: &KnowledgeSource,
        allowed: &[SourceStatus],
        quota: u64,
    ) -> StoreResult<Updated>;
    /// Removes the source (and uncounts it) when its status is one of `allowed`.
    async fn delete_source(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        allowed: &[SourceStatus],
    ) -> StoreResult<Guarded<KnowledgeSource>> {
        self.delete_source_recorded(ws, id, allowed, None).await
    }
    /// [`SourceStore::delete_source`] that writes `audit` in the same transaction, only when
    /// it deleted (`Done`).
    async fn delete_source_recorded(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        allowed: &[SourceStatus],
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Guarded<KnowledgeSource>>;
    /// `pending|ready|error → processing`: bumps the generation, takes the lease, resets the
    /// attempt count. Exactly one of concurrent callers wins. (`WrongStatus` while running.)
    async fn begin_processing(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        lease: &Lease,
        now: Timestamp,
    ) -> StoreResult<Guarded<KnowledgeSource>>;
    /// Records progress of the run `generation`; `false` when that run is no longer current.
    async fn set_progress(&self, id: &SourceId, generation: u64, progress: &Progress) -> StoreResult<bool>;
    /// Moves the run `generation` between its running statuses (`processing ⇄ transcribing`),
    /// with its progress; `false` when that run is no longer current.
    async fn set_running_status(
        &self,
        id: &SourceId,
        generation: u64,
        status: SourceStatus,
        progress: &Progress,
    ) -> StoreResult<bool>;
    /// Ends the run `generation`. `None` when it was superseded (its results must be dropped).
    async fn finish_processing(
        &self,
        id: &SourceId,
        generation: u64,
        finish: &Finish,
        now: Timestamp,
    ) -> StoreResult<Option<KnowledgeSource>>;
    /// Takes over a run (same generation) with a new lease, counting the attempt.
    async fn renew_lease(&self, id: &SourceId, generation: u64, lease: &Lease) -> StoreResult<bool>;
    /// Runs in a running status whose lease expired before `now`, or (with `not_owner`) whose
    /// lease belongs to anyone else — a restarted embedded server adopts its predecessor's runs.
    async fn stale_runs(&self, now: Timestamp, not_owner: Option<&str>) -> StoreResult<Vec<StaleRun>>;
    /// Url sources whose refresh is due by `now` (`KnowledgeSource::refresh_due_at`), at most
    /// `limit`, the longest overdue first.
    async fn due_refreshes(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<(WorkspaceId, SourceId)>>;
    async fn source_stats(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<SourceStats>;
    /// The owner's ready sources, every one of them, as search results name them; in no set order.
    async fn ready_source_labels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<SourceLabel>>;
    /// Blob keys of the owner's file and podcast sources (to delete them with the owner).
    async fn file_blob_keys(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<String>>;

    /// Counts `bytes` of the upload at blob `key` in the workspace's storage (an upload no source
    /// uses yet), in one conditional write with the workspace's counters: `OverQuota` (nothing
    /// counted) when the storage in use plus `bytes` would pass `quota`. A key counted already is
    /// `Done` without a change (release it first to count a new size).
    async fn charge_upload(
        &self,
        ws: &WorkspaceId,
        key: &str,
        bytes: u64,
        quota: u64,
        at: Timestamp,
    ) -> StoreResult<Charged>;
    /// Stops counting the upload at `key` (a source counts its bytes now, or it is gone): the
    /// bytes it counted, `None` when it was not counted.
    async fn release_upload(&self, ws: &WorkspaceId, key: &str) -> StoreResult<Option<u64>>;
    /// The keys of the workspace's counted uploads charged before `before`.
    async fn uploads_charged_before(&self, ws: &WorkspaceId, before: Timestamp) -> StoreResult<Vec<String>>;
    /// Bytes the workspace's storage counts now: its sources and its uploads no source uses.
    async fn storage_used(&self, ws: &WorkspaceId) -> StoreResult<u64>;
}
