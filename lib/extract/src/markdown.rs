//! The Markdown the structured formats are written as: headings (`#`), paragraphs, list items
//! (`- `) and tables (a header row with outer pipes, the `|---|` delimiter row, then the
//! rows), block by block and capped as it grows. Chunking follows this structure (headings
//! open the chunks below them; a table's header row is what a reader needs to read any row).

use crate::text::push_collapsed;
use lore_app::ports::ExtractError;
use std::borrow::Cow;

/// The text of one table cell: whitespace collapsed, line breaks kept as `<br>` (a Markdown
/// table row is one line), `|` escaped.
pub(crate) fn cell(text: &str) -> String {
    let mut collapsed = String::with_capacity(text.len());
    push_collapsed(&mut collapsed, &text.replace("\r\n", "\n").replace('\r', "\n"), true);
    if !collapsed.contains(['\n', '|']) {
        return collapsed;
    }
    collapsed.replace('|', "\\|").replace('\n', "<br>")
}

/// [`cell`], without a copy for the common cell: ASCII with single spaces between words, no
/// pipe, no control character.
fn cell_cow(text: &str) -> Cow<'_, str> {
    let plain = text.is_ascii()
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text.contains("  ")
        && !text.bytes().any(|b| b == b'|' || b < 0x20 || b == 0x7f);
    if plain { Cow::Borrowed(text) } else { Cow::Owned(cell(text)) }
}

/// A Markdown table written row by row into a text: the first row with a visible cell is the
/// header, followed by the delimiter row; rows without a visible cell are left out; every row
/// has `columns` cells (short rows are padded, long ones cut).
pub(crate) struct MarkdownTable {
    columns: usize,
    rows: usize,
}

impl MarkdownTable {
    pub(crate) fn new(columns: usize) -> Self {
        Self { columns: columns.max(1), rows: 0 }
    }

    /// Appends a row of raw cell texts (escaped here) on a line of its own (no line break
    /// before the first row, none after the last). Whether it was written.
    pub(crate) fn push_row<S: AsRef<str>>(&mut self, out: &mut String, cells: &[S]) -> bool {
        let cells: Vec<Cow<'_, str>> = cells.iter().take(self.columns).map(|c| cell_cow(c.as_ref())).collect();
        if cells.iter().all(|c| c.is_empty()) {
            return false;
        }
        if self.rows > 0 {
            out.push('\n');
        }
        out.push('|');
        for i in 0..self.columns {
            match cells.get(i).filter(|c| !c.is_empty()) {
                Some(c) => {
                    out.push(' ');
                    out.push_str(c);
                    out.push_str(" |");
                }
                None => out.push_str(" |"),
            }
        }
        if self.rows == 0 {
            out.push_str("\n|");
            for _ in 0..self.columns {
                out.push_str("---|");
            }
        }
        self.rows += 1;
        true
    }
}

/// The whole table of `rows` (raw cell texts) as Markdown, as wide as its widest row once the
/// columns empty in every row at its right are dropped; empty when no cell has text.
pub(crate) fn table<S: AsRef<str>>(rows: &[Vec<S>]) -> String {
    let columns = rows
        .iter()
        .filter_map(|row| row.iter().rposition(|c| !c.as_ref().trim().is_empty()))
        .max()
        .map_or(0, |last| last + 1);
    let mut out = String::new();
    if columns == 0 {
        return out;
    }
    let mut table = MarkdownTable::new(columns);
    for row in rows {
        table.push_row(&mut out, row);
    }
    out
}

/// A table of a text document (DOCX, ODT, PPTX): a table of one cell is a layout box around
/// text (a boxed note, a framed paragraph), written as that text; any other is [`table`].
pub(crate) fn document_table<S: AsRef<str>>(rows: &[Vec<S>]) -> String {
    if let [row] = rows
        && let [only] = row.as_slice()
    {
        return only.as_ref().trim().to_owned();
    }
    table(rows)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Block,
    ListItem,
}

/// Markdown text built block by block (blocks apart by a blank line, consecutive list items
/// on consecutive lines), refusing to grow past the output cap.
pub(crate) struct Blocks {
    out: String,
    last: Option<Kind>,
    max_output_bytes: usize,
}

