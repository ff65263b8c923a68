//! Extraction quality: PDF line-end hyphens, pdfTeX accents and text runs apart on
//! the page; DOCX notes, text boxes, headers and footers, each once. The DOCX files are real
//! (tests/fixtures/README.md); the PDFs are written here.

use crate::fixtures::{CONTENT_TYPES, HELVETICA, extractor, limits, pdf, zip_of};
use lore_app::ports::Extractor;
use lore_domain::document::DocumentKind;
use zip::CompressionMethod;

async fn pdf_text(content: &str) -> String {
    extractor().extract(pdf(content, HELVETICA, None), DocumentKind::Pdf, limits()).await.unwrap().text
}

async fn docx_text(bytes: Vec<u8>) -> String {
    extractor().extract(bytes, DocumentKind::Docx, limits()).await.unwrap().text
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[tokio::test]
async fn line_end_hyphens_are_joined_and_real_hyphens_kept() {
    let content = "BT /F1 12 Tf 72 700 Td (R pack-) Tj 0 -14 Td (ages and a well-) Tj 0 -14 Td \
                   (known fact, well-known) Tj ET";
    assert_eq!(pdf_text(content).await, "R packages and a well-known fact, well-known");
}

#[tokio::test]
async fn pdftex_spacing_accents_compose_onto_the_next_letter() {
    // WinAnsi 0xA8 is the spacing diaeresis; pdfTeX draws it, then moves back over it and draws
    // the letter.
    let content = "BT /F1 12 Tf 72 700 Td [(Hans-Bernhard Br) (\\250) 330 (oker)] TJ ET";
    assert_eq!(pdf_text(content).await, "Hans-Bernhard Bröker");
}

#[tokio::test]
async fn single_byte_codes_map_through_the_font_encoding() {
    // WinAnsi: 0xE9 é, 0x80 € and 0x97 — are not their Latin-1 code points (the vendored
    // pdf-extract decodes one-byte codes without its UTF-16 round trip).
    let content = "BT /F1 12 Tf 72 700 Td (caf\\351 \\200 5 \\227 done) Tj ET";
    assert_eq!(pdf_text(content).await, "café € 5 — done");
}

#[tokio::test]
async fn text_runs_apart_on_the_page_are_separated() {
    // The page number drawn first at the right, then the running head to its left on the same
    // baseline, then the body: pdf-extract's plain output glued them ("7Running Head").
    let content = "BT /F1 12 Tf 500 750 Td (7) Tj ET BT /F1 12 Tf 72 750 Td (Running Head) Tj ET \
                   BT /F1 12 Tf 72 700 Td (Body text.) Tj ET";
    assert_eq!(pdf_text(content).await, "7 Running Head\n\nBody text.");
}

#[tokio::test]
async fn docx_footnotes_follow_the_body_once() {
    let text = docx_text(fixture("mammoth-footnotes.docx")).await;
    assert_eq!(text, "Ouch.\n\nA tachyon walks into a bar.\n\nFin.");
}

#[tokio::test]
async fn docx_endnotes_follow_the_body_once() {
    let text = docx_text(fixture("mammoth-endnotes.docx")).await;
    assert_eq!(text, "Ouch.\n\nA tachyon walks into a bar.\n\nFin.");
}

#[tokio::test]
async fn docx_text_box_is_extracted_once() {
    // Word stores the box twice: DrawingML in mc:Choice, VML in mc:Fallback.
    let text = docx_text(fixture("mammoth-text-box.docx")).await;
    assert_eq!(text, "Datum plane");
}

#[tokio::test]
async fn docx_headers_and_footers_follow_the_body_once() {
    let text = docx_text(fixture("python-docx-hdr-header-footer.docx")).await;
    assert_eq!(
        text,
        "section with header\n\nsection without header of its own.\n\nHeader for section-1\n\nFooter for section 1"
    );
}

#[tokio::test]
async fn a_header_repeated_by_two_sections_appears_once() {
    let paragraph = |text: &str| format!("<w:p><w:r><w:t>{text}</w:t></w:r></w:p>");
    let ns = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships""#;
    let section = |id: &str| format!(r#"<w:sectPr><w:headerReference w:type="default" r:id="{id}"/></w:sectPr>"#);
    let document = format!(
        "<w:document {ns}><w:body>{}<w:p><w:pPr>{}</w:pPr></w:p>{}{}</w:body></w:document>",
        paragraph("One"),
        section("rH1"),
        paragraph("Two"),
        section("rH2"),
    );
    let header = |text: &str| format!("<w:hdr {ns}>{}</w:hdr>", paragraph(text));
    let rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
        <Relationship Id="rH1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>
        <Relationship Id="rH2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header2.xml"/>
        </Relationships>"#;
    let package_rels = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
        <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>
        </Relationships>"#;
    let (h1, h2) = (header("Annual report"), header("Annual report"));
    let bytes = zip_of(
        &[
            ("[Content_Types].xml", CONTENT_TYPES),
            ("_rels/.rels", package_rels.as_bytes()),
            ("word/document.xml", document.as_bytes()),
            ("word/_rels/document.xml.rels", rels.as_bytes()),
            ("word/header1.xml", h1.as_bytes()),
            ("word/header2.xml", h2.as_bytes()),
        ],
        CompressionMethod::Deflated,
    );
    assert_eq!(docx_text(bytes).await, "One\n\nTwo\n\nAnnual report");
}
