//! The `api-minds` route group: `/api/v1/minds/…` (docs/api.md §8). The public
//! page `/m/{slug}` of a published Mind is in [`crate::public_page`], mounted with this group.

use crate::api_router::{ApiRouter, api_routes};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Authed, JsonBody, MindsRead, MindsWrite, Pagination, ParseId, PathId};
use crate::sources::{UploadUrlRequest, UploadUrlView, UploadedView};
use crate::state::ApiState;
use crate::upload::{BodyLimit, FileUpload, UploadBodyLimit};
use crate::views::{Deleted, PageParams, PaginationView, Status};
use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use lore_app::files::{UploadOwner, UploadRules};
use lore_app::minds::{MindDetail, MindsUsage};
use lore_domain::id::MindId;
use lore_domain::mind::{Field, Mind, MindPatch, NewMind, RawMind, SocialLinks, Theme, VoiceId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::ToSchema;

pub fn router() -> ApiRouter {
    let uploads = ApiRouter::new().routes(api_routes!(upload_mind_file)).body_limit(UploadBodyLimit::BYTES);
    ApiRouter::new()
        .routes(api_routes!(list_minds, create_mind))
        .routes(api_routes!(get_mind, update_mind, delete_mind))
        .routes(api_routes!(publish_mind))
        .routes(api_routes!(new_mind_identity_secret))
        .routes(api_routes!(mind_upload_url))
        .merge(uploads)
}

impl ParseId for MindId {
    const WHAT: &'static str = "mind";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

/// Where the public pages are: the configured public base URL (`LORE_PUBLIC_BASE_URL`) when
/// set, else the address this request reached (its `Host`, and `X-Forwarded-Proto` behind API
/// Gateway or a proxy).
pub(crate) fn public_base(configured: Option<&str>, headers: &HeaderMap) -> String {
    if let Some(base) = configured {
        return base.to_owned();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
        })
        .unwrap_or("localhost");
    let scheme = match headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()) {
        Some("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}")
}

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

/// Counts of a Mind's knowledge sources by status; `processing` includes `transcribing`.
#[derive(Debug, Serialize, ToSchema)]
pub struct SourceStatsView {
    pub total: u64,
    pub ready: u64,
    pub pending: u64,
    pub processing: u64,
    pub failed: u64,
}

/// The public page's look; only the keys that are set are present.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThemeView {
    /// `#rgb` or `#rrggbb`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "#4f46e5")]
    pub primary_color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "#ffffff")]
    pub background_color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "Inter, sans-serif")]
    pub font_family: Option<String>,
    /// `light`, `dark` or `auto`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

pub(crate) fn theme_view(t: &Theme) -> Option<ThemeView> {
    (!t.is_empty()).then(|| ThemeView {
        primary_color: t.primary_color.as_ref().map(|c| c.as_str().to_owned()),
        background_color: t.background_color.as_ref().map(|c| c.as_str().to_owned()),
        font_family: t.font_family.as_ref().map(|f| f.as_str().to_owned()),
        mode: t.mode.map(|m| m.as_str().to_owned()),
    })
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

/// A Mind with every setting: the list fields, `recentConversationCount`, `sourceLimit`,
/// `sourceStats`, and the settings of create and update.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindDetailView {
    #[schema(example = "mind_01jq3z5v7b8c9d0e1f2g3h4j5k")]
    pub id: String,
    pub name: String,
    pub slug: String,
    pub headline: Option<String>,
    pub bio: Option<String>,
    pub avatar_url: Option<String>,
    pub is_published: bool,
    pub created_at: String,
    pub updated_at: String,
    pub knowledge_source_count: u64,
    /// This Mind's conversations (exact).
    pub conversation_count: u64,
    /// Its conversations created in the last 30 days.
    pub recent_conversation_count: u64,
    /// Knowledge sources this Mind may have (the workspace's per-Mind limit, default 100).
    pub source_limit: u32,
    pub source_stats: SourceStatsView,
    pub system_prompt: Option<String>,
    pub welcome_message: Option<String>,
    pub suggested_questions: Vec<String>,
    pub expertise_areas: Vec<String>,
    pub show_sources: bool,
    pub collect_email_before_chat: bool,
    #[schema(example = 0.7)]
    pub temperature: f64,
    pub theme: Option<ThemeView>,
    pub social_links: Option<SocialLinksView>,
    pub voice_enabled: bool,
    pub voice_id: Voice,
    #[schema(example = 1.0)]
    pub voice_speed: f64,
    /// Origins whose pages may embed the public page and call its visitor routes (docs/api.md §18).
    #[schema(example = json!(["https://www.example.com"]))]
    pub allowed_origins: Vec<String>,
    /// Visitors must carry a user id signed with the identity secret.
    pub identity_verification: bool,
    /// A question at least this similar to a corrected one is answered with the correction.
    #[schema(example = 0.9)]
    pub correction_threshold: f64,
    /// The page shows a "talk to a person" control.
    pub handoff_enabled: bool,
}

