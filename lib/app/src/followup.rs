//! What the owner learns and does after an answer (docs/api.md §19): visitors' feedback on
//! answers (`message.rated`), the owner's corrections (given again verbatim to later questions
//! that mean the same), and hand-off to a person (`conversation.handoff_requested`, agent
//! replies, resume).
//!
//! Each use case is written once over `(workspace, owner)`; the keyed entry points check the
//! key's owner, the visitor ones the visitor token ([`App::visitor_access`]).

use crate::auth::Principal;
use crate::ports::Append;
use crate::{App, AppError};
use lore_domain::assistant::AssistantSettings;
use lore_domain::conversation::{
    Conversation, ConversationStatus, Feedback, HandoffReason, MAX_MESSAGES, Message, MessageContent, Role,
    VisitorToken,
};
use lore_domain::correction::{Correction, QuestionEmbedding, fold};
use lore_domain::embed::{PublicKind, Published};
use lore_domain::event::Event;
use lore_domain::id::{ConversationId, CorrectionId, MessageId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};
use std::net::IpAddr;

/// Corrections an owner may hold: every question is compared with all of them.
pub const MAX_CORRECTIONS: usize = 500;

fn invalid_operation(message: impl Into<String>) -> AppError {
    AppError::Rejected(DomainError::new(ErrorCode::InvalidOperation, message))
}

/// A visitor's request: which conversation, with which token, from where.
pub struct VisitorRequest<'a> {
    pub kind: PublicKind,
    pub slug: &'a str,
    pub conversation: &'a ConversationId,
    pub token: Option<&'a VisitorToken>,
    pub client: Option<IpAddr>,
}

impl App {
    async fn visitor_owner(&self, v: &VisitorRequest<'_>) -> Result<Published, AppError> {
        self.visitor_access(v.kind, v.slug, v.conversation, v.token, v.client).await
    }

    // ---- feedback --------------------------------------------------------------------------

    async fn rate(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        feedback: Feedback,
        settings: &AssistantSettings,
    ) -> Result<Message, AppError> {
        self.find_conversation(ws, owner, conversation).await?;
        // A comment is visitor text like a message: redacted alike (§22).
        let feedback = if settings.redact_personal_data { feedback.redacted() } else { feedback };
        let messages = self.ports.storage.conversations.list_messages(ws, conversation).await?;
        let m = messages.into_iter().find(|m| &m.id == message).ok_or(AppError::NotFound("message"))?;
        if m.role != Role::Assistant {
            return Err(invalid_operation(format!(
                "only assistant messages can be rated; this one is the {}'s",
                m.role.as_str()
            )));
        }
        let event = Event::message_rated(ws.clone(), owner, conversation, &m.id, &feedback);
        let rated = self
            .ports
            .storage
            .conversations
            .rate_message(ws, owner, conversation, &m.id, &feedback, &event)
            .await?
            .ok_or(AppError::NotFound("message"))?;
        self.ports.dispatch_signal.notify();
        Ok(rated)
    }

    /// Rates an assistant message with a key (`chat:write`); a new rating replaces the last.
    pub async fn rate_message(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        feedback: Feedback,
    ) -> Result<Message, AppError> {
        // The owner's settings, read once: they also say whether the comment is redacted.
        let settings = self.assistant_settings(p.workspace_id(), owner).await?;
        self.rate(p.workspace_id(), owner, conversation, message, feedback, &settings).await
    }

    /// Rates an assistant message of the visitor's own conversation.
    pub async fn rate_public_message(
        &self,
        v: VisitorRequest<'_>,
        message: &MessageId,
        feedback: Feedback,
    ) -> Result<(Published, Message), AppError> {
        let published = self.visitor_owner(&v).await?;
        let (ws, owner) = (published.workspace_id(), published.owner());
        let m = self.rate(ws, &owner, v.conversation, message, feedback, published.settings()).await?;
        Ok((published, m))
    }

    // ---- hand-off --------------------------------------------------------------------------

    async fn hand_off(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        reason: Option<HandoffReason>,
        settings: &AssistantSettings,
    ) -> Result<Conversation, AppError> {
        let before = self.find_conversation(ws, owner, id).await?;
        let reason = if settings.redact_personal_data { reason.map(HandoffReason::redacted) } else { reason };
        // Asking again while a person already has it is no new request: the store writes the
        // event only when the status changes.
        let event = Event::handoff_requested(&before, reason.as_ref());
        let c = self
            .ports
            .storage
            .conversations
            .set_conversation_status(
                ws,
                owner,
                id,
                ConversationStatus::Handoff,
                reason.as_ref().map(|r| r.as_str()),
                Some(&event),
            )
            .await?
            .ok_or(AppError::NotFound("conversation"))?;
        self.ports.dispatch_signal.notify();
        Ok(c)
    }

    /// Hands a conversation to a person, with a key (`chat:write`).
    pub async fn request_handoff(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
        reason: Option<HandoffReason>,
    ) -> Result<Conversation, AppError> {
        let settings = self.assistant_settings(p.workspace_id(), owner).await?;
        self.hand_off(p.workspace_id(), owner, id, reason, &settings).await
    }

    /// The visitor asks for a person.
    pub async fn request_public_handoff(
        &self,
        v: VisitorRequest<'_>,
        reason: Option<HandoffReason>,
    ) -> Result<Conversation, AppError> {
        let published = self.visitor_owner(&v).await?;
        self.hand_off(published.workspace_id(), &published.owner(), v.conversation, reason, published.settings()).await
    }

