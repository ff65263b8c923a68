//! A person's requests about their data (docs/api.md §22): erase every conversation of the
//! workspace whose visitor is them, or export all of them with their messages.
//!
//! The person is found without an index of their own: the workspace's chatbots and Minds are
//! listed and each one's conversations walked (as the retention sweep does, `crate::privacy`),
//! keeping those whose visitor gave that e-mail address (compared without regard to case) or is
//! that verified `userId`. No write path has to keep anything up to date for it; its cost is a
//! read of the workspace's conversation lists per request, which is rare.

use crate::App;
use crate::auth::Principal;
use crate::error::AppError;
use lore_domain::audit::{AuditAction, AuditDetails};
use lore_domain::conversation::{Conversation, Message};
use lore_domain::event::Event;
use lore_domain::id::WorkspaceId;
use lore_domain::scope::Scope;
use lore_domain::visitor_match::{ErasureTrace, VisitorMatch};

/// What an erasure deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Erased {
    pub conversations: u64,
    /// The deleted conversations' messages, every role counted (their `messageCount`).
    pub messages: u64,
}

impl App {
    /// Deletes every conversation of the caller's workspace (every chatbot, every Mind) whose
    /// visitor is `person`, with its messages, and emits `privacy.visitor.erased` (also when
    /// nothing matched: the request was carried out). Scope `workspace:admin`.
    pub async fn erase_visitor(&self, p: &Principal, person: VisitorMatch) -> Result<Erased, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        let ws = p.workspace_id();
        let conversations = &self.ports.storage.conversations;
        let found = self.visitor_conversations(ws, &person).await?;
        // The entry says which kind of identifier named the person, never the identifier (the log
        // outlives the erasure), and what was found to erase. An erasure is one delete per
        // conversation: the entry goes in the transaction of the first one that deletes, or
        // alone when none does (nothing matched, or all went meanwhile).
        let details = AuditDetails::new()
            .text("by", if person.email().is_some() { "email" } else { "userId" })
            .count("conversations", found.len() as u64)
            .count("messages", found.iter().map(|c| c.message_count).sum());
        let mut entry = Some(Self::audit_entry(p, AuditAction::PrivacyErased, ws.as_str(), details));
        let mut erased = Erased::default();
        let mut trace = ErasureTrace::of(&person);
        for c in found {
            trace.add_conversation(&c);
            if conversations.delete_conversation_recorded(ws, &c.owner, &c.id, entry.as_ref()).await? {
                entry = None;
                erased.conversations += 1;
                erased.messages += c.message_count;
            }
        }
        if let Some(entry) = entry {
            self.audited(entry).await;
        }
        // What the store keeps beside the conversations: the events that named the person (a
        // lead, a rating, a hand-off) in the outbox and the delivery log lose their payload
        // (docs/decisions.md, "Privacy").
        let scrubbed = self.ports.storage.deliveries.erase_traces(ws, &trace).await?;
        tracing::debug!(workspace = %ws, events = scrubbed.events, deliveries = scrubbed.deliveries, "privacy: scrubbed events");
        tracing::info!(workspace = %ws, conversations = erased.conversations, "privacy: erased a visitor's conversations");
        self.publish(Event::visitor_erased(ws.clone(), &person, erased.conversations)).await;
        Ok(erased)
    }

    /// Every conversation of the caller's workspace whose visitor is `person`, newest first,
    /// each with its messages, oldest first. Scope `workspace:admin`.
    pub async fn export_visitor(
        &self,
        p: &Principal,
        person: VisitorMatch,
    ) -> Result<Vec<(Conversation, Vec<Message>)>, AppError> {
        p.require(Scope::WorkspaceAdmin)?;
        let ws = p.workspace_id();
        let mut found = self.visitor_conversations(ws, &person).await?;
        found.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        let mut out = Vec::with_capacity(found.len());
        for c in found {
            let messages = self.ports.storage.conversations.list_messages(ws, &c.id).await?;
            out.push((c, messages));
        }
        // A person's conversations read out of the workspace: recorded like an owner's export.
        let details = AuditDetails::new()
            .text("scope", "visitor")
            .text("by", if person.email().is_some() { "email" } else { "userId" })
            .count("conversations", out.len() as u64);
        self.audited(Self::audit_entry(p, AuditAction::ConversationExported, ws.as_str(), details)).await;
        Ok(out)
    }

    /// A sample `privacy.visitor.erased` envelope (docs/api.md §22): a made-up person.
    pub fn sample_visitor_erased(&self, p: &Principal) -> Vec<Event> {
        let person = VisitorMatch::parse(Some("visitor@example.com"), None).expect("a valid address");
        vec![Event::visitor_erased(p.workspace_id().clone(), &person, 2)]
    }

    /// The conversations of every chatbot and Mind of the workspace whose visitor is `person`.
    async fn visitor_conversations(
        &self,
        ws: &WorkspaceId,
        person: &VisitorMatch,
    ) -> Result<Vec<Conversation>, AppError> {
        let mut found = Vec::new();
        for (owner, _) in self.workspace_assistants(ws).await? {
            found.extend(self.owner_conversations_where(ws, &owner, |c| person.matches(c.visitor.as_ref())).await?);
        }
        Ok(found)
    }
}
