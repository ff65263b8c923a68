//! Choosing and configuring the transcriber from the environment (docs/api.md §15).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `LORE_TRANSCRIBER` | `openai` (any OpenAI-compatible server) or `none` | `openai` when `OPENAI_API_KEY`, `LORE_TRANSCRIPTION_API_KEY` or `LORE_TRANSCRIPTION_BASE_URL` is set, else `none` |
//! | `OPENAI_API_KEY` | API key | — |
//! | `LORE_TRANSCRIPTION_API_KEY` | API key for transcription only (when it goes to another server than embeddings) | `OPENAI_API_KEY` |
//! | `OPENAI_BASE_URL` | any OpenAI-compatible API base, up to `/v1` | `https://api.openai.com/v1` |
//! | `LORE_TRANSCRIPTION_BASE_URL` | API base for transcription only, up to `/v1` | `OPENAI_BASE_URL` |
//! | `LORE_TRANSCRIPTION_MODEL` | model name | `whisper-1` |
//! | `LORE_TRANSCRIPTION_MAX_REQUEST_BYTES` | largest file sent in one request; larger files are split | `24000000` (OpenAI accepts 25 MB) |
//!
//! [`TranscriberSettings::from_lookup`] parses them once, at start, from a lookup that gives each
//! value trimmed and none for an empty one (lore's settings reader); the key may still come from a
//! secret ([`TranscriberSettings::with_api_key_if_missing`]) before [`TranscriberSettings::config`]
//! decides. A key is required only for OpenAI's own API: a server reached
//! through `LORE_TRANSCRIPTION_BASE_URL` (or `OPENAI_BASE_URL` with `LORE_TRANSCRIBER=openai`) may
//! be keyless, and then no `Authorization` header is sent. `OPENAI_BASE_URL` alone does not turn
//! transcription on: it often points at an embeddings-only server.
//!
//! Without a transcriber ([`transcriber_from_lookup`] returns `None`) podcast sources fail with
//! [`TranscribeError::NotConfigured`](lore_app::ports::TranscribeError::NotConfigured),
//! whose message says what to set.

use crate::openai::{BuildError, DEFAULT_BASE_URL, OpenAiTranscriber, OpenAiTranscriberConfig};
use lore_app::ports::Transcriber;
use std::sync::Arc;

pub const ENV_TRANSCRIBER: &str = "LORE_TRANSCRIBER";
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
pub const ENV_TRANSCRIPTION_API_KEY: &str = "LORE_TRANSCRIPTION_API_KEY";
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";
pub const ENV_TRANSCRIPTION_BASE_URL: &str = "LORE_TRANSCRIPTION_BASE_URL";
pub const ENV_MODEL: &str = "LORE_TRANSCRIPTION_MODEL";
pub const ENV_MAX_REQUEST_BYTES: &str = "LORE_TRANSCRIPTION_MAX_REQUEST_BYTES";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("LORE_TRANSCRIBER={0:?} is not a known transcriber (expected `openai` or `none`)")]
    UnknownTranscriber(String),
    #[error(
        "LORE_TRANSCRIBER=openai needs OPENAI_API_KEY (or LORE_TRANSCRIPTION_API_KEY) for OpenAI's API, or \
         LORE_TRANSCRIPTION_BASE_URL for another OpenAI-compatible server"
    )]
    MissingApiKey,
    #[error("{name}={value:?} is not an http(s) URL")]
    InvalidBaseUrl { name: &'static str, value: String },
    #[error("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES={0:?} is not a positive integer")]
    InvalidMaxRequestBytes(String),
    #[error("{0}")]
    Build(#[from] BuildError),
}

/// The transcriber's variables, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriberSettings {
    /// `LORE_TRANSCRIBER`: `Some(true)` for `openai`, `Some(false)` for `none`; `None`: on when a
    /// key or `LORE_TRANSCRIPTION_BASE_URL` is set.
    pub on: Option<bool>,
    /// Whether `LORE_TRANSCRIPTION_BASE_URL` is set.
    pub own_server: bool,
    /// The transcriber's settings, every variable applied; its key is
    /// `LORE_TRANSCRIPTION_API_KEY`, else `OPENAI_API_KEY`.
    pub model: OpenAiTranscriberConfig,
}

