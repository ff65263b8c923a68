//! Mind knowledge sources (docs/api.md §9) and the Mind search (§7): every type to `ready` through
//! the real pipeline (podcasts through the real OpenAI-compatible transcriber against a stub
//! server on 127.0.0.1, visibly `transcribing`), `Retry-After`, reprocess and delete rules,
//! the count limits, validation, tenants and scopes, and the delete cascade of a Mind.

use crate::fixtures;
use crate::site::Site;
use crate::support::{TestApp, expect_error, parts};
use axum::Router;
use axum::extract::{Multipart, State};
use axum::routing::post;
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

/// An OpenAI-compatible `/v1/audio/transcriptions` that answers only when released, so that a
/// test sees the source in `transcribing`.
struct TranscriptionStub {
    base_url: String,
    gate: Arc<Semaphore>,
}

impl TranscriptionStub {
    async fn start(text: &'static str) -> Self {
        async fn transcribe(
            State((gate, text)): State<(Arc<Semaphore>, &'static str)>,
            mut form: Multipart,
        ) -> axum::Json<Value> {
            while let Some(field) = form.next_field().await.unwrap() {
                let _ = field.bytes().await.unwrap();
            }
            gate.acquire().await.unwrap().forget();
            axum::Json(json!({"text": text}))
        }
        let gate = Arc::new(Semaphore::new(0));
        let app = Router::new().route("/v1/audio/transcriptions", post(transcribe)).with_state((gate.clone(), text));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base_url, gate }
    }

    fn release(&self) {
        self.gate.add_permits(100);
    }

    fn transcriber(&self) -> Arc<dyn lore_app::ports::Transcriber> {
        let config = lore_transcribe::OpenAiTranscriberConfig {
            base_url: self.base_url.clone(),
            ..lore_transcribe::OpenAiTranscriberConfig::new(None)
        };
        Arc::new(lore_transcribe::OpenAiTranscriber::new(config).unwrap())
    }
}

/// A server whose podcasts go to `stub`, with crawling of 127.0.0.1 allowed.
async fn spawn_with_transcriber(stub: &TranscriptionStub) -> TestApp {
    TestApp::spawn_with(lore::compose::Overrides {
        allow_private_network: true,
        transcriber: Some(stub.transcriber()),
        ..Default::default()
    })
    .await
}

fn audio(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/audio/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

impl TestApp {
    async fn mind_named(&self, key: &str, name: &str) -> String {
        let res = self.req(Method::POST, "/api/v1/minds", key).json(&json!({"name": name})).send().await;
        let (status, body) = parts(res.unwrap()).await;
        assert_eq!(status, 201, "create mind: {body}");
        body["mind"]["id"].as_str().unwrap().to_owned()
    }

    /// Uploads a file to the Mind; its `fileUrl`.
    async fn mind_file(&self, key: &str, mind: &str, file_name: &str, bytes: Vec<u8>) -> String {
        let form = Form::new().part("file", Part::bytes(bytes).file_name(file_name.to_owned()));
        let path = format!("/api/v1/minds/{mind}/knowledge/upload");
        let (status, body) = parts(self.req(Method::POST, &path, key).multipart(form).send().await.unwrap()).await;
        assert_eq!(status, 201, "upload: {body}");
        body["fileUrl"].as_str().unwrap().to_owned()
    }

    async fn add_knowledge(&self, key: &str, mind: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge");
        parts(self.req(Method::POST, &path, key).json(&body).send().await.unwrap()).await
    }

    /// Adds a source that must be accepted; its id.
    async fn knowledge(&self, mind: &str, body: Value) -> String {
        let (status, created) = self.add_knowledge(&self.dev_key, mind, body).await;
        assert_eq!(status, 201, "{created}");
        created["source"]["id"].as_str().unwrap().to_owned()
    }

    /// The detail response: status, `Retry-After`, and the source.
    async fn mind_source(&self, mind: &str, id: &str) -> (u16, Option<String>, Value) {
        self.mind_source_with(&self.dev_key, mind, id).await
    }

    async fn mind_source_with(&self, key: &str, mind: &str, id: &str) -> (u16, Option<String>, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/{id}");
        let res = self.req(Method::GET, &path, key).send().await.unwrap();
        let retry = res.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
        let (status, body) = parts(res).await;
        (status, retry, body["source"].clone())
    }

    /// Polls until the source is `ready` or `failed`; fails after 60 s.
    async fn settle_mind_source(&self, mind: &str, id: &str) -> Value {
        self.wait_mind_source(mind, id, |s| s["status"] == "ready" || s["status"] == "failed").await
    }

    async fn wait_mind_source(&self, mind: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        self.wait_mind_source_with(&self.dev_key, mind, id, done).await
    }

    async fn wait_mind_source_with(&self, key: &str, mind: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, _, s) = self.mind_source_with(key, mind, id).await;
            assert_eq!(status, 200, "{s}");
            if done(&s) {
                return s;
            }
            assert!(Instant::now() < deadline, "source still {}: {s}", s["status"]);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn mind_detail(&self, key: &str, mind: &str) -> Value {
        let res = self.req(Method::GET, &format!("/api/v1/minds/{mind}"), key).send().await.unwrap();
        let (status, body) = parts(res).await;
        assert_eq!(status, 200, "{body}");
        body["mind"].clone()
    }

    async fn search_mind(&self, key: &str, mind: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/search");
        parts(self.req(Method::POST, &path, key).json(&body).send().await.unwrap()).await
    }

    async fn reprocess(&self, mind: &str, id: &str) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/{id}/reprocess");
        parts(self.req(Method::POST, &path, &self.dev_key).send().await.unwrap()).await
    }

    async fn delete_knowledge(&self, mind: &str, id: &str) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/{id}");
        parts(self.req(Method::DELETE, &path, &self.dev_key).send().await.unwrap()).await
    }
}

