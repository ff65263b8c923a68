//! Embeddings from OpenAI or any OpenAI-compatible server (`POST {base_url}/embeddings`), over
//! `async-openai`.
//!
//! # Retries
//!
//! `async-openai` 0.43's default client wraps every request in its own `OpenAIRetryLayer`: 3 retries
//! on 429 (except `insufficient_quota`), 5xx and connect errors, 100 ms doubling to 8 s, honouring an
//! integer `Retry-After`. Its count is not configurable on the default client. Left in place, it
//! would multiply with ours (every one of our attempts being up to 4 requests and ~700 ms of
//! sleeping). So [`OpenAiEmbedder`] installs its own HTTP service with
//! `Client::with_http_service` (the `middleware` feature): a plain `reqwest` call with no retry
//! layer, which turns every non-2xx response into an `HttpFailure` error carrying the status, the
//! `Retry-After` hint and the error body. All retrying is then done here, bounded by
//! [`OpenAiEmbedderConfig::max_retries`]:
//!
//! - 429 (unless its error type or code is `insufficient_quota`), 5xx and transport errors
//!   (connect, timeout, broken body) are retried with exponential backoff: `initial_backoff`,
//!   doubling, capped at `max_backoff`. A `retry-after-ms` or `Retry-After` (seconds) header
//!   replaces the computed delay, capped at `max_retry_after`. An HTTP-date `Retry-After` is not
//!   parsed (the computed delay is used).
//! - Any other 4xx, an `insufficient_quota` 429, and a malformed or inconsistent response
//!   (unparsable JSON, wrong count, missing index, wrong dimensions, non-finite or zero vector) are
//!   [`EmbedError::Permanent`] at once.
//! - When `max_retries` retries are exhausted, the error is [`EmbedError::Unavailable`].

use crate::batch::{BatchLimits, estimate_tokens, plan_batches, truncate_to_tokens};
use crate::error::ConfigError;
use crate::local::empty_text_vector;
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::embeddings::{CreateEmbeddingRequest, CreateEmbeddingResponse, EmbeddingInput};
use async_trait::async_trait;
use lore_app::ports::{EmbedError, Embedder};
use lore_openai::{Failure, Retries};
use std::fmt;
use std::time::Duration;

/// Default API base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model.
pub const DEFAULT_MODEL: &str = "text-embedding-3-small";

/// Native output size of the OpenAI embedding models this crate knows.
pub fn known_dimensions(model: &str) -> Option<usize> {
    match model {
        "text-embedding-3-small" => Some(1536),
        "text-embedding-3-large" => Some(3072),
        "text-embedding-ada-002" => Some(1536),
        _ => None,
    }
}

/// Whether `model` accepts the `dimensions` request parameter (shortened embeddings).
pub fn supports_dimensions_parameter(model: &str) -> bool {
    model.starts_with("text-embedding-3")
}

/// Settings of [`OpenAiEmbedder`].
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiEmbedderConfig {
    /// API base URL, up to and including the version segment (`…/v1`); `/embeddings` is appended.
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    /// Length of the vectors the server returns; a response of another length is a permanent error.
    pub dimensions: usize,
    /// Sent as the request's `dimensions` parameter (shortened `text-embedding-3` embeddings).
    /// `None`: not sent, the model's native size is returned.
    pub request_dimensions: Option<u32>,
    /// Retries after the first attempt of each request (so at most `max_retries + 1` requests).
    pub max_retries: u32,
    /// Delay before the first retry; doubled before each further one.
    pub initial_backoff: Duration,
    /// Cap of the computed delay.
    pub max_backoff: Duration,
    /// Cap of a delay requested by the server (`Retry-After`).
    pub max_retry_after: Duration,
    /// Budget of one HTTP request (connect, send, receive).
    pub request_timeout: Duration,
    pub limits: BatchLimits,
}

