//! The built `api-chatbots` binary, run as Lambda runs it: against a Lambda Runtime API (a small
//! emulator here, on 127.0.0.1), fed the sample events of `events/api-chatbots/`, answering with
//! API Gateway HTTP API (payload 2.0) responses.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::Value;
use std::fs::File;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use support::{Event, Tenant};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

const FUNCTION_NAME: &str = "api-chatbots";
/// How long one invocation may take, process start-up included.
const INVOCATION_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the wait for an answer also checks that the process still lives.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// What the function posted to the Runtime API.
#[derive(Debug)]
enum Posted {
    Response { request_id: String, body: Value },
    Error { request_id: String, body: Value },
    InitError { body: Value },
}

#[derive(Clone)]
struct EmulatorState {
    /// Invocations waiting for `GET …/invocation/next`: (request id, event JSON).
    queue: Arc<Mutex<mpsc::UnboundedReceiver<(String, String)>>>,
    posted: mpsc::UnboundedSender<Posted>,
}

/// A Lambda Runtime API (2018-06-01) that hands out queued events and records what comes back.
struct RuntimeApi {
    addr: SocketAddr,
    queue: mpsc::UnboundedSender<(String, String)>,
    posted: mpsc::UnboundedReceiver<Posted>,
    server: JoinHandle<()>,
}

impl RuntimeApi {
    async fn start() -> Self {
        let (queue_tx, queue_rx) = mpsc::unbounded_channel();
        let (posted_tx, posted_rx) = mpsc::unbounded_channel();
        let state = EmulatorState { queue: Arc::new(Mutex::new(queue_rx)), posted: posted_tx };
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next_invocation))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(invocation_response))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(invocation_error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the runtime API emulator serves");
        });
        Self { addr, queue: queue_tx, posted: posted_rx, server }
    }
}

impl Drop for RuntimeApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

/// The long poll: answers when an invocation is queued.
async fn next_invocation(State(s): State<EmulatorState>) -> Response {
    let Some((request_id, event)) = s.queue.lock().await.recv().await else {
        return (StatusCode::GONE, "the emulator is shutting down").into_response();
    };
    let deadline = SystemTime::now().duration_since(UNIX_EPOCH).unwrap() + Duration::from_secs(30);
    let mut res = event.into_response();
    let headers = res.headers_mut();
    let mut set = |name: &'static str, value: String| {
        headers.insert(name, HeaderValue::from_str(&value).unwrap());
    };
    set("content-type", "application/json".into());
    set("lambda-runtime-aws-request-id", request_id);
    set("lambda-runtime-deadline-ms", deadline.as_millis().to_string());
    set(
        "lambda-runtime-invoked-function-arn",
        format!("arn:aws:lambda:eu-west-1:123456789012:function:{FUNCTION_NAME}"),
    );
    set("lambda-runtime-trace-id", "Root=1-69f495c1-4f1d2c3b5a6978e1d0c2b3a1;Parent=53995c3f42cd8ad8;Sampled=0".into());
    res
}

fn json_of(body: &Bytes) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("the function posted non-JSON ({e}): {}", String::from_utf8_lossy(body)))
}

async fn invocation_response(State(s): State<EmulatorState>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    let _ = s.posted.send(Posted::Response { request_id: id, body: json_of(&body) });
    StatusCode::ACCEPTED
}

async fn invocation_error(State(s): State<EmulatorState>, Path(id): Path<String>, body: Bytes) -> StatusCode {
    let _ = s.posted.send(Posted::Error { request_id: id, body: json_of(&body) });
    StatusCode::ACCEPTED
}

async fn init_error(State(s): State<EmulatorState>, body: Bytes) -> StatusCode {
    let _ = s.posted.send(Posted::InitError { body: json_of(&body) });
    StatusCode::ACCEPTED
}

/// The function's process; killed when dropped, so a failing test leaves none behind.
struct Function {
    child: Child,
    log: PathBuf,
    _log_dir: tempfile::TempDir,
}

