//! `GET /m/{slug}`: the public page of a published Mind (docs/api.md §8). No key: the page is
//! public while the Mind is published; otherwise 404 `not_found` (the JSON envelope, as every
//! error of the service).
//!
//! A self-contained, accessible chat page: the Mind's name, avatar and headline, the
//! conversation (welcome message, suggested questions as buttons, the e-mail gate, streamed
//! answers with their sources, a speaker button), then bio, expertise and links, in its theme's
//! colours. No build step and no third-party origin: the style sheet (`page.css`) is compiled
//! into the binary and inlined under this response's CSP nonce; the chat is ES modules (`js/`,
//! one per concern; docs/development.md, "Front end") compiled in and served next to the page
//! (`…/{slug}/assets/`), loaded by the page's one script under the same nonce; the script talks
//! only to the page's own origin (the visitor routes of docs/api.md §17).
//! Every value is HTML-escaped; theme values reach the style sheet only as validated hex colours
//! and font names ([`lore_domain::mind::HexColor`], [`lore_domain::mind::FontFamily`]).
//!
//! Fixed texts come from the catalogues of [`i18n`] (docs/api.md §20): the page is rendered in
//! the owner's language when it is fixed, else in the one `?lang=` names (the widget's
//! `data-language`), else in the visitor's first supported `Accept-Language`, else English; the
//! script then follows `navigator.languages` when the owner's language is `auto` and no `?lang=`
//! names one.

use crate::console::modules::{File, Files, JS};
use crate::error::ApiError;
use crate::public_chat::Client;
use crate::state::ApiState;
use axum::extract::{Path, Query, State};
use axum::http::header::{
    ACCEPT, ACCEPT_LANGUAGE, ACCESS_CONTROL_ALLOW_ORIGIN, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG,
    IF_NONE_MATCH, REFERRER_POLICY, RETRY_AFTER, VARY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header::HeaderName};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lore_domain::embed::{PublicKind, Published};
use lore_domain::mind::{FontFamily, HexColor, Mind, ThemeMode};
use std::fmt::Write;

pub mod i18n;

/// The Minds' pages, the embedding script, the icon and the catalogues of fixed texts (not part
/// of the API document: HTML and script for people and browsers, not API operations), and the
/// widget's settings of a Mind (documented: JSON for any client).
pub(crate) fn mind_routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    router
        .undocumented("/m/{slug}", get(mind_page))
        .undocumented("/m/{slug}/assets/{file}", get(chat_module))
        .routes(crate::api_router::api_routes!(mind_widget_settings))
        .undocumented("/widget.js", get(widget))
        .undocumented("/favicon.svg", get(favicon))
        .undocumented("/i18n/{file}", get(texts))
}

/// The chatbots' pages and widget settings.
pub(crate) fn chatbot_routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    router
        .undocumented("/c/{slug}", get(chatbot_page))
        .undocumented("/c/{slug}/assets/{file}", get(chat_module))
        .routes(crate::api_router::api_routes!(chatbot_widget_settings))
}

/// The owner's interface language: `auto` (the visitor's browser decides) or an ISO 639-1 code.
/// Every use of the owner's language goes through here.
fn page_language(published: &Published) -> &'static str {
    published.settings().reply.language.as_str()
}

/// `?embed=1`: the page inside the widget's frame, without its profile. `?lang=fr`: the page's
/// fixed texts in that language unless the owner fixed one (the widget's `data-language`, or a
/// link shared in one language).
#[derive(Debug, Default, serde::Deserialize)]
struct PageQuery {
    embed: Option<String>,
    lang: Option<String>,
}

/// The language the server renders fixed texts in: the owner's when fixed and supported, else
/// the one asked for, else the visitor's first supported `Accept-Language`, else English.
fn render_language(owner: &str, asked: Option<&str>, headers: &HeaderMap) -> &'static str {
    i18n::supported(owner)
        .or_else(|| asked.and_then(i18n::supported))
        .or_else(|| headers.get(ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()).and_then(i18n::from_accept_language))
        .unwrap_or(i18n::DEFAULT)
}

async fn mind_page(
    state: State<ApiState>,
    slug: Path<String>,
    query: Result<Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    client: Client,
    headers: HeaderMap,
) -> Response {
    page(PublicKind::Mind, state, slug, query, client, headers).await
}

async fn chatbot_page(
    state: State<ApiState>,
    slug: Path<String>,
    query: Result<Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    client: Client,
    headers: HeaderMap,
) -> Response {
    page(PublicKind::Chatbot, state, slug, query, client, headers).await
}

