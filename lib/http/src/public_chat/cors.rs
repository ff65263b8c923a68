//! CORS of the visitor routes (docs/api.md §18): a page on one of the owner's `allowedOrigins`
//! may call `/{m|c}/{slug}/conversations…` from its own script. Exactly those origins are
//! answered (`Access-Control-Allow-Origin` = the request's `Origin`, `Vary: Origin`), preflight
//! included; a request from any other origin gets no CORS header, and no other route answers
//! CORS this way (the public data of `/{m|c}/{slug}/widget.json` and `/i18n/{code}.json` is
//! open to every origin: `Access-Control-Allow-Origin: *`, set by their handlers). The origin of `LORE_PUBLIC_BASE_URL` is allowed too: on AWS the service's own
//! pages (served through API Gateway) send their streamed answers to the streaming function's
//! URL, another origin.

use crate::state::ApiState;
use axum::extract::{Request, State};
use axum::http::header::{
    ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, ORIGIN, VARY,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lore_domain::embed::PublicKind;

/// The owner a visitor route's path names: `/{m|c}/{slug}/conversations[/…]`.
fn visitor_route(path: &str) -> Option<(PublicKind, &str)> {
    let mut parts = path.strip_prefix('/')?.splitn(4, '/');
    let kind = match parts.next()? {
        "m" => PublicKind::Mind,
        "c" => PublicKind::Chatbot,
        _ => return None,
    };
    let slug = parts.next()?;
    (parts.next()? == "conversations").then_some((kind, slug))
}

/// `scheme://host[:port]` of a base URL.
fn origin_of(url: &str) -> Option<&str> {
    let after_scheme = url.find("://")? + 3;
    let end = url[after_scheme..].find('/').map_or(url.len(), |i| after_scheme + i);
    Some(&url[..end])
}

/// Whether `origin` may call the visitor routes of the owner at `kind`/`slug`.
async fn allowed(s: &ApiState, kind: PublicKind, slug: &str, origin: &str) -> bool {
    let own = s.app.config().public_base_url.as_deref().and_then(origin_of);
    if own.is_some_and(|o| o.eq_ignore_ascii_case(origin)) {
        return true;
    }
    match s.app.published(kind, slug).await {
        Ok(p) => p.settings().embed.allowed_origins.allows(origin),
        // Unknown, unpublished, or the store failed: no CORS (the route answers the error).
        Err(_) => false,
    }
}

fn allow(headers: &mut HeaderMap, origin: &str) {
    if let Ok(v) = HeaderValue::from_str(origin) {
        headers.insert(ACCESS_CONTROL_ALLOW_ORIGIN, v);
        headers.insert(ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("Retry-After, X-Request-Id"));
    }
}

/// The middleware around every route; it acts on visitor routes only.
pub(crate) async fn visitor_cors(State(s): State<ApiState>, req: Request, next: Next) -> Response {
    let Some((kind, slug)) = visitor_route(req.uri().path()) else { return next.run(req).await };
    let Some(origin) = req.headers().get(ORIGIN).and_then(|v| v.to_str().ok()).map(str::to_owned) else {
        return next.run(req).await;
    };
    let slug = slug.to_owned();
    let ok = allowed(&s, kind, &slug, &origin).await;
    if req.method() == Method::OPTIONS && req.headers().contains_key("access-control-request-method") {
        let mut res = StatusCode::NO_CONTENT.into_response();
        let h = res.headers_mut();
        h.insert(VARY, HeaderValue::from_static("Origin"));
        if ok {
            allow(h, &origin);
            h.insert(ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST"));
            h.insert(ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Authorization, Content-Type, Accept"));
            h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        }
        return res;
    }
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.append(VARY, HeaderValue::from_static("Origin"));
    if ok {
        allow(h, &origin);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_visitor_routes_are_recognised() {
        assert_eq!(visitor_route("/m/ada/conversations"), Some((PublicKind::Mind, "ada")));
        assert_eq!(visitor_route("/c/bot/conversations/conv_1/messages"), Some((PublicKind::Chatbot, "bot")));
        assert_eq!(visitor_route("/m/ada"), None, "the page");
        assert_eq!(visitor_route("/api/v1/minds"), None);
        assert_eq!(visitor_route("/m/ada/other"), None);
        assert_eq!(origin_of("https://lore.example.com/prod"), Some("https://lore.example.com"));
        assert_eq!(origin_of("http://127.0.0.1:3000"), Some("http://127.0.0.1:3000"));
    }
}
