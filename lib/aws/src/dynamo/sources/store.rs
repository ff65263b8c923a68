//! `SourceStore` on the table: every write a read, then one transaction.

use super::*;
use lore_domain::audit::AuditEntry;

/// How a source write ended.
pub(super) enum Written {
    Done,
    /// The source is not (or no longer) at the revision that was read.
    Changed,
    /// The owner's item refused: it does not exist, or (insert with count limits) the Mind is at
    /// its limit.
    OwnerRefused,
    /// The workspace's counters refused: the storage quota, or (insert with count limits) the
    /// workspace's limit of Mind sources.
    WorkspaceRefused,
    /// Concurrent transactions on the same items; retry.
    Conflict,
}

/// The count limits an insert of a Mind's source is conditioned on.
#[derive(Clone, Copy)]
pub(super) struct CountLimits {
    workspace: u32,
    mind: u32,
}

impl DynamoStore {
    /// The source with its text: one strongly consistent query of its partition (the source
    /// item and, for a text source, its text item).
    async fn read_source(&self, id: &SourceId) -> StoreResult<Option<Stored>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND {} BETWEEN {} AND {}",
            expr.a("pk"),
            expr.v("pk", s(source_pk(id))),
            expr.a("sk"),
            expr.v("source", s(SOURCE_SK)),
            expr.v("text", s(TEXT_SK))
        );
        let items = self.query_partition(&cond, &expr, false).await?;
        let (text, source): (Vec<&Item>, Vec<&Item>) = items.iter().partition(|i| is_text_item(i));
        source.first().map(|item| Ok(with_text(stored_from(item)?, text.first().copied()))).transpose()
    }

    /// Adds to the text sources among `sources` (source items, the text not inline) the text of
    /// their text items: one `BatchGetItem`, none when there is no such source.
    async fn add_texts(&self, sources: Vec<Stored>) -> StoreResult<Vec<Stored>> {
        let keys: Vec<Item> = sources
            .iter()
            .filter(|st| st.source.source_type() == SourceType::Text && !st.inline_text)
            .map(|st| key(source_pk(&st.source.id), TEXT_SK))
            .collect();
        if keys.is_empty() {
            return Ok(sources);
        }
        let mut texts: BTreeMap<String, Item> =
            self.batch_get(keys).await?.into_iter().filter_map(|i| Some((get_s(&i, "pk")?.to_owned(), i))).collect();
        Ok(sources
            .into_iter()
            .map(|st| {
                let text = texts.remove(&source_pk(&st.source.id));
                with_text(st, text.as_ref())
            })
            .collect())
    }

    pub(crate) async fn storage_used(&self, ws: &WorkspaceId) -> StoreResult<u64> {
        Ok(self.counters(ws).await?.map_or(0, |c| get_u(&c, "storageBytes")))
    }

    async fn owner_item(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Option<Item>> {
        self.get(&ws_pk(ws), &owner_sk(owner)).await
    }

    /// Writes `new` in place of `old` (insert: no `old`; delete: no `new`) with the counters,
    /// in one transaction. `quota` makes a growth of the workspace's storage conditional;
    /// `limits` (the insert of a Mind's source) makes the insert conditional on the Mind's and
    /// the workspace's counts of Mind sources.
    async fn write_source(
        &self,
        old: Option<&Stored>,
        new: Option<&Stored>,
        quota: Option<u64>,
        limits: Option<CountLimits>,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Written> {
        let Some(any) = new.or(old) else { return Ok(Written::Done) };
        let (ws, owner) = (&any.source.workspace_id, &any.source.owner);
        let limits = limits.filter(|_| owner.is_mind() && old.is_none());
        let mut expr = Expr::new();
        let cond = match old {
            Some(o) => format!("{} = {}", expr.a("rev"), expr.v("rev", n(o.rev))),
            None => format!("attribute_not_exists({})", expr.a("pk")),
        };
        let mut writes = vec![match new {
            Some(nw) => TxWrite::Put { item: source_item(nw), cond: Some(cond), expr },
            None => TxWrite::Delete { key: key(source_pk(&any.source.id), SOURCE_SK), cond: Some(cond), expr },
        }];
        let delta = counter_delta(old, new);
        let mut owner_at = None;
        if !delta.is_empty() {
            writes.push(owner_counters(ws, owner, &delta, limits.map(|l| l.mind)));
            owner_at = Some(writes.len() - 1);
        }
        let bytes = delta.get("sizeBytes").copied().unwrap_or(0);
        let quota = quota.filter(|_| bytes > 0 || old.is_none());
        let mind_sources = if owner.is_mind() { delta.get(SOURCE_COUNT).copied().unwrap_or(0) } else { 0 };
        let mut workspace_at = None;
        if let Some(w) = workspace_counters(ws, bytes, quota, mind_sources, limits.map(|l| l.workspace)) {
            writes.push(w);
            workspace_at = Some(writes.len() - 1);
        }
        writes.extend(text_write(old, new));
        // Last: the positions above tell the failures apart.
        writes.extend(audit.map(crate::dynamo::audit::audit_put));
        match self.transact(writes).await {
            Ok(()) => Ok(Written::Done),
            Err(TxFailure::Condition(failed)) => Ok(if failed.contains(&0) {
                Written::Changed
            } else if owner_at.is_some_and(|i| failed.contains(&i)) {
                Written::OwnerRefused
            } else if workspace_at.is_some_and(|i| failed.contains(&i)) {
                Written::WorkspaceRefused
            } else {
                Written::Conflict
            }),
            Err(TxFailure::Conflict) => Ok(Written::Conflict),
            Err(TxFailure::Store(e)) => Err(e),
        }
    }

    /// Moves the text of every text source still stored inline on its source item (written
    /// before text items existed) to its text item, each source in its own transaction
    /// conditioned on the revision read (as any write of it); how many it moved. For
    /// `lore migrate`: resumable, and a no-op once every source is moved. One `Scan` of the
    /// table, filtered to those items.
    pub async fn move_inline_texts(&self) -> StoreResult<u64> {
        let mut expr = Expr::new();
        let filter =
            format!("{} = {} AND attribute_exists({})", expr.a("sk"), expr.v("source", s(SOURCE_SK)), expr.a(CONTENT));
        let mut ids = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .client
                .scan()
                .table_name(&self.table)
                .filter_expression(&filter)
                .projection_expression(expr.a("id"))
                .set_expression_attribute_names(expr.names())
                .set_expression_attribute_values(expr.values())
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(unavailable)?;
            ids.extend(page.items.unwrap_or_default().iter().filter_map(|i| get_s(i, "id").and_then(SourceId::parse)));
            match page.last_evaluated_key {
                Some(k) if !k.is_empty() => start = Some(k),
                _ => break,
            }
        }
        let mut moved = 0;
        for id in ids {
            let done = self
                .transition(None, &id, "move_inline_texts", |current| {
                    if !current.inline_text {
                        return Ok(Step::Stop(Outcome::Done(false)));
                    }
                    Ok(Step::Write { new: Some(Box::new(next(&current))), quota: None, out: true })
                })
                .await?;
            if matches!(done, Outcome::Done(true)) {
                moved += 1;
            }
        }
        Ok(moved)
    }

    /// Why an insert was refused, read after the fact, in the order the embedded store checks:
    /// the owner, the Mind's limit, the workspace's limit, the storage quota. `None` when nothing
    /// refuses any more (what refused changed meanwhile): try again.
    async fn refusal(&self, src: &KnowledgeSource, limits: &InsertLimits) -> StoreResult<Option<Inserted>> {
        let ws = &src.workspace_id;
        let Some(owner) = self.owner_item(ws, &src.owner).await? else { return Ok(Some(Inserted::OwnerNotFound)) };
        if src.owner.is_mind() {
            let used = get_u(&owner, SOURCE_COUNT);
            if used >= u64::from(limits.mind_sources) {
                return Ok(Some(Inserted::LimitReached(CountLimit::Mind { used, limit: limits.mind_sources })));
            }
        }
        let counters = self.counters(ws).await?;
        let cell = |a: &str| counters.as_ref().map_or(0, |c| get_u(c, a));
        if src.owner.is_mind() {
            let used = cell(MIND_SOURCES);
            if used >= u64::from(limits.workspace_sources) {
                let limit = limits.workspace_sources;
                return Ok(Some(Inserted::LimitReached(CountLimit::Workspace { used, limit })));
            }
        }
        let used = cell("storageBytes");
        if used.saturating_add(src.size_bytes) > limits.storage_quota {
            return Ok(Some(Inserted::OverQuota { used }));
        }
        Ok(None)
    }

    /// Reads the source of `ws`, lets `change` decide, writes the result guarded by the revision
    /// read; on a lost race reads again.
    async fn transition<T>(
        &self,
        ws: Option<&WorkspaceId>,
        id: &SourceId,
        what: &str,
        change: impl FnMut(Stored) -> StoreResult<Step<T>>,
    ) -> StoreResult<Outcome<T>> {
        self.transition_recorded(ws, id, what, None, change).await
    }

    /// [`Self::transition`] that writes `audit` in the transaction of the write, if one is made.
    async fn transition_recorded<T>(
        &self,
        ws: Option<&WorkspaceId>,
        id: &SourceId,
        what: &str,
        audit: Option<&AuditEntry>,
        mut change: impl FnMut(Stored) -> StoreResult<Step<T>>,
    ) -> StoreResult<Outcome<T>> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some(current) = self.read_source(id).await? else { return Ok(Outcome::NotFound) };
            if ws.is_some_and(|w| *w != current.source.workspace_id) {
                return Ok(Outcome::NotFound);
            }
            let (new, quota, out) = match change(current.clone())? {
                Step::Stop(g) => return Ok(g),
                Step::Write { new, quota, out } => (new, quota, out),
            };
            if let (Some(q), Some(nw)) = (quota, &new)
                && nw.source.size_bytes > current.source.size_bytes
                && nw.source.size_bytes - current.source.size_bytes > q
            {
                return Ok(Outcome::OverQuota { used: self.storage_used(&current.source.workspace_id).await? });
            }
            match self.write_source(Some(&current), new.as_deref(), quota, None, audit).await? {
                Written::Done => return Ok(Outcome::Done(out)),
                // Without count limits, the workspace's counters refuse only over the quota.
                Written::WorkspaceRefused => {
                    return Ok(Outcome::OverQuota { used: self.storage_used(&current.source.workspace_id).await? });
                }
                Written::OwnerRefused => return Ok(Outcome::NotFound),
                Written::Changed | Written::Conflict => backoff(attempt).await,
            }
        }
        Err(gave_up(what))
    }

    /// Deletes up to `DELETE_BATCH` of the owner's sources in one transaction, with the counters
    /// they change. The blob keys of the deleted sources, or `None` when nothing was deleted
    /// (the index does not show the counted sources yet, or the transaction lost a race): the
    /// caller backs off and tries again.
    async fn delete_source_batch(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Option<Vec<String>>> {
        let keys = self.query_index(GSI1, "gsi1pk", &sources_of(owner), true, None, 0, Some(DELETE_BATCH)).await?;
        let batch: Vec<Stored> = self
            .batch_get(keys)
            .await?
            .iter()
            .map(stored_from)
            .filter(|r| r.as_ref().map_or(true, |st| st.source.workspace_id == *ws && st.source.owner == *owner))
            .collect::<StoreResult<_>>()?;
        if batch.is_empty() {
            return Ok(None);
        }
        let mut writes: Vec<TxWrite> = batch
            .iter()
            .map(|st| {
                let mut expr = Expr::new();
                let cond = format!("{} = {}", expr.a("rev"), expr.v("rev", n(st.rev)));
                TxWrite::Delete { key: key(source_pk(&st.source.id), SOURCE_SK), cond: Some(cond), expr }
            })
            .collect();
        writes.extend(batch.iter().filter_map(|st| text_write(Some(st), None)));
        let delta = counter_delta(&batch, None);
        writes.push(owner_counters(ws, owner, &delta, None));
        let bytes = delta.get("sizeBytes").copied().unwrap_or(0);
        let mind_sources = if owner.is_mind() { delta.get(SOURCE_COUNT).copied().unwrap_or(0) } else { 0 };
        writes.extend(workspace_counters(ws, bytes, None, mind_sources, None));
        match self.transact(writes).await {
            Ok(()) => Ok(Some(batch.iter().filter_map(|st| st.source.spec.blob_key()).map(str::to_owned).collect())),
            Err(TxFailure::Condition(_) | TxFailure::Conflict) => Ok(None),
            Err(TxFailure::Store(e)) => Err(e),
        }
    }

    /// Deletes every source of a Mind (for its delete), batch by batch, until the Mind item
    /// (read fresh each round) counts none. Returns that Mind item (`None` when the Mind does not
    /// exist, or no longer) and the blob keys of the sources deleted. The Mind's delete must
    /// still be conditioned on its `sourceCount` being 0: a source inserted meanwhile is never
    /// left behind.
    pub(crate) async fn delete_mind_sources(
        &self,
        ws: &WorkspaceId,
        mind: &MindId,
    ) -> StoreResult<(Option<Item>, Vec<String>)> {
        let owner = SourceOwner::Mind(mind.clone());
        let mut blob_keys = Vec::new();
        let mut stalls = 0;
        loop {
            let Some(item) = self.owner_item(ws, &owner).await? else { return Ok((None, blob_keys)) };
            if get_u(&item, SOURCE_COUNT) == 0 {
                return Ok((Some(item), blob_keys));
            }
            match self.delete_source_batch(ws, &owner).await? {
                Some(keys) => {
                    blob_keys.extend(keys);
                    stalls = 0;
                }
                None => {
                    stalls += 1;
                    if stalls > MAX_ATTEMPTS {
                        return Err(gave_up("delete_mind (its sources)"));
                    }
                    backoff(stalls).await;
                }
            }
        }
    }

    /// Deletes the chatbot, after its sources (in batches, each with the counters it changes);
    /// the chatbot item itself goes only once its `sourceCount` is 0, so a source inserted
    /// meanwhile is never left behind.
    pub(crate) async fn delete_chatbot_and_sources(
        &self,
        ws: &WorkspaceId,
        id: &ChatbotId,
        audit: Option<&lore_domain::audit::AuditEntry>,
    ) -> StoreResult<bool> {
        let (pk, sk) = (ws_pk(ws), chatbot_sk(id));
        let owner = SourceOwner::Chatbot(id.clone());
        let mut stalls = 0;
        loop {
            let Some(chatbot) = self.get(&pk, &sk).await? else { return Ok(false) };
            if get_u(&chatbot, SOURCE_COUNT) == 0 {
                let slug = req_s(&chatbot, "slug")?;
                let published = crate::dynamo::chatbots::published(&chatbot);
                let mut e1 = Expr::new();
                // The guards released below were chosen from this read: a publish or a rename
                // committed meanwhile makes the delete read again, so no guard is left behind.
                let cond = format!(
                    "attribute_exists({pk}) AND (attribute_not_exists({c}) OR {c} = {z}) AND {s} = {read_slug} \
                     AND {published_as_read}",
                    pk = e1.a("pk"),
                    c = e1.a(SOURCE_COUNT),
                    z = e1.v("zero", n(0)),
                    s = e1.a("slug"),
                    read_slug = e1.v("readSlug", s(slug)),
                    published_as_read = if published {
                        format!("{} = {}", e1.a("isPublished"), e1.v("wasPublished", AttributeValue::Bool(true)))
                    } else {
                        format!(
                            "(attribute_not_exists({p}) OR {p} = {f})",
                            p = e1.a("isPublished"),
                            f = e1.v("wasPublished", AttributeValue::Bool(false))
                        )
                    },
                );
                let mut e2 = Expr::new();
                let guard_cond =
                    format!("attribute_not_exists({}) OR {} = {}", e2.a("pk"), e2.a("cb"), e2.v("cb", s(id.as_str())));
                let mut e3 = Expr::new();
                let update = format!("ADD {} {}", e3.a("chatbots"), e3.v("minus", n(-1)));
                let mut writes = vec![
                    TxWrite::Delete { key: key(&pk, &sk), cond: Some(cond), expr: e1 },
                    TxWrite::Delete { key: key(&pk, slug_sk(slug)), cond: Some(guard_cond), expr: e2 },
                    TxWrite::Update { key: key(&pk, COUNTERS_SK), update, cond: None, expr: e3 },
                ];
                // A published chatbot gives its public address back (the guard is checked to
                // still name it, as the slug guard is).
                if published {
                    let mut e4 = Expr::new();
                    let cond = format!(
                        "attribute_not_exists({}) OR {} = {}",
                        e4.a("pk"),
                        e4.a("cb"),
                        e4.v("cb", s(id.as_str()))
                    );
                    let guard = key(
                        crate::dynamo::chatbots::public_chatbot_pk(slug),
                        crate::dynamo::chatbots::PUBLIC_CHATBOT_SK,
                    );
                    writes.push(TxWrite::Delete { key: guard, cond: Some(cond), expr: e4 });
                }
                // The entry goes with the chatbot's own delete (its sources went before, in
                // transactions of their own).
                writes.extend(audit.map(crate::dynamo::audit::audit_put));
                match self.transact(writes).await {
                    Ok(()) => return Ok(true),
                    Err(TxFailure::Condition(_) | TxFailure::Conflict) => {
                        stalls += 1;
                        if stalls > MAX_ATTEMPTS {
                            return Err(gave_up("delete_chatbot"));
                        }
                        backoff(stalls).await;
                        continue;
                    }
                    Err(TxFailure::Store(e)) => return Err(e),
                }
            }
            match self.delete_source_batch(ws, &owner).await? {
                Some(_) => stalls = 0,
                None => {
                    // Counted sources the index does not show yet (it is eventually consistent),
                    // or a lost race.
                    stalls += 1;
                    if stalls > MAX_ATTEMPTS {
                        return Err(gave_up("delete_chatbot"));
                    }
                    backoff(stalls).await;
                }
            }
        }
    }
}

