//! The AWS backend's storage ports: records on DynamoDB, files on S3, jobs on SQS, events on
//! EventBridge, chunks on PostgreSQL + pgvector. It also reads the secrets the backend keeps:
//! the database URL is `LORE_DATABASE_URL`, else the `SecretString` of
//! `LORE_DATABASE_SECRET_ARN`; the OpenAI key, when `OPENAI_API_KEY` is not set, is the
//! `SecretString` of `LORE_OPENAI_KEY_SECRET_ARN`, and the re-ranker's, when `LORE_RERANK_API_KEY`
//! is not set, that of `LORE_RERANK_API_KEY_SECRET_ARN`. The keys are read at start; the database
//! (its secret, connection and migration check) on the chunk index's first use.

use super::parts::{AwsOverrides, StoragePorts, Uses};
use crate::settings::Settings;
use aws_config::SdkConfig;
use lore_app::ports::{Chunk, ChunkChange, ChunkEmbedding, ChunkHit, SearchScope, StoredChunk, VectorIndex};
use lore_app::ports::{StoreError, StoreResult};
use lore_aws::AwsBackend;
use lore_domain::id::{SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;
use std::collections::HashMap;
use std::sync::Arc;

pub(super) struct AwsStorage {
    pub ports: StoragePorts,
    pub backend: AwsBackend,
    /// Keys read from Secrets Manager.
    pub keys: Keys,
}

/// The model providers' keys read from Secrets Manager, each when the settings name its secret
/// and the shared ports need it.
#[derive(Default)]
pub(super) struct Keys {
    /// `LORE_OPENAI_KEY_SECRET_ARN`'s, when `OPENAI_API_KEY` is not set.
    pub openai_key: Option<String>,
    /// `LORE_RERANK_API_KEY_SECRET_ARN`'s, when a re-ranker is configured without
    /// `LORE_RERANK_API_KEY`.
    pub rerank_key: Option<String>,
}

/// Connects to every AWS resource (creating what is missing when `LORE_AWS_BOOTSTRAP=true`);
/// the database is opened and migrated on first use ([`LazyIndex`]).
///
/// Without `LORE_CDN_BASE_URL`, `fileUrl`s point at this server's own `/files/…` route (which
/// reads S3): the bucket is private, so its own URLs would not be readable.
pub(super) async fn storage(
    settings: &Settings,
    overrides: Option<&AwsOverrides>,
    public_base: &str,
    uses: Uses,
    needs_openai_key: bool,
) -> anyhow::Result<AwsStorage> {
    let (sdk, mut aws, database) = match overrides {
        Some(o) => (o.sdk.clone(), o.settings.clone(), o.database_url.clone()),
        None => (lore_aws::load_sdk_config().await, settings.aws.clone(), None),
    };
    if aws.cdn_base_url.is_none() {
        aws.cdn_base_url = Some(format!("{public_base}/files"));
    }
    let backend = AwsBackend::connect_with(&sdk, aws).await.map_err(|e| anyhow::anyhow!("aws backend: {e}"))?;
    let (index, keys): (Arc<dyn VectorIndex>, _) = match uses {
        Uses::Everything => {
            let source = DatabaseUrl::from_settings(settings, database, &sdk)?;
            let index = LazyIndex { source, index: tokio::sync::OnceCell::new() };
            let openai_arn =
                settings.openai_key_secret_arn.as_ref().filter(|_| needs_openai_key && !settings.has_openai_key());
            let rerank_arn = settings.rerank_key_secret_arn.as_ref().filter(|_| settings.reranker_needs_key());
            // Both at once: each is a round trip on the cold start's path.
            let (openai_key, rerank_key) = futures::try_join!(secret(&sdk, openai_arn), secret(&sdk, rerank_arn))?;
            (Arc::new(index), Keys { openai_key, rerank_key })
        }
        Uses::RecordsOnly => (Arc::new(NoIndex), Keys::default()),
    };
    let ports = StoragePorts {
        workspaces: backend.workspaces.clone(),
        keys: backend.keys.clone(),
        chatbots: backend.chatbots.clone(),
        rate_limiter: backend.rate_limiter.clone(),
        key_windows: Some(backend.key_windows.clone()),
        slots: backend.slots.clone(),
        sources: backend.sources.clone(),
        index,
        blobs: backend.blobs.clone(),
        jobs: backend.jobs.clone(),
        events: backend.events.clone(),
        forms: backend.forms.clone(),
        hooks: backend.hooks.clone(),
        deliveries: backend.deliveries.clone(),
        minds: backend.minds.clone(),
        conversations: backend.conversations.clone(),
    };
    Ok(AwsStorage { ports, backend, keys })
}

/// The `SecretString` of the secret `arn` names, if any.
async fn secret(sdk: &SdkConfig, arn: Option<&String>) -> anyhow::Result<Option<String>> {
    match arn {
        Some(arn) => Ok(Some(lore_aws::secrets::secret_string(sdk, arn).await?)),
        None => Ok(None),
    }
}

/// Where the pgvector URL comes from: the settings, or a Secrets Manager secret.
enum DatabaseUrl {
    Given(String, lore_pgvector::PgIndexOptions),
    Secret { sdk: Box<SdkConfig>, arn: String, options: lore_pgvector::PgIndexOptions },
}

/// The pgvector index, opened on its first use: the secret read, the connection and the
/// migration check cost a Lambda's cold start ~9 ms (docs/benchmarks.md), and most requests
/// (a chatbot's record, a form, a key check) never touch the chunks. A failure is the call's
/// `Unavailable` error, logged, and the next call tries again.
struct LazyIndex {
    source: DatabaseUrl,
    index: tokio::sync::OnceCell<lore_pgvector::PgIndex>,
}

impl DatabaseUrl {
    fn from_settings(settings: &Settings, given: Option<String>, sdk: &SdkConfig) -> anyhow::Result<DatabaseUrl> {
        if let Some(url) = given.or_else(|| settings.database_url.clone()) {
            Ok(DatabaseUrl::Given(url, settings.pg_index.clone()))
        } else if let Some(arn) = &settings.database_secret_arn {
            Ok(DatabaseUrl::Secret { sdk: Box::new(sdk.clone()), arn: arn.clone(), options: settings.pg_index.clone() })
        } else {
            anyhow::bail!(
                "the aws backend keeps chunks in PostgreSQL + pgvector: set LORE_DATABASE_URL \
                 (postgres://user:password@host:port/db) or LORE_DATABASE_SECRET_ARN"
            )
        }
    }

    /// The index at this URL, its schema migrated.
    async fn open(&self) -> StoreResult<lore_pgvector::PgIndex> {
        let (url, options) = match self {
            DatabaseUrl::Given(url, options) => (url.clone(), options),
            DatabaseUrl::Secret { sdk, arn, options } => (
                lore_aws::secrets::secret_string(sdk, arn)
                    .await
                    .map_err(|e| StoreError::Unavailable(format!("pgvector database secret: {e}")))?,
                options,
            ),
        };
        let index = lore_pgvector::PgIndex::connect_with(&url, options.clone()).await?;
        index.migrate().await?;
        Ok(index)
    }
}

/// The pgvector index of these settings, opened and migrated now (`lore migrate`).
pub(crate) async fn open_index(settings: &Settings) -> anyhow::Result<lore_pgvector::PgIndex> {
    let sdk = lore_aws::load_sdk_config().await;
    Ok(DatabaseUrl::from_settings(settings, None, &sdk)?.open().await?)
}

impl LazyIndex {
    async fn get(&self) -> StoreResult<&lore_pgvector::PgIndex> {
        self.index
            .get_or_try_init(|| self.source.open())
            .await
            .inspect_err(|e| tracing::error!(error = %e, "the pgvector database could not be opened"))
    }
}

#[async_trait::async_trait]
impl VectorIndex for LazyIndex {
    async fn semantic_search(
        &self,
        scope: &SearchScope,
        model: &str,
        query: &[f32],
        k: usize,
        with_token_signs: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
        self.get().await?.semantic_search(scope, model, query, k, with_token_signs).await
    }
    async fn keyword_search(&self, scope: &SearchScope, query: &str, k: usize) -> StoreResult<Vec<ChunkHit>> {
        self.get().await?.keyword_search(scope, query, k).await
    }
    async fn replace_source_chunks(&self, source: &SourceId, model: &str, chunks: Vec<Chunk>) -> StoreResult<()> {
        self.get().await?.replace_source_chunks(source, model, chunks).await
    }
    async fn delete_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        self.get().await?.delete_source_chunks(source).await
    }
    async fn delete_owner_chunks(&self, owner: &SourceOwner) -> StoreResult<u64> {
        self.get().await?.delete_owner_chunks(owner).await
    }
    async fn embeddings_by_hash(&self, source: &SourceId, model: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        self.get().await?.embeddings_by_hash(source, model).await
    }
    async fn count_source_chunks(&self, source: &SourceId) -> StoreResult<u64> {
        self.get().await?.count_source_chunks(source).await
    }
    async fn sources_with_other_models(&self, model: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        self.get().await?.sources_with_other_models(model).await
    }
    async fn list_source_chunks(&self, source: &SourceId, offset: u64, limit: u32) -> StoreResult<Vec<StoredChunk>> {
        self.get().await?.list_source_chunks(source, offset, limit).await
    }
    async fn update_chunk(
        &self,
        source: &SourceId,
        id: &str,
        change: &ChunkChange,
    ) -> StoreResult<Option<StoredChunk>> {
        self.get().await?.update_chunk(source, id, change).await
    }
    async fn current_chunk_count(&self, source: &SourceId, model: &str) -> StoreResult<Option<u64>> {
        self.get().await?.current_chunk_count(source, model).await
    }
    async fn page_chunk_hashes(&self, source: &SourceId) -> StoreResult<Vec<(String, String)>> {
        self.get().await?.page_chunk_hashes(source).await
    }
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
    async fn semantic_search(
        &self,
        _: &SearchScope,
        _: &str,
        _: &[f32],
        _: usize,
        _: bool,
    ) -> StoreResult<Vec<ChunkHit>> {
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
    async fn embeddings_by_hash(&self, _: &SourceId, _: &str) -> StoreResult<HashMap<String, ChunkEmbedding>> {
        no_index()
    }
    async fn count_source_chunks(&self, _: &SourceId) -> StoreResult<u64> {
        no_index()
    }
    async fn sources_with_other_models(&self, _: &str) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        no_index()
    }
    async fn list_source_chunks(&self, _: &SourceId, _: u64, _: u32) -> StoreResult<Vec<StoredChunk>> {
        no_index()
    }
    async fn update_chunk(&self, _: &SourceId, _: &str, _: &ChunkChange) -> StoreResult<Option<StoredChunk>> {
        no_index()
    }
    async fn current_chunk_count(&self, _: &SourceId, _: &str) -> StoreResult<Option<u64>> {
        no_index()
    }
    async fn page_chunk_hashes(&self, _: &SourceId) -> StoreResult<Vec<(String, String)>> {
        no_index()
    }
}
