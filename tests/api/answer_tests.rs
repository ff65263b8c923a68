//! Answer tests (docs/api.md §21) over HTTP, on whichever backend the run uses, for chatbots and
//! Minds alike: tests pinned and validated, runs answered like a first turn without leaving a
//! conversation or an analytics count, a regression found after a source is deleted, the
//! `tests.run.completed` event, one run at a time (409), a model that never answers (every test
//! fails with the reason, in bounded time), the limit of 500, scopes and other workspaces.

use crate::conversations::ModelStub;
use crate::support::{TestApp, expect_error, parts};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const REFUNDS: &str = "Refunds are paid within fourteen days of the return reaching our warehouse. \
    Shipping costs are not refunded.";
const SHIPPING: &str = "Parcels to France ship in two days. Parcels to Germany ship in three days.";

/// A chatbot (`c`) or a Mind (`m`) with ready text sources; their ids in order.
async fn owner_with(t: &TestApp, kind: &str, texts: &[&str]) -> (String, Vec<String>) {
    let (base, knowledge) = match kind {
        "c" => {
            let bot = t.chatbot().await;
            (format!("/api/v1/chatbots/{bot}"), "sources")
        }
        _ => {
            let mind = t.mind(&t.dev_key, json!({"name": "Ada"})).await["id"].as_str().unwrap().to_owned();
            (format!("/api/v1/minds/{mind}"), "knowledge")
        }
    };
    let mut ids = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let body = json!({"type": "text", "name": format!("doc{i}.md"), "content": text});
        let (status, created) = post(t, &t.dev_key, &format!("{base}/{knowledge}"), body).await;
        assert_eq!(status, 201, "{created}");
        let id = created["source"]["id"].as_str().unwrap().to_owned();
        if kind == "c" {
            let bot = base.rsplit('/').next().unwrap();
            t.process(bot, &id).await;
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (_, s) = get(t, &t.dev_key, &format!("{base}/{knowledge}/{id}")).await;
            if s["source"]["status"] == "ready" {
                break;
            }
            assert!(Instant::now() < deadline && s["source"]["status"] != "error", "{s}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        ids.push(id);
    }
    (base, ids)
}

async fn post(t: &TestApp, key: &str, path: &str, body: Value) -> (u16, Value) {
    parts(t.req(Method::POST, path, key).json(&body).send().await.unwrap()).await
}

async fn get(t: &TestApp, key: &str, path: &str) -> (u16, Value) {
    parts(t.req(Method::GET, path, key).send().await.unwrap()).await
}

/// Polls the run until it is done (bounded).
async fn finished(t: &TestApp, base: &str, run: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let (status, body) = get(t, &t.dev_key, &format!("{base}/test-runs/{run}")).await;
        assert_eq!(status, 200, "{body}");
        if body["run"]["status"] == "done" {
            return body;
        }
        assert!(Instant::now() < deadline, "the run never finished: {body}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

fn check<'a>(result: &'a Value, name: &str) -> &'a Value {
    result["checks"].as_array().unwrap().iter().find(|c| c["check"] == name).unwrap_or_else(|| panic!("{result}"))
}

#[tokio::test]
async fn a_run_answers_like_a_first_turn_stores_nothing_and_finds_the_regression_after_a_delete() {
    let t = TestApp::spawn().await;
    for kind in ["c", "m"] {
        let (base, sources) = owner_with(&t, kind, &[REFUNDS, SHIPPING]).await;
        let (refunds, shipping) = (&sources[0], &sources[1]);

        // Validation: each refused member named; a source of another owner is refused.
        let bad = json!({"question": "", "mustContain": vec!["x"; 11], "expectedSourceIds": ["src_nope"]});
        let e = expect_error(
            t.req(Method::POST, &format!("{base}/tests"), &t.dev_key).json(&bad).send().await.unwrap(),
            400,
            "validation_error",
        )
        .await;
        for field in ["question", "mustContain", "expectedSourceIds"] {
            assert!(e["error"]["details"]["fields"][field].is_string(), "{field}: {e}");
        }
        let (other_base, other_sources) = owner_with(&t, kind, &[SHIPPING]).await;
        let foreign = json!({"question": "Q?", "expectedSourceIds": [other_sources[0]]});
        let e = expect_error(
            t.req(Method::POST, &format!("{base}/tests"), &t.dev_key).json(&foreign).send().await.unwrap(),
            400,
            "validation_error",
        )
        .await;
        assert!(e["error"]["details"]["fields"]["expectedSourceIds"].is_string(), "{e}");
        let none = t.req(Method::POST, &format!("{other_base}/test-runs"), &t.dev_key).send().await.unwrap();
        expect_error(none, 400, "validation_error").await;

        let (status, refund_test) = post(
            &t,
            &t.dev_key,
            &format!("{base}/tests"),
            json!({
            "question": "How long do refunds take?", "expectedSourceIds": [refunds],
            "mustContain": ["FOURTEEN DAYS"], "mustNotContain": ["Germany"]}),
        )
        .await;
        assert_eq!(status, 201, "{refund_test}");
        let refund_test = refund_test["test"].clone();
        assert_eq!(refund_test["expectAnswered"], true, "default");
        assert_eq!(refund_test["lastResult"], Value::Null);
        assert!(refund_test["id"].as_str().unwrap().starts_with("test_"));
        let (_, shipping_test) = post(
            &t,
            &t.dev_key,
            &format!("{base}/tests"),
            json!({
            "question": "How do parcels to France ship?", "expectedSourceIds": [shipping]}),
        )
        .await;
        let (_, unknown_test) = post(
            &t,
            &t.dev_key,
            &format!("{base}/tests"),
            json!({
            "question": "Do you repair bicycles?", "expectAnswered": false}),
        )
        .await;
        let ids: Vec<String> = [&refund_test, &shipping_test["test"], &unknown_test["test"]]
            .iter()
            .map(|v| v["id"].as_str().unwrap().to_owned())
            .collect();
        let (_, listed) = get(&t, &t.dev_key, &format!("{base}/tests?limit=2")).await;
        assert_eq!(listed["pagination"]["total"], 3, "{listed}");
        assert_eq!(listed["tests"][0]["id"], ids[0].as_str(), "creation order");

        // The first run: all pass, no previous result.
        let (status, started) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
        assert_eq!(status, 202, "{started}");
        assert_eq!(started["run"]["status"], "queued");
        assert_eq!(started["run"]["total"], 3);
        let run = started["run"]["id"].as_str().unwrap().to_owned();
        let first = finished(&t, &base, &run).await;
        let results = first["results"].as_array().unwrap();
        let order: Vec<&str> = results.iter().map(|r| r["testId"].as_str().unwrap()).collect();
        assert_eq!(order, ids.iter().map(String::as_str).collect::<Vec<_>>(), "results in creation order");
        for r in results {
            assert_eq!(r["passed"], true, "{r}");
            assert_eq!(r["previousPassed"], Value::Null, "{r}");
        }
        assert_eq!(results[0]["generatedBy"], "extractive");
        assert_eq!(results[0]["citations"][0]["sourceId"], refunds.as_str());
        assert_eq!(results[2]["answered"], false, "nothing about bicycles: not answered, as the test expects");
        assert_eq!((first["run"]["passed"].as_u64(), first["run"]["regressions"].as_u64()), (Some(3), Some(0)));
        assert!(first["run"]["finishedAt"].is_string());

        // Stored nowhere else: no conversation, no analytics count.
        let (_, conversations) = get(&t, &t.dev_key, &format!("{base}/conversations")).await;
        assert_eq!(conversations["pagination"]["total"], 0, "{conversations}");
        let (_, analytics) = get(&t, &t.dev_key, &format!("{base}/analytics")).await;
        assert_eq!(analytics["analytics"]["totals"]["messages"], 0, "{analytics}");
        let (_, read) = get(&t, &t.dev_key, &format!("{base}/tests/{}", ids[0])).await;
        assert_eq!(read["test"]["lastResult"], json!({"runId": run, "passed": true}));

        // The refunds source goes: its test regresses, the others do not.
        let knowledge = if kind == "c" { "sources" } else { "knowledge" };
        let res = t.req(Method::DELETE, &format!("{base}/{knowledge}/{refunds}"), &t.dev_key).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let (status, again) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
        assert_eq!(status, 202, "{again}");
        let second = finished(&t, &base, again["run"]["id"].as_str().unwrap()).await;
        assert_eq!(
            (second["run"]["failed"].as_u64(), second["run"]["regressions"].as_u64()),
            (Some(1), Some(1)),
            "{second}"
        );
        let regressed = &second["results"][0];
        assert_eq!((regressed["passed"].as_bool(), regressed["previousPassed"].as_bool()), (Some(false), Some(true)));
        assert_eq!(check(regressed, "sources")["passed"], false, "{regressed}");
        assert_eq!(check(regressed, "contains")["passed"], false, "{regressed}");
        assert!(check(regressed, "contains")["detail"].as_str().unwrap().contains("FOURTEEN DAYS"), "{regressed}");
        assert_eq!(second["results"][1]["passed"], true);

        // Only some tests; the runs newest first.
        let (status, only) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({"testIds": [ids[1]]})).await;
        assert_eq!(status, 202, "{only}");
        assert_eq!(only["run"]["total"], 1);
        finished(&t, &base, only["run"]["id"].as_str().unwrap()).await;
        let (_, runs) = get(&t, &t.dev_key, &format!("{base}/test-runs")).await;
        assert_eq!(runs["pagination"]["total"], 3);
        assert_eq!(runs["runs"][0]["id"], only["run"]["id"]);
        let stranger = json!({"testIds": ["test_01arz3ndektsv4rrffq69g5fav"]});
        let res = t.req(Method::POST, &format!("{base}/test-runs"), &t.dev_key).json(&stranger).send().await.unwrap();
        expect_error(res, 400, "validation_error").await;

        // Edit and delete.
        let patch = json!({"mustContain": null, "question": "How long do refunds take, please?"});
        let (status, edited) = parts(
            t.req(Method::PATCH, &format!("{base}/tests/{}", ids[0]), &t.dev_key).json(&patch).send().await.unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{edited}");
        assert_eq!(edited["test"]["mustContain"], json!([]));
        assert_eq!(edited["test"]["lastResult"]["passed"], false, "an edit keeps the last result");
        let res = t.req(Method::DELETE, &format!("{base}/tests/{}", ids[2]), &t.dev_key).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let res = t.req(Method::GET, &format!("{base}/tests/{}", ids[2]), &t.dev_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;

        // Another workspace sees nothing; a key without chat:write cannot add.
        let ws = t.workspace(&format!("other-{kind}"), Default::default()).await;
        let stranger_key = t.key(&ws, "all").await;
        let res = t.req(Method::GET, &format!("{base}/tests"), &stranger_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
        let res = t.req(Method::GET, &format!("{base}/test-runs/{run}"), &stranger_key).send().await.unwrap();
        expect_error(res, 404, "not_found").await;
        let reader = t.key("default", "conversations:read").await;
        let res = t
            .req(Method::POST, &format!("{base}/tests"), &reader)
            .json(&json!({"question": "Q?"}))
            .send()
            .await
            .unwrap();
        expect_error(res, 403, "insufficient_scope").await;
        let (status, _) = get(&t, &reader, &format!("{base}/tests")).await;
        assert_eq!(status, 200, "reading needs conversations:read");
    }
    let completed = t.event_types().await.iter().filter(|e| *e == "tests.run.completed").count();
    assert_eq!(completed, 6, "one event per finished run");
    t.stop().await;
}

#[tokio::test]
async fn a_model_that_never_answers_fails_every_test_with_the_reason_and_a_second_run_is_refused() {
    let stub = ModelStub::start("Refunds take fourteen days [1].").await;
    let responder = stub.responder_with(|c| c.idle_timeout = Duration::from_millis(300));
    let t = TestApp::spawn_with(lore::compose::Overrides { responder: Some(responder), ..Default::default() }).await;
    let (base, _) = owner_with(&t, "c", &[REFUNDS]).await;
    for i in 0..6 {
        let (status, body) = post(
            &t,
            &t.dev_key,
            &format!("{base}/tests"),
            json!({"question": format!("How long do refunds take ({i})?")}),
        )
        .await;
        assert_eq!(status, 201, "{body}");
    }
    stub.stall();
    let started = Instant::now();
    let (status, run) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
    assert_eq!(status, 202, "{run}");
    let res = t.req(Method::POST, &format!("{base}/test-runs"), &t.dev_key).send().await.unwrap();
    expect_error(res, 409, "run_in_progress").await;
    let done = finished(&t, &base, run["run"]["id"].as_str().unwrap()).await;
    assert!(started.elapsed() < Duration::from_secs(60), "bounded: {:?}", started.elapsed());
    assert_eq!((done["run"]["failed"].as_u64(), done["run"]["passed"].as_u64()), (Some(6), Some(0)), "{done}");
    let details: Vec<&str> =
        done["results"].as_array().unwrap().iter().map(|r| r["checks"][0]["detail"].as_str().unwrap()).collect();
    assert!(
        details.iter().all(|d| d.starts_with("no answer: the language model did not answer")
            || d.starts_with("not asked: the language model failed 3 times in a row")),
        "{details:?}"
    );
    assert!(details.iter().any(|d| d.starts_with("not asked")), "the run stops asking a model that fails: {details:?}");
    // The next run may start once this one is done.
    let (status, _) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
    assert_eq!(status, 202);
    t.stop().await;
}

#[tokio::test]
async fn a_run_ends_at_its_time_bound_with_the_reason() {
    let stub = ModelStub::start("Refunds take fourteen days [1].").await;
    let responder = stub.responder_with(|c| c.idle_timeout = Duration::from_secs(30));
    let t = TestApp::spawn_with(lore::compose::Overrides {
        responder: Some(responder),
        test_run_timeout: Some(Duration::from_secs(2)),
        ..Default::default()
    })
    .await;
    let (base, _) = owner_with(&t, "m", &[REFUNDS]).await;
    for i in 0..4 {
        post(&t, &t.dev_key, &format!("{base}/tests"), json!({"question": format!("Refunds ({i})?")})).await;
    }
    stub.stall();
    let (_, run) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
    let done = finished(&t, &base, run["run"]["id"].as_str().unwrap()).await;
    for r in done["results"].as_array().unwrap() {
        assert_eq!(r["checks"][0]["detail"], "the run's 2 s ran out before this test was answered", "{r}");
        assert_eq!(r["answer"], "");
    }
    t.stop().await;
}

#[tokio::test]
async fn an_owner_has_at_most_500_tests() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let path = format!("/api/v1/chatbots/{bot}/tests");
    let sends = (0..500).map(|i| {
        let req = t.req(Method::POST, &path, &t.dev_key).json(&json!({"question": format!("Question {i}?")}));
        async move { req.send().await.unwrap().status().as_u16() }
    });
    use futures::StreamExt;
    let statuses: Vec<u16> = futures::stream::iter(sends).buffer_unordered(8).collect().await;
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"question": "One more?"})).send().await.unwrap();
    expect_error(res, 403, "tests_limit_reached").await;
    t.stop().await;
}

