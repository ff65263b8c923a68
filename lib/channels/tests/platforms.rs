//! The platform clients against a local stub of Slack, Telegram and the Graph API over a socket:
//! the requests carry the published shapes, refusals are not retried, failures and rate limits
//! are, within their bounds, and no error ever shows Telegram's token.

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use lore_app::ports::{ChannelPlatform, OutboundMessage, PlatformError};
use lore_channels::{ChannelClient, PlatformUrls};
use lore_domain::channel::{ChannelThread, Credentials, PhoneNumberId, Secret};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const SLACK_TOKEN: &str = "xoxb-test-token";
const TELEGRAM_TOKEN: &str = "123456:AAH-secret_token";
const WHATSAPP_TOKEN: &str = "EAAG-access";
const PHONE: &str = "106540352242922";

/// One request as the stub heard it.
#[derive(Debug, Clone)]
struct Heard {
    method: Method,
    path: String,
    authorization: Option<String>,
    content_type: Option<String>,
    body: Value,
}

/// What the stub answers one request with.
enum Reply {
    Json(u16, Value),
    /// With a `Retry-After` header of this many seconds.
    Limited(Value, u64),
    /// Never answers.
    Stall,
}

type Script = dyn Fn(usize, &Heard) -> Reply + Send + Sync;

struct StubState {
    script: Box<Script>,
    heard: Mutex<Vec<Heard>>,
}

struct Stub {
    urls: PlatformUrls,
    state: Arc<StubState>,
}

impl Stub {
    async fn start(script: impl Fn(usize, &Heard) -> Reply + Send + Sync + 'static) -> Self {
        async fn handle(
            State(s): State<Arc<StubState>>,
            method: Method,
            uri: Uri,
            headers: HeaderMap,
            body: Bytes,
        ) -> Response {
            let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
            let heard = Heard {
                method,
                path: uri.path().to_owned(),
                authorization: header("authorization"),
                content_type: header("content-type"),
                body: if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() },
            };
            let n = {
                let mut all = s.heard.lock().unwrap();
                all.push(heard.clone());
                all.len() - 1
            };
            match (s.script)(n, &heard) {
                Reply::Json(status, body) => (StatusCode::from_u16(status).unwrap(), axum::Json(body)).into_response(),
                Reply::Limited(body, secs) => {
                    (StatusCode::TOO_MANY_REQUESTS, [("retry-after", secs.to_string())], axum::Json(body))
                        .into_response()
                }
                Reply::Stall => std::future::pending().await,
            }
        }
        let state = Arc::new(StubState { script: Box::new(script), heard: Mutex::default() });
        let app = Router::new().fallback(handle).with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let urls =
            PlatformUrls { slack: format!("{base}/api"), telegram: base.clone(), whatsapp: format!("{base}/v21.0/") };
        Self { urls, state }
    }

    fn client(&self) -> ChannelClient {
        client(self.urls.clone())
    }

    /// Every request heard, each checked against its platform's published shape.
    fn heard(&self) -> Vec<Heard> {
        let heard = self.state.heard.lock().unwrap().clone();
        heard.iter().for_each(check_shape);
        heard
    }
}

fn client(urls: PlatformUrls) -> ChannelClient {
    let mut client = ChannelClient::new(urls).unwrap();
    client.retry_backoff = Duration::from_millis(10);
    client.call_timeout = Duration::from_secs(5);
    client.max_retry_after = Duration::from_secs(2);
    client
}

