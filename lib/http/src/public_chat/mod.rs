//! Public chat (docs/api.md §17 "Public chat", §18): the visitors of a published Mind's page
//! (`/m/{slug}`) or chatbot's page (`/c/{slug}`) open conversations, send messages and read their
//! conversation back without a key. A conversation answers only to the visitor token handed out
//! when it was opened (`Authorization: Visitor <token>`; any other token, or none, is 404 like an
//! absent conversation); an unpublished or unknown slug is 404. Answers are JSON or server-sent
//! events as on the keyed routes; with `showSources: false` they carry no citations and no
//! markers. Budgets: per client address and per Mind or chatbot (429 `rate_limited`).
//!
//! The Mind and chatbot routes are thin documented entry points over one implementation
//! (`open`, `send`, `read`), which takes the [`PublicKind`] the path names. CORS for the origins
//! an owner allows is added around these routes by [`cors`].

use crate::api_router::{ApiRouter, api_routes};
use crate::conversations::{
    AnswerEvent, ConversationEnvelope, CreateConversation, Created, MessageEnvelope, OptionalJson, Presentation,
    SendMessage, answer, content_of, wants_stream,
};
use crate::error::{ApiError, ErrorBody};
use crate::extract::JsonBody;
use crate::state::ApiState;
use axum::Json;
use axum::extract::{ConnectInfo, FromRequestParts, Path, State};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use lore_app::AppError;
use lore_domain::conversation::{MessageContent, Visitor, VisitorToken};
use lore_domain::embed::{IdentityClaim, PublicKind};
use lore_domain::id::ConversationId;
use std::net::{IpAddr, SocketAddr};

pub mod cors;

/// The visitor routes of published Minds (mounted with the Mind group).
pub fn mind_router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(open_public_conversation))
        .routes(api_routes!(read_public_conversation))
        .routes(api_routes!(send_public_message))
        .routes(api_routes!(public_message_speech))
        .merge(crate::followup::public_mind_router())
}

/// The visitor routes of published chatbots (mounted with the chatbot group).
pub fn chatbot_router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(open_chatbot_public_conversation))
        .routes(api_routes!(read_chatbot_public_conversation))
        .routes(api_routes!(send_chatbot_public_message))
        .merge(crate::followup::public_chatbot_router())
}

/// Where a request came from, as far as the transport knows: the socket's peer under `lore
/// serve`, API Gateway's or the function URL's source IP on Lambda (inserted by the function,
/// never read from a header a client could forge). `None` when neither is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

/// The [`ClientAddress`] of a request, if known.
pub struct Client(pub Option<IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let address = parts
            .extensions
            .get::<ClientAddress>()
            .map(|c| c.0)
            .or_else(|| parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()));
        Ok(Self(address))
    }
}

/// The visitor token of `Authorization: Visitor <token>`, when well formed.
pub(crate) fn visitor_token(headers: &HeaderMap) -> Option<VisitorToken> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("visitor").then(|| VisitorToken::parse(token))?
}

fn conversation_id(id: &str) -> Result<ConversationId, ApiError> {
    ConversationId::parse(id).ok_or(ApiError::App(AppError::NotFound("conversation")))
}

// ---- the one implementation ------------------------------------------------------------------

async fn open(
    kind: PublicKind,
    s: ApiState,
    slug: String,
    client: Option<IpAddr>,
    headers: HeaderMap,
    body: Result<OptionalJson<CreateConversation>, ApiError>,
) -> Result<Response, ApiError> {
    // The address first: a slug that names nothing published is 404 whatever the body.
    s.app.published(kind, &slug).await?;
    let OptionalJson(body) = body?;
    let mut v = lore_domain::error::Validator::new();
    let message = body.message.as_deref().map(|m| v.check(MessageContent::parse("message", Some(m))));
    let visitor = body.visitor.unwrap_or_default();
    let claim = IdentityClaim { user_id: visitor.user_id.clone(), user_hash: visitor.user_hash.clone() };
    let visitor = v.check(Visitor::parse(visitor.email.as_deref(), visitor.name.as_deref()));
    v.finish()?;
    let opened = s.app.start_public_conversation(kind, &slug, visitor.flatten(), claim, client).await?;
    let how = Presentation::public(&opened.published);
    let token = Some(opened.token.expose().to_owned());
    match message.flatten() {
        None => {
            let mut view = crate::conversations::transcript_view(opened.transcript, how);
            view.visitor_token = token;
            Ok((StatusCode::CREATED, Json(view)).into_response())
        }
        Some(content) => {
            let id = opened.transcript.conversation.id.clone();
            let begun = s.app.begin_public_turn(kind, &slug, &id, Some(&opened.token), content, None).await;
            let created = Created { transcript: opened.transcript, visitor_token: token };
            answer(s.app.clone(), begun.map(|(_, turn)| turn), wants_stream(&headers), Some(created), how).await
        }
    }
}