/// The write of a text source's text item that goes with writing `new` in place of `old` in the
/// same transaction: put when the text is new, changed or still inline on the item read (moved
/// out: the source item is written without it), deleted with the source; `None` otherwise.
fn text_write(old: Option<&Stored>, new: Option<&Stored>) -> Option<TxWrite> {
    fn text(st: &Stored) -> Option<&String> {
        match &st.source.spec {
            SourceSpec::Text { content } => Some(content),
            _ => None,
        }
    }
    match (old, new) {
        (_, Some(nw)) => {
            let changed = old.is_none_or(|o| o.inline_text || text(o) != text(nw));
            let item = text_item(&nw.source).filter(|_| changed)?;
            Some(TxWrite::Put { item, cond: None, expr: Expr::new() })
        }
        (Some(o), None) if text(o).is_some() => {
            Some(TxWrite::Delete { key: key(source_pk(&o.source.id), TEXT_SK), cond: None, expr: Expr::new() })
        }
        _ => None,
    }
}

/// What a transition of a source did: the port's outcomes, of which a write without a quota
/// (every one but `update_source`'s) never gives `OverQuota`.
#[derive(Debug)]
pub(super) enum Outcome<T> {
    Done(T),
    NotFound,
    WrongStatus(SourceStatus),
    OverQuota { used: u64 },
}

