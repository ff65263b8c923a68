//! The AWS composition of the storage ports, and `bootstrap`: creating what is missing.

use crate::dynamo::{DynamoStore, TTL_ATTRIBUTE, table_definition};
use crate::eventbridge::EventBridgeBus;
use crate::s3::S3BlobStore;
use crate::settings::{AwsSettings, DELIVERIES_RULE, QueueRef};
use crate::sqs::SqsJobQueue;
use aws_config::meta::region::RegionProviderChain;
use aws_config::{BehaviorVersion, SdkConfig};
use aws_sdk_dynamodb::types::{IndexStatus, TableStatus, TimeToLiveSpecification, TimeToLiveStatus};
use aws_sdk_s3::types::{BucketLocationConstraint, CreateBucketConfiguration};
use aws_sdk_sqs::types::QueueAttributeName;
use lore_app::ports::{EventBus, NoIndex, StoreError, StoreResult, VectorIndex};
use std::sync::Arc;
use std::time::Duration;

/// Every port the AWS adapters implement, over one set of resources, and the adapters
/// themselves.
#[derive(Clone)]
pub struct AwsBackend {
    /// The ports, as a composition takes them ([`Self::storage_ports`]). Their chunk index is
    /// [`NoIndex`]: the vector index (pgvector) is not among these adapters but composed beside
    /// them. `key_windows` is always there: API keys hold their request windows on their items
    /// (docs/rate-limiting.md); `slots` are the per-workspace concurrency budgets, shared by
    /// every instance (docs/limits.md).
    pub ports: lore_app::StoragePorts,
    /// The webhook event outbox on the table (what `ports.deliveries` fans out); `ports.forms`
    /// writes response events there itself, in the response's transaction.
    pub outbox: Arc<dyn EventBus>,
    /// The concrete adapters, for what the ports do not cover (clients, names).
    pub dynamo: Arc<DynamoStore>,
    pub s3: Arc<S3BlobStore>,
    pub sqs: Arc<SqsJobQueue>,
    pub eventbridge: Arc<EventBridgeBus>,
    pub sdk_config: SdkConfig,
    pub settings: AwsSettings,
}

fn unavailable(what: &str, e: impl std::error::Error + 'static) -> StoreError {
    StoreError::Unavailable(format!("{what}: {}", aws_sdk_dynamodb::error::DisplayErrorContext(e)))
}

/// The SDK configuration from the environment (credentials chain, `AWS_REGION` — `us-east-1`
/// when none is found —, `AWS_ENDPOINT_URL[_<SERVICE>]`), its SDK clients sharing one HTTPS
/// client ([`crate::http_client`]).
pub async fn load_sdk_config() -> SdkConfig {
    let region = RegionProviderChain::default_provider().or_else("us-east-1");
    aws_config::defaults(BehaviorVersion::latest())
        .region(region)
        .http_client(crate::http_client::shared_https_client())
        .load()
        .await
}

/// The SDK configuration for an AWS-compatible service on this machine (moto, LocalStack) at
/// `endpoint`: region `us-east-1`, static `testing` credentials, the shared HTTPS client. What
/// tests and benches run the AWS adapters on.
pub async fn local_sdk_config(endpoint: &str) -> SdkConfig {
    let credentials = aws_credential_types::Credentials::new("testing", "testing", None, None, "lore-local");
    aws_config::defaults(BehaviorVersion::latest())
        .region(aws_config::Region::new("us-east-1"))
        .http_client(crate::http_client::shared_https_client())
        .endpoint_url(endpoint)
        .credentials_provider(credentials)
        .load()
        .await
}

impl AwsBackend {
    /// Its ports as a composition takes them, with `index` (pgvector, composed beside these) as
    /// the chunk index.
    pub fn storage_ports(&self, index: Arc<dyn VectorIndex>) -> lore_app::StoragePorts {
        lore_app::StoragePorts { index, ..self.ports.clone() }
    }

    /// Connects with the SDK configuration of the environment.
    pub async fn connect(settings: AwsSettings) -> StoreResult<Self> {
        Self::connect_with(&load_sdk_config().await, settings).await
    }

