//! Knowledge sources of a chatbot (docs/api.md §6) or of a Mind
//! (docs/api.md §9): their owners, kinds, states and the validated values they are made of.
//!
//! Both owners share one record and one pipeline. The Mind vocabulary differs only in names:
//! a Mind's `document` is a [`SourceType::File`], its `failed` is [`SourceStatus::Error`]; the
//! HTTP layer translates.

use crate::audio::AudioFormat;
use crate::document::DocumentKind;
use crate::error::{DomainError, ErrorCode};
use crate::id::{ChatbotId, MindId, SourceId, WorkspaceId};
use crate::metadata::Metadata;
use crate::time::Timestamp;
use serde::Serialize;
use std::fmt;

pub const MAX_TEXT_CHARS: usize = 100_000;
pub const MAX_CHATBOT_FILE_BYTES: u64 = 10 * 1024 * 1024;
pub const MAX_SOURCE_NAME: usize = 200;
/// Largest document behind a Mind `document` source (docs/api.md §10).
pub const MAX_MIND_DOCUMENT_BYTES: u64 = 50 * 1024 * 1024;

/// Whose knowledge a source is. Stored as the owner's prefixed id, which names the kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SourceOwner {
    Chatbot(ChatbotId),
    Mind(MindId),
}

impl SourceOwner {
    /// The owner's prefixed id (`cb_…` or `mind_…`).
    pub fn as_str(&self) -> &str {
        match self {
            SourceOwner::Chatbot(id) => id.as_str(),
            SourceOwner::Mind(id) => id.as_str(),
        }
    }

    /// Reads a stored owner id back; the prefix tells the kind.
    pub fn parse(s: &str) -> Option<Self> {
        ChatbotId::parse(s).map(SourceOwner::Chatbot).or_else(|| MindId::parse(s).map(SourceOwner::Mind))
    }

    pub fn chatbot(&self) -> Option<&ChatbotId> {
        match self {
            SourceOwner::Chatbot(id) => Some(id),
            SourceOwner::Mind(_) => None,
        }
    }

    pub fn mind(&self) -> Option<&MindId> {
        match self {
            SourceOwner::Mind(id) => Some(id),
            SourceOwner::Chatbot(_) => None,
        }
    }

    pub fn is_mind(&self) -> bool {
        matches!(self, SourceOwner::Mind(_))
    }
}

impl fmt::Display for SourceOwner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<ChatbotId> for SourceOwner {
    fn from(id: ChatbotId) -> Self {
        SourceOwner::Chatbot(id)
    }
}

impl From<MindId> for SourceOwner {
    fn from(id: MindId) -> Self {
        SourceOwner::Mind(id)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceType {
    Text,
    Url,
    File,
    /// Audio, transcribed (Mind sources only).
    Podcast,
}

impl SourceType {
    /// Every type, by stored name.
    pub const ALL: [SourceType; 4] = [SourceType::Text, SourceType::Url, SourceType::File, SourceType::Podcast];
    /// The types a chatbot's knowledge base has (its `sourcesByType` always lists these).
    pub const CHATBOT: [SourceType; 3] = [SourceType::Text, SourceType::Url, SourceType::File];
    /// The types of a Mind's knowledge, in the Mind vocabulary's order.
    pub const MIND: [SourceType; 4] = [SourceType::Text, SourceType::Url, SourceType::File, SourceType::Podcast];

    /// The stored (and chatbot API) name.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceType::Text => "text",
            SourceType::Url => "url",
            SourceType::File => "file",
            SourceType::Podcast => "podcast",
        }
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// A chatbot API name (`text`, `url`, `file`).
    pub fn parse_chatbot(s: &str) -> Option<Self> {
        Self::CHATBOT.into_iter().find(|t| t.as_str() == s)
    }

    /// The name in the Mind API: a file is a `document`.
    pub fn mind_name(self) -> &'static str {
        match self {
            SourceType::File => "document",
            other => other.as_str(),
        }
    }

