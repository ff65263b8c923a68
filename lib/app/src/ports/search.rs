//! The chunk index: chunks with their embeddings, semantic and keyword search.

use super::{StoreError, StoreResult};
use async_trait::async_trait;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::language::Language;
use lore_domain::late_interaction::TokenSigns;
use lore_domain::source::SourceOwner;
use std::collections::HashMap;

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
    /// The language it is written in (`None`: too short to tell, or unsupported).
    pub language: Option<Language>,
    pub embedding: ChunkEmbedding,
}

/// What the index keeps of a chunk's embedding: the vector, and the token signs when the embedder
/// gives token states (`Embedder::has_token_states`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkEmbedding {
    pub vector: Vec<f32>,
    pub token_signs: Option<TokenSigns>,
}

/// A chunk as the index keeps it, for its owner to read and change (docs/api.md §6, "Chunks").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredChunk {
    pub id: String,
    pub source_id: SourceId,
    pub position: u32,
    pub content: String,
    /// The page a crawled chunk came from.
    pub url: Option<String>,
    /// Searches (semantic, keyword, and so answers) only ever see enabled chunks.
    pub enabled: bool,
    /// An owner wrote its text.
    pub edited: bool,
    pub language: Option<Language>,
}

/// What [`VectorIndex::update_chunk`] changes: the text with its new embedding, whether the
/// chunk is enabled, or both.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkChange {
    pub text: Option<ChunkRewrite>,
    pub enabled: Option<bool>,
}

/// A chunk's new text, embedded by the index's current model (the chunk is then that model's).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkRewrite {
    pub content: String,
    /// SHA-256 of the content, as [`Chunk::content_hash`].
    pub content_hash: String,
    pub model: String,
    pub language: Option<Language>,
    pub embedding: ChunkEmbedding,
}

/// Which chunks a search may return: one owner's, of these (ready) sources only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchScope {
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    /// Only chunks of these sources; an empty list matches nothing.
    pub source_ids: Vec<SourceId>,
    /// Only chunks in this language (the search `language` filter).
    pub language: Option<Language>,
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
    pub language: Option<Language>,
    pub score: f32,
    /// The chunk's token signs, from semantic search when stored (keyword search leaves them out).
    pub token_signs: Option<TokenSigns>,
}

#[async_trait]
pub trait VectorIndex: Send + Sync {
    /// The `k` enabled chunks nearest to `query` (cosine similarity, exact), best first, made by
    /// `model`; with `with_token_signs`, each with its token signs when it has them (of
    /// `query.len()` dimensions). Only late interaction needs the signs: kilobytes a hit, read for
    /// nothing otherwise.
    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
        with_token_signs: bool,
    ) -> StoreResult<Vec<ChunkHit>>;
    /// The `k` enabled chunks best matching the words of `query` (BM25), best first.
    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>>;
    /// Replaces every chunk of the source with `chunks`, atomically.
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()>;
    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64>;
    /// Removes every chunk of a chatbot's or a Mind's sources.
    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64>;
    /// Embeddings already stored for the source, by content hash, when made by `model`.
    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, ChunkEmbedding>>;
    /// Every chunk of the source, disabled ones included.
    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64>;
    /// The languages of a source's chunks, most chunks first (ties by code); chunks of no
    /// language are not counted.
    async fn source_languages(&self, source: &SourceId) -> StoreResult<Vec<Language>>;
    /// The source's chunks in position order, `limit` of them after the first `offset`.
    async fn list_source_chunks(&self, source: &SourceId, offset: u64, limit: u32) -> StoreResult<Vec<StoredChunk>>;
    /// Changes the source's chunk `id` as `change` says, visibly to every search that starts after
    /// it returns; `None` when the source has no such chunk. A new text replaces the chunk's
    /// embedding, its keyword terms and its model, and marks it edited.
    async fn update_chunk(&self, source: &SourceId, id: &str, change: &ChunkChange)
    -> StoreResult<Option<StoredChunk>>;
    /// How many chunks the source has, when it has some and `model` made every one of them;
    /// `None` otherwise (nothing indexed yet, or chunks of another embedder or chunk size).
    async fn current_chunk_count(&self, source: &SourceId, model: &str) -> StoreResult<Option<u64>>;
    /// The page URL and content hash of each crawled chunk of the source, in position order
    /// (what a refresh compares its new crawl with).
    async fn page_chunk_hashes(&self, source: &SourceId) -> StoreResult<Vec<(String, String)>>;
    /// Sources that have chunks embedded by a model other than `model` (the deployment changed
    /// its embedder): they must be embedded again before semantic search can find them.
    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>>;
}

/// The chunk index of processes that never search or ingest (on AWS the forms, integrations and
/// webhook-dispatcher functions, which get no database connection, secret or VPC access). A call
/// is a composition mistake and fails as unavailable storage.
pub struct NoIndex;

fn no_index<T>() -> StoreResult<T> {
    Err(StoreError::Unavailable("this process is composed without the chunk index".into()))
}

#[async_trait]
impl VectorIndex for NoIndex {
    async fn semantic_search(
        &self,
        _: &SearchScope,
        _: &str,
        _: &[f32],
        _: usize,
        _: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
        no_index()
    }
    async fn keyword_search(&self, _: &SearchScope, _: &str, _: usize) -> StoreResult<Vec<ChunkHit>> {
        no_index()
    }
    async fn replace_source_chunks(&self, _: &SourceId, _: &str, _: Vec<Chunk>) -> StoreResult<()> {
        no_index()
    }
    async fn delete_source_chunks(&self, _: &SourceId) -> StoreResult<u64> {
        no_index()
    }
    async fn delete_owner_chunks(&self, _: &SourceOwner) -> StoreResult<u64> {
        no_index()
    }
    async fn embeddings_by_hash(&self, _: &SourceId, _: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        no_index()
    }
    async fn source_languages(&self, _: &SourceId) -> StoreResult<Vec<Language>> {
        no_index()
    }
    async fn count_source_chunks(&self, _: &SourceId) -> StoreResult<u64> {
        no_index()
    }
    async fn sources_with_other_models(&self, _: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        no_index()
    }
    async fn list_source_chunks(&self, _: &SourceId, _: u64, _: u32) -> StoreResult<Vec<StoredChunk>> {
        no_index()
    }
    async fn update_chunk(&self, _: &SourceId, _: &str, _: &ChunkChange) -> StoreResult<Option<StoredChunk>> {
        no_index()
    }
    async fn current_chunk_count(&self, _: &SourceId, _: &str) -> StoreResult<Option<u64>> {
        no_index()
    }
    async fn page_chunk_hashes(&self, _: &SourceId) -> StoreResult<Vec<(String, String)>> {
        no_index()
    }
}
