//! What every handler shares.

use lore_app::App;
use std::sync::Arc;

#[derive(Clone)]
pub struct ApiState {
    /// Behind an `Arc`: axum clones the state for every request, and `App` holds dozens of
    /// `Arc`s whose counters two threads would otherwise bump and drop on every request.
    pub app: Arc<App>,
    /// The OpenAPI document of the routes this router serves, serialised once.
    pub openapi_json: Arc<String>,
}
