//! The port of answer tests and their runs (docs/api.md §21).

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::answer_test::{AnswerTest, TestResult, TestRun};
use lore_domain::id::{AnswerTestId, TestRunId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;

/// The outcome of an insert guarded by the owner's test limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestInsert {
    Inserted,
    LimitReached,
}

/// The outcome of starting a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStart {
    Started,
    /// Another run of the owner is queued or running (and not abandoned).
    InProgress,
}

/// Tests live under their owner; every read names the workspace, so another workspace's ids read
/// as absent.
#[async_trait]
pub trait AnswerTestStore: Send + Sync {
    /// Inserts `test` unless its owner has `limit` tests already; the count and the insert are one
    /// atomic step.
    async fn insert_test(&self, test: &AnswerTest, limit: u32) -> StoreResult<TestInsert>;

    async fn get_test(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &AnswerTestId,
    ) -> StoreResult<Option<AnswerTest>>;

    /// In creation order (oldest first), with the exact total.
    async fn list_tests(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<AnswerTest>>;

    /// Every test of the owner, in creation order.
    async fn all_tests(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<AnswerTest>>;

    /// Replaces the test's spec and `updatedAt` (never its last result); false when absent.
    async fn update_test(&self, test: &AnswerTest) -> StoreResult<bool>;

    async fn delete_test(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &AnswerTestId) -> StoreResult<bool>;

    /// Stores `run` (queued) unless another run of its owner is queued or running and started
    /// after `abandoned_before` (an older one is taken as abandoned: its worker died).
    async fn start_run(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<RunStart>;

    async fn get_run(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &TestRunId) -> StoreResult<Option<TestRun>>;

    /// Newest first, with the exact total.
    async fn list_runs(&self, ws: &WorkspaceId, owner: &SourceOwner, page: PageRequest) -> StoreResult<Page<TestRun>>;

    /// Claims `run` for a worker: stores it `running` with `run.started_at` (the claim time, from
    /// which its abandonment is counted again) only when it is `queued`, or `running` since before
    /// `abandoned_before` (its worker died), and no other run holds its owner (one started over it
    /// as abandoned). False when not claimed (done, claimed by another worker, or superseded): the
    /// caller must not run it.
    async fn mark_running(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<bool>;

    /// Stores the finished run with its results (replacing any stored before: a repeated
    /// delivery keeps only these), and each result as its test's last result (a test deleted
    /// meanwhile is skipped). Runs of the owner beyond the newest `keep` are removed
    /// with their results.
    async fn finish_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<()>;

    /// Ends a run in which nothing was answered (it could not be queued, its worker stopped):
    /// stored done with `results` (each test unanswered, the reason in its check), while **no
    /// test's last result changes**, and the owner freed if this run held it. Only when the
    /// stored run is not done and still started at `run.started_at` (not claimed again since it
    /// was read); false otherwise, and nothing is written. Runs beyond the newest `keep` finished
    /// ones are removed as by `finish_run`.
    async fn end_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<bool>;

    /// A finished run's results, in the tests' creation order.
    async fn run_results(&self, ws: &WorkspaceId, owner: &SourceOwner, run: &TestRunId)
    -> StoreResult<Vec<TestResult>>;

    /// Removes every test and run of an owner that has been deleted.
    async fn delete_owner_tests(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()>;
}
