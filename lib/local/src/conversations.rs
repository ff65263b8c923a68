//! Conversations and their messages (`ConversationStore`) on [`SqliteStore`]. A conversation
//! and its owner's count, or messages and the conversation's count, are written in one
//! transaction.

use crate::events::insert_event;
use crate::paging::paged;
use crate::sqlite::{SqliteStore, unavailable};
use async_trait::async_trait;
use lore_app::ports::{Append, ConversationCursor, ConversationStore, StoreResult};
use lore_domain::Timestamp;
use lore_domain::analytics::{
    Counts, Day, DayRange, SourceCitations, StoredAnalytics, TOP_SOURCES, Tally, UNANSWERED_QUESTIONS,
    UnansweredQuestion,
};
use lore_domain::conversation::{Conversation, ConversationStatus, Feedback, Message};
use lore_domain::correction::Correction;
use lore_domain::event::Event;
use lore_domain::id::{ConversationId, CorrectionId, MessageId, SourceId, WorkspaceId};
use lore_domain::pagination::{Page, PageRequest};
use lore_domain::source::SourceOwner;
use lore_records::{
    ConversationKeys, ConversationRecord, CorrectionKeys, CorrectionRecord, MessageKeys, MessageRecord, from_json,
    to_json,
};
use rusqlite::{Connection, OptionalExtension, Row, params};

const COLS: &str = "id, workspace_id, owner_id, details, message_count, created_at, updated_at";

fn malformed(e: impl std::fmt::Display) -> rusqlite::Error {
    rusqlite::Error::InvalidColumnName(e.to_string())
}

fn conversation_from(r: &Row<'_>) -> rusqlite::Result<Conversation> {
    let keys = ConversationKeys {
        id: ConversationId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed conversation id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed conversation owner"))?,
        message_count: r.get::<_, i64>(4)?.max(0) as u64,
        created_at: Timestamp::from_millis(r.get(5)?),
        updated_at: Timestamp::from_millis(r.get(6)?),
    };
    from_json::<ConversationRecord>(&r.get::<_, String>(3)?, "conversation")
        .and_then(|d| d.into_conversation(keys))
        .map_err(malformed)
}

fn message_from(r: &Row<'_>) -> rusqlite::Result<Message> {
    let keys = MessageKeys {
        id: MessageId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed message id"))?,
        conversation_id: ConversationId::parse(&r.get::<_, String>(1)?)
            .ok_or_else(|| malformed("malformed conversation id"))?,
        created_at: Timestamp::from_millis(r.get(3)?),
    };
    from_json::<MessageRecord>(&r.get::<_, String>(2)?, "message").and_then(|d| d.into_message(keys)).map_err(malformed)
}

fn correction_from(r: &Row<'_>) -> rusqlite::Result<Correction> {
    let keys = CorrectionKeys {
        id: CorrectionId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed correction id"))?,
        workspace_id: WorkspaceId::parse(&r.get::<_, String>(1)?).ok_or_else(|| malformed("malformed workspace id"))?,
        owner: SourceOwner::parse(&r.get::<_, String>(2)?).ok_or_else(|| malformed("malformed correction owner"))?,
        created_at: Timestamp::from_millis(r.get(4)?),
    };
    from_json::<CorrectionRecord>(&r.get::<_, String>(3)?, "correction")
        .map(|d| d.into_correction(keys))
        .map_err(malformed)
}

fn insert_messages(tx: &Connection, messages: &[Message]) -> StoreResult<()> {
    let mut st = tx
        .prepare_cached("INSERT INTO messages (id, conversation_id, body, created_at) VALUES (?1, ?2, ?3, ?4)")
        .map_err(unavailable)?;
    for m in messages {
        st.execute(params![
            m.id.as_str(),
            m.conversation_id.as_str(),
            to_json(&MessageRecord::of(m)),
            m.created_at.millis()
        ])
        .map_err(unavailable)?;
    }
    Ok(())
}

