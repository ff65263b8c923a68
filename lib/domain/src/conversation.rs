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
use std::collections::{BTreeMap, BTreeSet};

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

    /// With personal data replaced ([`crate::privacy::redact`]).
    pub fn redacted(self) -> Self {
        Self(crate::privacy::redact(&self.0).into_owned())
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
    /// With personal data in the comment replaced ([`crate::privacy::redact`]).
    pub fn redacted(self) -> Self {
        let comment = self.comment.map(|c| crate::privacy::redact(&c).into_owned());
        Self { comment, ..self }
    }

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
    /// Answered in a connected channel (docs/api.md §24).
    Slack,
    Telegram,
    Whatsapp,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Api => "api",
            Channel::Public => "public",
            Channel::Slack => "slack",
            Channel::Telegram => "telegram",
            Channel::Whatsapp => "whatsapp",
        }
    }

    /// Held on a connected platform (Slack, Telegram, WhatsApp).
    pub fn is_platform(self) -> bool {
        matches!(self, Channel::Slack | Channel::Telegram | Channel::Whatsapp)
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Channel::Api, Channel::Public, Channel::Slack, Channel::Telegram, Channel::Whatsapp]
            .into_iter()
            .find(|c| c.as_str() == s)
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
    /// While in `handoff`: why the visitor asked for a person, when they said (as stored: redacted
    /// when the owner hides personal data).
    pub handoff_reason: Option<String>,
    /// A conversation held on a platform (docs/api.md §24): the channel and the thread or chat.
    pub link: Option<crate::channel::ChannelLink>,
    /// The platform call of this conversation that last failed for good (an answer or an
    /// agent's reply that did not reach the platform); `None` once one gets through again.
    pub channel_error: Option<crate::channel::PlatformFailure>,
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
            handoff_reason: None,
            link: None,
            channel_error: None,
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
    /// answer to a question that cites no passage, and for an extractive one whose passages do
    /// not cover the question ([`Message::answers_question`]). `None` for the user's messages.
    pub answered: Option<bool>,
    /// The latest rating of an assistant message.
    pub feedback: Option<Feedback>,
    /// The actions a model called while writing this answer, in order (docs/api.md §23).
    pub actions: Vec<crate::action::ActionCall>,
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
            actions: Vec::new(),
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
            actions: Vec::new(),
            created_at: now,
        }
    }

    /// Whether an assistant message of this making answers: the welcome message and a
    /// correction always do; an answer to a question does when it cites a passage. The rule of
    /// messages stored before the question was read too; new answers are judged by
    /// [`Message::answers_question`].
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
            actions: Vec::new(),
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

    /// With the personal data of [`crate::privacy::redact`] replaced (each label is no longer
    /// than what it replaces, so the bounds still hold).
    pub fn redacted(self) -> Self {
        match crate::privacy::redact(&self.0) {
            std::borrow::Cow::Borrowed(_) => self,
            std::borrow::Cow::Owned(s) => Self(s),
        }
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
/// Unspaced Chinese and Japanese are read as character pairs, as keyword search reads them
/// ("返品の返金" → 返品, 品の, の返, 返金), leaving out pairs of hiragana only (particles and
/// endings: です, ます); a lone Han character is a term.
pub fn terms(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for run in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        let chars: Vec<char> = run.chars().collect();
        // The run in pieces of CJK characters and of other letters and digits ("14日以内").
        for piece in chars.chunk_by(|a, b| is_cjk(*a) == is_cjk(*b)) {
            if is_cjk(piece[0]) {
                cjk_terms(piece, &mut out);
                continue;
            }
            let w = stem(&piece.iter().collect::<String>().to_lowercase());
            if w.chars().count() > 1 && !is_stop_word(&w) {
                out.insert(w);
            }
        }
    }
    out
}

fn cjk_terms(piece: &[char], out: &mut BTreeSet<String>) {
    if let [single] = piece {
        if !is_hiragana(*single) {
            out.insert(single.to_string());
        }
        return;
    }
    for pair in piece.windows(2) {
        if !(is_hiragana(pair[0]) && is_hiragana(pair[1])) {
            out.insert(pair.iter().collect());
        }
    }
}

