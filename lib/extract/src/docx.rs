//! DOCX text through docx-rs, after a zip-bomb check of the archive with the zip crate; heading
//! styles, text boxes, notes, headers and footers from the raw parts (`docx_extra.rs`).
//! Output keeps the document's structure in Markdown form: headings as `#`, list items as `- `,
//! tables as Markdown tables (`markdown.rs`). The archive is read through `archive::Package`.

use crate::archive::{Package, folder_of, main_part, relationships_of};
use crate::docx_extra::{StyleLevels, paragraph_style_ids, relationship_targets};
use crate::text::{collapse_whitespace, push_collapsed};
use docx_rs::{
    DocumentChild, FromXML, InsertChild, MoveToChild, Paragraph, ParagraphChild, Run, RunChild, StructuredDataTag,
    StructuredDataTagChild, Table, TableCellContent, TableChild, TableRowChild,
};
use lore_app::ports::{ExtractError, ExtractLimits};
use std::collections::HashMap;

/// XML parts may not nest elements deeper than this. docx-rs parses recursively and overflows
/// its thread's stack (which aborts the process; `catch_unwind` cannot help) at around 600
/// levels in a debug build on a 2 MiB stack. Real documents stay below ~40 levels; Word's own
/// limit of 63 nested tables is beyond this cap only in theory.
const MAX_XML_DEPTH: usize = 128;
/// Rendering does not descend deeper than this (never reached after the depth check).
const MAX_NESTING: usize = 64;

pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "DOCX")?;
    // The main part is named by the package relationships (Word calls it word/document.xml,
    // other producers do not always).
    let main_name = main_part(&mut package, "word/document.xml")?;
    let dir = folder_of(&main_name);
    let rels = package.text(&relationships_of(&main_name))?.unwrap_or_default();
    let Some(main) = part_for_docx_rs(&mut package, &main_name)? else {
        return Err(ExtractError::Corrupt(format!("the DOCX archive has no main document part ({main_name})")));
    };
    // The styles part is read only when a paragraph style's id does not say its role: Word's
    // default template carries 350 KB of styles, which would cost more than a page of text.
    let utf16 = main.starts_with(&[0xff, 0xfe]) || main.starts_with(&[0xfe, 0xff]);
    let styles_needed = utf16 || paragraph_style_ids(&main).iter().any(|id| !id_names_its_role(id));
    let styles = match relationship_targets(&rels, dir, &["/styles"]).first() {
        Some(part) if styles_needed => package.text(part)?.map(|xml| StyleLevels::scan(&xml)).unwrap_or_default(),
        _ => StyleLevels::default(),
    };
    let extras = crate::docx_extra::extras(&mut package, &main, &rels, dir)?;
    let core_title = package.core_title();
    // docx-rs reads the main part only: the text is there, and the other parts it would read
    // (styles, numbering, settings, themes, pictures) cost more than the text and give nothing
    // the writer uses (docs/decisions.md, "DOCX: each part read once, and only if it is used").
    let document = docx_rs::Document::from_xml(&main[..])
        .map_err(|e| ExtractError::Corrupt(format!("the DOCX document is damaged: {e}")))?;
    drop(main);
    let mut writer = Writer::new(styles, limits.max_output_bytes);
    for child in &document.children {
        writer.document_child(child)?;
    }
    // After the body, each kind in turn: what a reader meets beside the running text (text
    // boxes), then below it (notes), then around every page (headers and footers).
    for paragraph in
        extras.text_boxes.iter().chain(&extras.footnotes).chain(&extras.endnotes).chain(&extras.headers_footers)
    {
        writer.push_block(Block::Paragraph, paragraph)?;
    }
    let Writer { out, title_paragraph, .. } = writer;
    Ok((collapse_whitespace(&out), core_title.or(title_paragraph)))
}

/// The part docx-rs parses, with every check of `archive::Package` (4–6): besides the sizes,
/// it nests elements at most `MAX_XML_DEPTH` deep, closes every element it opens (docx-rs hangs
/// on a part that ends inside an element) and holds at most `max_paragraphs` paragraphs:
/// docx-rs keeps the whole document tree in memory, ~1 KB per one-word paragraph, so 18 MB of
/// text-like XML (well inside the ratio check) would cost it ~2 GB. `None` when there is no
/// such part.
fn part_for_docx_rs(package: &mut Package, name: &str) -> Result<Option<Vec<u8>>, ExtractError> {
    let mut scanner = DepthScanner::new(MAX_XML_DEPTH);
    scanner.max_paragraphs = package.limits.max_paragraphs;
    // XML whatever its first bytes: quick-xml reads text before the first tag, so a part does
    // not have to start with `<` to be parsed (found by fuzzing).
    scanner.xml_by_name = true;
    package.read(name, Some(scanner))
}