/// A transition written without a quota as the port's [`Guarded`] outcome.
fn guarded<T>(outcome: Outcome<T>) -> StoreResult<Guarded<T>> {
    match outcome {
        Outcome::Done(out) => Ok(Guarded::Done(out)),
        Outcome::NotFound => Ok(Guarded::NotFound),
        Outcome::WrongStatus(status) => Ok(Guarded::WrongStatus(status)),
        Outcome::OverQuota { .. } => Err(StoreError::Unavailable("a write without a quota was refused".into())),
    }
}

/// What a transition decided after reading the source.
pub(super) enum Step<T> {
    Stop(Outcome<T>),
    Write { new: Option<Box<Stored>>, quota: Option<u64>, out: T },
}

pub(super) fn next(current: &Stored) -> Stored {
    let mut st = current.clone();
    st.rev = current.rev + 1;
    st
}

#[async_trait]
impl SourceStore for DynamoStore {
    async fn charge_upload(
        &self,
        ws: &WorkspaceId,
        key: &str,
        bytes: u64,
        quota: u64,
        at: Timestamp,
    ) -> StoreResult<Charged> {
        self.charge_upload_item(ws, key, bytes, quota, at).await
    }

    async fn release_upload(&self, ws: &WorkspaceId, key: &str) -> StoreResult<Option<u64>> {
        self.release_upload_item(ws, key).await
    }

