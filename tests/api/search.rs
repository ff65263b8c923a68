//! Search over a knowledge base (docs/api.md §7): ranking in each mode, filters, only ready
//! sources, deleted sources, tenant and chatbot isolation, validation.

use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};

const DOCS: &[(&str, &str)] = &[
    (
        "Billing",
        "Invoices are emailed on the first of each month. Refunds for a returned invoice are processed within 14 days.",
    ),
    ("Shipping", "Orders ship within two business days from our Berlin warehouse. Tracking numbers arrive by email."),
    ("Security", "Passwords must be rotated every 90 days and two-factor authentication is mandatory for admins."),
];

/// A chatbot with the three docs processed to ready; returns (chatbot, source ids by name).
pub(crate) async fn knowledge_base(t: &TestApp, key: &str) -> (String, Vec<String>) {
    let bot = t.create_chatbot(key, json!({"name": "kb"})).await["id"].as_str().unwrap().to_owned();
    let mut ids = Vec::new();
    for (name, content) in DOCS {
        let (status, body) = t.post_source(key, &bot, json!({"type": "text", "name": name, "content": content})).await;
        assert_eq!(status, 201);
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        let path = format!("/api/v1/chatbots/{bot}/sources/{id}/process");
        assert_eq!(t.req(Method::POST, &path, key).send().await.unwrap().status(), 202);
        ids.push(id);
    }
    for id in &ids {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let res = t.req(Method::GET, &format!("/api/v1/chatbots/{bot}/sources/{id}"), key).send().await.unwrap();
            let (_, body) = parts(res).await;
            if body["source"]["status"] == "ready" {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{body}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    (bot, ids)
}

pub(crate) async fn search(t: &TestApp, key: &str, bot: &str, body: Value) -> (u16, Value) {
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), key).json(&body).send();
    parts(res.await.unwrap()).await
}

