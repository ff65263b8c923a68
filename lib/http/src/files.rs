//! `/files/{key}`: the local stand-in for the CDN (CloudFront in AWS). GET serves a stored file
//! without credentials; PUT accepts the bytes of a signed direct upload.

use crate::error::ApiError;
use crate::state::ApiState;
use crate::views::Status;
use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, X_CONTENT_TYPE_OPTIONS};
use axum::response::IntoResponse;
use axum::routing::get;
use lore_app::AppError;
use serde::Serialize;

/// Largest signed upload accepted (Mind audio may be 500 MB).
pub const UPLOAD_BODY_LIMIT: usize = 512 * 1024 * 1024;

/// Not part of the API document: in AWS these URLs are CloudFront's and S3's, not ours.
pub fn router() -> Router<ApiState> {
    Router::new().route("/files/{*key}", get(get_file).put(put_file)).layer(DefaultBodyLimit::max(UPLOAD_BODY_LIMIT))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredView {
    pub status: Status,
    pub file_url: String,
}

/// Fetch an uploaded file (no key needed: the URL itself is the capability).
async fn get_file(State(s): State<ApiState>, Path(key): Path<String>) -> Result<impl IntoResponse, ApiError> {
    let (bytes, content_type) = s.app.public_file(&key).await?;
    Ok((
        [(CONTENT_TYPE, content_type), (X_CONTENT_TYPE_OPTIONS, "nosniff"), (CACHE_CONTROL, "private, max-age=3600")],
        bytes,
    ))
}

/// PUT the bytes of a direct upload to the `uploadUrl` an upload-url call returned.
async fn put_file(
    State(s): State<ApiState>,
    Path(key): Path<String>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Result<Json<StoredView>, ApiError> {
    let query = query.ok_or(ApiError::App(AppError::NotFound("upload")))?;
    let file_url = s.app.signed_upload(&key, &query, body.to_vec()).await?;
    Ok(Json(StoredView { status: Status::Success, file_url }))
}
