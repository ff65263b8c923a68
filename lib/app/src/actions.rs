//! Actions (docs/api.md §23): an owner's HTTP endpoints that a language model may call while it
//! answers. Kept per chatbot or Mind; offered to the model as tools; each call checked against
//! the action's JSON Schema, made under the request protection rules, signed (Standard
//! Webhooks) and recorded on the answer.

use crate::auth::Principal;
use crate::conversations::AnswerSink;
use crate::ports::{ActionOutcome, ActionRequest, ActionWrite, Tool, Toolbox};
use crate::{App, AppError};
use async_trait::async_trait;
use lore_domain::action::{
    Action, ActionCall, ActionMethod, ActionPatch, CallStatus, MAX_ACTIONS_PER_OWNER, MAX_ANSWER_BYTES,
    MAX_CALLS_PER_TURN, RawActionSpec, query_pairs,
};
use lore_domain::id::{ActionId, EventId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use serde_json::Value;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a call returned, as the test route shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub status: CallStatus,
    pub http_status: Option<u16>,
    /// The answer's text (its first 64 KB), or why there is none.
    pub body: String,
    pub took_ms: u64,
}

fn write_error(w: ActionWrite, name: &str) -> AppError {
    match w {
        ActionWrite::LimitReached => AppError::Rejected(DomainError::new(
            ErrorCode::ActionsLimitReached,
            format!("a chatbot or Mind has at most {MAX_ACTIONS_PER_OWNER} actions; delete one first"),
        )),
        ActionWrite::NameTaken => AppError::Rejected(DomainError::new(
            ErrorCode::ActionNameTaken,
            format!("another action of this chatbot or Mind is named {name}"),
        )),
        ActionWrite::NotFound | ActionWrite::Written => AppError::NotFound("action"),
    }
}

impl App {
    pub async fn create_action(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        raw: &RawActionSpec,
    ) -> Result<Action, AppError> {
        self.own(p, owner).await?;
        let mut spec = ActionPatch::parse(raw)?.into_spec()?;
        spec.url = self.checked_action_url(&spec.url).await?;
        let action = Action::new(p.workspace_id().clone(), owner.clone(), spec, Timestamp::now());
        match self.ports.storage.actions.insert_action(&action, MAX_ACTIONS_PER_OWNER).await? {
            ActionWrite::Written => Ok(action),
            other => Err(write_error(other, action.spec.name.as_str())),
        }
    }

    /// The URL as request protection reads it (`invalid_url` / `url_blocked` otherwise).
    async fn checked_action_url(&self, url: &str) -> Result<String, AppError> {
        self.ports.shared.url_guard.check(url).await.map_err(crate::sources::url_error)
    }

    pub async fn list_actions(&self, p: &Principal, owner: &SourceOwner) -> Result<Vec<Action>, AppError> {
        self.own(p, owner).await?;
        Ok(self.ports.storage.actions.list_actions(p.workspace_id(), owner).await?)
    }

    pub async fn get_action(&self, p: &Principal, owner: &SourceOwner, id: &ActionId) -> Result<Action, AppError> {
        self.ports.storage.actions.get_action(p.workspace_id(), owner, id).await?.ok_or(AppError::NotFound("action"))
    }

    pub async fn update_action(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ActionId,
        raw: &RawActionSpec,
    ) -> Result<Action, AppError> {
        let mut action = self.get_action(p, owner, id).await?;
        let patch = ActionPatch::parse(raw)?;
        let url = match patch.url() {
            Some(url) => Some(self.checked_action_url(url).await?),
            None => None,
        };
        patch.apply(&mut action.spec)?;
        if let Some(url) = url {
            action.spec.url = url;
        }
        action.updated_at = Timestamp::now();
        match self.ports.storage.actions.update_action(&action).await? {
            ActionWrite::Written => Ok(action),
            other => Err(write_error(other, action.spec.name.as_str())),
        }
    }

    pub async fn delete_action(&self, p: &Principal, owner: &SourceOwner, id: &ActionId) -> Result<(), AppError> {
        if self.ports.storage.actions.delete_action(p.workspace_id(), owner, id).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("action"))
        }
    }

    /// The call a model would make with `arguments`, made now (no visitor: no user id).
    pub async fn test_action(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ActionId,
        arguments: &Value,
    ) -> Result<CallResult, AppError> {
        let action = self.get_action(p, owner, id).await?;
        Ok(self.call_action(&action, arguments, None).await)
    }

    /// Checks `arguments` against the action's schema, then calls it.
    async fn call_action(&self, action: &Action, arguments: &Value, user_id: Option<&str>) -> CallResult {
        let started = Instant::now();
        if let Err(why) = action.spec.parameters.check(arguments) {
            let body = format!("the arguments do not match the action's parameters: {why}; nothing was called");
            return CallResult { status: CallStatus::Invalid, http_status: None, body, took_ms: 0 };
        }
        let request = action_request(action, arguments, user_id, self.config.action_timeout);
        let outcome = self.ports.shared.action_caller.call(&request).await;
        let took_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        match outcome {
            ActionOutcome::Answered { status, body, truncated } => {
                let mut text = String::from_utf8_lossy(&body).into_owned();
                if truncated {
                    text.push_str("\n[the rest of the answer was cut off]");
                }
                let call_status = if (200..300).contains(&status) { CallStatus::Ok } else { CallStatus::Error };
                CallResult { status: call_status, http_status: Some(status), body: text, took_ms }
            }
            ActionOutcome::TimedOut => CallResult {
                status: CallStatus::Timeout,
                http_status: None,
                body: format!("no answer within {} s", self.config.action_timeout.as_secs_f64()),
                took_ms,
            },
            ActionOutcome::Failed(why) => CallResult {
                status: CallStatus::Error,
                http_status: None,
                body: format!("the call failed: {why}"),
                took_ms,
            },
        }
    }

    /// The owner's enabled actions as one answer's toolbox; calls are streamed to `sink`.
    pub(crate) async fn toolbox<'a>(
        &'a self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        user_id: Option<String>,
        sink: &'a dyn AnswerSink,
    ) -> Result<ActionToolbox<'a>, AppError> {
        let actions: Vec<Action> =
            self.ports.storage.actions.list_actions(ws, owner).await?.into_iter().filter(|a| a.spec.enabled).collect();
        let tools = actions
            .iter()
            .map(|a| Tool {
                name: a.spec.name.as_str().to_owned(),
                description: a.spec.description.clone(),
                parameters: a.spec.parameters.as_value().clone(),
            })
            .collect();
        Ok(ActionToolbox { app: self, actions, tools, user_id, calls: Mutex::default(), sink })
    }
}

