//! The embedded records store: one SQLite file in WAL mode.
//!
//! WAL lets readers run beside the one writer, and `busy_timeout` lets the `lore` CLI write while
//! `lore serve` runs on the same file. Schema migrations are numbered by `PRAGMA user_version`
//! and applied under `BEGIN IMMEDIATE`, so two processes opening a new file cannot both migrate.

use lore_app::StoreError;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

const READERS: usize = 4;

/// Each entry migrates from version `index` to `index + 1` (`lib/local/migrations/`, numbered in
/// order). Never edit a shipped one.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_workspaces_keys_chatbots.sql"),
    include_str!("../migrations/0002_sources_chunks.sql"),
    include_str!("../migrations/0003_keyword_index.sql"),
    include_str!("../migrations/0004_forms.sql"),
    include_str!("../migrations/0005_minds.sql"),
    include_str!("../migrations/0006_mind_sources.sql"),
    include_str!("../migrations/0007_pending_uploads.sql"),
    include_str!("../migrations/0008_mind_documents.sql"),
    include_str!("../migrations/0009_conversations.sql"),
    include_str!("../migrations/0010_lead_hook_mind.sql"),
    include_str!("../migrations/0011_secret_grace.sql"),
    include_str!("../migrations/0012_drop_fts.sql"),
    include_str!("../migrations/0013_deliveries_due_order.sql"),
    include_str!("../migrations/0014_chunk_token_signs.sql"),
    include_str!("../migrations/0015_published_chatbots.sql"),
    include_str!("../migrations/0016_corrections.sql"),
    include_str!("../migrations/0017_analytics.sql"),
    include_str!("../migrations/0018_source_metadata.sql"),
    include_str!("../migrations/0019_chunk_edits.sql"),
    include_str!("../migrations/0020_source_label_index.sql"),
    include_str!("../migrations/0021_chunk_language.sql"),
    include_str!("../migrations/0022_audit_log.sql"),
    include_str!("../migrations/0023_answer_tests.sql"),
    include_str!("../migrations/0024_actions.sql"),
    include_str!("../migrations/0025_channels.sql"),
];

/// A pool of one writer and a few readers over one database file.
#[derive(Clone)]
pub struct SqliteStore {
    inner: Arc<Inner>,
    /// Embeddings kept in memory for exact semantic search (see `vectors.rs`).
    pub(crate) vectors: Arc<crate::vectors::VectorCache>,
    /// Keyword postings kept in memory for BM25 search (see `keywords.rs`).
    pub(crate) keywords: Arc<crate::keywords::KeywordCache>,
}

struct Inner {
    path: PathBuf,
    writer: Mutex<Connection>,
    /// Writes waiting for the writer, and whether a thread is running them.
    queued: Mutex<WriteQueue>,
    /// Reader connections, each opened by its first use: a short-lived process (a Lambda
    /// answering one request, a CLI command) uses one or none, and each opened connection
    /// parses the schema on its first statement and holds its own page cache.
    readers: Vec<Mutex<Option<Connection>>>,
    next_reader: AtomicUsize,
    /// The connection that checkpoints the WAL (opened by the first checkpoint), and whether a
    /// checkpoint is running (see [`checkpoint_when_due`]).
    checkpointer: Mutex<Option<Connection>>,
    checkpointing: AtomicBool,
}

impl Inner {
    /// The connection of a reader slot, opened now if this is its first use. Never creates the
    /// file: the writer did, at open, and a file deleted since must not come back empty.
    fn reader<'a>(&self, slot: &'a mut Option<Connection>) -> Result<&'a Connection, StoreError> {
        if slot.is_none() {
            *slot = Some(open_connection(&self.path, false).map_err(unavailable)?);
        }
        Ok(slot.as_ref().expect("opened above"))
    }
}

/// A queued write: runs on the writer's connection inside the shared transaction and returns
/// what to tell its caller once that transaction has committed (or failed to).
type WriteJob = Box<dyn FnOnce(&Connection) -> Written + Send>;

struct Written {
    /// The write's own result was `Ok` (kept); otherwise its changes are rolled back alone.
    ok: bool,
    /// Hands the caller its result, or the commit's error.
    settle: Box<dyn FnOnce(Result<(), StoreError>) + Send>,
}

#[derive(Default)]
struct WriteQueue {
    jobs: Vec<WriteJob>,
    /// A blocking thread is running the queue (`run_queued_writes`) and will take what is
    /// pushed before it finds the queue empty.
    running: bool,
}

/// Writes run together in one transaction at most.
const WRITES_PER_TRANSACTION: usize = 64;

