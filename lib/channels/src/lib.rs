//! The [`ChannelPlatform`] port over the platforms' HTTP APIs (docs/api.md §24): Slack's Web
//! API, Telegram's Bot API and the WhatsApp Cloud API (Meta's Graph API).
//!
//! Every HTTP call is tried up to [`TRIES`] times: again after no answer (a connection error, a
//! timeout), a 5xx or a rate limit (429, Slack's `ratelimited`), waiting the backoff (doubling)
//! or the platform's `Retry-After` — a wait longer than [`ChannelClient::max_retry_after`] is not
//! waited: the call fails at once. A refusal (bad credentials, an unknown chat, any other 4xx)
//! is not retried. Errors carry the platform's own words, or why there was no answer.
//!
//! Telegram's bot token is part of the URL's path (`/bot<token>/method`): no URL is ever
//! formatted into an error or a log (`reqwest::Error::without_url`), and no token is logged.

use async_trait::async_trait;
use lore_app::ports::{ChannelPlatform, OutboundMessage, PlatformError};
use lore_domain::channel::{Credentials, Secret};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use std::time::Duration;

/// Tries of one HTTP call at most.
pub const TRIES: u32 = 3;
/// Bytes of an answer read at most; the rest is dropped unread.
pub const MAX_ANSWER_BYTES: usize = 1 << 20;
/// Characters of a platform's words kept in an error.
const MAX_ERROR_CHARS: usize = 300;
pub const USER_AGENT: &str = "Lore-Channels/0.1";

/// The platforms' API base URLs, without a trailing slash (settings: tests point them at a
/// local server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformUrls {
    pub slack: String,
    pub telegram: String,
    pub whatsapp: String,
}

impl Default for PlatformUrls {
    fn default() -> Self {
        Self {
            slack: "https://slack.com/api".into(),
            telegram: "https://api.telegram.org".into(),
            whatsapp: "https://graph.facebook.com/v21.0".into(),
        }
    }
}

/// Talks to Slack, Telegram and WhatsApp. Cheap to clone (shares the connection pool).
#[derive(Clone)]
pub struct ChannelClient {
    http: reqwest::Client,
    urls: PlatformUrls,
    /// How long one try of a call may take, answer read included (10 s).
    pub call_timeout: Duration,
    /// The wait before the second try, doubled before each next one (500 ms: 0.5 s, then 1 s).
    pub retry_backoff: Duration,
    /// The longest `Retry-After` waited (10 s): a rate limit asking more fails the call at once.
    pub max_retry_after: Duration,
}

impl std::fmt::Debug for ChannelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelClient")
            .field("urls", &self.urls)
            .field("call_timeout", &self.call_timeout)
            .field("retry_backoff", &self.retry_backoff)
            .field("max_retry_after", &self.max_retry_after)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Platform {
    Slack,
    Telegram,
    Whatsapp,
}

impl Platform {
    fn name(self) -> &'static str {
        match self {
            Platform::Slack => "Slack",
            Platform::Telegram => "Telegram",
            Platform::Whatsapp => "WhatsApp",
        }
    }
}

/// One HTTP call, tried as a whole up to [`TRIES`] times.
struct Call<'a> {
    platform: Platform,
    /// The API method, for logs (never the URL).
    what: &'static str,
    method: Method,
    /// Never formatted: Telegram's holds the token.
    url: String,
    bearer: Option<&'a Secret>,
    body: Option<Value>,
    /// Removed from any error text, should a library ever put it there.
    secret: &'a Secret,
}

/// What one try answered.
struct Answer {
    status: StatusCode,
    retry_after: Option<Duration>,
    /// `None` when the answer is not JSON (or was cut at [`MAX_ANSWER_BYTES`]).
    body: Option<Value>,
}

/// Why one try did not work.
enum Failure {
    /// Worth another try (after `retry_after` when the platform said so).
    Transient {
        message: String,
        retry_after: Option<Duration>,
    },
    Refused(String),
    Failed(String),
}

