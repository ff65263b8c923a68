//! The port of conversations and their messages (docs/api.md §17).

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::Timestamp;
use lore_domain::conversation::{Conversation, ConversationStatus, Message};
use lore_domain::correction::Correction;
use lore_domain::event::Event;
use lore_domain::id::{ConversationId, CorrectionId, WorkspaceId};
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
/// (`messageCount`), in the same write that stores them.
#[async_trait]
pub trait ConversationStore: Send + Sync {
    /// Stores a new conversation with its first messages (the welcome message), counts it on its
    /// owner and puts `event` (a lead) in the event outbox, in one write: the event exists exactly
    /// when the conversation does. `false` (nothing stored) when the owner does not exist.
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

    /// Appends `messages` unless the conversation would then hold more than `max`; sets
    /// `updatedAt` to the last message's time. One write.
    async fn append_messages(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        messages: &[Message],
        max: u64,
    ) -> StoreResult<Append>;

    /// Removes the conversation, its messages and its count on the owner. `false` when it did
    /// not exist.
    async fn delete_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> StoreResult<bool>;

    /// Removes every conversation of an owner that has been deleted, and its corrections; how
    /// many conversations.
    async fn delete_owner_conversations(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<u64>;

    /// Replaces the stored message (same id, same conversation) with `message` — its feedback
    /// changed (docs/api.md §19) — and puts `event` in the event outbox, in one write. `false`
    /// (nothing stored) when it does not exist in that workspace.
    async fn replace_message(&self, ws: &WorkspaceId, message: &Message, event: Option<&Event>) -> StoreResult<bool>;

    /// Sets the conversation's status; when that changes it, puts `event` in the event outbox in
    /// the same write (a status set twice emits once). The conversation as it is now, `None`
    /// when it does not exist for that owner.
    async fn set_conversation_status(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        status: ConversationStatus,
        event: Option<&Event>,
    ) -> StoreResult<Option<Conversation>>;

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
}
