//! The stored shapes of a conversation (its channel and visitor) and of a message (its role,
//! text, citations and how it was made). Keys, times and counters are the backends' own.

use crate::RecordError;
use lore_domain::Timestamp;
use lore_domain::conversation::{
    Channel, Citation, Conversation, Email, GeneratedBy, Message, Role, Visitor, VisitorTokenHash,
};
use lore_domain::id::{ConversationId, MessageId, SourceId, WorkspaceId};
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
            citations: m
                .citations
                .iter()
                .map(|c| CitationRecord {
                    index: c.index,
                    source_id: c.source_id.as_str().to_owned(),
                    source_name: c.source_name.clone(),
                    source_type: c.source_type.as_str().to_owned(),
                    chunk_id: c.chunk_id.clone(),
                    url: c.url.clone(),
                    quote: c.quote.clone(),
                })
                .collect(),
            generated_by: m.generated_by.map(|g| g.as_str().to_owned()),
            model: m.model.clone(),
        }
    }

    pub fn into_message(self, keys: MessageKeys) -> Result<Message, RecordError> {
        let citations = self
            .citations
            .into_iter()
            .map(|c| {
                Ok(Citation {
                    index: c.index,
                    source_id: SourceId::parse(&c.source_id).ok_or_else(|| RecordError::of("citation source id"))?,
                    source_name: c.source_name,
                    source_type: SourceType::parse(&c.source_type)
                        .ok_or_else(|| RecordError::of("citation source type"))?,
                    chunk_id: c.chunk_id,
                    url: c.url,
                    quote: c.quote,
                })
            })
            .collect::<Result<Vec<_>, RecordError>>()?;
        let generated_by = match self.generated_by {
            None => None,
            Some(g) => Some(GeneratedBy::parse(&g).ok_or_else(|| RecordError::of("message generatedBy"))?),
        };
        Ok(Message {
            id: keys.id,
            conversation_id: keys.conversation_id,
            role: Role::parse(&self.role).ok_or_else(|| RecordError::of("message role"))?,
            content: self.content,
            citations,
            generated_by,
            model: self.model,
            created_at: keys.created_at,
        })
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
}
