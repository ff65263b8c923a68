//! A Mind's knowledge sources and its search: `/api/v1/minds/{mindId}/knowledge/…`
//! (docs/api.md §7, §9). The records are the chatbot sources'
//! ([`SourceRecord`]) in the Mind vocabulary: `document`/`podcast` types, `failed` status.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, MindsRead, MindsWrite, Pagination, PathId, PathIds};
use crate::search::{SearchBody, SearchResponse, parse};
use crate::sources::{CreateSource, SourceRecord, UpdateSource, batch_answer, batch_ids, batch_items, batch_sources};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lore_app::ports::SourceFilter;
use lore_app::search::TypeNames;
use lore_app::sources::NewSource;
use lore_domain::DomainError;
use lore_domain::id::{MindId, SourceId};
use lore_domain::source::{KnowledgeSource, SourceStatus, SourceVocabulary};
use serde::{Deserialize, Serialize};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{PartialSchema, ToSchema};

/// Seconds a client should wait before polling a source that is still being processed.
const POLL_AFTER_SECS: &str = "5";

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(list_mind_sources, create_mind_source))
        .routes(api_routes!(get_mind_source, update_mind_source, delete_mind_source))
        .routes(api_routes!(reprocess_mind_source))
        .routes(api_routes!(create_mind_sources))
        .routes(api_routes!(reprocess_mind_sources))
        .routes(api_routes!(search_mind))
}

/// A Mind knowledge source. Type-specific members appear for their type only: `content` (text,
/// detail only), `url`/`crawlDepth`/`pagesCrawled`/`lastRefreshedAt` (url), `fileName`/`mimeType`/
/// `fileUrl` (document, podcast).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindSourceView {
    pub id: String,
    pub mind_id: String,
    #[serde(flatten)]
    pub record: SourceRecord,
}

impl MindSourceView {
    fn new(s: KnowledgeSource, detail: bool) -> Self {
        MindSourceView { id: s.id.to_string(), mind_id: s.owner.to_string(), record: SourceRecord::new(s, detail) }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MindSourceEnvelope {
    pub status: Status,
    pub source: MindSourceView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MindSourceList {
    pub status: Status,
    pub sources: Vec<MindSourceView>,
    pub pagination: PaginationView,
}

/// The body of `POST …/knowledge`, as documented: a chatbot source's body ([`CreateSource`]) in
/// the Mind vocabulary (its types and files). The route reads a `CreateSource`.
pub struct CreateMindSource;

impl PartialSchema for CreateMindSource {
    fn schema() -> RefOr<Schema> {
        let RefOr::T(Schema::Object(mut body)) = CreateSource::schema() else {
            unreachable!("a struct with named fields is an object schema")
        };
        body.description = Some("Add a knowledge source to a Mind; processing starts at once.".to_owned());
        for (member, description) in [
            ("type", "`text`, `url`, `document` or `podcast`."),
            (
                "fileUrl",
                "Document sources: the `fileUrl` of an uploaded PDF, DOCX, TXT or MD file (≤ 50 MB).\n\
                 Podcast sources: the `fileUrl` of an uploaded MP3, WAV, M4A or OGG file. Uploads of this\n\
                 workspace only.",
            ),
            ("metadata", "Tags to filter searches by (as on chatbot sources)."),
        ] {
            if let Some(RefOr::T(Schema::Object(m))) = body.properties.get_mut(member) {
                m.description = Some(description.to_owned());
            }
        }
        RefOr::T(Schema::Object(body))
    }
}

impl ToSchema for CreateMindSource {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        CreateSource::schemas(schemas);
    }
}

/// A create body's source, in the Mind vocabulary.
fn new_mind_source(body: CreateSource) -> Result<NewSource, DomainError> {
    NewSource::parse(SourceVocabulary::Mind, body.input())
}

/// A source's detail, with the languages of its chunks (docs/api.md §20): every answer about
/// one source has the same shape.
async fn envelope(app: &lore_app::App, s: KnowledgeSource) -> Result<Json<MindSourceEnvelope>, ApiError> {
    // A source without chunks (just created, or emptied) has no languages: no index read.
    let languages = if s.chunk_count == 0 { Vec::new() } else { app.source_languages(&s.id).await? };
    let mut detail = MindSourceEnvelope { status: Status::Success, source: MindSourceView::new(s, true) };
    detail.source.record.languages = Some(languages.iter().map(|l| l.code()).collect());
    Ok(Json(detail))
}

/// List a Mind's knowledge sources, newest first, optionally by `status`.
#[utoipa::path(get, path = "/api/v1/minds/{mindId}/knowledge", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), PageParams,
        ("status" = Option<String>, Query, description = "`pending`, `processing`, `transcribing`, `ready` or `failed`")),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, body = MindSourceList),
        (status = 400, description = "`validation_error`", body = ErrorBody),
    ))]
