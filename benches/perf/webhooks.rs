//! Webhook fan-out rate and retry timing: the dispatcher of `lore serve` (`lore::serve::start`:
//! the in-process loop over `App::fan_out_pending` / `claim_due` / `attempt_claimed`, the SQLite
//! delivery store, the signed SSRF-safe sender) delivering form responses to a local axum receiver
//! on 127.0.0.1, against a plain reqwest loop to the same receiver (its raw capacity) in the same
//! run; then retries on a short schedule against a receiver that fails twice.

use crate::{Options, Result, Section, percentile, verdict};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use serde_json::json;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BUDGET_PER_SEC: f64 = 1_000.0;
const BUDGET_RETRY_MS: f64 = 1_000.0;
const SCHEDULE: &str = "1s,2s";
const DELAYS: [Duration; 2] = [Duration::from_secs(1), Duration::from_secs(2)];
/// The flaky receiver answers 500 this many times per delivery, then 200.
const FAILS: usize = 2;
/// Requests in flight in the baseline: the dispatcher's own default bound
/// (`LORE_WEBHOOK_CONCURRENCY`).
fn baseline_concurrency() -> usize {
    lore_app::AppConfig::default().webhook_concurrency
}

#[derive(Default)]
struct Receiver {
    ok: AtomicUsize,
    body_bytes: AtomicUsize,
    last_ok: Mutex<Option<Instant>>,
    flaky: Mutex<HashMap<String, Vec<Instant>>>,
}

async fn ok(State(r): State<Arc<Receiver>>, body: axum::body::Bytes) -> StatusCode {
    r.body_bytes.store(body.len(), Ordering::Relaxed);
    *r.last_ok.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
    r.ok.fetch_add(1, Ordering::AcqRel);
    StatusCode::OK
}

async fn flaky(State(r): State<Arc<Receiver>>, Path(n): Path<String>, headers: HeaderMap) -> StatusCode {
    let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let mut seen = r.flaky.lock().unwrap_or_else(|p| p.into_inner());
    let times = seen.entry(format!("{n}/{id}")).or_default();
    times.push(Instant::now());
    if times.len() <= FAILS { StatusCode::INTERNAL_SERVER_ERROR } else { StatusCode::OK }
}

/// The calls this bench makes, on the shared client.
impl crate::Api {
    async fn form(&self) -> Result<String> {
        let form = json!({
            "name": "Contact",
            "fields": [
                {"key": "name", "label": "Your name", "type": "short_text", "required": true},
                {"key": "email", "label": "E-mail", "type": "email"},
                {"key": "message", "label": "Message", "type": "long_text"},
            ]
        });
        let created = self.post("/api/v1/forms", &form).await?;
        Ok(created["form"]["id"].as_str().ok_or("no form id")?.to_owned())
    }

    async fn subscribe(&self, form: &str, url: &str) -> Result<()> {
        self.post("/api/integrations/webhooks/triggers/subscribe", &json!({"hookUrl": url, "formId": form})).await?;
        Ok(())
    }

    async fn submit(&self, form: &str, i: usize) -> Result<()> {
        let values = json!({
            "name": format!("Ada {i}"),
            "email": format!("ada{i}@example.com"),
            "message": "I would like to know more about the refund policy and the delivery times.",
        });
        self.post(&format!("/api/v1/forms/{form}/responses"), &json!({"values": values, "source": "direct"})).await?;
        Ok(())
    }
}

struct Measured {
    hooks: usize,
    responses: usize,
    deliveries: usize,
    ours_secs: f64,
    /// CPU time of the whole process (server, dispatcher, receiver, bench client) meanwhile.
    cpu_secs: Option<f64>,
    body_bytes: usize,
    baseline_requests: usize,
    baseline_secs: f64,
    retries: usize,
    deviations_ms: Vec<f64>,
    late_ms: Vec<f64>,
    incomplete: usize,
}

