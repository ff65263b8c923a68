//! The ports of actions (docs/api.md §23): where they are kept, and how one is called.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::action::{Action, ActionMethod};
use lore_domain::id::{ActionId, WorkspaceId};
use lore_domain::source::SourceOwner;
use std::time::Duration;

/// The outcome of an insert or update guarded by the owner's limit and its unique names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionWrite {
    Written,
    /// The owner has `limit` actions already (inserts only).
    LimitReached,
    /// Another action of the owner has the name.
    NameTaken,
    /// The action is gone (updates only).
    NotFound,
}

/// Actions live under their owner; every read names the workspace, so another workspace's ids
/// read as absent.
#[async_trait]
pub trait ActionStore: Send + Sync {
    /// Inserts `action` unless its owner has `limit` actions or one with its name; the checks and
    /// the insert are one atomic step.
    async fn insert_action(&self, action: &Action, limit: u32) -> StoreResult<ActionWrite>;

    async fn get_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<Option<Action>>;

    /// Every action of the owner (at most the limit), in creation order.
    async fn list_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Action>>;

    /// Replaces the action's spec and `updatedAt` (its name stays unique: `NameTaken`).
    async fn update_action(&self, action: &Action) -> StoreResult<ActionWrite>;

    async fn delete_action(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ActionId) -> StoreResult<bool>;

    /// Removes every action of an owner that has been deleted.
    async fn delete_owner_actions(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()>;
}

/// One call of an owner's endpoint: everything is decided (URL with its query, headers signed).
#[derive(Clone, PartialEq, Eq)]
pub struct ActionRequest {
    pub method: ActionMethod,
    pub url: String,
    /// Appended to the URL's query (GET: the arguments).
    pub query: Vec<(String, String)>,
    /// Lower-case names; the owner's headers, the Standard Webhooks headers and the identity.
    pub headers: Vec<(String, String)>,
    /// POST only: the arguments as JSON.
    pub body: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Bytes of the answer read at most; the rest is dropped.
    pub max_answer_bytes: usize,
}

impl std::fmt::Debug for ActionRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ActionRequest").field("method", &self.method).field("url", &self.url).finish_non_exhaustive()
    }
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionOutcome {
    /// The endpoint answered; `body` is at most the request's cap (`truncated` when cut).
    Answered {
        status: u16,
        body: Vec<u8>,
        truncated: bool,
    },
    TimedOut,
    /// No answer: a connection failure, or an address refused by request protection.
    Failed(String),
}

#[async_trait]
pub trait ActionCaller: Send + Sync {
    /// Makes the call under the request protection rules; never follows a redirect.
    async fn call(&self, request: &ActionRequest) -> ActionOutcome;
}
