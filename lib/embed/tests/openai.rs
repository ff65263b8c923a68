//! The OpenAI provider against a stub OpenAI-compatible server on 127.0.0.1.

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use lore_embed::batch::estimate_tokens;
use lore_embed::{EmbedError, Embedder, OpenAiEmbedder, OpenAiEmbedderConfig};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const DIMS: usize = 8;

// ---------------------------------------------------------------- the stub server

#[derive(Clone, Debug)]
enum Reply {
    /// A correct response, its `data` in shuffled order.
    Embeddings,
    /// A response whose vectors have this many dimensions.
    Dimensions(usize),
    /// One vector fewer than inputs.
    MissingOne,
    /// Every item carries index 0.
    RepeatedIndex,
    /// 200 with a body that is not JSON.
    NotJson,
    /// An error status with a body and extra headers.
    Error { status: u16, body: String, headers: Vec<(&'static str, &'static str)> },
}

fn error(status: u16, kind: &str, message: &str) -> Reply {
    let body = json!({"error": {"message": message, "type": kind, "param": null, "code": null}}).to_string();
    Reply::Error { status, body, headers: vec![] }
}

#[derive(Debug, Clone)]
struct Recorded {
    path: String,
    authorization: Option<String>,
    body: Value,
    inputs: Vec<String>,
    /// The order of `index` values in the response, when one was sent.
    response_order: Vec<usize>,
}

#[derive(Default)]
struct StubState {
    requests: Vec<Recorded>,
    /// Replies used in order; when empty, `fallback`.
    script: VecDeque<Reply>,
    fallback: Option<Reply>,
}

#[derive(Clone)]
struct Stub {
    state: Arc<Mutex<StubState>>,
    base_url: String,
}

impl Stub {
    /// A stub replying `script` in order, then `fallback` (default: correct embeddings).
    async fn start(script: Vec<Reply>, fallback: Option<Reply>) -> Self {
        let state = Arc::new(Mutex::new(StubState { requests: vec![], script: script.into(), fallback }));
        let app = Router::new()
            .route("/v1/embeddings", post(embeddings))
            .layer(DefaultBodyLimit::max(64 * 1024 * 1024))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self { state, base_url: format!("http://{addr}/v1") }
    }

    fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    fn input_counts(&self) -> Vec<usize> {
        self.requests().iter().map(|r| r.inputs.len()).collect()
    }

    fn embedder(&self) -> OpenAiEmbedder {
        OpenAiEmbedder::new(test_config(&self.base_url)).unwrap()
    }
}

fn test_config(base_url: &str) -> OpenAiEmbedderConfig {
    OpenAiEmbedderConfig {
        base_url: base_url.to_owned(),
        dimensions: DIMS,
        max_retries: 3,
        initial_backoff: Duration::from_millis(1),
        max_backoff: Duration::from_millis(4),
        request_timeout: Duration::from_secs(20),
        ..OpenAiEmbedderConfig::new("sk-test")
    }
}

/// Deterministic, deliberately not normalised, vector of a text.
fn stub_vector(text: &str, dims: usize) -> Vec<f32> {
    let mut h = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    (0..dims)
        .map(|_| {
            h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((h >> 40) as f32 / (1u64 << 24) as f32) * 6.0 - 3.0
        })
        .collect()
}