    /// A Mind API name (`text`, `url`, `document`, `podcast`).
    pub fn parse_mind(s: &str) -> Option<Self> {
        Self::MIND.into_iter().find(|t| t.mind_name() == s)
    }

    /// The name for `owner`'s API.
    pub fn name_for(self, owner: &SourceOwner) -> &'static str {
        if owner.is_mind() { self.mind_name() } else { self.as_str() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceStatus {
    Pending,
    Processing,
    /// Processing, while the audio of a podcast source is being transcribed.
    Transcribing,
    Ready,
    Error,
}

impl SourceStatus {
    /// Every status, by stored name.
    pub const ALL: [SourceStatus; 5] = [
        SourceStatus::Pending,
        SourceStatus::Processing,
        SourceStatus::Transcribing,
        SourceStatus::Ready,
        SourceStatus::Error,
    ];
    /// The statuses a chatbot source can have.
    pub const CHATBOT: [SourceStatus; 4] =
        [SourceStatus::Pending, SourceStatus::Processing, SourceStatus::Ready, SourceStatus::Error];
    /// The statuses of a run in flight: the record belongs to the run until it ends.
    pub const RUNNING: [SourceStatus; 2] = [SourceStatus::Processing, SourceStatus::Transcribing];

    /// The stored (and chatbot API) name.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceStatus::Pending => "pending",
            SourceStatus::Processing => "processing",
            SourceStatus::Transcribing => "transcribing",
            SourceStatus::Ready => "ready",
            SourceStatus::Error => "error",
        }
    }

    /// Reads a stored name back.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// A chatbot API name (`pending`, `processing`, `ready`, `error`).
    pub fn parse_chatbot(s: &str) -> Option<Self> {
        Self::CHATBOT.into_iter().find(|t| t.as_str() == s)
    }

