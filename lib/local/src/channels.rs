//! Channels (`ChannelStore`) on [`SqliteStore`]. The owner's limit is checked in the transaction
//! that writes; a channel's deliveries and threads go with it (foreign keys).

use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::{ChannelStore, ChannelWrite, StoreResult};
use lore_domain::Timestamp;
use lore_domain::channel::{ChannelStatus, ConnectedChannel, EVENT_MEMORY_SECS, PlatformFailure};
use lore_domain::id::{ChannelId, ConversationId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_records::{ChannelKeys, ChannelRecord, PlatformFailureRecord, from_json, to_json};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, owner_id, details, created_at";

fn malformed(e: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(e.to_string())
}

fn channel_from(r: &Row<'_>) -> rusqlite::Result<ConnectedChannel> {
    let keys = ChannelKeys {
        id: ChannelId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed channel id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed channel owner"))?,
        created_at: Timestamp::from_millis(r.get(4)?),
    };
    from_json::<ChannelRecord>(&r.get::<_, String>(3)?, "channel").and_then(|d| d.into_channel(keys)).map_err(malformed)
}

fn channel_exists(c: &Connection, id: &ChannelId) -> StoreResult<bool> {
    c.query_row("SELECT EXISTS (SELECT 1 FROM channels WHERE id = ?1)", [id.as_str()], |r| r.get(0))
        .map_err(unavailable)
}

/// The conversation the channel's thread is bound to (an unreadable id reads as none).
fn bound_conversation(c: &Connection, id: &ChannelId, thread: &str) -> StoreResult<Option<ConversationId>> {
    let found: Option<String> = c
        .query_row(
            "SELECT conversation_id FROM channel_threads WHERE channel_id = ?1 AND thread = ?2",
            [id.as_str(), thread],
            |r| r.get(0),
        )
        .optional()
        .map_err(unavailable)?;
    Ok(found.and_then(|s| ConversationId::parse(&s)))
}

#[async_trait]
impl ChannelStore for SqliteStore {
    async fn insert_channel(&self, channel: &ConnectedChannel, limit: u32) -> StoreResult<ChannelWrite> {
        let c = channel.clone();
        self.write(move |tx| {
            let used: i64 = tx
                .query_row(
                    "SELECT COUNT(*) FROM channels WHERE owner_id = ?1 AND workspace_id = ?2",
                    [c.owner.as_str(), c.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .map_err(unavailable)?;
            if used >= i64::from(limit) {
                return Ok(ChannelWrite::LimitReached);
            }
            let (chatbot, mind) = (c.owner.chatbot().map(|i| i.as_str()), c.owner.mind().map(|i| i.as_str()));
            tx.execute(
                "INSERT INTO channels (id, workspace_id, chatbot_id, mind_id, details, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    c.id.as_str(),
                    c.workspace_id.as_str(),
                    chatbot,
                    mind,
                    to_json(&ChannelRecord::of(&c)),
                    c.created_at.millis()
                ],
            )
            .map_err(unavailable)?;
            Ok(ChannelWrite::Written)
        })
        .await
    }

    async fn get_channel(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ChannelId,
    ) -> StoreResult<Option<ConnectedChannel>> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.read(move |c| {
            c.query_row(
                &format!("SELECT {COLS} FROM channels WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"),
                [id.as_str(), ws.as_str(), owner.as_str()],
                channel_from,
            )
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn find_channel(&self, id: &ChannelId) -> StoreResult<Option<ConnectedChannel>> {
        let id = id.clone();
        self.read(move |c| {
            c.query_row(&format!("SELECT {COLS} FROM channels WHERE id = ?1"), [id.as_str()], channel_from)
                .optional()
                .map_err(unavailable)
        })
        .await
    }

    async fn list_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<ConnectedChannel>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut stmt = c
                .prepare(&format!(
                    "SELECT {COLS} FROM channels WHERE owner_id = ?1 AND workspace_id = ?2 ORDER BY created_at, id"
                ))
                .map_err(unavailable)?;
            let rows = stmt.query_map([owner.as_str(), ws.as_str()], channel_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn delete_channel(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ChannelId) -> StoreResult<bool> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "DELETE FROM channels WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3",
                    [id.as_str(), ws.as_str(), owner.as_str()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn delete_owner_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.write(move |tx| {
            tx.execute("DELETE FROM channels WHERE owner_id = ?1 AND workspace_id = ?2", [owner.as_str(), ws.as_str()])
                .map_err(unavailable)?;
            Ok(())
        })
        .await
    }

    async fn set_channel_health(
        &self,
        id: &ChannelId,
        status: ChannelStatus,
        last_error: Option<&PlatformFailure>,
        last_message_at: Option<Timestamp>,
    ) -> StoreResult<()> {
        let (id, last_error) = (id.clone(), last_error.cloned());
        self.write(move |tx| {
            let found = tx
                .query_row(&format!("SELECT {COLS} FROM channels WHERE id = ?1"), [id.as_str()], channel_from)
                .optional()
                .map_err(unavailable)?;
            let Some(mut c) = found else { return Ok(()) };
            c.status = status;
            if let Some(e) = last_error {
                c.last_error = Some(e);
            }
            if let Some(at) = last_message_at {
                c.last_message_at = Some(at);
            }
            tx.execute(
                "UPDATE channels SET details = ?2 WHERE id = ?1",
                params![id.as_str(), to_json(&ChannelRecord::of(&c))],
            )
            .map_err(unavailable)?;
            Ok(())
        })
        .await
    }

    async fn remember_delivery(&self, id: &ChannelId, delivery: &str, now: Timestamp) -> StoreResult<bool> {
        let (id, delivery) = (id.clone(), delivery.to_owned());
        self.write(move |tx| {
            // Forgotten after a day; a redelivery comes within hours.
            tx.execute(
                "DELETE FROM channel_deliveries WHERE received_at < ?1",
                [now.millis() - EVENT_MEMORY_SECS * 1000],
            )
            .map_err(unavailable)?;
            let n = tx
                .execute(
                    "INSERT INTO channel_deliveries (channel_id, delivery_id, received_at)
                     SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?1)
                     ON CONFLICT (channel_id, delivery_id) DO NOTHING",
                    params![id.as_str(), delivery, now.millis()],
                )
                .map_err(unavailable)?;
            // A channel deleted meanwhile: nothing to answer, but not a redelivery either.
            Ok(n == 1 || !channel_exists(tx, &id)?)
        })
        .await
    }

    async fn thread_conversation(&self, id: &ChannelId, thread: &str) -> StoreResult<Option<ConversationId>> {
        let (id, thread) = (id.clone(), thread.to_owned());
        self.read(move |c| bound_conversation(c, &id, &thread)).await
    }

    async fn bind_thread(
        &self,
        id: &ChannelId,
        thread: &str,
        conversation: &ConversationId,
        replacing: Option<&ConversationId>,
    ) -> StoreResult<ConversationId> {
        let (id, thread, conversation) = (id.clone(), thread.to_owned(), conversation.clone());
        let replacing = replacing.cloned();
        self.write(move |tx| {
            match (bound_conversation(tx, &id, &thread)?, &replacing) {
                (Some(bound), Some(stale)) if bound != *stale => return Ok(bound),
                (Some(bound), None) => return Ok(bound),
                _ => {}
            }
            if channel_exists(tx, &id)? {
                tx.execute(
                    "INSERT INTO channel_threads (channel_id, thread, conversation_id) VALUES (?1, ?2, ?3)
                     ON CONFLICT (channel_id, thread) DO UPDATE SET conversation_id = excluded.conversation_id",
                    [id.as_str(), thread.as_str(), conversation.as_str()],
                )
                .map_err(unavailable)?;
            }
            Ok(conversation)
        })
        .await
    }
}

/// The conversation's `channel_error` (part of `ConversationStore`, written here beside the
/// rest of channels' storage).
pub(crate) fn set_channel_error(
    tx: &rusqlite::Connection,
    ws: &WorkspaceId,
    id: &ConversationId,
    failure: Option<&PlatformFailure>,
) -> StoreResult<()> {
    let details: Option<String> = tx
        .query_row(
            "SELECT details FROM conversations WHERE id = ?1 AND workspace_id = ?2",
            [id.as_str(), ws.as_str()],
            |r| r.get(0),
        )
        .optional()
        .map_err(unavailable)?;
    let Some(details) = details else { return Ok(()) };
    let mut record: lore_records::ConversationRecord = from_json(&details, "conversation").map_err(unavailable)?;
    record.channel_error = failure.map(PlatformFailureRecord::of);
    tx.execute("UPDATE conversations SET details = ?2 WHERE id = ?1", params![id.as_str(), to_json(&record)])
        .map_err(unavailable)?;
    Ok(())
}
