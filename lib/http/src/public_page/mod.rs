//! `GET /m/{slug}`: the public page of a published Mind (docs/api.md §8). No key: the page is
//! public while the Mind is published; otherwise 404 `not_found` (the JSON envelope, as every
//! error of the service).
//!
//! A self-contained, accessible chat page: the Mind's name, avatar and headline, the
//! conversation (welcome message, suggested questions as buttons, the e-mail gate, streamed
//! answers with their sources, a speaker button), then bio, expertise and links, in its theme's
//! colours. No build step and no third-party origin: the style sheet (`page.css`) and the script
//! (`chat.js`) are compiled into the binary and inlined, each under this response's CSP nonce;
//! the script talks only to the page's own origin (the visitor routes of docs/api.md §17).
//! Every value is HTML-escaped; theme values reach the style sheet only as validated hex colours
//! and font names ([`lore_domain::mind::HexColor`], [`lore_domain::mind::FontFamily`]).

use crate::error::ApiError;
use crate::public_chat::Client;
use crate::state::ApiState;
use axum::extract::{Path, Query, State};
use axum::http::header::{
    ACCEPT, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, ETAG, IF_NONE_MATCH, REFERRER_POLICY, RETRY_AFTER,
    X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header::HeaderName};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lore_domain::embed::{PublicKind, Published};
use lore_domain::mind::{FontFamily, HexColor, Mind, ThemeMode};
use std::fmt::Write;

/// The Minds' pages, the embedding script and the icon. Not part of the API document: HTML
/// and script for people and browsers, not API operations.
pub(crate) fn mind_routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    router
        .undocumented("/m/{slug}", get(mind_page))
        .undocumented("/widget.js", get(widget))
        .undocumented("/favicon.svg", get(favicon))
}

/// The chatbots' pages.
pub(crate) fn chatbot_routes(router: crate::api_router::ApiRouter) -> crate::api_router::ApiRouter {
    router.undocumented("/c/{slug}", get(chatbot_page))
}

