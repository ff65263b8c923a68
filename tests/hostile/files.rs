//! Hostile file generators: PDF content bombs, busy PDFs, DOCX paragraph bombs, and a small valid
//! PDF to compare against. Everything is generated here (no checked-in binaries), streaming where
//! the inflated size is large, so a test never holds the bomb's inflated form in memory.

#![allow(dead_code)]

use flate2::Compression;
use flate2::write::ZlibEncoder;
use std::io::{Cursor, Write};

/// One text-showing operation, the content of the PDF bombs.
pub const BOMB_OP: &[u8] = b"BT /F1 12 Tf (bomb) Tj ET\n";

/// A one-page PDF whose page content stream inflates to at least `inflated_bytes` bytes of
/// `BOMB_OP` repeated, Flate-compressed (about 1000:1: 28 MB of content is a ~30 KB file).
pub fn pdf_content_bomb(inflated_bytes: usize) -> Vec<u8> {
    let content = deflate_repeated(BOMB_OP, inflated_bytes);
    let mut contents = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", content.len()).into_bytes();
    contents.extend_from_slice(&content);
    contents.extend_from_slice(b"\nendstream");
    pdf_from_objects(vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        page(2, 4),
        contents,
        font(),
    ])
}

/// A PDF of `pages` pages that all draw one shared, busy content stream (a few hundred short
/// text operations, ~12 KB inflated): small on disk (~40 bytes per page), but the parser runs
/// the whole stream once per page. 20,000 pages keep pdf-extract busy for minutes.
pub fn pdf_busy(pages: usize) -> Vec<u8> {
    let pages = pages.max(1);
    let mut ops = Vec::new();
    for i in 0..400 {
        ops.extend_from_slice(
            format!("BT /F1 9 Tf {} {} Td (busy {i}) Tj ET\n", 20 + (i % 10) * 50, 20 + i).as_bytes(),
        );
    }
    let content = deflate(&ops);
    let mut contents = format!("<< /Length {} /Filter /FlateDecode >>\nstream\n", content.len()).into_bytes();
    contents.extend_from_slice(&content);
    contents.extend_from_slice(b"\nendstream");
    // Objects: 1 catalog, 2 pages, 3 shared content, 4 font, 5.. the pages.
    let kids: Vec<String> = (0..pages).map(|i| format!("{} 0 R", 5 + i)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!(
            "<< /Type /Pages /Kids [{}] /Count {pages} /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> >>",
            kids.join(" ")
        )
        .into_bytes(),
        contents,
        font(),
    ];
    objects.extend((0..pages).map(|_| b"<< /Type /Page /Parent 2 0 R /Contents 3 0 R >>".to_vec()));
    pdf_from_objects(objects)
}

/// A valid one-page PDF showing `text` (uncompressed content; `(`, `)` and `\` escaped).
pub fn small_pdf(text: &str) -> Vec<u8> {
    let escaped = text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)");
    let ops = format!("BT /F1 12 Tf 72 712 Td ({escaped}) Tj ET\n");
    let contents = format!("<< /Length {} >>\nstream\n{ops}\nendstream", ops.len()).into_bytes();
    pdf_from_objects(vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        page(2, 4),
        contents,
        font(),
    ])
}

/// A DOCX whose `word/document.xml` holds `paragraphs` one-word paragraphs, each word distinct
/// so the part compresses like real text (well inside the 200:1 zip-bomb ratio check):
/// 2,000,000 paragraphs are ~36 MB of XML in a ~4 MB file.
pub fn docx_paragraph_bomb(paragraphs: usize) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    let part = |name: &str, body: &[u8], writer: &mut zip::ZipWriter<Cursor<Vec<u8>>>| {
        writer.start_file(name, options).expect("zip entry");
        writer.write_all(body).expect("zip write");
    };
    part(
        "[Content_Types].xml",
        br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#,
        &mut writer,
    );
    part(
        "_rels/.rels",
        br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#,
        &mut writer,
    );
    // docx-rs reads the document's relationships part, even when it has none.
    part(
        "word/_rels/document.xml.rels",
        br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>"#,
        &mut writer,
    );
    writer.start_file("word/document.xml", options).expect("zip entry");
    writer
        .write_all(br#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>"#)
        .expect("zip write");
    let mut chunk = String::new();
    for i in 0..paragraphs {
        // Distinct words (base-26 of the index): text-like compression, not a run of repeats.
        let mut word = String::new();
        let mut n = i;
        loop {
            word.push(char::from(b'a' + (n % 26) as u8));
            n /= 26;
            if n == 0 {
                break;
            }
        }
        chunk.push_str("<w:p><w:r><w:t>");
        chunk.push_str(&word);
        chunk.push_str("</w:t></w:r></w:p>");
        if chunk.len() > 64 * 1024 {
            writer.write_all(chunk.as_bytes()).expect("zip write");
            chunk.clear();
        }
    }
    chunk.push_str("</w:body></w:document>");
    writer.write_all(chunk.as_bytes()).expect("zip write");
    writer.finish().expect("zip finish").into_inner()
}

/// Zlib (the PDF `FlateDecode` format) of `unit` repeated to at least `total` bytes, compressed
/// as it is produced.
fn deflate_repeated(unit: &[u8], total: usize) -> Vec<u8> {
    let block = unit.repeat((64 * 1024 / unit.len()).max(1));
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
    let mut written = 0;
    while written < total {
        encoder.write_all(&block).expect("deflate");
        written += block.len();
    }
    encoder.finish().expect("deflate")
}

fn deflate(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::best());
    encoder.write_all(bytes).expect("deflate");
    encoder.finish().expect("deflate")
}

fn page(parent: usize, contents: usize) -> Vec<u8> {
    format!(
        "<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 612 792] /Contents {contents} 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
    )
    .into_bytes()
}

fn font() -> Vec<u8> {
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec()
}

/// A PDF file of `objects` (object `n` is `objects[n - 1]`, object 1 the catalog) with a correct
/// cross-reference table.
pub fn pdf_from_objects(objects: Vec<Vec<u8>>) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::with_capacity(objects.len());
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        // Each entry is exactly 20 bytes, end of line included.
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

#[cfg(test)]
mod tests {
    // Paths, not `use super::*`: lore-extract's `child` test includes this file without the
    // libtest harness, where this test is not built but an unused import would warn.
    #[test]
    fn generators_have_the_advertised_shape() {
        use super::{Cursor, docx_paragraph_bomb, pdf_content_bomb, small_pdf};
        let small = small_pdf("Hello (world)");
        assert!(small.starts_with(b"%PDF-1.4") && small.ends_with(b"%%EOF\n"));
        let xref = small.windows(6).position(|w| w == b"\nxref\n").expect("xref") + 1;
        let tail = String::from_utf8_lossy(&small[xref..]).into_owned();
        assert!(tail.contains(&format!("startxref\n{xref}\n")), "{tail}");

        let bomb = pdf_content_bomb(28 << 20);
        assert!(bomb.len() < 100 << 10, "a 28 MB content bomb is {} bytes", bomb.len());

        let docx = docx_paragraph_bomb(10_000);
        let mut archive = zip::ZipArchive::new(Cursor::new(docx)).expect("zip");
        let document = archive.by_name("word/document.xml").expect("document part");
        assert!(document.size() > 10_000 * 30);
        assert!(document.size() / document.compressed_size() < 200, "inside the zip-bomb ratio check");
    }
}
