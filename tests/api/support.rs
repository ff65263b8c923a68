//! `TestApp`: the real `lore serve` composition on a free port and a fresh data dir; tests talk
//! to it over a socket like any client would.

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
    running: Option<lore::serve::Running>,
    _dir: tempfile::TempDir,
}

impl TestApp {
    pub async fn spawn() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let config = lore::serve::ServeConfig {
            addr: "127.0.0.1:0".parse().unwrap(),
            data_dir: dir.path().to_path_buf(),
            backend: lore::compose::Backend::Local,
        };
        let running = lore::serve::start(config).await.expect("server starts");
        let dev_key = running.new_dev_key.clone().expect("an empty data dir bootstraps a dev key");
        Self {
            base: format!("http://{}", running.addr),
            client: reqwest::Client::new(),
            dev_key,
            app: running.app.clone(),
            running: Some(running),
            _dir: dir,
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
