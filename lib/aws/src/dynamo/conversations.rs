//! Conversations and messages on the table (`infra/dynamodb.md`, "Conversations").
//!
//! A conversation is `CONV#<id>/CONV`, listed under its owner in GSI1 (`CONVS#<owner>`, newest
//! first); its messages share its partition (`CONV#<id>/MSG#<msgId>`, ids sort oldest first),
//! so one query reads a transcript in order. The owner's `conversationCount` (on the Mind's or
//! chatbot's item) changes in the same `TransactWriteItems` as the conversation, and the
//! conversation's `messageCount` in the same one as its messages, conditioned on the room left.

use super::analytics::{tally_writes, unanswered_attributes};
use super::document;
use super::events::event_item;
use super::keys::{chatbot_sk, mind_sk, ws_pk};
use super::{
    DynamoStore, Expr, GSI1, Item, MAX_ATTEMPTS, TxFailure, TxWrite, backoff, gave_up, get_i, get_s, get_u, key,
    malformed, n, newest_first_key, put_if_absent, req_s, s, unavailable,
};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::Select;
use lore_app::ports::{Append, ConversationCursor, ConversationStore, StoreResult};
use lore_domain::Timestamp;
use lore_domain::analytics::{DayRange, StoredAnalytics, Tally};
use lore_domain::conversation::{Conversation, ConversationStatus, Feedback, Message};
use lore_domain::correction::Correction;
use lore_domain::event::Event;
use lore_domain::id::{ConversationId, CorrectionId, MessageId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_records::{
    ConversationKeys, ConversationRecord, CorrectionKeys, CorrectionRecord, MessageKeys, MessageRecord,
};

// ---- keys ------------------------------------------------------------------------------------

fn conversation_pk(id: &ConversationId) -> String {
    format!("CONV#{id}")
}
const CONVERSATION_SK: &str = "CONV";
fn message_sk(id: &MessageId) -> String {
    format!("MSG#{id}")
}
const MESSAGE_PREFIX: &str = "MSG#";
fn conversations_of(owner: &SourceOwner) -> String {
    format!("CONVS#{owner}")
}
/// The owner's item, which carries `conversationCount`.
fn owner_key(ws: &WorkspaceId, owner: &SourceOwner) -> Item {
    match owner {
        SourceOwner::Chatbot(id) => key(ws_pk(ws), chatbot_sk(id)),
        SourceOwner::Mind(id) => key(ws_pk(ws), mind_sk(id)),
    }
}
const COUNT: &str = "conversationCount";
/// Corrections live in the owner's workspace partition: `WS#<ws>` / `CORR#<owner>#<corr>`.
fn corrections_prefix(owner: &SourceOwner) -> String {
    format!("CORR#{owner}#")
}
fn correction_sk(owner: &SourceOwner, id: &CorrectionId) -> String {
    format!("CORR#{owner}#{id}")
}

fn correction_item(c: &Correction) -> Item {
    let mut item = key(ws_pk(&c.workspace_id), correction_sk(&c.owner, &c.id));
    item.extend([
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("owner".into(), s(c.owner.as_str())),
        ("createdAt".into(), n(c.created_at.millis())),
    ]);
    item.extend(document::set_fields(&CorrectionRecord::of(c)));
    item
}

fn correction_from(i: &Item) -> StoreResult<Correction> {
    let keys = CorrectionKeys {
        id: CorrectionId::parse(req_s(i, "id")?).ok_or_else(|| malformed("correction id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("correction owner"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    };
    let record: CorrectionRecord = document::read(i, "correction")?;
    Ok(record.into_correction(keys))
}

// ---- items -----------------------------------------------------------------------------------

fn conversation_item(c: &Conversation) -> Item {
    let mut item = key(conversation_pk(&c.id), CONVERSATION_SK);
    item.extend([
        ("gsi1pk".into(), s(conversations_of(&c.owner))),
        ("gsi1sk".into(), s(newest_first_key(c.created_at.millis(), c.id.as_str()))),
        ("id".into(), s(c.id.as_str())),
        ("ws".into(), s(c.workspace_id.as_str())),
        ("owner".into(), s(c.owner.as_str())),
        ("messageCount".into(), n(c.message_count)),
        ("createdAt".into(), n(c.created_at.millis())),
        ("updatedAt".into(), n(c.updated_at.millis())),
    ]);
    item.extend(document::set_fields(&ConversationRecord::of(c)));
    item
}

fn conversation_from(i: &Item) -> StoreResult<Conversation> {
    let ms = |k: &str| get_i(i, k).map(Timestamp::from_millis).ok_or_else(|| malformed(k));
    let keys = ConversationKeys {
        id: ConversationId::parse(req_s(i, "id")?).ok_or_else(|| malformed("conversation id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        owner: SourceOwner::parse(req_s(i, "owner")?).ok_or_else(|| malformed("conversation owner"))?,
        message_count: get_u(i, "messageCount"),
        created_at: ms("createdAt")?,
        updated_at: ms("updatedAt")?,
    };
    let record: ConversationRecord = document::read(i, "conversation")?;
    record.into_conversation(keys).map_err(|e| malformed(&e.0))
}

fn message_item(m: &Message) -> Item {
    let mut item = key(conversation_pk(&m.conversation_id), message_sk(&m.id));
    item.extend([
        ("id".into(), s(m.id.as_str())),
        ("conversation".into(), s(m.conversation_id.as_str())),
        ("createdAt".into(), n(m.created_at.millis())),
    ]);
    item.extend(document::set_fields(&MessageRecord::of(m)));
    item
}

fn message_from(i: &Item) -> StoreResult<Message> {
    let keys = MessageKeys {
        id: MessageId::parse(req_s(i, "id")?).ok_or_else(|| malformed("message id"))?,
        conversation_id: ConversationId::parse(req_s(i, "conversation")?)
            .ok_or_else(|| malformed("conversation id"))?,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    };
    let record: MessageRecord = document::read(i, "message")?;
    record.into_message(keys).map_err(|e| malformed(&e.0))
}

/// Adds `delta` to the owner's count, only while the owner exists (never recreating a deleted
/// owner's item as a bare counter).
fn count_on_owner(ws: &WorkspaceId, owner: &SourceOwner, delta: i64) -> TxWrite {
    let mut expr = Expr::new();
    let cond = format!("attribute_exists({})", expr.a("pk"));
    let update = format!("ADD {} {}", expr.a(COUNT), expr.v("delta", n(delta)));
    TxWrite::Update { key: owner_key(ws, owner), update, cond: Some(cond), expr }
}

impl DynamoStore {
    /// The conversation's item when it belongs to `ws` (and to `owner`, when given).
    async fn conversation(
        &self,
        ws: &WorkspaceId,
        owner: Option<&SourceOwner>,
        id: &ConversationId,
    ) -> StoreResult<Option<Conversation>> {
        let Some(item) = self.get(&conversation_pk(id), CONVERSATION_SK).await? else { return Ok(None) };
        let ours =
            get_s(&item, "ws") == Some(ws.as_str()) && owner.is_none_or(|o| get_s(&item, "owner") == Some(o.as_str()));
        if !ours {
            return Ok(None);
        }
        conversation_from(&item).map(Some)
    }

    /// The conversation's last `limit` messages, newest first: one query of its partition,
    /// descending from the end of the message keys, that stops at `limit` (a `Limit` counts the
    /// items read, and every item the key condition selects is a message).
    async fn last_messages(&self, id: &ConversationId, limit: u32) -> StoreResult<Vec<Message>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND begins_with({}, {})",
            expr.a("pk"),
            expr.v("pk", s(conversation_pk(id))),
            expr.a("sk"),
            expr.v("prefix", s(MESSAGE_PREFIX))
        );
        let mut out = Vec::new();
        let mut start = None;
        while out.len() < limit as usize {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .key_condition_expression(&cond)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .scan_index_forward(false)
                .limit(i32::try_from(limit as usize - out.len()).unwrap_or(i32::MAX))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            for item in page.items.unwrap_or_default() {
                out.push(message_from(&item)?);
            }
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        out.truncate(limit as usize);
        Ok(out)
    }

    /// Every item of the conversation's partition with the given sort-key prefix, in key order.
    async fn partition(&self, id: &ConversationId, prefix: &str, keys_only: bool) -> StoreResult<Vec<Item>> {
        self.prefixed(&conversation_pk(id), prefix, keys_only).await
    }

    /// Every item of partition `pk` with the given sort-key prefix, in key order.
    pub(crate) async fn prefixed(&self, pk: &str, prefix: &str, keys_only: bool) -> StoreResult<Vec<Item>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND begins_with({}, {})",
            expr.a("pk"),
            expr.v("pk", s(pk)),
            expr.a("sk"),
            expr.v("prefix", s(prefix))
        );
        self.query_partition(&cond, &expr, keys_only).await
    }

    /// Every item a key condition on the table selects (all its pages), in key order,
    /// strongly consistent; only `pk` and `sk` of each with `keys_only`.
    pub(crate) async fn query_partition(&self, cond: &str, expr: &Expr, keys_only: bool) -> StoreResult<Vec<Item>> {
        let mut out = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .key_condition_expression(cond)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .set_projection_expression(keys_only.then(|| "pk, sk".to_owned()))
                .consistent_read(true)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            out.extend(page.items.unwrap_or_default());
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(out),
            }
        }
    }

    /// How many of the owner's conversations were started at or after `since` (GSI1, counted
    /// by DynamoDB page by page, no items read).
    async fn count_index_since(&self, owner: &SourceOwner, since: Timestamp) -> StoreResult<u64> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND {} >= {}",
            expr.a("gsi1pk"),
            expr.v("owner", s(conversations_of(owner))),
            expr.a("gsi1sk"),
            expr.v("since", s(newest_first_key(since.millis(), ""))),
        );
        let mut total = 0u64;
        let mut start = None;
        loop {
            let page = self
                .client()
                .query()
                .table_name(self.table())
                .index_name(GSI1)
                .key_condition_expression(&cond)
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .select(Select::Count)
                .set_exclusive_start_key(start)
                .send()
                .await
                .map_err(unavailable)?;
            total += page.count.max(0) as u64;
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => return Ok(total),
            }
        }
    }

    /// Deletes the conversation's messages, then the conversation (which must no longer be
    /// reachable for writes: deleted already, or its owner gone).
    async fn remove_messages(&self, id: &ConversationId) -> StoreResult<()> {
        let keys = self.partition(id, MESSAGE_PREFIX, true).await?;
        self.delete_keys(&keys, "delete messages").await
    }

    /// Deletes the items of `keys` (items holding at least `pk` and `sk`), unconditionally, a
    /// transaction of 100 at a time.
    pub(crate) async fn delete_keys(&self, keys: &[Item], what: &str) -> StoreResult<()> {
        for batch in keys.chunks(100) {
            super::transact_retrying(self, what, || {
                Ok(batch
                    .iter()
                    .map(|k| TxWrite::Delete {
                        key: key(get_s(k, "pk").unwrap_or_default(), get_s(k, "sk").unwrap_or_default()),
                        cond: None,
                        expr: Expr::new(),
                    })
                    .collect())
            })
            .await?;
        }
        Ok(())
    }
}

