//! The stored shapes of answer tests, their runs and each run's results (docs/api.md §21). Keys,
//! owners and times are the backends' own.

use crate::{CitationRecord, RecordError};
use lore_domain::Timestamp;
use lore_domain::answer_test::{
    AnswerTest, CheckKind, CheckResult, LastResult, RunStatus, TestResult, TestRun, TestSpec,
};
use lore_domain::conversation::GeneratedBy;
use lore_domain::id::{AnswerTestId, SourceId, TestRunId, WorkspaceId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};

/// A test's document: what it asks and expects, and its last result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnswerTestRecord {
    pub question: String,
    #[serde(default)]
    pub expected_source_ids: Vec<String>,
    #[serde(default)]
    pub must_contain: Vec<String>,
    #[serde(default)]
    pub must_not_contain: Vec<String>,
    pub expect_answered: bool,
    /// The run of the last result; written as `null` so that an update without one removes it.
    #[serde(default)]
    pub last_run_id: Option<String>,
    #[serde(default)]
    pub last_passed: Option<bool>,
}

/// What the backends keep beside an [`AnswerTestRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerTestKeys {
    pub id: AnswerTestId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl AnswerTestRecord {
    pub fn of(t: &AnswerTest) -> Self {
        Self {
            question: t.spec.question.clone(),
            expected_source_ids: t.spec.expected_source_ids.iter().map(|s| s.as_str().to_owned()).collect(),
            must_contain: t.spec.must_contain.clone(),
            must_not_contain: t.spec.must_not_contain.clone(),
            expect_answered: t.spec.expect_answered,
            last_run_id: t.last_result.as_ref().map(|r| r.run_id.as_str().to_owned()),
            last_passed: t.last_result.as_ref().map(|r| r.passed),
        }
    }

    pub fn into_test(self, keys: AnswerTestKeys) -> Result<AnswerTest, RecordError> {
        let expected_source_ids = self
            .expected_source_ids
            .iter()
            .map(|s| SourceId::parse(s).ok_or_else(|| RecordError::of("test source id")))
            .collect::<Result<Vec<_>, _>>()?;
        let last_result = match (self.last_run_id, self.last_passed) {
            (Some(run), Some(passed)) => Some(LastResult {
                run_id: TestRunId::parse(&run).ok_or_else(|| RecordError::of("test last run id"))?,
                passed,
            }),
            _ => None,
        };
        Ok(AnswerTest {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            spec: TestSpec {
                question: self.question,
                expected_source_ids,
                must_contain: self.must_contain,
                must_not_contain: self.must_not_contain,
                expect_answered: self.expect_answered,
            },
            created_at: keys.created_at,
            updated_at: keys.updated_at,
            last_result,
        })
    }
}

/// A run's document: its tests and, once done, its counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRunRecord {
    pub status: String,
    pub test_ids: Vec<String>,
    #[serde(default)]
    pub passed: u32,
    #[serde(default)]
    pub failed: u32,
    #[serde(default)]
    pub regressions: u32,
    /// Milliseconds since the epoch; `null` until done.
    #[serde(default)]
    pub finished_at: Option<i64>,
}

/// What the backends keep beside a [`TestRunRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRunKeys {
    pub id: TestRunId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub started_at: Timestamp,
}

impl TestRunRecord {
    pub fn of(r: &TestRun) -> Self {
        Self {
            status: r.status.as_str().to_owned(),
            test_ids: r.test_ids.iter().map(|t| t.as_str().to_owned()).collect(),
            passed: r.passed,
            failed: r.failed,
            regressions: r.regressions,
            finished_at: r.finished_at.map(Timestamp::millis),
        }
    }

    pub fn into_run(self, keys: TestRunKeys) -> Result<TestRun, RecordError> {
        Ok(TestRun {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            status: RunStatus::parse(&self.status).ok_or_else(|| RecordError::of("run status"))?,
            test_ids: self
                .test_ids
                .iter()
                .map(|t| AnswerTestId::parse(t).ok_or_else(|| RecordError::of("run test id")))
                .collect::<Result<Vec<_>, _>>()?,
            passed: self.passed,
            failed: self.failed,
            regressions: self.regressions,
            started_at: keys.started_at,
            finished_at: self.finished_at.map(Timestamp::from_millis),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRecord {
    pub check: String,
    pub passed: bool,
    pub detail: String,
}

/// One result of a run: the test's answer and checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestResultRecord {
    pub test_id: String,
    pub question: String,
    pub answer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_by: Option<String>,
    #[serde(default)]
    pub citations: Vec<CitationRecord>,
    pub answered: bool,
    pub passed: bool,
    pub checks: Vec<CheckRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_passed: Option<bool>,
}

impl TestResultRecord {
    pub fn of(r: &TestResult) -> Self {
        Self {
            test_id: r.test_id.as_str().to_owned(),
            question: r.question.clone(),
            answer: r.answer.clone(),
            generated_by: r.generated_by.map(|g| g.as_str().to_owned()),
            citations: r.citations.iter().map(CitationRecord::of).collect(),
            answered: r.answered,
            passed: r.passed,
            checks: r
                .checks
                .iter()
                .map(|c| CheckRecord { check: c.check.as_str().to_owned(), passed: c.passed, detail: c.detail.clone() })
                .collect(),
            previous_passed: r.previous_passed,
        }
    }

    pub fn into_result(self) -> Result<TestResult, RecordError> {
        let generated_by = match self.generated_by {
            None => None,
            Some(g) => Some(GeneratedBy::parse(&g).ok_or_else(|| RecordError::of("result generatedBy"))?),
        };
        Ok(TestResult {
            test_id: AnswerTestId::parse(&self.test_id).ok_or_else(|| RecordError::of("result test id"))?,
            question: self.question,
            answer: self.answer,
            generated_by,
            citations: self.citations.into_iter().map(CitationRecord::into_citation).collect::<Result<Vec<_>, _>>()?,
            answered: self.answered,
            passed: self.passed,
            checks: self
                .checks
                .into_iter()
                .map(|c| {
                    Ok(CheckResult {
                        check: CheckKind::parse(&c.check).ok_or_else(|| RecordError::of("result check"))?,
                        passed: c.passed,
                        detail: c.detail,
                    })
                })
                .collect::<Result<Vec<_>, RecordError>>()?,
            previous_passed: self.previous_passed,
        })
    }
}
