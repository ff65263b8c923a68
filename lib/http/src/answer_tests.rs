//! Answer tests (docs/api.md §21): the keyed routes `…/tests` and `…/test-runs` of Minds
//! (`/api/v1/minds/{mindId}/…`, api-minds) and chatbots (`/api/v1/chatbots/{chatbotId}/…`,
//! api-chatbots).

use crate::api_router::{ApiRouter, api_routes};
use crate::conversations::{CitationView, citation_view};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ChatWrite, ConversationsRead, JsonBody, Pagination, ParseId, PathId, PathIds};
use crate::state::ApiState;
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use lore_domain::answer_test::{AnswerTest, RawTestSpec, TestResult, TestRun};
use lore_domain::id::{AnswerTestId, ChatbotId, MindId, TestRunId};
use lore_domain::mind::Field;
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

impl ParseId for AnswerTestId {
    const WHAT: &'static str = "test";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

impl ParseId for TestRunId {
    const WHAT: &'static str = "run";
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

/// The outcome of a test's last finished run.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastResultView {
    pub run_id: String,
    pub passed: bool,
}

/// A pinned question and what its answer must be.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestView {
    #[schema(example = "test_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub question: String,
    /// The answer must cite at least one of them (none: not checked).
    pub expected_source_ids: Vec<String>,
    /// Each must occur in the answer (case-insensitive).
    pub must_contain: Vec<String>,
    /// None may occur in the answer (case-insensitive).
    pub must_not_contain: Vec<String>,
    /// The answer's `answered` must be this.
    pub expect_answered: bool,
    pub created_at: String,
    pub updated_at: String,
    /// Its result in the last finished run; `null` before its first.
    pub last_result: Option<LastResultView>,
}

