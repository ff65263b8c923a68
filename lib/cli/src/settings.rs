//! Every setting of a Lore process, read from the environment once, at start
//! ([`Settings::from_env`]); nothing else in the service reads `LORE_*` variables. The variables
//! and their defaults are listed in docs/configuration.md and docs/limits.md.
//!
//! One rule for every value ([`value`]): it is trimmed, and an empty one counts as unset. Every
//! reader — here, and the crates' `from_lookup` functions — gets the variables through that rule
//! and parses them to their types here; a wrong value stops start-up with an error naming its
//! variable. The model providers' settings (`LORE_EMBEDDER`, `OPENAI_*`, `LORE_TRANSCRIBER`, …) are
//! parsed here too ([`Providers`]); only their keys may still come later: on AWS from Secrets
//! Manager, which only the backend can ask ([`Providers::with_keys`]).

use lore_app::AppConfig;
use lore_app::chunking::{ChunkSettings, DEFAULT_CHUNK_TOKENS, DEFAULT_OVERLAP_PERCENT};
use lore_app::ports::{ExtractLimits, OcrEngine, OcrSettings};
use lore_chat::{ResponderSettings, SpeechSettings};
use lore_domain::delivery::RetrySchedule;
use lore_embed::{EmbedderSettings, RerankerConfig};
use lore_transcribe::TranscriberSettings;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Where records and files live.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Backend {
    /// SQLite and files under the data dir: zero setup.
    #[default]
    Local,
    /// DynamoDB, S3, SQS, EventBridge and pgvector.
    Aws,
}

/// Where document parsers run (`LORE_EXTRACT_ISOLATION`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ExtractIsolation {
    /// `process` (default): each parse in a child process of this binary, memory-capped and
    /// killed at its time limit.
    #[default]
    Process,
    /// `thread`: in this process, uncapped (for debugging a parser).
    Thread,
}

/// A process's settings. Its `Debug` leaves out what may hold secrets (keys, the database URL).
#[derive(Clone)]
pub struct Settings {
    /// `LORE_BACKEND` (default `local`).
    pub backend: Backend,
    /// `LORE_DATA_DIR`: the embedded backend's directory. Unset: `.lore` for the CLI,
    /// `/tmp/lore` (the writable path) on Lambda.
    pub data_dir: Option<PathBuf>,
    /// `LORE_ADDR`: where `lore serve` listens (default `127.0.0.1:3000`).
    pub addr: Option<SocketAddr>,
    /// The use cases' budgets and policies (`LORE_CHUNK_*`, `LORE_PUBLIC_BASE_URL`, `LORE_INGEST_*`, `LORE_WEBHOOK_*`,
    /// `LORE_EXTRACT_*`, `LORE_UPLOAD*`, …).
    pub app: AppConfig,
    pub extract_isolation: ExtractIsolation,
    /// `LORE_ALLOW_PRIVATE_NETWORK`, `LORE_ALLOWED_PORTS`: what outbound requests may reach.
    pub net: lore_crawl::NetPolicy,
    /// Resource names of the AWS backend (`LORE_DYNAMODB_TABLE`, `LORE_S3_BUCKET`, …).
    #[cfg(feature = "aws")]
    pub aws: lore_aws::AwsSettings,
    /// `LORE_DATABASE_URL`: the pgvector database of the AWS backend.
    pub database_url: Option<String>,
    /// `LORE_DATABASE_SECRET_ARN`: the secret holding that URL, when it is not given directly.
    pub database_secret_arn: Option<String>,
    /// `LORE_PG_*`: the pgvector index's tuning (HNSW `ef_search`, exact-scan limit, connections).
    #[cfg(feature = "aws")]
    pub pg_index: lore_pgvector::PgIndexOptions,
    /// `LORE_OPENAI_KEY_SECRET_ARN`: the secret holding the OpenAI key, when `OPENAI_API_KEY`
    /// is not set (AWS backend).
    pub openai_key_secret_arn: Option<String>,
    /// `LORE_RERANK_API_KEY_SECRET_ARN`: the secret holding the re-ranker's key, when
    /// `LORE_RERANK_API_KEY` is not set (AWS backend).
    pub rerank_key_secret_arn: Option<String>,
    /// The model providers (text recognition's are in `app.extract_limits.ocr`).
    pub providers: Providers,
    /// `LORE_SLACK_API_URL`, `LORE_TELEGRAM_API_URL`, `LORE_WHATSAPP_API_URL`: where the
    /// channels' platforms are called (default the platforms' own; docs/api.md §24).
    pub platforms: lore_channels::PlatformUrls,
}

/// The model providers' settings, parsed at start; keys a backend reads from its secret store
/// come in later, through [`Self::with_keys`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Providers {
    /// `LORE_EMBEDDER`, `LORE_MODEL_DIR`, `LORE_E5_DIR`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`,
    /// `LORE_EMBEDDING_*`.
    pub embedder: EmbedderSettings,
    /// `LORE_RESPONDER`, `LORE_LLM_*`, `OPENAI_API_KEY`.
    pub responder: ResponderSettings,
    /// `LORE_SPEECH*`, with `LORE_LLM_BASE_URL`, `OPENAI_BASE_URL` and `OPENAI_API_KEY`.
    pub speech: SpeechSettings,
    /// `LORE_TRANSCRIBER`, `LORE_TRANSCRIPTION_*`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`.
    pub transcriber: TranscriberSettings,
    /// `LORE_RERANK_*`: the re-ranking model of hybrid search, when one is configured.
    pub reranker: Option<RerankerConfig>,
    /// Whether `OPENAI_API_KEY` is set.
    openai_key: bool,
}

