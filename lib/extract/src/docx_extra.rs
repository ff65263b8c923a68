//! The text of a DOCX that docx-rs does not give us: text boxes (DrawingML `wps:txbx` and VML
//! `v:textbox`, both holding `w:txbxContent`), footnotes, endnotes, headers and footers. Read
//! from the raw XML parts with a small tag scanner, and the heading levels of the styles part.
//! The parts come from `archive::Package` (sizes and the content budget checked while inflating),
//! and are read before docx-rs builds its tree, so their buffers are gone by then. The scanner
//! neither recurses nor builds a tree, so it needs no nesting limit.

use crate::archive::Package;
use crate::docx::{heading_level_from_id, unescape_xml};
use lore_app::ports::ExtractError;
use std::collections::{HashMap, HashSet};

/// The paragraphs of each kind of extra text, in document order within each.
#[derive(Default, Debug)]
pub(crate) struct Extras {
    pub(crate) text_boxes: Vec<String>,
    pub(crate) footnotes: Vec<String>,
    pub(crate) endnotes: Vec<String>,
    /// Headers then footers; a paragraph repeated by several of them appears once.
    pub(crate) headers_footers: Vec<String>,
}

/// Reads the extra text of a DOCX: text boxes from its main part `main`, notes, headers and
/// footers from the parts the main part's relationships `rels` name (resolved against `dir`).
pub(crate) fn extras(package: &mut Package, main: &[u8], rels: &str, dir: &str) -> Result<Extras, ExtractError> {
    let mut extras = Extras::default();
    // Decoded only when there is a text box (the main part can be the size of the document).
    if memchr::memmem::find(main, b"txbxContent").is_some() {
        extras.text_boxes = part_paragraphs(&crate::text::decode(main), Scope::TextBoxes);
    }
    for target in relationship_targets(rels, dir, &["/footnotes"]) {
        extras.footnotes.extend(package.text(&target)?.map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default());
    }
    for target in relationship_targets(rels, dir, &["/endnotes"]) {
        extras.endnotes.extend(package.text(&target)?.map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default());
    }
    let mut seen = HashSet::new();
    for kind in ["/header", "/footer"] {
        for target in relationship_targets(rels, dir, &[kind]) {
            for paragraph in package.text(&target)?.map(|x| part_paragraphs(&x, Scope::All)).unwrap_or_default() {
                if seen.insert(paragraph.clone()) {
                    extras.headers_footers.push(paragraph);
                }
            }
        }
    }
    Ok(extras)
}

/// The ids of the paragraph styles (`w:pStyle w:val`) a part uses, each once.
pub(crate) fn paragraph_style_ids(part: &[u8]) -> HashSet<String> {
    let mut ids = HashSet::new();
    for at in memchr::memmem::find_iter(part, b"pStyle") {
        // The rest of the tag: its attributes (a name that only ends in `pStyle` is skipped).
        let after = &part[at + b"pStyle".len()..];
        if !after.first().is_some_and(|b| b.is_ascii_whitespace()) || at == 0 || !matches!(part[at - 1], b'<' | b':') {
            continue;
        }
        let end = memchr::memchr(b'>', after).unwrap_or(after.len());
        if let Some(id) = local_attribute(&String::from_utf8_lossy(&after[..end]), "val") {
            ids.insert(id);
        }
    }
    ids
}

/// What the writer needs from the styles part: the heading level of each paragraph style that
/// is a heading, and the ids of the title styles.
#[derive(Default, Debug, PartialEq)]
pub(crate) struct StyleLevels {
    pub(crate) headings: HashMap<String, usize>,
    pub(crate) titles: Vec<String>,
}

impl StyleLevels {
    /// Reads `w:style` elements: a style is a heading of level N when its name is `heading N`
    /// (Word's built-in names, whatever the language of its display names), else when its id
    /// is `HeadingN`, else when it sets an outline level (`w:outlineLvl` N − 1); levels 1–6.
    /// A title style is the style with id `Title` or a name starting with `Title`.
    pub(crate) fn scan(xml: &str) -> Self {
        let mut levels = Self::default();
        // The style being read: id, name, outline level.
        let mut style: Option<(String, Option<String>, Option<usize>)> = None;
        for tag in Tags::new(xml) {
            match tag {
                Tag::Open { name, attributes, empty } => match (local(name), style.as_mut()) {
                    ("style", _) => {
                        style = Some((local_attribute(attributes, "styleId").unwrap_or_default(), None, None));
                        if empty {
                            levels.add(style.take());
                        }
                    }
                    ("name", Some(current)) => current.1 = local_attribute(attributes, "val"),
                    ("outlineLvl", Some(current)) => {
                        current.2 = local_attribute(attributes, "val").and_then(|v| v.trim().parse::<usize>().ok())
                    }
                    _ => {}
                },
                Tag::Close(name) if local(name) == "style" => levels.add(style.take()),
                _ => {}
            }
        }
        levels
    }

