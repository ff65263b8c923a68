//! Test documents, generated in code.

use docx_rs::{Docx, IndentLevel, NumberingId, Paragraph, Run, Table, TableCell, TableRow};
use lore_app::ports::ExtractLimits;
use lore_extract::DocumentExtractor;
use std::io::{Cursor, Read, Write};
use std::time::Duration;
use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

pub fn extractor() -> DocumentExtractor {
    DocumentExtractor::new()
}

pub fn limits() -> ExtractLimits {
    ExtractLimits { timeout: Duration::from_secs(30), ..ExtractLimits::default() }
}

// ------------------------------------------------------------------------------ PDF

/// The standard Helvetica font with the Windows ANSI encoding.
pub const HELVETICA: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/// A one-page PDF written by hand: catalog, page tree, page, font, content stream and an
/// optional Info dictionary, with a correct cross-reference table.
pub fn pdf(content: &str, font: &str, title: Option<&str>) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> \
         /Contents 5 0 R >>"
            .to_owned(),
        font.to_owned(),
        stream("", content),
    ];
    let info = title.map(|title| {
        objects.push(format!("<< /Title ({}) /Producer (lore tests) >>", pdf_escape(title)));
        objects.len()
    });
    pdf_objects(&objects, info)
}

/// A stream object with extra dictionary entries.
pub fn stream(dict: &str, content: &str) -> String {
    format!("<< {dict} /Length {} >>\nstream\n{content}\nendstream", content.len())
}

/// A PDF of the given objects (numbered from 1; object 1 is the catalog), with a correct
/// cross-reference table and an optional Info object.
pub fn pdf_objects(objects: &[String], info: Option<usize>) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    let info = info.map(|n| format!(" /Info {n} 0 R")).unwrap_or_default();
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R{info} >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

/// A one-page PDF whose page shows "Page text" and calls form XObject `/X1` (object 6);
/// `forms` are objects 6, 7, … (use [`stream`]).
pub fn pdf_with_forms(forms: &[String]) -> Vec<u8> {
    let mut objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
         /Resources << /Font << /F1 4 0 R >> /XObject << /X1 6 0 R >> >> /Contents 5 0 R >>"
            .to_owned(),
        HELVETICA.to_owned(),
        stream("", "BT /F1 12 Tf 72 720 Td (Page text) Tj ET\n/X1 Do"),
    ];
    objects.extend(forms.iter().cloned());
    pdf_objects(&objects, None)
}

/// A content stream showing each line of `paragraphs` in 12 pt Helvetica; paragraphs are
/// separated by a larger vertical gap than lines.
pub fn text_content(paragraphs: &[&[&str]]) -> String {
    let mut ops = String::from("BT\n/F1 12 Tf\n72 720 Td\n");
    for (p, lines) in paragraphs.iter().enumerate() {
        if p > 0 {
            ops.push_str("0 -36 Td\n");
        }
        for (l, line) in lines.iter().enumerate() {
            if l > 0 {
                ops.push_str("0 -16 Td\n");
            }
            ops.push_str(&format!("({}) Tj\n", pdf_escape(line)));
        }
    }
    ops.push_str("ET");
    ops
}

fn pdf_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

pub fn sample_pdf() -> Vec<u8> {
    let content = text_content(&[
        &["Lore extraction test", "Second line of the first paragraph."],
        &["A new paragraph (with parentheses)."],
    ]);
    pdf(&content, HELVETICA, Some("Quarterly Report"))
}

// ------------------------------------------------------------------------------ DOCX

fn text_paragraph(text: &str) -> Paragraph {
    Paragraph::new().add_run(Run::new().add_text(text))
}

fn cell(text: &str) -> TableCell {
    TableCell::new().add_paragraph(text_paragraph(text))
}

