//! The request budgets on the table (docs/rate-limiting.md). An API key's window lives on the
//! key's own item (`KeyWindows`): one `UpdateItem` finds the key and counts the request. The
//! other buckets (`RateLimiter`) have one item each, `pk = RL#<bucket>` (`RL#chat-ip:<address>`,
//! `RL#chat-mind:<mindId>`, `RL#page-ip:<address>`), holding the current window's start and count,
//! expired by TTL.
//!
//! A request is one conditional `UpdateItem` in the common case: "count one more in the window
//! that started less than 60 s ago". When there is no such window, a second conditional update
//! starts one; when two requests race to start it, the loser counts in the winner's window.

use super::workspaces::{KEY_SK, api_key_from, exists, key_pk};
use super::{DynamoStore, Expr, Item, TTL_ATTRIBUTE, gave_up, get_i, key, malformed, n};
use async_trait::async_trait;
use lore_app::ports::{KeyCount, KeyWindows, RATE_WINDOW_MS, RateBucket, RateLimiter, RateWindow, StoreResult};
use lore_domain::Timestamp;
use lore_domain::api_key::KeyHash;

/// Items outlive their window by a minute; DynamoDB deletes them some time after that.
const TTL_SECS: i64 = 120;

fn rl_pk(bucket: &RateBucket) -> String {
    format!("RL#{}", bucket.name())
}
const RL_SK: &str = "RL";

#[async_trait]
impl RateLimiter for DynamoStore {
    async fn count(&self, api_key: &RateBucket, now: Timestamp) -> StoreResult<RateWindow> {
        let now_ms = now.millis();
        let since = now_ms - RATE_WINDOW_MS;
        for _ in 0..5 {
            // Count in the open window.
            let mut expr = Expr::new();
            let update = format!("ADD {} {}", expr.a("count"), expr.v("one", n(1)));
            let cond = format!("{} > {}", expr.a("windowStart"), expr.v("since", n(since)));
            if let Some(item) = self.update_if(key(rl_pk(api_key), RL_SK), update, cond, expr).await? {
                let start = get_i(&item, "windowStart").unwrap_or(now_ms);
                let count = small(&item, "count").unwrap_or(1);
                return Ok(RateWindow { start: Timestamp::from_millis(start), count });
            }
            // No open window: start one, unless another request just did.
            let mut expr = Expr::new();
            let update = format!(
                "SET {} = {}, {} = {}, {} = {}",
                expr.a("windowStart"),
                expr.v("now", n(now_ms)),
                expr.a("count"),
                expr.v("one", n(1)),
                expr.a(TTL_ATTRIBUTE),
                expr.v("ttl", n(now_ms / 1000 + TTL_SECS)),
            );
            let cond = format!(
                "attribute_not_exists({}) OR {} <= {}",
                expr.a("pk"),
                expr.a("windowStart"),
                expr.v("since", n(since))
            );
            if self.update_if(key(rl_pk(api_key), RL_SK), update, cond, expr).await?.is_some() {
                return Ok(RateWindow { start: now, count: 1 });
            }
        }
        Err(gave_up("rate limit window"))
    }
}

/// A stored count or limit, clamped to what the window rule compares.
fn small(item: &Item, attr: &str) -> Option<u32> {
    get_i(item, attr).map(|v| v.clamp(0, i64::from(u32::MAX)) as u32)
}

/// A key's window is three attributes of its item (`KEY#<hash>`): `windowStart` (ms),
/// `windowCount` and `windowLimit`, the workspace's limit when the window opened. They are not
/// projected into any index, so counting writes the item alone.
#[async_trait]
impl KeyWindows for DynamoStore {
    async fn count_request(&self, hash: &KeyHash, now: Timestamp) -> StoreResult<KeyCount> {
        let mut expr = Expr::new();
        let update = format!("ADD {} {}", expr.a("windowCount"), expr.v("one", n(1)));
        let cond = format!(
            "{} AND {} > {}",
            exists(&mut expr),
            expr.a("windowStart"),
            expr.v("since", n(now.millis() - RATE_WINDOW_MS))
        );
        match self.update_or_current(key(key_pk(hash.as_str()), KEY_SK), update, cond, expr).await? {
            Ok(item) => Ok(KeyCount::Counted {
                key: api_key_from(&item)?,
                window: RateWindow {
                    start: Timestamp::from_millis(get_i(&item, "windowStart").ok_or_else(|| malformed("windowStart"))?),
                    count: small(&item, "windowCount").ok_or_else(|| malformed("windowCount"))?,
                },
                limit_per_minute: small(&item, "windowLimit").ok_or_else(|| malformed("windowLimit"))?,
            }),
            Err(Some(item)) => Ok(KeyCount::Closed { key: api_key_from(&item)? }),
            Err(None) => Ok(KeyCount::Unknown),
        }
    }

    async fn open_window(&self, hash: &KeyHash, now: Timestamp, limit_per_minute: u32) -> StoreResult<bool> {
        let mut expr = Expr::new();
        let update = format!(
            "SET {} = {}, {} = {}, {} = {}",
            expr.a("windowStart"),
            expr.v("now", n(now.millis())),
            expr.a("windowCount"),
            expr.v("one", n(1)),
            expr.a("windowLimit"),
            expr.v("limit", n(limit_per_minute)),
        );
        let cond = format!(
            "{} AND (attribute_not_exists({}) OR {} <= {})",
            exists(&mut expr),
            expr.a("windowStart"),
            expr.a("windowStart"),
            expr.v("since", n(now.millis() - RATE_WINDOW_MS))
        );
        Ok(self.update_if(key(key_pk(hash.as_str()), KEY_SK), update, cond, expr).await?.is_some())
    }
}
