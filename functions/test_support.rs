//! Test support shared by the function crates' tests, which include it with
//! `#[path = "../../test_support.rs"] mod support;`. It is a file rather than a crate because a
//! directory under `functions/` would be taken for a workspace member by the `functions/*` glob.
//!
//! The sample events under `events/<function>/` carry a placeholder key and chatbot id
//! (see `events/README.md`); tests load them, substitute real values and hand the resulting
//! API Gateway HTTP API (payload 2.0) event to the function's router, the way `lambda_http`
//! does on Lambda.

use axum::Router;
use http_body_util::BodyExt;
use lambda_http::http::{HeaderMap, StatusCode};
use lambda_http::request::LambdaRequest;
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{LimitsPatch, WorkspaceName};
use lore_http::RouteGroup;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;
use tower::ServiceExt;

/// The bearer key every sample event carries.
pub const SAMPLE_KEY: &str = "lore_sk_EXAMPLEexampleEXAMPLEexampleEXAMPLEexample000";
/// The chatbot id every sample event that names a chatbot carries.
pub const SAMPLE_CHATBOT_ID: &str = "cb_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The form id of the events that name a form.
pub const SAMPLE_FORM_ID: &str = "form_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The subscription id of the events that name one.
pub const SAMPLE_HOOK_ID: &str = "hook_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The delivery id of the events that name one.
pub const SAMPLE_DELIVERY_ID: &str = "dlv_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The workspace a [`Tenant`] owns.
pub const WORKSPACE_NAME: &str = "acme";

/// `events/` at the repository root.
pub fn events_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../events")
}

/// One sample event, as JSON text.
#[derive(Debug, Clone)]
pub struct Event(String);

impl Event {
    /// `events/<this crate>/<name>`.
    pub fn load(name: &str) -> Self {
        Self::load_from(env!("CARGO_PKG_NAME"), name)
    }

    /// `events/<function>/<name>`: another function's event.
    pub fn load_from(function: &str, name: &str) -> Self {
        let path = events_root().join(function).join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        Self(text)
    }

    /// An event given inline.
    pub fn from_json(json: &str) -> Self {
        Self(json.to_owned())
    }

    /// The event with `key` in place of the sample bearer key.
    pub fn with_key(&self, key: &str) -> Self {
        assert!(self.0.contains(SAMPLE_KEY), "the event carries no sample key to replace");
        Self(self.0.replace(SAMPLE_KEY, key))
    }

    /// The event with `id` in place of the sample chatbot id (path, route parameters).
    pub fn with_chatbot_id(&self, id: &str) -> Self {
        assert!(self.0.contains(SAMPLE_CHATBOT_ID), "the event carries no sample chatbot id to replace");
        Self(self.0.replace(SAMPLE_CHATBOT_ID, id))
    }

    /// The event with `value` in place of every `placeholder` (ids, URLs, in the path, the
    /// route parameters and the body alike).
    pub fn with(&self, placeholder: &str, value: &str) -> Self {
        assert!(self.0.contains(placeholder), "the event carries no {placeholder} to replace");
        Self(self.0.replace(placeholder, value))
    }

    /// The event without an `authorization` header.
    pub fn without_authorization(&self) -> Self {
        let mut v: Value = serde_json::from_str(&self.0).expect("the event is JSON");
        let removed = v["headers"].as_object_mut().expect("the event has headers").remove("authorization");
        assert!(removed.is_some(), "the event carries no authorization header to remove");
        Self(v.to_string())
    }

    /// The event's `body` (its JSON text; empty when it has none).
    pub fn body(&self) -> String {
        let v: Value = serde_json::from_str(&self.0).expect("the event is JSON");
        v["body"].as_str().unwrap_or_default().to_owned()
    }

    /// The event with `body` as its body (not base64-encoded), `content-length` to match.
    pub fn with_body(&self, body: &str) -> Self {
        let mut v: Value = serde_json::from_str(&self.0).expect("the event is JSON");
        v["body"] = Value::from(body);
        v["isBase64Encoded"] = Value::from(false);
        v["headers"]["content-length"] = Value::from(body.len().to_string());
        Self(v.to_string())
    }

    /// The event with header `name` (lower case, as API Gateway hands them) set to `value`.
    pub fn with_header(&self, name: &str, value: &str) -> Self {
        let mut v: Value = serde_json::from_str(&self.0).expect("the event is JSON");
        v["headers"].as_object_mut().expect("the event has headers").insert(name.to_owned(), Value::from(value));
        Self(v.to_string())
    }

    pub fn json(&self) -> &str {
        &self.0
    }

    /// The request `lambda_http` hands the router for this event: the event must be taken for
    /// an API Gateway HTTP API (payload 2.0) event, not for one of the other sources it accepts.
    pub fn to_request(&self) -> lambda_http::Request {
        let event: LambdaRequest = serde_json::from_str(&self.0).expect("lambda_http accepts the event");
        assert!(
            matches!(event, LambdaRequest::ApiGatewayV2(_)),
            "the event must be read as API Gateway v2 (HTTP API), got {event:?}"
        );
        event.into()
    }
}

