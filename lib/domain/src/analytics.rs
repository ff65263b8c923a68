//! What an owner learns from its conversations (docs/api.md §19 "Analytics"): exact counts per UTC
//! day, the most cited sources and the latest questions nothing answered.
//!
//! Counts are never computed by reading messages back: every write that stores a conversation, a
//! message or a rating carries a [`Tally`] of what it changes, and the store adds it to the owner's
//! daily counters in the same transaction. A report then reads at most one row per day.

use crate::conversation::{Conversation, Feedback, Message, Rating, Role};
use crate::id::{ConversationId, MessageId, SourceId, WorkspaceId};
use crate::source::SourceOwner;
use crate::{DomainError, ErrorCode, Timestamp};
use chrono::{Days, NaiveDate, TimeZone, Utc};
use std::fmt;

/// The longest range one report covers.
pub const MAX_RANGE_DAYS: u64 = 366;
/// The range a report covers when none is asked for: today and the 29 days before.
pub const DEFAULT_RANGE_DAYS: u64 = 30;
/// How many sources a report ranks.
pub const TOP_SOURCES: usize = 10;
/// How many unanswered questions a report lists.
pub const UNANSWERED_QUESTIONS: usize = 20;

/// A calendar day in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(NaiveDate);

impl Day {
    /// The UTC day of an instant.
    pub fn of(t: Timestamp) -> Self {
        Self(Utc.timestamp_millis_opt(t.millis()).single().unwrap_or_default().date_naive())
    }

    /// `YYYY-MM-DD`, nothing else.
    pub fn parse(s: &str) -> Option<Self> {
        let strict = s.len() == 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-';
        strict.then(|| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().map(Self)).flatten()
    }

    /// The day after (saturating at the calendar's end).
    pub fn next(self) -> Self {
        Self(self.0.checked_add_days(Days::new(1)).unwrap_or(self.0))
    }

    fn minus(self, days: u64) -> Self {
        Self(self.0.checked_sub_days(Days::new(days)).unwrap_or(NaiveDate::MIN))
    }

    /// The first instant of the day.
    pub fn start(self) -> Timestamp {
        Timestamp::from_millis(self.0.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp_millis())
    }

    /// The first instant of the next day.
    pub fn end(self) -> Timestamp {
        self.next().start()
    }

    /// Days from `self` to `later`, both counted (1 for the same day).
    fn span(self, later: Day) -> u64 {
        (later.0 - self.0).num_days().max(0) as u64 + 1
    }
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.format("%Y-%m-%d"))
    }
}

/// Whole UTC days, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayRange {
    pub from: Day,
    pub to: Day,
}

fn invalid(message: String) -> DomainError {
    DomainError::new(ErrorCode::ValidationError, message)
}

fn day(field: &str, s: Option<&str>) -> Result<Option<Day>, DomainError> {
    s.map(|s| Day::parse(s).ok_or_else(|| invalid(format!("{field} must be a date as YYYY-MM-DD, got {s:?}"))))
        .transpose()
}

impl DayRange {
    /// An analytics range: `to` defaults to today, `from` to 29 days before `to`; at most
    /// [`MAX_RANGE_DAYS`] days.
    pub fn for_report(from: Option<&str>, to: Option<&str>, today: Day) -> Result<Self, DomainError> {
        let to_day = day("to", to)?.unwrap_or(today);
        let from_day = day("from", from)?.unwrap_or_else(|| to_day.minus(DEFAULT_RANGE_DAYS - 1));
        let range = Self::ordered(from_day, to_day)?;
        if range.day_count() > MAX_RANGE_DAYS {
            return Err(invalid(format!(
                "the range covers {} days; a report covers at most {MAX_RANGE_DAYS}",
                range.day_count()
            )));
        }
        Ok(range)
    }

    /// An export range: unbounded ends stay open (all time when neither is given).
    pub fn for_export(from: Option<&str>, to: Option<&str>) -> Result<Option<Self>, DomainError> {
        match (day("from", from)?, day("to", to)?) {
            (None, None) => Ok(None),
            (f, t) => Self::ordered(f.unwrap_or(Day(NaiveDate::MIN)), t.unwrap_or(Day(NaiveDate::MAX))).map(Some),
        }
    }

    fn ordered(from: Day, to: Day) -> Result<Self, DomainError> {
        if from > to {
            return Err(invalid(format!("from ({from}) is after to ({to})")));
        }
        Ok(Self { from, to })
    }

    /// How many days the range covers (at least 1).
    pub fn day_count(&self) -> u64 {
        self.from.span(self.to)
    }

    pub fn contains(&self, t: Timestamp) -> bool {
        (self.from..=self.to).contains(&Day::of(t))
    }

    /// Every day of the range, oldest first.
    pub fn days(&self) -> impl Iterator<Item = Day> + '_ {
        std::iter::successors(Some(self.from), move |d| (*d < self.to).then(|| d.next()))
    }
}

