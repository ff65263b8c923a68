//! Actions over HTTP (docs/api.md §23): kept per chatbot and Mind with their secrets hidden, and
//! called by a model — a local OpenAI-compatible stub that streams tool calls as OpenAI does —
//! against a real receiver on 127.0.0.1, whose requests are checked with the Standard Webhooks
//! reference implementation.

use crate::receiver::{Received, Receiver, Reply};
use crate::support::{TestApp, expect_error, parts};
use axum::Router;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);
const REFUNDS: &str = "Refunds are paid within fourteen days of the return reaching our warehouse.";

/// One answer of the stub model: tool calls (name, argument text), or text.
#[derive(Clone)]
enum Step {
    Call(Vec<(&'static str, &'static str)>),
    Say(&'static str),
}

/// An OpenAI-compatible chat server that answers streamed requests from a script (then "Done."),
/// and records each request body.
#[derive(Clone)]
struct ToolModel {
    base_url: String,
    script: Arc<Mutex<VecDeque<Step>>>,
    requests: Arc<Mutex<Vec<Value>>>,
}

type ModelState = (Arc<Mutex<VecDeque<Step>>>, Arc<Mutex<Vec<Value>>>);

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let c = json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "stub-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {c}\n\n")
}

async fn complete(State((script, requests)): State<ModelState>, body: axum::body::Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    if request["stream"] == false {
        let reply = json!({"id": "t", "object": "chat.completion", "created": 1, "model": "stub-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}]});
        return axum::Json(reply).into_response();
    }
    requests.lock().unwrap().push(request);
    let step = script.lock().unwrap().pop_front().unwrap_or(Step::Say("Done."));
    let mut events = Vec::new();
    match step {
        Step::Say(text) => {
            for word in text.split_inclusive(' ') {
                events.push(chunk(json!({"content": word}), None));
            }
            events.push(chunk(json!({}), Some("stop")));
        }
        Step::Call(calls) => {
            for (i, (name, args)) in calls.iter().enumerate() {
                let id = format!("call_{i}_{}", requests.lock().unwrap().len());
                events.push(chunk(
                    json!({"tool_calls": [{"index": i, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]}),
                    None,
                ));
                // The arguments in pieces, as OpenAI streams them.
                let bytes: Vec<char> = args.chars().collect();
                for piece in bytes.chunks(7) {
                    let piece: String = piece.iter().collect();
                    events.push(chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}), None));
                }
            }
            events.push(chunk(json!({}), Some("tool_calls")));
        }
    }
    events.push("data: [DONE]\n\n".to_owned());
    ([("content-type", "text/event-stream")], events.concat()).into_response()
}

