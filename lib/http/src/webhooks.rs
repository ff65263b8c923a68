//! The `api-integrations` route group: `/api/integrations/webhooks/…` (docs/api.md §3, §12, §13):
//! key verification, the forms dropdown, REST-hook subscribe/unsubscribe, samples, and the
//! delivery log with redelivery. The shapes are what Zapier-style platforms expect: the forms
//! list and the samples are bare JSON arrays.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{AnyScope, Authed, FormsRead, JsonBody, Pagination, ParseId, PathId, WebhooksWrite};
use crate::state::ApiState;
use crate::views::{PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use lore_app::ports::DeliveryFilter;
use lore_app::webhooks::SubscribeRequest;
use lore_domain::DomainError;
use lore_domain::delivery::{Delivery, DeliveryStatus};
use lore_domain::hook::Hook;
use lore_domain::id::{ChatbotId, DeliveryId, HookId};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

impl ParseId for HookId {
    const WHAT: &'static str = "subscription";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

impl ParseId for DeliveryId {
    const WHAT: &'static str = "delivery";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(verify))
        .routes(api_routes!(form_choices))
        .routes(api_routes!(subscribe, unsubscribe_by_body, list_hooks))
        .routes(api_routes!(unsubscribe, subscription_health))
        .routes(api_routes!(replay))
        .routes(api_routes!(send_test_event))
        .routes(api_routes!(rotate_secret))
        .routes(api_routes!(sample))
        .routes(api_routes!(list_deliveries))
        .routes(api_routes!(redeliver))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceRef {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KeyRef {
    /// The key's id (`key_…`), the one `lore keys revoke` takes.
    pub id: String,
    pub name: String,
    pub scopes: Vec<String>,
}

/// The workspace's webhook subscriptions by status.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookCounts {
    pub active: u64,
    /// Disabled after 20 failed deliveries in a row; subscribing again re-enables one.
    pub disabled: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Verified {
    pub status: Status,
    pub workspace: WorkspaceRef,
    pub key: KeyRef,
    pub webhooks: WebhookCounts,
}

/// Test a key (the "test auth" call of Zapier-style integrations). Any valid key passes.
#[utoipa::path(get, path = "/api/integrations/webhooks/auth/verify", tag = "integrations",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key is valid", body = Verified),
    ))]
async fn verify(auth: Authed<AnyScope>, State(s): State<ApiState>) -> Result<Json<Verified>, ApiError> {
    let (workspace, counts) = s.app.key_overview(&auth.principal).await?;
    let p = auth.principal;
    Ok(Json(Verified {
        status: Status::Success,
        workspace: WorkspaceRef { id: workspace.id.to_string(), name: workspace.name.as_str().to_owned() },
        key: KeyRef {
            id: p.key_id.to_string(),
            name: p.key_name,
            scopes: p.scopes.iter().map(|s| s.as_str().to_owned()).collect(),
        },
        webhooks: WebhookCounts { active: counts.active, disabled: counts.disabled },
    }))
}

/// An entry of the forms dropdown.
#[derive(Debug, Serialize, ToSchema)]
pub struct FormChoice {
    /// `all` on the first entry, which stands for every form (accepted as `formId` by subscribe
    /// and sample); else the form's id.
    pub id: String,
    pub name: String,
}

/// The forms to choose from: a bare JSON array whose first entry `{"id": "all", "name": "All
/// forms"}` stands for every form, then one entry per form, newest first.
#[utoipa::path(get, path = "/api/integrations/webhooks/actions/forms", tag = "integrations",
    security(("bearer" = ["forms:read"])),
    responses((status = 200, body = Vec<FormChoice>),))]
