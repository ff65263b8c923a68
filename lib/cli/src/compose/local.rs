//! The embedded backend's storage ports: SQLite and files under the data dir, the fair
//! in-process job queue, the in-memory rate limiter and concurrency budgets.

use super::parts::StoragePorts;
use crate::data_dir::{database_path, private_data_dir, upload_signing_key};
use crate::settings::Settings;
use lore_local::{
    FairQueue, FileBlobStore, LocalJobQueue, LocalSignal, MemoryRateLimiter, SqliteStore, WakingEventBus,
};
use std::path::Path;
use std::sync::Arc;

pub(super) struct LocalStorage {
    pub ports: StoragePorts,
    /// The jobs the queue hands to whoever runs workers.
    pub jobs: Arc<FairQueue>,
    pub store: Arc<SqliteStore>,
}

/// Opens (and creates) the data dir. `signal` is raised on every published event, waking the
/// in-process dispatcher.
pub(super) fn storage(
    settings: &Settings,
    data_dir: &Path,
    public_base: &str,
    signal: &LocalSignal,
) -> anyhow::Result<LocalStorage> {
    private_data_dir(data_dir)?;
    let store = SqliteStore::open(&database_path(data_dir))
        .map_err(|e| anyhow::anyhow!("cannot open the database in {}: {e}", data_dir.display()))?;
    let store = Arc::new(store);
    let blobs = FileBlobStore::new(&data_dir.join("files"), public_base, upload_signing_key(data_dir)?);
    let (queue, jobs) = LocalJobQueue::new(settings.app.ingest_jobs_per_workspace);
    let ports = StoragePorts {
        workspaces: store.clone(),
        keys: store.clone(),
        chatbots: store.clone(),
        rate_limiter: Arc::new(MemoryRateLimiter::new()),
        key_windows: None,
        slots: Arc::new(lore_app::slots::MemorySlots::default()),
        sources: store.clone(),
        index: store.clone(),
        events: Arc::new(WakingEventBus::new(store.clone(), signal.clone())),
        blobs: Arc::new(blobs),
        jobs: Arc::new(queue),
        forms: store.clone(),
        hooks: store.clone(),
        deliveries: store.clone(),
        minds: store.clone(),
        conversations: store.clone(),
        tests: store.clone(),
        actions: store.clone(),
        channels: store.clone(),
        audit: store.clone(),
    };
    Ok(LocalStorage { ports, jobs, store })
}
