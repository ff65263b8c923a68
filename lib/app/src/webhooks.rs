//! Webhook use cases: subscribe, unsubscribe, the delivery log and redelivery
//! (docs/api.md §12, §13).

mod delivery;

use crate::auth::Principal;
use crate::ports::{DeliveryFilter, HookCounts};
use crate::sources::url_error;
use crate::{App, AppError};
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::delivery::{Delivery, DeliveryStatus, Envelope};
use lore_domain::error::Validator;
use lore_domain::event::{Event, EventType};
use lore_domain::form::ALL_FORMS_ID;
use lore_domain::hook::{Hook, HookFilter, HookStatus, HookTarget, MAX_HOOK_URL};
use lore_domain::id::{ChatbotId, DeliveryId, FormId, HookId, MindId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::workspace::Workspace;
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// A subscribe request as the client sent it.
#[derive(Debug, Clone, Default)]
pub struct SubscribeRequest {
    pub hook_url: Option<String>,
    /// Absent, `null` or `""`: every form.
    pub form_id: Option<String>,
    pub event: Option<String>,
    pub chatbot_id: Option<String>,
    /// `mind.lead.captured` of this Mind only.
    pub mind_id: Option<String>,
}

/// An id given in a body: absent or empty is none; one that cannot be ours names nothing (404).
fn optional_id<T>(raw: Option<&str>, parse: fn(&str) -> Option<T>, what: &'static str) -> Result<Option<T>, AppError> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => parse(s).map(Some).ok_or(AppError::NotFound(what)),
    }
}

/// A `formId` as a client sends it: absent, empty or `"all"` is every form; else the form it
/// names (an id that cannot be ours names nothing: 404).
pub fn form_selection(raw: Option<&str>) -> Result<Option<FormId>, AppError> {
    optional_id(raw.filter(|f| f.trim() != ALL_FORMS_ID), FormId::parse, "form")
}

/// A lead event of `owner` with a made-up visitor.
fn sample_lead_of(p: &Principal, owner: &lore_domain::source::SourceOwner) -> Event {
    let conversation = lore_domain::id::ConversationId::generate();
    Event::lead_captured(
        p.workspace_id().clone(),
        owner,
        &conversation,
        "visitor@example.com",
        Some("Ada Lovelace"),
        None,
    )
}

impl App {
    /// A sample `mind.lead.captured` envelope (docs/api.md §17): of the Mind given, else of the
    /// workspace's newest Mind, else of an example Mind; the visitor is made up.
    pub async fn sample_lead(&self, p: &Principal, mind: Option<&MindId>) -> Result<Vec<Event>, AppError> {
        let mind_id = match mind {
            Some(id) => self.find_mind(p, id).await?.id,
            None => match self
                .ports
                .storage
                .minds
                .list_minds(p.workspace_id(), lore_domain::pagination::PageRequest::new(1, 1))
                .await?
                .items
                .pop()
            {
                Some(m) => m.id,
                None => MindId::generate(),
            },
        };
        Ok(vec![sample_lead_of(p, &lore_domain::source::SourceOwner::Mind(mind_id))])
    }

    /// A sample `chatbot.lead.captured` envelope (docs/api.md §18): of the chatbot given, else of
    /// the workspace's newest chatbot, else of an example chatbot; the visitor is made up.
    pub async fn sample_chatbot_lead(
        &self,
        p: &Principal,
        chatbot: Option<&lore_domain::id::ChatbotId>,
    ) -> Result<Vec<Event>, AppError> {
        let chatbot_id = match chatbot {
            Some(id) => self.get_chatbot(p, id).await?.id,
            None => {
                let newest = self
                    .ports
                    .storage
                    .chatbots
                    .list_chatbots(p.workspace_id(), lore_domain::pagination::PageRequest::new(1, 1));
                match newest.await?.items.pop() {
                    Some(c) => c.id,
                    None => lore_domain::id::ChatbotId::generate(),
                }
            }
        };
        Ok(vec![sample_lead_of(p, &lore_domain::source::SourceOwner::Chatbot(chatbot_id))])
    }

