//! Minds (the interface's "Mind settings"; CONTRACT §8): AI personas with a name, a prompt, a
//! voice and a theme, each with its own knowledge sources.
//!
//! Every setting with a rule is a type here, parsed once from what a client sent: a `Mind` can
//! only hold values that passed. Limits the interface names: name ≤ 100 characters,
//! `suggestedQuestions` ≤ 4, `expertiseAreas` ≤ 10, `temperature` 0–2 (default 0.7),
//! `voiceSpeed` 0.25–4.0, `voiceId` one of six voices. Limits it leaves open are decided here
//! and documented in `docs/minds.md`.

use crate::chatbot::SlugChoice;
use crate::error::{DomainError, Validator};
use crate::id::{MindId, WorkspaceId};
use crate::slug::Slug;
use crate::text;
use crate::time::Timestamp;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;

pub const MAX_NAME: usize = 100;
pub const MAX_HEADLINE: usize = 200;
pub const MAX_BIO: usize = 5_000;
pub const MAX_SYSTEM_PROMPT: usize = 20_000;
pub const MAX_WELCOME_MESSAGE: usize = 2_000;
pub const MAX_SUGGESTED_QUESTIONS: usize = 4;
pub const MAX_QUESTION_LEN: usize = 300;
pub const MAX_EXPERTISE_AREAS: usize = 10;
pub const MAX_AREA_LEN: usize = 100;
pub const MAX_URL_LEN: usize = 2_048;
pub const MAX_FONT_FAMILY_LEN: usize = 200;
pub const DEFAULT_TEMPERATURE: f64 = 0.7;
pub const MIN_TEMPERATURE: f64 = 0.0;
pub const MAX_TEMPERATURE: f64 = 2.0;
pub const DEFAULT_VOICE_SPEED: f64 = 1.0;
pub const MIN_VOICE_SPEED: f64 = 0.25;
pub const MAX_VOICE_SPEED: f64 = 4.0;
/// Largest document (PDF, DOCX, TXT, MD) uploaded to a Mind (CONTRACT §10); audio may be
/// [`MAX_AUDIO_UPLOAD_BYTES`](crate::audio::MAX_AUDIO_UPLOAD_BYTES).
pub const MAX_MIND_DOCUMENT_BYTES: u64 = 50 * 1024 * 1024;

/// One member of a partial update as the client sent it: left out, explicitly `null`, or a
/// value. Deserialises `null` to `Null`; a struct member marked `#[serde(default)]` that is
/// left out stays `Absent`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Field<T> {
    #[default]
    Absent,
    Null,
    Value(T),
}

impl<T> Field<T> {
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            Some(v) => Field::Value(v),
            None => Field::Null,
        })
    }
}

