//! The cold-start peer of the AWS composition row (docs/benchmarks.md): the hello world of
//! `hello_lambda.rs` plus what every AWS function needs at the least, a DynamoDB client made at
//! init from the environment's SDK configuration, and one `GetItem` per request (`HELLO_TABLE`,
//! key `HELLO_PK`). Answers 200 when the reads succeeded, 500 otherwise.
//!
//! `HELLO_THEN_AT_ONCE=N` (default 0) makes it read N more times after the first, the N reads at
//! once: the call pattern of a handler that updates a key's item first and then reads its
//! independent records (`GET chatbot`: 1, then 1; `GET Mind`: 1, then 4), so each route group's
//! row can be set against a peer making as many calls.

use aws_sdk_dynamodb::types::AttributeValue;
use axum::Router;
use axum::http::StatusCode;
use axum::response::Json;

#[tokio::main]
async fn main() -> Result<(), lambda_http::Error> {
    lambda_http::tracing::init_default_subscriber();
    let sdk = aws_config::load_defaults(aws_config::BehaviorVersion::latest()).await;
    let client = aws_sdk_dynamodb::Client::new(&sdk);
    let table = std::env::var("HELLO_TABLE").unwrap_or_else(|_| "hello".into());
    let pk = std::env::var("HELLO_PK").unwrap_or_else(|_| "hello".into());
    let then_at_once: usize = std::env::var("HELLO_THEN_AT_ONCE").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let app = Router::new().fallback(move || {
        let (client, table, pk) = (client.clone(), table.clone(), pk.clone());
        async move {
            let read = || {
                client
                    .get_item()
                    .table_name(table.clone())
                    .key("pk", AttributeValue::S(pk.clone()))
                    .key("sk", AttributeValue::S(pk.clone()))
                    .send()
            };
            let first = read().await;
            let rest = match &first {
                Ok(_) => futures::future::try_join_all((0..then_at_once).map(|_| read())).await.map(|_| ()),
                Err(_) => Ok(()),
            };
            match (first, rest) {
                (Ok(out), Ok(())) => {
                    (StatusCode::OK, Json(serde_json::json!({ "status": "success", "found": out.item.is_some() })))
                }
                (Err(e), _) => (StatusCode::INTERNAL_SERVER_ERROR, Json(serde_json::json!({ "error": e.to_string() }))),
                (_, Err(e)) => (StatusCode::INTERNAL_SERVER_ERROR, Json(serde_json::json!({ "error": e.to_string() }))),
            }
        }
    });
    lambda_http::run(app).await
}
