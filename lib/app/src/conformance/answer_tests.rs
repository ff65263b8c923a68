//! Answer tests and their runs (`AnswerTestStore`): the per-owner limit, creation order, one
//! workspace only, a run at a time (an abandoned one excepted), results in order with each test's
//! last result, the newest runs kept, and everything gone with the owner.

use crate::ports::{AnswerTestStore, ChatbotStore, RunStart, TestInsert, WorkspaceStore};
use lore_domain::Timestamp;
use lore_domain::answer_test::{AnswerTest, RunStatus, TestResult, TestRun, TestSpec};
use lore_domain::id::{AnswerTestId, WorkspaceId};
use lore_domain::pagination::PageRequest;
use lore_domain::source::SourceOwner;
use std::sync::Arc;

/// The test store and what its owners need to exist.
#[derive(Clone)]
pub struct TestStores {
    pub workspaces: Arc<dyn WorkspaceStore>,
    pub chatbots: Arc<dyn ChatbotStore>,
    pub tests: Arc<dyn AnswerTestStore>,
}

fn spec(question: &str) -> TestSpec {
    TestSpec {
        question: question.into(),
        expected_source_ids: Vec::new(),
        must_contain: vec!["France".into()],
        must_not_contain: Vec::new(),
        expect_answered: true,
    }
}

async fn owner(stores: &TestStores, name: &str) -> (lore_domain::id::WorkspaceId, SourceOwner) {
    let ws = super::workspace(name);
    stores.workspaces.insert_workspace(&ws).await.unwrap();
    let bot = super::chatbot(&ws.id, "bot", 1_700_000_000_000);
    stores.chatbots.insert_chatbot(&bot).await.unwrap();
    (ws.id, SourceOwner::Chatbot(bot.id))
}

