//! Webhook deliveries (`DeliveryStore`) on [`SqliteStore`]: the fan-out of the event outbox and
//! the stored schedule of attempts. Claims are guarded UPDATEs in the single writer's
//! transaction, so two dispatchers never hold the same delivery.

use crate::events::{EVENT_COLS, event_from};
use crate::paging::paged;
use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::Lease;
use lore_app::ports::StoreResult;
use lore_app::ports::{DeliveryFilter, DeliveryStore, DeliveryUpdate, ErasedTraces};
use lore_domain::Timestamp;
use lore_domain::delivery::{Attempt, Delivery, DeliveryStatus, Envelope};
use lore_domain::event::{Event, EventType};
use lore_domain::id::{DeliveryId, EventId, HookId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::visitor_match::{ErasureTrace, erased_data, scrub_any_envelope};
use lore_records::{AttemptRecord, from_json, to_json};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, hook_id, event_id, event_type, payload, status, attempts, next_attempt_at, \
                    round_start, claim, created_at";

fn bad(what: &str) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(format!("malformed stored {what}"))
}

fn attempts_json(attempts: &[Attempt]) -> String {
    to_json(&AttemptRecord::list(attempts))
}

fn attempts_from(raw: &str) -> rusqlite::Result<Vec<Attempt>> {
    from_json(raw, "delivery attempts")
        .map(AttemptRecord::into_attempts)
        .map_err(|e| rusqlite::Error::InvalidColumnName(e.to_string()))
}

