//! The ingest-worker handler on its sample SQS batch, over the embedded composition: the job
//! runs to `ready`, a message that is not a job is dropped without failing the batch, and a
//! stale job (superseded generation) changes nothing.

use aws_lambda_events::event::sqs::SqsEvent;
use lore::compose::{Overrides, embedded};
use lore_app::sources::NewSource;
use lore_domain::scope::ScopeSet;
use lore_domain::source::SourceStatus;
use lore_domain::source::{SourceInput, SourceVocabulary};
use lore_domain::workspace::{LimitsPatch, WorkspaceName};
use std::sync::Arc;

const SAMPLE_WS: &str = "ws_01jq3z5v7b8c9d0e1f2g3h4j5k";
const SAMPLE_SOURCE: &str = "src_01jq3z5v7b8c9d0e1f2g3h4j5k";

fn batch(ws: &str, source: &str, generation: u64) -> SqsEvent {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../events/ingest-worker/sqs-batch.json");
    let text = std::fs::read_to_string(path).unwrap().replace(SAMPLE_WS, ws).replace(SAMPLE_SOURCE, source);
    let text = text.replace("\\\"generation\\\":1", &format!("\\\"generation\\\":{generation}"));
    serde_json::from_str(&text).expect("an SQS event")
}

#[tokio::test]
async fn the_sample_batch_runs_its_job_and_drops_the_junk() {
    let dir = tempfile::tempdir().unwrap();
    let overrides = Overrides { embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())), ..Default::default() };
    let c = embedded(dir.path(), "http://localhost:3000", &overrides).unwrap();
    let app = c.app;
    let ws = app.create_workspace(WorkspaceName::parse("acme").unwrap(), LimitsPatch::default()).await.unwrap();
    let key = app.create_key(ws.id.as_str(), ScopeSet::all(), None).await.unwrap();
    let p = app.authenticate_and_admit(Some(&format!("Bearer {}", key.secret.expose()))).await.unwrap();
    let bot =
        app.create_chatbot(&p, lore_domain::chatbot::NewChatbot::parse(Some("kb"), None, None).unwrap()).await.unwrap();
    let content = "Refunds are paid within fourteen days. ".repeat(50);
    let input = SourceInput { source_type: Some("text"), content: Some(&content), ..Default::default() };
    let text = NewSource::parse(SourceVocabulary::Chatbot, input).unwrap();
    let source = app.create_source(&p, &bot.id, text).await.unwrap();
    // `process` moves it to processing and queues the job (no in-process worker runs here).
    let started = app.process_source(&p, &bot.id, &source.id).await.unwrap();
    assert_eq!((started.status, started.generation), (SourceStatus::Processing, 1));

    // A stale generation first: nothing happens.
    let stale = lore::lambda::ingest_batch(&app, batch(ws.id.as_str(), source.id.as_str(), 0)).await;
    assert!(stale.batch_item_failures.is_empty());
    assert_eq!(app.get_source(&p, &bot.id, &source.id).await.unwrap().status, SourceStatus::Processing);

    let res = lore::lambda::ingest_batch(&app, batch(ws.id.as_str(), source.id.as_str(), 1)).await;
    assert!(res.batch_item_failures.is_empty(), "{:?}", res.batch_item_failures);
    let done = app.get_source(&p, &bot.id, &source.id).await.unwrap();
    assert_eq!(done.status, SourceStatus::Ready);
    assert!(done.chunk_count >= 1);

    // The response serialises as Lambda expects for partial batch failures.
    let json = serde_json::to_value(&res).unwrap();
    assert_eq!(json, serde_json::json!({"batchItemFailures": []}));
}

#[test]
fn sample_job_messages_parse_and_junk_does_not() {
    let event = batch(SAMPLE_WS, SAMPLE_SOURCE, 7);
    let Ok(lore_app::ports::Job::Ingest(job)) = lore_aws::parse_job(event.records[0].body.as_deref().unwrap()) else {
        panic!("an ingest job");
    };
    assert_eq!((job.workspace_id.as_str(), job.source_id.as_str(), job.generation), (SAMPLE_WS, SAMPLE_SOURCE, 7));
    assert!(lore_aws::parse_job(event.records[1].body.as_deref().unwrap()).is_err());
}

/// The sample test-run message with the ids of a real workspace, chatbot and run.
fn test_run_batch(ws: &str, bot: &str, run: &str) -> SqsEvent {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../events/ingest-worker/sqs-test-run.json");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace(SAMPLE_WS, ws)
        .replace("cb_01jq3z5v7b8c9d0e1f2g3h4j5k", bot)
        .replace("run_01jq3z5v7b8c9d0e1f2g3h4j5k", run);
    serde_json::from_str(&text).expect("an SQS event")
}

#[tokio::test]
async fn the_sample_test_run_message_answers_the_tests_once() {
    use lore_domain::answer_test::{RawTestSpec, RunStatus};
    use lore_domain::mind::Field;
    let dir = tempfile::tempdir().unwrap();
    let overrides = Overrides { embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())), ..Default::default() };
    let app = embedded(dir.path(), "http://localhost:3000", &overrides).unwrap().app;
    let ws = app.create_workspace(WorkspaceName::parse("acme").unwrap(), LimitsPatch::default()).await.unwrap();
    let key = app.create_key(ws.id.as_str(), ScopeSet::all(), None).await.unwrap();
    let p = app.authenticate_and_admit(Some(&format!("Bearer {}", key.secret.expose()))).await.unwrap();
    let bot =
        app.create_chatbot(&p, lore_domain::chatbot::NewChatbot::parse(Some("kb"), None, None).unwrap()).await.unwrap();
    let owner = lore_domain::source::SourceOwner::Chatbot(bot.id.clone());
    let spec = RawTestSpec {
        question: Field::Value("Do you repair bicycles?".into()),
        expect_answered: Field::Value(false),
        ..Default::default()
    };
    let test = app.create_test(&p, &owner, &spec).await.unwrap();
    // Queued (no in-process worker runs here); the message is what the worker Lambda gets.
    let run = app.start_test_run(&p, &owner, None).await.unwrap();
    assert_eq!(run.status, RunStatus::Queued);
    let batch = || test_run_batch(ws.id.as_str(), bot.id.as_str(), run.id.as_str());
    let res = lore::lambda::ingest_batch(&app, batch()).await;
    assert!(res.batch_item_failures.is_empty(), "{:?}", res.batch_item_failures);
    let (done, results) = app.get_test_run(&p, &owner, &run.id).await.unwrap();
    assert_eq!((done.status, done.passed, done.failed), (RunStatus::Done, 1, 0));
    assert_eq!(results[0].test_id, test.id);
    // A repeated delivery of a finished run changes nothing.
    let again = lore::lambda::ingest_batch(&app, batch()).await;
    assert!(again.batch_item_failures.is_empty());
    assert_eq!(app.get_test_run(&p, &owner, &run.id).await.unwrap().0, done);
}