async fn list_mind_sources(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathId(mind): PathId<MindId>,
    p: Pagination,
) -> Result<Json<MindSourceList>, ApiError> {
    let status = match p.param("status") {
        None => None,
        Some(v) => Some(SourceStatus::parse_mind(v).ok_or_else(|| {
            DomainError::field("status", "must be one of pending, processing, transcribing, ready, failed")
        })?),
    };
    let filter = SourceFilter { status, source_type: None };
    let page = s.app.list_mind_sources(&auth.principal, &mind, filter, p.page).await?;
    let pagination = page.info().into();
    let sources = page.items.into_iter().map(|x| MindSourceView::new(x, false)).collect();
    Ok(Json(MindSourceList { status: Status::Success, sources, pagination }))
}

/// Add a knowledge source: `text` (`content`), `url` (`url`, `crawlDepth`), `document`
/// (`fileUrl` of an uploaded document) or `podcast` (`fileUrl` of uploaded audio, transcribed
/// first). Processing is queued at once: the answer shows the source in `processing`.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body = CreateMindSource,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, body = MindSourceEnvelope),
        (status = 400, description = "`missing_content`, `content_too_large`, `missing_url`, `invalid_url`, `url_blocked`, \
            `missing_file`, `unsupported_file_type`, `file_too_large`, `invalid_json`, `validation_error`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope`, `sources_limit_reached` or `storage_limit`", body = ErrorBody),
        (status = 404, description = "`not_found`: the Mind, or a `fileUrl` that is not this workspace's", body = ErrorBody),
        (status = 413, description = "`payload_too_large`", body = ErrorBody),
    ))]
async fn create_mind_source(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(mind): PathId<MindId>,
    JsonBody(body): JsonBody<CreateSource>,
) -> Result<(StatusCode, Json<MindSourceEnvelope>), ApiError> {
    let source = s.app.create_mind_source(&auth.principal, &mind, new_mind_source(body)?).await?;
    Ok((StatusCode::CREATED, envelope(&s.app, source).await?))
}

/// Read a source with its status and progress. While it is `processing` or `transcribing` the
/// answer carries `Retry-After: 5`: poll again then.
#[utoipa::path(get, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path)),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, body = MindSourceEnvelope,
            headers(("Retry-After" = u32, description = "`5` while the source is processing or transcribing"))),
    ))]
async fn get_mind_source(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathIds(mind, id): PathIds<MindId, SourceId>,
) -> Result<Response, ApiError> {
    let source = s.app.get_mind_source(&auth.principal, &mind, &id).await?;
    let running = source.status.is_running();
    let mut response = envelope(&s.app, source).await?.into_response();
    if running {
        response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(POLL_AFTER_SECS));
    }
    Ok(response)
}

/// Change a source: `metadata` on every source; `name` and `content` on text sources only (other
/// types: `invalid_operation`; a content change sends the source back to `pending`). 409 while it
/// is processing or transcribing.
#[utoipa::path(patch, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path)),
    request_body = UpdateSource,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, body = MindSourceEnvelope),
        (status = 400, description = "`invalid_operation`, `missing_content`, `content_too_large`, `validation_error`", body = ErrorBody),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody),
    ))]
async fn update_mind_source(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathIds(mind, id): PathIds<MindId, SourceId>,
    JsonBody(body): JsonBody<UpdateSource>,
) -> Result<Json<MindSourceEnvelope>, ApiError> {
    envelope(&s.app, s.app.update_mind_source(&auth.principal, &mind, &id, body.change()?).await?).await
}

