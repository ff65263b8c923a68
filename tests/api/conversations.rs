//! Conversations (docs/api.md §17) over HTTP, on whichever backend the run uses: the extractive
//! responder on a real knowledge base, and the OpenAI-compatible responder against a local stub
//! model server that streams real SSE chunks, fails on demand and records the prompts it got.

use crate::support::{TestApp, expect_error, parts};
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

const REFUNDS: &str = "Refunds are paid within fourteen days of the return reaching our warehouse. \
    Shipping costs are not refunded.";
const SHIPPING: &str = "Parcels to France ship in two days. Parcels to Germany ship in three days.";
const NOTHING: &str = "I don't have anything in my knowledge about that yet.";

impl TestApp {
    async fn ready_chatbot(&self, texts: &[(&str, &str)]) -> (String, Vec<String>) {
        let bot = self.chatbot().await;
        let mut ids = Vec::new();
        for (name, content) in texts {
            let (status, body) =
                self.post_source(&self.dev_key, &bot, json!({"type": "text", "name": name, "content": content})).await;
            assert_eq!(status, 201, "{body}");
            let id = body["source"]["id"].as_str().unwrap().to_owned();
            self.process(&bot, &id).await;
            assert_eq!(self.settle(&bot, &id).await["status"], "ready");
            ids.push(id);
        }
        (bot, ids)
    }

    async fn post_json(&self, key: &str, path: &str, body: Value) -> (u16, Value) {
        parts(self.req(Method::POST, path, key).json(&body).send().await.unwrap()).await
    }

    async fn get_json(&self, key: &str, path: &str) -> (u16, Value) {
        parts(self.req(Method::GET, path, key).send().await.unwrap()).await
    }

    async fn mind_id(&self, body: Value) -> String {
        self.mind(&self.dev_key, body).await["id"].as_str().unwrap().to_owned()
    }

