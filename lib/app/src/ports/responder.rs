//! The port that writes an answer from retrieved passages: a language model, or quotes of the
//! passages themselves when no model is configured (docs/api.md §17).

use async_trait::async_trait;
use lore_domain::conversation::{GeneratedBy, Role};

/// Who answers: the owner's persona. For a chatbot, its `descriptor` is the instructions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Persona {
    pub name: String,
    pub headline: Option<String>,
    /// The Mind's `systemPrompt`, or the chatbot's `descriptor`.
    pub instructions: Option<String>,
    pub expertise_areas: Vec<String>,
    /// `None`: the model's default.
    pub temperature: Option<f64>,
}

/// A retrieved passage, numbered as the answer must cite it (`[index]`).
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    pub index: u32,
    pub source_name: String,
    /// The whole chunk text.
    pub content: String,
    /// Its most relevant sentences, verbatim (what a citation quotes).
    pub quote: String,
    /// Whether it shares a content word with the question (extractive answers quote only these).
    pub on_topic: bool,
}

/// An earlier message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub role: Role,
    pub content: String,
}

/// Everything an answer is made from.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub persona: Persona,
    /// Best first.
    pub passages: Vec<Passage>,
    /// The conversation before the question, oldest first (the responder keeps the recent turns
    /// that fit its budget).
    pub history: Vec<Turn>,
    pub question: String,
    /// The language to answer in (docs/api.md §20): the owner's fixed one, else the question's.
    pub language: lore_domain::language::Language,
}

/// A finished answer. Its text may hold `[n]` markers; the caller keeps those naming a passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub text: String,
    pub generated_by: GeneratedBy,
    pub model: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("generation failed: {0}")]
pub struct GenerationError(pub String);

/// Takes an answer's text piece by piece as it is made.
pub trait TextSink: Send + Sync {
    fn push(&self, text: &str);
}

impl<F: Fn(&str) + Send + Sync> TextSink for F {
    fn push(&self, text: &str) {
        self(text)
    }
}

/// An owner's action as a model is offered it: an OpenAI `function` tool (docs/api.md §23).
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub description: String,
    /// A JSON Schema object (`type: "object"`).
    pub parameters: serde_json::Value,
}

/// The tools of one answer and the way to run them. The toolbox checks a call's arguments, makes
/// the call, records and counts it; a responder offers [`Toolbox::tools`] only while
/// [`Toolbox::calls_left`] is above zero, and answers a call it cannot make with a tool message
/// saying so (every call a model makes needs an answer before the model may go on).
#[async_trait]
pub trait Toolbox: Send + Sync {
    fn tools(&self) -> &[Tool];
    fn calls_left(&self) -> usize;
    /// Runs tool `name` with `arguments` (the model's JSON text, unchecked): what to hand back to
    /// the model as the tool's result.
    async fn call(&self, name: &str, arguments: &str) -> String;
}

/// An answer that may call nothing.
pub struct NoTools;

#[async_trait]
impl Toolbox for NoTools {
    fn tools(&self) -> &[Tool] {
        &[]
    }

    fn calls_left(&self) -> usize {
        0
    }

    async fn call(&self, _name: &str, _arguments: &str) -> String {
        "no tools are available".to_owned()
    }
}

#[async_trait]
pub trait Responder: Send + Sync {
    /// Which responder this is, for the startup log (`extractive`, `llm <model> at <base URL>`).
    fn describe(&self) -> String;

    /// Answers `prompt`, handing each piece of text to `delta` as it is made; returns the whole
    /// text. A model may call `tools` on the way (a responder without a model never does). A
    /// failure after retries is a [`GenerationError`].
    async fn respond(
        &self,
        prompt: &Prompt,
        delta: &dyn TextSink,
        tools: &dyn Toolbox,
    ) -> Result<Generated, GenerationError>;

    /// `question` written in each of `languages`, for searching knowledge written in them
    /// (docs/api.md §20): the languages it could translate into, in the order asked. Only a
    /// language model can; the default (quoting answers) translates nothing.
    async fn translate_question(
        &self,
        _question: &str,
        _languages: &[lore_domain::language::Language],
    ) -> Result<Vec<(lore_domain::language::Language, String)>, GenerationError> {
        Ok(Vec::new())
    }
}