    /// Hands the conversation back to the Mind or chatbot (`status: open`).
    pub async fn resume_conversation(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> Result<Conversation, AppError> {
        self.own(p, owner).await?;
        self.ports
            .storage
            .conversations
            .set_conversation_status(p.workspace_id(), owner, id, ConversationStatus::Open, None, None)
            .await?
            .ok_or(AppError::NotFound("conversation"))
    }

    /// A person's reply for the owner (`role: agent`), read by the visitor with the visitor read.
    pub async fn post_agent_message(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
        content: MessageContent,
    ) -> Result<Message, AppError> {
        self.own(p, owner).await?;
        let ws = p.workspace_id();
        self.find_conversation(ws, owner, id).await?;
        let message = Message::agent(id.clone(), content, Timestamp::now());
        match self.append(ws, owner, id, &message, None, MAX_MESSAGES).await? {
            Append::Appended(conversation) => {
                // Held on a platform: the reply is sent there too (docs/api.md §24).
                self.relay_agent_reply(&conversation, &message).await;
                Ok(message)
            }
            Append::Full => Err(crate::conversations::conversation_full()),
            Append::NotFound => Err(AppError::NotFound("conversation")),
        }
    }

    // ---- corrections -----------------------------------------------------------------------

    /// Stores the owner's answer to the question just before assistant message `message`
    /// (`chat:write`). A correction of the same question (after folding) is replaced, keeping
    /// its id and `createdAt`.
    pub async fn correct_answer(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        content: MessageContent,
    ) -> Result<Correction, AppError> {
        self.own(p, owner).await?;
        let ws = p.workspace_id();
        self.find_conversation(ws, owner, conversation).await?;
        let messages = self.ports.storage.conversations.list_messages(ws, conversation).await?;
        let at = messages.iter().position(|m| &m.id == message).ok_or(AppError::NotFound("message"))?;
        if messages[at].role != Role::Assistant {
            return Err(invalid_operation("only assistant messages can be corrected"));
        }
        let question = messages[..at]
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .ok_or_else(|| invalid_operation("this message answers no question (a welcome message)"))?
            .content
            .clone();
        let folded = fold(&question);
        let existing = self.ports.storage.conversations.list_corrections(ws, owner).await?;
        let same = existing.iter().find(|c| fold(&c.question) == folded);
        if same.is_none() && existing.len() >= MAX_CORRECTIONS {
            return Err(invalid_operation(format!(
                "this {} holds its {MAX_CORRECTIONS} corrections; delete one first",
                if owner.is_mind() { "Mind" } else { "chatbot" }
            )));
        }
        let embedding = self.question_embedding(&question).await;
        let correction = Correction {
            id: same.map_or_else(CorrectionId::generate, |c| c.id.clone()),
            workspace_id: ws.clone(),
            owner: owner.clone(),
            question,
            content: content.as_str().to_owned(),
            embedding,
            created_at: same.map_or_else(Timestamp::now, |c| c.created_at),
        };
        self.ports.storage.conversations.put_correction(&correction).await?;
        Ok(correction)
    }

    /// The owner's corrections, newest first.
    pub async fn list_corrections(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> Result<Page<Correction>, AppError> {
        self.own(p, owner).await?;
        let all = self.ports.storage.conversations.list_corrections(p.workspace_id(), owner).await?;
        let total = all.len() as u64;
        let items = all.into_iter().skip(page.offset() as usize).take(page.limit() as usize).collect();
        Ok(Page { items, total, request: page })
    }

    pub async fn delete_correction(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &CorrectionId,
    ) -> Result<(), AppError> {
        self.own(p, owner).await?;
        if self.ports.storage.conversations.delete_correction(p.workspace_id(), owner, id).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("correction"))
        }
    }

    /// The embedding of a question by the embedder search uses (cached: a question a turn
    /// embeds here is not embedded again by its search); `None` when the embedder fails. With
    /// the token states the turn's hybrid search reads, so that the turn makes one pass.
    async fn question_embedding(&self, question: &str) -> Option<QuestionEmbedding> {
        match self.query_embedding(question, true).await {
            Ok(e) if !e.vector.is_empty() => {
                Some(QuestionEmbedding { model: self.index_model().to_owned(), vector: e.vector.clone() })
            }
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(error = %e, "embedding a question for corrections failed");
                None
            }
        }
    }

    /// The owner's correction whose question means the same as `question`: equal after folding,
    /// else the most similar one at or above the owner's threshold. No embedding is made when
    /// the owner has no correction.
    pub(crate) async fn correction_for(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        threshold: lore_domain::correction::CorrectionThreshold,
        question: &str,
    ) -> Result<Option<Correction>, AppError> {
        let all = self.ports.storage.conversations.list_corrections(ws, owner).await?;
        if all.is_empty() {
            return Ok(None);
        }
        let folded = fold(question);
        if let Some(c) = all.iter().find(|c| fold(&c.question) == folded) {
            return Ok(Some(c.clone()));
        }
        let Some(q) = self.question_embedding(question).await else { return Ok(None) };
        let best = all
            .into_iter()
            .filter_map(|c| c.matches(&folded, Some((&q.model, &q.vector)), threshold).map(|s| (s, c)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        Ok(best.map(|(_, c)| c))
    }
}
