//! What the Mind routes read: the request bodies, documented in the OpenAPI document.

use crate::assistant::AssistantUpdate;
use crate::error::ApiError;
use crate::extract::JsonBody;
use crate::minds::views::Voice;
use crate::state::ApiState;
use crate::views::flattened_doc;
use axum::body::Body;
use axum::extract::{FromRequest, Request};
use lore_domain::assistant::RawAssistantPatch;
use lore_domain::mind::{Field, RawMind};
use serde::Deserialize;
use std::collections::BTreeMap;
use utoipa::ToSchema;

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
            expertise_areas: self.expertise_areas,
            settings: RawAssistantPatch {
                welcome_message: self.welcome_message,
                suggested_questions: self.suggested_questions,
                ..Default::default()
            },
            ..Default::default()
        }
    }
}

/// The body of a Mind's update, as documented: [`MindUpdate`] and [`AssistantUpdate`].
pub struct UpdateMind;

flattened_doc!(
    UpdateMind,
    Some(
        "Change any subset of the settings; members not sent keep their value. `null` clears\n\
         `headline`, `bio`, `avatarUrl`, `systemPrompt`, `welcomeMessage`, `theme` and `socialLinks`;\n\
         for the other settings `null` is a `validation_error`. `theme` and `socialLinks` merge."
    ),
    [MindUpdate, AssistantUpdate]
);

/// What only a Mind has, of an update. Not a schema of the document: its properties are
/// documented as [`UpdateMind`]'s.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MindUpdate {
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
    #[schema(value_type = Option<Vec<String>>, max_items = 10)]
    #[serde(default)]
    pub expertise_areas: Field<Vec<String>>,
    #[schema(value_type = Option<bool>)]
    #[serde(default)]
    pub is_published: Field<bool>,
    #[schema(value_type = Option<f64>, minimum = 0.0, maximum = 2.0, example = 0.7)]
    #[serde(default)]
    pub temperature: Field<f64>,
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
}

impl MindUpdate {
    /// The body as the domain's raw Mind, to parse into `MindPatch`.
    pub fn into_raw(self, settings: AssistantUpdate) -> RawMind {
        RawMind {
            name: self.name,
            slug: self.slug,
            headline: self.headline,
            bio: self.bio,
            avatar_url: self.avatar_url,
            system_prompt: self.system_prompt,
            expertise_areas: self.expertise_areas,
            is_published: self.is_published,
            temperature: self.temperature,
            social_links: self.social_links,
            voice_enabled: self.voice_enabled,
            voice_id: self.voice_id,
            voice_speed: self.voice_speed,
            settings: settings.into_raw(),
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

/// The multipart form of a Mind upload.
#[derive(ToSchema)]
#[allow(dead_code)] // Documentation only.
pub struct MindUploadForm {
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
    /// `document` or `audio`: refuse a file of the other category.
    category: Option<String>,
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
