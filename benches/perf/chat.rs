//! Conversation answers on `lore serve`: how long a client waits for the first `citations` and
//! the first `delta` event of a streamed answer, against the model's own time to its first piece
//! (the difference is Lore's overhead: loading the conversation, storing the question, hybrid
//! retrieval over the knowledge base, building the prompt), where the time until `citations` goes
//! stage by stage, and how many conversations a second it sustains, against the model alone
//! under the same load.
//!
//! Three rows of the same turn loop, each over a chatbot of 10k ready chunks:
//! - *embedded, lexical*: the embedded backend with the built-in lexical embedder; its text
//!   sources (prose of the retrieval corpus, ~96,000 characters each) processed by the real
//!   pipeline.
//! - *embedded, MiniLM*: the embedded backend with all-MiniLM-L6-v2 embedding each question (the
//!   budget: first `citations` p50 ≤ 30 ms, docs/benchmarks.md).
//! - *AWS, MiniLM*: the AWS composition (`--backend aws`) in process on the test moto server
//!   (`LORE_BENCH_MOTO_URL`) and PostgreSQL + pgvector (`LORE_BENCH_DATABASE_URL`), both started
//!   by `scripts/bench-perf.sh` (budget: p50 ≤ 80 ms).
//!
//! The MiniLM rows' sources are the same kind of text, chunked by the chunker MiniLM's pipeline
//! uses (240 tokens), and written through the stores as an ingest run writes them
//! (`begin_processing`, `replace_source_chunks`, `finish_processing`) with seeded random unit
//! vectors and token signs instead of MiniLM's: embedding 10k chunks with MiniLM takes ~11 minutes
//! on two cores, and a scan costs the same whatever the vectors hold. Each question is embedded by
//! the real model.
//!
//! The model is a local OpenAI-compatible stub (`/v1/chat/completions`, streamed SSE: 12 pieces,
//! no delay), so the numbers are Lore's and the network's, not a model's.
//!
//! The stage breakdown comes from the DEBUG spans of the turn's first step (`turn.*` in
//! `lore_app::conversations`, `search.*` in `lore_app::search`), timed by a small
//! `tracing_subscriber` layer installed here ([`stages`]).

use crate::{Options, Result, Rng, Section, percentile, verdict};
use lore_app::chunking::{ChunkSettings, Chunker};
use lore_app::ports::{Chunk, ChunkEmbedding, Embedder, Finish, Guarded, Lease, SourceStore, VectorIndex};
use lore_domain::id::{ChatbotId, SourceId};
use lore_domain::late_interaction::TokenSigns;
use lore_domain::source::SourceOwner;
use lore_domain::time::Timestamp;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

const ANSWER: &str = "Refunds are explained in the first passage [1] and the exceptions in the second [2].";
const TURNS: usize = 200;
/// The default per-workspace budget of answers written at once (`LORE_ANSWERS_PER_WORKSPACE`).
const CLIENTS: usize = 4;
const LOAD_SECS: u64 = 10;
const SOURCE_CHARS: usize = 96_000;
/// First `citations` event, p50: embedded backend with MiniLM, and the AWS composition.
const BUDGET_EMBEDDED_MS: f64 = 30.0;
const BUDGET_AWS_MS: f64 = 80.0;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Row {
    EmbeddedLexical,
    EmbeddedMiniLm,
    AwsMiniLm,
}

impl Row {
    fn label(self) -> &'static str {
        match self {
            Row::EmbeddedLexical => "embedded, lexical",
            Row::EmbeddedMiniLm => "embedded, MiniLM",
            Row::AwsMiniLm => "AWS, MiniLM",
        }
    }

    fn minilm(self) -> bool {
        self != Row::EmbeddedLexical
    }
}

/// The test moto server and PostgreSQL the AWS row runs against.
struct AwsEnv {
    moto: String,
    database: String,
}