impl ChannelClient {
    pub fn new(urls: PlatformUrls) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(USER_AGENT)
            .build()
            .map_err(|e| format!("cannot build the channels' HTTP client: {}", describe(e)))?;
        let trim = |s: String| s.trim_end_matches('/').to_owned();
        let urls =
            PlatformUrls { slack: trim(urls.slack), telegram: trim(urls.telegram), whatsapp: trim(urls.whatsapp) };
        Ok(Self {
            http,
            urls,
            call_timeout: Duration::from_secs(10),
            retry_backoff: Duration::from_millis(500),
            max_retry_after: Duration::from_secs(10),
        })
    }

    pub fn urls(&self) -> &PlatformUrls {
        &self.urls
    }

    fn telegram_url(&self, token: &Secret, method: &str) -> String {
        format!("{}/bot{}/{method}", self.urls.telegram, token.expose())
    }

    /// The call's answer body (`Null` when empty or not JSON on success), tried up to [`TRIES`]
    /// times.
    async fn call(&self, call: Call<'_>) -> Result<Value, PlatformError> {
        let platform = call.platform.name();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let outcome = match tokio::time::timeout(self.call_timeout, self.try_once(&call)).await {
                Err(_) => Err(Failure::Transient {
                    message: format!("no answer from {platform}: timed out after {:?}", self.call_timeout),
                    retry_after: None,
                }),
                Ok(Err(e)) if e.is_builder() => {
                    Err(Failure::Failed(format!("cannot call {platform}: {}", describe(e))))
                }
                Ok(Err(e)) => Err(Failure::Transient {
                    message: format!("no answer from {platform}: {}", describe(e)),
                    retry_after: None,
                }),
                Ok(Ok(answer)) => classify(call.platform, answer),
            };
            let (message, retry_after) = match outcome {
                Ok(body) => return Ok(body),
                Err(Failure::Refused(m)) => return Err(PlatformError::Refused(scrub(m, call.secret))),
                Err(Failure::Failed(m)) => return Err(PlatformError::Failed(scrub(m, call.secret))),
                Err(Failure::Transient { message, retry_after }) => (scrub(message, call.secret), retry_after),
            };
            if attempt >= TRIES {
                tracing::warn!(platform, call = call.what, tries = attempt, error = %message, "platform call failed");
                return Err(PlatformError::Failed(message));
            }
            if let Some(wait) = retry_after
                && wait > self.max_retry_after
            {
                tracing::warn!(platform, call = call.what, retry_after_secs = wait.as_secs(), error = %message,
                    "platform call rate limited for longer than waited");
                return Err(PlatformError::Failed(message));
            }
            let wait = retry_after.unwrap_or(self.retry_backoff * 2u32.pow(attempt - 1));
            tracing::info!(platform, call = call.what, attempt, wait_ms = wait.as_millis() as u64,
                error = %message, "platform call failed; trying again");
            tokio::time::sleep(wait).await;
        }
    }

    async fn try_once(&self, call: &Call<'_>) -> Result<Answer, reqwest::Error> {
        let mut request = self.http.request(call.method.clone(), &call.url);
        if let Some(token) = call.bearer {
            // A token that is not a header value fails the build (no retry) without showing it.
            match HeaderValue::from_str(&format!("Bearer {}", token.expose())) {
                Ok(mut value) => {
                    value.set_sensitive(true);
                    request = request.header(AUTHORIZATION, value);
                }
                Err(_) => request = request.header(AUTHORIZATION, "\u{1}"),
            }
        }
        if let Some(body) = &call.body {
            let content_type = match call.platform {
                Platform::Slack => "application/json; charset=utf-8",
                Platform::Telegram | Platform::Whatsapp => "application/json",
            };
            request = request.header(CONTENT_TYPE, content_type).body(body.to_string());
        }
        let mut response = request.send().await?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            let room = MAX_ANSWER_BYTES - bytes.len();
            bytes.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if bytes.len() >= MAX_ANSWER_BYTES {
                break;
            }
        }
        let body = serde_json::from_slice(&bytes).ok();
        Ok(Answer { status, retry_after, body })
    }

    async fn send_slack(&self, token: &Secret, message: &OutboundMessage) -> Result<(), PlatformError> {
        for piece in &message.pieces {
            let mut body = json!({
                "channel": message.thread.chat,
                "text": piece,
                "mrkdwn": true,
                "unfurl_links": false,
                "unfurl_media": false,
            });
            if let Some(ts) = &message.thread.thread {
                body["thread_ts"] = json!(ts);
            }
            self.call(Call {
                platform: Platform::Slack,
                what: "chat.postMessage",
                method: Method::POST,
                url: format!("{}/chat.postMessage", self.urls.slack),
                bearer: Some(token),
                body: Some(body),
                secret: token,
            })
            .await?;
        }
        Ok(())
    }

    async fn send_telegram(&self, token: &Secret, message: &OutboundMessage) -> Result<(), PlatformError> {
        let chat = match message.thread.chat.trim().parse::<i64>() {
            Ok(id) => json!(id),
            Err(_) => json!(message.thread.chat),
        };
        let reply_to = message.reply_to.as_deref().and_then(|r| r.trim().parse::<i64>().ok());
        for (i, piece) in message.pieces.iter().enumerate() {
            let mut body = json!({
                "chat_id": chat,
                "text": piece,
                "parse_mode": "HTML",
                "link_preview_options": {"is_disabled": true},
            });
            if let (0, Some(id)) = (i, reply_to) {
                body["reply_to_message_id"] = json!(id);
                body["allow_sending_without_reply"] = json!(true);
            }
            self.call(Call {
                platform: Platform::Telegram,
                what: "sendMessage",
                method: Method::POST,
                url: self.telegram_url(token, "sendMessage"),
                bearer: None,
                body: Some(body),
                secret: token,
            })
            .await?;
        }
        Ok(())
    }

    async fn send_whatsapp(
        &self,
        token: &Secret,
        phone_number_id: &str,
        message: &OutboundMessage,
    ) -> Result<(), PlatformError> {
        for (i, piece) in message.pieces.iter().enumerate() {
            let mut body = json!({
                "messaging_product": "whatsapp",
                "recipient_type": "individual",
                "to": message.thread.chat,
                "type": "text",
                "text": {"preview_url": false, "body": piece},
            });
            if let (0, Some(id)) = (i, &message.reply_to) {
                body["context"] = json!({"message_id": id});
            }
            self.call(Call {
                platform: Platform::Whatsapp,
                what: "messages",
                method: Method::POST,
                url: format!("{}/{phone_number_id}/messages", self.urls.whatsapp),
                bearer: Some(token),
                body: Some(body),
                secret: token,
            })
            .await?;
        }
        Ok(())
    }
}