/// The counts of one day (or a range). Signed: a [`Tally`] may take a rating back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub conversations: i64,
    /// Visitors' (users') messages.
    pub messages: i64,
    /// Conversations started with a visitor's e-mail address.
    pub leads: i64,
    /// Answers to a user message that cite a passage (or give a correction).
    pub answered: i64,
    /// Answers to a user message that found nothing to cite.
    pub unanswered: i64,
    pub ratings_up: i64,
    pub ratings_down: i64,
}

impl Counts {
    /// The counters in a fixed order, with their stored names (the same on every backend).
    pub fn named(&self) -> [(&'static str, i64); 7] {
        [
            ("conversations", self.conversations),
            ("messages", self.messages),
            ("leads", self.leads),
            ("answered", self.answered),
            ("unanswered", self.unanswered),
            ("ratingsUp", self.ratings_up),
            ("ratingsDown", self.ratings_down),
        ]
    }

    /// Reads counters back by the names of [`Counts::named`]; a missing one is 0.
    pub fn from_named(get: impl Fn(&str) -> i64) -> Self {
        Self {
            conversations: get("conversations"),
            messages: get("messages"),
            leads: get("leads"),
            answered: get("answered"),
            unanswered: get("unanswered"),
            ratings_up: get("ratingsUp"),
            ratings_down: get("ratingsDown"),
        }
    }

    pub fn is_zero(&self) -> bool {
        self.named().iter().all(|(_, n)| *n == 0)
    }

    pub fn add(&mut self, o: &Counts) {
        self.conversations += o.conversations;
        self.messages += o.messages;
        self.leads += o.leads;
        self.answered += o.answered;
        self.unanswered += o.unanswered;
        self.ratings_up += o.ratings_up;
        self.ratings_down += o.ratings_down;
    }
}

/// A question nothing in the owner's knowledge answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnansweredQuestion {
    pub conversation_id: ConversationId,
    /// The assistant message that found nothing.
    pub message_id: MessageId,
    pub question: String,
    pub created_at: Timestamp,
}

/// A source's citations by the owner's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceCitations {
    pub source_id: SourceId,
    pub source_name: String,
    pub citations: u64,
}

/// What one write changes in an owner's analytics; the store adds it in that write's transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub day: Day,
    pub counts: Counts,
    /// Sources an answer cited (each once), with the name they were cited under.
    pub cited: Vec<(SourceId, String)>,
    pub unanswered: Option<UnansweredQuestion>,
}

impl Tally {
    fn on(workspace_id: &WorkspaceId, owner: &SourceOwner, at: Timestamp, counts: Counts) -> Self {
        Self {
            workspace_id: workspace_id.clone(),
            owner: owner.clone(),
            day: Day::of(at),
            counts,
            cited: Vec::new(),
            unanswered: None,
        }
    }

    /// A conversation started (its welcome message is no answer).
    pub fn started(c: &Conversation) -> Self {
        let lead = c.visitor.as_ref().is_some_and(|v| v.email.is_some());
        let counts = Counts { conversations: 1, leads: i64::from(lead), ..Counts::default() };
        Self::on(&c.workspace_id, &c.owner, c.created_at, counts)
    }

    /// Messages appended: user messages count; the answer to `question`, when one is among them,
    /// counts as answered or not (with its cited sources, or as an unanswered question). Agent
    /// and welcome messages count nothing.
    pub fn appended(ws: &WorkspaceId, owner: &SourceOwner, messages: &[Message], question: Option<&Message>) -> Self {
        let at = messages.iter().map(|m| m.created_at).max().unwrap_or_else(Timestamp::now);
        let mut t = Self::on(ws, owner, at, Counts::default());
        for m in messages {
            match m.role {
                Role::User => t.counts.messages += 1,
                Role::Assistant => {
                    let Some(q) = question.filter(|q| q.role == Role::User) else { continue };
                    if m.answered.unwrap_or(true) {
                        t.counts.answered += 1;
                        for c in &m.citations {
                            if !t.cited.iter().any(|(id, _)| id == &c.source_id) {
                                t.cited.push((c.source_id.clone(), c.source_name.clone()));
                            }
                        }
                    } else {
                        t.counts.unanswered += 1;
                        t.unanswered = Some(UnansweredQuestion {
                            conversation_id: m.conversation_id.clone(),
                            message_id: m.id.clone(),
                            question: q.content.clone(),
                            created_at: m.created_at,
                        });
                    }
                }
                Role::Agent => {}
            }
        }
        t
    }

    /// `message` (as stored) rated `feedback`: the old rating taken back, the new one counted, on
    /// the day of the answer (a day's ratings are those of that day's answers).
    pub fn rated(ws: &WorkspaceId, owner: &SourceOwner, message: &Message, feedback: &Feedback) -> Self {
        let mut counts = Counts::default();
        let mut count = |r: Rating, n: i64| match r {
            Rating::Up => counts.ratings_up += n,
            Rating::Down => counts.ratings_down += n,
        };
        if let Some(old) = &message.feedback {
            count(old.rating, -1);
        }
        count(feedback.rating, 1);
        Self::on(ws, owner, message.created_at, counts)
    }