pub async fn answer_tests(stores: &TestStores, unique: &str) {
    let store = &stores.tests;
    let (ws, bot) = owner(stores, &format!("{unique}-tests")).await;
    let (other_ws, _) = owner(stores, &format!("{unique}-other")).await;
    let mut made = Vec::new();
    for (i, q) in ["First?", "Second?", "Third?"].iter().enumerate() {
        let t = AnswerTest::new(ws.clone(), bot.clone(), spec(q), Timestamp::from_millis(1_000 + i as i64));
        assert_eq!(store.insert_test(&t, 3).await.unwrap(), TestInsert::Inserted, "{q}");
        made.push(t);
    }
    let extra = AnswerTest::new(ws.clone(), bot.clone(), spec("Fourth?"), Timestamp::from_millis(2_000));
    assert_eq!(store.insert_test(&extra, 3).await.unwrap(), TestInsert::LimitReached, "the limit counts");

    let page = store.list_tests(&ws, &bot, PageRequest::new(1, 2)).await.unwrap();
    assert_eq!(page.total, 3);
    let questions: Vec<&str> = page.items.iter().map(|t| t.spec.question.as_str()).collect();
    assert_eq!(questions, ["First?", "Second?"], "creation order");
    assert_eq!(store.get_test(&ws, &bot, &made[0].id).await.unwrap().as_ref(), Some(&made[0]), "stored as given");
    assert!(store.get_test(&other_ws, &bot, &made[0].id).await.unwrap().is_none(), "another workspace sees nothing");

    // A run at a time.
    let ids: Vec<_> = made.iter().map(|t| t.id.clone()).collect();
    let run = TestRun::queued(ws.clone(), bot.clone(), ids.clone(), Timestamp::now());
    let long_ago = Timestamp::from_millis(0);
    assert_eq!(store.start_run(&run, long_ago).await.unwrap(), RunStart::Started);
    let second = TestRun::queued(ws.clone(), bot.clone(), ids.clone(), Timestamp::now());
    assert_eq!(store.start_run(&second, long_ago).await.unwrap(), RunStart::InProgress, "one at a time");
    let mut running = run.clone();
    running.status = RunStatus::Running;
    assert!(store.mark_running(&running, long_ago).await.unwrap(), "a queued run is claimed");
    assert_eq!(store.get_run(&ws, &bot, &run.id).await.unwrap().unwrap().status, RunStatus::Running);

    // A test deleted during the run: its result is kept in the run, no test is brought back.
    assert!(store.delete_test(&ws, &bot, &made[2].id).await.unwrap());
    assert!(!store.delete_test(&ws, &bot, &made[2].id).await.unwrap(), "gone already");
    let results = vec![
        TestResult::unanswered(&made[0], "first reason"),
        TestResult::unanswered(&made[1], "second reason"),
        TestResult::unanswered(&made[2], "third reason"),
    ];
    let mut done = running.clone();
    done.finish(&results, Timestamp::now());
    store.finish_run(&done, &results, 50).await.unwrap();
    assert_eq!(store.get_run(&ws, &bot, &run.id).await.unwrap().as_ref(), Some(&done));
    assert_eq!(store.run_results(&ws, &bot, &run.id).await.unwrap(), results, "in order, as given");
    assert!(store.run_results(&other_ws, &bot, &run.id).await.unwrap().is_empty(), "another workspace reads none");
    let tests = store.all_tests(&ws, &bot).await.unwrap();
    assert_eq!(tests.len(), 2, "the deleted test stays deleted");
    assert!(tests.iter().all(|t| t.last_result.as_ref().is_some_and(|r| r.run_id == run.id && !r.passed)));

    // An edit keeps the last result; room for a new test again.
    let mut edited = tests[0].clone();
    edited.spec.question = "First, edited?".into();
    edited.updated_at = Timestamp::now();
    assert!(store.update_test(&edited).await.unwrap());
    assert_eq!(store.get_test(&ws, &bot, &edited.id).await.unwrap().unwrap(), edited);
    assert_eq!(store.insert_test(&extra, 3).await.unwrap(), TestInsert::Inserted, "a delete frees a place");

    // The next run may start; an abandoned one does not block.
    let next = TestRun::queued(ws.clone(), bot.clone(), ids.clone(), Timestamp::now());
    assert_eq!(store.start_run(&next, long_ago).await.unwrap(), RunStart::Started, "the finished run freed the owner");
    let after = TestRun::queued(ws.clone(), bot.clone(), ids.clone(), Timestamp::now());
    let later = Timestamp::from_millis(Timestamp::now().millis() + 60_000);
    assert_eq!(store.start_run(&after, later).await.unwrap(), RunStart::Started, "an abandoned run does not block");
    let mut finished = after.clone();
    finished.finish(&[], Timestamp::now());
    store.finish_run(&finished, &[], 1).await.unwrap();
    let runs = store.list_runs(&ws, &bot, PageRequest::default()).await.unwrap();
    let listed: Vec<_> = runs.items.iter().map(|r| (r.id.clone(), r.status)).collect();
    assert_eq!(
        listed,
        [(after.id.clone(), RunStatus::Done), (next.id.clone(), RunStatus::Queued)],
        "newest first; one finished run kept, the unfinished one too"
    );

    store.delete_owner_tests(&ws, &bot).await.unwrap();
    assert!(store.all_tests(&ws, &bot).await.unwrap().is_empty());
    assert_eq!(store.list_runs(&ws, &bot, PageRequest::default()).await.unwrap().total, 0);
}

/// Two runs started at once: exactly one starts.
pub async fn test_run_race(stores: &TestStores, unique: &str) {
    let (ws, bot) = owner(stores, &format!("{unique}-race")).await;
    let t = AnswerTest::new(ws.clone(), bot.clone(), spec("Q?"), Timestamp::now());
    stores.tests.insert_test(&t, 500).await.unwrap();
    let starts = (0..4).map(|_| {
        let store = stores.tests.clone();
        let run = TestRun::queued(ws.clone(), bot.clone(), vec![t.id.clone()], Timestamp::now());
        tokio::spawn(async move { store.start_run(&run, Timestamp::from_millis(0)).await.unwrap() })
    });
    let outcomes: Vec<RunStart> = futures::future::join_all(starts).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(outcomes.iter().filter(|o| **o == RunStart::Started).count(), 1, "{outcomes:?}");
}