// ------------------------------------------------------------------------------ nesting check

/// A sink that follows the element nesting of XML bytes (tags, quoted attribute values,
/// self-closing tags, comments/PIs/declarations) without building anything, and fails once the
/// nesting passes a limit. Bytes that do not start like XML (after a byte-order mark and
/// whitespace) are only counted.
pub(crate) struct DepthScanner {
    content: Content,
    state: ScanState,
    depth: usize,
    pub(crate) max_depth: usize,
    pub(crate) too_deep: bool,
    /// The names of the open elements (at most `MAX_NAME_BYTES` of each), and the name of the
    /// tag being read while `naming`.
    open: Vec<Vec<u8>>,
    name: Vec<u8>,
    naming: bool,
    /// An end tag that does not close the innermost open element: the XML reader of docx-rs
    /// fails there, and some of its element readers skip such failures and read on to the end
    /// of the part, where they loop forever.
    mismatched: bool,
    /// Scan as XML even when the bytes do not start like XML.
    xml_by_name: bool,
    /// The first byte of what may be a UTF-16 byte-order mark.
    bom_half: Option<u8>,
    /// Paragraph elements (`p` in any namespace) seen, and how many make the scan stop.
    pub(crate) paragraphs: u64,
    max_paragraphs: u64,
}

/// Element names are compared on this many bytes.
const MAX_NAME_BYTES: usize = 256;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Content {
    Undecided,
    Xml,
    /// UTF-16 XML: the NUL halves of ASCII characters are skipped.
    Xml16,
    NotXml,
}

#[derive(Clone, Copy)]
enum ScanState {
    Text,
    TagStart,
    OpenTag {
        slash: bool,
        quote: Option<u8>,
    },
    CloseTag,
    /// After `<!`: a comment if `--` follows, a CDATA section if `[` does, else a declaration.
    Bang,
    BangDash,
    Comment {
        dashes: u8,
    },
    /// Ends at `]]>`.
    CData {
        brackets: u8,
    },
    /// `<!DOCTYPE …>` and the like: ends at the `>` that balances the `<`s inside (as the XML
    /// reader of docx-rs counts them), so markup in an internal subset is not taken for elements.
    Declaration {
        open: u32,
    },
    /// A processing instruction: ends at `?>`.
    Instruction {
        question: bool,
    },
}

impl DepthScanner {
    fn new(max_depth: usize) -> Self {
        Self {
            content: Content::Undecided,
            state: ScanState::Text,
            depth: 0,
            max_depth,
            too_deep: false,
            open: Vec::new(),
            name: Vec::new(),
            naming: false,
            mismatched: false,
            xml_by_name: false,
            bom_half: None,
            paragraphs: 0,
            max_paragraphs: u64::MAX,
        }
    }

    fn name_byte(&mut self, b: u8) {
        if self.name.len() < MAX_NAME_BYTES {
            self.name.push(b);
        }
    }

    /// Whether the XML seen so far leaves an element (or a tag, comment, …) open.
    pub(crate) fn ends_inside_an_element(&self) -> bool {
        matches!(self.content, Content::Xml | Content::Xml16)
            && (self.depth > 0 || self.mismatched || !matches!(self.state, ScanState::Text))
    }
}

/// What one byte says of a part before it is scanned: not XML (stop reading), nothing to scan
/// (a byte-order mark, leading white space, UTF-16's zero bytes), or a byte of XML.
enum Sniff {
    NotXml,
    Skip,
    Scan,
}

