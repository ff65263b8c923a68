//! Answer tests on `lore serve` (docs/api.md §21): how long a run of 500 tests takes with the
//! extractive responder over a chatbot of 10k ready chunks, from `POST …/test-runs` until the
//! run reads `done`, against the peer a client without tests has: the same questions asked as new
//! conversations' first turns over HTTP, as many at a time as the run answers at once
//! (`LORE_TEST_RUN_CONCURRENCY`, default 2).
//!
//! The knowledge base is the *embedded, lexical* row of `chat.rs`: text sources of the retrieval
//! corpus' prose processed by the real pipeline with the built-in lexical embedder. The questions
//! are the corpus' questions (`benches/retrieval/queries.jsonl` and the titles in the three forms
//! of `chat.rs`), drawn seeded; every test has a check that does work: even tests expect one of
//! the sources holding their passage (`expectedSourceIds`), odd tests a word of it (`mustContain`).
//!
//! A run's results carry no per-test time, so the run's per-test figure is the time of the
//! retrieval step of each answer (the DEBUG span `turn.retrieve`, timed by `chat::stages`) beside
//! the mean a test holds a worker (the total × concurrency ÷ tests); the peer's per-request p50 is
//! read by the client.

use crate::{Api, Options, Result, Rng, Section, percentile, verdict};
use serde_json::{Value, json};
use std::fmt::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Tests in the full run (the most a chatbot may have) and in `--quick`.
const TESTS: usize = 500;
const QUICK_TESTS: usize = 100;
/// The budget of issue 59: 500 tests, extractive, 10k chunks.
const BUDGET_SECS: f64 = 30.0;
/// The run's status is read this often.
const POLL: Duration = Duration::from_millis(50);

pub fn run(o: &Options) -> Result<Section> {
    let passages = crate::corpus(o)?;
    let chunks = if o.quick { 2_000 } else { 10_000 };
    let tests = if o.quick { QUICK_TESTS } else { TESTS };
    let concurrency = std::env::var("LORE_TEST_RUN_CONCURRENCY")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(2, |c| c.clamp(1, 16));
    let questions = questions(o, &passages, tests)?;
    let recorder = crate::chat::stages::recorder();
    if recorder.is_none() {
        eprintln!("  answer-tests: another tracing subscriber is installed: no retrieval times");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(measure(chunks, &passages, &questions, concurrency, recorder))?;
    drop(rt);
    Ok(report(&m, o.quick))
}

/// A test's question and the passage titles its answer should come from.
struct Question {
    text: String,
    titles: Vec<String>,
}

/// `count` questions drawn seeded from the corpus' questions: those of
/// `benches/retrieval/queries.jsonl` (their relevant passages' titles) and the titles of the
/// corpus in the three forms of `chat.rs` (the title they name).
fn questions(o: &Options, passages: &[(String, String)], count: usize) -> Result<Vec<Question>> {
    let path = o.root.join("benches/retrieval/queries.jsonl");
    let raw = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut pool = Vec::new();
    for line in raw.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let (Some(q), Some(relevant)) = (v["query"].as_str(), v["relevant"].as_object()) else { continue };
        let mut titles: Vec<(&String, u64)> = relevant.iter().map(|(t, g)| (t, g.as_u64().unwrap_or(0))).collect();
        titles.sort_by_key(|t| std::cmp::Reverse(t.1));
        pool.push(Question { text: q.to_owned(), titles: titles.into_iter().map(|(t, _)| t.clone()).collect() });
    }
    // Every distinct question of `chat.rs`'s forms: each title every form.
    let distinct = passages.len().div_ceil(7) * 3;
    for q in crate::chat::questions(passages, distinct) {
        // The title it names: the longest one it holds.
        let title = passages.iter().map(|(t, _)| t).filter(|t| q.contains(t.as_str())).max_by_key(|t| t.len());
        pool.push(Question { titles: title.into_iter().cloned().collect(), text: q });
    }
    if pool.len() < count {
        return Err(format!("only {} distinct questions for {count} tests", pool.len()).into());
    }
    // Fisher–Yates, seeded.
    let mut rng = Rng(0x7E57_5000 + count as u64);
    for i in (1..pool.len()).rev() {
        pool.swap(i, rng.below(i + 1));
    }
    pool.truncate(count);
    Ok(pool)
}

