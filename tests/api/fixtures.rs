//! Documents the tests feed the pipeline, generated in code: valid and hostile.

use std::io::{Cursor, Write};

fn pdf_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

/// A one-page PDF whose page shows `lines` in Helvetica.
pub fn pdf(lines: &[&str]) -> Vec<u8> {
    let mut content = String::from("BT /F1 12 Tf 14 TL 72 720 Td\n");
    for l in lines {
        content.push_str(&format!("({}) Tj T*\n", pdf_escape(l)));
    }
    content.push_str("ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
            .to_owned(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_owned(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for off in offsets {
        out.extend_from_slice(format!("{off:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

/// A DOCX with a heading, the paragraphs and a 2×2 table.
pub fn docx(heading: &str, paragraphs: &[&str], table: [[&str; 2]; 2]) -> Vec<u8> {
    use docx_rs::{Docx, Paragraph, Run, Table, TableCell, TableRow};
    let cell = |t: &str| TableCell::new().add_paragraph(Paragraph::new().add_run(Run::new().add_text(t)));
    let mut doc = Docx::new().add_paragraph(Paragraph::new().style("Heading1").add_run(Run::new().add_text(heading)));
    for p in paragraphs {
        doc = doc.add_paragraph(Paragraph::new().add_run(Run::new().add_text(*p)));
    }
    let rows = table.iter().map(|r| TableRow::new(vec![cell(r[0]), cell(r[1])])).collect();
    doc = doc.add_table(Table::new(rows));
    let mut buf = Cursor::new(Vec::new());
    doc.build().pack(&mut buf).expect("docx packs");
    buf.into_inner()
}

/// A DOCX with a Heading 1 and a table whose first row is `header`.
pub fn docx_table(heading: &str, header: [&str; 3], rows: &[[String; 3]]) -> Vec<u8> {
    use docx_rs::{Docx, Paragraph, Run, Table, TableCell, TableRow};
    let cell = |t: &str| TableCell::new().add_paragraph(Paragraph::new().add_run(Run::new().add_text(t)));
    let row = |r: [&str; 3]| TableRow::new(r.iter().map(|c| cell(c)).collect());
    let mut table = vec![row(header)];
    table.extend(rows.iter().map(|r| row([r[0].as_str(), r[1].as_str(), r[2].as_str()])));
    let doc = Docx::new()
        .add_paragraph(Paragraph::new().style("Heading1").add_run(Run::new().add_text(heading)))
        .add_table(Table::new(table));
    let mut buf = Cursor::new(Vec::new());
    doc.build().pack(&mut buf).expect("docx packs");
    buf.into_inner()
}

/// A DOCX-shaped zip whose document.xml inflates to `inflated_mb` MB of zeros.
pub fn docx_zip_bomb(inflated_mb: usize) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    w.start_file("[Content_Types].xml", opts).unwrap();
    w.write_all(
        b"<?xml version=\"1.0\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\"/>",
    )
    .unwrap();
    w.start_file("word/document.xml", opts).unwrap();
    let zeros = vec![0u8; 1024 * 1024];
    for _ in 0..inflated_mb {
        w.write_all(&zeros).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// An ELF header followed by junk: an executable, whatever its name says.
pub fn executable() -> Vec<u8> {
    let mut b = b"\x7fELF\x02\x01\x01\x00".to_vec();
    b.extend(std::iter::repeat_n(0u8, 4096));
    b
}

/// `s` encoded as ISO-8859-1 (every char must be ≤ U+00FF).
pub fn latin1(s: &str) -> Vec<u8> {
    s.chars().map(|c| u8::try_from(u32::from(c)).expect("latin-1 char")).collect()
}