fn unit(v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

async fn embeddings(
    State(state): State<Arc<Mutex<StubState>>>,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let inputs: Vec<String> = match &json["input"] {
        Value::Array(items) => items.iter().map(|i| i.as_str().unwrap_or_default().to_owned()).collect(),
        Value::String(s) => vec![s.clone()],
        _ => vec![],
    };
    let mut state = state.lock().unwrap();
    let reply = state.script.pop_front().or_else(|| state.fallback.clone()).unwrap_or(Reply::Embeddings);
    let mut recorded = Recorded {
        path: uri.path().to_owned(),
        authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned),
        body: json.clone(),
        inputs: inputs.clone(),
        response_order: vec![],
    };
    let dims = match &reply {
        Reply::Dimensions(d) => *d,
        _ => DIMS,
    };
    let response = match reply {
        Reply::Error { status, body, headers } => {
            let mut response = (StatusCode::from_u16(status).unwrap(), body).into_response();
            for (name, value) in headers {
                response.headers_mut().insert(name, value.parse().unwrap());
            }
            response
        }
        Reply::NotJson => (StatusCode::OK, "<html>gateway</html>").into_response(),
        reply => {
            // Shuffle deterministically: order by a multiplicative hash of the index.
            let mut order: Vec<usize> = (0..inputs.len()).collect();
            order.sort_by_key(|&i| (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40);
            if matches!(reply, Reply::MissingOne) {
                order.pop();
            }
            let data: Vec<Value> = order
                .iter()
                .map(|&i| {
                    let index = if matches!(reply, Reply::RepeatedIndex) { 0 } else { i };
                    json!({"object": "embedding", "index": index, "embedding": stub_vector(&inputs[i], dims)})
                })
                .collect();
            recorded.response_order = order;
            let model = json["model"].clone();
            let body = json!({"object": "list", "model": model, "data": data,
                "usage": {"prompt_tokens": 1, "total_tokens": 1}});
            (StatusCode::OK, [("content-type", "application/json")], body.to_string()).into_response()
        }
    };
    state.requests.push(recorded);
    response
}

fn strings(texts: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    texts.into_iter().map(Into::into).collect()
}

fn assert_vectors_match(texts: &[String], vectors: &[Vec<f32>]) {
    assert_eq!(texts.len(), vectors.len());
    for (text, v) in texts.iter().zip(vectors) {
        let expected = unit(stub_vector(text, DIMS));
        assert!(v.iter().zip(&expected).all(|(a, b)| (a - b).abs() < 1e-6), "vector of {text:?} is not its own");
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
    }
}

// ---------------------------------------------------------------- batching and order

#[tokio::test]
async fn many_short_inputs_go_in_requests_of_at_most_2048() {
    let stub = Stub::start(vec![], None).await;
    let texts = strings((0..5000).map(|i| format!("short text number {i}")));
    let vectors = stub.embedder().embed(&texts).await.unwrap();
    assert_eq!(stub.input_counts(), vec![2048, 2048, 904]);
    // Sent in order, each input once.
    let sent: Vec<String> = stub.requests().into_iter().flat_map(|r| r.inputs).collect();
    assert_eq!(sent, texts);
    assert_vectors_match(&texts, &vectors);
}

#[tokio::test]
async fn long_inputs_are_truncated_and_split_by_the_token_budget() {
    let stub = Stub::start(vec![], None).await;
    // 40 inputs of 40,000 ASCII characters: each cut to 32,764 characters (8191 estimated tokens);
    // 300,000 / 8191 = 36 inputs per request.
    let texts = strings((0..40).map(|i| format!("{i:02} ") + &"lorem ipsum ".repeat(3_333)));
    assert!(texts.iter().all(|t| t.len() == 39_999));
    let vectors = stub.embedder().embed(&texts).await.unwrap();
    assert_eq!(stub.input_counts(), vec![36, 4]);
    let requests = stub.requests();
    for request in &requests {
        assert!(request.inputs.iter().all(|i| i.len() == 32_764));
        assert!(request.inputs.iter().map(|i| estimate_tokens(i)).sum::<usize>() <= 300_000);
    }
    let truncated: Vec<String> = texts.iter().map(|t| t[..32_764].to_owned()).collect();
    let sent: Vec<String> = requests.into_iter().flat_map(|r| r.inputs).collect();
    assert_eq!(sent, truncated);
    assert_vectors_match(&truncated, &vectors);
}

#[tokio::test]
async fn mixed_inputs_respect_a_custom_token_budget() {
    let stub = Stub::start(vec![], None).await;
    let mut config = test_config(&stub.base_url);
    config.limits.max_request_tokens = 100;
    config.limits.max_input_tokens = 60;
    let embedder = OpenAiEmbedder::new(config).unwrap();
    // Estimated tokens: 10, 50, 60 (cut from 75), 1, 40, 30, 25.
    let lengths = [40, 200, 300, 3, 160, 120, 100];
    let texts = strings(lengths.iter().enumerate().map(|(i, n)| format!("{i}").repeat(*n)));
    let vectors = embedder.embed(&texts).await.unwrap();
    assert_eq!(vectors.len(), 7);
    assert_eq!(stub.input_counts(), vec![2, 2, 3]);
    for request in stub.requests() {
        assert!(request.inputs.iter().map(|i| estimate_tokens(i)).sum::<usize>() <= 100);
    }
}

#[tokio::test]
async fn order_is_restored_by_index_and_vectors_are_normalised() {
    let stub = Stub::start(vec![], None).await;
    let texts = strings((0..12).map(|i| format!("passage {i}")));
    let vectors = stub.embedder().embed(&texts).await.unwrap();
    let order = &stub.requests()[0].response_order;
    assert_ne!(order, &(0..12).collect::<Vec<_>>(), "the stub must shuffle");
    assert_vectors_match(&texts, &vectors);
}

#[tokio::test]
async fn empty_inputs_are_not_sent() {
    let stub = Stub::start(vec![], None).await;
    let embedder = stub.embedder();
    assert!(embedder.embed(&[]).await.unwrap().is_empty());
    let only_empty = embedder.embed(&strings(["", "  \n"])).await.unwrap();
    assert!(stub.requests().is_empty());

    let vectors = embedder.embed(&strings(["", "hello", "  "])).await.unwrap();
    assert_eq!(stub.input_counts(), vec![1]);
    assert_eq!(stub.requests()[0].inputs, vec!["hello"]);
    assert_vectors_match(&strings(["hello"]), &vectors[1..2]);
    for v in [&vectors[0], &vectors[2], &only_empty[0], &only_empty[1]] {
        assert_eq!(v.len(), DIMS);
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        assert_eq!(v, &vectors[0]);
    }
}

// ---------------------------------------------------------------- the request

#[tokio::test]
async fn sends_the_key_and_the_model() {
    let stub = Stub::start(vec![], None).await;
    let embedder = stub.embedder();
    assert_eq!(embedder.model_id(), "text-embedding-3-small@8");
    assert_eq!(embedder.dimensions(), DIMS);
    embedder.embed(&strings(["one", "two"])).await.unwrap();
    let request = &stub.requests()[0];
    assert_eq!(request.path, "/v1/embeddings");
    assert_eq!(request.authorization.as_deref(), Some("Bearer sk-test"));
    assert_eq!(request.body["model"], "text-embedding-3-small");
    assert_eq!(request.body["input"], json!(["one", "two"]));
    assert!(request.body.get("dimensions").is_none());
}

#[tokio::test]
async fn sends_the_dimensions_parameter_and_accepts_a_trailing_slash() {
    let stub = Stub::start(vec![], None).await;
    let config = OpenAiEmbedderConfig {
        base_url: format!("{}/", stub.base_url),
        model: "text-embedding-3-large".into(),
        request_dimensions: Some(DIMS as u32),
        api_key: "other-key".into(),
        ..test_config(&stub.base_url)
    };
    OpenAiEmbedder::new(config).unwrap().embed(&strings(["x"])).await.unwrap();
    let request = &stub.requests()[0];
    assert_eq!(request.body["model"], "text-embedding-3-large");
    assert_eq!(request.body["dimensions"], json!(DIMS));
    assert_eq!(request.authorization.as_deref(), Some("Bearer other-key"));
}

// ---------------------------------------------------------------- retries and errors

#[tokio::test]
async fn rate_limits_are_retried_until_success() {
    let limited = error(429, "requests", "Rate limit reached");
    let stub = Stub::start(vec![limited.clone(), limited], None).await;
    let texts = strings(["a text", "another"]);
    let vectors = stub.embedder().embed(&texts).await.unwrap();
    assert_eq!(stub.input_counts(), vec![2, 2, 2]);
    let requests = stub.requests();
    assert!(requests.iter().all(|r| r.inputs == texts), "each retry re-sends the same batch");
    assert_vectors_match(&texts, &vectors);
}

#[tokio::test]
async fn retry_after_replaces_the_backoff() {
    // A backoff of an hour: only the server's `Retry-After: 0` lets this finish.
    let limited = Reply::Error { status: 429, body: "slow down".into(), headers: vec![("retry-after", "0")] };
    let stub = Stub::start(vec![limited], None).await;
    let config = OpenAiEmbedderConfig {
        initial_backoff: Duration::from_secs(3600),
        max_backoff: Duration::from_secs(3600),
        ..test_config(&stub.base_url)
    };
    let embedder = OpenAiEmbedder::new(config).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), embedder.embed(&strings(["x"]))).await;
    assert!(result.expect("Retry-After was not honoured").is_ok());
    assert_eq!(stub.requests().len(), 2);
}

