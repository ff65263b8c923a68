//! XLSX and ODS through calamine: one section per visible worksheet (a heading with its name),
//! its cells as one Markdown table whose header row is the sheet's first row with text.
//!
//! calamine opens the archive itself and inflates parts with `read_to_end`, so it is given a
//! checked copy (`archive::Package::checked_copy`): the directory passed the zip-bomb checks,
//! and only the XML parts, each inflated and measured against the content budget, stored
//! uncompressed. XLSX cells are streamed (calamine's cell reader) and kept sparse, so a sheet
//! whose two cells are A1 and XFD1048576 costs two cells, not seventeen billion; ODS sheets are
//! built whole by calamine (no streaming reader), bounded by its own cell cap and the parser's
//! memory budget.

use crate::archive::Package;
use crate::markdown::{Blocks, MarkdownTable, too_large};
use calamine::{Data, DataRef, ExcelDateTime, Reader, SheetType, SheetVisible};
use lore_app::ports::{ExtractError, ExtractLimits};
use std::io::Cursor;

pub(crate) fn extract_xlsx(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "XLSX")?;
    let title = package.core_title();
    let copy = package.checked_copy(|name| name.ends_with(".xml") || name.ends_with(".rels"))?;
    drop(package);
    let mut workbook = calamine::Xlsx::new(Cursor::new(copy)).map_err(|e| damaged("XLSX", e))?;
    let mut blocks = Blocks::new(limits.max_output_bytes);
    for sheet in shown_sheets(workbook.sheets_metadata()) {
        let mut reader = workbook.worksheet_cells_reader(&sheet).map_err(|e| damaged("XLSX", e))?;
        let mut cells = SparseCells::new(limits.max_output_bytes);
        while let Some(cell) = reader.next_cell().map_err(|e| damaged("XLSX", e))? {
            let (row, column) = cell.get_position();
            cells.push(row, column, data_ref_text(cell.get_value()))?;
        }
        drop(reader);
        let table = cells.into_table(limits.max_output_bytes.saturating_sub(blocks.len()))?;
        section(&mut blocks, &sheet, &table)?;
    }
    Ok((blocks.finish(), title))
}

pub(crate) fn extract_ods(bytes: &[u8], limits: &ExtractLimits) -> Result<(String, Option<String>), ExtractError> {
    let mut package = Package::open(bytes, limits, "ODS")?;
    let title = package.dc_title("meta.xml");
    let copy = package.checked_copy(|name| name == "mimetype" || name.ends_with(".xml"))?;
    drop(package);
    let mut workbook = calamine::Ods::new(Cursor::new(copy)).map_err(|e| damaged("ODS", e))?;
    let mut blocks = Blocks::new(limits.max_output_bytes);
    for sheet in shown_sheets(workbook.sheets_metadata()) {
        let range = workbook.worksheet_range(&sheet).map_err(|e| damaged("ODS", e))?;
        let mut cells = SparseCells::new(limits.max_output_bytes);
        let (top, left) = range.start().unwrap_or_default();
        for (r, row) in range.rows().enumerate() {
            for (c, value) in row.iter().enumerate() {
                cells.push(top + r as u32, left + c as u32, data_text(value))?;
            }
        }
        drop(range);
        let table = cells.into_table(limits.max_output_bytes.saturating_sub(blocks.len()))?;
        section(&mut blocks, &sheet, &table)?;
    }
    Ok((blocks.finish(), title))
}

/// The names of the worksheets a reader of the workbook sees, in workbook order: hidden sheets
/// (lookup lists, helper data) and chart or dialog sheets are left out.
fn shown_sheets(sheets: &[calamine::Sheet]) -> Vec<String> {
    sheets
        .iter()
        .filter(|s| s.visible == SheetVisible::Visible && s.typ == SheetType::WorkSheet)
        .map(|s| s.name.clone())
        .collect()
}

/// A sheet's section: its name as a heading, its table below; nothing for a sheet without text.
fn section(blocks: &mut Blocks, name: &str, table: &str) -> Result<(), ExtractError> {
    if table.is_empty() {
        return Ok(());
    }
    blocks.heading(1, name)?;
    blocks.push_markdown(table)
}

/// The cells of a sheet that hold text, by position, counted against the output cap as they
/// come (each costs at least its text and a separator in the table).
struct SparseCells {
    cells: Vec<(u32, u32, String)>,
    bytes: usize,
    max_output_bytes: usize,
}

impl SparseCells {
    fn new(max_output_bytes: usize) -> Self {
        Self { cells: Vec::new(), bytes: 0, max_output_bytes }
    }

    fn push(&mut self, row: u32, column: u32, text: String) -> Result<(), ExtractError> {
        if text.trim().is_empty() {
            return Ok(());
        }
        self.bytes = self.bytes.saturating_add(text.len() + 3);
        if self.bytes > self.max_output_bytes {
            return Err(too_large(self.max_output_bytes));
        }
        self.cells.push((row, column, text));
        Ok(())
    }

