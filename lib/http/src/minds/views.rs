//! What the Mind routes answer.

use crate::assistant::AssistantView;
use crate::views::{PaginationView, Status, flattened_doc};
use lore_app::minds::{MindDetail, MindsUsage};
use lore_domain::mind::{Mind, SocialLinks, VoiceId};
use serde::Serialize;
use utoipa::ToSchema;

/// A Mind in a list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindItemView {
    #[schema(example = "mind_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub name: String,
    pub slug: String,
    pub headline: Option<String>,
    pub bio: Option<String>,
    pub avatar_url: Option<String>,
    pub is_published: bool,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub updated_at: String,
    /// This Mind's knowledge sources (exact).
    pub knowledge_source_count: u64,
    /// This Mind's conversations (exact).
    pub conversation_count: u64,
}

impl From<&Mind> for MindItemView {
    fn from(m: &Mind) -> Self {
        Self {
            id: m.id.to_string(),
            name: m.name.as_str().to_owned(),
            slug: m.slug.to_string(),
            headline: m.headline.as_ref().map(|v| v.as_str().to_owned()),
            bio: m.bio.as_ref().map(|v| v.as_str().to_owned()),
            avatar_url: m.avatar_url.as_ref().map(|v| v.as_str().to_owned()),
            is_published: m.is_published,
            created_at: m.created_at.to_string(),
            updated_at: m.updated_at.to_string(),
            knowledge_source_count: m.sources.total(),
            conversation_count: m.conversation_count,
        }
    }
}

/// A Mind with every setting: the list fields ([`MindItemView`]) followed by the rest
/// ([`MindSettingsView`]), one JSON object.
#[derive(Debug, Serialize)]
pub struct MindDetailView {
    #[serde(flatten)]
    pub item: MindItemView,
    #[serde(flatten)]
    pub settings: MindSettingsView,
    #[serde(flatten)]
    pub assistant: AssistantView,
}

// Documented as one object with the properties of every part, as it is serialized (utoipa
// would describe the flattened parts as `allOf`, which SDK generators turn into extra types).
flattened_doc!(
    MindDetailView,
    Some(
        "A Mind with every setting: the list fields, `recentConversationCount`, `sourceLimit`,\n\
         `sourceStats`, and the settings of create and update."
    ),
    [MindItemView, MindSettingsView, AssistantView]
);

/// What a Mind's detail adds to its list fields. Not a schema of the document: its properties
/// are documented as [`MindDetailView`]'s.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindSettingsView {
    /// Its conversations created in the last 30 days.
    pub recent_conversation_count: u64,
    /// Knowledge sources this Mind may have (the workspace's per-Mind limit, default 100).
    pub source_limit: u32,
    pub source_stats: SourceStatsView,
    pub system_prompt: Option<String>,
    pub expertise_areas: Vec<String>,
    #[schema(example = 0.7)]
    pub temperature: f64,
    pub social_links: Option<SocialLinksView>,
    pub voice_enabled: bool,
    pub voice_id: Voice,
    #[schema(example = 1.0)]
    pub voice_speed: f64,
}

impl From<MindDetail> for MindDetailView {
    fn from(d: MindDetail) -> Self {
        let m = &d.mind;
        let c = m.sources;
        Self {
            item: MindItemView::from(m),
            settings: MindSettingsView {
                recent_conversation_count: d.recent_conversations,
                source_limit: d.source_limit,
                source_stats: SourceStatsView {
                    total: c.total(),
                    ready: c.ready,
                    pending: c.pending,
                    processing: c.processing + c.transcribing,
                    failed: c.failed,
                },
                system_prompt: m.system_prompt.as_ref().map(|v| v.as_str().to_owned()),
                expertise_areas: m.expertise_areas.as_slice().to_vec(),
                temperature: m.temperature.value(),
                social_links: social_view(&m.social_links),
                voice_enabled: m.voice_enabled,
                voice_id: m.voice_id.into(),
                voice_speed: m.voice_speed.value(),
            },
            assistant: AssistantView::of(&m.settings),
        }
    }
}

/// Counts of a Mind's knowledge sources by status; `processing` includes `transcribing`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SourceStatsView {
    pub total: u64,
    pub ready: u64,
    pub pending: u64,
    pub processing: u64,
    pub failed: u64,
}

/// The persona's links; only the keys that are set are present.
#[derive(Debug, Serialize, ToSchema)]
pub struct SocialLinksView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twitter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linkedin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub youtube: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instagram: Option<String>,
}

fn social_view(l: &SocialLinks) -> Option<SocialLinksView> {
    let s = |u: &Option<lore_domain::mind::WebUrl>| u.as_ref().map(|u| u.as_str().to_owned());
    (!l.is_empty()).then(|| SocialLinksView {
        twitter: s(&l.twitter),
        linkedin: s(&l.linkedin),
        youtube: s(&l.youtube),
        website: s(&l.website),
        instagram: s(&l.instagram),
    })
}