macro_rules! bounded_text {
    ($($(#[$doc:meta])* $name:ident = $field:literal, $max:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name(String);

        impl $name {
            /// The JSON field a refusal names.
            pub const FIELD: &'static str = $field;

            /// Trimmed, then 1 to the maximum characters (Unicode scalar values).
            pub fn parse(s: &str) -> Result<Self, DomainError> {
                text::bounded($field, s, $max).map(Self)
            }

            /// Like `parse`, but blank means "no value".
            pub fn parse_optional(s: &str) -> Result<Option<Self>, DomainError> {
                text::optional_bounded($field, s, $max).map(|o| o.map(Self))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// Rebuilds a value read back from storage, where it was validated when written.
            pub fn from_stored(s: String) -> Self {
                Self(s)
            }
        }
    )*};
}

bounded_text! {
    /// The Mind's display name: 1–100 characters.
    MindName = "name", MAX_NAME;
    /// One line under the name: at most 200 characters.
    Headline = "headline", MAX_HEADLINE;
    /// About the persona: at most 5,000 characters.
    Bio = "bio", MAX_BIO;
    /// Instructions for the model: at most 20,000 characters.
    SystemPrompt = "systemPrompt", MAX_SYSTEM_PROMPT;
    /// The first message shown to visitors: at most 2,000 characters.
    WelcomeMessage = "welcomeMessage", MAX_WELCOME_MESSAGE;
}

/// Checks a list of short texts: at most `max_items`, each trimmed to 1..=`max_len` characters.
fn short_texts(field: &str, items: &[String], max_items: usize, max_len: usize) -> Result<Vec<String>, DomainError> {
    if items.len() > max_items {
        return Err(DomainError::field(field, format!("must have at most {max_items} items, not {}", items.len())));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let t = s.trim();
            if t.is_empty() {
                Err(DomainError::field(field, format!("item {} must not be empty", i + 1)))
            } else if t.chars().count() > max_len {
                Err(DomainError::field(field, format!("item {} must be at most {max_len} characters", i + 1)))
            } else {
                Ok(t.to_owned())
            }
        })
        .collect()
}

/// Up to 4 questions a visitor can start with, each 1–300 characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SuggestedQuestions(Vec<String>);

impl SuggestedQuestions {
    pub const FIELD: &'static str = "suggestedQuestions";

    pub fn parse(items: &[String]) -> Result<Self, DomainError> {
        short_texts(Self::FIELD, items, MAX_SUGGESTED_QUESTIONS, MAX_QUESTION_LEN).map(Self)
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    pub fn from_stored(items: Vec<String>) -> Self {
        Self(items)
    }
}

/// Up to 10 topics the persona knows about, each 1–100 characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpertiseAreas(Vec<String>);

impl ExpertiseAreas {
    pub const FIELD: &'static str = "expertiseAreas";

    pub fn parse(items: &[String]) -> Result<Self, DomainError> {
        short_texts(Self::FIELD, items, MAX_EXPERTISE_AREAS, MAX_AREA_LEN).map(Self)
    }

    pub fn as_slice(&self) -> &[String] {
        &self.0
    }

    pub fn from_stored(items: Vec<String>) -> Self {
        Self(items)
    }
}

/// An absolute `http` or `https` URL with a host, in printable ASCII (other characters
/// percent-encoded), without credentials, at most 2,048 characters. Safe to place in an HTML
/// attribute once escaped, and never a `javascript:` or `data:` URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebUrl(String);

impl WebUrl {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        let refuse = |why: &str| Err(DomainError::field(field, why.to_owned()));
        if s.len() > MAX_URL_LEN {
            return refuse("must be at most 2048 characters");
        }
        let lower = s.to_ascii_lowercase();
        let Some(rest) = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")) else {
            return refuse("must be an absolute http or https URL");
        };
        // Printable ASCII without the characters RFC 3986 never allows unencoded.
        if !s.bytes().all(|b| (0x21..=0x7e).contains(&b) && !b"\"<>\\^`{|}".contains(&b)) {
            return refuse("must contain only URL characters (percent-encode spaces and non-ASCII characters)");
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return refuse("must not contain credentials");
        }
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            match v6.split_once(']') {
                Some((h, after))
                    if !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') =>
                {
                    (h, after.strip_prefix(':'))
                }
                _ => return refuse("has a malformed IPv6 host"),
            }
        } else {
            match authority.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let host_ok = !host.is_empty()
            && (authority.starts_with('[')
                || host.split('.').all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')));
        if !host_ok {
            return refuse("must have a valid host");
        }
        if let Some(p) = port
            && (p.is_empty()
                || p.len() > 5
                || !p.bytes().all(|b| b.is_ascii_digit())
                || p.parse::<u32>().unwrap_or(0) > 65_535)
        {
            return refuse("has an invalid port");
        }
        // Lower-case the scheme only; the rest may be case-sensitive.
        let scheme_len = if lower.starts_with("https") { 5 } else { 4 };
        Ok(Self(format!("{}{}", &lower[..scheme_len], &s[scheme_len..])))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn ranged(field: &str, v: f64, min: f64, max: f64) -> Result<f64, DomainError> {
    if v.is_finite() && (min..=max).contains(&v) {
        Ok(v)
    } else {
        Err(DomainError::field(field, format!("must be between {min} and {max}")))
    }
}

/// Sampling temperature of the persona's answers: 0 to 2, default 0.7.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Temperature(f64);

impl Temperature {
    pub const FIELD: &'static str = "temperature";

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        ranged(Self::FIELD, v, MIN_TEMPERATURE, MAX_TEMPERATURE).map(Self)
    }

    pub fn value(self) -> f64 {
        self.0
    }

    pub fn from_stored(v: f64) -> Self {
        Self(v)
    }
}

impl Default for Temperature {
    fn default() -> Self {
        Self(DEFAULT_TEMPERATURE)
    }
}

/// Speed of the persona's synthesised voice: 0.25 to 4.0, default 1.0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VoiceSpeed(f64);

impl VoiceSpeed {
    pub const FIELD: &'static str = "voiceSpeed";

    pub fn parse(v: f64) -> Result<Self, DomainError> {
        ranged(Self::FIELD, v, MIN_VOICE_SPEED, MAX_VOICE_SPEED).map(Self)
    }

    pub fn value(self) -> f64 {
        self.0
    }

    pub fn from_stored(v: f64) -> Self {
        Self(v)
    }
}

impl Default for VoiceSpeed {
    fn default() -> Self {
        Self(DEFAULT_VOICE_SPEED)
    }
}

/// The six voices of the interface; `alloy` by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum VoiceId {
    #[default]
    Alloy,
    Echo,
    Fable,
    Onyx,
    Nova,
    Shimmer,
}

impl VoiceId {
    pub const FIELD: &'static str = "voiceId";
    pub const ALL: [VoiceId; 6] =
        [VoiceId::Alloy, VoiceId::Echo, VoiceId::Fable, VoiceId::Onyx, VoiceId::Nova, VoiceId::Shimmer];

    pub const fn as_str(self) -> &'static str {
        match self {
            VoiceId::Alloy => "alloy",
            VoiceId::Echo => "echo",
            VoiceId::Fable => "fable",
            VoiceId::Onyx => "onyx",
            VoiceId::Nova => "nova",
            VoiceId::Shimmer => "shimmer",
        }
    }

    pub fn parse(s: &str) -> Result<Self, DomainError> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| DomainError::field(Self::FIELD, "must be one of alloy, echo, fable, onyx, nova, shimmer"))
    }
}

/// A CSS colour in hex notation, `#rgb` or `#rrggbb`, stored lower-case. Nothing else can
/// reach a style sheet, so a theme cannot inject CSS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HexColor(String);

