//! Conversations with a Mind or a chatbot (docs/api.md §17): stored turns, answers that cite the
//! owner's knowledge with `[n]` markers, and the rules that keep markers and citations in step.
//!
//! A conversation belongs to the owner of the knowledge it answers from — the same
//! [`SourceOwner`] a knowledge source has — so a chatbot and a Mind converse the same way.

use crate::error::DomainError;
use crate::form::is_email;
use crate::id::{ConversationId, MessageId, SourceId, WorkspaceId};
use crate::source::{SourceOwner, SourceType};
use crate::text;
use crate::time::Timestamp;
use std::collections::BTreeSet;

/// Characters of a user's message (docs/api.md §17).
pub const MAX_CONTENT_CHARS: usize = 4_000;
/// Messages of one conversation, every role counted (the welcome message too).
pub const MAX_MESSAGES: u64 = 200;
/// Passages retrieved for one answer.
pub const MAX_PASSAGES: usize = 5;
/// `recentConversationCount` counts the conversations created in this many days.
pub const RECENT_DAYS: i64 = 30;
pub const MAX_VISITOR_NAME: usize = 200;
pub const MAX_VISITOR_EMAIL: usize = 254;
/// Characters of a citation's quote at most: the passage's most relevant sentences.
pub const MAX_QUOTE_CHARS: usize = 400;
/// The answer when nothing in the knowledge matches (extractive answers).
pub const NOTHING_FOUND: &str = "I don't have anything in my knowledge about that yet.";

/// Characters of a feedback comment (docs/api.md §19).
pub const MAX_FEEDBACK_COMMENT: usize = 1_000;
/// Characters of a hand-off reason.
pub const MAX_HANDOFF_REASON: usize = 1_000;

/// Whether the Mind or chatbot answers a conversation (`open`), or a person does (`handoff`,
/// docs/api.md §19): then visitors' messages are stored and answered by nobody.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConversationStatus {
    #[default]
    Open,
    Handoff,
}

impl ConversationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Handoff => "handoff",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Open, Self::Handoff].into_iter().find(|c| c.as_str() == s)
    }
}

/// Why a visitor asked for a person: at most [`MAX_HANDOFF_REASON`] characters, empty is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoffReason(String);

impl HandoffReason {
    pub fn parse(s: Option<&str>) -> Result<Option<Self>, DomainError> {
        match s {
            None => Ok(None),
            Some(s) => Ok(text::optional_bounded("reason", s, MAX_HANDOFF_REASON)?.map(Self)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A visitor's (or the owner's) rating of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rating {
    Up,
    Down,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Up, Self::Down].into_iter().find(|r| r.as_str() == s)
    }
}

/// The feedback on an assistant message; a new rating replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    pub rating: Rating,
    /// At most [`MAX_FEEDBACK_COMMENT`] characters.
    pub comment: Option<String>,
    pub at: Timestamp,
}

impl Feedback {
    /// `rating` (`up` or `down`, required) and `comment` (optional, at most 1,000 characters;
    /// empty is none) of a feedback body, every refusal reported.
    pub fn parse(rating: Option<&str>, comment: Option<&str>, now: Timestamp) -> Result<Self, DomainError> {
        let mut v = crate::error::Validator::new();
        let rating = match rating {
            None => v.check(Err(DomainError::field("rating", "is required"))),
            Some(r) => v.check(Rating::parse(r).ok_or_else(|| DomainError::field("rating", "must be up or down"))),
        };
        let comment = match comment {
            None => None,
            Some(c) => v.check(text::optional_bounded("comment", c, MAX_FEEDBACK_COMMENT)).flatten(),
        };
        v.finish()?;
        Ok(Self { rating: rating.unwrap_or(Rating::Up), comment, at: now })
    }
}

/// Where a conversation was opened: the keyed API, or the published Mind's public page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Api,
    Public,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Api => "api",
            Channel::Public => "public",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Channel::Api, Channel::Public].into_iter().find(|c| c.as_str() == s)
    }
}

