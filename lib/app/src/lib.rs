//! Lore use cases and the ports they need. Names no database, framework or cloud: adapters
//! implement the ports, entry points compose them.

mod across_languages;
pub mod actions;
pub mod admin;
pub mod analytics;
pub mod answer_tests;
pub mod audit;
pub mod auth;
pub mod channels;
pub mod chatbots;
pub mod chunking;
pub mod chunks;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod conversations;
pub mod error;
pub mod files;
pub mod followup;
pub mod forms;
mod ingest;
pub mod keys;
pub mod mind_sources;
pub mod minds;
pub mod ports;
pub mod privacy;
pub mod privacy_requests;
pub mod public_chat;
pub mod repeated;
pub mod search;
pub mod slots;
pub mod sources;
pub mod speech;
pub mod webhooks;

pub use error::AppError;
pub use ports::StoreError;

use std::sync::Arc;
use std::time::Duration;

/// Deployment settings the use cases read.
#[derive(Debug, Clone)]
pub struct AppConfig {
    /// How long a resolved key may be reused without asking the store. Bounded so that a
    /// revoked key is refused within 5 s (docs/api.md §16.25).
    pub key_cache_ttl: Duration,
    pub chunking: chunking::ChunkSettings,
    /// Crawl bounds (docs/api.md §6): pages per crawl, bytes and seconds per page.
    pub crawl_max_pages: usize,
    pub crawl_max_page_bytes: usize,
    pub crawl_page_timeout: Duration,
    pub extract_limits: ports::ExtractLimits,
    /// How long a worker owns a processing run before the sweeper may take it over.
    pub lease: Duration,
    /// Runs started per processing request before the source is set to `error`: a run whose
    /// worker died (a crash, a kill) is restarted by the sweeper until this many have started, so
    /// an input that kills its worker twice is not tried a third time (default 2).
    pub max_attempts: u32,
    /// Processing runs at once in `lore serve` (`LORE_INGEST_WORKERS`, default 2: extraction and
    /// embedding are CPU-bound; two fit two cores).
    pub ingest_workers: usize,
    /// Processing runs of one workspace at once in `lore serve`; its further jobs wait while
    /// other workspaces' jobs take turns (`LORE_INGEST_JOBS_PER_WORKSPACE`, default 1).
    pub ingest_jobs_per_workspace: usize,
    /// Webhook subscriptions one workspace may have, active or disabled; one more is
    /// `webhooks_limit_reached` (`LORE_MAX_HOOKS_PER_WORKSPACE`, default 100).
    pub max_hooks_per_workspace: u32,
    /// Keys one workspace may have that are not revoked; one more made through the API is
    /// `keys_limit_reached` (`LORE_MAX_KEYS_PER_WORKSPACE`, default 100; the CLI is not bound).
    pub max_keys_per_workspace: u32,
    /// Revoked keys kept per workspace to be listed; revoking one more through the API deletes
    /// the records of the oldest revoked ones beyond this (`LORE_MAX_REVOKED_KEYS_PER_WORKSPACE`,
    /// default 100).
    pub max_revoked_keys_per_workspace: u32,
    /// Uploads of one workspace being received at once (multipart and signed PUTs); one more
    /// is `rate_limited` (`LORE_UPLOADS_PER_WORKSPACE`, default 2).
    pub uploads_per_workspace: u32,
    /// Answers of one workspace being written at once (each holds a model call or a retrieval);
    /// one more is `rate_limited` (`LORE_ANSWERS_PER_WORKSPACE`, default 4).
    pub answers_per_workspace: u32,
    /// How long a slot of those budgets stays held when its holder stops renewing it (a crashed
    /// or frozen instance); held slots are renewed every third of it (`LORE_SLOT_LEASE_SECS`,
    /// default 600: longer than the longest answer, so an answer keeps its slot even if every
    /// renewal fails).
    pub slot_lease: Duration,
    /// Public chat requests from one client address a minute (`LORE_PUBLIC_CHAT_PER_MINUTE`,
    /// default 20).
    pub public_chat_per_minute: u32,
    /// Public chat requests to one Mind a minute, from every address
    /// (`LORE_PUBLIC_CHAT_PER_MIND_PER_MINUTE`, default 300).
    pub public_chat_per_mind_per_minute: u32,
    /// Reads of the public pages and of the API document from one client address a minute
    /// (`LORE_PUBLIC_PAGES_PER_MINUTE`, default 120).
    pub public_pages_per_minute: u32,
    /// How long an upload no source uses stays stored and counted against the quota
    /// (`LORE_UPLOAD_RETENTION_HOURS`, default 24).
    pub upload_retention: Duration,
    /// The longest wait for the next bytes of a request body before the request ends with
    /// `request_timeout` (`LORE_BODY_READ_TIMEOUT_SECS`, default 30). Used by the HTTP layer.
    pub body_read_timeout: Duration,
    /// Bytes of query embeddings kept so that a repeated search question is embedded once
    /// (`LORE_QUERY_CACHE_BYTES`, default 16 MiB; 0 keeps none).
    pub query_cache_bytes: usize,
    /// Semantic candidates a hybrid search rescores by late interaction, at least
    /// (`LORE_RESCORE_CANDIDATES`, default 50, 1–500): more finds more, at ~1 ms of CPU per 25
    /// candidates for a dozen-word question.
    pub rescore_candidates: usize,
    /// Fused hybrid candidates a configured re-ranker scores, at least `topK`
    /// (`LORE_RERANK_CANDIDATES`, default 20, 1–100).
    pub rerank_candidates: usize,
    /// Where clients reach this service (`LORE_PUBLIC_BASE_URL`, no trailing `/`): the links of
    /// published Minds. `None`: the address each request reached.
    pub public_base_url: Option<String>,
    /// Where the public pages send their visitors' requests when not to their own origin
    /// (`LORE_STREAM_URL`, an origin): on AWS the streaming function's URL, because API Gateway
    /// buffers answers (docs/ARCHITECTURE.md, "Streaming answers on AWS"). `None`: the page's own.
    pub stream_url: Option<lore_domain::embed::Origin>,
    /// Identifies this process as a lease owner.
    pub instance_id: String,
    /// Waits between webhook attempts (`LORE_WEBHOOK_RETRY_SCHEDULE`, default `1m,5m,30m`).
    pub webhook_retry_schedule: lore_domain::delivery::RetrySchedule,
    /// Budget of one webhook attempt (docs/api.md §13: 30 s).
    pub webhook_timeout: Duration,
    /// How long a rotated-out webhook secret keeps signing deliveries
    /// (`LORE_WEBHOOK_SECRET_GRACE_HOURS`, default 24).
    pub webhook_secret_grace: Duration,
    /// The longest a receiver's `Retry-After` may delay a retry
    /// (`LORE_WEBHOOK_MAX_RETRY_AFTER_SECS`, default 86,400).
    pub webhook_max_retry_after: Duration,
    /// Consecutive failed deliveries that disable a subscription (docs/api.md §13: 20).
    pub hook_disable_after: u32,
    /// Webhook attempts `lore serve`'s dispatcher runs at once (`LORE_WEBHOOK_CONCURRENCY`,
    /// default 32, 1–1,024); each waits at most `webhook_timeout` for its receiver.
    pub webhook_concurrency: usize,
    /// The longest one run of answer tests may take (`LORE_TEST_RUN_TIMEOUT_SECS`, default 240:
    /// within the AWS ingest worker's 300 s); tests not answered by then fail with that reason.
    pub test_run_timeout: Duration,
    /// Tests of one run answered at once (`LORE_TEST_RUN_CONCURRENCY`, default 2); each also holds
    /// one of the workspace's answer slots while it is answered.
    pub test_run_concurrency: usize,
    /// The longest one call of an owner's action may take (`LORE_ACTION_TIMEOUT_SECS`, default
    /// 10, 1–30; docs/api.md §23).
    pub action_timeout: Duration,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self {
            key_cache_ttl: Duration::from_secs(2),
            chunking: chunking::ChunkSettings::default(),
            crawl_max_pages: 50,
            crawl_max_page_bytes: 5 * 1024 * 1024,
            crawl_page_timeout: Duration::from_secs(15),
            extract_limits: ports::ExtractLimits::default(),
            lease: Duration::from_secs(15 * 60),
            max_attempts: 2,
            ingest_workers: 2,
            ingest_jobs_per_workspace: 1,
            max_hooks_per_workspace: 100,
            max_keys_per_workspace: 100,
            max_revoked_keys_per_workspace: 100,
            uploads_per_workspace: 2,
            answers_per_workspace: 4,
            slot_lease: Duration::from_secs(600),
            public_chat_per_minute: 20,
            public_chat_per_mind_per_minute: 300,
            public_pages_per_minute: 120,
            upload_retention: Duration::from_secs(24 * 3600),
            body_read_timeout: Duration::from_secs(30),
            query_cache_bytes: search::QUERY_EMBEDDINGS_BYTES,
            rescore_candidates: search::LATE_INTERACTION_CANDIDATES,
            rerank_candidates: search::RERANK_CANDIDATES,
            public_base_url: None,
            stream_url: None,
            instance_id: lore_domain::id::RequestId::generate().as_str().replacen("req_", "run_", 1),
            webhook_retry_schedule: lore_domain::delivery::RetrySchedule::default(),
            webhook_timeout: Duration::from_secs(30),
            webhook_max_retry_after: Duration::from_secs(86_400),
            webhook_secret_grace: Duration::from_secs(24 * 3600),
            hook_disable_after: lore_domain::hook::DISABLE_AFTER_FAILURES,
            webhook_concurrency: 32,
            test_run_timeout: Duration::from_secs(240),
            test_run_concurrency: 2,
            action_timeout: lore_domain::action::CALL_TIMEOUT,
        }
    }
}