/// Han ideographs, hiragana and katakana: scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    is_cjk_content(c) || is_hiragana(c)
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

/// Sentence spans of `text`: byte ranges ending after `.`, `!`, `?` (then a space or the end),
/// `。`, `！`, `？` or a line break.
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        // Chinese and Japanese end sentences with full-width marks, followed by no space.
        let boundary = c == '\n'
            || matches!(c, '。' | '！' | '？')
            || (matches!(c, '.' | '!' | '?') && bytes.get(end).is_none_or(|b| b.is_ascii_whitespace()));
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
/// with it too, within [`MAX_QUOTE_CHARS`]; cut at a word when one sentence is longer. Headings
/// are passed over while the chunk has anything else. Always verbatim text of the chunk, trimmed.
pub fn quote(chunk: &str, question: &str) -> String {
    let wanted = terms(question);
    let all = sentences(chunk);
    // A heading names a topic; it says nothing a reader could check.
    let prose: Vec<(usize, usize)> = all.iter().copied().filter(|&(a, b)| !is_heading(&chunk[a..b])).collect();
    let spans = if prose.is_empty() { all } else { prose };
    if spans.is_empty() {
        return String::new();
    }
    let overlap = |&(a, b): &(usize, usize)| terms(&chunk[a..b]).intersection(&wanted).count();
    let best = (0..spans.len()).max_by_key(|&i| (overlap(&spans[i]), std::cmp::Reverse(i))).unwrap_or(0);
    let (start, mut end) = spans[best];
    // The sentences right after it join while they are about the question too (a heading in
    // between ends it: what follows is another topic).
    for span in &spans[best + 1..] {
        if !chunk[end..span.0].trim().is_empty()
            || overlap(span) == 0
            || chunk[start..span.1].trim().chars().count() > MAX_QUOTE_CHARS
        {
            break;
        }
        end = span.1;
    }
    bounded(&chunk[start..end])
}

/// `text` trimmed, cut at a word to [`MAX_QUOTE_CHARS`] when longer.
fn bounded(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_owned();
    }
    let cut = text.char_indices().nth(MAX_QUOTE_CHARS).map_or(text.len(), |(i, _)| i);
    let head = &text[..cut];
    head[..head.rfind(char::is_whitespace).unwrap_or(head.len())].trim_end().to_owned()
}

/// Words a line may have and still read as a title ("Pricing and how an engagement works").
const TITLE_WORDS: usize = 8;

/// Whether a sentence span is a heading: a Markdown `#` line, or a short line without end
/// punctuation that is not a list item, holds no figure and does not open in lower case (a
/// title, not a statement).
fn is_heading(span: &str) -> bool {
    let line = span.trim();
    if line.starts_with('#') {
        return true;
    }
    let bare = line.trim_end_matches(['*', '_', ')', '"', '\'', '\u{201d}', '\u{2019}']);
    // A colon ends a label ("Pricing:"), not a statement.
    let ends_a_statement = bare.ends_with(['.', '!', '?', ';', ',', '。', '！', '？', '、', '；']);
    let list_item = ["- ", "* ", "+ ", "\u{2022}"].iter().any(|m| line.starts_with(m))
        || line
            .split_once(['.', ')'])
            .is_some_and(|(n, rest)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with(' '));
    // A line that opens in lower case goes on from the line before (text wrapped by a PDF).
    let continues = line.chars().find(|c| c.is_alphabetic()).is_some_and(char::is_lowercase);
    !line.is_empty()
        && !continues
        && !ends_a_statement
        && !list_item
        && !line.starts_with('|')
        && !line.chars().any(|c| c.is_ascii_digit())
        && line.split_whitespace().count() <= TITLE_WORDS
}

// ---- quotes that support the claims ----------------------------------------------------------

