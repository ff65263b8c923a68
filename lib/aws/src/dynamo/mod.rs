//! The record ports on one DynamoDB table (design and access patterns: `infra/dynamodb.md`).
//!
//! Every write that changes what a counter counts changes the counter in the same
//! `TransactWriteItems`; every state transition is a conditional write; lists read key pages
//! from a sparse index and then the items themselves with a strongly consistent `BatchGetItem`.

mod actions;
mod analytics;
mod answer_tests;
mod audit;
mod channels;
mod chatbots;
mod conversations;
mod document;
mod events;
mod forms;
mod keys;
mod minds;
mod rate_limit;
mod schema;
mod slots;
mod sources;
mod webhooks;
mod workspaces;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::{DisplayErrorContext, SdkError};
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, KeysAndAttributes, Put, ReturnValue, ReturnValuesOnConditionCheckFailure,
    TransactWriteItem, Update,
};
use futures::StreamExt;
use lore_app::ports::{RevisedWrite, StoreError, StoreResult};
use std::collections::HashMap;
use std::time::Duration;

pub use schema::{GSI1, GSI2, LEASE_SHARDS, LEASES, REFRESHES, TTL_ATTRIBUTE, TableDefinition, table_definition};

pub(crate) type Item = HashMap<String, AttributeValue>;

/// The DynamoDB adapter: `WorkspaceStore`, `KeyStore`, `ChatbotStore`, `SourceStore`,
/// `RateLimiter`, `SlotStore`, `FormStore`, `HookStore`, `DeliveryStore`, `MindStore`,
/// `ConversationStore` and the event outbox (`EventBus`) on one table.
#[derive(Clone)]
pub struct DynamoStore {
    client: Client,
    table: String,
}

impl DynamoStore {
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self { client, table: table.into() }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn table(&self) -> &str {
        &self.table
    }
}

pub(crate) fn unavailable<E, R>(e: SdkError<E, R>) -> StoreError
where
    E: std::error::Error + 'static,
    R: std::fmt::Debug,
{
    StoreError::Unavailable(format!("dynamodb: {}", DisplayErrorContext(e)))
}

pub(crate) fn malformed(what: &str) -> StoreError {
    StoreError::Unavailable(format!("dynamodb: malformed stored {what}"))
}

// ---- attribute values ----------------------------------------------------------------------

pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub(crate) fn n(v: impl std::fmt::Display) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

pub(crate) fn key(pk: impl Into<String>, sk: impl Into<String>) -> Item {
    HashMap::from([("pk".to_owned(), s(pk)), ("sk".to_owned(), s(sk))])
}

pub(crate) fn get_s<'a>(item: &'a Item, k: &str) -> Option<&'a str> {
    item.get(k).and_then(|v| v.as_s().ok()).map(String::as_str)
}

pub(crate) fn req_s<'a>(item: &'a Item, k: &str) -> StoreResult<&'a str> {
    get_s(item, k).ok_or_else(|| malformed(k))
}

pub(crate) fn get_i(item: &Item, k: &str) -> Option<i64> {
    item.get(k).and_then(|v| v.as_n().ok()).and_then(|v| v.parse().ok())
}

/// A counter or size: absent is 0, negative (never written so, but never trusted) is 0.
pub(crate) fn get_u(item: &Item, k: &str) -> u64 {
    get_i(item, k).unwrap_or(0).max(0) as u64
}

/// Time-sortable sort key part: zero-padded milliseconds then the id, so that a descending
/// query is `createdAt desc, id desc`.
pub(crate) fn newest_first_key(created_ms: i64, id: &str) -> String {
    format!("{:016}#{id}", created_ms.max(0))
}

// ---- expressions ---------------------------------------------------------------------------

/// Placeholders for an expression: `#attr` for every attribute (DynamoDB reserves hundreds of
/// words, `name`, `status`, `type` and `count` among them) and `:label` for values.
#[derive(Default)]
pub(crate) struct Expr {
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
}

impl Expr {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// `#attr`, registered.
    pub(crate) fn a(&mut self, attr: &str) -> String {
        let p = format!("#{attr}");
        self.names.insert(p.clone(), attr.to_owned());
        p
    }

    /// `:label`, bound to `v`.
    pub(crate) fn v(&mut self, label: &str, v: AttributeValue) -> String {
        let p = format!(":{label}");
        self.values.insert(p.clone(), v);
        p
    }

