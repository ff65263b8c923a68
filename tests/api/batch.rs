//! Batches (docs/api.md §16, "Batches"): up to 100 sources created or queued in one request,
//! each item with its own result, one request against the key's rate limit; waiting for many
//! sources with the stats' counts.

use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

impl TestApp {
    async fn batch(&self, key: &str, bot: &str, path: &str, body: Value) -> (u16, Value) {
        let res = self.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources/{path}"), key).json(&body);
        parts(res.send().await.unwrap()).await
    }
}

#[tokio::test]
async fn a_batch_creates_the_valid_items_and_reports_each_refused_one() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let body = json!({"sources": [
        {"type": "text", "name": "Refunds", "content": "Refunds are paid within fourteen days."},
        {"type": "text"},
        {"type": "text", "name": "Shipping", "content": "Parcels arrive within ten working days."},
        {"type": "podcast", "content": "x"},
        {"type": "text", "content": 5},
        {"type": "text", "content": "a".repeat(100_001)},
        {"type": "url", "url": "http://169.254.169.254/latest/meta-data"},
    ]});
    let (status, done) = t.batch(&t.dev_key, &bot, "batch", body).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!((done["succeeded"].as_u64(), done["failed"].as_u64()), (Some(2), Some(5)));
    let results = done["results"].as_array().unwrap();
    let outcome: Vec<(u64, &str, u64, Option<&str>)> = results
        .iter()
        .map(|r| {
            (
                r["index"].as_u64().unwrap(),
                r["status"].as_str().unwrap(),
                r["statusCode"].as_u64().unwrap(),
                r["error"]["code"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        outcome,
        [
            (0, "created", 201, None),
            (1, "error", 400, Some("missing_content")),
            (2, "created", 201, None),
            (3, "error", 400, Some("validation_error")),
            (4, "error", 400, Some("validation_error")),
            (5, "error", 400, Some("content_too_large")),
            (6, "error", 400, Some("url_blocked")),
        ]
    );
    assert_eq!(
        (results[0]["source"]["name"].as_str(), results[0]["source"]["status"].as_str()),
        (Some("Refunds"), Some("pending"))
    );
    // Exactly the valid ones exist.
    let (_, listed) =
        parts(t.req(Method::GET, &format!("/api/v1/chatbots/{bot}/sources"), &t.dev_key).send().await.unwrap()).await;
    let mut names: Vec<&str> =
        listed["sources"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["Refunds", "Shipping"]);

    // The batch itself must make sense: 1-100 items, a chatbot of the key's workspace.
    for bad in
        [json!({}), json!({"sources": []}), json!({"sources": vec![json!({"type": "text", "content": "x"}); 101]})]
    {
        let (status, e) = t.batch(&t.dev_key, &bot, "batch", bad).await;
        assert_eq!((status, e["error"]["code"].as_str()), (400, Some("validation_error")), "{e}");
    }
    let ws = t.workspace("other", LimitsPatch::default()).await;
    let other = t.key(&ws, "knowledge:write").await;
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources/batch"), &other);
    expect_error(
        res.json(&json!({"sources": [{"type": "text", "content": "x"}]})).send().await.unwrap(),
        404,
        "not_found",
    )
    .await;
    t.stop().await;
}

#[tokio::test]
async fn a_batch_is_one_request_against_the_rate_limit() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("limited", LimitsPatch { rate_limit_per_minute: Some(3), ..Default::default() }).await;
    let key = t.key(&ws, "chatbot:write,knowledge:write").await;
    let (status, bot) =
        parts(t.req(Method::POST, "/api/v1/chatbots", &key).json(&json!({"name": "Bulk"})).send().await.unwrap()).await;
    assert_eq!(status, 201, "{bot}");
    let bot = bot["chatbot"]["id"].as_str().unwrap().to_owned();
    let sources: Vec<Value> =
        (0..100).map(|i| json!({"type": "text", "content": format!("Fact number {i}.")})).collect();
    let (status, done) = t.batch(&key, &bot, "batch", json!({"sources": sources})).await;
    assert_eq!((status, done["succeeded"].as_u64()), (200, Some(100)), "{done}");
    let (status, _) = t.batch(&key, &bot, "batch", json!({"sources": [{"type": "text", "content": "one more"}]})).await;
    assert_eq!(status, 200, "the third request of the minute");
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources/batch"), &key);
    expect_error(
        res.json(&json!({"sources": [{"type": "text", "content": "x"}]})).send().await.unwrap(),
        429,
        "rate_limited",
    )
    .await;
    t.stop().await;
}

#[tokio::test]
async fn batches_queue_processing_and_the_stats_tell_when_all_are_ready() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let sources: Vec<Value> = (0..5).map(|i| json!({"type": "text", "content": format!("Fact number {i}.")})).collect();
    let (_, queued) = t.batch(&t.dev_key, &bot, "batch", json!({"sources": sources, "process": true})).await;
    assert!(
        queued["results"].as_array().unwrap().iter().all(|r| r["status"] == "queued" && r["statusCode"] == 202),
        "{queued}"
    );

    // Created without processing, then queued in one request.
    let (_, created) = t
        .batch(
            &t.dev_key,
            &bot,
            "batch",
            json!({"sources": [
        {"type": "text", "content": "Later one."}, {"type": "text", "content": "Later two."}]}),
        )
        .await;
    let ids: Vec<&str> =
        created["results"].as_array().unwrap().iter().map(|r| r["source"]["id"].as_str().unwrap()).collect();
    let body = json!({"sourceIds": [ids[0], ids[1], "src_01jq3z5v7b8c9d0e1f2g3h4j5k", "garbage", ids[0]]});
    let (status, done) = t.batch(&t.dev_key, &bot, "batch/process", body).await;
    assert_eq!(status, 200, "{done}");
    let outcome: Vec<(&str, Option<&str>)> = done["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["status"].as_str().unwrap(), r["error"]["code"].as_str()))
        .collect();
    assert_eq!(
        outcome[..4],
        [("queued", None), ("queued", None), ("error", Some("not_found")), ("error", Some("not_found"))]
    );
    // The same source again: still running (409), or already done and queued once more.
    assert!(matches!(outcome[4], ("error", Some("already_processing")) | ("queued", None)), "{:?}", outcome[4]);

    // The cheap way to wait for many: the stats' counts by status, one request per poll.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let stats = t.stats(&bot).await;
        if stats["sourcesByStatus"]["ready"] == 7 {
            assert_eq!(stats["totalSources"], 7);
            break;
        }
        assert!(Instant::now() < deadline, "{stats}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    t.stop().await;
}

#[tokio::test]
async fn a_mind_takes_batches_of_sources_each_queued_and_reprocessed_on_its_own() {
    let t = TestApp::spawn().await;
    let res = t.req(Method::POST, "/api/v1/minds", &t.dev_key).json(&json!({"name": "Batched"})).send();
    let (status, mind) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "{mind}");
    let mind = mind["mind"]["id"].as_str().or(mind["id"].as_str()).unwrap().to_owned();
    let post = |path: String, body: Value| {
        let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/{path}"), &t.dev_key).json(&body);
        async move { parts(res.send().await.unwrap()).await }
    };
    let body = json!({"sources": [
        {"type": "text", "name": "Refunds", "content": "Refunds are paid within fourteen days.", "metadata": {"lang": "en"}},
        {"type": "file", "fileUrl": "x"},
        {"type": "text"},
        {"type": "text", "name": "Shipping", "content": "Parcels arrive within ten working days."},
    ]});
    let (status, done) = post("batch".into(), body).await;
    assert_eq!(status, 200, "{done}");
    assert_eq!((done["succeeded"].as_u64(), done["failed"].as_u64()), (Some(2), Some(2)), "{done}");
    let results = done["results"].as_array().unwrap();
    let outcome: Vec<(&str, u64, Option<&str>)> = results
        .iter()
        .map(|r| (r["status"].as_str().unwrap(), r["statusCode"].as_u64().unwrap(), r["error"]["code"].as_str()))
        .collect();
    assert_eq!(
        outcome,
        [
            ("queued", 202, None),
            ("error", 400, Some("validation_error")),
            ("error", 400, Some("missing_content")),
            ("queued", 202, None)
        ]
    );
    // Records in the Mind vocabulary, queued at once, metadata kept.
    assert_eq!(results[0]["source"]["mindId"], mind.as_str());
    assert_eq!(results[0]["source"]["metadata"], json!({"lang": "en"}));
    let ids: Vec<String> = [0, 3].iter().map(|&i| results[i]["source"]["id"].as_str().unwrap().to_owned()).collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    for id in &ids {
        loop {
            let res = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge/{id}"), &t.dev_key).send();
            let (_, s) = parts(res.await.unwrap()).await;
            if s["source"]["status"] == "ready" {
                break;
            }
            assert!(Instant::now() < deadline, "{s}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let other = t.chatbot().await;
    let (_, foreign) = t.post_source(&t.dev_key, &other, json!({"type": "text", "content": "not the Mind's"})).await;
    let body = json!({"sourceIds": [ids[0], "nonsense", foreign["source"]["id"], ids[1]]});
    let (status, again) = post("batch/reprocess".into(), body).await;
    assert_eq!(status, 200, "{again}");
    let codes: Vec<(&str, Option<&str>)> = again["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["status"].as_str().unwrap(), r["error"]["code"].as_str()))
        .collect();
    assert_eq!(codes, [("queued", None), ("error", Some("not_found")), ("error", Some("not_found")), ("queued", None)]);
    let (_, empty) = post("batch".into(), json!({"sources": []})).await;
    assert_eq!(empty["error"]["code"], "validation_error");
    let res = t.req(Method::POST, "/api/v1/minds/mind_0000000000000000000000000/knowledge/batch", &t.dev_key);
    expect_error(
        res.json(&json!({"sources": [{"type": "text", "content": "x"}]})).send().await.unwrap(),
        404,
        "not_found",
    )
    .await;
    t.stop().await;
}
