//! The knowledge-source records (`SourceStore`) on [`SqliteStore`]. Every status change is one
//! guarded UPDATE inside the single writer's transaction, so racing requests cannot both win,
//! and the counts they affect (a chatbot's `sourceCount`, the workspace's storage) change in the
//! same transaction.

use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{
    Charged, CountLimit, Finish, Guarded, InsertLimits, Inserted, Lease, SourceFilter, SourceLabel, SourceStats,
    SourceStore, StaleRun, Updated,
};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::metadata::Metadata;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{KnowledgeSource, Progress, SourceOwner, SourceSpec, SourceStatus, SourceType};
use lore_records::{ProgressRecord, SourceSpecRecord, from_json, to_json};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, owner_id, type, name, status, spec, size_bytes, chunk_count, error, \
                    content_hash, progress, generation, created_at, updated_at, processed_at, metadata";

fn spec_json(spec: &SourceSpec) -> String {
    to_json(&SourceSpecRecord::of(spec))
}

fn spec_from(t: SourceType, raw: &str) -> rusqlite::Result<SourceSpec> {
    from_json::<SourceSpecRecord>(raw, "source spec")
        .and_then(|r| r.into_spec(t))
        .map_err(|e| rusqlite::Error::InvalidColumnName(e.to_string()))
}

fn metadata_from(raw: &str) -> rusqlite::Result<Metadata> {
    from_json::<Metadata>(raw, "source metadata").map_err(|e| rusqlite::Error::InvalidColumnName(e.to_string()))
}

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

fn source_from(r: &Row<'_>) -> rusqlite::Result<KnowledgeSource> {
    let t = SourceType::parse(&r.get::<_, String>(3)?).ok_or_else(|| bad("source type"))?;
    let progress: Option<String> = r.get(11)?;
    Ok(KnowledgeSource {
        id: SourceId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("source id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| bad("owner id"))?,
        name: r.get(4)?,
        status: SourceStatus::parse(&r.get::<_, String>(5)?).ok_or_else(|| bad("status"))?,
        spec: spec_from(t, &r.get::<_, String>(6)?)?,
        size_bytes: r.get::<_, i64>(7)? as u64,
        chunk_count: r.get::<_, i64>(8)? as u64,
        error: r.get(9)?,
        content_hash: r.get(10)?,
        progress: progress
            .and_then(|p| from_json::<ProgressRecord>(&p, "progress").ok())
            .map(ProgressRecord::into_progress),
        generation: r.get::<_, i64>(12)? as u64,
        created_at: Timestamp::from_millis(r.get(13)?),
        updated_at: Timestamp::from_millis(r.get(14)?),
        processed_at: r.get::<_, Option<i64>>(15)?.map(Timestamp::from_millis),
        metadata: metadata_from(&r.get::<_, String>(16)?)?,
    })
}

fn progress_json(p: &Progress) -> String {
    to_json(&ProgressRecord::of(p))
}

/// The guard of writes by a run in flight (`SourceStatus::RUNNING`).
const RUNNING: &str = "status IN ('processing', 'transcribing')";

fn get(tx: &Connection, id: &str) -> rusqlite::Result<Option<KnowledgeSource>> {
    tx.query_row(&format!("SELECT {COLS} FROM sources WHERE id = ?1"), [id], source_from).optional()
}

/// Bytes in use: the workspace's sources and the uploads no source uses yet.
/// The bytes a workspace holds: its sources' and its uploads' (read from indexes alone, see
/// migration 0020).
pub(crate) const STORAGE_USED: &str =
    "SELECT (SELECT COALESCE(SUM(size_bytes), 0) FROM sources WHERE workspace_id = ?1)
      + (SELECT COALESCE(SUM(size_bytes), 0) FROM uploads WHERE workspace_id = ?1)";

/// What search reads of an owner's ready sources, on every request, per kind of owner: from the
/// indexes `sources_chatbot_labels` and `sources_mind_labels` alone (migration 0020).
pub(crate) fn ready_labels_sql(owner: &SourceOwner) -> &'static str {
    match owner {
        SourceOwner::Chatbot(_) => {
            "SELECT id, name, type, metadata FROM sources WHERE chatbot_id = ?2 AND workspace_id = ?1 AND status = 'ready'"
        }
        SourceOwner::Mind(_) => {
            "SELECT id, name, type, metadata FROM sources WHERE mind_id = ?2 AND workspace_id = ?1 AND status = 'ready'"
        }
    }
}

