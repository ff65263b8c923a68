//! Minds (docs/api.md §8): AI personas with a name, a prompt, a
//! voice and a theme, each with its own knowledge sources.
//!
//! Every setting with a rule is a type here, parsed once from what a client sent: a `Mind` can
//! only hold values that passed. Limits the interface names: name ≤ 100 characters,
//! `suggestedQuestions` ≤ 4, `expertiseAreas` ≤ 10, `temperature` 0–2 (default 0.7),
//! `voiceSpeed` 0.25–4.0, `voiceId` one of six voices. Limits it leaves open are decided here
//! and documented in `docs/minds.md`.

use crate::assistant::{AssistantPatch, AssistantSettings, RawAssistantPatch};
use crate::chatbot::SlugChoice;
use crate::error::{DomainError, Validator};
use crate::id::{MindId, WorkspaceId};
use crate::slug::Slug;
use crate::text;
use crate::time::Timestamp;
use serde::{Deserialize, Deserializer};
use std::collections::BTreeMap;
use std::fmt;

mod field;
mod links;
mod texts;
mod theme;
mod voice;

pub use field::*;
pub use links::*;
pub use texts::*;
pub use theme::*;
pub use voice::*;

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
/// Largest document (PDF, DOCX, TXT, MD) uploaded to a Mind (docs/api.md §10); audio may be
/// [`MAX_AUDIO_UPLOAD_BYTES`](crate::audio::MAX_AUDIO_UPLOAD_BYTES).
pub const MAX_MIND_DOCUMENT_BYTES: u64 = 50 * 1024 * 1024;

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
    pub expertise_areas: ExpertiseAreas,
    pub is_published: bool,
    pub temperature: Temperature,
    pub social_links: SocialLinks,
    pub voice_enabled: bool,
    pub voice_id: VoiceId,
    pub voice_speed: VoiceSpeed,
    /// What visitors meet, as a chatbot has it (§18–20).
    pub settings: AssistantSettings,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// Bumped by every write of the settings: a write based on an older read is refused, so
    /// two concurrent partial updates never undo each other.
    pub revision: u64,
    pub sources: MindSourceCounts,
    /// Conversations with this Mind, exact (kept by the conversation store).
    pub conversation_count: u64,
}

impl Mind {
    /// A new, unpublished Mind with the contract's defaults (docs/api.md §8): temperature 0.7,
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
            expertise_areas: new.expertise_areas,
            is_published: false,
            temperature: Temperature::default(),
            social_links: SocialLinks::default(),
            voice_enabled: false,
            voice_id: VoiceId::default(),
            voice_speed: VoiceSpeed::default(),
            settings: AssistantSettings {
                welcome_message: new.welcome_message,
                suggested_questions: new.suggested_questions,
                ..AssistantSettings::default()
            },
            created_at: now,
            updated_at: now,
            revision: 0,
            sources: MindSourceCounts::default(),
            conversation_count: 0,
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
    pub expertise_areas: Field<Vec<String>>,
    pub is_published: Field<bool>,
    pub temperature: Field<f64>,
    pub social_links: Field<BTreeMap<String, Option<String>>>,
    pub voice_enabled: Field<bool>,
    pub voice_id: Field<String>,
    pub voice_speed: Field<f64>,
    /// The settings chatbots share; create reads its welcome message and suggested questions.
    pub settings: RawAssistantPatch,
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
        let welcome_message =
            nullable_text(&mut v, &raw.settings.welcome_message, WelcomeMessage::parse_optional).flatten();
        let suggested_questions = not_null(&mut v, SuggestedQuestions::FIELD, &raw.settings.suggested_questions, |q| {
            SuggestedQuestions::parse(q)
        });
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
    pub expertise_areas: Option<ExpertiseAreas>,
    pub is_published: Option<bool>,
    pub temperature: Option<Temperature>,
    pub social_links: Option<ObjectChange<SocialLinksPatch>>,
    pub voice_enabled: Option<bool>,
    pub voice_id: Option<VoiceId>,
    pub voice_speed: Option<VoiceSpeed>,
    pub settings: AssistantPatch,
}