impl Default for TranscriberSettings {
    /// No variable set: no transcriber.
    fn default() -> Self {
        Self { on: None, own_server: false, model: OpenAiTranscriberConfig::new(None) }
    }
}

impl TranscriberSettings {
    /// Parses the variables of the module documentation, read through `lookup` (which gives each
    /// value trimmed, and none for an empty one).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let on = match lookup(ENV_TRANSCRIBER).map(|k| k.to_ascii_lowercase()).as_deref() {
            None => None,
            Some("openai") => Some(true),
            Some("none" | "off" | "disabled") => Some(false),
            Some(other) => return Err(ConfigError::UnknownTranscriber(other.to_owned())),
        };
        let own_base_url = lookup(ENV_TRANSCRIPTION_BASE_URL);
        let own_server = own_base_url.is_some();
        let (name, base_url) = match (own_base_url, lookup(ENV_BASE_URL)) {
            (Some(url), _) => (ENV_TRANSCRIPTION_BASE_URL, url),
            (None, Some(url)) => (ENV_BASE_URL, url),
            (None, None) => (ENV_BASE_URL, DEFAULT_BASE_URL.to_owned()),
        };
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ConfigError::InvalidBaseUrl { name, value: base_url });
        }
        let api_key = lookup(ENV_TRANSCRIPTION_API_KEY).or_else(|| lookup(ENV_API_KEY));
        let mut model = OpenAiTranscriberConfig { base_url, ..OpenAiTranscriberConfig::new(api_key) };
        if let Some(name) = lookup(ENV_MODEL) {
            model.model = name;
        }
        if let Some(raw) = lookup(ENV_MAX_REQUEST_BYTES) {
            model.max_request_bytes = match raw.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => return Err(ConfigError::InvalidMaxRequestBytes(raw)),
            };
        }
        Ok(Self { on, own_server, model })
    }

    /// With `key` (read from a secret store) as the key when neither `LORE_TRANSCRIPTION_API_KEY`
    /// nor `OPENAI_API_KEY` gave one.
    pub fn with_api_key_if_missing(mut self, key: Option<&str>) -> Self {
        if self.model.api_key.is_none() {
            self.model.api_key = key.map(str::to_owned);
        }
        self
    }

    /// The transcriber these settings ask for; `None` when transcription is off. An error when
    /// OpenAI's own API would be asked without a key.
    pub fn config(&self) -> Result<Option<OpenAiTranscriberConfig>, ConfigError> {
        let has_key = self.model.api_key.is_some();
        if !self.on.unwrap_or(has_key || self.own_server) {
            return Ok(None);
        }
        if !has_key && self.model.base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            return Err(ConfigError::MissingApiKey);
        }
        Ok(Some(self.model.clone()))
    }

    /// The transcriber these settings ask for, or `None` when transcription is not configured
    /// (podcast sources then fail with a reason saying what to set).
    pub fn build(&self) -> Result<Option<Arc<dyn Transcriber>>, ConfigError> {
        match self.config()? {
            Some(config) => {
                tracing::info!(base_url = %config.base_url, model = %config.model, "transcription enabled");
                Ok(Some(Arc::new(OpenAiTranscriber::new(config)?)))
            }
            None => {
                tracing::info!("no transcriber configured: podcast sources will fail until OPENAI_API_KEY is set");
                Ok(None)
            }
        }
    }
}