/// The method, path, headers and members every request of its kind must have.
fn check_shape(h: &Heard) {
    let bearer = |token: &str| assert_eq!(h.authorization.as_deref(), Some(format!("Bearer {token}").as_str()));
    let path = h.path.as_str();
    if let Some(method) = path.strip_prefix("/api/") {
        assert_eq!(h.method, Method::POST);
        bearer(SLACK_TOKEN);
        match method {
            "auth.test" => {}
            "chat.postMessage" => {
                assert_eq!(h.content_type.as_deref(), Some("application/json; charset=utf-8"));
                assert!(h.body["channel"].is_string() && h.body["text"].is_string(), "{:?}", h.body);
                assert_eq!(h.body["mrkdwn"], json!(true));
                assert_eq!(h.body["unfurl_links"], json!(false));
                assert_eq!(h.body["unfurl_media"], json!(false));
            }
            other => panic!("unexpected Slack method {other}"),
        }
    } else if let Some(rest) = path.strip_prefix(&format!("/bot{TELEGRAM_TOKEN}/")) {
        assert_eq!(h.method, Method::POST);
        assert_eq!(h.authorization, None);
        assert_eq!(h.content_type.as_deref(), Some("application/json"));
        match rest {
            "setWebhook" => {
                assert_eq!(h.body["url"], json!("https://lore.example/channels/chn_1/telegram"));
                assert_eq!(h.body["secret_token"], json!("f00d"));
                assert_eq!(h.body["allowed_updates"], json!(["message"]));
            }
            "sendMessage" => {
                assert!(h.body["text"].is_string());
                assert_eq!(h.body["parse_mode"], json!("HTML"));
                assert_eq!(h.body["link_preview_options"], json!({"is_disabled": true}));
            }
            "deleteWebhook" | "getWebhookInfo" => {}
            other => panic!("unexpected Telegram method {other}"),
        }
    } else if let Some(rest) = path.strip_prefix(&format!("/v21.0/{PHONE}")) {
        bearer(WHATSAPP_TOKEN);
        match rest {
            "" => assert_eq!(h.method, Method::GET),
            "/messages" => {
                assert_eq!(h.method, Method::POST);
                assert_eq!(h.content_type.as_deref(), Some("application/json"));
                assert_eq!(h.body["messaging_product"], json!("whatsapp"));
                assert_eq!(h.body["recipient_type"], json!("individual"));
                assert_eq!(h.body["type"], json!("text"));
                assert_eq!(h.body["text"]["preview_url"], json!(false));
                assert!(h.body["text"]["body"].is_string());
            }
            other => panic!("unexpected Graph path {other}"),
        }
    } else {
        panic!("unexpected path {path}");
    }
}

fn slack() -> Credentials {
    Credentials::Slack {
        bot_token: Secret::from_stored(SLACK_TOKEN.into()),
        signing_secret: Secret::from_stored("signing".into()),
        bot_user_id: None,
    }
}

fn telegram() -> Credentials {
    Credentials::Telegram {
        bot_token: Secret::from_stored(TELEGRAM_TOKEN.into()),
        secret_token: Secret::from_stored("f00d".into()),
    }
}

fn whatsapp() -> Credentials {
    Credentials::Whatsapp {
        access_token: Secret::from_stored(WHATSAPP_TOKEN.into()),
        phone_number_id: PhoneNumberId::from_stored(PHONE.into()),
        app_secret: Secret::from_stored("app".into()),
        verify_token: Secret::from_stored("verify".into()),
    }
}

const WEBHOOK: &str = "https://lore.example/channels/chn_1/telegram";

fn message(chat: &str, thread: Option<&str>, reply_to: Option<&str>, pieces: &[&str]) -> OutboundMessage {
    OutboundMessage {
        thread: ChannelThread { chat: chat.into(), thread: thread.map(str::to_owned) },
        reply_to: reply_to.map(str::to_owned),
        pieces: pieces.iter().map(|p| (*p).to_owned()).collect(),
    }
}

fn slack_ok() -> Reply {
    Reply::Json(200, json!({"ok": true, "channel": "C1", "ts": "1700000000.000200"}))
}

fn telegram_ok() -> Reply {
    Reply::Json(200, json!({"ok": true, "result": {"message_id": 7}}))
}

fn graph_ok() -> Reply {
    Reply::Json(
        200,
        json!({"messaging_product": "whatsapp", "contacts": [{"input": "33612345678", "wa_id": "33612345678"}],
            "messages": [{"id": "wamid.HBgL"}]}),
    )
}

#[tokio::test]
async fn slack_connect_keeps_the_bot_user_id() {
    let stub = Stub::start(|_, _| {
        Reply::Json(
            200,
            json!({"ok": true, "url": "https://acme.slack.com/", "team": "Acme", "user": "lore",
            "team_id": "T1", "user_id": "U0BOT"}),
        )
    })
    .await;
    let connected = stub.client().connect(&slack(), "https://lore.example/x").await.unwrap();
    let Credentials::Slack { bot_user_id, bot_token, .. } = connected else { panic!() };
    assert_eq!(bot_user_id.as_deref(), Some("U0BOT"));
    assert_eq!(bot_token.expose(), SLACK_TOKEN);
    let heard = stub.heard();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].path, "/api/auth.test");
}

