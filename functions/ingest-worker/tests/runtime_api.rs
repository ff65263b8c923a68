//! The built `ingest-worker` binary, run as Lambda runs it (a Runtime API emulator on 127.0.0.1) on
//! the AWS backend — DynamoDB, S3 and SQS on the moto server, chunks on the test PostgreSQL — fed
//! SQS batches of the hostile documents of `tests/hostile/files.rs`. Each bomb ends its source in
//! `error` with a reason, the batch reports no failure (no retry loop), a small document still
//! becomes `ready`, and the function's own process stays within its memory budget (read from
//! `/proc/<pid>/status`; each parse runs in a child process with its own address-space limit).

#[path = "../../../tests/hostile/files.rs"]
mod files;
#[path = "../../minilm_layer.rs"]
mod minilm_layer;
#[path = "../../runtime_api.rs"]
mod runtime_api;

use lore::compose::Overrides;
use lore_app::auth::Principal;
use lore_app::files::{IncomingFile, UploadOwner, UploadRules};
use lore_app::ports::{ByteStream, Bytes, IngestJob};
use lore_app::search::{SearchMode, SearchRequest};
use lore_app::sources::NewSource;
use lore_domain::chatbot::NewChatbot;
use lore_domain::id::ChatbotId;
use lore_domain::scope::ScopeSet;
use lore_domain::source::SourceStatus;
use lore_domain::source::{SourceInput, SourceVocabulary};
use lore_domain::workspace::{LimitsPatch, WorkspaceName};
use runtime_api::{Function, Posted, RuntimeApi};
use serde_json::{Value, json};
use std::sync::Arc;

const FUNCTION_NAME: &str = "ingest-worker";
const PROGRAM: &str = env!("CARGO_BIN_EXE_ingest-worker");
/// Peak resident memory of the function's process while it handles the hostile batch, KiB
/// (docs/limits.md): the same budget as `lore serve`'s.
const FUNCTION_PEAK_RSS_BUDGET_KIB: u64 = 300 * 1024;

fn required_env(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v.trim().trim_end_matches('/').to_owned(),
        _ => panic!("this test needs {name} (scripts/test.sh starts moto and PostgreSQL and sets it)"),
    }
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmHWM")
}

/// Stores `bytes` as a chatbot upload and makes a file source of it; returns the source id.
async fn file_source(app: &lore_app::App, p: &Principal, bot: &ChatbotId, name: &str, bytes: Vec<u8>) -> String {
    let mut body: ByteStream<'_> = Box::pin(futures::stream::once(async move { Ok(Bytes::from(bytes)) }));
    let file = IncomingFile { file_name: name.to_owned(), body: &mut body };
    let upload = app.store_file(p, UploadOwner::Chatbot, UploadRules::CHATBOT, file, None).await.expect("stored");
    let source = app.create_source(p, bot, NewSource::upload(None, upload, Default::default())).await.expect("created");
    let started = app.process_source(p, bot, &source.id).await.expect("processing");
    assert_eq!(started.status, SourceStatus::Processing);
    source.id.to_string()
}

/// An SQS event of the ingest jobs of `sources` (generation 1), as Lambda's event source sends it.
fn batch(workspace: &str, sources: &[String]) -> String {
    let records: Vec<Value> = sources
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let job = IngestJob {
                workspace_id: lore_domain::id::WorkspaceId::parse(workspace).unwrap(),
                source_id: lore_domain::id::SourceId::parse(source).unwrap(),
                generation: 1,
            };
            json!({
                "messageId": format!("msg-{i}"),
                "receiptHandle": format!("handle-{i}"),
                "body": lore_aws::job_body(&job.into()),
                "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1777636800000"},
                "messageAttributes": {},
                "eventSource": "aws:sqs",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:lore-ingest",
                "awsRegion": "us-east-1"
            })
        })
        .collect();
    json!({ "Records": records }).to_string()
}

