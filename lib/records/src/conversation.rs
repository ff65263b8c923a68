//! The stored shapes of a conversation (its channel and visitor) and of a message (its role,
//! text, citations and how it was made). Keys, times and counters are the backends' own.

use crate::RecordError;
use lore_domain::Timestamp;
use lore_domain::action::{ActionCall, CallStatus};
use lore_domain::channel::{ChannelLink, ChannelThread, PlatformFailure};
use lore_domain::conversation::{
    Channel, Citation, Conversation, ConversationStatus, Email, Feedback, GeneratedBy, Message, Rating, Role, Visitor,
    VisitorTokenHash,
};
use lore_domain::correction::{Correction, QuestionEmbedding};
use lore_domain::id::{ActionId, ChannelId, ConversationId, CorrectionId, MessageId, SourceId, WorkspaceId};
use lore_domain::source::{SourceOwner, SourceType};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, rename = "userId", skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationRecord {
    pub channel: String,
    #[serde(default)]
    pub visitor: Option<VisitorRecord>,
    /// SHA-256 of a public conversation's visitor token.
    #[serde(default, rename = "visitorTokenHash", skip_serializing_if = "Option::is_none")]
    pub visitor_token_hash: Option<String>,
    /// `open` or `handoff` (docs/api.md §19); conversations stored before read as `open`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Why the visitor asked for a person, while in `handoff`; absent otherwise (and on
    /// conversations stored before it was kept).
    #[serde(default, rename = "handoffReason", skip_serializing_if = "Option::is_none")]
    pub handoff_reason: Option<String>,
    /// Conversations held on a platform (docs/api.md §24).
    #[serde(default, rename = "channelLink", skip_serializing_if = "Option::is_none")]
    pub channel_link: Option<ChannelLinkRecord>,
    #[serde(default, rename = "channelError", skip_serializing_if = "Option::is_none")]
    pub channel_error: Option<PlatformFailureRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelLinkRecord {
    pub channel_id: String,
    pub chat: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
}

impl ChannelLinkRecord {
    pub fn of(l: &ChannelLink) -> Self {
        Self { channel_id: l.channel_id.to_string(), chat: l.thread.chat.clone(), thread: l.thread.thread.clone() }
    }

    pub fn into_link(self) -> Result<ChannelLink, RecordError> {
        Ok(ChannelLink {
            channel_id: ChannelId::parse(&self.channel_id).ok_or_else(|| RecordError::of("channel id"))?,
            thread: ChannelThread { chat: self.chat, thread: self.thread },
        })
    }
}

/// A platform call that failed for good, as a channel and a conversation keep it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatformFailureRecord {
    pub message: String,
    pub at: i64,
}

impl PlatformFailureRecord {
    pub fn of(f: &PlatformFailure) -> Self {
        Self { message: f.message.clone(), at: f.at.millis() }
    }

    pub fn into_failure(self) -> PlatformFailure {
        PlatformFailure { message: self.message, at: Timestamp::from_millis(self.at) }
    }
}

