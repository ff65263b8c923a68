//! Knowledge-source use cases (docs/api.md §6; Mind knowledge
//! sources, docs/api.md §9). Both owners share them: the chatbot entry points here, the Mind ones in
//! `mind_sources.rs`.

use crate::auth::Principal;
use crate::files::Upload;
use crate::files::quota::storage_limit;
use crate::ports::UrlRejection;
use crate::ports::{CountLimit, Guarded, IngestJob, InsertLimits, Inserted, Lease, SourceFilter, SourceStats, Updated};
use crate::{App, AppError};
use lore_domain::audio::MAX_AUDIO_UPLOAD_BYTES;
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::event::{Event, EventType};
use lore_domain::id::{ChatbotId, SourceId, WorkspaceId};
use lore_domain::metadata::Metadata;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{
    KnowledgeSource, MAX_CHATBOT_FILE_BYTES, MAX_MIND_DOCUMENT_BYTES, NewContent, RefreshInterval, SourceName,
    SourceOwner, SourceSpec, SourceStatus, SourceType, StoredAudio, StoredFile, TextContent, source_name,
};
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// Statuses in which a source may be changed or deleted (not while a run holds it).
/// How much of an audio file is read to tell its format: the head, with room for an ID3 tag
/// carrying cover art before the first MP3 frame.
const AUDIO_SNIFF_BYTES: u64 = 2 * 1024 * 1024;
/// The first bytes that decide a document's kind (see `files::SNIFF_BYTES`).
const DOCUMENT_SNIFF_BYTES: u64 = crate::files::SNIFF_BYTES as u64;

pub(crate) const SETTLED: &[SourceStatus] = &[SourceStatus::Pending, SourceStatus::Ready, SourceStatus::Error];

/// What a client asked to create (validated in the domain), a multipart upload being a stored
/// [`Upload`].
pub type NewSource = lore_domain::source::NewSource<Upload>;

/// What a PATCH of a source changes; an absent member stays as it is.
#[derive(Debug, Clone, Default)]
pub struct SourceChange {
    pub name: Option<String>,
    pub content: Option<String>,
    /// Replaces the whole metadata (`{}` clears it).
    pub metadata: Option<Metadata>,
    /// Url sources: the refresh schedule (`Some(None)` turns it off).
    pub refresh_interval: Option<Option<RefreshInterval>>,
}

fn rejected(code: ErrorCode, message: impl Into<String>) -> AppError {
    AppError::Rejected(DomainError::new(code, message))
}

pub(crate) fn url_error(e: UrlRejection) -> AppError {
    match e {
        UrlRejection::Invalid(m) => rejected(ErrorCode::InvalidUrl, m),
        UrlRejection::Blocked(m) => rejected(ErrorCode::UrlBlocked, m),
    }
}

fn sources_limit_reached(limit: CountLimit) -> AppError {
    let message = match limit {
        CountLimit::Workspace { used, limit } => format!(
            "this workspace has {used} Mind knowledge sources and its sourcesLimit is {limit}; delete a source or \
             raise the limit"
        ),
        CountLimit::Mind { used, limit } => format!(
            "this Mind has {used} knowledge sources and its sourceLimit is {limit}; delete a source or raise the \
             workspace's mindSourceLimit"
        ),
    };
    rejected(ErrorCode::SourcesLimitReached, message)
}

pub(crate) fn processing_in_progress() -> AppError {
    rejected(ErrorCode::ProcessingInProgress, "the source is being processed; try again when it is ready or failed")
}

impl App {
    async fn own_chatbot(&self, p: &Principal, id: &ChatbotId) -> Result<(), AppError> {
        self.get_chatbot(p, id).await.map(|_| ())
    }

    /// The owner exists in the caller's workspace (else `not_found` naming it).
    pub(crate) async fn own(&self, p: &Principal, owner: &SourceOwner) -> Result<(), AppError> {
        match owner {
            SourceOwner::Chatbot(id) => self.own_chatbot(p, id).await,
            SourceOwner::Mind(id) => self.find_mind(p, id).await.map(|_| ()),
        }
    }