impl HexColor {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let s = s.trim();
        match s.strip_prefix('#') {
            Some(h) if (h.len() == 3 || h.len() == 6) && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Ok(Self(s.to_ascii_lowercase()))
            }
            _ => Err(DomainError::field(field, "must be a hex colour like #1a2b3c or #abc")),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Red, green and blue, 0–255.
    pub fn rgb(&self) -> (u8, u8, u8) {
        let h = &self.0[1..];
        let (r, g, b) = if h.len() == 3 {
            let d = |i: usize| u8::from_str_radix(&h[i..i + 1], 16).unwrap_or(0) * 17;
            (d(0), d(1), d(2))
        } else {
            let d = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap_or(0);
            (d(0), d(2), d(4))
        };
        (r, g, b)
    }

    /// WCAG relative luminance, 0 (black) to 1 (white).
    pub fn luminance(&self) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
        };
        let (r, g, b) = self.rgb();
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

/// A font stack: family names of ASCII letters, digits, spaces, `-` and `_`, separated by
/// commas, at most 200 characters (e.g. `Inter, Helvetica Neue, sans-serif`). No quotes,
/// semicolons or braces, so it is safe inside a style sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FontFamily(String);

impl FontFamily {
    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        let refuse = || {
            Err(DomainError::field(
                field,
                "must be font family names (letters, digits, spaces, '-', '_') separated by commas, at most 200 characters",
            ))
        };
        if s.len() > MAX_FONT_FAMILY_LEN {
            return refuse();
        }
        let names: Vec<&str> = s.split(',').map(str::trim).collect();
        let ok = names
            .iter()
            .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'-' | b'_')));
        if !ok {
            return refuse();
        }
        let names: Vec<String> = names.iter().map(|n| n.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        Ok(Self(names.join(", ")))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The family names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.split(", ")
    }

    pub fn from_stored(s: String) -> Self {
        Self(s)
    }
}

/// The colour scheme of the public page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThemeMode {
    Light,
    Dark,
    /// Follows the visitor's system preference.
    Auto,
}

impl ThemeMode {
    pub const fn as_str(self) -> &'static str {
        match self {
            ThemeMode::Light => "light",
            ThemeMode::Dark => "dark",
            ThemeMode::Auto => "auto",
        }
    }

    pub fn parse(field: &str, s: &str) -> Result<Self, DomainError> {
        match s.trim() {
            "light" => Ok(ThemeMode::Light),
            "dark" => Ok(ThemeMode::Dark),
            "auto" => Ok(ThemeMode::Auto),
            _ => Err(DomainError::field(field, "must be one of light, dark, auto")),
        }
    }
}

/// The public page's look. Every key is optional; a theme without keys is `null` to clients.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Theme {
    pub primary_color: Option<HexColor>,
    pub background_color: Option<HexColor>,
    pub font_family: Option<FontFamily>,
    pub mode: Option<ThemeMode>,
}

impl Theme {
    pub const FIELD: &'static str = "theme";
    pub const KEYS: [&'static str; 4] = ["primaryColor", "backgroundColor", "fontFamily", "mode"];

    pub fn is_empty(&self) -> bool {
        self == &Theme::default()
    }

    /// The keys that are set, with their values, in the order of [`Self::KEYS`].
    pub fn entries(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(c) = &self.primary_color {
            out.push(("primaryColor", c.as_str().to_owned()));
        }
        if let Some(c) = &self.background_color {
            out.push(("backgroundColor", c.as_str().to_owned()));
        }
        if let Some(f) = &self.font_family {
            out.push(("fontFamily", f.as_str().to_owned()));
        }
        if let Some(m) = self.mode {
            out.push(("mode", m.as_str().to_owned()));
        }
        out
    }

    /// Rebuilds a theme from stored key/value pairs, validating them again: a value that no
    /// longer passes (or an unknown key) is dropped rather than served.
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut t = Theme::default();
        for (k, v) in entries {
            let map = BTreeMap::from([(k.to_owned(), Some(v.to_owned()))]);
            if let Ok(patch) = ThemePatch::parse(&map) {
                t.apply(&patch);
            }
        }
        t
    }

    pub fn apply(&mut self, p: &ThemePatch) {
        merge(&mut self.primary_color, &p.primary_color);
        merge(&mut self.background_color, &p.background_color);
        merge(&mut self.font_family, &p.font_family);
        merge(&mut self.mode, &p.mode);
    }
}

fn merge<T: Clone>(slot: &mut Option<T>, change: &Field<T>) {
    match change {
        Field::Absent => {}
        Field::Null => *slot = None,
        Field::Value(v) => *slot = Some(v.clone()),
    }
}

/// A change to some theme keys (JSON merge-patch semantics: a key set to `null` is removed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThemePatch {
    pub primary_color: Field<HexColor>,
    pub background_color: Field<HexColor>,
    pub font_family: Field<FontFamily>,
    pub mode: Field<ThemeMode>,
}

