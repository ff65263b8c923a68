//! Transcription with OpenAI or any OpenAI-compatible server (`POST {base_url}/audio/transcriptions`,
//! multipart), over `async-openai`.
//!
//! # Requests
//!
//! One request per piece (see [`crate::split`]): the file as-is when it is within
//! [`OpenAiTranscriberConfig::max_request_bytes`], else pieces cut at valid boundaries, sent at
//! most [`OpenAiTranscriberConfig::concurrency`] at a time and joined in order. The multipart file
//! name is the upload's name with the extension of the format found by content (services tell
//! the format by the extension), so `episode.bin` holding MP3 is sent as `episode.mp3` and the
//! pieces of a split file as `episode-part01.mp3`, `episode-part02.mp3`, … Only `file` and `model`
//! are sent; the answer is read as `{"text": …}` (extra fields, such as `usage`, are ignored, and
//! servers that omit them are accepted).
//!
//! # Retries
//!
//! As in `lore-embed`: the client's built-in retry layer is replaced (`Client::with_http_service`)
//! by a plain `reqwest` call that turns non-2xx answers into errors carrying the status, the
//! `Retry-After` hint and the error body, and retrying happens here, at most `max_retries` times
//! per piece: 408, 429 (unless `insufficient_quota`), 5xx and
//! transport errors (connect, timeout, broken body) back off exponentially from
//! `initial_backoff` up to `max_backoff`, or for the server's `retry-after-ms`/`Retry-After`
//! (seconds) up to `max_retry_after`. 413 is [`TranscribeError::TooLarge`]; other 4xx and
//! malformed answers are [`TranscribeError::Rejected`] at once; exhausted retries are
//! [`TranscribeError::Unavailable`]. Error messages never contain the API key.

use crate::split;
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::InputSource;
use async_openai::types::audio::{AudioInput, CreateTranscriptionRequest};
use async_trait::async_trait;
use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use lore_app::ports::{AudioClip, TranscribeError, Transcriber, Transcript};
use lore_domain::audio::AudioFormat;
use lore_openai::{Failure, Retries};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Default API base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Default model.
pub const DEFAULT_MODEL: &str = "whisper-1";
/// Default per-request limit: under OpenAI's 25 MB whether that means 25·10⁶ or 25·2²⁰ bytes,
/// with room for the multipart envelope.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 24_000_000;

/// Settings of [`OpenAiTranscriber`].
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiTranscriberConfig {
    /// API base URL, up to and including the version segment (`…/v1`); `/audio/transcriptions`
    /// is appended.
    pub base_url: String,
    /// Sent as `Authorization: Bearer …`; `None` sends no `Authorization` header (local servers).
    pub api_key: Option<String>,
    pub model: String,
    /// Largest file sent in one request; larger files are split.
    pub max_request_bytes: usize,
    /// Pieces of one file in flight at once.
    pub concurrency: usize,
    /// Retries after the first attempt of each piece (so at most `max_retries + 1` requests).
    pub max_retries: u32,
    /// Delay before the first retry; doubled before each further one.
    pub initial_backoff: Duration,
    /// Cap of the computed delay.
    pub max_backoff: Duration,
    /// Cap of a delay requested by the server (`Retry-After`).
    pub max_retry_after: Duration,
    /// Budget of one request (upload, transcription, answer).
    pub request_timeout: Duration,
}

impl OpenAiTranscriberConfig {
    /// OpenAI's API with `whisper-1`, 24 MB per request, 2 pieces at once, 4 retries from 1 s
    /// doubling up to 30 s, `Retry-After` honoured up to 60 s, 5 minutes per request.
    pub fn new(api_key: Option<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            api_key,
            model: DEFAULT_MODEL.to_owned(),
            max_request_bytes: DEFAULT_MAX_REQUEST_BYTES,
            concurrency: 2,
            max_retries: 4,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(60),
            request_timeout: Duration::from_secs(300),
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

impl fmt::Debug for OpenAiTranscriberConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiTranscriberConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("concurrency", &self.concurrency)
            .field("max_retries", &self.max_retries)
            .field("initial_backoff", &self.initial_backoff)
            .field("max_backoff", &self.max_backoff)
            .field("max_retry_after", &self.max_retry_after)
            .field("request_timeout", &self.request_timeout)
            .finish()
    }
}

