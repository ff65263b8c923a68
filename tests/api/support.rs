//! `TestApp`: the real `lore serve` composition on a free port and a fresh data dir; tests talk
//! to it over a socket like any client would.
//!
//! With `LORE_TEST_BACKEND=aws` the server runs on the AWS backend instead: DynamoDB, S3, SQS and
//! EventBridge of the moto server at `LORE_TEST_MOTO_URL` (fresh, uniquely named resources per
//! test, created by bootstrap) and pgvector at `LORE_TEST_DATABASE_URL`. `scripts/test.sh` runs
//! the backend-independent tests both ways.

use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{LimitsPatch, WorkspaceName};
use reqwest::{Method, RequestBuilder, Response};
use serde_json::Value;

pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    /// The key `lore serve` bootstrapped (workspace `default`, every scope).
    pub dev_key: String,
    pub app: lore_app::App,
    store: Option<std::sync::Arc<lore_local::SqliteStore>>,
    /// On the AWS backend: the chunk index, and a queue with a copy of every published event.
    aws: Option<AwsView>,
    running: Option<lore::serve::Running>,
    _dir: tempfile::TempDir,
}

impl TestApp {
    pub async fn spawn() -> Self {
        Self::spawn_with(lore::compose::Overrides::default()).await
    }

    /// With the SSRF address rules lifted, so that test sites on 127.0.0.1 can be crawled.
    pub async fn spawn_private() -> Self {
        Self::spawn_with(lore::compose::Overrides { allow_private_network: true, ..Default::default() }).await
    }