    /// The stored file of a chatbot document uploaded with the request.
    fn uploaded_document(up: Upload) -> Result<StoredFile, AppError> {
        let kind =
            up.kind.ok_or_else(|| AppError::Storage("a chatbot upload was stored without a document kind".into()))?;
        Ok(StoredFile {
            file_name: up.file_name,
            mime_type: up.mime_type,
            kind,
            blob_key: up.blob_key,
            file_url: up.file_url,
            size_bytes: up.file_size,
        })
    }

    /// Resolves a `fileUrl` of this workspace's uploads to audio a podcast source can use. Only
    /// the file's head is read (a podcast may be 500 MB; the API process need not hold it).
    async fn audio_from_url(&self, p: &Principal, file_url: &str) -> Result<StoredAudio, AppError> {
        let key = self.upload_key(p, file_url)?;
        let head = self.ports.storage.blobs.head(&key, AUDIO_SNIFF_BYTES).await?.ok_or(AppError::NotFound("file"))?;
        if head.size > MAX_AUDIO_UPLOAD_BYTES {
            return Err(crate::files::file_too_large(head.size, MAX_AUDIO_UPLOAD_BYTES));
        }
        let format = self.ports.shared.extractor.sniff_audio(&head.bytes).ok_or_else(|| {
            rejected(ErrorCode::UnsupportedFileType, "a podcast source needs an MP3, WAV, M4A or OGG file")
        })?;
        Ok(StoredAudio {
            file_name: crate::files::display_file_name(key.rsplit('/').next().unwrap_or("audio")),
            mime_type: format.mime_type().to_owned(),
            format,
            blob_key: key,
            file_url: file_url.to_owned(),
            size_bytes: head.size,
        })
    }

    /// The key behind a `fileUrl` handed out by this workspace's uploads; any other URL is not
    /// found (docs/api.md §16.11).
    fn upload_key(&self, p: &Principal, file_url: &str) -> Result<String, AppError> {
        let key = self.ports.storage.blobs.key_for_url(file_url).ok_or(AppError::NotFound("file"))?;
        if !key.starts_with(&format!("{}/", p.workspace_id())) {
            return Err(AppError::NotFound("file"));
        }
        Ok(key)
    }

    /// Resolves a `fileUrl` handed out by this workspace's uploads to a document of at most
    /// `max_bytes` (its kind decided by its first bytes); anything else is not found.
    async fn file_from_url(&self, p: &Principal, file_url: &str, max_bytes: u64) -> Result<StoredFile, AppError> {
        let key = self.upload_key(p, file_url)?;
        let head =
            self.ports.storage.blobs.head(&key, DOCUMENT_SNIFF_BYTES).await?.ok_or(AppError::NotFound("file"))?;
        if head.size > max_bytes {
            return Err(crate::files::file_too_large(head.size, max_bytes));
        }
        let file_name = crate::files::display_file_name(key.rsplit('/').next().unwrap_or("file"));
        let kind = self.ports.shared.extractor.sniff(&head.bytes, Some(&file_name)).ok_or_else(|| {
            rejected(ErrorCode::UnsupportedFileType, "only PDF, DOCX, TXT and Markdown files are accepted")
        })?;
        Ok(StoredFile {
            file_name,
            mime_type: kind.mime_type().to_owned(),
            kind,
            blob_key: key,
            file_url: file_url.to_owned(),
            size_bytes: head.size,
        })
    }

    pub async fn create_source(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        new: NewSource,
    ) -> Result<KnowledgeSource, AppError> {
        self.create_owned_source(p, &SourceOwner::Chatbot(chatbot.clone()), new).await
    }

