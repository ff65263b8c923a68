//! The port conformance suites of `lore_app::conformance` on the AWS adapters, against moto:
//! the same suites `lib/local/tests/conformance.rs` runs on SQLite and files. One test per
//! suite, each on its own table and bucket, so they run in parallel.

mod support;

use lore_app::conformance as suite;

macro_rules! conform {
    ($($name:ident => $suite:ident $(($unique:literal))?;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn $name() {
            let backend = support::backend(stringify!($suite)).await;
            let dir = tempfile::tempdir().unwrap();
            let stores = support::stores(&backend, dir.path());
            suite::$suite(&stores $(, $unique)?).await;
        }
    )*};
}

conform! {
    dynamodb_workspaces => workspaces("aws");
    dynamodb_keys => keys("aws");
    dynamodb_chatbots => chatbots("aws");
    dynamodb_chatbot_slug_race => chatbot_slug_race("aws");
    dynamodb_rate_limiter => rate_limiter;
    dynamodb_sources => sources("aws");
    dynamodb_processing_race => processing_race("aws");
    s3_blobs => blobs("aws");
    dynamodb_forms => forms("aws");
    dynamodb_hooks => hooks("aws");
    dynamodb_deliveries => deliveries("aws");
    dynamodb_delivery_claim_race => delivery_claim_race("aws");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_minds() {
    let backend = support::backend("minds").await;
    suite::minds(&support::mind_stores(&backend), "aws").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_mind_sources() {
    let backend = support::backend("mind-sources").await;
    suite::mind_sources(&support::mind_stores(&backend), "aws").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn dynamodb_mind_races() {
    let backend = support::backend("mind-races").await;
    suite::mind_races(&support::mind_stores(&backend), "aws").await;
}

/// The suites share one backend the way `lore serve` shares one table: run them all in a row.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn all_suites_on_one_table() {
    let backend = support::backend("all").await;
    let dir = tempfile::tempdir().unwrap();
    let s = support::stores(&backend, dir.path());
    suite::workspaces(&s, "one").await;
    suite::keys(&s, "one").await;
    suite::chatbots(&s, "one").await;
    suite::chatbot_slug_race(&s, "one").await;
    suite::rate_limiter(&s).await;
    suite::sources(&s, "one").await;
    suite::processing_race(&s, "one").await;
    suite::blobs(&s, "one").await;
    suite::forms(&s, "one").await;
    suite::hooks(&s, "one").await;
    suite::deliveries(&s, "one").await;
    suite::delivery_claim_race(&s, "one").await;
    let m = support::mind_stores(&backend);
    suite::minds(&m, "one").await;
    suite::mind_races(&m, "one").await;
    suite::mind_sources(&m, "one").await;
    // Twice on one table: public addresses are shared by every workspace of the table.
    suite::minds(&m, "two").await;
    suite::mind_races(&m, "two").await;
    suite::mind_sources(&m, "two").await;
}