fn storage_used(tx: &Connection, ws: &str) -> rusqlite::Result<u64> {
    tx.query_row(STORAGE_USED, [ws], |r| r.get::<_, i64>(0)).map(|v| v.max(0) as u64)
}

fn status_in(s: SourceStatus, allowed: &[SourceStatus]) -> bool {
    allowed.contains(&s)
}

fn count(tx: &Connection, sql: &str, arg: &str) -> rusqlite::Result<u64> {
    tx.query_row(sql, [arg], |r| r.get::<_, i64>(0)).map(|n| n.max(0) as u64)
}

/// Counts the new source on its owner, or tells why it may not be inserted. A Mind's source
/// must stay within the Mind's and the workspace's count limits (docs/api.md §8).
fn admit(tx: &Connection, s: &KnowledgeSource, limits: &InsertLimits) -> rusqlite::Result<Option<Inserted>> {
    match &s.owner {
        SourceOwner::Chatbot(bot) => {
            let counted = tx.execute(
                "UPDATE chatbots SET source_count = source_count + 1 WHERE id = ?1 AND workspace_id = ?2",
                [bot.as_str(), s.workspace_id.as_str()],
            )?;
            Ok((counted == 0).then_some(Inserted::OwnerNotFound))
        }
        SourceOwner::Mind(mind) => {
            let exists: Option<i64> = tx
                .query_row(
                    "SELECT 1 FROM minds WHERE id = ?1 AND workspace_id = ?2",
                    [mind.as_str(), s.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .optional()?;
            if exists.is_none() {
                return Ok(Some(Inserted::OwnerNotFound));
            }
            let used = count(tx, "SELECT COUNT(*) FROM sources WHERE mind_id = ?1", mind.as_str())?;
            if used >= u64::from(limits.mind_sources) {
                return Ok(Some(Inserted::LimitReached(CountLimit::Mind { used, limit: limits.mind_sources })));
            }
            let used = count(
                tx,
                "SELECT COUNT(*) FROM sources WHERE workspace_id = ?1 AND mind_id IS NOT NULL",
                s.workspace_id.as_str(),
            )?;
            if used >= u64::from(limits.workspace_sources) {
                return Ok(Some(Inserted::LimitReached(CountLimit::Workspace {
                    used,
                    limit: limits.workspace_sources,
                })));
            }
            Ok(None)
        }
    }
}

#[async_trait]
impl SourceStore for SqliteStore {
    async fn insert_source(&self, s: &KnowledgeSource, limits: &InsertLimits) -> StoreResult<Inserted> {
        let (s, limits) = (s.clone(), *limits);
        self.write(move |tx| {
            let used = storage_used(tx, s.workspace_id.as_str()).map_err(unavailable)?;
            if used.saturating_add(s.size_bytes) > limits.storage_quota {
                return Ok(Inserted::OverQuota { used });
            }
            if let Some(refused) = admit(tx, &s, &limits).map_err(unavailable)? {
                return Ok(refused);
            }
            tx.execute(
                "INSERT INTO sources (id, workspace_id, chatbot_id, mind_id, type, name, status, spec, size_bytes,
                     chunk_count, error, content_hash, progress, generation, created_at, updated_at, processed_at,
                     metadata)
                 VALUES (?1, ?2, ?3, ?17, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?18)",
                params![
                    s.id.as_str(),
                    s.workspace_id.as_str(),
                    s.owner.chatbot().map(|c| c.as_str()),
                    s.source_type().as_str(),
                    s.name,
                    s.status.as_str(),
                    spec_json(&s.spec),
                    s.size_bytes as i64,
                    s.chunk_count as i64,
                    s.error,
                    s.content_hash,
                    s.progress.as_ref().map(progress_json),
                    s.generation as i64,
                    s.created_at.millis(),
                    s.updated_at.millis(),
                    s.processed_at.map(Timestamp::millis),
                    s.owner.mind().map(|m| m.as_str()),
                    to_json(&s.metadata),
                ],
            )
            .map_err(unavailable)?;
            Ok(Inserted::Done)
        })
        .await
    }

    async fn get_source(&self, ws: &WorkspaceId, id: &SourceId) -> StoreResult<Option<KnowledgeSource>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {COLS} FROM sources WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], source_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_sources(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        filter: SourceFilter,
        page: PageRequest,
    ) -> StoreResult<Page<KnowledgeSource>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            c.execute_batch("BEGIN").map_err(unavailable)?;
            let result = (|| -> rusqlite::Result<Page<KnowledgeSource>> {
                let status = filter.status.map(|s| s.as_str());
                let kind = filter.source_type.map(|t| t.as_str());
                let cond =
                    "workspace_id = ?1 AND owner_id = ?2 AND (?3 IS NULL OR status = ?3) AND (?4 IS NULL OR type = ?4)";
                let total: i64 = c.query_row(
                    &format!("SELECT COUNT(*) FROM sources WHERE {cond}"),
                    params![ws.as_str(), owner.as_str(), status, kind],
                    |r| r.get(0),
                )?;
                let mut st = c.prepare_cached(&format!(
                    "SELECT {COLS} FROM sources WHERE {cond} ORDER BY created_at DESC, id DESC LIMIT ?5 OFFSET ?6"
                ))?;
                let items = st
                    .query_map(
                        params![ws.as_str(), owner.as_str(), status, kind, page.limit(), page.offset() as i64],
                        source_from,
                    )?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(Page { items, total: total as u64, request: page })
            })();
            c.execute_batch("COMMIT").map_err(unavailable)?;
            result.map_err(unavailable)
        })
        .await
    }

    async fn update_source(&self, s: &KnowledgeSource, allowed: &[SourceStatus], quota: u64) -> StoreResult<Updated> {
        let (s, allowed) = (s.clone(), allowed.to_vec());
        self.write(move |tx| {
            let Some(current) = get(tx, s.id.as_str()).map_err(unavailable)? else {
                return Ok(Updated::NotFound);
            };
            if current.workspace_id != s.workspace_id {
                return Ok(Updated::NotFound);
            }
            if !status_in(current.status, &allowed) {
                return Ok(Updated::WrongStatus(current.status));
            }
            if s.size_bytes > current.size_bytes {
                let used = storage_used(tx, s.workspace_id.as_str()).map_err(unavailable)?;
                if used - current.size_bytes.min(used) + s.size_bytes > quota {
                    return Ok(Updated::OverQuota { used });
                }
            }
            tx.execute(
                "UPDATE sources SET name = ?2, status = ?3, spec = ?4, size_bytes = ?5, chunk_count = ?6, error = ?7,
                     content_hash = ?8, progress = ?9, updated_at = ?10, metadata = ?11 WHERE id = ?1",
                params![
                    s.id.as_str(),
                    s.name,
                    s.status.as_str(),
                    spec_json(&s.spec),
                    s.size_bytes as i64,
                    s.chunk_count as i64,
                    s.error,
                    s.content_hash,
                    s.progress.as_ref().map(progress_json),
                    s.updated_at.millis(),
                    to_json(&s.metadata),
                ],
            )
            .map_err(unavailable)?;
            Ok(Updated::Done)
        })
        .await
    }

    async fn delete_source_recorded(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        allowed: &[SourceStatus],
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Guarded<KnowledgeSource>> {
        let (ws, id, allowed, audit) = (ws.clone(), id.clone(), allowed.to_vec(), audit.cloned());
        self.write(move |tx| {
            let Some(current) = get(tx, id.as_str()).map_err(unavailable)? else {
                return Ok(Guarded::NotFound);
            };
            if current.workspace_id != ws {
                return Ok(Guarded::NotFound);
            }
            if !status_in(current.status, &allowed) {
                return Ok(Guarded::WrongStatus(current.status));
            }
            tx.execute("DELETE FROM sources WHERE id = ?1", [id.as_str()]).map_err(unavailable)?;
            if let SourceOwner::Chatbot(bot) = &current.owner {
                tx.execute("UPDATE chatbots SET source_count = MAX(source_count - 1, 0) WHERE id = ?1", [bot.as_str()])
                    .map_err(unavailable)?;
            }
            if let Some(e) = &audit {
                crate::audit::insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(Guarded::Done(current))
        })
        .await
    }

    async fn begin_processing(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        lease: &Lease,
        now: Timestamp,
    ) -> StoreResult<Guarded<KnowledgeSource>> {
        let (ws, id, lease) = (ws.clone(), id.clone(), lease.clone());
        self.write(move |tx| {
            let queued = progress_json(&Progress::new("queued", 0, 0));
            let changed = tx
                .execute(
                    "UPDATE sources SET status = 'processing', generation = generation + 1, lease_owner = ?3,
                         lease_until = ?4, attempts = 1, progress = ?5, error = NULL, updated_at = ?6
                     WHERE id = ?1 AND workspace_id = ?2 AND status IN ('pending', 'ready', 'error')",
                    params![id.as_str(), ws.as_str(), lease.owner, lease.until.millis(), queued, now.millis()],
                )
                .map_err(unavailable)?;
            let current = get(tx, id.as_str()).map_err(unavailable)?;
            Ok(match current {
                Some(s) if s.workspace_id == ws && changed == 1 => Guarded::Done(s),
                Some(s) if s.workspace_id == ws => Guarded::WrongStatus(s.status),
                _ => Guarded::NotFound,
            })
        })
        .await
    }

    async fn set_progress(&self, id: &SourceId, generation: u64, progress: &Progress) -> StoreResult<bool> {
        let (id, p) = (id.clone(), progress_json(progress));
        self.write(move |tx| {
            let n = tx
                .execute(
                    &format!("UPDATE sources SET progress = ?3 WHERE id = ?1 AND generation = ?2 AND {RUNNING}"),
                    params![id.as_str(), generation as i64, p],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn set_running_status(
        &self,
        id: &SourceId,
        generation: u64,
        status: SourceStatus,
        progress: &Progress,
    ) -> StoreResult<bool> {
        if !status.is_running() {
            return Ok(false);
        }
        let (id, p) = (id.clone(), progress_json(progress));
        self.write(move |tx| {
            let n = tx
                .execute(
                    &format!(
                        "UPDATE sources SET status = ?3, progress = ?4 WHERE id = ?1 AND generation = ?2 AND {RUNNING}"
                    ),
                    params![id.as_str(), generation as i64, status.as_str(), p],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn finish_processing(
        &self,
        id: &SourceId,
        generation: u64,
        finish: &Finish,
        now: Timestamp,
    ) -> StoreResult<Option<KnowledgeSource>> {
        let (id, finish) = (id.clone(), finish.clone());
        self.write(move |tx| {
            let guard = format!("WHERE id = ?1 AND generation = ?2 AND {RUNNING}");
            let n = match &finish {
                Finish::Ready { chunk_count, size_bytes, content_hash, pages_crawled, refreshed_at } => tx.execute(
                    &format!(
                        "UPDATE sources SET status = 'ready', chunk_count = ?3, size_bytes = COALESCE(?4, size_bytes),
                             content_hash = ?5, error = NULL, progress = NULL, processed_at = ?6, updated_at = ?6,
                             lease_owner = NULL, lease_until = NULL,
                             spec = CASE WHEN type = 'url'
                                 THEN json_set(spec, '$.pagesCrawled', COALESCE(?7, json_extract(spec, '$.pagesCrawled')),
                                                     '$.lastRefreshedAt', COALESCE(?8, json_extract(spec, '$.lastRefreshedAt')))
                                 ELSE spec END
                         {guard}"
                    ),
                    params![
                        id.as_str(),
                        generation as i64,
                        *chunk_count as i64,
                        size_bytes.map(|b| b as i64),
                        content_hash,
                        now.millis(),
                        pages_crawled,
                        refreshed_at.map(Timestamp::millis),
                    ],
                ),
                Finish::Error { message } => tx.execute(
                    &format!(
                        "UPDATE sources SET status = 'error', error = ?3, progress = NULL, updated_at = ?4,
                             lease_owner = NULL, lease_until = NULL {guard}"
                    ),
                    params![id.as_str(), generation as i64, message, now.millis()],
                ),
            }
            .map_err(unavailable)?;
            if n == 0 {
                return Ok(None);
            }
            get(tx, id.as_str()).map_err(unavailable)
        })
        .await
    }

    async fn renew_lease(&self, id: &SourceId, generation: u64, lease: &Lease) -> StoreResult<bool> {
        let (id, lease) = (id.clone(), lease.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    &format!(
                        "UPDATE sources SET status = 'processing', lease_owner = ?3, lease_until = ?4,
                             attempts = attempts + 1, progress = '{{\"stage\":\"queued\",\"done\":0,\"total\":0}}'
                         WHERE id = ?1 AND generation = ?2 AND {RUNNING}"
                    ),
                    params![id.as_str(), generation as i64, lease.owner, lease.until.millis()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn stale_runs(&self, now: Timestamp, not_owner: Option<&str>) -> StoreResult<Vec<StaleRun>> {
        let owner = not_owner.map(str::to_owned);
        self.read(move |c| {
            let mut st = c
                .prepare(
                    "SELECT workspace_id, id, generation, attempts FROM sources
                     WHERE status IN ('processing', 'transcribing')
                         AND (lease_until < ?1 OR (?2 IS NOT NULL AND lease_owner IS NOT ?2))",
                )
                .map_err(unavailable)?;
            let rows = st
                .query_map(params![now.millis(), owner], |r| {
                    Ok(StaleRun {
                        workspace_id: WorkspaceId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("workspace id"))?,
                        source_id: SourceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("source id"))?,
                        generation: r.get::<_, i64>(2)? as u64,
                        attempts: r.get(3)?,
                    })
                })
                .map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn ready_source_labels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<SourceLabel>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut st = c.prepare_cached(ready_labels_sql(&owner)).map_err(unavailable)?;
            let rows = st
                .query_map([ws.as_str(), owner.as_str()], |r| {
                    Ok(SourceLabel {
                        id: SourceId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("source id"))?,
                        name: r.get(1)?,
                        source_type: SourceType::parse(&r.get::<_, String>(2)?).ok_or_else(|| bad("source type"))?,
                        metadata: metadata_from(&r.get::<_, String>(3)?)?,
                    })
                })
                .map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn due_refreshes(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        self.read(move |c| {
            // Few sources have a schedule; the due time is the domain's rule, applied here.
            let mut st = c
                .prepare_cached(&format!(
                    "SELECT {COLS} FROM sources WHERE type = 'url' AND status IN ('ready', 'error')
                       AND json_extract(spec, '$.refreshIntervalHours') IS NOT NULL"
                ))
                .map_err(unavailable)?;
            let rows = st.query_map([], source_from).map_err(unavailable)?;
            let mut due = Vec::new();
            for row in rows {
                let s = row.map_err(unavailable)?;
                if let Some(at) = s.refresh_due_at().filter(|at| *at <= now) {
                    due.push((at, s.workspace_id, s.id));
                }
            }
            due.sort_by_key(|(at, _, _)| *at);
            Ok(due.into_iter().take(limit).map(|(_, ws, id)| (ws, id)).collect())
        })
        .await
    }

    async fn source_stats(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<SourceStats> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT type, status, COUNT(*), SUM(chunk_count), SUM(size_bytes) FROM sources
                     WHERE workspace_id = ?1 AND owner_id = ?2 GROUP BY type, status",
                )
                .map_err(unavailable)?;
            let mut stats = SourceStats::default();
            let types: &[SourceType] = if owner.is_mind() { &SourceType::MIND } else { &SourceType::CHATBOT };
            for t in types {
                stats.by_type.insert(t.as_str(), 0);
            }
            let rows = st
                .query_map([ws.as_str(), owner.as_str()], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, i64>(2)? as u64,
                        r.get::<_, i64>(3)? as u64,
                        r.get::<_, i64>(4)? as u64,
                    ))
                })
                .map_err(unavailable)?;
            for row in rows {
                let (t, s, n, chunks, bytes) = row.map_err(unavailable)?;
                let (Some(t), Some(s)) = (SourceType::parse(&t), SourceStatus::parse(&s)) else { continue };
                stats.total_sources += n;
                stats.total_chunks += chunks;
                stats.total_size_bytes += bytes;
                *stats.by_type.entry(t.as_str()).or_default() += n;
                *stats.by_status.entry(s.as_str()).or_default() += n;
            }
            Ok(stats)
        })
        .await
    }

    async fn file_blob_keys(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<String>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut st = c
                .prepare(
                    "SELECT json_extract(spec, '$.blobKey') FROM sources
                     WHERE workspace_id = ?1 AND owner_id = ?2 AND type IN ('file', 'podcast')",
                )
                .map_err(unavailable)?;
            let rows = st.query_map([ws.as_str(), owner.as_str()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn charge_upload(
        &self,
        ws: &WorkspaceId,
        key: &str,
        bytes: u64,
        quota: u64,
        at: Timestamp,
    ) -> StoreResult<Charged> {
        let (ws, key) = (ws.clone(), key.to_owned());
        self.write(move |tx| {
            let counted = tx
                .query_row("SELECT 1 FROM uploads WHERE blob_key = ?1", [&key], |_| Ok(()))
                .optional()
                .map_err(unavailable)?;
            if counted.is_some() {
                return Ok(Charged::Done);
            }
            let used = storage_used(tx, ws.as_str()).map_err(unavailable)?;
            if used.saturating_add(bytes) > quota {
                return Ok(Charged::OverQuota { used });
            }
            tx.execute(
                "INSERT INTO uploads (blob_key, workspace_id, size_bytes, charged_at) VALUES (?1, ?2, ?3, ?4)",
                params![key, ws.as_str(), i64::try_from(bytes).unwrap_or(i64::MAX), at.millis()],
            )
            .map_err(unavailable)?;
            Ok(Charged::Done)
        })
        .await
    }

    async fn release_upload(&self, ws: &WorkspaceId, key: &str) -> StoreResult<Option<u64>> {
        let (ws, key) = (ws.clone(), key.to_owned());
        self.write(move |tx| {
            let bytes = tx
                .query_row(
                    "DELETE FROM uploads WHERE blob_key = ?1 AND workspace_id = ?2 RETURNING size_bytes",
                    [&key, ws.as_str()],
                    |r| r.get::<_, i64>(0),
                )
                .optional()
                .map_err(unavailable)?;
            Ok(bytes.map(|b| b.max(0) as u64))
        })
        .await
    }

    async fn storage_used(&self, ws: &WorkspaceId) -> StoreResult<u64> {
        let ws = ws.clone();
        self.write(move |tx| storage_used(tx, ws.as_str()).map_err(unavailable)).await
    }

    async fn uploads_charged_before(&self, ws: &WorkspaceId, before: Timestamp) -> StoreResult<Vec<String>> {
        let ws = ws.clone();
        self.read(move |c| {
            let mut st = c
                .prepare("SELECT blob_key FROM uploads WHERE workspace_id = ?1 AND charged_at < ?2 ORDER BY charged_at")
                .map_err(unavailable)?;
            let rows =
                st.query_map(params![ws.as_str(), before.millis()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}
