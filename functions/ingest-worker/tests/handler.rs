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

const SAMPLE_CHANNEL: &str = "chan_01jq3z5v7b8c9d0e1f2g3h4j5k";

/// The sample channel message with the ids of a real workspace and channel.
fn channel_batch(ws: &str, channel: &str) -> SqsEvent {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../events/ingest-worker/sqs-channel.json");
    let text = std::fs::read_to_string(path).unwrap().replace(SAMPLE_WS, ws).replace(SAMPLE_CHANNEL, channel);
    serde_json::from_str(&text).expect("an SQS event")
}

/// The platforms' calls a stub received: path, `Authorization`, JSON body.
type Calls = Arc<std::sync::Mutex<Vec<(String, Option<String>, serde_json::Value)>>>;

/// A local server standing in for Slack's Web API: every call recorded and answered `ok`; its
/// base URL.
async fn slack_stub(calls: Calls) -> String {
    use axum::extract::State;
    use axum::http::{HeaderMap, Uri};
    async fn record(
        State(calls): State<Calls>,
        uri: Uri,
        headers: HeaderMap,
        body: axum::body::Bytes,
    ) -> axum::Json<serde_json::Value> {
        let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        calls.lock().unwrap().push((uri.path().to_owned(), auth, body));
        axum::Json(serde_json::json!({"ok": true, "channel": "C0123456789", "ts": "1777636801.000200"}))
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().fallback(record).with_state(calls);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    base
}

#[test]
fn the_sample_channel_message_parses() {
    let event = channel_batch(SAMPLE_WS, SAMPLE_CHANNEL);
    let Ok(lore_app::ports::Job::Channel(job)) = lore_aws::parse_job(event.records[0].body.as_deref().unwrap()) else {
        panic!("a channel job");
    };
    assert_eq!((job.workspace_id.as_str(), job.channel_id.as_str()), (SAMPLE_WS, SAMPLE_CHANNEL));
    let m = &job.message;
    assert_eq!(
        (m.thread.chat.as_str(), m.thread.thread.as_deref(), m.text.as_str(), m.delivery_id.as_str()),
        ("C0123456789", Some("1777636800.000100"), "How long do refunds take?", "Ev0123456789")
    );
    // What the queue would carry for this job is the sample's body.
    let body: serde_json::Value = serde_json::from_str(event.records[0].body.as_deref().unwrap()).unwrap();
    let again: serde_json::Value = serde_json::from_str(&lore_aws::job_body(&job.into())).unwrap();
    assert_eq!(again, body);
}

#[tokio::test]
async fn the_sample_channel_message_is_answered_in_its_slack_thread() {
    use lore_app::ports::{ChannelStore, ChannelWrite};
    use lore_domain::channel::{ConnectedChannel, Credentials, Secret};
    use lore_domain::conversation::{Channel, Role};
    use lore_domain::pagination::PageRequest;
    use lore_domain::source::SourceOwner;

    // The real Slack adapter (`LORE_SLACK_API_URL`'s setting), pointed at a local stub.
    let calls = Calls::default();
    let stub = slack_stub(calls.clone()).await;
    let mut settings = lore::settings::Settings::from_env().unwrap();
    settings.backend = lore::compose::Backend::Local;
    settings.platforms.slack = stub;
    let dir = tempfile::tempdir().unwrap();
    let overrides = Overrides { embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())), ..Default::default() };
    let c = lore::compose::open_with(
        &settings,
        dir.path(),
        "http://localhost:3000",
        &overrides,
        lore::compose::Uses::Everything,
    )
    .await
    .unwrap();
    let (app, store) = (c.app, c.store.expect("the embedded store"));

    // A chatbot with a ready text source.
    let ws = app.create_workspace(WorkspaceName::parse("acme").unwrap(), LimitsPatch::default()).await.unwrap();
    let key = app.create_key(ws.id.as_str(), ScopeSet::all(), None).await.unwrap();
    let p = app.authenticate_and_admit(Some(&format!("Bearer {}", key.secret.expose()))).await.unwrap();
    let bot =
        app.create_chatbot(&p, lore_domain::chatbot::NewChatbot::parse(Some("kb"), None, None).unwrap()).await.unwrap();
    let content = "Refunds are paid within fourteen days. ".repeat(50);
    let input = SourceInput { source_type: Some("text"), content: Some(&content), ..Default::default() };
    let text = NewSource::parse(SourceVocabulary::Chatbot, input).unwrap();
    let source = app.create_source(&p, &bot.id, text).await.unwrap();
    app.process_source(&p, &bot.id, &source.id).await.unwrap();
    let res = lore::lambda::ingest_batch(&app, batch(ws.id.as_str(), source.id.as_str(), 1)).await;
    assert!(res.batch_item_failures.is_empty(), "{:?}", res.batch_item_failures);
    assert_eq!(app.get_source(&p, &bot.id, &source.id).await.unwrap().status, SourceStatus::Ready);

    // Its Slack channel, put in the store as `connect_channel` would after `auth.test`.
    let owner = SourceOwner::Chatbot(bot.id.clone());
    let credentials = Credentials::Slack {
        bot_token: Secret::parse("botToken", "xoxb-1234-5678-EXAMPLE").unwrap(),
        signing_secret: Secret::parse("signingSecret", "e3b4c5d6a7f8091a2b3c4d5e6f708192").unwrap(),
        bot_user_id: Some("U0BOT".into()),
    };
    let channel = ConnectedChannel::new(ws.id.clone(), owner.clone(), credentials, lore_domain::Timestamp::now());
    assert_eq!(store.insert_channel(&channel, 10).await.unwrap(), ChannelWrite::Written);

    let res = lore::lambda::ingest_batch(&app, channel_batch(ws.id.as_str(), channel.id.as_str())).await;
    assert!(res.batch_item_failures.is_empty(), "{:?}", res.batch_item_failures);

    // One conversation for the thread, on Slack, with the question and its answer.
    let page = app.list_conversations(&p, &owner, PageRequest::parse(None, None).unwrap()).await.unwrap();
    assert_eq!(page.items.len(), 1, "{:?}", page.items);
    let conversation = &page.items[0];
    assert_eq!(conversation.channel, Channel::Slack);
    assert_eq!(conversation.link.as_ref().map(|l| &l.channel_id), Some(&channel.id));
    assert_eq!(conversation.channel_error, None);
    let transcript = app.get_conversation(&p, &owner, &conversation.id).await.unwrap();
    let question = transcript.messages.iter().find(|m| m.role == Role::User).expect("the question");
    assert_eq!(question.content, "How long do refunds take?");
    let answer = transcript.messages.iter().rev().find(|m| m.role == Role::Assistant).expect("the answer");

    // The answer went to the thread: one `chat.postMessage`, with the bot's token.
    let heard = calls.lock().unwrap().clone();
    assert_eq!(heard.len(), 1, "{heard:?}");
    let (path, auth, body) = &heard[0];
    assert_eq!((path.as_str(), auth.as_deref()), ("/chat.postMessage", Some("Bearer xoxb-1234-5678-EXAMPLE")));
    assert_eq!(
        (body["channel"].as_str(), body["thread_ts"].as_str()),
        (Some("C0123456789"), Some("1777636800.000100"))
    );
    let sent = body["text"].as_str().unwrap();
    // In Slack's formatting (the `[n]` markers become links, a list of sources follows): the
    // answer's words up to its first marker or formatting are sent as they are.
    let lead: String = answer.content.chars().take_while(|c| !matches!(c, '[' | '*' | '_' | '`' | '\n')).collect();
    assert!(!lead.trim().is_empty(), "{answer:?}");
    assert!(sent.contains(lead.trim()), "{sent:?} holds the answer {:?}", answer.content);
    // The same message again (a batch retried after another job of it failed, or the platform's
    // redelivery queued twice): answered at most once.
    let res = lore::lambda::ingest_batch(&app, channel_batch(ws.id.as_str(), channel.id.as_str())).await;
    assert!(res.batch_item_failures.is_empty(), "{:?}", res.batch_item_failures);
    let again = app.get_conversation(&p, &owner, &conversation.id).await.unwrap();
    assert_eq!(again.messages.len(), transcript.messages.len(), "no second turn");
    assert_eq!(calls.lock().unwrap().len(), 1, "nothing sent again");
}
