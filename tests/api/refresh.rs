//! Scheduled refresh of url sources (docs/api.md §6): the interval set at create and by PATCH,
//! the next due time in the record, due sources started by the scheduler (driven here with a
//! clock of the test's choosing), and `knowledge.source.refreshed` with the pages that changed.

use crate::site::Site;
use crate::support::{TestApp, expect_error, parts};
use lore_domain::Timestamp;
use reqwest::Method;
use serde_json::{Value, json};

const HOUR_MS: i64 = 3_600_000;

fn millis(rfc3339: &Value) -> i64 {
    let s = rfc3339.as_str().unwrap_or_else(|| panic!("a time: {rfc3339}"));
    Timestamp::parse(s).unwrap_or_else(|| panic!("RFC 3339: {s}")).millis()
}

/// The workspace's event types once `wanted` is among them: a refresh's event is published after
/// the source reads ready again, so a test that saw it ready polls for the event.
async fn types_with(t: &TestApp, wanted: &str) -> Vec<String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let types = t.event_types().await;
        if types.iter().any(|e| e == wanted) {
            return types;
        }
        assert!(std::time::Instant::now() < deadline, "no {wanted} event: {types:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

async fn patch(t: &TestApp, path: &str, body: Value) -> (u16, Value) {
    parts(t.req(Method::PATCH, path, &t.dev_key).json(&body).send().await.unwrap()).await
}

#[tokio::test]
async fn a_due_source_is_crawled_again_by_the_scheduler_and_tells_what_changed() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    site.set_changing("Opening hours are nine to five on weekdays.");
    let body = json!({"type": "url", "url": site.url("/changing"), "refreshIntervalHours": 6});
    let (status, created) = t.post_source(&t.dev_key, &bot, body).await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["source"]["refreshIntervalHours"], 6);
    assert_eq!(created["source"]["nextRefreshAt"], Value::Null, "pending: the owner starts the first crawl");
    let id = created["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &id).await;
    let first = t.settle(&bot, &id).await;
    assert_eq!(first["status"], "ready", "{first}");
    let crawled = millis(&first["lastRefreshedAt"]);
    assert_eq!(millis(&first["nextRefreshAt"]), crawled + 6 * HOUR_MS);

    // Not due yet: nothing starts.
    assert_eq!(t.app.refresh_due_sources(Timestamp::now()).await.unwrap(), 0);
    let hits = site.hits("changing");

    // Six hours on, with the page changed: the scheduler starts it, once.
    site.set_changing("Opening hours are now eight to six, Saturdays included.");
    let later = Timestamp::from_millis(crawled + 6 * HOUR_MS + 1);
    assert_eq!(t.app.refresh_due_sources(later).await.unwrap(), 1);
    assert_eq!(t.app.refresh_due_sources(later).await.unwrap(), 0, "a running source is not started again");
    let second = t.settle(&bot, &id).await;
    assert_eq!(second["status"], "ready", "{second}");
    assert_eq!(site.hits("changing"), hits + 1);
    assert!(millis(&second["lastRefreshedAt"]) > crawled);
    assert_eq!(millis(&second["nextRefreshAt"]), millis(&second["lastRefreshedAt"]) + 6 * HOUR_MS);
    let found = t.chunk_texts(&id).await.join(" ");
    assert!(found.contains("eight to six") && !found.contains("nine to five"), "{found}");

    let types = types_with(&t, "knowledge.source.refreshed").await;
    assert_eq!(types.iter().filter(|e| *e == "knowledge.source.refreshed").count(), 1, "{types:?}");
    assert_eq!(types.last().map(String::as_str), Some("knowledge.source.refreshed"), "after its ready: {types:?}");
    if let Some(store) = t.embedded_store() {
        let ws = t.app.find_workspace("default").await.unwrap().id;
        let events = store.list_events(&ws).await.unwrap();
        let refreshed = events.iter().find(|e| e["eventType"] == "knowledge.source.refreshed").unwrap();
        assert_eq!(refreshed["data"]["sourceId"], id.as_str());
        assert_eq!(refreshed["data"]["pagesCrawled"], 1);
        assert_eq!(refreshed["data"]["pages"], json!({"added": 0, "changed": 1, "removed": 0, "unchanged": 0}));
    }

    // Turned off: never due again.
    let path = format!("/api/v1/chatbots/{bot}/sources/{id}");
    let (status, off) = patch(&t, &path, json!({"refreshIntervalHours": null})).await;
    assert_eq!(status, 200, "{off}");
    assert_eq!((&off["source"]["refreshIntervalHours"], &off["source"]["nextRefreshAt"]), (&Value::Null, &Value::Null));
    let far = Timestamp::from_millis(crawled + 10_000 * HOUR_MS);
    assert_eq!(t.app.refresh_due_sources(far).await.unwrap(), 0);
    t.stop().await;
}

