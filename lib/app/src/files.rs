//! Uploaded files (CONTRACT §10): storing an upload of a chatbot or a Mind, signed direct
//! uploads, and serving files at their public URL.
//!
//! Blob keys always start with the workspace id — `<workspace>/upl_<id>/<name>` for chatbot
//! uploads, `<workspace>/<mind id>/upl_<id>/<name>` for Mind uploads — so a `fileUrl` maps back
//! (`BlobStore::key_for_url`) to a key whose first segment says which workspace may use it.

use crate::auth::Principal;
use crate::knowledge_ports::{PresignedUpload, UploadRefusal};
use crate::{App, AppError};
use lore_domain::audio::{AudioFormat, MAX_AUDIO_UPLOAD_BYTES};
use lore_domain::document::DocumentKind;
use lore_domain::id::{MindId, SourceId};
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
    /// Chatbot files: documents of at most 10 MB (CONTRACT §6).
    pub const CHATBOT: Self = Self { document_max: MAX_CHATBOT_FILE_BYTES, audio_max: None };
    /// Mind uploads: documents of at most 50 MB, audio of at most 500 MB (CONTRACT §10).
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

/// A file received with a request.
#[derive(Debug, Clone)]
pub struct ReceivedFile {
    /// The name the client gave it.
    pub file_name: String,
    pub bytes: Vec<u8>,
    /// The audio format of the bytes, decided by content by the caller
    /// (`lore_extract::audio::sniff_audio`): this crate cannot depend on `lore-extract` (which
    /// depends on it), and the `Extractor` port recognises documents only.
    pub audio: Option<AudioFormat>,
}

/// A stored upload: the flat upload result of CONTRACT §16.3.
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

/// `file_too_large` for a file of `size` bytes over `max` (CONTRACT §16.11).
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
                return Err(rejected(ErrorCode::ValidationError, "the upload URL has expired"));
            }
            Err(UploadRefusal::TooLarge { max_bytes }) => {
                return Err(rejected(
                    ErrorCode::FileTooLarge,
                    format!("the upload exceeds the {max_bytes} bytes it was signed for"),
                ));
            }
        }
        self.ports.blobs.put(key, bytes, content_type_for(key)).await?;
        Ok(self.ports.blobs.public_url(key))
    }

    /// Stores a file uploaded to the Mind (documents ≤ 50 MB, audio ≤ 500 MB, decided by
    /// content). `wanted`: the category the client asked for, if any; a file of the other
    /// category is `unsupported_file_type`.
    pub async fn upload_mind_file(
        &self,
        p: &Principal,
        mind: &MindId,
        file: ReceivedFile,
        wanted: Option<FileCategory>,
    ) -> Result<Upload, AppError> {
        self.find_mind(p, mind).await?;
        self.store_file(p, UploadOwner::Mind(mind), UploadRules::MIND, file, wanted).await
    }

    /// Stores an upload of `owner` after checking its size and, by content, its category.
    pub async fn store_file(
        &self,
        p: &Principal,
        owner: UploadOwner<'_>,
        rules: UploadRules,
        file: ReceivedFile,
        wanted: Option<FileCategory>,
    ) -> Result<Upload, AppError> {
        let size = file.bytes.len() as u64;
        if size == 0 {
            return Err(rejected(ErrorCode::MissingFile, "the uploaded file is empty"));
        }
        if size > rules.max_bytes() {
            return Err(file_too_large(size, rules.max_bytes()));
        }
        let file_name = display_file_name(&file.file_name);
        let (category, mime_type, kind) = match file.audio.filter(|_| rules.audio_max.is_some()) {
            Some(format) => (FileCategory::Audio, format.mime_type(), None),
            None => {
                let kind =
                    self.ports.extractor.sniff(&file.bytes, Some(&file_name)).ok_or_else(|| rules.unsupported())?;
                (FileCategory::Document, kind.mime_type(), Some(kind))
            }
        };
        let max = rules.max_for(category).ok_or_else(|| rules.unsupported())?;
        if size > max {
            return Err(file_too_large(size, max));
        }
        if let Some(wanted) = wanted.filter(|w| *w != category) {
            return Err(rejected(
                ErrorCode::UnsupportedFileType,
                format!("the file is {}, not {}", describe(category), describe(wanted)),
            ));
        }
        let key = new_owned_upload_key(p, owner, &file_name);
        self.ports.blobs.put(&key, file.bytes, mime_type).await?;
        Ok(Upload {
            file_url: self.ports.blobs.public_url(&key),
            file_name,
            mime_type: mime_type.to_owned(),
            file_size: size,
            category,
            kind,
            blob_key: key,
        })
    }

    /// A direct-upload URL for a file of the Mind (CONTRACT §10).
    pub async fn presign_mind_upload(
        &self,
        p: &Principal,
        mind: &MindId,
        declared: DeclaredFile<'_>,
    ) -> Result<DirectUpload, AppError> {
        self.find_mind(p, mind).await?;
        self.presign_upload(p, UploadOwner::Mind(mind), UploadRules::MIND, declared)
    }

    /// A direct-upload URL for a file the client declared (name, MIME type, size), checked
    /// against `rules`; the URL accepts at most the declared size.
    pub fn presign_upload(
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
        let presigned = self.ports.blobs.presign_put(&key, content_type, size, expires_at)?;
        Ok(DirectUpload { presigned, file_url: self.ports.blobs.public_url(&key), category })
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
