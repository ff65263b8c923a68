//! The processing run of a knowledge source: extract (or crawl) → chunk → embed → index, with
//! progress, a lease, generations and a sweeper (docs/api.md §6, docs/ARCHITECTURE.md).

use crate::chunking::Chunker;
use crate::ports::AudioClip;
use crate::ports::{Chunk, ChunkEmbedding, Finish, IngestJob, Lease};
use crate::ports::{CrawlError, CrawlRequest, ExtractError};
use crate::sources::lease_end;
use crate::{App, AppError, StoreError};
use lore_domain::Timestamp;
use lore_domain::document::DocumentKind;
use lore_domain::event::{Event, EventType};
use lore_domain::language::Language;
use lore_domain::source::{KnowledgeSource, PageChanges, Progress, SourceSpec, SourceStatus, StoredAudio};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet};

/// Texts embedded per provider call, and per progress update.
const EMBED_BATCH: usize = 64;

/// Why a run stopped.
enum RunFailure {
    /// The source cannot be processed; the words go to its `error` field.
    Failed(String),
    /// Our own store failed: the run is left to its lease, so it is retried, not failed.
    Store(StoreError),
}

impl From<StoreError> for RunFailure {
    fn from(e: StoreError) -> Self {
        RunFailure::Store(e)
    }
}

fn sha256_hex(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    lore_domain::text::hex(&h.finalize())
}

/// A chunk's content hash: what [`Chunk::content_hash`] holds, and what lets equal texts share
/// an embedding.
pub(crate) fn chunk_hash(content: &str) -> String {
    sha256_hex(&[content])
}

/// Each page of a crawl (by URL) as one digest of its chunks' hashes in order: a page whose
/// chunks are the same is unchanged.
fn page_digests(chunks: impl IntoIterator<Item = (String, String)>) -> HashMap<String, String> {
    let mut pages: HashMap<String, Vec<String>> = HashMap::new();
    for (url, hash) in chunks {
        pages.entry(url).or_default().push(hash);
    }
    pages
        .into_iter()
        .map(|(url, hashes)| {
            let parts: Vec<&str> = hashes.iter().map(String::as_str).collect();
            (url, sha256_hex(&parts))
        })
        .collect()
}

/// One document of a source: its text, whether it is Markdown-like, and its page URL.
struct Document {
    text: String,
    markdown: bool,
    url: Option<String>,
}

fn extract_failure(e: ExtractError) -> RunFailure {
    match e {
        // A coded reason is the source's `error` as it is (`no_text_layer: …`), so a client can
        // match its code as it does `storage_limit:`.
        ExtractError::Corrupt(m) if m.starts_with("no_text_layer:") => RunFailure::Failed(m),
        e => RunFailure::Failed(e.to_string()),
    }
}

/// Of the chunks `candidates` (indices into `hashes`), the first of each hash, in their order:
/// each text is embedded once however often it repeats (a page repeated across a site gives
/// many equal chunks).
fn first_of_each_hash(candidates: Vec<usize>, hashes: &[String]) -> Vec<usize> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(candidates.len());
    candidates.into_iter().filter(|&i| seen.insert(hashes[i].as_str())).collect()
}

