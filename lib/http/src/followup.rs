//! Feedback, corrections and hand-off (docs/api.md §19): the keyed routes of Minds
//! (`/api/v1/minds/{mindId}/…`, api-minds) and chatbots (`/api/v1/chatbots/{chatbotId}/…`,
//! api-chatbots), and the visitor routes of their public pages (`/m/{slug}/…`, `/c/{slug}/…`,
//! `Authorization: Visitor <token>`; CORS for the owner's `allowedOrigins` comes with the
//! `/{m|c}/{slug}/conversations…` paths).

use crate::api_router::{ApiRouter, api_routes};
use crate::conversations::{ConversationView, MessageEnvelope, OptionalJson, Presentation, message_view};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatWrite, ConversationsRead, JsonBody, Pagination, ParseId, PathId, PathIds};
use crate::public_chat::{Client, visitor_token};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use lore_app::AppError;
use lore_app::auth::Principal;
use lore_app::followup::VisitorRequest;
use lore_domain::Timestamp;
use lore_domain::conversation::{Feedback, HandoffReason, MessageContent};
use lore_domain::correction::Correction;
use lore_domain::embed::PublicKind;
use lore_domain::id::{ChatbotId, ConversationId, CorrectionId, MessageId, MindId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

impl ParseId for CorrectionId {
    const WHAT: &'static str = "correction";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

/// The keyed routes of Minds.
pub fn mind_router() -> ApiRouter {
    mind_routes::router()
}

/// The keyed routes of chatbots.
pub fn chatbot_router() -> ApiRouter {
    chatbot_routes::router()
}

/// The visitor routes of published Minds.
pub fn public_mind_router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(rate_public_mind_message)).routes(api_routes!(public_mind_handoff))
}

/// The visitor routes of published chatbots.
pub fn public_chatbot_router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(rate_public_chatbot_message)).routes(api_routes!(public_chatbot_handoff))
}

// ---- views and bodies --------------------------------------------------------------------------

/// An owner's answer to a question, given verbatim to later questions that mean the same.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorrectionView {
    #[schema(example = "corr_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    /// The visitor's question it answers (as they asked it).
    pub question: String,
    /// The answer given instead of a generated one.
    pub content: String,
    pub created_at: String,
}

impl From<Correction> for CorrectionView {
    fn from(c: Correction) -> Self {
        Self { id: c.id.to_string(), question: c.question, content: c.content, created_at: c.created_at.to_string() }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CorrectionEnvelope {
    pub status: Status,
    pub correction: CorrectionView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CorrectionList {
    pub status: Status,
    /// Newest first.
    pub corrections: Vec<CorrectionView>,
    pub pagination: PaginationView,
}

/// A conversation without its messages (a hand-off, a resume).
#[derive(Debug, Serialize, ToSchema)]
pub struct ConversationStatusEnvelope {
    pub status: Status,
    pub conversation: ConversationView,
}

/// Rate an assistant message; a second rating replaces the first.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RateMessage {
    /// `up` or `down`.
    #[schema(required = true, example = "up")]
    pub rating: Option<String>,
    /// At most 1,000 characters.
    pub comment: Option<String>,
}

/// The owner's answer to the question before an assistant message.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CorrectAnswer {
    /// 1-4,000 characters, given verbatim.
    #[schema(required = true)]
    pub content: Option<String>,
}

/// Ask for a person; the body may be empty.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct RequestHandoff {
    /// At most 1,000 characters.
    pub reason: Option<String>,
}

fn feedback_of(body: RateMessage) -> Result<Feedback, ApiError> {
    Ok(Feedback::parse(body.rating.as_deref(), body.comment.as_deref(), Timestamp::now())?)
}

fn reason_of(body: RequestHandoff) -> Result<Option<HandoffReason>, ApiError> {
    Ok(HandoffReason::parse(body.reason.as_deref())?)
}

fn not_found(what: &'static str) -> ApiError {
    ApiError::App(AppError::NotFound(what))
}

/// `(conversation, message)` of a path, malformed ids being 404.
fn message_path(conversation: &str, message: &str) -> Result<(ConversationId, MessageId), ApiError> {
    Ok((
        ConversationId::parse(conversation).ok_or(not_found("conversation"))?,
        MessageId::parse(message).ok_or(not_found("message"))?,
    ))
}

fn keyed_view(owner: &SourceOwner, m: &lore_domain::conversation::Message) -> MessageEnvelope {
    MessageEnvelope { status: Status::Success, message: message_view(m, Presentation::keyed(owner)) }
}