impl Providers {
    /// Parses the providers' variables, read through `get` (see [`value`]).
    fn from_lookup(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        Ok(Self {
            embedder: EmbedderSettings::from_lookup(&get).map_err(anyhow::Error::msg)?,
            responder: ResponderSettings::from_lookup(&get).map_err(anyhow::Error::msg)?,
            speech: SpeechSettings::from_lookup(&get).map_err(anyhow::Error::msg)?,
            transcriber: TranscriberSettings::from_lookup(&get).map_err(anyhow::Error::msg)?,
            reranker: RerankerConfig::from_lookup(&get).map_err(anyhow::Error::msg)?,
            openai_key: get(lore_embed::config::ENV_API_KEY).is_some(),
        })
    }

    /// With the keys a backend read from its secret store where the variables gave none:
    /// `openai_key` (`LORE_OPENAI_KEY_SECRET_ARN`'s) for the embedder, the responder, the speech
    /// model and the transcriber, `rerank_key` (`LORE_RERANK_API_KEY_SECRET_ARN`'s) for the
    /// re-ranker.
    pub fn with_keys(self, openai_key: Option<&str>, rerank_key: Option<&str>) -> Self {
        Self {
            embedder: self.embedder.with_api_key_if_missing(openai_key),
            responder: self.responder.with_api_key_if_missing(openai_key),
            speech: self.speech.with_api_key_if_missing(openai_key),
            transcriber: self.transcriber.with_api_key_if_missing(openai_key),
            reranker: self.reranker.map(|r| r.with_api_key_if_missing(rerank_key)),
            openai_key: self.openai_key,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("backend", &self.backend)
            .field("data_dir", &self.data_dir)
            .field("addr", &self.addr)
            .field("public_base_url", &self.app.public_base_url)
            .finish_non_exhaustive()
    }
}

impl Settings {
    /// Reads the process environment.
    pub fn from_env() -> anyhow::Result<Self> {
        Self::from_vars(std::env::vars())
    }

    /// Reads the given variables (the environment, or a list in tests) through [`value`].
    pub fn from_vars(vars: impl IntoIterator<Item = (String, String)>) -> anyhow::Result<Self> {
        let vars: HashMap<String, String> = vars.into_iter().filter_map(|(k, v)| Some((k, value(&v)?))).collect();
        let get = |name: &str| vars.get(name).cloned();
        let backend = match get("LORE_BACKEND").as_deref() {
            None | Some("local") => Backend::Local,
            Some("aws") => Backend::Aws,
            Some(other) => anyhow::bail!("LORE_BACKEND must be 'local' or 'aws', not '{other}'"),
        };
        let addr = match get("LORE_ADDR") {
            Some(v) => Some(v.parse().map_err(|_| anyhow::anyhow!("LORE_ADDR={v:?} is not an address (host:port)"))?),
            None => None,
        };
        let extract_isolation = match get("LORE_EXTRACT_ISOLATION").as_deref() {
            None | Some("process") => ExtractIsolation::Process,
            Some("thread") => ExtractIsolation::Thread,
            Some(other) => anyhow::bail!("LORE_EXTRACT_ISOLATION must be 'process' or 'thread', not '{other}'"),
        };
        let mut app = app_config(&get)?;
        app.public_base_url = get("LORE_PUBLIC_BASE_URL").map(|u| u.trim_end_matches('/').to_owned());
        app.stream_url = match get("LORE_STREAM_URL").map(|u| u.trim_end_matches('/').to_owned()) {
            None => None,
            Some(u) if u.is_empty() => None,
            Some(u) => Some(lore_domain::embed::Origin::parse("LORE_STREAM_URL", &u).map_err(|e| {
                anyhow::anyhow!("LORE_STREAM_URL={u:?} must be an https origin (scheme://host[:port]): {}", e.message)
            })?),
        };
        Ok(Self {
            backend,
            data_dir: get("LORE_DATA_DIR").map(PathBuf::from),
            addr,
            app,
            extract_isolation,
            net: lore_crawl::NetPolicy::from_vars(get).map_err(anyhow::Error::msg)?,
            #[cfg(feature = "aws")]
            aws: lore_aws::AwsSettings::from_lookup(get),
            database_url: get("LORE_DATABASE_URL"),
            database_secret_arn: get("LORE_DATABASE_SECRET_ARN"),
            #[cfg(feature = "aws")]
            pg_index: lore_pgvector::PgIndexOptions::from_lookup(get).map_err(anyhow::Error::msg)?,
            openai_key_secret_arn: get("LORE_OPENAI_KEY_SECRET_ARN"),
            rerank_key_secret_arn: get("LORE_RERANK_API_KEY_SECRET_ARN"),
            providers: Providers::from_lookup(get)?,
            platforms: platform_urls(get)?,
        })
    }

    /// Whether a re-ranker is configured without its key (which may then come from a secret).
    pub fn reranker_needs_key(&self) -> bool {
        self.providers.reranker.as_ref().is_some_and(|r| r.api_key.is_none())
    }

    /// Whether `OPENAI_API_KEY` is set directly.
    pub fn has_openai_key(&self) -> bool {
        self.providers.openai_key
    }

