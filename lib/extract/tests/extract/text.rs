use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, Extractor};
use lore_domain::document::DocumentKind;

async fn extract(bytes: &[u8], kind: DocumentKind) -> Result<lore_app::ports::Extracted, ExtractError> {
    extractor().extract(bytes.to_vec(), kind, limits()).await
}

#[tokio::test]
async fn utf8_text_is_kept_with_newlines_normalised() {
    let bytes = "First line\r\nSecond line — ünïcödé\rThird\n\n".as_bytes();
    assert_eq!(extractor().sniff(bytes, Some("notes.txt")), Some(DocumentKind::Text));
    let extracted = extract(bytes, DocumentKind::Text).await.unwrap();
    assert_eq!(extracted.text, "First line\nSecond line — ünïcödé\nThird");
    assert_eq!(extracted.title, None);
}

#[tokio::test]
async fn latin1_text_is_detected_and_decoded() {
    // "Café naïve" in ISO-8859-1: not UTF-8.
    let bytes = b"Caf\xe9 na\xefve";
    assert_eq!(extractor().sniff(bytes, None), Some(DocumentKind::Text));
    assert_eq!(extract(bytes, DocumentKind::Text).await.unwrap().text, "Café naïve");
}

#[tokio::test]
async fn utf16_with_a_bom_is_text_in_both_byte_orders() {
    let text = "Grüße aus Köln\r\nzweite Zeile";
    let mut le = vec![0xff, 0xfe];
    le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let mut be = vec![0xfe, 0xff];
    be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    for bytes in [le, be] {
        assert_eq!(extractor().sniff(&bytes, None), Some(DocumentKind::Text));
        assert_eq!(extract(&bytes, DocumentKind::Text).await.unwrap().text, "Grüße aus Köln\nzweite Zeile");
    }
}

#[tokio::test]
async fn a_utf8_bom_is_stripped() {
    let extracted = extract(b"\xef\xbb\xbfhello", DocumentKind::Text).await.unwrap();
    assert_eq!(extracted.text, "hello");
}

#[tokio::test]
async fn markdown_keeps_its_structure_and_its_first_heading_is_the_title() {
    let md = "# Getting Started\r\n\r\nInstall it:\r\n\r\n```sh\r\n  cargo install lore\r\n```\r\n\r\n## Usage\r\n\r\n- \
              run `lore serve`\r\n- open [the UI](http://localhost:8080)\r\n";
    let bytes = md.as_bytes();
    assert_eq!(extractor().sniff(bytes, None), Some(DocumentKind::Markdown), "structure without a name");
    assert_eq!(extractor().sniff(bytes, Some("README.md")), Some(DocumentKind::Markdown));
    assert_eq!(extractor().sniff(bytes, Some("readme.txt")), Some(DocumentKind::Text), "the name breaks the tie");
    let extracted = extract(bytes, DocumentKind::Markdown).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Getting Started"));
    assert_eq!(
        extracted.text,
        "# Getting Started\n\nInstall it:\n\n```sh\n  cargo install lore\n```\n\n## Usage\n\n- run `lore serve`\n- \
         open [the UI](http://localhost:8080)"
    );
}

#[tokio::test]
async fn empty_and_blank_files_have_no_text() {
    assert_eq!(
        extract(b"", DocumentKind::Text).await.unwrap_err(),
        ExtractError::Corrupt("no text could be extracted: the file is empty".into())
    );
    assert_eq!(
        extract(b" \r\n\t\n", DocumentKind::Markdown).await.unwrap_err(),
        ExtractError::Corrupt("no text could be extracted: the file contains only whitespace".into())
    );
}