impl ToolModel {
    async fn start(steps: Vec<Step>) -> Self {
        let script = Arc::new(Mutex::new(VecDeque::from(steps)));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let app =
            Router::new().route("/v1/chat/completions", post(complete)).with_state((script.clone(), requests.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base_url, script, requests }
    }

    fn then(&self, steps: Vec<Step>) {
        self.script.lock().unwrap().extend(steps);
    }

    fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    fn responder(&self) -> Arc<dyn lore_app::ports::Responder> {
        let mut config = lore_chat::OpenAiResponderConfig::new(None);
        config.base_url = self.base_url.clone();
        config.model = "stub-model".into();
        Arc::new(lore_chat::OpenAiResponder::new(config).unwrap())
    }
}

/// A server whose actions may call 127.0.0.1, answering with `model`, giving up on a call after 1 s.
async fn spawn(model: &ToolModel) -> TestApp {
    TestApp::spawn_with(lore::compose::Overrides {
        allow_private_network: true,
        responder: Some(model.responder()),
        action_timeout: Some(Duration::from_secs(1)),
        webhook_retry_schedule: Some(lore_domain::delivery::RetrySchedule::parse("200ms").unwrap()),
        ..Default::default()
    })
    .await
}

fn order_action(url: &str) -> Value {
    json!({"name": "lookup_order", "description": "Looks up an order by its number.", "url": url,
        "parameters": {"type": "object", "properties": {"orderId": {"type": "string", "pattern": "^[0-9]{4,}$"}},
            "required": ["orderId"], "additionalProperties": false},
        "headers": {"Authorization": "Bearer shop-s3cret"}})
}

async fn send(t: &TestApp, method: Method, path: &str, key: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = t.req(method, path, key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    parts(req.send().await.unwrap()).await
}

/// A chatbot with one ready text source: its API path.
async fn chatbot_with_refunds(t: &TestApp) -> String {
    let bot = t.chatbot().await;
    let (status, body) =
        t.post_source(&t.dev_key, &bot, json!({"type": "text", "name": "Refunds", "content": REFUNDS})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap();
    t.process(&bot, id).await;
    assert_eq!(t.settle(&bot, id).await["status"], "ready");
    format!("/api/v1/chatbots/{bot}")
}

/// Creates an action (asserting the 201): `(action id, signing secret)`.
async fn created(t: &TestApp, owner: &str, body: Value) -> (String, String) {
    let (status, created) = send(t, Method::POST, &format!("{owner}/actions"), &t.dev_key, Some(body)).await;
    assert_eq!(status, 201, "{created}");
    (created["action"]["id"].as_str().unwrap().to_owned(), created["signingSecret"].as_str().unwrap().to_owned())
}

fn verify(secret: &str, r: &Received) {
    let wh = standardwebhooks::Webhook::new(secret).expect("a Standard Webhooks secret");
    wh.verify(&r.body, &r.headers).unwrap_or_else(|e| panic!("signature refused: {e:?}"));
}

/// Asks `question` in a new conversation; the answer message.
async fn ask(t: &TestApp, owner: &str, question: &str) -> Value {
    let (status, body) =
        send(t, Method::POST, &format!("{owner}/conversations"), &t.dev_key, Some(json!({"message": question}))).await;
    assert_eq!(status, 201, "{body}");
    body["messages"].as_array().unwrap().last().unwrap().clone()
}

#[tokio::test]
async fn actions_are_kept_per_chatbot_and_mind_with_their_secrets_hidden() {
    let model = ToolModel::start(Vec::new()).await;
    let t = spawn(&model).await;
    let bot = format!("/api/v1/chatbots/{}", t.chatbot().await);
    let mind = t.mind(&t.dev_key, json!({"name": "Ada"})).await;
    let mind = format!("/api/v1/minds/{}", mind["id"].as_str().unwrap());
    for owner in [&bot, &mind] {
        let (status, body) = send(
            &t,
            Method::POST,
            &format!("{owner}/actions"),
            &t.dev_key,
            Some(order_action("http://127.0.0.1:9/orders")),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let action = &body["action"];
        let id = action["id"].as_str().unwrap();
        assert!(id.starts_with("act_"), "{id}");
        assert!(body["signingSecret"].as_str().unwrap().starts_with("whsec_"));
        assert_eq!((action["method"].as_str(), action["enabled"].as_bool()), (Some("POST"), Some(true)));
        assert_eq!(action["headers"], json!({"authorization": "•••"}), "header values are never shown back");
        assert!(!body.to_string().contains("shop-s3cret"));

        let (_, list) = send(&t, Method::GET, &format!("{owner}/actions"), &t.dev_key, None).await;
        assert_eq!(list["actions"].as_array().unwrap().len(), 1, "{list}");
        assert!(!list.to_string().contains("shop-s3cret") && !list.to_string().contains("whsec_"));

        // A PATCH that sends back what it read keeps the secret; the name stays unique.
        let path = format!("{owner}/actions/{id}");
        let (status, patched) = send(
            &t,
            Method::PATCH,
            &path,
            &t.dev_key,
            Some(json!({"method": "GET", "headers": {"authorization": "•••", "x-shop": "7"}, "enabled": false})),
        )
        .await;
        assert_eq!(status, 200, "{patched}");
        assert_eq!(patched["action"]["headers"], json!({"authorization": "•••", "x-shop": "•••"}));
        assert_eq!(
            (patched["action"]["method"].as_str(), patched["action"]["enabled"].as_bool()),
            (Some("GET"), Some(false))
        );
        let (status, _) = send(
            &t,
            Method::POST,
            &format!("{owner}/actions"),
            &t.dev_key,
            Some(json!({"name": "open_ticket", "description": "Opens a ticket.", "url": "http://127.0.0.1:9/t",
                "parameters": {"type": "object"}})),
        )
        .await;
        assert_eq!(status, 201);
        let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": "open_ticket"})).send().await.unwrap();
        expect_error(res, 409, "action_name_taken").await;

        // Every refused member at once; a schema the validator refuses.
        let res = t
            .req(Method::POST, &format!("{owner}/actions"), &t.dev_key)
            .json(&json!({"name": "Bad Name", "description": "", "url": "http://127.0.0.1:9/x",
                "parameters": {"type": "object", "properties": {"n": {"type": "nope"}}}}))
            .send()
            .await
            .unwrap();
        let e = expect_error(res, 400, "validation_error").await;
        for field in ["name", "description", "parameters"] {
            assert!(e["error"]["details"]["fields"].get(field).is_some(), "{field}: {e}");
        }
        let res = t.req(Method::POST, &format!("{owner}/actions"), &t.dev_key)
            .json(&json!({"name": "x", "description": "d", "url": "ftp://example.com/", "parameters": {"type": "object"}}))
            .send().await.unwrap();
        expect_error(res, 400, "invalid_url").await;

        let (status, _) = send(&t, Method::DELETE, &path, &t.dev_key, None).await;
        assert_eq!(status, 200);
        let res = t.req(Method::GET, &path, &t.dev_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }

    // Scopes: chatbots' actions need chatbot:write, Minds' minds:write.
    let chat_only = t.key("default", "chat:write,chatbot:read,minds:read").await;
    for owner in [&bot, &mind] {
        let res = t
            .req(Method::POST, &format!("{owner}/actions"), &chat_only)
            .json(&order_action("http://127.0.0.1:9/o"))
            .send()
            .await
            .unwrap();
        expect_error(res, 403, "insufficient_scope").await;
    }
    // Another workspace sees none of them.
    t.workspace("other", Default::default()).await;
    let other = t.key("other", "all").await;
    let res = t.req(Method::GET, &format!("{bot}/actions"), &other).send().await.unwrap();
    expect_error(res, 404, "not_found").await;

    // At most 20.
    for i in 1..20 {
        let body = json!({"name": format!("a{i}"), "description": "d", "url": "http://127.0.0.1:9/x",
            "parameters": {"type": "object"}});
        let (status, b) = send(&t, Method::POST, &format!("{bot}/actions"), &t.dev_key, Some(body)).await;
        assert_eq!(status, 201, "{i}: {b}");
    }
    let res = t
        .req(Method::POST, &format!("{bot}/actions"), &t.dev_key)
        .json(&order_action("http://127.0.0.1:9/o"))
        .send()
        .await
        .unwrap();
    expect_error(res, 403, "actions_limit_reached").await;
    t.stop().await;
}

#[tokio::test]
async fn a_model_calls_an_action_signed_and_the_answer_records_it() {
    let model = ToolModel::start(vec![
        Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]),
        Step::Say("Your order 10042 has shipped."),
    ])
    .await;
    let t = spawn(&model).await;
    let rx = Receiver::start().await;
    rx.always("/orders", Reply::Json(200, r#"{"orderId": "10042", "status": "shipped"}"#));
    let owner = chatbot_with_refunds(&t).await;
    let (action, secret) = created(&t, &owner, order_action(&rx.url("/orders"))).await;
    let hook = t.hook(json!({"hookUrl": rx.url("/hook"), "event": "conversation.action.called"})).await;

    let answer = ask(&t, &owner, "Where is my order 10042?").await;
    assert_eq!(answer["content"], "Your order 10042 has shipped.");
    let calls = answer["actions"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{answer}");
    assert_eq!(
        (
            calls[0]["actionId"].as_str(),
            calls[0]["name"].as_str(),
            calls[0]["status"].as_str(),
            calls[0]["httpStatus"].as_u64()
        ),
        (Some(action.as_str()), Some("lookup_order"), Some("ok"), Some(200))
    );
    assert_eq!(calls[0]["arguments"], json!({"orderId": "10042"}));
    assert!(calls[0]["tookMs"].as_u64().is_some());

    // The endpoint got the arguments, the owner's header and a verifiable signature, and no
    // user id (the visitor is not identity-verified).
    let got = rx.next(WAIT).await;
    assert_eq!((got.method.as_str(), got.path.as_str()), ("POST", "/orders"));
    assert_eq!(got.json(), json!({"orderId": "10042"}));
    assert_eq!(got.header("authorization"), "Bearer shop-s3cret");
    assert_eq!(got.header("content-type"), "application/json");
    assert!(got.headers.get("x-lore-user-id").is_none());
    verify(&secret, &got);
    let mut forged = got.clone();
    forged.body = axum::body::Bytes::from_static(br#"{"orderId": "99999"}"#);
    assert!(standardwebhooks::Webhook::new(&secret).unwrap().verify(&forged.body, &forged.headers).is_err());

    // The model was offered the tool in OpenAI's shape and got the answer back.
    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["tools"][0]["type"], "function");
    assert_eq!(requests[0]["tools"][0]["function"]["name"], "lookup_order");
    assert_eq!(requests[0]["tools"][0]["function"]["parameters"]["required"], json!(["orderId"]));
    let tool_message = requests[1]["messages"].as_array().unwrap().iter().find(|m| m["role"] == "tool").unwrap();
    assert!(tool_message["content"].as_str().unwrap().contains("shipped"), "{tool_message}");

    // The stored message keeps the call; the event names it without the arguments.
    let conv = answer["conversationId"].as_str().unwrap();
    let (_, read) = send(&t, Method::GET, &format!("{owner}/conversations/{conv}"), &t.dev_key, None).await;
    assert_eq!(read["messages"].as_array().unwrap().last().unwrap()["actions"], answer["actions"]);
    let delivered = rx.next(WAIT).await;
    assert_eq!(delivered.path, "/hook");
    let env = delivered.json();
    assert_eq!(env["eventType"], "conversation.action.called");
    assert_eq!(
        (env["data"]["actionId"].as_str(), env["data"]["messageId"].as_str(), env["data"]["status"].as_str()),
        (Some(action.as_str()), answer["id"].as_str(), Some("ok"))
    );
    assert_eq!(env["data"]["chatbotId"].as_str(), owner.rsplit('/').next());
    assert!(env["data"].get("arguments").is_none());
    verify(hook["secret"].as_str().unwrap(), &delivered);
    t.stop().await;
}

#[tokio::test]
async fn bad_arguments_timeouts_failures_and_the_three_call_cap() {
    let model = ToolModel::start(Vec::new()).await;
    let t = spawn(&model).await;
    let rx = Receiver::start().await;
    let owner = chatbot_with_refunds(&t).await;
    created(&t, &owner, order_action(&rx.url("/orders"))).await;

    // Arguments that miss the schema: nothing is called, the model is told why.
    model.then(vec![Step::Call(vec![("lookup_order", r#"{"orderId": "12"}"#)]), Step::Say("Which order?")]);
    let answer = ask(&t, &owner, "Where is order 12?").await;
    assert_eq!(answer["actions"][0]["status"], "invalid", "{answer}");
    assert_eq!(answer["actions"][0]["httpStatus"], Value::Null);
    let told = model.requests().last().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap();
    assert!(told["content"].as_str().unwrap().contains("nothing was called"), "{told}");
    // An action the owner does not have.
    model.then(vec![Step::Call(vec![("delete_everything", "{}")]), Step::Say("I cannot.")]);
    let answer = ask(&t, &owner, "Delete it all").await;
    assert_eq!(
        (answer["actions"][0]["status"].as_str(), answer["actions"][0]["actionId"].as_str()),
        (Some("invalid"), None)
    );
    rx.expect_none(Duration::from_millis(300)).await;

    // A 500, then a receiver slower than the 1 s budget.
    rx.script("/orders", vec![Reply::Status(500), Reply::Slow(Duration::from_secs(3), 200)]);
    model.then(vec![Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]), Step::Say("It failed.")]);
    let answer = ask(&t, &owner, "Where is order 10042?").await;
    assert_eq!(
        (answer["actions"][0]["status"].as_str(), answer["actions"][0]["httpStatus"].as_u64()),
        (Some("error"), Some(500))
    );
    model.then(vec![Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]), Step::Say("No answer.")]);
    let answer = ask(&t, &owner, "Where is order 10042 now?").await;
    assert_eq!(answer["actions"][0]["status"], "timeout", "{answer}");
    rx.take(2, WAIT).await;

    // A model that keeps calling: three calls, then it must answer.
    rx.always("/orders", Reply::Json(200, r#"{"status": "shipped"}"#));
    let call = || Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]);
    model.then(vec![
        call(),
        Step::Call(vec![("lookup_order", r#"{"orderId": "10043"}"#), ("lookup_order", r#"{"orderId": "10044"}"#)]),
        call(),
        Step::Say("Enough."),
    ]);
    let answer = ask(&t, &owner, "Check every order").await;
    assert_eq!(answer["actions"].as_array().unwrap().len(), 3, "{answer}");
    assert_eq!(answer["content"], "Enough.");
    rx.take(3, WAIT).await;
    rx.expect_none(Duration::from_millis(300)).await;
    assert_eq!(model.requests().last().unwrap()["tool_choice"], "none");
    t.stop().await;
}

#[tokio::test]
async fn streaming_shows_the_call_before_the_answer_and_get_actions_send_a_query() {
    let model = ToolModel::start(vec![
        Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]),
        Step::Say("It has shipped."),
    ])
    .await;
    let t = spawn(&model).await;
    let rx = Receiver::start().await;
    rx.always("/orders", Reply::Json(200, r#"{"status": "shipped"}"#));
    let owner = chatbot_with_refunds(&t).await;
    let mut body = order_action(&rx.url("/orders?shop=1"));
    body["method"] = json!("GET");
    let (_, secret) = created(&t, &owner, body).await;

    let res = t
        .req(Method::POST, &format!("{owner}/conversations"), &t.dev_key)
        .header("accept", "text/event-stream")
        .json(&json!({"message": "Where is my order 10042?"}))
        .send()
        .await
        .unwrap();
    let text = res.text().await.unwrap();
    let names: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
    let action_at = names.iter().position(|n| *n == "action").unwrap_or_else(|| panic!("no action event: {text}"));
    let started_at = names.iter().position(|n| *n == "action_started").unwrap();
    let first_delta = names.iter().position(|n| *n == "delta").unwrap();
    assert!(started_at < action_at && action_at < first_delta, "{names:?}");
    assert!(text.contains("event: action_started\ndata: {\"name\":\"lookup_order\"}"), "{text}");
    assert_eq!(names.last(), Some(&"done"));
    let data: Value = serde_json::from_str(
        text.lines().skip_while(|l| *l != "event: action").nth(1).unwrap().strip_prefix("data: ").unwrap(),
    )
    .unwrap();
    assert_eq!(
        (data["action"]["name"].as_str(), data["action"]["status"].as_str()),
        (Some("lookup_order"), Some("ok"))
    );

    let got = rx.next(WAIT).await;
    assert_eq!((got.method.as_str(), got.query.as_str()), ("GET", "shop=1&orderId=10042"));
    assert!(got.body.is_empty());
    verify(&secret, &got); // over the empty body
    t.stop().await;
}

#[tokio::test]
async fn the_test_route_calls_now_and_a_verified_visitor_is_named() {
    let model = ToolModel::start(Vec::new()).await;
    let t = spawn(&model).await;
    let rx = Receiver::start().await;
    rx.always("/orders", Reply::Json(201, r#"{"ticket": "T-1"}"#));
    let owner = chatbot_with_refunds(&t).await;
    let (action, secret) = created(&t, &owner, order_action(&rx.url("/orders"))).await;

    let test = format!("{owner}/actions/{action}/test");
    let (status, body) =
        send(&t, Method::POST, &test, &t.dev_key, Some(json!({"arguments": {"orderId": "10042"}}))).await;
    assert_eq!(status, 200, "{body}");
    let r = &body["result"];
    assert_eq!((r["status"].as_str(), r["httpStatus"].as_u64()), (Some("ok"), Some(201)));
    assert_eq!(r["body"], r#"{"ticket": "T-1"}"#);
    let got = rx.next(WAIT).await;
    verify(&secret, &got);
    assert!(got.headers.get("x-lore-user-id").is_none());
    let (_, body) = send(&t, Method::POST, &test, &t.dev_key, Some(json!({"arguments": {}}))).await;
    assert_eq!(body["result"]["status"], "invalid", "{body}");
    rx.expect_none(Duration::from_millis(300)).await;

    // A visitor whose identity the host site signed: the call names them.
    let (status, s) = send(&t, Method::POST, &format!("{owner}/identity-secret"), &t.dev_key, None).await;
    assert_eq!(status, 201, "{s}");
    let identity = s["identitySecret"].as_str().unwrap().to_owned();
    let (status, b) = send(&t, Method::PATCH, &owner, &t.dev_key, Some(json!({"identityVerification": true}))).await;
    assert_eq!(status, 200, "{b}");
    let (status, b) = send(&t, Method::POST, &format!("{owner}/publish"), &t.dev_key, Some(json!({}))).await;
    assert_eq!(status, 200, "{b}");
    let slug = b["chatbot"]["slug"].as_str().unwrap().to_owned();
    let hash = {
        use hmac::{Hmac, Mac};
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(identity.as_bytes()).unwrap();
        mac.update(b"user-42");
        mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    model.then(vec![Step::Call(vec![("lookup_order", r#"{"orderId": "10042"}"#)]), Step::Say("Found it.")]);
    let res = t
        .client
        .post(t.url(&format!("/c/{slug}/conversations")))
        .json(&json!({"message": "Where is my order 10042?", "visitor": {"userId": "user-42", "userHash": hash}}))
        .send()
        .await
        .unwrap();
    let (status, opened) = parts(res).await;
    assert_eq!(status, 201, "{opened}");
    let got = rx.next(WAIT).await;
    assert_eq!(got.header("x-lore-user-id"), "user-42");
    verify(&secret, &got);
    t.stop().await;
}

#[tokio::test]
async fn without_a_model_no_action_ever_runs() {
    let t = TestApp::spawn_private().await;
    let rx = Receiver::start().await;
    let owner = chatbot_with_refunds(&t).await;
    created(&t, &owner, order_action(&rx.url("/orders"))).await;
    let answer = ask(&t, &owner, "Where is my order 10042? How long do refunds take?").await;
    assert_eq!(answer["generatedBy"], "extractive");
    assert_eq!(answer["actions"], json!([]));
    rx.expect_none(Duration::from_millis(300)).await;
    t.stop().await;
}