/// What the backends keep beside a [`ConversationRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationKeys {
    pub id: ConversationId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub message_count: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl ConversationRecord {
    pub fn of(c: &Conversation) -> Self {
        Self {
            channel: c.channel.as_str().to_owned(),
            visitor: c.visitor.as_ref().map(|v| VisitorRecord {
                email: v.email.as_ref().map(|e| e.as_str().to_owned()),
                name: v.name.clone(),
                user_id: v.user_id.as_ref().map(|u| u.as_str().to_owned()),
            }),
            visitor_token_hash: c.visitor_token.as_ref().map(|h| h.as_str().to_owned()),
            status: Some(c.status.as_str().to_owned()),
            handoff_reason: c.handoff_reason.clone(),
            channel_link: c.link.as_ref().map(ChannelLinkRecord::of),
            channel_error: c.channel_error.as_ref().map(PlatformFailureRecord::of),
        }
    }

    pub fn into_conversation(self, keys: ConversationKeys) -> Result<Conversation, RecordError> {
        Ok(Conversation {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            channel: Channel::parse(&self.channel).ok_or_else(|| RecordError::of("conversation channel"))?,
            visitor: self.visitor.map(|v| Visitor {
                email: v.email.map(Email::from_stored),
                name: v.name,
                user_id: v.user_id.map(lore_domain::embed::UserId::from_stored),
            }),
            visitor_token: self.visitor_token_hash.map(VisitorTokenHash::from_stored),
            message_count: keys.message_count,
            status: match self.status {
                None => ConversationStatus::Open,
                Some(s) => ConversationStatus::parse(&s).ok_or_else(|| RecordError::of("conversation status"))?,
            },
            handoff_reason: self.handoff_reason,
            link: self.channel_link.map(ChannelLinkRecord::into_link).transpose()?,
            channel_error: self.channel_error.map(PlatformFailureRecord::into_failure),
            created_at: keys.created_at,
            updated_at: keys.updated_at,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CitationRecord {
    pub index: u32,
    pub source_id: String,
    pub source_name: String,
    pub source_type: String,
    pub chunk_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub quote: String,
}

impl CitationRecord {
    pub fn of(c: &Citation) -> Self {
        Self {
            index: c.index,
            source_id: c.source_id.as_str().to_owned(),
            source_name: c.source_name.clone(),
            source_type: c.source_type.as_str().to_owned(),
            chunk_id: c.chunk_id.clone(),
            url: c.url.clone(),
            quote: c.quote.clone(),
        }
    }

    pub fn into_citation(self) -> Result<Citation, RecordError> {
        Ok(Citation {
            index: self.index,
            source_id: SourceId::parse(&self.source_id).ok_or_else(|| RecordError::of("citation source id"))?,
            source_name: self.source_name,
            source_type: SourceType::parse(&self.source_type).ok_or_else(|| RecordError::of("citation source type"))?,
            chunk_id: self.chunk_id,
            url: self.url,
            quote: self.quote,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    pub role: String,
    pub content: String,
    #[serde(default)]
    pub citations: Vec<CitationRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Stored from docs/api.md §19 on; an assistant message stored before reads as answered when
    /// it is a welcome message or cites a passage ([`Message::answers`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<FeedbackRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<ActionCallRecord>,
}

/// One action a model called while writing an answer (docs/api.md §23).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionCallRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    pub name: String,
    /// The arguments as JSON text: any JSON, which not every backend's map attribute can hold.
    pub arguments: String,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    pub took_ms: u64,
}

impl ActionCallRecord {
    pub fn of(c: &ActionCall) -> Self {
        Self {
            action_id: c.action_id.as_ref().map(|id| id.as_str().to_owned()),
            name: c.name.clone(),
            arguments: c.arguments.to_string(),
            status: c.status.as_str().to_owned(),
            http_status: c.http_status,
            took_ms: c.took_ms,
        }
    }

    pub fn into_call(self) -> Result<ActionCall, RecordError> {
        Ok(ActionCall {
            action_id: match self.action_id {
                Some(id) => Some(ActionId::parse(&id).ok_or_else(|| RecordError::of("action call id"))?),
                None => None,
            },
            name: self.name,
            arguments: serde_json::from_str(&self.arguments).map_err(|_| RecordError::of("action call arguments"))?,
            status: CallStatus::parse(&self.status).ok_or_else(|| RecordError::of("action call status"))?,
            http_status: self.http_status,
            took_ms: self.took_ms,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedbackRecord {
    pub rating: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Milliseconds since the epoch.
    pub at: i64,
}

/// What the backends keep beside a [`MessageRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageKeys {
    pub id: MessageId,
    pub conversation_id: ConversationId,
    pub created_at: Timestamp,
}

impl MessageRecord {
    pub fn of(m: &Message) -> Self {
        Self {
            role: m.role.as_str().to_owned(),
            content: m.content.clone(),
            citations: m.citations.iter().map(CitationRecord::of).collect(),
            generated_by: m.generated_by.map(|g| g.as_str().to_owned()),
            model: m.model.clone(),
            answered: m.answered,
            feedback: m.feedback.as_ref().map(|f| FeedbackRecord {
                rating: f.rating.as_str().to_owned(),
                comment: f.comment.clone(),
                at: f.at.millis(),
            }),
            actions: m.actions.iter().map(ActionCallRecord::of).collect(),
        }
    }

    pub fn into_message(self, keys: MessageKeys) -> Result<Message, RecordError> {
        let citations =
            self.citations.into_iter().map(CitationRecord::into_citation).collect::<Result<Vec<_>, RecordError>>()?;
        let generated_by = match self.generated_by {
            None => None,
            Some(g) => Some(GeneratedBy::parse(&g).ok_or_else(|| RecordError::of("message generatedBy"))?),
        };
        let role = Role::parse(&self.role).ok_or_else(|| RecordError::of("message role"))?;
        let answered = match (self.answered, role, generated_by) {
            (Some(a), _, _) => Some(a),
            (None, Role::User, _) => None,
            (None, Role::Agent, _) => Some(true),
            (None, Role::Assistant, g) => Some(Message::answers(g.unwrap_or(GeneratedBy::Extractive), &citations)),
        };
        let feedback = match self.feedback {
            None => None,
            Some(f) => Some(Feedback {
                rating: Rating::parse(&f.rating).ok_or_else(|| RecordError::of("feedback rating"))?,
                comment: f.comment,
                at: Timestamp::from_millis(f.at),
            }),
        };
        Ok(Message {
            id: keys.id,
            conversation_id: keys.conversation_id,
            role,
            content: self.content,
            citations,
            generated_by,
            model: self.model,
            answered,
            feedback,
            actions: self.actions.into_iter().map(ActionCallRecord::into_call).collect::<Result<_, _>>()?,
            created_at: keys.created_at,
        })
    }
}

/// A correction's document: its question, its answer and the question's embedding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CorrectionRecord {
    pub question: String,
    pub content: String,
    /// The embedder's model id and the vector (base64 of little-endian `f32`s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector: Option<String>,
}

/// What the backends keep beside a [`CorrectionRecord`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectionKeys {
    pub id: CorrectionId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub created_at: Timestamp,
}

impl CorrectionRecord {
    pub fn of(c: &Correction) -> Self {
        Self {
            question: c.question.clone(),
            content: c.content.clone(),
            model: c.embedding.as_ref().map(|e| e.model.clone()),
            vector: c.embedding.as_ref().map(QuestionEmbedding::encoded),
        }
    }

    pub fn into_correction(self, keys: CorrectionKeys) -> Correction {
        let embedding = match (self.model, self.vector) {
            (Some(model), Some(v)) => QuestionEmbedding::decode(model, &v),
            _ => None,
        };
        Correction {
            id: keys.id,
            workspace_id: keys.workspace_id,
            owner: keys.owner,
            question: self.question,
            content: self.content,
            embedding,
            created_at: keys.created_at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_round_trips() {
        let c = ConversationId::generate();
        let m = Message::assistant(
            c.clone(),
            "Refunds take 14 days [1].".into(),
            vec![Citation {
                index: 1,
                source_id: SourceId::generate(),
                source_name: "policy.md".into(),
                source_type: SourceType::parse("text").unwrap(),
                chunk_id: "src_x:0:0".into(),
                url: None,
                quote: "Refunds take 14 days.".into(),
            }],
            GeneratedBy::Llm,
            Some("gpt-4o-mini".into()),
            Timestamp::from_millis(1_700_000_000_000),
        );
        let keys = MessageKeys { id: m.id.clone(), conversation_id: c, created_at: m.created_at };
        let json = crate::to_json(&MessageRecord::of(&m));
        let back = crate::from_json::<MessageRecord>(&json, "message").unwrap().into_message(keys).unwrap();
        assert_eq!(back, m);
    }

    #[test]
    fn messages_stored_before_feedback_read_answered_from_their_citations() {
        let keys = || MessageKeys {
            id: MessageId::generate(),
            conversation_id: ConversationId::generate(),
            created_at: Timestamp::from_millis(1),
        };
        let read = |raw: &str| crate::from_json::<MessageRecord>(raw, "m").unwrap().into_message(keys()).unwrap();
        assert_eq!(read(r#"{"role":"user","content":"q"}"#).answered, None);
        assert_eq!(read(r#"{"role":"assistant","content":"a","generatedBy":"extractive"}"#).answered, Some(false));
        assert_eq!(read(r#"{"role":"assistant","content":"hi","generatedBy":"welcome"}"#).answered, Some(true));
        let cited = r#"{"role":"assistant","content":"a [1]","generatedBy":"llm","citations":[{"index":1,
            "sourceId":"src_01jq3z5v7b8c9d0e1f2g3h4j5k","sourceName":"p","sourceType":"text","chunkId":"c","quote":"q"}]}"#;
        assert_eq!(read(cited).answered, Some(true));
        let rated = r#"{"role":"assistant","content":"a","answered":false,"feedback":{"rating":"down","at":5}}"#;
        let m = read(rated);
        assert_eq!(m.feedback.unwrap().rating, Rating::Down);
    }
}