    async fn uploads_charged_before(&self, ws: &WorkspaceId, before: Timestamp) -> StoreResult<Vec<String>> {
        self.upload_keys_charged_before(ws, before).await
    }

    async fn storage_used(&self, ws: &WorkspaceId) -> StoreResult<u64> {
        DynamoStore::storage_used(self, ws).await
    }

    async fn insert_source(&self, src: &KnowledgeSource, limits: &InsertLimits) -> StoreResult<Inserted> {
        if src.size_bytes > limits.storage_quota {
            return Ok(Inserted::OverQuota { used: self.storage_used(&src.workspace_id).await? });
        }
        let new = Stored::new(src.clone());
        let counts = CountLimits { workspace: limits.workspace_sources, mind: limits.mind_sources };
        for attempt in 0..MAX_ATTEMPTS {
            match self.write_source(None, Some(&new), Some(limits.storage_quota), Some(counts), None).await? {
                Written::Done => return Ok(Inserted::Done),
                Written::OwnerRefused | Written::WorkspaceRefused => {
                    if let Some(refused) = self.refusal(src, limits).await? {
                        return Ok(refused);
                    }
                    // What refused changed meanwhile: try again.
                    backoff(attempt).await;
                }
                Written::Changed => return Err(StoreError::Unavailable(format!("source {} exists", src.id))),
                Written::Conflict => backoff(attempt).await,
            }
        }
        Err(gave_up("insert_source"))
    }

