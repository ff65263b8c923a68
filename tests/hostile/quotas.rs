//! The workspace storage quota on every byte a tenant can make the service store: multipart
//! uploads, signed PUTs (checked when the URL is asked for and again when the bytes arrive) and
//! crawled pages, on the real `lore serve` with a workspace of 1,000,000 bytes (or 100,000 for the
//! crawl).

use crate::support::{Server, serve};
use reqwest::Method;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

async fn upload(server: &Server, key: &str, chatbot: &str, name: &str, bytes: Vec<u8>) -> (u16, Value) {
    let part = reqwest::multipart::Part::bytes(bytes).file_name(name.to_owned());
    let res = server
        .req(Method::POST, &format!("/api/v1/chatbots/{chatbot}/uploads"), key)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .expect("upload");
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn upload_url(server: &Server, key: &str, chatbot: &str, size: u64) -> (u16, Value) {
    let body = json!({"fileName": "notes.txt", "mimeType": "text/plain", "fileSize": size});
    server.json(Method::POST, &format!("/api/v1/chatbots/{chatbot}/upload-url"), key, Some(body)).await
}

fn code(answer: &(u16, Value)) -> (u16, Value) {
    (answer.0, answer.1["error"]["code"].clone())
}

#[tokio::test]
async fn uploads_and_signed_puts_count_against_the_storage_quota() {
    let server = serve(&[]);
    let key = server.tenant("small", &["--storage-quota", "1000000"]);
    let chatbot = server.chatbot(&key).await;
    let text = |n: usize| "quota words ".repeat(n / 12 + 1).into_bytes()[..n].to_vec();

    // The report: twelve 920 KB uploads were all accepted. The first fits, the second does not.
    assert_eq!(upload(&server, &key, &chatbot, "a.txt", text(920_000)).await.0, 201);
    let refused = upload(&server, &key, &chatbot, "b.txt", text(920_000)).await;
    assert_eq!(code(&refused), (403, json!("storage_limit")), "{}", refused.1);

    // An upload URL for more than the room left is refused when asked for …
    let early = upload_url(&server, &key, &chatbot, 9_000_000).await;
    assert_eq!(code(&early), (403, json!("storage_limit")), "{}", early.1);
    // … and one that fit when asked for is checked again when its bytes arrive.
    let (status, up) = upload_url(&server, &key, &chatbot, 60_000).await;
    assert_eq!(status, 201, "{up}");
    assert_eq!(upload(&server, &key, &chatbot, "c.txt", text(50_000)).await.0, 201, "970,000 bytes in use");
    let res = server.client.put(up["uploadUrl"].as_str().unwrap()).body(text(60_000)).send().await.unwrap();
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert_eq!((status, body["error"]["code"].clone()), (403, json!("storage_limit")), "{body}");
    let kept = server.client.get(up["fileUrl"].as_str().unwrap()).send().await.unwrap();
    assert_eq!(kept.status().as_u16(), 404, "a refused PUT keeps nothing");

    // A source made from an upload counts its bytes once, not twice.
    let (status, first) = upload(&server, &key, &chatbot, "small.txt", text(10_000)).await;
    assert_eq!(status, 201, "{first}");
    let (status, source) = server
        .json(
            Method::POST,
            &format!("/api/v1/chatbots/{chatbot}/sources"),
            &key,
            Some(json!({"type": "file", "fileUrl": first["fileUrl"]})),
        )
        .await;
    assert_eq!(status, 201, "a source from an upload that already counts: {source}");
    server.assert_peak_within_budget("quota on uploads");
}

/// Serves one HTML page of about `bytes` bytes to every request, on a thread.
fn big_page_site(bytes: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().unwrap();
    let paragraph = "<p>Every page of this site is long and every word of it is text.</p>\n";
    let body = format!("<html><body>{}</body></html>", paragraph.repeat(bytes / paragraph.len() + 1));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
    });
    format!("http://{addr}/")
}

#[tokio::test]
async fn a_crawl_past_the_quota_ends_in_storage_limit() {
    let server = serve(&[]);
    let key = server.tenant("crawler", &["--storage-quota", "100000"]);
    let chatbot = server.chatbot(&key).await;
    let site = big_page_site(1_000_000);
    let (status, body) = server
        .json(
            Method::POST,
            &format!("/api/v1/chatbots/{chatbot}/sources"),
            &key,
            Some(json!({"type": "url", "url": site})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let source = body["source"]["id"].as_str().unwrap().to_owned();
    let (status, body) =
        server.json(Method::POST, &format!("/api/v1/chatbots/{chatbot}/sources/{source}/process"), &key, None).await;
    assert!(status < 300, "{body}");
    let settled = server.settle_source(&key, &chatbot, &source, Duration::from_secs(60)).await;
    assert_eq!(settled["status"], "error", "{settled}");
    assert!(settled["error"].as_str().unwrap_or("").starts_with("storage_limit"), "{settled}");
    assert_eq!(settled["sizeBytes"], 0, "nothing counted: {settled}");
}
