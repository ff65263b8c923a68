//! `Receiver`: a webhook receiver on 127.0.0.1 that answers from a script per path and records
//! every request it gets into a channel, so tests wait for deliveries by polling it with a
//! timeout instead of sleeping.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How the receiver answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    Status(u16),
    /// Waits this long before answering (past the attempt timeout: no answer in time).
    Slow(Duration, u16),
    /// A redirect to another path of the receiver.
    Redirect(u16, &'static str),
    /// This status with this `Retry-After` value.
    RetryAfter(u16, &'static str),
    /// This status with this JSON body.
    Json(u16, &'static str),
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: Method,
    pub path: String,
    /// The raw query string (empty when none).
    pub query: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the delivery body is JSON")
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_else(|| panic!("no {name} header"))
    }
}

#[derive(Default)]
struct Script {
    /// Per path: the next answers, then the path's default (200 unless set).
    queued: HashMap<String, VecDeque<Reply>>,
    defaults: HashMap<String, Reply>,
}

pub struct Receiver {
    pub base: String,
    script: Arc<Mutex<Script>>,
    got: tokio::sync::Mutex<mpsc::UnboundedReceiver<Received>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    pub async fn start() -> Self {
        let script = Arc::new(Mutex::new(Script::default()));
        let (tx, rx) = mpsc::unbounded_channel();
        let s = script.clone();
        let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (script, tx) = (s.clone(), tx.clone());
            async move {
                let path = uri.path().to_owned();
                let query = uri.query().unwrap_or_default().to_owned();
                let reply = {
                    let mut script = script.lock().unwrap();
                    let next = script.queued.get_mut(&path).and_then(VecDeque::pop_front);
                    next.or_else(|| script.defaults.get(&path).cloned()).unwrap_or(Reply::Status(200))
                };
                let _ = tx.send(Received { method, path, query, headers, body, at: Instant::now() });
                answer(reply).await
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self { base, script, got: tokio::sync::Mutex::new(rx), task }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The next answers on `path`, in order; after them the path's default.
    pub fn script(&self, path: &str, replies: Vec<Reply>) {
        self.script.lock().unwrap().queued.insert(path.to_owned(), replies.into());
    }

    /// What `path` answers once its script is used up (200 unless set).
    pub fn always(&self, path: &str, reply: Reply) {
        self.script.lock().unwrap().defaults.insert(path.to_owned(), reply);
    }

    /// The next request, waiting at most `within`.
    pub async fn next(&self, within: Duration) -> Received {
        match tokio::time::timeout(within, self.got.lock().await.recv()).await {
            Ok(Some(r)) => r,
            _ => panic!("no request reached the receiver within {within:?}"),
        }
    }

    /// The next `n` requests, waiting at most `within` for all of them.
    pub async fn take(&self, n: usize, within: Duration) -> Vec<Received> {
        let deadline = Instant::now() + within;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.got.lock().await.recv()).await {
                Ok(Some(r)) => out.push(r),
                _ => panic!(
                    "only {} of {n} requests reached the receiver within {within:?}: {:?}",
                    out.len(),
                    paths(&out)
                ),
            }
        }
        out
    }

    /// Asserts that no request arrives within `within`.
    pub async fn expect_none(&self, within: Duration) {
        if let Ok(Some(r)) = tokio::time::timeout(within, self.got.lock().await.recv()).await {
            panic!("unexpected request to {}: {}", r.path, String::from_utf8_lossy(&r.body));
        }
    }
}

fn paths(got: &[Received]) -> Vec<&str> {
    got.iter().map(|r| r.path.as_str()).collect()
}

async fn answer(reply: Reply) -> Response {
    let status = |s: u16| StatusCode::from_u16(s).unwrap();
    match reply {
        Reply::Status(s) => (status(s), "ok").into_response(),
        Reply::Json(s, body) => (status(s), [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Reply::Slow(wait, s) => {
            tokio::time::sleep(wait).await;
            (status(s), "late").into_response()
        }
        Reply::RetryAfter(s, wait) => {
            let mut res = (status(s), "later").into_response();
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(wait));
            res
        }
        Reply::Redirect(s, to) => {
            let mut res = status(s).into_response();
            res.headers_mut().insert(header::LOCATION, HeaderValue::from_static(to));
            res
        }
    }
}