/// Adds `delta` to a chatbot's `conversation_count` (a Mind's is counted from its conversations).
fn count_on_owner(tx: &Connection, owner: &SourceOwner, delta: i64) -> StoreResult<()> {
    if let SourceOwner::Chatbot(id) = owner {
        tx.execute(
            "UPDATE chatbots SET conversation_count = MAX(conversation_count + ?2, 0) WHERE id = ?1",
            params![id.as_str(), delta],
        )
        .map_err(unavailable)?;
    }
    Ok(())
}

/// Adds what a write changes to the owner's analytics, in that write's transaction.
fn add_tally(tx: &Connection, t: &Tally) -> StoreResult<()> {
    if t.is_empty() {
        return Ok(());
    }
    let (owner, ws, day) = (t.owner.as_str(), t.workspace_id.as_str(), t.day.to_string());
    if !t.counts.is_zero() {
        let c = &t.counts;
        tx.prepare_cached(
            "INSERT INTO analytics_days (owner_id, day, workspace_id, conversations, messages, leads, answered,
                                         unanswered, ratings_up, ratings_down)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
             ON CONFLICT (owner_id, day) DO UPDATE SET
                 conversations = conversations + excluded.conversations, messages = messages + excluded.messages,
                 leads = leads + excluded.leads, answered = answered + excluded.answered,
                 unanswered = unanswered + excluded.unanswered, ratings_up = ratings_up + excluded.ratings_up,
                 ratings_down = ratings_down + excluded.ratings_down",
        )
        .and_then(|mut st| {
            st.execute(params![
                owner,
                day,
                ws,
                c.conversations,
                c.messages,
                c.leads,
                c.answered,
                c.unanswered,
                c.ratings_up,
                c.ratings_down
            ])
        })
        .map_err(unavailable)?;
    }
    for (source, name) in &t.cited {
        tx.prepare_cached(
            "INSERT INTO analytics_sources (owner_id, day, source_id, workspace_id, source_name, citations)
             VALUES (?1, ?2, ?3, ?4, ?5, 1)
             ON CONFLICT (owner_id, day, source_id) DO UPDATE SET
                 citations = citations + 1, source_name = excluded.source_name",
        )
        .and_then(|mut st| st.execute(params![owner, day, source.as_str(), ws, name]))
        .map_err(unavailable)?;
    }
    if let Some(q) = &t.unanswered {
        tx.prepare_cached(
            "INSERT OR IGNORE INTO unanswered_questions (message_id, conversation_id, owner_id, question, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .and_then(|mut st| {
            st.execute(params![
                q.message_id.as_str(),
                q.conversation_id.as_str(),
                owner,
                q.question,
                q.created_at.millis()
            ])
        })
        .map_err(unavailable)?;
    }
    Ok(())
}