fn aws_env() -> std::result::Result<AwsEnv, String> {
    let var =
        |k: &str| std::env::var(k).ok().map(|v| v.trim().trim_end_matches('/').to_owned()).filter(|v| !v.is_empty());
    match (var("LORE_BENCH_MOTO_URL"), var("LORE_BENCH_DATABASE_URL")) {
        (Some(moto), Some(database)) => Ok(AwsEnv { moto, database }),
        _ => Err("needs LORE_BENCH_MOTO_URL and LORE_BENCH_DATABASE_URL (`bash scripts/bench-perf.sh` starts both)"
            .to_owned()),
    }
}

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let chunks = if o.quick { 2_000 } else { 10_000 };
    let turns = if o.quick { 40 } else { TURNS };
    let recorder = stages::recorder();
    if recorder.is_none() {
        eprintln!("  conversations: another tracing subscriber is installed: no stage breakdown");
    }
    let minilm = Arc::new(lore_embed::MiniLmEmbedder::load(crate::embed::model_dir()?)?);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut rows: Vec<(Row, std::result::Result<Measured, String>)> = Vec::new();
    for row in [Row::EmbeddedLexical, Row::EmbeddedMiniLm, Row::AwsMiniLm] {
        eprintln!("  conversations: {} …", row.label());
        let t = Instant::now();
        let measured = match (row, aws_env()) {
            (Row::AwsMiniLm, Err(e)) => Err(e),
            (_, aws) => rt
                .block_on(measure(row, chunks, &passages, turns, minilm.clone(), aws.ok(), recorder))
                .map_err(|e| e.to_string()),
        };
        if let Err(e) = &measured {
            eprintln!("  conversations: {}: not measured: {e}", row.label());
        }
        eprintln!("  conversations: {} took {:.1} s", row.label(), t.elapsed().as_secs_f64());
        rows.push((row, measured));
    }
    drop(rt);
    Ok(report(&rows, chunks, turns))
}

