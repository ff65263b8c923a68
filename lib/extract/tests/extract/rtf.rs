//! RTF: LibreOffice's output and samples in the shape of WordPad's, TextEdit's and Word's
//! (`rtf_samples/README.md`), read as Markdown; then hostile files.

use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn sample(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/extract/rtf_samples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Sniffs `bytes` as RTF (under a name that says otherwise) and extracts them.
async fn read(bytes: Vec<u8>) -> Result<(String, Option<String>), ExtractError> {
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, Some("upload.txt")).expect("sniffed");
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Rtf, "application/rtf"));
    extractor.extract(bytes, kind, limits()).await.map(|e| (e.text, e.title))
}

#[tokio::test]
async fn libreoffice_rtf_keeps_headings_lists_tables_notes_and_unicode() {
    let (text, title) = read(sample("libreoffice.rtf")).await.unwrap();
    assert_eq!(
        text,
        "# Garden birds\n\n\
         Robins visit the café at dawn; a coffee costs 3 € and the “regulars” say it’s naïve to arrive late.\n\n\
         Greek: καλημέρα — Russian: привет — Japanese: 日本語 — emoji: 🐦.\n\n\
         Link to the bird list here tabbed\nnext line.\n\n\
         ## Sightings\n\n\
         - Garden\n\
         - Park\n\n\
         | Bird | Count | Where |\n\
         |---|---|---|\n\
         | Robin | 3 | Hedge<br>and lawn |\n\
         | Wren | 1 | Ivy |\n\n\
         A picture follows.\n\n\
         Closing paragraph.\n\n\
         Frame anchor.\n\n\
         Boxed aside text\n\n\
         Counted in spring 2024.\n\n\
         HEADER_FURNITURE running head\n\n\
         Page footer text"
    );
    // The footnote, the text box and the header are read once each; the comment, the bookmark,
    // the picture data and the tables of the header are not read.
    for left_out in ["REVIEW_COMMENT", "BOOKMARKNAME", "Reviewer", "89504e47", "Liberation", "Heading", "LibreOffice"] {
        assert!(!text.contains(left_out), "{left_out}: {text}");
    }
    assert_eq!(text.matches("HEADER_FURNITURE").count(), 1);
    assert_eq!(title.as_deref(), Some("Café Field Notes"));
}

#[tokio::test]
async fn wordpad_rtf_decodes_windows_code_pages_by_font_and_bullets() {
    let (text, title) = read(sample("wordpad.rtf")).await.unwrap();
    assert_eq!(
        text,
        "Kettle care\n\n\
         Descale the kettle every month: vinegar costs € 3 and saves “hours” of naïve scrubbing.\n\n\
         Привет, мир!\n\n\
         Symbols: ☕\u{200b} 日本.\n\n\
         - Fill with fresh water\n\
         - Boil and rinse twice\n\n\
         Last line with a tab."
    );
    assert_eq!(title, None);
}

#[tokio::test]
async fn textedit_rtf_reads_escaped_line_ends_as_paragraphs_and_its_table() {
    let (text, title) = read(sample("textedit.rtf")).await.unwrap();
    assert_eq!(
        text,
        "The shop opens at 9 – and closes at 18.\n\n\
         Café prices are in €; we take €10 notes.\n\n\
         Second paragraph after a blank line.\n\n\
         | Day | Hours |\n\
         |---|---|\n\
         | Monday | 9–18 |\n\n\
         Closed on Sundays."
    );
    assert_eq!(title.as_deref(), Some("Shop opening hours"));
}

#[tokio::test]
async fn word_rtf_reads_field_results_and_leaves_out_what_is_not_text() {
    let (text, title) = read(sample("word.rtf")).await.unwrap();
    assert_eq!(
        text,
        "# Safety first\n\n\
         Never immerse the base in water. Read the online manual first.\n\n\
         The “Eco” mode heats to 80°C in 2–3 minutes; Greek users see αγή or καλό.\n\n\
         | Setting | Temperature |\n\
         |---|---|\n\
         | Eco | 80°C |\n\
         | Boil | 100°C |\n\n\
         Keep the lid closed while boiling.\n\n\
         Tip: descale with citric acid.\n\n\
         See the warranty terms.\n\n\
         Kettle Manual – confidential\n\n\
         Page 1"
    );
    for left_out in
        ["HIDDENTEXT", "REVIEW_COMMENT", "HYPERLINK", "MERGEFORMAT", "_Hlk1", "Calibri", "Lore Tests", "heading 1"]
    {
        assert!(!text.contains(left_out), "{left_out}: {text}");
    }
    assert_eq!(title.as_deref(), Some("Kettle Manual"));
}

