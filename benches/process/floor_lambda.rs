//! The harness floor of the cold-start row (the performance budgets (docs/benchmarks.md)): a bare `lambda_runtime` loop that echoes
//! its event. Spawn → first response of this binary is what process start-up, the Tokio runtime,
//! the Runtime API client and the emulator cost before any function code runs.

use lambda_runtime::{Error, LambdaEvent, service_fn};

#[tokio::main]
async fn main() -> Result<(), Error> {
    lambda_runtime::run(service_fn(
        |event: LambdaEvent<serde_json::Value>| async move { Ok::<_, Error>(event.payload) },
    ))
    .await
}