/// The `[n]` markers of `text` with their byte ranges, in order.
fn marker_spans(text: &str) -> Vec<(usize, usize, u32)> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(open) = text[i..].find('[').map(|o| i + o) {
        let digits = bytes[open + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        let close = open + 1 + digits;
        match (digits, bytes.get(close)) {
            (1..=3, Some(b']')) => {
                out.push((open, close + 1, text[open + 1..close].parse().unwrap_or(0)));
                i = close + 1;
            }
            _ => i = open + 1,
        }
    }
    out
}

/// The sentences of an answer, as byte ranges. Markers written after a sentence's end
/// ("… 14 days. [1] Shipping …") belong to the sentence they follow, not the next one.
fn answer_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut spans = sentences(text);
    for i in 1..spans.len() {
        let (prev_end, (start, end)) = (spans[i - 1].1, spans[i]);
        // Only on the same line: a marker opening a line (a list item) is that line's.
        if start != prev_end || !text[..prev_end].ends_with(['.', '!', '?']) {
            continue;
        }
        // The leading markers (with the spaces before them) of this span move back.
        let mut cut = start;
        for (a, b, _) in marker_spans(&text[start..end]) {
            if text[cut..start + a].trim_matches([' ', '\t']).is_empty() {
                cut = start + b;
            } else {
                break;
            }
        }
        if cut > start {
            spans[i - 1].1 = cut;
            spans[i].0 = cut;
        }
    }
    spans.retain(|&(a, b)| !text[a..b].trim().is_empty());
    spans
}

/// What each marker of `answer` claims: for marker `n`, the parts of the answer's sentences it
/// marks. In a sentence, a marker (or a run of markers, `[1][2]`) marks the words since the
/// previous marker — or the words after it when it opens the sentence — and the last marker
/// also marks the rest of its sentence.
pub fn claims(answer: &str) -> BTreeMap<u32, Vec<String>> {
    let mut out: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for (start, end) in answer_sentences(answer) {
        let sentence = &answer[start..end];
        // Runs of markers with nothing said between them: (markers, start, end).
        let mut runs: Vec<(Vec<u32>, usize, usize)> = Vec::new();
        for (a, b, n) in marker_spans(sentence) {
            match runs.last_mut() {
                Some(run) if terms(&sentence[run.2..a]).is_empty() => {
                    run.0.push(n);
                    run.2 = b;
                }
                _ => runs.push((vec![n], a, b)),
            }
        }
        for (i, (run, run_start, run_end)) in runs.iter().enumerate() {
            let before = &sentence[if i == 0 { 0 } else { runs[i - 1].2 }..*run_start];
            let after = &sentence[*run_end..runs.get(i + 1).map_or(sentence.len(), |r| r.1)];
            let claim = if terms(before).is_empty() {
                // The sentence opens with its marker: it marks what follows.
                after.trim().to_owned()
            } else if i + 1 == runs.len() && !terms(after).is_empty() {
                format!("{} {}", before.trim(), after.trim())
            } else {
                before.trim().to_owned()
            };
            if terms(&claim).is_empty() {
                continue;
            }
            for &n in run {
                let list = out.entry(n).or_default();
                if !list.contains(&claim) {
                    list.push(claim.clone());
                }
            }
        }
    }
    out
}

/// A content word as claims are matched with passages: [`terms`]' stem, and a final `y` or `i`
/// dropped too, so that "industry" meets "industries" and "delivery" meets "delivered".
fn claim_term(term: &str) -> String {
    match term.strip_suffix(['y', 'i']) {
        Some(base) if base.chars().count() >= 4 => base.to_owned(),
        _ => term.to_owned(),
    }
}

fn claim_terms(text: &str) -> BTreeSet<String> {
    terms(text).iter().map(|t| claim_term(t)).collect()
}

