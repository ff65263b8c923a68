//! The `api-integrations` route group: `/api/integrations/webhooks/…` (CONTRACT §3, §12).
//! Subscriptions, forms and samples arrive with the webhooks work; key verification is here.

use crate::error::{ApiError, ErrorBody};
use crate::extract::{AnyScope, Authed};
use crate::views::Status;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::ApiState;

pub fn router() -> OpenApiRouter<ApiState> {
    OpenApiRouter::new().routes(routes!(verify))
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

#[derive(Debug, Serialize, ToSchema)]
pub struct Verified {
    pub status: Status,
    pub workspace: WorkspaceRef,
    pub key: KeyRef,
}

/// Test a key (the "test auth" call of Zapier-style integrations). Any valid key passes.
#[utoipa::path(get, path = "/api/integrations/webhooks/auth/verify", tag = "integrations",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The key is valid", body = Verified),
        (status = 401, description = "`unauthorized`", body = ErrorBody),
        (status = 429, description = "`rate_limited`", body = ErrorBody),
    ))]
async fn verify(auth: Authed<AnyScope>) -> Result<Json<Verified>, ApiError> {
    let p = auth.principal;
    Ok(Json(Verified {
        status: Status::Success,
        workspace: WorkspaceRef { id: p.workspace.id.to_string(), name: p.workspace.name.as_str().to_owned() },
        key: KeyRef {
            id: p.key_id.to_string(),
            name: p.key_name,
            scopes: p.scopes.iter().map(|s| s.as_str().to_owned()).collect(),
        },
    }))
}