    /// Connects with a given SDK configuration (tests pass moto's endpoint and static
    /// credentials). With `settings.bootstrap`, creates the missing resources first.
    pub async fn connect_with(sdk: &SdkConfig, settings: AwsSettings) -> StoreResult<Self> {
        if settings.bootstrap {
            bootstrap(sdk, &settings).await?;
        }
        let dynamo = Arc::new(DynamoStore::new(aws_sdk_dynamodb::Client::new(sdk), &settings.table));
        let s3 = Arc::new(S3BlobStore::new(sdk, &settings).await);
        // The queue, the bus and the bucket make their clients on first use: most requests of a
        // route-group Lambda only read and write DynamoDB.
        let sqs = Arc::new(match &settings.ingest_queue {
            QueueRef::Url(url) => SqsJobQueue::on_first_use(sdk, url),
            name => {
                let client = aws_sdk_sqs::Client::new(sdk);
                let url = queue_url(&client, name).await?;
                SqsJobQueue::new(client, url)
            }
        });
        let eventbridge = Arc::new(EventBridgeBus::on_first_use(sdk, &settings.event_bus));
        let ports = lore_app::StoragePorts {
            workspaces: dynamo.clone(),
            keys: dynamo.clone(),
            chatbots: dynamo.clone(),
            rate_limiter: dynamo.clone(),
            key_windows: Some(dynamo.clone()),
            slots: dynamo.clone(),
            sources: dynamo.clone(),
            index: Arc::new(NoIndex),
            blobs: s3.clone(),
            jobs: sqs.clone(),
            events: eventbridge.clone(),
            forms: dynamo.clone(),
            hooks: dynamo.clone(),
            deliveries: dynamo.clone(),
            minds: dynamo.clone(),
            conversations: dynamo.clone(),
            tests: dynamo.clone(),
            actions: dynamo.clone(),
            channels: dynamo.clone(),
            audit: dynamo.clone(),
        };
        Ok(Self { ports, outbox: dynamo.clone(), dynamo, s3, sqs, eventbridge, sdk_config: sdk.clone(), settings })
    }
}

impl AwsBackend {
    /// A queue `name` that receives a copy of every event published on the bus (a rule of its
    /// own), for observing the events a system emits: tests, debugging. Idempotent.
    pub async fn event_tap(&self, name: &str) -> StoreResult<crate::SqsPoller> {
        let sqs = self.sqs.client();
        let url = get_or_create_queue(sqs, name, Vec::new()).await?;
        let events = self.eventbridge.client();
        let what = format!("eventbridge rule {name}");
        let pattern = serde_json::json!({ "source": [crate::EVENT_SOURCE] });
        events
            .put_rule()
            .name(name)
            .event_bus_name(&self.settings.event_bus)
            .event_pattern(pattern.to_string())
            .send()
            .await
            .map_err(|e| unavailable(&what, e))?;
        let target = aws_sdk_eventbridge::types::Target::builder()
            .id("tap")
            .arn(queue_arn(sqs, &url).await?)
            .build()
            .map_err(|e| StoreError::Unavailable(format!("{what}: {e}")))?;
        events
            .put_targets()
            .rule(name)
            .event_bus_name(&self.settings.event_bus)
            .targets(target)
            .send()
            .await
            .map_err(|e| unavailable(&what, e))?;
        Ok(crate::SqsPoller::new(sqs.clone(), url))
    }

    /// The URL of the deliveries queue (`lore serve --backend aws` polls it; on Lambda the
    /// queue triggers the dispatcher instead).
    pub async fn deliveries_queue_url(&self) -> StoreResult<String> {
        queue_url(self.sqs.client(), &self.settings.deliveries_queue).await
    }
}

pub(crate) async fn queue_url(client: &aws_sdk_sqs::Client, queue: &QueueRef) -> StoreResult<String> {
    match queue {
        QueueRef::Url(url) => Ok(url.clone()),
        QueueRef::Name(name) => client
            .get_queue_url()
            .queue_name(name)
            .send()
            .await
            .map_err(|e| unavailable(&format!("sqs queue {name}"), e))?
            .queue_url
            .ok_or_else(|| StoreError::Unavailable(format!("sqs queue {name} has no URL"))),
    }
}

/// Creates what is missing: the table (with its indexes and TTL), the bucket, the ingest queue
/// with its dead-letter queue, the event bus. Existing resources are left as they are.
/// Production creates them with `template.yaml`; this is for moto, LocalStack and first runs.
pub async fn bootstrap(sdk: &SdkConfig, settings: &AwsSettings) -> StoreResult<()> {
    ensure_table(&aws_sdk_dynamodb::Client::new(sdk), &settings.table).await?;
    let s3 = aws_sdk_s3::Client::from_conf(
        aws_sdk_s3::config::Builder::from(sdk).force_path_style(settings.s3_force_path_style).build(),
    );
    ensure_bucket(&s3, &settings.bucket, sdk.region().map(|r| r.as_ref())).await?;
    let sqs = aws_sdk_sqs::Client::new(sdk);
    ensure_queue(&sqs, &AwsSettings::queue_name(&settings.ingest_queue)).await?;
    let deliveries = ensure_queue(&sqs, &AwsSettings::queue_name(&settings.deliveries_queue)).await?;
    let events = aws_sdk_eventbridge::Client::new(sdk);
    ensure_bus(&events, &settings.event_bus).await?;
    ensure_deliveries_rule(&events, &sqs, &settings.event_bus, &deliveries).await
}

