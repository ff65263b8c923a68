//! Chatbot knowledge sources and uploads: `/api/v1/chatbots/{chatbotId}/sources/…`,
//! `/knowledge/stats`, `/uploads`, `/upload-url` (docs/api.md §6, §10).

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, KnowledgeRead, KnowledgeWrite, Pagination, PathId, PathIds};
use crate::search::MetadataValue;
use crate::state::ApiState;
use crate::upload::{BodyLimit, FileBodyLimit, FileUpload, JsonOrUpload};
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_app::files::{DeclaredFile, DirectUpload, Upload, UploadOwner, UploadRules};
use lore_app::ports::{SourceFilter, SourceStats};
use lore_app::sources::{NewSource, SourceChange};
use lore_domain::DomainError;
use lore_domain::id::{ChatbotId, SourceId};
use lore_domain::metadata::Metadata;
use lore_domain::mind::Field;
use lore_domain::source::{
    KnowledgeSource, Progress, RefreshInterval, SourceInput, SourceName, SourceSpec, SourceStatus, SourceType,
    SourceVocabulary,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    let files = ApiRouter::new()
        .routes(api_routes!(list_sources, create_source))
        .routes(api_routes!(upload_file))
        .body_limit(FileBodyLimit::BYTES);
    ApiRouter::new()
        .routes(api_routes!(get_source, update_source, delete_source))
        .routes(api_routes!(process_source))
        .routes(api_routes!(refresh_source))
        .routes(api_routes!(knowledge_stats))
        .routes(api_routes!(upload_url))
        .routes(api_routes!(create_sources))
        .routes(api_routes!(process_sources))
        .merge(files)
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ProgressView {
    /// `queued`, `crawling`, `extracting`, `transcribing`, `chunking`, `embedding` or `indexing`.
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

impl From<Progress> for ProgressView {
    fn from(p: Progress) -> Self {
        Self { stage: p.stage, done: p.done, total: p.total }
    }
}

/// A knowledge source (docs/api.md §6). Type-specific members appear for their type only.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceView {
    pub id: String,
    pub chatbot_id: String,
    #[serde(flatten)]
    pub record: SourceRecord,
}

/// The members of a source both owners' records share, in the owner's vocabulary.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceRecord {
    /// Chatbots: `text`, `url` or `file`. Minds: `text`, `url`, `document` or `podcast`.
    #[serde(rename = "type")]
    pub source_type: String,
    pub name: String,
    /// Chatbots: `pending`, `processing`, `ready` or `error`. Minds: `pending`, `processing`,
    /// `transcribing`, `ready` or `failed`.
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
    pub processed_at: Option<String>,
    pub chunk_count: u64,
    pub size_bytes: u64,
    pub error: Option<String>,
    pub content_hash: Option<String>,
    pub progress: Option<ProgressView>,
    /// The owner's tags (`{}` when none), which search filters read.
    #[schema(value_type = BTreeMap<String, MetadataValue>)]
    pub metadata: Metadata,
    /// Text sources, detail only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl_depth: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_crawled: Option<u32>,
    /// Url sources: `null` until the first refresh.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_refreshed_at: Option<Option<String>>,
    /// Url sources: hours between scheduled refreshes; `null` when refreshed only on request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval_hours: Option<Option<u32>>,
    /// Url sources: when the next scheduled refresh is due (it starts within a minute of it);
    /// `null` without a schedule, or while the source is pending or processing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_refresh_at: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_url: Option<String>,
    /// Detail only (GET): the languages of its chunks (ISO 639-1), most chunks first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = json!(["en", "fr"]))]
    pub languages: Option<Vec<&'static str>>,
}

