//! Builds the use cases over a backend's adapters, once per process.

use lore_app::{App, AppConfig, Ports};
use lore_domain::delivery::RetrySchedule;
use lore_local::{FileBlobStore, LocalJobQueue, LocalSignal, MemoryRateLimiter, SqliteStore, WakingEventBus};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Where records and files live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// SQLite and files under the data dir: zero setup.
    Local,
    /// DynamoDB, S3, SQS, EventBridge and pgvector.
    Aws,
}

/// The database file inside a data dir.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("lore.db")
}

/// A composed system: the use cases, and the jobs its queue hands to workers.
pub struct Composition {
    pub app: App,
    /// `Some` for the in-process queue: whoever runs workers takes it.
    pub jobs: Option<Arc<lore_local::FairQueue>>,
    /// The embedded store, for operators and tests (event outbox).
    pub store: Option<Arc<SqliteStore>>,
    /// `Some` for the in-process dispatcher: whoever runs it waits on this signal.
    pub dispatch: Option<LocalSignal>,
    /// The AWS adapters, when the backend is `aws`: `lore serve` consumes their queues.
    pub aws: Option<lore_aws::AwsBackend>,
}

fn env_parse<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T> {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => {
            v.trim().parse().map_err(|_| anyhow::anyhow!("{name}={v:?} is not a valid value"))
        }
        _ => Ok(default),
    }
}

/// Deployment settings from the environment (README "Configuration").
pub fn app_config() -> anyhow::Result<AppConfig> {
    let mut c = AppConfig::default();
    c.crawl_max_pages = env_parse("LORE_CRAWL_MAX_PAGES", c.crawl_max_pages)?.clamp(1, 10_000);
    c.chunking = lore_app::chunking::ChunkSettings::from_tokens(
        env_parse("LORE_CHUNK_TOKENS", 800usize)?,
        env_parse("LORE_CHUNK_OVERLAP_PERCENT", 15usize)?,
    );
    c.lease = Duration::from_secs(env_parse("LORE_INGEST_LEASE_SECS", c.lease.as_secs())?.max(1));
    c.max_attempts = env_parse("LORE_INGEST_MAX_ATTEMPTS", c.max_attempts)?.clamp(1, 10);
    c.ingest_workers = env_parse("LORE_INGEST_WORKERS", c.ingest_workers)?.clamp(1, 64);
    c.ingest_jobs_per_workspace = env_parse("LORE_INGEST_JOBS_PER_WORKSPACE", c.ingest_jobs_per_workspace)?.max(1);
    c.max_hooks_per_workspace = env_parse("LORE_MAX_HOOKS_PER_WORKSPACE", c.max_hooks_per_workspace)?.max(1);
    c.uploads_per_workspace = env_parse("LORE_UPLOADS_PER_WORKSPACE", c.uploads_per_workspace)?.max(1);
    let retention_hours = env_parse("LORE_UPLOAD_RETENTION_HOURS", c.upload_retention.as_secs() / 3600)?;
    c.upload_retention = Duration::from_secs(retention_hours.max(1) * 3600);
    let body_timeout = env_parse("LORE_BODY_READ_TIMEOUT_SECS", c.body_read_timeout.as_secs())?;
    c.body_read_timeout = Duration::from_secs(body_timeout.clamp(1, 3600));
    if let Ok(v) = std::env::var("LORE_WEBHOOK_RETRY_SCHEDULE")
        && !v.trim().is_empty()
    {
        c.webhook_retry_schedule = RetrySchedule::parse(&v).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    }
    let timeout = env_parse("LORE_WEBHOOK_TIMEOUT_SECS", c.webhook_timeout.as_secs_f64())?;
    if !(timeout > 0.0 && timeout <= 300.0) {
        anyhow::bail!("LORE_WEBHOOK_TIMEOUT_SECS must be more than 0 and at most 300, not {timeout}");
    }
    c.webhook_timeout = Duration::from_secs_f64(timeout);
    extract_limits(&mut c.extract_limits)?;
    Ok(c)
}

