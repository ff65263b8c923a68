//! The sample events of `events/api-minds/`, run in-process through the router this function
//! serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event: every Mind
//! route of CONTRACT §8 and the public page `GET /m/{slug}`.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use http_body_util::BodyExt;
use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use serde_json::json;
use support::{Event, Reply, Tenant, invoke};
use tower::ServiceExt;

/// The Mind id the sample events that name a Mind carry.
const SAMPLE_MIND_ID: &str = "mind_01jq3z5v7b8c9d0e1f2g3h4j5k";

/// The events that need a key (all but the public page).
const API_EVENTS: [&str; 9] = [
    "list-minds.json",
    "create-mind.json",
    "get-mind.json",
    "update-mind.json",
    "publish-mind.json",
    "unpublish-mind.json",
    "delete-mind.json",
    "upload-file.json",
    "upload-url.json",
];

/// An HTML answer: status, content type and text.
async fn invoke_html(router: &axum::Router, event: &Event) -> (StatusCode, String, String) {
    let res = router.clone().oneshot(event.to_request()).await.expect("the router is infallible");
    let (parts, body) = res.into_parts();
    let bytes = body.collect().await.expect("the body can be read").to_bytes();
    let ct = parts.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    (parts.status, ct, String::from_utf8(bytes.to_vec()).expect("UTF-8"))
}

fn assert_not_found(reply: &Reply, what: &str) {
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{what}: {reply:?}");
    assert_eq!(reply.error_code(), "not_found", "{what}");
}

#[tokio::test]
async fn mind_events_drive_a_mind_through_its_lifecycle() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    // An empty workspace: no Minds, the default limits.
    let list = invoke(&router, &ev("list-minds.json")).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(list.body["minds"], json!([]));
    assert_eq!(list.body["usage"], json!({"mindsUsed": 0, "mindsLimit": 10, "sourcesUsed": 0, "sourcesLimit": 500}));
    assert_eq!(list.body["pagination"], json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));

    // The sample id is well formed: it reaches the handler and names no Mind.
    let absent = invoke(&router, &ev("get-mind.json")).await;
    assert_not_found(&absent, "sample id");
    assert_eq!(absent.body["error"]["message"], "mind not found", "a resource 404, not a route 404");

    let created = invoke(&router, &ev("create-mind.json")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{created:?}");
    let mind = &created.body["mind"];
    assert_eq!(mind["name"], "Ada Lovelace");
    assert_eq!(mind["slug"], "ada-lovelace");
    assert_eq!(mind["suggestedQuestions"], json!(["What is the Analytical Engine?", "What are Bernoulli numbers?"]));
    assert_eq!((mind["isPublished"].clone(), mind["temperature"].clone()), (json!(false), json!(0.7)));
    assert_eq!(mind["sourceStats"], json!({"total": 0, "ready": 0, "pending": 0, "processing": 0, "failed": 0}));
    let id = mind["id"].as_str().expect("mind.id").to_owned();
    assert!(id.starts_with("mind_") && id != SAMPLE_MIND_ID, "{id}");
    let second = invoke(&router, &ev("create-mind.json")).await;
    assert_eq!(second.body["mind"]["slug"], "ada-lovelace-2");

    let list = invoke(&router, &ev("list-minds.json")).await;
    assert_eq!(list.body["usage"]["mindsUsed"], 2);
    assert_eq!(list.body["minds"][1]["id"], id.as_str(), "newest first");

    let ev_id = |name: &str| ev(name).with(SAMPLE_MIND_ID, &id);
    let got = invoke(&router, &ev_id("get-mind.json")).await;
    assert_eq!(got.status, StatusCode::OK, "{got:?}");
    assert_eq!(got.body["mind"], *mind);

    let updated = invoke(&router, &ev_id("update-mind.json")).await;
    assert_eq!(updated.status, StatusCode::OK, "{updated:?}");
    let m = &updated.body["mind"];
    assert_eq!(
        (m["temperature"].clone(), m["voiceId"].clone(), m["voiceEnabled"].clone()),
        (json!(0.4), json!("nova"), json!(true))
    );
    assert_eq!(m["theme"], json!({"primaryColor": "#4f46e5", "backgroundColor": "#fdf6e3", "mode": "light"}));
    assert_eq!(m["headline"], mind["headline"], "fields not sent are unchanged");

    let page = Event::load("public-page.json");
    let hidden = invoke(&router, &page).await;
    assert_not_found(&hidden, "unpublished page");

    let published = invoke(&router, &ev_id("publish-mind.json")).await;
    assert_eq!(published.status, StatusCode::OK, "{published:?}");
    assert_eq!(published.body["mind"]["isPublished"], true);
    let url = published.body["mind"]["publicUrl"].as_str().unwrap();
    if std::env::var("LORE_PUBLIC_BASE_URL").is_err() {
        // Without a configured base, the address API Gateway was reached at.
        assert_eq!(url, "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com/m/ada-lovelace");
    }
    assert!(url.ends_with("/m/ada-lovelace"), "{url}");
    assert!(published.body["warning"].is_string(), "no ready source: a warning");

    let (status, ct, html) = invoke_html(&router, &page).await;
    assert_eq!((status, ct.as_str()), (StatusCode::OK, "text/html; charset=utf-8"));
    assert!(html.contains("<h1>Ada Lovelace</h1>"), "{html}");
    assert!(html.contains("Hello! Ask me about engines, numbers and poetical science."));
    assert!(html.contains("--bg: #fdf6e3;"), "the theme's background");
    assert!(html.contains("src=\"https://cdn.example.com/avatars/ada.png\""));

    let unpublished = invoke(&router, &ev_id("unpublish-mind.json")).await;
    assert_eq!(unpublished.status, StatusCode::OK, "{unpublished:?}");
    assert_eq!(unpublished.body["mind"]["isPublished"], false);
    assert_not_found(&invoke(&router, &page).await, "page after unpublishing");

    // Uploads: a multipart file (base64 body, as API Gateway sends it) and a presigned upload.
    let uploaded = invoke(&router, &ev_id("upload-file.json")).await;
    assert_eq!(uploaded.status, StatusCode::CREATED, "{uploaded:?}");
    assert_eq!(uploaded.body["category"], "document", "{uploaded:?}");
    assert!(uploaded.body["fileUrl"].as_str().is_some_and(|u| u.contains(&id)), "kept under the Mind: {uploaded:?}");
    let presigned = invoke(&router, &ev_id("upload-url.json")).await;
    assert_eq!(presigned.status, StatusCode::CREATED, "{presigned:?}");
    assert_eq!(presigned.body["method"], "PUT");
    assert!(presigned.body["uploadUrl"].as_str().is_some_and(|u| u.contains("signature=")), "{presigned:?}");

    let deleted = invoke(&router, &ev_id("delete-mind.json")).await;
    assert_eq!(deleted.status, StatusCode::OK, "{deleted:?}");
    assert_eq!(deleted.body, json!({"status": "success", "deleted": true, "id": id}));
    assert_not_found(&invoke(&router, &ev_id("get-mind.json")).await, "deleted Mind");
    assert_not_found(&invoke(&router, &ev_id("delete-mind.json")).await, "second delete");
    assert_eq!(invoke(&router, &ev("list-minds.json")).await.body["usage"]["mindsUsed"], 1);
}

