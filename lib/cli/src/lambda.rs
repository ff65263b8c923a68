//! The handlers of the two background Lambdas, over the use cases; their `main`s are a few lines.
//!
//! - `ingest-worker`: an SQS batch of ingest jobs (`infra/messages.md`; parsed by `lore_aws::parse_job`) → one processing run each,
//!   with partial batch failure reporting so only failed messages come back.
//! - `webhook-dispatcher`: an SQS batch of EventBridge events (`knowledge.source.*`,
//!   `form_response`; parsed by `lore_aws::parse_event`) → fan-out to matching subscriptions and delivery; or the 1-minute schedule
//!   → due retries, the outbox, and the stuck-processing sweep.

use aws_lambda_events::event::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lore_app::App;
use lore_domain::Timestamp;
use serde_json::{Value, json};

/// Deliveries attempted per invocation; the schedule picks up what is left a minute later.
const DISPATCH_LIMIT: u32 = 100;

fn failure(id: String) -> BatchItemFailure {
    let mut f = BatchItemFailure::default();
    f.item_identifier = id;
    f
}

/// Runs each job of the batch; reports the messages whose run hit a store failure (they come
/// back after the visibility timeout). A message that is not a job is logged and dropped:
/// retrying it cannot help (the DLQ would only collect noise). Channels' messages are answered
/// beside the batch's processing runs, not after them (a run can take minutes); the runs go one
/// at a time (each can use the whole instance's memory).
pub async fn ingest_batch(app: &App, batch: SqsEvent) -> SqsBatchResponse {
    let (mut replies, mut runs) = (Vec::new(), Vec::new());
    for record in batch.records {
        let id = record.message_id.clone().unwrap_or_default();
        match lore_aws::parse_job(record.body.as_deref().unwrap_or("")) {
            Err(e) => tracing::error!(message = %id, error = %e, "dropping a message that is not a job"),
            Ok(job @ lore_app::ports::Job::Channel(_)) => replies.push((id, job)),
            Ok(job) => runs.push((id, job)),
        }
    }
    let run = |(id, job): (String, lore_app::ports::Job)| async move {
        app.run_job(job).await.err().map(|e| {
            tracing::error!(message = %id, error = %e, "job failed; the message will be retried");
            failure(id)
        })
    };
    let answered = futures::future::join_all(replies.into_iter().map(run));
    let processed = async {
        let mut failed = Vec::new();
        for job in runs {
            failed.extend(run(job).await);
        }
        failed
    };
    let (answered, mut failures) = tokio::join!(answered, processed);
    failures.extend(answered.into_iter().flatten());
    let mut response = SqsBatchResponse::default();
    response.batch_item_failures = failures;
    response
}

/// Fans each event of an SQS batch out to its subscribers, then attempts what is due.
pub async fn dispatch_batch(app: &App, batch: SqsEvent) -> SqsBatchResponse {
    // The batch's events are fanned out together (`App::fan_out_batch`): a batch of events
    // nobody subscribed to costs about one round of store calls.
    let mut failures = Vec::new();
    let mut events = Vec::new();
    let mut ids = Vec::new();
    for record in batch.records {
        let id = record.message_id.clone().unwrap_or_default();
        match lore_aws::parse_event(record.body.as_deref().unwrap_or("")) {
            None => tracing::error!(message = %id, "dropping a message that is not a Lore event"),
            Some(event) => {
                events.push(event);
                ids.push(id);
            }
        }
    }
    for (id, result) in ids.into_iter().zip(app.fan_out_batch(&events).await) {
        if let Err(e) = result {
            tracing::error!(message = %id, error = %e, "fan-out failed; the message will be retried");
            failures.push(failure(id));
        }
    }
    if let Err(e) = app.dispatch_due(Timestamp::now(), DISPATCH_LIMIT).await {
        tracing::error!(error = %e, "dispatching due deliveries failed; the schedule retries");
    }
    let mut response = SqsBatchResponse::default();
    response.batch_item_failures = failures;
    response
}

/// The 1-minute schedule: the outbox, due retries, runs stuck past their lease, the scheduled
/// refreshes of url sources, and every [`RETENTION_EVERY_MINUTES`] minutes the conversations
/// past their owner's retention (docs/api.md §22).
pub async fn scheduled(app: &App) -> Result<Value, lore_app::AppError> {
    let fanned = app.fan_out_pending(DISPATCH_LIMIT).await?;
    let delivered = app.dispatch_due(Timestamp::now(), DISPATCH_LIMIT).await?;
    let swept = app.sweep_stale_runs(false).await?;
    let refreshes = app.refresh_due_sources(Timestamp::now()).await?;
    let now = Timestamp::now();
    let expired =
        if (now.millis() / 60_000) % RETENTION_EVERY_MINUTES == 0 { app.expire_conversations(now).await? } else { 0 };
    Ok(json!({ "fannedOut": fanned, "attempted": delivered, "sweptRuns": swept, "refreshesStarted": refreshes,
        "conversationsExpired": expired }))
}

/// How often the schedule deletes expired conversations: a walk of every workspace's owners is
/// not worth doing every minute, and six times an hour keeps "within an hour" with missed runs.
pub const RETENTION_EVERY_MINUTES: i64 = 10;

/// The dispatcher's entry: an SQS batch (has `Records`) or the scheduled EventBridge event.
pub async fn dispatcher(app: &App, event: Value) -> Result<Value, lore_app::AppError> {
    if event.get("Records").is_some_and(Value::is_array) {
        let batch: SqsEvent =
            serde_json::from_value(event).map_err(|e| lore_app::AppError::Storage(format!("not an SQS event: {e}")))?;
        let response = dispatch_batch(app, batch).await;
        return serde_json::to_value(response).map_err(|e| lore_app::AppError::Storage(e.to_string()));
    }
    scheduled(app).await
}

/// An API function's `main`: a document-parser child parses and exits here, before any runtime;
/// otherwise the composition is built once per execution environment and the router of `groups`
/// (with each request's client address, [`api_router`]) serves API Gateway's events.
pub fn api_main(groups: &[lore_http::RouteGroup], uses: crate::compose::Uses) -> Result<(), lambda_http::Error> {
    crate::compose::serve_extraction_child_if_requested();
    tokio::runtime::Builder::new_multi_thread().enable_all().build()?.block_on(async {
        crate::telemetry::init();
        let app = crate::compose::from_env(uses).await?;
        lambda_http::run(api_router(app, groups)).await
    })
}

/// The router an API function serves: `groups`, with each request's client address taken from
/// its event, so that the per-address budgets of the public routes (pages, visitor chat, the API
/// document) count on every function that serves one.
pub fn api_router(app: App, groups: &[lore_http::RouteGroup]) -> axum::Router {
    with_client_address(lore_http::router(app, groups))
}

/// `router` with each request's client address taken from its Lambda event (API Gateway's or
/// the function URL's `requestContext.http.sourceIp`), for public chat's per-address budget.
/// Headers such as `X-Forwarded-For` are never read: a client could write them.
pub fn with_client_address(router: axum::Router) -> axum::Router {
    use lambda_http::RequestExt;
    use lambda_http::request::RequestContext;
    router.layer(tower::util::MapRequestLayer::new(|mut req: axum::http::Request<axum::body::Body>| {
        let ip = match req.request_context_ref() {
            Some(RequestContext::ApiGatewayV2(ctx)) => ctx.http.source_ip.as_deref().and_then(|s| s.parse().ok()),
            _ => None,
        };
        if let Some(ip) = ip {
            req.extensions_mut().insert(lore_http::ClientAddress(ip));
        }
        req
    }))
}
