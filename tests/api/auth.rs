use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::json;
use std::time::{Duration, Instant};

/// Every chatbot route with the scope it needs. `{id}` is replaced by an existing chatbot.
const CHATBOT_ROUTES: &[(&str, &str, &str)] = &[
    ("GET", "/api/v1/chatbots", "chatbot:read"),
    ("POST", "/api/v1/chatbots", "chatbot:write"),
    ("GET", "/api/v1/chatbots/{id}", "chatbot:read"),
    ("PATCH", "/api/v1/chatbots/{id}", "chatbot:write"),
    ("DELETE", "/api/v1/chatbots/{id}", "chatbot:write"),
];

const ALL_SCOPES: &[&str] = &[
    "chatbot:read",
    "chatbot:write",
    "knowledge:read",
    "knowledge:write",
    "knowledge:search",
    "minds:read",
    "minds:write",
    "forms:read",
    "forms:write",
    "webhooks:write",
    "chat:write",
    "conversations:read",
    "workspace:admin",
];

#[tokio::test]
async fn requests_without_a_valid_key_are_unauthorized() {
    let t = TestApp::spawn().await;
    let bad_headers: Vec<Option<String>> = vec![
        None,
        Some(format!("Basic {}", t.dev_key)),
        Some("Bearer".into()),
        Some("Bearer ".into()),
        Some("Bearer lore_sk_tooshort".into()),
        Some(format!("Bearer lore_sk_{}", "A".repeat(43))),
        Some(format!("Token {}", t.dev_key)),
        Some(t.dev_key.clone()),
    ];
    for (method, path, _) in CHATBOT_ROUTES {
        let path = path.replace("{id}", "cb_01jq3z5v7b8c9d0e1f2g3h4j5k");
        for h in &bad_headers {
            let mut req = t.client.request(method.parse().unwrap(), t.url(&path));
            if let Some(h) = h {
                req = req.header("authorization", h);
            }
            let res = req.json(&json!({"name": "x"})).send().await.unwrap();
            assert_eq!(res.headers().get("www-authenticate").map(|v| v.to_str().unwrap()), Some("Bearer"), "{h:?}");
            let body = expect_error(res, 401, "unauthorized").await;
            assert!(body["error"].get("details").is_none());
        }
    }
    // Scheme names are case-insensitive (RFC 7235).
    let res = t.client.get(t.url("/api/v1/chatbots")).header("authorization", format!("bearer {}", t.dev_key)).send();
    assert_eq!(res.await.unwrap().status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn each_chatbot_route_checks_its_scope() {
    let t = TestApp::spawn().await;
    let owner = t.key("default", "all").await;
    for (method, path, scope) in CHATBOT_ROUTES {
        let others: Vec<&str> = ALL_SCOPES.iter().copied().filter(|s| s != scope).collect();
        let without = t.key("default", &others.join(",")).await;
        let only = t.key("default", scope).await;
        let id = t.create_chatbot(&owner, json!({"name": "scoped"})).await["id"].as_str().unwrap().to_owned();
        let path = path.replace("{id}", &id);
        let m: Method = method.parse().unwrap();

        let res = t.req(m.clone(), &path, &without).json(&json!({"name": "renamed"})).send().await.unwrap();
        let body = expect_error(res, 403, "insufficient_scope").await;
        assert_eq!(body["error"]["details"]["required"], *scope, "{method} {path}");

        let res = t.req(m, &path, &only).json(&json!({"name": "renamed"})).send().await.unwrap();
        let (status, body) = parts(res).await;
        assert!((200..300).contains(&status), "{method} {path} with {scope}: {status} {body}");
        assert_eq!(body["status"], "success");
    }
    t.stop().await;
}

#[tokio::test]
async fn other_workspaces_resources_are_not_found() {
    let t = TestApp::spawn().await;
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_a = t.dev_key.clone();
    let key_b = t.key(&ws_b, "all").await;
    let a = t.create_chatbot(&key_a, json!({"name": "Alpha bot"})).await;
    let id = a["id"].as_str().unwrap();
    let path = format!("/api/v1/chatbots/{id}");

    for m in [Method::GET, Method::PATCH, Method::DELETE] {
        let res = t.req(m.clone(), &path, &key_b).json(&json!({"name": "stolen"})).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    let (_, list) = parts(t.req(Method::GET, "/api/v1/chatbots", &key_b).send().await.unwrap()).await;
    assert_eq!(list["pagination"]["total"], 0);
    assert_eq!(list["chatbots"], json!([]));

    // A still has its chatbot, unchanged.
    let (status, body) = parts(t.req(Method::GET, &path, &key_a).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body["chatbot"]["name"], "Alpha bot");
    // Same slug in another workspace is fine: slugs are unique per workspace.
    let b = t.create_chatbot(&key_b, json!({"name": "Alpha bot"})).await;
    assert_eq!(b["slug"], a["slug"]);
    t.stop().await;
}

#[tokio::test]
async fn a_revoked_key_is_refused_within_five_seconds() {
    let t = TestApp::spawn().await;
    let key = t.key("default", "chatbot:read").await;
    let res = t.req(Method::GET, "/api/v1/chatbots", &key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let key_id = t.key_id(&key).await;
    t.app.revoke_key(&key_id).await.unwrap();

    let revoked_at = Instant::now();
    loop {
        let res = t.req(Method::GET, "/api/v1/chatbots", &key).send().await.unwrap();
        if res.status() == 401 {
            expect_error(res, 401, "unauthorized").await;
            break;
        }
        assert!(revoked_at.elapsed() < Duration::from_secs(5), "revoked key still accepted after 5 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Other keys are unaffected.
    assert_eq!(t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).send().await.unwrap().status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn verify_reports_workspace_and_key_for_any_valid_key() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("zapier-test", LimitsPatch::default()).await;
    let key = t.key(&ws, "forms:read").await;
    let (status, body) =
        parts(t.req(Method::GET, "/api/integrations/webhooks/auth/verify", &key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "success");
    assert_eq!(body["workspace"], json!({"id": ws, "name": "zapier-test"}));
    assert_eq!(body["key"]["scopes"], json!(["forms:read"]));
    assert!(body["key"]["id"].as_str().unwrap().starts_with("key_"));
    let res = t.client.get(t.url("/api/integrations/webhooks/auth/verify")).send().await.unwrap();
    expect_error(res, 401, "unauthorized").await;
    t.stop().await;
}

/// The scope each operation documents (its `security` requirement in the served OpenAPI
/// document) is the scope its route enforces: with every other scope the answer is 403 naming
/// exactly that scope, with that scope alone it is not 403. Operations that accept any key are
/// never 403. So the document cannot drift from the extractors (`Authed<…>`).
#[tokio::test]
async fn every_operation_enforces_the_scope_it_documents() {
    let t = TestApp::spawn().await;
    let doc: serde_json::Value =
        t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        // Any id: the scope is checked before the path is read.
        let concrete = path.split('/').map(|seg| if seg.starts_with('{') { "x" } else { seg }).collect::<Vec<_>>();
        let concrete = concrete.join("/");
        for (method, op) in item.as_object().unwrap() {
            let Ok(m) = method.to_uppercase().parse::<Method>() else { continue };
            let Some(requirements) = op["security"].as_array() else { continue };
            let Some(scopes) = requirements.iter().find_map(|r| r.get("bearer")?.as_array()) else { continue };
            let documented: Vec<&str> = scopes.iter().filter_map(|s| s.as_str()).collect();
            match documented.as_slice() {
                [] => {
                    let any = t.key("default", "forms:read").await;
                    let res = t.req(m.clone(), &concrete, &any).json(&json!({})).send().await.unwrap();
                    assert_ne!(res.status(), 403, "{method} {path} accepts any key");
                }
                [scope] => {
                    let others: Vec<&str> = ALL_SCOPES.iter().copied().filter(|s| s != scope).collect();
                    let without = t.key("default", &others.join(",")).await;
                    let res = t.req(m.clone(), &concrete, &without).json(&json!({})).send().await.unwrap();
                    let body = expect_error(res, 403, "insufficient_scope").await;
                    assert_eq!(body["error"]["details"]["required"], *scope, "{method} {path}");
                    let only = t.key("default", scope).await;
                    let res = t.req(m.clone(), &concrete, &only).json(&json!({})).send().await.unwrap();
                    assert_ne!(res.status(), 403, "{method} {path} with {scope} alone");
                }
                more => panic!("{method} {path} documents several scopes: {more:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} operations checked");
    t.stop().await;
}

// ---- The console's session (docs/console.md, "The key and the session") ----------------------

const SESSION: &str = "/api/v1/console/session";

/// `POST /api/v1/console/session` with `key`, as the console sends it: `(status, Set-Cookie)`.
async fn open_console_session(t: &TestApp, key: &str) -> (u16, Option<String>) {
    let res = t.req(Method::POST, SESSION, key).header("x-lore-console", "1").send().await.unwrap();
    let cookie = res.headers().get("set-cookie").map(|v| v.to_str().unwrap().to_owned());
    (res.status().as_u16(), cookie)
}

/// A request with the session cookie of `key`, and `headers`.
fn with_console_cookie(t: &TestApp, path: &str, key: &str, headers: &[(&str, &str)]) -> reqwest::RequestBuilder {
    let mut req = t.client.get(t.url(path)).header("cookie", format!("lore_console={key}"));
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    req
}

#[tokio::test]
async fn console_session_sets_an_httponly_strict_cookie_and_only_the_consoles_calls_may_use_it() {
    let t = TestApp::spawn().await;
    let key = t.key("default", "chatbot:read,workspace:admin").await;
    let (status, cookie) = open_console_session(&t, &key).await;
    assert_eq!(status, 204);
    assert_eq!(
        cookie.as_deref(),
        Some(format!("lore_console={key}; HttpOnly; Secure; SameSite=Strict; Path=/api; Max-Age=28800").as_str())
    );

    // The console's own call: the cookie, its header, from this origin.
    let console = [("x-lore-console", "1"), ("sec-fetch-site", "same-origin")];
    let res = with_console_cookie(&t, "/api/v1/chatbots", &key, &console).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = with_console_cookie(&t, "/api/integrations/webhooks/auth/verify", &key, &console[..1]);
    let who: serde_json::Value = res.send().await.unwrap().json().await.unwrap();
    assert_eq!(who["key"]["scopes"], json!(["chatbot:read", "workspace:admin"]), "the key's scopes, no more");
    // The key's scopes stay its own.
    let res = with_console_cookie(&t, "/api/v1/minds", &key, &console).send().await.unwrap();
    expect_error(res, 403, "insufficient_scope").await;

    // The cookie alone, a wrong header, or another site: no credential.
    for headers in [
        &[][..],
        &[("x-lore-console", "0")][..],
        &[("x-lore-console", "1"), ("sec-fetch-site", "cross-site")][..],
        &[("x-lore-console", "1"), ("sec-fetch-site", "same-site")][..],
        &[("x-lore-console", "1"), ("sec-fetch-site", "none")][..],
    ] {
        let res = with_console_cookie(&t, "/api/v1/chatbots", &key, headers).send().await.unwrap();
        expect_error(res, 401, "unauthorized").await;
    }
    // A second cookie of the name (one a page's script could add) shadows nothing: none is used.
    let res = t
        .client
        .get(t.url("/api/v1/chatbots"))
        .header("cookie", format!("lore_console={}; lore_console={key}", t.dev_key))
        .header("x-lore-console", "1")
        .send()
        .await
        .unwrap();
    expect_error(res, 401, "unauthorized").await;
    // An Authorization header is the credential whenever there is one.
    let res = with_console_cookie(&t, "/api/v1/chatbots", &key, &console)
        .header("authorization", "Bearer lore_sk_not_a_key_at_all_not_a_key_at_all_xx")
        .send();
    expect_error(res.await.unwrap(), 401, "unauthorized").await;

    // Signing out clears the cookie (needs the console's header, no key).
    let res = t.client.delete(t.url(SESSION)).header("x-lore-console", "1").send().await.unwrap();
    assert_eq!(res.status(), 204);
    let cleared = res.headers().get("set-cookie").unwrap().to_str().unwrap();
    assert_eq!(cleared, "lore_console=; HttpOnly; Secure; SameSite=Strict; Path=/api; Max-Age=0");
    let res = t.client.delete(t.url(SESSION)).send().await.unwrap();
    expect_error(res, 401, "unauthorized").await;
    t.stop().await;
}

#[tokio::test]
async fn console_session_is_refused_to_bad_keys_and_ends_with_its_key() {
    let t = TestApp::spawn().await;
    // An invalid key, or none: the usual 401, no cookie.
    for key in ["lore_sk_tooshort", &format!("lore_sk_{}", "A".repeat(43))] {
        let (status, cookie) = open_console_session(&t, key).await;
        assert_eq!((status, cookie), (401, None), "{key}");
    }
    let res = t.client.post(t.url(SESSION)).header("x-lore-console", "1").send().await.unwrap();
    assert!(res.headers().get("set-cookie").is_none());
    expect_error(res, 401, "unauthorized").await;
    // A good key, but not from the console (no header, or another site): no cookie.
    let res = t.req(Method::POST, SESSION, &t.dev_key).send().await.unwrap();
    assert!(res.headers().get("set-cookie").is_none());
    expect_error(res, 401, "unauthorized").await;
    let res =
        t.req(Method::POST, SESSION, &t.dev_key).header("x-lore-console", "1").header("sec-fetch-site", "cross-site");
    let res = res.send().await.unwrap();
    assert!(res.headers().get("set-cookie").is_none());
    expect_error(res, 401, "unauthorized").await;

    // A revoked key's session is refused from then on.
    let key = t.key("default", "chatbot:read").await;
    assert_eq!(open_console_session(&t, &key).await.0, 204);
    let console = [("x-lore-console", "1")];
    assert_eq!(with_console_cookie(&t, "/api/v1/chatbots", &key, &console).send().await.unwrap().status(), 200);
    let id = t.key_id(&key).await;
    let res = t.req(Method::DELETE, &format!("/api/v1/keys/{id}"), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let res = with_console_cookie(&t, "/api/v1/chatbots", &key, &console).send().await.unwrap();
    expect_error(res, 401, "unauthorized").await;
    t.stop().await;
}