impl SourceRecord {
    /// The record of `s`, named in its owner's vocabulary; text content in the detail only.
    pub(crate) fn new(s: KnowledgeSource, detail: bool) -> Self {
        let next_refresh_at = s.refresh_due_at().map(|t| t.to_string());
        let mut v = SourceRecord {
            source_type: s.source_type().name_for(&s.owner).to_owned(),
            name: s.name,
            status: s.status.name_for(&s.owner).to_owned(),
            created_at: s.created_at.to_string(),
            updated_at: s.updated_at.to_string(),
            processed_at: s.processed_at.map(|t| t.to_string()),
            chunk_count: s.chunk_count,
            size_bytes: s.size_bytes,
            error: s.error,
            content_hash: s.content_hash,
            progress: s.progress.map(Into::into),
            metadata: s.metadata,
            content: None,
            url: None,
            crawl_depth: None,
            pages_crawled: None,
            last_refreshed_at: None,
            languages: None,
            refresh_interval_hours: None,
            next_refresh_at: None,
            file_name: None,
            mime_type: None,
            file_url: None,
        };
        match s.spec {
            SourceSpec::Text { content } => v.content = detail.then_some(content),
            SourceSpec::Url { url, crawl_depth, pages_crawled, last_refreshed_at, refresh_interval } => {
                v.url = Some(url);
                v.crawl_depth = Some(crawl_depth.get());
                v.pages_crawled = Some(pages_crawled);
                v.last_refreshed_at = Some(last_refreshed_at.map(|t| t.to_string()));
                v.refresh_interval_hours = Some(refresh_interval.map(RefreshInterval::hours));
                v.next_refresh_at = Some(next_refresh_at);
            }
            SourceSpec::File(f) => {
                v.file_name = Some(f.file_name);
                v.mime_type = Some(f.mime_type);
                v.file_url = Some(f.file_url);
            }
            SourceSpec::Podcast(a) => {
                v.file_name = Some(a.file_name);
                v.mime_type = Some(a.mime_type);
                v.file_url = Some(a.file_url);
            }
        }
        v
    }
}