impl DepthScanner {
    /// Decides, from its first bytes, whether the part is XML (UTF-8 or UTF-16) at all.
    fn sniff(&mut self, b: u8) -> Sniff {
        match self.content {
            Content::NotXml => Sniff::NotXml,
            // A byte-order mark half-read: only `FF FE` / `FE FF` make UTF-16 (a JPEG starts
            // `FF D8`, and is no XML).
            Content::Undecided if self.bom_half.is_some() => {
                let first = self.bom_half.take().unwrap_or_default();
                if matches!((first, b), (0xff, 0xfe) | (0xfe, 0xff)) {
                    self.content = Content::Xml16;
                    return Sniff::Skip;
                }
                if self.xml_by_name {
                    self.content = Content::Xml;
                    return Sniff::Skip;
                }
                self.content = Content::NotXml;
                Sniff::NotXml
            }
            Content::Undecided => match b {
                0xef | 0xbb | 0xbf | 0x00 => Sniff::Skip,
                0xff | 0xfe => {
                    self.bom_half = Some(b);
                    Sniff::Skip
                }
                b if b.is_ascii_whitespace() => Sniff::Skip,
                b'<' => {
                    self.content = Content::Xml;
                    Sniff::Scan
                }
                _ if self.xml_by_name => {
                    self.content = Content::Xml;
                    Sniff::Skip
                }
                _ => {
                    self.content = Content::NotXml;
                    Sniff::NotXml
                }
            },
            Content::Xml16 if b == 0 => Sniff::Skip,
            Content::Xml | Content::Xml16 => Sniff::Scan,
        }
    }

    /// The scanner's state after byte `b` of XML, counting the depth, paragraphs and open tags
    /// it is bounded by.
    fn next_state(&mut self, b: u8) -> std::io::Result<ScanState> {
        Ok(match self.state {
            ScanState::Text if b == b'<' => ScanState::TagStart,
            ScanState::Text => ScanState::Text,
            ScanState::TagStart => match b {
                b'/' => {
                    self.name.clear();
                    ScanState::CloseTag
                }
                b'!' => ScanState::Bang,
                b'?' => ScanState::Instruction { question: false },
                _ => {
                    self.depth += 1;
                    if self.depth > self.max_depth {
                        self.too_deep = true;
                        return Err(std::io::Error::other("XML nested too deeply"));
                    }
                    self.name.clear();
                    self.name_byte(b);
                    self.naming = true;
                    ScanState::OpenTag { slash: false, quote: None }
                }
            },
            ScanState::OpenTag { slash, quote: Some(q) } => {
                ScanState::OpenTag { slash, quote: if b == q { None } else { Some(q) } }
            }
            ScanState::OpenTag { .. } if self.naming && !(b.is_ascii_whitespace() || b == b'/' || b == b'>') => {
                self.name_byte(b);
                self.state
            }
            ScanState::OpenTag { slash, quote: None } => match b {
                _ if self.naming => {
                    self.naming = false;
                    if self.name == b"p" || self.name.ends_with(b":p") {
                        self.paragraphs += 1;
                        if self.paragraphs > self.max_paragraphs {
                            return Err(std::io::Error::other("too many paragraphs"));
                        }
                    }
                    self.open.push(std::mem::take(&mut self.name));
                    match b {
                        b'/' => ScanState::OpenTag { slash: true, quote: None },
                        b'>' => ScanState::Text,
                        _ => ScanState::OpenTag { slash: false, quote: None },
                    }
                }
                b'"' | b'\'' => ScanState::OpenTag { slash: false, quote: Some(b) },
                b'/' => ScanState::OpenTag { slash: true, quote: None },
                b'>' => {
                    if slash {
                        self.depth = self.depth.saturating_sub(1);
                        self.open.pop();
                    }
                    ScanState::Text
                }
                b if b.is_ascii_whitespace() => ScanState::OpenTag { slash, quote: None },
                _ => ScanState::OpenTag { slash: false, quote: None },
            },
            ScanState::CloseTag if b == b'>' => {
                self.depth = self.depth.saturating_sub(1);
                let name = self.name.trim_ascii_end();
                if self.open.pop().is_none_or(|open| open != name) {
                    self.mismatched = true;
                }
                ScanState::Text
            }
            ScanState::CloseTag => {
                self.name_byte(b);
                ScanState::CloseTag
            }
            ScanState::Bang if b == b'-' => ScanState::BangDash,
            ScanState::BangDash if b == b'-' => ScanState::Comment { dashes: 0 },
            ScanState::Bang if b == b'[' => ScanState::CData { brackets: 0 },
            ScanState::Bang | ScanState::BangDash if b == b'>' => ScanState::Text,
            ScanState::Bang | ScanState::BangDash if b == b'<' => ScanState::Declaration { open: 1 },
            ScanState::Bang | ScanState::BangDash => ScanState::Declaration { open: 0 },
            ScanState::Comment { dashes } => match b {
                b'-' => ScanState::Comment { dashes: dashes.saturating_add(1) },
                b'>' if dashes >= 2 => ScanState::Text,
                _ => ScanState::Comment { dashes: 0 },
            },
            ScanState::CData { brackets } => match b {
                b']' => ScanState::CData { brackets: brackets.saturating_add(1) },
                b'>' if brackets >= 2 => ScanState::Text,
                _ => ScanState::CData { brackets: 0 },
            },
            ScanState::Declaration { open } => match b {
                b'<' => ScanState::Declaration { open: open.saturating_add(1) },
                b'>' if open == 0 => ScanState::Text,
                b'>' => ScanState::Declaration { open: open - 1 },
                _ => ScanState::Declaration { open },
            },
            ScanState::Instruction { .. } if b == b'?' => ScanState::Instruction { question: true },
            ScanState::Instruction { question: true } if b == b'>' => ScanState::Text,
            ScanState::Instruction { .. } => ScanState::Instruction { question: false },
        })
    }
}