#[tokio::test]
async fn run_tests_on_change_queues_one_run_after_a_source_becomes_ready_and_not_another_within_5_minutes() {
    let t = TestApp::spawn().await;
    for kind in ["c", "m"] {
        let (base, _) = owner_with(&t, kind, &[REFUNDS]).await;
        let (status, _) =
            post(&t, &t.dev_key, &format!("{base}/tests"), json!({"question": "When are refunds paid?"})).await;
        assert_eq!(status, 201);
        let patch = json!({"runTestsOnChange": true});
        let (status, patched) = parts(t.req(Method::PATCH, &base, &t.dev_key).json(&patch).send().await.unwrap()).await;
        assert_eq!(status, 200, "{patched}");
        let member = if kind == "c" { "chatbot" } else { "mind" };
        assert_eq!(patched[member]["runTestsOnChange"], true, "{patched}");
        let (_, none) = get(&t, &t.dev_key, &format!("{base}/test-runs")).await;
        assert_eq!(none["pagination"]["total"], 0, "the setting alone starts nothing");

        // A new source becomes ready: one run.
        add_ready_source(&t, kind, &base, SHIPPING).await;
        let deadline = Instant::now() + Duration::from_secs(60);
        let run = loop {
            let (_, runs) = get(&t, &t.dev_key, &format!("{base}/test-runs")).await;
            if let Some(run) = runs["runs"].as_array().unwrap().first() {
                break run["id"].as_str().unwrap().to_owned();
            }
            assert!(Instant::now() < deadline, "no run after the source became ready");
            tokio::time::sleep(Duration::from_millis(25)).await;
        };
        let done = finished(&t, &base, &run).await;
        assert_eq!(done["run"]["total"], 1);

        // Another change within 5 minutes of that run (a delete decides within its request):
        // no second run.
        let knowledge = if kind == "c" { "sources" } else { "knowledge" };
        let (_, listed) = get(&t, &t.dev_key, &format!("{base}/{knowledge}")).await;
        let first = listed["sources"][0]["id"].as_str().unwrap_or_else(|| panic!("{listed}")).to_owned();
        let res = t.req(Method::DELETE, &format!("{base}/{knowledge}/{first}"), &t.dev_key).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let (_, runs) = get(&t, &t.dev_key, &format!("{base}/test-runs")).await;
        assert_eq!(runs["pagination"]["total"], 1, "at most one run per 5 minutes: {runs}");
    }
    t.stop().await;
}

