//! Running a parser so that its failures stay contained (docs/ARCHITECTURE.md): off the async runtime, with
//! panics caught, under a time limit, with a bounded number running at once.
//!
//! What a timeout can and cannot do: a blocking thread cannot be killed. When the time limit
//! passes the caller gets `TimedOut` at once, but the parser keeps running on its blocking
//! thread until it returns by itself (its result is then dropped). Such a job keeps its
//! semaphore permit until its thread finishes, so hung parsers occupy at most `permits` threads
//! and never pile up without bound; while all permits are held by hung parsers, new
//! extractions wait for a permit (that wait counts against their own time limit) and time out.
//!
//! Nothing global is installed: no panic hook is set (the process may have its own, which will
//! still print the panic as usual), and the parser's own stdout/stderr output is not captured.

use lore_app::ports::ExtractError;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;
use tokio::time::Instant;

/// Runs `job` on a blocking thread once a permit is free, with panics turned into
/// `Corrupt("the parser failed: …")` and the whole (waiting + running) bounded by `timeout`.
///
/// The budget is strict: a result that arrives after the deadline is discarded as `TimedOut`
/// too (the timer has millisecond granularity, so it alone would let late results through —
/// and a zero budget would not reliably time out).
pub(crate) async fn run_isolated<T, F>(permits: &Arc<Semaphore>, timeout: Duration, job: F) -> Result<T, ExtractError>
where
    F: FnOnce() -> Result<T, ExtractError> + Send + 'static,
    T: Send + 'static,
{
    let permits = Arc::clone(permits);
    let work = async move {
        let permit = permits
            .acquire_owned()
            .await
            .map_err(|_| ExtractError::Corrupt("the extraction service is shutting down".into()))?;
        let handle = tokio::task::spawn_blocking(move || {
            // Held until the parser returns, also when the caller has stopped waiting.
            let _permit = permit;
            catch_unwind(AssertUnwindSafe(job))
        });
        match handle.await {
            Ok(Ok(result)) => result,
            Ok(Err(payload)) => Err(parser_failed(payload.as_ref())),
            // Only if the runtime is shutting down (panics are caught above).
            Err(join_error) => Err(ExtractError::Corrupt(format!("the parser failed: {join_error}"))),
        }
    };
    let deadline = Instant::now().checked_add(timeout);
    let outcome = match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, work).await.ok().filter(|_| Instant::now() <= deadline),
        // A budget beyond the clock's range: no limit.
        None => Some(work.await),
    };
    match outcome {
        Some(result) => result,
        None => {
            tracing::warn!(?timeout, "document extraction timed out; the parser thread runs on until it returns");
            Err(ExtractError::TimedOut(timeout))
        }
    }
}

pub(crate) fn parser_failed(payload: &(dyn Any + Send)) -> ExtractError {
    let message = if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-text payload".to_owned()
    };
    tracing::warn!(panic = %message, "a document parser panicked");
    ExtractError::Corrupt(format!("the parser failed: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn permits(n: usize) -> Arc<Semaphore> {
        Arc::new(Semaphore::new(n))
    }

    #[tokio::test]
    async fn returns_the_job_result() {
        let result = run_isolated(&permits(1), Duration::from_secs(5), || Ok::<_, ExtractError>(42)).await;
        assert_eq!(result, Ok(42));
        let error =
            run_isolated(&permits(1), Duration::from_secs(5), || Err::<(), _>(ExtractError::Corrupt("bad".into())))
                .await;
        assert_eq!(error, Err(ExtractError::Corrupt("bad".into())));
    }

    #[tokio::test]
    async fn a_panic_becomes_corrupt_with_its_message() {
        let result: Result<(), _> =
            run_isolated(&permits(1), Duration::from_secs(5), || panic!("index out of bounds: boom")).await;
        assert_eq!(result, Err(ExtractError::Corrupt("the parser failed: index out of bounds: boom".into())));

        let code = 7;
        let result: Result<(), _> =
            run_isolated(&permits(1), Duration::from_secs(5), move || panic!("formatted {code}")).await;
        assert_eq!(result, Err(ExtractError::Corrupt("the parser failed: formatted 7".into())));

        let result: Result<(), _> =
            run_isolated(&permits(1), Duration::from_secs(5), || std::panic::panic_any(17_u32)).await;
        assert_eq!(result, Err(ExtractError::Corrupt("the parser failed: panic with a non-text payload".into())));
    }

    #[tokio::test]
    async fn a_zero_budget_always_times_out() {
        for _ in 0..50 {
            let result = run_isolated(&permits(1), Duration::ZERO, || Ok(())).await;
            assert_eq!(result, Err(ExtractError::TimedOut(Duration::ZERO)));
        }
    }

    #[tokio::test]
    async fn a_slow_job_times_out_and_keeps_its_permit_until_it_ends() {
        let permits = permits(1);
        let started = Instant::now();
        let result = run_isolated(&permits, Duration::from_millis(50), || {
            std::thread::sleep(Duration::from_millis(600));
            Ok(())
        })
        .await;
        assert_eq!(result, Err(ExtractError::TimedOut(Duration::from_millis(50))));
        assert!(started.elapsed() < Duration::from_millis(500), "the caller does not wait for the parser");

        // The hung job still holds the only permit: the next job waits and times out too.
        assert_eq!(permits.available_permits(), 0);
        let queued = run_isolated(&permits, Duration::from_millis(50), || Ok(1)).await;
        assert_eq!(queued, Err(ExtractError::TimedOut(Duration::from_millis(50))));

        // Once the parser returns by itself, its permit is free again.
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(permits.available_permits(), 1);
        assert_eq!(run_isolated(&permits, Duration::from_secs(5), || Ok(2)).await, Ok(2));
    }
}
