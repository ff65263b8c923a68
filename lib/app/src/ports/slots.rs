//! Per-workspace concurrency budgets (answers being written, uploads being received), held as
//! leases so that they hold across processes: on AWS every Lambda instance takes its slots from
//! the same store, and a slot whose holder died comes back when its lease ends.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::id::{RequestId, WorkspaceId};

/// Which of a workspace's concurrency budgets a slot counts against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SlotKind {
    /// Answers being written (`LORE_ANSWERS_PER_WORKSPACE`).
    Answers,
    /// Uploads being received (`LORE_UPLOADS_PER_WORKSPACE`).
    Uploads,
}

impl SlotKind {
    /// The stored name of the budget.
    pub fn as_str(self) -> &'static str {
        match self {
            SlotKind::Answers => "answers",
            SlotKind::Uploads => "uploads",
        }
    }
}

/// One budget: a workspace's slots of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SlotBudget {
    pub workspace: WorkspaceId,
    pub kind: SlotKind,
}

/// Names one taken slot: unique, so that renewing or giving back a slot never touches another's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SlotLease(String);

impl SlotLease {
    pub fn generate() -> Self {
        Self(RequestId::generate().as_str().replacen("req_", "lease_", 1))
    }

    /// `lease_` and 26 lower-case base32 characters: safe as a map key or attribute name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Slots of per-workspace budgets, each held as a lease until `until`. A lease not renewed by
/// then no longer counts: the next take drops it. Every adapter applies the same rule with the
/// callers' clock (`now`), so the budgets behave the same on every backend.
#[async_trait]
pub trait SlotStore: Send + Sync {
    /// Takes one of `limit` slots of `budget` as `lease`, held until `until`: `false` (nothing
    /// written) when `limit` leases unexpired at `now` already hold it.
    async fn take(
        &self,
        budget: &SlotBudget,
        limit: u32,
        lease: &SlotLease,
        now: Timestamp,
        until: Timestamp,
    ) -> StoreResult<bool>;

    /// Extends a held lease to `until`: `false` when it is no longer held (given back, or expired
    /// and dropped by a take).
    async fn renew(&self, budget: &SlotBudget, lease: &SlotLease, until: Timestamp) -> StoreResult<bool>;

    /// Gives the slot back; a lease no longer held is no error.
    async fn release(&self, budget: &SlotBudget, lease: &SlotLease) -> StoreResult<()>;
}
