//! The sample events of `events/api-integrations/`, run in-process through the router this
//! function serves, after `lambda_http`'s own conversion of an API Gateway HTTP API event.

#[allow(dead_code)]
#[path = "../../test_support.rs"]
mod support;

use lambda_http::http::StatusCode;
use lore_http::RouteGroup;
use serde_json::json;
use support::{Event, SAMPLE_DELIVERY_ID, SAMPLE_FORM_ID, SAMPLE_HOOK_ID, Tenant, WORKSPACE_NAME, invoke, invoke_raw};

#[tokio::test]
async fn auth_verify_event_names_the_workspace_and_key() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);

    let reply = invoke(&router, &Event::load("auth-verify.json").with_key(&tenant.key)).await;
    assert_eq!(reply.status, StatusCode::OK, "{reply:?}");
    assert_eq!(reply.body["status"], "success");
    assert_eq!(reply.body["workspace"], serde_json::json!({"id": tenant.workspace_id, "name": WORKSPACE_NAME}));
    assert_eq!(reply.body["key"]["id"], tenant.key_id.as_str());
    assert_eq!(reply.body["webhooks"], json!({"active": 0, "disabled": 0}));
    let scopes: Vec<&str> =
        reply.body["key"]["scopes"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    for scope in ["chatbot:read", "chatbot:write", "forms:read", "webhooks:write"] {
        assert!(scopes.contains(&scope), "an `all` key holds {scope}: {scopes:?}");
    }

    // Any valid key passes, whatever its scopes (docs/api.md §3).
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

/// The hook URL of `subscribe.json`; tests replace it so that nothing names a real host.
const SAMPLE_HOOK_URL: &str = "https://hooks.example.com/catch/123456/abcdef/";
const LOCAL_HOOK_URL: &str = "http://127.0.0.1:9/catch";

#[tokio::test]
async fn integration_events_subscribe_sample_log_redeliver_and_unsubscribe() {
    let tenant = Tenant::new().await;
    let router = tenant.router_private(RouteGroup::Integrations);
    let forms = tenant.router(RouteGroup::Forms);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    let choices = invoke(&router, &ev("list-forms-action.json")).await;
    assert_eq!(choices.status, StatusCode::OK, "{choices:?}");
    assert_eq!(choices.body, json!([{"id": "all", "name": "All forms"}]));
    let sample = invoke(&router, &ev("sample.json")).await;
    assert_eq!((sample.status, sample.error_code()), (StatusCode::NOT_FOUND, "not_found"), "unknown formId");
    let subscribe = ev("subscribe.json").with(SAMPLE_HOOK_URL, LOCAL_HOOK_URL);
    let unknown = invoke(&router, &subscribe).await;
    assert_eq!(
        (unknown.status, unknown.body["error"]["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("form not found"))
    );

    let created = invoke(&forms, &Event::load_from("api-forms", "create-form.json").with_key(&tenant.key)).await;
    let form = created.body["form"]["id"].as_str().unwrap().to_owned();
    let choices = invoke(&router, &ev("list-forms-action.json")).await;
    assert_eq!(choices.body, json!([{"id": "all", "name": "All forms"}, {"id": form, "name": "Contact us"}]));
    let sample = invoke(&router, &ev("sample.json").with(SAMPLE_FORM_ID, &form)).await;
    assert_eq!(sample.status, StatusCode::OK, "{sample:?}");
    assert_eq!(sample.body[0]["eventType"], "form_response");
    assert_eq!(sample.body[0]["data"]["formId"], form.as_str());

    let hook = invoke(&router, &subscribe.with(SAMPLE_FORM_ID, &form)).await;
    assert_eq!(hook.status, StatusCode::CREATED, "{hook:?}");
    assert_eq!(
        (hook.body["hookUrl"].as_str(), hook.body["formId"].as_str()),
        (Some(LOCAL_HOOK_URL), Some(form.as_str()))
    );
    assert!(hook.body["secret"].as_str().unwrap().starts_with("whsec_"));
    let hook_id = hook.body["hookId"].as_str().unwrap().to_owned();

    // A submission through the forms function, fanned out: one pending delivery in the log.
    let submit =
        Event::load_from("api-forms", "submit-response.json").with_key(&tenant.key).with(SAMPLE_FORM_ID, &form);
    assert_eq!(invoke(&forms, &submit).await.status, StatusCode::CREATED);
    assert_eq!(tenant.fan_out().await, 1);
    let log = invoke(&router, &ev("list-deliveries.json").with(SAMPLE_HOOK_ID, &hook_id)).await;
    assert_eq!(log.status, StatusCode::OK, "{log:?}");
    assert_eq!(
        (log.body["pagination"]["total"].clone(), log.body["hook"]["status"].clone()),
        (json!(1), json!("active"))
    );
    let d = &log.body["deliveries"][0];
    assert_eq!(
        (d["status"].as_str(), d["eventType"].as_str(), d["attempts"].clone()),
        (Some("pending"), Some("form_response"), json!([]))
    );
    let dlv = d["id"].as_str().unwrap().to_owned();

    let absent = invoke(&router, &ev("redeliver.json")).await;
    assert_eq!(
        (absent.status, absent.body["error"]["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("delivery not found"))
    );
    let again = invoke(&router, &ev("redeliver.json").with(SAMPLE_DELIVERY_ID, &dlv)).await;
    assert_eq!(again.status, StatusCode::ACCEPTED, "{again:?}");
    assert_eq!(
        (again.body["delivery"]["id"].as_str(), again.body["delivery"]["status"].as_str()),
        (Some(dlv.as_str()), Some("pending"))
    );

    let gone = invoke(&router, &ev("unsubscribe.json").with(SAMPLE_HOOK_ID, &hook_id)).await;
    assert_eq!(gone.status, StatusCode::OK, "{gone:?}");
    assert_eq!(gone.body, json!({"status": "success", "deleted": true, "hookId": hook_id, "id": hook_id}));
    let twice = invoke(&router, &ev("unsubscribe.json").with(SAMPLE_HOOK_ID, &hook_id)).await;
    assert_eq!(twice.status, StatusCode::NOT_FOUND);

    let other =
        invoke(&router, &ev("subscribe.json").with(SAMPLE_HOOK_URL, LOCAL_HOOK_URL).with(SAMPLE_FORM_ID, &form)).await;
    let other_id = other.body["hookId"].as_str().unwrap().to_owned();
    assert_ne!(other_id, hook_id, "a removed subscription is not revived");
    let by_body = invoke(&router, &ev("unsubscribe-by-body.json").with(SAMPLE_HOOK_ID, &other_id)).await;
    assert_eq!((by_body.status, by_body.body["hookId"].as_str()), (StatusCode::OK, Some(other_id.as_str())));
}

#[tokio::test]
async fn subscribe_event_refuses_private_addresses_when_the_address_rule_is_on() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);
    let subscribe = Event::load("subscribe.json").with_key(&tenant.key).with(SAMPLE_HOOK_URL, LOCAL_HOOK_URL);
    let reply = invoke(&router, &subscribe).await;
    assert_eq!((reply.status, reply.error_code()), (StatusCode::BAD_REQUEST, "url_blocked"), "{reply:?}");
    let narrow = tenant.issue_key("forms:read").await;
    let reply = invoke(&router, &Event::load("subscribe.json").with_key(&narrow)).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{reply:?}");
    assert_eq!(reply.body["error"]["details"]["required"], "webhooks:write");
}

/// The key id of `revoke-key.json`; tests put a real one in its place.
const SAMPLE_KEY_ID: &str = "key_01jq3z5v7b8c9d0e1f2g3h4j5k";

#[tokio::test]
async fn workspace_and_key_events_read_usage_make_list_and_revoke_keys() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);
    let ev = |name: &str| Event::load(name).with_key(&tenant.key);

    let ws = invoke(&router, &ev("get-workspace.json")).await;
    assert_eq!(ws.status, StatusCode::OK, "{ws:?}");
    assert_eq!(ws.body["workspace"]["id"], tenant.workspace_id.as_str());
    assert_eq!(
        (ws.body["limits"]["mindsLimit"].clone(), ws.body["usage"]["activeKeys"].clone()),
        (json!(10), json!(1))
    );

    let made = invoke(&router, &ev("create-key.json")).await;
    assert_eq!(made.status, StatusCode::CREATED, "{made:?}");
    assert_eq!(made.body["key"]["scopes"], json!(["forms:read", "webhooks:write"]));
    let (secret, id) = (made.body["secret"].as_str().unwrap(), made.body["key"]["id"].as_str().unwrap());
    // The new key works at once, within its scopes: it may verify but not manage keys.
    let verified = invoke(&router, &Event::load("auth-verify.json").with_key(secret)).await;
    assert_eq!(verified.body["key"]["id"], id);
    let refused = invoke(&router, &Event::load("list-keys.json").with_key(secret)).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN, "{refused:?}");
    assert_eq!(refused.body["error"]["details"]["required"], "workspace:admin");

    let listed = invoke(&router, &ev("list-keys.json")).await;
    assert_eq!(listed.body["pagination"]["total"], 2, "{listed:?}");
    assert_eq!(
        (listed.body["keys"][0]["id"].as_str(), listed.body["keys"][1]["isCurrent"].as_bool()),
        (Some(id), Some(true))
    );

    let revoked = invoke(&router, &ev("revoke-key.json").with(SAMPLE_KEY_ID, id)).await;
    assert_eq!(revoked.status, StatusCode::OK, "{revoked:?}");
    assert!(revoked.body["key"]["revokedAt"].is_string(), "{revoked:?}");
    let after = invoke(&router, &Event::load("auth-verify.json").with_key(secret)).await;
    assert_eq!(after.status, StatusCode::UNAUTHORIZED, "a revoked key is refused: {after:?}");
    let unknown = invoke(&router, &ev("revoke-key.json")).await;
    assert_eq!((unknown.status, unknown.error_code()), (StatusCode::NOT_FOUND, "not_found"));
}

