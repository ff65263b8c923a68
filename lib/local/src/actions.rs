//! Actions (`ActionStore`) on [`SqliteStore`]. The owner's limit and its unique names are checked
//! in the transaction that writes (the unique index backs the names).

use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::{ActionStore, ActionWrite, StoreResult};
use lore_domain::Timestamp;
use lore_domain::action::Action;
use lore_domain::id::{ActionId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_records::{ActionKeys, ActionRecord, from_json, to_json};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, owner_id, details, created_at, updated_at";

fn malformed(e: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(e.to_string())
}

fn action_from(r: &Row<'_>) -> rusqlite::Result<Action> {
    let keys = ActionKeys {
        id: ActionId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed action id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed action owner"))?,
        created_at: Timestamp::from_millis(r.get(4)?),
        updated_at: Timestamp::from_millis(r.get(5)?),
    };
    from_json::<ActionRecord>(&r.get::<_, String>(3)?, "action").and_then(|d| d.into_action(keys)).map_err(malformed)
}

/// Whether another action of the owner than `except` has `name`.
fn name_taken(tx: &Connection, a: &Action) -> StoreResult<bool> {
    tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM actions WHERE owner_id = ?1 AND workspace_id = ?2 AND name = ?3 AND id <> ?4)",
        [a.owner.as_str(), a.workspace_id.as_str(), a.spec.name.as_str(), a.id.as_str()],
        |r| r.get(0),
    )
    .map_err(unavailable)
}

#[async_trait]
impl ActionStore for SqliteStore {
    async fn insert_action(&self, action: &Action, limit: u32) -> StoreResult<ActionWrite> {
        let a = action.clone();
        self.write(move |tx| {
            let used: i64 = tx
                .query_row(
                    "SELECT COUNT(*) FROM actions WHERE owner_id = ?1 AND workspace_id = ?2",
                    [a.owner.as_str(), a.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .map_err(unavailable)?;
            if used >= i64::from(limit) {
                return Ok(ActionWrite::LimitReached);
            }
            if name_taken(tx, &a)? {
                return Ok(ActionWrite::NameTaken);
            }
            let (chatbot, mind) = (a.owner.chatbot().map(|i| i.as_str()), a.owner.mind().map(|i| i.as_str()));
            tx.execute(
                "INSERT INTO actions (id, workspace_id, chatbot_id, mind_id, name, details, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    a.id.as_str(),
                    a.workspace_id.as_str(),
                    chatbot,
                    mind,
                    a.spec.name.as_str(),
                    to_json(&ActionRecord::of(&a)),
                    a.created_at.millis(),
                    a.updated_at.millis()
                ],
            )
            .map_err(unavailable)?;
            Ok(ActionWrite::Written)
        })
        .await
    }

    async fn get_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<Option<Action>> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.read(move |c| {
            c.query_row(
                &format!("SELECT {COLS} FROM actions WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"),
                [id.as_str(), ws.as_str(), owner.as_str()],
                action_from,
            )
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn list_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Action>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut stmt = c
                .prepare(&format!(
                    "SELECT {COLS} FROM actions WHERE owner_id = ?1 AND workspace_id = ?2 ORDER BY created_at, id"
                ))
                .map_err(unavailable)?;
            let rows = stmt.query_map([owner.as_str(), ws.as_str()], action_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn update_action(&self, action: &Action) -> StoreResult<ActionWrite> {
        let a = action.clone();
        self.write(move |tx| {
            if name_taken(tx, &a)? {
                return Ok(ActionWrite::NameTaken);
            }
            let n = tx
                .execute(
                    "UPDATE actions SET name = ?1, details = ?2, updated_at = ?3
                     WHERE id = ?4 AND workspace_id = ?5 AND owner_id = ?6",
                    params![
                        a.spec.name.as_str(),
                        to_json(&ActionRecord::of(&a)),
                        a.updated_at.millis(),
                        a.id.as_str(),
                        a.workspace_id.as_str(),
                        a.owner.as_str()
                    ],
                )
                .map_err(unavailable)?;
            Ok(if n == 1 { ActionWrite::Written } else { ActionWrite::NotFound })
        })
        .await
    }

    async fn delete_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<bool> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "DELETE FROM actions WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3",
                    [id.as_str(), ws.as_str(), owner.as_str()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn delete_owner_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.write(move |tx| {
            tx.execute("DELETE FROM actions WHERE owner_id = ?1 AND workspace_id = ?2", [owner.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok(())
        })
        .await
    }
}