impl Blocks {
    pub(crate) fn new(max_output_bytes: usize) -> Self {
        Self { out: String::new(), last: None, max_output_bytes }
    }

    pub(crate) fn heading(&mut self, level: usize, text: &str) -> Result<(), ExtractError> {
        let prefix = &"###### "[6 - level.clamp(1, 6)..];
        self.push(Kind::Block, prefix, text, false)
    }

    /// A paragraph; its line breaks are kept.
    pub(crate) fn paragraph(&mut self, text: &str) -> Result<(), ExtractError> {
        self.push(Kind::Block, "", text, true)
    }

    pub(crate) fn list_item(&mut self, text: &str) -> Result<(), ExtractError> {
        self.push(Kind::ListItem, "- ", text, false)
    }

    /// A table of a text document, of raw cell texts (see [`document_table`]).
    pub(crate) fn table<S: AsRef<str>>(&mut self, rows: &[Vec<S>]) -> Result<(), ExtractError> {
        if let [row] = rows
            && let [only] = row.as_slice()
        {
            return self.paragraph(only.as_ref());
        }
        let table = table(rows);
        self.push_markdown(&table)
    }

    /// Markdown written elsewhere (a table, a chapter), as one block.
    pub(crate) fn push_markdown(&mut self, markdown: &str) -> Result<(), ExtractError> {
        let markdown = markdown.trim();
        if markdown.is_empty() {
            return Ok(());
        }
        self.separate(Kind::Block);
        self.out.push_str(markdown);
        self.last = Some(Kind::Block);
        self.check()
    }

    fn push(&mut self, kind: Kind, prefix: &str, text: &str, keep_breaks: bool) -> Result<(), ExtractError> {
        let mark = self.out.len();
        self.separate(kind);
        self.out.push_str(prefix);
        if !push_collapsed(&mut self.out, text, keep_breaks) {
            self.out.truncate(mark);
            return Ok(());
        }
        self.last = Some(kind);
        self.check()
    }

    fn separate(&mut self, kind: Kind) {
        match self.last {
            None => {}
            Some(Kind::ListItem) if kind == Kind::ListItem => self.out.push('\n'),
            Some(_) => self.out.push_str("\n\n"),
        }
    }

    /// Bytes written so far.
    pub(crate) fn len(&self) -> usize {
        self.out.len()
    }

    /// The cap's error once the text has passed it.
    pub(crate) fn check(&self) -> Result<(), ExtractError> {
        if self.out.len() > self.max_output_bytes {
            return Err(too_large(self.max_output_bytes));
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> String {
        self.out
    }
}

pub(crate) fn too_large(max_output_bytes: usize) -> ExtractError {
    ExtractError::TooLarge(format!("the extracted text exceeds {max_output_bytes} bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_a_header_row_a_delimiter_row_and_padded_rows() {
        let rows = vec![
            vec!["", "", ""],
            vec!["Region", "Revenue", ""],
            vec!["North", "1 200", ""],
            vec!["", "", ""],
            vec!["South | East", "line one\nline  two", ""],
            vec!["West"],
        ];
        assert_eq!(
            table(&rows),
            "| Region | Revenue |\n|---|---|\n| North | 1 200 |\n| South \\| East | line one<br>line two |\n| West | |"
        );
        assert_eq!(table::<&str>(&[vec![], vec![" "]]), "");
        for text in ["plain words", " padded ", "two  spaces", "tab\there", "pipe|", "café  crème", "\u{a0}x"] {
            assert_eq!(cell_cow(text), cell(text), "{text:?}");
        }
    }

    #[test]
    fn blocks_are_apart_and_list_items_together() {
        let mut blocks = Blocks::new(1 << 20);
        blocks.heading(2, "  Title ").unwrap();
        blocks.paragraph("first\nline  two").unwrap();
        blocks.list_item("a").unwrap();
        blocks.list_item("b").unwrap();
        blocks.paragraph("   ").unwrap();
        blocks.table(&[vec!["h"], vec!["v"]]).unwrap();
        assert_eq!(blocks.finish(), "## Title\n\nfirst\nline two\n\n- a\n- b\n\n| h |\n|---|\n| v |");
        let mut small = Blocks::new(4);
        assert_eq!(small.paragraph("too long"), Err(too_large(4)));
    }
}
