//! Conversations of Minds (api-minds) and chatbots (api-chatbots), docs/api.md §17: the same
//! five routes under `/api/v1/minds/{mindId}` and `/api/v1/chatbots/{chatbotId}`.
//!
//! Sending a message (and creating a conversation with a `message`) answers JSON, or
//! `text/event-stream` when the client's `Accept` asks for it: events `citations` (first),
//! `delta` (many), then `done` or `error`. Everything that can refuse the request (scope,
//! owner, conversation, content, room) is decided before the stream starts and answered as a
//! plain HTTP error. The answer is generated in a task of its own, not in the request's: a
//! client that goes away mid-answer still gets it stored.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatWrite, ConversationsRead, JsonBody, Pagination, ParseId, PathId, PathIds};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request, State};
use axum::http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use lore_app::conversations::{AnswerSink, NoSink, PendingTurn, Transcript};
use lore_app::{App, AppError};
use lore_domain::conversation::{Channel, Citation, Conversation, MarkerFilter, Message, MessageContent, Visitor};
use lore_domain::id::{ChatbotId, ConversationId, MindId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use utoipa::ToSchema;

impl ParseId for ConversationId {
    const WHAT: &'static str = "conversation";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn mind_router() -> ApiRouter {
    mind_routes::router()
        .routes(api_routes!(message_speech))
        .merge(crate::followup::mind_router())
        .merge(crate::analytics::mind_router())
        .merge(crate::answer_tests::mind_router())
        .merge(crate::actions::mind_router())
}

/// The document's schema of a spoken answer: MP3 bytes.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct Mp3(#[allow(dead_code)] Vec<u8>);

/// An MP3 answer.
pub(crate) fn audio(bytes: Vec<u8>) -> Response {
    use axum::http::header::CONTENT_TYPE;
    let headers = [(CONTENT_TYPE, HeaderValue::from_static("audio/mpeg"))];
    (headers, bytes).into_response()
}

/// An assistant message of a Mind's conversation, spoken with the Mind's `voiceId` at its
/// `voiceSpeed` (generated once, then kept).
#[utoipa::path(get, path = "/api/v1/minds/{mindId}/conversations/{conversationId}/messages/{messageId}/speech",
    tag = "conversations",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("conversationId" = String, Path),
        ("messageId" = String, Path)),
    security(("bearer" = ["conversations:read"])),
    responses(
        (status = 200, description = "MP3 audio", content_type = "audio/mpeg", body = Mp3),
        (status = 404, description = "`not_found`: the Mind, conversation, or assistant message", body = ErrorBody),
        (status = 409, description = "`voice_disabled`: the Mind's `voiceEnabled` is false", body = ErrorBody),
        (status = 503, description = "`speech_unavailable`: no speech model is configured, or it failed", body = ErrorBody),
    ))]
async fn message_speech(
    auth: Authed<ConversationsRead>,
    State(s): State<ApiState>,
    axum::extract::Path((mind, conversation, message)): axum::extract::Path<(String, String, String)>,
) -> Result<Response, ApiError> {
    let not_found = |what| ApiError::App(AppError::NotFound(what));
    let mind = MindId::parse(&mind).ok_or(not_found("mind"))?;
    let conversation = ConversationId::parse(&conversation).ok_or(not_found("conversation"))?;
    let message = lore_domain::id::MessageId::parse(&message).ok_or(not_found("message"))?;
    Ok(audio(s.app.message_speech(&auth.principal, &mind, &conversation, &message).await?))
}

pub fn chatbot_router() -> ApiRouter {
    chatbot_routes::router()
        .merge(crate::followup::chatbot_router())
        .merge(crate::analytics::chatbot_router())
        .merge(crate::answer_tests::chatbot_router())
        .merge(crate::actions::chatbot_router())
}

