//! Webhook deliveries (docs/api.md §13, §16.5, §16.16): one event to one subscription, its
//! attempts, and the retry schedule that decides when the next one is due.

use crate::error::DomainError;
use crate::event::{Event, EventType};
use crate::hook::Hook;
use crate::id::{DeliveryId, EventId, HookId, WorkspaceId};
use crate::time::Timestamp;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub const MAX_RETRIES: usize = 10;
pub const MAX_RETRY_DELAY: Duration = Duration::from_secs(7 * 24 * 3600);

/// The delays between attempts: entry `n` is the wait after the `n+1`-th failed attempt. One
/// attempt more than there are entries is made in all (default `1m,5m,30m`: 4 attempts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetrySchedule(Vec<Duration>);

impl Default for RetrySchedule {
    fn default() -> Self {
        Self(vec![Duration::from_secs(60), Duration::from_secs(300), Duration::from_secs(1800)])
    }
}

impl RetrySchedule {
    /// Parses `1m,5m,30m`: comma-separated integers with a unit of `ms`, `s`, `m` or `h`.
    pub fn parse(s: &str) -> Result<Self, DomainError> {
        let refuse = |why: String| DomainError::field("LORE_WEBHOOK_RETRY_SCHEDULE", why);
        let mut delays = Vec::new();
        for part in s.split(',').map(str::trim) {
            let split = part.find(|c: char| !c.is_ascii_digit()).unwrap_or(part.len());
            let (n, unit) = part.split_at(split);
            let n: u64 = n.parse().map_err(|_| refuse(format!("'{part}' is not a duration such as 30s or 5m")))?;
            let d = match unit {
                "ms" => Duration::from_millis(n),
                "s" => Duration::from_secs(n),
                "m" => Duration::from_secs(n.saturating_mul(60)),
                "h" => Duration::from_secs(n.saturating_mul(3600)),
                _ => return Err(refuse(format!("'{part}' needs a unit: ms, s, m or h"))),
            };
            if d > MAX_RETRY_DELAY {
                return Err(refuse(format!("'{part}' is longer than 7 days")));
            }
            delays.push(d);
        }
        if delays.len() > MAX_RETRIES {
            return Err(refuse(format!("at most {MAX_RETRIES} retries")));
        }
        Ok(Self(delays))
    }

    /// Attempts in all: the first one and one per retry.
    pub fn max_attempts(&self) -> u32 {
        self.0.len() as u32 + 1
    }

    /// The wait after failed attempt number `n` (1-based); `None` when it was the last.
    pub fn delay_after(&self, n: u32) -> Option<Duration> {
        n.checked_sub(1).and_then(|i| self.0.get(i as usize)).copied()
    }
}

impl fmt::Display for RetrySchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|d| format!("{}ms", d.as_millis())).collect();
        f.write_str(&parts.join(","))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeliveryStatus {
    /// Waiting for its next attempt (`nextAttemptAt`).
    Pending,
    Succeeded,
    /// Out of attempts, answered 410, or its subscription is gone.
    Failed,
}

impl DeliveryStatus {
    pub const ALL: [DeliveryStatus; 3] = [DeliveryStatus::Pending, DeliveryStatus::Succeeded, DeliveryStatus::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// One POST of a delivery and how it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub at: Timestamp,
    /// The receiver's HTTP status; `None` when there was no answer.
    pub status_code: Option<u16>,
    /// Why the attempt failed when the status alone does not say it.
    pub error: Option<String>,
    pub duration_ms: u64,
}

/// How the receiver answered one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The receiver's status, and the wait its `Retry-After` asked for (429 and 503 only).
    Status(u16, Option<Duration>),
    /// No HTTP answer: timeout, refused connection, blocked address, …
    None(String),
}

/// What an attempt means for the subscription.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEffect {
    /// The delivery succeeded: the failure streak ends.
    Succeeded,
    /// The delivery ended `failed`: one more in the streak.
    Failed,
    /// `410 Gone`: the receiver asks to be unsubscribed.
    Gone,
    /// A retry is scheduled: nothing is decided yet.
    Undecided,
}

/// The new state of a delivery after an attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AfterAttempt {
    pub attempt: Attempt,
    pub status: DeliveryStatus,
    pub next_attempt_at: Option<Timestamp>,
    pub hook: HookEffect,
}

/// An event's envelope as the JSON text its deliveries POST and sign on every attempt. Written
/// once per event and shared by the event's deliveries; stored and sent as it is, so claiming
/// a delivery does not parse it and sending it does not write it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope(Arc<str>);

impl Envelope {
    pub fn of(event: &Event) -> Self {
        Self(event.envelope().to_string().into())
    }