fn report(rows: &[(Row, std::result::Result<Measured, String>)], wanted: usize, turns: usize) -> Section {
    let measured: Vec<(Row, &Measured)> = rows.iter().filter_map(|(r, m)| m.as_ref().ok().map(|m| (*r, m))).collect();
    let mut md = String::new();
    md.push_str("### Conversation answers\n\n");
    let _ = writeln!(
        md,
        "`lore serve` with a chatbot of about {wanted} ready chunks, answering through the OpenAI-compatible responder \
         from a local stub model that streams 12 pieces at once. Each turn is `POST …/conversations/{{id}}/messages` \
         with `Accept: text/event-stream`, one at a time, {turns} turns after one untimed warm-up turn (a new \
         conversation every 50; every question a new one, so MiniLM embeds each). *Model alone* is the same request \
         sent straight to the stub. Three rows: *embedded, lexical*: the embedded backend with the built-in lexical \
         embedder, its text sources (prose of the retrieval corpus, ~96,000 characters each) processed by the real \
         pipeline; *embedded, MiniLM*: the embedded backend with all-MiniLM-L6-v2 embedding each question; *AWS, \
         MiniLM*: the AWS composition (`lore serve --backend aws`) in process on the test moto server (DynamoDB, S3, \
         SQS, EventBridge) and PostgreSQL 16 + pgvector over loopback (moto is a Python emulator that answers \
         DynamoDB one request at a time and copies the whole table for a transaction, here with the sources' texts \
         in it: the AWS row's DynamoDB stages are moto's times, not DynamoDB's). In the MiniLM rows the same kind of \
         sources are chunked by MiniLM's chunker (240 tokens) and written through the stores as an ingest run writes \
         them, with seeded random unit vectors and token signs instead of the model's (embedding 10k chunks takes \
         ~11 minutes on two cores; a scan costs the same whatever the vectors hold); the questions are embedded by \
         the model.\n"
    );
    md.push_str("| measure |");
    for (r, _) in &measured {
        let _ = write!(md, " {} p50 ms | {} p99 ms |", r.label(), r.label());
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|---:|".repeat(measured.len()));
    md.push('\n');
    type Pick = fn(&Measured) -> &Vec<f64>;
    let picks: [(&str, Pick); 5] = [
        ("first `citations` event", |m| &m.citations_ms),
        ("first `delta` event", |m| &m.delta_ms),
        ("whole answer (`done`)", |m| &m.done_ms),
        ("model alone: first piece", |m| &m.model_first_ms),
        ("overhead: first `delta` − model's first piece", |m| &m.overhead_ms),
    ];
    for (name, pick) in picks {
        let _ = write!(md, "| {name} |");
        for (_, m) in &measured {
            let v = pick(m);
            let _ = write!(md, " {:.2} | {:.2} |", percentile(v, 50.0), percentile(v, 99.0));
        }
        md.push('\n');
    }

    // The budgets.
    let mut met = Vec::new();
    md.push('\n');
    for (row, budget) in [(Row::EmbeddedMiniLm, BUDGET_EMBEDDED_MS), (Row::AwsMiniLm, BUDGET_AWS_MS)] {
        let Some((_, result)) = rows.iter().find(|(r, _)| *r == row) else { continue };
        match result {
            Ok(m) => {
                let p50 = percentile(&m.citations_ms, 50.0);
                let ok = p50 <= budget;
                let _ = writeln!(
                    md,
                    "- Budget, {}: first `citations` p50 ≤ {budget:.0} ms at {} chunks: {p50:.2} ms, {}.",
                    row.label(),
                    m.chunks,
                    verdict(ok)
                );
                met.push((format!("first `citations` p50 ≤ {budget:.0} ms, {}, {} chunks", row.label(), m.chunks), ok));
            }
            Err(e) => {
                let _ = writeln!(
                    md,
                    "- Budget, {}: first `citations` p50 ≤ {budget:.0} ms: not measured: {e}.",
                    row.label()
                );
                met.push((format!("first `citations` p50 ≤ {budget:.0} ms, {} (not measured)", row.label()), false));
            }
        }
    }
    for (row, result) in rows {
        if let (Err(e), Row::EmbeddedLexical) = (result, row) {
            let _ = writeln!(md, "- {}: not measured: {e}.", row.label());
        }
    }

    // Where the time until `citations` goes.
    if measured.iter().any(|(_, m)| !m.stages.is_empty()) {
        md.push_str(
            "\nWhere a turn's time goes until the client reads `citations`, by stage: wall time of each span of the \
             turn's first step (`App::begin_turn`, DEBUG spans `turn.*` and `search.*`, off at the default INFO level) \
             from a `tracing_subscriber` layer in the bench, summed per turn, p50 / p99 over the turns; *busy*: the p50 \
             of the time the span was entered (polled on an async thread, or running on a blocking one). The semantic \
             path (query embedding → semantic search → rescoring) and the keyword search run at once; the percentiles \
             of the parts do not add up to the total's.\n\n",
        );
        md.push_str("| stage |");
        for (r, _) in &measured {
            let _ = write!(md, " {} ms p50 / p99 | busy p50 |", r.label());
        }
        md.push_str("\n|---|");
        md.push_str(&"---:|---:|".repeat(measured.len()));
        md.push('\n');
        for (key, name) in STAGE_ROWS {
            let _ = write!(md, "| {name} |");
            for (_, m) in &measured {
                match m.stages.get(key) {
                    Some(s) if !s.wall.is_empty() => {
                        let busy = if s.busy.is_empty() {
                            "–".to_owned()
                        } else {
                            format!("{:.2}", percentile(&s.busy, 50.0))
                        };
                        let _ = write!(
                            md,
                            " {:.2} / {:.2} | {busy} |",
                            percentile(&s.wall, 50.0),
                            percentile(&s.wall, 99.0)
                        );
                    }
                    _ => md.push_str(" – | – |"),
                }
            }
            md.push('\n');
        }
        md.push_str("| **first `citations` event, as the client reads it** |");
        for (_, m) in &measured {
            let _ = write!(
                md,
                " **{:.2} / {:.2}** | – |",
                percentile(&m.citations_ms, 50.0),
                percentile(&m.citations_ms, 99.0)
            );
        }
        md.push('\n');
    }

    md.push_str("\n| throughput | per second |\n|---|---:|\n");
    for (r, m) in &measured {
        if let Some(t) = m.conversations_per_sec {
            let _ = writeln!(md, "| conversations started and answered by `lore serve`, {} | {t:.0} |", r.label());
        }
    }
    if let Some(t) = measured.iter().find_map(|(_, m)| m.model_per_sec) {
        let _ = writeln!(md, "| requests the stub model alone answers | {t:.0} |");
    }
    let _ = writeln!(
        md,
        "\nThroughput: {CLIENTS} clients in a loop for {LOAD_SECS} s, each creating a conversation with a first message \
         (JSON answer), against the same {CLIENTS} clients calling the stub alone; not measured on the AWS composition, \
         where moto answers DynamoDB one request at a time and the figure would be moto's."
    );
    let setups: Vec<String> = measured
        .iter()
        .map(|(r, m)| {
            format!(
                "{}: {} chunks in {} sources, {} in {:.1} s",
                r.label(),
                m.chunks,
                m.sources,
                if r.minilm() { "written" } else { "processed" },
                m.setup_secs
            )
        })
        .collect();
    let _ = writeln!(md, "\nSetup: {}.\n", setups.join("; "));
    Section { markdown: md, met }
}

/// The stage rows of the breakdown: span names (or the derived gaps, `_`-prefixed) and labels.
const STAGE_ROWS: [(&str, &str); 20] = [
    ("_before", "request sent → `begin_turn` starts (HTTP, key check, rate count, body)"),
    ("turn.begin", "`begin_turn`, the whole first step"),
    ("turn.owner", "· read the chatbot (persona)"),
    ("turn.conversation", "· read the conversation"),
    ("turn.slot", "· take an answer slot"),
    ("turn.history", "· read the messages"),
    ("turn.store_question", "· store the question"),
    ("turn.corrections", "· look for a correction"),
    ("turn.retrieve", "· retrieval (hybrid search and quotes)"),
    ("search.sources", "· · ready sources' labels"),
    ("search.embed", "· · query embedding"),
    ("search.semantic", "· · semantic search"),
    ("search.rescore", "· · late-interaction rescoring"),
    ("search.keyword", "· · keyword search (at once with the three above)"),
    ("search.fuse", "· · fusion, hits"),
    ("turn.quotes", "· · quotes of the citations"),
    ("turn.prompt", "· build the prompt"),
    ("_spawn", "`begin_turn` done → `citations` written (answer task started)"),
    ("turn.citations", "· write the `citations` event"),
    ("_deliver", "`citations` written → read by the client"),
];

#[derive(Default)]
struct Stage {
    wall: Vec<f64>,
    busy: Vec<f64>,
}

struct Measured {
    chunks: usize,
    sources: usize,
    setup_secs: f64,
    citations_ms: Vec<f64>,
    delta_ms: Vec<f64>,
    done_ms: Vec<f64>,
    model_first_ms: Vec<f64>,
    overhead_ms: Vec<f64>,
    stages: BTreeMap<&'static str, Stage>,
    conversations_per_sec: Option<f64>,
    model_per_sec: Option<f64>,
}

/// The stub model: streams [`ANSWER`] in 12 pieces, at once.
async fn stub_model() -> Result<String> {
    async fn complete() -> axum::response::Response {
        use axum::response::IntoResponse;
        let words: Vec<String> = ANSWER.split_inclusive(' ').map(str::to_owned).collect();
        let mut body = String::new();
        for w in words {
            let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "stub",
                "choices": [{"index": 0, "delta": {"content": w}, "finish_reason": null}]});
            let _ = write!(body, "data: {chunk}\n\n");
        }
        body.push_str("data: [DONE]\n\n");
        ([("content-type", "text/event-stream")], body).into_response()
    }
    let app = axum::Router::new().route("/v1/chat/completions", axum::routing::post(complete));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}/v1", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(base)
}

