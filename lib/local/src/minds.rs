//! The Mind port on [`SqliteStore`]: Mind records with their source counts (docs/api.md §8).

use crate::audit::insert_audit;
use crate::paging::paged;
use crate::sqlite::{SqliteStore, conflict_or_unavailable, unavailable};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{MindInsert, MindRemoval, MindStore, MindUsage, RevisedWrite};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::id::{MindId, WorkspaceId};
use lore_domain::mind::{Mind, MindSourceCounts};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use lore_records::{MindKeys, MindSettingsRecord, from_json, to_json};
use rusqlite::{OptionalExtension, Row, params};

/// The Mind's keys, its settings document, then its source counts by status, read from its
/// sources in the same statement (index `sources_of_minds`), so they are exact by construction.
const MIND_COLS: &str = "id, workspace_id, slug, is_published, settings, created_at, updated_at, revision, \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'pending'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'processing'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'transcribing'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'ready'), \
     (SELECT COUNT(*) FROM sources s WHERE s.mind_id = minds.id AND s.status = 'error'), \
     (SELECT COUNT(*) FROM conversations c WHERE c.mind_id = minds.id)";

/// Unique-index names in SQLite's messages, to the conflict each means. The workspace rule
/// comes first: its message contains the other's column too.
const SLUG_TAKEN: &[(&str, &str)] = &[("minds.workspace_id, minds.slug", "slug"), ("minds.slug", "public_slug")];

fn malformed(e: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(e.to_string())
}

fn count(r: &Row<'_>, at: usize) -> rusqlite::Result<u64> {
    Ok(r.get::<_, i64>(at)?.max(0) as u64)
}

fn mind_from(r: &Row<'_>) -> rusqlite::Result<Mind> {
    let keys = MindKeys {
        id: MindId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed stored mind id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?)
            .ok_or_else(|| malformed("malformed stored workspace id"))?,
        slug: Slug::from_stored(r.get(2)?),
        is_published: r.get(3)?,
        created_at: Timestamp::from_millis(r.get(5)?),
        updated_at: Timestamp::from_millis(r.get(6)?),
        revision: count(r, 7)?,
        sources: MindSourceCounts {
            pending: count(r, 8)?,
            processing: count(r, 9)?,
            transcribing: count(r, 10)?,
            ready: count(r, 11)?,
            failed: count(r, 12)?,
        },
        conversation_count: count(r, 13)?,
    };
    from_json::<MindSettingsRecord>(&r.get::<_, String>(4)?, "mind settings")
        .and_then(|settings| settings.into_mind(keys))
        .map_err(malformed)
}

#[async_trait]
impl MindStore for SqliteStore {
    async fn insert_mind_recorded(
        &self,
        mind: &Mind,
        minds_limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<MindInsert> {
        let m = mind.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            // The count and the insert share the write transaction: no other writer can slip
            // a Mind in between.
            let used: i64 = tx
                .query_row("SELECT COUNT(*) FROM minds WHERE workspace_id = ?1", [m.workspace_id.as_str()], |r| {
                    r.get(0)
                })
                .map_err(unavailable)?;
            if used >= i64::from(minds_limit) {
                return Ok(MindInsert::LimitReached { used: used as u64 });
            }
            tx.execute(
                "INSERT INTO minds (id, workspace_id, slug, is_published, settings, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    m.id.as_str(),
                    m.workspace_id.as_str(),
                    m.slug.as_str(),
                    m.is_published,
                    to_json(&MindSettingsRecord::of(&m)),
                    m.created_at.millis(),
                    m.updated_at.millis(),
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, SLUG_TAKEN))?;
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(MindInsert::Inserted)
        })
        .await
    }

    async fn get_mind(&self, ws: &WorkspaceId, id: &MindId) -> StoreResult<Option<Mind>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {MIND_COLS} FROM minds WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], mind_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn find_published_mind(&self, slug: &str) -> StoreResult<Option<Mind>> {
        let slug = slug.to_owned();
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {MIND_COLS} FROM minds WHERE slug = ?1 AND is_published = 1"))
                .and_then(|mut st| st.query_row([slug.as_str()], mind_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_minds(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Mind>> {
        let ws = ws.clone();
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM minds WHERE workspace_id = ?1",
                &format!(
                    "SELECT {MIND_COLS} FROM minds WHERE workspace_id = ?1
                     ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                ),
                &[&ws.as_str()],
                page,
                mind_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn mind_usage(&self, ws: &WorkspaceId) -> StoreResult<MindUsage> {
        let ws = ws.clone();
        self.read(move |c| {
            c.query_row(
                "SELECT (SELECT COUNT(*) FROM minds WHERE workspace_id = ?1),
                        (SELECT COUNT(*) FROM sources WHERE workspace_id = ?1 AND mind_id IS NOT NULL)",
                [ws.as_str()],
                |r| Ok(MindUsage { minds: count(r, 0)?, sources: count(r, 1)? }),
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn update_mind_recorded(&self, mind: &Mind, audit: Option<&AuditEntry>) -> StoreResult<RevisedWrite> {
        let m = mind.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            let stored: Option<i64> = tx
                .query_row(
                    "SELECT revision FROM minds WHERE id = ?1 AND workspace_id = ?2",
                    [m.id.as_str(), m.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            match stored {
                None => return Ok(RevisedWrite::NotFound),
                Some(rev) if rev as u64 + 1 != m.revision => return Ok(RevisedWrite::Stale),
                Some(_) => {}
            }
            tx.execute(
                "UPDATE minds SET slug = ?3, is_published = ?4, settings = ?5, updated_at = ?6, revision = ?7
                 WHERE id = ?1 AND workspace_id = ?2",
                params![
                    m.id.as_str(),
                    m.workspace_id.as_str(),
                    m.slug.as_str(),
                    m.is_published,
                    to_json(&MindSettingsRecord::of(&m)),
                    m.updated_at.millis(),
                    m.revision as i64,
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, SLUG_TAKEN))?;
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(RevisedWrite::Done)
        })
        .await
    }

    async fn delete_mind_recorded(
        &self,
        ws: &WorkspaceId,
        id: &MindId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<MindRemoval>> {
        let (ws, id, audit) = (ws.clone(), id.clone(), audit.cloned());
        self.write(move |tx| {
            // Its sources' files are collected first; the delete cascades to the sources and
            // from them to their chunks, in this transaction.
            let file_keys = {
                let mut st = tx
                    .prepare(
                        "SELECT json_extract(spec, '$.blobKey') FROM sources
                         WHERE mind_id = ?1 AND workspace_id = ?2 AND type IN ('file', 'podcast')",
                    )
                    .map_err(unavailable)?;
                let rows = st.query_map([id.as_str(), ws.as_str()], |r| r.get::<_, String>(0)).map_err(unavailable)?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)?
            };
            let n = tx
                .execute("DELETE FROM minds WHERE id = ?1 AND workspace_id = ?2", params![id.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            if n == 1
                && let Some(e) = &audit
            {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok((n == 1).then_some(MindRemoval { file_keys }))
        })
        .await
    }
}
