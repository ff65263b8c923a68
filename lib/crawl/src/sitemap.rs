//! Sitemaps (sitemaps.org): XML `<urlset>` and `<sitemapindex>` files, and plain-text files of
//! one URL per line. Parsing only; which sitemaps are fetched, and how, is the crawler's business.

use quick_xml::Reader;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::Event;
use url::Url;

use crate::policy::MAX_URL_LEN;

/// What one sitemap file lists.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SitemapEntries {
    /// `<url><loc>` entries (or the lines of a text sitemap): pages.
    pub pages: Vec<Url>,
    /// `<sitemap><loc>` entries of a sitemap index: more sitemaps.
    pub sitemaps: Vec<Url>,
}

impl SitemapEntries {
    fn len(&self) -> usize {
        self.pages.len() + self.sitemaps.len()
    }
}

/// The http(s) URLs a sitemap lists, resolved against `sitemap_url`, fragments dropped, at most
/// `max_entries` in all, in document order.
///
/// A body starting with `<` is read as XML, anything else as text (one URL per line, other lines
/// ignored). Never fails: a malformed or truncated XML file yields the entries before the first
/// error, so a sitemap cut at the byte cap still gives its first URLs.
pub fn parse_sitemap(body: &[u8], sitemap_url: &Url, max_entries: usize) -> SitemapEntries {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(body.len());
    let mut entries = SitemapEntries::default();
    if max_entries == 0 {
        return entries;
    }
    if body[start..].starts_with(b"<") {
        parse_xml(&body[start..], sitemap_url, max_entries, &mut entries);
    } else {
        for line in String::from_utf8_lossy(body).lines() {
            if entries.len() >= max_entries {
                break;
            }
            let line = line.trim();
            if line.starts_with("http://") || line.starts_with("https://") {
                entries.pages.extend(entry_url(line, sitemap_url));
            }
        }
    }
    entries
}

/// The kind of element a `<loc>` belongs to.
#[derive(Clone, Copy)]
enum Entry {
    Page,
    Sitemap,
}

fn parse_xml(body: &[u8], sitemap_url: &Url, max_entries: usize, entries: &mut SitemapEntries) {
    let mut reader = Reader::from_reader(body);
    // Element nesting: `<loc>` counts only as a direct child of `<url>` / `<sitemap>`, so the
    // `<image:loc>` of image extensions (one level deeper) is not taken for a page.
    let mut depth = 0usize;
    // The open `<url>`/`<sitemap>` and its depth.
    let mut entry: Option<(Entry, usize)> = None;
    // The text of the open `<loc>`, when it is one that counts.
    let mut loc: Option<String> = None;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) => {
                depth += 1;
                match (e.local_name().as_ref(), entry) {
                    (b"url", None) => entry = Some((Entry::Page, depth)),
                    (b"sitemap", None) => entry = Some((Entry::Sitemap, depth)),
                    (b"loc", Some((_, at))) if depth == at + 1 => loc = Some(String::new()),
                    _ => {}
                }
            }
            Ok(Event::End(e)) => {
                match (e.local_name().as_ref(), entry) {
                    (b"loc", Some((kind, at))) if depth == at + 1 => {
                        if let Some(url) = loc.take().and_then(|text| entry_url(text.trim(), sitemap_url)) {
                            match kind {
                                Entry::Page => entries.pages.push(url),
                                Entry::Sitemap => entries.sitemaps.push(url),
                            }
                            if entries.len() >= max_entries {
                                return;
                            }
                        }
                    }
                    (b"url" | b"sitemap", Some((_, at))) if depth == at => entry = None,
                    _ => {}
                }
                depth = depth.saturating_sub(1);
            }
            Ok(Event::Text(t)) => append(&mut loc, t.decode().ok().as_deref()),
            Ok(Event::CData(t)) => append(&mut loc, t.decode().ok().as_deref()),
            Ok(Event::GeneralRef(r)) => {
                let resolved = match r.resolve_char_ref() {
                    Ok(Some(c)) => Some(c.to_string()),
                    Ok(None) => r.decode().ok().and_then(|name| resolve_xml_entity(&name)).map(str::to_string),
                    Err(_) => None,
                };
                append(&mut loc, resolved.as_deref());
            }
            Ok(Event::Eof) => return,
            Err(e) => {
                tracing::debug!(url = %sitemap_url, error = %e, "sitemap: XML error; keeping the entries before it");
                return;
            }
            _ => {}
        }
    }
}