impl ThemePatch {
    /// Parses `{key: value|null}`; an unknown key is refused, naming `theme.<key>`.
    pub fn parse(map: &BTreeMap<String, Option<String>>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let mut p = ThemePatch::default();
        for (key, value) in map {
            let field = format!("theme.{key}");
            match (key.as_str(), value) {
                ("primaryColor", None) => p.primary_color = Field::Null,
                ("primaryColor", Some(s)) => {
                    p.primary_color = v.check(HexColor::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("backgroundColor", None) => p.background_color = Field::Null,
                ("backgroundColor", Some(s)) => {
                    p.background_color = v.check(HexColor::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("fontFamily", None) => p.font_family = Field::Null,
                ("fontFamily", Some(s)) => {
                    p.font_family = v.check(FontFamily::parse(&field, s)).map_or(Field::Absent, Field::Value)
                }
                ("mode", None) => p.mode = Field::Null,
                ("mode", Some(s)) => p.mode = v.check(ThemeMode::parse(&field, s)).map_or(Field::Absent, Field::Value),
                _ => {
                    v.check::<()>(Err(DomainError::field(
                        field,
                        "is not a theme key; the keys are primaryColor, backgroundColor, fontFamily, mode",
                    )));
                }
            }
        }
        v.finish()?;
        Ok(p)
    }
}

/// The persona's profiles elsewhere: each an http(s) URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocialLinks {
    pub twitter: Option<WebUrl>,
    pub linkedin: Option<WebUrl>,
    pub youtube: Option<WebUrl>,
    pub website: Option<WebUrl>,
    pub instagram: Option<WebUrl>,
}

impl SocialLinks {
    pub const FIELD: &'static str = "socialLinks";
    pub const KEYS: [&'static str; 5] = ["twitter", "linkedin", "youtube", "website", "instagram"];

    pub fn is_empty(&self) -> bool {
        self == &SocialLinks::default()
    }

    fn slot(&mut self, key: &str) -> Option<&mut Option<WebUrl>> {
        match key {
            "twitter" => Some(&mut self.twitter),
            "linkedin" => Some(&mut self.linkedin),
            "youtube" => Some(&mut self.youtube),
            "website" => Some(&mut self.website),
            "instagram" => Some(&mut self.instagram),
            _ => None,
        }
    }

    /// The links that are set, in the order of [`Self::KEYS`].
    pub fn entries(&self) -> Vec<(&'static str, &WebUrl)> {
        [
            ("twitter", &self.twitter),
            ("linkedin", &self.linkedin),
            ("youtube", &self.youtube),
            ("website", &self.website),
            ("instagram", &self.instagram),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_ref().map(|u| (k, u)))
        .collect()
    }

    /// Rebuilds links from stored pairs (unknown keys dropped).
    pub fn from_entries<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut links = SocialLinks::default();
        for (k, v) in entries {
            if let Some(slot) = links.slot(k) {
                *slot = Some(WebUrl::from_stored(v.to_owned()));
            }
        }
        links
    }

    pub fn apply(&mut self, p: &SocialLinksPatch) {
        for (key, change) in &p.0 {
            if let Some(slot) = self.slot(key) {
                merge(slot, change);
            }
        }
    }
}

/// A change to some social links (merge-patch: `null` removes a link).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SocialLinksPatch(Vec<(&'static str, Field<WebUrl>)>);

impl SocialLinksPatch {
    /// Parses `{key: url|null}`; an unknown key is refused, naming `socialLinks.<key>`.
    pub fn parse(map: &BTreeMap<String, Option<String>>) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let mut changes = Vec::new();
        for (key, value) in map {
            let field = format!("socialLinks.{key}");
            let Some(known) = SocialLinks::KEYS.into_iter().find(|k| k == key) else {
                v.check::<()>(Err(DomainError::field(
                    field,
                    "is not a social link key; the keys are twitter, linkedin, youtube, website, instagram",
                )));
                continue;
            };
            match value {
                None => changes.push((known, Field::Null)),
                Some(s) if s.trim().is_empty() => changes.push((known, Field::Null)),
                Some(s) => {
                    if let Some(u) = v.check(WebUrl::parse(&field, s)) {
                        changes.push((known, Field::Value(u)));
                    }
                }
            }
        }
        v.finish()?;
        Ok(Self(changes))
    }
}

/// A change to an object-valued setting: `null` clears it, an object merges into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectChange<P> {
    Clear,
    Merge(P),
}

/// Exact counts of one Mind's knowledge sources by status, kept by the store in the same
/// transaction as the sources they count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MindSourceCounts {
    pub pending: u64,
    pub processing: u64,
    pub transcribing: u64,
    pub ready: u64,
    pub failed: u64,
}

impl MindSourceCounts {
    pub fn total(&self) -> u64 {
        self.pending + self.processing + self.transcribing + self.ready + self.failed
    }
}

/// A Mind: its identity, every setting, and the counts of what it owns.
#[derive(Debug, Clone, PartialEq)]
pub struct Mind {
    pub id: MindId,
    pub workspace_id: WorkspaceId,
    pub name: MindName,
    /// Unique in the workspace; while published, also the public page's address `/m/{slug}`
    /// and then unique among all published Minds.
    pub slug: Slug,
    pub headline: Option<Headline>,
    pub bio: Option<Bio>,
    pub avatar_url: Option<WebUrl>,
    pub system_prompt: Option<SystemPrompt>,
    pub welcome_message: Option<WelcomeMessage>,
    pub suggested_questions: SuggestedQuestions,
    pub expertise_areas: ExpertiseAreas,
    pub is_published: bool,
    pub show_sources: bool,
    pub collect_email_before_chat: bool,
    pub temperature: Temperature,
    pub theme: Theme,
    pub social_links: SocialLinks,
    pub voice_enabled: bool,
    pub voice_id: VoiceId,
    pub voice_speed: VoiceSpeed,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Bumped by every write of the settings: a write based on an older read is refused, so
    /// two concurrent partial updates never undo each other.
    pub revision: u64,
    pub sources: MindSourceCounts,
}

