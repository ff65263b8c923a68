//! PPTX: slides in presentation order, a section per slide, then its speaker notes.

use crate::fixtures::{extractor, limits, pptx, shape, table_shape, zip_bomb_with};
use lore_app::ports::{ExtractError, Extractor};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn deck(title: Option<&str>) -> Vec<u8> {
    pptx(
        title,
        &[
            (vec![shape(Some("ctrTitle"), &["Quarterly review"]), shape(Some("subTitle"), &["Finance team"])], None),
            (
                vec![
                    shape(Some("title"), &["Results"]),
                    shape(Some("body"), &["Revenue up 12%", "Costs flat"]),
                    table_shape(&[&["Region", "Revenue"], &["North", "1200"]]),
                    shape(Some("sldNum"), &["2"]),
                    shape(Some("ftr"), &["Confidential"]),
                ],
                Some(vec![
                    shape(Some("sldImg"), &[]),
                    shape(Some("body"), &["Mention the new office.", "Pause for questions."]),
                    shape(Some("sldNum"), &["2"]),
                ]),
            ),
            (vec![shape(None, &["A slide without a title"])], Some(vec![shape(Some("body"), &["Last notes"])])),
        ],
    )
}

#[tokio::test]
async fn slides_are_read_in_presentation_order_each_with_its_notes() {
    let bytes = deck(Some("Q3 review"));
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, None).unwrap();
    assert_eq!(
        (kind, kind.mime_type()),
        (DocumentKind::Pptx, "application/vnd.openxmlformats-officedocument.presentationml.presentation")
    );
    let extracted = extractor.extract(bytes, kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Slide 1: Quarterly review\n\n\
         Finance team\n\n\
         # Slide 2: Results\n\n\
         Revenue up 12%\n\
         Costs flat\n\n\
         | Region | Revenue |\n\
         |---|---|\n\
         | North | 1200 |\n\n\
         ## Notes\n\n\
         Mention the new office.\n\
         Pause for questions.\n\n\
         # Slide 3\n\n\
         A slide without a title\n\n\
         ## Notes\n\n\
         Last notes"
    );
    for furniture in ["Confidential", "sldNum"] {
        assert!(!extracted.text.contains(furniture), "{furniture}");
    }
    assert_eq!(extracted.title.as_deref(), Some("Q3 review"));
}

#[tokio::test]
async fn without_core_properties_the_first_slide_title_is_the_title() {
    let extracted = extractor().extract(deck(None), DocumentKind::Pptx, limits()).await.unwrap();
    assert_eq!(extracted.title.as_deref(), Some("Quarterly review"));
}

#[tokio::test]
async fn a_pptx_zip_bomb_is_refused_from_its_central_directory() {
    let bomb = zip_bomb_with(
        &[("[Content_Types].xml", b"<Types/>"), ("ppt/presentation.xml", b"<p:presentation/>")],
        "ppt/slides/slide1.xml",
        300 << 20,
    );
    assert_eq!(extractor().sniff(&bomb, Some("deck.pptx")), Some(DocumentKind::Pptx));
    let started = Instant::now();
    let error = extractor().extract(bomb, DocumentKind::Pptx, limits()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused before inflating: {:?}", started.elapsed());
    assert!(matches!(&error, ExtractError::TooLarge(m) if m.starts_with("the PPTX ")), "{error:?}");
}