/// The span of `chunk` that best supports `claims` (the sentences of an answer that cite it):
/// one sentence, or two adjacent ones when that scores better, never a heading, at most
/// [`MAX_QUOTE_CHARS`]. A span's score is the weighted Dice coefficient of its content words and
/// the claims' (twice the weight they share over the weight of both), each word weighted by how
/// rare it is among the chunk's sentences: a span holding more of what the claims say scores
/// higher, one that also says much else lower, and a word every sentence has (the company's
/// name) counts least. Ties go to the shorter span, then the earlier. `None` when no sentence
/// shares a content word with the claims. Verbatim text of the chunk.
pub fn quote_for_claims(chunk: &str, claims: &[String]) -> Option<String> {
    let wanted: BTreeSet<String> = claims.iter().flat_map(|c| claim_terms(c)).collect();
    if wanted.is_empty() {
        return None;
    }
    let spans: Vec<(usize, usize)> = sentences(chunk).into_iter().filter(|&(a, b)| !is_heading(&chunk[a..b])).collect();
    let words: Vec<BTreeSet<String>> = spans.iter().map(|&(a, b)| claim_terms(&chunk[a..b])).collect();
    let n = spans.len() as f64;
    // A word of the claims the chunk lacks weighs as much as its rarest.
    let weight = |t: &String| {
        let df = words.iter().filter(|w| w.contains(t)).count().max(1) as f64;
        (1.0 + n / df).ln()
    };
    let claimed: f64 = wanted.iter().map(weight).sum();
    let score = |held: &BTreeSet<String>| {
        let shared: f64 = held.intersection(&wanted).map(weight).sum();
        2.0 * shared / (held.iter().map(weight).sum::<f64>() + claimed)
    };
    // (score, characters, start, end) of the best candidate so far.
    let mut best: Option<(f64, usize, usize, usize)> = None;
    let mut consider = |s: f64, start: usize, end: usize| {
        let chars = chunk[start..end].trim().chars().count();
        let better = match best {
            None => true,
            Some((bs, bc, bstart, _)) => s > bs + 1e-9 || ((s - bs).abs() <= 1e-9 && (chars, start) < (bc, bstart)),
        };
        if s > 0.0 && better {
            best = Some((s, chars, start, end));
        }
    };
    for (i, &(a, b)) in spans.iter().enumerate() {
        consider(score(&words[i]), a, b);
        // Two sentences only when nothing but white space is between them (no heading), within
        // bounds.
        if let Some(&(c, d)) = spans.get(i + 1)
            && chunk[b..c].trim().is_empty()
            && chunk[a..d].trim().chars().count() <= MAX_QUOTE_CHARS
        {
            consider(score(&words[i].union(&words[i + 1]).cloned().collect()), a, d);
        }
    }
    best.map(|(_, _, start, end)| bounded(&chunk[start..end]))
}

/// Gives each citation the quote that supports what its markers claim in `answer`
/// ([`quote_for_claims`] over the chunk `chunk(index)`). A citation whose marker claims nothing
/// its chunk has words for keeps its quote.
pub fn quote_claims<'a>(answer: &str, citations: &mut [Citation], chunk: impl Fn(u32) -> Option<&'a str>) {
    let claims = claims(answer);
    for c in citations {
        if let (Some(claimed), Some(text)) = (claims.get(&c.index), chunk(c.index))
            && let Some(q) = quote_for_claims(text, claimed)
        {
            c.quote = q;
        }
    }
}

/// Whether `passage` shares a content word with `question` (the extractive answer quotes only
/// such passages: a semantic neighbour with no word in common is not evidence).
pub fn shares_terms(passage: &str, question: &str) -> bool {
    let wanted = terms(question);
    !wanted.is_empty() && terms(passage).intersection(&wanted).next().is_some()
}

// ---- whether an extractive answer answers ----------------------------------------------------

