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

// ---- channels: the platforms' routes (docs/api.md §24) ------------------------------------------

/// The channel id of the `slack-*.json`, `telegram-update.json` and `whatsapp-verify.json` events.
const SAMPLE_CHANNEL_ID: &str = "chan_01jq3z5v7b8c9d0e1f2g3h4j5k";
/// The signing secret the Slack samples are signed with (at their sample time, so stale now).
const SAMPLE_SIGNING_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
/// The signing secret of the channel the tests connect.
const SIGNING_SECRET: &str = "e3b4c5d6a7f8091a2b3c4d5e6f708192";
/// The secret token placeholder of `telegram-update.json`.
const SAMPLE_TELEGRAM_SECRET: &str = "tg_EXAMPLEsecretTOKEN000";

/// Hex HMAC-SHA256 of `message` keyed with `key`.
fn hmac_sha256_hex(key: &[u8], message: &[u8]) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key).unwrap();
    mac.update(message);
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// `X-Slack-Signature` of `body` at `timestamp` (Slack's v0 scheme).
fn slack_signature(secret: &str, timestamp: &str, body: &str) -> String {
    format!("v0={}", hmac_sha256_hex(secret.as_bytes(), format!("v0:{timestamp}:{body}").as_bytes()))
}

/// The Slack event signed anew with `secret` at the current time: Slack's window is 5 minutes,
/// so the samples' own signatures (2026-05-01) are refused.
fn slack_signed(event: &Event, secret: &str) -> Event {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs().to_string();
    let signature = slack_signature(secret, &now, &event.body());
    event.with_header("x-slack-request-timestamp", &now).with_header("x-slack-signature", &signature)
}

/// The platforms' calls a stub received: path and JSON body.
type Calls = std::sync::Arc<std::sync::Mutex<Vec<(String, serde_json::Value)>>>;