pub(crate) fn names(body: &Value) -> Vec<String> {
    body["results"].as_array().unwrap().iter().map(|r| r["sourceName"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn each_mode_ranks_the_right_passage_first() {
    let t = TestApp::spawn().await;
    let k = t.dev_key.clone();
    let (bot, _) = knowledge_base(&t, &k).await;
    for (mode, query, expected) in [
        ("keyword", "refund invoice", "Billing"),
        ("semantic", "refunds for invoices", "Billing"),
        ("hybrid", "warehouse shipping tracking", "Shipping"),
        ("hybrid", "password rotation two-factor", "Security"),
        ("semantic", "passwords rotated", "Security"),
    ] {
        let (status, body) = search(&t, &k, &bot, json!({"query": query, "mode": mode})).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["status"], "success");
        assert_eq!(names(&body).first().map(String::as_str), Some(expected), "{mode} {query:?}: {body}");
        let first = &body["results"][0];
        assert!(first["chunkId"].is_string() && first["sourceId"].as_str().unwrap().starts_with("src_"));
        assert_eq!(first["sourceType"], "text");
        assert_eq!(first["url"], Value::Null);
        assert_eq!(first["position"], 0);
        let score = first["score"].as_f64().unwrap();
        assert!(score > 0.0 && score <= 1.0, "{score}");
        assert!(body["tookMs"].is_number());
        let scores: Vec<f64> =
            body["results"].as_array().unwrap().iter().map(|r| r["score"].as_f64().unwrap()).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "best first: {scores:?}");
    }
    // Keyword search finds nothing for words that are nowhere; topK bounds the list.
    let (_, body) = search(&t, &k, &bot, json!({"query": "zebra", "mode": "keyword"})).await;
    assert_eq!(body["results"], json!([]));
    let (_, body) = search(&t, &k, &bot, json!({"query": "days", "topK": 1})).await;
    assert_eq!(body["results"].as_array().unwrap().len(), 1);
    t.stop().await;
}

#[tokio::test]
async fn keyword_scores_do_not_vanish_in_a_small_knowledge_base() {
    // "refunds" is in two of three one-sentence sources: BM25's IDF gives it about nothing, yet
    // both matches are full matches of the query and `minScore` must keep them.
    let t = TestApp::spawn().await;
    let k = t.dev_key.clone();
    let bot = t.chatbot().await;
    for (name, content) in [
        ("Refund policy", "Refunds are issued within 14 days of a return."),
        ("Gift cards", "Gift cards are not eligible for refunds."),
        ("Shipping", "Orders ship within two business days."),
    ] {
        let (status, body) = t.post_source(&k, &bot, json!({"type": "text", "name": name, "content": content})).await;
        assert_eq!(status, 201, "{body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&bot, &id).await;
        assert_eq!(t.settle(&bot, &id).await["status"], "ready");
    }
    let (_, body) = search(&t, &k, &bot, json!({"query": "refunds", "mode": "keyword"})).await;
    let mut got = names(&body);
    got.sort();
    assert_eq!(got, ["Gift cards", "Refund policy"], "{body}");
    let scores: Vec<f64> = body["results"].as_array().unwrap().iter().map(|r| r["score"].as_f64().unwrap()).collect();
    assert!(scores[0] > 0.99, "the best match holds the whole query: {scores:?}");
    assert!(scores.iter().all(|&s| s > 0.5), "{scores:?}");
    for mode in ["keyword", "hybrid"] {
        let (_, body) = search(&t, &k, &bot, json!({"query": "refunds", "mode": mode, "minScore": 0.1})).await;
        let mut got = names(&body);
        got.sort();
        assert!(
            got.starts_with(&["Gift cards".to_owned()]) && got.contains(&"Refund policy".to_owned()),
            "{mode}: {body}"
        );
    }
    t.stop().await;
}

#[tokio::test]
async fn filters_min_score_ready_only_and_deletion() {
    let t = TestApp::spawn().await;
    let k = t.dev_key.clone();
    let (bot, ids) = knowledge_base(&t, &k).await;
    let (_, body) = search(&t, &k, &bot, json!({"query": "days", "sourceIds": [ids[1]]})).await;
    assert_eq!(names(&body), ["Shipping"]);
    let (_, body) = search(&t, &k, &bot, json!({"query": "days", "types": ["file", "url"]})).await;
    assert_eq!(body["results"], json!([]), "no file or url sources");
    let (_, all) = search(&t, &k, &bot, json!({"query": "days email", "topK": 50})).await;
    let (_, strict) = search(&t, &k, &bot, json!({"query": "days email", "topK": 50, "minScore": 0.99})).await;
    assert!(strict["results"].as_array().unwrap().len() < all["results"].as_array().unwrap().len());
    assert!(strict["results"].as_array().unwrap().iter().all(|r| r["score"].as_f64().unwrap() >= 0.99));

    // A source that is not ready is never searched.
    let (_, pending) =
        t.post_source(&k, &bot, json!({"type": "text", "name": "Draft", "content": "Refund invoice draft"})).await;
    let (_, body) = search(&t, &k, &bot, json!({"query": "refund invoice draft", "topK": 50})).await;
    assert!(!names(&body).contains(&"Draft".to_owned()), "{body}");
    assert!(pending["source"]["status"] == "pending");

    // A deleted source's chunks are gone from every mode.
    let path = format!("/api/v1/chatbots/{bot}/sources/{}", ids[0]);
    assert_eq!(t.req(Method::DELETE, &path, &k).send().await.unwrap().status(), 200);
    for mode in ["keyword", "semantic", "hybrid"] {
        let (_, body) = search(&t, &k, &bot, json!({"query": "refunds invoices", "mode": mode, "topK": 50})).await;
        assert!(!names(&body).contains(&"Billing".to_owned()), "{mode}: {body}");
    }
    t.stop().await;
}

#[tokio::test]
async fn searches_never_cross_chatbots_or_workspaces() {
    let t = TestApp::spawn().await;
    let (bot_a, _) = knowledge_base(&t, &t.dev_key).await;
    let other_bot = t.create_chatbot(&t.dev_key, json!({"name": "empty"})).await["id"].as_str().unwrap().to_owned();
    let (_, body) = search(&t, &t.dev_key, &other_bot, json!({"query": "refund invoice"})).await;
    assert_eq!(body["results"], json!([]), "another chatbot of the same workspace sees nothing");

    let ws = t.workspace("tenant-b", LimitsPatch::default()).await;
    let kb = t.key(&ws, "all").await;
    let res = t
        .req(Method::POST, &format!("/api/v1/chatbots/{bot_a}/knowledge/search"), &kb)
        .json(&json!({"query": "refund"}))
        .send();
    expect_error(res.await.unwrap(), 404, "not_found").await;
    let (bot_b, _) = knowledge_base(&t, &kb).await;
    let (_, body) = search(&t, &kb, &bot_b, json!({"query": "refund invoice", "topK": 50})).await;
    let a_sources: Vec<String> =
        body["results"].as_array().unwrap().iter().map(|r| r["sourceId"].as_str().unwrap().to_owned()).collect();
    let (_, own) = search(&t, &t.dev_key, &bot_a, json!({"query": "refund invoice", "topK": 50})).await;
    for r in own["results"].as_array().unwrap() {
        assert!(!a_sources.contains(&r["sourceId"].as_str().unwrap().to_owned()), "tenant B saw tenant A's chunk");
    }
    t.stop().await;
}

#[tokio::test]
async fn bad_requests_and_missing_scope_are_refused() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    for (body, field) in [
        (json!({}), "query"),
        (json!({"query": ""}), "query"),
        (json!({"query": "   "}), "query"),
        (json!({"query": "q".repeat(2001)}), "query"),
        (json!({"query": "x", "topK": 0}), "topK"),
        (json!({"query": "x", "topK": 51}), "topK"),
        (json!({"query": "x", "mode": "fuzzy"}), "mode"),
        (json!({"query": "x", "minScore": 1.5}), "minScore"),
        (json!({"query": "x", "minScore": -0.1}), "minScore"),
        (json!({"query": "x", "types": ["pdf"]}), "types"),
        (json!({"query": 5}), "query"),
    ] {
        let (status, res) = search(&t, &t.dev_key, &bot, body.clone()).await;
        assert_eq!((status, res["error"]["code"].clone()), (400, json!("validation_error")), "{body}: {res}");
        assert!(res["error"]["details"]["fields"][field].is_string(), "{body}: {res}");
    }
    let (status, _) = search(&t, &t.dev_key, &bot, json!({"query": "q".repeat(2000), "topK": 50})).await;
    assert_eq!(status, 200, "2,000 characters and topK 50 are fine");
    let no_search = t.key("default", "knowledge:read,knowledge:write,chatbot:read").await;
    let res = t
        .req(Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), &no_search)
        .json(&json!({"query": "x"}))
        .send();
    let body = expect_error(res.await.unwrap(), 403, "insufficient_scope").await;
    assert_eq!(body["error"]["details"]["required"], "knowledge:search");
    t.stop().await;
}