/// Why an [`OpenAiTranscriber`] cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("the transcription base URL {0:?} is not an http(s) URL")]
    InvalidBaseUrl(String),
    /// The key would not fit in an HTTP header (the key itself is not repeated).
    #[error("the transcription API key contains characters not allowed in an HTTP header")]
    InvalidApiKey,
    #[error("the transcription request limit must be at least 1 byte")]
    InvalidLimit,
    #[error("could not create the HTTP client: {0}")]
    HttpClient(String),
}

/// A [`Transcriber`] calling an OpenAI-compatible transcription API. See the module documentation.
pub struct OpenAiTranscriber {
    client: Client<OpenAIConfig>,
    config: OpenAiTranscriberConfig,
}

impl fmt::Debug for OpenAiTranscriber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiTranscriber").field("config", &self.config).finish()
    }
}

impl OpenAiTranscriber {
    pub fn new(config: OpenAiTranscriberConfig) -> Result<Self, BuildError> {
        let base_url = config.base_url.trim_end_matches('/');
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(BuildError::InvalidBaseUrl(config.base_url.clone()));
        }
        // async-openai builds the header with `parse().unwrap()`: refuse what would panic there.
        if config.api_key.as_deref().is_some_and(|k| k.is_empty() || !k.bytes().all(|b| (0x21..0x7f).contains(&b))) {
            return Err(BuildError::InvalidApiKey);
        }
        if config.max_request_bytes == 0 {
            return Err(BuildError::InvalidLimit);
        }
        let client = lore_openai::client(base_url, config.api_key.clone(), config.request_timeout)
            .map_err(BuildError::HttpClient)?;
        Ok(Self { client, config })
    }

    pub fn config(&self) -> &OpenAiTranscriberConfig {
        &self.config
    }

    /// One piece, with retries.
    async fn transcribe_piece(&self, file_name: String, audio: Bytes) -> Result<String, TranscribeError> {
        let bytes = audio.len();
        let request = CreateTranscriptionRequest {
            file: AudioInput { source: InputSource::Bytes { filename: file_name.clone(), bytes: audio } },
            model: self.config.model.clone(),
            ..Default::default()
        };
        let outcome = self
            .config
            .retries()
            .run(
                || {
                    let request = request.clone();
                    async move { self.client.audio().transcription().create_raw(request).await }
                },
                |attempt, delay, message| {
                    tracing::warn!(
                        model = %self.config.model,
                        file = %file_name,
                        bytes,
                        attempt,
                        delay_ms = delay.as_millis() as u64,
                        "transcription request failed, retrying: {}",
                        self.redact(message.to_owned())
                    )
                },
            )
            .await;
        match outcome {
            Ok(body) => self.text(&body),
            Err(Failure::Permanent(message)) => Err(TranscribeError::Rejected(self.redact(message))),
            Err(Failure::TooLarge(message)) => Err(TranscribeError::TooLarge(format!(
                "the service refused {file_name} ({bytes} bytes) as too large: {}; lower \
                 LORE_TRANSCRIPTION_MAX_REQUEST_BYTES",
                self.redact(message)
            ))),
            Err(Failure::Transient { message, .. }) => Err(TranscribeError::Unavailable(self.redact(message))),
        }
    }

    fn text(&self, body: &[u8]) -> Result<String, TranscribeError> {
        let invalid = |why: String| {
            TranscribeError::Rejected(format!("the transcription response is not in the OpenAI format: {why}"))
        };
        let json: serde_json::Value = serde_json::from_slice(body).map_err(|e| invalid(e.to_string()))?;
        match json.get("text").and_then(|t| t.as_str()) {
            Some(text) => Ok(text.trim().to_owned()),
            None => Err(invalid("no `text` field".to_owned())),
        }
    }

    fn redact(&self, message: String) -> String {
        match self.config.api_key.as_deref() {
            Some(key) if message.contains(key) => message.replace(key, "<redacted>"),
            _ => message,
        }
    }
}

#[async_trait]
impl Transcriber for OpenAiTranscriber {
    fn model_id(&self) -> &str {
        &self.config.model
    }

