//! The file types of docs/api.md §6 and §9 end to end over HTTP: a CSV and an XLSX uploaded to
//! a chatbot become `ready` with the sniffed `mimeType` and are searchable as Markdown tables; a
//! scanned PDF (an image without a text layer) ends `error` with `no_text_layer:`; and a CSV
//! uploaded to a Mind becomes a `ready` document source whose table is searchable.

use crate::support::{TestApp, parts};
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};
use std::io::{Cursor, Write};
use std::time::{Duration, Instant};
use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

const XLSX_MIME: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// A header row; a quoted field with a comma; a quoted line break; non-ASCII; CRLF line ends.
const PRICES_CSV: &str = "Product,Price,Origin,Note\r\n\
                          Crème brûlée,4.50,Lyon,\"Rich, creamy\"\r\n\
                          Earl Grey,3.20,Darjeeling,\"first flush\r\nloose leaf\"\r\n\
                          Smørbrød,7.80,København,open sandwich\r\n";

const CSV_HEADER: &str = "| Product | Price | Origin | Note |";
const CSV_ROW: &str = "| Crème brûlée | 4.50 | Lyon | Rich, creamy |";

/// The Markdown delimiter row of a table of `columns` columns: `|---|---|…`.
fn delimiter_row(columns: usize) -> String {
    format!("|{}", "---|".repeat(columns))
}

/// Posts a search and returns the results (asserts 200).
async fn search(t: &TestApp, path: &str, query: &str) -> Vec<Value> {
    let res = t.req(Method::POST, path, &t.dev_key).json(&json!({"query": query, "topK": 5})).send();
    let (status, body) = parts(res.await.unwrap()).await;
    assert_eq!(status, 200, "search {query:?}: {body}");
    body["results"].as_array().expect("results").clone()
}

/// The content of the first result of `source`, which must be among the results.
fn content_of<'a>(results: &'a [Value], source: &str, query: &str) -> &'a str {
    let hit = results.iter().find(|r| r["sourceId"] == source);
    let hit = hit.unwrap_or_else(|| panic!("{query:?} found nothing of {source}: {results:?}"));
    hit["content"].as_str().expect("content")
}

/// Uploads `bytes` as a chatbot file source, checks the sniffed type, processes it and waits.
async fn upload_and_process(t: &TestApp, bot: &str, name: &str, bytes: Vec<u8>, mime: &str) -> Value {
    let (status, body) = t.upload_source(bot, name, bytes).await;
    assert_eq!(status, 201, "{name}: {body}");
    let source = &body["source"];
    assert_eq!((source["type"].as_str(), source["mimeType"].as_str()), (Some("file"), Some(mime)), "{body}");
    let id = source["id"].as_str().unwrap().to_owned();
    let (status, body) = t.process(bot, &id).await;
    assert_eq!(status, 202, "{body}");
    t.settle(bot, &id).await
}

#[tokio::test]
async fn file_types_a_csv_is_searchable_as_a_markdown_table() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let done = upload_and_process(&t, &bot, "prices.csv", PRICES_CSV.as_bytes().to_vec(), "text/csv").await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!((done["mimeType"].as_str(), done["fileName"].as_str()), (Some("text/csv"), Some("prices.csv")));
    assert_eq!(done["error"], Value::Null, "{done}");
    assert!(done["chunkCount"].as_u64().unwrap() >= 1, "{done}");

    let id = done["id"].as_str().unwrap();
    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let results = search(&t, &path, "Crème brûlée Lyon").await;
    let content = content_of(&results, id, "Crème brûlée Lyon");
    assert!(content.contains(CSV_HEADER), "the header row: {content:?}");
    assert!(content.contains(&delimiter_row(4)), "the delimiter row: {content:?}");
    assert!(content.contains(CSV_ROW), "the row, its quoted comma kept in one cell: {content:?}");
    // The quoted line break stays inside its cell: the record is one table row.
    assert!(content.contains("| Earl Grey | 3.20 | Darjeeling | first flush<br>loose leaf |"), "{content:?}");
    assert!(content.contains("| Smørbrød | 7.80 | København | open sandwich |"), "{content:?}");
    t.stop().await;
}

