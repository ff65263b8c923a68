//! The `api-chatbots` route group: `/api/v1/chatbots/…` (docs/api.md §5), with the public
//! settings and publication of §18 (the page `/c/{slug}` and its visitor routes are in
//! [`crate::public_chat`] and [`crate::public_page`], shared with Minds).

use crate::api_router::{ApiRouter, api_routes};
use crate::assistant::{AssistantUpdate, AssistantView};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatbotRead, ChatbotWrite, JsonBodies, JsonBody, Pagination, PathId};
use crate::minds::{IdentitySecretEnvelope, PublishMind, optional_json, served_base};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status, flattened_doc};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use lore_domain::chatbot::{Chatbot, ChatbotPatch, NewChatbot, RawChatbotPatch};
use lore_domain::id::ChatbotId;
use lore_domain::mind::Field;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(list_chatbots, create_chatbot))
        .routes(api_routes!(get_chatbot, update_chatbot, delete_chatbot))
        .routes(api_routes!(publish_chatbot))
        .routes(api_routes!(new_chatbot_identity_secret))
}

/// A chatbot: its own fields, then the settings it shares with Minds ([`AssistantView`]), one
/// JSON object.
#[derive(Debug, Serialize)]
pub struct ChatbotView {
    #[serde(flatten)]
    pub chatbot: ChatbotOwnView,
    #[serde(flatten)]
    pub assistant: AssistantView,
}

flattened_doc!(ChatbotView, None, [ChatbotOwnView, AssistantView]);

/// What only a chatbot has. Not a schema of the document: its properties are documented as
/// [`ChatbotView`]'s.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatbotOwnView {
    #[schema(example = "cb_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub name: String,
    pub slug: String,
    pub descriptor: String,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    /// Knowledge sources of this chatbot (exact).
    pub source_count: u64,
    /// Conversations of this chatbot (exact).
    pub conversation_count: u64,
    /// Its page `/c/{slug}` and visitor routes answer while this is true.
    pub is_published: bool,
    /// `<public base>/c/{slug}`: the public page (served while the chatbot is published).
    #[schema(example = "https://lore.example.com/c/support-bot")]
    pub public_url: String,
}

impl ChatbotView {
    /// `base`: where the public pages are ([`public_base`]).
    pub(crate) fn of(c: Chatbot, base: &str) -> Self {
        Self {
            assistant: AssistantView::of(&c.settings),
            chatbot: ChatbotOwnView {
                public_url: format!("{base}/c/{}", c.slug),
                id: c.id.to_string(),
                name: c.name.as_str().to_owned(),
                slug: c.slug.to_string(),
                created_at: c.created_at.to_string(),
                updated_at: c.updated_at.to_string(),
                source_count: c.source_count,
                conversation_count: c.conversation_count,
                is_published: c.is_published,
                descriptor: c.descriptor,
            },
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChatbotList {
    pub status: Status,
    pub chatbots: Vec<ChatbotView>,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChatbotEnvelope {
    pub status: Status,
    pub chatbot: ChatbotView,
}

impl ChatbotEnvelope {
    fn of(c: Chatbot, s: &ApiState, headers: &HeaderMap) -> Self {
        Self { status: Status::Success, chatbot: ChatbotView::of(c, &served_base(s, headers)) }
    }
}

/// Create a chatbot. `name` is required (1–100 characters); `slug` is generated from the name
/// when omitted (`-2`, `-3`… when taken); an explicit taken slug is 409 `slug_taken`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateChatbot {
    #[schema(required = true, max_length = 100)]
    pub name: Option<String>,
    pub slug: Option<String>,
    pub descriptor: Option<String>,
}

/// The body of a chatbot's update, as documented: [`ChatbotUpdate`] and [`AssistantUpdate`].
pub struct UpdateChatbot;

flattened_doc!(
    UpdateChatbot,
    Some(
        "Change any of name, slug, descriptor and the public settings (docs/api.md §18, the rules of\n\
         the Mind settings of the same names); absent members keep their value. `null` clears\n\
         `welcomeMessage`, `theme` and `allowedOrigins`; `theme` merges."
    ),
    [ChatbotUpdate, AssistantUpdate]
);

/// What only a chatbot has, of an update. Not a schema of the document: its properties are
/// documented as [`UpdateChatbot`]'s.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatbotUpdate {
    #[schema(max_length = 100)]
    pub name: Option<String>,
    pub slug: Option<String>,
    pub descriptor: Option<String>,
}

impl ChatbotUpdate {
    pub fn into_raw(self, settings: AssistantUpdate) -> RawChatbotPatch {
        RawChatbotPatch { name: self.name, slug: self.slug, descriptor: self.descriptor, settings: settings.into_raw() }
    }
}

/// List the workspace's chatbots, newest first.
#[utoipa::path(get, path = "/api/v1/chatbots", tag = "chatbots", params(PageParams),
    security(("bearer" = ["chatbot:read"])),
    responses(
        (status = 200, description = "A page of chatbots", body = ChatbotList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),
    ))]