// ---- views -------------------------------------------------------------------------------------

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorView {
    pub email: Option<String>,
    pub name: Option<String>,
    /// The host site's verified user (identity verification, docs/api.md §18), or on a
    /// connected channel the platform's user id (§24); else `null`.
    pub user_id: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    #[schema(example = "conv_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    /// Conversations of a Mind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mind_id: Option<String>,
    /// Conversations of a chatbot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chatbot_id: Option<String>,
    /// `api` (opened with an API key), `public` (the published page or widget), or `slack`,
    /// `telegram`, `whatsapp` (a connected channel, docs/api.md §24).
    pub channel: String,
    /// The connected channel the conversation is held on; `null` for `api` and `public`.
    pub channel_id: Option<String>,
    /// The last message of this conversation that did not reach its platform (an answer or an
    /// agent's reply, after the retries), and why; `null` once one gets through again.
    pub channel_error: Option<crate::channels::PlatformFailureView>,
    pub visitor: Option<VisitorView>,
    /// Messages of every role, the welcome message included (at most 200).
    pub message_count: u64,
    /// `open` (the Mind or chatbot answers) or `handoff` (a person does; docs/api.md §19).
    pub status: String,
    /// While `handoff`: why the visitor asked for a person, as they wrote it (redacted when the
    /// owner hides personal data); `null` when they gave no reason, and while `open`.
    pub handoff_reason: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Conversation> for ConversationView {
    fn from(c: Conversation) -> Self {
        Self {
            id: c.id.to_string(),
            mind_id: c.owner.mind().map(|m| m.to_string()),
            chatbot_id: c.owner.chatbot().map(|b| b.to_string()),
            channel: c.channel.as_str().to_owned(),
            channel_id: c.link.map(|l| l.channel_id.to_string()),
            channel_error: c.channel_error.map(Into::into),
            visitor: c.visitor.map(|v| VisitorView {
                email: v.email.map(|e| e.as_str().to_owned()),
                name: v.name,
                user_id: v.user_id.map(|u| u.as_str().to_owned()),
            }),
            message_count: c.message_count,
            status: c.status.as_str().to_owned(),
            handoff_reason: c.handoff_reason,
            created_at: c.created_at.to_string(),
            updated_at: c.updated_at.to_string(),
        }
    }
}

/// A passage an answer cites.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CitationView {
    /// The `[index]` marker in the answer's `content`, from 1.
    pub index: u32,
    pub source_id: String,
    pub source_name: String,
    /// The source's type in its owner's vocabulary (`text`, `url`, `file` for chatbots; `text`,
    /// `url`, `document`, `podcast` for Minds).
    pub source_type: String,
    pub chunk_id: String,
    /// The page a crawled passage came from.
    pub url: Option<String>,
    /// Verbatim text of the chunk: its sentences most relevant to the question.
    pub quote: String,
}

pub(crate) fn citation_view(c: &Citation, mind: bool) -> CitationView {
    CitationView {
        index: c.index,
        source_id: c.source_id.to_string(),
        source_name: c.source_name.clone(),
        source_type: if mind { c.source_type.mind_name() } else { c.source_type.as_str() }.to_owned(),
        chunk_id: c.chunk_id.clone(),
        url: c.url.clone(),
        quote: c.quote.clone(),
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    #[schema(example = "msg_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub conversation_id: String,
    /// `user`, `assistant`, or `agent` (a person answering for the owner during a hand-off).
    pub role: String,
    /// The answer's text; `[n]` markers name its citations.
    pub content: String,
    /// Exactly the passages the markers of `content` name (empty for the user's messages).
    pub citations: Vec<CitationView>,
    /// `llm`, `extractive`, `welcome` or `correction` for the assistant's messages; `null` for
    /// the user's and agents'.
    pub generated_by: Option<String>,
    /// The language model of an `llm` answer.
    pub model: Option<String>,
    /// Assistant and agent messages: `false` for an answer to a question that cites no passage
    /// (nothing in the knowledge matched); welcome messages, corrections and agents' replies are
    /// `true`. `null` for the user's messages.
    pub answered: Option<bool>,
    /// The latest rating of an assistant message, else `null`.
    pub feedback: Option<FeedbackView>,
    /// The actions a model called while writing this answer, in order (empty for every other
    /// message).
    pub actions: Vec<crate::actions::ActionCallView>,
    pub created_at: String,
}

/// A rating of an answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct FeedbackView {
    /// `up` or `down`.
    pub rating: String,
    pub comment: Option<String>,
    /// When it was given (RFC 3339, UTC).
    pub at: String,
}

