//! Source metadata and search filters (docs/api.md §6 "Metadata", §7): set at create, by
//! multipart and by PATCH on every type, kept through processing, validated; filters in the shape
//! of OpenAI's vector-store search filters narrow the sources a search ranks, on chatbots and
//! Minds.

use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Processes a chatbot source and polls it to `ready`.
async fn ready(t: &TestApp, bot: &str, id: &str) -> Value {
    let (status, _) = t.process(bot, id).await;
    assert_eq!(status, 202);
    let s = t.settle(bot, id).await;
    assert_eq!(s["status"], "ready", "{s}");
    s
}

async fn patch(t: &TestApp, path: &str, body: Value) -> (u16, Value) {
    parts(t.req(Method::PATCH, path, &t.dev_key).json(&body).send().await.unwrap()).await
}

async fn search(t: &TestApp, path: &str, body: Value) -> (u16, Value) {
    parts(t.req(Method::POST, path, &t.dev_key).json(&body).send().await.unwrap()).await
}

fn names(body: &Value) -> Vec<String> {
    body["results"].as_array().unwrap().iter().map(|r| r["sourceName"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn metadata_is_set_read_patched_and_kept_through_processing() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let tags = json!({"lang": "en", "year": 2024, "public": true, "score": 1.5});
    let (status, created) = t
        .post_source(&t.dev_key, &bot, json!({"type": "text", "content": "Refunds take 14 days.", "metadata": tags}))
        .await;
    assert_eq!(status, 201, "{created}");
    assert_eq!(created["source"]["metadata"], tags);
    let id = created["source"]["id"].as_str().unwrap().to_owned();
    let (_, plain) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "No tags here."})).await;
    assert_eq!(plain["source"]["metadata"], json!({}));

    // Processing (and so a refresh or a reprocess) keeps it.
    let done = ready(&t, &bot, &id).await;
    assert_eq!(done["metadata"], tags);
    let (_, list) =
        parts(t.req(Method::GET, &format!("/api/v1/chatbots/{bot}/sources"), &t.dev_key).send().await.unwrap()).await;
    let listed = list["sources"].as_array().unwrap().iter().find(|s| s["id"] == id.as_str()).unwrap();
    assert_eq!(listed["metadata"], tags);

    // PATCH replaces it whole, on a file source too; `{}` clears it.
    let (_, file) = t.upload_source(&bot, "a.md", b"# A\n\nbody".to_vec()).await;
    let file_id = file["source"]["id"].as_str().unwrap();
    let path = format!("/api/v1/chatbots/{bot}/sources/{file_id}");
    let (status, patched) = patch(&t, &path, json!({"metadata": {"team": "ops"}})).await;
    assert_eq!(status, 200, "{patched}");
    assert_eq!(patched["source"]["metadata"], json!({"team": "ops"}));
    assert_eq!(t.source(&bot, file_id).await["metadata"], json!({"team": "ops"}));
    // The name of a file source still does not change (the interface keeps PATCH to text).
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": "x", "metadata": {}})).send();
    expect_error(res.await.unwrap(), 400, "invalid_operation").await;
    let (status, cleared) = patch(&t, &path, json!({"metadata": {}})).await;
    assert_eq!((status, &cleared["source"]["metadata"]), (200, &json!({})));
    // A text source's PATCH without metadata leaves it.
    let (_, renamed) = patch(&t, &format!("/api/v1/chatbots/{bot}/sources/{id}"), json!({"name": "Refunds"})).await;
    assert_eq!((renamed["source"]["name"].as_str(), &renamed["source"]["metadata"]), (Some("Refunds"), &tags));
    t.stop().await;
}

