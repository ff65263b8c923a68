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
fn html_is_sniffed_by_its_markup_unless_the_name_says_text() {
    let page = b"<!DOCTYPE html><html><head><title>T</title></head><body><h1>Hi</h1></body></html>";
    assert_eq!(extractor().sniff(page, None), Some(DocumentKind::Html));
    assert_eq!(extractor().sniff(page, Some("page.html")), Some(DocumentKind::Html));
    assert_eq!(extractor().sniff(page, Some("page.txt")), Some(DocumentKind::Text));
    assert_eq!(DocumentKind::Html.mime_type(), "text/html");
}

/// The upload path sniffs the first 64 KiB of a file only: an archive's central directory is
/// then out of sight, and the names of its first local headers decide.
#[test]
fn zip_formats_are_known_from_their_first_64_kib() {
    let filler: Vec<u8> = (0..400_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect();
    for (first, main, kind) in [
        ("word/document.xml", "word/media/image1.png", DocumentKind::Docx),
        ("xl/workbook.xml", "xl/media/image1.png", DocumentKind::Xlsx),
        ("ppt/presentation.xml", "ppt/media/image1.png", DocumentKind::Pptx),
    ] {
        let archive = zip_of(
            &[("[Content_Types].xml", b"<Types/>"), (first, b"<x/>"), (main, &filler)],
            CompressionMethod::Stored,
        );
        assert_eq!(extractor().sniff(&archive[..64 * 1024], None), Some(kind), "{first}");
        assert_eq!(extractor().sniff(&archive, None), Some(kind), "{first}, whole");
    }
    let epub =
        zip_of(&[("mimetype", b"application/epub+zip"), ("OEBPS/big.xhtml", &filler)], CompressionMethod::Stored);
    assert_eq!(extractor().sniff(&epub[..64 * 1024], None), Some(DocumentKind::Epub));
    let odp = crate::fixtures::package(&[("mimetype", b"application/vnd.oasis.opendocument.presentation")]);
    assert_eq!(extractor().sniff(&odp, Some("slides.odp")), None, "presentations of ODF are not read");
}