#[tokio::test]
async fn slack_refusals_are_not_retried() {
    let stub = Stub::start(|_, _| Reply::Json(200, json!({"ok": false, "error": "invalid_auth"}))).await;
    let e = stub.client().connect(&slack(), "https://lore.example/x").await.unwrap_err();
    assert_eq!(e, PlatformError::Refused("invalid_auth".into()));
    assert_eq!(stub.heard().len(), 1);

    let stub = Stub::start(|_, _| Reply::Json(200, json!({"ok": false, "error": "channel_not_found"}))).await;
    let e = stub.client().send(&slack(), &message("C404", None, None, &["a", "b"])).await.unwrap_err();
    assert_eq!(e, PlatformError::Refused("channel_not_found".into()));
    assert_eq!(stub.heard().len(), 1, "stops at the first piece");
}

#[tokio::test]
async fn slack_pieces_are_sent_in_order_in_the_thread() {
    let stub = Stub::start(|_, _| slack_ok()).await;
    let m = message("C1", Some("1700000000.000100"), Some("1700000000.000150"), &["one", "two", "three"]);
    stub.client().send(&slack(), &m).await.unwrap();
    let heard = stub.heard();
    let texts: Vec<&str> = heard.iter().map(|h| h.body["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["one", "two", "three"]);
    for h in &heard {
        assert_eq!(h.path, "/api/chat.postMessage");
        assert_eq!(h.body["channel"], json!("C1"));
        // Every piece stays in the thread.
        assert_eq!(h.body["thread_ts"], json!("1700000000.000100"));
    }
    // Outside a thread, no `thread_ts`.
    let stub = Stub::start(|_, _| slack_ok()).await;
    stub.client().send(&slack(), &message("D1", None, None, &["hi"])).await.unwrap();
    assert!(stub.heard()[0].body.get("thread_ts").is_none());
}

#[tokio::test]
async fn slack_rate_limit_is_waited_then_sent() {
    let stub = Stub::start(|n, _| match n {
        0 => Reply::Limited(json!({"ok": false, "error": "ratelimited"}), 1),
        _ => slack_ok(),
    })
    .await;
    let started = Instant::now();
    stub.client().send(&slack(), &message("C1", None, None, &["hi"])).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After is honoured");
    assert_eq!(stub.heard().len(), 2);
}

#[tokio::test]
async fn slack_ratelimited_in_a_200_is_retried() {
    let stub = Stub::start(|n, _| match n {
        0 => Reply::Json(200, json!({"ok": false, "error": "ratelimited"})),
        _ => slack_ok(),
    })
    .await;
    stub.client().send(&slack(), &message("C1", None, None, &["hi"])).await.unwrap();
    assert_eq!(stub.heard().len(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_three_times() {
    let stub = Stub::start(|n, _| match n {
        0 | 1 => Reply::Json(500, json!({"ok": false, "error": "internal_error"})),
        _ => slack_ok(),
    })
    .await;
    stub.client().send(&slack(), &message("C1", None, None, &["hi"])).await.unwrap();
    assert_eq!(stub.heard().len(), 3);

    let stub = Stub::start(|_, _| Reply::Json(502, json!({}))).await;
    let e = stub.client().send(&slack(), &message("C1", None, None, &["hi", "again"])).await.unwrap_err();
    assert!(matches!(&e, PlatformError::Failed(m) if m == "no answer from Slack: HTTP 502 Bad Gateway"), "{e:?}");
    assert_eq!(stub.heard().len(), 3);
}

#[tokio::test]
async fn a_stalled_server_fails_each_try_at_the_call_timeout() {
    let stub = Stub::start(|_, _| Reply::Stall).await;
    let mut client = stub.client();
    client.call_timeout = Duration::from_secs(1);
    let started = Instant::now();
    let e = client.send(&whatsapp(), &message("33612345678", None, None, &["hi"])).await.unwrap_err();
    let elapsed = started.elapsed();
    assert!(matches!(&e, PlatformError::Failed(m) if m.starts_with("no answer from WhatsApp: timed out")), "{e:?}");
    assert!(elapsed >= Duration::from_secs(3) && elapsed < Duration::from_secs(5), "{elapsed:?}");
    assert_eq!(stub.heard().len(), 3);
}

#[tokio::test]
async fn telegram_connect_sets_the_webhook() {
    let stub =
        Stub::start(|_, _| Reply::Json(200, json!({"ok": true, "result": true, "description": "Webhook was set"})))
            .await;
    let connected = stub.client().connect(&telegram(), WEBHOOK).await.unwrap();
    assert_eq!(connected, telegram());
    let heard = stub.heard();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].path, format!("/bot{TELEGRAM_TOKEN}/setWebhook"));
}

#[tokio::test]
async fn telegram_refusal_is_not_retried() {
    let stub =
        Stub::start(|_, _| Reply::Json(401, json!({"ok": false, "error_code": 401, "description": "Unauthorized"})))
            .await;
    let e = stub.client().connect(&telegram(), WEBHOOK).await.unwrap_err();
    assert_eq!(e, PlatformError::Refused("Unauthorized".into()));
    assert_eq!(stub.heard().len(), 1);
}

#[tokio::test]
async fn telegram_replies_with_the_first_piece_only() {
    let stub = Stub::start(|_, _| telegram_ok()).await;
    let m = message("-1001234", None, Some("42"), &["<b>one</b>", "two"]);
    stub.client().send(&telegram(), &m).await.unwrap();
    let heard = stub.heard();
    assert_eq!(heard.len(), 2);
    assert_eq!(heard[0].path, format!("/bot{TELEGRAM_TOKEN}/sendMessage"));
    assert_eq!(heard[0].body["chat_id"], json!(-1001234), "a number when it is one");
    assert_eq!(heard[0].body["text"], json!("<b>one</b>"));
    assert_eq!(heard[0].body["reply_to_message_id"], json!(42));
    assert_eq!(heard[0].body["allow_sending_without_reply"], json!(true));
    assert_eq!(heard[1].body["text"], json!("two"));
    assert!(heard[1].body.get("reply_to_message_id").is_none());
    assert!(heard[1].body.get("allow_sending_without_reply").is_none());

    let stub = Stub::start(|_, _| telegram_ok()).await;
    stub.client().send(&telegram(), &message("@channel", None, Some("not-a-number"), &["x"])).await.unwrap();
    let heard = stub.heard();
    assert_eq!(heard[0].body["chat_id"], json!("@channel"));
    assert!(heard[0].body.get("reply_to_message_id").is_none());
}

#[tokio::test]
async fn telegram_rate_limit_in_the_body_is_waited() {
    let limited = json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1",
        "parameters": {"retry_after": 1}});
    let stub = Stub::start(move |n, _| match n {
        0 => Reply::Json(429, limited.clone()),
        _ => telegram_ok(),
    })
    .await;
    let started = Instant::now();
    stub.client().send(&telegram(), &message("42", None, None, &["hi"])).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(stub.heard().len(), 2);
}

#[tokio::test]
async fn a_rate_limit_longer_than_the_bound_fails_at_once() {
    let limited = json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 30",
        "parameters": {"retry_after": 30}});
    let stub = Stub::start(move |_, _| Reply::Json(429, limited.clone())).await;
    let started = Instant::now();
    let e = stub.client().send(&telegram(), &message("42", None, None, &["hi"])).await.unwrap_err();
    assert_eq!(e, PlatformError::Failed("Too Many Requests: retry after 30".into()));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(stub.heard().len(), 1);

    let stub = Stub::start(|_, _| {
        Reply::Limited(json!({"error": {"message": "Rate limit hit", "type": "OAuthException", "code": 130429}}), 60)
    })
    .await;
    let started = Instant::now();
    let e = stub.client().send(&whatsapp(), &message("33612345678", None, None, &["hi"])).await.unwrap_err();
    assert_eq!(e, PlatformError::Failed("Rate limit hit".into()));
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(stub.heard().len(), 1);
}

