//! Link discovery and content-type helpers for the crawler.

use std::collections::HashSet;

use scraper::{Html, Selector};
use url::Url;

use crate::policy::MAX_URL_LEN;

/// Extensions of files that are not pages; links to them are not followed.
const SKIPPED_EXTENSIONS: &[&str] = &[
    // images
    "png", "jpg", "jpeg", "gif", "webp", "svg", "ico", "bmp", "tif", "tiff", "avif", "heic",
    // audio / video
    "mp3", "mp4", "m4a", "m4v", "wav", "ogg", "oga", "ogv", "webm", "avi", "mov", "mkv", "flac", "aac", "wmv",
    // archives / binaries / packages
    "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "zst", "exe", "msi", "dmg", "pkg", "apk", "deb", "rpm", "iso",
    "bin", "img", "jar", "wasm", // documents (not crawled as pages)
    "pdf", "doc", "docx", "xls", "xlsx", "ppt", "pptx", "odt", "ods", "odp", "rtf", "epub", // assets
    "css", "js", "mjs", "map", "woff", "woff2", "ttf", "otf", "eot",
];

/// Whether the URL's path ends in an extension of a non-page file (`.png`, `.zip`, `.pdf`, …).
pub fn has_skipped_extension(url: &Url) -> bool {
    let last = url.path().rsplit('/').next().unwrap_or("");
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            let ext = ext.to_ascii_lowercase();
            SKIPPED_EXTENSIONS.contains(&ext.as_str())
        }
        _ => false,
    }
}

/// The media type of a `Content-Type` value, lower-cased, parameters dropped.
pub fn media_type(content_type: Option<&str>) -> Option<String> {
    content_type.map(|ct| ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase()).filter(|mt| !mt.is_empty())
}

/// Whether a response is an HTML page: `text/html` / `application/xhtml+xml`, or no
/// `Content-Type` and a body that starts like HTML.
pub fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    match media_type(content_type) {
        Some(mt) => mt == "text/html" || mt == "application/xhtml+xml",
        None => {
            let head: Vec<u8> = body.iter().copied().skip_while(u8::is_ascii_whitespace).take(15).collect();
            let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
            head.starts_with("<!doctype html") || head.starts_with("<html")
        }
    }
}

/// Whether a page found by following a link is kept: HTML, plain text or Markdown.
pub fn is_text_page(content_type: Option<&str>, body: &[u8]) -> bool {
    is_html(content_type, body)
        || matches!(media_type(content_type).as_deref(), Some("text/plain" | "text/markdown" | "text/x-markdown"))
}

/// The http(s) links of a page: `<a href>`, `<iframe src>` and `<frame src>` — also those inside
/// `<noscript>` — resolved against the page URL (or its `<base href>`), fragments dropped,
/// de-duplicated in document order, links to non-page files left out.
///
/// The parser runs with scripting on, as browsers do, so a `<noscript>`'s content is one text
/// node; it is parsed again as a fragment for its links. That is where JavaScript-built sites put
/// their plain-HTML navigation (mdBook: `<noscript><iframe src="toc.html">`).
pub fn extract_links(body: &[u8], page_url: &Url) -> Vec<Url> {
    read_page(body, page_url).links
}

/// The canonical URL a page names with `<link rel="canonical" href="…">` (the first such link),
/// resolved like its links, fragment dropped; `None` without one, or when it is not http(s).
pub fn canonical_url(body: &[u8], page_url: &Url) -> Option<Url> {
    read_page(body, page_url).canonical
}

/// What the crawler reads of an HTML page: its links ([`extract_links`]), its canonical URL
/// ([`canonical_url`]) and whether it asks not to be indexed, from one parse.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PageFacts {
    pub links: Vec<Url>,
    pub canonical: Option<Url>,
    /// `<meta name="robots" content="…noindex…">` (mdBook's print.html and toc.html say so).
    pub noindex: bool,
}

/// Whether a body may name a canonical URL or say `noindex`: a cheap test that spares parsing
/// pages whose links are not followed.
pub(crate) fn mentions_canonical(body: &[u8]) -> bool {
    let has = |word: &[u8]| body.windows(word.len()).any(|w| w.eq_ignore_ascii_case(word));
    has(b"canonical") || has(b"noindex")
}

