//! Channels (docs/api.md §24): a chatbot or a Mind answering in Slack, Telegram and WhatsApp.
//! An owner connects a channel with the platform's credentials; the platform then sends its
//! visitors' messages to Lore's webhook route of that channel, signed, and Lore answers them
//! there, one conversation per thread (Slack) or chat (Telegram, WhatsApp).
//!
//! This module holds what needs no I/O: the validated credentials, the signature checks of each
//! platform, what an inbound platform request means ([`inbound`]) and how an answer is written
//! in each platform's formatting ([`outbound`]).

pub mod inbound;
pub mod outbound;

use crate::conversation::Channel;
use crate::error::{DomainError, ErrorCode, Validator};
use crate::id::{ChannelId, WorkspaceId};
use crate::mind::Field;
use crate::source::SourceOwner;
use crate::text;
use crate::text::{constant_time_eq, hmac_sha256_hex};
use crate::time::Timestamp;
use std::fmt;

/// Channels one chatbot or Mind may have.
pub const MAX_CHANNELS_PER_OWNER: u32 = 10;
/// How far a Slack request's timestamp may be from now (Slack's own rule against replays).
pub const SLACK_WINDOW_SECS: i64 = 5 * 60;
pub const MAX_SECRET_CHARS: usize = 512;
/// How long a platform's delivery id is remembered, so a redelivery is answered once. The
/// platforms retry for minutes to hours (Slack 3 tries within ~1 h, WhatsApp up to 7 days but
/// in practice hours): a day covers what matters.
pub const EVENT_MEMORY_SECS: i64 = 24 * 3600;
/// What a secret reads as whenever a channel is shown.
pub const HIDDEN_VALUE: &str = "•••";

/// The platforms a channel connects to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelKind {
    Slack,
    Telegram,
    Whatsapp,
}

impl ChannelKind {
    pub const ALL: [ChannelKind; 3] = [ChannelKind::Slack, ChannelKind::Telegram, ChannelKind::Whatsapp];

    pub fn as_str(self) -> &'static str {
        match self {
            ChannelKind::Slack => "slack",
            ChannelKind::Telegram => "telegram",
            ChannelKind::Whatsapp => "whatsapp",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// What a conversation held on this platform says it came through.
    pub fn conversation_channel(self) -> Channel {
        match self {
            ChannelKind::Slack => Channel::Slack,
            ChannelKind::Telegram => Channel::Telegram,
            ChannelKind::Whatsapp => Channel::Whatsapp,
        }
    }

    pub fn display(self) -> &'static str {
        match self {
            ChannelKind::Slack => "Slack",
            ChannelKind::Telegram => "Telegram",
            ChannelKind::Whatsapp => "WhatsApp",
        }
    }
}

