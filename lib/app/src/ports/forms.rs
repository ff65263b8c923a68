//! The port of forms and their responses.

use super::StoreResult;
use async_trait::async_trait;
use lore_domain::event::Event;
use lore_domain::form::{Form, FormResponse};
use lore_domain::id::{FormId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};

#[async_trait]
pub trait FormStore: Send + Sync {
    async fn insert_form(&self, form: &Form) -> StoreResult<()>;
    async fn get_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<Option<Form>>;
    /// Newest first (`createdAt` desc, id desc), with the exact total.
    async fn list_forms(&self, ws: &WorkspaceId, page: PageRequest) -> StoreResult<Page<Form>>;
    /// Removes the form and its responses. `false` when it did not exist.
    async fn delete_form(&self, ws: &WorkspaceId, id: &FormId) -> StoreResult<bool>;
    /// Stores a submission and puts its `form_response` event in the event outbox, atomically:
    /// the event exists exactly when the response does, so no crash can lose or invent one.
    /// `false` (and nothing stored) when the form no longer exists.
    async fn insert_response(&self, response: &FormResponse, event: &Event) -> StoreResult<bool>;
    /// A form's responses, newest first, with the exact total.
    async fn list_responses(
        &self,
        ws: &WorkspaceId,
        form: &FormId,
        page: PageRequest,
    ) -> StoreResult<Page<FormResponse>>;
    /// The newest `limit` responses of one form, or of every form of the workspace.
    async fn latest_responses(
        &self,
        ws: &WorkspaceId,
        form: Option<&FormId>,
        limit: u32,
    ) -> StoreResult<Vec<FormResponse>>;
}
