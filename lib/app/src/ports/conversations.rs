//! The port of conversations and their messages (docs/api.md §17).

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::analytics::{DayRange, StoredAnalytics, Tally};
use lore_domain::audit::AuditEntry;
use lore_domain::conversation::{Conversation, ConversationStatus, Feedback, Message};
use lore_domain::correction::Correction;
use lore_domain::event::Event;
use lore_domain::id::{ConversationId, CorrectionId, MessageId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;

/// The outcome of appending messages to a conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Append {
    /// Stored; the conversation as it is now (its `messageCount` and `updatedAt` changed).
    Appended(Box<Conversation>),
    /// It would hold more than the maximum: nothing stored.
    Full,
    NotFound,
}

/// Conversations belong to an owner (a Mind or a chatbot) of one workspace; every read names
/// both, so another workspace's or another owner's conversation is never found. Counts are exact:
/// a conversation is counted on its owner (`conversationCount`), and its messages on it
/// (`messageCount`), in the same write that stores them; so are the owner's analytics
/// (`lore_domain::analytics`): every write below that stores a conversation, a message or a rating
/// adds its [`Tally`] to the owner's counters of that day in the same transaction.
#[async_trait]
pub trait ConversationStore: Send + Sync {
    /// Stores a new conversation with its first messages (the welcome message), counts it on its
    /// owner (and in its analytics: [`Tally::started`]) and puts `event` (a lead) in the event
    /// outbox, in one write: the event exists exactly when the conversation does. `false` (nothing stored) when the owner does not exist.
    async fn insert_conversation(
        &self,
        conversation: &Conversation,
        messages: &[Message],
        event: Option<&Event>,
    ) -> StoreResult<bool>;

    async fn get_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> StoreResult<Option<Conversation>>;

    /// Newest first (`createdAt` desc, id desc), with the exact total.
    async fn list_conversations(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<Conversation>>;

    /// Every message of the conversation, oldest first (at most the maximum a conversation
    /// holds). Empty when it does not exist in that workspace.
    async fn list_messages(&self, ws: &WorkspaceId, id: &ConversationId) -> StoreResult<Vec<Message>>;

    /// The conversation's last `limit` messages, oldest first: the end of
    /// [`ConversationStore::list_messages`], read newest first and bounded (a turn reads only
    /// the history its prompt uses). Empty when it does not exist in that workspace.
    async fn recent_messages(&self, ws: &WorkspaceId, id: &ConversationId, limit: u32) -> StoreResult<Vec<Message>>;

    /// Appends `messages` unless the conversation would then hold more than `max`; sets
    /// `updatedAt` to the last message's time and adds `tally` (of these messages, made by
    /// [`Tally::appended`]) to the owner's analytics. One write.
    async fn append_messages(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        messages: &[Message],
        max: u64,
        tally: &Tally,
    ) -> StoreResult<Append>;

    /// Removes the conversation, its messages, its unanswered questions and its count on the
    /// owner (its analytics counters stay: they count what happened). `false` when it did not
    /// exist.
    async fn delete_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> StoreResult<bool> {
        self.delete_conversation_recorded(ws, owner, id, None).await
    }
    /// [`ConversationStore::delete_conversation`] that writes `audit` in the transaction that
    /// deletes the conversation, only when it deleted it.
    async fn delete_conversation_recorded(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool>;

    /// Removes every conversation of an owner that has been deleted, its corrections and its
    /// analytics; how many conversations.
    async fn delete_owner_conversations(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<u64>;

    /// Sets the feedback of a message of the owner's conversation (replacing any), counts the
    /// change in the owner's analytics ([`Tally::rated`] of the message as stored when written:
    /// concurrent ratings of one message each count exactly once) and puts `event` in the event
    /// outbox, in one write. The message as it is now; `None` when it does not exist there.
    async fn rate_message(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        feedback: &Feedback,
        event: &Event,
    ) -> StoreResult<Option<Message>>;

    /// Sets the conversation's status; when that changes it, puts `event` in the event outbox in
    /// the same write (a status set twice emits once) and keeps `reason` as its `handoff_reason`
    /// (`None` removes it). The conversation as it is now, `None` when it does not exist for that
    /// owner.
    async fn set_conversation_status(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        status: ConversationStatus,
        reason: Option<&str>,
        event: Option<&Event>,
    ) -> StoreResult<Option<Conversation>>;

    /// Sets (or with `None` clears) the conversation's `channel_error`: a platform call of a
    /// channel's conversation that failed for good (docs/api.md §24). Nothing when the
    /// conversation does not exist in the workspace.
    async fn set_channel_error(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        failure: Option<&lore_domain::channel::PlatformFailure>,
    ) -> StoreResult<()>;

    /// Stores a correction, replacing the one with the same id.
    async fn put_correction(&self, correction: &Correction) -> StoreResult<()>;

    /// Every correction of the owner, newest first (`createdAt` desc, id desc).
    async fn list_corrections(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Correction>>;

    /// `false` when it did not exist for that owner.
    async fn delete_correction(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &CorrectionId) -> StoreResult<bool>;

    /// The owner's conversations created at or after `since`.
    async fn count_conversations_since(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        since: Timestamp,
    ) -> StoreResult<u64>;

    /// The owner's analytics over `range`: its stored days' counters, its most cited sources
    /// and its latest unanswered questions in the range. Reads counters, never messages.
    async fn analytics(&self, ws: &WorkspaceId, owner: &SourceOwner, range: &DayRange) -> StoreResult<StoredAnalytics>;

    /// Up to `limit` of the owner's conversations strictly older than `before` in list order
    /// (`createdAt` desc, id desc; all when `None`): a walk that neither repeats nor skips a
    /// conversation while others are added (an export).
    async fn conversations_before(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        before: Option<&ConversationCursor>,
        limit: u32,
    ) -> StoreResult<Vec<Conversation>>;
}

/// Where a walk over an owner's conversations stands: the last conversation it read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationCursor {
    pub created_at: Timestamp,
    pub id: ConversationId,
}

impl ConversationCursor {
    pub fn after(c: &Conversation) -> Self {
        Self { created_at: c.created_at, id: c.id.clone() }
    }
}
