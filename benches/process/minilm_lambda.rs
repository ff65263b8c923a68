//! "MiniLM on Lambda" (what the local model costs a Lambda function): the functions that embed,
//! given the model directory the `MiniLmLayer` of `template.yaml` provides (`LORE_EMBEDDER=minilm`,
//! `LORE_MODEL_DIR`), on the AWS composition of the cold-start section (moto + the test
//! PostgreSQL), next to the same run with the built-in lexical embedder. The path is production's:
//! `api-chatbots` creates a text source and starts it (the job goes to the SQS ingest queue on
//! moto), the job is taken from that queue and handed to a freshly spawned `ingest-worker` as an
//! SQS event, and `api-chatbots` then answers searches of the chatbot's knowledge.

use super::{AwsSetup, Bins, Dist, api_gateway_template, dist, http_event, lambda_command};
use crate::emulator::{Emulator, Kind, Posted};
use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// Questions of the search rows: each different, so no answer comes from the query-vector cache.
const QUESTIONS: [&str; 21] = [
    "How are API keys stored?",
    "What happens when a source fails to process?",
    "Which scopes can a key have?",
    "How does the service stop server-side request forgery?",
    "How long may a crawl run?",
    "What limits apply to uploaded files?",
    "How are webhook deliveries retried?",
    "Where do the chunks of a knowledge base live on AWS?",
    "How is a Mind published?",
    "What does the rate limiter count?",
    "How are conversations stored?",
    "Which embedders can the service use?",
    "How big is a chunk?",
    "What does a search result contain?",
    "How do I run the service on my laptop?",
    "What is the ingest queue for?",
    "How are deleted sources cleaned up?",
    "Which events go to the event bus?",
    "How does Zapier subscribe to form responses?",
    "What is stored in DynamoDB?",
    "Why is a heading never a chunk on its own?",
];

/// One embedder's run.
pub(super) struct EmbedderRun {
    pub label: &'static str,
    pub chunks: u64,
    /// Spawn of the ingest worker → its answer to the batch (init, model load, extraction,
    /// embedding, indexing).
    pub ingest_secs: f64,
    /// The first search of a fresh `api-chatbots` process (the model's weights load here).
    pub first_query_ms: f64,
    pub queries: Dist,
    pub query_count: usize,
}

pub(super) struct MiniLmLambda {
    pub text_chars: usize,
    pub runs: Vec<EmbedderRun>,
}

/// The repository's own documentation, cut to the 100,000 characters a text source may hold.
fn corpus() -> Result<String> {
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs");
    let mut text = String::new();
    for name in ["ARCHITECTURE.md", "api.md", "decisions.md", "limits.md"] {
        text.push_str(&std::fs::read_to_string(format!("{docs}/{name}")).with_context(|| name.to_owned())?);
        text.push_str("\n\n");
    }
    Ok(text.chars().take(100_000).collect())
}

pub(super) async fn minilm_lambda(bins: &Bins, setup: &AwsSetup, model_dir: &Path) -> Result<MiniLmLambda> {
    let text = corpus()?;
    let model_dir = model_dir.to_str().ok_or_else(|| anyhow!("the model directory is not UTF-8"))?;
    // A queue of its own: the setup's `lore serve` left a long poll pending on the shared one in
    // moto, which takes the next message after the process is gone.
    let queue = aws_sdk_sqs::Client::new(&setup.sdk)
        .create_queue()
        .queue_name(format!("{}-minilm-ingest", setup.table))
        .send()
        .await?
        .queue_url
        .ok_or_else(|| anyhow!("the queue has no URL"))?;
    let mut runs = Vec::new();
    for (label, embedder) in [
        ("`LORE_EMBEDDER=local` (lexical)", vec![("LORE_EMBEDDER", "local")]),
        ("`LORE_EMBEDDER=minilm`", vec![("LORE_EMBEDDER", "minilm"), ("LORE_MODEL_DIR", model_dir)]),
    ] {
        let mut env: Vec<(&str, &str)> =
            setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).chain(embedder).collect();
        env.push(("LORE_INGEST_QUEUE_URL", queue.as_str()));
        runs.push(run(bins, setup, label, &env, &queue, &text).await.with_context(|| label)?);
    }
    Ok(MiniLmLambda { text_chars: text.chars().count(), runs })
}

/// A function process fed by its own emulator.
struct Function {
    api: Emulator,
    child: Child,
}

impl Function {
    async fn spawn(bin: &Path, name: &str, env: &[(&str, &str)]) -> Result<Self> {
        let api = Emulator::start(name).await?;
        let child = lambda_command(bin, &api, name, env).spawn().with_context(|| format!("spawning {name}"))?;
        Ok(Self { api, child })
    }

