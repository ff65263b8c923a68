//! What every handler shares.

use lore_app::App;
use std::sync::Arc;

#[derive(Clone)]
pub struct ApiState {
    pub app: App,
    /// The OpenAPI document of the routes this router serves, serialised once.
    pub openapi_json: Arc<String>,
}
