//! Workspaces and their API keys on [`SqliteStore`].

use crate::audit::insert_audit;
use crate::sqlite::{SqliteStore, conflict_or_unavailable, unavailable};
use async_trait::async_trait;
use lore_app::ports::{KeyStore, StoreResult, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, KeyHash, KeyName};
use lore_domain::audit::AuditEntry;
use lore_domain::id::{ApiKeyId, WorkspaceId};
use lore_domain::scope::ScopeSet;
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};
use rusqlite::{OptionalExtension, Row, params};

const WORKSPACE_COLS: &str = "w.id, w.name, w.storage_quota_bytes, w.minds_limit, w.sources_limit, w.mind_source_limit, w.rate_limit_per_minute, w.created_at";
const KEY_COLS: &str = "k.id, k.workspace_id, k.name, k.scopes, k.hash, k.created_at, k.revoked_at";

pub(crate) fn stored<T>(v: Option<T>, what: &str) -> rusqlite::Result<T> {
    v.ok_or_else(|| rusqlite::Error::InvalidColumnName(format!("malformed stored {what}")))
}

fn workspace_from(r: &Row<'_>, at: usize) -> rusqlite::Result<Workspace> {
    Ok(Workspace {
        id: stored(WorkspaceId::parse(&r.get::<_, String>(at)?), "workspace id")?,
        name: WorkspaceName::from_stored(r.get(at + 1)?),
        limits: WorkspaceLimits {
            storage_quota_bytes: r.get::<_, i64>(at + 2)? as u64,
            minds_limit: r.get(at + 3)?,
            sources_limit: r.get(at + 4)?,
            mind_source_limit: r.get(at + 5)?,
            rate_limit_per_minute: r.get(at + 6)?,
        },
        created_at: Timestamp::from_millis(r.get(at + 7)?),
    })
}

fn key_from(r: &Row<'_>) -> rusqlite::Result<ApiKey> {
    Ok(ApiKey {
        id: stored(ApiKeyId::parse(&r.get::<_, String>(0)?), "key id")?,
        workspace_id: stored(WorkspaceId::parse(&r.get::<_, String>(1)?), "workspace id")?,
        name: KeyName::from_stored(r.get(2)?),
        scopes: ScopeSet::parse(&r.get::<_, String>(3)?).unwrap_or_default(),
        hash: KeyHash::from_stored(r.get(4)?),
        created_at: Timestamp::from_millis(r.get(5)?),
        revoked_at: r.get::<_, Option<i64>>(6)?.map(Timestamp::from_millis),
    })
}

const WORKSPACE_NAME_TAKEN: &[(&str, &str)] = &[("workspaces.name", "name")];

#[async_trait]
impl WorkspaceStore for SqliteStore {
    async fn insert_workspace(&self, ws: &Workspace) -> StoreResult<()> {
        let ws = ws.clone();
        self.write(move |tx| {
            let l = ws.limits;
            tx.execute(
                "INSERT INTO workspaces VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    ws.id.as_str(),
                    ws.name.as_str(),
                    l.storage_quota_bytes as i64,
                    l.minds_limit,
                    l.sources_limit,
                    l.mind_source_limit,
                    l.rate_limit_per_minute,
                    ws.created_at.millis()
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, WORKSPACE_NAME_TAKEN))?;
            Ok(())
        })
        .await
    }

    async fn get_workspace(&self, id: &WorkspaceId) -> StoreResult<Option<Workspace>> {
        let id = id.clone();
        self.lookup(move |c| {
            c.query_row(&format!("SELECT {WORKSPACE_COLS} FROM workspaces w WHERE w.id = ?1"), [id.as_str()], |r| {
                workspace_from(r, 0)
            })
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn find_workspace_by_name(&self, name: &str) -> StoreResult<Option<Workspace>> {
        let name = name.to_owned();
        self.lookup(move |c| {
            c.query_row(&format!("SELECT {WORKSPACE_COLS} FROM workspaces w WHERE w.name = ?1"), [name], |r| {
                workspace_from(r, 0)
            })
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn update_workspace(&self, ws: &Workspace) -> StoreResult<()> {
        let ws = ws.clone();
        self.write(move |tx| {
            let l = ws.limits;
            tx.execute(
                "UPDATE workspaces SET name = ?2, storage_quota_bytes = ?3, minds_limit = ?4, sources_limit = ?5,
                 mind_source_limit = ?6, rate_limit_per_minute = ?7 WHERE id = ?1",
                params![
                    ws.id.as_str(),
                    ws.name.as_str(),
                    l.storage_quota_bytes as i64,
                    l.minds_limit,
                    l.sources_limit,
                    l.mind_source_limit,
                    l.rate_limit_per_minute
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, WORKSPACE_NAME_TAKEN))?;
            Ok(())
        })
        .await
    }

    async fn list_workspaces(&self) -> StoreResult<Vec<Workspace>> {
        self.read(|c| {
            let mut st =
                c.prepare(&format!("SELECT {WORKSPACE_COLS} FROM workspaces w ORDER BY w.id")).map_err(unavailable)?;
            let rows = st.query_map([], |r| workspace_from(r, 0)).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}

#[async_trait]
impl KeyStore for SqliteStore {
    async fn insert_key_recorded(&self, key: &ApiKey, audit: Option<&AuditEntry>) -> StoreResult<()> {
        let k = key.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            tx.execute(
                "INSERT INTO api_keys VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    k.id.as_str(),
                    k.workspace_id.as_str(),
                    k.name.as_str(),
                    k.scopes.to_csv(),
                    k.hash.as_str(),
                    k.created_at.millis(),
                    k.revoked_at.map(Timestamp::millis)
                ],
            )
            .map_err(unavailable)?;
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(())
        })
        .await
    }

    async fn find_key(&self, hash: &KeyHash) -> StoreResult<Option<ApiKey>> {
        let hash = hash.clone();
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {KEY_COLS} FROM api_keys k WHERE k.hash = ?1"))
                .and_then(|mut st| st.query_row([hash.as_str()], key_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_keys(&self, workspace: Option<&WorkspaceId>) -> StoreResult<Vec<ApiKey>> {
        let ws = workspace.map(|w| w.as_str().to_owned());
        self.read(move |c| {
            let mut st = c
                .prepare(&format!(
                    "SELECT {KEY_COLS} FROM api_keys k WHERE ?1 IS NULL OR k.workspace_id = ?1 ORDER BY k.id DESC"
                ))
                .map_err(unavailable)?;
            let rows = st.query_map([ws], key_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn revoke_key_recorded(&self, id: &ApiKeyId, at: Timestamp, audit: Option<&AuditEntry>) -> StoreResult<bool> {
        let id = id.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                    params![id.as_str(), at.millis()],
                )
                .map_err(unavailable)?;
            if n == 1
                && let Some(e) = &audit
            {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(n == 1)
        })
        .await
    }
    async fn delete_revoked_key(&self, id: &ApiKeyId) -> StoreResult<bool> {
        let id = id.clone();
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM api_keys WHERE id = ?1 AND revoked_at IS NOT NULL", params![id.as_str()])
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }
}
