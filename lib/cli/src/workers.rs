//! The in-process workers of `lore serve`: ingest workers, their sweeper, and the webhook
//! dispatcher.

use lore_app::App;
use lore_app::ports::DispatchSignal;
use lore_app::ports::IngestJob;
use lore_domain::Timestamp;
use lore_local::FairQueue;
use lore_local::LocalSignal;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// Concurrent processing runs of `lore serve --backend aws` (SQS consumers). Extraction and
/// embedding are CPU-bound; two fit two cores.
pub const WORKERS: usize = 2;
/// How often the sweeper looks for runs whose lease expired.
pub const SWEEP_EVERY: Duration = Duration::from_secs(30);

/// Background tasks; aborted when dropped.
pub struct Workers {
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for Workers {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// Starts the workers on `jobs` and the sweeper. At start, sources embedded by another model than
/// the current one are queued for re-embedding. The first sweep adopts every run left in
/// `processing` by a previous process on this data dir (a crash, a kill -9), so nothing stays
/// stuck and nothing waits for a lease to expire.
/// `app.config().ingest_workers` workers take jobs from the fair queue (workspaces in turn, at
/// most `ingest_jobs_per_workspace` running each).
pub fn spawn(app: App, jobs: Arc<FairQueue>) -> Workers {
    let mut tasks = Vec::new();
    for n in 0..app.config().ingest_workers.max(1) {
        let (app, jobs) = (app.clone(), jobs.clone());
        tasks.push(tokio::spawn(async move {
            while let Some(taken) = jobs.take().await {
                // The workspace's slot is held until the run ended (`taken` drops after it).
                run_job(&app, n, taken.job.clone()).await;
                drop(taken);
            }
        }));
    }
    tasks.push(sweeper(app, true));
    Workers { tasks }
}

/// Runs one job in its own task, so that a panic inside it cannot kill the worker. True when
/// the run finished (whatever the source's outcome); false when it must be retried.
async fn run_job(app: &App, worker: usize, job: IngestJob) -> bool {
    let source = job.source_id.clone();
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run_ingest_job(job).await }
    });
    match run.await {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            tracing::error!(worker, %source, error = %e, "ingest job failed; it will be retried");
            false
        }
        Err(e) => {
            tracing::error!(worker, %source, error = %e, "ingest job panicked; it will be retried");
            false
        }
    }
}

/// How long one receive waits for a message (SQS long polling).
const RECEIVE_WAIT: Duration = Duration::from_secs(1);
/// After a failed receive (the queue is unreachable), before the next.
const RECEIVE_BACKOFF: Duration = Duration::from_secs(2);

/// The ingest workers of `lore serve --backend aws`: [`WORKERS`] consumers of the SQS ingest
/// queue (what the ingest-worker Lambda's event source does on AWS) and the sweeper. A job is
/// deleted from the queue when its run finished; a failed run's message comes back after the
/// queue's visibility timeout. The sweeper does not adopt runs at start: on a shared table
/// another process (a Lambda worker) may own them, so only expired leases are taken.
pub fn spawn_sqs(app: App, queue: lore_aws::SqsPoller) -> Workers {
    let mut tasks = Vec::new();
    for n in 0..WORKERS {
        let (app, queue) = (app.clone(), queue.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let messages = match queue.receive(1, RECEIVE_WAIT).await {
                    Ok(m) => m,
                    Err(e) => {
                        tracing::error!(worker = n, error = %e, "cannot receive ingest jobs");
                        tokio::time::sleep(RECEIVE_BACKOFF).await;
                        continue;
                    }
                };
                for message in messages {
                    let done = match lore_aws::parse_job(&message.body) {
                        Ok(job) => run_job(&app, n, job).await,
                        Err(e) => {
                            tracing::error!(worker = n, message = %message.message_id, error = %e, "dropping a message that is not an ingest job");
                            true
                        }
                    };
                    if done && let Err(e) = queue.delete(&message).await {
                        // Harmless: the job comes back and its generation guard makes it a no-op.
                        tracing::warn!(worker = n, error = %e, "could not delete a finished ingest job");
                    }
                }
            }
        }));
    }
    tasks.push(sweeper(app, false));
    Workers { tasks }
}

/// Batches of the deliveries queue being fanned out at once in `lore serve --backend aws`.
const EVENT_BATCHES_IN_FLIGHT: usize = 8;

/// The consumer of the deliveries queue for `lore serve --backend aws`: each EventBridge event
/// the bus's rule routed there is fanned out to its subscribers (then the dispatcher is woken
/// to attempt them) and deleted; a failed fan-out comes back after the visibility timeout.
///
/// One loop receives; each batch of ten is fanned out in its own task, up to
/// [`EVENT_BATCHES_IN_FLIGHT`] at once, so a backlog drains many events per round trip while an
/// idle queue costs one long poll. Measured on moto with 1,000 queued events ahead of a
/// knowledge event (`tests/api/webhooks.rs`): first attempt after 48 s when events were fanned
/// out one at a time, 0.1–2 s now (docs/limits.md "Webhooks").
pub fn spawn_event_consumer(app: App, queue: lore_aws::SqsPoller, signal: LocalSignal) -> Workers {
    let task = tokio::spawn(async move {
        let slots = Arc::new(Semaphore::new(EVENT_BATCHES_IN_FLIGHT));
        loop {
            let Ok(slot) = slots.clone().acquire_owned().await else { break };
            let messages = match queue.receive(10, RECEIVE_WAIT).await {
                Ok(m) if m.is_empty() => continue,
                Ok(m) => m,
                Err(e) => {
                    tracing::error!(error = %e, "cannot receive events from the deliveries queue");
                    tokio::time::sleep(RECEIVE_BACKOFF).await;
                    continue;
                }
            };
            let (app, queue, signal) = (app.clone(), queue.clone(), signal.clone());
            tokio::spawn(async move {
                if consume_events(&app, &queue, &messages).await {
                    signal.notify();
                }
                drop(slot);
            });
        }
    });
    Workers { tasks: vec![task] }
}