/// The words of `text` joined by single spaces.
fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Of the chunks of a crawl, `(text, page URL)` with each page's chunks together in crawl order,
/// which are kept: one copy of each passage across the crawl's pages. A chunk whose text (compared
/// with whitespace collapsed) is also on other pages is kept on the page with the fewest chunks —
/// the most specific page: the chapter, not the print-all page that repeats it — and on the first
/// crawled of those among equals; the other pages lose it. Repeats within one page stay (a page
/// may say a thing twice), chunks without a URL are kept.
///
/// This is the second pass: `repeated.rs` already removed repeated paragraphs from the texts
/// before chunking; this one catches the equal chunks that pass leaves (short blocks, whole pages
/// repeated under two addresses). It compares whole chunks, so a passage cut at other places on
/// two pages is not recognised here.
fn one_copy_across_pages(pieces: &[(String, Option<String>)]) -> Vec<bool> {
    // Each chunk's page, numbered in crawl order, and each page's chunk count.
    let mut page_numbers: HashMap<&str, usize> = HashMap::new();
    let pages: Vec<Option<usize>> = pieces
        .iter()
        .map(|(_, url)| {
            let next = page_numbers.len();
            url.as_deref().map(|u| *page_numbers.entry(u).or_insert(next))
        })
        .collect();
    let mut sizes = vec![0usize; page_numbers.len()];
    for page in pages.iter().flatten() {
        sizes[*page] += 1;
    }
    let keys: Vec<String> = pieces.iter().map(|(text, _)| collapse_whitespace(text)).collect();
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (key, page) in keys.iter().zip(&pages) {
        if let Some(page) = *page {
            owner
                .entry(key.as_str())
                .and_modify(|o| {
                    if (sizes[page], page) < (sizes[*o], *o) {
                        *o = page;
                    }
                })
                .or_insert(page);
        }
    }
    keys.iter().zip(&pages).map(|(key, page)| page.is_none_or(|p| owner[key.as_str()] == p)).collect()
}

impl App {
    /// Runs one queued job. Stale jobs (deleted source, superseded generation, not processing)
    /// are dropped; the run's own failures end the source in `error`. Returns `Err` only when
    /// the store failed, so that a queue may deliver the job again.
    /// Runs one job of the queue, whichever its kind.
    pub async fn run_job(&self, job: crate::ports::Job) -> Result<(), AppError> {
        match job {
            crate::ports::Job::Ingest(j) => self.run_ingest_job(j).await,
            crate::ports::Job::TestRun(j) => self.run_test_job(j).await,
            crate::ports::Job::Channel(j) => self.run_channel_job(j).await,
        }
    }

    pub async fn run_ingest_job(&self, job: IngestJob) -> Result<(), AppError> {
        let Some(source) = self.ports.storage.sources.get_source(&job.workspace_id, &job.source_id).await? else {
            return Ok(());
        };
        if !source.status.is_running() || source.generation != job.generation {
            tracing::debug!(source = %source.id, "dropping a stale ingest job");
            return Ok(());
        }
        let (finish, pages) = match self.ingest(&source).await {
            Ok(done) => done,
            Err(RunFailure::Failed(message)) => {
                tracing::info!(source = %source.id, %message, "processing failed");
                (Finish::Error { message }, None)
            }
            Err(RunFailure::Store(e)) => return Err(e.into()),
        };
        let ended = self
            .ports
            .storage
            .sources
            .finish_processing(&source.id, source.generation, &finish, Timestamp::now())
            .await?;
        match ended {
            Some(s) if s.status == SourceStatus::Ready => {
                self.publish(Event::for_source(EventType::SourceReady, &s)).await;
                if let Some(pages) = pages {
                    self.publish(Event::source_refreshed(&s, &pages)).await;
                }
                self.tests_after_change(&s.workspace_id, &s.owner).await;
            }
            Some(s) => self.publish(Event::for_source(EventType::SourceError, &s)).await,
            None => tracing::debug!(source = %source.id, "run superseded; results dropped"),
        }
        Ok(())
    }

    async fn progress(&self, s: &KnowledgeSource, stage: &str, done: u64, total: u64) -> Result<(), RunFailure> {
        let current =
            self.ports.storage.sources.set_progress(&s.id, s.generation, &Progress::new(stage, done, total)).await?;
        if current { Ok(()) } else { Err(RunFailure::Failed("superseded by a newer run".into())) }
    }

    /// Drives `work` to its end while recording the `(done, total)` pairs its callback sends
    /// through `updates` as the run's progress in `stage`. Written from here because a callback
    /// cannot await the store; only the latest pair counts.
    async fn reporting<T>(
        &self,
        s: &KnowledgeSource,
        stage: &str,
        work: impl std::future::Future<Output = T>,
        mut updates: tokio::sync::watch::Receiver<(u64, u64)>,
    ) -> Result<T, RunFailure> {
        tokio::pin!(work);
        loop {
            tokio::select! {
                result = &mut work => return Ok(result),
                changed = updates.changed() => {
                    if changed.is_ok() {
                        let (done, total) = *updates.borrow();
                        self.progress(s, stage, done, total).await?;
                    }
                }
            }
        }
    }

