//! Builds the use cases over a backend's adapters, once per process.

use lore_app::{App, AppConfig, Ports};
use lore_local::{MemoryRateLimiter, SqliteStore};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where records and files live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// SQLite and files under the data dir: zero setup.
    Local,
    /// DynamoDB, S3, SQS, EventBridge and pgvector.
    Aws,
}

/// The database file inside a data dir.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("lore.db")
}

/// The embedded composition over `data_dir` (created when absent).
pub fn embedded(data_dir: &Path) -> anyhow::Result<App> {
    std::fs::create_dir_all(data_dir)
        .map_err(|e| anyhow::anyhow!("cannot create the data dir {}: {e}", data_dir.display()))?;
    let store = SqliteStore::open(&database_path(data_dir))
        .map_err(|e| anyhow::anyhow!("cannot open the database in {}: {e}", data_dir.display()))?;
    let store = Arc::new(store);
    let ports = Ports {
        workspaces: store.clone(),
        keys: store.clone(),
        chatbots: store,
        rate_limiter: Arc::new(MemoryRateLimiter::new()),
    };
    Ok(App::new(ports, AppConfig::default()))
}

/// The composition a backend names.
pub fn open(backend: Backend, data_dir: &Path) -> anyhow::Result<App> {
    match backend {
        Backend::Local => embedded(data_dir),
        Backend::Aws => anyhow::bail!(
            "the aws backend (DynamoDB, S3, SQS, EventBridge, pgvector) is not available in this build yet; use --backend local"
        ),
    }
}

/// The composition of a Lambda function, from its environment: `LORE_BACKEND` (default
/// `local`) and `LORE_DATA_DIR` (default `/tmp/lore`, the writable path on Lambda).
pub fn from_env() -> anyhow::Result<App> {
    let backend = match std::env::var("LORE_BACKEND").as_deref() {
        Ok("aws") => Backend::Aws,
        Ok("local") | Err(_) => Backend::Local,
        Ok(other) => anyhow::bail!("LORE_BACKEND must be 'local' or 'aws', not '{other}'"),
    };
    let data_dir = std::env::var_os("LORE_DATA_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/tmp/lore"));
    open(backend, &data_dir)
}
