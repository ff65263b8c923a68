//! Mind knowledge-source use cases (docs/api.md §9): the chatbot pipeline of `sources.rs` with a
//! Mind as the owner. Differences: processing starts on create, `reprocess` answers 409
//! `processing_in_progress` while a run holds the source, and inserts count against the
//! workspace's `sourcesLimit` and the Mind's `sourceLimit`.

use crate::auth::Principal;
use crate::ports::SourceFilter;
use crate::sources::{BatchItem, NewSource, SourceChange};
use crate::{App, AppError};
use lore_domain::id::{MindId, SourceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{KnowledgeSource, SourceOwner};

fn owner(mind: &MindId) -> SourceOwner {
    SourceOwner::Mind(mind.clone())
}

impl App {
    /// Creates the source and queues its processing at once.
    pub async fn create_mind_source(
        &self,
        p: &Principal,
        mind: &MindId,
        new: NewSource,
    ) -> Result<KnowledgeSource, AppError> {
        let created = self.create_owned_source(p, &owner(mind), new).await?;
        match self.start_run(p, &created.id).await {
            Ok(queued) => Ok(queued),
            // The source exists and is listed; a client's reprocess starts it.
            Err(e) => {
                tracing::error!(source = %created.id, error = %e, "could not start processing a new Mind source");
                Ok(created)
            }
        }
    }

    pub async fn list_mind_sources(
        &self,
        p: &Principal,
        mind: &MindId,
        filter: SourceFilter,
        page: PageRequest,
    ) -> Result<Page<KnowledgeSource>, AppError> {
        self.list_owned_sources(p, &owner(mind), filter, page).await
    }

    pub async fn get_mind_source(
        &self,
        p: &Principal,
        mind: &MindId,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        self.get_owned_source(p, &owner(mind), id).await
    }

    /// PATCH of a Mind's source, by the chatbot sources' rules ([`SourceChange`]).
    pub async fn update_mind_source(
        &self,
        p: &Principal,
        mind: &MindId,
        id: &SourceId,
        change: SourceChange,
    ) -> Result<KnowledgeSource, AppError> {
        self.update_owned_source(p, &owner(mind), id, change).await
    }

    /// Deletes the source, its chunks and its file; 409 `processing_in_progress` while running.
    pub async fn delete_mind_source(&self, p: &Principal, mind: &MindId, id: &SourceId) -> Result<(), AppError> {
        self.delete_owned_source(p, &owner(mind), id).await
    }

    /// Processes the source again from `pending`, `ready` or `failed`; 409
    /// `processing_in_progress` from `processing` or `transcribing`.
    pub async fn reprocess_mind_source(
        &self,
        p: &Principal,
        mind: &MindId,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        self.process_owned_source(p, &owner(mind), id).await
    }

    /// Creates up to 100 sources, each on its own and each queued for processing at once (as
    /// [`App::create_mind_source`]); see [`App::create_sources`].
    pub async fn create_mind_sources(
        &self,
        p: &Principal,
        mind: &MindId,
        items: Vec<Result<NewSource, lore_domain::DomainError>>,
    ) -> Result<Vec<BatchItem>, AppError> {
        self.create_owned_sources(p, &owner(mind), items, true).await
    }

    /// Reprocesses up to 100 sources, each on its own (as [`App::reprocess_mind_source`]).
    pub async fn reprocess_mind_sources(
        &self,
        p: &Principal,
        mind: &MindId,
        ids: &[Option<SourceId>],
    ) -> Result<Vec<BatchItem>, AppError> {
        self.process_owned_sources(p, &owner(mind), ids).await
    }
}
