//! Uploaded files (docs/api.md §10): storing an upload of a chatbot or a Mind, signed direct
//! uploads, and serving files at their public URL.
//!
//! Blob keys always start with the workspace id — `<workspace>/upl_<id>/<name>` for chatbot
//! uploads, `<workspace>/<mind id>/upl_<id>/<name>` for Mind uploads — so a `fileUrl` maps back
//! (`BlobStore::key_for_url`) to a key whose first segment says which workspace may use it.

pub(crate) mod quota;

use crate::auth::Principal;
use crate::ports::{BlobRead, ByteRange};
use crate::ports::{ByteStream, Bytes, PresignedUpload, SlotBudget, SlotKind, StreamPutError, UploadRefusal};
use crate::slots::Slot;
use crate::{App, AppError};
use futures::StreamExt;
use lore_domain::audio::{AudioFormat, MAX_AUDIO_UPLOAD_BYTES};
use lore_domain::document::DocumentKind;
use lore_domain::id::{MindId, SourceId, WorkspaceId};
use lore_domain::mind::MAX_MIND_DOCUMENT_BYTES;
use lore_domain::source::MAX_CHATBOT_FILE_BYTES;
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// How long a signed upload URL stays valid.
const UPLOAD_URL_TTL_MS: i64 = 15 * 60 * 1000;

/// Document types an upload URL may be asked for, with the type the URL is signed for (the
/// bytes are sniffed again when a source is made from them).
const DOCUMENT_MIME_TYPES: &[(&str, &str)] = &[
    ("application/pdf", "application/pdf"),
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ("text/plain", "text/plain"),
    ("text/markdown", "text/markdown"),
    ("text/x-markdown", "text/markdown"),
    ("text/csv", "text/csv"),
    ("application/csv", "text/csv"),
    ("text/tab-separated-values", "text/tab-separated-values"),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ),
    ("application/vnd.oasis.opendocument.spreadsheet", "application/vnd.oasis.opendocument.spreadsheet"),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ),
    ("application/epub+zip", "application/epub+zip"),
    ("application/vnd.oasis.opendocument.text", "application/vnd.oasis.opendocument.text"),
    ("application/rtf", "application/rtf"),
    ("text/rtf", "application/rtf"),
];

/// Audio types an upload URL may be asked for (MP3, WAV, M4A, OGG and their common aliases).
const AUDIO_MIME_TYPES: &[(&str, AudioFormat)] = &[
    ("audio/mpeg", AudioFormat::Mp3),
    ("audio/mp3", AudioFormat::Mp3),
    ("audio/mpeg3", AudioFormat::Mp3),
    ("audio/x-mpeg-3", AudioFormat::Mp3),
    ("audio/wav", AudioFormat::Wav),
    ("audio/x-wav", AudioFormat::Wav),
    ("audio/wave", AudioFormat::Wav),
    ("audio/vnd.wave", AudioFormat::Wav),
    ("audio/mp4", AudioFormat::M4a),
    ("audio/m4a", AudioFormat::M4a),
    ("audio/x-m4a", AudioFormat::M4a),
    ("audio/ogg", AudioFormat::Ogg),
    ("audio/opus", AudioFormat::Ogg),
    ("audio/vorbis", AudioFormat::Ogg),
    ("application/ogg", AudioFormat::Ogg),
];

/// The content type a stored file is served with, from its name.
pub fn content_type_for(key: &str) -> &'static str {
    let ext = key.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => "application/pdf",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "md" | "markdown" => "text/markdown; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        "csv" => "text/csv; charset=utf-8",
        "tsv" => "text/tab-separated-values; charset=utf-8",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ods" => "application/vnd.oasis.opendocument.spreadsheet",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "epub" => "application/epub+zip",
        "odt" => "application/vnd.oasis.opendocument.text",
        "rtf" => "application/rtf",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" => "audio/mp4",
        "ogg" | "opus" => "audio/ogg",
        _ => "application/octet-stream",
    }
}

/// What an uploaded file is: the `category` of the upload result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileCategory {
    /// PDF, DOCX, TXT or Markdown: usable as a document (or chatbot file) source.
    Document,
    /// MP3, WAV, M4A or OGG: usable as a podcast source.
    Audio,
}

