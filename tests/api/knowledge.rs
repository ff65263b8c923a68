//! Chatbot knowledge sources over HTTP: the state table, every error code, every format.

use crate::fixtures;
use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use serde_json::{Value, json};

async fn chunk_text(t: &TestApp, source: &Value) -> String {
    t.chunk_texts(source["id"].as_str().unwrap()).await.join("\n")
}

#[tokio::test]
async fn a_text_source_goes_pending_processing_ready_and_back_to_pending_on_edit() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let text = "Refunds are issued within 14 days of a returned invoice. ".repeat(100);
    let (status, body) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": text})).await;
    assert_eq!(status, 201, "{body}");
    let src = &body["source"];
    let id = src["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("src_"));
    assert_eq!(src["status"], "pending");
    assert_eq!(src["type"], "text");
    assert_eq!(src["name"], "Untitled text");
    assert_eq!(src["chatbotId"], bot.as_str());
    assert_eq!(src["sizeBytes"], text.len());
    assert_eq!(src["content"], text.as_str());
    assert_eq!((src["chunkCount"].clone(), src["processedAt"].clone()), (json!(0), Value::Null));

    let (status, body) = t.process(&bot, &id).await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["source"]["status"], "processing");
    let ready = t.settle(&bot, &id).await;
    assert_eq!(ready["status"], "ready", "{ready}");
    let chunks = ready["chunkCount"].as_u64().unwrap();
    assert!(chunks >= 2, "{ready}");
    assert!(ready["processedAt"].is_string() && ready["error"].is_null() && ready["progress"].is_null());
    assert!(ready["contentHash"].as_str().unwrap().len() == 64);
    assert!(chunk_text(&t, &ready).await.contains("Refunds are issued within 14 days"));

    let stats = t.stats(&bot).await;
    assert_eq!(stats["totalSources"], 1);
    assert_eq!(stats["totalChunks"], chunks);
    assert_eq!(stats["totalSizeBytes"], text.len());
    assert_eq!(stats["sourcesByStatus"], json!({"ready": 1}));
    assert_eq!(stats["sourcesByType"], json!({"text": 1, "url": 0, "file": 0}));

    // PATCH of the name keeps it ready; a content change sends it back to pending.
    let path = format!("/api/v1/chatbots/{bot}/sources/{id}");
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"name": "Refund policy"})).send().await.unwrap();
    let (_, body) = parts(res).await;
    assert_eq!(
        (body["source"]["name"].clone(), body["source"]["status"].clone()),
        (json!("Refund policy"), json!("ready"))
    );
    let res = t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"content": text.clone()})).send().await.unwrap();
    assert_eq!(parts(res).await.1["source"]["status"], "ready", "unchanged content is not a change");
    let res =
        t.req(Method::PATCH, &path, &t.dev_key).json(&json!({"content": "New policy text."})).send().await.unwrap();
    let (status, body) = parts(res).await;
    assert_eq!(status, 200);
    assert_eq!(body["source"]["status"], "pending");
    assert_eq!(body["source"]["chunkCount"], 0);
    assert_eq!(t.stats(&bot).await["totalChunks"], 0, "the old chunks are gone");

    // Reprocess, then delete: the source and its chunks are removed.
    t.process(&bot, &id).await;
    assert_eq!(t.settle(&bot, &id).await["chunkCount"], 1);
    let (status, body) = parts(t.req(Method::DELETE, &path, &t.dev_key).send().await.unwrap()).await;
    assert_eq!((status, body.clone()), (200, json!({"status": "success", "deleted": true, "id": id})));
    expect_error(t.req(Method::GET, &path, &t.dev_key).send().await.unwrap(), 404, "not_found").await;
    let stats = t.stats(&bot).await;
    assert_eq!((stats["totalSources"].clone(), stats["totalChunks"].clone()), (json!(0), json!(0)));
    assert_eq!(stats["sourcesByStatus"], json!({}));
    let (_, bot_now) =
        parts(t.req(Method::GET, &format!("/api/v1/chatbots/{bot}"), &t.dev_key).send().await.unwrap()).await;
    assert_eq!(bot_now["chatbot"]["sourceCount"], 0);

    assert_eq!(
        t.event_types().await,
        ["knowledge.source.created", "knowledge.source.ready", "knowledge.source.ready", "knowledge.source.deleted"]
    );
    t.stop().await;
}

