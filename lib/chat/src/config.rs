//! Which responder the settings ask for (docs/limits.md "Conversations").
//!
//! - `LORE_RESPONDER`: `extractive`, `llm`, or unset: a language model when `LORE_LLM_MODEL`,
//!   `LORE_LLM_BASE_URL` or `OPENAI_API_KEY` is set, else extractive.
//! - `LORE_LLM_BASE_URL` (default OpenAI's API), `LORE_LLM_MODEL` (default `gpt-4o-mini`),
//!   `OPENAI_API_KEY` (not needed by a local server at `LORE_LLM_BASE_URL`).
//! - `LORE_LLM_TIMEOUT_SECS` (120), `LORE_LLM_IDLE_TIMEOUT_SECS` (30), `LORE_LLM_MAX_RETRIES` (2),
//!   `LORE_LLM_PROMPT_TOKENS` (6000), `LORE_LLM_MAX_ANSWER_TOKENS` (1000).
//!
//! [`ResponderSettings::from_lookup`] parses them once, at start (a wrong value is an error naming
//! its variable); the key may still come from elsewhere ([`ResponderSettings::with_api_key_if_missing`],
//! a secret on AWS) before [`ResponderSettings::config`] decides which responder runs. The lookup
//! gives each value trimmed, and none for an empty one (lore's settings reader does).

use crate::{ExtractiveResponder, OpenAiResponder, OpenAiResponderConfig, PromptBudget};
use lore_app::ports::Responder;
use std::sync::Arc;
use std::time::Duration;

pub const ENV_RESPONDER: &str = "LORE_RESPONDER";
pub const ENV_BASE_URL: &str = "LORE_LLM_BASE_URL";
pub const ENV_MODEL: &str = "LORE_LLM_MODEL";
pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
pub const ENV_TIMEOUT: &str = "LORE_LLM_TIMEOUT_SECS";
pub const ENV_IDLE_TIMEOUT: &str = "LORE_LLM_IDLE_TIMEOUT_SECS";
pub const ENV_MAX_RETRIES: &str = "LORE_LLM_MAX_RETRIES";
pub const ENV_PROMPT_TOKENS: &str = "LORE_LLM_PROMPT_TOKENS";
pub const ENV_MAX_ANSWER_TOKENS: &str = "LORE_LLM_MAX_ANSWER_TOKENS";

/// The responder's variables, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponderSettings {
    /// `LORE_RESPONDER`: `Some(true)` for `llm`, `Some(false)` for `extractive`; `None`: a model
    /// when a server, a model or a key is set.
    pub llm: Option<bool>,
    /// Whether `LORE_LLM_BASE_URL` is set (a server other than OpenAI's, which may take no key).
    pub own_server: bool,
    /// Whether `LORE_LLM_MODEL` is set.
    pub own_model: bool,
    /// The model's settings, every variable applied.
    pub model: OpenAiResponderConfig,
}

impl Default for ResponderSettings {
    /// No variable set: the extractive responder.
    fn default() -> Self {
        Self { llm: None, own_server: false, own_model: false, model: OpenAiResponderConfig::new(None) }
    }
}

