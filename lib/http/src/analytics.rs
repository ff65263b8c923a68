//! Analytics and export of a Mind's or chatbot's conversations (docs/api.md §19): the keyed
//! routes `GET …/analytics` and `GET …/conversations/export` (`conversations:read`).

use crate::api_router::{ApiRouter, api_routes};
use crate::conversations::{ConversationView, MessageView, Presentation, message_view};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, ConversationsRead, PathId};
use crate::state::ApiState;
use crate::views::{Status, flattened_doc};
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::{HeaderValue, Response};
use lore_app::analytics::ConversationExport;
use lore_app::auth::Principal;
use lore_app::conversations::Transcript;
use lore_domain::DomainError;
use lore_domain::analytics::{Analytics, Counts, Day, DayRange};
use lore_domain::id::{ChatbotId, MindId};
use lore_domain::source::SourceOwner;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// The routes of Minds.
pub fn mind_router() -> ApiRouter {
    mind_routes::router()
}

/// The routes of chatbots.
pub fn chatbot_router() -> ApiRouter {
    chatbot_routes::router()
}

// ---- views -------------------------------------------------------------------------------------

/// Exact counts of a day or a range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountsView {
    /// Conversations started.
    pub conversations: u64,
    /// Messages of visitors (users).
    pub messages: u64,
    /// Conversations started with a visitor's e-mail address.
    pub leads: u64,
    /// Answers to a user message that cite a passage (or give a correction).
    pub answered: u64,
    /// Answers to a user message that found nothing to cite.
    pub unanswered: u64,
    /// Ratings `up` of that day's answers.
    pub ratings_up: u64,
    /// Ratings `down` of that day's answers.
    pub ratings_down: u64,
}

