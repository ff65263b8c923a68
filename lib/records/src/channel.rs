//! The stored shape of a connected channel (docs/api.md §24). Keys, owners and times are the
//! backends' own; the platform credentials are secrets, kept as the other secrets are (in the
//! record, on storage only the service reads).

use crate::RecordError;
use crate::conversation::PlatformFailureRecord;
use lore_domain::Timestamp;
use lore_domain::channel::{ChannelKind, ChannelStatus, ConnectedChannel, Credentials, PhoneNumberId, Secret};
use lore_domain::id::{ChannelId, WorkspaceId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};

#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelRecord {
    /// `slack`, `telegram` or `whatsapp`.
    pub kind: String,
    /// Slack and Telegram: the bot token; WhatsApp: the access token.
    pub token: String,
    /// Slack: the signing secret; Telegram: the webhook's secret token; WhatsApp: the app secret.
    pub secret: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_number_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot_user_id: Option<String>,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<PlatformFailureRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_at: Option<i64>,
}

impl std::fmt::Debug for ChannelRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelRecord").field("kind", &self.kind).field("status", &self.status).finish_non_exhaustive()
    }
}

/// What the backends keep beside a [`ChannelRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelKeys {
    pub id: ChannelId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub created_at: Timestamp,
}

impl ChannelKeys {
    pub fn of(c: &ConnectedChannel) -> Self {
        Self {
            id: c.id.clone(),
            workspace_id: c.workspace_id.clone(),
            owner: c.owner.clone(),
            created_at: c.created_at,
        }
    }
}

impl ChannelRecord {
    pub fn of(c: &ConnectedChannel) -> Self {
        let (token, secret, verify_token, phone_number_id, bot_user_id) = match &c.credentials {
            Credentials::Slack { bot_token, signing_secret, bot_user_id } => {
                (bot_token, signing_secret, None, None, bot_user_id.clone())
            }
            Credentials::Telegram { bot_token, secret_token } => (bot_token, secret_token, None, None, None),
            Credentials::Whatsapp { access_token, phone_number_id, app_secret, verify_token } => (
                access_token,
                app_secret,
                Some(verify_token.expose().to_owned()),
                Some(phone_number_id.as_str().to_owned()),
                None,
            ),
        };
        Self {
            kind: c.kind().as_str().to_owned(),
            token: token.expose().to_owned(),
            secret: secret.expose().to_owned(),
            verify_token,
            phone_number_id,
            bot_user_id,
            status: c.status.as_str().to_owned(),
            last_error: c.last_error.as_ref().map(PlatformFailureRecord::of),
            last_message_at: c.last_message_at.map(|t| t.millis()),
        }
    }

    pub fn into_channel(self, keys: ChannelKeys) -> Result<ConnectedChannel, RecordError> {
        let kind = ChannelKind::parse(&self.kind).ok_or_else(|| RecordError::of("channel kind"))?;
        let (token, secret) = (Secret::from_stored(self.token), Secret::from_stored(self.secret));
        let credentials = match kind {
            ChannelKind::Slack => {
                Credentials::Slack { bot_token: token, signing_secret: secret, bot_user_id: self.bot_user_id }
            }
            ChannelKind::Telegram => Credentials::Telegram { bot_token: token, secret_token: secret },
            ChannelKind::Whatsapp => Credentials::Whatsapp {
                access_token: token,
                phone_number_id: PhoneNumberId::from_stored(
                    self.phone_number_id.ok_or_else(|| RecordError::of("channel phone number id"))?,
                ),
                app_secret: secret,
                verify_token: Secret::from_stored(
                    self.verify_token.ok_or_else(|| RecordError::of("channel verify token"))?,
                ),
            },
        };
        Ok(ConnectedChannel {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            credentials,
            status: ChannelStatus::parse(&self.status).ok_or_else(|| RecordError::of("channel status"))?,
            last_error: self.last_error.map(PlatformFailureRecord::into_failure),
            last_message_at: self.last_message_at.map(Timestamp::from_millis),
            created_at: keys.created_at,
        })
    }
}