#[async_trait]
impl ChannelPlatform for ChannelClient {
    async fn connect(&self, credentials: &Credentials, webhook_url: &str) -> Result<Credentials, PlatformError> {
        match credentials {
            Credentials::Slack { bot_token, signing_secret, .. } => {
                let answer = self
                    .call(Call {
                        platform: Platform::Slack,
                        what: "auth.test",
                        method: Method::POST,
                        url: format!("{}/auth.test", self.urls.slack),
                        bearer: Some(bot_token),
                        body: None,
                        secret: bot_token,
                    })
                    .await?;
                let bot_user_id = answer["user_id"].as_str().filter(|s| !s.is_empty()).map(str::to_owned);
                Ok(Credentials::Slack {
                    bot_token: bot_token.clone(),
                    signing_secret: signing_secret.clone(),
                    bot_user_id,
                })
            }
            Credentials::Telegram { bot_token, secret_token } => {
                self.call(Call {
                    platform: Platform::Telegram,
                    what: "setWebhook",
                    method: Method::POST,
                    url: self.telegram_url(bot_token, "setWebhook"),
                    bearer: None,
                    body: Some(json!({
                        "url": webhook_url,
                        "secret_token": secret_token.expose(),
                        "allowed_updates": ["message"],
                    })),
                    secret: bot_token,
                })
                .await?;
                Ok(credentials.clone())
            }
            Credentials::Whatsapp { access_token, phone_number_id, .. } => {
                self.call(Call {
                    platform: Platform::Whatsapp,
                    what: "phone number",
                    method: Method::GET,
                    url: format!("{}/{}", self.urls.whatsapp, phone_number_id.as_str()),
                    bearer: Some(access_token),
                    body: None,
                    secret: access_token,
                })
                .await?;
                Ok(credentials.clone())
            }
        }
    }

    async fn send(&self, credentials: &Credentials, message: &OutboundMessage) -> Result<(), PlatformError> {
        match credentials {
            Credentials::Slack { bot_token, .. } => self.send_slack(bot_token, message).await,
            Credentials::Telegram { bot_token, .. } => self.send_telegram(bot_token, message).await,
            Credentials::Whatsapp { access_token, phone_number_id, .. } => {
                self.send_whatsapp(access_token, phone_number_id.as_str(), message).await
            }
        }
    }

    async fn disconnect(&self, credentials: &Credentials, webhook_path: &str) {
        // Slack and WhatsApp: the owner removes the URL in the app's settings.
        let Credentials::Telegram { bot_token, .. } = credentials else { return };
        let telegram = |what: &'static str, body: Value| Call {
            platform: Platform::Telegram,
            what,
            method: Method::POST,
            url: self.telegram_url(bot_token, what),
            bearer: None,
            body: Some(body),
            secret: bot_token,
        };
        // The bot may have been connected to another channel since: its webhook is that one's.
        match self.call(telegram("getWebhookInfo", json!({}))).await {
            Ok(info) if info["result"]["url"].as_str().is_some_and(|u| u.ends_with(webhook_path)) => {}
            Ok(_) => {
                tracing::info!(platform = "Telegram", "the bot's webhook is another channel's now; left as it is");
                return;
            }
            Err(e) => {
                tracing::warn!(platform = "Telegram", error = %e, "could not read the webhook; left as it is");
                return;
            }
        }
        if let Err(e) = self.call(telegram("deleteWebhook", json!({}))).await {
            tracing::warn!(platform = "Telegram", error = %e, "could not remove the webhook");
        }
    }
}