impl std::io::Write for DepthScanner {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut at = 0;
        while at < data.len() {
            // Fast paths for UTF-8 XML: text up to the next tag and quoted attribute values
            // are most of a part's bytes, and change nothing until their end byte.
            if self.content == Content::Xml {
                let skip = match self.state {
                    ScanState::Text => Some(memchr::memchr(b'<', &data[at..])),
                    ScanState::OpenTag { quote: Some(q), .. } => Some(memchr::memchr(q, &data[at..])),
                    _ => None,
                };
                match skip {
                    Some(Some(offset)) => at += offset,
                    Some(None) => break,
                    None => {}
                }
            }
            let b = data[at];
            at += 1;
            match self.sniff(b) {
                Sniff::NotXml => return Ok(data.len()),
                Sniff::Skip => continue,
                Sniff::Scan => {}
            }
            self.state = self.next_state(b)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The five predefined entities and numeric character references.
pub(crate) fn unescape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .map(|hex| u32::from_str_radix(hex, 16))
                .or_else(|| entity.strip_prefix('#').map(str::parse::<u32>))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

// ------------------------------------------------------------------------------ rendering

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Paragraph,
    ListItem,
}

/// Builds the Markdown-ish text block by block, refusing to grow past the output cap.
struct Writer {
    out: String,
    last: Option<Block>,
    max_output_bytes: usize,
    /// Heading level by paragraph style id.
    heading_styles: HashMap<String, usize>,
    /// Paragraph style ids of the "Title" style.
    title_styles: Vec<String>,
    /// The first paragraph in the Title style: the title when core properties have none.
    title_paragraph: Option<String>,
}

impl Writer {
    fn new(styles: StyleLevels, max_output_bytes: usize) -> Self {
        let StyleLevels { headings: heading_styles, titles: title_styles } = styles;
        Self { out: String::new(), last: None, max_output_bytes, heading_styles, title_styles, title_paragraph: None }
    }

    fn push_block(&mut self, kind: Block, text: &str) -> Result<(), ExtractError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        if self.last.is_some() {
            let same_run = self.last == Some(kind) && kind != Block::Paragraph;
            self.out.push_str(if same_run { "\n" } else { "\n\n" });
        }
        self.out.push_str(text);
        self.last = Some(kind);
        if self.out.len() > self.max_output_bytes {
            return Err(ExtractError::TooLarge(format!("the extracted text exceeds {} bytes", self.max_output_bytes)));
        }
        Ok(())
    }

    fn document_child(&mut self, child: &DocumentChild) -> Result<(), ExtractError> {
        match child {
            DocumentChild::Paragraph(p) => self.paragraph(p),
            DocumentChild::Table(t) => self.table(t, 0),
            DocumentChild::StructuredDataTag(sdt) => self.sdt(sdt, 0),
            _ => Ok(()),
        }
    }

