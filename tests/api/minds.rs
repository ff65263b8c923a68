//! Minds over HTTP (docs/api.md §8): records and defaults, every validation rule at and past its
//! bound, partial updates, limits and usage, publishing, the public page, scopes and tenants.

use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};

/// Every Mind route of this phase with the scope it needs; `{id}` is an existing Mind.
const MIND_ROUTES: &[(&str, &str, &str)] = &[
    ("GET", "/api/v1/minds", "minds:read"),
    ("POST", "/api/v1/minds", "minds:write"),
    ("GET", "/api/v1/minds/{id}", "minds:read"),
    ("PATCH", "/api/v1/minds/{id}", "minds:write"),
    ("DELETE", "/api/v1/minds/{id}", "minds:write"),
    ("POST", "/api/v1/minds/{id}/publish", "minds:write"),
];

impl TestApp {
    /// `POST /api/v1/minds`; status and body.
    async fn post_mind(&self, key: &str, body: Value) -> (u16, Value) {
        parts(self.req(Method::POST, "/api/v1/minds", key).json(&body).send().await.unwrap()).await
    }

    /// A created Mind's detail.
    pub(crate) async fn mind(&self, key: &str, body: Value) -> Value {
        let (status, json) = self.post_mind(key, body).await;
        assert_eq!(status, 201, "create mind: {json}");
        assert_eq!(json["status"], "success");
        json["mind"].clone()
    }

    async fn get_mind(&self, key: &str, id: &str) -> Value {
        let (status, json) =
            parts(self.req(Method::GET, &format!("/api/v1/minds/{id}"), key).send().await.unwrap()).await;
        assert_eq!(status, 200, "get mind: {json}");
        json["mind"].clone()
    }

    async fn patch_mind(&self, key: &str, id: &str, body: Value) -> (u16, Value) {
        parts(self.req(Method::PATCH, &format!("/api/v1/minds/{id}"), key).json(&body).send().await.unwrap()).await
    }

    async fn list_minds(&self, key: &str, query: &str) -> Value {
        let (status, json) =
            parts(self.req(Method::GET, &format!("/api/v1/minds{query}"), key).send().await.unwrap()).await;
        assert_eq!(status, 200, "list minds: {json}");
        json
    }

    async fn publish(&self, key: &str, id: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self.req(Method::POST, &format!("/api/v1/minds/{id}/publish"), key);
        if let Some(b) = body {
            req = req.json(&b);
        }
        parts(req.send().await.unwrap()).await
    }

    /// The public page: status, content type and body.
    async fn page(&self, slug: &str) -> (u16, String, String, reqwest::header::HeaderMap) {
        let res = self.client.get(self.url(&format!("/m/{slug}"))).send().await.unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let ct = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        (status, ct, res.text().await.unwrap(), headers)
    }
}

fn id_of(mind: &Value) -> String {
    mind["id"].as_str().expect("mind.id").to_owned()
}

/// The members of a list item (the OpenAPI schema of "Mind (list item)").
const ITEM_KEYS: &[&str] = &[
    "id",
    "name",
    "slug",
    "headline",
    "bio",
    "avatarUrl",
    "isPublished",
    "createdAt",
    "updatedAt",
    "knowledgeSourceCount",
    "conversationCount",
];

