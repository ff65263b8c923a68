//! An owner's analytics on the table (`infra/dynamodb.md`, "Analytics"), written in the
//! transaction of what they count:
//! - `STATS#<owner>` / `DAY#<yyyy-mm-dd>`: the day's counters (`conversations`, `messages`,
//!   `leads`, `answered`, `unanswered`, `ratingsUp`, `ratingsDown`), each an `ADD`;
//! - `STATS#<owner>` / `SRC#<yyyy-mm-dd>#<sourceId>`: `citations` of a source that day and the
//!   `sourceName` it was last cited under;
//! - an unanswered question is its assistant message item itself, listed in GSI1 under
//!   `UNANS#<owner>` (oldest first by `createdAt`) with the `question` it did not answer: it goes
//!   with its conversation's messages.
//!
//! A report reads one query per kind, bounded by the range's days.

use super::{DynamoStore, Expr, GSI1, Item, TxWrite, get_i, get_s, key, malformed, n, newest_first_key, s};
use lore_app::ports::StoreResult;
use lore_domain::Timestamp;
use lore_domain::analytics::{
    Counts, Day, DayRange, SourceCitations, StoredAnalytics, Tally, UNANSWERED_QUESTIONS, UnansweredQuestion,
    rank_sources,
};
use lore_domain::id::{ConversationId, MessageId, SourceId, WorkspaceId};
use lore_domain::source::SourceOwner;

pub(crate) fn stats_pk(owner: &SourceOwner) -> String {
    format!("STATS#{owner}")
}
fn day_sk(day: Day) -> String {
    format!("DAY#{day}")
}
fn source_sk(day: Day, source: &SourceId) -> String {
    format!("SRC#{day}#{source}")
}
fn unanswered_of(owner: &SourceOwner) -> String {
    format!("UNANS#{owner}")
}

/// The writes that add `t` to the owner's counters (none for an empty tally). The unanswered
/// question is not among them: it is [`unanswered_attributes`] of the message item written.
pub(crate) fn tally_writes(t: &Tally) -> Vec<TxWrite> {
    let mut writes = Vec::new();
    let ws = t.workspace_id.as_str();
    if !t.counts.is_zero() {
        let mut expr = Expr::new();
        let adds: Vec<String> = t
            .counts
            .named()
            .iter()
            .filter(|(_, d)| *d != 0)
            .map(|(a, d)| format!("{} {}", expr.a(a), expr.v(&format!("d_{a}"), n(d))))
            .collect();
        let update = format!("SET {} = {} ADD {}", expr.a("ws"), expr.v("ws", s(ws)), adds.join(", "));
        writes.push(TxWrite::Update { key: key(stats_pk(&t.owner), day_sk(t.day)), update, cond: None, expr });
    }
    for (source, name) in &t.cited {
        let mut expr = Expr::new();
        let update = format!(
            "SET {} = {}, {} = {}, {} = {} ADD {} {}",
            expr.a("ws"),
            expr.v("ws", s(ws)),
            expr.a("sourceId"),
            expr.v("source", s(source.as_str())),
            expr.a("sourceName"),
            expr.v("name", s(name.as_str())),
            expr.a("citations"),
            expr.v("one", n(1)),
        );
        writes.push(TxWrite::Update {
            key: key(stats_pk(&t.owner), source_sk(t.day, source)),
            update,
            cond: None,
            expr,
        });
    }
    writes
}

/// The attributes that list an unanswered answer's message item as the owner's unanswered
/// question (when `t` has one for that message).
pub(crate) fn unanswered_attributes(
    t: &Tally,
    message: &MessageId,
) -> Vec<(String, aws_sdk_dynamodb::types::AttributeValue)> {
    match &t.unanswered {
        Some(q) if &q.message_id == message => vec![
            ("gsi1pk".into(), s(unanswered_of(&t.owner))),
            ("gsi1sk".into(), s(newest_first_key(q.created_at.millis(), q.message_id.as_str()))),
            ("ws".into(), s(t.workspace_id.as_str())),
            ("question".into(), s(q.question.as_str())),
        ],
        _ => Vec::new(),
    }
}