#[tokio::test]
async fn every_mind_source_type_becomes_ready_and_searchable() {
    let stub = TranscriptionStub::start("The lighthouse keeper explained how the fog horn warns sailors.").await;
    let t = spawn_with_transcriber(&stub).await;
    let site = Site::start().await;
    let key = t.dev_key.clone();
    let mind = t.mind_named(&key, "Guide").await;

    let text = t.knowledge(&mind, json!({"type": "text", "content": "Refunds are paid within fourteen days."})).await;
    let url = t.knowledge(&mind, json!({"type": "url", "url": site.url("/b"), "crawlDepth": 1})).await;
    let pdf_url = t.mind_file(&key, &mind, "guide.pdf", fixtures::pdf(&["Volcanoes erupt molten basalt."])).await;
    let document = t.knowledge(&mind, json!({"type": "document", "fileUrl": pdf_url, "name": "Guide"})).await;
    let mp3_url = t.mind_file(&key, &mind, "episode.mp3", audio("tone.mp3")).await;
    let (status, created) = t.add_knowledge(&key, &mind, json!({"type": "podcast", "fileUrl": mp3_url})).await;
    assert_eq!(status, 201, "{created}");
    let podcast = created["source"]["id"].as_str().unwrap().to_owned();
    // Processing starts on create (docs/api.md §9): the answer shows the queued run.
    assert_eq!(created["source"]["mindId"], mind.as_str());
    assert_eq!(created["source"]["type"], "podcast");
    assert!(matches!(created["source"]["status"].as_str(), Some("processing" | "transcribing")), "{created}");
    assert_eq!(created["source"]["fileName"], "episode.mp3");
    assert_eq!(created["source"]["mimeType"], "audio/mpeg");

    // The podcast waits in `transcribing` until the stub answers, with the poll hint.
    let held = t.wait_mind_source(&mind, &podcast, |s| s["status"] == "transcribing").await;
    assert_eq!(held["progress"]["stage"], "transcribing", "{held}");
    let (_, retry_after, _) = t.mind_source(&mind, &podcast).await;
    assert_eq!(retry_after.as_deref(), Some("5"), "Retry-After while transcribing");
    let listed = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge?status=transcribing"), &key);
    let (_, listed) = parts(listed.send().await.unwrap()).await;
    assert_eq!(listed["sources"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(t.mind_detail(&key, &mind).await["sourceStats"]["processing"], 1, "transcribing counts as processing");
    stub.release();

    for (id, kind) in [(&text, "text"), (&url, "url"), (&document, "document"), (&podcast, "podcast")] {
        let s = t.settle_mind_source(&mind, id).await;
        assert_eq!(s["status"], "ready", "{kind}: {s}");
        assert_eq!(s["type"], kind);
        assert!(s["chunkCount"].as_u64().unwrap() >= 1, "{kind}: {s}");
        assert!(s["processedAt"].is_string(), "{kind}: {s}");
        let (_, retry_after, _) = t.mind_source(&mind, id).await;
        assert_eq!(retry_after, None, "no Retry-After once {kind} is ready");
    }
    let detail = t.mind_detail(&key, &mind).await;
    assert_eq!(detail["sourceStats"], json!({"total": 4, "ready": 4, "pending": 0, "processing": 0, "failed": 0}));
    let (_, list) = parts(t.req(Method::GET, "/api/v1/minds", &key).send().await.unwrap()).await;
    assert_eq!(list["usage"]["sourcesUsed"], 4, "{list}");

    // Each type is found by the Mind search, named in the Mind vocabulary.
    for (query, id, kind) in [
        ("refunds fourteen days", &text, "text"),
        ("billing cycles", &url, "url"),
        ("volcanoes basalt", &document, "document"),
        ("lighthouse fog horn", &podcast, "podcast"),
    ] {
        let (status, found) = t.search_mind(&key, &mind, json!({"query": query, "mode": "keyword"})).await;
        assert_eq!(status, 200, "{found}");
        let top = &found["results"][0];
        assert_eq!(top["sourceId"], id.as_str(), "{query}: {found}");
        assert_eq!(top["sourceType"], kind, "{query}: {found}");
    }
    let (_, only) = t
        .search_mind(&key, &mind, json!({"query": "refunds lighthouse", "types": ["podcast"], "mode": "hybrid"}))
        .await;
    assert!(only["results"].as_array().unwrap().iter().all(|r| r["sourceType"] == "podcast"), "{only}");

    // With a ready source, publishing carries no warning (docs/api.md §16.23).
    let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/publish"), &key).send().await.unwrap();
    let (status, published) = parts(res).await;
    assert_eq!(status, 200, "{published}");
    assert!(published.get("warning").is_none(), "{published}");

    // Events name the Mind and speak its vocabulary.
    let types = t.event_types().await;
    assert_eq!(types.iter().filter(|e| *e == "knowledge.source.ready").count(), 4, "{types:?}");
    if let Some(store) = t.embedded_store() {
        let ws = t.app.find_workspace("default").await.unwrap().id;
        let events = store.list_events(&ws).await.unwrap();
        let ready = events
            .iter()
            .find(|e| e["eventType"] == "knowledge.source.ready" && e["data"]["sourceId"] == podcast.as_str())
            .expect("the podcast's ready event");
        assert_eq!(ready["data"]["mindId"], mind.as_str(), "{ready}");
        assert_eq!(ready["data"]["sourceType"], "podcast", "{ready}");
        assert!(ready["data"].get("chatbotId").is_none(), "{ready}");
    }
    t.stop().await;
}

#[tokio::test]
async fn reprocess_and_delete_wait_for_a_running_source() {
    let stub = TranscriptionStub::start("A talk about tides and the moon.").await;
    let t = spawn_with_transcriber(&stub).await;
    let key = t.dev_key.clone();
    let mind = t.mind_named(&key, "Tides").await;
    let file_url = t.mind_file(&key, &mind, "tides.wav", audio("tone.wav")).await;
    let podcast = t.knowledge(&mind, json!({"type": "podcast", "fileUrl": file_url})).await;
    t.wait_mind_source(&mind, &podcast, |s| s["status"] == "transcribing").await;

    let (status, body) = t.reprocess(&mind, &podcast).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("processing_in_progress")), "{body}");
    let (status, body) = t.delete_knowledge(&mind, &podcast).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("processing_in_progress")), "{body}");

    stub.release();
    let ready = t.settle_mind_source(&mind, &podcast).await;
    assert_eq!(ready["status"], "ready", "{ready}");
    let chunks_before = t.chunk_texts(&podcast).await;
    assert_eq!(chunks_before.concat().trim(), "A talk about tides and the moon.");

    // From `ready` a reprocess is accepted and runs again, without duplicating chunks.
    let (status, body) = t.reprocess(&mind, &podcast).await;
    assert_eq!(status, 202, "{body}");
    assert!(matches!(body["source"]["status"].as_str(), Some("processing" | "transcribing")), "{body}");
    let again = t.settle_mind_source(&mind, &podcast).await;
    assert_eq!(again["status"], "ready", "{again}");
    assert_eq!(t.chunk_texts(&podcast).await, chunks_before, "no duplicated chunks");

    let (status, body) = t.delete_knowledge(&mind, &podcast).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"status": "success", "deleted": true, "id": podcast}));
    let (status, _, _) = t.mind_source(&mind, &podcast).await;
    assert_eq!(status, 404);
    assert!(t.chunk_texts(&podcast).await.is_empty(), "its chunks are gone");
    assert_eq!(t.mind_detail(&key, &mind).await["sourceStats"]["total"], 0);
    t.stop().await;
}