pub fn run(o: &Options) -> Result<Section> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let m = rt.block_on(measure(o))?;
    let ours = m.deliveries as f64 / m.ours_secs;
    let raw = m.baseline_requests as f64 / m.baseline_secs;
    let max_dev = m.deviations_ms.iter().copied().fold(0.0, f64::max);
    let mut md = String::new();
    md.push_str("### Webhook fan-out and retry timing\n\n");
    let _ = writeln!(
        md,
        "The real server (`lore::serve::start`, fresh data dir, `allowPrivateNetwork` for 127.0.0.1, retry \
         schedule `{SCHEDULE}`) with its in-process dispatcher ({} attempts in flight, SQLite delivery store, \
         signed SSRF-safe sender), and an axum receiver on 127.0.0.1 answering 200, in one process and one \
         tokio runtime on the machine's cores. **Fan-out**: {} subscriptions to one form, then {} responses \
         submitted over HTTP one after another: {} deliveries; rate = deliveries / (first submission → last \
         delivery received), so it includes the submissions, the outbox and the fan-out. **Baseline**: a plain \
         `reqwest::Client` POSTing a body of the same size ({} bytes) to the same receiver, {} requests in \
         flight, {} requests. **Retry timing**: {} subscriptions on a receiver that answers 500 twice per \
         delivery, then 200; one response; each retry's arrival against (previous attempt's arrival + its \
         scheduled delay).\n",
        baseline_concurrency(),
        m.hooks,
        m.responses,
        m.deliveries,
        m.body_bytes,
        baseline_concurrency(),
        m.baseline_requests,
        m.retries / FAILS,
    );
    md.push_str("| what | ours | baseline | ratio | budget | verdict |\n|---|---:|---:|---:|---|---|\n");
    let _ = writeln!(
        md,
        "| fan-out, deliveries/s | {ours:.0} | {raw:.0} (raw receiver capacity, req/s) | {:.2} | ≥ 1,000/s | {} |",
        ours / raw,
        verdict(ours >= BUDGET_PER_SEC)
    );
    let _ = writeln!(
        md,
        "| retry timing, \\|actual − scheduled\\| ms ({} retries) | p50 {:.0}, p99 {:.0}, max {:.0} | – | – | ≤ 1,000 ms | {} |",
        m.deviations_ms.len(),
        percentile(&m.deviations_ms, 50.0),
        percentile(&m.deviations_ms, 99.0),
        max_dev,
        verdict(max_dev <= BUDGET_RETRY_MS && m.incomplete == 0)
    );
    if let Some(cpu) = m.cpu_secs {
        let cores = crate::cores();
        let _ = writeln!(
            md,
            "\nCPU during the fan-out: {cpu:.2} s for the whole process (server, dispatcher, receiver and the \
             submitting client), {:.0} µs per delivery, {:.2} cores on average; the baseline's exchange costs at most \
             {:.0} µs per request on the machine's {cores} cores.",
            cpu * 1e6 / m.deliveries as f64,
            cpu / m.ours_secs,
            cores as f64 * m.baseline_secs * 1e6 / m.baseline_requests as f64,
        );
    }
    let _ = writeln!(
        md,
        "\nRetries arrived late by {:.0} ms at the median (signed; negative would be early: min {:.0} ms); the \
         dispatcher polls every {} ms when not woken.{}",
        percentile(&m.late_ms, 50.0),
        m.late_ms.iter().copied().fold(f64::INFINITY, f64::min),
        lore::workers::DISPATCH_POLL.as_millis(),
        if m.incomplete > 0 {
            format!(" **{} deliveries did not get all their attempts within the wait.**", m.incomplete)
        } else {
            String::new()
        }
    );
    let met = vec![
        ("webhook fan-out ≥ 1,000 deliveries/s".to_owned(), ours >= BUDGET_PER_SEC),
        ("webhook retries within 1 s of schedule".to_owned(), max_dev <= BUDGET_RETRY_MS && m.incomplete == 0),
    ];
    Ok(Section { markdown: md, met })
}

