//! The `webhook-dispatcher` Lambda: SQS batches of EventBridge events (fan-out and delivery) and
//! the 1-minute EventBridge schedule (due retries, outbox, stuck-processing sweep).

use lambda_runtime::{LambdaEvent, service_fn};
use serde_json::Value;

fn main() -> Result<(), lambda_runtime::Error> {
    // A document-parser child of the ingest path parses and exits here, before any runtime.
    lore::compose::serve_extraction_child_if_requested();
    run()
}

#[tokio::main]
async fn run() -> Result<(), lambda_runtime::Error> {
    lore::telemetry::init();
    let app = lore::compose::from_env(lore::compose::Uses::RecordsOnly).await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<Value>| {
        let app = app.clone();
        async move { lore::lambda::dispatcher(&app, event.payload).await.map_err(lambda_runtime::Error::from) }
    }))
    .await
}
