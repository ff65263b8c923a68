//! The workspace's audit log (docs/api.md §22, "Audit log"): `GET /api/v1/audit`, scope
//! `workspace:admin`, newest first, paginated like every list, filtered by `action`. Served by
//! the `api-integrations` group with the other workspace-wide routes.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, Pagination, WorkspaceAdmin};
use crate::state::ApiState;
use crate::views::{PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use lore_domain::DomainError;
use lore_domain::audit::{AuditAction, AuditEntry};
use serde::Serialize;
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(list_audit))
}

/// One change to the workspace: who made it (the key), what, on which resource, when.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    #[schema(example = "aud_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    /// RFC 3339, UTC.
    pub at: String,
    /// The API key that made the change; `null` when the `lore` CLI or Lore itself did.
    #[schema(example = "key_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub key_id: Option<String>,
    /// What was done: `key.created`, `key.revoked`, `chatbot.created`, `chatbot.updated`,
    /// `chatbot.deleted`, `chatbot.published`, `mind.created`, `mind.updated`, `mind.deleted`,
    /// `mind.published`, `source.deleted`, `identity_secret.created`, `webhook.subscribed`,
    /// `webhook.unsubscribed`, `webhook.secret_rotated`, `privacy.erased`,
    /// `conversation.exported`.
    #[schema(example = "chatbot.updated")]
    pub action: String,
    /// The id of what changed (a key, a chatbot, a Mind, a source, a subscription); the
    /// workspace's for an erasure or a person's export.
    pub target_id: String,
    /// A small object of names and counts (a name, the names of the changed fields, whether it
    /// was published): never a secret or a header's value.
    #[schema(value_type = Object, example = json!({"name": "Support", "fields": ["welcomeMessage"]}))]
    pub details: serde_json::Value,
}

impl From<AuditEntry> for AuditEntryView {
    fn from(e: AuditEntry) -> Self {
        Self {
            id: e.id.to_string(),
            at: e.at.to_string(),
            key_id: e.key_id.map(|k| k.to_string()),
            action: e.action.as_str().to_owned(),
            target_id: e.target_id,
            details: e.details.into_value(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AuditList {
    pub status: Status,
    pub entries: Vec<AuditEntryView>,
    pub pagination: PaginationView,
}

/// The workspace's audit log, newest first: every change of its keys, chatbots, Minds, sources,
/// identity secrets and webhooks, every erasure and every conversations export of the last 365
/// days, each with the key that made it.
#[utoipa::path(get, path = "/api/v1/audit", tag = "privacy",
    params(PageParams,
        ("action" = Option<String>, Query, description = "Only entries of this action (e.g. `key.created`)")),
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 200, description = "A page of entries", body = AuditList),
        (status = 400, description = "`validation_error`: bad page/limit, or an unknown `action`", body = ErrorBody),
    ))]
async fn list_audit(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<AuditList>, ApiError> {
    let action = match p.param("action").map(str::trim).filter(|a| !a.is_empty()) {
        Some(raw) => Some(AuditAction::parse(raw).ok_or_else(|| {
            let known: Vec<&str> = AuditAction::ALL.iter().map(|a| a.as_str()).collect();
            DomainError::field("action", format!("unknown action '{raw}'; known actions: {}", known.join(", ")))
        })?),
        None => None,
    };
    let page = s.app.list_audit(&auth.principal, action, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(AuditList {
        status: Status::Success,
        entries: page.items.into_iter().map(Into::into).collect(),
        pagination,
    }))
}