    pub async fn spawn_with(mut overrides: lore::compose::Overrides) -> Self {
        // The built-in lexical embedder: fast and deterministic. MiniLM has its own tests.
        if overrides.embedder.is_none() {
            overrides.embedder = Some(std::sync::Arc::new(lore_embed::LocalEmbedder::new()));
        }
        // Document parsers run in the real binary (this process is the test harness).
        overrides.extract_child_program.get_or_insert_with(|| env!("CARGO_BIN_EXE_lore").into());
        let dir = tempfile::tempdir().expect("temp dir");
        let mut backend = lore::compose::Backend::Local;
        if std::env::var("LORE_TEST_BACKEND").as_deref() == Ok("aws") {
            backend = lore::compose::Backend::Aws;
            if overrides.aws.is_none() {
                overrides.aws = Some(aws_overrides().await);
            }
        }
        let database_url = overrides.aws.as_ref().and_then(|a| a.database_url.clone());
        let config = lore::serve::ServeConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            data_dir: dir.path().to_path_buf(),
            backend,
            overrides,
        };
        let running = lore::serve::start(config).await.expect("server starts");
        let aws = match (&running.aws, database_url) {
            (Some(backend), Some(url)) => {
                let tap = format!("{}-tap", backend.settings.table);
                Some(AwsView {
                    index: lore_pgvector::PgIndex::connect(&url).await.expect("pgvector"),
                    tap: backend.event_tap(&tap).await.expect("event tap"),
                    seen: Default::default(),
                })
            }
            _ => None,
        };
        let dev_key = running.new_dev_key.clone().expect("an empty data dir bootstraps a dev key");
        Self {
            base: format!("http://{}", running.addr),
            client: reqwest::Client::new(),
            dev_key,
            app: running.app.clone(),
            store: running.store.clone(),
            aws,
            running: Some(running),
            _dir: dir,
        }
    }

    /// The embedded store, for tests that look beneath the API (only on the embedded backend).
    pub fn store(&self) -> &std::sync::Arc<lore_local::SqliteStore> {
        self.store.as_ref().expect("this test reads the embedded store: it runs on the embedded backend only")
    }

    /// The server's data directory (the SQLite file and the blob folder on the embedded backend).
    pub fn data_dir(&self) -> &std::path::Path {
        self._dir.path()
    }

    /// The AWS adapters (table, bucket, SDK configuration) when the backend is AWS.
    pub fn aws_backend(&self) -> Option<&lore_aws::AwsBackend> {
        self.running.as_ref().and_then(|r| r.aws.as_ref())
    }

    /// The embedded store when the backend is the embedded one.
    pub fn embedded_store(&self) -> Option<&std::sync::Arc<lore_local::SqliteStore>> {
        self.store.as_ref()
    }

    /// The subscription store of whichever backend runs.
    pub fn hook_store(&self) -> std::sync::Arc<dyn lore_app::ports::HookStore> {
        match &self.running.as_ref().and_then(|r| r.aws.as_ref()) {
            Some(aws) => aws.ports.hooks.clone(),
            None => self.store().clone(),
        }
    }

    /// The key store of whichever backend runs.
    pub fn key_store(&self) -> std::sync::Arc<dyn lore_app::ports::KeyStore> {
        match &self.running.as_ref().and_then(|r| r.aws.as_ref()) {
            Some(aws) => aws.ports.keys.clone(),
            None => self.store().clone(),
        }
    }

    /// The delivery store (and webhook outbox) of whichever backend runs.
    pub fn delivery_store(&self) -> std::sync::Arc<dyn lore_app::ports::DeliveryStore> {
        match &self.running.as_ref().and_then(|r| r.aws.as_ref()) {
            Some(aws) => aws.ports.deliveries.clone(),
            None => self.store().clone(),
        }
    }

    /// A new workspace with the given limits; returns its id.
    pub async fn workspace(&self, name: &str, limits: LimitsPatch) -> String {
        let ws = self.app.create_workspace(WorkspaceName::parse(name).unwrap(), limits).await.expect("workspace");
        ws.id.to_string()
    }

    /// A new key of `workspace` (id or name) with `scopes` (`a,b` or `all`).
    pub async fn key(&self, workspace: &str, scopes: &str) -> String {
        let issued = self.app.create_key(workspace, ScopeSet::parse(scopes).unwrap(), None).await.expect("key");
        issued.secret.expose().to_owned()
    }

    /// The id of the key (`key_…`) as `auth/verify` reports it.
    pub async fn key_id(&self, key: &str) -> String {
        let res = self.req(Method::GET, "/api/integrations/webhooks/auth/verify", key).send().await.unwrap();
        let body: Value = res.json().await.unwrap();
        body["key"]["id"].as_str().expect("key id").to_owned()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A request with `Authorization: Bearer <key>`.
    pub fn req(&self, method: Method, path: &str, key: &str) -> RequestBuilder {
        self.client.request(method, self.url(path)).bearer_auth(key)
    }

    pub async fn create_chatbot(&self, key: &str, body: Value) -> Value {
        let res = self.req(Method::POST, "/api/v1/chatbots", key).json(&body).send().await.unwrap();
        let (status, json) = parts(res).await;
        assert_eq!(status, 201, "create chatbot: {json}");
        json["chatbot"].clone()
    }

    /// A chatbot of the dev key's workspace; returns its id.
    pub async fn chatbot(&self) -> String {
        self.create_chatbot(&self.dev_key, serde_json::json!({"name": "kb"})).await["id"].as_str().unwrap().to_owned()
    }

    /// Creates a source with a JSON body; returns status and body.
    pub async fn post_source(&self, key: &str, chatbot: &str, body: Value) -> (u16, Value) {
        let res = self.req(Method::POST, &format!("/api/v1/chatbots/{chatbot}/sources"), key).json(&body).send();
        parts(res.await.unwrap()).await
    }

    /// Uploads `bytes` as a multipart file source.
    pub async fn upload_source(&self, chatbot: &str, file_name: &str, bytes: Vec<u8>) -> (u16, Value) {
        let part = reqwest::multipart::Part::bytes(bytes).file_name(file_name.to_owned());
        let form = reqwest::multipart::Form::new().part("file", part);
        let res = self.req(Method::POST, &format!("/api/v1/chatbots/{chatbot}/sources"), &self.dev_key).multipart(form);
        parts(res.send().await.unwrap()).await
    }

    pub async fn source(&self, chatbot: &str, id: &str) -> Value {
        let res = self.req(Method::GET, &format!("/api/v1/chatbots/{chatbot}/sources/{id}"), &self.dev_key).send();
        let (status, body) = parts(res.await.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        body["source"].clone()
    }

    pub async fn process(&self, chatbot: &str, id: &str) -> (u16, Value) {
        let path = format!("/api/v1/chatbots/{chatbot}/sources/{id}/process");
        parts(self.req(Method::POST, &path, &self.dev_key).send().await.unwrap()).await
    }

    /// Polls the source until it leaves `processing` (or `pending`); fails after 60 s.
    pub async fn settle(&self, chatbot: &str, id: &str) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            let s = self.source(chatbot, id).await;
            if s["status"] == "ready" || s["status"] == "error" {
                return s;
            }
            assert!(std::time::Instant::now() < deadline, "source still {}: {s}", s["status"]);
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }

    pub async fn stats(&self, chatbot: &str) -> Value {
        let res = self.req(Method::GET, &format!("/api/v1/chatbots/{chatbot}/knowledge/stats"), &self.dev_key).send();
        let (status, body) = parts(res.await.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        body["stats"].clone()
    }

    /// The types of the events the dev workspace emitted, oldest first: the outbox of the
    /// embedded backend, or what EventBridge routed to the test's tap queue on AWS.
    pub async fn event_types(&self) -> Vec<String> {
        let ws = self.app.find_workspace("default").await.unwrap().id;
        let Some(aws) = &self.aws else {
            let events = self.store().list_events(&ws).await.unwrap();
            return events.iter().map(|e| e["eventType"].as_str().unwrap().to_owned()).collect();
        };
        // Drain the tap: an event published just before this call is on the queue within the wait.
        let mut seen = aws.seen.lock().await;
        loop {
            let batch = aws.tap.receive(10, std::time::Duration::from_secs(1)).await.expect("tap queue");
            if batch.is_empty() {
                break;
            }
            for m in batch {
                let event = lore_aws::parse_event(&m.body).expect("a Lore event");
                seen.push((event.id.to_string(), event.workspace_id.to_string(), event.event_type.as_str().to_owned()));
                aws.tap.delete(&m).await.expect("delete");
            }
        }
        // Event ids are monotonic ULIDs: their order is the order of emission.
        seen.sort();
        seen.iter().filter(|(_, w, _)| *w == ws.as_str()).map(|(_, _, t)| t.clone()).collect()
    }

    /// The texts of a source's chunks in order, from whichever index the backend has.
    pub async fn chunk_texts(&self, source: &str) -> Vec<String> {
        let id = lore_domain::id::SourceId::parse(source).expect("a source id");
        match &self.aws {
            Some(aws) => aws.index.chunk_texts(&id).await.unwrap(),
            None => self.store().chunk_texts(&id).await.unwrap(),
        }
    }

    pub async fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.stop().await.expect("clean shutdown");
        }
    }
}

