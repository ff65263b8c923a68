//! A person's data on request (docs/api.md §22): `POST /api/v1/privacy/erase` deletes every
//! conversation of the workspace whose visitor is them, `GET /api/v1/privacy/export` answers all
//! of them with their messages. Scope `workspace:admin`; served by the `api-integrations` group
//! with the other workspace-wide routes.

use crate::analytics::{ExportedConversation, ExportedMessages};
use crate::api_router::{ApiRouter, api_routes};
use crate::conversations::{Presentation, message_view};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, WorkspaceAdmin};
use crate::state::ApiState;
use crate::views::Status;
use axum::Json;
use axum::extract::{Query, State};
use lore_domain::DomainError;
use lore_domain::visitor_match::VisitorMatch;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub fn router() -> ApiRouter {
    ApiRouter::new().routes(api_routes!(erase)).routes(api_routes!(export))
}

/// The person: exactly one of `email` and `userId`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EraseVisitor {
    /// The e-mail address the visitor gave (compared without regard to case).
    #[schema(example = "ada@example.com")]
    pub email: Option<String>,
    /// The host site's verified user id (identity verification, docs/api.md §18).
    pub user_id: Option<String>,
}

/// What was deleted.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErasedCounts {
    pub conversations: u64,
    /// The deleted conversations' messages, of every role.
    pub messages: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErasedEnvelope {
    pub status: Status,
    pub erased: ErasedCounts,
}

/// Erase one person: every conversation of the workspace (of every chatbot and every Mind) whose
/// visitor gave that e-mail address (compared without regard to case) or is that verified
/// `userId` is deleted with its messages; each owner's `conversationCount` follows. Emits
/// `privacy.visitor.erased` `{email, userId, conversations}`, also when nothing matched.
#[utoipa::path(post, path = "/api/v1/privacy/erase", tag = "privacy", request_body = EraseVisitor,
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 200, description = "Erased; the counts of what was deleted", body = ErasedEnvelope),
        (status = 400, description = "`invalid_json`, or `validation_error` naming the field: neither or both of \
            `email` and `userId`, a malformed e-mail address, a `userId` that is not 1-200 characters", body = ErrorBody),
    ))]
async fn erase(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<EraseVisitor>,
) -> Result<Json<ErasedEnvelope>, ApiError> {
    let person = VisitorMatch::parse(body.email.as_deref(), body.user_id.as_deref())?;
    let erased = s.app.erase_visitor(&auth.principal, person).await?;
    Ok(Json(ErasedEnvelope {
        status: Status::Success,
        erased: ErasedCounts { conversations: erased.conversations, messages: erased.messages },
    }))
}

/// The person an export is about: exactly one of them.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// The e-mail address the visitor gave (compared without regard to case).
    pub email: Option<String>,
    /// The host site's verified user id.
    pub user_id: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct VisitorExport {
    pub status: Status,
    /// Newest first: each as the conversation routes show it, with its `messages` (oldest first).
    pub conversations: Vec<ExportedConversation>,
}

/// Export one person: every conversation of the workspace whose visitor gave that e-mail address
/// (compared without regard to case) or is that verified `userId`, each with its messages —
/// everything stored about them.
#[utoipa::path(get, path = "/api/v1/privacy/export", tag = "privacy", params(ExportQuery),
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 200, description = "The person's conversations", body = VisitorExport),
        (status = 400, description = "`validation_error` naming the field: neither or both of `email` and \
            `userId`, a malformed e-mail address, a `userId` that is not 1-200 characters", body = ErrorBody),
    ))]
async fn export(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    query: Result<Query<ExportQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<VisitorExport>, ApiError> {
    let Query(q) = query.map_err(|_| DomainError::field("query", "is not a valid query string"))?;
    let person = VisitorMatch::parse(q.email.as_deref(), q.user_id.as_deref())?;
    let found = s.app.export_visitor(&auth.principal, person).await?;
    let conversations = found
        .into_iter()
        .map(|(c, messages)| {
            let how = Presentation::keyed(&c.owner);
            ExportedConversation {
                messages: ExportedMessages { messages: messages.iter().map(|m| message_view(m, how)).collect() },
                conversation: c.into(),
            }
        })
        .collect();
    Ok(Json(VisitorExport { status: Status::Success, conversations }))
}