impl From<MindDetail> for MindDetailView {
    fn from(d: MindDetail) -> Self {
        let m = &d.mind;
        let item = MindItemView::from(m);
        let c = m.sources;
        Self {
            id: item.id,
            name: item.name,
            slug: item.slug,
            headline: item.headline,
            bio: item.bio,
            avatar_url: item.avatar_url,
            is_published: item.is_published,
            created_at: item.created_at,
            updated_at: item.updated_at,
            knowledge_source_count: item.knowledge_source_count,
            conversation_count: item.conversation_count,
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
            welcome_message: m.welcome_message.as_ref().map(|v| v.as_str().to_owned()),
            suggested_questions: m.suggested_questions.as_slice().to_vec(),
            expertise_areas: m.expertise_areas.as_slice().to_vec(),
            show_sources: m.show_sources,
            collect_email_before_chat: m.collect_email_before_chat,
            temperature: m.temperature.value(),
            theme: theme_view(&m.theme),
            social_links: social_view(&m.social_links),
            voice_enabled: m.voice_enabled,
            voice_id: m.voice_id.into(),
            voice_speed: m.voice_speed.value(),
            allowed_origins: origins(&m.embed),
            identity_verification: m.embed.identity_verification,
            correction_threshold: m.reply.correction_threshold.value(),
            handoff_enabled: m.reply.handoff_enabled,
        }
    }
}

