//! Which responder the environment asks for (docs/limits.md "Conversations").
//!
//! - `LORE_RESPONDER`: `extractive`, `llm`, or unset: a language model when `LORE_LLM_MODEL`,
//!   `LORE_LLM_BASE_URL` or `OPENAI_API_KEY` is set, else extractive.
//! - `LORE_LLM_BASE_URL` (default OpenAI's API), `LORE_LLM_MODEL` (default `gpt-4o-mini`),
//!   `OPENAI_API_KEY` (not needed by a local server at `LORE_LLM_BASE_URL`).
//! - `LORE_LLM_TIMEOUT_SECS` (120), `LORE_LLM_IDLE_TIMEOUT_SECS` (30), `LORE_LLM_MAX_RETRIES` (2),
//!   `LORE_LLM_PROMPT_TOKENS` (6000), `LORE_LLM_MAX_ANSWER_TOKENS` (1000).

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

/// The language-model settings the environment asks for; `None`: the extractive responder.
pub fn config_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Option<OpenAiResponderConfig>, String> {
    let get = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let number = |name: &str, default: u64, min: u64| -> Result<u64, String> {
        match get(name) {
            None => Ok(default),
            Some(v) => match v.parse::<u64>() {
                Ok(n) if n >= min => Ok(n),
                _ => Err(format!("{name}={v:?} must be an integer of at least {min}")),
            },
        }
    };
    let (base_url, model, key) = (get(ENV_BASE_URL), get(ENV_MODEL), get(ENV_API_KEY));
    let wanted = match get(ENV_RESPONDER).map(|v| v.to_ascii_lowercase()).as_deref() {
        Some("extractive") => false,
        Some("llm") => true,
        None => base_url.is_some() || model.is_some() || key.is_some(),
        Some(other) => return Err(format!("{ENV_RESPONDER}={other:?} must be 'extractive' or 'llm'")),
    };
    if !wanted {
        return Ok(None);
    }
    if base_url.is_none() && key.is_none() {
        return Err(format!(
            "{ENV_RESPONDER}=llm needs {ENV_API_KEY} for OpenAI's API, or {ENV_BASE_URL} for another server"
        ));
    }
    if let Some(url) = &base_url
        && !(url.starts_with("http://") || url.starts_with("https://"))
    {
        return Err(format!("{ENV_BASE_URL}={url:?} is not an http(s) URL"));
    }
    let mut config = OpenAiResponderConfig::new(key);
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
    Ok(Some(config))
}

/// The responder the environment asks for.
pub fn responder_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Arc<dyn Responder>, String> {
    Ok(match config_from_lookup(lookup)? {
        Some(config) => Arc::new(OpenAiResponder::new(config)?),
        None => Arc::new(ExtractiveResponder),
    })
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