#[tokio::test]
async fn each_format_is_extracted_chunked_and_ready() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "handbook.pdf",
            fixtures::pdf(&["Vacation policy: employees get 25 days.", "Ask HR for details."]),
            "application/pdf",
            "25 days",
        ),
        (
            "faq.docx",
            fixtures::docx(
                "Shipping FAQ",
                &["Orders ship within two business days."],
                [["Region", "Days"], ["EU", "3"]],
            ),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "two business days",
        ),
        (
            "guide.md",
            b"# Setup guide\n\n- Install the agent\n- Run `lore serve`\n".to_vec(),
            "text/markdown",
            "Install the agent",
        ),
        ("notes.txt", "Plain UTF-8 notes: naïve café ☕".as_bytes().to_vec(), "text/plain", "naïve café ☕"),
        ("legacy.txt", fixtures::latin1("Ancien texte: café crème à l'été"), "text/plain", "café crème à l'été"),
    ];
    for (name, bytes, mime, needle) in cases {
        let size = bytes.len();
        let (status, body) = t.upload_source(&bot, name, bytes).await;
        assert_eq!(status, 201, "{name}: {body}");
        let src = &body["source"];
        assert_eq!((src["type"].clone(), src["name"].clone()), (json!("file"), json!(name)));
        assert_eq!((src["mimeType"].clone(), src["sizeBytes"].clone()), (json!(mime), json!(size)), "{name}");
        let id = src["id"].as_str().unwrap();
        assert_eq!(t.process(&bot, id).await.0, 202);
        let done = t.settle(&bot, id).await;
        assert_eq!(done["status"], "ready", "{name}: {done}");
        assert!(done["chunkCount"].as_u64().unwrap() >= 1);
        let text = chunk_text(&t, &done).await;
        assert!(text.contains(needle), "{name}: {needle:?} not in {text:?}");
        if name == "faq.docx" {
            assert!(text.contains("EU | 3"), "table cells kept on one line: {text:?}");
        }
        // The stored file is served at its fileUrl, without a key, byte for byte.
        let served = reqwest::get(done["fileUrl"].as_str().unwrap()).await.unwrap();
        assert_eq!(served.status(), 200);
        assert_eq!(served.bytes().await.unwrap().len(), size);
    }
    let stats = t.stats(&bot).await;
    assert_eq!(stats["sourcesByType"], json!({"text": 0, "url": 0, "file": 5}));
    assert_eq!(stats["sourcesByStatus"], json!({"ready": 5}));
    t.stop().await;
}

#[tokio::test]
async fn hostile_files_end_in_error_or_are_refused_and_the_server_lives_on() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    // Refused at upload: decided by content, not by name.
    let (status, body) = t.upload_source(&bot, "invoice.pdf", fixtures::executable()).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("unsupported_file_type")), "{body}");
    let (status, body) = t.upload_source(&bot, "photo.txt", vec![0x89, b'P', b'N', b'G', 0, 0, 0, 13, 0, 0]).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("unsupported_file_type")), "{body}");

    // Accepted (they look like documents) but unreadable: processing ends in `error` with a reason.
    let mut truncated = fixtures::pdf(&["cut short"]);
    truncated.truncate(truncated.len() / 2);
    let mut garbage = b"%PDF-1.7\n".to_vec();
    garbage.extend(std::iter::repeat_n(0xABu8, 50_000));
    for (name, bytes) in
        [("truncated.pdf", truncated), ("garbage.pdf", garbage), ("bomb.docx", fixtures::docx_zip_bomb(300))]
    {
        let (status, body) = t.upload_source(&bot, name, bytes).await;
        assert_eq!(status, 201, "{name}: {body}");
        let id = body["source"]["id"].as_str().unwrap().to_owned();
        t.process(&bot, &id).await;
        let done = t.settle(&bot, &id).await;
        assert_eq!(done["status"], "error", "{name}: {done}");
        assert!(done["error"].as_str().is_some_and(|e| !e.is_empty()), "{name}: {done}");
        assert_eq!(done["chunkCount"], 0);
    }
    assert!(t.event_types().await.iter().filter(|e| *e == "knowledge.source.error").count() == 3);
    // Still serving.
    assert_eq!(t.req(Method::GET, "/api/v1/chatbots", &t.dev_key).send().await.unwrap().status(), 200);
    t.stop().await;
}

