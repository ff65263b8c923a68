//! `GET /console`: the owners' console (docs/console.md). A shell page, its ES modules and its
//! style sheet compiled into the binary; everything the console shows or changes goes through the public API with
//! the key the owner signs in with, so the console can do nothing a client could not. The key is
//! exchanged once for a session cookie no script can read ([`session`]): pages of this origin
//! that show untrusted content (`/c/…`, `/m/…`, `/files/…`) cannot take it.
//!
//! The script is ES modules, one per view or concern, in `js/` (docs/development.md, "Front
//! end"); `console.js` starts the console. The page carries a strict CSP: its module script, the
//! preloads of its modules and its one style sheet are allowed by this response's nonce (the
//! modules a nonced module imports carry the nonce on; `'strict-dynamic'` lets that script's own
//! loads through, nothing else), requests go to this origin only, and no other site may frame
//! it. The files are served by [`modules`]: their URLs carry a digest of all of them, so they
//! are cached for a year and a new build is fetched at once; they are sent gzip-compressed to
//! browsers that accept it.

use crate::error::ApiError;
use crate::public_chat::Client;
use crate::state::ApiState;
use axum::extract::{Path, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use modules::{CSS, File, Files, JS};
use std::fmt::Write;

pub(crate) mod modules;
pub(crate) mod session;

/// The console's routes: the page and its assets (HTML and files for people, so not in the API
/// document), and its session (`/api/v1/console/session`, [`session`]).
pub(crate) fn routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    session::routes(router).undocumented("/console", get(page)).undocumented("/console/assets/{file}", get(asset))
}

/// The console's files: its modules (`js/`, one per view or concern) and its style sheet.
static FILES: Files = Files::new(&[
    File { name: "console.js", content_type: JS, body: include_str!("js/console.js") },
    File { name: "actions.js", content_type: JS, body: include_str!("js/actions.js") },
    File { name: "analytics.js", content_type: JS, body: include_str!("js/analytics.js") },
    File { name: "api.js", content_type: JS, body: include_str!("js/api.js") },
    File { name: "channels.js", content_type: JS, body: include_str!("js/channels.js") },
    File { name: "chunks.js", content_type: JS, body: include_str!("js/chunks.js") },
    File { name: "conversations.js", content_type: JS, body: include_str!("js/conversations.js") },
    File { name: "dom.js", content_type: JS, body: include_str!("js/dom.js") },
    File { name: "format.js", content_type: JS, body: include_str!("js/format.js") },
    File { name: "kinds.js", content_type: JS, body: include_str!("js/kinds.js") },
    // The chat page's Markdown parser (pure), served here too so that a transcript shows answers
    // as visitors saw them (markup.js turns its tree into elements).
    File { name: "markdown.js", content_type: JS, body: include_str!("../public_page/js/markdown.js") },
    File { name: "markup.js", content_type: JS, body: include_str!("js/markup.js") },
    File { name: "owners.js", content_type: JS, body: include_str!("js/owners.js") },
    File { name: "privacy.js", content_type: JS, body: include_str!("js/privacy.js") },
    File { name: "router.js", content_type: JS, body: include_str!("js/router.js") },
    File { name: "search.js", content_type: JS, body: include_str!("js/search.js") },
    File { name: "settings.js", content_type: JS, body: include_str!("js/settings.js") },
    File { name: "shell.js", content_type: JS, body: include_str!("js/shell.js") },
    File { name: "sources.js", content_type: JS, body: include_str!("js/sources.js") },
    File { name: "state.js", content_type: JS, body: include_str!("js/state.js") },
    File { name: "tests.js", content_type: JS, body: include_str!("js/tests.js") },
    File { name: "testwords.js", content_type: JS, body: include_str!("js/testwords.js") },
    File { name: "webhooks.js", content_type: JS, body: include_str!("js/webhooks.js") },
    File { name: "words.js", content_type: JS, body: include_str!("js/words.js") },
    File { name: "console.css", content_type: CSS, body: include_str!("console.css") },
]);

fn url_of(name: &str) -> String {
    format!("/console/assets/{}", FILES.versioned(name))
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    lore_domain::text::random_bytes(&mut bytes);
    lore_domain::text::hex(&bytes)
}

/// The shell: a title, the style sheet, the script and the preloads of its modules. The script
/// draws everything else.
async fn page(State(s): State<ApiState>, Client(client): Client) -> Response {
    if let Err(e) = s.app.admit_page_read(client).await {
        return ApiError::from(e).into_response();
    }
    let nonce = nonce();
    // Every module asked for at once, rather than each when its importer arrives.
    let preloads = FILES.modules().filter(|m| *m != "console.js").fold(String::new(), |mut h, m| {
        let _ = writeln!(h, "<link rel=\"modulepreload\" href=\"{}\" nonce=\"{nonce}\">", url_of(m));
        h
    });
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n<title>Lore console</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <link rel=\"stylesheet\" href=\"{css}\" nonce=\"{nonce}\">\n{preloads}</head>\n<body>\n\
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

/// One of the console's compiled-in files. Not metered (docs/rate-limiting.md): the page that
/// names them is, and a versioned file served from memory costs less than the budget's check
/// (on AWS a DynamoDB write) would.
async fn asset(Path(file): Path<String>, headers: HeaderMap) -> Response {
    FILES.respond(&file, &headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_is_served_and_imports_only_modules_of_the_console() {
        FILES.check(concat!(env!("CARGO_MANIFEST_DIR"), "/src/console/js"));
        assert!(url_of("console.js").starts_with("/console/assets/console.js?v="));
        assert!(url_of("console.css").ends_with(FILES.version()));
    }
}
