//! Shared by the AWS adapter tests: the moto server they run against and uniquely named
//! resources per test, so that every test (and every nextest process) can share one server.
//!
//! The server is found through `LORE_TEST_MOTO_URL` (e.g. `http://127.0.0.1:5555`).
//! `bash scripts/moto.sh start` starts one and prints its URL; `scripts/test.sh` does that and
//! exports the variable. Without it these tests fail: they never pass silently.

#![allow(dead_code)]

use aws_config::SdkConfig;
use lore_app::conformance::{MindStores, Stores};
use lore_aws::{AwsBackend, AwsSettings};
use lore_domain::id::SourceId;
use std::sync::Arc;

pub fn moto_url() -> String {
    match std::env::var("LORE_TEST_MOTO_URL") {
        Ok(url) if !url.trim().is_empty() => url.trim().trim_end_matches('/').to_owned(),
        _ => panic!(
            "LORE_TEST_MOTO_URL is not set. The AWS adapter tests run against a moto server: start one with \
             `bash scripts/moto.sh start` and export LORE_TEST_MOTO_URL=<the URL it prints> \
             (or run `bash scripts/test.sh`, which does both)."
        ),
    }
}

/// The SDK configuration of the tests: moto's endpoint, `us-east-1`, static credentials, and
/// the HTTPS client the functions' SDK clients share.
pub async fn sdk_config() -> SdkConfig {
    lore_aws::local_sdk_config(&moto_url()).await
}

/// A name no other test uses: lower case, valid for a table, a bucket, a queue and a bus.
pub fn unique(prefix: &str) -> String {
    let id = SourceId::generate();
    format!("lore-{prefix}-{}", &id.as_str()[4..])
}

/// Settings naming a fresh table, bucket, queue and bus, created by bootstrap.
pub fn settings(name: &str) -> AwsSettings {
    AwsSettings::local(name, &moto_url())
}

/// A backend over fresh resources.
pub async fn backend(prefix: &str) -> AwsBackend {
    backend_with(settings(&unique(prefix))).await
}

pub async fn backend_with(settings: AwsSettings) -> AwsBackend {
    AwsBackend::connect_with(&sdk_config().await, settings).await.expect("connect to moto and bootstrap")
}

/// The conformance suites' view of the AWS ports. The vector index (pgvector's, not this
/// crate's) is filled with the embedded SQLite store only because `Stores` names every port;
/// the suites run here never touch it. `events` is the DynamoDB outbox: the webhook suites
/// publish an event and expect `deliveries` to fan it out.
pub fn stores(b: &AwsBackend, index_dir: &std::path::Path) -> Stores {
    let sqlite = Arc::new(lore_local::SqliteStore::open(&index_dir.join("index.db")).expect("sqlite index"));
    Stores {
        workspaces: b.ports.workspaces.clone(),
        keys: b.ports.keys.clone(),
        chatbots: b.ports.chatbots.clone(),
        rate_limiter: b.ports.rate_limiter.clone(),
        sources: b.ports.sources.clone(),
        index: sqlite,
        forms: b.ports.forms.clone(),
        hooks: b.ports.hooks.clone(),
        deliveries: b.ports.deliveries.clone(),
        blobs: b.ports.blobs.clone(),
        events: b.outbox.clone(),
    }
}

/// The Mind suites' view of the AWS ports.
pub fn mind_stores(b: &AwsBackend) -> MindStores {
    MindStores {
        workspaces: b.ports.workspaces.clone(),
        minds: b.ports.minds.clone(),
        sources: b.ports.sources.clone(),
        chatbots: b.ports.chatbots.clone(),
        conversations: b.ports.conversations.clone(),
    }
}
