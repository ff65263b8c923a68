//! `/files/{key}`: the local stand-in for the CDN (CloudFront in AWS). GET streams a stored file
//! (or a byte range of it) without credentials; PUT accepts the bytes of a signed direct upload,
//! checked before a byte of the body is read and streamed to storage.

use crate::error::ApiError;
use crate::state::ApiState;
use crate::views::Status;
use axum::Json;
use axum::Router;
use axum::body::Body;
use axum::extract::{Path, RawQuery, State};
use axum::http::header::{
    ACCEPT_RANGES, CACHE_CONTROL, CONTENT_LENGTH, CONTENT_RANGE, CONTENT_TYPE, RANGE, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::StreamExt;
use lore_app::AppError;
use lore_app::ports::{ByteRange, ByteStream};
use serde::Serialize;

/// Not part of the API document: in AWS these URLs are CloudFront's and S3's, not ours.
pub fn router() -> Router<ApiState> {
    Router::new().route("/files/{*key}", get(get_file).put(put_file))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredView {
    pub status: Status,
    pub file_url: String,
}

/// What a `Range` header asks of a file of `size` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Wanted {
    Whole,
    Part(ByteRange),
    /// No byte of the range is in the file: 416.
    Unsatisfiable,
}

/// One `bytes=` range (`a-b`, `a-`, `-n`). Anything else — several ranges, another unit, bad
/// syntax — is ignored and the whole file is sent, as HTTP allows.
fn wanted(header: Option<&str>, size: u64) -> Wanted {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else { return Wanted::Whole };
    if spec.contains(',') {
        return Wanted::Whole;
    }
    let Some((a, b)) = spec.trim().split_once('-') else { return Wanted::Whole };
    let (a, b) = (a.trim(), b.trim());
    let parsed = match (a.is_empty(), b.is_empty()) {
        (false, _) => {
            let Ok(start) = a.parse::<u64>() else { return Wanted::Whole };
            let end = if b.is_empty() { Some(u64::MAX) } else { b.parse::<u64>().ok() };
            match end {
                Some(end) if end >= start => (start, end),
                _ => return Wanted::Whole,
            }
        }
        (true, false) => {
            let Ok(n) = b.parse::<u64>() else { return Wanted::Whole };
            if n == 0 {
                return Wanted::Unsatisfiable;
            }
            (size.saturating_sub(n), u64::MAX)
        }
        (true, true) => return Wanted::Whole,
    };
    if parsed.0 >= size {
        return Wanted::Unsatisfiable;
    }
    Wanted::Part(ByteRange { start: parsed.0, end: parsed.1.min(size - 1) })
}

/// Fetch an uploaded file (no key needed: the URL itself is the capability), streamed from
/// storage; a `Range` request gets 206 with that part.
async fn get_file(
    State(s): State<ApiState>,
    Path(key): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let range = match headers.get(RANGE).and_then(|v| v.to_str().ok()) {
        None => None,
        Some(h) => {
            let size = s.app.public_file_size(&key).await?;
            match wanted(Some(h), size) {
                Wanted::Whole => None,
                Wanted::Part(r) => Some(r),
                Wanted::Unsatisfiable => {
                    return Ok((
                        StatusCode::RANGE_NOT_SATISFIABLE,
                        [(CONTENT_RANGE, format!("bytes */{size}")), (ACCEPT_RANGES, "bytes".into())],
                    )
                        .into_response());
                }
            }
        }
    };
    let (read, content_type) = s.app.public_file(&key, range).await?;
    let (status, length, content_range) = match range {
        Some(r) => (
            StatusCode::PARTIAL_CONTENT,
            r.end - r.start + 1,
            Some(format!("bytes {}-{}/{}", r.start, r.end, read.size)),
        ),
        None => (StatusCode::OK, read.size, None),
    };
    let mut res = (
        status,
        [
            (CONTENT_TYPE, content_type.to_owned()),
            (X_CONTENT_TYPE_OPTIONS, "nosniff".into()),
            (CACHE_CONTROL, "private, max-age=3600".into()),
            (ACCEPT_RANGES, "bytes".into()),
            (CONTENT_LENGTH, length.to_string()),
        ],
        Body::from_stream(read.body),
    )
        .into_response();
    if let Some(v) = content_range.and_then(|v| v.parse().ok()) {
        res.headers_mut().insert(CONTENT_RANGE, v);
    }
    Ok(res)
}

/// PUT the bytes of a direct upload to the `uploadUrl` an upload-url call returned. The URL's
/// signature, expiry and the declared `Content-Length` are checked before the body is read.
async fn put_file(
    State(s): State<ApiState>,
    Path(key): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<StoredView>, ApiError> {
    let query = query.ok_or(ApiError::App(AppError::NotFound("upload")))?;
    let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok());
    let put = s.app.check_signed_upload(&key, &query, declared)?;
    let mut stream: ByteStream<'_> = Box::pin(body.into_data_stream().map(|r| r.map_err(|e| crate::body_io_error(&e))));
    let file_url = s.app.signed_upload(put, &mut stream).await?;
    Ok(Json(StoredView { status: Status::Success, file_url }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_resolve_against_the_size() {
        let part = |start, end| Wanted::Part(ByteRange { start, end });
        assert_eq!(wanted(Some("bytes=0-9"), 100), part(0, 9));
        assert_eq!(wanted(Some("bytes=90-"), 100), part(90, 99));
        assert_eq!(wanted(Some("bytes=90-1000"), 100), part(90, 99));
        assert_eq!(wanted(Some("bytes=-10"), 100), part(90, 99));
        assert_eq!(wanted(Some("bytes=-1000"), 100), part(0, 99));
        assert_eq!(wanted(Some("bytes=100-"), 100), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=-0"), 100), Wanted::Unsatisfiable);
        assert_eq!(wanted(Some("bytes=5-1"), 100), Wanted::Whole);
        assert_eq!(wanted(Some("bytes=0-1,5-6"), 100), Wanted::Whole);
        assert_eq!(wanted(Some("items=0-1"), 100), Wanted::Whole);
        assert_eq!(wanted(None, 100), Wanted::Whole);
    }
}
