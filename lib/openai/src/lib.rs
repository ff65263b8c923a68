//! Calling an OpenAI-compatible HTTP API the same way everywhere: [`client`] builds an
//! async-openai client whose failures carry what retry decisions need ([`HttpFailure`]);
//! [`classify`] sorts a failure into permanent, too large or transient; [`Retries`] waits between
//! attempts (doubling backoff, or the server's `Retry-After`, each capped) and gives up after its
//! count; [`post_json_capped`] reads an answer whose size the caller bounds. Used by the
//! embedder (`lore-embed`), the transcriber (`lore-transcribe`) and the speech model (`lore-chat`).

mod failure;

pub use failure::{ERROR_BODY_BYTES, HttpFailure, retry_after};

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use reqwest::header::AUTHORIZATION;
use std::future::Future;
use std::time::Duration;

/// A client of the API at `base_url` (up to `/v1`) with `api_key` (`None`: no `Authorization`
/// header, for local servers that take none). Every request is bounded by `timeout` (connecting
/// by at most 10 s of it); every non-2xx answer becomes an [`HttpFailure`] instead of the
/// library's own retries.
pub fn client(base_url: &str, api_key: Option<String>, timeout: Duration) -> Result<Client<OpenAIConfig>, String> {
    let http = http_client(timeout)?;
    let keyless = api_key.is_none();
    let config = OpenAIConfig::new().with_api_base(base_url).with_api_key(api_key.unwrap_or_default());
    Ok(Client::build(http.clone(), config).with_http_service(tower::service_fn(move |factory: HttpRequestFactory| {
        let http = http.clone();
        async move {
            let mut request = factory.build().await?;
            if keyless {
                request.headers_mut().remove(AUTHORIZATION);
            }
            let response = http.execute(request).await?;
            if response.status().is_success() {
                Ok(response)
            } else {
                Err(OpenAIError::Boxed(Box::new(HttpFailure::read(response).await)))
            }
        }
    })))
}

/// The HTTP client under [`client`]: every request bounded by `timeout`, connecting by at most
/// 10 s of it.
pub fn http_client(timeout: Duration) -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .build()
        .map_err(|e| e.to_string())
}

/// A 2xx answer longer than the caller accepts: a permanent failure (the same request would
/// bring the same answer).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the answer is larger than {max_bytes} bytes")]
pub struct TooLong {
    pub max_bytes: usize,
}

/// POSTs `body` as JSON to `url` (with `api_key` as bearer, if any) and reads the 2xx answer in
/// pieces as they arrive, giving up as soon as it passes `max_bytes` ([`TooLong`]): a server
/// cannot make the caller hold more. Failures come as [`client`]'s do ([`HttpFailure`] for a
/// non-2xx, transport errors as themselves), so [`classify`] and [`Retries`] treat them alike.
pub async fn post_json_capped(
    http: &reqwest::Client,
    url: &str,
    api_key: Option<&str>,
    body: &serde_json::Value,
    max_bytes: usize,
) -> Result<Vec<u8>, OpenAIError> {
    let mut request = http.post(url).json(body);
    if let Some(key) = api_key {
        request = request.bearer_auth(key);
    }
    let mut response = request.send().await?;
    if !response.status().is_success() {
        return Err(OpenAIError::Boxed(Box::new(HttpFailure::read(response).await)));
    }
    if response.content_length().is_some_and(|n| n > max_bytes as u64) {
        return Err(OpenAIError::Boxed(Box::new(TooLong { max_bytes })));
    }
    let mut bytes = Vec::new();
    while let Some(piece) = response.chunk().await? {
        if bytes.len() + piece.len() > max_bytes {
            return Err(OpenAIError::Boxed(Box::new(TooLong { max_bytes })));
        }
        bytes.extend_from_slice(&piece);
    }
    Ok(bytes)
}

/// What a failed call calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Retrying cannot help: a bad key, model or request, or `insufficient_quota`.
    Permanent(String),
    /// 413: the request must be made smaller.
    TooLarge(String),
    /// 408, 429, 5xx or a transport error: worth another attempt, after `retry_after` when the
    /// server said.
    Transient { message: String, retry_after: Option<Duration> },
}

/// How an answer's status is treated.
pub fn classify_status(
    status: u16,
    insufficient_quota: bool,
    message: String,
    retry_after: Option<Duration>,
) -> Failure {
    match status {
        413 => Failure::TooLarge(message),
        408 | 500..=599 => Failure::Transient { message, retry_after },
        429 if !insufficient_quota => Failure::Transient { message, retry_after },
        _ => Failure::Permanent(message),
    }
}

/// How a failed call of a [`client`] is treated.
pub fn classify(error: OpenAIError) -> Failure {
    match error {
        OpenAIError::Boxed(boxed) => match boxed.downcast::<HttpFailure>() {
            Ok(failure) => {
                let quota = failure.is_insufficient_quota();
                classify_status(failure.status, quota, failure.to_string(), failure.retry_after)
            }
            Err(other) => Failure::Permanent(other.to_string()),
        },
        OpenAIError::ApiError(api) => {
            let quota = api.api_error.r#type.as_deref() == Some("insufficient_quota")
                || api.api_error.code.as_deref() == Some("insufficient_quota");
            classify_status(api.status_code.as_u16(), quota, api.to_string(), None)
        }
        OpenAIError::Reqwest(e) if e.is_builder() => Failure::Permanent(format!("invalid request: {e}")),
        OpenAIError::Reqwest(e) => Failure::Transient { message: format!("transport error: {e}"), retry_after: None },
        OpenAIError::JSONDeserialize(e, _) => {
            Failure::Permanent(format!("the response is not in the OpenAI format: {e}"))
        }
        other => Failure::Permanent(other.to_string()),
    }
}

