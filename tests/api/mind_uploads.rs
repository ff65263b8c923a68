//! Mind uploads (docs/api.md §10, §16.3–4, §16.11): multipart documents and audio decided by
//! content, signed direct uploads, their limits, scopes and tenants; and the chatbot pair's
//! answers in the same flat shape.

use crate::fixtures;
use crate::support::{TestApp, expect_error, parts};
use lore_domain::workspace::LimitsPatch;
use reqwest::Method;
use reqwest::multipart::{Form, Part};
use serde_json::{Value, json};

const MIB: u64 = 1024 * 1024;

fn audio(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/fixtures/audio/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn file_form(file_name: &str, bytes: Vec<u8>) -> Form {
    Form::new().part("file", Part::bytes(bytes).file_name(file_name.to_owned()))
}

impl TestApp {
    /// A new Mind of the dev workspace; its id.
    async fn new_mind(&self, name: &str) -> String {
        let res = self.req(Method::POST, "/api/v1/minds", &self.dev_key).json(&json!({"name": name})).send().await;
        let (status, body) = parts(res.unwrap()).await;
        assert_eq!(status, 201, "create mind: {body}");
        body["mind"]["id"].as_str().unwrap().to_owned()
    }

    async fn upload_to_mind(&self, key: &str, mind: &str, form: Form) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/upload");
        parts(self.req(Method::POST, &path, key).multipart(form).send().await.unwrap()).await
    }

    async fn mind_upload_url(&self, key: &str, mind: &str, body: Value) -> (u16, Value) {
        let path = format!("/api/v1/minds/{mind}/knowledge/upload-url");
        parts(self.req(Method::POST, &path, key).json(&body).send().await.unwrap()).await
    }
}

/// The flat upload result of docs/api.md §16.3, exactly.
fn assert_upload_result(body: &Value, file_name: &str, mime: &str, size: usize, category: &str) {
    let mut keys: Vec<_> = body.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["category", "fileName", "fileSize", "fileUrl", "mimeType", "status"], "{body}");
    assert_eq!(body["status"], "success");
    assert_eq!(body["fileName"], file_name, "{body}");
    assert_eq!(body["mimeType"], mime, "{body}");
    assert_eq!(body["fileSize"], size, "{body}");
    assert_eq!(body["category"], category, "{body}");
}

/// GET without a key: status and bytes.
async fn fetch(url: &str) -> (u16, Vec<u8>) {
    let res = reqwest::get(url).await.unwrap();
    (res.status().as_u16(), res.bytes().await.unwrap().to_vec())
}