#[async_trait]
impl ConversationStore for DynamoStore {
    async fn insert_conversation(
        &self,
        conversation: &Conversation,
        messages: &[Message],
        event: Option<&Event>,
    ) -> StoreResult<bool> {
        let c = conversation;
        super::transact_retrying(self, "insert_conversation", || {
            let mut writes = vec![count_on_owner(&c.workspace_id, &c.owner, 1), put_if_absent(conversation_item(c))];
            writes.extend(messages.iter().map(|m| put_if_absent(message_item(m))));
            writes.extend(tally_writes(&Tally::started(c)));
            writes.extend(event.map(|e| put_if_absent(event_item(e))));
            Ok(writes)
        })
        .await
    }

    async fn get_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> StoreResult<Option<Conversation>> {
        self.conversation(ws, Some(owner), id).await
    }

    async fn list_conversations(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<Conversation>> {
        let owner_key = owner_key(ws, owner);
        let Some(owner_item) =
            self.get(get_s(&owner_key, "pk").unwrap_or_default(), get_s(&owner_key, "sk").unwrap_or_default()).await?
        else {
            return Ok(Page { items: Vec::new(), total: 0, request: page });
        };
        let total = get_u(&owner_item, COUNT);
        let items = self
            .listed(GSI1, &conversations_of(owner), true, page.offset(), Some(u64::from(page.limit())))
            .await?
            .iter()
            .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
            .map(conversation_from)
            .collect::<StoreResult<Vec<_>>>()?;
        Ok(Page { items, total, request: page })
    }

    async fn list_messages(&self, ws: &WorkspaceId, id: &ConversationId) -> StoreResult<Vec<Message>> {
        if self.conversation(ws, None, id).await?.is_none() {
            return Ok(Vec::new());
        }
        self.partition(id, MESSAGE_PREFIX, false).await?.iter().map(message_from).collect()
    }

    async fn recent_messages(&self, ws: &WorkspaceId, id: &ConversationId, limit: u32) -> StoreResult<Vec<Message>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        // The workspace is on the conversation's item, not on its messages: both are read at once.
        let (conversation, mut newest_first) =
            tokio::try_join!(self.conversation(ws, None, id), self.last_messages(id, limit))?;
        if conversation.is_none() {
            return Ok(Vec::new());
        }
        newest_first.reverse();
        Ok(newest_first)
    }

