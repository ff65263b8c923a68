//! A Lambda Runtime API (2018-06-01) emulator on 127.0.0.1 and a function binary run against
//! it the way Lambda runs it. Shared by the function crates' tests, which include it with
//! `#[path = "../../runtime_api.rs"] mod runtime_api;` (a file, not a crate: see
//! `test_support.rs`).

#![allow(dead_code)]

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
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

/// How long one invocation may take, process start-up included.
pub const INVOCATION_TIMEOUT: Duration = Duration::from_secs(60);
/// How often the wait for an answer also checks that the process still lives.
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// What the function posted to the Runtime API.
#[derive(Debug)]
pub enum Posted {
    Response {
        request_id: String,
        body: Value,
    },
    /// A streamed response (`Lambda-Runtime-Function-Response-Mode: streaming`): the HTTP
    /// metadata prelude, then the body's bytes as they came.
    Streamed {
        request_id: String,
        prelude: Value,
        body: Bytes,
    },
    Error {
        request_id: String,
        body: Value,
    },
    InitError {
        body: Value,
    },
}

#[derive(Clone)]
struct EmulatorState {
    /// The function's name, for the invoked function's ARN.
    function: Arc<str>,
    /// Invocations waiting for `GET …/invocation/next`: (request id, event JSON).
    queue: Arc<Mutex<mpsc::UnboundedReceiver<(String, String)>>>,
    posted: mpsc::UnboundedSender<Posted>,
}

/// A Lambda Runtime API (2018-06-01) that hands out queued events and records what comes back.
pub struct RuntimeApi {
    pub addr: SocketAddr,
    pub queue: mpsc::UnboundedSender<(String, String)>,
    pub posted: mpsc::UnboundedReceiver<Posted>,
    server: JoinHandle<()>,
}

impl RuntimeApi {
    /// An emulator for the function called `function`.
    pub async fn start(function: &str) -> Self {
        let (queue_tx, queue_rx) = mpsc::unbounded_channel();
        let (posted_tx, posted_rx) = mpsc::unbounded_channel();
        let state =
            EmulatorState { function: function.into(), queue: Arc::new(Mutex::new(queue_rx)), posted: posted_tx };
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
        format!("arn:aws:lambda:eu-west-1:123456789012:function:{}", s.function),
    );
    set("lambda-runtime-trace-id", "Root=1-69f495c1-4f1d2c3b5a6978e1d0c2b3a1;Parent=53995c3f42cd8ad8;Sampled=0".into());
    res
}

fn json_of(body: &Bytes) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("the function posted non-JSON ({e}): {}", String::from_utf8_lossy(body)))
}

async fn invocation_response(
    State(s): State<EmulatorState>,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> StatusCode {
    let streaming = headers.get("lambda-runtime-function-response-mode").is_some_and(|v| v == "streaming");
    if streaming {
        // The prelude (JSON), eight NUL bytes, then the body.
        let split = body.windows(8).position(|w| w == [0u8; 8]).expect("a streamed response has its prelude");
        let prelude = json_of(&body.slice(..split));
        let _ = s.posted.send(Posted::Streamed { request_id: id, prelude, body: body.slice(split + 8..) });
    } else {
        let _ = s.posted.send(Posted::Response { request_id: id, body: json_of(&body) });
    }
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
pub struct Function {
    pub child: Child,
    log: PathBuf,
    _log_dir: tempfile::TempDir,
}

impl Function {
    /// Starts `program` (the function called `name`) as Lambda would, with `extra_env` on top of
    /// the Lambda environment.
    pub fn spawn(runtime: &RuntimeApi, program: &str, name: &str, extra_env: &[(&str, &str)]) -> Self {
        let log_dir = tempfile::tempdir().unwrap();
        let log = log_dir.path().join("function.log");
        let out = File::create(&log).unwrap();
        let mut cmd = Command::new(program);
        cmd.env_remove("LORE_BACKEND")
            .env_remove("LORE_DATA_DIR")
            .env("AWS_LAMBDA_RUNTIME_API", runtime.addr.to_string())
            .env("AWS_LAMBDA_FUNCTION_NAME", name)
            .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
            .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
            .env("AWS_LAMBDA_LOG_STREAM_NAME", "2026/05/01/[1]0123456789abcdef0123456789abcdef")
            .env("AWS_LAMBDA_LOG_GROUP_NAME", format!("/aws/lambda/{name}"))
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out);
        for (k, v) in extra_env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("the function's binary starts");
        Self { child, log, _log_dir: log_dir }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("the child can be polled")
    }

    /// Queues `event` and waits for what the function posts back, failing early if it dies.
    pub async fn invoke(&mut self, runtime: &mut RuntimeApi, request_id: &str, event_json: &str) -> Posted {
        runtime.queue.send((request_id.to_owned(), event_json.to_owned())).unwrap();
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
    pub async fn wait_for_exit(&mut self, runtime: &mut RuntimeApi) -> (ExitStatus, Vec<Posted>) {
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
}

impl Drop for Function {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