    /// Nothing to write.
    pub fn is_empty(&self) -> bool {
        self.counts.is_zero() && self.cited.is_empty() && self.unanswered.is_none()
    }
}

/// An owner's report as the store reads it: only the days with counters, any order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StoredAnalytics {
    pub days: Vec<(Day, Counts)>,
    /// Most cited first, at most [`TOP_SOURCES`].
    pub top_sources: Vec<SourceCitations>,
    /// Newest first, at most [`UNANSWERED_QUESTIONS`].
    pub unanswered: Vec<UnansweredQuestion>,
}

/// The report of docs/api.md §19: every day of the range, zeros included, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct Analytics {
    pub range: DayRange,
    pub totals: Counts,
    pub days: Vec<(Day, Counts)>,
    pub top_sources: Vec<SourceCitations>,
    pub unanswered: Vec<UnansweredQuestion>,
}

impl Analytics {
    pub fn new(range: DayRange, stored: StoredAnalytics) -> Self {
        let mut totals = Counts::default();
        let days = range
            .days()
            .map(|d| {
                let mut c = Counts::default();
                stored.days.iter().filter(|(sd, _)| *sd == d).for_each(|(_, sc)| c.add(sc));
                totals.add(&c);
                (d, c)
            })
            .collect();
        Self { range, totals, days, top_sources: stored.top_sources, unanswered: stored.unanswered }
    }
}

/// Ranks per-source citation counts (summed over days by the caller or here): most cited first,
/// then by id for a stable order; at most [`TOP_SOURCES`].
pub fn rank_sources(rows: impl IntoIterator<Item = SourceCitations>) -> Vec<SourceCitations> {
    let mut by_source: std::collections::HashMap<SourceId, SourceCitations> = std::collections::HashMap::new();
    for r in rows {
        by_source.entry(r.source_id.clone()).and_modify(|m| m.citations += r.citations).or_insert(r);
    }
    let mut merged: Vec<SourceCitations> = by_source.into_values().collect();
    merged.retain(|m| m.citations > 0);
    merged.sort_by(|a, b| b.citations.cmp(&a.citations).then_with(|| a.source_id.as_str().cmp(b.source_id.as_str())));
    merged.truncate(TOP_SOURCES);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Day {
        Day::parse(s).unwrap()
    }

    #[test]
    fn days_parse_strictly_and_come_from_utc_instants() {
        assert_eq!(d("2026-02-28").next(), d("2026-03-01"));
        for bad in ["2026-2-28", "2026-02-30", "20260228", "2026-02-28T00:00:00Z", ""] {
            assert!(Day::parse(bad).is_none(), "{bad}");
        }
        let t = Timestamp::parse("2026-12-01T23:59:59.999Z").unwrap();
        assert_eq!(Day::of(t).to_string(), "2026-12-01");
        assert_eq!(d("2026-12-01").end().millis(), t.millis() + 1);
    }

    #[test]
    fn report_ranges_default_to_thirty_days_and_refuse_bad_ones() {
        let today = d("2026-12-01");
        let r = DayRange::for_report(None, None, today).unwrap();
        assert_eq!((r.from, r.to, r.day_count()), (d("2026-11-02"), today, 30));
        assert_eq!(DayRange::for_report(Some("2026-01-01"), Some("2026-12-31"), today).unwrap().day_count(), 365);
        assert!(DayRange::for_report(Some("2025-01-01"), Some("2026-01-02"), today).is_err(), "367 days");
        let e = DayRange::for_report(Some("2026-12-02"), Some("2026-12-01"), today).unwrap_err();
        assert_eq!(e.code, ErrorCode::ValidationError);
        assert!(DayRange::for_report(Some("yesterday"), None, today).is_err());
        assert_eq!(DayRange::for_export(None, None).unwrap(), None);
        assert!(DayRange::for_export(Some("2026-12-01"), None).unwrap().unwrap().contains(Timestamp::now()));
    }

    #[test]
    fn a_report_has_every_day_with_zeros_and_exact_totals() {
        let range = DayRange { from: d("2026-11-29"), to: d("2026-12-01") };
        let one = Counts { conversations: 2, messages: 5, ..Counts::default() };
        let stored =
            StoredAnalytics { days: vec![(d("2026-12-01"), one), (d("2026-11-29"), one)], ..Default::default() };
        let a = Analytics::new(range, stored);
        let days: Vec<_> = a.days.iter().map(|(d, c)| (d.to_string(), c.messages)).collect();
        assert_eq!(days, [("2026-11-29".into(), 5), ("2026-11-30".into(), 0), ("2026-12-01".into(), 5)]);
        assert_eq!((a.totals.conversations, a.totals.messages), (4, 10));
    }
}