// ---- the shared handlers -----------------------------------------------------------------------

async fn rate(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    (conversation, message): (String, String),
    body: RateMessage,
) -> Result<Json<MessageEnvelope>, ApiError> {
    let (conversation, message) = message_path(&conversation, &message)?;
    let feedback = feedback_of(body)?;
    let m = s.app.rate_message(p, &owner, &conversation, &message, feedback).await?;
    Ok(Json(keyed_view(&owner, &m)))
}

async fn correct(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    (conversation, message): (String, String),
    body: CorrectAnswer,
) -> Result<Json<CorrectionEnvelope>, ApiError> {
    let (conversation, message) = message_path(&conversation, &message)?;
    let content = MessageContent::parse("content", body.content.as_deref())?;
    let c = s.app.correct_answer(p, &owner, &conversation, &message, content).await?;
    Ok(Json(CorrectionEnvelope { status: Status::Success, correction: c.into() }))
}

async fn corrections(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    page: Pagination,
) -> Result<Json<CorrectionList>, ApiError> {
    let page = s.app.list_corrections(p, &owner, page.page).await?;
    let pagination = page.info().into();
    Ok(Json(CorrectionList {
        status: Status::Success,
        corrections: page.items.into_iter().map(Into::into).collect(),
        pagination,
    }))
}

async fn handoff(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    id: ConversationId,
    body: RequestHandoff,
) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
    let reason = reason_of(body)?;
    let c = s.app.request_handoff(p, &owner, &id, reason).await?;
    Ok(Json(ConversationStatusEnvelope { status: Status::Success, conversation: c.into() }))
}

async fn resume(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    id: ConversationId,
) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
    let c = s.app.resume_conversation(p, &owner, &id).await?;
    Ok(Json(ConversationStatusEnvelope { status: Status::Success, conversation: c.into() }))
}

async fn public_rate(
    kind: PublicKind,
    s: ApiState,
    (slug, conversation, message): (String, String, String),
    client: Option<std::net::IpAddr>,
    headers: HeaderMap,
    body: Result<JsonBody<RateMessage>, ApiError>,
) -> Result<Json<MessageEnvelope>, ApiError> {
    // The address first: a slug that names nothing published is 404 whatever the body.
    s.app.published(kind, &slug).await?;
    let (conversation, message) = message_path(&conversation, &message)?;
    let JsonBody(body) = body?;
    let feedback = feedback_of(body)?;
    let token = visitor_token(&headers);
    let v = VisitorRequest { kind, slug: &slug, conversation: &conversation, token: token.as_ref(), client };
    let (published, m) = s.app.rate_public_message(v, &message, feedback).await?;
    Ok(Json(MessageEnvelope { status: Status::Success, message: message_view(&m, Presentation::public(&published)) }))
}

async fn public_handoff(
    kind: PublicKind,
    s: ApiState,
    (slug, conversation): (String, String),
    client: Option<std::net::IpAddr>,
    headers: HeaderMap,
    body: Result<OptionalJson<RequestHandoff>, ApiError>,
) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
    s.app.published(kind, &slug).await?;
    let conversation = ConversationId::parse(&conversation).ok_or(not_found("conversation"))?;
    let OptionalJson(body) = body?;
    let reason = reason_of(body)?;
    let token = visitor_token(&headers);
    let v = VisitorRequest { kind, slug: &slug, conversation: &conversation, token: token.as_ref(), client };
    let c = s.app.request_public_handoff(v, reason).await?;
    Ok(Json(ConversationStatusEnvelope { status: Status::Success, conversation: c.into() }))
}

/// A path's owner id, malformed being 404.
fn owner_id<T: ParseId>(raw: &str) -> Result<T, ApiError> {
    T::parse_id(raw).ok_or(not_found(T::WHAT))
}

// ---- the keyed routes of each owner ------------------------------------------------------------

