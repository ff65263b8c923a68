//! The `api-chatbots` route group: `/api/v1/chatbots/…` (docs/api.md §5), with the public
//! settings and publication of §18 (the page `/c/{slug}` and its visitor routes are in
//! [`crate::public_chat`] and [`crate::public_page`], shared with Minds).

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatbotRead, ChatbotWrite, JsonBody, Pagination, PathId};
use crate::minds::{
    IdentitySecretEnvelope, PublishMind, ThemeInput, ThemeView, optional_json, origins, public_base, theme_view,
};
use crate::search::SearchFilter;
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use lore_domain::chatbot::{Chatbot, ChatbotPatch, NewChatbot, RawChatbotPatch};
use lore_domain::id::ChatbotId;
use lore_domain::metadata::Filter;
use lore_domain::mind::Field;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(list_chatbots, create_chatbot))
        .routes(api_routes!(get_chatbot, update_chatbot, delete_chatbot))
        .routes(api_routes!(publish_chatbot))
        .routes(api_routes!(new_chatbot_identity_secret))
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
    /// Conversations of this chatbot (exact).
    pub conversation_count: u64,
    /// Its page `/c/{slug}` and visitor routes answer while this is true.
    pub is_published: bool,
    /// `<public base>/c/{slug}`: the public page (served while the chatbot is published).
    #[schema(example = "https://lore.example.com/c/support-bot")]
    pub public_url: String,
    /// The first message of every conversation.
    pub welcome_message: Option<String>,
    pub suggested_questions: Vec<String>,
    /// Visitors see the passages answers cite.
    pub show_sources: bool,
    /// Visitors give their e-mail address before chatting (`chatbot.lead.captured`).
    pub collect_email_before_chat: bool,
    pub theme: Option<ThemeView>,
    /// Origins whose pages may embed the page and call its visitor routes.
    #[schema(example = json!(["https://www.example.com"]))]
    pub allowed_origins: Vec<String>,
    /// Visitors must carry a user id signed with the identity secret.
    pub identity_verification: bool,
    /// A question at least this similar to a corrected one is answered with the correction.
    #[schema(example = 0.9)]
    pub correction_threshold: f64,
    /// The page shows a "talk to a person" control.
    pub handoff_enabled: bool,
    /// The metadata filter every answer's search applies (docs/api.md §7); null: all sources.
    #[schema(value_type = Option<SearchFilter>)]
    pub knowledge_filter: Option<Filter>,
    /// `"auto"` (answers in each visitor's language, the page in the browser's) or the code of
    /// one supported language (`GET /api/v1/languages`).
    #[schema(example = "auto")]
    pub language: String,
}

impl ChatbotView {
    /// `base`: where the public pages are ([`public_base`]).
    pub(crate) fn of(c: Chatbot, base: &str) -> Self {
        Self {
            public_url: format!("{base}/c/{}", c.slug),
            id: c.id.to_string(),
            name: c.name.as_str().to_owned(),
            slug: c.slug.to_string(),
            created_at: c.created_at.to_string(),
            updated_at: c.updated_at.to_string(),
            source_count: c.source_count,
            conversation_count: c.conversation_count,
            is_published: c.is_published,
            welcome_message: c.welcome_message.as_ref().map(|w| w.as_str().to_owned()),
            suggested_questions: c.suggested_questions.as_slice().to_vec(),
            show_sources: c.show_sources,
            collect_email_before_chat: c.collect_email_before_chat,
            theme: theme_view(&c.theme),
            allowed_origins: origins(&c.embed),
            identity_verification: c.embed.identity_verification,
            correction_threshold: c.reply.correction_threshold.value(),
            handoff_enabled: c.reply.handoff_enabled,
            language: c.reply.language.as_str().to_owned(),
            knowledge_filter: c.reply.knowledge_filter,
            descriptor: c.descriptor,
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
        Self { status: Status::Success, chatbot: ChatbotView::of(c, &base(s, headers)) }
    }
}

fn base(s: &ApiState, headers: &HeaderMap) -> String {
    public_base(s.app.config().public_base_url.as_deref(), headers)
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

/// Change any of name, slug, descriptor and the public settings (docs/api.md §18, the rules of
/// the Mind settings of the same names); absent members keep their value. `null` clears
/// `welcomeMessage`, `theme` and `allowedOrigins`; `theme` merges.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateChatbot {
    #[schema(max_length = 100)]
    pub name: Option<String>,
    pub slug: Option<String>,
    pub descriptor: Option<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 2000)]
    #[serde(default)]
    pub welcome_message: Field<String>,
    /// Up to 4 questions, each 1–300 characters.
    #[schema(value_type = Option<Vec<String>>, max_items = 4)]
    #[serde(default)]
    pub suggested_questions: Field<Vec<String>>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub show_sources: Field<bool>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub collect_email_before_chat: Field<bool>,
    #[schema(value_type = Option<ThemeInput>, nullable)]
    #[serde(default)]
    pub theme: Field<BTreeMap<String, Option<String>>>,
    /// Up to 20 origins `scheme://host[:port]` (https; http only for localhost and 127.0.0.1).
    #[schema(value_type = Option<Vec<String>>, max_items = 20, nullable, example = json!(["https://www.example.com"]))]
    #[serde(default)]
    pub allowed_origins: Field<Vec<String>>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub identity_verification: Field<bool>,
    /// How similar a question must be to a corrected one (cosine of the embeddings, 0.5-1) to be
    /// answered with the correction (docs/api.md §19).
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1.0, example = 0.9)]
    #[serde(default)]
    pub correction_threshold: Field<f64>,
    /// Show a "talk to a person" control on the page (the hand-off route works either way).
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub handoff_enabled: Field<bool>,
    /// Answer only from sources whose metadata passes this filter (docs/api.md §7); `null`
    /// removes it.
    #[schema(value_type = Option<SearchFilter>, nullable)]
    #[serde(default)]
    pub knowledge_filter: Field<serde_json::Value>,
    /// `"auto"` or a supported language code (`GET /api/v1/languages`).
    #[schema(value_type = Option<String>, example = "fr")]
    #[serde(default)]
    pub language: Field<String>,
}

impl UpdateChatbot {
    pub fn into_raw(self) -> RawChatbotPatch {
        RawChatbotPatch {
            name: self.name,
            slug: self.slug,
            descriptor: self.descriptor,
            welcome_message: self.welcome_message,
            suggested_questions: self.suggested_questions,
            show_sources: self.show_sources,
            collect_email_before_chat: self.collect_email_before_chat,
            theme: self.theme,
            allowed_origins: self.allowed_origins,
            identity_verification: self.identity_verification,
            correction_threshold: self.correction_threshold,
            handoff_enabled: self.handoff_enabled,
            knowledge_filter: self.knowledge_filter,
            language: self.language,
        }
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
    let base = base(&s, &headers);
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
    JsonBody(body): JsonBody<UpdateChatbot>,
) -> Result<Json<ChatbotEnvelope>, ApiError> {
    let patch = ChatbotPatch::parse(&body.into_raw())?;
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