async fn list_chatbots(
    auth: Authed<ChatbotRead>,
    State(s): State<ApiState>,
    headers: HeaderMap,
    p: Pagination,
) -> Result<Json<ChatbotList>, ApiError> {
    let page = s.app.list_chatbots(&auth.principal, p.page).await?;
    let pagination = page.info().into();
    let base = served_base(&s, &headers);
    Ok(Json(ChatbotList {
        status: Status::Success,
        chatbots: page.items.into_iter().map(|c| ChatbotView::of(c, &base)).collect(),
        pagination,
    }))
}

/// Create a chatbot.
#[utoipa::path(post, path = "/api/v1/chatbots", tag = "chatbots", request_body = CreateChatbot,
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 201, description = "Created", body = ChatbotEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken`", body = ErrorBody),
        (status = 413, description = "`payload_too_large`", body = ErrorBody),
    ))]
async fn create_chatbot(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<CreateChatbot>,
) -> Result<(StatusCode, Json<ChatbotEnvelope>), ApiError> {
    let new = NewChatbot::parse(body.name.as_deref(), body.slug.as_deref(), body.descriptor.as_deref())?;
    let chatbot = s.app.create_chatbot(&auth.principal, new).await?;
    Ok((StatusCode::CREATED, Json(ChatbotEnvelope::of(chatbot, &s, &headers))))
}

/// Read one chatbot.
#[utoipa::path(get, path = "/api/v1/chatbots/{chatbotId}", tag = "chatbots",
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:read"])),
    responses(
        (status = 200, description = "The chatbot", body = ChatbotEnvelope),
        (status = 404, description = "`not_found` (also for another workspace's chatbot)", body = ErrorBody),
    ))]
async fn get_chatbot(
    auth: Authed<ChatbotRead>,
    State(s): State<ApiState>,
    headers: HeaderMap,
    PathId(id): PathId<ChatbotId>,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    Ok(Json(ChatbotEnvelope::of(s.app.get_chatbot(&auth.principal, &id).await?, &s, &headers)))
}

/// Change a chatbot's name, slug, descriptor or public settings.
#[utoipa::path(patch, path = "/api/v1/chatbots/{chatbotId}", tag = "chatbots", request_body = UpdateChatbot,
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 200, description = "The updated chatbot", body = ChatbotEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken` (in the workspace, or, while published, the public address of \
            another published chatbot)", body = ErrorBody),
    ))]
async fn update_chatbot(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    headers: HeaderMap,
    PathId(id): PathId<ChatbotId>,
    JsonBodies(own, settings): JsonBodies<ChatbotUpdate, AssistantUpdate>,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    let patch = ChatbotPatch::parse(&own.into_raw(settings))?;
    Ok(Json(ChatbotEnvelope::of(s.app.update_chatbot(&auth.principal, &id, patch).await?, &s, &headers)))
}

/// Publish (or, with `isPublished: false`, unpublish) a chatbot: its page `publicUrl` =
/// `<public base>/c/{slug}` and its visitor routes answer without a key while it is published.
/// A published slug is a public address: publishing a chatbot whose slug another published
/// chatbot (of any workspace) has is 409 `slug_taken`.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/publish", tag = "chatbots",
    request_body(content = PublishMind, description = "Optional; an empty body publishes"),
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 200, description = "The chatbot, with `isPublished` and `publicUrl`", body = ChatbotEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken`: another published chatbot has this slug", body = ErrorBody),
    ))]
async fn publish_chatbot(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<ChatbotId>,
    req: Request,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    let headers = req.headers().clone();
    let body = optional_json::<PublishMind>(req, &s).await?;
    let publish = match body.is_published {
        Field::Absent => true,
        Field::Value(b) => b,
        Field::Null => return Err(lore_domain::DomainError::field("isPublished", "must be true or false").into()),
    };
    let chatbot = s.app.publish_chatbot(&auth.principal, &id, publish).await?;
    Ok(Json(ChatbotEnvelope::of(chatbot, &s, &headers)))
}

/// Create (or replace) the chatbot's identity secret. With `identityVerification: true`, a
/// visitor's conversation must carry `visitor.userId` and `visitor.userHash` signed with it.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/identity-secret", tag = "chatbots",
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 201, description = "The new secret, shown once", body = IdentitySecretEnvelope),
    ))]
async fn new_chatbot_identity_secret(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<ChatbotId>,
) -> Result<(StatusCode, Json<IdentitySecretEnvelope>), ApiError> {
    let secret = s.app.new_chatbot_identity_secret(&auth.principal, &id).await?;
    Ok((
        StatusCode::CREATED,
        Json(IdentitySecretEnvelope { status: Status::Success, identity_secret: secret.expose().to_owned() }),
    ))
}

/// Delete a chatbot with its sources, chunks and files.
#[utoipa::path(delete, path = "/api/v1/chatbots/{chatbotId}", tag = "chatbots",
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
    ))]
async fn delete_chatbot(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<ChatbotId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_chatbot(&auth.principal, &id).await?;
    Ok(Json(Deleted::new(id)))
}