impl FileCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            FileCategory::Document => "document",
            FileCategory::Audio => "audio",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "document" => Some(FileCategory::Document),
            "audio" => Some(FileCategory::Audio),
            _ => None,
        }
    }
}

/// What the uploads of one kind of owner accept, and how large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UploadRules {
    pub document_max: u64,
    /// `None`: audio is not accepted.
    pub audio_max: Option<u64>,
}

impl UploadRules {
    /// Chatbot files: documents of at most 10 MB (docs/api.md §6).
    pub const CHATBOT: Self = Self { document_max: MAX_CHATBOT_FILE_BYTES, audio_max: None };
    /// Mind uploads: documents of at most 50 MB, audio of at most 500 MB (docs/api.md §10).
    pub const MIND: Self = Self { document_max: MAX_MIND_DOCUMENT_BYTES, audio_max: Some(MAX_AUDIO_UPLOAD_BYTES) };

    /// The largest file of any accepted category: a body over it can be refused unread.
    pub fn max_bytes(self) -> u64 {
        self.audio_max.map_or(self.document_max, |a| a.max(self.document_max))
    }

    fn max_for(self, category: FileCategory) -> Option<u64> {
        match category {
            FileCategory::Document => Some(self.document_max),
            FileCategory::Audio => self.audio_max,
        }
    }

    fn unsupported(self) -> AppError {
        rejected(
            ErrorCode::UnsupportedFileType,
            if self.audio_max.is_some() {
                "only documents (PDF, DOCX, TXT, Markdown) and audio (MP3, WAV, M4A, OGG) are accepted"
            } else {
                "only PDF, DOCX, TXT and Markdown files are accepted"
            },
        )
    }
}

/// Who an upload belongs to: decides its blob key.
#[derive(Debug, Clone, Copy)]
pub enum UploadOwner<'a> {
    /// A chatbot file (any chatbot of the workspace may use it).
    Chatbot,
    Mind(&'a MindId),
}

/// A file arriving with a request: the name the client gave it and its bytes as they flow.
pub struct IncomingFile<'a, 'b> {
    pub file_name: String,
    pub body: &'a mut ByteStream<'b>,
}

/// A signed direct upload whose URL was checked, before its bytes are read.
#[derive(Debug, Clone)]
pub struct SignedPut {
    key: String,
    workspace: WorkspaceId,
    max_bytes: u64,
}

/// How many first bytes decide an upload's type (a DOCX is recognised by the names at the
/// start of its archive; audio by its first frames).
pub(crate) const SNIFF_BYTES: usize = 64 * 1024;

/// The first bytes of `body` (fewer when it is shorter).
async fn read_head(body: &mut ByteStream<'_>) -> Result<Vec<u8>, AppError> {
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    while head.len() < SNIFF_BYTES {
        match body.next().await {
            None => break,
            Some(chunk) => head.extend_from_slice(&chunk.map_err(|e| body_error(&e))?),
        }
    }
    Ok(head)
}

/// Reads the rest of `body` without keeping it, stopping after `limit` bytes; how many bytes
/// it read. (Bodies with a route limit end there anyway.)
async fn drain(body: &mut ByteStream<'_>, limit: u64) -> u64 {
    let mut n = 0;
    while n <= limit
        && let Some(Ok(chunk)) = body.next().await
    {
        n += chunk.len() as u64;
    }
    n
}

/// The answer to a request body that failed while it was read: `request_timeout` when the
/// client stopped sending, `payload_too_large` over the route's limit, else a malformed body.
pub fn body_error(e: &std::io::Error) -> AppError {
    match e.kind() {
        std::io::ErrorKind::TimedOut => {
            rejected(ErrorCode::RequestTimeout, "the request body stopped arriving; send it without pauses")
        }
        std::io::ErrorKind::FileTooLarge => rejected(ErrorCode::PayloadTooLarge, e.to_string()),
        _ => rejected(ErrorCode::ValidationError, format!("the request body could not be read: {e}")),
    }
}

fn wrong_category(category: FileCategory, wanted: FileCategory) -> AppError {
    rejected(ErrorCode::UnsupportedFileType, format!("the file is {}, not {}", describe(category), describe(wanted)))
}