impl From<AnswerTest> for TestView {
    fn from(t: AnswerTest) -> Self {
        Self {
            id: t.id.to_string(),
            question: t.spec.question,
            expected_source_ids: t.spec.expected_source_ids.iter().map(ToString::to_string).collect(),
            must_contain: t.spec.must_contain,
            must_not_contain: t.spec.must_not_contain,
            expect_answered: t.spec.expect_answered,
            created_at: t.created_at.to_string(),
            updated_at: t.updated_at.to_string(),
            last_result: t.last_result.map(|r| LastResultView { run_id: r.run_id.to_string(), passed: r.passed }),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestEnvelope {
    pub status: Status,
    pub test: TestView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestList {
    pub status: Status,
    /// In creation order (oldest first).
    pub tests: Vec<TestView>,
    pub pagination: PaginationView,
}

/// A run of answer tests.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    #[schema(example = "run_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    /// `queued`, `running` or `done`.
    #[schema(example = "done")]
    pub status: String,
    pub total: u32,
    pub passed: u32,
    pub failed: u32,
    /// Tests that passed in their previous run and failed in this one.
    pub regressions: u32,
    pub started_at: String,
    pub finished_at: Option<String>,
}

impl From<&TestRun> for RunView {
    fn from(r: &TestRun) -> Self {
        Self {
            id: r.id.to_string(),
            status: r.status.as_str().to_owned(),
            total: r.total(),
            passed: r.passed,
            failed: r.failed,
            regressions: r.regressions,
            started_at: r.started_at.to_string(),
            finished_at: r.finished_at.map(|t| t.to_string()),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunEnvelope {
    pub status: Status,
    pub run: RunView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunList {
    pub status: Status,
    /// Newest first.
    pub runs: Vec<RunView>,
    pub pagination: PaginationView,
}

/// One check of a result.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckView {
    /// `answered`, `sources`, `contains` or `notContains`.
    #[schema(example = "contains")]
    pub check: String,
    pub passed: bool,
    /// What was expected and what the answer did (or why there was no answer).
    pub detail: String,
}

/// A test's answer in the run and its checks.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultView {
    pub test_id: String,
    pub question: String,
    /// Empty when no answer was made (the failed check's `detail` says why).
    pub answer: String,
    /// `llm`, `extractive` or `correction`; `null` when no answer was made.
    pub generated_by: Option<String>,
    pub citations: Vec<CitationView>,
    pub answered: bool,
    pub passed: bool,
    pub checks: Vec<CheckView>,
    /// The test's result in its last finished run before this one; `null` for its first.
    pub previous_passed: Option<bool>,
}

fn result_view(r: TestResult, mind: bool) -> ResultView {
    ResultView {
        test_id: r.test_id.to_string(),
        question: r.question,
        answer: r.answer,
        generated_by: r.generated_by.map(|g| g.as_str().to_owned()),
        citations: r.citations.iter().map(|c| citation_view(c, mind)).collect(),
        answered: r.answered,
        passed: r.passed,
        checks: r
            .checks
            .into_iter()
            .map(|c| CheckView { check: c.check.as_str().to_owned(), passed: c.passed, detail: c.detail })
            .collect(),
        previous_passed: r.previous_passed,
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RunResultsEnvelope {
    pub status: Status,
    pub run: RunView,
    /// In the tests' creation order; empty until the run is `done`.
    pub results: Vec<ResultView>,
}

// ---- bodies ------------------------------------------------------------------------------------

/// A test (create) or the members to change (update; `null` empties a list).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestBody {
    /// 1-1,000 characters; required to create.
    #[schema(value_type = Option<String>, example = "Do you ship to France?")]
    #[serde(default)]
    pub question: Field<String>,
    /// At most 10 source ids of this chatbot or Mind; the answer must cite one of them.
    #[schema(value_type = Option<Vec<String>>)]
    #[serde(default)]
    pub expected_source_ids: Field<Vec<String>>,
    /// At most 10 strings of 1-200 characters, each to occur in the answer (case-insensitive).
    #[schema(value_type = Option<Vec<String>>)]
    #[serde(default)]
    pub must_contain: Field<Vec<String>>,
    /// At most 10 strings of 1-200 characters, none to occur in the answer.
    #[schema(value_type = Option<Vec<String>>)]
    #[serde(default)]
    pub must_not_contain: Field<Vec<String>>,
    /// Whether the answer must answer (cite the knowledge or a correction); default true.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub expect_answered: Field<bool>,
}

impl TestBody {
    fn into_raw(self) -> RawTestSpec {
        RawTestSpec {
            question: self.question,
            expected_source_ids: self.expected_source_ids,
            must_contain: self.must_contain,
            must_not_contain: self.must_not_contain,
            expect_answered: self.expect_answered,
        }
    }
}

/// Which tests to run; the body may be empty (every test).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartRun {
    /// Test ids of this chatbot or Mind; absent: every test.
    pub test_ids: Option<Vec<String>>,
}

// ---- the shared handlers -----------------------------------------------------------------------

fn test_envelope(t: AnswerTest) -> Json<TestEnvelope> {
    Json(TestEnvelope { status: Status::Success, test: t.into() })
}

async fn list_tests(
    s: &ApiState,
    auth: &Authed<ConversationsRead>,
    owner: SourceOwner,
    p: Pagination,
) -> Result<Json<TestList>, ApiError> {
    let page = s.app.list_tests(&auth.principal, &owner, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(TestList { status: Status::Success, tests: page.items.into_iter().map(Into::into).collect(), pagination }))
}

async fn list_runs(
    s: &ApiState,
    auth: &Authed<ConversationsRead>,
    owner: SourceOwner,
    p: Pagination,
) -> Result<Json<RunList>, ApiError> {
    let page = s.app.list_test_runs(&auth.principal, &owner, p.page).await?;
    let pagination = page.info().into();
    Ok(Json(RunList { status: Status::Success, runs: page.items.iter().map(Into::into).collect(), pagination }))
}

async fn get_run(
    s: &ApiState,
    auth: &Authed<ConversationsRead>,
    owner: SourceOwner,
    id: TestRunId,
) -> Result<Json<RunResultsEnvelope>, ApiError> {
    let mind = owner.is_mind();
    let (run, results) = s.app.get_test_run(&auth.principal, &owner, &id).await?;
    Ok(Json(RunResultsEnvelope {
        status: Status::Success,
        run: (&run).into(),
        results: results.into_iter().map(|r| result_view(r, mind)).collect(),
    }))
}

macro_rules! test_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal,
        tests: $tests:literal, test: $test:literal, runs: $runs:literal, run: $run:literal,
        ops: [$op_create:literal, $op_list:literal, $op_get:literal, $op_update:literal, $op_delete:literal,
            $op_start:literal, $op_runs:literal, $op_run:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new()
                    .routes(api_routes!(create_test, list_tests_of))
                    .routes(api_routes!(get_test, update_test, delete_test))
                    .routes(api_routes!(start_run, list_runs_of))
                    .routes(api_routes!(get_run_of))
            }

            /// Pin a question and what its answer must be. At most 500 tests a chatbot or Mind.
            #[utoipa::path(post, path = $tests, operation_id = $op_create, tag = "tests",
                params(($param = String, Path, description = $param_doc)),
                request_body = TestBody,
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 201, body = TestEnvelope),
                    (status = 400, description = "`validation_error` naming each refused member (a source id that \
                        is not one of this owner's), `invalid_json`", body = ErrorBody),
                    (status = 403, description = "`tests_limit_reached`: 500 tests already", body = ErrorBody),
                ))]
            async fn create_test(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                JsonBody(body): JsonBody<TestBody>,
            ) -> Result<(StatusCode, Json<TestEnvelope>), ApiError> {
                let t = s.app.create_test(&auth.principal, &$owner(owner), &body.into_raw()).await?;
                Ok((StatusCode::CREATED, test_envelope(t)))
            }