    /// Moves the run between `processing` and `transcribing`.
    async fn running_status(
        &self,
        s: &KnowledgeSource,
        status: SourceStatus,
        progress: Progress,
    ) -> Result<(), RunFailure> {
        let current = self.ports.storage.sources.set_running_status(&s.id, s.generation, status, &progress).await?;
        if current { Ok(()) } else { Err(RunFailure::Failed("superseded by a newer run".into())) }
    }

    /// The source's text as documents (a crawl's one per page), and how many pages a crawl read.
    async fn documents(&self, s: &KnowledgeSource) -> Result<(Vec<Document>, Option<u32>), RunFailure> {
        match &s.spec {
            SourceSpec::Podcast(a) => Ok((vec![self.transcript(s, a).await?], None)),
            SourceSpec::Text { content } => {
                Ok((vec![Document { text: content.clone(), markdown: true, url: None }], None))
            }
            SourceSpec::File(f) => {
                self.progress(s, "extracting", 0, 1).await?;
                let bytes = self.upload(&f.blob_key, "file").await?;
                let extracted = self
                    .ports
                    .shared
                    .extractor
                    .extract(bytes, f.kind, self.config.extract_limits)
                    .await
                    .map_err(extract_failure)?;
                Ok((vec![Document { text: extracted.text, markdown: f.kind.is_markdown_like(), url: None }], None))
            }
            SourceSpec::Url { url, crawl_depth, .. } => {
                let (docs, crawled) = self.crawled_documents(s, url, crawl_depth.get()).await?;
                Ok((docs, Some(crawled)))
            }
        }
    }

    /// The bytes of an uploaded `what` (file, audio) a source was made from.
    async fn upload(&self, key: &str, what: &str) -> Result<Vec<u8>, RunFailure> {
        let stored = self.ports.storage.blobs.get(key).await?;
        stored.ok_or_else(|| RunFailure::Failed(format!("the uploaded {what} is no longer stored")))
    }

    /// An audio source's transcript, with progress per piece of a split file.
    async fn transcript(&self, s: &KnowledgeSource, a: &StoredAudio) -> Result<Document, RunFailure> {
        self.running_status(s, SourceStatus::Transcribing, Progress::new("transcribing", 0, 1)).await?;
        let bytes = self.upload(&a.blob_key, "audio").await?;
        let clip = AudioClip { bytes, format: a.format, file_name: a.file_name.clone() };
        let (tx, rx) = tokio::sync::watch::channel((0, 1));
        let on_piece = move |done: usize, total: usize| {
            let _ = tx.send((done as u64, total as u64));
        };
        let transcription = self.ports.shared.transcriber.transcribe(clip, &on_piece);
        let transcript = self.reporting(s, "transcribing", transcription, rx).await?;
        let transcript = transcript.map_err(|e| RunFailure::Failed(e.to_string()))?;
        if transcript.text.trim().is_empty() {
            return Err(RunFailure::Failed("the transcript is empty: no speech was recognised".into()));
        }
        self.running_status(s, SourceStatus::Processing, Progress::new("chunking", 0, 1)).await?;
        Ok(Document { text: transcript.text, markdown: false, url: None })
    }