    /// Creates a source of `owner` (pending; processing is started by the caller or a client).
    pub(crate) async fn create_owned_source(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        new: NewSource,
    ) -> Result<KnowledgeSource, AppError> {
        self.own(p, owner).await?;
        let file_max = if owner.is_mind() { MAX_MIND_DOCUMENT_BYTES } else { MAX_CHATBOT_FILE_BYTES };
        let mut uploaded_key = None;
        let NewSource { name, content, metadata } = new;
        let (name, spec, size_bytes) = match content {
            NewContent::Text(content) => {
                let size = content.byte_len();
                (SourceName::given_or(name, "Untitled text"), SourceSpec::Text { content: content.into_string() }, size)
            }
            NewContent::Url { url, crawl_depth, refresh_interval } => {
                let url = self.ports.shared.url_guard.check(&url).await.map_err(url_error)?;
                let name = SourceName::given_or(name, &url);
                (
                    name,
                    SourceSpec::Url { url, crawl_depth, pages_crawled: 0, last_refreshed_at: None, refresh_interval },
                    0,
                )
            }
            NewContent::Upload(upload) => {
                let file = Self::uploaded_document(upload)?;
                uploaded_key = Some(file.blob_key.clone());
                let size = file.size_bytes;
                (SourceName::given_or(name, &file.file_name), SourceSpec::File(file), size)
            }
            NewContent::FileUrl(url) => {
                let file = self.file_from_url(p, &url, file_max).await?;
                let size = file.size_bytes;
                (SourceName::given_or(name, &file.file_name), SourceSpec::File(file), size)
            }
            NewContent::Podcast(url) => {
                let audio = self.audio_from_url(p, &url).await?;
                let size = audio.size_bytes;
                (SourceName::given_or(name, &audio.file_name), SourceSpec::Podcast(audio), size)
            }
        };
        let now = Timestamp::now();
        let source = KnowledgeSource {
            id: SourceId::generate(),
            workspace_id: p.workspace_id().clone(),
            owner: owner.clone(),
            name,
            status: SourceStatus::Pending,
            spec,
            created_at: now,
            updated_at: now,
            processed_at: None,
            chunk_count: 0,
            size_bytes,
            error: None,
            content_hash: None,
            progress: None,
            generation: 0,
            metadata,
        };
        // Limits as stored now, so a limit changed with the CLI applies at once.
        let limits = self.current_workspace(p).await?.limits;
        let quota = limits.storage_quota_bytes;
        let insert_limits = InsertLimits {
            storage_quota: quota,
            workspace_sources: limits.sources_limit,
            mind_sources: limits.mind_source_limit,
        };
        // From now on the source counts the upload's bytes: the upload stops counting them, so
        // the same bytes are not counted twice against the quota.
        let taken_over = match source.spec.blob_key() {
            Some(key) => self.ports.storage.sources.release_upload(p.workspace_id(), key).await?.map(|n| (key, n)),
            None => None,
        };
        let refused = match self.ports.storage.sources.insert_source(&source, &insert_limits).await? {
            Inserted::Done => None,
            Inserted::OverQuota { used } => Some(storage_limit(used, quota)),
            Inserted::LimitReached(limit) => Some(sources_limit_reached(limit)),
            Inserted::OwnerNotFound => Some(AppError::NotFound(if owner.is_mind() { "mind" } else { "chatbot" })),
        };
        if let Some(e) = refused {
            if let Some(key) = uploaded_key {
                let _ = self.ports.storage.blobs.delete(&key).await;
            } else if let Some((key, bytes)) = taken_over {
                // The upload stays, unused: it counts again.
                let at = Timestamp::now();
                let _ = self.ports.storage.sources.charge_upload(p.workspace_id(), key, bytes, u64::MAX, at).await;
            }
            return Err(e);
        }
        self.publish(Event::for_source(EventType::SourceCreated, &source)).await;
        Ok(source)
    }

    /// Publishes an event; a failing bus is logged, not surfaced: the state change happened.
    pub(crate) async fn publish(&self, event: Event) {
        let kind = event.event_type.as_str();
        if let Err(e) = self.ports.storage.events.publish(event).await {
            tracing::error!(event = kind, error = %e, "event could not be published");
        }
    }

    /// The languages of a source's chunks, most chunks first (docs/api.md §20). The caller has
    /// read the source as its owner.
    pub async fn source_languages(&self, source: &SourceId) -> Result<Vec<lore_domain::language::Language>, AppError> {
        Ok(self.ports.storage.index.source_languages(source).await?)
    }

