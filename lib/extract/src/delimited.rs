//! CSV and TSV through the csv crate (RFC 4180: quoted fields may hold delimiters, doubled
//! quotes and line breaks), written as one Markdown table. The delimiter — comma, tab or
//! semicolon — is the one that splits the start of the file into records of one same width.

use crate::markdown::{MarkdownTable, too_large};
use lore_app::ports::{ExtractError, ExtractLimits};
use lore_domain::document::DocumentKind;

/// The delimiters tried, in the order that breaks a tie.
const DELIMITERS: [u8; 3] = [b'\t', b',', b';'];
/// How much of the text decides the delimiter (what the sniffer sees of an upload).
const SHAPE_SAMPLE_BYTES: usize = 64 * 1024;

/// How a text splits into a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) delimiter: u8,
    pub(crate) columns: usize,
    pub(crate) records: usize,
}

/// The delimiter that splits `sample` into at least two records all of one width (at least
/// `min_columns`), blank lines aside; the widest such split, `prefer` when it is one of them,
/// else the first of [`DELIMITERS`] on a tie. When `cut` (the sample is the start of a longer
/// text) the last record is not counted: it may be cut short.
pub(crate) fn shape(sample: &str, cut: bool, min_columns: usize, prefer: Option<u8>) -> Option<Shape> {
    let mut best: Option<Shape> = None;
    for delimiter in DELIMITERS {
        let Some(shape) = consistent_split(sample, cut, delimiter) else { continue };
        if shape.columns < min_columns.max(1) {
            continue;
        }
        if prefer == Some(delimiter) {
            return Some(shape);
        }
        if best.is_none_or(|b| shape.columns > b.columns) {
            best = Some(shape);
        }
    }
    best
}

fn consistent_split(sample: &str, cut: bool, delimiter: u8) -> Option<Shape> {
    if !sample.as_bytes().contains(&delimiter) && delimiter != b',' {
        return None;
    }
    let mut reader = reader(delimiter, sample.as_bytes());
    let mut record = csv::ByteRecord::new();
    let mut widths = Vec::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) if is_blank(&record) => {}
            Ok(true) => widths.push(record.len()),
            Ok(false) => break,
            Err(_) => return None,
        }
    }
    if cut {
        widths.pop();
    }
    let columns = *widths.first()?;
    (widths.len() >= 2 && widths.iter().all(|&w| w == columns)).then_some(Shape {
        delimiter,
        columns,
        records: widths.len(),
    })
}

fn reader(delimiter: u8, bytes: &[u8]) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new().delimiter(delimiter).has_headers(false).flexible(true).from_reader(bytes)
}

/// A record of one field holding only whitespace: a blank line.
fn is_blank(record: &csv::ByteRecord) -> bool {
    record.len() == 1 && record[0].trim_ascii().is_empty()
}

/// Whether text whose name says it is a table (`.csv`, `.tsv`) is one: it splits into a table
/// of one width, or its first record splits into at least two fields and another record
/// follows (rows may be ragged: a spreadsheet's export leaves out empty trailing fields).
pub(crate) fn is_named_table(sample: &str, cut: bool, prefer: u8) -> bool {
    shape(sample, cut, 1, Some(prefer)).is_some() || widest_header(sample, cut).is_some()
}

/// The delimiter that splits the first record (blank lines aside) into the most fields, at
/// least two, when at least two records follow from it.
fn widest_header(sample: &str, cut: bool) -> Option<u8> {
    let mut best: Option<(u8, usize)> = None;
    for delimiter in DELIMITERS {
        let mut reader = reader(delimiter, sample.as_bytes());
        let mut record = csv::ByteRecord::new();
        let mut header = None;
        let mut records = 0usize;
        while records < 3
            && let Ok(true) = reader.read_byte_record(&mut record)
        {
            if is_blank(&record) {
                continue;
            }
            header.get_or_insert(record.len());
            records += 1;
        }
        // A cut sample's last record counts only when a third one shows it was whole.
        let enough = if cut { records >= 3 } else { records >= 2 };
        if let Some(width) = header.filter(|&w| w >= 2 && enough)
            && best.is_none_or(|(_, b)| width > b)
        {
            best = Some((delimiter, width));
        }
    }
    best.map(|(delimiter, _)| delimiter)
}