/// The links and canonical URL of an HTML page.
pub(crate) fn read_page(body: &[u8], page_url: &Url) -> PageFacts {
    let html = String::from_utf8_lossy(body);
    let document = Html::parse_document(&html);
    let base_selector = Selector::parse("base[href]").expect("static selector");
    let link_selector = Selector::parse("a[href], iframe[src], frame[src], noscript").expect("static selector");
    let fragment_selector = Selector::parse("a[href], iframe[src], frame[src]").expect("static selector");
    let canonical_selector = Selector::parse("link[rel][href]").expect("static selector");
    let robots_selector = Selector::parse("meta[name][content]").expect("static selector");

    let base = document
        .select(&base_selector)
        .next()
        .and_then(|b| b.value().attr("href"))
        .and_then(|href| page_url.join(href.trim()).ok())
        .filter(|b| matches!(b.scheme(), "http" | "https"))
        .unwrap_or_else(|| page_url.clone());

    let canonical = document
        .select(&canonical_selector)
        .find(|l| {
            l.value()
                .attr("rel")
                .is_some_and(|rel| rel.split_ascii_whitespace().any(|t| t.eq_ignore_ascii_case("canonical")))
        })
        .and_then(|l| l.value().attr("href"))
        .map(str::trim)
        .filter(|href| !href.is_empty() && href.len() <= MAX_URL_LEN)
        .and_then(|href| base.join(href).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some())
        .map(|mut u| {
            u.set_fragment(None);
            u
        });

    let noindex = document.select(&robots_selector).any(|m| {
        m.value().attr("name").is_some_and(|n| n.trim().eq_ignore_ascii_case("robots"))
            && m.value().attr("content").is_some_and(|c| c.split(',').any(|d| d.trim().eq_ignore_ascii_case("noindex")))
    });

    let mut links = Links { base, seen: HashSet::new(), out: Vec::new() };
    for element in document.select(&link_selector) {
        if element.value().name() == "noscript" {
            let text: String = element.text().collect();
            // Only markup can hold links; a nested <noscript> stays text (one level is enough).
            if text.contains('<') {
                let fragment = Html::parse_fragment(&text);
                for inner in fragment.select(&fragment_selector) {
                    links.add(inner.value());
                }
            }
        } else {
            links.add(element.value());
        }
    }
    PageFacts { links: links.out, canonical, noindex }
}

/// Links found so far.
struct Links {
    base: Url,
    seen: HashSet<String>,
    out: Vec<Url>,
}