#[tokio::test]
async fn a_file_cut_short_or_with_binary_data_reads_what_is_text() {
    let (text, _) = read(b"{\\rtf1\\ansi Hello {\\b bold".to_vec()).await.unwrap();
    assert_eq!(text, "Hello bold");
    // `\bin` data is skipped, even when it claims more bytes than the file has.
    let (text, _) =
        read(b"{\\rtf1 Kept {\\*\\blob\\bin5 }}{x}} text\\par \\bin999999999 \x00\x01\x02".to_vec()).await.unwrap();
    assert_eq!(text, "Kept text");
    // Nonsense: a code point out of range (and its fallback), a huge `\\uc`, a negative font, a
    // control word of 100,000 letters, bad hex escapes.
    let mut odd = b"{\\rtf1 A\\u99999999999999999999?\\uc99999 B\\f-99999999999 \\".to_vec();
    odd.extend_from_slice(&[b'x'; 100_000]);
    odd.extend_from_slice(b" C\\'zz D\\'4}");
    let (text, _) = read(odd).await.unwrap();
    assert_eq!(text, "ABCzz D4");
}

#[tokio::test]
async fn a_document_without_text_says_so() {
    let error = read(b"{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}{\\pict 0000}\\par\\par}".to_vec()).await.unwrap_err();
    assert!(matches!(&error, ExtractError::Corrupt(m) if m.starts_with("no text could be extracted")), "{error:?}");
}

#[tokio::test]
async fn groups_nested_100_000_deep_are_refused_as_corrupt() {
    let nested = |depth: usize| format!("{{\\rtf1 {}deep text{}}}", "{".repeat(depth), "}".repeat(depth)).into_bytes();
    assert_eq!(read(nested(500)).await.unwrap().0, "deep text");
    let started = Instant::now();
    let error = read(nested(100_000)).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("the RTF document nests groups more than 512 levels deep".into()));
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_million_paragraphs_are_read_within_the_time_budget() {
    let mut rtf = b"{\\rtf1\\ansi\\ansicpg1252\\deff0{\\fonttbl{\\f0 Calibri;}}\r\n".to_vec();
    for i in 0..1_000_000u32 {
        rtf.extend_from_slice(format!("\\pard\\f0\\fs22 Line {i}\\par\r\n").as_bytes());
    }
    rtf.push(b'}');
    assert!(rtf.len() > 25_000_000);
    let started = Instant::now();
    let budget = ExtractLimits { timeout: Duration::from_secs(20), ..limits() };
    let extracted = extractor().extract(rtf, DocumentKind::Rtf, budget).await.unwrap();
    assert_eq!(extracted.text.matches("\n\n").count(), 999_999);
    assert!(extracted.text.ends_with("Line 999999"));
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}

#[tokio::test]
async fn binary_garbage_after_the_header_is_refused_as_corrupt() {
    let mut bytes = b"{\\rtf1\\ansi ".to_vec();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..64 * 1024 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.push((state >> 24) as u8);
    }
    let error = read(bytes).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::Corrupt("the file starts as an RTF document but holds binary data (is it damaged?)".into())
    );
}

#[tokio::test]
async fn the_output_cap_holds() {
    let mut rtf = b"{\\rtf1 ".to_vec();
    for _ in 0..10_000 {
        rtf.extend_from_slice(b"\\trowd\\cellx100\\intbl some cell text\\cell\\row\r\n");
    }
    rtf.push(b'}');
    let small = ExtractLimits { max_output_bytes: 64 * 1024, ..limits() };
    let error = extractor().extract(rtf, DocumentKind::Rtf, small).await.unwrap_err();
    assert!(matches!(error, ExtractError::TooLarge(_)), "{error:?}");
}
