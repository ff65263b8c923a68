//! Request-body parsing: the input is a JSON body, read the way the HTTP layer reads it
//! (lib/http's body structs, mirrored here: serde_json into `Option`/`Field` members) and then
//! validated by the domain and application parsers. One input goes through every body shape,
//! so one JSON object can be a form definition and a submission to it, a Mind create and
//! patch, a search, a source, a chatbot and a webhook subscription. The input as a string also
//! goes through the configuration and query-string parsers (retry schedule, pagination, ids,
//! timestamps).
//!
//! There is no isolation layer around validation: every panic is a finding.

#![no_main]

#[path = "common.rs"]
mod common;

use libfuzzer_sys::fuzz_target;
use lore_app::search::SearchRequest;
use lore_domain::chatbot::{ChatbotPatch, NewChatbot};
use lore_domain::delivery::RetrySchedule;
use lore_domain::form::{Form, NewForm, RawField, ResponseSource};
use lore_domain::hook::{HookFilter, HookTarget};
use lore_domain::id::{ChatbotId, FormId, SourceId, WorkspaceId};
use lore_domain::mind::{Field, Mind, MindPatch, NewMind, RawMind};
use lore_domain::pagination::PageRequest;
use lore_domain::slug::Slug;
use lore_domain::source::{CrawlDepth, SourceType, TextContent, source_name};
use lore_domain::time::Timestamp;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

fuzz_target!(|data: &[u8]| {
    common::run_strict(|| {
        if let Ok(s) = std::str::from_utf8(data) {
            strings(s);
        }
        if let Ok(body) = serde_json::from_slice::<Value>(data) {
            bodies(&body);
        }
    });
});

/// Configuration values and query parameters: strings, not JSON.
fn strings(s: &str) {
    let _ = RetrySchedule::parse(s).map(|r| (r.to_string(), r.max_attempts(), r.delay_after(1)));
    let (page, limit) = s.split_once('&').unwrap_or((s, s));
    let _ = PageRequest::parse(Some(page), Some(limit)).map(|p| p.offset());
    let _ = Timestamp::parse(s);
    let _ = SourceId::parse(s);
    let _ = Slug::parse("slug", s);
    let _ = Slug::from_name(s, "fallback");
}

fn body<T: DeserializeOwned>(v: &Value) -> Option<T> {
    T::deserialize(v).ok()
}

fn bodies(v: &Value) {
    if let Some(b) = body::<CreateForm>(v) {
        form(v, b);
    }
    if let Some(b) = body::<SubmitResponse>(v) {
        let _ = ResponseSource::parse_field(b.source.as_deref());
    }
    if let Some(b) = body::<CreateMind>(v) {
        let raw = RawMind {
            name: b.name,
            slug: b.slug,
            headline: b.headline,
            bio: b.bio,
            avatar_url: b.avatar_url,
            system_prompt: b.system_prompt,
            welcome_message: b.welcome_message,
            suggested_questions: b.suggested_questions,
            expertise_areas: b.expertise_areas,
            ..Default::default()
        };
        if let Ok(new) = NewMind::parse(&raw) {
            let slug = match &new.slug {
                lore_domain::chatbot::SlugChoice::Explicit(s) | lore_domain::chatbot::SlugChoice::Generated(s) => {
                    s.clone()
                }
            };
            let mut mind = Mind::create(WorkspaceId::generate(), new, slug, Timestamp::from_millis(0));
            if let Some(patch) = body::<UpdateMind>(v).and_then(|p| MindPatch::parse(&p.into_raw()).ok()) {
                patch.apply(&mut mind);
                let _ = (mind.theme.entries(), mind.social_links.entries(), mind.theme.is_empty());
            }
        }
    }
    if let Some(b) = body::<UpdateMind>(v) {
        let _ = MindPatch::parse(&b.into_raw()).map(|p| p.is_empty());
    }
    if let Some(b) = body::<SearchBody>(v) {
        let _ = SearchRequest::parse(
            b.query.as_deref(),
            b.top_k,
            b.mode.as_deref(),
            b.min_score,
            b.source_ids.as_deref(),
            b.types.as_deref(),
        );
    }
    if let Some(b) = body::<CreateSource>(v) {
        let _ = b.source_type.as_deref().map(SourceType::parse);
        let _ = TextContent::parse(b.content.as_deref()).map(|c| c.byte_len());
        let _ = CrawlDepth::parse(b.crawl_depth);
        let _ = source_name(b.name.as_deref(), b.url.as_deref().unwrap_or("Untitled text"));
    }
    if let Some(b) = body::<Chatbot>(v) {
        let _ = NewChatbot::parse(b.name.as_deref(), b.slug.as_deref(), b.descriptor.as_deref());
        let _ = ChatbotPatch::parse(b.name.as_deref(), b.slug.as_deref(), b.descriptor.as_deref());
    }
    if let Some(b) = body::<Subscribe>(v)
        && let Ok(filter) = HookFilter::parse(b.event.as_deref())
    {
        let form = b.form_id.as_deref().and_then(FormId::parse);
        let chatbot = b.chatbot_id.as_deref().and_then(ChatbotId::parse);
        let _ = HookTarget::new(filter, form, chatbot);
    }
}