#[tokio::test]
async fn metadata_out_of_bounds_is_a_validation_error() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let seventeen: serde_json::Map<String, Value> = (0..17).map(|i| (format!("k{i}"), json!(i))).collect();
    for bad in [
        Value::Object(seventeen),
        json!({"nested": {"a": 1}}),
        json!({"list": ["a"]}),
        json!({"k": null}),
        json!({"k": "v".repeat(513)}),
        json!({"": 1}),
        json!(["a"]),
    ] {
        let res = t
            .req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources"), &t.dev_key)
            .json(&json!({"type": "text", "content": "x", "metadata": bad}))
            .send();
        let body = expect_error(res.await.unwrap(), 400, "validation_error").await;
        assert!(body["error"]["details"]["fields"]["metadata"].is_string(), "{bad}: {body}");
    }
    let (_, text) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "x"})).await;
    let path = format!("/api/v1/chatbots/{bot}/sources/{}", text["source"]["id"].as_str().unwrap());
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"metadata": {"a": {"b": 1}}})).send();
    expect_error(res.await.unwrap(), 400, "validation_error").await;
    assert_eq!(t.source(&bot, text["source"]["id"].as_str().unwrap()).await["metadata"], json!({}));

    // A multipart upload carries it as a JSON part; a bad one refuses the upload and keeps no file.
    let upload = |metadata: &str| {
        let form = Form::new()
            .part("file", Part::bytes(b"# Guide\n\nSome text.".to_vec()).file_name("guide.md"))
            .text("metadata", metadata.to_owned());
        t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources"), &t.dev_key).multipart(form).send()
    };
    let (status, ok) = parts(upload(r#"{"lang": "de"}"#).await.unwrap()).await;
    assert_eq!((status, &ok["source"]["metadata"]), (201, &json!({"lang": "de"})), "{ok}");
    let before = t.stats(&bot).await["totalSizeBytes"].clone();
    let refused = expect_error(upload("{not json").await.unwrap(), 400, "validation_error").await;
    assert!(refused["error"]["details"]["fields"]["metadata"].is_string(), "{refused}");
    expect_error(upload(r#"{"a": [1]}"#).await.unwrap(), 400, "validation_error").await;
    assert_eq!(t.stats(&bot).await["totalSizeBytes"], before);
    t.stop().await;
}

const DOCS: &[(&str, &str, &str, i64)] = &[
    (
        "Billing",
        "Invoices are emailed monthly. Refunds for a returned invoice are processed within 14 days.",
        "finance",
        2023,
    ),
    ("Shipping", "Orders ship within two days. A refund for a lost parcel is processed by the carrier.", "ops", 2024),
    ("Security", "Passwords must be rotated every 90 days; a refund of a security deposit takes a week.", "it", 2024),
];

#[tokio::test]
async fn filters_choose_the_sources_a_chatbot_search_ranks() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    for (name, content, team, year) in DOCS {
        let body = json!({"type": "text", "name": name, "content": content, "metadata": {"team": team, "year": year}});
        let (status, created) = t.post_source(&t.dev_key, &bot, body).await;
        assert_eq!(status, 201);
        ready(&t, &bot, created["source"]["id"].as_str().unwrap()).await;
    }
    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let query = "refund returned invoice";
    for mode in ["keyword", "semantic", "hybrid"] {
        let (_, all) = search(&t, &path, json!({"query": query, "mode": mode, "topK": 1})).await;
        assert_eq!(names(&all), ["Billing"], "{mode}: unfiltered, Billing ranks first");
        // Top 1 of the matching sources, not the top 1 filtered afterwards (which would be empty).
        let only_ops = json!({"type": "eq", "key": "team", "value": "ops"});
        let (status, ops) =
            search(&t, &path, json!({"query": query, "mode": mode, "topK": 1, "filter": only_ops})).await;
        assert_eq!((status, names(&ops)), (200, vec!["Shipping".to_owned()]), "{mode}: {ops}");
    }
    let cases = [
        (json!({"type": "ne", "key": "team", "value": "finance"}), vec!["Security", "Shipping"]),
        (json!({"type": "gte", "key": "year", "value": 2024}), vec!["Security", "Shipping"]),
        (json!({"type": "lt", "key": "year", "value": 2024}), vec!["Billing"]),
        (json!({"type": "in", "key": "team", "value": ["finance", "it"]}), vec!["Billing", "Security"]),
        (json!({"type": "nin", "key": "team", "value": ["finance", "it"]}), vec!["Shipping"]),
        (json!({"type": "eq", "key": "missing", "value": "x"}), vec![]),
        (
            json!({"type": "and", "filters": [
                {"type": "eq", "key": "year", "value": 2024},
                {"type": "or", "filters": [
                    {"type": "eq", "key": "team", "value": "it"},
                    {"type": "eq", "key": "team", "value": "finance"}
                ]}
            ]}),
            vec!["Security"],
        ),
    ];
    for (filter, expected) in cases {
        let (status, found) =
            search(&t, &path, json!({"query": "refund", "mode": "keyword", "topK": 10, "filter": filter})).await;
        assert_eq!(status, 200, "{found}");
        let mut got = names(&found);
        got.sort();
        got.dedup();
        assert_eq!(got, expected, "{filter}");
    }
    for bad in [
        json!({"type": "like", "key": "team", "value": "ops"}),
        json!({"type": "in", "key": "team", "value": "ops"}),
        json!({"type": "and", "filters": []}),
        json!({"type": "eq", "key": "team", "value": {"x": 1}}),
        json!("team = ops"),
    ] {
        let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"query": "refund", "filter": bad})).send();
        let body = expect_error(res.await.unwrap(), 400, "validation_error").await;
        assert!(body["error"]["details"]["fields"]["filter"].is_string(), "{bad}: {body}");
    }
    t.stop().await;
}

