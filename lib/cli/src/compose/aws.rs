//! The AWS backend's storage ports: records on DynamoDB, files on S3, jobs on SQS, events on
//! EventBridge, chunks on PostgreSQL + pgvector. It also reads the secrets the backend keeps:
//! the database URL is `LORE_DATABASE_URL`, else the `SecretString` of
//! `LORE_DATABASE_SECRET_ARN`; the OpenAI key, when `OPENAI_API_KEY` is not set, is the
//! `SecretString` of `LORE_OPENAI_KEY_SECRET_ARN`, and the re-ranker's, when `LORE_RERANK_API_KEY`
//! is not set, that of `LORE_RERANK_API_KEY_SECRET_ARN`. The keys are read at start; the database
//! (its secret, connection and migration check) on the chunk index's first use
//! ([`LazyPgIndex`]).

use super::parts::{AwsOverrides, StoragePorts, Uses};
use crate::settings::Settings;
use aws_config::SdkConfig;
use lore_app::ports::{NoIndex, StoreError, VectorIndex};
use lore_aws::AwsBackend;
use lore_pgvector::{LazyPgIndex, UrlSource};
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
/// the database is opened and migrated on first use ([`LazyPgIndex`]).
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
            let index = lazy_index(settings, database, &sdk)?;
            let openai_arn =
                settings.openai_key_secret_arn.as_ref().filter(|_| needs_openai_key && !settings.has_openai_key());
            let rerank_arn = settings.rerank_key_secret_arn.as_ref().filter(|_| settings.reranker_needs_key());
            // Both at once: each is a round trip on the cold start's path.
            let (openai_key, rerank_key) = futures::try_join!(secret(&sdk, openai_arn), secret(&sdk, rerank_arn))?;
            (Arc::new(index), Keys { openai_key, rerank_key })
        }
        Uses::RecordsOnly => (Arc::new(NoIndex), Keys::default()),
    };
    let ports = backend.storage_ports(index);
    Ok(AwsStorage { ports, backend, keys })
}

/// The `SecretString` of the secret `arn` names, if any.
async fn secret(sdk: &SdkConfig, arn: Option<&String>) -> anyhow::Result<Option<String>> {
    match arn {
        Some(arn) => Ok(Some(lore_aws::secrets::secret_string(sdk, arn).await?)),
        None => Ok(None),
    }
}

/// The pgvector index of these settings, opened on its first use: its URL is
/// `LORE_DATABASE_URL` (or the caller's), else the `SecretString` of `LORE_DATABASE_SECRET_ARN`,
/// read then.
fn lazy_index(settings: &Settings, given: Option<String>, sdk: &SdkConfig) -> anyhow::Result<LazyPgIndex> {
    let options = settings.pg_index.clone();
    if let Some(url) = given.or_else(|| settings.database_url.clone()) {
        return Ok(LazyPgIndex::at(url, options));
    }
    let Some(arn) = settings.database_secret_arn.clone() else {
        anyhow::bail!(
            "the aws backend keeps chunks in PostgreSQL + pgvector: set LORE_DATABASE_URL \
             (postgres://user:password@host:port/db) or LORE_DATABASE_SECRET_ARN"
        )
    };
    let sdk = sdk.clone();
    let url: UrlSource = Box::new(move || {
        let (sdk, arn) = (sdk.clone(), arn.clone());
        Box::pin(async move {
            lore_aws::secrets::secret_string(&sdk, &arn)
                .await
                .map_err(|e| StoreError::Unavailable(format!("pgvector database secret: {e}")))
        })
    });
    Ok(LazyPgIndex::new(url, options))
}

/// The pgvector index of these settings, opened and migrated now (`lore migrate`).
pub(crate) async fn open_index(settings: &Settings) -> anyhow::Result<lore_pgvector::PgIndex> {
    let sdk = lore_aws::load_sdk_config().await;
    let index = lazy_index(settings, None, &sdk)?;
    index.open().await?;
    Ok(index.into_inner().expect("opened above"))
}
