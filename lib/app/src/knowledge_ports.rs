//! Ports of the knowledge base: source records, chunk index, file blobs, the job queue and the
//! event bus.

use crate::ports::{StoreError, StoreResult};
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::event::Event;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{KnowledgeSource, Progress, SourceOwner, SourceStatus, SourceType};
use std::collections::{BTreeMap, HashMap};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceFilter {
    pub status: Option<SourceStatus>,
    pub source_type: Option<SourceType>,
}

/// The result of a write guarded by the source's current status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Guarded<T> {
    Done(T),
    NotFound,
    /// The source is in a status the write does not accept; carries that status.
    WrongStatus(SourceStatus),
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

/// Who holds a processing run and until when (CONTRACT §6: never stuck forever).
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
    /// storage, in one transaction. `NotFound` when the owner does not exist; `OverQuota` when
    /// the storage quota would be exceeded; for a Mind's source, `LimitReached` when the Mind
    /// or the workspace already has as many Mind sources as its limit allows.
    async fn insert_source(&self, source: &KnowledgeSource, limits: &InsertLimits) -> StoreResult<Guarded<()>>;
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
    ) -> StoreResult<Guarded<()>>;
    /// Removes the source (and uncounts it) when its status is one of `allowed`.
    async fn delete_source(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        allowed: &[SourceStatus],
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
    async fn source_stats(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<SourceStats>;
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
    ) -> StoreResult<Guarded<()>>;
    /// Stops counting the upload at `key` (a source counts its bytes now, or it is gone): the
    /// bytes it counted, `None` when it was not counted.
    async fn release_upload(&self, ws: &WorkspaceId, key: &str) -> StoreResult<Option<u64>>;
    /// The keys of the workspace's counted uploads charged before `before`.
    async fn uploads_charged_before(&self, ws: &WorkspaceId, before: Timestamp) -> StoreResult<Vec<String>>;
    /// Bytes the workspace's storage counts now: its sources and its uploads no source uses.
    async fn storage_used(&self, ws: &WorkspaceId) -> StoreResult<u64>;
}

/// One piece of a source's text with its embedding.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// Deterministic: `<sourceId>:<generation>:<position>`, so a retried run overwrites.
    pub id: String,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub source_id: SourceId,
    pub position: u32,
    pub content: String,
    /// SHA-256 of the content: identical chunks reuse their embedding on refresh.
    pub content_hash: String,
    /// The page a crawled chunk came from.
    pub url: Option<String>,
    pub embedding: Vec<f32>,
}

/// Which chunks a search may return: one owner's, of these (ready) sources only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchScope {
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    /// Only chunks of these sources; an empty list matches nothing.
    pub source_ids: Vec<SourceId>,
}

/// A chunk found by a search, with its raw score (cosine similarity, or BM25 relevance where
/// higher is better).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkHit {
    pub chunk_id: String,
    pub source_id: SourceId,
    pub content: String,
    pub position: u32,
    pub url: Option<String>,
    pub score: f32,
}

#[async_trait]
pub trait VectorIndex: Send + Sync {
    /// The `k` chunks nearest to `query` (cosine similarity, exact), best first, made by `model`.
    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
    ) -> StoreResult<Vec<ChunkHit>>;
    /// The `k` chunks best matching the words of `query` (BM25), best first.
    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>>;
    /// Replaces every chunk of the source with `chunks`, atomically.
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()>;
    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64>;
    /// Removes every chunk of a chatbot's or a Mind's sources.
    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64>;
    /// Embeddings already stored for the source, by content hash, when made by `model`.
    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, Vec<f32>>>;
    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64>;
    /// Sources that have chunks embedded by a model other than `model` (the deployment changed
    /// its embedder): they must be embedded again before semantic search can find them.
    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>>;
}

/// The beginning of a blob and its whole size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlobHead {
    pub bytes: Vec<u8>,
    pub size: u64,
}

/// A URL a client PUTs a file's bytes to directly (S3 presigned PUT, or a signed local URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresignedUpload {
    pub upload_url: String,
    pub method: &'static str,
    /// Headers the client must send with the PUT.
    pub headers: Vec<(String, String)>,
    pub expires_at: Timestamp,
}