async fn measure(o: &Options) -> Result<Measured> {
    let (hooks, responses, flaky_hooks) = if o.quick { (20, 20, 5) } else { (100, 50, 20) };
    let receiver = Arc::new(Receiver::default());
    let router = Router::new().route("/ok/{n}", post(ok)).route("/flaky/{n}", post(flaky)).with_state(receiver.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let rx_addr = listener.local_addr()?;
    let rx_task = tokio::spawn(async move { axum::serve(listener, router).await });

    let dir = tempfile::tempdir()?;
    let running = lore::serve::start(lore::serve::ServeConfig {
        addr: "127.0.0.1:0".parse()?,
        data_dir: dir.path().to_path_buf(),
        backend: lore::compose::Backend::Local,
        overrides: lore::compose::Overrides {
            allow_private_network: true,
            embedder: Some(Arc::new(lore_embed::LocalEmbedder::new())),
            webhook_retry_schedule: Some(
                lore_domain::delivery::RetrySchedule::parse(SCHEDULE).map_err(|e| format!("{e:?}"))?,
            ),
            webhook_timeout: Some(Duration::from_secs(5)),
            // The fan-out and the retry runs subscribe in one workspace, past the default cap.
            max_hooks_per_workspace: Some((hooks + flaky_hooks) as u32),
            ..Default::default()
        },
    })
    .await
    .map_err(|e| e.to_string())?;
    let (_, api) = crate::bench_workspace(&running, "perf-bench").await?;

    // Fan-out.
    let form = api.form().await?;
    for i in 0..hooks {
        api.subscribe(&form, &format!("http://{rx_addr}/ok/{i}")).await?;
    }
    let deliveries = hooks * responses;
    let cpu_before = crate::own_cpu_secs();
    let started = Instant::now();
    for i in 0..responses {
        api.submit(&form, i).await?;
    }
    let deadline = started + Duration::from_secs(300);
    while receiver.ok.load(Ordering::Acquire) < deliveries {
        if Instant::now() > deadline {
            return Err(format!(
                "only {} of {deliveries} deliveries arrived within 300 s",
                receiver.ok.load(Ordering::Acquire)
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let last = receiver.last_ok.lock().unwrap_or_else(|p| p.into_inner()).ok_or("no delivery time")?;
    let ours_secs = last.duration_since(started).as_secs_f64();
    let cpu_secs = crate::own_cpu_secs().zip(cpu_before).map(|(after, before)| after - before);
    eprintln!(
        "  webhooks: {deliveries} deliveries in {ours_secs:.2} s, CPU {} s",
        cpu_secs.map_or("?".into(), |c| format!("{c:.2}"))
    );
    // Let the dispatcher record the last outcomes before the baseline starts.
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Baseline: the receiver's raw capacity with a plain client.
    let body_bytes = receiver.body_bytes.load(Ordering::Relaxed);
    let body = axum::body::Bytes::from(format!("{{\"pad\":\"{}\"}}", "x".repeat(body_bytes.saturating_sub(10))));
    let baseline_requests = deliveries;
    let client = reqwest::Client::new();
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..baseline_concurrency() {
        let (client, next, body) = (client.clone(), next.clone(), body.clone());
        let url = format!("http://{rx_addr}/ok/baseline");
        tasks.spawn(async move {
            while next.fetch_add(1, Ordering::AcqRel) < baseline_requests {
                let res =
                    client.post(&url).header("content-type", "application/json").body(body.clone()).send().await?;
                if !res.status().is_success() {
                    return Err(crate::BoxError::from(format!("baseline: {}", res.status())));
                }
                res.bytes().await?;
            }
            Ok::<(), crate::BoxError>(())
        });
    }
    while let Some(done) = tasks.join_next().await {
        done??;
    }
    let baseline_secs = started.elapsed().as_secs_f64();
    eprintln!("  webhooks: baseline {baseline_requests} requests in {baseline_secs:.2} s");

    // Retry timing.
    let form = api.form().await?;
    for i in 0..flaky_hooks {
        api.subscribe(&form, &format!("http://{rx_addr}/flaky/{i}")).await?;
    }
    api.submit(&form, 0).await?;
    let total: Duration = DELAYS.iter().sum();
    let deadline = Instant::now() + total + Duration::from_secs(20);
    loop {
        let done = {
            let seen = receiver.flaky.lock().unwrap_or_else(|p| p.into_inner());
            seen.len() == flaky_hooks && seen.values().all(|t| t.len() > FAILS)
        };
        if done || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let seen = receiver.flaky.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut deviations_ms = Vec::new();
    let mut late_ms = Vec::new();
    let mut incomplete = flaky_hooks.saturating_sub(seen.len());
    for times in seen.values() {
        if times.len() <= FAILS {
            incomplete += 1;
        }
        for (w, delay) in times.windows(2).zip(DELAYS) {
            let scheduled = w[0] + delay;
            let late = if w[1] >= scheduled {
                w[1].duration_since(scheduled).as_secs_f64() * 1e3
            } else {
                -(scheduled.duration_since(w[1]).as_secs_f64() * 1e3)
            };
            late_ms.push(late);
            deviations_ms.push(late.abs());
        }
    }
    eprintln!(
        "  webhooks: {} retries, max |deviation| {:.0} ms",
        deviations_ms.len(),
        deviations_ms.iter().copied().fold(0.0, f64::max)
    );
    tokio::time::timeout(Duration::from_secs(10), running.stop()).await.ok();
    rx_task.abort();
    Ok(Measured {
        hooks,
        responses,
        deliveries,
        ours_secs,
        cpu_secs,
        body_bytes,
        baseline_requests,
        baseline_secs,
        retries: deviations_ms.len(),
        deviations_ms,
        late_ms,
        incomplete,
    })
}