    pub async fn get_source(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        self.get_owned_source(p, &SourceOwner::Chatbot(chatbot.clone()), id).await
    }

    pub(crate) async fn get_owned_source(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        match self.ports.storage.sources.get_source(p.workspace_id(), id).await? {
            Some(s) if &s.owner == owner => Ok(s),
            _ => {
                // Tell "no such chatbot/Mind" from "no such source in it".
                self.own(p, owner).await?;
                Err(AppError::NotFound("source"))
            }
        }
    }

    pub async fn list_sources(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        filter: SourceFilter,
        page: PageRequest,
    ) -> Result<Page<KnowledgeSource>, AppError> {
        self.list_owned_sources(p, &SourceOwner::Chatbot(chatbot.clone()), filter, page).await
    }

    pub(crate) async fn list_owned_sources(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        filter: SourceFilter,
        page: PageRequest,
    ) -> Result<Page<KnowledgeSource>, AppError> {
        self.own(p, owner).await?;
        Ok(self.ports.storage.sources.list_sources(p.workspace_id(), owner, filter, page).await?)
    }

    /// PATCH of a chatbot's source (see [`SourceChange`]).
    pub async fn update_source(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        id: &SourceId,
        change: SourceChange,
    ) -> Result<KnowledgeSource, AppError> {
        self.update_owned_source(p, &SourceOwner::Chatbot(chatbot.clone()), id, change).await
    }

    /// PATCH: `metadata` of any source; `name` and `content` of text sources, where a content
    /// change sends the source back to `pending`.
    pub(crate) async fn update_owned_source(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &SourceId,
        change: SourceChange,
    ) -> Result<KnowledgeSource, AppError> {
        let SourceChange { name, content, metadata, refresh_interval } = change;
        let mut source = self.get_owned_source(p, owner, id).await?;
        if refresh_interval.is_some() && source.source_type() != SourceType::Url {
            return Err(rejected(ErrorCode::InvalidOperation, "only url sources have `refreshIntervalHours`"));
        }
        let current = match &source.spec {
            SourceSpec::Text { content } => Some(content.as_str()),
            // The interface keeps `name` and `content` to text sources; tags and a url's
            // schedule fit every source they apply to.
            _ if name.is_some() || content.is_some() || (metadata.is_none() && refresh_interval.is_none()) => {
                return Err(rejected(
                    ErrorCode::InvalidOperation,
                    "only text sources can change `name` or `content`; `metadata` can be set on every source and \
                     `refreshIntervalHours` on url sources",
                ));
            }
            _ => None,
        };
        if source.status.is_running() {
            return Err(processing_in_progress());
        }
        let new_content = match content {
            Some(c) => Some(TextContent::parse(Some(&c))?),
            None => None,
        };
        let content_changed = new_content.as_ref().is_some_and(|c| Some(c.as_str()) != current);
        if let Some(n) = name {
            source.name = source_name(Some(&n), &source.name)?;
        }
        if let Some(m) = metadata {
            source.metadata = m;
        }
        if let (Some(every), SourceSpec::Url { refresh_interval, .. }) = (refresh_interval, &mut source.spec) {
            *refresh_interval = every;
        }
        if let (true, Some(c)) = (content_changed, new_content) {
            source.size_bytes = c.byte_len();
            source.spec = SourceSpec::Text { content: c.into_string() };
            source.status = SourceStatus::Pending;
            source.chunk_count = 0;
            source.content_hash = None;
            source.error = None;
            source.progress = None;
        }
        source.updated_at = Timestamp::now();
        let quota = self.current_workspace(p).await?.limits.storage_quota_bytes;
        match self.ports.storage.sources.update_source(&source, SETTLED, quota).await? {
            Updated::Done => {}
            Updated::NotFound => return Err(AppError::NotFound("source")),
            Updated::WrongStatus(_) => return Err(processing_in_progress()),
            Updated::OverQuota { used } => return Err(storage_limit(used, quota)),
        }
        if content_changed {
            // The old chunks describe text that no longer exists.
            self.ports.storage.index.delete_source_chunks(&source.id).await?;
        }
        Ok(source)
    }

