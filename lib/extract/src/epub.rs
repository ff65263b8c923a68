//! EPUB: the book's documents in reading order — `META-INF/container.xml` names the package
//! document (OPF), whose spine lists the manifest items in order — each XHTML document read by
//! the HTML extraction (`html.rs`, the crawler's: navigation, scripts and styles dropped). The
//! navigation document is left out (it repeats the chapter titles). The title is the package's
//! `dc:title`. Every part comes through `archive::Package`'s checks.

use crate::archive::{Package, folder_of, resolve};
use crate::markdown::Blocks;
use crate::xml::{Node, Nodes};
use lore_app::ports::{ExtractError, ExtractLimits};

pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "EPUB")?;
    let container = package
        .text("META-INF/container.xml")?
        .ok_or_else(|| ExtractError::Corrupt("the EPUB has no container (META-INF/container.xml)".into()))?;
    let opf_name = rootfile(&container)?;
    let opf = package
        .text(&opf_name)?
        .ok_or_else(|| ExtractError::Corrupt(format!("the EPUB has no package document ({opf_name})")))?;
    let book = Book::read(&opf, &opf_name)?;
    drop(opf);
    let dir = folder_of(&opf_name).to_owned();
    let mut blocks = Blocks::new(limits.max_output_bytes);
    let mut first_title = None;
    for href in &book.reading_order {
        let part = resolve(&dir, &percent_decode(href.split('#').next().unwrap_or_default()));
        let Some(chapter) = package.bytes(&part)? else { continue };
        let room = limits.max_output_bytes.saturating_sub(blocks.len());
        let (text, title) = crate::html::extract(&chapter, room).map_err(|e| match e {
            ExtractError::TooLarge(_) => crate::markdown::too_large(limits.max_output_bytes),
            e => e,
        })?;
        drop(chapter);
        if first_title.is_none() {
            first_title = title;
        }
        blocks.push_markdown(&text)?;
    }
    Ok((blocks.finish(), book.title.or(first_title)))
}

/// `full-path` of the first package document the container names.
fn rootfile(container: &str) -> Result<String, ExtractError> {
    let mut nodes = Nodes::new(container, "META-INF/container.xml");
    while let Some(node) = nodes.next_node().map_err(malformed)? {
        if let Node::Open(tag) = node
            && tag.name == "rootfile"
            && tag.attr("media-type").is_none_or(|t| t == "application/oebps-package+xml")
            && let Some(path) = tag.attr("full-path")
        {
            return Ok(path.trim_start_matches('/').to_owned());
        }
    }
    Err(ExtractError::Corrupt("the EPUB container names no package document".into()))
}

/// What the package document says about the book.
#[derive(Debug, Default, PartialEq)]
struct Book {
    title: Option<String>,
    /// The `href` of each spine item that is an (X)HTML document, in spine order.
    reading_order: Vec<String>,
}

impl Book {
    fn read(opf: &str, part: &str) -> Result<Self, ExtractError> {
        // id → (href, media type, properties)
        let mut manifest: Vec<(String, String, String, String)> = Vec::new();
        let mut spine: Vec<String> = Vec::new();
        let mut title: Option<String> = None;
        let mut in_title = false;
        let mut title_text = String::new();
        let mut nodes = Nodes::new(opf, part);
        while let Some(node) = nodes.next_node().map_err(malformed)? {
            match node {
                Node::Open(tag) => match tag.name.as_str() {
                    "title" if title.is_none() => in_title = true,
                    "item" => {
                        let field = |name: &str| tag.attr(name).unwrap_or_default().to_owned();
                        manifest.push((field("id"), field("href"), field("media-type"), field("properties")));
                    }
                    "itemref" => {
                        if let Some(id) = tag.attr("idref") {
                            spine.push(id.to_owned());
                        }
                    }
                    _ => {}
                },
                Node::Text(text) if in_title => title_text.push_str(&text),
                Node::Close(name) if name == "title" && in_title => {
                    in_title = false;
                    title = Some(crate::text::single_line(&title_text)).filter(|t| !t.is_empty());
                }
                _ => {}
            }
        }
        let reading_order = spine
            .iter()
            .filter_map(|id| manifest.iter().find(|item| &item.0 == id))
            .filter(|(_, href, media_type, properties)| {
                let html = matches!(media_type.as_str(), "application/xhtml+xml" | "text/html")
                    || (media_type.is_empty() && (href.ends_with(".xhtml") || href.ends_with(".html")));
                html && !properties.split_whitespace().any(|p| p == "nav")
            })
            .map(|item| item.1.clone())
            .collect();
        Ok(Self { title, reading_order })
    }
}

/// `%20` and the like in a manifest `href` (a URL) back to the bytes of the entry's name.
fn percent_decode(href: &str) -> String {
    let bytes = href.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(high), Some(low)) =
                (bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex))
        {
            out.push((high * 16 + low) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn malformed(message: String) -> ExtractError {
    ExtractError::Corrupt(format!("the EPUB part {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spine_decides_the_order_and_the_nav_document_is_left_out() {
        let opf = r#"<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0">
          <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title> The   Book </dc:title></metadata>
          <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
            <item id="c2" href="text/ch%202.xhtml" media-type="application/xhtml+xml"/>
            <item id="c1" href="text/ch1.xhtml#start" media-type="application/xhtml+xml"/>
            <item id="img" href="cover.jpg" media-type="image/jpeg"/></manifest>
          <spine><itemref idref="nav"/><itemref idref="c1"/><itemref idref="img"/><itemref idref="c2"/></spine></package>"#;
        let book = Book::read(opf, "content.opf").unwrap();
        assert_eq!(book.title.as_deref(), Some("The Book"));
        assert_eq!(book.reading_order, ["text/ch1.xhtml#start", "text/ch%202.xhtml"]);
        assert_eq!(percent_decode("text/ch%202.xhtml"), "text/ch 2.xhtml");
        assert_eq!(percent_decode("100%"), "100%");
    }
}
