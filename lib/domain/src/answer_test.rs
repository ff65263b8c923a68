//! Answer tests (docs/api.md §21): an owner pins what an answer to a question must be (cite one
//! of some sources, contain or avoid some words, answer or not) and runs the tests after a
//! change, before visitors meet the difference.

use crate::conversation::{Citation, GeneratedBy, Message};
use crate::error::DomainError;
use crate::id::{AnswerTestId, SourceId, TestRunId, WorkspaceId};
use crate::mind::Field;
use crate::source::SourceOwner;
use crate::time::Timestamp;

/// Tests one chatbot or Mind may have.
pub const MAX_TESTS_PER_OWNER: u32 = 500;
pub const MAX_QUESTION_CHARS: usize = 1_000;
/// Members of `expectedSourceIds`, `mustContain` and `mustNotContain` at most.
pub const MAX_LIST: usize = 10;
pub const MAX_PHRASE_CHARS: usize = 200;

/// What a test asks and expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestSpec {
    /// 1..=1,000 characters once trimmed.
    pub question: String,
    /// When not empty, the answer must cite at least one of them.
    pub expected_source_ids: Vec<SourceId>,
    /// Each must occur in the answer (case-insensitive); 1..=200 characters each.
    pub must_contain: Vec<String>,
    /// None may occur in the answer (case-insensitive).
    pub must_not_contain: Vec<String>,
    /// The answer's `answered` must equal it.
    pub expect_answered: bool,
}

/// The outcome of a test's last finished run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastResult {
    pub run_id: TestRunId,
    pub passed: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerTest {
    pub id: AnswerTestId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub spec: TestSpec,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub last_result: Option<LastResult>,
}

impl AnswerTest {
    pub fn new(workspace_id: WorkspaceId, owner: SourceOwner, spec: TestSpec, now: Timestamp) -> Self {
        Self {
            id: AnswerTestId::generate(),
            workspace_id,
            owner,
            spec,
            created_at: now,
            updated_at: now,
            last_result: None,
        }
    }
}

/// The members of a create or PATCH body as the client sent them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawTestSpec {
    pub question: Field<String>,
    pub expected_source_ids: Field<Vec<String>>,
    pub must_contain: Field<Vec<String>>,
    pub must_not_contain: Field<Vec<String>>,
    pub expect_answered: Field<bool>,
}

/// A validated PATCH: `None` keeps the member.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestPatch {
    question: Option<String>,
    expected_source_ids: Option<Vec<SourceId>>,
    must_contain: Option<Vec<String>>,
    must_not_contain: Option<Vec<String>>,
    expect_answered: Option<bool>,
}

fn question(v: &Field<String>) -> Result<Option<String>, DomainError> {
    match v {
        Field::Absent => Ok(None),
        Field::Null => Err(DomainError::field("question", "is required")),
        Field::Value(s) => crate::text::bounded("question", s, MAX_QUESTION_CHARS).map(Some),
    }
}

fn source_ids(v: &Field<Vec<String>>) -> Result<Option<Vec<SourceId>>, DomainError> {
    const FIELD: &str = "expectedSourceIds";
    let ids = match v {
        Field::Absent => return Ok(None),
        Field::Null => return Ok(Some(Vec::new())),
        Field::Value(ids) => ids,
    };
    if ids.len() > MAX_LIST {
        return Err(DomainError::field(FIELD, format!("holds at most {MAX_LIST} source ids")));
    }
    let mut parsed: Vec<SourceId> = Vec::with_capacity(ids.len());
    for id in ids {
        let id = SourceId::parse(id).ok_or_else(|| DomainError::field(FIELD, format!("{id:?} is not a source id")))?;
        if !parsed.contains(&id) {
            parsed.push(id);
        }
    }
    Ok(Some(parsed))
}

fn phrases(field: &str, v: &Field<Vec<String>>) -> Result<Option<Vec<String>>, DomainError> {
    let list = match v {
        Field::Absent => return Ok(None),
        Field::Null => return Ok(Some(Vec::new())),
        Field::Value(list) => list,
    };
    if list.len() > MAX_LIST {
        return Err(DomainError::field(field, format!("holds at most {MAX_LIST} strings")));
    }
    let list = list.iter().map(|p| crate::text::bounded(field, p, MAX_PHRASE_CHARS)).collect::<Result<Vec<_>, _>>()?;
    Ok(Some(list))
}

fn expect_answered(v: &Field<bool>) -> Result<Option<bool>, DomainError> {
    match v {
        Field::Absent => Ok(None),
        Field::Null => Err(DomainError::field("expectAnswered", "must be true or false")),
        Field::Value(b) => Ok(Some(*b)),
    }
}