/// The pattern of the rule that feeds the webhook dispatcher (the same as `template.yaml`'s).
pub fn deliveries_rule_pattern() -> serde_json::Value {
    serde_json::json!({
        "source": [crate::EVENT_SOURCE],
        "detail-type": [{ "prefix": "knowledge.source." }, "form_response", "privacy.visitor.erased", "tests.run.completed",
            "conversation.action.called"],
    })
}

/// The bus rule sending knowledge, form, erasure, test-run and action-call events to the deliveries queue, and the
/// queue policy that lets EventBridge send to it. `PutRule` and `PutTargets` are idempotent.
async fn ensure_deliveries_rule(
    events: &aws_sdk_eventbridge::Client,
    sqs: &aws_sdk_sqs::Client,
    bus: &str,
    queue_url: &str,
) -> StoreResult<()> {
    let what = format!("eventbridge rule {DELIVERIES_RULE}");
    let rule_arn = events
        .put_rule()
        .name(DELIVERIES_RULE)
        .event_bus_name(bus)
        .event_pattern(deliveries_rule_pattern().to_string())
        .send()
        .await
        .map_err(|e| unavailable(&what, e))?
        .rule_arn
        .unwrap_or_default();
    let queue_arn = queue_arn(sqs, queue_url).await?;
    let policy = serde_json::json!({
        "Version": "2012-10-17",
        "Statement": [{
            "Effect": "Allow",
            "Principal": { "Service": "events.amazonaws.com" },
            "Action": "sqs:SendMessage",
            "Resource": queue_arn,
            "Condition": { "ArnEquals": { "aws:SourceArn": rule_arn } },
        }],
    });
    sqs.set_queue_attributes()
        .queue_url(queue_url)
        .attributes(QueueAttributeName::Policy, policy.to_string())
        .send()
        .await
        .map_err(|e| unavailable(&format!("sqs queue {queue_url}"), e))?;
    let target = aws_sdk_eventbridge::types::Target::builder()
        .id("deliveries")
        .arn(queue_arn)
        .build()
        .map_err(|e| StoreError::Unavailable(format!("{what}: {e}")))?;
    let out = events
        .put_targets()
        .rule(DELIVERIES_RULE)
        .event_bus_name(bus)
        .targets(target)
        .send()
        .await
        .map_err(|e| unavailable(&what, e))?;
    if out.failed_entry_count() > 0 {
        return Err(StoreError::Unavailable(format!("{what}: the deliveries queue was refused as a target")));
    }
    Ok(())
}

async fn queue_arn(client: &aws_sdk_sqs::Client, queue_url: &str) -> StoreResult<String> {
    client
        .get_queue_attributes()
        .queue_url(queue_url)
        .attribute_names(QueueAttributeName::QueueArn)
        .send()
        .await
        .map_err(|e| unavailable(&format!("sqs queue {queue_url}"), e))?
        .attributes
        .and_then(|mut a| a.remove(&QueueAttributeName::QueueArn))
        .ok_or_else(|| StoreError::Unavailable(format!("sqs queue {queue_url} has no ARN")))
}