async fn form_choices(auth: Authed<FormsRead>, State(s): State<ApiState>) -> Result<Json<Vec<FormChoice>>, ApiError> {
    let forms = s.app.form_choices(&auth.principal).await?;
    let mut choices = vec![FormChoice { id: lore_domain::form::ALL_FORMS_ID.into(), name: "All forms".into() }];
    choices.extend(forms.into_iter().map(|f| FormChoice { id: f.id.to_string(), name: f.name }));
    Ok(Json(choices))
}

/// Subscribe a URL (REST hook). `event` defaults to `form_response`; `formId` narrows form
/// responses to one form (absent, `null`, `""` or `"all"`: all forms); `chatbotId` narrows knowledge
/// events to one chatbot. The same URL subscribed again to the same events returns the same
/// subscription (re-enabled when it was disabled).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeBody {
    /// http(s); must pass server-side request protection.
    #[schema(required = true)]
    pub hook_url: Option<String>,
    pub form_id: Option<String>,
    /// `form_response`, `knowledge.source.created`, `…ready`, `…error`, `…deleted`, `knowledge.source.*`,
    /// `mind.lead.captured`, `chatbot.lead.captured`, `message.rated`, `conversation.handoff_requested`
    /// or `privacy.visitor.erased`.
    pub event: Option<String>,
    /// Knowledge events, `chatbot.lead.captured`, `message.rated` and
    /// `conversation.handoff_requested`: those of this chatbot only.
    pub chatbot_id: Option<String>,
    /// `mind.lead.captured`, `message.rated` and `conversation.handoff_requested`: those of this
    /// Mind only (not with `chatbotId`).
    pub mind_id: Option<String>,
}

/// A subscription as its subscriber sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    pub status: Status,
    /// Keep it to unsubscribe.
    #[schema(example = "hook_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub hook_id: String,
    /// The same as `hookId`.
    pub id: String,
    pub hook_url: String,
    pub form_id: Option<String>,
    pub event: String,
    pub chatbot_id: Option<String>,
    pub mind_id: Option<String>,
    /// Standard Webhooks signing secret (`whsec_…`): verify `webhook-signature` with it.
    pub secret: String,
    pub created_at: String,
}

impl From<Hook> for Subscribed {
    fn from(h: Hook) -> Self {
        Self {
            status: Status::Success,
            hook_id: h.id.to_string(),
            id: h.id.to_string(),
            hook_url: h.hook_url,
            form_id: h.form_id.map(|f| f.to_string()),
            event: h.filter.as_str().to_owned(),
            chatbot_id: h.chatbot_id.map(|c| c.to_string()),
            mind_id: h.mind_id.map(|m| m.to_string()),
            secret: h.secret.expose().to_owned(),
            created_at: h.created_at.to_string(),
        }
    }
}

/// Subscribe a receiving URL to form responses or knowledge-source events. A workspace has at
/// most 100 subscriptions (active or disabled; `LORE_MAX_HOOKS_PER_WORKSPACE`); subscribing a
/// URL to the same events again returns the existing one and is always allowed.
#[utoipa::path(post, path = "/api/integrations/webhooks/triggers/subscribe", tag = "integrations",
    request_body = SubscribeBody,
    security(("bearer" = ["webhooks:write"])),
    responses(
        (status = 201, body = Subscribed),
        (status = 400, description = "`validation_error` (no `hookUrl`, unknown `event`, `formId` with a knowledge event, \
            `chatbotId` with form_response), `invalid_url`, `url_blocked`, `invalid_json`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope`, or `webhooks_limit_reached`: the workspace has as many \
            subscriptions as it may", body = ErrorBody),
        (status = 404, description = "`not_found`: unknown `formId` or `chatbotId`", body = ErrorBody),
    ))]
