//! The sample events of `events/api-chatbots/`, run in-process through the router this function
//! serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use support::{Event, SAMPLE_CHATBOT_ID, Tenant, invoke};

const EVENTS: [&str; 5] =
    ["list-chatbots.json", "create-chatbot.json", "get-chatbot.json", "update-chatbot.json", "delete-chatbot.json"];

#[tokio::test]
async fn chatbot_events_drive_a_chatbot_through_its_lifecycle() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Chatbots);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    // An empty workspace: the list event's page and limit come back, nothing in them.
    let list = invoke(&router, &ev("list-chatbots.json")).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(list.body["status"], "success");
    assert_eq!(list.body["chatbots"], serde_json::json!([]));
    assert_eq!(list.body["pagination"], serde_json::json!({"page": 1, "limit": 20, "total": 0, "totalPages": 0}));

    // The sample id is well formed, so it reaches the handler and names no chatbot.
    let absent = invoke(&router, &ev("get-chatbot.json")).await;
    assert_eq!(absent.status, StatusCode::NOT_FOUND, "{absent:?}");
    assert_eq!(absent.error_code(), "not_found");
    assert_eq!(absent.body["error"]["message"], "chatbot not found", "a resource 404, not a route 404");

    // Create twice: the second generated slug is suffixed.
    let first = invoke(&router, &ev("create-chatbot.json")).await;
    assert_eq!(first.status, StatusCode::CREATED, "{first:?}");
    assert_eq!(first.body["status"], "success");
    let chatbot = &first.body["chatbot"];
    assert_eq!(chatbot["name"], "Acme Helper");
    assert_eq!(chatbot["slug"], "acme-helper");
    assert_eq!(chatbot["descriptor"], "Answers questions about Acme products and orders.");
    assert_eq!(chatbot["sourceCount"], 0);
    assert_eq!(chatbot["conversationCount"], 0);
    let id = chatbot["id"].as_str().expect("chatbot.id").to_owned();
    assert!(id.starts_with("cb_") && id != SAMPLE_CHATBOT_ID, "{id}");

    let second = invoke(&router, &ev("create-chatbot.json")).await;
    assert_eq!(second.status, StatusCode::CREATED, "{second:?}");
    assert_eq!(second.body["chatbot"]["slug"], "acme-helper-2");
    let second_id = second.body["chatbot"]["id"].as_str().unwrap().to_owned();

    let list = invoke(&router, &ev("list-chatbots.json")).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(list.body["pagination"], serde_json::json!({"page": 1, "limit": 20, "total": 2, "totalPages": 1}));
    let listed: Vec<&str> =
        list.body["chatbots"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(listed, [second_id.as_str(), id.as_str()], "newest first");

    // The id events, pointed at the first chatbot.
    let ev_id = |name: &str| ev(name).with_chatbot_id(&id);

    let got = invoke(&router, &ev_id("get-chatbot.json")).await;
    assert_eq!(got.status, StatusCode::OK, "{got:?}");
    assert_eq!(got.body["status"], "success");
    assert_eq!(got.body["chatbot"]["id"], id.as_str());
    assert_eq!(got.body["chatbot"]["slug"], "acme-helper");

    let updated = invoke(&router, &ev_id("update-chatbot.json")).await;
    assert_eq!(updated.status, StatusCode::OK, "{updated:?}");
    assert_eq!(updated.body["chatbot"]["id"], id.as_str());
    assert_eq!(updated.body["chatbot"]["name"], "Acme Support");
    assert_eq!(updated.body["chatbot"]["descriptor"], "Answers support questions about Acme orders.");
    assert_eq!(updated.body["chatbot"]["slug"], "acme-helper", "a rename keeps the slug");

    let got = invoke(&router, &ev_id("get-chatbot.json")).await;
    assert_eq!(got.body["chatbot"]["name"], "Acme Support", "the update was stored");

    let deleted = invoke(&router, &ev_id("delete-chatbot.json")).await;
    assert_eq!(deleted.status, StatusCode::OK, "{deleted:?}");
    assert_eq!(deleted.body, serde_json::json!({"status": "success", "deleted": true, "id": id}));

    let gone = invoke(&router, &ev_id("get-chatbot.json")).await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND, "{gone:?}");
    assert_eq!(gone.error_code(), "not_found");

    let again = invoke(&router, &ev_id("delete-chatbot.json")).await;
    assert_eq!(again.status, StatusCode::NOT_FOUND, "{again:?}");
    assert_eq!(again.error_code(), "not_found");

    let list = invoke(&router, &ev("list-chatbots.json")).await;
    assert_eq!(list.body["pagination"]["total"], 1);
    assert_eq!(list.body["chatbots"][0]["id"], second_id.as_str());
}

#[tokio::test]
async fn every_chatbot_event_is_refused_without_a_valid_key() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Chatbots);
    for name in EVENTS {
        // As shipped: the sample key is well formed but was never issued.
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
async fn write_events_need_the_chatbot_write_scope() {
    let tenant = Tenant::new().await;
    let reader = tenant.issue_key("chatbot:read").await;
    let router = tenant.router(RouteGroup::Chatbots);

    let list = invoke(&router, &Event::load("list-chatbots.json").with_key(&reader)).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");

    for name in ["create-chatbot.json", "update-chatbot.json", "delete-chatbot.json"] {
        let reply = invoke(&router, &Event::load(name).with_key(&reader)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.error_code(), "insufficient_scope", "{name}");
        assert_eq!(reply.body["error"]["details"]["required"], "chatbot:write", "{name}");
    }
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Chatbots);
    for (function, name) in
        [("api-integrations", "auth-verify.json"), ("api-minds", "list-minds.json"), ("api-forms", "list-forms.json")]
    {
        let reply = invoke(&router, &Event::load_from(function, name).with_key(&tenant.key)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{function}/{name}: {reply:?}");
        assert_eq!(reply.error_code(), "not_found", "{function}/{name}");
    }
}
