//! Spoken answers from an OpenAI-compatible speech model (`POST {base_url}/audio/speech`, MP3),
//! retried like every model call (`lore-openai`), within one deadline over every attempt, the
//! answer read in pieces and refused past a size cap.
//!
//! Configuration (docs/limits.md "Conversations"):
//! - `LORE_SPEECH`: `openai` or `none` (default: `openai` when `OPENAI_API_KEY` or
//!   `LORE_SPEECH_BASE_URL` is set).
//! - The server, up to `/v1`: `LORE_SPEECH_BASE_URL`, else `LORE_LLM_BASE_URL`, else
//!   `OPENAI_BASE_URL`, else OpenAI's API. Only the first turns speech on by itself: a chat or
//!   embedding server is not assumed to speak.
//! - `LORE_SPEECH_MODEL` (default `tts-1`); the key is `OPENAI_API_KEY`.
//! - `LORE_SPEECH_MAX_BYTES` (default 16 MiB): the longest audio taken from the server.
//! - `LORE_SPEECH_TIMEOUT_SECS` (default 60): one deadline over every attempt and wait.
//!
//! [`SpeechSettings::from_lookup`] parses them once, at start; the key may still come from a
//! secret ([`SpeechSettings::with_api_key_if_missing`]) before [`SpeechSettings::config`] decides.

use async_trait::async_trait;
use lore_app::ports::{NoSynthesizer, SpeechError, Synthesizer};
use lore_openai::Retries;
use std::sync::Arc;
use std::time::Duration;

pub const ENV_SPEECH: &str = "LORE_SPEECH";
pub const ENV_SPEECH_BASE_URL: &str = "LORE_SPEECH_BASE_URL";
pub const ENV_SPEECH_MODEL: &str = "LORE_SPEECH_MODEL";
pub const ENV_SPEECH_MAX_BYTES: &str = "LORE_SPEECH_MAX_BYTES";
pub const ENV_SPEECH_TIMEOUT: &str = "LORE_SPEECH_TIMEOUT_SECS";
/// The conventional base URL of OpenAI's clients, the last fallback of the speech server.
pub const ENV_OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";

pub const DEFAULT_SPEECH_MODEL: &str = "tts-1";
/// The longest MP3 accepted by default. OpenAI takes at most 4,096 characters a request; spoken
/// at about 15 a second that is ~4.5 minutes, and a 24 kHz MP3 is at most 160 kbit/s (20 kB/s):
/// under 6 MB at speed 1. 16 MiB leaves room for slower voices (the longest input down to speed
/// 0.35) while bounding what one request holds (docs/limits.md).
pub const DEFAULT_SPEECH_MAX_BYTES: usize = 16 * 1024 * 1024;
pub const DEFAULT_SPEECH_TIMEOUT: Duration = Duration::from_secs(60);

/// Settings of [`OpenAiSpeech`].
#[derive(Clone, PartialEq, Eq)]
pub struct SpeechConfig {
    /// Up to and including the version segment (`…/v1`), no trailing `/`.
    pub base_url: String,
    /// `None`: no `Authorization` header (local servers that take none).
    pub api_key: Option<String>,
    pub model: String,
    /// The most audio taken from one answer; more is a failure (`speech_unavailable`).
    pub max_bytes: usize,
    /// One deadline over every attempt and every wait between them.
    pub timeout: Duration,
    pub retries: Retries,
}

impl std::fmt::Debug for SpeechConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpeechConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("max_bytes", &self.max_bytes)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl SpeechConfig {
    /// The defaults at `base_url`: 16 MiB, 60 s, 2 retries.
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model: model.to_owned(),
            max_bytes: DEFAULT_SPEECH_MAX_BYTES,
            timeout: DEFAULT_SPEECH_TIMEOUT,
            retries: Retries {
                max_retries: 2,
                initial_backoff: Duration::from_millis(500),
                max_backoff: Duration::from_secs(8),
                max_retry_after: Duration::from_secs(20),
            },
        }
    }
}

pub struct OpenAiSpeech {
    http: reqwest::Client,
    config: SpeechConfig,
}

impl OpenAiSpeech {
    /// With the default limits.
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self, String> {
        Self::with_config(SpeechConfig::new(base_url, api_key, model))
    }

    pub fn with_config(config: SpeechConfig) -> Result<Self, String> {
        // No attempt can outlive the deadline over all of them.
        let http = lore_openai::http_client(config.timeout)?;
        Ok(Self { http, config })
    }
}

