use crate::fixtures::{
    HELVETICA, extractor, limits, pdf, pdf_objects, pdf_with_forms, sample_pdf, scanned_pdf, stream, text_content,
};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;

#[tokio::test]
async fn a_valid_pdf_yields_its_text_and_info_title() {
    let extracted = extractor().extract(sample_pdf(), DocumentKind::Pdf, limits()).await.unwrap();
    // Lines stay lines, the larger gap is a paragraph break, pdf-extract's padding is gone.
    assert_eq!(
        extracted.text,
        "Lore extraction test\nSecond line of the first paragraph.\n\nA new paragraph (with parentheses)."
    );
    assert_eq!(extracted.title.as_deref(), Some("Quarterly Report"));
}

#[tokio::test]
async fn a_pdf_without_info_has_no_title() {
    let bytes = pdf(&text_content(&[&["Untitled body"]]), HELVETICA, None);
    let extracted = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap();
    assert_eq!(extracted.text, "Untitled body");
    assert_eq!(extracted.title, None);
}

#[tokio::test]
async fn a_truncated_pdf_is_corrupt() {
    let mut bytes = sample_pdf();
    bytes.truncate(bytes.len() / 3);
    let error = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("the PDF structure is damaged")), "{error:?}");
}

#[tokio::test]
async fn garbage_behind_pdf_magic_is_sniffed_as_pdf_and_corrupt() {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    let extractor = extractor();
    assert_eq!(extractor.sniff(&bytes, Some("x.pdf")), Some(DocumentKind::Pdf));
    let error = extractor.extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    assert!(matches!(error, ExtractError::Corrupt(_)), "{error:?}");
}

#[tokio::test]
async fn a_pdf_that_makes_pdf_extract_panic_is_corrupt_and_the_process_lives_on() {
    // pdf-extract panics with "unexpected encoding" on an unknown base encoding name.
    let font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /BogusEncoding >>";
    let bytes = pdf(&text_content(&[&["boom"]]), font, None);
    let extractor = extractor();
    let error = extractor.extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    match error {
        ExtractError::Corrupt(message) => {
            assert!(message.starts_with("the parser failed: "), "{message}");
            assert!(message.contains("unexpected encoding"), "{message}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    // The extractor still works after the panic.
    let extracted = extractor.extract(sample_pdf(), DocumentKind::Pdf, limits()).await.unwrap();
    assert!(extracted.text.contains("Lore extraction test"));
}

/// A scan: one page that draws an image XObject and shows no text. The reason starts with the
/// code `no_text_layer:`, which the source's `error` carries.
#[tokio::test]
async fn a_scanned_pdf_fails_with_the_no_text_layer_code() {
    let bytes = scanned_pdf();
    let extractor = extractor();
    assert_eq!(extractor.sniff(&bytes, Some("scan.pdf")), Some(DocumentKind::Pdf));
    let error = extractor.extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::Corrupt(
            "no_text_layer: this PDF's pages are images without a text layer (a scan); run text recognition (OCR) \
             on it and upload the result, or upload the original document"
                .into()
        )
    );
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with(&format!("{}:", lore_extract::NO_TEXT_LAYER))));
}

