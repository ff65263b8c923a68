//! The port conformance suites of `lore_app::conformance` on the AWS adapters, against moto:
//! the same suites `lib/local/tests/conformance.rs` runs on SQLite and files. One test per
//! suite, each on its own table and bucket, so they run in parallel, and each family once more
//! on one shared table.

mod support;

use lore_app::conformance::{MindStores, Stores};

/// The stores of one conformance suite: a fresh table, bucket, queues and bus on moto.
async fn suite_stores(suite: &str) -> (Stores, (lore_aws::AwsBackend, tempfile::TempDir)) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    let dir = tempfile::tempdir().unwrap();
    (support::stores(&backend, dir.path()), (backend, dir))
}

async fn mind_stores(suite: &str) -> (MindStores, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    (support::mind_stores(&backend), backend)
}

// The chunk index of the AWS composition is pgvector's (lib/pgvector runs `search`).
lore_app::conformance_tests!(suite_stores => records);
lore_app::conformance_tests!(suite_stores => files);
lore_app::conformance_tests!(mind_stores => minds);

/// The concurrency budgets' leases: a fresh table on moto.
async fn slot_store(suite: &str) -> (std::sync::Arc<dyn lore_app::ports::SlotStore>, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    (backend.ports.slots.clone(), backend)
}

lore_app::conformance_tests!(slot_store => slots);

/// The audit log: a fresh table on moto.
async fn audit_store(suite: &str) -> (lore_app::conformance::AuditStores, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    let p = &backend.ports;
    let stores = lore_app::conformance::AuditStores {
        audit: p.audit.clone(),
        workspaces: p.workspaces.clone(),
        keys: p.keys.clone(),
        hooks: p.hooks.clone(),
    };
    (stores, backend)
}

lore_app::conformance_tests!(audit_store => audit);

/// Answer tests: a fresh table on moto.
async fn test_stores(suite: &str) -> (lore_app::conformance::TestStores, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    let p = &backend.ports;
    let stores = lore_app::conformance::TestStores {
        workspaces: p.workspaces.clone(),
        chatbots: p.chatbots.clone(),
        tests: p.tests.clone(),
    };
    (stores, backend)
}

lore_app::conformance_tests!(test_stores => answer_tests);

/// Actions: a fresh table on moto.
async fn action_stores(suite: &str) -> (lore_app::conformance::ActionStores, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    let p = &backend.ports;
    let stores = lore_app::conformance::ActionStores {
        workspaces: p.workspaces.clone(),
        chatbots: p.chatbots.clone(),
        actions: p.actions.clone(),
    };
    (stores, backend)
}

lore_app::conformance_tests!(action_stores => actions);

/// Channels: a fresh table on moto.
async fn channel_stores(suite: &str) -> (lore_app::conformance::ChannelStores, lore_aws::AwsBackend) {
    let backend = support::backend(&suite.replace('_', "-")).await;
    let p = &backend.ports;
    let stores = lore_app::conformance::ChannelStores {
        workspaces: p.workspaces.clone(),
        chatbots: p.chatbots.clone(),
        conversations: p.conversations.clone(),
        channels: p.channels.clone(),
    };
    (stores, backend)
}

lore_app::conformance_tests!(channel_stores => channels);
