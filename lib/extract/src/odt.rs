//! ODT: the text of `content.xml` in document order, as Markdown: headings (`text:h` at their
//! outline level, and the `Title` paragraph) as `#`, list items as `- `, tables as Markdown
//! tables, text boxes as paragraphs of their own, footnotes and endnotes after the body. Left
//! out: comments, tracked deletions, tables of contents and indexes (they repeat the headings),
//! and alternative text. The title is `meta.xml`'s `dc:title`, else the `Title` paragraph.
//! Read with quick-xml from parts checked by `archive::Package`.

use crate::archive::Package;
use crate::markdown::Blocks;
use crate::xml::{Node, Nodes};
use lore_app::ports::{ExtractError, ExtractLimits};

/// Elements whose content is not the document's running text.
const SKIPPED: &[&str] = &[
    "annotation",
    "tracked-changes",
    "table-of-content",
    "alphabetical-index",
    "illustration-index",
    "table-index",
    "object-index",
    "user-index",
    "bibliography",
    "sequence-decls",
    "variable-decls",
    "user-field-decls",
    "note-citation",
    "desc",
    "title",
    "forms",
];
/// Repeated cells and rows (`table:number-columns-repeated`) are written at most this many
/// times: spreadsheet-like tables repeat empty cells by the thousand for their formatting.
const MAX_REPEAT: usize = 256;
/// `text:s` writes at most this many spaces.
const MAX_SPACES: usize = 64;

pub(crate) fn extract(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "ODT")?;
    let meta_title = package.dc_title("meta.xml");
    let Some(content) = package.text("content.xml")? else {
        return Err(ExtractError::Corrupt("the ODT archive has no content part (content.xml)".into()));
    };
    drop(package);
    let (text, title_paragraph) = render(&content, limits.max_output_bytes)?;
    Ok((text, meta_title.or(title_paragraph)))
}

/// What the text being read belongs to.
enum Frame {
    Paragraph { heading: Option<usize>, list_item: bool, title: bool, text: String },
    Table(Vec<Vec<String>>),
    Row(Vec<String>, usize),
    Cell(Vec<String>, usize),
    Note(Vec<String>),
}

fn render(xml: &str, max_output_bytes: usize) -> Result<(String, Option<String>), ExtractError> {
    let mut out = Rendering {
        blocks: Blocks::new(max_output_bytes),
        notes: Vec::new(),
        title: None,
        stack: Vec::new(),
        lists: 0,
    };
    let mut skipping = 0usize;
    let mut in_body = false;
    let mut nodes = Nodes::new(xml, "content.xml");
    while let Some(node) = nodes.next_node().map_err(|m| ExtractError::Corrupt(format!("the ODT part {m}")))? {
        if skipping > 0 {
            match node {
                Node::Open(_) => skipping += 1,
                Node::Close(_) => skipping -= 1,
                Node::Text(_) => {}
            }
            continue;
        }
        match node {
            Node::Open(tag) => {
                let name = tag.name.as_str();
                if name == "body" {
                    in_body = true;
                }
                if !in_body {
                    continue;
                }
                if SKIPPED.contains(&name) {
                    skipping = 1;
                    continue;
                }
                out.open(&tag);
            }
            Node::Text(text) => push_text(&mut out.stack, &text),
            Node::Close(name) if name == "body" => in_body = false,
            Node::Close(name) => out.close(&name)?,
        }
    }
    for note in &out.notes {
        out.blocks.paragraph(note)?;
    }
    Ok((out.blocks.finish(), out.title))
}

/// The document's body as it is read: the blocks written so far, the notes (written after it),
/// its title, the open frames and how deep in lists the reader is.
struct Rendering {
    blocks: Blocks,
    notes: Vec<String>,
    title: Option<String>,
    stack: Vec<Frame>,
    lists: usize,
}

impl Rendering {
    /// An element of the body opens.
    fn open(&mut self, tag: &crate::xml::Tag) {
        let repeat = |attribute: &str| {
            tag.attr(attribute).and_then(|n| n.trim().parse::<usize>().ok()).unwrap_or(1).clamp(1, MAX_REPEAT)
        };
        let stack = &mut self.stack;
        match tag.name.as_str() {
            "h" => {
                let level = tag.attr("outline-level").and_then(|l| l.trim().parse().ok()).unwrap_or(1);
                stack.push(Frame::Paragraph {
                    heading: Some(level),
                    list_item: false,
                    title: false,
                    text: String::new(),
                });
            }
            "p" => {
                let title = tag.attr("style-name") == Some("Title");
                stack.push(Frame::Paragraph {
                    heading: title.then_some(1),
                    list_item: self.lists > 0,
                    title,
                    text: String::new(),
                });
            }
            "list" => self.lists += 1,
            "s" => push_text(stack, &" ".repeat(repeat("c").min(MAX_SPACES))),
            "tab" => push_text(stack, "\t"),
            "line-break" => push_text(stack, "\n"),
            "table" => stack.push(Frame::Table(Vec::new())),
            "table-row" => stack.push(Frame::Row(Vec::new(), repeat("number-rows-repeated"))),
            "table-cell" | "covered-table-cell" => {
                stack.push(Frame::Cell(Vec::new(), repeat("number-columns-repeated")));
            }
            "note-body" => stack.push(Frame::Note(Vec::new())),
            _ => {}
        }
    }