/// The AWS backend on moto and the test database: the resources, an API composed in this process
/// on them (it makes the sources and reads the results; `embedder` is the one it searches with), a
/// workspace with a key and a chatbot.
struct Aws {
    app: lore_app::App,
    p: Principal,
    bot: ChatbotId,
    ws: String,
    name: String,
    moto: String,
    database: String,
}

impl Aws {
    async fn new(embedder: Arc<dyn lore_embed::Embedder>) -> Self {
        let moto = required_env("LORE_TEST_MOTO_URL");
        let database = required_env("LORE_TEST_DATABASE_URL");
        let aws = lore::compose::AwsOverrides::local(&moto, &database, "lore-ingest").await;
        let name = aws.settings.table.clone();
        let overrides = Overrides { embedder: Some(embedder), aws: Some(aws), ..Default::default() };
        let dir = tempfile::tempdir().unwrap();
        let api = lore::compose::open(lore::compose::Backend::Aws, dir.path(), "http://localhost:3000", &overrides)
            .await
            .expect("aws");
        let app = api.app;
        let ws = app.create_workspace(WorkspaceName::parse("ingest").unwrap(), LimitsPatch::default()).await.unwrap();
        let key = app.create_key(ws.id.as_str(), ScopeSet::all(), None).await.unwrap();
        let p = app.authenticate_and_admit(Some(&format!("Bearer {}", key.secret.expose()))).await.unwrap();
        let bot = app.create_chatbot(&p, NewChatbot::parse(Some("kb"), None, None).unwrap()).await.unwrap().id;
        Self { app, p, bot, ws: ws.id.to_string(), name, moto, database }
    }

    /// The function's environment, as `template.yaml` configures it, pointed at moto and the test
    /// database, with `embedder` (`LORE_EMBEDDER` and its settings).
    fn function_env<'a>(&'a self, deliveries: &'a str, embedder: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut env = vec![
            ("LORE_BACKEND", "aws"),
            ("LORE_DYNAMODB_TABLE", self.name.as_str()),
            ("LORE_S3_BUCKET", self.name.as_str()),
            ("LORE_INGEST_QUEUE", self.name.as_str()),
            ("LORE_EVENT_BUS", self.name.as_str()),
            ("LORE_DELIVERIES_QUEUE", deliveries),
            ("LORE_DATABASE_URL", self.database.as_str()),
            ("AWS_ENDPOINT_URL", self.moto.as_str()),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ACCESS_KEY_ID", "testing"),
            ("AWS_SECRET_ACCESS_KEY", "testing"),
        ];
        env.extend_from_slice(embedder);
        env
    }

    async fn status(&self, source: &str) -> lore_domain::source::KnowledgeSource {
        let source = lore_domain::id::SourceId::parse(source).unwrap();
        self.app.get_source(&self.p, &self.bot, &source).await.unwrap()
    }
}

#[tokio::test]
async fn hostile_documents_end_in_error_within_the_functions_memory_budget_on_aws() {
    let aws = Aws::new(Arc::new(lore_embed::LocalEmbedder::new())).await;
    let (app, p, bot) = (&aws.app, &aws.p, &aws.bot);
    let sources = vec![
        file_source(app, p, bot, "bomb.pdf", files::pdf_content_bomb(432 << 20)).await,
        file_source(app, p, bot, "paragraphs.docx", files::docx_paragraph_bomb(2_000_000)).await,
        file_source(app, p, bot, "fine.pdf", files::small_pdf("A small document after the bombs.")).await,
    ];

    // The function, configured as in production but pointed at moto and the test database.
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let deliveries = format!("{}-deliveries", aws.name);
    let env = aws.function_env(&deliveries, &[("LORE_EMBEDDER", "local")]);
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &env);
    match function.invoke(&mut runtime, "inv-hostile", &batch(&aws.ws, &sources)).await {
        Posted::Response { body, .. } => {
            assert_eq!(body, json!({"batchItemFailures": []}), "a bomb is no retry: {}", function.log());
        }
        other => panic!("expected a batch response, got {other:?}; the log:\n{}", function.log()),
    }
    let peak = peak_rss_kib(function.child.id());

    for (source, reason) in [
        (&sources[0], "4 MiB of drawing instructions, the limit per page"),
        (&sources[1], "more than 200000 paragraphs, the limit"),
    ] {
        let s = aws.status(source).await;
        assert_eq!(s.status, SourceStatus::Error, "{s:?}");
        assert!(s.error.as_deref().unwrap_or("").contains(reason), "{s:?}");
    }
    assert_eq!(aws.status(&sources[2]).await.status, SourceStatus::Ready, "the small document after the bombs");
    assert!(
        peak <= FUNCTION_PEAK_RSS_BUDGET_KIB,
        "the ingest-worker function peaked at {} MiB, over its {} MiB budget",
        peak / 1024,
        FUNCTION_PEAK_RSS_BUDGET_KIB / 1024
    );
    eprintln!("ingest-worker peak RSS over the hostile batch: {} MiB", peak / 1024);
}