#[tokio::test]
async fn create_errors_have_their_codes() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let k = t.dev_key.clone();
    let code = |r: (u16, Value)| (r.0, r.1["error"]["code"].as_str().unwrap_or("").to_owned());
    let e = |s: u16, c: &str| (s, c.to_owned());

    assert_eq!(code(t.post_source(&k, &bot, json!({"type": "text"})).await), e(400, "missing_content"));
    assert_eq!(
        code(t.post_source(&k, &bot, json!({"type": "text", "content": "   "})).await),
        e(400, "missing_content")
    );
    let max = "é".repeat(100_000);
    assert_eq!(
        t.post_source(&k, &bot, json!({"type": "text", "content": max})).await.0,
        201,
        "100,000 characters is fine"
    );
    let over = "a".repeat(100_001);
    assert_eq!(
        code(t.post_source(&k, &bot, json!({"type": "text", "content": over})).await),
        e(400, "content_too_large")
    );
    assert_eq!(code(t.post_source(&k, &bot, json!({"type": "url"})).await), e(400, "missing_url"));
    for bad in ["not a url", "http://", "example.com/page"] {
        assert_eq!(
            code(t.post_source(&k, &bot, json!({"type": "url", "url": bad})).await),
            e(400, "invalid_url"),
            "{bad}"
        );
    }
    assert_eq!(
        code(t.post_source(&k, &bot, json!({"type": "url", "url": "http://127.0.0.1/"})).await),
        e(400, "url_blocked")
    );
    for depth in [0, 6, -1] {
        let r =
            t.post_source(&k, &bot, json!({"type": "url", "url": "https://example.com/", "crawlDepth": depth})).await;
        assert_eq!(code(r.clone()), e(400, "validation_error"));
        assert!(r.1["error"]["details"]["fields"]["crawlDepth"].is_string());
    }
    assert_eq!(code(t.post_source(&k, &bot, json!({"type": "file"})).await), e(400, "missing_file"));
    assert_eq!(code(t.post_source(&k, &bot, json!({"type": "video"})).await), e(400, "validation_error"));
    assert_eq!(code(t.post_source(&k, &bot, json!({"content": "x"})).await), e(400, "validation_error"));

    // Multipart without a file part.
    let form = reqwest::multipart::Form::new().text("name", "nothing");
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources"), &k).multipart(form).send().await.unwrap();
    expect_error(res, 400, "missing_file").await;
    // 11 MB is file_too_large, not 413 (docs/api.md §16.12); exactly 10 MB is fine.
    let (status, body) = t.upload_source(&bot, "big.txt", vec![b'a'; 11 * 1024 * 1024]).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("file_too_large")));
    let (status, _) = t.upload_source(&bot, "max.txt", vec![b'a'; 10 * 1024 * 1024]).await;
    assert_eq!(status, 201);

    // Unknown chatbot, another chatbot's source, another workspace's fileUrl.
    assert_eq!(
        code(t.post_source(&k, "cb_01jq3z5v7b8c9d0e1f2g3h4j5k", json!({"type": "text", "content": "x"})).await),
        e(404, "not_found")
    );
    let other_bot = t.chatbot().await;
    let (_, made) = t.post_source(&k, &bot, json!({"type": "text", "content": "mine"})).await;
    let id = made["source"]["id"].as_str().unwrap();
    let res = t.req(Method::GET, &format!("/api/v1/chatbots/{other_bot}/sources/{id}"), &k).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    let ws2 = t.workspace("other", LimitsPatch::default()).await;
    let k2 = t.key(&ws2, "all").await;
    let bot2 = t.create_chatbot(&k2, json!({"name": "theirs"})).await["id"].as_str().unwrap().to_owned();
    let part = reqwest::multipart::Part::bytes(b"secret notes".to_vec()).file_name("s.txt");
    let res = t
        .req(Method::POST, &format!("/api/v1/chatbots/{bot2}/uploads"), &k2)
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .unwrap();
    let (status, uploaded) = parts(res).await;
    assert_eq!(status, 201, "{uploaded}");
    let stolen = json!({"type": "file", "fileUrl": uploaded["fileUrl"]});
    assert_eq!(code(t.post_source(&k, &bot, stolen).await), e(404, "not_found"));
    let res = t.req(Method::GET, &format!("/api/v1/chatbots/{bot2}/sources"), &k).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn storage_quota_is_checked_at_creation_and_freed_by_deletion() {
    let t = TestApp::spawn().await;
    let ws = t.workspace("small", LimitsPatch { storage_quota_bytes: Some(100), ..Default::default() }).await;
    let k = t.key(&ws, "all").await;
    let bot = t.create_chatbot(&k, json!({"name": "b"})).await["id"].as_str().unwrap().to_owned();
    let (status, first) = t.post_source(&k, &bot, json!({"type": "text", "content": "a".repeat(60)})).await;
    assert_eq!(status, 201);
    let (status, body) = t.post_source(&k, &bot, json!({"type": "text", "content": "b".repeat(41)})).await;
    assert_eq!((status, body["error"]["code"].clone()), (403, json!("storage_limit")), "{body}");
    let (status, _) = t.post_source(&k, &bot, json!({"type": "text", "content": "c".repeat(40)})).await;
    assert_eq!(status, 201, "exactly at the quota is fine");
    let id = first["source"]["id"].as_str().unwrap();
    let res = t.req(Method::DELETE, &format!("/api/v1/chatbots/{bot}/sources/{id}"), &k).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let (status, _) = t.post_source(&k, &bot, json!({"type": "text", "content": "d".repeat(60)})).await;
    assert_eq!(status, 201, "deleting frees the bytes");
    t.stop().await;
}

