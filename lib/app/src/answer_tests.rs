//! Answer tests (docs/api.md §21): an owner's pinned questions with what their answers must be,
//! and runs that answer every test as a new conversation's first turn would be answered now,
//! without storing a conversation or counting in analytics.
//!
//! A run goes through the job queue (the ingest worker on AWS, the in-process workers of `lore
//! serve`). It is bounded: `test_run_timeout` for the whole run, `test_run_concurrency` tests at
//! once (each holding one of the workspace's answer slots, so visitors keep theirs), and after
//! [`FAILURES_IN_A_ROW`] model failures in a row the remaining tests fail with that reason instead
//! of each waiting for a model that does not answer.

use crate::auth::Principal;
use crate::ports::{RunStart, TestInsert, TestRunJob};
use crate::{App, AppError};
use futures::StreamExt;
use lore_domain::answer_test::{
    AnswerTest, MAX_TESTS_PER_OWNER, RawTestSpec, RunStatus, TestPatch, TestResult, TestRun,
};
use lore_domain::event::Event;
use lore_domain::id::{AnswerTestId, TestRunId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// Model failures in a row after which a run stops asking the model.
pub const FAILURES_IN_A_ROW: u32 = 3;
/// Finished runs kept per owner; older ones go with their results when a run finishes.
pub const RUNS_KEPT: u32 = 50;
/// Each test's result in a run whose worker stopped before it finished.
pub const ABANDONED: &str = "the worker stopped before the run finished";
/// After a change of the owner's sources, a run starts only if none started this recently.
pub const ON_CHANGE_EVERY: Duration = Duration::from_secs(5 * 60);

impl App {
    pub async fn create_test(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        raw: &RawTestSpec,
    ) -> Result<AnswerTest, AppError> {
        self.own(p, owner).await?;
        let patch = TestPatch::parse(raw)?;
        self.check_test_sources(p, owner, &patch).await?;
        let test = AnswerTest::new(p.workspace_id().clone(), owner.clone(), patch.into_spec()?, Timestamp::now());
        match self.ports.storage.tests.insert_test(&test, MAX_TESTS_PER_OWNER).await? {
            TestInsert::Inserted => Ok(test),
            TestInsert::LimitReached => Err(AppError::Rejected(DomainError::new(
                ErrorCode::TestsLimitReached,
                format!("a chatbot or Mind has at most {MAX_TESTS_PER_OWNER} answer tests; delete one first"),
            ))),
        }
    }

    /// The expected sources must be the owner's (a deleted one may stay in a stored test: that
    /// is how a run finds the regression).
    async fn check_test_sources(&self, p: &Principal, owner: &SourceOwner, patch: &TestPatch) -> Result<(), AppError> {
        for id in patch.source_ids() {
            let source = self.ports.storage.sources.get_source(p.workspace_id(), id).await?;
            if source.is_none_or(|s| &s.owner != owner) {
                return Err(DomainError::field(
                    "expectedSourceIds",
                    format!("{id} is not a source of this {}", kind(owner)),
                )
                .into());
            }
        }
        Ok(())
    }

    pub async fn list_tests(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> Result<Page<AnswerTest>, AppError> {
        self.own(p, owner).await?;
        Ok(self.ports.storage.tests.list_tests(p.workspace_id(), owner, page).await?)
    }

    pub async fn get_test(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &AnswerTestId,
    ) -> Result<AnswerTest, AppError> {
        self.ports.storage.tests.get_test(p.workspace_id(), owner, id).await?.ok_or(AppError::NotFound("test"))
    }

    pub async fn update_test(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &AnswerTestId,
        raw: &RawTestSpec,
    ) -> Result<AnswerTest, AppError> {
        let mut test = self.get_test(p, owner, id).await?;
        let patch = TestPatch::parse(raw)?;
        self.check_test_sources(p, owner, &patch).await?;
        patch.apply(&mut test.spec);
        test.updated_at = Timestamp::now();
        if self.ports.storage.tests.update_test(&test).await? { Ok(test) } else { Err(AppError::NotFound("test")) }
    }

    pub async fn delete_test(&self, p: &Principal, owner: &SourceOwner, id: &AnswerTestId) -> Result<(), AppError> {
        if self.ports.storage.tests.delete_test(p.workspace_id(), owner, id).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("test"))
        }
    }

    /// Queues a run of `test_ids` (default: every test of the owner), in the tests' creation
    /// order. Refused with `run_in_progress` while another run of the owner is queued or running.
    pub async fn start_test_run(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        test_ids: Option<&[String]>,
    ) -> Result<TestRun, AppError> {
        self.own(p, owner).await?;
        let all = self.ports.storage.tests.all_tests(p.workspace_id(), owner).await?;
        let chosen: Vec<AnswerTestId> = match test_ids {
            None => all.into_iter().map(|t| t.id).collect(),
            Some(ids) => {
                let mut wanted = Vec::with_capacity(ids.len());
                for raw in ids {
                    let id =
                        AnswerTestId::parse(raw).filter(|id| all.iter().any(|t| &t.id == id)).ok_or_else(|| {
                            DomainError::field("testIds", format!("{raw:?} is not a test of this {}", kind(owner)))
                        })?;
                    wanted.push(id);
                }
                // In creation order, each once.
                all.into_iter().map(|t| t.id).filter(|id| wanted.contains(id)).collect()
            }
        };
        if chosen.is_empty() {
            return Err(DomainError::field(
                "testIds",
                format!("this {} has no test to run; add one first", kind(owner)),
            )
            .into());
        }
        self.queue_test_run(p.workspace_id(), owner, chosen).await
    }

    async fn queue_test_run(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        tests: Vec<AnswerTestId>,
    ) -> Result<TestRun, AppError> {
        // A run left behind by a worker that stopped is done now, not left running under the new one.
        self.end_abandoned_runs(ws, owner).await?;
        let now = Timestamp::now();
        let run = TestRun::queued(ws.clone(), owner.clone(), tests, now);
        match self.ports.storage.tests.start_run(&run, self.abandoned_before(now)).await? {
            RunStart::Started => {}
            RunStart::InProgress => {
                return Err(AppError::Rejected(DomainError::new(
                    ErrorCode::RunInProgress,
                    format!("a test run of this {} is queued or running; wait for it to finish", kind(owner)),
                )));
            }
        }
        let job = TestRunJob { workspace_id: ws.clone(), owner: owner.clone(), run_id: run.id.clone() };
        if let Err(e) = self.ports.storage.jobs.enqueue(job.into()).await {
            // Not left queued forever: the run ends now with the reason, and as nothing was
            // answered no test's last result changes.
            self.end_unanswered(run, "the run could not be queued").await?;
            return Err(e.into());
        }
        Ok(run)
    }

    /// A run still queued or running that started before this is taken as abandoned (its worker
    /// died): twice the run's time bound.
    fn abandoned_before(&self, now: Timestamp) -> Timestamp {
        let bound = self.config.test_run_timeout.as_millis() as i64 * 2 + 60_000;
        Timestamp::from_millis(now.millis() - bound)
    }

    /// Ends `run`, in which nothing was answered, with `reason` as each test's result; no test's
    /// last result changes. False when the run was done or claimed again meanwhile.
    async fn end_unanswered(&self, run: TestRun, reason: &str) -> Result<bool, AppError> {
        let store = &self.ports.storage.tests;
        let tests = store.all_tests(&run.workspace_id, &run.owner).await?;
        let results: Vec<TestResult> =
            tests.iter().filter(|t| run.test_ids.contains(&t.id)).map(|t| TestResult::unanswered(t, reason)).collect();
        let mut ended = run;
        ended.finish(&results, Timestamp::now());
        Ok(store.end_run(&ended, &results, RUNS_KEPT).await?)
    }

    /// Whether `run` is queued or running since before the abandonment bound: its worker stopped.
    fn is_abandoned(&self, run: &TestRun, now: Timestamp) -> bool {
        run.status != RunStatus::Done && run.started_at < self.abandoned_before(now)
    }

    /// Ends the owner's abandoned runs (done, with [`ABANDONED`] as each test's result): a
    /// restart of `lore serve` loses its in-process jobs, a test job that failed is not retried.
    /// Done where runs are started, listed and read, the same on every backend.
    async fn end_abandoned_runs(&self, ws: &WorkspaceId, owner: &SourceOwner) -> Result<(), AppError> {
        let store = &self.ports.storage.tests;
        let now = Timestamp::now();
        // At most `RUNS_KEPT` finished runs are kept: the unfinished ones are within a page of 100.
        let runs = store.list_runs(ws, owner, PageRequest::new(1, 100)).await?;
        for run in runs.items.into_iter().filter(|r| self.is_abandoned(r, now)) {
            self.end_unanswered(run, ABANDONED).await?;
        }
        Ok(())
    }

    pub async fn list_test_runs(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> Result<Page<TestRun>, AppError> {
        self.own(p, owner).await?;
        self.end_abandoned_runs(p.workspace_id(), owner).await?;
        Ok(self.ports.storage.tests.list_runs(p.workspace_id(), owner, page).await?)
    }

    /// The run and, once done, its results in the tests' creation order.
    pub async fn get_test_run(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &TestRunId,
    ) -> Result<(TestRun, Vec<TestResult>), AppError> {
        let tests = &self.ports.storage.tests;
        let mut run = tests.get_run(p.workspace_id(), owner, id).await?.ok_or(AppError::NotFound("run"))?;
        if self.is_abandoned(&run, Timestamp::now()) {
            self.end_unanswered(run, ABANDONED).await?;
            run = tests.get_run(p.workspace_id(), owner, id).await?.ok_or(AppError::NotFound("run"))?;
        }
        let results = if run.status == RunStatus::Done {
            tests.run_results(p.workspace_id(), owner, id).await?
        } else {
            Vec::new()
        };
        Ok((run, results))
    }

    /// The worker's side: answers every test of the run and stores the results, once it has
    /// claimed the run. A run already done (a repeated delivery), running under another worker,
    /// or superseded by a run started over it is left alone; one running since before the
    /// abandonment bound (its worker died) starts over.
    pub async fn run_test_job(&self, job: TestRunJob) -> Result<(), AppError> {
        let store = &self.ports.storage.tests;
        let Some(mut run) = store.get_run(&job.workspace_id, &job.owner, &job.run_id).await? else {
            return Ok(());
        };
        if run.status == RunStatus::Done {
            return Ok(());
        }
        let now = Timestamp::now();
        run.status = RunStatus::Running;
        run.started_at = now;
        if !store.mark_running(&run, self.abandoned_before(now)).await? {
            tracing::info!(run = %run.id, "a test run not claimed: done, running elsewhere or superseded");
            return Ok(());
        }
        let all = store.all_tests(&job.workspace_id, &job.owner).await?;
        // Tests deleted since the run was queued are not answered.
        let tests: Vec<AnswerTest> = all.into_iter().filter(|t| run.test_ids.contains(&t.id)).collect();
        run.test_ids = tests.iter().map(|t| t.id.clone()).collect();
        let results = match self.persona(&job.workspace_id, &job.owner).await {
            Ok((persona, settings)) => self.answer_tests(&job, &tests, &persona, &settings).await,
            // The owner was deleted meanwhile: its tests go with it.
            Err(AppError::NotFound(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        run.finish(&results, Timestamp::now());
        store.finish_run(&run, &results, RUNS_KEPT).await?;
        tracing::info!(run = %run.id, total = run.total(), passed = run.passed, regressions = run.regressions,
            "answer tests ran");
        self.publish(Event::tests_run_completed(&run)).await;
        Ok(())
    }

    /// Each test's result, in the tests' order, within the run's time.
    async fn answer_tests(
        &self,
        job: &TestRunJob,
        tests: &[AnswerTest],
        persona: &crate::ports::Persona,
        settings: &lore_domain::assistant::AssistantSettings,
    ) -> Vec<TestResult> {
        let run =
            RunBounds { deadline: Instant::now() + self.config.test_run_timeout, failures_in_a_row: AtomicU32::new(0) };
        // Made up front (not started): a closure over the stream would not be `Send` for every
        // lifetime the worker's spawn needs.
        let answers: Vec<_> = tests.iter().map(|test| self.answer_test(job, test, persona, settings, &run)).collect();
        futures::stream::iter(answers).buffered(self.config.test_run_concurrency.max(1)).collect().await
    }

    async fn answer_test(
        &self,
        job: &TestRunJob,
        test: &AnswerTest,
        persona: &crate::ports::Persona,
        settings: &lore_domain::assistant::AssistantSettings,
        run: &RunBounds,
    ) -> TestResult {
        if run.failures_in_a_row.load(Ordering::Relaxed) >= FAILURES_IN_A_ROW {
            return TestResult::unanswered(
                test,
                &format!("not asked: the language model failed {FAILURES_IN_A_ROW} times in a row in this run"),
            );
        }
        let timeout = self.config.test_run_timeout.as_secs();
        let time_out =
            || TestResult::unanswered(test, &format!("the run's {timeout} s ran out before this test was answered"));
        let ws = &job.workspace_id;
        let slot = match self.wait_for_answer_slot(ws, run.deadline).await {
            Ok(slot) => slot,
            Err(SlotWait::TimedOut) => return time_out(),
            Err(SlotWait::Failed(e)) => return TestResult::unanswered(test, &format!("no answer: {}", reason(&e))),
        };
        let answered = tokio::time::timeout_at(
            run.deadline.into(),
            self.first_answer_unstored(ws, &job.owner, persona.clone(), settings, &test.spec.question),
        )
        .await;
        slot.release().await;
        match answered {
            Ok(Ok(message)) => {
                run.failures_in_a_row.store(0, Ordering::Relaxed);
                TestResult::of_answer(test, &message)
            }
            Ok(Err(e)) => {
                // Only the model's failures stop the run; a store or retrieval failure is its own.
                if is_model_failure(&e) {
                    run.failures_in_a_row.fetch_add(1, Ordering::Relaxed);
                }
                TestResult::unanswered(test, &format!("no answer: {}", reason(&e)))
            }
            Err(_) => time_out(),
        }
    }

    /// One of the workspace's answer slots (all but one at most: visitors' answers come first),
    /// waited for until `deadline`.
    async fn wait_for_answer_slot(&self, ws: &WorkspaceId, deadline: Instant) -> Result<crate::slots::Slot, SlotWait> {
        loop {
            match self.background_answer_slot(ws).await {
                Ok(slot) => return Ok(slot),
                Err(AppError::Busy { .. }) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Err(AppError::Busy { .. }) => return Err(SlotWait::TimedOut),
                Err(e) => {
                    tracing::warn!(error = %e, "an answer test could not take an answer slot");
                    return Err(SlotWait::Failed(e));
                }
            }
        }
    }

    /// After the owner's sources changed (a source became ready, was refreshed or deleted): a run
    /// of every test when the owner asks for it (`runTestsOnChange`), none started in the last
    /// [`ON_CHANGE_EVERY`]. Never fails the change itself: a failure is logged.
    pub(crate) async fn tests_after_change(&self, ws: &WorkspaceId, owner: &SourceOwner) {
        if let Err(e) = self.run_tests_on_change(ws, owner).await {
            tracing::warn!(%owner, error = %e, "could not start the answer tests after a change");
        }
    }

    async fn run_tests_on_change(&self, ws: &WorkspaceId, owner: &SourceOwner) -> Result<(), AppError> {
        let settings = match self.assistant_settings(ws, owner).await {
            Ok(s) => s,
            Err(AppError::NotFound(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        if !settings.run_tests_on_change {
            return Ok(());
        }
        let store = &self.ports.storage.tests;
        let now = Timestamp::now();
        let newest = store.list_runs(ws, owner, PageRequest::new(1, 1)).await?.items.pop();
        if newest.is_some_and(|r| now.millis() - r.started_at.millis() < ON_CHANGE_EVERY.as_millis() as i64) {
            return Ok(());
        }
        let tests: Vec<AnswerTestId> = store.all_tests(ws, owner).await?.into_iter().map(|t| t.id).collect();
        if tests.is_empty() {
            return Ok(());
        }
        match self.queue_test_run(ws, owner, tests).await {
            Ok(run) => {
                tracing::info!(%owner, run = %run.id, "answer tests queued after a change of the sources");
                Ok(())
            }
            Err(AppError::Rejected(e)) if e.code == ErrorCode::RunInProgress => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// What bounds one run: its end, and the model failures in a row so far.
struct RunBounds {
    deadline: Instant,
    failures_in_a_row: AtomicU32,
}

/// Why no answer slot was taken.
enum SlotWait {
    /// Every slot stayed busy until the run's end.
    TimedOut,
    /// Taking one failed (the slot store).
    Failed(AppError),
}

/// A failure of the language model (after its retries), the only kind that counts toward
/// [`FAILURES_IN_A_ROW`].
fn is_model_failure(e: &AppError) -> bool {
    matches!(e, AppError::Rejected(d) if d.code == ErrorCode::GenerationFailed)
}

fn kind(owner: &SourceOwner) -> &'static str {
    if owner.is_mind() { "Mind" } else { "chatbot" }
}

/// Why a test got no answer, for the owner.
fn reason(e: &AppError) -> String {
    match e {
        AppError::Rejected(d) if d.code == ErrorCode::GenerationFailed => "the language model did not answer".into(),
        AppError::Rejected(d) => d.message.clone(),
        AppError::Storage(_) => "the store failed".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_models_failures_count_toward_the_stop_and_a_store_failure_has_its_own_reason() {
        let model = AppError::Rejected(DomainError::new(ErrorCode::GenerationFailed, "the model timed out"));
        let store = AppError::Storage("disk I/O error".into());
        let retrieval = AppError::Rejected(DomainError::new(ErrorCode::InternalError, "the index is unavailable"));
        assert!(is_model_failure(&model));
        assert!(!is_model_failure(&store), "a store failure is not the model's");
        assert!(!is_model_failure(&retrieval), "a retrieval failure is not the model's");
        assert_eq!(reason(&model), "the language model did not answer");
        assert_eq!(reason(&store), "the store failed");
    }
}
