//! The text of a DOCX that docx-rs does not give us: text boxes (DrawingML `wps:txbx` and VML
//! `v:textbox`, both holding `w:txbxContent`), footnotes, endnotes, headers and footers. Read
//! from the raw XML parts with a small tag scanner, after `check_archive` has vetted every part
//! (sizes, ratios, nesting, well-formedness, the XML and paragraph budgets), and before docx-rs
//! builds its tree, so the part buffers are gone by then.

use crate::docx::unescape_xml;
use lore_app::ports::ExtractError;
use std::collections::HashSet;
use std::io::{Cursor, Read};

/// Relationship parts are read only this far (they list targets, a few KB in real documents).
const MAX_RELS_BYTES: u64 = 1024 * 1024;

/// The paragraphs of each kind of extra text, in document order within each.
#[derive(Default, Debug)]
pub(crate) struct Extras {
    pub(crate) text_boxes: Vec<String>,
    pub(crate) footnotes: Vec<String>,
    pub(crate) endnotes: Vec<String>,
    /// Headers then footers; a paragraph repeated by several of them appears once.
    pub(crate) headers_footers: Vec<String>,
}

/// Reads the extra text of a DOCX whose archive `check_archive` accepted.
pub(crate) fn extras(bytes: &[u8]) -> Result<Extras, ExtractError> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| ExtractError::Corrupt(format!("the DOCX archive is damaged: {e}")))?;
    // The main part is named by the package relationships (Word calls it word/document.xml,
    // other producers do not always).
    let main = read_part(&mut archive, "_rels/.rels", MAX_RELS_BYTES)
        .and_then(|rels| relationship_targets(&rels, "", &["/officeDocument"]).into_iter().next())
        .unwrap_or_else(|| "word/document.xml".to_owned());
    let (dir, file) = main.rsplit_once('/').unwrap_or(("", main.as_str()));
    let rels_name = if dir.is_empty() { format!("_rels/{file}.rels") } else { format!("{dir}/_rels/{file}.rels") };
    let rels = read_part(&mut archive, &rels_name, MAX_RELS_BYTES).unwrap_or_default();

    let mut extras = Extras::default();
    if let Some(xml) = read_part(&mut archive, &main, u64::MAX) {
        extras.text_boxes = part_paragraphs(&xml, Scope::TextBoxes);
    }
    for target in relationship_targets(&rels, dir, &["/footnotes"]) {
        extras.footnotes.extend(
            read_part(&mut archive, &target, u64::MAX).map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default(),
        );
    }
    for target in relationship_targets(&rels, dir, &["/endnotes"]) {
        extras.endnotes.extend(
            read_part(&mut archive, &target, u64::MAX).map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default(),
        );
    }
    let mut seen = HashSet::new();
    for kind in ["/header", "/footer"] {
        for target in relationship_targets(&rels, dir, &[kind]) {
            for paragraph in
                read_part(&mut archive, &target, u64::MAX).map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default()
            {
                if seen.insert(paragraph.clone()) {
                    extras.headers_footers.push(paragraph);
                }
            }
        }
    }
    Ok(extras)
}

/// A part's text, decoded like any XML (BOM, else UTF-8), read up to `cap` bytes. `None` when
/// the archive has no such part. The inflated size was checked against the part's declared
/// size and the budgets by `check_archive`.
fn read_part(archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str, cap: u64) -> Option<String> {
    let entry = archive.by_name(name).ok()?;
    let limit = entry.size().saturating_add(1).min(cap);
    let mut bytes = Vec::new();
    entry.take(limit).read_to_end(&mut bytes).ok()?;
    Some(crate::text::decode(&bytes))
}

/// The targets of the relationships whose type ends with one of `kinds`, as part names
/// (relative to `dir`, or absolute), each once, in the order listed. External targets are
/// skipped.
fn relationship_targets(rels: &str, dir: &str, kinds: &[&str]) -> Vec<String> {
    let mut targets = Vec::new();
    for tag in Tags::new(rels) {
        let Tag::Open { name, attributes, .. } = tag else { continue };
        if local(name) != "Relationship" || attribute(attributes, "TargetMode").as_deref() == Some("External") {
            continue;
        }
        let (Some(kind), Some(target)) = (attribute(attributes, "Type"), attribute(attributes, "Target")) else {
            continue;
        };
        if !kinds.iter().any(|k| kind.ends_with(k)) {
            continue;
        }
        let name = match target.strip_prefix('/') {
            Some(absolute) => absolute.to_owned(),
            None if dir.is_empty() => target,
            None => format!("{dir}/{target}"),
        };
        if !targets.contains(&name) {
            targets.push(name);
        }
    }
    targets
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// All visible text of the part (notes, headers, footers).
    All,
    /// Only text inside text boxes (the main document, whose other text docx-rs gives).
    TextBoxes,
}