    fn add(&mut self, style: Option<(String, Option<String>, Option<usize>)>) {
        let Some((id, name, outline)) = style else { return };
        if id.is_empty() {
            return;
        }
        let level = name
            .as_deref()
            .and_then(heading_level_from_id)
            .or_else(|| heading_level_from_id(&id))
            .or_else(|| outline.map(|l| l.saturating_add(1)).filter(|l| (1..=6).contains(l)));
        if id == "Title" || name.as_deref().is_some_and(|n| n.starts_with("Title")) {
            self.titles.push(id.clone());
        }
        if let Some(level) = level {
            self.headings.insert(id, level);
        }
    }
}

/// The targets of the relationships whose type ends with one of `kinds`, as part names
/// (relative to `dir`, or absolute), each once, in the order listed. External targets are
/// skipped.
pub(crate) fn relationship_targets(rels: &str, dir: &str, kinds: &[&str]) -> Vec<String> {
    let mut targets = Vec::new();
    for tag in Tags::new(rels) {
        let Tag::Open { name, attributes, .. } = tag else { continue };
        if local(name) != "Relationship" || local_attribute(attributes, "TargetMode").as_deref() == Some("External") {
            continue;
        }
        let (Some(kind), Some(target)) = (local_attribute(attributes, "Type"), local_attribute(attributes, "Target"))
        else {
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
                    let kind = local_attribute(attributes, "type").unwrap_or_default();
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

/// The unescaped value of the attribute whose local name is `local_name`, with any prefix.
fn local_attribute(attributes: &str, local_name: &str) -> Option<String> {
    let mut rest = attributes;
    while let Some(eq) = rest.find('=') {
        let name = rest[..eq].trim();
        let value = rest[eq + 1..].trim_start();
        let quote = value.chars().next().filter(|q| *q == '"' || *q == '\'')?;
        let end = value[1..].find(quote)?;
        if local(name) == local_name {
            return Some(unescape_xml(&value[1..1 + end]));
        }
        rest = &value[end + 2..];
    }
    None
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
/// declarations skipped. Not a validating parser: a malformed rest ends the scan.
struct Tags<'a> {
    rest: &'a str,
}

impl<'a> Tags<'a> {
    fn new(xml: &'a str) -> Self {
        Self { rest: xml }
    }

    /// Moves past the next `end` (to the end when there is none).
    fn skip_past(&mut self, end: &str) {
        let at = self.rest.find(end).map_or(self.rest.len(), |at| at + end.len());
        self.rest = &self.rest[at..];
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
            // Comments, instructions, CDATA and declarations start `<!` or `<?`; anything else
            // is a tag.
            match self.rest.as_bytes().get(1) {
                Some(b'?') => {
                    self.skip_past("?>");
                    continue;
                }
                Some(b'!') => {
                    if self.rest.starts_with("<!--") {
                        self.skip_past("-->");
                    } else if let Some(cdata) = self.rest.strip_prefix("<![CDATA[") {
                        let end = cdata.find("]]>").unwrap_or(cdata.len());
                        self.rest = cdata.get(end + 3..).unwrap_or("");
                        return Some(Tag::Text(cdata[..end].into()));
                    } else {
                        self.skip_past(">");
                    }
                    continue;
                }
                _ => {}
            }
            // A tag: up to the `>` outside quoted attribute values (ASCII bytes, so every index
            // found is a character boundary).
            let bytes = self.rest.as_bytes();
            let mut from = 1;
            let mut end = None;
            while let Some(offset) = memchr::memchr3(b'>', b'"', b'\'', &bytes[from..]) {
                let at = from + offset;
                if bytes[at] == b'>' {
                    end = Some(at);
                    break;
                }
                match memchr::memchr(bytes[at], &bytes[at + 1..]) {
                    Some(close) => from = at + 1 + close + 1,
                    None => break,
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
    fn paragraph_style_ids_are_read_from_p_style_tags() {
        let xml = br#"<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr></w:p><w:p><w:pPr><pStyle val='Titel'/>
            <w:rPr><w:rStyle w:val="Strong"/></w:rPr><w:pStyleX w:val="No"/></w:pPr></w:p><w:pPr><x:pStyle x:val="Heading1"/>"#;
        let mut ids: Vec<_> = paragraph_style_ids(xml).into_iter().collect();
        ids.sort();
        assert_eq!(ids, ["Heading1", "Titel"]);
    }

    #[test]
    fn style_levels_come_from_names_ids_and_outline_levels() {
        let xml = r#"<?xml version="1.0"?><w:styles xmlns:w="x">
            <w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
            <w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>
            <w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="Custom"/></w:style>
            <w:style w:type="paragraph" w:styleId="Chapter"><w:name w:val="Chapter"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
            <w:style w:type="paragraph" w:styleId="Body"><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>
            <w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
            <x:style x:styleId='Heading1'/>
            <w:style w:type="paragraph" w:styleId="Heading7"><w:name w:val="heading 7"/></w:style>
            </w:styles>"#;
        let levels = StyleLevels::scan(xml);
        let mut headings: Vec<_> = levels.headings.iter().map(|(id, level)| (id.as_str(), *level)).collect();
        headings.sort();
        assert_eq!(headings, [("Chapter", 1), ("Heading1", 1), ("Heading3", 3), ("berschrift2", 2)]);
        assert_eq!(levels.titles, ["Titel"]);
        assert_eq!(StyleLevels::scan("<w:styles><w:style w:styleId=\"Heading1\"><w:name"), StyleLevels::default());
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