    /// The name in the Mind API: an error is `failed`.
    pub fn mind_name(self) -> &'static str {
        match self {
            SourceStatus::Error => "failed",
            other => other.as_str(),
        }
    }

    /// A Mind API name (`pending`, `processing`, `transcribing`, `ready`, `failed`).
    pub fn parse_mind(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.mind_name() == s)
    }

    /// The name for `owner`'s API.
    pub fn name_for(self, owner: &SourceOwner) -> &'static str {
        if owner.is_mind() { self.mind_name() } else { self.as_str() }
    }

    pub fn is_running(self) -> bool {
        Self::RUNNING.contains(&self)
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

/// How often a url source is crawled again on its own (`refreshIntervalHours`): 1 to 8,760
/// hours (a year). A source without one is refreshed only when asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct RefreshInterval(u32);

impl RefreshInterval {
    pub const FIELD: &'static str = "refreshIntervalHours";
    pub const MAX_HOURS: u32 = 8_760;

    pub fn parse(hours: i64) -> Result<Self, DomainError> {
        match u32::try_from(hours) {
            Ok(h @ 1..=Self::MAX_HOURS) => Ok(Self(h)),
            _ => Err(DomainError::field(Self::FIELD, "must be an integer from 1 to 8760 (hours), or null")),
        }
    }

    /// A stored value; anything out of bounds reads as no schedule.
    pub fn from_stored(hours: u32) -> Option<Self> {
        Self::parse(i64::from(hours)).ok()
    }

    pub fn hours(self) -> u32 {
        self.0
    }

    fn millis(self) -> i64 {
        i64::from(self.0) * 3_600_000
    }
}

/// A source's display name: given, or the type's default (docs/api.md §6).
pub fn source_name(given: Option<&str>, default: &str) -> Result<String, DomainError> {
    Ok(SourceName::given_or(SourceName::parse(given)?, default))
}

/// A name a client gave a source: trimmed, 1 to [`MAX_SOURCE_NAME`] characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceName(String);

impl SourceName {
    /// `None` when no name (or only blanks) was given: the source is then named after what it
    /// holds.
    pub fn parse(given: Option<&str>) -> Result<Option<Self>, DomainError> {
        match given.map(str::trim).filter(|s| !s.is_empty()) {
            Some(n) if n.chars().count() > MAX_SOURCE_NAME => {
                Err(DomainError::field("name", format!("must be at most {MAX_SOURCE_NAME} characters")))
            }
            Some(n) => Ok(Some(Self(n.to_owned()))),
            None => Ok(None),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The given name, else `default` (what the source holds: "Untitled text", its URL, its
    /// file's name) cut to the longest name allowed.
    pub fn given_or(given: Option<Self>, default: &str) -> String {
        match given {
            Some(Self(n)) => n,
            None => default.chars().take(MAX_SOURCE_NAME).collect(),
        }
    }
}

/// Which vocabulary a create body's `type` is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceVocabulary {
    /// `text`, `url`, `file`.
    Chatbot,
    /// `text`, `url`, `document`, `podcast`.
    Mind,
}

/// A create body's members, as a client sent them.
#[derive(Debug, Clone, Copy, Default)]
pub struct SourceInput<'a> {
    pub source_type: Option<&'a str>,
    pub name: Option<&'a str>,
    pub content: Option<&'a str>,
    pub url: Option<&'a str>,
    pub crawl_depth: Option<i64>,
    pub refresh_interval_hours: Option<i64>,
    pub file_url: Option<&'a str>,
    pub metadata: Option<&'a serde_json::Value>,
}

/// What a client asked to create, checked (docs/api.md §6, §9): everything but what needs the
/// outside world, which the use case checks (a URL's address, an upload's record and bytes).
/// `U`: a document received with the request itself (multipart), stored before the source is
/// made.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSource<U> {
    pub name: Option<SourceName>,
    pub content: NewContent<U>,
    pub metadata: Metadata,
}

/// What a new source is made from.
#[derive(Debug, Clone, PartialEq)]
pub enum NewContent<U> {
    Text(TextContent),
    /// A trimmed, non-empty address; whether it may be fetched is the use case's check.
    Url {
        url: String,
        crawl_depth: CrawlDepth,
        refresh_interval: Option<RefreshInterval>,
    },
    /// The `fileUrl` of an earlier upload of the workspace: a chatbot's file, a Mind's document.
    FileUrl(String),
    /// The `fileUrl` of an uploaded audio file (Minds).
    Podcast(String),
    /// A document received with the request itself.
    Upload(U),
}

impl<U> NewSource<U> {
    /// A JSON create body (its first fault, in the order the members are documented: metadata,
    /// type, what the type needs, name).
    pub fn parse(vocabulary: SourceVocabulary, input: SourceInput<'_>) -> Result<Self, DomainError> {
        let metadata = Metadata::parse(input.metadata)?;
        let file_url = |message: &str| {
            input
                .file_url
                .map(str::trim)
                .filter(|u| !u.is_empty())
                .map(str::to_owned)
                .ok_or_else(|| DomainError::new(ErrorCode::MissingFile, message))
        };
        const FILE: &str = "a file source needs a file (multipart `file`) or a `fileUrl`";
        let content = match (vocabulary, input.source_type) {
            (_, Some("text")) => NewContent::Text(TextContent::parse(input.content)?),
            (_, Some("url")) => {
                let url = input
                    .url
                    .map(str::trim)
                    .filter(|u| !u.is_empty())
                    .ok_or_else(|| DomainError::new(ErrorCode::MissingUrl, "a url source needs `url`"))?;
                NewContent::Url {
                    url: url.to_owned(),
                    crawl_depth: CrawlDepth::parse(input.crawl_depth)?,
                    refresh_interval: input.refresh_interval_hours.map(RefreshInterval::parse).transpose()?,
                }
            }
            (SourceVocabulary::Chatbot, Some("file")) | (SourceVocabulary::Mind, Some("document")) => {
                NewContent::FileUrl(file_url(FILE)?)
            }
            (SourceVocabulary::Mind, Some("podcast")) => {
                NewContent::Podcast(file_url("a podcast source needs the `fileUrl` of an upload")?)
            }
            (SourceVocabulary::Chatbot, Some(_)) => {
                return Err(DomainError::field("type", "must be one of text, url, file"));
            }
            (SourceVocabulary::Mind, Some(_)) => {
                return Err(DomainError::field("type", "must be one of text, url, document, podcast"));
            }
            (SourceVocabulary::Chatbot, None) => {
                return Err(DomainError::field("type", "is required (text, url or file)"));
            }
            (SourceVocabulary::Mind, None) => {
                return Err(DomainError::field("type", "is required (text, url, document or podcast)"));
            }
        };
        Ok(Self { name: SourceName::parse(input.name)?, content, metadata })
    }

    /// A source of a document received with the request, named by `name` when given.
    pub fn upload(name: Option<SourceName>, upload: U, metadata: Metadata) -> Self {
        Self { name, content: NewContent::Upload(upload), metadata }
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

/// A stored audio upload behind a podcast source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAudio {
    pub file_name: String,
    pub mime_type: String,
    pub format: AudioFormat,
    /// The blob store key (`<workspace>/<mind>/<upload id>/<file name>`).
    pub blob_key: String,
    pub file_url: String,
    pub size_bytes: u64,
}

/// What a source is made of, per type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceSpec {
    Text {
        content: String,
    },
    Url {
        url: String,
        crawl_depth: CrawlDepth,
        pages_crawled: u32,
        last_refreshed_at: Option<Timestamp>,
        refresh_interval: Option<RefreshInterval>,
    },
    File(StoredFile),
    Podcast(StoredAudio),
}

impl SourceSpec {
    pub fn source_type(&self) -> SourceType {
        match self {
            SourceSpec::Text { .. } => SourceType::Text,
            SourceSpec::Url { .. } => SourceType::Url,
            SourceSpec::File(_) => SourceType::File,
            SourceSpec::Podcast(_) => SourceType::Podcast,
        }
    }

    /// The blob the source reads, for file and podcast sources.
    pub fn blob_key(&self) -> Option<&str> {
        match self {
            SourceSpec::File(f) => Some(&f.blob_key),
            SourceSpec::Podcast(a) => Some(&a.blob_key),
            _ => None,
        }
    }
}

/// How the pages of a crawl differ from the crawl before, each page known by the digest of
/// the chunks it gave (`knowledge.source.refreshed`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageChanges {
    pub added: u32,
    pub changed: u32,
    pub removed: u32,
    pub unchanged: u32,
}