pub(crate) fn unavailable(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

/// The database holds webhook secrets in clear (they sign deliveries): it and its WAL and
/// shared-memory files are readable by the owner only. A new database is created empty with mode
/// 0600 before SQLite opens it (SQLite gives its `-wal`/`-shm` files the database file's mode);
/// an existing one is tightened.
fn restrict_to_owner(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
        for suffix in ["", "-wal", "-shm"] {
            let mut file = path.as_os_str().to_owned();
            file.push(suffix);
            match std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

fn open_connection(path: &Path, create: bool) -> rusqlite::Result<Connection> {
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if create {
        flags |= OpenFlags::SQLITE_OPEN_CREATE;
    }
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    enable_wal(&conn)?;
    // NORMAL is durable across process crashes in WAL mode; only a power loss can drop the
    // last transactions, which is the usual trade for an embedded server.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // A deleted row's bytes are overwritten, not left on a free page: an erased visitor
    // (docs/api.md §22) must not stay readable in the file. Costs a write of the freed space,
    // only when something is deleted or shrinks.
    conn.pragma_update(None, "secure_delete", "ON")?;
    // No memory map by default (only bulk reads map the file, see `mapped`): in WAL mode a
    // connection unmaps the whole file at every read transaction that follows another
    // connection's commit, so under steady writes each point read paid a `munmap` (a TLB
    // shootdown on every core) and page faults to map the file again.
    // Plans never depend on bound values. Without this, SQLite 3.50 folds a bound `LIMIT ?` into
    // the plan and re-prepares the statement at every run that rebinds it (every listing, search
    // and delivery claim): 14 % of the webhook dispatcher's write time. Our queries use no
    // `LIKE ?` prefix or statistics that bound values could improve.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    Ok(conn)
}

/// How much of the database file a bulk read maps.
const MMAP_BYTES: i64 = 1 << 30;

/// Runs `f`, a bulk read on `c` (the chunks behind a search index), with the database file
/// memory-mapped: pages are read straight from the OS page cache instead of being copied into
/// SQLite's own (the first semantic search at 100k chunks: 1.1 s instead of 1.7). The map is
/// dropped afterwards, as point reads are cheaper without one (`open_connection`).
pub(crate) fn mapped<T>(c: &Connection, f: impl FnOnce() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    c.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    let out = f();
    let unmapped = c.pragma_update(None, "mmap_size", 0);
    let out = out?;
    unmapped?;
    Ok(out)
}

/// Switches a new file to WAL. Two processes opening a new file at once (`lore serve` and the
/// CLI) race for that switch, and SQLite answers the loser `SQLITE_BUSY` at once, without the
/// busy handler: wait and try again, up to the busy timeout.
fn enable_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(f, _))
                if f.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// The schema version that added `chunks.language` (`0021_chunk_language.sql`).
const CHUNK_LANGUAGE_VERSION: usize = 21;

/// Detects the language of every chunk written before chunks kept one, one source at a time
/// (a chunk too short to tell takes its source's language, as at ingest).
fn detect_chunk_languages(tx: &Connection) -> rusqlite::Result<()> {
    let mut read = tx.prepare("SELECT rowid, content, source_id FROM chunks ORDER BY source_id, position")?;
    let mut write = tx.prepare("UPDATE chunks SET language = ?2 WHERE rowid = ?1")?;
    let mut rows = read.query([])?;
    let mut source: Vec<(i64, String)> = Vec::new();
    let mut current: Option<String> = None;
    let mut flush = |source: &mut Vec<(i64, String)>| -> rusqlite::Result<()> {
        let languages = lore_domain::language::Language::detect_parts(source.iter().map(|(_, c)| c.as_str()));
        for ((rowid, _), language) in source.drain(..).zip(languages) {
            if let Some(language) = language {
                write.execute(rusqlite::params![rowid, language.code()])?;
            }
        }
        Ok(())
    };
    while let Some(row) = rows.next()? {
        let (rowid, content, id): (i64, String, String) = (row.get(0)?, row.get(1)?, row.get(2)?);
        if current.as_deref() != Some(id.as_str()) {
            flush(&mut source)?;
            current = Some(id);
        }
        source.push((rowid, content));
    }
    flush(&mut source)
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    // Up to date (every start but the first after an upgrade): nothing to lock or check.
    let version: usize = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version >= MIGRATIONS.len() {
        return Ok(());
    }
    // Table rebuilds (DROP + RENAME) must not fire ON DELETE CASCADE into the tables that
    // reference the rebuilt one; foreign keys can only be switched outside a transaction.
    conn.pragma_update(None, "foreign_keys", "OFF")?;
    let migrated = (|| {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have migrated meanwhile.
        let version: usize = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version >= MIGRATIONS.len() {
            return tx.commit();
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
            tx.execute_batch(sql)?;
            if i + 1 == CHUNK_LANGUAGE_VERSION {
                detect_chunk_languages(&tx)?;
            }
            tx.pragma_update(None, "user_version", i + 1)?;
        }
        let broken: Option<String> = tx.query_row("PRAGMA foreign_key_check", [], |r| r.get(0)).optional()?;
        if let Some(table) = broken {
            return Err(rusqlite::Error::InvalidColumnName(format!("migration broke a reference of table {table}")));
        }
        tx.commit()
    })();
    conn.pragma_update(None, "foreign_keys", "ON")?;
    migrated
}

impl SqliteStore {
    /// Opens (creating when absent) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        restrict_to_owner(path).map_err(unavailable)?;
        let mut writer = open_connection(path, true).map_err(unavailable)?;
        migrate(&mut writer).map_err(unavailable)?;
        // Instead of SQLite's automatic checkpoint, which runs inside the commit that grows the
        // WAL past its threshold: see `checkpoint_when_due`.
        writer.wal_hook(Some(note_wal_frames));
        let readers = (0..READERS).map(|_| Mutex::new(None)).collect();
        Ok(Self {
            inner: Arc::new(Inner {
                path: path.to_owned(),
                writer: Mutex::new(writer),
                queued: Mutex::new(WriteQueue::default()),
                readers,
                next_reader: AtomicUsize::new(0),
                checkpointer: Mutex::new(None),
                checkpointing: AtomicBool::new(false),
            }),
            vectors: Arc::new(crate::vectors::VectorCache::default()),
            keywords: Arc::new(crate::keywords::KeywordCache::default()),
        })
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
            let mut slot = lock(&inner.readers[n]);
            f(inner.reader(&mut slot)?)
        })
        .await
        .map_err(unavailable)?
    }

    /// Runs `f`, a lookup by key that reads a row or two, with a free reader connection right on
    /// the calling thread; like [`Self::read`] when every reader is busy. Handing such a lookup to
    /// the blocking pool costs more than the lookup itself (thread wake-ups, context switches, a
    /// contended mutex; "API overhead" in docs/benchmarks.md), and in WAL mode a reader does not
    /// wait for the writer (only, rarely, for a recovery of the WAL index), so the runtime thread
    /// is held for tens of microseconds. Scans, searches and listings keep [`Self::read`].
    pub(crate) async fn lookup<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let readers = &self.inner.readers;
        let first = self.inner.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..readers.len() {
            let mut slot = match readers[(first + i) % readers.len()].try_lock() {
                Ok(slot) => slot,
                Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => continue,
            };
            return f(self.inner.reader(&mut slot)?);
        }
        self.read(f).await
    }

    /// Runs `f` in a write transaction on the blocking pool; its changes are kept when it returns
    /// `Ok` and rolled back when it fails (or panics), and the call returns once they are
    /// committed.
    ///
    /// Group commit: writes queue up, and one blocking thread at a time (started by the write
    /// that finds none running) runs every queued write in one transaction, each inside its own
    /// savepoint, in the order they were queued. A busy server (webhook outcomes, ingest runs,
    /// form submissions) thus pays one `BEGIN` / `COMMIT`, one WAL append and one thread
    /// hand-off per batch instead of per write. A write sees the ones before it, as before.
    pub(crate) async fn write<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (answer, answered) = tokio::sync::oneshot::channel::<Result<T, StoreError>>();
        let job: WriteJob = Box::new(move |conn| {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(conn)))
                .unwrap_or_else(|_| Err(StoreError::Unavailable("a write panicked; it was rolled back".into())));
            let ok = out.is_ok();
            let settle = Box::new(move |committed: Result<(), StoreError>| {
                let _ = answer.send(if ok { committed.and(out) } else { out });
            });
            Written { ok, settle }
        });
        let start_runner = {
            let mut queue = lock(&self.inner.queued);
            queue.jobs.push(job);
            !std::mem::replace(&mut queue.running, true)
        };
        // One thread runs the queue at a time; a write queued meanwhile rides along instead of
        // waking a blocking thread that would only wait for the writer and find nothing left.
        // Not awaited: the answer comes with the commit of whichever batch ran this write.
        if start_runner {
            let inner = self.inner.clone();
            drop(tokio::task::spawn_blocking(move || run_queued_writes(&inner)));
        }
        answered.await.map_err(|_| StoreError::Unavailable("the write was dropped".into()))?
    }
}