/// The same lexical embedder under another model id: a stand-in for switching models.
struct Renamed(lore_embed::LocalEmbedder);

#[async_trait::async_trait]
impl lore_app::ports::Embedder for Renamed {
    fn model_id(&self) -> &str {
        "renamed-model"
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        lore_app::ports::Embedder::embed(&self.0, texts).await
    }
}

/// The same lexical embedder reporting a token window (whitespace words): its chunks are sized in
/// those tokens.
struct Windowed(lore_embed::LocalEmbedder, usize);

struct Words;

impl lore_app::ports::TokenCounter for Words {
    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
}

#[async_trait::async_trait]
impl lore_app::ports::Embedder for Windowed {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        lore_app::ports::Embedder::embed(&self.0, texts).await
    }
    fn token_window(&self) -> Option<lore_app::ports::TokenWindow> {
        Some(lore_app::ports::TokenWindow { counter: std::sync::Arc::new(Words), max_tokens: self.1 })
    }
}

/// Processes `content` with the hashing embedder, restarts the server on the same data dir with
/// `second` and waits for the source to be processed again; returns the source before and after,
/// and the semantic search answer for `query` after.
async fn restart_with(
    content: &str,
    second: std::sync::Arc<dyn lore_app::ports::Embedder>,
    query: &str,
) -> (Value, Value, Value) {
    use lore::compose::{Backend, Overrides};
    use lore::serve::{ServeConfig, start};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let config = |embedder: Arc<dyn lore_app::ports::Embedder>| ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().to_path_buf(),
        backend: Backend::Local,
        overrides: Overrides { embedder: Some(embedder), ..Default::default() },
    };
    let client = reqwest::Client::new();
    let first = start(config(Arc::new(lore_embed::LocalEmbedder::new()))).await.unwrap();
    let key = first.new_dev_key.clone().unwrap();
    let base = format!("http://{}", first.addr);
    let res = client.post(format!("{base}/api/v1/chatbots")).bearer_auth(&key).json(&json!({"name": "kb"})).send();
    let bot = res.await.unwrap().json::<Value>().await.unwrap()["chatbot"]["id"].as_str().unwrap().to_owned();
    let res = client
        .post(format!("{base}/api/v1/chatbots/{bot}/sources"))
        .bearer_auth(&key)
        .json(&json!({"type": "text", "content": content}))
        .send();
    let src = res.await.unwrap().json::<Value>().await.unwrap()["source"]["id"].as_str().unwrap().to_owned();
    client.post(format!("{base}/api/v1/chatbots/{bot}/sources/{src}/process")).bearer_auth(&key).send().await.unwrap();
    let poll = |base: String| {
        let (client, key, bot, src) = (client.clone(), key.clone(), bot.clone(), src.clone());
        async move {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            loop {
                let url = format!("{base}/api/v1/chatbots/{bot}/sources/{src}");
                let s = client.get(url).bearer_auth(&key).send().await.unwrap().json::<Value>().await.unwrap();
                if s["source"]["status"] == "ready" {
                    return s["source"].clone();
                }
                assert!(std::time::Instant::now() < deadline, "{s}");
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        }
    };
    let before = poll(base.clone()).await;
    first.stop().await.unwrap();

    let second = start(config(second)).await.unwrap();
    let base = format!("http://{}", second.addr);
    // The restart queues a new run: a new processed time once it is ready again.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let after = loop {
        let s = poll(base.clone()).await;
        if s["processedAt"] != before["processedAt"] {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "never processed again: {s}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let res = client
        .post(format!("{base}/api/v1/chatbots/{bot}/knowledge/search"))
        .bearer_auth(&key)
        .json(&json!({"query": query, "mode": "semantic"}))
        .send();
    let found = res.await.unwrap().json::<Value>().await.unwrap();
    second.stop().await.unwrap();
    assert_eq!(found["results"][0]["sourceId"], src.as_str(), "found by the new vectors: {found}");
    (before, after, found)
}

#[tokio::test]
async fn a_new_embedding_model_re_embeds_old_sources_at_start_never_mixing_them() {
    let content = "Refunds are paid within fourteen days.";
    let (before, after, _) =
        restart_with(content, std::sync::Arc::new(Renamed(lore_embed::LocalEmbedder::new())), "refunds paid").await;
    assert_eq!(after["chunkCount"], before["chunkCount"]);
}

#[tokio::test]
async fn an_embedder_with_a_smaller_window_re_chunks_old_sources_at_start() {
    // 240 words: one chunk of at most 3,200 characters before; chunks of at most 40 - 16 = 24 words after.
    let content: String = (0..30).map(|i| format!("Paragraph {i} explains how refunds reach the customer. ")).collect();
    let windowed = std::sync::Arc::new(Windowed(lore_embed::LocalEmbedder::new(), 40));
    let (before, after, found) = restart_with(&content, windowed, "refunds reach the customer").await;
    assert_eq!(before["chunkCount"], 1, "{before}");
    assert!(after["chunkCount"].as_u64().unwrap() >= 10, "re-chunked in the window: {after}");
    let words = found["results"][0]["content"].as_str().unwrap().split_whitespace().count();
    assert!(words <= 24, "a chunk of {words} words");
}

/// The hashing embedder, counting the texts it embeds.
struct Counting(lore_embed::LocalEmbedder, std::sync::Arc<std::sync::atomic::AtomicUsize>);

#[async_trait::async_trait]
impl lore_app::ports::Embedder for Counting {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        self.1.fetch_add(texts.len(), std::sync::atomic::Ordering::SeqCst);
        lore_app::ports::Embedder::embed(&self.0, texts).await
    }
}

