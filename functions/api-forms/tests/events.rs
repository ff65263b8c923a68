//! The sample events of `events/api-forms/`, run in-process through the router this function
//! serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use serde_json::json;
use support::{Event, SAMPLE_FORM_ID, Tenant, invoke};

#[tokio::test]
async fn form_events_drive_a_form_through_its_lifecycle() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Forms);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    let list = invoke(&router, &ev("list-forms.json")).await;
    assert_eq!(list.status, StatusCode::OK, "{list:?}");
    assert_eq!(
        list.body,
        json!({"status": "success", "forms": [], "pagination": {"page": 1, "limit": 20, "total": 0, "totalPages": 0}})
    );

    // The sample id is well formed: it reaches the handlers and names no form.
    for name in ["get-form.json", "submit-response.json", "list-responses.json", "delete-form.json"] {
        let absent = invoke(&router, &ev(name)).await;
        assert_eq!(absent.status, StatusCode::NOT_FOUND, "{name}: {absent:?}");
        assert_eq!(absent.body["error"]["message"], "form not found", "{name}: a resource 404, not a route 404");
    }

    let created = invoke(&router, &ev("create-form.json")).await;
    assert_eq!(created.status, StatusCode::CREATED, "{created:?}");
    let form = &created.body["form"];
    assert_eq!(form["name"], "Contact us");
    let keys: Vec<&str> = form["fields"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["name", "email", "topic", "rating"]);
    assert_eq!(form["fields"][2]["options"], json!(["Sales", "Support"]));
    assert_eq!(form["fields"][3]["max"], 5);
    let id = form["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("form_") && id != SAMPLE_FORM_ID);
    let ev_id = |name: &str| ev(name).with(SAMPLE_FORM_ID, &id);

    let got = invoke(&router, &ev_id("get-form.json")).await;
    assert_eq!((got.status, &got.body["form"]), (StatusCode::OK, form));
    let list = invoke(&router, &ev("list-forms.json")).await;
    assert_eq!(list.body["forms"][0]["id"], id.as_str());

    let submitted = invoke(&router, &ev_id("submit-response.json")).await;
    assert_eq!(submitted.status, StatusCode::CREATED, "{submitted:?}");
    let response = &submitted.body["response"];
    assert_eq!(response["formId"], id.as_str());
    assert!(response["id"].as_str().unwrap().starts_with("resp_"));
    assert_eq!(tenant.fan_out().await, 1, "the submission put one event in the outbox");

    let responses = invoke(&router, &ev_id("list-responses.json")).await;
    assert_eq!(responses.status, StatusCode::OK, "{responses:?}");
    assert_eq!(responses.body["pagination"]["total"], 1);
    let r = &responses.body["responses"][0];
    assert_eq!((r["id"].clone(), r["source"].clone()), (response["id"].clone(), json!("embed")));
    assert_eq!(
        r["values"],
        json!({"name": "Ada Lovelace", "email": "ada@example.com", "topic": "Support", "rating": 5})
    );

    let deleted = invoke(&router, &ev_id("delete-form.json")).await;
    assert_eq!(deleted.status, StatusCode::OK, "{deleted:?}");
    assert_eq!(deleted.body, json!({"status": "success", "deleted": true, "id": id}));
    assert_eq!(invoke(&router, &ev_id("get-form.json")).await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn form_events_need_a_key_with_the_forms_scopes() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Forms);
    let reader = tenant.issue_key("forms:read").await;
    let reply = invoke(&router, &Event::load("create-form.json").with_key(&reader)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
    assert_eq!(reply.body["error"]["details"]["required"], "forms:write");
    let reply = invoke(&router, &Event::load("list-forms.json")).await;
    assert_eq!((reply.status, reply.error_code()), (StatusCode::UNAUTHORIZED, "unauthorized"));
}

#[tokio::test]
async fn other_route_groups_are_not_served_here() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Forms);
    let reply = invoke(&router, &Event::load_from("api-chatbots", "list-chatbots.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND, "{reply:?}");
    assert_eq!(reply.error_code(), "not_found");
}