#[async_trait]
impl Synthesizer for OpenAiSpeech {
    fn describe(&self) -> String {
        format!("openai (model {} at {})", self.config.model, self.config.base_url)
    }

    async fn speak(&self, text: &str, voice: &str, speed: f64) -> Result<Vec<u8>, SpeechError> {
        let body = serde_json::json!({
            "model": self.config.model,
            "input": text,
            "voice": voice,
            "response_format": "mp3",
            "speed": speed,
        });
        let url = format!("{}/audio/speech", self.config.base_url);
        let (key, max_bytes) = (self.config.api_key.as_deref(), self.config.max_bytes);
        let attempt = || lore_openai::post_json_capped(&self.http, &url, key, &body, max_bytes);
        let log = |retry: u32, wait: Duration, why: &str| {
            tracing::warn!(retry, wait_ms = wait.as_millis() as u64, why, "speech model failed; retrying");
        };
        match tokio::time::timeout(self.config.timeout, self.config.retries.run(attempt, log)).await {
            Ok(Ok(audio)) => Ok(audio),
            Ok(Err(failure)) => Err(SpeechError::Failed(format!("{failure:?}"))),
            Err(_) => {
                let secs = self.config.timeout.as_secs_f64();
                Err(SpeechError::Failed(format!("no audio within {secs} s ({ENV_SPEECH_TIMEOUT}), retries included")))
            }
        }
    }
}

/// The speech model's variables, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpeechSettings {
    /// `LORE_SPEECH`: `Some(true)` for `openai`, `Some(false)` for `none`; `None`: on when
    /// `LORE_SPEECH_BASE_URL` or a key is set.
    pub on: Option<bool>,
    /// Whether `LORE_SPEECH_BASE_URL` is set.
    pub own_server: bool,
    /// Whether a server is set (that one, `LORE_LLM_BASE_URL` or `OPENAI_BASE_URL`): it may take
    /// no key.
    pub server: bool,
    /// The model's settings, every variable applied.
    pub model: SpeechConfig,
}

impl Default for SpeechSettings {
    /// No variable set: no speech model.
    fn default() -> Self {
        let model = SpeechConfig::new(crate::openai::DEFAULT_BASE_URL, None, DEFAULT_SPEECH_MODEL);
        Self { on: None, own_server: false, server: false, model }
    }
}

impl SpeechSettings {
    /// Parses the variables of the module documentation, read through `lookup` (which gives each
    /// value trimmed, and none for an empty one).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let number = |name: &str, default: u64, range: std::ops::RangeInclusive<u64>| -> Result<u64, String> {
            match lookup(name) {
                None => Ok(default),
                Some(v) => match v.parse::<u64>() {
                    Ok(n) if range.contains(&n) => Ok(n),
                    _ => Err(format!("{name}={v:?} must be an integer from {} to {}", range.start(), range.end())),
                },
            }
        };
        let on = match lookup(ENV_SPEECH).map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("none") => Some(false),
            Some("openai") => Some(true),
            None => None,
            Some(other) => return Err(format!("{ENV_SPEECH}={other:?} must be 'openai' or 'none'")),
        };
        // The documented order: speech's own server, the chat model's, the OpenAI clients' own.
        let base_url = [ENV_SPEECH_BASE_URL, crate::config::ENV_BASE_URL, ENV_OPENAI_BASE_URL]
            .into_iter()
            .find_map(|name| lookup(name).map(|url| (name, url)));
        if let Some((name, url)) = &base_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(format!("{name}={url:?} is not an http(s) URL"));
        }
        let own_server = lookup(ENV_SPEECH_BASE_URL).is_some();
        let server = base_url.is_some();
        let base_url = base_url.map_or_else(|| crate::openai::DEFAULT_BASE_URL.to_owned(), |(_, url)| url);
        let model = lookup(ENV_SPEECH_MODEL).unwrap_or_else(|| DEFAULT_SPEECH_MODEL.to_owned());
        let mut model = SpeechConfig::new(&base_url, lookup(crate::config::ENV_API_KEY), &model);
        model.max_bytes = number(ENV_SPEECH_MAX_BYTES, DEFAULT_SPEECH_MAX_BYTES as u64, 1024..=1 << 30)? as usize;
        model.timeout = Duration::from_secs(number(ENV_SPEECH_TIMEOUT, DEFAULT_SPEECH_TIMEOUT.as_secs(), 1..=600)?);
        Ok(Self { on, own_server, server, model })
    }

    /// With `key` (read from a secret store) as the key when `OPENAI_API_KEY` gave none.
    pub fn with_api_key_if_missing(mut self, key: Option<&str>) -> Self {
        if self.model.api_key.is_none() {
            self.model.api_key = key.map(str::to_owned);
        }
        self
    }

    /// The speech model these settings ask for; `None`: none. An error when one is asked for
    /// without a key for OpenAI's API.
    pub fn config(&self) -> Result<Option<SpeechConfig>, String> {
        let has_key = self.model.api_key.is_some();
        if !self.on.unwrap_or(self.own_server || has_key) {
            return Ok(None);
        }
        if !self.server && !has_key {
            return Err(format!(
                "{ENV_SPEECH}=openai needs OPENAI_API_KEY, or {ENV_SPEECH_BASE_URL} (or {}, {ENV_OPENAI_BASE_URL}) for another server",
                crate::config::ENV_BASE_URL
            ));
        }
        Ok(Some(self.model.clone()))
    }

    /// The synthesizer these settings ask for.
    pub fn build(&self) -> Result<Arc<dyn Synthesizer>, String> {
        Ok(match self.config()? {
            Some(config) => Arc::new(OpenAiSpeech::with_config(config)?),
            None => Arc::new(NoSynthesizer),
        })
    }
}

