//! Request-body parsing: the input is a JSON body, read into the HTTP layer's own body types
//! (`lore_http::bodies`) and then validated by the domain and application parsers, as the
//! routes do. One input goes through every body shape,
//! so one JSON object can be a form definition and a submission to it, a Mind create and
//! patch, a search, a source, a chunk edit, a chatbot and a webhook subscription. The input as a string also
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
use lore_domain::chunk::ChunkEdit;
use lore_domain::delivery::RetrySchedule;
use lore_domain::form::{Form, ResponseSource};
use lore_domain::hook::{HookFilter, HookTarget};
use lore_domain::id::{ChatbotId, FormId, SourceId, WorkspaceId};
use lore_domain::metadata::Metadata;
use lore_domain::mind::{Mind, MindPatch, NewMind};
use lore_domain::pagination::PageRequest;
use lore_domain::slug::Slug;
use lore_domain::source::{CrawlDepth, SourceType, TextContent, source_name};
use lore_domain::time::Timestamp;
use lore_http::bodies::{
    AssistantUpdate, ChatbotUpdate, CreateChatbot, CreateForm, CreateMind, CreateSource, MindUpdate, SearchBody,
    SubmitResponse, SubscribeBody, UpdateChunk,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

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

/// A Mind's update as the route reads it: its own members and the shared settings.
fn mind_update(v: &Value) -> Option<lore_domain::mind::RawMind> {
    Some(body::<MindUpdate>(v)?.into_raw(body::<AssistantUpdate>(v)?))
}

fn bodies(v: &Value) {
    if let Some(b) = body::<CreateForm>(v) {
        form(v, b);
    }
    if let Some(b) = body::<SubmitResponse>(v) {
        let _ = ResponseSource::parse_field(b.source.as_deref());
    }
    if let Some(b) = body::<CreateMind>(v) {
        if let Ok(new) = NewMind::parse(&b.into_raw()) {
            let slug = match &new.slug {
                lore_domain::chatbot::SlugChoice::Explicit(s) | lore_domain::chatbot::SlugChoice::Generated(s) => {
                    s.clone()
                }
            };
            let mut mind = Mind::create(WorkspaceId::generate(), new, slug, Timestamp::from_millis(0));
            if let Some(patch) = mind_update(v).and_then(|p| MindPatch::parse(&p).ok()) {
                patch.apply(&mut mind);
                let theme = &mind.settings.theme;
                let _ = (theme.entries(), mind.social_links.entries(), theme.is_empty());
            }
        }
    }
    if let Some(raw) = mind_update(v) {
        let _ = MindPatch::parse(&raw).map(|p| p.is_empty());
    }
    if let Some(b) = body::<SearchBody>(v) {
        let _ = SearchRequest::parse(b.input());
    }
    if let Some(b) = body::<CreateSource>(v) {
        let _ = b.source_type.as_deref().map(SourceType::parse);
        let _ = TextContent::parse(b.content.as_deref()).map(|c| c.byte_len());
        let _ = CrawlDepth::parse(b.crawl_depth);
        let _ = Metadata::parse(b.metadata.as_ref());
        let _ = source_name(b.name.as_deref(), b.url.as_deref().unwrap_or("Untitled text"));
    }
    if let Some(b) = body::<UpdateChunk>(v) {
        let edit = ChunkEdit::parse(b.text.as_deref(), b.enabled);
        let _ = edit.map(|e| (e.text().map(|t| t.as_str().len()), e.enabled()));
    }
    if let Some(b) = body::<CreateChatbot>(v) {
        let _ = NewChatbot::parse(b.name.as_deref(), b.slug.as_deref(), b.descriptor.as_deref());
    }
    if let (Some(own), Some(settings)) = (body::<ChatbotUpdate>(v), body::<AssistantUpdate>(v)) {
        let _ = ChatbotPatch::parse(&own.into_raw(settings)).map(|p| p.is_empty());
    }
    if let Some(b) = body::<SubscribeBody>(v)
        && let Ok(filter) = HookFilter::parse(b.event.as_deref())
    {
        let form = b.form_id.as_deref().and_then(FormId::parse);
        let chatbot = b.chatbot_id.as_deref().and_then(ChatbotId::parse);
        let _ = HookTarget::new(filter, form, chatbot);
    }
}

/// Create a form from the body, then validate the same body's `values` as a submission to it.
fn form(v: &Value, b: CreateForm) {
    let Ok(new) = b.parse() else { return };
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
