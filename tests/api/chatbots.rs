use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn create_read_update_delete() {
    let t = TestApp::spawn().await;
    let c =
        t.create_chatbot(&t.dev_key, json!({"name": "Support Bot", "descriptor": "Answers billing questions"})).await;
    let id = c["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("cb_"));
    assert_eq!(c["name"], "Support Bot");
    assert_eq!(c["slug"], "support-bot");
    assert_eq!(c["descriptor"], "Answers billing questions");
    assert_eq!(c["sourceCount"], 0);
    assert_eq!(c["conversationCount"], 0);
    let created_at = c["createdAt"].as_str().unwrap();
    assert!(created_at.ends_with('Z') && created_at.len() == 24, "{created_at}");

    let path = format!("/api/v1/chatbots/{id}");
    let (status, got) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(got, json!({"status": "success", "chatbot": c}));

    // PATCH changes only what it names.
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": "Billing Bot"})).send().await.unwrap();
    let (status, patched) = parts(res).await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["chatbot"]["name"], "Billing Bot");
    assert_eq!(patched["chatbot"]["slug"], "support-bot");
    assert_eq!(patched["chatbot"]["descriptor"], "Answers billing questions");
    assert_eq!(patched["chatbot"]["createdAt"], c["createdAt"]);
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"slug": "billing", "descriptor": ""})).send();
    let (_, patched) = parts(res.await.unwrap()).await;
    assert_eq!(patched["chatbot"]["slug"], "billing");
    assert_eq!(patched["chatbot"]["descriptor"], "");
    let (_, got) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(got["chatbot"], patched["chatbot"], "the update persisted");

    let (status, deleted) = parts(t.req(Method::DELETE, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    assert_eq!(deleted, json!({"status": "success", "deleted": true, "id": id}));
    expect_error(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    expect_error(t.req(Method::DELETE, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": "x"})).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn slugs_are_generated_suffixed_and_unique_per_workspace() {
    let t = TestApp::spawn().await;
    let k = &t.dev_key;
    assert_eq!(t.create_chatbot(k, json!({"name": "Acme Helper 1a2b"})).await["slug"], "acme-helper-1a2b");
    assert_eq!(t.create_chatbot(k, json!({"name": "Acme Helper 1a2b"})).await["slug"], "acme-helper-1a2b-2");
    assert_eq!(t.create_chatbot(k, json!({"name": "acme  helper, 1A2B!"})).await["slug"], "acme-helper-1a2b-3");
    assert_eq!(t.create_chatbot(k, json!({"name": "¿¿??"})).await["slug"], "chatbot");
    assert_eq!(t.create_chatbot(k, json!({"name": "x", "slug": "custom-one"})).await["slug"], "custom-one");

    let res = t.req(Method::POST, "/api/v1/chatbots", k).json(&json!({"name": "y", "slug": "custom-one"})).send();
    let body = expect_error(res.await.unwrap(), 409, "slug_taken").await;
    assert!(body["error"]["details"]["fields"]["slug"].is_string());

    // PATCH onto a slug another chatbot has is 409 too; onto its own slug is fine.
    let other = t.create_chatbot(k, json!({"name": "Other"})).await;
    let path = format!("/api/v1/chatbots/{}", other["id"].as_str().unwrap());
    let res = t.req(Method::PATCH, &path, k).json(&json!({"slug": "custom-one"})).send().await.unwrap();
    expect_error(res, 409, "slug_taken").await;
    let res = t.req(Method::PATCH, &path, k).json(&json!({"slug": "other"})).send().await.unwrap();
    assert_eq!(res.status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn create_and_patch_validate_every_field() {
    let t = TestApp::spawn().await;
    let post = |body| t.req(Method::POST, "/api/v1/chatbots", &t.dev_key).json(&body).send();
    for (body, field) in [
        (json!({}), "name"),
        (json!({"name": ""}), "name"),
        (json!({"name": "   "}), "name"),
        (json!({"name": "n".repeat(101)}), "name"),
        (json!({"name": "ok", "slug": "Not Valid"}), "slug"),
        (json!({"name": "ok", "slug": "a--b"}), "slug"),
        (json!({"name": "ok", "descriptor": "d".repeat(2001)}), "descriptor"),
    ] {
        let res = expect_error(post(body.clone()).await.unwrap(), 400, "validation_error").await;
        assert!(res["error"]["details"]["fields"][field].is_string(), "{body}: {res}");
    }
    // Exactly 100 characters (multi-byte ones count as one) is fine.
    let name = "é".repeat(100);
    assert_eq!(t.create_chatbot(&t.dev_key, json!({"name": name})).await["name"], name);

    let c = t.create_chatbot(&t.dev_key, json!({"name": "Keep"})).await;
    let path = format!("/api/v1/chatbots/{}", c["id"].as_str().unwrap());
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": ""})).send().await.unwrap();
    expect_error(res, 400, "validation_error").await;
    let (_, got) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(got["chatbot"]["name"], "Keep", "a refused PATCH changes nothing");
    t.stop().await;
}

#[tokio::test]
async fn concurrent_creates_with_one_name_get_distinct_slugs() {
    let t = TestApp::spawn().await;
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (client, url, key) = (t.client.clone(), t.url("/api/v1/chatbots"), t.dev_key.clone());
        tasks.push(tokio::spawn(async move {
            let res = client.post(url).bearer_auth(key).json(&json!({"name": "Same Name"})).send().await.unwrap();
            assert_eq!(res.status(), 201);
            res.json::<serde_json::Value>().await.unwrap()["chatbot"]["slug"].as_str().unwrap().to_owned()
        }));
    }
    let mut slugs = Vec::new();
    for task in tasks {
        slugs.push(task.await.unwrap());
    }
    slugs.sort();
    slugs.dedup();
    assert_eq!(slugs.len(), 10, "{slugs:?}");
    t.stop().await;
}
