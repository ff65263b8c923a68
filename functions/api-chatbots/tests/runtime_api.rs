//! The built `api-chatbots` binary, run as Lambda runs it: against a Lambda Runtime API (a small
//! emulator here, on 127.0.0.1), fed the sample events of `events/api-chatbots/`, answering with
//! API Gateway HTTP API (payload 2.0) responses.

#[path = "../../minilm_layer.rs"]
mod minilm_layer;
#[path = "../../runtime_api.rs"]
mod runtime_api;
#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use runtime_api::{Function, Posted, RuntimeApi};
use serde_json::Value;
use support::{Event, Tenant};

const FUNCTION_NAME: &str = "api-chatbots";
const PROGRAM: &str = env!("CARGO_BIN_EXE_api-chatbots");

/// API Gateway answers of the function.
trait HttpInvoke {
    async fn http(&mut self, runtime: &mut RuntimeApi, request_id: &str, event: &Event) -> GatewayResponse;
}

impl HttpInvoke for Function {
    /// Like [`Self::invoke`], expecting a successful invocation, and reads its API Gateway v2 response.
    async fn http(&mut self, runtime: &mut RuntimeApi, request_id: &str, event: &Event) -> GatewayResponse {
        match self.invoke(runtime, request_id, event.json()).await {
            Posted::Response { request_id: id, body } => {
                assert_eq!(id, request_id, "the response is posted for the invocation it answers");
                GatewayResponse::parse(body)
            }
            other => panic!("expected a response to {request_id}, got {other:?}; the function's log:\n{}", self.log()),
        }
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
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let data_dir = tenant.dir.path().to_str().expect("a UTF-8 temp dir");
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &[("LORE_DATA_DIR", data_dir)]);
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
    match function.invoke(&mut runtime, "inv-6-not-http", not_http.json()).await {
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
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &[("LORE_BACKEND", "bogus")]);
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

/// The placeholder source id of the source events.
const SAMPLE_SOURCE_ID: &str = "src_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The text of `create-text-source.json`.
const SAMPLE_TEXT: &str = "Customers may return any unused product within 30 days of delivery for a full refund.";

/// `template.yaml`'s `Embedder=minilm`: the binary, given the layer's model directory, embeds with
/// all-MiniLM-L6-v2 what it ingests and what it is asked. The sources and the question share no
/// word, so only a semantic model ranks the right one first; the lexical embedder scores both 0.
#[tokio::test]
async fn binary_embeds_with_minilm_from_the_layer() {
    let layer = minilm_layer::build();
    embeds_from_the_layer(&layer, ("minilm", "LORE_MODEL_DIR"), None, 0.3).await;
}

/// `Embedder=e5`: the same with multilingual-e5-small from the E5Layer, asked in French of English
/// knowledge (the search event's question, translated).
#[tokio::test]
async fn binary_embeds_with_e5_from_the_layer() {
    let layer = minilm_layer::build_e5();
    let question = Some("Combien de temps ai-je pour renvoyer un article ?");
    // e5's cosines of unrelated texts are high (~0.7): only the ranking tells here.
    embeds_from_the_layer(&layer, ("e5", "LORE_E5_DIR"), question, 0.0).await;
}

/// Two sources ingested and a question asked through the function with `LORE_EMBEDDER=embedder`
/// and the layer's directory in `variable`; `question` replaces the search event's. The right
/// source must come first, above `min_best`.
async fn embeds_from_the_layer(
    layer: &minilm_layer::Layer,
    (embedder, variable): (&str, &str),
    question: Option<&str>,
    min_best: f64,
) {
    let tenant = Tenant::new().await;
    let mut runtime = RuntimeApi::start(FUNCTION_NAME).await;
    let data_dir = tenant.dir.path().to_str().expect("a UTF-8 temp dir");
    let model_dir = layer.model_dir.to_str().expect("a UTF-8 temp dir");
    let env = [("LORE_DATA_DIR", data_dir), ("LORE_EMBEDDER", embedder), (variable, model_dir)];
    let mut function = Function::spawn(&runtime, PROGRAM, FUNCTION_NAME, &env);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    let created = function.http(&mut runtime, "inv-1-create", &ev("create-chatbot.json")).await;
    assert_eq!(created.status, 201, "{:?}", created.raw);
    let bot = created.body["chatbot"]["id"].as_str().expect("chatbot.id").to_owned();
    let texts = [
        ("refunds", SAMPLE_TEXT),
        ("weather", "Heavy snowfall closed the mountain pass overnight and the ski lifts stayed shut"),
    ];
    let mut sources = Vec::new();
    for (i, (name, text)) in texts.iter().enumerate() {
        let event = ev("create-text-source.json").with_chatbot_id(&bot).with(SAMPLE_TEXT, text);
        let made = function.http(&mut runtime, &format!("inv-2-source-{i}"), &event).await;
        assert_eq!(made.status, 201, "{name}: {:?}", made.raw);
        let id = made.body["source"]["id"].as_str().expect("source.id").to_owned();
        let event = ev("process-source.json").with_chatbot_id(&bot).with(SAMPLE_SOURCE_ID, &id);
        let started = function.http(&mut runtime, &format!("inv-3-process-{i}"), &event).await;
        assert_eq!(started.status, 202, "{name}: {:?}", started.raw);
        sources.push(id);
    }
    // The embedded backend processes in the function's own process: poll the sources.
    for (i, id) in sources.iter().enumerate() {
        let event = ev("get-source.json").with_chatbot_id(&bot).with(SAMPLE_SOURCE_ID, id);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        for poll in 0.. {
            let got = function.http(&mut runtime, &format!("inv-4-get-{i}-{poll}"), &event).await;
            match got.body["source"]["status"].as_str() {
                Some("ready") => break,
                Some("pending" | "processing") if std::time::Instant::now() < deadline => {
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await
                }
                _ => panic!("source {i} did not become ready: {:?}\n{}", got.raw, function.log()),
            }
        }
    }

    let mut search = ev("search-knowledge.json").with_chatbot_id(&bot);
    if let Some(q) = question {
        search = search.with("How long do I have to send something back?", q);
    }
    let found = function.http(&mut runtime, "inv-5-search", &search).await;
    assert_eq!(found.status, 200, "{:?}", found.raw);
    let results = found.body["results"].as_array().expect("results");
    assert_eq!(results[0]["sourceId"], sources[0].as_str(), "the returns policy answers the question: {results:?}");
    let (best, other) = (results[0]["score"].as_f64().unwrap(), results.get(1).and_then(|r| r["score"].as_f64()));
    assert!(best > min_best, "a semantic match, not a lexical one: {results:?}");
    assert!(other.is_none_or(|o| o < best), "{results:?}");
}

/// A layer build whose download fails stops with an error and copies nothing (the model's
/// directory name is empty then: the copy must not run).
#[test]
fn a_layer_build_whose_download_fails_copies_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (cache, artifacts) = (dir.path().join("empty-cache"), dir.path().join("opt"));
    let cache = cache.to_str().unwrap();
    let out =
        minilm_layer::make(&dir.path().join("scratch"), &artifacts, &[("LORE_MODEL_DIR", cache), ("PYTHON", "false")]);
    assert!(!out.status.success(), "the build fails");
    assert!(!artifacts.exists(), "nothing was copied: {:?}", std::fs::read_dir(&artifacts).map(|d| d.count()));
}