async fn send(
    kind: PublicKind,
    s: ApiState,
    (slug, id): (String, String),
    client: Option<IpAddr>,
    headers: HeaderMap,
    body: Result<JsonBody<SendMessage>, ApiError>,
) -> Result<Response, ApiError> {
    s.app.published(kind, &slug).await?;
    let id = conversation_id(&id)?;
    let JsonBody(body) = body?;
    let content = content_of("content", body.content.as_deref())?;
    let token = visitor_token(&headers);
    let (published, turn) = s.app.begin_public_turn(kind, &slug, &id, token.as_ref(), content, client).await?;
    answer(s.app.clone(), Ok(turn), wants_stream(&headers), None, Presentation::public(&published)).await
}

async fn read(
    kind: PublicKind,
    s: ApiState,
    (slug, id): (String, String),
    client: Option<IpAddr>,
    headers: HeaderMap,
) -> Result<Json<ConversationEnvelope>, ApiError> {
    s.app.published(kind, &slug).await?;
    let id = conversation_id(&id)?;
    let token = visitor_token(&headers);
    let (published, transcript) = s.app.read_public_conversation(kind, &slug, &id, token.as_ref(), client).await?;
    Ok(Json(crate::conversations::transcript_view(transcript, Presentation::public(&published))))
}

// ---- Minds -----------------------------------------------------------------------------------

/// Open a conversation with a published Mind, as its visitor (no key). The answer carries the
/// `visitorToken` that opens this conversation, shown once. With `collectEmailBeforeChat`,
/// `visitor.email` is required (400 `email_required`); with `identityVerification`,
/// `visitor.userId` and `visitor.userHash` are (401 `identity_invalid`). With `message`, the
/// question is answered at once (streamed with `Accept: text/event-stream`). Answers CORS for
/// the Mind's `allowedOrigins`.
#[utoipa::path(post, path = "/m/{slug}/conversations", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address")),
    request_body(content = CreateConversation, description = "May be empty"),
    responses(
        (status = 201, body = ConversationEnvelope),
        (status = 200, description = "With `Accept: text/event-stream` and a `message`: the answer's events \
            (`done` carries `visitorToken`)", content_type = "text/event-stream", body = AnswerEvent),
        (status = 400, description = "`email_required`, `validation_error`, `invalid_json`", body = ErrorBody),
        (status = 401, description = "`identity_invalid`: this Mind verifies identities and the visitor's signed \
            user id is missing or wrong", body = ErrorBody),
        (status = 404, description = "`not_found`: no published Mind at this address", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many messages from this address, or to this Mind; \
            `Retry-After`", body = ErrorBody),
        (status = 502, description = "`generation_failed` (`details.conversationId` and `details.visitorToken`: \
            resend the question there)", body = ErrorBody),
    ))]
async fn open_public_conversation(
    State(s): State<ApiState>,
    Path(slug): Path<String>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<OptionalJson<CreateConversation>, ApiError>,
) -> Result<Response, ApiError> {
    open(PublicKind::Mind, s, slug, client, headers, body).await
}

/// Send a visitor's message (`Authorization: Visitor <token>` of this conversation): the Mind's
/// answer, as JSON or (`Accept: text/event-stream`) as events.
#[utoipa::path(post, path = "/m/{slug}/conversations/{conversationId}/messages", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body = SendMessage,
    responses(
        (status = 201, body = MessageEnvelope),
        (status = 200, description = "With `Accept: text/event-stream`: the answer's events",
            content_type = "text/event-stream", body = AnswerEvent),
        (status = 400, description = "`validation_error` (`content` 1-4,000 characters), `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`: no published Mind here, or the token does not open this \
            conversation", body = ErrorBody),
        (status = 409, description = "`conversation_full`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
        (status = 502, description = "`generation_failed`: the question is kept; send it again to retry", body = ErrorBody),
    ))]