#[tokio::test]
async fn documents_and_audio_are_stored_with_their_category_and_served_as_sent() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Uploader").await;
    let k = t.dev_key.clone();
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        ("notes.md", b"# Notes\n\nA Mind's notes.".to_vec(), "text/markdown", "document"),
        ("plain.txt", b"Just text.".to_vec(), "text/plain", "document"),
        ("paper.pdf", fixtures::pdf(&["A paper"]), "application/pdf", "document"),
        (
            "cv.docx",
            fixtures::docx("CV", &["Experience"], [["a", "b"], ["c", "d"]]),
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "document",
        ),
        ("episode.mp3", audio("tone.mp3"), "audio/mpeg", "audio"),
        ("tagged.mp3", audio("tone-id3.mp3"), "audio/mpeg", "audio"),
        ("interview.wav", audio("tone.wav"), "audio/wav", "audio"),
        ("talk.m4a", audio("tone.m4a"), "audio/mp4", "audio"),
        ("show.ogg", audio("tone.ogg"), "audio/ogg", "audio"),
        // Named wrongly: the content decides.
        ("actually-audio.bin", audio("tone.opus.ogg"), "audio/ogg", "audio"),
    ];
    let mut urls = Vec::new();
    for (name, bytes, mime, category) in cases {
        let (status, body) = t.upload_to_mind(&k, &mind, file_form(name, bytes.clone())).await;
        assert_eq!(status, 201, "{name}: {body}");
        assert_upload_result(&body, name, mime, bytes.len(), category);
        let url = body["fileUrl"].as_str().unwrap().to_owned();
        assert!(!urls.contains(&url), "every upload has its own fileUrl");
        assert_eq!(fetch(&url).await, (200, bytes), "{name}: the exact bytes, without a key");
        urls.push(url);
    }
    // A key naming a directory (a workspace's uploads, one upload) is no file: 404, never 500.
    let (prefix, key) = urls[0].split_once("/files/").unwrap();
    let mut segments = key.split('/');
    let workspace = segments.next().unwrap();
    let second = segments.next().unwrap();
    for dir in [workspace.to_owned(), format!("{workspace}/"), format!("{workspace}/{second}")] {
        let res = reqwest::get(format!("{prefix}/files/{dir}")).await.unwrap();
        expect_error(res, 404, "not_found").await;
    }
    // The optional `category` part, when it agrees.
    let form = file_form("episode.mp3", audio("tone.mp3")).text("category", "audio");
    let (status, body) = t.upload_to_mind(&k, &mind, form).await;
    assert_eq!((status, body["category"].clone()), (201, json!("audio")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn the_type_is_decided_by_content_and_a_file_is_required() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Strict").await;
    let k = t.dev_key.clone();
    let refused: Vec<(&str, Vec<u8>)> = vec![
        ("episode.mp3", fixtures::executable()),
        ("talk.m4a", audio("video.mp4")),
        ("paper.pdf", vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n', 0, 0, 0, 13]),
        ("tone.wav", b"RIFF\x24\0\0\0WAVEjunk".to_vec()),
    ];
    for (name, bytes) in refused {
        let res = t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/upload"), &k);
        expect_error(res.multipart(file_form(name, bytes)).send().await.unwrap(), 400, "unsupported_file_type").await;
    }
    // A category the file is not, or no such category.
    let upload =
        |form: Form| t.req(Method::POST, &format!("/api/v1/minds/{mind}/knowledge/upload"), &k).multipart(form);
    let form = file_form("notes.md", b"# Notes".to_vec()).text("category", "audio");
    expect_error(upload(form).send().await.unwrap(), 400, "unsupported_file_type").await;
    let form = file_form("episode.mp3", audio("tone.mp3")).text("category", "podcast");
    let body = expect_error(upload(form).send().await.unwrap(), 400, "validation_error").await;
    assert!(body["error"]["details"]["fields"]["category"].is_string(), "{body}");
    // No file: a form without `file`, an empty file, a JSON body, no body.
    let form = Form::new().text("category", "document");
    expect_error(upload(form).send().await.unwrap(), 400, "missing_file").await;
    expect_error(upload(file_form("empty.md", Vec::new())).send().await.unwrap(), 400, "missing_file").await;
    let path = format!("/api/v1/minds/{mind}/knowledge/upload");
    let res = t.req(Method::POST, &path, &k).json(&json!({"file": "notes.md"})).send().await.unwrap();
    expect_error(res, 400, "missing_file").await;
    expect_error(t.req(Method::POST, &path, &k).send().await.unwrap(), 400, "missing_file").await;
    t.stop().await;
}

#[tokio::test]
async fn a_document_over_50_mb_is_file_too_large_not_413() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Big").await;
    let mut big = vec![b'a'; (50 * MIB + 1) as usize];
    big[..8].copy_from_slice(b"# Big\n\n ");
    let (status, body) = t.upload_to_mind(&t.dev_key, &mind, file_form("big.md", big)).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("file_too_large")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn signed_direct_uploads_make_usable_file_urls_within_each_categorys_limit() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Direct").await;
    let k = t.dev_key.clone();
    let bytes = audio("tone.mp3");
    let (status, up) = t
        .mind_upload_url(
            &k,
            &mind,
            json!({"fileName": "episode.mp3", "mimeType": "audio/mpeg", "fileSize": bytes.len()}),
        )
        .await;
    assert_eq!(status, 201, "{up}");
    let mut keys: Vec<_> = up.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["expiresAt", "fileUrl", "headers", "method", "status", "uploadUrl"], "{up}");
    assert_eq!((up["status"].clone(), up["method"].clone()), (json!("success"), json!("PUT")));
    assert!(up["expiresAt"].as_str().unwrap().ends_with('Z'), "{up}");
    let file_url = up["fileUrl"].as_str().unwrap().to_owned();
    assert_eq!(fetch(&file_url).await.0, 404, "nothing there before the PUT");

    let client = reqwest::Client::new();
    let put = |body: Vec<u8>, url: &str| {
        let mut req = client.put(url).body(body);
        for (h, v) in up["headers"].as_object().unwrap() {
            req = req.header(h, v.as_str().unwrap());
        }
        req.send()
    };
    let upload_url = up["uploadUrl"].as_str().unwrap().to_owned();
    if t.embedded_store().is_some() {
        // `lore serve`'s own signed URLs refuse a tampered signature and a larger body; on AWS
        // S3 does (the signature covers content-length), which moto does not emulate.
        let forged = upload_url.replace("signature=", "signature=x");
        assert_eq!(put(bytes.clone(), &forged).await.unwrap().status(), 404);
        let mut larger = bytes.clone();
        larger.push(0);
        assert_eq!(put(larger, &upload_url).await.unwrap().status(), 400);
    }
    assert!(put(bytes.clone(), &upload_url).await.unwrap().status().is_success());
    assert_eq!(fetch(&file_url).await, (200, bytes), "the exact bytes, without a key");

    // A document too, with an alias of its type.
    let doc = b"# Direct\n\nStraight to storage.".to_vec();
    let (status, up) = t
        .mind_upload_url(
            &k,
            &mind,
            json!({"fileName": "direct.md", "mimeType": "text/x-markdown", "fileSize": doc.len()}),
        )
        .await;
    assert_eq!(status, 201, "{up}");
    assert_ne!(up["fileUrl"], json!(file_url));

    // Each category's limit, by the declared size: audio 500 MB, documents 50 MB.
    let ask = |name: &str, mime: &str, size: u64| {
        t.mind_upload_url(&k, &mind, json!({"fileName": name, "mimeType": mime, "fileSize": size}))
    };
    assert_eq!(ask("long.mp3", "audio/mpeg", 500 * MIB).await.0, 201);
    assert_eq!(ask("long.wav", "audio/wav", 500 * MIB).await.0, 201);
    assert_eq!(ask("book.pdf", "application/pdf", 50 * MIB).await.0, 201);
    for (name, mime, size) in [
        ("long.mp3", "audio/mpeg", 500 * MIB + 1),
        ("long.ogg", "audio/ogg", 2000 * MIB),
        ("book.pdf", "application/pdf", 50 * MIB + 1),
    ] {
        let (status, body) = ask(name, mime, size).await;
        assert_eq!((status, body["error"]["code"].clone()), (400, json!("file_too_large")), "{name}: {body}");
    }
    for mime in ["application/x-msdownload", "video/mp4", "image/png", "text/html"] {
        let (status, body) = ask("x.bin", mime, 10).await;
        assert_eq!((status, body["error"]["code"].clone()), (400, json!("unsupported_file_type")), "{mime}: {body}");
    }
    let (status, body) = t.mind_upload_url(&k, &mind, json!({"mimeType": "audio/mpeg"})).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("validation_error")), "{body}");
    let fields = &body["error"]["details"]["fields"];
    assert!(fields["fileName"].is_string() && fields["fileSize"].is_string(), "{body}");
    assert!(fields["mimeType"].is_null(), "{body}");
    let (status, body) = ask("empty.mp3", "audio/mpeg", 0).await;
    assert_eq!((status, body["error"]["details"]["fields"]["fileSize"].is_string()), (400, true), "{body}");
    let (status, body) =
        t.mind_upload_url(&k, &mind, json!({"fileName": "a.mp3", "mimeType": "audio/mpeg", "fileSize": "big"})).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("validation_error")), "{body}");
    t.stop().await;
}