/// Takes the writer and runs what is queued, in transactions of at most
/// [`WRITES_PER_TRANSACTION`] writes, until the queue is empty; then the next write starts a
/// runner again (the flag is cleared under the queue's lock, so no write is left behind).
fn run_queued_writes(inner: &Arc<Inner>) {
    /// A panic outside the writes themselves (those are caught) ends this runner: what is
    /// queued then fails ("dropped") instead of waiting for a runner that is gone.
    struct Runner<'a>(&'a Inner);
    impl Drop for Runner<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                let mut queue = lock(&self.0.queued);
                queue.running = false;
                queue.jobs.clear();
            }
        }
    }
    let _runner = Runner(inner);
    let conn = lock(&inner.writer);
    loop {
        let batch: Vec<WriteJob> = {
            let mut queue = lock(&inner.queued);
            if queue.jobs.is_empty() {
                queue.running = false;
                return;
            }
            let n = queue.jobs.len().min(WRITES_PER_TRANSACTION);
            queue.jobs.drain(..n).collect()
        };
        run_in_one_transaction(&conn, batch);
        checkpoint_when_due(inner, &conn);
    }
}

/// WAL frames after which the log is copied back into the database file (SQLite's own default
/// for its automatic checkpoint).
const CHECKPOINT_FRAMES: u32 = 1000;

/// WAL frames (~40 MB) at which the writer checkpoints itself, as SQLite's automatic checkpoint
/// did: the bound on the WAL when the checkpoints off the writer fall behind a stream of writes.
const CHECKPOINT_CEILING: u32 = 10 * CHECKPOINT_FRAMES;