/// English words that frame a question rather than name what it is about ("how **long** does it
/// **take**", "do you **offer** …", "how **much** does it **cost**"): an answer need not repeat
/// them. Compared after [`terms`]' stemming.
#[rustfmt::skip]
const QUESTION_FRAME_WORDS: &[&str] = &[
    "long", "much", "many", "often", "far", "soon", "take", "takes", "get", "need", "want", "know", "tell", "please",
    "any", "anything", "some", "possible", "able", "also", "still", "here", "way", "thing", "just", "really",
    "like", "mean", "happen", "offer", "provide", "available", "help", "use", "cost", "costs", "exist", "hi",
    "hello", "thank", "thanks", "ok", "okay",
    // English function words the search's stop list keeps (it is tuned for ranking, not for
    // telling what a question asks about), and words of manner or time that only frame it.
    "until", "till", "before", "after", "since", "during", "than", "via", "per", "between", "without", "within",
    "whether", "not", "no", "yes", "all", "each", "every", "other", "same", "such", "only", "very", "too", "more",
    "most", "again", "ever", "both", "either", "am", "been", "being", "did", "done", "had", "he", "she", "her",
    "him", "his", "out", "up", "over", "under", "once", "fast", "quick", "quickly", "exactly", "usually",
    "normally", "typically", "currently", "today", "now", "someone", "somebody", "anyone",
];

/// Chinese characters that make a question's grammar (particles, pronouns, "is", "from"), not its
/// subject: a character pair holding one says nothing about the topic.
const CHINESE_FUNCTION_CHARS: &str = "的了吗呢吧么是在从和你我们这那哪什怎有";

/// Hiragana: in a Japanese question, its particles and verb endings.
fn is_hiragana(c: char) -> bool {
    ('\u{3040}'..='\u{309F}').contains(&c)
}

/// Han ideographs and katakana: the content characters of Chinese and Japanese, written without
/// spaces between words.
fn is_cjk_content(c: char) -> bool {
    matches!(c, '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
}

/// A term of a question an answer must cover: a word (as [`terms`] reads it), or a pair of
/// Chinese or Japanese characters (or one character standing alone), read as the keyword index
/// reads those scripts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum QuestionTerm {
    Word(String),
    Characters(String),
}

impl QuestionTerm {
    pub fn as_str(&self) -> &str {
        match self {
            Self::Word(s) | Self::Characters(s) => s,
        }
    }
}

/// The distinctive terms of `question`: its content words ([`terms`]: no English stop word),
/// without the question-framing words of English ([`QUESTION_FRAME_WORDS`]) nor the little words
/// of the languages `language` tells questions by ([`crate::language::is_function_word`]); in
/// Chinese and Japanese runs, the pairs of content characters (hiragana and the Chinese
/// [`CHINESE_FUNCTION_CHARS`] left out).
pub fn distinctive_terms(question: &str) -> BTreeSet<QuestionTerm> {
    let mut out = BTreeSet::new();
    for run in question.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        // A run mixes scripts in Japanese ("iPhoneは"): its content characters and its words.
        let mut word = String::new();
        let mut cjk = String::new();
        let flush = |word: &mut String, cjk: &mut String, out: &mut BTreeSet<QuestionTerm>| {
            if !word.is_empty() {
                let lower = word.to_lowercase();
                let w = stem(&lower);
                let framing = QUESTION_FRAME_WORDS.iter().any(|f| stem(f) == w);
                // The stop word before stemming too: "does" stems to "doe", which no list holds.
                let stop = is_stop_word(&lower) || is_stop_word(&w);
                if w.chars().count() > 1 && !stop && !framing && !crate::language::is_function_word(&w) {
                    out.insert(QuestionTerm::Word(w));
                }
                word.clear();
            }
            if !cjk.is_empty() {
                let chars: Vec<char> = cjk.chars().collect();
                if chars.len() == 1 {
                    if !CHINESE_FUNCTION_CHARS.contains(chars[0]) {
                        out.insert(QuestionTerm::Characters(cjk.clone()));
                    }
                } else {
                    for pair in chars.windows(2) {
                        if !pair.iter().any(|c| CHINESE_FUNCTION_CHARS.contains(*c)) {
                            out.insert(QuestionTerm::Characters(pair.iter().collect()));
                        }
                    }
                }
                cjk.clear();
            }
        };
        for c in run.chars() {
            if is_cjk_content(c) {
                if !word.is_empty() {
                    flush(&mut word, &mut String::new(), &mut out);
                }
                cjk.push(c);
            } else if is_hiragana(c) {
                flush(&mut word, &mut cjk, &mut out);
            } else {
                if !cjk.is_empty() {
                    flush(&mut String::new(), &mut cjk, &mut out);
                }
                word.push(c);
            }
        }
        flush(&mut word, &mut cjk, &mut out);
    }
    out
}

