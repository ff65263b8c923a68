//! ODT: content.xml as Markdown.

use crate::fixtures::{extractor, limits, odf};
use lore_app::ports::Extractor;
use lore_domain::document::DocumentKind;

#[tokio::test]
async fn an_odt_keeps_headings_lists_tables_and_notes() {
    let body = "<office:text>\
        <text:h text:outline-level=\"1\">Field guide</text:h>\
        <text:p>Robins sing<text:note text:id=\"n1\" text:note-class=\"footnote\"><text:note-citation>1</text:note-citation>\
          <text:note-body><text:p>Mostly at dawn.</text:p></text:note-body></text:note> in <text:span>spring</text:span>.</text:p>\
        <text:h text:outline-level=\"2\">Sightings</text:h>\
        <text:list><text:list-item><text:p>Garden</text:p></text:list-item><text:list-item><text:p>Park</text:p></text:list-item></text:list>\
        <table:table table:name=\"Counts\"><table:table-column table:number-columns-repeated=\"2\"/>\
          <table:table-header-rows><table:table-row><table:table-cell><text:p>Bird</text:p></table:table-cell>\
          <table:table-cell><text:p>Count</text:p></table:table-cell></table:table-row></table:table-header-rows>\
          <table:table-row><table:table-cell><text:p>Robin</text:p></table:table-cell><table:table-cell><text:p>3</text:p></table:table-cell></table:table-row>\
        </table:table>\
        <text:p>Last<text:tab/>line<text:line-break/>of text.<office:annotation><text:p>REVIEW_COMMENT</text:p></office:annotation></text:p>\
        </office:text>";
    let bytes = odf("application/vnd.oasis.opendocument.text", "Birds of the Garden", body);
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, Some("birds.odt")).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Odt, "application/vnd.oasis.opendocument.text"));
    let extracted = extractor.extract(bytes, kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Field guide\n\n\
         Robins sing in spring.\n\n\
         ## Sightings\n\n\
         - Garden\n\
         - Park\n\n\
         | Bird | Count |\n\
         |---|---|\n\
         | Robin | 3 |\n\n\
         Last line\n\
         of text.\n\n\
         Mostly at dawn."
    );
    assert!(!extracted.text.contains("REVIEW_COMMENT"));
    assert_eq!(extracted.title.as_deref(), Some("Birds of the Garden"));
}
