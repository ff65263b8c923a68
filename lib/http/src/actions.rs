//! Actions (docs/api.md §23): the keyed routes `…/actions` of Minds (`/api/v1/minds/{mindId}/…`,
//! api-minds) and chatbots (`/api/v1/chatbots/{chatbotId}/…`, api-chatbots), and the view of a
//! call that messages and the `action` stream event carry.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatbotRead, ChatbotWrite, JsonBody, MindsRead, MindsWrite, ParseId, PathId, PathIds};
use crate::state::ApiState;
use crate::views::{Deleted, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_app::actions::CallResult;
use lore_domain::action::{Action, ActionCall, HIDDEN_VALUE, RawActionSpec};
use lore_domain::id::{ActionId, ChatbotId, MindId};
use lore_domain::mind::Field;
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use utoipa::ToSchema;

impl ParseId for ActionId {
    const WHAT: &'static str = "action";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

pub fn mind_router() -> ApiRouter {
    mind_routes::router()
}

pub fn chatbot_router() -> ApiRouter {
    chatbot_routes::router()
}

// ---- views -------------------------------------------------------------------------------------

/// An HTTP endpoint of the owner's that a language model may call while it answers.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionView {
    #[schema(example = "act_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    #[schema(example = "lookup_order")]
    pub name: String,
    /// What the model reads to decide when to call it.
    pub description: String,
    pub url: String,
    /// `GET` (arguments as the query string) or `POST` (arguments as the JSON body).
    #[schema(example = "POST")]
    pub method: String,
    /// The JSON Schema of the arguments (`type: "object"`).
    #[schema(value_type = Object)]
    pub parameters: Value,
    /// The header names the calls carry; values are secrets and read `•••`.
    pub headers: BTreeMap<String, String>,
    pub enabled: bool,
    pub created_at: String,
    pub updated_at: String,
}

impl From<Action> for ActionView {
    fn from(a: Action) -> Self {
        Self {
            id: a.id.to_string(),
            name: a.spec.name.as_str().to_owned(),
            description: a.spec.description,
            url: a.spec.url,
            method: a.spec.method.as_str().to_owned(),
            parameters: a.spec.parameters.as_value().clone(),
            headers: a.spec.headers.into_iter().map(|h| (h.name, HIDDEN_VALUE.to_owned())).collect(),
            enabled: a.spec.enabled,
            created_at: a.created_at.to_string(),
            updated_at: a.updated_at.to_string(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ActionEnvelope {
    pub status: Status,
    pub action: ActionView,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionCreated {
    pub status: Status,
    pub action: ActionView,
    /// Signs every call (Standard Webhooks `webhook-signature`); shown this once.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub signing_secret: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ActionList {
    pub status: Status,
    /// In creation order (at most 20).
    pub actions: Vec<ActionView>,
}

/// A call a model made while writing an answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionCallView {
    /// `null` when the model named no action of this owner's.
    pub action_id: Option<String>,
    pub name: String,
    /// The model's arguments (the text itself when it was not JSON).
    #[schema(value_type = Object)]
    pub arguments: Value,
    /// `ok` (2xx), `error` (another status, or no connection), `invalid` (the arguments did not
    /// match the parameters: nothing was called) or `timeout` (10 s).
    #[schema(example = "ok")]
    pub status: String,
    pub http_status: Option<u16>,
    pub took_ms: u64,
}

pub(crate) fn call_view(c: &ActionCall) -> ActionCallView {
    ActionCallView {
        action_id: c.action_id.as_ref().map(ToString::to_string),
        name: c.name.clone(),
        arguments: c.arguments.clone(),
        status: c.status.as_str().to_owned(),
        http_status: c.http_status,
        took_ms: c.took_ms,
    }
}

/// What a test call returned.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallResultView {
    /// `ok`, `error`, `invalid` or `timeout`, as in a message's `actions`.
    #[schema(example = "ok")]
    pub status: String,
    pub http_status: Option<u16>,
    /// The answer's first 64 KB as text, or why there is none.
    pub body: String,
    pub took_ms: u64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestCallEnvelope {
    pub status: Status,
    pub result: CallResultView,
}

impl From<CallResult> for CallResultView {
    fn from(r: CallResult) -> Self {
        Self { status: r.status.as_str().to_owned(), http_status: r.http_status, body: r.body, took_ms: r.took_ms }
    }
}

// ---- bodies ------------------------------------------------------------------------------------

/// An action (create) or the members to change (update).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActionBody {
    /// `^[a-z][a-z0-9_]{0,63}$`, unique per chatbot or Mind; required to create.
    #[schema(value_type = Option<String>, example = "lookup_order")]
    #[serde(default)]
    pub name: Field<String>,
    /// 1-1,000 characters: what the model reads to decide when to call it; required to create.
    #[schema(value_type = Option<String>, example = "Looks up an order by its number and says where it is.")]
    #[serde(default)]
    pub description: Field<String>,
    /// http(s), under the request protection rules; required to create.
    #[schema(value_type = Option<String>, example = "https://shop.example/api/orders")]
    #[serde(default)]
    pub url: Field<String>,
    /// `GET` or `POST` (default).
    #[schema(value_type = Option<String>, example = "GET")]
    #[serde(default)]
    pub method: Field<String>,
    /// A JSON Schema object (`type: "object"`, at most 8 KB); required to create.
    #[schema(value_type = Option<Object>)]
    #[serde(default)]
    pub parameters: Field<Value>,
    /// At most 10 headers every call carries (an API key, say). Values are secrets: never shown
    /// back. In an update, a value of `•••` keeps the stored one; `null` removes every header.
    #[schema(value_type = Option<BTreeMap<String, String>>)]
    #[serde(default)]
    pub headers: Field<BTreeMap<String, String>>,
    /// Default true; a disabled action is not offered to the model.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub enabled: Field<bool>,
}

impl ActionBody {
    fn into_raw(self) -> RawActionSpec {
        RawActionSpec {
            name: self.name,
            description: self.description,
            url: self.url,
            method: self.method,
            parameters: self.parameters,
            headers: self.headers,
            enabled: self.enabled,
        }
    }
}

/// The arguments of a test call.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct TestCallBody {
    /// Checked against the action's parameters like a model's; default `{}`.
    #[schema(value_type = Object)]
    #[serde(default = "empty_object")]
    pub arguments: Value,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

fn envelope(a: Action) -> Json<ActionEnvelope> {
    Json(ActionEnvelope { status: Status::Success, action: a.into() })
}

macro_rules! action_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal, $read:ty, $write:ty,
        $read_scope:literal, $write_scope:literal,
        actions: $actions:literal, action: $action:literal, test: $test:literal,
        ops: [$op_create:literal, $op_list:literal, $op_get:literal, $op_update:literal, $op_delete:literal,
            $op_test:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new()
                    .routes(api_routes!(create_action, list_actions))
                    .routes(api_routes!(get_action, update_action, delete_action))
                    .routes(api_routes!(test_action))
            }

            /// Add an action a language model may call while it answers. At most 20.
            #[utoipa::path(post, path = $actions, operation_id = $op_create, tag = "actions",
                params(($param = String, Path, description = $param_doc)),
                request_body = ActionBody,
                security(("bearer" = [$write_scope])),
                responses(
                    (status = 201, body = ActionCreated),
                    (status = 400, description = "`validation_error` naming each refused member, `invalid_url`, \
                        `url_blocked`, `invalid_json`", body = ErrorBody),
                    (status = 403, description = "`actions_limit_reached`: 20 actions already", body = ErrorBody),
                    (status = 409, description = "`action_name_taken`", body = ErrorBody),
                ))]
            async fn create_action(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                JsonBody(body): JsonBody<ActionBody>,
            ) -> Result<(StatusCode, Json<ActionCreated>), ApiError> {
                let a = s.app.create_action(&auth.principal, &$owner(owner), &body.into_raw()).await?;
                let signing_secret = a.signing_secret.expose().to_owned();
                Ok((StatusCode::CREATED, Json(ActionCreated { status: Status::Success, action: a.into(), signing_secret })))
            }

            /// The actions, in creation order; header values read `•••`.
            #[utoipa::path(get, path = $actions, operation_id = $op_list, tag = "actions",
                params(($param = String, Path, description = $param_doc)),
                security(("bearer" = [$read_scope])),
                responses((status = 200, body = ActionList)))]
            async fn list_actions(
                auth: Authed<$read>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
            ) -> Result<Json<ActionList>, ApiError> {
                let actions = s.app.list_actions(&auth.principal, &$owner(owner)).await?;
                Ok(Json(ActionList { status: Status::Success, actions: actions.into_iter().map(Into::into).collect() }))
            }

            /// One action.
            #[utoipa::path(get, path = $action, operation_id = $op_get, tag = "actions",
                params(($param = String, Path, description = $param_doc), ("actionId" = String, Path)),
                security(("bearer" = [$read_scope])),
                responses((status = 200, body = ActionEnvelope)))]
            async fn get_action(
                auth: Authed<$read>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ActionId>,
            ) -> Result<Json<ActionEnvelope>, ApiError> {
                Ok(envelope(s.app.get_action(&auth.principal, &$owner(owner), &id).await?))
            }

            /// Change the members sent; a header value of `•••` keeps the stored one.
            #[utoipa::path(patch, path = $action, operation_id = $op_update, tag = "actions",
                params(($param = String, Path, description = $param_doc), ("actionId" = String, Path)),
                request_body = ActionBody,
                security(("bearer" = [$write_scope])),
                responses((status = 200, body = ActionEnvelope),
                    (status = 400, description = "`validation_error`, `invalid_url`, `url_blocked`, `invalid_json`",
                        body = ErrorBody),
                    (status = 409, description = "`action_name_taken`", body = ErrorBody)))]
            async fn update_action(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ActionId>,
                JsonBody(body): JsonBody<ActionBody>,
            ) -> Result<Json<ActionEnvelope>, ApiError> {
                Ok(envelope(s.app.update_action(&auth.principal, &$owner(owner), &id, &body.into_raw()).await?))
            }

            /// Delete an action; answers that called it keep their record of the call.
            #[utoipa::path(delete, path = $action, operation_id = $op_delete, tag = "actions",
                params(($param = String, Path, description = $param_doc), ("actionId" = String, Path)),
                security(("bearer" = [$write_scope])),
                responses((status = 200, body = Deleted)))]
            async fn delete_action(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ActionId>,
            ) -> Result<Json<Deleted>, ApiError> {
                s.app.delete_action(&auth.principal, &$owner(owner), &id).await?;
                Ok(Json(Deleted::new(id)))
            }

            /// Make the call a model would make with `arguments`, now and without a model (no
            /// visitor, so no `X-Lore-User-Id`). A disabled action can be tested too.
            #[utoipa::path(post, path = $test, operation_id = $op_test, tag = "actions",
                params(($param = String, Path, description = $param_doc), ("actionId" = String, Path)),
                request_body = TestCallBody,
                security(("bearer" = [$write_scope])),
                responses((status = 200, body = TestCallEnvelope),
                    (status = 400, description = "`invalid_json`", body = ErrorBody)))]
            async fn test_action(
                auth: Authed<$write>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, ActionId>,
                crate::conversations::OptionalJson(body): crate::conversations::OptionalJson<TestCallBody>,
            ) -> Result<Json<TestCallEnvelope>, ApiError> {
                let result = s.app.test_action(&auth.principal, &$owner(owner), &id, &body.arguments).await?;
                Ok(Json(TestCallEnvelope { status: Status::Success, result: result.into() }))
            }
        }
    };
}

action_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)", MindsRead, MindsWrite,
    "minds:read", "minds:write",
    actions: "/api/v1/minds/{mindId}/actions",
    action: "/api/v1/minds/{mindId}/actions/{actionId}",
    test: "/api/v1/minds/{mindId}/actions/{actionId}/test",
    ops: ["create_mind_action", "list_mind_actions", "get_mind_action", "update_mind_action", "delete_mind_action",
        "test_mind_action"]);

action_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)", ChatbotRead,
    ChatbotWrite, "chatbot:read", "chatbot:write",
    actions: "/api/v1/chatbots/{chatbotId}/actions",
    action: "/api/v1/chatbots/{chatbotId}/actions/{actionId}",
    test: "/api/v1/chatbots/{chatbotId}/actions/{actionId}/test",
    ops: ["create_chatbot_action", "list_chatbot_actions", "get_chatbot_action", "update_chatbot_action",
        "delete_chatbot_action", "test_chatbot_action"]);
