//! A person's data on request (docs/api.md §22): `POST /api/v1/privacy/erase` and
//! `GET /api/v1/privacy/export`, by e-mail address or verified `userId`, across the workspace's
//! chatbots and Minds.

use crate::receiver::Receiver;
use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::time::Duration;

async fn send(t: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = t.req(method, path, &t.dev_key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    parts(req.send().await.unwrap()).await
}

/// A conversation of `owner_path` opened with an API key, with one question and `visitor`; the
/// conversation as answered.
async fn conversation(t: &TestApp, owner_path: &str, visitor: Value, question: &str) -> Value {
    let body = json!({"message": question, "visitor": visitor});
    let (status, body) = send(t, Method::POST, &format!("{owner_path}/conversations"), Some(body)).await;
    assert_eq!(status, 201, "{body}");
    body["conversation"].clone()
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_owned()
}

async fn conversation_count(t: &TestApp, owner_path: &str, member: &str) -> u64 {
    let (status, body) = send(t, Method::GET, owner_path, None).await;
    assert_eq!(status, 200, "{body}");
    body[member]["conversationCount"].as_u64().unwrap()
}

#[tokio::test]
async fn privacy_requests_export_then_erase_one_person_across_chatbots_and_minds() {
    let t = TestApp::spawn().await;
    let bot_path = format!("/api/v1/chatbots/{}", t.chatbot().await);
    let (_, mind) = send(&t, Method::POST, "/api/v1/minds", Some(json!({"name": "Ada"}))).await;
    let mind_path = format!("/api/v1/minds/{}", mind["mind"]["id"].as_str().unwrap());

    // Ada at a chatbot and at a Mind (her address written two ways), Bob at the chatbot, and
    // someone who gave nothing at the Mind.
    let ada_bot =
        conversation(&t, &bot_path, json!({"email": "Ada@Example.com", "name": "Ada"}), "Where is my parcel?").await;
    let ada_mind = conversation(&t, &mind_path, json!({"email": "ada@example.com"}), "Who are you?").await;
    let bob = conversation(&t, &bot_path, json!({"email": "bob@example.com"}), "And my refund?").await;
    let (status, anonymous) = send(&t, Method::POST, &format!("{mind_path}/conversations"), Some(json!({}))).await;
    assert_eq!(status, 201, "{anonymous}");
    assert_eq!(conversation_count(&t, &bot_path, "chatbot").await, 2);
    assert_eq!(conversation_count(&t, &mind_path, "mind").await, 2);

    // The export: exactly Ada's two, each as the conversation routes show it, with its messages.
    let (status, export) = send(&t, Method::GET, "/api/v1/privacy/export?email=ADA%40example.COM", None).await;
    assert_eq!((status, &export["status"]), (200, &json!("success")), "{export}");
    let exported = export["conversations"].as_array().unwrap();
    let ids: BTreeSet<String> = exported.iter().map(id).collect();
    assert_eq!(ids, BTreeSet::from([id(&ada_bot), id(&ada_mind)]), "{export}");
    for c in exported {
        let shown = if c["id"] == ada_bot["id"] { &ada_bot } else { &ada_mind };
        let (_, detail) =
            send(&t, Method::GET, &format!("{}/conversations/{}", owner_path(shown), id(shown)), None).await;
        let mut without_messages = c.clone();
        let messages = without_messages.as_object_mut().unwrap().remove("messages").unwrap();
        assert_eq!(without_messages, detail["conversation"], "the conversation as the API shows it");
        assert_eq!(messages, detail["messages"], "its messages, oldest first");
        assert_eq!(messages.as_array().unwrap().len() as u64, c["messageCount"].as_u64().unwrap());
        assert!(messages.as_array().unwrap().iter().any(|m| m["role"] == "user"), "{messages}");
    }
    assert_eq!(exported.iter().filter(|c| c["chatbotId"].is_string()).count(), 1);
    assert_eq!(exported.iter().filter(|c| c["mindId"].is_string()).count(), 1);
    let (status, none) = send(&t, Method::GET, "/api/v1/privacy/export?userId=ada-1", None).await;
    assert_eq!((status, none["conversations"].clone()), (200, json!([])), "{none}");

    // The erasure: exact counts; Ada's conversations are gone, the others stay.
    let messages = ada_bot["messageCount"].as_u64().unwrap() + ada_mind["messageCount"].as_u64().unwrap();
    let (status, erased) =
        send(&t, Method::POST, "/api/v1/privacy/erase", Some(json!({"email": "ada@EXAMPLE.com"}))).await;
    assert_eq!(status, 200, "{erased}");
    assert_eq!(erased, json!({"status": "success", "erased": {"conversations": 2, "messages": messages}}));
    for gone in [&ada_bot, &ada_mind] {
        let path = format!("{}/conversations/{}", owner_path(gone), id(gone));
        expect_error(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    }
    let (status, _) = send(&t, Method::GET, &format!("{bot_path}/conversations/{}", id(&bob)), None).await;
    assert_eq!(status, 200, "another visitor's conversation stays");
    let anonymous_id = anonymous["conversation"]["id"].as_str().unwrap();
    let (status, _) = send(&t, Method::GET, &format!("{mind_path}/conversations/{anonymous_id}"), None).await;
    assert_eq!(status, 200, "a conversation without a visitor stays");
    assert_eq!(conversation_count(&t, &bot_path, "chatbot").await, 1);
    assert_eq!(conversation_count(&t, &mind_path, "mind").await, 1);
    let (status, export) = send(&t, Method::GET, "/api/v1/privacy/export?email=ada%40example.com", None).await;
    assert_eq!((status, export["conversations"].clone()), (200, json!([])), "{export}");

    // Erasing again finds nothing; by a user id nobody has, nothing either.
    let (_, again) = send(&t, Method::POST, "/api/v1/privacy/erase", Some(json!({"email": "ada@example.com"}))).await;
    assert_eq!(again["erased"], json!({"conversations": 0, "messages": 0}), "{again}");
    let (_, by_id) = send(&t, Method::POST, "/api/v1/privacy/erase", Some(json!({"userId": "ada-1"}))).await;
    assert_eq!(by_id["erased"], json!({"conversations": 0, "messages": 0}), "{by_id}");

    // Each erasure is an event.
    let types = t.event_types().await;
    assert_eq!(types.iter().filter(|e| *e == "privacy.visitor.erased").count(), 3, "{types:?}");

    // Nothing of Ada is left in the store: the rows left are Bob's and the anonymous visitor's.
    if let Some(store) = t.embedded_store() {
        let kept = bob["messageCount"].as_u64().unwrap() + anonymous["conversation"]["messageCount"].as_u64().unwrap();
        assert_eq!(store.conversation_rows().await.unwrap(), (2, kept), "no row of Ada's conversations or messages");
        let ws = t.app.find_workspace("default").await.unwrap().id;
        let events = store.list_events(&ws).await.unwrap();
        let erasures: Vec<&Value> =
            events.iter().filter(|e| e["eventType"] == "privacy.visitor.erased").map(|e| &e["data"]).collect();
        // A notice names the person as the request did until its delivery is over (here: once
        // fanned out, as no one subscribed), then keeps no payload (docs/decisions.md, "Privacy").
        let scrubbed = json!({"erased": true});
        let first = json!({"email": "ada@EXAMPLE.com", "userId": null, "conversations": 2});
        assert!(erasures[0] == &first || erasures[0] == &scrubbed, "{:?}", erasures[0]);
        let third = json!({"email": null, "userId": "ada-1", "conversations": 0});
        assert!(erasures[2] == &third || erasures[2] == &scrubbed, "{:?}", erasures[2]);
    }
    t.stop().await;
}

/// `/api/v1/chatbots/{id}` or `/api/v1/minds/{id}` of a conversation as the API shows it.
fn owner_path(c: &Value) -> String {
    match (c["chatbotId"].as_str(), c["mindId"].as_str()) {
        (Some(bot), _) => format!("/api/v1/chatbots/{bot}"),
        (None, Some(mind)) => format!("/api/v1/minds/{mind}"),
        _ => panic!("a conversation of nobody: {c}"),
    }
}

#[tokio::test]
async fn privacy_requests_refuse_bad_bodies_and_keys_without_workspace_admin() {
    let t = TestApp::spawn().await;
    for (body, field) in [
        (json!({}), "email"),
        (json!({"email": "ada@example.com", "userId": "ada-1"}), "userId"),
        (json!({"email": "not an address"}), "email"),
        (json!({"email": 5}), "email"),
        (json!({"userId": ""}), "userId"),
        (json!({"userId": "x".repeat(201)}), "userId"),
    ] {
        let res = t.req(Method::POST, "/api/v1/privacy/erase", &t.dev_key).json(&body).send().await.unwrap();
        let err = expect_error(res, 400, "validation_error").await;
        assert!(err["error"]["details"]["fields"][field].is_string(), "{body}: {err}");
    }
    let res = t.req(Method::POST, "/api/v1/privacy/erase", &t.dev_key).json(&json!(["ada@example.com"])).send();
    expect_error(res.await.unwrap(), 400, "invalid_json").await;
    for (query, field) in [
        ("", "email"),
        ("?email=ada%40example.com&userId=ada-1", "userId"),
        ("?email=nope", "email"),
        ("?userId=", "userId"),
    ] {
        let res = t.req(Method::GET, &format!("/api/v1/privacy/export{query}"), &t.dev_key).send().await.unwrap();
        let err = expect_error(res, 400, "validation_error").await;
        assert!(err["error"]["details"]["fields"][field].is_string(), "{query}: {err}");
    }

    let narrow = t.key("default", "chatbot:read,minds:read,conversations:read,chat:write").await;
    let res = t.req(Method::POST, "/api/v1/privacy/erase", &narrow).json(&json!({"email": "ada@example.com"})).send();
    let err = expect_error(res.await.unwrap(), 403, "insufficient_scope").await;
    assert_eq!(err["error"]["details"]["required"], "workspace:admin", "{err}");
    let res = t.req(Method::GET, "/api/v1/privacy/export?email=ada%40example.com", &narrow).send();
    expect_error(res.await.unwrap(), 403, "insufficient_scope").await;
    let types = t.event_types().await;
    assert!(!types.iter().any(|e| e == "privacy.visitor.erased"), "a refused erasure is no event: {types:?}");

    // Subscribers get a sample of the event.
    let res = t.req(Method::GET, "/api/integrations/webhooks/triggers/sample?event=privacy.visitor.erased", &t.dev_key);
    let samples: Vec<Value> = res.send().await.unwrap().json().await.unwrap();
    assert_eq!(samples[0]["eventType"], "privacy.visitor.erased", "{samples:?}");
    assert_eq!(samples[0]["data"]["userId"], Value::Null);
    t.stop().await;
}

#[tokio::test]
async fn privacy_requests_erasures_reach_the_subscriptions_of_privacy_visitor_erased() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    let (status, hook) =
        t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/erasures"), "event": "privacy.visitor.erased"})).await;
    assert_eq!((status, &hook["event"]), (201, &json!("privacy.visitor.erased")), "{hook}");
    let bot = t.chatbot().await;
    let (status, refused) = t
        .subscribe(
            &t.dev_key,
            json!({"hookUrl": rx.url("/narrowed"), "event": "privacy.visitor.erased", "chatbotId": bot}),
        )
        .await;
    assert_eq!(status, 400, "an erasure is of the whole workspace: {refused}");

    conversation(&t, &format!("/api/v1/chatbots/{bot}"), json!({"email": "ada@example.com"}), "Hello?").await;
    let (status, erased) =
        send(&t, Method::POST, "/api/v1/privacy/erase", Some(json!({"email": "ada@example.com"}))).await;
    assert_eq!(status, 200, "{erased}");
    let env = rx.next(Duration::from_secs(20)).await.json();
    assert_eq!(env["eventType"], "privacy.visitor.erased");
    assert_eq!(env["data"], json!({"email": "ada@example.com", "userId": null, "conversations": 1}));
    t.stop().await;
}