impl SourceView {
    fn new(s: KnowledgeSource, detail: bool) -> Self {
        SourceView { id: s.id.to_string(), chatbot_id: s.owner.to_string(), record: SourceRecord::new(s, detail) }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SourceList {
    pub status: Status,
    pub sources: Vec<SourceView>,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SourceEnvelope {
    pub status: Status,
    pub source: SourceView,
}

/// A source's detail, with the languages of its chunks (docs/api.md §20): every answer about
/// one source has the same shape.
async fn envelope(app: &lore_app::App, s: KnowledgeSource) -> Result<Json<SourceEnvelope>, ApiError> {
    // A source without chunks (just created, or emptied) has no languages: no index read.
    let languages = if s.chunk_count == 0 { Vec::new() } else { app.source_languages(&s.id).await? };
    let mut detail = SourceEnvelope { status: Status::Success, source: SourceView::new(s, true) };
    detail.source.record.languages = Some(languages.iter().map(|l| l.code()).collect());
    Ok(Json(detail))
}

/// Create a source. JSON for `text` (`content`) and `url` (`url`, `crawlDepth`) sources and for
/// `file` sources made from an earlier upload (`fileUrl`); `multipart/form-data` (`file`,
/// `name`) to upload the file with the request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSource {
    /// `text`, `url` or `file`.
    #[serde(rename = "type")]
    #[schema(required = true)]
    pub source_type: Option<String>,
    pub name: Option<String>,
    /// Text sources: at most 100,000 characters.
    pub content: Option<String>,
    /// Url sources: the address to crawl.
    pub url: Option<String>,
    /// Url sources: 1 (the page itself) to 5; default 1.
    pub crawl_depth: Option<i64>,
    /// Url sources: crawl again on their own every this many hours (1 to 8,760); default none.
    pub refresh_interval_hours: Option<i64>,
    /// File sources: a `fileUrl` returned by an upload of this workspace.
    pub file_url: Option<String>,
    /// Tags to filter searches by: at most 16 keys of 1 to 64 characters, each a string (at most
    /// 512 characters), a number or a boolean. With a multipart upload, a `metadata` part holding
    /// this object as JSON.
    #[schema(value_type = Option<BTreeMap<String, MetadataValue>>)]
    pub metadata: Option<serde_json::Value>,
}

/// Change a source: `metadata` on every source, `refreshIntervalHours` on url sources; `name` and
/// `content` on text sources only (content changes send it back to `pending`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateSource {
    pub name: Option<String>,
    pub content: Option<String>,
    /// Replaces the whole metadata (`{}` removes every key).
    #[schema(value_type = Option<BTreeMap<String, MetadataValue>>)]
    pub metadata: Option<serde_json::Value>,
    /// Url sources: hours between scheduled refreshes (1 to 8,760); `null` turns them off.
    #[schema(value_type = Option<u32>, nullable, minimum = 1, maximum = 8760)]
    #[serde(default)]
    pub refresh_interval_hours: Field<i64>,
}

impl UpdateSource {
    pub(crate) fn change(self) -> Result<SourceChange, DomainError> {
        let metadata = match &self.metadata {
            None => None,
            Some(v) => Some(Metadata::parse(Some(v))?),
        };
        let refresh_interval = match self.refresh_interval_hours {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Value(h) => Some(Some(RefreshInterval::parse(h)?)),
        };
        Ok(SourceChange { name: self.name, content: self.content, metadata, refresh_interval })
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatsView {
    pub total_sources: u64,
    pub total_chunks: u64,
    /// Extracted text bytes plus stored file bytes.
    pub total_size_bytes: u64,
    /// Only the statuses that occur.
    pub sources_by_status: BTreeMap<String, u64>,
    /// Always `text`, `url` and `file`.
    pub sources_by_type: BTreeMap<String, u64>,
}

impl From<SourceStats> for StatsView {
    fn from(s: SourceStats) -> Self {
        Self {
            total_sources: s.total_sources,
            total_chunks: s.total_chunks,
            total_size_bytes: s.total_size_bytes,
            sources_by_status: s.by_status.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            sources_by_type: s.by_type.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct StatsEnvelope {
    pub status: Status,
    pub stats: StatsView,
}

/// The uploaded-file result (flat members of the envelope, docs/api.md §16.3).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadedView {
    pub status: Status,
    /// CDN URL, fetchable without a key; use it as `fileUrl` when creating a source.
    pub file_url: String,
    pub file_name: String,
    /// The type decided by content (`application/pdf`, `text/markdown`, `audio/mpeg`, …).
    pub mime_type: String,
    /// Bytes.
    pub file_size: u64,
    /// `document` (PDF, DOCX, TXT, MD) or `audio` (MP3, WAV, M4A, OGG; Mind uploads only).
    pub category: String,
}

impl From<Upload> for UploadedView {
    fn from(u: Upload) -> Self {
        Self {
            status: Status::Success,
            file_url: u.file_url,
            file_name: u.file_name,
            mime_type: u.mime_type,
            file_size: u.file_size,
            category: u.category.as_str().to_owned(),
        }
    }
}

/// Ask for a direct-upload URL for a file too large for one API request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadUrlRequest {
    #[schema(required = true, example = "talk.mp3")]
    pub file_name: Option<String>,
    /// One of the accepted types (documents: `application/pdf`, DOCX, `text/plain`,
    /// `text/markdown`; Minds also audio: `audio/mpeg`, `audio/wav`, `audio/mp4`, `audio/ogg`).
    #[schema(required = true, example = "audio/mpeg")]
    pub mime_type: Option<String>,
    /// Bytes; within the limit of the file's category. The upload URL accepts at most this many.
    #[schema(required = true, example = 73400320)]
    pub file_size: Option<u64>,
}

impl UploadUrlRequest {
    pub(crate) fn declared(&self) -> DeclaredFile<'_> {
        DeclaredFile {
            file_name: self.file_name.as_deref(),
            mime_type: self.mime_type.as_deref(),
            file_size: self.file_size,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadUrlView {
    pub status: Status,
    /// PUT the bytes here with `headers`, before `expiresAt`.
    pub upload_url: String,
    /// `PUT`.
    pub method: String,
    pub headers: BTreeMap<String, String>,
    /// Usable as `fileUrl` once the PUT succeeded.
    pub file_url: String,
    pub expires_at: String,
}

impl From<DirectUpload> for UploadUrlView {
    fn from(d: DirectUpload) -> Self {
        Self {
            status: Status::Success,
            upload_url: d.presigned.upload_url,
            method: d.presigned.method.to_owned(),
            headers: d.presigned.headers.into_iter().collect(),
            file_url: d.file_url,
            expires_at: d.presigned.expires_at.to_string(),
        }
    }
}

/// List a chatbot's sources, newest first, optionally by `status` and `type`.
#[utoipa::path(get, path = "/api/v1/chatbots/{chatbotId}/sources", tag = "knowledge",
    params(("chatbotId" = String, Path), PageParams,
        ("status" = Option<String>, Query, description = "`pending`, `processing`, `ready` or `error`"),
        ("type" = Option<String>, Query, description = "`text`, `url` or `file`")),
    security(("bearer" = ["knowledge:read"])),
    responses(
        (status = 200, body = SourceList),
        (status = 400, description = "`validation_error`", body = ErrorBody),
    ))]
async fn list_sources(
    auth: Authed<KnowledgeRead>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    p: Pagination,
) -> Result<Json<SourceList>, ApiError> {
    let status = match p.param("status") {
        None => None,
        Some(v) => Some(
            SourceStatus::parse_chatbot(v)
                .ok_or_else(|| DomainError::field("status", "must be one of pending, processing, ready, error"))?,
        ),
    };
    let source_type = match p.param("type") {
        None => None,
        Some(v) => Some(
            SourceType::parse_chatbot(v).ok_or_else(|| DomainError::field("type", "must be one of text, url, file"))?,
        ),
    };
    let page = s.app.list_sources(&auth.principal, &chatbot, SourceFilter { status, source_type }, p.page).await?;
    let pagination = page.info().into();
    let sources = page.items.into_iter().map(|x| SourceView::new(x, false)).collect();
    Ok(Json(SourceList { status: Status::Success, sources, pagination }))
}

/// Create a knowledge source in `pending`. The route also takes `multipart/form-data` (`file`,
/// optional `name`: the upload and the create in one request, as `POST …/uploads` then a `file`
/// source with its `fileUrl`); the document lists JSON only, because stock SDK generators produce
/// broken code for one operation with two body types (docs/decisions.md).
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/sources", tag = "knowledge",
    params(("chatbotId" = String, Path)),
    request_body(content = CreateSource, content_type = "application/json"),
    security(("bearer" = ["knowledge:write"])),
    responses(
        (status = 201, body = SourceEnvelope),
        (status = 400, description = "`missing_content`, `content_too_large`, `missing_url`, `invalid_url`, `url_blocked`, \
            `missing_file`, `unsupported_file_type`, `file_too_large`, `invalid_json`, `validation_error`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 413, body = ErrorBody),
    ))]
async fn create_source(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    body: JsonOrUpload<CreateSource, FileBodyLimit>,
) -> Result<(StatusCode, Json<SourceEnvelope>), ApiError> {
    let new = match body {
        JsonOrUpload::Upload(upload) => {
            // An unknown chatbot is 404 before a byte of the file is read.
            s.app.get_chatbot(&auth.principal, &chatbot).await?;
            let part = upload.store(&s, &auth.principal, UploadOwner::Chatbot, UploadRules::CHATBOT).await?;
            NewSource::upload(SourceName::parse(part.name.as_deref())?, part.upload, part.metadata)
        }
        JsonOrUpload::Json(body) => new_source(body)?,
    };
    let source = s.app.create_source(&auth.principal, &chatbot, new).await?;
    Ok((StatusCode::CREATED, envelope(&s.app, source).await?))
}

/// The multipart form of an upload.
#[derive(ToSchema)]
#[allow(dead_code)] // Documentation only.
pub struct UploadForm {
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    name: Option<String>,
}

/// Read a source with its status, chunk count and progress (poll until `ready` or `error`).
#[utoipa::path(get, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path)),
    security(("bearer" = ["knowledge:read"])),
    responses((status = 200, body = SourceEnvelope)))]
async fn get_source(
    auth: Authed<KnowledgeRead>,
    State(s): State<ApiState>,
    PathIds(chatbot, id): PathIds<ChatbotId, SourceId>,
) -> Result<Json<SourceEnvelope>, ApiError> {
    let source = s.app.get_source(&auth.principal, &chatbot, &id).await?;
    envelope(&s.app, source).await
}

/// Change a text source (other types: `invalid_operation`); 409 while processing.
#[utoipa::path(patch, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path)), request_body = UpdateSource,
    security(("bearer" = ["knowledge:write"])),
    responses((status = 200, body = SourceEnvelope),
        (status = 400, description = "`invalid_operation`, `missing_content`, `content_too_large`, `validation_error`", body = ErrorBody),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody)))]