/// Bytes as they flow, chunk by chunk: a request body on its way to storage, a stored file on
/// its way to a client. An `Err` is the other end's failure (a client that stalled or left).
pub type ByteStream<'a> = std::pin::Pin<Box<dyn futures::Stream<Item = std::io::Result<Bytes>> + Send + 'a>>;

pub use bytes::Bytes;

/// Why a streamed put stored nothing.
#[derive(Debug)]
pub enum StreamPutError {
    /// More than the allowed bytes arrived; the bytes after the limit were not read.
    TooLarge {
        max_bytes: u64,
    },
    /// The body failed (timed out, the client left) before it ended.
    Body(std::io::Error),
    Store(StoreError),
}

impl From<StoreError> for StreamPutError {
    fn from(e: StoreError) -> Self {
        StreamPutError::Store(e)
    }
}

/// A stored blob being read: its whole size and the requested bytes of it.
pub struct BlobRead {
    /// The size of the whole blob, whatever range was asked for.
    pub size: u64,
    pub body: ByteStream<'static>,
}

/// Bytes `start..=end` of a blob (an HTTP range after it was resolved against the size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRange {
    pub start: u64,
    pub end: u64,
}

#[async_trait]
pub trait BlobStore: Send + Sync {
    async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> StoreResult<()>;
    /// Stores what `body` yields under `key`, holding only a bounded buffer in memory (a chunk
    /// on disk, one multipart part on S3), and stops reading as soon as more than `max_bytes`
    /// arrived. Nothing is kept under `key` unless the whole body arrived within the limit.
    /// Returns the stored size.
    async fn put_stream(
        &self,
        key: &str,
        content_type: &str,
        body: &mut ByteStream<'_>,
        max_bytes: u64,
    ) -> Result<u64, StreamPutError>;
    async fn get(&self, key: &str) -> StoreResult<Option<Vec<u8>>>;
    /// Streams the blob (or `range` of it, which must lie within it) without holding it.
    async fn read(&self, key: &str, range: Option<ByteRange>) -> StoreResult<Option<BlobRead>>;
    /// The first `max_bytes` bytes of the blob (fewer when it is shorter) and its whole size,
    /// without reading the rest: to look at a large file (a 500 MB podcast) cheaply.
    async fn head(&self, key: &str, max_bytes: u64) -> StoreResult<Option<BlobHead>>;
    async fn delete(&self, key: &str) -> StoreResult<()>;
    /// Deletes every blob whose key starts with `prefix` (whole segments, ending with `/`, e.g.
    /// `<workspace>/<mind>/`): what a deleted owner left. Returns how many were deleted; an
    /// invalid prefix deletes nothing.
    async fn delete_prefix(&self, prefix: &str) -> StoreResult<u64>;
    /// The CDN URL clients fetch the blob from, without credentials.
    fn public_url(&self, key: &str) -> String;
    /// The key behind a URL this store handed out; `None` for any other URL.
    fn key_for_url(&self, url: &str) -> Option<String>;
    /// A URL that accepts one PUT of at most `max_bytes` to `key` until `expires_at`.
    fn presign_put(
        &self,
        key: &str,
        content_type: &str,
        max_bytes: u64,
        expires_at: Timestamp,
    ) -> StoreResult<PresignedUpload>;
    /// Checks the query of a signed upload URL this store handed out (stores whose uploads go
    /// straight to a cloud service never see one).
    fn verify_signed_put(&self, key: &str, query: &str, size: u64, now: Timestamp) -> Result<(), UploadRefusal> {
        let _ = (key, query, size, now);
        Err(UploadRefusal::BadSignature)
    }
}

/// Why a signed upload was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadRefusal {
    BadSignature,
    Expired,
    TooLarge { max_bytes: u64 },
}

/// Work for the ingest worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestJob {
    pub workspace_id: WorkspaceId,
    pub source_id: SourceId,
    pub generation: u64,
}

#[async_trait]
pub trait JobQueue: Send + Sync {
    async fn enqueue(&self, job: IngestJob) -> StoreResult<()>;
}

#[async_trait]
pub trait EventBus: Send + Sync {
    async fn publish(&self, event: Event) -> StoreResult<()>;
}