/// A DOCX built with docx-rs: a Heading1, two paragraphs, a Heading2, two list items and a
/// 2×2 table, then a closing paragraph.
pub fn sample_docx() -> Vec<u8> {
    let docx = Docx::new()
        .add_paragraph(text_paragraph("Quarterly Report").style("Heading1"))
        .add_paragraph(text_paragraph("Revenue grew in every region."))
        .add_paragraph(
            Paragraph::new().add_run(Run::new().add_text("Costs stayed")).add_run(Run::new().add_text(" flat.")),
        )
        .add_paragraph(text_paragraph("Highlights").style("Heading2"))
        .add_paragraph(text_paragraph("New office opened").numbering(NumberingId::new(1), IndentLevel::new(0)))
        .add_paragraph(text_paragraph("Hiring on track").numbering(NumberingId::new(1), IndentLevel::new(0)))
        .add_table(Table::new(vec![
            TableRow::new(vec![cell("Region"), cell("Revenue")]),
            TableRow::new(vec![cell("North"), cell("1200")]),
        ]))
        .add_paragraph(text_paragraph("End of report."));
    let mut out = Cursor::new(Vec::new());
    docx.build().pack(&mut out).expect("docx-rs writes the document");
    out.into_inner()
}

/// The same package with `docProps/core.xml` replaced by one carrying `title`.
pub fn with_core_title(docx: &[u8], title: &str) -> Vec<u8> {
    let core = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\
         <cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
         xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>{title}</dc:title><dc:creator>tests</dc:creator>\
         </cp:coreProperties>"
    );
    let mut archive = zip::ZipArchive::new(Cursor::new(docx)).unwrap();
    let mut entries = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        entries.push((entry.name().to_owned(), data));
    }
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    let mut has_core = false;
    for (name, data) in entries {
        writer.start_file(name.as_str(), options).unwrap();
        if name == "docProps/core.xml" {
            has_core = true;
            writer.write_all(core.as_bytes()).unwrap();
        } else {
            writer.write_all(&data).unwrap();
        }
    }
    assert!(has_core, "docx-rs writes core properties");
    writer.finish().unwrap().into_inner()
}

/// `docx` with one more part (the same archive otherwise).
pub fn with_part(docx: &[u8], part: &str, content: &[u8]) -> Vec<u8> {
    let mut archive = zip::ZipArchive::new(Cursor::new(docx)).unwrap();
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        writer.start_file(entry.name(), options).unwrap();
        writer.write_all(&data).unwrap();
    }
    writer.start_file(part, options).unwrap();
    writer.write_all(content).unwrap();
    writer.finish().unwrap().into_inner()
}

/// A ZIP of `(name, content)` entries.
pub fn zip_of(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, data) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(data).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

pub const CONTENT_TYPES: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
    <Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>";

/// A WordprocessingML-shaped archive whose `word/document.xml` holds `zeros` zero bytes.
pub fn zip_bomb(zeros: usize) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options =
        SimpleFileOptions::default().compression_method(CompressionMethod::Deflated).compression_level(Some(9));
    writer.start_file("[Content_Types].xml", options).unwrap();
    writer.write_all(CONTENT_TYPES).unwrap();
    writer.start_file("word/document.xml", options).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = zeros;
    while left > 0 {
        let n = left.min(chunk.len());
        writer.write_all(&chunk[..n]).unwrap();
        left -= n;
    }
    writer.finish().unwrap().into_inner()
}

/// Rewrites the uncompressed size recorded for `name` in its local header and its central
/// directory record: an archive that lies about how much its entry inflates to.
pub fn lie_about_size(mut archive: Vec<u8>, name: &str, size: u32) -> Vec<u8> {
    let name = name.as_bytes();
    let mut patched = 0;
    let mut i = 0;
    while i + 4 <= archive.len() {
        let signature = &archive[i..i + 4];
        let (name_at, size_at) = match signature {
            b"PK\x03\x04" => (i + 30, i + 22),
            b"PK\x01\x02" => (i + 46, i + 24),
            _ => {
                i += 1;
                continue;
            }
        };
        if archive.get(name_at..name_at + name.len()) == Some(name) {
            archive[size_at..size_at + 4].copy_from_slice(&size.to_le_bytes());
            patched += 1;
        }
        i += 4;
    }
    assert_eq!(patched, 2, "the local header and the central directory record were patched");
    archive
}