/// The visible text of a WordprocessingML part, one string per paragraph: `w:t` runs, tabs and
/// breaks. Left out: `mc:Fallback` (Word stores a text box twice, as DrawingML in
/// `mc:Choice` and as VML in the fallback), tracked deletions and moved-from text, and the
/// separator notes Word keeps in the notes parts (the rules above the notes, no text of
/// the document).
fn part_paragraphs(xml: &str, scope: Scope) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut current = String::new();
    let mut skip = 0usize;
    let mut skipping_note = false;
    let mut text_boxes = 0usize;
    let mut in_text = false;
    let flush = |current: &mut String, paragraphs: &mut Vec<String>| {
        let line = current
            .split('\n')
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
        if !line.is_empty() {
            paragraphs.push(line);
        }
        current.clear();
    };
    for tag in Tags::new(xml) {
        let visible = skip == 0 && (scope == Scope::All || text_boxes > 0);
        match tag {
            Tag::Text(text) => {
                if in_text && visible {
                    current.push_str(&text);
                }
            }
            Tag::Open { name, attributes, empty } => match local(name) {
                "t" if !name.contains(':') || name.starts_with("w:") => in_text = !empty,
                "tab" if visible && attributes.trim().is_empty() => current.push('\t'),
                "br" | "cr" if visible => current.push('\n'),
                "p" => flush(&mut current, &mut paragraphs),
                "txbxContent" if !empty => {
                    flush(&mut current, &mut paragraphs);
                    text_boxes += 1;
                }
                "Fallback" | "moveFrom" | "del" if !empty => skip += 1,
                "footnote" | "endnote" if !empty => {
                    let kind = attribute(attributes, "w:type").unwrap_or_default();
                    skipping_note =
                        matches!(kind.as_str(), "separator" | "continuationSeparator" | "continuationNotice");
                    if skipping_note {
                        skip += 1;
                    }
                }
                _ => {}
            },
            Tag::Close(name) => match local(name) {
                "t" => in_text = false,
                "p" => flush(&mut current, &mut paragraphs),
                "txbxContent" => {
                    flush(&mut current, &mut paragraphs);
                    text_boxes = text_boxes.saturating_sub(1);
                }
                "Fallback" | "moveFrom" | "del" => skip = skip.saturating_sub(1),
                "footnote" | "endnote" if skipping_note => {
                    skipping_note = false;
                    skip = skip.saturating_sub(1);
                }
                _ => {}
            },
        }
    }
    flush(&mut current, &mut paragraphs);
    paragraphs
}

/// An element name without its namespace prefix.
fn local(name: &str) -> &str {
    name.rsplit_once(':').map_or(name, |(_, local)| local)
}

/// The unescaped value of attribute `name` in the attribute text of a tag.
fn attribute(attributes: &str, name: &str) -> Option<String> {
    let mut rest = attributes;
    loop {
        let at = rest.find(name)?;
        let before_ok = at == 0 || rest[..at].ends_with(|c: char| c.is_ascii_whitespace());
        let after = rest[at + name.len()..].trim_start();
        if before_ok && let Some(value) = after.strip_prefix('=') {
            let value = value.trim_start();
            let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
            let end = value[1..].find(quote)?;
            return Some(unescape_xml(&value[1..1 + end]));
        }
        rest = &rest[at + name.len()..];
    }
}

enum Tag<'a> {
    /// Character data, unescaped (CDATA sections verbatim).
    Text(std::borrow::Cow<'a, str>),
    Open {
        name: &'a str,
        attributes: &'a str,
        empty: bool,
    },
    Close(&'a str),
}

/// The tags and text of an XML document, in order; comments, processing instructions and
/// declarations skipped. Not a validating parser: `check_archive` already refused parts that
/// nest too deep or leave elements open, and a malformed rest ends the scan.
struct Tags<'a> {
    rest: &'a str,
}