impl TestPatch {
    /// Every refused member at once.
    pub fn parse(raw: &RawTestSpec) -> Result<Self, DomainError> {
        let question = question(&raw.question);
        let expected_source_ids = source_ids(&raw.expected_source_ids);
        let must_contain = phrases("mustContain", &raw.must_contain);
        let must_not_contain = phrases("mustNotContain", &raw.must_not_contain);
        let expect_answered = expect_answered(&raw.expect_answered);
        match (question, expected_source_ids, must_contain, must_not_contain, expect_answered) {
            (Ok(question), Ok(expected_source_ids), Ok(must_contain), Ok(must_not_contain), Ok(expect_answered)) => {
                Ok(Self { question, expected_source_ids, must_contain, must_not_contain, expect_answered })
            }
            (a, b, c, d, e) => {
                Err(DomainError::merge([a.err(), b.err(), c.err(), d.err(), e.err()].into_iter().flatten())
                    .unwrap_or_else(|| DomainError::field("body", "is not a valid test")))
            }
        }
    }

    /// The spec of a new test: `question` is required, the rest defaults.
    pub fn into_spec(self) -> Result<TestSpec, DomainError> {
        let question = self.question.ok_or_else(|| DomainError::field("question", "is required"))?;
        Ok(TestSpec {
            question,
            expected_source_ids: self.expected_source_ids.unwrap_or_default(),
            must_contain: self.must_contain.unwrap_or_default(),
            must_not_contain: self.must_not_contain.unwrap_or_default(),
            expect_answered: self.expect_answered.unwrap_or(true),
        })
    }

    /// Source ids the patch names (the caller checks they are the owner's).
    pub fn source_ids(&self) -> &[SourceId] {
        self.expected_source_ids.as_deref().unwrap_or_default()
    }

    pub fn apply(self, spec: &mut TestSpec) {
        if let Some(q) = self.question {
            spec.question = q;
        }
        if let Some(ids) = self.expected_source_ids {
            spec.expected_source_ids = ids;
        }
        if let Some(p) = self.must_contain {
            spec.must_contain = p;
        }
        if let Some(p) = self.must_not_contain {
            spec.must_not_contain = p;
        }
        if let Some(b) = self.expect_answered {
            spec.expect_answered = b;
        }
    }
}

// ---- runs --------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    Queued,
    Running,
    Done,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Done => "done",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Queued, Self::Running, Self::Done].into_iter().find(|x| x.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRun {
    pub id: TestRunId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub status: RunStatus,
    /// The tests it answers, in their creation order.
    pub test_ids: Vec<AnswerTestId>,
    pub passed: u32,
    pub failed: u32,
    pub regressions: u32,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

impl TestRun {
    pub fn queued(workspace_id: WorkspaceId, owner: SourceOwner, test_ids: Vec<AnswerTestId>, now: Timestamp) -> Self {
        Self {
            id: TestRunId::generate(),
            workspace_id,
            owner,
            status: RunStatus::Queued,
            test_ids,
            passed: 0,
            failed: 0,
            regressions: 0,
            started_at: now,
            finished_at: None,
        }
    }

    pub fn total(&self) -> u32 {
        self.test_ids.len() as u32
    }

    /// Done, with the counts of `results`.
    pub fn finish(&mut self, results: &[TestResult], now: Timestamp) {
        self.status = RunStatus::Done;
        self.passed = results.iter().filter(|r| r.passed).count() as u32;
        self.failed = results.len() as u32 - self.passed;
        self.regressions = results.iter().filter(|r| r.is_regression()).count() as u32;
        self.finished_at = Some(now);
    }
}

/// One check of a test's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    Answered,
    Sources,
    Contains,
    NotContains,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::Sources => "sources",
            Self::Contains => "contains",
            Self::NotContains => "notContains",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Answered, Self::Sources, Self::Contains, Self::NotContains].into_iter().find(|x| x.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub check: CheckKind,
    pub passed: bool,
    /// For people: what was expected and what the answer did.
    pub detail: String,
}

/// A test's answer in a run, and its checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub test_id: AnswerTestId,
    pub question: String,
    /// Empty when no answer was made (the reason is in the failed check's detail).
    pub answer: String,
    pub generated_by: Option<GeneratedBy>,
    pub citations: Vec<Citation>,
    pub answered: bool,
    pub passed: bool,
    pub checks: Vec<CheckResult>,
    /// The test's result in its last finished run before this one.
    pub previous_passed: Option<bool>,
}

