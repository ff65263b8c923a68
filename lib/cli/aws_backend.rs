//! The AWS composition (`--backend aws`, `LORE_BACKEND=aws`): records on DynamoDB, files on S3,
//! jobs on SQS, events on EventBridge, chunks on PostgreSQL + pgvector.
//!
//! The database URL is `LORE_DATABASE_URL`, else the `SecretString` of `LORE_DATABASE_SECRET_ARN`;
//! with `LORE_EMBEDDER=openai` and no `OPENAI_API_KEY`, the key is the `SecretString` of
//! `LORE_OPENAI_KEY_SECRET_ARN`. Both are read once, at start. Resource names: `lore_aws::AwsSettings`.

use crate::compose::{Composition, Overrides, Uses};
use aws_config::SdkConfig;
use lore_app::Ports;
use lore_app::ports::Embedder;
use lore_app::ports::Transcriber;
use lore_app::ports::{Chunk, ChunkHit, SearchScope, VectorIndex};
use lore_app::ports::{StoreError, StoreResult};
use lore_aws::{AwsBackend, AwsSettings};
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use std::collections::HashMap;
use std::sync::Arc;

/// What tests (and embedders of the library) choose instead of the environment.
#[derive(Clone)]
pub struct AwsOverrides {
    /// The SDK configuration (endpoint, region, credentials).
    pub sdk: SdkConfig,
    pub settings: AwsSettings,
    /// The pgvector database, instead of `LORE_DATABASE_URL` / `LORE_DATABASE_SECRET_ARN`.
    pub database_url: Option<String>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// The pgvector URL from the environment or its secret.
async fn database_url(sdk: &SdkConfig) -> anyhow::Result<String> {
    if let Some(url) = env("LORE_DATABASE_URL") {
        return Ok(url);
    }
    match env("LORE_DATABASE_SECRET_ARN") {
        Some(arn) => Ok(lore_aws::secrets::secret_string(sdk, &arn).await?),
        None => anyhow::bail!(
            "the aws backend keeps chunks in PostgreSQL + pgvector: set LORE_DATABASE_URL \
             (postgres://user:password@host:port/db) or LORE_DATABASE_SECRET_ARN"
        ),
    }
}

/// The embedder the environment names, with the OpenAI key read from its secret when it is not
/// in the environment.
/// The OpenAI key from Secrets Manager, when `LORE_OPENAI_KEY_SECRET_ARN` names it and
/// `OPENAI_API_KEY` is not set.
async fn secret_openai_key(sdk: &SdkConfig) -> anyhow::Result<Option<String>> {
    Ok(match (env(lore_embed::config::ENV_API_KEY), env("LORE_OPENAI_KEY_SECRET_ARN")) {
        (None, Some(arn)) => Some(lore_aws::secrets::secret_string(sdk, &arn).await?),
        _ => None,
    })
}

/// The environment, with the secret key as `OPENAI_API_KEY` (the embedder and the transcriber
/// read the same variable).
fn with_key(secret_key: &Option<String>) -> impl Fn(&str) -> Option<String> + '_ {
    move |name| match (secret_key, name) {
        (Some(key), lore_embed::config::ENV_API_KEY) => Some(key.clone()),
        _ => std::env::var(name).ok(),
    }
}