impl PageChanges {
    /// Compares two crawls given as page URL → digest.
    pub fn between(
        before: &std::collections::HashMap<String, String>,
        after: &std::collections::HashMap<String, String>,
    ) -> Self {
        let mut c = Self::default();
        for (url, digest) in after {
            match before.get(url) {
                None => c.added += 1,
                Some(d) if d == digest => c.unchanged += 1,
                Some(_) => c.changed += 1,
            }
        }
        c.removed = before.keys().filter(|url| !after.contains_key(*url)).count() as u32;
        c
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
    pub owner: SourceOwner,
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
    /// The owner's tags, which search filters read; kept by processing and refresh.
    pub metadata: Metadata,
}

impl KnowledgeSource {
    pub fn source_type(&self) -> SourceType {
        self.spec.source_type()
    }

    /// When a url source with a refresh interval is due to be crawled again: the interval after
    /// its last crawl (after its last failed run, when it is in `error`). `None` without an
    /// interval, and while the source is pending (never processed: its owner starts it) or
    /// running.
    pub fn refresh_due_at(&self) -> Option<Timestamp> {
        let SourceSpec::Url { refresh_interval: Some(every), last_refreshed_at, .. } = &self.spec else {
            return None;
        };
        let since = match self.status {
            SourceStatus::Ready => last_refreshed_at.or(self.processed_at)?,
            SourceStatus::Error => self.updated_at,
            _ => return None,
        };
        Some(Timestamp::from_millis(since.millis().saturating_add(every.millis())))
    }
}

#[cfg(test)]
mod tests {
    fn parse(vocabulary: SourceVocabulary, input: SourceInput<'_>) -> Result<NewSource<()>, DomainError> {
        NewSource::parse(vocabulary, input)
    }