/// A minimal XLSX: content types, relationships, a workbook of one sheet `Stock` and its cells as
/// inline strings and numbers (no shared strings, no styles).
fn stock_xlsx() -> Vec<u8> {
    const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    const PKG_REL: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
    let decl = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>";
    let content_types = format!(
        "{decl}<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
         <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
         <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
         <Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
         <Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>\
         </Types>"
    );
    let package_rels = format!(
        "{decl}<Relationships xmlns=\"{PKG_REL}\"><Relationship Id=\"rId1\" \
         Type=\"{REL}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>"
    );
    let workbook = format!(
        "{decl}<workbook xmlns=\"{MAIN}\" xmlns:r=\"{REL}\"><sheets>\
         <sheet name=\"Stock\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"
    );
    let workbook_rels = format!(
        "{decl}<Relationships xmlns=\"{PKG_REL}\"><Relationship Id=\"rId1\" \
         Type=\"{REL}/worksheet\" Target=\"worksheets/sheet1.xml\"/></Relationships>"
    );
    let text = |r: &str, s: &str| format!("<c r=\"{r}\" t=\"inlineStr\"><is><t>{s}</t></is></c>");
    let number = |r: &str, n: &str| format!("<c r=\"{r}\"><v>{n}</v></c>");
    let rows = [
        [text("A1", "Warehouse"), text("B1", "Item"), text("C1", "Quantity")],
        [text("A2", "Rotterdam"), text("B2", "Copper wire"), number("C2", "1250")],
        [text("A3", "Zaragoza"), text("B3", "Bauxite pellets"), number("C3", "37")],
    ];
    let mut sheet = format!("{decl}<worksheet xmlns=\"{MAIN}\" xmlns:r=\"{REL}\"><sheetData>");
    for (i, cells) in rows.iter().enumerate() {
        sheet.push_str(&format!("<row r=\"{}\">{}</row>", i + 1, cells.concat()));
    }
    sheet.push_str("</sheetData></worksheet>");

    let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (name, data) in [
        ("[Content_Types].xml", content_types),
        ("_rels/.rels", package_rels),
        ("xl/workbook.xml", workbook),
        ("xl/_rels/workbook.xml.rels", workbook_rels),
        ("xl/worksheets/sheet1.xml", sheet),
    ] {
        writer.start_file(name, options).unwrap();
        writer.write_all(data.as_bytes()).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

#[tokio::test]
async fn file_types_an_xlsx_is_sniffed_and_its_cells_are_searchable_with_their_header() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    // The name says nothing: the type comes from the content.
    let done = upload_and_process(&t, &bot, "stock-export", stock_xlsx(), XLSX_MIME).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!(done["mimeType"], XLSX_MIME, "{done}");

    let id = done["id"].as_str().unwrap();
    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let results = search(&t, &path, "Bauxite pellets Zaragoza").await;
    let content = content_of(&results, id, "Bauxite pellets Zaragoza");
    assert!(content.contains("| Warehouse | Item | Quantity |"), "the header row: {content:?}");
    assert!(content.contains(&delimiter_row(3)), "the delimiter row: {content:?}");
    assert!(content.contains("| Zaragoza | Bauxite pellets | 37 |"), "the row: {content:?}");
    assert!(content.contains("| Rotterdam | Copper wire | 1250 |"), "{content:?}");
    t.stop().await;
}

/// A one-page PDF written by hand whose page only draws a 1×1 gray image XObject: no text
/// operator anywhere. The cross-reference offsets are taken while writing.
fn scanned_pdf() -> Vec<u8> {
    let content = "q 100 0 0 100 0 0 cm /Im1 Do Q";
    let objects: [Vec<u8>; 5] = [
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> \
          /Contents 4 0 R >>"
            .to_vec(),
        format!("<< /Length {} >>\nstream\n{content}\nendstream", content.len()).into_bytes(),
        // One gray pixel: a single binary byte of image data.
        [
            &b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray \
               /BitsPerComponent 8 /Length 1 >>\nstream\n"[..],
            &[0x80u8][..],
            &b"\nendstream"[..],
        ]
        .concat(),
    ];
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(object);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

#[tokio::test]
async fn file_types_a_scanned_pdf_ends_in_error_with_no_text_layer() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let done = upload_and_process(&t, &bot, "scan.pdf", scanned_pdf(), "application/pdf").await;
    assert_eq!(done["status"], "error", "{done}");
    let error = done["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("no_text_layer:"), "{done}");
    assert!(error.len() > "no_text_layer:".len(), "the code and what to do: {done}");
    assert_eq!(done["chunkCount"], 0, "{done}");
    t.stop().await;
}

#[tokio::test]
async fn file_types_a_csv_is_a_mind_document_source() {
    let t = TestApp::spawn().await;
    let key = t.dev_key.clone();
    let res = t.req(Method::POST, "/api/v1/minds", &key).json(&json!({"name": "Pantry"})).send();
    let (status, body) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "create mind: {body}");
    let mind = body["mind"]["id"].as_str().unwrap().to_owned();

    let form = Form::new().part("file", Part::bytes(PRICES_CSV.as_bytes().to_vec()).file_name("prices.csv"));
    let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/upload"), &key).multipart(form).send();
    let (status, uploaded) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "upload: {uploaded}");
    assert_eq!(uploaded["category"], "document", "{uploaded}");
    let file_url = uploaded["fileUrl"].as_str().expect("fileUrl").to_owned();

    let path = format!("/api/v1/minds/{mind}/knowledge");
    let res = t.req(Method::POST, &path, &key).json(&json!({"type": "document", "fileUrl": file_url})).send();
    let (status, created) = parts(res.await.unwrap()).await;
    assert_eq!(status, 201, "{created}");
    let id = created["source"]["id"].as_str().unwrap().to_owned();

    let deadline = Instant::now() + Duration::from_secs(60);
    let done = loop {
        let res = t.req(Method::GET, &format!("/api/v1/minds/{mind}/knowledge/{id}"), &key).send();
        let (status, body) = parts(res.await.unwrap()).await;
        assert_eq!(status, 200, "{body}");
        let source = body["source"].clone();
        if source["status"] == "ready" || source["status"] == "failed" {
            break source;
        }
        assert!(Instant::now() < deadline, "source still {}: {source}", source["status"]);
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(done["status"], "ready", "{done}");
    assert_eq!((done["type"].as_str(), done["mimeType"].as_str()), (Some("document"), Some("text/csv")), "{done}");

    let results = search(&t, &format!("/api/v1/minds/{mind}/knowledge/search"), "Smørbrød København").await;
    let content = content_of(&results, &id, "Smørbrød København");
    assert!(content.contains(CSV_HEADER), "the header row: {content:?}");
    assert!(content.contains(&delimiter_row(4)), "the delimiter row: {content:?}");
    assert!(content.contains("| Smørbrød | 7.80 | København | open sandwich |"), "{content:?}");
    t.stop().await;
}

#[tokio::test]
async fn file_types_an_html_file_is_read_like_a_crawled_page() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let html = "<!doctype html><html><head><title>Warranty terms</title><script>var SCRIPTNOISE = 1;</script>\
                <style>.x{color:red}</style></head><body><nav>NAVNOISE Home | Shop</nav><main><h1>Warranty</h1>\
                <p>Every kettle carries a five-year warranty covering the heating element.</p>\
                <table><tr><th>Part</th><th>Years</th></tr><tr><td>Element</td><td>5</td></tr></table></main>\
                <footer>FOOTERNOISE</footer></body></html>";
    let source = upload_and_process(&t, &bot, "warranty.html", html.as_bytes().to_vec(), "text/html").await;
    assert_eq!(source["status"], "ready", "{source}");
    assert_eq!(source["mimeType"], "text/html");
    let id = source["id"].as_str().unwrap();
    let text = t.chunk_texts(id).await.join("\n");
    assert!(text.contains("five-year warranty"), "{text}");
    assert!(text.contains("| Part | Years |"), "tables stay tables: {text}");
    for noise in ["SCRIPTNOISE", "NAVNOISE", "FOOTERNOISE", "color:red"] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    t.stop().await;
}