/// Whether a passage's words hold the question's word `w`: the same after [`claim_term`]'s
/// folding ("delivery" and "delivered"), or one the start of the other, the shorter of four
/// letters or more and at most three letters apart ("shipping" and "ship").
fn holds_word(held: &BTreeSet<String>, w: &str) -> bool {
    let w = claim_term(w);
    held.iter().any(|h| {
        let (short, long) = if h.len() <= w.len() { (h.as_str(), w.as_str()) } else { (w.as_str(), h.as_str()) };
        short == long
            || (long.starts_with(short)
                && short.chars().count() >= 4
                && long.chars().count() - short.chars().count() <= 3)
    })
}

/// The distinctive terms of `question` ([`distinctive_terms`]) that none of `passages` holds,
/// in order. Empty when the passages cover the question.
pub fn uncovered_terms(question: &str, passages: &[&str]) -> Vec<String> {
    let held: BTreeSet<String> = passages.iter().flat_map(|p| claim_terms(p)).collect();
    distinctive_terms(question)
        .into_iter()
        .filter(|t| match t {
            QuestionTerm::Word(w) => !holds_word(&held, w),
            QuestionTerm::Characters(c) => !passages.iter().any(|p| p.contains(c.as_str())),
        })
        .map(|t| t.as_str().to_owned())
        .collect()
}