impl OpenAiEmbedderConfig {
    /// OpenAI's API with the default model (`text-embedding-3-small`, 1536 dimensions), 5 retries,
    /// 500 ms initial backoff doubling up to 20 s, `Retry-After` honoured up to 60 s, 60 s per request.
    pub fn new(api_key: impl Into<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key: api_key.into(),
            model: DEFAULT_MODEL.to_owned(),
            dimensions: 1536,
            request_dimensions: None,
            max_retries: 5,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(60),
            request_timeout: Duration::from_secs(60),
            limits: BatchLimits::default(),
        }
    }

    /// The retry policy of these settings.
    pub fn retries(&self) -> Retries {
        Retries {
            max_retries: self.max_retries,
            initial_backoff: self.initial_backoff,
            max_backoff: self.max_backoff,
            max_retry_after: self.max_retry_after,
        }
    }

    /// The delay before retry number `retry` (0-based), given the server's `Retry-After` hint.
    pub fn retry_delay(&self, retry: u32, retry_after: Option<Duration>) -> Duration {
        self.retries().delay(retry, retry_after)
    }
}

impl fmt::Debug for OpenAiEmbedderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbedderConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &"<redacted>")
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("request_dimensions", &self.request_dimensions)
            .field("max_retries", &self.max_retries)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("max_retry_after", &self.max_retry_after)
            .field("request_timeout", &self.request_timeout)
            .field("limits", &self.limits)
            .finish()
    }
}

/// An [`Embedder`] calling an OpenAI-compatible embeddings API. See the module documentation for
/// batching and retries.
pub struct OpenAiEmbedder {
    client: Client<OpenAIConfig>,
    config: OpenAiEmbedderConfig,
    model_id: String,
}

impl fmt::Debug for OpenAiEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiEmbedder").field("config", &self.config).field("model_id", &self.model_id).finish()
    }
}

