//! A source's chunks, to read and to change: `…/sources/{sourceId}/chunks` of a chatbot and
//! `…/knowledge/{sourceId}/chunks` of a Mind (docs/api.md §6, "Chunks"; §9). Each owner's routes
//! take the scopes of its other source routes.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, KnowledgeRead, KnowledgeWrite, MindsRead, MindsWrite, Pagination};
use crate::extract::{ParseId, PathIds};
use crate::state::ApiState;
use crate::views::{PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use lore_app::AppError;
use lore_app::auth::Principal;
use lore_app::chunks::ChunkDetail;
use lore_domain::chunk::ChunkEdit;
use lore_domain::id::{ChatbotId, MindId, SourceId};
use lore_domain::pagination::PageRequest;
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub fn chatbot_router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(list_chatbot_chunks)).routes(api_routes!(update_chatbot_chunk))
}

pub fn mind_router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(list_mind_chunks)).routes(api_routes!(update_mind_chunk))
}

/// A chunk of a source: a piece of its text as search finds it and answers cite it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChunkView {
    /// The `chunkId` of search results and citations.
    pub id: String,
    /// 0-based place in the source's text.
    pub position: u32,
    pub text: String,
    /// The text's tokens as chunks are measured: the embedding model's own tokens when it counts
    /// them (all-MiniLM-L6-v2), else characters / 4.
    pub tokens: u64,
    /// The Markdown headings the chunk opens with, outermost first, without their `#` marks;
    /// `[]` when it opens with anything else.
    pub heading_path: Vec<String>,
    /// `false`: no search finds it and no answer cites it.
    pub enabled: bool,
    /// Its text was changed through this API.
    pub edited: bool,
    /// The crawled page it came from; `null` for other sources.
    pub url: Option<String>,
    /// The language it is written in (ISO 639-1); `null` when too short to tell.
    #[schema(example = "en")]
    pub language: Option<&'static str>,
}

impl From<ChunkDetail> for ChunkView {
    fn from(d: ChunkDetail) -> Self {
        ChunkView {
            id: d.chunk.id,
            position: d.chunk.position,
            text: d.chunk.content,
            tokens: d.tokens as u64,
            heading_path: d.heading_path,
            enabled: d.chunk.enabled,
            edited: d.chunk.edited,
            url: d.chunk.url,
            language: d.chunk.language.map(|l| l.code()),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChunkList {
    pub status: Status,
    pub chunks: Vec<ChunkView>,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ChunkEnvelope {
    pub status: Status,
    pub chunk: ChunkView,
}

/// Change a chunk: its text (embedded again at once), whether it is used, or both.
#[derive(Debug, Deserialize, ToSchema)]
pub struct UpdateChunk {
    /// The new text: not blank, at most 8,000 characters.
    pub text: Option<String>,
    /// `false` leaves the chunk out of every search and answer; `true` puts it back.
    pub enabled: Option<bool>,
}

async fn list(s: &ApiState, p: &Principal, owner: SourceOwner, source: SourceId, page: PageRequest) -> ListAnswer {
    let page = s.app.list_chunks(p, &owner, &source, page).await?;
    let pagination = page.info().into();
    let chunks = page.items.into_iter().map(ChunkView::from).collect();
    Ok(Json(ChunkList { status: Status::Success, chunks, pagination }))
}

type ListAnswer = Result<Json<ChunkList>, ApiError>;

/// The owner, source and chunk a chunk's path names. An owner or source id that cannot be one
/// is 404, before the body is read, as on the other source routes; a chunk id is any text (the
/// index knows its chunks).
struct ChunkPath<O>(O, SourceId, String);

impl<S: Send + Sync, O: ParseId> FromRequestParts<S> for ChunkPath<O> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let not_found = |what| ApiError::App(AppError::NotFound(what));
        let Path((owner, source, chunk)) =
            Path::<(String, String, String)>::from_request_parts(parts, state).await.map_err(|_| not_found(O::WHAT))?;
        let owner = O::parse_id(&owner).ok_or(not_found(O::WHAT))?;
        let source = SourceId::parse(&source).ok_or(not_found("source"))?;
        Ok(ChunkPath(owner, source, chunk))
    }
}

async fn update(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    source: SourceId,
    chunk: &str,
    body: UpdateChunk,
) -> Answer {
    let edit = ChunkEdit::parse(body.text.as_deref(), body.enabled)?;
    let chunk = s.app.edit_chunk(p, &owner, &source, chunk, edit).await?;
    Ok(Json(ChunkEnvelope { status: Status::Success, chunk: chunk.into() }))
}

type Answer = Result<Json<ChunkEnvelope>, ApiError>;

/// List a source's chunks in order (`position` ascending), disabled ones included.
#[utoipa::path(get, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/chunks", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path), PageParams),
    security(("bearer" = ["knowledge:read"])),
    responses(
        (status = 200, body = ChunkList),
        (status = 400, description = "`validation_error`", body = ErrorBody),
    ))]
async fn list_chatbot_chunks(
    auth: Authed<KnowledgeRead>,
    State(s): State<ApiState>,
    PathIds(chatbot, source): PathIds<ChatbotId, SourceId>,
    p: Pagination,
) -> ListAnswer {
    list(&s, &auth.principal, SourceOwner::Chatbot(chatbot), source, p.page).await
}

/// Change a chunk's text (embedded again at once; search finds the new words, not the old) or
/// leave it out of search and answers (`enabled: false`). Kept when the source is processed
/// again with unchanged content; dropped when its content changed.
#[utoipa::path(patch, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/chunks/{chunkId}", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path), ("chunkId" = String, Path)),
    request_body = UpdateChunk,
    security(("bearer" = ["knowledge:write"])),
    responses(
        (status = 200, body = ChunkEnvelope),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`: the chatbot, the source, or a chunk of it", body = ErrorBody),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody),
        (status = 502, description = "`generation_failed`: the embedding model failed; nothing changed", body = ErrorBody),
    ))]
async fn update_chatbot_chunk(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    ChunkPath(chatbot, source, chunk): ChunkPath<ChatbotId>,
    JsonBody(body): JsonBody<UpdateChunk>,
) -> Answer {
    update(&s, &auth.principal, SourceOwner::Chatbot(chatbot), source, &chunk, body).await
}

/// List a Mind source's chunks in order (`position` ascending), disabled ones included.
#[utoipa::path(get, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}/chunks", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path), PageParams),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, body = ChunkList),
        (status = 400, description = "`validation_error`", body = ErrorBody),
    ))]
async fn list_mind_chunks(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathIds(mind, source): PathIds<MindId, SourceId>,
    p: Pagination,
) -> ListAnswer {
    list(&s, &auth.principal, SourceOwner::Mind(mind), source, p.page).await
}

/// Change a Mind source's chunk, as for a chatbot's: new text (embedded again at once), or
/// `enabled: false` to leave it out of search and answers.
#[utoipa::path(patch, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}/chunks/{chunkId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path),
        ("chunkId" = String, Path)),
    request_body = UpdateChunk,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, body = ChunkEnvelope),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
        (status = 404, description = "`not_found`: the Mind, the source, or a chunk of it", body = ErrorBody),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody),
        (status = 502, description = "`generation_failed`: the embedding model failed; nothing changed", body = ErrorBody),
    ))]
async fn update_mind_chunk(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    ChunkPath(mind, source, chunk): ChunkPath<MindId>,
    JsonBody(body): JsonBody<UpdateChunk>,
) -> Answer {
    update(&s, &auth.principal, SourceOwner::Mind(mind), source, &chunk, body).await
}
