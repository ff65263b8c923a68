//! Conversation answers on `lore serve`: how long a client waits for the first `citations` and
//! the first `delta` event of a streamed answer, against the model's own time to its first piece
//! (the difference is Lore's overhead: loading the conversation, storing the question, hybrid
//! retrieval over the knowledge base, building the prompt), and how many conversations a second
//! it sustains, against the model alone under the same load.
//!
//! The model is a local OpenAI-compatible stub (`/v1/chat/completions`, streamed SSE: 12 pieces,
//! no delay), so the numbers are Lore's and the network's, not a model's. The knowledge base: a
//! chatbot whose text sources (prose of the retrieval corpus, ~96,000 characters each) were
//! processed by the real pipeline with the built-in lexical embedder until it holds the wanted
//! number of ready chunks.

use crate::{Options, Result, Section, percentile};
use serde_json::json;
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

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let chunks = if o.quick { 2_000 } else { 10_000 };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(measure(chunks, &passages, if o.quick { 40 } else { TURNS }))?;

    let mut md = String::new();
    md.push_str("### Conversation answers\n\n");
    let _ = writeln!(
        md,
        "`lore serve` (embedded backend, built-in lexical embedder) with a chatbot of {} ready chunks, answering \
         through the OpenAI-compatible responder from a local stub model that streams 12 pieces at once. Each \
         turn is `POST …/conversations/{{id}}/messages` with `Accept: text/event-stream`, one at a time, {} turns \
         (a new conversation every 50). *Model alone* is the same request sent straight to the stub. Throughput: \
         {CLIENTS} clients in a loop for {LOAD_SECS} s, each creating a conversation with a first message (JSON \
         answer), against the same {CLIENTS} clients calling the stub alone.\n",
        m.chunks, m.turns
    );
    md.push_str("| measure | p50 ms | p99 ms |\n|---|---:|---:|\n");
    for (name, v) in [
        ("first `citations` event", &m.citations_ms),
        ("first `delta` event", &m.delta_ms),
        ("whole answer (`done`)", &m.done_ms),
        ("model alone: first piece", &m.model_first_ms),
        ("overhead: first `delta` − model's first piece", &m.overhead_ms),
    ] {
        let _ = writeln!(md, "| {name} | {:.2} | {:.2} |", percentile(v, 50.0), percentile(v, 99.0));
    }
    let _ = writeln!(
        md,
        "\n| throughput | per second |\n|---|---:|\n| conversations started and answered by `lore serve` | {:.0} |\n\
         | requests the stub model alone answers | {:.0} |\n\nSetup: {} sources processed in {:.1} s.\n",
        m.conversations_per_sec, m.model_per_sec, m.sources, m.setup_secs
    );
    Ok(Section { markdown: md, met: Vec::new() })
}

