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
    support::assert_every_event_needs_a_key(&tenant.router(RouteGroup::Chatbots), &EVENTS).await;
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

/// The conversation events, in the order they run.
const CONVERSATION_EVENTS: [&str; 5] = [
    "create-conversation.json",
    "list-conversations.json",
    "send-message.json",
    "get-conversation.json",
    "delete-conversation.json",
];
/// The conversation id the conversation events carry.
const SAMPLE_CONVERSATION_ID: &str = "conv_01jq3z5v7b8c9d0e1f2g3h4j5k";

#[tokio::test]
async fn conversation_events_hold_a_conversation_with_a_chatbot() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Chatbots);
    let created = invoke(&router, &Event::load("create-chatbot.json").with_key(&tenant.key)).await;
    let bot = created.body["chatbot"]["id"].as_str().unwrap().to_owned();
    let ev = |name: &str| Event::load(name).with_key(&tenant.key).with_chatbot_id(&bot);

    // The sample conversation id names none yet.
    for name in ["send-message.json", "get-conversation.json", "delete-conversation.json"] {
        let reply = invoke(&router, &ev(name)).await;
        assert_eq!(reply.status, StatusCode::NOT_FOUND, "{name}: {reply:?}");
    }
    let started = invoke(&router, &ev("create-conversation.json")).await;
    assert_eq!(started.status, StatusCode::CREATED, "{started:?}");
    let messages = started.body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "the question and its answer: {started:?}");
    assert_eq!(messages[1]["generatedBy"], "extractive");
    assert_eq!(messages[1]["content"], "I don't have anything in my knowledge about that yet.", "no knowledge yet");
    let id = started.body["conversation"]["id"].as_str().unwrap().to_owned();
    let ev = |name: &str| {
        let e = ev(name);
        if e.json().contains(SAMPLE_CONVERSATION_ID) { e.with(SAMPLE_CONVERSATION_ID, &id) } else { e }
    };

    let list = invoke(&router, &ev("list-conversations.json")).await;
    assert_eq!((list.status, list.body["pagination"]["total"].as_u64()), (StatusCode::OK, Some(1)), "{list:?}");
    let sent = invoke(&router, &ev("send-message.json")).await;
    assert_eq!(sent.status, StatusCode::CREATED, "{sent:?}");
    assert_eq!(sent.body["message"]["role"], "assistant");
    let read = invoke(&router, &ev("get-conversation.json")).await;
    assert_eq!(read.body["conversation"]["messageCount"], 4, "{read:?}");
    let deleted = invoke(&router, &ev("delete-conversation.json")).await;
    assert_eq!(deleted.status, StatusCode::OK, "{deleted:?}");
    let detail = invoke(&router, &Event::load("get-chatbot.json").with_key(&tenant.key).with_chatbot_id(&bot)).await;
    assert_eq!(detail.body["chatbot"]["conversationCount"], 0);

    // Without a key every one is refused; reading needs conversations:read, writing chat:write.
    for name in CONVERSATION_EVENTS {
        let reply = invoke(&router, &Event::load(name)).await;
        assert_eq!(reply.status, StatusCode::UNAUTHORIZED, "{name}");
    }
    let reader = tenant.issue_key("chatbot:read,conversations:read").await;
    for (name, scope) in [("create-conversation.json", "chat:write"), ("send-message.json", "chat:write")] {
        let reply = invoke(&router, &Event::load(name).with_key(&reader).with_chatbot_id(&bot)).await;
        assert_eq!(reply.status, StatusCode::FORBIDDEN, "{name}: {reply:?}");
        assert_eq!(reply.body["error"]["details"]["required"], scope);
    }
}

/// The function counts each client address's page reads (its events carry the address in
/// `requestContext.http.sourceIp`): a published chatbot's page is a public route, metered like
/// a Mind's.
#[tokio::test]
async fn public_page_reads_count_against_the_client_address() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Chatbots);
    let page = Event::load("public-page.json");
    for n in 1..=120 {
        let (status, _, _) = support::invoke_raw(&router, &page).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "read {n}: nothing is published at /c/support-bot");
    }
    let (status, headers, body) = support::invoke_raw(&router, &page).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{}", String::from_utf8_lossy(&body));
    assert!(headers.contains_key("retry-after"), "{headers:?}");
    let other = page.with("203.0.113.10", "198.51.100.7");
    assert_eq!(
        support::invoke_raw(&router, &other).await.0,
        StatusCode::NOT_FOUND,
        "another address has its own budget"
    );
}
