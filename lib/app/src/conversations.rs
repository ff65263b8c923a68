//! Conversations (docs/api.md §17): a Mind or a chatbot answers questions from its own ready
//! knowledge, citing it, and the turns are stored.
//!
//! A turn is two steps so that a streaming client sees refusals as plain HTTP errors and a
//! disconnecting client still gets its answer stored: [`App::begin_turn`] checks everything,
//! stores the user's message and retrieves the passages; [`App::finish_turn`] (which the HTTP
//! layer runs detached from the request) generates the answer and stores it.

use crate::auth::Principal;
use crate::ports::{Append, Passage, Persona, Prompt, SlotBudget, SlotKind, Turn};
use crate::search::{SearchMode, SearchRequest};
use crate::slots::Slot;
use crate::{App, AppError};
use lore_domain::conversation::Channel;
use lore_domain::conversation::{
    Citation, Conversation, GeneratedBy, MAX_MESSAGES, MAX_PASSAGES, MarkerFilter, Message, MessageContent,
    RECENT_DAYS, Role, Visitor, VisitorTokenHash, quote, shares_terms, terms, used_citations,
};
use lore_domain::id::{ConversationId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_domain::{DomainError, ErrorCode, Timestamp};

/// A question with fewer content words than this is read together with the previous question
/// ("and for Germany?" after "how long does shipping take?").
const SHORT_QUESTION_TERMS: usize = 4;
/// Earlier messages handed to the responder at most (it keeps the recent ones that fit its budget).
const HISTORY_MESSAGES: usize = 20;

/// Receives an answer as it is made: the passages it may cite first, then its text.
pub trait AnswerSink: Send + Sync {
    fn citations(&self, citations: &[Citation]);
    fn delta(&self, text: &str);
}

/// For callers that only want the stored result.
pub struct NoSink;

impl AnswerSink for NoSink {
    fn citations(&self, _: &[Citation]) {}
    fn delta(&self, _: &str) {}
}

/// A conversation with its messages, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    pub conversation: Conversation,
    pub messages: Vec<Message>,
}

/// A user's turn, stored and ready to be answered by [`App::finish_turn`].
pub struct PendingTurn {
    pub conversation: Conversation,
    /// The user's message (stored).
    pub question: Message,
    /// Every passage the answer may cite, numbered from 1.
    pub citations: Vec<Citation>,
    prompt: Prompt,
    /// The workspace's answer budget, held until the answer is stored.
    _slot: Slot,
}

fn conversation_full() -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::ConversationFull,
        format!("this conversation holds its {MAX_MESSAGES} messages; start a new conversation"),
    ))
}

fn generation_failed() -> AppError {
    AppError::Rejected(DomainError::new(
        ErrorCode::GenerationFailed,
        "the language model did not answer; your message is kept: send it again to retry",
    ))
}

impl App {
    /// The persona answering for `owner`, when the owner exists in the workspace.
    async fn persona(&self, ws: &WorkspaceId, owner: &SourceOwner) -> Result<(Persona, Option<String>), AppError> {
        match owner {
            SourceOwner::Mind(id) => {
                let m = self.ports.minds.get_mind(ws, id).await?.ok_or(AppError::NotFound("mind"))?;
                let persona = Persona {
                    name: m.name.as_str().to_owned(),
                    headline: m.headline.as_ref().map(|h| h.as_str().to_owned()),
                    instructions: m.system_prompt.as_ref().map(|s| s.as_str().to_owned()),
                    expertise_areas: m.expertise_areas.as_slice().to_vec(),
                    temperature: Some(m.temperature.value()),
                };
                Ok((persona, m.welcome_message.as_ref().map(|w| w.as_str().to_owned())))
            }
            SourceOwner::Chatbot(id) => {
                let c = self.ports.chatbots.get_chatbot(ws, id).await?.ok_or(AppError::NotFound("chatbot"))?;
                let instructions = (!c.descriptor.trim().is_empty()).then(|| c.descriptor.clone());
                let persona = Persona { name: c.name.as_str().to_owned(), instructions, ..Persona::default() };
                Ok((persona, c.welcome_message.as_ref().map(|w| w.as_str().to_owned())))
            }
        }
    }

    /// Starts a conversation: the welcome message first (when its owner has one), then, when the
    /// body has a `message`, its answer. `deltas` receives that answer as it is made.
    pub async fn start_conversation(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        channel: Channel,
        visitor: Option<Visitor>,
    ) -> Result<Transcript, AppError> {
        self.open_conversation(p.workspace_id(), owner, channel, visitor, None, false).await
    }