/// Fans a batch of queued events out and deletes the messages that are done (a failed
/// fan-out comes back after the visibility timeout). True when any was fanned out.
async fn consume_events(app: &App, queue: &lore_aws::SqsPoller, messages: &[lore_aws::Received]) -> bool {
    let mut done: Vec<&lore_aws::Received> = Vec::new();
    let mut events = Vec::new();
    let mut carriers = Vec::new();
    for message in messages {
        match lore_aws::parse_event(&message.body) {
            None => {
                tracing::error!(message = %message.message_id, "dropping a message that is not a Lore event");
                done.push(message);
            }
            Some(event) => {
                events.push(event);
                carriers.push(message);
            }
        }
    }
    let fanned = !events.is_empty();
    for (message, result) in carriers.into_iter().zip(app.fan_out_batch(&events).await) {
        match result {
            Ok(_) => done.push(message),
            Err(e) => tracing::error!(error = %e, "fan-out failed; the event will be retried"),
        }
    }
    match queue.delete_batch(&done).await {
        Ok(0) => {}
        Ok(n) => tracing::warn!(messages = n, "could not delete fanned-out events; they will be fanned out again"),
        Err(e) => tracing::warn!(error = %e, "could not delete fanned-out events; they will be fanned out again"),
    }
    fanned
}

/// Every [`SWEEP_EVERY`], restarts or fails runs whose lease expired and starts the scheduled
/// refreshes that are due. With `adopt`, the first
/// sweep takes every run in `processing` (this process owns the data dir alone) and sources
/// embedded by another model are queued for re-embedding.
fn sweeper(app: App, adopt_at_start: bool) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut adopt = adopt_at_start;
        loop {
            match app.sweep_stale_runs(adopt).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(runs = n, "sweeper restarted or failed stale processing runs"),
                Err(e) => tracing::error!(error = %e, "sweep failed"),
            }
            match app.refresh_due_sources(lore_domain::Timestamp::now()).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(sources = n, "started scheduled refreshes"),
                Err(e) => tracing::error!(error = %e, "could not start scheduled refreshes"),
            }
            if adopt && let Err(e) = app.reembed_other_models().await {
                tracing::error!(error = %e, "could not start re-embedding sources of another model");
            }
            adopt = false;
            tokio::time::sleep(SWEEP_EVERY).await;
        }
    })
}

/// How often the dispatcher looks for due deliveries without being woken: retries fire within
/// this of their time.
pub const DISPATCH_POLL: Duration = Duration::from_millis(250);
/// Outbox events fanned out per round.
pub const FAN_OUT_BATCH: u32 = 100;

/// Starts the webhook dispatcher of `lore serve`: each round it fans out new outbox events
/// and starts the attempts that are due, then sleeps until woken (a submission, an event, a
/// finished attempt) or [`DISPATCH_POLL`] passes. The schedule is in the store, so a restarted
/// server picks up where the last one stopped; it first takes over the attempts its
/// predecessor left in flight.
pub fn spawn_dispatcher(app: App, signal: LocalSignal) -> Workers {
    let task = tokio::spawn(async move {
        match app.release_delivery_claims().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deliveries = n, "took over webhook attempts left in flight by a previous run"),
            Err(e) => tracing::error!(error = %e, "could not take over earlier webhook attempts"),
        }
        // Attempts in flight at once (`LORE_WEBHOOK_CONCURRENCY`); each waits at most the
        // attempt timeout.
        let slots = Arc::new(Semaphore::new(app.config().webhook_concurrency.max(1)));
        loop {
            match app.fan_out_pending(FAN_OUT_BATCH).await {
                // A full batch: there may be more, so do not wait for the next round.
                Ok(n) if n == FAN_OUT_BATCH as usize => signal.notify(),
                Ok(_) => {}
                Err(e) => tracing::error!(error = %e, "fan-out failed; retrying next round"),
            }
            let free = slots.available_permits();
            if free > 0 {
                match app.claim_due(Timestamp::now(), free as u32).await {
                    Ok(claimed) => {
                        for d in claimed {
                            let Ok(permit) = slots.clone().acquire_owned().await else { break };
                            let (app, signal) = (app.clone(), signal.clone());
                            let id = d.id.clone();
                            // Its own task: a slow receiver holds only its slot, and a panic
                            // ends only this attempt (the claim expires and it is retried).
                            tokio::spawn(async move {
                                if let Err(e) = app.attempt_claimed(d).await {
                                    tracing::error!(delivery = %id, error = %e, "attempt not recorded; it will be retried");
                                }
                                drop(permit);
                                signal.notify();
                            });
                        }
                    }
                    Err(e) => tracing::error!(error = %e, "could not claim due deliveries"),
                }
            }
            tokio::select! {
                _ = signal.notified() => {}
                _ = tokio::time::sleep(DISPATCH_POLL) => {}
            }
        }
    });
    Workers { tasks: vec![task] }
}