impl TestResult {
    /// Passed the last time, failed now.
    pub fn is_regression(&self) -> bool {
        self.previous_passed == Some(true) && !self.passed
    }

    /// `test`'s result for `answer` (an assistant message that was not stored).
    pub fn of_answer(test: &AnswerTest, answer: &Message) -> Self {
        let checks = check(&test.spec, answer);
        Self {
            test_id: test.id.clone(),
            question: test.spec.question.clone(),
            answer: answer.content.clone(),
            generated_by: answer.generated_by,
            citations: answer.citations.clone(),
            answered: answer.answered.unwrap_or(false),
            passed: checks.iter().all(|c| c.passed),
            checks,
            previous_passed: test.last_result.as_ref().map(|r| r.passed),
        }
    }

    /// `test` failed without an answer: `reason` says why (the model timed out, the run's time
    /// ran out).
    pub fn unanswered(test: &AnswerTest, reason: &str) -> Self {
        Self {
            test_id: test.id.clone(),
            question: test.spec.question.clone(),
            answer: String::new(),
            generated_by: None,
            citations: Vec::new(),
            answered: false,
            passed: false,
            checks: vec![CheckResult { check: CheckKind::Answered, passed: false, detail: reason.to_owned() }],
            previous_passed: test.last_result.as_ref().map(|r| r.passed),
        }
    }
}

fn quoted(list: &[&str]) -> String {
    list.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ")
}