    /// `SET` every attribute that has a value and `REMOVE` every one that has none (an unset
    /// setting of a stored document), as one update expression.
    pub(crate) fn set_or_remove(&mut self, attributes: Vec<(String, Option<AttributeValue>)>) -> String {
        let (mut sets, mut removes) = (Vec::new(), Vec::new());
        for (attr, value) in attributes {
            match value {
                Some(v) => sets.push(format!("{} = {}", self.a(&attr), self.v(&attr, v))),
                None => removes.push(self.a(&attr)),
            }
        }
        let mut update = format!("SET {}", sets.join(", "));
        if !removes.is_empty() {
            update = format!("{update} REMOVE {}", removes.join(", "));
        }
        update
    }

    pub(crate) fn names(&self) -> Option<HashMap<String, String>> {
        (!self.names.is_empty()).then(|| self.names.clone())
    }

    pub(crate) fn values(&self) -> Option<HashMap<String, AttributeValue>> {
        (!self.values.is_empty()).then(|| self.values.clone())
    }
}

/// One write of a transaction.
pub(crate) enum TxWrite {
    Put { item: Item, cond: Option<String>, expr: Expr },
    Update { key: Item, update: String, cond: Option<String>, expr: Expr },
    Delete { key: Item, cond: Option<String>, expr: Expr },
}

/// Why a transaction did not commit.
#[derive(Debug)]
pub(crate) enum TxFailure {
    /// The condition of these writes (by position) failed.
    Condition(Vec<usize>),
    /// Another transaction touched the same items at the same time; retry.
    Conflict,
    Store(StoreError),
}

/// Bounded retries of optimistic (read, then conditional write) operations.
pub(crate) const MAX_ATTEMPTS: u32 = 25;

/// `BatchGetItem` requests of one read in flight at once (each holds up to 100 keys).
const BATCH_GETS_AT_ONCE: usize = 4;

/// A short, growing, jittered pause before retrying a conflicted transaction.
pub(crate) async fn backoff(attempt: u32) {
    let base = 5u64 << attempt.min(5);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    tokio::time::sleep(Duration::from_millis(base + u64::from(nanos) % base)).await;
}

pub(crate) fn gave_up(what: &str) -> StoreError {
    StoreError::Unavailable(format!("dynamodb: {what} kept conflicting with concurrent writes"))
}

/// A settings write of a chatbot or a Mind: the item's update first (conditioned on the revision
/// read), then the guards of a changed slug and public address.
pub(crate) struct SettingsWrite {
    pub writes: Vec<TxWrite>,
    /// Position of the new workspace slug guard, when the slug changed.
    pub slug_taken: Option<usize>,
    /// Position of the new public address guard, when the address changed.
    pub address_taken: Option<usize>,
}

impl DynamoStore {
    /// Runs a [`SettingsWrite`]: `Some(Done)` when it landed, `None` when something was written
    /// meanwhile (after a pause: read again, and answer `Stale` or `NotFound`), the taken slug or
    /// address as `Conflict("slug")` or `Conflict("public_slug")`.
    pub(crate) async fn write_settings(&self, w: SettingsWrite, attempt: u32) -> StoreResult<Option<RevisedWrite>> {
        match self.transact(w.writes).await {
            Ok(()) => Ok(Some(RevisedWrite::Done)),
            Err(TxFailure::Condition(failed)) if failed.contains(&0) => {
                backoff(attempt).await;
                Ok(None)
            }
            Err(TxFailure::Condition(failed)) if w.slug_taken.is_some_and(|i| failed.contains(&i)) => {
                Err(StoreError::Conflict("slug"))
            }
            Err(TxFailure::Condition(failed)) if w.address_taken.is_some_and(|i| failed.contains(&i)) => {
                Err(StoreError::Conflict("public_slug"))
            }
            Err(TxFailure::Condition(_) | TxFailure::Conflict) => {
                backoff(attempt).await;
                Ok(None)
            }
            Err(TxFailure::Store(e)) => Err(e),
        }
    }
}

