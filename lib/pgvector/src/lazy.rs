//! The index opened on its first use ([`LazyPgIndex`]).

use crate::{PgIndex, PgIndexOptions};
use async_trait::async_trait;
use lore_app::ports::{
    Chunk, ChunkChange, ChunkEmbedding, ChunkHit, SearchScope, StoreResult, StoredChunk, VectorIndex,
};
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

/// Where the database URL comes from when the index is first used (a secret store, say).
pub type UrlSource = Box<dyn Fn() -> Pin<Box<dyn Future<Output = StoreResult<String>> + Send>> + Send + Sync>;

/// The pgvector index, connected and migrated on its first use: reading the URL's secret, the
/// connection and the migration check cost a Lambda's cold start ~9 ms (docs/benchmarks.md), and
/// most requests (a chatbot's record, a form, a key check) never touch the chunks. A failure is
/// the call's `Unavailable` error, logged, and the next call tries again.
pub struct LazyPgIndex {
    url: UrlSource,
    options: PgIndexOptions,
    index: tokio::sync::OnceCell<PgIndex>,
}

impl LazyPgIndex {
    pub fn new(url: UrlSource, options: PgIndexOptions) -> Self {
        Self { url, options, index: tokio::sync::OnceCell::new() }
    }

    /// The index at `url`.
    pub fn at(url: String, options: PgIndexOptions) -> Self {
        Self::new(
            Box::new(move || {
                let url = url.clone();
                Box::pin(async move { Ok(url) })
            }),
            options,
        )
    }

    /// The index, once opened.
    pub fn into_inner(self) -> Option<PgIndex> {
        self.index.into_inner()
    }

    /// The index, opened and its schema migrated now.
    pub async fn open(&self) -> StoreResult<&PgIndex> {
        self.index
            .get_or_try_init(|| async {
                let index = PgIndex::connect_with(&(self.url)().await?, self.options.clone()).await?;
                index.migrate().await?;
                Ok(index)
            })
            .await
            .inspect_err(|e| tracing::error!(error = %e, "the pgvector database could not be opened"))
    }
}

#[async_trait]
impl VectorIndex for LazyPgIndex {
    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
        with_token_signs: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
        self.open().await?.semantic_search(scope, model, query, k, with_token_signs).await
    }
    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>> {
        self.open().await?.keyword_search(scope, query, k).await
    }
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()> {
        self.open().await?.replace_source_chunks(source, model, chunks).await
    }
    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        self.open().await?.delete_source_chunks(source).await
    }
    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64> {
        self.open().await?.delete_owner_chunks(owner).await
    }
    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        self.open().await?.embeddings_by_hash(source, model).await
    }
    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        self.open().await?.count_source_chunks(source).await
    }
    async fn source_languages(&self, source: &SourceId) -> StoreResult<Vec<lore_domain::language::Language>> {
        self.open().await?.source_languages(source).await
    }
    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        self.open().await?.sources_with_other_models(model).await
    }
    async fn list_source_chunks(&self, source: &SourceId, offset: u64, limit: u32) -> StoreResult<Vec<StoredChunk>> {
        self.open().await?.list_source_chunks(source, offset, limit).await
    }
    async fn update_chunk(
        &self,
        source: &SourceId,
        id: &str,
        change: &ChunkChange,
    ) -> StoreResult<Option<StoredChunk>> {
        self.open().await?.update_chunk(source, id, change).await
    }
    async fn current_chunk_count(&self, source: &SourceId, model: &str) -> StoreResult<Option<u64>> {
        self.open().await?.current_chunk_count(source, model).await
    }
    async fn page_chunk_hashes(&self, source: &SourceId) -> StoreResult<Vec<(String, String)>> {
        self.open().await?.page_chunk_hashes(source).await
    }
}
