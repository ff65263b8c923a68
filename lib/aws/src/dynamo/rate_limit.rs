//! The request budgets on the table (docs/rate-limiting.md): one item per bucket,
//! `pk = RL#<keyId>` (or `RL#chat-ip:<address>`, `RL#chat-mind:<mindId>`), holding the current window's start and count, expired by TTL.
//!
//! A request is one conditional `UpdateItem` in the common case: "count one more in the window
//! that started less than 60 s ago". When there is no such window, a second conditional update
//! starts one; when two requests race to start it, the loser counts in the winner's window.

use super::{DynamoStore, Expr, TTL_ATTRIBUTE, gave_up, get_i, key, n};
use async_trait::async_trait;
use lore_app::ports::{RATE_WINDOW_MS, RateBucket, RateLimiter, RateWindow, StoreResult};
use lore_domain::Timestamp;

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
                let count = get_i(&item, "count").unwrap_or(1).clamp(0, i64::from(u32::MAX)) as u32;
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
