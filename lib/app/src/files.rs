//! Uploaded files: serving them at their public URL, signed direct uploads (CONTRACT §10).

use crate::auth::Principal;
use crate::knowledge_ports::{PresignedUpload, UploadRefusal};
use crate::{App, AppError};
use lore_domain::id::SourceId;
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// How long a signed upload URL stays valid.
const UPLOAD_URL_TTL_MS: i64 = 15 * 60 * 1000;

/// Document types an upload URL may be asked for (the bytes are sniffed again when used).
pub const DOCUMENT_MIME_TYPES: &[&str] = &[
    "application/pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "text/plain",
    "text/markdown",
    "text/x-markdown",
];

/// The content type a stored file is served with, from its name.
pub fn content_type_for(key: &str) -> &'static str {
    let ext = key.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "md" | "markdown" => "text/markdown; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" => "audio/mp4",
        "ogg" => "audio/ogg",
        _ => "application/octet-stream",
    }
}

pub(crate) fn blob_file_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let safe: String = last
        .chars()
        .filter(|c| !c.is_control())
        .take(200)
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') { c } else { '_' })
        .collect();
    let safe = safe.trim_start_matches('.').to_owned();
    if safe.is_empty() { "file".to_owned() } else { safe }
}

/// A new blob key in the caller's workspace: `<workspace>/upl_<id>/<safe file name>`.
pub(crate) fn new_upload_key(p: &Principal, file_name: &str) -> String {
    let upload = SourceId::generate().as_str().replacen("src_", "upl_", 1);
    format!("{}/{}/{}", p.workspace_id(), upload, blob_file_name(file_name))
}

impl App {
    /// The bytes behind a public file URL, and their content type.
    pub async fn public_file(&self, key: &str) -> Result<(Vec<u8>, &'static str), AppError> {
        let bytes = self.ports.blobs.get(key).await?.ok_or(AppError::NotFound("file"))?;
        Ok((bytes, content_type_for(key)))
    }

    /// Accepts the bytes of a signed direct upload.
    pub async fn signed_upload(&self, key: &str, query: &str, bytes: Vec<u8>) -> Result<String, AppError> {
        match self.ports.blobs.verify_signed_put(key, query, bytes.len() as u64, Timestamp::now()) {
            Ok(()) => {}
            Err(UploadRefusal::BadSignature) => return Err(AppError::NotFound("upload")),
            Err(UploadRefusal::Expired) => {
                return Err(AppError::Rejected(DomainError::new(
                    ErrorCode::ValidationError,
                    "the upload URL has expired",
                )));
            }
            Err(UploadRefusal::TooLarge { max_bytes }) => {
                return Err(AppError::Rejected(DomainError::new(
                    ErrorCode::FileTooLarge,
                    format!("the upload exceeds the {max_bytes} bytes it was signed for"),
                )));
            }
        }
        self.ports.blobs.put(key, bytes, content_type_for(key)).await?;
        Ok(self.ports.blobs.public_url(key))
    }

    /// A direct-upload URL for a document of at most `max_bytes` (CONTRACT §10).
    pub async fn presign_document_upload(
        &self,
        p: &Principal,
        file_name: Option<&str>,
        mime_type: Option<&str>,
        file_size: Option<u64>,
        max_bytes: u64,
    ) -> Result<(PresignedUpload, String), AppError> {
        let mut v = lore_domain::error::Validator::new();
        let file_name = v.check(
            file_name.filter(|n| !n.trim().is_empty()).ok_or_else(|| DomainError::field("fileName", "is required")),
        );
        let mime = v.check(mime_type.ok_or_else(|| DomainError::field("mimeType", "is required")));
        let size = v.check(file_size.ok_or_else(|| DomainError::field("fileSize", "is required")));
        v.finish()?;
        let (Some(file_name), Some(mime), Some(size)) = (file_name, mime, size) else { unreachable!() };
        if size > max_bytes {
            return Err(AppError::Rejected(DomainError::new(
                ErrorCode::FileTooLarge,
                format!("the file has {size} bytes; at most {max_bytes} are allowed"),
            )));
        }
        let mime = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if !DOCUMENT_MIME_TYPES.contains(&mime.as_str()) {
            return Err(AppError::Rejected(DomainError::new(
                ErrorCode::UnsupportedFileType,
                "only PDF, DOCX, TXT and Markdown files are accepted",
            )));
        }
        let key = new_upload_key(p, file_name);
        let expires_at = Timestamp::from_millis(Timestamp::now().millis() + UPLOAD_URL_TTL_MS);
        let presigned = self.ports.blobs.presign_put(&key, &mime, size.max(1), expires_at)?;
        Ok((presigned, self.ports.blobs.public_url(&key)))
    }
}