    async fn get_source(&self, ws: &WorkspaceId, id: &SourceId) -> StoreResult<Option<KnowledgeSource>> {
        Ok(self.read_source(id).await?.map(|st| st.source).filter(|src| src.workspace_id == *ws))
    }

    async fn list_sources(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        filter: SourceFilter,
        page: PageRequest,
    ) -> StoreResult<Page<KnowledgeSource>> {
        let Some(counters) = self.owner_item(ws, owner).await? else {
            return Ok(Page { items: Vec::new(), total: 0, request: page });
        };
        let statuses: Vec<SourceStatus> = filter.status.map_or(SourceStatus::ALL.to_vec(), |st| vec![st]);
        let types: Vec<SourceType> = filter.source_type.map_or(SourceType::ALL.to_vec(), |t| vec![t]);
        let total = statuses
            .iter()
            .flat_map(|st| types.iter().map(move |t| counter(*st, *t)))
            .map(|a| get_u(&counters, &a))
            .sum();
        let type_filter = filter.source_type.map(|t| {
            let mut expr = Expr::new();
            (format!("{} = {}", expr.a("srcType"), expr.v("type", s(t.as_str()))), expr)
        });
        let (index, pk_attr, pk) = match filter.status {
            Some(st) => (GSI2, "gsi2pk", sources_in_status(owner, st)),
            None => (GSI1, "gsi1pk", sources_of(owner)),
        };
        let keys = self
            .query_index(index, pk_attr, &pk, true, type_filter, page.offset(), Some(u64::from(page.limit())))
            .await?;
        let read = self.batch_get(keys).await?.iter().map(stored_from).collect::<StoreResult<Vec<_>>>()?;
        let mut items = Vec::with_capacity(read.len());
        for st in self.add_texts(read).await? {
            let src = st.source;
            // The index is eventually consistent; the items are read fresh.
            let matches = filter.status.is_none_or(|st| st == src.status)
                && filter.source_type.is_none_or(|t| t == src.source_type());
            if src.workspace_id == *ws && src.owner == *owner && matches {
                items.push(src);
            }
        }
        Ok(Page { items, total, request: page })
    }

    async fn update_source(&self, src: &KnowledgeSource, allowed: &[SourceStatus], quota: u64) -> StoreResult<Updated> {
        let outcome = self
            .transition(Some(&src.workspace_id), &src.id, "update_source", |current| {
                if !allowed.contains(&current.source.status) {
                    return Ok(Step::Stop(Outcome::WrongStatus(current.source.status)));
                }
                let mut new = next(&current);
                let s = &mut new.source;
                s.name = src.name.clone();
                s.status = src.status;
                s.spec = src.spec.clone();
                s.size_bytes = src.size_bytes;
                s.chunk_count = src.chunk_count;
                s.error = src.error.clone();
                s.content_hash = src.content_hash.clone();
                s.progress = src.progress.clone();
                s.updated_at = src.updated_at;
                s.metadata = src.metadata.clone();
                if !s.status.is_running() {
                    new.lease = None;
                }
                Ok(Step::Write { new: Some(Box::new(new)), quota: Some(quota), out: () })
            })
            .await?;
        Ok(match outcome {
            Outcome::Done(()) => Updated::Done,
            Outcome::NotFound => Updated::NotFound,
            Outcome::WrongStatus(status) => Updated::WrongStatus(status),
            Outcome::OverQuota { used } => Updated::OverQuota { used },
        })
    }