    /// The readable pages of a crawl from `url`, within the workspace's quota, each repeated
    /// passage kept on the most specific page only; and how many pages the crawl read.
    async fn crawled_documents(
        &self,
        s: &KnowledgeSource,
        url: &str,
        depth: u8,
    ) -> Result<(Vec<Document>, u32), RunFailure> {
        self.progress(s, "crawling", 0, self.config.crawl_max_pages as u64).await?;
        let request = CrawlRequest {
            url: url.to_owned(),
            depth,
            max_pages: self.config.crawl_max_pages,
            max_page_bytes: self.config.crawl_max_page_bytes,
            page_timeout: self.config.crawl_page_timeout,
        };
        let max_pages = self.config.crawl_max_pages as u64;
        let (tx, rx) = tokio::sync::watch::channel((0, max_pages));
        let on_page = move |n: usize| {
            let _ = tx.send((n as u64, max_pages));
        };
        let crawl = self.ports.shared.crawler.crawl(request, &on_page);
        let pages = self.reporting(s, "crawling", crawl, rx).await?;
        let pages = pages.map_err(|e| match e {
            CrawlError::Blocked(m) => RunFailure::Failed(format!("URL blocked: {m}")),
            e => RunFailure::Failed(e.to_string()),
        })?;
        let crawled = pages.len() as u32;
        let room = self.crawl_room(s).await?;
        let mut docs: Vec<Document> = Vec::new();
        let mut text_bytes: u64 = 0;
        for (i, page) in pages.into_iter().enumerate() {
            if text_bytes > room.free {
                return Err(RunFailure::Failed(room.exceeded(text_bytes)));
            }
            self.progress(s, "extracting", i as u64, crawled as u64).await?;
            let kind = page_kind(page.content_type.as_deref(), &page.url);
            match self.ports.shared.extractor.extract(page.body, kind, self.config.extract_limits).await {
                Ok(e) if !e.text.trim().is_empty() => {
                    text_bytes += e.text.len() as u64;
                    docs.push(Document { text: e.text, markdown: kind.is_markdown_like(), url: Some(page.url) })
                }
                Ok(_) => {}
                // One unreadable page does not spoil the site.
                Err(err) if i > 0 => tracing::debug!(url = %page.url, error = %err, "page skipped"),
                Err(err) => return Err(extract_failure(err)),
            }
        }
        if text_bytes > room.free {
            return Err(RunFailure::Failed(room.exceeded(text_bytes)));
        }
        // Each repeated passage is kept on the most specific page only (`repeated.rs`).
        let mut texts: Vec<String> = docs.iter_mut().map(|d| std::mem::take(&mut d.text)).collect();
        crate::repeated::keep_one_copy(&mut texts);
        for (d, text) in docs.iter_mut().zip(texts) {
            d.text = text;
        }
        docs.retain(|d| !d.text.trim().is_empty());
        if docs.is_empty() {
            return Err(RunFailure::Failed("no readable text was found at the URL".into()));
        }
        Ok((docs, crawled))
    }

    /// The room a crawl's text has in the workspace's quota: what is free plus what this source
    /// counts already (a refresh replaces its old text).
    async fn crawl_room(&self, s: &KnowledgeSource) -> Result<CrawlRoom, RunFailure> {
        let quota = match self.ports.storage.workspaces.get_workspace(&s.workspace_id).await? {
            Some(w) => w.limits.storage_quota_bytes,
            None => u64::MAX,
        };
        let used = self.ports.storage.sources.storage_used(&s.workspace_id).await?;
        let others = used.saturating_sub(s.size_bytes);
        Ok(CrawlRoom { quota, used: others, free: quota.saturating_sub(others) })
    }

