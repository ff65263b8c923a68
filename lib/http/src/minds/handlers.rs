//! The Mind routes: what each does, its documentation, and the router of the group.

use crate::api_router::{ApiRouter, api_routes};
use crate::assistant::AssistantUpdate;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBodies, JsonBody, MindsRead, MindsWrite, Pagination, PathId};
use crate::minds::bodies::{CreateMind, MindUpdate, MindUploadForm, PublishMind, UpdateMind, optional_json};
use crate::minds::public_base;
use crate::minds::views::{
    IdentitySecretEnvelope, MindEnvelope, MindItemView, MindList, PublishEnvelope, PublishedMindView,
};
use crate::sources::{UploadUrlRequest, UploadUrlView, UploadedView};
use crate::state::ApiState;
use crate::upload::{BodyLimit, FileUpload, UploadBodyLimit};
use crate::views::{Deleted, PageParams, Status};
use axum::Json;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use lore_app::files::{UploadOwner, UploadRules};
use lore_domain::id::MindId;
use lore_domain::mind::{Field, MindPatch, NewMind};

pub fn router() -> ApiRouter {
    let uploads = ApiRouter::new().routes(api_routes!(upload_mind_file)).body_limit(UploadBodyLimit::BYTES);
    ApiRouter::new()
        .routes(api_routes!(list_minds, create_mind))
        .routes(api_routes!(get_mind, update_mind, delete_mind))
        .routes(api_routes!(publish_mind))
        .routes(api_routes!(new_mind_identity_secret))
        .routes(api_routes!(mind_upload_url))
        .merge(uploads)
}

/// List the workspace's Minds, newest first, with its usage.
#[utoipa::path(get, path = "/api/v1/minds", tag = "minds", params(PageParams),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, description = "A page of Minds and the workspace's usage", body = MindList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),
    ))]
async fn list_minds(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<MindList>, ApiError> {
    let listing = s.app.list_minds(&auth.principal, p.page).await?;
    let pagination = listing.page.info().into();
    Ok(Json(MindList {
        status: Status::Success,
        minds: listing.page.items.iter().map(MindItemView::from).collect(),
        usage: listing.usage.into(),
        pagination,
    }))
}

/// Create a Mind.
#[utoipa::path(post, path = "/api/v1/minds", tag = "minds", request_body = CreateMind,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Created: the Mind's detail", body = MindEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error` (naming the fields)", body = ErrorBody),
        (status = 403, description = "`insufficient_scope`, or `minds_limit_reached` at the workspace's mindsLimit", body = ErrorBody),
        (status = 409, description = "`slug_taken`", body = ErrorBody),
        (status = 413, description = "`payload_too_large`", body = ErrorBody),
    ))]
async fn create_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<CreateMind>,
) -> Result<(StatusCode, Json<MindEnvelope>), ApiError> {
    let new = NewMind::parse(&body.into_raw())?;
    let detail = s.app.create_mind(&auth.principal, new).await?;
    Ok((StatusCode::CREATED, Json(detail.into())))
}

/// Read one Mind with every setting.
#[utoipa::path(get, path = "/api/v1/minds/{mindId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, description = "The Mind", body = MindEnvelope),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
    ))]
async fn get_mind(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<Json<MindEnvelope>, ApiError> {
    Ok(Json(s.app.get_mind(&auth.principal, &id).await?.into()))
}

/// Change any subset of a Mind's settings.
#[utoipa::path(patch, path = "/api/v1/minds/{mindId}", tag = "minds", request_body = UpdateMind,
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "The updated Mind", body = MindEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error` (naming the fields)", body = ErrorBody),
        (status = 409, description = "`slug_taken` (in the workspace, or the public address of another published Mind)", body = ErrorBody),
    ))]
async fn update_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    JsonBodies(own, settings): JsonBodies<MindUpdate, AssistantUpdate>,
) -> Result<Json<MindEnvelope>, ApiError> {
    let patch = MindPatch::parse(&own.into_raw(settings))?;
    Ok(Json(s.app.update_mind(&auth.principal, &id, patch).await?.into()))
}

/// Delete a Mind with everything it owns: its records and its uploaded files (their `fileUrl`s
/// answer 404 afterwards).
#[utoipa::path(delete, path = "/api/v1/minds/{mindId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
    ))]
async fn delete_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_mind(&auth.principal, &id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Publish (or, with `isPublished: false`, unpublish) a Mind. Its public page is
/// `publicUrl` = `LORE_PUBLIC_BASE_URL/m/{slug}`, served without a key while it is published.
/// A published slug is a public address: publishing a Mind whose slug another published Mind
/// (of any workspace) has is 409 `slug_taken`.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/publish", tag = "minds", request_body(content = PublishMind,
        description = "Optional; an empty body publishes"),
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "The Mind's publication; `warning` when it has no ready knowledge source", body = PublishEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken`: another published Mind has this slug", body = ErrorBody),
    ))]
