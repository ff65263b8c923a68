//! In-process rate limiting (per key, per public-chat address and Mind) for `lore serve`, where one process serves the data dir.
//!
//! Fixed one-minute windows that start at a key's first request: the first `limit` requests of
//! a window pass, the rest get the seconds until the window ends. The AWS composition keeps the
//! same windows in DynamoDB so that all Lambda instances share one budget (docs/rate-limiting.md).

use async_trait::async_trait;
use lore_app::ports::{RATE_WINDOW_MS, RateBucket, RateLimiter, RateWindow, StoreResult};
use lore_domain::Timestamp;
use std::collections::HashMap;
use std::sync::Mutex;

#[derive(Default)]
pub struct MemoryRateLimiter {
    windows: Mutex<HashMap<RateBucket, (i64, u32)>>,
}

impl MemoryRateLimiter {
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl RateLimiter for MemoryRateLimiter {
    async fn count(&self, key: &RateBucket, now: Timestamp) -> StoreResult<RateWindow> {
        let now_ms = now.millis();
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() > 100_000 {
            windows.retain(|_, (start, _)| now_ms - *start < RATE_WINDOW_MS);
        }
        let w = windows.entry(key.clone()).or_insert((now_ms, 0));
        if now_ms - w.0 >= RATE_WINDOW_MS {
            *w = (now_ms, 0);
        }
        w.1 = w.1.saturating_add(1);
        Ok(RateWindow { start: Timestamp::from_millis(w.0), count: w.1 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_app::ports::RateDecision;

    #[tokio::test]
    async fn first_n_pass_then_limited_until_window_ends() {
        let rl = MemoryRateLimiter::new();
        let key = RateBucket::Key(lore_domain::id::ApiKeyId::generate());
        let t0 = 1_000_000;
        for i in 0..3 {
            assert_eq!(rl.hit(&key, 3, Timestamp::from_millis(t0 + i)).await.unwrap(), RateDecision::Allowed);
        }
        assert_eq!(
            rl.hit(&key, 3, Timestamp::from_millis(t0 + 500)).await.unwrap(),
            RateDecision::Limited { retry_after_secs: 60 }
        );
        assert_eq!(
            rl.hit(&key, 3, Timestamp::from_millis(t0 + 59_999)).await.unwrap(),
            RateDecision::Limited { retry_after_secs: 1 }
        );
        assert_eq!(rl.hit(&key, 3, Timestamp::from_millis(t0 + 60_000)).await.unwrap(), RateDecision::Allowed);
        // Another key has its own budget.
        assert_eq!(
            rl.hit(&RateBucket::Key(lore_domain::id::ApiKeyId::generate()), 3, Timestamp::from_millis(t0 + 1))
                .await
                .unwrap(),
            RateDecision::Allowed
        );
    }
}