    fn paragraph(&mut self, p: &Paragraph) -> Result<(), ExtractError> {
        let text = paragraph_text(p);
        let style = p.property.style.as_ref().map(|s| s.val.as_str());
        let title = style.is_some_and(|s| s == "Title" || self.title_styles.iter().any(|t| t == s));
        let level = if title {
            Some(1)
        } else {
            style
                .and_then(|s| self.heading_styles.get(s).copied().or_else(|| heading_level_from_id(s)))
                .or_else(|| p.property.outline_lvl.as_ref().map(|l| l.v + 1).filter(|l| (1..=6).contains(l)))
        };
        let (kind, prefix) = match level {
            Some(level) => (Block::Paragraph, &"###### "[6 - level.min(6)..]),
            None if is_list_paragraph(p) => (Block::ListItem, "- "),
            None => (Block::Paragraph, ""),
        };
        // Headings are one line; other paragraphs keep their explicit line breaks.
        let written = self.push_text_block(kind, prefix, &text, level.is_none())?;
        if title && self.title_paragraph.is_none() {
            self.title_paragraph = written.map(|range| self.out[range].to_owned());
        }
        Ok(())
    }

    /// Appends a block: `prefix`, then `text` with its whitespace collapsed as it is copied
    /// (line breaks kept when `keep_breaks`). Nothing when `text` has nothing visible. Where
    /// the text went in the output.
    fn push_text_block(
        &mut self,
        kind: Block,
        prefix: &str,
        text: &str,
        keep_breaks: bool,
    ) -> Result<Option<std::ops::Range<usize>>, ExtractError> {
        let mark = self.out.len();
        if self.last.is_some() {
            let same_run = self.last == Some(kind) && kind != Block::Paragraph;
            self.out.push_str(if same_run { "\n" } else { "\n\n" });
        }
        self.out.push_str(prefix);
        let start = self.out.len();
        if !push_collapsed(&mut self.out, text, keep_breaks) {
            self.out.truncate(mark);
            return Ok(None);
        }
        self.last = Some(kind);
        if self.out.len() > self.max_output_bytes {
            return Err(ExtractError::TooLarge(format!("the extracted text exceeds {} bytes", self.max_output_bytes)));
        }
        Ok(Some(start..self.out.len()))
    }

    /// A table as a Markdown table (`markdown.rs`): its first row with text is the header; a
    /// cell's paragraphs are kept apart by `<br>`; nested tables are flattened into their cell;
    /// a table of one cell (a layout box) is its text.
    fn table(&mut self, table: &Table, depth: usize) -> Result<(), ExtractError> {
        let rows: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|TableChild::TableRow(row)| {
                row.cells
                    .iter()
                    .map(|TableRowChild::TableCell(cell)| {
                        let mut parts = Vec::new();
                        for content in &cell.children {
                            cell_content_text(content, depth + 1, &mut parts);
                        }
                        parts.join("\n")
                    })
                    .collect()
            })
            .collect();
        self.push_block(Block::Paragraph, &crate::markdown::document_table(&rows))
    }

    fn sdt(&mut self, sdt: &StructuredDataTag, depth: usize) -> Result<(), ExtractError> {
        if depth > MAX_NESTING {
            return Ok(());
        }
        let mut inline = String::new();
        for child in &sdt.children {
            match child {
                StructuredDataTagChild::Paragraph(p) => self.paragraph(p)?,
                StructuredDataTagChild::Table(t) => self.table(t, depth + 1)?,
                StructuredDataTagChild::StructuredDataTag(inner) => self.sdt(inner, depth + 1)?,
                StructuredDataTagChild::Run(run) => run_text(run, &mut inline),
                _ => {}
            }
        }
        self.push_block(Block::Paragraph, &single_line_keep_breaks(&inline))
    }
}

/// Text of a table cell (paragraphs and nested tables flattened onto one line).
fn cell_content_text(content: &TableCellContent, depth: usize, parts: &mut Vec<String>) {
    if depth > MAX_NESTING {
        return;
    }
    match content {
        TableCellContent::Paragraph(p) => parts.push(paragraph_text(p)),
        TableCellContent::Table(t) => nested_table_text(t, depth + 1, parts),
        TableCellContent::StructuredDataTag(sdt) => sdt_text(sdt, depth + 1, parts),
        TableCellContent::TableOfContents(_) => {}
    }
}

/// A table inside a table cell, flattened into the cell.
fn nested_table_text(table: &Table, depth: usize, parts: &mut Vec<String>) {
    if depth > MAX_NESTING {
        return;
    }
    for TableChild::TableRow(row) in &table.rows {
        for TableRowChild::TableCell(cell) in &row.cells {
            for inner in &cell.children {
                cell_content_text(inner, depth + 1, parts);
            }
        }
    }
}

