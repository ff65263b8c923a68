//! The workspace's audit log on [`SqliteStore`] (`audit_log`, migration 0022).
//!
//! [`insert_audit`] is what a store method that makes an audited change calls inside its own
//! write, so the entry commits (or rolls back) with the change; [`AuditStore::record_audit`] is
//! the same insert as a write of its own, for the changes recorded after the fact (docs/decisions.md,
//! "The audit log").

use crate::paging::paged;
use crate::sqlite::{SqliteStore, unavailable};
use crate::workspaces::stored;
use async_trait::async_trait;
use lore_app::ports::{AuditStore, StoreResult};
use lore_domain::Timestamp;
use lore_domain::audit::{AuditAction, AuditDetails, AuditEntry};
use lore_domain::id::{ApiKeyId, AuditId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use rusqlite::{Connection, Row, params};

const AUDIT_COLS: &str = "id, workspace_id, at, key_id, action, target_id, details";

fn audit_from(r: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    let key_id = match r.get::<_, Option<String>>(3)? {
        Some(k) => Some(stored(ApiKeyId::parse(&k), "audit key id")?),
        None => None,
    };
    Ok(AuditEntry {
        id: stored(AuditId::parse(&r.get::<_, String>(0)?), "audit id")?,
        workspace_id: stored(WorkspaceId::parse(&r.get::<_, String>(1)?), "workspace id")?,
        at: Timestamp::from_millis(r.get(2)?),
        key_id,
        action: stored(AuditAction::parse(&r.get::<_, String>(4)?), "audit action")?,
        target_id: r.get(5)?,
        details: AuditDetails::from_stored(&r.get::<_, String>(6)?),
    })
}

/// Inserts the entry on `c` (a write's connection, inside its transaction).
pub(crate) fn insert_audit(c: &Connection, e: &AuditEntry) -> rusqlite::Result<()> {
    c.prepare_cached(&format!("INSERT INTO audit_log ({AUDIT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"))?.execute(
        params![
            e.id.as_str(),
            e.workspace_id.as_str(),
            e.at.millis(),
            e.key_id.as_ref().map(|k| k.as_str().to_owned()),
            e.action.as_str(),
            e.target_id,
            e.details.to_json(),
        ],
    )?;
    Ok(())
}

#[async_trait]
impl AuditStore for SqliteStore {
    async fn record_audit(&self, entry: &AuditEntry) -> StoreResult<()> {
        let e = entry.clone();
        self.write(move |tx| insert_audit(tx, &e).map_err(unavailable)).await
    }

    async fn list_audit(
        &self,
        ws: &WorkspaceId,
        action: Option<AuditAction>,
        page: PageRequest,
    ) -> StoreResult<Page<AuditEntry>> {
        let ws = ws.as_str().to_owned();
        let action = action.map(|a| a.as_str());
        self.read(move |c| {
            let filter = "workspace_id = ?1 AND (?2 IS NULL OR action = ?2)";
            paged(
                c,
                &format!("SELECT COUNT(*) FROM audit_log WHERE {filter}"),
                &format!(
                    "SELECT {AUDIT_COLS} FROM audit_log WHERE {filter} ORDER BY at DESC, id DESC LIMIT ?3 OFFSET ?4"
                ),
                &[&ws, &action],
                page,
                audit_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn expire_audit(&self, cutoff: Timestamp) -> StoreResult<u64> {
        self.write(move |tx| {
            let n = tx.execute("DELETE FROM audit_log WHERE at < ?1", [cutoff.millis()]).map_err(unavailable)?;
            Ok(n as u64)
        })
        .await
    }
}