#[tokio::test]
async fn unauthorized_is_permanent_after_one_request() {
    let stub = Stub::start(vec![], Some(error(401, "invalid_request_error", "Incorrect API key provided"))).await;
    let err = stub.embedder().embed(&strings(["x"])).await.unwrap_err();
    assert!(
        matches!(&err, EmbedError::Permanent(m) if m.contains("401") && m.contains("Incorrect API key")),
        "{err:?}"
    );
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn other_client_errors_are_permanent_at_once() {
    for status in [400, 403, 404, 422] {
        let stub = Stub::start(vec![], Some(error(status, "invalid_request_error", "no"))).await;
        let err = stub.embedder().embed(&strings(["x"])).await.unwrap_err();
        assert!(matches!(err, EmbedError::Permanent(_)), "{status}: {err:?}");
        assert_eq!(stub.requests().len(), 1, "{status}");
    }
}

#[tokio::test]
async fn insufficient_quota_is_permanent() {
    let stub = Stub::start(vec![], Some(error(429, "insufficient_quota", "You exceeded your current quota"))).await;
    let err = stub.embedder().embed(&strings(["x"])).await.unwrap_err();
    assert!(matches!(&err, EmbedError::Permanent(m) if m.contains("quota")), "{err:?}");
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn server_errors_exhaust_the_retries() {
    let failing = Reply::Error { status: 500, body: "internal error".into(), headers: vec![] };
    let stub = Stub::start(vec![], Some(failing.clone())).await;
    let err = stub.embedder().embed(&strings(["x"])).await.unwrap_err();
    assert!(matches!(&err, EmbedError::Unavailable(m) if m.contains("500")), "{err:?}");
    assert_eq!(stub.requests().len(), 4, "max_retries (3) + 1");

    let stub = Stub::start(vec![], Some(failing)).await;
    let config = OpenAiEmbedderConfig { max_retries: 0, ..test_config(&stub.base_url) };
    let err = OpenAiEmbedder::new(config).unwrap().embed(&strings(["x"])).await.unwrap_err();
    assert!(matches!(err, EmbedError::Unavailable(_)));
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn a_mix_of_transient_errors_is_retried() {
    let script = vec![
        Reply::Error { status: 503, body: "unavailable".into(), headers: vec![] },
        error(429, "requests", "Rate limit reached"),
        Reply::Error { status: 502, body: "".into(), headers: vec![("retry-after-ms", "1")] },
    ];
    let stub = Stub::start(script, None).await;
    stub.embedder().embed(&strings(["x"])).await.unwrap();
    assert_eq!(stub.requests().len(), 4);
}

#[tokio::test]
async fn a_failure_in_a_later_batch_fails_the_call() {
    let stub = Stub::start(vec![Reply::Embeddings], Some(error(401, "invalid_request_error", "revoked"))).await;
    let texts = strings((0..3000).map(|i| format!("t{i}")));
    let err = stub.embedder().embed(&texts).await.unwrap_err();
    assert!(matches!(err, EmbedError::Permanent(_)));
    assert_eq!(stub.input_counts(), vec![2048, 952]);
}

/// A TCP server that accepts connections and either closes them at once or holds them silently;
/// returns its base URL and the count of accepted connections.
async fn raw_server(close_at_once: bool) -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            if !close_at_once {
                held.push(socket);
            }
        }
    });
    (format!("http://{addr}/v1"), accepted)
}