fn sdt_text(sdt: &StructuredDataTag, depth: usize, parts: &mut Vec<String>) {
    if depth > MAX_NESTING {
        return;
    }
    for child in &sdt.children {
        match child {
            StructuredDataTagChild::Paragraph(p) => parts.push(paragraph_text(p)),
            StructuredDataTagChild::Run(run) => {
                let mut text = String::new();
                run_text(run, &mut text);
                parts.push(text);
            }
            StructuredDataTagChild::Table(t) => nested_table_text(t, depth + 1, parts),
            StructuredDataTagChild::StructuredDataTag(inner) => sdt_text(inner, depth + 1, parts),
            _ => {}
        }
    }
}

/// The visible text of a paragraph: runs, insertions, moved-to text, hyperlinks and inline
/// content controls; deleted and moved-from text is left out.
fn paragraph_text(p: &Paragraph) -> String {
    let mut text = String::new();
    paragraph_children_text(&p.children, &mut text, 0);
    text
}

fn paragraph_children_text(children: &[ParagraphChild], text: &mut String, depth: usize) {
    if depth > MAX_NESTING {
        return;
    }
    for child in children {
        match child {
            ParagraphChild::Run(run) => run_text(run, text),
            ParagraphChild::Insert(insert) => {
                for child in &insert.children {
                    if let InsertChild::Run(run) = child {
                        run_text(run, text);
                    }
                }
            }
            ParagraphChild::MoveTo(moved) => {
                for child in &moved.children {
                    if let MoveToChild::Run(run) = child {
                        run_text(run, text);
                    }
                }
            }
            ParagraphChild::Hyperlink(link) => paragraph_children_text(&link.children, text, depth + 1),
            ParagraphChild::StructuredDataTag(sdt) => {
                for child in &sdt.children {
                    match child {
                        StructuredDataTagChild::Run(run) => run_text(run, text),
                        StructuredDataTagChild::Paragraph(p) => {
                            paragraph_children_text(&p.children, text, depth + 1);
                        }
                        _ => {}
                    }
                }
            }
            // Tracked deletions and moved-from text are not part of the current text.
            _ => {}
        }
    }
}

fn run_text(run: &Run, text: &mut String) {
    for child in &run.children {
        match child {
            RunChild::Text(t) => text.push_str(&t.text),
            RunChild::Tab(_) | RunChild::PTab(_) => text.push('\t'),
            RunChild::Break(_) | RunChild::CarriageReturn(_) => text.push('\n'),
            _ => {}
        }
    }
}

/// Whitespace collapsed within lines; explicit line breaks (`w:br`) kept.
fn single_line_keep_breaks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_collapsed(&mut out, text, true);
    out
}

/// Whether a paragraph style id tells the writer all it needs without the styles part: the
/// ids of Word's built-in styles that the writer treats by id (headings, the title, lists) and
/// `Normal`. A localised Word writes other ids (`berschrift1`, `Titre1`) and those, like custom
/// styles, are looked up in the styles part.
fn id_names_its_role(id: &str) -> bool {
    heading_level_from_id(id).is_some()
        || matches!(id, "Title" | "Normal")
        || id.to_ascii_lowercase().starts_with("list")
}

/// `Heading1` … `Heading6` (any case, optional space).
pub(crate) fn heading_level_from_id(style_id: &str) -> Option<usize> {
    let lower = style_id.to_ascii_lowercase();
    let digits = lower.strip_prefix("heading")?.trim_start();
    let level: usize = digits.parse().ok()?;
    (1..=6).contains(&level).then_some(level)
}