async fn subscribe(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<SubscribeBody>,
) -> Result<(StatusCode, Json<Subscribed>), ApiError> {
    let req = SubscribeRequest {
        hook_url: body.hook_url,
        form_id: body.form_id,
        event: body.event,
        chatbot_id: body.chatbot_id,
        mind_id: body.mind_id,
    };
    let hook = s.app.subscribe(&auth.principal, req).await?;
    Ok((StatusCode::CREATED, Json(hook.into())))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Unsubscribed {
    pub status: Status,
    pub deleted: bool,
    pub hook_id: String,
    /// The same as `hookId`.
    pub id: String,
}

impl Unsubscribed {
    fn new(id: HookId) -> Self {
        Self { status: Status::Success, deleted: true, hook_id: id.to_string(), id: id.to_string() }
    }
}

/// Unsubscribe a hook by its id.
#[utoipa::path(delete, path = "/api/integrations/webhooks/triggers/subscribe/{hookId}", tag = "integrations",
    params(("hookId" = String, Path, description = "The `hookId` subscribe returned")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = Unsubscribed)))]
async fn unsubscribe(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<HookId>,
) -> Result<Json<Unsubscribed>, ApiError> {
    s.app.unsubscribe(&auth.principal, &id).await?;
    Ok(Json(Unsubscribed::new(id)))
}

/// The hook to remove, for clients that send it in a body.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeBody {
    #[schema(required = true)]
    pub hook_id: Option<String>,
    /// Accepted in place of `hookId`.
    pub id: Option<String>,
}

/// Unsubscribe a hook named in the body: `{"hookId": "hook_…"}`.
#[utoipa::path(delete, path = "/api/integrations/webhooks/triggers/subscribe", tag = "integrations",
    request_body = UnsubscribeBody,
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = Unsubscribed),
        (status = 400, description = "`validation_error` (no `hookId`) or `invalid_json`", body = ErrorBody), (status = 404, body = ErrorBody),))]