/// The `maxBytes` a signed upload URL's query names (the signature covers it).
fn signed_max_bytes(query: &str) -> Option<u64> {
    query.split('&').find_map(|kv| kv.strip_prefix("maxBytes=")).and_then(|v| v.parse().ok())
}

/// A stored upload: the flat upload result of docs/api.md §16.3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upload {
    pub file_url: String,
    pub file_name: String,
    pub mime_type: String,
    pub file_size: u64,
    pub category: FileCategory,
    /// The document kind decided by content (`None` for audio).
    pub kind: Option<DocumentKind>,
    pub blob_key: String,
}

/// A signed direct upload and the `fileUrl` its bytes will have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectUpload {
    pub presigned: PresignedUpload,
    pub file_url: String,
    pub category: FileCategory,
}

/// What a client declared of a file it will PUT itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeclaredFile<'a> {
    pub file_name: Option<&'a str>,
    pub mime_type: Option<&'a str>,
    pub file_size: Option<u64>,
}

fn rejected(code: ErrorCode, message: impl Into<String>) -> AppError {
    AppError::Rejected(DomainError::new(code, message))
}

/// `file_too_large` for a file of `size` bytes over `max` (docs/api.md §16.11).
pub fn file_too_large(size: u64, max: u64) -> AppError {
    rejected(ErrorCode::FileTooLarge, format!("the file has {size} bytes; at most {max} are allowed"))
}

/// A display file name: the last path segment, without control characters, at most 200 chars.
pub(crate) fn display_file_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = last.chars().filter(|c| !c.is_control()).take(200).collect();
    let cleaned = cleaned.trim().trim_start_matches('.').to_owned();
    if cleaned.is_empty() { "file".to_owned() } else { cleaned }
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

/// A new blob key in the caller's workspace: `<workspace>/upl_<id>/<safe file name>` for a
/// chatbot, `<workspace>/<mind id>/upl_<id>/<safe file name>` for a Mind.
pub(crate) fn new_owned_upload_key(p: &Principal, owner: UploadOwner<'_>, file_name: &str) -> String {
    let upload = SourceId::generate().as_str().replacen("src_", "upl_", 1);
    let name = blob_file_name(file_name);
    match owner {
        UploadOwner::Chatbot => format!("{}/{upload}/{name}", p.workspace_id()),
        UploadOwner::Mind(mind) => format!("{}/{mind}/{upload}/{name}", p.workspace_id()),
    }
}

/// The category and signed content type of a declared MIME type.
fn declared_type(mime: &str) -> Option<(FileCategory, &'static str)> {
    let mime = mime.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if let Some((_, canonical)) = DOCUMENT_MIME_TYPES.iter().find(|(m, _)| *m == mime) {
        return Some((FileCategory::Document, canonical));
    }
    AUDIO_MIME_TYPES.iter().find(|(m, _)| *m == mime).map(|(_, f)| (FileCategory::Audio, f.mime_type()))
}

impl App {
    /// The size of the file behind a public file URL: to answer a range request.
    pub async fn public_file_size(&self, key: &str) -> Result<u64, AppError> {
        Ok(self.ports.storage.blobs.head(key, 0).await?.ok_or(AppError::NotFound("file"))?.size)
    }

    /// The file behind a public file URL (or `range` of it), streamed, and its content type.
    pub async fn public_file(&self, key: &str, range: Option<ByteRange>) -> Result<(BlobRead, &'static str), AppError> {
        let read = self.ports.storage.blobs.read(key, range).await?.ok_or(AppError::NotFound("file"))?;
        Ok((read, content_type_for(key)))
    }

