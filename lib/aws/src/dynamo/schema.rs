//! The table definition (`infra/dynamodb.md` is its prose): `pk`/`sk` strings, two overloaded
//! sparse key indexes and a sparse lease index, TTL on `expiresAt`, on-demand capacity.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection, ProjectionType,
    ScalarAttributeType,
};
use lore_app::ports::{StoreError, StoreResult};

/// Parent → children, in key order: workspaces (`WORKSPACES`), a workspace's keys
/// (`KEYS#<ws>`), chatbots (`CBS#<ws>`) and Minds (`MINDS#<ws>`), a chatbot's or a Mind's sources
/// (`SRCS#<owner>`, the owner's prefixed id).
pub const GSI1: &str = "gsi1";
/// Second listings: an owner's sources of one status (`SRCS#<owner>#<status>`), all keys (`KEYS`).
pub const GSI2: &str = "gsi2";
/// Processing runs by lease expiry: `leaseShard` = `LEASE#<0..LEASE_SHARDS>`, `leaseUntil` (ms).
/// Present only while a source is running (`processing` or `transcribing`).
pub const LEASES: &str = "leases";
/// How many partitions the lease index is spread over (the sweeper queries each).
pub const LEASE_SHARDS: u32 = 4;
/// Url sources by scheduled refresh time: `refreshShard` = `REFRESH#<0..LEASE_SHARDS>`,
/// `refreshDue` (ms). Present only on settled url sources with a refresh interval.
pub const REFRESHES: &str = "refreshes";
/// Epoch seconds after which DynamoDB deletes the item (rate-limit windows, concurrency budgets).
pub const TTL_ATTRIBUTE: &str = "expiresAt";

fn bad(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("dynamodb table definition: {e}"))
}

fn attr(name: &str, t: ScalarAttributeType) -> StoreResult<AttributeDefinition> {
    AttributeDefinition::builder().attribute_name(name).attribute_type(t).build().map_err(bad)
}

fn key(name: &str, t: KeyType) -> StoreResult<KeySchemaElement> {
    KeySchemaElement::builder().attribute_name(name).key_type(t).build().map_err(bad)
}

fn index(name: &str, pk: &str, sk: &str, include: &[&str]) -> StoreResult<GlobalSecondaryIndex> {
    let projection = Projection::builder()
        .projection_type(ProjectionType::Include)
        .set_non_key_attributes(Some(include.iter().map(|s| s.to_string()).collect()))
        .build();
    GlobalSecondaryIndex::builder()
        .index_name(name)
        .key_schema(key(pk, KeyType::Hash)?)
        .key_schema(key(sk, KeyType::Range)?)
        .projection(projection)
        .build()
        .map_err(bad)
}

/// Everything `CreateTable` needs besides the table name.
pub struct TableDefinition {
    pub attributes: Vec<AttributeDefinition>,
    pub key_schema: Vec<KeySchemaElement>,
    pub indexes: Vec<GlobalSecondaryIndex>,
    pub billing: BillingMode,
}

pub fn table_definition() -> StoreResult<TableDefinition> {
    use ScalarAttributeType::{N, S};
    Ok(TableDefinition {
        attributes: vec![
            attr("pk", S)?,
            attr("sk", S)?,
            attr("gsi1pk", S)?,
            attr("gsi1sk", S)?,
            attr("gsi2pk", S)?,
            attr("gsi2sk", S)?,
            attr("leaseShard", S)?,
            attr("leaseUntil", N)?,
            attr("refreshShard", S)?,
            attr("refreshDue", N)?,
        ],
        key_schema: vec![key("pk", KeyType::Hash)?, key("sk", KeyType::Range)?],
        indexes: vec![
            // Keys plus what a list filters on (`srcType`) or needs without the item (`blobKey`).
            index(GSI1, "gsi1pk", "gsi1sk", &["srcType", "blobKey"])?,
            index(GSI2, "gsi2pk", "gsi2sk", &["srcType"])?,
            // What the sweeper needs to act without reading the item.
            index(LEASES, "leaseShard", "leaseUntil", &["ws", "id", "generation", "attempts", "leaseOwner"])?,
            // What the scheduler needs to start a refresh.
            index(REFRESHES, "refreshShard", "refreshDue", &["ws", "id"])?,
        ],
        billing: BillingMode::PayPerRequest,
    })
}
