//! The `ingest-worker` Lambda: SQS batches of ingest jobs → processing runs, reporting partial
//! batch failures. The composition (`LORE_BACKEND`, …) is built once per execution environment.

use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use lambda_runtime::{LambdaEvent, service_fn};

fn main() -> Result<(), lambda_runtime::Error> {
    // A document-parser child of the ingest path parses and exits here, before any runtime.
    lore::compose::serve_extraction_child_if_requested();
    run()
}

#[tokio::main]
async fn run() -> Result<(), lambda_runtime::Error> {
    lore::telemetry::init();
    let app = lore::compose::from_env(lore::compose::Uses::Everything).await?;
    lambda_runtime::run(service_fn(|event: LambdaEvent<SqsEvent>| {
        let app = app.clone();
        async move { Ok::<SqsBatchResponse, lambda_runtime::Error>(lore::lambda::ingest_batch(&app, event.payload).await) }
    }))
    .await
}
