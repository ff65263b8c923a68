use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};

async fn list(t: &TestApp, query: &str) -> Value {
    let res = t.req(Method::GET, &format!("/api/v1/chatbots{query}"), &t.dev_key).send().await.unwrap();
    let (status, body) = parts(res).await;
    assert_eq!(status, 200, "{query}: {body}");
    body
}

fn ids(body: &Value) -> Vec<String> {
    body["chatbots"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn defaults_totals_clamping_and_pages_past_the_end() {
    let t = TestApp::spawn().await;
    let empty = list(&t, "").await;
    assert_eq!(empty["pagination"], json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));

    for i in 0..25 {
        t.create_chatbot(&t.dev_key, json!({"name": format!("bot {i}")})).await;
    }
    let first = list(&t, "").await;
    assert_eq!(first["pagination"], json!({"page": 1, "limit": 20, "total": 25, "totalPages": 2}));
    assert_eq!(ids(&first).len(), 20);
    let second = list(&t, "?page=2").await;
    assert_eq!(ids(&second).len(), 5);
    let past = list(&t, "?page=3").await;
    assert_eq!(past["chatbots"], json!([]));
    assert_eq!(past["pagination"], json!({"page": 3, "limit": 20, "total": 25, "totalPages": 2}));
    let clamped = list(&t, "?limit=500").await;
    assert_eq!(clamped["pagination"]["limit"], 100);
    assert_eq!(ids(&clamped).len(), 25);
    let seven = list(&t, "?limit=7&page=4").await;
    assert_eq!(seven["pagination"], json!({"page": 4, "limit": 7, "total": 25, "totalPages": 4}));
    assert_eq!(ids(&seven).len(), 4);
    t.stop().await;
}

#[tokio::test]
async fn bad_page_and_limit_values_are_validation_errors() {
    let t = TestApp::spawn().await;
    for (q, field) in [
        ("?page=0", "page"),
        ("?page=-1", "page"),
        ("?page=abc", "page"),
        ("?page=1.5", "page"),
        ("?page=", "page"),
        ("?limit=0", "limit"),
        ("?limit=-5", "limit"),
        ("?limit=ten", "limit"),
    ] {
        let res = t.req(Method::GET, &format!("/api/v1/chatbots{q}"), &t.dev_key).send().await.unwrap();
        let body = expect_error(res, 400, "validation_error").await;
        assert!(body["error"]["details"]["fields"][field].is_string(), "{q}: {body}");
    }
    t.stop().await;
}

#[tokio::test]
async fn order_is_newest_first_and_stable_across_pages() {
    let t = TestApp::spawn().await;
    let mut created = Vec::new();
    for i in 0..23 {
        let c = t.create_chatbot(&t.dev_key, json!({"name": format!("bot {i}")})).await;
        created.push(c["id"].as_str().unwrap().to_owned());
    }
    created.reverse();
    let all = ids(&list(&t, "?limit=100").await);
    assert_eq!(all, created, "newest first");
    let mut paged = Vec::new();
    for page in 1..=4 {
        paged.extend(ids(&list(&t, &format!("?limit=7&page={page}")).await));
    }
    assert_eq!(paged, created, "pages concatenate to the full list, no repeats, no gaps");
    t.stop().await;
}
