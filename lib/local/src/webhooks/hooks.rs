//! Webhook subscriptions (`HookStore`) on [`SqliteStore`].

use crate::audit::insert_audit;
use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::StoreResult;
use lore_app::ports::{HookCounts, HookStore};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::hook::{Hook, HookFilter, HookStatus, RetiringSecret, WebhookSecret};
use lore_domain::id::{ChatbotId, FormId, HookId, MindId, WorkspaceId};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, hook_url, event, form_id, chatbot_id, secret, status, consecutive_failures, \
     created_at, mind_id, retiring_secret, retiring_until";

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

fn hook_from(r: &Row<'_>) -> rusqlite::Result<Hook> {
    Ok(Hook {
        id: HookId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("hook id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        hook_url: r.get(2)?,
        filter: HookFilter::parse(Some(&r.get::<_, String>(3)?)).map_err(|_| bad("hook event"))?,
        form_id: match r.get::<_, Option<String>>(4)? {
            Some(s) => Some(FormId::parse(&s).ok_or_else(|| bad("form id"))?),
            None => None,
        },
        chatbot_id: match r.get::<_, Option<String>>(5)? {
            Some(s) => Some(ChatbotId::parse(&s).ok_or_else(|| bad("chatbot id"))?),
            None => None,
        },
        secret: WebhookSecret::from_stored(r.get(6)?),
        status: HookStatus::parse(&r.get::<_, String>(7)?).ok_or_else(|| bad("hook status"))?,
        consecutive_failures: r.get(8)?,
        created_at: Timestamp::from_millis(r.get(9)?),
        mind_id: match r.get::<_, Option<String>>(10)? {
            Some(s) => Some(MindId::parse(&s).ok_or_else(|| bad("mind id"))?),
            None => None,
        },
        retiring_secret: match (r.get::<_, Option<String>>(11)?, r.get::<_, Option<i64>>(12)?) {
            (Some(secret), Some(until)) => Some(RetiringSecret {
                secret: WebhookSecret::from_stored(secret),
                until: Timestamp::from_millis(until),
            }),
            _ => None,
        },
    })
}

fn get(tx: &Connection, ws: &str, id: &str) -> rusqlite::Result<Option<Hook>> {
    tx.prepare_cached(&format!("SELECT {COLS} FROM hooks WHERE id = ?1 AND workspace_id = ?2"))?
        .query_row([id, ws], hook_from)
        .optional()
}

impl SqliteStore {
    /// The workspace's subscriptions that meet `rest` (an SQL condition and an order, fixed text).
    async fn hooks_where(&self, ws: &WorkspaceId, rest: &'static str) -> StoreResult<Vec<Hook>> {
        let ws = ws.clone();
        self.read(move |c| {
            let mut st = c
                .prepare_cached(&format!("SELECT {COLS} FROM hooks WHERE workspace_id = ?1 AND {rest}"))
                .map_err(unavailable)?;
            let rows = st.query_map([ws.as_str()], hook_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}

#[async_trait]
impl HookStore for SqliteStore {
    async fn subscribe_recorded(
        &self,
        hook: &Hook,
        limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>> {
        let h = hook.clone();
        let audit = audit.cloned();
        self.write(move |tx| {
            let (form, bot) = (h.form_id.as_ref().map(FormId::as_str), h.chatbot_id.as_ref().map(ChatbotId::as_str));
            let mind = h.mind_id.as_ref().map(MindId::as_str);
            let existing: Option<String> = tx
                .query_row(
                    "SELECT id FROM hooks WHERE workspace_id = ?1 AND hook_url = ?2 AND event = ?3
                     AND form_id IS ?4 AND chatbot_id IS ?5 AND mind_id IS ?6 ORDER BY id LIMIT 1",
                    params![h.workspace_id.as_str(), h.hook_url, h.filter.as_str(), form, bot, mind],
                    |r| r.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            if let Some(id) = existing {
                tx.execute("UPDATE hooks SET status = 'active', consecutive_failures = 0 WHERE id = ?1", [id.as_str()])
                    .map_err(unavailable)?;
                if let Some(e) = audit {
                    insert_audit(tx, &AuditEntry { target_id: id.clone(), ..e }).map_err(unavailable)?;
                }
                return get(tx, h.workspace_id.as_str(), &id)
                    .map_err(unavailable)?
                    .ok_or_else(|| unavailable("the subscription vanished inside its transaction"))
                    .map(Some);
            }
            let count: i64 = tx
                .query_row("SELECT COUNT(*) FROM hooks WHERE workspace_id = ?1", [h.workspace_id.as_str()], |r| {
                    r.get(0)
                })
                .map_err(unavailable)?;
            if count >= i64::from(limit) {
                return Ok(None);
            }
            tx.execute(
                &format!("INSERT INTO hooks ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"),
                params![
                    h.id.as_str(),
                    h.workspace_id.as_str(),
                    h.hook_url,
                    h.filter.as_str(),
                    form,
                    bot,
                    h.secret.expose(),
                    h.status.as_str(),
                    h.consecutive_failures,
                    h.created_at.millis(),
                    mind,
                    h.retiring_secret.as_ref().map(|r| r.secret.expose().to_owned()),
                    h.retiring_secret.as_ref().map(|r| r.until.millis())
                ],
            )
            .map_err(unavailable)?;
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            Ok(Some(h))
        })
        .await
    }

    async fn get_hook(&self, ws: &WorkspaceId, id: &HookId) -> StoreResult<Option<Hook>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {COLS} FROM hooks WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], hook_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn delete_hook_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool> {
        let (ws, id, audit) = (ws.clone(), id.clone(), audit.cloned());
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM hooks WHERE id = ?1 AND workspace_id = ?2", [id.as_str(), ws.as_str()])
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

    async fn delete_form_hooks(&self, ws: &WorkspaceId, form: &FormId) -> StoreResult<u64> {
        let (ws, form) = (ws.clone(), form.clone());
        self.write(move |tx| {
            let n = tx
                .execute("DELETE FROM hooks WHERE form_id = ?1 AND workspace_id = ?2", [form.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok(n as u64)
        })
        .await
    }

    async fn active_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>> {
        self.hooks_where(ws, "status = 'active' ORDER BY id").await
    }

    async fn list_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>> {
        self.hooks_where(ws, "1 ORDER BY created_at DESC, id DESC").await
    }

    async fn record_outcome(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        succeeded: bool,
        disable_after: u32,
    ) -> StoreResult<Option<HookStatus>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.write(move |tx| {
            let sql = if succeeded {
                "UPDATE hooks SET consecutive_failures = 0 WHERE id = ?1 AND workspace_id = ?2"
            } else {
                "UPDATE hooks SET consecutive_failures = consecutive_failures + 1,
                     status = CASE WHEN consecutive_failures + 1 >= ?3 THEN 'disabled' ELSE status END
                 WHERE id = ?1 AND workspace_id = ?2"
            };
            let args = params![id.as_str(), ws.as_str(), disable_after];
            let mut st = tx.prepare_cached(sql).map_err(unavailable)?;
            let n = if succeeded { st.execute(&args[..2]) } else { st.execute(args) }.map_err(unavailable)?;
            if n == 0 {
                return Ok(None);
            }
            Ok(get(tx, ws.as_str(), id.as_str()).map_err(unavailable)?.map(|h| h.status))
        })
        .await
    }

    async fn rotate_secret_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        secret: &WebhookSecret,
        retiring_until: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>> {
        let (ws, id, secret, audit) = (ws.clone(), id.clone(), secret.clone(), audit.cloned());
        self.write(move |tx| {
            let changed = tx
                .execute(
                    "UPDATE hooks SET retiring_secret = secret, retiring_until = ?3, secret = ?4
                     WHERE id = ?1 AND workspace_id = ?2",
                    params![id.as_str(), ws.as_str(), retiring_until.millis(), secret.expose()],
                )
                .map_err(unavailable)?;
            if changed == 0 {
                return Ok(None);
            }
            if let Some(e) = &audit {
                insert_audit(tx, e).map_err(unavailable)?;
            }
            get(tx, ws.as_str(), id.as_str()).map_err(unavailable)
        })
        .await
    }

    async fn count_hooks(&self, ws: &WorkspaceId) -> StoreResult<HookCounts> {
        let ws = ws.clone();
        self.read(move |c| {
            c.query_row(
                "SELECT COALESCE(SUM(status = 'active'), 0), COALESCE(SUM(status = 'disabled'), 0)
                 FROM hooks WHERE workspace_id = ?1",
                [ws.as_str()],
                |r| Ok(HookCounts { active: r.get::<_, i64>(0)? as u64, disabled: r.get::<_, i64>(1)? as u64 }),
            )
            .map_err(unavailable)
        })
        .await
    }
}
