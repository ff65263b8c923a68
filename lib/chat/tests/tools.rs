//! The chat model's tool calls against a local OpenAI-compatible server over a socket: the
//! requests carry the published shapes, streamed calls are reassembled and run, results go back as
//! `tool` messages, and the number of calls and rounds is capped.

use async_trait::async_trait;
use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lore_app::ports::{Generated, NoTools, Persona, Prompt, Responder, Tool, Toolbox};
use lore_chat::{OpenAiResponder, OpenAiResponderConfig};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the stub answers one request with.
enum Reply {
    Fail(u16),
    /// The `delta` and `finish_reason` of each chunk, streamed in order.
    Chunks(Vec<(Value, Option<&'static str>)>),
}

/// Picks the reply to the request numbered (from 0) as given.
type Script = dyn Fn(usize, &Value) -> Reply + Send + Sync;

struct StubState {
    script: Box<Script>,
    requests: Mutex<Vec<Value>>,
}

/// A local chat server that records every request body and answers it as `script` says.
struct Stub {
    base_url: String,
    state: Arc<StubState>,
}

impl Stub {
    async fn start(script: impl Fn(usize, &Value) -> Reply + Send + Sync + 'static) -> Self {
        async fn complete(State(s): State<Arc<StubState>>, body: axum::body::Bytes) -> Response {
            let request: Value = serde_json::from_slice(&body).unwrap();
            let n = {
                let mut requests = s.requests.lock().unwrap();
                requests.push(request.clone());
                requests.len() - 1
            };
            match (s.script)(n, &request) {
                Reply::Fail(status) => {
                    let body = json!({"error": {"message": "stub failure", "type": "server_error"}});
                    let status = StatusCode::from_u16(status).unwrap();
                    (status, [("retry-after", "0")], axum::Json(body)).into_response()
                }
                Reply::Chunks(chunks) => {
                    let mut lines: Vec<Result<String, std::convert::Infallible>> = chunks
                        .into_iter()
                        .map(|(delta, finish)| {
                            let chunk = json!({"id": "c", "object": "chat.completion.chunk", "created": 1,
                                "model": "stub-model",
                                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                            Ok(format!("data: {chunk}\n\n"))
                        })
                        .collect();
                    lines.push(Ok("data: [DONE]\n\n".to_owned()));
                    let body = axum::body::Body::from_stream(futures::stream::iter(lines));
                    ([("content-type", "text/event-stream")], body).into_response()
                }
            }
        }
        let state = Arc::new(StubState { script: Box::new(script), requests: Mutex::default() });
        let app = Router::new().route("/v1/chat/completions", post(complete)).with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { base_url, state }
    }

    fn requests(&self) -> Vec<Value> {
        self.state.requests.lock().unwrap().clone()
    }

    fn responder(&self) -> OpenAiResponder {
        let mut config = OpenAiResponderConfig::new(None);
        config.base_url = self.base_url.clone();
        config.model = "stub-model".into();
        config.retries.initial_backoff = Duration::from_millis(10);
        config.retries.max_backoff = Duration::from_millis(20);
        OpenAiResponder::new(config).unwrap()
    }
}

/// `text` streamed word by word, then `finish_reason: "stop"`.
fn text_chunks(text: &str) -> Vec<(Value, Option<&'static str>)> {
    let mut chunks = vec![(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(text.split_inclusive(' ').map(|w| (json!({"content": w}), None)));
    chunks.push((json!({}), Some("stop")));
    chunks
}

/// Tool calls `(id, name, arguments)` streamed as OpenAI does: for each call a first chunk with
/// its index, id, type, name and empty arguments, then the arguments in fragments of 5
/// characters; then `finish_reason: "tool_calls"`. `text` (if any) comes first.
fn call_chunks(text: &str, calls: &[(&str, &str, &str)]) -> Vec<(Value, Option<&'static str>)> {
    let mut chunks = vec![(json!({"role": "assistant", "content": null}), None)];
    chunks.extend(text.split_inclusive(' ').map(|w| (json!({"content": w}), None)));
    for (index, (id, name, arguments)) in calls.iter().enumerate() {
        let first = json!({"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}});
        chunks.push((json!({"tool_calls": [first]}), None));
        let chars: Vec<char> = arguments.chars().collect();
        for piece in chars.chunks(5) {
            let piece: String = piece.iter().collect();
            chunks.push((json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), None));
        }
    }
    chunks.push((json!({}), Some("tool_calls")));
    chunks
}

/// A toolbox of two tools that records its calls and allows `calls` of them.
struct Recorder {
    tools: Vec<Tool>,
    left: AtomicUsize,
    calls: Mutex<Vec<(String, String)>>,
}

impl Recorder {
    fn new(calls: usize) -> Self {
        let tools = vec![
            Tool {
                name: "create_ticket".into(),
                description: "Opens a support ticket.".into(),
                parameters: json!({"type": "object", "properties": {"subject": {"type": "string"}},
                    "required": ["subject"]}),
            },
            Tool {
                name: "lookup_order".into(),
                description: "Finds an order by its number.".into(),
                parameters: json!({"type": "object", "properties": {"number": {"type": "integer"}}}),
            },
        ];
        Self { tools, left: AtomicUsize::new(calls), calls: Mutex::default() }
    }

    fn calls(&self) -> Vec<(String, String)> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait]
impl Toolbox for Recorder {
    fn tools(&self) -> &[Tool] {
        &self.tools
    }

    fn calls_left(&self) -> usize {
        self.left.load(Ordering::SeqCst)
    }

    async fn call(&self, name: &str, arguments: &str) -> String {
        self.left.fetch_sub(1, Ordering::SeqCst);
        let mut calls = self.calls.lock().unwrap();
        calls.push((name.to_owned(), arguments.to_owned()));
        format!("result {} of {name}", calls.len())
    }
}

fn prompt() -> Prompt {
    Prompt {
        persona: Persona { name: "Ada".into(), ..Default::default() },
        passages: Vec::new(),
        history: Vec::new(),
        question: "Please open a ticket about my refund.".into(),
        language: lore_domain::language::Language::English,
    }
}

/// Answers with `responder`, returning the answer and the text handed on piece by piece.
async fn answer(responder: &OpenAiResponder, tools: &dyn Toolbox) -> (Generated, String) {
    let pushed = Mutex::new(String::new());
    let sink = |piece: &str| pushed.lock().unwrap().push_str(piece);
    let generated = responder.respond(&prompt(), &sink, tools).await.unwrap();
    let pushed = pushed.lock().unwrap().clone();
    (generated, pushed)
}

/// The published shape of the recorder's tools in a request.
fn offered_tools() -> Value {
    let tools = Recorder::new(0).tools;
    tools
        .iter()
        .map(|t| {
            json!({"type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters}})
        })
        .collect()
}

fn messages(request: &Value) -> &Vec<Value> {
    request["messages"].as_array().unwrap()
}

const TICKET_ARGS: &str = r#"{"subject": "Refund for order 1042"}"#;
const ORDER_ARGS: &str = r#"{"number": 1042}"#;

#[tokio::test]
async fn one_tool_call_is_reassembled_run_and_answered_before_the_final_text() {
    let stub = Stub::start(|n, _| match n {
        0 => Reply::Chunks(call_chunks("", &[("call_a", "create_ticket", TICKET_ARGS)])),
        _ => Reply::Chunks(text_chunks("I opened ticket 1 for your refund.")),
    })
    .await;
    let tools = Recorder::new(3);
    let (generated, pushed) = answer(&stub.responder(), &tools).await;

    assert_eq!(tools.calls(), vec![("create_ticket".to_owned(), TICKET_ARGS.to_owned())]);
    assert_eq!(generated.text, "I opened ticket 1 for your refund.");
    assert_eq!(pushed, generated.text, "the answer is the text handed on");
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0]["tools"], offered_tools(), "{}", requests[0]);
    assert_eq!(requests[0]["tools"][0]["type"], "function");
    assert!(requests[0].get("tool_choice").is_none() && requests[1].get("tool_choice").is_none());
    assert_eq!(requests[1]["tools"], offered_tools());

    let first = messages(&requests[0]);
    let second = messages(&requests[1]);
    assert_eq!(second.len(), first.len() + 2);
    assert_eq!(second[..first.len()], first[..], "the conversation so far is sent again");
    assert_eq!(
        second[first.len()],
        json!({"role": "assistant", "tool_calls": [{"id": "call_a", "type": "function",
            "function": {"name": "create_ticket", "arguments": TICKET_ARGS}}]})
    );
    assert_eq!(
        second[first.len() + 1],
        json!({"role": "tool", "tool_call_id": "call_a", "content": "result 1 of create_ticket"})
    );
}

#[tokio::test]
async fn parallel_tool_calls_are_run_and_answered_in_order() {
    let stub = Stub::start(|n, _| match n {
        0 => Reply::Chunks(call_chunks(
            "Let me do both. ",
            &[("call_t", "create_ticket", TICKET_ARGS), ("call_o", "lookup_order", ORDER_ARGS)],
        )),
        _ => Reply::Chunks(text_chunks("Done.")),
    })
    .await;
    let tools = Recorder::new(3);
    let (generated, pushed) = answer(&stub.responder(), &tools).await;

    assert_eq!(
        tools.calls(),
        vec![("create_ticket".to_owned(), TICKET_ARGS.to_owned()), ("lookup_order".to_owned(), ORDER_ARGS.to_owned())]
    );
    assert_eq!(generated.text, "Let me do both. Done.", "the text of every round");
    assert_eq!(pushed, generated.text);
    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    let second = messages(&requests[1]);
    let tail = &second[second.len() - 3..];
    assert_eq!(
        tail[0],
        json!({"role": "assistant", "content": "Let me do both. ", "tool_calls": [
            {"id": "call_t", "type": "function", "function": {"name": "create_ticket", "arguments": TICKET_ARGS}},
            {"id": "call_o", "type": "function", "function": {"name": "lookup_order", "arguments": ORDER_ARGS}}]})
    );
    assert_eq!(tail[1], json!({"role": "tool", "tool_call_id": "call_t", "content": "result 1 of create_ticket"}));
    assert_eq!(tail[2], json!({"role": "tool", "tool_call_id": "call_o", "content": "result 2 of lookup_order"}));
}

#[tokio::test]
async fn calls_beyond_the_cap_are_answered_as_not_called_and_then_no_tool_may_be_chosen() {
    // A model that calls two tools whenever it may.
    let stub = Stub::start(|n, request| {
        if request["tool_choice"] == "none" {
            return Reply::Chunks(text_chunks("Here is what I did."));
        }
        let (t, o) = (format!("t{n}"), format!("o{n}"));
        let calls = [(t.as_str(), "create_ticket", TICKET_ARGS), (o.as_str(), "lookup_order", ORDER_ARGS)];
        Reply::Chunks(call_chunks("", &calls))
    })
    .await;
    let tools = Recorder::new(3);
    let (generated, _) = answer(&stub.responder(), &tools).await;

    assert_eq!(tools.calls().len(), 3, "at most the toolbox's calls are made");
    assert_eq!(generated.text, "Here is what I did.");
    let requests = stub.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests[0].get("tool_choice").is_none() && requests[1].get("tool_choice").is_none());
    assert_eq!(requests[2]["tool_choice"], "none", "no call is left");
    assert_eq!(requests[2]["tools"], offered_tools(), "the history holds tool calls: the tools are still sent");

    let tool_messages: Vec<(&str, &str)> = messages(&requests[2])
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| (m["tool_call_id"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect();
    let ids: Vec<&str> = tool_messages.iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, ["t0", "o0", "t1", "o1"], "every call is answered");
    assert_eq!(tool_messages[2].1, "result 3 of create_ticket");
    let refused = tool_messages[3].1;
    assert!(refused.starts_with("Not called") && refused.contains("at most 3 actions"), "{refused}");
}

#[tokio::test]
async fn a_model_that_keeps_calling_gets_five_rounds_the_last_without_tools_to_choose() {
    // It calls a tool whenever it may, and answers in text only when it may not.
    let stub = Stub::start(|n, request| {
        if request["tool_choice"] == "none" {
            return Reply::Chunks(text_chunks("Finally."));
        }
        let id = format!("t{n}");
        Reply::Chunks(call_chunks("", &[(id.as_str(), "create_ticket", TICKET_ARGS)]))
    })
    .await;
    let tools = Recorder::new(100);
    let (generated, _) = answer(&stub.responder(), &tools).await;

    let requests = stub.requests();
    assert_eq!(requests.len(), 5);
    assert_eq!(tools.calls().len(), 4);
    let choices: Vec<&Value> = requests.iter().map(|r| &r["tool_choice"]).collect();
    assert_eq!(choices, [&Value::Null, &Value::Null, &Value::Null, &Value::Null, &json!("none")]);
    assert_eq!(generated.text, "Finally.");
}

#[tokio::test]
async fn without_tools_the_request_offers_none() {
    let stub = Stub::start(|_, _| Reply::Chunks(text_chunks("Plain answer."))).await;
    let responder = stub.responder();
    let (generated, _) = answer(&responder, &NoTools).await;
    assert_eq!(generated.text, "Plain answer.");
    // Tools with no call left are not offered either.
    answer(&responder, &Recorder::new(0)).await;

    let requests = stub.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let keys: Vec<&String> = request.as_object().unwrap().keys().collect();
        assert!(!keys.iter().any(|k| k.starts_with("tool")), "{keys:?}");
    }
    assert_eq!(requests[0], requests[1]);
}

#[tokio::test]
async fn a_failed_follow_up_request_is_retried_without_calling_the_tool_again() {
    let stub = Stub::start(|n, _| match n {
        0 => Reply::Chunks(call_chunks("", &[("call_a", "create_ticket", TICKET_ARGS)])),
        1 => Reply::Fail(500),
        _ => Reply::Chunks(text_chunks("Ticket opened.")),
    })
    .await;
    let tools = Recorder::new(3);
    let (generated, _) = answer(&stub.responder(), &tools).await;

    assert_eq!(tools.calls().len(), 1, "the tool runs once");
    assert_eq!(generated.text, "Ticket opened.");
    let requests = stub.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1], requests[2], "the same request again");
    let last = messages(&requests[2]).last().unwrap().clone();
    assert_eq!(last, json!({"role": "tool", "tool_call_id": "call_a", "content": "result 1 of create_ticket"}));
}
