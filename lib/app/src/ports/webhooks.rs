//! Ports of webhook delivery: subscriptions, the delivery records with their schedule, the
//! signed POST, and the signal that wakes a dispatcher.
//!
//! The delivery schedule lives in the store, not in memory: whatever runs the dispatcher (the
//! in-process loop of `lore serve`, or a Lambda on a queue and a timer) can crash at any point
//! and the next one finds every due delivery (at-least-once, docs/api.md §13).

use super::Lease;
use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::delivery::{Attempt, Delivery, DeliveryStatus};
use lore_domain::event::Event;
use lore_domain::hook::{Hook, HookStatus, WebhookSecret};
use lore_domain::id::{DeliveryId, EventId, FormId, HookId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::visitor_match::ErasureTrace;
use std::time::Duration;

/// Active and disabled subscriptions of a workspace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HookCounts {
    pub active: u64,
    pub disabled: u64,
}

#[async_trait]
pub trait HookStore: Send + Sync {
    /// Stores `hook`, unless the workspace already has a subscription with the same url and
    /// the same events (`Hook::same_target`): then that one is re-activated (status
    /// `active`, failure streak reset) and returned instead. Returns the stored subscription;
    /// `None` when the workspace already has `limit` subscriptions (active or disabled) and
    /// `hook` is not one of them — checked in the same transaction as the insert.
    async fn subscribe(&self, hook: &Hook, limit: u32) -> StoreResult<Option<Hook>> {
        self.subscribe_recorded(hook, limit, None).await
    }
    /// [`HookStore::subscribe`] that writes `audit` in the same transaction as the subscription
    /// (with its `target_id` set to the stored subscription's id), and not when the limit refuses it.
    async fn subscribe_recorded(
        &self,
        hook: &Hook,
        limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>>;
    async fn get_hook(&self, ws: &WorkspaceId, id: &HookId) -> StoreResult<Option<Hook>>;
    /// `false` when it did not exist.
    async fn delete_hook(&self, ws: &WorkspaceId, id: &HookId) -> StoreResult<bool> {
        self.delete_hook_recorded(ws, id, None).await
    }
    /// [`HookStore::delete_hook`] that writes `audit` in the same transaction, only if it deleted.
    async fn delete_hook_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool>;
    /// Removes the subscriptions to one form (the form is being deleted); how many.
    async fn delete_form_hooks(&self, ws: &WorkspaceId, form: &FormId) -> StoreResult<u64>;
    /// Every `active` subscription of the workspace.
    async fn active_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>>;
    /// Every subscription of the workspace, active or disabled (at most its limit of
    /// subscriptions), newest first (`created_at`, then id, descending).
    async fn list_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>>;
    /// Ends a delivery's story for its subscription: a success resets the failure streak, a
    /// failure lengthens it and disables the subscription when it reaches `disable_after`.
    /// The status afterwards; `None` when the subscription no longer exists.
    async fn record_outcome(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        succeeded: bool,
        disable_after: u32,
    ) -> StoreResult<Option<HookStatus>>;
    async fn count_hooks(&self, ws: &WorkspaceId) -> StoreResult<HookCounts>;
    /// Replaces the subscription's secret with `secret`, keeping the current one as
    /// `retiring` (which replaces any earlier retiring secret). The subscription afterwards;
    /// `None` when it does not exist.
    async fn rotate_secret(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        secret: &WebhookSecret,
        retiring_until: Timestamp,
    ) -> StoreResult<Option<Hook>> {
        self.rotate_secret_recorded(ws, id, secret, retiring_until, None).await
    }
    /// [`HookStore::rotate_secret`] that writes `audit` in the same transaction, only if it rotated.
    async fn rotate_secret_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        secret: &WebhookSecret,
        retiring_until: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>>;
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    pub hook_id: Option<HookId>,
    pub status: Option<DeliveryStatus>,
}

/// The new state of a claimed delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryUpdate {
    /// The attempt made, appended to the delivery's attempts; `None` when the delivery ended
    /// without one (its subscription is gone or disabled).
    pub attempt: Option<Attempt>,
    pub status: DeliveryStatus,
    pub next_attempt_at: Option<Timestamp>,
}