/// `allowedOrigins` as shown.
pub(crate) fn origins(e: &lore_domain::embed::EmbedSettings) -> Vec<String> {
    e.allowed_origins.as_slice().iter().map(|o| o.as_str().to_owned()).collect()
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

/// Theme keys (update only). JSON merge-patch: a key set to `null` is removed, keys not sent
/// keep their value; `theme: null` removes them all. Unknown keys are refused.
#[derive(Debug, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)] // Documentation only: the body reads the keys as a map.
pub struct ThemeInput {
    /// Hex colour, `#rgb` or `#rrggbb`.
    #[schema(example = "#4f46e5", nullable)]
    primary_color: Option<String>,
    /// Hex colour, `#rgb` or `#rrggbb`: the public page's background.
    #[schema(example = "#ffffff", nullable)]
    background_color: Option<String>,
    /// Font family names of letters, digits, spaces, `-`, `_`, separated by commas (≤ 200 characters).
    #[schema(example = "Inter, sans-serif", nullable, max_length = 200)]
    font_family: Option<String>,
    /// `light`, `dark` or `auto`.
    #[schema(example = "light", nullable)]
    mode: Option<String>,
}

/// Social links (update only), each an http(s) URL; merge-patch like `theme` (`null` or `""`
/// removes one). Unknown keys are refused.
#[derive(Debug, ToSchema)]
#[allow(dead_code)] // Documentation only: the body reads the keys as a map.
pub struct SocialLinksInput {
    #[schema(nullable, example = "https://x.com/acme")]
    twitter: Option<String>,
    #[schema(nullable)]
    linkedin: Option<String>,
    #[schema(nullable)]
    youtube: Option<String>,
    #[schema(nullable)]
    website: Option<String>,
    #[schema(nullable)]
    instagram: Option<String>,
}

/// Create a Mind. `name` is required; everything else is optional. `slug` is generated from
/// the name when omitted (`-2`, `-3`… when taken); an explicit taken slug is 409 `slug_taken`.
/// The update-only settings (`isPublished`, `temperature`, `theme`, voice…) are not read here:
/// a new Mind starts unpublished with temperature 0.7, voice `alloy` at 1.0, sources shown.
/// Text settings are trimmed; blank or `null` means none.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMind {
    #[schema(value_type = String, required = true, min_length = 1, max_length = 100, example = "Ada")]
    #[serde(default)]
    pub name: Field<String>,
    /// Lower-case ASCII words joined by `-`, unique in the workspace.
    #[schema(value_type = Option<String>, example = "ada")]
    #[serde(default)]
    pub slug: Field<String>,
    #[schema(value_type = Option<String>, max_length = 200)]
    #[serde(default)]
    pub headline: Field<String>,
    #[schema(value_type = Option<String>, max_length = 5000)]
    #[serde(default)]
    pub bio: Field<String>,
    /// An absolute http(s) image URL (≤ 2048 characters).
    #[schema(value_type = Option<String>, max_length = 2048, example = "https://cdn.example.com/ada.png")]
    #[serde(default)]
    pub avatar_url: Field<String>,
    #[schema(value_type = Option<String>, max_length = 20000)]
    #[serde(default)]
    pub system_prompt: Field<String>,
    /// The first message shown to visitors.
    #[schema(value_type = Option<String>, max_length = 2000)]
    #[serde(default)]
    pub welcome_message: Field<String>,
    /// Up to 4 questions, each 1–300 characters.
    #[schema(value_type = Option<Vec<String>>, max_items = 4)]
    #[serde(default)]
    pub suggested_questions: Field<Vec<String>>,
    /// Up to 10 topics, each 1–100 characters.
    #[schema(value_type = Option<Vec<String>>, max_items = 10)]
    #[serde(default)]
    pub expertise_areas: Field<Vec<String>>,
}

impl CreateMind {
    /// The body as the domain's raw Mind, to parse into `NewMind`.
    pub fn into_raw(self) -> RawMind {
        RawMind {
            name: self.name,
            slug: self.slug,
            headline: self.headline,
            bio: self.bio,
            avatar_url: self.avatar_url,
            system_prompt: self.system_prompt,
            welcome_message: self.welcome_message,
            suggested_questions: self.suggested_questions,
            expertise_areas: self.expertise_areas,
            ..Default::default()
        }
    }
}

/// Change any subset of the settings; members not sent keep their value. `null` clears
/// `headline`, `bio`, `avatarUrl`, `systemPrompt`, `welcomeMessage`, `theme` and `socialLinks`;
/// for the other settings `null` is a `validation_error`. `theme` and `socialLinks` merge.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMind {
    #[schema(value_type = Option<String>, min_length = 1, max_length = 100)]
    #[serde(default)]
    pub name: Field<String>,
    #[schema(value_type = Option<String>)]
    #[serde(default)]
    pub slug: Field<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 200)]
    #[serde(default)]
    pub headline: Field<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 5000)]
    #[serde(default)]
    pub bio: Field<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 2048)]
    #[serde(default)]
    pub avatar_url: Field<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 20000)]
    #[serde(default)]
    pub system_prompt: Field<String>,
    #[schema(value_type = Option<String>, nullable, max_length = 2000)]
    #[serde(default)]
    pub welcome_message: Field<String>,
    #[schema(value_type = Option<Vec<String>>, max_items = 4)]
    #[serde(default)]
    pub suggested_questions: Field<Vec<String>>,
    #[schema(value_type = Option<Vec<String>>, max_items = 10)]
    #[serde(default)]
    pub expertise_areas: Field<Vec<String>>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub is_published: Field<bool>,
    /// Show source citations in responses.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub show_sources: Field<bool>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub collect_email_before_chat: Field<bool>,
    #[schema(value_type = Option<f64>, minimum = 0.0, maximum = 2.0, example = 0.7)]
    #[serde(default)]
    pub temperature: Field<f64>,
    #[schema(value_type = Option<ThemeInput>, nullable)]
    #[serde(default)]
    pub theme: Field<BTreeMap<String, Option<String>>>,
    #[schema(value_type = Option<SocialLinksInput>, nullable)]
    #[serde(default)]
    pub social_links: Field<BTreeMap<String, Option<String>>>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub voice_enabled: Field<bool>,
    #[schema(value_type = Option<Voice>)]
    #[serde(default)]
    pub voice_id: Field<String>,
    #[schema(value_type = Option<f64>, minimum = 0.25, maximum = 4.0, example = 1.0)]
    #[serde(default)]
    pub voice_speed: Field<f64>,
    /// Up to 20 origins `scheme://host[:port]` (https; http only for localhost and 127.0.0.1)
    /// that may embed the page and call the visitor routes; `[]` or `null`: none.
    #[schema(value_type = Option<Vec<String>>, max_items = 20, nullable, example = json!(["https://www.example.com"]))]
    #[serde(default)]
    pub allowed_origins: Field<Vec<String>>,
    /// Require visitors to carry `visitor.userId` signed with the identity secret.
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub identity_verification: Field<bool>,
    /// How similar a question must be to a corrected one (cosine of the embeddings, 0.5-1) to be
    /// answered with the correction (docs/api.md §19).
    #[schema(value_type = Option<f64>, minimum = 0.5, maximum = 1.0, example = 0.9)]
    #[serde(default)]
    pub correction_threshold: Field<f64>,
    /// Show a "talk to a person" control on the page (the hand-off route works either way).
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub handoff_enabled: Field<bool>,
}