/// A valid e-mail address (trimmed, at most [`MAX_VISITOR_EMAIL`] characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Email(String);

impl Email {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        if s.chars().count() > MAX_VISITOR_EMAIL || !is_email(s) {
            return Err(DomainError::field(field, "must be a valid e-mail address"));
        }
        Ok(Self(s.to_owned()))
    }

    /// A stored address, trusted as written.
    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The bearer secret of a public conversation (`Authorization: Visitor <token>`): it opens that
/// conversation only. Shown once, at its creation; only its SHA-256 is stored.
#[derive(Clone, PartialEq, Eq)]
pub struct VisitorToken(String);

/// The stored form of a [`VisitorToken`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisitorTokenHash(String);

const VISITOR_TOKEN_PREFIX: &str = "vt_";

impl VisitorToken {
    /// A new token: 32 random bytes, hex.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        text::random_bytes(&mut bytes);
        Self(format!("{VISITOR_TOKEN_PREFIX}{}", crate::text::hex(&bytes)))
    }

    /// A token as a client sent it; `None` when it cannot be one of ours.
    pub fn parse(s: &str) -> Option<Self> {
        let body = s.trim().strip_prefix(VISITOR_TOKEN_PREFIX)?;
        (body.len() == 64 && body.bytes().all(|b| b.is_ascii_hexdigit())).then(|| Self(s.trim().to_owned()))
    }

    pub fn hash(&self) -> VisitorTokenHash {
        use sha2::{Digest, Sha256};
        VisitorTokenHash(crate::text::hex(&Sha256::digest(self.0.as_bytes())))
    }

    /// The only way to read the token: to hand it to the visitor once.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for VisitorToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VisitorToken(<redacted>)")
    }
}

impl VisitorTokenHash {
    pub fn from_stored(s: String) -> Self {
        Self(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Who is talking, as far as they said.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Visitor {
    pub email: Option<Email>,
    pub name: Option<String>,
    /// The host site's user, verified by its signature (docs/api.md §18); `None` unless the
    /// owner verifies identities.
    pub user_id: Option<crate::embed::UserId>,
}

impl Visitor {
    /// `visitor.email` and `visitor.name` of a create body; both empty is no visitor at all.
    pub fn parse(email: Option<&str>, name: Option<&str>) -> Result<Option<Self>, DomainError> {
        let email = match email.map(str::trim) {
            None | Some("") => None,
            Some(e) => Some(Email::parse("visitor.email", e)?),
        };
        let name = match name {
            None => None,
            Some(n) => text::optional_bounded("visitor.name", n, MAX_VISITOR_NAME)?,
        };
        Ok((email.is_some() || name.is_some()).then_some(Self { email, name, user_id: None }))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    pub id: ConversationId,
    pub workspace_id: WorkspaceId,
    pub owner: SourceOwner,
    pub channel: Channel,
    pub visitor: Option<Visitor>,
    /// Public conversations: the hash of the visitor's token.
    pub visitor_token: Option<VisitorTokenHash>,
    /// Exact: changed by the store in the same write as the messages.
    pub message_count: u64,
    /// `open` unless a hand-off was asked for (docs/api.md §19).
    pub status: ConversationStatus,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Conversation {
    pub fn start(
        workspace_id: WorkspaceId,
        owner: SourceOwner,
        channel: Channel,
        visitor: Option<Visitor>,
        now: Timestamp,
    ) -> Self {
        Self {
            id: ConversationId::generate(),
            workspace_id,
            owner,
            channel,
            visitor,
            visitor_token: None,
            message_count: 0,
            status: ConversationStatus::Open,
            created_at: now,
            updated_at: now,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    /// A person answering for the owner during a hand-off (docs/api.md §19).
    Agent,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Agent => "agent",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Role::User, Role::Assistant, Role::Agent].into_iter().find(|r| r.as_str() == s)
    }
}

/// How an assistant message was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeneratedBy {
    /// By a language model from the retrieved passages.
    Llm,
    /// By quoting the retrieved passages (no model configured).
    Extractive,
    /// The owner's welcome message, first in a new conversation.
    Welcome,
    /// The owner's correction of an earlier answer to the same question, verbatim (§19).
    Correction,
}

impl GeneratedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            GeneratedBy::Llm => "llm",
            GeneratedBy::Extractive => "extractive",
            GeneratedBy::Welcome => "welcome",
            GeneratedBy::Correction => "correction",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [GeneratedBy::Llm, GeneratedBy::Extractive, GeneratedBy::Welcome, GeneratedBy::Correction]
            .into_iter()
            .find(|g| g.as_str() == s)
    }
}

/// A passage an answer cites: `index` is the `[index]` marker in the answer's text; `quote` is
/// verbatim text of the chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Citation {
    pub index: u32,
    pub source_id: SourceId,
    pub source_name: String,
    pub source_type: SourceType,
    pub chunk_id: String,
    pub url: Option<String>,
    pub quote: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: MessageId,
    pub conversation_id: ConversationId,
    pub role: Role,
    pub content: String,
    /// Assistant answers only; every one is cited by a marker of `content`.
    pub citations: Vec<Citation>,
    /// `None` for the user's messages.
    pub generated_by: Option<GeneratedBy>,
    /// The language model that wrote an `llm` answer.
    pub model: Option<String>,
    /// Assistant and agent messages: whether it answers (docs/api.md §19): `false` for an
    /// answer to a question that cites no passage. `None` for the user's messages.
    pub answered: Option<bool>,
    /// The latest rating of an assistant message.
    pub feedback: Option<Feedback>,
    pub created_at: Timestamp,
}

impl Message {
    pub fn user(conversation_id: ConversationId, content: MessageContent, now: Timestamp) -> Self {
        Self {
            id: MessageId::generate(),
            conversation_id,
            role: Role::User,
            content: content.0,
            citations: Vec::new(),
            generated_by: None,
            model: None,
            answered: None,
            feedback: None,
            created_at: now,
        }
    }

