//! Answers from an OpenAI-compatible chat model (`POST {base_url}/chat/completions`, streamed).
//!
//! Failures before the first piece of text arrives (429 other than `insufficient_quota`, 408,
//! 5xx, transport errors, a stream that ends at once) are retried with the shared policy of
//! `lore-openai` (doubling backoff or the server's `Retry-After`, each capped). Once text has
//! been handed on, a failure ends the answer with [`GenerationError`]: repeating it would repeat
//! text the client has already seen. Every request is bounded by `request_timeout` in total and
//! by `idle_timeout` between two pieces of the stream.
//!
//! With tools (docs/api.md §23) an answer takes rounds: a request whose stream ends with tool
//! calls has them run (only then, so a retried request never repeats a call), their results
//! appended as `tool` messages and the next request sent, at most [`MAX_ROUNDS`] in all. The
//! retry policy holds for each request on its own; the answer's text is that of every round.
//!
//! [`Responder::translate_question`] is one request of its own, not streamed and not retried,
//! bounded by [`TRANSLATION_TIMEOUT`] (or `request_timeout` when shorter): it only widens a search,
//! and the search goes on without it when it fails.

use crate::prompt::{PromptBudget, build};
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestToolMessage, ChatCompletionRequestUserMessage,
    ChatCompletionTool, ChatCompletionToolChoiceOption, ChatCompletionTools, CreateChatCompletionRequest,
    CreateChatCompletionStreamResponse, FunctionCall, FunctionObject, ToolChoiceOptions,
};
use async_trait::async_trait;
use futures::StreamExt;
use lore_app::ports::{Generated, GenerationError, Prompt, Responder, TextSink, Toolbox};
use lore_domain::conversation::{GeneratedBy, Role};
use lore_domain::language::Language;
use lore_openai::{Failure, Retries};
use std::collections::BTreeMap;
use std::time::Duration;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// The longest a question's translation may take.
pub const TRANSLATION_TIMEOUT: Duration = Duration::from_secs(10);
/// Tokens a translation may take, per language, at least; a longer question gets two per
/// character of it (Chinese or Japanese take about one token a character), at most
/// [`MAX_TRANSLATION_TOKENS_PER_LANGUAGE`].
const TRANSLATION_TOKENS_PER_LANGUAGE: u32 = 200;
const MAX_TRANSLATION_TOKENS_PER_LANGUAGE: u32 = 4_000;
/// Requests one answer may take; the last may call no tool, so a model that keeps calling tools
/// still ends with an answer.
pub const MAX_ROUNDS: usize = 5;

/// Settings of [`OpenAiResponder`].
#[derive(Clone, PartialEq, Eq)]
pub struct OpenAiResponderConfig {
    /// Up to and including the version segment (`…/v1`).
    pub base_url: String,
    /// `None`: no `Authorization` header (local servers that take none).
    pub api_key: Option<String>,
    pub model: String,
    pub retries: Retries,
    /// Budget of one request, stream included.
    pub request_timeout: Duration,
    /// The longest wait for the next piece of a stream.
    pub idle_timeout: Duration,
    pub budget: PromptBudget,
    /// Tokens the answer may take (`max_completion_tokens`).
    pub max_answer_tokens: u32,
}

impl std::fmt::Debug for OpenAiResponderConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiResponderConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl OpenAiResponderConfig {
    /// The defaults: OpenAI's API, `gpt-4o-mini`, 2 retries, 120 s a request, 30 s idle.
    pub fn new(api_key: Option<String>) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.into(),
            api_key,
            model: DEFAULT_MODEL.into(),
            retries: Retries {
                max_retries: 2,
                initial_backoff: Duration::from_millis(500),
                max_backoff: Duration::from_secs(8),
                max_retry_after: Duration::from_secs(20),
            },
            request_timeout: Duration::from_secs(120),
            idle_timeout: Duration::from_secs(30),
            budget: PromptBudget::default(),
            max_answer_tokens: 1_000,
        }
    }
}

pub struct OpenAiResponder {
    client: Client<OpenAIConfig>,
    config: OpenAiResponderConfig,
}

/// A tool call as its pieces stream in.
#[derive(Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
}

/// What one streamed request produced.
#[derive(Default)]
struct Round {
    /// The text handed on.
    text: String,
    /// The tool calls, by the index the model gave each.
    calls: BTreeMap<u32, PendingCall>,
}