    /// Checks a signed direct upload before its body is read: the signature, the expiry and the
    /// declared size (`Content-Length`, when the client sent one). Returns the upload's
    /// workspace and the most bytes the URL accepts.
    pub fn check_signed_upload(
        &self,
        key: &str,
        query: &str,
        declared_size: Option<u64>,
    ) -> Result<SignedPut, AppError> {
        let max_bytes = signed_max_bytes(query).ok_or(AppError::NotFound("upload"))?;
        let size = declared_size.unwrap_or(0);
        match self.ports.storage.blobs.verify_signed_put(key, query, size, Timestamp::now()) {
            Ok(()) => {}
            Err(UploadRefusal::BadSignature) => return Err(AppError::NotFound("upload")),
            Err(UploadRefusal::Expired) => {
                return Err(rejected(ErrorCode::ValidationError, "the upload URL has expired"));
            }
            Err(UploadRefusal::TooLarge { max_bytes }) => {
                return Err(rejected(
                    ErrorCode::FileTooLarge,
                    format!("the upload exceeds the {max_bytes} bytes it was signed for"),
                ));
            }
        }
        let workspace = key.split('/').next().and_then(WorkspaceId::parse).ok_or(AppError::NotFound("upload"))?;
        Ok(SignedPut { key: key.to_owned(), workspace, max_bytes })
    }

    /// Receives the bytes of a signed direct upload checked by [`App::check_signed_upload`]:
    /// streamed to storage within the signed size, then checked by content — the bytes must be
    /// a document or audio as the key's owner accepts (a Mind's uploads may be audio) — and
    /// counted against the workspace's quota with their real size. Anything refused is deleted.
    pub async fn signed_upload(&self, put: SignedPut, body: &mut ByteStream<'_>) -> Result<String, AppError> {
        let slot = self.upload_slot(&put.workspace).await?;
        slot.around(self.receive_signed_upload(put, body)).await
    }

    async fn receive_signed_upload(&self, put: SignedPut, body: &mut ByteStream<'_>) -> Result<String, AppError> {
        let rules = if put.key.split('/').count() > 3 { UploadRules::MIND } else { UploadRules::CHATBOT };
        let head = read_head(body).await?;
        let file_name = put.key.rsplit('/').next().unwrap_or("file").to_owned();
        let (category, _, _) = match self.sniff_upload(rules, &head, &file_name) {
            Ok(sniffed) => sniffed,
            Err(e) => {
                // Read the rest (at most the signed size) so the client gets the answer instead
                // of a reset connection.
                drain(body, put.max_bytes).await;
                return Err(e);
            }
        };
        let content_type = content_type_for(&put.key);
        let max = rules.max_for(category).unwrap_or(0).min(put.max_bytes);
        let size = self.put_body(&put.key, content_type, head, body, max).await?;
        if let Err(e) = self.charge_upload(&put.workspace, &put.key, size).await {
            let _ = self.ports.storage.blobs.delete(&put.key).await;
            return Err(e);
        }
        Ok(self.ports.storage.blobs.public_url(&put.key))
    }

    /// Room for one more upload of the workspace being received, held until the guard drops;
    /// `rate_limited` when it already receives `uploads_per_workspace` (one tenant cannot hold
    /// every connection and byte of the upload path).
    pub async fn upload_slot(&self, ws: &WorkspaceId) -> Result<Slot, AppError> {
        let limit = self.config.uploads_per_workspace.max(1);
        let budget = SlotBudget { workspace: ws.clone(), kind: SlotKind::Uploads };
        Slot::take(&self.ports.storage.slots, budget, limit, self.config.slot_lease).await?.ok_or_else(|| {
            AppError::Busy {
                what: format!("this workspace already has {limit} uploads in progress"),
                retry_after_secs: 5,
            }
        })
    }

    /// Stores an upload of `owner` as its bytes arrive: its category is decided by content from
    /// the first bytes, the bytes are streamed to storage within the category's limit, and the
    /// stored size is counted against the workspace's quota. Memory stays bounded whatever the
    /// size; anything refused after the bytes arrived is deleted.
    pub async fn store_file(
        &self,
        p: &Principal,
        owner: UploadOwner<'_>,
        rules: UploadRules,
        file: IncomingFile<'_, '_>,
        wanted: Option<FileCategory>,
    ) -> Result<Upload, AppError> {
        let slot = self.upload_slot(p.workspace_id()).await?;
        slot.around(self.receive_file(p, owner, rules, file, wanted)).await
    }

