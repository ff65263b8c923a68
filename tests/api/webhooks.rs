//! Webhooks over HTTP against a real receiver on 127.0.0.1 (docs/api.md §12–14): the envelope,
//! Standard Webhooks signatures checked by an independent implementation, retries on a short
//! schedule, timeouts, 410, redirects, fan-out, knowledge events, samples, the forms action,
//! the delivery log and redelivery, disabling, and request protection.

use crate::receiver::{Received, Receiver, Reply};
use crate::support::{TestApp, expect_error, parts};
use lore_domain::Timestamp;
use lore_domain::hook::{Hook, HookFilter, HookTarget};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);

fn contact_form() -> Value {
    json!({
        "name": "Contact",
        "fields": [
            {"key": "name", "label": "Your name", "type": "short_text", "required": true},
            {"key": "email", "label": "E-mail", "type": "email"},
            {"key": "topics", "label": "Topics", "type": "checkboxes", "options": ["sales", "support"]},
            {"key": "stars", "label": "Rating", "type": "rating"},
        ]
    })
}

fn id(v: &Value, member: &str) -> String {
    v[member].as_str().unwrap_or_else(|| panic!("no {member} in {v}")).to_owned()
}

/// Verifies a delivery with the `standardwebhooks` crate (the reference implementation).
fn verify(secret: &str, r: &Received) {
    let wh = standardwebhooks::Webhook::new(secret).expect("a Standard Webhooks secret");
    wh.verify(&r.body, &r.headers).unwrap_or_else(|e| panic!("signature refused: {e:?}"));
}

fn attempt_codes(d: &Value) -> Vec<Value> {
    d["attempts"].as_array().unwrap().iter().map(|a| a["statusCode"].clone()).collect()
}

async fn form_and_hook(t: &TestApp, rx: &Receiver, path: &str) -> (String, Value) {
    let form = id(&t.form(contact_form()).await, "id");
    let hook = t.hook(json!({"hookUrl": rx.url(path), "formId": form})).await;
    (form, hook)
}

#[tokio::test]
async fn a_delivery_carries_the_exact_envelope_and_a_verifiable_signature() {
    let t = TestApp::spawn_webhooks("200ms,200ms,200ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/hook").await;
    let secret = id(&hook, "secret");
    assert!(secret.starts_with("whsec_"));

    let values = json!({"name": "Ada", "topics": ["support"], "stars": 4});
    let (status, submitted) = t.submit(&form, json!({"values": values, "source": "embed"})).await;
    assert_eq!(status, 201, "{submitted}");
    let got = rx.next(WAIT).await;
    assert_eq!((got.method.as_str(), got.path.as_str()), ("POST", "/hook"));
    assert_eq!(got.header("content-type"), "application/json");
    assert_eq!(got.header("user-agent"), "Lore-Webhooks/0.1");
    verify(&secret, &got);

    let env = got.json();
    let mut members: Vec<&str> = env.as_object().unwrap().keys().map(String::as_str).collect();
    members.sort();
    assert_eq!(members, ["createdAt", "data", "eventId", "eventType", "metadata"], "{env}");
    assert_eq!(env["eventType"], "form_response");
    let event_id = id(&env, "eventId");
    assert!(event_id.starts_with("evt_") && event_id.len() == 30, "{event_id}");
    assert_eq!(got.header("webhook-id"), event_id, "webhook-id is the eventId");
    let ts: i64 = got.header("webhook-timestamp").parse().unwrap();
    assert!((ts - Timestamp::now().millis() / 1000).abs() <= 5, "webhook-timestamp is now (unix seconds)");
    let created = id(&env, "createdAt");
    assert!(Timestamp::parse(&created).is_some() && created.ends_with('Z') && created.len() == 24, "{created}");
    assert_eq!(created, id(&submitted["response"], "createdAt"));
    assert_eq!(env["metadata"], json!({"source": "embed"}));
    let data = &env["data"];
    assert_eq!(data["formId"], form.as_str());
    assert_eq!(data["formName"], "Contact");
    assert_eq!(data["responseId"], submitted["response"]["id"]);
    assert_eq!(
        data["fields"],
        json!([
            {"key": "name", "label": "Your name", "type": "short_text", "value": "Ada"},
            {"key": "email", "label": "E-mail", "type": "email", "value": null},
            {"key": "topics", "label": "Topics", "type": "checkboxes", "value": ["support"]},
            {"key": "stars", "label": "Rating", "type": "rating", "value": 4},
            {"key": "_formId", "label": "Form ID", "type": "system", "value": form},
            {"key": "_responseId", "label": "Response ID", "type": "system", "value": submitted["response"]["id"]},
        ])
    );

    // A body changed in transit, or another secret, does not verify.
    let mut forged = got.clone();
    forged.body = axum::body::Bytes::from(String::from_utf8_lossy(&got.body).replace("Ada", "Eve"));
    assert!(standardwebhooks::Webhook::new(&secret).unwrap().verify(&forged.body, &forged.headers).is_err());
    let other = t.hook(json!({"hookUrl": rx.url("/other")})).await;
    assert!(standardwebhooks::Webhook::new(&id(&other, "secret")).unwrap().verify(&got.body, &got.headers).is_err());

    // The log: one delivery, succeeded on its first attempt.
    let log = t
        .wait_deliveries(&format!("hookId={}", id(&hook, "hookId")), |b| b["deliveries"][0]["status"] == "succeeded")
        .await;
    let d = &log["deliveries"][0];
    assert!(id(d, "id").starts_with("dlv_"));
    assert_eq!(
        (d["hookId"].clone(), d["eventId"].clone(), d["eventType"].clone()),
        (hook["hookId"].clone(), json!(event_id), json!("form_response"))
    );
    assert_eq!(d["nextAttemptAt"], Value::Null);
    let a = &d["attempts"][0];
    assert_eq!((a["statusCode"].clone(), a["error"].clone()), (json!(200), Value::Null));
    assert!(a["durationMs"].is_u64() && Timestamp::parse(a["at"].as_str().unwrap()).is_some(), "{a}");
    assert_eq!(log["hook"]["status"], "active");
    t.stop().await;
}

#[tokio::test]
async fn a_failing_receiver_is_retried_on_schedule_with_the_same_event_id() {
    let t = TestApp::spawn_webhooks("400ms,800ms,800ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/flaky").await;
    rx.script("/flaky", vec![Reply::Status(500), Reply::Status(503)]);
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    let got = rx.take(3, WAIT).await;
    let ids: Vec<&str> = got.iter().map(|r| r.header("webhook-id")).collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "the same webhook-id on every attempt: {ids:?}");
    assert!(got.iter().all(|r| r.json()["eventId"] == ids[0]), "and the same eventId");
    for r in &got {
        verify(&id(&hook, "secret"), r);
    }
    let gaps: Vec<u128> = got.windows(2).map(|w| (w[1].at - w[0].at).as_millis()).collect();
    assert!(gaps[0] >= 400 && gaps[0] < 1_400, "1st retry after 400 ms: {gaps:?}");
    assert!(gaps[1] >= 800 && gaps[1] < 1_800, "2nd retry after 800 ms: {gaps:?}");

    let log = t.wait_deliveries("", |b| b["deliveries"][0]["status"] == "succeeded").await;
    let d = &log["deliveries"][0];
    assert_eq!(attempt_codes(d), [json!(500), json!(503), json!(200)]);
    assert_eq!(d["nextAttemptAt"], Value::Null);
    assert_eq!(log["pagination"]["total"], 1, "one delivery, three attempts");
    rx.expect_none(Duration::from_millis(1_200)).await;
    t.stop().await;
}