#[tokio::test]
async fn every_mind_api_event_is_refused_without_a_valid_key() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    for name in API_EVENTS {
        let unknown = invoke(&router, &Event::load(name)).await;
        let missing = invoke(&router, &Event::load(name).without_authorization()).await;
        let garbage = invoke(&router, &Event::load(name).with_key("not-a-key")).await;
        for (what, reply) in [("sample key", unknown), ("no header", missing), ("garbage key", garbage)] {
            assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{name}, {what}: {reply:?}");
            assert_eq!(reply.error_code(), "unauthorized", "{name}, {what}");
            assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{name}, {what}");
        }
    }
}

#[tokio::test]
async fn write_events_need_the_minds_write_scope() {
    let tenant = Tenant::new().await;
    let reader = tenant.issue_key("minds:read").await;
    let router = tenant.router(RouteGroup::Minds);
    let list = invoke(&router, &Event::load("list-minds.json").with_key(&reader)).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    for name in ["create-mind.json", "update-mind.json", "publish-mind.json", "unpublish-mind.json", "delete-mind.json"]
    {
        let reply = invoke(&router, &Event::load(name).with_key(&reader)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.error_code(), "insufficient_scope", "{name}");
        assert_eq!(reply.body["error"]["details"]["required"], "minds:write", "{name}");
    }
    let writer = tenant.issue_key("minds:write").await;
    for name in ["list-minds.json", "get-mind.json"] {
        let reply = invoke(&router, &Event::load(name).with_key(&writer)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.body["error"]["details"]["required"], "minds:read", "{name}");
    }
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    for (function, name) in [("api-chatbots", "list-chatbots.json"), ("api-forms", "list-forms.json")] {
        let reply = invoke(&router, &Event::load_from(function, name).with_key(&tenant.key)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{function}/{name}: {reply:?}");
        assert_eq!(reply.error_code(), "not_found", "{function}/{name}");
        assert_eq!(reply.body["error"]["message"], "no such route");
    }
}