/// Status and JSON body; asserts the JSON content type every response must carry.
pub async fn parts(res: Response) -> (u16, Value) {
    let status = res.status().as_u16();
    let ct = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert!(ct.starts_with("application/json"), "status {status}: content-type {ct:?}");
    assert!(res.headers().contains_key("x-request-id"), "status {status}: no x-request-id");
    let body = res.json::<Value>().await.expect("JSON body");
    (status, body)
}

/// Asserts the error envelope with `code` and returns the body.
pub async fn expect_error(res: Response, status: u16, code: &str) -> Value {
    let (got, body) = parts(res).await;
    assert_eq!(got, status, "{body}");
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    body
}

/// Forms and webhooks: receivers listen on 127.0.0.1, so these servers lift the address rule;
/// retries wait `schedule` (e.g. `200ms,200ms,200ms`) and an attempt gives up after `timeout`.
impl TestApp {
    pub async fn spawn_webhooks(schedule: &str) -> Self {
        Self::spawn_webhooks_with(schedule, std::time::Duration::from_secs(5)).await
    }

    pub async fn spawn_webhooks_with(schedule: &str, timeout: std::time::Duration) -> Self {
        Self::spawn_with(lore::compose::Overrides {
            allow_private_network: true,
            webhook_retry_schedule: Some(lore_domain::delivery::RetrySchedule::parse(schedule).unwrap()),
            webhook_timeout: Some(timeout),
            ..Default::default()
        })
        .await
    }

    /// `POST /api/v1/forms`; status and body.
    pub async fn create_form(&self, key: &str, body: Value) -> (u16, Value) {
        parts(self.req(Method::POST, "/api/v1/forms", key).json(&body).send().await.unwrap()).await
    }

    /// A form of the dev key's workspace; returns `form`.
    pub async fn form(&self, body: Value) -> Value {
        let (status, json) = self.create_form(&self.dev_key, body).await;
        assert_eq!(status, 201, "create form: {json}");
        json["form"].clone()
    }

