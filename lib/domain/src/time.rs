//! Timestamps: RFC 3339 in UTC with milliseconds and `Z` (docs/api.md §16.6).

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    pub fn now() -> Self {
        Self::from_millis(Utc::now().timestamp_millis())
    }

    /// Millisecond precision is what we store and print, so values round-trip exactly.
    pub fn from_millis(ms: i64) -> Self {
        Self(Utc.timestamp_millis_opt(ms).single().unwrap_or_default())
    }

    pub fn millis(self) -> i64 {
        self.0.timestamp_millis()
    }

    pub fn parse(s: &str) -> Option<Self> {
        DateTime::parse_from_rfc3339(s).ok().map(|d| Self::from_millis(d.timestamp_millis()))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom("not an RFC 3339 timestamp"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_millis_and_z() {
        assert_eq!(Timestamp::from_millis(1_777_636_800_123).to_string(), "2026-05-01T12:00:00.123Z");
        let t = Timestamp::parse("2026-05-01T14:00:00.123+02:00").unwrap();
        assert_eq!(t.to_string(), "2026-05-01T12:00:00.123Z");
    }
}