/// How often and how long to retry transient failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retries {
    /// Retries after the first attempt.
    pub max_retries: u32,
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured.
    pub max_retry_after: Duration,
}

impl Retries {
    /// The delay before retry number `retry` (0-based), given the server's `Retry-After` hint.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        match retry_after {
            Some(hint) => hint.min(self.max_retry_after),
            None => self.initial_backoff.saturating_mul(2u32.saturating_pow(retry)).min(self.max_backoff),
        }
    }

    /// Calls `attempt` until it succeeds, fails for good, or the retries are spent (then a
    /// `Transient` failure whose message says how many attempts were made). `on_retry` is told
    /// each retry before its wait (for the log).
    pub async fn run<T, Fut>(
        &self,
        mut attempt: impl FnMut() -> Fut,
        on_retry: impl Fn(u32, Duration, &str),
    ) -> Result<T, Failure>
    where
        Fut: Future<Output = Result<T, OpenAIError>>,
    {
        let mut retry = 0u32;
        loop {
            match attempt().await.map_err(classify) {
                Ok(value) => return Ok(value),
                Err(Failure::Transient { message, retry_after }) => {
                    if retry >= self.max_retries {
                        let message = format!("{message} (gave up after {} attempts)", retry + 1);
                        return Err(Failure::Transient { message, retry_after });
                    }
                    let delay = self.delay(retry, retry_after);
                    on_retry(retry + 1, delay, &message);
                    tokio::time::sleep(delay).await;
                    retry += 1;
                }
                Err(other) => return Err(other),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_initial_delay_up_to_the_cap_and_retry_after_wins_within_its_cap() {
        let r = Retries {
            max_retries: 5,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
        };
        let delays: Vec<u128> = (0..8).map(|n| r.delay(n, None).as_millis()).collect();
        assert_eq!(delays, vec![500, 1000, 2000, 4000, 8000, 16_000, 20_000, 20_000]);
        assert_eq!(r.delay(40, None), Duration::from_secs(20));
        assert_eq!(r.delay(3, Some(Duration::from_millis(1))), Duration::from_millis(1));
        assert_eq!(r.delay(0, Some(Duration::from_secs(600))), Duration::from_secs(60));
    }

    #[test]
    fn statuses_are_classified() {
        let transient = |s, q| matches!(classify_status(s, q, String::new(), None), Failure::Transient { .. });
        assert!(transient(429, false) && transient(500, false) && transient(503, false) && transient(408, false));
        assert!(!transient(429, true), "insufficient_quota is not retried");
        assert_eq!(classify_status(413, false, "big".into(), None), Failure::TooLarge("big".into()));
        for status in [400, 401, 403, 404, 415, 422] {
            assert_eq!(classify_status(status, false, "x".into(), None), Failure::Permanent("x".into()), "{status}");
        }
    }

    fn busy() -> OpenAIError {
        let failure =
            HttpFailure { status: 503, retry_after: None, message: "busy".into(), error_type: None, error_code: None };
        OpenAIError::Boxed(Box::new(failure))
    }

    #[tokio::test]
    async fn transient_failures_are_retried_until_the_count_is_spent_and_permanent_ones_are_not() {
        let r = Retries {
            max_retries: 2,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(1),
            max_retry_after: Duration::from_millis(1),
        };
        let calls = std::cell::Cell::new(0);
        let retried = std::cell::Cell::new(0);
        let out: Result<(), Failure> = r
            .run(
                || {
                    calls.set(calls.get() + 1);
                    async { Err(busy()) }
                },
                |_, _, _| retried.set(retried.get() + 1),
            )
            .await;
        let Err(Failure::Transient { message, .. }) = out else { panic!("{out:?}") };
        assert!(message.ends_with("(gave up after 3 attempts)"), "{message}");
        assert_eq!((calls.get(), retried.get()), (3, 2));

        calls.set(0);
        let out: Result<(), Failure> = r
            .run(
                || {
                    calls.set(calls.get() + 1);
                    async { Err(OpenAIError::InvalidArgument("x".into())) }
                },
                |_, _, _| {},
            )
            .await;
        assert_eq!(out, Err(Failure::Permanent("invalid args: x".into())));
        assert_eq!(calls.get(), 1, "a permanent failure is not retried");

        calls.set(0);
        let out = r
            .run(
                || {
                    calls.set(calls.get() + 1);
                    let n = calls.get();
                    async move { if n < 2 { Err(busy()) } else { Ok(n) } }
                },
                |_, _, _| {},
            )
            .await;
        assert_eq!(out, Ok(2), "a retry that succeeds returns its value");
    }
}
