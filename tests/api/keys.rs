//! The workspace's keys (`workspace:admin`) and its usage (any key): docs/api.md §3.

use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};

async fn create_key(t: &TestApp, admin: &str, body: Value) -> (u16, Value) {
    parts(t.req(Method::POST, "/api/v1/keys", admin).json(&body).send().await.unwrap()).await
}

async fn list_keys(t: &TestApp, admin: &str) -> Value {
    let (status, body) = parts(t.req(Method::GET, "/api/v1/keys?limit=100", admin).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    body
}

async fn revoke(t: &TestApp, admin: &str, id: &str) -> (u16, Value) {
    parts(t.req(Method::DELETE, &format!("/api/v1/keys/{id}"), admin).send().await.unwrap()).await
}

/// The server that revoked a key refuses it from the next request on (other processes within
/// the key cache's 2 s).
async fn assert_refused(t: &TestApp, key: &str) {
    let res = t.req(Method::GET, "/api/integrations/webhooks/auth/verify", key).send().await.unwrap();
    expect_error(res, 401, "unauthorized").await;
}

#[tokio::test]
async fn an_admin_key_makes_lists_and_revokes_its_workspaces_keys() {
    let t = TestApp::spawn().await;
    let (status, made) =
        create_key(&t, &t.dev_key, json!({"name": "Zapier", "scopes": ["webhooks:write", "forms:read"]})).await;
    assert_eq!(status, 201, "{made}");
    let secret = made["secret"].as_str().unwrap().to_owned();
    assert!(secret.starts_with("lore_sk_"), "{made}");
    let key = &made["key"];
    assert_eq!(
        (key["name"].clone(), key["scopes"].clone(), key["revokedAt"].clone(), key["isCurrent"].clone()),
        (json!("Zapier"), json!(["forms:read", "webhooks:write"]), Value::Null, json!(false)),
        "{made}"
    );
    assert!(key.get("secret").is_none() && key.get("hash").is_none(), "{made}");
    let id = key["id"].as_str().unwrap().to_owned();
    assert_eq!(t.key_id(&secret).await, id, "the new key works at once");

    // It holds what it was given and no more: it cannot manage keys.
    let res = t.req(Method::GET, "/api/v1/keys", &secret).send().await.unwrap();
    let body = expect_error(res, 403, "insufficient_scope").await;
    assert_eq!(body["error"]["details"]["required"], "workspace:admin");

    // Listed newest first, the caller's own key marked; the secret is nowhere in the list.
    let listed = list_keys(&t, &t.dev_key).await;
    assert_eq!(listed["pagination"]["total"], 2, "{listed}");
    assert_eq!(listed["keys"][0]["id"], id.as_str());
    assert_eq!(listed["keys"][1]["isCurrent"], true);
    assert!(!listed.to_string().contains(&secret[8..]), "{listed}");

    // Another workspace sees none of it and cannot revoke it.
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    let their_list = list_keys(&t, &theirs).await;
    assert_eq!(their_list["pagination"]["total"], 1, "{their_list}");
    assert_eq!(revoke(&t, &theirs, &id).await.0, 404);
    assert_eq!(t.key_id(&secret).await, id, "still works after another workspace's attempt");

    // Revoked: refused from then on, still listed with the time; revoking again changes nothing.
    let (status, revoked) = revoke(&t, &t.dev_key, &id).await;
    assert_eq!(status, 200, "{revoked}");
    let at = revoked["key"]["revokedAt"].as_str().unwrap().to_owned();
    assert_refused(&t, &secret).await;
    let (status, again) = revoke(&t, &t.dev_key, &id).await;
    assert_eq!((status, again["key"]["revokedAt"].as_str()), (200, Some(at.as_str())), "{again}");
    assert_eq!(list_keys(&t, &t.dev_key).await["keys"][0]["revokedAt"], at.as_str());
    let (status, _) = revoke(&t, &t.dev_key, "key_01jq3z5v7b8c9d0e1f2g3h4j5k").await;
    assert_eq!(status, 404);
    let res = t.req(Method::DELETE, "/api/v1/keys/not-a-key", &t.dev_key).send().await.unwrap();
    expect_error(res, 404, "not_found").await;

    // An admin key may revoke itself: it signs itself out.
    let (_, admin) = create_key(&t, &t.dev_key, json!({"scopes": ["workspace:admin"]})).await;
    let (admin_secret, admin_id) = (admin["secret"].as_str().unwrap(), admin["key"]["id"].as_str().unwrap());
    assert!(admin["key"]["name"].as_str().unwrap().starts_with("key "), "{admin}");
    let (status, own) = revoke(&t, admin_secret, admin_id).await;
    assert_eq!((status, own["key"]["isCurrent"].clone()), (200, json!(true)), "{own}");
    assert_refused(&t, admin_secret).await;
    t.stop().await;
}

#[tokio::test]
async fn key_bodies_are_validated_with_the_field_named() {
    let t = TestApp::spawn().await;
    for (body, field) in [
        (json!({"name": "no scopes"}), "scopes"),
        (json!({"scopes": []}), "scopes"),
        (json!({"scopes": ["chatbot:read", "chatbot:admin"]}), "scopes"),
        (json!({"scopes": "all"}), "scopes"),
        (json!({"name": "", "scopes": ["chatbot:read"]}), "name"),
        (json!({"name": "x".repeat(101), "scopes": ["chatbot:read"]}), "name"),
    ] {
        let res = t.req(Method::POST, "/api/v1/keys", &t.dev_key).json(&body).send().await.unwrap();
        let err = expect_error(res, 400, "validation_error").await;
        assert!(err["error"]["details"]["fields"][field].is_string(), "{body}: {err}");
    }
    let res = t.req(Method::POST, "/api/v1/keys", &t.dev_key).json(&json!([])).send().await.unwrap();
    expect_error(res, 400, "invalid_json").await;
    assert_eq!(list_keys(&t, &t.dev_key).await["pagination"]["total"], 1, "nothing was made");
    t.stop().await;
}

#[tokio::test]
async fn a_workspace_has_at_most_its_cap_of_active_keys() {
    let t =
        TestApp::spawn_with(lore::compose::Overrides { max_keys_per_workspace: Some(3), ..Default::default() }).await;
    let body = json!({"scopes": ["chatbot:read"]});
    assert_eq!(create_key(&t, &t.dev_key, body.clone()).await.0, 201);
    let (_, second) = create_key(&t, &t.dev_key, body.clone()).await;
    let (status, refused) = create_key(&t, &t.dev_key, body.clone()).await;
    assert_eq!((status, refused["error"]["code"].clone()), (403, json!("keys_limit_reached")), "{refused}");
    // Revoked keys do not count.
    assert_eq!(revoke(&t, &t.dev_key, second["key"]["id"].as_str().unwrap()).await.0, 200);
    assert_eq!(create_key(&t, &t.dev_key, body).await.0, 201);
    let ws = parts(t.req(Method::GET, "/api/v1/workspace", &t.dev_key).send().await.unwrap()).await.1;
    assert_eq!((ws["limits"]["keysLimit"].clone(), ws["usage"]["activeKeys"].clone()), (json!(3), json!(3)), "{ws}");
    t.stop().await;
}

#[tokio::test]
async fn revoking_in_a_loop_keeps_only_the_newest_revoked_keys() {
    let overrides = lore::compose::Overrides { max_revoked_keys_per_workspace: Some(2), ..Default::default() };
    let t = TestApp::spawn_with(overrides).await;
    let body = json!({"scopes": ["chatbot:read"]});
    let mut made = Vec::new();
    for _ in 0..4 {
        let (status, key) = create_key(&t, &t.dev_key, body.clone()).await;
        assert_eq!(status, 201, "{key}");
        let (id, secret) = (key["key"]["id"].as_str().unwrap().to_owned(), key["secret"].as_str().unwrap().to_owned());
        assert_eq!(revoke(&t, &t.dev_key, &id).await.0, 200);
        made.push((id, secret));
    }
    // Four revoked, two kept: the last two revoked; the dev key untouched.
    let listed = list_keys(&t, &t.dev_key).await;
    let ids: Vec<&str> = listed["keys"].as_array().unwrap().iter().map(|k| k["id"].as_str().unwrap()).collect();
    assert_eq!(listed["pagination"]["total"], 3, "{listed}");
    assert!(ids.contains(&made[2].0.as_str()) && ids.contains(&made[3].0.as_str()), "{listed}");
    assert!(!ids.contains(&made[0].0.as_str()) && !ids.contains(&made[1].0.as_str()), "{listed}");
    // A deleted key is refused as a revoked one is, and revoking it again is not found.
    assert_refused(&t, &made[0].1).await;
    assert_eq!(revoke(&t, &t.dev_key, &made[0].0).await.0, 404);
    t.stop().await;
}

#[tokio::test]
async fn a_backlog_of_revoked_keys_shrinks_by_at_most_25_a_revocation() {
    let overrides = lore::compose::Overrides { max_revoked_keys_per_workspace: Some(2), ..Default::default() };
    let t = TestApp::spawn_with(overrides).await;
    let body = json!({"scopes": ["chatbot:read"]});
    // 30 keys revoked beneath the API (as `lore keys revoke` does, which does not prune): a
    // backlog, as lowering the setting leaves.
    for _ in 0..30 {
        let (status, key) = create_key(&t, &t.dev_key, body.clone()).await;
        assert_eq!(status, 201, "{key}");
        let id = lore_domain::id::ApiKeyId::parse(key["key"]["id"].as_str().unwrap()).unwrap();
        t.key_store().revoke_key(&id, lore_domain::time::Timestamp::now()).await.unwrap();
    }
    let revoked =
        |listed: &Value| listed["keys"].as_array().unwrap().iter().filter(|k| !k["revokedAt"].is_null()).count();
    assert_eq!(revoked(&list_keys(&t, &t.dev_key).await), 30);
    // One revocation through the API: 31 revoked, 29 beyond the 2 kept, 25 deleted.
    let (_, key) = create_key(&t, &t.dev_key, body.clone()).await;
    assert_eq!(revoke(&t, &t.dev_key, key["key"]["id"].as_str().unwrap()).await.0, 200);
    assert_eq!(revoked(&list_keys(&t, &t.dev_key).await), 6);
    // The next one deletes the rest of the backlog.
    let (_, key) = create_key(&t, &t.dev_key, body).await;
    let newest = key["key"]["id"].as_str().unwrap().to_owned();
    assert_eq!(revoke(&t, &t.dev_key, &newest).await.0, 200);
    let listed = list_keys(&t, &t.dev_key).await;
    assert_eq!(revoked(&listed), 2, "{listed}");
    assert!(listed["keys"].as_array().unwrap().iter().any(|k| k["id"] == newest.as_str()), "the newest is kept");
    t.stop().await;
}

#[tokio::test]
async fn any_key_reads_its_workspaces_limits_and_usage() {
    let t = TestApp::spawn_private().await;
    let limits = LimitsPatch { minds_limit: Some(4), storage_quota_bytes: Some(5_000_000), ..Default::default() };
    let ws_id = t.workspace("acme", limits).await;
    let admin = t.key("acme", "all").await;
    let narrow = t.key("acme", "chat:write").await;

    let read = |key: String| {
        let req = t.req(Method::GET, "/api/v1/workspace", &key);
        async move { parts(req.send().await.unwrap()).await }
    };
    let (status, empty) = read(narrow.clone()).await;
    assert_eq!(status, 200, "{empty}");
    assert_eq!(
        (empty["workspace"]["id"].as_str(), empty["workspace"]["name"].as_str()),
        (Some(ws_id.as_str()), Some("acme"))
    );
    assert_eq!(
        empty["limits"],
        json!({"storageQuotaBytes": 5_000_000, "mindsLimit": 4, "sourcesLimit": 500, "mindSourceLimit": 100,
               "rateLimitPerMinute": 600, "keysLimit": 100, "webhooksLimit": 100}),
    );
    assert_eq!(
        empty["usage"],
        json!({"storageBytes": 0, "chatbots": 0, "minds": 0, "mindSources": 0, "activeKeys": 2, "webhooks": 0})
    );

    let bot = t.create_chatbot(&admin, json!({"name": "Support"})).await["id"].as_str().unwrap().to_owned();
    let text = "Refunds are paid within 14 days.";
    let (status, _) = t.post_source(&admin, &bot, json!({"type": "text", "name": "faq", "content": text})).await;
    assert_eq!(status, 201);
    let res = t.req(Method::POST, "/api/v1/minds", &admin).json(&json!({"name": "Ada"})).send().await.unwrap();
    assert_eq!(res.status(), 201);
    let res = t.req(Method::POST, "/api/integrations/webhooks/triggers/subscribe", &admin);
    let res = res.json(&json!({"hookUrl": "http://127.0.0.1:9/hook"})).send().await.unwrap();
    assert_eq!(res.status(), 201);

    let (_, used) = read(narrow).await;
    assert_eq!(
        used["usage"],
        json!({"storageBytes": text.len(), "chatbots": 1, "minds": 1, "mindSources": 0, "activeKeys": 2, "webhooks": 1}),
    );
    // The default workspace's usage is its own.
    let (_, default) = read(t.dev_key.clone()).await;
    assert_eq!((default["usage"]["chatbots"].clone(), default["usage"]["activeKeys"].clone()), (json!(0), json!(1)));
    t.stop().await;
}