#[tokio::test]
async fn telegram_disconnect_deletes_only_its_own_webhook_and_swallows_failures() {
    let info = |url: &str| {
        json!({"ok": true, "result": {"url": url, "has_custom_certificate": false,
        "pending_update_count": 0}})
    };
    let ours = "https://lore.example/channels/chn_1/telegram";
    let stub = Stub::start(move |_, h| {
        if h.path.ends_with("/getWebhookInfo") {
            Reply::Json(200, info(ours))
        } else {
            Reply::Json(200, json!({"ok": true, "result": true}))
        }
    })
    .await;
    stub.client().disconnect(&telegram(), "/channels/chn_1/telegram").await;
    let heard: Vec<String> = stub.heard().iter().map(|h| h.path.clone()).collect();
    assert_eq!(heard, [format!("/bot{TELEGRAM_TOKEN}/getWebhookInfo"), format!("/bot{TELEGRAM_TOKEN}/deleteWebhook")]);

    // The bot was connected to another channel since: its webhook stays.
    let stub = Stub::start(move |_, _| Reply::Json(200, info("https://lore.example/channels/chn_2/telegram"))).await;
    stub.client().disconnect(&telegram(), "/channels/chn_1/telegram").await;
    assert_eq!(stub.heard().len(), 1, "only read");

    let stub =
        Stub::start(|_, _| Reply::Json(404, json!({"ok": false, "error_code": 404, "description": "Not Found"}))).await;
    stub.client().disconnect(&telegram(), "/channels/chn_1/telegram").await;
    assert_eq!(stub.heard().len(), 1);
    // Slack and WhatsApp: nothing to undo.
    stub.client().disconnect(&slack(), "/channels/chn_1/slack/events").await;
    stub.client().disconnect(&whatsapp(), "/channels/chn_1/whatsapp").await;
    assert_eq!(stub.heard().len(), 1);
}