    /// A person's reply for the owner (a hand-off, docs/api.md §19).
    pub fn agent(conversation_id: ConversationId, content: MessageContent, now: Timestamp) -> Self {
        Self {
            id: MessageId::generate(),
            conversation_id,
            role: Role::Agent,
            content: content.0,
            citations: Vec::new(),
            generated_by: None,
            model: None,
            answered: Some(true),
            feedback: None,
            created_at: now,
        }
    }

    /// Whether an assistant message of this making answers: the welcome message and a
    /// correction always do; an answer to a question does when it cites a passage.
    pub fn answers(generated_by: GeneratedBy, citations: &[Citation]) -> bool {
        match generated_by {
            GeneratedBy::Welcome | GeneratedBy::Correction => true,
            GeneratedBy::Llm | GeneratedBy::Extractive => !citations.is_empty(),
        }
    }

    pub fn assistant(
        conversation_id: ConversationId,
        content: String,
        citations: Vec<Citation>,
        generated_by: GeneratedBy,
        model: Option<String>,
        now: Timestamp,
    ) -> Self {
        Self {
            id: MessageId::generate(),
            conversation_id,
            role: Role::Assistant,
            content,
            answered: Some(Self::answers(generated_by, &citations)),
            citations,
            generated_by: Some(generated_by),
            model,
            feedback: None,
            created_at: now,
        }
    }
}

/// A user's message: 1..=4,000 characters once trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageContent(String);

impl MessageContent {
    pub fn parse(field: &str, s: Option<&str>) -> Result<Self, DomainError> {
        match s {
            None => Err(DomainError::field(field, "is required")),
            Some(s) => text::bounded(field, s, MAX_CONTENT_CHARS).map(Self),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

// ---- markers ---------------------------------------------------------------------------------

/// The `[n]` markers of `text`, in order of first use.
pub fn markers(text: &str) -> Vec<u32> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && digits <= 3 && after.as_bytes().get(digits) == Some(&b']') {
            if let Ok(n) = after[..digits].parse::<u32>()
                && seen.insert(n)
            {
                out.push(n);
            }
            rest = &after[digits + 1..];
        } else {
            rest = after;
        }
    }
    out
}

/// Keeps only the citations an answer's markers use (in index order).
pub fn used_citations(text: &str, citations: Vec<Citation>) -> Vec<Citation> {
    let used: BTreeSet<u32> = markers(text).into_iter().collect();
    citations.into_iter().filter(|c| used.contains(&c.index)).collect()
}

/// Removes markers that name no passage (`[0]`, `[9]` of five), as text streams through:
/// an answer never shows a marker without its citation. Text that may begin a marker is held
/// back until it is known ([`MarkerFilter::finish`] releases what is left).
#[derive(Debug, Clone)]
pub struct MarkerFilter {
    valid: BTreeSet<u32>,
    held: String,
}

impl MarkerFilter {
    pub fn new(valid: impl IntoIterator<Item = u32>) -> Self {
        Self { valid: valid.into_iter().collect(), held: String::new() }
    }

