//! The job queue on SQS (`JobQueue`). The message body is JSON (infra/messages.md):
//!
//! ```json
//! {"type":"ingest","workspaceId":"ws_…","sourceId":"src_…","generation":3}
//! {"type":"tests","workspaceId":"ws_…","owner":"cb_…","runId":"run_…"}
//! ```
//!
//! The ingest-worker Lambda turns each record of its SQS batch back into a job with
//! [`parse_job`]. Delivery is at least once: the worker's writes are guarded by the generation,
//! so a repeated job is harmless.

use crate::lazy_client::LazyClient;
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_sqs::Client;
use aws_sdk_sqs::error::DisplayErrorContext;
use lore_app::ports::{ChannelJob, IngestJob, Job, JobQueue, TestRunJob};
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::channel::ChannelThread;
use lore_domain::channel::inbound::InboundMessage;
use lore_domain::id::{ChannelId, SourceId, TestRunId, WorkspaceId};
use lore_domain::source::SourceOwner;
use serde_json::{Value, json};

/// The `type` of ingest job messages.
pub const INGEST_MESSAGE_TYPE: &str = "ingest";
/// The `type` of answer-test run messages.
pub const TESTS_MESSAGE_TYPE: &str = "tests";
/// The `type` of a channel's message to answer (docs/api.md §24).
pub const CHANNEL_MESSAGE_TYPE: &str = "channel";

/// The message body of a job.
pub fn job_body(job: &Job) -> String {
    match job {
        Job::Ingest(job) => json!({
            "type": INGEST_MESSAGE_TYPE,
            "workspaceId": job.workspace_id,
            "sourceId": job.source_id,
            "generation": job.generation,
        }),
        Job::TestRun(job) => json!({
            "type": TESTS_MESSAGE_TYPE,
            "workspaceId": job.workspace_id,
            "owner": job.owner.as_str(),
            "runId": job.run_id,
        }),
        Job::Channel(job) => {
            let m = &job.message;
            json!({
                "type": CHANNEL_MESSAGE_TYPE,
                "workspaceId": job.workspace_id,
                "channelId": job.channel_id,
                "chat": m.thread.chat,
                "thread": m.thread.thread,
                "userId": m.user_id,
                "userName": m.user_name,
                "text": m.text,
                "replyTo": m.reply_to,
                "deliveryId": m.delivery_id,
                "greeting": m.greeting,
            })
        }
    }
    .to_string()
}

/// Why a message body is not a job.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a job message: {0}")]
pub struct NotAJob(String);

/// The job in a message body [`job_body`] made. Unknown members are ignored.
pub fn parse_job(body: &str) -> Result<Job, NotAJob> {
    let v: Value = serde_json::from_str(body).map_err(|e| NotAJob(format!("invalid JSON ({e})")))?;
    let workspace_id =
        v["workspaceId"].as_str().and_then(WorkspaceId::parse).ok_or_else(|| NotAJob("workspaceId".into()))?;
    match v["type"].as_str() {
        Some(INGEST_MESSAGE_TYPE) => {
            let source_id =
                v["sourceId"].as_str().and_then(SourceId::parse).ok_or_else(|| NotAJob("sourceId".into()))?;
            let generation = v["generation"].as_u64().ok_or_else(|| NotAJob("generation".into()))?;
            Ok(Job::Ingest(IngestJob { workspace_id, source_id, generation }))
        }
        Some(TESTS_MESSAGE_TYPE) => {
            let owner = v["owner"].as_str().and_then(SourceOwner::parse).ok_or_else(|| NotAJob("owner".into()))?;
            let run_id = v["runId"].as_str().and_then(TestRunId::parse).ok_or_else(|| NotAJob("runId".into()))?;
            Ok(Job::TestRun(TestRunJob { workspace_id, owner, run_id }))
        }
        Some(CHANNEL_MESSAGE_TYPE) => {
            let channel_id =
                v["channelId"].as_str().and_then(ChannelId::parse).ok_or_else(|| NotAJob("channelId".into()))?;
            let text = |k: &str| v[k].as_str().map(str::to_owned).ok_or_else(|| NotAJob(k.into()));
            let optional = |k: &str| v[k].as_str().map(str::to_owned);
            let message = InboundMessage {
                thread: ChannelThread { chat: text("chat")?, thread: optional("thread") },
                user_id: text("userId")?,
                user_name: optional("userName"),
                text: text("text")?,
                reply_to: optional("replyTo"),
                delivery_id: text("deliveryId")?,
                greeting: v["greeting"].as_bool().unwrap_or(false),
            };
            Ok(Job::Channel(ChannelJob { workspace_id, channel_id, message }))
        }
        _ => Err(NotAJob(format!("type is {}", v["type"]))),
    }
}

pub struct SqsJobQueue {
    client: LazyClient<Client>,
    queue_url: String,
}

impl SqsJobQueue {
    pub fn new(client: Client, queue_url: impl Into<String>) -> Self {
        Self { client: LazyClient::ready(client), queue_url: queue_url.into() }
    }

    /// A queue whose client is made on its first call.
    pub fn on_first_use(sdk: &SdkConfig, queue_url: impl Into<String>) -> Self {
        let sdk = sdk.clone();
        Self { client: LazyClient::new(move || Client::new(&sdk)), queue_url: queue_url.into() }
    }

    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }

    pub fn client(&self) -> &Client {
        self.client.get()
    }
}

