use crate::fixtures::{
    CONTENT_TYPES, extractor, lie_about_size, limits, sample_docx, with_core_title, with_part, zip_bomb, zip_of,
};
use docx_rs::{Docx, Paragraph, Run, Style, StyleType};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};
use zip::CompressionMethod;

#[tokio::test]
async fn a_docx_yields_headings_paragraphs_lists_and_markdown_tables() {
    let bytes = sample_docx();
    let extractor = extractor();
    assert_eq!(extractor.sniff(&bytes, Some("report.docx")), Some(DocumentKind::Docx));
    let extracted = extractor.extract(bytes, DocumentKind::Docx, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Quarterly Report\n\n\
         Revenue grew in every region.\n\n\
         Costs stayed flat.\n\n\
         ## Highlights\n\n\
         - New office opened\n\
         - Hiring on track\n\n\
         | Region | Revenue |\n\
         |---|---|\n\
         | North | 1200 |\n\n\
         End of report."
    );
    assert_eq!(extracted.title, None, "docx-rs writes no dc:title and there is no Title paragraph");
}

#[tokio::test]
async fn the_title_comes_from_core_properties() {
    let bytes = with_core_title(&sample_docx(), "Annual R&amp;D Review");
    let extracted = extractor().extract(bytes, DocumentKind::Docx, limits()).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Annual R&D Review"));
    assert!(extracted.text.starts_with("# Quarterly Report"));
}

/// Heading levels come from the styles part: Word writes localised style ids (`berschrift2`
/// in a German Word) under the built-in names (`heading 2`), and custom styles can carry an
/// outline level. The main part is read by docx-rs, the styles part by our own scan.
#[tokio::test]
async fn headings_follow_the_styles_part_names_and_outline_levels() {
    let extracted = extractor().extract(handbook_docx(), DocumentKind::Docx, limits()).await.unwrap();
    assert_eq!(extracted.text, "# The Handbook\n\n# Getting started\n\n## Install\n\nRun the installer.");
    assert_eq!(extracted.title.as_deref(), Some("The Handbook"));
}

/// A document whose paragraph styles are a title, a chapter heading by outline level and a
/// German Word's second-level heading.
fn handbook_docx() -> Vec<u8> {
    let docx = Docx::new()
        .add_style(Style::new("berschrift2", StyleType::Paragraph).name("heading 2"))
        .add_style(Style::new("Chapter", StyleType::Paragraph).name("Chapter").outline_lvl(0))
        .add_style(Style::new("Titel", StyleType::Paragraph).name("Title"))
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("The Handbook")).style("Titel"))
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("Getting started")).style("Chapter"))
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("Install")).style("berschrift2"))
        .add_paragraph(Paragraph::new().add_run(Run::new().add_text("Run the installer.")));
    let mut out = std::io::Cursor::new(Vec::new());
    docx.build().pack(&mut out).unwrap();
    out.into_inner()
}

/// Only the parts whose content is used are inflated: a part nobody reads may lie about its
/// size (it would be refused if inflated), and the document is still read. Word's own files
/// carry several such parts (`stylesWithEffects.xml`, 438 KB in the default template; fonts;
/// pictures), and the styles part is one when every paragraph style id says its role
/// (`Heading1`, `Title`, `Normal`, `List…`).
#[tokio::test]
async fn parts_whose_content_is_not_used_are_never_inflated() {
    let zeros = vec![0u8; 256 << 10];
    let unread = with_part(&sample_docx(), "word/stylesWithEffects.xml", &zeros);
    let unread = lie_about_size(unread, "word/stylesWithEffects.xml", 10);
    let unread = lie_about_size(unread, "word/styles.xml", 10);
    let extracted = extractor().extract(unread, DocumentKind::Docx, limits()).await.unwrap();
    assert!(extracted.text.starts_with("# Quarterly Report\n\nRevenue grew"), "{}", extracted.text);
    // The handbook's style ids need the styles part, so it is read, and checked.
    let lying = lie_about_size(handbook_docx(), "word/styles.xml", 10);
    let error = extractor().extract(lying, DocumentKind::Docx, limits()).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::TooLarge("the DOCX part word/styles.xml inflates beyond its declared size of 10 bytes".into())
    );
}

