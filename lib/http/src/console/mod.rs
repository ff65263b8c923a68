//! `GET /console`: the owners' console (docs/console.md). A shell page and two assets compiled
//! into the binary; everything the console shows or changes goes through the public API with
//! the key the owner signs in with (held in the tab's `sessionStorage`, never in a cookie), so
//! the console can do nothing a client could not.
//!
//! The page carries a strict CSP: its one module script and one style sheet are allowed by this
//! response's nonce (`'strict-dynamic'` lets that script's own imports load, nothing else),
//! requests go to this origin only, and no other site may frame it. The assets' URLs carry a
//! digest of their bytes, so they are cached for a year and a new build is fetched at once;
//! they are sent gzip-compressed to browsers that accept it.

use crate::error::ApiError;
use crate::public_chat::Client;
use crate::state::ApiState;
use axum::extract::{Path, State};
use axum::http::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH,
    REFERRER_POLICY, VARY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::io::Write;
use std::sync::OnceLock;

/// The console's routes: not API operations (HTML and assets for people), so not in the API
/// document.
pub(crate) fn routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    router.undocumented("/console", get(page)).undocumented("/console/assets/{file}", get(asset))
}

/// A file of the console, with its type.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static str,
}

const ASSETS: [Asset; 2] = [
    Asset { name: "console.js", content_type: "text/javascript; charset=utf-8", body: include_str!("console.js") },
    Asset { name: "console.css", content_type: "text/css; charset=utf-8", body: include_str!("console.css") },
];

/// An asset ready to send: its digest (in its URL and its ETag) and its gzip form.
struct Prepared {
    digest: String,
    gzip: Vec<u8>,
}

fn prepared() -> &'static [Prepared] {
    static PREPARED: OnceLock<Vec<Prepared>> = OnceLock::new();
    PREPARED.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                // FNV-1a: a cache key, not a security measure.
                let hash = a
                    .body
                    .bytes()
                    .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
                let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                // Writing to a Vec cannot fail; an empty body would only cost compression.
                let gzip = gz.write_all(a.body.as_bytes()).and_then(|()| gz.finish()).unwrap_or_default();
                Prepared { digest: format!("{hash:016x}"), gzip }
            })
            .collect()
    })
}

fn url_of(name: &str) -> String {
    let i = ASSETS.iter().position(|a| a.name == name).unwrap_or(0);
    format!("/console/assets/{name}?v={}", prepared()[i].digest)
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    lore_domain::text::random_bytes(&mut bytes);
    lore_domain::text::hex(&bytes)
}

/// The shell: a title, the style sheet, the script. The script draws everything else.
async fn page(State(s): State<ApiState>, Client(client): Client) -> Response {
    if let Err(e) = s.app.admit_page_read(client).await {
        return ApiError::from(e).into_response();
    }
    let nonce = nonce();
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<title>Lore console</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <link rel=\"stylesheet\" href=\"{css}\" nonce=\"{nonce}\">\n</head>\n<body>\n\
         <div id=\"app\"><noscript>The console needs JavaScript.</noscript></div>\n\
         <script type=\"module\" src=\"{js}\" nonce=\"{nonce}\"></script>\n</body>\n</html>\n",
        css = url_of("console.css"),
        js = url_of("console.js"),
    );
    let csp = format!(
        "default-src 'none'; script-src 'nonce-{nonce}' 'strict-dynamic'; style-src 'nonce-{nonce}'; \
         connect-src 'self'; img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'"
    );
    let mut h = HeaderMap::new();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if let Ok(v) = HeaderValue::from_str(&csp) {
        h.insert(CONTENT_SECURITY_POLICY, v);
    }
    (h, html).into_response()
}

async fn asset(
    State(s): State<ApiState>,
    Client(client): Client,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(e) = s.app.admit_page_read(client).await {
        return ApiError::from(e).into_response();
    }
    let Some(i) = ASSETS.iter().position(|a| a.name == file) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let (a, p) = (&ASSETS[i], &prepared()[i]);
    let etag = HeaderValue::from_str(&format!("\"{}\"", p.digest)).unwrap_or(HeaderValue::from_static("\"0\""));
    let mut h = HeaderMap::new();
    h.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    let fresh = headers.get(IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes());
    h.insert(ETAG, etag);
    if fresh {
        return (StatusCode::NOT_MODIFIED, h).into_response();
    }
    h.insert(CONTENT_TYPE, HeaderValue::from_static(a.content_type));
    let gzip = headers
        .get(ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.split(';').next().is_some_and(|e| e.trim() == "gzip")));
    if gzip && !p.gzip.is_empty() {
        h.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        return (h, p.gzip.clone()).into_response();
    }
    (h, a.body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn every_asset_is_compressed_and_named_by_its_bytes() {
        for (a, p) in ASSETS.iter().zip(prepared()) {
            let mut back = String::new();
            flate2::read::GzDecoder::new(&p.gzip[..]).read_to_string(&mut back).unwrap();
            assert_eq!(back, a.body, "{}", a.name);
            assert!(p.gzip.len() * 2 < a.body.len(), "{} compresses", a.name);
            assert!(url_of(a.name).ends_with(&p.digest));
        }
    }
}