    /// Extracts, chunks and embeds the source; for a url source crawled before, also how its
    /// pages changed since.
    async fn ingest(&self, s: &KnowledgeSource) -> Result<(Finish, Option<PageChanges>), RunFailure> {
        let (docs, pages_crawled) = self.documents(s).await?;
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        let content_hash = sha256_hex(&texts);
        let extracted_bytes: u64 = docs.iter().map(|d| d.text.len() as u64).sum();
        let is_url = matches!(s.spec, SourceSpec::Url { .. });
        let ready = |chunk_count: u64, content_hash: String| Finish::Ready {
            chunk_count,
            size_bytes: is_url.then_some(extracted_bytes),
            content_hash,
            pages_crawled,
            refreshed_at: is_url.then(Timestamp::now),
        };

        // The same text, chunked and embedded as this deployment would: the chunks stay as they
        // are, with the changes their owner made to them (docs/decisions.md, "Chunks an owner changes").
        let model = self.index_model();
        // A url source with a finished crawl behind it: its pages as that crawl left them.
        let before = match (&s.spec, &s.content_hash) {
            (SourceSpec::Url { .. }, Some(_)) => {
                Some(page_digests(self.ports.storage.index.page_chunk_hashes(&s.id).await?))
            }
            _ => None,
        };
        if s.content_hash.as_deref() == Some(content_hash.as_str())
            && let Some(kept) = self.ports.storage.index.current_chunk_count(&s.id, model).await?
        {
            let pages = before.map(|b| PageChanges::between(&b, &b));
            return Ok((ready(kept, content_hash), pages));
        }

        let pieces = self.chunk_documents(s, docs, pages_crawled.is_some()).await?;
        let hashes: Vec<String> = pieces.iter().map(|(c, _)| chunk_hash(c)).collect();
        let embeddings = self.embed_pieces(s, model, &pieces, &hashes).await?;

        self.progress(s, "indexing", 0, pieces.len() as u64).await?;
        let languages = Language::detect_parts(pieces.iter().map(|(content, _)| content.as_str()));
        let chunks: Vec<Chunk> = pieces
            .into_iter()
            .zip(languages)
            .enumerate()
            .map(|(i, ((content, url), language))| Chunk {
                id: format!("{}:{}:{}", s.id, s.generation, i),
                workspace_id: s.workspace_id.clone(),
                owner: s.owner.clone(),
                source_id: s.id.clone(),
                position: i as u32,
                embedding: embeddings
                    .get(&hashes[i])
                    .cloned()
                    .unwrap_or(ChunkEmbedding { vector: Vec::new(), token_signs: None }),
                content_hash: hashes[i].clone(),
                language,
                content,
                url,
            })
            .collect();
        let chunk_count = chunks.len() as u64;
        let pages = before.map(|b| {
            let after = page_digests(chunks.iter().filter_map(|c| Some((c.url.clone()?, c.content_hash.clone()))));
            PageChanges::between(&b, &after)
        });
        self.ports.storage.index.replace_source_chunks(&s.id, model, chunks).await?;
        Ok((ready(chunk_count, content_hash), pages))
    }

    /// The chunks of `docs` with the page each comes from; with `crawled`, one copy of each
    /// chunk per crawl, on its most specific page. No chunk at all is the run's failure.
    async fn chunk_documents(
        &self,
        s: &KnowledgeSource,
        docs: Vec<Document>,
        crawled: bool,
    ) -> Result<Vec<(String, Option<String>)>, RunFailure> {
        self.progress(s, "chunking", 0, docs.len() as u64).await?;
        let chunker = self.chunker();
        let mut pieces: Vec<(String, Option<String>)> = Vec::new();
        for d in docs {
            let markdown = d.markdown;
            let text = d.text;
            // Splitting is CPU work: keep it off the async threads.
            let chunker = chunker.clone();
            let chunks = tokio::task::spawn_blocking(move || chunker.chunk(&text, markdown))
                .await
                .map_err(|e| RunFailure::Failed(format!("chunking failed: {e}")))?;
            pieces.extend(chunks.into_iter().map(|c| (c, d.url.clone())));
        }
        if crawled {
            let keep = one_copy_across_pages(&pieces);
            let mut kept = keep.into_iter();
            pieces.retain(|_| kept.next().unwrap_or(true));
        }
        if pieces.is_empty() {
            return Err(RunFailure::Failed("the source has no text to index".into()));
        }
        Ok(pieces)
    }

    /// The embedding of each of `pieces` by its hash (`hashes`, in order). Identical chunks keep
    /// their embeddings: a refresh of content changed in places embeds only the chunks that
    /// changed, and a chunk repeated in the source is embedded once.
    async fn embed_pieces(
        &self,
        s: &KnowledgeSource,
        model: &str,
        pieces: &[(String, Option<String>)],
        hashes: &[String],
    ) -> Result<HashMap<String, ChunkEmbedding>, RunFailure> {
        let known = self.ports.storage.index.embeddings_by_hash(&s.id, model).await?;
        let mut embeddings: HashMap<String, ChunkEmbedding> = HashMap::new();
        let missing: Vec<usize> = (0..pieces.len())
            .filter(|&i| match known.get(&hashes[i]) {
                Some(e) => {
                    embeddings.insert(hashes[i].clone(), e.clone());
                    false
                }
                None => true,
            })
            .collect();
        let todo = first_of_each_hash(missing, hashes);
        let total = todo.len() as u64;
        self.progress(s, "embedding", 0, total).await?;
        for (n, batch) in todo.chunks(EMBED_BATCH).enumerate() {
            let inputs: Vec<String> = batch.iter().map(|&i| pieces[i].0.clone()).collect();
            let embedded = self
                .ports
                .shared
                .embedder
                .embed_with_token_states(&inputs)
                .await
                .map_err(|e| RunFailure::Failed(e.to_string()))?;
            if embedded.len() != inputs.len() {
                return Err(RunFailure::Failed("the embedding provider returned the wrong number of vectors".into()));
            }
            for (&i, e) in batch.iter().zip(embedded) {
                // Only the signs are kept of the token states (1/32 of their size).
                let token_signs = e.token_states.map(|t| t.signs());
                embeddings.insert(hashes[i].clone(), ChunkEmbedding { vector: e.vector, token_signs });
            }
            let done = ((n + 1) * EMBED_BATCH).min(todo.len()) as u64;
            self.progress(s, "embedding", done, total).await?;
        }
        Ok(embeddings)
    }