/// Whether text that is no Markdown, HTML or named table reads as a table by its content
/// alone: at least three records of at least two columns each, all of one width. JSON lines
/// split into equal pieces at their commas too, and are left alone.
pub(crate) fn looks_like_a_table(sample: &str, cut: bool) -> Option<Shape> {
    if sample.trim_start().starts_with(['{', '[']) {
        return None;
    }
    shape(sample, cut, 2, None).filter(|s| s.records >= 3)
}

/// The text of a CSV or TSV file: one Markdown table, its first record with text as the
/// header row, every row as wide as the widest record (empty trailing fields aside); records
/// without text are left out; a field's line breaks become `<br>`.
pub(crate) fn extract(
    bytes: &[u8],
    kind: DocumentKind,
    limits: &ExtractLimits,
) -> Result<(String, Option<String>), ExtractError> {
    let text = crate::text::decode(bytes);
    let mut end = text.len().min(SHAPE_SAMPLE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let prefer = if kind == DocumentKind::Tsv { b'\t' } else { b',' };
    let (sample, cut) = (&text[..end], end < text.len());
    let delimiter = shape(sample, cut, 2, Some(prefer))
        .map(|s| s.delimiter)
        .or_else(|| widest_header(sample, cut))
        .unwrap_or(prefer);

    // First pass: the width of the table (csv reuses one record; nothing is kept).
    let mut record = csv::ByteRecord::new();
    let mut columns = 0usize;
    let mut first_pass = reader(delimiter, text.as_bytes());
    while first_pass.read_byte_record(&mut record).map_err(damaged)? {
        if let Some(last) = record.iter().rposition(|field| !field.trim_ascii().is_empty()) {
            columns = columns.max(last + 1);
        }
    }
    // Second pass: the rows, capped as they are written.
    let mut out = String::new();
    let mut table = MarkdownTable::new(columns);
    let mut rows = reader(delimiter, text.as_bytes());
    let mut string_record = csv::StringRecord::new();
    while rows.read_record(&mut string_record).map_err(damaged)? {
        let fields: Vec<&str> = string_record.iter().collect();
        table.push_row(&mut out, &fields);
        if out.len() > limits.max_output_bytes {
            return Err(too_large(limits.max_output_bytes));
        }
    }
    Ok((out, None))
}

fn damaged(e: csv::Error) -> ExtractError {
    ExtractError::Corrupt(format!("the table could not be read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_delimiter_is_the_one_that_splits_evenly() {
        let comma = "name,city\nAda,London\n\"Babbage, C.\",\"Walworth\nLondon\"\n";
        assert_eq!(shape(comma, false, 1, None), Some(Shape { delimiter: b',', columns: 2, records: 3 }));
        let semicolon = "Artikel;Preis\nBrot;1,50\nMilch;0,99\n";
        assert_eq!(shape(semicolon, false, 1, None).map(|s| s.delimiter), Some(b';'));
        let tab = "a\tb\tc\n1\t2\t3\n";
        assert_eq!(shape(tab, false, 1, None).map(|s| (s.delimiter, s.columns)), Some((b'\t', 3)));
        assert_eq!(shape("a,b\n1,2,3\n", false, 1, None), None, "ragged");
        assert_eq!(shape("a,b\n1,2\n3,", true, 1, None).map(|s| s.records), Some(2), "a cut last record");
        assert_eq!(shape("just words", false, 1, None), None, "one record");
    }

    #[test]
    fn a_named_table_may_be_ragged_but_must_split() {
        assert!(is_named_table("a;b;c\n1;2\n3;4;5;6\n", false, b','));
        assert_eq!(widest_header("a;b;c\n1;2\n3;4;5;6\n", false), Some(b';'));
        assert!(!is_named_table("just words", false, b','));
        assert!(!is_named_table("a,b", false, b','), "a header alone");
        assert!(is_named_table("one\ntwo\n", false, b','), "one column, evenly");
    }

    #[test]
    fn content_alone_needs_three_records_of_two_columns() {
        assert!(looks_like_a_table("id,name\n1,Ada\n2,Grace\n", false).is_some());
        assert!(looks_like_a_table("id,name\n1,Ada\n", false).is_none());
        assert!(looks_like_a_table("one\ntwo\nthree\n", false).is_none());
        assert!(looks_like_a_table("Hello there.\nThis is prose, with a comma.\nAnd more.\n", false).is_none());
        assert!(looks_like_a_table("{\"a\":1,\"b\":2}\n{\"a\":3,\"b\":4}\n{\"a\":5,\"b\":6}\n", false).is_none());
    }
}