impl<'a> Tags<'a> {
    fn new(xml: &'a str) -> Self {
        Self { rest: xml }
    }
}

impl<'a> Iterator for Tags<'a> {
    type Item = Tag<'a>;

    fn next(&mut self) -> Option<Tag<'a>> {
        loop {
            if self.rest.is_empty() {
                return None;
            }
            if !self.rest.starts_with('<') {
                let end = self.rest.find('<').unwrap_or(self.rest.len());
                let text = &self.rest[..end];
                self.rest = &self.rest[end..];
                return Some(Tag::Text(if text.contains('&') { unescape_xml(text).into() } else { text.into() }));
            }
            for (open, close) in [("<!--", "-->"), ("<?", "?>")] {
                if self.rest.starts_with(open) {
                    let end = self.rest.find(close).map_or(self.rest.len(), |e| e + close.len());
                    self.rest = &self.rest[end..];
                }
            }
            if let Some(cdata) = self.rest.strip_prefix("<![CDATA[") {
                let end = cdata.find("]]>").unwrap_or(cdata.len());
                self.rest = cdata.get(end + 3..).unwrap_or("");
                return Some(Tag::Text(cdata[..end].into()));
            }
            if self.rest.starts_with("<!") {
                let end = self.rest.find('>').map_or(self.rest.len(), |e| e + 1);
                self.rest = &self.rest[end..];
                continue;
            }
            if !self.rest.starts_with('<') || self.rest.starts_with("<!--") || self.rest.starts_with("<?") {
                continue;
            }
            // A tag: up to the `>` outside quoted attribute values.
            let mut quote = None;
            let mut end = None;
            for (i, c) in self.rest.char_indices().skip(1) {
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, '"' | '\'') => quote = Some(c),
                    (None, '>') => {
                        end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let Some(end) = end else {
                self.rest = "";
                return None;
            };
            let inner = &self.rest[1..end];
            self.rest = &self.rest[end + 1..];
            if let Some(name) = inner.strip_prefix('/') {
                return Some(Tag::Close(name.trim()));
            }
            let (inner, empty) = match inner.strip_suffix('/') {
                Some(inner) => (inner, true),
                None => (inner, false),
            };
            let split = inner.find(|c: char| c.is_ascii_whitespace()).unwrap_or(inner.len());
            return Some(Tag::Open { name: &inner[..split], attributes: &inner[split..], empty });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_boxes_once_without_the_vml_fallback() {
        let xml = r#"<w:document><w:body><w:p><w:r><w:t>Body</w:t></w:r><w:r><mc:AlternateContent>
            <mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t xml:space="preserve">In the </w:t></w:r><w:r><w:t>box</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing></mc:Choice>
            <mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>In the box</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback>
            </mc:AlternateContent></w:r></w:p></w:body></w:document>"#;
        assert_eq!(part_paragraphs(xml, Scope::TextBoxes), ["In the box"]);
        let vml = "<w:p><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>VML &amp; box</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></w:p>";
        assert_eq!(part_paragraphs(vml, Scope::TextBoxes), ["VML & box"]);
    }

    #[test]
    fn notes_skip_separators_deletions_and_tab_stops() {
        let xml = r#"<?xml version="1.0"?><w:footnotes>
            <w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/><w:t>x</w:t></w:r></w:p></w:footnote>
            <w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:t>y</w:t></w:r></w:p></w:footnote>
            <w:footnote w:id="1"><w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>A</w:t><w:tab/><w:t>note</w:t></w:r><w:del><w:r><w:delText>gone</w:delText><w:t>gone</w:t></w:r></w:del></w:p></w:footnote>
            </w:footnotes>"#;
        assert_eq!(part_paragraphs(xml, Scope::All), ["A note"]);
    }

    #[test]
    fn relationship_targets_resolve_against_the_part_folder() {
        let rels = r#"<Relationships><Relationship Id="r1" Type="http://x/relationships/header" Target="header1.xml"/>
            <Relationship Id="r2" Type="http://x/relationships/header" Target="header1.xml"/>
            <Relationship Id="r3" Type="http://x/relationships/header" Target="/word/header2.xml"/>
            <Relationship Id="r4" Type="http://x/relationships/hyperlink" Target="https://example.com" TargetMode="External"/></Relationships>"#;
        assert_eq!(relationship_targets(rels, "word", &["/header"]), ["word/header1.xml", "word/header2.xml"]);
    }
}