/// `LORE_OCR=openai` end to end: `lore serve` with a vision model at a local OpenAI-compatible
/// stub (through its override) sends the real scan of lib/extract/tests/fixtures/scanned-page.pdf
/// from its parser process (the `lore` binary), the page's JPEG in one request with the key, and
/// the stub's answer becomes the source's searchable text; a stub that refuses the key ends the
/// next scan `error` with `no_text_layer:` saying so.
#[tokio::test]
async fn file_types_a_scanned_pdf_is_read_by_a_vision_model() {
    use std::sync::{Arc, Mutex};
    /// A request the stub got: its `Authorization` header and body.
    type Request = (Option<String>, Value);
    let requests: Arc<Mutex<Vec<Request>>> = Arc::default();
    let seen = requests.clone();
    let handler = move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
        let auth = headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let first = {
            let mut seen = seen.lock().unwrap();
            seen.push((auth, body));
            seen.len() == 1
        };
        async move {
            use axum::response::IntoResponse;
            if first {
                let text = "Lighthouse inspection report\nThe keepers replaced the copper lantern gasket.";
                axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": text}}]})).into_response()
            } else {
                let error =
                    json!({"error": {"message": "Incorrect API key provided: sk-e2***ey", "code": "invalid_api_key"}});
                (axum::http::StatusCode::UNAUTHORIZED, axum::Json(error)).into_response()
            }
        }
    };
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(handler))
        .layer(axum::extract::DefaultBodyLimit::disable());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let ocr = lore_app::ports::OcrSettings::openai(&base_url, Some("sk-e2e-key"), "stub-vision");
    let t = TestApp::spawn_with(lore::compose::Overrides { ocr: Some(ocr), ..Default::default() }).await;
    let bot = t.chatbot().await;
    let scan = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../lib/extract/tests/fixtures/scanned-page.pdf"))
        .expect("the scan fixture");

    let done = upload_and_process(&t, &bot, "inspection.pdf", scan.clone(), "application/pdf").await;
    assert_eq!(done["status"], "ready", "{done}");
    let id = done["id"].as_str().unwrap().to_owned();
    let results = search(&t, &format!("/api/v1/chatbots/{bot}/knowledge/search"), "lantern gasket").await;
    let content = content_of(&results, &id, "lantern gasket");
    assert!(content.contains("copper lantern gasket"), "{content}");
    {
        let requests = requests.lock().unwrap();
        assert_eq!(requests.len(), 1, "one page, one request");
        let (auth, body) = &requests[0];
        assert_eq!(auth.as_deref(), Some("Bearer sk-e2e-key"));
        assert_eq!((body["model"].as_str(), body["temperature"].as_i64()), (Some("stub-vision"), Some(0)), "{body}");
        let url = body["messages"][0]["content"][1]["image_url"]["url"].as_str().expect("an image part");
        assert!(url.starts_with("data:image/jpeg;base64,/9j/"), "the page's JPEG: {}", &url[..40.min(url.len())]);
    }

    let other = t.chatbot().await;
    let done = upload_and_process(&t, &other, "again.pdf", scan, "application/pdf").await;
    assert_eq!(done["status"], "error", "{done}");
    let error = done["error"].as_str().unwrap_or_default();
    assert!(error.starts_with("no_text_layer:") && error.contains("refused the API key"), "{done}");
    assert!(!error.contains("sk-e2"), "no part of the key: {error}");
    t.stop().await;
}