/// The transcriber settings the variables read through `lookup` ask for; `None` when
/// transcription is off.
pub fn config_from_lookup(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<OpenAiTranscriberConfig>, ConfigError> {
    TranscriberSettings::from_lookup(lookup)?.config()
}

/// The transcriber the variables read through `lookup` ask for ([`TranscriberSettings::build`]).
pub fn transcriber_from_lookup(
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<Arc<dyn Transcriber>>, ConfigError> {
    TranscriberSettings::from_lookup(lookup)?.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Option<OpenAiTranscriberConfig>, ConfigError> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        config_from_lookup(|name| vars.get(name).cloned())
    }

    fn some(vars: &[(&str, &str)]) -> OpenAiTranscriberConfig {
        config(vars).unwrap().expect("a transcriber")
    }

    #[test]
    fn nothing_configured_means_no_transcriber() {
        assert_eq!(config(&[]), Ok(None));
        // A base URL for embeddings alone does not turn transcription on.
        assert_eq!(config(&[("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")]), Ok(None));
        assert_eq!(config(&[("OPENAI_API_KEY", "sk-1"), ("LORE_TRANSCRIBER", "none")]), Ok(None));
        assert!(transcriber_from_lookup(|_| None).unwrap().is_none());
    }

    #[test]
    fn a_key_turns_openai_on_with_defaults() {
        let c = some(&[("OPENAI_API_KEY", "sk-1")]);
        assert_eq!(c.base_url, "https://api.openai.com/v1");
        assert_eq!(c.api_key.as_deref(), Some("sk-1"));
        assert_eq!(c.model, "whisper-1");
        assert_eq!(c.max_request_bytes, 24_000_000);
        assert_eq!(c.concurrency, 2);
        let transcriber = transcriber_from_lookup(|n| (n == "OPENAI_API_KEY").then(|| "sk-1".into())).unwrap();
        assert_eq!(transcriber.unwrap().model_id(), "whisper-1");
    }

    #[test]
    fn transcription_can_go_elsewhere_than_embeddings() {
        let c = some(&[
            ("OPENAI_API_KEY", "sk-openai"),
            ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1"),
            ("LORE_TRANSCRIPTION_BASE_URL", "http://127.0.0.1:2/v1"),
            ("LORE_TRANSCRIPTION_API_KEY", "other-key"),
            ("LORE_TRANSCRIPTION_MODEL", "gpt-4o-mini-transcribe"),
            ("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES", "1000000"),
        ]);
        assert_eq!(c.base_url, "http://127.0.0.1:2/v1");
        assert_eq!(c.api_key.as_deref(), Some("other-key"));
        assert_eq!(c.model, "gpt-4o-mini-transcribe");
        assert_eq!(c.max_request_bytes, 1_000_000);
        // OPENAI_BASE_URL is used when there is no transcription-only one.
        let shared = some(&[("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")]);
        assert_eq!(shared.base_url, "http://127.0.0.1:1/v1");
    }

    #[test]
    fn a_keyless_server_needs_a_base_url() {
        let c = some(&[("LORE_TRANSCRIPTION_BASE_URL", "http://127.0.0.1:8000/v1")]);
        assert_eq!(c.api_key, None);
        let c = some(&[("LORE_TRANSCRIBER", "openai"), ("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")]);
        assert_eq!((c.api_key, c.base_url.as_str()), (None, "http://127.0.0.1:8000/v1"));
        let err = config(&[("LORE_TRANSCRIBER", "OpenAI")]).unwrap_err();
        assert_eq!(err, ConfigError::MissingApiKey);
        assert!(err.to_string().contains("OPENAI_API_KEY"), "{err}");
    }

    #[test]
    fn bad_values_are_errors() {
        assert_eq!(
            config(&[("LORE_TRANSCRIBER", "whisper.cpp")]),
            Err(ConfigError::UnknownTranscriber("whisper.cpp".into()))
        );
        assert_eq!(
            config(&[("OPENAI_API_KEY", "k"), ("LORE_TRANSCRIPTION_BASE_URL", "localhost:8000")]),
            Err(ConfigError::InvalidBaseUrl { name: "LORE_TRANSCRIPTION_BASE_URL", value: "localhost:8000".into() })
        );
        for bad in ["0", "-1", "24MB"] {
            assert_eq!(
                config(&[("OPENAI_API_KEY", "k"), ("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES", bad)]),
                Err(ConfigError::InvalidMaxRequestBytes(bad.into()))
            );
        }
        let err = transcriber_from_lookup(|n| (n == "OPENAI_API_KEY").then(|| "sk bad".into())).err().unwrap();
        assert_eq!(err, ConfigError::Build(BuildError::InvalidApiKey));
        assert!(!err.to_string().contains("sk bad"));
    }
}
