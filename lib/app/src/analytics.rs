//! What the owner reads about its conversations (docs/api.md §19): the analytics report and the
//! export of every transcript.

use crate::auth::Principal;
use crate::conversations::Transcript;
use crate::ports::{ConversationCursor, ConversationStore};
use crate::{App, AppError};
use lore_domain::analytics::{Analytics, Day, DayRange};
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::conversation::Conversation;
use lore_domain::id::WorkspaceId;
use lore_domain::source::SourceOwner;
use std::collections::VecDeque;
use std::sync::Arc;

/// Conversations read from the store at a time by an export.
const EXPORT_PAGE: u32 = 50;

impl App {
    /// The owner's report over `range` (`conversations:read`): counters read, never messages.
    pub async fn analytics(&self, p: &Principal, owner: &SourceOwner, range: DayRange) -> Result<Analytics, AppError> {
        self.own(p, owner).await?;
        let stored = self.ports.storage.conversations.analytics(p.workspace_id(), owner, &range).await?;
        Ok(Analytics::new(range, stored))
    }

    /// Every conversation of the owner created in `range` (all when `None`), newest first, one
    /// transcript at a time (`conversations:read`).
    pub async fn export_conversations(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        range: Option<DayRange>,
    ) -> Result<ConversationExport, AppError> {
        self.own(p, owner).await?;
        // Recorded when the export starts (a read: no change to write it beside).
        let mut details = AuditDetails::new().text("scope", "owner");
        if let Some(r) = &range {
            details = details.text("from", &r.from.to_string()).text("to", &r.to.to_string());
        }
        self.audited(Self::audit_entry(p, AuditAction::ConversationExported, owner.to_string(), details)).await;
        Ok(ConversationExport {
            store: self.ports.storage.conversations.clone(),
            workspace: p.workspace_id().clone(),
            owner: owner.clone(),
            range,
            cursor: None,
            page: VecDeque::new(),
            done: false,
        })
    }
}

/// A walk over an owner's transcripts holding one page of conversations and one transcript at a
/// time: its memory does not grow with the owner's history. Conversations added during the walk
/// are not in it (they are newer than where it started); none is read twice.
pub struct ConversationExport {
    store: Arc<dyn ConversationStore>,
    workspace: WorkspaceId,
    owner: SourceOwner,
    range: Option<DayRange>,
    cursor: Option<ConversationCursor>,
    page: VecDeque<Conversation>,
    done: bool,
}

impl ConversationExport {
    /// The next transcript, `None` at the end.
    pub async fn next(&mut self) -> Result<Option<Transcript>, AppError> {
        loop {
            if let Some(conversation) = self.page.pop_front() {
                let messages = self.store.list_messages(&self.workspace, &conversation.id).await?;
                return Ok(Some(Transcript { conversation, messages }));
            }
            if self.done {
                return Ok(None);
            }
            let batch = self
                .store
                .conversations_before(&self.workspace, &self.owner, self.cursor.as_ref(), EXPORT_PAGE)
                .await?;
            let Some(last) = batch.last() else {
                self.done = true;
                continue;
            };
            self.cursor = Some(ConversationCursor::after(last));
            for c in batch {
                match self.range {
                    Some(r) if Day::of(c.created_at) > r.to => continue,
                    // Newest first: every later one is older still.
                    Some(r) if Day::of(c.created_at) < r.from => {
                        self.done = true;
                        break;
                    }
                    _ => self.page.push_back(c),
                }
            }
        }
    }
}