    async fn mind_text(&self, mind: &str, content: &str) {
        let (status, body) = self
            .post_json(
                &self.dev_key,
                &format!("/api/v1/minds/{mind}/knowledge"),
                json!({"type": "text", "content": content}),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (_, s) = self.get_json(&self.dev_key, &format!("/api/v1/minds/{mind}/knowledge/{id}")).await;
            if s["source"]["status"] == "ready" {
                return;
            }
            assert!(Instant::now() < deadline && s["source"]["status"] != "failed", "{s}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Markers ↔ citations: every marker names a citation, every citation is named, and each
/// quote is verbatim text of its chunk.
async fn assert_cited(t: &TestApp, message: &Value) {
    let content = message["content"].as_str().unwrap();
    let markers: BTreeSet<u64> = content
        .match_indices('[')
        .filter_map(|(i, _)| {
            let rest = &content[i + 1..];
            let end = rest.find(']')?;
            rest[..end].parse().ok()
        })
        .collect();
    let indices: BTreeSet<u64> =
        message["citations"].as_array().unwrap().iter().map(|c| c["index"].as_u64().unwrap()).collect();
    assert_eq!(markers, indices, "markers and citations agree: {message}");
    for c in message["citations"].as_array().unwrap() {
        let chunks = t.chunk_texts(c["sourceId"].as_str().unwrap()).await;
        let quote = c["quote"].as_str().unwrap();
        assert!(!quote.is_empty());
        assert!(chunks.iter().any(|chunk| chunk.contains(quote)), "quote {quote:?} is verbatim chunk text");
        assert!(c["chunkId"].as_str().unwrap().starts_with(c["sourceId"].as_str().unwrap()));
    }
}

#[tokio::test]
async fn the_extractive_responder_quotes_the_right_chunks_deterministically() {
    let t = TestApp::spawn().await;
    let (bot, ids) = t.ready_chatbot(&[("refunds.md", REFUNDS), ("shipping.md", SHIPPING)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let (status, created) = t.post_json(&t.dev_key, &path, json!({"message": "How long do refunds take?"})).await;
    assert_eq!(status, 201, "{created}");
    let messages = created["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "no welcome message for a chatbot: {created}");
    assert_eq!((messages[0]["role"].as_str(), messages[0]["generatedBy"].as_str()), (Some("user"), None));
    let answer = &messages[1];
    assert_eq!(answer["generatedBy"], "extractive");
    assert_eq!(answer["model"], Value::Null);
    assert!(answer["content"].as_str().unwrap().contains("fourteen days"), "{answer}");
    assert_eq!(answer["citations"][0]["sourceId"], ids[0].as_str(), "the refunds source is cited first");
    assert_eq!(answer["citations"][0]["sourceName"], "refunds.md");
    assert_eq!(answer["citations"][0]["sourceType"], "text");
    assert_cited(&t, answer).await;
    assert_eq!(created["conversation"]["chatbotId"], bot.as_str());
    assert_eq!(created["conversation"]["messageCount"], 2);
    assert_eq!(created["conversation"]["channel"], "api");

    // The same question on the same knowledge: the same answer.
    let (_, again) = t.post_json(&t.dev_key, &path, json!({"message": "How long do refunds take?"})).await;
    assert_eq!(again["messages"][1]["content"], answer["content"]);
    assert_eq!(again["messages"][1]["citations"], answer["citations"]);

    // A follow-up in the same conversation, and a question nothing answers.
    let conv = created["conversation"]["id"].as_str().unwrap();
    let messages_path = format!("{path}/{conv}/messages");
    let (status, follow) =
        t.post_json(&t.dev_key, &messages_path, json!({"content": "When does a parcel to Germany arrive?"})).await;
    assert_eq!(status, 201, "{follow}");
    assert!(follow["message"]["content"].as_str().unwrap().contains("Germany ship in three days"), "{follow}");
    assert_cited(&t, &follow["message"]).await;
    let (_, none) = t.post_json(&t.dev_key, &messages_path, json!({"content": "What is the capital of Peru?"})).await;
    assert_eq!(none["message"]["content"], NOTHING);
    assert_eq!(none["message"]["citations"], json!([]));

    // The transcript, oldest first, and the chatbot's count.
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    let contents: Vec<&str> =
        read["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap()).collect();
    assert_eq!(contents.len(), 6);
    assert_eq!(contents[0], "How long do refunds take?");
    assert_eq!(contents[5], NOTHING);
    assert_eq!(read["conversation"]["messageCount"], 6);
    let (_, detail) = t.get_json(&t.dev_key, &format!("/api/v1/chatbots/{bot}")).await;
    assert_eq!(detail["chatbot"]["conversationCount"], 2);
    t.stop().await;
}

#[tokio::test]
async fn mind_conversations_start_with_the_welcome_message_and_are_counted_listed_and_deleted() {
    let t = TestApp::spawn().await;
    let mind = t.mind_id(json!({"name": "Ada", "welcomeMessage": "Hello, ask me about refunds."})).await;
    t.mind_text(&mind, REFUNDS).await;
    let path = format!("/api/v1/minds/{mind}/conversations");
    // An empty body is a conversation without a first question.
    let res = t.req(Method::POST, &path, &t.dev_key).send().await.unwrap();
    let (status, empty) = parts(res).await;
    assert_eq!(status, 201, "{empty}");
    assert_eq!(empty["messages"].as_array().unwrap().len(), 1);
    assert_eq!(empty["messages"][0]["generatedBy"], "welcome");
    assert_eq!(empty["messages"][0]["content"], "Hello, ask me about refunds.");
    assert_eq!(empty["messages"][0]["citations"], json!([]));
    assert_eq!(empty["conversation"]["mindId"], mind.as_str());
    assert_eq!(empty["conversation"]["visitor"], Value::Null);

    let body =
        json!({"message": "Are shipping costs refunded?", "visitor": {"email": "ada@example.com", "name": "Ada"}});
    let (status, asked) = t.post_json(&t.dev_key, &path, body).await;
    assert_eq!(status, 201, "{asked}");
    let roles: Vec<&str> = asked["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["assistant", "user", "assistant"], "welcome, question, answer");
    assert_eq!(asked["conversation"]["visitor"], json!({"email": "ada@example.com", "name": "Ada", "userId": null}));
    assert_eq!(asked["conversation"]["messageCount"], 3);
    assert_cited(&t, &asked["messages"][2]).await;

    for _ in 0..3 {
        let res = t.req(Method::POST, &path, &t.dev_key).send().await.unwrap();
        assert_eq!(res.status(), 201);
    }
    let (_, page) = t.get_json(&t.dev_key, &format!("{path}?page=2&limit=2")).await;
    assert_eq!(page["pagination"], json!({"page": 2, "limit": 2, "total": 5, "totalPages": 3}));
    assert_eq!(page["conversations"].as_array().unwrap().len(), 2);
    let (_, first) = t.get_json(&t.dev_key, &format!("{path}?limit=1")).await;
    let newest = first["conversations"][0]["id"].as_str().unwrap().to_owned();
    let (_, detail) = t.get_json(&t.dev_key, &format!("/api/v1/minds/{mind}")).await;
    assert_eq!(
        (detail["mind"]["conversationCount"].as_u64(), detail["mind"]["recentConversationCount"].as_u64()),
        (Some(5), Some(5))
    );
    let (_, list) = t.get_json(&t.dev_key, "/api/v1/minds").await;
    let item = list["minds"].as_array().unwrap().iter().find(|m| m["id"] == mind.as_str()).unwrap().clone();
    assert_eq!(item["conversationCount"], 5);

    let res = t.req(Method::DELETE, &format!("{path}/{newest}"), &t.dev_key).send().await.unwrap();
    let (status, deleted) = parts(res).await;
    assert_eq!((status, deleted["deleted"].clone(), deleted["id"].clone()), (200, json!(true), json!(newest)));
    expect_error(t.req(Method::GET, &format!("{path}/{newest}"), &t.dev_key).send().await.unwrap(), 404, "not_found")
        .await;
    expect_error(
        t.req(Method::DELETE, &format!("{path}/{newest}"), &t.dev_key).send().await.unwrap(),
        404,
        "not_found",
    )
    .await;
    let (_, detail) = t.get_json(&t.dev_key, &format!("/api/v1/minds/{mind}")).await;
    assert_eq!(detail["mind"]["conversationCount"], 4);

    // The Mind's delete takes its conversations.
    let kept = asked["conversation"]["id"].as_str().unwrap().to_owned();
    let res = t.req(Method::DELETE, &format!("/api/v1/minds/{mind}"), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    expect_error(t.req(Method::GET, &format!("{path}/{kept}"), &t.dev_key).send().await.unwrap(), 404, "not_found")
        .await;
    if let Some(store) = t.embedded_store() {
        assert_eq!(store.conversation_rows().await.unwrap(), (0, 0), "no conversation or message outlives its Mind");
    }
    t.stop().await;
}

#[tokio::test]
async fn scopes_tenants_and_every_refusal_of_the_contract() {
    let t = TestApp::spawn().await;
    let (bot, _) = t.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let (_, created) = t.post_json(&t.dev_key, &path, json!({})).await;
    let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
    let messages = format!("{path}/{conv}/messages");

    let read_only = t.key("default", "chatbot:read,minds:read,knowledge:read").await;
    let writer = t.key("default", "chat:write").await;
    let reader = t.key("default", "conversations:read").await;
    for (key, method, p, scope) in [
        (&read_only, Method::GET, path.clone(), "conversations:read"),
        (&read_only, Method::GET, format!("{path}/{conv}"), "conversations:read"),
        (&writer, Method::GET, path.clone(), "conversations:read"),
        (&read_only, Method::POST, path.clone(), "chat:write"),
        (&reader, Method::POST, messages.clone(), "chat:write"),
        (&reader, Method::DELETE, format!("{path}/{conv}"), "chat:write"),
    ] {
        let res = t.req(method.clone(), &p, key).json(&json!({"content": "hi"})).send().await.unwrap();
        let body = expect_error(res, 403, "insufficient_scope").await;
        assert_eq!(body["error"]["details"]["required"], scope, "{method} {p}");
    }
    let (status, _) = t.post_json(&writer, &messages, json!({"content": "How long do refunds take?"})).await;
    assert_eq!(status, 201, "chat:write sends");
    assert_eq!(t.get_json(&reader, &format!("{path}/{conv}")).await.0, 200, "conversations:read reads");

    // Another workspace sees none of it.
    t.workspace("other", Default::default()).await;
    let stranger = t.key("other", "all").await;
    for p in [path.clone(), format!("{path}/{conv}")] {
        expect_error(t.req(Method::GET, &p, &stranger).send().await.unwrap(), 404, "not_found").await;
    }
    let res = t.req(Method::POST, &messages, &stranger).json(&json!({"content": "hi"})).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    // Another chatbot of the same workspace cannot reach it either.
    let other_bot = t.chatbot().await;
    let res = t
        .req(Method::GET, &format!("/api/v1/chatbots/{other_bot}/conversations/{conv}"), &t.dev_key)
        .send()
        .await
        .unwrap();
    expect_error(res, 404, "not_found").await;

    // Content bounds and shapes.
    for body in [
        json!({}),
        json!({"content": ""}),
        json!({"content": "   "}),
        json!({"content": "é".repeat(4001)}),
        json!({"content": 5}),
    ] {
        let res = t.req(Method::POST, &messages, &t.dev_key).json(&body).send().await.unwrap();
        let e = expect_error(res, 400, "validation_error").await;
        assert!(e["error"]["details"]["fields"]["content"].is_string(), "{e}");
    }
    let res =
        t.req(Method::POST, &messages, &t.dev_key).json(&json!({"content": "é".repeat(4000)})).send().await.unwrap();
    assert_eq!(res.status(), 201, "4,000 characters are allowed");
    let res = t
        .req(Method::POST, &path, &t.dev_key)
        .json(&json!({"visitor": {"email": "nope"}, "message": ""}))
        .send()
        .await
        .unwrap();
    let e = expect_error(res, 400, "validation_error").await;
    assert!(
        e["error"]["details"]["fields"]["visitor.email"].is_string()
            && e["error"]["details"]["fields"]["message"].is_string(),
        "{e}"
    );
    let res = t
        .req(Method::POST, &messages, &t.dev_key)
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    expect_error(res, 400, "invalid_json").await;

    // 200 messages at most: this one holds 4; 98 more turns fill it.
    for i in 0..98 {
        let (status, body) = t.post_json(&t.dev_key, &messages, json!({"content": format!("question {i}")})).await;
        assert_eq!(status, 201, "turn {i}: {body}");
    }
    let res = t.req(Method::POST, &messages, &t.dev_key).json(&json!({"content": "one more"})).send().await.unwrap();
    expect_error(res, 409, "conversation_full").await;
    let (_, full) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    assert_eq!(full["conversation"]["messageCount"], 200);
    assert_eq!(full["messages"].as_array().unwrap().len(), 200);
    t.stop().await;
}

// ---- the language model ------------------------------------------------------------------------

/// A local OpenAI-compatible chat server: answers every request with `answer` as streamed SSE
/// chunks (split into words), after failing the first `fail` requests with `fail_status`; it
/// records every request body. With `gate`, it sends the first chunk and then waits for a permit
/// before the rest. A request that is not streamed (a question's translation, §20) is answered
/// with `translation` as one `chat.completion`, and recorded apart.
#[derive(Clone)]
pub(crate) struct ModelStub {
    base_url: String,
    state: Arc<StubState>,
}

struct StubState {
    answer: Mutex<String>,
    fail: Mutex<(u32, u16)>,
    requests: Mutex<Vec<Value>>,
    gate: Mutex<Option<Arc<Semaphore>>>,
    translation: Mutex<String>,
    translations: Mutex<Vec<Value>>,
    translation_stalls: Mutex<bool>,
}

impl ModelStub {
    pub(crate) async fn start(answer: &str) -> Self {
        async fn complete(State(s): State<Arc<StubState>>, body: axum::body::Bytes) -> Response {
            let request: Value = serde_json::from_slice(&body).unwrap();
            if request["stream"] == false {
                // The published shape: a model, a system and a user message.
                let roles: Vec<&str> =
                    request["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
                assert_eq!((request["model"].as_str().is_some(), roles), (true, vec!["system", "user"]), "{request}");
                s.translations.lock().unwrap().push(request);
                if *s.translation_stalls.lock().unwrap() {
                    // A model that never answers: the caller's own bound must end the wait.
                    std::future::pending::<()>().await;
                }
                let content = s.translation.lock().unwrap().clone();
                let reply = json!({"id": "t", "object": "chat.completion", "created": 1, "model": "stub-model",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]});
                return axum::Json(reply).into_response();
            }
            assert_eq!(request["stream"], true, "answers are streamed");
            s.requests.lock().unwrap().push(request);
            {
                let mut fail = s.fail.lock().unwrap();
                if fail.0 > 0 {
                    fail.0 -= 1;
                    let status = StatusCode::from_u16(fail.1).unwrap();
                    let body = json!({"error": {"message": "stub failure", "type": "server_error"}});
                    return (status, [("retry-after", "0")], axum::Json(body)).into_response();
                }
            }
            let answer = s.answer.lock().unwrap().clone();
            let gate = s.gate.lock().unwrap().clone();
            let words: Vec<String> = answer.split_inclusive(' ').map(str::to_owned).collect();
            let stream = futures::stream::unfold((0usize, words, gate), |(i, words, gate)| async move {
                if i > words.len() {
                    return None;
                }
                if i == 1
                    && let Some(g) = &gate
                {
                    g.acquire().await.unwrap().forget();
                }
                let data = if i == words.len() {
                    "data: [DONE]\n\n".to_owned()
                } else {
                    let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "stub-model",
                        "choices": [{"index": 0, "delta": {"content": words[i]}, "finish_reason": null}]});
                    format!("data: {chunk}\n\n")
                };
                Some((Ok::<_, std::convert::Infallible>(data), (i + 1, words, gate)))
            });
            ([("content-type", "text/event-stream")], axum::body::Body::from_stream(stream)).into_response()
        }
        let state = Arc::new(StubState {
            answer: Mutex::new(answer.to_owned()),
            fail: Mutex::new((0, 500)),
            requests: Mutex::default(),
            gate: Mutex::default(),
            translation: Mutex::new("{}".to_owned()),
            translations: Mutex::default(),
            translation_stalls: Mutex::default(),
        });
        let app = Router::new().route("/v1/chat/completions", post(complete)).with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base_url, state }
    }

    pub(crate) fn fail_next(&self, n: u32, status: u16) {
        *self.state.fail.lock().unwrap() = (n, status);
    }

    /// From now on every answer stops after its first piece and never goes on.
    pub(crate) fn stall(&self) {
        *self.state.gate.lock().unwrap() = Some(Arc::new(Semaphore::new(0)));
    }

    pub(crate) fn requests(&self) -> Vec<Value> {
        self.state.requests.lock().unwrap().clone()
    }

    /// What the stub replies to a translation request from now on.
    pub(crate) fn translate_as(&self, reply: &str) {
        *self.state.translation.lock().unwrap() = reply.to_owned();
    }

    /// From now on, translation requests are received and never answered.
    pub(crate) fn stall_translations(&self) {
        *self.state.translation_stalls.lock().unwrap() = true;
    }

    /// The translation requests received.
    pub(crate) fn translations(&self) -> Vec<Value> {
        self.state.translations.lock().unwrap().clone()
    }

    fn responder(&self) -> Arc<dyn lore_app::ports::Responder> {
        self.responder_with(|_| {})
    }

    /// The responder with some of its settings changed (timeouts, say).
    pub(crate) fn responder_with(
        &self,
        change: impl FnOnce(&mut lore_chat::OpenAiResponderConfig),
    ) -> Arc<dyn lore_app::ports::Responder> {
        let mut config = lore_chat::OpenAiResponderConfig::new(None);
        config.base_url = self.base_url.clone();
        config.model = "stub-model".into();
        config.retries.initial_backoff = Duration::from_millis(10);
        config.retries.max_backoff = Duration::from_millis(20);
        change(&mut config);
        Arc::new(lore_chat::OpenAiResponder::new(config).unwrap())
    }
}

pub(crate) async fn spawn_with_model(stub: &ModelStub) -> TestApp {
    TestApp::spawn_with(lore::compose::Overrides { responder: Some(stub.responder()), ..Default::default() }).await
}

/// The system message and the other messages of a recorded request.
fn prompt_of(request: &Value) -> (String, Vec<(String, String)>) {
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    let system = messages[0]["content"].as_str().unwrap().to_owned();
    let rest = messages[1..]
        .iter()
        .map(|m| (m["role"].as_str().unwrap().to_owned(), m["content"].as_str().unwrap().to_owned()))
        .collect();
    (system, rest)
}

#[tokio::test]
async fn the_model_gets_the_persona_passages_and_history_and_its_markers_become_citations() {
    let stub = ModelStub::start("Refunds take fourteen days [1]. Never [7] trust [0] this.").await;
    let t = spawn_with_model(&stub).await;
    let mind = t
        .mind_id(json!({"name": "Ada", "headline": "Support lead", "systemPrompt": "Always answer in one sentence.",
            "expertiseAreas": ["refunds", "shipping"], "welcomeMessage": "Hi!"}))
        .await;
    let res =
        t.req(Method::PATCH, &format!("/api/v1/minds/{mind}"), &t.dev_key).json(&json!({"temperature": 0.3})).send();
    assert_eq!(res.await.unwrap().status(), 200);
    t.mind_text(&mind, REFUNDS).await;
    let path = format!("/api/v1/minds/{mind}/conversations");
    let (status, created) = t.post_json(&t.dev_key, &path, json!({"message": "How long do refunds take?"})).await;
    assert_eq!(status, 201, "{created}");
    let answer = &created["messages"][2];
    assert_eq!((answer["generatedBy"].as_str(), answer["model"].as_str()), (Some("llm"), Some("stub-model")));
    assert_eq!(
        answer["content"], "Refunds take fourteen days [1]. Never trust this.",
        "markers naming no passage are removed"
    );
    assert_eq!(answer["citations"].as_array().unwrap().len(), 1);
    assert_eq!(answer["citations"][0]["sourceType"], "text");
    assert_cited(&t, answer).await;

    let request = &stub.requests()[0];
    assert_eq!(request["model"], "stub-model");
    assert!((request["temperature"].as_f64().unwrap() - 0.3).abs() < 1e-6, "{request}");
    let (system, turns) = prompt_of(request);
    for part in [
        "Ada",
        "Support lead",
        "Always answer in one sentence.",
        "refunds, shipping",
        "[1] (from",
        "fourteen days of the return",
    ] {
        assert!(system.contains(part), "the system message has {part:?}: {system}");
    }
    assert_eq!(
        turns,
        vec![("user".to_owned(), "How long do refunds take?".to_owned())],
        "the welcome message is not a first turn"
    );

    // The next turn carries the history.
    let conv = created["conversation"]["id"].as_str().unwrap();
    let (status, _) =
        t.post_json(&t.dev_key, &format!("{path}/{conv}/messages"), json!({"content": "And shipping?"})).await;
    assert_eq!(status, 201);
    let (_, turns) = prompt_of(&stub.requests()[1]);
    let roles: Vec<&str> = turns.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
    assert_eq!(turns[1].1, "Refunds take fourteen days [1]. Never trust this.");
    assert_eq!(turns[2].1, "And shipping?");
    t.stop().await;
}

#[tokio::test]
async fn model_failures_are_retried_then_reported_with_the_question_kept_and_retryable() {
    let stub = ModelStub::start("Fourteen days [1].").await;
    let t = spawn_with_model(&stub).await;
    let (bot, _) = t.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let (_, created) = t.post_json(&t.dev_key, &path, json!({})).await;
    let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
    let messages = format!("{path}/{conv}/messages");

    // 429 twice (Retry-After honoured), then an answer: retried within the budget.
    stub.fail_next(2, 429);
    let (status, body) = t.post_json(&t.dev_key, &messages, json!({"content": "How long do refunds take?"})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(stub.requests().len(), 3);

    // 500 on every attempt: 502 generation_failed, the question kept, unanswered.
    stub.fail_next(3, 500);
    let res = t
        .req(Method::POST, &messages, &t.dev_key)
        .json(&json!({"content": "Are shipping costs refunded?"}))
        .send()
        .await
        .unwrap();
    expect_error(res, 502, "generation_failed").await;
    assert_eq!(stub.requests().len(), 6, "one attempt and two retries");
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    let last = read["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["role"].as_str(), last["content"].as_str()), (Some("user"), Some("Are shipping costs refunded?")));
    assert_eq!(read["conversation"]["messageCount"], 3);

    // Sending it again answers it, without storing the question twice.
    let (status, retried) =
        t.post_json(&t.dev_key, &messages, json!({"content": "Are shipping costs refunded?"})).await;
    assert_eq!(status, 201, "{retried}");
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    let roles: Vec<&str> = read["messages"].as_array().unwrap().iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant"]);
    assert_eq!(read["conversation"]["messageCount"], 4);

    // A create whose first answer fails names the conversation to retry in.
    stub.fail_next(3, 503);
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": "Hello?"})).send().await.unwrap();
    let e = expect_error(res, 502, "generation_failed").await;
    let kept = e["error"]["details"]["conversationId"].as_str().unwrap();
    let (status, _) = t.post_json(&t.dev_key, &format!("{path}/{kept}/messages"), json!({"content": "Hello?"})).await;
    assert_eq!(status, 201);
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{kept}")).await;
    assert_eq!(read["conversation"]["messageCount"], 2, "the retried question is stored once");
    t.stop().await;
}

/// The events of an SSE body, as (event, data).
pub(crate) fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut name = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    name = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data.push_str(v);
                }
            }
            (name, serde_json::from_str(&data).unwrap())
        })
        .collect()
}

#[tokio::test]
async fn answers_stream_as_server_sent_events_and_a_disconnect_still_stores_them() {
    let stub = ModelStub::start("Refunds take fourteen days [1] after the return arrives.").await;
    let t = spawn_with_model(&stub).await;
    let (bot, _) = t.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let (_, created) = t.post_json(&t.dev_key, &path, json!({})).await;
    let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
    let messages = format!("{path}/{conv}/messages");

    let res = t
        .req(Method::POST, &messages, &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "How long do refunds take?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "text/event-stream");
    let all = events(&res.text().await.unwrap());
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"citations"));
    assert_eq!(names.last(), Some(&"done"));
    assert!(names[1..names.len() - 1].iter().all(|n| *n == "delta") && names.len() > 3, "{names:?}");
    let streamed: String = all.iter().filter(|(n, _)| n == "delta").map(|(_, d)| d["text"].as_str().unwrap()).collect();
    let done = &all.last().unwrap().1["message"];
    assert_eq!(streamed.trim(), done["content"].as_str().unwrap(), "the deltas add up to the stored answer");
    assert_cited(&t, done).await;
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    assert_eq!(&read["messages"][1], done, "done carries the message as stored");

    // Refusals come before the stream, as plain errors.
    let res = t
        .req(Method::POST, &messages, &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": ""}))
        .send()
        .await
        .unwrap();
    expect_error(res, 400, "validation_error").await;

    // A failing model after the stream started: an `error` event.
    stub.fail_next(3, 500);
    let res = t
        .req(Method::POST, &messages, &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Again?"}))
        .send()
        .await
        .unwrap();
    let all = events(&res.text().await.unwrap());
    let (name, data) = all.last().unwrap();
    assert_eq!((name.as_str(), data["error"]["code"].as_str()), ("error", Some("generation_failed")));

    // The client goes away after the first piece; the answer is still stored.
    let gate = Arc::new(Semaphore::new(0));
    *stub.state.gate.lock().unwrap() = Some(gate.clone());
    let mut res = t
        .req(Method::POST, &messages, &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "How long do refunds take, once more?"}))
        .send()
        .await
        .unwrap();
    let mut seen = String::new();
    while !seen.contains("event: delta") {
        seen.push_str(&String::from_utf8_lossy(&res.chunk().await.unwrap().expect("more events")));
    }
    drop(res);
    gate.add_permits(1_000);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
        let last = read["messages"].as_array().unwrap().last().unwrap().clone();
        if last["role"] == "assistant" && last["content"] == done["content"] {
            break;
        }
        assert!(Instant::now() < deadline, "the interrupted answer was never stored: {read}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    t.stop().await;
}

#[tokio::test]
async fn a_create_with_a_message_streams_too_and_done_carries_the_conversation() {
    let stub = ModelStub::start("Fourteen days [1].").await;
    let t = spawn_with_model(&stub).await;
    let mind = t.mind_id(json!({"name": "Ada", "welcomeMessage": "Hi!"})).await;
    t.mind_text(&mind, REFUNDS).await;
    let res = t
        .req(Method::POST, &format!("/api/v1/minds/{mind}/conversations"), &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"message": "How long do refunds take?"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let all = events(&res.text().await.unwrap());
    let (name, done) = all.last().unwrap();
    assert_eq!(name, "done");
    assert_eq!(done["conversation"]["messageCount"], 3);
    assert_eq!(done["messages"].as_array().unwrap().len(), 3);
    assert_eq!(done["messages"][2], done["message"]);
    let conv = done["conversation"]["id"].as_str().unwrap();
    let (_, read) = t.get_json(&t.dev_key, &format!("/api/v1/minds/{mind}/conversations/{conv}")).await;
    assert_eq!(read["messages"], done["messages"]);
    t.stop().await;
}

#[tokio::test]
async fn a_workspace_writes_at_most_four_answers_at_once() {
    let stub = ModelStub::start("Fourteen days [1].").await;
    let gate = Arc::new(Semaphore::new(0));
    *stub.state.gate.lock().unwrap() = Some(gate.clone());
    let t = spawn_with_model(&stub).await;
    let (bot, _) = t.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let ask = |conv: String| {
        t.req(Method::POST, &format!("{path}/{conv}/messages"), &t.dev_key)
            .header("accept", "text/event-stream")
            .json(&json!({"content": "How long do refunds take?"}))
            .send()
    };
    let mut conversations = Vec::new();
    for _ in 0..6 {
        let (_, created) = t.post_json(&t.dev_key, &path, json!({})).await;
        conversations.push(created["conversation"]["id"].as_str().unwrap().to_owned());
    }
    // Four answers in flight, each held by the model after its first piece.
    let mut held = Vec::new();
    for conv in &conversations[..4] {
        let mut res = ask(conv.clone()).await.unwrap();
        assert_eq!(res.status(), 200);
        let mut seen = String::new();
        while !seen.contains("event: delta") {
            seen.push_str(&String::from_utf8_lossy(&res.chunk().await.unwrap().expect("more events")));
        }
        held.push(res);
    }
    let refused = ask(conversations[4].clone()).await.unwrap();
    assert_eq!(refused.headers()["retry-after"], "2");
    let body = expect_error(refused, 429, "rate_limited").await;
    assert!(body["error"]["message"].as_str().unwrap().contains("4 answers"), "{body}");
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{}", conversations[4])).await;
    assert_eq!(read["conversation"]["messageCount"], 0, "a refused question is not stored");
    // A create with a first question is refused the same way, and names the conversation it opened.
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"message": "Hello?"})).send().await.unwrap();
    assert_eq!(res.headers()["retry-after"], "2");
    let body = expect_error(res, 429, "rate_limited").await;
    assert!(body["error"]["message"].as_str().unwrap().contains("4 answers"), "{body}");
    assert!(body["error"]["details"]["conversationId"].as_str().unwrap().starts_with("conv_"), "{body}");

    // Another workspace has its own budget.
    t.workspace("neighbour", Default::default()).await;
    let neighbour = t.key("neighbour", "all").await;
    let res = t.req(Method::POST, "/api/v1/chatbots", &neighbour).json(&json!({"name": "n"})).send().await.unwrap();
    let other_bot = parts(res).await.1["chatbot"]["id"].as_str().unwrap().to_owned();
    let (status, _) = t.post_json(&neighbour, &format!("/api/v1/chatbots/{other_bot}/conversations"), json!({})).await;
    assert_eq!(status, 201, "starting a conversation writes no answer");

    // The held answers finish and give their slots back.
    gate.add_permits(10_000);
    for res in held {
        assert!(res.text().await.unwrap().contains("event: done"));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let res = ask(conversations[5].clone()).await.unwrap();
        if res.status() == 200 {
            assert!(res.text().await.unwrap().contains("event: done"));
            break;
        }
        assert!(Instant::now() < deadline, "the slots never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    t.stop().await;
}

#[tokio::test]
async fn a_model_that_stalls_mid_answer_is_given_up_on_after_the_idle_timeout() {
    let stub = ModelStub::start("Refunds take fourteen days [1].").await;
    let responder = stub.responder_with(|c| c.idle_timeout = Duration::from_millis(300));
    let t = TestApp::spawn_with(lore::compose::Overrides { responder: Some(responder), ..Default::default() }).await;
    let (bot, _) = t.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let (_, created) = t.post_json(&t.dev_key, &path, json!({})).await;
    let conv = created["conversation"]["id"].as_str().unwrap().to_owned();
    // The first piece, then nothing: the stream is idle from there on.
    *stub.state.gate.lock().unwrap() = Some(Arc::new(Semaphore::new(0)));
    let started = Instant::now();
    let res = t
        .req(Method::POST, &format!("{path}/{conv}/messages"), &t.dev_key)
        .json(&json!({"content": "How long do refunds take?"}))
        .send();
    // Bounded so that a hang fails the test instead of stalling the suite.
    let res = tokio::time::timeout(Duration::from_secs(20), res).await.expect("an answer, not a hang").unwrap();
    let e = expect_error(res, 502, "generation_failed").await;
    assert!(started.elapsed() < Duration::from_secs(20), "{e}");
    // The question is kept for a retry; no half answer is stored.
    let (_, read) = t.get_json(&t.dev_key, &format!("{path}/{conv}")).await;
    let last = read["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!((last["role"].as_str(), last["content"].as_str()), (Some("user"), Some("How long do refunds take?")));
    t.stop().await;
}

/// `lore serve --backend aws` in a process of its own, configured by its environment alone (as
/// deployed) on the resources of `aws`, answering with the OpenAI-compatible model at `llm`.
struct AwsServeProcess {
    child: std::process::Child,
    base: String,
    key: String,
    _dir: tempfile::TempDir,
}

impl AwsServeProcess {
    async fn start(aws: &lore::compose::AwsOverrides, llm: &str, env: &[(&str, &str)]) -> Self {
        use std::io::BufRead;
        let name = |q: &lore_aws::QueueRef| match q {
            lore_aws::QueueRef::Name(n) | lore_aws::QueueRef::Url(n) => n.clone(),
        };
        let s = &aws.settings;
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lore"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(["--backend", "aws", "serve", "--addr", "127.0.0.1:0"])
            .env("RUST_LOG", "warn")
            .env("LORE_EMBEDDER", "local")
            .env("LORE_DYNAMODB_TABLE", &s.table)
            .env("LORE_S3_BUCKET", &s.bucket)
            .env("LORE_INGEST_QUEUE", name(&s.ingest_queue))
            .env("LORE_DELIVERIES_QUEUE", name(&s.deliveries_queue))
            .env("LORE_EVENT_BUS", &s.event_bus)
            .env("AWS_ENDPOINT_URL", s.s3_endpoint.as_deref().expect("moto's endpoint"))
            .env("AWS_REGION", "us-east-1")
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("LORE_DATABASE_URL", aws.database_url.as_deref().expect("pgvector"))
            .env("LORE_LLM_BASE_URL", llm)
            .env("LORE_LLM_MODEL", "stub-model")
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("lore serve starts");
        let stdout = child.stdout.take().expect("stdout");
        // The banner ends with the "Try:" line; the rest of stdout is drained so the server never
        // blocks on it.
        let base = tokio::task::spawn_blocking(move || {
            let mut base = None;
            let mut lines = std::io::BufReader::new(stdout).lines().map_while(Result::ok);
            for line in lines.by_ref() {
                if let Some(b) = line.strip_prefix("Lore is listening on ") {
                    base = Some(b.to_owned());
                }
                if line.starts_with("Try:") {
                    break;
                }
            }
            std::thread::spawn(move || lines.for_each(drop));
            base
        })
        .await
        .unwrap()
        .expect("lore serve --backend aws prints where it listens");
        let key = std::fs::read_to_string(dir.path().join("dev-key")).expect("dev key").trim().to_owned();
        Self { child, base, key, _dir: dir }
    }

    /// Ends the process at once (SIGKILL): no request finishes, no slot is given back.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for AwsServeProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspaces_answer_budget_holds_across_servers_and_a_dead_servers_slots_come_back() {
    // Two servers on one table, as two Lambda instances: this process's and a `lore serve
    // --backend aws` process of its own, whose slot leases last 2 s.
    let Some(aws) = crate::support::aws_stack().await else { return };
    let stub = ModelStub::start("Fourteen days [1].").await;
    let gate = Arc::new(Semaphore::new(0));
    *stub.state.gate.lock().unwrap() = Some(gate.clone());
    let overrides =
        lore::compose::Overrides { responder: Some(stub.responder()), aws: Some(aws.clone()), ..Default::default() };
    let one = TestApp::spawn_with(overrides).await;
    // The knowledge first, so that this server processes it with the embedder it searches with.
    let (bot, _) = one.ready_chatbot(&[("refunds.md", REFUNDS)]).await;
    let mut two = AwsServeProcess::start(&aws, &stub.base_url, &[("LORE_SLOT_LEASE_SECS", "2")]).await;
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let mut conversations = Vec::new();
    for _ in 0..6 {
        let (status, created) = one.post_json(&one.dev_key, &path, json!({})).await;
        assert_eq!(status, 201, "{created}");
        conversations.push(created["conversation"]["id"].as_str().unwrap().to_owned());
    }
    let servers = [(one.base.clone(), one.dev_key.clone()), (two.base.clone(), two.key.clone())];
    let ask = |server: usize, conv: &str| {
        let (base, key) = &servers[server];
        one.client
            .post(format!("{base}{path}/{conv}/messages"))
            .bearer_auth(key)
            .header("accept", "text/event-stream")
            .json(&json!({"content": "How long do refunds take?"}))
            .send()
    };

    // Four answers in flight, two on each server, each held by the model after its first piece.
    let mut held = Vec::new();
    for (i, conv) in conversations[..4].iter().enumerate() {
        let mut res = ask(i % 2, conv).await.unwrap();
        assert_eq!(res.status(), 200, "answer {i}");
        let mut seen = String::new();
        while !seen.contains("event: delta") {
            seen.push_str(&String::from_utf8_lossy(&res.chunk().await.unwrap().expect("more events")));
        }
        held.push((i % 2, res));
    }
    // The fifth is refused whichever server it reaches.
    for server in [0, 1] {
        let refused = ask(server, &conversations[4]).await.unwrap();
        assert_eq!(refused.headers()["retry-after"], "2");
        let body = expect_error(refused, 429, "rate_limited").await;
        assert!(body["error"]["message"].as_str().unwrap().contains("4 answers"), "server {server}: {body}");
    }

    // The second server dies with its two answers in flight. Their slots stay taken until their
    // leases end (at most 2 s after its last renewal), then come back by themselves.
    two.kill();
    held.retain(|(server, _)| *server == 0);
    let killed = Instant::now();
    let refused = ask(0, &conversations[4]).await.unwrap();
    expect_error(refused, 429, "rate_limited").await;
    let deadline = killed + Duration::from_secs(20);
    let back = loop {
        let res = ask(0, &conversations[4]).await.unwrap();
        if res.status() == 200 {
            break res;
        }
        expect_error(res, 429, "rate_limited").await;
        assert!(Instant::now() < deadline, "the dead server's slots never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // The two leases were last renewed at different moments: the second may end up to a renewal
    // period (a third of the lease) after the first.
    let also_back = loop {
        let res = ask(0, &conversations[5]).await.unwrap();
        if res.status() == 200 {
            break res;
        }
        expect_error(res, 429, "rate_limited").await;
        assert!(Instant::now() < deadline, "the dead server's second slot never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let res = one.req(Method::POST, &path, &one.dev_key).json(&json!({"message": "Hello?"})).send().await.unwrap();
    expect_error(res, 429, "rate_limited").await;

    gate.add_permits(10_000);
    for res in held.into_iter().map(|(_, res)| res).chain([back, also_back]) {
        assert!(res.text().await.unwrap().contains("event: done"));
    }
    one.stop().await;
}
