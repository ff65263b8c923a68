//! Answer tests, their runs and results (`AnswerTestStore`) on [`SqliteStore`]. The test limit and
//! the one-run-at-a-time rule are each checked in the transaction that writes.

use crate::paging::paged;
use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::{AnswerTestStore, RunStart, StoreResult, TestInsert};
use lore_domain::Timestamp;
use lore_domain::answer_test::{AnswerTest, TestResult, TestRun};
use lore_domain::id::{AnswerTestId, TestRunId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_records::{
    AnswerTestKeys, AnswerTestRecord, TestResultRecord, TestRunKeys, TestRunRecord, from_json, to_json,
};
use rusqlite::{OptionalExtension, Row, params};

const TEST_COLS: &str = "id, workspace_id, owner_id, details, created_at, updated_at";
const RUN_COLS: &str = "id, workspace_id, owner_id, details, started_at";

fn malformed(e: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(e.to_string())
}

fn test_from(r: &Row<'_>) -> rusqlite::Result<AnswerTest> {
    let keys = AnswerTestKeys {
        id: AnswerTestId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed test id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed test owner"))?,
        created_at: Timestamp::from_millis(r.get(4)?),
        updated_at: Timestamp::from_millis(r.get(5)?),
    };
    from_json::<AnswerTestRecord>(&r.get::<_, String>(3)?, "answer test")
        .and_then(|d| d.into_test(keys))
        .map_err(malformed)
}

fn run_from(r: &Row<'_>) -> rusqlite::Result<TestRun> {
    let keys = TestRunKeys {
        id: TestRunId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed run id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed run owner"))?,
        started_at: Timestamp::from_millis(r.get(4)?),
    };
    from_json::<TestRunRecord>(&r.get::<_, String>(3)?, "test run").and_then(|d| d.into_run(keys)).map_err(malformed)
}

fn owner_columns(owner: &SourceOwner) -> (Option<&str>, Option<&str>) {
    (owner.chatbot().map(|i| i.as_str()), owner.mind().map(|i| i.as_str()))
}

#[async_trait]
impl AnswerTestStore for SqliteStore {
    async fn insert_test(&self, test: &AnswerTest, limit: u32) -> StoreResult<TestInsert> {
        let t = test.clone();
        self.write(move |tx| {
            let used: i64 = tx
                .query_row(
                    "SELECT COUNT(*) FROM answer_tests WHERE owner_id = ?1 AND workspace_id = ?2",
                    [t.owner.as_str(), t.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .map_err(unavailable)?;
            if used >= i64::from(limit) {
                return Ok(TestInsert::LimitReached);
            }
            let (chatbot, mind) = owner_columns(&t.owner);
            tx.execute(
                "INSERT INTO answer_tests (id, workspace_id, chatbot_id, mind_id, details, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    t.id.as_str(),
                    t.workspace_id.as_str(),
                    chatbot,
                    mind,
                    to_json(&AnswerTestRecord::of(&t)),
                    t.created_at.millis(),
                    t.updated_at.millis()
                ],
            )
            .map_err(unavailable)?;
            Ok(TestInsert::Inserted)
        })
        .await
    }

    async fn get_test(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &AnswerTestId,
    ) -> StoreResult<Option<AnswerTest>> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.read(move |c| {
            c.query_row(
                &format!("SELECT {TEST_COLS} FROM answer_tests WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"),
                [id.as_str(), ws.as_str(), owner.as_str()],
                test_from,
            )
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn list_tests(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<AnswerTest>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM answer_tests WHERE owner_id = ?1 AND workspace_id = ?2",
                &format!(
                    "SELECT {TEST_COLS} FROM answer_tests WHERE owner_id = ?1 AND workspace_id = ?2
                     ORDER BY created_at, id LIMIT ?3 OFFSET ?4"
                ),
                &[&owner.as_str(), &ws.as_str()],
                page,
                test_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn all_tests(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<AnswerTest>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(&format!(
                    "SELECT {TEST_COLS} FROM answer_tests WHERE owner_id = ?1 AND workspace_id = ?2
                     ORDER BY created_at, id"
                ))
                .map_err(unavailable)?;
            let rows = st.query_map([owner.as_str(), ws.as_str()], test_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn update_test(&self, test: &AnswerTest) -> StoreResult<bool> {
        let t = test.clone();
        self.write(move |tx| {
            // The last result is the runs' to write: keep the stored one.
            let stored: Option<String> = tx
                .query_row(
                    "SELECT details FROM answer_tests WHERE id = ?1 AND workspace_id = ?2",
                    [t.id.as_str(), t.workspace_id.as_str()],
                    |r| r.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            let Some(stored) = stored else { return Ok(false) };
            let stored: AnswerTestRecord = from_json(&stored, "answer test").map_err(unavailable)?;
            let mut record = AnswerTestRecord::of(&t);
            (record.last_run_id, record.last_passed) = (stored.last_run_id, stored.last_passed);
            let n = tx
                .execute(
                    "UPDATE answer_tests SET details = ?3, updated_at = ?4 WHERE id = ?1 AND workspace_id = ?2",
                    params![t.id.as_str(), t.workspace_id.as_str(), to_json(&record), t.updated_at.millis()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn delete_test(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &AnswerTestId) -> StoreResult<bool> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "DELETE FROM answer_tests WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3",
                    [id.as_str(), ws.as_str(), owner.as_str()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn start_run(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<RunStart> {
        let r = run.clone();
        self.write(move |tx| {
            let busy: i64 = tx
                .query_row(
                    "SELECT COUNT(*) FROM test_runs WHERE owner_id = ?1 AND workspace_id = ?2
                     AND status != 'done' AND started_at >= ?3",
                    params![r.owner.as_str(), r.workspace_id.as_str(), abandoned_before.millis()],
                    |row| row.get(0),
                )
                .map_err(unavailable)?;
            if busy > 0 {
                return Ok(RunStart::InProgress);
            }
            let (chatbot, mind) = owner_columns(&r.owner);
            tx.execute(
                "INSERT INTO test_runs (id, workspace_id, chatbot_id, mind_id, status, details, started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    r.id.as_str(),
                    r.workspace_id.as_str(),
                    chatbot,
                    mind,
                    r.status.as_str(),
                    to_json(&TestRunRecord::of(&r)),
                    r.started_at.millis()
                ],
            )
            .map_err(unavailable)?;
            Ok(RunStart::Started)
        })
        .await
    }

    async fn get_run(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &TestRunId) -> StoreResult<Option<TestRun>> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.read(move |c| {
            c.query_row(
                &format!("SELECT {RUN_COLS} FROM test_runs WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"),
                [id.as_str(), ws.as_str(), owner.as_str()],
                run_from,
            )
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn list_runs(&self, ws: &WorkspaceId, owner: &SourceOwner, page: PageRequest) -> StoreResult<Page<TestRun>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM test_runs WHERE owner_id = ?1 AND workspace_id = ?2",
                &format!(
                    "SELECT {RUN_COLS} FROM test_runs WHERE owner_id = ?1 AND workspace_id = ?2
                     ORDER BY started_at DESC, id DESC LIMIT ?3 OFFSET ?4"
                ),
                &[&owner.as_str(), &ws.as_str()],
                page,
                run_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn mark_running(&self, run: &TestRun, abandoned_before: Timestamp) -> StoreResult<bool> {
        let r = run.clone();
        self.write(move |tx| {
            // Queued, or running since before the bound (its worker died); and no other run of the
            // owner live (one started over this one as abandoned).
            let n = tx
                .execute(
                    "UPDATE test_runs SET status = 'running', started_at = ?3, details = ?4
                     WHERE id = ?1 AND workspace_id = ?2
                     AND (status = 'queued' OR (status = 'running' AND started_at < ?5))
                     AND NOT EXISTS (SELECT 1 FROM test_runs o WHERE o.owner_id = test_runs.owner_id
                         AND o.workspace_id = test_runs.workspace_id AND o.id != test_runs.id
                         AND o.status != 'done' AND o.started_at >= ?5)",
                    params![
                        r.id.as_str(),
                        r.workspace_id.as_str(),
                        r.started_at.millis(),
                        to_json(&TestRunRecord::of(&r)),
                        abandoned_before.millis()
                    ],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn finish_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<()> {
        let (r, results) = (run.clone(), results.to_vec());
        self.write(move |tx| {
            tx.execute(
                "UPDATE test_runs SET status = ?2, details = ?3 WHERE id = ?1",
                params![r.id.as_str(), r.status.as_str(), to_json(&TestRunRecord::of(&r))],
            )
            .map_err(unavailable)?;
            store_results(tx, &r, &results, true)?;
            prune(tx, &r, keep)
        })
        .await
    }

    async fn end_run(&self, run: &TestRun, results: &[TestResult], keep: u32) -> StoreResult<bool> {
        let (r, results) = (run.clone(), results.to_vec());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "UPDATE test_runs SET status = ?3, details = ?4
                     WHERE id = ?1 AND workspace_id = ?2 AND status != 'done' AND started_at = ?5",
                    params![
                        r.id.as_str(),
                        r.workspace_id.as_str(),
                        r.status.as_str(),
                        to_json(&TestRunRecord::of(&r)),
                        r.started_at.millis()
                    ],
                )
                .map_err(unavailable)?;
            if n == 0 {
                return Ok(false);
            }
            store_results(tx, &r, &results, false)?;
            prune(tx, &r, keep)?;
            Ok(true)
        })
        .await
    }

    async fn run_results(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        run: &TestRunId,
    ) -> StoreResult<Vec<TestResult>> {
        let (ws, owner, run) = (ws.clone(), owner.clone(), run.clone());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT r.details FROM test_results r JOIN test_runs t ON t.id = r.run_id
                     WHERE r.run_id = ?1 AND t.workspace_id = ?2 AND t.owner_id = ?3 ORDER BY r.position",
                )
                .map_err(unavailable)?;
            let rows = st
                .query_map([run.as_str(), ws.as_str(), owner.as_str()], |r| {
                    from_json::<TestResultRecord>(&r.get::<_, String>(0)?, "test result")
                        .and_then(TestResultRecord::into_result)
                        .map_err(malformed)
                })
                .map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn delete_owner_tests(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.write(move |tx| {
            for table in ["answer_tests", "test_runs"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE owner_id = ?1 AND workspace_id = ?2"),
                    [owner.as_str(), ws.as_str()],
                )
                .map_err(unavailable)?;
            }
            Ok(())
        })
        .await
    }
}

/// The run's results in place of any stored before; with `last_results`, each also as its test's
/// last result.
fn store_results(
    tx: &rusqlite::Connection,
    r: &TestRun,
    results: &[TestResult],
    last_results: bool,
) -> StoreResult<()> {
    tx.execute("DELETE FROM test_results WHERE run_id = ?1", [r.id.as_str()]).map_err(unavailable)?;
    for (i, result) in results.iter().enumerate() {
        tx.execute(
            "INSERT INTO test_results (run_id, position, details) VALUES (?1, ?2, ?3)",
            params![r.id.as_str(), i as i64, to_json(&TestResultRecord::of(result))],
        )
        .map_err(unavailable)?;
        if !last_results {
            continue;
        }
        // The test's last result: `json_set` leaves the rest of its document as it is.
        tx.execute(
            "UPDATE answer_tests SET details = json_set(details, '$.lastRunId', ?2, '$.lastPassed', json(?3))
             WHERE id = ?1 AND workspace_id = ?4",
            params![
                result.test_id.as_str(),
                r.id.as_str(),
                if result.passed { "true" } else { "false" },
                r.workspace_id.as_str()
            ],
        )
        .map_err(unavailable)?;
    }
    Ok(())
}

/// Removes the owner's finished runs beyond the newest `keep` finished ones (queued and running
/// runs neither count nor go).
fn prune(tx: &rusqlite::Connection, r: &TestRun, keep: u32) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM test_runs WHERE owner_id = ?1 AND workspace_id = ?2 AND status = 'done' AND id NOT IN
         (SELECT id FROM test_runs WHERE owner_id = ?1 AND workspace_id = ?2 AND status = 'done'
          ORDER BY started_at DESC, id DESC LIMIT ?3)",
        params![r.owner.as_str(), r.workspace_id.as_str(), i64::from(keep)],
    )
    .map_err(unavailable)?;
    Ok(())
}
