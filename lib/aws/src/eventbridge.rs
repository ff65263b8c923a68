//! The event bus on EventBridge (`EventBus`): one `PutEvents` entry per event, `Source = lore`,
//! `DetailType` = the event type, `Detail` = the delivery envelope plus `workspaceId`
//! (infra/messages.md). Rules on the bus route events to the webhook deliveries queue.

use crate::lazy_client::LazyClient;
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_eventbridge::Client;
use aws_sdk_eventbridge::error::DisplayErrorContext;
use aws_sdk_eventbridge::primitives::DateTime;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use lore_app::ports::EventBus;
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::event::{Event, EventType};
use lore_domain::id::{EventId, WorkspaceId};
use serde_json::Value;

/// The `Source` of every Lore event.
pub const EVENT_SOURCE: &str = "lore";

/// The `Detail` of an event: the envelope subscribers receive, plus the workspace it belongs to.
pub fn event_detail(e: &Event) -> Value {
    let mut detail = e.envelope();
    detail["workspaceId"] = Value::String(e.workspace_id.to_string());
    detail
}

/// The domain event inside an EventBridge event as SQS delivers it (the reverse of
/// [`event_detail`]); `None` for anything else (a test message, another source's event).
pub fn parse_event(body: &str) -> Option<Event> {
    let v: Value = serde_json::from_str(body).ok()?;
    let d = &v["detail"];
    Some(Event {
        id: EventId::parse(d["eventId"].as_str()?)?,
        event_type: EventType::parse(d["eventType"].as_str()?)?,
        workspace_id: WorkspaceId::parse(d["workspaceId"].as_str()?)?,
        created_at: Timestamp::parse(d["createdAt"].as_str()?)?,
        data: d["data"].clone(),
        metadata: d["metadata"].clone(),
    })
}

pub struct EventBridgeBus {
    client: LazyClient<Client>,
    bus: String,
}

impl EventBridgeBus {
    pub fn new(client: Client, bus: impl Into<String>) -> Self {
        Self { client: LazyClient::ready(client), bus: bus.into() }
    }

    /// A bus whose client is made on its first call.
    pub fn on_first_use(sdk: &SdkConfig, bus: impl Into<String>) -> Self {
        let sdk = sdk.clone();
        Self { client: LazyClient::new(move || Client::new(&sdk)), bus: bus.into() }
    }

    pub fn bus_name(&self) -> &str {
        &self.bus
    }

    pub fn client(&self) -> &Client {
        self.client.get()
    }
}

#[async_trait]
impl EventBus for EventBridgeBus {
    async fn publish(&self, e: Event) -> StoreResult<()> {
        let entry = PutEventsRequestEntry::builder()
            .event_bus_name(&self.bus)
            .source(EVENT_SOURCE)
            .detail_type(e.event_type.as_str())
            .detail(event_detail(&e).to_string())
            .time(DateTime::from_millis(e.created_at.millis()))
            .build();
        let out = self
            .client()
            .put_events()
            .entries(entry)
            .send()
            .await
            .map_err(|err| StoreError::Unavailable(format!("eventbridge: {}", DisplayErrorContext(err))))?;
        // PutEvents answers 200 even when entries fail; the failures are in the body.
        if out.failed_entry_count() > 0 {
            let why = out
                .entries()
                .iter()
                .filter_map(|r| r.error_code().map(|c| format!("{c}: {}", r.error_message().unwrap_or(""))))
                .collect::<Vec<_>>()
                .join("; ");
            return Err(StoreError::Unavailable(format!("eventbridge refused event {}: {why}", e.id)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::event::EventType;
    use lore_domain::id::WorkspaceId;

    #[test]
    fn detail_is_the_envelope_with_the_workspace() {
        let ws = WorkspaceId::generate();
        let e = Event::new(EventType::SourceReady, ws.clone(), serde_json::json!({"sourceId": "src_x"}));
        let d = event_detail(&e);
        assert_eq!(d["eventType"], "knowledge.source.ready");
        assert_eq!(d["eventId"], e.id.as_str());
        assert_eq!(d["data"]["sourceId"], "src_x");
        assert_eq!(d["workspaceId"], ws.as_str());
        assert!(d["createdAt"].is_string() && d["metadata"].is_object());
    }
}