/// Milliseconds from `started` (before the request was sent) until the first chunk containing
/// each marker, and until the end of the body.
async fn stream_times(started: Instant, res: reqwest::Response, markers: &[&str]) -> Result<(Vec<f64>, f64)> {
    let mut res = res;
    let mut seen = String::new();
    let mut at = vec![f64::NAN; markers.len()];
    while let Some(chunk) = res.chunk().await? {
        seen.push_str(&String::from_utf8_lossy(&chunk));
        let now = started.elapsed().as_secs_f64() * 1e3;
        for (i, m) in markers.iter().enumerate() {
            if at[i].is_nan() && seen.contains(m) {
                at[i] = now;
            }
        }
    }
    Ok((at, started.elapsed().as_secs_f64() * 1e3))
}

/// moto's endpoint with static credentials, fresh resources named after this run.
async fn aws_overrides(env: &AwsEnv) -> lore::compose::AwsOverrides {
    lore::compose::AwsOverrides::local(&env.moto, &env.database, "lore-perf-chat").await
}

/// A text source's content: passages of the corpus up to [`SOURCE_CHARS`].
fn source_text(passages: &[(String, String)], rng: &mut Rng) -> String {
    let mut text = String::new();
    while text.len() < SOURCE_CHARS {
        let (title, body) = &passages[rng.below(passages.len())];
        let _ = write!(text, "{title}: {body}\n\n");
    }
    let mut cut = SOURCE_CHARS.min(text.len());
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    text.truncate(cut);
    text
}

/// The questions of the timed turns, each asked once: the titles of the retrieval corpus in
/// three forms.
pub(crate) fn questions(passages: &[(String, String)], turns: usize) -> Vec<String> {
    let titles: Vec<&str> = passages.iter().step_by(7).map(|(t, _)| t.as_str()).collect();
    (0..turns)
        .map(|i| {
            let t = titles[i % titles.len()];
            match (i / titles.len()) % 3 {
                0 => format!("How do I use {t}?"),
                1 => format!("What does {t} do?"),
                _ => format!("When should I call {t}?"),
            }
        })
        .collect()
}