impl Round {
    /// Hands the chunk's text on and adds its tool call pieces to the calls they belong to.
    fn take(&mut self, chunk: CreateChatCompletionStreamResponse, delta: &dyn TextSink) {
        for choice in chunk.choices {
            if let Some(piece) = choice.delta.content.filter(|p| !p.is_empty()) {
                delta.push(&piece);
                self.text.push_str(&piece);
            }
            for piece in choice.delta.tool_calls.into_iter().flatten() {
                let call = self.calls.entry(piece.index).or_default();
                if let Some(id) = piece.id.filter(|i| !i.is_empty()) {
                    call.id = id;
                }
                // The id and name come whole (OpenAI's own client replaces them), the arguments in
                // fragments.
                if let Some(function) = piece.function {
                    if let Some(name) = function.name.filter(|n| !n.is_empty()) {
                        call.name = name;
                    }
                    call.arguments.push_str(function.arguments.as_deref().unwrap_or_default());
                }
            }
        }
    }

    /// The calls in the model's order, each with an id (a tool message must name it).
    fn tool_calls(&mut self) -> Vec<ChatCompletionMessageToolCall> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(index, call)| ChatCompletionMessageToolCall {
                id: if call.id.is_empty() { format!("call_{index}") } else { call.id },
                function: FunctionCall {
                    name: call.name,
                    // A call without arguments sends back an empty object, which the API accepts.
                    arguments: if call.arguments.is_empty() { "{}".to_owned() } else { call.arguments },
                },
            })
            .collect()
    }
}

/// How one attempt ended.
enum Attempt {
    Done(Round),
    /// Failed before any text was handed on: may be retried.
    Before(Failure),
    /// Failed after text was handed on.
    After(String),
}

/// What a request offers the model: its tools, and `tool_choice` when it may call none of them.
type Offer = (Option<Vec<ChatCompletionTools>>, Option<ChatCompletionToolChoiceOption>);

/// No tools unless the toolbox has some, and none at first when no call is left. Later requests
/// keep them even then (the history holds their calls) but say `tool_choice: "none"`, as does the
/// last round.
fn offer(tools: &dyn Toolbox, round: usize) -> Offer {
    let may_call = tools.calls_left() > 0 && round < MAX_ROUNDS;
    if tools.tools().is_empty() || (round == 1 && !may_call) {
        return (None, None);
    }
    let offered = tools
        .tools()
        .iter()
        .map(|t| {
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: t.name.clone(),
                    description: Some(t.description.clone()),
                    parameters: Some(t.parameters.clone()),
                    strict: None,
                },
            })
        })
        .collect();
    (Some(offered), (!may_call).then_some(ChatCompletionToolChoiceOption::Mode(ToolChoiceOptions::None)))
}

/// Appends the round's assistant message with its calls, then a `tool` message for each call: its
/// result while calls are left, else why it was not made (every call needs an answer, or the API
/// refuses the next request).
async fn run_calls(
    messages: &mut Vec<ChatCompletionRequestMessage>,
    mut round: Round,
    tools: &dyn Toolbox,
    cap: usize,
) {
    let calls = round.tool_calls();
    messages.push(
        ChatCompletionRequestAssistantMessage {
            content: (!round.text.is_empty()).then(|| round.text.into()),
            tool_calls: Some(calls.iter().cloned().map(Into::into).collect()),
            ..Default::default()
        }
        .into(),
    );
    for call in calls {
        let content = if tools.calls_left() > 0 {
            tracing::debug!(tool = %call.function.name, "the model calls a tool");
            tools.call(&call.function.name, &call.function.arguments).await
        } else {
            format!(
                "Not called: at most {cap} actions may be called for one answer, and this one was over that \
                 limit. Answer without it."
            )
        };
        messages.push(ChatCompletionRequestToolMessage { content: content.into(), tool_call_id: call.id }.into());
    }
}

impl OpenAiResponder {
    pub fn new(config: OpenAiResponderConfig) -> Result<Self, String> {
        let client = lore_openai::client(&config.base_url, config.api_key.clone(), config.request_timeout)?;
        Ok(Self { client, config })
    }

    /// The conversation the first request sends: instructions, history, question.
    fn messages(&self, prompt: &Prompt) -> Vec<ChatCompletionRequestMessage> {
        let built = build(prompt, self.config.budget);
        let mut messages: Vec<ChatCompletionRequestMessage> =
            vec![ChatCompletionRequestSystemMessage::from(built.system).into()];
        for turn in built.turns {
            messages.push(match turn.role {
                Role::User => ChatCompletionRequestUserMessage::from(turn.content.as_str()).into(),
                // A person's reply for the owner (a hand-off) is the owner's side of the conversation.
                Role::Assistant | Role::Agent => {
                    ChatCompletionRequestAssistantMessage::from(turn.content.as_str()).into()
                }
            });
        }
        messages
    }