/// How answers are shown to one kind of client.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Presentation {
    /// Source types in the Mind vocabulary (`document`) rather than the chatbot one (`file`).
    mind: bool,
    /// `false` (a published Mind with `showSources: false`, to its visitors): no citations and
    /// no markers.
    sources: bool,
}

impl Presentation {
    /// The keyed API: everything, in the owner's vocabulary.
    pub(crate) fn keyed(owner: &SourceOwner) -> Self {
        Self { mind: owner.is_mind(), sources: true }
    }

    /// A published Mind's or chatbot's visitors.
    pub(crate) fn public(published: &lore_domain::embed::Published) -> Self {
        Self { mind: published.mind().is_some(), sources: published.settings().show_sources }
    }
}

/// `text` without any `[n]` marker.
fn unmarked(text: &str) -> String {
    let mut filter = MarkerFilter::new([]);
    let mut out = filter.push(text);
    out.push_str(&filter.finish());
    out
}

pub(crate) fn message_view(m: &Message, how: Presentation) -> MessageView {
    MessageView {
        id: m.id.to_string(),
        conversation_id: m.conversation_id.to_string(),
        role: m.role.as_str().to_owned(),
        content: if how.sources { m.content.clone() } else { unmarked(&m.content) },
        citations: if how.sources {
            m.citations.iter().map(|c| citation_view(c, how.mind)).collect()
        } else {
            Vec::new()
        },
        generated_by: m.generated_by.map(|g| g.as_str().to_owned()),
        model: m.model.clone(),
        answered: m.answered,
        feedback: m.feedback.as_ref().map(|f| FeedbackView {
            rating: f.rating.as_str().to_owned(),
            comment: f.comment.clone(),
            at: f.at.to_string(),
        }),
        actions: m.actions.iter().map(crate::actions::call_view).collect(),
        created_at: m.created_at.to_string(),
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConversationEnvelope {
    pub status: Status,
    pub conversation: ConversationView,
    /// Oldest first.
    pub messages: Vec<MessageView>,
    /// Public conversations only, in the answer that opens one: the token that opens it
    /// (`Authorization: Visitor <token>`), shown this once.
    #[serde(rename = "visitorToken", skip_serializing_if = "Option::is_none")]
    pub visitor_token: Option<String>,
}

pub(crate) fn transcript_view(t: Transcript, how: Presentation) -> ConversationEnvelope {
    ConversationEnvelope {
        status: Status::Success,
        messages: t.messages.iter().map(|m| message_view(m, how)).collect(),
        conversation: t.conversation.into(),
        visitor_token: None,
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ConversationList {
    pub status: Status,
    /// Newest first.
    pub conversations: Vec<ConversationView>,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageEnvelope {
    pub status: Status,
    /// The assistant's answer, as stored; in a handed-off conversation the user's message
    /// (nobody answers it); with `role: "agent"` the agent's message.
    pub message: MessageView,
}

/// The events of a streamed answer (`Accept: text/event-stream`), in order: one `citations`,
/// any number of `delta` (with a model that calls actions, an `action_started` and an `action`
/// per call before the text that follows it), then one `done` or one `error`. Each event's
/// `data` is one of these.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum AnswerEvent {
    /// `event: citations` — every passage the answer may cite (the stored message keeps those
    /// its markers use).
    Citations { citations: Vec<CitationView> },
    /// `event: delta` — the next piece of the answer's text.
    Delta { text: String },
    /// `event: action` — an action the model called, once the call has ended; before it,
    /// `event: action_started` with only the action's `name` (a client shows "checking…").
    Action { action: crate::actions::ActionCallView },
    /// `event: action_started` — the model is calling the action named `name` now.
    ActionStarted {
        #[schema(example = "lookup_order")]
        name: String,
    },
    /// `event: done` — the answer as stored; a create also carries the conversation and its
    /// messages.
    Done {
        message: Box<MessageView>,
        #[serde(skip_serializing_if = "Option::is_none")]
        conversation: Option<Box<ConversationView>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        messages: Option<Vec<MessageView>>,
        /// A public create: the visitor's token.
        #[serde(rename = "visitorToken", skip_serializing_if = "Option::is_none")]
        visitor_token: Option<String>,
    },
    /// `event: error` — the envelope's `error` (`generation_failed`: the user's message is kept;
    /// send it again to retry).
    Error {
        #[schema(value_type = crate::error::ErrorDetail)]
        error: Value,
    },
}

// ---- bodies ------------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VisitorBody {
    /// A valid e-mail address (at most 254 characters).
    pub email: Option<String>,
    /// At most 200 characters.
    pub name: Option<String>,
    /// Public chat with identity verification (docs/api.md §18): the host site's user id,
    /// 1-200 characters. Ignored elsewhere.
    pub user_id: Option<String>,
    /// The lowercase hex HMAC-SHA256 of `userId` keyed with the identity secret.
    pub user_hash: Option<String>,
}

/// Start a conversation; the body may be empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct CreateConversation {
    /// The first question (1-4,000 characters), answered at once.
    pub message: Option<String>,
    pub visitor: Option<VisitorBody>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct SendMessage {
    /// 1-4,000 characters.
    #[schema(required = true)]
    pub content: Option<String>,
    /// `user` (the default: a question, answered) or, on the keyed routes only, `agent`: a
    /// person's reply for the owner (docs/api.md §19), stored as is and answered by nobody.
    #[schema(example = "user")]
    pub role: Option<String>,
}

/// A JSON body that may also be absent (no bytes at all): then `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: serde::de::DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        let bytes = Bytes::from_request(Request::from_parts(parts.clone(), body), state).await.map_err(|rej| {
            if rej.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge { limit_bytes: crate::JSON_BODY_LIMIT }
            } else {
                ApiError::InvalidJson(rej.body_text())
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(Self(T::default()));
        }
        let JsonBody(value) = JsonBody::<T>::from_request(Request::from_parts(parts, Body::from(bytes)), state).await?;
        Ok(Self(value))
    }
}

