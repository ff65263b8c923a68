//! Webhook subscriptions (`HookStore`) and deliveries (`DeliveryStore`) on the table
//! (`infra/dynamodb.md`, "Forms, the outbox, hooks and deliveries").
//!
//! A pending delivery is in the `leases` index (`leaseShard = DUE#<k>`, `leaseUntil` = when it
//! is next due: its `nextAttemptAt`, or the end of its claim); a claim is one conditional
//! `UpdateItem`, so of concurrent claimers exactly one wins each delivery.

use super::audit::audit_put;
use super::events::event_from;
use super::keys::{COUNTERS_SK, ws_pk};
use super::keys::{EVENT_SK, OUTBOX, event_pk};
use super::{
    DynamoStore, Expr, GSI1, GSI2, Item, LEASE_SHARDS, LEASES, MAX_ATTEMPTS, TxFailure, TxWrite, backoff, gave_up,
    get_i, get_s, get_u, key, malformed, n, newest_first_key, req_s, s,
};
use super::{add, put_if_absent, transact_retrying};
use async_trait::async_trait;
use lore_app::ports::Lease;
use lore_app::ports::StoreResult;
use lore_app::ports::{DeliveryFilter, DeliveryStore, DeliveryUpdate, ErasedTraces, HookCounts, HookStore};
use lore_domain::Timestamp;
use lore_domain::audit::AuditEntry;
use lore_domain::delivery::{Attempt, Delivery, DeliveryStatus, Envelope};
use lore_domain::event::{Event, EventType};
use lore_domain::hook::{Hook, HookFilter, HookStatus, RetiringSecret, WebhookSecret};
use lore_domain::id::{ChatbotId, DeliveryId, EventId, FormId, HookId, MindId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::visitor_match::{ErasureTrace, erased_data, scrub_any_envelope};
use lore_records::{AttemptRecord, from_json, to_json};

// ---- keys ------------------------------------------------------------------------------------

fn hook_sk(id: &HookId) -> String {
    format!("HOOK#{id}")
}
fn hooks_of(ws: &WorkspaceId) -> String {
    format!("HOOKS#{ws}")
}
/// What `Hook::same_target` compares, as one string.
fn target_of(h: &Hook) -> String {
    format!(
        "{}\n{}\n{}\n{}",
        h.filter.as_str(),
        h.form_id.as_ref().map_or("", FormId::as_str),
        // A chatbot narrows knowledge events, a Mind lead events: never both, one slot.
        h.chatbot_id.as_ref().map(ChatbotId::as_str).or(h.mind_id.as_ref().map(MindId::as_str)).unwrap_or(""),
        h.hook_url
    )
}
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}
/// The target guard: `HOOKT#<FNV-1a of the target>#<n>`, `n` = 0 unless two targets collide.
fn target_sk(target: &str, n: u32) -> String {
    format!("HOOKT#{:016x}#{n}", fnv(target))
}
fn hook_counter(status: HookStatus) -> String {
    format!("hooks_{}", status.as_str())
}

fn delivery_pk(id: &DeliveryId) -> String {
    format!("DLV#{id}")
}
const DELIVERY_SK: &str = "DLV";
fn deliveries_of_ws(ws: &WorkspaceId) -> String {
    format!("DLVS#{ws}")
}
fn deliveries_of_hook(hook: &HookId) -> String {
    format!("HOOKDLVS#{hook}")
}
/// Per-hook delivery counters, in the workspace's partition.
fn hook_deliveries_sk(hook: &HookId) -> String {
    format!("HOOKDLV#{hook}")
}
fn delivery_counter(status: DeliveryStatus) -> String {
    format!("dlv_{}", status.as_str())
}
/// One delivery per (event, hook): `DLVE#<event>` / `HOOK#<hook>`.
fn fanout_pk(event: &EventId) -> String {
    format!("DLVE#{event}")
}
fn due_shard(id: &DeliveryId) -> String {
    format!("DUE#{}", fnv(id.as_str()) % u64::from(LEASE_SHARDS))
}
const DELIVERY_STATUSES: [DeliveryStatus; 3] =
    [DeliveryStatus::Pending, DeliveryStatus::Succeeded, DeliveryStatus::Failed];

// ---- hook items ------------------------------------------------------------------------------