    /// `POST …/triggers/subscribe`; status and body.
    pub async fn subscribe(&self, key: &str, body: Value) -> (u16, Value) {
        let res = self.req(Method::POST, "/api/integrations/webhooks/triggers/subscribe", key).json(&body);
        parts(res.send().await.unwrap()).await
    }

    /// A subscription of the dev key's workspace; returns the subscribe answer.
    pub async fn hook(&self, body: Value) -> Value {
        let (status, json) = self.subscribe(&self.dev_key, body).await;
        assert_eq!(status, 201, "subscribe: {json}");
        json
    }

    /// `POST /api/v1/forms/{id}/responses` with the dev key; status and body.
    pub async fn submit(&self, form: &str, body: Value) -> (u16, Value) {
        let res = self.req(Method::POST, &format!("/api/v1/forms/{form}/responses"), &self.dev_key).json(&body);
        parts(res.send().await.unwrap()).await
    }

    /// `GET …/deliveries?<query>` with the dev key; the body (asserts 200).
    pub async fn deliveries(&self, query: &str) -> Value {
        let res = self.req(Method::GET, &format!("/api/integrations/webhooks/deliveries?{query}"), &self.dev_key);
        let (status, body) = parts(res.send().await.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Polls the delivery log (`query`) until `done` holds for it; fails after 30 s.
    pub async fn wait_deliveries(&self, query: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let body = self.deliveries(query).await;
            if done(&body) {
                return body;
            }
            assert!(std::time::Instant::now() < deadline, "deliveries never settled: {body}");
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
    }
}

/// What a test sees of the AWS backend beyond the API.
struct AwsView {
    index: lore_pgvector::PgIndex,
    tap: lore_aws::SqsPoller,
    seen: tokio::sync::Mutex<Vec<(String, String, String)>>,
}

fn required_env(name: &str) -> String {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v.trim().trim_end_matches('/').to_owned(),
        _ => panic!("LORE_TEST_BACKEND=aws needs {name} (scripts/test.sh sets it)"),
    }
}

/// A backlog of events for a server to start on, and what draining as many messages takes the
/// queue service itself.
pub struct EventBacklog {
    pub aws: lore::compose::AwsOverrides,
    /// Receiving (ten at a time) and deleting (ten per request) the same number of messages of
    /// the same size from another queue, one request after the other: the queue's own floor.
    pub peer_drain: std::time::Duration,
}

/// Sends `bodies` to `queue`, ten per request, sixteen requests at once.
async fn send_all(sqs: &aws_sdk_sqs::Client, queue: &str, bodies: &[String]) {
    use aws_sdk_sqs::types::SendMessageBatchRequestEntry;
    use futures::StreamExt;
    let sends = bodies.chunks(10).map(|batch| {
        let entries = batch
            .iter()
            .enumerate()
            .map(|(i, b)| SendMessageBatchRequestEntry::builder().id(format!("m{i}")).message_body(b).build())
            .collect::<Result<Vec<_>, _>>()
            .expect("batch entries");
        sqs.send_message_batch().queue_url(queue).set_entries(Some(entries)).send()
    });
    let sent = futures::stream::iter(sends).buffer_unordered(16).collect::<Vec<_>>().await;
    assert!(sent.iter().all(Result::is_ok), "the messages are queued");
}

/// On the AWS backend (`LORE_TEST_BACKEND=aws`): fresh resources, created now, whose deliveries
/// queue holds `n` knowledge events of a workspace no one subscribed to — the message body the
/// event bus's rule delivers — before any server consumes it, and the peer drain measured on
/// another queue. `None` on the embedded backend.
pub async fn aws_with_event_backlog(n: usize) -> Option<EventBacklog> {
    use aws_sdk_sqs::types::DeleteMessageBatchRequestEntry;
    use lore_domain::event::{Event, EventType};
    if std::env::var("LORE_TEST_BACKEND").as_deref() != Ok("aws") {
        return None;
    }
    let aws = aws_overrides().await;
    lore_aws::bootstrap(&aws.sdk, &aws.settings).await.expect("the test resources");
    let sqs = aws_sdk_sqs::Client::new(&aws.sdk);
    let lore_aws::QueueRef::Name(name) = &aws.settings.deliveries_queue else { unreachable!("named above") };
    let url = |name: String| {
        let sqs = sqs.clone();
        async move { sqs.create_queue().queue_name(name).send().await.expect("a queue").queue_url.unwrap() }
    };
    let deliveries = url(name.clone()).await;
    let peer = url(format!("{name}-peer")).await;
    let ws = lore_domain::id::WorkspaceId::generate();
    let bodies: Vec<String> = (0..n)
        .map(|i| {
            let event =
                Event::new(EventType::SourceReady, ws.clone(), serde_json::json!({"sourceId": format!("src_b{i}")}));
            serde_json::json!({
                "detail-type": event.event_type.as_str(),
                "source": "lore",
                "detail": lore_aws::event_detail(&event),
            })
            .to_string()
        })
        .collect();
    send_all(&sqs, &deliveries, &bodies).await;
    send_all(&sqs, &peer, &bodies).await;
    let started = std::time::Instant::now();
    let mut drained = 0;
    while drained < n {
        let got = sqs.receive_message().queue_url(&peer).max_number_of_messages(10).send().await.expect("receive");
        let messages = got.messages.unwrap_or_default();
        let entries = messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                DeleteMessageBatchRequestEntry::builder()
                    .id(i.to_string())
                    .receipt_handle(m.receipt_handle.clone().unwrap_or_default())
                    .build()
            })
            .collect::<Result<Vec<_>, _>>()
            .expect("delete entries");
        if entries.is_empty() {
            continue;
        }
        drained += entries.len();
        sqs.delete_message_batch().queue_url(&peer).set_entries(Some(entries)).send().await.expect("delete");
    }
    Some(EventBacklog { aws, peer_drain: started.elapsed() })
}