/// Adds text to the open `<loc>`; one longer than any URL we would follow is dropped whole.
fn append(loc: &mut Option<String>, text: Option<&str>) {
    if let (Some(buf), Some(text)) = (loc.as_mut(), text) {
        if buf.len() + text.len() > MAX_URL_LEN {
            *loc = None;
        } else {
            buf.push_str(text);
        }
    }
}

fn entry_url(text: &str, sitemap_url: &Url) -> Option<Url> {
    if text.is_empty() || text.len() > MAX_URL_LEN {
        return None;
    }
    let mut url = sitemap_url.join(text).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://h.test/sitemap.xml").unwrap()
    }

    fn strings(urls: &[Url]) -> Vec<&str> {
        urls.iter().map(Url::as_str).collect()
    }

    #[test]
    fn urlset() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
                    xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
              <url><loc> https://h.test/a </loc><lastmod>2024-01-01</lastmod></url>
              <url><loc>https://h.test/b?x=1&amp;y=2#frag</loc>
                   <image:image><image:loc>https://h.test/pic.jpg</image:loc></image:image></url>
              <url><loc><![CDATA[https://h.test/c]]></loc></url>
              <url><loc>/relative</loc></url>
              <url><loc>ftp://h.test/x</loc></url>
              <url><loc></loc></url>
              <url><loc>https://h.test/&#100;</loc></url>
              <loc>https://h.test/stray</loc>
            </urlset>"#;
        let entries = parse_sitemap(xml, &base(), 100);
        assert_eq!(
            strings(&entries.pages),
            [
                "https://h.test/a",
                "https://h.test/b?x=1&y=2",
                "https://h.test/c",
                "https://h.test/relative",
                "https://h.test/d"
            ]
        );
        assert!(entries.sitemaps.is_empty());
    }

    #[test]
    fn index() {
        let xml = b"\xEF\xBB\xBF<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">
            <sitemap><loc>https://h.test/s1.xml</loc></sitemap>
            <sitemap><loc>https://h.test/s2.txt</loc></sitemap>
            </sitemapindex>";
        let entries = parse_sitemap(xml, &base(), 100);
        assert_eq!(strings(&entries.sitemaps), ["https://h.test/s1.xml", "https://h.test/s2.txt"]);
        assert!(entries.pages.is_empty());
    }

    #[test]
    fn text() {
        let text = b"https://h.test/a\r\n\n  https://h.test/b  \nnot a url\n/relative\nmailto:x@y\n";
        assert_eq!(strings(&parse_sitemap(text, &base(), 100).pages), ["https://h.test/a", "https://h.test/b"]);
    }

    #[test]
    fn bounded_and_malformed() {
        let many: String = (0..50).map(|n| format!("<url><loc>https://h.test/{n}</loc></url>")).collect();
        let xml = format!("<urlset>{many}</urlset>");
        assert_eq!(parse_sitemap(xml.as_bytes(), &base(), 7).pages.len(), 7);
        assert_eq!(parse_sitemap(xml.as_bytes(), &base(), 0).pages.len(), 0);
        // Cut mid-entry (as at the byte cap): the complete entries before the cut are kept.
        let cut = &xml.as_bytes()[..xml.len() / 2];
        let pages = parse_sitemap(cut, &base(), 100).pages;
        assert!((20..=25).contains(&pages.len()), "{}", pages.len());
        // Garbage, mismatched tags, binary, an overlong URL.
        for body in [
            &b"<urlset><url><loc>https://h.test/a</loc></url></wrong><url><loc>https://h.test/b</loc></url>"[..],
            b"<<<<>>>>&&&;",
            b"\x1f\x8b\x08\x00binary",
            b"",
        ] {
            let entries = parse_sitemap(body, &base(), 100);
            assert!(entries.pages.len() <= 1, "{entries:?}");
        }
        let long = format!("<urlset><url><loc>https://h.test/{}</loc></url></urlset>", "x".repeat(MAX_URL_LEN));
        assert!(parse_sitemap(long.as_bytes(), &base(), 100).pages.is_empty());
    }
}