async fn unsubscribe_by_body(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<UnsubscribeBody>,
) -> Result<Json<Unsubscribed>, ApiError> {
    let raw = body.hook_id.or(body.id).filter(|h| !h.trim().is_empty());
    let raw = raw.ok_or_else(|| DomainError::field("hookId", "is required"))?;
    let id = HookId::parse(raw.trim()).ok_or(lore_app::AppError::NotFound("subscription"))?;
    s.app.unsubscribe(&auth.principal, &id).await?;
    Ok(Json(Unsubscribed::new(id)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct SampleQuery {
    /// One form's samples; absent, empty or `all`: across all forms.
    pub form_id: Option<String>,
    /// `form_response` (the default), `mind.lead.captured`, `chatbot.lead.captured`, `message.rated`,
    /// `conversation.handoff_requested`, `tests.run.completed`, `conversation.action.called`,
    /// `privacy.visitor.erased`, or one of
    /// `knowledge.source.created`, `…ready`, `…error`, `…deleted`.
    pub event: Option<String>,
    /// With a `knowledge.source.*` event: that chatbot's sources.
    pub chatbot_id: Option<String>,
    /// With `event=mind.lead.captured`: that Mind's.
    pub mind_id: Option<String>,
}

/// Events as delivered: their envelopes.
fn envelopes(events: Vec<lore_domain::event::Event>) -> Json<Vec<Value>> {
    Json(events.iter().map(lore_domain::event::Event::envelope).collect())
}

/// Sample envelopes for field mapping: a bare JSON array, newest first. `form_response` (the
/// default): the latest real responses (up to 3), else one made up from the form's fields (with
/// no form at all, from an example form with one field of every type). `knowledge.source.*`
/// events: the newest fitting sources of `chatbotId` (else of the newest chatbot), else one made
/// up. `mind.lead.captured`: a made-up visitor of `mindId` (else the newest Mind);
/// `chatbot.lead.captured` likewise of `chatbotId`; `message.rated` and
/// `conversation.handoff_requested`: a made-up conversation of `chatbotId` or `mindId` (else the
/// newest Mind); `tests.run.completed`: a made-up run of the same; `conversation.action.called`: a
/// made-up call of the same; `privacy.visitor.erased`: a made-up erasure.
#[utoipa::path(get, path = "/api/integrations/webhooks/triggers/sample", tag = "integrations",
    params(SampleQuery),
    security(("bearer" = ["forms:read"])),
    responses((status = 200, description = "Envelopes exactly as delivered", body = Vec<crate::events_doc::SampleEnvelope>),
        (status = 400, description = "`validation_error`: an `event` that is not one Lore sends (or the \
            pattern `knowledge.source.*`), or a query that does not parse", body = ErrorBody),
        (status = 404, description = "`not_found`: unknown `formId`, `mindId` or `chatbotId`", body = ErrorBody)))]
async fn sample(
    auth: Authed<FormsRead>,
    State(s): State<ApiState>,
    query: Result<Query<SampleQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<Value>>, ApiError> {
    let Query(q) = query.map_err(|_| DomainError::field("query", "is not a valid query string"))?;
    match q.event.as_deref().map(str::trim).filter(|e| !e.is_empty()) {
        None | Some("form_response") => {}
        Some("mind.lead.captured") => {
            let mind = match q.mind_id.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
                Some(raw) => Some(lore_domain::id::MindId::parse(raw).ok_or(lore_app::AppError::NotFound("mind"))?),
                None => None,
            };
            return Ok(envelopes(s.app.sample_lead(&auth.principal, mind.as_ref()).await?));
        }
        Some("chatbot.lead.captured") => {
            let chatbot = match q.chatbot_id.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                Some(raw) => Some(ChatbotId::parse(raw).ok_or(lore_app::AppError::NotFound("chatbot"))?),
                None => None,
            };
            return Ok(envelopes(s.app.sample_chatbot_lead(&auth.principal, chatbot.as_ref()).await?));
        }
        Some("privacy.visitor.erased") => return Ok(envelopes(s.app.sample_visitor_erased(&auth.principal))),
        Some(
            name @ ("message.rated"
            | "conversation.handoff_requested"
            | "tests.run.completed"
            | "conversation.action.called"),
        ) => {
            let event =
                lore_domain::event::EventType::parse(name).unwrap_or(lore_domain::event::EventType::MessageRated);
            let mind = match q.mind_id.as_deref().map(str::trim).filter(|m| !m.is_empty()) {
                Some(raw) => Some(lore_domain::id::MindId::parse(raw).ok_or(lore_app::AppError::NotFound("mind"))?),
                None => None,
            };
            let chatbot = match q.chatbot_id.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                Some(raw) => Some(ChatbotId::parse(raw).ok_or(lore_app::AppError::NotFound("chatbot"))?),
                None => None,
            };
            let samples = s.app.sample_conversation_event(&auth.principal, event, mind.as_ref(), chatbot.as_ref());
            return Ok(envelopes(samples.await?));
        }
        Some(name) => match lore_domain::event::EventType::parse(name) {
            Some(event) if event.is_knowledge() => {
                let chatbot = match q.chatbot_id.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
                    Some(raw) => Some(ChatbotId::parse(raw).ok_or(lore_app::AppError::NotFound("chatbot"))?),
                    None => None,
                };
                return Ok(envelopes(s.app.sample_source_events(&auth.principal, event, chatbot.as_ref()).await?));
            }
            _ => {
                return Err(DomainError::field("event", "must be an event Lore sends, such as form_response").into());
            }
        },
    }
    let form = lore_app::webhooks::form_selection(q.form_id.as_deref())?;
    Ok(envelopes(s.app.sample_events(&auth.principal, form.as_ref()).await?))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttemptView {
    pub at: String,
    /// The receiver's status; `null` when it did not answer.
    pub status_code: Option<u16>,
    /// Why the attempt failed when the status does not say it (timeout, blocked address, redirect, 410).
    pub error: Option<String>,
    pub duration_ms: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryView {
    #[schema(example = "dlv_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub hook_id: String,
    /// The envelope's `eventId` and the `webhook-id` header, the same on every attempt.
    pub event_id: String,
    pub event_type: String,
    /// `pending`, `succeeded` or `failed`.
    pub status: String,
    /// Oldest first.
    pub attempts: Vec<AttemptView>,
    /// When the next attempt is due; `null` once the delivery succeeded or failed.
    pub next_attempt_at: Option<String>,
    pub created_at: String,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        Self {
            id: d.id.to_string(),
            hook_id: d.hook_id.to_string(),
            event_id: d.event_id.to_string(),
            event_type: d.event_type.as_str().to_owned(),
            status: d.status.as_str().to_owned(),
            attempts: d
                .attempts
                .into_iter()
                .map(|a| AttemptView {
                    at: a.at.to_string(),
                    status_code: a.status_code,
                    error: a.error,
                    duration_ms: a.duration_ms,
                })
                .collect(),
            next_attempt_at: d.next_attempt_at.map(|t| t.to_string()),
            created_at: d.created_at.to_string(),
        }
    }
}