impl UpdateMind {
    /// The body as the domain's raw Mind, to parse into `MindPatch`.
    pub fn into_raw(self) -> RawMind {
        RawMind {
            name: self.name,
            slug: self.slug,
            headline: self.headline,
            bio: self.bio,
            avatar_url: self.avatar_url,
            system_prompt: self.system_prompt,
            welcome_message: self.welcome_message,
            suggested_questions: self.suggested_questions,
            expertise_areas: self.expertise_areas,
            is_published: self.is_published,
            show_sources: self.show_sources,
            collect_email_before_chat: self.collect_email_before_chat,
            temperature: self.temperature,
            theme: self.theme,
            social_links: self.social_links,
            voice_enabled: self.voice_enabled,
            voice_id: self.voice_id,
            voice_speed: self.voice_speed,
            allowed_origins: self.allowed_origins,
            identity_verification: self.identity_verification,
            correction_threshold: self.correction_threshold,
            handoff_enabled: self.handoff_enabled,
        }
    }
}

/// Publish or unpublish. The body may be left out: that publishes.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishMind {
    /// `true` (the default) publishes, `false` unpublishes.
    #[schema(value_type = Option<bool>, example = true)]
    #[serde(default)]
    pub is_published: Field<bool>,
}

/// List the workspace's Minds, newest first, with its usage.
#[utoipa::path(get, path = "/api/v1/minds", tag = "minds", params(PageParams),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, description = "A page of Minds and the workspace's usage", body = MindList),
        (status = 400, description = "`validation_error` for bad page/limit", body = ErrorBody),
    ))]
async fn list_minds(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    p: Pagination,
) -> Result<Json<MindList>, ApiError> {
    let listing = s.app.list_minds(&auth.principal, p.page).await?;
    let pagination = listing.page.info().into();
    Ok(Json(MindList {
        status: Status::Success,
        minds: listing.page.items.iter().map(MindItemView::from).collect(),
        usage: listing.usage.into(),
        pagination,
    }))
}

/// Create a Mind.
#[utoipa::path(post, path = "/api/v1/minds", tag = "minds", request_body = CreateMind,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Created: the Mind's detail", body = MindEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error` (naming the fields)", body = ErrorBody),
        (status = 403, description = "`insufficient_scope`, or `minds_limit_reached` at the workspace's mindsLimit", body = ErrorBody),
        (status = 409, description = "`slug_taken`", body = ErrorBody),
        (status = 413, description = "`payload_too_large`", body = ErrorBody),
    ))]
