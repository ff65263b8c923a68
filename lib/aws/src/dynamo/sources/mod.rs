//! Knowledge sources on the table (`SourceStore`), of a chatbot or of a Mind.
//!
//! A source is one item addressed by its id. Its owner's item (the chatbot's `CB#<cb>` or the
//! Mind's `MIND#<mind>`, in the workspace partition) carries the owner's counters: `sourceCount`,
//! one `n_<status>_<type>` cell per status and type, `chunkCount` and `sizeBytes`. Every write
//! that changes what they, the workspace's `storageBytes` or (for a Mind's source) the
//! workspace's `mindSources` count is a read, then one `TransactWriteItems` of the source
//! (conditioned on the revision that was read), the owner's counters and the workspace's counters
//! item; a changed revision means someone else wrote first, and the operation reads again. So
//! exactly one of concurrent transitions wins, and the counters are always the sum of the items.
//!
//! The count limits of Mind sources are conditions of that same transaction: DynamoDB conditions
//! compare a stored number with a value (they cannot add cells), so each limit has a plain total
//! to compare: the Mind's `sourceCount < mindSourceLimit` and the workspace's
//! `mindSources < sourcesLimit`.

mod counters;
mod item;
mod keys;
mod store;
mod uploads;

use super::document;
use super::keys::{COUNTERS_SK, chatbot_sk, mind_sk, slug_sk, ws_pk};
use super::{
    DynamoStore, Expr, GSI1, GSI2, Item, LEASE_SHARDS, LEASES, MAX_ATTEMPTS, REFRESHES, TxFailure, TxWrite, backoff,
    gave_up, get_i, get_s, get_u, key, malformed, n, newest_first_key, req_s, s, unavailable,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{
    Charged, CountLimit, Finish, Guarded, InsertLimits, Inserted, Lease, SourceFilter, SourceLabel, SourceStats,
    SourceStore, StaleRun, Updated,
};
use lore_app::ports::{StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::id::{ChatbotId, MindId, SourceId, WorkspaceId};
use lore_domain::metadata::Metadata;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::{KnowledgeSource, Progress, SourceOwner, SourceSpec, SourceStatus, SourceType};
use lore_records::{ProgressRecord, SourceSpecRecord};
use std::collections::BTreeMap;

use counters::*;
pub(crate) use counters::{MIND_SOURCES, count_in_status, workspace_counters};
use item::*;
use keys::*;
pub(crate) use keys::{SOURCE_SK, source_pk};