impl Mind {
    /// A new, unpublished Mind with the contract's defaults (CONTRACT §8): temperature 0.7,
    /// voice `alloy` at 1.0, sources shown, no e-mail gate, voice off.
    pub fn create(workspace_id: WorkspaceId, new: NewMind, slug: Slug, now: Timestamp) -> Self {
        Self {
            id: MindId::generate(),
            workspace_id,
            name: new.name,
            slug,
            headline: new.headline,
            bio: new.bio,
            avatar_url: new.avatar_url,
            system_prompt: new.system_prompt,
            welcome_message: new.welcome_message,
            suggested_questions: new.suggested_questions,
            expertise_areas: new.expertise_areas,
            is_published: false,
            show_sources: true,
            collect_email_before_chat: false,
            temperature: Temperature::default(),
            theme: Theme::default(),
            social_links: SocialLinks::default(),
            voice_enabled: false,
            voice_id: VoiceId::default(),
            voice_speed: VoiceSpeed::default(),
            created_at: now,
            updated_at: now,
            revision: 0,
            sources: MindSourceCounts::default(),
        }
    }

    pub fn has_ready_source(&self) -> bool {
        self.sources.ready > 0
    }
}

/// Every setting as a client sent it, before validation: the body of create and of PATCH.
/// Create reads only the create columns; PATCH reads all of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawMind {
    pub name: Field<String>,
    pub slug: Field<String>,
    pub headline: Field<String>,
    pub bio: Field<String>,
    pub avatar_url: Field<String>,
    pub system_prompt: Field<String>,
    pub welcome_message: Field<String>,
    pub suggested_questions: Field<Vec<String>>,
    pub expertise_areas: Field<Vec<String>>,
    pub is_published: Field<bool>,
    pub show_sources: Field<bool>,
    pub collect_email_before_chat: Field<bool>,
    pub temperature: Field<f64>,
    pub theme: Field<BTreeMap<String, Option<String>>>,
    pub social_links: Field<BTreeMap<String, Option<String>>>,
    pub voice_enabled: Field<bool>,
    pub voice_id: Field<String>,
    pub voice_speed: Field<f64>,
}

/// A setting that has no "unset" state: `null` is refused, naming the field.
fn not_null<T, U>(
    v: &mut Validator,
    field: &str,
    f: &Field<T>,
    parse: impl FnOnce(&T) -> Result<U, DomainError>,
) -> Option<U> {
    match f {
        Field::Absent => None,
        Field::Null => v.check(Err(DomainError::field(field, "must not be null"))),
        Field::Value(x) => v.check(parse(x)),
    }
}

/// A text setting that may be unset: `null` or blank clears it. `Some(None)` = clear.
fn nullable_text<U>(
    v: &mut Validator,
    f: &Field<String>,
    parse: impl FnOnce(&str) -> Result<Option<U>, DomainError>,
) -> Option<Option<U>> {
    match f {
        Field::Absent => None,
        Field::Null => Some(None),
        Field::Value(s) => v.check(parse(s)),
    }
}

fn optional_url(field: &'static str) -> impl FnOnce(&str) -> Result<Option<WebUrl>, DomainError> {
    move |s| if s.trim().is_empty() { Ok(None) } else { WebUrl::parse(field, s).map(Some) }
}

/// The create columns of the interface, validated. Update-only settings start at their
/// defaults ([`Mind::create`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMind {
    pub name: MindName,
    pub slug: SlugChoice,
    pub headline: Option<Headline>,
    pub bio: Option<Bio>,
    pub avatar_url: Option<WebUrl>,
    pub system_prompt: Option<SystemPrompt>,
    pub welcome_message: Option<WelcomeMessage>,
    pub suggested_questions: SuggestedQuestions,
    pub expertise_areas: ExpertiseAreas,
}

impl NewMind {
    /// Validates the create columns, reporting every refused field at once. The update-only
    /// settings (`isPublished`, `temperature`, `theme`, …) are not read: they are set by PATCH.
    pub fn parse(raw: &RawMind) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let name = match &raw.name {
            Field::Value(n) => v.check(MindName::parse(n)),
            _ => v.check(Err(DomainError::field("name", "is required"))),
        };
        let slug = not_null(&mut v, "slug", &raw.slug, |s| Slug::parse("slug", s));
        let headline = nullable_text(&mut v, &raw.headline, Headline::parse_optional).flatten();
        let bio = nullable_text(&mut v, &raw.bio, Bio::parse_optional).flatten();
        let avatar_url = nullable_text(&mut v, &raw.avatar_url, optional_url("avatarUrl")).flatten();
        let system_prompt = nullable_text(&mut v, &raw.system_prompt, SystemPrompt::parse_optional).flatten();
        let welcome_message = nullable_text(&mut v, &raw.welcome_message, WelcomeMessage::parse_optional).flatten();
        let suggested_questions =
            not_null(&mut v, SuggestedQuestions::FIELD, &raw.suggested_questions, |q| SuggestedQuestions::parse(q));
        let expertise_areas =
            not_null(&mut v, ExpertiseAreas::FIELD, &raw.expertise_areas, |a| ExpertiseAreas::parse(a));
        v.finish()?;
        let Some(name) = name else { unreachable!("validator finished without errors") };
        let slug = match slug {
            Some(s) => SlugChoice::Explicit(s),
            None => SlugChoice::Generated(Slug::from_name(name.as_str(), "mind")),
        };
        Ok(Self {
            name,
            slug,
            headline,
            bio,
            avatar_url,
            system_prompt,
            welcome_message,
            suggested_questions: suggested_questions.unwrap_or_default(),
            expertise_areas: expertise_areas.unwrap_or_default(),
        })
    }
}