/// Create a form from the body, then validate the same body's `values` as a submission to it.
fn form(v: &Value, b: CreateForm) {
    let fields: Option<Vec<RawField>> = b.fields.map(|fs| {
        fs.into_iter()
            .map(|f| RawField {
                key: f.key,
                label: f.label,
                field_type: f.field_type,
                required: f.required,
                options: f.options,
                max: f.max,
            })
            .collect()
    });
    let Ok(new) = NewForm::parse(b.name.as_deref(), fields.as_deref()) else { return };
    let form = Form {
        id: FormId::generate(),
        workspace_id: WorkspaceId::generate(),
        name: new.name,
        fields: new.fields,
        created_at: Timestamp::from_millis(0),
    };
    if let Some(values) = v.get("values").and_then(Value::as_object) {
        let _ = form.validate_values(values);
    } else {
        let _ = form.validate_values(&Map::new());
    }
}

// ------------------------------------------------------------------------------ lib/http's bodies

#[derive(Deserialize)]
struct FieldInput {
    key: Option<String>,
    label: Option<String>,
    #[serde(rename = "type")]
    field_type: Option<String>,
    required: Option<bool>,
    options: Option<Vec<String>>,
    max: Option<i64>,
}

#[derive(Deserialize)]
struct CreateForm {
    name: Option<String>,
    fields: Option<Vec<FieldInput>>,
}

#[derive(Deserialize)]
struct SubmitResponse {
    #[allow(dead_code)]
    values: Option<Map<String, Value>>,
    source: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateMind {
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    slug: Field<String>,
    #[serde(default)]
    headline: Field<String>,
    #[serde(default)]
    bio: Field<String>,
    #[serde(default)]
    avatar_url: Field<String>,
    #[serde(default)]
    system_prompt: Field<String>,
    #[serde(default)]
    welcome_message: Field<String>,
    #[serde(default)]
    suggested_questions: Field<Vec<String>>,
    #[serde(default)]
    expertise_areas: Field<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UpdateMind {
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    slug: Field<String>,
    #[serde(default)]
    headline: Field<String>,
    #[serde(default)]
    bio: Field<String>,
    #[serde(default)]
    avatar_url: Field<String>,
    #[serde(default)]
    system_prompt: Field<String>,
    #[serde(default)]
    welcome_message: Field<String>,
    #[serde(default)]
    suggested_questions: Field<Vec<String>>,
    #[serde(default)]
    expertise_areas: Field<Vec<String>>,
    #[serde(default)]
    is_published: Field<bool>,
    #[serde(default)]
    show_sources: Field<bool>,
    #[serde(default)]
    collect_email_before_chat: Field<bool>,
    #[serde(default)]
    temperature: Field<f64>,
    #[serde(default)]
    theme: Field<BTreeMap<String, Option<String>>>,
    #[serde(default)]
    social_links: Field<BTreeMap<String, Option<String>>>,
    #[serde(default)]
    voice_enabled: Field<bool>,
    #[serde(default)]
    voice_id: Field<String>,
    #[serde(default)]
    voice_speed: Field<f64>,
}

impl UpdateMind {
    fn into_raw(self) -> RawMind {
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
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SearchBody {
    query: Option<String>,
    top_k: Option<i64>,
    mode: Option<String>,
    min_score: Option<f64>,
    source_ids: Option<Vec<String>>,
    types: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateSource {
    #[serde(rename = "type")]
    source_type: Option<String>,
    name: Option<String>,
    content: Option<String>,
    url: Option<String>,
    crawl_depth: Option<i64>,
}

#[derive(Deserialize)]
struct Chatbot {
    name: Option<String>,
    slug: Option<String>,
    descriptor: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Subscribe {
    form_id: Option<String>,
    event: Option<String>,
    chatbot_id: Option<String>,
}