async fn update_source(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathIds(chatbot, id): PathIds<ChatbotId, SourceId>,
    JsonBody(body): JsonBody<UpdateSource>,
) -> Result<Json<SourceEnvelope>, ApiError> {
    envelope(&s.app, s.app.update_source(&auth.principal, &chatbot, &id, body.change()?).await?).await
}

/// Delete a source with all its chunks (and its file); 409 while processing.
#[utoipa::path(delete, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path)),
    security(("bearer" = ["knowledge:write"])),
    responses((status = 200, body = Deleted), (status = 409, description = "`processing_in_progress`", body = ErrorBody)))]
async fn delete_source(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathIds(chatbot, id): PathIds<ChatbotId, SourceId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_source(&auth.principal, &chatbot, &id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Start processing (extract → chunk → embed); answers 202 at once with the source in `processing`.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/process", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path)),
    security(("bearer" = ["knowledge:write"])),
    responses((status = 202, body = SourceEnvelope),
        (status = 400, description = "`already_processing`", body = ErrorBody)))]
async fn process_source(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathIds(chatbot, id): PathIds<ChatbotId, SourceId>,
) -> Result<(StatusCode, Json<SourceEnvelope>), ApiError> {
    Ok((StatusCode::ACCEPTED, envelope(&s.app, s.app.process_source(&auth.principal, &chatbot, &id).await?).await?))
}