#[tokio::test]
async fn without_a_transcriber_a_podcast_fails_with_the_reason() {
    let t = TestApp::spawn_with(lore::compose::Overrides {
        transcriber: Some(Arc::new(lore_app::ports::NoTranscriber)),
        ..Default::default()
    })
    .await;
    let key = t.dev_key.clone();
    let mind = t.mind_named(&key, "Silent").await;
    let file_url = t.mind_file(&key, &mind, "talk.ogg", audio("tone.ogg")).await;
    let podcast = t.knowledge(&mind, json!({"type": "podcast", "fileUrl": file_url})).await;
    let failed = t.settle_mind_source(&mind, &podcast).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert!(failed["error"].as_str().unwrap().starts_with("no transcriber configured"), "{failed}");
    assert_eq!(t.mind_detail(&key, &mind).await["sourceStats"]["failed"], 1);
    let listed = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge?status=failed"), &key);
    let (_, listed) = parts(listed.send().await.unwrap()).await;
    assert_eq!(listed["pagination"]["total"], 1, "{listed}");
    // Failed is settled: reprocess is accepted (and fails the same way), delete works.
    let (status, _) = t.reprocess(&mind, &podcast).await;
    assert_eq!(status, 202);
    assert_eq!(t.settle_mind_source(&mind, &podcast).await["status"], "failed");
    // With no ready source, publishing warns.
    let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/publish"), &key).send().await.unwrap();
    let (_, published) = parts(res).await;
    assert!(published["warning"].is_string(), "{published}");
    t.stop().await;
}