/// A platform credential (a token, a signing secret): never shown back, never logged.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// 1–512 printable ASCII characters without spaces (every platform's tokens are).
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(DomainError::field(field, "is required"));
        }
        if s.chars().count() > MAX_SECRET_CHARS || !s.bytes().all(|b| b.is_ascii_graphic()) || s == HIDDEN_VALUE {
            return Err(DomainError::field(
                field,
                format!("must be the platform's value: 1-{MAX_SECRET_CHARS} printable characters, no spaces"),
            ));
        }
        Ok(Self(s.to_owned()))
    }

    /// A secret Lore makes itself (Telegram's `secret_token`: `[A-Za-z0-9_-]{1,256}`).
    pub fn generate() -> Self {
        let mut bytes = [0u8; 24];
        text::random_bytes(&mut bytes);
        Self(text::hex(&bytes))
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `given` is this secret, in time that does not depend on where they differ.
    pub fn matches(&self, given: &str) -> bool {
        constant_time_eq(self.0.as_bytes(), given.as_bytes())
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// A WhatsApp business phone number id (the Graph API's id of the sending number: digits).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhoneNumberId(String);

impl PhoneNumberId {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        if s.is_empty() {
            return Err(DomainError::field(field, "is required"));
        }
        if s.len() > 32 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(DomainError::field(field, "must be the phone number id Meta shows (digits)"));
        }
        Ok(Self(s.to_owned()))
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a channel holds to hear and answer on its platform.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credentials {
    Slack {
        bot_token: Secret,
        signing_secret: Secret,
        /// The bot's own user id (from `auth.test` when connected): its own messages and the
        /// mention of it in a question are not the question.
        bot_user_id: Option<String>,
    },
    Telegram {
        bot_token: Secret,
        /// Made by Lore and given to `setWebhook`: Telegram sends it with every update.
        secret_token: Secret,
    },
    Whatsapp {
        access_token: Secret,
        phone_number_id: PhoneNumberId,
        app_secret: Secret,
        verify_token: Secret,
    },
}

impl Credentials {
    pub fn kind(&self) -> ChannelKind {
        match self {
            Credentials::Slack { .. } => ChannelKind::Slack,
            Credentials::Telegram { .. } => ChannelKind::Telegram,
            Credentials::Whatsapp { .. } => ChannelKind::Whatsapp,
        }
    }

    /// The names of the members that are secrets, as the API names them (shown `•••`).
    pub fn secret_members(&self) -> &'static [&'static str] {
        match self {
            Credentials::Slack { .. } => &["botToken", "signingSecret"],
            Credentials::Telegram { .. } => &["botToken"],
            Credentials::Whatsapp { .. } => &["accessToken", "appSecret", "verifyToken"],
        }
    }
}

/// The members of a create request, as sent (secrets among them: no `Debug`).
#[derive(Default)]
pub struct RawChannelSpec {
    pub kind: Field<String>,
    pub bot_token: Field<String>,
    pub signing_secret: Field<String>,
    pub access_token: Field<String>,
    pub phone_number_id: Field<String>,
    pub app_secret: Field<String>,
    pub verify_token: Field<String>,
}

fn required(field: &str, value: &Field<String>) -> Result<String, DomainError> {
    match value {
        Field::Value(v) => Ok(v.clone()),
        Field::Absent | Field::Null => Err(DomainError::field(field, "is required")),
    }
}

impl RawChannelSpec {
    /// The credentials of a new channel: every refused member at once (`validation_error`).
    /// Members of another platform are refused rather than ignored (a mixed-up form).
    pub fn parse(&self) -> Result<Credentials, DomainError> {
        let kind = match &self.kind {
            Field::Value(k) => ChannelKind::parse(k)
                .ok_or_else(|| DomainError::field("type", "must be one of slack, telegram, whatsapp"))?,
            _ => return Err(DomainError::field("type", "is required: slack, telegram or whatsapp")),
        };
        let mut v = Validator::new();
        let secret = |v: &mut Validator, field: &str, value: &Field<String>| {
            v.check(required(field, value).and_then(|s| Secret::parse(field, &s)))
        };
        let members: [(&str, &Field<String>); 6] = [
            ("botToken", &self.bot_token),
            ("signingSecret", &self.signing_secret),
            ("accessToken", &self.access_token),
            ("phoneNumberId", &self.phone_number_id),
            ("appSecret", &self.app_secret),
            ("verifyToken", &self.verify_token),
        ];
        let wanted: &[&str] = match kind {
            ChannelKind::Slack => &["botToken", "signingSecret"],
            ChannelKind::Telegram => &["botToken"],
            ChannelKind::Whatsapp => &["accessToken", "phoneNumberId", "appSecret", "verifyToken"],
        };
        for (name, value) in members {
            if !wanted.contains(&name) && !matches!(value, Field::Absent) {
                v.check::<()>(Err(DomainError::field(name, format!("is not a member of a {} channel", kind.as_str()))));
            }
        }
        let credentials = match kind {
            ChannelKind::Slack => {
                let bot_token = secret(&mut v, "botToken", &self.bot_token);
                let signing_secret = secret(&mut v, "signingSecret", &self.signing_secret);
                bot_token.zip(signing_secret).map(|(bot_token, signing_secret)| Credentials::Slack {
                    bot_token,
                    signing_secret,
                    bot_user_id: None,
                })
            }
            ChannelKind::Telegram => secret(&mut v, "botToken", &self.bot_token)
                .map(|bot_token| Credentials::Telegram { bot_token, secret_token: Secret::generate() }),
            ChannelKind::Whatsapp => {
                let access_token = secret(&mut v, "accessToken", &self.access_token);
                let phone = v.check(
                    required("phoneNumberId", &self.phone_number_id)
                        .and_then(|s| PhoneNumberId::parse("phoneNumberId", &s)),
                );
                let app_secret = secret(&mut v, "appSecret", &self.app_secret);
                let verify_token = secret(&mut v, "verifyToken", &self.verify_token);
                match (access_token, phone, app_secret, verify_token) {
                    (Some(access_token), Some(phone_number_id), Some(app_secret), Some(verify_token)) => {
                        Some(Credentials::Whatsapp { access_token, phone_number_id, app_secret, verify_token })
                    }
                    _ => None,
                }
            }
        };
        v.finish()?;
        credentials.ok_or_else(|| DomainError::field("type", "is incomplete"))
    }
}

/// Whether the channel's platform calls work: `failing` after a call that failed for good,
/// `active` again after one that worked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelStatus {
    Active,
    Failing,
}