impl Message {
    /// Whether an answer of this making to `question` answers it (docs/api.md §19, docs/decisions.md
    /// "When an answer answers"): [`Message::answers`], and an extractive answer — made of passages
    /// that share only one word with the question, perhaps — also needs the passages it cites
    /// (`cited`: their text) to cover every distinctive term of the question
    /// ([`uncovered_terms`]): "Do you ship to Italy?" is not answered by "We ship kettles to
    /// Germany, France and Spain." A model's answer keeps the rule of its citations: a model that
    /// does not know says so without citing (its prompt asks it to).
    pub fn answers_question(generated_by: GeneratedBy, citations: &[Citation], question: &str, cited: &[&str]) -> bool {
        Self::answers(generated_by, citations)
            && (generated_by != GeneratedBy::Extractive || uncovered_terms(question, cited).is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspaced_japanese_and_chinese_are_read_as_character_pairs() {
        let question = terms("返品の返金は何日以内ですか？");
        for t in ["返品", "返金", "日以", "以内"] {
            assert!(question.contains(t), "{t}: {question:?}");
        }
        assert!(!question.contains("です"), "hiragana-only pairs are grammar: {question:?}");
        let passage = "返品された商品が倉庫に届いてから14日以内に返金いたします。送料は返金の対象外です。";
        assert!(shares_terms(passage, "返金はいつですか"));
        assert!(!shares_terms(passage, "東京の天気"));
        assert!(terms("14日以内").contains("14"), "digits stay a term");
        assert_eq!(terms("倉"), BTreeSet::from(["倉".to_owned()]));
        assert_eq!(quote(passage, "送料は返金されますか"), "送料は返金の対象外です。", "a sentence ends at 。");
        assert!(shares_terms("水壶从上海仓库发货。", "水壶从哪里发货？"));
        assert_eq!(
            terms("Refunds take 14 days"),
            BTreeSet::from(["refund".into(), "take".into(), "14".into(), "day".into()])
        );
    }

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

    fn cited(quote: &str) -> Vec<Citation> {
        vec![Citation {
            index: 1,
            source_id: SourceId::generate(),
            source_name: "s".into(),
            source_type: SourceType::Text,
            chunk_id: "c".into(),
            url: None,
            quote: quote.into(),
        }]
    }

    #[test]
    fn an_extractive_answer_answers_only_when_its_passages_cover_the_question_s_distinctive_terms() {
        let passage = "We ship kettles to Germany, France and Spain.";
        let answers = |q: &str, p: &str| Message::answers_question(GeneratedBy::Extractive, &cited(p), q, &[p]);
        assert!(!answers("Do you ship to Italy?", passage));
        assert_eq!(uncovered_terms("Do you ship to Italy?", &[passage]), ["italy"]);
        assert!(answers("Do you ship to France?", passage));
        assert!(answers("Do you offer shipping to france?", passage), "frame words, case, endings");
        assert!(
            answers(
                "How long until parcels abroad are shipped?",
                "Parcels abroad are shipped within five working days."
            ),
            "'until' frames the question"
        );
        assert!(answers("How fast do parcels to France ship?", "Parcels to France ship in two days."));
        assert!(
            answers("When does the shop open?", "The shop opens at nine in the morning."),
            "a stop word that stems to something else ('does') is still a stop word"
        );
        let refunds = "Refunds are paid within 14 days of the return.";
        assert!(answers("How long do refunds take?", refunds));
        assert!(!answers("How long do exchanges take?", refunds));
        // Japanese: pairs of content characters; the hiragana particles and endings do not count.
        let ja = "ケトルは三営業日以内にドイツ、フランス、スペインへ発送されます。";
        assert!(!answers("イタリアに発送しますか？", ja));
        assert!(answers("ドイツに発送しますか？", ja));
        assert!(!answers("水壶从上海仓库发货吗？", "水壶从北京仓库发货。"));
        assert!(answers("水壶从上海仓库发货吗？", "水壶从上海仓库发货。"));
        // Citing nothing never answers; a model's cited answer keeps its rule; welcome and corrections answer.
        assert!(!Message::answers_question(GeneratedBy::Extractive, &[], "Do you ship to France?", &[]));
        assert!(Message::answers_question(GeneratedBy::Llm, &cited(passage), "Do you ship to Italy?", &[passage]));
        assert!(!Message::answers_question(GeneratedBy::Llm, &[], "Do you ship to Italy?", &[]));
        assert!(Message::answers_question(GeneratedBy::Correction, &[], "Do you ship to Italy?", &[]));
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

    /// A services page as a crawl gives it: headings, and sentences on several topics.
    const PAGE: &str = "# Services\n\nPricing and how an engagement works\n\nWe advise hospitals, logistics firms and \
        retailers on their data platforms. We never take work from the defence or tobacco industries. An audit \
        takes two weeks and costs 4,800 euros, paid when the report is delivered. Longer projects are billed \
        monthly at a rate agreed in advance.";

    fn owned(claims: &[&str]) -> Vec<String> {
        claims.iter().map(|c| (*c).to_owned()).collect()
    }

    #[test]
    fn headings_are_told_from_statements() {
        for heading in ["# Services", "## Pricing and how an engagement works", "Services", "**Our team**", "Pricing:"]
        {
            assert!(is_heading(heading), "{heading:?}");
        }
        for statement in [
            "We advise hospitals.",
            "- Healthcare",
            "1. Book a call",
            "Open 9 to 5 on weekdays",
            "Every engagement starts with a call and ends with a written report for the board",
            "and retailers across Europe",
        ] {
            assert!(!is_heading(statement), "{statement:?}");
        }
    }

    #[test]
    fn a_heading_alone_is_never_the_quote() {
        // The heading shares every word of the claim; the sentence only some.
        let chunk = "Pricing and how an engagement works\nEach engagement is priced after a first call.";
        let q = quote_for_claims(chunk, &owned(&["Pricing depends on how an engagement works"])).unwrap();
        assert_eq!(q, "Each engagement is priced after a first call.");
        assert_eq!(quote_for_claims("# Pricing\n## Engagements", &owned(&["pricing of engagements"])), None);
        // The question-based quote passes over headings too, even when nothing matches.
        assert_eq!(
            quote(PAGE, "capital of Peru"),
            "We advise hospitals, logistics firms and retailers on their data platforms."
        );
        assert!(!quote(PAGE, "services pricing engagement").starts_with('#'));
        // Sentences join across a line break, not across a heading.
        let chunk = "Refunds take 14 days.\nRefunds are paid by card.\n# Shipping refunds\nShipping refunds are rare.";
        assert_eq!(quote(chunk, "refunds"), "Refunds take 14 days.\nRefunds are paid by card.");
        let claims = owned(&["Refunds take 14 days and are paid by card, but shipping refunds are rare"]);
        assert_eq!(quote_for_claims(chunk, &claims).unwrap(), "Refunds take 14 days.\nRefunds are paid by card.");
    }

    #[test]
    fn each_claim_gets_the_sentence_that_supports_it() {
        let answer = "They work with hospitals, logistics firms and retailers [1]. An audit costs 4,800 euros [2].";
        let c = claims(answer);
        assert_eq!(c[&1], ["They work with hospitals, logistics firms and retailers"]);
        assert_eq!(c[&2], ["An audit costs 4,800 euros"]);
        let mut citations = vec![citation(1), citation(2)];
        quote_claims(answer, &mut citations, |_| Some(PAGE));
        assert_eq!(citations[0].quote, "We advise hospitals, logistics firms and retailers on their data platforms.");
        assert_eq!(
            citations[1].quote,
            "An audit takes two weeks and costs 4,800 euros, paid when the report is delivered."
        );
        // A marker claiming nothing the chunk has words for keeps the quote it had.
        let mut unrelated = vec![citation(1)];
        quote_claims("Penguins live in Antarctica [1].", &mut unrelated, |_| Some(PAGE));
        assert_eq!(unrelated[0].quote, "question-based");
    }

    #[test]
    fn a_marker_inside_a_sentence_claims_the_words_before_it() {
        let answer = "They refuse tobacco work [1], and an audit is paid on delivery [2].\n[3] Longer projects are billed monthly.";
        let c = claims(answer);
        assert_eq!(c[&1], ["They refuse tobacco work"]);
        assert_eq!(c[&2], [", and an audit is paid on delivery"]);
        assert_eq!(c[&3], ["Longer projects are billed monthly."], "a marker opening a line claims what follows");
        assert_eq!(
            quote_for_claims(PAGE, &c[&1]).unwrap(),
            "We never take work from the defence or tobacco industries."
        );
        assert_eq!(
            quote_for_claims(PAGE, &c[&2]).unwrap(),
            "An audit takes two weeks and costs 4,800 euros, paid when the report is delivered."
        );
        // Markers after the full stop belong to the sentence before them; a run shares its claim.
        let c = claims("Audits cost 4,800 euros. [1][2] Projects are billed monthly.");
        assert_eq!(
            (c[&1].clone(), c[&2].clone()),
            (owned(&["Audits cost 4,800 euros."]), owned(&["Audits cost 4,800 euros."]))
        );
    }

    #[test]
    fn several_sentences_marking_one_citation_are_quoted_together() {
        let answer = "An audit costs 4,800 euros [1]. After it, projects are billed monthly [1].";
        let c = claims(answer);
        assert_eq!(c[&1].len(), 2);
        let q = quote_for_claims(PAGE, &c[&1]).unwrap();
        assert_eq!(
            q,
            "An audit takes two weeks and costs 4,800 euros, paid when the report is delivered. Longer projects \
             are billed monthly at a rate agreed in advance."
        );
        assert!(PAGE.contains(&q) && q.chars().count() <= MAX_QUOTE_CHARS);
        // One sentence alone when the next adds nothing the claims say.
        let q = quote_for_claims(PAGE, &owned(&["an audit costs 4,800 euros"])).unwrap();
        assert_eq!(q, "An audit takes two weeks and costs 4,800 euros, paid when the report is delivered.");
    }

    fn citation(index: u32) -> Citation {
        Citation {
            index,
            source_id: SourceId::generate(),
            source_name: "services.md".into(),
            source_type: SourceType::Text,
            chunk_id: format!("chunk{index}"),
            url: None,
            quote: "question-based".into(),
        }
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
