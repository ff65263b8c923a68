//! Reading a failed response of an OpenAI-compatible API: the HTTP layer [`crate::client`]
//! installs in async-openai turns every non-2xx response into an [`HttpFailure`] carrying what
//! retry decisions need.

use async_openai::error::WrappedError;
use reqwest::header::HeaderMap;
use std::time::Duration;

/// A non-2xx response, as seen by the HTTP service installed in the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("HTTP {status}: {message}")]
pub struct HttpFailure {
    pub status: u16,
    /// From `retry-after-ms` or `Retry-After` (seconds).
    pub retry_after: Option<Duration>,
    /// `error.message` of an OpenAI error body, or the start of the body.
    pub message: String,
    /// `error.type` and `error.code` of an OpenAI error body.
    pub error_type: Option<String>,
    pub error_code: Option<String>,
}

impl HttpFailure {
    pub async fn read(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let body = read_at_most(response, ERROR_BODY_BYTES).await;
        match serde_json::from_slice::<WrappedError>(&body) {
            Ok(wrapped) => Self {
                status,
                retry_after,
                message: wrapped.error.message,
                error_type: wrapped.error.r#type,
                error_code: wrapped.error.code,
            },
            Err(_) => {
                let text = String::from_utf8_lossy(&body);
                let message: String = text.trim().chars().take(300).collect();
                Self { status, retry_after, message, error_type: None, error_code: None }
            }
        }
    }

    pub fn is_insufficient_quota(&self) -> bool {
        self.error_type.as_deref() == Some("insufficient_quota")
            || self.error_code.as_deref() == Some("insufficient_quota")
    }
}

/// The most of an error answer's body that is read: an OpenAI error is a few hundred bytes, and a
/// server answering 500 with gigabytes must not make the caller hold them.
pub const ERROR_BODY_BYTES: usize = 64 * 1024;

/// The first `limit` bytes of the body (what arrived before a failure, if one comes first).
async fn read_at_most(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(piece)) => body.extend_from_slice(&piece[..piece.len().min(limit - body.len())]),
            _ => break,
        }
    }
    body
}

/// The server's requested delay: `retry-after-ms` (OpenAI) or `Retry-After` in seconds.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| headers.get(name)?.to_str().ok()?.trim().parse::<f64>().ok();
    let valid = |v: f64| v.is_finite() && v >= 0.0;
    if let Some(ms) = number("retry-after-ms").filter(|v| valid(*v)) {
        return Some(Duration::from_secs_f64(ms.min(1e9) / 1000.0));
    }
    number("retry-after").filter(|v| valid(*v)).map(|s| Duration::from_secs_f64(s.min(1e6)))
}
