//! The workspace's audit log (docs/api.md §22, "Audit log"): `GET /api/v1/audit` lists who
//! changed keys, chatbots, Minds, sources, identity secrets and webhooks, who erased a person and
//! who exported conversations — newest first, paginated, filtered by `action`, for
//! `workspace:admin` keys of the workspace only, and never holding a secret.

use crate::receiver::Receiver;
use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};

async fn send(t: &TestApp, key: &str, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = t.req(method, path, key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    parts(req.send().await.unwrap()).await
}

async fn ok(t: &TestApp, key: &str, method: Method, path: &str, body: Option<Value>) -> Value {
    let (status, body) = send(t, key, method, path, body).await;
    assert!((200..300).contains(&status), "{path}: {status} {body}");
    body
}

/// Every entry of the workspace of `key` (all pages, newest first).
async fn all_entries(t: &TestApp, key: &str, query: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 1.. {
        let body = ok(t, key, Method::GET, &format!("/api/v1/audit?limit=100&page={page}{query}"), None).await;
        let entries = body["entries"].as_array().unwrap().clone();
        let done = entries.len() < 100;
        out.extend(entries);
        if done {
            break;
        }
    }
    out
}

fn s(v: &Value, k: &str) -> String {
    v[k].as_str().unwrap_or_else(|| panic!("{k} in {v}")).to_owned()
}

#[tokio::test]
async fn audit_records_each_change_with_its_key_and_target_and_no_secret() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    // The changes are made with an admin key made for the test, so its id is known.
    let admin = t.key("default", "all").await;
    let admin_id = t.key_id(&admin).await;
    let mut secrets = vec![admin.clone()];
    let mut expected: Vec<(&str, String)> = Vec::new();

    // A key made and revoked through the API.
    let made =
        ok(&t, &admin, Method::POST, "/api/v1/keys", Some(json!({"name": "ci", "scopes": ["chatbot:read"]}))).await;
    let key_id = s(&made["key"], "id");
    secrets.push(s(&made, "secret"));
    expected.push(("key.created", key_id.clone()));
    ok(&t, &admin, Method::DELETE, &format!("/api/v1/keys/{key_id}"), None).await;
    expected.push(("key.revoked", key_id.clone()));

    // A chatbot and a Mind: created, updated, published, an identity secret, a source deleted,
    // their conversations exported, deleted.
    for (kind, base) in [("chatbot", "/api/v1/chatbots"), ("mind", "/api/v1/minds")] {
        let created = ok(&t, &admin, Method::POST, base, Some(json!({"name": "Audited"}))).await;
        let id = s(&created[kind], "id");
        let path = format!("{base}/{id}");
        expected.push((if kind == "chatbot" { "chatbot.created" } else { "mind.created" }, id.clone()));
        ok(&t, &admin, Method::PATCH, &path, Some(json!({"welcomeMessage": "Hello", "showSources": false}))).await;
        expected.push((if kind == "chatbot" { "chatbot.updated" } else { "mind.updated" }, id.clone()));
        ok(&t, &admin, Method::POST, &format!("{path}/publish"), Some(json!({}))).await;
        expected.push((if kind == "chatbot" { "chatbot.published" } else { "mind.published" }, id.clone()));
        let secret = ok(&t, &admin, Method::POST, &format!("{path}/identity-secret"), None).await;
        secrets.push(s(&secret, "identitySecret"));
        expected.push(("identity_secret.created", id.clone()));
        let sources = format!("{path}/{}", if kind == "chatbot" { "sources" } else { "knowledge" });
        let source = ok(
            &t,
            &admin,
            Method::POST,
            &sources,
            Some(json!({"type": "text", "name": "Policy", "content": "Refunds within 14 days."})),
        )
        .await;
        let source_id = s(&source["source"], "id");
        // A Mind's source is processed at once: deleted once settled.
        for _ in 0..200 {
            let now = ok(&t, &admin, Method::GET, &format!("{sources}/{source_id}"), None).await;
            if ["ready", "failed", "error", "pending"].contains(&now["source"]["status"].as_str().unwrap_or("")) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        ok(&t, &admin, Method::DELETE, &format!("{sources}/{source_id}"), None).await;
        expected.push(("source.deleted", source_id));
        let res = t.req(Method::GET, &format!("{path}/conversations/export"), &admin).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let _ = res.bytes().await.unwrap();
        expected.push(("conversation.exported", id.clone()));
        ok(&t, &admin, Method::DELETE, &path, None).await;
        expected.push((if kind == "chatbot" { "chatbot.deleted" } else { "mind.deleted" }, id.clone()));
    }

    // A webhook subscribed (its URL with a token in the query), its secret rotated, unsubscribed.
    let hook = ok(
        &t,
        &admin,
        Method::POST,
        "/api/integrations/webhooks/triggers/subscribe",
        Some(json!({"hookUrl": format!("{}?token=receiver-token-123", rx.url("/audited"))})),
    )
    .await;
    let hook_id = s(&hook, "id");
    secrets.push(s(&hook, "secret"));
    secrets.push("receiver-token-123".into());
    expected.push(("webhook.subscribed", hook_id.clone()));
    let rotated = ok(
        &t,
        &admin,
        Method::POST,
        &format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}/rotate-secret"),
        None,
    )
    .await;
    secrets.push(s(&rotated, "secret"));
    expected.push(("webhook.secret_rotated", hook_id.clone()));
    ok(&t, &admin, Method::DELETE, &format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}"), None).await;
    expected.push(("webhook.unsubscribed", hook_id.clone()));

    // A person erased (the address is not kept in the log either).
    let ws_id = s(&ok(&t, &admin, Method::GET, "/api/v1/workspace", None).await["workspace"], "id");
    ok(&t, &admin, Method::POST, "/api/v1/privacy/erase", Some(json!({"email": "erased.person@example.com"}))).await;
    expected.push(("privacy.erased", ws_id.clone()));
    secrets.push("erased.person@example.com".into());

    let (status, raw) = send(&t, &admin, Method::GET, "/api/v1/audit?limit=100", None).await;
    assert_eq!(status, 200, "{raw}");
    let text = raw.to_string();
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()), "the audit log holds a secret ({secret}): {text}");
    }
    let entries: Vec<Value> =
        all_entries(&t, &admin, "").await.into_iter().filter(|e| e["keyId"] == json!(admin_id)).collect();
    let got: Vec<(String, String)> = entries.iter().rev().map(|e| (s(e, "action"), s(e, "targetId"))).collect();
    let want: Vec<(String, String)> = expected.iter().map(|(a, id)| (a.to_string(), id.clone())).collect();
    assert_eq!(got, want, "one entry per change, oldest last in the list");
    for e in &entries {
        assert!(s(e, "id").starts_with("aud_"), "{e}");
        assert!(lore_domain::Timestamp::parse(&s(e, "at")).is_some(), "{e}");
        assert!(e["details"].is_object(), "{e}");
    }
    // Newest first: `at` never grows down the list.
    let ats: Vec<String> = entries.iter().map(|e| s(e, "at")).collect();
    assert!(ats.windows(2).all(|w| w[0] >= w[1]), "{ats:?}");
    // What the details say: names and changed field names, never values.
    let updated = entries.iter().find(|e| e["action"] == "chatbot.updated").unwrap();
    assert_eq!(updated["details"]["name"], "Audited", "{updated}");
    assert_eq!(updated["details"]["fields"], json!(["welcomeMessage", "showSources"]), "{updated}");
    assert!(!updated.to_string().contains("Hello"), "{updated}");
    let subscribed = entries.iter().find(|e| e["action"] == "webhook.subscribed").unwrap();
    // Scheme and host only: a receiver's path (a catch hook's) is its secret.
    assert_eq!(subscribed["details"]["url"], rx.url(""), "{subscribed}");
    assert!(!subscribed.to_string().contains("/audited"), "{subscribed}");
    let erased = entries.iter().find(|e| e["action"] == "privacy.erased").unwrap();
    assert_eq!(
        (erased["details"]["by"].clone(), erased["details"]["conversations"].clone()),
        (json!("email"), json!(0))
    );
    t.stop().await;
}