async fn measure(
    row: Row,
    chunks: usize,
    passages: &[(String, String)],
    turns: usize,
    minilm: Arc<lore_embed::MiniLmEmbedder>,
    aws: Option<AwsEnv>,
    recorder: Option<&'static stages::Recorder>,
) -> Result<Measured> {
    let model = stub_model().await?;
    let mut responder = lore_chat::OpenAiResponderConfig::new(None);
    responder.base_url = model.clone();
    responder.model = "stub".into();
    let embedder: Arc<dyn Embedder> =
        if row.minilm() { minilm.clone() } else { Arc::new(lore_embed::LocalEmbedder::new()) };
    let (backend, aws_overrides) = match (row, &aws) {
        (Row::AwsMiniLm, Some(env)) => (lore::compose::Backend::Aws, Some(aws_overrides(env).await)),
        (Row::AwsMiniLm, None) => return Err("no AWS environment".into()),
        _ => (lore::compose::Backend::Local, None),
    };
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend,
        overrides: lore::compose::Overrides {
            embedder: Some(embedder.clone()),
            responder: Some(Arc::new(lore_chat::OpenAiResponder::new(responder)?)),
            aws: aws_overrides.clone(),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let (ws, api) = crate::bench_workspace(&running, "chat-bench").await?;
    let api = Arc::new(api);
    let bot = api.post("/api/v1/chatbots", &json!({"name": "chat bench"})).await?;
    let bot = bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?.to_owned();
    let chatbot = ChatbotId::parse(&bot).ok_or("bad chatbot id")?;

    // The knowledge base.
    let started = Instant::now();
    let mut rng = crate::Rng(0xC4A7 + chunks as u64);
    let mut pg: Option<lore_pgvector::PgIndex> = None;
    let sources = match row {
        Row::EmbeddedLexical => process_sources(&api, &bot, chunks, passages, &mut rng).await?,
        Row::EmbeddedMiniLm | Row::AwsMiniLm => {
            let (store, index): (Arc<dyn SourceStore>, Arc<dyn VectorIndex>) = match (&running.store, &running.aws) {
                (Some(local), _) => (local.clone(), local.clone()),
                (None, Some(backend)) => {
                    let url = &aws.as_ref().ok_or("no AWS environment")?.database;
                    let index = lore_pgvector::PgIndex::connect(url).await.map_err(|e| format!("{e:?}"))?;
                    index.migrate().await.map_err(|e| format!("{e:?}"))?;
                    pg = Some(index.clone());
                    (backend.ports.sources.clone(), Arc::new(index))
                }
                (None, None) => return Err("the server has no store".into()),
            };
            let chunker = Chunker::for_embedder(ChunkSettings::default(), minilm.token_window());
            let model = running.app.index_model().to_owned();
            let written = Writer { api: &api, bot: &bot, chatbot: &chatbot, ws: &ws, store, index, chunker, model };
            let sources = written.write(chunks, passages, &mut rng).await;
            if let (Err(_), Some(index)) = (&sources, &pg) {
                index.delete_owner_chunks(&SourceOwner::Chatbot(chatbot.clone())).await.ok();
            }
            sources?
        }
    };
    if let (Some(_), Some(env)) = (&pg, &aws) {
        // What autovacuum does soon after a bulk write.
        let (db, connection) = tokio_postgres::connect(&env.database, tokio_postgres::NoTls).await?;
        tokio::spawn(connection);
        db.batch_execute("VACUUM ANALYZE chunks, keyword_segments, keyword_postings").await?;
    }
    let setup_secs = started.elapsed().as_secs_f64();
    let stats = api.get(&format!("/api/v1/chatbots/{bot}/knowledge/stats")).await?;
    let chunks = stats["stats"]["totalChunks"].as_u64().unwrap_or(0) as usize;
    eprintln!("  conversations: {}: {chunks} chunks in {sources} sources, {setup_secs:.1} s", row.label());

    let result = async {
        let mut m = turn_loop(row, &api, &bot, &model, passages, turns, recorder).await?;
        if row != Row::AwsMiniLm {
            m.conversations_per_sec = Some(conversations_per_sec(&api, &bot).await?);
        }
        if row == Row::EmbeddedLexical {
            m.model_per_sec = Some(model_per_sec(&api.client, &model).await?);
        }
        Ok::<_, crate::BoxError>(m)
    }
    .await;
    tokio::time::timeout(Duration::from_secs(10), running.stop()).await.ok();
    // The shared test database and moto server keep nothing of the run, whatever its outcome (the
    // table holds the sources' texts).
    if let Some(index) = &pg {
        index.delete_owner_chunks(&SourceOwner::Chatbot(chatbot.clone())).await.map_err(|e| format!("{e:?}"))?;
    }
    if let Some(o) = &aws_overrides {
        let dynamo = aws_sdk_dynamodb::Client::new(&o.sdk);
        if let Err(e) = dynamo.delete_table().table_name(&o.settings.table).send().await {
            eprintln!("  conversations: the table {} was not deleted: {e}", o.settings.table);
        }
    }
    let mut m = result?;
    m.chunks = chunks;
    m.sources = sources;
    m.setup_secs = setup_secs;
    Ok(m)
}

/// The embedded lexical row's knowledge base, through the real pipeline: text sources created
/// and processed until the chatbot holds `chunks` ready chunks. The sources created.
pub(crate) async fn process_sources(
    api: &crate::Api,
    bot: &str,
    chunks: usize,
    passages: &[(String, String)],
    rng: &mut Rng,
) -> Result<usize> {
    let mut sources = 0;
    loop {
        let stats = api.get(&format!("/api/v1/chatbots/{bot}/knowledge/stats")).await?;
        let ready = stats["stats"]["totalChunks"].as_u64().unwrap_or(0) as usize;
        let by_status = &stats["stats"]["sourcesByStatus"];
        let busy = by_status["processing"].as_u64().unwrap_or(0) + by_status["pending"].as_u64().unwrap_or(0);
        if ready >= chunks && busy == 0 {
            return Ok(sources);
        }
        if busy > 4 || ready + (busy as usize) * 30 >= chunks {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let text = source_text(passages, rng);
        let body = json!({"type": "text", "name": format!("source {sources}"), "content": text});
        let created = api.post(&format!("/api/v1/chatbots/{bot}/sources"), &body).await?;
        let id = created["source"]["id"].as_str().ok_or("no source id")?.to_owned();
        api.post(&format!("/api/v1/chatbots/{bot}/sources/{id}/process"), &json!({})).await?;
        sources += 1;
    }
}

/// Writes the MiniLM rows' knowledge base as an ingest run does, with random vectors.
struct Writer<'a> {
    api: &'a crate::Api,
    bot: &'a str,
    chatbot: &'a ChatbotId,
    ws: &'a lore_domain::workspace::Workspace,
    store: Arc<dyn SourceStore>,
    index: Arc<dyn VectorIndex>,
    chunker: Chunker,
    model: String,
}

impl Writer<'_> {
    /// Text sources created over HTTP until their chunks number `chunks`; the sources created.
    async fn write(&self, chunks: usize, passages: &[(String, String)], rng: &mut Rng) -> Result<usize> {
        let (mut sources, mut written) = (0, 0);
        while written < chunks {
            let text = source_text(passages, rng);
            let body = json!({"type": "text", "name": format!("source {sources}"), "content": text});
            let created = self.api.post(&format!("/api/v1/chatbots/{}/sources", self.bot), &body).await?;
            let id = created["source"]["id"].as_str().ok_or("no source id")?;
            let source = SourceId::parse(id).ok_or("bad source id")?;
            let chunker = self.chunker.clone();
            // A text source is Markdown to the pipeline.
            let texts = tokio::task::spawn_blocking(move || chunker.chunk(&text, true)).await?;
            written += texts.len();
            self.write_source(&source, texts, rng).await?;
            sources += 1;
        }
        Ok(sources)
    }

    async fn write_source(&self, source: &SourceId, texts: Vec<String>, rng: &mut Rng) -> Result<()> {
        let now = Timestamp::now();
        let lease = Lease { owner: "chat-bench".into(), until: Timestamp::from_millis(now.millis() + 3_600_000) };
        let Guarded::Done(run) =
            self.store.begin_processing(&self.ws.id, source, &lease, now).await.map_err(|e| format!("{e:?}"))?
        else {
            return Err(format!("source {source} could not start processing").into());
        };
        let count = texts.len();
        let chunks: Vec<Chunk> = texts
            .into_iter()
            .enumerate()
            .map(|(position, content)| {
                // The token signs MiniLM gives a chunk of this length (about 4.5 characters a
                // token, two tokens a row), random: search rescores with them as with real ones.
                let rows = (content.len() / 9).clamp(1, 128);
                let signs: Vec<u8> = (0..rows * crate::search::DIMS / 8).map(|_| rng.next_u64() as u8).collect();
                Chunk {
                    language: None,
                    id: format!("{source}:{}:{position}", run.generation),
                    workspace_id: self.ws.id.clone(),
                    owner: SourceOwner::Chatbot(self.chatbot.clone()),
                    source_id: source.clone(),
                    position: position as u32,
                    content_hash: format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64()),
                    content,
                    url: None,
                    embedding: ChunkEmbedding {
                        vector: crate::search::unit_vector(rng),
                        token_signs: TokenSigns::from_bytes(signs, crate::search::DIMS),
                    },
                }
            })
            .collect();
        self.index.replace_source_chunks(source, &self.model, chunks).await.map_err(|e| format!("{e:?}"))?;
        let finish = Finish::Ready {
            chunk_count: count as u64,
            size_bytes: None,
            content_hash: format!("{:016x}", rng.next_u64()),
            pages_crawled: None,
            refreshed_at: None,
        };
        self.store
            .finish_processing(source, run.generation, &finish, Timestamp::now())
            .await
            .map_err(|e| format!("{e:?}"))?
            .ok_or("the run was superseded")?;
        Ok(())
    }
}

