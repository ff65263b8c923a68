//! XLSX and ODS through calamine: a section per visible sheet, its cells as a Markdown table.

use crate::fixtures::{extractor, lie_about_size, limits, odf, worksheet, xlsx, zip_bomb_with};
use lore_app::ports::{ExtractError, Extractor};
use lore_domain::document::DocumentKind;
use std::time::{Duration, Instant};

fn sales_workbook() -> Vec<u8> {
    // Shared strings 0…: the header row starts in B2 (row 1 and column A are empty).
    let strings = ["Region", "Revenue", "Closed", "North", "South | East", "Owner", "Ada"];
    let sales = worksheet(&[
        ("B2", "t=\"s\"><v>0</v>"),
        ("C2", "t=\"s\"><v>1</v>"),
        ("D2", "t=\"s\"><v>2</v>"),
        ("E2", "t=\"s\"><v>5</v>"),
        ("B3", "t=\"s\"><v>3</v>"),
        ("C3", "><v>1200</v>"),
        ("D3", "s=\"1\"><v>45352</v>"),
        ("E3", "t=\"inlineStr\"><is><t>Grace</t></is>"),
        ("B5", "t=\"s\"><v>4</v>"),
        ("C5", "><v>1200.5</v>"),
        ("D5", "t=\"b\"><v>1</v>"),
    ]);
    let lookup = worksheet(&[("A1", "t=\"s\"><v>6</v>")]);
    let notes = worksheet(&[("A1", "t=\"inlineStr\"><is><t>Figures are in EUR</t></is>")]);
    xlsx(
        "Sales 2024",
        &strings,
        &[("Sales", "visible", sales), ("Lookup", "hidden", lookup), ("Notes", "visible", notes)],
    )
}

#[tokio::test]
async fn an_xlsx_has_a_section_per_visible_sheet_and_its_cells_as_a_table() {
    let bytes = sales_workbook();
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, Some("sales.xlsx")).unwrap();
    assert_eq!(
        (kind, kind.mime_type()),
        (DocumentKind::Xlsx, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    );
    assert_eq!(extractor.sniff(&bytes, None), Some(DocumentKind::Xlsx), "by content, not by name");
    let extracted = extractor.extract(bytes, kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Sales\n\n\
         | Region | Revenue | Closed | Owner |\n\
         |---|---|---|---|\n\
         | North | 1200 | 2024-03-01 | Grace |\n\
         | South \\| East | 1200.5 | TRUE | |\n\n\
         # Notes\n\n\
         | Figures are in EUR |\n\
         |---|"
    );
    assert!(!extracted.text.contains("Ada"), "the hidden sheet is left out");
    assert_eq!(extracted.title.as_deref(), Some("Sales 2024"));
}

#[tokio::test]
async fn an_ods_has_a_section_per_sheet_and_its_cells_as_a_table() {
    let cell = |text: &str| {
        format!("<table:table-cell office:value-type=\"string\"><text:p>{text}</text:p></table:table-cell>")
    };
    let number = |n: &str| {
        format!(
            "<table:table-cell office:value-type=\"float\" office:value=\"{n}\"><text:p>{n}</text:p></table:table-cell>"
        )
    };
    let row = |cells: &[String]| format!("<table:table-row>{}</table:table-row>", cells.concat());
    let body = format!(
        "<office:spreadsheet>\
         <table:table table:name=\"Birds\">{}{}{}{}</table:table>\
         <table:table table:name=\"Empty\"><table:table-row><table:table-cell/></table:table-row></table:table>\
         <table:table table:name=\"Sources\">{}</table:table>\
         </office:spreadsheet>",
        row(&["<table:table-cell table:number-columns-repeated=\"2\"/>".to_owned()]),
        row(&[cell("Bird"), cell("Count")]),
        row(&[cell("Robin"), number("3")]),
        row(&[cell("Wren"), number("0.5")]),
        row(&[cell("Field notes, spring")]),
    );
    let bytes = odf("application/vnd.oasis.opendocument.spreadsheet", "Bird count", &body);
    let extractor = extractor();
    let kind = extractor.sniff(&bytes, None).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Ods, "application/vnd.oasis.opendocument.spreadsheet"));
    let extracted = extractor.extract(bytes, kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "# Birds\n\n| Bird | Count |\n|---|---|\n| Robin | 3 |\n| Wren | 0.5 |\n\n# Sources\n\n| Field notes, spring |\n|---|"
    );
    assert_eq!(extracted.title.as_deref(), Some("Bird count"));
}

#[tokio::test]
async fn an_xlsx_zip_bomb_is_refused_from_its_central_directory() {
    let bomb = zip_bomb_with(
        &[("[Content_Types].xml", b"<Types/>"), ("xl/workbook.xml", b"<workbook/>")],
        "xl/worksheets/sheet1.xml",
        300 << 20,
    );
    assert_eq!(extractor().sniff(&bomb, Some("bomb.xlsx")), Some(DocumentKind::Xlsx));
    let started = Instant::now();
    let error = extractor().extract(bomb, DocumentKind::Xlsx, limits()).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(2), "refused before inflating: {:?}", started.elapsed());
    assert!(
        matches!(&error, ExtractError::TooLarge(m) if m.contains("XLSX") && (m.contains("zip bomb") || m.contains("unpacks to more than"))),
        "{error:?}"
    );
}

/// calamine is given only parts that were measured while inflating: a sheet whose header
/// understates its size is refused before calamine reads it.
#[tokio::test]
async fn a_sheet_inflating_beyond_its_declared_size_is_refused_before_calamine_reads_it() {
    let lying = lie_about_size(sales_workbook(), "xl/worksheets/sheet1.xml", 10);
    let error = extractor().extract(lying, DocumentKind::Xlsx, limits()).await.unwrap_err();
    assert_eq!(
        error,
        ExtractError::TooLarge(
            "the XLSX part xl/worksheets/sheet1.xml inflates beyond its declared size of 10 bytes".into()
        )
    );
}