fn delivery_from(r: &Row<'_>) -> rusqlite::Result<Delivery> {
    Ok(Delivery {
        id: DeliveryId::parse(&r.get::<_, String>(0)?).ok_or_else(|| bad("delivery id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| bad("workspace id"))?,
        hook_id: HookId::parse(&r.get::<_, String>(2)?).ok_or_else(|| bad("hook id"))?,
        event_id: EventId::parse(&r.get::<_, String>(3)?).ok_or_else(|| bad("event id"))?,
        event_type: EventType::parse(&r.get::<_, String>(4)?).ok_or_else(|| bad("event type"))?,
        payload: Envelope::parse(r.get_ref(5)?.as_str().map_err(|_| bad("delivery payload"))?)
            .ok_or_else(|| bad("delivery payload"))?,
        status: DeliveryStatus::parse(&r.get::<_, String>(6)?).ok_or_else(|| bad("delivery status"))?,
        attempts: attempts_from(&r.get::<_, String>(7)?)?,
        next_attempt_at: r.get::<_, Option<i64>>(8)?.map(Timestamp::from_millis),
        round_start: r.get(9)?,
        claim: r.get::<_, i64>(10)? as u64,
        created_at: Timestamp::from_millis(r.get(11)?),
    })
}

/// Claims the due, unclaimed pending deliveries among those `scope` selects.
const CLAIM: &str = "UPDATE deliveries SET claim = claim + 1, claim_owner = ?2, claimed_until = ?3
     WHERE id IN (SELECT id FROM deliveries WHERE status = 'pending' AND next_attempt_at <= ?1
                  AND (claimed_until IS NULL OR claimed_until <= ?1) AND {scope}
                  ORDER BY next_attempt_at, id LIMIT ?4)";

/// The erasure notices' type, which [`DeliveryStore::erase_traces`] leaves alone.
const NOTICE: &str = "privacy.visitor.erased";

/// Replaces the `data` of the events `ids` by the erased one (and their `metadata` by `{}`).
fn scrub_events(tx: &Connection, ids: &[String]) -> rusqlite::Result<u64> {
    let mut st = tx.prepare_cached("UPDATE events SET data = ?2, metadata = '{}' WHERE id = ?1")?;
    let erased = erased_data().to_string();
    let mut n = 0;
    for id in ids {
        n += st.execute(params![id, erased])? as u64;
    }
    Ok(n)
}

/// Sets the payloads of deliveries: `(id, payload)`.
fn set_payloads(tx: &Connection, payloads: &[(String, String)]) -> rusqlite::Result<u64> {
    let mut st = tx.prepare_cached("UPDATE deliveries SET payload = ?2 WHERE id = ?1")?;
    let mut n = 0;
    for (id, payload) in payloads {
        n += st.execute(params![id, payload])? as u64;
    }
    Ok(n)
}

/// `(id, text)` of the rows `sql` selects with `ws` as its one parameter.
fn pairs(tx: &Connection, sql: &str, ws: &str) -> rusqlite::Result<Vec<(String, String)>> {
    let mut st = tx.prepare(sql)?;
    let rows = st.query_map([ws], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    rows.collect()
}

#[async_trait]
impl DeliveryStore for SqliteStore {
    async fn unfanned_events(&self, limit: u32) -> StoreResult<Vec<Event>> {
        self.read(move |c| {
            let mut st = c
                .prepare_cached(&format!(
                    "SELECT {EVENT_COLS} FROM events WHERE fanned_out_at IS NULL ORDER BY id LIMIT ?1"
                ))
                .map_err(unavailable)?;
            let rows = st.query_map([i64::from(limit)], event_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn create_deliveries(&self, event: &EventId, deliveries: &[Delivery]) -> StoreResult<u64> {
        let (event, deliveries) = (event.clone(), deliveries.to_vec());
        self.write(move |tx| {
            let mut created = 0;
            let mut insert = tx
                .prepare_cached(&format!(
                    "INSERT OR IGNORE INTO deliveries ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                ))
                .map_err(unavailable)?;
            for d in &deliveries {
                // (event_id, hook_id) is unique: a second fan-out of the same event adds nothing.
                created += insert
                    .execute(params![
                            d.id.as_str(),
                            d.workspace_id.as_str(),
                            d.hook_id.as_str(),
                            d.event_id.as_str(),
                            d.event_type.as_str(),
                            d.payload.as_str(),
                            d.status.as_str(),
                            attempts_json(&d.attempts),
                            d.next_attempt_at.map(Timestamp::millis),
                            d.round_start,
                            d.claim as i64,
                        d.created_at.millis()
                    ])
                    .map_err(unavailable)? as u64;
            }
            tx.prepare_cached("UPDATE events SET fanned_out_at = ?2 WHERE id = ?1 AND fanned_out_at IS NULL")
                .and_then(|mut st| st.execute(params![event.as_str(), Timestamp::now().millis()]))
                .map_err(unavailable)?;
            Ok(created)
        })
        .await
    }

    async fn get_delivery(&self, ws: &WorkspaceId, id: &DeliveryId) -> StoreResult<Option<Delivery>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!("SELECT {COLS} FROM deliveries WHERE id = ?1 AND workspace_id = ?2"))
                .and_then(|mut st| st.query_row([id.as_str(), ws.as_str()], delivery_from).optional())
                .map_err(unavailable)
        })
        .await
    }

    async fn list_deliveries(
        &self,
        ws: &WorkspaceId,
        filter: &DeliveryFilter,
        page: PageRequest,
    ) -> StoreResult<Page<Delivery>> {
        let ws = ws.clone();
        let hook = filter.hook_id.as_ref().map(|h| h.as_str().to_owned());
        let status = filter.status.map(DeliveryStatus::as_str);
        self.read(move |c| {
            let scope = "workspace_id = ?1 AND (?2 IS NULL OR hook_id = ?2) AND (?3 IS NULL OR status = ?3)";
            paged(
                c,
                &format!("SELECT COUNT(*) FROM deliveries WHERE {scope}"),
                &format!(
                    "SELECT {COLS} FROM deliveries WHERE {scope} ORDER BY created_at DESC, id DESC LIMIT ?4 OFFSET ?5"
                ),
                &[&ws.as_str(), &hook, &status],
                page,
                delivery_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn claim_due(&self, now: Timestamp, limit: u32, lease: &Lease) -> StoreResult<Vec<Delivery>> {
        let lease = lease.clone();
        self.write(move |tx| {
            let sql = format!("{} RETURNING {COLS}", CLAIM.replace("{scope}", "1 = 1"));
            let mut st = tx.prepare_cached(&sql).map_err(unavailable)?;
            let args = params![now.millis(), lease.owner, lease.until.millis(), i64::from(limit)];
            let rows = st.query_map(args, delivery_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn claim_one(&self, id: &DeliveryId, now: Timestamp, lease: &Lease) -> StoreResult<Option<Delivery>> {
        let (id, lease) = (id.clone(), lease.clone());
        self.write(move |tx| {
            let sql = format!("{} RETURNING {COLS}", CLAIM.replace("{scope}", "id = ?5"));
            let args = params![now.millis(), lease.owner, lease.until.millis(), 1, id.as_str()];
            tx.query_row(&sql, args, delivery_from).optional().map_err(unavailable)
        })
        .await
    }

    async fn record_attempt(&self, id: &DeliveryId, claim: u64, update: &DeliveryUpdate) -> StoreResult<bool> {
        let (id, update) = (id.clone(), update.clone());
        self.write(move |tx| {
            let held: Option<String> = tx
                .prepare_cached("SELECT attempts FROM deliveries WHERE id = ?1 AND claim = ?2")
                .and_then(|mut st| st.query_row(params![id.as_str(), claim as i64], |r| r.get(0)).optional())
                .map_err(unavailable)?;
            let Some(raw) = held else { return Ok(false) };
            let mut attempts = attempts_from(&raw).map_err(unavailable)?;
            attempts.extend(update.attempt.clone());
            tx.prepare_cached(
                "UPDATE deliveries SET attempts = ?3, status = ?4, next_attempt_at = ?5,
                     claim = claim + 1, claim_owner = NULL, claimed_until = NULL
                 WHERE id = ?1 AND claim = ?2",
            )
            .and_then(|mut st| {
                st.execute(params![
                    id.as_str(),
                    claim as i64,
                    attempts_json(&attempts),
                    update.status.as_str(),
                    update.next_attempt_at.map(Timestamp::millis)
                ])
            })
            .map_err(unavailable)?;
            Ok(true)
        })
        .await
    }

    async fn redeliver(&self, ws: &WorkspaceId, id: &DeliveryId, now: Timestamp) -> StoreResult<Option<Delivery>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.write(move |tx| {
            tx.query_row(
                &format!(
                    "UPDATE deliveries SET status = 'pending', next_attempt_at = ?3,
                         round_start = json_array_length(attempts), claim = claim + 1,
                         claim_owner = NULL, claimed_until = NULL
                     WHERE id = ?1 AND workspace_id = ?2 RETURNING {COLS}"
                ),
                params![id.as_str(), ws.as_str(), now.millis()],
                delivery_from,
            )
            .optional()
            .map_err(unavailable)
        })
        .await
    }

    async fn erase_traces(&self, ws: &WorkspaceId, trace: &ErasureTrace) -> StoreResult<ErasedTraces> {
        let (ws, trace) = (ws.clone(), trace.clone());
        let erased = self
            .write(move |tx| {
                let run = || -> rusqlite::Result<ErasedTraces> {
                    let events: Vec<String> = pairs(
                        tx,
                        &format!("SELECT id, data FROM events WHERE workspace_id = ?1 AND type != '{NOTICE}'"),
                        ws.as_str(),
                    )?
                    .into_iter()
                    .filter(|(_, data)| serde_json::from_str(data).is_ok_and(|v| trace.names(&v)))
                    .map(|(id, _)| id)
                    .collect();
                    let payloads: Vec<(String, String)> = pairs(
                        tx,
                        &format!(
                            "SELECT id, payload FROM deliveries WHERE workspace_id = ?1 AND event_type != '{NOTICE}'"
                        ),
                        ws.as_str(),
                    )?
                    .into_iter()
                    .filter_map(|(id, payload)| trace.scrub_envelope(&payload).map(|p| (id, p)))
                    .collect();
                    Ok(ErasedTraces { events: scrub_events(tx, &events)?, deliveries: set_payloads(tx, &payloads)? })
                };
                run().map_err(unavailable)
            })
            .await;
        // The last step of an erasure: the WAL still holds the pages as they were before it.
        self.forget_overwritten().await;
        erased
    }

    async fn forget_erasure_notices(&self, ws: &WorkspaceId) -> StoreResult<u64> {
        let ws = ws.clone();
        let scrubbed = self
            .write(move |tx| {
                let run = || -> rusqlite::Result<u64> {
                    let events: Vec<String> = pairs(
                        tx,
                        &format!(
                            "SELECT id, data FROM events WHERE workspace_id = ?1 AND type = '{NOTICE}'
                         AND fanned_out_at IS NOT NULL"
                        ),
                        ws.as_str(),
                    )?
                    .into_iter()
                    .filter(|(_, data)| serde_json::from_str::<serde_json::Value>(data).ok() != Some(erased_data()))
                    .map(|(id, _)| id)
                    .collect();
                    let payloads: Vec<(String, String)> = pairs(
                        tx,
                        &format!(
                            "SELECT id, payload FROM deliveries WHERE workspace_id = ?1 AND event_type = '{NOTICE}'
                         AND status != 'pending'"
                        ),
                        ws.as_str(),
                    )?
                    .into_iter()
                    .filter_map(|(id, payload)| scrub_any_envelope(&payload).map(|p| (id, p)))
                    .collect();
                    Ok(scrub_events(tx, &events)? + set_payloads(tx, &payloads)?)
                };
                run().map_err(unavailable)
            })
            .await?;
        if scrubbed > 0 {
            // The notice named the person: its earlier page versions go from the WAL too.
            self.forget_overwritten().await;
        }
        Ok(scrubbed)
    }

    async fn release_claims(&self, not_owner: &str) -> StoreResult<u64> {
        let owner = not_owner.to_owned();
        self.write(move |tx| {
            // The claim token moves on too: should the old holder still be alive, its result
            // is not recorded over the new attempt's.
            let n = tx
                .execute(
                    "UPDATE deliveries SET claim = claim + 1, claim_owner = NULL, claimed_until = NULL
                     WHERE claimed_until IS NOT NULL AND (claim_owner IS NULL OR claim_owner != ?1)",
                    [owner],
                )
                .map_err(unavailable)?;
            Ok(n as u64)
        })
        .await
    }
}