#[tokio::test]
async fn a_repeated_query_is_embedded_once() {
    use std::sync::atomic::Ordering;
    let embedded = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let dir = tempfile::tempdir().unwrap();
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            embedder: Some(std::sync::Arc::new(Counting(lore_embed::LocalEmbedder::new(), embedded.clone()))),
            ..Default::default()
        },
    })
    .await
    .unwrap();
    let (base, key) = (format!("http://{}", running.addr), running.new_dev_key.clone().unwrap());
    let client = reqwest::Client::new();
    let res = client.post(format!("{base}/api/v1/chatbots")).bearer_auth(&key).json(&json!({"name": "kb"})).send();
    let bot = res.await.unwrap().json::<Value>().await.unwrap()["chatbot"]["id"].as_str().unwrap().to_owned();
    let body = json!({"type": "text", "content": "Refunds are paid within fourteen days."});
    let res = client.post(format!("{base}/api/v1/chatbots/{bot}/sources")).bearer_auth(&key).json(&body).send();
    let src = res.await.unwrap().json::<Value>().await.unwrap()["source"]["id"].as_str().unwrap().to_owned();
    client.post(format!("{base}/api/v1/chatbots/{bot}/sources/{src}/process")).bearer_auth(&key).send().await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let url = format!("{base}/api/v1/chatbots/{bot}/sources/{src}");
        let s = client.get(url).bearer_auth(&key).send().await.unwrap().json::<Value>().await.unwrap();
        if s["source"]["status"] == "ready" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{s}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let before = embedded.load(Ordering::SeqCst);
    let search = |query: &str, mode: &str| {
        let body = json!({"query": query, "mode": mode});
        client.post(format!("{base}/api/v1/chatbots/{bot}/knowledge/search")).bearer_auth(&key).json(&body).send()
    };
    for mode in ["semantic", "hybrid", "semantic"] {
        let found = search("when are refunds paid", mode).await.unwrap().json::<Value>().await.unwrap();
        assert_eq!(found["results"][0]["sourceId"], src.as_str(), "{found}");
    }
    assert_eq!(embedded.load(Ordering::SeqCst) - before, 1, "three searches, one query embedding");
    search("another question", "semantic").await.unwrap();
    assert_eq!(embedded.load(Ordering::SeqCst) - before, 2, "a new query is embedded");
    running.stop().await.unwrap();
}