struct Measured {
    chunks: usize,
    sources: usize,
    setup_secs: f64,
    concurrency: usize,
    tests: usize,
    with_sources: usize,
    with_contains: usize,
    create_secs: f64,
    run_secs: f64,
    /// `finishedAt − startedAt` of the run, as the server stamped it.
    run_server_secs: Option<f64>,
    passed: u64,
    failed: u64,
    answered: usize,
    timed_out: usize,
    run_retrieve_ms: Vec<f64>,
    peer_secs: f64,
    peer_ms: Vec<f64>,
    peer_retrieve_ms: Vec<f64>,
    peer_answered: usize,
}

async fn measure(
    chunks: usize,
    passages: &[(String, String)],
    questions: &[Question],
    concurrency: usize,
    recorder: Option<&'static crate::chat::stages::Recorder>,
) -> Result<Measured> {
    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())),
            // What `lore serve` answers with when no model is configured, whatever this
            // machine's environment names.
            responder: Some(Arc::new(lore_chat::ExtractiveResponder)),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let result = async {
        let (_, api) = crate::bench_workspace(&running, "answer-tests-bench").await?;
        let api = Arc::new(api);
        let bot = api.post("/api/v1/chatbots", &json!({"name": "answer tests bench"})).await?;
        let bot = bot["chatbot"]["id"].as_str().ok_or("no chatbot id")?.to_owned();

        // The knowledge base, as the conversations section's lexical row builds it.
        let started = Instant::now();
        let mut rng = Rng(0xC4A7 + chunks as u64);
        let sources = crate::chat::process_sources(&api, &bot, chunks, passages, &mut rng).await?;
        let setup_secs = started.elapsed().as_secs_f64();
        let stats = api.get(&format!("/api/v1/chatbots/{bot}/knowledge/stats")).await?;
        let ready = stats["stats"]["totalChunks"].as_u64().unwrap_or(0) as usize;
        eprintln!("  answer-tests: {ready} chunks in {sources} sources, {setup_secs:.1} s");

        // The tests.
        let texts = source_texts(&api, &bot).await?;
        let started = Instant::now();
        let (mut with_sources, mut with_contains) = (0, 0);
        for (i, q) in questions.iter().enumerate() {
            let expected: Vec<&str> = texts
                .iter()
                .filter(|(_, text)| q.titles.iter().any(|t| text.contains(&format!("{t}: "))))
                .map(|(id, _)| id.as_str())
                .take(10)
                .collect();
            let body = if i % 2 == 0 && !expected.is_empty() {
                with_sources += 1;
                json!({"question": q.text, "expectedSourceIds": expected})
            } else {
                with_contains += 1;
                json!({"question": q.text, "mustContain": [must_contain(q)]})
            };
            api.post(&format!("/api/v1/chatbots/{bot}/tests"), &body).await?;
        }
        let create_secs = started.elapsed().as_secs_f64();

        // Warm-up, untimed: the chatbot's keyword postings read, the connections open.
        api.post(
            &format!("/api/v1/chatbots/{bot}/conversations"),
            &json!({"message": "How do I warm up the caches of this knowledge base?"}),
        )
        .await?;

        // The run: from the request to `done`.
        if let Some(r) = recorder {
            r.take();
        }
        let started = Instant::now();
        let created = api.post(&format!("/api/v1/chatbots/{bot}/test-runs"), &json!({})).await?;
        let run_id = created["run"]["id"].as_str().ok_or("no run id")?.to_owned();
        let done = loop {
            let got = api.get(&format!("/api/v1/chatbots/{bot}/test-runs/{run_id}")).await?;
            if got["run"]["status"] == "done" {
                break got;
            }
            if started.elapsed() > Duration::from_secs(900) {
                return Err(format!("the run is still {} after 900 s", got["run"]["status"]).into());
            }
            tokio::time::sleep(POLL).await;
        };
        let run_secs = started.elapsed().as_secs_f64();
        let run_retrieve_ms = recorder.map(|r| retrieve_ms(r.take())).unwrap_or_default();
        let run = &done["run"];
        let stamp = |k: &str| run[k].as_str().and_then(lore_domain::time::Timestamp::parse);
        let run_server_secs = match (stamp("startedAt"), stamp("finishedAt")) {
            (Some(s), Some(f)) => Some((f.millis() - s.millis()) as f64 / 1e3),
            _ => None,
        };
        let results = done["results"].as_array().cloned().unwrap_or_default();
        let answered = results.iter().filter(|r| r["answered"] == true).count();
        let timed_out = results
            .iter()
            .filter(|r| {
                r["checks"]
                    .as_array()
                    .is_some_and(|c| c.iter().any(|c| c["detail"].as_str().is_some_and(|d| d.contains("ran out"))))
            })
            .count();
        let (passed, failed) = (run["passed"].as_u64().unwrap_or(0), run["failed"].as_u64().unwrap_or(0));
        eprintln!(
            "  answer-tests: run of {} tests: {run_secs:.2} s ({passed} passed, {failed} failed, {timed_out} timed out)",
            results.len()
        );

        // The peer: the same questions as new conversations' first turns, `concurrency` at once.
        if let Some(r) = recorder {
            r.take();
        }
        let (peer_secs, peer_ms, peer_answered) = ask_all(&api, &bot, questions, concurrency).await?;
        let peer_retrieve_ms = recorder.map(|r| retrieve_ms(r.take())).unwrap_or_default();
        eprintln!("  answer-tests: the same questions as conversations: {peer_secs:.2} s");

        Ok::<_, crate::BoxError>(Measured {
            chunks: ready,
            sources,
            setup_secs,
            concurrency,
            tests: results.len(),
            with_sources,
            with_contains,
            create_secs,
            run_secs,
            run_server_secs,
            passed,
            failed,
            answered,
            timed_out,
            run_retrieve_ms,
            peer_secs,
            peer_ms,
            peer_retrieve_ms,
            peer_answered,
        })
    }
    .await;
    tokio::time::timeout(Duration::from_secs(10), running.stop()).await.ok();
    result
}

