//! The keys items share across this adapter's files (design: `infra/dynamodb.md`): the
//! workspace partition and its counters item, the owners of knowledge sources, and events.

use lore_domain::id::{ChatbotId, EventId, MindId, WorkspaceId};

pub(crate) fn ws_pk(ws: &WorkspaceId) -> String {
    format!("WS#{ws}")
}

pub(crate) const WS_SK: &str = "WS";

pub(crate) const COUNTERS_SK: &str = "COUNTERS";

pub(crate) fn chatbot_sk(id: &ChatbotId) -> String {
    format!("CB#{id}")
}

pub(crate) fn slug_sk(slug: &str) -> String {
    format!("SLUG#{slug}")
}

pub(crate) fn mind_sk(id: &MindId) -> String {
    format!("MIND#{id}")
}

pub(crate) fn event_pk(id: &EventId) -> String {
    format!("EVT#{id}")
}

pub(crate) const EVENT_SK: &str = "EVT";

/// The `gsi2pk` of events not fanned out yet (removed by the fan-out).
pub(crate) const OUTBOX: &str = "OUTBOX";
