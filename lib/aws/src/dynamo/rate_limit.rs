//! The request budgets on the table (docs/rate-limiting.md): one item per bucket,
//! `pk = RL#<keyId>` (or `RL#chat-ip:<address>`, `RL#chat-mind:<mindId>`), holding the current window's start and count, expired by TTL.
//!
//! A request is one conditional `UpdateItem` in the common case: "count one more in the window
//! that started less than 60 s ago". When there is no such window, a second conditional update
//! starts one; when two requests race to start it, the loser counts in the winner's window.

use super::{DynamoStore, Expr, TTL_ATTRIBUTE, gave_up, get_i, key, n};
use async_trait::async_trait;
use lore_app::ports::{RateBucket, RateDecision, RateLimiter, StoreResult};
use lore_domain::Timestamp;

const WINDOW_MS: i64 = 60_000;
/// Items outlive their window by a minute; DynamoDB deletes them some time after that.
const TTL_SECS: i64 = 120;

/// The window rule every rate-limiter adapter shares (the same as the embedded one's).
fn decide(window_start_ms: i64, count_after_hit: u32, limit: u32, now_ms: i64) -> RateDecision {
    if count_after_hit <= limit {
        RateDecision::Allowed
    } else {
        let remaining_ms = (window_start_ms + WINDOW_MS - now_ms).max(1);
        RateDecision::Limited { retry_after_secs: (remaining_ms as u64).div_ceil(1000) }
    }
}

fn rl_pk(bucket: &RateBucket) -> String {
    format!("RL#{}", bucket.name())
}
const RL_SK: &str = "RL";

#[async_trait]
impl RateLimiter for DynamoStore {
    async fn hit(&self, api_key: &RateBucket, limit: u32, now: Timestamp) -> StoreResult<RateDecision> {
        let now_ms = now.millis();
        let since = now_ms - WINDOW_MS;
        for _ in 0..5 {
            // Count in the open window.
            let mut expr = Expr::new();
            let update = format!("ADD {} {}", expr.a("count"), expr.v("one", n(1)));
            let cond = format!("{} > {}", expr.a("windowStart"), expr.v("since", n(since)));
            if let Some(item) = self.update_if(key(rl_pk(api_key), RL_SK), update, cond, expr).await? {
                let start = get_i(&item, "windowStart").unwrap_or(now_ms);
                let count = get_i(&item, "count").unwrap_or(1).clamp(0, i64::from(u32::MAX)) as u32;
                return Ok(decide(start, count, limit, now_ms));
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
                return Ok(decide(now_ms, 1, limit, now_ms));
            }
        }
        Err(gave_up("rate limit window"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_rule() {
        assert_eq!(decide(0, 3, 3, 10), RateDecision::Allowed);
        assert_eq!(decide(0, 4, 3, 500), RateDecision::Limited { retry_after_secs: 60 });
        assert_eq!(decide(0, 4, 3, 59_999), RateDecision::Limited { retry_after_secs: 1 });
    }
}