    /// Chunks sized for the embedder in use (`chunking.rs`).
    pub(crate) fn chunker(&self) -> &Chunker {
        &self.chunker
    }

    /// The key under which the index keeps vectors: the embedding model's id, followed by the
    /// chunk settings when they are not the historical default, and by the form of the token
    /// signs when the embedder gives token states (`all-minilm-l6-v2#tokens238-35#signs2`).
    /// Chunks of another key are re-made by [`App::reembed_other_models`], so a change of embedder,
    /// of chunk size or of stored token form re-chunks as well as re-embeds.
    pub fn index_model(&self) -> &str {
        &self.index_model
    }

    /// Re-embeds sources whose chunks were made by another embedding model than the current one,
    /// so that vectors of two models are never compared (semantic search only looks at the
    /// current model's chunks meanwhile; keyword search still finds everything). Sources that are
    /// processing are left to their run. Returns how many runs were started.
    pub async fn reembed_other_models(&self) -> Result<usize, AppError> {
        let model = self.index_model();
        let stale = self.ports.storage.index.sources_with_other_models(model).await?;
        let mut started = 0;
        for (ws, source) in stale {
            let now = Timestamp::now();
            let lease = Lease { owner: self.config.instance_id.clone(), until: lease_end(now, self.config.lease) };
            if let crate::ports::Guarded::Done(s) =
                self.ports.storage.sources.begin_processing(&ws, &source, &lease, now).await?
            {
                let job = IngestJob { workspace_id: ws, source_id: s.id, generation: s.generation };
                self.ports.storage.jobs.enqueue(job.into()).await?;
                started += 1;
            }
        }
        if started > 0 {
            tracing::info!(sources = started, model = %model, "re-embedding sources made with another embedding model");
        }
        Ok(started)
    }

    /// Takes over runs whose lease expired (a crashed or stuck worker): starts them again until
    /// `max_attempts`, then ends them in `error`. With `adopt_foreign`, also takes runs leased by
    /// another process (a restarted embedded server owns every run of its data dir).
    pub async fn sweep_stale_runs(&self, adopt_foreign: bool) -> Result<usize, AppError> {
        let now = Timestamp::now();
        let me = self.config.instance_id.clone();
        let stale = self.ports.storage.sources.stale_runs(now, adopt_foreign.then_some(me.as_str())).await?;
        let count = stale.len();
        for run in stale {
            if run.attempts >= self.config.max_attempts {
                let finish =
                    Finish::Error { message: format!("processing did not finish after {} attempts", run.attempts) };
                if let Some(s) =
                    self.ports.storage.sources.finish_processing(&run.source_id, run.generation, &finish, now).await?
                {
                    self.publish(Event::for_source(EventType::SourceError, &s)).await;
                }
                continue;
            }
            let lease = Lease { owner: me.clone(), until: lease_end(now, self.config.lease) };
            if self.ports.storage.sources.renew_lease(&run.source_id, run.generation, &lease).await? {
                tracing::info!(source = %run.source_id, attempt = run.attempts + 1, "restarting a stale processing run");
                let job =
                    IngestJob { workspace_id: run.workspace_id, source_id: run.source_id, generation: run.generation };
                self.ports.storage.jobs.enqueue(job.into()).await?;
            }
        }
        Ok(count)
    }
}