/// A subscription's state, without its secret.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookView {
    pub hook_id: String,
    pub hook_url: String,
    pub form_id: Option<String>,
    pub event: String,
    pub chatbot_id: Option<String>,
    pub mind_id: Option<String>,
    /// `active`, or `disabled` after 20 failed deliveries in a row (subscribe again to re-enable).
    pub status: String,
    /// Failed deliveries since the last success.
    pub consecutive_failures: u32,
    pub created_at: String,
}

impl From<Hook> for HookView {
    fn from(h: Hook) -> Self {
        Self {
            hook_id: h.id.to_string(),
            hook_url: h.hook_url,
            form_id: h.form_id.map(|f| f.to_string()),
            event: h.filter.as_str().to_owned(),
            chatbot_id: h.chatbot_id.map(|c| c.to_string()),
            mind_id: h.mind_id.map(|m| m.to_string()),
            status: h.status.as_str().to_owned(),
            consecutive_failures: h.consecutive_failures,
            created_at: h.created_at.to_string(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HookList {
    pub status: Status,
    pub hooks: Vec<HookView>,
    pub pagination: PaginationView,
}

/// The workspace's subscriptions, active and disabled, newest first, without their secrets.
#[utoipa::path(get, path = "/api/integrations/webhooks/triggers/subscribe", tag = "integrations",
    params(PageParams),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = HookList),
        (status = 400, description = "`validation_error`", body = ErrorBody)))]
