//! The ports of channels (docs/api.md §24): where connected channels, the platform's threads and
//! the deliveries already heard are kept, and how Lore talks to each platform.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::channel::{ChannelStatus, ChannelThread, ConnectedChannel, Credentials, PlatformFailure};
use lore_domain::id::{ChannelId, ConversationId, WorkspaceId};
use lore_domain::source::SourceOwner;

/// The outcome of an insert guarded by the owner's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelWrite {
    Written,
    /// The owner has `limit` channels already.
    LimitReached,
}

/// Channels live under their owner; every read by the owner names the workspace, so another
/// workspace's ids read as absent. The platform's requests name only the channel
/// ([`ChannelStore::find_channel`]): the signature checked with its secret is what admits them.
#[async_trait]
pub trait ChannelStore: Send + Sync {
    /// Inserts `channel` unless its owner has `limit` channels; the check and the insert are one
    /// atomic step.
    async fn insert_channel(&self, channel: &ConnectedChannel, limit: u32) -> StoreResult<ChannelWrite>;

    async fn get_channel(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ChannelId,
    ) -> StoreResult<Option<ConnectedChannel>>;

    /// The channel with this id in any workspace (a platform's request names only it).
    async fn find_channel(&self, id: &ChannelId) -> StoreResult<Option<ConnectedChannel>>;

    /// Every channel of the owner (at most the limit), in creation order.
    async fn list_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<ConnectedChannel>>;

    /// Deletes the channel with its threads and remembered deliveries; false when absent.
    async fn delete_channel(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &ChannelId) -> StoreResult<bool>;

    /// Removes every channel of an owner that has been deleted (with their threads and
    /// remembered deliveries).
    async fn delete_owner_channels(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<()>;

    /// Sets the channel's status and last error (`None` keeps the stored one) and, when given,
    /// when it last answered a message. Nothing when the channel is gone.
    async fn set_channel_health(
        &self,
        id: &ChannelId,
        status: ChannelStatus,
        last_error: Option<&PlatformFailure>,
        last_message_at: Option<Timestamp>,
    ) -> StoreResult<()>;

    /// Remembers that the platform's delivery `delivery` reached the channel at `now`: true the
    /// first time, false for a redelivery (one atomic step: of two concurrent calls one is
    /// true). A delivery is remembered at least `lore_domain::channel::EVENT_MEMORY_SECS`.
    async fn remember_delivery(&self, id: &ChannelId, delivery: &str, now: Timestamp) -> StoreResult<bool>;

    /// The conversation of the channel's thread or chat `thread` (its `key()`), if one was bound.
    async fn thread_conversation(&self, id: &ChannelId, thread: &str) -> StoreResult<Option<ConversationId>>;

    /// Binds the thread to `conversation` when it is bound to nothing or to `replacing` (a
    /// conversation since deleted); the conversation it is bound to afterwards (another one when
    /// a concurrent call bound it first).
    async fn bind_thread(
        &self,
        id: &ChannelId,
        thread: &str,
        conversation: &ConversationId,
        replacing: Option<&ConversationId>,
    ) -> StoreResult<ConversationId>;
}

/// A message to send on a platform: the pieces of one answer (or of an agent's reply), in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboundMessage {
    pub thread: ChannelThread,
    /// The platform's id of the visitor's message this answers (a reply to it), when known.
    pub reply_to: Option<String>,
    /// Each already in the platform's formatting and within its length limit.
    pub pieces: Vec<String>,
}

/// Why a platform call did not work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlatformError {
    /// The platform refused the credentials or the request (an answer not worth retrying:
    /// `invalid_auth`, `Unauthorized`, a 4xx other than 429). The platform's words.
    #[error("{0}")]
    Refused(String),
    /// No answer, or still failing after the retries (5xx, 429, a timeout).
    #[error("{0}")]
    Failed(String),
}

/// Talks to Slack, Telegram and the WhatsApp Cloud API (their base URLs are settings).
#[async_trait]
pub trait ChannelPlatform: Send + Sync {
    /// Checks the credentials and makes the platform send to `webhook_url`; the credentials as
    /// they are to be kept. Slack: `auth.test` (the bot's user id is kept; the owner pastes the
    /// URL in the app's settings); Telegram: `setWebhook` with the secret token; WhatsApp: the
    /// number is read (`GET /{phoneNumberId}`; the owner pastes the URL and verify token in
    /// the app's settings).
    async fn connect(&self, credentials: &Credentials, webhook_url: &str) -> Result<Credentials, PlatformError>;

    /// Sends the message's pieces in order, each call tried up to 3 times with backoff (a 429's
    /// `Retry-After` honoured up to a bound); stops at the first piece that fails for good.
    async fn send(&self, credentials: &Credentials, message: &OutboundMessage) -> Result<(), PlatformError>;

    /// Undoes what `connect` set up on the platform when it can: Telegram's webhook, removed
    /// only while it still ends with `webhook_path` (`getWebhookInfo`; the same bot connected to
    /// another channel since keeps its webhook). A failure is logged, not returned: the channel
    /// is deleted either way.
    async fn disconnect(&self, credentials: &Credentials, webhook_path: &str);
}