/// Delete a source with its chunks and its file; 409 while it is processing or transcribing.
#[utoipa::path(delete, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path)),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, body = Deleted),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody),
    ))]
async fn delete_mind_source(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathIds(mind, id): PathIds<MindId, SourceId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_mind_source(&auth.principal, &mind, &id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Process a source again (from `pending`, `ready` or `failed`); 202 at once. 409
/// `processing_in_progress` while it is processing or transcribing.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/{sourceId}/reprocess", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)"), ("sourceId" = String, Path)),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 202, body = MindSourceEnvelope),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody),
    ))]
async fn reprocess_mind_source(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathIds(mind, id): PathIds<MindId, SourceId>,
) -> Result<(StatusCode, Json<MindSourceEnvelope>), ApiError> {
    let source = s.app.reprocess_mind_source(&auth.principal, &mind, &id).await?;
    Ok((StatusCode::ACCEPTED, envelope(&s.app, source).await?))
}

/// Search a Mind's ready knowledge sources (as the chatbot search; `types` in the Mind
/// vocabulary: `text`, `url`, `document`, `podcast`).
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/search", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")), request_body = SearchBody,
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, body = SearchResponse),
        (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody),
    ))]
async fn search_mind(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathId(mind): PathId<MindId>,
    JsonBody(body): JsonBody<SearchBody>,
) -> Result<Json<SearchResponse>, ApiError> {
    let req = parse(body, TypeNames::Mind)?;
    Ok(Json(SearchResponse::new(s.app.search_mind(&auth.principal, &mind, req).await?, TypeNames::Mind)))
}

batch_answer!(MindBatchResult, MindBatchEnvelope, MindSourceView, new);

/// Up to 100 sources to add to a Mind in one request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMindSources {
    /// 1-100 sources, each exactly as `POST …/knowledge` takes it.
    #[schema(required = true, value_type = Vec<CreateMindSource>)]
    pub sources: Option<Vec<serde_json::Value>>,
}

/// Up to 100 of a Mind's sources to process again in one request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReprocessMindSources {
    /// 1-100 source ids of this Mind.
    #[schema(required = true)]
    pub source_ids: Option<Vec<String>>,
}

/// Add up to 100 sources in one request (one request against the key's rate limit), each on its
/// own and each queued for processing at once, as `POST …/knowledge` does: every item gets its
/// own result — the source, or the error the single create would have answered — and a refused
/// item does not stop the others. The whole body is at most 2 MB.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/batch", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body = CreateMindSources,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "Every item's result (check `failed`)", body = MindBatchEnvelope),
        (status = 400, description = "`validation_error` (`sources`: 1-100 items) or `invalid_json`", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: over 2 MB", body = ErrorBody),
    ))]
async fn create_mind_sources(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(mind): PathId<MindId>,
    JsonBody(body): JsonBody<CreateMindSources>,
) -> Result<Json<MindBatchEnvelope>, ApiError> {
    let items = batch_sources(body.sources, new_mind_source)?;
    let done = s.app.create_mind_sources(&auth.principal, &mind, items).await?;
    Ok(Json(batch_items(done, "queued")))
}

/// Process up to 100 of the Mind's sources again in one request, each on its own (as
/// `POST …/knowledge/{sourceId}/reprocess`, whose error each refused item carries).
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/batch/reprocess", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body = ReprocessMindSources,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "Every item's result (check `failed`)", body = MindBatchEnvelope),
        (status = 400, description = "`validation_error` (`sourceIds`: 1-100 ids) or `invalid_json`", body = ErrorBody),
    ))]
async fn reprocess_mind_sources(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(mind): PathId<MindId>,
    JsonBody(body): JsonBody<ReprocessMindSources>,
) -> Result<Json<MindBatchEnvelope>, ApiError> {
    let ids = batch_ids(body.source_ids)?;
    let done = s.app.reprocess_mind_sources(&auth.principal, &mind, &ids).await?;
    Ok(Json(batch_items(done, "queued")))
}
