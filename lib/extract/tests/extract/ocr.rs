//! Text recognition (OCR) of scanned PDFs with Tesseract, on real scans made by
//! `scripts/make-scan-fixture.py` (tests/fixtures/README.md). Needs the `tesseract` program with
//! its English data (scripts/test.sh installs Debian's `tesseract-ocr` and `tesseract-ocr-eng`).

use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor, OcrSettings};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))).expect(name)
}

fn with_ocr(ocr: OcrSettings) -> ExtractLimits {
    ExtractLimits { ocr: Some(ocr), ..limits() }
}

/// The rendered words, most of which recognition must find (it may misread a few letters).
const WORDS: [&str; 10] =
    ["lighthouse", "inspection", "report", "keepers", "westerly", "winds", "copper", "lantern", "visibility", "fog"];

fn assert_recognised(text: &str) {
    let lower = text.to_lowercase();
    let found = WORDS.iter().filter(|w| lower.contains(*w)).count();
    assert!(found >= 8, "found {found} of {WORDS:?} in {text:?}");
}

async fn recognised(name: &str) -> String {
    let extracted =
        extractor().extract(fixture(name), DocumentKind::Pdf, with_ocr(OcrSettings::default())).await.unwrap();
    eprintln!("{name}: {:?}", extracted.text);
    extracted.text
}

#[tokio::test]
async fn without_ocr_the_scan_has_no_text_layer() {
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, limits()).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ")), "{error:?}");
}

#[tokio::test]
async fn a_jpeg_scan_is_read_by_tesseract() {
    let text = recognised("scanned-page.pdf").await;
    assert_recognised(&text);
    assert!(text.lines().count() >= 3, "lines stay lines: {text:?}");
}

#[tokio::test]
async fn a_flate_scan_with_a_png_predictor_is_read_as_a_pgm() {
    assert_recognised(&recognised("scanned-page-flate.pdf").await);
}

#[tokio::test]
async fn a_ccitt_fax_scan_is_read_through_a_tiff_header() {
    assert_recognised(&recognised("scanned-page-fax.pdf").await);
}

#[tokio::test]
async fn a_missing_tesseract_keeps_the_code_and_says_why() {
    let ocr = OcrSettings { tesseract: "/nonexistent/tesseract", ..OcrSettings::default() };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(ocr)).await.unwrap_err();
    match error {
        ExtractError::Corrupt(m) => {
            assert!(m.starts_with("no_text_layer: "), "{m}");
            assert!(m.contains("OCR") && m.contains("configured") && m.contains("Tesseract could not run"), "{m}");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_missing_language_is_reported() {
    let ocr = OcrSettings { languages: "zzz", ..OcrSettings::default() };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(ocr)).await.unwrap_err();
    assert!(
        matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ") && m.contains("Tesseract")),
        "{error:?}"
    );
}

#[tokio::test]
async fn recognition_is_bounded_by_pages_and_time() {
    let none = OcrSettings { max_pages: 0, ..OcrSettings::default() };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, with_ocr(none)).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ")), "{error:?}");

    let started = Instant::now();
    let hurried = ExtractLimits { timeout: Duration::from_millis(30), ..with_ocr(OcrSettings::default()) };
    let error = extractor().extract(fixture("scanned-page.pdf"), DocumentKind::Pdf, hurried).await.unwrap_err();
    assert!(matches!(error, ExtractError::TimedOut(_)), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_scan_without_readable_images_says_so() {
    // The image of `scanned_pdf` is 2×2 grey pixels: read, but no text in it.
    let error = extractor()
        .extract(crate::fixtures::scanned_pdf(), DocumentKind::Pdf, with_ocr(OcrSettings::default()))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no_text_layer: ") && m.contains("found no text")),
        "{error:?}"
    );
}