// ---- the shared handlers -----------------------------------------------------------------------

pub(crate) fn wants_stream(headers: &HeaderMap) -> bool {
    headers.get_all(ACCEPT).iter().filter_map(|v| v.to_str().ok()).any(|v| v.contains("text/event-stream"))
}

/// Streams events to the client; a client that has gone away is not an error (the answer is
/// still stored).
struct EventSink {
    tx: mpsc::UnboundedSender<Bytes>,
    how: Presentation,
    /// Removes every marker from the deltas when sources are not shown.
    unmark: std::sync::Mutex<MarkerFilter>,
}

impl EventSink {
    fn finish(&self) {
        let rest = self.unmark.lock().map(|mut f| f.finish()).unwrap_or_default();
        if !rest.is_empty() {
            let _ = self.tx.send(event("delta", &AnswerEvent::Delta { text: rest }));
        }
    }
}

fn event(name: &str, data: &impl Serialize) -> Bytes {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "{}".into());
    Bytes::from(format!("event: {name}\ndata: {json}\n\n"))
}

impl AnswerSink for EventSink {
    fn action_started(&self, name: &str) {
        let _ = self.tx.send(event("action_started", &AnswerEvent::ActionStarted { name: name.to_owned() }));
    }

    fn action(&self, call: &lore_domain::action::ActionCall) {
        let action = crate::actions::call_view(call);
        let _ = self.tx.send(event("action", &AnswerEvent::Action { action }));
    }

    fn citations(&self, citations: &[Citation]) {
        let views = if self.how.sources {
            citations.iter().map(|c| citation_view(c, self.how.mind)).collect()
        } else {
            Vec::new()
        };
        let _ = self.tx.send(event("citations", &AnswerEvent::Citations { citations: views }));
    }

    fn delta(&self, text: &str) {
        let text = if self.how.sources {
            text.to_owned()
        } else {
            self.unmark.lock().map(|mut f| f.push(text)).unwrap_or_default()
        };
        if !text.is_empty() {
            let _ = self.tx.send(event("delta", &AnswerEvent::Delta { text }));
        }
    }
}