thread_local! {
    /// Frames in the WAL after the last commit of the writer on this thread (`note_wal_frames`).
    static WAL_FRAMES: Cell<u32> = const { Cell::new(0) };
}

/// The writer's WAL hook: SQLite calls it on the committing thread after each commit.
fn note_wal_frames(_: &rusqlite::hooks::Wal, frames: std::ffi::c_int) -> rusqlite::Result<()> {
    WAL_FRAMES.with(|f| f.set(u32::try_from(frames).unwrap_or(0)));
    Ok(())
}

/// Checkpoints the WAL on a thread of its own once the last commit left it at
/// [`CHECKPOINT_FRAMES`] or more. SQLite's automatic checkpoint runs inside that commit, on
/// the writer, and a checkpoint syncs the WAL and the database file to disk: every write
/// queued behind it waited for two `fsync`s. Off the writer, the checkpoint is passive (it
/// never blocks the writer or a reader and copies what no reader still needs); if the WAL is
/// still long after it, the next commit starts another. Durability is unchanged: commits
/// never synced the WAL (`synchronous = NORMAL`). See docs/decisions.md for what it gains.
/// At [`CHECKPOINT_CEILING`] the writer checkpoints on its own connection before going on.
fn checkpoint_when_due(inner: &Arc<Inner>, writer: &Connection) {
    let frames = WAL_FRAMES.with(|f| f.replace(0));
    if frames >= CHECKPOINT_CEILING {
        return checkpoint(Ok(writer));
    }
    if frames < CHECKPOINT_FRAMES || inner.checkpointing.swap(true, Ordering::AcqRel) {
        return;
    }
    let run = {
        let inner = inner.clone();
        move || {
            /// Lets the next checkpoint start, also after a panic.
            struct Done<'a>(&'a AtomicBool);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(false, Ordering::Release);
                }
            }
            let _done = Done(&inner.checkpointing);
            let mut slot = lock(&inner.checkpointer);
            checkpoint(inner.reader(&mut slot));
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(rt) => drop(rt.spawn_blocking(run)),
        Err(_) => run(),
    }
}

impl SqliteStore {
    /// Copies the WAL into the database file and empties it (`wal_checkpoint(TRUNCATE)`): the
    /// WAL keeps earlier versions of pages, so after an erasure it still holds what was erased
    /// until this runs. Best effort: readers in the middle of a read make it stop short, and the
    /// next truncating checkpoint (the next erasure) finishes the job; a failure is logged.
    pub(crate) async fn forget_overwritten(&self) {
        let done = self
            .read(|c| c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get::<_, i64>(0)).map_err(unavailable))
            .await;
        match done {
            Ok(0) => {}
            Ok(_) => tracing::warn!("a reader held the WAL; it is emptied at the next erasure"),
            Err(e) => tracing::warn!(error = %e, "could not empty the WAL after an erasure"),
        }
    }
}

/// A passive checkpoint on `conn`; a failure is logged, and the next commit tries again.
fn checkpoint(conn: Result<&Connection, StoreError>) {
    let done = conn.and_then(|c| c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())).map_err(unavailable));
    if let Err(e) = done {
        tracing::warn!(error = %e, "could not checkpoint the WAL; the next commit tries again");
    }
}