#[tokio::test]
async fn create_read_list_update_delete_with_defaults() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let m = t
        .mind(
            k,
            json!({"name": "Ada Lovelace", "headline": "First programmer", "bio": "Wrote notes.",
                   "avatarUrl": "https://cdn.example.com/ada.png", "systemPrompt": "Be precise.",
                   "welcomeMessage": "Hello!", "suggestedQuestions": ["What is an engine?"],
                   "expertiseAreas": ["Mathematics", "Engines"]}),
        )
        .await;
    let id = id_of(&m);
    assert!(id.starts_with("mind_"), "{id}");
    let created_at = m["createdAt"].as_str().unwrap();
    assert!(created_at.ends_with('Z') && created_at.len() == 24, "{created_at}");
    assert_eq!(
        m,
        json!({
            "id": id, "name": "Ada Lovelace", "slug": "ada-lovelace", "headline": "First programmer",
            "bio": "Wrote notes.", "avatarUrl": "https://cdn.example.com/ada.png", "isPublished": false,
            "createdAt": created_at, "updatedAt": created_at, "knowledgeSourceCount": 0, "conversationCount": 0,
            "recentConversationCount": 0, "sourceLimit": 100,
            "sourceStats": {"total": 0, "ready": 0, "pending": 0, "processing": 0, "failed": 0},
            "systemPrompt": "Be precise.", "welcomeMessage": "Hello!", "suggestedQuestions": ["What is an engine?"],
            "expertiseAreas": ["Mathematics", "Engines"], "showSources": true, "collectEmailBeforeChat": false,
            "temperature": 0.7, "theme": null, "socialLinks": null, "voiceEnabled": false, "voiceId": "alloy",
            "voiceSpeed": 1.0, "allowedOrigins": [], "identityVerification": false, "correctionThreshold": 0.9,
            "handoffEnabled": false, "knowledgeFilter": null, "language": "auto",
            "retentionDays": null, "redactPersonalData": false, "runTestsOnChange": false
        }),
        "the created Mind's detail, with the contract's defaults"
    );
    assert_eq!(t.get_mind(k, &id).await, m, "read back as created");

    // A bare create: the optional settings are null or empty.
    let bare = t.mind(k, json!({"name": "Bare"})).await;
    for key in ["headline", "bio", "avatarUrl", "systemPrompt", "welcomeMessage"] {
        assert!(bare[key].is_null(), "{key}: {bare}");
    }
    assert_eq!((bare["suggestedQuestions"].clone(), bare["expertiseAreas"].clone()), (json!([]), json!([])));

    let list = t.list_minds(k, "").await;
    assert_eq!(list["status"], "success");
    assert_eq!(list["pagination"], json!({"page": 1, "limit": 20, "total": 2, "totalPages": 1}));
    assert_eq!(list["usage"], json!({"mindsUsed": 2, "mindsLimit": 10, "sourcesUsed": 0, "sourcesLimit": 500}));
    let items = list["minds"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["id"], bare["id"], "newest first");
    let mut keys: Vec<&str> = items[1].as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    let mut expected = ITEM_KEYS.to_vec();
    expected.sort();
    assert_eq!(keys, expected, "a list item carries exactly the list fields");
    for key in ITEM_KEYS {
        assert_eq!(items[1][key], m[*key], "{key}");
    }

    let path = format!("/api/v1/minds/{id}");
    let (status, deleted) = parts(t.req(Method::DELETE, &path, k).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(deleted, json!({"status": "success", "deleted": true, "id": id}));
    expect_error(t.req(Method::GET, &path, k).send().await.unwrap(), 404, "not_found").await;
    expect_error(t.req(Method::DELETE, &path, k).send().await.unwrap(), 404, "not_found").await;
    let (status, _) = t.patch_mind(k, &id, json!({"name": "x"})).await;
    assert_eq!(status, 404);
    let (status, _) = t.publish(k, &id, None).await;
    assert_eq!(status, 404);
    let list = t.list_minds(k, "").await;
    assert_eq!(list["usage"]["mindsUsed"], 1, "usage is exact after a delete");
    assert_eq!(list["pagination"]["total"], 1);
    // A malformed id names nothing.
    expect_error(t.req(Method::GET, "/api/v1/minds/cb_nope", k).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn slugs_are_generated_suffixed_and_unique_per_workspace() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    assert_eq!(t.mind(k, json!({"name": "Acme Helper 1a2b"})).await["slug"], "acme-helper-1a2b");
    assert_eq!(t.mind(k, json!({"name": "Acme Helper 1a2b"})).await["slug"], "acme-helper-1a2b-2");
    assert_eq!(t.mind(k, json!({"name": "¿¿??"})).await["slug"], "mind");
    let custom = t.mind(k, json!({"name": "x", "slug": "custom"})).await;
    assert_eq!(custom["slug"], "custom");
    let (status, body) = t.post_mind(k, json!({"name": "y", "slug": "custom"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("slug_taken")), "{body}");
    assert!(body["error"]["details"]["fields"]["slug"].is_string());
    let other = t.mind(k, json!({"name": "Other"})).await;
    let (status, body) = t.patch_mind(k, &id_of(&other), json!({"slug": "custom"})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("slug_taken")), "{body}");
    let (status, body) = t.patch_mind(k, &id_of(&other), json!({"slug": "renamed"})).await;
    assert_eq!((status, body["mind"]["slug"].as_str()), (200, Some("renamed")));
    // Update-only settings are not read on create: the defaults stand.
    let m = t.mind(k, json!({"name": "Eager", "isPublished": true, "temperature": 1.5, "voiceId": "nova"})).await;
    assert_eq!(
        (m["isPublished"].clone(), m["temperature"].clone(), m["voiceId"].clone()),
        (json!(false), json!(0.7), json!("alloy"))
    );
    t.stop().await;
}

/// Each refused body must be a `validation_error` naming exactly `field`.
async fn assert_refused(t: &TestApp, id: Option<&str>, body: Value, field: &str) {
    let (status, json) = match id {
        None => t.post_mind(&t.dev_key, body.clone()).await,
        Some(id) => t.patch_mind(&t.dev_key, id, body.clone()).await,
    };
    assert_eq!(status, 400, "{body}: {json}");
    assert_eq!(json["error"]["code"], "validation_error", "{body}: {json}");
    let fields: Vec<&String> = json["error"]["details"]["fields"].as_object().unwrap().keys().collect();
    assert_eq!(fields, [field], "{body}: {json}");
}

#[tokio::test]
async fn every_setting_is_validated_at_and_past_its_bound() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let q = |n: usize| (0..n).map(|i| format!("Question {i}?")).collect::<Vec<_>>();

    // Create columns, at the bound (accepted) and past it (refused).
    assert_eq!(t.mind(k, json!({"name": "é".repeat(100)})).await["name"], "é".repeat(100));
    assert_refused(&t, None, json!({"name": "é".repeat(101)}), "name").await;
    assert_refused(&t, None, json!({}), "name").await;
    assert_refused(&t, None, json!({"name": "  "}), "name").await;
    assert_refused(&t, None, json!({"name": 7}), "name").await;
    assert_refused(&t, None, json!({"name": "ok", "slug": "Not Valid"}), "slug").await;
    assert_eq!(t.mind(k, json!({"name": "q", "suggestedQuestions": q(4)})).await["suggestedQuestions"], json!(q(4)));
    assert_refused(&t, None, json!({"name": "q", "suggestedQuestions": q(5)}), "suggestedQuestions").await;
    assert_refused(&t, None, json!({"name": "q", "suggestedQuestions": ["ok", ""]}), "suggestedQuestions").await;
    assert_refused(&t, None, json!({"name": "q", "suggestedQuestions": "one?"}), "suggestedQuestions").await;
    assert_eq!(t.mind(k, json!({"name": "a", "expertiseAreas": q(10)})).await["expertiseAreas"], json!(q(10)));
    assert_refused(&t, None, json!({"name": "a", "expertiseAreas": q(11)}), "expertiseAreas").await;
    assert_refused(&t, None, json!({"name": "u", "avatarUrl": "javascript:alert(1)"}), "avatarUrl").await;
    assert_refused(&t, None, json!({"name": "u", "avatarUrl": "ftp://example.com/a.png"}), "avatarUrl").await;
    assert_refused(&t, None, json!({"name": "u", "avatarUrl": "not a url"}), "avatarUrl").await;
    assert_refused(&t, None, json!({"name": "h", "headline": "h".repeat(201)}), "headline").await;
    // Several bad fields are reported together.
    let (status, body) = t.post_mind(k, json!({"name": "", "expertiseAreas": q(11)})).await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["details"]["fields"]["name"].is_string()
            && body["error"]["details"]["fields"]["expertiseAreas"].is_string()
    );

    // Update-only settings, on an existing Mind.
    let id = id_of(&t.mind(k, json!({"name": "Bounds"})).await);
    let patch_ok = |body: Value| {
        let id = id.clone();
        let t = &t;
        async move {
            let (status, json) = t.patch_mind(&t.dev_key, &id, body.clone()).await;
            assert_eq!(status, 200, "{body}: {json}");
            json["mind"].clone()
        }
    };
    for ok in [0.0, 2.0, 0.7] {
        assert_eq!(patch_ok(json!({"temperature": ok})).await["temperature"], json!(ok));
    }
    for bad in [json!(-0.01), json!(2.01), json!("hot"), json!(null)] {
        assert_refused(&t, Some(&id), json!({"temperature": bad}), "temperature").await;
    }
    for ok in [0.25, 4.0] {
        assert_eq!(patch_ok(json!({"voiceSpeed": ok})).await["voiceSpeed"], json!(ok));
    }
    for bad in [json!(0.24), json!(4.01), json!(0)] {
        assert_refused(&t, Some(&id), json!({"voiceSpeed": bad}), "voiceSpeed").await;
    }
    for voice in ["alloy", "echo", "fable", "onyx", "nova", "shimmer"] {
        assert_eq!(patch_ok(json!({"voiceId": voice})).await["voiceId"], voice);
    }
    for bad in ["robot", "Alloy", ""] {
        assert_refused(&t, Some(&id), json!({"voiceId": bad}), "voiceId").await;
    }
    assert_refused(&t, Some(&id), json!({"name": "n".repeat(101)}), "name").await;
    assert_refused(&t, Some(&id), json!({"name": null}), "name").await;
    assert_refused(&t, Some(&id), json!({"suggestedQuestions": q(5)}), "suggestedQuestions").await;
    assert_refused(&t, Some(&id), json!({"expertiseAreas": q(11)}), "expertiseAreas").await;
    assert_refused(&t, Some(&id), json!({"showSources": "yes"}), "showSources").await;
    assert_refused(&t, Some(&id), json!({"isPublished": null}), "isPublished").await;

    // Theme: known keys with validated values; null clears; nothing can reach CSS unchecked.
    let themed = patch_ok(json!({"theme": {"primaryColor": "#FF5500", "backgroundColor": "#fff",
        "fontFamily": "Inter, sans-serif", "mode": "dark"}}))
    .await;
    assert_eq!(
        themed["theme"],
        json!({"primaryColor": "#ff5500", "backgroundColor": "#fff", "fontFamily": "Inter, sans-serif", "mode": "dark"})
    );
    for (key, bad) in [
        ("primaryColor", json!("red")),
        ("primaryColor", json!("#ff5500; background: url(https://evil.example)")),
        ("backgroundColor", json!("#12345")),
        ("fontFamily", json!("x;}</style><script>alert(1)</script>")),
        ("fontFamily", json!("\"Quoted\"")),
        ("mode", json!("blue")),
    ] {
        assert_refused(&t, Some(&id), json!({"theme": {key: bad}}), &format!("theme.{key}")).await;
    }
    assert_refused(&t, Some(&id), json!({"theme": {"accent": "#fff"}}), "theme.accent").await;
    assert_refused(&t, Some(&id), json!({"theme": "dark"}), "theme").await;
    let merged = patch_ok(json!({"theme": {"mode": null, "primaryColor": "#000"}})).await;
    assert_eq!(
        merged["theme"],
        json!({"primaryColor": "#000", "backgroundColor": "#fff", "fontFamily": "Inter, sans-serif"}),
        "theme keys merge; null removes one"
    );
    assert_eq!(patch_ok(json!({"theme": null})).await["theme"], Value::Null, "null clears the theme");

    // Social links: the five keys, each an http(s) URL; null clears.
    let linked =
        patch_ok(json!({"socialLinks": {"twitter": "https://x.com/ada", "website": "https://ada.example"}})).await;
    assert_eq!(linked["socialLinks"], json!({"twitter": "https://x.com/ada", "website": "https://ada.example"}));
    assert_refused(&t, Some(&id), json!({"socialLinks": {"tiktok": "https://t.example"}}), "socialLinks.tiktok").await;
    assert_refused(&t, Some(&id), json!({"socialLinks": {"youtube": "javascript:x"}}), "socialLinks.youtube").await;
    let one = patch_ok(json!({"socialLinks": {"twitter": null, "linkedin": "https://linkedin.com/in/ada"}})).await;
    assert_eq!(
        one["socialLinks"],
        json!({"linkedin": "https://linkedin.com/in/ada", "website": "https://ada.example"})
    );
    assert_eq!(patch_ok(json!({"socialLinks": null})).await["socialLinks"], Value::Null, "null clears the links");

    // A refused PATCH changes nothing.
    let before = t.get_mind(k, &id).await;
    assert_refused(&t, Some(&id), json!({"name": "Changed", "temperature": 3}), "temperature").await;
    assert_eq!(t.get_mind(k, &id).await, before);
    t.stop().await;
}