#[tokio::test]
async fn a_receivers_retry_after_delays_the_retry() {
    // The schedule alone would retry after 200 ms; the receiver asks for 2 s, then 1 s (429).
    let t = TestApp::spawn_webhooks("200ms,200ms,200ms").await;
    let rx = Receiver::start().await;
    let (form, _) = form_and_hook(&t, &rx, "/busy").await;
    rx.script("/busy", vec![Reply::RetryAfter(503, "2"), Reply::RetryAfter(429, "1")]);
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    // While it waits, the log shows the retry the receiver asked for (polled, not slept).
    let pending =
        t.wait_deliveries("", |b| b["deliveries"][0]["attempts"].as_array().is_some_and(|a| a.len() == 1)).await;
    let d = &pending["deliveries"][0];
    let first = Timestamp::parse(d["attempts"][0]["at"].as_str().unwrap()).unwrap();
    let next = Timestamp::parse(d["nextAttemptAt"].as_str().unwrap()).unwrap();
    assert!(next.millis() - first.millis() >= 2_000, "next attempt {next:?} at least 2 s after {first:?}");

    let log = t.wait_deliveries("", |b| b["deliveries"][0]["status"] == "succeeded").await;
    let d = &log["deliveries"][0];
    assert_eq!(attempt_codes(d), [json!(503), json!(429), json!(200)], "Retry-After adds no attempt");
    let at: Vec<i64> = d["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| Timestamp::parse(a["at"].as_str().unwrap()).unwrap().millis())
        .collect();
    assert!(at[1] - at[0] >= 2_000, "the first retry waited for Retry-After: 2: {at:?}");
    assert!(at[2] - at[1] >= 1_000, "the second for Retry-After: 1: {at:?}");
    t.stop().await;
}

#[tokio::test]
async fn a_receiver_that_always_fails_gets_exactly_four_attempts_then_the_delivery_fails() {
    let t = TestApp::spawn_webhooks("200ms,200ms,200ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/down").await;
    rx.always("/down", Reply::Status(500));
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    let pending =
        t.wait_deliveries("", |b| b["deliveries"][0]["attempts"].as_array().is_some_and(|a| !a.is_empty())).await;
    let d = &pending["deliveries"][0];
    if d["status"] == "pending" {
        assert!(Timestamp::parse(d["nextAttemptAt"].as_str().unwrap()).is_some(), "a retry is scheduled: {d}");
    }
    assert_eq!(rx.take(4, WAIT).await.len(), 4);
    let log = t
        .wait_deliveries(&format!("hookId={}", id(&hook, "hookId")), |b| b["deliveries"][0]["status"] == "failed")
        .await;
    let d = &log["deliveries"][0];
    assert_eq!(attempt_codes(d), vec![json!(500); 4]);
    assert_eq!(d["nextAttemptAt"], Value::Null);
    assert_eq!(
        (log["hook"]["consecutiveFailures"].clone(), log["hook"]["status"].clone()),
        (json!(1), json!("active"))
    );
    rx.expect_none(Duration::from_millis(1_000)).await;
    t.stop().await;
}

#[tokio::test]
async fn an_attempt_without_an_answer_in_time_is_retried() {
    let t = TestApp::spawn_webhooks_with("200ms,200ms,200ms", Duration::from_millis(700)).await;
    let rx = Receiver::start().await;
    let (form, _) = form_and_hook(&t, &rx, "/slow").await;
    rx.script("/slow", vec![Reply::Slow(Duration::from_secs(3), 200)]);
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    let got = rx.take(2, WAIT).await;
    assert_eq!(got[0].header("webhook-id"), got[1].header("webhook-id"));
    let log = t.wait_deliveries("", |b| b["deliveries"][0]["status"] == "succeeded").await;
    let attempts = log["deliveries"][0]["attempts"].as_array().unwrap().clone();
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!(attempts[0]["statusCode"], Value::Null);
    assert!(attempts[0]["error"].as_str().unwrap().contains("no answer within"), "{attempts:?}");
    assert!(attempts[0]["durationMs"].as_u64().unwrap() >= 650, "{attempts:?}");
    assert_eq!(attempts[1]["statusCode"], 200);
    t.stop().await;
}

#[tokio::test]
async fn a_410_removes_the_subscription_at_once() {
    let t = TestApp::spawn_webhooks("200ms,200ms,200ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/gone").await;
    rx.always("/gone", Reply::Status(410));
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    assert_eq!(rx.next(WAIT).await.path, "/gone");
    let hook_id = id(&hook, "hookId");
    let log = t.wait_deliveries(&format!("hookId={hook_id}"), |b| b["deliveries"][0]["status"] == "failed").await;
    assert_eq!(attempt_codes(&log["deliveries"][0]), [json!(410)], "not retried");
    assert!(log["deliveries"][0]["attempts"][0]["error"].as_str().unwrap().contains("410"));
    assert_eq!(log["hook"], Value::Null, "the subscription is gone");
    let res = t.req(Method::DELETE, &format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}"), &t.dev_key);
    expect_error(res.send().await.unwrap(), 404, "not_found").await;

    t.submit(&form, json!({"values": {"name": "Bob"}})).await;
    rx.expect_none(Duration::from_millis(1_000)).await;
    assert_eq!(t.deliveries("").await["pagination"]["total"], 1, "no delivery for later submissions");
    t.stop().await;
}

#[tokio::test]
async fn redirects_are_answers_not_followed() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    let (form, _) = form_and_hook(&t, &rx, "/moved").await;
    rx.always("/moved", Reply::Redirect(307, "/elsewhere"));
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    let got = rx.take(2, WAIT).await;
    assert!(got.iter().all(|r| r.path == "/moved"), "the Location is never requested");
    let log = t.wait_deliveries("", |b| b["deliveries"][0]["status"] == "failed").await;
    let a = &log["deliveries"][0]["attempts"][0];
    assert_eq!(a["statusCode"], 307);
    assert!(a["error"].as_str().unwrap().contains("redirects are not followed"), "{a}");
    rx.expect_none(Duration::from_millis(500)).await;
    t.stop().await;
}