/// The document parsers' budgets (docs/limits.md): `LORE_EXTRACT_MEMORY_MB` (memory of one
/// parse's process, default 512), `LORE_EXTRACT_MAX_CONTENT_MB` (inflated PDF content / DOCX
/// XML of one document, default 64), `LORE_EXTRACT_MAX_PAGE_CONTENT_MB` (inflated content of
/// one PDF page, default 4), `LORE_EXTRACT_MAX_PARAGRAPHS` (of one DOCX, default 200000),
/// `LORE_EXTRACT_TIMEOUT_SECS` (wall clock of one parse, waiting for a slot included, default 60).
fn extract_limits(limits: &mut lore_app::ports::ExtractLimits) -> anyhow::Result<()> {
    const MIB: u64 = 1024 * 1024;
    let mib = |name: &str, default: u64, floor: u64| -> anyhow::Result<u64> {
        let value = env_parse(name, default / MIB)?;
        anyhow::ensure!((floor..=1 << 20).contains(&value), "{name} must be between {floor} and 1048576, not {value}");
        Ok(value * MIB)
    };
    // Below ~64 MiB the parser process cannot even load its binary.
    limits.max_memory_bytes = mib("LORE_EXTRACT_MEMORY_MB", limits.max_memory_bytes, 64)?;
    limits.max_content_bytes = mib("LORE_EXTRACT_MAX_CONTENT_MB", limits.max_content_bytes, 1)?;
    limits.max_page_content_bytes = mib("LORE_EXTRACT_MAX_PAGE_CONTENT_MB", limits.max_page_content_bytes, 1)?;
    limits.max_paragraphs = env_parse("LORE_EXTRACT_MAX_PARAGRAPHS", limits.max_paragraphs)?.max(1);
    let timeout = env_parse("LORE_EXTRACT_TIMEOUT_SECS", limits.timeout.as_secs())?;
    anyhow::ensure!(
        (1..=3600).contains(&timeout),
        "LORE_EXTRACT_TIMEOUT_SECS must be between 1 and 3600, not {timeout}"
    );
    limits.timeout = Duration::from_secs(timeout);
    Ok(())
}

/// For the `main` of every binary built on this composition, first thing: when this process was
/// started as a document-parser child of `extractor`, parses one document and exits.
pub fn serve_extraction_child_if_requested() {
    lore_extract::serve_child_if_requested();
}

/// The document extractor: `LORE_EXTRACT_ISOLATION=process` (default: each parse in a child
/// process of this binary, memory-capped and killed at its time limit; the binary's `main` calls
/// `lore_extract::serve_child_if_requested` first) or `thread` (in this process, uncapped).
pub(crate) fn extractor(overrides: &Overrides) -> anyhow::Result<Arc<lore_extract::DocumentExtractor>> {
    let extractor = lore_extract::DocumentExtractor::new();
    let isolation = match std::env::var("LORE_EXTRACT_ISOLATION").as_deref().map(str::trim) {
        Ok("process") | Ok("") | Err(_) => {
            let program = match &overrides.extract_child_program {
                Some(program) => program.clone(),
                None => std::env::current_exe()
                    .map_err(|e| anyhow::anyhow!("cannot find this binary to run document parsers: {e}"))?,
            };
            lore_extract::Isolation::Process { program }
        }
        Ok("thread") => lore_extract::Isolation::Thread,
        Ok(other) => anyhow::bail!("LORE_EXTRACT_ISOLATION must be 'process' or 'thread', not '{other}'"),
    };
    Ok(Arc::new(extractor.isolated(isolation)))
}

/// Creates the data dir readable by its owner only (0700): it holds the database with webhook
/// secrets, the upload-signing key, the dev key and uploaded files. A data dir of ours that
/// already exists (it holds `lore.db`, or nothing yet) is tightened to 0700; any other existing
/// directory named as data dir is left as it is, with a warning when others can read it.
pub fn private_data_dir(data_dir: &Path) -> anyhow::Result<()> {
    let failed = |e: std::io::Error| anyhow::anyhow!("cannot create the data dir {}: {e}", data_dir.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if !data_dir.exists() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(data_dir).map_err(failed)?;
        }
        let mode = std::fs::metadata(data_dir).map_err(failed)?.permissions().mode();
        if mode & 0o077 != 0 {
            let ours =
                database_path(data_dir).exists() || std::fs::read_dir(data_dir).map_err(failed)?.next().is_none();
            if ours {
                std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700)).map_err(failed)?;
            } else {
                tracing::warn!(dir = %data_dir.display(), "the data dir is readable by other users; use a private directory");
            }
        }
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(data_dir).map_err(failed)?;
    Ok(())
}