#[tokio::test]
async fn operations_that_do_not_fit_the_type_are_invalid() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let (_, text) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": "hello"})).await;
    let text_id = text["source"]["id"].as_str().unwrap();
    let (_, file) = t.upload_source(&bot, "a.md", b"# A\n\nbody".to_vec()).await;
    let file_id = file["source"]["id"].as_str().unwrap();
    let res = t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/sources/{text_id}/refresh"), &t.dev_key).send();
    expect_error(res.await.unwrap(), 400, "invalid_operation").await;
    let res = t
        .req(Method::PATCH, &format!("/api/v1/chatbots/{bot}/sources/{file_id}"), &t.dev_key)
        .json(&json!({"name": "renamed"}))
        .send();
    expect_error(res.await.unwrap(), 400, "invalid_operation").await;
    t.stop().await;
}

#[tokio::test]
async fn list_filters_and_pagination() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let (_, b) = t.post_source(&t.dev_key, &bot, json!({"type": "text", "content": format!("doc {i}")})).await;
        ids.push(b["source"]["id"].as_str().unwrap().to_owned());
    }
    t.upload_source(&bot, "x.md", b"# x".to_vec()).await;
    t.process(&bot, &ids[0]).await;
    t.settle(&bot, &ids[0]).await;
    let list = |q: &'static str| {
        let t = &t;
        let bot = bot.clone();
        async move {
            let res =
                t.req(Method::GET, &format!("/api/v1/chatbots/{bot}/sources{q}"), &t.dev_key).send().await.unwrap();
            parts(res).await
        }
    };
    let (_, all) = list("").await;
    assert_eq!(all["pagination"], json!({"page": 1, "limit": 20, "total": 6, "totalPages": 1}));
    assert_eq!(all["sources"][1]["id"], ids[4].as_str(), "newest first");
    assert!(all["sources"][1].get("content").is_none(), "list items carry no content");
    assert_eq!(list("?status=ready").await.1["pagination"]["total"], 1);
    assert_eq!(list("?status=pending&type=text").await.1["pagination"]["total"], 4);
    assert_eq!(list("?type=file").await.1["sources"][0]["fileName"], "x.md");
    assert_eq!(list("?type=url").await.1["sources"], json!([]));
    let (_, page2) = list("?limit=4&page=2").await;
    assert_eq!(page2["sources"].as_array().unwrap().len(), 2);
    let (status, bad) = list("?status=done").await;
    assert_eq!((status, bad["error"]["code"].clone()), (400, json!("validation_error")));
    assert!(bad["error"]["details"]["fields"]["status"].is_string());
    assert_eq!(list("?type=pdf").await.0, 400);
    t.stop().await;
}