#[tokio::test]
async fn uploads_need_minds_write_and_stay_in_their_workspace() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Guarded").await;
    let upload = format!("/api/v1/minds/{mind}/knowledge/upload");
    let upload_url = format!("/api/v1/minds/{mind}/knowledge/upload-url");
    let ask = json!({"fileName": "a.md", "mimeType": "text/markdown", "fileSize": 3});
    for scopes in ["minds:read", "knowledge:write,chatbot:write,minds:read"] {
        let key = t.key("default", scopes).await;
        let res = t.req(Method::POST, &upload, &key).multipart(file_form("a.md", b"# a".to_vec())).send().await;
        let body = expect_error(res.unwrap(), 403, "insufficient_scope").await;
        assert_eq!(body["error"]["details"]["required"], "minds:write");
        let body = expect_error(
            t.req(Method::POST, &upload_url, &key).json(&ask).send().await.unwrap(),
            403,
            "insufficient_scope",
        )
        .await;
        assert_eq!(body["error"]["details"]["required"], "minds:write");
    }
    let writer = t.key("default", "minds:write").await;
    assert_eq!(t.upload_to_mind(&writer, &mind, file_form("a.md", b"# a".to_vec())).await.0, 201);
    assert_eq!(t.mind_upload_url(&writer, &mind, ask.clone()).await.0, 201);
    // No key.
    let res = t.client.post(t.url(&upload)).multipart(file_form("a.md", b"# a".to_vec())).send().await.unwrap();
    expect_error(res, 401, "unauthorized").await;
    expect_error(t.client.post(t.url(&upload_url)).json(&ask).send().await.unwrap(), 401, "unauthorized").await;

    // Another workspace's Mind, an unknown Mind, a malformed id: 404, before the body matters.
    let ws_b = t.workspace("beta", LimitsPatch::default()).await;
    let key_b = t.key(&ws_b, "minds:read,minds:write").await;
    for id in [mind.as_str(), "mind_01jq3z5v7b8c9d0e1f2g3h4j5k", "cb_nope"] {
        let (status, body) = t.upload_to_mind(&key_b, id, file_form("a.md", b"# a".to_vec())).await;
        assert_eq!((status, body["error"]["code"].clone()), (404, json!("not_found")), "{id}: {body}");
        let (status, body) = t.mind_upload_url(&key_b, id, ask.clone()).await;
        assert_eq!((status, body["error"]["code"].clone()), (404, json!("not_found")), "{id}: {body}");
    }
    let res = t.req(Method::POST, &upload, &key_b).send().await.unwrap();
    expect_error(res, 404, "not_found").await;
    t.stop().await;
}