#[tokio::test]
async fn console_events_serve_the_page_and_its_assets_on_the_apis_origin() {
    let tenant = Tenant::new().await;
    let router = tenant.router(RouteGroup::Integrations);

    let (status, headers, body) = invoke_raw(&router, &Event::load("console-page.json")).await;
    assert_eq!(status, StatusCode::OK);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert_eq!(header("content-type"), "text/html; charset=utf-8");
    let csp = header("content-security-policy");
    assert!(csp.contains("connect-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    let html = String::from_utf8(body).unwrap();
    let nonce = csp.split("'nonce-").nth(1).unwrap().split('\'').next().unwrap();
    assert!(html.contains(&format!("nonce=\"{nonce}\"")), "the page's script carries this response's nonce");
    let js = html.split("src=\"").nth(1).unwrap().split('"').next().unwrap();
    assert!(js.starts_with("/console/assets/console.js?v="), "{js}");

    // The script, gzip-compressed for a browser that accepts it, cached for a year.
    let (status, headers, body) = invoke_raw(&router, &Event::load("console-asset.json")).await;
    assert_eq!(status, StatusCode::OK);
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    assert_eq!(
        (header("content-encoding"), header("content-type")),
        ("gzip".into(), "text/javascript; charset=utf-8".into())
    );
    assert!(header("cache-control").contains("immutable"), "{headers:?}");
    let mut script = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&body[..]), &mut script).unwrap();
    assert!(script.contains("/api/v1/keys"), "the console's own script");

    // Served by this function only: the knowledge functions do not answer it.
    let (status, _, _) = invoke_raw(&tenant.router(RouteGroup::Chatbots), &Event::load("console-page.json")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