#[tokio::test]
async fn an_unchanged_site_refreshed_on_schedule_reports_every_page_unchanged() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    site.set_changing("The library lends books for three weeks.");
    let (_, created) = t.post_source(&t.dev_key, &bot, json!({"type": "url", "url": site.url("/changing")})).await;
    let id = created["source"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["source"]["refreshIntervalHours"], Value::Null, "no schedule by default");
    t.process(&bot, &id).await;
    let first = t.settle(&bot, &id).await;
    assert_eq!(first["nextRefreshAt"], Value::Null);

    // A schedule set later, by PATCH.
    let path = format!("/api/v1/chatbots/{bot}/sources/{id}");
    let (status, on) = patch(&t, &path, json!({"refreshIntervalHours": 1})).await;
    assert_eq!(status, 200, "{on}");
    let due = millis(&on["source"]["nextRefreshAt"]);
    assert_eq!(due, millis(&first["lastRefreshedAt"]) + HOUR_MS);
    assert_eq!(t.app.refresh_due_sources(Timestamp::from_millis(due + 1)).await.unwrap(), 1);
    types_with(&t, "knowledge.source.refreshed").await;
    let second = t.settle(&bot, &id).await;
    assert_eq!((second["status"].as_str(), &second["contentHash"]), (Some("ready"), &first["contentHash"]));
    assert!(millis(&second["lastRefreshedAt"]) > millis(&first["lastRefreshedAt"]), "{second}");
    if let Some(store) = t.embedded_store() {
        let ws = t.app.find_workspace("default").await.unwrap().id;
        let events = store.list_events(&ws).await.unwrap();
        let refreshed = events.iter().find(|e| e["eventType"] == "knowledge.source.refreshed").unwrap();
        assert_eq!(refreshed["data"]["pages"], json!({"added": 0, "changed": 0, "removed": 0, "unchanged": 1}));
    }
    t.stop().await;
}

#[tokio::test]
async fn the_interval_is_checked_and_belongs_to_url_sources() {
    let site = Site::start().await;
    let t = TestApp::spawn_private().await;
    let bot = t.chatbot().await;
    for bad in [json!(0), json!(-3), json!(8_761), json!(1.5), json!("6")] {
        let body = json!({"type": "url", "url": site.url("/a"), "refreshIntervalHours": bad});
        let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources"), &t.dev_key).json(&body).send();
        let res = res.await.unwrap();
        let status = res.status().as_u16();
        let body = res.json::<Value>().await.unwrap();
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(matches!(body["error"]["code"].as_str(), Some("validation_error" | "invalid_json")), "{body}");
    }
    let (_, text) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "x"})).await;
    let path = format!("/api/v1/chatbots/{bot}/sources/{}", text["source"]["id"].as_str().unwrap());
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"refreshIntervalHours": 2})).send();
    expect_error(res.await.unwrap(), 400, "invalid_operation").await;
    assert!(text["source"].get("refreshIntervalHours").is_none(), "url members on url sources only");
    let (status, url) = t
        .post_source(&t.dev_key, &bot, json!({"type": "url", "url": site.url("/a"), "refreshIntervalHours": 8760}))
        .await;
    assert_eq!((status, &url["source"]["refreshIntervalHours"]), (201, &json!(8760)));
    let path = format!("/api/v1/chatbots/{bot}/sources/{}", url["source"]["id"].as_str().unwrap());
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"refreshIntervalHours": 0})).send();
    let refused = expect_error(res.await.unwrap(), 400, "validation_error").await;
    assert!(refused["error"]["details"]["fields"]["refreshIntervalHours"].is_string(), "{refused}");
    t.stop().await;
}