/// Connects to every AWS resource and the database (creating what is missing when
/// `LORE_AWS_BOOTSTRAP=true`), migrates the database, and composes the use cases.
///
/// Without `LORE_CDN_BASE_URL`, `fileUrl`s point at this server's own `/files/…` route (which
/// reads S3): the bucket is private, so its own URLs would not be readable.
pub async fn compose(public_base: &str, overrides: &Overrides, uses: Uses) -> anyhow::Result<Composition> {
    let (sdk, mut settings, database) = match &overrides.aws {
        Some(o) => (o.sdk.clone(), o.settings.clone(), o.database_url.clone()),
        None => (lore_aws::load_sdk_config().await, AwsSettings::from_env(), None),
    };
    if settings.cdn_base_url.is_none() {
        settings.cdn_base_url = Some(format!("{public_base}/files"));
    }
    let backend = AwsBackend::connect_with(&sdk, settings).await.map_err(|e| anyhow::anyhow!("aws backend: {e}"))?;
    let (index, embedder, transcriber): (Arc<dyn VectorIndex>, Arc<dyn Embedder>, Arc<dyn Transcriber>) = match uses {
        Uses::Everything => {
            let url = match database {
                Some(url) => url,
                None => database_url(&sdk).await?,
            };
            let index =
                lore_pgvector::PgIndex::connect(&url).await.map_err(|e| anyhow::anyhow!("pgvector database: {e}"))?;
            index.migrate().await.map_err(|e| anyhow::anyhow!("pgvector migrations: {e}"))?;
            let needs_key = overrides.embedder.is_none() || overrides.transcriber.is_none();
            let secret_key = if needs_key { secret_openai_key(&sdk).await? } else { None };
            let embedder = match &overrides.embedder {
                Some(e) => e.clone(),
                None => lore_embed::config::EmbedderConfig::from_lookup(with_key(&secret_key))
                    .and_then(|c| c.build())
                    .map_err(|e| anyhow::anyhow!("embedder: {e}"))?,
            };
            let transcriber = crate::compose::transcriber(overrides, with_key(&secret_key))?;
            (Arc::new(index), embedder, transcriber)
        }
        // Never called by these functions; the built-in embedder needs no secret or model files.
        Uses::RecordsOnly => {
            (Arc::new(NoIndex), Arc::new(lore_embed::LocalEmbedder::new()), Arc::new(lore_app::ports::NoTranscriber))
        }
    };
    let net = crate::compose::network(overrides)?;
    // Wakes the dispatcher of `lore serve --backend aws` at once; on Lambda nobody listens and the
    // dispatcher function runs on its queue and schedule.
    let signal = lore_local::LocalSignal::new();
    let ports = Ports {
        workspaces: backend.workspaces.clone(),
        keys: backend.keys.clone(),
        chatbots: backend.chatbots.clone(),
        rate_limiter: backend.rate_limiter.clone(),
        sources: backend.sources.clone(),
        index,
        blobs: backend.blobs.clone(),
        jobs: backend.jobs.clone(),
        events: backend.events.clone(),
        extractor: crate::compose::extractor(overrides)?,
        url_guard: net.url_guard,
        crawler: net.crawler,
        embedder,
        forms: backend.forms.clone(),
        hooks: backend.hooks.clone(),
        deliveries: backend.deliveries.clone(),
        webhook_sender: net.webhook_sender,
        dispatch_signal: Arc::new(signal.clone()),
        minds: backend.minds.clone(),
        transcriber,
    };
    let app = lore_app::App::new(ports, crate::compose::config(overrides)?);
    Ok(Composition { app, jobs: None, store: None, dispatch: Some(signal), aws: Some(backend) })
}

/// The chunk index of functions that never search or ingest (forms, integrations, the webhook
/// dispatcher): they get no database connection, secret or VPC access (least privilege in
/// `template.yaml`). A call is a composition mistake and fails as unavailable storage.
struct NoIndex;

fn no_index<T>() -> StoreResult<T> {
    Err(StoreError::Unavailable("this function is composed without the chunk index (Uses::RecordsOnly)".into()))
}

#[async_trait::async_trait]
impl VectorIndex for NoIndex {
    async fn semantic_search(&self, _: &SearchScope, _: &str, _: &[f32], _: usize) -> StoreResult<Vec<ChunkHit>> {
        no_index()
    }
    async fn keyword_search(&self, _: &SearchScope, _: &str, _: usize) -> StoreResult<Vec<ChunkHit>> {
        no_index()
    }
    async fn replace_source_chunks(&self, _: &SourceId, _: &str, _: Vec<Chunk>) -> StoreResult<()> {
        no_index()
    }
    async fn delete_source_chunks(&self, _: &SourceId) -> StoreResult<u64> {
        no_index()
    }
    async fn delete_owner_chunks(&self, _: &SourceOwner) -> StoreResult<u64> {
        no_index()
    }
    async fn embeddings_by_hash(&self, _: &SourceId, _: &str) -> StoreResult<HashMap<String, Vec<f32>>> {
        no_index()
    }
    async fn count_source_chunks(&self, _: &SourceId) -> StoreResult<u64> {
        no_index()
    }
    async fn sources_with_other_models(&self, _: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        no_index()
    }
}