/// A word the answer should hold: the last part of the first title (`sleep` of `time.sleep`),
/// else the question's longest word.
fn must_contain(q: &Question) -> String {
    let from_title = q.titles.first().and_then(|t| t.rsplit('.').next()).map(|w| w.trim_end_matches("()"));
    match from_title {
        Some(w) if !w.is_empty() => w.to_owned(),
        _ => q.text.split_whitespace().max_by_key(|w| w.len()).unwrap_or("the").trim_end_matches('?').to_owned(),
    }
}

/// Every text source of the chatbot: its id and content.
async fn source_texts(api: &Api, bot: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for page in 1.. {
        let listed = api.get(&format!("/api/v1/chatbots/{bot}/sources?page={page}&limit=100")).await?;
        let items = listed["sources"].as_array().cloned().unwrap_or_default();
        if items.is_empty() {
            break;
        }
        for item in items {
            let id = item["id"].as_str().ok_or("a source without an id")?.to_owned();
            let content = match item["content"].as_str() {
                Some(c) => c.to_owned(),
                None => {
                    let one = api.get(&format!("/api/v1/chatbots/{bot}/sources/{id}")).await?;
                    one["source"]["content"].as_str().unwrap_or_default().to_owned()
                }
            };
            out.push((id, content));
        }
    }
    Ok(out)
}

/// Each question as a new conversation's first turn (JSON answer), `concurrency` clients taking
/// the next question when done: the total seconds, each request's milliseconds, and how many
/// answers were `answered`.
async fn ask_all(
    api: &Arc<Api>,
    bot: &str,
    questions: &[Question],
    concurrency: usize,
) -> Result<(f64, Vec<f64>, usize)> {
    let questions: Arc<Vec<String>> = Arc::new(questions.iter().map(|q| q.text.clone()).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..concurrency {
        let (api, bot, questions, next) = (api.clone(), bot.to_owned(), questions.clone(), next.clone());
        tasks.spawn(async move {
            let (mut ms, mut answered) = (Vec::new(), 0);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(q) = questions.get(i) else { break };
                let t = Instant::now();
                let got = api.post(&format!("/api/v1/chatbots/{bot}/conversations"), &json!({"message": q})).await?;
                ms.push(t.elapsed().as_secs_f64() * 1e3);
                let answer = got["messages"].as_array().and_then(|m| m.last());
                if answer.is_some_and(|a| a["role"] == "assistant" && a["answered"] == true) {
                    answered += 1;
                }
            }
            Ok::<_, crate::BoxError>((ms, answered))
        });
    }
    let (mut all, mut answered) = (Vec::new(), 0);
    while let Some(r) = tasks.join_next().await {
        let (ms, a) = r??;
        all.extend(ms);
        answered += a;
    }
    Ok((started.elapsed().as_secs_f64(), all, answered))
}

/// The milliseconds of each `turn.retrieve` span among `closed`.
fn retrieve_ms(closed: Vec<crate::chat::stages::Closed>) -> Vec<f64> {
    closed
        .iter()
        .filter(|c| c.name == "turn.retrieve")
        .map(|c| c.end.saturating_duration_since(c.start).as_secs_f64() * 1e3)
        .collect()
}