    /// A sample `message.rated`, `conversation.handoff_requested` (docs/api.md §19),
    /// `tests.run.completed` (§21) or `conversation.action.called` (§23) envelope:
    /// of the chatbot or Mind given, else of the workspace's newest Mind, else of an example
    /// Mind; the conversation, message and visitor are made up.
    pub async fn sample_conversation_event(
        &self,
        p: &Principal,
        event: EventType,
        mind: Option<&MindId>,
        chatbot: Option<&ChatbotId>,
    ) -> Result<Vec<Event>, AppError> {
        use lore_domain::conversation::{Conversation, Feedback, HandoffReason, Rating, Visitor};
        use lore_domain::source::SourceOwner;
        let owner = match (chatbot, mind) {
            (Some(c), _) => SourceOwner::Chatbot(self.get_chatbot(p, c).await?.id),
            (None, Some(m)) => SourceOwner::Mind(self.find_mind(p, m).await?.id),
            (None, None) => {
                let newest =
                    self.ports.storage.minds.list_minds(p.workspace_id(), PageRequest::new(1, 1)).await?.items.pop();
                SourceOwner::Mind(newest.map_or_else(MindId::generate, |m| m.id))
            }
        };
        let now = Timestamp::now();
        let visitor = Visitor::parse(Some("visitor@example.com"), Some("Ada Lovelace"))?;
        let conversation = Conversation::start(
            p.workspace_id().clone(),
            owner.clone(),
            lore_domain::conversation::Channel::Public,
            visitor,
            now,
        );
        Ok(vec![match event {
            EventType::HandoffRequested => {
                let reason = HandoffReason::parse(Some("I would like to talk to a person."))?;
                Event::handoff_requested(&conversation, reason.as_ref())
            }
            EventType::TestsRunCompleted => {
                use lore_domain::answer_test::TestRun;
                let tests = (0..12).map(|_| lore_domain::id::AnswerTestId::generate()).collect();
                let mut run = TestRun::queued(p.workspace_id().clone(), owner, tests, now);
                (run.passed, run.failed, run.regressions) = (10, 2, 1);
                Event::tests_run_completed(&run)
            }
            EventType::ActionCalled => {
                use lore_domain::action::{ActionCall, CallStatus};
                let call = ActionCall {
                    action_id: Some(lore_domain::id::ActionId::generate()),
                    name: "lookup_order".into(),
                    arguments: serde_json::json!({"orderId": "10042"}),
                    status: CallStatus::Ok,
                    http_status: Some(200),
                    took_ms: 182,
                };
                let message = lore_domain::id::MessageId::generate();
                Event::action_called(p.workspace_id().clone(), &owner, &conversation.id, &message, &call)
            }
            _ => {
                let feedback = Feedback { rating: Rating::Up, comment: Some("Very helpful.".into()), at: now };
                let message = lore_domain::id::MessageId::generate();
                Event::message_rated(p.workspace_id().clone(), &owner, &conversation.id, &message, &feedback)
            }
        }])
    }

    /// Sample `knowledge.source.*` envelopes of `event` (docs/api.md §12): built from the newest
    /// sources (up to 3) of the chatbot given, else of the workspace's newest chatbot, that fit
    /// the event (ready ones for `ready`, failed ones for `error`, any other), else from one made
    /// up. Built by the same code as a delivery's.
    pub async fn sample_source_events(
        &self,
        p: &Principal,
        event: EventType,
        chatbot: Option<&ChatbotId>,
    ) -> Result<Vec<Event>, AppError> {
        use lore_domain::source::{KnowledgeSource, SourceOwner, SourceSpec, SourceStatus};
        let chatbot = match chatbot {
            Some(id) => Some(id.clone()),
            None => self
                .ports
                .storage
                .chatbots
                .list_chatbots(p.workspace_id(), PageRequest::new(1, 1))
                .await?
                .items
                .pop()
                .map(|c| c.id),
        };
        let status = match event {
            EventType::SourceReady | EventType::SourceRefreshed => Some(SourceStatus::Ready),
            EventType::SourceError => Some(SourceStatus::Error),
            _ => None,
        };
        let mut sources = match &chatbot {
            Some(id) => {
                let filter = crate::ports::SourceFilter { status, source_type: None };
                self.list_sources(p, id, filter, PageRequest::new(1, 3)).await?.items
            }
            None => Vec::new(),
        };
        if sources.is_empty() {
            let now = Timestamp::now();
            let content = "Refunds are paid within fourteen days of the return.".to_owned();
            sources.push(KnowledgeSource {
                id: lore_domain::id::SourceId::generate(),
                workspace_id: p.workspace_id().clone(),
                owner: SourceOwner::Chatbot(chatbot.unwrap_or_else(ChatbotId::generate)),
                name: "Refund policy".into(),
                status: status.unwrap_or(SourceStatus::Pending),
                spec: SourceSpec::Text { content: content.clone() },
                created_at: now,
                updated_at: now,
                processed_at: None,
                chunk_count: 1,
                size_bytes: content.len() as u64,
                error: (event == EventType::SourceError).then(|| "The file could not be read as a PDF.".into()),
                content_hash: None,
                progress: None,
                generation: 0,
                metadata: Default::default(),
            });
        }
        Ok(sources
            .iter_mut()
            .map(|s| {
                if event == EventType::SourceCreated {
                    // As it was announced: just created, not yet processed.
                    s.status = SourceStatus::Pending;
                }
                if event == EventType::SourceRefreshed {
                    // An illustration: a sample has no crawl before it to compare with.
                    let pages = lore_domain::source::PageChanges { added: 1, changed: 2, removed: 0, unchanged: 7 };
                    return Event::source_refreshed(s, &pages);
                }
                Event::for_source(event, s)
            })
            .collect())
    }