/// One of the six voices.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Voice {
    Alloy,
    Echo,
    Fable,
    Onyx,
    Nova,
    Shimmer,
}

impl From<VoiceId> for Voice {
    fn from(v: VoiceId) -> Self {
        match v {
            VoiceId::Alloy => Voice::Alloy,
            VoiceId::Echo => Voice::Echo,
            VoiceId::Fable => Voice::Fable,
            VoiceId::Onyx => Voice::Onyx,
            VoiceId::Nova => Voice::Nova,
            VoiceId::Shimmer => Voice::Shimmer,
        }
    }
}

/// The workspace's Mind limits and what it uses of them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageView {
    pub minds_used: u64,
    pub minds_limit: u32,
    /// Knowledge sources of all the workspace's Minds.
    pub sources_used: u64,
    pub sources_limit: u32,
}

impl From<MindsUsage> for UsageView {
    fn from(u: MindsUsage) -> Self {
        Self {
            minds_used: u.minds_used,
            minds_limit: u.minds_limit,
            sources_used: u.sources_used,
            sources_limit: u.sources_limit,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MindList {
    pub status: Status,
    pub minds: Vec<MindItemView>,
    pub usage: UsageView,
    pub pagination: PaginationView,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MindEnvelope {
    pub status: Status,
    pub mind: MindDetailView,
}

impl From<MindDetail> for MindEnvelope {
    fn from(d: MindDetail) -> Self {
        Self { status: Status::Success, mind: d.into() }
    }
}

/// What publish answers about the Mind.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishedMindView {
    pub id: String,
    pub slug: String,
    pub is_published: bool,
    /// `LORE_PUBLIC_BASE_URL/m/{slug}`: the public page (served while the Mind is published).
    #[schema(example = "https://lore.example.com/m/ada")]
    pub public_url: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PublishEnvelope {
    pub status: Status,
    pub mind: PublishedMindView,
    /// Present exactly when the Mind has no `ready` knowledge source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// The secret shown once: the host site signs its user ids with it (docs/api.md §18).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdentitySecretEnvelope {
    pub status: Status,
    /// Shown only in this answer; a new call replaces it. Sign a user id as the lowercase hex
    /// HMAC-SHA256 of its UTF-8 bytes keyed with this secret's UTF-8 bytes.
    #[schema(example = "lore_ids_6f1c…")]
    pub identity_secret: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::Timestamp;
    use lore_domain::id::WorkspaceId;
    use lore_domain::mind::{Field, NewMind, RawMind};
    use lore_domain::slug::Slug;

    #[test]
    fn a_detail_is_one_object_the_list_fields_then_the_settings_as_documented() {
        let new = NewMind::parse(&RawMind { name: Field::Value("Ada".into()), ..Default::default() }).unwrap();
        let slug = Slug::parse("slug", "ada").unwrap();
        let mind = Mind::create(WorkspaceId::generate(), new, slug, Timestamp::now());
        let detail = MindDetailView::from(MindDetail { mind, source_limit: 100, recent_conversations: 3 });
        let json = serde_json::to_string(&detail).unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
        // The wire order: the list fields, the Mind's own settings, then those it shares with
        // chatbots.
        let order = [
            "id",
            "name",
            "slug",
            "headline",
            "bio",
            "avatarUrl",
            "isPublished",
            "createdAt",
            "updatedAt",
            "knowledgeSourceCount",
            "conversationCount",
            "recentConversationCount",
            "sourceLimit",
            "sourceStats",
            "systemPrompt",
            "expertiseAreas",
            "temperature",
            "socialLinks",
            "voiceEnabled",
            "voiceId",
            "voiceSpeed",
            "welcomeMessage",
            "suggestedQuestions",
            "showSources",
            "collectEmailBeforeChat",
            "theme",
            "allowedOrigins",
            "identityVerification",
            "correctionThreshold",
            "handoffEnabled",
            "knowledgeFilter",
            "language",
            "retentionDays",
            "redactPersonalData",
            "runTestsOnChange",
        ];
        let positions: Vec<usize> = order.iter().map(|k| json.find(&format!("\"{k}\":")).unwrap()).collect();
        assert!(positions.is_sorted(), "keys out of order: {json}");
        assert_eq!(keys.len(), order.len(), "{json}");
        assert_eq!(value["recentConversationCount"], 3);

        use utoipa::PartialSchema;
        use utoipa::openapi::{RefOr, Schema};
        let RefOr::T(Schema::Object(schema)) = MindDetailView::schema() else { panic!("not an object schema") };
        let mut documented: Vec<&str> = schema.properties.keys().map(String::as_str).collect();
        let mut sent = keys.clone();
        documented.sort_unstable();
        sent.sort_unstable();
        assert_eq!(documented, sent, "every member sent is documented, and only those");
        let required: Vec<&str> = schema.required.iter().map(String::as_str).collect();
        let expected: Vec<&str> = order.into_iter().filter(|k| !value[*k].is_null()).collect();
        assert_eq!(required, expected, "required: the members never null, in the wire order");
    }
}
