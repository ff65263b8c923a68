//! Chatbot records.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::audit::AuditEntry;
use lore_domain::chatbot::Chatbot;
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};

#[async_trait]
pub trait ChatbotStore: Send + Sync {
    /// Fails with `Conflict("slug")` when the workspace has a chatbot with that slug.
    async fn insert_chatbot(&self, chatbot: &Chatbot) -> StoreResult<()> {
        self.insert_chatbot_recorded(chatbot, None).await
    }
    /// [`ChatbotStore::insert_chatbot`] that writes `audit` in the same transaction.
    async fn insert_chatbot_recorded(&self, chatbot: &Chatbot, audit: Option<&AuditEntry>) -> StoreResult<()>;
    async fn get_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<Option<Chatbot>>;
    /// Newest first (`createdAt` desc, id desc), with the exact total.
    async fn list_chatbots(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Chatbot>>;
    /// Replaces name, slug, descriptor, the publication, the public settings and `updatedAt`, and
    /// stores `chatbot.revision`, provided the stored revision is `chatbot.revision - 1` (else
    /// `Stale`: read again). `NotFound` when it no longer exists; `Conflict("slug")` when the new
    /// slug is taken in the workspace, `Conflict("public_slug")` when the chatbot is published and another published
    /// chatbot (of any workspace) has the slug — `/c/{slug}` names one chatbot.
    async fn update_chatbot(&self, chatbot: &Chatbot) -> StoreResult<super::RevisedWrite> {
        self.update_chatbot_recorded(chatbot, None).await
    }
    /// [`ChatbotStore::update_chatbot`] that writes `audit` in the same transaction, only when
    /// the write is `Done`.
    async fn update_chatbot_recorded(
        &self,
        chatbot: &Chatbot,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<super::RevisedWrite>;
    /// The published chatbot whose public address is `/c/{slug}`, whatever its workspace.
    async fn find_published_chatbot(&self, slug: &str) -> StoreResult<Option<Chatbot>>;
    /// Removes the chatbot and everything it owns. `false` when it did not exist.
    async fn delete_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<bool> {
        self.delete_chatbot_recorded(ws, id, None).await
    }
    /// [`ChatbotStore::delete_chatbot`] that writes `audit` with the chatbot's own delete (on
    /// DynamoDB its sources go in transactions before it), only when it existed.
    async fn delete_chatbot_recorded(
        &self,
        ws: &WorkspaceId,
        id: &ChatbotId,
        audit: Option<&AuditEntry>,
    ) -> StoreResult<bool>;
}
