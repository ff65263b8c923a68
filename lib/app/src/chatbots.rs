//! Chatbot use cases (docs/api.md §5).

use crate::audit::chatbot_fields;
use crate::auth::Principal;
use crate::ports::{RevisedWrite, StoreError};
use crate::{App, AppError};
use lore_domain::Timestamp;
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::chatbot::{Chatbot, ChatbotPatch, NewChatbot, SlugChoice};
use lore_domain::embed::IdentitySecret;
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

fn public_slug_taken(c: &Chatbot) -> AppError {
    let mut e = DomainError::new(
        ErrorCode::SlugTaken,
        format!(
            "the public address /c/{} belongs to another published chatbot; give this chatbot another slug",
            c.slug
        ),
    );
    e.fields.insert("slug".into(), "is the public address of another published chatbot".into());
    AppError::Rejected(e)
}

impl App {
    pub async fn create_chatbot(&self, p: &Principal, new: NewChatbot) -> Result<Chatbot, AppError> {
        let now = Timestamp::now();
        let (base, generated) = match new.slug.clone() {
            SlugChoice::Explicit(s) => (s, false),
            SlugChoice::Generated(s) => (s, true),
        };
        let mut chatbot = Chatbot::create(p.workspace_id().clone(), new, base.clone(), now);
        for n in 1..=MAX_SLUG_ATTEMPTS {
            chatbot.slug = base.with_suffix(n);
            let details = AuditDetails::new().text("name", chatbot.name.as_str()).text("slug", chatbot.slug.as_str());
            let entry = Self::audit_entry(p, AuditAction::ChatbotCreated, chatbot.id.as_str(), details);
            match self.ports.storage.chatbots.insert_chatbot_recorded(&chatbot, Some(&entry)).await {
                Ok(()) => return Ok(chatbot),
                Err(StoreError::Conflict("slug")) if generated => continue,
                Err(StoreError::Conflict("slug")) => return Err(slug_taken(chatbot.slug.as_str())),
                Err(e) => return Err(e.into()),
            }
        }
        Err(slug_taken(base.as_str()))
    }

    pub async fn get_chatbot(&self, p: &Principal, id: &ChatbotId) -> Result<Chatbot, AppError> {
        self.ports.storage.chatbots.get_chatbot(p.workspace_id(), id).await?.ok_or(AppError::NotFound("chatbot"))
    }

    pub async fn list_chatbots(&self, p: &Principal, page: PageRequest) -> Result<Page<Chatbot>, AppError> {
        Ok(self.ports.storage.chatbots.list_chatbots(p.workspace_id(), page).await?)
    }

    pub async fn update_chatbot(
        &self,
        p: &Principal,
        id: &ChatbotId,
        patch: ChatbotPatch,
    ) -> Result<Chatbot, AppError> {
        if patch.is_empty() {
            return self.get_chatbot(p, id).await;
        }
        let fields = chatbot_fields(&patch);
        self.change_chatbot(
            p,
            id,
            |c| patch.apply(c),
            |c| {
                let details = AuditDetails::new().text("name", c.name.as_str()).names("fields", fields.iter().copied());
                (AuditAction::ChatbotUpdated, details)
            },
        )
        .await
    }

    /// Publishes (or unpublishes) the chatbot: its page is `/c/{slug}` while it is published.
    pub async fn publish_chatbot(&self, p: &Principal, id: &ChatbotId, publish: bool) -> Result<Chatbot, AppError> {
        self.change_chatbot(
            p,
            id,
            |c| c.is_published = publish,
            |c| {
                (
                    AuditAction::ChatbotPublished,
                    AuditDetails::new().text("name", c.name.as_str()).flag("published", publish),
                )
            },
        )
        .await
    }

