//! The transcription port of the podcast pipeline (docs/api.md §9: podcast sources are transcribed,
//! then chunked like text). Implemented by `lore-transcribe` (any OpenAI-compatible
//! `/v1/audio/transcriptions`); [`NoTranscriber`] stands in when none is configured.

use async_trait::async_trait;
use lore_domain::audio::AudioFormat;

/// An audio file to transcribe.
#[derive(Clone, PartialEq, Eq)]
pub struct AudioClip {
    pub bytes: Vec<u8>,
    /// Decided by content (`lore_extract::audio::sniff_audio`), never by the name.
    pub format: AudioFormat,
    /// The uploaded name, for the provider's request and for messages; its extension is not trusted.
    pub file_name: String,
}

impl std::fmt::Debug for AudioClip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AudioClip")
            .field("bytes", &self.bytes.len())
            .field("format", &self.format)
            .field("file_name", &self.file_name)
            .finish()
    }
}

/// The text of an audio file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    /// The transcribed text; the texts of the pieces of a split file are joined in order.
    pub text: String,
    /// How many requests the file took (more than one when it was over the provider's size limit).
    pub pieces: usize,
}

/// Why a file was not transcribed. Every message is meant for the user (it becomes the source's
/// `error`) and never carries credentials.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranscribeError {
    /// No transcription service is configured in this deployment.
    #[error(
        "no transcriber configured: set OPENAI_API_KEY (or LORE_TRANSCRIPTION_BASE_URL for another \
         OpenAI-compatible server) and reprocess the source"
    )]
    NotConfigured,
    /// The bytes are not audio that can be sent (damaged, or a variant that cannot be cut).
    #[error("the audio could not be read: {0}")]
    Unsupported(String),
    /// Over the provider's per-request limit and not splittable (or a piece was refused as too large).
    #[error("the audio is too large to transcribe: {0}")]
    TooLarge(String),
    /// The provider refused the request or answered with something unusable; retrying will not
    /// help (bad key, bad model, audio it cannot decode, exhausted quota).
    #[error("transcription failed: {0}")]
    Rejected(String),
    /// Retries were exhausted on rate limits, server errors, timeouts or connection failures.
    #[error("the transcription service is unavailable: {0}")]
    Unavailable(String),
}

impl TranscribeError {
    /// Whether running the job again later may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, TranscribeError::Unavailable(_))
    }
}

#[async_trait]
pub trait Transcriber: Send + Sync {
    /// Identifies the provider and model (`whisper-1`), for logs and records.
    fn model_id(&self) -> &str;

    /// Transcribes a whole file. Files over the provider's per-request limit are split at valid
    /// boundaries of their format and the pieces' texts joined in order. `on_piece(done, total)`
    /// is called after each piece (for progress).
    async fn transcribe(
        &self,
        clip: AudioClip,
        on_piece: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Result<Transcript, TranscribeError>;
}

/// The transcriber of a deployment without one: every call fails with
/// [`TranscribeError::NotConfigured`], so podcast sources fail with a reason instead of hanging.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoTranscriber;

#[async_trait]
impl Transcriber for NoTranscriber {
    fn model_id(&self) -> &str {
        "none"
    }

    async fn transcribe(
        &self,
        _clip: AudioClip,
        _on_piece: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Result<Transcript, TranscribeError> {
        Err(TranscribeError::NotConfigured)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn without_a_transcriber_the_reason_says_what_to_configure() {
        let clip = AudioClip { bytes: vec![1, 2, 3], format: AudioFormat::Mp3, file_name: "a.mp3".into() };
        let err = NoTranscriber.transcribe(clip.clone(), &|_, _| {}).await.unwrap_err();
        assert_eq!(err, TranscribeError::NotConfigured);
        assert!(err.to_string().starts_with("no transcriber configured: set OPENAI_API_KEY"), "{err}");
        assert!(!err.is_transient());
        assert!(TranscribeError::Unavailable("x".into()).is_transient());
        // Debug output does not dump the audio.
        assert_eq!(format!("{clip:?}"), "AudioClip { bytes: 3, format: Mp3, file_name: \"a.mp3\" }");
    }
}
