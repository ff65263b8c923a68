//! An owner's view of its sources' chunks (docs/api.md §6, "Chunks"): listed in order with their
//! token counts and heading paths; their text rewritten (embedded again, as a run embeds) or left
//! out of search and answers. The same use cases serve a chatbot's and a Mind's sources.

use crate::auth::Principal;
use crate::chunking::heading_path;
use crate::ingest::chunk_hash;
use crate::ports::{ChunkChange, ChunkEmbedding, ChunkRewrite, StoredChunk};
use crate::sources::processing_in_progress;
use crate::{App, AppError};
use lore_domain::chunk::{ChunkEdit, ChunkText};
use lore_domain::id::SourceId;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode};

/// A chunk as its owner reads it: as stored, with what is derived from its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkDetail {
    pub chunk: StoredChunk,
    /// Tokens of the text as the chunker measures them (`Chunker::count_tokens`).
    pub tokens: usize,
    /// The Markdown headings the text opens with, outermost first.
    pub heading_path: Vec<String>,
}

impl App {
    /// The chunks of `owner`'s source `source`, in position order, a page at a time.
    pub async fn list_chunks(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        source: &SourceId,
        page: PageRequest,
    ) -> Result<Page<ChunkDetail>, AppError> {
        self.get_owned_source(p, owner, source).await?;
        let total = self.ports.storage.index.count_source_chunks(source).await?;
        let chunks = self.ports.storage.index.list_source_chunks(source, page.offset(), page.limit()).await?;
        let items = self.chunk_details(chunks).await?;
        Ok(Page { items, total, request: page })
    }

    /// Applies `edit` to chunk `id` of `owner`'s source `source`. Not while a run holds the source
    /// (it may be replacing the chunks); a new text is embedded now, by the index's current model.
    pub async fn edit_chunk(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        source: &SourceId,
        id: &str,
        edit: ChunkEdit,
    ) -> Result<ChunkDetail, AppError> {
        let found = self.get_owned_source(p, owner, source).await?;
        if found.status.is_running() {
            return Err(processing_in_progress());
        }
        let text = match edit.text() {
            Some(text) => Some(self.rewrite(source, text).await?),
            None => None,
        };
        let change = ChunkChange { text, enabled: edit.enabled() };
        match self.ports.storage.index.update_chunk(source, id, &change).await? {
            Some(chunk) => Ok(self.chunk_details(vec![chunk]).await?.remove(0)),
            None => Err(AppError::NotFound("chunk")),
        }
    }

    /// `text` with its embedding, made as a processing run makes a chunk's (`ingest.rs`): a text
    /// too short to tell its language takes the language most of the source's chunks are in.
    async fn rewrite(&self, source: &SourceId, text: &ChunkText) -> Result<ChunkRewrite, AppError> {
        let content = text.as_str().to_owned();
        let embedded = self
            .ports
            .shared
            .embedder
            .embed_with_token_states(std::slice::from_ref(&content))
            .await
            .map_err(|e| embedding_failed(&e.to_string()))?;
        let Some(e) = embedded.into_iter().next() else {
            return Err(embedding_failed("the embedding provider returned no vector"));
        };
        // Only the signs are kept of the token states, as for every chunk.
        let embedding = ChunkEmbedding { vector: e.vector, token_signs: e.token_states.map(|t| t.signs()) };
        let language = match lore_domain::language::Language::detect(&content) {
            Some(l) => Some(l),
            None => self.ports.storage.index.source_languages(source).await?.first().copied(),
        };
        Ok(ChunkRewrite {
            content_hash: chunk_hash(&content),
            language,
            content,
            model: self.index_model().to_owned(),
            embedding,
        })
    }

    /// Each chunk with its token count, counted off the async threads (a model's tokenizer may
    /// be read from disk by the first count).
    async fn chunk_details(&self, chunks: Vec<StoredChunk>) -> Result<Vec<ChunkDetail>, AppError> {
        let app = self.clone();
        tokio::task::spawn_blocking(move || chunks.into_iter().map(|c| app.chunk_detail(c)).collect())
            .await
            .map_err(|e| AppError::Storage(format!("counting the chunks' tokens failed: {e}")))
    }

    fn chunk_detail(&self, chunk: StoredChunk) -> ChunkDetail {
        let tokens = self.chunker().count_tokens(&chunk.content);
        let heading_path = heading_path(&chunk.content);
        ChunkDetail { chunk, tokens, heading_path }
    }
}

/// The embedding model could not embed the new text: nothing was changed. Said as the model
/// failing (502), as an answer whose model failed is.
fn embedding_failed(reason: &str) -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::GenerationFailed,
        format!("the embedding model could not embed the new text; the chunk is unchanged: {reason}"),
    ))
}