impl ChannelStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelStatus::Active => "active",
            ChannelStatus::Failing => "failing",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [ChannelStatus::Active, ChannelStatus::Failing].into_iter().find(|k| k.as_str() == s)
    }
}

/// A platform call that failed for good (after its retries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlatformFailure {
    /// What the platform said, or why there was no answer (never a secret).
    pub message: String,
    pub at: Timestamp,
}

/// A chatbot's or a Mind's connection to one platform account (a Slack app, a Telegram bot, a
/// WhatsApp number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectedChannel {
    pub id: ChannelId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub credentials: Credentials,
    pub status: ChannelStatus,
    pub last_error: Option<PlatformFailure>,
    /// When the platform last sent a message Lore answered.
    pub last_message_at: Option<Timestamp>,
    pub created_at: Timestamp,
}

impl ConnectedChannel {
    pub fn new(workspace_id: WorkspaceId, owner: SourceOwner, credentials: Credentials, now: Timestamp) -> Self {
        Self {
            id: ChannelId::generate(),
            workspace_id,
            owner,
            credentials,
            status: ChannelStatus::Active,
            last_error: None,
            last_message_at: None,
            created_at: now,
        }
    }

    pub fn kind(&self) -> ChannelKind {
        self.credentials.kind()
    }

    /// The path (under the public base URL) the platform sends to.
    pub fn webhook_path(&self) -> String {
        match self.kind() {
            ChannelKind::Slack => format!("/channels/{}/slack/events", self.id),
            ChannelKind::Telegram => format!("/channels/{}/telegram", self.id),
            ChannelKind::Whatsapp => format!("/channels/{}/whatsapp", self.id),
        }
    }
}

/// Where a conversation lives on its platform: a Slack channel and thread, a Telegram chat, a
/// WhatsApp number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelThread {
    /// Slack: the channel (`C…`, `D…`); Telegram: the chat id; WhatsApp: the visitor's number.
    pub chat: String,
    /// Slack only: the `ts` of the thread's first message.
    pub thread: Option<String>,
}

impl ChannelThread {
    /// One conversation per value: the thread in Slack, the chat elsewhere. A digest: the chat
    /// may be a phone number (WhatsApp), which must not outlive its conversation in the store of
    /// threads.
    pub fn key(&self) -> String {
        use sha2::{Digest, Sha256};
        let raw = match &self.thread {
            Some(t) => format!("{}:{t}", self.chat),
            None => self.chat.clone(),
        };
        text::hex(&Sha256::digest(raw.as_bytes()))
    }
}

/// A conversation held on a platform: which channel, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelLink {
    pub channel_id: ChannelId,
    pub thread: ChannelThread,
}

/// `X-Slack-Signature` checked the way Slack signs (v0): `v0=` + hex HMAC-SHA256 of
/// `v0:{timestamp}:{body}` with the app's signing secret, the timestamp within
/// [`SLACK_WINDOW_SECS`] of `now`.
pub fn slack_signature_valid(
    signing_secret: &Secret,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: Timestamp,
) -> bool {
    let (Some(ts), Some(sig)) = (timestamp, signature) else { return false };
    let Ok(seconds) = ts.trim().parse::<i64>() else { return false };
    // `abs_diff`: a timestamp sent as i64::MIN must not overflow.
    if (now.millis() / 1000).abs_diff(seconds) > SLACK_WINDOW_SECS.unsigned_abs() {
        return false;
    }
    let expected =
        format!("v0={}", hmac_sha256_hex(signing_secret.expose().as_bytes(), &[b"v0:", ts.as_bytes(), b":", body]));
    constant_time_eq(expected.as_bytes(), sig.trim().as_bytes())
}

/// `X-Hub-Signature-256` checked the way Meta signs: `sha256=` + hex HMAC-SHA256 of the body
/// with the app secret.
pub fn whatsapp_signature_valid(app_secret: &Secret, signature: Option<&str>, body: &[u8]) -> bool {
    let Some(sig) = signature else { return false };
    let expected = format!("sha256={}", hmac_sha256_hex(app_secret.expose().as_bytes(), &[body]));
    constant_time_eq(expected.as_bytes(), sig.trim().to_ascii_lowercase().as_bytes())
}

