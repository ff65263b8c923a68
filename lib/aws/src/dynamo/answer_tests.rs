//! Answer tests, their runs and results on the table (`infra/dynamodb.md`, "Answer tests").
//!
//! Everything of one owner's tests is one partition, `TESTS#<owner>`: the owner's `COUNT` item
//! (how many tests, and the run in progress), its tests (`TEST#<id>`, ids sort by creation), runs
//! (`RUN#<id>`) and each run's results (`RES#<runId>#<position>`). The test limit is the count's
//! condition in the insert's transaction; the one-run-at-a-time rule is the count item's
//! `activeRun`, set in the same transaction as the run and removed when it finishes.

use super::document;
use super::{DynamoStore, Expr, Item, TxFailure, TxWrite, backoff, gave_up, get_i, get_s, key, malformed, n, req_s, s};
use async_trait::async_trait;
use futures::{StreamExt, TryStreamExt};
use lore_app::ports::{AnswerTestStore, RunStart, StoreResult, TestInsert};
use lore_domain::Timestamp;
use lore_domain::answer_test::{AnswerTest, TestResult, TestRun};
use lore_domain::id::{AnswerTestId, TestRunId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_records::{AnswerTestKeys, AnswerTestRecord, TestResultRecord, TestRunKeys, TestRunRecord};

fn tests_pk(owner: &SourceOwner) -> String {
    format!("TESTS#{owner}")
}
const COUNT_SK: &str = "COUNT";
const TEST_PREFIX: &str = "TEST#";
const RUN_PREFIX: &str = "RUN#";
fn test_sk(id: &AnswerTestId) -> String {
    format!("{TEST_PREFIX}{id}")
}
fn run_sk(id: &TestRunId) -> String {
    format!("{RUN_PREFIX}{id}")
}
fn results_prefix(id: &TestRunId) -> String {
    format!("RES#{id}#")
}
fn result_sk(id: &TestRunId, position: usize) -> String {
    format!("RES#{id}#{position:05}")
}
/// Test updates of a finished run written at once.
const LAST_RESULTS_AT_ONCE: usize = 16;

fn test_item(t: &AnswerTest) -> Item {
    let mut item = key(tests_pk(&t.owner), test_sk(&t.id));
    item.extend([
        ("id".into(), s(t.id.as_str())),
        ("ws".into(), s(t.workspace_id.as_str())),
        ("owner".into(), s(t.owner.as_str())),
        ("createdAt".into(), n(t.created_at.millis())),
        ("updatedAt".into(), n(t.updated_at.millis())),
    ]);
    item.extend(document::set_fields(&AnswerTestRecord::of(t)));
    item
}

fn test_from(i: &Item) -> StoreResult<AnswerTest> {
    let keys = AnswerTestKeys {
        id: AnswerTestId::parse(req_s(i, "id")?).ok_or_else(|| malformed("test id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("test owner"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
        updated_at: Timestamp::from_millis(get_i(i, "updatedAt").unwrap_or(0)),
    };
    let record: AnswerTestRecord = document::read(i, "answer test")?;
    record.into_test(keys).map_err(|e| malformed(&e.to_string()))
}

fn run_item(r: &TestRun) -> Item {
    let mut item = key(tests_pk(&r.owner), run_sk(&r.id));
    item.extend([
        ("id".into(), s(r.id.as_str())),
        ("ws".into(), s(r.workspace_id.as_str())),
        ("owner".into(), s(r.owner.as_str())),
        ("startedAt".into(), n(r.started_at.millis())),
    ]);
    item.extend(document::set_fields(&TestRunRecord::of(r)));
    item
}

fn run_from(i: &Item) -> StoreResult<TestRun> {
    let keys = TestRunKeys {
        id: TestRunId::parse(req_s(i, "id")?).ok_or_else(|| malformed("run id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("run owner"))?,
        started_at: Timestamp::from_millis(get_i(i, "startedAt").unwrap_or(0)),
    };
    let record: TestRunRecord = document::read(i, "test run")?;
    record.into_run(keys).map_err(|e| malformed(&e.to_string()))
}

fn in_workspace(i: &Item, ws: &WorkspaceId) -> bool {
    get_s(i, "ws") == Some(ws.as_str())
}

fn page_of<T>(all: Vec<T>, page: PageRequest) -> Page<T> {
    let total = all.len() as u64;
    let items = all.into_iter().skip(page.offset() as usize).take(page.limit() as usize).collect();
    Page { items, total, request: page }
}

impl DynamoStore {
    /// `r` as its test's last result, unless the test is gone.
    async fn set_last_result(&self, pk: &str, run: &TestRunId, r: &TestResult) -> StoreResult<()> {
        let mut expr = Expr::new();
        let update = format!(
            "SET {} = {}, {} = {}",
            expr.a("lastRunId"),
            expr.v("run", s(run.as_str())),
            expr.a("lastPassed"),
            expr.v("passed", aws_sdk_dynamodb::types::AttributeValue::Bool(r.passed)),
        );
        let cond = format!("attribute_exists({})", expr.a("pk"));
        self.update_if(key(pk, test_sk(&r.test_id)), update, cond, expr).await.map(|_| ())
    }

    /// The run's results in place of any stored before: those at a position beyond `results`
    /// (a repeated delivery after a test was deleted answers fewer) are deleted.
    async fn put_results(&self, run: &TestRun, results: &[TestResult]) -> StoreResult<()> {
        let pk = tests_pk(&run.owner);
        let items: Vec<Item> = results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut item = key(pk.clone(), result_sk(&run.id, i));
                item.extend(document::set_fields(&TestResultRecord::of(r)));
                item
            })
            .collect();
        // Each result is well under the item limit (an answer and at most 8 quotes); 25 a
        // transaction keeps each request small.
        for batch in items.chunks(25) {
            super::transact_retrying(self, "store test results", || {
                Ok(batch.iter().map(|i| TxWrite::Put { item: i.clone(), cond: None, expr: Expr::new() }).collect())
            })
            .await?;
        }
        let written: std::collections::HashSet<String> = (0..results.len()).map(|i| result_sk(&run.id, i)).collect();
        let stale: Vec<Item> = self
            .prefixed(&pk, &results_prefix(&run.id), true)
            .await?
            .into_iter()
            .filter(|k| get_s(k, "sk").is_none_or(|sk| !written.contains(sk)))
            .collect();
        if !stale.is_empty() {
            self.delete_keys(&stale, "delete stale test results").await?;
        }
        Ok(())
    }

    async fn owner_items(&self, owner: &SourceOwner, prefix: &str) -> StoreResult<Vec<Item>> {
        self.prefixed(&tests_pk(owner), prefix, false).await
    }

    async fn all_runs(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<TestRun>> {
        let items = self.owner_items(owner, RUN_PREFIX).await?;
        let mut runs = items.iter().filter(|i| in_workspace(i, ws)).map(run_from).collect::<StoreResult<Vec<_>>>()?;
        runs.sort_by(|a, b| (b.started_at, &b.id).cmp(&(a.started_at, &a.id)));
        Ok(runs)
    }

    /// Deletes the runs of `owner` beyond the newest `keep` finished ones, with their results.
    async fn prune_runs(&self, ws: &WorkspaceId, owner: &SourceOwner, keep: u32) -> StoreResult<()> {
        let runs = self.all_runs(ws, owner).await?;
        let done = runs.iter().filter(|r| r.status == lore_domain::answer_test::RunStatus::Done);
        for old in done.skip(keep as usize) {
            let mut keys = self.prefixed(&tests_pk(owner), &results_prefix(&old.id), true).await?;
            keys.push(key(tests_pk(owner), run_sk(&old.id)));
            self.delete_keys(&keys, "delete old test runs").await?;
        }
        Ok(())
    }
}

#[async_trait]
impl AnswerTestStore for DynamoStore {
    async fn insert_test(&self, test: &AnswerTest, limit: u32) -> StoreResult<TestInsert> {
        for attempt in 0..super::MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!(
                "SET {tests} = if_not_exists({tests}, {zero}) + {one}, {ws} = {wsv}",
                tests = expr.a("tests"),
                zero = expr.v("zero", n(0)),
                one = expr.v("one", n(1)),
                ws = expr.a("ws"),
                wsv = expr.v("ws", s(test.workspace_id.as_str())),
            );
            let cond = format!("attribute_not_exists({0}) OR {0} < {1}", expr.a("tests"), expr.v("limit", n(limit)));
            let count = TxWrite::Update { key: key(tests_pk(&test.owner), COUNT_SK), update, cond: Some(cond), expr };
            let mut expr = Expr::new();
            let absent = format!("attribute_not_exists({})", expr.a("pk"));
            let put = TxWrite::Put { item: test_item(test), cond: Some(absent), expr };
            match self.transact(vec![count, put]).await {
                Ok(()) => return Ok(TestInsert::Inserted),
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => return Ok(TestInsert::LimitReached),
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_test"))
    }

    async fn get_test(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &AnswerTestId,
    ) -> StoreResult<Option<AnswerTest>> {
        match self.get(&tests_pk(owner), &test_sk(id)).await? {
            Some(i) if in_workspace(&i, ws) => Ok(Some(test_from(&i)?)),
            _ => Ok(None),
        }
    }

    async fn list_tests(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<AnswerTest>> {
        // At most 500 tests an owner: one partition read, paged here.
        Ok(page_of(self.all_tests(ws, owner).await?, page))
    }

    async fn all_tests(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<AnswerTest>> {
        let items = self.owner_items(owner, TEST_PREFIX).await?;
        let mut tests = items.iter().filter(|i| in_workspace(i, ws)).map(test_from).collect::<StoreResult<Vec<_>>>()?;
        tests.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(tests)
    }

    async fn update_test(&self, test: &AnswerTest) -> StoreResult<bool> {
        let mut expr = Expr::new();
        // The last result is the runs' to write.
        let mut fields: Vec<_> = document::fields(&AnswerTestRecord::of(test))
            .into_iter()
            .filter(|(k, _)| k != "lastRunId" && k != "lastPassed")
            .collect();
        fields.push(("updatedAt".into(), Some(n(test.updated_at.millis()))));
        let update = expr.set_or_remove(fields);
        let cond = format!(
            "attribute_exists({}) AND {} = {}",
            expr.a("pk"),
            expr.a("ws"),
            expr.v("wsid", s(test.workspace_id.as_str()))
        );
        let k = key(tests_pk(&test.owner), test_sk(&test.id));
        Ok(self.update_if(k, update, cond, expr).await?.is_some())
    }

    async fn delete_test(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &AnswerTestId) -> StoreResult<bool> {
        super::transact_retrying(self, "delete_test", || {
            let mut expr = Expr::new();
            let cond =
                format!("attribute_exists({}) AND {} = {}", expr.a("pk"), expr.a("ws"), expr.v("ws", s(ws.as_str())));
            let delete = TxWrite::Delete { key: key(tests_pk(owner), test_sk(id)), cond: Some(cond), expr };
            let mut expr = Expr::new();
            let update = format!("SET {0} = {0} - {1}", expr.a("tests"), expr.v("one", n(1)));
            let count = TxWrite::Update { key: key(tests_pk(owner), COUNT_SK), update, cond: None, expr };
            Ok(vec![delete, count])
        })
        .await
    }

    async fn start_run(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<RunStart> {
        for attempt in 0..super::MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!(
                "SET {active} = {run}, {since} = {now}, {ws} = {wsv}",
                active = expr.a("activeRun"),
                run = expr.v("run", s(run.id.as_str())),
                since = expr.a("activeSince"),
                now = expr.v("now", n(run.started_at.millis())),
                ws = expr.a("ws"),
                wsv = expr.v("ws", s(run.workspace_id.as_str())),
            );
            let cond = format!(
                "attribute_not_exists({active}) OR {since} < {before}",
                active = expr.a("activeRun"),
                since = expr.a("activeSince"),
                before = expr.v("before", n(abandoned_before.millis())),
            );
            let lock = TxWrite::Update { key: key(tests_pk(&run.owner), COUNT_SK), update, cond: Some(cond), expr };
            let put = TxWrite::Put { item: run_item(run), cond: None, expr: Expr::new() };
            match self.transact(vec![lock, put]).await {
                Ok(()) => return Ok(RunStart::Started),
                Err(TxFailure::Condition(_)) => return Ok(RunStart::InProgress),
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("start_run"))
    }

    async fn get_run(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &TestRunId) -> StoreResult<Option<TestRun>> {
        match self.get(&tests_pk(owner), &run_sk(id)).await? {
            Some(i) if in_workspace(&i, ws) => Ok(Some(run_from(&i)?)),
            _ => Ok(None),
        }
    }

    async fn list_runs(&self, ws: &WorkspaceId, owner: &SourceOwner, page: PageRequest) -> StoreResult<Page<TestRun>> {
        // At most `RUNS_KEPT` finished runs (and one in progress) an owner.
        Ok(page_of(self.all_runs(ws, owner).await?, page))
    }

    async fn mark_running(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<bool> {
        let pk = tests_pk(&run.owner);
        for attempt in 0..super::MAX_ATTEMPTS {
            // The owner's lock is this run's (not superseded by a run started over it), its time
            // refreshed: the claim restarts the abandonment clock.
            let mut expr = Expr::new();
            let update = format!("SET {} = {}", expr.a("activeSince"), expr.v("now", n(run.started_at.millis())));
            let cond = format!("{} = {}", expr.a("activeRun"), expr.v("run", s(run.id.as_str())));
            let lock = TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: Some(cond), expr };
            // Queued, or running since before the bound (its worker died).
            let mut expr = Expr::new();
            let update = format!(
                "SET {status} = {running}, {started} = {now}",
                status = expr.a("status"),
                running = expr.v("running", s("running")),
                started = expr.a("startedAt"),
                now = expr.v("now", n(run.started_at.millis())),
            );
            let cond = format!(
                "attribute_exists({pk}) AND ({status} = {queued} OR ({status} = {running} AND {started} < {before}))",
                pk = expr.a("pk"),
                status = expr.a("status"),
                queued = expr.v("queued", s("queued")),
                running = expr.v("running", s("running")),
                started = expr.a("startedAt"),
                before = expr.v("before", n(abandoned_before.millis())),
            );
            let claim = TxWrite::Update { key: key(pk.clone(), run_sk(&run.id)), update, cond: Some(cond), expr };
            match self.transact(vec![lock, claim]).await {
                Ok(()) => return Ok(true),
                Err(TxFailure::Condition(_)) => return Ok(false),
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("mark_running"))
    }

    async fn finish_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<()> {
        let pk = tests_pk(&run.owner);
        self.put_results(run, results).await?;
        // Each test's last result; a test deleted meanwhile fails its condition and is skipped.
        let updates: Vec<_> = results.iter().map(|r| self.set_last_result(&pk, &run.id, r)).collect();
        futures::stream::iter(updates).buffer_unordered(LAST_RESULTS_AT_ONCE).try_collect::<Vec<()>>().await?;
        // The run, done, and the owner free for the next one: one transaction.
        super::transact_retrying(self, "finish_run", || {
            let mut expr = Expr::new();
            let update = format!("REMOVE {}, {}", expr.a("activeRun"), expr.a("activeSince"));
            let cond = format!("{} = {}", expr.a("activeRun"), expr.v("run", s(run.id.as_str())));
            Ok(vec![
                TxWrite::Put { item: run_item(run), cond: None, expr: Expr::new() },
                TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: Some(cond), expr },
            ])
        })
        .await
        .map(|_| ())?;
        // A lock taken over by a later run (this one was abandoned) failed the condition: write
        // the run alone.
        if self.get_run(&run.workspace_id, &run.owner, &run.id).await?.is_some_and(|r| r.finished_at.is_none()) {
            self.transact(vec![TxWrite::Put { item: run_item(run), cond: None, expr: Expr::new() }])
                .await
                .map_err(|_| gave_up("finish_run"))?;
        }
        self.prune_runs(&run.workspace_id, &run.owner, keep).await
    }

    async fn end_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<bool> {
        let pk = tests_pk(&run.owner);
        // The run, done, only if it is not yet and was not claimed again since it was read.
        let mut expr = Expr::new();
        let cond = format!(
            "attribute_exists({pk}) AND {ws} = {wsv} AND {status} <> {done} AND {started} = {at}",
            pk = expr.a("pk"),
            ws = expr.a("ws"),
            wsv = expr.v("ws", s(run.workspace_id.as_str())),
            status = expr.a("status"),
            done = expr.v("done", s("done")),
            started = expr.a("startedAt"),
            at = expr.v("at", n(run.started_at.millis())),
        );
        match self.transact(vec![TxWrite::Put { item: run_item(run), cond: Some(cond), expr }]).await {
            Ok(()) => {}
            Err(TxFailure::Condition(_)) => return Ok(false),
            Err(TxFailure::Conflict) => return Err(gave_up("end_run")),
            Err(TxFailure::Store(e)) => return Err(e),
        }
        self.put_results(run, results).await?;
        // The owner freed if this run held it (one started over it holds it already otherwise).
        let mut expr = Expr::new();
        let update = format!("REMOVE {}, {}", expr.a("activeRun"), expr.a("activeSince"));
        let cond = format!("{} = {}", expr.a("activeRun"), expr.v("run", s(run.id.as_str())));
        self.update_if(key(pk, COUNT_SK), update, cond, expr).await?;
        self.prune_runs(&run.workspace_id, &run.owner, keep).await?;
        Ok(true)
    }

    async fn run_results(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        run: &TestRunId,
    ) -> StoreResult<Vec<TestResult>> {
        if self.get_run(ws, owner, run).await?.is_none() {
            return Ok(Vec::new());
        }
        let items = self.prefixed(&tests_pk(owner), &results_prefix(run), false).await?;
        items
            .iter()
            .map(|i| {
                let record: TestResultRecord = document::read(i, "test result")?;
                record.into_result().map_err(|e| malformed(&e.to_string()))
            })
            .collect()
    }

    async fn delete_owner_tests(&self, _ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        // The partition is the owner's alone, and owner ids are unique across workspaces.
        let mut expr = Expr::new();
        let cond = format!("{} = {}", expr.a("pk"), expr.v("pk", s(tests_pk(owner))));
        let keys = self.query_partition(&cond, &expr, true).await?;
        self.delete_keys(&keys, "delete answer tests").await
    }
}