#[tokio::test]
async fn audit_filters_by_action_and_pages_newest_first() {
    let t = TestApp::spawn().await;
    let mut made = Vec::new();
    for i in 0..5 {
        let body = json!({"name": format!("k{i}"), "scopes": ["chatbot:read"]});
        let key = ok(&t, &t.dev_key, Method::POST, "/api/v1/keys", Some(body)).await;
        made.push(s(&key["key"], "id"));
    }
    ok(&t, &t.dev_key, Method::POST, "/api/v1/chatbots", Some(json!({"name": "Other"}))).await;

    // The filter: only key.created (the five, and before them the dev key `lore serve` made at
    // start, with no key: the CLI's), newest first, exact totals.
    let (_, page1) = send(&t, &t.dev_key, Method::GET, "/api/v1/audit?action=key.created&limit=2", None).await;
    assert_eq!(page1["pagination"], json!({"page": 1, "limit": 2, "total": 6, "totalPages": 3}), "{page1}");
    let mut listed = Vec::new();
    for page in 1..=3 {
        let path = format!("/api/v1/audit?action=key.created&limit=2&page={page}");
        let body = ok(&t, &t.dev_key, Method::GET, &path, None).await;
        assert_eq!(body["entries"].as_array().unwrap().len(), 2, "{body}");
        listed.extend(body["entries"].as_array().unwrap().iter().cloned());
    }
    assert!(listed.iter().all(|e| e["action"] == "key.created"), "{listed:?}");
    let bootstrap = listed.pop().unwrap();
    assert_eq!(bootstrap["keyId"], Value::Null, "made by `lore serve` at start: {bootstrap}");
    made.reverse();
    assert_eq!(listed.iter().map(|e| s(e, "targetId")).collect::<Vec<_>>(), made, "newest first across pages");
    let dev_key_id = t.key_id(&t.dev_key).await;
    assert!(listed.iter().all(|e| e["keyId"] == json!(dev_key_id)), "{listed:?}");
    let all = ok(&t, &t.dev_key, Method::GET, "/api/v1/audit", None).await;
    assert_eq!(all["pagination"]["total"], 7, "{all}");
    assert_eq!(all["entries"][0]["action"], "chatbot.created", "the newest first: {all}");

    // An unknown action, a bad page.
    let res = t.req(Method::GET, "/api/v1/audit?action=key.deleted", &t.dev_key).send().await.unwrap();
    let body = expect_error(res, 400, "validation_error").await;
    assert!(body["error"]["details"]["fields"]["action"].is_string(), "{body}");
    let res = t.req(Method::GET, "/api/v1/audit?page=0", &t.dev_key).send().await.unwrap();
    expect_error(res, 400, "validation_error").await;
    t.stop().await;
}