/// The envelope's `error` member for a failure after the response has begun (an `error` event).
fn error_json(e: AppError) -> Value {
    if let AppError::Storage(detail) = &e {
        tracing::error!(%detail, "answering failed");
    }
    ApiError::App(e).error_member()
}

/// Names the conversation a failed create opened in the error's `details` (`conversationId`,
/// and for a visitor the `visitorToken` that opens it), so that the client can go on in it.
fn name_created(error: &mut Value, conversation: &ConversationId, visitor_token: Option<&str>) {
    if !error["details"].is_object() {
        error["details"] = json!({});
    }
    error["details"]["conversationId"] = json!(conversation.as_str());
    if let Some(token) = visitor_token {
        error["details"]["visitorToken"] = json!(token);
    }
}

/// A create whose first answer failed: the error as on any route (status, headers such as
/// `Retry-After`), with the conversation that was created so that the client can go on in it.
fn create_failed(e: AppError, created: &Created) -> Response {
    let error = ApiError::App(e);
    let mut member = error.error_member();
    name_created(&mut member, &created.transcript.conversation.id, created.visitor_token.as_deref());
    let mut response = error.into_response();
    *response.body_mut() = Body::from(json!({ "status": "error", "error": member }).to_string());
    response
}

/// A conversation just created, whose first question is being answered.
pub(crate) struct Created {
    pub transcript: Transcript,
    pub visitor_token: Option<String>,
}

impl Created {
    /// The create's answer once the question and its answer are stored.
    fn with_answer(mut self, question: Message, answer: Message, how: Presentation) -> ConversationEnvelope {
        let t = &mut self.transcript;
        t.conversation.message_count += 2;
        t.conversation.updated_at = answer.created_at;
        t.messages.push(question);
        t.messages.push(answer);
        let mut view = transcript_view(self.transcript, how);
        view.visitor_token = self.visitor_token;
        view
    }
}

/// Answers a turn already begun (`begun`, the result of its first step): JSON, or a stream. The
/// answer is made in a task of its own.
pub(crate) async fn answer(
    app: std::sync::Arc<App>,
    begun: Result<PendingTurn, AppError>,
    stream: bool,
    created: Option<Created>,
    how: Presentation,
) -> Result<Response, ApiError> {
    let turn = match (begun, &created) {
        (Ok(turn), _) => turn,
        (Err(e), Some(c)) => return Ok(create_failed(e, c)),
        (Err(e), None) => return Err(e.into()),
    };
    let question = turn.question.clone();
    let id = turn.conversation.id.clone();
    if !stream {
        let task = tokio::spawn(async move { app.finish_turn(turn, &NoSink).await });
        let result = task.await.map_err(|_| ApiError::Panicked)?;
        return Ok(match (result, created) {
            (Ok(message), None) => (
                StatusCode::CREATED,
                Json(MessageEnvelope { status: Status::Success, message: message_view(&message, how) }),
            )
                .into_response(),
            (Ok(message), Some(c)) => {
                (StatusCode::CREATED, Json(c.with_answer(question, message, how))).into_response()
            }
            (Err(e), Some(c)) => create_failed(e, &c),
            (Err(e), None) => ApiError::from(e).into_response(),
        });
    }
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let sink = EventSink { tx: tx.clone(), how, unmark: std::sync::Mutex::new(MarkerFilter::new([])) };
        let finished = app.finish_turn(turn, &sink).await;
        sink.finish();
        let done = match finished {
            Ok(message) => {
                let (conversation, messages, visitor_token) = match created {
                    Some(c) => {
                        let view = c.with_answer(question, message.clone(), how);
                        (Some(Box::new(view.conversation)), Some(view.messages), view.visitor_token)
                    }
                    None => (None, None, None),
                };
                let message = Box::new(message_view(&message, how));
                event("done", &AnswerEvent::Done { message, conversation, messages, visitor_token })
            }
            Err(e) => {
                let mut error = error_json(e);
                if let Some(c) = &created {
                    name_created(&mut error, &id, c.visitor_token.as_deref());
                }
                event("error", &AnswerEvent::Error { error })
            }
        };
        let _ = tx.send(done);
    });
    let body = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|bytes| (Ok::<_, std::convert::Infallible>(bytes), rx))
    });
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies (nginx) must pass the events on as they come.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    Ok(response)
}

