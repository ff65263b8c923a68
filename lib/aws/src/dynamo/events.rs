//! The event outbox on the table: an event is written once, with the write that caused it, and
//! stays in the `OUTBOX` partition of gsi2 until the webhook engine fans it out.

use super::keys::{EVENT_SK, OUTBOX, event_pk};
use super::{DynamoStore, Item, TxFailure, gave_up, get_i, key, malformed, n, put_if_absent, req_s, s};
use async_trait::async_trait;
use lore_app::ports::{EventBus, StoreResult};
use lore_domain::Timestamp;
use lore_domain::event::{Event, EventType};
use lore_domain::id::{EventId, WorkspaceId};
use serde_json::Value;

/// An outbox event: in the `OUTBOX` partition of gsi2 (oldest first: ids are ULIDs) until it is
/// fanned out.
pub(super) fn event_item(e: &Event) -> Item {
    let mut item = key(event_pk(&e.id), EVENT_SK);
    item.extend([
        ("gsi2pk".into(), s(OUTBOX)),
        ("gsi2sk".into(), s(e.id.as_str())),
        ("id".into(), s(e.id.as_str())),
        ("ws".into(), s(e.workspace_id.as_str())),
        ("eventType".into(), s(e.event_type.as_str())),
        ("createdAt".into(), n(e.created_at.millis())),
        ("data".into(), s(e.data.to_string())),
        ("metadata".into(), s(e.metadata.to_string())),
    ]);
    item
}

pub(super) fn event_from(i: &Item) -> StoreResult<Event> {
    let json =
        |k: &str| -> StoreResult<Value> { serde_json::from_str(req_s(i, k)?).map_err(|_| malformed("event JSON")) };
    Ok(Event {
        id: EventId::parse(req_s(i, "id")?).ok_or_else(|| malformed("event id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        event_type: EventType::parse(req_s(i, "eventType")?).ok_or_else(|| malformed("event type"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
        data: json("data")?,
        metadata: json("metadata")?,
    })
}

#[async_trait]
impl EventBus for DynamoStore {
    /// Puts the event in the outbox (once: a second publish of the same id changes nothing).
    async fn publish(&self, e: Event) -> StoreResult<()> {
        match self.transact(vec![put_if_absent(event_item(&e))]).await {
            Ok(()) | Err(TxFailure::Condition(_)) => Ok(()),
            Err(TxFailure::Conflict) => Err(gave_up("publish")),
            Err(TxFailure::Store(e)) => Err(e),
        }
    }
}