#[tokio::test]
async fn the_chatbot_pair_answers_the_same_flat_shape_for_documents_only() {
    let t = TestApp::spawn().await;
    let bot = t.chatbot().await;
    let k = t.dev_key.clone();
    let path = format!("/api/v1/chatbots/{bot}/uploads");
    let upload = |form: Form| t.req(Method::POST, &path, &k).multipart(form).send();
    let doc = b"# Bot notes\n\nHello.".to_vec();
    let (status, body) = parts(upload(file_form("notes.md", doc.clone())).await.unwrap()).await;
    assert_eq!(status, 201, "{body}");
    assert_upload_result(&body, "notes.md", "text/markdown", doc.len(), "document");
    assert_eq!(fetch(body["fileUrl"].as_str().unwrap()).await, (200, doc));
    // Audio is for Minds only; chatbot files are at most 10 MB.
    expect_error(upload(file_form("episode.mp3", audio("tone.mp3"))).await.unwrap(), 400, "unsupported_file_type")
        .await;
    let ask = |body: Value| t.req(Method::POST, &format!("/api/v1/chatbots/{bot}/upload-url"), &k).json(&body).send();
    let r = ask(json!({"fileName": "e.mp3", "mimeType": "audio/mpeg", "fileSize": 10})).await.unwrap();
    expect_error(r, 400, "unsupported_file_type").await;
    let r = ask(json!({"fileName": "a.md", "mimeType": "text/markdown", "fileSize": 10 * MIB + 1})).await.unwrap();
    expect_error(r, 400, "file_too_large").await;
    let (status, up) =
        parts(ask(json!({"fileName": "a.md", "mimeType": "text/markdown", "fileSize": 10 * MIB})).await.unwrap()).await;
    assert_eq!((status, up["method"].clone()), (201, json!("PUT")), "{up}");
    t.stop().await;
}

#[tokio::test]
async fn the_openapi_document_describes_the_upload_routes() {
    let t = TestApp::spawn().await;
    let doc: Value = t.client.get(t.url("/api/v1/openapi.json")).send().await.unwrap().json().await.unwrap();
    for (path, body) in [
        ("/api/v1/minds/{mindId}/knowledge/upload", "multipart/form-data"),
        ("/api/v1/minds/{mindId}/knowledge/upload-url", "application/json"),
    ] {
        let op = &doc["paths"][path]["post"];
        assert!(op.is_object(), "{path} missing from the document");
        assert_eq!(op["tags"], json!(["minds"]), "{path}");
        assert_eq!(op["security"][0]["bearer"], json!(["minds:write"]), "{path}");
        assert!(op["requestBody"]["content"][body].is_object(), "{path}: {}", op["requestBody"]);
        assert!(op["responses"]["201"].is_object(), "{path}");
    }
    let schemas = &doc["components"]["schemas"];
    for key in ["fileUrl", "fileName", "mimeType", "fileSize", "category"] {
        assert!(schemas["UploadedView"]["properties"][key].is_object(), "UploadedView.{key}");
    }
    for key in ["uploadUrl", "method", "headers", "fileUrl", "expiresAt"] {
        assert!(schemas["UploadUrlView"]["properties"][key].is_object(), "UploadUrlView.{key}");
    }
    t.stop().await;
}

/// Interface rule: deleting a Mind deletes its uploaded files (every blob under
/// `<workspace>/<mind>/`, `BlobStore::delete_prefix`).
#[tokio::test]
async fn deleting_a_mind_deletes_its_uploads() {
    let t = TestApp::spawn().await;
    let mind = t.new_mind("Ephemeral").await;
    let (status, body) = t.upload_to_mind(&t.dev_key, &mind, file_form("notes.md", b"# gone".to_vec())).await;
    assert_eq!(status, 201, "{body}");
    let url = body["fileUrl"].as_str().unwrap().to_owned();
    assert_eq!(fetch(&url).await.0, 200);
    let res = t.req(Method::DELETE, &format!("/api/v1/minds/{mind}"), &t.dev_key).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(fetch(&url).await.0, 404, "the upload went with its Mind");
    t.stop().await;
}
