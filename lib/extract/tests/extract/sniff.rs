use crate::fixtures::{extractor, sample_docx, sample_pdf, zip_of};
use lore_app::ports::Extractor;
use lore_domain::document::DocumentKind;
use zip::CompressionMethod;

#[test]
fn content_decides_not_the_name() {
    let extractor = extractor();
    assert_eq!(extractor.sniff(&sample_pdf(), Some("report.txt")), Some(DocumentKind::Pdf));
    assert_eq!(extractor.sniff(&sample_pdf(), None), Some(DocumentKind::Pdf));
    assert_eq!(extractor.sniff(&sample_docx(), Some("report.pdf")), Some(DocumentKind::Docx));
    assert_eq!(extractor.sniff(&sample_docx(), None), Some(DocumentKind::Docx));
}

#[test]
fn an_elf_named_pdf_is_not_a_document() {
    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0\x3e\0".to_vec();
    elf.extend_from_slice(b"%PDF-1.4 planted in the header");
    assert_eq!(extractor().sniff(&elf, Some("x.pdf")), None);
    assert_eq!(extractor().sniff(&elf, Some("x.txt")), None);
}

#[test]
fn executables_images_and_archives_are_not_documents() {
    let extractor = extractor();
    let pe = b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff\0\0";
    assert_eq!(extractor.sniff(pe, Some("setup.pdf")), None);
    let macho = b"\xcf\xfa\xed\xfe\x0c\0\0\x01\0\0\0\0";
    assert_eq!(extractor.sniff(macho, Some("tool.txt")), None);
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    assert_eq!(extractor.sniff(png, Some("image.md")), None);
    let jpeg = b"\xff\xd8\xff\xe0\0\x10JFIF\0";
    assert_eq!(extractor.sniff(jpeg, Some("photo.txt")), None);
    let gzip = b"\x1f\x8b\x08\0\0\0\0\0";
    assert_eq!(extractor.sniff(gzip, None), None);
    let other_zip = zip_of(&[("data.csv", b"a,b\n1,2\n")], CompressionMethod::Deflated);
    assert_eq!(extractor.sniff(&other_zip, Some("data.docx")), None);
    let binary: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    assert_eq!(extractor.sniff(&binary, Some("blob.txt")), None);
}

#[test]
fn text_names_break_the_markdown_tie_only() {
    let extractor = extractor();
    assert_eq!(extractor.sniff(b"just words", Some("a.md")), Some(DocumentKind::Markdown));
    assert_eq!(extractor.sniff(b"just words", Some("a.markdown")), Some(DocumentKind::Markdown));
    assert_eq!(extractor.sniff(b"# Heading\n- a\n- b", Some("a.txt")), Some(DocumentKind::Text));
    assert_eq!(extractor.sniff(b"# Heading\n- a\n- b", None), Some(DocumentKind::Markdown));
    assert_eq!(extractor.sniff(b"just words", None), Some(DocumentKind::Text));
    assert_eq!(extractor.sniff(b"just words", Some("data.csv")), Some(DocumentKind::Text));
}

#[test]
fn html_is_never_sniffed() {
    let page = b"<!DOCTYPE html><html><head><title>T</title></head><body><h1>Hi</h1></body></html>";
    assert_eq!(extractor().sniff(page, Some("page.html")), Some(DocumentKind::Text));
    assert_eq!(extractor().sniff(page, Some("page.txt")), Some(DocumentKind::Text));
}