/// One streamed turn: its times (first `citations`, first `delta`, end of the body) from just
/// before the request is sent.
async fn turn(api: &crate::Api, bot: &str, conversation: &str, q: &str) -> Result<(Instant, Vec<f64>, f64)> {
    let sent = Instant::now();
    let res = api
        .client
        .post(format!("{}/api/v1/chatbots/{bot}/conversations/{conversation}/messages", api.base))
        .bearer_auth(&api.key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": q}))
        .send()
        .await?;
    let (at, total) = stream_times(sent, res, &["event: citations", "event: delta", "event: done"]).await?;
    if at[2].is_nan() {
        return Err(format!("the turn {q:?} ended without a done event").into());
    }
    Ok((sent, at, total))
}

/// Latency, one turn at a time, after one untimed warm-up turn.
async fn turn_loop(
    row: Row,
    api: &crate::Api,
    bot: &str,
    model: &str,
    passages: &[(String, String)],
    turns: usize,
    recorder: Option<&'static stages::Recorder>,
) -> Result<Measured> {
    let new_conversation = || async {
        let created = api.post(&format!("/api/v1/chatbots/{bot}/conversations"), &json!({})).await?;
        Ok::<_, crate::BoxError>(created["conversation"]["id"].as_str().ok_or("no conversation id")?.to_owned())
    };
    // Warm-up: the model's weights, the chatbot's vectors and keyword postings, the connections.
    let warm = new_conversation().await?;
    turn(api, bot, &warm, "How do I warm up the caches of this knowledge base?").await?;

    let questions = questions(passages, turns);
    let mut m = Measured {
        chunks: 0,
        sources: 0,
        setup_secs: 0.0,
        citations_ms: Vec::new(),
        delta_ms: Vec::new(),
        done_ms: Vec::new(),
        model_first_ms: Vec::new(),
        overhead_ms: Vec::new(),
        stages: BTreeMap::new(),
        conversations_per_sec: None,
        model_per_sec: None,
    };
    let mut conversation = String::new();
    for (i, q) in questions.iter().enumerate() {
        if i % 50 == 0 {
            conversation = new_conversation().await?;
        }
        if let Some(r) = recorder {
            r.take();
        }
        let (sent, at, total) = turn(api, bot, &conversation, q).await?;
        if let Some(r) = recorder {
            add_stages(&mut m.stages, sent, at[0], r.take());
        }
        let started = Instant::now();
        let model_res = api
            .client
            .post(format!("{model}/chat/completions"))
            .json(&json!({"model": "stub", "stream": true, "messages": [{"role": "user", "content": q}]}))
            .send()
            .await?;
        let (model_at, _) = stream_times(started, model_res, &["data: "]).await?;
        m.citations_ms.push(at[0]);
        m.delta_ms.push(at[1]);
        m.done_ms.push(total);
        m.model_first_ms.push(model_at[0]);
        m.overhead_ms.push(at[1] - model_at[0]);
    }
    eprintln!(
        "  conversations: {}: first citations p50 {:.2} ms, p99 {:.2} ms",
        row.label(),
        percentile(&m.citations_ms, 50.0),
        percentile(&m.citations_ms, 99.0)
    );
    Ok(m)
}

/// One turn's spans, summed by name, and the gaps around them: from the request to the first
/// step, from the first step to the `citations` event written, from there to the client.
fn add_stages(
    stages: &mut BTreeMap<&'static str, Stage>,
    sent: Instant,
    citations_ms: f64,
    closed: Vec<stages::Closed>,
) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut turn: BTreeMap<&'static str, (f64, f64)> = BTreeMap::new();
    for c in &closed {
        let e = turn.entry(c.name).or_default();
        e.0 += ms(c.end.saturating_duration_since(c.start));
        e.1 += ms(c.busy);
    }
    for (name, (wall, busy)) in turn {
        let s = stages.entry(name).or_default();
        s.wall.push(wall);
        s.busy.push(busy);
    }
    let begin = closed.iter().find(|c| c.name == "turn.begin");
    let citations = closed.iter().find(|c| c.name == "turn.citations");
    if let (Some(begin), Some(citations)) = (begin, citations) {
        let since_sent = |t: Instant| ms(t.saturating_duration_since(sent));
        for (name, v) in [
            ("_before", since_sent(begin.start)),
            ("_spawn", ms(citations.end.saturating_duration_since(begin.end))),
            ("_deliver", citations_ms - since_sent(citations.end)),
        ] {
            stages.entry(name).or_default().wall.push(v);
        }
    }
}