/// Three tests of a new owner, in creation order.
async fn three_tests(stores: &TestStores, unique: &str) -> (WorkspaceId, SourceOwner, Vec<AnswerTest>) {
    let (ws, bot) = owner(stores, unique).await;
    let mut made = Vec::new();
    for (i, q) in ["One?", "Two?", "Three?"].iter().enumerate() {
        let t = AnswerTest::new(ws.clone(), bot.clone(), spec(q), Timestamp::from_millis(1_000 + i as i64));
        assert_eq!(stores.tests.insert_test(&t, 500).await.unwrap(), TestInsert::Inserted);
        made.push(t);
    }
    (ws, bot, made)
}

/// Now, a few milliseconds after the last call: each run's start is its own.
async fn tick() -> Timestamp {
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    Timestamp::now()
}

fn ids(tests: &[AnswerTest]) -> Vec<AnswerTestId> {
    tests.iter().map(|t| t.id.clone()).collect()
}

/// `run` as a worker claims it at `at`.
fn claimed(run: &TestRun, at: Timestamp) -> TestRun {
    let mut r = run.clone();
    r.status = RunStatus::Running;
    r.started_at = at;
    r
}

/// `mark_running` is a claim: of two claims of a run exactly one wins; a done run, a run running
/// under a live worker and a run superseded by one started over it are not claimed; a run whose
/// worker died is claimed again.
pub async fn test_run_claim(stores: &TestStores, unique: &str) {
    let store = &stores.tests;
    let (ws, bot, made) = three_tests(stores, &format!("{unique}-claim")).await;
    let long_ago = Timestamp::from_millis(0);
    let run = TestRun::queued(ws.clone(), bot.clone(), ids(&made), Timestamp::now());
    assert_eq!(store.start_run(&run, long_ago).await.unwrap(), RunStart::Started);
    let claims = (0..2).map(|_| {
        let (store, r) = (store.clone(), claimed(&run, Timestamp::now()));
        tokio::spawn(async move { store.mark_running(&r, long_ago).await.unwrap() })
    });
    let won: Vec<bool> = futures::future::join_all(claims).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(won.iter().filter(|w| **w).count(), 1, "exactly one claim wins: {won:?}");
    let stored = store.get_run(&ws, &bot, &run.id).await.unwrap().unwrap();
    assert_eq!(stored.status, RunStatus::Running);
    assert!(
        !store.mark_running(&claimed(&run, Timestamp::now()), long_ago).await.unwrap(),
        "running under a live worker: not claimed"
    );
    // Its worker died: once the run started before the bound, another worker claims it, and the
    // claim restarts its clock.
    let later = Timestamp::from_millis(Timestamp::now().millis() + 60_000);
    let again = claimed(&run, Timestamp::now());
    assert!(store.mark_running(&again, later).await.unwrap(), "a run whose worker died is claimed again");
    assert_eq!(store.get_run(&ws, &bot, &run.id).await.unwrap().unwrap().started_at, again.started_at);

    // Superseded: a run started over it (it was taken as abandoned: claimed before `bound`) holds
    // the owner.
    let bound = tick().await;
    let over = TestRun::queued(ws.clone(), bot.clone(), ids(&made), tick().await);
    assert_eq!(store.start_run(&over, bound).await.unwrap(), RunStart::Started, "started over the abandoned one");
    assert!(!store.mark_running(&claimed(&run, Timestamp::now()), bound).await.unwrap(), "a superseded run never runs");
    assert!(store.mark_running(&claimed(&over, tick().await), bound).await.unwrap(), "the new one runs");

    // A done run is not claimed (a repeated delivery).
    let mut done = claimed(&over, Timestamp::now());
    done.finish(&[], Timestamp::now());
    store.finish_run(&done, &[], 50).await.unwrap();
    assert!(!store.mark_running(&claimed(&over, Timestamp::now()), later).await.unwrap(), "done: not claimed");
    assert_eq!(store.get_run(&ws, &bot, &over.id).await.unwrap().unwrap().status, RunStatus::Done);
}

