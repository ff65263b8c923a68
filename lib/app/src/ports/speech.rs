//! The port that speaks a Mind's answers (docs/api.md §17, `voiceEnabled`).

use async_trait::async_trait;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpeechError {
    /// No speech model is configured: answered `speech_unavailable`.
    #[error("no speech model is configured")]
    NotConfigured,
    /// The model failed after its retries.
    #[error("speech failed: {0}")]
    Failed(String),
}

/// Text to speech.
#[async_trait]
pub trait Synthesizer: Send + Sync {
    /// Which speech model this is, for the start-up banner (`none`, `openai (model … at …)`).
    fn describe(&self) -> String;

    /// MP3 audio of `text` spoken with `voice` (one of the Mind's voice ids) at `speed`.
    async fn speak(&self, text: &str, voice: &str, speed: f64) -> Result<Vec<u8>, SpeechError>;
}

/// The synthesizer of a deployment without a speech model.
pub struct NoSynthesizer;

#[async_trait]
impl Synthesizer for NoSynthesizer {
    fn describe(&self) -> String {
        "none".to_owned()
    }

    async fn speak(&self, _: &str, _: &str, _: f64) -> Result<Vec<u8>, SpeechError> {
        Err(SpeechError::NotConfigured)
    }
}
