//! The in-process job queue of `lore serve`. Not durable by itself: a queued run is also a
//! `processing` record with a lease, and a restarted server adopts such runs (see
//! `App::sweep_stale_runs`), so no job is lost to a crash.

use async_trait::async_trait;
use lore_app::knowledge_ports::{IngestJob, JobQueue};
use lore_app::ports::{StoreError, StoreResult};
use tokio::sync::mpsc;

pub struct LocalJobQueue {
    tx: mpsc::UnboundedSender<IngestJob>,
}

impl LocalJobQueue {
    /// The queue and the receiving end the workers pull from.
    pub fn new() -> (Self, mpsc::UnboundedReceiver<IngestJob>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }
}

#[async_trait]
impl JobQueue for LocalJobQueue {
    async fn enqueue(&self, job: IngestJob) -> StoreResult<()> {
        self.tx.send(job).map_err(|_| StoreError::Unavailable("the worker pool has stopped".into()))
    }
}