fn hook_item(h: &Hook, guard: &str) -> Item {
    let mut item = key(ws_pk(&h.workspace_id), hook_sk(&h.id));
    item.extend([
        ("gsi1pk".into(), s(hooks_of(&h.workspace_id))),
        ("gsi1sk".into(), s(h.id.as_str())),
        ("id".into(), s(h.id.as_str())),
        ("ws".into(), s(h.workspace_id.as_str())),
        ("url".into(), s(&h.hook_url)),
        ("filter".into(), s(h.filter.as_str())),
        ("secret".into(), s(h.secret.expose())),
        ("status".into(), s(h.status.as_str())),
        ("failures".into(), n(h.consecutive_failures)),
        ("createdAt".into(), n(h.created_at.millis())),
        ("guard".into(), s(guard)),
    ]);
    if let Some(f) = &h.form_id {
        item.insert("form".into(), s(f.as_str()));
    }
    if let Some(c) = &h.chatbot_id {
        item.insert("cb".into(), s(c.as_str()));
    }
    if let Some(m) = &h.mind_id {
        item.insert("mind".into(), s(m.as_str()));
    }
    if let Some(r) = &h.retiring_secret {
        item.insert("retiringSecret".into(), s(r.secret.expose()));
        item.insert("retiringUntil".into(), n(r.until.millis()));
    }
    item
}