/// The ports a backend provides: records, files, queues, events, the chunk index, the rate
/// limiter and the concurrency budgets. Each backend's adapters make one (`lore serve`: SQLite and
/// files; AWS: `AwsBackend::storage_ports`).
#[derive(Clone)]
pub struct StoragePorts {
    pub workspaces: Arc<dyn ports::WorkspaceStore>,
    pub keys: Arc<dyn ports::KeyStore>,
    pub chatbots: Arc<dyn ports::ChatbotStore>,
    pub rate_limiter: Arc<dyn ports::RateLimiter>,
    /// Where keys hold their own request windows (DynamoDB), a keyed request is counted there, one
    /// store operation for key and budget. Absent (embedded), resolved keys are cached for
    /// `key_cache_ttl` and their requests counted by `rate_limiter`.
    pub key_windows: Option<Arc<dyn ports::KeyWindows>>,
    /// The per-workspace concurrency budgets' leases (answers being written, uploads received).
    pub slots: Arc<dyn ports::SlotStore>,
    pub sources: Arc<dyn ports::SourceStore>,
    pub index: Arc<dyn ports::VectorIndex>,
    pub blobs: Arc<dyn ports::BlobStore>,
    pub jobs: Arc<dyn ports::JobQueue>,
    pub events: Arc<dyn ports::EventBus>,
    pub forms: Arc<dyn ports::FormStore>,
    pub hooks: Arc<dyn ports::HookStore>,
    pub deliveries: Arc<dyn ports::DeliveryStore>,
    pub minds: Arc<dyn ports::MindStore>,
    pub conversations: Arc<dyn ports::ConversationStore>,
    /// Answer tests and their runs (docs/api.md §21).
    pub tests: Arc<dyn ports::AnswerTestStore>,
    /// The workspace's audit log (docs/api.md §22).
    pub audit: Arc<dyn ports::AuditStore>,
    /// The owners' actions (docs/api.md §23).
    pub actions: Arc<dyn ports::ActionStore>,
    /// The owners' channels, their threads and the deliveries heard (docs/api.md §24).
    pub channels: Arc<dyn ports::ChannelStore>,
}