#[tokio::test]
async fn connections_closed_without_a_response_are_retried() {
    let (base_url, accepted) = raw_server(true).await;
    let config = OpenAiEmbedderConfig { max_retries: 2, ..test_config(&base_url) };
    let err = OpenAiEmbedder::new(config).unwrap().embed(&strings(["x"])).await.unwrap_err();
    assert!(
        matches!(&err, EmbedError::Unavailable(m) if m.contains("transport") && m.contains("3 attempts")),
        "{err:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn timeouts_are_retried() {
    let (base_url, accepted) = raw_server(false).await;
    let config =
        OpenAiEmbedderConfig { max_retries: 1, request_timeout: Duration::from_millis(200), ..test_config(&base_url) };
    let err = OpenAiEmbedder::new(config).unwrap().embed(&strings(["x"])).await.unwrap_err();
    assert!(
        matches!(&err, EmbedError::Unavailable(m) if m.contains("transport") && m.contains("2 attempts")),
        "{err:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_refused_connection_is_unavailable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener); // nothing listens there any more: connection refused
    let config = OpenAiEmbedderConfig { max_retries: 2, ..test_config(&format!("http://{addr}/v1")) };
    let err = OpenAiEmbedder::new(config).unwrap().embed(&strings(["x"])).await.unwrap_err();
    assert!(
        matches!(&err, EmbedError::Unavailable(m) if m.contains("transport") && m.contains("3 attempts")),
        "{err:?}"
    );
}

// ---------------------------------------------------------------- malformed responses

#[tokio::test]
async fn a_dimension_mismatch_is_permanent() {
    let stub = Stub::start(vec![], Some(Reply::Dimensions(DIMS + 1))).await;
    let err = stub.embedder().embed(&strings(["x", "y"])).await.unwrap_err();
    assert!(matches!(&err, EmbedError::Permanent(m) if m.contains("9 dimensions, expected 8")), "{err:?}");
    assert_eq!(stub.requests().len(), 1);
}

#[tokio::test]
async fn inconsistent_responses_are_permanent() {
    for reply in [Reply::MissingOne, Reply::RepeatedIndex, Reply::NotJson] {
        let stub = Stub::start(vec![], Some(reply.clone())).await;
        let err = stub.embedder().embed(&strings(["x", "y", "z"])).await.unwrap_err();
        assert!(matches!(err, EmbedError::Permanent(_)), "{reply:?}: {err:?}");
        assert_eq!(stub.requests().len(), 1, "{reply:?}");
    }
}

#[tokio::test]
async fn errors_do_not_leak_the_key() {
    let stub = Stub::start(vec![], Some(error(401, "invalid_request_error", "bad key"))).await;
    let err = stub.embedder().embed(&strings(["x"])).await.unwrap_err();
    assert!(!err.to_string().contains("sk-test"));
    assert!(!format!("{:?}", stub.embedder()).contains("sk-test"));
}