async fn list_hooks(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<HookList>, ApiError> {
    let page = s.app.list_hooks(&auth.principal, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(HookList { status: Status::Success, hooks: page.items.into_iter().map(Into::into).collect(), pagination }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryList {
    pub status: Status,
    pub deliveries: Vec<DeliveryView>,
    pub pagination: PaginationView,
    /// With `hookId`: that subscription, or `null` when it no longer exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook: Option<Option<HookView>>,
}

/// The delivery log, newest first: each delivery with its attempts.
#[utoipa::path(get, path = "/api/integrations/webhooks/deliveries", tag = "integrations",
    params(PageParams,
        ("hookId" = Option<String>, Query, description = "One subscription's deliveries"),
        ("status" = Option<String>, Query, description = "`pending`, `succeeded` or `failed`")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = DeliveryList),
        (status = 400, description = "`validation_error`", body = ErrorBody)))]
async fn list_deliveries(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<DeliveryList>, ApiError> {
    let hook_id = match p.param("hookId").map(str::trim).filter(|h| !h.is_empty()) {
        Some(raw) => Some(HookId::parse(raw).ok_or_else(|| DomainError::field("hookId", "is not a hook id (hook_…)"))?),
        None => None,
    };
    let status = match p.param("status") {
        Some(v) => Some(
            DeliveryStatus::parse(v)
                .ok_or_else(|| DomainError::field("status", "must be one of pending, succeeded, failed"))?,
        ),
        None => None,
    };
    let filter = DeliveryFilter { hook_id, status };
    let page = s.app.list_deliveries(&auth.principal, &filter, p.page).await?;
    // Read after the deliveries: the dispatcher changes a subscription before it records the
    // attempt, so a final delivery in this page always comes with its effect (e.g. removed on 410).
    let hook = match &filter.hook_id {
        Some(id) => Some(s.app.get_hook(&auth.principal, id).await?.map(Into::into)),
        None => None,
    };
    let pagination = page.info().into();
    Ok(Json(DeliveryList {
        status: Status::Success,
        deliveries: page.items.into_iter().map(Into::into).collect(),
        pagination,
        hook,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryEnvelope {
    pub status: Status,
    pub delivery: DeliveryView,
}

/// Send a delivery again: the same event (same `eventId`) to the same subscription, due now,
/// with a fresh round of attempts. Answers 202 at once.
#[utoipa::path(post, path = "/api/integrations/webhooks/deliveries/{deliveryId}/redeliver", tag = "integrations",
    params(("deliveryId" = String, Path, description = "Delivery id (`dlv_…`)")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 202, body = DeliveryEnvelope),
        (status = 400, description = "`invalid_operation`: the subscription is disabled", body = ErrorBody),
        (status = 404, description = "`not_found`: no such delivery, or its subscription is gone", body = ErrorBody),))]
async fn redeliver(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<DeliveryId>,
) -> Result<(StatusCode, Json<DeliveryEnvelope>), ApiError> {
    let d = s.app.redeliver(&auth.principal, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(DeliveryEnvelope { status: Status::Success, delivery: d.into() })))
}

/// A subscription and how its deliveries went.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HookHealthView {
    #[serde(flatten)]
    pub hook: HookView,
    /// When a delivery last succeeded (its last attempt); `null`: never.
    pub last_success_at: Option<String>,
    /// When a delivery last ended `failed` (its last attempt); `null`: never.
    pub last_failure_at: Option<String>,
    /// Deliveries still being attempted.
    pub pending_deliveries: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct HookHealthEnvelope {
    pub status: Status,
    pub hook: HookHealthView,
}

/// A subscription's health: its state (`active`, or `disabled` after 20 failed deliveries in a
/// row), failed deliveries since the last success, and when deliveries last succeeded and failed.
#[utoipa::path(get, path = "/api/integrations/webhooks/triggers/subscribe/{hookId}", tag = "integrations",
    params(("hookId" = String, Path, description = "The `hookId` subscribe returned")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = HookHealthEnvelope)))]
async fn subscription_health(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<HookId>,
) -> Result<Json<HookHealthEnvelope>, ApiError> {
    let h = s.app.hook_health(&auth.principal, &id).await?;
    Ok(Json(HookHealthEnvelope {
        status: Status::Success,
        hook: HookHealthView {
            hook: h.hook.into(),
            last_success_at: h.last_success_at.map(|t| t.to_string()),
            last_failure_at: h.last_failure_at.map(|t| t.to_string()),
            pending_deliveries: h.pending_deliveries,
        },
    }))
}

/// Which failed deliveries to send again.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplayBody {
    /// RFC 3339: deliveries created at or after this time.
    #[schema(required = true, example = "2026-05-01T12:00:00.000Z")]
    pub since: Option<String>,
    /// RFC 3339: and before this time (default: now).
    pub until: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Replayed {
    pub status: Status,
    /// How many deliveries were sent again.
    pub replayed: usize,
    /// More failed deliveries were in the window than one replay sends (1,000): replay again.
    pub more: bool,
    /// The deliveries sent again, oldest first, each due now with a fresh round of attempts.
    pub deliveries: Vec<DeliveryView>,
}