/// The ports every backend shares: the outbound web under one request-protection policy, the
/// document parsers and the model providers.
#[derive(Clone)]
pub struct SharedPorts {
    pub extractor: Arc<dyn ports::Extractor>,
    pub url_guard: Arc<dyn ports::UrlGuard>,
    pub crawler: Arc<dyn ports::Crawler>,
    pub webhook_sender: Arc<dyn ports::WebhookSender>,
    /// Calls owners' action endpoints (docs/api.md §23).
    pub action_caller: Arc<dyn ports::ActionCaller>,
    /// Talks to Slack, Telegram and WhatsApp (docs/api.md §24).
    pub channel_platform: Arc<dyn ports::ChannelPlatform>,
    pub embedder: Arc<dyn ports::Embedder>,
    /// Podcast sources' audio to text ([`ports::NoTranscriber`] when not configured).
    pub transcriber: Arc<dyn ports::Transcriber>,
    /// Writes answers: a language model, or the extractive responder when none is configured.
    pub responder: Arc<dyn ports::Responder>,
    /// Speaks Minds' answers ([`ports::NoSynthesizer`] when not configured).
    pub speech: Arc<dyn ports::Synthesizer>,
    /// Re-orders hybrid search's best candidates (`LORE_RERANK_BASE_URL`); `None`: off.
    pub reranker: Option<Arc<dyn ports::Reranker>>,
}