#[tokio::test]
async fn a_pdf_that_only_draws_has_no_text_layer_either() {
    let bytes = pdf("0 0 m 100 100 l S", HELVETICA, Some("Plan"));
    let error = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    match error {
        ExtractError::Corrupt(message) => {
            assert!(message.starts_with("no_text_layer: "), "{message}");
            assert!(message.contains("only drawings") && message.contains("OCR"), "{message}");
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[tokio::test]
async fn output_over_the_cap_is_too_large() {
    let limits = ExtractLimits { max_output_bytes: 16, ..limits() };
    let error = extractor().extract(sample_pdf(), DocumentKind::Pdf, limits).await.unwrap_err();
    assert!(matches!(&error, ExtractError::TooLarge(m) if m.contains("16")), "{error:?}");
}

const FORM: &str = "/Type /XObject /Subtype /Form /BBox [0 0 612 792]";

#[tokio::test]
async fn text_inside_nested_form_xobjects_is_extracted() {
    let font = "/Font << /F1 4 0 R >>";
    let bytes = pdf_with_forms(&[
        stream(
            &format!("{FORM} /Resources << {font} /XObject << /X2 7 0 R >> >>"),
            "BT /F1 12 Tf 72 600 Td (Inside form one) Tj ET\n/X2 Do",
        ),
        stream(&format!("{FORM} /Resources << {font} >>"), "BT /F1 12 Tf 72 500 Td (Inside form two) Tj ET"),
    ]);
    let extracted = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap();
    assert_eq!(extracted.text, "Page text\n\nInside form one\n\nInside form two");
}

#[tokio::test]
async fn a_form_xobject_that_calls_itself_is_corrupt_not_a_stack_overflow() {
    // Without /Resources the form uses the page's, where /X1 is the form itself: pdf-extract
    // would recurse until the stack overflows and the process aborts.
    let bytes = pdf_with_forms(&[stream(FORM, "/X1 Do")]);
    let error = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("the PDF's drawing instructions call themselves in a loop".into()));
}

#[tokio::test]
async fn forms_calling_each_other_in_a_cycle_are_corrupt() {
    let bytes = pdf_with_forms(&[
        stream(&format!("{FORM} /Resources << /XObject << /Next 7 0 R >> >>"), "/Next Do"),
        stream(&format!("{FORM} /Resources << /XObject << /Back 6 0 R >> >>"), "/Back Do"),
    ]);
    let error = extractor().extract(bytes, DocumentKind::Pdf, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("the PDF's drawing instructions call themselves in a loop".into()));
}

#[tokio::test]
async fn forms_nested_too_deep_are_corrupt() {
    // /X1 → /X1 of the next form → … 40 levels, no cycle.
    let forms: Vec<String> = (0..40)
        .map(|i| {
            let next =
                if i < 39 { format!("/Resources << /XObject << /X1 {} 0 R >> >>", 7 + i) } else { String::new() };
            stream(&format!("{FORM} {next}"), if i < 39 { "/X1 Do" } else { "" })
        })
        .collect();
    let error = extractor().extract(pdf_with_forms(&forms), DocumentKind::Pdf, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("the PDF nests drawings more than 32 levels deep".into()));
}

#[tokio::test]
async fn forms_calling_the_next_many_times_over_are_refused_by_the_content_budget() {
    // 20 forms, each calling the next four times: a few KB that pdf-extract would interpret
    // 4^19 times over (it runs a form anew on every call). Every call is charged with all the
    // work below it, so the content budget refuses it before pdf-extract starts.
    let text = format!("BT /F1 12 Tf 72 500 Td ({}) Tj ET", "x".repeat(1_000));
    let forms: Vec<String> = (0..20)
        .map(|i| {
            if i < 19 {
                let resources = format!("/Resources << /XObject << /X1 {} 0 R >> >>", 7 + i);
                stream(&format!("{FORM} {resources}"), "/X1 Do /X1 Do /X1 Do /X1 Do")
            } else {
                stream(&format!("{FORM} /Resources << /Font << /F1 4 0 R >> >>"), &text)
            }
        })
        .collect();
    // Refused by the check (a parse that ran would end in the parse timeout instead).
    let error = extractor().extract(pdf_with_forms(&forms), DocumentKind::Pdf, limits()).await.unwrap_err();
    assert!(matches!(&error, ExtractError::TooLarge(m) if m.contains("in all")), "{error:?}");
}

#[tokio::test]
async fn a_page_tree_parent_loop_is_corrupt_not_a_stack_overflow() {
    // The page has no /MediaBox: pdf-extract looks for one up the /Parent chain, which loops.
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>".to_owned(),
        HELVETICA.to_owned(),
        stream("", &text_content(&[&["looping"]])),
    ];
    let error = extractor().extract(pdf_objects(&objects, None), DocumentKind::Pdf, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("the PDF page tree loops back on itself".into()));
}

/// Fonts are built once per font object for the whole document (the vendored pdf-extract's
/// patch, vendor/README.md), not once per page: a resource name still means the font its own
/// page gives it. Four pages show the same bytes `abc` in `/F1`, which is a plain Helvetica
/// (object 4) on pages 1 and 4, a Helvetica whose encoding maps them to `xyz` (object 5) on
/// page 2, and an inline font mapping them to `pqr` on page 3.
#[tokio::test]
async fn each_page_reads_its_text_with_the_font_its_own_resources_name() {
    let differences = |glyphs: &str| {
        format!(
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding \
             /BaseEncoding /WinAnsiEncoding /Differences [97 {glyphs}] >> >>"
        )
    };
    let page = |font: &str, content: usize| {
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {font} >> >> \
             /Contents {content} 0 R >>"
        )
    };
    let objects = vec![
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [6 0 R 7 0 R 8 0 R 9 0 R] /Count 4 >>".to_owned(),
        stream("", "BT /F1 12 Tf 72 720 Td (abc) Tj ET"),
        HELVETICA.to_owned(),
        differences("/x /y /z"),
        page("4 0 R", 3),
        page("5 0 R", 3),
        page(&differences("/p /q /r"), 3),
        page("4 0 R", 3),
    ];
    let extracted = extractor().extract(pdf_objects(&objects, None), DocumentKind::Pdf, limits()).await.unwrap();
    let words: Vec<&str> = extracted.text.split_whitespace().collect();
    assert_eq!(words, ["abc", "xyz", "pqr", "abc"], "{:?}", extracted.text);
}
