//! Chatbots on [`SqliteStore`].

use crate::audit::insert_audit;
use crate::workspaces::stored;
use lore_domain::audit::AuditEntry;

use crate::sqlite::{SqliteStore, conflict_or_unavailable, unavailable};
use async_trait::async_trait;
use lore_app::ports::{ChatbotStore, RevisedWrite, StoreResult};
use lore_domain::Timestamp;
use lore_domain::chatbot::{Chatbot, ChatbotName};
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::slug::Slug;
use lore_records::{AssistantRecord, from_json, to_json};
use rusqlite::{OptionalExtension, Row, params};

const CHATBOT_COLS: &str = "id, workspace_id, name, slug, descriptor, created_at, updated_at, source_count, \
     conversation_count, is_published, public_settings, revision";

/// Unique-index names in SQLite's messages, to the conflict each means; the workspace rule
/// first (its message contains the other's column too).
const CHATBOT_SLUG_TAKEN: &[(&str, &str)] =
    &[("chatbots.workspace_id, chatbots.slug", "slug"), ("chatbots.slug", "public_slug")];

fn chatbot_from(r: &Row<'_>) -> rusqlite::Result<Chatbot> {
    Ok(Chatbot {
        id: stored(ChatbotId::parse(&r.get::<_, String>(0)?), "chatbot id")?,
        workspace_id: stored(WorkspaceId::parse(&r.get::<_, String>(1)?), "workspace id")?,
        name: ChatbotName::from_stored(r.get(2)?),
        slug: Slug::from_stored(r.get(3)?),
        descriptor: r.get(4)?,
        is_published: r.get(9)?,
        settings: from_json::<AssistantRecord>(&r.get::<_, String>(10)?, "chatbot settings")
            .map_err(|e| rusqlite::Error::InvalidColumnName(e.to_string()))?
            .into_settings(),
        created_at: Timestamp::from_millis(r.get(5)?),
        updated_at: Timestamp::from_millis(r.get(6)?),
        revision: r.get::<_, i64>(11)?.max(0) as u64,
        source_count: r.get::<_, i64>(7)? as u64,
        conversation_count: r.get::<_, i64>(8)? as u64,
    })
}

#[async_trait]
impl ChatbotStore for SqliteStore {
    async fn insert_chatbot_recorded(&self, chatbot: &Chatbot, audit: Option<&AuditEntry>) -> StoreResult<()> {
        let c = chatbot.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            tx.execute(
                &format!(
                    "INSERT INTO chatbots ({CHATBOT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                ),
                params![
                    c.id.as_str(),
                    c.workspace_id.as_str(),
                    c.name.as_str(),
                    c.slug.as_str(),
                    c.descriptor,
                    c.created_at.millis(),
                    c.updated_at.millis(),
                    c.source_count as i64,
                    c.conversation_count as i64,
                    c.is_published,
                    to_json(&AssistantRecord::of(&c.settings)),
                    c.revision as i64,
                ],
            )
            .map_err(|e| conflict_or_unavailable(e, CHATBOT_SLUG_TAKEN))?;
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(())
        })
        .await
    }

    async fn get_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<Option<Chatbot>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
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

    async fn update_chatbot_recorded(
        &self,
        chatbot: &Chatbot,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<RevisedWrite> {
        let c = chatbot.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE chatbots SET name = ?3, slug = ?4, descriptor = ?5, updated_at = ?6, is_published = ?7,
                     public_settings = ?8, revision = ?9 WHERE id = ?1 AND workspace_id = ?2 AND revision = ?9 - 1",
                    params![
                        c.id.as_str(),
                        c.workspace_id.as_str(),
                        c.name.as_str(),
                        c.slug.as_str(),
                        c.descriptor,
                        c.updated_at.millis(),
                        c.is_published,
                        to_json(&AssistantRecord::of(&c.settings)),
                        c.revision as i64,
                    ],
                )
                .map_err(|e| conflict_or_unavailable(e, CHATBOT_SLUG_TAKEN))?;
            if n == 1 {
                if let Some(e) = &audit {
                    insert_audit(tx, e).map_err(unavailable)?;
                }
                return Ok(RevisedWrite::Done);
            }
            let exists: bool = tx
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM chatbots WHERE id = ?1 AND workspace_id = ?2)",
                    [c.id.as_str(), c.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .map_err(unavailable)?;
            Ok(if exists { RevisedWrite::Stale } else { RevisedWrite::NotFound })
        })
        .await
    }

    async fn find_published_chatbot(&self, slug: &str) -> StoreResult<Option<Chatbot>> {
        let slug = slug.to_owned();
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {CHATBOT_COLS} FROM chatbots WHERE slug = ?1 AND is_published = 1"))
                .and_then(|mut st| st.query_row([slug.as_str()], chatbot_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn delete_chatbot_recorded(
        &self,
        ws: &WorkspaceId,
        id: &ChatbotId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool> {
        let (ws, id, audit) = (ws.clone(), id.clone(), audit.cloned());
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM chatbots WHERE id = ?1 AND workspace_id = ?2", [id.as_str(), ws.as_str()])
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
}