    pub async fn delete_source(&self, p: &Principal, chatbot: &ChatbotId, id: &SourceId) -> Result<(), AppError> {
        self.delete_owned_source(p, &SourceOwner::Chatbot(chatbot.clone()), id).await
    }

    /// Deletes a settled source with its chunks and its file (not while a run holds it).
    pub(crate) async fn delete_owned_source(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &SourceId,
    ) -> Result<(), AppError> {
        let source = self.get_owned_source(p, owner, id).await?;
        let details = AuditDetails::new().text("name", &source.name).text("owner", &owner.to_string());
        let entry = Self::audit_entry(p, AuditAction::SourceDeleted, id.as_str(), details);
        let sources = &self.ports.storage.sources;
        let deleted = match sources.delete_source_recorded(p.workspace_id(), id, SETTLED, Some(&entry)).await? {
            Guarded::Done(s) => s,
            Guarded::NotFound => return Err(AppError::NotFound("source")),
            Guarded::WrongStatus(_) => return Err(processing_in_progress()),
        };
        self.ports.storage.index.delete_source_chunks(&deleted.id).await?;
        if let Some(key) = deleted.spec.blob_key() {
            self.ports.storage.blobs.delete(key).await?;
        }
        self.publish(Event::for_source(EventType::SourceDeleted, &deleted)).await;
        self.tests_after_change(p.workspace_id(), owner).await;
        Ok(())
    }

    /// Creates each source in order, each on its own: one that is refused does not stop the
    /// others (docs/api.md §16, "Batches"). With `process`, each created source is queued for
    /// processing at once. An unknown chatbot refuses the whole batch.
    pub async fn create_sources(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        items: Vec<Result<NewSource, DomainError>>,
        process: bool,
    ) -> Result<Vec<BatchItem>, AppError> {
        self.create_owned_sources(p, &SourceOwner::Chatbot(chatbot.clone()), items, process).await
    }

