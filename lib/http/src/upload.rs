//! File uploads as one extractor: a `multipart/form-data` body whose `file` part is stored as it
//! arrives (never whole in memory; `App::store_file`), with the text parts `name` and `category`.
//! The body is not read until [`FileUpload::store`], so a handler can refuse an unknown owner
//! (404) before a byte of the file arrives.

use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::state::ApiState;
use axum::extract::multipart::{Multipart, MultipartError, MultipartRejection};
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use futures::StreamExt;
use lore_app::auth::Principal;
use lore_app::files::{FileCategory, IncomingFile, Upload, UploadOwner, UploadRules};
use lore_app::ports::ByteStream;
use lore_domain::metadata::Metadata;
use lore_domain::{DomainError, ErrorCode};
use serde::de::DeserializeOwned;
use std::marker::PhantomData;

/// The body limit of an upload route (its `DefaultBodyLimit`), named in its 413 answer.
pub trait BodyLimit: Send + Sync + 'static {
    const BYTES: usize;
}

/// Chatbot uploads and sources: their bodies may be larger than JSON routes'. Sizes over the
/// contract's file limit are still answered `file_too_large` (docs/api.md §16.12).
pub struct FileBodyLimit;
impl BodyLimit for FileBodyLimit {
    const BYTES: usize = 64 * 1024 * 1024;
}

/// Mind uploads (audio may be 500 MB). Signed PUTs are bounded by the size they were signed for
/// instead.
pub struct UploadBodyLimit;
impl BodyLimit for UploadBodyLimit {
    const BYTES: usize = 512 * 1024 * 1024;
}

/// A stored upload and the name and metadata sent with it.
pub(crate) struct StoredPart {
    pub upload: Upload,
    pub name: Option<String>,
    pub metadata: Metadata,
}

/// A file upload not read yet. A body that is not `multipart/form-data` is `missing_file`, when
/// it is stored.
pub struct FileUpload<L: BodyLimit> {
    multipart: Option<Multipart>,
    _limit: PhantomData<L>,
}

fn is_multipart(req: &Request) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().starts_with("multipart/form-data"))
}

fn multipart_error(e: &(dyn std::error::Error + 'static), status: StatusCode, body_limit: usize) -> ApiError {
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::PayloadTooLarge { limit_bytes: body_limit }
    } else if crate::body_timed_out(e) {
        lore_app::files::body_error(&std::io::Error::from(std::io::ErrorKind::TimedOut)).into()
    } else {
        DomainError::field("body", format!("malformed multipart body: {e}")).into()
    }
}

/// A multipart body's error as the error of a byte stream: over the route's body limit, a
/// stalled body (`request_timeout`), or malformed.
fn multipart_io(e: MultipartError) -> std::io::Error {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        std::io::Error::new(std::io::ErrorKind::FileTooLarge, e.body_text())
    } else {
        crate::body_io_error(&e)
    }
}

impl<L: BodyLimit> FromRequest<ApiState> for FileUpload<L> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &ApiState) -> Result<Self, ApiError> {
        let multipart = if is_multipart(&req) {
            let m = Multipart::from_request(req, state)
                .await
                .map_err(|e: MultipartRejection| multipart_error(&e, e.status(), L::BYTES))?;
            Some(m)
        } else {
            None
        };
        Ok(Self { multipart, _limit: PhantomData })
    }
}

impl<L: BodyLimit> FileUpload<L> {
    /// Stores the `file` part as it arrives and reads the text parts `name`, `metadata` (a JSON
    /// object) and `category` (`document` or `audio`: a file of the other category is refused,
    /// whichever part came first). A refused part removes the stored file.
    pub(crate) async fn store(
        self,
        s: &ApiState,
        p: &Principal,
        owner: UploadOwner<'_>,
        rules: UploadRules,
    ) -> Result<StoredPart, ApiError> {
        let Some(mut multipart) = self.multipart else {
            return Err(DomainError::new(
                ErrorCode::MissingFile,
                "send the file as multipart/form-data in a `file` part",
            )
            .into());
        };
        let mut upload = None;
        let mut name = None;
        let mut metadata = None;
        let mut category = None;
        let text_error = |e: MultipartError| multipart_error(&e, e.status(), L::BYTES);
        while let Some(field) = multipart.next_field().await.map_err(text_error)? {
            match field.name() {
                Some("file") if upload.is_none() => {
                    let file_name = field.file_name().unwrap_or("file").to_owned();
                    let mut body: ByteStream<'_> = Box::pin(field.map(|r| r.map_err(multipart_io)));
                    let file = IncomingFile { file_name, body: &mut body };
                    upload = Some(s.app.store_file(p, owner, rules, file, category).await?);
                }
                Some("name") => name = Some(field.text().await.map_err(text_error)?),
                Some("metadata") => metadata = Some(field.text().await.map_err(text_error)?),
                Some("category") => {
                    let text = field.text().await.map_err(text_error)?;
                    category = match text.trim() {
                        "" => None,
                        c => Some(
                            FileCategory::parse(c)
                                .ok_or_else(|| DomainError::field("category", "must be document or audio"))?,
                        ),
                    };
                }
                _ => {}
            }
        }
        let upload =
            upload.ok_or_else(|| DomainError::new(ErrorCode::MissingFile, "the multipart body has no `file` part"))?;
        let upload = s.app.keep_if_category(p, upload, category).await?;
        let metadata = match metadata.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
            None => Metadata::default(),
            Some(raw) => {
                let parsed = serde_json::from_str::<serde_json::Value>(raw)
                    .map_err(|_| DomainError::field("metadata", "must be a JSON object"))
                    .and_then(|v| Metadata::parse(Some(&v)));
                match parsed {
                    Ok(m) => m,
                    Err(e) => {
                        s.app.discard_upload(p, &upload).await?;
                        return Err(e.into());
                    }
                }
            }
        };
        Ok(StoredPart { upload, name, metadata })
    }
}

/// A route that takes either a JSON body or a file upload, by its `Content-Type`.
pub enum JsonOrUpload<T, L: BodyLimit> {
    Json(T),
    Upload(FileUpload<L>),
}

impl<T: DeserializeOwned, L: BodyLimit> FromRequest<ApiState> for JsonOrUpload<T, L> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &ApiState) -> Result<Self, ApiError> {
        if is_multipart(&req) {
            Ok(Self::Upload(FileUpload::from_request(req, state).await?))
        } else {
            let JsonBody(body) = JsonBody::from_request(req, state).await?;
            Ok(Self::Json(body))
        }
    }
}
