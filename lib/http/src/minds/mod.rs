//! The `api-minds` route group: `/api/v1/minds/…` (docs/api.md §8). The public
//! page `/m/{slug}` of a published Mind is in [`crate::public_page`], mounted with this group.
//!
//! [`views`]: what the routes answer; [`bodies`]: what they read; [`handlers`]: the routes.

mod bodies;
mod handlers;
mod views;

pub(crate) use bodies::optional_json;
pub use bodies::{CreateMind, MindUpdate, PublishMind};
pub use handlers::router;
pub use views::IdentitySecretEnvelope;

use crate::extract::ParseId;
use axum::http::{HeaderMap, header};
use lore_domain::id::MindId;

impl ParseId for MindId {
    const WHAT: &'static str = "mind";
    fn parse_id(s: &str) -> Option<Self> {
        Self::parse(s)
    }
}

/// [`public_base`] with this service's setting.
pub(crate) fn served_base(s: &crate::state::ApiState, headers: &HeaderMap) -> String {
    public_base(s.app.config().public_base_url.as_deref(), headers)
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
