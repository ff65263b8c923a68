//! Prefixed, time-sortable, unguessable identifiers: `<prefix>_<ulid>` (docs/api.md §1).
//!
//! The body is a ULID (48-bit millisecond time + 80 random bits) in lower-case Crockford base32,
//! generated monotonically within a process so that ids made in the same millisecond still sort
//! in creation order: newest-first listings can order by id.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const BODY_LEN: usize = 26;

static LAST: Mutex<(u64, u128)> = Mutex::new((0, 0));

/// A new ULID body as a 128-bit number.
fn next_ulid() -> u128 {
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    let value = if ms <= last.0 && last.1 != 0 {
        // Same (or an earlier, clock-stepped) millisecond: increment the previous value.
        last.1 + 1
    } else {
        let mut bytes = [0u8; 10];
        crate::text::random_bytes(&mut bytes);
        let mut random: u128 = 0;
        for b in bytes {
            random = (random << 8) | u128::from(b);
        }
        (u128::from(ms) << 80) | random
    };
    *last = (ms.max(last.0), value);
    value
}

fn encode(mut value: u128) -> String {
    let mut out = [0u8; BODY_LEN];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(value & 31) as usize];
        value >>= 5;
    }
    String::from_utf8(out.to_vec()).unwrap_or_default()
}

fn is_body(s: &str) -> bool {
    s.len() == BODY_LEN && s.as_bytes()[0] <= b'7' && s.bytes().all(|b| ALPHABET.contains(&b))
}

macro_rules! ids {
    ($($(#[$doc:meta])* $name:ident = $prefix:literal;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            pub fn generate() -> Self {
                Self(format!("{}_{}", $prefix, encode(next_ulid())))
            }

            /// Accepts only well-formed ids of this kind; anything else cannot name a resource.
            pub fn parse(s: &str) -> Option<Self> {
                let body = s.strip_prefix($prefix)?.strip_prefix('_')?;
                is_body(body).then(|| Self(s.to_owned()))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Self::parse(&s).ok_or_else(|| serde::de::Error::custom(concat!("not a ", $prefix, "_ id")))
            }
        }
    )*};
}

ids! {
    /// A workspace: owns everything.
    WorkspaceId = "ws";
    /// An API key (its id, not its secret).
    ApiKeyId = "key";
    ChatbotId = "cb";
    SourceId = "src";
    MindId = "mind";
    FormId = "form";
    ResponseId = "resp";
    HookId = "hook";
    EventId = "evt";
    DeliveryId = "dlv";
    /// A conversation with a Mind or a chatbot (docs/api.md §17).
    ConversationId = "conv";
    MessageId = "msg";
    /// An owner's correction of an answer (docs/api.md §19).
    CorrectionId = "corr";
    /// An answer test of a Mind or a chatbot (docs/api.md §21).
    AnswerTestId = "test";
    /// A run of answer tests (docs/api.md §21).
    TestRunId = "run";
    /// An owner's action a model may call (docs/api.md §23).
    ActionId = "act";
    /// A chatbot's or Mind's connection to Slack, Telegram or WhatsApp (docs/api.md §24).
    ChannelId = "chan";
    /// An entry of the workspace's audit log (docs/api.md §22).
    AuditId = "aud";
    /// A request id, echoed in `x-request-id` when the client sends none.
    RequestId = "req";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_prefixed_sortable_and_parse_back() {
        let ids: Vec<ChatbotId> = (0..1000).map(|_| ChatbotId::generate()).collect();
        for w in ids.windows(2) {
            assert!(w[0] < w[1], "{} !< {}", w[0], w[1]);
        }
        let s = ids[0].to_string();
        assert!(s.starts_with("cb_") && s.len() == 3 + 26);
        assert_eq!(ChatbotId::parse(&s), Some(ids[0].clone()));
    }

    #[test]
    fn parse_refuses_foreign_and_malformed_ids() {
        let id = ChatbotId::generate().to_string();
        assert!(SourceId::parse(&id).is_none());
        assert!(ChatbotId::parse("cb_").is_none());
        assert!(ChatbotId::parse("cb_01ARZ3NDEKTSV4RRFFQ69G5FAV").is_none(), "upper case is not ours");
        assert!(ChatbotId::parse("cb_01arz3ndektsv4rrffq69g5fa!").is_none());
        assert!(ChatbotId::parse("cb_81arz3ndektsv4rrffq69g5fav").is_none(), "overflows 128 bits");
        assert!(ChatbotId::parse("cb_01arz3ndektsv4rrffq69g5fav").is_some());
    }
}
