//! The `api-chatbots` route group: `/api/v1/chatbots/…` (docs/api.md §5).

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatbotRead, ChatbotWrite, JsonBody, Pagination, PathId};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_domain::chatbot::{Chatbot, ChatbotPatch, NewChatbot};
use lore_domain::id::ChatbotId;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(list_chatbots, create_chatbot)).routes(api_routes!(
        get_chatbot,
        update_chatbot,
        delete_chatbot
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChatbotView {
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
    /// Conversations of this chatbot (exact; 0 until chat exists).
    pub conversation_count: u64,
}

impl From<Chatbot> for ChatbotView {
    fn from(c: Chatbot) -> Self {
        Self {
            id: c.id.to_string(),
            name: c.name.as_str().to_owned(),
            slug: c.slug.to_string(),
            descriptor: c.descriptor,
            created_at: c.created_at.to_string(),
            updated_at: c.updated_at.to_string(),
            source_count: c.source_count,
            conversation_count: c.conversation_count,
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

impl From<Chatbot> for ChatbotEnvelope {
    fn from(c: Chatbot) -> Self {
        Self { status: Status::Success, chatbot: c.into() }
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

/// Change any of name, slug, descriptor; absent fields keep their value.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateChatbot {
    #[schema(max_length = 100)]
    pub name: Option<String>,
    pub slug: Option<String>,
    pub descriptor: Option<String>,
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
    p: Pagination,
) -> Result<Json<ChatbotList>, ApiError> {
    let page = s.app.list_chatbots(&auth.principal, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(ChatbotList {
        status: Status::Success,
        chatbots: page.items.into_iter().map(Into::into).collect(),
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
    JsonBody(body): JsonBody<CreateChatbot>,
) -> Result<(StatusCode, Json<ChatbotEnvelope>), ApiError> {
    let new = NewChatbot::parse(body.name.as_deref(), body.slug.as_deref(), body.descriptor.as_deref())?;
    let chatbot = s.app.create_chatbot(&auth.principal, new).await?;
    Ok((StatusCode::CREATED, Json(chatbot.into())))
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
    PathId(id): PathId<ChatbotId>,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    Ok(Json(s.app.get_chatbot(&auth.principal, &id).await?.into()))
}

/// Change a chatbot's name, slug or descriptor.
#[utoipa::path(patch, path = "/api/v1/chatbots/{chatbotId}", tag = "chatbots", request_body = UpdateChatbot,
    params(("chatbotId" = String, Path, description = "Chatbot id (`cb_…`)")),
    security(("bearer" = ["chatbot:write"])),
    responses(
        (status = 200, description = "The updated chatbot", body = ChatbotEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken`", body = ErrorBody),
    ))]
async fn update_chatbot(
    auth: Authed<ChatbotWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<ChatbotId>,
    JsonBody(body): JsonBody<UpdateChatbot>,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    let patch = ChatbotPatch::parse(body.name.as_deref(), body.slug.as_deref(), body.descriptor.as_deref())?;
    Ok(Json(s.app.update_chatbot(&auth.principal, &id, patch).await?.into()))
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