/// Conversations a second under [`CLIENTS`] concurrent clients, each a new one with a first
/// message (a new question: MiniLM embeds each).
async fn conversations_per_sec(api: &Arc<crate::Api>, bot: &str) -> Result<f64> {
    load(CLIENTS, {
        let (api, bot) = (api.clone(), bot.to_owned());
        move |i| {
            let (api, bot) = (api.clone(), bot.clone());
            async move {
                let body = json!({"message": format!("How do I use item {i}?")});
                api.post(&format!("/api/v1/chatbots/{bot}/conversations"), &body).await.map(|_| ())
            }
        }
    })
    .await
}

/// Requests a second the stub model alone answers under [`CLIENTS`] concurrent clients.
async fn model_per_sec(client: &reqwest::Client, model: &str) -> Result<f64> {
    load(CLIENTS, {
        let (client, model) = (client.clone(), model.to_owned());
        move |i| {
            let (client, model) = (client.clone(), model.clone());
            async move {
                let body = json!({"model": "stub", "stream": true, "messages": [{"role": "user", "content": format!("q {i}")}]});
                client.post(format!("{model}/chat/completions")).json(&body).send().await?.bytes().await?;
                Ok(())
            }
        }
    })
    .await
}

/// Completed calls a second of `clients` loops calling `call` for [`LOAD_SECS`].
async fn load<F, Fut>(clients: usize, call: F) -> Result<f64>
where
    F: Fn(u64) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = Result<()>> + Send,
{
    let done = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(LOAD_SECS);
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..clients {
        let (call, done) = (call.clone(), done.clone());
        tasks.spawn(async move {
            let mut i = c as u64 * 1_000_000;
            while Instant::now() < deadline {
                call(i).await?;
                done.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
            Ok::<_, crate::BoxError>(())
        });
    }
    let started = Instant::now();
    while let Some(r) = tasks.join_next().await {
        r??;
    }
    Ok(done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64())
}

/// Times the spans of `lore_app` (the DEBUG spans of a turn's stages): a `tracing_subscriber`
/// layer, installed as the process's subscriber once, that keeps each closed span's name, start,
/// end and busy time (the time it was entered) until [`Recorder::take`].
pub(crate) mod stages {
    use std::sync::{Mutex, OnceLock};
    use std::time::{Duration, Instant};
    use tracing::span::{Attributes, Id};
    use tracing_subscriber::Layer;
    use tracing_subscriber::layer::{Context, SubscriberExt};
    use tracing_subscriber::registry::LookupSpan;

    pub struct Closed {
        pub name: &'static str,
        pub start: Instant,
        pub end: Instant,
        pub busy: Duration,
    }

    #[derive(Default)]
    pub struct Recorder {
        closed: Mutex<Vec<Closed>>,
    }

    impl Recorder {
        /// The spans closed since the last call.
        pub fn take(&self) -> Vec<Closed> {
            std::mem::take(&mut *self.closed.lock().unwrap_or_else(|e| e.into_inner()))
        }
    }

    /// Kept in each span's extensions.
    struct Timing {
        start: Instant,
        entered: Option<Instant>,
        busy: Duration,
    }

    struct StageLayer(&'static Recorder);

    impl<S> Layer<S> for StageLayer
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    {
        fn on_new_span(&self, _: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id) {
                span.extensions_mut().insert(Timing { start: Instant::now(), entered: None, busy: Duration::ZERO });
            }
        }

        fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id)
                && let Some(t) = span.extensions_mut().get_mut::<Timing>()
            {
                t.entered = Some(Instant::now());
            }
        }

        fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
            if let Some(span) = ctx.span(id)
                && let Some(t) = span.extensions_mut().get_mut::<Timing>()
                && let Some(at) = t.entered.take()
            {
                t.busy += at.elapsed();
            }
        }

        fn on_close(&self, id: Id, ctx: Context<'_, S>) {
            let end = Instant::now();
            let Some(span) = ctx.span(&id) else { return };
            let closed = span.extensions().get::<Timing>().map(|t| Closed {
                name: span.name(),
                start: t.start,
                end,
                busy: t.busy,
            });
            if let Some(c) = closed {
                self.0.closed.lock().unwrap_or_else(|e| e.into_inner()).push(c);
            }
        }
    }

    /// The recorder, installed on first use as the global subscriber (DEBUG spans and events of
    /// `lore_app` only; everything else stays disabled, as without a subscriber); `None` when
    /// another global subscriber was installed first.
    pub fn recorder() -> Option<&'static Recorder> {
        static INSTALLED: OnceLock<Option<&'static Recorder>> = OnceLock::new();
        *INSTALLED.get_or_init(|| {
            let recorder: &'static Recorder = Box::leak(Box::default());
            let only = tracing_subscriber::filter::Targets::new().with_target("lore_app", tracing::Level::DEBUG);
            let subscriber = tracing_subscriber::registry().with(StageLayer(recorder).with_filter(only));
            tracing::subscriber::set_global_default(subscriber).ok().map(|_| recorder)
        })
    }
}