/// A partial update: `None` keeps the current value; for settings that may be unset,
/// `Some(None)` clears them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MindPatch {
    pub name: Option<MindName>,
    pub slug: Option<Slug>,
    pub headline: Option<Option<Headline>>,
    pub bio: Option<Option<Bio>>,
    pub avatar_url: Option<Option<WebUrl>>,
    pub system_prompt: Option<Option<SystemPrompt>>,
    pub welcome_message: Option<Option<WelcomeMessage>>,
    pub suggested_questions: Option<SuggestedQuestions>,
    pub expertise_areas: Option<ExpertiseAreas>,
    pub is_published: Option<bool>,
    pub show_sources: Option<bool>,
    pub collect_email_before_chat: Option<bool>,
    pub temperature: Option<Temperature>,
    pub theme: Option<ObjectChange<ThemePatch>>,
    pub social_links: Option<ObjectChange<SocialLinksPatch>>,
    pub voice_enabled: Option<bool>,
    pub voice_id: Option<VoiceId>,
    pub voice_speed: Option<VoiceSpeed>,
}

impl MindPatch {
    /// Validates every member that was sent, reporting every refused field at once.
    pub fn parse(raw: &RawMind) -> Result<Self, DomainError> {
        let mut v = Validator::new();
        let theme = match &raw.theme {
            Field::Absent => None,
            Field::Null => Some(ObjectChange::Clear),
            Field::Value(map) => v.check(ThemePatch::parse(map)).map(ObjectChange::Merge),
        };
        let social_links = match &raw.social_links {
            Field::Absent => None,
            Field::Null => Some(ObjectChange::Clear),
            Field::Value(map) => v.check(SocialLinksPatch::parse(map)).map(ObjectChange::Merge),
        };
        let patch = Self {
            name: not_null(&mut v, "name", &raw.name, |n| MindName::parse(n)),
            slug: not_null(&mut v, "slug", &raw.slug, |s| Slug::parse("slug", s)),
            headline: nullable_text(&mut v, &raw.headline, Headline::parse_optional),
            bio: nullable_text(&mut v, &raw.bio, Bio::parse_optional),
            avatar_url: nullable_text(&mut v, &raw.avatar_url, optional_url("avatarUrl")),
            system_prompt: nullable_text(&mut v, &raw.system_prompt, SystemPrompt::parse_optional),
            welcome_message: nullable_text(&mut v, &raw.welcome_message, WelcomeMessage::parse_optional),
            suggested_questions: not_null(&mut v, SuggestedQuestions::FIELD, &raw.suggested_questions, |q| {
                SuggestedQuestions::parse(q)
            }),
            expertise_areas: not_null(&mut v, ExpertiseAreas::FIELD, &raw.expertise_areas, |a| {
                ExpertiseAreas::parse(a)
            }),
            is_published: not_null(&mut v, "isPublished", &raw.is_published, |b| Ok(*b)),
            show_sources: not_null(&mut v, "showSources", &raw.show_sources, |b| Ok(*b)),
            collect_email_before_chat: not_null(
                &mut v,
                "collectEmailBeforeChat",
                &raw.collect_email_before_chat,
                |b| Ok(*b),
            ),
            temperature: not_null(&mut v, Temperature::FIELD, &raw.temperature, |t| Temperature::parse(*t)),
            theme,
            social_links,
            voice_enabled: not_null(&mut v, "voiceEnabled", &raw.voice_enabled, |b| Ok(*b)),
            voice_id: not_null(&mut v, VoiceId::FIELD, &raw.voice_id, |s| VoiceId::parse(s)),
            voice_speed: not_null(&mut v, VoiceSpeed::FIELD, &raw.voice_speed, |s| VoiceSpeed::parse(*s)),
        };
        v.finish()?;
        Ok(patch)
    }

    pub fn is_empty(&self) -> bool {
        self == &MindPatch::default()
    }