#[tokio::test]
async fn patch_changes_only_the_fields_it_sends() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let id = id_of(
        &t.mind(k, json!({"name": "Grace", "headline": "Admiral", "bio": "COBOL", "suggestedQuestions": ["Bugs?"]}))
            .await,
    );
    let (status, full) = t
        .patch_mind(
            k,
            &id,
            json!({"showSources": false, "collectEmailBeforeChat": true, "temperature": 1.25, "voiceEnabled": true,
                   "voiceId": "onyx", "voiceSpeed": 1.5, "theme": {"primaryColor": "#123456"},
                   "socialLinks": {"website": "https://grace.example"}, "welcomeMessage": "Welcome aboard",
                   "systemPrompt": "Speak plainly.", "expertiseAreas": ["Compilers"]}),
        )
        .await;
    assert_eq!(status, 200, "{full}");
    let before = full["mind"].clone();
    assert_eq!(t.get_mind(k, &id).await, before, "the update persisted");

    for (change, key, value) in [
        (json!({"name": "Grace Hopper"}), "name", json!("Grace Hopper")),
        (json!({"headline": null}), "headline", Value::Null),
        (json!({"bio": ""}), "bio", Value::Null),
        (json!({"temperature": 0}), "temperature", json!(0.0)),
        (json!({"voiceEnabled": false}), "voiceEnabled", json!(false)),
        (json!({"suggestedQuestions": []}), "suggestedQuestions", json!([])),
        (json!({"avatarUrl": "https://cdn.example.com/g.png"}), "avatarUrl", json!("https://cdn.example.com/g.png")),
    ] {
        let current = t.get_mind(k, &id).await;
        let (status, got) = t.patch_mind(k, &id, change.clone()).await;
        assert_eq!(status, 200, "{change}: {got}");
        let got = got["mind"].clone();
        assert_eq!(got[key], value, "{change}");
        for (other, v) in current.as_object().unwrap() {
            if other != key && other != "updatedAt" {
                assert_eq!(&got[other], v, "{change} must leave {other} unchanged");
            }
        }
        assert!(got["updatedAt"].as_str() >= current["updatedAt"].as_str());
    }
    // An empty PATCH is a no-op answered with the Mind; unknown members are ignored.
    let current = t.get_mind(k, &id).await;
    let (status, same) = t.patch_mind(k, &id, json!({"nonsense": 1})).await;
    assert_eq!((status, same["mind"].clone()), (200, current));
    let (status, _) = t.patch_mind(k, &id, json!({})).await;
    assert_eq!(status, 200);
    t.stop().await;
}