async fn create_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    JsonBody(body): JsonBody<CreateMind>,
) -> Result<(StatusCode, Json<MindEnvelope>), ApiError> {
    let new = NewMind::parse(&body.into_raw())?;
    let detail = s.app.create_mind(&auth.principal, new).await?;
    Ok((StatusCode::CREATED, Json(detail.into())))
}

/// Read one Mind with every setting.
#[utoipa::path(get, path = "/api/v1/minds/{mindId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:read"])),
    responses(
        (status = 200, description = "The Mind", body = MindEnvelope),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
    ))]
async fn get_mind(
    auth: Authed<MindsRead>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<Json<MindEnvelope>, ApiError> {
    Ok(Json(s.app.get_mind(&auth.principal, &id).await?.into()))
}

/// Change any subset of a Mind's settings.
#[utoipa::path(patch, path = "/api/v1/minds/{mindId}", tag = "minds", request_body = UpdateMind,
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "The updated Mind", body = MindEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error` (naming the fields)", body = ErrorBody),
        (status = 409, description = "`slug_taken` (in the workspace, or the public address of another published Mind)", body = ErrorBody),
    ))]
async fn update_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    JsonBody(body): JsonBody<UpdateMind>,
) -> Result<Json<MindEnvelope>, ApiError> {
    let patch = MindPatch::parse(&body.into_raw())?;
    Ok(Json(s.app.update_mind(&auth.principal, &id, patch).await?.into()))
}

/// Delete a Mind with everything it owns: its records and its uploaded files (their `fileUrl`s
/// answer 404 afterwards).
#[utoipa::path(delete, path = "/api/v1/minds/{mindId}", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "Deleted", body = Deleted),
    ))]
async fn delete_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<Json<Deleted>, ApiError> {
    s.app.delete_mind(&auth.principal, &id).await?;
    Ok(Json(Deleted::new(id)))
}

/// Publish (or, with `isPublished: false`, unpublish) a Mind. Its public page is
/// `publicUrl` = `LORE_PUBLIC_BASE_URL/m/{slug}`, served without a key while it is published.
/// A published slug is a public address: publishing a Mind whose slug another published Mind
/// (of any workspace) has is 409 `slug_taken`.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/publish", tag = "minds", request_body(content = PublishMind,
        description = "Optional; an empty body publishes"),
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 200, description = "The Mind's publication; `warning` when it has no ready knowledge source", body = PublishEnvelope),
        (status = 400, description = "`invalid_json` or `validation_error`", body = ErrorBody),
        (status = 409, description = "`slug_taken`: another published Mind has this slug", body = ErrorBody),
    ))]
async fn publish_mind(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    req: Request,
) -> Result<Json<PublishEnvelope>, ApiError> {
    let base = public_base(s.app.config().public_base_url.as_deref(), req.headers());
    let body = optional_json::<PublishMind>(req, &s).await?;
    let publish = match body.is_published {
        Field::Absent => true,
        Field::Value(b) => b,
        Field::Null => return Err(lore_domain::DomainError::field("isPublished", "must be true or false").into()),
    };
    let publication = s.app.publish_mind(&auth.principal, &id, publish).await?;
    let m = publication.mind;
    Ok(Json(PublishEnvelope {
        status: Status::Success,
        mind: PublishedMindView {
            id: m.id.to_string(),
            slug: m.slug.to_string(),
            is_published: m.is_published,
            public_url: format!("{base}/m/{}", m.slug),
        },
        warning: publication.warning,
    }))
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

/// Create (or replace) the Mind's identity secret. With `identityVerification: true`, a
/// visitor's conversation must carry `visitor.userId` and `visitor.userHash` signed with it.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/identity-secret", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "The new secret, shown once", body = IdentitySecretEnvelope),
    ))]
async fn new_mind_identity_secret(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
) -> Result<(StatusCode, Json<IdentitySecretEnvelope>), ApiError> {
    let secret = s.app.new_mind_identity_secret(&auth.principal, &id).await?;
    Ok((
        StatusCode::CREATED,
        Json(IdentitySecretEnvelope { status: Status::Success, identity_secret: secret.expose().to_owned() }),
    ))
}

/// Upload a document (PDF, DOCX, TXT, MD; ≤ 50 MB) or an audio file (MP3, WAV, M4A, OGG;
/// ≤ 500 MB) to use as the `fileUrl` of a `document` or `podcast` source. The type is decided by
/// the content, not the name or the declared type. The optional `category` part (`document` or
/// `audio`) makes a file of the other category `unsupported_file_type`. Through API Gateway
/// (AWS) a request carries about 6 MB at most: send larger files with `upload-url`.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/upload", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body(content = MindUploadForm, content_type = "multipart/form-data"),
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Stored: the uploaded-file result", body = UploadedView),
        (status = 400, description = "`missing_file`, `unsupported_file_type`, `file_too_large`, `validation_error`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
        (status = 408, description = "`request_timeout`: the body stopped arriving", body = ErrorBody),
        (status = 413, description = "`payload_too_large`: the body is over 512 MiB", body = ErrorBody),
        (status = 429, description = "`rate_limited`: too many requests, or uploads in progress", body = ErrorBody),
    ))]
async fn upload_mind_file(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    upload: FileUpload<UploadBodyLimit>,
) -> Result<(StatusCode, Json<UploadedView>), ApiError> {
    // Unknown (or another workspace's) Mind: 404 before the body is read.
    s.app.get_mind(&auth.principal, &id).await?;
    let part = upload.store(&s, &auth.principal, UploadOwner::Mind(&id), UploadRules::MIND).await?;
    Ok((StatusCode::CREATED, Json(part.upload.into())))
}

/// The multipart form of a Mind upload.
#[derive(ToSchema)]
#[allow(dead_code)] // Documentation only.
pub struct MindUploadForm {
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// `document` or `audio`: refuse a file of the other category.
    category: Option<String>,
}

/// Get a signed URL to PUT a file to directly: the way to upload anything over ~6 MB through
/// API Gateway, and audio up to 500 MB. `mimeType` must be an accepted document or audio type
/// and `fileSize` within its category's limit; the URL accepts at most `fileSize` bytes until
/// `expiresAt` (15 minutes). Once the PUT succeeded, `fileUrl` serves the bytes.
#[utoipa::path(post, path = "/api/v1/minds/{mindId}/knowledge/upload-url", tag = "minds",
    params(("mindId" = String, Path, description = "Mind id (`mind_…`)")),
    request_body = UploadUrlRequest,
    security(("bearer" = ["minds:write"])),
    responses(
        (status = 201, description = "Where and how to PUT the bytes", body = UploadUrlView),
        (status = 400, description = "`invalid_json`, `validation_error`, `unsupported_file_type`, `file_too_large`", body = ErrorBody),
        (status = 403, description = "`insufficient_scope` or `storage_limit`", body = ErrorBody),
        (status = 404, description = "`not_found` (also for another workspace's Mind)", body = ErrorBody),
    ))]
async fn mind_upload_url(
    auth: Authed<MindsWrite>,
    State(s): State<ApiState>,
    PathId(id): PathId<MindId>,
    JsonBody(body): JsonBody<UploadUrlRequest>,
) -> Result<(StatusCode, Json<UploadUrlView>), ApiError> {
    let up = s.app.presign_mind_upload(&auth.principal, &id, body.declared()).await?;
    Ok((StatusCode::CREATED, Json(up.into())))
}

/// A JSON body that may be left out entirely (then `T::default()`); when present, the same
/// rules as [`JsonBody`].
pub(crate) async fn optional_json<T: serde::de::DeserializeOwned + Default>(
    req: Request,
    s: &ApiState,
) -> Result<T, ApiError> {
    let (parts, body) = req.into_parts();
    let limit = crate::JSON_BODY_LIMIT;
    let bytes = axum::body::to_bytes(body, limit).await.map_err(|e| {
        if e.to_string().contains("length limit") {
            ApiError::PayloadTooLarge { limit_bytes: limit }
        } else {
            ApiError::InvalidJson(format!("the body could not be read: {e}"))
        }
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let req = Request::from_parts(parts, Body::from(bytes));
    let JsonBody(v) = JsonBody::<T>::from_request(req, s).await?;
    Ok(v)
}