/// `?embed=1`: the page inside the widget's frame, without its profile.
#[derive(Debug, Default, serde::Deserialize)]
struct PageQuery {
    embed: Option<String>,
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
    let embed = query.is_ok_and(|q| matches!(q.embed.as_deref(), Some("1" | "true")));
    let found = async {
        s.app.admit_page_read(client).await?;
        Ok::<_, ApiError>(s.app.published(kind, &slug).await?)
    };
    let published = match found.await {
        Ok(p) => p,
        Err(e) if wants_html(&headers) => return error_page(e.into_response()),
        Err(e) => return e.into_response(),
    };
    let nonce = nonce();
    let stream = s.app.config().stream_url.as_ref().map(|o| o.as_str());
    let html = render(&published, &nonce, embed, stream);
    let csp = format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; connect-src 'self'{}; \
         img-src http: https:; media-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors {}",
        stream.map(|o| format!(" {o}")).unwrap_or_default(),
        published.embed().allowed_origins.frame_ancestors()
    );
    let headers: [(HeaderName, HeaderValue); 5] = [
        (CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
        (
            CONTENT_SECURITY_POLICY,
            HeaderValue::from_str(&csp).unwrap_or(HeaderValue::from_static("default-src 'none'")),
        ),
        (X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (REFERRER_POLICY, HeaderValue::from_static("strict-origin-when-cross-origin")),
        // Unpublishing takes effect at once: caches must ask again.
        (CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (headers, html).into_response()
}

/// A browser asks for HTML (`Accept: text/html…`); an API client asking for JSON, or for
/// nothing in particular, keeps the JSON error envelope.
fn wants_html(headers: &HeaderMap) -> bool {
    let accept = headers.get(ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    accept.contains("text/html") && !accept.trim_start().starts_with("application/json")
}

/// A page for people in place of the JSON envelope of `api`: the same status, `Retry-After`
/// kept.
fn error_page(api: Response) -> Response {
    let status = api.status();
    let (title, text) = match status {
        StatusCode::NOT_FOUND => (
            "Chat not found",
            "There is no chat at this address. It may have been unpublished or renamed; check the link you followed.",
        ),
        StatusCode::TOO_MANY_REQUESTS => {
            ("Too many requests", "This address asked for pages too often. Wait a minute, then reload the page.")
        }
        _ => ("Something went wrong", "The chat could not be shown just now. Please try again in a moment."),
    };
    let nonce = nonce();
    let html = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <style nonce=\"{nonce}\">body {{ font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: flex; \
         align-items: center; justify-content: center; background: #f9fafb; color: #111827; }} \
         main {{ max-width: 28rem; padding: 2rem 1.5rem; text-align: center; }} h1 {{ font-size: 1.5rem; }} \
         @media (prefers-color-scheme: dark) {{ body {{ background: #0f172a; color: #f9fafb; }} }}</style>\n\
         </head>\n<body>\n<main>\n<h1>{title}</h1>\n<p>{text}</p>\n<p><small>Error {code}</small></p>\n</main>\n\
         </body>\n</html>\n",
        code = status.as_u16()
    );
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
    if let Some(retry) = api.headers().get(RETRY_AFTER) {
        h.insert(RETRY_AFTER, retry.clone());
    }
    res
}

/// The embedding script (docs/api.md §18), the same bytes for every site: cached by browsers
/// and CDNs for an hour, then revalidated by its ETag.
const WIDGET: &str = include_str!("widget.js");

fn widget_etag() -> &'static str {
    static ETAG_VALUE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    // FNV-1a of the bytes: a validator, not a security measure.
    ETAG_VALUE.get_or_init(|| {
        let hash =
            WIDGET.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        format!("\"w-{hash:016x}\"")
    })
}

async fn widget(State(s): State<ApiState>, Client(client): Client, headers: HeaderMap) -> Response {
    static_asset(&s, client, &headers, "text/javascript; charset=utf-8", WIDGET, widget_etag()).await
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
        let _ = write!(out, "<p>{}</p>", lines.join("<br>"));
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
    let t = published.theme();
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
/// The chat, inlined under the page's nonce (one response, nothing to version or cache apart).
const SCRIPT: &str = include_str!("chat.js");

/// The page's HTML. `nonce` authorises its one style sheet and its one script under the page's
/// CSP. Settings reach the script as `data-` attributes (booleans only); text is in the HTML,
/// escaped, and the script reads it as text. `embed`: only the chat, for the widget's frame.
/// `stream`: the origin the visitor routes are called at, when not the page's own.
pub fn render(published: &Published, nonce: &str, embed: bool, stream: Option<&str>) -> String {
    let p = palette(published);
    let name = escape(published.name());
    let mind = published.mind();
    let mut h = String::with_capacity(24 * 1024);
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"{scheme}\">\n<title>{name}</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n",
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
        font = font_stack(published.theme().font_family.as_ref()),
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
    chat(&mut h, published, &name, stream);
    if let (false, Some(m)) = (embed, mind) {
        about(&mut h, m);
    }
    h.push_str("</div>\n");
    if !embed {
        h.push_str("<footer>Powered by Lore</footer>\n");
    }
    let _ = write!(h, "<script nonce=\"{nonce}\">\n{SCRIPT}</script>\n</body>\n</html>\n");
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
fn chat(h: &mut String, published: &Published, name: &str, stream: Option<&str>) {
    let (kind, slug) = (published.kind().prefix(), escape(published.slug().as_str()));
    // Empty: the script calls the visitor routes next to the page, wherever it is served.
    let endpoint = stream.map(|origin| format!("{}/{kind}/{slug}", escape(origin))).unwrap_or_default();
    let _ = writeln!(
        h,
        "<main id=\"chat\" class=\"chat\" aria-label=\"Chat with {name}\" data-show-sources=\"{}\" data-voice=\"{}\" \
         data-email-gate=\"{}\" data-handoff=\"{}\" data-kind=\"{kind}\" data-slug=\"{slug}\" \
         data-endpoint=\"{endpoint}\">",
        published.show_sources(),
        published.voice_enabled(),
        published.collect_email_before_chat(),
        published.reply().handoff_enabled,
    );
    h.push_str("<ol id=\"log\" class=\"log\" role=\"log\" aria-live=\"polite\" aria-label=\"Conversation\">\n");
    if let Some(welcome) = published.welcome_message() {
        let _ = writeln!(
            h,
            "<li class=\"msg assistant welcome\"><div class=\"bubble\">{}</div></li>",
            paragraphs(welcome.as_str())
        );
    }
    h.push_str(
        "</ol>\n<div id=\"questions\" class=\"questions\" role=\"group\" aria-label=\"Suggested questions\" hidden>\n",
    );
    for q in published.suggested_questions().as_slice() {
        let _ = writeln!(h, "<button type=\"button\" class=\"question\">{}</button>", escape(q));
    }
    let _ = write!(
        h,
        "</div>\n\
         <form id=\"gate\" class=\"gate\" novalidate hidden aria-labelledby=\"gate-title\">\n\
         <p id=\"gate-title\">Please tell {name} your e-mail address to start the conversation.</p>\n\
         <div class=\"field\"><label for=\"gate-email\">E-mail</label>\
         <input id=\"gate-email\" type=\"email\" autocomplete=\"email\" maxlength=\"254\" required \
         aria-describedby=\"gate-error\"></div>\n\
         <div class=\"field\"><label for=\"gate-name\">Name (optional)</label>\
         <input id=\"gate-name\" type=\"text\" autocomplete=\"name\" maxlength=\"200\"></div>\n\
         <button id=\"gate-start\" class=\"send\" type=\"submit\">Start chatting</button>\n\
         <p id=\"gate-error\" class=\"status error\" role=\"alert\"></p>\n\
         </form>\n\
         <form id=\"composer\" class=\"composer\" hidden>\n\
         <label for=\"message\" class=\"visually-hidden\">Your message</label>\
         <textarea id=\"message\" rows=\"1\" maxlength=\"4000\" placeholder=\"Ask {name} something\"></textarea>\
         <button id=\"send\" class=\"send\" type=\"submit\">Send</button>\n\
         </form>\n\
         <p id=\"status\" class=\"status\" role=\"status\" aria-live=\"polite\"></p>\n\
         <p id=\"unsupported\" class=\"notice\" hidden>This browser cannot chat here; a current browser can.</p>\n\
         <noscript><p class=\"notice\">Chatting with {name} needs JavaScript.</p></noscript>\n\
         </main>\n"
    );
}

/// Bio, expertise and links, below the conversation.
fn about(h: &mut String, mind: &Mind) {
    if let Some(bio) = &mind.bio {
        let _ = writeln!(
            h,
            "<section aria-labelledby=\"about\">\n<h2 id=\"about\">About</h2>\n{}\n</section>",
            paragraphs(bio.as_str())
        );
    }
    let areas = mind.expertise_areas.as_slice();
    if !areas.is_empty() {
        h.push_str(
            "<section aria-labelledby=\"expertise\">\n<h2 id=\"expertise\">Expertise</h2>\n<ul class=\"tags\">\n",
        );
        for area in areas {
            let _ = writeln!(h, "<li>{}</li>", escape(area));
        }
        h.push_str("</ul>\n</section>\n");
    }
    let links = mind.social_links.entries();
    if !links.is_empty() {
        h.push_str("<nav aria-label=\"Links\">\n<ul class=\"links\">\n");
        for (key, url) in links {
            let label = SOCIAL_LABELS.iter().find(|(k, _)| *k == key).map_or(key, |(_, l)| *l);
            let _ = writeln!(
                h,
                "<li><a href=\"{}\" rel=\"me noopener noreferrer\">{}</a></li>",
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
            welcome_message: Field::Value("Hi 'there'".into()),
            suggested_questions: Field::Value(vec!["<img src=x onerror=alert(1)>".into()]),
            avatar_url: Field::Value("https://cdn.example.com/a.png?x=1&y=2".into()),
            ..Default::default()
        });
        let html = render(&Published::Mind(Box::new(m)), "n0nce", false, None);
        assert!(html.contains("<h1>&lt;Ada &amp; &quot;Co&quot;&gt;</h1>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert_eq!(html.matches("<script").count(), 1, "only the page's own script");
        assert!(html.contains("<script nonce=\"n0nce\">"));
        assert!(
            html.contains("<button type=\"button\" class=\"question\">&lt;img src=x onerror=alert(1)&gt;</button>")
        );
        assert!(html.contains("<p>&lt;b&gt;bold&lt;/b&gt;<br>line</p>"));
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
        let m = mind(RawMind { theme: Field::Value(theme), ..Default::default() });
        let html = render(&Published::Mind(Box::new(m)), "n", false, None);
        assert!(html.contains("--bg: #102030; --fg: #f9fafb; --accent: #ff0000;"), "{html}");
        assert!(html.contains("--font: \"Inter\", serif, system-ui"));
        assert!(html.contains("content=\"dark\""), "a dark background gets a dark colour scheme");
        let light = mind(RawMind::default());
        let html = render(&Published::Mind(Box::new(light)), "n", false, None);
        assert!(html.contains("--bg: #ffffff; --fg: #111827;"));
        assert!(html.contains("prefers-color-scheme: dark"));
    }

    #[test]
    fn the_embedded_page_is_the_chat_alone() {
        let m = mind(RawMind {
            headline: Field::Value("Engineer".into()),
            bio: Field::Value("A bio".into()),
            ..Default::default()
        });
        let published = Published::Mind(Box::new(m));
        let full = render(&published, "n", false, None);
        assert!(full.contains("<h1>") && full.contains("A bio") && full.contains("<footer>"));
        let embedded = render(&published, "n", true, None);
        assert!(embedded.contains("<body class=\"embed\">"));
        assert!(!embedded.contains("<h1>") && !embedded.contains("A bio") && !embedded.contains("<footer>"));
        assert!(embedded.contains("id=\"chat\"") && embedded.contains("data-kind=\"m\""));
        assert!(embedded.contains("data-endpoint=\"\""), "the page's own origin");
        let streamed = render(&published, "n", true, Some("https://fn.lambda-url.example"));
        assert!(streamed.contains("data-endpoint=\"https://fn.lambda-url.example/m/ada\""), "{streamed}");
    }
}