    async fn append_messages(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        messages: &[Message],
        max: u64,
        tally: &Tally,
    ) -> StoreResult<Append> {
        let added = messages.len() as u64;
        if added > max {
            return Ok(Append::Full);
        }
        let updated = messages.iter().map(|m| m.created_at.millis()).max().unwrap_or(0);
        for attempt in 0..MAX_ATTEMPTS {
            let mut expr = Expr::new();
            let cond = format!(
                "attribute_exists({}) AND {} = {} AND {c} <= {room}",
                expr.a("pk"),
                expr.a("ws"),
                expr.v("ws", s(ws.as_str())),
                c = expr.a("messageCount"),
                room = expr.v("room", n(max - added)),
            );
            let update = format!(
                "ADD {} {} SET {} = {}",
                expr.a("messageCount"),
                expr.v("added", n(added)),
                expr.a("updatedAt"),
                expr.v("updated", n(updated)),
            );
            let mut writes = vec![TxWrite::Update {
                key: key(conversation_pk(id), CONVERSATION_SK),
                update,
                cond: Some(cond),
                expr,
            }];
            writes.extend(messages.iter().map(|m| {
                let mut item = message_item(m);
                item.extend(unanswered_attributes(tally, &m.id));
                put_if_absent(item)
            }));
            writes.extend(tally_writes(tally));
            match self.transact(writes).await {
                Ok(()) => {
                    return match self.conversation(ws, None, id).await? {
                        Some(c) => Ok(Append::Appended(Box::new(c))),
                        None => Ok(Append::NotFound),
                    };
                }
                Err(TxFailure::Condition(_)) => {
                    return match self.conversation(ws, None, id).await? {
                        None => Ok(Append::NotFound),
                        Some(_) => Ok(Append::Full),
                    };
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("append_messages"))
    }

    async fn delete_conversation_recorded(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        audit: Option<&lore_domain::audit::AuditEntry>,
    ) -> StoreResult<bool> {
        if self.conversation(ws, Some(owner), id).await?.is_none() {
            return Ok(false);
        }
        let delete = || {
            let mut expr = Expr::new();
            let cond = format!("attribute_exists({})", expr.a("pk"));
            TxWrite::Delete { key: key(conversation_pk(id), CONVERSATION_SK), cond: Some(cond), expr }
        };
        let mut deleted = false;
        for attempt in 0..MAX_ATTEMPTS {
            let mut writes = vec![delete(), count_on_owner(ws, owner, -1)];
            writes.extend(audit.map(super::audit::audit_put));
            match self.transact(writes).await {
                Ok(()) => {
                    deleted = true;
                    break;
                }
                // Deleted meanwhile (0), or the owner is gone (1): then the conversation alone.
                Err(TxFailure::Condition(failed)) if failed.contains(&0) => return Ok(false),
                Err(TxFailure::Condition(_)) => {
                    deleted = super::transact_retrying(self, "delete_conversation", || {
                        Ok(std::iter::once(delete()).chain(audit.map(super::audit::audit_put)).collect())
                    })
                    .await?;
                    break;
                }
                Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        if !deleted {
            return Ok(false);
        }
        // No message can be added any more (appends need the conversation).
        self.remove_messages(id).await?;
        Ok(true)
    }

    async fn delete_owner_conversations(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<u64> {
        self.remove_analytics(owner).await?;
        let corrections = self.prefixed(&ws_pk(ws), &corrections_prefix(owner), true).await?;
        self.delete_keys(&corrections, "delete corrections").await?;
        let mut removed = 0;
        loop {
            let keys = self.query_index(GSI1, "gsi1pk", &conversations_of(owner), true, None, 0, Some(100)).await?;
            if keys.is_empty() {
                return Ok(removed);
            }
            for k in self.batch_get(keys).await? {
                if get_s(&k, "ws") != Some(ws.as_str()) {
                    continue;
                }
                let id = ConversationId::parse(req_s(&k, "id")?).ok_or_else(|| malformed("conversation id"))?;
                let gone = super::transact_retrying(self, "delete_owner_conversations", || {
                    Ok(vec![TxWrite::Delete {
                        key: key(conversation_pk(&id), CONVERSATION_SK),
                        cond: None,
                        expr: Expr::new(),
                    }])
                })
                .await?;
                self.remove_messages(&id).await?;
                removed += u64::from(gone);
            }
        }
    }

    async fn rate_message(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        feedback: &Feedback,
        event: &Event,
    ) -> StoreResult<Option<Message>> {
        if self.conversation(ws, Some(owner), conversation).await?.is_none() {
            return Ok(None);
        }
        // Read, then write conditioned on the rating read being still the stored one: the
        // counters take back exactly the rating this write replaces.
        for attempt in 0..MAX_ATTEMPTS {
            let Some(item) = self.get(&conversation_pk(conversation), &message_sk(message)).await? else {
                return Ok(None);
            };
            let mut m = message_from(&item)?;
            let tally = Tally::rated(ws, owner, &m, feedback);
            // The counts depend on the rating alone: the write holds while the stored rating is
            // the one read (a time would not do: two ratings may share a millisecond).
            let before = m.feedback.as_ref().map(|f| f.rating.as_str());
            let mut expr = Expr::new();
            let fb = expr.a("feedback");
            let unchanged = match before {
                None => format!("attribute_not_exists({fb})"),
                Some(r) => format!("{fb}.{} = {}", expr.a("rating"), expr.v("before", s(r))),
            };
            m.feedback = Some(feedback.clone());
            let cond = format!("attribute_exists({}) AND {unchanged}", expr.a("pk"));
            let stored = document::fields(&MessageRecord::of(&m)).into_iter().find(|(k, _)| k == "feedback");
            let update = expr.set_or_remove(stored.into_iter().collect());
            let mut writes = vec![TxWrite::Update {
                key: key(conversation_pk(conversation), message_sk(message)),
                update,
                cond: Some(cond),
                expr,
            }];
            writes.extend(tally_writes(&tally));
            writes.push(put_if_absent(event_item(event)));
            match self.transact(writes).await {
                Ok(()) => return Ok(Some(m)),
                // Rated (or deleted) meanwhile: read again.
                Err(TxFailure::Condition(_)) | Err(TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("rate_message"))
    }

    async fn set_conversation_status(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        status: ConversationStatus,
        reason: Option<&str>,
        event: Option<&Event>,
    ) -> StoreResult<Option<Conversation>> {
        match self.conversation(ws, Some(owner), id).await? {
            None => return Ok(None),
            Some(c) if c.status == status => return Ok(Some(c)),
            Some(_) => {}
        }
        // Conditioned on the status changing: of two concurrent requests one writes the event.
        super::transact_retrying(self, "set_conversation_status", || {
            let mut expr = Expr::new();
            let st = expr.a("status");
            let value = expr.v("status", s(status.as_str()));
            let cond =
                format!("attribute_exists({}) AND (attribute_not_exists({st}) OR {st} <> {value})", expr.a("pk"));
            let why = expr.a("handoffReason");
            let update = match reason {
                Some(r) => format!("SET {st} = {value}, {why} = {}", expr.v("reason", s(r))),
                None => format!("SET {st} = {value} REMOVE {why}"),
            };
            let mut writes = vec![TxWrite::Update {
                key: key(conversation_pk(id), CONVERSATION_SK),
                update,
                cond: Some(cond),
                expr,
            }];
            writes.extend(event.map(|e| put_if_absent(event_item(e))));
            Ok(writes)
        })
        .await?;
        self.conversation(ws, Some(owner), id).await
    }

    async fn set_channel_error(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        failure: Option<&lore_domain::channel::PlatformFailure>,
    ) -> StoreResult<()> {
        // One conditional UpdateItem of the record's `channelError` field: the rest of the
        // conversation is untouched. Absent, or of another workspace: the condition fails,
        // nothing is written.
        let mut expr = Expr::new();
        let attr = expr.a("channelError");
        let update = match failure {
            Some(f) => format!("SET {attr} = {}", expr.v("failure", super::channels::failure_attribute(f)?)),
            None => format!("REMOVE {attr}"),
        };
        let cond =
            format!("attribute_exists({}) AND {} = {}", expr.a("pk"), expr.a("ws"), expr.v("ws", s(ws.as_str())));
        self.update_if(key(conversation_pk(id), CONVERSATION_SK), update, cond, expr).await?;
        Ok(())
    }

    async fn put_correction(&self, correction: &Correction) -> StoreResult<()> {
        super::transact_retrying(self, "put_correction", || {
            Ok(vec![TxWrite::Put { item: correction_item(correction), cond: None, expr: Expr::new() }])
        })
        .await?;
        Ok(())
    }

    async fn list_corrections(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Correction>> {
        let mut all = self
            .prefixed(&ws_pk(ws), &corrections_prefix(owner), false)
            .await?
            .iter()
            .map(correction_from)
            .collect::<StoreResult<Vec<_>>>()?;
        all.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(all)
    }

    async fn delete_correction(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &CorrectionId) -> StoreResult<bool> {
        super::transact_retrying(self, "delete_correction", || {
            let mut expr = Expr::new();
            let cond = format!("attribute_exists({})", expr.a("pk"));
            Ok(vec![TxWrite::Delete { key: key(ws_pk(ws), correction_sk(owner, id)), cond: Some(cond), expr }])
        })
        .await
    }

    async fn count_conversations_since(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        since: Timestamp,
    ) -> StoreResult<u64> {
        // The owner must be of this workspace (its item is in the workspace's partition). The
        // check and the count run at once (GSI1 holds no workspace to filter by); another
        // workspace's count is dropped unread.
        let k = owner_key(ws, owner);
        let (found, count) = futures::try_join!(
            self.get(get_s(&k, "pk").unwrap_or_default(), get_s(&k, "sk").unwrap_or_default()),
            self.count_index_since(owner, since)
        )?;
        Ok(if found.is_some() { count } else { 0 })
    }

    async fn analytics(&self, ws: &WorkspaceId, owner: &SourceOwner, range: &DayRange) -> StoreResult<StoredAnalytics> {
        self.owner_analytics(ws, owner, range).await
    }

    async fn conversations_before(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        before: Option<&ConversationCursor>,
        limit: u32,
    ) -> StoreResult<Vec<Conversation>> {
        let mut expr = Expr::new();
        let mut cond = format!("{} = {}", expr.a("gsi1pk"), expr.v("owner", s(conversations_of(owner))));
        if let Some(b) = before {
            let bound = expr.v("before", s(newest_first_key(b.created_at.millis(), b.id.as_str())));
            cond.push_str(&format!(" AND {} < {bound}", expr.a("gsi1sk")));
        }
        let page = self
            .client()
            .query()
            .table_name(self.table())
            .index_name(GSI1)
            .key_condition_expression(&cond)
            .set_expression_attribute_names(expr.names())
            .set_expression_attribute_values(expr.values())
            .scan_index_forward(false)
            .limit(limit.clamp(1, 1000) as i32)
            .send()
            .await
            .map_err(unavailable)?;
        self.batch_get(page.items.unwrap_or_default())
            .await?
            .iter()
            .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
            .map(conversation_from)
            .collect()
    }
}