/// Adds a text source to the owner at `base` and waits until it is ready (its run's events,
/// the tests after a change among them, are then done).
async fn add_ready_source(t: &TestApp, kind: &str, base: &str, text: &str) {
    let knowledge = if kind == "c" { "sources" } else { "knowledge" };
    let (status, created) =
        post(t, &t.dev_key, &format!("{base}/{knowledge}"), json!({"type": "text", "content": text})).await;
    assert_eq!(status, 201, "{created}");
    let id = created["source"]["id"].as_str().unwrap().to_owned();
    if kind == "c" {
        t.process(base.rsplit('/').next().unwrap(), &id).await;
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, s) = get(t, &t.dev_key, &format!("{base}/{knowledge}/{id}")).await;
        if s["source"]["status"] == "ready" {
            return;
        }
        assert!(Instant::now() < deadline, "{s}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A run whose worker stopped (`lore serve` restarted, a job that failed) does not stay queued:
/// read, listed, or started over, it is done with the reason as each test's result, and no test's
/// last result changes. The run is planted in the embedded store (started an hour ago, beyond the
/// abandonment bound); the conformance suite checks the store side on both backends.
#[tokio::test]
async fn an_abandoned_run_is_done_with_the_reason_when_read_listed_or_started_over() {
    use lore_app::ports::{AnswerTestStore, RunStart};
    use lore_domain::Timestamp;
    use lore_domain::answer_test::{RunStatus, TestRun};
    use lore_domain::id::{AnswerTestId, TestRunId, WorkspaceId};
    use lore_domain::source::SourceOwner;

    let t = TestApp::spawn().await;
    let Some(store) = t.embedded_store().cloned() else { return };
    let (base, _) = owner_with(&t, "c", &[REFUNDS]).await;
    let (status, made) =
        post(&t, &t.dev_key, &format!("{base}/tests"), json!({"question": "How long do refunds take?"})).await;
    assert_eq!(status, 201, "{made}");
    let test_id = AnswerTestId::parse(made["test"]["id"].as_str().unwrap()).unwrap();
    let ws = get(&t, &t.dev_key, "/api/v1/workspace").await.1["workspace"]["id"].as_str().unwrap().to_owned();
    let ws = WorkspaceId::parse(&ws).unwrap();
    let owner = SourceOwner::parse(base.rsplit('/').next().unwrap()).unwrap();
    let hour_ago = Timestamp::from_millis(Timestamp::now().millis() - 3_600_000);
    let plant = || async {
        let run = TestRun::queued(ws.clone(), owner.clone(), vec![test_id.clone()], hour_ago);
        assert_eq!(store.start_run(&run, Timestamp::from_millis(0)).await.unwrap(), RunStart::Started);
        run.id
    };
    let reason = "the worker stopped before the run finished";
    let stored = |id: TestRunId| {
        let (store, ws, owner) = (store.clone(), ws.clone(), owner.clone());
        async move { store.get_run(&ws, &owner, &id).await.unwrap().unwrap() }
    };

    // Read.
    let read = plant().await;
    let (status, body) = get(&t, &t.dev_key, &format!("{base}/test-runs/{read}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["run"]["status"], "done", "{body}");
    assert_eq!(body["run"]["failed"], 1, "{body}");
    assert_eq!(body["results"][0]["checks"][0]["detail"], reason, "{body}");
    let (_, test) = get(&t, &t.dev_key, &format!("{base}/tests/{test_id}")).await;
    assert!(test["test"]["lastResult"].is_null(), "nothing was answered: no last result: {test}");

    // Listed.
    let listed = plant().await;
    let (_, runs) = get(&t, &t.dev_key, &format!("{base}/test-runs")).await;
    let row = runs["runs"].as_array().unwrap().iter().find(|r| r["id"] == listed.as_str()).unwrap().clone();
    assert_eq!(row["status"], "done", "{runs}");
    assert_eq!(stored(listed).await.status, RunStatus::Done);

    // Started over: the new run is accepted, the old one done (not left running beside it).
    let over = plant().await;
    let (status, started) = post(&t, &t.dev_key, &format!("{base}/test-runs"), json!({})).await;
    assert_eq!(status, 202, "{started}");
    assert_eq!(stored(over.clone()).await.status, RunStatus::Done, "the run started over is done");
    let done = finished(&t, &base, started["run"]["id"].as_str().unwrap()).await;
    assert_eq!(done["run"]["total"], 1, "{done}");
    let (_, test) = get(&t, &t.dev_key, &format!("{base}/tests/{test_id}")).await;
    assert_eq!(
        test["test"]["lastResult"]["runId"], started["run"]["id"],
        "the answered run's result is the last: {test}"
    );
    t.stop().await;
}