    /// [`App::create_sources`] for either owner. An unknown owner refuses the whole batch.
    pub(crate) async fn create_owned_sources(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        items: Vec<Result<NewSource, DomainError>>,
        process: bool,
    ) -> Result<Vec<BatchItem>, AppError> {
        self.own(p, owner).await?;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let created = match item {
                Ok(new) => self.create_owned_source(p, owner, new).await,
                Err(refused) => Err(AppError::Rejected(refused)),
            };
            out.push(match created {
                Ok(source) if process => match self.start_run(p, &source.id).await {
                    Ok(queued) => BatchItem { source: Some(queued), error: None },
                    Err(e) => BatchItem { source: Some(source), error: Some(e) },
                },
                Ok(source) => BatchItem { source: Some(source), error: None },
                Err(e) => BatchItem { source: None, error: Some(e) },
            });
        }
        Ok(out)
    }

    /// Queues each named source for processing, each on its own (as [`App::process_source`]).
    pub async fn process_sources(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        ids: &[Option<SourceId>],
    ) -> Result<Vec<BatchItem>, AppError> {
        self.process_owned_sources(p, &SourceOwner::Chatbot(chatbot.clone()), ids).await
    }

    /// [`App::process_sources`] for either owner; each item is refused as its single route
    /// would refuse it (a chatbot's `process`, a Mind's `reprocess`).
    pub(crate) async fn process_owned_sources(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        ids: &[Option<SourceId>],
    ) -> Result<Vec<BatchItem>, AppError> {
        self.own(p, owner).await?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let queued = match id {
                Some(id) => self.process_owned_source(p, owner, id).await,
                None => Err(AppError::NotFound("source")),
            };
            out.push(match queued {
                Ok(source) => BatchItem { source: Some(source), error: None },
                Err(e) => BatchItem { source: None, error: Some(e) },
            });
        }
        Ok(out)
    }

    /// Starts a run of an owned source. A chatbot's source already running is
    /// `already_processing` (its `process` route); a Mind's stays `processing_in_progress`
    /// (its `reprocess` route).
    pub(crate) async fn process_owned_source(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        self.get_owned_source(p, owner, id).await?;
        self.start_run(p, id).await.map_err(|e| match e {
            AppError::Rejected(d) if d.code == ErrorCode::ProcessingInProgress && !owner.is_mind() => {
                rejected(ErrorCode::AlreadyProcessing, "the source is already being processed")
            }
            other => other,
        })
    }

    /// `process`: queues extraction → chunking → embedding; answers at once.
    pub async fn process_source(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        self.process_owned_source(p, &SourceOwner::Chatbot(chatbot.clone()), id).await
    }

    /// `refresh`: url sources only; re-crawls and re-embeds what changed.
    pub async fn refresh_source(
        &self,
        p: &Principal,
        chatbot: &ChatbotId,
        id: &SourceId,
    ) -> Result<KnowledgeSource, AppError> {
        let source = self.get_source(p, chatbot, id).await?;
        if source.source_type() != SourceType::Url {
            return Err(rejected(ErrorCode::InvalidOperation, "only url sources can be refreshed"));
        }
        self.start_run(p, id).await
    }

    pub(crate) async fn start_run(&self, p: &Principal, id: &SourceId) -> Result<KnowledgeSource, AppError> {
        self.start_run_in(p.workspace_id(), id).await
    }

    /// Starts a run of a settled source of `ws` and queues its job.
    async fn start_run_in(&self, ws: &WorkspaceId, id: &SourceId) -> Result<KnowledgeSource, AppError> {
        let now = Timestamp::now();
        let lease = Lease { owner: self.config.instance_id.clone(), until: lease_end(now, self.config.lease) };
        let source = match self.ports.storage.sources.begin_processing(ws, id, &lease, now).await? {
            Guarded::Done(s) => s,
            Guarded::NotFound => return Err(AppError::NotFound("source")),
            Guarded::WrongStatus(_) => return Err(processing_in_progress()),
        };
        let job = IngestJob {
            workspace_id: source.workspace_id.clone(),
            source_id: source.id.clone(),
            generation: source.generation,
        };
        if let Err(e) = self.ports.storage.jobs.enqueue(job.into()).await {
            // Not lost: the lease expires and the sweeper starts the run again.
            tracing::error!(source = %source.id, error = %e, "could not queue the processing job");
        }
        Ok(source)
    }

    /// Starts a refresh of every url source whose refresh interval has passed by `now`, at most
    /// [`REFRESH_BATCH`] (the next call takes the rest); returns how many started. Racing
    /// schedulers cannot start one twice: a run starts only from a settled status.
    pub async fn refresh_due_sources(&self, now: Timestamp) -> Result<usize, AppError> {
        let due = self.ports.storage.sources.due_refreshes(now, REFRESH_BATCH).await?;
        let mut started = 0;
        for (ws, id) in due {
            match self.start_run_in(&ws, &id).await {
                Ok(_) => started += 1,
                // Deleted, or started by someone else since it was listed.
                Err(AppError::NotFound(_) | AppError::Rejected(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(started)
    }

    pub async fn source_stats(&self, p: &Principal, chatbot: &ChatbotId) -> Result<SourceStats, AppError> {
        self.own_chatbot(p, chatbot).await?;
        Ok(self.ports.storage.sources.source_stats(p.workspace_id(), &SourceOwner::Chatbot(chatbot.clone())).await?)
    }
}

/// At most this many scheduled refreshes start per scheduler round.
pub const REFRESH_BATCH: usize = 100;

/// At most this many sources are created or processed by one batch request.
pub const MAX_BATCH: usize = 100;

/// One item of a batch: the source (when it was created or queued) and what went wrong (a
/// source created but not queued has both).
#[derive(Debug)]
pub struct BatchItem {
    pub source: Option<KnowledgeSource>,
    pub error: Option<AppError>,
}

pub(crate) fn lease_end(now: Timestamp, lease: std::time::Duration) -> Timestamp {
    Timestamp::from_millis(now.millis() + lease.as_millis() as i64)
}
