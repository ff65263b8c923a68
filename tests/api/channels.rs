//! Channels over HTTP (docs/api.md §24): Slack, Telegram and WhatsApp connected to a chatbot or a
//! Mind, on whichever backend the run uses. The platforms are one local server (`Receiver`)
//! answering in each platform's published shapes and recording what Lore sent; the platforms'
//! requests to Lore are signed here the way each platform signs.

use crate::receiver::{Received, Receiver, Reply};
use crate::support::{TestApp, expect_error, parts};
use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(20);
const REFUNDS: &str = "Refunds are paid within fourteen days of the return reaching our warehouse.";
const SIGNING_SECRET: &str = "8f742231b10e8888abcd99yyyzzz85a5";
const SLACK_TOKEN: &str = "xoxb-1111-2222-AbCdEfGh";
const TELEGRAM_TOKEN: &str = "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11";
const WA_TOKEN: &str = "EAAGm0PX4ZCpsBA";
const WA_PHONE: &str = "106540352242922";
const APP_SECRET: &str = "a1b2c3-app-secret";

fn hmac_hex(key: &str, parts: &[&[u8]]) -> String {
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key.as_bytes()).unwrap();
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

fn now_secs() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
}

/// The platforms, answering as they do, and the app talking to them with short retry waits.
struct Setup {
    t: TestApp,
    platforms: Receiver,
}

