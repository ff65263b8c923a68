//! The port conformance suites on the embedded adapters (SQLite file, in-process rate limiter).

use lore_app::Ports;
use lore_local::{MemoryRateLimiter, SqliteStore};
use std::sync::Arc;

fn ports(store: SqliteStore) -> Ports {
    let store = Arc::new(store);
    Ports {
        workspaces: store.clone(),
        keys: store.clone(),
        chatbots: store,
        rate_limiter: Arc::new(MemoryRateLimiter::new()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_conforms() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("lore.db")).unwrap();
    lore_app::conformance::run_all(&ports(store), "one").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_stores_on_one_file_share_records_and_migrate_once() {
    // `lore serve` and the CLI open the same file from two processes; two pools model that.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    let (a, b) = tokio::join!(
        tokio::task::spawn_blocking({
            let p = path.clone();
            move || SqliteStore::open(&p)
        }),
        tokio::task::spawn_blocking({
            let p = path.clone();
            move || SqliteStore::open(&p)
        })
    );
    let (a, b) = (ports(a.unwrap().unwrap()), ports(b.unwrap().unwrap()));
    lore_app::conformance::workspaces(&a, "shared").await;
    let seen_by_b = b.workspaces.list_workspaces().await.unwrap();
    assert_eq!(seen_by_b.len(), 2, "the second pool sees the first one's writes");
    lore_app::conformance::chatbot_slug_race(&b, "shared").await;
}

#[tokio::test]
async fn reopening_keeps_data_and_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lore.db");
    lore_app::conformance::workspaces(&ports(SqliteStore::open(&path).unwrap()), "x").await;
    let again = ports(SqliteStore::open(&path).unwrap());
    assert_eq!(again.workspaces.list_workspaces().await.unwrap().len(), 2);
}