/// A paragraph of a numbered or bulleted list: it has a numbering reference (id 0 means
/// "numbering removed"), or a list style.
fn is_list_paragraph(p: &Paragraph) -> bool {
    let numbered = p.property.numbering_property.as_ref().and_then(|n| n.id.as_ref()).is_some_and(|id| id.id != 0);
    let list_style = p.property.style.as_ref().is_some_and(|s| s.val.to_ascii_lowercase().starts_with("list"));
    numbered || list_style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescapes_entities_and_character_references() {
        assert_eq!(unescape_xml("R&amp;D &lt;2024&gt; &#233;t&#xE9; &bogus; &"), "R&D <2024> été &bogus; &");
    }

    fn max_depth(xml: &[u8]) -> Result<(), usize> {
        use std::io::Write;
        for limit in 0..64 {
            let mut scanner = DepthScanner::new(limit);
            // Byte by byte: the state must survive chunk boundaries.
            if xml.chunks(1).all(|b| scanner.write_all(b).is_ok()) {
                return if limit == 0 { Ok(()) } else { Err(limit) };
            }
        }
        Err(usize::MAX)
    }

    #[test]
    fn depth_scanner_follows_xml_nesting() {
        assert_eq!(max_depth(b"<?xml version=\"1.0\"?><a><b/><b><c x=\"/>\" y='>'/></b></a>"), Err(3));
        assert_eq!(max_depth(b"<a><!-- <x> -> <y><z> --><b></b></a>"), Err(2));
        assert_eq!(max_depth(b"<!DOCTYPE a><a><![CDATA[ x ]]><b/></a>"), Err(2));
        assert_eq!(max_depth(b"<a/><a/><a/>"), Err(1));
        assert_eq!(max_depth(b"text only <a><b><c>"), Ok(()), "not XML: not scanned");
        assert_eq!(max_depth(b"\x89PNG\r\n<<<<<<<<<<"), Ok(()), "binary: not scanned");
        assert_eq!(max_depth(b"\xef\xbb\xbf \n<a><b/></a>"), Err(2), "after a UTF-8 BOM");
        let utf16: Vec<u8> =
            [0xfeff_u16].into_iter().chain("<a><b><c/></b></a>".encode_utf16()).flat_map(u16::to_le_bytes).collect();
        assert_eq!(max_depth(&utf16), Err(3), "UTF-16");
    }

    fn ends_inside(xml: &[u8]) -> bool {
        use std::io::Write;
        let mut scanner = DepthScanner::new(MAX_XML_DEPTH);
        assert!(xml.chunks(1).all(|b| scanner.write_all(b).is_ok()));
        scanner.ends_inside_an_element()
    }

    /// A JPEG starts `FF D8`: not a UTF-16 byte-order mark, so it is not scanned as XML, even
    /// when its bytes happen to contain `<` (found by the extraction benchmark: a DOCX with a
    /// photo was refused as "malformed XML").
    #[test]
    fn only_a_real_byte_order_mark_makes_a_part_utf16_xml() {
        let jpeg = [&[0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10][..], b"JFIF\0<a><b", &[0xff, 0xd9]].concat();
        assert!(!ends_inside(&jpeg), "a JPEG is not XML");
        let be: Vec<u8> = [0xfeff_u16].into_iter().chain("<a><b>".encode_utf16()).flat_map(u16::to_be_bytes).collect();
        assert!(ends_inside(&be), "UTF-16 BE with its mark is scanned");
        let le: Vec<u8> = [0xfeff_u16].into_iter().chain("<a></a>".encode_utf16()).flat_map(u16::to_le_bytes).collect();
        assert!(!ends_inside(&le), "complete UTF-16 LE XML");
    }

    #[test]
    fn depth_scanner_sees_parts_that_end_inside_an_element() {
        assert!(!ends_inside(b"<?xml version=\"1.0\"?><a><b/><!-- c --></a>\n"));
        assert!(!ends_inside(b"not xml <a>"));
        assert!(ends_inside(b"<a><b></b>"));
        assert!(ends_inside(b"<a></a><b"), "inside a tag");
        assert!(ends_inside(b"<a><![CDATA[ > </a> ]]>"), "a CDATA section ends at ]]>");
        assert!(ends_inside(b"<a><?pi > </a> ?>"), "an instruction ends at ?>");
        assert!(ends_inside(b"<!DOCTYPE a [ <!ENTITY e 'x'> <!-- > --> ]><a>"));
        assert!(!ends_inside(b"<!DOCTYPE a [ <!ENTITY e 'x'> ]><a><![CDATA[]]]></a>"));
        assert!(!ends_inside(b"<w:a x='1'><w:b/><w:b  y=\"/>\" /><c></c ></w:a>"));
        assert!(ends_inside(b"<a><b></a></b>"), "closed out of order");
        assert!(ends_inside(b"<a><b></b:<i x=\"y\"></a>"), "a mangled end tag");
    }

    #[test]
    fn heading_ids() {
        assert_eq!(heading_level_from_id("Heading1"), Some(1));
        assert_eq!(heading_level_from_id("heading 3"), Some(3));
        assert_eq!(heading_level_from_id("Heading7"), None);
        assert_eq!(heading_level_from_id("Normal"), None);
    }
}