    async fn transcribe(
        &self,
        clip: AudioClip,
        on_piece: &(dyn Fn(usize, usize) + Send + Sync),
    ) -> Result<Transcript, TranscribeError> {
        let AudioClip { bytes, format, file_name } = clip;
        let file = Bytes::from(bytes);
        let limit = self.config.max_request_bytes;
        // Walking the frames of a large file is CPU work of up to a second or so.
        let pieces = {
            let file = file.clone();
            tokio::task::spawn_blocking(move || split::plan(&file, format, limit))
                .await
                .map_err(|e| TranscribeError::Unsupported(format!("the audio could not be analysed: {e}")))??
        };
        let total = pieces.len();
        let stem = file_stem(&file_name);
        tracing::info!(model = %self.config.model, %format, bytes = file.len(), pieces = total, "transcribing audio");
        let done = AtomicUsize::new(0);
        let texts: Vec<String> = futures::stream::iter(pieces.into_iter().enumerate())
            .map(|(index, piece)| {
                let name = piece_name(&stem, format, index, total);
                let file = &file;
                let done = &done;
                async move {
                    let audio = piece.build(file);
                    let text = self.transcribe_piece(name, audio).await?;
                    on_piece(done.fetch_add(1, Ordering::SeqCst) + 1, total);
                    Ok::<_, TranscribeError>(text)
                }
            })
            .buffered(self.config.concurrency.max(1))
            .try_collect()
            .await?;
        let text = texts.into_iter().filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ");
        Ok(Transcript { text, pieces: total })
    }
}

/// The upload's name without directories and extension, reduced to characters every multipart
/// parser and file system accepts; `audio` when nothing is left.
pub fn file_stem(file_name: &str) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or_default();
    let stem = base.rsplit_once('.').map_or(base, |(stem, _)| stem);
    let clean: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' ') { c } else { '_' })
        .take(80)
        .collect();
    let clean = clean.trim_matches(|c: char| c == '.' || c == ' ').to_owned();
    if clean.is_empty() { "audio".to_owned() } else { clean }
}

/// `stem.mp3` for a whole file; `stem-part01.mp3` … for the pieces of a split one.
pub fn piece_name(stem: &str, format: AudioFormat, index: usize, total: usize) -> String {
    let extension = format.extension();
    if total == 1 {
        return format!("{stem}.{extension}");
    }
    let width = total.to_string().len().max(2);
    format!("{stem}-part{:0width$}.{extension}", index + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_and_retry_after_wins() {
        let config = OpenAiTranscriberConfig::new(None);
        let delays: Vec<u64> = (0..7).map(|r| config.retry_delay(r, None).as_secs()).collect();
        assert_eq!(delays, vec![1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(config.retry_delay(3, Some(Duration::from_millis(5))), Duration::from_millis(5));
        assert_eq!(config.retry_delay(0, Some(Duration::from_secs(900))), Duration::from_secs(60));
    }

    #[test]
    fn file_names_keep_the_stem_and_take_the_extension_of_the_content() {
        assert_eq!(file_stem("Episode 12 – Guests.MP3"), "Episode 12 _ Guests");
        assert_eq!(file_stem("/tmp/uploads/show.final.wav"), "show.final");
        assert_eq!(file_stem("C:\\audio\\talk.m4a"), "talk");
        assert_eq!(file_stem("\"evil\r\nname\".exe"), "_evil__name_");
        assert_eq!(file_stem(".mp3"), "audio");
        assert_eq!(file_stem(""), "audio");
        assert_eq!(piece_name("show", AudioFormat::Mp3, 0, 1), "show.mp3");
        assert_eq!(piece_name("show", AudioFormat::Ogg, 2, 3), "show-part03.ogg");
        assert_eq!(piece_name("show", AudioFormat::Wav, 9, 120), "show-part010.wav");
    }

    #[test]
    fn keys_that_would_break_the_header_are_refused() {
        for key in ["", "sk-1\n", "sk 1", "sk-é"] {
            let err = OpenAiTranscriber::new(OpenAiTranscriberConfig::new(Some(key.into()))).unwrap_err();
            assert_eq!(err, BuildError::InvalidApiKey, "{key:?}");
        }
        assert!(OpenAiTranscriber::new(OpenAiTranscriberConfig::new(Some("sk-proj-AbC_123".into()))).is_ok());
        let bad_url =
            OpenAiTranscriberConfig { base_url: "api.openai.com".into(), ..OpenAiTranscriberConfig::new(None) };
        assert_eq!(OpenAiTranscriber::new(bad_url).unwrap_err(), BuildError::InvalidBaseUrl("api.openai.com".into()));
    }

    #[test]
    fn debug_output_hides_the_key() {
        let transcriber = OpenAiTranscriber::new(OpenAiTranscriberConfig::new(Some("sk-secret-1".into()))).unwrap();
        let debug = format!("{transcriber:?}");
        assert!(!debug.contains("sk-secret-1") && debug.contains("<redacted>"), "{debug}");
    }
}