/// One local server standing in for Slack (`/slack`), Telegram (`/telegram`) and WhatsApp
/// (`/whatsapp`): every call is recorded and answered as a success (`auth.test` names the bot
/// `U0BOT`); its base URL.
async fn platform_stub(calls: Calls) -> String {
    use axum::extract::State;
    use axum::http::Uri;
    async fn record(State(calls): State<Calls>, uri: Uri, body: axum::body::Bytes) -> axum::Json<serde_json::Value> {
        let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
        calls.lock().unwrap().push((uri.path().to_owned(), body));
        axum::Json(json!({"ok": true, "result": true, "user_id": "U0BOT", "id": "123456789012345"}))
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().fallback(record).with_state(calls);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    base
}

/// The tenant's data dir composed the way the function composes it, the platforms' API URLs
/// pointed at a [`platform_stub`]; its job queue is the in-process one, with no worker taking
/// from it, so the tests see what the routes queued.
async fn channels_composition(tenant: &Tenant, stub: &str) -> lore::compose::Composition {
    let mut settings = lore::settings::Settings::from_env().expect("the settings");
    settings.backend = lore::compose::Backend::Local;
    settings.platforms.slack = format!("{stub}/slack");
    settings.platforms.telegram = format!("{stub}/telegram");
    settings.platforms.whatsapp = format!("{stub}/whatsapp");
    let overrides = lore::compose::Overrides::default();
    lore::compose::open_with(
        &settings,
        tenant.dir.path(),
        "http://localhost:3000",
        &overrides,
        lore::compose::Uses::Everything,
    )
    .await
    .expect("the embedded composition opens")
}

/// Connects a channel with `spec` to a new chatbot of the tenant; its id.
async fn connect(
    c: &lore::compose::Composition,
    tenant: &Tenant,
    spec: lore_domain::channel::RawChannelSpec,
) -> String {
    use lore_domain::source::SourceOwner;
    let p = c.app.authenticate_and_admit(Some(&format!("Bearer {}", tenant.key))).await.unwrap();
    let new = lore_domain::chatbot::NewChatbot::parse(Some("kb"), None, None).unwrap();
    let bot = c.app.create_chatbot(&p, new).await.unwrap();
    let channel =
        c.app.connect_channel(&p, &SourceOwner::Chatbot(bot.id), &spec, "http://localhost:3000").await.unwrap();
    channel.id.to_string()
}

fn value(s: &str) -> lore_domain::mind::Field<String> {
    lore_domain::mind::Field::Value(s.to_owned())
}

/// The next channel's message the routes queued, as its `Debug` text (the job type is not a
/// dependency of this function); `None` when nothing is queued within a moment.
async fn queued_channel_job(c: &lore::compose::Composition) -> Option<String> {
    let jobs = c.jobs.as_ref().expect("the in-process queue");
    let job = tokio::time::timeout(std::time::Duration::from_millis(300), jobs.take_reply()).await.ok()??;
    Some(format!("{job:?}"))
}

#[test]
fn the_slack_samples_are_signed_the_way_slack_signs() {
    for name in ["slack-url-verification.json", "slack-event.json"] {
        let event = Event::load(name);
        let json: serde_json::Value = serde_json::from_str(event.json()).unwrap();
        let headers = &json["headers"];
        assert_eq!(headers["content-length"], event.body().len().to_string(), "{name}");
        let ts = headers["x-slack-request-timestamp"].as_str().unwrap();
        assert_eq!(
            headers["x-slack-signature"].as_str(),
            Some(slack_signature(SAMPLE_SIGNING_SECRET, ts, &event.body()).as_str()),
            "{name}"
        );
    }
}

#[tokio::test]
async fn slack_events_are_checked_verified_and_queued_once() {
    let tenant = Tenant::new().await;
    let calls = Calls::default();
    let stub = platform_stub(calls.clone()).await;
    let c = channels_composition(&tenant, &stub).await;
    let spec = lore_domain::channel::RawChannelSpec {
        kind: value("slack"),
        bot_token: value("xoxb-1234-5678-EXAMPLE"),
        signing_secret: value(SIGNING_SECRET),
        ..Default::default()
    };
    let id = connect(&c, &tenant, spec).await;
    assert_eq!(calls.lock().unwrap().iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["/slack/auth.test"]);
    let router = lore::lambda::api_router(c.app.clone(), &[RouteGroup::Integrations]);
    let ev = |name: &str| Event::load(name).with(SAMPLE_CHANNEL_ID, &id);

    // Slack's check of the Request URL: its challenge, echoed.
    let check = invoke(&router, &slack_signed(&ev("slack-url-verification.json"), SIGNING_SECRET)).await;
    assert_eq!(check.status, StatusCode::OK, "{check:?}");
    assert_eq!(check.body, json!({"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}));

    // Refused: signed with another secret, as shipped (2026: out of the 5 minutes), unsigned.
    let event = ev("slack-event.json");
    let unsigned: serde_json::Value = {
        let mut v: serde_json::Value = serde_json::from_str(event.json()).unwrap();
        v["headers"].as_object_mut().unwrap().remove("x-slack-signature");
        v
    };
    for (what, refused) in [
        ("another secret", slack_signed(&event, "not-the-signing-secret")),
        ("stale", event.clone()),
        ("unsigned", Event::from_json(&unsigned.to_string())),
    ] {
        let reply = invoke(&router, &refused).await;
        assert_eq!((reply.status, reply.error_code()), (StatusCode::UNAUTHORIZED, "unauthorized"), "{what}: {reply:?}");
    }
    let stale_but_right =
        invoke(&router, &slack_signed(&event, SIGNING_SECRET).with_header("x-slack-request-timestamp", "1777636800"))
            .await;
    assert_eq!(stale_but_right.status, StatusCode::UNAUTHORIZED, "the timestamp is signed too");
    assert_eq!(queued_channel_job(&c).await, None, "nothing refused is queued");

    // The mention: acknowledged at once, its answer queued for the worker (one job).
    let mention = invoke(&router, &slack_signed(&event, SIGNING_SECRET)).await;
    assert_eq!(mention.status, StatusCode::OK, "{mention:?}");
    assert_eq!(mention.body, json!({"status": "success"}));
    let job = queued_channel_job(&c).await.expect("a channel job was queued");
    assert!(job.starts_with("Channel("), "{job}");
    for part in [id.as_str(), "C0123456789", "1777636800.000100", "\"How long do refunds take?\""] {
        assert!(job.contains(part), "{part} in {job}");
    }
    assert!(!job.contains("U0BOT"), "the mention of the bot is taken out of the question: {job}");
    // Slack's redelivery (same event_id): acknowledged and queued with the same delivery id,
    // which the worker answers at most once (functions/ingest-worker/tests/handler.rs).
    let again = invoke(&router, &slack_signed(&event, SIGNING_SECRET)).await;
    assert_eq!((again.status, again.body.clone()), (StatusCode::OK, json!({"status": "success"})), "{again:?}");
    assert_eq!(queued_channel_job(&c).await, Some(job), "the same message");
    assert_eq!(calls.lock().unwrap().len(), 1, "nothing is sent from the route itself");

    // The sample's own channel id names no channel.
    let unknown = invoke(&router, &slack_signed(&Event::load("slack-event.json"), SIGNING_SECRET)).await;
    assert_eq!((unknown.status, unknown.error_code()), (StatusCode::NOT_FOUND, "not_found"), "{unknown:?}");
}

#[tokio::test]
async fn telegram_and_whatsapp_events_are_checked_with_the_channels_secrets() {
    let tenant = Tenant::new().await;
    let calls = Calls::default();
    let stub = platform_stub(calls.clone()).await;
    let c = channels_composition(&tenant, &stub).await;
    let router = lore::lambda::api_router(c.app.clone(), &[RouteGroup::Integrations]);

    // Telegram: the secret token Lore gave setWebhook is what admits an update.
    let spec = lore_domain::channel::RawChannelSpec {
        kind: value("telegram"),
        bot_token: value("123456789:AAEXAMPLEexampleEXAMPLEexample"),
        ..Default::default()
    };
    let telegram = connect(&c, &tenant, spec).await;
    let secret = {
        let calls = calls.lock().unwrap();
        let (path, body) = calls.last().unwrap();
        assert_eq!(path, "/telegram/bot123456789:AAEXAMPLEexampleEXAMPLEexample/setWebhook");
        assert_eq!(body["url"], format!("http://localhost:3000/channels/{telegram}/telegram"));
        body["secret_token"].as_str().unwrap().to_owned()
    };
    let update = Event::load("telegram-update.json").with(SAMPLE_CHANNEL_ID, &telegram);
    let refused = invoke(&router, &update).await;
    assert_eq!((refused.status, refused.error_code()), (StatusCode::UNAUTHORIZED, "unauthorized"), "{refused:?}");
    let update = update.with(SAMPLE_TELEGRAM_SECRET, &secret);
    let reply = invoke(&router, &update).await;
    assert_eq!((reply.status, reply.body.clone()), (StatusCode::OK, json!({"status": "success"})), "{reply:?}");
    let job = queued_channel_job(&c).await.expect("a channel job was queued");
    for part in [telegram.as_str(), "987654321", "\"Ada\"", "\"How long do refunds take?\""] {
        assert!(job.contains(part), "{part} in {job}");
    }
    assert_eq!(invoke(&router, &update).await.status, StatusCode::OK, "a redelivered update");
    assert_eq!(queued_channel_job(&c).await, Some(job), "the same message, answered at most once by the worker");

    // WhatsApp: Meta's check of the Callback URL echoes the challenge for the verify token.
    let spec = lore_domain::channel::RawChannelSpec {
        kind: value("whatsapp"),
        access_token: value("EAAGexampleEXAMPLE"),
        phone_number_id: value("123456789012345"),
        app_secret: value("0123456789abcdef0123456789abcdef"),
        verify_token: value("lore-verify-EXAMPLE"),
        ..Default::default()
    };
    let whatsapp = connect(&c, &tenant, spec).await;
    let verify = Event::load("whatsapp-verify.json").with(SAMPLE_CHANNEL_ID, &whatsapp);
    let (status, headers, body) = invoke_raw(&router, &verify).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/plain"), "{headers:?}");
    assert_eq!(body, b"1158201444");
    let wrong = invoke(&router, &verify.with("lore-verify-EXAMPLE", "a-guess")).await;
    assert_eq!((wrong.status, wrong.error_code()), (StatusCode::FORBIDDEN, "forbidden"), "{wrong:?}");
    // Each platform's route knows only its own channels.
    let other = invoke(&router, &Event::load("whatsapp-verify.json").with(SAMPLE_CHANNEL_ID, &telegram)).await;
    assert_eq!((other.status, other.error_code()), (StatusCode::NOT_FOUND, "not_found"), "{other:?}");
}