    /// Subscribes a URL (checked by request protection now, and at every delivery). Subscribing
    /// the same URL to the same events again returns that subscription, re-enabled.
    pub async fn subscribe(&self, p: &Principal, req: SubscribeRequest) -> Result<Hook, AppError> {
        let mut v = Validator::new();
        let url = match req.hook_url.as_deref().map(str::trim) {
            Some(u) if !u.is_empty() => Some(u.to_owned()),
            _ => v.check(Err(DomainError::field("hookUrl", "is required"))),
        };
        let filter = v.check(HookFilter::parse(req.event.as_deref()));
        v.finish()?;
        let (Some(url), Some(filter)) = (url, filter) else { unreachable!("validator finished without errors") };
        let form_id = form_selection(req.form_id.as_deref())?;
        let chatbot_id = optional_id(req.chatbot_id.as_deref(), ChatbotId::parse, "chatbot")?;
        let mind_id = optional_id(req.mind_id.as_deref(), MindId::parse, "mind")?;
        let target = HookTarget::narrowed(filter, form_id, chatbot_id, mind_id)?;
        if url.chars().count() > MAX_HOOK_URL {
            return Err(DomainError::new(
                ErrorCode::InvalidUrl,
                format!("`hookUrl` must be at most {MAX_HOOK_URL} characters"),
            )
            .into());
        }
        let url = self.ports.shared.url_guard.check(&url).await.map_err(url_error)?;
        if let Some(form) = &target.form_id {
            self.get_form(p, form).await?;
        }
        if let Some(bot) = &target.chatbot_id {
            self.get_chatbot(p, bot).await?;
        }
        if let Some(mind) = &target.mind_id {
            self.find_mind(p, mind).await?;
        }
        let hook = Hook::new(p.workspace_id().clone(), url, target, Timestamp::now());
        let limit = self.config.max_hooks_per_workspace;
        let entry = Self::audit_entry(p, AuditAction::WebhookSubscribed, hook.id.as_str(), hook_details(&hook));
        let hook = self.ports.storage.hooks.subscribe_recorded(&hook, limit, Some(&entry)).await?.ok_or_else(|| {
            AppError::from(DomainError::new(
                ErrorCode::WebhooksLimitReached,
                format!("this workspace already has {limit} webhook subscriptions; delete one first"),
            ))
        })?;
        Ok(hook)
    }

