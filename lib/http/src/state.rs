//! What every handler shares.

use lore_app::App;
use std::sync::{Arc, Mutex, OnceLock};

#[derive(Clone)]
pub struct ApiState {
    /// Behind an `Arc`: axum clones the state for every request, and `App` holds dozens of
    /// `Arc`s whose counters two threads would otherwise bump and drop on every request.
    pub app: Arc<App>,
    /// The OpenAPI document of the routes this router serves.
    pub openapi: Arc<OpenApiDocument>,
}

/// The OpenAPI document, serialised on its first request and kept. Serialising it (~290 KB of
/// JSON) was the largest piece of a cold start's own CPU, in processes that mostly never serve it.
pub struct OpenApiDocument {
    doc: Mutex<Option<utoipa::openapi::OpenApi>>,
    json: OnceLock<String>,
}

impl OpenApiDocument {
    pub(crate) fn new(doc: utoipa::openapi::OpenApi) -> Self {
        Self { doc: Mutex::new(Some(doc)), json: OnceLock::new() }
    }

    /// The served JSON text.
    pub(crate) fn json(&self) -> &str {
        self.json.get_or_init(|| {
            let doc = self.doc.lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_default();
            crate::document(doc).to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_serialised_on_first_use_once() {
        let doc = crate::api_router(&[crate::RouteGroup::Chatbots]).split_for_parts().1;
        let served = OpenApiDocument::new(doc);
        assert!(served.json.get().is_none(), "serialised before anyone asked");
        let first = served.json();
        let value: serde_json::Value = serde_json::from_str(first).unwrap();
        assert!(value["openapi"].as_str().unwrap().starts_with("3.1"));
        assert!(value["webhooks"].is_object(), "the served form, with the events");
        assert!(std::ptr::eq(first, served.json()), "serialised again");
    }
}
