//! What the composition is made of: the storage ports a backend provides, the shared ports built
//! once for every backend, and the caller's choices. A leaf: the backend modules and the
//! assembly in `compose/mod.rs` import it, it imports none of them.

use lore_app::ports;
pub use lore_app::{SharedPorts, StoragePorts};
use lore_domain::delivery::RetrySchedule;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Which ports a process needs beyond the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    /// Everything: `lore serve`, and the functions that search or ingest.
    Everything,
    /// Records, files, queues and events only: no chunk index (on AWS: no database connection),
    /// no embedder and no transcriber, for the functions that never touch knowledge (forms,
    /// integrations, dispatcher).
    RecordsOnly,
}

/// Choices the environment cannot express, made by the caller (tests, mostly).
#[derive(Clone, Default)]
pub struct Overrides {
    /// Lift the request-protection address and port rules as `LORE_ALLOW_PRIVATE_NETWORK=true` does.
    pub allow_private_network: bool,
    /// Use this embedder instead of the one `LORE_EMBEDDER` names.
    pub embedder: Option<Arc<dyn ports::Embedder>>,
    /// Use this transcriber instead of the one `LORE_TRANSCRIBER` names.
    pub transcriber: Option<Arc<dyn ports::Transcriber>>,
    /// Use this responder instead of the one `LORE_RESPONDER` / `LORE_LLM_*` name.
    pub responder: Option<Arc<dyn ports::Responder>>,
    /// Use this speech model instead of the one `LORE_SPEECH*` names.
    pub speech: Option<Arc<dyn ports::Synthesizer>>,
    /// Re-rank hybrid search with this instead of what `LORE_RERANK_*` say.
    pub reranker: Option<Arc<dyn ports::Reranker>>,
    /// Wait this long between webhook attempts instead of `LORE_WEBHOOK_RETRY_SCHEDULE`.
    pub webhook_retry_schedule: Option<RetrySchedule>,
    /// Give up on a webhook attempt after this instead of `LORE_WEBHOOK_TIMEOUT_SECS`.
    pub webhook_timeout: Option<Duration>,
    /// Allow this many webhook subscriptions per workspace instead of `LORE_MAX_HOOKS_PER_WORKSPACE`.
    pub max_hooks_per_workspace: Option<u32>,
    /// End a run of answer tests after this instead of `LORE_TEST_RUN_TIMEOUT_SECS`.
    pub test_run_timeout: Option<Duration>,
    /// Give up on an action's call after this instead of `LORE_ACTION_TIMEOUT_SECS`.
    pub action_timeout: Option<Duration>,
    /// Allow this many active keys per workspace instead of `LORE_MAX_KEYS_PER_WORKSPACE`.
    pub max_keys_per_workspace: Option<u32>,
    /// Keep this many revoked keys per workspace instead of `LORE_MAX_REVOKED_KEYS_PER_WORKSPACE`.
    pub max_revoked_keys_per_workspace: Option<u32>,
    /// Allow this many public chat requests a minute per Mind instead of
    /// `LORE_PUBLIC_CHAT_PER_MIND_PER_MINUTE`.
    pub public_chat_per_mind_per_minute: Option<u32>,
    /// The AWS endpoint, resources and database of the aws backend, instead of the environment's.
    #[cfg(feature = "aws")]
    pub aws: Option<AwsOverrides>,
    /// The binary document parsers run in (`LORE_EXTRACT_ISOLATION=process`) instead of this
    /// process's own: in-process test servers, whose own binary is the test harness.
    pub extract_child_program: Option<PathBuf>,
    /// Read scanned PDFs with this text recognition instead of what `LORE_OCR*` says.
    pub ocr: Option<ports::OcrSettings>,
    /// Talk to Slack, Telegram and WhatsApp through this instead of a client of the
    /// `LORE_*_API_URL` settings.
    pub channel_platform: Option<Arc<dyn ports::ChannelPlatform>>,
}

/// What tests (and embedders of the library) choose instead of the environment on AWS.
#[cfg(feature = "aws")]
#[derive(Clone)]
pub struct AwsOverrides {
    /// The SDK configuration (endpoint, region, credentials).
    pub sdk: aws_config::SdkConfig,
    pub settings: lore_aws::AwsSettings,
    /// The pgvector database, instead of `LORE_DATABASE_URL` / `LORE_DATABASE_SECRET_ARN`.
    pub database_url: Option<String>,
}

#[cfg(feature = "aws")]
impl AwsOverrides {
    /// A fresh stack named `<prefix>-<unique id>` on the AWS-compatible service at `endpoint`
    /// (moto), with the pgvector database at `database_url`: what tests and benches run the AWS
    /// composition on.
    pub async fn local(endpoint: &str, database_url: &str, prefix: &str) -> Self {
        let id = lore_domain::id::SourceId::generate();
        let name = format!("{prefix}-{}", &id.as_str()[4..]).to_lowercase();
        Self {
            sdk: lore_aws::local_sdk_config(endpoint).await,
            settings: lore_aws::AwsSettings::local(&name, endpoint),
            database_url: Some(database_url.to_owned()),
        }
    }
}