            /// The tests, in creation order, each with its last result.
            #[utoipa::path(get, path = $tests, operation_id = $op_list, tag = "tests",
                params(($param = String, Path, description = $param_doc), PageParams),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = TestList),
                    (status = 400, description = "`validation_error`", body = ErrorBody)))]
            async fn list_tests_of(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                p: Pagination,
            ) -> Result<Json<TestList>, ApiError> {
                list_tests(&s, &auth, $owner(owner), p).await
            }

            /// One test, with its last result.
            #[utoipa::path(get, path = $test, operation_id = $op_get, tag = "tests",
                params(($param = String, Path, description = $param_doc), ("testId" = String, Path)),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = TestEnvelope)))]
            async fn get_test(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, AnswerTestId>,
            ) -> Result<Json<TestEnvelope>, ApiError> {
                Ok(test_envelope(s.app.get_test(&auth.principal, &$owner(owner), &id).await?))
            }

            /// Change the members sent; `null` empties a list. The last result stays.
            #[utoipa::path(patch, path = $test, operation_id = $op_update, tag = "tests",
                params(($param = String, Path, description = $param_doc), ("testId" = String, Path)),
                request_body = TestBody,
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = TestEnvelope),
                    (status = 400, description = "`validation_error`, `invalid_json`", body = ErrorBody)))]
            async fn update_test(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, AnswerTestId>,
                JsonBody(body): JsonBody<TestBody>,
            ) -> Result<Json<TestEnvelope>, ApiError> {
                Ok(test_envelope(s.app.update_test(&auth.principal, &$owner(owner), &id, &body.into_raw()).await?))
            }

            /// Delete a test; the runs that answered it keep their results.
            #[utoipa::path(delete, path = $test, operation_id = $op_delete, tag = "tests",
                params(($param = String, Path, description = $param_doc), ("testId" = String, Path)),
                security(("bearer" = ["chat:write"])),
                responses((status = 200, body = Deleted)))]
            async fn delete_test(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, AnswerTestId>,
            ) -> Result<Json<Deleted>, ApiError> {
                s.app.delete_test(&auth.principal, &$owner(owner), &id).await?;
                Ok(Json(Deleted::new(id)))
            }

            /// Run the tests (`testIds`, default every test): each is answered exactly as a new
            /// conversation's first turn would be now (same retrieval, responder, corrections and
            /// settings), stored only in the run — no conversation, no analytics. Queued; poll
            /// `GET …/test-runs/{runId}`. Emits `tests.run.completed` when done.
            #[utoipa::path(post, path = $runs, operation_id = $op_start, tag = "tests",
                params(($param = String, Path, description = $param_doc)),
                request_body(content = StartRun, description = "May be empty"),
                security(("bearer" = ["chat:write"])),
                responses(
                    (status = 202, description = "Queued", body = RunEnvelope),
                    (status = 400, description = "`validation_error`: no test to run, or a `testIds` member that \
                        is not a test of this owner; `invalid_json`", body = ErrorBody),
                    (status = 409, description = "`run_in_progress`: a run is queued or running", body = ErrorBody),
                ))]
            async fn start_run(
                auth: Authed<ChatWrite>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                crate::conversations::OptionalJson(body): crate::conversations::OptionalJson<StartRun>,
            ) -> Result<(StatusCode, Json<RunEnvelope>), ApiError> {
                let run = s.app.start_test_run(&auth.principal, &$owner(owner), body.test_ids.as_deref()).await?;
                Ok((StatusCode::ACCEPTED, Json(RunEnvelope { status: Status::Success, run: (&run).into() })))
            }

            /// The runs, newest first (the last 50 finished ones are kept).
            #[utoipa::path(get, path = $runs, operation_id = $op_runs, tag = "tests",
                params(($param = String, Path, description = $param_doc), PageParams),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = RunList),
                    (status = 400, description = "`validation_error`", body = ErrorBody)))]
            async fn list_runs_of(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                p: Pagination,
            ) -> Result<Json<RunList>, ApiError> {
                list_runs(&s, &auth, $owner(owner), p).await
            }

            /// The run and, once `done`, each test's result with its checks and previous result.
            #[utoipa::path(get, path = $run, operation_id = $op_run, tag = "tests",
                params(($param = String, Path, description = $param_doc), ("runId" = String, Path)),
                security(("bearer" = ["conversations:read"])),
                responses((status = 200, body = RunResultsEnvelope)))]
            async fn get_run_of(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathIds(owner, id): PathIds<$id, TestRunId>,
            ) -> Result<Json<RunResultsEnvelope>, ApiError> {
                get_run(&s, &auth, $owner(owner), id).await
            }
        }
    };
}

test_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)",
    tests: "/api/v1/minds/{mindId}/tests",
    test: "/api/v1/minds/{mindId}/tests/{testId}",
    runs: "/api/v1/minds/{mindId}/test-runs",
    run: "/api/v1/minds/{mindId}/test-runs/{runId}",
    ops: ["create_mind_test", "list_mind_tests", "get_mind_test", "update_mind_test", "delete_mind_test",
        "run_mind_tests", "list_mind_test_runs", "get_mind_test_run"]);

test_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)",
    tests: "/api/v1/chatbots/{chatbotId}/tests",
    test: "/api/v1/chatbots/{chatbotId}/tests/{testId}",
    runs: "/api/v1/chatbots/{chatbotId}/test-runs",
    run: "/api/v1/chatbots/{chatbotId}/test-runs/{runId}",
    ops: ["create_chatbot_test", "list_chatbot_tests", "get_chatbot_test", "update_chatbot_test",
        "delete_chatbot_test", "run_chatbot_tests", "list_chatbot_test_runs", "get_chatbot_test_run"]);