/// The secret that signs local upload URLs: created once per data dir, kept across restarts.
fn upload_signing_key(data_dir: &Path) -> anyhow::Result<Vec<u8>> {
    let path = data_dir.join("upload-signing-key");
    if let Ok(k) = std::fs::read(&path)
        && k.len() >= 32
    {
        return Ok(k);
    }
    let mut key = vec![0u8; 32];
    lore_domain::text::random_bytes(&mut key);
    crate::serve::write_private(&path, &key)
        .or_else(|e| if e.kind() == std::io::ErrorKind::AlreadyExists { Ok(()) } else { Err(e) })?;
    Ok(std::fs::read(&path)?)
}

/// Choices the environment cannot express, made by the caller (tests, mostly).
#[derive(Clone, Default)]
pub struct Overrides {
    /// Lift the SSRF address and port rules as `LORE_ALLOW_PRIVATE_NETWORK=true` does.
    pub allow_private_network: bool,
    /// Use this embedder instead of the one `LORE_EMBEDDER` names.
    pub embedder: Option<Arc<dyn lore_app::ports::Embedder>>,
    /// Use this transcriber instead of the one `LORE_TRANSCRIBER` names.
    pub transcriber: Option<Arc<dyn lore_app::ports::Transcriber>>,
    /// Wait this long between webhook attempts instead of `LORE_WEBHOOK_RETRY_SCHEDULE`.
    pub webhook_retry_schedule: Option<RetrySchedule>,
    /// Give up on a webhook attempt after this instead of `LORE_WEBHOOK_TIMEOUT_SECS`.
    pub webhook_timeout: Option<Duration>,
    /// Allow this many webhook subscriptions per workspace instead of `LORE_MAX_HOOKS_PER_WORKSPACE`.
    pub max_hooks_per_workspace: Option<u32>,
    /// The AWS endpoint, resources and database of `--backend aws`, instead of the environment's.
    pub aws: Option<crate::aws_backend::AwsOverrides>,
    /// The binary document parsers run in (`LORE_EXTRACT_ISOLATION=process`) instead of this
    /// process's own: in-process test servers, whose own binary is the test harness.
    pub extract_child_program: Option<PathBuf>,
}

/// The network-facing adapters every backend shares, built under one SSRF policy.
pub(crate) struct Network {
    pub url_guard: Arc<dyn lore_app::ports::UrlGuard>,
    pub crawler: Arc<dyn lore_app::ports::Crawler>,
    pub webhook_sender: Arc<dyn lore_app::ports::WebhookSender>,
}

pub(crate) fn network(overrides: &Overrides) -> anyhow::Result<Network> {
    let policy = if overrides.allow_private_network {
        lore_crawl::NetPolicy::allow_private()
    } else {
        lore_crawl::NetPolicy::from_env()
    };
    Ok(Network {
        crawler: Arc::new(crate::lazy::LazyCrawler::new(policy.clone())),
        webhook_sender: Arc::new(crate::lazy::LazySender::new(policy.clone())),
        url_guard: Arc::new(lore_crawl::Guard::new(policy)),
    })
}