/// The ports one composition provides: its backend's, the shared ones, and what wakes an
/// in-process webhook dispatcher.
#[derive(Clone)]
pub struct Ports {
    pub storage: StoragePorts,
    pub shared: SharedPorts,
    pub dispatch_signal: Arc<dyn ports::DispatchSignal>,
}

/// The use cases over one composition of ports. Cheap to clone.
#[derive(Clone)]
pub struct App {
    ports: Ports,
    config: AppConfig,
    key_cache: Arc<auth::KeyCache>,
    query_embeddings: Arc<search::QueryEmbeddings>,
    /// Chunks sized for the embedder in use, and the index key of its vectors: fixed for the
    /// life of the process, so made once.
    chunker: chunking::Chunker,
    index_model: Arc<str>,
}

impl App {
    pub fn new(ports: Ports, config: AppConfig) -> Self {
        let key_cache = Arc::new(auth::KeyCache::new(config.key_cache_ttl));
        let chunker = chunking::Chunker::for_embedder(config.chunking, ports.shared.embedder.token_window());
        let model = ports.shared.embedder.model_id();
        let mut index_model = match chunker.profile() {
            Some(profile) => format!("{model}#{profile}"),
            None => model.to_owned(),
        };
        if ports.shared.embedder.has_token_states() {
            // Chunks stored before without token signs are made again with them.
            let per_row = lore_domain::late_interaction::TOKENS_PER_SIGN_ROW;
            index_model.push_str(&format!("#signs{per_row}"));
        }
        let index_model = index_model.into();
        let query_embeddings = Arc::new(search::QueryEmbeddings::new(config.query_cache_bytes));
        Self { ports, config, key_cache, query_embeddings, chunker, index_model }
    }

    pub fn config(&self) -> &AppConfig {
        &self.config
    }

    /// Which responder answers conversations (for the startup message).
    pub fn responder_description(&self) -> String {
        self.ports.shared.responder.describe()
    }

    /// Which speech model speaks Minds' answers (`none` without one), for the start-up banner.
    pub fn speech_description(&self) -> String {
        self.ports.shared.speech.describe()
    }

    /// Which model re-ranks hybrid search (`none` without one), for the start-up banner.
    pub fn reranker_description(&self) -> String {
        self.ports.shared.reranker.as_ref().map_or_else(|| "none".to_owned(), |r| r.describe())
    }
}
