//! The workspace's keys and usage: `/api/v1/keys…` (scope `workspace:admin`) and
//! `/api/v1/workspace` (any key) (docs/api.md §3, "Keys" and "Workspace"). Served by the
//! `api-integrations` group with the other workspace-wide routes.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{AnyScope, Authed, JsonBody, Pagination, ParseId, PathId, WorkspaceAdmin};
use crate::state::ApiState;
use crate::views::{PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_app::auth::Principal;
use lore_domain::DomainError;
use lore_domain::api_key::{ApiKey, KeyName};
use lore_domain::id::ApiKeyId;
use lore_domain::scope::{Scope, ScopeSet};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

impl ParseId for ApiKeyId {
    const WHAT: &'static str = "key";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(api_routes!(get_workspace))
        .routes(api_routes!(list_languages))
        .routes(api_routes!(list_keys, create_key))
        .routes(api_routes!(revoke_key))
}

/// An API key as the API shows it: never its secret, which exists only in the answer that
/// created it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyView {
    #[schema(example = "key_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub name: String,
    #[schema(example = json!(["chatbot:read", "knowledge:search"]))]
    pub scopes: Vec<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    /// When it was revoked; `null` while it works.
    pub revoked_at: Option<String>,
    /// This is the key the request was made with.
    pub is_current: bool,
}

impl KeyView {
    fn of(k: ApiKey, caller: &Principal) -> Self {
        Self {
            is_current: k.id == caller.key_id,
            id: k.id.to_string(),
            name: k.name.as_str().to_owned(),
            scopes: k.scopes.iter().map(|s| s.as_str().to_owned()).collect(),
            created_at: k.created_at.to_string(),
            revoked_at: k.revoked_at.map(|t| t.to_string()),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KeyList {
    pub status: Status,
    pub keys: Vec<KeyView>,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct KeyEnvelope {
    pub status: Status,
    pub key: KeyView,
}

/// A key just made, with its secret: shown this once, stored only as a hash.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedKey {
    pub status: Status,
    pub key: KeyView,
    /// The key to send as `Authorization: Bearer …`. No route shows it again.
    #[schema(example = "lore_sk_3q2-7wEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXA")]
    pub secret: String,
}

/// A new key of the caller's workspace.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateKey {
    /// 1–100 characters; `key <creation time>` when absent.
    #[schema(max_length = 100)]
    pub name: Option<String>,
    /// One or more scopes (docs/api.md §3). `workspace:admin` lets the new key make keys too.
    #[schema(required = true, example = json!(["chatbot:read", "knowledge:search"]))]
    pub scopes: Option<Vec<String>>,
}

impl CreateKey {
    fn parse(self) -> Result<(Option<KeyName>, ScopeSet), DomainError> {
        let mut v = lore_domain::error::Validator::new();
        let name = self.name.map(|n| v.check(KeyName::parse(&n)));
        let scopes = v.check(parse_scopes(self.scopes));
        v.finish()?;
        Ok((name.flatten(), scopes.expect("checked")))
    }
}

fn parse_scopes(raw: Option<Vec<String>>) -> Result<ScopeSet, DomainError> {
    let raw = raw.ok_or_else(|| DomainError::field("scopes", "is required: a list of scopes"))?;
    if raw.is_empty() {
        return Err(DomainError::field("scopes", "at least one scope is required"));
    }
    raw.iter()
        .map(|s| {
            Scope::parse(s.trim()).ok_or_else(|| {
                let known: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
                DomainError::field("scopes", format!("unknown scope '{s}'; known scopes: {}", known.join(", ")))
            })
        })
        .collect()
}

/// Limits of the workspace (docs/api.md §3, set by the operator).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceLimitsView {
    pub storage_quota_bytes: u64,
    pub minds_limit: u32,
    /// Mind sources across the workspace.
    pub sources_limit: u32,
    /// Sources per Mind.
    pub mind_source_limit: u32,
    /// Requests per minute per key.
    pub rate_limit_per_minute: u32,
    /// Keys not revoked (`LORE_MAX_KEYS_PER_WORKSPACE`).
    pub keys_limit: u32,
    /// Webhook subscriptions (`LORE_MAX_HOOKS_PER_WORKSPACE`).
    pub webhooks_limit: u32,
}

/// What the workspace uses of its limits, exact at the time of the request.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceUsageView {
    /// Against `storageQuotaBytes`.
    pub storage_bytes: u64,
    pub chatbots: u64,
    /// Against `mindsLimit`.
    pub minds: u64,
    /// Against `sourcesLimit`.
    pub mind_sources: u64,
    /// Against `keysLimit`.
    pub active_keys: u64,
    /// Against `webhooksLimit`.
    pub webhooks: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceView {
    pub id: String,
    pub name: String,
    pub created_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkspaceEnvelope {
    pub status: Status,
    pub workspace: WorkspaceView,
    pub limits: WorkspaceLimitsView,
    pub usage: WorkspaceUsageView,
}

/// One supported language (docs/api.md §20).
#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageView {
    /// ISO 639-1, lowercase.
    #[schema(example = "fr")]
    pub code: &'static str,
    /// As its speakers write it.
    #[schema(example = "Français")]
    pub name: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LanguageList {
    pub status: Status,
    pub languages: Vec<LanguageView>,
}

/// The languages a chatbot's or Mind's `language` and the search `language` filter accept, and
/// the ones chunks are detected in.
#[utoipa::path(get, path = "/api/v1/languages", tag = "workspace",
    security(("bearer" = [])),
    responses((status = 200, description = "The supported languages", body = LanguageList),))]