#[tokio::test]
async fn a_submission_goes_to_the_all_forms_and_that_forms_subscriptions_only() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    let a = id(&t.form(contact_form()).await, "id");
    let b = id(&t.form(contact_form()).await, "id");
    t.hook(json!({"hookUrl": rx.url("/all")})).await;
    t.hook(json!({"hookUrl": rx.url("/all-again"), "formId": null})).await;
    // The dropdown's "All forms" entry (docs/api.md §12).
    t.hook(json!({"hookUrl": rx.url("/all-dropdown"), "formId": "all"})).await;
    t.hook(json!({"hookUrl": rx.url("/a"), "formId": a})).await;
    t.hook(json!({"hookUrl": rx.url("/b"), "formId": b})).await;
    t.hook(json!({"hookUrl": rx.url("/knowledge"), "event": "knowledge.source.*"})).await;

    t.submit(&a, json!({"values": {"name": "Ada"}})).await;
    let mut got = rx.take(4, WAIT).await;
    got.sort_by(|x, y| x.path.cmp(&y.path));
    assert_eq!(got.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(), ["/a", "/all", "/all-again", "/all-dropdown"]);
    assert!(got.iter().all(|r| r.json()["eventId"] == got[0].json()["eventId"]), "one event, four deliveries");
    rx.expect_none(Duration::from_millis(800)).await;

    t.submit(&b, json!({"values": {"name": "Bob"}})).await;
    let mut got = rx.take(4, WAIT).await;
    got.sort_by(|x, y| x.path.cmp(&y.path));
    assert_eq!(got.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(), ["/all", "/all-again", "/all-dropdown", "/b"]);
    assert!(got.iter().all(|r| r.json()["data"]["formId"] == b.as_str()));
    rx.expect_none(Duration::from_millis(800)).await;
    assert_eq!(t.deliveries("").await["pagination"]["total"], 8);
    t.stop().await;
}