async fn publish_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    req: Request,
) -> Result<Json<PublishEnvelope>, ApiError> {
    let base = public_base(s.app.config().public_base_url.as_deref(), req.headers());
    let body = optional_json::<PublishMind>(req, &s).await?;
    let publish = match body.is_published {
        Field::Absent => true,
        Field::Value(b) => b,
        Field::Null => return Err(lore_domain::DomainError::field("isPublished", "must be true or false").into()),
    };
    let publication = s.app.publish_mind(&auth.principal, &id, publish).await?;
    let m = publication.mind;
    Ok(Json(PublishEnvelope {
        status: Status::Success,
        mind: PublishedMindView {
            id: m.id.to_string(),
            slug: m.slug.to_string(),
            is_published: m.is_published,
            public_url: format!("{base}/m/{}", m.slug),
        },
        warning: publication.warning,
    }))
}

/// Create (or replace) the Mind's identity secret. With `identityVerification: true`, a
/// visitor's conversation must carry `visitor.userId` and `visitor.userHash` signed with it.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/identity-secret", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "The new secret, shown once", body = IdentitySecretEnvelope),
    ))]
async fn new_mind_identity_secret(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<(StatusCode, Json<IdentitySecretEnvelope>), ApiError> {
    let secret = s.app.new_mind_identity_secret(&auth.principal, &id).await?;
    Ok((
        StatusCode::CREATED,
        Json(IdentitySecretEnvelope { status: Status::Success, identity_secret: secret.expose().to_owned() }),
    ))
}

/// Upload a document (PDF, DOCX, TXT, MD; ≤ 50 MB) or an audio file (MP3, WAV, M4A, OGG;
/// ≤ 500 MB) to use as the `fileUrl` of a `document` or `podcast` source. The type is decided by
/// the content, not the name or the declared type. The optional `category` part (`document` or
/// `audio`) makes a file of the other category `unsupported_file_type`. Through API Gateway
/// (AWS) a request carries about 6 MB at most: send larger files with `upload-url`.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/upload", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body(content = MindUploadForm, content_type = "multipart/form-data"),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Stored: the uploaded-file result", body = UploadedView),
        (status = 400, description = "`missing_file`, `unsupported_file_type`, `file_too_large`, `validation_error`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body stopped arriving", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: the body is over 512 MiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests, or uploads in progress", body = ErrorBody),
    ))]
async fn upload_mind_file(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    upload: FileUpload<UploadBodyLimit>,
) -> Result<(StatusCode, Json<UploadedView>), ApiError> {
    // Unknown (or another workspace's) Mind: 404 before the body is read.
    s.app.get_mind(&auth.principal, &id).await?;
    let part = upload.store(&s, &auth.principal, UploadOwner::Mind(&id), UploadRules::MIND).await?;
    Ok((StatusCode::CREATED, Json(part.upload.into())))
}

/// Get a signed URL to PUT a file to directly: the way to upload anything over ~6 MB through
/// API Gateway, and audio up to 500 MB. `mimeType` must be an accepted document or audio type
/// and `fileSize` within its category's limit; the URL accepts at most `fileSize` bytes until
/// `expiresAt` (15 minutes). Once the PUT succeeded, `fileUrl` serves the bytes.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/upload-url", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body = UploadUrlRequest,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Where and how to PUT the bytes", body = UploadUrlView),
        (status = 400, description = "`invalid_json`, `validation_error`, `unsupported_file_type`, `file_too_large`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
    ))]
async fn mind_upload_url(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    JsonBody(body): JsonBody<UploadUrlRequest>,
) -> Result<(StatusCode, Json<UploadUrlView>), ApiError> {
    let up = s.app.presign_mind_upload(&auth.principal, &id, body.declared()).await?;
    Ok((StatusCode::CREATED, Json(up.into())))
}
