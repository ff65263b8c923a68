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
use lore_domain::assistant::AssistantSettings;
use lore_domain::conversation::Conversation;
use lore_domain::id::WorkspaceId;
use lore_domain::pagination::PageRequest;
use lore_domain::source::SourceOwner;

/// Conversations read per page of an owner's walk.
const WALK_PAGE: u32 = 200;
/// Chatbots or Minds listed per page.
const OWNER_PAGE: u32 = 100;

impl App {
    /// Deletes every conversation whose owner keeps conversations `retentionDays` and whose last
    /// message is older than that at `now`; how many. The schedulers call it (at least every
    /// ten minutes, so a conversation goes within an hour of passing the age); tests call it
    /// with a clock of their choosing.
    pub async fn expire_conversations(&self, now: Timestamp) -> Result<u64, AppError> {
        let mut deleted = 0;
        for ws in self.ports.storage.workspaces.list_workspaces().await? {
            for (owner, settings) in self.workspace_assistants(&ws.id).await? {
                if let Some(days) = settings.retention {
                    deleted += self.expire_owner_conversations(&ws.id, &owner, days.cutoff(now)).await?;
                }
            }
        }
        Ok(deleted)
    }

    /// Deletes the owner's conversations last written before `cutoff`.
    async fn expire_owner_conversations(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        cutoff: Timestamp,
    ) -> Result<u64, AppError> {
        let mut deleted = 0;
        for c in self.owner_conversations_where(ws, owner, |c| c.updated_at < cutoff).await? {
            if self.ports.storage.conversations.delete_conversation(ws, owner, &c.id).await? {
                deleted += 1;
            }
        }
        if deleted > 0 {
            tracing::info!(workspace = %ws, owner = %owner, conversations = deleted, "retention: deleted expired conversations");
        }
        Ok(deleted)
    }

    /// Every chatbot and Mind of the workspace, with its settings: what the retention sweep and
    /// a person's requests (`crate::privacy_requests`) walk.
    pub(crate) async fn workspace_assistants(
        &self,
        ws: &WorkspaceId,
    ) -> Result<Vec<(SourceOwner, AssistantSettings)>, AppError> {
        let storage = &self.ports.storage;
        let mut owners = Vec::new();
        for page in 1.. {
            let chatbots = storage.chatbots.list_chatbots(ws, PageRequest::new(page, OWNER_PAGE)).await?;
            let done = chatbots.items.len() < OWNER_PAGE as usize;
            owners.extend(chatbots.items.into_iter().map(|c| (SourceOwner::Chatbot(c.id), c.settings)));
            if done {
                break;
            }
        }
        for page in 1.. {
            let minds = storage.minds.list_minds(ws, PageRequest::new(page, OWNER_PAGE)).await?;
            let done = minds.items.len() < OWNER_PAGE as usize;
            owners.extend(minds.items.into_iter().map(|m| (SourceOwner::Mind(m.id), m.settings)));
            if done {
                break;
            }
        }
        Ok(owners)
    }

    /// The owner's conversations that `keep` accepts, read a page at a time in list order (a
    /// walk that neither repeats nor skips one while others are added or deleted).
    pub(crate) async fn owner_conversations_where(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        keep: impl Fn(&Conversation) -> bool,
    ) -> Result<Vec<Conversation>, AppError> {
        let conversations = &self.ports.storage.conversations;
        let mut kept = Vec::new();
        let mut cursor: Option<ConversationCursor> = None;
        loop {
            let page = conversations.conversations_before(ws, owner, cursor.as_ref(), WALK_PAGE).await?;
            let Some(last) = page.last() else { break };
            cursor = Some(ConversationCursor::after(last));
            let full = page.len() == WALK_PAGE as usize;
            kept.extend(page.into_iter().filter(|c| keep(c)));
            if !full {
                break;
            }
        }
        Ok(kept)
    }
}
