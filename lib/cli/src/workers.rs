//! The in-process workers of `lore serve`: ingest workers, their sweeper, and the webhook
//! dispatcher.

use lore_app::App;
use lore_app::ports::DispatchSignal;
use lore_app::ports::Job;
use lore_domain::Timestamp;
use lore_local::FairQueue;
use lore_local::LocalSignal;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

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
    tasks.push(replies(app.clone(), jobs));
    tasks.push(sweeper(app, true));
    Workers { tasks }
}

/// Channels' messages to answer held at once: each answer waits for a model (and holds one of
/// its workspace's answer slots), so more would only wait there.
pub(crate) const REPLIES_AT_ONCE: usize = 32;

/// Answers channels' messages (docs/api.md §24) as they come, beside the ingest workers: a
/// message never waits for a processing run.
fn replies(app: App, jobs: Arc<FairQueue>) -> JoinHandle<()> {
    let running = Arc::new(Semaphore::new(REPLIES_AT_ONCE));
    tokio::spawn(async move {
        while let Some(job) = jobs.take_reply().await {
            let Ok(permit) = running.clone().acquire_owned().await else { return };
            let app = app.clone();
            tokio::spawn(async move {
                // Answered at most once (`App::run_channel_job`); a store failure before that is
                // logged by `run_job` and the platform's redelivery answers it.
                run_job(&app, 0, job).await;
                drop(permit);
            });
        }
    })
}

/// Runs one job in its own task, so that a panic inside it cannot kill the worker. True when
/// the run finished (whatever the source's outcome); false when it must be retried.
async fn run_job(app: &App, worker: usize, job: Job) -> bool {
    let what = match &job {
        Job::Ingest(j) => j.source_id.to_string(),
        Job::TestRun(j) => j.run_id.to_string(),
        Job::Channel(j) => j.channel_id.to_string(),
    };
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run_job(job).await }
    });
    match run.await {
        Ok(Ok(())) => true,
        Ok(Err(e)) => {
            tracing::error!(worker, job = %what, error = %e, "job failed; it will be retried");
            false
        }
        Err(e) => {
            tracing::error!(worker, job = %what, error = %e, "job panicked; it will be retried");
            false
        }
    }
}

#[cfg(feature = "aws")]
mod sqs;
#[cfg(feature = "aws")]
pub use sqs::{WORKERS, spawn_event_consumer, spawn_sqs};

/// Every [`SWEEP_EVERY`], restarts or fails runs whose lease expired and starts the scheduled
/// refreshes that are due. With `adopt`, the first
/// sweep takes every run in `processing` (this process owns the data dir alone) and sources
/// embedded by another model are queued for re-embedding.
fn sweeper(app: App, adopt_at_start: bool) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut adopt = adopt_at_start;
        let mut last_retention = None;
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
            if last_retention.is_none_or(|at: std::time::Instant| at.elapsed() >= RETENTION_EVERY) {
                last_retention = Some(std::time::Instant::now());
                if let Err(e) = app.expire_conversations(lore_domain::Timestamp::now()).await {
                    tracing::error!(error = %e, "could not delete expired conversations");
                }
                // Audit entries older than 365 days (docs/api.md §22), with the same sweep.
                if let Err(e) = app.expire_audit(lore_domain::Timestamp::now()).await {
                    tracing::error!(error = %e, "could not delete expired audit entries");
                }
            }
            if adopt && let Err(e) = app.reembed_other_models().await {
                tracing::error!(error = %e, "could not start re-embedding sources of another model");
            }
            adopt = false;
            tokio::time::sleep(SWEEP_EVERY).await;
        }
    })
}

/// How often conversations past their owner's retention are looked for (docs/api.md §22): well
/// within the hour the contract allows.
pub const RETENTION_EVERY: Duration = Duration::from_secs(600);

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