macro_rules! followup_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal,
        feedback: $feedback:literal, correction: $correction:literal, corrections: $corrections:literal,
        correction_item: $correction_item:literal, handoff: $handoff:literal, resume: $resume:literal,
        ops: [$op_rate:literal, $op_correct:literal, $op_list:literal, $op_delete:literal, $op_handoff:literal,
            $op_resume:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new()
                    .routes(api_routes!(rate_message))
                    .routes(api_routes!(correct_answer))
                    .routes(api_routes!(list_corrections))
                    .routes(api_routes!(delete_correction))
                    .routes(api_routes!(request_handoff))
                    .routes(api_routes!(resume_conversation))
            }

            /// Rate an assistant message (`up` or `down`, with an optional comment); a second
            /// rating replaces the first. Emits `message.rated`.
            #[utoipa::path(post, path = $feedback, operation_id = $op_rate, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path),
                    ("messageId" = String, Path)),
                request_body = RateMessage,
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 200, description = "The message with its `feedback`", body = MessageEnvelope),
                    (status = 400, description = "`validation_error` (`rating` up or down, `comment` at most 1,000 \
                        characters), `invalid_operation` (not an assistant message), `invalid_json`", body = ErrorBody),
                ))]
            async fn rate_message(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                Path((owner, conversation, message)): Path<(String, String, String)>,
                JsonBody(body): JsonBody<RateMessage>,
            ) -> Result<Json<MessageEnvelope>, ApiError> {
                let owner = $owner(owner_id::<$id>(&owner)?);
                rate(&s, &auth.principal, owner, (conversation, message), body).await
            }

            /// Correct an assistant message: `content` becomes the answer to the user question
            /// just before it, given verbatim (`generatedBy: "correction"`) to later questions that
            /// mean the same — equal after case and whitespace folding, or as similar as
            /// `correctionThreshold`. A correction of the same question is replaced.
            #[utoipa::path(put, path = $correction, operation_id = $op_correct, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path),
                    ("messageId" = String, Path)),
                request_body = CorrectAnswer,
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 200, body = CorrectionEnvelope),
                    (status = 400, description = "`validation_error` (`content` 1-4,000 characters), \
                        `invalid_operation` (not an assistant message, no question before it, or 500 corrections \
                        already), `invalid_json`", body = ErrorBody),
                ))]
            async fn correct_answer(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                Path((owner, conversation, message)): Path<(String, String, String)>,
                JsonBody(body): JsonBody<CorrectAnswer>,
            ) -> Result<Json<CorrectionEnvelope>, ApiError> {
                let owner = $owner(owner_id::<$id>(&owner)?);
                correct(&s, &auth.principal, owner, (conversation, message), body).await
            }

            /// The corrections, newest first.
            #[utoipa::path(get, path = $corrections, operation_id = $op_list, tag = "conversations",
                params(($param = String, Path, description = $param_doc), PageParams),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = CorrectionList),
                    (status = 400, description = "`validation_error`", body = ErrorBody)))]
            async fn list_corrections(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                p: Pagination,
            ) -> Result<Json<CorrectionList>, ApiError> {
                corrections(&s, &auth.principal, $owner(owner), p).await
            }

            /// Delete a correction: its question is answered as any other again.
            #[utoipa::path(delete, path = $correction_item, operation_id = $op_delete, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("correctionId" = String, Path)),
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = Deleted)))]
            async fn delete_correction(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, CorrectionId>,
            ) -> Result<Json<Deleted>, ApiError> {
                s.app.delete_correction(&auth.principal, &$owner(owner), &id).await?;
                Ok(Json(Deleted::new(id)))
            }

            /// Hand the conversation to a person (`status: "handoff"`): its messages are stored
            /// and answered by nobody until a resume; reply with `POST …/messages`
            /// `{content, role: "agent"}`. Emits `conversation.handoff_requested` (when it was
            /// `open`).
            #[utoipa::path(post, path = $handoff, operation_id = $op_handoff, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path)),
                request_body(content = RequestHandoff, description = "May be empty"),
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = ConversationStatusEnvelope),
                    (status = 400, description = "`validation_error` (`reason` at most 1,000 characters), \
                        `invalid_json`", body = ErrorBody)))]
            async fn request_handoff(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ConversationId>,
                OptionalJson(body): OptionalJson<RequestHandoff>,
            ) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
                handoff(&s, &auth.principal, $owner(owner), id, body).await
            }

            /// Hand the conversation back to the Mind or chatbot (`status: "open"`).
            #[utoipa::path(post, path = $resume, operation_id = $op_resume, tag = "conversations",
                params(($param = String, Path, description = $param_doc), ("conversationId" = String, Path)),
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = ConversationStatusEnvelope)))]
            async fn resume_conversation(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ConversationId>,
            ) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
                resume(&s, &auth.principal, $owner(owner), id).await
            }
        }
    };
}

