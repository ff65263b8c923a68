//! Events the service emits (docs/api.md §13, §16.20). The envelope is built
//! from these at delivery time.

use crate::id::{EventId, WorkspaceId};
use crate::source::{KnowledgeSource, SourceOwner};
use crate::time::Timestamp;
use serde_json::{Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventType {
    FormResponse,
    SourceCreated,
    SourceReady,
    SourceError,
    SourceDeleted,
    /// A url source was crawled again and is ready, with what changed (docs/api.md §6).
    SourceRefreshed,
    /// A visitor left their e-mail address to chat with a published Mind (docs/api.md §17).
    LeadCaptured,
    /// The same for a published chatbot (docs/api.md §18).
    ChatbotLeadCaptured,
    /// An answer of a Mind or a chatbot was rated (docs/api.md §19).
    MessageRated,
    /// A conversation was handed to a person (docs/api.md §19).
    HandoffRequested,
    /// A person's conversations were erased on request (docs/api.md §22).
    PrivacyVisitorErased,
    /// A run of a Mind's or chatbot's answer tests finished (docs/api.md §21).
    TestsRunCompleted,
    /// A model called one of the owner's actions while answering (docs/api.md §23).
    ActionCalled,
}

impl EventType {
    pub const ALL: [EventType; 13] = [
        EventType::FormResponse,
        EventType::SourceCreated,
        EventType::SourceReady,
        EventType::SourceError,
        EventType::SourceDeleted,
        EventType::SourceRefreshed,
        EventType::LeadCaptured,
        EventType::ChatbotLeadCaptured,
        EventType::MessageRated,
        EventType::HandoffRequested,
        EventType::PrivacyVisitorErased,
        EventType::TestsRunCompleted,
        EventType::ActionCalled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            EventType::FormResponse => "form_response",
            EventType::SourceCreated => "knowledge.source.created",
            EventType::SourceReady => "knowledge.source.ready",
            EventType::SourceError => "knowledge.source.error",
            EventType::SourceDeleted => "knowledge.source.deleted",
            EventType::SourceRefreshed => "knowledge.source.refreshed",
            EventType::LeadCaptured => "mind.lead.captured",
            EventType::ChatbotLeadCaptured => "chatbot.lead.captured",
            EventType::MessageRated => "message.rated",
            EventType::HandoffRequested => "conversation.handoff_requested",
            EventType::PrivacyVisitorErased => "privacy.visitor.erased",
            EventType::TestsRunCompleted => "tests.run.completed",
            EventType::ActionCalled => "conversation.action.called",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// `knowledge.source.*`.
    pub fn is_knowledge(self) -> bool {
        matches!(
            self,
            Self::SourceCreated | Self::SourceReady | Self::SourceError | Self::SourceDeleted | Self::SourceRefreshed
        )
    }
}

/// The data member naming an owner: `mindId` or `chatbotId`.
fn owner_member(owner: &crate::source::SourceOwner) -> &'static str {
    if owner.is_mind() { "mindId" } else { "chatbotId" }
}

/// One event: what happened, in which workspace, with its `data` member.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: EventId,
    pub event_type: EventType,
    pub workspace_id: WorkspaceId,
    pub created_at: Timestamp,
    pub data: Value,
    /// `metadata` of the envelope (`source` on form responses).
    pub metadata: Value,
}

impl Event {
    pub fn new(event_type: EventType, workspace_id: WorkspaceId, data: Value) -> Self {
        Self {
            id: EventId::generate(),
            event_type,
            workspace_id,
            created_at: Timestamp::now(),
            data,
            metadata: json!({}),
        }
    }

    /// `mind.lead.captured` / `chatbot.lead.captured`: a visitor gave their address to chat with
    /// a published Mind or chatbot; `userId` is the verified user of the host site, if any.
    pub fn lead_captured(
        workspace_id: WorkspaceId,
        owner: &crate::source::SourceOwner,
        conversation_id: &crate::id::ConversationId,
        email: &str,
        name: Option<&str>,
        user_id: Option<&str>,
    ) -> Self {
        use crate::source::SourceOwner;
        let mut data = json!({"conversationId": conversation_id, "email": email, "name": name, "userId": user_id});
        let event_type = match owner {
            SourceOwner::Mind(id) => {
                data["mindId"] = json!(id);
                EventType::LeadCaptured
            }
            SourceOwner::Chatbot(id) => {
                data["chatbotId"] = json!(id);
                EventType::ChatbotLeadCaptured
            }
        };
        Self::new(event_type, workspace_id, data)
    }

    /// `message.rated`: `{mindId|chatbotId, conversationId, messageId, rating, comment}`.
    pub fn message_rated(
        workspace_id: WorkspaceId,
        owner: &crate::source::SourceOwner,
        conversation_id: &crate::id::ConversationId,
        message_id: &crate::id::MessageId,
        feedback: &crate::conversation::Feedback,
    ) -> Self {
        let mut data = json!({"conversationId": conversation_id, "messageId": message_id,
            "rating": feedback.rating.as_str(), "comment": feedback.comment});
        data[owner_member(owner)] = json!(owner.as_str());
        Self::new(EventType::MessageRated, workspace_id, data)
    }