/// A run finished again (a repeated delivery after a test was deleted) keeps only its new
/// results; `end_run` ends a run without touching the tests' last results and frees the owner;
/// only finished runs count toward the runs kept.
pub async fn test_run_end(stores: &TestStores, unique: &str) {
    let store = &stores.tests;
    let (ws, bot, made) = three_tests(stores, &format!("{unique}-end")).await;
    let long_ago = Timestamp::from_millis(0);

    // Finished with 3 results, then again with 2.
    let first = TestRun::queued(ws.clone(), bot.clone(), ids(&made), tick().await);
    assert_eq!(store.start_run(&first, long_ago).await.unwrap(), RunStart::Started);
    let three: Vec<TestResult> = made.iter().map(|t| TestResult::unanswered(t, "first")).collect();
    let mut done = first.clone();
    done.finish(&three, Timestamp::now());
    store.finish_run(&done, &three, 50).await.unwrap();
    let two = three[..2].to_vec();
    done.finish(&two, Timestamp::now());
    store.finish_run(&done, &two, 50).await.unwrap();
    assert_eq!(store.run_results(&ws, &bot, &first.id).await.unwrap(), two, "the earlier third result is gone");
    let last_of = |tests: &[AnswerTest]| -> Vec<_> { tests.iter().map(|t| t.last_result.clone()).collect() };
    let before = last_of(&store.all_tests(&ws, &bot).await.unwrap());
    assert!(before[0].as_ref().is_some_and(|r| r.run_id == first.id));

    // Ended with a reason: done, its results stored, no test's last result changed, the owner free.
    let lost = TestRun::queued(ws.clone(), bot.clone(), ids(&made), tick().await);
    assert_eq!(store.start_run(&lost, long_ago).await.unwrap(), RunStart::Started);
    let reasons: Vec<TestResult> = made.iter().map(|t| TestResult::unanswered(t, "the worker stopped")).collect();
    let mut ended = lost.clone();
    ended.finish(&reasons, Timestamp::now());
    let mut stale = ended.clone();
    stale.started_at = Timestamp::from_millis(lost.started_at.millis() - 1);
    assert!(!store.end_run(&stale, &reasons, 50).await.unwrap(), "claimed again since it was read: not ended");
    assert!(store.end_run(&ended, &reasons, 50).await.unwrap());
    assert!(!store.end_run(&ended, &reasons, 50).await.unwrap(), "done already");
    assert_eq!(store.get_run(&ws, &bot, &lost.id).await.unwrap().as_ref(), Some(&ended));
    assert_eq!(store.run_results(&ws, &bot, &lost.id).await.unwrap(), reasons);
    assert_eq!(last_of(&store.all_tests(&ws, &bot).await.unwrap()), before, "no last result changed");
    let next = TestRun::queued(ws.clone(), bot.clone(), ids(&made), tick().await);
    assert_eq!(store.start_run(&next, long_ago).await.unwrap(), RunStart::Started, "the ended run freed the owner");

    // Only finished runs count toward those kept: `next` stays queued, a newer run is started
    // over it and finished with keep 3 → the 3 finished runs stay.
    let later = Timestamp::from_millis(Timestamp::now().millis() + 60_000);
    let newest = TestRun::queued(ws.clone(), bot.clone(), ids(&made), tick().await);
    assert_eq!(store.start_run(&newest, later).await.unwrap(), RunStart::Started);
    let mut newest_done = newest.clone();
    newest_done.finish(&[], Timestamp::now());
    store.finish_run(&newest_done, &[], 3).await.unwrap();
    let listed: Vec<_> = store.list_runs(&ws, &bot, PageRequest::default()).await.unwrap().items;
    let listed: Vec<_> = listed.iter().map(|r| (r.id.clone(), r.status)).collect();
    assert_eq!(
        listed,
        [
            (newest.id.clone(), RunStatus::Done),
            (next.id.clone(), RunStatus::Queued),
            (lost.id.clone(), RunStatus::Done),
            (first.id.clone(), RunStatus::Done),
        ],
        "3 finished runs kept beside the unfinished one"
    );
}
