//! The cold-start peer of the AWS composition row (docs/benchmarks.md): the hello world of
//! `hello_lambda.rs` plus what every AWS function needs at the least, a DynamoDB client made at
//! init from the environment's SDK configuration, and one `GetItem` per request (`HELLO_TABLE`,
//! key `HELLO_PK`). Answers 200 when the read succeeded, 500 otherwise.

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
    let app = Router::new().fallback(move || {
        let (client, table, pk) = (client.clone(), table.clone(), pk.clone());
        async move {
            let read = client
                .get_item()
                .table_name(table)
                .key("pk", AttributeValue::S(pk.clone()))
                .key("sk", AttributeValue::S(pk))
                .send()
                .await;
            match read {
                Ok(out) => {
                    (StatusCode::OK, Json(serde_json::json!({ "status": "success", "found": out.item.is_some() })))
                }
                Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, Json(serde_json::json!({ "error": e.to_string() }))),
            }
        }
    });
    lambda_http::run(app).await
}
