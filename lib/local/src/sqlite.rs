//! The embedded records store: one SQLite file in WAL mode.
//!
//! WAL lets readers run beside the one writer, and `busy_timeout` lets the `lore` CLI write while
//! `lore serve` runs on the same file. Schema migrations are numbered by `PRAGMA user_version`
//! and applied under `BEGIN IMMEDIATE`, so two processes opening a new file cannot both migrate.

use lore_app::StoreError;
use rusqlite::{Connection, OpenFlags};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

const READERS: usize = 4;

/// Each entry migrates from version `index` to `index + 1`. Never edit a shipped entry.
const MIGRATIONS: &[&str] = &[r#"
CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    storage_quota_bytes INTEGER NOT NULL,
    minds_limit INTEGER NOT NULL,
    sources_limit INTEGER NOT NULL,
    mind_source_limit INTEGER NOT NULL,
    rate_limit_per_minute INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    scopes TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX api_keys_by_workspace ON api_keys (workspace_id, id);
CREATE TABLE chatbots (
    id TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    descriptor TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    source_count INTEGER NOT NULL DEFAULT 0,
    conversation_count INTEGER NOT NULL DEFAULT 0,
    UNIQUE (workspace_id, slug)
);
CREATE INDEX chatbots_newest_first ON chatbots (workspace_id, created_at DESC, id DESC);
"#];

/// A pool of one writer and a few readers over one database file.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
}

struct Inner {
    writer: Mutex<Connection>,
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
}

pub(crate) fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

fn open_connection(path: &Path) -> rusqlite::Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the
    // last transactions, which is the usual trade for an embedded server.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(conn)
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let version: usize = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
    }
    tx.commit()
}

impl SqliteStore {
    /// Opens (creating when absent) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let mut writer = open_connection(path).map_err(unavailable)?;
        migrate(&mut writer).map_err(unavailable)?;
        let readers = (0..READERS)
            .map(|_| open_connection(path).map(Mutex::new))
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(unavailable)?;
        Ok(Self { inner: Arc::new(Inner { writer: Mutex::new(writer), readers, next_reader: AtomicUsize::new(0) }) })
    }

    /// Runs `f` with a reader connection on the blocking pool.
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let n = inner.next_reader.fetch_add(1, Ordering::Relaxed) % inner.readers.len();
            let conn = lock(&inner.readers[n]);
            f(&conn)
        })
        .await
        .map_err(unavailable)?
    }

    /// Runs `f` inside one write transaction on the blocking pool; commits when it returns `Ok`.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T, StoreError> + Send + 'static,
    {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let mut conn = lock(&inner.writer);
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate).map_err(unavailable)?;
            let out = f(&tx)?;
            tx.commit().map_err(unavailable)?;
            Ok(out)
        })
        .await
        .map_err(unavailable)?
    }
}

fn lock(m: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding a connection leaves no half-done transaction behind (it is rolled
    // back on drop), so the connection stays usable.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Maps a unique-constraint failure to `Conflict(what)`, anything else to `Unavailable`.
pub(crate) fn conflict_or_unavailable(e: rusqlite::Error, rules: &[(&str, &'static str)]) -> StoreError {
    if let rusqlite::Error::SqliteFailure(f, Some(msg)) = &e
        && f.code == rusqlite::ErrorCode::ConstraintViolation
        && let Some((_, what)) = rules.iter().find(|(needle, _)| msg.contains(needle))
    {
        return StoreError::Conflict(what);
    }
    unavailable(e)
}
