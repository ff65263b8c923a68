//! EPUB: chapters in spine order, each through the HTML extraction.

use crate::fixtures::{epub, extractor, limits, xhtml, zip_bomb_with};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn book() -> Vec<u8> {
    epub(
        "The Lighthouse &amp; the Sea",
        &[
            (
                "c1.xhtml",
                xhtml(
                    "Chapter One",
                    "<nav><a href=\"#\">NAV_LINK</a></nav><section><h1>Chapter One</h1>\
                     <p>It was a <em>dark</em> night.</p><script>SCRIPT_TEXT()</script></section>",
                ),
            ),
            (
                "c 2.xhtml",
                xhtml("Chapter Two", "<h1>Chapter Two</h1><p>Morning came.</p><ul><li>gulls</li><li>wind</li></ul>"),
            ),
        ],
    )
}

#[tokio::test]
async fn chapters_are_read_in_spine_order_through_the_html_extraction() {
    let bytes = book();
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, None).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Epub, "application/epub+zip"));
    let extracted = extractor.extract(bytes, kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Chapter One\n\nIt was a dark night.\n\n# Chapter Two\n\nMorning came.\n\n- gulls\n- wind"
    );
    for dropped in ["NAV_LINK", "SCRIPT_TEXT", "color: red", "TOC_ENTRY", "NAV_DOCUMENT_TEXT"] {
        assert!(!extracted.text.contains(dropped), "{dropped}");
    }
    assert_eq!(extracted.title.as_deref(), Some("The Lighthouse & the Sea"));
}

#[tokio::test]
async fn a_book_over_the_output_cap_is_refused_with_the_cap() {
    let limits = ExtractLimits { max_output_bytes: 40, ..limits() };
    let error = extractor().extract(book(), DocumentKind::Epub, limits).await.unwrap_err();
    assert_eq!(error, ExtractError::TooLarge("the extracted text exceeds 40 bytes".into()));
}

#[tokio::test]
async fn an_epub_zip_bomb_is_refused_from_its_central_directory() {
    let bomb = zip_bomb_with(
        &[("mimetype", b"application/epub+zip"), ("META-INF/container.xml", b"<container/>")],
        "OEBPS/c1.xhtml",
        300 << 20,
    );
    assert_eq!(extractor().sniff(&bomb, None), Some(DocumentKind::Epub));
    let started = Instant::now();
    let error = extractor().extract(bomb, DocumentKind::Epub, limits()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused before inflating: {:?}", started.elapsed());
    assert!(matches!(&error, ExtractError::TooLarge(m) if m.starts_with("the EPUB ")), "{error:?}");
}