impl DynamoStore {
    fn build(&self, w: TxWrite) -> StoreResult<TransactWriteItem> {
        let bad = |e: aws_sdk_dynamodb::error::BuildError| StoreError::Unavailable(format!("dynamodb request: {e}"));
        Ok(match w {
            TxWrite::Put { item, cond, expr } => TransactWriteItem::builder()
                .put(
                    Put::builder()
                        .table_name(&self.table)
                        .set_item(Some(item))
                        .set_condition_expression(cond)
                        .set_expression_attribute_names(expr.names())
                        .set_expression_attribute_values(expr.values())
                        .build()
                        .map_err(bad)?,
                )
                .build(),
            TxWrite::Update { key, update, cond, expr } => TransactWriteItem::builder()
                .update(
                    Update::builder()
                        .table_name(&self.table)
                        .set_key(Some(key))
                        .update_expression(update)
                        .set_condition_expression(cond)
                        .set_expression_attribute_names(expr.names())
                        .set_expression_attribute_values(expr.values())
                        .build()
                        .map_err(bad)?,
                )
                .build(),
            TxWrite::Delete { key, cond, expr } => TransactWriteItem::builder()
                .delete(
                    Delete::builder()
                        .table_name(&self.table)
                        .set_key(Some(key))
                        .set_condition_expression(cond)
                        .set_expression_attribute_names(expr.names())
                        .set_expression_attribute_values(expr.values())
                        .build()
                        .map_err(bad)?,
                )
                .build(),
        })
    }

