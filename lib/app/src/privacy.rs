//! Privacy (docs/api.md §22): conversations deleted once their owner's `retentionDays` have
//! passed since their last message.
//!
//! The sweep walks every workspace's chatbots and Minds and, for those with a retention, their
//! conversations: no index is kept for it, so no write path (a message, a settings change) has
//! to maintain one, and a changed `retentionDays` applies to every conversation at the next
//! sweep. Its cost is a read of each retaining owner's conversation list per sweep, bounded by
//! the retention itself. Each expired conversation goes through the same delete as the API's
//! (its messages, ratings, hand-off state, visitor and unanswered questions; the owner's count
//! exact; the analytics counters stay).

use crate::App;
use crate::error::AppError;
use crate::ports::ConversationCursor;
use lore_domain::Timestamp;
use lore_domain::assistant::RetentionDays;
use lore_domain::id::WorkspaceId;
use lore_domain::pagination::PageRequest;
use lore_domain::source::SourceOwner;

/// Conversations read per page of an owner's walk.
const WALK_PAGE: u32 = 200;

impl App {
    /// Deletes every conversation whose owner keeps conversations `retentionDays` and whose last
    /// message is older than that at `now`; how many. The schedulers call it (at least every
    /// ten minutes, so a conversation goes within an hour of passing the age); tests call it
    /// with a clock of their choosing.
    pub async fn expire_conversations(&self, now: Timestamp) -> Result<u64, AppError> {
        let mut deleted = 0;
        for ws in self.ports.storage.workspaces.list_workspaces().await? {
            for (owner, days) in self.retaining_owners(&ws.id).await? {
                deleted += self.expire_owner_conversations(&ws.id, &owner, days.cutoff(now)).await?;
            }
        }
        Ok(deleted)
    }

    /// The workspace's chatbots and Minds that keep conversations a limited time.
    async fn retaining_owners(&self, ws: &WorkspaceId) -> Result<Vec<(SourceOwner, RetentionDays)>, AppError> {
        let storage = &self.ports.storage;
        let mut owners = Vec::new();
        for page in 1.. {
            let chatbots = storage.chatbots.list_chatbots(ws, PageRequest::new(page, 100)).await?;
            let done = chatbots.items.len() < 100;
            owners.extend(
                chatbots.items.into_iter().filter_map(|c| Some((SourceOwner::Chatbot(c.id), c.settings.retention?))),
            );
            if done {
                break;
            }
        }
        for page in 1.. {
            let minds = storage.minds.list_minds(ws, PageRequest::new(page, 100)).await?;
            let done = minds.items.len() < 100;
            owners
                .extend(minds.items.into_iter().filter_map(|m| Some((SourceOwner::Mind(m.id), m.settings.retention?))));
            if done {
                break;
            }
        }
        Ok(owners)
    }

    /// Deletes the owner's conversations last written before `cutoff`.
    async fn expire_owner_conversations(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        cutoff: Timestamp,
    ) -> Result<u64, AppError> {
        let conversations = &self.ports.storage.conversations;
        let mut deleted = 0;
        let mut cursor: Option<ConversationCursor> = None;
        loop {
            let page = conversations.conversations_before(ws, owner, cursor.as_ref(), WALK_PAGE).await?;
            let Some(last) = page.last() else { break };
            cursor = Some(ConversationCursor::after(last));
            let full = page.len() == WALK_PAGE as usize;
            for c in page.iter().filter(|c| c.updated_at < cutoff) {
                if conversations.delete_conversation(ws, owner, &c.id).await? {
                    deleted += 1;
                }
            }
            if !full {
                break;
            }
        }
        if deleted > 0 {
            tracing::info!(workspace = %ws, owner = %owner, conversations = deleted, "retention: deleted expired conversations");
        }
        Ok(deleted)
    }
}
