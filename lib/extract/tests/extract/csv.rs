//! CSV and TSV: RFC 4180 records as one Markdown table, the delimiter found by the file's shape.

use crate::fixtures::{extractor, limits};
use lore_app::ports::{ExtractError, ExtractLimits, Extractor};
use lore_domain::document::DocumentKind;

#[tokio::test]
async fn a_csv_is_one_markdown_table_under_its_header_row() {
    // Quoted commas, doubled quotes, a quoted line break (CRLF inside a record), a blank line,
    // a short row and a pipe.
    let csv = b"\xef\xbb\xbfName,City,Note\r\n\
                Ada,London,\"Analyst, first of her kind\"\r\n\
                \r\n\
                \"Grace \"\"Amazing\"\" Hopper\",\"New York\",\"line one\r\nline two\"\r\n\
                Linus,Helsinki\r\n\
                Tim,Geneva,a|b\r\n";
    let extractor = extractor();
    let kind = extractor.sniff(csv, Some("people.csv")).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Csv, "text/csv"));
    // Without its name, content alone must split evenly, and this one is ragged (Linus).
    assert_eq!(extractor.sniff(csv, None), Some(DocumentKind::Text));
    let extracted = extractor.extract(csv.to_vec(), kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "| Name | City | Note |\n\
         |---|---|---|\n\
         | Ada | London | Analyst, first of her kind |\n\
         | Grace \"Amazing\" Hopper | New York | line one<br>line two |\n\
         | Linus | Helsinki | |\n\
         | Tim | Geneva | a\\|b |"
    );
    assert_eq!(extracted.title, None);
}

#[tokio::test]
async fn a_tsv_and_a_semicolon_csv_are_split_by_their_own_delimiter() {
    let tsv = b"sku\tname\tprice\nA-1\tTea, green\t3.50\nA-2\tCoffee\t4.00\n";
    let extractor = extractor();
    let kind = extractor.sniff(tsv, None).unwrap();
    assert_eq!((kind, kind.mime_type()), (DocumentKind::Tsv, "text/tab-separated-values"));
    assert_eq!(extractor.sniff(tsv, Some("stock.tsv")), Some(DocumentKind::Tsv));
    let extracted = extractor.extract(tsv.to_vec(), kind, limits()).await.unwrap();
    assert_eq!(
        extracted.text,
        "| sku | name | price |\n|---|---|---|\n| A-1 | Tea, green | 3.50 |\n| A-2 | Coffee | 4.00 |"
    );

    // A European Excel export: semicolons, decimal commas, Windows-1252.
    let semicolon = b"Artikel;Preis;Menge\nK\xe4se;2,50;3\nBrot;1,20;1\n";
    let kind = extractor.sniff(semicolon, Some("einkauf.csv")).unwrap();
    assert_eq!(kind, DocumentKind::Csv);
    let extracted = extractor.extract(semicolon.to_vec(), kind, limits()).await.unwrap();
    assert_eq!(extracted.text, "| Artikel | Preis | Menge |\n|---|---|---|\n| Käse | 2,50 | 3 |\n| Brot | 1,20 | 1 |");
}

#[tokio::test]
async fn a_table_without_text_has_none() {
    let error = extractor().extract(b",,\n,,\n".to_vec(), DocumentKind::Csv, limits()).await.unwrap_err();
    assert_eq!(error, ExtractError::Corrupt("no text could be extracted: the table has no field with text".into()));
}

/// A million rows (~24 MB) in this process: read whole within the output cap, or refused by it
/// when it is smaller than the table — never more than the cap is written.
#[tokio::test]
async fn a_million_rows_are_read_or_refused_by_the_output_cap() {
    let csv = million_rows();
    let extracted = extractor().extract(csv.clone(), DocumentKind::Csv, limits()).await.unwrap();
    assert_eq!(extracted.text.lines().count(), 1_000_002, "header, delimiter and every row");
    assert!(
        extracted.text.ends_with("| 999999 | name 999999 | 4999995 |"),
        "{}",
        &extracted.text[extracted.text.len() - 60..]
    );
    let small = ExtractLimits { max_output_bytes: 1 << 20, ..limits() };
    let error = extractor().extract(csv, DocumentKind::Csv, small).await.unwrap_err();
    assert_eq!(error, ExtractError::TooLarge("the extracted text exceeds 1048576 bytes".into()));
}

fn million_rows() -> Vec<u8> {
    let mut csv = b"id,name,score\n".to_vec();
    for i in 0..1_000_000u64 {
        csv.extend_from_slice(format!("{i},name {i},{}\n", i * 5).as_bytes());
    }
    csv
}