impl Links {
    fn add(&mut self, element: &scraper::node::Element) {
        let attr = if element.name() == "a" { "href" } else { "src" };
        let Some(href) = element.attr(attr).map(str::trim) else { return };
        if href.is_empty() || href.starts_with('#') || href.len() > MAX_URL_LEN {
            return;
        }
        let Ok(mut url) = self.base.join(href) else { return };
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            return;
        }
        url.set_fragment(None);
        if has_skipped_extension(&url) {
            return;
        }
        if self.seen.insert(url.as_str().to_string()) {
            self.out.push(url);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn links(html: &str, page: &str) -> Vec<String> {
        extract_links(html.as_bytes(), &u(page)).into_iter().map(String::from).collect()
    }

    #[test]
    fn resolves_filters_and_dedups() {
        let html = r##"<html><body>
            <a href="b">b</a>
            <a href="/c?x=1#frag">c</a>
            <a href="  /b  ">b again</a>
            <a href="#top">self</a>
            <a href="">empty</a>
            <a href="mailto:a@b.c">mail</a>
            <a href="javascript:void(0)">js</a>
            <a href="ftp://h/x">ftp</a>
            <a href="/img/logo.PNG">image</a>
            <a href="/files/report.pdf">pdf</a>
            <a href="https://other.example/x">other</a>
            <a>no href</a>
            <link href="/style">not an anchor</link>
            <a href="/dir.v2/">dotted dir</a>
            <a href="/.well-known">dot file</a>
        </body></html>"##;
        assert_eq!(
            links(html, "http://h/a/page"),
            vec![
                "http://h/a/b",
                "http://h/c?x=1",
                "http://h/b",
                "https://other.example/x",
                "http://h/dir.v2/",
                "http://h/.well-known"
            ]
        );
    }

    #[test]
    fn respects_base_href() {
        let html = r#"<html><head><base href="/sub/"></head><body><a href="x">x</a><a href="/y">y</a></body></html>"#;
        assert_eq!(links(html, "http://h/a/page"), vec!["http://h/sub/x", "http://h/y"]);
        let html = r#"<base href="javascript:alert(1)"><a href="x">x</a>"#;
        assert_eq!(links(html, "http://h/a/page"), vec!["http://h/a/x"]);
    }

    #[test]
    fn frames_and_noscript() {
        let html = r#"<html><head><noscript><a href="/head-nav">n</a></noscript></head><body>
            <a href="/first">first</a>
            <nav><noscript>
                <iframe class="sidebar" src="toc.html"></iframe>
                <a href="/first">again</a>
                <noscript><a href="/nested">nested</a></noscript>
            </noscript></nav>
            <iframe src="https://video.example/embed/1"></iframe>
            <iframe src="/widget.js"></iframe>
            <iframe>no src</iframe>
            <noscript>just text, no markup</noscript>
            <img src="/not-a-link">
            <script src="/app"></script>
            <a href="/last">last</a>
        </body></html>"#;
        assert_eq!(
            links(html, "http://h/book/index.html"),
            vec![
                "http://h/head-nav",
                "http://h/first",
                "http://h/book/toc.html",
                "https://video.example/embed/1",
                "http://h/last"
            ]
        );
        let frameset = r#"<html><frameset><frame src="nav.html"><frame src="main.html"></frameset></html>"#;
        assert_eq!(links(frameset, "http://h/"), vec!["http://h/nav.html", "http://h/main.html"]);
    }

    #[test]
    fn canonical_link() {
        let canonical = |html: &str, page: &str| canonical_url(html.as_bytes(), &u(page)).map(String::from);
        let redirect = r#"<html><head><meta http-equiv="refresh" content="0; URL=ch18-00-oop.html">
            <link rel="canonical" href="ch18-00-oop.html"></head><body><a href="ch18-00-oop.html">x</a></body></html>"#;
        assert_eq!(
            canonical(redirect, "http://h/book/ch17-00-oop.html").as_deref(),
            Some("http://h/book/ch18-00-oop.html")
        );
        let tokens = r#"<link rel="stylesheet" href="/s.css"><LINK REL="Alternate Canonical" HREF=" /a#top ">"#;
        assert_eq!(canonical(tokens, "http://h/x").as_deref(), Some("http://h/a"), "first canonical, any case");
        let based = r#"<base href="/sub/"><link rel="canonical" href="page">"#;
        assert_eq!(canonical(based, "http://h/x").as_deref(), Some("http://h/sub/page"));
        for none in [
            r#"<link rel="canonical">"#,
            r#"<link rel="canonical" href="">"#,
            r#"<link rel="canonical" href="mailto:a@b.c">"#,
            r#"<link rel="canonicalish" href="/a">"#,
            r#"<a rel="canonical" href="/a">a</a>"#,
        ] {
            assert_eq!(canonical(none, "http://h/x"), None, "{none}");
        }
        let facts = read_page(redirect.as_bytes(), &u("http://h/book/ch17-00-oop.html"));
        assert_eq!(facts.links, vec![u("http://h/book/ch18-00-oop.html")]);
        assert!(mentions_canonical(b"<LINK rel=CANONICAL>") && !mentions_canonical(b"<a href=x>"));
        assert!(!facts.noindex);
        let noindex = r#"<meta name="Robots" content="nofollow, NOINDEX"><meta name="viewport" content="noindex">"#;
        assert!(read_page(noindex.as_bytes(), &u("http://h/")).noindex && mentions_canonical(noindex.as_bytes()));
        let other = r#"<meta name="googlebot" content="noindex"><meta name="robots" content="index, follow">"#;
        assert!(!read_page(other.as_bytes(), &u("http://h/")).noindex);
    }

    #[test]
    fn content_types() {
        assert!(is_html(Some("text/html; charset=utf-8"), b""));
        assert!(is_html(Some("Application/XHTML+XML"), b""));
        assert!(!is_html(Some("text/plain"), b"<html>"));
        assert!(is_html(None, b"\n  <!DOCTYPE html><html>"));
        assert!(is_html(None, b"<html lang=en>"));
        assert!(!is_html(None, b"plain words"));
        assert!(is_text_page(Some("text/markdown"), b""));
        assert!(is_text_page(Some("text/plain; charset=utf-8"), b""));
        assert!(!is_text_page(Some("image/png"), b""));
        assert!(!is_text_page(Some("application/pdf"), b""));
    }

    #[test]
    fn skipped_extensions() {
        assert!(has_skipped_extension(&u("http://h/a.zip")));
        assert!(has_skipped_extension(&u("http://h/x/setup.EXE?v=1")));
        assert!(!has_skipped_extension(&u("http://h/page.html")));
        assert!(!has_skipped_extension(&u("http://h/page")));
        assert!(!has_skipped_extension(&u("http://h/")));
        assert!(!has_skipped_extension(&u("http://h/.png")));
    }
}