/// The hashing embedder posing as a model with token states (one 8-number state a word), logging
/// which pass each text took: `embed` (the vector alone) or `states`.
struct WithStates(lore_embed::LocalEmbedder, std::sync::Arc<std::sync::Mutex<Vec<(&'static str, String)>>>);

#[async_trait::async_trait]
impl lore_app::ports::Embedder for WithStates {
    fn model_id(&self) -> &str {
        self.0.model_id()
    }
    fn dimensions(&self) -> usize {
        self.0.dimensions()
    }
    fn has_token_states(&self) -> bool {
        true
    }
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, lore_app::ports::EmbedError> {
        self.1.lock().unwrap().extend(texts.iter().map(|t| ("embed", t.clone())));
        lore_app::ports::Embedder::embed(&self.0, texts).await
    }
    async fn embed_with_token_states(
        &self,
        texts: &[String],
    ) -> Result<Vec<lore_app::ports::Embedding>, lore_app::ports::EmbedError> {
        self.1.lock().unwrap().extend(texts.iter().map(|t| ("states", t.clone())));
        let vectors = lore_app::ports::Embedder::embed(&self.0, texts).await?;
        Ok(texts
            .iter()
            .zip(vectors)
            .map(|(t, vector)| {
                let words = t.split_whitespace().count().max(1);
                let states = lore_domain::late_interaction::TokenStates::new(vec![0.5; words * 8], 8);
                lore_app::ports::Embedding { vector, token_states: states }
            })
            .collect())
    }
}

#[tokio::test]
async fn the_semantic_mode_makes_no_token_states_and_hybrid_makes_them_once() {
    let passes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let embedder = std::sync::Arc::new(WithStates(lore_embed::LocalEmbedder::new(), passes.clone()));
    let t = crate::support::TestApp::spawn_with(lore::compose::Overrides {
        embedder: Some(embedder),
        ..Default::default()
    })
    .await;
    let bot = t.chatbot().await;
    let (_, src) =
        t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "Refunds take fourteen days."})).await;
    let src = src["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &src).await;
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    let search = |query: &'static str, mode: &'static str| {
        let req = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/knowledge/search"), &t.dev_key);
        async move {
            let found: Value =
                req.json(&json!({"query": query, "mode": mode})).send().await.unwrap().json().await.unwrap();
            assert!(found["results"].as_array().is_some_and(|r| !r.is_empty()), "{mode}: {found}");
        }
    };
    let of = |query: &str| -> Vec<&'static str> {
        passes.lock().unwrap().iter().filter(|(_, t)| t == query).map(|(pass, _)| *pass).collect()
    };
    // Semantic alone: the vector, no states; asked again, nothing.
    search("how long do refunds take", "semantic").await;
    search("how long do refunds take", "semantic").await;
    assert_eq!(of("how long do refunds take"), ["embed"]);
    // Hybrid after it needs the states: one pass that makes them, then the cache serves both modes.
    search("how long do refunds take", "hybrid").await;
    search("how long do refunds take", "semantic").await;
    search("how long do refunds take", "hybrid").await;
    assert_eq!(of("how long do refunds take"), ["embed", "states"]);
    // Hybrid first: one pass with the states serves a later semantic search too.
    search("refunds fourteen days", "hybrid").await;
    search("refunds fourteen days", "semantic").await;
    assert_eq!(of("refunds fourteen days"), ["states"]);
    t.stop().await;
}