#[tokio::test]
async fn audit_needs_workspace_admin_and_shows_only_its_workspace() {
    let t = TestApp::spawn().await;
    ok(&t, &t.dev_key, Method::POST, "/api/v1/chatbots", Some(json!({"name": "Mine"}))).await;
    let reader = t.key("default", "chatbot:read,chatbot:write,conversations:read").await;
    let res = t.req(Method::GET, "/api/v1/audit", &reader).send().await.unwrap();
    expect_error(res, 403, "insufficient_scope").await;
    let res = t.client.get(t.url("/api/v1/audit")).send().await.unwrap();
    assert_eq!(res.status(), 401);

    t.workspace("elsewhere", Default::default()).await;
    let other = t.key("elsewhere", "all").await;
    // Their only entry so far: their key, made by the CLI (no key).
    let theirs = all_entries(&t, &other, "").await;
    assert_eq!(theirs.len(), 1, "{theirs:?}");
    assert_eq!((theirs[0]["action"].clone(), theirs[0]["keyId"].clone()), (json!("key.created"), Value::Null));
    ok(&t, &other, Method::POST, "/api/v1/chatbots", Some(json!({"name": "Theirs"}))).await;
    let theirs = all_entries(&t, &other, "").await;
    assert_eq!(theirs.len(), 2);
    assert_eq!(theirs[0]["details"]["name"], "Theirs");
    let ours = all_entries(&t, &t.dev_key, "").await;
    assert!(ours.iter().all(|e| e["details"]["name"] != "Theirs"), "{ours:?}");
    assert!(ours.iter().any(|e| e["details"]["name"] == "Mine"), "{ours:?}");
    t.stop().await;
}