/// Re-crawl a url source and re-embed what changed; 202 at once.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/sources/{sourceId}/refresh", tag = "knowledge",
    params(("chatbotId" = String, Path), ("sourceId" = String, Path)),
    security(("bearer" = ["knowledge:write"])),
    responses((status = 202, body = SourceEnvelope),
        (status = 400, description = "`invalid_operation`", body = ErrorBody),
        (status = 409, description = "`processing_in_progress`", body = ErrorBody)))]
async fn refresh_source(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathIds(chatbot, id): PathIds<ChatbotId, SourceId>,
) -> Result<(StatusCode, Json<SourceEnvelope>), ApiError> {
    Ok((StatusCode::ACCEPTED, envelope(&s.app, s.app.refresh_source(&auth.principal, &chatbot, &id).await?).await?))
}

/// Statistics of a chatbot's knowledge base.
#[utoipa::path(get, path = "/api/v1/chatbots/{chatbotId}/knowledge/stats", tag = "knowledge",
    params(("chatbotId" = String, Path)),
    security(("bearer" = ["knowledge:read"])),
    responses((status = 200, body = StatsEnvelope),))]
async fn knowledge_stats(
    auth: Authed<KnowledgeRead>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
) -> Result<Json<StatsEnvelope>, ApiError> {
    let stats = s.app.source_stats(&auth.principal, &chatbot).await?;
    Ok(Json(StatsEnvelope { status: Status::Success, stats: stats.into() }))
}