fn hook_from(i: &Item) -> StoreResult<Hook> {
    Ok(Hook {
        id: HookId::parse(req_s(i, "id")?).ok_or_else(|| malformed("hook id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        hook_url: req_s(i, "url")?.to_owned(),
        filter: HookFilter::parse(Some(req_s(i, "filter")?)).map_err(|_| malformed("hook event"))?,
        form_id: match get_s(i, "form") {
            Some(f) => Some(FormId::parse(f).ok_or_else(|| malformed("form id"))?),
            None => None,
        },
        chatbot_id: match get_s(i, "cb") {
            Some(c) => Some(ChatbotId::parse(c).ok_or_else(|| malformed("chatbot id"))?),
            None => None,
        },
        secret: WebhookSecret::from_stored(req_s(i, "secret")?.to_owned()),
        status: HookStatus::parse(req_s(i, "status")?).ok_or_else(|| malformed("hook status"))?,
        consecutive_failures: get_u(i, "failures") as u32,
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
        mind_id: match get_s(i, "mind") {
            Some(m) => Some(MindId::parse(m).ok_or_else(|| malformed("mind id"))?),
            None => None,
        },
        retiring_secret: match (get_s(i, "retiringSecret"), get_i(i, "retiringUntil")) {
            (Some(secret), Some(until)) => Some(RetiringSecret {
                secret: WebhookSecret::from_stored(secret.to_owned()),
                until: Timestamp::from_millis(until),
            }),
            _ => None,
        },
    })
}

/// A write conditioned on the hook's `status` and `failures` being what was read.
fn hook_cond(expr: &mut Expr, read: &Hook) -> String {
    format!(
        "{} = {} AND {} = {}",
        expr.a("status"),
        expr.v("readStatus", s(read.status.as_str())),
        expr.a("failures"),
        expr.v("readFailures", n(read.consecutive_failures))
    )
}

fn set_hook_state(pk: &str, read: &Hook, status: HookStatus, failures: u32) -> TxWrite {
    let mut expr = Expr::new();
    let cond = hook_cond(&mut expr, read);
    let update = format!(
        "SET {} = {}, {} = {}",
        expr.a("status"),
        expr.v("status", s(status.as_str())),
        expr.a("failures"),
        expr.v("failures", n(failures))
    );
    TxWrite::Update { key: key(pk, hook_sk(&read.id)), update, cond: Some(cond), expr }
}

/// The writes that move a hook from `read` to (`status`, `failures`), its counters included.
fn hook_transition(read: &Hook, status: HookStatus, failures: u32) -> Vec<TxWrite> {
    let pk = ws_pk(&read.workspace_id);
    let mut writes = vec![set_hook_state(&pk, read, status, failures)];
    if status != read.status {
        writes.push(add(
            pk,
            COUNTERS_SK,
            &[(hook_counter(read.status).as_str(), -1), (hook_counter(status).as_str(), 1)],
        ));
    }
    writes
}

impl DynamoStore {
    async fn hook(&self, ws: &WorkspaceId, id: &HookId) -> StoreResult<Option<(Hook, String)>> {
        match self.get(&ws_pk(ws), &hook_sk(id)).await? {
            Some(i) => Ok(Some((hook_from(&i)?, get_s(&i, "guard").unwrap_or_default().to_owned()))),
            None => Ok(None),
        }
    }

    async fn hooks_of(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>> {
        self.listed(GSI1, &hooks_of(ws), false, 0, None).await?.iter().map(hook_from).collect()
    }

    /// Deletes a hook (conditioned on the state read), its target guard and its count.
    async fn delete_hook_read(&self, ws: &WorkspaceId, id: &HookId, audit: Option<&AuditEntry>) -> StoreResult<bool> {
        let pk = ws_pk(ws);
        for attempt in 0..MAX_ATTEMPTS {
            let Some((h, guard)) = self.hook(ws, id).await? else { return Ok(false) };
            let mut expr = Expr::new();
            let cond = hook_cond(&mut expr, &h);
            let mut gexpr = Expr::new();
            let gcond = format!(
                "attribute_not_exists({}) OR {} = {}",
                gexpr.a("pk"),
                gexpr.a("hook"),
                gexpr.v("hook", s(id.as_str()))
            );
            let mut writes = vec![
                TxWrite::Delete { key: key(&pk, hook_sk(id)), cond: Some(cond), expr },
                TxWrite::Delete { key: key(&pk, &guard), cond: Some(gcond), expr: gexpr },
                add(pk.clone(), COUNTERS_SK, &[(hook_counter(h.status).as_str(), -1)]),
            ];
            writes.extend(audit.map(audit_put));
            match self.transact(writes).await {
                Ok(()) => return Ok(true),
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("delete_hook"))
    }
}

#[async_trait]
impl HookStore for DynamoStore {
    async fn subscribe_recorded(
        &self,
        hook: &Hook,
        limit: u32,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>> {
        let pk = ws_pk(&hook.workspace_id);
        let target = target_of(hook);
        for attempt in 0..MAX_ATTEMPTS {
            // Find the guard of this target (a hash collision moves on to the next slot).
            let mut slot = 0;
            let existing = loop {
                let sk = target_sk(&target, slot);
                match self.get(&pk, &sk).await? {
                    Some(g) if get_s(&g, "target") == Some(target.as_str()) => {
                        break Some((sk, req_s(&g, "hook")?.to_owned()));
                    }
                    Some(_) => slot += 1,
                    None => break None,
                }
            };
            match existing {
                Some((_, id)) => {
                    let id = HookId::parse(&id).ok_or_else(|| malformed("hook id"))?;
                    let Some((h, _)) = self.hook(&hook.workspace_id, &id).await? else {
                        backoff(attempt).await;
                        continue;
                    };
                    // The entry names the subscription found, not the one asked for.
                    let entry = audit.map(|e| AuditEntry { target_id: id.to_string(), ..e.clone() });
                    if h.status == HookStatus::Active && h.consecutive_failures == 0 {
                        // Nothing to change: the entry is the only write.
                        if let Some(e) = &entry {
                            self.transact(vec![audit_put(e)]).await.map_err(|f| match f {
                                TxFailure::Store(e) => e,
                                _ => gave_up("subscribe"),
                            })?;
                        }
                        return Ok(Some(h));
                    }
                    let mut writes = hook_transition(&h, HookStatus::Active, 0);
                    writes.extend(entry.as_ref().map(audit_put));
                    match self.transact(writes).await {
                        Ok(()) => {
                            return Ok(Some(Hook { status: HookStatus::Active, consecutive_failures: 0, ..h }));
                        }
                        Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                        Err(TxFailure::Store(e)) => return Err(e),
                    }
                }
                None => {
                    // The cap: the counters as read must still hold when the insert commits.
                    let counters = self.get(&pk, COUNTERS_SK).await?;
                    let count = |status| counters.as_ref().map_or(0, |c| get_u(c, &hook_counter(status)));
                    let (active, disabled) = (count(HookStatus::Active), count(HookStatus::Disabled));
                    if active + disabled >= u64::from(limit) {
                        return Ok(None);
                    }
                    let sk = target_sk(&target, slot);
                    let mut guard = key(&pk, &sk);
                    guard.insert("target".into(), s(&target));
                    guard.insert("hook".into(), s(hook.id.as_str()));
                    let TxWrite::Update { key: ckey, update, mut expr, .. } =
                        add(pk.clone(), COUNTERS_SK, &[(hook_counter(hook.status).as_str(), 1)])
                    else {
                        unreachable!("add makes an update")
                    };
                    let unchanged = |expr: &mut Expr, status: HookStatus, seen: u64| {
                        let a = expr.a(&hook_counter(status));
                        let v = expr.v(&format!("seen_{}", status.as_str()), n(seen));
                        format!("(attribute_not_exists({a}) OR {a} = {v})")
                    };
                    let cond = format!(
                        "{} AND {}",
                        unchanged(&mut expr, HookStatus::Active, active),
                        unchanged(&mut expr, HookStatus::Disabled, disabled)
                    );
                    let mut writes = vec![
                        put_if_absent(hook_item(hook, &sk)),
                        put_if_absent(guard),
                        TxWrite::Update { key: ckey, update, cond: Some(cond), expr },
                    ];
                    writes.extend(audit.map(audit_put));
                    match self.transact(writes).await {
                        Ok(()) => return Ok(Some(hook.clone())),
                        Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                        Err(TxFailure::Store(e)) => return Err(e),
                    }
                }
            }
        }
        Err(gave_up("subscribe"))
    }

    async fn get_hook(&self, ws: &WorkspaceId, id: &HookId) -> StoreResult<Option<Hook>> {
        Ok(self.hook(ws, id).await?.map(|(h, _)| h))
    }

    async fn delete_hook_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool> {
        self.delete_hook_read(ws, id, audit).await
    }

    async fn delete_form_hooks(&self, ws: &WorkspaceId, form: &FormId) -> StoreResult<u64> {
        let mut deleted = 0;
        for h in self.hooks_of(ws).await?.into_iter().filter(|h| h.form_id.as_ref() == Some(form)) {
            if self.delete_hook_read(ws, &h.id, None).await? {
                deleted += 1;
            }
        }
        Ok(deleted)
    }

    async fn active_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>> {
        Ok(self.hooks_of(ws).await?.into_iter().filter(|h| h.status == HookStatus::Active).collect())
    }

    async fn list_hooks(&self, ws: &WorkspaceId) -> StoreResult<Vec<Hook>> {
        let mut hooks = self.hooks_of(ws).await?;
        hooks.sort_by(|a, b| b.created_at.cmp(&a.created_at).then_with(|| b.id.as_str().cmp(a.id.as_str())));
        Ok(hooks)
    }

    async fn record_outcome(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        succeeded: bool,
        disable_after: u32,
    ) -> StoreResult<Option<HookStatus>> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some((h, _)) = self.hook(ws, id).await? else { return Ok(None) };
            let (status, failures) = if succeeded {
                (h.status, 0)
            } else {
                let f = h.consecutive_failures + 1;
                (if f >= disable_after { HookStatus::Disabled } else { h.status }, f)
            };
            match self.transact(hook_transition(&h, status, failures)).await {
                Ok(()) => return Ok(Some(status)),
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("record_outcome"))
    }

    async fn rotate_secret_recorded(
        &self,
        ws: &WorkspaceId,
        id: &HookId,
        secret: &WebhookSecret,
        retiring_until: Timestamp,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<Option<Hook>> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some((h, _)) = self.hook(ws, id).await? else { return Ok(None) };
            // Conditioned on the secret read: two rotations at once cannot both retire it.
            let mut expr = Expr::new();
            let update = format!(
                "SET {} = {}, {} = {}, {} = {}",
                expr.a("secret"),
                expr.v("secret", s(secret.expose())),
                expr.a("retiringSecret"),
                expr.v("retiring", s(h.secret.expose())),
                expr.a("retiringUntil"),
                expr.v("until", n(retiring_until.millis()))
            );
            let cond = format!("{} = {}", expr.a("secret"), expr.v("read", s(h.secret.expose())));
            if let Some(e) = audit {
                // The rotation and its entry in one transaction (which returns no item: the
                // subscription afterwards is the one read, with the secrets swapped).
                let writes = vec![
                    TxWrite::Update { key: key(ws_pk(ws), hook_sk(id)), update, cond: Some(cond), expr },
                    audit_put(e),
                ];
                match self.transact(writes).await {
                    Ok(()) => {
                        let retiring = RetiringSecret { secret: h.secret.clone(), until: retiring_until };
                        return Ok(Some(Hook { secret: secret.clone(), retiring_secret: Some(retiring), ..h }));
                    }
                    Err(TxFailure::Condition(_) | TxFailure::Conflict) => {
                        backoff(attempt).await;
                        continue;
                    }
                    Err(TxFailure::Store(e)) => return Err(e),
                }
            }
            match self.update_if(key(ws_pk(ws), hook_sk(id)), update, cond, expr).await? {
                Some(item) if !item.is_empty() => return hook_from(&item).map(Some),
                _ => backoff(attempt).await,
            }
        }
        Err(gave_up("rotate_secret"))
    }

    async fn count_hooks(&self, ws: &WorkspaceId) -> StoreResult<HookCounts> {
        let c = self.get(&ws_pk(ws), COUNTERS_SK).await?;
        Ok(c.map_or(HookCounts::default(), |c| HookCounts {
            active: get_u(&c, &hook_counter(HookStatus::Active)),
            disabled: get_u(&c, &hook_counter(HookStatus::Disabled)),
        }))
    }
}

// ---- delivery items --------------------------------------------------------------------------

fn attempts_json(attempts: &[Attempt]) -> String {
    to_json(&AttemptRecord::list(attempts))
}

fn attempts_from(raw: &str) -> StoreResult<Vec<Attempt>> {
    from_json(raw, "delivery attempts").map(AttemptRecord::into_attempts).map_err(|e| malformed(&e.0))
}

fn delivery_item(d: &Delivery) -> Item {
    let sort = newest_first_key(d.created_at.millis(), d.id.as_str());
    let mut item = key(delivery_pk(&d.id), DELIVERY_SK);
    item.extend([
        ("gsi1pk".into(), s(deliveries_of_ws(&d.workspace_id))),
        ("gsi1sk".into(), s(&sort)),
        ("gsi2pk".into(), s(deliveries_of_hook(&d.hook_id))),
        ("gsi2sk".into(), s(sort)),
        ("id".into(), s(d.id.as_str())),
        ("ws".into(), s(d.workspace_id.as_str())),
        ("hook".into(), s(d.hook_id.as_str())),
        ("eventId".into(), s(d.event_id.as_str())),
        ("eventType".into(), s(d.event_type.as_str())),
        ("payload".into(), s(d.payload.as_str())),
        ("status".into(), s(d.status.as_str())),
        ("attemptLog".into(), s(attempts_json(&d.attempts))),
        ("roundStart".into(), n(d.round_start)),
        ("claim".into(), n(d.claim)),
        ("createdAt".into(), n(d.created_at.millis())),
    ]);
    if let Some(next) = d.next_attempt_at {
        item.insert("nextAttemptAt".into(), n(next.millis()));
        if d.status == DeliveryStatus::Pending {
            item.insert("leaseShard".into(), s(due_shard(&d.id)));
            item.insert("leaseUntil".into(), n(next.millis()));
        }
    }
    item
}

fn delivery_from(i: &Item) -> StoreResult<Delivery> {
    Ok(Delivery {
        id: DeliveryId::parse(req_s(i, "id")?).ok_or_else(|| malformed("delivery id"))?,
        workspace_id: WorkspaceId::parse(req_s(i, "ws")?).ok_or_else(|| malformed("workspace id"))?,
        hook_id: HookId::parse(req_s(i, "hook")?).ok_or_else(|| malformed("hook id"))?,
        event_id: EventId::parse(req_s(i, "eventId")?).ok_or_else(|| malformed("event id"))?,
        event_type: EventType::parse(req_s(i, "eventType")?).ok_or_else(|| malformed("event type"))?,
        payload: Envelope::parse(req_s(i, "payload")?).ok_or_else(|| malformed("delivery payload"))?,
        status: DeliveryStatus::parse(req_s(i, "status")?).ok_or_else(|| malformed("delivery status"))?,
        attempts: attempts_from(req_s(i, "attemptLog")?)?,
        next_attempt_at: get_i(i, "nextAttemptAt").map(Timestamp::from_millis),
        round_start: get_u(i, "roundStart") as u32,
        claim: get_u(i, "claim"),
        created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
    })
}

/// The counter writes of a delivery's status change (none when it does not change).
fn status_counters(d: &Delivery, from: Option<DeliveryStatus>, to: DeliveryStatus) -> Vec<TxWrite> {
    if from == Some(to) {
        return Vec::new();
    }
    let mut deltas = vec![(delivery_counter(to), 1)];
    if let Some(f) = from {
        deltas.push((delivery_counter(f), -1));
    }
    let deltas: Vec<(&str, i64)> = deltas.iter().map(|(a, d)| (a.as_str(), *d)).collect();
    let pk = ws_pk(&d.workspace_id);
    vec![add(pk.clone(), COUNTERS_SK, &deltas), add(pk, &hook_deliveries_sk(&d.hook_id), &deltas)]
}

impl DynamoStore {
    /// Claims one delivery: a conditional update, so one claimer wins.
    async fn claim(&self, id: &DeliveryId, now: Timestamp, lease: &Lease) -> StoreResult<Option<Delivery>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{st} = {pending} AND {next} <= {now} AND (attribute_not_exists({until}) OR {until} <= {now})",
            st = expr.a("status"),
            pending = expr.v("pending", s(DeliveryStatus::Pending.as_str())),
            next = expr.a("nextAttemptAt"),
            now = expr.v("now", n(now.millis())),
            until = expr.a("claimedUntil"),
        );
        let update = format!(
            "SET {owner} = {o}, {until} = {u}, {due} = {u} ADD {claim} {one}",
            owner = expr.a("leaseOwner"),
            o = expr.v("owner", s(&lease.owner)),
            until = expr.a("claimedUntil"),
            u = expr.v("until", n(lease.until.millis().max(now.millis()))),
            due = expr.a("leaseUntil"),
            claim = expr.a("claim"),
            one = expr.v("one", n(1)),
        );
        match self.update_if(key(delivery_pk(id), DELIVERY_SK), update, cond, expr).await? {
            Some(item) => Ok(Some(delivery_from(&item)?)),
            None => Ok(None),
        }
    }

    /// Up to `limit` entries of one due shard (`leaseUntil <= due_by` when given), oldest first.
    async fn due_entries(&self, shard: u32, due_by: Option<Timestamp>, limit: usize) -> StoreResult<Vec<Item>> {
        let mut expr = Expr::new();
        let mut cond = format!("{} = {}", expr.a("leaseShard"), expr.v("shard", s(format!("DUE#{shard}"))));
        if let Some(t) = due_by {
            cond = format!("{cond} AND {} <= {}", expr.a("leaseUntil"), expr.v("now", n(t.millis())));
        }
        self.query_key_range(LEASES, &cond, &expr, false, limit).await
    }
}

impl DynamoStore {
    /// Sets text attributes of an item that exists; `false` when it does not (any more).
    async fn set_texts(&self, pk: String, sk: &str, texts: &[(&str, String)]) -> StoreResult<bool> {
        let mut expr = Expr::new();
        let sets: Vec<String> = texts
            .iter()
            .enumerate()
            .map(|(i, (attr, text))| format!("{} = {}", expr.a(attr), expr.v(&format!("t{i}"), s(text))))
            .collect();
        let update = format!("SET {}", sets.join(", "));
        let cond = format!("attribute_exists({})", expr.a("pk"));
        Ok(self.update_if(key(pk, sk), update, cond, expr).await?.is_some())
    }

    /// Every delivery item of the workspace (its `DLVS#<ws>` partition of gsi1).
    async fn workspace_deliveries(&self, ws: &WorkspaceId) -> StoreResult<Vec<Item>> {
        self.listed(GSI1, &deliveries_of_ws(ws), true, 0, None).await
    }

    /// Replaces the payloads `(delivery id, payload)`; how many deliveries still existed.
    async fn set_payloads(&self, payloads: Vec<(String, String)>) -> StoreResult<u64> {
        let mut n = 0;
        for (id, payload) in payloads {
            if self.set_texts(format!("DLV#{id}"), DELIVERY_SK, &[("payload", payload)]).await? {
                n += 1;
            }
        }
        Ok(n)
    }
}

/// The erasure notices' type, which [`DeliveryStore::erase_traces`] leaves alone.
const NOTICE: EventType = EventType::PrivacyVisitorErased;

#[async_trait]
impl DeliveryStore for DynamoStore {
    async fn unfanned_events(&self, limit: u32) -> StoreResult<Vec<Event>> {
        let items = self.listed(GSI2, OUTBOX, false, 0, Some(u64::from(limit))).await?;
        items.iter().filter(|i| get_s(i, "gsi2pk") == Some(OUTBOX)).map(event_from).collect()
    }

    async fn create_deliveries(&self, event: &EventId, deliveries: &[Delivery]) -> StoreResult<u64> {
        let mut created = 0;
        for d in deliveries {
            let mut guard = key(fanout_pk(event), hook_sk(&d.hook_id));
            guard.insert("dlv".into(), s(d.id.as_str()));
            let new = transact_retrying(self, "create_deliveries", || {
                let mut writes = vec![put_if_absent(guard.clone()), put_if_absent(delivery_item(d))];
                writes.extend(status_counters(d, None, d.status));
                Ok(writes)
            })
            .await?;
            if new {
                created += 1;
            }
        }
        // Last: a crash before this leaves the event in the outbox, and the next fan-out adds
        // only the deliveries the guards do not have yet. Fanned out, the event goes: its
        // payload lives on in its deliveries only (an erasure scrubs those; docs/decisions.md,
        // "Privacy").
        match self
            .transact(vec![TxWrite::Delete { key: key(event_pk(event), EVENT_SK), cond: None, expr: Expr::new() }])
            .await
        {
            Ok(()) | Err(TxFailure::Condition(_)) => {}
            Err(TxFailure::Conflict) => return Err(gave_up("create_deliveries")),
            Err(TxFailure::Store(e)) => return Err(e),
        }
        Ok(created)
    }

    async fn get_delivery(&self, ws: &WorkspaceId, id: &DeliveryId) -> StoreResult<Option<Delivery>> {
        match self.get(&delivery_pk(id), DELIVERY_SK).await? {
            Some(i) if get_s(&i, "ws") == Some(ws.as_str()) => Ok(Some(delivery_from(&i)?)),
            _ => Ok(None),
        }
    }

    async fn list_deliveries(
        &self,
        ws: &WorkspaceId,
        filter: &DeliveryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Delivery>> {
        let counters_sk = match &filter.hook_id {
            Some(h) => hook_deliveries_sk(h),
            None => COUNTERS_SK.to_owned(),
        };
        let counters = self.get(&ws_pk(ws), &counters_sk).await?;
        let total = counters.map_or(0, |c| match filter.status {
            Some(st) => get_u(&c, &delivery_counter(st)),
            None => DELIVERY_STATUSES.iter().map(|st| get_u(&c, &delivery_counter(*st))).sum(),
        });
        let (index, pk) = match &filter.hook_id {
            Some(h) => (GSI2, deliveries_of_hook(h)),
            None => (GSI1, deliveries_of_ws(ws)),
        };
        let (offset, limit) = (page.offset(), u64::from(page.limit()));
        let items: Vec<Delivery> = match filter.status {
            // The status is not in the index: read the items and filter them (see the doc).
            Some(st) => {
                let keys = self.query_index(index, &format!("{index}pk"), &pk, true, None, 0, None).await?;
                let mut out = Vec::new();
                let mut skipped = 0;
                for chunk in keys.chunks(100) {
                    for i in self.batch_get(chunk.to_vec()).await? {
                        if get_s(&i, "ws") != Some(ws.as_str()) || get_s(&i, "status") != Some(st.as_str()) {
                            continue;
                        }
                        if skipped < offset {
                            skipped += 1;
                        } else if (out.len() as u64) < limit {
                            out.push(delivery_from(&i)?);
                        }
                    }
                    if out.len() as u64 >= limit {
                        break;
                    }
                }
                out
            }
            None => self
                .listed(index, &pk, true, offset, Some(limit))
                .await?
                .iter()
                .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
                .map(delivery_from)
                .collect::<StoreResult<_>>()?,
        };
        Ok(Page { items, total, request: page })
    }

    async fn claim_due(&self, now: Timestamp, limit: u32, lease: &Lease) -> StoreResult<Vec<Delivery>> {
        let page = (limit.saturating_mul(4)).clamp(16, 1000) as usize;
        let mut candidates: Vec<(i64, String)> = Vec::new();
        for shard in 0..LEASE_SHARDS {
            for e in self.due_entries(shard, Some(now), page).await? {
                if let Some(id) = get_s(&e, "id") {
                    candidates.push((get_i(&e, "leaseUntil").unwrap_or(0), id.to_owned()));
                }
            }
        }
        candidates.sort();
        let mut out = Vec::new();
        for (_, id) in candidates {
            if out.len() >= limit as usize {
                break;
            }
            let Some(id) = DeliveryId::parse(&id) else { continue };
            if let Some(d) = self.claim(&id, now, lease).await? {
                out.push(d);
            }
        }
        Ok(out)
    }

    async fn claim_one(&self, id: &DeliveryId, now: Timestamp, lease: &Lease) -> StoreResult<Option<Delivery>> {
        self.claim(id, now, lease).await
    }

    async fn record_attempt(&self, id: &DeliveryId, claim: u64, update: &DeliveryUpdate) -> StoreResult<bool> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some(item) = self.get(&delivery_pk(id), DELIVERY_SK).await? else { return Ok(false) };
            let d = delivery_from(&item)?;
            if d.claim != claim {
                return Ok(false);
            }
            let mut attempts = d.attempts.clone();
            attempts.extend(update.attempt.clone());
            let mut expr = Expr::new();
            let cond = format!("{} = {}", expr.a("claim"), expr.v("claim", n(claim)));
            let mut sets = vec![
                format!("{} = {}", expr.a("attemptLog"), expr.v("log", s(attempts_json(&attempts)))),
                format!("{} = {}", expr.a("status"), expr.v("status", s(update.status.as_str()))),
                format!("{} = {}", expr.a("claim"), expr.v("next", n(claim + 1))),
            ];
            let mut removes = vec![expr.a("leaseOwner"), expr.a("claimedUntil")];
            match update.next_attempt_at {
                Some(next) => {
                    sets.push(format!("{} = {}", expr.a("nextAttemptAt"), expr.v("nextAt", n(next.millis()))));
                    if update.status == DeliveryStatus::Pending {
                        sets.push(format!("{} = {}", expr.a("leaseShard"), expr.v("shard", s(due_shard(id)))));
                        sets.push(format!("{} = {}", expr.a("leaseUntil"), expr.v("due", n(next.millis()))));
                    } else {
                        removes.extend([expr.a("leaseShard"), expr.a("leaseUntil")]);
                    }
                }
                None => removes.extend([expr.a("nextAttemptAt"), expr.a("leaseShard"), expr.a("leaseUntil")]),
            }
            let set = format!("SET {} REMOVE {}", sets.join(", "), removes.join(", "));
            let mut writes =
                vec![TxWrite::Update { key: key(delivery_pk(id), DELIVERY_SK), update: set, cond: Some(cond), expr }];
            writes.extend(status_counters(&d, Some(d.status), update.status));
            match self.transact(writes).await {
                Ok(()) => return Ok(true),
                // Re-read: a changed claim answers `false`, a conflict retries.
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("record_attempt"))
    }

    async fn redeliver(&self, ws: &WorkspaceId, id: &DeliveryId, now: Timestamp) -> StoreResult<Option<Delivery>> {
        for attempt in 0..MAX_ATTEMPTS {
            let Some(d) = self.get_delivery(ws, id).await? else { return Ok(None) };
            let mut expr = Expr::new();
            let cond = format!("{} = {}", expr.a("claim"), expr.v("claim", n(d.claim)));
            let round_start = d.attempts.len() as u32;
            let update = format!(
                "SET {st} = {pending}, {next} = {now}, {due} = {now}, {shard} = {sh}, {round} = {r}, {claim} = {c} \
                 REMOVE {owner}, {until}",
                st = expr.a("status"),
                pending = expr.v("pending", s(DeliveryStatus::Pending.as_str())),
                next = expr.a("nextAttemptAt"),
                now = expr.v("now", n(now.millis())),
                due = expr.a("leaseUntil"),
                shard = expr.a("leaseShard"),
                sh = expr.v("shard", s(due_shard(id))),
                round = expr.a("roundStart"),
                r = expr.v("round", n(round_start)),
                claim = expr.a("claim"),
                c = expr.v("newClaim", n(d.claim + 1)),
                owner = expr.a("leaseOwner"),
                until = expr.a("claimedUntil"),
            );
            let mut writes =
                vec![TxWrite::Update { key: key(delivery_pk(id), DELIVERY_SK), update, cond: Some(cond), expr }];
            writes.extend(status_counters(&d, Some(d.status), DeliveryStatus::Pending));
            match self.transact(writes).await {
                Ok(()) => {
                    return Ok(Some(Delivery {
                        status: DeliveryStatus::Pending,
                        next_attempt_at: Some(now),
                        round_start,
                        claim: d.claim + 1,
                        ..d
                    }));
                }
                Err(TxFailure::Condition(_) | TxFailure::Conflict) => backoff(attempt).await,
                Err(TxFailure::Store(e)) => return Err(e),
            }
        }
        Err(gave_up("redeliver"))
    }

    async fn erase_traces(&self, ws: &WorkspaceId, trace: &ErasureTrace) -> StoreResult<ErasedTraces> {
        // Events: only the outbox keeps them (the fan-out deletes each one, its payload living on
        // in its deliveries), a partition of gsi2 read whole.
        let mut events = 0;
        for item in self.listed(GSI2, OUTBOX, false, 0, None).await? {
            if get_s(&item, "gsi2pk") != Some(OUTBOX)
                || get_s(&item, "ws") != Some(ws.as_str())
                || get_s(&item, "eventType") == Some(NOTICE.as_str())
            {
                continue;
            }
            let names = get_s(&item, "data")
                .and_then(|d| serde_json::from_str::<serde_json::Value>(d).ok())
                .is_some_and(|d| trace.names(&d));
            let Some(id) = get_s(&item, "id").and_then(EventId::parse) else { continue };
            let texts = [("data", erased_data().to_string()), ("metadata", "{}".to_owned())];
            if names && self.set_texts(event_pk(&id), EVENT_SK, &texts).await? {
                events += 1;
            }
        }
        let payloads: Vec<(String, String)> = self
            .workspace_deliveries(ws)
            .await?
            .iter()
            .filter(|i| get_s(i, "eventType") != Some(NOTICE.as_str()))
            .filter_map(|i| Some((get_s(i, "id")?.to_owned(), trace.scrub_envelope(get_s(i, "payload")?)?)))
            .collect();
        let deliveries = self.set_payloads(payloads).await?;
        Ok(ErasedTraces { events, deliveries })
    }

    async fn forget_erasure_notices(&self, ws: &WorkspaceId) -> StoreResult<u64> {
        // Notices are published to the event bus, never to the outbox: only deliveries keep them.
        let payloads: Vec<(String, String)> = self
            .workspace_deliveries(ws)
            .await?
            .iter()
            .filter(|i| {
                get_s(i, "eventType") == Some(NOTICE.as_str())
                    && get_s(i, "status") != Some(DeliveryStatus::Pending.as_str())
            })
            .filter_map(|i| Some((get_s(i, "id")?.to_owned(), scrub_any_envelope(get_s(i, "payload")?)?)))
            .collect();
        self.set_payloads(payloads).await
    }

    async fn release_claims(&self, not_owner: &str) -> StoreResult<u64> {
        let mut released = 0;
        for shard in 0..LEASE_SHARDS {
            for e in self.due_entries(shard, None, 1000).await? {
                let (Some(id), Some(owner)) = (get_s(&e, "id"), get_s(&e, "leaseOwner")) else { continue };
                if owner == not_owner {
                    continue;
                }
                let Some(id) = DeliveryId::parse(id) else { continue };
                let mut expr = Expr::new();
                let cond = format!("{} = {}", expr.a("leaseOwner"), expr.v("owner", s(owner)));
                let update = format!(
                    "SET {} = {} ADD {} {} REMOVE {}, {}",
                    expr.a("leaseUntil"),
                    expr.a("nextAttemptAt"),
                    expr.a("claim"),
                    expr.v("one", n(1)),
                    expr.a("leaseOwner"),
                    expr.a("claimedUntil")
                );
                if self.update_if(key(delivery_pk(&id), DELIVERY_SK), update, cond, expr).await?.is_some() {
                    released += 1;
                }
            }
        }
        Ok(released)
    }
}