pub(crate) fn content_of(field: &str, s: Option<&str>) -> Result<MessageContent, ApiError> {
    Ok(MessageContent::parse(field, s)?)
}

async fn create(
    s: ApiState,
    principal: lore_app::auth::Principal,
    owner: SourceOwner,
    body: CreateConversation,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let mut v = lore_domain::error::Validator::new();
    let message = body.message.as_deref().map(|m| v.check(MessageContent::parse("message", Some(m))));
    let visitor = body.visitor.unwrap_or_default();
    let visitor = v.check(Visitor::parse(visitor.email.as_deref(), visitor.name.as_deref()));
    v.finish()?;
    let transcript = s.app.start_conversation(&principal, &owner, Channel::Api, visitor.flatten()).await?;
    let how = Presentation::keyed(&owner);
    match message.flatten() {
        None => Ok((StatusCode::CREATED, Json(transcript_view(transcript, how))).into_response()),
        Some(content) => {
            let id = transcript.conversation.id.clone();
            let begun = s.app.begin_turn(principal.workspace_id(), &owner, &id, content).await;
            let created = Created { transcript, visitor_token: None };
            answer(s.app.clone(), begun, wants_stream(headers), Some(created), how).await
        }
    }
}

async fn list(
    s: &ApiState,
    principal: &lore_app::auth::Principal,
    owner: &SourceOwner,
    p: Pagination,
) -> Result<Json<ConversationList>, ApiError> {
    let page = s.app.list_conversations(principal, owner, p.page).await?;
    let pagination = page.info().into();
    let conversations = page.items.into_iter().map(Into::into).collect();
    Ok(Json(ConversationList { status: Status::Success, conversations, pagination }))
}

async fn read(
    s: &ApiState,
    principal: &lore_app::auth::Principal,
    owner: &SourceOwner,
    id: &ConversationId,
) -> Result<Json<ConversationEnvelope>, ApiError> {
    Ok(Json(transcript_view(s.app.get_conversation(principal, owner, id).await?, Presentation::keyed(owner))))
}

async fn delete(
    s: &ApiState,
    principal: &lore_app::auth::Principal,
    owner: &SourceOwner,
    id: &ConversationId,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_conversation(principal, owner, id).await?;
    Ok(Json(Deleted::new(id)))
}

async fn send(
    s: ApiState,
    principal: lore_app::auth::Principal,
    owner: SourceOwner,
    id: ConversationId,
    body: SendMessage,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let content = content_of("content", body.content.as_deref())?;
    match body.role.as_deref() {
        None | Some("user") => {}
        Some("agent") => {
            let message = s.app.post_agent_message(&principal, &owner, &id, content).await?;
            let view = MessageEnvelope {
                status: Status::Success,
                message: message_view(&message, Presentation::keyed(&owner)),
            };
            return Ok((StatusCode::CREATED, Json(view)).into_response());
        }
        Some(_) => return Err(lore_domain::DomainError::field("role", "must be user or agent").into()),
    }
    let begun = s.app.begin_turn(principal.workspace_id(), &owner, &id, content).await;
    answer(s.app.clone(), begun, wants_stream(headers), None, Presentation::keyed(&owner)).await
}

// ---- the routes of each owner -----------------------------------------------------------------