#[tokio::test]
async fn concurrent_patches_of_different_fields_all_land() {
    let t = TestApp::spawn().await;
    let id = id_of(&t.mind(&t.dev_key, json!({"name": "Busy"})).await);
    let bodies = [
        json!({"headline": "H"}),
        json!({"bio": "B"}),
        json!({"temperature": 1.1}),
        json!({"voiceId": "echo"}),
        json!({"voiceSpeed": 2.0}),
        json!({"showSources": false}),
        json!({"welcomeMessage": "W"}),
        json!({"expertiseAreas": ["X"]}),
    ];
    let mut tasks = Vec::new();
    for body in bodies.clone() {
        let (client, url, key) = (t.client.clone(), t.url(&format!("/api/v1/minds/{id}")), t.dev_key.clone());
        tasks.push(tokio::spawn(async move {
            client.patch(url).bearer_auth(key).json(&body).send().await.unwrap().status().as_u16()
        }));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap(), 200);
    }
    let m = t.get_mind(&t.dev_key, &id).await;
    for body in bodies {
        for (k, v) in body.as_object().unwrap() {
            assert_eq!(&m[k], v, "{k} was lost to a concurrent update: {m}");
        }
    }
    t.stop().await;
}

#[tokio::test]
async fn limits_are_enforced_and_reported_exactly() {
    let t = TestApp::spawn().await;
    let ws = t
        .workspace(
            "limited",
            LimitsPatch {
                minds_limit: Some(2),
                sources_limit: Some(7),
                mind_source_limit: Some(3),
                ..Default::default()
            },
        )
        .await;
    let key = t.key(&ws, "minds:read,minds:write").await;
    assert_eq!(
        t.list_minds(&key, "").await["usage"],
        json!({"mindsUsed": 0, "mindsLimit": 2, "sourcesUsed": 0, "sourcesLimit": 7})
    );
    let a = t.mind(&key, json!({"name": "A"})).await;
    assert_eq!(a["sourceLimit"], 3, "the workspace's per-Mind source limit");
    t.mind(&key, json!({"name": "B"})).await;
    let (status, body) = t.post_mind(&key, json!({"name": "C"})).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "minds_limit_reached");
    assert_eq!(
        t.list_minds(&key, "").await["usage"],
        json!({"mindsUsed": 2, "mindsLimit": 2, "sourcesUsed": 0, "sourcesLimit": 7})
    );
    // Deleting frees a place.
    let res = t.req(Method::DELETE, &format!("/api/v1/minds/{}", id_of(&a)), &key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(t.list_minds(&key, "").await["usage"]["mindsUsed"], 1);
    t.mind(&key, json!({"name": "C"})).await;

    // A changed limit applies and is reported at once.
    t.app
        .update_workspace(
            &ws,
            None,
            LimitsPatch { minds_limit: Some(5), mind_source_limit: Some(9), ..Default::default() },
        )
        .await
        .unwrap();
    let list = t.list_minds(&key, "").await;
    assert_eq!(list["usage"]["mindsLimit"], 5);
    assert_eq!(t.get_mind(&key, list["minds"][0]["id"].as_str().unwrap()).await["sourceLimit"], 9);
    t.stop().await;
}

