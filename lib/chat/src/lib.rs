//! The [`Responder`](lore_app::ports::Responder)s: [`OpenAiResponder`] asks an OpenAI-compatible
//! chat model; [`ExtractiveResponder`] quotes the passages themselves (the default when no model
//! is configured, so `lore serve` answers with no key).

pub mod config;
mod extractive;
mod openai;
mod prompt;
pub mod speech;

pub use config::ResponderSettings;
pub use extractive::ExtractiveResponder;
pub use openai::{OpenAiResponder, OpenAiResponderConfig};
pub use prompt::{PromptBudget, estimate_tokens};
pub use speech::{OpenAiSpeech, SpeechSettings};
