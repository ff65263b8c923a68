//! The in-process wake-up of the webhook dispatcher: a `tokio::sync::Notify`. A notification
//! sent while the dispatcher is busy is kept, so none is lost between two of its rounds.

use async_trait::async_trait;
use lore_app::ports::DispatchSignal;
use lore_app::ports::EventBus;
use lore_app::ports::StoreResult;
use lore_domain::event::Event;
use std::sync::Arc;
use tokio::sync::Notify;

#[derive(Clone, Default)]
pub struct LocalSignal(Arc<Notify>);

impl LocalSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Resolves at the next notification (or at once when one is pending).
    pub async fn notified(&self) {
        self.0.notified().await
    }
}

impl DispatchSignal for LocalSignal {
    fn notify(&self) {
        self.0.notify_one();
    }
}

/// An event bus that wakes the dispatcher after each publish, so knowledge-source events are
/// fanned out at once rather than at the next poll.
pub struct WakingEventBus {
    inner: Arc<dyn EventBus>,
    signal: LocalSignal,
}

impl WakingEventBus {
    pub fn new(inner: Arc<dyn EventBus>, signal: LocalSignal) -> Self {
        Self { inner, signal }
    }
}

#[async_trait]
impl EventBus for WakingEventBus {
    async fn publish(&self, event: Event) -> StoreResult<()> {
        self.inner.publish(event).await?;
        self.signal.notify();
        Ok(())
    }
}
