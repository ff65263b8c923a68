//! Text recognition of a scanned PDF end to end: a `lore serve` with `LORE_OCR=tesseract`
//! (through its override) reads the real scan of lib/extract/tests/fixtures/scanned-page.pdf
//! uploaded to a chatbot, and keyword search finds a word rendered in its image. Needs the
//! `tesseract` program with English data (scripts/test.sh installs it).

use crate::support::{TestApp, parts};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn ocr_a_scanned_pdf_becomes_searchable_text() {
    let t = TestApp::spawn_with(lore::compose::Overrides {
        ocr: Some(lore_app::ports::OcrSettings::default()),
        ..Default::default()
    })
    .await;
    let bot = t.chatbot().await;
    let scan = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../lib/extract/tests/fixtures/scanned-page.pdf"))
        .expect("the scan fixture");
    let (status, body) = t.upload_source(&bot, "inspection.pdf", scan).await;
    assert_eq!(status, 201, "{body}");
    let id = body["source"]["id"].as_str().unwrap().to_owned();
    let (status, body) = t.process(&bot, &id).await;
    assert_eq!(status, 202, "{body}");
    let done = t.settle(&bot, &id).await;
    assert_eq!(done["status"], "ready", "{done}");

    let path = format!("/api/v1/chatbots/{bot}/knowledge/search");
    let res = t.req(Method::POST, &path, &t.dev_key).json(&json!({"query": "lantern gasket", "topK": 5})).send();
    let (status, body) = parts(res.await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let hit = body["results"].as_array().expect("results").iter().find(|r| r["sourceId"] == id.as_str()).cloned();
    let content =
        hit.unwrap_or_else(|| panic!("no result of the scan: {body}"))["content"].as_str().unwrap().to_lowercase();
    assert!(content.contains("lantern") && content.contains("lighthouse"), "{content}");
}