/// What the router answered.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The error code of an error envelope; panics on a success body.
    pub fn error_code(&self) -> &str {
        assert_eq!(self.body["status"], "error", "expected an error envelope: {}", self.body);
        self.body["error"]["code"].as_str().expect("error.code is a string")
    }

    /// Every JSON answer carries these, success or not (docs/api.md §2).
    pub fn assert_platform_headers(&self) {
        assert_eq!(self.header("content-type"), Some("application/json"), "{self:?}");
        assert!(self.header("x-request-id").is_some_and(|v| !v.is_empty()), "no x-request-id: {self:?}");
    }
}

/// Runs `event` through `router` in-process: status, headers and the body's bytes as sent
/// (pages, assets).
pub async fn invoke_raw(router: &Router, event: &Event) -> (StatusCode, HeaderMap, Vec<u8>) {
    let res = router.clone().oneshot(event.to_request()).await.expect("the router is infallible");
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.expect("the body can be read").to_bytes();
    (parts.status, parts.headers, bytes.to_vec())
}

/// Runs `event` through `router` in-process and reads the JSON answer.
/// Each of the `events` (file names under `events/`) is answered 401 `unauthorized` with
/// `WWW-Authenticate: Bearer` with its sample key (well formed, never issued), with no
/// `Authorization` header and with a key that is not one.
#[allow(dead_code)] // Not every function's tests use it.
pub async fn assert_every_event_needs_a_key(router: &Router, events: &[&str]) {
    for name in events {
        let unknown = invoke(router, &Event::load(name)).await;
        let missing = invoke(router, &Event::load(name).without_authorization()).await;
        let garbage = invoke(router, &Event::load(name).with_key("not-a-key")).await;
        for (what, reply) in [("sample key", unknown), ("no header", missing), ("garbage key", garbage)] {
            assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{name}, {what}: {reply:?}");
            assert_eq!(reply.error_code(), "unauthorized", "{name}, {what}");
            assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{name}, {what}");
        }
    }
}

pub async fn invoke(router: &Router, event: &Event) -> Reply {
    let res = router.clone().oneshot(event.to_request()).await.expect("the router is infallible");
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.expect("the body can be read").to_bytes();
    let body = serde_json::from_slice(&bytes)
        .unwrap_or_else(|e| panic!("the body is not JSON ({e}): {}", String::from_utf8_lossy(&bytes)));
    let reply = Reply { status: parts.status, headers: parts.headers, body };
    reply.assert_platform_headers();
    reply
}

/// A data dir with workspace [`WORKSPACE_NAME`] and a key holding every scope.
pub struct Tenant {
    pub dir: TempDir,
    pub workspace_id: String,
    /// The bearer key (`lore_sk_…`) with every scope.
    pub key: String,
    /// Its id (`key_…`).
    pub key_id: String,
}

/// The embedded use cases over a data dir, as a function composes them.
macro_rules! app {
    ($dir:expr) => {
        lore::compose::embedded($dir, "http://localhost:3000", &lore::compose::Overrides::default())
            .expect("the embedded composition opens")
            .app
    };
}

impl Tenant {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let app = app!(dir.path());
        let ws = app
            .create_workspace(WorkspaceName::parse(WORKSPACE_NAME).unwrap(), LimitsPatch::default())
            .await
            .expect("the workspace is created");
        let issued =
            app.create_key(ws.id.as_str(), ScopeSet::parse("all").unwrap(), None).await.expect("the key is created");
        Self {
            dir,
            workspace_id: ws.id.to_string(),
            key: issued.secret.expose().to_owned(),
            key_id: issued.key.id.to_string(),
        }
    }

    /// Another key of the workspace, with `scopes` (comma-separated, or `all`).
    pub async fn issue_key(&self, scopes: &str) -> String {
        let app = app!(self.dir.path());
        let issued = app
            .create_key(&self.workspace_id, ScopeSet::parse(scopes).unwrap(), None)
            .await
            .expect("the key is created");
        issued.secret.expose().to_owned()
    }

    /// The router a function serves, over this data dir.
    pub fn router(&self, group: RouteGroup) -> Router {
        lore::lambda::api_router(app!(self.dir.path()), &[group])
    }

    /// The same with the address rule lifted (`LORE_ALLOW_PRIVATE_NETWORK=true`), so that hook
    /// URLs may name 127.0.0.1 and no test has to name a public host.
    pub fn router_private(&self, group: RouteGroup) -> Router {
        let overrides = lore::compose::Overrides { allow_private_network: true, ..Default::default() };
        let app = lore::compose::embedded(self.dir.path(), "http://localhost:3000", &overrides)
            .expect("the embedded composition opens")
            .app;
        lore::lambda::api_router(app, &[group])
    }

    /// Fans out the outbox as the webhook dispatcher would (the functions run none); how many
    /// events.
    pub async fn fan_out(&self) -> usize {
        app!(self.dir.path()).fan_out_pending(100).await.expect("fan-out")
    }
}