    /// `conversation.handoff_requested`: `{mindId|chatbotId, conversationId, visitor, reason}`;
    /// `visitor` as the conversation shows it (`{email, name, userId}` or `null`).
    pub fn handoff_requested(
        c: &crate::conversation::Conversation,
        reason: Option<&crate::conversation::HandoffReason>,
    ) -> Self {
        let visitor = c.visitor.as_ref().map(|v| {
            json!({"email": v.email.as_ref().map(|e| e.as_str()), "name": v.name,
                "userId": v.user_id.as_ref().map(|u| u.as_str())})
        });
        let mut data = json!({"conversationId": c.id, "visitor": visitor, "reason": reason.map(|r| r.as_str())});
        data[owner_member(&c.owner)] = json!(c.owner.as_str());
        Self::new(EventType::HandoffRequested, c.workspace_id.clone(), data)
    }

    /// `privacy.visitor.erased`: `{email, userId, conversations}`, the person as the request
    /// named them (the other member `null`) and how many conversations were deleted.
    pub fn visitor_erased(
        workspace_id: WorkspaceId,
        person: &crate::visitor_match::VisitorMatch,
        conversations: u64,
    ) -> Self {
        let data = json!({"email": person.email(), "userId": person.user_id(), "conversations": conversations});
        Self::new(EventType::PrivacyVisitorErased, workspace_id, data)
    }

    /// `tests.run.completed`: `{mindId|chatbotId, runId, total, passed, failed, regressions}`.
    pub fn tests_run_completed(run: &crate::answer_test::TestRun) -> Self {
        let mut data = json!({"runId": run.id, "total": run.total(), "passed": run.passed,
            "failed": run.failed, "regressions": run.regressions});
        data[owner_member(&run.owner)] = json!(run.owner.as_str());
        Self::new(EventType::TestsRunCompleted, run.workspace_id.clone(), data)
    }

    /// `conversation.action.called`: `{mindId|chatbotId, conversationId, messageId, actionId, name,
    /// status}` — never the arguments or the answer (they may hold what a visitor typed).
    pub fn action_called(
        workspace_id: WorkspaceId,
        owner: &SourceOwner,
        conversation: &crate::id::ConversationId,
        message: &crate::id::MessageId,
        call: &crate::action::ActionCall,
    ) -> Self {
        let mut data = json!({"conversationId": conversation, "messageId": message, "actionId": call.action_id,
            "name": call.name, "status": call.status.as_str()});
        data[owner_member(owner)] = json!(owner.as_str());
        Self::new(EventType::ActionCalled, workspace_id, data)
    }

    /// A knowledge-source lifecycle event with the interface's data members.
    pub fn for_source(event_type: EventType, s: &KnowledgeSource) -> Self {
        // A Mind's source names its Mind and speaks the Mind vocabulary (docs/api.md §16.20).
        let owner_key = if s.owner.is_mind() { "mindId" } else { "chatbotId" };
        let mut data = json!({
            "sourceId": s.id,
            "sourceName": s.name,
            "sourceType": s.source_type().name_for(&s.owner),
            owner_key: s.owner.as_str(),
            "status": s.status.name_for(&s.owner),
        });
        match event_type {
            EventType::SourceReady | EventType::SourceRefreshed => data["chunkCount"] = json!(s.chunk_count),
            EventType::SourceError => data["error"] = json!(s.error.clone().unwrap_or_default()),
            _ => {}
        }
        if event_type == EventType::SourceDeleted {
            // The record is gone; the event says so rather than repeating its last state.
            data["status"] = json!("deleted");
        }
        Self::new(event_type, s.workspace_id.clone(), data)
    }

    /// `knowledge.source.refreshed`: the ready source's members with `pagesCrawled` and the
    /// pages `{added, changed, removed, unchanged}` since the crawl before.
    pub fn source_refreshed(s: &KnowledgeSource, pages: &crate::source::PageChanges) -> Self {
        let mut e = Self::for_source(EventType::SourceRefreshed, s);
        if let crate::source::SourceSpec::Url { pages_crawled, .. } = &s.spec {
            e.data["pagesCrawled"] = json!(pages_crawled);
        }
        e.data["pages"] = json!({"added": pages.added, "changed": pages.changed, "removed": pages.removed,
            "unchanged": pages.unchanged});
        e
    }

    /// The envelope POSTed to subscribers (the OpenAPI schema of "Envelope").
    pub fn envelope(&self) -> Value {
        json!({
            "eventType": self.event_type.as_str(),
            "eventId": self.id,
            "createdAt": self.created_at,
            "data": self.data,
            "metadata": self.metadata,
        })
    }
}
