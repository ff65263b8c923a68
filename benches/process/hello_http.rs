//! The API-overhead and idle-memory peer of the performance budgets (docs/benchmarks.md): an axum/hyper hello world on the same
//! machine, served like `lore serve` (multi-threaded Tokio runtime, `axum::serve`).
//!
//! `process-hello-http 127.0.0.1:PORT`

use axum::Router;
use axum::routing::get;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:3001".to_owned());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    axum::serve(listener, Router::new().route("/", get(|| async { "Hello, World!" }))).await
}