#[tokio::test]
async fn concurrent_creates_at_the_limit_let_exactly_one_through() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("one-left", LimitsPatch { minds_limit: Some(3), ..Default::default() }).await;
    let key = t.key(&ws, "minds:read,minds:write").await;
    t.mind(&key, json!({"name": "1"})).await;
    t.mind(&key, json!({"name": "2"})).await;
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (client, url, key) = (t.client.clone(), t.url("/api/v1/minds"), key.clone());
        tasks.push(tokio::spawn(async move {
            let res = client.post(url).bearer_auth(key).json(&json!({"name": format!("racer {i}")})).send().await;
            let res = res.unwrap();
            let status = res.status().as_u16();
            (status, res.json::<Value>().await.unwrap())
        }));
    }
    let mut created = 0;
    for task in tasks {
        let (status, body) = task.await.unwrap();
        match status {
            201 => created += 1,
            403 => assert_eq!(body["error"]["code"], "minds_limit_reached", "{body}"),
            other => panic!("{other}: {body}"),
        }
    }
    assert_eq!(created, 1);
    assert_eq!(t.list_minds(&key, "").await["usage"]["mindsUsed"], 3);
    t.stop().await;
}

#[tokio::test]
async fn lists_are_paginated_newest_first() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(id_of(&t.mind(k, json!({"name": format!("M{i}")})).await));
    }
    ids.reverse();
    let p1 = t.list_minds(k, "?page=1&limit=2").await;
    let p3 = t.list_minds(k, "?page=3&limit=2").await;
    let p9 = t.list_minds(k, "?page=9&limit=2").await;
    let got = |p: &Value| p["minds"].as_array().unwrap().iter().map(id_of).collect::<Vec<_>>();
    assert_eq!(got(&p1), ids[0..2]);
    assert_eq!(got(&p3), ids[4..5]);
    assert!(got(&p9).is_empty());
    assert_eq!(p9["pagination"], json!({"page": 9, "limit": 2, "total": 5, "totalPages": 3}));
    assert_eq!(p9["usage"]["mindsUsed"], 5, "usage is the workspace's, not the page's");
    expect_error(t.req(Method::GET, "/api/v1/minds?limit=0", k).send().await.unwrap(), 400, "validation_error").await;
    t.stop().await;
}