/// Send again every delivery to this subscription that ended `failed` and was created in the
/// window, each keeping its event (the same `eventId` and `webhook-id`): after an outage of the
/// receiver. Answers 202 at once.
#[utoipa::path(post, path = "/api/integrations/webhooks/triggers/subscribe/{hookId}/replay", tag = "integrations",
    params(("hookId" = String, Path, description = "The `hookId` subscribe returned")),
    request_body = ReplayBody,
    security(("bearer" = ["webhooks:write"])),
    responses((status = 202, body = Replayed),
        (status = 400, description = "`validation_error` (`since`, `until`), `invalid_json`, or \
            `invalid_operation` (the subscription is disabled: subscribe again first)", body = ErrorBody)))]
async fn replay(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<HookId>,
    JsonBody(body): JsonBody<ReplayBody>,
) -> Result<(StatusCode, Json<Replayed>), ApiError> {
    let time = |name: &str, raw: Option<&str>| match raw.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(t) => lore_domain::Timestamp::parse(t)
            .map(Some)
            .ok_or_else(|| DomainError::field(name, "must be an RFC 3339 time, e.g. 2026-05-01T12:00:00Z")),
    };
    let since = time("since", body.since.as_deref())?.ok_or_else(|| DomainError::field("since", "is required"))?;
    let until = time("until", body.until.as_deref())?;
    let done = s.app.replay_failed(&auth.principal, &id, since, until).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(Replayed {
            status: Status::Success,
            replayed: done.deliveries.len(),
            more: done.more,
            deliveries: done.deliveries.into_iter().map(Into::into).collect(),
        }),
    ))
}

/// Send this subscription a test event now: a sample of the event it receives (for a form, its
/// latest response or one made up from its fields), with a new `eventId` and `metadata.test:
/// true`, signed and retried like any delivery and listed in the delivery log. Answers 202.
#[utoipa::path(post, path = "/api/integrations/webhooks/triggers/subscribe/{hookId}/test", tag = "integrations",
    params(("hookId" = String, Path, description = "The `hookId` subscribe returned")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 202, body = DeliveryEnvelope),
        (status = 400, description = "`invalid_operation`: the subscription is disabled (subscribe again first)",
            body = ErrorBody)))]
async fn send_test_event(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<HookId>,
) -> Result<(StatusCode, Json<DeliveryEnvelope>), ApiError> {
    let d = s.app.send_test_event(&auth.principal, &id).await?;
    Ok((StatusCode::ACCEPTED, Json(DeliveryEnvelope { status: Status::Success, delivery: d.into() })))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rotated {
    pub status: Status,
    pub hook_id: String,
    /// The new secret (`whsec_…`), shown once here: deliveries are signed with it from now on.
    pub secret: String,
    /// Until then deliveries also carry a signature by the previous secret.
    pub previous_secret_expires_at: String,
}

/// Give the subscription a new signing secret. For a grace period
/// (`LORE_WEBHOOK_SECRET_GRACE_HOURS`, default 24) every delivery carries two signatures in
/// `webhook-signature`, space-separated: one by the new secret and one by the previous one, so
/// the receiver can switch to the new secret whenever it likes. Rotating again retires the
/// current secret and drops the older one at once.
#[utoipa::path(post, path = "/api/integrations/webhooks/triggers/subscribe/{hookId}/rotate-secret",
    tag = "integrations",
    params(("hookId" = String, Path, description = "The `hookId` subscribe returned")),
    security(("bearer" = ["webhooks:write"])),
    responses((status = 200, body = Rotated)))]
async fn rotate_secret(
    auth: Authed<WebhooksWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<HookId>,
) -> Result<Json<Rotated>, ApiError> {
    let hook = s.app.rotate_secret(&auth.principal, &id).await?;
    let until = hook.retiring_secret.as_ref().map(|r| r.until.to_string()).unwrap_or_default();
    Ok(Json(Rotated {
        status: Status::Success,
        hook_id: hook.id.to_string(),
        secret: hook.secret.expose().to_owned(),
        previous_secret_expires_at: until,
    }))
}
