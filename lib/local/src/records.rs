//! The record ports (workspaces, keys, chatbots) on [`SqliteStore`].

use crate::sqlite::{SqliteStore, conflict_or_unavailable, unavailable};
use async_trait::async_trait;
use lore_app::ports::{ChatbotStore, Credential, KeyStore, StoreResult, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::api_key::{ApiKey, KeyHash, KeyName};
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ApiKeyId, ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::scope::ScopeSet;
use lore_domain::slug::Slug;
use lore_domain::workspace::{Workspace, WorkspaceLimits, WorkspaceName};
use rusqlite::{OptionalExtension, Row, params};

const WORKSPACE_COLS: &str = "w.id, w.name, w.storage_quota_bytes, w.minds_limit, w.sources_limit, w.mind_source_limit, w.rate_limit_per_minute, w.created_at";
const KEY_COLS: &str = "k.id, k.workspace_id, k.name, k.scopes, k.hash, k.created_at, k.revoked_at";
const CHATBOT_COLS: &str =
    "id, workspace_id, name, slug, descriptor, created_at, updated_at, source_count, conversation_count";

fn stored<T>(v: Option<T>, what: &str) -> rusqlite::Result<T> {
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

fn chatbot_from(r: &Row<'_>) -> rusqlite::Result<Chatbot> {
    Ok(Chatbot {
        id: stored(ChatbotId::parse(&r.get::<_, String>(0)?), "chatbot id")?,
        workspace_id: stored(WorkspaceId::parse(&r.get::<_, String>(1)?), "workspace id")?,
        name: ChatbotName::from_stored(r.get(2)?),
        slug: Slug::from_stored(r.get(3)?),
        descriptor: r.get(4)?,
        created_at: Timestamp::from_millis(r.get(5)?),
        updated_at: Timestamp::from_millis(r.get(6)?),
        source_count: r.get::<_, i64>(7)? as u64,
        conversation_count: r.get::<_, i64>(8)? as u64,
    })
}

const WORKSPACE_NAME_TAKEN: &[(&str, &str)] = &[("workspaces.name", "name")];
const CHATBOT_SLUG_TAKEN: &[(&str, &str)] = &[("chatbots.workspace_id, chatbots.slug", "slug")];

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
        self.read(move |c| {
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
        self.read(move |c| {
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
    async fn insert_key(&self, key: &ApiKey) -> StoreResult<()> {
        let k = key.clone();
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
            Ok(())
        })
        .await
    }

    async fn find_credential(&self, hash: &KeyHash) -> StoreResult<Option<Credential>> {
        let hash = hash.clone();
        self.read(move |c| {
            c.prepare_cached(&format!(
                "SELECT {KEY_COLS}, {WORKSPACE_COLS} FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.hash = ?1"
            ))
            .and_then(|mut st| {
                st.query_row([hash.as_str()], |r| Ok(Credential { key: key_from(r)?, workspace: workspace_from(r, 7)? }))
                    .optional()
            })
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

    async fn revoke_key(&self, id: &ApiKeyId, at: Timestamp) -> StoreResult<bool> {
        let id = id.clone();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                    params![id.as_str(), at.millis()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }
}

#[async_trait]
impl ChatbotStore for SqliteStore {
    async fn insert_chatbot(&self, chatbot: &Chatbot) -> StoreResult<()> {
        let c = chatbot.clone();
        self.write(move |tx| {
            tx.execute(
                &format!("INSERT INTO chatbots ({CHATBOT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
                params![
                    c.id.as_str(),
                    c.workspace_id.as_str(),
                    c.name.as_str(),
                    c.slug.as_str(),
                    c.descriptor,
                    c.created_at.millis(),
                    c.updated_at.millis(),
                    c.source_count as i64,
                    c.conversation_count as i64
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, CHATBOT_SLUG_TAKEN))?;
            Ok(())
        })
        .await
    }

    async fn get_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<Option<Chatbot>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.read(move |c| {
            c.prepare_cached(&format!("SELECT {CHATBOT_COLS} FROM chatbots WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], chatbot_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_chatbots(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Chatbot>> {
        let ws = ws.clone();
        self.read(move |c| {
            // One read transaction so that the total and the page agree.
            c.execute_batch("BEGIN").map_err(unavailable)?;
            let result = (|| -> rusqlite::Result<Page<Chatbot>> {
                let total: i64 =
                    c.query_row("SELECT COUNT(*) FROM chatbots WHERE workspace_id = ?1", [ws.as_str()], |r| r.get(0))?;
                let mut st = c.prepare_cached(&format!(
                    "SELECT {CHATBOT_COLS} FROM chatbots WHERE workspace_id = ?1
                     ORDER BY created_at DESC, id DESC LIMIT ?2 OFFSET ?3"
                ))?;
                let items = st
                    .query_map(params![ws.as_str(), page.limit(), page.offset() as i64], chatbot_from)?
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                Ok(Page { items, total: total as u64, request: page })
            })();
            c.execute_batch("COMMIT").map_err(unavailable)?;
            result.map_err(unavailable)
        })
        .await
    }

    async fn update_chatbot(&self, chatbot: &Chatbot) -> StoreResult<bool> {
        let c = chatbot.clone();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE chatbots SET name = ?3, slug = ?4, descriptor = ?5, updated_at = ?6 WHERE id = ?1 AND workspace_id = ?2",
                    params![c.id.as_str(), c.workspace_id.as_str(), c.name.as_str(), c.slug.as_str(), c.descriptor, c.updated_at.millis()],
                )
                .map_err(|e| conflict_or_unavailable(e, CHATBOT_SLUG_TAKEN))?;
            Ok(n == 1)
        })
        .await
    }

    async fn delete_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<bool> {
        let (ws, id) = (ws.clone(), id.clone());
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM chatbots WHERE id = ?1 AND workspace_id = ?2", [id.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }
}