    /// A new identity secret for the chatbot, replacing the one before (docs/api.md §18).
    pub async fn new_chatbot_identity_secret(&self, p: &Principal, id: &ChatbotId) -> Result<IdentitySecret, AppError> {
        let secret = IdentitySecret::generate();
        // The secret itself is never in the entry.
        self.change_chatbot(
            p,
            id,
            |c| c.settings.embed.identity_secret = Some(secret.clone()),
            |_| (AuditAction::IdentitySecretCreated, AuditDetails::new().text("owner", "chatbot")),
        )
        .await?;
        Ok(secret)
    }

    /// Reads the chatbot, applies `change`, and writes it back unless another write came first,
    /// in which case it starts over from the newer chatbot (as Minds do): concurrent changes of
    /// different settings all land. `audit` names the change for the audit log, written with it.
    async fn change_chatbot(
        &self,
        p: &Principal,
        id: &ChatbotId,
        change: impl Fn(&mut Chatbot),
        audit: impl Fn(&Chatbot) -> (AuditAction, AuditDetails),
    ) -> Result<Chatbot, AppError> {
        for _ in 0..crate::minds::MAX_WRITE_ATTEMPTS {
            let current = self.get_chatbot(p, id).await?;
            let mut chatbot = current.clone();
            change(&mut chatbot);
            chatbot.updated_at = Timestamp::now().max(current.updated_at);
            chatbot.revision = current.revision + 1;
            let (action, details) = audit(&chatbot);
            let entry = Self::audit_entry(p, action, id.as_str(), details);
            match self.ports.storage.chatbots.update_chatbot_recorded(&chatbot, Some(&entry)).await {
                Ok(RevisedWrite::Done) => return Ok(chatbot),
                Ok(RevisedWrite::NotFound) => return Err(AppError::NotFound("chatbot")),
                Ok(RevisedWrite::Stale) => continue,
                Err(StoreError::Conflict("slug")) => return Err(slug_taken(chatbot.slug.as_str())),
                Err(StoreError::Conflict("public_slug")) => return Err(public_slug_taken(&chatbot)),
                Err(e) => return Err(e.into()),
            }
        }
        Err(crate::minds::too_contended())
    }

    /// The published chatbot behind `/c/{slug}` (no key: the page is public).
    pub async fn published_chatbot(&self, slug: &str) -> Result<Chatbot, AppError> {
        let slug = lore_domain::slug::Slug::parse("slug", slug).map_err(|_| AppError::NotFound("chatbot"))?;
        self.ports.storage.chatbots.find_published_chatbot(slug.as_str()).await?.ok_or(AppError::NotFound("chatbot"))
    }

    pub async fn delete_chatbot(&self, p: &Principal, id: &ChatbotId) -> Result<(), AppError> {
        let entry = Self::audit_entry(p, AuditAction::ChatbotDeleted, id.as_str(), AuditDetails::new());
        let owner = lore_domain::source::SourceOwner::Chatbot(id.clone());
        let channels = self.owner_channels(p.workspace_id(), &owner).await?;
        if self.ports.storage.chatbots.delete_chatbot_recorded(p.workspace_id(), id, Some(&entry)).await? {
            // Its conversations: once the chatbot is gone none can be started.
            self.ports.storage.conversations.delete_owner_conversations(p.workspace_id(), &owner).await?;
            self.ports.storage.tests.delete_owner_tests(p.workspace_id(), &owner).await?;
            self.ports.storage.actions.delete_owner_actions(p.workspace_id(), &owner).await?;
            self.delete_owner_channels(p.workspace_id(), &owner, &channels).await?;
            // Its chunks, as for a Mind: an index in another database is not reached by the
            // records' delete, and an embedded one still holds the chatbot's postings in memory.
            // A failure leaves chunks that no search can reach (their sources are gone).
            if let Err(e) = self.ports.storage.index.delete_owner_chunks(&owner).await {
                tracing::warn!(chatbot = %id, error = %e, "could not delete the chunks of a deleted chatbot");
            }
            Ok(())
        } else {
            Err(AppError::NotFound("chatbot"))
        }
    }
}