/// The errors of a channel's routes that are not validation.
pub fn channels_limit_reached() -> DomainError {
    DomainError::new(
        ErrorCode::ChannelsLimitReached,
        format!("a chatbot or Mind has at most {MAX_CHANNELS_PER_OWNER} channels; delete one first"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(kind: &str, members: &[(&str, &str)]) -> RawChannelSpec {
        let mut r = RawChannelSpec { kind: Field::Value(kind.into()), ..Default::default() };
        for (k, v) in members {
            let f = Field::Value((*v).to_owned());
            match *k {
                "botToken" => r.bot_token = f,
                "signingSecret" => r.signing_secret = f,
                "accessToken" => r.access_token = f,
                "phoneNumberId" => r.phone_number_id = f,
                "appSecret" => r.app_secret = f,
                "verifyToken" => r.verify_token = f,
                _ => unreachable!(),
            }
        }
        r
    }

    #[test]
    fn every_refused_member_is_named_at_once() {
        let e = raw("whatsapp", &[("phoneNumberId", "12ab"), ("botToken", "x")]).parse().unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        let names: Vec<&str> = e.fields.keys().map(String::as_str).collect();
        assert_eq!(names, ["accessToken", "appSecret", "botToken", "phoneNumberId", "verifyToken"]);
        assert!(raw("email", &[]).parse().unwrap_err().fields.contains_key("type"));
        let e = raw("slack", &[("botToken", "xoxb 1"), ("signingSecret", HIDDEN_VALUE)]).parse().unwrap_err();
        assert_eq!(e.fields.len(), 2, "{e:?}");
    }

    #[test]
    fn credentials_of_each_platform() {
        let c = raw("slack", &[("botToken", " xoxb-1 "), ("signingSecret", "abc")]).parse().unwrap();
        assert!(matches!(&c, Credentials::Slack { bot_token, .. } if bot_token.expose() == "xoxb-1"));
        let Credentials::Telegram { secret_token, .. } = raw("telegram", &[("botToken", "1:A")]).parse().unwrap()
        else {
            panic!()
        };
        assert_eq!(secret_token.expose().len(), 48);
        assert!(secret_token.expose().bytes().all(|b| b.is_ascii_hexdigit()));
        let c = raw(
            "whatsapp",
            &[("accessToken", "EAAG"), ("phoneNumberId", "1065"), ("appSecret", "s"), ("verifyToken", "v")],
        )
        .parse()
        .unwrap();
        assert_eq!(c.kind(), ChannelKind::Whatsapp);
        assert!(!format!("{c:?}").contains("EAAG"), "secrets are not in Debug");
    }

    #[test]
    fn slack_signatures() {
        // Slack's documented example (api.slack.com/authentication/verifying-requests-from-slack).
        let secret = Secret::from_stored("8f742231b10e8888abcd99yyyzzz85a5".into());
        let body = b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
        let sig = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
        let at = Timestamp::from_millis(1_531_420_618_000);
        assert!(slack_signature_valid(&secret, Some("1531420618"), Some(sig), body, at));
        let later = Timestamp::from_millis(at.millis() + (SLACK_WINDOW_SECS + 1) * 1000);
        assert!(!slack_signature_valid(&secret, Some("1531420618"), Some(sig), body, later), "replayed too late");
        assert!(!slack_signature_valid(&secret, Some("1531420618"), Some(sig), b"token=other", at));
        assert!(!slack_signature_valid(&secret, None, Some(sig), body, at));
        assert!(!slack_signature_valid(&secret, Some("soon"), Some(sig), body, at));
        assert!(!slack_signature_valid(&secret, Some("-9223372036854775808"), Some(sig), body, at), "no overflow");
        let early = Timestamp::from_millis(at.millis() - (SLACK_WINDOW_SECS + 1) * 1000);
        assert!(!slack_signature_valid(&secret, Some("1531420618"), Some(sig), body, early), "from the future");
    }

    #[test]
    fn whatsapp_signatures() {
        let secret = Secret::from_stored("app-secret".into());
        let body = br#"{"object":"whatsapp_business_account"}"#;
        let sig = format!("sha256={}", hmac_sha256_hex(b"app-secret", &[body]));
        assert!(whatsapp_signature_valid(&secret, Some(&sig), body));
        assert!(whatsapp_signature_valid(&secret, Some(&sig.to_ascii_uppercase().replace("SHA256", "sha256")), body));
        assert!(!whatsapp_signature_valid(&secret, Some(&sig), b"{}"));
        assert!(!whatsapp_signature_valid(&secret, None, body));
    }

    #[test]
    fn one_conversation_per_thread_or_chat() {
        let slack = ChannelThread { chat: "C1".into(), thread: Some("1700000000.000100".into()) };
        let other = ChannelThread { chat: "C1".into(), thread: Some("1700000000.000200".into()) };
        assert_ne!(slack.key(), other.key());
        let chat = ChannelThread { chat: "4915112345678".into(), thread: None };
        assert_eq!(chat.key().len(), 64);
        assert!(!chat.key().contains("4915112345678"), "no phone number in the key");
    }
}
