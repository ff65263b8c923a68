//! The cold-start peer of the performance budgets (docs/benchmarks.md): a hello-world `lambda_http` + axum function, shaped like
//! `awslabs/aws-lambda-rust-runtime`'s `examples/http-axum` (default tracing subscriber, one
//! Router, `lambda_http::run`). It answers every request with a small JSON body. Built with the
//! same profile as the function binaries by `scripts/bench-process.sh`.

use axum::Router;
use axum::response::Json;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    lambda_http::tracing::init_default_subscriber();
    let app = Router::new().fallback(|| async { Json(serde_json::json!({ "status": "success", "message": "hello" })) });
    lambda_http::run(app).await
}