    /// The public base URL, else `fallback` (this server's own address).
    pub fn public_base_or(&self, fallback: &str) -> String {
        self.app.public_base_url.clone().unwrap_or_else(|| fallback.trim_end_matches('/').to_owned())
    }
}

/// The one rule every variable is read by: trimmed, and unset when empty.
pub fn value(raw: &str) -> Option<String> {
    let trimmed = raw.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

fn parse<T: std::str::FromStr>(get: &impl Fn(&str) -> Option<String>, name: &str, default: T) -> anyhow::Result<T> {
    match get(name) {
        Some(v) => v.parse().map_err(|_| anyhow::anyhow!("{name}={v:?} is not a valid value")),
        None => Ok(default),
    }
}

/// The use cases' settings (docs/configuration.md, docs/limits.md).
fn app_config(get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<AppConfig> {
    let mut c = AppConfig::default();
    c.crawl_max_pages = parse(get, "LORE_CRAWL_MAX_PAGES", c.crawl_max_pages)?.clamp(1, 10_000);
    c.chunking = ChunkSettings::from_tokens(
        parse(get, "LORE_CHUNK_TOKENS", DEFAULT_CHUNK_TOKENS)?,
        parse(get, "LORE_CHUNK_OVERLAP_PERCENT", DEFAULT_OVERLAP_PERCENT)?,
    );
    c.lease = Duration::from_secs(parse(get, "LORE_INGEST_LEASE_SECS", c.lease.as_secs())?.max(1));
    c.max_attempts = parse(get, "LORE_INGEST_MAX_ATTEMPTS", c.max_attempts)?.clamp(1, 10);
    c.ingest_workers = parse(get, "LORE_INGEST_WORKERS", c.ingest_workers)?.clamp(1, 64);
    c.ingest_jobs_per_workspace = parse(get, "LORE_INGEST_JOBS_PER_WORKSPACE", c.ingest_jobs_per_workspace)?.max(1);
    c.max_hooks_per_workspace = parse(get, "LORE_MAX_HOOKS_PER_WORKSPACE", c.max_hooks_per_workspace)?.max(1);
    c.max_keys_per_workspace = parse(get, "LORE_MAX_KEYS_PER_WORKSPACE", c.max_keys_per_workspace)?.max(1);
    c.max_revoked_keys_per_workspace =
        parse(get, "LORE_MAX_REVOKED_KEYS_PER_WORKSPACE", c.max_revoked_keys_per_workspace)?;
    c.uploads_per_workspace = parse(get, "LORE_UPLOADS_PER_WORKSPACE", c.uploads_per_workspace)?.max(1);
    c.answers_per_workspace = parse(get, "LORE_ANSWERS_PER_WORKSPACE", c.answers_per_workspace)?.max(1);
    let slot_lease = parse(get, "LORE_SLOT_LEASE_SECS", c.slot_lease.as_secs())?;
    c.slot_lease = Duration::from_secs(slot_lease.clamp(1, 24 * 3600));
    c.public_chat_per_minute = parse(get, "LORE_PUBLIC_CHAT_PER_MINUTE", c.public_chat_per_minute)?.max(1);
    c.public_chat_per_mind_per_minute =
        parse(get, "LORE_PUBLIC_CHAT_PER_MIND_PER_MINUTE", c.public_chat_per_mind_per_minute)?.max(1);
    c.public_pages_per_minute = parse(get, "LORE_PUBLIC_PAGES_PER_MINUTE", c.public_pages_per_minute)?.max(1);
    c.query_cache_bytes = parse(get, "LORE_QUERY_CACHE_BYTES", c.query_cache_bytes)?;
    c.rescore_candidates = parse(get, "LORE_RESCORE_CANDIDATES", c.rescore_candidates)?.clamp(1, 500);
    c.rerank_candidates = parse(get, "LORE_RERANK_CANDIDATES", c.rerank_candidates)?.clamp(1, 100);
    let retention_hours = parse(get, "LORE_UPLOAD_RETENTION_HOURS", c.upload_retention.as_secs() / 3600)?;
    c.upload_retention = Duration::from_secs(retention_hours.max(1) * 3600);
    let body_timeout = parse(get, "LORE_BODY_READ_TIMEOUT_SECS", c.body_read_timeout.as_secs())?;
    c.body_read_timeout = Duration::from_secs(body_timeout.clamp(1, 3600));
    if let Some(v) = get("LORE_WEBHOOK_RETRY_SCHEDULE") {
        c.webhook_retry_schedule = RetrySchedule::parse(&v).map_err(|e| anyhow::anyhow!("{}", e.message))?;
    }
    let timeout = parse(get, "LORE_WEBHOOK_TIMEOUT_SECS", c.webhook_timeout.as_secs_f64())?;
    if !(timeout > 0.0 && timeout <= 300.0) {
        anyhow::bail!("LORE_WEBHOOK_TIMEOUT_SECS must be more than 0 and at most 300, not {timeout}");
    }
    c.webhook_timeout = Duration::from_secs_f64(timeout);
    let max_retry_after = parse(get, "LORE_WEBHOOK_MAX_RETRY_AFTER_SECS", c.webhook_max_retry_after.as_secs())?;
    c.webhook_max_retry_after = Duration::from_secs(max_retry_after);
    let grace_hours = parse(get, "LORE_WEBHOOK_SECRET_GRACE_HOURS", c.webhook_secret_grace.as_secs() / 3600)?;
    c.webhook_secret_grace = Duration::from_secs(grace_hours.min(24 * 30) * 3600);
    c.webhook_concurrency = parse(get, "LORE_WEBHOOK_CONCURRENCY", c.webhook_concurrency)?.clamp(1, 1024);
    let run_secs = parse(get, "LORE_TEST_RUN_TIMEOUT_SECS", c.test_run_timeout.as_secs())?;
    if !(1..=3600).contains(&run_secs) {
        anyhow::bail!("LORE_TEST_RUN_TIMEOUT_SECS must be 1 to 3600, not {run_secs}");
    }
    c.test_run_timeout = Duration::from_secs(run_secs);
    c.test_run_concurrency = parse(get, "LORE_TEST_RUN_CONCURRENCY", c.test_run_concurrency)?.clamp(1, 16);
    let action_secs = parse(get, "LORE_ACTION_TIMEOUT_SECS", c.action_timeout.as_secs())?;
    if !(1..=30).contains(&action_secs) {
        anyhow::bail!("LORE_ACTION_TIMEOUT_SECS must be 1 to 30, not {action_secs}");
    }
    c.action_timeout = Duration::from_secs(action_secs);
    extract_limits(get, &mut c.extract_limits)?;
    Ok(c)
}

/// The document parsers' budgets (docs/limits.md): `LORE_EXTRACT_MEMORY_MB` (memory of one
/// parse's process, default 512), `LORE_EXTRACT_MAX_CONTENT_MB` (inflated PDF content / DOCX
/// XML of one document, default 64), `LORE_EXTRACT_MAX_PAGE_CONTENT_MB` (inflated content of
/// one PDF page, default 4), `LORE_EXTRACT_MAX_PARAGRAPHS` (of one DOCX, default 200000),
/// `LORE_EXTRACT_TIMEOUT_SECS` (wall clock of one parse, waiting for a slot included, default 60).
fn extract_limits(get: &impl Fn(&str) -> Option<String>, limits: &mut ExtractLimits) -> anyhow::Result<()> {
    const MIB: u64 = 1024 * 1024;
    let mib = |name: &str, default: u64, floor: u64| -> anyhow::Result<u64> {
        let value = parse(get, name, default / MIB)?;
        anyhow::ensure!((floor..=1 << 20).contains(&value), "{name} must be between {floor} and 1048576, not {value}");
        Ok(value * MIB)
    };
    // Below ~64 MiB the parser process cannot even load its binary.
    limits.max_memory_bytes = mib("LORE_EXTRACT_MEMORY_MB", limits.max_memory_bytes, 64)?;
    limits.max_content_bytes = mib("LORE_EXTRACT_MAX_CONTENT_MB", limits.max_content_bytes, 1)?;
    limits.max_page_content_bytes = mib("LORE_EXTRACT_MAX_PAGE_CONTENT_MB", limits.max_page_content_bytes, 1)?;
    limits.max_paragraphs = parse(get, "LORE_EXTRACT_MAX_PARAGRAPHS", limits.max_paragraphs)?.max(1);
    let timeout = parse(get, "LORE_EXTRACT_TIMEOUT_SECS", limits.timeout.as_secs())?;
    anyhow::ensure!(
        (1..=3600).contains(&timeout),
        "LORE_EXTRACT_TIMEOUT_SECS must be between 1 and 3600, not {timeout}"
    );
    limits.timeout = Duration::from_secs(timeout);
    limits.ocr = ocr_settings(get)?;
    Ok(())
}

/// Text recognition of scanned PDFs (docs/limits.md): `LORE_OCR` (`none`, the default,
/// `tesseract` or `openai`), `LORE_OCR_MAX_PAGES` (pages read per PDF, default 50). Tesseract:
/// `LORE_OCR_LANGUAGES` (language codes joined with `+`, default `eng`), `LORE_TESSERACT_BIN` (the
/// program, default `tesseract` from `PATH`). A vision model: `LORE_OCR_MODEL` (default
/// [`DEFAULT_OCR_MODEL`]) at the first of `LORE_OCR_BASE_URL`, `LORE_LLM_BASE_URL`,
/// `OPENAI_BASE_URL` (default OpenAI's API), with `OPENAI_API_KEY` — which OpenAI's own API needs:
/// without it (and without `LORE_OPENAI_KEY_SECRET_ARN`, whose key the backend fills in with
/// [`OcrSettings::with_api_key_if_missing`]) start-up stops. Read once per process; the strings
/// are leaked to keep the limits `Copy`.
fn ocr_settings(get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<Option<OcrSettings>> {
    let openai = match get("LORE_OCR").as_deref().unwrap_or("none") {
        "none" => return Ok(None),
        "tesseract" => false,
        "openai" => true,
        other => anyhow::bail!("LORE_OCR must be none, tesseract or openai, not {other:?}"),
    };
    let max_pages = parse(get, "LORE_OCR_MAX_PAGES", OcrSettings::TESSERACT.max_pages)?;
    anyhow::ensure!(
        (1..=10_000).contains(&max_pages),
        "LORE_OCR_MAX_PAGES must be between 1 and 10000, not {max_pages}"
    );
    let engine = if openai { vision_model(get)? } else { tesseract(get)? };
    Ok(Some(OcrSettings { engine, max_pages }))
}

/// The vision model of `LORE_OCR=openai` when `LORE_OCR_MODEL` is not set.
pub const DEFAULT_OCR_MODEL: &str = "gpt-4o-mini";
/// OpenAI's own API, the base URL when none is set.
const OPENAI_API: &str = "https://api.openai.com/v1";

fn tesseract(get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<OcrEngine> {
    let OcrEngine::Tesseract { program, languages } = OcrSettings::TESSERACT.engine else {
        unreachable!("the default engine is Tesseract")
    };
    let languages = get("LORE_OCR_LANGUAGES").unwrap_or_else(|| languages.to_owned());
    anyhow::ensure!(
        !languages.is_empty()
            && languages.len() <= 200
            && languages.split('+').all(|code| {
                !code.is_empty() && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            }),
        "LORE_OCR_LANGUAGES must be Tesseract language codes joined with + (eng, eng+deu), not {languages:?}"
    );
    let program = get("LORE_TESSERACT_BIN").unwrap_or_else(|| program.to_owned());
    anyhow::ensure!(
        !program.is_empty() && program.len() <= 4096 && !program.contains('\0'),
        "LORE_TESSERACT_BIN must be a program name or path"
    );
    Ok(OcrEngine::Tesseract {
        program: Box::leak(program.into_boxed_str()),
        languages: Box::leak(languages.into_boxed_str()),
    })
}

fn vision_model(get: &impl Fn(&str) -> Option<String>) -> anyhow::Result<OcrEngine> {
    // The documented order: recognition's own server, the chat model's, the OpenAI clients' own.
    let base_url = ["LORE_OCR_BASE_URL", lore_chat::config::ENV_BASE_URL, lore_embed::config::ENV_BASE_URL]
        .into_iter()
        .find_map(|name| get(name).map(|url| (name, url.trim_end_matches('/').to_owned())));
    if let Some((name, url)) = &base_url {
        anyhow::ensure!(
            (url.starts_with("http://") || url.starts_with("https://")) && url.len() <= 2048,
            "{name}={url:?} is not an http(s) URL"
        );
    }
    let base_url = base_url.map_or_else(|| OPENAI_API.to_owned(), |(_, url)| url);
    let key = get(lore_embed::config::ENV_API_KEY);
    if key.is_none() && base_url.starts_with("https://api.openai.com/") && get("LORE_OPENAI_KEY_SECRET_ARN").is_none() {
        anyhow::bail!(
            "LORE_OCR=openai needs OPENAI_API_KEY for OpenAI's API (or LORE_OCR_BASE_URL, LORE_LLM_BASE_URL or \
             OPENAI_BASE_URL for another OpenAI-compatible server)"
        );
    }
    let model = get("LORE_OCR_MODEL").unwrap_or_else(|| DEFAULT_OCR_MODEL.to_owned());
    anyhow::ensure!(
        model.len() <= 256 && !model.chars().any(char::is_control),
        "LORE_OCR_MODEL must be a model name, not {model:?}"
    );
    Ok(OcrSettings::openai(&base_url, key.as_deref(), &model).engine)
}

/// The channels' platform API base URLs: http(s), no trailing `/`; a bad one stops start-up.
fn platform_urls(get: impl Fn(&str) -> Option<String>) -> anyhow::Result<lore_channels::PlatformUrls> {
    let mut urls = lore_channels::PlatformUrls::default();
    for (name, slot) in [
        ("LORE_SLACK_API_URL", &mut urls.slack),
        ("LORE_TELEGRAM_API_URL", &mut urls.telegram),
        ("LORE_WHATSAPP_API_URL", &mut urls.whatsapp),
    ] {
        if let Some(v) = get(name) {
            let v = v.trim().trim_end_matches('/').to_owned();
            let host = v.strip_prefix("https://").or_else(|| v.strip_prefix("http://")).unwrap_or("");
            if host.is_empty() || host.starts_with('/') || v.chars().any(char::is_whitespace) {
                anyhow::bail!("{name}={v:?} must be an http(s) URL");
            }
            *slot = v;
        }
    }
    Ok(urls)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)]) -> anyhow::Result<Settings> {
        Settings::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn the_stream_url_is_an_origin() {
        let s = settings(&[("LORE_STREAM_URL", "https://abc.lambda-url.eu-west-1.on.aws/")]).unwrap();
        assert_eq!(s.app.stream_url.as_ref().map(|o| o.as_str()), Some("https://abc.lambda-url.eu-west-1.on.aws"));
        assert_eq!(settings(&[]).unwrap().app.stream_url, None);
        let e = settings(&[("LORE_STREAM_URL", "http://example.com/path")]).unwrap_err().to_string();
        assert!(e.contains("LORE_STREAM_URL"), "{e}");
    }

    #[test]
    fn defaults_need_no_variables() {
        let s = settings(&[]).unwrap();
        assert_eq!(s.backend, Backend::Local);
        assert_eq!(s.app.max_hooks_per_workspace, 100);
        assert_eq!(s.extract_isolation, ExtractIsolation::Process);
        assert_eq!(s.public_base_or("http://127.0.0.1:3000/"), "http://127.0.0.1:3000");
    }

    #[test]
    fn each_variable_reaches_its_setting() {
        let s = settings(&[
            ("LORE_BACKEND", "aws"),
            ("LORE_ADDR", "0.0.0.0:8080"),
            ("LORE_PUBLIC_BASE_URL", "https://lore.example.com/"),
            ("LORE_MAX_HOOKS_PER_WORKSPACE", "7"),
            ("LORE_MAX_KEYS_PER_WORKSPACE", "5"),
            ("LORE_MAX_REVOKED_KEYS_PER_WORKSPACE", "3"),
            ("LORE_EXTRACT_TIMEOUT_SECS", "9"),
            ("LORE_DYNAMODB_TABLE", "t1"),
            ("LORE_EXTRACT_ISOLATION", "thread"),
            ("LORE_WEBHOOK_CONCURRENCY", "64"),
            ("LORE_QUERY_CACHE_BYTES", "0"),
            ("LORE_RESCORE_CANDIDATES", "120"),
            ("LORE_RERANK_CANDIDATES", "30"),
            ("LORE_RERANK_BASE_URL", "https://api.cohere.com/v2"),
            ("LORE_RERANK_MODEL", "rerank-v3.5"),
            ("LORE_SLOT_LEASE_SECS", "45"),
            ("LORE_TEST_RUN_TIMEOUT_SECS", "120"),
            ("LORE_TEST_RUN_CONCURRENCY", "3"),
        ])
        .unwrap();
        assert_eq!((s.app.test_run_timeout, s.app.test_run_concurrency), (Duration::from_secs(120), 3));
        assert_eq!(s.backend, Backend::Aws);
        assert_eq!(s.addr, Some("0.0.0.0:8080".parse().unwrap()));
        assert_eq!(s.app.public_base_url.as_deref(), Some("https://lore.example.com"));
        assert_eq!(s.app.max_hooks_per_workspace, 7);
        assert_eq!(s.app.max_keys_per_workspace, 5);
        assert_eq!(s.app.max_revoked_keys_per_workspace, 3);
        assert_eq!(s.app.extract_limits.timeout, Duration::from_secs(9));
        assert_eq!(s.aws.table, "t1");
        assert_eq!(s.extract_isolation, ExtractIsolation::Thread);
        assert_eq!(s.app.webhook_concurrency, 64);
        assert_eq!(s.app.query_cache_bytes, 0);
        assert_eq!(s.app.rescore_candidates, 120);
        assert_eq!(s.app.rerank_candidates, 30);
        let reranker = s.providers.reranker.as_ref().unwrap();
        assert_eq!(
            (reranker.base_url.as_str(), reranker.model.as_deref()),
            ("https://api.cohere.com/v2", Some("rerank-v3.5"))
        );
        assert!(settings(&[]).unwrap().providers.reranker.is_none(), "re-ranking is off by default");
        assert_eq!(settings(&[("LORE_RERANK_CANDIDATES", "500")]).unwrap().app.rerank_candidates, 100, "bounded");
        assert_eq!(s.app.slot_lease, Duration::from_secs(45));
        assert_eq!(
            settings(&[("LORE_SLOT_LEASE_SECS", "0")]).unwrap().app.slot_lease,
            Duration::from_secs(1),
            "at least 1 s"
        );
        assert_eq!(settings(&[("LORE_RESCORE_CANDIDATES", "100000")]).unwrap().app.rescore_candidates, 500, "bounded");
        assert_eq!(settings(&[("LORE_WEBHOOK_CONCURRENCY", "0")]).unwrap().app.webhook_concurrency, 1, "at least one");
    }

    #[test]
    fn a_wrong_value_is_an_error_naming_the_variable() {
        for (name, value) in [
            ("LORE_BACKEND", "gcp"),
            ("LORE_INGEST_WORKERS", "many"),
            ("LORE_WEBHOOK_CONCURRENCY", "-1"),
            ("LORE_WEBHOOK_TIMEOUT_SECS", "0"),
            ("LORE_EXTRACT_ISOLATION", "vm"),
            ("LORE_OCR", "abbyy"),
            ("LORE_RERANK_BASE_URL", "api.cohere.com"),
            ("LORE_RERANK_CANDIDATES", "ten"),
            ("LORE_ALLOWED_PORTS", "http"),
            ("LORE_ALLOW_PRIVATE_NETWORK", "maybe"),
        ] {
            let err = settings(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn text_recognition_is_off_unless_asked_for() {
        assert_eq!(settings(&[]).unwrap().app.extract_limits.ocr, None);
        assert_eq!(settings(&[("LORE_OCR", "none")]).unwrap().app.extract_limits.ocr, None);
        let on = settings(&[
            ("LORE_OCR", "tesseract"),
            ("LORE_OCR_LANGUAGES", "eng+deu"),
            ("LORE_OCR_MAX_PAGES", "3"),
            ("LORE_TESSERACT_BIN", "/opt/bin/tesseract"),
        ])
        .unwrap();
        assert_eq!(
            on.app.extract_limits.ocr,
            Some(OcrSettings {
                engine: OcrEngine::Tesseract { languages: "eng+deu", program: "/opt/bin/tesseract" },
                max_pages: 3
            })
        );
        let default = settings(&[("LORE_OCR", "tesseract")]).unwrap().app.extract_limits.ocr;
        assert_eq!(default, Some(OcrSettings::default()));
        for (name, value) in
            [("LORE_OCR_LANGUAGES", "eng; rm -rf /"), ("LORE_OCR_LANGUAGES", "eng deu"), ("LORE_OCR_MAX_PAGES", "0")]
        {
            let e = settings(&[("LORE_OCR", "tesseract"), (name, value)]).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn text_recognition_by_a_vision_model_uses_the_shared_openai_settings() {
        let ocr = |vars: &[(&str, &str)]| {
            let vars = [&[("LORE_OCR", "openai")], vars].concat();
            settings(&vars).map(|s| s.app.extract_limits.ocr.expect("recognition is on"))
        };
        let engine = |vars: &[(&str, &str)]| ocr(vars).unwrap().engine;
        // OpenAI's API with its key and the default model.
        let OcrEngine::OpenAi { base_url, api_key, model } = engine(&[("OPENAI_API_KEY", "sk-test")]) else {
            panic!("not the vision model")
        };
        assert_eq!((base_url, api_key.map(|k| k.expose()), model), (OPENAI_API, Some("sk-test"), DEFAULT_OCR_MODEL));
        let on = ocr(&[("OPENAI_API_KEY", "sk-test"), ("LORE_OCR_MAX_PAGES", "7"), ("LORE_OCR_MODEL", "gpt-4.1")]);
        let on = on.unwrap();
        assert_eq!(on.max_pages, 7);
        assert!(matches!(on.engine, OcrEngine::OpenAi { model: "gpt-4.1", .. }), "{on:?}");
        assert!(!format!("{on:?}").contains("sk-test"), "the key is never in Debug output: {on:?}");
        // The base URL: recognition's own, else the chat model's, else the OpenAI clients' own.
        let urls = [
            ("OPENAI_BASE_URL", "http://127.0.0.1:3/v1"),
            ("LORE_LLM_BASE_URL", "http://127.0.0.1:2/v1/"),
            ("LORE_OCR_BASE_URL", "http://127.0.0.1:1/v1"),
        ];
        for (n, expected) in [(1, "http://127.0.0.1:3/v1"), (2, "http://127.0.0.1:2/v1"), (3, "http://127.0.0.1:1/v1")]
        {
            let OcrEngine::OpenAi { base_url, api_key, .. } = engine(&urls[..n]) else {
                panic!("not the vision model")
            };
            assert_eq!((base_url, api_key), (expected, None), "a local server needs no key");
        }
        // OpenAI's API without a key stops start-up, unless the backend reads it from its secret.
        let e = ocr(&[]).unwrap_err().to_string();
        assert!(e.contains("LORE_OCR=openai") && e.contains("OPENAI_API_KEY"), "{e}");
        let secret = engine(&[("LORE_OPENAI_KEY_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:1:secret:k")]);
        assert!(matches!(secret, OcrEngine::OpenAi { api_key: None, .. }), "{secret:?}");
        let filled = OcrSettings { engine: secret, max_pages: 1 }.with_api_key_if_missing(Some("sk-secret"));
        assert!(matches!(filled.engine, OcrEngine::OpenAi { api_key: Some(k), .. } if k.expose() == "sk-secret"));
        for (name, value) in
            [("LORE_OCR_BASE_URL", "ftp://x"), ("LORE_LLM_BASE_URL", "localhost:8080"), ("LORE_OCR_MAX_PAGES", "0")]
        {
            let e = ocr(&[("OPENAI_API_KEY", "sk-test"), (name, value)]).unwrap_err().to_string();
            assert!(e.contains(name), "{e}");
        }
    }

    #[test]
    fn the_speech_model_reads_its_variables_and_falls_back_to_the_shared_base_urls() {
        let speech = |vars: &[(&str, &str)]| {
            let s = settings(vars).unwrap();
            s.providers.speech.config().unwrap().expect("speech is on")
        };
        let on = [("LORE_SPEECH", "openai"), ("LORE_SPEECH_MAX_BYTES", "2000000"), ("LORE_SPEECH_TIMEOUT_SECS", "15")];
        let c = speech(&[on.as_slice(), &[("OPENAI_BASE_URL", "http://127.0.0.1:3/v1")]].concat());
        assert_eq!(c.base_url, "http://127.0.0.1:3/v1");
        assert_eq!((c.max_bytes, c.timeout), (2_000_000, Duration::from_secs(15)));
        let both = [("OPENAI_BASE_URL", "http://127.0.0.1:3/v1"), ("LORE_LLM_BASE_URL", "http://127.0.0.1:2/v1")];
        assert_eq!(speech(&[on.as_slice(), &both].concat()).base_url, "http://127.0.0.1:2/v1");
        let own = [("LORE_SPEECH_BASE_URL", "http://127.0.0.1:1/v1")];
        assert_eq!(speech(&[on.as_slice(), &both, &own].concat()).base_url, "http://127.0.0.1:1/v1");
    }

    #[test]
    fn a_secret_key_stands_in_for_an_unset_openai_key() {
        let arn = ("LORE_OPENAI_KEY_SECRET_ARN", "arn:aws:secretsmanager:eu-west-1:1:secret:k");
        let s = settings(&[("LORE_EMBEDDER", "openai"), ("LORE_TRANSCRIBER", "openai"), arn]).unwrap();
        assert!(!s.has_openai_key());
        // Parsed at start without a key; OpenAI's API cannot be used before the secret is read.
        assert!(matches!(&s.providers.embedder, EmbedderSettings::OpenAi(o) if o.api_key.is_none()));
        assert_eq!(s.providers.clone().embedder.config(), Err(lore_embed::ConfigError::MissingApiKey));
        assert_eq!(s.providers.responder.config(), Ok(None), "no key: the extractive responder");
        // The composition fills in the secret's key: every OpenAI client gets it.
        let keyed = s.providers.clone().with_keys(Some("sk-secret"), None);
        let lore_embed::EmbedderConfig::OpenAi(embedder) = keyed.embedder.config().unwrap() else {
            panic!("not the openai embedder")
        };
        assert_eq!(embedder.api_key, "sk-secret");
        let responder = keyed.responder.config().unwrap().expect("a key turns the language model on");
        assert_eq!(responder.api_key.as_deref(), Some("sk-secret"));
        assert_eq!(keyed.transcriber.config().unwrap().unwrap().api_key.as_deref(), Some("sk-secret"));
        assert_eq!(keyed.speech.config().unwrap().unwrap().api_key.as_deref(), Some("sk-secret"));
        // A key set directly wins over the secret's.
        let direct = settings(&[("OPENAI_API_KEY", "sk-env"), arn]).unwrap();
        assert!(direct.has_openai_key());
        let direct = direct.providers.with_keys(Some("sk-secret"), None);
        assert_eq!(direct.responder.config().unwrap().unwrap().api_key.as_deref(), Some("sk-env"));
        // The re-ranker's own secret.
        let rerank = settings(&[("LORE_RERANK_BASE_URL", "https://api.cohere.com/v2")]).unwrap();
        assert!(rerank.reranker_needs_key());
        let keyed = rerank.providers.with_keys(Some("sk-secret"), Some("rk-secret")).reranker.unwrap();
        assert_eq!(keyed.api_key.as_deref(), Some("rk-secret"));
    }

    #[test]
    fn a_wrong_provider_value_stops_start_up_naming_the_variable() {
        // Whether or not the provider is the one in use: every variable is parsed at start.
        for (name, value) in [
            ("LORE_LLM_TIMEOUT_SECS", "abc"),
            ("LORE_LLM_PROMPT_TOKENS", "10"),
            ("LORE_LLM_BASE_URL", "localhost:8080"),
            ("LORE_RESPONDER", "gpt"),
            ("LORE_EMBEDDER", "bogus"),
            ("LORE_EMBEDDING_DIMENSIONS", "many"),
            ("OPENAI_BASE_URL", "api.example.com"),
            ("LORE_TRANSCRIBER", "whisper.cpp"),
            ("LORE_TRANSCRIPTION_BASE_URL", "ftp://x"),
            ("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES", "24MB"),
            ("LORE_SPEECH", "maybe"),
            ("LORE_SPEECH_TIMEOUT_SECS", "0"),
            ("LORE_SPEECH_MAX_BYTES", "lots"),
            ("LORE_RERANK_TIMEOUT_MS", "2s"),
        ] {
            let err = settings(&[(name, value)]).map(|_| ()).unwrap_err().to_string();
            assert!(err.contains(name), "{name}={value}: {err}");
        }
        let e = settings(&[("LORE_EMBEDDER", "openai"), ("LORE_EMBEDDING_MODEL", "nomic-embed-text")]).unwrap_err();
        assert!(e.to_string().contains("LORE_EMBEDDING_DIMENSIONS"), "{e}");
    }

    /// What a process runs with, for comparing two readings (each reading names its instance).
    fn fingerprint(s: &Settings) -> String {
        let app = AppConfig { instance_id: String::new(), ..s.app.clone() };
        #[cfg(feature = "aws")]
        let aws = format!("{:?} {:?}", s.aws, s.pg_index);
        #[cfg(not(feature = "aws"))]
        let aws = "";
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {aws}",
            s.backend,
            s.data_dir,
            s.addr,
            app,
            s.extract_isolation,
            s.net,
            s.database_url,
            s.database_secret_arn,
            s.openai_key_secret_arn,
            s.rerank_key_secret_arn,
            s.providers,
        )
    }

    #[test]
    fn a_blank_value_is_unset_and_values_are_trimmed_for_every_reader() {
        let defaults = fingerprint(&settings(&[]).unwrap());
        for name in [
            "LORE_BACKEND",
            "LORE_DATA_DIR",
            "LORE_ADDR",
            "LORE_PUBLIC_BASE_URL",
            "LORE_STREAM_URL",
            "LORE_EXTRACT_ISOLATION",
            "LORE_INGEST_WORKERS",
            "LORE_WEBHOOK_RETRY_SCHEDULE",
            "LORE_WEBHOOK_TIMEOUT_SECS",
            "LORE_EXTRACT_MEMORY_MB",
            "LORE_ALLOWED_PORTS",
            "LORE_ALLOW_PRIVATE_NETWORK",
            "LORE_DYNAMODB_TABLE",
            "LORE_INGEST_QUEUE_URL",
            "LORE_PG_EF_SEARCH",
            "LORE_DATABASE_URL",
            "LORE_OPENAI_KEY_SECRET_ARN",
            "LORE_OCR",
            "LORE_OCR_LANGUAGES",
            "LORE_OCR_MAX_PAGES",
            "HOME",
            "LORE_EMBEDDER",
            "LORE_MODEL_DIR",
            "LORE_E5_DIR",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "LORE_EMBEDDING_MODEL",
            "LORE_EMBEDDING_DIMENSIONS",
            "LORE_RESPONDER",
            "LORE_LLM_BASE_URL",
            "LORE_LLM_MODEL",
            "LORE_LLM_TIMEOUT_SECS",
            "LORE_SPEECH",
            "LORE_SPEECH_BASE_URL",
            "LORE_SPEECH_MAX_BYTES",
            "LORE_TRANSCRIBER",
            "LORE_TRANSCRIPTION_API_KEY",
            "LORE_TRANSCRIPTION_BASE_URL",
            "LORE_TRANSCRIPTION_MAX_REQUEST_BYTES",
            "LORE_RERANK_BASE_URL",
            "LORE_RERANK_API_KEY",
            "LORE_RERANK_TIMEOUT_MS",
        ] {
            let blank = settings(&[(name, " \t ")]).unwrap_or_else(|e| panic!("{name} blank: {e}"));
            assert_eq!(fingerprint(&blank), defaults, "a blank {name} is unset");
        }
        // Blank among set ones: a blank key turns nothing on, a blank own server falls back.
        let s = settings(&[("LORE_EMBEDDER", "openai"), ("OPENAI_API_KEY", "  ")]).unwrap();
        assert_eq!(s.providers.embedder.config(), Err(lore_embed::ConfigError::MissingApiKey));
        let s = settings(&[
            ("OPENAI_API_KEY", "sk"),
            ("LORE_SPEECH_BASE_URL", " "),
            ("LORE_LLM_BASE_URL", "http://127.0.0.1:2/v1"),
        ])
        .unwrap();
        assert_eq!(s.providers.speech.config().unwrap().unwrap().base_url, "http://127.0.0.1:2/v1");
        // Every value is trimmed before it is parsed.
        let s = settings(&[
            ("LORE_EMBEDDER", " OpenAI\n"),
            ("OPENAI_API_KEY", " sk-1 "),
            ("LORE_LLM_TIMEOUT_SECS", " 25 "),
            ("LORE_TRANSCRIPTION_MAX_REQUEST_BYTES", "\t1000000 "),
            ("LORE_RERANK_BASE_URL", " http://127.0.0.1:9/v1 "),
            ("LORE_OCR", " tesseract "),
            ("LORE_OCR_LANGUAGES", " eng+deu "),
        ])
        .unwrap();
        let lore_embed::EmbedderConfig::OpenAi(embedder) = s.providers.embedder.config().unwrap() else {
            panic!("not the openai embedder")
        };
        assert_eq!(embedder.api_key, "sk-1");
        let responder = s.providers.responder.config().unwrap().unwrap();
        assert_eq!(responder.request_timeout, Duration::from_secs(25));
        assert_eq!(s.providers.transcriber.config().unwrap().unwrap().max_request_bytes, 1_000_000);
        assert_eq!(s.providers.reranker.unwrap().base_url, "http://127.0.0.1:9/v1");
        assert!(matches!(
            s.app.extract_limits.ocr.map(|o| o.engine),
            Some(OcrEngine::Tesseract { languages: "eng+deu", .. })
        ));
    }
}