impl From<&Counts> for CountsView {
    fn from(c: &Counts) -> Self {
        // Counters never go below zero; a negative one would be a store's fault, shown as 0.
        let n = |v: i64| v.max(0) as u64;
        Self {
            conversations: n(c.conversations),
            messages: n(c.messages),
            leads: n(c.leads),
            answered: n(c.answered),
            unanswered: n(c.unanswered),
            ratings_up: n(c.ratings_up),
            ratings_down: n(c.ratings_down),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DayDate {
    /// The UTC day, `YYYY-MM-DD`.
    #[schema(example = "2026-12-01")]
    pub date: String,
}

/// One day's counts: `date` and the counts.
#[derive(Debug, Serialize)]
pub struct DayView {
    #[serde(flatten)]
    pub date: DayDate,
    #[serde(flatten)]
    pub counts: CountsView,
}

flattened_doc!(DayView, Some("One UTC day's counts."), [DayDate, CountsView]);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopSourceView {
    pub source_id: String,
    /// The name it was last cited under in the range.
    pub source_name: String,
    /// Answers in the range that cite it.
    pub citations: u64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnansweredQuestionView {
    pub conversation_id: String,
    /// The assistant message that found nothing to cite.
    pub message_id: String,
    /// The visitor's question.
    pub question: String,
    pub created_at: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsView {
    /// First day of the range (UTC, inclusive).
    pub from: String,
    /// Last day of the range (UTC, inclusive).
    pub to: String,
    pub totals: CountsView,
    /// Every day of the range, oldest first, days without activity included (zeros).
    pub days: Vec<DayView>,
    /// At most 10, most cited first.
    pub top_sources: Vec<TopSourceView>,
    /// At most 20, newest first; a deleted conversation's are gone with it.
    pub unanswered_questions: Vec<UnansweredQuestionView>,
}

impl From<Analytics> for AnalyticsView {
    fn from(a: Analytics) -> Self {
        Self {
            from: a.range.from.to_string(),
            to: a.range.to.to_string(),
            totals: (&a.totals).into(),
            days: a
                .days
                .iter()
                .map(|(d, c)| DayView { date: DayDate { date: d.to_string() }, counts: c.into() })
                .collect(),
            top_sources: a
                .top_sources
                .into_iter()
                .map(|t| TopSourceView {
                    source_id: t.source_id.to_string(),
                    source_name: t.source_name,
                    citations: t.citations,
                })
                .collect(),
            unanswered_questions: a
                .unanswered
                .into_iter()
                .map(|q| UnansweredQuestionView {
                    conversation_id: q.conversation_id.to_string(),
                    message_id: q.message_id.to_string(),
                    question: q.question,
                    created_at: q.created_at.to_string(),
                })
                .collect(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AnalyticsEnvelope {
    pub status: Status,
    pub analytics: AnalyticsView,
}

/// A JSONL line of an export: the conversation with its messages, oldest first.
#[derive(Debug, Serialize)]
pub struct ExportedConversation {
    #[serde(flatten)]
    pub conversation: ConversationView,
    #[serde(flatten)]
    pub messages: ExportedMessages,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedMessages {
    /// Oldest first.
    pub messages: Vec<MessageView>,
}

flattened_doc!(
    ExportedConversation,
    Some("One line of a JSONL export: the conversation with its `messages`."),
    [ConversationView, ExportedMessages]
);

// ---- queries -----------------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RangeQuery {
    /// First UTC day, `YYYY-MM-DD` (default: 29 days before `to`).
    pub from: Option<String>,
    /// Last UTC day, `YYYY-MM-DD`, inclusive (default: today); at most 366 days in all.
    pub to: Option<String>,
}

#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// `jsonl` (default): one conversation per line; `csv`: one message per row.
    pub format: Option<String>,
    /// First UTC day of the conversations' creation, `YYYY-MM-DD` (default: the first).
    pub from: Option<String>,
    /// Last UTC day, `YYYY-MM-DD`, inclusive (default: the last).
    pub to: Option<String>,
}

fn query<T>(q: Result<Query<T>, axum::extract::rejection::QueryRejection>) -> Result<T, ApiError> {
    q.map(|Query(v)| v).map_err(|_| DomainError::field("query", "is not a valid query string").into())
}

// ---- the shared handlers -----------------------------------------------------------------------

async fn report(
    s: &ApiState,
    p: &Principal,
    owner: SourceOwner,
    q: RangeQuery,
) -> Result<Json<AnalyticsEnvelope>, ApiError> {
    let today = Day::of(lore_domain::Timestamp::now());
    let range = DayRange::for_report(q.from.as_deref(), q.to.as_deref(), today)?;
    let analytics = s.app.analytics(p, &owner, range).await?;
    Ok(Json(AnalyticsEnvelope { status: Status::Success, analytics: analytics.into() }))
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Jsonl,
    Csv,
}

const CSV_HEADER: &str = "conversationId,messageId,role,content,createdAt,rating\r\n";

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes
/// doubled. Content is written as stored (no spreadsheet-formula escaping: the export is data).
fn csv_field(out: &mut String, v: &str) {
    if v.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&v.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(v);
    }
}

fn render(t: &Transcript, how: Presentation, format: Format) -> Bytes {
    match format {
        Format::Jsonl => {
            let line = ExportedConversation {
                conversation: t.conversation.clone().into(),
                messages: ExportedMessages { messages: t.messages.iter().map(|m| message_view(m, how)).collect() },
            };
            let mut out = serde_json::to_vec(&line).unwrap_or_default();
            out.push(b'\n');
            out.into()
        }
        Format::Csv => {
            let mut out = String::new();
            for m in &t.messages {
                let rating = m.feedback.as_ref().map_or("", |f| f.rating.as_str());
                let fields = [
                    t.conversation.id.as_str(),
                    m.id.as_str(),
                    m.role.as_str(),
                    &m.content,
                    &m.created_at.to_string(),
                    rating,
                ];
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    csv_field(&mut out, f);
                }
                out.push_str("\r\n");
            }
            out.into()
        }
    }
}

async fn export(s: &ApiState, p: &Principal, owner: SourceOwner, q: ExportQuery) -> Result<Response<Body>, ApiError> {
    let format = match q.format.as_deref() {
        None | Some("jsonl") => Format::Jsonl,
        Some("csv") => Format::Csv,
        Some(other) => return Err(DomainError::field("format", format!("must be jsonl or csv, got {other:?}")).into()),
    };
    let range = DayRange::for_export(q.from.as_deref(), q.to.as_deref())?;
    let walk = s.app.export_conversations(p, &owner, range).await?;
    let how = Presentation::keyed(&owner);
    let head = (format == Format::Csv).then(|| Bytes::from_static(CSV_HEADER.as_bytes()));
    // One transcript in memory at a time; the next is read when the client has taken this one.
    let body = futures::stream::unfold((head, Some(walk)), move |(head, walk)| async move {
        if let Some(h) = head {
            return Some((Ok(h), (None, walk)));
        }
        let mut walk: ConversationExport = walk?;
        match walk.next().await {
            Ok(Some(t)) => Some((Ok(render(&t, how, format)), (None, Some(walk)))),
            Ok(None) => None,
            // The status line is sent: the client sees the body cut short.
            Err(e) => {
                tracing::warn!(error = %e, "a conversation export failed midway");
                Some((Err(std::io::Error::other("the export failed midway")), (None, None)))
            }
        }
    });
    let (kind, ext) = match format {
        Format::Jsonl => ("application/jsonl; charset=utf-8", "jsonl"),
        Format::Csv => ("text/csv; charset=utf-8", "csv"),
    };
    let mut response = Response::new(Body::from_stream(body));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"conversations-{owner}.{ext}\"")) {
        headers.insert(CONTENT_DISPOSITION, v);
    }
    Ok(response)
}

// ---- the routes of each owner ------------------------------------------------------------------

macro_rules! analytics_routes {
    (
        $module:ident, $owner:path, $id:ty, $param:literal, $param_doc:literal,
        analytics: $analytics:literal, export: $export:literal, ops: [$op_analytics:literal, $op_export:literal]
    ) => {
        mod $module {
            use super::*;

            pub fn router() -> ApiRouter {
                ApiRouter::new().routes(api_routes!(get_analytics)).routes(api_routes!(export_conversations))
            }

            /// Exact counts per UTC day (every day of the range, zeros included), the most cited
            /// sources and the latest questions nothing answered. Read from counters kept with
            /// the conversations, not by reading every message.
            #[utoipa::path(get, path = $analytics, operation_id = $op_analytics, tag = "conversations",
                        params(($param = String, Path, description = $param_doc), RangeQuery),
                        security(("bearer" = ["conversations:read"])),
                        responses(
                            (status = 200, body = AnalyticsEnvelope),
                            (status = 400, description = "`validation_error`: a malformed date, `from` after `to`, or \
                        more than 366 days", body = ErrorBody),
                        ))]
            async fn get_analytics(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                q: Result<Query<RangeQuery>, axum::extract::rejection::QueryRejection>,
            ) -> Result<Json<AnalyticsEnvelope>, ApiError> {
                report(&s, &auth.principal, $owner(owner), query(q)?).await
            }

            /// Every conversation created in the range (default: all), newest first, streamed:
            /// JSONL (`application/jsonl`), one conversation with its `messages` per line; or CSV
            /// (`text/csv`, RFC 4180), the header `conversationId,messageId,role,content,createdAt,rating`
            /// then one row per message. Memory stays bounded whatever the size.
            #[utoipa::path(get, path = $export, operation_id = $op_export, tag = "conversations",
                        params(($param = String, Path, description = $param_doc), ExportQuery),
                        security(("bearer" = ["conversations:read"])),
                        responses(
                            (status = 200, description = "The export, streamed",
                                content((ExportedConversation = "application/jsonl"), (String = "text/csv"))),
                            (status = 400, description = "`validation_error`: `format` not jsonl or csv, a malformed \
                        date, `from` after `to`", body = ErrorBody),
                        ))]
            async fn export_conversations(
                auth: Authed<ConversationsRead>,
                State(s): State<ApiState>,
                PathId(owner): PathId<$id>,
                q: Result<Query<ExportQuery>, axum::extract::rejection::QueryRejection>,
            ) -> Result<Response<Body>, ApiError> {
                export(&s, &auth.principal, $owner(owner), query(q)?).await
            }
        }
    };
}

analytics_routes!(mind_routes, SourceOwner::Mind, MindId, "mindId", "Mind id (`mind_…`)",
    analytics: "/api/v1/minds/{mindId}/analytics",
    export: "/api/v1/minds/{mindId}/conversations/export",
    ops: ["get_mind_analytics", "export_mind_conversations"]);

analytics_routes!(chatbot_routes, SourceOwner::Chatbot, ChatbotId, "chatbotId", "Chatbot id (`cb_…`)",
    analytics: "/api/v1/chatbots/{chatbotId}/analytics",
    export: "/api/v1/chatbots/{chatbotId}/conversations/export",
    ops: ["get_chatbot_analytics", "export_chatbot_conversations"]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_as_rfc_4180_says() {
        let mut out = String::new();
        for v in ["plain", "a,b", "say \"hi\"", "two\nlines", "crlf\r\n", "héllo 🙂"] {
            csv_field(&mut out, v);
            out.push('|');
        }
        assert_eq!(out, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\"|\"crlf\r\n\"|héllo 🙂|");
    }
}