/// Upload a document (PDF, DOCX, TXT, MD; ≤ 10 MB) to use later as a file source's `fileUrl`.
/// The file is streamed to storage and counts against the workspace's storage quota until a
/// source uses it (unused uploads are deleted after 24 hours). A workspace receives at most 2
/// uploads at once (`rate_limited` beyond); a body that stops arriving for 30 s ends with
/// `request_timeout`.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/uploads", tag = "knowledge",
    params(("chatbotId" = String, Path)),
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    security(("bearer" = ["knowledge:write"])),
    responses((status = 201, body = UploadedView),
        (status = 400, description = "`missing_file`, `unsupported_file_type`, `file_too_large`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body stopped arriving", body = ErrorBody),
        (status = 413, body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests, or uploads in progress", body = ErrorBody)))]
async fn upload_file(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    upload: FileUpload<FileBodyLimit>,
) -> Result<(StatusCode, Json<UploadedView>), ApiError> {
    s.app.get_chatbot(&auth.principal, &chatbot).await?;
    let part = upload.store(&s, &auth.principal, UploadOwner::Chatbot, UploadRules::CHATBOT).await?;
    Ok((StatusCode::CREATED, Json(part.upload.into())))
}

/// Get a signed URL to PUT a document to directly (for files too large for one API request).
/// Refused with `storage_limit` when the declared size does not fit the workspace's storage
/// quota now; the bytes are checked again (size, quota and type by content) when they arrive.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/upload-url", tag = "knowledge",
    params(("chatbotId" = String, Path)), request_body = UploadUrlRequest,
    security(("bearer" = ["knowledge:write"])),
    responses((status = 201, body = UploadUrlView),
        (status = 400, description = "`validation_error`, `unsupported_file_type`, `file_too_large`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),))]
async fn upload_url(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    JsonBody(body): JsonBody<UploadUrlRequest>,
) -> Result<(StatusCode, Json<UploadUrlView>), ApiError> {
    s.app.get_chatbot(&auth.principal, &chatbot).await?;
    let up = s.app.presign_upload(&auth.principal, UploadOwner::Chatbot, UploadRules::CHATBOT, body.declared()).await?;
    Ok((StatusCode::CREATED, Json(up.into())))
}

/// A JSON create's source.
fn new_source(body: CreateSource) -> Result<NewSource, DomainError> {
    NewSource::parse(SourceVocabulary::Chatbot, body.input())
}

impl CreateSource {
    pub(crate) fn input(&self) -> SourceInput<'_> {
        SourceInput {
            source_type: self.source_type.as_deref(),
            name: self.name.as_deref(),
            content: self.content.as_deref(),
            url: self.url.as_deref(),
            crawl_depth: self.crawl_depth,
            refresh_interval_hours: self.refresh_interval_hours,
            file_url: self.file_url.as_deref(),
            metadata: self.metadata.as_ref(),
        }
    }
}

/// Up to 100 sources to create in one request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateSources {
    /// 1-100 sources, each exactly as `POST …/sources` takes it as JSON.
    #[schema(required = true, value_type = Vec<CreateSource>)]
    pub sources: Option<Vec<serde_json::Value>>,
    /// Queue each created source for processing at once (default `false`).
    pub process: Option<bool>,
}

/// Up to 100 sources to queue for processing in one request.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessSources {
    /// 1-100 source ids of this chatbot.
    #[schema(required = true)]
    pub source_ids: Option<Vec<String>>,
}

/// One item of a batch's answer, before it is named in the owner's vocabulary.
pub(crate) struct BatchOutcome {
    pub(crate) index: usize,
    pub(crate) status: &'static str,
    pub(crate) status_code: u16,
    pub(crate) source: Option<KnowledgeSource>,
    pub(crate) error: Option<serde_json::Value>,
}

/// The answer types of one owner's batches: the same members, the owner's source record.
/// (Written out per owner rather than generic so that the document types `source` as that
/// record or `null`.)
macro_rules! batch_answer {
    ($result:ident, $envelope:ident, $view:ty, $record:ident) => {
        /// The outcome of one item of a batch.
        #[derive(Debug, Serialize, ToSchema)]
        #[serde(rename_all = "camelCase")]
        pub struct $result {
            /// The item's position in the request, from 0.
            pub index: usize,
            /// `created`, `queued` (created or named, and queued for processing) or `error`.
            pub status: String,
            /// The status code the single request would have answered for this item.
            pub status_code: u16,
            pub source: Option<$view>,
            /// What went wrong (`{code, message, details}` as in every error). A source created
            /// but not queued has both `source` and `error`.
            #[schema(value_type = Option<crate::error::ErrorDetail>)]
            pub error: Option<serde_json::Value>,
        }

        #[derive(Debug, Serialize, ToSchema)]
        pub struct $envelope {
            pub status: crate::views::Status,
            /// Items without an error.
            pub succeeded: usize,
            /// Items with an error.
            pub failed: usize,
            /// One per item, in the request's order.
            pub results: Vec<$result>,
        }

        impl From<Vec<crate::sources::BatchOutcome>> for $envelope {
            fn from(items: Vec<crate::sources::BatchOutcome>) -> Self {
                let results: Vec<$result> = items
                    .into_iter()
                    .map(|o| $result {
                        index: o.index,
                        status: o.status.to_owned(),
                        status_code: o.status_code,
                        source: o.source.map(|s| <$view>::$record(s, false)),
                        error: o.error,
                    })
                    .collect();
                let failed = results.iter().filter(|r| r.error.is_some()).count();
                Self { status: crate::views::Status::Success, succeeded: results.len() - failed, failed, results }
            }
        }
    };
}
pub(crate) use batch_answer;

batch_answer!(BatchResult, BatchEnvelope, SourceView, new);

/// A batch's answer: `done` names an item that went through.
pub(crate) fn batch_items<E: From<Vec<BatchOutcome>>>(
    items: Vec<lore_app::sources::BatchItem>,
    done: &'static str,
) -> E {
    let outcomes = items
        .into_iter()
        .enumerate()
        .map(|(index, item)| {
            let error = item.error.map(ApiError::App);
            let status = match (&item.source, &error) {
                (None, _) => "error",
                (Some(_), Some(_)) => "created",
                (Some(_), None) => done,
            };
            BatchOutcome {
                index,
                status,
                status_code: match (&item.source, &error) {
                    (_, Some(e)) => e.status().as_u16(),
                    _ if done == "created" => 201,
                    _ => 202,
                },
                source: item.source,
                error: error.map(|e| e.error_member()),
            }
        })
        .collect::<Vec<_>>();
    E::from(outcomes)
}

/// A batch's sources, each read on its own by `parse` (a malformed one is that item's error
/// only), once the batch's size is checked.
pub(crate) fn batch_sources<B: serde::de::DeserializeOwned>(
    sources: Option<Vec<serde_json::Value>>,
    parse: impl Fn(B) -> Result<NewSource, DomainError>,
) -> Result<Vec<Result<NewSource, DomainError>>, DomainError> {
    let sources = sources.unwrap_or_default();
    batch_size("sources", sources.len())?;
    Ok(sources
        .into_iter()
        .map(|raw| match serde_json::from_value::<B>(raw) {
            Ok(source) => parse(source),
            Err(_) => Err(DomainError::field("sources[]", "is not a source (an object; check each member's type)")),
        })
        .collect())
}

/// A batch's source ids, once its size is checked; a malformed id names no source (that
/// item's `not_found`).
pub(crate) fn batch_ids(ids: Option<Vec<String>>) -> Result<Vec<Option<SourceId>>, DomainError> {
    let ids = ids.unwrap_or_default();
    batch_size("sourceIds", ids.len())?;
    Ok(ids.iter().map(|raw| SourceId::parse(raw.trim())).collect())
}

fn batch_size(name: &str, n: usize) -> Result<(), DomainError> {
    if n == 0 || n > lore_app::sources::MAX_BATCH {
        return Err(DomainError::field(name, "must hold 1 to 100 items"));
    }
    Ok(())
}

/// Create up to 100 sources in one request (one request against the key's rate limit), each
/// on its own: every item gets its own result — the source, or the error the single create would
/// have answered — and a refused item does not stop the others. With `process: true` each created
/// source is queued for processing at once. The whole body is at most 2 MB.
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/sources/batch", tag = "knowledge",
    params(("chatbotId" = String, Path)),
    request_body = CreateSources,
    security(("bearer" = ["knowledge:write"])),
    responses(
        (status = 200, description = "Every item's result (check `failed`)", body = BatchEnvelope),
        (status = 400, description = "`validation_error` (`sources`: 1-100 items) or `invalid_json`", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: over 2 MB", body = ErrorBody),
    ))]
