//! The event bus: domain events for webhooks.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::event::Event;

#[async_trait]
pub trait EventBus: Send + Sync {
    async fn publish(&self, event: Event) -> StoreResult<()>;
}
