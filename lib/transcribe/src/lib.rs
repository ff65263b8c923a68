//! Transcription of podcast audio, implementing [`lore_app::ports::Transcriber`]:
//!
//! - [`OpenAiTranscriber`]: OpenAI or any OpenAI-compatible server (`POST …/audio/transcriptions`)
//!   over `async-openai`, retried with backoff ([`openai`]).
//! - [`split`]: files over the per-request limit (OpenAI: 25 MB) are cut at valid boundaries of
//!   their format (MP3 frames, WAV sample frames, Ogg pages behind the stream's headers) and the
//!   pieces' texts joined in order. M4A is not cut: such files are refused with advice to convert.
//!
//! [`transcriber_from_lookup`] builds one from the variables in [`config`], or returns
//! `None` when transcription is not configured; then the pipeline fails podcast sources with
//! [`TranscribeError::NotConfigured`].

pub mod config;
pub mod openai;
pub mod split;

pub use config::{ConfigError, TranscriberSettings, config_from_lookup, transcriber_from_lookup};
pub use lore_app::ports::{AudioClip, NoTranscriber, TranscribeError, Transcriber, Transcript};
pub use openai::{BuildError, OpenAiTranscriber, OpenAiTranscriberConfig};