/// The signed request of one call: POST with the arguments as its JSON body, GET with them as
/// its query; the owner's headers, the Standard Webhooks headers over the body (the empty string
/// for GET) and, for an identity-verified visitor, `x-lore-user-id`.
fn action_request(action: &Action, arguments: &Value, user_id: Option<&str>, timeout: Duration) -> ActionRequest {
    let (body, query) = match action.spec.method {
        ActionMethod::Post => (Some(serde_json::to_vec(arguments).unwrap_or_default()), Vec::new()),
        ActionMethod::Get => (None, query_pairs(arguments)),
    };
    let msg_id = EventId::generate();
    let timestamp = Timestamp::now().millis() / 1_000;
    let signature = action.signing_secret.sign(msg_id.as_str(), timestamp, body.as_deref().unwrap_or_default());
    let mut headers: Vec<(String, String)> =
        action.spec.headers.iter().map(|h| (h.name.clone(), h.value.clone())).collect();
    headers.push(("webhook-id".into(), msg_id.as_str().to_owned()));
    headers.push(("webhook-timestamp".into(), timestamp.to_string()));
    headers.push(("webhook-signature".into(), signature));
    if let Some(user) = user_id {
        headers.push(("x-lore-user-id".into(), user.to_owned()));
    }
    ActionRequest {
        method: action.spec.method,
        url: action.spec.url.clone(),
        query,
        headers,
        body,
        timeout,
        max_answer_bytes: MAX_ANSWER_BYTES,
    }
}

/// One answer's actions: what the model is offered, and the calls it made.
pub(crate) struct ActionToolbox<'a> {
    app: &'a App,
    actions: Vec<Action>,
    tools: Vec<Tool>,
    /// The visitor's verified user id, sent as `x-lore-user-id`.
    user_id: Option<String>,
    calls: Mutex<Vec<ActionCall>>,
    sink: &'a dyn AnswerSink,
}

impl ActionToolbox<'_> {
    /// The calls made, in order.
    pub(crate) fn into_calls(self) -> Vec<ActionCall> {
        self.calls.into_inner().unwrap_or_default()
    }

    fn record(&self, call: ActionCall) {
        self.sink.action(&call);
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(call);
        }
    }
}

#[async_trait]
impl Toolbox for ActionToolbox<'_> {
    fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Every call counts, a refused one too: a model that keeps sending bad arguments stops.
    fn calls_left(&self) -> usize {
        let made = self.calls.lock().map_or(MAX_CALLS_PER_TURN, |c| c.len());
        MAX_CALLS_PER_TURN.saturating_sub(made)
    }

    async fn call(&self, name: &str, arguments: &str) -> String {
        let recorded = ActionCall::recorded_arguments(arguments);
        let Some(action) = self.actions.iter().find(|a| a.spec.name.as_str() == name) else {
            let call = ActionCall {
                action_id: None,
                name: name.chars().take(64).collect(),
                arguments: recorded,
                status: CallStatus::Invalid,
                http_status: None,
                took_ms: 0,
            };
            self.record(call);
            return format!("there is no action named {name:?}; nothing was called");
        };
        let result = match serde_json::from_str::<Value>(if arguments.trim().is_empty() { "{}" } else { arguments }) {
            Ok(args) => {
                self.sink.action_started(name);
                self.app.call_action(action, &args, self.user_id.as_deref()).await
            }
            Err(e) => CallResult {
                status: CallStatus::Invalid,
                http_status: None,
                body: format!("the arguments are not JSON ({e}); nothing was called"),
                took_ms: 0,
            },
        };
        tracing::info!(action = %action.id, status = result.status.as_str(), http_status = ?result.http_status,
            took_ms = result.took_ms, "an action was called");
        self.record(ActionCall {
            action_id: Some(action.id.clone()),
            name: name.to_owned(),
            arguments: recorded,
            status: result.status,
            http_status: result.http_status,
            took_ms: result.took_ms,
        });
        match result.http_status {
            Some(status) => format!("HTTP {status}\n{}", result.body),
            None => result.body,
        }
    }
}