    fn request(
        &self,
        prompt: &Prompt,
        messages: Vec<ChatCompletionRequestMessage>,
        (tools, tool_choice): Offer,
    ) -> CreateChatCompletionRequest {
        CreateChatCompletionRequest {
            model: self.config.model.clone(),
            messages,
            temperature: prompt.persona.temperature.map(|t| t as f32),
            max_completion_tokens: Some(self.config.max_answer_tokens),
            stream: Some(true),
            tools,
            tool_choice,
            ..Default::default()
        }
    }

    async fn attempt(&self, request: CreateChatCompletionRequest, delta: &dyn TextSink) -> Attempt {
        let mut stream = match self.client.chat().create_stream(request).await {
            Ok(s) => s,
            Err(e) => return Attempt::Before(lore_openai::classify(e)),
        };
        let mut round = Round::default();
        loop {
            let next = match tokio::time::timeout(self.config.idle_timeout, stream.next()).await {
                Ok(next) => next,
                Err(_) => {
                    let why = format!("no data for {} s", self.config.idle_timeout.as_secs());
                    return if round.text.is_empty() {
                        Attempt::Before(Failure::Transient { message: why, retry_after: None })
                    } else {
                        Attempt::After(why)
                    };
                }
            };
            match next {
                None if round.text.is_empty() && round.calls.is_empty() => {
                    let message = "the stream ended without text".to_owned();
                    return Attempt::Before(Failure::Transient { message, retry_after: None });
                }
                None => return Attempt::Done(round),
                Some(Ok(chunk)) => round.take(chunk, delta),
                Some(Err(e)) if round.text.is_empty() => return Attempt::Before(lore_openai::classify(e)),
                Some(Err(e)) => return Attempt::After(e.to_string()),
            }
        }
    }

    /// One request, retried while it has handed on no text.
    async fn stream(
        &self,
        request: CreateChatCompletionRequest,
        delta: &dyn TextSink,
    ) -> Result<Round, GenerationError> {
        let retries = self.config.retries;
        let mut retry = 0u32;
        loop {
            match self.attempt(request.clone(), delta).await {
                Attempt::Done(round) => return Ok(round),
                Attempt::After(why) => return Err(GenerationError(format!("the answer broke off: {why}"))),
                Attempt::Before(Failure::Transient { message, retry_after }) if retry < retries.max_retries => {
                    let wait = retries.delay(retry, retry_after);
                    tracing::warn!(retry = retry + 1, wait_ms = wait.as_millis() as u64, %message, "chat model failed; retrying");
                    tokio::time::sleep(wait).await;
                    retry += 1;
                }
                Attempt::Before(Failure::Transient { message, .. }) => {
                    return Err(GenerationError(format!("{message} (gave up after {} attempts)", retry + 1)));
                }
                Attempt::Before(Failure::Permanent(m) | Failure::TooLarge(m)) => return Err(GenerationError(m)),
            }
        }
    }
}

/// The request that asks for `question` in each of `languages` as one JSON object.
fn translation_request(model: &str, question: &str, languages: &[Language]) -> CreateChatCompletionRequest {
    let names: Vec<String> = languages.iter().map(|l| format!("{} ({})", l.name(), l.code())).collect();
    let example: Vec<String> = languages.iter().map(|l| format!("\"{}\": \"…\"", l.code())).collect();
    let system = format!(
        "You translate a question that a visitor asked a support assistant, so that it can be searched for in \
         documents written in other languages. Translate the user's message into each of these languages: {}. \
         Keep names, product names, commands, code, file names and numbers exactly as they are. Reply with only a \
         JSON object whose keys are the language codes and whose values are the translations: {{{}}}.",
        names.join(", "),
        example.join(", ")
    );
    CreateChatCompletionRequest {
        model: model.to_owned(),
        messages: vec![
            ChatCompletionRequestSystemMessage::from(system).into(),
            ChatCompletionRequestUserMessage::from(question).into(),
        ],
        temperature: Some(0.0),
        max_completion_tokens: Some(per_language_tokens(question) * languages.len() as u32),
        stream: Some(false),
        ..Default::default()
    }
}

fn per_language_tokens(question: &str) -> u32 {
    let chars = u32::try_from(question.chars().count()).unwrap_or(u32::MAX);
    chars.saturating_mul(2).clamp(TRANSLATION_TOKENS_PER_LANGUAGE, MAX_TRANSLATION_TOKENS_PER_LANGUAGE)
}

/// The translations in a model's reply: the JSON object in it (a model may wrap it in prose or a
/// code fence), the non-empty string of each language asked for, in the order asked. A
/// translation longer than four times the question and 200 characters is not one.
fn parse_translations(reply: &str, question: &str, languages: &[Language]) -> Vec<(Language, String)> {
    let (Some(start), Some(end)) = (reply.find('{'), reply.rfind('}')) else { return Vec::new() };
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(reply.get(start..=end).unwrap_or_default()) else {
        return Vec::new();
    };
    let longest = question.chars().count() * 4 + 200;
    languages
        .iter()
        .filter_map(|l| {
            let text = map.get(l.code())?.as_str()?.trim();
            (!text.is_empty() && text.chars().count() <= longest && text != question.trim())
                .then(|| (*l, text.to_owned()))
        })
        .collect()
}