    pub async fn unsubscribe(&self, p: &Principal, id: &HookId) -> Result<(), AppError> {
        let entry = Self::audit_entry(p, AuditAction::WebhookUnsubscribed, id.as_str(), AuditDetails::new());
        if self.ports.storage.hooks.delete_hook_recorded(p.workspace_id(), id, Some(&entry)).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("subscription"))
        }
    }

    pub async fn get_hook(&self, p: &Principal, id: &HookId) -> Result<Option<Hook>, AppError> {
        Ok(self.ports.storage.hooks.get_hook(p.workspace_id(), id).await?)
    }

    /// What the "test auth" call of an integration shows about a key: its workspace and the
    /// workspace's subscriptions by state, read together.
    pub async fn key_overview(&self, p: &Principal) -> Result<(Workspace, HookCounts), AppError> {
        let (ws, counts) = futures::try_join!(self.current_workspace(p), async {
            Ok::<_, AppError>(self.ports.storage.hooks.count_hooks(p.workspace_id()).await?)
        })?;
        Ok((ws, counts))
    }

    /// The workspace's subscriptions, newest first, a page at a time (docs/api.md §12).
    pub async fn list_hooks(&self, p: &Principal, page: PageRequest) -> Result<Page<Hook>, AppError> {
        let all = self.ports.storage.hooks.list_hooks(p.workspace_id()).await?;
        let total = all.len() as u64;
        let items = all.into_iter().skip(page.offset() as usize).take(page.limit() as usize).collect();
        Ok(Page { items, total, request: page })
    }

    pub async fn list_deliveries(
        &self,
        p: &Principal,
        filter: &DeliveryFilter,
        page: PageRequest,
    ) -> Result<Page<Delivery>, AppError> {
        Ok(self.ports.storage.deliveries.list_deliveries(p.workspace_id(), filter, page).await?)
    }

    /// Sends a delivery again (same event, same `eventId`) with a fresh round of attempts.
    /// Its subscription must still exist and be active.
    pub async fn redeliver(&self, p: &Principal, id: &DeliveryId) -> Result<Delivery, AppError> {
        let ws = p.workspace_id();
        let delivery =
            self.ports.storage.deliveries.get_delivery(ws, id).await?.ok_or(AppError::NotFound("delivery"))?;
        self.active_hook(p, &delivery.hook_id).await?;
        let queued = self.ports.storage.deliveries.redeliver(ws, id, Timestamp::now()).await?;
        let queued = queued.ok_or(AppError::NotFound("delivery"))?;
        self.ports.dispatch_signal.notify();
        Ok(queued)
    }

    /// The subscription, when it exists and is active (sending to it makes sense).
    async fn active_hook(&self, p: &Principal, id: &HookId) -> Result<Hook, AppError> {
        match self.ports.storage.hooks.get_hook(p.workspace_id(), id).await? {
            None => Err(AppError::NotFound("subscription")),
            Some(h) if h.status == HookStatus::Disabled => Err(DomainError::new(
                ErrorCode::InvalidOperation,
                "the subscription is disabled after repeated failures; subscribe again to re-enable it",
            )
            .into()),
            Some(h) => Ok(h),
        }
    }

    /// Gives the subscription a new secret; the old one goes on signing deliveries (beside the
    /// new one) for the grace period, so that the receiver can switch without missing any.
    pub async fn rotate_secret(&self, p: &Principal, id: &HookId) -> Result<Hook, AppError> {
        let until =
            Timestamp::from_millis(Timestamp::now().millis() + self.config.webhook_secret_grace.as_millis() as i64);
        let secret = lore_domain::hook::WebhookSecret::generate();
        // Neither secret is in the entry.
        let entry = Self::audit_entry(p, AuditAction::WebhookSecretRotated, id.as_str(), AuditDetails::new());
        let rotated =
            self.ports.storage.hooks.rotate_secret_recorded(p.workspace_id(), id, &secret, until, Some(&entry)).await?;
        rotated.ok_or(AppError::NotFound("subscription"))
    }

    /// A subscription and how its deliveries went (docs/api.md §12, "Subscription health").
    pub async fn hook_health(&self, p: &Principal, id: &HookId) -> Result<HookHealth, AppError> {
        let ws = p.workspace_id();
        let hook = self.ports.storage.hooks.get_hook(ws, id).await?.ok_or(AppError::NotFound("subscription"))?;
        let newest = |status| {
            let filter = DeliveryFilter { hook_id: Some(id.clone()), status: Some(status) };
            async move { self.ports.storage.deliveries.list_deliveries(ws, &filter, PageRequest::new(1, 1)).await }
        };
        let (succeeded, failed, pending) = futures::try_join!(
            newest(DeliveryStatus::Succeeded),
            newest(DeliveryStatus::Failed),
            newest(DeliveryStatus::Pending)
        )?;
        // When it ended: its last attempt (a delivery failed without one when its hook stopped).
        let ended =
            |page: &Page<Delivery>| page.items.first().map(|d| d.attempts.last().map_or(d.created_at, |a| a.at));
        Ok(HookHealth {
            last_success_at: ended(&succeeded),
            last_failure_at: ended(&failed),
            pending_deliveries: pending.total,
            hook,
        })
    }

    /// Sends again every delivery to the subscription that ended `failed` and was created in
    /// `[since, until)` (at most [`MAX_REPLAY`], oldest first), each keeping its `eventId`.
    pub async fn replay_failed(
        &self,
        p: &Principal,
        id: &HookId,
        since: Timestamp,
        until: Option<Timestamp>,
    ) -> Result<Replayed, AppError> {
        let ws = p.workspace_id();
        self.active_hook(p, id).await?;
        // Collected before any is sent again: a redelivered one leaves the `failed` list, which
        // would shift the pages under a reader that sends as it goes.
        let filter = DeliveryFilter { hook_id: Some(id.clone()), status: Some(DeliveryStatus::Failed) };
        let mut window = Vec::new();
        let mut more = false;
        'pages: for page in 1.. {
            let batch = self.ports.storage.deliveries.list_deliveries(ws, &filter, PageRequest::new(page, 100)).await?;
            let last_page = batch.items.len() < 100;
            for d in batch.items {
                if d.created_at < since {
                    break 'pages;
                }
                if until.is_some_and(|u| d.created_at >= u) {
                    continue;
                }
                if window.len() == MAX_REPLAY {
                    more = true;
                    break 'pages;
                }
                window.push(d.id);
            }
            if last_page {
                break;
            }
        }
        window.reverse();
        let now = Timestamp::now();
        let mut replayed = Vec::with_capacity(window.len());
        for d in &window {
            if let Some(queued) = self.ports.storage.deliveries.redeliver(ws, d, now).await? {
                replayed.push(queued);
            }
        }
        if !replayed.is_empty() {
            self.ports.dispatch_signal.notify();
        }
        Ok(Replayed { deliveries: replayed, more })
    }

    /// Sends the subscription one test event now: a sample of the event it receives (with a
    /// new `eventId` and `metadata.test: true`), recorded in the delivery log like any other.
    pub async fn send_test_event(&self, p: &Principal, id: &HookId) -> Result<Delivery, AppError> {
        let hook = self.active_hook(p, id).await?;
        let samples = match hook.filter {
            HookFilter::FormResponse => self.sample_events(p, hook.form_id.as_ref()).await?,
            HookFilter::Lead => self.sample_lead(p, hook.mind_id.as_ref()).await?,
            HookFilter::ChatbotLead => self.sample_chatbot_lead(p, hook.chatbot_id.as_ref()).await?,
            HookFilter::Conversation(t) => {
                self.sample_conversation_event(p, t, hook.mind_id.as_ref(), hook.chatbot_id.as_ref()).await?
            }
            HookFilter::Exact(t) => self.sample_source_events(p, t, hook.chatbot_id.as_ref()).await?,
            HookFilter::AllKnowledge => {
                self.sample_source_events(p, EventType::SourceReady, hook.chatbot_id.as_ref()).await?
            }
            HookFilter::VisitorErased => self.sample_visitor_erased(p),
        };
        // Every sample builder answers at least one event.
        let sample = samples.into_iter().next().ok_or_else(|| AppError::Storage("no sample event".into()))?;
        // A new event of its own (a real response's sample would otherwise repeat its id).
        let mut event = Event::new(sample.event_type, sample.workspace_id, sample.data);
        event.metadata = sample.metadata;
        if !event.metadata.is_object() {
            event.metadata = serde_json::json!({});
        }
        event.metadata["test"] = serde_json::json!(true);
        let now = Timestamp::now();
        let delivery = Delivery::new(&hook, &event, Envelope::of(&event), now);
        self.ports.storage.deliveries.create_deliveries(&event.id, std::slice::from_ref(&delivery)).await?;
        self.ports.dispatch_signal.notify();
        Ok(delivery)
    }
}