#[tokio::test]
async fn publish_without_a_ready_source_warns_and_unpublish_hides_the_page() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let m = t.mind(k, json!({"name": "Publicist", "welcomeMessage": "Hi there"})).await;
    let id = id_of(&m);
    assert_eq!(t.page("publicist").await.0, 404, "not published yet");

    let (status, body) = t.publish(k, &id, Some(json!({"isPublished": true}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "success");
    assert_eq!(
        body["mind"],
        json!({"id": id, "slug": "publicist", "isPublished": true, "publicUrl": t.url("/m/publicist")})
    );
    assert!(body["warning"].as_str().is_some_and(|w| !w.is_empty()), "no ready source: a warning: {body}");
    assert_eq!(t.get_mind(k, &id).await["isPublished"], true);
    let (status, ct, html, _) = t.page("publicist").await;
    assert_eq!((status, ct.as_str()), (200, "text/html; charset=utf-8"));
    assert!(html.contains("<h1>Publicist</h1>") && html.contains("Hi there"), "{html}");

    let (status, body) = t.publish(k, &id, Some(json!({"isPublished": false}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["mind"]["isPublished"], false);
    assert!(body["warning"].is_string(), "the warning is present exactly when no source is ready");
    let res = t.client.get(t.url("/m/publicist")).send().await.unwrap();
    expect_error(res, 404, "not_found").await;

    // No body at all publishes; a renamed slug moves the page.
    let (status, body) = t.publish(k, &id, None).await;
    assert_eq!((status, body["mind"]["isPublished"].clone()), (200, json!(true)), "{body}");
    let (status, _) = t.patch_mind(k, &id, json!({"slug": "moved"})).await;
    assert_eq!(status, 200);
    assert_eq!(t.page("publicist").await.0, 404);
    assert_eq!(t.page("moved").await.0, 200);
    let (status, body) = t.publish(k, &id, Some(json!({"isPublished": "yes"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("validation_error")), "{body}");
    // PATCH isPublished is the same switch.
    let (status, _) = t.patch_mind(k, &id, json!({"isPublished": false})).await;
    assert_eq!(status, 200);
    assert_eq!(t.page("moved").await.0, 404);
    t.stop().await;
}

#[tokio::test]
async fn a_published_slug_is_one_public_address_across_workspaces() {
    let t = TestApp::spawn().await;
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_b = t.key(&ws_b, "minds:read,minds:write").await;
    let a = t.mind(&t.dev_key, json!({"name": "Ada"})).await;
    let b = t.mind(&key_b, json!({"name": "Ada"})).await;
    assert_eq!(a["slug"], b["slug"], "slugs are unique per workspace only");
    assert_eq!(t.publish(&t.dev_key, &id_of(&a), None).await.0, 200);
    let (status, body) = t.publish(&key_b, &id_of(&b), None).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("slug_taken")), "{body}");
    assert_eq!(t.get_mind(&key_b, &id_of(&b)).await["isPublished"], false, "the refused publish changed nothing");
    let (_, _, html, _) = t.page("ada").await;
    assert!(html.contains("<h1>Ada</h1>"));
    // With another slug it can be published.
    assert_eq!(t.patch_mind(&key_b, &id_of(&b), json!({"slug": "ada-b"})).await.0, 200);
    assert_eq!(t.publish(&key_b, &id_of(&b), None).await.0, 200);
    assert_eq!(t.page("ada-b").await.0, 200);
    t.stop().await;
}

#[tokio::test]
async fn the_public_page_shows_the_mind_escaped_and_themed() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    let m = t
        .mind(
            k,
            json!({"name": "Eve <script>alert('x')</script>", "slug": "eve",
                   "headline": "Tests & \"quotes\"", "bio": "First line\nsecond line\n\n<b>Not bold</b>",
                   "avatarUrl": "https://cdn.example.com/eve.png?size=2&x=1",
                   "welcomeMessage": "Welcome, <friend>!",
                   "suggestedQuestions": ["What's <new>?", "How & why?"], "expertiseAreas": ["Security"]}),
        )
        .await;
    let id = id_of(&m);
    let (status, _) = t
        .patch_mind(
            k,
            &id,
            json!({"theme": {"primaryColor": "#0a7c3e", "backgroundColor": "#fdf6e3", "fontFamily": "Georgia, serif"},
                   "socialLinks": {"website": "https://eve.example/?a=1&b=2"}}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(t.publish(k, &id, None).await.0, 200);

    let (status, ct, html, headers) = t.page("eve").await;
    assert_eq!((status, ct.as_str()), (200, "text/html; charset=utf-8"));
    assert!(html.starts_with("<!doctype html>\n<html lang=\"en\">"));
    for expected in [
        "<title>Eve &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</title>",
        "<h1>Eve &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</h1>",
        "<p class=\"headline\">Tests &amp; &quot;quotes&quot;</p>",
        "<p dir=\"auto\">First line<br>second line</p><p dir=\"auto\">&lt;b&gt;Not bold&lt;/b&gt;</p>",
        "src=\"https://cdn.example.com/eve.png?size=2&amp;x=1\"",
        "Welcome, &lt;friend&gt;!",
        "<button type=\"button\" class=\"question\" dir=\"auto\">What&#39;s &lt;new&gt;?</button>",
        "<button type=\"button\" class=\"question\" dir=\"auto\">How &amp; why?</button>",
        "<li dir=\"auto\">Security</li>",
        "<a href=\"https://eve.example/?a=1&amp;b=2\" rel=\"me noopener noreferrer\" data-i18n=\"website\">Website</a>",
        "--bg: #fdf6e3; --fg: #111827; --accent: #0a7c3e;",
        "--font: \"Georgia\", serif,",
        "data-show-sources=\"true\" data-voice=\"false\" data-email-gate=\"false\"",
    ] {
        assert!(html.contains(expected), "missing {expected:?} in\n{html}");
    }
    assert!(!html.contains("<b>"), "no markup from the Mind reaches the page");
    let csp = headers.get("content-security-policy").unwrap().to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'; script-src 'nonce-"), "{csp}");
    assert!(csp.contains("connect-src 'self';"), "the chat talks to this origin only: {csp}");
    let nonce = csp.split("'nonce-").nth(1).unwrap().split('\'').next().unwrap();
    assert!(csp.contains(&format!("style-src 'nonce-{nonce}';")), "{csp}");
    assert!(html.contains(&format!("<style nonce=\"{nonce}\">")), "the one style sheet carries the CSP nonce");
    // The one script is the page's own, under the nonce; the Mind's text never opens another.
    // The other is the page's fixed texts, a JSON data block that never runs (docs/api.md §20).
    assert_eq!(html.matches("<script").count(), 2, "{html}");
    assert_eq!(html.matches("<script nonce=").count(), 1, "{html}");
    assert!(html.contains(&format!("<script nonce=\"{nonce}\">")));
    assert!(html.contains("<script type=\"application/json\" id=\"lore-texts\">{"));
    assert_eq!(headers.get("x-content-type-options").unwrap(), "nosniff");
    assert!(headers.contains_key("x-request-id"));

    // No key needed; a key changes nothing. Unknown and malformed slugs are 404 envelopes.
    assert_eq!(t.client.get(t.url("/m/eve")).bearer_auth("garbage").send().await.unwrap().status(), 200);
    for slug in ["nobody", "Not-A-Slug", "%3Cscript%3E"] {
        expect_error(t.client.get(t.url(&format!("/m/{slug}"))).send().await.unwrap(), 404, "not_found").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn each_mind_route_checks_its_scope() {
    let t = TestApp::spawn().await;
    let all = [
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
    ];
    for (method, path, scope) in MIND_ROUTES {
        let without =
            t.key("default", &all.iter().filter(|s| s != &scope).copied().collect::<Vec<_>>().join(",")).await;
        let only = t.key("default", scope).await;
        let id = id_of(&t.mind(&t.dev_key, json!({"name": "scoped"})).await);
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
    // No key at all: 401 on every route.
    for (method, path, _) in MIND_ROUTES {
        let path = path.replace("{id}", "mind_01jq3z5v7b8c9d0e1f2g3h4j5k");
        let res = t.client.request(method.parse().unwrap(), t.url(&path)).send().await.unwrap();
        expect_error(res, 401, "unauthorized").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn another_workspaces_mind_is_not_found() {
    let t = TestApp::spawn().await;
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_b = t.key(&ws_b, "minds:read,minds:write").await;
    let a = t.mind(&t.dev_key, json!({"name": "Private"})).await;
    let id = id_of(&a);
    let path = format!("/api/v1/minds/{id}");
    for (m, p) in [
        (Method::GET, path.clone()),
        (Method::PATCH, path.clone()),
        (Method::DELETE, path.clone()),
        (Method::POST, format!("{path}/publish")),
    ] {
        let res = t.req(m.clone(), &p, &key_b).json(&json!({"name": "stolen"})).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    let list = t.list_minds(&key_b, "").await;
    assert_eq!((list["minds"].clone(), list["usage"]["mindsUsed"].clone()), (json!([]), json!(0)));
    assert_eq!(t.get_mind(&t.dev_key, &id).await, a, "untouched by the other workspace");
    assert_eq!(t.page("private").await.0, 404, "and not published by it");
    t.stop().await;
}

#[tokio::test]
async fn the_openapi_document_describes_every_mind_route() {
    let t = TestApp::spawn().await;
    let doc: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    for (method, path, scope) in MIND_ROUTES {
        let path = path.replace("{id}", "{mindId}");
        let op = &doc["paths"][&path][method.to_lowercase()];
        assert!(op.is_object(), "{method} {path} missing from the document");
        assert_eq!(op["tags"], json!(["minds"]), "{method} {path}");
        assert_eq!(op["security"][0]["bearer"], json!([scope]), "{method} {path}");
    }
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["CreateMind"]["required"], json!(["name"]));
    for key in ["temperature", "voiceSpeed", "voiceId", "theme", "socialLinks", "isPublished"] {
        assert!(schemas["UpdateMind"]["properties"][key].is_object(), "UpdateMind.{key}");
    }
    for key in ["recentConversationCount", "sourceLimit", "sourceStats", "systemPrompt", "voiceSpeed"] {
        assert!(schemas["MindDetailView"]["properties"][key].is_object(), "MindDetailView.{key}");
    }
    assert!(schemas["MindList"]["properties"]["usage"].is_object());
    assert!(schemas["PublishEnvelope"]["properties"]["warning"].is_object());
    // The public page is HTML for people, not an API operation.
    assert!(doc["paths"]["/m/{slug}"].is_null());
    t.stop().await;
}