async fn page(
    kind: PublicKind,
    State(s): State<ApiState>,
    Path(slug): Path<String>,
    query: Result<Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    Client(client): Client,
    headers: HeaderMap,
) -> Response {
    let query = query.map(|Query(q)| q).unwrap_or_default();
    let embed = matches!(query.embed.as_deref(), Some("1" | "true"));
    let asked = query.lang.as_deref();
    let found = async {
        s.app.admit_page_read(client).await?;
        Ok::<_, ApiError>(s.app.published(kind, &slug).await?)
    };
    let published = match found.await {
        Ok(p) => p,
        Err(e) if wants_html(&headers) => {
            return error_page(e.into_response(), render_language("auto", asked, &headers));
        }
        Err(e) => return e.into_response(),
    };
    let nonce = nonce();
    let stream = s.app.config().stream_url.as_ref().map(|o| o.as_str());
    let lang = render_language(page_language(&published), asked, &headers);
    let html = render(&published, &nonce, embed, stream, lang);
    let csp = format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'{}; \
         img-src http: https:; media-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors {}",
        stream.map(|o| format!(" {o}")).unwrap_or_default(),
        published.settings().embed.allowed_origins.frame_ancestors()
    );
    let headers: [(HeaderName, HeaderValue); 6] = [
        (CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
        (
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_str(&csp).unwrap_or(HeaderValue::from_static("default-src 'none'")),
        ),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin")),
        // Unpublishing takes effect at once: caches must ask again.
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        // The fixed texts follow the visitor's languages.
        (VARY, HeaderValue::from_static("Accept-Language")),
    ];
    (headers, html).into_response()
}

/// A browser asks for HTML (`Accept: text/html…`); an API client asking for JSON, or for
/// nothing in particular, keeps the JSON error envelope.
fn wants_html(headers: &HeaderMap) -> bool {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    accept.contains("text/html") && !accept.trim_start().starts_with("application/json")
}

/// A page for people in place of the JSON envelope of `api`, in `lang`: the same status,
/// `Retry-After` kept.
fn error_page(api: Response, lang: &'static str) -> Response {
    let status = api.status();
    let nonce = nonce();
    let html = error_html(status, lang, &nonce);
    let mut res = (status, html).into_response();
    let h = res.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    h.insert(
        CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&format!(
            "default-src 'none'; style-src 'nonce-{nonce}'; img-src 'self'; base-uri 'none'; form-action 'none'"
        ))
        .unwrap_or(HeaderValue::from_static("default-src 'none'")),
    );
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(VARY, HeaderValue::from_static("Accept-Language"));
    if let Some(retry) = api.headers().get(RETRY_AFTER) {
        h.insert(RETRY_AFTER, retry.clone());
    }
    res
}

/// The error page's HTML for `status`, in `lang`.
fn error_html(status: StatusCode, lang: &'static str, nonce: &str) -> String {
    let texts = i18n::catalogue(lang).or_else(|| i18n::catalogue(i18n::DEFAULT)).expect("the default catalogue");
    let page = match status {
        StatusCode::NOT_FOUND => "page.not_found",
        StatusCode::TOO_MANY_REQUESTS => "page.busy",
        _ => "page.error",
    };
    let title = escape(texts.text(&format!("{page}.title")));
    let text = escape(texts.text(&format!("{page}.text")));
    let code = escape(&texts.with("page.error.code", "code", &status.as_u16().to_string()));
    let dir = if i18n::is_rtl(texts.code) { " dir=\"rtl\"" } else { "" };
    format!(
        "<!doctype html>\n<html lang=\"{lang}\"{dir}>\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <style nonce=\"{nonce}\">body {{ font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: flex; \
         align-items: center; justify-content: center; background: #f9fafb; color: #111827; }} \
         main {{ max-width: 28rem; padding: 2rem 1.5rem; text-align: center; }} h1 {{ font-size: 1.5rem; }} \
         @media (prefers-color-scheme: dark) {{ body {{ background: #0f172a; color: #f9fafb; }} }}</style>\n\
         </head>\n<body>\n<main>\n<h1>{title}</h1>\n<p>{text}</p>\n<p><small>{code}</small></p>\n</main>\n\
         </body>\n</html>\n",
        lang = texts.code,
    )
}

/// The embedding script (docs/api.md §18), the same bytes for every site: cached by browsers
/// and CDNs for an hour, then revalidated by its ETag. The launcher's texts of every language
/// are put in its place for them when the script is first served.
const WIDGET: &str = include_str!("widget.js");
const WIDGET_TEXTS: &str = "/*LORE_I18N*/{}";

/// FNV-1a of the bytes: a validator, not a security measure.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

/// The script as served, and its ETag.
fn widget_script() -> &'static (String, String) {
    static SCRIPT: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| {
        let body = WIDGET.replacen(WIDGET_TEXTS, &i18n::widget_texts(), 1);
        let etag = format!("\"w-{:016x}\"", fnv(body.as_bytes()));
        (body, etag)
    })
}

async fn widget(State(s): State<ApiState>, Client(client): Client, headers: HeaderMap) -> Response {
    let (body, etag) = widget_script();
    static_asset(&s, client, &headers, "text/javascript; charset=utf-8", body, etag).await
}

/// `GET /i18n/{code}.json`: one language's catalogue (the page's script asks for it when the
/// visitor's browser prefers another language than the page was rendered in). Public data,
/// readable from any origin.
async fn texts(
    State(s): State<ApiState>,
    Path(file): Path<String>,
    Client(client): Client,
    headers: HeaderMap,
) -> Response {
    let Some(catalogue) = file.strip_suffix(".json").and_then(i18n::catalogue) else {
        return ApiError::App(lore_app::AppError::NotFound("language")).into_response();
    };
    let etag = format!("\"t-{}-{:016x}\"", catalogue.code, fnv(catalogue.json.as_bytes()));
    let mut res = static_asset(&s, client, &headers, "application/json", catalogue.json, &etag).await;
    res.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    res
}

