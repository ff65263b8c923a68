//! Fair sharing of the ingest workers between tenants: one tenant's slow documents cannot hold
//! every worker; another tenant's small source is processed while they run.

use crate::files;
use crate::support::{Server, serve};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// Creates a source from `body` (JSON) or an uploaded `file`, starts processing it; its id.
async fn start(server: &Server, key: &str, chatbot: &str, body: Option<Value>, file: Option<Vec<u8>>) -> String {
    let path = format!("/api/v1/chatbots/{chatbot}/sources");
    let (status, created) = match file {
        Some(bytes) => {
            let part = reqwest::multipart::Part::bytes(bytes).file_name("busy.pdf");
            let form = reqwest::multipart::Form::new().part("file", part);
            let res = server.req(Method::POST, &path, key).multipart(form).send().await.expect("upload");
            (res.status().as_u16(), res.json::<Value>().await.unwrap_or(Value::Null))
        }
        None => server.json(Method::POST, &path, key, body).await,
    };
    assert_eq!(status, 201, "{created}");
    let source = created["source"]["id"].as_str().expect("source id").to_owned();
    let (status, body) = server.json(Method::POST, &format!("{path}/{source}/process"), key, None).await;
    assert!(status < 300, "process: {status} {body}");
    source
}

async fn status_of(server: &Server, key: &str, chatbot: &str, source: &str) -> String {
    let (_, body) = server.json(Method::GET, &format!("/api/v1/chatbots/{chatbot}/sources/{source}"), key, None).await;
    body["source"]["status"].as_str().unwrap_or("").to_owned()
}

#[tokio::test]
async fn another_tenants_small_source_is_processed_while_one_tenants_busy_pdfs_run() {
    // Content caps lifted: each busy PDF keeps its parser busy until its 20 s budget ends.
    let server = serve(&[
        ("LORE_EXTRACT_MAX_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_MAX_PAGE_CONTENT_MB", "4096"),
        ("LORE_EXTRACT_TIMEOUT_SECS", "20"),
    ]);
    let busy_key = server.tenant("busy", &[]);
    let small_key = server.tenant("small", &[]);
    let busy_bot = server.chatbot(&busy_key).await;
    let small_bot = server.chatbot(&small_key).await;
    let pdf = files::pdf_busy(20_000);
    let first = start(&server, &busy_key, &busy_bot, None, Some(pdf.clone())).await;
    let second = start(&server, &busy_key, &busy_bot, None, Some(pdf)).await;

    // The report: a 35-byte text of another tenant waited 87 s behind two busy PDFs.
    let started = Instant::now();
    let text = json!({"type": "text", "name": "small", "content": "Refunds are possible for 30 days."});
    let small = start(&server, &small_key, &small_bot, Some(text), None).await;
    let settled = server.settle_source(&small_key, &small_bot, &small, Duration::from_secs(60)).await;
    let waited = started.elapsed();
    assert_eq!(settled["status"], "ready", "{settled}");
    assert!(waited < Duration::from_secs(10), "the other tenant's source took {waited:?}");
    // The busy tenant's work was still under way: it ran beside, not before, the small source.
    let busy = [
        status_of(&server, &busy_key, &busy_bot, &first).await,
        status_of(&server, &busy_key, &busy_bot, &second).await,
    ];
    assert!(busy.iter().any(|s| s == "processing"), "the busy PDFs were still processing: {busy:?}");
    server.assert_peak_within_budget("two busy PDFs and another tenant's text");
}