    /// Runs the writes as one `TransactWriteItems`: all of them or none.
    pub(crate) async fn transact(&self, writes: Vec<TxWrite>) -> Result<(), TxFailure> {
        let items =
            writes.into_iter().map(|w| self.build(w)).collect::<StoreResult<Vec<_>>>().map_err(TxFailure::Store)?;
        match self.client.transact_write_items().set_transact_items(Some(items)).send().await {
            Ok(_) => Ok(()),
            Err(e) => {
                if let Some(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c)) =
                    e.as_service_error()
                {
                    let codes: Vec<&str> = c.cancellation_reasons().iter().map(|r| r.code().unwrap_or("None")).collect();
                    if codes.contains(&"TransactionConflict") {
                        return Err(TxFailure::Conflict);
                    }
                    let failed: Vec<usize> = codes
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| **c == "ConditionalCheckFailed")
                        .map(|(i, _)| i)
                        .collect();
                    if !failed.is_empty() {
                        return Err(TxFailure::Condition(failed));
                    }
                }
                if e.as_service_error().is_some_and(|s| s.is_transaction_in_progress_exception()) {
                    return Err(TxFailure::Conflict);
                }
                Err(TxFailure::Store(unavailable(e)))
            }
        }
    }

    /// A strongly consistent `GetItem`.
    pub(crate) async fn get(&self, pk: &str, sk: &str) -> StoreResult<Option<Item>> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .set_key(Some(key(pk, sk)))
            .consistent_read(true)
            .send()
            .await
            .map_err(unavailable)?;
        Ok(out.item)
    }

    /// An `UpdateItem` under a condition: the item as updated, or `None` when the condition
    /// failed.
    pub(crate) async fn update_if(
        &self,
        key: Item,
        update: String,
        cond: String,
        expr: Expr,
    ) -> StoreResult<Option<Item>> {
        Ok(self.conditional_update(key, update, cond, expr, false).await?.ok())
    }

    /// [`DynamoStore::update_if`] that also tells why nothing changed: `Err(Some(item))` when the
    /// item exists and failed the condition (DynamoDB returns it with the refusal, no second
    /// read), `Err(None)` when the condition failed on no item.
    pub(crate) async fn update_or_current(
        &self,
        key: Item,
        update: String,
        cond: String,
        expr: Expr,
    ) -> StoreResult<Result<Item, Option<Item>>> {
        self.conditional_update(key, update, cond, expr, true).await
    }

    async fn conditional_update(
        &self,
        key: Item,
        update: String,
        cond: String,
        expr: Expr,
        return_current: bool,
    ) -> StoreResult<Result<Item, Option<Item>>> {
        let on_failure = if return_current {
            ReturnValuesOnConditionCheckFailure::AllOld
        } else {
            ReturnValuesOnConditionCheckFailure::None
        };
        let out = self
            .client
            .update_item()
            .table_name(&self.table)
            .set_key(Some(key))
            .update_expression(update)
            .condition_expression(cond)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .return_values(ReturnValue::AllNew)
            .return_values_on_condition_check_failure(on_failure)
            .send()
            .await;
        match out {
            Ok(o) => Ok(Ok(o.attributes.unwrap_or_default())),
            Err(e) => match e.as_service_error() {
                Some(UpdateItemError::ConditionalCheckFailedException(failed)) => {
                    Ok(Err(failed.item.clone().filter(|item| !item.is_empty())))
                }
                _ => Err(unavailable(e)),
            },
        }
    }

    /// The keys (`pk`, `sk`) and projected attributes of an index partition, in index order,
    /// skipping the first `offset` matches and stopping after `limit` (all when `None`).
    ///
    /// Offsets are paid for: DynamoDB has no offset, so the skipped entries are read (they are
    /// small: the indexes project keys and one or two short attributes).
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn query_index(
        &self,
        index: &str,
        pk_attr: &str,
        pk: &str,
        newest_first: bool,
        filter: Option<(String, Expr)>,
        offset: u64,
        limit: Option<u64>,
    ) -> StoreResult<Vec<Item>> {
        let (filter_expr, mut expr) = match filter {
            Some((f, e)) => (Some(f), e),
            None => (None, Expr::new()),
        };
        let cond = format!("{} = {}", expr.a(pk_attr), expr.v("partition", s(pk)));
        let mut out = Vec::new();
        let mut skipped = 0u64;
        let mut start: Option<Item> = None;
        loop {
            let wanted = limit.map(|l| offset + l - skipped - out.len() as u64);
            let page_size = match (&filter_expr, wanted) {
                (None, Some(w)) => w.clamp(1, 1000) as i32,
                _ => 1000,
            };
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(index)
                .key_condition_expression(&cond)
                .set_filter_expression(filter_expr.clone())
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .scan_index_forward(!newest_first)
                .limit(page_size)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(unavailable)?;
            for item in page.items.unwrap_or_default() {
                if skipped < offset {
                    skipped += 1;
                    continue;
                }
                if limit.is_some_and(|l| out.len() as u64 >= l) {
                    return Ok(out);
                }
                out.push(item);
            }
            if limit.is_some_and(|l| out.len() as u64 >= l) {
                return Ok(out);
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(out),
            }
        }
    }

    /// Up to `limit` entries of an index whose whole key condition `cond` (a partition and a
    /// sort-key bound, written with `expr`) selects them, in index order: for the reads that
    /// bound the sort key, which a filter may not name.
    pub(crate) async fn query_key_range(
        &self,
        index: &str,
        cond: &str,
        expr: &Expr,
        newest_first: bool,
        limit: usize,
    ) -> StoreResult<Vec<Item>> {
        let mut out: Vec<Item> = Vec::new();
        let mut start = None;
        while out.len() < limit {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(index)
                .key_condition_expression(cond)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .scan_index_forward(!newest_first)
                .limit((limit - out.len()).min(1000) as i32)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(unavailable)?;
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The items behind `keys`, strongly consistent, in the order of `keys`; absent ones are
    /// left out.
    pub(crate) async fn batch_get(&self, keys: Vec<Item>) -> StoreResult<Vec<Item>> {
        self.batch_get_projected(keys, None).await
    }

    /// [`Self::batch_get`] of only the attributes `attrs` (and the keys) of each item: a large
    /// item costs its read capacity and its transfer in full otherwise.
    pub(crate) async fn batch_get_attrs(&self, keys: Vec<Item>, attrs: &[&str]) -> StoreResult<Vec<Item>> {
        let mut expr = Expr::new();
        let listed: Vec<String> = ["pk", "sk"].iter().chain(attrs).map(|a| expr.a(a)).collect();
        self.batch_get_projected(keys, Some((listed.join(", "), expr))).await
    }

    async fn batch_get_projected(&self, keys: Vec<Item>, projection: Option<(String, Expr)>) -> StoreResult<Vec<Item>> {
        let (projection, names) = match projection {
            Some((p, expr)) => (Some(p), expr.names()),
            None => (None, None),
        };
        let pair = |i: &Item| (get_s(i, "pk").unwrap_or("").to_owned(), get_s(i, "sk").unwrap_or("").to_owned());
        let order: Vec<(String, String)> = keys.iter().map(pair).collect();
        // A request holds at most 100 keys. The requests run a few at once: one after another,
        // an owner's few hundred ready sources (read by every search) cost as many round trips.
        // Collected, not a lazy iterator: a closure over borrowed chunks would not be `Send`
        // for every lifetime, as the stores' async traits need.
        let batches: Vec<_> = order
            .chunks(100)
            .map(|chunk| {
                let keys = chunk.iter().map(|(pk, sk)| key(pk.as_str(), sk.as_str())).collect();
                self.batch_get_one(keys, projection.clone(), names.clone())
            })
            .collect();
        let mut results = futures::stream::iter(batches).buffer_unordered(BATCH_GETS_AT_ONCE);
        let mut found: HashMap<(String, String), Item> = HashMap::with_capacity(order.len());
        while let Some(items) = results.next().await {
            found.extend(items?.into_iter().map(|item| (pair(&item), item)));
        }
        Ok(order.into_iter().filter_map(|k| found.remove(&k)).collect())
    }

    /// One `BatchGetItem` of at most 100 keys, asking again for the keys DynamoDB left
    /// unprocessed (with backoff).
    async fn batch_get_one(
        &self,
        mut pending: Vec<Item>,
        projection: Option<String>,
        names: Option<HashMap<String, String>>,
    ) -> StoreResult<Vec<Item>> {
        let mut items = Vec::with_capacity(pending.len());
        let mut attempt = 0;
        while !pending.is_empty() {
            let request = KeysAndAttributes::builder()
                .set_keys(Some(std::mem::take(&mut pending)))
                .consistent_read(true)
                .set_projection_expression(projection.clone())
                .set_expression_attribute_names(names.clone())
                .build()
                .map_err(|e| StoreError::Unavailable(format!("dynamodb request: {e}")))?;
            let out =
                self.client.batch_get_item().request_items(&self.table, request).send().await.map_err(unavailable)?;
            items.extend(out.responses.unwrap_or_default().remove(&self.table).unwrap_or_default());
            if let Some(mut rest) = out.unprocessed_keys
                && let Some(r) = rest.remove(&self.table)
            {
                pending = r.keys;
                attempt += 1;
                if attempt > MAX_ATTEMPTS {
                    return Err(gave_up("BatchGetItem"));
                }
                backoff(attempt).await;
            }
        }
        Ok(items)
    }
}

pub(crate) fn put_if_absent(item: Item) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("attribute_not_exists({})", expr.a("pk"));
    TxWrite::Put { item, cond: Some(cond), expr }
}

