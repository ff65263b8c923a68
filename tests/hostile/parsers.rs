//! Parser bombs (documents built to exhaust a parser) as chatbot file sources of the real
//! `lore serve`: each source ends in `error` with a reason naming the limit, and the server stays
//! up within its memory budget — whether the content caps refuse the document before parsing or
//! the parser's own process runs out of its memory budget or time.

use crate::files;
use crate::support::{Server, serve};
use reqwest::Method;
use serde_json::Value;
use std::time::Duration;

/// Uploads `bytes` as a file source of a new chatbot, starts processing, and waits for the end.
async fn process_upload(server: &Server, name: &str, bytes: Vec<u8>) -> Value {
    let chatbot = server.chatbot(&server.key).await;
    let part = reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned());
    let res = server
        .req(Method::POST, &format!("/api/v1/chatbots/{chatbot}/sources"), &server.key)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .expect("upload");
    let status = res.status().as_u16();
    let body: Value = res.json().await.expect("JSON");
    assert_eq!(status, 201, "{name}: {body}");
    let source = body["source"]["id"].as_str().expect("source id").to_owned();
    let (status, body) = server
        .json(Method::POST, &format!("/api/v1/chatbots/{chatbot}/sources/{source}/process"), &server.key, None)
        .await;
    assert!(status < 300, "{name}: process answered {status}: {body}");
    server.settle_source(&server.key, &chatbot, &source, Duration::from_secs(120)).await
}

/// The source ended in `error` with a reason containing `expected`, and nothing was indexed.
fn assert_refused(name: &str, source: &Value, expected: &str) {
    assert_eq!(source["status"], "error", "{name}: {source}");
    let reason = source["error"].as_str().unwrap_or("");
    assert!(reason.contains(expected), "{name}: the reason {reason:?} does not mention {expected:?}");
    assert_eq!(source["chunkCount"], 0, "{name}: {source}");
}

/// The server still answers.
async fn assert_up(server: &Server) {
    let (status, body) = server.json(Method::GET, "/api/v1/chatbots", &server.key, None).await;
    assert_eq!(status, 200, "the server still answers: {body}");
}

#[tokio::test]
async fn content_bombs_are_refused_by_the_content_caps() {
    let server = serve(&[]);
    // A 67 KB-class PDF bomb (28 MB of content), the ~1 MB one (432 MB) and the DOCX
    // of 2,000,000 one-word paragraphs (36 MB of XML, inside the zip-bomb ratio check).
    let cases = [
        ("bomb-28mb.pdf", files::pdf_content_bomb(28 << 20), "4 MiB of drawing instructions, the limit per page"),
        ("bomb-432mb.pdf", files::pdf_content_bomb(432 << 20), "4 MiB of drawing instructions, the limit per page"),
        ("paragraphs.docx", files::docx_paragraph_bomb(2_000_000), "more than 200000 paragraphs, the limit"),
    ];
    for (name, bytes, expected) in cases {
        let source = process_upload(&server, name, bytes).await;
        assert_refused(name, &source, expected);
        assert_up(&server).await;
    }
    // A good document still goes through after them.
    let source = process_upload(&server, "fine.pdf", files::small_pdf("Quarterly revenue grew")).await;
    assert_eq!(source["status"], "ready", "{source}");
    server.assert_peak_within_budget("PDF and DOCX content bombs");
}

#[tokio::test]
async fn a_parser_over_its_memory_budget_fails_alone() {
    // The content caps lifted: pdf-extract itself meets the 28 MB bomb (~2.4 GB unbounded), in
    // its own process under a 256 MiB budget.
    let server = serve(&[
        ("LORE_EXTRACT_MAX_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_MAX_PAGE_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_MEMORY_MB", "256"),
    ]);
    let source = process_upload(&server, "bomb.pdf", files::pdf_content_bomb(28 << 20)).await;
    assert_refused("bomb.pdf", &source, "exceeded the parser's memory budget of 256 MiB");
    assert_up(&server).await;
    server.assert_peak_within_budget("a parser over its memory budget");
}

#[tokio::test]
async fn a_busy_pdf_is_killed_at_its_time_limit() {
    // Content caps lifted and a 3 s budget: 20,000 pages sharing one busy content stream would
    // keep pdf-extract busy for minutes.
    let server = serve(&[
        ("LORE_EXTRACT_MAX_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_MAX_PAGE_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_TIMEOUT_SECS", "3"),
    ]);
    let started = std::time::Instant::now();
    let source = process_upload(&server, "busy.pdf", files::pdf_busy(20_000)).await;
    assert_refused("busy.pdf", &source, "took longer than 3s");
    assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
    // Its slot was freed with it: the next document is read at once.
    let source = process_upload(&server, "fine.pdf", files::small_pdf("after the busy one")).await;
    assert_eq!(source["status"], "ready", "{source}");
    server.assert_peak_within_budget("a busy PDF");
}