/// Pictures are binary parts: a JPEG (`FF D8 …`) whose bytes happen to contain `<` used to be
/// scanned as UTF-16 XML and the whole DOCX refused as malformed (found by the extraction
/// benchmark on python-docx's own template, whose thumbnail is a JPEG).
#[tokio::test]
async fn a_docx_with_a_jpeg_picture_is_read() {
    let jpeg = [&[0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10][..], b"JFIF\0\x01<\x02<a", &[0x7f; 64], &[0xff, 0xd9]].concat();
    let bytes = with_part(&sample_docx(), "word/media/image1.jpeg", &jpeg);
    let bytes = with_part(&bytes, "docProps/thumbnail.jpeg", &jpeg);
    let extracted = extractor().extract(bytes, DocumentKind::Docx, limits()).await.unwrap();
    assert!(extracted.text.starts_with("# Quarterly Report"), "{}", extracted.text);
}

#[tokio::test]
async fn a_zip_without_a_word_document_is_not_a_docx() {
    let extractor = extractor();
    let plain = zip_of(&[("notes.txt", b"hello")], CompressionMethod::Deflated);
    assert_eq!(extractor.sniff(&plain, Some("notes.docx")), None);
    let no_document =
        zip_of(&[("[Content_Types].xml", CONTENT_TYPES), ("word/styles.xml", b"<x/>")], CompressionMethod::Deflated);
    assert_eq!(extractor.sniff(&no_document, Some("x.docx")), None);
    // Asked to read it anyway, docx-rs finds no main document part.
    let error = extractor.extract(no_document, DocumentKind::Docx, limits()).await.unwrap_err();
    assert!(matches!(error, ExtractError::Corrupt(_)), "{error:?}");
}

