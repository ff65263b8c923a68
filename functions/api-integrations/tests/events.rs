//! The sample events of `events/api-integrations/`, run in-process through the router this
//! function serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use support::{Event, Tenant, WORKSPACE_NAME, invoke};

#[tokio::test]
async fn auth_verify_event_names_the_workspace_and_key() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);

    let reply = invoke(&router, &Event::load("auth-verify.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["status"], "success");
    assert_eq!(reply.body["workspace"], serde_json::json!({"id": tenant.workspace_id, "name": WORKSPACE_NAME}));
    assert_eq!(reply.body["key"]["id"], tenant.key_id.as_str());
    let scopes: Vec<&str> =
        reply.body["key"]["scopes"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    for scope in ["chatbot:read", "chatbot:write", "forms:read", "webhooks:write"] {
        assert!(scopes.contains(&scope), "an `all` key holds {scope}: {scopes:?}");
    }

    // Any valid key passes, whatever its scopes (CONTRACT §3).
    let narrow = tenant.issue_key("chatbot:read").await;
    let reply = invoke(&router, &Event::load("auth-verify.json").with_key(&narrow)).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["key"]["scopes"], serde_json::json!(["chatbot:read"]));
}

#[tokio::test]
async fn auth_verify_event_is_refused_without_a_valid_key() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);
    let event = Event::load("auth-verify.json");
    for (what, event) in [
        ("sample key", event.clone()),
        ("no header", event.without_authorization()),
        ("garbage key", event.with_key("garbage")),
    ] {
        let reply = invoke(&router, &event).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{what}: {reply:?}");
        assert_eq!(reply.error_code(), "unauthorized", "{what}");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"), "{what}");
    }
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);
    let reply = invoke(&router, &Event::load_from("api-chatbots", "list-chatbots.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.error_code(), "not_found");
}