/// What an answer means, by the platform's conventions.
fn classify(platform: Platform, answer: Answer) -> Result<Value, Failure> {
    let Answer { status, retry_after, body } = answer;
    let name = platform.name();
    let body = body.unwrap_or(Value::Null);
    let words = words(platform, &body);
    let said = |fallback: &str| words.clone().unwrap_or_else(|| format!("{name} answered {fallback}"));
    let http = format!("HTTP {status}");
    if status == StatusCode::TOO_MANY_REQUESTS {
        let retry_after = retry_after.or_else(|| telegram_retry_after(&body));
        return Err(Failure::Transient { message: said(&http), retry_after });
    }
    if status.is_server_error() {
        let message = words.unwrap_or_else(|| format!("no answer from {name}: {http}"));
        return Err(Failure::Transient { message, retry_after });
    }
    match platform {
        Platform::Slack => {
            if status.is_success() && body["ok"] == json!(true) {
                return Ok(body);
            }
            match body["error"].as_str() {
                Some(e) if is_slack_transient(e) => Err(Failure::Transient { message: said(&http), retry_after }),
                Some(_) => Err(Failure::Refused(said(&http))),
                None if status.is_success() => Err(Failure::Failed(format!("{name} answered without `ok`"))),
                None => Err(Failure::Refused(said(&http))),
            }
        }
        Platform::Telegram => {
            if status.is_success() && body["ok"] == json!(true) {
                return Ok(body);
            }
            let code = body["error_code"].as_u64().unwrap_or(u64::from(status.as_u16()));
            match code {
                429 => Err(Failure::Transient { message: said(&http), retry_after: telegram_retry_after(&body) }),
                500..=599 => Err(Failure::Transient { message: said(&http), retry_after }),
                _ if status.is_success() && body["ok"].is_null() => {
                    Err(Failure::Failed(format!("{name} answered without `ok`")))
                }
                _ => Err(Failure::Refused(said(&http))),
            }
        }
        Platform::Whatsapp => {
            if status.is_success() {
                return Ok(body);
            }
            let error = &body["error"];
            let transient = error["is_transient"] == json!(true)
                || error["code"].as_u64().is_some_and(|c| GRAPH_TRANSIENT_CODES.contains(&c));
            if transient {
                Err(Failure::Transient { message: said(&http), retry_after })
            } else {
                Err(Failure::Refused(said(&http)))
            }
        }
    }
}

/// Graph API error codes of throttling and temporary failures (sent with a 400): `1`, `2`
/// (temporarily unavailable), `4`, `17`, `32`, `613`, `80007`, `130429` (rate limits),
/// `131048`, `131056` (spam and pair rate limits).
const GRAPH_TRANSIENT_CODES: [u64; 10] = [1, 2, 4, 17, 32, 613, 80_007, 130_429, 131_048, 131_056];

fn is_slack_transient(error: &str) -> bool {
    matches!(
        error,
        "ratelimited" | "rate_limited" | "internal_error" | "fatal_error" | "service_unavailable" | "request_timeout"
    )
}

/// The platform's own words in an error answer.
fn words(platform: Platform, body: &Value) -> Option<String> {
    let words = match platform {
        Platform::Slack => body["error"].as_str(),
        Platform::Telegram => body["description"].as_str(),
        Platform::Whatsapp => body["error"]["message"].as_str(),
    }?;
    let words = words.trim();
    (!words.is_empty()).then(|| words.chars().take(MAX_ERROR_CHARS).collect())
}

fn telegram_retry_after(body: &Value) -> Option<Duration> {
    body["parameters"]["retry_after"].as_u64().map(Duration::from_secs)
}

/// A transport error without its URL, with its causes.
fn describe(e: reqwest::Error) -> String {
    let e = e.without_url();
    let mut text = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

fn scrub(message: String, secret: &Secret) -> String {
    let secret = secret.expose();
    if secret.is_empty() || !message.contains(secret) { message } else { message.replace(secret, "•••") }
}
