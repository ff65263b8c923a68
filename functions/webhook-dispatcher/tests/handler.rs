//! The webhook-dispatcher handler on its sample events over the embedded composition: an
//! EventBridge event arriving through SQS is fanned out and delivered, signed, to a subscribed
//! receiver on 127.0.0.1; the schedule event runs the periodic work.

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::post;
use lore::compose::{Overrides, embedded};
use lore_app::webhooks::SubscribeRequest;
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{LimitsPatch, WorkspaceName};
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc;

const SAMPLE_WS: &str = "ws_01jq3z5v7b8c9d0e1f2g3h4j5k";

fn sample(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../events/webhook-dispatcher/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

async fn receiver() -> (String, mpsc::UnboundedReceiver<(HeaderMap, Value)>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let app = Router::new()
        .route(
            "/hook",
            post(|State(tx): State<mpsc::UnboundedSender<(HeaderMap, Value)>>, headers: HeaderMap, body: String| async move {
                let _ = tx.send((headers, serde_json::from_str(&body).unwrap_or(Value::Null)));
                "ok"
            }),
        )
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, rx)
}

#[tokio::test]
async fn an_event_from_the_queue_is_delivered_signed_and_the_schedule_runs() {
    let dir = tempfile::tempdir().unwrap();
    let overrides = Overrides {
        allow_private_network: true,
        embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())),
        ..Default::default()
    };
    let app = embedded(dir.path(), "http://localhost:3000", &overrides).unwrap().app;
    let ws = app.create_workspace(WorkspaceName::parse("acme").unwrap(), LimitsPatch::default()).await.unwrap();
    let key = app.create_key(ws.id.as_str(), ScopeSet::all(), None).await.unwrap();
    let p = app.authenticate_and_admit(Some(&format!("Bearer {}", key.secret.expose()))).await.unwrap();
    let (url, mut received) = receiver().await;
    let req = SubscribeRequest {
        hook_url: Some(url),
        form_id: None,
        event: Some("knowledge.source.*".into()),
        chatbot_id: None,
        mind_id: None,
    };
    app.subscribe(&p, req).await.unwrap();

    let event: Value = serde_json::from_str(&sample("sqs-events.json").replace(SAMPLE_WS, ws.id.as_str())).unwrap();
    let out = lore::lambda::dispatcher(&app, event).await.unwrap();
    assert_eq!(out, serde_json::json!({"batchItemFailures": []}));
    let (headers, body) =
        tokio::time::timeout(std::time::Duration::from_secs(10), received.recv()).await.unwrap().unwrap();
    assert_eq!(body["eventType"], "knowledge.source.ready");
    assert_eq!(body["eventId"], "evt_01jq3z5v7b8c9d0e1f2g3h4j5k");
    assert_eq!(body["data"]["chunkCount"], 12);
    assert_eq!(headers["webhook-id"], "evt_01jq3z5v7b8c9d0e1f2g3h4j5k");
    assert!(headers["webhook-signature"].to_str().unwrap().starts_with("v1,"));

    let scheduled: Value = serde_json::from_str(&sample("schedule.json")).unwrap();
    let out = lore::lambda::dispatcher(&app, scheduled).await.unwrap();
    for k in ["fannedOut", "attempted", "sweptRuns", "refreshesStarted", "conversationsExpired"] {
        assert!(out[k].is_u64(), "{out}");
    }
    assert!(received.try_recv().is_err(), "the delivered event is not sent twice");
}

#[test]
fn eventbridge_bodies_parse_into_events_and_junk_does_not() {
    let v: Value = serde_json::from_str(&sample("sqs-events.json")).unwrap();
    let body = v["Records"][0]["body"].as_str().unwrap();
    let e = lore_aws::parse_event(body).unwrap();
    assert_eq!(e.event_type.as_str(), "knowledge.source.ready");
    assert_eq!(e.workspace_id.as_str(), SAMPLE_WS);
    assert_eq!(e.envelope()["data"]["sourceName"], "Handbook");
    assert!(lore_aws::parse_event("{}").is_none());
    assert!(lore_aws::parse_event("not json").is_none());
}
