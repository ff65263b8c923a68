//! Spoken answers from an OpenAI-compatible speech model (`POST {base_url}/audio/speech`, MP3),
//! retried like every model call (`lore-openai`).
//!
//! Configuration (docs/limits.md "Conversations"): `LORE_SPEECH` `openai` or `none` (default:
//! `openai` when `OPENAI_API_KEY` or `LORE_SPEECH_BASE_URL` is set), `LORE_SPEECH_BASE_URL`
//! (default OpenAI's API), `LORE_SPEECH_MODEL` (default `tts-1`); the key is `OPENAI_API_KEY`.

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::audio::{CreateSpeechRequest, SpeechModel, SpeechResponseFormat, Voice};
use async_trait::async_trait;
use lore_app::ports::{NoSynthesizer, SpeechError, Synthesizer};
use lore_openai::Retries;
use std::sync::Arc;
use std::time::Duration;

pub const ENV_SPEECH: &str = "LORE_SPEECH";
pub const ENV_SPEECH_BASE_URL: &str = "LORE_SPEECH_BASE_URL";
pub const ENV_SPEECH_MODEL: &str = "LORE_SPEECH_MODEL";

pub struct OpenAiSpeech {
    client: Client<OpenAIConfig>,
    model: String,
    retries: Retries,
}

impl OpenAiSpeech {
    pub fn new(base_url: &str, api_key: Option<String>, model: &str) -> Result<Self, String> {
        let client = lore_openai::client(base_url, api_key, Duration::from_secs(60))?;
        let retries = Retries {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(20),
        };
        Ok(Self { client, model: model.to_owned(), retries })
    }
}

#[async_trait]
impl Synthesizer for OpenAiSpeech {
    async fn speak(&self, text: &str, voice: &str, speed: f64) -> Result<Vec<u8>, SpeechError> {
        let request = CreateSpeechRequest {
            input: text.to_owned(),
            model: SpeechModel::Other(self.model.clone()),
            voice: Voice::Other(voice.to_owned()),
            response_format: Some(SpeechResponseFormat::Mp3),
            speed: Some(speed as f32),
            ..Default::default()
        };
        let attempt = || {
            let request = request.clone();
            async move { self.client.audio().speech().create(request).await }
        };
        let log = |retry: u32, wait: Duration, why: &str| {
            tracing::warn!(retry, wait_ms = wait.as_millis() as u64, why, "speech model failed; retrying");
        };
        match self.retries.run(attempt, log).await {
            Ok(response) => Ok(response.bytes.to_vec()),
            Err(failure) => Err(SpeechError::Failed(format!("{failure:?}"))),
        }
    }
}

/// The synthesizer the environment asks for.
pub fn synthesizer_from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Arc<dyn Synthesizer>, String> {
    let get = |name: &str| lookup(name).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let (base_url, key) = (get(ENV_SPEECH_BASE_URL), get(crate::config::ENV_API_KEY));
    let wanted = match get(ENV_SPEECH).map(|v| v.to_ascii_lowercase()).as_deref() {
        Some("none") => false,
        Some("openai") => true,
        None => base_url.is_some() || key.is_some(),
        Some(other) => return Err(format!("{ENV_SPEECH}={other:?} must be 'openai' or 'none'")),
    };
    if !wanted {
        return Ok(Arc::new(NoSynthesizer));
    }
    if base_url.is_none() && key.is_none() {
        return Err(format!("{ENV_SPEECH}=openai needs OPENAI_API_KEY, or {ENV_SPEECH_BASE_URL} for another server"));
    }
    let base_url = base_url.unwrap_or_else(|| crate::openai::DEFAULT_BASE_URL.to_owned());
    let model = get(ENV_SPEECH_MODEL).unwrap_or_else(|| "tts-1".to_owned());
    Ok(Arc::new(OpenAiSpeech::new(base_url.trim_end_matches('/'), key, &model)?))
}