async fn ensure_table(client: &aws_sdk_dynamodb::Client, table: &str) -> StoreResult<()> {
    let what = format!("dynamodb table {table}");
    match client.describe_table().table_name(table).send().await {
        Ok(_) => {}
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
            let def = table_definition()?;
            let created = client
                .create_table()
                .table_name(table)
                .set_attribute_definitions(Some(def.attributes))
                .set_key_schema(Some(def.key_schema))
                .set_global_secondary_indexes(Some(def.indexes))
                .billing_mode(def.billing)
                .send()
                .await;
            match created {
                Ok(_) => tracing::info!(table, "created the DynamoDB table"),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_in_use_exception()) => {}
                Err(e) => return Err(unavailable(&what, e)),
            }
        }
        Err(e) => return Err(unavailable(&what, e)),
    }
    // A new table (and each index) takes seconds to become ACTIVE on AWS; moto is immediate.
    for _ in 0..180 {
        let t = client.describe_table().table_name(table).send().await.map_err(|e| unavailable(&what, e))?.table;
        let ready = t.as_ref().is_some_and(|t| {
            t.table_status == Some(TableStatus::Active)
                && t.global_secondary_indexes()
                    .iter()
                    .all(|i| i.index_status.as_ref().is_none_or(|s| *s == IndexStatus::Active))
        });
        if ready {
            break;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    let ttl = client.describe_time_to_live().table_name(table).send().await.map_err(|e| unavailable(&what, e))?;
    let enabled = ttl
        .time_to_live_description()
        .and_then(|d| d.time_to_live_status())
        .is_some_and(|s| matches!(s, TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling));
    if !enabled {
        let spec = TimeToLiveSpecification::builder()
            .enabled(true)
            .attribute_name(TTL_ATTRIBUTE)
            .build()
            .map_err(|e| StoreError::Unavailable(format!("{what}: {e}")))?;
        client
            .update_time_to_live()
            .table_name(table)
            .time_to_live_specification(spec)
            .send()
            .await
            .map_err(|e| unavailable(&what, e))?;
    }
    Ok(())
}

async fn ensure_bucket(client: &aws_sdk_s3::Client, bucket: &str, region: Option<&str>) -> StoreResult<()> {
    if client.head_bucket().bucket(bucket).send().await.is_ok() {
        return Ok(());
    }
    let mut create = client.create_bucket().bucket(bucket);
    if let Some(r) = region.filter(|r| *r != "us-east-1") {
        create = create.create_bucket_configuration(
            CreateBucketConfiguration::builder().location_constraint(BucketLocationConstraint::from(r)).build(),
        );
    }
    match create.send().await {
        Ok(_) => Ok(()),
        Err(e) if e.as_service_error().is_some_and(|s| s.is_bucket_already_owned_by_you()) => Ok(()),
        Err(e) => Err(unavailable(&format!("s3 bucket {bucket}"), e)),
    }
}

/// How long a received job stays invisible: 6 × the ingest worker's 300 s timeout (AWS guidance
/// for SQS event sources), as in `template.yaml`.
const VISIBILITY_TIMEOUT_SECS: u32 = 1800;
/// Receives before a job moves to the dead-letter queue.
const MAX_RECEIVES: u32 = 5;

async fn get_or_create_queue(
    client: &aws_sdk_sqs::Client,
    name: &str,
    attributes: Vec<(QueueAttributeName, String)>,
) -> StoreResult<String> {
    let what = format!("sqs queue {name}");
    if let Ok(out) = client.get_queue_url().queue_name(name).send().await
        && let Some(url) = out.queue_url
    {
        return Ok(url);
    }
    let mut create = client.create_queue().queue_name(name);
    for (k, v) in attributes {
        create = create.attributes(k, v);
    }
    create.send().await.map_err(|e| unavailable(&what, e))?.queue_url.ok_or(StoreError::Unavailable(what))
}

/// The queue and its dead-letter queue (`<name>-dlq`, 14 days' retention) with a redrive policy.
pub(crate) async fn ensure_queue(client: &aws_sdk_sqs::Client, name: &str) -> StoreResult<String> {
    let dlq_name = AwsSettings::dead_letter_queue_name(name);
    let dlq_url =
        get_or_create_queue(client, &dlq_name, vec![(QueueAttributeName::MessageRetentionPeriod, "1209600".into())])
            .await?;
    let dlq_arn = queue_arn(client, &dlq_url).await?;
    let redrive = serde_json::json!({ "deadLetterTargetArn": dlq_arn, "maxReceiveCount": MAX_RECEIVES.to_string() });
    get_or_create_queue(
        client,
        name,
        vec![
            (QueueAttributeName::VisibilityTimeout, VISIBILITY_TIMEOUT_SECS.to_string()),
            (QueueAttributeName::RedrivePolicy, redrive.to_string()),
        ],
    )
    .await
}

async fn ensure_bus(client: &aws_sdk_eventbridge::Client, bus: &str) -> StoreResult<()> {
    if bus == "default" {
        return Ok(());
    }
    let what = format!("eventbridge bus {bus}");
    match client.describe_event_bus().name(bus).send().await {
        Ok(_) => Ok(()),
        Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception()) => {
            match client.create_event_bus().name(bus).send().await {
                Ok(_) => Ok(()),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_resource_already_exists_exception()) => Ok(()),
                Err(e) => Err(unavailable(&what, e)),
            }
        }
        Err(e) => Err(unavailable(&what, e)),
    }
}