    /// The Markdown table of the cells: the columns from the leftmost to the rightmost with
    /// text, the rows with text in order (empty rows between them left out); at most `room`
    /// bytes (a sparse sheet can make a table far larger than its cells).
    fn into_table(mut self, room: usize) -> Result<String, ExtractError> {
        let (Some(left), Some(right)) = (self.cells.iter().map(|c| c.1).min(), self.cells.iter().map(|c| c.1).max())
        else {
            return Ok(String::new());
        };
        let columns = (right - left) as usize + 1;
        // A row costs at least two bytes per column: refused before it is built.
        let rows = self.cells.iter().map(|c| c.0).collect::<std::collections::BTreeSet<_>>().len();
        if rows.saturating_mul(columns).saturating_mul(2) > room {
            return Err(too_large(self.max_output_bytes));
        }
        self.cells.sort_by_key(|c| (c.0, c.1));
        let mut out = String::new();
        let mut table = MarkdownTable::new(columns);
        let mut row: Vec<String> = vec![String::new(); columns];
        let mut current = None;
        for (r, c, text) in self.cells {
            if current != Some(r) {
                if current.is_some() {
                    table.push_row(&mut out, &row);
                    row.iter_mut().for_each(String::clear);
                }
                current = Some(r);
            }
            row[(c - left) as usize] = text;
        }
        table.push_row(&mut out, &row);
        if out.len() > room {
            return Err(too_large(self.max_output_bytes));
        }
        Ok(out)
    }
}

fn damaged(format: &str, e: impl std::fmt::Display) -> ExtractError {
    ExtractError::Corrupt(format!("the {format} workbook could not be read: {e}"))
}

/// A cell's value as a reader of the sheet sees it: numbers without a needless `.0`, dates as
/// ISO dates, booleans as Excel shows them, errors as their code (`#DIV/0!`).
fn data_ref_text(value: &DataRef<'_>) -> String {
    match value {
        DataRef::Int(n) => n.to_string(),
        DataRef::Float(f) => float_text(*f),
        DataRef::String(s) => s.clone(),
        DataRef::SharedString(s) => (*s).to_owned(),
        DataRef::Bool(b) => bool_text(*b).to_owned(),
        DataRef::DateTime(d) => date_text(d),
        DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.clone(),
        DataRef::Error(e) => e.to_string(),
        DataRef::Empty => String::new(),
    }
}

fn data_text(value: &Data) -> String {
    match value {
        Data::Int(n) => n.to_string(),
        Data::Float(f) => float_text(*f),
        Data::String(s) => s.clone(),
        Data::Bool(b) => bool_text(*b).to_owned(),
        Data::DateTime(d) => date_text(d),
        Data::DateTimeIso(s) | Data::DurationIso(s) => s.clone(),
        Data::Error(e) => e.to_string(),
        Data::Empty => String::new(),
    }
}

fn float_text(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e15 { format!("{}", f as i64) } else { f.to_string() }
}

fn bool_text(b: bool) -> &'static str {
    if b { "TRUE" } else { "FALSE" }
}

/// `2024-03-01`, `2024-03-01 14:30:00`, `14:30:00` (a time of day), or `36:00:00` (a duration).
fn date_text(d: &ExcelDateTime) -> String {
    let value = d.as_f64();
    if d.is_duration() {
        let seconds = (value * 86_400.0).round() as i64;
        return format!("{}:{:02}:{:02}", seconds / 3600, (seconds / 60 % 60).abs(), (seconds % 60).abs());
    }
    let (year, month, day, hour, minute, second, _) = d.to_ymd_hms_milli();
    let time = format!("{hour:02}:{minute:02}:{second:02}");
    if (0.0..1.0).contains(&value) {
        time
    } else if (hour, minute, second) == (0, 0, 0) {
        format!("{year:04}-{month:02}-{day:02}")
    } else {
        format!("{year:04}-{month:02}-{day:02} {time}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use calamine::ExcelDateTimeType;

    #[test]
    fn values_read_as_the_sheet_shows_them() {
        assert_eq!(float_text(1200.0), "1200");
        assert_eq!(float_text(0.25), "0.25");
        assert_eq!(float_text(-3.0), "-3");
        let date = ExcelDateTime::new(45352.0, ExcelDateTimeType::DateTime, false);
        assert_eq!(date_text(&date), "2024-03-01");
        let moment = ExcelDateTime::new(45352.6041666667, ExcelDateTimeType::DateTime, false);
        assert_eq!(date_text(&moment), "2024-03-01 14:30:00");
        assert_eq!(date_text(&ExcelDateTime::new(0.5, ExcelDateTimeType::DateTime, false)), "12:00:00");
        assert_eq!(date_text(&ExcelDateTime::new(1.5, ExcelDateTimeType::TimeDelta, false)), "36:00:00");
    }

    #[test]
    fn sparse_cells_make_a_table_from_the_leftmost_to_the_rightmost_column() {
        let mut cells = SparseCells::new(1 << 20);
        cells.push(5, 3, "4".into()).unwrap();
        cells.push(2, 1, "Name".into()).unwrap();
        cells.push(2, 3, "Score".into()).unwrap();
        cells.push(5, 1, "Ada".into()).unwrap();
        cells.push(4, 2, "  ".into()).unwrap();
        assert_eq!(cells.into_table(1 << 20).unwrap(), "| Name | | Score |\n|---|---|---|\n| Ada | | 4 |");
        let mut far = SparseCells::new(1 << 20);
        far.push(0, 0, "a".into()).unwrap();
        far.push(1_048_575, 16_383, "z".into()).unwrap();
        assert_eq!(far.into_table(1 << 20).map(|t| t.len() > 65_536), Ok(true), "2 rows × 16,384 columns");
        let mut tall = SparseCells::new(1 << 20);
        for row in 0..1_000 {
            tall.push(row, 0, "a".into()).unwrap();
        }
        tall.push(0, 16_383, "z".into()).unwrap();
        assert!(tall.into_table(1 << 20).is_err(), "refused before 1,000 rows of 16,384 columns are built");
    }
}