#[async_trait]
pub trait DeliveryStore: Send + Sync {
    /// Events in the outbox that have not been fanned out yet, oldest first.
    async fn unfanned_events(&self, limit: u32) -> StoreResult<Vec<Event>>;
    /// Stores the deliveries of one event and marks the event fanned out, atomically. A
    /// delivery of the same event to the same subscription is stored once, however often this
    /// runs (a queue may hand the event over twice). Returns how many were new.
    async fn create_deliveries(&self, event: &EventId, deliveries: &[Delivery]) -> StoreResult<u64>;
    async fn get_delivery(&self, ws: &WorkspaceId, id: &DeliveryId) -> StoreResult<Option<Delivery>>;
    /// Newest first (`createdAt` desc, id desc), filtered, with the exact total.
    async fn list_deliveries(
        &self,
        ws: &WorkspaceId,
        filter: &DeliveryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Delivery>>;
    /// Claims up to `limit` `pending` deliveries due at `now` (and not claimed by a live lease)
    /// for `lease.owner` until `lease.until`, each with a new `claim` token. A claim that is
    /// never recorded runs out, and the delivery is due again: a crashed dispatcher loses
    /// nothing. Concurrent callers never claim the same delivery.
    async fn claim_due(&self, now: Timestamp, limit: u32, lease: &Lease) -> StoreResult<Vec<Delivery>>;
    /// Claims one delivery when it is `pending` and due at `now`.
    async fn claim_one(&self, id: &DeliveryId, now: Timestamp, lease: &Lease) -> StoreResult<Option<Delivery>>;
    /// Applies `update` to a delivery still held under `claim`, and ends the claim (it records
    /// once). `false` (nothing written) when the claim was superseded (a redelivery, a
    /// take-over after its lease) or already used.
    async fn record_attempt(&self, id: &DeliveryId, claim: u64, update: &DeliveryUpdate) -> StoreResult<bool>;
    /// Makes a delivery `pending` and due at `now` with a fresh round of attempts (attempts so
    /// far are kept), superseding any claim. `None` when it does not exist.
    async fn redeliver(&self, ws: &WorkspaceId, id: &DeliveryId, now: Timestamp) -> StoreResult<Option<Delivery>>;
    /// Drops the claims of every owner but `owner`: a restarted embedded server takes over the
    /// attempts its predecessor had in flight instead of waiting for their leases.
    async fn release_claims(&self, not_owner: &str) -> StoreResult<u64>;
    /// An erasure (docs/api.md §22, docs/decisions.md "Privacy"): every event of the workspace the
    /// store still keeps (the outbox, fanned out or not) and every delivery whose payload names
    /// `trace` ([`ErasureTrace::names`]) keeps its record (id, type, time; a delivery its status
    /// and attempts) but loses its payload: the event's `data` becomes
    /// [`lore_domain::visitor_match::erased_data`] and its `metadata` `{}`, the delivery's envelope
    /// likewise ([`ErasureTrace::scrub_envelope`]). Erasure notices (`privacy.visitor.erased`)
    /// are left to [`DeliveryStore::forget_erasure_notices`]. How many events and deliveries.
    async fn erase_traces(&self, ws: &WorkspaceId, trace: &ErasureTrace) -> StoreResult<ErasedTraces>;
    /// Scrubs, as [`DeliveryStore::erase_traces`] does, the erasure notices of the workspace whose
    /// delivery is over: outbox events already fanned out, and deliveries no longer `pending`.
    /// How many records changed.
    async fn forget_erasure_notices(&self, ws: &WorkspaceId) -> StoreResult<u64>;
}

/// What [`DeliveryStore::erase_traces`] scrubbed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ErasedTraces {
    pub events: u64,
    pub deliveries: u64,
}

/// One signed POST of an envelope (Standard Webhooks, docs/api.md §13).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookRequest {
    pub url: String,
    /// `webhook-id`: the same on every attempt, so receivers can de-duplicate.
    pub event_id: EventId,
    /// The exact bytes signed and sent.
    pub body: Vec<u8>,
    /// Each signs the request (`webhook-signature` lists one signature per secret).
    pub secrets: Vec<WebhookSecret>,
    /// Budget of the whole exchange.
    pub timeout: Duration,
}

/// How a POST ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// The receiver answered with `status` (redirects are answers, never followed); with a 429
    /// or 503, the wait its `Retry-After` asked for.
    Answered { status: u16, retry_after: Option<Duration> },
    /// No answer: timeout, connection failure, or an address refused by request protection.
    NoAnswer(String),
}

#[async_trait]
pub trait WebhookSender: Send + Sync {
    /// Signs and sends. Never panics on a hostile receiver; reads at most a capped body.
    async fn send(&self, request: &WebhookRequest) -> SendOutcome;
}

/// Tells whatever dispatches deliveries that there may be work now (a new event, a
/// redelivery). The embedded dispatcher also polls, so a lost signal only delays.
pub trait DispatchSignal: Send + Sync {
    fn notify(&self);
}