#[tokio::test]
async fn a_truncated_docx_is_sniffed_as_docx_and_corrupt() {
    let mut bytes = sample_docx();
    bytes.truncate(bytes.len() * 2 / 3);
    let extractor = extractor();
    assert_eq!(extractor.sniff(&bytes, Some("cut.docx")), Some(DocumentKind::Docx));
    let error = extractor.extract(bytes, DocumentKind::Docx, limits()).await.unwrap_err();
    match error {
        ExtractError::Corrupt(message) => assert!(message.contains("DOCX archive is damaged"), "{message}"),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[tokio::test]
async fn a_document_part_that_is_not_xml_is_corrupt() {
    let bytes = zip_of(
        &[("[Content_Types].xml", CONTENT_TYPES), ("_rels/.rels", b"<bad"), ("word/document.xml", b"not xml <<<")],
        CompressionMethod::Deflated,
    );
    let error = extractor().extract(bytes, DocumentKind::Docx, limits()).await.unwrap_err();
    assert!(matches!(error, ExtractError::Corrupt(_)), "{error:?}");
}

#[tokio::test]
async fn a_zip_bomb_is_refused_from_its_central_directory() {
    // 20 MB of zeros compress to ~20 KB; the cap is 1 MB.
    let bomb = zip_bomb(20 << 20);
    assert!(bomb.len() < 200 << 10, "the bomb is small: {} bytes", bomb.len());
    let extractor = extractor();
    assert_eq!(extractor.sniff(&bomb, Some("bomb.docx")), Some(DocumentKind::Docx));
    let limits = ExtractLimits { max_unpacked_bytes: 1 << 20, ..limits() };
    let started = Instant::now();
    let error = extractor.extract(bomb, DocumentKind::Docx, limits).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused before inflating: {:?}", started.elapsed());
    match error {
        ExtractError::TooLarge(message) => {
            assert!(
                message.contains("word/document.xml") || message.contains("unpacks to more than 1048576"),
                "{message}"
            );
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[tokio::test]
async fn parts_that_together_unpack_beyond_the_cap_are_refused() {
    // 24 parts of 900 KB zeros: each under the 1 MB ratio check, together 21.6 MB.
    let zeros = vec![0u8; 900 << 10];
    let names: Vec<String> = (0..24).map(|i| format!("word/media/image{i}.bin")).collect();
    let mut entries: Vec<(&str, &[u8])> = vec![("[Content_Types].xml", CONTENT_TYPES), ("word/document.xml", b"<w/>")];
    entries.extend(names.iter().map(|n| (n.as_str(), zeros.as_slice())));
    let archive = zip_of(&entries, CompressionMethod::Deflated);
    let limits = ExtractLimits { max_unpacked_bytes: 4 << 20, ..limits() };
    let started = Instant::now();
    let error = extractor().extract(archive, DocumentKind::Docx, limits).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused before inflating: {:?}", started.elapsed());
    assert_eq!(error, ExtractError::TooLarge("the DOCX archive unpacks to more than 4194304 bytes".into()));
}

#[tokio::test]
async fn an_entry_compressed_beyond_200_to_1_is_refused_even_under_the_total_cap() {
    let bomb = zip_bomb(4 << 20);
    let limits = ExtractLimits { max_unpacked_bytes: 1 << 30, ..limits() };
    let error = extractor().extract(bomb, DocumentKind::Docx, limits).await.unwrap_err();
    match error {
        ExtractError::TooLarge(message) => {
            assert!(message.contains("word/document.xml is compressed"), "{message}");
            assert!(message.contains("zip bomb"), "{message}");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
}

#[tokio::test]
async fn an_entry_inflating_beyond_its_declared_size_is_refused() {
    // 3 MB of zeros declared as 1,000 bytes: the declared total and ratio checks pass; the
    // counted inflation stops at 1,001 bytes.
    let liar = lie_about_size(zip_bomb(3 << 20), "word/document.xml", 1000);
    let error = extractor().extract(liar, DocumentKind::Docx, limits()).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::TooLarge(
            "the DOCX part word/document.xml inflates beyond its declared size of 1000 bytes".into()
        )
    );
}

#[tokio::test]
async fn more_than_ten_thousand_entries_are_refused() {
    let names: Vec<String> = (0..10_001).map(|i| format!("word/media/{i}.bin")).collect();
    let mut entries: Vec<(&str, &[u8])> = vec![("[Content_Types].xml", CONTENT_TYPES), ("word/document.xml", b"<w/>")];
    entries.extend(names.iter().map(|n| (n.as_str(), &b""[..])));
    let archive = zip_of(&entries, CompressionMethod::Stored);
    assert_eq!(extractor().sniff(&archive, Some("many.docx")), Some(DocumentKind::Docx));
    let error = extractor().extract(archive, DocumentKind::Docx, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::TooLarge("the DOCX archive has 10003 entries, more than 10000".into()));
}

/// A WordprocessingML package, written by hand, whose body nests `depth` tables.
fn nested_tables_docx(depth: usize) -> Vec<u8> {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:document \
         xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>",
    );
    xml.push_str(&"<w:tbl><w:tr><w:tc>".repeat(depth));
    xml.push_str("<w:p><w:r><w:t>deep cell</w:t></w:r></w:p>");
    xml.push_str(&"</w:tc></w:tr></w:tbl>".repeat(depth));
    xml.push_str("</w:body></w:document>");
    let package_rels: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
        <Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
        <Relationship Id=\"rId1\" Target=\"word/document.xml\" \
        Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\"/></Relationships>";
    let document_rels: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\
        <Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"></Relationships>";
    zip_of(
        &[
            ("[Content_Types].xml", CONTENT_TYPES),
            ("_rels/.rels", package_rels),
            ("word/_rels/document.xml.rels", document_rels),
            ("word/document.xml", xml.as_bytes()),
        ],
        CompressionMethod::Deflated,
    )
}

#[tokio::test]
async fn nested_tables_within_the_depth_cap_are_read() {
    let extracted = extractor().extract(nested_tables_docx(20), DocumentKind::Docx, limits()).await.unwrap();
    assert_eq!(extracted.text, "deep cell");
}

#[tokio::test]
async fn xml_nested_deeper_than_the_cap_is_refused_before_docx_rs_overflows_its_stack() {
    // 200 nested tables (600+ levels) overflow docx-rs's recursive reader, which aborts the
    // process; the archive check refuses them first.
    let error = extractor().extract(nested_tables_docx(200), DocumentKind::Docx, limits()).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::TooLarge("the DOCX part word/document.xml nests elements more than 128 levels deep".into())
    );
}