/// What the widget needs before it draws its launcher (docs/api.md §20).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub(crate) struct WidgetSettings {
    /// The owner's interface language: `auto` (the visitor's browser decides) or an ISO 639-1 code.
    #[schema(example = "auto")]
    language: String,
    /// The launcher's colour: the theme's `primaryColor`, else the default `#4f46e5`.
    #[schema(example = "#4f46e5")]
    color: String,
}

/// The widget's settings of a published Mind: its interface language and theme colour, for the
/// launcher on a host page (no key; any origin; cached 5 minutes).
#[utoipa::path(get, path = "/m/{slug}/widget.json", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published Mind's public address")),
    responses(
        (status = 200, body = WidgetSettings,
            headers(("Cache-Control" = String, description = "`public, max-age=300`"),
                ("Access-Control-Allow-Origin" = String, description = "`*`"))),
        (status = 404, description = "`not_found`: no published Mind at this address", body = crate::error::ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = crate::error::ErrorBody),
    ))]
async fn mind_widget_settings(state: State<ApiState>, slug: Path<String>, client: Client) -> Response {
    widget_settings(PublicKind::Mind, state, slug, client).await
}

/// The widget's settings of a published chatbot: its interface language and theme colour, for
/// the launcher on a host page (no key; any origin; cached 5 minutes).
#[utoipa::path(get, path = "/c/{slug}/widget.json", tag = "public chat", security(()),
    params(("slug" = String, Path, description = "The published chatbot's public address")),
    responses(
        (status = 200, body = WidgetSettings,
            headers(("Cache-Control" = String, description = "`public, max-age=300`"),
                ("Access-Control-Allow-Origin" = String, description = "`*`"))),
        (status = 404, description = "`not_found`: no published chatbot at this address", body = crate::error::ErrorBody),
        (status = 429, description = "`rate_limited`; `Retry-After`", body = crate::error::ErrorBody),
    ))]
async fn chatbot_widget_settings(state: State<ApiState>, slug: Path<String>, client: Client) -> Response {
    widget_settings(PublicKind::Chatbot, state, slug, client).await
}

async fn widget_settings(
    kind: PublicKind,
    State(s): State<ApiState>,
    Path(slug): Path<String>,
    Client(client): Client,
) -> Response {
    let found = async {
        s.app.admit_page_read(client).await?;
        Ok::<_, ApiError>(s.app.published(kind, &slug).await?)
    };
    let mut res = match found.await {
        Ok(published) => {
            let settings =
                WidgetSettings { language: page_language(&published).to_owned(), color: palette(&published).accent };
            let mut res = axum::Json(settings).into_response();
            let h = res.headers_mut();
            // A few minutes: a changed colour or language reaches host pages soon enough, and a
            // page view costs no request.
            h.insert(CACHE_CONTROL, HeaderValue::from_static("public, max-age=300"));
            h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
            res
        }
        Err(e) => e.into_response(),
    };
    res.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    res
}

/// The pages' icon: a speech bubble.
const FAVICON: &str = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 32 32\"><path fill=\"#4f46e5\" \
     d=\"M6 4h20a4 4 0 0 1 4 4v12a4 4 0 0 1-4 4H14l-7 5v-5H6a4 4 0 0 1-4-4V8a4 4 0 0 1 4-4z\"/><circle cx=\"11\" \
     cy=\"14\" r=\"2\" fill=\"#fff\"/><circle cx=\"16\" cy=\"14\" r=\"2\" fill=\"#fff\"/><circle cx=\"21\" cy=\"14\" \
     r=\"2\" fill=\"#fff\"/></svg>";

async fn favicon(State(s): State<ApiState>, Client(client): Client, headers: HeaderMap) -> Response {
    static_asset(&s, client, &headers, "image/svg+xml", FAVICON, "\"lore-favicon-1\"").await
}

/// A file compiled into the binary, with its validator; counted against the address's budget
/// of public reads.
async fn static_asset(
    s: &ApiState,
    client: Option<std::net::IpAddr>,
    headers: &HeaderMap,
    content_type: &'static str,
    body: &'static str,
    etag: &str,
) -> Response {
    if let Err(e) = s.app.admit_page_read(client).await {
        return ApiError::from(e).into_response();
    }
    let etag = HeaderValue::from_str(etag).unwrap_or(HeaderValue::from_static("\"0\""));
    let fresh = headers
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag.to_str().unwrap_or("") || t.trim() == "*"));
    let common: [(HeaderName, HeaderValue); 3] = [
        (ETAG, etag),
        (CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600")),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
    ];
    if fresh {
        return (StatusCode::NOT_MODIFIED, common).into_response();
    }
    (common, [(CONTENT_TYPE, HeaderValue::from_static(content_type))], body).into_response()
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    lore_domain::text::random_bytes(&mut bytes);
    lore_domain::text::hex(&bytes)
}

/// Escapes text for HTML element content and double- or single-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Paragraphs separated by blank lines; single line breaks kept.
fn paragraphs(text: &str) -> String {
    let mut out = String::new();
    let normalised = text.replace("\r\n", "\n");
    for p in normalised.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let lines: Vec<String> = p.lines().map(escape).collect();
        let _ = write!(out, "<p dir=\"auto\">{}</p>", lines.join("<br>"));
    }
    out
}

const GENERIC_FONTS: &[&str] = &[
    "serif",
    "sans-serif",
    "monospace",
    "cursive",
    "fantasy",
    "system-ui",
    "ui-serif",
    "ui-sans-serif",
    "ui-monospace",
    "ui-rounded",
    "math",
    "emoji",
    "fangsong",
];