/// `ADD` of numeric deltas to an item (created when absent), without condition.
pub(crate) fn add(pk: String, sk: &str, deltas: &[(&str, i64)]) -> TxWrite {
    let mut expr = Expr::new();
    let parts: Vec<String> =
        deltas.iter().map(|(a, d)| format!("{} {}", expr.a(a), expr.v(&format!("d_{a}"), n(d)))).collect();
    TxWrite::Update { key: key(pk, sk), update: format!("ADD {}", parts.join(", ")), cond: None, expr }
}

/// Runs `writes` (built afresh per attempt), retrying transaction conflicts. `Ok(false)` when a
/// condition failed.
pub(crate) async fn transact_retrying(
    store: &DynamoStore,
    what: &str,
    writes: impl Fn() -> StoreResult<Vec<TxWrite>>,
) -> StoreResult<bool> {
    for attempt in 0..MAX_ATTEMPTS {
        match store.transact(writes()?).await {
            Ok(()) => return Ok(true),
            Err(TxFailure::Condition(_)) => return Ok(false),
            Err(TxFailure::Conflict) => backoff(attempt).await,
            Err(TxFailure::Store(e)) => return Err(e),
        }
    }
    Err(gave_up(what))
}

impl DynamoStore {
    /// The items of the `limit` newest (or `offset`-skipped) entries of an index partition.
    pub(crate) async fn listed(
        &self,
        index: &str,
        pk: &str,
        newest_first: bool,
        offset: u64,
        limit: Option<u64>,
    ) -> StoreResult<Vec<Item>> {
        let pk_attr = if index == GSI1 { "gsi1pk" } else { "gsi2pk" };
        let keys = self.query_index(index, pk_attr, pk, newest_first, None, offset, limit).await?;
        self.batch_get(keys).await
    }
}
