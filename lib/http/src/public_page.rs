//! `GET /m/{slug}`: the public page of a published Mind (docs/api.md §8). No key: the page is
//! public while the Mind is published; otherwise 404 `not_found` (the JSON envelope, as every
//! error of the service).
//!
//! A small, self-contained, accessible HTML page: the Mind's name, avatar, headline, bio,
//! welcome message, suggested questions, expertise and links, in its theme's colours. Every
//! value is HTML-escaped; theme values reach the style sheet only as validated hex colours and
//! font names ([`lore_domain::mind::HexColor`], [`lore_domain::mind::FontFamily`]); a
//! Content-Security-Policy allows no script at all and only this response's own style sheet.

use crate::error::ApiError;
use crate::state::ApiState;
use axum::extract::{Path, State};
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
};
use axum::http::{HeaderValue, header::HeaderName};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use lore_domain::mind::{FontFamily, HexColor, Mind, ThemeMode};
use std::fmt::Write;

/// Not part of the API document: an HTML page for people, not an API operation.
pub fn route(router: utoipa_axum::router::OpenApiRouter<ApiState>) -> utoipa_axum::router::OpenApiRouter<ApiState> {
    router.route("/m/{slug}", get(page))
}

async fn page(State(s): State<ApiState>, Path(slug): Path<String>) -> Result<Response, ApiError> {
    let mind = s.app.published_mind(&slug).await?;
    let nonce = nonce();
    let html = render(&mind, &nonce);
    let csp = format!(
        "default-src 'none'; style-src 'nonce-{nonce}'; img-src http: https:; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'"
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
    Ok((headers, html).into_response())
}

fn nonce() -> String {
    let mut bytes = [0u8; 16];
    lore_domain::text::random_bytes(&mut bytes);
    bytes.iter().fold(String::with_capacity(32), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
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

fn palette(mind: &Mind) -> Palette {
    let t = &mind.theme;
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

/// The page's HTML. `nonce` authorises its one style sheet under the page's CSP.
pub fn render(mind: &Mind, nonce: &str) -> String {
    let p = palette(mind);
    let name = escape(mind.name.as_str());
    let mut h = String::with_capacity(8 * 1024);
    let _ = write!(
        h,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"{scheme}\">\n<title>{name}</title>\n",
        scheme = p.scheme
    );
    if let Some(headline) = &mind.headline {
        let _ = writeln!(h, "<meta name=\"description\" content=\"{}\">", escape(headline.as_str()));
    }
    let _ = write!(
        h,
        "<style nonce=\"{nonce}\">\n\
         :root {{ --bg: {bg}; --fg: {fg}; --accent: {accent}; --on-accent: {on_accent}; }}\n\
         {dark}\
         * {{ box-sizing: border-box; }}\n\
         html {{ background: var(--bg); color: var(--fg); font-family: {font}; line-height: 1.55; }}\n\
         body {{ margin: 0; min-height: 100vh; display: flex; flex-direction: column; align-items: center; }}\n\
         .band {{ width: 100%; height: 8px; background: var(--accent); }}\n\
         main {{ width: 100%; max-width: 42rem; padding: 2.5rem 1.25rem 1.5rem; }}\n\
         header {{ text-align: center; }}\n\
         .avatar {{ width: 112px; height: 112px; border-radius: 50%; object-fit: cover; display: block; margin: 0 auto 1rem; \
           border: 3px solid var(--accent); }}\n\
         .initial {{ display: flex; align-items: center; justify-content: center; font-size: 3rem; font-weight: 700; \
           background: var(--accent); color: var(--on-accent); }}\n\
         h1 {{ font-size: 2rem; line-height: 1.2; margin: 0 0 .25rem; overflow-wrap: anywhere; }}\n\
         h2 {{ font-size: 1rem; text-transform: uppercase; letter-spacing: .06em; margin: 2rem 0 .75rem; opacity: .8; }}\n\
         .headline {{ font-size: 1.15rem; margin: 0; opacity: .85; }}\n\
         p {{ margin: 0 0 .75rem; overflow-wrap: anywhere; }}\n\
         .welcome {{ margin-top: 2rem; padding: 1rem 1.25rem; border-radius: 1rem 1rem 1rem .25rem; \
           background: var(--accent); color: var(--on-accent); }}\n\
         .welcome p:last-child {{ margin-bottom: 0; }}\n\
         ul {{ list-style: none; padding: 0; margin: 0; }}\n\
         .questions li {{ border: 2px solid var(--accent); border-radius: .75rem; padding: .6rem .9rem; margin-bottom: .5rem; \
           overflow-wrap: anywhere; }}\n\
         .tags {{ display: flex; flex-wrap: wrap; gap: .5rem; }}\n\
         .tags li {{ border: 1px solid currentColor; border-radius: 999px; padding: .15rem .75rem; font-size: .9rem; }}\n\
         .links {{ display: flex; flex-wrap: wrap; gap: 1rem; justify-content: center; margin-top: 2rem; }}\n\
         a {{ color: inherit; text-decoration-thickness: 2px; text-decoration-color: var(--accent); text-underline-offset: 3px; }}\n\
         a:focus-visible {{ outline: 3px solid var(--accent); outline-offset: 2px; }}\n\
         footer {{ margin-top: auto; padding: 1.5rem; font-size: .85rem; opacity: .7; }}\n\
         </style>\n</head>\n<body>\n<div class=\"band\" aria-hidden=\"true\"></div>\n<main>\n<header>\n",
        bg = p.background,
        fg = p.text,
        accent = p.accent,
        on_accent = p.on_accent,
        font = font_stack(mind.theme.font_family.as_ref()),
        dark = if p.auto_dark {
            "@media (prefers-color-scheme: dark) { :root { --bg: #0f172a; --fg: #f9fafb; } }\n"
        } else {
            ""
        },
    );
    match &mind.avatar_url {
        Some(url) => {
            let _ = writeln!(
                h,
                "<img class=\"avatar\" src=\"{}\" alt=\"\" width=\"112\" height=\"112\" referrerpolicy=\"no-referrer\">",
                escape(url.as_str())
            );
        }
        None => {
            let initial = mind.name.as_str().chars().next().map(|c| c.to_uppercase().to_string()).unwrap_or_default();
            let _ = writeln!(h, "<div class=\"avatar initial\" aria-hidden=\"true\">{}</div>", escape(&initial));
        }
    }
    let _ = writeln!(h, "<h1>{name}</h1>");
    if let Some(headline) = &mind.headline {
        let _ = writeln!(h, "<p class=\"headline\">{}</p>", escape(headline.as_str()));
    }
    h.push_str("</header>\n");
    if let Some(welcome) = &mind.welcome_message {
        let _ = writeln!(
            h,
            "<section class=\"welcome\" aria-label=\"Welcome message\">{}</section>",
            paragraphs(welcome.as_str())
        );
    }
    if let Some(bio) = &mind.bio {
        let _ = writeln!(
            h,
            "<section aria-labelledby=\"about\">\n<h2 id=\"about\">About</h2>\n{}\n</section>",
            paragraphs(bio.as_str())
        );
    }
    let list = |h: &mut String, id: &str, title: &str, class: &str, items: &[String]| {
        if items.is_empty() {
            return;
        }
        let _ = write!(h, "<section aria-labelledby=\"{id}\">\n<h2 id=\"{id}\">{title}</h2>\n<ul class=\"{class}\">\n");
        for item in items {
            let _ = writeln!(h, "<li>{}</li>", escape(item));
        }
        h.push_str("</ul>\n</section>\n");
    };
    list(&mut h, "ask", "Suggested questions", "questions", mind.suggested_questions.as_slice());
    list(&mut h, "expertise", "Expertise", "tags", mind.expertise_areas.as_slice());
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
    h.push_str("</main>\n<footer>Powered by Lore</footer>\n</body>\n</html>\n");
    h
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
        let html = render(&m, "n0nce");
        assert!(html.contains("<h1>&lt;Ada &amp; &quot;Co&quot;&gt;</h1>"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!html.contains("<script"), "no script element at all");
        assert!(html.contains("<li>&lt;img src=x onerror=alert(1)&gt;</li>"));
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
        let html = render(&m, "n");
        assert!(html.contains("--bg: #102030; --fg: #f9fafb; --accent: #ff0000;"), "{html}");
        assert!(html.contains("font-family: \"Inter\", serif, system-ui"));
        assert!(html.contains("content=\"dark\""), "a dark background gets a dark colour scheme");
        let light = mind(RawMind::default());
        let html = render(&light, "n");
        assert!(html.contains("--bg: #ffffff; --fg: #111827;"));
        assert!(html.contains("prefers-color-scheme: dark"));
    }
}