followup_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)",
    feedback: "/api/v1/minds/{mindId}/conversations/{conversationId}/messages/{messageId}/feedback",
    correction: "/api/v1/minds/{mindId}/conversations/{conversationId}/messages/{messageId}/correction",
    corrections: "/api/v1/minds/{mindId}/corrections",
    correction_item: "/api/v1/minds/{mindId}/corrections/{correctionId}",
    handoff: "/api/v1/minds/{mindId}/conversations/{conversationId}/handoff",
    resume: "/api/v1/minds/{mindId}/conversations/{conversationId}/resume",
    ops: ["rate_mind_message", "correct_mind_message", "list_mind_corrections", "delete_mind_correction",
        "hand_off_mind_conversation", "resume_mind_conversation"]);

followup_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)",
    feedback: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}/messages/{messageId}/feedback",
    correction: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}/messages/{messageId}/correction",
    corrections: "/api/v1/chatbots/{chatbotId}/corrections",
    correction_item: "/api/v1/chatbots/{chatbotId}/corrections/{correctionId}",
    handoff: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}/handoff",
    resume: "/api/v1/chatbots/{chatbotId}/conversations/{conversationId}/resume",
    ops: ["rate_chatbot_message", "correct_chatbot_message", "list_chatbot_corrections",
        "delete_chatbot_correction", "hand_off_chatbot_conversation", "resume_chatbot_conversation"]);

// ---- the visitor routes ------------------------------------------------------------------------

/// Rate an answer of the visitor's conversation with a published Mind (`Authorization: Visitor
/// <token>` of this conversation); a second rating replaces the first. Emits `message.rated`.
#[utoipa::path(post, path = "/m/{slug}/conversations/{conversationId}/messages/{messageId}/feedback",
    tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address"),
        ("conversationId" = String, Path), ("messageId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body = RateMessage,
    responses(
        (status = 200, description = "The message with its `feedback`", body = MessageEnvelope),
        (status = 400, description = "`validation_error`, `invalid_operation` (not an assistant message), \
            `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`: no published Mind here, the token does not open this \
            conversation, or no such message", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn rate_public_mind_message(
    State(s): State<ApiState>,
    Path(path): Path<(String, String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<JsonBody<RateMessage>, ApiError>,
) -> Result<Json<MessageEnvelope>, ApiError> {
    public_rate(PublicKind::Mind, s, path, client, headers, body).await
}

/// Rate an answer of the visitor's conversation with a published chatbot.
#[utoipa::path(post, path = "/c/{slug}/conversations/{conversationId}/messages/{messageId}/feedback",
    tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address"),
        ("conversationId" = String, Path), ("messageId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body = RateMessage,
    responses(
        (status = 200, description = "The message with its `feedback`", body = MessageEnvelope),
        (status = 400, description = "`validation_error`, `invalid_operation`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn rate_public_chatbot_message(
    State(s): State<ApiState>,
    Path(path): Path<(String, String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<JsonBody<RateMessage>, ApiError>,
) -> Result<Json<MessageEnvelope>, ApiError> {
    public_rate(PublicKind::Chatbot, s, path, client, headers, body).await
}

/// The visitor asks for a person (`Authorization: Visitor <token>` of this conversation): the
/// conversation is `handoff` until the owner resumes it; the visitor's messages are stored and
/// answered by nobody, and the owner's `agent` replies appear in the visitor read. Emits
/// `conversation.handoff_requested` (when it was `open`).
#[utoipa::path(post, path = "/m/{slug}/conversations/{conversationId}/handoff", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body(content = RequestHandoff, description = "May be empty"),
    responses(
        (status = 200, body = ConversationStatusEnvelope),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn public_mind_handoff(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<OptionalJson<RequestHandoff>, ApiError>,
) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
    public_handoff(PublicKind::Mind, s, path, client, headers, body).await
}

/// The visitor of a published chatbot asks for a person.
#[utoipa::path(post, path = "/c/{slug}/conversations/{conversationId}/handoff", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address"),
        ("conversationId" = String, Path),
        ("Authorization" = String, Header, description = "`Visitor <visitorToken>` of this conversation")),
    request_body(content = RequestHandoff, description = "May be empty"),
    responses(
        (status = 200, body = ConversationStatusEnvelope),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`", body = ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = ErrorBody),
    ))]
async fn public_chatbot_handoff(
    State(s): State<ApiState>,
    Path(path): Path<(String, String)>,
    Client(client): Client,
    headers: HeaderMap,
    body: Result<OptionalJson<RequestHandoff>, ApiError>,
) -> Result<Json<ConversationStatusEnvelope>, ApiError> {
    public_handoff(PublicKind::Chatbot, s, path, client, headers, body).await
}
