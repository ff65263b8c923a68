//! The queue consumers of `lore serve --backend aws`: what the Lambda event sources do on AWS
//! (ingest jobs from SQS, events from the deliveries queue), run in the server's process.

use super::{Workers, run_job, sweeper};
use lore_app::App;
use lore_app::ports::DispatchSignal;
use lore_app::ports::Job;
use lore_local::LocalSignal;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// Concurrent processing runs of `lore serve --backend aws` (SQS consumers). Extraction and
/// embedding are CPU-bound; two fit two cores.
pub const WORKERS: usize = 2;
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
    let replies = std::sync::Arc::new(tokio::sync::Semaphore::new(super::REPLIES_AT_ONCE));
    for n in 0..WORKERS {
        let (app, queue, replies) = (app.clone(), queue.clone(), replies.clone());
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
                        // A channel's message is answered beside the processing runs, as the
                        // ingest-worker function does (docs/decisions.md "Channels").
                        Ok(job @ Job::Channel(_)) => {
                            let (app, queue) = (app.clone(), queue.clone());
                            let Ok(permit) = replies.clone().acquire_owned().await else { break };
                            tokio::spawn(async move {
                                let _permit = permit;
                                if run_job(&app, n, job).await
                                    && let Err(e) = queue.delete(&message).await
                                {
                                    tracing::warn!(worker = n, error = %e, "could not delete an answered channel job");
                                }
                            });
                            continue;
                        }
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
