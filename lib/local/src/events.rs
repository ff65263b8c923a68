//! The embedded event bus: an outbox table in the same SQLite file. The webhook dispatcher
//! fans out what it has not fanned out yet; tests and operators can list it.

use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::EventBus;
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::event::{Event, EventType};
use lore_domain::id::{EventId, WorkspaceId};
use rusqlite::{Connection, Row, params};
use serde_json::Value;

/// Columns [`event_from`] reads, in order.
pub(crate) const EVENT_COLS: &str = "id, workspace_id, type, created_at, data, metadata";

/// Writes an event to the outbox inside the caller's transaction, so that it is published
/// exactly when the change it reports is stored.
pub(crate) fn insert_event(tx: &Connection, e: &Event) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO events (id, workspace_id, type, created_at, data, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            e.id.as_str(),
            e.workspace_id.as_str(),
            e.event_type.as_str(),
            e.created_at.millis(),
            e.data.to_string(),
            e.metadata.to_string()
        ],
    )
    .map_err(unavailable)?;
    Ok(())
}

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

pub(crate) fn event_from(r: &Row<'_>) -> rusqlite::Result<Event> {
    let json = |s: String| serde_json::from_str::<Value>(&s).map_err(|_| bad("event JSON"));
    Ok(Event {
        id: EventId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("event id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        event_type: EventType::parse(&r.get::<_, String>(2)?).ok_or_else(|| bad("event type"))?,
        created_at: Timestamp::from_millis(r.get(3)?),
        data: json(r.get(4)?)?,
        metadata: json(r.get(5)?)?,
    })
}

#[async_trait]
impl EventBus for SqliteStore {
    async fn publish(&self, e: Event) -> StoreResult<()> {
        self.write(move |tx| insert_event(tx, &e)).await
    }
}

impl SqliteStore {
    /// A workspace's events, oldest first, as envelopes (`eventType`, `eventId`, `data`, …).
    pub async fn list_events(&self, ws: &WorkspaceId) -> StoreResult<Vec<Value>> {
        let ws = ws.clone();
        self.read(move |c| {
            let mut st = c
                .prepare(&format!("SELECT {EVENT_COLS} FROM events WHERE workspace_id = ?1 ORDER BY id"))
                .map_err(unavailable)?;
            let rows = st.query_map([ws.as_str()], event_from).map_err(unavailable)?;
            let events = rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)?;
            Ok(events.iter().map(Event::envelope).collect())
        })
        .await
    }
}