#[tokio::test]
async fn source_limits_of_the_mind_and_the_workspace_are_enforced_and_reported() {
    let t = TestApp::spawn().await;
    let ws = t
        .workspace("limited", LimitsPatch { sources_limit: Some(3), mind_source_limit: Some(2), ..Default::default() })
        .await;
    let key = t.key(&ws, "minds:read,minds:write").await;
    let (a, b) = (t.mind_named(&key, "A").await, t.mind_named(&key, "B").await);
    let text = |n: u32| json!({"type": "text", "content": format!("note number {n}")});
    for n in 0..2 {
        assert_eq!(t.add_knowledge(&key, &a, text(n)).await.0, 201);
    }
    let (status, body) = t.add_knowledge(&key, &a, text(3)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("sources_limit_reached")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("sourceLimit is 2"), "{body}");
    let (status, created) = t.add_knowledge(&key, &b, text(4)).await;
    assert_eq!(status, 201, "{created}");
    let (status, body) = t.add_knowledge(&key, &b, text(5)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("sources_limit_reached")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("sourcesLimit is 3"), "{body}");

    let (_, list) = parts(t.req(Method::GET, "/api/v1/minds", &key).send().await.unwrap()).await;
    assert_eq!(list["usage"], json!({"mindsUsed": 2, "mindsLimit": 10, "sourcesUsed": 3, "sourcesLimit": 3}));
    assert_eq!(t.mind_detail(&key, &a).await["sourceLimit"], 2);

    // Deleting a source frees room in both limits.
    let id = created["source"]["id"].as_str().unwrap();
    t.wait_mind_source_with(&key, &b, id, |s| s["status"] == "ready" || s["status"] == "failed").await;
    let path = format!("/api/v1/minds/{b}/knowledge/{id}");
    let (status, _) = parts(t.req(Method::DELETE, &path, &key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(t.add_knowledge(&key, &b, text(6)).await.0, 201, "room again");
    t.stop().await;
}

#[tokio::test]
async fn bad_mind_sources_get_the_contract_codes() {
    let t = TestApp::spawn().await;
    let key = t.dev_key.clone();
    let mind = t.mind_named(&key, "Strict").await;
    let doc_url = t.mind_file(&key, &mind, "notes.md", b"# Notes\n\nSome text.".to_vec()).await;
    let mp3_url = t.mind_file(&key, &mind, "talk.mp3", audio("tone.mp3")).await;
    let cases = [
        (json!({"content": "x"}), 400, "validation_error"),
        (json!({"type": "video"}), 400, "validation_error"),
        (json!({"type": "file", "fileUrl": doc_url}), 400, "validation_error"),
        (json!({"type": "text"}), 400, "missing_content"),
        (json!({"type": "text", "content": "a".repeat(100_001)}), 400, "content_too_large"),
        (json!({"type": "url"}), 400, "missing_url"),
        (json!({"type": "url", "url": "not a url"}), 400, "invalid_url"),
        (json!({"type": "url", "url": "http://127.0.0.1/"}), 400, "url_blocked"),
        (json!({"type": "url", "url": "https://example.com", "crawlDepth": 6}), 400, "validation_error"),
        (json!({"type": "document"}), 400, "missing_file"),
        (json!({"type": "podcast"}), 400, "missing_file"),
        (json!({"type": "podcast", "fileUrl": doc_url}), 400, "unsupported_file_type"),
        (json!({"type": "document", "fileUrl": mp3_url}), 400, "unsupported_file_type"),
        (json!({"type": "document", "fileUrl": "https://elsewhere.example/x.pdf"}), 404, "not_found"),
    ];
    for (body, status, code) in cases {
        let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge"), &key).json(&body).send();
        let shown = body.to_string().chars().take(80).collect::<String>();
        let got = expect_error(res.await.unwrap(), status, code).await;
        assert!(got["error"]["message"].is_string(), "{shown}");
    }
    // An executable uploaded as .mp3 is refused by content.
    let form = Form::new().part("file", Part::bytes(fixtures::executable()).file_name("song.mp3"));
    let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/upload"), &key).multipart(form).send();
    expect_error(res.await.unwrap(), 400, "unsupported_file_type").await;
    // A status filter outside the Mind statuses (docs/api.md §16.9); `error` is the chatbots' word.
    for bad in ["error", "done"] {
        let res = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge?status={bad}"), &key).send();
        expect_error(res.await.unwrap(), 400, "validation_error").await;
    }
    let (status, body) = t.search_mind(&key, &mind, json!({"query": "x", "types": ["file"]})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("validation_error")), "{body}");
    let (status, body) = t.search_mind(&key, &mind, json!({"query": ""})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("validation_error")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn other_tenants_and_missing_scopes_are_refused() {
    let t = TestApp::spawn().await;
    let mind = t.mind_named(&t.dev_key, "Mine").await;
    let file_url = t.mind_file(&t.dev_key, &mind, "notes.txt", b"private notes".to_vec()).await;
    let source = t.knowledge(&mind, json!({"type": "text", "content": "secret plans"})).await;

    let other = t.workspace("other", LimitsPatch::default()).await;
    let stranger = t.key(&other, "minds:read,minds:write").await;
    let theirs = t.mind_named(&stranger, "Theirs").await;
    // Another workspace's Mind, source and upload are not found.
    for (method, path) in [
        (Method::GET, format!("/api/v1/minds/{mind}/knowledge")),
        (Method::GET, format!("/api/v1/minds/{mind}/knowledge/{source}")),
        (Method::DELETE, format!("/api/v1/minds/{mind}/knowledge/{source}")),
        (Method::POST, format!("/api/v1/minds/{mind}/knowledge/{source}/reprocess")),
        (Method::GET, format!("/api/v1/minds/{theirs}/knowledge/{source}")),
    ] {
        let res = t.req(method.clone(), &path, &stranger).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    let (status, body) = t.search_mind(&stranger, &mind, json!({"query": "secret"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (404, Some("not_found")), "{body}");
    let (status, body) = t.add_knowledge(&stranger, &theirs, json!({"type": "document", "fileUrl": file_url})).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("not_found")),
        "another workspace's upload: {body}"
    );

    // Scopes: reading needs minds:read (search too), writing minds:write.
    let reader = t.key("default", "minds:read").await;
    let searcher = t.key("default", "knowledge:search,knowledge:read").await;
    let (status, body) = t.add_knowledge(&reader, &mind, json!({"type": "text", "content": "x"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("insufficient_scope")), "{body}");
    let (status, _) = t.search_mind(&reader, &mind, json!({"query": "secret"})).await;
    assert_eq!(status, 200);
    let (status, body) = t.search_mind(&searcher, &mind, json!({"query": "secret"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("insufficient_scope")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn deleting_a_mind_takes_its_sources_chunks_and_files() {
    let t = TestApp::spawn().await;
    let key = t.dev_key.clone();
    let mind = t.mind_named(&key, "Doomed").await;
    let keep = t.mind_named(&key, "Kept").await;
    let file_url = t.mind_file(&key, &mind, "doomed.md", b"# Doomed\n\nAlbatross migration routes.".to_vec()).await;
    let doc = t.knowledge(&mind, json!({"type": "document", "fileUrl": file_url})).await;
    let kept = t.knowledge(&keep, json!({"type": "text", "content": "Albatross nesting habits."})).await;
    assert_eq!(t.settle_mind_source(&mind, &doc).await["status"], "ready");
    assert_eq!(t.settle_mind_source(&keep, &kept).await["status"], "ready");
    assert!(!t.chunk_texts(&doc).await.is_empty());
    assert_eq!(reqwest::get(&file_url).await.unwrap().status(), 200);

    let res = t.req(Method::DELETE, &format!("/api/v1/minds/{mind}"), &key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(t.chunk_texts(&doc).await.is_empty(), "its chunks are gone");
    assert_eq!(reqwest::get(&file_url).await.unwrap().status(), 404, "its files are no longer served");
    let (status, _, _) = t.mind_source(&mind, &doc).await;
    assert_eq!(status, 404);
    let (_, list) = parts(t.req(Method::GET, "/api/v1/minds", &key).send().await.unwrap()).await;
    assert_eq!(list["usage"]["sourcesUsed"], 1, "{list}");
    // The other Mind keeps its knowledge.
    let (_, found) = t.search_mind(&key, &keep, json!({"query": "albatross", "mode": "keyword"})).await;
    let ids: Vec<&str> = found["results"].as_array().unwrap().iter().map(|r| r["sourceId"].as_str().unwrap()).collect();
    assert_eq!(ids, [kept.as_str()], "{found}");
    t.stop().await;
}

#[tokio::test]
async fn the_openapi_document_describes_the_mind_knowledge_routes() {
    let t = TestApp::spawn().await;
    let doc: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    let base = "/api/v1/minds/{mindId}/knowledge";
    for (method, path, scope) in [
        ("get", base.to_owned(), "minds:read"),
        ("post", base.to_owned(), "minds:write"),
        ("get", format!("{base}/{{sourceId}}"), "minds:read"),
        ("delete", format!("{base}/{{sourceId}}"), "minds:write"),
        ("post", format!("{base}/{{sourceId}}/reprocess"), "minds:write"),
        ("post", format!("{base}/search"), "minds:read"),
    ] {
        let op = &doc["paths"][&path][method];
        assert!(op.is_object(), "{method} {path} missing from the document");
        assert_eq!(op["tags"], json!(["minds"]), "{method} {path}");
        assert_eq!(op["security"][0]["bearer"], json!([scope]), "{method} {path}");
    }
    let detail = &doc["paths"][format!("{base}/{{sourceId}}")]["get"]["responses"]["200"];
    assert!(detail["headers"]["Retry-After"].is_object(), "the poll hint is documented: {detail}");
    let create = &doc["components"]["schemas"]["CreateMindSource"];
    assert_eq!(create["required"], json!(["type"]));
    for key in ["content", "url", "crawlDepth", "fileUrl"] {
        assert!(create["properties"][key].is_object(), "CreateMindSource.{key}");
    }
    t.stop().await;
}