fn analytics_of(c: &Connection, ws: &str, owner: &str, range: &DayRange) -> rusqlite::Result<StoredAnalytics> {
    let (from, to) = (range.from.to_string(), range.to.to_string());
    let mut st = c.prepare_cached(
        "SELECT day, conversations, messages, leads, answered, unanswered, ratings_up, ratings_down
         FROM analytics_days WHERE owner_id = ?1 AND workspace_id = ?2 AND day BETWEEN ?3 AND ?4",
    )?;
    let days = st
        .query_map(params![owner, ws, from, to], |r| {
            let day = Day::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed analytics day"))?;
            let counts = Counts {
                conversations: r.get(1)?,
                messages: r.get(2)?,
                leads: r.get(3)?,
                answered: r.get(4)?,
                unanswered: r.get(5)?,
                ratings_up: r.get(6)?,
                ratings_down: r.get(7)?,
            };
            Ok((day, counts))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // The name of a source is the one it was last cited under in the range.
    let mut st = c.prepare_cached(
        "SELECT source_id, SUM(citations) AS n,
                (SELECT source_name FROM analytics_sources l WHERE l.owner_id = s.owner_id
                     AND l.source_id = s.source_id AND l.day <= ?4 ORDER BY l.day DESC LIMIT 1)
         FROM analytics_sources s WHERE owner_id = ?1 AND workspace_id = ?2 AND day BETWEEN ?3 AND ?4
         GROUP BY source_id HAVING n > 0 ORDER BY n DESC, source_id LIMIT ?5",
    )?;
    let top_sources = st
        .query_map(params![owner, ws, from, to, TOP_SOURCES as i64], |r| {
            Ok(SourceCitations {
                source_id: SourceId::parse(&r.get::<_, String>(0)?).ok_or_else(|| malformed("malformed source id"))?,
                citations: r.get::<_, i64>(1)?.max(0) as u64,
                source_name: r.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let mut st = c.prepare_cached(
        "SELECT q.message_id, q.conversation_id, q.question, q.created_at FROM unanswered_questions q
         JOIN conversations c ON c.id = q.conversation_id
         WHERE q.owner_id = ?1 AND c.workspace_id = ?2 AND q.created_at >= ?3 AND q.created_at < ?4
         ORDER BY q.created_at DESC, q.message_id DESC LIMIT ?5",
    )?;
    let unanswered = st
        .query_map(
            params![owner, ws, range.from.start().millis(), range.to.end().millis(), UNANSWERED_QUESTIONS as i64],
            |r| {
                Ok(UnansweredQuestion {
                    message_id: MessageId::parse(&r.get::<_, String>(0)?)
                        .ok_or_else(|| malformed("malformed message id"))?,
                    conversation_id: ConversationId::parse(&r.get::<_, String>(1)?)
                        .ok_or_else(|| malformed("malformed conversation id"))?,
                    question: r.get(2)?,
                    created_at: Timestamp::from_millis(r.get(3)?),
                })
            },
        )?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(StoredAnalytics { days, top_sources, unanswered })
}

impl SqliteStore {
    /// How many conversations and messages are stored, in every workspace (operators, tests).
    pub async fn conversation_rows(&self) -> StoreResult<(u64, u64)> {
        self.read(|c| {
            c.query_row("SELECT (SELECT COUNT(*) FROM conversations), (SELECT COUNT(*) FROM messages)", [], |r| {
                Ok((r.get::<_, i64>(0)?.max(0) as u64, r.get::<_, i64>(1)?.max(0) as u64))
            })
            .map_err(unavailable)
        })
        .await
    }
}

#[async_trait]
impl ConversationStore for SqliteStore {
    async fn insert_conversation(
        &self,
        conversation: &Conversation,
        messages: &[Message],
        event: Option<&Event>,
    ) -> StoreResult<bool> {
        let (c, messages, event) = (conversation.clone(), messages.to_vec(), event.cloned());
        self.write(move |tx| {
            let (chatbot, mind) = (c.owner.chatbot().map(|i| i.as_str()), c.owner.mind().map(|i| i.as_str()));
            let n = tx
                .execute(
                    "INSERT INTO conversations
                             (id, workspace_id, chatbot_id, mind_id, details, message_count, created_at, updated_at)
                         SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 WHERE EXISTS
                             (SELECT 1 FROM chatbots WHERE id = ?3 AND workspace_id = ?2
                              UNION ALL SELECT 1 FROM minds WHERE id = ?4 AND workspace_id = ?2)",
                    params![
                        c.id.as_str(),
                        c.workspace_id.as_str(),
                        chatbot,
                        mind,
                        to_json(&ConversationRecord::of(&c)),
                        messages.len() as i64,
                        c.created_at.millis(),
                        c.updated_at.millis()
                    ],
                )
                .map_err(unavailable)?;
            if n == 0 {
                return Ok(false);
            }
            insert_messages(tx, &messages)?;
            count_on_owner(tx, &c.owner, 1)?;
            add_tally(tx, &Tally::started(&c))?;
            if let Some(e) = &event {
                insert_event(tx, e)?;
            }
            Ok(true)
        })
        .await
    }

    async fn get_conversation(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
    ) -> StoreResult<Option<Conversation>> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.lookup(move |c| {
            c.prepare_cached(&format!(
                "SELECT {COLS} FROM conversations WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"
            ))
            .and_then(|mut st| st.query_row([id.as_str(), ws.as_str(), owner.as_str()], conversation_from).optional())
            .map_err(unavailable)
        })
        .await
    }

    async fn list_conversations(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        page: PageRequest,
    ) -> StoreResult<Page<Conversation>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            paged(
                c,
                "SELECT COUNT(*) FROM conversations WHERE owner_id = ?1 AND workspace_id = ?2",
                &format!(
                    "SELECT {COLS} FROM conversations WHERE owner_id = ?1 AND workspace_id = ?2
                     ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
                ),
                &[&owner.as_str(), &ws.as_str()],
                page,
                conversation_from,
            )
            .map_err(unavailable)
        })
        .await
    }

    async fn list_messages(&self, ws: &WorkspaceId, id: &ConversationId) -> StoreResult<Vec<Message>> {
        let (ws, id) = (ws.clone(), id.clone());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT m.id, m.conversation_id, m.body, m.created_at FROM messages m
                     JOIN conversations c ON c.id = m.conversation_id
                     WHERE m.conversation_id = ?1 AND c.workspace_id = ?2 ORDER BY m.id",
                )
                .map_err(unavailable)?;
            let rows = st.query_map([id.as_str(), ws.as_str()], message_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn recent_messages(&self, ws: &WorkspaceId, id: &ConversationId, limit: u32) -> StoreResult<Vec<Message>> {
        let (ws, id) = (ws.clone(), id.clone());
        let mut newest_first = self
            .read(move |c| {
                let mut st = c
                    .prepare_cached(
                        "SELECT m.id, m.conversation_id, m.body, m.created_at FROM messages m
                         JOIN conversations c ON c.id = m.conversation_id
                         WHERE m.conversation_id = ?1 AND c.workspace_id = ?2 ORDER BY m.id DESC LIMIT ?3",
                    )
                    .map_err(unavailable)?;
                let rows = st
                    .query_map(rusqlite::params![id.as_str(), ws.as_str(), i64::from(limit)], message_from)
                    .map_err(unavailable)?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
            })
            .await?;
        newest_first.reverse();
        Ok(newest_first)
    }

    async fn append_messages(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        messages: &[Message],
        max: u64,
        tally: &Tally,
    ) -> StoreResult<Append> {
        let (ws, id, messages, tally) = (ws.clone(), id.clone(), messages.to_vec(), tally.clone());
        self.write(move |tx| {
            let Some(count) = tx
                .query_row(
                    "SELECT message_count FROM conversations WHERE id = ?1 AND workspace_id = ?2",
                    [id.as_str(), ws.as_str()],
                    |r| r.get::<_, i64>(0),
                )
                .optional()
                .map_err(unavailable)?
            else {
                return Ok(Append::NotFound);
            };
            if count.max(0) as u64 + messages.len() as u64 > max {
                return Ok(Append::Full);
            }
            insert_messages(tx, &messages)?;
            add_tally(tx, &tally)?;
            let updated = messages.iter().map(|m| m.created_at.millis()).max().unwrap_or(0);
            tx.execute(
                "UPDATE conversations SET message_count = message_count + ?2, updated_at = MAX(updated_at, ?3)
                 WHERE id = ?1",
                params![id.as_str(), messages.len() as i64, updated],
            )
            .map_err(unavailable)?;
            let c = tx
                .query_row(&format!("SELECT {COLS} FROM conversations WHERE id = ?1"), [id.as_str()], conversation_from)
                .map_err(unavailable)?;
            Ok(Append::Appended(Box::new(c)))
        })
        .await
    }

    async fn delete_conversation_recorded(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        audit: Option<&lore_domain::audit::AuditEntry>,
    ) -> StoreResult<bool> {
        let (ws, owner, id, audit) = (ws.clone(), owner.clone(), id.clone(), audit.cloned());
        self.write(move |tx| {
            // Its messages go with it (ON DELETE CASCADE).
            let n = tx
                .execute(
                    "DELETE FROM conversations WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3",
                    [id.as_str(), ws.as_str(), owner.as_str()],
                )
                .map_err(unavailable)?;
            if n == 1 {
                count_on_owner(tx, &owner, -1)?;
                if let Some(e) = &audit {
                    crate::audit::insert_audit(tx, e).map_err(unavailable)?;
                }
            }
            Ok(n == 1)
        })
        .await
    }

    async fn delete_owner_conversations(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<u64> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "DELETE FROM conversations WHERE owner_id = ?1 AND workspace_id = ?2",
                    [owner.as_str(), ws.as_str()],
                )
                .map_err(unavailable)?;
            count_on_owner(tx, &owner, -(n as i64))?;
            for table in ["corrections", "analytics_days", "analytics_sources"] {
                tx.execute(
                    &format!("DELETE FROM {table} WHERE owner_id = ?1 AND workspace_id = ?2"),
                    [owner.as_str(), ws.as_str()],
                )
                .map_err(unavailable)?;
            }
            Ok(n as u64)
        })
        .await
    }

    async fn rate_message(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        conversation: &ConversationId,
        message: &MessageId,
        feedback: &Feedback,
        event: &Event,
    ) -> StoreResult<Option<Message>> {
        let (ws, owner, conversation, message, feedback, event) =
            (ws.clone(), owner.clone(), conversation.clone(), message.clone(), feedback.clone(), event.clone());
        self.write(move |tx| {
            let found = tx
                .query_row(
                    "SELECT m.id, m.conversation_id, m.body, m.created_at FROM messages m
                     JOIN conversations c ON c.id = m.conversation_id
                     WHERE m.id = ?1 AND m.conversation_id = ?2 AND c.workspace_id = ?3 AND c.owner_id = ?4",
                    [message.as_str(), conversation.as_str(), ws.as_str(), owner.as_str()],
                    message_from,
                )
                .optional()
                .map_err(unavailable)?;
            let Some(mut m) = found else { return Ok(None) };
            add_tally(tx, &Tally::rated(&ws, &owner, &m, &feedback))?;
            m.feedback = Some(feedback);
            tx.execute(
                "UPDATE messages SET body = ?2 WHERE id = ?1",
                params![m.id.as_str(), to_json(&MessageRecord::of(&m))],
            )
            .map_err(unavailable)?;
            insert_event(tx, &event)?;
            Ok(Some(m))
        })
        .await
    }

    async fn set_conversation_status(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        id: &ConversationId,
        status: ConversationStatus,
        reason: Option<&str>,
        event: Option<&Event>,
    ) -> StoreResult<Option<Conversation>> {
        let (ws, owner, id, event) = (ws.clone(), owner.clone(), id.clone(), event.cloned());
        let reason = reason.map(str::to_owned);
        self.write(move |tx| {
            let found = tx
                .query_row(
                    &format!("SELECT {COLS} FROM conversations WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3"),
                    [id.as_str(), ws.as_str(), owner.as_str()],
                    conversation_from,
                )
                .optional()
                .map_err(unavailable)?;
            let Some(mut c) = found else { return Ok(None) };
            if c.status == status {
                return Ok(Some(c));
            }
            c.status = status;
            c.handoff_reason = reason;
            if let Some(e) = &event {
                insert_event(tx, e)?;
            }
            tx.execute(
                "UPDATE conversations SET details = ?2 WHERE id = ?1",
                params![id.as_str(), to_json(&ConversationRecord::of(&c))],
            )
            .map_err(unavailable)?;
            Ok(Some(c))
        })
        .await
    }

    async fn set_channel_error(
        &self,
        ws: &WorkspaceId,
        id: &ConversationId,
        failure: Option<&lore_domain::channel::PlatformFailure>,
    ) -> StoreResult<()> {
        let (ws, id, failure) = (ws.clone(), id.clone(), failure.cloned());
        self.write(move |tx| crate::channels::set_channel_error(tx, &ws, &id, failure.as_ref())).await
    }

    async fn put_correction(&self, correction: &Correction) -> StoreResult<()> {
        let c = correction.clone();
        self.write(move |tx| {
            let (chatbot, mind) = (c.owner.chatbot().map(|i| i.as_str()), c.owner.mind().map(|i| i.as_str()));
            tx.execute(
                "INSERT INTO corrections (id, workspace_id, chatbot_id, mind_id, details, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (id) DO UPDATE SET details = excluded.details",
                params![
                    c.id.as_str(),
                    c.workspace_id.as_str(),
                    chatbot,
                    mind,
                    to_json(&CorrectionRecord::of(&c)),
                    c.created_at.millis()
                ],
            )
            .map_err(unavailable)?;
            Ok(())
        })
        .await
    }

    async fn list_corrections(&self, ws: &WorkspaceId, owner: &SourceOwner) -> StoreResult<Vec<Correction>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            let mut st = c
                .prepare_cached(
                    "SELECT id, workspace_id, owner_id, details, created_at FROM corrections
                     WHERE owner_id = ?1 AND workspace_id = ?2 ORDER BY created_at DESC, id DESC",
                )
                .map_err(unavailable)?;
            let rows = st.query_map([owner.as_str(), ws.as_str()], correction_from).map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }

    async fn delete_correction(&self, ws: &WorkspaceId, owner: &SourceOwner, id: &CorrectionId) -> StoreResult<bool> {
        let (ws, owner, id) = (ws.clone(), owner.clone(), id.clone());
        self.write(move |tx| {
            let n = tx
                .execute(
                    "DELETE FROM corrections WHERE id = ?1 AND workspace_id = ?2 AND owner_id = ?3",
                    [id.as_str(), ws.as_str(), owner.as_str()],
                )
                .map_err(unavailable)?;
            Ok(n == 1)
        })
        .await
    }

    async fn count_conversations_since(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        since: Timestamp,
    ) -> StoreResult<u64> {
        let (ws, owner) = (ws.clone(), owner.clone());
        self.read(move |c| {
            c.query_row(
                "SELECT COUNT(*) FROM conversations WHERE owner_id = ?1 AND workspace_id = ?2 AND created_at >= ?3",
                params![owner.as_str(), ws.as_str(), since.millis()],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
            .map_err(unavailable)
        })
        .await
    }

    async fn analytics(&self, ws: &WorkspaceId, owner: &SourceOwner, range: &DayRange) -> StoreResult<StoredAnalytics> {
        let (ws, owner, range) = (ws.clone(), owner.clone(), *range);
        self.read(move |c| analytics_of(c, ws.as_str(), owner.as_str(), &range).map_err(unavailable)).await
    }

    async fn conversations_before(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        before: Option<&ConversationCursor>,
        limit: u32,
    ) -> StoreResult<Vec<Conversation>> {
        let (ws, owner) = (ws.clone(), owner.clone());
        // Past every conversation when no cursor: ids sort below `~`.
        let (t, id) = before.map_or((i64::MAX, "~".to_owned()), |b| (b.created_at.millis(), b.id.as_str().to_owned()));
        self.read(move |c| {
            let mut st = c
                .prepare_cached(&format!(
                    "SELECT {COLS} FROM conversations WHERE owner_id = ?1 AND workspace_id = ?2
                         AND (created_at, id) < (?3, ?4)
                     ORDER BY created_at DESC, id DESC LIMIT ?5"
                ))
                .map_err(unavailable)?;
            let rows = st
                .query_map(params![owner.as_str(), ws.as_str(), t, id, i64::from(limit)], conversation_from)
                .map_err(unavailable)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(unavailable)
        })
        .await
    }
}