struct Measured {
    chunks: usize,
    turns: usize,
    sources: usize,
    setup_secs: f64,
    citations_ms: Vec<f64>,
    delta_ms: Vec<f64>,
    done_ms: Vec<f64>,
    model_first_ms: Vec<f64>,
    overhead_ms: Vec<f64>,
    conversations_per_sec: f64,
    model_per_sec: f64,
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

async fn measure(chunks: usize, passages: &[(String, String)], turns: usize) -> Result<Measured> {
    let model = stub_model().await?;
    let mut responder = lore_chat::OpenAiResponderConfig::new(None);
    responder.base_url = model.clone();
    responder.model = "stub".into();
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())),
            responder: Some(Arc::new(lore_chat::OpenAiResponder::new(responder)?)),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let (_, api) = crate::bench_workspace(&running, "chat-bench").await?;
    let api = Arc::new(api);
    let bot = api.post("/api/v1/chatbots", &json!({"name": "chat bench"})).await?;
    let bot = bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?.to_owned();

    // The knowledge base, through the real pipeline.
    let started = Instant::now();
    let mut rng = crate::Rng(0xC4A7 + chunks as u64);
    let mut sources = 0;
    loop {
        let stats = api.get(&format!("/api/v1/chatbots/{bot}/knowledge/stats")).await?;
        let ready = stats["stats"]["totalChunks"].as_u64().unwrap_or(0) as usize;
        let by_status = &stats["stats"]["sourcesByStatus"];
        let busy = by_status["processing"].as_u64().unwrap_or(0) + by_status["pending"].as_u64().unwrap_or(0);
        if ready >= chunks && busy == 0 {
            break;
        }
        if busy > 4 || ready + (busy as usize) * 30 >= chunks {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
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
        let body = json!({"type": "text", "name": format!("source {sources}"), "content": text});
        let created = api.post(&format!("/api/v1/chatbots/{bot}/sources"), &body).await?;
        let id = created["source"]["id"].as_str().ok_or("no source id")?.to_owned();
        api.post(&format!("/api/v1/chatbots/{bot}/sources/{id}/process"), &json!({})).await?;
        sources += 1;
    }
    let setup_secs = started.elapsed().as_secs_f64();
    let stats = api.get(&format!("/api/v1/chatbots/{bot}/knowledge/stats")).await?;
    let chunks = stats["stats"]["totalChunks"].as_u64().unwrap_or(0) as usize;
    eprintln!("  conversations: {chunks} chunks in {sources} sources, {setup_secs:.1} s");

    // Latency, one turn at a time; the questions are the retrieval benchmark's.
    let questions: Vec<String> = passages.iter().step_by(7).map(|(t, _)| format!("How do I use {t}?")).collect();
    let (mut citations_ms, mut delta_ms, mut done_ms, mut model_first_ms, mut overhead_ms) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut conversation = String::new();
    for turn in 0..turns {
        if turn % 50 == 0 {
            let created = api.post(&format!("/api/v1/chatbots/{bot}/conversations"), &json!({})).await?;
            conversation = created["conversation"]["id"].as_str().ok_or("no conversation id")?.to_owned();
        }
        let q = &questions[turn % questions.len()];
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
            return Err(format!("turn {turn} ended without a done event").into());
        }
        let sent = Instant::now();
        let model_res = api
            .client
            .post(format!("{model}/chat/completions"))
            .json(&json!({"model": "stub", "stream": true, "messages": [{"role": "user", "content": q}]}))
            .send()
            .await?;
        let (model_at, _) = stream_times(sent, model_res, &["data: "]).await?;
        citations_ms.push(at[0]);
        delta_ms.push(at[1]);
        done_ms.push(total);
        model_first_ms.push(model_at[0]);
        overhead_ms.push(at[1] - model_at[0]);
    }

    // Throughput under CLIENTS concurrent clients.
    let ours = load(CLIENTS, {
        let (api, bot) = (api.clone(), bot.clone());
        move |i| {
            let (api, bot) = (api.clone(), bot.clone());
            async move {
                let body = json!({"message": format!("How do I use item {i}?")});
                api.post(&format!("/api/v1/chatbots/{bot}/conversations"), &body).await.map(|_| ())
            }
        }
    })
    .await?;
    let model_only = load(CLIENTS, {
        let (client, model) = (api.client.clone(), model.clone());
        move |i| {
            let (client, model) = (client.clone(), model.clone());
            async move {
                let body = json!({"model": "stub", "stream": true, "messages": [{"role": "user", "content": format!("q {i}")}]});
                client.post(format!("{model}/chat/completions")).json(&body).send().await?.bytes().await?;
                Ok(())
            }
        }
    })
    .await?;
    running.stop().await.map_err(|e| e.to_string())?;
    Ok(Measured {
        chunks,
        turns,
        sources,
        setup_secs,
        citations_ms,
        delta_ms,
        done_ms,
        model_first_ms,
        overhead_ms,
        conversations_per_sec: ours,
        model_per_sec: model_only,
    })
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