    async fn receive_file(
        &self,
        p: &Principal,
        owner: UploadOwner<'_>,
        rules: UploadRules,
        file: IncomingFile<'_, '_>,
        wanted: Option<FileCategory>,
    ) -> Result<Upload, AppError> {
        let body = file.body;
        let head = read_head(body).await?;
        if head.is_empty() {
            return Err(rejected(ErrorCode::MissingFile, "the uploaded file is empty"));
        }
        let file_name = display_file_name(&file.file_name);
        let sniffed = self.sniff_upload(rules, &head, &file_name);
        let (category, mime_type, kind) = match sniffed {
            Ok(s) => s,
            Err(e) => {
                // Read to the end (bounded by the route's body limit) so the client gets the
                // answer instead of a reset connection.
                drain(body, u64::MAX).await;
                return Err(e);
            }
        };
        if let Some(wanted) = wanted.filter(|w| *w != category) {
            drain(body, u64::MAX).await;
            return Err(wrong_category(category, wanted));
        }
        let max = rules.max_for(category).ok_or_else(|| rules.unsupported())?;
        let key = new_owned_upload_key(p, owner, &file_name);
        // An HTML upload is knowledge, not a page to serve: stored as bytes, never rendered from
        // the file store's origin.
        let stored_type = if mime_type == "text/html" { "application/octet-stream" } else { mime_type };
        let size = self.put_body(&key, stored_type, head, body, max).await?;
        if let Err(e) = self.charge_upload(p.workspace_id(), &key, size).await {
            let _ = self.ports.storage.blobs.delete(&key).await;
            return Err(e);
        }
        Ok(Upload {
            file_url: self.ports.storage.blobs.public_url(&key),
            file_name,
            mime_type: mime_type.to_owned(),
            file_size: size,
            category,
            kind,
            blob_key: key,
        })
    }

    /// Refuses a stored upload of another category than `wanted` (a category the client named
    /// after the file): the upload is deleted.
    pub async fn keep_if_category(
        &self,
        p: &Principal,
        up: Upload,
        wanted: Option<FileCategory>,
    ) -> Result<Upload, AppError> {
        match wanted.filter(|w| *w != up.category) {
            None => Ok(up),
            Some(wanted) => {
                self.discard_upload(p, &up).await?;
                Err(wrong_category(up.category, wanted))
            }
        }
    }

    /// Removes an upload its request refused after storing it: the file and its charge.
    pub async fn discard_upload(&self, p: &Principal, up: &Upload) -> Result<(), AppError> {
        self.ports.storage.blobs.delete(&up.blob_key).await?;
        self.release_upload(p.workspace_id(), &up.blob_key).await?;
        Ok(())
    }

    /// The category, MIME type and document kind of an upload, by its first bytes.
    fn sniff_upload(
        &self,
        rules: UploadRules,
        head: &[u8],
        file_name: &str,
    ) -> Result<(FileCategory, &'static str, Option<DocumentKind>), AppError> {
        if rules.audio_max.is_some()
            && let Some(format) = self.ports.shared.extractor.sniff_audio(head)
        {
            return Ok((FileCategory::Audio, format.mime_type(), None));
        }
        let kind = self.ports.shared.extractor.sniff(head, Some(file_name)).ok_or_else(|| rules.unsupported())?;
        Ok((FileCategory::Document, kind.mime_type(), Some(kind)))
    }

    /// Streams `head` and the rest of `body` to `key`, at most `max` bytes.
    async fn put_body(
        &self,
        key: &str,
        content_type: &str,
        head: Vec<u8>,
        body: &mut ByteStream<'_>,
        max: u64,
    ) -> Result<u64, AppError> {
        let seen = head.len() as u64;
        let result = {
            let mut whole: ByteStream<'_> =
                Box::pin(futures::stream::once(async move { Ok(Bytes::from(head)) }).chain(&mut *body));
            self.ports.storage.blobs.put_stream(key, content_type, &mut whole, max).await
        };
        match result {
            Ok(size) => Ok(size),
            Err(StreamPutError::TooLarge { max_bytes }) => {
                // Read on (at most as much again) so the client gets the answer; the size
                // reported is then a lower bound for a body larger still.
                let rest = drain(body, max_bytes).await;
                Err(file_too_large((max_bytes + 1).max(seen) + rest, max_bytes))
            }
            Err(StreamPutError::Body(e)) => Err(body_error(&e)),
            Err(StreamPutError::Store(e)) => Err(e.into()),
        }
    }

