//! The `WebhookSender` port over the SSRF-safe client: Standard Webhooks signatures, no
//! redirects, the address actually connected to checked, answers read with a cap
//! (docs/decisions.md, webhooks). Shared by `lore serve` and the webhook-dispatcher Lambda.

use crate::{FetchError, NetPolicy, Overflow, SafeClient, SafeRequest};
use async_trait::async_trait;
use lore_app::ports::{SendOutcome, WebhookRequest, WebhookSender};
use lore_domain::hook::WebhookSecret;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, USER_AGENT};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bytes of a receiver's answer that are read; the rest is dropped unread. Only the status
/// matters, and a hostile receiver must not make us buffer megabytes.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024;
pub const USER_AGENT_VALUE: &str = "Lore-Webhooks/0.1";

/// `v1,<base64 HMAC-SHA256(secret bytes, "{id}.{timestamp}.{body}")>` (Standard Webhooks).
pub fn signature(secret: &WebhookSecret, msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    secret.sign(msg_id, timestamp, body)
}

/// The headers of one attempt: `webhook-id` (the event id, the same on every attempt),
/// `webhook-timestamp` (now, unix seconds) and `webhook-signature`.
pub fn signed_headers(request: &WebhookRequest, timestamp: i64) -> HeaderMap {
    let id = request.event_id.as_str();
    let mut h = HeaderMap::new();
    let mut set = |name: &'static str, value: String| {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.insert(HeaderName::from_static(name), v);
        }
    };
    set("webhook-id", id.to_owned());
    set("webhook-timestamp", timestamp.to_string());
    // Space-separated, one per secret (Standard Webhooks): during a rotation both verify.
    let signatures: Vec<String> =
        request.secrets.iter().map(|secret| signature(secret, id, timestamp, &request.body)).collect();
    set("webhook-signature", signatures.join(" "));
    h
}

#[derive(Clone)]
pub struct SignedSender {
    client: SafeClient,
}

impl SignedSender {
    pub fn new(policy: NetPolicy) -> Result<Self, String> {
        let client = SafeClient::builder(policy)
            .user_agent(USER_AGENT_VALUE)
            .build()
            .map_err(|e| format!("cannot build the webhook HTTP client: {e:?}"))?;
        Ok(Self { client })
    }
}

/// A `Retry-After` value: delta-seconds, or an HTTP date (a date in the past is no wait).
fn retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

fn no_answer(e: FetchError) -> String {
    match e {
        FetchError::Timeout(t) => format!("no answer within {} s", t.as_secs_f64()),
        FetchError::Blocked(why) => format!("blocked by request protection: {why}"),
        FetchError::Invalid(why) => format!("invalid hook URL: {why}"),
        FetchError::Network(why) => format!("connection failed: {why}"),
        other => other.to_string(),
    }
}

#[async_trait]
impl WebhookSender for SignedSender {
    async fn send(&self, request: &WebhookRequest) -> SendOutcome {
        let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        // `post` never follows redirects: a 3xx comes back as the answer.
        let post = SafeRequest::post(&request.url, request.body.clone(), MAX_ANSWER_BYTES, request.timeout)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .header(USER_AGENT, HeaderValue::from_static(USER_AGENT_VALUE))
            .headers(signed_headers(request, timestamp))
            .overflow(Overflow::Truncate);
        match self.client.send(post).await {
            Ok(answer) => {
                let status = answer.status.as_u16();
                // Standard Webhooks: a receiver that is overloaded or rate-limiting says when.
                let retry_after = match status {
                    429 | 503 => answer
                        .headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| retry_after(v, SystemTime::now())),
                    _ => None,
                };
                SendOutcome::Answered { status, retry_after }
            }
            Err(e) => SendOutcome::NoAnswer(no_answer(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = UNIX_EPOCH + Duration::from_secs(1_777_636_800);
        assert_eq!(retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        let later = httpdate::fmt_http_date(now + Duration::from_secs(90));
        assert_eq!(retry_after(&later, now), Some(Duration::from_secs(90)));
        let earlier = httpdate::fmt_http_date(now - Duration::from_secs(90));
        assert_eq!(retry_after(&earlier, now), Some(Duration::ZERO), "a past date is no wait");
        assert_eq!(retry_after("soon", now), None);
        assert_eq!(retry_after("-5", now), None);
    }

    #[test]
    fn signatures_match_the_reference_implementation_vector() {
        // The signing vector of the Standard Webhooks reference implementation's own tests.
        let secret = WebhookSecret::from_stored("whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD".into());
        let body = br#"{"email":"test@example.com","username":"test_user"}"#;
        assert_eq!(
            signature(&secret, "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", 1649367553, body),
            "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="
        );
    }
}