async fn send_public_message(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<JsonBody<SendMessage>, ApiError>,
) -> Result<Response, ApiError> {
    send(PublicKind::Mind, s, path, client, headers, body).await
}

/// Read the visitor's conversation back (`Authorization: Visitor <token>` of this conversation):
/// what a page shows again after a reload.
#[utoipa::path(get, path = "/m/{slug}/conversations/{conversationId}", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    responses(
        (status = 200, description = "The conversation and its messages, oldest first", body = ConversationEnvelope),
        (status = 404, description = "`not_found`: no published Mind here, or the token does not open this \
            conversation", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn read_public_conversation(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
) -> Result<Json<ConversationEnvelope>, ApiError> {
    read(PublicKind::Mind, s, path, client, headers).await
}

/// An answer of the visitor's conversation, spoken (`voiceEnabled` Minds; generated once, then
/// kept). Counts against the visitor's budget.
#[utoipa::path(get, path = "/m/{slug}/conversations/{conversationId}/messages/{messageId}/speech",
    tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address"),
        ("conversationId" = String, Path), ("messageId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    responses(
        (status = 200, description = "MP3 audio", content_type = "audio/mpeg", body = crate::conversations::Mp3),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 409, description = "`voice_disabled`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
        (status = 503, description = "`speech_unavailable`", body = ErrorBody),
    ))]
async fn public_message_speech(
    State(s): State<ApiState>,
    Path((slug, conversation, message)): Path<(String, String, String)>,
    Client(client): Client,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    s.app.published_mind(&slug).await?;
    let conversation = conversation_id(&conversation)?;
    let message = lore_domain::id::MessageId::parse(&message).ok_or(ApiError::App(AppError::NotFound("message")))?;
    let token = visitor_token(&headers);
    let bytes = s.app.public_message_speech(&slug, &conversation, token.as_ref(), &message, client).await?;
    Ok(crate::conversations::audio(bytes))
}

// ---- chatbots --------------------------------------------------------------------------------

/// Open a conversation with a published chatbot, as its visitor (no key): as for Minds. A
/// chatbot's e-mail gate emits `chatbot.lead.captured`.
#[utoipa::path(post, path = "/c/{slug}/conversations", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address")),
    request_body(content = CreateConversation, description = "May be empty"),
    responses(
        (status = 201, body = ConversationEnvelope),
        (status = 200, description = "With `Accept: text/event-stream` and a `message`: the answer's events \
            (`done` carries `visitorToken`)", content_type = "text/event-stream", body = AnswerEvent),
        (status = 400, description = "`email_required`, `validation_error`, `invalid_json`", body = ErrorBody),
        (status = 401, description = "`identity_invalid`", body = ErrorBody),
        (status = 404, description = "`not_found`: no published chatbot at this address", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
        (status = 502, description = "`generation_failed`", body = ErrorBody),
    ))]
async fn open_chatbot_public_conversation(
    State(s): State<ApiState>,
    Path(slug): Path<String>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<OptionalJson<CreateConversation>, ApiError>,
) -> Result<Response, ApiError> {
    open(PublicKind::Chatbot, s, slug, client, headers, body).await
}

/// Send a visitor's message to a published chatbot's conversation.
#[utoipa::path(post, path = "/c/{slug}/conversations/{conversationId}/messages", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body = SendMessage,
    responses(
        (status = 201, body = MessageEnvelope),
        (status = 200, description = "With `Accept: text/event-stream`: the answer's events",
            content_type = "text/event-stream", body = AnswerEvent),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 409, description = "`conversation_full`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
        (status = 502, description = "`generation_failed`", body = ErrorBody),
    ))]
async fn send_chatbot_public_message(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<JsonBody<SendMessage>, ApiError>,
) -> Result<Response, ApiError> {
    send(PublicKind::Chatbot, s, path, client, headers, body).await
}

/// Read the visitor's conversation with a published chatbot back.
#[utoipa::path(get, path = "/c/{slug}/conversations/{conversationId}", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    responses(
        (status = 200, description = "The conversation and its messages, oldest first", body = ConversationEnvelope),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn read_chatbot_public_conversation(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
) -> Result<Json<ConversationEnvelope>, ApiError> {
    read(PublicKind::Chatbot, s, path, client, headers).await
}