    /// Applies the change to `mind`'s settings; identity, timestamps and counts are untouched.
    pub fn apply(&self, mind: &mut Mind) {
        fn set<T: Clone>(slot: &mut T, v: &Option<T>) {
            if let Some(v) = v {
                *slot = v.clone();
            }
        }
        set(&mut mind.name, &self.name);
        set(&mut mind.slug, &self.slug);
        set(&mut mind.headline, &self.headline);
        set(&mut mind.bio, &self.bio);
        set(&mut mind.avatar_url, &self.avatar_url);
        set(&mut mind.system_prompt, &self.system_prompt);
        set(&mut mind.welcome_message, &self.welcome_message);
        set(&mut mind.suggested_questions, &self.suggested_questions);
        set(&mut mind.expertise_areas, &self.expertise_areas);
        set(&mut mind.is_published, &self.is_published);
        set(&mut mind.show_sources, &self.show_sources);
        set(&mut mind.collect_email_before_chat, &self.collect_email_before_chat);
        set(&mut mind.temperature, &self.temperature);
        set(&mut mind.voice_enabled, &self.voice_enabled);
        set(&mut mind.voice_id, &self.voice_id);
        set(&mut mind.voice_speed, &self.voice_speed);
        match &self.theme {
            None => {}
            Some(ObjectChange::Clear) => mind.theme = Theme::default(),
            Some(ObjectChange::Merge(p)) => mind.theme.apply(p),
        }
        match &self.social_links {
            None => {}
            Some(ObjectChange::Clear) => mind.social_links = SocialLinks::default(),
            Some(ObjectChange::Merge(p)) => mind.social_links.apply(p),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn raw() -> RawMind {
        RawMind { name: Field::Value("Ada".into()), ..Default::default() }
    }

    fn refused_field(r: Result<impl fmt::Debug, DomainError>) -> Vec<String> {
        let e = r.expect_err("refused");
        assert_eq!(e.code, ErrorCode::ValidationError);
        e.fields.keys().cloned().collect()
    }

    fn strings(n: usize, len: usize) -> Vec<String> {
        (0..n).map(|_| "q".repeat(len)).collect()
    }

    #[test]
    fn create_defaults_and_slug() {
        let new = NewMind::parse(&raw()).unwrap();
        assert_eq!(new.slug, SlugChoice::Generated(Slug::parse("s", "ada").unwrap()));
        let m = Mind::create(WorkspaceId::generate(), new, Slug::parse("s", "ada").unwrap(), Timestamp::now());
        assert_eq!(m.temperature.value(), 0.7);
        assert_eq!(m.voice_id, VoiceId::Alloy);
        assert_eq!(m.voice_speed.value(), 1.0);
        assert!(m.show_sources && !m.is_published && !m.voice_enabled && !m.collect_email_before_chat);
        assert!(m.theme.is_empty() && m.social_links.is_empty());
        let named = NewMind::parse(&RawMind { name: Field::Value("日本".into()), ..raw() }).unwrap();
        assert_eq!(named.slug, SlugChoice::Generated(Slug::parse("s", "mind").unwrap()));
    }

    #[test]
    fn create_bounds() {
        assert!(NewMind::parse(&RawMind { name: Field::Value("é".repeat(100)), ..raw() }).is_ok());
        assert_eq!(refused_field(NewMind::parse(&RawMind { name: Field::Value("é".repeat(101)), ..raw() })), ["name"]);
        assert_eq!(refused_field(NewMind::parse(&RawMind::default())), ["name"]);
        assert_eq!(refused_field(NewMind::parse(&RawMind { name: Field::Null, ..raw() })), ["name"]);
        let q = |n| RawMind { suggested_questions: Field::Value(strings(n, 10)), ..raw() };
        assert_eq!(NewMind::parse(&q(4)).unwrap().suggested_questions.as_slice().len(), 4);
        assert_eq!(refused_field(NewMind::parse(&q(5))), ["suggestedQuestions"]);
        let a = |n| RawMind { expertise_areas: Field::Value(strings(n, 10)), ..raw() };
        assert_eq!(NewMind::parse(&a(10)).unwrap().expertise_areas.as_slice().len(), 10);
        assert_eq!(refused_field(NewMind::parse(&a(11))), ["expertiseAreas"]);
        let blank_item = RawMind { suggested_questions: Field::Value(vec!["ok".into(), " ".into()]), ..raw() };
        assert_eq!(refused_field(NewMind::parse(&blank_item)), ["suggestedQuestions"]);
        let all_bad = RawMind {
            name: Field::Value(String::new()),
            slug: Field::Value("Bad Slug".into()),
            avatar_url: Field::Value("javascript:alert(1)".into()),
            ..Default::default()
        };
        assert_eq!(refused_field(NewMind::parse(&all_bad)), ["avatarUrl", "name", "slug"]);
        // Update-only settings are not read on create.
        let m = NewMind::parse(&RawMind { temperature: Field::Value(9.0), ..raw() });
        assert!(m.is_ok());
    }

    #[test]
    fn numbers_at_and_past_their_bounds() {
        for ok in [0.0, 0.7, 2.0] {
            assert!(Temperature::parse(ok).is_ok(), "{ok}");
        }
        for bad in [-0.01, 2.01, f64::NAN, f64::INFINITY] {
            assert!(Temperature::parse(bad).is_err(), "{bad}");
        }
        for ok in [0.25, 1.0, 4.0] {
            assert!(VoiceSpeed::parse(ok).is_ok(), "{ok}");
        }
        for bad in [0.24, 4.01, 0.0] {
            assert!(VoiceSpeed::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(VoiceId::parse("shimmer").unwrap(), VoiceId::Shimmer);
        assert!(VoiceId::parse("Alloy").is_err() && VoiceId::parse("robot").is_err());
    }

    #[test]
    fn urls() {
        for ok in [
            "https://example.com/a.png",
            "HTTP://Example.com:8080/x?y=1#z",
            "https://[::1]/a",
            "https://cdn.example.com/%E6%97%A5.png",
        ] {
            assert!(WebUrl::parse("avatarUrl", ok).is_ok(), "{ok}");
        }
        assert_eq!(WebUrl::parse("f", "HTTPS://A.example/P").unwrap().as_str(), "https://A.example/P");
        for bad in [
            "javascript:alert(1)",
            "data:image/png;base64,AAAA",
            "ftp://example.com/a",
            "https://",
            "https:///path",
            "https://exa mple.com",
            "https://example.com/\"onerror=\"x",
            "https://example.com/<script>",
            "https://user:pw@example.com/",
            "https://example.com:99999/",
            "https://example..com/",
            "//example.com/a.png",
            "https://例え.jp/",
        ] {
            assert!(WebUrl::parse("avatarUrl", bad).is_err(), "{bad}");
        }
        assert!(WebUrl::parse("f", &format!("https://e.com/{}", "a".repeat(2_048 - 14))).is_ok());
        assert!(WebUrl::parse("f", &format!("https://e.com/{}", "a".repeat(2_048 - 13))).is_err());
    }

    #[test]
    fn theme_keys_values_and_merge() {
        let map = |pairs: &[(&str, Option<&str>)]| -> BTreeMap<String, Option<String>> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.map(str::to_owned))).collect()
        };
        let p = ThemePatch::parse(&map(&[
            ("primaryColor", Some("#1A2B3C")),
            ("backgroundColor", Some("#fff")),
            ("fontFamily", Some(" Inter ,  Helvetica   Neue, sans-serif")),
            ("mode", Some("dark")),
        ]))
        .unwrap();
        let mut t = Theme::default();
        t.apply(&p);
        assert_eq!(t.primary_color.as_ref().unwrap().as_str(), "#1a2b3c");
        assert_eq!(t.font_family.as_ref().unwrap().as_str(), "Inter, Helvetica Neue, sans-serif");
        assert_eq!(t.background_color.as_ref().unwrap().rgb(), (255, 255, 255));
        t.apply(&ThemePatch::parse(&map(&[("mode", None)])).unwrap());
        assert_eq!(t.mode, None);
        assert!(t.primary_color.is_some(), "merge keeps the keys not named");
        for (key, bad) in [
            ("primaryColor", "red"),
            ("primaryColor", "#12345"),
            ("backgroundColor", "#fff;background:url(x)"),
            ("fontFamily", "x;}</style><script>"),
            ("fontFamily", "\"Inter\""),
            ("fontFamily", "a,,b"),
            ("mode", "blue"),
        ] {
            let e = ThemePatch::parse(&map(&[(key, Some(bad))])).unwrap_err();
            assert!(e.fields.contains_key(&format!("theme.{key}")), "{key}={bad}: {e:?}");
        }
        let e = ThemePatch::parse(&map(&[("accent", Some("#fff"))])).unwrap_err();
        assert!(e.fields.contains_key("theme.accent"));
        let back = Theme::from_entries(t.entries().iter().map(|(k, v)| (*k, v.as_str())));
        assert_eq!(back, t, "entries round-trip");
    }

    #[test]
    fn social_links_keys_and_merge() {
        let map = |pairs: &[(&str, Option<&str>)]| -> BTreeMap<String, Option<String>> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.map(str::to_owned))).collect()
        };
        let mut l = SocialLinks::default();
        l.apply(
            &SocialLinksPatch::parse(&map(&[
                ("twitter", Some("https://x.com/ada")),
                ("website", Some("https://ada.example")),
            ]))
            .unwrap(),
        );
        l.apply(&SocialLinksPatch::parse(&map(&[("twitter", None)])).unwrap());
        assert_eq!(l.entries().len(), 1);
        assert_eq!(l.website.as_ref().unwrap().as_str(), "https://ada.example");
        let e = SocialLinksPatch::parse(&map(&[("tiktok", Some("https://t.example"))])).unwrap_err();
        assert!(e.fields.contains_key("socialLinks.tiktok"));
        let e = SocialLinksPatch::parse(&map(&[("youtube", Some("javascript:x"))])).unwrap_err();
        assert!(e.fields.contains_key("socialLinks.youtube"));
        assert_eq!(SocialLinks::from_entries(l.entries().iter().map(|(k, u)| (*k, u.as_str()))), l);
    }

    #[test]
    fn patch_changes_only_what_it_names() {
        let mut m = Mind::create(
            WorkspaceId::generate(),
            NewMind::parse(&RawMind { headline: Field::Value("Hi".into()), ..raw() }).unwrap(),
            Slug::parse("s", "ada").unwrap(),
            Timestamp::now(),
        );
        let before = m.clone();
        let empty = MindPatch::parse(&RawMind::default()).unwrap();
        assert!(empty.is_empty());
        let p = MindPatch::parse(&RawMind { temperature: Field::Value(1.5), ..Default::default() }).unwrap();
        p.apply(&mut m);
        assert_eq!(m.temperature.value(), 1.5);
        assert_eq!(m.headline, before.headline);
        let p = MindPatch::parse(&RawMind { headline: Field::Null, ..Default::default() }).unwrap();
        p.apply(&mut m);
        assert_eq!(m.headline, None, "null clears a nullable setting");
        for (raw, field) in [
            (RawMind { temperature: Field::Null, ..Default::default() }, "temperature"),
            (RawMind { name: Field::Null, ..Default::default() }, "name"),
            (RawMind { is_published: Field::Null, ..Default::default() }, "isPublished"),
            (RawMind { voice_speed: Field::Value(4.5), ..Default::default() }, "voiceSpeed"),
            (RawMind { voice_id: Field::Value("robot".into()), ..Default::default() }, "voiceId"),
            (RawMind { suggested_questions: Field::Null, ..Default::default() }, "suggestedQuestions"),
        ] {
            assert_eq!(refused_field(MindPatch::parse(&raw)), [field]);
        }
    }
}
