//! A webhook delivery's attempts.

use lore_domain::Timestamp;
use lore_domain::delivery::Attempt;
use serde::{Deserialize, Serialize};

/// One attempt to deliver an event to a hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRecord {
    /// Milliseconds since the epoch.
    pub at: i64,
    /// `null` when the receiver did not answer.
    pub status_code: Option<u16>,
    pub error: Option<String>,
    #[serde(default)]
    pub duration_ms: u64,
}

impl AttemptRecord {
    pub fn list(attempts: &[Attempt]) -> Vec<Self> {
        attempts
            .iter()
            .map(|a| Self {
                at: a.at.millis(),
                status_code: a.status_code,
                error: a.error.clone(),
                duration_ms: a.duration_ms,
            })
            .collect()
    }

    pub fn into_attempts(list: Vec<Self>) -> Vec<Attempt> {
        list.into_iter()
            .map(|a| Attempt {
                at: Timestamp::from_millis(a.at),
                status_code: a.status_code,
                error: a.error,
                duration_ms: a.duration_ms,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_json, to_json};

    #[test]
    fn attempts_read_back_as_written_and_as_stored_before() {
        let old = r#"[{"at":1700000000000,"statusCode":500,"error":null,"durationMs":12},
                      {"at":1700000060000,"statusCode":null,"error":"connection refused","durationMs":3}]"#;
        let attempts = AttemptRecord::into_attempts(from_json(old, "delivery attempts").unwrap());
        assert_eq!(attempts[0].status_code, Some(500));
        assert_eq!(attempts[1].error.as_deref(), Some("connection refused"));
        let again = AttemptRecord::into_attempts(from_json(&to_json(&AttemptRecord::list(&attempts)), "a").unwrap());
        assert_eq!(again, attempts);
    }
}