#[async_trait]
impl Responder for OpenAiResponder {
    fn describe(&self) -> String {
        format!("llm (model {} at {})", self.config.model, self.config.base_url)
    }

    async fn respond(
        &self,
        prompt: &Prompt,
        delta: &dyn TextSink,
        tools: &dyn Toolbox,
    ) -> Result<Generated, GenerationError> {
        let mut messages = self.messages(prompt);
        let cap = tools.calls_left();
        let mut text = String::new();
        for round in 1..=MAX_ROUNDS {
            let request = self.request(prompt, messages.clone(), offer(tools, round));
            let done = self.stream(request, delta).await?;
            text.push_str(&done.text);
            // Calls with no tools offered, or in the last round, are not the model's to make.
            if done.calls.is_empty() || tools.tools().is_empty() || round == MAX_ROUNDS {
                break;
            }
            run_calls(&mut messages, done, tools, cap).await;
        }
        Ok(Generated { text, generated_by: GeneratedBy::Llm, model: Some(self.config.model.clone()) })
    }

    async fn translate_question(
        &self,
        question: &str,
        languages: &[Language],
    ) -> Result<Vec<(Language, String)>, GenerationError> {
        if languages.is_empty() {
            return Ok(Vec::new());
        }
        let request = translation_request(&self.config.model, question, languages);
        let limit = TRANSLATION_TIMEOUT.min(self.config.request_timeout);
        let response = tokio::time::timeout(limit, self.client.chat().create(request))
            .await
            .map_err(|_| GenerationError(format!("no translation within {} s", limit.as_secs())))?
            .map_err(|e| match lore_openai::classify(e) {
                Failure::Permanent(m) | Failure::TooLarge(m) | Failure::Transient { message: m, .. } => {
                    GenerationError(m)
                }
            })?;
        let cut =
            response.choices.iter().any(|c| c.finish_reason == Some(async_openai::types::chat::FinishReason::Length));
        let reply: String = response.choices.into_iter().filter_map(|c| c.message.content).collect();
        let translations = parse_translations(&reply, question, languages);
        if cut && translations.len() < languages.len() {
            tracing::warn!(languages = languages.len(), "the model's translation was cut off at its token limit");
        }
        Ok(translations)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translations_are_read_from_the_json_object_in_the_reply() {
        let (fr, de, ja) = (Language::French, Language::German, Language::Japanese);
        let reply = "Here you are:\n```json\n{\"fr\": \" Comment obtenir un remboursement ? \", \"de\": \"Wie bekomme ich eine Rückerstattung?\", \"es\": \"¿…?\"}\n```";
        let got = parse_translations(reply, "How do I get a refund?", &[de, fr, ja]);
        assert_eq!(
            got,
            vec![
                (de, "Wie bekomme ich eine Rückerstattung?".to_owned()),
                (fr, "Comment obtenir un remboursement ?".to_owned())
            ],
            "in the order asked, trimmed, only the languages asked for and present"
        );
        for bad in ["no json", "{\"fr\": 3}", "{\"fr\": \"\"}", "[\"fr\"]", "{\"fr\": \"How do I get a refund?\"}"] {
            assert!(parse_translations(bad, "How do I get a refund?", &[fr]).is_empty(), "{bad}");
        }
        let long = format!("{{\"fr\": \"{}\"}}", "x".repeat(300));
        assert!(parse_translations(&long, "Refund?", &[fr]).is_empty(), "a runaway reply is no translation");
    }

    #[test]
    fn the_request_names_each_language_and_the_reply_shape() {
        let r = translation_request("m", "How do I get a refund?", &[Language::French, Language::Japanese]);
        assert_eq!((r.stream, r.max_completion_tokens, r.temperature), (Some(false), Some(400), Some(0.0)));
        let long = "x".repeat(1_000);
        assert_eq!(translation_request("m", &long, &[Language::French]).max_completion_tokens, Some(2_000));
        let longest = "x".repeat(100_000);
        assert_eq!(translation_request("m", &longest, &[Language::French]).max_completion_tokens, Some(4_000));
        let system = serde_json::to_value(&r.messages[0]).unwrap()["content"].as_str().unwrap().to_owned();
        assert!(
            system.contains("Français (fr), 日本語 (ja)") && system.contains(r#"{"fr": "…", "ja": "…"}"#),
            "{system}"
        );
        assert_eq!(serde_json::to_value(&r.messages[1]).unwrap()["content"], "How do I get a refund?");
    }
}