impl Function {
    /// Starts the binary as Lambda would, with `extra_env` on top of the Lambda environment.
    fn spawn(runtime: &RuntimeApi, extra_env: &[(&str, &str)]) -> Self {
        let log_dir = tempfile::tempdir().unwrap();
        let log = log_dir.path().join("function.log");
        let out = File::create(&log).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_api-chatbots"));
        cmd.env_remove("LORE_BACKEND")
            .env_remove("LORE_DATA_DIR")
            .env("AWS_LAMBDA_RUNTIME_API", runtime.addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", FUNCTION_NAME)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "2026/05/01/[1]0123456789abcdef0123456789abcdef")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{FUNCTION_NAME}"))
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("the api-chatbots binary starts");
        Self { child, log, _log_dir: log_dir }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("the child can be polled")
    }

    /// Queues `event` and waits for what the function posts back, failing early if it dies.
    async fn invoke(&mut self, runtime: &mut RuntimeApi, request_id: &str, event: &Event) -> Posted {
        runtime.queue.send((request_id.to_owned(), event.json().to_owned())).unwrap();
        let started = Instant::now();
        loop {
            if let Ok(posted) = tokio::time::timeout(POLL_INTERVAL, runtime.posted.recv()).await {
                return posted.expect("the emulator lives as long as the test");
            }
            if let Some(status) = self.exited() {
                panic!("the function exited ({status}) before answering {request_id}; its log:\n{}", self.log());
            }
            if started.elapsed() > INVOCATION_TIMEOUT {
                panic!("no answer to {request_id} within {INVOCATION_TIMEOUT:?}; the function's log:\n{}", self.log());
            }
        }
    }

    /// Waits for the process to end on its own, collecting whatever it posts meanwhile.
    async fn wait_for_exit(&mut self, runtime: &mut RuntimeApi) -> (ExitStatus, Vec<Posted>) {
        let started = Instant::now();
        let mut posted = Vec::new();
        loop {
            if let Ok(Some(p)) = tokio::time::timeout(POLL_INTERVAL, runtime.posted.recv()).await {
                posted.push(p);
            }
            if let Some(status) = self.exited() {
                while let Ok(p) = runtime.posted.try_recv() {
                    posted.push(p);
                }
                return (status, posted);
            }
            if started.elapsed() > INVOCATION_TIMEOUT {
                panic!("the function did not exit within {INVOCATION_TIMEOUT:?}; its log:\n{}", self.log());
            }
        }
    }

    /// Like [`Self::invoke`], expecting a successful invocation, and reads its API Gateway v2 response.
    async fn http(&mut self, runtime: &mut RuntimeApi, request_id: &str, event: &Event) -> GatewayResponse {
        match self.invoke(runtime, request_id, event).await {
            Posted::Response { request_id: id, body } => {
                assert_eq!(id, request_id, "the response is posted for the invocation it answers");
                GatewayResponse::parse(body)
            }
            other => panic!("expected a response to {request_id}, got {other:?}; the function's log:\n{}", self.log()),
        }
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An API Gateway HTTP API (payload format 2.0) Lambda response.
#[derive(Debug)]
struct GatewayResponse {
    status: u16,
    headers: serde_json::Map<String, Value>,
    body: Value,
    raw: Value,
}

impl GatewayResponse {
    fn parse(raw: Value) -> Self {
        let status = raw["statusCode"].as_u64().unwrap_or_else(|| panic!("no statusCode: {raw}")) as u16;
        assert_eq!(raw["isBase64Encoded"], false, "JSON is sent as text: {raw}");
        let headers = raw["headers"].as_object().unwrap_or_else(|| panic!("no headers: {raw}")).clone();
        // Payload 2.0 has no multi-value headers: everything is in `headers`. A response in the
        // REST (payload 1.0) shape would carry them here instead, and API Gateway would drop them.
        let multi = raw.get("multiValueHeaders").and_then(Value::as_object).map(|m| m.len()).unwrap_or(0);
        assert_eq!(multi, 0, "a payload 2.0 response keeps its headers in `headers`: {raw}");
        let text = raw["body"].as_str().unwrap_or_else(|| panic!("no body: {raw}"));
        let body = serde_json::from_str(text).unwrap_or_else(|e| panic!("the body is not JSON ({e}): {text}"));
        Self { status, headers, body, raw }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(Value::as_str)
    }
}

#[tokio::test]
async fn binary_answers_chatbot_events_through_the_runtime_api() {
    let tenant = Tenant::new().await;
    let mut runtime = RuntimeApi::start().await;
    let data_dir = tenant.dir.path().to_str().expect("a UTF-8 temp dir");
    let mut function = Function::spawn(&runtime, &[("LORE_DATA_DIR", data_dir)]);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    let list = function.http(&mut runtime, "inv-1-list", &ev("list-chatbots.json")).await;
    assert_eq!(list.status, 200, "{:?}", list.raw);
    assert_eq!(list.header("content-type"), Some("application/json"), "{:?}", list.raw);
    assert!(list.header("x-request-id").is_some_and(|v| v.starts_with("req_")), "{:?}", list.raw);
    assert_eq!(list.body["status"], "success");
    assert_eq!(list.body["pagination"], serde_json::json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));

    let created = function.http(&mut runtime, "inv-2-create", &ev("create-chatbot.json")).await;
    assert_eq!(created.status, 201, "{:?}", created.raw);
    assert_eq!(created.header("content-type"), Some("application/json"));
    assert_eq!(created.body["chatbot"]["slug"], "acme-helper");
    assert_eq!(created.body["chatbot"]["name"], "Acme Helper");
    let id = created.body["chatbot"]["id"].as_str().expect("chatbot.id").to_owned();

    let got = function.http(&mut runtime, "inv-3-get", &ev("get-chatbot.json").with_chatbot_id(&id)).await;
    assert_eq!(got.status, 200, "{:?}", got.raw);
    assert_eq!(got.body["chatbot"]["id"], id.as_str());

    // The same composition serves every invocation of the process: the chatbot is listed.
    let list = function.http(&mut runtime, "inv-4-list", &ev("list-chatbots.json")).await;
    assert_eq!(list.body["pagination"]["total"], 1, "{:?}", list.raw);
    assert_eq!(list.body["chatbots"][0]["id"], id.as_str());

    // A refusal is still a successful invocation: an HTTP 401 in the API Gateway shape.
    let refused = function.http(&mut runtime, "inv-5-unauthorized", &Event::load("list-chatbots.json")).await;
    assert_eq!(refused.status, 401, "{:?}", refused.raw);
    assert_eq!(refused.header("www-authenticate"), Some("Bearer"), "{:?}", refused.raw);
    assert_eq!(refused.body["error"]["code"], "unauthorized");

    // An event that is no HTTP event fails its invocation on /error; the process serves on.
    let not_http = Event::from_json(r#"{"Records":[{"eventSource":"aws:sqs","body":"{}"}]}"#);
    match function.invoke(&mut runtime, "inv-6-not-http", &not_http).await {
        Posted::Error { request_id, body } => {
            assert_eq!(request_id, "inv-6-not-http");
            assert!(body["errorType"].as_str().is_some_and(|t| !t.is_empty()), "{body}");
            let message = body["errorMessage"].as_str().unwrap_or_default();
            assert!(message.contains("expects a JSON payload from Amazon API Gateway"), "{body}");
        }
        other => panic!("expected an invocation error, got {other:?}; log:\n{}", function.log()),
    }
    let got = function.http(&mut runtime, "inv-7-get", &ev("get-chatbot.json").with_chatbot_id(&id)).await;
    assert_eq!(got.status, 200, "{:?}", got.raw);

    assert!(function.exited().is_none(), "the function keeps polling for events; its log:\n{}", function.log());
    let log = function.log();
    assert!(
        log.lines().any(|l| l.starts_with('{') && l.contains(r#""level":"INFO""#)),
        "on Lambda the logs are JSON lines:\n{log}"
    );
}

#[tokio::test]
async fn binary_exits_when_its_composition_cannot_be_built() {
    let mut runtime = RuntimeApi::start().await;
    let mut function = Function::spawn(&runtime, &[("LORE_BACKEND", "bogus")]);
    let (status, posted) = function.wait_for_exit(&mut runtime).await;
    let log = function.log();
    assert!(!status.success(), "an init failure is a failed exit: {status}; log:\n{log}");
    assert!(log.contains("LORE_BACKEND must be 'local' or 'aws'"), "the reason reaches the log:\n{log}");
    // The composition is built before the runtime loop starts, where lambda_runtime (1.5) does
    // not report failures on /init/error: Lambda sees the exit (Runtime.ExitError) and the log
    // line above. Should a later runtime report it, the report must carry the reason.
    for p in posted {
        match p {
            Posted::InitError { body } => {
                let message = body["errorMessage"].as_str().unwrap_or_default();
                assert!(message.contains("LORE_BACKEND"), "the init error names the cause: {body}");
            }
            other => panic!("no invocation can be served without a composition: {other:?}"),
        }
    }
}