#[async_trait]
impl JobQueue for SqsJobQueue {
    async fn enqueue(&self, job: Job) -> StoreResult<()> {
        self.client()
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(job_body(&job))
            .send()
            .await
            .map_err(|e| StoreError::Unavailable(format!("sqs: {}", DisplayErrorContext(e))))?;
        Ok(())
    }
}

/// A message taken from a queue: invisible to other consumers until deleted or until its
/// visibility timeout passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub message_id: String,
    pub body: String,
    pub receipt_handle: String,
}

/// A consumer of one queue: what the Lambda event source mapping does on AWS, done by hand for
/// `lore serve --backend aws`.
#[derive(Clone)]
pub struct SqsPoller {
    client: Client,
    queue_url: String,
}

impl SqsPoller {
    pub fn new(client: Client, queue_url: impl Into<String>) -> Self {
        Self { client, queue_url: queue_url.into() }
    }

    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }

    /// Up to `max` (1..=10) messages, waiting at most `wait` (long polling, whole seconds) for the first.
    pub async fn receive(&self, max: i32, wait: std::time::Duration) -> StoreResult<Vec<Received>> {
        let out = self
            .client
            .receive_message()
            .queue_url(&self.queue_url)
            .max_number_of_messages(max.clamp(1, 10))
            .wait_time_seconds(wait.as_secs().min(20) as i32)
            .send()
            .await
            .map_err(|e| StoreError::Unavailable(format!("sqs: {}", DisplayErrorContext(e))))?;
        Ok(out
            .messages
            .unwrap_or_default()
            .into_iter()
            .filter_map(|m| {
                Some(Received {
                    message_id: m.message_id.unwrap_or_default(),
                    body: m.body.unwrap_or_default(),
                    receipt_handle: m.receipt_handle?,
                })
            })
            .collect())
    }

    /// Removes handled messages, ten per request; the ones that could not be removed (they
    /// come back after the visibility timeout, and handling them again is harmless).
    pub async fn delete_batch(&self, messages: &[&Received]) -> StoreResult<usize> {
        use aws_sdk_sqs::types::DeleteMessageBatchRequestEntry;
        let mut failed = 0;
        for chunk in messages.chunks(10) {
            let entries = chunk
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    DeleteMessageBatchRequestEntry::builder()
                        .id(i.to_string())
                        .receipt_handle(&m.receipt_handle)
                        .build()
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| StoreError::Unavailable(format!("sqs: {e}")))?;
            let out = self
                .client
                .delete_message_batch()
                .queue_url(&self.queue_url)
                .set_entries(Some(entries))
                .send()
                .await
                .map_err(|e| StoreError::Unavailable(format!("sqs: {}", DisplayErrorContext(e))))?;
            failed += out.failed.len();
        }
        Ok(failed)
    }

    /// Removes a handled message.
    pub async fn delete(&self, message: &Received) -> StoreResult<()> {
        self.client
            .delete_message()
            .queue_url(&self.queue_url)
            .receipt_handle(&message.receipt_handle)
            .send()
            .await
            .map_err(|e| StoreError::Unavailable(format!("sqs: {}", DisplayErrorContext(e))))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_round_trip_and_strangers_are_refused() {
        let job: Job =
            IngestJob { workspace_id: WorkspaceId::generate(), source_id: SourceId::generate(), generation: 7 }.into();
        assert_eq!(parse_job(&job_body(&job)), Ok(job.clone()));
        let run: Job = TestRunJob {
            workspace_id: WorkspaceId::generate(),
            owner: SourceOwner::Mind(lore_domain::id::MindId::generate()),
            run_id: TestRunId::generate(),
        }
        .into();
        assert_eq!(parse_job(&job_body(&run)), Ok(run));
        let message: Job = ChannelJob {
            workspace_id: WorkspaceId::generate(),
            channel_id: ChannelId::generate(),
            message: InboundMessage {
                thread: ChannelThread { chat: "C1".into(), thread: Some("1700.01".into()) },
                user_id: "U1".into(),
                user_name: None,
                text: "Where is \"my\" order?\n".into(),
                reply_to: Some("1700.02".into()),
                delivery_id: "Ev1".into(),
                greeting: false,
            },
        }
        .into();
        assert_eq!(parse_job(&job_body(&message)), Ok(message));
        let extra = job_body(&job).replacen('{', r#"{"future":1,"#, 1);
        assert_eq!(parse_job(&extra), Ok(job), "unknown members are ignored");
        for bad in [
            "",
            "[]",
            r#"{"type":"other"}"#,
            r#"{"type":"tests","workspaceId":"ws_01arz3ndektsv4rrffq69g5fav","owner":"src_01arz3ndektsv4rrffq69g5fav","runId":"run_01arz3ndektsv4rrffq69g5fav"}"#,
            r#"{"type":"ingest","workspaceId":"ws_x","sourceId":"src_x","generation":1}"#,
            r#"{"type":"ingest","workspaceId":"ws_01arz3ndektsv4rrffq69g5fav","sourceId":"src_01arz3ndektsv4rrffq69g5fav"}"#,
        ] {
            assert!(parse_job(bad).is_err(), "{bad}");
        }
    }
}
