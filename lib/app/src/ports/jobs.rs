//! The ingest job queue.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::id::{SourceId, WorkspaceId};

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