    #[test]
    fn a_new_source_is_checked_member_by_member_in_its_owners_vocabulary() {
        let text =
            SourceInput { source_type: Some("text"), content: Some("Refunds in 14 days."), ..Default::default() };
        let ok = parse(SourceVocabulary::Chatbot, text).unwrap();
        assert!(matches!(&ok.content, NewContent::Text(c) if c.as_str() == "Refunds in 14 days."));
        assert_eq!((ok.name, ok.metadata), (None, Metadata::default()));
        let url = SourceInput {
            source_type: Some("url"),
            url: Some("  https://example.com/docs "),
            name: Some(" Docs "),
            refresh_interval_hours: Some(24),
            ..Default::default()
        };
        let ok = parse(SourceVocabulary::Mind, url).unwrap();
        assert_eq!(ok.name.as_ref().map(SourceName::as_str), Some("Docs"));
        let NewContent::Url { url, crawl_depth, refresh_interval } = ok.content else { panic!() };
        assert_eq!(
            (url.as_str(), crawl_depth.get(), refresh_interval.map(|r| r.hours())),
            ("https://example.com/docs", 1, Some(24))
        );

        // `file` is a chatbot's word, `document` and `podcast` a Mind's.
        let file = SourceInput { source_type: Some("file"), file_url: Some("https://x/f.pdf"), ..Default::default() };
        assert!(matches!(parse(SourceVocabulary::Chatbot, file).unwrap().content, NewContent::FileUrl(_)));
        assert_eq!(parse(SourceVocabulary::Mind, file).unwrap_err().fields.keys().collect::<Vec<_>>(), ["type"]);
        let document = SourceInput { source_type: Some("document"), ..file };
        assert!(matches!(parse(SourceVocabulary::Mind, document).unwrap().content, NewContent::FileUrl(_)));
        assert!(parse(SourceVocabulary::Chatbot, document).is_err());
        let podcast = SourceInput { source_type: Some("podcast"), file_url: Some(" "), ..Default::default() };
        assert_eq!(parse(SourceVocabulary::Mind, podcast).unwrap_err().code, ErrorCode::MissingFile);

        // Each fault with its code.
        let missing_type = SourceInput { content: Some("x"), ..Default::default() };
        assert!(parse(SourceVocabulary::Chatbot, missing_type).unwrap_err().fields.contains_key("type"));
        let empty = SourceInput { source_type: Some("text"), content: Some("  "), ..Default::default() };
        assert_eq!(parse(SourceVocabulary::Chatbot, empty).unwrap_err().code, ErrorCode::MissingContent);
        let no_url = SourceInput { source_type: Some("url"), ..Default::default() };
        assert_eq!(parse(SourceVocabulary::Chatbot, no_url).unwrap_err().code, ErrorCode::MissingUrl);
        let deep = SourceInput { crawl_depth: Some(6), url: Some("https://x"), ..no_url };
        assert!(parse(SourceVocabulary::Chatbot, deep).unwrap_err().fields.contains_key("crawlDepth"));
        let long = "n".repeat(MAX_SOURCE_NAME + 1);
        let named = SourceInput { name: Some(&long), ..text };
        assert!(parse(SourceVocabulary::Chatbot, named).unwrap_err().fields.contains_key("name"));
        let bad_metadata = serde_json::json!({"nested": {"no": 1}});
        let tagged = SourceInput { metadata: Some(&bad_metadata), ..text };
        assert!(parse(SourceVocabulary::Chatbot, tagged).unwrap_err().fields.contains_key("metadata"));
        // An upload keeps its given name; none given, the source is named after what it holds.
        assert_eq!(SourceName::given_or(None, &"f".repeat(300)).chars().count(), MAX_SOURCE_NAME);
    }

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
    fn owners_round_trip_through_their_ids() {
        let bot = SourceOwner::from(ChatbotId::generate());
        let mind = SourceOwner::from(MindId::generate());
        assert_eq!(SourceOwner::parse(bot.as_str()), Some(bot.clone()));
        assert_eq!(SourceOwner::parse(mind.as_str()), Some(mind.clone()));
        assert!(mind.is_mind() && !bot.is_mind());
        assert_eq!(SourceOwner::parse("src_01"), None);
    }

