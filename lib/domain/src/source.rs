//! Knowledge sources of a chatbot (interface "Knowledge source"; CONTRACT §6): their kinds,
//! states and the validated values they are made of.

use crate::document::DocumentKind;
use crate::error::{DomainError, ErrorCode};
use crate::id::{ChatbotId, SourceId, WorkspaceId};
use crate::time::Timestamp;
use serde::Serialize;
use std::fmt;

pub const MAX_TEXT_CHARS: usize = 100_000;
pub const MAX_CHATBOT_FILE_BYTES: u64 = 10 * 1024 * 1024;
pub const MAX_SOURCE_NAME: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceType {
    Text,
    Url,
    File,
}

impl SourceType {
    pub const ALL: [SourceType; 3] = [SourceType::Text, SourceType::Url, SourceType::File];

    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Text => "text",
            SourceType::Url => "url",
            SourceType::File => "file",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    Pending,
    Processing,
    Ready,
    Error,
}

impl SourceStatus {
    pub const ALL: [SourceStatus; 4] =
        [SourceStatus::Pending, SourceStatus::Processing, SourceStatus::Ready, SourceStatus::Error];

    pub fn as_str(self) -> &'static str {
        match self {
            SourceStatus::Pending => "pending",
            SourceStatus::Processing => "processing",
            SourceStatus::Ready => "ready",
            SourceStatus::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for SourceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Text content: present, non-blank, at most 100,000 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextContent(String);

impl TextContent {
    pub fn parse(s: Option<&str>) -> Result<Self, DomainError> {
        let s = s.unwrap_or("");
        if s.trim().is_empty() {
            return Err(DomainError::new(ErrorCode::MissingContent, "a text source needs non-empty `content`"));
        }
        let chars = s.chars().count();
        if chars > MAX_TEXT_CHARS {
            return Err(DomainError::new(
                ErrorCode::ContentTooLarge,
                format!("`content` has {chars} characters; at most {MAX_TEXT_CHARS} are allowed"),
            ));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    pub fn byte_len(&self) -> u64 {
        self.0.len() as u64
    }
}

/// How far a crawl follows links: 1 (the page itself) to 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CrawlDepth(u8);

impl CrawlDepth {
    pub fn parse(v: Option<i64>) -> Result<Self, DomainError> {
        match v {
            None => Ok(Self(1)),
            Some(d @ 1..=5) => Ok(Self(d as u8)),
            Some(_) => Err(DomainError::field("crawlDepth", "must be an integer from 1 to 5")),
        }
    }

    pub fn get(self) -> u8 {
        self.0
    }

    pub fn from_stored(v: u8) -> Self {
        Self(v.clamp(1, 5))
    }
}

/// A source's display name: given, or the type's default (CONTRACT §6).
pub fn source_name(given: Option<&str>, default: &str) -> Result<String, DomainError> {
    match given.map(str::trim).filter(|s| !s.is_empty()) {
        Some(n) if n.chars().count() > MAX_SOURCE_NAME => {
            Err(DomainError::field("name", format!("must be at most {MAX_SOURCE_NAME} characters")))
        }
        Some(n) => Ok(n.to_owned()),
        None => Ok(default.chars().take(MAX_SOURCE_NAME).collect()),
    }
}

/// A stored upload: where its bytes are and what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    pub file_name: String,
    pub mime_type: String,
    pub kind: DocumentKind,
    /// The blob store key (`<workspace>/<upload id>/<file name>`).
    pub blob_key: String,
    pub file_url: String,
    pub size_bytes: u64,
}

/// What a source is made of, per type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSpec {
    Text { content: String },
    Url { url: String, crawl_depth: CrawlDepth, pages_crawled: u32, last_refreshed_at: Option<Timestamp> },
    File(StoredFile),
}

impl SourceSpec {
    pub fn source_type(&self) -> SourceType {
        match self {
            SourceSpec::Text { .. } => SourceType::Text,
            SourceSpec::Url { .. } => SourceType::Url,
            SourceSpec::File(_) => SourceType::File,
        }
    }
}

/// What a running job reports while it works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// `queued`, `extracting`, `crawling`, `chunking`, `embedding`, `indexing`.
    pub stage: String,
    pub done: u64,
    pub total: u64,
}

impl Progress {
    pub fn new(stage: &str, done: u64, total: u64) -> Self {
        Self { stage: stage.to_owned(), done, total }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnowledgeSource {
    pub id: SourceId,
    pub workspace_id: WorkspaceId,
    pub chatbot_id: ChatbotId,
    pub name: String,
    pub status: SourceStatus,
    pub spec: SourceSpec,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub processed_at: Option<Timestamp>,
    pub chunk_count: u64,
    /// Text: content bytes; file: stored bytes; url: extracted text bytes (after processing).
    pub size_bytes: u64,
    pub error: Option<String>,
    pub content_hash: Option<String>,
    pub progress: Option<Progress>,
    /// Bumped by every process/refresh; results of an older run are dropped.
    pub generation: u64,
}

impl KnowledgeSource {
    pub fn source_type(&self) -> SourceType {
        self.spec.source_type()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_bounds_use_characters() {
        assert_eq!(TextContent::parse(None).unwrap_err().code, ErrorCode::MissingContent);
        assert_eq!(TextContent::parse(Some("  \n")).unwrap_err().code, ErrorCode::MissingContent);
        assert!(TextContent::parse(Some(&"é".repeat(MAX_TEXT_CHARS))).is_ok());
        assert_eq!(
            TextContent::parse(Some(&"a".repeat(MAX_TEXT_CHARS + 1))).unwrap_err().code,
            ErrorCode::ContentTooLarge
        );
    }

    #[test]
    fn crawl_depth_bounds() {
        assert_eq!(CrawlDepth::parse(None).unwrap().get(), 1);
        assert_eq!(CrawlDepth::parse(Some(5)).unwrap().get(), 5);
        for bad in [0, 6, -1] {
            assert_eq!(CrawlDepth::parse(Some(bad)).unwrap_err().fields.keys().next().unwrap(), "crawlDepth");
        }
    }

    #[test]
    fn names_default_per_type() {
        assert_eq!(source_name(None, "Untitled text").unwrap(), "Untitled text");
        assert_eq!(source_name(Some("  "), "x").unwrap(), "x");
        assert!(source_name(Some(&"n".repeat(201)), "x").is_err());
    }
}