/// The five routes of one kind of owner (Minds, chatbots): same handlers, their own paths,
/// path parameter and operation ids.
macro_rules! owner_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal,
        list: $list:literal, item: $item:literal, messages: $messages:literal,
        ops: [$op_list:literal, $op_create:literal, $op_get:literal, $op_delete:literal, $op_send:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new()
                    .routes(api_routes!(list_conversations, create_conversation))
                    .routes(api_routes!(get_conversation, delete_conversation))
                    .routes(api_routes!(send_message))
            }

            /// List the conversations, newest first.
            #[utoipa::path(get, path = $list, operation_id = $op_list, tag = "conversations",
                params(($param = String, Path, description = $param_doc), PageParams),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = ConversationList),
                    (status = 400, description = "`validation_error`", body = ErrorBody)))]
            async fn list_conversations(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                p: Pagination,
            ) -> Result<Json<ConversationList>, ApiError> {
                list(&s, &auth.principal, &$owner(owner), p).await
            }

            /// Start a conversation: the Mind's welcome message first (when it has one), then —
            /// when `message` is given — that question and its cited answer. With
            /// `Accept: text/event-stream` and a `message`, the answer streams (see
            /// `AnswerEvent`; `done` also carries the conversation).
            #[utoipa::path(post, path = $list, operation_id = $op_create, tag = "conversations",
                params(($param = String, Path, description = $param_doc)),
                request_body(content = CreateConversation, description = "May be empty"),
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 201, body = ConversationEnvelope),
                    (status = 200, description = "With `Accept: text/event-stream` and a `message`: the answer's events",
                        content_type = "text/event-stream", body = AnswerEvent),
                    (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
                    (status = 502, description = "`generation_failed`: the conversation exists \
                        (`details.conversationId`) with the question kept; send it again there", body = ErrorBody),
                ))]
            async fn create_conversation(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                headers: HeaderMap,
                OptionalJson(body): OptionalJson<CreateConversation>,
            ) -> Result<Response, ApiError> {
                create(s, auth.principal, $owner(owner), body, &headers).await
            }

            /// A conversation with every message, oldest first.
            #[utoipa::path(get, path = $item, operation_id = $op_get, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path)),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = ConversationEnvelope)))]
            async fn get_conversation(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ConversationId>,
            ) -> Result<Json<ConversationEnvelope>, ApiError> {
                read(&s, &auth.principal, &$owner(owner), &id).await
            }

            /// Delete a conversation and its messages.
            #[utoipa::path(delete, path = $item, operation_id = $op_delete, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path)),
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = Deleted)))]
            async fn delete_conversation(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ConversationId>,
            ) -> Result<Json<Deleted>, ApiError> {
                delete(&s, &auth.principal, &$owner(owner), &id).await
            }

            /// Ask a question: the answer, generated from the owner's ready knowledge and citing
            /// it. With `Accept: text/event-stream` the answer streams as events (see
            /// `AnswerEvent`).
            #[utoipa::path(post, path = $messages, operation_id = $op_send, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path)),
                request_body = SendMessage,
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 201, body = MessageEnvelope),
                    (status = 200, description = "With `Accept: text/event-stream`: the answer's events",
                        content_type = "text/event-stream", body = AnswerEvent),
                    (status = 400, description = "`validation_error` (`content` 1-4,000 characters), `invalid_json`",
                        body = ErrorBody),
                    (status = 409, description = "`conversation_full`: 200 messages", body = ErrorBody),
                    (status = 502, description = "`generation_failed`: the question is kept; send it again to retry",
                        body = ErrorBody),
                ))]
            async fn send_message(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ConversationId>,
                headers: HeaderMap,
                JsonBody(body): JsonBody<SendMessage>,
            ) -> Result<Response, ApiError> {
                send(s, auth.principal, $owner(owner), id, body, &headers).await
            }
        }
    };
}

owner_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)",
    list: "/api/v1/minds/{mindId}/conversations",
    item: "/api/v1/minds/{mindId}/conversations/{conversationId}",
    messages: "/api/v1/minds/{mindId}/conversations/{conversationId}/messages",
    ops: ["list_mind_conversations", "create_mind_conversation", "get_mind_conversation",
        "delete_mind_conversation", "send_mind_message"]);

owner_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)",
    list: "/api/v1/chatbots/{chatbotId}/conversations",
    item: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}",
    messages: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}/messages",
    ops: ["list_chatbot_conversations", "create_chatbot_conversation", "get_chatbot_conversation",
        "delete_chatbot_conversation", "send_chatbot_message"]);
