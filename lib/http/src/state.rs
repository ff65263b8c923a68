//! What every handler shares.

use crate::api_router::OperationDocs;
use lore_app::App;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub struct ApiState {
    /// Behind an `Arc`: axum clones the state for every request, and `App` holds dozens of
    /// `Arc`s whose counters two threads would otherwise bump and drop on every request.
    pub app: Arc<App>,
    /// The OpenAPI document of the routes this router serves.
    pub openapi: Arc<OpenApiDocument>,
}

/// The OpenAPI document, built and serialised on its first request and kept. Building it (the
/// operations and their schemas) and serialising it (~290 KB of JSON) were the largest pieces of
/// a cold start's own CPU, in processes that mostly never serve it.
pub struct OpenApiDocument {
    operations: Vec<OperationDocs>,
    json: OnceLock<String>,
}

impl OpenApiDocument {
    pub(crate) fn new(operations: Vec<OperationDocs>) -> Self {
        Self { operations, json: OnceLock::new() }
    }

    /// The served JSON text.
    pub(crate) fn json(&self) -> &str {
        self.json.get_or_init(|| crate::document(&self.operations).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_is_serialised_on_first_use_once() {
        let operations = crate::api_router(&[crate::RouteGroup::Chatbots]).split().1;
        let served = OpenApiDocument::new(operations);
        assert!(served.json.get().is_none(), "serialised before anyone asked");
        let first = served.json();
        let value: serde_json::Value = serde_json::from_str(first).unwrap();
        assert!(value["openapi"].as_str().unwrap().starts_with("3.1"));
        assert!(value["webhooks"].is_object(), "the served form, with the events");
        assert!(std::ptr::eq(first, served.json()), "serialised again");
    }
}