    /// The text of `delta` that can be shown now. The spaces before a `[` are held with it, so
    /// that a dropped marker takes its leading space along ("never [7]." shows "never.").
    pub fn push(&mut self, delta: &str) -> String {
        self.held.push_str(delta);
        let mut out = String::new();
        loop {
            let Some(open) = self.held.find('[') else {
                // Trailing spaces may precede a marker still to come.
                let keep = self.held.len() - self.held.trim_end_matches(' ').len();
                let cut = self.held.len() - keep;
                out.push_str(&self.held[..cut]);
                self.held = self.held[cut..].to_owned();
                return out;
            };
            let spaces = open - self.held[..open].trim_end_matches(' ').len();
            out.push_str(&self.held[..open - spaces]);
            let tail = self.held[open - spaces..].to_owned();
            let (lead, rest) = tail.split_at(spaces);
            let digits = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
            match rest.as_bytes().get(1 + digits) {
                // Not finished yet: hold it (a marker is at most `[999]`).
                None if digits <= 3 => {
                    self.held = tail;
                    return out;
                }
                Some(b']') if (1..=3).contains(&digits) => {
                    let n: u32 = rest[1..1 + digits].parse().unwrap_or(0);
                    if self.valid.contains(&n) {
                        out.push_str(lead);
                        out.push_str(&rest[..digits + 2]);
                    }
                    self.held = rest[digits + 2..].to_owned();
                }
                _ => {
                    out.push_str(lead);
                    out.push('[');
                    self.held = rest[1..].to_owned();
                }
            }
        }
    }

    /// What is still held back (a trailing `[` or `[12` that never closed).
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

// ---- quotes ----------------------------------------------------------------------------------

/// English function words, too common to say what a question is about (questions are mostly
/// English; other languages keep all their words). The one list for every use: the content words
/// a keyword score counts and the words a keyword query leaves out.
const STOP_WORDS: &[&str] = &[
    "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "should",
    "so", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "us", "was", "we", "were",
    "what", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
];

/// Whether `word` (lower case) is one of the [`STOP_WORDS`].
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(&word)
}

/// The lower-cased content words of `text` (letters and digits, stop words dropped), with a
/// crude plural/verb ending removed so that "refunds" finds "refund".
pub fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| stem(&w.to_lowercase()))
        .filter(|w| w.chars().count() > 1 && !is_stop_word(w))
        .collect()
}

fn stem(w: &str) -> String {
    for suffix in ["ing", "es", "ed", "s"] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.chars().count() >= 3
        {
            return base.to_owned();
        }
    }
    w.to_owned()
}

/// Sentence spans of `text`: byte ranges ending after `.`, `!`, `?` or a line break.
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let boundary =
            c == '\n' || (matches!(c, '.' | '!' | '?') && bytes.get(end).is_none_or(|b| b.is_ascii_whitespace()));
        if boundary {
            if !text[start..end].trim().is_empty() {
                out.push((start, end));
            }
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push((start, text.len()));
    }
    out
}