/// On the AWS backend (`LORE_TEST_BACKEND=aws`): fresh resources for servers that share them (two
/// servers given the same overrides share one table, as Lambda instances do). `None` on the
/// embedded backend.
pub async fn aws_stack() -> Option<lore::compose::AwsOverrides> {
    if std::env::var("LORE_TEST_BACKEND").as_deref() != Ok("aws") {
        return None;
    }
    Some(aws_overrides().await)
}

/// moto's endpoint with static credentials, fresh resources named after a new id, bootstrap on;
/// the SDK clients share one HTTPS client, as in the functions.
async fn aws_overrides() -> lore::compose::AwsOverrides {
    let (moto, database) = (required_env("LORE_TEST_MOTO_URL"), required_env("LORE_TEST_DATABASE_URL"));
    lore::compose::AwsOverrides::local(&moto, &database, "lore-api").await
}

impl TestApp {
    /// A server whose embedder is OpenAI's client against a stub on 127.0.0.1 (`stub-embed`, 8
    /// dimensions, a vector per input made from its length: equal lengths modulo 8 are the same
    /// vector). `seen` gets each request's inputs before it is answered, to count or hold it.
    pub async fn with_stub_embedder<F, Fut>(seen: F) -> Self
    where
        F: Fn(Vec<String>) -> Fut + Clone + Send + Sync + 'static,
        Fut: std::future::Future<Output = ()> + Send,
    {
        let embed = move |axum::Json(body): axum::Json<Value>| {
            let seen = seen.clone();
            async move {
                let inputs: Vec<String> = match &body["input"] {
                    Value::String(s) => vec![s.clone()],
                    Value::Array(a) => a.iter().map(|v| v.as_str().unwrap_or_default().to_owned()).collect(),
                    _ => Vec::new(),
                };
                let data: Vec<Value> = inputs
                    .iter()
                    .enumerate()
                    .map(|(i, text)| {
                        let mut v = vec![0.1f32; 8];
                        v[text.len() % 8] = 1.0;
                        serde_json::json!({"object": "embedding", "index": i, "embedding": v})
                    })
                    .collect();
                seen(inputs).await;
                axum::Json(serde_json::json!({"object": "list", "data": data, "model": "stub-embed",
                    "usage": {"prompt_tokens": 1, "total_tokens": 1}}))
            }
        };
        let app = axum::Router::new().route("/v1/embeddings", axum::routing::post(embed));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let config = lore_embed::OpenAiEmbedderConfig {
            base_url,
            model: "stub-embed".into(),
            dimensions: 8,
            ..lore_embed::OpenAiEmbedderConfig::new("sk-test")
        };
        let embedder = std::sync::Arc::new(lore_embed::OpenAiEmbedder::new(config).unwrap());
        Self::spawn_with(lore::compose::Overrides { embedder: Some(embedder), ..Default::default() }).await
    }
}