impl MindPatch {
    /// Validates every member that was sent, reporting every refused field at once.
    pub fn parse(raw: &RawMind) -> Result<Self, DomainError> {
        let mut v = Validator::new();
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
            expertise_areas: not_null(&mut v, ExpertiseAreas::FIELD, &raw.expertise_areas, |a| {
                ExpertiseAreas::parse(a)
            }),
            is_published: crate::assistant::flag(&mut v, "isPublished", &raw.is_published),
            temperature: not_null(&mut v, Temperature::FIELD, &raw.temperature, |t| Temperature::parse(*t)),
            social_links,
            voice_enabled: crate::assistant::flag(&mut v, "voiceEnabled", &raw.voice_enabled),
            voice_id: not_null(&mut v, VoiceId::FIELD, &raw.voice_id, |s| VoiceId::parse(s)),
            voice_speed: not_null(&mut v, VoiceSpeed::FIELD, &raw.voice_speed, |s| VoiceSpeed::parse(*s)),
            settings: AssistantPatch::parse(&mut v, &raw.settings),
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
        set(&mut mind.expertise_areas, &self.expertise_areas);
        set(&mut mind.is_published, &self.is_published);
        set(&mut mind.temperature, &self.temperature);
        set(&mut mind.voice_enabled, &self.voice_enabled);
        set(&mut mind.voice_id, &self.voice_id);
        set(&mut mind.voice_speed, &self.voice_speed);
        match &self.social_links {
            None => {}
            Some(ObjectChange::Clear) => mind.social_links = SocialLinks::default(),
            Some(ObjectChange::Merge(p)) => mind.social_links.apply(p),
        }
        self.settings.apply(&mut mind.settings);
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
        assert!(
            m.settings.show_sources && !m.is_published && !m.voice_enabled && !m.settings.collect_email_before_chat
        );
        assert!(m.settings.theme.is_empty() && m.social_links.is_empty());
        let named = NewMind::parse(&RawMind { name: Field::Value("日本".into()), ..raw() }).unwrap();
        assert_eq!(named.slug, SlugChoice::Generated(Slug::parse("s", "mind").unwrap()));
    }

    #[test]
    fn create_bounds() {
        assert!(NewMind::parse(&RawMind { name: Field::Value("é".repeat(100)), ..raw() }).is_ok());
        assert_eq!(refused_field(NewMind::parse(&RawMind { name: Field::Value("é".repeat(101)), ..raw() })), ["name"]);
        assert_eq!(refused_field(NewMind::parse(&RawMind::default())), ["name"]);
        assert_eq!(refused_field(NewMind::parse(&RawMind { name: Field::Null, ..raw() })), ["name"]);
        let q = |n| {
            let mut r = raw();
            r.settings.suggested_questions = Field::Value(strings(n, 10));
            r
        };
        assert_eq!(NewMind::parse(&q(4)).unwrap().suggested_questions.as_slice().len(), 4);
        assert_eq!(refused_field(NewMind::parse(&q(5))), ["suggestedQuestions"]);
        let a = |n| RawMind { expertise_areas: Field::Value(strings(n, 10)), ..raw() };
        assert_eq!(NewMind::parse(&a(10)).unwrap().expertise_areas.as_slice().len(), 10);
        assert_eq!(refused_field(NewMind::parse(&a(11))), ["expertiseAreas"]);
        let mut blank_item = raw();
        blank_item.settings.suggested_questions = Field::Value(vec!["ok".into(), " ".into()]);
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
            (
                RawMind {
                    settings: RawAssistantPatch { suggested_questions: Field::Null, ..Default::default() },
                    ..Default::default()
                },
                "suggestedQuestions",
            ),
        ] {
            assert_eq!(refused_field(MindPatch::parse(&raw)), [field]);
        }
    }
}