    #[test]
    fn mind_names_translate_file_and_error() {
        assert_eq!(SourceType::parse_mind("document"), Some(SourceType::File));
        assert_eq!(SourceType::parse_mind("file"), None);
        assert_eq!(SourceType::parse_chatbot("podcast"), None);
        assert_eq!(SourceStatus::parse_mind("failed"), Some(SourceStatus::Error));
        assert_eq!(SourceStatus::parse_mind("error"), None);
        assert_eq!(SourceStatus::parse_chatbot("transcribing"), None);
        for s in SourceStatus::ALL {
            assert_eq!(SourceStatus::parse(s.as_str()), Some(s));
            assert_eq!(SourceStatus::parse_mind(s.mind_name()), Some(s));
        }
    }

    #[test]
    fn refresh_is_due_an_interval_after_the_last_crawl_of_a_settled_source() {
        assert_eq!(RefreshInterval::parse(1).unwrap().hours(), 1);
        assert_eq!(RefreshInterval::parse(8_760).unwrap().hours(), 8_760);
        for bad in [0, -1, 8_761, i64::MAX] {
            assert!(RefreshInterval::parse(bad).unwrap_err().fields.contains_key("refreshIntervalHours"));
        }
        let at = |ms| Timestamp::from_millis(ms);
        let mut s = KnowledgeSource {
            id: SourceId::generate(),
            workspace_id: WorkspaceId::generate(),
            owner: SourceOwner::from(ChatbotId::generate()),
            name: "site".into(),
            status: SourceStatus::Ready,
            spec: SourceSpec::Url {
                url: "https://example.com".into(),
                crawl_depth: CrawlDepth::from_stored(1),
                pages_crawled: 1,
                last_refreshed_at: Some(at(1_000)),
                refresh_interval: RefreshInterval::from_stored(2),
            },
            created_at: at(0),
            updated_at: at(5_000),
            processed_at: Some(at(1_000)),
            chunk_count: 1,
            size_bytes: 1,
            error: None,
            content_hash: None,
            progress: None,
            generation: 1,
            metadata: Default::default(),
        };
        assert_eq!(s.refresh_due_at(), Some(at(1_000 + 7_200_000)));
        s.status = SourceStatus::Error;
        assert_eq!(s.refresh_due_at(), Some(at(5_000 + 7_200_000)), "a failed run waits a whole interval");
        for quiet in [SourceStatus::Pending, SourceStatus::Processing] {
            s.status = quiet;
            assert_eq!(s.refresh_due_at(), None);
        }
        s.status = SourceStatus::Ready;
        if let SourceSpec::Url { refresh_interval, .. } = &mut s.spec {
            *refresh_interval = None;
        }
        assert_eq!(s.refresh_due_at(), None, "no interval, no schedule");
    }

    #[test]
    fn page_changes_count_each_page_once() {
        let crawl = |pages: &[(&str, &str)]| -> std::collections::HashMap<String, String> {
            pages.iter().map(|(u, d)| (u.to_string(), d.to_string())).collect()
        };
        let before = crawl(&[("/a", "1"), ("/b", "2"), ("/c", "3")]);
        let after = crawl(&[("/a", "1"), ("/b", "9"), ("/d", "4"), ("/e", "5")]);
        assert_eq!(
            PageChanges::between(&before, &after),
            PageChanges { added: 2, changed: 1, removed: 1, unchanged: 1 }
        );
        assert_eq!(PageChanges::between(&before, &before).unchanged, 3);
    }

    #[test]
    fn names_default_per_type() {
        assert_eq!(source_name(None, "Untitled text").unwrap(), "Untitled text");
        assert_eq!(source_name(Some("  "), "x").unwrap(), "x");
        assert!(source_name(Some(&"n".repeat(201)), "x").is_err());
    }
}