/// The checks of `spec` against `answer`: `answered` always, the others when configured.
pub fn check(spec: &TestSpec, answer: &Message) -> Vec<CheckResult> {
    let mut checks = Vec::with_capacity(4);
    let answered = answer.answered.unwrap_or(false);
    let detail = match (spec.expect_answered, answered) {
        (true, true) => "answered, as expected".to_owned(),
        (true, false) => "expected an answer; none of the knowledge answered the question".to_owned(),
        (false, false) => "not answered, as expected".to_owned(),
        (false, true) => "expected no answer, but it was answered".to_owned(),
    };
    checks.push(CheckResult { check: CheckKind::Answered, passed: answered == spec.expect_answered, detail });
    if !spec.expected_source_ids.is_empty() {
        let cited: Vec<&SourceId> = answer.citations.iter().map(|c| &c.source_id).collect();
        let hit = spec.expected_source_ids.iter().find(|id| cited.contains(id));
        let detail = match hit {
            Some(id) => format!("cites {id}"),
            None if cited.is_empty() => "cites no source".to_owned(),
            None => {
                let cited: Vec<&str> = cited.iter().map(|id| id.as_str()).collect();
                format!("cites none of the expected sources (cited: {})", cited.join(", "))
            }
        };
        checks.push(CheckResult { check: CheckKind::Sources, passed: hit.is_some(), detail });
    }
    let text = answer.content.to_lowercase();
    if !spec.must_contain.is_empty() {
        let missing: Vec<&str> =
            spec.must_contain.iter().filter(|p| !text.contains(&p.to_lowercase())).map(String::as_str).collect();
        let detail = if missing.is_empty() {
            "contains every phrase".to_owned()
        } else {
            format!("missing {}", quoted(&missing))
        };
        checks.push(CheckResult { check: CheckKind::Contains, passed: missing.is_empty(), detail });
    }
    if !spec.must_not_contain.is_empty() {
        let found: Vec<&str> =
            spec.must_not_contain.iter().filter(|p| text.contains(&p.to_lowercase())).map(String::as_str).collect();
        let detail = if found.is_empty() {
            "contains none of the phrases".to_owned()
        } else {
            format!("contains {}", quoted(&found))
        };
        checks.push(CheckResult { check: CheckKind::NotContains, passed: found.is_empty(), detail });
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::ConversationId;
    use crate::source::SourceType;

    fn raw(question: &str) -> RawTestSpec {
        RawTestSpec { question: Field::Value(question.into()), ..RawTestSpec::default() }
    }

    fn answer(text: &str, sources: &[&SourceId]) -> Message {
        let citations = sources
            .iter()
            .enumerate()
            .map(|(i, id)| Citation {
                index: i as u32 + 1,
                source_id: (*id).clone(),
                source_name: "Shipping".into(),
                source_type: SourceType::Text,
                chunk_id: "c".into(),
                url: None,
                quote: "q".into(),
            })
            .collect();
        Message::assistant(
            ConversationId::generate(),
            text.into(),
            citations,
            GeneratedBy::Extractive,
            None,
            Timestamp::now(),
        )
    }

    fn test(spec: TestSpec) -> AnswerTest {
        AnswerTest::new(
            WorkspaceId::generate(),
            SourceOwner::Chatbot(crate::id::ChatbotId::generate()),
            spec,
            Timestamp::now(),
        )
    }

    #[test]
    fn a_new_test_needs_a_question_and_defaults_the_rest() {
        let spec = TestPatch::parse(&raw("  Do you ship to France? ")).unwrap().into_spec().unwrap();
        assert_eq!(spec.question, "Do you ship to France?");
        assert!(spec.expect_answered, "expectAnswered defaults to true");
        assert!(spec.must_contain.is_empty() && spec.expected_source_ids.is_empty());
        let e = TestPatch::parse(&RawTestSpec::default()).unwrap().into_spec().unwrap_err();
        assert!(e.fields.contains_key("question"), "{e:?}");
    }

    #[test]
    fn every_refused_member_is_reported_at_once() {
        let r = RawTestSpec {
            question: Field::Value("x".repeat(1_001)),
            expected_source_ids: Field::Value(vec!["cb_123".into()]),
            must_contain: Field::Value(vec!["".into()]),
            must_not_contain: Field::Value((0..11).map(|i| i.to_string()).collect()),
            expect_answered: Field::Null,
        };
        let e = TestPatch::parse(&r).unwrap_err();
        let fields: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(fields, ["expectAnswered", "expectedSourceIds", "mustContain", "mustNotContain", "question"]);
    }

    #[test]
    fn a_patch_changes_only_what_it_names_and_null_clears_a_list() {
        let src = SourceId::generate();
        let mut r = raw("Q?");
        r.must_contain = Field::Value(vec!["France".into()]);
        r.expected_source_ids = Field::Value(vec![src.to_string(), src.to_string()]);
        let mut spec = TestPatch::parse(&r).unwrap().into_spec().unwrap();
        assert_eq!(spec.expected_source_ids, vec![src], "a repeated id counts once");
        let patch =
            RawTestSpec { must_contain: Field::Null, expect_answered: Field::Value(false), ..Default::default() };
        TestPatch::parse(&patch).unwrap().apply(&mut spec);
        assert_eq!(spec.question, "Q?");
        assert!(spec.must_contain.is_empty());
        assert!(!spec.expect_answered);
    }

    #[test]
    fn checks_say_what_failed() {
        let (a, b) = (SourceId::generate(), SourceId::generate());
        let spec = TestSpec {
            question: "Do you ship to France?".into(),
            expected_source_ids: vec![a.clone()],
            must_contain: vec!["FRANCE".into(), "Italy".into()],
            must_not_contain: vec!["germany".into()],
            expect_answered: true,
        };
        let t = test(spec.clone());
        let good = TestResult::of_answer(&t, &answer("We ship to France and Italy in 3 days. [1]", &[&a]));
        assert!(good.passed, "{:?}", good.checks);
        assert_eq!(good.checks.len(), 4);
        let bad = TestResult::of_answer(&t, &answer("We ship to Germany and France. [1]", &[&b]));
        assert!(!bad.passed);
        let failed: Vec<(&str, &str)> =
            bad.checks.iter().filter(|c| !c.passed).map(|c| (c.check.as_str(), c.detail.as_str())).collect();
        assert_eq!(
            failed,
            [
                ("sources", format!("cites none of the expected sources (cited: {b})").as_str()),
                ("contains", "missing \"Italy\""),
                ("notContains", "contains \"germany\""),
            ]
        );
        let nothing = TestResult::of_answer(&t, &answer("I could not find that.", &[]));
        assert_eq!(nothing.checks[0].detail, "expected an answer; none of the knowledge answered the question");
        assert_eq!(nothing.checks[1].detail, "cites no source");
    }

    #[test]
    fn a_regression_is_a_pass_then_a_fail_and_a_run_counts_them() {
        let mut t = test(TestPatch::parse(&raw("Q?")).unwrap().into_spec().unwrap());
        t.last_result = Some(LastResult { run_id: TestRunId::generate(), passed: true });
        let failed = TestResult::unanswered(&t, "the language model did not answer");
        assert!(failed.is_regression());
        t.last_result = None;
        let first = TestResult::unanswered(&t, "x");
        assert!(!first.is_regression(), "no previous result: not a regression");
        let mut run = TestRun::queued(
            t.workspace_id.clone(),
            t.owner.clone(),
            vec![t.id.clone(), t.id.clone()],
            Timestamp::now(),
        );
        run.finish(&[failed, first], Timestamp::now());
        assert_eq!((run.total(), run.passed, run.failed, run.regressions), (2, 0, 2, 1));
        assert_eq!(run.status, RunStatus::Done);
    }
}
