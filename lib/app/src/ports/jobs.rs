//! The job queue: processing runs and answer-test runs.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::channel::inbound::InboundMessage;
use lore_domain::id::{ChannelId, SourceId, TestRunId, WorkspaceId};
use lore_domain::source::SourceOwner;

/// A processing run for the ingest worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngestJob {
    pub workspace_id: WorkspaceId,
    pub source_id: SourceId,
    pub generation: u64,
}

/// A run of answer tests (docs/api.md §21).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRunJob {
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub run_id: TestRunId,
}

/// A visitor's message on a platform, to be answered there (docs/api.md §24).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelJob {
    pub workspace_id: WorkspaceId,
    pub channel_id: ChannelId,
    pub message: InboundMessage,
}

/// Work for the workers (the ingest worker on AWS, the in-process workers of `lore serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    Ingest(IngestJob),
    TestRun(TestRunJob),
    /// Not behind processing runs: `lore serve` answers it at once beside the ingest workers; on
    /// AWS the ingest worker answers it beside a batch's runs (docs/ARCHITECTURE.md, "Channels").
    Channel(ChannelJob),
}

impl Job {
    pub fn workspace_id(&self) -> &WorkspaceId {
        match self {
            Job::Ingest(j) => &j.workspace_id,
            Job::TestRun(j) => &j.workspace_id,
            Job::Channel(j) => &j.workspace_id,
        }
    }
}

impl From<IngestJob> for Job {
    fn from(j: IngestJob) -> Self {
        Job::Ingest(j)
    }
}

impl From<ChannelJob> for Job {
    fn from(j: ChannelJob) -> Self {
        Job::Channel(j)
    }
}

impl From<TestRunJob> for Job {
    fn from(j: TestRunJob) -> Self {
        Job::TestRun(j)
    }
}

#[async_trait]
pub trait JobQueue: Send + Sync {
    async fn enqueue(&self, job: Job) -> StoreResult<()>;
}