#[tokio::test]
async fn file_types_an_rtf_is_sniffed_and_its_text_is_searchable() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    // As WordPad writes it: Windows-1252 escapes, `\uN` with its fallback, a picture, a table.
    let rtf = "{\\rtf1\\ansi\\ansicpg1252\\deff0\\nouicompat{\\fonttbl{\\f0\\fnil\\fcharset0 Calibri;}}\r\n\
               {\\*\\generator Riched20 10.0.19041}\\viewkind4\\uc1 \r\n\
               \\pard\\sa200\\sl276\\slmult1\\f0\\fs22\\lang9 The descaling cycle of the kettle takes twelve minutes \
               at 80\\'b0C.\\par\r\n\
               {\\pict\\wmetafile8\\picw265\\pich265 0100090000035000000000002700000000000400}\\par\r\n\
               \\trowd\\cellx3000\\cellx6000\\pard\\intbl Part\\cell Years\\cell\\row\r\n\
               \\trowd\\cellx3000\\cellx6000\\pard\\intbl Element\\cell 5\\cell\\row\r\n\
               \\pard Caf\\'e9 prices in \\u8364? only.\\par\r\n}";
    // The name says nothing: the type comes from the content.
    let source = upload_and_process(&t, &bot, "kettle-notes", rtf.as_bytes().to_vec(), "application/rtf").await;
    assert_eq!(source["status"], "ready", "{source}");
    assert_eq!(source["mimeType"], "application/rtf", "{source}");

    let id = source["id"].as_str().unwrap();
    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let results = search(&t, &path, "descaling cycle twelve minutes").await;
    let content = content_of(&results, id, "descaling cycle twelve minutes");
    assert!(content.contains("takes twelve minutes at 80°C."), "{content:?}");
    let text = t.chunk_texts(id).await.join("\n");
    assert!(text.contains("| Part | Years |\n|---|---|\n| Element | 5 |"), "tables stay tables: {text}");
    assert!(text.contains("Café prices in € only."), "{text}");
    for noise in ["Calibri", "Riched20", "0100090000", "\\par", "cellx"] {
        assert!(!text.contains(noise), "{noise} in {text}");
    }
    t.stop().await;
}