/// The part of `chunk` most about `question`: the sentence sharing the most content words
/// with it (the first one when none does), extended by the sentences after it that share words
/// with it too, within [`MAX_QUOTE_CHARS`]; cut at a word when one sentence is longer. Always
/// verbatim text of the chunk, trimmed.
pub fn quote(chunk: &str, question: &str) -> String {
    let wanted = terms(question);
    let spans = sentences(chunk);
    if spans.is_empty() {
        return String::new();
    }
    let overlap = |&(a, b): &(usize, usize)| terms(&chunk[a..b]).intersection(&wanted).count();
    let best = (0..spans.len()).max_by_key(|&i| (overlap(&spans[i]), std::cmp::Reverse(i))).unwrap_or(0);
    let (start, mut end) = spans[best];
    // The sentences right after it join while they are about the question too.
    for span in &spans[best + 1..] {
        if overlap(span) == 0 || chunk[start..span.1].trim().chars().count() > MAX_QUOTE_CHARS {
            break;
        }
        end = span.1;
    }
    let text = chunk[start..end].trim();
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_owned();
    }
    let cut = text.char_indices().nth(MAX_QUOTE_CHARS).map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    head[..head.rfind(char::is_whitespace).unwrap_or(head.len())].trim_end().to_owned()
}

/// Whether `passage` shares a content word with `question` (the extractive answer quotes only
/// such passages: a semantic neighbour with no word in common is not evidence).
pub fn shares_terms(passage: &str, question: &str) -> bool {
    let wanted = terms(question);
    !wanted.is_empty() && terms(passage).intersection(&wanted).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read_in_order_of_first_use() {
        assert_eq!(markers("A [2] and [1], again [2]; not [x] or [1234] or [ 3]."), vec![2, 1]);
        assert!(markers("none").is_empty());
    }

    #[test]
    fn the_filter_drops_markers_without_a_passage_even_when_split_across_deltas() {
        let mut f = MarkerFilter::new([1, 2]);
        let mut out = String::new();
        for d in ["Refunds take 5 days [", "1] and", " never [", "7", "]. Arrays [i] stay", " [2"] {
            out.push_str(&f.push(d));
        }
        out.push_str(&f.push("]."));
        out.push_str(&f.finish());
        assert_eq!(out, "Refunds take 5 days [1] and never. Arrays [i] stay [2].");
        assert_eq!(markers(&out), vec![1, 2]);
        let mut f = MarkerFilter::new([1]);
        assert_eq!(f.push("ends with ["), "ends with");
        assert_eq!(f.finish(), " [");
    }

    #[test]
    fn a_quote_is_the_most_relevant_verbatim_sentence() {
        let chunk = "Our shop is in Lyon. Refunds are paid within 14 days of the return. Shipping is free.";
        let q = quote(chunk, "how long do refunds take?");
        assert_eq!(q, "Refunds are paid within 14 days of the return.");
        let q = quote(chunk, "refunds and shipping");
        assert_eq!(
            q, "Refunds are paid within 14 days of the return. Shipping is free.",
            "a related next sentence joins"
        );
        assert!(chunk.contains(&q));
        let long = "word ".repeat(300);
        let q = quote(&long, "word");
        assert!(q.chars().count() <= MAX_QUOTE_CHARS && long.contains(&q));
        assert!(shares_terms(chunk, "refund policy"));
        assert!(!shares_terms(chunk, "what is the capital of Peru"));
    }

    #[test]
    fn content_and_visitors_are_validated() {
        assert!(MessageContent::parse("content", Some("  ")).is_err());
        assert!(MessageContent::parse("content", None).is_err());
        assert!(MessageContent::parse("content", Some(&"é".repeat(4_000))).is_ok());
        assert!(MessageContent::parse("content", Some(&"é".repeat(4_001))).is_err());
        assert_eq!(Visitor::parse(None, Some(" ")).unwrap(), None);
        assert!(Visitor::parse(Some("not-an-address"), None).is_err());
        let v = Visitor::parse(Some(" ada@example.com "), Some("Ada")).unwrap().unwrap();
        assert_eq!(v.email.unwrap().as_str(), "ada@example.com");
    }
}