impl DynamoStore {
    /// Items of partition `pk` whose sort key lies in `[low, high]`, in key order.
    async fn between(&self, pk: &str, low: &str, high: &str) -> StoreResult<Vec<Item>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND {} BETWEEN {} AND {}",
            expr.a("pk"),
            expr.v("pk", s(pk)),
            expr.a("sk"),
            expr.v("low", s(low)),
            expr.v("high", s(high)),
        );
        self.query_partition(&cond, &expr, false).await
    }

    /// The owner's latest unanswered questions in the range, newest first.
    async fn unanswered_questions(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        range: &DayRange,
    ) -> StoreResult<Vec<UnansweredQuestion>> {
        let mut expr = Expr::new();
        let cond = format!(
            "{} = {} AND {} BETWEEN {} AND {}",
            expr.a("gsi1pk"),
            expr.v("pk", s(unanswered_of(owner))),
            expr.a("gsi1sk"),
            expr.v("low", s(newest_first_key(range.from.start().millis(), ""))),
            expr.v("high", s(newest_first_key(range.to.end().millis() - 1, "~"))),
        );
        // Another workspace's items cannot be under this owner; the check below is belt and braces.
        let keys = self.query_key_range(GSI1, &cond, &expr, true, UNANSWERED_QUESTIONS).await?;
        let attrs = ["ws", "id", "conversation", "question", "createdAt"];
        self.batch_get_attrs(keys, &attrs)
            .await?
            .iter()
            .filter(|i| get_s(i, "ws") == Some(ws.as_str()))
            .map(|i| {
                Ok(UnansweredQuestion {
                    conversation_id: ConversationId::parse(get_s(i, "conversation").unwrap_or_default())
                        .ok_or_else(|| malformed("conversation id"))?,
                    message_id: MessageId::parse(get_s(i, "id").unwrap_or_default())
                        .ok_or_else(|| malformed("message id"))?,
                    question: get_s(i, "question").unwrap_or_default().to_owned(),
                    created_at: Timestamp::from_millis(get_i(i, "createdAt").unwrap_or(0)),
                })
            })
            .collect()
    }

    pub(crate) async fn owner_analytics(
        &self,
        ws: &WorkspaceId,
        owner: &SourceOwner,
        range: &DayRange,
    ) -> StoreResult<StoredAnalytics> {
        let pk = stats_pk(owner);
        let ours = |i: &Item| get_s(i, "ws") == Some(ws.as_str());
        let days = self
            .between(&pk, &day_sk(range.from), &day_sk(range.to))
            .await?
            .iter()
            .filter(|i| ours(i))
            .map(|i| {
                let day = get_s(i, "sk").and_then(|k| k.strip_prefix("DAY#")).and_then(Day::parse);
                let day = day.ok_or_else(|| malformed("analytics day"))?;
                Ok((day, Counts::from_named(|a| get_i(i, a).unwrap_or(0))))
            })
            .collect::<StoreResult<Vec<_>>>()?;
        // `$` sorts right after `#`: the high bound is past every source of the last day. Items
        // come oldest day first, so the last name seen is the latest.
        let cited = self.between(&pk, &format!("SRC#{}#", range.from), &format!("SRC#{}$", range.to)).await?;
        let mut names = std::collections::HashMap::new();
        let rows = cited
            .iter()
            .filter(|i| ours(i))
            .map(|i| {
                let id =
                    SourceId::parse(get_s(i, "sourceId").unwrap_or_default()).ok_or_else(|| malformed("source id"))?;
                names.insert(id.clone(), get_s(i, "sourceName").unwrap_or_default().to_owned());
                Ok(SourceCitations {
                    source_id: id,
                    source_name: String::new(),
                    citations: get_i(i, "citations").unwrap_or(0).max(0) as u64,
                })
            })
            .collect::<StoreResult<Vec<_>>>()?;
        let top_sources = rank_sources(rows)
            .into_iter()
            .map(|mut r| {
                r.source_name = names.remove(&r.source_id).unwrap_or_default();
                r
            })
            .collect();
        let unanswered = self.unanswered_questions(ws, owner, range).await?;
        Ok(StoredAnalytics { days, top_sources, unanswered })
    }

    /// Removes the owner's counters (its unanswered questions go with its messages).
    pub(crate) async fn remove_analytics(&self, owner: &SourceOwner) -> StoreResult<()> {
        // Every sort key of the partition starts `DAY#` or `SRC#`.
        let items = self.between(&stats_pk(owner), "A", "~").await?;
        self.delete_keys(&items, "delete analytics").await
    }
}