impl OpenAiEmbedder {
    pub fn new(config: OpenAiEmbedderConfig) -> Result<Self, ConfigError> {
        let base_url = config.base_url.trim_end_matches('/');
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ConfigError::InvalidBaseUrl(config.base_url.clone()));
        }
        if config.dimensions == 0 {
            return Err(ConfigError::InvalidDimensions("0".to_owned()));
        }
        let client = lore_openai::client(base_url, Some(config.api_key.clone()), config.request_timeout)
            .map_err(ConfigError::HttpClient)?;
        let model_id = match known_dimensions(&config.model) {
            Some(native) if native == config.dimensions => config.model.clone(),
            _ => format!("{}@{}", config.model, config.dimensions),
        };
        Ok(Self { client, config, model_id })
    }

    pub fn config(&self) -> &OpenAiEmbedderConfig {
        &self.config
    }

    /// One request (with retries) for a batch already within the limits.
    async fn embed_batch(&self, inputs: Vec<String>) -> Result<Vec<Vec<f32>>, EmbedError> {
        let count = inputs.len();
        let request = CreateEmbeddingRequest {
            model: self.config.model.clone(),
            input: EmbeddingInput::StringArray(inputs),
            encoding_format: None,
            user: None,
            dimensions: self.config.request_dimensions,
        };
        let outcome = self
            .config
            .retries()
            .run(
                || {
                    let request = request.clone();
                    async move { self.client.embeddings().create(request).await }
                },
                |attempt, delay, message| {
                    tracing::warn!(
                        model = %self.config.model,
                        inputs = count,
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        "embedding request failed, retrying: {message}"
                    )
                },
            )
            .await;
        match outcome {
            Ok(response) => self.vectors(response, count),
            Err(Failure::Permanent(message) | Failure::TooLarge(message)) => Err(EmbedError::Permanent(message)),
            Err(Failure::Transient { message, .. }) => Err(EmbedError::Unavailable(message)),
        }
    }

    /// Checks a response against its request and returns unit vectors in input order.
    fn vectors(&self, response: CreateEmbeddingResponse, count: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let permanent = |m: String| Err(EmbedError::Permanent(format!("invalid embeddings response: {m}")));
        if response.data.len() != count {
            return permanent(format!("{} vectors for {count} inputs", response.data.len()));
        }
        let mut ordered: Vec<Option<Vec<f32>>> = vec![None; count];
        for item in response.data {
            let index = item.index as usize;
            if index >= count || ordered[index].is_some() {
                return permanent(format!("unexpected or repeated index {index}"));
            }
            if item.embedding.len() != self.config.dimensions {
                return permanent(format!(
                    "a vector of {} dimensions, expected {} (model {})",
                    item.embedding.len(),
                    self.config.dimensions,
                    self.config.model
                ));
            }
            match normalised(item.embedding) {
                Some(v) => ordered[index] = Some(v),
                None => return permanent(format!("vector {index} is zero or not finite")),
            }
        }
        // Every slot is filled: `count` distinct indices below `count`.
        Ok(ordered.into_iter().flatten().collect())
    }
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    /// The model name, suffixed with `@<dimensions>` unless it is a known model at its native size
    /// (`text-embedding-3-small`, `text-embedding-3-small@512`, `nomic-embed-text@768`).
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.config.dimensions
    }

    /// Every call is a request to the provider, billed by it.
    fn remote(&self) -> bool {
        true
    }

    /// Empty and whitespace-only texts are not sent (the API refuses empty input); they get
    /// [`empty_text_vector`]. Longer texts are truncated to `limits.max_input_tokens` estimated
    /// tokens. Batches are sent one after the other.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out: Vec<Option<Vec<f32>>> = vec![None; texts.len()];
        let mut positions = Vec::new();
        let mut inputs = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            if text.trim().is_empty() {
                out[i] = Some(empty_text_vector(self.config.dimensions));
                continue;
            }
            let kept = truncate_to_tokens(text, self.config.limits.max_input_tokens);
            if kept.len() < text.len() {
                tracing::debug!(input = i, bytes = text.len(), kept = kept.len(), "embedding input truncated");
            }
            positions.push(i);
            inputs.push(kept);
        }
        let tokens: Vec<usize> = inputs.iter().map(|t| estimate_tokens(t)).collect();
        for range in plan_batches(&tokens, &self.config.limits) {
            let batch = inputs[range.clone()].iter().map(|t| (*t).to_owned()).collect();
            let vectors = self.embed_batch(batch).await?;
            for (position, vector) in positions[range].iter().zip(vectors) {
                out[*position] = Some(vector);
            }
        }
        Ok(out.into_iter().map(|v| v.expect("every input has a vector")).collect())
    }
}

fn normalised(vector: Vec<f32>) -> Option<Vec<f32>> {
    let norm = vector.iter().map(|&v| f64::from(v) * f64::from(v)).sum::<f64>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    Some(vector.into_iter().map(|v| (f64::from(v) / norm) as f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_the_initial_delay_up_to_the_cap() {
        let config = OpenAiEmbedderConfig::new("k");
        let delays: Vec<u128> = (0..8).map(|r| config.retry_delay(r, None).as_millis()).collect();
        assert_eq!(delays, vec![500, 1000, 2000, 4000, 8000, 16_000, 20_000, 20_000]);
        assert_eq!(config.retry_delay(40, None), Duration::from_secs(20));
    }

    #[test]
    fn retry_after_replaces_the_backoff_within_its_cap() {
        let config = OpenAiEmbedderConfig::new("k");
        assert_eq!(config.retry_delay(3, Some(Duration::from_millis(1))), Duration::from_millis(1));
        assert_eq!(config.retry_delay(0, Some(Duration::from_secs(600))), Duration::from_secs(60));
    }

    #[test]
    fn known_models_have_their_dimensions() {
        assert_eq!(known_dimensions("text-embedding-3-small"), Some(1536));
        assert_eq!(known_dimensions("text-embedding-3-large"), Some(3072));
        assert_eq!(known_dimensions("text-embedding-ada-002"), Some(1536));
        assert_eq!(known_dimensions("nomic-embed-text"), None);
    }

    #[test]
    fn debug_output_hides_the_key() {
        let config = OpenAiEmbedderConfig::new("sk-secret");
        assert!(!format!("{config:?}").contains("sk-secret"));
    }
}