    /// A direct-upload URL for a file of the Mind (docs/api.md §10).
    pub async fn presign_mind_upload(
        &self,
        p: &Principal,
        mind: &MindId,
        declared: DeclaredFile<'_>,
    ) -> Result<DirectUpload, AppError> {
        self.find_mind(p, mind).await?;
        self.presign_upload(p, UploadOwner::Mind(mind), UploadRules::MIND, declared).await
    }

    /// A direct-upload URL for a file the client declared (name, MIME type, size), checked
    /// against `rules` and against the room left in the workspace's quota; the URL accepts at
    /// most the declared size. The bytes count against the quota once they arrived.
    pub async fn presign_upload(
        &self,
        p: &Principal,
        owner: UploadOwner<'_>,
        rules: UploadRules,
        declared: DeclaredFile<'_>,
    ) -> Result<DirectUpload, AppError> {
        let mut v = lore_domain::error::Validator::new();
        let file_name = v.check(
            declared
                .file_name
                .filter(|n| !n.trim().is_empty())
                .ok_or_else(|| DomainError::field("fileName", "is required")),
        );
        let mime = v.check(
            declared
                .mime_type
                .filter(|m| !m.trim().is_empty())
                .ok_or_else(|| DomainError::field("mimeType", "is required")),
        );
        let size = v.check(match declared.file_size {
            None => Err(DomainError::field("fileSize", "is required")),
            Some(0) => Err(DomainError::field("fileSize", "must be at least 1 byte")),
            Some(n) => Ok(n),
        });
        v.finish()?;
        let (Some(file_name), Some(mime), Some(size)) = (file_name, mime, size) else { unreachable!() };
        let (category, content_type) =
            declared_type(mime).filter(|(c, _)| rules.max_for(*c).is_some()).ok_or_else(|| rules.unsupported())?;
        let max = rules.max_for(category).unwrap_or(0);
        if size > max {
            return Err(file_too_large(size, max));
        }
        let key = new_owned_upload_key(p, owner, file_name);
        let expires_at = Timestamp::from_millis(Timestamp::now().millis() + UPLOAD_URL_TTL_MS);
        let presigned = self.ports.storage.blobs.presign_put(&key, content_type, size, expires_at)?;
        self.check_storage_room(p.workspace_id(), &key, size).await?;
        Ok(DirectUpload { presigned, file_url: self.ports.storage.blobs.public_url(&key), category })
    }
}

fn describe(c: FileCategory) -> &'static str {
    match c {
        FileCategory::Document => "a document",
        FileCategory::Audio => "audio",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_to_categories_and_signed_types() {
        assert_eq!(declared_type("application/pdf"), Some((FileCategory::Document, "application/pdf")));
        assert_eq!(declared_type("Text/X-Markdown; charset=utf-8"), Some((FileCategory::Document, "text/markdown")));
        assert_eq!(declared_type("audio/mp3"), Some((FileCategory::Audio, "audio/mpeg")));
        assert_eq!(declared_type("audio/x-m4a"), Some((FileCategory::Audio, "audio/mp4")));
        assert_eq!(declared_type("application/ogg"), Some((FileCategory::Audio, "audio/ogg")));
        assert_eq!(declared_type("application/x-msdownload"), None);
        assert_eq!(declared_type("video/mp4"), None);
    }

    #[test]
    fn rules_bound_each_category() {
        assert_eq!(UploadRules::CHATBOT.max_bytes(), 10 * 1024 * 1024);
        assert_eq!(UploadRules::CHATBOT.max_for(FileCategory::Audio), None);
        assert_eq!(UploadRules::MIND.max_bytes(), 500 * 1024 * 1024);
        assert_eq!(UploadRules::MIND.max_for(FileCategory::Document), Some(50 * 1024 * 1024));
        assert_eq!(FileCategory::parse("audio"), Some(FileCategory::Audio));
        assert_eq!(FileCategory::parse("podcast"), None);
    }

    #[test]
    fn file_names_are_made_safe_for_keys_and_display() {
        assert_eq!(blob_file_name("../../etc/pass wd.md"), "pass_wd.md");
        assert_eq!(blob_file_name("..."), "file");
        assert_eq!(display_file_name("C:\\docs\\Été 2026.pdf"), "Été 2026.pdf");
        assert_eq!(display_file_name(" \u{7}.hidden "), "hidden");
    }
}