/// `template.yaml`'s `Embedder=minilm` on AWS: the worker, given the layer's model directory,
/// embeds the chunks with all-MiniLM-L6-v2 into pgvector. Read back by a search with the same
/// model, a question that shares no word with its answer finds it first; chunks of the lexical
/// embedder would carry another model id and match nothing.
#[tokio::test]
async fn the_worker_embeds_with_minilm_from_the_layer_on_aws() {
    let layer = minilm_layer::build();
    let minilm = lore_embed::MiniLmEmbedder::load(&layer.model_dir).expect("the layer's model");
    let aws = Aws::new(Arc::new(minilm)).await;
    let texts = [
        ("refunds", "Customers may return any unused product within 30 days of delivery for a full refund."),
        ("weather", "Heavy snowfall closed the mountain pass overnight and the ski lifts stayed shut."),
    ];
    let mut sources = Vec::new();
    for (name, text) in texts {
        let input =
            SourceInput { source_type: Some("text"), name: Some(name), content: Some(text), ..Default::default() };
        let new = NewSource::parse(SourceVocabulary::Chatbot, input).unwrap();
        let source = aws.app.create_source(&aws.p, &aws.bot, new).await.expect("created");
        aws.app.process_source(&aws.p, &aws.bot, &source.id).await.expect("processing");
        sources.push(source.id.to_string());
    }

    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let deliveries = format!("{}-deliveries", aws.name);
    let model_dir = layer.model_dir.to_str().expect("a UTF-8 temp dir");
    let env = aws.function_env(&deliveries, &[("LORE_EMBEDDER", "minilm"), ("LORE_MODEL_DIR", model_dir)]);
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &env);
    match function.invoke(&mut runtime, "inv-minilm", &batch(&aws.ws, &sources)).await {
        Posted::Response { body, .. } => assert_eq!(body, json!({"batchItemFailures": []}), "{}", function.log()),
        other => panic!("expected a batch response, got {other:?}; the log:\n{}", function.log()),
    }
    for source in &sources {
        let s = aws.status(source).await;
        assert_eq!(s.status, SourceStatus::Ready, "{s:?}");
    }

    let request = SearchRequest {
        query: "How long do I have to send something back?".into(),
        top_k: 5,
        mode: SearchMode::Semantic,
        min_score: None,
        source_ids: None,
        types: None,
        filter: None,
        language: None,
    };
    let found = aws.app.search_chatbot(&aws.p, &aws.bot, request).await.expect("search");
    assert_eq!(found.hits.len(), 2, "both sources' chunks are in the index under MiniLM's id: {:?}", found.hits);
    assert_eq!(found.hits[0].source_id.as_str(), sources[0], "{:?}", found.hits);
    assert!(found.hits[0].score > 0.3 && found.hits[1].score < found.hits[0].score, "{:?}", found.hits);
}