impl ResponderSettings {
    /// Parses the variables of the module documentation, read through `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let number = |name: &str, default: u64, min: u64| -> Result<u64, String> {
            match lookup(name) {
                None => Ok(default),
                Some(v) => match v.parse::<u64>() {
                    Ok(n) if n >= min => Ok(n),
                    _ => Err(format!("{name}={v:?} must be an integer of at least {min}")),
                },
            }
        };
        let llm = match lookup(ENV_RESPONDER).map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("extractive") => Some(false),
            Some("llm") => Some(true),
            None => None,
            Some(other) => return Err(format!("{ENV_RESPONDER}={other:?} must be 'extractive' or 'llm'")),
        };
        let (base_url, model) = (lookup(ENV_BASE_URL), lookup(ENV_MODEL));
        if let Some(url) = &base_url
            && !(url.starts_with("http://") || url.starts_with("https://"))
        {
            return Err(format!("{ENV_BASE_URL}={url:?} is not an http(s) URL"));
        }
        let mut settings = Self {
            llm,
            own_server: base_url.is_some(),
            own_model: model.is_some(),
            model: OpenAiResponderConfig::new(lookup(ENV_API_KEY)),
        };
        let config = &mut settings.model;
        if let Some(url) = base_url {
            config.base_url = url.trim_end_matches('/').to_owned();
        }
        if let Some(model) = model {
            config.model = model;
        }
        config.request_timeout = Duration::from_secs(number(ENV_TIMEOUT, 120, 1)?);
        config.idle_timeout = Duration::from_secs(number(ENV_IDLE_TIMEOUT, 30, 1)?);
        config.retries.max_retries = number(ENV_MAX_RETRIES, 2, 0)?.min(10) as u32;
        config.budget = PromptBudget { prompt_tokens: number(ENV_PROMPT_TOKENS, 6_000, 500)? as usize };
        config.max_answer_tokens = number(ENV_MAX_ANSWER_TOKENS, 1_000, 16)?.min(u64::from(u32::MAX)) as u32;
        Ok(settings)
    }

    /// With `key` (read from a secret store) as the key when `OPENAI_API_KEY` gave none.
    pub fn with_api_key_if_missing(mut self, key: Option<&str>) -> Self {
        if self.model.api_key.is_none() {
            self.model.api_key = key.map(str::to_owned);
        }
        self
    }

    /// The language model these settings ask for; `None`: the extractive responder. An error
    /// when a model is asked for without a key for OpenAI's API.
    pub fn config(&self) -> Result<Option<OpenAiResponderConfig>, String> {
        let has_key = self.model.api_key.is_some();
        if !self.llm.unwrap_or(self.own_server || self.own_model || has_key) {
            return Ok(None);
        }
        if !self.own_server && !has_key {
            return Err(format!(
                "{ENV_RESPONDER}=llm needs {ENV_API_KEY} for OpenAI's API, or {ENV_BASE_URL} for another server"
            ));
        }
        Ok(Some(self.model.clone()))
    }

    /// The responder these settings ask for.
    pub fn build(&self) -> Result<Arc<dyn Responder>, String> {
        Ok(match self.config()? {
            Some(config) => Arc::new(OpenAiResponder::new(config)?),
            None => Arc::new(ExtractiveResponder),
        })
    }
}

/// The language-model settings the variables read through `lookup` ask for; `None`: the
/// extractive responder.
pub fn config_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<OpenAiResponderConfig>, String> {
    ResponderSettings::from_lookup(lookup)?.config()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn no_model_settings_mean_extractive() {
        assert_eq!(config_from_lookup(lookup(&[])).unwrap(), None);
        assert_eq!(
            config_from_lookup(lookup(&[("OPENAI_API_KEY", "sk"), ("LORE_RESPONDER", "extractive")])).unwrap(),
            None
        );
    }

    #[test]
    fn a_key_or_a_base_url_means_a_model() {
        let c = config_from_lookup(lookup(&[("OPENAI_API_KEY", "sk")])).unwrap().unwrap();
        assert_eq!((c.base_url.as_str(), c.model.as_str()), ("https://api.openai.com/v1", "gpt-4o-mini"));
        let c = config_from_lookup(lookup(&[
            ("LORE_LLM_BASE_URL", "http://127.0.0.1:8080/v1/"),
            ("LORE_LLM_MODEL", "llama"),
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            (c.base_url.as_str(), c.model.as_str(), c.api_key.as_deref()),
            ("http://127.0.0.1:8080/v1", "llama", None)
        );
        assert!(config_from_lookup(lookup(&[("LORE_RESPONDER", "llm")])).is_err());
        assert!(config_from_lookup(lookup(&[("LORE_LLM_BASE_URL", "ftp://x")])).is_err());
        assert!(config_from_lookup(lookup(&[("OPENAI_API_KEY", "sk"), ("LORE_LLM_PROMPT_TOKENS", "10")])).is_err());
    }
}