/// At most this many deliveries are sent again by one replay; `more` says some were left.
pub const MAX_REPLAY: usize = 1_000;

/// A subscription and how its deliveries went.
#[derive(Debug, Clone)]
pub struct HookHealth {
    pub hook: Hook,
    /// The last attempt of the newest delivery that succeeded.
    pub last_success_at: Option<Timestamp>,
    /// The last attempt of the newest delivery that ended `failed`.
    pub last_failure_at: Option<Timestamp>,
    /// Deliveries still being attempted.
    pub pending_deliveries: u64,
}

/// What a replay sent again.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub deliveries: Vec<Delivery>,
    /// More failed deliveries were in the window than one replay sends.
    pub more: bool,
}

/// What an audit entry says about a subscription: its event and where it delivers (scheme, host
/// and host only: receivers such as Zapier's catch hooks and Slack's put their token in the path,
/// and a query string or user info may hold one too; an entry is kept 365 days).
fn hook_details(hook: &Hook) -> AuditDetails {
    let url = hook.hook_url.as_str();
    let shown = match url.split_once("://") {
        Some((scheme, rest)) => {
            let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
            let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
            format!("{scheme}://{host}")
        }
        None => String::new(),
    };
    AuditDetails::new().text("event", hook.filter.as_str()).text("url", &shown)
}
