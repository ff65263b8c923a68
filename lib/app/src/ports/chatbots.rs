//! Chatbot records.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::chatbot::Chatbot;
use lore_domain::id::{ChatbotId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};

#[async_trait]
pub trait ChatbotStore: Send + Sync {
    /// Fails with `Conflict("slug")` when the workspace has a chatbot with that slug.
    async fn insert_chatbot(&self, chatbot: &Chatbot) -> StoreResult<()>;
    async fn get_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<Option<Chatbot>>;
    /// Newest first (`createdAt` desc, id desc), with the exact total.
    async fn list_chatbots(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Chatbot>>;
    /// Replaces name, slug, descriptor and `updatedAt`. `false` when it no longer exists;
    /// `Conflict("slug")` when the new slug is taken.
    async fn update_chatbot(&self, chatbot: &Chatbot) -> StoreResult<bool>;
    /// Removes the chatbot and everything it owns. `false` when it did not exist.
    async fn delete_chatbot(&self, ws: &WorkspaceId, id: &ChatbotId) -> StoreResult<bool>;
}
