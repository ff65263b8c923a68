//! Chatbot use cases (docs/api.md §5).

use crate::auth::Principal;
use crate::ports::StoreError;
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::chatbot::{Chatbot, ChatbotPatch, NewChatbot, SlugChoice};
use lore_domain::id::ChatbotId;
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::{DomainError, ErrorCode};

/// How many `-N` alternatives a generated slug tries before giving up.
const MAX_SLUG_ATTEMPTS: u32 = 1_000;

pub(crate) fn slug_taken(slug: &str) -> AppError {
    let mut e = DomainError::new(ErrorCode::SlugTaken, format!("the slug '{slug}' is already used in this workspace"));
    e.fields.insert("slug".into(), "is already taken".into());
    AppError::Rejected(e)
}

impl App {
    pub async fn create_chatbot(&self, p: &Principal, new: NewChatbot) -> Result<Chatbot, AppError> {
        let now = Timestamp::now();
        let (base, generated) = match new.slug {
            SlugChoice::Explicit(s) => (s, false),
            SlugChoice::Generated(s) => (s, true),
        };
        let mut chatbot = Chatbot {
            id: ChatbotId::generate(),
            workspace_id: p.workspace_id().clone(),
            name: new.name,
            slug: base.clone(),
            descriptor: new.descriptor,
            created_at: now,
            updated_at: now,
            source_count: 0,
            conversation_count: 0,
        };
        for n in 1..=MAX_SLUG_ATTEMPTS {
            chatbot.slug = base.with_suffix(n);
            match self.ports.chatbots.insert_chatbot(&chatbot).await {
                Ok(()) => return Ok(chatbot),
                Err(StoreError::Conflict("slug")) if generated => continue,
                Err(StoreError::Conflict("slug")) => return Err(slug_taken(chatbot.slug.as_str())),
                Err(e) => return Err(e.into()),
            }
        }
        Err(slug_taken(base.as_str()))
    }

    pub async fn get_chatbot(&self, p: &Principal, id: &ChatbotId) -> Result<Chatbot, AppError> {
        self.ports.chatbots.get_chatbot(p.workspace_id(), id).await?.ok_or(AppError::NotFound("chatbot"))
    }

    pub async fn list_chatbots(&self, p: &Principal, page: PageRequest) -> Result<Page<Chatbot>, AppError> {
        Ok(self.ports.chatbots.list_chatbots(p.workspace_id(), page).await?)
    }

    pub async fn update_chatbot(
        &self,
        p: &Principal,
        id: &ChatbotId,
        patch: ChatbotPatch,
    ) -> Result<Chatbot, AppError> {
        let mut chatbot = self.get_chatbot(p, id).await?;
        if patch.is_empty() {
            return Ok(chatbot);
        }
        if let Some(name) = patch.name {
            chatbot.name = name;
        }
        if let Some(slug) = patch.slug {
            chatbot.slug = slug;
        }
        if let Some(d) = patch.descriptor {
            chatbot.descriptor = d;
        }
        chatbot.updated_at = Timestamp::now();
        match self.ports.chatbots.update_chatbot(&chatbot).await {
            Ok(true) => Ok(chatbot),
            Ok(false) => Err(AppError::NotFound("chatbot")),
            Err(StoreError::Conflict("slug")) => Err(slug_taken(chatbot.slug.as_str())),
            Err(e) => Err(e.into()),
        }
    }

    pub async fn delete_chatbot(&self, p: &Principal, id: &ChatbotId) -> Result<(), AppError> {
        if self.ports.chatbots.delete_chatbot(p.workspace_id(), id).await? {
            // Its conversations: once the chatbot is gone none can be started.
            let owner = lore_domain::source::SourceOwner::Chatbot(id.clone());
            self.ports.conversations.delete_owner_conversations(p.workspace_id(), &owner).await?;
            // Its chunks, as for a Mind: an index in another database is not reached by the
            // records' delete, and an embedded one still holds the chatbot's postings in memory.
            // A failure leaves chunks that no search can reach (their sources are gone).
            if let Err(e) = self.ports.index.delete_owner_chunks(&owner).await {
                tracing::warn!(chatbot = %id, error = %e, "could not delete the chunks of a deleted chatbot");
            }
            Ok(())
        } else {
            Err(AppError::NotFound("chatbot"))
        }
    }
}