    /// Invokes with `event`; the answer and the time from the invocation to it.
    async fn invoke(&mut self, event: String) -> Result<(Value, Duration)> {
        let t0 = Instant::now();
        let posted: Posted = self.api.invoke(event, Duration::from_secs(600)).await?;
        if posted.kind != Kind::Response {
            bail!("posted {:?}: {}", posted.kind, String::from_utf8_lossy(&posted.body));
        }
        Ok((posted.json(), posted.at - t0))
    }

    /// Invokes with an API Gateway event; the status, the JSON body and the time.
    async fn http(&mut self, event: String) -> Result<(u64, Value, Duration)> {
        let (answer, took) = self.invoke(event).await?;
        let status = answer["statusCode"].as_u64().ok_or_else(|| anyhow!("no statusCode: {answer}"))?;
        let body = serde_json::from_str(answer["body"].as_str().unwrap_or("null"))?;
        Ok((status, body, took))
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn run(
    bins: &Bins,
    setup: &AwsSetup,
    label: &'static str,
    env: &[(&str, &str)],
    queue: &str,
    text: &str,
) -> Result<EmbedderRun> {
    let template = api_gateway_template()?;
    let event =
        |method: &str, path: &str, body: Option<Value>| http_event(&template, &setup.key, method, path, body.as_ref());
    let mut api = Function::spawn(&bins.api_chatbots, "api-chatbots", env).await?;
    let (status, v, _) = api.http(event("POST", "/api/v1/chatbots", Some(json!({ "name": label })))).await?;
    let bot = v["chatbot"]["id"].as_str().ok_or_else(|| anyhow!("create chatbot: {status} {v}"))?.to_owned();
    let sources = format!("/api/v1/chatbots/{bot}/sources");
    let body = json!({ "type": "text", "name": "Lore documentation", "content": text });
    let (status, v, _) = api.http(event("POST", &sources, Some(body))).await?;
    let source = v["source"]["id"].as_str().ok_or_else(|| anyhow!("create source: {status} {v}"))?.to_owned();
    let (status, v, _) = api.http(event("POST", &format!("{sources}/{source}/process"), None)).await?;
    if status != 202 {
        bail!("process: {status} {v}");
    }

    // The job the API put on the ingest queue, handed to a fresh worker as Lambda would.
    let batch = take_ingest_job(setup, queue, &source).await?;
    let mut worker = Function::spawn(&bins.ingest_worker, "ingest-worker", env).await?;
    let spawned = Instant::now();
    let (answer, _) = worker.invoke(batch).await?;
    let ingest_secs = spawned.elapsed().as_secs_f64();
    if answer["batchItemFailures"].as_array().is_none_or(|f| !f.is_empty()) {
        bail!("the ingest worker answered {answer}");
    }
    drop(worker);
    let (_, v, _) = api.http(event("GET", &format!("{sources}/{source}"), None)).await?;
    if v["source"]["status"] != "ready" {
        bail!("the source is not ready after the worker's batch: {v}");
    }
    let chunks = v["source"]["chunkCount"].as_u64().unwrap_or(0);

    // A fresh API process: its first search loads the model's weights.
    drop(api);
    let mut api = Function::spawn(&bins.api_chatbots, "api-chatbots", env).await?;
    let search = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let mut times = Vec::new();
    for question in QUESTIONS {
        let (status, v, took) = api.http(event("POST", &search, Some(json!({ "query": question })))).await?;
        if status != 200 || v["results"].as_array().is_none_or(Vec::is_empty) {
            bail!("search {question:?}: {status} {v}");
        }
        times.push(took.as_secs_f64() * 1e3);
    }
    let first_query_ms = times.remove(0);
    Ok(EmbedderRun { label, chunks, ingest_secs, first_query_ms, query_count: times.len(), queries: dist(&times) })
}

/// Receives the ingest job of `source` from the queue on moto, as the SQS event Lambda's event
/// source mapping would deliver (the shape of `events/ingest-worker/sqs-batch.json`).
async fn take_ingest_job(setup: &AwsSetup, queue: &str, source: &str) -> Result<String> {
    let sqs = aws_sdk_sqs::Client::new(&setup.sdk);
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let got = sqs.receive_message().queue_url(queue).max_number_of_messages(10).wait_time_seconds(1).send().await?;
        for m in got.messages.unwrap_or_default() {
            let body = m.body.unwrap_or_default();
            if let Some(handle) = &m.receipt_handle {
                sqs.delete_message().queue_url(queue).receipt_handle(handle).send().await?;
            }
            if !body.contains(source) {
                continue;
            }
            let mut event: Value = serde_json::from_str(&setup.event("ingest-worker", "sqs-batch.json")?)?;
            let mut record = event["Records"][0].clone();
            record["messageId"] = json!(m.message_id.unwrap_or_default());
            record["receiptHandle"] = json!(m.receipt_handle.unwrap_or_default());
            record["body"] = json!(body);
            event["Records"] = json!([record]);
            return Ok(event.to_string());
        }
    }
    bail!("no ingest job for {source} reached the queue within 30 s")
}
