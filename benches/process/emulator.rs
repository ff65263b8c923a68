//! A local Lambda Runtime API (2018-06-01): hands queued events to `GET …/invocation/next`
//! (with the request id, deadline and function ARN headers) and records, with the instant it
//! arrived, what the function posts to `…/{id}/response`, `…/{id}/error` and `…/init/error`.
//! One emulator per function process: a killed process's pending long poll cannot take the next
//! process's event.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

/// How long an invocation may run (the `Lambda-Runtime-Deadline-Ms` header).
const DEADLINE: Duration = Duration::from_secs(900);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Response,
    Error,
    InitError,
}

/// What the function posted.
#[derive(Debug)]
pub struct Posted {
    pub kind: Kind,
    pub body: Bytes,
    pub at: Instant,
}

impl Posted {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Clone)]
struct Shared {
    queue: Arc<Mutex<mpsc::UnboundedReceiver<(String, String)>>>,
    posted: mpsc::UnboundedSender<Posted>,
    first_next: Arc<std::sync::Mutex<Option<Instant>>>,
    function_name: Arc<str>,
}

pub struct Emulator {
    pub addr: SocketAddr,
    queue: mpsc::UnboundedSender<(String, String)>,
    posted: mpsc::UnboundedReceiver<Posted>,
    first_next: Arc<std::sync::Mutex<Option<Instant>>>,
    server: JoinHandle<()>,
    invocations: u64,
}

impl Emulator {
    pub async fn start(function_name: &str) -> anyhow::Result<Self> {
        let (queue_tx, queue_rx) = mpsc::unbounded_channel();
        let (posted_tx, posted_rx) = mpsc::unbounded_channel();
        let first_next = Arc::new(std::sync::Mutex::new(None));
        let shared = Shared {
            queue: Arc::new(Mutex::new(queue_rx)),
            posted: posted_tx,
            first_next: first_next.clone(),
            function_name: function_name.into(),
        };
        let app = Router::new()
            .route("/2018-06-01/runtime/invocation/next", get(next))
            .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
            .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
            .route("/2018-06-01/runtime/init/error", post(init_error))
            .with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Self { addr, queue: queue_tx, posted: posted_rx, first_next, server, invocations: 0 })
    }

    /// Queues one event (before or after the function started).
    pub fn queue(&mut self, event: String) {
        self.invocations += 1;
        let _ = self.queue.send((format!("bench-{:08}", self.invocations), event));
    }

    /// The next thing the function posts, or `None` after `timeout`.
    pub async fn wait(&mut self, timeout: Duration) -> Option<Posted> {
        tokio::time::timeout(timeout, self.posted.recv()).await.ok().flatten()
    }

    /// Queues `event` and waits for what the function posts.
    pub async fn invoke(&mut self, event: String, timeout: Duration) -> anyhow::Result<Posted> {
        self.queue(event);
        let posted = self.wait(timeout).await.ok_or_else(|| anyhow::anyhow!("no answer within {timeout:?}"))?;
        if posted.kind != Kind::Response {
            anyhow::bail!("the function posted {:?}: {}", posted.kind, String::from_utf8_lossy(&posted.body));
        }
        Ok(posted)
    }

    /// When the function first asked for an invocation (its init was done).
    pub fn first_next(&self) -> Option<Instant> {
        *self.first_next.lock().unwrap()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.server.abort();
    }
}

async fn next(State(s): State<Shared>) -> Response {
    let arrived = Instant::now();
    s.first_next.lock().unwrap().get_or_insert(arrived);
    let Some((request_id, event)) = s.queue.lock().await.recv().await else {
        return (StatusCode::GONE, "shutting down").into_response();
    };
    let deadline = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default() + DEADLINE;
    let mut res = event.into_response();
    let headers = res.headers_mut();
    let arn = format!("arn:aws:lambda:eu-west-1:123456789012:function:{}", s.function_name);
    for (name, value) in [
        ("content-type", "application/json".to_owned()),
        ("lambda-runtime-aws-request-id", request_id),
        ("lambda-runtime-deadline-ms", deadline.as_millis().to_string()),
        ("lambda-runtime-invoked-function-arn", arn),
    ] {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.insert(name, v);
        }
    }
    res
}

fn record(s: &Shared, kind: Kind, body: Bytes) -> StatusCode {
    let _ = s.posted.send(Posted { kind, body, at: Instant::now() });
    StatusCode::ACCEPTED
}

async fn response(State(s): State<Shared>, Path(_id): Path<String>, body: Bytes) -> StatusCode {
    record(&s, Kind::Response, body)
}

async fn error(State(s): State<Shared>, Path(_id): Path<String>, body: Bytes) -> StatusCode {
    record(&s, Kind::Error, body)
}

async fn init_error(State(s): State<Shared>, body: Bytes) -> StatusCode {
    record(&s, Kind::InitError, body)
}