async fn list_languages(_auth: Authed<AnyScope>) -> Json<LanguageList> {
    let languages =
        lore_domain::language::Language::ALL.iter().map(|l| LanguageView { code: l.code(), name: l.name() }).collect();
    Json(LanguageList { status: Status::Success, languages })
}

/// The caller's workspace, its limits and what it uses of them. Any valid key may read it.
#[utoipa::path(get, path = "/api/v1/workspace", tag = "workspace",
    security(("bearer" = [])),
    responses((status = 200, description = "The workspace", body = WorkspaceEnvelope),))]
async fn get_workspace(auth: Authed<AnyScope>, State(s): State<ApiState>) -> Result<Json<WorkspaceEnvelope>, ApiError> {
    let u = s.app.workspace_usage(&auth.principal).await?;
    let (ws, config) = (u.workspace, s.app.config());
    Ok(Json(WorkspaceEnvelope {
        status: Status::Success,
        workspace: WorkspaceView {
            id: ws.id.to_string(),
            name: ws.name.as_str().to_owned(),
            created_at: ws.created_at.to_string(),
        },
        limits: WorkspaceLimitsView {
            storage_quota_bytes: ws.limits.storage_quota_bytes,
            minds_limit: ws.limits.minds_limit,
            sources_limit: ws.limits.sources_limit,
            mind_source_limit: ws.limits.mind_source_limit,
            rate_limit_per_minute: ws.limits.rate_limit_per_minute,
            keys_limit: config.max_keys_per_workspace,
            webhooks_limit: config.max_hooks_per_workspace,
        },
        usage: WorkspaceUsageView {
            storage_bytes: u.storage_bytes,
            chatbots: u.chatbots,
            minds: u.minds,
            mind_sources: u.mind_sources,
            active_keys: u.active_keys,
            webhooks: u.webhooks,
        },
    }))
}

/// The workspace's keys, revoked ones included (the newest `LORE_MAX_REVOKED_KEYS_PER_WORKSPACE`), newest first.
#[utoipa::path(get, path = "/api/v1/keys", tag = "workspace", params(PageParams),
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 200, description = "A page of keys", body = KeyList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),
    ))]
async fn list_keys(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<KeyList>, ApiError> {
    let page = s.app.list_workspace_keys(&auth.principal, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(KeyList {
        status: Status::Success,
        keys: page.items.into_iter().map(|k| KeyView::of(k, &auth.principal)).collect(),
        pagination,
    }))
}

/// Make a key of the workspace. The answer holds its secret, the only time it is shown.
#[utoipa::path(post, path = "/api/v1/keys", tag = "workspace", request_body = CreateKey,
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 201, description = "Created; `secret` is the key", body = CreatedKey),
        (status = 400, description = "`invalid_json` or `validation_error` (no scopes, an unknown scope, a bad name)", body = ErrorBody),
        (status = 403, description = "`insufficient_scope`, or `keys_limit_reached`: the workspace has \
            `LORE_MAX_KEYS_PER_WORKSPACE` keys that are not revoked", body = ErrorBody),
    ))]
async fn create_key(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<CreateKey>,
) -> Result<(StatusCode, Json<CreatedKey>), ApiError> {
    let (name, scopes) = body.parse()?;
    let issued = s.app.issue_workspace_key(&auth.principal, name, scopes).await?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedKey {
            status: Status::Success,
            secret: issued.secret.expose().to_owned(),
            key: KeyView::of(issued.key, &auth.principal),
        }),
    ))
}

/// Revoke a key: every request with it is refused from then on (`401`), within 5 s on every
/// running server. The caller may revoke its own key. Revoking a revoked key answers it unchanged.
#[utoipa::path(delete, path = "/api/v1/keys/{keyId}", tag = "workspace",
    params(("keyId" = String, Path, description = "Key id (`key_…`)")),
    security(("bearer" = ["workspace:admin"])),
    responses(
        (status = 200, description = "The key, revoked", body = KeyEnvelope),
        (status = 404, description = "`not_found` (also for another workspace's key)", body = ErrorBody),
    ))]
async fn revoke_key(
    auth: Authed<WorkspaceAdmin>,
    State(s): State<ApiState>,
    PathId(id): PathId<ApiKeyId>,
) -> Result<Json<KeyEnvelope>, ApiError> {
    let key = s.app.revoke_workspace_key(&auth.principal, &id).await?;
    Ok(Json(KeyEnvelope { status: Status::Success, key: KeyView::of(key, &auth.principal) }))
}
