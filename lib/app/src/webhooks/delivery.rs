//! The delivery engine (docs/api.md §13): events fan out to one delivery per matching
//! subscription; due deliveries are claimed, signed, POSTed and rescheduled.
//!
//! Every step is a short use case over the stores, so any runtime can drive it: the
//! in-process loop of `lore serve` calls [`App::fan_out_pending`] and [`App::claim_due`] +
//! [`App::attempt_claimed`]; a queue consumer calls [`App::fan_out`] per event and
//! [`App::attempt`] per delivery; a timer calls [`App::dispatch_due`].

use crate::ports::Lease;
use crate::ports::{DeliveryUpdate, SendOutcome, WebhookRequest};
use crate::sources::lease_end;
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::delivery::{Answer, Delivery, DeliveryStatus, Envelope, HookEffect};
use lore_domain::event::{Event, EventType};
use lore_domain::hook::{Hook, HookStatus};
use lore_domain::id::DeliveryId;
use std::time::Duration;

/// How long a claim outlives the attempt's own timeout before another dispatcher may take the
/// delivery over.
const CLAIM_MARGIN: Duration = Duration::from_secs(60);

impl App {
    /// Creates one delivery per active subscription that matches `event`, and marks the event
    /// fanned out. Safe to repeat: a subscription gets one delivery per event.
    pub async fn fan_out(&self, event: &Event) -> Result<u64, AppError> {
        let hooks = self.ports.storage.hooks.active_hooks(&event.workspace_id).await?;
        self.fan_out_to(event, &hooks).await
    }

    /// [`App::fan_out`] for a batch of events (a queue's batch), reading each workspace's
    /// subscriptions once and fanning the events out at once: a backlog of events costs about
    /// one store round trip per event, not several. One result per event, in order.
    pub async fn fan_out_batch(&self, events: &[Event]) -> Vec<Result<u64, AppError>> {
        let mut workspaces: Vec<&lore_domain::id::WorkspaceId> = events.iter().map(|e| &e.workspace_id).collect();
        workspaces.sort();
        workspaces.dedup();
        let hooks =
            futures::future::join_all(workspaces.iter().map(|ws| self.ports.storage.hooks.active_hooks(ws))).await;
        let hooks: Vec<(&lore_domain::id::WorkspaceId, Result<Vec<Hook>, crate::StoreError>)> =
            workspaces.into_iter().zip(hooks).collect();
        let fanned = events.iter().map(|event| {
            let of_ws = hooks.iter().find(|(ws, _)| **ws == event.workspace_id).map(|(_, h)| h);
            async move {
                match of_ws {
                    Some(Ok(hooks)) => self.fan_out_to(event, hooks).await,
                    Some(Err(e)) => Err(AppError::Storage(e.to_string())),
                    None => Err(AppError::Storage("no subscriptions were read for the event's workspace".into())),
                }
            }
        });
        futures::future::join_all(fanned).await
    }

    async fn fan_out_to(&self, event: &Event, hooks: &[Hook]) -> Result<u64, AppError> {
        let now = Timestamp::now();
        let envelope = Envelope::of(event);
        let deliveries: Vec<Delivery> =
            hooks.iter().filter(|h| h.matches(event)).map(|h| Delivery::new(h, event, envelope.clone(), now)).collect();
        let created = self.ports.storage.deliveries.create_deliveries(&event.id, &deliveries).await?;
        if created > 0 {
            tracing::debug!(event = %event.id, deliveries = created, "event fanned out");
            self.ports.dispatch_signal.notify();
        } else if event.event_type == EventType::PrivacyVisitorErased {
            // An erasure notice no one is sent is over: it names the erased person no longer.
            self.forget_erasure_notices(&event.workspace_id).await;
        }
        Ok(created)
    }

    /// Fans out up to `limit` outbox events not fanned out yet; how many events that was.
    pub async fn fan_out_pending(&self, limit: u32) -> Result<usize, AppError> {
        let events = self.ports.storage.deliveries.unfanned_events(limit).await?;
        for event in &events {
            self.fan_out(event).await?;
        }
        Ok(events.len())
    }

    fn delivery_lease(&self, now: Timestamp) -> Lease {
        Lease {
            owner: self.config.instance_id.clone(),
            until: lease_end(now, self.config.webhook_timeout + CLAIM_MARGIN),
        }
    }

    /// Claims up to `limit` deliveries due at `now` for this process.
    pub async fn claim_due(&self, now: Timestamp, limit: u32) -> Result<Vec<Delivery>, AppError> {
        Ok(self.ports.storage.deliveries.claim_due(now, limit, &self.delivery_lease(now)).await?)
    }

    /// Claims and attempts every delivery due at `now` (up to `limit`) concurrently, and waits
    /// for them; how many were attempted.
    pub async fn dispatch_due(&self, now: Timestamp, limit: u32) -> Result<usize, AppError> {
        let claimed = self.claim_due(now, limit).await?;
        let n = claimed.len();
        let mut running = tokio::task::JoinSet::new();
        for d in claimed {
            let app = self.clone();
            running.spawn(async move { app.attempt_claimed(d).await });
        }
        while let Some(done) = running.join_next().await {
            match done {
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::error!(error = %e, "a delivery attempt could not be recorded"),
                Err(e) => tracing::error!(error = %e, "a delivery attempt panicked"),
            }
        }
        Ok(n)
    }

    /// Attempts one delivery now if it is pending and due (a queue message may arrive early or
    /// twice: then nothing happens). Its status afterwards, `None` when it was not due.
    pub async fn attempt(&self, id: &DeliveryId) -> Result<Option<DeliveryStatus>, AppError> {
        let now = Timestamp::now();
        match self.ports.storage.deliveries.claim_one(id, now, &self.delivery_lease(now)).await? {
            Some(d) => self.attempt_claimed(d).await.map(Some),
            None => Ok(None),
        }
    }