fn page_kind(content_type: Option<&str>, url: &str) -> DocumentKind {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    if ct.contains("markdown") || url.ends_with(".md") {
        DocumentKind::Markdown
    } else if ct.starts_with("text/plain") {
        DocumentKind::Text
    } else {
        DocumentKind::Html
    }
}

/// How much crawled text fits the workspace's storage quota.
struct CrawlRoom {
    quota: u64,
    /// Counted by everything else in the workspace.
    used: u64,
    free: u64,
}

impl CrawlRoom {
    /// The reason of a crawl stopped by the quota: starts with the contract's code.
    fn exceeded(&self, text_bytes: u64) -> String {
        format!(
            "storage_limit: the crawled text ({text_bytes} bytes so far) would pass the workspace storage quota of {} bytes ({} bytes in use)",
            self.quota, self.used
        )
    }
}

#[cfg(test)]
mod tests {
    use super::first_of_each_hash;

    #[test]
    fn each_hash_is_embedded_once_at_its_first_chunk_in_order() {
        let hashes: Vec<String> = ["b", "a", "b", "c", "a", "b"].map(String::from).to_vec();
        assert_eq!(first_of_each_hash(vec![0, 1, 2, 3, 4, 5], &hashes), vec![0, 1, 3]);
        assert_eq!(first_of_each_hash(vec![2, 4, 5], &hashes), vec![2, 4]);
        assert_eq!(first_of_each_hash(Vec::new(), &hashes), Vec::<usize>::new());
    }
}

#[cfg(test)]
mod crawl_tests {
    use super::one_copy_across_pages;

    fn pieces(pages: &[(&str, &[&str])]) -> Vec<(String, Option<String>)> {
        pages
            .iter()
            .flat_map(|(url, chunks)| chunks.iter().map(move |c| (c.to_string(), Some(url.to_string()))))
            .collect()
    }

    fn kept(pages: &[(&str, &[&str])]) -> Vec<(String, String)> {
        let pieces = pieces(pages);
        let keep = one_copy_across_pages(&pieces);
        pieces.into_iter().zip(keep).filter(|(_, k)| *k).map(|((c, u), _)| (u.unwrap(), c)).collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(u, c)| (u.to_string(), c.to_string())).collect()
    }

    #[test]
    fn a_passage_is_kept_on_the_page_with_the_fewest_chunks() {
        // The print page comes first in the crawl and holds both chapters: it keeps only its own.
        let print = ("print", &["one a", "one b", "two a", "two b", "print only"][..]);
        let one = ("one", &["one a", "one b"][..]);
        let two = ("two", &["two a", "two b", "two c"][..]);
        assert_eq!(
            kept(&[print, one, two]),
            pairs(&[
                ("print", "print only"),
                ("one", "one a"),
                ("one", "one b"),
                ("two", "two a"),
                ("two", "two b"),
                ("two", "two c")
            ])
        );
    }

    #[test]
    fn ties_go_to_the_earlier_page_and_whitespace_does_not_count() {
        let a = ("a", &["same\ntext", "a only"][..]);
        let b = ("b", &["same   text", "b only"][..]);
        assert_eq!(kept(&[a, b]), pairs(&[("a", "same\ntext"), ("a", "a only"), ("b", "b only")]));
        // Repeats within one page stay, in order.
        let c = ("c", &["x", "y", "x"][..]);
        let d = ("d", &["x", "y", "x", "z"][..]);
        assert_eq!(kept(&[d, c]), pairs(&[("d", "z"), ("c", "x"), ("c", "y"), ("c", "x")]));
    }

    #[test]
    fn chunks_without_a_url_and_single_pages_are_kept() {
        let mut pieces = vec![("t".to_string(), None), ("t".to_string(), None)];
        pieces.push(("t".to_string(), Some("p".to_string())));
        assert_eq!(one_copy_across_pages(&pieces), [true, true, true]);
        assert!(one_copy_across_pages(&[]).is_empty());
    }
}