    async fn delete_source_recorded(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        allowed: &[SourceStatus],
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Guarded<KnowledgeSource>> {
        guarded(
            self.transition_recorded(Some(ws), id, "delete_source", audit, |current| {
                if !allowed.contains(&current.source.status) {
                    return Ok(Step::Stop(Outcome::WrongStatus(current.source.status)));
                }
                Ok(Step::Write { new: None, quota: None, out: current.source })
            })
            .await?,
        )
    }

    async fn begin_processing(
        &self,
        ws: &WorkspaceId,
        id: &SourceId,
        lease: &Lease,
        now: Timestamp,
    ) -> StoreResult<Guarded<KnowledgeSource>> {
        guarded(
            self.transition(Some(ws), id, "begin_processing", |current| {
                if !matches!(current.source.status, SourceStatus::Pending | SourceStatus::Ready | SourceStatus::Error) {
                    return Ok(Step::Stop(Outcome::WrongStatus(current.source.status)));
                }
                let mut new = next(&current);
                new.source.status = SourceStatus::Processing;
                new.source.generation += 1;
                new.source.progress = Some(queued());
                new.source.error = None;
                new.source.updated_at = now;
                new.lease = Some(lease.clone());
                new.attempts = 1;
                let out = new.source.clone();
                Ok(Step::Write { new: Some(Box::new(new)), quota: None, out })
            })
            .await?,
        )
    }

    async fn set_progress(&self, id: &SourceId, generation: u64, progress: &Progress) -> StoreResult<bool> {
        let mut expr = Expr::new();
        let update = format!("SET {} = {}", expr.a("progress"), expr.v("progress", progress_value(progress)));
        let cond = format!(
            "{} = {} AND {} IN ({}, {})",
            expr.a("generation"),
            expr.v("generation", n(generation)),
            expr.a("status"),
            expr.v("processing", s(SourceStatus::Processing.as_str())),
            expr.v("transcribing", s(SourceStatus::Transcribing.as_str())),
        );
        Ok(self.update_if(key(source_pk(id), SOURCE_SK), update, cond, expr).await?.is_some())
    }

    async fn set_running_status(
        &self,
        id: &SourceId,
        generation: u64,
        status: SourceStatus,
        progress: &Progress,
    ) -> StoreResult<bool> {
        if !status.is_running() {
            return Ok(false);
        }
        // A status change moves the source between its owner's cells and its status listing:
        // a transition, not an in-place update.
        let moved = self
            .transition(None, id, "set_running_status", |current| {
                if !current.source.status.is_running() || current.source.generation != generation {
                    return Ok(Step::Stop(Outcome::NotFound));
                }
                let mut new = next(&current);
                new.source.status = status;
                new.source.progress = Some(progress.clone());
                Ok(Step::Write { new: Some(Box::new(new)), quota: None, out: () })
            })
            .await?;
        Ok(matches!(moved, Outcome::Done(())))
    }

    async fn finish_processing(
        &self,
        id: &SourceId,
        generation: u64,
        finish: &Finish,
        now: Timestamp,
    ) -> StoreResult<Option<KnowledgeSource>> {
        let done = self
            .transition(None, id, "finish_processing", |current| {
                if !current.source.status.is_running() || current.source.generation != generation {
                    return Ok(Step::Stop(Outcome::NotFound));
                }
                let mut new = next(&current);
                new.lease = None;
                let s = &mut new.source;
                s.progress = None;
                s.updated_at = now;
                match finish {
                    Finish::Ready { chunk_count, size_bytes, content_hash, pages_crawled, refreshed_at } => {
                        s.status = SourceStatus::Ready;
                        s.chunk_count = *chunk_count;
                        if let Some(b) = size_bytes {
                            s.size_bytes = *b;
                        }
                        s.content_hash = Some(content_hash.clone());
                        s.error = None;
                        s.processed_at = Some(now);
                        if let SourceSpec::Url { pages_crawled: pages, last_refreshed_at, .. } = &mut s.spec {
                            if let Some(p) = pages_crawled {
                                *pages = *p;
                            }
                            if let Some(t) = refreshed_at {
                                *last_refreshed_at = Some(*t);
                            }
                        }
                    }
                    Finish::Error { message } => {
                        s.status = SourceStatus::Error;
                        s.error = Some(message.clone());
                    }
                }
                let out = new.source.clone();
                Ok(Step::Write { new: Some(Box::new(new)), quota: None, out })
            })
            .await?;
        Ok(match done {
            Outcome::Done(src) => Some(src),
            _ => None,
        })
    }

    async fn renew_lease(&self, id: &SourceId, generation: u64, lease: &Lease) -> StoreResult<bool> {
        // A restarted run starts over: back to `processing` (a transition, since a transcribing
        // run changes status).
        let renewed = self
            .transition(None, id, "renew_lease", |current| {
                if !current.source.status.is_running() || current.source.generation != generation {
                    return Ok(Step::Stop(Outcome::NotFound));
                }
                let mut new = next(&current);
                new.source.status = SourceStatus::Processing;
                new.source.progress = Some(queued());
                new.lease = Some(lease.clone());
                new.attempts = current.attempts.saturating_add(1);
                Ok(Step::Write { new: Some(Box::new(new)), quota: None, out: () })
            })
            .await?;
        Ok(matches!(renewed, Outcome::Done(())))
    }

    async fn due_refreshes(&self, now: Timestamp, limit: usize) -> StoreResult<Vec<(WorkspaceId, SourceId)>> {
        let mut due = Vec::new();
        for shard in 0..LEASE_SHARDS {
            let mut expr = Expr::new();
            let key_cond = format!(
                "{} = {} AND {} <= {}",
                expr.a("refreshShard"),
                expr.v("shard", s(format!("REFRESH#{shard}"))),
                expr.a("refreshDue"),
                expr.v("now", n(now.millis()))
            );
            // Oldest first within a shard: `limit` per shard is enough for `limit` overall.
            let items = self.query_key_range(REFRESHES, &key_cond, &expr, false, limit).await?;
            due.extend(items.iter().filter_map(|item| {
                Some((
                    get_i(item, "refreshDue")?,
                    get_s(item, "ws").and_then(WorkspaceId::parse)?,
                    get_s(item, "id").and_then(SourceId::parse)?,
                ))
            }));
        }
        due.sort_by_key(|(at, _, _)| *at);
        Ok(due.into_iter().take(limit).map(|(_, ws, id)| (ws, id)).collect())
    }

    async fn stale_runs(&self, now: Timestamp, not_owner: Option<&str>) -> StoreResult<Vec<StaleRun>> {
        let mut runs = Vec::new();
        for shard in 0..LEASE_SHARDS {
            let mut expr = Expr::new();
            let shard_key = format!("{} = {}", expr.a("leaseShard"), expr.v("shard", s(format!("LEASE#{shard}"))));
            let (key_cond, filter) = match not_owner {
                // Expired leases: a key range.
                None => {
                    (format!("{shard_key} AND {} < {}", expr.a("leaseUntil"), expr.v("now", n(now.millis()))), None)
                }
                // Expired or someone else's: the whole partition, filtered.
                Some(owner) => {
                    let f = format!(
                        "{} < {} OR {} <> {}",
                        expr.a("leaseUntil"),
                        expr.v("now", n(now.millis())),
                        expr.a("leaseOwner"),
                        expr.v("owner", s(owner))
                    );
                    (shard_key, Some(f))
                }
            };
            let mut start = None;
            loop {
                let page = self
                    .client
                    .query()
                    .table_name(&self.table)
                    .index_name(LEASES)
                    .key_condition_expression(&key_cond)
                    .set_filter_expression(filter.clone())
                    .set_expression_attribute_names(expr.names())
                    .set_expression_attribute_values(expr.values())
                    .set_exclusive_start_key(start.take())
                    .send()
                    .await
                    .map_err(unavailable)?;
                for item in page.items.unwrap_or_default() {
                    let (Some(ws), Some(id)) =
                        (get_s(&item, "ws").and_then(WorkspaceId::parse), get_s(&item, "id").and_then(SourceId::parse))
                    else {
                        continue;
                    };
                    runs.push(StaleRun {
                        workspace_id: ws,
                        source_id: id,
                        generation: get_u(&item, "generation"),
                        attempts: get_u(&item, "attempts").min(u64::from(u32::MAX)) as u32,
                    });
                }
                match page.last_evaluated_key {
                    Some(k) if !k.is_empty() => start = Some(k),
                    _ => break,
                }
            }
        }
        Ok(runs)
    }

    async fn source_stats(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<SourceStats> {
        let mut stats = SourceStats::default();
        let types: &[SourceType] = if owner.is_mind() { &SourceType::MIND } else { &SourceType::CHATBOT };
        for t in types {
            stats.by_type.insert(t.as_str(), 0);
        }
        let Some(c) = self.owner_item(ws, owner).await? else { return Ok(stats) };
        for st in SourceStatus::ALL {
            for t in SourceType::ALL {
                let count = get_u(&c, &counter(st, t));
                if count > 0 {
                    stats.total_sources += count;
                    *stats.by_status.entry(st.as_str()).or_default() += count;
                    *stats.by_type.entry(t.as_str()).or_default() += count;
                }
            }
        }
        stats.total_chunks = get_u(&c, "chunkCount");
        stats.total_size_bytes = get_u(&c, "sizeBytes");
        Ok(stats)
    }

    async fn ready_source_labels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<SourceLabel>> {
        let keys = self
            .query_index(GSI2, "gsi2pk", &sources_in_status(owner, SourceStatus::Ready), true, None, 0, None)
            .await?;
        // Not the spec (an item written before text items existed may still hold its text).
        let items = self.batch_get_attrs(keys, &["id", "ws", "status", "name", "srcType", "metadata"]).await?;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            // The index is eventually consistent; the items are read fresh.
            if get_s(&item, "ws") != Some(ws.as_str()) || get_s(&item, "status") != Some(SourceStatus::Ready.as_str()) {
                continue;
            }
            out.push(SourceLabel {
                id: SourceId::parse(req_s(&item, "id")?).ok_or_else(|| malformed("source id"))?,
                name: get_s(&item, "name").unwrap_or_default().to_owned(),
                source_type: SourceType::parse(req_s(&item, "srcType")?).ok_or_else(|| malformed("source type"))?,
                metadata: metadata_from(&item)?,
            });
        }
        Ok(out)
    }

    async fn file_blob_keys(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<String>> {
        if self.owner_item(ws, owner).await?.is_none() {
            return Ok(Vec::new());
        }
        let mut expr = Expr::new();
        let filter = format!(
            "{} IN ({}, {})",
            expr.a("srcType"),
            expr.v("file", s(SourceType::File.as_str())),
            expr.v("podcast", s(SourceType::Podcast.as_str()))
        );
        let entries = self.query_index(GSI1, "gsi1pk", &sources_of(owner), true, Some((filter, expr)), 0, None).await?;
        Ok(entries.iter().filter_map(|e| get_s(e, "blobKey")).map(str::to_owned).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::audio::AudioFormat;
    use lore_domain::source::{CrawlDepth, StoredAudio};

    fn stored(status: SourceStatus, size: u64, chunks: u64) -> Stored {
        let now = Timestamp::from_millis(1_700_000_000_000);
        Stored {
            source: KnowledgeSource {
                id: SourceId::generate(),
                workspace_id: WorkspaceId::generate(),
                owner: SourceOwner::Chatbot(ChatbotId::generate()),
                name: "n".into(),
                status,
                spec: SourceSpec::Url {
                    url: "https://example.com".into(),
                    crawl_depth: CrawlDepth::from_stored(2),
                    pages_crawled: 3,
                    last_refreshed_at: Some(now),
                    refresh_interval: lore_domain::source::RefreshInterval::from_stored(6),
                },
                created_at: now,
                updated_at: now,
                processed_at: None,
                chunk_count: chunks,
                size_bytes: size,
                error: Some("e".into()),
                content_hash: None,
                progress: Some(Progress::new("embedding", 1, 2)),
                generation: 4,
                metadata: serde_json::from_str(r#"{"lang":"en","year":2024,"public":true}"#).unwrap(),
            },
            attempts: 2,
            lease: Some(Lease { owner: "me".into(), until: now }),
            rev: 9,
            inline_text: false,
        }
    }

    #[test]
    fn items_round_trip_and_only_processing_runs_are_in_the_lease_index() {
        let st = stored(SourceStatus::Processing, 10, 2);
        let item = source_item(&st);
        assert!(item.contains_key("leaseShard"));
        let back = stored_from(&item).unwrap();
        assert_eq!((back.source, back.attempts, back.lease, back.rev), (st.source, st.attempts, st.lease, st.rev));
        let ready = stored(SourceStatus::Ready, 10, 2);
        assert!(!source_item(&ready).contains_key("leaseShard"), "sparse: not processing, not indexed");
        assert_eq!(get_s(&source_item(&ready), "gsi2pk").unwrap(), format!("SRCS#{}#ready", ready.source.owner));
        let transcribing = stored(SourceStatus::Transcribing, 10, 2);
        assert!(source_item(&transcribing).contains_key("leaseShard"), "a transcribing run is running");
    }

    #[test]
    fn mind_podcasts_round_trip_and_list_under_their_mind() {
        let mut st = stored(SourceStatus::Pending, 10, 0);
        let mind = MindId::generate();
        st.source.owner = SourceOwner::Mind(mind.clone());
        st.source.spec = SourceSpec::Podcast(StoredAudio {
            file_name: "talk.ogg".into(),
            mime_type: "audio/ogg".into(),
            format: AudioFormat::Ogg,
            blob_key: "ws/mind/upl/talk.ogg".into(),
            file_url: "https://cdn.example/talk.ogg".into(),
            size_bytes: 10,
        });
        let item = source_item(&st);
        assert_eq!(get_s(&item, "gsi1pk").unwrap(), format!("SRCS#{mind}"));
        assert_eq!(stored_from(&item).unwrap().source, st.source);
    }

    #[test]
    fn items_written_before_mind_sources_read_their_chatbot_from_cb() {
        let st = stored(SourceStatus::Ready, 1, 1);
        let mut item = source_item(&st);
        let owner = item.remove("owner").unwrap();
        item.insert("cb".into(), owner);
        assert_eq!(stored_from(&item).unwrap().source, st.source);
    }

    #[test]
    fn a_text_sources_text_is_on_its_own_item_and_inline_text_still_reads() {
        let mut st = stored(SourceStatus::Ready, 10, 1);
        st.source.spec = SourceSpec::Text { content: "Refunds take 14 days.".into() };
        let item = source_item(&st);
        assert!(!item.contains_key(CONTENT), "the source item holds no text");
        let text = text_item(&st.source).unwrap();
        assert_eq!((get_s(&text, "sk"), get_s(&text, CONTENT)), (Some(TEXT_SK), Some("Refunds take 14 days.")));
        let read = stored_from(&item).unwrap();
        assert!(!read.inline_text);
        assert_eq!(with_text(read, Some(&text)).source, st.source, "the two items read back the source");
        // The shape written before text items: the text inline, read as it is, moved by a write.
        let mut old = item.clone();
        old.insert(CONTENT.into(), s("Refunds take 14 days."));
        let read = stored_from(&old).unwrap();
        assert!(read.inline_text);
        assert_eq!(with_text(read.clone(), None).source, st.source);
        assert!(matches!(text_write(Some(&read), Some(&next(&read))), Some(TxWrite::Put { .. })), "moved out");
        let moved = Stored { inline_text: false, ..read };
        assert!(text_write(Some(&moved), Some(&next(&moved))).is_none(), "unchanged text: not written again");
        let mut edited = next(&moved);
        edited.source.spec = SourceSpec::Text { content: "Ten days.".into() };
        assert!(matches!(text_write(Some(&moved), Some(&edited)), Some(TxWrite::Put { .. })), "changed");
        assert!(matches!(text_write(None, Some(&moved)), Some(TxWrite::Put { .. })), "inserted");
        assert!(matches!(text_write(Some(&moved), None), Some(TxWrite::Delete { .. })), "deleted with the source");
        let url = stored(SourceStatus::Ready, 1, 1);
        assert!(text_write(None, Some(&url)).is_none() && text_write(Some(&url), None).is_none());
    }

    #[test]
    fn status_counts_sum_the_cells_of_every_type() {
        let mut item = Item::new();
        item.insert(counter(SourceStatus::Ready, SourceType::Text), n(2));
        item.insert(counter(SourceStatus::Ready, SourceType::Podcast), n(3));
        item.insert(counter(SourceStatus::Error, SourceType::File), n(1));
        assert_eq!(count_in_status(&item, SourceStatus::Ready), 5);
        assert_eq!(count_in_status(&item, SourceStatus::Error), 1);
        assert_eq!(count_in_status(&item, SourceStatus::Transcribing), 0);
    }

    #[test]
    fn counter_deltas_move_a_source_between_cells() {
        let old = stored(SourceStatus::Pending, 10, 0);
        let mut new = old.clone();
        new.source.status = SourceStatus::Ready;
        new.source.chunk_count = 3;
        new.source.size_bytes = 7;
        let d = counter_delta(Some(&old), Some(&new));
        assert_eq!(d.get("n_pending_url"), Some(&-1));
        assert_eq!(d.get("n_ready_url"), Some(&1));
        assert_eq!(d.get("chunkCount"), Some(&3));
        assert_eq!(d.get("sizeBytes"), Some(&-3));
        assert_eq!(d.get("sourceCount"), None, "unchanged counts are left out");
        assert_eq!(counter_delta(None, Some(&old)).get("sourceCount"), Some(&1));
        assert_eq!(counter_delta(Some(&old), None).get("sourceCount"), Some(&-1));
    }

    #[test]
    fn sort_keys_are_newest_first_then_id() {
        assert!(newest_first_key(2, "src_a") > newest_first_key(1, "src_z"));
        assert!(newest_first_key(1_700_000_000_001, "src_b") > newest_first_key(1_700_000_000_001, "src_a"));
        let shards: std::collections::HashSet<String> = (0..64).map(|_| lease_shard(&SourceId::generate())).collect();
        assert!(shards.len() > 1 && shards.len() <= LEASE_SHARDS as usize);
    }
}