/// The speech settings the variables read through `lookup` ask for; `None`: no speech model.
pub fn config_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<SpeechConfig>, String> {
    SpeechSettings::from_lookup(lookup)?.config()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Option<SpeechConfig>, String> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        config_from_lookup(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    fn base_url(vars: &[(&str, &str)]) -> String {
        config(vars).unwrap().expect("speech is on").base_url
    }

    #[test]
    fn the_base_url_falls_back_to_the_chat_models_then_to_openai_base_url_then_to_openai() {
        let key = ("OPENAI_API_KEY", "sk");
        let own = ("LORE_SPEECH_BASE_URL", "http://127.0.0.1:1/v1/");
        let llm = ("LORE_LLM_BASE_URL", "http://127.0.0.1:2/v1");
        let openai = ("OPENAI_BASE_URL", "http://127.0.0.1:3/v1");
        assert_eq!(base_url(&[key, own, llm, openai]), "http://127.0.0.1:1/v1");
        assert_eq!(base_url(&[key, llm, openai]), "http://127.0.0.1:2/v1");
        assert_eq!(base_url(&[key, openai]), "http://127.0.0.1:3/v1");
        assert_eq!(base_url(&[key]), "https://api.openai.com/v1");
        // A fallback server serves a keyless speech model asked for by name.
        let keyless = config(&[("LORE_SPEECH", "openai"), openai]).unwrap().unwrap();
        assert_eq!((keyless.base_url.as_str(), keyless.api_key), ("http://127.0.0.1:3/v1", None));
        // The fallbacks alone do not turn speech on: a chat or embedding server is not assumed
        // to speak.
        assert_eq!(config(&[llm, openai]).unwrap(), None);
        assert_eq!(config(&[key, ("LORE_SPEECH", "none")]).unwrap(), None);
        let err = config(&[key, ("LORE_LLM_BASE_URL", "llm.local")]).unwrap_err();
        assert!(err.contains("LORE_LLM_BASE_URL"), "{err}");
        assert!(config(&[("LORE_SPEECH", "openai")]).is_err(), "no key and no server");
    }

    #[test]
    fn limits_default_and_are_read_and_checked() {
        let c = config(&[("OPENAI_API_KEY", "sk")]).unwrap().unwrap();
        assert_eq!((c.model.as_str(), c.max_bytes, c.timeout), ("tts-1", 16 << 20, Duration::from_secs(60)));
        let c = config(&[
            ("OPENAI_API_KEY", "sk"),
            ("LORE_SPEECH_MODEL", "tts-x"),
            ("LORE_SPEECH_MAX_BYTES", "5000000"),
            ("LORE_SPEECH_TIMEOUT_SECS", "20"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!((c.model.as_str(), c.max_bytes, c.timeout), ("tts-x", 5_000_000, Duration::from_secs(20)));
        for (name, value) in [
            ("LORE_SPEECH_MAX_BYTES", "0"),
            ("LORE_SPEECH_MAX_BYTES", "lots"),
            ("LORE_SPEECH_TIMEOUT_SECS", "0"),
            ("LORE_SPEECH", "maybe"),
        ] {
            let err = config(&[("OPENAI_API_KEY", "sk"), (name, value)]).unwrap_err();
            assert!(err.contains(name), "{err}");
        }
    }
}
