//! Channels on the table (`infra/dynamodb.md`, "Channels").
//!
//! A channel is `CHANNEL#<id>/CHANNEL` (found by its id alone: a platform's request names only
//! the channel); its remembered deliveries (`DELIVERY#<delivery>`, with the TTL attribute) and
//! its threads (`THREAD#<key>` → the conversation) share its partition. Its owner's partition,
//! `CHANNELS#<owner>`, holds the `COUNT` item (how many channels) and one pointer per channel
//! (`CHANNEL#<id>`), which lists the owner's channels. The limit is the count's condition in the
//! transaction that writes the channel and its pointer.

use super::{
    DynamoStore, Expr, Item, MAX_ATTEMPTS, TTL_ATTRIBUTE, TxFailure, TxWrite, backoff, document, gave_up, get_i, get_s,
    key, malformed, n, req_s, s,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{ChannelStore, ChannelWrite, StoreError, StoreResult};
use lore_domain::Timestamp;
use lore_domain::channel::{ChannelStatus, ConnectedChannel, EVENT_MEMORY_SECS, PlatformFailure};
use lore_domain::id::{ChannelId, ConversationId, WorkspaceId};
use lore_domain::source::SourceOwner;
use lore_records::{ChannelKeys, ChannelRecord, PlatformFailureRecord};

fn channels_pk(owner: &SourceOwner) -> String {
    format!("CHANNELS#{owner}")
}
const COUNT_SK: &str = "COUNT";
const POINTER_PREFIX: &str = "CHANNEL#";
fn pointer_sk(id: &ChannelId) -> String {
    format!("{POINTER_PREFIX}{id}")
}
fn channel_pk(id: &ChannelId) -> String {
    format!("CHANNEL#{id}")
}
const CHANNEL_SK: &str = "CHANNEL";
fn delivery_sk(delivery: &str) -> String {
    format!("DELIVERY#{delivery}")
}
fn thread_sk(thread: &str) -> String {
    format!("THREAD#{thread}")
}
/// The attribute of a thread item that names its conversation.
const CONVERSATION: &str = "conversation";

fn channel_item(c: &ConnectedChannel) -> Item {
    let mut item = key(channel_pk(&c.id), CHANNEL_SK);
    item.extend([
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("owner".into(), s(c.owner.as_str())),
        ("createdAt".into(), n(c.created_at.millis())),
    ]);
    item.extend(document::set_fields(&ChannelRecord::of(c)));
    item
}

/// The owner's pointer to `c`, which lists it.
fn pointer_item(c: &ConnectedChannel) -> Item {
    let mut item = key(channels_pk(&c.owner), pointer_sk(&c.id));
    item.extend([
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("createdAt".into(), n(c.created_at.millis())),
    ]);
    item
}

fn channel_from(i: &Item) -> StoreResult<ConnectedChannel> {
    let keys = ChannelKeys {
        id: ChannelId::parse(req_s(i, "id")?).ok_or_else(|| malformed("channel id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("channel owner"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    };
    let record: ChannelRecord = document::read(i, "channel")?;
    record.into_channel(keys).map_err(|e| malformed(&e.0))
}

fn ours(i: &Item, ws: &WorkspaceId, owner: &SourceOwner) -> bool {
    get_s(i, "ws") == Some(ws.as_str()) && get_s(i, "owner") == Some(owner.as_str())
}

fn in_workspace(i: &Item, ws: &WorkspaceId) -> bool {
    get_s(i, "ws") == Some(ws.as_str())
}

fn put_absent(item: Item) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("attribute_not_exists({})", expr.a("pk"));
    TxWrite::Put { item, cond: Some(cond), expr }
}

/// A platform failure as the map attribute its record field is stored as (a channel's
/// `lastError`, a conversation's `channelError`).
pub(crate) fn failure_attribute(f: &PlatformFailure) -> StoreResult<AttributeValue> {
    serde_json::to_value(PlatformFailureRecord::of(f))
        .ok()
        .and_then(document::attribute)
        .ok_or_else(|| StoreError::Unavailable("dynamodb: unwritable platform failure".into()))
}

fn conversation_of(i: &Item) -> StoreResult<ConversationId> {
    ConversationId::parse(req_s(i, CONVERSATION)?).ok_or_else(|| malformed("thread conversation"))
}

impl DynamoStore {
    /// The stored channel item of `id`, unless it is absent or of another workspace or owner.
    async fn channel_item_of(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ChannelId,
    ) -> StoreResult<Option<Item>> {
        Ok(self.get(&channel_pk(id), CHANNEL_SK).await?.filter(|i| ours(i, ws, owner)))
    }

    /// Deletes every item of the channel's partition: its remembered deliveries and threads
    /// (and the channel item, when it is still there).
    async fn remove_channel_partition(&self, id: &ChannelId) -> StoreResult<()> {
        let mut expr = Expr::new();
        let cond = format!("{} = {}", expr.a("pk"), expr.v("pk", s(channel_pk(id))));
        let keys = self.query_partition(&cond, &expr, true).await?;
        self.delete_keys(&keys, "delete channel items").await
    }
}

#[async_trait]
impl ChannelStore for DynamoStore {
    async fn insert_channel(&self, channel: &ConnectedChannel, limit: u32) -> StoreResult<ChannelWrite> {
        let pk = channels_pk(&channel.owner);
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let update = format!(
                "SET {channels} = if_not_exists({channels}, {zero}) + {one}, {ws} = {wsv}",
                channels = expr.a("channels"),
                zero = expr.v("zero", n(0)),
                one = expr.v("one", n(1)),
                ws = expr.a("ws"),
                wsv = expr.v("ws", s(channel.workspace_id.as_str())),
            );
            let cond = format!("attribute_not_exists({0}) OR {0} < {1}", expr.a("channels"), expr.v("limit", n(limit)));
            let count = TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: Some(cond), expr };
            let writes = vec![count, put_absent(channel_item(channel)), put_absent(pointer_item(channel))];
            match self.transact(writes).await {
                Ok(()) => return Ok(ChannelWrite::Written),
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => return Ok(ChannelWrite::LimitReached),
                // The id exists (never, for a generated one): retried, then given up.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("insert_channel"))
    }

    async fn get_channel(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ChannelId,
    ) -> StoreResult<Option<ConnectedChannel>> {
        self.channel_item_of(ws, owner, id).await?.as_ref().map(channel_from).transpose()
    }

    async fn find_channel(&self, id: &ChannelId) -> StoreResult<Option<ConnectedChannel>> {
        self.get(&channel_pk(id), CHANNEL_SK).await?.as_ref().map(channel_from).transpose()
    }

    async fn list_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<ConnectedChannel>> {
        // At most the limit (10) pointers: one partition read, then the channels themselves.
        let pointers = self.prefixed(&channels_pk(owner), POINTER_PREFIX, false).await?;
        let keys: Vec<Item> = pointers
            .iter()
            .filter(|p| in_workspace(p, ws))
            .filter_map(|p| get_s(p, "id").and_then(ChannelId::parse))
            .map(|id| key(channel_pk(&id), CHANNEL_SK))
            .collect();
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let mut channels = self
            .batch_get(keys)
            .await?
            .iter()
            .filter(|i| ours(i, ws, owner))
            .map(channel_from)
            .collect::<StoreResult<Vec<_>>>()?;
        channels.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(channels)
    }

    async fn delete_channel(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ChannelId) -> StoreResult<bool> {
        let pk = channels_pk(owner);
        let mut deleted = false;
        for attempt in 0..MAX_ATTEMPTS {
            if self.channel_item_of(ws, owner, id).await?.is_none() {
                return Ok(false);
            }
            let mut expr = Expr::new();
            let cond = format!(
                "attribute_exists({}) AND {} = {} AND {} = {}",
                expr.a("pk"),
                expr.a("ws"),
                expr.v("ws", s(ws.as_str())),
                expr.a("owner"),
                expr.v("owner", s(owner.as_str())),
            );
            let delete = TxWrite::Delete { key: key(channel_pk(id), CHANNEL_SK), cond: Some(cond), expr };
            let pointer = TxWrite::Delete { key: key(pk.clone(), pointer_sk(id)), cond: None, expr: Expr::new() };
            let mut expr = Expr::new();
            let update = format!("SET {0} = {0} - {1}", expr.a("channels"), expr.v("one", n(1)));
            let cond = format!("attribute_exists({})", expr.a("channels"));
            let count = TxWrite::Update { key: key(pk.clone(), COUNT_SK), update, cond: Some(cond), expr };
            match self.transact(vec![delete, pointer, count]).await {
                Ok(()) => {
                    deleted = true;
                    break;
                }
                // Deleted meanwhile: read again (and answer `false`).
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => {}
                // No count (never: written with the channel): the channel and its pointer alone.
                Err(TxFailure::Condition(_)) => {
                    let mut expr = Expr::new();
                    let cond = format!("attribute_exists({})", expr.a("pk"));
                    let delete = TxWrite::Delete { key: key(channel_pk(id), CHANNEL_SK), cond: Some(cond), expr };
                    let pointer =
                        TxWrite::Delete { key: key(pk.clone(), pointer_sk(id)), cond: None, expr: Expr::new() };
                    match self.transact(vec![delete, pointer]).await {
                        Ok(()) => {
                            deleted = true;
                            break;
                        }
                        Err(TxFailure::Condition(_)) => {}
                        Err(TxFailure::Conflict) => backoff(attempt).await,
                        Err(TxFailure::Store(e)) => return Err(e),
                    }
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        if !deleted {
            return Err(gave_up("delete_channel"));
        }
        // The channel is gone (no platform request is admitted any more): then its threads and
        // remembered deliveries.
        self.remove_channel_partition(id).await?;
        Ok(true)
    }

    async fn delete_owner_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()> {
        // The partition is the owner's alone (owner ids are unique across workspaces); every
        // item carries `ws`, and only the workspace's are deleted. Each channel's partition
        // first (the channel item with it), then the pointers and the count.
        let pk = channels_pk(owner);
        let mut expr = Expr::new();
        let cond = format!("{} = {}", expr.a("pk"), expr.v("pk", s(pk.as_str())));
        let items: Vec<Item> =
            self.query_partition(&cond, &expr, false).await?.into_iter().filter(|i| in_workspace(i, ws)).collect();
        for item in &items {
            let pointer = get_s(item, "sk").is_some_and(|sk| sk.starts_with(POINTER_PREFIX));
            if !pointer {
                continue;
            }
            let id = ChannelId::parse(req_s(item, "id")?).ok_or_else(|| malformed("channel id"))?;
            // Another owner's channel under this pointer (never) is left alone.
            let stored = self.get(&channel_pk(&id), CHANNEL_SK).await?;
            if stored.as_ref().is_some_and(|i| !ours(i, ws, owner)) {
                continue;
            }
            self.remove_channel_partition(&id).await?;
        }
        self.delete_keys(&items, "delete owner channels").await
    }

    async fn set_channel_health(
        &self,
        id: &ChannelId,
        status: ChannelStatus,
        last_error: Option<&PlatformFailure>,
        last_message_at: Option<Timestamp>,
    ) -> StoreResult<()> {
        let mut expr = Expr::new();
        let mut sets = vec![format!("{} = {}", expr.a("status"), expr.v("status", s(status.as_str())))];
        if let Some(f) = last_error {
            sets.push(format!("{} = {}", expr.a("lastError"), expr.v("lastError", failure_attribute(f)?)));
        }
        if let Some(at) = last_message_at {
            sets.push(format!("{} = {}", expr.a("lastMessageAt"), expr.v("lastMessageAt", n(at.millis()))));
        }
        let update = format!("SET {}", sets.join(", "));
        let cond = format!("attribute_exists({})", expr.a("pk"));
        // A gone channel fails the condition: nothing is written.
        self.update_if(key(channel_pk(id), CHANNEL_SK), update, cond, expr).await?;
        Ok(())
    }

    async fn remember_delivery(&self, id: &ChannelId, delivery: &str, now: Timestamp) -> StoreResult<bool> {
        let now_secs = now.millis().div_euclid(1000);
        let mut expr = Expr::new();
        let ttl = expr.a(TTL_ATTRIBUTE);
        let update = format!(
            "SET {ttl} = {}, {} = {}",
            expr.v("ttl", n(now_secs + EVENT_MEMORY_SECS)),
            expr.a("at"),
            expr.v("at", n(now.millis())),
        );
        // Remembered unless DynamoDB has not yet deleted an item past its TTL (it deletes within
        // days, not at once): such a delivery is forgotten already.
        let cond = format!("attribute_not_exists({}) OR {ttl} < {}", expr.a("pk"), expr.v("now", n(now_secs)));
        let written = self.update_if(key(channel_pk(id), delivery_sk(delivery)), update, cond, expr).await?;
        Ok(written.is_some())
    }

    async fn thread_conversation(&self, id: &ChannelId, thread: &str) -> StoreResult<Option<ConversationId>> {
        self.get(&channel_pk(id), &thread_sk(thread)).await?.as_ref().map(conversation_of).transpose()
    }

    async fn bind_thread(
        &self,
        id: &ChannelId,
        thread: &str,
        conversation: &ConversationId,
        replacing: Option<&ConversationId>,
    ) -> StoreResult<ConversationId> {
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let c = expr.a(CONVERSATION);
            let update = format!("SET {c} = {}", expr.v("conversation", s(conversation.as_str())));
            let mut cond = format!("attribute_not_exists({})", expr.a("pk"));
            if let Some(r) = replacing {
                cond = format!("{cond} OR {c} = {}", expr.v("replacing", s(r.as_str())));
            }
            match self.update_or_current(key(channel_pk(id), thread_sk(thread)), update, cond, expr).await? {
                Ok(bound) => return conversation_of(&bound),
                // Bound to another conversation: that one (returned with the refusal).
                Err(Some(current)) => return conversation_of(&current),
                // Refused without the item (a store that does not return it): read it; gone
                // meanwhile, try again.
                Err(None) => match self.get(&channel_pk(id), &thread_sk(thread)).await? {
                    Some(current) => return conversation_of(&current),
                    None => backoff(attempt).await,
                },
            }
        }
        Err(gave_up("bind_thread"))
    }
}