fn report(m: &Measured, quick: bool) -> Section {
    let mut md = String::new();
    md.push_str("### Answer tests\n\n");
    let _ = writeln!(
        md,
        "`lore serve` (embedded backend) with a chatbot of {} ready chunks in {} text sources (prose of the retrieval \
         corpus, processed by the real pipeline with the built-in lexical embedder, as the *embedded, lexical* row of \
         the conversation answers), answering with the extractive responder (no model configured). {} tests over HTTP, \
         their questions drawn seeded from the corpus' questions (`benches/retrieval/queries.jsonl` and the corpus' \
         titles in three forms), {} expecting one of the sources holding their passage (`expectedSourceIds`, up to \
         10) and {} a word of it (`mustContain`). *Run*: `POST …/test-runs` until `GET …/test-runs/{{id}}` reads \
         `done` (polled every {} ms), the run answering {} tests at once (`LORE_TEST_RUN_CONCURRENCY`). *By hand*, \
         its peer in the same process: the same questions as new conversations' first turns (`POST \
         …/conversations` `{{\"message\"}}`, JSON answer), {} clients at once, each taking the next question. One \
         untimed warm-up conversation before both. A run's results carry no per-test time: its per-test rows are the \
         mean a test holds one of the run's workers (total × {} ÷ tests) and the retrieval step of each answer (the \
         DEBUG span `turn.retrieve`, timed in the bench, in both columns).\n",
        m.chunks,
        m.sources,
        m.tests,
        m.with_sources,
        m.with_contains,
        POLL.as_millis(),
        m.concurrency,
        m.concurrency,
        m.concurrency,
    );
    let n = m.tests.max(1) as f64;
    let mean_ms = |secs: f64| secs * 1e3 * m.concurrency as f64 / n;
    md.push_str("| measure | run of the tests | by hand (conversations) |\n|---|---:|---:|\n");
    let _ = writeln!(md, "| total, s | {:.2} | {:.2} |", m.run_secs, m.peer_secs);
    let _ = writeln!(
        md,
        "| per test, mean (total × {} ÷ {}), ms | {:.2} | {:.2} |",
        m.concurrency,
        m.tests,
        mean_ms(m.run_secs),
        mean_ms(m.peer_secs)
    );
    let _ = writeln!(
        md,
        "| per test as the client reads it, p50 / p99 ms | – | {:.2} / {:.2} |",
        percentile(&m.peer_ms, 50.0),
        percentile(&m.peer_ms, 99.0)
    );
    let p = |v: &[f64], q: f64| if v.is_empty() { "–".to_owned() } else { format!("{:.2}", percentile(v, q)) };
    let _ = writeln!(
        md,
        "| retrieval per answer (`turn.retrieve`), p50 / p99 ms | {} / {} | {} / {} |",
        p(&m.run_retrieve_ms, 50.0),
        p(&m.run_retrieve_ms, 99.0),
        p(&m.peer_retrieve_ms, 50.0),
        p(&m.peer_retrieve_ms, 99.0)
    );
    let _ = writeln!(md, "| answers `answered` | {} | {} |", m.answered, m.peer_answered);
    let server = m.run_server_secs.map_or("–".to_owned(), |s| format!("{s:.2} s"));
    let _ = writeln!(
        md,
        "\nThe run: {} passed, {} failed ({} ran out of the run's time); `finishedAt − startedAt` {server}; the run \
         {:.2}× the time by hand.",
        m.passed,
        m.failed,
        m.timed_out,
        m.run_secs / m.peer_secs
    );
    let mut met = Vec::new();
    let label = format!("{} tests, extractive, {} chunks", m.tests, m.chunks);
    if quick || m.tests < TESTS || m.chunks < 10_000 {
        let _ = writeln!(
            md,
            "\n- Budget: {TESTS} tests, extractive, 10k chunks, ≤ {BUDGET_SECS:.0} s: not judged at this size ({label}: \
             {:.2} s).",
            m.run_secs
        );
    } else {
        let ok = m.run_secs <= BUDGET_SECS && m.timed_out == 0;
        let _ = writeln!(md, "\n- Budget: {label}, ≤ {BUDGET_SECS:.0} s: {:.2} s, {}.", m.run_secs, verdict(ok));
        met.push((format!("answer tests: {label}, run ≤ {BUDGET_SECS:.0} s"), ok));
    }
    let _ = writeln!(
        md,
        "\nSetup: {} chunks in {} sources processed in {:.1} s; {} tests created in {:.1} s.\n",
        m.chunks, m.sources, m.setup_secs, m.tests, m.create_secs
    );
    Section { markdown: md, met }
}