/// The transcriber of podcast sources: the override, else what the variables `lookup` reads ask
/// for (`lore_transcribe::config`), else none (podcast sources then fail saying what to set).
pub(crate) fn transcriber(
    overrides: &Overrides,
    lookup: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<Arc<dyn lore_app::ports::Transcriber>> {
    if let Some(t) = &overrides.transcriber {
        return Ok(t.clone());
    }
    Ok(match lore_transcribe::transcriber_from_lookup(lookup).map_err(|e| anyhow::anyhow!("transcriber: {e}"))? {
        Some(t) => t,
        None => Arc::new(lore_app::ports::NoTranscriber),
    })
}

/// [`app_config`] with the caller's overrides applied.
pub(crate) fn config(overrides: &Overrides) -> anyhow::Result<AppConfig> {
    let mut config = app_config()?;
    if let Some(schedule) = &overrides.webhook_retry_schedule {
        config.webhook_retry_schedule = schedule.clone();
    }
    if let Some(limit) = overrides.max_hooks_per_workspace {
        config.max_hooks_per_workspace = limit;
    }
    if let Some(timeout) = overrides.webhook_timeout {
        config.webhook_timeout = timeout;
    }
    Ok(config)
}

/// The embedded composition over `data_dir` (created when absent). `public_base_url` is where
/// clients reach this server (`fileUrl`s are built from it).
pub fn embedded(data_dir: &Path, public_base_url: &str, overrides: &Overrides) -> anyhow::Result<Composition> {
    private_data_dir(data_dir)?;
    let store = SqliteStore::open(&database_path(data_dir))
        .map_err(|e| anyhow::anyhow!("cannot open the database in {}: {e}", data_dir.display()))?;
    let store = Arc::new(store);
    let blobs = FileBlobStore::new(&data_dir.join("files"), public_base_url, upload_signing_key(data_dir)?);
    let config = config(overrides)?;
    let (queue, jobs) = LocalJobQueue::new(config.ingest_jobs_per_workspace);
    let net = network(overrides)?;
    let signal = LocalSignal::new();
    let embedder = match &overrides.embedder {
        Some(e) => e.clone(),
        None => lore_embed::embedder_from_env().map_err(|e| anyhow::anyhow!("embedder: {e}"))?,
    };
    let ports = Ports {
        workspaces: store.clone(),
        keys: store.clone(),
        chatbots: store.clone(),
        rate_limiter: Arc::new(MemoryRateLimiter::new()),
        sources: store.clone(),
        index: store.clone(),
        events: Arc::new(WakingEventBus::new(store.clone(), signal.clone())),
        blobs: Arc::new(blobs),
        jobs: Arc::new(queue),
        extractor: extractor(overrides)?,
        url_guard: net.url_guard,
        crawler: net.crawler,
        embedder,
        forms: store.clone(),
        hooks: store.clone(),
        deliveries: store.clone(),
        webhook_sender: net.webhook_sender,
        dispatch_signal: Arc::new(signal.clone()),
        minds: store.clone(),
        transcriber: transcriber(overrides, |name| std::env::var(name).ok())?,
    };
    Ok(Composition {
        app: App::new(ports, config),
        jobs: Some(jobs),
        store: Some(store),
        dispatch: Some(signal),
        aws: None,
    })
}

/// The public base URL: `LORE_PUBLIC_BASE_URL`, else this server's own address.
pub fn public_base_url(fallback: &str) -> String {
    std::env::var("LORE_PUBLIC_BASE_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| fallback.to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// Which ports a process needs beyond the records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    /// Everything: `lore serve`, and the functions that search or ingest.
    Everything,
    /// Records, files, queues and events only: on AWS no chunk index (database) and no embedder
    /// secret, for the functions that never touch knowledge (forms, integrations, dispatcher).
    RecordsOnly,
}

/// The composition a backend names.
pub async fn open(
    backend: Backend,
    data_dir: &Path,
    public_base: &str,
    overrides: &Overrides,
) -> anyhow::Result<Composition> {
    open_for(backend, data_dir, public_base, overrides, Uses::Everything).await
}

/// [`open`] for a process that needs only some ports.
pub async fn open_for(
    backend: Backend,
    data_dir: &Path,
    public_base: &str,
    overrides: &Overrides,
    uses: Uses,
) -> anyhow::Result<Composition> {
    match backend {
        Backend::Local => embedded(data_dir, public_base, overrides),
        Backend::Aws => crate::aws_backend::compose(public_base, overrides, uses).await,
    }
}

/// The composition of a Lambda function, from its environment: `LORE_BACKEND` (default
/// `local`) and `LORE_DATA_DIR` (default `/tmp/lore`, the writable path on Lambda). Must run
/// inside the Tokio runtime: an in-process queue gets its workers here. With `aws`, the queues
/// trigger the worker functions instead and nothing runs in the background.
pub async fn from_env(uses: Uses) -> anyhow::Result<App> {
    let backend = match std::env::var("LORE_BACKEND").as_deref() {
        Ok("aws") => Backend::Aws,
        Ok("local") | Err(_) => Backend::Local,
        Ok(other) => anyhow::bail!("LORE_BACKEND must be 'local' or 'aws', not '{other}'"),
    };
    let data_dir = std::env::var_os("LORE_DATA_DIR").map(PathBuf::from).unwrap_or_else(|| PathBuf::from("/tmp/lore"));
    let public_base = public_base_url("http://localhost:3000");
    let mut c = open_for(backend, &data_dir, &public_base, &Overrides::default(), uses).await?;
    if let Some(jobs) = c.jobs.take() {
        // They serve for the life of the execution environment; dropping the handle would
        // abort them at once.
        std::mem::forget(crate::workers::spawn(c.app.clone(), jobs));
    }
    // No webhook dispatcher here: in AWS it is its own function (`webhook-dispatcher`); with
    // the embedded backend `lore serve` runs it.
    Ok(c.app)
}
