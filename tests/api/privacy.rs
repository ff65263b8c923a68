//! Privacy (docs/api.md §22): `retentionDays` (conversations deleted by the schedule, driven
//! here with a clock of the test's choosing) and `redactPersonalData` (what a visitor types is
//! redacted before it is stored, answered from, or put in an event).

use crate::support::{TestApp, expect_error, parts};
use lore_domain::Timestamp;
use reqwest::Method;
use serde_json::{Value, json};

/// An erasure leaves nothing of the person in the raw store (its own file: it reads beneath the API).
#[path = "privacy_raw.rs"]
mod raw;

const DAY_MS: i64 = 86_400_000;

async fn send(t: &TestApp, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut req = t.req(method, path, &t.dev_key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    parts(req.send().await.unwrap()).await
}

/// A conversation of `owner_path` (`/api/v1/chatbots/{id}` or `/api/v1/minds/{id}`) with one
/// question asked; its id.
async fn conversation(t: &TestApp, owner_path: &str, question: &str) -> String {
    let (status, body) =
        send(t, Method::POST, &format!("{owner_path}/conversations"), Some(json!({"message": question}))).await;
    assert_eq!(status, 201, "{body}");
    body["conversation"]["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn retention_deletes_conversations_past_the_age_on_both_kinds_and_null_keeps_them() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let bot_path = format!("/api/v1/chatbots/{bot}");
    let (_, mind) = send(&t, Method::POST, "/api/v1/minds", Some(json!({"name": "Ada"}))).await;
    let mind_path = format!("/api/v1/minds/{}", mind["mind"]["id"].as_str().unwrap());

    // The setting, its bounds, and `null`.
    let (status, body) = send(&t, Method::PATCH, &bot_path, Some(json!({"retentionDays": 30}))).await;
    assert_eq!((status, &body["chatbot"]["retentionDays"]), (200, &json!(30)), "{body}");
    assert_eq!(body["chatbot"]["redactPersonalData"], false);
    for bad in [json!(0), json!(3651), json!(1.5), json!("30")] {
        let res = t.req(Method::PATCH, &bot_path, &t.dev_key).json(&json!({"retentionDays": bad})).send().await;
        let err = expect_error(res.unwrap(), 400, "validation_error").await;
        assert!(err["error"]["details"]["fields"]["retentionDays"].is_string(), "{bad}: {err}");
    }
    let (_, body) = send(&t, Method::PATCH, &mind_path, Some(json!({"retentionDays": 1}))).await;
    assert_eq!(body["mind"]["retentionDays"], 1, "{body}");

    let old_bot = conversation(&t, &bot_path, "Where is my parcel?").await;
    let old_mind = conversation(&t, &mind_path, "Who are you?").await;
    let now = Timestamp::now().millis();

    // Not old enough yet: nothing goes.
    assert_eq!(t.app.expire_conversations(Timestamp::from_millis(now + DAY_MS / 2)).await.unwrap(), 0);
    // A day and a bit on: the Mind's (1 day) goes, the chatbot's (30 days) stays.
    assert_eq!(t.app.expire_conversations(Timestamp::from_millis(now + DAY_MS + 60_000)).await.unwrap(), 1);
    let (status, _) = send(&t, Method::GET, &format!("{mind_path}/conversations/{old_mind}"), None).await;
    assert_eq!(status, 404, "the expired conversation is gone with its messages");
    let (_, detail) = send(&t, Method::GET, &mind_path, None).await;
    assert_eq!(detail["mind"]["conversationCount"], 0, "the count follows exactly");
    let (status, _) = send(&t, Method::GET, &format!("{bot_path}/conversations/{old_bot}"), None).await;
    assert_eq!(status, 200);

    // `null` keeps everything, however old.
    let (_, body) = send(&t, Method::PATCH, &bot_path, Some(json!({"retentionDays": null}))).await;
    assert_eq!(body["chatbot"]["retentionDays"], Value::Null);
    assert_eq!(t.app.expire_conversations(Timestamp::from_millis(now + 400 * DAY_MS)).await.unwrap(), 0);
    let (status, _) = send(&t, Method::GET, &format!("{bot_path}/conversations/{old_bot}"), None).await;
    assert_eq!(status, 200);

    // A conversation written to recently is kept: the age counts from its last message.
    let (_, _) = send(&t, Method::PATCH, &bot_path, Some(json!({"retentionDays": 2}))).await;
    let later = conversation(&t, &bot_path, "And my refund?").await;
    assert_eq!(t.app.expire_conversations(Timestamp::from_millis(now + DAY_MS)).await.unwrap(), 0);
    assert_eq!(t.app.expire_conversations(Timestamp::from_millis(now + 3 * DAY_MS)).await.unwrap(), 2);
    let (_, list) = send(&t, Method::GET, &format!("{bot_path}/conversations"), None).await;
    assert_eq!(list["conversations"], json!([]), "{later} and {old_bot} are gone: {list}");
    t.stop().await;
}

#[tokio::test]
async fn redaction_replaces_personal_data_before_it_is_stored_and_keeps_the_rest() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let path = format!("/api/v1/chatbots/{bot}");
    let question = "My card 4111 1111 1111 1111 was charged twice for order 12345678; \
        mail jane.doe@example.com or call +44 20 7946 0958, IBAN GB82 WEST 1234 5698 7654 32.";

    // Off (the default): kept as typed.
    let plain = conversation(&t, &path, question).await;
    let (_, read) = send(&t, Method::GET, &format!("{path}/conversations/{plain}"), None).await;
    assert_eq!(read["messages"][0]["content"], question);

    let (_, body) = send(&t, Method::PATCH, &path, Some(json!({"redactPersonalData": true}))).await;
    assert_eq!(body["chatbot"]["redactPersonalData"], true, "{body}");
    let redacted = conversation(&t, &path, question).await;
    let (_, read) = send(&t, Method::GET, &format!("{path}/conversations/{redacted}"), None).await;
    assert_eq!(
        read["messages"][0]["content"],
        "My card [card] was charged twice for order 12345678; mail [email] or call [phone], IBAN [iban].",
        "{read}"
    );
    // A follow-up message is redacted too.
    let messages = format!("{path}/conversations/{redacted}/messages");
    let (status, sent) = send(&t, Method::POST, &messages, Some(json!({"content": "It is 5500 0000 0000 0004"}))).await;
    assert_eq!(status, 201, "{sent}");
    let (_, read) = send(&t, Method::GET, &format!("{path}/conversations/{redacted}"), None).await;
    let contents: Vec<&str> =
        read["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or("")).collect();
    assert!(contents.contains(&"It is [card]"), "{contents:?}");
    assert!(!read.to_string().contains("4111"), "no trace of the number: {read}");
    t.stop().await;
}