#[tokio::test]
async fn no_error_shows_the_telegram_token() {
    // A port nothing listens on: connection refused, three times.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let urls = PlatformUrls { telegram: format!("http://{addr}"), ..PlatformUrls::default() };
    let client = client(urls);
    for e in [
        client.connect(&telegram(), WEBHOOK).await.unwrap_err(),
        client.send(&telegram(), &message("42", None, None, &["hi"])).await.unwrap_err(),
    ] {
        let PlatformError::Failed(m) = &e else { panic!("{e:?}") };
        assert!(m.starts_with("no answer from Telegram: "), "{m}");
        assert!(!m.contains(TELEGRAM_TOKEN) && !m.contains("AAH-secret") && !m.contains("/bot"), "{m}");
        assert!(!format!("{e:?}").contains("AAH-secret"));
    }
}

#[tokio::test]
async fn whatsapp_connect_reads_the_number() {
    let stub = Stub::start(|_, _| {
        Reply::Json(200, json!({"verified_name": "Acme", "display_phone_number": "+1 555 0100", "id": PHONE}))
    })
    .await;
    let connected = stub.client().connect(&whatsapp(), "https://lore.example/x").await.unwrap();
    assert_eq!(connected, whatsapp());
    let heard = stub.heard();
    assert_eq!(heard.len(), 1);
    assert_eq!(heard[0].path, format!("/v21.0/{PHONE}"));
    assert_eq!(heard[0].method, Method::GET);
}

#[tokio::test]
async fn whatsapp_refusal_is_not_retried() {
    let stub = Stub::start(|_, _| {
        Reply::Json(
            401,
            json!({"error": {"message": "Invalid OAuth access token.", "type": "OAuthException", "code": 190,
                "fbtrace_id": "A1"}}),
        )
    })
    .await;
    let e = stub.client().connect(&whatsapp(), "https://lore.example/x").await.unwrap_err();
    assert_eq!(e, PlatformError::Refused("Invalid OAuth access token.".into()));
    assert_eq!(stub.heard().len(), 1);
}

#[tokio::test]
async fn whatsapp_replies_with_the_first_piece_only() {
    let stub = Stub::start(|_, _| graph_ok()).await;
    let m = message("33612345678", None, Some("wamid.IN"), &["one", "two"]);
    stub.client().send(&whatsapp(), &m).await.unwrap();
    let heard = stub.heard();
    assert_eq!(heard.len(), 2);
    assert_eq!(heard[0].path, format!("/v21.0/{PHONE}/messages"));
    assert_eq!(heard[0].body["to"], json!("33612345678"));
    assert_eq!(heard[0].body["text"]["body"], json!("one"));
    assert_eq!(heard[0].body["context"], json!({"message_id": "wamid.IN"}));
    assert_eq!(heard[1].body["text"]["body"], json!("two"));
    assert!(heard[1].body.get("context").is_none());
}

#[tokio::test]
async fn whatsapp_server_errors_then_success() {
    let stub = Stub::start(|n, _| match n {
        0 | 1 => Reply::Json(500, json!({"error": {"message": "An unknown error occurred", "code": 1}})),
        _ => graph_ok(),
    })
    .await;
    stub.client().send(&whatsapp(), &message("33612345678", None, None, &["hi"])).await.unwrap();
    assert_eq!(stub.heard().len(), 3);
}
