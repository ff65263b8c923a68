//! The sample events of `events/api-minds/`, run in-process through the router this function
//! serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event.
//!
//! The minds route group has no routes yet: its events document the route and answer the
//! contract's `not_found` envelope until the minds work fills the group.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use support::{Event, Tenant, invoke};

#[tokio::test]
async fn list_minds_event_answers_the_not_found_envelope_for_now() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);

    let reply = invoke(&router, &Event::load("list-minds.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.error_code(), "not_found");
    assert_eq!(reply.body["error"]["message"], "no such route");
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Minds);
    let reply = invoke(&router, &Event::load_from("api-chatbots", "list-chatbots.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.error_code(), "not_found");
}