    /// Stored text, when it is JSON (checked without building it).
    pub fn parse(text: &str) -> Option<Self> {
        serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
        Some(Self(text.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    pub id: DeliveryId,
    pub workspace_id: WorkspaceId,
    pub hook_id: HookId,
    pub event_id: EventId,
    pub event_type: EventType,
    /// The envelope, sent unchanged on every attempt.
    pub payload: Envelope,
    pub status: DeliveryStatus,
    /// Oldest first.
    pub attempts: Vec<Attempt>,
    pub next_attempt_at: Option<Timestamp>,
    pub created_at: Timestamp,
    /// Attempts made before the current round: a redelivery starts a round with a fresh budget.
    pub round_start: u32,
    /// Bumped by every claim; an attempt is recorded only under the claim it was made with.
    pub claim: u64,
}

impl Delivery {
    /// A new delivery of `event` (whose envelope is `payload`) to `hook`, due at once.
    pub fn new(hook: &Hook, event: &Event, payload: Envelope, now: Timestamp) -> Self {
        Self {
            id: DeliveryId::generate(),
            workspace_id: event.workspace_id.clone(),
            hook_id: hook.id.clone(),
            event_id: event.id.clone(),
            event_type: event.event_type,
            payload,
            status: DeliveryStatus::Pending,
            attempts: Vec::new(),
            next_attempt_at: Some(now),
            created_at: now,
            round_start: 0,
            claim: 0,
        }
    }

    /// Attempts made in the current round.
    pub fn attempts_in_round(&self) -> u32 {
        (self.attempts.len() as u32).saturating_sub(self.round_start)
    }

    /// Decides what an attempt that started `at` and ended `finished` means (docs/api.md §13):
    /// 2xx succeeds; 410 fails at once and removes the subscription; anything else is retried
    /// on `schedule` until the round's attempts are used up.
    /// The attempt's record and what follows it: the next attempt on the `schedule`, but never
    /// sooner than the receiver's `Retry-After` (at most `max_retry_after`), which delays the
    /// retry without adding one.
    pub fn after_attempt(
        &self,
        answer: Answer,
        at: Timestamp,
        finished: Timestamp,
        schedule: &RetrySchedule,
        max_retry_after: Duration,
    ) -> AfterAttempt {
        let duration_ms = (finished.millis() - at.millis()).max(0) as u64;
        let mut asked_wait = None;
        let (status_code, error) = match answer {
            Answer::Status(s, _) if (300..400).contains(&s) => {
                (Some(s), Some(format!("answered {s}; redirects are not followed")))
            }
            Answer::Status(410, _) => (Some(410), Some("answered 410 Gone; the subscription was removed".to_owned())),
            Answer::Status(s, retry_after) => {
                asked_wait = retry_after.map(|w| w.min(max_retry_after));
                (Some(s), None)
            }
            Answer::None(why) => (None, Some(why)),
        };
        let attempt = Attempt { at, status_code, error, duration_ms };
        let (status, next_attempt_at, hook) = match status_code {
            Some(s) if (200..300).contains(&s) => (DeliveryStatus::Succeeded, None, HookEffect::Succeeded),
            Some(410) => (DeliveryStatus::Failed, None, HookEffect::Gone),
            _ => match schedule.delay_after(self.attempts_in_round() + 1) {
                Some(wait) => (
                    DeliveryStatus::Pending,
                    Some(Timestamp::from_millis(
                        finished.millis() + wait.max(asked_wait.unwrap_or_default()).as_millis() as i64,
                    )),
                    HookEffect::Undecided,
                ),
                None => (DeliveryStatus::Failed, None, HookEffect::Failed),
            },
        };
        AfterAttempt { attempt, status, next_attempt_at, hook }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::{HookFilter, HookTarget};

    fn delivery() -> Delivery {
        let ws = WorkspaceId::generate();
        let target = HookTarget::new(HookFilter::FormResponse, None, None).unwrap();
        let hook = Hook::new(ws.clone(), "https://example.com".into(), target, Timestamp::now());
        let event = Event::new(EventType::FormResponse, ws, serde_json::json!({}));
        Delivery::new(&hook, &event, Envelope::of(&event), Timestamp::now())
    }

    const MAX_WAIT: Duration = Duration::from_secs(3600);

    #[test]
    fn an_envelope_is_the_events_json_and_only_json_is_read_back() {
        let data = serde_json::json!({ "answer": "naïve \"quoted\"\n", "n": 3 });
        let event = Event::new(EventType::FormResponse, WorkspaceId::generate(), data);
        let envelope = Envelope::of(&event);
        let sent: serde_json::Value = serde_json::from_str(envelope.as_str()).unwrap();
        assert_eq!(sent, event.envelope());
        assert_eq!(Envelope::parse(envelope.as_str()), Some(envelope));
        for broken in ["", "{\"eventType\": ", "{} {}", "not json"] {
            assert_eq!(Envelope::parse(broken), None, "{broken:?}");
        }
    }

    #[test]
    fn retry_after_delays_the_next_attempt_without_adding_one() {
        let s = RetrySchedule::parse("1s,1s").unwrap();
        let (t0, t1) = (Timestamp::from_millis(1_000), Timestamp::from_millis(1_100));
        let d = delivery();
        // Longer than the schedule: honoured. Shorter: the schedule wins. Beyond the cap: capped.
        let slow = d.after_attempt(Answer::Status(503, Some(Duration::from_secs(30))), t0, t1, &s, MAX_WAIT);
        assert_eq!(slow.next_attempt_at, Some(Timestamp::from_millis(1_100 + 30_000)));
        let quick = d.after_attempt(Answer::Status(429, Some(Duration::from_millis(10))), t0, t1, &s, MAX_WAIT);
        assert_eq!(quick.next_attempt_at, Some(Timestamp::from_millis(1_100 + 1_000)));
        let huge = d.after_attempt(Answer::Status(503, Some(Duration::from_secs(1 << 40))), t0, t1, &s, MAX_WAIT);
        assert_eq!(huge.next_attempt_at, Some(Timestamp::from_millis(1_100 + 3_600_000)));
        assert_eq!(slow.status, DeliveryStatus::Pending);
    }

    #[test]
    fn schedules_parse() {
        let d = RetrySchedule::default();
        assert_eq!(RetrySchedule::parse("1m,5m,30m").unwrap(), d);
        assert_eq!(d.max_attempts(), 4);
        assert_eq!(
            (d.delay_after(1), d.delay_after(3), d.delay_after(4)),
            (Some(Duration::from_secs(60)), Some(Duration::from_secs(1800)), None)
        );
        let short = RetrySchedule::parse(" 1s, 250ms ,2h").unwrap();
        assert_eq!(short.delay_after(2), Some(Duration::from_millis(250)));
        assert_eq!(RetrySchedule::parse(&short.to_string()).unwrap(), short, "round-trips");
        for bad in ["", "1", "1d", "s", "-1s", "1s,,2s", "8000h", "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s"] {
            assert!(RetrySchedule::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn attempts_follow_the_contract() {
        let s = RetrySchedule::parse("1s,5s,30s").unwrap();
        let (t0, t1) = (Timestamp::from_millis(1_000), Timestamp::from_millis(1_250));
        let mut d = delivery();

        let ok = d.after_attempt(Answer::Status(204, None), t0, t1, &s, MAX_WAIT);
        assert_eq!((ok.status, ok.next_attempt_at, ok.hook), (DeliveryStatus::Succeeded, None, HookEffect::Succeeded));
        assert_eq!(ok.attempt, Attempt { at: t0, status_code: Some(204), error: None, duration_ms: 250 });

        let mut waits = Vec::new();
        for _ in 0..3 {
            let r = d.after_attempt(Answer::Status(500, None), t0, t1, &s, MAX_WAIT);
            assert_eq!((r.status, r.hook), (DeliveryStatus::Pending, HookEffect::Undecided));
            waits.push(r.next_attempt_at.unwrap().millis() - t1.millis());
            d.attempts.push(r.attempt);
        }
        assert_eq!(waits, [1_000, 5_000, 30_000], "retries after each failure, in order");
        let last = d.after_attempt(Answer::None("timed out".into()), t0, t1, &s, MAX_WAIT);
        assert_eq!((last.status, last.hook, last.next_attempt_at), (DeliveryStatus::Failed, HookEffect::Failed, None));
        assert_eq!(last.attempt.error.as_deref(), Some("timed out"));

        d.round_start = 4;
        assert_eq!(
            d.after_attempt(Answer::Status(500, None), t0, t1, &s, MAX_WAIT).status,
            DeliveryStatus::Pending,
            "a new round"
        );

        let gone = delivery().after_attempt(Answer::Status(410, None), t0, t1, &s, MAX_WAIT);
        assert_eq!((gone.status, gone.hook), (DeliveryStatus::Failed, HookEffect::Gone));
        let moved = delivery().after_attempt(Answer::Status(302, None), t0, t1, &s, MAX_WAIT);
        assert_eq!(moved.status, DeliveryStatus::Pending);
        assert!(moved.attempt.error.unwrap().contains("redirects are not followed"));
    }
}