async fn setup() -> Setup {
    let platforms = Receiver::start().await;
    let ok = r#"{"ok":true,"result":true}"#;
    platforms.always("/slack/api/auth.test", Reply::Json(200, r#"{"ok":true,"user_id":"U0BOT","bot_id":"B0BOT"}"#));
    platforms.always("/slack/api/chat.postMessage", Reply::Json(200, r#"{"ok":true,"ts":"1700000001.000200"}"#));
    for method in ["setWebhook", "sendMessage", "deleteWebhook"] {
        platforms.always(&format!("/telegram/bot{TELEGRAM_TOKEN}/{method}"), Reply::Json(200, ok));
    }
    platforms.always(
        &format!("/graph/v21.0/{WA_PHONE}"),
        Reply::Json(200, r#"{"verified_name":"Shop","display_phone_number":"15550000000","id":"106540352242922"}"#),
    );
    platforms.always(
        &format!("/graph/v21.0/{WA_PHONE}/messages"),
        Reply::Json(200, r#"{"messaging_product":"whatsapp","messages":[{"id":"wamid.OUT"}]}"#),
    );
    let urls = lore_channels::PlatformUrls {
        slack: platforms.url("/slack/api"),
        telegram: platforms.url("/telegram"),
        whatsapp: platforms.url("/graph/v21.0"),
    };
    let mut client = lore_channels::ChannelClient::new(urls).unwrap();
    client.retry_backoff = Duration::from_millis(10);
    client.call_timeout = Duration::from_secs(5);
    let overrides = lore::compose::Overrides { channel_platform: Some(Arc::new(client)), ..Default::default() };
    Setup { t: TestApp::spawn_with(overrides).await, platforms }
}

impl Setup {
    /// A chatbot (`c`) or Mind (`m`) answering from the refunds policy; its API path.
    async fn owner(&self, kind: &str, patch: Value) -> String {
        let t = &self.t;
        let path = match kind {
            "m" => {
                let m = t.mind(&t.dev_key, json!({"name": "Shop Mind"})).await;
                format!("/api/v1/minds/{}", m["id"].as_str().unwrap())
            }
            _ => {
                let bot = t.chatbot().await;
                let (status, body) = t
                    .post_source(&t.dev_key, &bot, json!({"type": "text", "name": "Refunds", "content": REFUNDS}))
                    .await;
                assert_eq!(status, 201, "{body}");
                let id = body["source"]["id"].as_str().unwrap().to_owned();
                t.process(&bot, &id).await;
                assert_eq!(t.settle(&bot, &id).await["status"], "ready");
                format!("/api/v1/chatbots/{bot}")
            }
        };
        if !patch.is_null() {
            let (status, body) =
                parts(t.req(Method::PATCH, &path, &t.dev_key).json(&patch).send().await.unwrap()).await;
            assert_eq!(status, 200, "{body}");
        }
        path
    }

    async fn connect(&self, owner: &str, body: Value) -> (u16, Value) {
        parts(self.t.req(Method::POST, &format!("{owner}/channels"), &self.t.dev_key).json(&body).send().await.unwrap())
            .await
    }

    async fn get(&self, path: &str) -> Value {
        let (status, body) = parts(self.t.req(Method::GET, path, &self.t.dev_key).send().await.unwrap()).await;
        assert_eq!(status, 200, "{path}: {body}");
        body
    }

    /// The next request to the platforms, which must be to `path`.
    async fn sent(&self, path: &str) -> Received {
        let r = self.platforms.next(WAIT).await;
        assert_eq!(r.path, path, "{}", String::from_utf8_lossy(&r.body));
        r
    }

    /// The owner's conversations, newest first.
    async fn conversations(&self, owner: &str) -> Vec<Value> {
        self.get(&format!("{owner}/conversations")).await["conversations"].as_array().unwrap().clone()
    }

    /// Polls the conversation until `done` holds.
    async fn conversation_until(&self, owner: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let c = self.get(&format!("{owner}/conversations/{id}")).await;
            if done(&c) {
                return c;
            }
            assert!(Instant::now() < deadline, "the conversation never got there: {c}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    async fn slack(&self, id: &str, body: &Value, ts: i64, secret: &str) -> reqwest::Response {
        let raw = body.to_string();
        let signature = format!("v0={}", hmac_hex(secret, &[b"v0:", ts.to_string().as_bytes(), b":", raw.as_bytes()]));
        self.t
            .client
            .post(self.t.url(&format!("/channels/{id}/slack/events")))
            .header("content-type", "application/json")
            .header("x-slack-request-timestamp", ts.to_string())
            .header("x-slack-signature", signature)
            .body(raw)
            .send()
            .await
            .unwrap()
    }

    async fn telegram(&self, id: &str, update: &Value, secret: Option<&str>) -> reqwest::Response {
        let mut req = self.t.client.post(self.t.url(&format!("/channels/{id}/telegram"))).json(update);
        if let Some(s) = secret {
            req = req.header("x-telegram-bot-api-secret-token", s);
        }
        req.send().await.unwrap()
    }

    async fn whatsapp(&self, id: &str, body: &Value, secret: &str) -> reqwest::Response {
        let raw = body.to_string();
        self.t
            .client
            .post(self.t.url(&format!("/channels/{id}/whatsapp")))
            .header("content-type", "application/json")
            .header("x-hub-signature-256", format!("sha256={}", hmac_hex(secret, &[raw.as_bytes()])))
            .body(raw)
            .send()
            .await
            .unwrap()
    }
}

fn mention(event_id: &str, channel: &str, text: &str, ts: &str, thread: Option<&str>) -> Value {
    let mut event = json!({"type": "app_mention", "user": "U1VISITOR", "text": text, "ts": ts, "channel": channel,
        "event_ts": ts});
    if let Some(t) = thread {
        event["thread_ts"] = json!(t);
    }
    json!({"token": "unused", "team_id": "T1", "api_app_id": "A1", "type": "event_callback", "event_id": event_id,
        "event_time": 1_700_000_000, "event": event})
}

fn no_secret_in(body: &Value, secrets: &[&str]) {
    let text = body.to_string();
    for s in secrets {
        assert!(!text.contains(s), "a secret was shown: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn slack_answers_mentions_in_their_thread_once() {
    let s = setup().await;
    let bot = s.owner("c", Value::Null).await;

    // A token Slack refuses is named, nothing stored.
    s.platforms.script("/slack/api/auth.test", vec![Reply::Json(200, r#"{"ok":false,"error":"invalid_auth"}"#)]);
    let (status, body) =
        s.connect(&bot, json!({"type": "slack", "botToken": "xoxb-bad", "signingSecret": SIGNING_SECRET})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("validation_error")), "{body}");
    assert!(body["error"]["details"]["fields"]["botToken"].as_str().unwrap().contains("invalid_auth"), "{body}");
    assert_eq!(s.sent("/slack/api/auth.test").await.header("authorization"), "Bearer xoxb-bad");

    let (status, body) =
        s.connect(&bot, json!({"type": "slack", "botToken": SLACK_TOKEN, "signingSecret": SIGNING_SECRET})).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(s.sent("/slack/api/auth.test").await.header("authorization"), format!("Bearer {SLACK_TOKEN}"));
    let c = &body["channel"];
    let id = c["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (c["type"].as_str(), c["status"].as_str(), c["botUserId"].as_str()),
        (Some("slack"), Some("active"), Some("U0BOT"))
    );
    assert_eq!((c["botToken"].as_str(), c["signingSecret"].as_str()), (Some("•••"), Some("•••")));
    assert_eq!(c["eventsUrl"], c["webhookUrl"]);
    assert!(c["eventsUrl"].as_str().unwrap().ends_with(&format!("/channels/{id}/slack/events")), "{c}");
    assert_eq!((c["lastError"].clone(), c["lastMessageAt"].clone()), (Value::Null, Value::Null));
    no_secret_in(&body, &[SLACK_TOKEN, SIGNING_SECRET]);
    let listed = s.get(&format!("{bot}/channels")).await;
    assert_eq!(listed["channels"].as_array().unwrap().len(), 1);
    no_secret_in(&listed, &[SLACK_TOKEN, SIGNING_SECRET]);

    // Slack's check of the Request URL, signed; refused unsigned, stale or forged.
    let check = json!({"token": "x", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification"});
    let (status, echoed) = parts(s.slack(&id, &check, now_secs(), SIGNING_SECRET).await).await;
    assert_eq!((status, echoed), (200, json!({"challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"})));
    expect_error(s.slack(&id, &check, now_secs(), "another-secret").await, 401, "unauthorized").await;
    expect_error(s.slack(&id, &check, now_secs() - 301, SIGNING_SECRET).await, 401, "unauthorized").await;
    let unsigned = s.t.client.post(s.t.url(&format!("/channels/{id}/slack/events"))).json(&check).send().await.unwrap();
    expect_error(unsigned, 401, "unauthorized").await;
    let other = "chan_01jq3z5v7b8c9d0e1f2g3h4j5k";
    expect_error(s.slack(other, &check, now_secs(), SIGNING_SECRET).await, 404, "not_found").await;

    // A mention: acknowledged at once, answered in its thread.
    let first = mention("Ev0001", "C1", "<@U0BOT> How long do refunds take?", "1700000000.000100", None);
    let (status, ack) = parts(s.slack(&id, &first, now_secs(), SIGNING_SECRET).await).await;
    assert_eq!((status, ack), (200, json!({"status": "success"})));
    let post = s.sent("/slack/api/chat.postMessage").await;
    assert_eq!(post.header("authorization"), format!("Bearer {SLACK_TOKEN}"));
    assert!(post.header("content-type").starts_with("application/json"));
    let p = post.json();
    assert_eq!((p["channel"].as_str(), p["thread_ts"].as_str()), (Some("C1"), Some("1700000000.000100")), "{p}");
    let text = p["text"].as_str().unwrap();
    assert!(text.contains("fourteen days"), "{text}");
    assert!(text.contains("*Sources*") && text.contains("Refunds"), "citations in Slack's formatting: {text}");

    // A redelivery (same event_id, as Slack retries) is not answered again; the thread's next
    // question is, in the same conversation.
    let again =
        s.t.client
            .post(s.t.url(&format!("/channels/{id}/slack/events")))
            .header("x-slack-retry-num", "1")
            .header("x-slack-request-timestamp", now_secs().to_string())
            .header(
                "x-slack-signature",
                format!(
                    "v0={}",
                    hmac_hex(
                        SIGNING_SECRET,
                        &[b"v0:", now_secs().to_string().as_bytes(), b":", first.to_string().as_bytes()]
                    )
                ),
            )
            .body(first.to_string())
            .send()
            .await
            .unwrap();
    assert_eq!(again.status(), 200);
    let reply = mention(
        "Ev0002",
        "C1",
        "<@U0BOT> And are refunds paid to my card?",
        "1700000000.000300",
        Some("1700000000.000100"),
    );
    assert_eq!(s.slack(&id, &reply, now_secs(), SIGNING_SECRET).await.status(), 200);
    let p = s.sent("/slack/api/chat.postMessage").await.json();
    assert_eq!(p["thread_ts"], "1700000000.000100", "{p}");

    // The bot's own message and an edit are not answered; a new mention elsewhere is, in a new
    // conversation (checked by the order: nothing was sent for the first two).
    let own = json!({"type": "event_callback", "event_id": "Ev0003", "event": {"type": "message", "channel_type": "im",
        "user": "U0BOT", "text": "Refunds are paid…", "ts": "1700000000.000400", "channel": "D1"}});
    assert_eq!(s.slack(&id, &own, now_secs(), SIGNING_SECRET).await.status(), 200);
    let edit = json!({"type": "event_callback", "event_id": "Ev0004", "event": {"type": "message", "channel_type": "im",
        "subtype": "message_changed", "ts": "1700000000.000500", "channel": "D1"}});
    assert_eq!(s.slack(&id, &edit, now_secs(), SIGNING_SECRET).await.status(), 200);
    let dm = json!({"type": "event_callback", "event_id": "Ev0005", "event": {"type": "message", "channel_type": "im",
        "user": "U1VISITOR", "text": "How long do refunds take?", "ts": "1700000000.000600", "channel": "D1"}});
    assert_eq!(s.slack(&id, &dm, now_secs(), SIGNING_SECRET).await.status(), 200);
    let p = s.sent("/slack/api/chat.postMessage").await.json();
    assert_eq!((p["channel"].as_str(), p["thread_ts"].as_str()), (Some("D1"), Some("1700000000.000600")), "{p}");

    // One conversation per thread, with the platform's user and the channel.
    let conversations = s.conversations(&bot).await;
    assert_eq!(conversations.len(), 2, "{conversations:?}");
    let thread = conversations.iter().find(|c| c["messageCount"] == 4).expect("the C1 thread: two turns");
    assert_eq!((thread["channel"].as_str(), thread["channelId"].as_str()), (Some("slack"), Some(id.as_str())));
    assert_eq!(thread["visitor"]["userId"], "U1VISITOR");
    assert_eq!(thread["channelError"], Value::Null);
    let after = s.get(&format!("{bot}/channels/{id}")).await;
    assert!(after["channel"]["lastMessageAt"].is_string(), "{after}");

    // Another workspace does not see it; deleted, its route is gone.
    let ws = s.t.workspace("other", Default::default()).await;
    let key = s.t.key(&ws, "chatbot:read,chatbot:write").await;
    expect_error(s.t.req(Method::GET, &format!("{bot}/channels/{id}"), &key).send().await.unwrap(), 404, "not_found")
        .await;
    let (status, _) =
        parts(s.t.req(Method::DELETE, &format!("{bot}/channels/{id}"), &s.t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    expect_error(s.slack(&id, &check, now_secs(), SIGNING_SECRET).await, 404, "not_found").await;
    s.platforms.expect_none(Duration::from_millis(300)).await;
    s.t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn telegram_sets_its_webhook_greets_and_replies_in_the_chat() {
    let s = setup().await;
    let bot = s.owner("c", json!({"welcomeMessage": "Hello! Ask me about refunds."})).await;

    s.platforms.script(
        "/telegram/botnope:1/setWebhook",
        vec![Reply::Json(401, r#"{"ok":false,"error_code":401,"description":"Unauthorized"}"#)],
    );
    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": "nope:1"})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["error"]["details"]["fields"]["botToken"].as_str().unwrap().contains("Unauthorized"), "{body}");
    s.sent("/telegram/botnope:1/setWebhook").await;
    // A webhook address Telegram cannot use is Lore's address, not the token.
    s.platforms.script(
        "/telegram/bothttp:1/setWebhook",
        vec![Reply::Json(
            400,
            r#"{"ok":false,"error_code":400,"description":"Bad Request: bad webhook: An HTTPS URL must be provided for webhook"}"#,
        )],
    );
    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": "http:1"})).await;
    assert_eq!(status, 400, "{body}");
    let said = body["error"]["details"]["fields"]["type"].as_str().unwrap();
    assert!(said.contains("LORE_PUBLIC_BASE_URL") && said.contains("bad webhook"), "{body}");
    assert!(body["error"]["details"]["fields"]["botToken"].is_null(), "{body}");
    s.sent("/telegram/bothttp:1/setWebhook").await;
    let (status, body) =
        s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN, "signingSecret": "x"})).await;
    assert_eq!((status, body["error"]["details"]["fields"]["signingSecret"].is_string()), (400, true), "{body}");

    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN})).await;
    assert_eq!(status, 201, "{body}");
    let c = &body["channel"];
    let id = c["id"].as_str().unwrap().to_owned();
    let hook = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/setWebhook")).await.json();
    assert_eq!(hook["url"], c["webhookUrl"]);
    let webhook_url = c["webhookUrl"].clone();
    assert!(hook["url"].as_str().unwrap().ends_with(&format!("/channels/{id}/telegram")));
    assert_eq!(hook["allowed_updates"], json!(["message"]));
    let secret = hook["secret_token"].as_str().unwrap().to_owned();
    assert!(secret.len() >= 32 && secret.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
    assert_eq!(c["botToken"], "•••");
    no_secret_in(&body, &[TELEGRAM_TOKEN, &secret]);

    let update = |update_id: i64, message_id: i64, text: &str| {
        json!({"update_id": update_id, "message": {"message_id": message_id, "date": 1_700_000_000, "text": text,
            "from": {"id": 4242, "is_bot": false, "first_name": "Ana", "last_name": "Silva", "language_code": "pt"},
            "chat": {"id": 4242, "type": "private", "first_name": "Ana"}}})
    };
    expect_error(s.telegram(&id, &update(1, 1, "hi"), None).await, 401, "unauthorized").await;
    expect_error(s.telegram(&id, &update(1, 1, "hi"), Some("wrong")).await, 401, "unauthorized").await;

    // /start gets the welcome message; a question its answer, as a reply, in HTML.
    assert_eq!(s.telegram(&id, &update(10, 1, "/start"), Some(&secret)).await.status(), 200);
    let greeting = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/sendMessage")).await.json();
    assert_eq!(
        (greeting["chat_id"].clone(), greeting["text"].as_str()),
        (json!(4242), Some("Hello! Ask me about refunds."))
    );
    assert_eq!(s.telegram(&id, &update(11, 2, "How long do refunds take?"), Some(&secret)).await.status(), 200);
    let answer = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/sendMessage")).await.json();
    assert_eq!(
        (answer["reply_to_message_id"].clone(), answer["parse_mode"].as_str()),
        (json!(2), Some("HTML")),
        "{answer}"
    );
    assert!(answer["text"].as_str().unwrap().contains("fourteen days"), "{answer}");
    assert!(answer["text"].as_str().unwrap().contains("<b>Sources</b>"), "{answer}");

    // Redelivered and edited updates are not answered; the chat's next question is, in the
    // same conversation.
    assert_eq!(s.telegram(&id, &update(11, 2, "How long do refunds take?"), Some(&secret)).await.status(), 200);
    let edited = json!({"update_id": 12, "edited_message": {"message_id": 2, "text": "x",
        "from": {"id": 4242, "is_bot": false}, "chat": {"id": 4242, "type": "private"}}});
    assert_eq!(s.telegram(&id, &edited, Some(&secret)).await.status(), 200);
    assert_eq!(s.telegram(&id, &update(13, 3, "And the warehouse?"), Some(&secret)).await.status(), 200);
    let next = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/sendMessage")).await.json();
    assert_eq!(next["reply_to_message_id"], 3, "{next}");
    let conversations = s.conversations(&bot).await;
    assert_eq!(conversations.len(), 1, "one conversation per chat: {conversations:?}");
    let c = &conversations[0];
    assert_eq!(
        (c["channel"].as_str(), c["messageCount"].as_u64()),
        (Some("telegram"), Some(5)),
        "welcome + 2 turns: {c}"
    );
    assert_eq!((c["visitor"]["name"].as_str(), c["visitor"]["userId"].as_str()), (Some("Ana Silva"), Some("4242")));

    // Disconnecting removes the webhook while it is still this channel's.
    let info: &'static str = Box::leak(
        json!({"ok": true, "result": {"url": webhook_url, "pending_update_count": 0}}).to_string().into_boxed_str(),
    );
    s.platforms.always(&format!("/telegram/bot{TELEGRAM_TOKEN}/getWebhookInfo"), Reply::Json(200, info));
    let (status, _) =
        parts(s.t.req(Method::DELETE, &format!("{bot}/channels/{id}"), &s.t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/getWebhookInfo")).await;
    s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/deleteWebhook")).await;

    // Deleting the chatbot disconnects its channels too (the embedded store deletes them with it).
    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN})).await;
    assert_eq!(status, 201, "{body}");
    s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/setWebhook")).await;
    let url = body["channel"]["webhookUrl"].as_str().unwrap();
    let info: &'static str =
        Box::leak(json!({"ok": true, "result": {"url": url, "pending_update_count": 0}}).to_string().into_boxed_str());
    s.platforms.always(&format!("/telegram/bot{TELEGRAM_TOKEN}/getWebhookInfo"), Reply::Json(200, info));
    let (status, _) = parts(s.t.req(Method::DELETE, &bot, &s.t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200);
    s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/getWebhookInfo")).await;
    s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/deleteWebhook")).await;
    s.t.stop().await;
}

fn wa_message(id: &str, text: &str) -> Value {
    json!({"object": "whatsapp_business_account", "entry": [{"id": "102290129340398", "changes": [{"field": "messages",
        "value": {"messaging_product": "whatsapp",
            "metadata": {"display_phone_number": "15550000000", "phone_number_id": WA_PHONE},
            "contacts": [{"profile": {"name": "Kerry Fisher"}, "wa_id": "16315551234"}],
            "messages": [{"from": "16315551234", "id": id, "timestamp": "1700000000", "type": "text",
                "text": {"body": text}}]}}]}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn whatsapp_verifies_checks_signatures_retries_and_logs_failures() {
    let s = setup().await;
    let bot = s.owner("c", Value::Null).await;
    let body = |token: &str| {
        json!({"type": "whatsapp", "accessToken": token, "phoneNumberId": WA_PHONE, "appSecret": APP_SECRET,
            "verifyToken": "my-verify-token"})
    };
    s.platforms.script(
        &format!("/graph/v21.0/{WA_PHONE}"),
        vec![Reply::Json(
            401,
            r#"{"error":{"message":"Invalid OAuth access token.","type":"OAuthException","code":190}}"#,
        )],
    );
    let (status, refused) = s.connect(&bot, body("EAAbad")).await;
    assert_eq!(status, 400, "{refused}");
    assert!(
        refused["error"]["details"]["fields"]["accessToken"].as_str().unwrap().contains("Invalid OAuth"),
        "{refused}"
    );
    assert_eq!(s.sent(&format!("/graph/v21.0/{WA_PHONE}")).await.header("authorization"), "Bearer EAAbad");
    let (status, created) = s.connect(&bot, body(WA_TOKEN)).await;
    assert_eq!(status, 201, "{created}");
    s.sent(&format!("/graph/v21.0/{WA_PHONE}")).await;
    let c = &created["channel"];
    let id = c["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (c["phoneNumberId"].as_str(), c["verifyToken"].as_str(), c["appSecret"].as_str()),
        (Some(WA_PHONE), Some("•••"), Some("•••"))
    );
    no_secret_in(&created, &[WA_TOKEN, APP_SECRET, "my-verify-token"]);

    // Meta's check of the Callback URL.
    let verify = |token: &str| {
        s.t.client
            .get(s.t.url(&format!("/channels/{id}/whatsapp")))
            .query(&[("hub.mode", "subscribe"), ("hub.verify_token", token), ("hub.challenge", "1158201444")])
            .send()
    };
    let ok = verify("my-verify-token").await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.text().await.unwrap(), "1158201444");
    expect_error(verify("guess").await.unwrap(), 403, "forbidden").await;

    // Signatures.
    expect_error(s.whatsapp(&id, &wa_message("wamid.X", "hi"), "not-the-secret").await, 401, "unauthorized").await;
    let unsigned =
        s.t.client
            .post(s.t.url(&format!("/channels/{id}/whatsapp")))
            .json(&wa_message("wamid.X", "hi"))
            .send()
            .await
            .unwrap();
    expect_error(unsigned, 401, "unauthorized").await;

    // Two failures, then the message gets through: three sends of one answer.
    let messages = format!("/graph/v21.0/{WA_PHONE}/messages");
    s.platforms.script(&messages, vec![Reply::Status(500), Reply::Status(502)]);
    assert_eq!(s.whatsapp(&id, &wa_message("wamid.A1", "How long do refunds take?"), APP_SECRET).await.status(), 200);
    let tries = s.platforms.take(3, WAIT).await;
    assert!(tries.iter().all(|r| r.path == messages));
    let sent = tries[2].json();
    assert_eq!(tries[0].json(), sent, "the same message each try");
    assert_eq!(tries[2].header("authorization"), format!("Bearer {WA_TOKEN}"));
    assert_eq!(
        (sent["messaging_product"].as_str(), sent["to"].as_str(), sent["type"].as_str()),
        (Some("whatsapp"), Some("16315551234"), Some("text"))
    );
    assert_eq!(sent["context"]["message_id"], "wamid.A1");
    assert!(sent["text"]["body"].as_str().unwrap().contains("fourteen days"), "{sent}");

    // Failing for good: logged on the conversation and the channel.
    s.platforms.script(&messages, vec![Reply::Status(500), Reply::Status(500), Reply::Status(500)]);
    assert_eq!(s.whatsapp(&id, &wa_message("wamid.A2", "And the warehouse?"), APP_SECRET).await.status(), 200);
    s.platforms.take(3, WAIT).await;
    let conv_id = s.conversations(&bot).await[0]["id"].as_str().unwrap().to_owned();
    let failed = s.conversation_until(&bot, &conv_id, |c| c["conversation"]["channelError"].is_object()).await;
    assert!(failed["conversation"]["channelError"]["message"].as_str().unwrap().contains("WhatsApp"), "{failed}");
    let channel = s.get(&format!("{bot}/channels/{id}")).await;
    assert_eq!(channel["channel"]["status"], "failing", "{channel}");
    assert!(channel["channel"]["lastError"]["at"].is_string());

    // The next answer gets through: the conversation's error is cleared, the channel active again.
    assert_eq!(s.whatsapp(&id, &wa_message("wamid.A3", "Thanks, and refunds?"), APP_SECRET).await.status(), 200);
    s.sent(&messages).await;
    s.conversation_until(&bot, &conv_id, |c| c["conversation"]["channelError"].is_null()).await;
    let channel = s.get(&format!("{bot}/channels/{id}")).await;
    assert_eq!(channel["channel"]["status"], "active");
    assert!(channel["channel"]["lastError"].is_object(), "the last error stays readable");

    // A delivery receipt and another number's message are acknowledged, not answered.
    let receipt = json!({"object": "whatsapp_business_account", "entry": [{"changes": [{"field": "messages", "value": {
        "metadata": {"phone_number_id": WA_PHONE}, "statuses": [{"id": "wamid.OUT", "status": "read"}]}}]}]});
    assert_eq!(s.whatsapp(&id, &receipt, APP_SECRET).await.status(), 200);
    let mut elsewhere = wa_message("wamid.B1", "hi");
    elsewhere["entry"][0]["changes"][0]["value"]["metadata"]["phone_number_id"] = json!("999");
    assert_eq!(s.whatsapp(&id, &elsewhere, APP_SECRET).await.status(), 200);
    s.platforms.expect_none(Duration::from_millis(500)).await;
    assert_eq!(s.conversations(&bot).await.len(), 1);
    s.t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_agents_reply_in_a_hand_off_reaches_the_platform() {
    let s = setup().await;
    let mind = s.owner("m", Value::Null).await;
    let (status, body) =
        s.connect(&mind, json!({"type": "slack", "botToken": SLACK_TOKEN, "signingSecret": SIGNING_SECRET})).await;
    assert_eq!(status, 201, "{body}");
    s.sent("/slack/api/auth.test").await;
    let id = body["channel"]["id"].as_str().unwrap().to_owned();
    let first = mention("Ev1", "C9", "<@U0BOT> Can I talk to someone?", "1700000100.000100", None);
    assert_eq!(s.slack(&id, &first, now_secs(), SIGNING_SECRET).await.status(), 200);
    s.sent("/slack/api/chat.postMessage").await;
    let conv = s.conversations(&mind).await[0]["id"].as_str().unwrap().to_owned();

    let handoff = format!("{mind}/conversations/{conv}/handoff");
    let (status, handed) = parts(s.t.req(Method::POST, &handoff, &s.t.dev_key).send().await.unwrap()).await;
    assert_eq!(status, 200, "{handed}");
    // While a person answers, the visitor's message is kept and not answered by the Mind.
    let waiting = mention("Ev2", "C9", "<@U0BOT> Hello?", "1700000100.000300", Some("1700000100.000100"));
    assert_eq!(s.slack(&id, &waiting, now_secs(), SIGNING_SECRET).await.status(), 200);
    s.conversation_until(&mind, &conv, |c| c["conversation"]["messageCount"] == 3).await;
    let reply = json!({"role": "agent", "content": "Hi, this is Grace from support. How can I help?"});
    let (status, sent) = parts(
        s.t.req(Method::POST, &format!("{mind}/conversations/{conv}/messages"), &s.t.dev_key)
            .json(&reply)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 201, "{sent}");
    let p = s.sent("/slack/api/chat.postMessage").await.json();
    assert_eq!((p["channel"].as_str(), p["thread_ts"].as_str()), (Some("C9"), Some("1700000100.000100")), "{p}");
    assert_eq!(p["text"], "Hi, this is Grace from support. How can I help?");
    s.platforms.expect_none(Duration::from_millis(300)).await;
    s.t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn channels_are_checked_scoped_and_limited() {
    let s = setup().await;
    let bot = s.owner("c", Value::Null).await;
    let (status, body) = s.connect(&bot, json!({"type": "whatsapp", "phoneNumberId": "12ab", "botToken": "x"})).await;
    assert_eq!(status, 400, "{body}");
    let fields = body["error"]["details"]["fields"].as_object().unwrap();
    let mut named: Vec<&str> = fields.keys().map(String::as_str).collect();
    named.sort_unstable();
    assert_eq!(named, ["accessToken", "appSecret", "botToken", "phoneNumberId", "verifyToken"], "{body}");
    let (status, body) = s.connect(&bot, json!({"type": "email"})).await;
    assert_eq!((status, body["error"]["details"]["fields"]["type"].is_string()), (400, true), "{body}");
    let (status, body) = s.connect(&bot, json!([])).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("invalid_json")), "{body}");

    // The platforms' routes read at most 2 MiB, refused in the error envelope. The body is one
    // byte over, all of it written before the answer is read: a client still writing a longer
    // body when the server refuses it could see the connection close first.
    for route in ["slack/events", "telegram", "whatsapp"] {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let addr = s.t.url("").trim_start_matches("http://").trim_end_matches('/').to_owned();
        let mut stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let head = format!(
            "POST /channels/chan_01jq3z5v7b8c9d0e1f2g3h4j5k/{route} HTTP/1.1\r\nHost: {addr}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            2 * 1024 * 1024 + 1
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(&vec![b' '; 2 * 1024 * 1024 + 1]).await.unwrap();
        let mut answer = Vec::new();
        let read = tokio::time::timeout(WAIT, stream.read_to_end(&mut answer)).await;
        assert!(read.is_ok(), "{route}: no answer");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 413"), "{route}: {answer}");
        assert!(answer.contains("\"payload_too_large\""), "{route}: {answer}");
    }

    // Scopes: reading takes chatbot:read, connecting chatbot:write.
    let reader = s.t.key("default", "chatbot:read").await;
    expect_error(
        s.t.req(Method::POST, &format!("{bot}/channels"), &reader)
            .json(&json!({"type": "telegram", "botToken": TELEGRAM_TOKEN}))
            .send()
            .await
            .unwrap(),
        403,
        "insufficient_scope",
    )
    .await;
    let (status, _) = parts(s.t.req(Method::GET, &format!("{bot}/channels"), &reader).send().await.unwrap()).await;
    assert_eq!(status, 200);

    // Ten per chatbot.
    for _ in 0..10 {
        let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN})).await;
        assert_eq!(status, 201, "{body}");
        s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/setWebhook")).await;
    }
    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN})).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("channels_limit_reached")), "{body}");
    s.platforms.expect_none(Duration::from_millis(300)).await;
    s.t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_visitor_writing_japanese_is_answered_in_japanese() {
    let s = setup().await;
    let t = &s.t;
    let bot = t.chatbot().await;
    let policy = "返品された商品が倉庫に届いてから14日以内に返金いたします。送料は返金の対象外です。";
    let (status, body) =
        t.post_source(&t.dev_key, &bot, json!({"type": "text", "name": "返品ポリシー", "content": policy})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    t.process(&bot, &id).await;
    assert_eq!(t.settle(&bot, &id).await["status"], "ready");
    let bot = format!("/api/v1/chatbots/{bot}");
    let (status, body) = s.connect(&bot, json!({"type": "telegram", "botToken": TELEGRAM_TOKEN})).await;
    assert_eq!(status, 201, "{body}");
    let channel = body["channel"]["id"].as_str().unwrap().to_owned();
    let secret = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/setWebhook")).await.json()["secret_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let update = json!({"update_id": 1, "message": {"message_id": 7, "date": 1_700_000_000, "text": "返品の返金は何日以内ですか？",
        "from": {"id": 77, "is_bot": false, "first_name": "花子", "language_code": "ja"}, "chat": {"id": 77, "type": "private"}}});
    assert_eq!(s.telegram(&channel, &update, Some(&secret)).await.status(), 200);
    let answer = s.sent(&format!("/telegram/bot{TELEGRAM_TOKEN}/sendMessage")).await.json();
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("14日以内に返金"), "the passage is quoted: {text}");
    assert!(text.contains("<b>出典</b>") && text.contains("返品ポリシー"), "the sources in Japanese: {text}");
    assert!(!text.contains("Sources"), "{text}");
    let c = &s.conversations(&bot).await[0];
    assert_eq!(c["visitor"]["name"], "花子");
    s.t.stop().await;
}