#[tokio::test]
async fn mind_sources_take_metadata_by_create_and_patch_and_filter_the_mind_search() {
    let t = TestApp::spawn().await;
    let res = t.req(Method::POST, "/api/v1/minds", &t.dev_key).json(&json!({"name": "Tagged"})).send();
    let (status, mind) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "{mind}");
    let mind = mind["mind"]["id"].as_str().or(mind["id"].as_str()).unwrap().to_owned();
    let mut ids = Vec::new();
    for (name, content, team, _) in DOCS {
        let body = json!({"type": "text", "name": name, "content": content, "metadata": {"team": team}});
        let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge"), &t.dev_key).json(&body).send();
        let (status, created) = parts(res.await.unwrap()).await;
        assert_eq!((status, &created["source"]["metadata"]), (201, &json!({"team": team})), "{created}");
        ids.push(created["source"]["id"].as_str().unwrap().to_owned());
    }
    for id in &ids {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let res = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge/{id}"), &t.dev_key).send();
            let (_, s) = parts(res.await.unwrap()).await;
            if s["source"]["status"] == "ready" {
                break;
            }
            assert!(Instant::now() < deadline, "{s}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    // Re-tag Shipping as finance: the Mind's search follows the new tags.
    let (status, patched) =
        patch(&t, &format!("/api/v1/minds/{mind}/knowledge/{}", ids[1]), json!({"metadata": {"team": "finance"}}))
            .await;
    assert_eq!((status, &patched["source"]["metadata"]), (200, &json!({"team": "finance"})), "{patched}");
    let filter = json!({"type": "eq", "key": "team", "value": "finance"});
    let path = format!("/api/v1/minds/{mind}/knowledge/search");
    let (status, found) =
        search(&t, &path, json!({"query": "refund", "mode": "keyword", "topK": 10, "filter": filter})).await;
    assert_eq!(status, 200, "{found}");
    let mut got = names(&found);
    got.sort();
    got.dedup();
    assert_eq!(got, ["Billing", "Shipping"]);
    t.stop().await;
}

#[tokio::test]
async fn an_owners_knowledge_filter_limits_what_its_answers_cite() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let mut ids = Vec::new();
    for (name, content, lang) in [
        ("refunds-en.md", "Refunds are paid within fourteen days of the return.", "en"),
        ("refunds-de.md", "Refunds are paid within thirty days of the return, says the German policy.", "de"),
    ] {
        let body = json!({"type": "text", "name": name, "content": content, "metadata": {"lang": lang}});
        let (status, created) = t.post_source(&t.dev_key, &bot, body).await;
        assert_eq!(status, 201);
        let id = created["source"]["id"].as_str().unwrap().to_owned();
        ready(&t, &bot, &id).await;
        ids.push(id);
    }
    let cited = |created: &Value| -> Vec<String> {
        let answer = &created["messages"][1];
        answer["citations"].as_array().unwrap().iter().map(|c| c["sourceId"].as_str().unwrap().to_owned()).collect()
    };
    let ask = || async {
        let path = format!("/api/v1/chatbots/{bot}/conversations");
        let body = json!({"message": "How long until refunds are paid?"});
        let (status, created) = parts(t.req(Method::POST, &path, &t.dev_key).json(&body).send().await.unwrap()).await;
        assert_eq!(status, 201, "{created}");
        created
    };
    let both = cited(&ask().await);
    assert!(both.contains(&ids[0]) && both.contains(&ids[1]), "no filter: both are cited: {both:?}");

    let path = format!("/api/v1/chatbots/{bot}");
    let german = json!({"type": "eq", "key": "lang", "value": "de"});
    let (status, patched) = patch(&t, &path, json!({"knowledgeFilter": german})).await;
    assert_eq!((status, &patched["chatbot"]["knowledgeFilter"]), (200, &german), "{patched}");
    let (_, read) = parts(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!(read["chatbot"]["knowledgeFilter"], german);
    assert_eq!(cited(&ask().await), [ids[1].clone()], "only the German source");

    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"knowledgeFilter": {"type": "eq"}})).send();
    let refused = expect_error(res.await.unwrap(), 400, "validation_error").await;
    assert!(refused["error"]["details"]["fields"]["knowledgeFilter"].is_string(), "{refused}");
    let (status, cleared) = patch(&t, &path, json!({"knowledgeFilter": null})).await;
    assert_eq!((status, &cleared["chatbot"]["knowledgeFilter"]), (200, &Value::Null));
    assert_eq!(cited(&ask().await).len(), 2);

    // A Mind takes the same setting.
    let res = t.req(Method::POST, "/api/v1/minds", &t.dev_key).json(&json!({"name": "Filtered"})).send();
    let (_, mind) = parts(res.await.unwrap()).await;
    let mind = mind["mind"]["id"].as_str().or(mind["id"].as_str()).unwrap().to_owned();
    let (status, patched) = patch(&t, &format!("/api/v1/minds/{mind}"), json!({"knowledgeFilter": german})).await;
    assert_eq!(status, 200, "{patched}");
    let (_, read) = parts(t.req(Method::GET, &format!("/api/v1/minds/{mind}"), &t.dev_key).send().await.unwrap()).await;
    let stored = if read["mind"]["knowledgeFilter"].is_null() {
        &read["mind"]["settings"]["knowledgeFilter"]
    } else {
        &read["mind"]["knowledgeFilter"]
    };
    assert_eq!(stored, &german, "{read}");
    let (status, _) = patch(&t, &format!("/api/v1/minds/{mind}"), json!({"knowledgeFilter": null})).await;
    assert_eq!(status, 200);
    let (_, read) = parts(t.req(Method::GET, &format!("/api/v1/minds/{mind}"), &t.dev_key).send().await.unwrap()).await;
    assert!(
        read["mind"]["knowledgeFilter"].is_null() && read["mind"]["settings"]["knowledgeFilter"].is_null(),
        "{read}"
    );
    t.stop().await;
}
