//! The optional re-ranking stage of hybrid search (docs/api.md §7, "Re-ranking"): a `/rerank`
//! server on a socket, reached by the real adapter, orders hybrid results and answers'
//! citations; the single modes never call it; a failing or stalled re-ranker leaves the fused
//! ranking, within its deadline.

use crate::search::{knowledge_base, names, search};
use crate::support::{TestApp, parts};
use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
enum Behaviour {
    /// Scores each document by the words of [`FAVOURITE`] it holds.
    Answer,
    /// 503 every time.
    Fail,
    /// Never answers.
    Stall,
}

/// Words the stub re-ranker finds most relevant, whatever the question: the shipping passage's.
const FAVOURITE: [&str; 2] = ["Berlin", "warehouse"];

/// Each request's body and `Authorization` header.
type Seen = Arc<Mutex<Vec<(Value, Option<String>)>>>;

#[derive(Clone)]
struct Stub {
    behaviour: Behaviour,
    seen: Seen,
}

async fn rerank(State(stub): State<Stub>, headers: HeaderMap, body: axum::body::Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    let auth = headers.get("authorization").map(|v| v.to_str().unwrap().to_owned());
    stub.seen.lock().unwrap().push((request.clone(), auth));
    match stub.behaviour {
        Behaviour::Fail => (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response(),
        Behaviour::Stall => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::OK.into_response()
        }
        Behaviour::Answer => {
            let results: Vec<Value> = request["documents"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(index, d)| {
                    let held = FAVOURITE.iter().filter(|w| d.as_str().unwrap().contains(*w)).count();
                    json!({"index": index, "relevance_score": 0.1 + 0.4 * held as f64})
                })
                .collect();
            axum::Json(json!({"id": "stub", "results": results, "meta": {}})).into_response()
        }
    }
}

/// A `/rerank` server; returns its base URL and what it was sent.
async fn stub(behaviour: Behaviour) -> (String, Stub) {
    let stub = Stub { behaviour, seen: Arc::default() };
    let app = Router::new().route("/v2/rerank", post(rerank)).with_state(stub.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v2", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base_url, stub)
}

async fn app_with(behaviour: Behaviour, timeout: Duration) -> (TestApp, Stub) {
    let (base_url, stub) = stub(behaviour).await;
    let config = lore_embed::RerankerConfig {
        base_url,
        api_key: Some("rk-test".into()),
        model: Some("stub-rerank".into()),
        timeout,
    };
    let reranker = Arc::new(config.build().unwrap());
    let t = TestApp::spawn_with(lore::compose::Overrides { reranker: Some(reranker), ..Default::default() }).await;
    (t, stub)
}

fn scores(body: &Value) -> Vec<f64> {
    body["results"].as_array().unwrap().iter().map(|r| r["score"].as_f64().unwrap()).collect()
}

#[tokio::test]
async fn a_reranker_orders_hybrid_results_and_gives_them_its_scores() {
    let (t, stub) = app_with(Behaviour::Answer, Duration::from_secs(5)).await;
    let k = t.dev_key.clone();
    let (bot, _) = knowledge_base(&t, &k).await;

    let (status, body) = search(&t, &k, &bot, json!({"query": "refund invoice", "topK": 3})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(names(&body)[0], "Shipping", "the re-ranker's favourite leads: {body}");
    assert_eq!(scores(&body)[0], 0.9, "its score is the re-ranker's: {body}");
    assert!(scores(&body).windows(2).all(|w| w[0] >= w[1]), "{body}");
    {
        let seen = stub.seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        let (request, auth) = &seen[0];
        assert_eq!(request["query"], "refund invoice");
        assert_eq!(request["model"], "stub-rerank");
        assert_eq!(auth.as_deref(), Some("Bearer rk-test"));
        let documents = request["documents"].as_array().unwrap();
        assert!(!documents.is_empty() && documents.len() <= 3, "only the fused candidates: {request}");
        assert_eq!(request["top_n"], documents.len());
        assert!(documents.iter().any(|d| d.as_str().unwrap().contains("Refunds")), "{request}");
    }
    // minScore holds the re-ranker's scores.
    let (_, body) = search(&t, &k, &bot, json!({"query": "refund invoice", "minScore": 0.5})).await;
    assert_eq!(names(&body), ["Shipping"], "{body}");

    // The single modes keep their own rankings and never call it.
    let before = stub.seen.lock().unwrap().len();
    for mode in ["keyword", "semantic"] {
        let (status, body) = search(&t, &k, &bot, json!({"query": "refund invoice", "mode": mode})).await;
        assert_eq!(status, 200);
        assert_eq!(names(&body)[0], "Billing", "{mode}: {body}");
    }
    assert_eq!(stub.seen.lock().unwrap().len(), before, "no re-ranking outside hybrid");

    // An answer's passages come in the re-ranked order.
    let path = format!("/api/v1/chatbots/{bot}/conversations");
    let res = t.req(Method::POST, &path, &k).json(&json!({"message": "How are refunds for an invoice handled?"}));
    let (status, created) = parts(res.send().await.unwrap()).await;
    assert_eq!(status, 201, "{created}");
    // The extractive responder answers from the passage that holds the answer (Billing) and
    // cites it by its number among the passages: second, after the re-ranker's favourite.
    let citations = created["messages"][1]["citations"].as_array().unwrap();
    assert_eq!((&citations[0]["sourceName"], &citations[0]["index"]), (&json!("Billing"), &json!(2)), "{created}");
    assert_eq!(stub.seen.lock().unwrap().len(), before + 1, "the turn's retrieval was re-ranked");
    t.stop().await;
}

#[tokio::test]
async fn a_failing_or_stalled_reranker_leaves_the_fused_ranking() {
    // A failing server gets its retry well within a generous deadline; a stalled one is given up
    // at a short one.
    for (behaviour, deadline) in
        [(Behaviour::Fail, Duration::from_secs(10)), (Behaviour::Stall, Duration::from_millis(400))]
    {
        let (t, stub) = app_with(behaviour, deadline).await;
        let k = t.dev_key.clone();
        let (bot, _) = knowledge_base(&t, &k).await;
        let started = Instant::now();
        let (status, body) = search(&t, &k, &bot, json!({"query": "refund invoice"})).await;
        let took = started.elapsed();
        assert_eq!(status, 200, "{body}");
        assert_eq!(names(&body)[0], "Billing", "the fused order stands: {body}");
        assert!(scores(&body).iter().all(|s| (0.0..=1.0).contains(s)), "{body}");
        assert!(took < deadline + Duration::from_secs(3), "within the re-ranker's deadline: {took:?}");
        let calls = stub.seen.lock().unwrap().len();
        match behaviour {
            Behaviour::Fail => assert_eq!(calls, 2, "one retry of a 503"),
            _ => assert!(calls >= 1),
        }
        t.stop().await;
    }
}
