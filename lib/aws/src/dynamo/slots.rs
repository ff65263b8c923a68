//! Per-workspace concurrency budgets (`SlotStore`) on the table, shared by every Lambda
//! instance: one item per budget, `pk = SLOTS#<ws>`, `sk = answers | uploads`, holding `leases`
//! (a map of lease id → the lease's end, ms), `rev` (bumped by every write) and `expiresAt` (TTL,
//! an hour after the latest lease ends, so an abandoned budget's item goes by itself).
//!
//! Taking a slot reads the item (strongly consistent), counts the leases that have not ended,
//! and writes them back with the new one, on condition that `rev` is still the one read (a
//! racing take, renewal or give-back makes it read again). Ended leases are dropped by that
//! write, so the map never holds more than the limit. Renewing and giving back change one entry
//! on condition that it is there, and bump `rev` so that a take racing them cannot write back
//! the map it read before them.

use super::{DynamoStore, Expr, Item, MAX_ATTEMPTS, TTL_ATTRIBUTE, backoff, gave_up, get_i, key, n};
use async_trait::async_trait;
use aws_sdk_dynamodb::types::AttributeValue;
use lore_app::ports::{SlotBudget, SlotLease, SlotStore, StoreResult};
use lore_domain::Timestamp;
use std::collections::HashMap;

/// How long the item outlives its latest lease before DynamoDB may delete it.
const TTL_MARGIN_SECS: i64 = 3600;

fn slot_key(budget: &SlotBudget) -> Item {
    key(format!("SLOTS#{}", budget.workspace), budget.kind.as_str())
}

fn ends(v: &AttributeValue) -> Option<i64> {
    v.as_n().ok().and_then(|n| n.parse().ok())
}

#[async_trait]
impl SlotStore for DynamoStore {
    async fn take(
        &self,
        budget: &SlotBudget,
        limit: u32,
        lease: &SlotLease,
        now: Timestamp,
        until: Timestamp,
    ) -> StoreResult<bool> {
        let k = slot_key(budget);
        let pk = format!("SLOTS#{}", budget.workspace);
        for attempt in 0..MAX_ATTEMPTS {
            let item = self.get(&pk, budget.kind.as_str()).await?;
            let rev = item.as_ref().and_then(|i| get_i(i, "rev"));
            let mut live: HashMap<String, AttributeValue> = item
                .as_ref()
                .and_then(|i| i.get("leases"))
                .and_then(|v| v.as_m().ok())
                .map(|m| m.iter().filter(|(_, v)| ends(v).is_some_and(|e| e > now.millis())))
                .into_iter()
                .flatten()
                .map(|(id, v)| (id.clone(), v.clone()))
                .collect();
            if live.len() >= limit as usize {
                return Ok(false);
            }
            live.insert(lease.as_str().to_owned(), n(until.millis()));
            let latest = live.values().filter_map(ends).max().unwrap_or(until.millis());
            let mut expr = Expr::new();
            let update = format!(
                "SET {} = {}, {} = {}, {} = {}",
                expr.a("leases"),
                expr.v("leases", AttributeValue::M(live)),
                expr.a("rev"),
                expr.v("rev", n(rev.unwrap_or(0) + 1)),
                expr.a(TTL_ATTRIBUTE),
                expr.v("ttl", n(latest / 1000 + TTL_MARGIN_SECS)),
            );
            let cond = match rev {
                Some(read) => format!("{} = {}", expr.a("rev"), expr.v("read", n(read))),
                None => format!("attribute_not_exists({})", expr.a("rev")),
            };
            if self.update_if(k.clone(), update, cond, expr).await?.is_some() {
                return Ok(true);
            }
            backoff(attempt).await;
        }
        Err(gave_up("slot lease"))
    }

    async fn renew(&self, budget: &SlotBudget, lease: &SlotLease, until: Timestamp) -> StoreResult<bool> {
        let mut expr = Expr::new();
        let entry = format!("{}.{}", expr.a("leases"), expr.a(lease.as_str()));
        let update = format!(
            "SET {entry} = {}, {} = {} ADD {} {}",
            expr.v("until", n(until.millis())),
            expr.a(TTL_ATTRIBUTE),
            expr.v("ttl", n(until.millis() / 1000 + TTL_MARGIN_SECS)),
            expr.a("rev"),
            expr.v("one", n(1)),
        );
        let cond = format!("attribute_exists({entry})");
        Ok(self.update_if(slot_key(budget), update, cond, expr).await?.is_some())
    }

    async fn release(&self, budget: &SlotBudget, lease: &SlotLease) -> StoreResult<()> {
        let mut expr = Expr::new();
        let entry = format!("{}.{}", expr.a("leases"), expr.a(lease.as_str()));
        let update = format!("REMOVE {entry} ADD {} {}", expr.a("rev"), expr.v("one", n(1)));
        let cond = format!("attribute_exists({entry})");
        // A refused condition: the lease was already gone (given back, or ended and dropped).
        self.update_if(slot_key(budget), update, cond, expr).await?;
        Ok(())
    }
}