    /// An element of the body closes: a paragraph, cell, row, table or note is done.
    fn close(&mut self, name: &str) -> Result<(), ExtractError> {
        let stack = &mut self.stack;
        match name {
            "list" => self.lists = self.lists.saturating_sub(1),
            "h" | "p" => {
                let Some(Frame::Paragraph { heading, list_item, title: is_title, text }) =
                    pop(stack, |f| matches!(f, Frame::Paragraph { .. }))
                else {
                    return Ok(());
                };
                if is_title && self.title.is_none() {
                    self.title = Some(crate::text::single_line(&text)).filter(|t| !t.is_empty());
                }
                match stack.last_mut() {
                    Some(Frame::Cell(parts, _) | Frame::Note(parts)) => parts.push(text),
                    // A paragraph in a table outside any cell, or a stray one: its own block.
                    _ => match heading {
                        Some(level) => self.blocks.heading(level, &text)?,
                        None if list_item => self.blocks.list_item(&text)?,
                        None => self.blocks.paragraph(&text)?,
                    },
                }
            }
            "table-cell" | "covered-table-cell" => {
                if let Some(Frame::Cell(parts, repeat)) = pop(stack, |f| matches!(f, Frame::Cell(..)))
                    && let Some(Frame::Row(cells, _)) = stack.last_mut()
                {
                    let text = parts.join("\n");
                    // Empty cells repeated at a row's end are formatting only.
                    let times = if text.trim().is_empty() { repeat.min(16) } else { repeat };
                    cells.extend(std::iter::repeat_n(text, times));
                }
            }
            "table-row" => {
                if let Some(Frame::Row(cells, repeat)) = pop(stack, |f| matches!(f, Frame::Row(..)))
                    && let Some(Frame::Table(rows)) = stack.last_mut()
                {
                    let times = if cells.iter().all(|c| c.trim().is_empty()) { 1 } else { repeat };
                    rows.extend(std::iter::repeat_n(cells, times));
                }
            }
            "table" => {
                let Some(Frame::Table(rows)) = pop(stack, |f| matches!(f, Frame::Table(_))) else {
                    return Ok(());
                };
                match stack.last_mut() {
                    // A table inside a cell or a note is flattened into it, row by row.
                    Some(Frame::Cell(parts, _) | Frame::Note(parts)) => {
                        parts.extend(rows.iter().map(|row| row.join(" ")));
                    }
                    _ => self.blocks.table(&rows)?,
                }
            }
            "note-body" => {
                if let Some(Frame::Note(paragraphs)) = pop(stack, |f| matches!(f, Frame::Note(_))) {
                    self.notes.push(paragraphs.join("\n"));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// Text into the innermost open paragraph (text elsewhere — between cells, in a table — is
/// layout whitespace).
fn push_text(stack: &mut [Frame], text: &str) {
    if let Some(Frame::Paragraph { text: paragraph, .. }) = stack.last_mut() {
        paragraph.push_str(text);
    }
}

/// Pops the innermost frame when `is` says it is the one closing (a part that closes what it
/// did not open changes nothing).
fn pop(stack: &mut Vec<Frame>, is: impl Fn(&Frame) -> bool) -> Option<Frame> {
    if stack.last().is_some_and(is) { stack.pop() } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_is_written_as_markdown() {
        let xml = r#"<office:document-content><office:automatic-styles><style:style style:name="P1"/></office:automatic-styles>
          <office:body><office:text><text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>
          <text:table-of-content><text:index-body><text:p>Intro ..... 1</text:p></text:index-body></text:table-of-content>
          <text:p text:style-name="Title">Field Guide</text:p>
          <text:h text:outline-level="2">Intro<text:s text:c="3"/>duction</text:h>
          <text:p>Birds<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Mostly.</text:p></text:note-body></text:note> sing.<office:annotation><text:p>COMMENT</text:p></office:annotation></text:p>
          <text:list><text:list-item><text:p>Robin</text:p></text:list-item><text:list-item><text:p>Wren<text:line-break/>small</text:p></text:list-item></text:list>
          <table:table><table:table-row><table:table-cell><text:p>Bird</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>n</text:p></table:table-cell></table:table-row>
          <table:table-row><table:table-cell><text:p>Robin</text:p><text:p>red</text:p></table:table-cell><table:covered-table-cell/><table:table-cell><text:p>3</text:p></table:table-cell></table:table-row>
          <table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>
          </office:text></office:body></office:document-content>"#;
        let (text, title) = render(xml, 1 << 20).unwrap();
        assert_eq!(title.as_deref(), Some("Field Guide"));
        assert_eq!(
            text,
            "# Field Guide\n\n## Intro duction\n\nBirds sing.\n\n- Robin\n- Wren small\n\n\
             | Bird | n | n |\n|---|---|---|\n| Robin<br>red | | 3 |\n\nMostly."
        );
    }
}