/// A write that cannot be started is dropped unrun: its caller gets `Unavailable`, and the cause
/// is logged here once.
fn run_in_one_transaction(conn: &Connection, batch: Vec<WriteJob>) {
    if !conn.is_autocommit() {
        // Left open by a panic between `BEGIN` and `COMMIT` (the writes themselves are caught):
        // nobody was told it committed, so it goes, and the writer stays usable.
        let _ = conn.execute_batch("ROLLBACK");
    }
    // Cached statements: parsing them for every write cost more than running them.
    let run = |sql: &str| conn.prepare_cached(sql).and_then(|mut st| st.execute([])).map(|_| ());
    if let Err(e) = run("BEGIN IMMEDIATE") {
        tracing::error!(error = %e, writes = batch.len(), "could not begin a write transaction");
        return;
    }
    let mut written = Vec::with_capacity(batch.len());
    for job in batch {
        if let Err(e) = run("SAVEPOINT write") {
            tracing::error!(error = %e, "could not open a savepoint for a write");
            continue;
        }
        let w = job(conn);
        let ended =
            if w.ok { run("RELEASE write") } else { run("ROLLBACK TO write").and_then(|()| run("RELEASE write")) };
        match ended {
            Ok(()) => written.push(w),
            Err(e) => (w.settle)(Err(unavailable(e))),
        }
    }
    let committed = run("COMMIT").map_err(unavailable);
    if committed.is_err() {
        // Nothing of this batch was kept; the connection must not stay inside the transaction.
        let _ = conn.execute_batch("ROLLBACK");
    }
    for w in written {
        (w.settle)(committed.clone());
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding a connection leaves it usable: a reader holds no transaction, and
    // the writer rolls back one left open before its next batch (`run_in_one_transaction`).
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of `migrations/` is applied, in the order of its number: a new file that is
    /// not listed in `MIGRATIONS` would never run.
    #[test]
    fn every_migration_file_is_listed_in_order() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".sql"))
            .collect();
        files.sort();
        assert_eq!(files.len(), MIGRATIONS.len());
        for (i, (name, sql)) in files.iter().zip(MIGRATIONS).enumerate() {
            assert!(name.starts_with(&format!("{:04}_", i + 1)), "{name} is number {}", i + 1);
            assert_eq!(std::fs::read_to_string(dir.join(name)).unwrap(), *sql, "{name}");
        }
    }

    /// The reads every search and every quota check make are answered from indexes: the rows
    /// hold a text source's whole content before the columns they need.
    #[tokio::test]
    async fn search_labels_and_storage_sums_read_indexes_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
        let plans = store
            .read(|c| {
                let plan = |sql: &str| -> rusqlite::Result<String> {
                    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))?;
                    let rows = st.query_map(["ws", "owner"], |r| r.get::<_, String>(3))?;
                    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?.join("; "))
                };
                use lore_domain::id::{ChatbotId, MindId};
                use lore_domain::source::SourceOwner;
                let chatbot = plan(crate::sources::ready_labels_sql(&SourceOwner::Chatbot(ChatbotId::generate())));
                let mind = plan(crate::sources::ready_labels_sql(&SourceOwner::Mind(MindId::generate())));
                let labels = format!("{} / {}", chatbot.map_err(unavailable)?, mind.map_err(unavailable)?);
                Ok((labels, {
                    let mut st = c.prepare(&format!("EXPLAIN QUERY PLAN {}", crate::sources::STORAGE_USED)).unwrap();
                    let rows = st.query_map(["ws"], |r| r.get::<_, String>(3)).unwrap();
                    rows.collect::<rusqlite::Result<Vec<_>>>().unwrap().join("; ")
                }))
            })
            .await
            .unwrap();
        assert!(
            plans.0.contains("USING COVERING INDEX sources_chatbot_labels")
                && plans.0.contains("USING COVERING INDEX sources_mind_labels"),
            "{}",
            plans.0
        );
        assert!(plans.1.contains("sources USING COVERING INDEX sources_by_workspace"), "{}", plans.1);
    }

    /// Writes queued while the writer is busy run together: each keeps its own outcome (a failing
    /// or panicking one is rolled back alone, the others are kept), in the order they came.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn queued_writes_share_a_transaction_and_keep_their_own_outcomes() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
        store.write(|c| c.execute_batch("CREATE TABLE t (x INTEGER)").map_err(unavailable)).await.unwrap();
        let insert = |x: i64| move |c: &Connection| c.execute("INSERT INTO t VALUES (?1)", [x]).map_err(unavailable);
        // Another thread holds the writer until told to let go.
        let (release, released) = std::sync::mpsc::channel::<()>();
        let (taken, is_taken) = std::sync::mpsc::channel::<()>();
        let holder = {
            let inner = store.inner.clone();
            std::thread::spawn(move || {
                let _writer = inner.writer.lock().unwrap();
                taken.send(()).unwrap();
                released.recv().unwrap();
            })
        };
        is_taken.recv().unwrap();
        let mut calls = Vec::new();
        for x in 1..=4i64 {
            let s = store.clone();
            calls.push(tokio::spawn(async move {
                match x {
                    2 => s.write(move |c| insert(x)(c).and(Err::<usize, _>(StoreError::Conflict("two")))).await,
                    3 => {
                        s.write(move |c| -> Result<usize, StoreError> {
                            insert(x)(c)?;
                            panic!("three")
                        })
                        .await
                    }
                    _ => s.write(insert(x)).await,
                }
            }));
            // Queued in this order before the writer is free.
            while store.inner.queued.lock().unwrap().jobs.len() < x as usize {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        }
        release.send(()).unwrap();
        holder.join().unwrap();
        let mut outcomes = Vec::new();
        for call in calls {
            outcomes.push(call.await.unwrap());
        }
        assert_eq!(outcomes[0], Ok(1));
        assert_eq!(outcomes[1], Err(StoreError::Conflict("two")));
        assert!(matches!(&outcomes[2], Err(StoreError::Unavailable(m)) if m.contains("panicked")));
        assert_eq!(outcomes[3], Ok(1));
        let kept: Vec<i64> = store
            .read(|c| {
                let mut st = c.prepare("SELECT x FROM t ORDER BY rowid").map_err(unavailable)?;
                let rows = st.query_map([], |r| r.get(0)).map_err(unavailable)?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
            })
            .await
            .unwrap();
        assert_eq!(kept, [1, 4]);
        store.write(insert(5)).await.unwrap();
    }

    /// A store in `dir` with an empty table `t` of blobs, and its file's path.
    async fn blob_store(dir: &Path) -> (PathBuf, SqliteStore) {
        let path = dir.join("lore.db");
        let store = SqliteStore::open(&path).unwrap();
        store.write(|c| c.execute_batch("CREATE TABLE t (x BLOB)").map_err(unavailable)).await.unwrap();
        (path, store)
    }

    /// `n` commits of one 16,000-byte blob each (six WAL frames: four overflow pages).
    async fn insert_blobs(store: &SqliteStore, n: u32) {
        for _ in 0..n {
            store
                .write(|c| c.execute("INSERT INTO t VALUES (zeroblob(16000))", []).map_err(unavailable))
                .await
                .unwrap();
        }
    }

    /// Writes that grow the WAL past its threshold get it copied back into the database file
    /// (by the checkpoint off the writer: SQLite's own automatic checkpoint is replaced).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_long_wal_is_checkpointed_into_the_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let (path, store) = blob_store(dir.path()).await;
        let file_len = || std::fs::metadata(&path).unwrap().len();
        let before = file_len();
        // 300 commits of six WAL frames each (four new overflow pages): past `CHECKPOINT_FRAMES`.
        // Whenever the checkpoint starts, it copies the first 1,000 frames at least, which hold
        // over 600 new pages.
        insert_blobs(&store, 300).await;
        let copied = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while file_len() < before + 500 * 4096 {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        });
        copied.await.expect("the WAL was never checkpointed into the database file");
    }

    /// With the checkpoint off the writer stuck (its flag held), the writer checkpoints itself
    /// once the WAL reaches the ceiling: the WAL stays bounded.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_writer_checkpoints_itself_at_the_ceiling() {
        let dir = tempfile::tempdir().unwrap();
        let (path, store) = blob_store(dir.path()).await;
        store.inner.checkpointing.store(true, Ordering::SeqCst);
        let file_len = || std::fs::metadata(&path).unwrap().len();
        let before = file_len();
        // Six WAL frames a commit: the ceiling falls before the last of these commits.
        insert_blobs(&store, CHECKPOINT_CEILING / 6 + 10).await;
        // The writer checkpointed right after the commit that reached the ceiling, before it
        // ran the writes after it: nothing to wait for.
        assert!(file_len() >= before + u64::from(CHECKPOINT_CEILING) / 2 * 4096, "the WAL was not checkpointed");
    }

    /// Many writers at once, arriving while a runner is finishing or has just stopped: every
    /// write is committed and answered (none waits for a runner that already left).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_write_of_a_burst_is_run_and_answered() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
        store.write(|c| c.execute_batch("CREATE TABLE t (x INTEGER)").map_err(unavailable)).await.unwrap();
        let mut calls = tokio::task::JoinSet::new();
        for task in 0..16_i64 {
            let s = store.clone();
            calls.spawn(async move {
                for i in 0..50_i64 {
                    let x = task * 100 + i;
                    s.write(move |c| c.execute("INSERT INTO t VALUES (?1)", [x]).map_err(unavailable)).await?;
                    if i % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
                Ok::<(), StoreError>(())
            });
        }
        let all = tokio::time::timeout(std::time::Duration::from_secs(60), async {
            while let Some(done) = calls.join_next().await {
                done.unwrap().unwrap();
            }
        });
        all.await.expect("a write was never answered");
        let n: i64 =
            store.read(|c| c.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0)).map_err(unavailable)).await.unwrap();
        assert_eq!(n, 16 * 50);
        // The runner stops once it finds the queue empty, just after the last answer.
        let stopped = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while lock(&store.inner.queued).running {
                tokio::task::yield_now().await;
            }
        });
        stopped.await.expect("the runner never stopped");
    }

    /// A lookup runs on the caller's thread when a reader is free, and waits for one on the
    /// blocking pool when every reader is busy (it is never refused or run without a reader).
    #[tokio::test]
    async fn a_lookup_runs_in_place_and_waits_when_every_reader_is_busy() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
        let caller = std::thread::current().id();
        let (thread, one) = store
            .lookup(move |c| {
                Ok((std::thread::current().id(), c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0)).unwrap()))
            })
            .await
            .unwrap();
        assert_eq!((thread, one), (caller, 1));

        let guards: Vec<_> = store.inner.readers.iter().map(lock).collect();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let waiting = store.clone();
        let task = tokio::spawn(async move {
            tx.send(()).unwrap();
            waiting
                .lookup(|c| {
                    Ok((std::thread::current().id(), c.query_row("SELECT 2", [], |r| r.get::<_, i64>(0)).unwrap()))
                })
                .await
        });
        rx.await.unwrap();
        assert!(!task.is_finished(), "a lookup went ahead without a reader");
        drop(guards);
        let (thread, two) = task.await.unwrap().unwrap();
        assert_eq!(two, 2);
        assert_ne!(thread, caller, "the busy case runs on the blocking pool");
    }

    /// Readers open on first use, one slot at a time, and a reader never creates the file: a
    /// database deleted under a running store fails its reads instead of coming back empty.
    #[tokio::test]
    async fn readers_open_on_first_use_and_never_recreate_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore.db");
        let store = SqliteStore::open(&path).unwrap();
        let opened = |store: &SqliteStore| store.inner.readers.iter().filter(|r| lock(r).is_some()).count();
        assert_eq!(opened(&store), 0, "no reader is opened by `open`");
        let one: i64 = store.read(|c| Ok(c.query_row("SELECT 1", [], |r| r.get(0)).unwrap())).await.unwrap();
        assert_eq!((one, opened(&store)), (1, 1));

        std::fs::remove_file(&path).unwrap();
        for _ in 0..READERS {
            let _ = store.read(|c| Ok(c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0)).ok())).await;
        }
        assert!(!path.exists(), "a reader recreated the deleted database");
    }

    /// A cached statement with a bound `LIMIT` runs again with new values without being
    /// compiled again (the query planner does not look at bound values).
    #[test]
    fn a_bound_limit_does_not_recompile_the_statement() {
        let dir = tempfile::tempdir().unwrap();
        let conn = open_connection(&dir.path().join("lore.db"), true).unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);").unwrap();
        for limit in [1_i64, 2, 3, 2] {
            let mut st = conn.prepare_cached("SELECT x FROM t ORDER BY x LIMIT ?1").unwrap();
            let n = st.query_map([limit], |r| r.get::<_, i64>(0)).unwrap().count() as i64;
            assert_eq!(n, limit);
        }
        let st = conn.prepare_cached("SELECT x FROM t ORDER BY x LIMIT ?1").unwrap();
        assert_eq!(st.get_status(rusqlite::StatementStatus::RePrepare), 0);
    }

    /// Point reads leave the database file unmapped (in WAL mode a mapped connection unmaps it
    /// at each read after another connection's commit); a bulk read maps it while it runs, and
    /// the map is dropped afterwards, also when the read fails.
    #[cfg(target_os = "linux")]
    #[test]
    fn only_a_bulk_read_maps_the_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore.db");
        // The file itself, not its `-shm` index (which WAL mode always maps).
        let is_mapped =
            || std::fs::read_to_string("/proc/self/maps").unwrap().lines().any(|l| l.ends_with(path.to_str().unwrap()));
        let conn = open_connection(&path, true).unwrap();
        // Checkpointed: what is only in the WAL is read from there, never through the map.
        conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3); PRAGMA wal_checkpoint;")
            .unwrap();
        let sum = |c: &Connection| c.query_row("SELECT sum(x) FROM t", [], |r| r.get::<_, i64>(0));
        assert_eq!(sum(&conn).unwrap(), 6);
        assert!(!is_mapped(), "a point read mapped the file");
        let inside = mapped(&conn, || Ok((sum(&conn)?, is_mapped()))).unwrap();
        assert_eq!(inside, (6, true));
        assert!(!is_mapped(), "the map outlived the bulk read");
        let failed =
            mapped(&conn, || sum(&conn).and_then(|_| conn.query_row("SELECT nope FROM t", [], |r| r.get::<_, i64>(0))));
        assert!(failed.is_err());
        assert!(!is_mapped(), "the map outlived a failed bulk read");
    }

    /// A data dir written before Mind sources existed (schema version 5) keeps its chatbot
    /// sources and, through the rebuild of `sources`, their chunks: the rebuild must not
    /// cascade into `chunks`.
    #[test]
    fn the_owner_migration_keeps_sources_and_their_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore.db");
        {
            let mut conn = open_connection(&path, true).unwrap();
            let tx = conn.transaction().unwrap();
            for sql in &MIGRATIONS[..5] {
                tx.execute_batch(sql).unwrap();
            }
            tx.pragma_update(None, "user_version", 5).unwrap();
            tx.execute_batch(
                "INSERT INTO workspaces VALUES ('ws_1', 'w', 1, 1, 1, 1, 1, 0);
                 INSERT INTO chatbots (id, workspace_id, name, slug, descriptor, created_at, updated_at, source_count)
                     VALUES ('cb_1', 'ws_1', 'b', 'b', 'd', 0, 0, 1);
                 INSERT INTO sources (id, workspace_id, chatbot_id, type, name, status, spec, size_bytes, created_at,
                     updated_at) VALUES ('src_1', 'ws_1', 'cb_1', 'text', 't', 'ready', '{}', 5, 0, 0);
                 INSERT INTO chunks (id, workspace_id, chatbot_id, source_id, position, content, content_hash, model,
                     embedding) VALUES ('src_1:1:0', 'ws_1', 'cb_1', 'src_1', 0, 'hello', 'h', 'm', x'');",
            )
            .unwrap();
            tx.commit().unwrap();
        }
        let mut conn = open_connection(&path, true).unwrap();
        migrate(&mut conn).unwrap();
        let version: usize = conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
        assert_eq!(version, MIGRATIONS.len());
        let owner: String =
            conn.query_row("SELECT owner_id FROM sources WHERE id = 'src_1'", [], |r| r.get(0)).unwrap();
        assert_eq!(owner, "cb_1");
        let chunks: i64 = conn.query_row("SELECT COUNT(*) FROM chunks", [], |r| r.get(0)).unwrap();
        assert_eq!(chunks, 1, "no cascade into chunks");
        let fts: i64 = conn
            .query_row("SELECT COUNT(*) FROM sqlite_schema WHERE name LIKE 'chunks_fts%'", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fts, 0, "the FTS5 table and its triggers are gone");
        let fk: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0)).unwrap();
        assert!(fk, "foreign keys are on again");
        // The references still hold: deleting the chatbot takes its source and its chunks.
        conn.execute("DELETE FROM chatbots WHERE id = 'cb_1'", []).unwrap();
        let left: i64 = conn.query_row("SELECT COUNT(*) FROM chunks", [], |r| r.get(0)).unwrap();
        assert_eq!(left, 0);
    }

    /// A data dir written before the stored shapes (schema version 7): a Mind's settings in their
    /// own columns, a podcast spec with `sizeBytes` and `format`, a never-refreshed URL with
    /// `lastRefreshedAt: null`. After the migration the store reads them as they were.
    #[tokio::test]
    async fn records_stored_before_the_stored_shapes_read_back_the_same() {
        use lore_app::ports::{MindStore, SourceStore};
        use lore_domain::id::{MindId, SourceId, WorkspaceId};
        use lore_domain::source::SourceSpec;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore.db");
        let (ws, mind, podcast, url) =
            (WorkspaceId::generate(), MindId::generate(), SourceId::generate(), SourceId::generate());
        {
            let mut conn = open_connection(&path, true).unwrap();
            let tx = conn.transaction().unwrap();
            tx.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
            for sql in &MIGRATIONS[..7] {
                tx.execute_batch(sql).unwrap();
            }
            tx.pragma_update(None, "user_version", 7).unwrap();
            tx.execute_batch(&format!(
                r##"INSERT INTO workspaces VALUES ('{ws}', 'w', 1, 1, 1, 1, 1, 0);
                 INSERT INTO minds (id, workspace_id, name, slug, headline, bio, avatar_url, system_prompt,
                     welcome_message, suggested_questions, expertise_areas, is_published, show_sources,
                     collect_email_before_chat, temperature, theme, social_links, voice_enabled, voice_id, voice_speed,
                     created_at, updated_at, revision)
                 VALUES ('{mind}', '{ws}', 'Ada', 'ada', 'Engineer', NULL, NULL, 'Be brief.', NULL,
                     '["Who are you?"]', '[]', 1, 0, 1, 0.4, '{{"mode":"dark"}}', NULL, 1, 'nova', 1.25, 10, 20, 3);
                 INSERT INTO sources (id, workspace_id, mind_id, type, name, status, spec, size_bytes, created_at,
                     updated_at) VALUES ('{podcast}', '{ws}', '{mind}', 'podcast', 'ep1.mp3', 'ready',
                     '{{"fileName":"ep1.mp3","mimeType":"audio/mpeg","format":"mp3","blobKey":"k","fileUrl":"u","sizeBytes":7}}',
                     7, 0, 0);
                 INSERT INTO sources (id, workspace_id, mind_id, type, name, status, spec, size_bytes, created_at,
                     updated_at) VALUES ('{url}', '{ws}', '{mind}', 'url', 'site', 'pending',
                     '{{"url":"https://e.com/","crawlDepth":2,"pagesCrawled":0,"lastRefreshedAt":null}}', 0, 1, 1);"##
            ))
            .unwrap();
            tx.commit().unwrap();
        }
        let store = SqliteStore::open(&path).unwrap();
        let m = store.get_mind(&ws, &mind).await.unwrap().expect("the mind");
        assert_eq!((m.name.as_str(), m.slug.as_str(), m.revision), ("Ada", "ada", 3));
        assert_eq!(m.headline.as_ref().map(|h| h.as_str()), Some("Engineer"));
        assert_eq!(m.system_prompt.as_ref().map(|p| p.as_str()), Some("Be brief."));
        assert_eq!(m.settings.suggested_questions.as_slice(), ["Who are you?".to_owned()]);
        assert!(m.is_published && !m.settings.show_sources && m.settings.collect_email_before_chat && m.voice_enabled);
        assert_eq!((m.temperature.value(), m.voice_id.as_str(), m.voice_speed.value()), (0.4, "nova", 1.25));
        assert_eq!(m.settings.theme.entries(), vec![("mode", "dark".to_owned())]);
        assert_eq!((m.created_at.millis(), m.updated_at.millis()), (10, 20));
        assert_eq!((m.sources.ready, m.sources.pending), (1, 1));
        let SourceSpec::Podcast(a) = store.get_source(&ws, &podcast).await.unwrap().expect("podcast").spec else {
            panic!("a podcast spec")
        };
        assert_eq!((a.size_bytes, a.format.as_str(), a.blob_key.as_str()), (7, "mp3", "k"));
        let spec = store.get_source(&ws, &url).await.unwrap().expect("url").spec;
        assert!(matches!(spec, SourceSpec::Url { pages_crawled: 0, last_refreshed_at: None, .. }), "{spec:?}");
        // And the Mind takes updates in the new shape.
        let mut changed = m.clone();
        changed.revision += 1;
        changed.headline = None;
        assert_eq!(store.update_mind(&changed).await.unwrap(), lore_app::ports::RevisedWrite::Done);
        assert!(store.get_mind(&ws, &mind).await.unwrap().unwrap().headline.is_none());
    }
}