#[tokio::test]
async fn uploads_and_signed_direct_uploads_make_usable_file_urls() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let k = t.dev_key.clone();
    let doc = b"# Direct\n\nUploaded straight to storage.".to_vec();
    let res = t
        .req(Method::POST, &format!("/api/v1/chatbots/{bot}/upload-url"), &k)
        .json(&json!({"fileName": "direct.md", "mimeType": "text/markdown", "fileSize": doc.len()}))
        .send()
        .await
        .unwrap();
    let (status, up) = parts(res).await;
    assert_eq!(status, 201, "{up}");
    assert_eq!(up["method"], "PUT");
    assert!(up["expiresAt"].as_str().unwrap().ends_with('Z'));
    let file_url = up["fileUrl"].as_str().unwrap().to_owned();
    assert_eq!(reqwest::get(&file_url).await.unwrap().status(), 404, "nothing there before the PUT");

    let client = reqwest::Client::new();
    let mut put = client.put(up["uploadUrl"].as_str().unwrap()).body(doc.clone());
    for (h, v) in up["headers"].as_object().unwrap() {
        put = put.header(h, v.as_str().unwrap());
    }
    assert_eq!(put.send().await.unwrap().status(), 200);
    assert_eq!(reqwest::get(&file_url).await.unwrap().bytes().await.unwrap().to_vec(), doc);
    // A tampered signature or a larger body is refused: by `lore serve`'s own signed URLs here;
    // on AWS by S3 itself (the signature covers content-length), which moto does not emulate.
    if t.embedded_store().is_some() {
        let forged = up["uploadUrl"].as_str().unwrap().replace("signature=", "signature=x");
        assert_eq!(client.put(forged).body(doc.clone()).send().await.unwrap().status(), 404);
        let res = client.put(up["uploadUrl"].as_str().unwrap()).body(vec![b'a'; doc.len() + 1]).send().await.unwrap();
        assert_eq!(res.status(), 400);
    }

    let (status, src) = t.post_source(&k, &bot, json!({"type": "file", "fileUrl": file_url, "name": "Direct"})).await;
    assert_eq!(status, 201, "{src}");
    let id = src["source"]["id"].as_str().unwrap();
    t.process(&bot, id).await;
    let done = t.settle(&bot, id).await;
    assert_eq!(done["status"], "ready", "{done}");
    assert!(chunk_text(&t, &done).await.contains("Uploaded straight to storage."));

    // upload-url validation.
    let ask = |body: Value| t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/upload-url"), &k).json(&body).send();
    let r =
        ask(json!({"fileName": "a.pdf", "mimeType": "application/pdf", "fileSize": 11 * 1024 * 1024})).await.unwrap();
    expect_error(r, 400, "file_too_large").await;
    let r = ask(json!({"fileName": "a.exe", "mimeType": "application/x-msdownload", "fileSize": 10})).await.unwrap();
    expect_error(r, 400, "unsupported_file_type").await;
    let r = ask(json!({"mimeType": "application/pdf"})).await.unwrap();
    let body = expect_error(r, 400, "validation_error").await;
    assert!(
        body["error"]["details"]["fields"]["fileName"].is_string()
            && body["error"]["details"]["fields"]["fileSize"].is_string()
    );

    // Deleting the source deletes its file.
    let res = t.req(Method::DELETE, &format!("/api/v1/chatbots/{bot}/sources/{id}"), &k).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(reqwest::get(&file_url).await.unwrap().status(), 404);
    t.stop().await;
}