/// all-MiniLM-L6-v2 from `LORE_MODEL_DIR` (default `~/.cache/lore/models/all-MiniLM-L6-v2`, put
/// there by scripts/fetch-model.sh, which the test command runs); `None` only when
/// `LORE_SKIP_MODEL_TESTS=1` and it is missing.
fn minilm() -> Option<lore_embed::MiniLmEmbedder> {
    let skip = std::env::var("LORE_SKIP_MODEL_TESTS").is_ok_and(|v| v == "1");
    let dir = lore_embed::model_dir_from_lookup(|name| std::env::var(name).ok());
    match dir.map(lore_embed::MiniLmEmbedder::load) {
        Some(Ok(model)) => Some(model),
        _ if skip => None,
        other => {
            panic!("the MiniLM search test needs the model (bash scripts/fetch-model.sh): {:?}", other.map(|r| r.err()))
        }
    }
}

/// With all-MiniLM-L6-v2 served for real, each chunk is stored with its token signs (SQLite or
/// pgvector); hybrid search rescores its semantic candidates 0.1 × cosine + 0.9 × MaxSim of the
/// question's token states against them and adds keyword evidence with α 0.97, while the semantic
/// mode stays the cosine: what the model and the domain compute for the same texts, here.
#[tokio::test]
async fn with_minilm_hybrid_search_rescores_by_late_interaction() {
    use lore_app::ports::Embedder;
    let Some(model) = minilm() else { return };
    let overrides =
        lore::compose::Overrides { embedder: Some(std::sync::Arc::new(model.clone())), ..Default::default() };
    let t = TestApp::spawn_with(overrides).await;
    let k = t.dev_key.clone();
    let (bot, _) = knowledge_base(&t, &k).await;
    let query = "how long until I get my refund for an invoice";
    let run = |mode: &str| search(&t, &k, &bot, json!({"query": query, "mode": mode, "topK": 3}));
    let (semantic, keyword, hybrid) = (run("semantic").await, run("keyword").await, run("hybrid").await);
    for (status, body) in [&semantic, &keyword, &hybrid] {
        assert_eq!(*status, 200, "{body}");
    }
    assert_eq!(hybrid.1["results"][0]["sourceName"], "Billing", "{}", hybrid.1);

    // The model's own numbers for every chunk, from one pass.
    let chunks: Vec<String> = DOCS.iter().map(|(_, c)| c.to_string()).collect();
    let mut texts = chunks.clone();
    texts.push(query.to_owned());
    let embedded = model.embed_with_token_states(&texts).await.unwrap();
    let question = embedded.last().unwrap();
    let states = question.token_states.as_ref().unwrap();
    let of = |content: &str| chunks.iter().position(|c| c == content).expect("a chunk is a whole doc");
    let cosine = |i: usize| -> f32 { embedded[i].vector.iter().zip(&question.vector).map(|(a, b)| a * b).sum() };
    let rescored = |i: usize| {
        let max_sim = states.max_sim(&embedded[i].token_states.as_ref().unwrap().signs()).unwrap();
        0.1 * cosine(i).clamp(0.0, 1.0) + 0.9 * max_sim
    };
    let results = |body: &Value| -> Vec<(usize, f64)> {
        let rows = body["results"].as_array().unwrap();
        rows.iter().map(|r| (of(r["content"].as_str().unwrap()), r["score"].as_f64().unwrap())).collect()
    };
    let close = |a: f64, b: f32, what: &str| assert!((a - f64::from(b)).abs() < 1e-4, "{what}: {a} vs {b}");
    for (i, score) in results(&semantic.1) {
        close(score, cosine(i).clamp(0.0, 1.0), "semantic is the cosine");
    }
    let keyword: Vec<(usize, f64)> = results(&keyword.1);
    let best_keyword = keyword.iter().map(|(_, s)| *s as f32).fold(0.0, f32::max);
    let hybrid = results(&hybrid.1);
    assert_eq!(hybrid.len(), 3);
    for (i, score) in &hybrid {
        let kw = keyword.iter().find(|(j, _)| j == i).map_or(0.0, |(_, s)| *s as f32);
        let expected = 0.97 * rescored(*i) + 0.03 * best_keyword * kw;
        close(*score, expected.min(1.0), "hybrid");
        assert!((score - f64::from(0.9 * cosine(*i))).abs() > 1e-3, "not the cosine's fusion");
    }
    assert!(hybrid.windows(2).all(|w| w[0].1 >= w[1].1), "best first");

    // The longest question allowed: the model reads its first 254 tokens, late interaction
    // compares every one of them with each candidate, and the answer is an ordinary one.
    let long: String = "refund invoice billing password reset ".chars().cycle().take(2_000).collect();
    for mode in ["hybrid", "semantic"] {
        let (status, body) = search(&t, &k, &bot, json!({"query": long, "mode": mode, "topK": 3})).await;
        assert_eq!(status, 200, "{mode}: {body}");
        let scores: Vec<f64> =
            body["results"].as_array().unwrap().iter().map(|r| r["score"].as_f64().unwrap()).collect();
        assert_eq!(scores.len(), 3, "{mode}: {body}");
        assert!(scores.windows(2).all(|w| w[0] >= w[1]) && scores.iter().all(|s| (0.0..=1.0).contains(s)), "{body}");
    }
}

#[tokio::test]
async fn a_paid_embedder_is_not_called_for_a_knowledge_base_with_nothing_to_search() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let calls = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let t = TestApp::with_stub_embedder(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async {}
    })
    .await;
    let k = t.dev_key.clone();
    let bot = t.create_chatbot(&k, json!({"name": "empty"})).await["id"].as_str().unwrap().to_owned();
    for mode in ["hybrid", "semantic"] {
        let (status, body) = search(&t, &k, &bot, json!({"query": "refund policy", "mode": mode})).await;
        assert_eq!((status, body["results"].as_array().map(Vec::len)), (200, Some(0)), "{body}");
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no source to compare with: no paid call");

    // With a ready source the question is embedded (once: the vector is cached).
    let (bot, _) = knowledge_base(&t, &k).await;
    let before = calls.load(Ordering::SeqCst);
    assert!(before > 0, "the sources' chunks were embedded");
    let (status, body) = search(&t, &k, &bot, json!({"query": "refund policy", "mode": "semantic"})).await;
    assert_eq!(status, 200, "{body}");
    assert!(!body["results"].as_array().unwrap().is_empty(), "{body}");
    assert_eq!(calls.load(Ordering::SeqCst), before + 1, "one call for the question");
    t.stop().await;
}