    pub(crate) async fn open_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        channel: Channel,
        visitor: Option<Visitor>,
        token: Option<VisitorTokenHash>,
        lead: bool,
    ) -> Result<Transcript, AppError> {
        let (_, welcome) = self.persona(ws, owner).await?;
        let now = Timestamp::now();
        let mut conversation = Conversation::start(ws.clone(), owner.clone(), channel, visitor, now);
        conversation.visitor_token = token;
        let messages: Vec<Message> = welcome
            .map(|w| Message::assistant(conversation.id.clone(), w, Vec::new(), GeneratedBy::Welcome, None, now))
            .into_iter()
            .collect();
        conversation.message_count = messages.len() as u64;
        // A visitor who gave their address to a Mind or chatbot that asks for it is a lead.
        let event = match (lead, conversation.visitor.as_ref().and_then(|v| v.email.as_ref().map(|e| (e, v)))) {
            (true, Some((email, v))) => Some(lore_domain::event::Event::lead_captured(
                ws.clone(),
                owner,
                &conversation.id,
                email.as_str(),
                v.name.as_deref(),
                v.user_id.as_ref().map(|u| u.as_str()),
            )),
            _ => None,
        };
        if !self.ports.conversations.insert_conversation(&conversation, &messages, event.as_ref()).await? {
            return Err(AppError::NotFound(if owner.is_mind() { "mind" } else { "chatbot" }));
        }
        if event.is_some() {
            self.ports.dispatch_signal.notify();
        }
        Ok(Transcript { conversation, messages })
    }

    pub async fn list_conversations(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> Result<Page<Conversation>, AppError> {
        self.own(p, owner).await?;
        Ok(self.ports.conversations.list_conversations(p.workspace_id(), owner, page).await?)
    }

    pub(crate) async fn find_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> Result<Conversation, AppError> {
        self.ports.conversations.get_conversation(ws, owner, id).await?.ok_or(AppError::NotFound("conversation"))
    }

    pub async fn get_conversation(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> Result<Transcript, AppError> {
        let conversation = self.find_conversation(p.workspace_id(), owner, id).await?;
        let messages = self.ports.conversations.list_messages(p.workspace_id(), id).await?;
        Ok(Transcript { conversation, messages })
    }

    pub async fn delete_conversation(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> Result<(), AppError> {
        if self.ports.conversations.delete_conversation(p.workspace_id(), owner, id).await? {
            Ok(())
        } else {
            Err(AppError::NotFound("conversation"))
        }
    }

    /// The owner's conversations created in the last [`RECENT_DAYS`] days.
    pub(crate) async fn recent_conversations(&self, ws: &WorkspaceId, owner: &SourceOwner) -> Result<u64, AppError> {
        let since = Timestamp::from_millis(Timestamp::now().millis() - RECENT_DAYS * 24 * 3600 * 1000);
        Ok(self.ports.conversations.count_conversations_since(ws, owner, since).await?)
    }

    /// The first step of a turn: checks the message and the room left, stores the user's
    /// message and retrieves the passages. Sending again the content of an unanswered last
    /// message (after `generation_failed`) answers that message instead of storing it twice.
    pub async fn begin_turn(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        content: MessageContent,
    ) -> Result<PendingTurn, AppError> {
        let (persona, _) = self.persona(ws, owner).await?;
        let mut conversation = self.find_conversation(ws, owner, id).await?;
        let slot = self.answer_slot(ws).await?;
        let mut history = self.ports.conversations.list_messages(ws, id).await?;
        let retry = history.last().filter(|m| m.role == Role::User && m.content == content.as_str()).cloned();
        let question = match retry {
            Some(unanswered) => {
                history.pop();
                if conversation.message_count + 1 > MAX_MESSAGES {
                    return Err(conversation_full());
                }
                unanswered
            }
            None => {
                // Room for the message and its answer.
                if conversation.message_count + 2 > MAX_MESSAGES {
                    return Err(conversation_full());
                }
                let message = Message::user(id.clone(), content, Timestamp::now());
                match self
                    .ports
                    .conversations
                    .append_messages(ws, id, std::slice::from_ref(&message), MAX_MESSAGES - 1)
                    .await?
                {
                    Append::Appended(c) => conversation = *c,
                    Append::Full => return Err(conversation_full()),
                    Append::NotFound => return Err(AppError::NotFound("conversation")),
                }
                message
            }
        };
        let query = retrieval_query(&question.content, &history);
        let found = self.retrieve(ws, owner, &query, &question.content).await?;
        // The model reads the whole chunk; the citation keeps its most relevant sentences.
        let passages = found
            .iter()
            .map(|(c, chunk)| Passage {
                index: c.index,
                source_name: c.source_name.clone(),
                content: chunk.clone(),
                quote: c.quote.clone(),
                on_topic: shares_terms(chunk, &question.content),
            })
            .collect();
        let citations = found.into_iter().map(|(c, _)| c).collect();
        let recent = history.iter().rev().take(HISTORY_MESSAGES).rev();
        let history = recent.map(|m| Turn { role: m.role, content: m.content.clone() }).collect();
        let prompt = Prompt { persona, passages, history, question: question.content.clone() };
        Ok(PendingTurn { conversation, question, citations, prompt, _slot: slot })
    }

    /// The second step: generates the answer (streamed to `sink`), keeps the citations its
    /// markers use and stores it. On a generation failure the user's message stays, unanswered.
    pub async fn finish_turn(&self, turn: PendingTurn, sink: &dyn AnswerSink) -> Result<Message, AppError> {
        let PendingTurn { conversation, citations, prompt, .. } = turn;
        sink.citations(&citations);
        let filter = std::sync::Mutex::new(MarkerFilter::new(citations.iter().map(|c| c.index)));
        let delta = |text: &str| {
            let shown = filter.lock().map(|mut f| f.push(text)).unwrap_or_default();
            if !shown.is_empty() {
                sink.delta(&shown);
            }
        };
        let generated = match self.ports.responder.respond(&prompt, &delta).await {
            Ok(g) => g,
            Err(e) => {
                tracing::warn!(conversation = %conversation.id, error = %e, "generating an answer failed");
                return Err(generation_failed());
            }
        };
        // The text as the client saw it: markers naming no passage removed.
        let mut check = MarkerFilter::new(citations.iter().map(|c| c.index));
        let mut text = check.push(&generated.text);
        text.push_str(&check.finish());
        let rest = filter.lock().map(|mut f| f.finish()).unwrap_or_default();
        if !rest.is_empty() {
            sink.delta(&rest);
        }
        let text = text.trim().to_owned();
        let cited = used_citations(&text, citations);
        let answer = Message::assistant(
            conversation.id.clone(),
            text,
            cited,
            generated.generated_by,
            generated.model,
            Timestamp::now(),
        );
        let ws = &conversation.workspace_id;
        match self
            .ports
            .conversations
            .append_messages(ws, &conversation.id, std::slice::from_ref(&answer), MAX_MESSAGES)
            .await?
        {
            Append::Appended(_) => Ok(answer),
            Append::Full => Err(conversation_full()),
            // Deleted while the answer was being written.
            Append::NotFound => Err(AppError::NotFound("conversation")),
        }
    }

    /// Room for one more answer of the workspace being written; `rate_limited` when it already
    /// writes `answers_per_workspace` (one tenant cannot hold every model call).
    /// On AWS the budget is shared by every instance; a store failure refuses the turn (as the
    /// store failing on the message itself would), rather than writing it unbudgeted.
    async fn answer_slot(&self, ws: &WorkspaceId) -> Result<Slot, AppError> {
        let limit = self.config.answers_per_workspace.max(1);
        let budget = SlotBudget { workspace: ws.clone(), kind: SlotKind::Answers };
        Slot::take(&self.ports.slots, budget, limit, self.config.slot_lease).await?.ok_or_else(|| AppError::Busy {
            what: format!("this workspace already has {limit} answers being written"),
            retry_after_secs: 2,
        })
    }

    /// The keyed API's turn: both steps.
    pub async fn send_message(
        &self,
        p: &Principal,
        owner: &SourceOwner,
        id: &ConversationId,
        content: MessageContent,
        sink: &dyn AnswerSink,
    ) -> Result<Message, AppError> {
        let turn = self.begin_turn(p.workspace_id(), owner, id, content).await?;
        self.finish_turn(turn, sink).await
    }

    /// The best passages for `query` among the owner's ready sources (hybrid search), as
    /// citations numbered from 1 whose quotes are the passages' sentences most about `question`,
    /// each with its whole chunk text.
    async fn retrieve(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        query: &str,
        question: &str,
    ) -> Result<Vec<(Citation, String)>, AppError> {
        let query: String = query.chars().take(crate::search::MAX_QUERY_CHARS).collect();
        let req = SearchRequest {
            query,
            top_k: MAX_PASSAGES,
            mode: SearchMode::Hybrid,
            min_score: None,
            source_ids: None,
            types: None,
        };
        let results = self.search_in(ws, owner, req).await?;
        Ok(results
            .hits
            .into_iter()
            .enumerate()
            .map(|(i, h)| {
                let citation = Citation {
                    index: i as u32 + 1,
                    source_id: h.source_id,
                    source_name: h.source_name,
                    source_type: h.source_type,
                    chunk_id: h.chunk_id,
                    url: h.url,
                    quote: quote(&h.content, question),
                };
                (citation, h.content)
            })
            .collect())
    }
}

/// What retrieval searches for: the question, preceded by the previous question when this one
/// is too short to stand alone.
fn retrieval_query(question: &str, history: &[Message]) -> String {
    if terms(question).len() >= SHORT_QUESTION_TERMS {
        return question.to_owned();
    }
    match history.iter().rev().find(|m| m.role == Role::User) {
        Some(previous) => format!("{}\n{question}", previous.content),
        None => question.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::id::ConversationId;

    #[test]
    fn a_short_question_is_read_with_the_previous_one() {
        let c = ConversationId::generate();
        let earlier = Message::user(
            c.clone(),
            MessageContent::parse("content", Some("How long does shipping to France take?")).unwrap(),
            Timestamp::now(),
        );
        assert_eq!(
            retrieval_query("And Germany?", std::slice::from_ref(&earlier)),
            "How long does shipping to France take?\nAnd Germany?"
        );
        let long = "What is the refund policy for damaged parcels?";
        assert_eq!(retrieval_query(long, &[earlier]), long);
        assert_eq!(retrieval_query("Germany?", &[]), "Germany?");
    }
}