#[tokio::test]
async fn knowledge_source_events_reach_the_subscriptions_that_match() {
    let t = TestApp::spawn_webhooks("200ms").await;
    let rx = Receiver::start().await;
    let x = t.chatbot().await;
    let y = t.chatbot().await;
    t.hook(json!({"hookUrl": rx.url("/every"), "event": "knowledge.source.*"})).await;
    t.hook(json!({"hookUrl": rx.url("/ready"), "event": "knowledge.source.ready"})).await;
    t.hook(json!({"hookUrl": rx.url("/x-only"), "event": "knowledge.source.*", "chatbotId": x})).await;
    t.hook(json!({"hookUrl": rx.url("/forms")})).await;

    let (_, src) = t
        .post_source(&t.dev_key, &x, json!({"type": "text", "name": "Policy", "content": "Refunds within 14 days."}))
        .await;
    let src = id(&src["source"], "id");
    t.process(&x, &src).await;
    assert_eq!(t.settle(&x, &src).await["status"], "ready");
    let (_, other) = t.post_source(&t.dev_key, &y, json!({"type": "text", "content": "Other bot."})).await;
    let other = id(&other["source"], "id");
    let res = t.req(Method::DELETE, &format!("/api/v1/chatbots/{y}/sources/{other}"), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status(), 200);

    let got = rx.take(7, WAIT).await;
    let seen = |path: &str| -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = got
            .iter()
            .filter(|r| r.path == path)
            .map(|r| {
                (
                    r.json()["eventType"].as_str().unwrap().to_owned(),
                    r.json()["data"]["sourceId"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let ev = |t: &str, s: &str| (format!("knowledge.source.{t}"), s.to_owned());
    let sorted = |mut v: Vec<(String, String)>| {
        v.sort();
        v
    };
    let every = sorted(vec![ev("created", &src), ev("ready", &src), ev("created", &other), ev("deleted", &other)]);
    assert_eq!(seen("/every"), every, "knowledge.source.* receives all four");
    assert_eq!(seen("/ready"), [ev("ready", &src)], "an exact name receives only that event");
    assert_eq!(seen("/x-only"), sorted(vec![ev("created", &src), ev("ready", &src)]), "chatbotId narrows");
    assert!(seen("/forms").is_empty());

    let ready = got.iter().find(|r| r.path == "/ready").unwrap().json();
    let data = &ready["data"];
    assert_eq!(
        (data["chatbotId"].as_str(), data["sourceType"].as_str(), data["status"].as_str()),
        (Some(x.as_str()), Some("text"), Some("ready"))
    );
    assert!(data["chunkCount"].as_u64().unwrap() >= 1 && data["sourceName"] == "Policy", "{data}");
    let created =
        got.iter().find(|r| r.path == "/x-only" && r.json()["eventType"] == "knowledge.source.created").unwrap();
    assert_eq!(created.json()["data"]["status"], "pending");

    // Every event is fanned out, and nothing else is on its way.
    assert!(t.delivery_store().unfanned_events(100).await.unwrap().is_empty());
    assert_eq!(t.deliveries("").await["pagination"]["total"], 7);
    rx.expect_none(Duration::from_millis(800)).await;
    t.stop().await;
}

#[tokio::test]
async fn subscribe_validates_its_input_and_is_idempotent() {
    let t = TestApp::spawn_webhooks("1s").await;
    let rx = Receiver::start().await;
    let form = id(&t.form(contact_form()).await, "id");
    let bot = t.chatbot().await;
    let before = Timestamp::now();
    let (status, body) = t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/h")})).await;
    assert_eq!(status, 201, "{body}");
    let hook_id = id(&body, "hookId");
    assert!(hook_id.starts_with("hook_"));
    assert_eq!(body["id"], hook_id.as_str());
    assert_eq!(body["status"], "success");
    assert_eq!(
        (body["hookUrl"].as_str(), body["formId"].clone(), body["event"].as_str()),
        (Some(rx.url("/h").as_str()), Value::Null, Some("form_response"))
    );
    assert!(Timestamp::parse(body["createdAt"].as_str().unwrap()).unwrap() >= before);
    let secret = id(&body, "secret");
    assert!(secret.starts_with("whsec_") && standardwebhooks::Webhook::new(&secret).is_ok());

    let (_, again) = t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/h"), "formId": ""})).await;
    assert_eq!(
        (again["hookId"].clone(), again["secret"].clone()),
        (json!(hook_id), json!(secret)),
        "same URL, same events: same hook"
    );
    let (_, narrower) = t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/h"), "formId": form})).await;
    assert_ne!(narrower["hookId"], json!(hook_id), "another form is another subscription");
    assert_eq!(narrower["formId"], form.as_str());
    let (status, k) = t
        .subscribe(&t.dev_key, json!({"hookUrl": rx.url("/k"), "event": "knowledge.source.error", "chatbotId": bot}))
        .await;
    assert_eq!(
        (status, k["event"].as_str(), k["chatbotId"].as_str()),
        (201, Some("knowledge.source.error"), Some(bot.as_str()))
    );

    for (body, status, code, field) in [
        (json!({}), 400, "validation_error", Some("hookUrl")),
        (json!({"hookUrl": "  "}), 400, "validation_error", Some("hookUrl")),
        (json!({"hookUrl": 42}), 400, "validation_error", Some("hookUrl")),
        (json!({"hookUrl": rx.url("/h"), "event": "form.submitted"}), 400, "validation_error", Some("event")),
        (
            json!({"hookUrl": rx.url("/h"), "event": "knowledge.source.*", "formId": form}),
            400,
            "validation_error",
            Some("formId"),
        ),
        (json!({"hookUrl": rx.url("/h"), "chatbotId": bot}), 400, "validation_error", Some("chatbotId")),
        (json!({"hookUrl": "not a url"}), 400, "invalid_url", None),
        (json!({"hookUrl": "https://"}), 400, "invalid_url", None),
        (json!({"hookUrl": format!("https://example.com/{}", "a".repeat(2100))}), 400, "invalid_url", None),
        (json!({"hookUrl": "ftp://example.com/hook"}), 400, "url_blocked", None),
        (json!({"hookUrl": rx.url("/h"), "formId": "form_01jq3z5v7b8c9d0e1f2g3h4j5k"}), 404, "not_found", None),
        (json!({"hookUrl": rx.url("/h"), "formId": "nope"}), 404, "not_found", None),
        (
            json!({"hookUrl": rx.url("/h"), "event": "knowledge.source.ready", "chatbotId": "cb_01jq3z5v7b8c9d0e1f2g3h4j5k"}),
            404,
            "not_found",
            None,
        ),
    ] {
        let res = t
            .req(Method::POST, "/api/integrations/webhooks/triggers/subscribe", &t.dev_key)
            .json(&body)
            .send()
            .await
            .unwrap();
        let err = expect_error(res, status, code).await;
        if let Some(f) = field {
            assert!(err["error"]["details"]["fields"].get(f).is_some(), "{body}: {err}");
        }
    }

    // Another workspace's form is not found; scopes are checked.
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    let (status, _) = t.subscribe(&theirs, json!({"hookUrl": rx.url("/h"), "formId": form})).await;
    assert_eq!(status, 404);
    let reader = t.key("default", "forms:read,forms:write").await;
    let res = t
        .req(Method::POST, "/api/integrations/webhooks/triggers/subscribe", &reader)
        .json(&json!({"hookUrl": rx.url("/h")}));
    let err = expect_error(res.send().await.unwrap(), 403, "insufficient_scope").await;
    assert_eq!(err["error"]["details"]["required"], "webhooks:write");
    t.stop().await;
}

#[tokio::test]
async fn unsubscribe_works_by_path_and_by_body() {
    let t = TestApp::spawn_webhooks("1s").await;
    let rx = Receiver::start().await;
    let a = id(&t.hook(json!({"hookUrl": rx.url("/a")})).await, "hookId");
    let b = id(&t.hook(json!({"hookUrl": rx.url("/b")})).await, "hookId");
    let base = "/api/integrations/webhooks/triggers/subscribe";

    let (status, body) = parts(t.req(Method::DELETE, &format!("{base}/{a}"), &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, body), (200, json!({"status": "success", "deleted": true, "hookId": a, "id": a})));
    expect_error(t.req(Method::DELETE, &format!("{base}/{a}"), &t.dev_key).send().await.unwrap(), 404, "not_found")
        .await;
    expect_error(t.req(Method::DELETE, &format!("{base}/hook_x"), &t.dev_key).send().await.unwrap(), 404, "not_found")
        .await;

    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    let res = t.req(Method::DELETE, base, &theirs).json(&json!({"hookId": b}));
    expect_error(res.send().await.unwrap(), 404, "not_found").await;
    let (status, body) =
        parts(t.req(Method::DELETE, base, &t.dev_key).json(&json!({"hookId": b})).send().await.unwrap()).await;
    assert_eq!((status, body["deleted"].clone(), body["hookId"].clone()), (200, json!(true), json!(b)));
    expect_error(
        t.req(Method::DELETE, base, &t.dev_key).json(&json!({"hookId": b})).send().await.unwrap(),
        404,
        "not_found",
    )
    .await;
    let err = expect_error(
        t.req(Method::DELETE, base, &t.dev_key).json(&json!({})).send().await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    assert!(err["error"]["details"]["fields"]["hookId"].is_string());
    expect_error(t.req(Method::DELETE, base, &t.dev_key).send().await.unwrap(), 400, "invalid_json").await;
    let reader = t.key("default", "forms:read").await;
    expect_error(
        t.req(Method::DELETE, &format!("{base}/{b}"), &reader).send().await.unwrap(),
        403,
        "insufficient_scope",
    )
    .await;
    t.stop().await;
}

#[tokio::test]
async fn subscriptions_are_listed_newest_first_a_page_at_a_time_without_secrets() {
    let t = TestApp::spawn_webhooks("1s").await;
    let rx = Receiver::start().await;
    let mut made = Vec::new();
    for (path, event) in [("/a", "form_response"), ("/b", "knowledge.source.*"), ("/c", "message.rated")] {
        made.push(id(&t.hook(json!({"hookUrl": rx.url(path), "event": event})).await, "hookId"));
    }
    let base = "/api/integrations/webhooks/triggers/subscribe";
    let list = |key: &str, query: &str| {
        let res = t.req(Method::GET, &format!("{base}?{query}"), key);
        async move { parts(res.send().await.unwrap()).await }
    };

    let (status, body) = list(&t.dev_key, "").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["pagination"], json!({"page": 1, "limit": 20, "total": 3, "totalPages": 1}));
    let hooks = body["hooks"].as_array().unwrap();
    let mut ids: Vec<&str> = hooks.iter().map(|h| h["hookId"].as_str().unwrap()).collect();
    // Newest first: by creation time, then by id, both descending.
    let order: Vec<(&str, &str)> =
        hooks.iter().map(|h| (h["createdAt"].as_str().unwrap(), h["hookId"].as_str().unwrap())).collect();
    let mut sorted = order.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(order, sorted, "newest first");
    ids.sort_unstable();
    let mut expected: Vec<&str> = made.iter().map(String::as_str).collect();
    expected.sort_unstable();
    assert_eq!(ids, expected);
    for h in hooks {
        assert!(h.get("secret").is_none(), "no secret in a list: {h}");
        assert_eq!((h["status"].as_str(), h["consecutiveFailures"].as_u64()), (Some("active"), Some(0)), "{h}");
    }
    let rated = hooks.iter().find(|h| h["event"] == "message.rated").unwrap();
    assert_eq!(rated["hookUrl"], rx.url("/c"));

    // Pages of two: every subscription once.
    let (_, first) = list(&t.dev_key, "limit=2").await;
    let (_, second) = list(&t.dev_key, "limit=2&page=2").await;
    assert_eq!((first["hooks"].as_array().unwrap().len(), second["hooks"].as_array().unwrap().len()), (2, 1));
    assert_eq!(second["pagination"]["totalPages"], 2);
    let paged: Vec<Value> =
        first["hooks"].as_array().unwrap().iter().chain(second["hooks"].as_array().unwrap()).cloned().collect();
    assert_eq!(&paged, hooks, "the same order across pages");

    // After an unsubscribe it is gone; another workspace sees none; the scope is webhooks:write.
    let res = t.req(Method::DELETE, &format!("{base}/{}", made[0]), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(list(&t.dev_key, "").await.1["pagination"]["total"], 2);
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    let (status, body) = list(&theirs, "").await;
    assert_eq!((status, body["hooks"].clone(), body["pagination"]["total"].clone()), (200, json!([]), json!(0)));
    let reader = t.key("default", "forms:read").await;
    expect_error(t.req(Method::GET, base, &reader).send().await.unwrap(), 403, "insufficient_scope").await;
    expect_error(
        t.req(Method::GET, &format!("{base}?limit=0"), &t.dev_key).send().await.unwrap(),
        400,
        "validation_error",
    )
    .await;
    t.stop().await;
}

#[tokio::test]
async fn the_forms_action_lists_all_forms_first_then_each_form_newest_first() {
    let t = TestApp::spawn().await;
    let path = "/api/integrations/webhooks/actions/forms";
    let (status, empty) = parts(t.req(Method::GET, path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, empty), (200, json!([{"id": "all", "name": "All forms"}])));
    let older = t.form(json!({"name": "Older", "fields": [{"key": "q", "label": "Q", "type": "short_text"}]})).await;
    let newer = t.form(json!({"name": "Newer", "fields": [{"key": "q", "label": "Q", "type": "short_text"}]})).await;
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    t.create_form(&theirs, json!({"name": "Theirs", "fields": [{"key": "q", "label": "Q", "type": "short_text"}]}))
        .await;

    let (_, list) = parts(t.req(Method::GET, path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(
        list,
        json!([
            {"id": "all", "name": "All forms"},
            {"id": newer["id"], "name": "Newer"},
            {"id": older["id"], "name": "Older"},
        ])
    );
    let writer = t.key("default", "forms:write,webhooks:write").await;
    let err = expect_error(t.req(Method::GET, path, &writer).send().await.unwrap(), 403, "insufficient_scope").await;
    assert_eq!(err["error"]["details"]["required"], "forms:read");
    t.stop().await;
}

#[tokio::test]
async fn samples_are_the_latest_responses_or_made_up_from_the_fields() {
    let t = TestApp::spawn().await;
    let path = "/api/integrations/webhooks/triggers/sample";
    let get = |q: String| {
        let req = t.req(Method::GET, &format!("{path}{q}"), &t.dev_key);
        async move { parts(req.send().await.unwrap()).await }
    };
    // No form at all: one example envelope covering every field type ("all" means the same).
    let (status, samples) = get(String::new()).await;
    assert_eq!(status, 200, "{samples}");
    let (status, all) = get("?formId=all".into()).await;
    assert_eq!((status, all[0]["data"]["formName"].clone()), (200, samples[0]["data"]["formName"].clone()), "{all}");
    assert_eq!(
        all[0]["data"]["fields"].as_array().map(Vec::len),
        samples[0]["data"]["fields"].as_array().map(Vec::len)
    );
    assert_eq!(samples.as_array().unwrap().len(), 1);
    let types: Vec<&str> =
        samples[0]["data"]["fields"].as_array().unwrap().iter().map(|f| f["type"].as_str().unwrap()).collect();
    for ty in [
        "short_text",
        "long_text",
        "email",
        "phone",
        "number",
        "date",
        "dropdown",
        "multiple_choice",
        "checkboxes",
        "file",
        "signature",
        "rating",
        "system",
    ] {
        assert!(types.contains(&ty), "{ty} missing from {types:?}");
    }

    // A form without responses: one envelope made up from its fields, in order.
    let form = t.form(contact_form()).await;
    let form_id = id(&form, "id");
    let (_, samples) = get(format!("?formId={form_id}")).await;
    let s = &samples[0];
    assert_eq!(samples.as_array().unwrap().len(), 1);
    assert_eq!(
        (s["eventType"].as_str(), s["data"]["formId"].as_str(), s["data"]["formName"].as_str()),
        (Some("form_response"), Some(form_id.as_str()), Some("Contact"))
    );
    let keys: Vec<&str> = s["data"]["fields"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["name", "email", "topics", "stars", "_formId", "_responseId"]);
    assert!(
        s["data"]["fields"].as_array().unwrap().iter().all(|f| !f["value"].is_null()),
        "every field has a value: {s}"
    );
    assert_eq!(s["data"]["fields"][2]["value"], json!(["sales"]), "choices come from the options");
    assert!(id(s, "eventId").starts_with("evt_") && s["metadata"]["source"] == "direct");

    // With responses: the newest real ones, as they are delivered.
    let mut responses = Vec::new();
    for name in ["Ada", "Grace", "Hedy", "Joan"] {
        let (_, r) = t.submit(&form_id, json!({"values": {"name": name}, "source": "chatbot"})).await;
        responses.push(id(&r["response"], "id"));
    }
    let (_, samples) = get(format!("?formId={form_id}")).await;
    let got: Vec<&str> =
        samples.as_array().unwrap().iter().map(|e| e["data"]["responseId"].as_str().unwrap()).collect();
    assert_eq!(
        got,
        [responses[3].as_str(), responses[2].as_str(), responses[1].as_str()],
        "newest first, three at most"
    );
    assert_eq!(samples[0]["data"]["fields"][0]["value"], "Joan");
    assert_eq!(samples[0]["metadata"]["source"], "chatbot");
    // The outbox can be read beneath the API on the embedded backend only.
    if let Some(store) = t.embedded_store() {
        let events = store.list_events(&t.app.find_workspace("default").await.unwrap().id).await.unwrap();
        let delivered = events.iter().find(|e| e["data"]["responseId"] == responses[3].as_str()).unwrap();
        assert_eq!(&samples[0], delivered, "a sample is the envelope that was emitted");
    }

    let other = t.form(json!({"name": "Other", "fields": [{"key": "q", "label": "Q", "type": "short_text"}]})).await;
    let (_, r) = t.submit(&id(&other, "id"), json!({"values": {"q": "latest"}})).await;
    let (_, across) = get(String::new()).await;
    assert_eq!(across[0]["data"]["responseId"], r["response"]["id"], "without formId: across all forms");
    assert_eq!(across.as_array().unwrap().len(), 3);

    for bad in ["form_01jq3z5v7b8c9d0e1f2g3h4j5k", "garbage"] {
        let res = t.req(Method::GET, &format!("{path}?formId={bad}"), &t.dev_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    let writer = t.key("default", "forms:write,webhooks:write").await;
    let err = expect_error(t.req(Method::GET, path, &writer).send().await.unwrap(), 403, "insufficient_scope").await;
    assert_eq!(err["error"]["details"]["required"], "forms:read");
    t.stop().await;
}

#[tokio::test]
async fn deliveries_are_listed_filtered_and_redelivered_with_the_same_event_id() {
    let t = TestApp::spawn_webhooks("100ms,100ms,100ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/down").await;
    let hook_id = id(&hook, "hookId");
    rx.always("/down", Reply::Status(502));
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;
    let first = rx.take(4, WAIT).await;
    let log = t.wait_deliveries("status=failed", |b| b["pagination"]["total"] == 1).await;
    let d = log["deliveries"][0].clone();
    let dlv = id(&d, "id");
    assert!(log.get("hook").is_none(), "no hook member without hookId");
    assert_eq!(t.deliveries("status=succeeded").await["pagination"]["total"], 0);
    assert_eq!(t.deliveries(&format!("hookId={hook_id}&status=failed")).await["deliveries"][0]["id"], dlv.as_str());

    for q in ["status=bogus", "hookId=nope", "hookId=form_01jq3z5v7b8c9d0e1f2g3h4j5k", "page=0"] {
        let res =
            t.req(Method::GET, &format!("/api/integrations/webhooks/deliveries?{q}"), &t.dev_key).send().await.unwrap();
        expect_error(res, 400, "validation_error").await;
    }

    // Redeliver: 202 at once, pending with a fresh round; the old attempts stay.
    rx.always("/down", Reply::Status(200));
    let path = format!("/api/integrations/webhooks/deliveries/{dlv}/redeliver");
    let (status, body) = parts(t.req(Method::POST, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 202, "{body}");
    let re = &body["delivery"];
    assert_eq!(
        (re["id"].as_str(), re["status"].as_str(), re["attempts"].as_array().unwrap().len()),
        (Some(dlv.as_str()), Some("pending"), 4)
    );
    assert!(re["nextAttemptAt"].is_string());
    let again = rx.next(WAIT).await;
    assert_eq!(again.header("webhook-id"), first[0].header("webhook-id"), "the same eventId on redelivery");
    assert_eq!(again.json(), first[0].json(), "the same envelope");
    verify(&id(&hook, "secret"), &again);
    let log = t.wait_deliveries(&format!("hookId={hook_id}"), |b| b["deliveries"][0]["status"] == "succeeded").await;
    assert_eq!(attempt_codes(&log["deliveries"][0]), [json!(502), json!(502), json!(502), json!(502), json!(200)]);
    assert_eq!(log["hook"]["consecutiveFailures"], 0, "a success ends the failure streak");

    for bad in ["dlv_01jq3z5v7b8c9d0e1f2g3h4j5k", "dlv_nope"] {
        let res = t.req(Method::POST, &format!("/api/integrations/webhooks/deliveries/{bad}/redeliver"), &t.dev_key);
        expect_error(res.send().await.unwrap(), 404, "not_found").await;
    }
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    expect_error(t.req(Method::POST, &path, &theirs).send().await.unwrap(), 404, "not_found").await;
    let res = t.req(Method::GET, "/api/integrations/webhooks/deliveries", &theirs).send().await.unwrap();
    assert_eq!(parts(res).await.1["pagination"]["total"], 0, "deliveries are per workspace");
    let reader = t.key("default", "forms:read").await;
    for (m, p) in [(Method::GET, "/api/integrations/webhooks/deliveries".to_owned()), (Method::POST, path.clone())] {
        let err = expect_error(t.req(m, &p, &reader).send().await.unwrap(), 403, "insufficient_scope").await;
        assert_eq!(err["error"]["details"]["required"], "webhooks:write");
    }

    // Unsubscribed: the delivery cannot be sent again.
    t.req(Method::DELETE, &format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}"), &t.dev_key)
        .send()
        .await
        .unwrap();
    expect_error(t.req(Method::POST, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn twenty_failed_deliveries_in_a_row_disable_a_subscription_until_it_subscribes_again() {
    let t = TestApp::spawn_webhooks("0ms,0ms,0ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/down").await;
    let hook_id = id(&hook, "hookId");
    rx.always("/down", Reply::Status(500));
    for n in 0..20 {
        let (status, _) = t.submit(&form, json!({"values": {"name": format!("n{n}")}})).await;
        assert_eq!(status, 201);
    }
    let log = t.wait_deliveries(&format!("hookId={hook_id}&status=failed"), |b| b["pagination"]["total"] == 20).await;
    assert_eq!(
        (log["hook"]["status"].as_str(), log["hook"]["consecutiveFailures"].as_u64()),
        (Some("disabled"), Some(20))
    );
    assert_eq!(rx.take(80, WAIT).await.len(), 80, "4 attempts each");
    let (_, verified) =
        parts(t.req(Method::GET, "/api/integrations/webhooks/auth/verify", &t.dev_key).send().await.unwrap()).await;
    assert_eq!(verified["webhooks"], json!({"active": 0, "disabled": 1}));

    // Disabled: new responses make no delivery, and redelivery is refused.
    t.submit(&form, json!({"values": {"name": "late"}})).await;
    rx.expect_none(Duration::from_millis(800)).await;
    assert_eq!(t.deliveries(&format!("hookId={hook_id}")).await["pagination"]["total"], 20);
    let dlv = id(&log["deliveries"][0], "id");
    let res = t.req(Method::POST, &format!("/api/integrations/webhooks/deliveries/{dlv}/redeliver"), &t.dev_key);
    expect_error(res.send().await.unwrap(), 400, "invalid_operation").await;
    // So are a replay and a test event; its health says why.
    let hook_path = format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}");
    let res =
        t.req(Method::POST, &format!("{hook_path}/replay"), &t.dev_key).json(&json!({"since": "2020-01-01T00:00:00Z"}));
    expect_error(res.send().await.unwrap(), 400, "invalid_operation").await;
    let res = t.req(Method::POST, &format!("{hook_path}/test"), &t.dev_key);
    expect_error(res.send().await.unwrap(), 400, "invalid_operation").await;
    let (_, health) = parts(t.req(Method::GET, &hook_path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(
        (health["hook"]["status"].as_str(), health["hook"]["consecutiveFailures"].as_u64()),
        (Some("disabled"), Some(20))
    );

    // Subscribing again re-enables the same subscription.
    rx.always("/down", Reply::Status(204));
    let again = t.hook(json!({"hookUrl": rx.url("/down"), "formId": form})).await;
    assert_eq!(again["hookId"], hook_id.as_str());
    t.submit(&form, json!({"values": {"name": "back"}})).await;
    assert_eq!(rx.next(WAIT).await.json()["data"]["fields"][0]["value"], "back");
    let log = t.wait_deliveries(&format!("hookId={hook_id}&status=succeeded"), |b| b["pagination"]["total"] == 1).await;
    assert_eq!(
        (log["hook"]["status"].as_str(), log["hook"]["consecutiveFailures"].as_u64()),
        (Some("active"), Some(0))
    );
    t.stop().await;
}

#[tokio::test]
async fn with_the_address_rule_on_private_hook_urls_are_refused() {
    let t = TestApp::spawn().await;
    for url in [
        "http://127.0.0.1:8080/hook",
        "http://localhost:8000/hook",
        "http://10.0.0.7/hook",
        "http://192.168.1.1/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8000/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://2130706433/hook",
        "http://0x7f.0.0.1/hook",
        "https://example.com:22/hook",
        "file:///etc/passwd",
    ] {
        let (status, body) = t.subscribe(&t.dev_key, json!({"hookUrl": url})).await;
        assert_eq!((status, body["error"]["code"].as_str()), (400, Some("url_blocked")), "{url}: {body}");
    }
    assert_eq!(t.hook_store().count_hooks(&t.app.find_workspace("default").await.unwrap().id).await.unwrap().active, 0);
    t.stop().await;
}

#[tokio::test]
async fn the_address_connected_to_is_checked_again_at_delivery_time() {
    // A subscription whose host resolves to a private address only now (DNS rebinding): stored
    // directly, as if its name had resolved to a public address when it was checked. Port 8123
    // passes the port rule, so only the connect-time address check can refuse it.
    let t = TestApp::spawn().await;
    let ws = t.app.find_workspace("default").await.unwrap().id;
    let form = id(&t.form(contact_form()).await, "id");
    let target = HookTarget::new(HookFilter::FormResponse, None, None).unwrap();
    let hook = Hook::new(ws, "http://localhost:8123/rebound".into(), target, Timestamp::now());
    t.hook_store().subscribe(&hook, 100).await.unwrap().expect("within the cap");
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;

    let log = t.wait_deliveries("", |b| b["deliveries"][0]["attempts"].as_array().is_some_and(|a| !a.is_empty())).await;
    let d = &log["deliveries"][0];
    assert_eq!((d["status"].as_str(), d["attempts"][0]["statusCode"].clone()), (Some("pending"), Value::Null), "{d}");
    let error = d["attempts"][0]["error"].as_str().unwrap();
    assert!(error.contains("blocked by request protection") && error.contains("localhost resolves to"), "{error}");
    t.stop().await;
}

#[tokio::test]
async fn a_workspace_has_at_most_its_cap_of_subscriptions() {
    let t = TestApp::spawn_with(lore::compose::Overrides {
        allow_private_network: true,
        max_hooks_per_workspace: Some(3),
        ..Default::default()
    })
    .await;
    let rx = Receiver::start().await;
    let hooks: Vec<String> = [
        t.hook(json!({"hookUrl": rx.url("/1")})).await,
        t.hook(json!({"hookUrl": rx.url("/2")})).await,
        t.hook(json!({"hookUrl": rx.url("/3")})).await,
    ]
    .iter()
    .map(|h| id(h, "hookId"))
    .collect();
    let (status, body) = t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/4")})).await;
    assert_eq!((status, body["error"]["code"].clone()), (403, json!("webhooks_limit_reached")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains('3'), "{body}");
    // Subscribing an existing target again is no new subscription: fine at the cap.
    assert_eq!(id(&t.hook(json!({"hookUrl": rx.url("/1")})).await, "hookId"), hooks[0]);
    // Another workspace has its own cap.
    t.workspace("other", LimitsPatch::default()).await;
    let theirs = t.key("other", "all").await;
    assert_eq!(t.subscribe(&theirs, json!({"hookUrl": rx.url("/4")})).await.0, 201);
    // Unsubscribing makes room again.
    let base = "/api/integrations/webhooks/triggers/subscribe";
    let res = t.req(Method::DELETE, &format!("{base}/{}", hooks[1]), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(t.subscribe(&t.dev_key, json!({"hookUrl": rx.url("/4")})).await.0, 201);
    t.stop().await;
}

/// Events queued ahead of the one whose first attempt is timed.
const BACKLOG: usize = 500;

#[tokio::test]
async fn a_backlog_of_events_delays_a_new_subscriptions_first_attempt_by_a_bounded_time() {
    // Knowledge events nobody subscribed to wait in the deliveries queue before the server
    // starts. (Form responses also travel through the table's outbox, which the dispatcher fans
    // out itself; knowledge events reach subscribers only through the queue.) The embedded
    // backend fans events out from its outbox table, with no queue to back up.
    let Some(backlog) = crate::support::aws_with_event_backlog(BACKLOG).await else { return };
    let started = std::time::Instant::now();
    let t = TestApp::spawn_with(lore::compose::Overrides {
        allow_private_network: true,
        webhook_retry_schedule: Some(lore_domain::delivery::RetrySchedule::parse("1s").unwrap()),
        aws: Some(backlog.aws),
        ..Default::default()
    })
    .await;
    let rx = Receiver::start().await;
    let bot = t.chatbot().await;
    t.hook(json!({"hookUrl": rx.url("/after-backlog"), "event": "knowledge.source.ready", "chatbotId": bot})).await;
    let (_, src) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "Refunds within 14 days."})).await;
    let src = id(&src["source"], "id");
    t.process(&bot, &src).await;
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    // The bound: twice what the queue service itself takes to hand out and delete as many
    // messages (measured just before, in this run), plus 10 s for the server's start and the
    // source's processing (docs/limits.md "Webhooks").
    let bound = backlog.peer_drain * 2 + Duration::from_secs(10);
    let got = rx.next(bound + Duration::from_secs(120)).await;
    let waited = started.elapsed();
    assert_eq!((got.path.as_str(), got.json()["data"]["sourceId"].clone()), ("/after-backlog", json!(src)));
    eprintln!(
        "first attempt behind {BACKLOG} events: {waited:?} from the server's start; the queue's own drain: {:?}",
        backlog.peer_drain
    );
    assert!(waited < bound, "the first attempt came {waited:?} after the server started; bound {bound:?}");
    t.stop().await;
}

#[tokio::test]
async fn knowledge_samples_are_the_newest_fitting_sources_or_made_up() {
    let t = TestApp::spawn().await;
    let sample = |query: &str| {
        let path = format!("/api/integrations/webhooks/triggers/sample?{query}");
        let req = t.req(Method::GET, &path, &t.dev_key);
        async move { parts(req.send().await.unwrap()).await }
    };
    // No chatbot yet: one made up, shaped like the real event.
    let (status, made_up) = sample("event=knowledge.source.ready").await;
    assert_eq!(status, 200, "{made_up}");
    let env = &made_up[0];
    assert_eq!(
        (env["eventType"].as_str(), env["data"]["status"].as_str()),
        (Some("knowledge.source.ready"), Some("ready"))
    );
    assert!(
        env["data"]["chatbotId"].as_str().unwrap().starts_with("cb_") && env["data"]["chunkCount"].is_u64(),
        "{env}"
    );

    let bot = t.chatbot().await;
    let (_, src) =
        t.post_source(&t.dev_key, &bot, json!({"type": "text", "name": "Policy", "content": "Refunds."})).await;
    let src = id(&src["source"], "id");
    t.process(&bot, &src).await;
    assert_eq!(t.settle(&bot, &src).await["status"], "ready");
    for (event, status) in [("ready", "ready"), ("created", "pending"), ("deleted", "deleted")] {
        let (code, got) = sample(&format!("event=knowledge.source.{event}&chatbotId={bot}")).await;
        assert_eq!(code, 200, "{got}");
        let env = &got.as_array().unwrap()[0];
        assert_eq!(env["eventType"], format!("knowledge.source.{event}"));
        assert_eq!(
            (env["data"]["sourceId"].as_str(), env["data"]["status"].as_str()),
            (Some(src.as_str()), Some(status))
        );
        assert_eq!(env["data"]["sourceName"], "Policy");
    }
    // The newest chatbot is used when none is named; no failed source: an error made up.
    let (_, newest) = sample("event=knowledge.source.ready").await;
    assert_eq!(newest[0]["data"]["sourceId"], src.as_str());
    let (_, failed) = sample(&format!("event=knowledge.source.error&chatbotId={bot}")).await;
    assert_ne!(failed[0]["data"]["sourceId"], src.as_str());
    assert!(failed[0]["data"]["error"].as_str().is_some_and(|e| !e.is_empty()), "{failed}");

    for bad in ["event=knowledge.source.*", "event=knowledge.source.bogus"] {
        expect_error(
            t.req(Method::GET, &format!("/api/integrations/webhooks/triggers/sample?{bad}"), &t.dev_key)
                .send()
                .await
                .unwrap(),
            400,
            "validation_error",
        )
        .await;
    }
    let other = "cb_01jq3z5v7b8c9d0e1f2g3h4j5k";
    let res = t.req(
        Method::GET,
        &format!("/api/integrations/webhooks/triggers/sample?event=knowledge.source.ready&chatbotId={other}"),
        &t.dev_key,
    );
    expect_error(res.send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn a_test_event_reaches_the_subscription_and_its_health_shows_how_deliveries_went() {
    let t = TestApp::spawn_webhooks("100ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/test").await;
    let hook_id = id(&hook, "hookId");
    let health_path = format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}");
    let health = || async {
        let (status, body) = parts(t.req(Method::GET, &health_path, &t.dev_key).send().await.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        body["hook"].clone()
    };
    let fresh = health().await;
    assert_eq!((fresh["status"].as_str(), fresh["consecutiveFailures"].as_u64()), (Some("active"), Some(0)));
    assert_eq!((fresh["lastSuccessAt"].clone(), fresh["lastFailureAt"].clone()), (Value::Null, Value::Null));
    assert_eq!(fresh["hookUrl"], rx.url("/test"));

    // A test event: a sample of what the subscription receives, new eventId, signed, logged.
    t.submit(&form, json!({"values": {"name": "Ada"}})).await;
    let real = rx.next(WAIT).await;
    let test_path = format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}/test");
    let (status, queued) = parts(t.req(Method::POST, &test_path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 202, "{queued}");
    let got = rx.next(WAIT).await;
    verify(&id(&hook, "secret"), &got);
    let env = got.json();
    assert_eq!((env["eventType"].as_str(), env["metadata"]["test"].as_bool()), (Some("form_response"), Some(true)));
    assert_eq!(env["data"]["formId"], form.as_str());
    assert_ne!(env["eventId"], real.json()["eventId"], "a test event has its own id");
    assert_eq!(env["eventId"], queued["delivery"]["eventId"]);
    let ok = t.wait_deliveries(&format!("hookId={hook_id}&status=succeeded"), |b| b["pagination"]["total"] == 2).await;
    let newest = &ok["deliveries"][0];
    let healthy = health().await;
    assert_eq!(healthy["lastSuccessAt"], newest["attempts"][0]["at"]);
    assert_eq!(healthy["pendingDeliveries"], 0);

    // A receiver that fails: the failure shows, with the streak.
    rx.always("/test", Reply::Status(500));
    assert_eq!(t.req(Method::POST, &test_path, &t.dev_key).send().await.unwrap().status(), 202);
    t.wait_deliveries(&format!("hookId={hook_id}&status=failed"), |b| b["pagination"]["total"] == 1).await;
    let sick = health().await;
    assert_eq!(sick["consecutiveFailures"], 1);
    assert!(sick["lastFailureAt"].is_string() && sick["lastSuccessAt"] == healthy["lastSuccessAt"], "{sick}");

    // Another workspace sees nothing of it.
    let ws = t.workspace("other", LimitsPatch::default()).await;
    let other = t.key(&ws, "webhooks:write").await;
    expect_error(t.req(Method::GET, &health_path, &other).send().await.unwrap(), 404, "not_found").await;
    expect_error(t.req(Method::POST, &test_path, &other).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn a_replay_resends_exactly_the_failed_deliveries_of_its_window_with_their_ids() {
    let t = TestApp::spawn_webhooks("100ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/down").await;
    let hook_id = id(&hook, "hookId");
    rx.always("/down", Reply::Status(503));
    for n in 1..=3u64 {
        t.submit(&form, json!({"values": {"name": "Ada"}})).await;
        // One at a time, so that their creation times are apart and ordered.
        t.wait_deliveries(&format!("hookId={hook_id}&status=failed"), |b| b["pagination"]["total"] == n).await;
    }
    let failed = t.wait_deliveries(&format!("hookId={hook_id}&status=failed"), |b| b["pagination"]["total"] == 3).await;
    let failed = failed["deliveries"].as_array().unwrap().clone(); // newest first
    let since = failed[1]["createdAt"].as_str().unwrap().to_owned();
    let window: Vec<String> = failed[..2].iter().map(|d| id(d, "eventId")).collect();
    // "100ms": an attempt and one retry each.
    assert_eq!(rx.take(6, WAIT).await.len(), 6);

    rx.always("/down", Reply::Status(200));
    let replay = format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}/replay");
    let post = |body: Value| {
        let req = t.req(Method::POST, &replay, &t.dev_key).json(&body);
        async move { parts(req.send().await.unwrap()).await }
    };
    let (status, done) = post(json!({"since": since})).await;
    assert_eq!(status, 202, "{done}");
    assert_eq!((done["replayed"].as_u64(), done["more"].as_bool()), (Some(2), Some(false)));
    let got = rx.take(2, WAIT).await;
    let mut sent: Vec<String> = got.iter().map(|r| r.header("webhook-id").to_owned()).collect();
    sent.sort();
    let mut expected = window.clone();
    expected.sort();
    assert_eq!(sent, expected, "exactly the failed deliveries created since {since}, with their ids");
    for r in &got {
        verify(&id(&hook, "secret"), r);
        assert_eq!(r.json()["eventId"], r.header("webhook-id"));
    }
    let log = t.wait_deliveries(&format!("hookId={hook_id}&status=succeeded"), |b| b["pagination"]["total"] == 2).await;
    assert_eq!(log["pagination"]["total"], 2);
    let still = t.deliveries(&format!("hookId={hook_id}&status=failed")).await;
    assert_eq!(still["deliveries"][0]["eventId"], failed[2]["eventId"], "the one before the window stays failed");
    // Nothing failed in the window any more.
    let (_, again) = post(json!({"since": since})).await;
    assert_eq!(again["replayed"], 0);
    rx.expect_none(Duration::from_millis(300)).await;

    for bad in [json!({}), json!({"since": "yesterday"}), json!({"since": since, "until": "soon"})] {
        let res = t.req(Method::POST, &replay, &t.dev_key).json(&bad).send().await.unwrap();
        expect_error(res, 400, "validation_error").await;
    }
    t.stop().await;
}

#[tokio::test]
async fn a_rotated_secret_signs_beside_the_new_one_until_rotated_again() {
    let t = TestApp::spawn_webhooks("100ms").await;
    let rx = Receiver::start().await;
    let (form, hook) = form_and_hook(&t, &rx, "/rotating").await;
    let (hook_id, first) = (id(&hook, "hookId"), id(&hook, "secret"));
    let rotate = format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}/rotate-secret");
    let (status, rotated) = parts(t.req(Method::POST, &rotate, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200, "{rotated}");
    let second = id(&rotated, "secret");
    assert!(second.starts_with("whsec_") && second != first);
    let expires = Timestamp::parse(rotated["previousSecretExpiresAt"].as_str().unwrap()).unwrap();
    let hours = (expires.millis() - Timestamp::now().millis()) as f64 / 3_600_000.0;
    assert!((23.9..=24.0).contains(&hours), "a 24 h grace period: {hours}");

    t.submit(&form, json!({"values": {"name": "Ada"}})).await;
    let got = rx.next(WAIT).await;
    assert_eq!(got.header("webhook-signature").split(' ').count(), 2, "one signature per secret");
    verify(&second, &got);
    verify(&first, &got);

    // Rotated again: the first secret no longer verifies; the second and the third do.
    let (_, again) = parts(t.req(Method::POST, &rotate, &t.dev_key).send().await.unwrap()).await;
    let third = id(&again, "secret");
    t.submit(&form, json!({"values": {"name": "Bea"}})).await;
    let got = rx.next(WAIT).await;
    verify(&third, &got);
    verify(&second, &got);
    let old = standardwebhooks::Webhook::new(&first).unwrap();
    assert!(old.verify(&got.body, &got.headers).is_err(), "the first secret is retired for good");

    // The secret is never shown again: not in the health read, nor in the log.
    let (_, health) = parts(
        t.req(Method::GET, &format!("/api/integrations/webhooks/triggers/subscribe/{hook_id}"), &t.dev_key)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert!(!health.to_string().contains("whsec_"), "{health}");
    let ws = t.workspace("other", LimitsPatch::default()).await;
    let other = t.key(&ws, "webhooks:write").await;
    expect_error(t.req(Method::POST, &rotate, &other).send().await.unwrap(), 404, "not_found").await;
    t.stop().await;
}