    /// Takes over attempts another process left claimed (a restarted `lore serve`).
    pub async fn release_delivery_claims(&self) -> Result<u64, AppError> {
        Ok(self.ports.storage.deliveries.release_claims(&self.config.instance_id).await?)
    }

    /// POSTs a claimed delivery to its subscription and records the outcome: the attempt, the
    /// next one on the retry schedule or the final status, and what it means for the
    /// subscription (streak reset, disabled after repeated failures, removed on 410).
    pub async fn attempt_claimed(&self, d: Delivery) -> Result<DeliveryStatus, AppError> {
        let hook = self.ports.storage.hooks.get_hook(&d.workspace_id, &d.hook_id).await?;
        let Some(hook) = hook.filter(|h| h.status == HookStatus::Active) else {
            // Unsubscribed, gone after a 410, or disabled: nothing is sent any more.
            let update = DeliveryUpdate { attempt: None, status: DeliveryStatus::Failed, next_attempt_at: None };
            if self.ports.storage.deliveries.record_attempt(&d.id, d.claim, &update).await?
                && d.event_type == EventType::PrivacyVisitorErased
            {
                self.forget_erasure_notices(&d.workspace_id).await;
            }
            return Ok(DeliveryStatus::Failed);
        };
        let body = d.payload.as_str().as_bytes().to_vec();
        let request = WebhookRequest {
            url: hook.hook_url.clone(),
            event_id: d.event_id.clone(),
            body,
            secrets: hook.signing_secrets(Timestamp::now()),
            timeout: self.config.webhook_timeout,
        };
        let at = Timestamp::now();
        let answer = match self.ports.shared.webhook_sender.send(&request).await {
            SendOutcome::Answered { status, retry_after } => Answer::Status(status, retry_after),
            SendOutcome::NoAnswer(why) => Answer::None(why),
        };
        let config = &self.config;
        let after = d.after_attempt(
            answer,
            at,
            Timestamp::now(),
            &config.webhook_retry_schedule,
            config.webhook_max_retry_after,
        );
        // Like requests, an attempt is logged at `info` when it does not succeed and at `debug`
        // when it does: every attempt is in the delivery log (`GET …/deliveries`) anyway, and a
        // line per request cost a fifth of the API's throughput (docs/benchmarks.md).
        macro_rules! attempt_logged {
            ($level:ident) => {
                tracing::$level!(
                    delivery = %d.id, hook = %hook.id, event = %d.event_id, status = after.status.as_str(),
                    http_status = after.attempt.status_code, error = after.attempt.error.as_deref(),
                    "webhook attempt"
                )
            };
        }
        if after.status == DeliveryStatus::Succeeded {
            attempt_logged!(debug);
        } else {
            attempt_logged!(info);
        }
        // The subscription changes first: whoever sees the delivery final also sees its effect
        // (streak, disabled, removed). A crash in between repeats the attempt, never loses it.
        let ws = &d.workspace_id;
        match after.hook {
            // A success only resets the failure streak: with none to reset (read just above),
            // there is nothing to write. A failure recorded meanwhile by a concurrent attempt
            // then stays counted, as if it had come after this success, which it may have.
            HookEffect::Succeeded if hook.consecutive_failures == 0 => {}
            HookEffect::Succeeded => {
                self.ports.storage.hooks.record_outcome(ws, &hook.id, true, self.config.hook_disable_after).await?;
            }
            HookEffect::Failed => {
                let status = self
                    .ports
                    .storage
                    .hooks
                    .record_outcome(ws, &hook.id, false, self.config.hook_disable_after)
                    .await?;
                if status == Some(HookStatus::Disabled) {
                    tracing::warn!(hook = %hook.id, "subscription disabled after repeated failed deliveries");
                }
            }
            HookEffect::Gone => {
                // Removed by Lore itself: an entry with no key.
                let details = lore_domain::audit::AuditDetails::new().text("reason", "the receiver answered 410 Gone");
                let entry = lore_domain::audit::AuditEntry::new(
                    ws.clone(),
                    None,
                    lore_domain::audit::AuditAction::WebhookUnsubscribed,
                    hook.id.as_str(),
                    details,
                );
                self.ports.storage.hooks.delete_hook_recorded(ws, &hook.id, Some(&entry)).await?;
                tracing::info!(hook = %hook.id, "subscription removed: the receiver answered 410 Gone");
            }
            HookEffect::Undecided => {}
        }
        let update = DeliveryUpdate {
            attempt: Some(after.attempt.clone()),
            status: after.status,
            next_attempt_at: after.next_attempt_at,
        };
        if !self.ports.storage.deliveries.record_attempt(&d.id, d.claim, &update).await? {
            tracing::info!(delivery = %d.id, "attempt superseded (redelivered or taken over); outcome not recorded");
        } else if after.status != DeliveryStatus::Pending && d.event_type == EventType::PrivacyVisitorErased {
            // A delivered (or abandoned) erasure notice keeps its attempts, not the person.
            self.forget_erasure_notices(ws).await;
        }
        Ok(after.status)
    }

    /// Scrubs the workspace's erasure notices whose delivery is over (docs/decisions.md,
    /// "Privacy"); a failure is logged, and the next notice's end tries again.
    async fn forget_erasure_notices(&self, ws: &lore_domain::id::WorkspaceId) {
        if let Err(e) = self.ports.storage.deliveries.forget_erasure_notices(ws).await {
            tracing::warn!(workspace = %ws, error = %e, "could not scrub delivered erasure notices");
        }
    }
}