/// A CSS `font-family` value: names quoted (they hold only letters, digits, spaces, `-` and
/// `_`), generic families bare, and a system fallback last.
fn font_stack(f: Option<&FontFamily>) -> String {
    let mut parts: Vec<String> = f
        .map(|f| {
            f.names()
                .map(|n| {
                    if GENERIC_FONTS.contains(&n.to_ascii_lowercase().as_str()) {
                        n.to_owned()
                    } else {
                        format!("\"{n}\"")
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    parts.extend(["system-ui", "-apple-system", "\"Segoe UI\"", "Roboto", "sans-serif"].map(str::to_owned));
    parts.join(", ")
}

/// Dark or light text, whichever reads better on `bg` (WCAG contrast).
fn text_on(bg: &HexColor) -> &'static str {
    // Contrast with near-black (#111827, L≈0.0123) against near-white (#f9fafb, L≈0.955).
    let l = bg.luminance();
    if (l + 0.05) / (0.0123 + 0.05) >= (0.955 + 0.05) / (l + 0.05) { "#111827" } else { "#f9fafb" }
}

struct Palette {
    background: String,
    text: String,
    accent: String,
    on_accent: &'static str,
    /// CSS for a dark variant when the mode follows the visitor and no background was chosen.
    auto_dark: bool,
    scheme: &'static str,
}

fn palette(published: &Published) -> Palette {
    let t = &published.settings().theme;
    let accent = t.primary_color.clone().unwrap_or_else(|| HexColor::parse("c", "#4f46e5").expect("a valid colour"));
    let dark_default = matches!(t.mode, Some(ThemeMode::Dark));
    let background = t.background_color.clone().unwrap_or_else(|| {
        HexColor::parse("c", if dark_default { "#0f172a" } else { "#ffffff" }).expect("a valid colour")
    });
    let scheme = match t.mode {
        Some(ThemeMode::Dark) => "dark",
        Some(ThemeMode::Light) => "light",
        _ if t.background_color.is_some() => {
            if background.luminance() < 0.18 {
                "dark"
            } else {
                "light"
            }
        }
        _ => "light dark",
    };
    Palette {
        text: text_on(&background).to_owned(),
        background: background.as_str().to_owned(),
        on_accent: text_on(&accent),
        accent: accent.as_str().to_owned(),
        auto_dark: t.background_color.is_none() && !matches!(t.mode, Some(ThemeMode::Light | ThemeMode::Dark)),
        scheme,
    }
}

const SOCIAL_LABELS: &[(&str, &str)] = &[
    ("twitter", "X (Twitter)"),
    ("linkedin", "LinkedIn"),
    ("youtube", "YouTube"),
    ("website", "Website"),
    ("instagram", "Instagram"),
];

/// The page's style sheet, after the theme's custom properties.
const STYLE: &str = include_str!("page.css");
/// The chat's modules (`js/`; `chat.js` starts the chat), the same for every page.
static CHAT: Files = Files::new(&[
    File { name: "chat.js", content_type: JS, body: include_str!("js/chat.js") },
    File { name: "composer.js", content_type: JS, body: include_str!("js/composer.js") },
    File { name: "handoff.js", content_type: JS, body: include_str!("js/handoff.js") },
    File { name: "i18n.js", content_type: JS, body: include_str!("js/i18n.js") },
    File { name: "language.js", content_type: JS, body: include_str!("js/language.js") },
    File { name: "log.js", content_type: JS, body: include_str!("js/log.js") },
    File { name: "markdown.js", content_type: JS, body: include_str!("js/markdown.js") },
    File { name: "protocol.js", content_type: JS, body: include_str!("js/protocol.js") },
    File { name: "render.js", content_type: JS, body: include_str!("js/render.js") },
    File { name: "speaker.js", content_type: JS, body: include_str!("js/speaker.js") },
    File { name: "state.js", content_type: JS, body: include_str!("js/state.js") },
    File { name: "transport.js", content_type: JS, body: include_str!("js/transport.js") },
]);

/// `GET /m/{slug}/assets/{file}` and `/c/{slug}/assets/{file}`: a module of the chat. Under the
/// page's own path (relative to it, wherever it is served), so that whatever serves a page
/// serves its modules too; any slug, the same bytes. Not metered (docs/rate-limiting.md): the
/// page is, and a first visit would otherwise spend a dozen reads of the address's budget (on AWS
/// a DynamoDB write each) on versioned files served from memory.
async fn chat_module(Path((_slug, file)): Path<(String, String)>, headers: HeaderMap) -> Response {
    CHAT.respond(&file, &headers)
}

/// The page's HTML. `nonce` authorises its one style sheet and its one script under the page's
/// CSP: the script imports the chat's modules (`./{slug}/assets/chat.js`, relative to the page),
/// which carry the nonce on to their own imports, and each module is preloaded under the nonce.
/// Settings reach the script as `data-` attributes; text is in the HTML, escaped, and the
/// script reads it as text. `embed`: only the chat, for the widget's frame. `stream`: the origin
/// the visitor routes are called at, when not the page's own. `lang`: the supported language of
/// the fixed texts ([`i18n`]); its catalogue is inlined as a JSON data block for the script, and
/// every fixed text carries its key (`data-i18n`, `data-i18n-label`, `data-i18n-placeholder`)
/// so that the script can show another language.
pub fn render(published: &Published, nonce: &str, embed: bool, stream: Option<&str>, lang: &'static str) -> String {
    let texts = i18n::catalogue(lang).or_else(|| i18n::catalogue(i18n::DEFAULT)).expect("the default catalogue");
    let p = palette(published);
    let name = escape(published.name());
    let mind = published.mind();
    let mut h = String::with_capacity(24 * 1024);
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"{lang}\"{dir}>\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"{scheme}\">\n<title>{name}</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n",
        lang = texts.code,
        dir = if i18n::is_rtl(texts.code) { " dir=\"rtl\"" } else { "" },
        scheme = p.scheme
    );
    if let Some(headline) = mind.and_then(|m| m.headline.as_ref()) {
        let _ = writeln!(h, "<meta name=\"description\" content=\"{}\">", escape(headline.as_str()));
    }
    let _ = write!(
        h,
        "<style nonce=\"{nonce}\">\n\
         :root {{ --bg: {bg}; --fg: {fg}; --accent: {accent}; --on-accent: {on_accent}; --font: {font}; }}\n\
         {dark}{STYLE}</style>\n</head>\n<body{body_class}>\n",
        bg = p.background,
        fg = p.text,
        accent = p.accent,
        on_accent = p.on_accent,
        font = font_stack(published.settings().theme.font_family.as_ref()),
        dark = if p.auto_dark {
            "@media (prefers-color-scheme: dark) { :root { --bg: #0f172a; --fg: #f9fafb; } }\n"
        } else {
            ""
        },
        body_class = if embed { " class=\"embed\"" } else { "" },
    );
    if !embed {
        h.push_str("<div class=\"band\" aria-hidden=\"true\"></div>\n");
    }
    h.push_str("<div class=\"page\">\n");
    if !embed {
        header(&mut h, published, &name);
    }
    chat(&mut h, published, &name, stream, texts);
    if let (false, Some(m)) = (embed, mind) {
        about(&mut h, m, texts);
    }
    h.push_str("</div>\n");
    if !embed {
        let _ = writeln!(h, "<footer data-i18n=\"powered\">{}</footer>", escape(texts.text("powered")));
    }
    // The catalogue holds no `<` (checked by i18n's tests): it cannot end the data block.
    let _ = writeln!(h, "<script type=\"application/json\" id=\"lore-texts\">{}</script>", texts.json.trim());
    // The modules, relative to the page (`/m/ada` → `/m/ada/assets/…`, under a stage prefix too);
    // a slug is lower-case letters, digits and '-'. When they cannot load: the notice that this
    // browser cannot chat here.
    let slug = escape(published.slug().as_str());
    for module in CHAT.modules() {
        let _ = writeln!(
            h,
            "<link rel=\"modulepreload\" href=\"./{slug}/assets/{}\" nonce=\"{nonce}\">",
            CHAT.versioned(module)
        );
    }
    let _ = write!(
        h,
        "<script nonce=\"{nonce}\">\nimport(\"./{slug}/assets/{chat}\").catch(function () {{\n\
         document.getElementById(\"unsupported\").hidden = false;\n}});\n</script>\n</body>\n</html>\n",
        chat = CHAT.versioned("chat.js")
    );
    h
}
/// The avatar (a Mind's picture, else the name's initial), the name and a Mind's headline.
fn header(h: &mut String, published: &Published, name: &str) {
    h.push_str("<header>\n");
    match published.mind().and_then(|m| m.avatar_url.as_ref()) {
        Some(url) => {
            let _ = writeln!(
                h,
                "<img class=\"avatar\" src=\"{}\" alt=\"\" width=\"96\" height=\"96\" referrerpolicy=\"no-referrer\">",
                escape(url.as_str())
            );
        }
        None => {
            let initial = published.name().chars().next().map(|c| c.to_uppercase().to_string()).unwrap_or_default();
            let _ = writeln!(h, "<div class=\"avatar initial\" aria-hidden=\"true\">{}</div>", escape(&initial));
        }
    }
    let _ = writeln!(h, "<h1>{name}</h1>");
    if let Some(headline) = published.mind().and_then(|m| m.headline.as_ref()) {
        let _ = writeln!(h, "<p class=\"headline\">{}</p>", escape(headline.as_str()));
    }
    h.push_str("</header>\n");
}

/// The conversation: the welcome message, suggested questions, the e-mail gate and the message
/// box. The gate and the box start hidden; the script shows the one that applies, so without
/// script the page is the Mind's profile and a notice.
fn chat(h: &mut String, published: &Published, name: &str, stream: Option<&str>, texts: &i18n::Catalogue) {
    let (kind, slug) = (published.kind().prefix(), escape(published.slug().as_str()));
    // Empty: the script calls the visitor routes next to the page, wherever it is served.
    let endpoint = stream.map(|origin| format!("{}/{kind}/{slug}", escape(origin))).unwrap_or_default();
    // A text with the name in it: the name is escaped, the text is ours (escaped too).
    let named = |key: &str| escape(texts.text(key)).replace("{name}", name);
    let plain = |key: &str| escape(texts.text(key));
    let _ = writeln!(
        h,
        "<main id=\"chat\" class=\"chat\" aria-label=\"{label}\" data-i18n-label=\"chat.label\" data-name=\"{name}\" \
         data-show-sources=\"{}\" data-voice=\"{}\" data-email-gate=\"{}\" data-handoff=\"{}\" data-kind=\"{kind}\" \
         data-slug=\"{slug}\" data-endpoint=\"{endpoint}\" data-language=\"{language}\" data-languages=\"{languages}\">",
        published.settings().show_sources,
        published.voice_enabled(),
        published.settings().collect_email_before_chat,
        published.settings().reply.handoff_enabled,
        label = named("chat.label"),
        language = escape(page_language(published)),
        languages = i18n::codes(),
    );
    let _ = writeln!(
        h,
        // A list that is a polite live region (not role="log", which would take away the list
        // its <li> messages belong to).
        "<ol id=\"log\" class=\"log\" aria-live=\"polite\" aria-label=\"{}\" data-i18n-label=\"log.label\">",
        plain("log.label")
    );
    if let Some(welcome) = published.settings().welcome_message.as_ref() {
        let _ = writeln!(
            h,
            "<li class=\"msg assistant welcome\"><div class=\"bubble\" dir=\"auto\">{}</div></li>",
            paragraphs(welcome.as_str())
        );
    }
    let _ = writeln!(
        h,
        "</ol>\n<div id=\"questions\" class=\"questions\" role=\"group\" aria-label=\"{}\" \
         data-i18n-label=\"questions.label\" hidden>",
        plain("questions.label")
    );
    for q in published.settings().suggested_questions.as_slice() {
        let _ = writeln!(h, "<button type=\"button\" class=\"question\" dir=\"auto\">{}</button>", escape(q));
    }
    let _ = write!(
        h,
        "</div>\n\
         <form id=\"gate\" class=\"gate\" novalidate hidden aria-labelledby=\"gate-title\">\n\
         <p id=\"gate-title\" data-i18n=\"gate.intro\">{gate_intro}</p>\n\
         <div class=\"field\"><label for=\"gate-email\" data-i18n=\"gate.email\">{gate_email}</label>\
         <input id=\"gate-email\" type=\"email\" autocomplete=\"email\" maxlength=\"254\" required \
         aria-describedby=\"gate-error\"></div>\n\
         <div class=\"field\"><label for=\"gate-name\" data-i18n=\"gate.name\">{gate_name}</label>\
         <input id=\"gate-name\" type=\"text\" autocomplete=\"name\" maxlength=\"200\"></div>\n\
         <button id=\"gate-start\" class=\"send\" type=\"submit\" data-i18n=\"gate.start\">{gate_start}</button>\n\
         <p id=\"gate-error\" class=\"status error\" role=\"alert\"></p>\n\
         </form>\n\
         <form id=\"composer\" class=\"composer\" hidden>\n\
         <label for=\"message\" class=\"visually-hidden\" data-i18n=\"composer.label\">{message_label}</label>\
         <textarea id=\"message\" rows=\"1\" maxlength=\"4000\" placeholder=\"{placeholder}\" \
         data-i18n-placeholder=\"composer.placeholder\"></textarea>\
         <button id=\"send\" class=\"send\" type=\"submit\" data-i18n=\"composer.send\">{send}</button>\n\
         </form>\n\
         <p id=\"status\" class=\"status\" role=\"status\" aria-live=\"polite\"></p>\n\
         <p id=\"unsupported\" class=\"notice\" data-i18n=\"unsupported\" hidden>{unsupported}</p>\n\
         <noscript><p class=\"notice\">{noscript}</p></noscript>\n\
         </main>\n",
        gate_intro = named("gate.intro"),
        gate_email = plain("gate.email"),
        gate_name = plain("gate.name"),
        gate_start = plain("gate.start"),
        message_label = plain("composer.label"),
        placeholder = named("composer.placeholder"),
        send = plain("composer.send"),
        unsupported = plain("unsupported"),
        noscript = named("noscript"),
    );
}

/// Bio, expertise and links, below the conversation.
fn about(h: &mut String, mind: &Mind, texts: &i18n::Catalogue) {
    if let Some(bio) = &mind.bio {
        let _ = writeln!(
            h,
            "<section aria-labelledby=\"about\">\n<h2 id=\"about\" data-i18n=\"about\">{}</h2>\n{}\n</section>",
            escape(texts.text("about")),
            paragraphs(bio.as_str())
        );
    }
    let areas = mind.expertise_areas.as_slice();
    if !areas.is_empty() {
        let _ = writeln!(
            h,
            "<section aria-labelledby=\"expertise\">\n<h2 id=\"expertise\" data-i18n=\"expertise\">{}</h2>\n\
             <ul class=\"tags\">",
            escape(texts.text("expertise"))
        );
        for area in areas {
            let _ = writeln!(h, "<li dir=\"auto\">{}</li>", escape(area));
        }
        h.push_str("</ul>\n</section>\n");
    }
    let links = mind.social_links.entries();
    if !links.is_empty() {
        let _ = writeln!(
            h,
            "<nav aria-label=\"{}\" data-i18n-label=\"links\">\n<ul class=\"links\">",
            escape(texts.text("links"))
        );
        for (key, url) in links {
            let label = SOCIAL_LABELS.iter().find(|(k, _)| *k == key).map_or(key, |(_, l)| *l);
            // "Website" is a word; the others are names.
            let (label, i18n) =
                if key == "website" { (texts.text("website"), " data-i18n=\"website\"") } else { (label, "") };
            let _ = writeln!(
                h,
                "<li><a href=\"{}\" rel=\"me noopener noreferrer\"{i18n}>{}</a></li>",
                escape(url.as_str()),
                escape(label)
            );
        }
        h.push_str("</ul>\n</nav>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_domain::Timestamp;
    use lore_domain::assistant::RawAssistantPatch;
    use lore_domain::id::WorkspaceId;
    use lore_domain::mind::{Field, MindPatch, NewMind, RawMind};
    use lore_domain::slug::Slug;
    use std::collections::BTreeMap;

    fn mind(raw: RawMind) -> Mind {
        let new = NewMind::parse(&RawMind { name: Field::Value("<Ada & \"Co\">".into()), ..raw.clone() }).unwrap();
        let mut m = Mind::create(WorkspaceId::generate(), new, Slug::parse("s", "ada").unwrap(), Timestamp::now());
        MindPatch::parse(&RawMind { name: Field::Absent, slug: Field::Absent, ..raw }).unwrap().apply(&mut m);
        m
    }

    #[test]
    fn everything_is_escaped() {
        let m = mind(RawMind {
            headline: Field::Value("<script>alert(1)</script>".into()),
            bio: Field::Value("a\n\n<b>bold</b>\nline".into()),
            avatar_url: Field::Value("https://cdn.example.com/a.png?x=1&y=2".into()),
            settings: RawAssistantPatch {
                welcome_message: Field::Value("Hi 'there'".into()),
                suggested_questions: Field::Value(vec!["<img src=x onerror=alert(1)>".into()]),
                ..Default::default()
            },
            ..Default::default()
        });
        let html = render(&Published::Mind(Box::new(m)), "n0nce", false, None, "en");
        assert!(html.contains("<h1>&lt;Ada &amp; &quot;Co&quot;&gt;</h1>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(html.matches("<script").count(), 2, "only the page's own script and its texts");
        assert_eq!(html.matches("<script type=\"application/json\" id=\"lore-texts\">").count(), 1);
        assert!(html.contains("<script nonce=\"n0nce\">"));
        assert!(html.contains(
            "<button type=\"button\" class=\"question\" dir=\"auto\">&lt;img src=x onerror=alert(1)&gt;</button>"
        ));
        assert!(html.contains("<p dir=\"auto\">&lt;b&gt;bold&lt;/b&gt;<br>line</p>"));
        assert!(html.contains("Hi &#39;there&#39;"));
        assert!(html.contains("src=\"https://cdn.example.com/a.png?x=1&amp;y=2\""));
        assert!(html.contains("<style nonce=\"n0nce\">"));
    }

    #[test]
    fn theme_colours_and_fonts_reach_the_style_sheet() {
        let theme: BTreeMap<String, Option<String>> =
            [("primaryColor", "#FF0000"), ("backgroundColor", "#102030"), ("fontFamily", "Inter, serif")]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), Some(v.to_owned())))
                .collect();
        let m = mind(RawMind {
            settings: RawAssistantPatch { theme: Field::Value(theme), ..Default::default() },
            ..Default::default()
        });
        let html = render(&Published::Mind(Box::new(m)), "n", false, None, "en");
        assert!(html.contains("--bg: #102030; --fg: #f9fafb; --accent: #ff0000;"), "{html}");
        assert!(html.contains("--font: \"Inter\", serif, system-ui"));
        assert!(html.contains("content=\"dark\""), "a dark background gets a dark colour scheme");
        let light = mind(RawMind::default());
        let html = render(&Published::Mind(Box::new(light)), "n", false, None, "en");
        assert!(html.contains("--bg: #ffffff; --fg: #111827;"));
        assert!(html.contains("prefers-color-scheme: dark"));
    }

    #[test]
    fn the_page_loads_the_chat_modules_next_to_it_under_its_nonce() {
        CHAT.check(concat!(env!("CARGO_MANIFEST_DIR"), "/src/public_page/js"));
        let html = render(&Published::Mind(Box::new(mind(RawMind::default()))), "n0nce", false, None, "en");
        let v = CHAT.version();
        assert!(html.contains(&format!("<script nonce=\"n0nce\">\nimport(\"./ada/assets/chat.js?v={v}\")")), "{html}");
        for module in CHAT.modules() {
            let preload = format!("<link rel=\"modulepreload\" href=\"./ada/assets/{module}?v={v}\" nonce=\"n0nce\">");
            assert!(html.contains(&preload), "{preload}");
        }
        let served = CHAT.respond("markdown.js", &HeaderMap::new());
        assert_eq!(served.headers()[CONTENT_TYPE], "text/javascript; charset=utf-8");
    }

    #[test]
    fn the_embedded_page_is_the_chat_alone() {
        let m = mind(RawMind {
            headline: Field::Value("Engineer".into()),
            bio: Field::Value("A bio".into()),
            ..Default::default()
        });
        let published = Published::Mind(Box::new(m));
        let full = render(&published, "n", false, None, "en");
        assert!(full.contains("<h1") && full.contains("A bio") && full.contains("<footer"));
        let embedded = render(&published, "n", true, None, "en");
        assert!(embedded.contains("<body class=\"embed\">"));
        assert!(!embedded.contains("<h1") && !embedded.contains("A bio") && !embedded.contains("<footer"));
        assert!(embedded.contains("id=\"chat\"") && embedded.contains("data-kind=\"m\""));
        assert!(embedded.contains("data-endpoint=\"\""), "the page's own origin");
        let streamed = render(&published, "n", true, Some("https://fn.lambda-url.example"), "en");
        assert!(streamed.contains("data-endpoint=\"https://fn.lambda-url.example/m/ada\""), "{streamed}");
    }

    #[test]
    fn fixed_texts_are_rendered_in_the_page_language_with_their_keys() {
        let m = mind(RawMind {
            bio: Field::Value("A bio".into()),
            expertise_areas: Field::Value(vec!["Maths".into()]),
            ..Default::default()
        });
        let published = Published::Mind(Box::new(m));
        let en = render(&published, "n", false, None, "en");
        assert!(en.contains("<html lang=\"en\">"), "{en}");
        assert!(en.contains("placeholder=\"Ask &lt;Ada &amp; &quot;Co&quot;&gt; something\""), "{en}");
        assert!(en.contains("data-i18n=\"composer.send\">Send</button>"));
        assert!(en.contains("data-language=\"auto\""), "the owner's language reaches the script");
        assert!(en.contains("data-languages=\"ar de en es fa fr he it ja nl pt zh\""));
        assert!(en.contains("data-name=\"&lt;Ada &amp; &quot;Co&quot;&gt;\""));

        let fr = render(&published, "n", false, None, "fr");
        assert!(fr.contains("<html lang=\"fr\">"), "{fr}");
        assert!(fr.contains("placeholder=\"Posez une question à &lt;Ada &amp; &quot;Co&quot;&gt;\""), "{fr}");
        assert!(fr.contains("data-i18n=\"composer.send\">Envoyer</button>"));
        assert!(
            fr.contains("aria-label=\"Discuter avec &lt;Ada &amp; &quot;Co&quot;&gt;\" data-i18n-label=\"chat.label\"")
        );
        assert!(fr.contains("data-i18n=\"gate.start\">Commencer</button>"));
        assert!(fr.contains("data-i18n=\"about\">À propos</h2>"));
        assert!(fr.contains("data-i18n=\"expertise\">Domaines d’expertise</h2>"));
        assert!(fr.contains("<footer data-i18n=\"powered\">Propulsé par Lore</footer>"));
        assert!(fr.contains("<noscript><p class=\"notice\">Pour discuter avec &lt;Ada"));
        assert!(!fr.contains(">Send<") && !fr.contains("Start chatting"), "no English left");
        // The script gets the same catalogue, parsed as data.
        let start = fr.find("<script type=\"application/json\" id=\"lore-texts\">").unwrap();
        let block = &fr[start..];
        let json = &block[block.find('>').unwrap() + 1..block.find("</script>").unwrap()];
        let parsed: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(parsed["composer.send"], "Envoyer");

        let ar = render(&published, "n", true, None, "ar");
        assert!(ar.contains("<html lang=\"ar\" dir=\"rtl\">"), "right to left");
        assert!(ar.contains(">إرسال</button>"));
        for rtl in ["he", "fa"] {
            assert!(render(&published, "n", true, None, rtl).contains(&format!("<html lang=\"{rtl}\" dir=\"rtl\">")));
        }
    }

    #[test]
    fn the_owner_language_then_the_asked_one_then_accept_language() {
        let accept = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(ACCEPT_LANGUAGE, HeaderValue::from_str(v).unwrap());
            h
        };
        assert_eq!(render_language("de", Some("fr"), &accept("ja")), "de", "the owner's fixed language wins");
        assert_eq!(render_language("auto", Some("fr"), &accept("ja")), "fr", "then ?lang=");
        assert_eq!(render_language("auto", Some("xx"), &accept("sv, ja-JP;q=0.8, en;q=0.5")), "ja");
        assert_eq!(render_language("sv", None, &accept("pt-BR")), "pt", "an owner's language without texts");
        assert_eq!(render_language("auto", None, &HeaderMap::new()), "en");
        assert_eq!(render_language("auto", Some("FR-ca"), &HeaderMap::new()), "fr");
    }

    #[test]
    fn error_pages_follow_the_visitor_language() {
        let fr = error_html(StatusCode::NOT_FOUND, "fr", "n");
        assert!(fr.contains("<html lang=\"fr\">") && fr.contains("<h1>Discussion introuvable</h1>"), "{fr}");
        assert!(fr.contains("<small>Erreur 404</small>"));
        let ar = error_html(StatusCode::TOO_MANY_REQUESTS, "ar", "n");
        assert!(ar.contains("<html lang=\"ar\" dir=\"rtl\">") && ar.contains("خطأ 429"), "{ar}");
        let en = error_html(StatusCode::INTERNAL_SERVER_ERROR, "en", "n");
        assert!(en.contains("<h1>Something went wrong</h1>") && en.contains("<small>Error 500</small>"));
    }

    #[test]
    fn the_widget_script_carries_the_launcher_texts() {
        let (body, etag) = widget_script();
        assert!(!body.contains(WIDGET_TEXTS), "the texts are in place");
        assert!(body.contains("\"Ouvrir la discussion\"") && body.contains("\"فتح الدردشة\""));
        assert!(etag.starts_with("\"w-"));
        assert!(WIDGET.contains(WIDGET_TEXTS), "widget.js keeps the marker");
    }
}
