//! Lore's AWS adapters: the record ports and the rate limiter on one DynamoDB table, files on
//! S3 (served through a CDN), the ingest job queue on SQS and the event bus on EventBridge.
//! They implement the same ports as the embedded adapters (`lore-local`) and pass the same
//! conformance suites (`lore_app::conformance`), run against a moto server in `tests/`.
//!
//! Table design and access patterns: `infra/dynamodb.md`; message shapes: `infra/messages.md`.

mod backend;
pub mod dynamo;
pub mod eventbridge;
mod http_client;
mod lazy_client;
pub mod s3;
pub mod secrets;
pub mod settings;
pub mod sqs;

pub use backend::{AwsBackend, bootstrap, deliveries_rule_pattern, load_sdk_config, local_sdk_config};
pub use dynamo::DynamoStore;
pub use eventbridge::{EVENT_SOURCE, EventBridgeBus, event_detail, parse_event};
pub use http_client::shared_https_client;
pub use s3::S3BlobStore;
pub use settings::{AwsSettings, QueueRef};
pub use sqs::{NotAJob, Received, SqsJobQueue, SqsPoller, job_body, parse_job};