async fn create_sources(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    JsonBody(body): JsonBody<CreateSources>,
) -> Result<Json<BatchEnvelope>, ApiError> {
    let items = batch_sources(body.sources, new_source)?;
    let process = body.process.unwrap_or(false);
    let done = s.app.create_sources(&auth.principal, &chatbot, items, process).await?;
    Ok(Json(batch_items(done, if process { "queued" } else { "created" })))
}

/// Queue up to 100 of the chatbot's sources for processing in one request, each on its own (as
/// `POST …/sources/{sourceId}/process`, whose error each refused item carries).
#[utoipa::path(post, path = "/api/v1/chatbots/{chatbotId}/sources/batch/process", tag = "knowledge",
    params(("chatbotId" = String, Path)),
    request_body = ProcessSources,
    security(("bearer" = ["knowledge:write"])),
    responses(
        (status = 200, description = "Every item's result (check `failed`)", body = BatchEnvelope),
        (status = 400, description = "`validation_error` (`sourceIds`: 1-100 ids) or `invalid_json`", body = ErrorBody),
    ))]
async fn process_sources(
    auth: Authed<KnowledgeWrite>,
    State(s): State<ApiState>,
    PathId(chatbot): PathId<ChatbotId>,
    JsonBody(body): JsonBody<ProcessSources>,
) -> Result<Json<BatchEnvelope>, ApiError> {
    let ids = batch_ids(body.source_ids)?;
    let done = s.app.process_sources(&auth.principal, &chatbot, &ids).await?;
    Ok(Json(batch_items(done, "queued")))
}
