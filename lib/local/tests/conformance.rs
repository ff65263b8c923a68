//! The port conformance suites on the embedded adapters (SQLite file, files on disk, in-process
//! rate limiter).

use lore_app::conformance::{MindStores, Stores};
use lore_local::{FileBlobStore, MemoryRateLimiter, SqliteStore};
use std::path::Path;
use std::sync::Arc;

fn stores(store: SqliteStore, files: &Path) -> Stores {
    let store = Arc::new(store);
    Stores {
        workspaces: store.clone(),
        keys: store.clone(),
        chatbots: store.clone(),
        rate_limiter: Arc::new(MemoryRateLimiter::new()),
        sources: store.clone(),
        index: store.clone(),
        events: store.clone(),
        forms: store.clone(),
        hooks: store.clone(),
        deliveries: store,
        blobs: Arc::new(FileBlobStore::new(files, "http://127.0.0.1:3000", b"test-key".to_vec())),
    }
}

/// The stores of one conformance suite: a fresh data dir.
async fn suite_stores(_suite: &str) -> (Stores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
    (stores(store, &dir.path().join("files")), dir)
}

async fn mind_stores(_suite: &str) -> (MindStores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    let stores = MindStores {
        workspaces: store.clone(),
        minds: store.clone(),
        sources: store.clone(),
        chatbots: store.clone(),
        conversations: store,
    };
    (stores, dir)
}

lore_app::conformance_tests!(suite_stores => records);
lore_app::conformance_tests!(suite_stores => files);
lore_app::conformance_tests!(suite_stores => search);
lore_app::conformance_tests!(mind_stores => minds);

/// The audit log: a fresh data dir.
async fn audit_store(_suite: &str) -> (lore_app::conformance::AuditStores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    (
        lore_app::conformance::AuditStores {
            audit: store.clone(),
            workspaces: store.clone(),
            keys: store.clone(),
            hooks: store,
        },
        dir,
    )
}

lore_app::conformance_tests!(audit_store => audit);

/// Answer tests: a fresh data dir.
async fn test_stores(_suite: &str) -> (lore_app::conformance::TestStores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    (lore_app::conformance::TestStores { workspaces: store.clone(), chatbots: store.clone(), tests: store }, dir)
}

lore_app::conformance_tests!(test_stores => answer_tests);

/// Actions: a fresh data dir.
async fn action_stores(_suite: &str) -> (lore_app::conformance::ActionStores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    (lore_app::conformance::ActionStores { workspaces: store.clone(), chatbots: store.clone(), actions: store }, dir)
}

lore_app::conformance_tests!(action_stores => actions);

/// Channels: a fresh data dir.
async fn channel_stores(_suite: &str) -> (lore_app::conformance::ChannelStores, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(&dir.path().join("lore.db")).unwrap());
    let stores = lore_app::conformance::ChannelStores {
        workspaces: store.clone(),
        chatbots: store.clone(),
        conversations: store.clone(),
        channels: store,
    };
    (stores, dir)
}

lore_app::conformance_tests!(channel_stores => channels);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_stores_on_one_file_share_records_and_migrate_once() {
    // `lore serve` and the CLI open the same file from two processes; two pools model that.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    let open = |p: std::path::PathBuf| tokio::task::spawn_blocking(move || SqliteStore::open(&p));
    let (a, b) = tokio::join!(open(path.clone()), open(path.clone()));
    let files = dir.path().join("files");
    let (a, b) = (stores(a.unwrap().unwrap(), &files), stores(b.unwrap().unwrap(), &files));
    lore_app::conformance::workspaces(&a, "shared").await;
    let seen_by_b = b.workspaces.list_workspaces().await.unwrap();
    assert_eq!(seen_by_b.len(), 2, "the second pool sees the first one's writes");
    lore_app::conformance::chatbot_slug_race(&b, "shared").await;
    lore_app::conformance::processing_race(&b, "shared").await;
}

#[tokio::test]
async fn reopening_keeps_data_and_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    let files = dir.path().join("files");
    lore_app::conformance::workspaces(&stores(SqliteStore::open(&path).unwrap(), &files), "x").await;
    let again = stores(SqliteStore::open(&path).unwrap(), &files);
    assert_eq!(again.workspaces.list_workspaces().await.unwrap().len(), 2);
}
